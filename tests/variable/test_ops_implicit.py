"""Wright's omega, Lambert's W and Owen's T (variable/ops/implicit.py): the table rows (third order,
Taylor mode to sixth) against references of our own (Newton's steps on omega + log omega = x and on
w = x e^-w in 60 digits; Owen's series in 100 digits for |a| <= 0.9, composite Gauss-Legendre
quadrature beyond), closed forms, the edges, the derivatives, SciPy's values, and the device path
without a host sync."""

import math
import os
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import SMOOTH, Row, device_equals_host, table_tests
from test_ops_integrals import machin_pi

import variable as V
from variable.ops.implicit import _gauss_laguerre, _gauss_legendre, owens_t_tail


def _decimal(x):
    f = Fraction(float(x))
    return Decimal(f.numerator) / Decimal(f.denominator)


def _omega(x):
    """omega + log omega = x by Newton's steps in 60 digits, from e^x (x < 1) or x - log x."""
    if math.isinf(x):
        return 0.0 if x < 0 else math.inf
    with localcontext() as ctx:
        ctx.prec = 60
        t = _decimal(x)
        w = t.exp() if x < 1 else t - t.ln()
        for _ in range(200):
            step = (w + w.ln() - t) * w / (1 + w)
            w -= step
            if abs(step) <= abs(w) * Decimal(10) ** -55:
                break
        return float(w)


def reference_wrightomega(x):
    return np.vectorize(_omega, otypes=[np.float64])(x)


def _lambert(x, k):
    """W_k(x) in 60 digits: w = x e^-w bracketed (W_0 in [-1, 1 + max(0, log x)], W_-1 in [-1 - 2 Y,
    -1] with Y = -log(-x), as v - log v = Y for v = -w <= 2 Y), 60 halvings, then Newton's steps
    on w - x e^-w kept inside the bracket; NaN off the real branches."""
    if math.isnan(x) or (k == -1 and x > 0):
        return math.nan
    if x == 0:
        return x if k == 0 else -math.inf
    if math.isinf(x):
        return math.inf if x > 0 else math.nan
    with localcontext() as ctx:
        ctx.prec = 60
        t = _decimal(x)
        if t < -1 / Decimal(1).exp():
            return math.nan
        sign = 1 if k == 0 else -1                      # sign (w - t e^-w) < 0 below the root

        def f(w):
            return sign * (w - t * (-w).exp())
        if k == 0:
            lo, hi = Decimal(-1), 1 + max(Decimal(0), t.ln() if t > 0 else Decimal(0))
        else:
            lo, hi = -1 - 2 * -((-t).ln()), Decimal(-1)
        for _ in range(60):
            middle = (lo + hi) / 2
            lo, hi = (middle, hi) if f(middle) < 0 else (lo, middle)
        w = (lo + hi) / 2
        for _ in range(100):
            value = f(w)
            slope = sign * (1 + t * (-w).exp())
            lo, hi = (w, hi) if value < 0 else (lo, w)
            step = value / slope if slope else hi - lo
            w = w - step if lo <= w - step <= hi else (lo + hi) / 2
            if abs(step) <= abs(w) * Decimal(10) ** -55:
                break
        return float(w)


def reference_lambertw(x, k=0):
    return np.vectorize(lambda v: _lambert(float(v), k), otypes=[np.float64])(x)


PI = machin_pi(110)


def _arctan(a):
    """arctan(a) for 0 <= a <= 1 in the context's digits: halved twice, then its series."""
    for _ in range(2):
        a = a / (1 + (1 + a * a).sqrt())
    total, term, k = Decimal(0), a, 0
    while abs(term) > Decimal(10) ** -105:
        total += term / (2 * k + 1)
        term *= -a * a
        k += 1
    return 4 * total


