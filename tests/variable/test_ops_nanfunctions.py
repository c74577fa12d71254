"""The nan-functions against NumPy: the table rows, then NaN points, all-NaN slices and errors.

V.gradcheck refuses points holding NaN (central differences cannot be taken there), so the
rows put NaN in themselves: each row's function first turns the sample's entries above 2
into NaN (`V.where(x > 2, nan, x)`, a mask of the data itself, so no constant array is
held and the rows run on the device too), and the samplers put 3.0 at fixed positions.
The derivatives are then checked through the NaN entries (their gradient must be exactly 0,
and no NaN may reach the others'), at every order, in Taylor mode and reverse over Taylor.
Where a row has an all-NaN slice (or ddof >= count) whose result is NaN, its function ends
in V.nan_to_num (the NaN results then count 0), so that the checks see finite numbers.
NumPy's `where=` rows leave out the entries below -2.5 (the samplers put OUT = -3.0 there;
again a mask of the data itself), alone or with a constant mask of a broadcasting shape.

Below the table: the gradients at points holding NaN directly, against the plain ops on the
entries that are not NaN; all-NaN slices; the tie convention of nanmax / nanmin (ties share
the gradient evenly, as V.max, PyTorch's amax and JAX's max); integer input; NumPy's
dispatch; the refused keywords.
"""

import warnings

import numpy as np
import pytest
from op_rows import PIECEWISE, SMOOTH, Row, quiet, table_tests

import variable as V
from variable import backend

THRESHOLD = 2.0   # a row's function turns the sample's entries above it into NaN
MARK = 3.0        # what the samplers put where a NaN goes


def _nan(x):
    """`x` (a Variable) with NaN where it exceeds THRESHOLD."""
    return V.where(x > THRESHOLD, np.nan, x)


def _nan_ref(x):
    return np.where(x > THRESHOLD, np.nan, x)



def marked(shape, nans=(), zeros=False):
    """Sampler: distinct entries in [-1.55, 1.55] (gaps above 0.1: no ties), every other one 0
    if `zeros`, and MARK (NaN in the rows) at the flat positions `nans`."""
    def sample(rng):
        n = int(np.prod(shape))
        x = rng.permutation(np.linspace(-1.5, 1.5, n)) + rng.uniform(-0.05, 0.05, n)
        if zeros:
            x[::2] = 0.0
        x[list(nans)] = MARK
        return (x.reshape(shape),)
    return sample


def rows(op, ref, cases, order, tag=""):
    """Rows of op(x with NaN, **kw) against ref for each (shape, NaN positions, kw) in `cases`;
    a row whose reference holds NaN (an all-NaN slice) ends in nan_to_num."""
    out = []
    for shape, nans, kw in cases:
        fn = lambda x, kw=kw: op(_nan(x), **kw)                     # noqa: E731
        reference = lambda x, kw=kw: quiet(ref)(_nan_ref(x), **kw)  # noqa: E731
        sample = marked(shape, nans, zeros="zeros" in tag)
        label = f"{tag}{shape} NaN at {list(nans)} {kw}"
        if np.isnan(reference(*sample(np.random.default_rng(0)))).any():
            fn = lambda x, f=fn: V.nan_to_num(f(x))                 # noqa: E731
            reference = lambda x, r=reference: np.nan_to_num(r(x))  # noqa: E731
            label += ", NaN results to 0"
        out.append(Row(label, fn, reference, sample, order))
    return out


OUT = -3.0        # what the samplers put where a where= row's mask (x > -2.5) leaves an entry out


def _keep(x, also):
    """A where= row's mask: the entries above -2.5 (of Variable or array `x`), and `also`."""
    keep = x > -2.5
    return keep if also is None else keep & also


def where_rows(op, ref, cases, order):
    """Rows of op(x with NaN, where=x > -2.5 [& also], **kw) for each (shape, NaN positions,
    left-out positions, also, kw) in `cases`; a row whose reference holds NaN ends in
    nan_to_num."""
    out = []
    for shape, nans, left_out, also, kw in cases:
        fn = lambda x, kw=kw, also=also: op(_nan(x), where=_keep(x, also), **kw)                     # noqa: E731
        reference = lambda x, kw=kw, also=also: quiet(ref)(_nan_ref(x), where=_keep(x, also), **kw)  # noqa: E731
        marks = marked(shape, nans)
        sample = lambda rng, marks=marks, left_out=left_out: _left_out(marks(rng), left_out)       # noqa: E731
        label = f"where {shape} NaN at {list(nans)} out {list(left_out)} & {np.shape(also)} {kw}"
        if np.isnan(reference(*sample(np.random.default_rng(0)))).any():
            fn = lambda x, f=fn, also=also: V.nan_to_num(f(x))    # noqa: E731 (also: seen by device_row)
            reference = lambda x, r=reference: np.nan_to_num(r(x))  # noqa: E731
            label += ", NaN results to 0"
        out.append(Row(label, fn, reference, sample, order))
    return out


def _left_out(xs, positions):
    x, = xs
    x.reshape(-1)[list(positions)] = OUT
    return (x,)


def plain_rows(op, ref, cases, order):
    """Rows of op(x, **kw) on samples without NaN (the op's path for NaN-free input)."""
    return [
        Row(f"no NaN {shape} {kw}", lambda x, kw=kw: op(x, **kw), lambda x, kw=kw: ref(x, **kw),
            marked(shape), order)
        for shape, kw in cases
    ]


