"""j0, j1, jn, y0, y1, yn, jv, yv, k0, k1, kn, k0e, k1e, kv, kve, iv and ive (variable/ops/bessel.py):
the table rows (third order, Taylor mode to sixth, float32) in all regions of the computation (power series,
Miller's recurrence, Hankel's expansions; K's series and integral), the values against an
independent power series in 80 or 100 digits to a few ulps times the condition number, SciPy's
values at the edges, and the refusals."""

import functools
import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from op_rows import SMOOTH, UNARY_SHAPES, Row, table_tests, unary_rows
from test_ops_integrals import cos_sin

import variable as V

_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899863")
_EULER = Decimal("0.57721566490153286060651209008240243104215933593992359880576723488486772677766467")


def _series(kind, n, x):
    """J_n(x) or Y_n(x) of a whole n >= 0 and a float x > 0 from their power series in 80-digit
    decimals (Y_n with its logarithm and the finite sum of negative powers): a method of its
    own, exact to far more digits than a double for x up to 45 (its terms peak near e^x)."""
    with localcontext() as context:
        context.prec = 80
        h = Decimal(float(x)) / 2
        u = -h * h
        term = h ** n / math.factorial(n)
        j, k = term, 0
        while abs(term) > Decimal(10) ** -75 or k < 5:
            k += 1
            term = term * u / (k * (k + n))
            j += term
        if kind == "j":
            return float(j)
        # Y_n = (2/pi) J_n ln(x/2) - (1/pi) sum_(k<n) (n-k-1)!/k! (x/2)^(2k-n)
        #       - (1/pi) sum_k (psi(k+1) + psi(n+k+1)) u^k (x/2)^n / (k! (n+k)!)
        finite = sum((Decimal(math.factorial(n - k - 1)) / math.factorial(k) * h ** (2 * k - n)
                      for k in range(n)), Decimal(0))
        psi_k, psi_nk = -_EULER, -_EULER + sum((Decimal(1) / m for m in range(1, n + 1)), Decimal(0))
        term = h ** n / math.factorial(n)
        rest, k = (psi_k + psi_nk) * term, 0
        while abs(term) > Decimal(10) ** -75 or k < 5:
            k += 1
            psi_k += Decimal(1) / k
            psi_nk += Decimal(1) / (n + k)
            term = term * u / (k * (k + n))
            rest += (psi_k + psi_nk) * term
        return float((2 * j * h.ln() - finite - rest) / _PI)


def _k_series(n, x, scaled=False):
    """K_n(x) (`scaled`: K_n(x) e^x) of a whole n >= 0 and a float 0 < x <= 45 from its power
    series in 100-digit decimals, h = x/2: K_n = 1/2 sum_(k<n) (n-k-1)!/k! (-1)^k h^(2k-n) +
    (-1)^(n+1) (ln h + gamma) I_n + (-1)^n / 2 sum_k (H_k + H_(n+k)) h^(2k+n) / (k! (n+k)!)
    (the sums cancel to e^-2x of their size: 39 digits at 45, 61 left)."""
    with localcontext() as context:
        context.prec = 100
        h = Decimal(float(x)) / 2
        u = h * h
        finite = sum((Decimal(math.factorial(n - k - 1)) / math.factorial(k) * (-1) ** k * h ** (2 * k - n)
                      for k in range(n)), Decimal(0))
        term = h ** n / math.factorial(n)
        harmonic_k, harmonic_nk = Decimal(0), sum((Decimal(1) / m for m in range(1, n + 1)), Decimal(0))
        i_n, rest, k = term, (harmonic_k + harmonic_nk) * term, 0
        while term > Decimal(10) ** -95 * i_n or k < 5:
            k += 1
            harmonic_k += Decimal(1) / k
            harmonic_nk += Decimal(1) / (n + k)
            term = term * u / (k * (k + n))
            i_n += term
            rest += (harmonic_k + harmonic_nk) * term
        sign = -1 if n % 2 else 1
        value = finite / 2 - sign * (h.ln() + _EULER) * i_n + sign * rest / 2
        return float(value * Decimal(float(x)).exp() if scaled else value)


@functools.cache     # (a row's checks, its forward and float32, read the same points)
def _kv_integral(nu, x, scaled=False):
    """K_nu(x) (`scaled`: K_nu(x) e^x) of a real nu and a float x > 0 from int_0^inf
    e^(-x (cosh t - 1)) cosh(nu t) dt (times e^-x) by the trapezoid rule at h = min(1/8,
    1/(2 sqrt x)) in 40-digit decimals, to where the integrand is below 1e-32 of the sum: its
    error is below e^-75 there."""
    with localcontext() as context:
        context.prec = 40
        h = Decimal(min(0.125, 0.5 / math.sqrt(float(x))))
        x, nu = Decimal(float(x)), Decimal(float(nu))
        total, k = Decimal(0), 0
        while True:
            t = h * k
            cosh_t = ((t).exp() + (-t).exp()) / 2
            term = (-x * (cosh_t - 1)).exp() * (((nu * t).exp() + (-nu * t).exp()) / 2)
            total += term / 2 if k == 0 else term
            if k > 8 and term < Decimal(10) ** -32 * total:
                break
            k += 1
        value = total * h
        return float(value if scaled else value * (-x).exp())


def kv_reference(nu, scaled=False):
    """K_nu (K_nu e^x) of a real order on an array by `_kv_integral`."""
    return np.vectorize(lambda x: _kv_integral(nu, x, scaled), otypes=[np.float64])


