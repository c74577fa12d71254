"""erf and erfc (variable/ops/special.py): the table rows (third order, Taylor mode to sixth),
then their values against Python's math.erf/math.erfc to a few ulps of relative precision, from
erf's smallest values to erfc's far tail, and SciPy's ufuncs recording them."""

import math

import numpy as np
import pytest
from op_rows import SMOOTH, UNARY_SHAPES, Row, normal, table_tests, unary_rows

import variable as V

reference_erf = np.vectorize(math.erf, otypes=[np.float64])
reference_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def wide(*shapes):
    """Points in [-4, 4]: both formulas (the series inside, the continued fraction outside)."""
    return lambda rng: tuple(rng.uniform(-4.0, 4.0, s) for s in shapes)


def across_the_split(*shapes):
    """Points by |x| = 1 and 2, where each op passes from its series to its fraction."""
    def sample(rng):
        return tuple(rng.choice([-1.0, 1.0], s) * (rng.choice([1.0, 2.0], s) + rng.uniform(-0.05, 0.05, s))
                     for s in shapes)
    return sample


def rows(fn, ref):
    return (unary_rows(fn, ref, normal, SMOOTH)
            + [Row(f"wide, {s}", fn, ref, wide(s), SMOOTH) for s in UNARY_SHAPES]
            + [Row(f"across the split, {s}", fn, ref, across_the_split(s), SMOOTH) for s in UNARY_SHAPES])


ROWS = {
    "erf": rows(V.erf, reference_erf),
    "erfc": rows(V.erfc, reference_erfc),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


POINTS = np.concatenate([np.linspace(-6.0, 27.0, 3301), [-1e-10, 1e-300, 0.0, -0.0, 0.99999, 1.99999]])


def test_erf_to_full_relative_precision_down_to_its_smallest_values():
    expected = reference_erf(POINTS)
    got = V.erf(POINTS).data
    nonzero = expected != 0
    assert np.max(np.abs(got - expected)[nonzero] / np.abs(expected[nonzero])) < 4e-15
    np.testing.assert_array_equal(got[~nonzero], expected[~nonzero])


def test_erfc_keeps_its_right_tail_to_full_relative_precision():
    expected = reference_erfc(POINTS)
    got = V.erfc(POINTS).data
    normal_range = expected > 1e-300   # (below it the reference is subnormal; the worst, 4.2e-15,
    assert np.max(np.abs(got - expected)[normal_range] / expected[normal_range]) < 1e-14  # at 1-)
    assert V.erfc(np.array(10.0)).data == pytest.approx(2.088487583762545e-45, rel=1e-14)
    assert 1 - V.erf(np.array(10.0)).data == 0.0   # what erfc(x) = 1 - erf(x) would give


def test_limits_and_nan():
    x = np.array([np.inf, -np.inf, 40.0, -40.0, np.nan])
    np.testing.assert_array_equal(V.erf(x).data[:4], [1.0, -1.0, 1.0, -1.0])
    np.testing.assert_array_equal(V.erfc(x).data[:4], [0.0, 2.0, 0.0, 2.0])
    assert np.isnan(V.erf(x).data[4]) and np.isnan(V.erfc(x).data[4])


def test_float32_data_gives_float32_results():
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    for op, ref in [(V.erf, reference_erf), (V.erfc, reference_erfc)]:
        y = op(x)
        assert y.dtype == np.float32
        np.testing.assert_allclose(y.data, ref(x.astype(np.float64)), rtol=2e-7, atol=1e-7)


def test_derivatives_are_the_gaussian_density_to_any_order():
    x = V.Variable(np.array([-0.7, 0.2, 2.5]))
    d1 = V.grad(V.sum(V.erf(x)), x, create_graph=True)
    np.testing.assert_allclose(d1.data, 2 / math.sqrt(math.pi) * np.exp(-x.data ** 2), rtol=1e-15)
    d2 = V.grad(V.sum(d1), x)
    np.testing.assert_allclose(d2.data, -4 * x.data / math.sqrt(math.pi) * np.exp(-x.data ** 2), rtol=1e-14)
    density = 2 / math.sqrt(math.pi) * np.exp(-x.data ** 2)
    np.testing.assert_allclose(V.grad(V.sum(V.erfc(x)), x).data, -density)


def test_scipys_erf_and_erfc_on_a_variable_record_the_ops():
    special = pytest.importorskip("scipy.special")
    x = V.Variable(np.array([-1.2, 0.3, 2.7]))
    for scipys, ours in [(special.erf, V.erf), (special.erfc, V.erfc)]:
        y = scipys(x)
        assert isinstance(y, V.Variable) and y.creator is not None
        np.testing.assert_allclose(y.data, scipys(x.data), rtol=1e-14)
        np.testing.assert_allclose(V.grad(V.sum(y), x).data, V.grad(V.sum(ours(x)), x).data)