REDUCE_CASES = [
    ((), (), {}),
    ((), (0,), {}),                                            # a NaN scalar
    ((3,), (1,), {}),
    ((2, 3), (0, 4), {}),
    ((2, 3), (1, 4), {"axis": 0}),                             # column 1 all NaN
    ((2, 3), (2,), {"axis": -1, "keepdims": True}),
    ((2, 3), (3, 4, 5), {"axis": 1}),                          # row 1 all NaN
    ((2, 3), (0, 5), {"axis": (0, 1)}),
    ((2, 3, 2), (1, 6, 11), {"axis": (0, 2), "keepdims": True}),
    ((2, 3, 2), (0, 2, 7), {"axis": (-1, 0)}),
    ((4,), (0, 1, 2, 3), {}),                                  # all NaN
    ((0, 3), (), {"axis": 1}),
]
PLAIN_CASES = [((), {}), ((3,), {}), ((2, 3), {"axis": 1}), ((2, 3, 2), {"axis": (0, 2), "keepdims": True})]
SUM_CASES = REDUCE_CASES + [
    ((0, 3), (), {"axis": 0}),                                 # an empty axis
    ((2, 3), (1,), {"axis": 1, "initial": 0.5}),
    ((2, 3), (1,), {"axis": 0, "dtype": np.float64}),
]
MEAN_CASES = REDUCE_CASES + [
    ((0, 3), (), {"axis": 0}),
    ((2, 3), (1,), {"axis": 1, "dtype": np.float64}),
]
VAR_CASES = [   # no slice of 2 entries: their std is linear, its Taylor coefficients rounding noise
    ((), (), {}),                                              # one entry: std 0
    ((), (0,), {}),
    ((4,), (1,), {}),
    ((2, 4), (0, 5), {}),
    ((3, 3), (1, 4), {"axis": 0}),                             # column 1: one entry left
    ((2, 4), (2,), {"axis": -1, "keepdims": True}),
    ((2, 3), (3, 4, 5), {"axis": 1}),                          # row 1 all NaN
    ((2, 3), (0, 5), {"axis": (0, 1)}),
    ((2, 3, 2), (1, 11), {"axis": (0, 2), "keepdims": True}),
    ((2, 3, 2), (0, 2), {"axis": (-1, 0)}),
    ((4,), (0, 1, 2, 3), {}),
    ((0, 3), (), {"axis": 1}),
    ((0, 3), (), {"axis": 0}),
    ((2, 4), (1,), {"axis": 1, "dtype": np.float64}),
    ((2, 3), (1,), {"ddof": 1}),
    ((2, 3), (0, 1), {"axis": 1, "ddof": 1}),                  # row 0: count - ddof = 0
    ((2, 4), (5,), {"axis": 1, "ddof": 1.5, "keepdims": True}),
    ((4,), (2,), {"correction": 1}),
]
EXTREME_CASES = REDUCE_CASES + [
    ((2, 3), (3, 4, 5), {"axis": 1, "initial": 0.25}),         # the all-NaN row gives initial
    ((2, 3), (1,), {"initial": -0.25}),
    ((0, 3), (), {"axis": 0, "initial": 0.25}),                # an empty axis with initial
]
RUNNING_CASES = [
    ((), (), {}),
    ((), (0,), {}),
    ((3,), (1,), {}),
    ((2, 3), (0, 4), {}),
    ((2, 3), (1, 4), {"axis": 0}),
    ((2, 3), (2,), {"axis": 1}),
    ((2, 3), (3, 4, 5), {"axis": -1}),
    ((2, 3, 2), (1, 6), {"axis": 1}),
    ((5,), (0, 3), {"axis": 0, "dtype": np.float64}),
    ((0, 3), (), {}),
]
PROD_ZERO_CASES = [((2, 3), (1,), {}), ((2, 3), (3,), {"axis": 1}), ((5,), (1, 4), {})]
LAST_OUT = np.array([True, True, False])                      # (3,): the last column left out
WHERE_CASES = [   # (shape, NaN positions, left-out positions, constant mask, kw)
    ((), (), (), None, {}),
    ((), (), (0,), None, {}),                                 # nothing selected
    ((4,), (1,), (3,), None, {}),
    ((2, 3), (0,), (4,), None, {"axis": 0}),
    ((2, 3), (), (), LAST_OUT, {"axis": -1, "keepdims": True}),
    ((2, 3), (1,), (), np.array([[True], [False]]), {"axis": 1}),      # row 1: nothing selected
    ((2, 3, 2), (1,), (6,), np.array([[True], [False], [True]]), {"axis": (0, 2)}),
    ((2, 3), (), (), np.zeros((2, 3), bool), {"axis": 1}),    # an all-False mask
    ((0, 3), (), (), LAST_OUT, {"axis": 1}),
]
VAR_WHERE_CASES = [   # no slice of exactly 2 entries left (std linear there: rounding noise)
    ((), (), (), None, {}),
    ((), (), (0,), None, {}),
    ((5,), (1,), (3,), None, {}),
    ((2, 5), (0,), (7,), None, {"axis": 1}),
    ((2, 4), (), (), np.array([True, True, False, True]), {"axis": -1, "keepdims": True}),
    ((2, 4), (1,), (), np.array([[True], [False]]), {"axis": 1}),      # row 1: nothing selected
    ((2, 3, 4), (1,), (6,), np.array([[True], [False], [True]]), {"axis": (0, 2)}),
    ((2, 3), (), (), np.zeros((2, 3), bool), {"axis": 1}),
    ((2, 5), (1,), (2,), None, {"axis": 1, "ddof": 1}),
    ((2, 4), (0,), (1, 2), None, {"axis": 1, "ddof": 1}),               # row 0: count - ddof = 0
    ((0, 3), (), (), LAST_OUT, {"axis": 1}),
]
EXTREME_WHERE_CASES = [(shape, nans, out, also, {**kw, "initial": -0.25})
                       for shape, nans, out, also, kw in WHERE_CASES]


