"""Kelvin's functions (variable/ops/kelvin_functions.py): ber, bei, ker, kei, berp, beip, kerp,
keip against references of our own in 100-digit decimals (the power series of J_n(x e^(3 pi i/4))
and of K_n(x e^(pi i/4)) with its logarithm and digamma terms, complex numbers as pairs), the
Wronskian out to 1000, the rows (third order, Taylor mode to sixth), the orders and turns the
derivatives reach, the edges, SciPy's values, and the device path without a host sync."""

import functools
import math
from decimal import Decimal, getcontext, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import SMOOTH, Row, device_equals_host, table_tests
from test_ops_integrals import EULER_GAMMA, cos_sin, machin_pi

import variable as V
from variable.ops.kelvin_functions import Kelvin, kelvin_arrays

DIGITS = 100
PI = machin_pi(DIGITS + 10)


def _decimal(x):
    f = Fraction(float(x))
    return Decimal(f.numerator) / Decimal(f.denominator)


def _unit(m):
    """e^(i m pi / 4) as a pair of decimals."""
    root = (Decimal(1) / 2).sqrt()
    return [(1, 0), (root, root), (0, 1), (-root, root),
            (-1, 0), (-root, -root), (0, -1), (root, -root)][m % 8]


def _times(p, q):
    return p[0] * q[0] - p[1] * q[1], p[0] * q[1] + p[1] * q[0]


def _plus(p, q):
    return p[0] + q[0], p[1] + q[1]


def _scaled(p, s):
    return p[0] * s, p[1] * s


def _power(h, m):
    """(h e^(i pi/4))^m for a whole m (h = x/2): (z/2)^m."""
    return _scaled(_unit(m), h ** m)


def _by_precision(series):
    """`series(n, h)` computed once for each n, h and the context's precision: ber and bei are
    the parts of one series, and the checks of a row (its forward, float32) read the same points."""
    cache = {}

    @functools.wraps(series)
    def cached(n, h):
        key = (n, h, getcontext().prec)
        if key not in cache:
            cache[key] = series(n, h)
        return cache[key]
    return cached


@_by_precision
def _series_i(n, h):
    """I_n(z) = sum_k (z/2)^(n+2k) / (k! (n+k)!), z/2 = h e^(i pi/4), and the sum of |terms|."""
    total, k = (Decimal(0), Decimal(0)), 0
    while True:
        weight = Decimal(1) / (math.factorial(k) * math.factorial(n + k))
        total = _plus(total, _scaled(_power(h, n + 2 * k), weight))
        if k > 4 and h ** (n + 2 * k) * weight < Decimal(10) ** -(DIGITS + 40):
            return total
        k += 1


@_by_precision
def _series_k(n, h):
    """K_n(z) = (1/2)(z/2)^-n sum_(k<n) (n-k-1)!/k! (-z^2/4)^k + (-1)^(n+1) log(z/2) I_n(z)
    + (-1)^n (1/2)(z/2)^n sum_k (psi(k+1) + psi(n+k+1)) (z^2/4)^k / (k! (n+k)!)."""
    finite = (Decimal(0), Decimal(0))
    for k in range(n):
        weight = Decimal(math.factorial(n - k - 1)) / math.factorial(k) * (-1) ** k
        finite = _plus(finite, _scaled(_power(h, 2 * k - n), weight))
    log = (h.ln(), PI / 4)
    logged = _scaled(_times(log, _series_i(n, h)), (-1) ** (n + 1))
    rest, k = (Decimal(0), Decimal(0)), 0
    harmonic = [Decimal(0)]
    while True:
        while len(harmonic) <= n + k + 1:
            harmonic.append(harmonic[-1] + Decimal(1) / len(harmonic))
        weight = (harmonic[k] + harmonic[n + k] - 2 * EULER_GAMMA) / math.factorial(k) / math.factorial(n + k)
        rest = _plus(rest, _scaled(_power(h, n + 2 * k), weight))
        if k > 4 and abs(weight) * h ** (n + 2 * k) < Decimal(10) ** -(DIGITS + 40):
            break
        k += 1
    return _plus(_plus(_scaled(finite, Decimal(1) / 2), logged), _scaled(rest, Decimal((-1) ** n) / 2))


