"""var, std, average, prod, cumsum, cumprod and trace against NumPy.

The table crosses shapes with axis None / int / negative / tuple, keepdims, ddof and empty
inputs.  prod and cumprod are also checked at points holding exact zeros (one and two in a
slice), where their gradients must be the products of the other entries without any
division: central differences are exact for these polynomials, so gradcheck to third order
is a sharp test there.  std's subgradient 0 at a constant slice, the refused keywords and
the error messages have tests of their own below the table.

NumPy's `where=` rows of var, std and prod mask with `x < 2.5` (the samplers put OUT = 3.0 at
the entries to leave out: a mask of the data itself, so those rows run on the device too),
alone or with a constant mask of a broadcasting shape; a row whose result holds inf or NaN
(count - ddof <= 0, nothing selected) ends in V.nan_to_num.  The gradient of the entries
left out must be exactly 0: gradcheck moves them too.
"""

import warnings

import numpy as np
import pytest
from op_rows import SMOOTH, Row, normal, positive, quiet, table_tests, with_zeros

import variable as V


def rows(fn, ref, cases, sampler, tag=""):
    """Rows of `fn(x, **kw)` against `ref(x, **kw)` for each (shape, kw) in `cases`."""
    return [
        Row(f"{tag}{shape} {kw}", lambda x, kw=kw: fn(x, **kw), lambda x, kw=kw: ref(x, **kw),
            sampler(shape), SMOOTH)
        for shape, kw in cases
    ]


def weighted(shape, weight_shape):
    """A point of `shape` and positive weights of `weight_shape`."""
    return lambda rng: normal(shape)(rng) + positive(weight_shape)(rng)


REDUCE_CASES = [
    ((), {}),
    ((3,), {}),
    ((2, 3), {}),
    ((2, 3), {"axis": 0}),
    ((2, 3), {"axis": -1, "keepdims": True}),
    ((2, 3), {"axis": (0, 1)}),
    ((2, 3, 2), {"axis": (0, 2), "keepdims": True}),
    ((2, 3, 2), {"axis": (-1, 0)}),
    ((0, 3), {"axis": 1}),
]
VAR_CASES = REDUCE_CASES + [
    ((2, 3), {"ddof": 1}),
    ((2, 3), {"axis": 1, "ddof": 1}),
    ((2, 3), {"axis": 0, "ddof": 1.5, "keepdims": True}),
    ((3,), {"correction": 1}),
]
PROD_CASES = REDUCE_CASES + [
    ((2, 3), {"axis": ()}),
    ((2, 3), {"axis": 1, "initial": 2.0}),
    ((0, 3), {"axis": 0}),
    ((0, 3), {}),
    ((4,), {}),
    ((1,), {}),
]
RUNNING_CASES = [
    ((), {}),
    ((), {"axis": 0}),
    ((3,), {}),
    ((2, 3), {}),
    ((2, 3), {"axis": 0}),
    ((2, 3), {"axis": 1}),
    ((2, 3), {"axis": -1}),
    ((2, 3, 2), {"axis": 1}),
    ((5,), {"axis": 0}),
    ((0, 3), {}),
    ((0, 3), {"axis": 1}),
]
TRACE_CASES = [
    ((3, 3), {}),
    ((2, 3), {"offset": 1}),
    ((2, 3), {"offset": -1}),
    ((2, 3), {"offset": 5}),
    ((2, 3, 4), {"axis1": 2, "axis2": 0, "offset": 1}),
    ((2, 3, 4), {"axis1": -1, "axis2": 1}),
    ((0, 3), {}),
]


OUT = 3.0      # what `masked` puts at the entries a where= row leaves out (its mask: x < 2.5)


def masked(shape, out=(), zeros=False):
    """Sampler: entries in [-1.5, 1.5] (every other one 0 if `zeros`), OUT at the flat
    positions `out`."""
    def sample(rng):
        x = rng.uniform(-1.5, 1.5, shape)
        if zeros:
            x.reshape(-1)[::2] = 0.0
        x.reshape(-1)[list(out)] = OUT
        return (x,)
    return sample