def _iv_series(nu, x, scaled=False):
    """I_nu(x) (`scaled`: times e^-x) of a real nu and a float x > 0: (x/2)^nu / Gamma(nu + 1)
    sum_k (x^2/4)^k / (k! (nu + 1)_k) in 60-digit decimals (Gamma(nu + 1) in double precision,
    math.gamma's), to where a term is below 1e-45 of the sum: for x up to 45."""
    with localcontext() as context:
        context.prec = 60
        h = Decimal(float(x)) / 2
        u, nu_ = h * h, Decimal(float(nu))
        term, total, k = Decimal(1), Decimal(1), 0
        while abs(term) > Decimal(10) ** -45 * abs(total) or k < 5:
            k += 1
            term = term * u / (k * (nu_ + k))
            total += term
        value = total * (h.ln() * nu_).exp() / _gamma(nu + 1)
        return float(value * (-Decimal(float(x))).exp() if scaled else value)


def _gamma(a):
    """Gamma(a) as a Decimal: math.gamma's below 2, and above Gamma(b) b (b + 1) ... (a - 1)
    with b in [1, 2) (beyond a double's range too)."""
    if a < 2:
        return Decimal(math.gamma(a))
    steps = math.floor(a) - 1
    base = a - steps
    value = Decimal(math.gamma(base))
    for j in range(steps):
        value *= Decimal(base) + j
    return value


def iv_reference(nu, scaled=False):
    """I_nu (I_nu e^-x) of a real order on an array of positive x by `_iv_series`."""
    return np.vectorize(lambda x: _iv_series(nu, x, scaled), otypes=[np.float64])


def _cos_sin_pi(nu):
    """cos(pi nu) and sin(pi nu) as 80-digit Decimals."""
    with localcontext() as context:
        context.prec = 80
        return cos_sin(_PI * Decimal(float(nu)))


def _jv_decimal(nu, x):
    """J_nu(x) of a real nu (nu + 1 not a whole number <= 0) and a float x > 0 as an 80-digit
    Decimal: (x/2)^nu / Gamma(nu + 1) sum_k (-x^2/4)^k / (k! (nu + 1)_k), for x up to 45 (its
    terms peak near e^x; Gamma in double precision, math.gamma's)."""
    with localcontext() as context:
        context.prec = 80
        h = Decimal(float(x)) / 2
        u, nu_ = -h * h, Decimal(float(nu))
        term, total, k = Decimal(1), Decimal(1), 0
        while abs(term) > Decimal(10) ** -70 or k < 5:
            k += 1
            term = term * u / (k * (nu_ + k))
            total += term
        return total * (h.ln() * nu_).exp() / _gamma(nu + 1)


def _jv_series(kind, nu, x):
    """J_nu(x) or Y_nu(x) = (J_nu cos(pi nu) - J_-nu) / sin(pi nu) of a real nu that is not whole."""
    if kind == "j":
        return float(_jv_decimal(nu, x))
    with localcontext() as context:
        context.prec = 80
        cos, sin = _cos_sin_pi(nu)
        return float((_jv_decimal(nu, x) * cos - _jv_decimal(-nu, x)) / sin)


def jv_reference(kind, nu):
    """J_nu (Y_nu) of a real order that is not whole on an array of 0 < x <= 45."""
    return np.vectorize(lambda x: _jv_series(kind, nu, x), otypes=[np.float64])


def k_reference(n, scaled=False):
    """K_n (K_n e^x) on an array by `_k_series` (K_-n = K_n)."""
    return np.vectorize(lambda x: _k_series(abs(n), x, scaled), otypes=[np.float64])


def reference(kind, n):
    """Z_n on an array by `_series` (Z_-n = (-1)^n Z_n; J_n(-x) = (-1)^n J_n(x))."""
    sign = -1.0 if n < 0 and n % 2 else 1.0

    def one(x):
        if kind == "j" and x < 0:
            return sign * (-1.0) ** abs(n) * _series(kind, abs(n), -x)
        return sign * _series(kind, abs(n), x)
    return np.vectorize(one, otypes=[np.float64])


def inside(low, high):
    return lambda *shapes: (lambda rng: tuple(rng.uniform(low, high, s) for s in shapes))


def _rows(fn, kind, n, regions):
    return [row for low, high in regions
            for row in unary_rows(fn, reference(kind, n), inside(low, high), SMOOTH)]


_J_REGIONS = ((-1.9, 1.9), (3.0, 12.0), (26.0, 40.0))     # series, Miller, Hankel (and negative x)
_Y_REGIONS = ((0.3, 1.9), (3.0, 12.0), (26.0, 40.0))
_REAL_REGIONS = ((0.3, 1.9), (3.0, 12.0), (26.0, 40.0))  # series and Temme's, Miller and Steed's, Hankel's

ROWS = {
    "j0": _rows(V.j0, "j", 0, _J_REGIONS),
    "j1": _rows(V.j1, "j", 1, _J_REGIONS),
    "jn": [Row(f"n={n}, {row.label}", lambda x, n=n: V.jn(n, x), row.ref, row.sample, SMOOTH)
           for n in (2, 5, -3) for row in _rows(None, "j", n, ((0.5, 9.0), (27.0, 33.0)))[::2]],
    "y0": _rows(V.y0, "y", 0, _Y_REGIONS),
    "y1": _rows(V.y1, "y", 1, _Y_REGIONS),
    "yn": [Row(f"n={n}, {row.label}", lambda x, n=n: V.yn(n, x), row.ref, row.sample, SMOOTH)
           for n in (2, 4, -2) for row in _rows(None, "y", n, ((1.0, 9.0), (27.0, 33.0)))[::2]],
    **{name: [Row(f"v={v}, {row.label}", lambda x, v=v, op=op: op(v, x), row.ref, row.sample, SMOOTH)
              for v in (0.5, 2.3, -1.7) for low, high in _REAL_REGIONS
              for row in unary_rows(None, jv_reference(kind, v), inside(low, high), SMOOTH)[::3]]
       for name, kind, op in (("jv", "j", V.jv), ("yv", "y", V.yv))},
    **{name: [Row(f"v={v}, {row.label}", lambda x, v=v, op=op: op(v, x), row.ref, row.sample, SMOOTH)
              for v in (1.25,) for row in unary_rows(None, jv_reference(kind, v), inside(3.0, 12.0), SMOOTH)]
       for name, kind, op in (("jve", "j", V.jve), ("yve", "y", V.yve))},   # (jv's and yv's on real x)
}
_K_REGIONS = ((0.2, 0.95), (1.1, 6.0), (20.0, 40.0))     # series, the integral near and far