def kelvin_decimal(family, n, turn, imag, x, guard=40):
    """The part of e^(i turn pi/4) f_n(x), x > 0, n >= 0 in DIGITS digits: f_n = i^n I_n(z) (ber_n +
    i bei_n) or (-i)^n K_n(z) (ker_n + i kei_n), in DIGITS + guard digits (the series' terms reach
    e^(x (1 - 1/sqrt 2)) of ber's values: 1e127 at x = 1000)."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + guard
        h = _decimal(x) / 2
        if family == "b":
            value = _times(_unit(2 * n), _series_i(n, h))
        else:
            value = _times(_unit(-2 * n), _series_k(n, h))
        value = _times(_unit(turn), value)
        return value[1] if imag else value[0]


def reference(family, n, turn, imag):
    return np.vectorize(lambda x: float(kelvin_decimal(family, n, turn, imag, x)), otypes=[np.float64])


_PUBLIC = {"ber": ("b", 0, 0, False), "bei": ("b", 0, 0, True), "ker": ("k", 0, 0, False),
           "kei": ("k", 0, 0, True), "berp": ("b", 1, -1, False), "beip": ("b", 1, -1, True),
           "kerp": ("k", 1, -1, False), "keip": ("k", 1, -1, True)}


def inside(low, high, shape=(3,)):
    return lambda rng: (rng.uniform(low, high, shape),)


# (on the host alone: a device runs every region, the trapezoid rules' 40 and 48 nodes, on every
# entry of every central difference; test_on_the_device_without_a_sync holds the device's values
# and gradients to the host's)
ROWS = {
    name: [Row(f"{low} < x < {high}", getattr(V, name), reference(*spec), inside(low, high), SMOOTH,
               device=False)
           for low, high in ((0.2, 0.95), (1.2, 12.0), (26.0, 40.0))]
    for name, spec in _PUBLIC.items()
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


@pytest.mark.parametrize("family", "bk")
@pytest.mark.parametrize("n", [0, 1, 2, 5, 11])
def test_within_a_few_ulps_of_the_modulus(family, n):
    """Each part, relative to |f_n| (the envelope: a part alone passes through 0), to x = 40, across
    the regions' edges (1, 2, 30), at the turns 0 and 3 (those of the derivatives)."""
    rng = np.random.default_rng(n + 10 * "bk".index(family))
    x = np.concatenate([rng.uniform(0.01, 3.0, 8), rng.uniform(3.0, 40.0, 8),
                        [1.0, 2.0, 29.999, 30.0, 30.001], np.geomspace(1e-6, 1e-2, 3)])
    for turn in (0, 3):
        re = reference(family, n, turn, False)(x)
        im = reference(family, n, turn, True)(x)
        modulus = np.hypot(re, im)
        for imag, exact in ((False, re), (True, im)):
            ours = V.backend.to_cpu(kelvin_arrays(family, n, turn, imag, x))
            assert np.all(np.abs(ours - exact) <= 4e-15 * modulus), np.max(np.abs(ours - exact) / modulus)


def test_the_wronskian_out_to_a_thousand():
    """b_n k_n' - b_n' k_n = -1/x (I_n K_n' - I_n' K_n = -1/z, z = x e^(i pi/4)): its real part, and
    an imaginary part of 0, from x = 0.1 to 1000 (ber ~ e^(x / sqrt 2), ker ~ e^(-x / sqrt 2))."""
    x = np.geomspace(0.1, 1000.0, 200)
    for n in (0, 1, 3):
        def pair(family, derivative, n=n):          # f_n, or f_n' = (1/2) e^(3 i pi/4) (f_(n-1) - f_(n+1))
            if not derivative:
                return tuple(kelvin_arrays(family, n, 0, imag, x) for imag in (False, True))
            return tuple((kelvin_arrays(family, n - 1, 3, imag, x) - kelvin_arrays(family, n + 1, 3, imag, x))
                         / 2 for imag in (False, True))
        (br, bi), (bpr, bpi) = pair("b", False), pair("b", True)
        (kr, ki), (kpr, kpi) = pair("k", False), pair("k", True)
        real = br * kpr - bi * kpi - (bpr * kr - bpi * ki)
        imag = br * kpi + bi * kpr - (bpr * ki + bpi * kr)
        size = (np.hypot(br, bi) * np.hypot(kpr, kpi) + np.hypot(bpr, bpi) * np.hypot(kr, ki))
        assert np.all(np.abs(real + 1 / x) <= 2e-14 * size), np.max(np.abs(real + 1 / x) / size)
        assert np.all(np.abs(imag) <= 2e-14 * size), np.max(np.abs(imag) / size)


