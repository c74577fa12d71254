"""The Kolmogorov distribution (variable/ops/ks_distribution.py): kolmogorov and kolmogi, and the
CDF 1 - kolmogorov and its inverse (V.stats.kstwobign's cdf and ppf), against 60-digit sums of our
own (the alternating sum from x = 0.3, the theta form below), their rows
(third order, Taylor mode to sixth), the edges, the derivative, SciPy's values, and the device
path without a host sync; the one-sided statistic of n samples, smirnov and smirnovi, against
Birnbaum and Tingey's sum in 50-digit decimals (every term positive: no digit lost)."""

import math
import os
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import SMOOTH, Row, device_equals_host, table_tests
from test_ops_integrals import machin_pi

import variable as V
from variable import numpy_dispatch
from variable.ops import ks_distribution
from variable.ops.ks_distribution import kolmogi_complement, kolmogorov_complement

PI = machin_pi(80)


def _kolmogorov_decimal(x):
    """kolmogorov(x) of a finite x > 0 as a 70-digit Decimal: 2 sum (-1)^(k-1) e^(-2 k^2 x^2) from
    x = 0.3 (to a term below 1e-70), 1 - sqrt(2 pi) / x sum e^(-(2k-1)^2 pi^2 / (8 x^2)) below."""
    with localcontext() as ctx:
        ctx.prec = 70
        f = Fraction(x)
        t = Decimal(f.numerator) / Decimal(f.denominator)
        total, k = Decimal(0), 1
        if x >= 0.3:
            while True:
                term = (-2 * k * k * t * t).exp()
                total += term if k % 2 else -term
                if term < Decimal(10) ** -70:
                    return 2 * total
                k += 1
        while True:
            term = (-(2 * k - 1) ** 2 * PI * PI / (8 * t * t)).exp()
            total += term
            if term < Decimal(10) ** -70 * total or k > 50:
                return 1 - (2 * PI).sqrt() / t * total
            k += 1


def _complement_decimal(x):
    """1 - kolmogorov(x) of a finite x > 0 as a 70-digit Decimal: the theta sum itself below 0.3."""
    with localcontext() as ctx:
        ctx.prec = 70
        if x >= 0.3:
            return 1 - _kolmogorov_decimal(x)
        f = Fraction(x)
        t = Decimal(f.numerator) / Decimal(f.denominator)
        total = sum((-(2 * k - 1) ** 2 * PI * PI / (8 * t * t)).exp() for k in range(1, 4))
        return (2 * PI).sqrt() / t * total                 # (the fourth term: e^(-48 pi^2 / 8 x^2) of it)


def _complement(x):
    if math.isnan(x):
        return math.nan
    if x <= 0:
        return 0.0
    return 1.0 if math.isinf(x) else float(_complement_decimal(x))


def reference_complement(x):
    return np.vectorize(_complement, otypes=[np.float64])(x)


def _halvings(p, function, rising):
    """x with function(x) = p (a 70-digit function of [0, 30], rising or falling): 80 halvings,
    compared with p exactly."""
    if math.isnan(p) or not 0 <= p <= 1:
        return math.nan
    target = Decimal(Fraction(p).numerator) / Decimal(Fraction(p).denominator)
    low, high = 0.0, 30.0
    for _ in range(80):
        middle = (low + high) / 2
        value = function(middle)
        low, high = (middle, high) if (value < target if rising else value > target) else (low, middle)
    return (low + high) / 2


def _complement_inverse(c):
    """x with 1 - kolmogorov(x) = c."""
    return _halvings(c, _complement_decimal, rising=True)


def reference_complement_inverse(c):
    return np.vectorize(_complement_inverse, otypes=[np.float64])(c)


def _kolmogorov(x):
    if math.isnan(x):
        return math.nan
    if x <= 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    return float(_kolmogorov_decimal(x))


def reference_kolmogorov(x):
    return np.vectorize(_kolmogorov, otypes=[np.float64])(x)


def _kolmogi(p):
    """x with kolmogorov(x) = p."""
    return _halvings(p, _kolmogorov_decimal, rising=False)


def reference_kolmogi(p):
    return np.vectorize(_kolmogi, otypes=[np.float64])(p)