def _k_rows(fn, n, scaled, regions=_K_REGIONS):
    return [row for low, high in regions
            for row in unary_rows(fn, k_reference(n, scaled), inside(low, high), SMOOTH)]


ROWS.update({
    "k0": _k_rows(V.k0, 0, False),
    "k1": _k_rows(V.k1, 1, False),
    "kn": [Row(f"n={n}, {row.label}", lambda x, n=n: V.kn(n, x), row.ref, row.sample, SMOOTH)
           for n in (2, 5, -3) for row in _k_rows(None, n, False, ((0.3, 0.9), (1.5, 9.0)))[::2]],
    "k0e": _k_rows(V.k0e, 0, True),
    "k1e": _k_rows(V.k1e, 1, True),
    "kv": [Row(f"v={v}, {row.label}", lambda x, v=v: V.kv(v, x), row.ref, row.sample, SMOOTH)
           for v in (0.5, 2.3, -1.7) for low, high in _K_REGIONS
           for row in unary_rows(None, kv_reference(v), inside(low, high), SMOOTH)[::2]],
    "iv": [Row(f"v={v}, {row.label}", lambda x, v=v: V.iv(v, x), row.ref, row.sample, SMOOTH)
           for v, regions in (((0.5, 2.3, -1.7), ((0.2, 3.0), (5.0, 12.0))),     # (ive: far out)
                              ((40.5,), ((30.0, 34.0),)))                          # (Debye's expansion)
           for v in v for low, high in regions
           for row in unary_rows(None, iv_reference(v), inside(low, high), SMOOTH)[::2]],
    "ive": [Row(f"v={v}, {row.label}", lambda x, v=v: V.ive(v, x), row.ref, row.sample, SMOOTH)
            for v, regions in (((0.25, -2.6), ((0.2, 3.0), (22.0, 40.0))), ((-36.5,), ((36.0, 40.0),)))
            for v in v for low, high in regions
            for row in unary_rows(None, iv_reference(v, True), inside(low, high), SMOOTH)[::2]],
    "kve": [Row(f"v={v}, {row.label}", lambda x, v=v: V.kve(v, x), row.ref, row.sample, SMOOTH)
            for v in (0.25, 3.6) for low, high in _K_REGIONS
            for row in unary_rows(None, kv_reference(v, True), inside(low, high), SMOOTH)[::2]],
})
assert all(len(rows) >= len(UNARY_SHAPES) for rows in ROWS.values())

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


@pytest.mark.parametrize("kind, op", [("j", V.jn), ("y", V.yn)])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 30, -1])
def test_values_are_within_a_few_ulps_times_the_condition_number(kind, op, n):
    # points in all three regions, near zeros too: the error is measured against
    # |x Z_n'(x)| + |Z_n(x)|, the size of the rounding a double x itself carries
    rng = np.random.default_rng(abs(n) + (kind == "y"))
    x = np.concatenate([rng.uniform(0.01, 2.0, 30), rng.uniform(2.0, 25.0, 60), rng.uniform(25.0, 45.0, 30),
                        np.geomspace(1e-6, 1e-2, 8), [2.0, 25.0, 2.4048255576957729, 3.8317059702075123]])
    if kind == "y" and n:
        x = x[x > 0.05 * abs(n)]                      # (|Y_n| overflows toward 0 for large n)
    ours = op(n, x).data
    exact = reference(kind, n)(x)
    slope = (reference(kind, n - 1)(x) - reference(kind, n + 1)(x)) / 2
    scale = np.abs(x * slope) + np.abs(exact)
    assert np.all(np.abs(ours - exact) <= 8e-15 * scale), np.max(np.abs(ours - exact) / scale)


@pytest.mark.parametrize("kind, op", [("j", V.jv), ("y", V.yv)])
@pytest.mark.parametrize("nu", [0.5, -0.5, 0.3, -0.3, 0.05, 0.4999, 2.3, -2.7, 7.25, 30.6, -12.5])
def test_real_orders_are_within_a_few_ulps_times_the_condition_number(kind, op, nu):
    # as for whole orders: the error against |x Z_nu'| + |Z_nu|, in each region and near 0
    rng = np.random.default_rng(int(abs(nu) * 100) + (kind == "y"))
    x = np.concatenate([rng.uniform(0.01, 2.0, 16), rng.uniform(2.0, 25.0, 30), rng.uniform(25.0, 45.0, 14),
                        np.geomspace(1e-6, 1e-2, 4), [2.0, np.nextafter(2.0, 3.0), 25.0]])
    x = x[x > 0.05 * abs(nu)]                         # (|Y| overflows toward 0 for large orders)
    ours = op(nu, x).data
    exact = jv_reference(kind, nu)(x)
    slope = (jv_reference(kind, nu - 1)(x) - jv_reference(kind, nu + 1)(x)) / 2
    scale = np.abs(x * slope) + np.abs(exact)
    assert np.all(np.abs(ours - exact) <= 8e-15 * scale), np.max(np.abs(ours - exact) / scale)