def _keep(x, also):
    """A where= row's mask: the entries below 2.5 (of Variable or array `x`), and `also`."""
    keep = x < 2.5
    return keep if also is None else keep & also


def where_rows(fn, ref, cases, zeros=False):
    """Rows of fn(x, where=x < 2.5 [& also], **kw) for each (shape, out, also, kw) in `cases`;
    a row whose reference holds inf or NaN ends in nan_to_num (those results count 0)."""
    out = []
    for shape, left_out, also, kw in cases:
        f = lambda x, kw=kw, also=also: fn(x, where=_keep(x, also), **kw)                  # noqa: E731
        r = lambda x, kw=kw, also=also: quiet(ref)(x, where=_keep(x, also), **kw)          # noqa: E731
        sample = masked(shape, left_out, zeros)
        label = f"{'zeros ' if zeros else ''}where {shape} out {list(left_out)} & {np.shape(also)} {kw}"
        if not np.isfinite(r(*sample(np.random.default_rng(0)))).all():
            f = lambda x, f=f, also=also: V.nan_to_num(f(x), posinf=0.0)   # noqa: E731 (also: seen by device_row)
            r = lambda x, r=r: np.nan_to_num(r(x), posinf=0.0)                             # noqa: E731
            label += ", inf/NaN results to 0"
        out.append(Row(label, f, r, sample, SMOOTH))
    return out


FIRST_AND_LAST = np.array([True, False, True, True])          # (4,): 3 of 4 along the last axis
VAR_WHERE_CASES = [   # no slice of exactly 2 selected entries: their std is linear (rounding noise)
    ((), (), None, {}),
    ((), (0,), None, {}),                                     # nothing selected: NaN
    ((4,), (1,), None, {}),
    ((2, 4), (0, 5), None, {"axis": 1}),
    ((2, 4), (), FIRST_AND_LAST, {"axis": -1, "keepdims": True}),
    ((3, 4), (6,), np.array([[True], [False], [True]]), {}),
    ((2, 3, 4), (5,), FIRST_AND_LAST, {"axis": (0, 2)}),
    ((2, 3, 4), (), np.array([[[True]], [[False]]]), {"axis": (-1, 1), "keepdims": True}),
    ((2, 3), (), np.zeros((2, 3), bool), {"axis": 0}),        # an all-False mask
    ((2, 4), (1,), None, {"axis": 1, "ddof": 1}),
    ((2, 4), (5,), None, {"axis": 1, "ddof": 1.5, "keepdims": True}),
    ((2, 4), (0, 1), None, {"axis": 1, "ddof": 2}),          # row 0: count - ddof = 0, inf
    ((3, 4), (0, 1, 2), None, {"axis": 1, "ddof": 3}),       # row 0: 1 - 3 < 0, NaN (0 / 0)
    ((3,), (), None, {"correction": 1}),
    ((0, 3), (), FIRST_AND_LAST[:3], {"axis": 1}),
]
PROD_WHERE_CASES = [
    ((), (), None, {}),
    ((), (0,), None, {}),                                     # nothing selected: 1
    ((3,), (1,), None, {}),
    ((2, 3), (0, 4), None, {"axis": 0}),
    ((2, 3), (), np.array([True, False, True]), {"axis": 1, "keepdims": True}),
    ((2, 3, 2), (3,), np.array([[True], [False], [True]]), {"axis": (0, 2)}),
    ((2, 3), (), np.zeros((2, 3), bool), {"initial": 2.0}),
    ((2, 3), (2,), None, {"axis": -1, "initial": 0.5}),
    ((4,), (0, 3), None, {}),
    ((0, 3), (), np.array([True, False, True]), {"axis": 1}),
]