def float64_dtype(row_list):
    """dtype=float64 rows turn float32 input into float64 (as NumPy): no float32 pass."""
    return [Row(r.label, r.fn, r.ref, r.sample, r.order, float32="float64" not in r.label)
            for r in row_list]


ROWS = {
    "nansum": float64_dtype(rows(V.nansum, np.nansum, SUM_CASES, SMOOTH)
                            + plain_rows(V.nansum, np.nansum, PLAIN_CASES, SMOOTH)),
    "nanprod": float64_dtype(rows(V.nanprod, np.nanprod, SUM_CASES, SMOOTH)
                             + rows(V.nanprod, np.nanprod, PROD_ZERO_CASES, SMOOTH, "zeros ")
                             + plain_rows(V.nanprod, np.nanprod, PLAIN_CASES, SMOOTH)
                             + where_rows(V.nanprod, np.nanprod, WHERE_CASES, SMOOTH)),
    "nanmean": float64_dtype(rows(V.nanmean, np.nanmean, MEAN_CASES, SMOOTH)
                             + plain_rows(V.nanmean, np.nanmean, PLAIN_CASES, SMOOTH)),
    "nanvar": float64_dtype(rows(V.nanvar, np.nanvar, VAR_CASES, SMOOTH)
                            + plain_rows(V.nanvar, np.nanvar, PLAIN_CASES, SMOOTH)
                            + where_rows(V.nanvar, np.nanvar, VAR_WHERE_CASES, SMOOTH)),
    "nanstd": float64_dtype(rows(V.nanstd, np.nanstd, VAR_CASES, SMOOTH)
                            + plain_rows(V.nanstd, np.nanstd, PLAIN_CASES, SMOOTH)
                            + where_rows(V.nanstd, np.nanstd, VAR_WHERE_CASES, SMOOTH)),
    "nanmax": rows(V.nanmax, np.nanmax, EXTREME_CASES, PIECEWISE)
    + plain_rows(V.nanmax, np.nanmax, PLAIN_CASES, PIECEWISE)
    + where_rows(V.nanmax, np.nanmax, EXTREME_WHERE_CASES, PIECEWISE),
    "nanmin": rows(V.nanmin, np.nanmin, EXTREME_CASES, PIECEWISE)
    + plain_rows(V.nanmin, np.nanmin, PLAIN_CASES, PIECEWISE)
    + where_rows(V.nanmin, np.nanmin, [(s, n, o, a, {**kw, "initial": 0.25})
                                       for s, n, o, a, kw in WHERE_CASES], PIECEWISE),
    "nancumsum": float64_dtype(rows(V.nancumsum, np.nancumsum, RUNNING_CASES, SMOOTH)),
    "nancumprod": float64_dtype(rows(V.nancumprod, np.nancumprod, RUNNING_CASES, SMOOTH)
                                + rows(V.nancumprod, np.nancumprod, PROD_ZERO_CASES, SMOOTH, "zeros ")),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


# ----- gradients at points holding NaN --------------------------------------------------
X = np.array([[0.7, np.nan, -1.2, 0.4],
              [np.nan, 1.1, 0.3, -0.6]])
"""One NaN in each row: the entries that are not NaN form a (2, 3) array (KEPT)."""
KEPT = np.array([[0.7, -1.2, 0.4], [1.1, 0.3, -0.6]])
U = np.array([0.8, -1.3])          # an incoming gradient per row

PLAIN = {
    "nansum": V.sum, "nanprod": V.prod, "nanmean": V.mean, "nanmax": V.max, "nanmin": V.min,
    "nanvar": lambda x, axis: V.var(x, axis=axis, ddof=1),
    "nanstd": lambda x, axis: V.std(x, axis=axis, ddof=1),
}


def _op(name):
    op = getattr(V, name)
    return (lambda x, axis: op(x, axis=axis, ddof=1)) if name in ("nanvar", "nanstd") else op


def test_gradcheck_refuses_points_holding_nan():
    # (which is why the rows make their NaN inside their function)
    with pytest.raises(ValueError, match="gradcheck: input 0 holds NaN or inf"):
        V.gradcheck(V.nansum, X)


@pytest.mark.parametrize("name", PLAIN)
def test_gradient_is_zero_at_nan_and_the_plain_ops_elsewhere(name):
    x = V.Variable(X)
    y = _op(name)(x, 1)
    ddof = {"ddof": 1} if name in ("nanvar", "nanstd") else {}
    np.testing.assert_allclose(y.data, getattr(np, name)(X, axis=1, **ddof), rtol=1e-12)
    g, = V.grad(V.sum(y * U), [x], create_graph=True)
    kept = V.Variable(KEPT)
    expected, = V.grad(V.sum(PLAIN[name](kept, 1) * U), [kept], create_graph=True)
    assert np.all(g.data[np.isnan(X)] == 0.0)
    np.testing.assert_allclose(g.data[~np.isnan(X)].reshape(2, 3), expected.data, rtol=1e-12)
    # second order: the Hessian-vector products agree too, and stay 0 at the NaN entries
    v = np.array([[0.5, 2.0, -1.0, 0.3], [7.0, 0.2, 0.9, -0.4]])
    h, = V.grad(V.sum(g * v), [x], materialize_grads=True)
    expected_h, = V.grad(V.sum(expected * v[~np.isnan(X)].reshape(2, 3)), [kept], materialize_grads=True)
    assert np.all(h.data[np.isnan(X)] == 0.0)
    np.testing.assert_allclose(h.data[~np.isnan(X)].reshape(2, 3), expected_h.data, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("name", PLAIN)
def test_taylor_mode_at_points_holding_nan(name):
    # forward mode along a direction that moves the NaN entries too: they are not read
    direction = np.array([[1.0, 5.0, -2.0, 0.5], [-3.0, 1.0, 0.25, 1.5]])
    coefficients = V.taylor(lambda a: _op(name)(a, 1), X, direction, 3)
    kept = V.taylor(lambda a: PLAIN[name](a, 1), KEPT, direction[~np.isnan(X)].reshape(2, 3), 3)
    for c, e in zip(coefficients, kept):
        np.testing.assert_allclose(c.data, e.data, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("name, axis", [("nancumsum", 1), ("nancumsum", None), ("nancumprod", 1),
                                        ("nancumprod", 0)])
def test_running_gradients_at_nan(name, axis):
    # the running ops of X with NaN as 0 (sum) or 1 (product): the same gradients off the NaNs
    x = V.Variable(X)
    neutral = 0.0 if name == "nancumsum" else 1.0
    seed = np.arange(8.0).reshape(2, 4) if axis is not None else np.arange(8.0)
    g, = V.grad(V.sum(getattr(V, name)(x, axis=axis) * seed), [x])
    plain = V.Variable(np.where(np.isnan(X), neutral, X))
    e, = V.grad(V.sum(getattr(V, name[3:])(plain, axis=axis) * seed), [plain])
    np.testing.assert_array_equal(g.data[np.isnan(X)], 0.0)
    np.testing.assert_allclose(g.data[~np.isnan(X)], e.data[~np.isnan(X)], rtol=1e-12)


# ----- all-NaN slices, ddof >= count: NumPy's values, no warning, gradient 0 ----------------
ALL_NAN = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, -2.0]])