@pytest.mark.parametrize("nu", [0.5, -0.5, 0.3, 2.7, -2.7, 12.25, 100.5, -60.3])
def test_real_orders_keep_the_wronskian_far_out(nu):
    """J_(nu+1) Y_nu - J_nu Y_(nu+1) = 2 / (pi x), from 1e-2 to 1e5 (each region, and beyond the
    series' reach), and the closed forms of half-integer orders."""
    x = np.geomspace(1e-2, 1e5, 400)
    x = x[x > 0.3 * abs(nu)]
    j, y = V.jv(nu, x).data, V.yv(nu, x).data
    j1, y1 = V.jv(nu + 1, x).data, V.yv(nu + 1, x).data
    scale = np.abs(j1 * y) + np.abs(j * y1)             # (the rounding the difference carries)
    error = np.abs(j1 * y - j * y1 - 2 / (np.pi * x)) / scale
    assert np.all(error < 1e-13), np.max(error)
    t = np.geomspace(1e-3, 1e4, 200)                   # J_(1/2) = sqrt(2 / (pi x)) sin x, Y_(1/2) = -.. cos x
    amplitude = np.sqrt(2 / (np.pi * t))
    for ours, expected in ((V.jv(0.5, t).data, np.sin(t)), (V.yv(0.5, t).data, -np.cos(t))):
        error = np.abs(ours / amplitude - expected)
        assert np.all(error < 3e-15), np.max(error)
    np.testing.assert_array_equal(V.yv(-0.5, t).data, V.jv(0.5, t).data)    # Y_(-1/2) = J_(1/2)


def test_orders_next_to_whole_ones_are_continuous():
    """Y_nu near nu = n: Y_n + (nu - n) dY/dnu, dY_nu/dnu = -(pi/2) J_0 at 0 (Temme's series keeps
    sin(pi mu) / mu; the reference's difference over sin(pi nu) would lose 7 digits at 1e-7)."""
    # (from x = 0.05: below, the next term, mu^2 log(x/2)^2 / 2 of it, passes 1e-14)
    x = np.concatenate([np.geomspace(0.05, 2.0, 10), np.linspace(2.5, 24.0, 10), [30.0, 44.0]])
    j0, y0 = V.j0(x).data, V.y0(x).data                # (and dJ_nu/dnu = (pi/2) Y_0 at 0)
    for mu in (1e-7, -1e-7, 1e-12):
        for ours, expected in ((V.yv(mu, x).data, y0 - mu * (np.pi / 2) * j0),
                               (V.jv(mu, x).data, j0 + mu * (np.pi / 2) * y0)):
            error = np.abs(ours - expected) / (1 + np.abs(y0))
            assert np.all(error < 2e-14), (mu, np.max(error))


def test_real_order_edges():
    """NaN below 0 and at +-inf (SciPy's); at 0, J_v = 0 and Y_v = -inf for v > 0, J_v = +-inf by
    the sign of Gamma(v + 1) below; Y_(-(k+1/2)) = (-1)^k J_(k+1/2) is 0 there (SciPy's: -inf)."""
    x = np.array([0.0, -0.0, -1.5, np.inf, -np.inf, np.nan])
    with np.errstate(all="raise"):
        values = {(kind, v): op(v, x).data for kind, op in (("j", V.jv), ("y", V.yv))
                  for v in (2.3, -2.3, -1.7, -2.5, 0.5)}
    nan = [np.nan] * 4
    np.testing.assert_array_equal(values["j", 2.3], [0.0, 0.0] + nan)
    np.testing.assert_array_equal(values["y", 2.3], [-np.inf, -np.inf] + nan)
    np.testing.assert_array_equal(values["j", -2.3], [np.inf, np.inf] + nan)        # Gamma(-1.3) > 0
    np.testing.assert_array_equal(values["j", -1.7], [-np.inf, -np.inf] + nan)      # Gamma(-0.7) < 0
    np.testing.assert_array_equal(values["y", -2.3], [-np.inf, -np.inf] + nan)      # cos(2.3 pi) > 0
    np.testing.assert_array_equal(values["y", -2.5], [0.0, 0.0] + nan)              # = J_(5/2)
    np.testing.assert_array_equal(values["y", 0.5], [-np.inf, -np.inf] + nan)
    np.testing.assert_array_equal(V.jv(3.0, x[:1]).data, V.jn(3, x[:1]).data)       # whole orders: jn's op
    assert type(V.yv(-2, V.Variable(np.ones(1))).creator.forwarder).__name__ == "BesselY"
    np.testing.assert_array_equal(V.yv(-2.0, np.array([0.4, 7.0])).data, V.yn(-2, np.array([0.4, 7.0])).data)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 30])
@pytest.mark.parametrize("scaled", [False, True])
def test_k_values_are_within_a_few_ulps_times_the_condition_number(n, scaled):
    # K_n has no zeros: the error against |x K_n'| + |K_n| (for K_n e^x the same, scaled)
    rng = np.random.default_rng(n + 10 * scaled)
    x = np.concatenate([rng.uniform(0.01, 1.0, 30), rng.uniform(1.0, 8.0, 40), rng.uniform(8.0, 45.0, 30),
                        np.geomspace(1e-6, 1e-2, 6), [1.0, np.nextafter(1.0, 2.0)]])
    if n > 2:
        x = x[x > 0.05 * n]                            # (K_n overflows toward 0 for large n)
    if scaled and n < 2:
        ours = (V.k0e if n == 0 else V.k1e)(x).data
    else:
        ours = V.kn(n, x).data * (np.exp(x) if scaled else 1.0)
    exact = k_reference(n, scaled)(x)
    slope = (k_reference(n - 1)(x) + k_reference(n + 1)(x)) / 2 * (np.exp(x) if scaled else 1.0)
    scale = np.abs(x * slope) + np.abs(exact)
    assert np.all(np.abs(ours - exact) <= 8e-15 * scale), np.max(np.abs(ours - exact) / scale)