def _smirnov_decimal(n, d, slope=False):
    """smirnov(n, d) of a float 0 < d < 1 in 50-digit decimals, d sum_(j < n (1 - d)) C(n, j) (d +
    j/n)^(j - 1) (1 - d - j/n)^(n - j) (slope: its derivative in d, each term times 1/d + (j - 1) /
    p_j - (n - j) / q_j)."""
    with localcontext() as ctx:
        ctx.prec = 50
        f = Fraction(float(d))
        d = Decimal(f.numerator) / Decimal(f.denominator)
        total = Decimal(0)
        for j in range(n + 1):
            p, q = d + Decimal(j) / n, 1 - d - Decimal(j) / n
            if q <= 0:
                break
            term = d * math.comb(n, j) * p ** (j - 1) * q ** (n - j)
            total += term * (1 / d + (j - 1) / p - (n - j) / q) if slope else term
        return total


def reference_smirnov(n):
    def one(d):
        if math.isnan(d) or not 0 <= d <= 1:
            return math.nan
        return 1.0 if d == 0 else 0.0 if d == 1 else float(_smirnov_decimal(n, d))
    return np.vectorize(one, otypes=[np.float64])


def reference_smirnovi(n):
    """d with smirnov(n, d) = p: 70 halvings of [0, 1] against the decimal sum (p exactly)."""
    def one(p):
        target = Decimal(Fraction(p).numerator) / Decimal(Fraction(p).denominator)
        low, high = 0.0, 1.0
        for _ in range(70):
            middle = (low + high) / 2
            low, high = (middle, high) if _smirnov_decimal(n, middle) > target else (low, middle)
        return (low + high) / 2
    return np.vectorize(one, otypes=[np.float64])


ROWS = {
    "smirnov": [Row(f"n = {n}, d in (0.02, 0.9)", lambda d, n=n: V.smirnov(n, d), reference_smirnov(n),
                    lambda rng: (rng.uniform(0.02, 0.9, (2, 3)),), SMOOTH) for n in (7, 40)],
    "smirnovi": [Row(f"n = {n}, p in (0.02, 0.98)", lambda p, n=n: V.smirnovi(n, p), reference_smirnovi(n),
                     lambda rng: (rng.uniform(0.02, 0.98, 3),), SMOOTH) for n in (7, 40)],
    "kolmogorov": [Row("x in (0.2, 2.5)", V.kolmogorov, reference_kolmogorov,
                       lambda rng: (rng.uniform(0.2, 2.5, (2, 3)),), SMOOTH),
                   Row("x in (0.7, 0.95)", V.kolmogorov, reference_kolmogorov,
                       lambda rng: (rng.uniform(0.7, 0.95, 3),), SMOOTH)],
    "kolmogi": [Row("p in (0.02, 0.98)", V.kolmogi, reference_kolmogi,
                    lambda rng: (rng.uniform(0.02, 0.98, 3),), SMOOTH)],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)

COMPLEMENT_ROWS = {                       # (V.stats.kstwobign's cdf and ppf: not public ops of V)
    "kolmogorov_complement": [Row("x in (0.2, 2.5)", kolmogorov_complement, reference_complement,
                                  lambda rng: (rng.uniform(0.2, 2.5, (2, 3)),), SMOOTH)],
    "kolmogi_complement": [Row("c in (0.02, 0.98)", kolmogi_complement, reference_complement_inverse,
                               lambda rng: (rng.uniform(0.02, 0.98, 3),), SMOOTH)],
}

(test_complement_forward, test_complement_derivatives, test_complement_taylor,
 test_complement_float32) = table_tests(COMPLEMENT_ROWS)


def test_the_two_sums_of_the_reference_agree():
    """Jacobi's theta transformation: the references' two forms are one function (checked where
    both converge, so that neither form's bugs hide behind the other)."""
    for x in (0.35, 0.6, 0.9, 1.4):
        with localcontext() as ctx:
            ctx.prec = 70
            t = Decimal(Fraction(x).numerator) / Decimal(Fraction(x).denominator)
            theta = sum((-(2 * k - 1) ** 2 * PI * PI / (8 * t * t)).exp() for k in range(1, 60))
            assert abs(float(1 - (2 * PI).sqrt() / t * theta) - _kolmogorov(x)) < 1e-17


def test_kolmogorov_against_60_digits():
    x = np.concatenate([np.geomspace(0.02, 0.8, 40), np.linspace(0.8, 0.84, 21),
                        np.geomspace(0.84, 26.0, 80)])
    np.testing.assert_allclose(V.kolmogorov(x).data, reference_kolmogorov(x), rtol=4e-16, atol=0)


