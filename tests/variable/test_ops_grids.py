"""The grids ops (meshgrid, broadcast_arrays) against NumPy: the table rows, then the rest.

Both return tuples of Variables (check_forward compares each with NumPy's); they are
composites of reshape and broadcast_to, linear, so checked to third order.  A constant
among the inputs keeps NumPy's dtype for it (float64 for a list of floats next to float32
data), so the rows holding one have no float32 pass.  Constants, dtypes, the keywords and
the refusals have tests of their own below.
"""

import numpy as np
import pytest
from op_rows import SMOOTH, Row, normal, table_tests

import variable as V

COORDINATES = [0.5, 1.0]      # a list: device-safe next to GPU data (made there)


def meshgrid_rows():
    rows = []
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            def fn(*xs, indexing=indexing, sparse=sparse):
                return V.meshgrid(*xs, indexing=indexing, sparse=sparse)

            def ref(*xs, indexing=indexing, sparse=sparse):
                return tuple(np.meshgrid(*xs, indexing=indexing, sparse=sparse))
            options = f"indexing={indexing}, sparse={sparse}"
            rows += [
                Row(f"{options}, (3,) (2,)", fn, ref, normal((3,), (2,)), SMOOTH),
                Row(f"{options}, (2,) (3,) (4,)", fn, ref, normal((2,), (3,), (4,)), SMOOTH),
            ]
    rows += [
        Row("one input (3,)", V.meshgrid, lambda x: tuple(np.meshgrid(x)), normal((3,)), SMOOTH),
        Row("() and (2, 2): flattened", V.meshgrid, lambda *xs: tuple(np.meshgrid(*xs)),
            normal((), (2, 2)), SMOOTH),
        Row("(0,) (3,)", V.meshgrid, lambda *xs: tuple(np.meshgrid(*xs)), normal((0,), (3,)), SMOOTH),
        Row("copy=False, (3,) (2,)", lambda *xs: V.meshgrid(*xs, copy=False),
            lambda *xs: tuple(np.meshgrid(*xs, copy=False)), normal((3,), (2,)), SMOOTH),
        Row("x and a constant list", lambda x: V.meshgrid(x, COORDINATES),
            lambda x: tuple(np.meshgrid(x, COORDINATES)), normal((3,)), SMOOTH, float32=False),
    ]
    return rows


def broadcast_arrays_rows():
    def ref(*xs):
        return tuple(np.broadcast_arrays(*xs))
    rows = [
        Row(" ".join(str(s) for s in shapes), V.broadcast_arrays, ref, normal(*shapes), SMOOTH)
        for shapes in [((2, 3), (3,)), ((3,), (2, 3)), ((2, 1), (1, 3)), ((), (2, 3)),
                       ((3,), (2, 1), ()), ((2, 3), (2, 3)), ((3,),), ((0, 3), (3,))]
    ]
    rows += [
        Row("subok=True, (2, 1) (3,)", lambda *xs: V.broadcast_arrays(*xs, subok=True), ref,
            normal((2, 1), (3,)), SMOOTH),
        Row("x and a constant list", lambda x: V.broadcast_arrays(x, [COORDINATES]),
            lambda x: ref(x, [COORDINATES]), normal((3, 1)), SMOOTH, float32=False),
    ]
    return rows