@pytest.mark.parametrize("nu", [0.5, -0.3, 1e-7, 0.4999, 2.3, 7.75])
@pytest.mark.parametrize("scaled", [False, True])
def test_kv_of_real_orders_is_within_a_few_ulps_times_the_condition_number(nu, scaled):
    rng = np.random.default_rng(int(abs(nu) * 100) + 7 * scaled)
    x = np.concatenate([rng.uniform(0.01, 1.0, 12), rng.uniform(1.0, 8.0, 12), rng.uniform(8.0, 45.0, 8),
                        np.geomspace(1e-12, 1e-3, 4), [1.0, np.nextafter(1.0, 2.0)]])
    ours = (V.kve if scaled else V.kv)(nu, x).data
    exact = kv_reference(nu, scaled)(x)
    slope = (kv_reference(nu - 1)(x) + kv_reference(nu + 1)(x)) / 2 * (np.exp(x) if scaled else 1.0)
    scale = np.abs(x * slope) + np.abs(exact)
    assert np.all(np.abs(ours - exact) <= 8e-15 * scale), np.max(np.abs(ours - exact) / scale)
    # K_(1/2) = sqrt(pi / (2x)) e^-x; whole orders are kn's
    t = np.geomspace(1e-200, 700.0, 60)
    np.testing.assert_allclose(V.kv(0.5, t).data, np.sqrt(np.pi / (2 * t)) * np.exp(-t), rtol=2e-15)
    np.testing.assert_allclose(V.kv(3.0, t).data, V.kn(3, t).data, rtol=1e-15)


@pytest.mark.parametrize("nu", [0.5, -0.5, 1.5, -1.5, 0.25, -0.3, 2.7, -2.7, 7.25, 12.5, 25.2, 3.0])
def test_iv_of_real_orders_keeps_the_wronskian_with_kv(nu):
    # I_nu K_(nu+1) + I_(nu+1) K_nu = 1/x, from 1e-3 to 1e5, in the scaled functions (e^-x and
    # e^x cancel; kv is checked against its own reference), for nu > -1, where both terms are
    # positive (below, I_nu < 0 near 0 and the sum cancels)
    x = np.geomspace(1e-3, 1e5, 300)
    if nu > -1:
        wronskian = V.ive(nu, x).data * V.kve(nu + 1, x).data + V.ive(nu + 1, x).data * V.kve(nu, x).data
        np.testing.assert_allclose(wronskian * x, 1.0, rtol=4e-15 * max(1.0, abs(nu)))
    t = x[x <= 45.0]                                    # and the series where it is at hand
    exact = iv_reference(nu)(t)
    # within its size, or below 0 within the size of its two terms I_-nu = I_nu + (2/pi) sin(nu pi)
    # K_nu, which cancel at its zero (I_-1.5 near t = 1.4: -0.0078, one ulp of the terms 8e-15 of it)
    size = np.abs(exact)
    if nu < 0:
        size = size + np.abs(iv_reference(-nu)(t)) + 2 / np.pi * abs(np.sin(nu * np.pi)) * V.kv(-nu, t).data
    assert np.all(np.abs(V.iv(nu, t).data - exact) <= (3e-15 + 2e-16 * max(1.0, abs(nu))) * size)