def test_the_derivatives_are_scipys_p_functions():
    """The gradients of ber, bei, ker, kei equal berp, beip, kerp, keip; theirs are the second
    derivatives by the ODE w'' = -w'/x + i w: ber'' = -berp/x - bei, bei'' = -beip/x + ber (ker alike)."""
    x = V.Variable(np.array([0.3, 1.7, 6.0, 33.0]))
    for name, slope, partner, sign in (("ber", "berp", "bei", -1), ("bei", "beip", "ber", 1),
                                        ("ker", "kerp", "kei", -1), ("kei", "keip", "ker", 1)):
        g, = V.grad(V.sum(getattr(V, name)(x)), [x], create_graph=True)
        np.testing.assert_allclose(g.data, getattr(V, slope)(x).data, rtol=1e-14)
        second, = V.grad(V.sum(g), [x])
        expected = -getattr(V, slope)(x).data / x.data + sign * getattr(V, partner)(x).data
        scale = np.abs(getattr(V, slope)(x).data / x.data) + np.abs(getattr(V, partner)(x).data)
        assert np.all(np.abs(second.data - expected) <= 1e-14 * scale)


def test_edges():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -2.0])
    with np.errstate(all="raise"):
        values = {name: getattr(V, name)(x).data for name in _PUBLIC}
    nan, inf = np.nan, np.inf
    np.testing.assert_array_equal(values["ber"][:5], [1.0, 1.0, nan, nan, nan])
    np.testing.assert_array_equal(values["bei"][:5], [0.0, 0.0, nan, nan, nan])
    np.testing.assert_array_equal(values["ker"], [inf, inf, 0.0, nan, nan, nan])
    np.testing.assert_array_equal(values["kei"], [-math.pi / 4, -math.pi / 4, 0.0, nan, nan, nan])
    np.testing.assert_array_equal(values["kerp"], [-inf, -inf, 0.0, nan, nan, nan])
    np.testing.assert_array_equal(values["keip"], [0.0, 0.0, 0.0, nan, nan, nan])
    t = np.array([0.3, 2.0, 17.0, 45.0])
    for name in ("ber", "bei"):
        np.testing.assert_array_equal(getattr(V, name)(-t).data, getattr(V, name)(t).data)
    for name in ("berp", "beip"):
        np.testing.assert_array_equal(getattr(V, name)(-t).data, -getattr(V, name)(t).data)


def test_at_zero_the_limits_of_the_orders_a_derivative_reaches():
    """ker_n(x), kei_n(x) near 0 (x = 1e-12, by the 100-digit series) head to the limits given at 0:
    the same sign of infinity where they grow, the finite limit where a part stays bounded; and the
    gradients at 0: ker' = -inf, kei' = 0, kerp' = +inf."""
    tiny = 1e-12
    for n in range(5):
        for turn in range(8):
            for imag in (False, True):
                at_zero = kelvin_arrays("k", n, turn, imag, np.zeros(1))[0]
                near = float(kelvin_decimal("k", n, turn, imag, tiny))
                if math.isinf(at_zero):
                    assert math.copysign(1, near) == math.copysign(1, at_zero) and abs(near) > 10
                else:
                    assert abs(near - at_zero) < 1e-6, (n, turn, imag, near, at_zero)
    zero = V.Variable(np.zeros(1))
    with np.errstate(all="raise"):
        assert V.grad(V.sum(V.ker(zero)), zero).data[0] == -np.inf
        assert V.grad(V.sum(V.kei(zero)), zero).data[0] == 0.0
        assert V.grad(V.sum(V.kerp(zero)), zero).data[0] == np.inf
        assert V.grad(V.sum(V.berp(zero)), zero).data[0] == 0.0
        assert V.grad(V.sum(V.beip(zero)), zero).data[0] == 0.5


