"""The spherical Bessel functions (variable/ops/spherical_bessel.py): spherical_jn, spherical_yn,
spherical_in and spherical_kn against references of our own in 80-digit decimals (j_n and i_n by
their power series, y_n by the recurrence upwards from -cos(x)/x and -cos(x)/x^2 - sin(x)/x,
k_n by its closed form), the rows (third order, Taylor mode to sixth), the derivatives and
`derivative=True`, the edges, SciPy's values, and the device path without a host sync."""

import math
import os
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import SMOOTH, Row, device_equals_host, table_tests
from test_ops_integrals import cos_sin, machin_pi

import variable as V

DIGITS = 80
PI = machin_pi(DIGITS + 10)


def _decimal(x):
    f = Fraction(float(x))
    return Decimal(f.numerator) / Decimal(f.denominator)


def _power_series(n, t, sign):
    """x^n sum_k (sign x^2 / 2)^k / (k! (2n + 2k + 1)!!): j_n (sign -1) or i_n (+1), |x| <= 45."""
    term = t ** n / math.prod(range(1, 2 * n + 2, 2))
    total, k = term, 0
    while abs(term) > Decimal(10) ** -(DIGITS - 5) * (abs(total) + Decimal(10) ** -300) or k < 4:
        k += 1
        term = term * sign * t * t / (2 * k * (2 * n + 2 * k + 1))
        total += term
    return total


def _one(kind, n, x):
    if x == 0:
        return {"j": 1.0 if n == 0 else 0.0, "i": 1.0 if n == 0 else 0.0, "y": -math.inf, "k": math.inf}[kind]
    with localcontext() as ctx:
        ctx.prec = DIGITS + 10
        t = _decimal(x)
        if kind in "ji":
            return float(_power_series(n, t, -1 if kind == "j" else 1))
        if kind == "k":                                  # (pi/2) e^-x / x sum_k (n+k)! / (k! (n-k)!) (2x)^-k
            total = sum((Decimal(math.factorial(n + k)) / (math.factorial(k) * math.factorial(n - k))
                         / (2 * t) ** k for k in range(n + 1)), Decimal(0))
            return float(PI / 2 * (-t).exp() / t * total)
        cos, sin = cos_sin(t)                            # y_0, y_1, then upwards (stable for y)
        before, now = -cos / t, -cos / (t * t) - sin / t
        if n == 0:
            return float(before)
        for m in range(1, n):
            before, now = now, (2 * m + 1) / t * now - before
        return float(now)


def reference(kind, n):
    return np.vectorize(lambda x: _one(kind, n, x), otypes=[np.float64])


def inside(low, high, shape=(3,)):
    return lambda rng: (rng.uniform(low, high, shape),)