@pytest.mark.parametrize("name, expected", [
    ("nansum", [0.0, -1.0]), ("nanprod", [1.0, -2.0]), ("nanmean", [np.nan, -0.5]),
    ("nanmax", [np.nan, 1.0]), ("nanmin", [np.nan, -2.0]), ("nanvar", [np.nan, 2.25]),
    ("nanstd", [np.nan, 1.5]),
])
def test_all_nan_slices(name, expected):
    x = V.Variable(ALL_NAN)
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # no RuntimeWarning (NumPy warns here)
        y = getattr(V, name)(x, axis=1)
        np.testing.assert_array_equal(y.data, expected)
        g, = V.grad(V.nan_to_num(y).sum(), [x], create_graph=True)
        h, = V.grad(V.sum(g * g), [x], materialize_grads=True)
    assert np.all(np.isfinite(g.data)) and np.all(np.isfinite(h.data))
    np.testing.assert_array_equal(g.data[0], 0.0)                # the all-NaN slice
    np.testing.assert_array_equal(g.data[1, 1], 0.0)             # a NaN entry
    assert np.any(g.data[1, [0, 2]] != 0.0)                     # the entries left
    _, tangent = V.jvp(lambda a: V.nan_to_num(getattr(V, name)(a, axis=1)), ALL_NAN, np.ones((2, 3)))
    assert np.all(np.isfinite(tangent.data))


def test_ddof_at_least_the_count_is_nan_with_gradient_zero():
    x = V.Variable(np.array([[1.0, np.nan, 2.0], [0.5, 4.0, -1.0]]))
    for op, ref in ((V.nanvar, np.nanvar), (V.nanstd, np.nanstd)):
        y = op(x, axis=1, ddof=2)
        np.testing.assert_array_equal(y.data, quiet(ref)(x.data, axis=1, ddof=2))
        assert np.isnan(y.data[0]) and np.isfinite(y.data[1])
        g, = V.grad(V.nan_to_num(y).sum(), [x])
        np.testing.assert_array_equal(g.data[0], 0.0)
    np.testing.assert_array_equal(V.nanvar(np.ones(2), ddof=3).data, np.nan)     # no NaN, too few


def test_empty_input():
    empty = np.zeros((0, 3))
    np.testing.assert_array_equal(V.nansum(empty, axis=0).data, np.zeros(3))
    np.testing.assert_array_equal(V.nanprod(empty).data, 1.0)
    np.testing.assert_array_equal(V.nanmean(empty, axis=0).data, quiet(np.nanmean)(empty, axis=0))
    np.testing.assert_array_equal(V.nanvar(empty).data, np.nan)
    np.testing.assert_array_equal(V.nanmax(empty, axis=0, initial=-1.0).data, [-1.0, -1.0, -1.0])
    assert V.nancumsum(empty).shape == (0,)
    with pytest.raises(ValueError, match=r"nanmax: cannot reduce over an empty axis \(input of shape \(0, 3"):
        V.nanmax(empty, axis=0)
    with pytest.raises(ValueError, match="nanmin: cannot reduce over an empty axis"):
        V.nanmin(empty)


# ----- nanmax / nanmin: ties, infinities, initial ---------------------------------------------
def test_nanmax_ties_share_the_gradient_and_nan_gets_none():
    # as V.max (and PyTorch's amax, JAX's max): tied maxima split the gradient evenly
    x = V.Variable(np.array([[2.0, np.nan, 2.0, 1.0], [np.nan, -1.0, -1.0, -1.0]]))
    V.nanmax(x, axis=1).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [[0.5, 0.0, 0.5, 0.0], [0.0, 1 / 3, 1 / 3, 1 / 3]])
    x.cleargrad()
    V.nanmin(x).backward()
    np.testing.assert_array_equal(x.grad.data, [[0.0, 0.0, 0.0, 0.0], [0.0, 1 / 3, 1 / 3, 1 / 3]])


def test_nanmax_of_infinities_next_to_nan():
    # a NaN entry stands for nothing: -inf is a maximum of its own, and takes all the gradient
    x = V.Variable(np.array([-np.inf, np.nan, -np.inf]))
    y = V.nanmax(x)
    assert y.item() == -np.inf
    y.backward()
    np.testing.assert_array_equal(x.grad.data, [0.5, 0.0, 0.5])
    x = V.Variable(np.array([np.nan, np.inf, 1.0]))
    assert V.nanmin(x).item() == 1.0 and V.nanmax(x).item() == np.inf


