"""Reductions beyond the table: ties, stability, population variance, methods, bad input."""

import warnings

import numpy as np
import pytest
from variable_checks import assert_message as _assert_message
from variable_checks import normal as _normal

import variable as V

REDUCTIONS = {
    "sum": (V.sum, np.sum),
    "mean": (V.mean, np.mean),
    "variance": (V.variance, np.var),
    "max": (V.max, np.max),
    "min": (V.min, np.min),
    "logsumexp": (V.logsumexp, np.logaddexp.reduce),
}

AXES = [None, 0, -1, (0, 2), (2, -3), (1,), ()]


# ----- shapes: axis and keepdims like NumPy ----------------------------------------

@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=[repr(a) for a in AXES])
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_axis_and_keepdims_like_numpy(name, axis, keepdims):
    op, reference = REDUCTIONS[name]
    data = _normal((2, 3, 4))
    x = V.Variable(data)
    y = op(x, axis=axis, keepdims=keepdims)
    if name == "logsumexp":       # logaddexp.reduce takes one axis at a time
        expected = data
        for a in sorted(range(3) if axis is None else np.atleast_1d(np.array(axis, int)) % 3, reverse=True):
            expected = np.logaddexp.reduce(expected, axis=a, keepdims=True)
        if not keepdims:
            gone = range(3) if axis is None else [a % 3 for a in np.atleast_1d(np.array(axis, int))]
            expected = expected.reshape([n for i, n in enumerate(data.shape) if i not in gone])
    else:
        expected = reference(data, axis=axis, keepdims=keepdims)
    assert y.shape == np.shape(expected)
    np.testing.assert_allclose(y.data, expected, rtol=1e-12, atol=1e-12)
    y.backward()
    assert x.grad.shape == x.shape