def test_iv_edges():
    special = pytest.importorskip("scipy.special")
    x = np.array([1e-300, 5e-8, 1.0, 60.0, 700.0])
    for v in (0.5, -0.5, 2.5, -1.7, 10.25):              # (SciPy's iv(0.5, 1e-300) is 0, not 8e-151)
        np.testing.assert_allclose(V.iv(v, x[1:]).data, special.iv(v, x[1:]), rtol=1e-13, atol=0)
        np.testing.assert_allclose(V.ive(v, x[1:]).data, special.ive(v, x[1:]), rtol=1e-13, atol=0)
    # at a fractional order: NaN below 0 (as SciPy's), 0 at 0 for v > 0 and +-inf for v < 0 with
    # the sign of Gamma(v + 1) (SciPy's iv(-1.5, 0) is +inf), the limits at +inf (SciPy's: NaN)
    edges = np.array([0.0, -1.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(V.iv(1.5, edges).data, [0.0, np.nan, np.inf, np.nan, np.nan])
    np.testing.assert_array_equal(V.iv(-1.5, edges).data, [-np.inf, np.nan, np.inf, np.nan, np.nan])
    np.testing.assert_array_equal(V.iv(-0.5, edges).data, [np.inf, np.nan, np.inf, np.nan, np.nan])
    np.testing.assert_array_equal(V.ive(2.5, edges[2:]).data, [0.0, np.nan, np.nan])
    np.testing.assert_array_equal(V.iv(-2, np.array([-1.0, 0.0])).data, V.iv(2, np.array([-1.0, 0.0])).data)
    half = np.sqrt(2 / (np.pi * x[:4])) * np.sinh(x[:4])                  # I_(1/2)
    np.testing.assert_allclose(V.iv(0.5, x[:4]).data, half, rtol=2e-15)
    with pytest.raises(ValueError, match=r"iv\(v, x\): an order beyond \|v\| = 256 is not supported, "
                                         r"got 257\.0"):
        V.iv(257, x)


@pytest.mark.parametrize("nu", [30.5, 31.0, 47.585, 100.0, 255.5, -35.5, -40.0])
@pytest.mark.parametrize("scaled", [False, True])
def test_iv_of_large_orders_is_within_a_few_ulps_times_the_condition_number(nu, scaled):
    # beyond |v| = 30 Debye's uniform expansion: against the 60-digit series (from 1e-2 to 400;
    # to 45 below 0, where its terms alternate first), the error measured against |x I'| + |I|
    # (I_(-n) = I_n at a whole order)
    def reference(v, scaled=False):
        return iv_reference(abs(v) if v == int(v) else v, scaled)
    top = 45.0 if nu < 0 else 400.0
    x = np.concatenate([np.geomspace(1e-2, top, 25), np.linspace(0.8, 1.2, 5) * min(abs(nu), top)])
    exact = reference(nu, scaled)(x)
    slope = (reference(nu - 1)(x) + reference(nu + 1)(x)) / 2 * (np.exp(-x) if scaled else 1.0)
    keep = (np.abs(exact) > 1e-300) & np.isfinite(slope)           # (normal numbers, both ways)
    ours = (V.ive if scaled else V.iv)(nu, x[keep]).data
    scale = np.abs(x[keep] * slope[keep]) + np.abs(exact[keep])
    assert np.all(np.abs(ours - exact[keep]) <= 2e-15 * scale), np.max(np.abs(ours - exact[keep]) / scale)


@pytest.mark.parametrize("nu", [40.5, 100.0, 250.0])
def test_iv_of_large_orders_keeps_the_wronskian_with_kv(nu):
    # I_nu K_(nu+1) + I_(nu+1) K_nu = 1/x far beyond the series' reach (kv's own integral and
    # recurrence on the other side), from nu / 3 on, where neither factor leaves the doubles
    x = np.geomspace(nu / 3, 1e6, 200)
    wronskian = V.ive(nu, x).data * V.kve(nu + 1, x).data + V.ive(nu + 1, x).data * V.kve(nu, x).data
    np.testing.assert_allclose(wronskian * x, 1.0, rtol=1e-13)


@pytest.mark.parametrize("name", ["kv", "kve", "iv", "ive", "jv", "yv"])
def test_an_array_of_orders_broadcasts_with_x_as_in_scipy(name):
    op = getattr(V, name)
    x = np.linspace(0.5, 30.0, 7)
    orders = np.array([[0.5], [2.3], [-1.7], [40.5], [2.3]])
    table = op(orders, x)
    assert table.shape == (5, 7)
    for row, order in zip(table.data, orders[:, 0]):
        np.testing.assert_array_equal(row, op(float(order), x).data)
    assert V.gradcheck(lambda t: op(np.array([0.5, 2.5, 0.5]), t), np.array([1.0, 2.0, 3.0]), order=3)
    assert V.taylorcheck(lambda t: op([1, 2.5, 1], t), np.array([1.0, 2.0, 3.0]), order=3)
    with pytest.raises(ValueError, match=rf"{name}\(v, x\): an order beyond \|v\| = 256 is not supported, "
                                         r"got 300\.0"):
        op(np.array([1.0, 300.0]), x[:2])
    with pytest.raises(TypeError, match=rf"{name}\(v, x\): the orders must be real numbers, got an array"):
        op(np.array(["a"]), x[:1])
    special = pytest.importorskip("scipy.special")
    y = getattr(special, name)(orders, V.Variable(x))                    # SciPy's ufunc records it
    assert y.creator is not None
    # (near J's and Y's zeros, absolutely: SciPy's yv(-1.7, 20.17) is 3e-15 off, ours 3e-16)
    np.testing.assert_allclose(y.data, getattr(special, name)(orders, x), rtol=5e-14, atol=5e-15)


def test_k_of_a_subnormal_x_is_finite_where_k_is():
    # K_0(x) = ln(2/x) - gamma and K_(1/2)(x) = sqrt(pi / (2x)) to rounding there, K_1 = 1/x
    # overflows (SciPy's K_0(5e-324) is inf; here x/2 and 2/x were taken as they round)
    x = np.array([5e-324, 1e-323, 3e-320, 1e-310, 2.2e-308, 1e-300])
    np.testing.assert_allclose(V.k0(x).data, np.log(2.0) - np.log(x) - float(_EULER), rtol=4e-16)
    np.testing.assert_allclose(V.kv(0.5, x).data, np.sqrt(np.pi / 2) / np.sqrt(x), rtol=8e-16)
    np.testing.assert_allclose(V.kv(0.3, x).data * x ** 0.3,                 # Gamma(0.3) 2^-0.7
                               math.gamma(0.3) * 2 ** -0.7, rtol=1e-15)
    np.testing.assert_array_equal(V.k1(x[:4]).data, np.inf)


def test_k_far_out_keeps_the_wronskian():
    # I_n K_(n+1) + I_(n+1) K_n = 1/x, from 1e-3 to 1e12 (the scaled ones: e^x and e^-x cancel)
    x = np.geomspace(1e-3, 1e12, 400)
    wronskian = V.i0e(x).data * V.k1e(x).data + V.i1e(x).data * V.k0e(x).data
    np.testing.assert_allclose(wronskian * x, 1.0, rtol=3e-15)
    special = pytest.importorskip("scipy.special")
    np.testing.assert_allclose(V.k0e(x).data, special.k0e(x), rtol=3e-15, atol=0)
    np.testing.assert_allclose(V.k1e(x).data, special.k1e(x), rtol=3e-15, atol=0)
    near = x[(x > 0.5) & (x < 40.0)]                   # (beyond, x itself rounds K by x ulps)
    np.testing.assert_allclose(V.kn(4, near).data, special.kn(4, near), rtol=3e-15, atol=0)


def test_edges_are_scipys():
    special = pytest.importorskip("scipy.special")
    x = np.array([0.0, -0.0, 1e-300, 5e-8, -3.5, 60.0, np.inf, -np.inf, np.nan])
    with np.errstate(all="ignore"):
        for ours, theirs in [(V.j0, special.j0), (V.j1, special.j1), (V.y0, special.y0), (V.y1, special.y1),
                             (lambda t: V.jn(4, t), lambda t: special.jn(4, t)),
                             (lambda t: V.yn(3, t), lambda t: special.yn(3, t)),
                             (lambda t: V.yn(-3, t), lambda t: special.yn(-3, t))]:
            np.testing.assert_allclose(ours(x).data, theirs(x), rtol=1e-13, atol=0)   # NaN and infs alike
    np.testing.assert_array_equal(V.j0(np.float32([0.0, 1.0])).data, np.float32([1.0, 0.7651977]))
    x = np.array([0.0, -0.0, 1e-300, 5e-8, -3.5, 1.0, 60.0, 300.0, 1e5, np.inf, -np.inf, np.nan])
    with np.errstate(all="ignore"):
        for ours, theirs in [(V.k0, special.k0), (V.k1, special.k1), (V.k0e, special.k0e),
                             (V.k1e, special.k1e), (lambda t: V.kn(3, t), lambda t: special.kn(3, t)),
                             (lambda t: V.kn(-2, t), lambda t: special.kn(-2, t))]:
            np.testing.assert_allclose(ours(x).data, theirs(x), rtol=1e-14, atol=0)   # NaN and infs alike
    # near the underflow, 30-digit values (SciPy's kn(3, x) is 2e-14 off at 690 and 0 from 700)
    np.testing.assert_allclose(V.kn(3, np.array([690.0, 700.0])).data,
                               [1.0427844874668682634e-301, 4.6998715291469308417e-306], rtol=2e-15)
    np.testing.assert_allclose(V.k1e(1e5).data, 0.0039633421600369322005, rtol=2e-15)

    # far out the phase x - pi/4 must not be rounded (ulp(1e15) = 0.125): 40-digit values
    # (SciPy's j0 is 2e-12 off at 1e5, 8e-9 at 1e9, 14 % at 1e15, where it gives 5.29e-9)
    far = np.array([1e5, 1e9, 1e15])
    np.testing.assert_allclose(V.j0(far).data, [-0.0017192011162359723, 2.4687471886269195e-05,
                                                6.156638646885022e-09], rtol=1e-14)
    np.testing.assert_allclose(V.y1(far[:2]).data, [0.0017192103500882562, -2.4687471888874407e-05],
                               rtol=1e-14)
    np.testing.assert_allclose(V.jn(4, far[:2]).data, [-0.0017193488527148316, 2.4687471927952574e-05],
                               rtol=1e-14)
    np.testing.assert_allclose(V.yn(3, 1e15).data, 6.156638646884826e-09, rtol=1e-12)


def test_the_derivatives_are_the_neighbouring_orders():
    x = V.Variable(np.array([0.0, 0.7, 4.2, 31.0]))
    np.testing.assert_allclose(V.grad(V.sum(V.j0(x)), x).data, -V.j1(x).data, rtol=1e-15)
    np.testing.assert_allclose(V.grad(V.sum(V.j1(x)), x).data[0], 0.5)          # J_1'(0) = 1/2
    y = V.Variable(np.array([0.7, 4.2, 31.0]))
    np.testing.assert_allclose(V.grad(V.sum(V.y0(y)), y).data, -V.y1(y).data, rtol=1e-15)
    zero = V.Variable(np.array([0.0]))
    assert V.grad(V.sum(V.y0(zero)), zero).data[0] == np.inf                 # Y_0'(0) = -Y_1(0) = inf
    d4 = V.nth_derivative(V.j0, np.array([0.0]), np.ones(1), 4)          # J_0'''' (0) = 3/8
    np.testing.assert_allclose(d4.data, [0.375], rtol=1e-15)
    k = V.Variable(np.array([0.4, 1.0, 3.0, 50.0]))
    np.testing.assert_allclose(V.grad(V.sum(V.k0(k)), k).data, -V.k1(k).data, rtol=1e-15)
    np.testing.assert_allclose(V.grad(V.sum(V.k0e(k)), k).data, V.k0e(k).data - V.k1e(k).data, rtol=1e-14)
    zero = V.Variable(np.array([0.0, 0.0]))
    with np.errstate(all="raise"):                                           # (no inf - inf on the way)
        assert np.all(V.grad(V.sum(V.k0e(zero)), zero).data == -np.inf)
        assert np.all(V.grad(V.sum(V.k1(zero)), zero).data == -np.inf)


def test_scipys_ufuncs_record_them():
    special = pytest.importorskip("scipy.special")
    x = V.Variable(np.array([0.5, 3.0]))
    for theirs, ours in [(special.j0(x), V.j0(x)), (special.jn(3, x), V.jn(3, x)),
                         (special.jv(2.0, x), V.jn(2, x)), (special.yv(1, x), V.y1(x)),
                         (special.yn(2, x), V.yn(2, x)), (special.k0(x), V.k0(x)), (special.k1e(x), V.k1e(x)),
                         (special.kn(3, x), V.kn(3, x)), (special.kv(2.0, x), V.kn(2, x)),
                         (special.kve(0, x), V.k0e(x)), (special.kv(1.5, x), V.kv(1.5, x)),
                         (special.kve(-0.3, x), V.kve(-0.3, x)), (special.iv(2.5, x), V.iv(2.5, x)),
                         (special.ive(-0.5, x), V.ive(-0.5, x)), (special.jv(2.5, x), V.jv(2.5, x)),
                         (special.yv(-0.3, x), V.yv(-0.3, x)), (special.jve(1.2, x), V.jv(1.2, x)),
                         (special.yve(4, x), V.yn(4, x))]:
        assert isinstance(theirs, V.Variable) and theirs.creator is not None
        np.testing.assert_array_equal(theirs.data, ours.data)


def test_orders_that_are_not_whole_are_refused_by_the_whole_order_names():
    x = V.Variable(np.array([0.5, 3.0]))
    with pytest.raises(TypeError, match=r"jn\(n, x\): n must be a whole number \(an int\), got float 2\.5"):
        V.jn(2.5, x)
    with pytest.raises(TypeError, match=r"yn\(n, x\): n must be a whole number"):
        V.yn(np.array([1, 2]), x)
    with pytest.raises(ValueError, match=r"jn\(n, x\): \|n\| must be at most 256, got 300"):
        V.jn(300, x)
    with pytest.raises(TypeError, match=r"yn\(n, x\): .* got float 0\.5; V\.yv\(v, x\) takes a real order"):
        V.yn(0.5, x)
    special = pytest.importorskip("scipy.special")
    with pytest.raises(TypeError, match=r"jv\(v, x\): v must be a real number, got a Variable"):
        special.jv(V.Variable(np.array(2.5)), x)
    with pytest.raises(ValueError, match=r"yv\(v, x\): an order beyond \|v\| = 256 is not supported"):
        V.yv(300.5, x)
    with pytest.raises(TypeError, match=r"kn\(n, x\): n must be a whole number"):
        V.kn(1.5, x)
    with pytest.raises(TypeError, match=r"kv\(v, x\): v must be a real number, got a Variable \(the order "
                                        r"is not differentiated: give v\.item\(\)\)"):
        special.kv(V.Variable(np.array(1.5)), x)
    with pytest.raises(ValueError, match=r"kve\(v, x\): v must be finite, got inf"):
        V.kve(np.inf, x)


def test_on_the_device_the_values_and_gradients_are_the_hosts_without_a_sync(gpu, count_syncs):
    for op, x in [(V.j0, [0.0, 1e-3, 1.5, 7.0, 24.0, 31.0, -4.0, np.inf]),    # every region and edge
                  (lambda t: V.jn(3, t), [0.0, 1e-3, 1.5, 7.0, 24.0, 31.0, -4.0]),
                  (V.y1, [1e-3, 1.5, 7.0, 24.0, 31.0, -4.0, np.inf]),             # (Y'(0) is +inf)
                  (lambda t: V.yn(-2, t), [1e-3, 1.5, 7.0, 24.0, 31.0]),
                  (V.k0, [1e-3, 0.5, 1.0, 3.0, 50.0, 800.0, -1.0, np.inf]),            # (K'(0) is -inf)
                  (lambda t: V.kn(3, t), [1e-3, 0.5, 1.0, 3.0, 50.0]),
                  (V.k1e, [1e-3, 0.5, 1.0, 3.0, 50.0, 800.0, np.inf]),
                  (lambda t: V.kv(2.3, t), [1e-3, 0.5, 1.0, 3.0, 50.0]),
                  (lambda t: V.iv(-1.5, t), [1e-3, 0.5, 3.0, 25.0, -1.0]),
                  (lambda t: V.iv(41, t), [0.0, 0.5, 30.0, 45.0, -30.0, 700.0]),     # (Debye's expansion)
                  (lambda t: V.ive(-36.5, t), [1e-3, 30.0, 45.0, 800.0, -1.0]),
                  (lambda t: V.kv(np.array([0.5, 2.3, 0.5, 40.5]), t), [1e-3, 1.0, 3.0, 50.0]),
                  (lambda t: V.jv(2.3, t), [0.0, 1e-3, 1.5, 7.0, 24.0, 31.0, -4.0, np.inf]),
                  (lambda t: V.yv(-0.7, t), [1e-3, 1.5, 7.0, 24.0, 31.0, -4.0])]:
        x = np.array(x)
        host = V.Variable(x)
        host_value = op(host)
        host_gradient = V.grad(V.sum(V.where(np.isfinite(host_value.data), host_value, 0.0)), host)
        moved = V.Variable(x).to_gpu()
        with count_syncs() as syncs:
            value = op(moved)
            finite = V.backend.get_array_module(value.data).isfinite(value.data)
            gradient = V.grad(V.sum(V.where(finite, value, 0.0)), moved)
        assert syncs.count == 0
        np.testing.assert_array_equal(V.backend.to_cpu(value.data), host_value.data)
        np.testing.assert_array_equal(V.backend.to_cpu(gradient.data), host_gradient.data)


def test_the_forward_laplacian_of_cylinder_waves_solves_helmholtz():
    # J_0(k r) and Y_2(k r) cos 2 theta solve Laplacian u + k^2 u = 0 in the plane: V.laplacian's
    # collapsed Taylor pass through the Bessel ops' rules gives it to rounding; with k a
    # Variable the residual is a trainable loss whose gradient vanishes at the true k
    points = np.random.default_rng(3).uniform(0.5, 8.0, (6, 2))
    k = V.Variable(np.array(1.7))

    def radius(p):
        return V.sqrt(V.sum(p * p, axis=1))
    for u in (lambda p: V.j0(k * radius(p)),
              lambda p: V.yn(2, k * radius(p)) * V.cos(2 * V.arctan2(p[:, 1], p[:, 0]))):
        residual = V.laplacian(u, points) + k * k * u(points)
        np.testing.assert_allclose(residual.data, 0.0, atol=1e-14)
        assert abs(V.grad(V.sum(residual ** 2), k).item()) < 1e-26


def test_the_forward_laplacian_of_screened_potentials_solves_modified_helmholtz():
    # K_0(k r) and K_1(k r) cos theta solve Laplacian u - k^2 u = 0 away from the origin
    # (Yukawa's screened potential in the plane), to rounding, trainable in k
    points = np.random.default_rng(4).uniform(0.3, 3.0, (6, 2))
    k = V.Variable(np.array(0.8))

    def radius(p):
        return V.sqrt(V.sum(p * p, axis=1))
    for u in (lambda p: V.k0(k * radius(p)),
              lambda p: V.k1e(k * radius(p)) * V.exp(-k * radius(p)) * p[:, 0] / radius(p)):
        residual = V.laplacian(u, points) - k * k * u(points)
        np.testing.assert_allclose(residual.data, 0.0, atol=1e-14)
        assert abs(V.grad(V.sum(residual ** 2), k).item()) < 1e-26