def test_nanmax_initial_joins_by_fmax():
    x = V.Variable(np.array([[0.5, np.nan], [np.nan, np.nan], [0.2, 0.25]]))
    y = V.nanmax(x, axis=1, initial=0.25)
    np.testing.assert_array_equal(y.data, np.nanmax(x.data, axis=1, initial=0.25))
    y.sum().backward()
    # row 0: the maximum wins; row 1: initial (no gradient); row 2: a tie with initial, half
    np.testing.assert_array_equal(x.grad.data, [[1.0, 0.0], [0.0, 0.0], [0.0, 0.5]])
    np.testing.assert_array_equal(V.nanmin(x, axis=0, initial=0.0).data, [0.0, 0.0])


# ----- nanstd at a constant slice --------------------------------------------------------------
def test_nanstd_subgradient_zero_at_a_constant_slice():
    # as V.std (and PyTorch's std): 0 where the entries left are all equal, not sqrt's 1/0
    x = V.Variable(np.array([[0.3, np.nan, 0.3], [1.0, np.nan, -1.0], [np.nan, 2.0, np.nan]]))
    y = V.nanstd(x, axis=1)
    np.testing.assert_array_equal(y.data, [0.0, 1.0, 0.0])
    g, = V.grad(y.sum(), [x], create_graph=True)
    np.testing.assert_array_equal(g.data, [[0.0, 0.0, 0.0], [0.5, 0.0, -0.5], [0.0, 0.0, 0.0]])
    h, = V.grad(g.sum(), [x])
    assert np.all(np.isfinite(h.data))
    np.testing.assert_array_equal(h.data[[0, 2]], 0.0)


# ----- dtypes -----------------------------------------------------------------------------
def test_integer_input_as_numpy():
    x = np.array([[1, 4, 2], [3, 3, 0]])
    for name in ("nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd", "nancumsum"):
        y = getattr(V, name)(x, axis=1)
        expected = getattr(np, name)(x, axis=1)
        assert y.dtype == expected.dtype, name
        np.testing.assert_allclose(y.data, expected, rtol=1e-12)


def test_dtype_computes_in_it_and_the_gradient_keeps_the_input_dtype():
    x = V.Variable(np.array([1.5, np.nan, -0.25], dtype=np.float32))
    for name in ("nansum", "nanmean", "nanvar", "nancumprod"):
        y = getattr(V, name)(x, dtype=np.float64)
        assert y.dtype == np.float64
        np.testing.assert_allclose(y.data, getattr(np, name)(x.data, dtype=np.float64), rtol=1e-12)
        g, = V.grad(V.sum(y), [x])
        assert g.dtype == np.float32 and g.data[1] == 0.0
    assert V.nanstd(x).dtype == np.float32


def test_float32_all_nan_slices_stay_float32():
    x = V.Variable(ALL_NAN.astype(np.float32))
    for name in ("nanmean", "nanvar", "nanstd", "nanmax"):
        y = getattr(V, name)(x, axis=1)
        assert y.dtype == np.float32
        g, = V.grad(V.nan_to_num(y).sum(), [x])
        assert g.dtype == np.float32


def test_keywords_at_numpys_no_value_are_defaults():
    x = np.array([[1.0, np.nan], [2.0, 3.0]])
    y = V.nansum(x, axis=0, keepdims=np._NoValue, initial=np._NoValue, where=np._NoValue)
    np.testing.assert_array_equal(y.data, [3.0, 3.0])
    y = V.nanvar(x, axis=1, keepdims=np._NoValue, where=np._NoValue, mean=np._NoValue,
                 correction=np._NoValue)
    np.testing.assert_array_equal(y.data, [0.0, 0.25])
    np.testing.assert_array_equal(V.nanmax(x, axis=1, where=True).data, [1.0, 3.0])


# ----- NumPy's dispatch ---------------------------------------------------------------------
@pytest.mark.parametrize("name, kwargs", [
    ("nansum", {"axis": 1}), ("nanprod", {"axis": 0, "keepdims": True}), ("nanmean", {}),
    ("nanvar", {"axis": 1, "ddof": 1}), ("nanstd", {"axis": 0}), ("nanmax", {"axis": 1}),
    ("nanmin", {"axis": 0}), ("nancumsum", {"axis": 1}), ("nancumprod", {}),
])
def test_numpy_functions_dispatch_to_the_ops(name, kwargs):
    data = np.array([[0.5, np.nan, -1.25], [2.0, 1.5, np.nan], [0.75, -0.5, 1.0]])
    x = V.Variable(data)
    y = getattr(np, name)(x, **kwargs)
    assert isinstance(y, V.Variable)
    np.testing.assert_allclose(y.data, getattr(np, name)(data, **kwargs), rtol=1e-12)
    g, = V.grad(V.sum(y), [x])
    assert np.all(g.data[np.isnan(data)] == 0.0)
    # off the NaNs: central differences of the op on the same data (NaN entries held)
    kept = ~np.isnan(data)
    for i, j in zip(*np.nonzero(kept)):
        step = np.zeros_like(data)
        step[i, j] = 1e-6
        difference = (np.sum(getattr(np, name)(data + step, **kwargs))
                      - np.sum(getattr(np, name)(data - step, **kwargs))) / 2e-6
        np.testing.assert_allclose(g.data[i, j], difference, rtol=1e-6, atol=1e-8)


