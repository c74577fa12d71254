"""The Kolmogorov distribution (variable/ops/ks_distribution.py): kolmogorov and kolmogi, and the
CDF 1 - kolmogorov and its inverse (V.stats.kstwobign's cdf and ppf), against 60-digit sums of our
own (the alternating sum from x = 0.3, the theta form below), their rows
(third order, Taylor mode to sixth), the edges, the derivative, SciPy's values, and the device
path without a host sync."""

import math
import os
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import SMOOTH, Row, device_equals_host, table_tests
from test_ops_integrals import machin_pi

import variable as V
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


ROWS = {
    "kolmogorov": [Row("x in (0.2, 2.5)", V.kolmogorov, reference_kolmogorov,
                       lambda rng: (rng.uniform(0.2, 2.5, (2, 3)),), SMOOTH),
                   Row("x in (0.7, 0.95)", V.kolmogorov, reference_kolmogorov,
                       lambda rng: (rng.uniform(0.7, 0.95, 3),), SMOOTH)],
    "kolmogi": [Row("p in (0.02, 0.98)", V.kolmogi, reference_kolmogi,
                    lambda rng: (rng.uniform(0.02, 0.98, 3),), SMOOTH)],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)

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


def test_on_the_device_without_a_sync(gpu, count_syncs):
    x = np.array([-1.0, 0.0, 0.3, 0.82, 1.5, 30.0, np.inf, np.nan])
    assert device_equals_host(V.kolmogorov, (x,), count_syncs).count == 0
    p = np.array([0.0, 1e-200, 0.2, 0.7, 0.999, 1.0, np.nan])
    assert device_equals_host(V.kolmogi, (p,), count_syncs).count == 0
    assert device_equals_host(kolmogorov_complement, (x,), count_syncs).count == 0
    assert device_equals_host(kolmogi_complement, (p,), count_syncs).count == 0