@pytest.mark.parametrize(
    ("method", "function"),
    [
        (lambda x, **k: x.sum(**k), V.sum),
        (lambda x, **k: x.mean(**k), V.mean),
        (lambda x, **k: x.max(**k), V.max),
        (lambda x, **k: x.min(**k), V.min),
    ],
    ids=["sum", "mean", "max", "min"],
)
@pytest.mark.parametrize(("axis", "keepdims"), [(None, False), (1, True), ((0, -1), False), (-2, True)])
def test_methods_equal_functions(method, function, axis, keepdims):
    data = _normal((2, 3, 4))
    x = V.Variable(data)
    y = method(x, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(y.data, function(V.Variable(data), axis=axis, keepdims=keepdims).data)
    gy = _normal(y.shape, seed=1)
    np.testing.assert_allclose(
        V.grad(y, x, grad_outputs=gy).data,
        V.grad(function(x, axis, keepdims), x, grad_outputs=gy).data,
    )


def test_positional_axis_on_methods():
    x = V.Variable(_normal((2, 3)))
    np.testing.assert_allclose(x.sum(0).data, x.data.sum(0))
    np.testing.assert_allclose(x.mean(1, True).data, x.data.mean(1, keepdims=True))


# ----- gradients written out -------------------------------------------------------

def test_sum_and_mean_gradients():
    x = V.Variable(_normal((2, 3, 4)))
    gy = _normal((3,), seed=1)
    expected = np.empty((2, 3, 4))
    for i, j, k in np.ndindex(2, 3, 4):
        expected[i, j, k] = gy[j]
    np.testing.assert_allclose(V.grad(V.sum(x, axis=(0, 2)), x, grad_outputs=gy).data, expected)
    np.testing.assert_allclose(V.grad(V.mean(x, axis=(0, 2)), x, grad_outputs=gy).data, expected / 8)


def test_variance_is_the_population_variance():
    x = V.Variable(np.array([1.0, 2.0, 3.0, 4.0]))
    y = V.variance(x)
    np.testing.assert_allclose(y.data, 1.25)                 # mean 2.5, squared deviations sum to 5, / 4
    y.backward()
    np.testing.assert_allclose(x.grad.data, [-0.75, -0.25, 0.25, 0.75])   # 2 (x - mean) / n


def test_variance_over_rows_matches_ddof_0():
    data = _normal((3, 5))
    y = V.variance(V.Variable(data), axis=1)
    np.testing.assert_allclose(y.data, data.var(axis=1, ddof=0), rtol=1e-12)
    assert not np.allclose(y.data, data.var(axis=1, ddof=1))


def test_variance_second_derivative():
    """d^2 var / dx_i dx_j = 2 (delta_ij - 1/n) / n."""
    n = 4
    H = V.hessian(V.variance, _normal((n,)))
    np.testing.assert_allclose(H.data, 2 * (np.eye(n) - 1 / n) / n, atol=1e-12)


@pytest.mark.parametrize(
    ("op", "data", "expected"),
    [
        (V.max, [1.0, 3.0, 3.0], [0.0, 0.5, 0.5]),
        (V.min, [1.0, 1.0, 3.0], [0.5, 0.5, 0.0]),
        (V.max, [2.0, 2.0, 2.0, 2.0], [0.25] * 4),
        (V.min, [-1.0, 5.0, -1.0, -1.0], [1 / 3, 0.0, 1 / 3, 1 / 3]),
        (V.max, [0.0, 7.0, -2.0], [0.0, 1.0, 0.0]),
    ],
)
def test_ties_split_the_gradient_evenly(op, data, expected):
    x = V.Variable(np.array(data))
    op(x).backward()
    np.testing.assert_allclose(x.grad.data, expected, rtol=1e-15)


def test_ties_along_an_axis_with_keepdims_and_incoming_gradient():
    x = V.Variable(np.array([[1.0, 4.0, 4.0], [5.0, 0.0, 5.0], [2.0, 2.0, 2.0]]))
    y = V.max(x, axis=1, keepdims=True)
    np.testing.assert_allclose(y.data, [[4.0], [5.0], [2.0]])
    gy = np.array([[2.0], [-4.0], [3.0]])
    gx = V.grad(y, x, grad_outputs=gy)
    np.testing.assert_allclose(gx.data, [[0.0, 1.0, 1.0], [-2.0, 0.0, -2.0], [1.0, 1.0, 1.0]])


def test_ties_over_an_axis_tuple():
    data = np.zeros((2, 2, 3))
    data[0, 1, 2] = data[1, 0, 2] = -1.0          # two tied minima in column 2
    data[1, 1, 0] = -3.0                          # a single minimum in column 0
    x = V.Variable(data)
    y = V.min(x, axis=(0, -2))
    np.testing.assert_allclose(y.data, [-3.0, 0.0, -1.0])
    y.backward()
    expected = np.zeros((2, 2, 3))
    expected[1, 1, 0] = 1.0
    expected[:, :, 1] = 0.25
    expected[0, 1, 2] = expected[1, 0, 2] = 0.5
    np.testing.assert_allclose(x.grad.data, expected)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("op", [V.max, V.min, V.nanmax, V.nanmin])
def test_an_infinite_gradient_reaches_the_extremes_alone(op, create_graph):
    """sqrt at 0 sends inf to the extreme of its slice; the other entries get exactly 0 (not
    inf * 0 = NaN), in gradients recorded or not, and ties share the inf."""
    sign = 1.0 if op in (V.max, V.nanmax) else -1.0
    x = V.Variable(sign * np.array([[0.0, -1.0, 0.0], [-2.0, -3.0, -1.5]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)         # (sqrt's own, at 0)
        y = V.sqrt(sign * op(x, axis=1) + np.array([0.0, 1.5]))
        gx = V.grad(V.sum(y), x, create_graph=create_graph)
    assert not np.isnan(gx.data).any()
    np.testing.assert_array_equal(gx.data[0], sign * np.array([np.inf, 0.0, np.inf]))
    np.testing.assert_array_equal(gx.data[1, :2], [0.0, 0.0])
    assert gx.data[1, 2] == np.inf * sign


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_keeps_the_gradient_in_the_input_dtype(dtype):
    x = V.Variable(np.array([[1.0, 2.0, 2.0], [0.5, 0.0, 0.25]], dtype=dtype))
    gx = V.grad(V.sum(V.max(x, axis=1) * 3), x)
    assert gx.dtype == dtype
    np.testing.assert_allclose(gx.data, [[0.0, 1.5, 1.5], [3.0, 0.0, 0.0]], rtol=1e-7)


def test_max_second_derivative_is_zero():
    x = V.Variable(np.array([0.3, -1.0, 2.0]))
    g = V.grad(V.max(x), x, create_graph=True)
    np.testing.assert_allclose(g.data, [0.0, 0.0, 1.0])
    gg = V.grad(V.sum(g * g), x, allow_unused=True)
    assert gg is None or np.all(gg.data == 0)


def test_max_of_a_product_to_second_order():
    """max(x * x): gradient 2 x at the argmax only, second derivative 2 there."""
    x = V.Variable(np.array([1.0, 3.0, 2.0]))
    y = V.max(x * x)                              # x1^2 wins
    g = V.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.data, [0.0, 6.0, 0.0])
    np.testing.assert_allclose(V.grad(V.sum(g), x).data, [0.0, 2.0, 0.0])


# ----- logsumexp stability ---------------------------------------------------------

@pytest.mark.parametrize(
    "data",
    [[1000.0, -1000.0], [1000.0, 1000.0], [-1000.0, -1000.0], [1000.0, 999.0, -5.0], [-np.inf, 0.0, 1.0]],
)
def test_logsumexp_is_stable(data):
    data = np.array(data)
    x = V.Variable(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = V.logsumexp(x)
        y.backward()
    assert np.isfinite(y.data)
    np.testing.assert_allclose(y.data, np.logaddexp.reduce(data), rtol=1e-12)
    assert np.all(np.isfinite(x.grad.data))
    m = data.max()
    softmax = np.exp(data - m) / np.sum(np.exp(data - m))
    np.testing.assert_allclose(x.grad.data, softmax, rtol=1e-12, atol=1e-300)


def test_logsumexp_stable_rows():
    data = np.array([[1000.0, -1000.0, 999.0], [-800.0, -801.0, -1000.0]])
    x = V.Variable(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = V.logsumexp(x, axis=-1, keepdims=True)
        g = V.grad(V.sum(y), x, create_graph=True)
        V.sum(g * g).backward()
    np.testing.assert_allclose(y.data[:, 0], np.logaddexp.reduce(data, axis=-1), rtol=1e-12)
    assert np.all(np.isfinite(g.data)) and np.all(np.isfinite(x.grad.data))
    np.testing.assert_allclose(g.data.sum(axis=1), [1.0, 1.0], rtol=1e-12)


def test_logsumexp_gradcheck_at_large_inputs():
    data = np.array([[1000.0, 999.5, 998.0], [-1000.0, -1000.2, -999.9]])
    assert V.gradcheck(lambda x: V.logsumexp(x, axis=1), data, order=3)


def test_logsumexp_of_an_all_minus_inf_row_is_minus_inf():
    data = np.array([[-np.inf, -np.inf], [0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = V.Variable(data)
        y = V.logsumexp(x, axis=1)
        y.backward()
    np.testing.assert_allclose(y.data, [-np.inf, np.log(2.0)])
    np.testing.assert_allclose(x.grad.data, [[0.0, 0.0], [0.5, 0.5]])


def test_float32_preserved():
    data = _normal((2, 3, 4), dtype=np.float32)
    for name, (op, _) in REDUCTIONS.items():
        x = V.Variable(data)
        y = op(x, axis=(0, 2), keepdims=name in ("max", "variance"))
        assert y.dtype == np.float32, name
        g = V.grad(V.sum(y * y), x, create_graph=True)
        assert g.dtype == np.float32, name
        V.sum(g * g).backward()
        assert x.grad.dtype == np.float32, name


# ----- bad input -------------------------------------------------------------------

@pytest.mark.parametrize("name", list(REDUCTIONS))
@pytest.mark.parametrize("axis", [2, -3, (0, 5)])
def test_axis_out_of_range(name, axis):
    op, _ = REDUCTIONS[name]
    with pytest.raises(ValueError) as error:
        op(V.Variable(np.zeros((2, 3))), axis=axis)
    _assert_message(error, name, "out of range", (2, 3))


@pytest.mark.parametrize("name", list(REDUCTIONS))
@pytest.mark.parametrize("axis", [(0, 0), (1, -1)])
def test_repeated_axis(name, axis):
    op, _ = REDUCTIONS[name]
    with pytest.raises(ValueError) as error:
        op(V.Variable(np.zeros((2, 3))), axis=axis)
    _assert_message(error, name, "repeated")


@pytest.mark.parametrize("axis", [(0, 0), (1, -1)])
@pytest.mark.parametrize("name", ["sum", "mean", "max"])
def test_repeated_axis_names_the_shape(name, axis):
    op, _ = REDUCTIONS[name]
    with pytest.raises(ValueError) as error:
        op(V.Variable(np.zeros((2, 3))), axis=axis)
    _assert_message(error, name, (2, 3))


@pytest.mark.parametrize("name", list(REDUCTIONS))
@pytest.mark.parametrize("axis", [1.5, "0", True])
def test_axis_of_a_wrong_type(name, axis):
    op, _ = REDUCTIONS[name]
    with pytest.raises(TypeError) as error:
        op(V.Variable(np.zeros((2, 3))), axis=axis)
    _assert_message(error, name)


# ----- empty axes: PyTorch's answers, without NumPy's warnings ------------------------------
EMPTY_CASES = [((0, 3), 0, False), ((0, 3), 0, True), ((3, 0), 1, False), ((3, 0), -1, True),
               ((3, 0), None, False), ((2, 0, 4), (0, 1), False), ((2, 0, 4), None, True)]
EMPTY_VALUE = {"sum": 0.0, "mean": np.nan, "variance": np.nan, "logsumexp": -np.inf}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, axis, keepdims", EMPTY_CASES, ids=repr)
@pytest.mark.parametrize("name", list(EMPTY_VALUE))
def test_reducing_an_empty_axis(name, shape, axis, keepdims, dtype):
    """sum 0, mean and variance NaN, logsumexp -inf (PyTorch); empty gradients to order 2."""
    op = REDUCTIONS[name][0]
    x = V.Variable(np.zeros(shape, dtype=dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = op(x, axis=axis, keepdims=keepdims)
        g = V.grad(V.sum(y * 2.0), x, create_graph=True)
        g2 = V.grad(V.sum(g * g), x, materialize_grads=True)
    expected_shape = np.sum(np.zeros(shape), axis=axis, keepdims=keepdims).shape   # NumPy's shape
    assert y.shape == expected_shape and y.dtype == dtype
    np.testing.assert_array_equal(y.data, np.full(expected_shape, EMPTY_VALUE[name]))
    assert g.shape == g2.shape == shape and g.dtype == g2.dtype == dtype


@pytest.mark.parametrize("name", ["mean", "variance", "logsumexp"])
def test_an_empty_axis_elsewhere_leaves_the_others_alone(name):
    """Reducing a non-empty axis of an array with an empty one gives an empty result."""
    op = REDUCTIONS[name][0]
    x = V.Variable(np.zeros((0, 3)))
    y = op(x, axis=1)
    assert y.shape == (0,)
    y.backward()
    assert x.grad.shape == (0, 3)


def test_mean_of_nothing_is_nan_for_integer_data_too():
    y = V.mean(V.Variable(np.zeros((2, 0), dtype=np.int64), requires_grad=False), axis=1)
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y.data, [np.nan, np.nan])


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("shape, axis", [((0, 3), 0), ((3, 0), 1), ((3, 0), None), ((2, 0, 4), (1, 2))])
def test_max_and_min_over_an_empty_axis_raise(name, shape, axis):
    """An empty slice has no extreme: a ValueError naming op and shape (NumPy, PyTorch refuse too)."""
    op, _ = REDUCTIONS[name]
    with pytest.raises(ValueError) as error:
        op(V.Variable(np.zeros(shape)), axis=axis)
    _assert_message(error, name, shape, "empty axis")


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min_along_a_non_empty_axis_of_an_empty_array(name):
    op, _ = REDUCTIONS[name]
    x = V.Variable(np.zeros((0, 3)))
    y = op(x, axis=1, keepdims=True)
    assert y.shape == (0, 1)
    y.backward()
    assert x.grad.shape == (0, 3)


def test_sum_of_an_empty_axis_is_zero():
    x = V.Variable(np.zeros((0, 3)))
    y = V.sum(x, axis=0)
    np.testing.assert_allclose(y.data, np.zeros(3))
    y.backward()
    assert x.grad.shape == (0, 3)


# ----- NumPy's where= and initial= ------------------------------------------------------
def test_numpy_where_and_initial_record_the_op():
    a = np.array([[0.5, -1.0, 2.0], [3.0, -0.25, 1.0]])
    keep = a > 0
    x = V.Variable(a)
    checks = [
        (np.sum(x, where=keep), np.sum(a, where=keep)),
        (np.sum(x, axis=1, where=keep, initial=2.0), np.sum(a, axis=1, where=keep, initial=2.0)),
        (np.mean(x, axis=1, where=keep[0]), np.mean(a, axis=1, where=keep[0])),
        (np.max(x, initial=5.0), np.max(a, initial=5.0)),
        (np.amin(x, axis=1, where=keep, initial=9.0), np.amin(a, axis=1, where=keep, initial=9.0)),
        (x.max(axis=0, where=keep, initial=-1.0), a.max(axis=0, where=keep, initial=-1.0)),
        (np.add.reduce(x, axis=1, where=keep, initial=0.5),
         np.add.reduce(a, axis=1, where=keep, initial=0.5)),
    ]
    for y, expected in checks:
        assert isinstance(y, V.Variable)
        np.testing.assert_allclose(y.data, expected)
    y = np.sum(x * x, where=keep, initial=1.0)
    y.backward()
    np.testing.assert_allclose(x.grad.data, np.where(keep, 2 * a, 0.0))   # only the kept entries


def test_mean_of_an_empty_selection_is_nan_with_zero_gradient_and_no_warning():
    # pytest turns RuntimeWarnings into errors here: NumPy itself warns "Mean of empty slice"
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    x = V.Variable(a)
    y = V.mean(x, axis=1, where=np.array([[True, False], [False, False]]))
    np.testing.assert_array_equal(y.data, [1.0, np.nan])
    V.sum(V.where(np.isnan(y.data), 0.0, y)).backward()
    np.testing.assert_array_equal(x.grad.data, [[1.0, 0.0], [0.0, 0.0]])   # no NaN leaks


def test_extremum_where_nothing_is_selected_gives_initial_and_no_gradient():
    x = V.Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))
    y = V.max(x, axis=1, where=np.array([[False, False], [True, False]]), initial=0.0)
    np.testing.assert_array_equal(y.data, [0.0, 3.0])
    V.sum(y).backward()
    np.testing.assert_array_equal(x.grad.data, [[0.0, 0.0], [1.0, 0.0]])


def test_extremum_of_an_empty_axis_with_initial_is_initial():
    x = V.Variable(np.zeros((0, 3)))
    for op in (V.max, V.min, np.max, np.min):
        y = op(x, axis=0, initial=2.5)
        np.testing.assert_array_equal(y.data, np.full(3, 2.5))
    assert V.sum(V.Variable(np.zeros(0)), initial=1.5).item() == 1.5


def test_initial_takes_the_dtype_of_integer_and_boolean_data_as_in_numpy():
    ints, bools = np.array([1, 2]), np.array([True, False])
    for op, data, initial in [("sum", ints, 0.5), ("max", ints, 2.5), ("min", bools, 0.5),
                              ("sum", bools, 0.5), ("prod", ints, 1.5), ("nanmax", ints, 2.5),
                              ("nansum", bools, 0.5)]:
        got, expected = getattr(V, op)(data, initial=initial).data, getattr(np, op)(data, initial=initial)
        assert got.dtype == np.asarray(expected).dtype and got == expected, op


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint8, np.bool_, np.float32])
@pytest.mark.parametrize("op", ["max", "min"])
def test_extremum_where_keeps_integer_and_boolean_dtypes_as_numpy(op, dtype):
    data, mask = np.array([[1, 5, 3], [7, 2, 9]]).astype(dtype), np.array([True, False, True])
    got = getattr(V, op)(data, axis=1, where=mask, initial=2).data
    expected = getattr(np, op)(data, axis=1, where=mask, initial=2)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_initial_may_be_a_variable_and_gets_its_gradient():
    x = V.Variable(np.array([1.0, -2.0]))
    c = V.Variable(np.array(3.0))
    y = V.max(x, initial=c)
    y.backward()
    assert c.grad.item() == 1.0 and np.all(x.grad.data == 0.0)


@pytest.mark.parametrize("call, message", [
    (lambda x: np.max(x, where=x.data > 0), r"max\(\.\.\., where=\.\.\.\) needs initial= too"),
    (lambda x: V.min(x, axis=0, where=np.array([True, False, True])),
     r"min\(\.\.\., where=\.\.\.\) needs initial"),
    (lambda x: np.sum(x, where=np.ones((2, 3))),
     r"sum\(\.\.\., where=\.\.\.\): the mask must be boolean, got dtype float64"),
    (lambda x: V.mean(x, where=np.ones((3, 3), bool)),
     r"mask of shape \(3, 3\) does not broadcast to the input's shape \(2, 3\)"),
    (lambda x: V.sum(x, where=np.ones((1, 2, 3), bool)), r"mask of shape \(1, 2, 3\) does not broadcast"),
    (lambda x: V.sum(x, where=V.Variable(np.ones((2, 3)))), r"the mask is a Variable"),
    (lambda x: np.sum(x, initial=np.ones(2)), r"sum\(\.\.\., initial=\.\.\.\): initial must be a scalar"),
    (lambda x: np.max(x, initial=[1.0]), r"max\(\.\.\., initial=\.\.\.\): initial must be a scalar"),
    (lambda x: np.sum(x, dtype=np.float32),
     r"np\.sum\(x, dtype=\.\.\.\) on a Variable: dtype is not supported"),
])
def test_where_and_initial_refused_with_the_reason(call, message):
    x = V.Variable(np.arange(6.0).reshape(2, 3) - 2)
    with pytest.raises((TypeError, ValueError), match=message):
        call(x)