def average_rows():
    """Without weights (the mean), with weights of a's shape, along one axis, along a tuple of
    axes in either order, and returned=True (the sum of the weights too)."""
    out = rows(V.average, np.average, REDUCE_CASES[:-1], normal, "no weights ")
    # NumPy itself fails with a ZeroDivisionError when the result is empty (a.size / avg.size
    # is 0 / 0); gengrad returns the empty mean
    out += rows(V.average, np.mean, REDUCE_CASES[-1:], normal, "no weights, empty result ")
    out += rows(lambda x, **kw: V.average(x, returned=True, **kw),
                lambda x, **kw: np.average(x, returned=True, **kw),
                [((2, 3), {"axis": 0}), ((2, 3), {"keepdims": True})], normal, "returned ")
    for shape, weight_shape, kw in [
        ((), (), {}),
        ((2, 3), (2, 3), {}),
        ((2, 3), (2, 3), {"axis": 1, "keepdims": True}),
        ((2, 3), (3,), {"axis": 1}),
        ((2, 3), (2,), {"axis": -2}),
        ((2, 3, 2), (2, 2), {"axis": (0, 2)}),
        ((2, 3, 2), (2, 2), {"axis": (2, 0), "keepdims": True}),
        ((2, 3), (3,), {"axis": 1, "returned": True}),
        ((2, 3), (2, 3), {"axis": 0, "returned": True, "keepdims": True}),
    ]:
        out.append(Row(
            f"weights {shape}x{weight_shape} {kw}",
            lambda x, w, kw=kw: V.average(x, weights=w, **kw),
            lambda x, w, kw=kw: np.average(x, weights=w, **kw),
            weighted(shape, weight_shape),
            SMOOTH,
        ))
    return out