# ----- on the device -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                                  "nancumsum", "nancumprod"])
def test_on_the_device_without_host_syncs(name, gpu, count_syncs):
    data = np.array([[0.5, np.nan, -1.25], [np.nan, np.nan, np.nan], [0.75, -0.5, 0.75]])
    op = getattr(V, name)
    x = V.Variable(data).to_gpu()
    with count_syncs() as syncs:
        y = V.nan_to_num(op(x, axis=1))
        g, = V.grad(V.sum(y), [x], create_graph=True)
        h, = V.grad(V.sum(g * g), [x], materialize_grads=True)
        direction = V.Variable(np.ones((3, 3))).to_gpu()
        coefficients = V.taylor(lambda a: V.nan_to_num(op(a, axis=1)), x, direction, 3)
    assert syncs.count == 0, syncs
    assert y.device == g.device == h.device == "gpu"
    assert all(c.device == "gpu" for c in coefficients)
    host = V.Variable(data)
    expected, = V.grad(V.sum(V.nan_to_num(op(host, axis=1))), [host])
    np.testing.assert_allclose(backend.to_cpu(y.data), V.nan_to_num(op(host, axis=1)).data, rtol=1e-12)
    np.testing.assert_allclose(backend.to_cpu(g.data), expected.data, rtol=1e-12)


# ----- refused arguments ----------------------------------------------------------------------
A = np.array([[1.0, np.nan, 2.0], [0.5, 1.5, -1.0]])


@pytest.mark.parametrize("call, match", [
    (lambda: V.nansum(A, out=np.empty(())), "nansum: out= is not supported"),
    (lambda: V.nansum(A, where=np.ones(A.shape)), r"nansum\(\.\.\., where=\.\.\.\): the mask must be bool"),
    (lambda: V.nansum(A, dtype=np.int64), "nansum: dtype=int64 is not supported"),
    (lambda: V.nansum(A, dtype="not a dtype"), "nansum: dtype must be a floating dtype or None"),
    (lambda: V.nansum(A, initial="0"), "nansum: initial must be a real number"),
    (lambda: V.nanprod(A, initial=True), "nanprod: initial must be a real number"),
    (lambda: V.nanprod(A, where=V.Variable(A > 0)),
     r"nanprod\(\.\.\., where=\.\.\.\): the mask is a Variable"),
    (lambda: V.nanmean(A, out=np.empty(3)), "nanmean: out= is not supported"),
    (lambda: V.nanvar(A, mean=np.ones(1)), "nanvar: mean= is not supported"),
    (lambda: V.nanvar(A, where=[0, 1, 1]), r"nanvar\(\.\.\., where=\.\.\.\): the mask must be boolean"),
    (lambda: V.nanstd(A, where=np.ones(3)), r"nanstd\(\.\.\., where=\.\.\.\): the mask must be boolean"),
    (lambda: V.nanstd(A, ddof="1"), "nanstd: ddof must be a real number"),
    (lambda: V.nanstd(A, dtype=np.complex128), "nanstd: dtype=complex128 is not supported"),
    (lambda: V.nanmax(A, out=np.empty(())), "nanmax: out= is not supported"),
    (lambda: V.nanmax(A, where=np.ones(3), initial=0.0), r"nanmax\(\.\.\., where=\.\.\.\): the mask must be"),
    (lambda: V.nanmin(A, where=V.Variable(A) > 0, initial="0"), "nanmin: initial must be a real number"),
    (lambda: V.nanmin(A, initial=[1.0]), "nanmin: initial must be a real number"),
    (lambda: V.nancumsum(A, out=np.empty(6)), "nancumsum: out= is not supported"),
    (lambda: V.nancumprod(A, axis=(0,)), "nancumprod: axis must be an int"),
    (lambda: V.nansum(A, axis=1.0), "nansum: axis must be None, an int or a tuple of ints"),
    (lambda: V.nanmean("x"), "nanmean"),
])
def test_refused_arguments(call, match):
    with pytest.raises(TypeError, match=match):
        call()


