"""0F1(; b; z) (variable/ops/hypergeometric.py) against its series in 70-digit decimals (to
|z| = 400, where the terms reach e^40 and cancel to the value for z < 0), the rows (third order,
Taylor mode to sixth), closed forms, the derivative, the edges, SciPy's values, and the device
path without a host sync."""

import math
import os
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import SMOOTH, Row, device_equals_host, table_tests

import variable as V


def _series(b, z):
    """sum_k z^k / ((b)_k k!) in 70 digits, to a term below 1e-60 of the largest."""
    with localcontext() as ctx:
        ctx.prec = 70
        t = Decimal(Fraction(float(z)).numerator) / Decimal(Fraction(float(z)).denominator)
        c = Decimal(Fraction(float(b)).numerator) / Decimal(Fraction(float(b)).denominator)
        term = total = largest = Decimal(1)
        k = 0
        while abs(term) > largest * Decimal(10) ** -60 or k < 5:
            term = term * t / ((c + k) * (k + 1))
            total += term
            largest = max(largest, abs(term))
            k += 1
        return total, largest


def reference(b):
    return np.vectorize(lambda z: float(_series(b, z)[0]), otypes=[np.float64])


ROWS = {"hyp0f1": [Row("b=2.5, |z| < 0.9", lambda z: V.hyp0f1(2.5, z), reference(2.5),
                       lambda rng: (rng.uniform(-0.9, 0.9, 3),), SMOOTH),
                   Row("b=-1.5, 3 < z < 20", lambda z: V.hyp0f1(-1.5, z), reference(-1.5),
                       lambda rng: (rng.uniform(3.0, 20.0, (2, 3)),), SMOOTH),
                   Row("b=0.7, -30 < z < -2", lambda z: V.hyp0f1(0.7, z), reference(0.7),
                       lambda rng: (rng.uniform(-30.0, -2.0, 3),), SMOOTH)]}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


@pytest.mark.parametrize("b", [0.5, 2.5, 1.0, 4.0, 0.3, -0.5, -1.5, -3.7, 12.25, 60.5])
def test_against_70_digits(b):
    """Within a few ulps of the series' largest term (the rounding a sum of its size carries, and
    the value's own scale where it oscillates, z < 0), at every |z| up to 400."""
    z = np.concatenate([np.linspace(-1, 1, 21), np.geomspace(1.0, 400.0, 30), -np.geomspace(1.0, 400.0, 40)])
    ours = V.backend.to_cpu(V.hyp0f1(b, z).data)
    sums = [_series(b, v) for v in z]
    exact = np.array([float(total) for total, _ in sums])
    scale = np.array([float(largest) for _, largest in sums])
    scale = np.where(z < 0, scale * np.exp(-2 * np.sqrt(np.abs(z))), np.abs(exact))   # (the envelope's size)
    scale = np.maximum(scale, np.abs(exact))
    bound = 4e-15 * (1 + np.sqrt(np.abs(z)))               # (2 sqrt|z|, the phase, carries its rounding)
    assert np.all(np.abs(ours - exact) <= bound * scale), np.max(np.abs(ours - exact) / (bound * scale))


def test_closed_forms():
    """0F1(; 1/2; -x^2/4) = cos x, 0F1(; 3/2; -x^2/4) = sin(x)/x, 0F1(; 1/2; x^2/4) = cosh x."""
    x = np.linspace(0.1, 30.0, 120)
    q = x * x / 4
    np.testing.assert_allclose(V.hyp0f1(0.5, -q).data, np.cos(x), rtol=0, atol=3e-14)
    np.testing.assert_allclose(V.hyp0f1(1.5, -q).data * x, np.sin(x), rtol=0, atol=3e-14)
    np.testing.assert_allclose(V.hyp0f1(0.5, q).data, np.cosh(x), rtol=2e-14)


def test_the_derivative_is_the_next_b_over_b():
    z = V.Variable(np.array([-25.0, -0.4, 0.0, 0.7, 8.0]))
    for b in (2.5, -0.5, 7.0):
        g, = V.grad(V.sum(V.hyp0f1(b, z)), [z], create_graph=True)
        np.testing.assert_allclose(g.data, V.hyp0f1(b + 1, z.data).data / b, rtol=1e-15)
        g2, = V.grad(V.sum(g), [z])
        np.testing.assert_allclose(g2.data, V.hyp0f1(b + 2, z.data).data / (b * (b + 1)), rtol=1e-15)


def test_edges_and_refusals():
    with np.errstate(all="raise"):
        values = V.hyp0f1(2.5, np.array([0.0, np.inf, -np.inf, np.nan])).data
        poles = V.hyp0f1(-2.0, np.array([0.5, 3.0])).data
    np.testing.assert_array_equal(values, [1.0, np.nan, np.nan, np.nan])
    np.testing.assert_array_equal(poles, [np.nan, np.nan])
    z = V.Variable(np.array([0.5]))
    with pytest.raises(TypeError, match=r"hyp0f1\(v, x\): v must be a real number, got a Variable"):
        V.hyp0f1(V.Variable(np.array(2.5)), z)
    with pytest.raises(ValueError, match=r"hyp0f1\(v, x\): an order beyond \|v\| = 170\.0 is not supported"):
        V.hyp0f1(200.5, z)
    table = V.hyp0f1(np.array([[0.5], [2.5]]), np.array([-3.0, 1.5]))
    np.testing.assert_array_equal(table.data[1], V.hyp0f1(2.5, np.array([-3.0, 1.5])).data)


@pytest.mark.skipif(os.environ.get("GENGRAD_DEVICE", "cpu") != "cpu", reason="SciPy's values, on the host")
def test_scipy_agrees_and_its_ufunc_records():
    special = pytest.importorskip("scipy.special")
    z = np.concatenate([np.linspace(-50, 50, 101), [300.0]])
    for b in (0.5, 2.5, -1.5, 10.25):
        theirs = special.hyp0f1(b, z)
        scale = np.maximum(np.abs(theirs), np.where(z < 0, np.abs(theirs).max() * 1e-3, 0.0))
        assert np.all(np.abs(V.hyp0f1(b, z).data - theirs) <= 1e-12 * scale), b
    recorded = special.hyp0f1(2.5, V.Variable(z))
    assert recorded.creator is not None
    np.testing.assert_array_equal(recorded.data, V.hyp0f1(2.5, z).data)
    assert math.isnan(special.hyp0f1(0, 1.0)) and np.isnan(V.hyp0f1(0, 1.0).data)


def test_on_the_device_without_a_sync(gpu, count_syncs):
    z = np.array([-300.0, -20.0, -1.0, -0.3, 0.0, 0.5, 1.0, 7.0, 500.0, np.inf, np.nan])
    for b in (2.5, -0.5, 3.0):
        assert device_equals_host(lambda t, b=b: V.hyp0f1(b, t), (z,), count_syncs).count == 0