ROWS = {
    "meshgrid": meshgrid_rows(),
    "broadcast_arrays": broadcast_arrays_rows(),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


# ----- meshgrid ---------------------------------------------------------------------------
@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("copy", [True, False])
@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_meshgrid_shapes_and_values_as_numpy(indexing, sparse, copy, count):
    arrays = [np.arange(n, dtype=float) + 10 * n for n in (3, 2, 4)[:count]]
    grids = V.meshgrid(*[V.Variable(a) for a in arrays], indexing=indexing, sparse=sparse, copy=copy)
    expected = np.meshgrid(*arrays, indexing=indexing, sparse=sparse, copy=copy)
    assert type(grids) is tuple and len(grids) == len(expected)   # a tuple even where NumPy's is a list
    for g, e in zip(grids, expected):
        assert isinstance(g, V.Variable) and g.shape == e.shape
        np.testing.assert_array_equal(g.data, e)


def test_meshgrid_gradients_sum_over_the_broadcast_axes():
    b = np.array([-1.0, 4.0])
    x, y = V.Variable(np.array([1.0, 2.0, 3.0])), V.Variable(b)
    gx_, gy_ = V.meshgrid(x, y)                                    # (2, 3) each, "xy"
    w = np.arange(6.0).reshape(2, 3)
    g = V.grad([(gx_ * w).sum() + (gy_ * gy_ * w).sum()], [x, y])
    np.testing.assert_array_equal(g[0].data, w.sum(axis=0))        # x runs along the columns
    np.testing.assert_array_equal(g[1].data, 2 * b * w.sum(axis=1))
    gi, gj = V.meshgrid(x, y, indexing="ij")                       # (3, 2) each
    g = V.grad([(gi * w.T).sum() + (gj * w.T).sum()], [x, y])
    np.testing.assert_array_equal(g[0].data, w.T.sum(axis=1))
    np.testing.assert_array_equal(g[1].data, w.T.sum(axis=0))


def test_meshgrid_jvp_moves_each_grid_with_its_input():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([-1.0, 4.0])

    def first(x):
        return V.meshgrid(x, y)[0]
    value, dy = V.jvp(first, x, np.array([1.0, 0.0, -1.0]))
    np.testing.assert_array_equal(value.data, np.meshgrid(x, y)[0])
    np.testing.assert_array_equal(dy.data, [[1.0, 0.0, -1.0], [1.0, 0.0, -1.0]])


def test_meshgrid_constants_come_back_as_variables_without_grad():
    a = np.array([1.0, 2.0])
    gx, gc, gi = V.meshgrid(V.Variable(a), np.array([0.5, 1.5, 2.5]), [1, 2])
    assert gx.requires_grad and not gc.requires_grad and not gi.requires_grad
    assert gi.dtype == np.meshgrid(a, [1.0], [1, 2])[2].dtype == np.int64
    np.testing.assert_array_equal(gc.data, np.meshgrid(a, [0.5, 1.5, 2.5], [1, 2])[1])
    assert all(not g.requires_grad for g in V.meshgrid([1.0, 2.0], 3.0))


def test_meshgrid_through_numpy_records_the_ops():
    x, y = V.Variable(np.array([1.0, 2.0, 3.0])), V.Variable(np.array([0.5, 2.0]))
    X, Y = np.meshgrid(x, y)
    assert isinstance(X, V.Variable) and isinstance(Y, V.Variable)
    g = V.grad([(X * Y).sum()], [x, y])
    np.testing.assert_allclose(g[0].data, np.full(3, 2.5))          # sum of y
    np.testing.assert_allclose(g[1].data, np.full(2, 6.0))          # sum of x
    Xs, Ys = np.meshgrid(x, y, sparse=True, indexing="ij")
    assert (Xs.shape, Ys.shape) == ((3, 1), (1, 2))


def test_meshgrid_refusals():
    x = V.Variable(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="meshgrid: indexing must be 'xy' or 'ij', got 'yx'"):
        V.meshgrid(x, x, indexing="yx")
    with pytest.raises(ValueError, match="meshgrid: indexing must be 'xy' or 'ij', got None"):
        V.meshgrid(x, indexing=None)
    with pytest.raises(TypeError, match="meshgrid"):
        V.meshgrid(x, "ab")
    with pytest.raises(TypeError, match="meshgrid"):
        V.meshgrid(x, [1j])
    with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
        V.meshgrid(x, axis=0)


# ----- broadcast_arrays -------------------------------------------------------------------
def test_broadcast_arrays_gradients_sum_back_to_each_shape():
    a, b = V.Variable(np.array([[1.0], [2.0]])), V.Variable(np.array([3.0, 4.0, 5.0]))
    ya, yb = V.broadcast_arrays(a, b)
    assert ya.shape == yb.shape == (2, 3)
    ga, gb = V.grad([(ya * yb).sum()], [a, b])
    np.testing.assert_array_equal(ga.data, [[12.0], [12.0]])
    np.testing.assert_array_equal(gb.data, [3.0, 3.0, 3.0])


def test_broadcast_arrays_returns_an_input_of_the_common_shape_as_is():
    a, b = V.Variable(np.ones((2, 3))), V.Variable(np.ones(3))
    ya, yb = V.broadcast_arrays(a, b)
    assert ya is a and yb is not b                               # NumPy returns that array too
    assert V.broadcast_arrays() == ()


def test_broadcast_arrays_constants_and_dtypes_as_numpy():
    a = np.array([1.0, 2.0], dtype=np.float32)
    x = V.Variable(a)
    results = V.broadcast_arrays(x, 3, 2.5, [[1], [2]], np.array([True, False]))
    expected = np.broadcast_arrays(a, 3, 2.5, [[1], [2]], np.array([True, False]))
    for r, e in zip(results, expected):
        assert isinstance(r, V.Variable) and r.shape == e.shape == (2, 2) and r.dtype == e.dtype
        np.testing.assert_array_equal(r.data, e)
    assert results[0].requires_grad and not any(r.requires_grad for r in results[1:])
    assert V.grad(results[0].sum(), x).dtype == np.float32


def test_broadcast_arrays_through_numpy_records_the_ops():
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    y, c = np.broadcast_arrays(x, np.zeros((2, 1)))
    assert isinstance(y, V.Variable) and isinstance(c, V.Variable) and y.shape == (2, 3)
    np.testing.assert_array_equal(V.grad(y.sum(), x).data, [2.0, 2.0, 2.0])


def test_broadcast_arrays_refusals():
    with pytest.raises(ValueError, match=r"broadcast_arrays: shapes \(2,\), \(3,\) cannot be broadcast"):
        V.broadcast_arrays(V.Variable(np.ones(2)), np.ones(3))
    with pytest.raises(TypeError, match="broadcast_arrays"):
        V.broadcast_arrays(V.Variable(np.ones(2)), "ab")
    with pytest.raises(TypeError, match="unexpected keyword argument 'copy'"):
        V.broadcast_arrays(np.ones(2), copy=True)


# ----- on the device ----------------------------------------------------------------------
def test_grids_run_on_the_device(gpu):
    x = V.Variable(np.array([1.0, 2.0, 3.0])).to_gpu()
    y = V.Variable(np.array([0.5, 2.0])).to_gpu()
    X, Y = V.meshgrid(x, y)
    a, b = V.broadcast_arrays(x, V.reshape(y, (2, 1)))
    for r in (X, Y, a, b):
        assert r.device == "gpu" and r.shape == (2, 3)
    gx, gy = V.grad([(X * Y).sum() + (a * b).sum()], [x, y])
    assert gx.device == gy.device == "gpu"
    np.testing.assert_allclose(V.backend.to_cpu(gx.data), np.full(3, 5.0))
    np.testing.assert_allclose(V.backend.to_cpu(gy.data), np.full(2, 12.0))
    coefficients = V.taylor(lambda x: V.meshgrid(x, y)[0], x, V.Variable(np.ones(3)).to_gpu(), 2)
    assert all(c.device == "gpu" for c in coefficients)


def test_constants_next_to_device_data(gpu):
    x = V.Variable(np.array([1.0, 2.0, 3.0])).to_gpu()
    X, C = V.meshgrid(x, COORDINATES)                  # a list is made where the data is
    assert X.device == C.device == "gpu" and not C.requires_grad and C.dtype == np.float64
    a, n = V.broadcast_arrays(x, 2)
    assert n.device == "gpu" and n.dtype == np.int64 and n.shape == (3,)
    with pytest.raises(TypeError, match="broadcast_arrays: expected a constant input on the device"):
        V.broadcast_arrays(x, np.ones((2, 1)))        # a NumPy array would cross every call