@pytest.mark.parametrize("call, match", [
    (lambda: V.nansum(A, axis=2), r"nansum: axis 2 is out of range for an input of shape \(2, 3\)"),
    (lambda: V.nanmean(A, where=np.ones((7, 7), bool)), r"nanmean\(\.\.\., where=\.\.\.\): a mask of shape"),
    (lambda: V.nanprod(A, where=np.ones(2, bool)),
     r"nanprod\(\.\.\., where=\.\.\.\): a mask of shape \(2,\)"),
    (lambda: V.nanvar(A, where=np.ones((1, 2, 3), bool)), r"nanvar\(\.\.\., where=\.\.\.\): a mask of shape"),
    (lambda: V.nanmax(A, where=A > 0),
     r"nanmax\(\.\.\., where=\.\.\.\) needs initial= too.*initial=-np\.inf"),
    (lambda: V.nanmin(A, axis=1, where=np.array([True, False, True])),
     r"nanmin\(\.\.\., where=\.\.\.\) needs initial"),
    (lambda: np.nanmax(V.Variable(A), where=A > 0), r"nanmax\(\.\.\., where=\.\.\.\) needs initial"),
    (lambda: V.nanmin(A, where=np.ones((3, 3), bool), initial=0.0),
     r"nanmin\(\.\.\., where=\.\.\.\): a mask of shape"),
    (lambda: V.nanmean(A, axis=(1, -1)), "nanmean: repeated axis"),
    (lambda: V.nanvar(A, ddof=1, correction=1), "nanvar: ddof and correction cannot both be given"),
    (lambda: V.nanstd(A, axis=-3), "nanstd: axis -3 is out of range"),
    (lambda: V.nanmax(A, axis=5), "nanmax: axis 5 is out of range"),
    (lambda: V.nancumsum(A, axis=2), "nancumsum: axis 2 is out of range"),
])
def test_bad_axes(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("name", ["nansum", "nanmean"])
def test_where_skips_the_entries_outside_the_mask_as_nans(name):
    # NumPy's where=: entries outside the mask are skipped like NaNs (value and gradient 0)
    data = np.array([[1.0, np.nan, 3.0, -2.0], [4.0, 5.0, np.nan, 0.5]])
    keep = np.array([True, True, False, True])
    x = V.Variable(data)
    y = getattr(np, name)(x, axis=1, where=keep)
    np.testing.assert_allclose(y.data, getattr(np, name)(data, axis=1, where=keep))
    V.sum(y).backward()
    counts = (~np.isnan(data) & keep).sum(axis=1, keepdims=True)
    kept = ~np.isnan(data) & keep
    expected = np.where(kept, 1.0 if name == "nansum" else 1.0 / counts, 0.0)
    np.testing.assert_allclose(x.grad.data, expected)
    assert V.gradcheck(lambda v: getattr(V, name)(v, axis=1, where=keep), np.nan_to_num(data), order=2)


def test_nanmean_of_nothing_selected_is_nan_with_zero_gradient():
    x = V.Variable(np.array([[1.0, np.nan], [2.0, 3.0]]))
    y = V.nanmean(x, axis=1, where=np.array([[False, True], [True, False]]))
    np.testing.assert_array_equal(y.data, [np.nan, 2.0])
    V.sum(V.nan_to_num(y)).backward()
    np.testing.assert_array_equal(x.grad.data, [[0.0, 0.0], [1.0, 0.0]])


@pytest.mark.parametrize("op", [V.nansum, V.nanmean, V.sum, V.mean])
def test_where_mask_on_the_host_next_to_device_data_follows_wheres_rule(gpu, op):
    # as V.where's condition: a NumPy mask is not moved to the device behind the user's back
    x = V.Variable(np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])).to_gpu()
    keep = np.array([True, False, True])
    with pytest.raises(TypeError, match=r"the where= mask on the device of the input"):
        op(x, axis=1, where=keep)
    on_device = op(x, axis=1, where=gpu.asarray(keep))
    expected = getattr(np, op.__name__)(np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]]), axis=1, where=keep)
    np.testing.assert_allclose(V.backend.to_cpu(on_device.data), expected)


# ----- where= on nanprod, nanvar, nanstd, nanmax, nanmin --------------------------------------
WHERE_X = np.array([[0.7, np.nan, -1.2, 0.4, 2.5],
                    [np.inf, 1.1, 0.3, np.nan, -0.6],
                    [1.0, np.nan, -np.inf, 0.5, 3.0]])
WHERE_KEEP = np.array([[True, True, True, True, False],
                       [False, True, True, True, True],
                       [False, False, False, False, False]])
"""Each of rows 0 and 1 keeps 3 numbers (besides a NaN); row 2 has nothing selected."""
WHERE_KEPT = np.array([[0.7, -1.2, 0.4], [1.1, 0.3, -0.6]])
WHERE_OPS = {"nanprod": {}, "nanvar": {"ddof": 1}, "nanstd": {}, "nanmax": {"initial": -5.0},
             "nanmin": {"initial": 5.0}}


@pytest.mark.parametrize("name", WHERE_OPS)
def test_where_leaves_entries_out_as_nans_with_gradient_zero(name):
    # entries outside the mask (here also inf, NaN) are skipped as NaNs are: exactly 0 gradient
    # at every order, no inf or NaN in the others', no warning; the others get the plain op's
    kw = WHERE_OPS[name]
    x = V.Variable(WHERE_X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = getattr(V, name)(x, axis=1, where=WHERE_KEEP, **kw)
        g, = V.grad(V.sum(V.nan_to_num(y)), [x], create_graph=True)
        h, = V.grad(V.sum(g * g), [x], materialize_grads=True)
        coefficients = V.taylor(lambda a: V.nan_to_num(getattr(V, name)(a, axis=1, where=WHERE_KEEP, **kw)),
                                WHERE_X, np.ones((3, 5)), 3)
    np.testing.assert_allclose(y.data, quiet(getattr(np, name))(WHERE_X, axis=1, where=WHERE_KEEP, **kw),
                               rtol=1e-12)
    assert np.all(np.isfinite(g.data)) and np.all(np.isfinite(h.data))
    assert all(np.all(np.isfinite(c.data)) for c in coefficients)
    left_out = ~WHERE_KEEP | np.isnan(WHERE_X)
    np.testing.assert_array_equal(g.data[left_out], 0.0)
    np.testing.assert_array_equal(h.data[left_out], 0.0)
    kept = V.Variable(WHERE_KEPT)
    plain = getattr(V, name[3:])(kept, axis=1, **({} if name in ("nanmax", "nanmin") else kw))
    expected, = V.grad(V.sum(plain), [kept])
    np.testing.assert_allclose(g.data[~left_out].reshape(2, 3), expected.data, rtol=1e-12)


def test_where_with_nothing_selected():
    # as NumPy: nanprod 1 (or initial), nanvar / nanstd NaN (gradient 0, no warning), nanmax /
    # nanmin initial
    data = np.array([[1.0, np.nan], [2.0, 3.0]])
    x = V.Variable(data)
    nothing = np.array([False, False])
    for name, kw in [("nanprod", {}), ("nanprod", {"initial": 2.0}), ("nanvar", {}), ("nanstd", {}),
                     ("nanmax", {"initial": -1.0}), ("nanmin", {"initial": 1.0})]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = getattr(V, name)(x, axis=1, where=nothing, **kw)
            g, = V.grad(V.sum(V.nan_to_num(y)), [x])
        np.testing.assert_array_equal(y.data, quiet(getattr(np, name))(data, axis=1, where=nothing, **kw))
        np.testing.assert_array_equal(g.data, 0.0)


def test_where_on_integer_input_as_numpy():
    # integers hold no NaN: NumPy's prod, var, std, max and min with where= (nanvar's count -
    # ddof <= 0 then gives var's inf, not NaN); nanprod, nanmax, nanmin keep the integer dtype
    x = np.array([[1, 4, 2, 7], [3, 3, 0, -2]])
    keep = np.array([True, False, True, True])
    for name, kw in [("nanprod", {}), ("nanprod", {"initial": 3}), ("nanvar", {}), ("nanstd", {"ddof": 1}),
                     ("nanvar", {"ddof": 3}), ("nanmax", {"initial": -10}), ("nanmin", {"initial": 0.5}),
                     ("nanmax", {"initial": 100})]:
        for mask in (keep, np.zeros(4, bool)):
            y = getattr(V, name)(x, axis=1, where=mask, **kw)
            expected = quiet(getattr(np, name))(x, axis=1, where=mask, **kw)
            assert y.dtype == expected.dtype, (name, kw)
            np.testing.assert_allclose(y.data, expected, rtol=1e-14)
    boolean = np.array([[True, False, True], [False, False, True]])
    for name, initial in (("nanmax", 0), ("nanmin", 1)):
        y = getattr(V, name)(boolean, axis=1, where=np.array([False, True, False]), initial=initial)
        expected = getattr(np, name)(boolean, axis=1, where=np.array([False, True, False]), initial=initial)
        assert y.dtype == expected.dtype
        np.testing.assert_array_equal(y.data, expected)


def test_nanmax_where_initial_ties_and_float32():
    # a left-out entry never takes the gradient, even above the maximum; a selected maximum
    # tied with initial shares it (as V.max and fmax)
    x = V.Variable(np.array([[0.5, 0.9, np.nan], [0.25, 0.9, 0.1]], dtype=np.float32))
    y = V.nanmax(x, axis=1, where=np.array([True, False, True]), initial=0.25)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.data, np.array([0.5, 0.25], dtype=np.float32))
    V.sum(y).backward()
    np.testing.assert_array_equal(x.grad.data, [[1.0, 0.0, 0.0], [0.5, 0.0, 0.0]])
    x.cleargrad()
    y = V.nanmin(x, axis=1, where=np.array([[True, False, True], [True, True, False]]), initial=0.25)
    np.testing.assert_array_equal(y.data, np.array([0.25, 0.25], dtype=np.float32))
    V.sum(y).backward()
    np.testing.assert_array_equal(x.grad.data, [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]])