def test_kolmogi_against_60_digits():
    p = np.concatenate([np.geomspace(1e-300, 0.5, 30), 1 - np.geomspace(1e-12, 0.5, 20)])
    x = V.kolmogi(p).data
    # the x error, p's residual over x K'(x), within a few ulps of x
    expected = reference_kolmogi(p)
    np.testing.assert_allclose(x, expected, rtol=4e-15)


def test_the_complement_and_its_inverse_against_60_digits():
    """1 - kolmogorov(x) as itself: every digit of a CDF down to 1e-300 (x = 0.042), where the
    difference would give 0; its inverse there too."""
    x = np.concatenate([np.geomspace(0.045, 0.8, 40), np.linspace(0.8, 0.84, 11),
                        np.geomspace(0.84, 6.0, 30)])
    expected = reference_complement(x)
    # (below x = 0.3 the value's condition number is pi^2 / (4 x^2): 12 ulps at 0.3, 1,200 at 0.045)
    error = np.abs(kolmogorov_complement(x).data / expected - 1)
    bound = np.maximum(4e-16, 2.2e-16 * np.pi ** 2 / (4 * x * x))
    assert np.all(error <= bound), (x[error > bound], error[error > bound] / bound[error > bound])
    c = np.concatenate([np.geomspace(1e-300, 0.5, 30), 1 - np.geomspace(1e-12, 0.5, 20)])
    np.testing.assert_allclose(kolmogi_complement(c).data, reference_complement_inverse(c), rtol=4e-15)
    with np.errstate(all="raise"):
        edges = kolmogi_complement(np.array([0.0, 1.0, -0.1, 1.1, np.nan]))
        cdf = kolmogorov_complement(np.array([-1.0, 0.0, 0.02, np.inf, np.nan]))
    np.testing.assert_array_equal(edges.data, [0.0, np.inf, np.nan, np.nan, np.nan])
    np.testing.assert_array_equal(cdf.data, [0.0, 0.0, 0.0, 1.0, np.nan])


def test_the_complements_derivatives_are_minus_kolmogorovs():
    x = V.Variable(np.array([0.1, 0.5, 0.9, 2.0]))
    g, = V.grad(V.sum(kolmogorov_complement(x)), [x])
    h, = V.grad(V.sum(V.kolmogorov(x)), [x])
    np.testing.assert_array_equal(g.data, -h.data)
    c = V.Variable(np.array([1e-30, 0.3, 0.8]))
    y = kolmogi_complement(c)
    g, = V.grad(V.sum(y), [c])
    x = V.Variable(y.data)
    slope, = V.grad(V.sum(kolmogorov_complement(x)), [x])
    np.testing.assert_allclose(g.data, 1 / slope.data, rtol=1e-15)


def test_edges():
    with np.errstate(all="raise"):
        k = V.kolmogorov(np.array([-1.0, 0.0, np.inf, -np.inf, np.nan, 30.0]))
        i = V.kolmogi(np.array([0.0, 1.0, -0.1, 1.1, np.nan]))
    np.testing.assert_array_equal(k.data, [1.0, 1.0, 0.0, 1.0, np.nan, 0.0])
    np.testing.assert_array_equal(i.data, [np.inf, 0.0, np.nan, np.nan, np.nan])
    x = V.Variable(np.array([np.inf, 50.0, 0.0, -1.0, np.nan]))
    g, = V.grad(V.sum(V.kolmogorov(x)), [x])
    np.testing.assert_array_equal(g.data, [0.0, 0.0, 0.0, 0.0, np.nan])


def test_the_derivatives():
    """kolmogorov' = -8 x sum (-1)^(k-1) k^2 e^(-2 k^2 x^2); kolmogi' = 1 / kolmogorov'(x)."""
    x = V.Variable(np.array([0.4, 0.819, 0.821, 1.3, 3.0]))
    g, = V.grad(V.sum(V.kolmogorov(x)), [x])
    terms = [(-1) ** (k - 1) * k * k * np.exp(-2 * k * k * x.data ** 2) for k in range(1, 40)]
    slope = -8 * x.data * sum(terms)
    np.testing.assert_allclose(g.data, slope, rtol=1e-13)
    p = V.Variable(np.array([0.1, 0.5, 0.9]))
    q = V.kolmogi(p)
    g, = V.grad(V.sum(q), [p])
    terms = [(-1) ** (k - 1) * k * k * np.exp(-2 * k * k * q.data ** 2) for k in range(1, 60)]
    slope = -8 * q.data * sum(terms)
    np.testing.assert_allclose(g.data, 1 / slope, rtol=1e-12)