_OPS = {"j": V.spherical_jn, "y": V.spherical_yn, "i": V.spherical_in, "k": V.spherical_kn}
# (j's and y's on the host alone: a device runs each region of J and Y, Miller's and Steed's steps,
# on every entry of every central difference; test_on_the_device_without_a_sync holds the device's
# values and gradients to the host's)
ROWS = {
    f"spherical_{kind}n": [Row(f"n={n}, {low} < x < {high}", lambda x, n=n, op=_OPS[kind]: op(n, x),
                               reference(kind, n), inside(low, high), SMOOTH, device=kind in "ik")
                           for n, low, high in ((0, 0.2, 1.9), (2, 3.0, 12.0), (5, 26.0, 40.0))]
    for kind in "jyik"
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


@pytest.mark.parametrize("kind", "jyik")
@pytest.mark.parametrize("n", [0, 1, 3, 10, 40])
def test_within_a_few_ulps_times_the_condition_number(kind, n):
    rng = np.random.default_rng(n + 100 * "jyik".index(kind))
    x = np.concatenate([rng.uniform(0.01, 2.0, 12), rng.uniform(2.0, 25.0, 20), rng.uniform(25.0, 45.0, 10),
                        np.geomspace(1e-6, 1e-2, 4)])
    if kind in "yk":
        x = x[x > 0.05 * n]                             # (|y|, k overflow toward 0 for large n)
    ours = V.backend.to_cpu(_OPS[kind](n, x).data)
    exact = reference(kind, n)(x)
    lower = reference(kind, n - 1)(x) if n else 0.0
    slope = np.abs(lower) + np.abs(reference(kind, n + 1)(x))
    scale = np.abs(x * slope) + np.abs(exact)
    assert np.all(np.abs(ours - exact) <= 8e-15 * scale), np.max(np.abs(ours - exact) / scale)


def test_the_closed_forms_and_the_parities():
    x = np.concatenate([np.geomspace(1e-3, 1e3, 80), -np.geomspace(1e-3, 1e3, 20)])
    a = np.abs(x)
    for ours, expected in ((V.spherical_jn(0, x).data, np.sin(x) / x),
                           (V.spherical_yn(0, a).data, -np.cos(a) / a)):
        assert np.all(np.abs(ours - expected) * a <= 4e-15), np.max(np.abs(ours - expected) * a)   # (of 1/x)
    x, a = x[a < 700], a[a < 700]
    np.testing.assert_allclose(V.spherical_in(0, x).data, np.sinh(x) / x, rtol=3e-15)
    np.testing.assert_allclose(V.spherical_kn(0, a).data, np.pi / 2 * np.exp(-a) / a, rtol=3e-15)
    t = np.array([0.3, 2.0, 17.0])
    for n in (1, 2, 5):
        for kind, sign in (("j", (-1) ** n), ("y", (-1) ** (n + 1)), ("i", (-1) ** n)):
            np.testing.assert_array_equal(_OPS[kind](n, -t).data, sign * _OPS[kind](n, t).data)


def test_the_derivatives_and_derivative_true():
    """z_n' by the op's gradient and by derivative=True (the neighbours' combination) agree with
    the recurrences with 1/x: j_n' = j_(n-1) - (n+1)/x j_n, i_n' = i_(n-1) - (n+1)/x i_n,
    k_n' = -k_(n-1) - (n+1)/x k_n; and at 0, j_1'(0) = i_1'(0) = 1/3."""
    x = V.Variable(np.array([0.4, 2.5, 13.0]))
    for kind, op in _OPS.items():
        for n in (1, 3):
            g, = V.grad(V.sum(op(n, x)), [x])
            flagged = op(n, x, derivative=True).data
            np.testing.assert_allclose(g.data, flagged, rtol=1e-15)
            lower, here = op(n - 1, x).data, op(n, x).data
            expected = {"j": lower - (n + 1) / x.data * here, "y": lower - (n + 1) / x.data * here,
                        "i": lower - (n + 1) / x.data * here, "k": -lower - (n + 1) / x.data * here}[kind]
            np.testing.assert_allclose(g.data, expected, rtol=1e-13)
    zero = V.Variable(np.zeros(1))
    assert V.grad(V.sum(V.spherical_jn(1, zero)), zero).data[0] == 1 / 3
    assert V.spherical_in(1, 0.0, derivative=True).data == 1 / 3
    with np.errstate(all="raise"):
        assert V.grad(V.sum(V.spherical_yn(0, zero)), zero).data[0] == np.inf


def test_edges():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -2.0])
    with np.errstate(all="raise"):
        values = {(kind, n): _OPS[kind](n, x).data for kind in "jyik" for n in (0, 1)}
    np.testing.assert_array_equal(values["j", 0][:5], [1.0, 1.0, 0.0, 0.0, np.nan])
    np.testing.assert_array_equal(values["j", 1][:5], [0.0, 0.0, 0.0, 0.0, np.nan])
    np.testing.assert_array_equal(values["y", 0][:5], [-np.inf, -np.inf, 0.0, 0.0, np.nan])
    np.testing.assert_array_equal(values["i", 1][:5], [0.0, 0.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(values["k", 0], [np.inf, np.inf, 0.0, np.nan, np.nan, np.nan])


def test_refusals_name_the_order():
    x = V.Variable(np.array([0.5]))
    whole = r"n must be a whole number from 0 to 255, got"
    with pytest.raises(ValueError, match=rf"spherical_jn\(n, x\): {whole} 1\.5"):
        V.spherical_jn(1.5, x)
    with pytest.raises(ValueError, match=rf"spherical_kn\(n, x\): {whole} -1"):
        V.spherical_kn(-1, x)
    with pytest.raises(TypeError, match=r"spherical_yn\(n, x\): n must be a whole number >= 0, got Variable"):
        V.spherical_yn(V.Variable(np.array(1.0)), x)
    with pytest.raises(TypeError, match=r"spherical_in\(n, x, derivative\): derivative must be True or "):
        V.spherical_in(1, x, "yes")


def test_an_array_of_orders_and_scipys_values():
    special = pytest.importorskip("scipy.special")
    x = np.linspace(0.5, 30.0, 7)
    orders = np.array([[0], [2], [7]])
    for kind, op in _OPS.items():
        ours = op(orders, x)
        assert ours.shape == (3, 7)
        theirs = getattr(special, f"spherical_{kind}n")(orders, x)
        np.testing.assert_allclose(ours.data, theirs, rtol=5e-14, atol=5e-16)
        theirs = getattr(special, f"spherical_{kind}n")(orders, x, derivative=True)
        np.testing.assert_allclose(op(orders, x, derivative=True).data, theirs, rtol=5e-14, atol=5e-16)


@pytest.mark.skipif(os.environ.get("GENGRAD_DEVICE", "cpu") != "cpu",
                    reason="on a device, NumPy refuses to convert device data before SciPy's code runs")
def test_scipys_own_function_on_a_variable_names_ours():
    special = pytest.importorskip("scipy.special")
    with pytest.raises(ValueError, match=r"scipy\.special\.spherical_jn: a Variable reached SciPy's code.*"
                                         r"V\.spherical_jn\(n, x, derivative\)"):
        special.spherical_jn(2, V.Variable(np.array([0.5])))


def test_on_the_device_without_a_sync(gpu, count_syncs):
    x = np.array([0.0, 1e-3, 1.5, 7.0, 24.0, 31.0, -4.0, np.inf, np.nan])
    for kind, op in _OPS.items():
        for n in (0, 3):
            points = np.abs(x) if kind == "k" else x
            assert device_equals_host(lambda t, op=op, n=n: op(n, t), (points,), count_syncs).count == 0