ROWS = {
    "var": rows(V.var, np.var, VAR_CASES, normal) + where_rows(V.var, np.var, VAR_WHERE_CASES),
    "std": rows(V.std, np.std, VAR_CASES, normal) + where_rows(V.std, np.std, VAR_WHERE_CASES),
    "average": average_rows(),
    "prod": rows(V.prod, np.prod, PROD_CASES, normal)
    + rows(V.prod, np.prod, PROD_CASES, with_zeros, "zeros ")
    + where_rows(V.prod, np.prod, PROD_WHERE_CASES)
    + where_rows(V.prod, np.prod, PROD_WHERE_CASES, zeros=True),
    "cumsum": rows(V.cumsum, np.cumsum, RUNNING_CASES, normal),
    "cumprod": rows(V.cumprod, np.cumprod, RUNNING_CASES, normal)
    + rows(V.cumprod, np.cumprod, RUNNING_CASES, with_zeros, "zeros "),
    "trace": rows(V.trace, np.trace, TRACE_CASES, normal),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


# ----- exact zeros ------------------------------------------------------------------
def test_prod_gradient_is_the_product_of_the_others_at_zeros():
    x = V.Variable(np.array([[2.0, 0.0, 3.0, 0.5], [2.0, 0.0, 3.0, 0.0]]))
    V.prod(x, axis=1).backward()
    np.testing.assert_array_equal(x.grad.data, [[0.0, 3.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])


def test_prod_second_derivative_with_two_zeros():
    x = V.Variable(np.array([2.0, 0.0, 3.0, 0.0]))
    g, = V.grad(V.prod(x), [x], create_graph=True)
    rows_ = [V.grad(g[i], [x])[0].data for i in range(4)]
    hessian = np.zeros((4, 4))
    hessian[1, 3] = hessian[3, 1] = 6.0                    # d2/dx1 dx3 = x0 x2, all else 0
    np.testing.assert_array_equal(np.stack(rows_), hessian)


@pytest.mark.parametrize("x", [[0.5, 0.0, -1.2, 0.7], [0.0, 1.5, 0.0, -0.8, 1.1], [0.0, 0.0, 0.0]])
def test_prod_and_cumprod_to_fourth_order_at_zeros(x):
    x = np.array(x)
    assert V.gradcheck(V.prod, x, order=4)
    assert V.gradcheck(V.cumprod, x, order=4)
    assert V.taylorcheck(V.cumprod, x, order=6)


def test_cumprod_on_a_long_axis():
    """The doubling scan of the recurrence against np.cumprod on lengths not a power of 2."""
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1.5, (2, 11))
    x[0, 4] = x[1, 0] = x[1, 7] = 0.0
    np.testing.assert_allclose(V.cumprod(x, axis=1).data, np.cumprod(x, axis=1), rtol=1e-14)
    assert V.gradcheck(lambda v: V.cumprod(v, axis=1), x, order=2)
    assert V.gradcheck(lambda v: V.prod(v, axis=-1), x, order=2)


def test_taylor_rules_of_the_gradients_at_zeros():
    """Forward over reverse: jvp/Taylor through prod's and cumprod's backward (the private
    recurrence and shift ops) at a point with two zeros."""
    x = np.array([0.5, 0.0, 1.3, 0.0, -0.6])
    assert V.taylorcheck(lambda v: V.grad(V.prod(v), v, create_graph=True), x, order=4)
    assert V.taylorcheck(lambda v: V.grad(V.cumprod(v).sum(), v, create_graph=True), x, order=4)


# ----- std at a constant slice --------------------------------------------------------
def test_std_gradient_at_a_constant_slice_is_zero():
    x = V.Variable(np.array([[0.3, 0.3, 0.3], [1.0, 2.0, -1.0]]))
    y = V.std(x, axis=1)
    g, = V.grad(y.sum(), [x], create_graph=True)
    assert np.all(np.isfinite(g.data))
    np.testing.assert_array_equal(g.data[0], 0.0)
    np.testing.assert_allclose(g.data[1], (x.data[1] - x.data[1].mean()) / (3 * y.data[1]))
    h, = V.grad(g.sum(), [x])
    assert np.all(np.isfinite(h.data))
    np.testing.assert_array_equal(h.data[0], 0.0)
    direction = np.array([[1.0, -2.0, 0.5], [1.0, 0.0, -1.0]])    # leaves row 0 non-constant
    _, tangent = V.jvp(lambda v: V.std(v, axis=1), x.data, direction)
    assert tangent.data[0] == 0.0
    derivatives = V.taylor(lambda v: V.std(v, axis=1), x.data, direction, order=4)
    assert all(d.data[0] == 0.0 for d in derivatives[1:])


def test_std_of_zeros_and_of_one_entry():
    for x in (np.zeros((2, 3)), np.array(1.5), np.ones(1)):
        v = V.Variable(x)
        V.std(v).backward()
        np.testing.assert_array_equal(v.grad.data, np.zeros_like(x))


# ----- NumPy's semantics ----------------------------------------------------------------
def test_empty_inputs():
    x = V.Variable(np.zeros((0, 3)))
    y = V.prod(x, axis=0)
    np.testing.assert_array_equal(y.data, np.ones(3))
    y.backward()
    assert x.grad.shape == (0, 3)
    assert V.prod(np.zeros(0), initial=3.0).item() == 3.0
    assert V.cumsum(np.zeros((0, 3))).shape == (0,)
    assert V.cumprod(np.zeros((0, 3)), axis=1).shape == (0, 3)
    assert V.trace(np.zeros((0, 3))).item() == 0.0


def test_var_correction_is_ddof():
    x = np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
    np.testing.assert_allclose(V.var(x, axis=1, correction=1).data, np.var(x, axis=1, ddof=1))
    np.testing.assert_allclose(V.std(x, correction=1).data, np.std(x, ddof=1))
    np.testing.assert_allclose(V.var(x, ddof=0, correction=1).data, np.var(x, ddof=0, correction=1))
    for op in (V.var, V.std):
        with pytest.raises(ValueError, match=f"{op.__name__}: ddof and correction cannot both be given"):
            op(x, ddof=1, correction=1)


def test_var_with_ddof_at_least_n_is_inf_or_nan_as_numpy():
    x = np.array([[1.0, 2.0], [3.0, 3.0]])
    with np.errstate(divide="ignore", invalid="ignore"), pytest.warns(RuntimeWarning):
        expected = np.var(x, axis=1, ddof=2)
    np.testing.assert_array_equal(V.var(x, axis=1, ddof=2).data, expected)
    np.testing.assert_array_equal(V.var(np.zeros((0, 2)), axis=0).data, [np.nan, np.nan])


def test_average_weights_get_gradients():
    a = V.Variable(np.array([1.0, 2.0, 4.0]))
    w = V.Variable(np.array([1.0, 1.0, 2.0]))
    avg, total = V.average(a, weights=w, returned=True)
    assert total.item() == 4.0
    avg.backward()
    np.testing.assert_allclose(a.grad.data, w.data / 4.0)                   # d avg / d a = w / sum w
    np.testing.assert_allclose(w.grad.data, (a.data - avg.data) / 4.0)      # (a - avg) / sum w


def test_average_returned_without_weights_is_the_count():
    avg, count = V.average(np.ones((2, 3), dtype=np.float32), axis=1, returned=True)
    assert count.dtype == np.float32 and not count.requires_grad
    np.testing.assert_array_equal(count.data, [3.0, 3.0])


def test_prod_initial_and_integers():
    np.testing.assert_allclose(V.prod([[1.0, 2.0], [3.0, 4.0]], axis=0, initial=0.5).data, [1.5, 4.0])
    assert V.prod(np.arange(1, 5)).item() == 24
    np.testing.assert_array_equal(V.cumsum(np.arange(4)).data, [0, 1, 3, 6])


# ----- errors -----------------------------------------------------------------------
X = np.ones((2, 3))


@pytest.mark.parametrize("call, match", [
    (lambda: V.prod(X, dtype=np.float32), "prod: dtype="),
    (lambda: V.prod(X, out=np.empty(3)), "prod: out="),
    (lambda: V.prod(X, initial="1"), "prod: initial must be a real number"),
    (lambda: V.cumsum(X, dtype=np.float64), "cumsum: dtype="),
    (lambda: V.cumprod(X, out=np.empty(6)), "cumprod: out="),
    (lambda: V.trace(X, dtype=np.float64), "trace: dtype="),
    (lambda: V.var(X, out=np.empty(())), "var: out="),
    (lambda: V.var(X, mean=np.ones(1)), "var: mean= is not supported"),
    (lambda: V.std(X, dtype=np.float32), "std: dtype="),
    (lambda: V.std(X, ddof="1"), "std: ddof must be a real number"),
    (lambda: V.cumsum(X, axis=(0,)), "cumsum: axis must be an int"),
    (lambda: V.trace(X, offset=1.0), "trace: offset must be an int"),
    (lambda: V.average(X, weights=np.ones(3)), "average: weights of shape"),
])
def test_refused_arguments(call, match):
    with pytest.raises(TypeError, match=match):
        call()


@pytest.mark.parametrize("call, match", [
    (lambda: V.prod(X, axis=2), r"prod: axis 2 is out of range for an input of shape \(2, 3\)"),
    (lambda: V.var(X, axis=(0, 0)), "var: repeated axis"),
    (lambda: V.std(X, axis=-3), "std: axis -3 is out of range"),
    (lambda: V.cumsum(X, axis=2), "cumsum: axis 2 is out of range"),
    (lambda: V.cumprod(np.float64(2.0), axis=1), "cumprod: axis 1 is out of range"),
    (lambda: V.average(X, axis=3), "average: axis 3 is out of range"),
    (lambda: V.average(X, axis=0, weights=np.ones(3)), r"average: weights of shape \(3,\) do not match"),
    (lambda: V.trace(np.ones(3)), "trace: the input must have at least 2 dimensions"),
    (lambda: V.trace(X, axis1=1, axis2=-1), "trace: axis1 and axis2 must be different"),
    (lambda: V.trace(X, axis2=2), "trace: axis 2 is out of range"),
])
def test_bad_axes_and_shapes(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_average_of_weights_summing_to_zero():
    with pytest.raises(ZeroDivisionError, match="average: the weights sum to 0"):
        V.average(X, axis=1, weights=np.array([1.0, -1.0, 0.0]))


# ----- NumPy's where= on var, std and prod ----------------------------------------------------
HOLES = np.array([[0.7, np.nan, -1.2, 0.4], [np.inf, 1.1, 0.3, -0.6], [1.0, 2.0, -np.inf, 0.5]])
"""NaN and inf outside the mask (np.isfinite), and a last row with nothing selected."""
SELECTED = np.isfinite(HOLES) & np.array([[True], [True], [False]])


@pytest.mark.parametrize("name, kw", [
    ("prod", {}), ("prod", {"initial": -2.0}), ("var", {}), ("var", {"ddof": 1}), ("std", {}),
    ("std", {"ddof": 2}), ("std", {"correction": 1.5}),
])
def test_where_leaves_out_nan_and_inf_with_gradient_zero_at_every_order(name, kw):
    # the left-out entries are replaced by a where on the constant mask before any arithmetic:
    # exactly 0 gradient there, nothing non-finite in the others', and no RuntimeWarning
    x = V.Variable(HOLES)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = getattr(V, name)(x, axis=1, where=SELECTED, **kw)
        g, = V.grad(V.sum(V.nan_to_num(y, posinf=0.0)), [x], create_graph=True)
        h, = V.grad(V.sum(g * g), [x], materialize_grads=True)
        coefficients = V.taylor(lambda a: V.nan_to_num(getattr(V, name)(a, axis=1, where=SELECTED, **kw),
                                                       posinf=0.0), HOLES, np.ones((3, 4)), 3)
    np.testing.assert_array_equal(y.data, quiet(getattr(np, name))(HOLES, axis=1, where=SELECTED, **kw))
    assert np.all(np.isfinite(g.data)) and np.all(np.isfinite(h.data))
    np.testing.assert_array_equal(g.data[~SELECTED], 0.0)
    np.testing.assert_array_equal(h.data[~SELECTED], 0.0)
    assert all(np.all(np.isfinite(c.data)) for c in coefficients)
    # the selected entries: the gradient of the op on them alone (rows 0 and 1, 3 entries each)
    kept = V.Variable(HOLES[SELECTED].reshape(2, 3))
    expected, = V.grad(V.sum(V.nan_to_num(getattr(V, name)(kept, axis=1, **kw), posinf=0.0)), [kept])
    np.testing.assert_allclose(g.data[SELECTED].reshape(2, 3), expected.data, rtol=1e-12)


@pytest.mark.parametrize("name", ["prod", "var", "std"])
def test_where_with_nothing_selected_as_numpy(name):
    # NumPy: prod 1 (or initial), var and std NaN (0 / 0, with NumPy's warnings; none here);
    # the gradient is 0 everywhere
    data = np.array([[1.5, -0.5], [2.0, 0.25]])
    x = V.Variable(data)
    nothing = np.zeros((2, 2), bool)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = getattr(V, name)(x, axis=0, where=nothing)
        V.sum(V.nan_to_num(y)).backward()
    np.testing.assert_array_equal(y.data, quiet(getattr(np, name))(data, axis=0, where=nothing))
    np.testing.assert_array_equal(x.grad.data, np.zeros((2, 2)))
    assert V.prod(x, where=False, initial=3.0).item() == 3.0


def test_where_with_ddof_at_least_the_count_is_inf_or_nan_as_numpy():
    # NumPy divides the squares by max(count - ddof, 0): inf, or NaN where they are 0
    x = np.array([[1.0, 2.0, 5.0], [3.0, 3.0, 9.0], [4.0, 0.0, 1.0]])
    keep = np.array([[True, True, False], [True, True, False], [False, False, True]])
    for name in ("var", "std"):
        v = V.Variable(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")                   # (NumPy warns: none here)
            y = getattr(V, name)(v, axis=1, ddof=2, where=keep)
            g, = V.grad(V.sum(V.nan_to_num(y, posinf=0.0)), [v], create_graph=True)
            h, = V.grad(V.sum(g), [v], materialize_grads=True)
        expected = quiet(getattr(np, name))(x, axis=1, ddof=2, where=keep)
        np.testing.assert_array_equal(y.data, expected)
        assert np.isinf(y.data[0]) and np.isnan(y.data[1]) and np.isnan(y.data[2])
        np.testing.assert_array_equal(g.data, np.zeros((3, 3)))   # put in by a where: gradient 0
        np.testing.assert_array_equal(h.data, np.zeros((3, 3)))


@pytest.mark.parametrize("mask", [
    np.array(True), np.array([True, False, True, True]), np.array([[True], [False], [True]]),
    np.array([[[False]], [[True]]]), [True, True, False, True], np.bool_(False),
])
@pytest.mark.parametrize("name", ["prod", "var", "std"])
def test_masks_of_broadcasting_shapes(name, mask):
    rng = np.random.default_rng(5)
    x = rng.uniform(0.5, 1.5, (2, 3, 4))
    for axis in (None, 1, (0, 2)):
        y = getattr(V, name)(x, axis=axis, where=mask)
        np.testing.assert_allclose(y.data, quiet(getattr(np, name))(x, axis=axis, where=mask), rtol=1e-12)
    assert V.gradcheck(lambda v: V.nan_to_num(getattr(V, name)(v, axis=(0, 2), where=mask)), x, order=2)


def test_where_on_integer_input_as_numpy():
    # prod keeps the integer dtype; var and std compute in float64
    x = np.array([[1, 4, 2, 7], [3, 3, 0, -2]])
    keep = np.array([True, False, True, True])
    for name, kw in [("prod", {}), ("prod", {"initial": 2}), ("var", {}), ("std", {"ddof": 1}),
                     ("var", {"ddof": 3})]:
        y = getattr(V, name)(x, axis=1, where=keep, **kw)
        expected = quiet(getattr(np, name))(x, axis=1, where=keep, **kw)
        assert y.dtype == expected.dtype, name
        np.testing.assert_allclose(y.data, expected, rtol=1e-14)


def test_where_keeps_float32():
    x = V.Variable(np.array([[0.5, 1.5, -1.0], [2.0, 0.25, 1.0]], dtype=np.float32))
    for name in ("prod", "var", "std"):
        y = getattr(V, name)(x, axis=1, where=np.array([True, False, True]))
        assert y.dtype == np.float32
        g, = V.grad(V.sum(y), [x])
        assert g.dtype == np.float32 and np.all(g.data[:, 1] == 0.0)


@pytest.mark.parametrize("call, numpy_call", [
    (lambda x, m: np.prod(x, axis=1, where=m), lambda a, m: np.prod(a, axis=1, where=m)),
    (lambda x, m: np.multiply.reduce(x, axis=1, where=m),
     lambda a, m: np.multiply.reduce(a, axis=1, where=m)),
    (lambda x, m: np.multiply.reduce(x, axis=None, where=m, initial=0.5),
     lambda a, m: np.multiply.reduce(a, axis=None, where=m, initial=0.5)),
    (lambda x, m: x.prod(axis=0, where=m), lambda a, m: a.prod(axis=0, where=m)),
    (lambda x, m: np.var(x, axis=1, where=m), lambda a, m: np.var(a, axis=1, where=m)),
    (lambda x, m: x.var(axis=1, ddof=1, where=m), lambda a, m: a.var(axis=1, ddof=1, where=m)),
    (lambda x, m: np.std(x, where=m, keepdims=True), lambda a, m: np.std(a, where=m, keepdims=True)),
    (lambda x, m: x.std(axis=(0, 1), where=m), lambda a, m: a.std(axis=(0, 1), where=m)),
])
def test_numpy_dispatch_with_where(call, numpy_call):
    data = np.array([[0.5, np.nan, -1.25], [2.0, 1.5, 0.75]])
    keep = ~np.isnan(data)
    x = V.Variable(data)
    y = call(x, keep)
    assert isinstance(y, V.Variable)
    np.testing.assert_allclose(y.data, numpy_call(data, keep), rtol=1e-12)
    g, = V.grad(V.sum(y), [x])
    assert g.data[0, 1] == 0.0 and np.all(np.isfinite(g.data))
    assert V.gradcheck(lambda v: call(v, keep), np.nan_to_num(data), order=2)


@pytest.mark.parametrize("call, error, match", [
    (lambda: V.prod(V.Variable(X), where=V.Variable(X) > 0), None, None),  # a comparison: accepted
    (lambda: V.prod(X, where=V.Variable(X > 0)), TypeError,
     r"prod\(\.\.\., where=\.\.\.\): the mask is a Variable"),
    (lambda: V.var(X, where=np.ones(3)), TypeError, r"var\(\.\.\., where=\.\.\.\): the mask must be boolean"),
    (lambda: V.std(X, where=[1, 0, 1]), TypeError, r"std\(\.\.\., where=\.\.\.\): the mask must be boolean"),
    (lambda: V.prod(X, where=np.ones((3, 3), bool)), ValueError,
     r"prod\(\.\.\., where=\.\.\.\): a mask of shape \(3, 3\) does not broadcast to the input's "
     r"shape \(2, 3\)"),
    (lambda: V.var(X, where=np.ones((1, 2, 3), bool)), ValueError,
     r"var\(\.\.\., where=\.\.\.\): a mask of shape"),
    (lambda: np.std(V.Variable(X), where=np.ones(2, bool)), ValueError, r"std\(\.\.\., where=\.\.\.\)"),
    (lambda: V.var(X, where=X > 0, mean=np.ones(1)), TypeError, "var: mean= is not supported"),
])
def test_bad_where_masks_name_the_op(call, error, match):
    if error is None:
        assert call().shape == ()
        return
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("name", ["prod", "var", "std"])
def test_where_on_the_device_without_host_syncs(name, gpu, count_syncs):
    data = np.array([[0.5, np.nan, -1.25, 2.0], [np.inf, 1.5, 0.75, 0.5], [1.0, 2.0, 3.0, 4.0]])
    keep = np.isfinite(data) & np.array([[True], [True], [False]])
    op = getattr(V, name)
    x = V.Variable(data).to_gpu()
    mask = gpu.asarray(keep)
    with count_syncs() as syncs:
        y = V.nan_to_num(op(x, axis=1, where=mask))
        g, = V.grad(V.sum(y), [x], create_graph=True)
        h, = V.grad(V.sum(g * g), [x], materialize_grads=True)
        direction = V.Variable(np.ones((3, 4))).to_gpu()
        coefficients = V.taylor(lambda a: V.nan_to_num(op(a, axis=1, where=mask)), x, direction, 3)
    assert syncs.count == 0, syncs
    assert y.device == g.device == h.device == "gpu"
    assert all(c.device == "gpu" for c in coefficients)
    host = V.Variable(data)
    expected, = V.grad(V.sum(V.nan_to_num(op(host, axis=1, where=keep))), [host])
    np.testing.assert_allclose(V.backend.to_cpu(y.data), V.nan_to_num(op(host, axis=1, where=keep)).data)
    np.testing.assert_allclose(V.backend.to_cpu(g.data), expected.data, rtol=1e-12)
    # as V.sum's where= (and V.where's condition): a NumPy mask is not moved behind the user's back
    with pytest.raises(TypeError, match=rf"{name}: expected the where= mask on the device of the input"):
        op(x, axis=1, where=keep)
    np.testing.assert_allclose(V.backend.to_cpu(op(x, axis=1, where=[True, False, True, True]).data),
                               quiet(getattr(np, name))(data, axis=1, where=[True, False, True, True]))


def test_torchs_values_and_indices_pair_is_refused_and_numpys_unpacking_is_not():
    y = V.Variable(np.array([[0.5, 2.0, 1.0], [3.0, -1.0, 0.0], [1.0, 1.0, 4.0]]))
    with pytest.raises(TypeError, match=r"max: its result is unpacked into two names.*y\.argmax\(axis=1\)"):
        _, predicted = y.max(1)                      # torch's accuracy idiom
    with pytest.raises(TypeError, match=r"min: .*of shape \(3,\)\).*y\.argmin\(axis=0\)"):
        values, indices = V.min(y, axis=0)
    pair = V.Variable(np.array([[1.0, 5.0], [3.0, 2.0]]))
    with pytest.raises(TypeError, match=r"of shape \(2,\), which would unpack into its two rows"):
        _, predicted = pair.max(1)                   # two rows: the values thrown away
    xmax, ymax = pair.max(axis=0)                    # NumPy's own habit: the maxima of two columns
    assert (xmax.item(), ymax.item()) == (3.0, 5.0)
    lo, hi = V.sort(V.Variable(np.array([3.0, 1.0])))
    assert (lo.item(), hi.item()) == (1.0, 3.0)
    a, b, c = y.max(axis=1)                          # three names for three maxima
    assert (a.item(), b.item(), c.item()) == (2.0, 3.0, 4.0)
    np.testing.assert_array_equal(y.argmax(axis=1), [1, 0, 2])