def test_float32_in_float32_out():
    x = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    assert V.kolmogorov(x).dtype == np.float32 and V.kolmogi(x / 3).dtype == np.float32


def test_scipy_agrees_and_its_ufuncs_record():
    special = pytest.importorskip("scipy.special")
    x = np.linspace(0.01, 6, 300)
    np.testing.assert_allclose(V.kolmogorov(x).data, special.kolmogorov(x), rtol=1e-14)   # (SciPy's: 6e-15)
    p = np.linspace(0.001, 0.999, 200)
    np.testing.assert_allclose(V.kolmogi(p).data, special.kolmogi(p), rtol=1e-13)
    for name, values in (("kolmogorov", x), ("kolmogi", p)):
        recorded = getattr(special, name)(V.Variable(values))
        assert isinstance(recorded, V.Variable) and recorded.creator is not None


@pytest.mark.skipif(os.environ.get("GENGRAD_DEVICE", "cpu") != "cpu",
                    reason="on a device, NumPy refuses to convert device data before SciPy's code runs")
def test_scipy_stats_kstwobign_on_a_variable_names_ours():
    stats = pytest.importorskip("scipy.stats")
    x = V.Variable(np.array([0.5, 1.5]))
    with pytest.raises(ValueError, match=r"scipy\.stats\.kstwobign\.sf.*V\.stats\.kstwobign\.sf\(x, loc, "):
        stats.kstwobign.sf(x)
    with pytest.raises(ValueError, match=r"scipy\.stats\.kstwobign\.isf.*V\.stats\.kstwobign\.isf\(q, "):
        stats.kstwobign.isf(x * 0.3)
    with pytest.raises(ValueError, match=r"scipy\.stats\.ksone\.sf.*V\.stats\.ksone\.sf\(x, n, loc, "):
        stats.ksone.sf(x * 0.3, 10)
    with pytest.raises(ValueError, match=r"scipy\.stats\.ksone\.ppf.*V\.stats\.ksone\.ppf\(q, n, loc, "):
        stats.ksone.ppf(x * 0.3, 10)