def _owens_t_series(h, a):
    """Owen's series, T = (arctan a - sum_j c_j a^(2j+1)) / (2 pi), c_j = (-1)^j (1 - e^(-h^2/2)
    sum_(i<=j) (h^2/2)^i / i!) / (2j + 1), in 100 digits (|a| <= 0.9, |h| <= 12: the sum cancels
    arctan a to e^(-h^2/2), 31 digits at 12)."""
    with localcontext() as ctx:
        ctx.prec = 110
        sign = -1 if a < 0 else 1
        h, a = _decimal(abs(h)), _decimal(abs(a))
        half = h * h / 2
        e = (-half).exp()
        partial, term, total, j = Decimal(0), Decimal(1), Decimal(0), 0
        power = a
        while True:
            partial += term                          # sum_(i<=j) (h^2/2)^i / i!
            c = (-1) ** j * (1 - e * partial) / (2 * j + 1)
            total += c * power
            if abs(power) < Decimal(10) ** -100 or (abs(c * power) < Decimal(10) ** -100 and j > 10):
                break
            j += 1
            term *= half / j
            power *= a * a
        return sign * float((_arctan(a) - total) / (2 * PI))


_NODES, _WEIGHTS = (np.array(part) for part in _gauss_legendre(12))


def _owens_t_quadrature(h, a):
    """e^(-h^2/2) / (2 pi) int_0^a e^(-h^2 t^2 / 2) / (1 + t^2) dt on 400 panels of 12 nodes up to
    min(|a|, 40 / |h|)."""
    sign, h, a = math.copysign(1.0, a), abs(h), abs(a)
    reach = min(a, 40 / h) if h else a
    edges = np.linspace(0, reach, 401)
    t = ((edges[:-1] + edges[1:]) / 2)[:, None] + (np.diff(edges) / 2)[:, None] * _NODES
    values = np.exp(-0.5 * (h * t) ** 2) / (1 + t * t)
    total = float(np.sum(values * _WEIGHTS * (np.diff(edges) / 2)[:, None]))
    return sign * math.exp(-h * h / 2) / (2 * math.pi) * total


def reference_owens_t(h, a):
    def one(h, a):
        return _owens_t_series(h, a) if abs(a) <= 0.9 else _owens_t_quadrature(h, a)
    return np.vectorize(one, otypes=[np.float64])(h, a)