def _leading_sign(family, n, turn, imag, x):
    """The sign of the part of e^(i turn pi/4) i^n e^(x (1 + i) / sqrt 2) e^(-i pi/8): that of
    ber_n + i bei_n ~ i^n e^z / sqrt(2 pi z) turned, for a large x."""
    with localcontext() as ctx:
        ctx.prec = 60
        angle = _decimal(x) / Decimal(2).sqrt() + PI * (Decimal(turn) / 4 + Decimal(n) / 2 - Decimal(1) / 8)
        cos, sin = cos_sin(angle)
        part = sin if imag else cos
        assert abs(part) > Decimal("0.1")                # (well away from a zero of the part)
        return part > 0


def test_large_arguments_stay_finite_as_long_as_the_values_do():
    """ber(1000) ~ -1.5e305 (e^(x / sqrt 2) alone overflows from 1004, the value from about 1010);
    beyond, +-inf with the sign of the leading term e^(x / sqrt 2) cos(x / sqrt 2 - pi/8 + ...) (its
    phase in 60 digits, at points where the cosine is not small); ker(1000) ~ -2.6e-309 underflows
    gradually, and 0 beyond."""
    x = np.array([1000.0, 1005.0, 1023.0, 1071.0, 1504.0])
    with np.errstate(over="ignore", under="ignore"):
        for name, spec in _PUBLIC.items():
            ours = getattr(V, name)(x).data
            if spec[0] == "b":
                exact = [kelvin_decimal(*spec, t, guard=80) for t in x[:2]]
                np.testing.assert_allclose(ours[:2], [float(e) for e in exact], rtol=1e-13)
                signs = [_leading_sign(*spec, t) for t in x[2:]]
                assert np.all(np.isinf(ours[2:])) and list(ours[2:] > 0) == signs, (name, ours)
            else:
                assert 0 < abs(ours[0]) < 1e-306 and np.all(ours[3:] == 0.0), (name, ours)


def test_the_orders_below_zero_reflect():
    x = np.array([0.4, 3.0, 35.0])
    for family in "bk":
        for n in (1, 2, 3):
            for turn in (0, 3):
                np.testing.assert_array_equal(kelvin_arrays(family, -n, turn, True, x),
                                              (-1) ** n * kelvin_arrays(family, n, turn, True, x))


def test_scipy_agrees_and_its_ufuncs_record_ours():
    special = pytest.importorskip("scipy.special")
    x = np.concatenate([np.geomspace(1e-3, 6.0, 30), -np.geomspace(1e-3, 6.0, 5)])
    for name in _PUBLIC:
        ours = getattr(V, name)(x).data
        theirs = getattr(special, name)(x)
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)   # (SciPy's: 5e-10 at x = 10)
        v = V.Variable(x[x > 0])
        y = getattr(special, name)(v)
        assert isinstance(y, V.Variable) and y.creator is not None
        np.testing.assert_array_equal(y.data, getattr(V, name)(x[x > 0]).data)


def test_the_op_shows_its_function_and_refuses_nothing_it_takes():
    assert isinstance(V.ber(V.Variable(np.array([1.0]))).creator.forwarder, Kelvin)
    assert V.ber(np.array([1, 2])).data.dtype == np.float64
    assert V.kei(np.float32([1.0, 2.0])).data.dtype == np.float32


def test_on_the_device_without_a_sync(gpu, count_syncs):
    x = np.array([0.0, 1e-3, 0.7, 1.5, 7.0, 24.0, 31.0, 300.0, np.inf, np.nan])
    for name in _PUBLIC:
        points = np.concatenate([x, -x[2:4]]) if name.startswith("be") else x
        assert device_equals_host(getattr(V, name), (points,), count_syncs).count == 0