def test_every_method_of_v_stats_is_named_where_scipy_stats_meets_a_variable():
    """The refusal of scipy.stats.<dist>.<method> on a Variable names V.stats's method wherever
    gengrad has it (its list in numpy_dispatch had missed ksone's ppf and the ppf and isf of norm, t,
    gamma, chi2 and beta): every distribution of V.stats, every scipy.stats method it has."""
    standard = {"pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "pmf", "logpmf"}
    named = {name: set(methods) for name, methods, _ in numpy_dispatch._V_STATS}
    for name in V.stats.__all__:
        if name in ("dirichlet", "multivariate_normal"):     # (no scipy.stats rv_continuous methods)
            continue
        kind = type(getattr(V.stats, name))
        have = {m for m in standard if hasattr(kind, m)}
        if "pmf" in have:
            have.discard("pdf")                               # (a discrete one's pdf is the base's)
        if not ("cdf" in have and "sf" in have):
            have -= {"logcdf", "logsf"}
        assert have == named.get(name), (name, sorted(have ^ named.get(name, set())))


def test_on_the_device_without_a_sync(gpu, count_syncs):
    x = np.array([-1.0, 0.0, 0.3, 0.82, 1.5, 30.0, np.inf, np.nan])
    assert device_equals_host(V.kolmogorov, (x,), count_syncs).count == 0
    p = np.array([0.0, 1e-200, 0.2, 0.7, 0.999, 1.0, np.nan])
    assert device_equals_host(V.kolmogi, (p,), count_syncs).count == 0
    assert device_equals_host(kolmogorov_complement, (x,), count_syncs).count == 0
    assert device_equals_host(kolmogi_complement, (p,), count_syncs).count == 0


# ----- the one-sided statistic of n samples: smirnov and smirnovi ------------------------------------
def _smirnov_points(rng, n):
    """d over (0, 1), down to 1e-8, and at and just past the kinks 1/n and 2/n."""
    kinks = [1 / n, 1 / n + 1e-9, 2 / n]
    return np.concatenate([rng.uniform(0, 1, 12), 10.0 ** rng.uniform(-8, 0, 8), kinks])


@pytest.mark.parametrize("n", [2, 3, 10, 37, 100, 400])
def test_smirnov_within_its_condition_of_the_decimal_sum(n):
    """Within 6 + 3 kappa ulps, kappa = |d S'(d) / S| (the rounding of n d alone moves S by kappa / 2
    ulps: Loader's saddle-point form keeps every other factor to a few ulps, the sum of up to n
    terms 4 at most measured; products of n rounded powers, or their logarithms, would lose n ulps
    at kappa ~ 1)."""
    rng = np.random.default_rng(n)
    d = _smirnov_points(rng, n)
    exact = np.array([float(_smirnov_decimal(n, x)) for x in d])
    keep = exact > 1e-290                                       # (0 below the floats: 1e-300 at d = 0.999)
    d, exact = d[keep], exact[keep]
    kappa = np.abs(d * np.array([float(_smirnov_decimal(n, x, slope=True)) for x in d]) / exact)
    ulps = np.abs(V.smirnov(n, d).data / exact - 1) / 2.0 ** -53
    assert np.all(ulps <= 6 + 3 * kappa)


@pytest.mark.parametrize("n", [2, 5, 37, 300])
def test_smirnovi_within_its_condition(n):
    """p from 1e-300 to 1 - 1e-16: the decimal residual S(d) - p over S'(d) within 2 (1 + kappa)
    ulps of d, kappa = |p / (d S'(d))| (p's own rounding); 1 - p^(1/n) exactly from d = 1 - 1/n
    on (S = (1 - d)^n there: 1.0 where that rounds to 1)."""
    rng = np.random.default_rng(n)
    p = np.concatenate([rng.uniform(0, 1, 8), 10.0 ** rng.uniform(-300, -1, 8),
                        1 - 10.0 ** rng.uniform(-15, -1, 4)])
    d = V.smirnovi(n, p).data
    for x, q in zip(d, p):
        if x == 1.0:
            assert _smirnov_decimal(n, np.nextafter(1.0, 0.0)) > Decimal(q)
            continue
        value, slope = float(_smirnov_decimal(n, x)), float(_smirnov_decimal(n, x, slope=True))
        kappa = abs(q / (x * slope))
        assert abs(value - q) / abs(slope) / (x * 2.0 ** -53) <= 2 * (1 + kappa)


def test_smirnov_derivatives_are_the_sums():
    """smirnov' against the decimal sum's derivative; smirnovi' = 1 / smirnov'(smirnovi(p))."""
    rng = np.random.default_rng(3)
    for n in (4, 30):
        d = V.Variable(rng.uniform(0.01, 0.95, 10))
        slope = V.grad(V.sum(V.smirnov(n, d)), d).data
        exact = np.array([float(_smirnov_decimal(n, x, slope=True)) for x in d.data])
        np.testing.assert_allclose(slope, exact, rtol=1e-12)
        p = V.Variable(rng.uniform(0.01, 0.99, 10))
        root = V.smirnovi(n, p).data
        exact = np.array([float(_smirnov_decimal(n, x, slope=True)) for x in root])
        np.testing.assert_allclose(V.grad(V.sum(V.smirnovi(n, p)), p).data, 1 / exact, rtol=1e-12)


def test_smirnov_edges_sizes_and_orders():
    """SciPy's edges; arrays of n broadcast with d; a non-whole n refused naming the op; float32 in,
    float32 out."""
    d = np.array([0.0, 1.0, -0.1, 1.1, np.nan, 0.3])
    for n, expected in ((0, [np.nan] * 6), (-2, [np.nan] * 6), (1, [1.0, 0.0, np.nan, np.nan, np.nan, 0.7])):
        np.testing.assert_array_equal(V.smirnov(n, d).data, expected)
    np.testing.assert_array_equal(V.smirnovi(3, d).data[:5], [1.0, 0.0, np.nan, np.nan, np.nan])
    np.testing.assert_array_equal(V.smirnovi(1, np.array([0.25, 0.7])).data, [0.75, 0.30000000000000004])
    n, x = np.array([[3], [8]]), np.array([0.15, 0.4, 0.55])
    both = V.smirnov(n, x).data
    assert both.shape == (2, 3)
    np.testing.assert_array_equal(both[1], V.smirnov(8, x).data)
    np.testing.assert_array_equal(V.smirnovi([3, 8], 0.2).data,
                                  [V.smirnovi(3, 0.2).data, V.smirnovi(8, 0.2).data])
    for bad in (2.5, "5", V.Variable(np.array(3.0)), [2.5, 3]):
        with pytest.raises(TypeError, match=r"smirnov\(n, d\): the sample size n must be a whole number"):
            V.smirnov(bad, 0.3)
    with pytest.raises(TypeError, match=r"smirnovi\(n, p\): the sample size n"):
        V.smirnovi(0.5, 0.3)
    y = np.array([0.2, 0.6], np.float32)
    assert V.smirnov(7, y).dtype == np.float32 and V.smirnovi(7, y).dtype == np.float32


def test_smirnov_agrees_with_scipy_and_its_ufuncs_record():
    special = pytest.importorskip("scipy.special")
    d, p = np.linspace(0.001, 0.999, 101), np.linspace(0.001, 0.999, 101)
    for n in (1, 5, 60):
        np.testing.assert_allclose(V.smirnov(n, d).data, special.smirnov(n, d), rtol=1e-12)
        np.testing.assert_allclose(V.smirnovi(n, p).data, special.smirnovi(n, p), rtol=1e-13)
    for name, values in (("smirnov", d), ("smirnovi", p)):
        recorded = getattr(special, name)(5, V.Variable(values))
        assert isinstance(recorded, V.Variable) and recorded.creator is not None


def test_smirnov_the_host_reads_its_terms_and_steps(monkeypatch):
    """The CPU sums the terms its smallest d needs and stops smirnovi's steps once settled; the
    device's n - 1 terms and fixed steps give the same values to a few ulps, and so do pieces of
    entries (the forward pass's memory bound)."""
    rng = np.random.default_rng(5)
    d = rng.uniform(0.05, 0.95, 30)
    p = np.concatenate([rng.uniform(0, 1, 20), 10.0 ** rng.uniform(-200, -1, 10)])
    read = V.smirnov(50, d).data, V.smirnovi(50, p).data
    monkeypatch.setattr(ks_distribution, "READ_STEPS", False)
    np.testing.assert_allclose(V.smirnov(50, d).data, read[0], rtol=4e-15)
    np.testing.assert_allclose(V.smirnovi(50, p).data, read[1], rtol=4e-15)
    monkeypatch.setattr(ks_distribution, "_CHUNK", 200)                # (pieces of four entries)
    np.testing.assert_allclose(V.smirnov(50, d).data, read[0], rtol=4e-15)


def test_smirnov_on_the_device_without_a_sync(gpu, count_syncs, monkeypatch):
    monkeypatch.setattr(ks_distribution, "READ_STEPS", False)   # (the host takes the device's terms, steps)
    d = np.array([-1.0, 0.0, 0.05, 0.3, 0.55, 0.99, 1.0, np.nan])
    assert device_equals_host(lambda x: V.smirnov(9, x), (d,), count_syncs).count == 0
    p = np.array([0.0, 1e-200, 0.2, 0.7, 0.999, 1.0, np.nan])
    assert device_equals_host(lambda x: V.smirnovi(9, x), (p,), count_syncs).count == 0
    x = np.array([-0.2, 0.0, 0.01, 0.1, 0.4, 0.9, 1.0, np.nan])      # (V.stats.ksone: its branches)
    for method in ("pdf", "logpdf", "cdf", "sf"):
        one = getattr(V.stats.ksone, method)
        assert device_equals_host(lambda z, one=one: one(z, 9), (x,), count_syncs).count == 0
    q = np.array([-0.1, 0.0, 1e-200, 0.05, 0.4, 0.9, 1.0, np.nan])   # (ppf: either side of F(1/n))
    assert device_equals_host(lambda z: V.stats.ksone.ppf(z, 9), (q,), count_syncs).count == 0


def test_ksone_ppf_below_the_cdf_at_1_over_n_has_its_taylor_series():
    """KsoneLowQuantile's Taylor rule (z' = q' / F'(z), F'(z) = (1 + z)^(n - 2) (1 + n z)) against
    nested reverse mode, to sixth order, for n = 1, 2 and 30."""
    for n, top in ((1, 0.9), (2, 0.7), (30, 0.08)):
        q = np.linspace(1e-4, top, 4)
        assert V.taylorcheck(lambda p, n=n: V.stats.ksone.ppf(p, n), q, order=6)