@pytest.mark.parametrize("name, kwargs", [
    ("nanprod", {"axis": 0}), ("nanvar", {"axis": 1, "ddof": 1}), ("nanstd", {}),
    ("nanmax", {"axis": 1, "initial": -9.0}), ("nanmin", {"axis": 0, "initial": 9.0}),
])
def test_numpy_functions_dispatch_with_where(name, kwargs):
    data = np.array([[0.5, np.nan, -1.25, 0.3], [2.0, 1.5, np.nan, -0.4], [0.75, -0.5, 1.0, 0.2]])
    keep = np.array([True, True, False, True])
    x = V.Variable(data)
    y = getattr(np, name)(x, where=keep, **kwargs)
    assert isinstance(y, V.Variable)
    np.testing.assert_allclose(y.data, getattr(np, name)(data, where=keep, **kwargs), rtol=1e-12)
    g, = V.grad(V.sum(y), [x])
    assert np.all(g.data[np.isnan(data) | ~keep] == 0.0)
    for i, j in zip(*np.nonzero(~np.isnan(data) & keep)):   # central differences of NumPy's call
        step = np.zeros_like(data)
        step[i, j] = 1e-6
        difference = (np.sum(getattr(np, name)(data + step, where=keep, **kwargs))
                      - np.sum(getattr(np, name)(data - step, where=keep, **kwargs))) / 2e-6
        np.testing.assert_allclose(g.data[i, j], difference, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", WHERE_OPS)
def test_where_on_the_device_without_host_syncs(name, gpu, count_syncs):
    kw = WHERE_OPS[name]
    op = getattr(V, name)
    x = V.Variable(WHERE_X).to_gpu()
    mask = gpu.asarray(WHERE_KEEP)
    with count_syncs() as syncs:
        y = V.nan_to_num(op(x, axis=1, where=mask, **kw))
        g, = V.grad(V.sum(y), [x], create_graph=True)
        h, = V.grad(V.sum(g * g), [x], materialize_grads=True)
        direction = V.Variable(np.ones((3, 5))).to_gpu()
        coefficients = V.taylor(lambda a: V.nan_to_num(op(a, axis=1, where=mask, **kw)), x, direction, 3)
    assert syncs.count == 0, syncs
    assert y.device == g.device == h.device == "gpu"
    assert all(c.device == "gpu" for c in coefficients)
    host = V.Variable(WHERE_X)
    expected, = V.grad(V.sum(V.nan_to_num(op(host, axis=1, where=WHERE_KEEP, **kw))), [host])
    on_host = V.nan_to_num(op(host, axis=1, where=WHERE_KEEP, **kw))
    np.testing.assert_allclose(backend.to_cpu(y.data), on_host.data)
    np.testing.assert_allclose(backend.to_cpu(g.data), expected.data, rtol=1e-12)
    with pytest.raises(TypeError, match=rf"{name}: expected the where= mask on the device of the input"):
        op(x, axis=1, where=WHERE_KEEP, **kw)
    row = [True, False, True, True, True]                     # a list: made on the device
    np.testing.assert_allclose(backend.to_cpu(op(x[:2], axis=1, where=row, **kw).data),
                               quiet(getattr(np, name))(WHERE_X[:2], axis=1, where=row, **kw))