ROWS = {
    "wrightomega": [Row("x in (-6, 6)", V.wrightomega, reference_wrightomega,
                        lambda rng: (rng.uniform(-6, 6, (2, 3)),), SMOOTH),
                    Row("x in (0.5, 1.5)", V.wrightomega, reference_wrightomega,
                        lambda rng: (rng.uniform(0.5, 1.5, 3),), SMOOTH)],
    "lambertw": [Row("k = 0, x in (-0.3, 5)", V.lambertw, reference_lambertw,
                     lambda rng: (rng.uniform(-0.3, 5, (2, 3)),), SMOOTH),
                 Row("k = -1, x in (-0.35, -0.01)", lambda x: V.lambertw(x, -1),
                     lambda x: reference_lambertw(x, -1), lambda rng: (rng.uniform(-0.35, -0.01, 3),),
                     SMOOTH)],
    "owens_t": [Row("|a| < 0.9", V.owens_t, reference_owens_t,
                    lambda rng: (rng.uniform(-3, 3, 3), rng.uniform(-0.9, 0.9, 3)), SMOOTH),
                Row("a beyond 1, h (2, 1)", V.owens_t, reference_owens_t,
                    lambda rng: (rng.uniform(-3, 3, (2, 1)), rng.uniform(1.2, 6, 3)), SMOOTH)],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


def test_our_gauss_legendre_integrates_polynomials_of_degree_2n_minus_1_exactly():
    nodes, weights = (np.array(part) for part in _gauss_legendre(24))
    for k in range(0, 48):
        exact = 0.0 if k % 2 else 2.0 / (k + 1)
        assert abs(np.dot(weights, nodes ** k) - exact) <= 4e-16, k
    assert np.all(np.diff(nodes) < 0) and np.all(weights > 0)


def test_wrightomega_against_60_digits():
    x = np.concatenate([-np.geomspace(1e-3, 745, 60), np.linspace(-40, 5, 181),
                        np.geomspace(1e-3, 1e300, 80)])
    np.testing.assert_allclose(V.wrightomega(x).data, reference_wrightomega(x), rtol=3e-16)


def test_wrightomega_edges_and_identities():
    with np.errstate(all="raise"):
        y = V.wrightomega(np.array([-np.inf, np.inf, np.nan, 1.0, -800.0, -745.0]))
    np.testing.assert_array_equal(y.data[:4], [0.0, np.inf, np.nan, 1.0])
    np.testing.assert_array_equal(y.data[4:], np.exp([-800.0, -745.0]))   # (W(y) = y - y^2 + ... there)
    x = np.linspace(-5, 5, 11)
    w = V.wrightomega(x).data
    np.testing.assert_allclose(w + np.log(w), x, rtol=1e-15, atol=4e-16)


def test_wrightomegas_derivative_is_omega_over_one_plus_omega():
    x = V.Variable(np.array([-30.0, -1.0, 0.0, 1.0, 20.0, 1e6]))
    y = V.wrightomega(x)
    g, = V.grad(V.sum(y), [x], create_graph=True)
    np.testing.assert_allclose(g.data, y.data / (1 + y.data), rtol=1e-15)
    g2, = V.grad(V.sum(g), [x])                          # (w / (1 + w))' = w / (1 + w)^3
    np.testing.assert_allclose(g2.data, y.data / (1 + y.data) ** 3, rtol=1e-14)


def _near_the_branch_point():
    """x from 1 ulp to 0.3 above -1/e (as it rounds: -np.exp(-1), W = -1 there)."""
    offsets = np.concatenate([np.arange(1, 6) * 2.0 ** -54, np.geomspace(1e-15, 0.3, 40)])
    return -np.exp(-1.0) + offsets


def test_lambertw_against_60_digits():
    near = _near_the_branch_point()
    x = np.concatenate([near, np.linspace(-0.35, 3, 68), np.geomspace(1e-300, 1e308, 90),
                        -np.geomspace(1e-300, 0.3, 60)])
    np.testing.assert_allclose(V.lambertw(x).data, reference_lambertw(x), rtol=6e-16, atol=1e-320)
    x = np.concatenate([near, -np.geomspace(5e-324, 0.36, 120), np.linspace(-0.36, -0.01, 36)])
    np.testing.assert_allclose(V.lambertw(x, -1).data, reference_lambertw(x, -1), rtol=6e-16)


def test_lambertw_edges():
    edge = -np.exp(-1.0)
    below = np.nextafter(edge, -1.0)
    with np.errstate(all="raise"):
        w0 = V.lambertw(np.array([-np.inf, below, edge, -0.0, 0.0, np.inf, np.nan, 1e-310]))
        w1 = V.lambertw(np.array([-np.inf, below, edge, -0.0, 0.0, 5e-324, 1.0, np.nan]), k=-1)
    np.testing.assert_array_equal(w0.data, [np.nan, np.nan, -1.0, -0.0, 0.0, np.inf, np.nan, 1e-310])
    assert np.signbit(w0.data[3]) and not np.signbit(w0.data[4])
    np.testing.assert_array_equal(w1.data, [np.nan, np.nan, -1.0, -np.inf, -np.inf, np.nan, np.nan, np.nan])
    # W(e) = 1; -log 2 and -log 4 both have w e^w = -log(2) / 2
    np.testing.assert_allclose(V.lambertw(math.e).data, 1.0, rtol=2e-16)
    np.testing.assert_allclose(V.lambertw(-math.log(2) / 2, k=-1).data, -math.log(4), rtol=4e-16)
    np.testing.assert_allclose(V.lambertw(-math.log(2) / 2).data, -math.log(2), rtol=4e-16)


def test_lambertws_derivatives_in_closed_form():
    """W' = W / (x (1 + W)) (1 at 0), W'' = -W^2 (W + 2) / (x^2 (1 + W)^3) (-2 at 0), on both branches."""
    for k, x0 in ((0, np.array([-0.36, -0.2, 0.0, 1e-8, 1.0, 50.0, 1e300])),
                  (-1, np.array([-0.36, -0.2, -1e-3, -1e-150]))):
        x = V.Variable(x0)
        w = V.lambertw(x, k)
        g, = V.grad(V.sum(w), [x], create_graph=True)
        g2, = V.grad(V.sum(g), [x])
        w0, nonzero = V.backend.to_cpu(w.data), x0 != 0
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(nonzero, (w0 / (1 + w0)) / np.where(nonzero, x0, 1.0), 1.0)
            curve = np.where(nonzero, -(w0 / x0) ** 2 * (w0 + 2) / (1 + w0) ** 3, -2.0)
        np.testing.assert_allclose(V.backend.to_cpu(g.data), slope, rtol=3e-15)
        np.testing.assert_allclose(V.backend.to_cpu(g2.data), curve, rtol=1e-13)


def test_lambertw_slips_are_refused_naming_the_branches():
    x = V.Variable(np.array([0.5, 2.0]))
    with pytest.raises(ValueError, match=r"lambertw\(x, k=1\): .* only the branches k = 0 .* and k = -1"):
        V.lambertw(x, 1)
    for k in (0.5, True, np.array([0, -1]), x):
        with pytest.raises(TypeError, match=r"the branch k must be an integer, 0 or -1"):
            V.lambertw(x, k)
    with pytest.raises(TypeError, match="tol must be a number"):
        V.lambertw(x, 0, "1e-8")


def test_owens_t_against_owens_series():
    rng = np.random.default_rng(4)
    h = np.concatenate([rng.uniform(-12, 12, 60), [0.0, 1e-8, 11.9, -7.0]])
    a = np.concatenate([rng.uniform(-0.9, 0.9, 60), [0.9, 1e-9, 0.5, -0.9]])
    np.testing.assert_allclose(V.owens_t(h, a).data, reference_owens_t(h, a), rtol=2e-15, atol=1e-300)


def test_owens_t_beyond_one_against_quadrature():
    rng = np.random.default_rng(5)
    h = rng.uniform(-6, 6, 60)
    a = rng.choice([-1.0, 1.0], 60) * rng.uniform(0.9, 40, 60)
    np.testing.assert_allclose(V.owens_t(h, a).data, reference_owens_t(h, a), rtol=5e-15)


def test_owens_t_closed_forms():
    """T(0, a) = arctan(a) / (2 pi); T(h, 1) = Phi(h) Phi(-h) / 2; T(h, inf) = Phi(-|h|) / 2."""
    a = np.array([1e-10, 0.3, 1.0, 2.5, 1e4, -3.0])
    np.testing.assert_allclose(V.owens_t(0.0, a).data, np.arctan(a) / (2 * np.pi), rtol=1e-15)
    h = np.array([-3.0, -0.5, 0.0, 0.7, 4.0, 9.0])
    phi = np.vectorize(lambda v: math.erfc(-v / math.sqrt(2)) / 2)
    np.testing.assert_allclose(V.owens_t(h, 1.0).data, phi(h) * phi(-h) / 2, rtol=2e-15)
    np.testing.assert_allclose(V.owens_t(h, np.inf).data, phi(-np.abs(h)) / 2, rtol=2e-15)


def test_owens_t_edges_and_symmetry():
    with np.errstate(all="raise"):
        t = V.owens_t(np.array([np.inf, -np.inf, np.nan, 1.0, 0.0, 40.0]),
                      np.array([2.0, 0.5, 1.0, np.nan, -np.inf, 0.5]))
    np.testing.assert_array_equal(t.data, [0.0, 0.0, np.nan, np.nan, -0.25, 0.0])
    h, a = np.array([0.3, 2.0, 5.0]), np.array([0.4, 3.0, 0.2])
    np.testing.assert_array_equal(V.owens_t(-h, a).data, V.owens_t(h, a).data)
    np.testing.assert_array_equal(V.owens_t(h, -a).data, -V.owens_t(h, a).data)


def test_owens_t_derivatives_in_closed_form():
    h0, a0 = np.array([-1.5, 0.0, 0.8, 3.0]), np.array([0.5, 2.0, -4.0, 0.1])
    h, a = V.Variable(h0), V.Variable(a0)
    gh, ga = (V.backend.to_cpu(g.data) for g in V.grad(V.sum(V.owens_t(h, a)), [h, a]))
    erf = np.vectorize(math.erf)
    phi = np.exp(-h0 ** 2 / 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(gh, -phi * erf(a0 * h0 / math.sqrt(2)) / 2, rtol=1e-15, atol=1e-300)
    square = 1 + a0 ** 2
    np.testing.assert_allclose(ga, np.exp(-h0 ** 2 * square / 2) / (2 * math.pi * square), rtol=1e-15)


def test_the_skew_normal_cdf_is_trainable():
    """Phi(x) - 2 T(x, alpha): its derivative in x is the skew-normal density 2 phi(x) Phi(alpha x)."""
    x0 = np.array([-1.0, 0.2, 1.7])
    x, alpha = V.Variable(x0), V.Variable(np.array(3.0))
    cdf = V.ndtr(x) - 2 * V.owens_t(x, alpha)
    gx, galpha = V.grad(V.sum(cdf), [x, alpha])
    phi = np.exp(-x0 ** 2 / 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(V.backend.to_cpu(gx.data), 2 * phi * V.ndtr(3.0 * x0).data, rtol=1e-14)
    assert galpha.shape == () and np.isfinite(V.backend.to_cpu(galpha.data))


def test_float32_in_float32_out_and_python_numbers():
    x = np.array([-2.0, 0.5, 3.0], dtype=np.float32)
    assert V.wrightomega(x).dtype == np.float32 and V.lambertw(x).dtype == np.float32
    assert V.owens_t(x, np.float32(0.5)).dtype == np.float32
    np.testing.assert_allclose(V.owens_t(x, 0.5).data, V.owens_t(x.astype(np.float64), 0.5).data, rtol=1e-6)
    assert V.owens_t(1, 2).dtype == np.float64


def test_scipy_agrees_and_its_ufuncs_record():
    special = pytest.importorskip("scipy.special")
    x = np.linspace(-30, 30, 241)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(V.wrightomega(x).data, special.wrightomega(x), rtol=4e-15)
        recorded = special.wrightomega(V.Variable(x))
        assert isinstance(recorded, V.Variable) and recorded.creator is not None
        h, a = np.meshgrid(np.linspace(-5, 5, 21), np.linspace(-8, 8, 17))
        np.testing.assert_allclose(V.owens_t(h, a).data, special.owens_t(h, a), rtol=1e-12, atol=1e-300)
        recorded = special.owens_t(V.Variable(h), a)
        assert isinstance(recorded, V.Variable) and recorded.creator is not None
        x = np.concatenate([np.linspace(-0.367, 0, 40), np.geomspace(1e-10, 1e100, 40)])
        np.testing.assert_allclose(V.lambertw(x).data, special.lambertw(x).real, rtol=4e-15)
        np.testing.assert_allclose(V.lambertw(x[:39], -1).data, special.lambertw(x[:39], -1).real, rtol=4e-15)
        for k in (0, -1):                                # scipy.special.lambertw(x, k, tol) records
            recorded = special.lambertw(V.Variable(x[:39]), k, tol=1e-3)
            assert isinstance(recorded, V.Variable) and recorded.creator is not None
            np.testing.assert_array_equal(recorded.data, V.lambertw(x[:39], k).data)


def tail_reference(h, a):
    """Q(h)/2 - T(h, a) = e^(-h^2 (1 + a^2) / 2) / (2 pi) int_0^inf e^(-h^2 (2 a v + v^2) / 2) /
    (1 + (a + v)^2) dv: the prefactor in 40 digits, the integral by 12 nodes on 600 panels whose
    edges grow as the cube, up to where the exponent passes 80."""
    nodes, weights = (np.array(part) for part in _gauss_legendre(12))
    reach = -a + math.sqrt(a * a + 160 / (h * h))
    edges = reach * np.linspace(0, 1, 601) ** 3
    middle, half = (edges[:-1] + edges[1:]) / 2, np.diff(edges) / 2
    v = middle[:, None] + half[:, None] * nodes
    values = np.exp(-h * h * (2 * a * v + v * v) / 2) / (1 + (a + v) ** 2)
    with localcontext() as ctx:
        ctx.prec = 40
        exponent = Fraction(h) ** 2 * (1 + Fraction(a) ** 2) / 2
        prefactor = float((-(Decimal(exponent.numerator) / Decimal(exponent.denominator))).exp())
    return prefactor / (2 * math.pi) * float(np.sum(values * weights * half[:, None]))


def test_our_gauss_laguerre_integrates_polynomials_times_e_to_the_minus_s():
    nodes, weights = (np.array(part) for part in _gauss_laguerre(40))
    for k in range(0, 40):
        assert abs(np.dot(weights, nodes ** k) / math.factorial(k) - 1) < 1e-13, k


def test_owens_t_tail_keeps_its_digits_in_each_of_its_ways():
    """Q(h)/2 - T(h, a) where the difference cancels (a h large), by each of its three ways."""
    cases = [(0.3, 0.5), (1.5, 0.6), (0.05, 20.0), (0.001, 900.0), (3.0, 2.0), (8.0, 0.3), (0.2, 137.0),
             (25.0, 1.1), (1.07, 0.005)]
    h, a = np.array(cases).T
    expected = [tail_reference(*case) for case in cases]
    np.testing.assert_allclose(owens_t_tail(h, a).data, expected, rtol=8e-15)
    # where it does not cancel, it is the difference
    h, a = np.array([0.4, 1.0, 2.0]), np.array([0.3, 0.2, 0.1])
    difference = V.ndtr(-h).data / 2 - V.owens_t(h, a).data
    np.testing.assert_allclose(owens_t_tail(h, a).data, difference, rtol=2e-15)


@pytest.mark.skipif(os.environ.get("GENGRAD_DEVICE", "cpu") != "cpu",
                    reason="its device path: test_on_the_device_without_a_sync (50x slower there)")
def test_owens_t_tails_derivatives():
    for h, a in ((0.5, 0.3), (2.0, 0.8), (0.3, 3.0), (2.5, 4.0)):
        assert V.gradcheck(owens_t_tail, np.array([h]), np.array([a]), order=2)
        assert V.taylorcheck(owens_t_tail, np.array([h]), np.array([a]), order=4)


def test_on_the_device_without_a_sync(gpu, count_syncs):
    x = np.array([-800.0, -30.0, -1.0, 0.0, 1.0, 1.5, 40.0, 1e300, np.inf, -np.inf, np.nan])
    assert device_equals_host(V.wrightomega, (x,), count_syncs).count == 0
    x = np.array([-np.exp(-1.0), -0.3678, -0.3, -1e-3, 0.0, 1e-8, 2.0, 30.0, 1e300, np.inf, np.nan, -1.0])
    assert device_equals_host(V.lambertw, (x,), count_syncs).count == 0
    x = np.array([-np.exp(-1.0), -0.3678, -0.3, -1e-3, -1e-300, 0.0, 0.5, np.nan])
    assert device_equals_host(lambda x: V.lambertw(x, -1), (x,), count_syncs).count == 0
    h = np.array([0.0, -1.5, 3.0, 20.0, np.inf, 2.0, 1.0])
    a = np.array([0.5, 2.0, -0.3, 0.9, 1.0, np.inf, 40.0])
    assert device_equals_host(V.owens_t, (h, a), count_syncs).count == 0
    h, a = np.abs(h[:4]), np.array([0.5, 30.0, 0.3, 0.9])
    assert device_equals_host(owens_t_tail, (h, a), count_syncs).count == 0
