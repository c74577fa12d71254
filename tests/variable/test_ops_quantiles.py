"""median, percentile, quantile and ptp (variable/ops/quantiles.py) against NumPy.

The four are piecewise linear in the sorted entries, so the table checks derivatives to
second order (PIECEWISE) and Taylor mode to order 6, at points whose entries all differ by
a margin (no central difference crosses a tie).  It crosses shapes with axis None / int /
negative / tuple, keepdims, scalar, 1-D and 2-D q, and every one of NumPy's 13 methods.
Below the table: the gradient convention (PyTorch's: the interpolation weights on the two
order statistics), ties, NaN, infinite extremes, empty input, dtypes, the NumPy dispatch,
the device, and each refused argument.
"""

import warnings

import numpy as np
import pytest
from op_rows import PIECEWISE, Row, quiet, table_tests

import variable as V
from variable.ops.quantiles import METHODS


def distinct(*shapes, gap=0.2):
    """Points whose entries all differ by at least `gap`, in a random order (no ties)."""

    def sample(rng):
        out = []
        for s in shapes:
            n = int(np.prod(s))
            values = rng.permutation(n) * gap + rng.uniform(0, gap / 4, n) - n * gap / 2
            out.append(values.reshape(s))
        return tuple(out)

    return sample


def rows(fn, ref, cases, tag=""):
    """One PIECEWISE row of fn(x, **kw) against ref(x, **kw) per (shape, kw) case."""
    return [
        Row(f"{tag}{shape} {kw}", lambda x, kw=kw: fn(x, **kw), lambda x, kw=kw: ref(x, **kw),
            distinct(shape), PIECEWISE)
        for shape, kw in cases
    ]


REDUCE_CASES = [
    ((), {}),
    ((3,), {}),
    ((4,), {}),
    ((2, 3), {}),
    ((2, 3), {"axis": 0}),
    ((2, 3), {"axis": -1, "keepdims": True}),
    ((2, 4), {"axis": 1}),
    ((2, 3), {"axis": (0, 1)}),
    ((2, 3), {"keepdims": True}),
    ((2, 3), {"axis": ()}),
    ((2, 3, 2), {"axis": (0, 2), "keepdims": True}),
    ((2, 3, 2), {"axis": (-1, 0)}),
    ((0, 3), {"axis": 1}),
]
QUANTILE_CASES = [
    ((), {"q": 0.3}),
    ((5,), {"q": 0.3}),
    ((5,), {"q": 0.0}),
    ((5,), {"q": 1.0}),
    ((5,), {"q": 0.5}),
    ((4,), {"q": [0.1, 0.5, 0.9]}),
    ((4,), {"q": [[0.25, 0.6], [1.0, 0.05]]}),
    ((2, 3), {"q": 0.7, "axis": 0}),
    ((2, 3), {"q": [0.2, 0.8], "axis": -1}),
    ((2, 3), {"q": [0.2, 0.8], "axis": 1, "keepdims": True}),
    ((2, 3), {"q": [0.2, 0.8], "keepdims": True}),
    ((2, 3, 2), {"q": [0.4, 0.65], "axis": (0, 2)}),
    ((2, 3, 2), {"q": 0.35, "axis": (2, 0), "keepdims": True}),
    ((2, 3), {"q": [0.3, 0.9], "axis": ()}),
    ((0, 3), {"q": [0.3, 0.9], "axis": 1}),
    ((2, 3), {"q": 0.4, "overwrite_input": True}),
] + [((2, 5), {"q": [0.0, 0.2, 0.45, 0.5, 0.8, 1.0], "axis": 1, "method": m}) for m in METHODS]
PERCENTILE_CASES = [
    ((5,), {"q": 30}),
    ((5,), {"q": 100}),
    ((2, 3), {"q": [10, 50, 95], "axis": 1}),
    ((2, 3, 2), {"q": [25.0, 75.0], "axis": (0, 1), "keepdims": True}),
    ((2, 4), {"q": 40, "axis": 0, "method": "midpoint"}),
    ((2, 4), {"q": [15, 60], "axis": -1, "method": "nearest"}),
    ((3, 4), {"q": 62.5, "method": "hazen"}),
]

_WEIGHTS = [1.0, 0.0, 2.0, 0.5, 1.5]
_FULL_WEIGHTS = [[0.25, 1.0, 2.0], [0.5, 0.0, 1.25]]


def weighted_rows():
    """method='inverted_cdf' with constant weights (lists, which go where the data is): along
    one axis, and of a's shape."""
    cases = [
        ((5,), _WEIGHTS, {"q": [0.0, 0.2, 0.21, 0.5, 1.0]}),
        ((2, 5), _WEIGHTS, {"q": 0.6, "axis": 1}),
        ((2, 5), _WEIGHTS, {"q": [0.3, 0.9], "axis": -1, "keepdims": True}),
        ((2, 3), _FULL_WEIGHTS, {"q": [0.1, 0.7], "axis": 0}),
        ((2, 3), _FULL_WEIGHTS, {"q": 0.45}),
    ]
    return [
        Row(f"weights {shape} {kw}",
            lambda x, w=w, kw=kw: V.quantile(x, weights=w, method="inverted_cdf", **kw),
            lambda x, w=w, kw=kw: np.quantile(x, weights=w, method="inverted_cdf", **kw),
            distinct(shape), PIECEWISE)
        for shape, w, kw in cases
    ]


# ----- nanmedian, nanquantile, nanpercentile ---------------------------------------------
# gradcheck refuses points holding NaN, so a row makes its NaN itself: its function turns the
# sample's entries above THRESHOLD into NaN (a mask of the data itself: no constant array is
# held, and the row runs on the device too), where the sampler put MARK.  The derivatives are
# then checked through the NaN entries (gradient exactly 0 there).  A row with an all-NaN
# slice ends in V.nan_to_num (its NaN results count 0), so the checks see finite numbers.
THRESHOLD, MARK = 2.0, 3.0   # (distinct() samples of up to 20 entries stay below 1.1)


def _with_nan(x):
    return V.where(x > THRESHOLD, np.nan, x)



def marked(shape, nans):
    """distinct() points, MARK (NaN in the rows) at the flat positions `nans`."""
    def sample(rng):
        x, = distinct(shape)(rng)
        x.reshape(-1)[list(nans)] = MARK
        return (x,)
    return sample


def nan_rows(op, ref, cases, tag=""):
    """PIECEWISE rows of op(x with NaN, **kw) against ref for each (shape, NaN positions, kw)."""
    out = []
    for shape, nans, kw in cases:
        fn = lambda x, kw=kw: op(_with_nan(x), **kw)                                   # noqa: E731
        reference = lambda x, kw=kw: quiet(ref)(np.where(x > THRESHOLD, np.nan, x), **kw)  # noqa: E731
        sample = marked(shape, nans)
        label = f"{tag}{shape} NaN at {list(nans)} {kw}"
        if np.isnan(reference(*sample(np.random.default_rng(0)))).any():
            fn = lambda x, f=fn: V.nan_to_num(f(x))                                    # noqa: E731
            reference = lambda x, r=reference: np.nan_to_num(r(x))                     # noqa: E731
            label += ", NaN results to 0"
        out.append(Row(label, fn, reference, sample, PIECEWISE))
    return out


NANMEDIAN_CASES = [
    ((), (), {}),
    ((), (0,), {}),                                            # a NaN scalar
    ((3,), (1,), {}),                                          # two left: their mean
    ((4,), (2,), {}),                                          # three left: the middle one
    ((2, 3), (0, 4), {}),
    ((2, 3), (1, 4), {"axis": 0}),                             # column 1 all NaN
    ((2, 4), (1, 5, 6), {"axis": 1}),                          # 3 and 2 left: odd and even
    ((3, 4), (0, 4, 5, 9, 10, 11), {"axis": 0}),               # 1, 1, 2, 2 left per column
    ((2, 3), (2,), {"axis": -1, "keepdims": True}),
    ((2, 3), (3, 4, 5), {"axis": 1}),                          # row 1 all NaN
    ((2, 3, 2), (1, 6, 11), {"axis": (0, 2), "keepdims": True}),
    ((2, 3, 2), (0, 2, 7), {"axis": (-1, 0)}),
    ((2, 3), (1,), {"axis": ()}),                              # nothing reduced: NaN stays NaN
    ((4,), (0, 1, 2, 3), {}),                                  # all NaN
    ((0, 3), (), {"axis": 1}),                                 # empty
    ((3, 4), (), {"axis": 1}),                                 # no NaN
    ((2, 4), (), {"keepdims": np._NoValue}),
]
NANQUANTILE_CASES = [
    ((), (), {"q": 0.3}),
    ((), (0,), {"q": [0.3, 0.8]}),
    ((5,), (1,), {"q": 0.3}),
    ((5,), (0, 3), {"q": [0.0, 0.5, 1.0]}),
    ((4,), (2,), {"q": [[0.25, 0.6], [1.0, 0.05]]}),
    ((2, 5), (1, 5, 6, 8), {"q": 0.7, "axis": 1}),             # 4 and 2 left
    ((3, 4), (0, 4, 5, 9), {"q": [0.2, 0.8], "axis": 0}),      # 1, 1, 3, 3 left
    ((3, 4), (0, 1, 2, 3, 7), {"q": [0.2, 0.8], "axis": -1}),  # 0, 3, 4 left
    ((2, 3), (3, 4, 5), {"q": [0.2, 0.8], "axis": 1, "keepdims": True}),   # row 1 all NaN
    ((2, 3), (1,), {"q": [0.2, 0.8], "keepdims": True}),
    ((2, 3, 2), (1, 6, 11), {"q": [0.4, 0.65], "axis": (0, 2)}),
    ((2, 3, 2), (0, 7), {"q": 0.35, "axis": (2, 0), "keepdims": True}),
    ((2, 3), (2,), {"q": [0.3, 0.9], "axis": ()}),
    ((4,), (0, 1, 2, 3), {"q": [0.3, 0.9]}),                   # all NaN
    ((0, 3), (), {"q": 0.5, "axis": 1}),                       # empty
    ((2, 3), (), {"q": 0.4, "overwrite_input": True}),         # no NaN
] + [((2, 6), (1, 7, 8), {"q": [0.0, 0.2, 0.45, 0.5, 0.8, 1.0], "axis": 1, "method": m})
     for m in METHODS] + [                                     # 5 and 4 left, every method
    ((3, 5), (2, 5, 6, 7, 8, 9), {"q": [0.1, 0.5, 1.0], "axis": 1, "method": m})
    for m in ("lower", "higher", "nearest", "midpoint", "hazen")   # 4, 0 and 5 left
]
NANPERCENTILE_CASES = [
    ((5,), (2,), {"q": 30}),
    ((5,), (0,), {"q": 100}),
    ((2, 4), (1, 5, 6), {"q": [10, 50, 95], "axis": 1}),
    ((2, 3, 2), (0, 3, 4), {"q": [25.0, 75.0], "axis": (0, 1), "keepdims": True}),
    ((2, 4), (0, 7), {"q": 40, "axis": 0, "method": "midpoint"}),
    ((2, 4), (1,), {"q": [15, 60], "axis": -1, "method": "nearest"}),
    ((3, 4), (2, 3), {"q": 62.5, "method": "hazen"}),
    ((2, 3), (0, 1, 2), {"q": [20, 80], "axis": 1}),           # row 0 all NaN
    ((2, 4), (1, 6), {"q": 50, "axis": 1, "method": "lower"}),
    ((2, 4), (1, 6), {"q": 50, "axis": 1, "method": "higher"}),
]
_NAN_WEIGHTS = [[1.0, 0.0, 2.0, 0.5, 1.5], [0.5, 3.0, 1.0, 0.0, 2.0]]


def nan_weighted_rows():
    """method='inverted_cdf' with constant weights (lists): those of NaN entries are left out.
    (Along one axis, weights of a's shape: NumPy's nanquantile fails on weights of the
    axis' shape there; an all-NaN slice gives NaN.)"""
    cases = [
        ((5,), (1,), _NAN_WEIGHTS[0], {"q": [0.0, 0.2, 0.5, 1.0]}),
        ((2, 5), (2, 6), _NAN_WEIGHTS, {"q": [0.3, 0.9], "axis": 1}),
        ((2, 5), (5, 6, 7, 8, 9), _NAN_WEIGHTS, {"q": 0.6, "axis": -1, "keepdims": True}),
        ((2, 5), (0, 3), _NAN_WEIGHTS, {"q": 0.45}),
    ]
    return [
        row
        for shape, nans, w, kw in cases
        for row in nan_rows(
            lambda x, w=w, **kw: V.nanquantile(x, weights=w, method="inverted_cdf", **kw),
            lambda x, w=w, **kw: np.nanquantile(x, weights=w, method="inverted_cdf", **kw),
            [(shape, nans, kw)], "weights ",
        )
    ]


ROWS = {
    "median": rows(V.median, np.median, REDUCE_CASES),
    "quantile": rows(V.quantile, np.quantile, QUANTILE_CASES) + weighted_rows(),
    "percentile": rows(V.percentile, np.percentile, PERCENTILE_CASES),
    "ptp": rows(V.ptp, np.ptp, REDUCE_CASES),
    "nanmedian": nan_rows(V.nanmedian, np.nanmedian, NANMEDIAN_CASES),
    "nanquantile": nan_rows(V.nanquantile, np.nanquantile, NANQUANTILE_CASES) + nan_weighted_rows(),
    "nanpercentile": nan_rows(V.nanpercentile, np.nanpercentile, NANPERCENTILE_CASES),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


def gradient(f, x):
    """The gradient of sum(f(x)) at the point x (host arrays in and out)."""
    v = V.Variable(np.array(x, dtype=float))
    V.sum(f(v)).backward()
    return V.backend.to_cpu(v.grad.data)


# ----- the gradient convention --------------------------------------------------------
def test_gradient_is_the_interpolation_weights_on_the_order_statistics():
    """As torch.quantile: sorted [1, 2, 3, 4] at q = 0.25 is 1 + 0.75 (2 - 1), so 0.25 goes
    to the entry 1 and 0.75 to the entry 2, wherever they sit in the input."""
    x = [3.0, 1.0, 4.0, 2.0]
    np.testing.assert_allclose(gradient(lambda v: V.quantile(v, 0.25), x), [0.0, 0.25, 0.0, 0.75])
    np.testing.assert_allclose(gradient(lambda v: V.quantile(v, 0.5), x), [0.5, 0.0, 0.0, 0.5])
    np.testing.assert_allclose(gradient(lambda v: V.percentile(v, 100), x), [0.0, 0.0, 1.0, 0.0])
    np.testing.assert_allclose(gradient(lambda v: V.quantile(v, 0.4, method="lower"), x), [0, 0, 0, 1.0])
    np.testing.assert_allclose(gradient(lambda v: V.quantile(v, 0.4, method="higher"), x), [1.0, 0, 0, 0])
    np.testing.assert_allclose(gradient(lambda v: V.quantile(v, 0.4, method="midpoint"), x), [0.5, 0, 0, 0.5])
    # several q: each adds its weights
    np.testing.assert_allclose(gradient(lambda v: V.quantile(v, [0.0, 1 / 3]), x), [0.0, 1.0, 0.0, 1.0])


def test_median_gradient_goes_to_the_middle_entries():
    np.testing.assert_array_equal(gradient(V.median, [0.5, -2.0, 3.0]), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(gradient(V.median, [0.5, -2.0, 3.0, 7.0]), [0.5, 0.0, 0.5, 0.0])
    np.testing.assert_array_equal(
        gradient(lambda v: V.median(v, axis=0), [[1.0, 5.0], [2.0, 4.0], [3.0, 6.0]]),
        [[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]],
    )


def test_second_derivatives_are_zero():
    """Piecewise linear in the data: the gradient is constant between ties."""
    x = V.Variable(np.array([[0.3, -1.0, 2.0, 0.9], [1.0, 2.0, -3.0, 0.5]]))
    for f in (lambda v: V.quantile(v, [0.3, 0.7], axis=1), lambda v: V.median(v, axis=1), V.ptp):
        first, = V.grad(V.sum(f(x)), [x], create_graph=True)
        second, = V.grad(V.sum(first * first), [x], allow_unused=True, materialize_grads=True)
        np.testing.assert_array_equal(second.data, np.zeros(x.shape))


# ----- ties ----------------------------------------------------------------------------
def test_ties_give_the_gradient_of_a_position_to_one_entry():
    """A stable sort: tied entries take sorted positions in their input order."""
    np.testing.assert_array_equal(gradient(V.median, [1.0, 1.0, 1.0]), [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(gradient(V.median, [2.0, 1.0, 2.0, 0.0]), [0.5, 0.5, 0.0, 0.0])
    np.testing.assert_array_equal(gradient(lambda v: V.quantile(v, 1.0), [2.0, 2.0, 0.0]), [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(gradient(lambda v: V.quantile(v, 0.0), [2.0, 0.0, 0.0]), [0.0, 1.0, 0.0])
    # the total gradient is 1 whatever the tie: q = 0.75 of [5, 5, 5] is 5 + 0.5 (5 - 5)
    np.testing.assert_allclose(gradient(lambda v: V.quantile(v, 0.75), [5.0, 5.0, 5.0]), [0.0, 0.5, 0.5])


def test_ptp_ties_share_as_max_and_min_do():
    np.testing.assert_allclose(gradient(V.ptp, [1.0, 3.0, 3.0, 1.0]), [-0.5, 0.5, 0.5, -0.5])
    np.testing.assert_array_equal(gradient(V.ptp, [2.0, 2.0, 2.0]), [0.0, 0.0, 0.0])   # constant: 0
    np.testing.assert_allclose(
        gradient(lambda v: V.ptp(v, axis=1), [[0.0, 4.0, -1.0], [2.0, 2.0, 1.0]]),
        [[0.0, 1.0, -1.0], [0.5, 0.5, -1.0]],
    )


# ----- NaN, infinities, empty input ------------------------------------------------------------
def test_a_slice_holding_nan_gives_nan_and_its_last_nan_the_gradient():
    x = np.array([[1.0, np.nan, 3.0, np.nan], [1.0, 2.0, 3.0, 4.0]])
    for f, ref in [
        (lambda v: V.median(v, axis=1), lambda a: np.median(a, axis=1)),
        (lambda v: V.quantile(v, [0.0, 0.3, 1.0], axis=1), lambda a: np.quantile(a, [0.0, 0.3, 1.0], axis=1)),
        (lambda v: V.percentile(v, 50, axis=-1, method="lower"), lambda a: np.percentile(a, 50, axis=-1,
                                                                                         method="lower")),
    ]:
        np.testing.assert_array_equal(f(V.Variable(x)).data, ref(x))
        g = gradient(f, x)
        assert g[0, 3] > 0 and not np.any(g[0, :3])           # only the NaN sorted last
        np.testing.assert_allclose(g[1].sum(), g[0].sum())     # one unit per result entry
    # ptp follows max and min: NaN, and the NaN gets the gradient of both (which cancels)
    np.testing.assert_array_equal(V.ptp(x, axis=1).data, np.ptp(x, axis=1))


def test_one_order_statistic_is_returned_as_it_is_even_when_infinite():
    """At q = 0 or 1 (g = 0) the extreme itself: inf, where NumPy's lerp gives inf - inf = NaN."""
    assert V.quantile([1.0, np.inf], 1.0).item() == np.inf
    assert V.quantile([-np.inf, 1.0, 2.0], 0.0).item() == -np.inf
    assert V.percentile([-np.inf, 1.0, np.inf], 50).item() == 1.0
    assert V.median([1.0, np.inf]).item() == np.median([1.0, np.inf]) == np.inf
    with np.errstate(invalid="ignore"):                       # between 1 and inf, as NumPy: NaN
        assert np.isnan(V.quantile([1.0, np.inf], 0.5).item())
    x = V.Variable(np.array([1.0, np.inf, -np.inf]))
    V.quantile(x, [0.0, 1.0]).backward()                      # (seeded with ones: no inf - inf)
    np.testing.assert_array_equal(x.grad.data, [0.0, 1.0, 1.0])


def test_empty_input():
    x = V.Variable(np.zeros((0, 3)))
    y = V.median(x, axis=0)                                    # NaN, as NumPy (without its warning)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_array_equal(y.data, np.median(np.zeros((0, 3)), axis=0))
    y.backward()
    assert x.grad.shape == (0, 3)
    assert np.isnan(V.median(np.zeros(0)).item())
    assert V.median(np.zeros((0, 3)), axis=1).shape == (0,)
    assert V.quantile(np.zeros((0, 3)), [0.5, 0.7], axis=1).shape == (2, 0)
    assert V.quantile(np.ones(4), []).shape == (0,)             # an empty q: an empty result
    assert V.percentile(np.ones((2, 4)), np.zeros((0, 2)), axis=1).shape == (0, 2, 2)
    for call in (lambda: V.quantile(np.zeros(0), 0.5), lambda: V.percentile(np.zeros((2, 0)), 5, axis=1)):
        with pytest.raises(ValueError, match="cannot take a quantile over an empty axis"):
            call()
    with pytest.raises(ValueError, match=r"ptp: cannot reduce over an empty axis \(input of shape \(0, 3\)"):
        V.ptp(np.zeros((0, 3)), axis=0)


# ----- dtypes, q, keywords ---------------------------------------------------------------------
def test_dtypes():
    ints = np.array([[4, 1, 3], [2, 9, 5]])
    assert V.median(ints, axis=1).dtype == np.median(ints, axis=1).dtype == np.float64
    for method in ("linear", "midpoint", "hazen", "lower", "nearest", "inverted_cdf"):
        got = V.quantile(ints, 0.4, axis=1, method=method)
        want = np.quantile(ints, 0.4, axis=1, method=method)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.data, want)
    assert V.ptp(ints).dtype == np.ptp(ints).dtype
    x = V.Variable(np.array([0.5, -1.0, 2.0, 0.25], dtype=np.float32))
    for y in (V.quantile(x, np.array([0.3, 0.6])), V.percentile(x, 30), V.median(x), V.ptp(x)):
        assert y.dtype == np.float32                           # (NumPy: float64 for an array q)
        y.sum().backward()
        assert x.grad.dtype == np.float32
        x.cleargrad()


def test_booleans_as_numpy_takes_them():
    """median (a mean) and the discrete methods take booleans and keep them, as NumPy; the
    interpolating methods and ptp subtract, which NumPy refuses, and so does gengrad (above)."""
    b = np.array([[True, False, True, True], [False, False, True, False]])
    np.testing.assert_array_equal(V.median(b, axis=1).data, np.median(b, axis=1))
    for method in ("lower", "higher", "nearest", "inverted_cdf", "closest_observation"):
        got, want = V.quantile(b, [0.0, 0.3, 1.0], axis=1, method=method), np.quantile(
            b, [0.0, 0.3, 1.0], axis=1, method=method)
        assert got.dtype == want.dtype == np.bool_
        np.testing.assert_array_equal(got.data, want)
    for call in (lambda m: m.quantile(b, 0.3), lambda m: m.ptp(b)):
        with pytest.raises(TypeError, match="boolean"):
            call(np)
        with pytest.raises(TypeError, match="boolean"):
            call(V)


def test_q_is_a_constant():
    x = np.array([3.0, 1.0, 4.0, 2.0])
    q = V.Variable(np.array([0.25, 0.5]))
    with pytest.raises(TypeError, match=r"quantile: q is a constant of the op .* e\.g\. q\.detach\(\)"):
        V.quantile(x, q)
    with pytest.raises(TypeError, match="percentile: q is a constant of the op"):
        V.percentile(x, V.Variable(50.0))
    np.testing.assert_array_equal(V.quantile(x, q.detach()).data, np.quantile(x, [0.25, 0.5]))
    np.testing.assert_array_equal(V.quantile(x, [0, 1]).data, [1.0, 4.0])     # integer q
    np.testing.assert_array_equal(V.percentile(x, np.float32(25.0)).data, np.percentile(x, np.float32(25)))


def test_overwrite_input_is_accepted_and_changes_nothing():
    data = np.array([[3.0, 1.0, 2.0], [0.0, -1.0, 5.0]])
    kept = data.copy()
    for f in (lambda a: V.median(a, axis=1, overwrite_input=True),
              lambda a: V.quantile(a, 0.3, overwrite_input=True),
              lambda a: V.percentile(a, [20, 80], axis=0, overwrite_input=True)):
        f(data)
        f(V.Variable(data))
    np.testing.assert_array_equal(data, kept)


def test_interpolation_is_the_old_name_of_method():
    x = np.array([3.0, 1.0, 4.0, 2.0])
    with pytest.warns(DeprecationWarning, match="quantile: the interpolation= argument is deprecated"):
        y = V.quantile(x, 0.4, interpolation="higher")
    assert y.item() == np.quantile(x, 0.4, method="higher")
    with pytest.warns(DeprecationWarning, match="percentile: the interpolation="):
        assert V.percentile(x, 40, interpolation="nearest").item() == np.percentile(x, 40, method="nearest")
    with pytest.raises(TypeError, match="quantile: give method or interpolation, not both"):
        V.quantile(x, 0.4, method="lower", interpolation="higher")


def test_weights_pick_the_first_entry_reaching_q():
    data = np.array([[0.3, -1.0, 2.0, 0.9], [1.0, 2.0, -3.0, 0.5]])
    x = V.Variable(data)
    w = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 3.0, 0.0, 1.0]])
    for q in (0.0, 0.25, 0.26, 0.5, 0.75, 0.76, 1.0):
        np.testing.assert_array_equal(
            V.quantile(x, q, axis=1, weights=w, method="inverted_cdf").data,
            np.quantile(data, q, axis=1, weights=w, method="inverted_cdf"),
        )
    y = V.percentile(x, [40, 90], axis=1, weights=w, method="inverted_cdf")
    y.sum().backward()
    # row 0 sorted -1, 0.3, 0.9, 2 with cdf 1/4, 1/2, 3/4, 1: 0.3 at q = 0.4, 2 at q = 0.9;
    # row 1 sorted -3, 0.5, 1, 2 with cdf 0, 1/4, 1/4, 1: 2 at both
    np.testing.assert_array_equal(x.grad.data, [[1.0, 0.0, 1.0, 0.0], [0.0, 2.0, 0.0, 0.0]])
    data = np.arange(24.0).reshape(2, 3, 4)[..., ::-1]
    along = np.arange(1.0, 9.0).reshape(4, 2)
    np.testing.assert_array_equal(      # weights along a tuple of axes, in the order axis names them
        V.quantile(data, [0.3, 0.8], axis=(2, 0), weights=along, method="inverted_cdf").data,
        np.quantile(data, [0.3, 0.8], axis=(2, 0), weights=along, method="inverted_cdf"),
    )


# ----- NumPy's dispatch -----------------------------------------------------------------
def test_numpy_functions_dispatch_to_the_ops():
    x = V.Variable(np.array([[3.0, 1.0, 4.0], [1.5, 9.0, 2.0]]))
    for call, ref in [
        (lambda a: np.median(a, axis=1), lambda a: np.median(a, axis=1)),
        (lambda a: np.quantile(a, [0.25, 0.5], axis=0, method="midpoint"),
         lambda a: np.quantile(a, [0.25, 0.5], axis=0, method="midpoint")),
        (lambda a: np.percentile(a, 90, keepdims=True), lambda a: np.percentile(a, 90, keepdims=True)),
        (lambda a: np.ptp(a, axis=0), lambda a: np.ptp(a, axis=0)),
    ]:
        y = call(x)
        assert isinstance(y, V.Variable)
        np.testing.assert_array_equal(y.data, ref(x.data))
        g, = V.grad(V.sum(y), [x])
        numerical = V.numerical_grad(lambda a, call=call: V.sum(call(a)), x.data)
        np.testing.assert_allclose(g.data, numerical, atol=1e-8)


# ----- on the device ---------------------------------------------------------------------
DEVICE_CALLS = {
    "median": lambda x: V.median(x, axis=1),
    "quantile": lambda x: V.quantile(x, [0.0, 0.3, 0.5], axis=-1, keepdims=True),
    "percentile": lambda x: V.percentile(x, 35, method="hazen"),
    "ptp": lambda x: V.ptp(x, axis=0),
    "weighted": lambda x: V.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=[1.0, 2.0, 0.0, 1.0]),
}


def test_weights_on_another_device_than_the_data_are_refused(gpu):
    with pytest.raises(TypeError, match="quantile: weights on the GPU and data on the CPU"):
        V.quantile(V.Variable(np.ones(3)).to_cpu(), 0.5, weights=V.backend.to_gpu(np.ones(3)),
                   method="inverted_cdf")


@pytest.mark.parametrize("name", DEVICE_CALLS)
def test_ops_run_on_the_device(name, gpu):
    f = DEVICE_CALLS[name]
    data = np.array([[0.33, -1.27, 1.41, 0.2], [np.nan, 0.5, -0.1, 0.7], [2.0, 1.0, 0.0, 3.0]])
    x = V.Variable(data).to_gpu()
    y = f(x)
    assert y.device == "gpu"
    np.testing.assert_array_equal(V.backend.to_cpu(y.data), f(V.Variable(data)).data)
    g, = V.grad(y.sum(), [x], create_graph=True)
    assert g.device == "gpu" and g.shape == x.shape
    coefficients = V.taylor(f, x, V.Variable(np.ones(data.shape)).to_gpu(), 3)
    assert all(c.device == "gpu" for c in coefficients)


# ----- refused arguments ---------------------------------------------------------------
X = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("call, match", [
    (lambda: V.median(X, out=np.empty(3)), "median: out= is not supported"),
    (lambda: V.quantile(X, 0.5, out=np.empty(())), "quantile: out= is not supported"),
    (lambda: V.percentile(X, 50, out=np.empty(())), "percentile: out= is not supported"),
    (lambda: V.ptp(X, out=np.empty(())), "ptp: out= is not supported"),
    (lambda: V.quantile(X, "half"), "quantile: q must be real numbers, got dtype <U4"),
    (lambda: V.quantile(X, [True]), "quantile: q must be real numbers, got dtype bool"),
    (lambda: V.quantile(X, [[0.1], [0.2, 0.3]]), "quantile: q must be a number or a rectangular array"),
    (lambda: V.median(X, axis=1.0), "median: axis must be None, an int or a tuple of ints"),
    (lambda: V.quantile(X, 0.5, weights=V.Variable(np.ones((2, 3))), method="inverted_cdf"),
     r"quantile: weights are constants of the op .* e\.g\. weights\.detach\(\)"),
    (lambda: V.quantile(X, 0.5, weights=np.ones(3), method="inverted_cdf"),
     r"quantile: weights of shape \(3,\) differ from a's shape \(2, 3\); give the axis"),
    (lambda: V.quantile(X, 0.5, weights=np.array(["a"] * 6).reshape(2, 3), method="inverted_cdf"),
     "quantile: weights must be real numbers"),
    (lambda: V.median("x"), "median"),
    (lambda: V.quantile(np.array([True, False, True]), 0.3),
     r"quantile: method 'linear' interpolates, which subtracts booleans .* a\.astype\(float\)"),
    (lambda: V.percentile(np.array([True]), 50, method="hazen"), "percentile: method 'hazen' interpolates"),
    (lambda: V.ptp(np.array([[True, False]]), axis=1), "ptp: boolean input: max - min subtracts booleans"),
])
def test_refused_types(call, match):
    with pytest.raises(TypeError, match=match):
        call()


@pytest.mark.parametrize("call, match", [
    (lambda: V.quantile(X, 1.5), r"quantile: q must lie in \[0, 1\], got \[1\.5\]"),
    (lambda: V.quantile(X, [0.2, -0.1, 0.3]), r"quantile: q must lie in \[0, 1\], got \[-0\.1\]"),
    (lambda: V.quantile(X, np.nan), r"quantile: q must lie in \[0, 1\], got \[nan\]"),
    (lambda: V.percentile(X, 101), r"percentile: q must lie in \[0, 100\], got \[101\]"),
    (lambda: V.percentile(X, [50, -1]), r"percentile: q must lie in \[0, 100\]"),
    (lambda: V.quantile(X, np.full((1, 1, 1), 0.5)),
     r"quantile: q must be a scalar, 1-D or 2-D .* \(1, 1, 1\)"),
    (lambda: V.quantile(X, 0.5, method="bogus"),
     "quantile: method must be one of inverted_cdf, .*; got 'bogus'"),
    (lambda: V.percentile(X, 5, interpolation="cubic"), "percentile: method must be one of"),
    (lambda: V.quantile(X, 0.5, axis=2), r"quantile: axis 2 is out of range for an input of shape \(2, 3\)"),
    (lambda: V.median(X, axis=(0, -2)), "median: repeated axis"),
    (lambda: V.ptp(X, axis=-3), "ptp: axis -3 is out of range"),
    (lambda: V.quantile(X, 0.5, weights=np.ones((2, 3))),
     "quantile: only method='inverted_cdf' takes weights .*, got 'linear'"),
    (lambda: V.quantile(X, 0.5, axis=1, weights=np.ones(2), method="inverted_cdf"),
     r"quantile: weights of shape \(2,\) do not match a's shape \(2, 3\) along axis 1 \(expected \(3,\)\)"),
    (lambda: V.quantile(X, 0.5, axis=1, weights=[1.0, -1.0, 1.0], method="inverted_cdf"),
     "quantile: weights must be non-negative"),
    (lambda: V.quantile(X, 0.5, axis=1, weights=[0.0, 0.0, 0.0], method="inverted_cdf"),
     "quantile: the weights hold NaN or inf, or sum to 0"),
    (lambda: V.percentile(X, 5, weights=np.full((2, 3), np.inf), method="inverted_cdf"),
     "percentile: the weights hold NaN or inf"),
])
def test_refused_values(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_no_host_sync_on_the_device(gpu, request):
    """Positions come from q on the host, the NaN check is a device mask: forward, backward
    and Taylor mode read no device data on the host (the weighted quantile checks its
    weights there, as NumPy raises on bad ones)."""
    plugins = request.config.pluginmanager.get_plugins()
    fake = next((p.FAKE_GPU for p in plugins if hasattr(p, "FAKE_GPU")), None)
    if fake is None or gpu is not fake.module:
        pytest.skip("syncs are counted on the CPU stand-in only")
    x = V.Variable(np.array([[0.3, -1.0, 2.0, 0.9], [1.0, np.nan, -3.0, 0.5]])).to_gpu()
    with fake.count_syncs() as syncs:
        for f in (lambda v: V.quantile(v, [0.0, 0.3, 0.5], axis=1), lambda v: V.median(v, axis=0),
                  lambda v: V.percentile(v, 75, method="nearest"), V.ptp):
            V.grad(V.sum(f(x) ** 2), [x], create_graph=True)
            V.taylor(f, x, x.data, 2)
    assert syncs.count == 0, syncs.where


# ----- nanmedian, nanquantile, nanpercentile -----------------------------------------------
NAN_OPS = {
    "nanmedian": (lambda a, **kw: V.nanmedian(a, **kw), lambda a, **kw: np.nanmedian(a, **kw)),
    "nanquantile": (lambda a, **kw: V.nanquantile(a, [0.0, 0.3, 0.5, 1.0], **kw),
                    lambda a, **kw: np.nanquantile(a, [0.0, 0.3, 0.5, 1.0], **kw)),
    "nanpercentile": (lambda a, **kw: V.nanpercentile(a, 35, method="hazen", **kw),
                      lambda a, **kw: np.nanpercentile(a, 35, method="hazen", **kw)),
}
COUNTS = np.array([[0.7, np.nan, -1.2, 0.4, 2.5],          # 4 left
                   [np.nan, 1.1, np.nan, np.nan, -0.6],    # 2 left
                   [0.3, -0.9, 1.6, -2.0, 0.8],            # 5 left (no NaN)
                   [np.nan, np.nan, 5.0, np.nan, np.nan]])  # 1 left


def test_nan_ops_gradient_is_the_interpolation_weights_on_the_entries_left():
    """As torch.nanquantile: sorted entries left [1, 2, 3, 4] at q = 0.25 is 1 + 0.75 (2 - 1),
    so 0.25 goes to the entry 1 and 0.75 to the entry 2; the NaN entries get 0."""
    x = [3.0, np.nan, 1.0, 4.0, np.nan, 2.0]
    np.testing.assert_allclose(gradient(lambda v: V.nanquantile(v, 0.25), x), [0, 0, 0.25, 0, 0, 0.75])
    np.testing.assert_allclose(gradient(lambda v: V.nanpercentile(v, 100), x), [0, 0, 0, 1.0, 0, 0])
    np.testing.assert_allclose(gradient(lambda v: V.nanquantile(v, 0.4, method="lower"), x),
                               [0, 0, 0, 0, 0, 1.0])
    np.testing.assert_allclose(gradient(lambda v: V.nanquantile(v, 0.4, method="midpoint"), x),
                               [0.5, 0, 0, 0, 0, 0.5])
    np.testing.assert_allclose(gradient(V.nanmedian, x), [0.5, 0, 0, 0, 0, 0.5])        # (2 + 3) / 2
    np.testing.assert_allclose(gradient(V.nanmedian, [np.nan, 0.5, -2.0, 3.0]), [0, 1.0, 0, 0])


@pytest.mark.parametrize("name", NAN_OPS)
def test_nan_ops_take_each_slice_with_its_own_count(name):
    """Row by row: the plain op on the row's entries that are not NaN, in value and gradient
    (NaN entries: 0), though the rows keep 4, 2, 5 and 1 entries."""
    op, ref = NAN_OPS[name]
    plain = {"nanmedian": V.median, "nanquantile": lambda a: V.quantile(a, [0.0, 0.3, 0.5, 1.0]),
             "nanpercentile": lambda a: V.percentile(a, 35, method="hazen")}[name]
    x = V.Variable(COUNTS)
    y = op(x, axis=1)
    np.testing.assert_allclose(y.data, ref(COUNTS, axis=1), rtol=1e-12)
    seed = np.linspace(0.5, 2.0, y.size).reshape(y.shape)
    g, = V.grad(V.sum(y * seed), [x])
    for i, row in enumerate(COUNTS):
        kept = V.Variable(row[~np.isnan(row)])
        expected, = V.grad(V.sum(plain(kept) * seed[..., i]), [kept])
        np.testing.assert_allclose(g.data[i][~np.isnan(row)], expected.data, rtol=1e-12)
        np.testing.assert_array_equal(g.data[i][np.isnan(row)], 0.0)


@pytest.mark.parametrize("name", NAN_OPS)
def test_nan_ops_all_nan_slices_give_nan_gradient_zero_and_no_warning(name):
    op, ref = NAN_OPS[name]
    data = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, -2.0]])
    x = V.Variable(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                         # NumPy warns "All-NaN slice encountered"
        y = op(x, axis=1)
        g, = V.grad(V.nan_to_num(y).sum(), [x], create_graph=True)
        h, = V.grad(V.sum(g * g), [x], materialize_grads=True)
        _, tangent = V.jvp(lambda a: V.nan_to_num(op(a, axis=1)), data, np.ones((2, 3)))
    np.testing.assert_array_equal(y.data, quiet(ref)(data, axis=1))
    assert np.all(np.isnan(y.data[..., 0]))
    assert np.all(np.isfinite(g.data)) and np.all(np.isfinite(h.data)) and np.all(np.isfinite(tangent.data))
    np.testing.assert_array_equal(g.data[0], 0.0)               # the all-NaN slice
    np.testing.assert_array_equal(g.data[1, 1], 0.0)            # a NaN entry
    assert g.data[1, [0, 2]].sum() > 0                          # the entries left
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(op(np.full(4, np.nan)).data).all()      # everything NaN: NaN, no warning


def test_nan_ops_weights_leave_out_the_nan_entries():
    data = np.array([[0.3, np.nan, 2.0, 0.9], [np.nan, np.nan, np.nan, np.nan], [1.0, 2.0, -3.0, np.nan]])
    w = np.array([[1.0, 5.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [0.0, 3.0, 0.0, 2.0]])
    x = V.Variable(data)
    for q in (0.0, 0.3, 0.5, 0.51, 1.0):
        np.testing.assert_array_equal(
            V.nanquantile(x, q, axis=1, weights=w, method="inverted_cdf").data,
            quiet(np.nanquantile)(data, q, axis=1, weights=w, method="inverted_cdf"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = V.nanpercentile(x, [40, 90], axis=1, weights=w, method="inverted_cdf")
    V.nan_to_num(y).sum().backward()
    # row 0: 0.3, 0.9, 2 left with cdf 1/3, 2/3, 1 (the NaN's weight 5 is left out): 0.9, 2
    np.testing.assert_array_equal(x.grad.data, [[0, 0, 1.0, 1.0], [0, 0, 0, 0], [0, 2.0, 0, 0]])
    with pytest.raises(ValueError, match="nanquantile: the weights hold NaN or inf, or sum to 0"):
        V.nanquantile([1.0, np.nan, 2.0], 0.5, weights=[0.0, 1.0, 0.0], method="inverted_cdf")


def test_nan_ops_ties_infinities_and_second_derivatives():
    # a stable sort: tied entries take sorted positions in their input order
    np.testing.assert_array_equal(gradient(V.nanmedian, [1.0, np.nan, 1.0, 1.0]), [0, 0, 1.0, 0])
    np.testing.assert_array_equal(gradient(lambda v: V.nanquantile(v, 1.0), [2.0, 2.0, np.nan]), [0, 1.0, 0])
    # one order statistic is returned as it is; the median of [1, inf] is inf, as in NumPy
    assert V.nanmedian([1.0, np.inf, np.nan]).item() == np.nanmedian([1.0, np.inf, np.nan]) == np.inf
    assert V.nanquantile([-np.inf, np.nan, 1.0], 0.0).item() == -np.inf
    np.testing.assert_array_equal(gradient(lambda v: V.nanquantile(v, [0.0, 1.0]), [-np.inf, np.nan, 1.0]),
                                  [1.0, 0, 1.0])
    x = V.Variable(COUNTS)
    for f in (lambda v: V.nanquantile(v, [0.3, 0.7], axis=1), lambda v: V.nanmedian(v, axis=0)):
        first, = V.grad(V.sum(f(x)), [x], create_graph=True)
        second, = V.grad(V.sum(first * first), [x], allow_unused=True, materialize_grads=True)
        np.testing.assert_array_equal(second.data, np.zeros(x.shape))


def test_nan_ops_without_nan_are_the_plain_ops():
    data = np.array([[0.3, -1.0, 2.0, 0.9], [1.0, 2.0, -3.0, 0.5]])
    for nan_op, op, kw in [(V.nanmedian, V.median, {"axis": 1}),
                           (V.nanquantile, V.quantile, {"q": [0.2, 0.5], "axis": 0, "method": "weibull"}),
                           (V.nanpercentile, V.percentile, {"q": 70, "keepdims": True})]:
        x = V.Variable(data)
        y, expected = nan_op(x, **kw), op(x, **kw)
        np.testing.assert_array_equal(y.data, expected.data)
        g, e = V.grad(V.sum(y), [x])[0], V.grad(V.sum(expected), [x])[0]
        np.testing.assert_array_equal(g.data, e.data)


def test_nan_ops_integer_and_boolean_input_as_median_and_quantile():
    ints = np.array([[4, 1, 3], [2, 9, 5]])
    assert V.nanmedian(ints, axis=1).dtype == np.nanmedian(ints, axis=1).dtype == np.float64
    np.testing.assert_array_equal(V.nanmedian(ints, axis=1).data, np.nanmedian(ints, axis=1))
    for method in ("linear", "hazen", "lower", "inverted_cdf"):
        got = V.nanquantile(ints, 0.4, axis=1, method=method)
        want = np.nanquantile(ints, 0.4, axis=1, method=method)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.data, want)
    b = np.array([True, False, True])
    np.testing.assert_array_equal(V.nanmedian(b).data, np.nanmedian(b))
    np.testing.assert_array_equal(V.nanpercentile(b, 50, method="nearest").data,
                                  np.nanpercentile(b, 50, method="nearest"))


def test_nan_ops_float32_stays_float32():
    x = V.Variable(np.array([[0.5, np.nan, 2.0, 0.25], [np.nan] * 4], dtype=np.float32))
    for y in (V.nanquantile(x, np.array([0.3, 0.6]), axis=1), V.nanpercentile(x, 30, axis=1),
              V.nanmedian(x, axis=1)):
        assert y.dtype == np.float32
        g, = V.grad(V.nan_to_num(y).sum(), [x])
        assert g.dtype == np.float32 and np.all(g.data[1] == 0)


def test_nan_ops_empty_input_as_numpy():
    """NumPy answers empty input with nanmean (NaN over an empty axis, q's axes dropped)."""
    for shape, kw in [((0, 3), {"axis": 0}), ((0, 3), {"axis": 1}), ((2, 0), {"axis": 1, "keepdims": True}),
                      ((0,), {})]:
        empty = np.zeros(shape)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = [V.nanmedian(empty, **kw), V.nanquantile(empty, [0.3, 0.9], **kw),
                   V.nanpercentile(empty, 5, **kw)]
        want = [quiet(np.nanmedian)(empty, **kw), quiet(np.nanquantile)(empty, [0.3, 0.9], **kw),
                quiet(np.nanpercentile)(empty, 5, **kw)]
        for y, e in zip(got, want):
            assert y.shape == e.shape
            np.testing.assert_array_equal(y.data, e)
    x = V.Variable(np.zeros((0, 3)))
    V.nanmedian(x, axis=0).backward()
    assert x.grad.shape == (0, 3)


def test_nan_ops_q_axes_come_first_with_tuple_axes():
    """As np.quantile (NumPy's nanquantile misplaces a 2-D q's axes under a tuple of axes)."""
    data = np.arange(24.0).reshape(2, 3, 4)
    data[0, 1, 2] = np.nan
    y = V.nanquantile(data, [[0.1, 0.9]], axis=(0, 2))
    assert y.shape == np.quantile(data, [[0.1, 0.9]], axis=(0, 2)).shape == (1, 2, 3)
    np.testing.assert_allclose(y.data[0], quiet(np.nanquantile)(data, [0.1, 0.9], axis=(0, 2)), rtol=1e-12)


def test_nan_ops_keywords():
    x = np.array([[3.0, np.nan, 4.0], [2.0, 1.0, np.nan]])
    np.testing.assert_array_equal(V.nanmedian(x, axis=1, keepdims=np._NoValue).data, [3.5, 1.5])
    np.testing.assert_array_equal(V.nanquantile(x, 0.5, axis=0, keepdims=True).data,
                                  np.nanquantile(x, 0.5, axis=0, keepdims=True))
    kept = x.copy()
    V.nanpercentile(x, 50, overwrite_input=True)
    V.nanmedian(x, overwrite_input=True)
    np.testing.assert_array_equal(x, kept)
    with pytest.warns(DeprecationWarning, match="nanquantile: the interpolation= argument is deprecated"):
        assert V.nanquantile(x, 0.4, interpolation="higher").item() == np.nanquantile(x, 0.4, method="higher")
    with pytest.warns(DeprecationWarning, match="nanpercentile: the interpolation="):
        V.nanpercentile(x, 40, interpolation="nearest")


@pytest.mark.parametrize("name, kwargs", [
    ("nanmedian", {"axis": 1}), ("nanmedian", {}), ("nanquantile", {"q": [0.25, 0.5], "axis": 0}),
    ("nanquantile", {"q": 0.6, "axis": 1, "method": "midpoint"}),
    ("nanpercentile", {"q": 90, "keepdims": True}), ("nanpercentile", {"q": [10, 75], "axis": 1}),
])
def test_nan_ops_numpy_functions_dispatch(name, kwargs):
    data = np.array([[0.5, np.nan, -1.25, 0.1], [2.0, 1.5, np.nan, -0.7], [0.75, -0.5, 1.0, 0.2]])
    x = V.Variable(data)
    y = getattr(np, name)(x, **kwargs)
    assert isinstance(y, V.Variable)
    np.testing.assert_allclose(y.data, getattr(np, name)(data, **kwargs), rtol=1e-12)
    g, = V.grad(V.sum(y), [x])
    assert np.all(g.data[np.isnan(data)] == 0.0)
    for i, j in zip(*np.nonzero(~np.isnan(data))):     # central differences of NumPy's own function
        step = np.zeros_like(data)
        step[i, j] = 1e-6
        difference = (np.sum(getattr(np, name)(data + step, **kwargs))
                      - np.sum(getattr(np, name)(data - step, **kwargs))) / 2e-6
        np.testing.assert_allclose(g.data[i, j], difference, rtol=1e-6, atol=1e-8)


NAN_DEVICE_CALLS = {
    "nanmedian": lambda x: V.nanmedian(x, axis=1),
    "nanmedian all": V.nanmedian,
    "nanquantile": lambda x: V.nanquantile(x, [0.0, 0.3, 0.5], axis=-1, keepdims=True),
    "nanquantile lower": lambda x: V.nanquantile(x, [0.3, 0.9], axis=0, method="lower"),
    "nanpercentile": lambda x: V.nanpercentile(x, 35, axis=(0, 1), method="hazen"),
    "nanpercentile 2-d q": lambda x: V.nanpercentile(x, [[10, 50], [75, 100]], axis=1),
}


@pytest.mark.parametrize("name", NAN_DEVICE_CALLS)
def test_nan_ops_on_the_device_without_host_syncs(name, gpu, request):
    """Per-slice positions are array operations on the device: forward, backward (to second
    order) and Taylor mode read no device data on the host."""
    plugins = request.config.pluginmanager.get_plugins()
    fake = next((p.FAKE_GPU for p in plugins if hasattr(p, "FAKE_GPU")), None)
    counting = fake is not None and gpu is fake.module
    f = lambda v: V.nan_to_num(NAN_DEVICE_CALLS[name](v))     # noqa: E731
    x = V.Variable(COUNTS).to_gpu()
    with fake.count_syncs() if counting else warnings.catch_warnings() as syncs:
        y = f(x)
        g, = V.grad(V.sum(y * y), [x], create_graph=True)
        h, = V.grad(V.sum(g * g), [x], materialize_grads=True)
        coefficients = V.taylor(f, x, V.Variable(np.ones(COUNTS.shape)).to_gpu(), 3)
    if counting:
        assert syncs.count == 0, syncs.where
    assert y.device == g.device == h.device == "gpu" and all(c.device == "gpu" for c in coefficients)
    host = V.Variable(COUNTS)
    expected, = V.grad(V.sum(f(host) ** 2), [host])
    np.testing.assert_allclose(V.backend.to_cpu(y.data), f(host).data, rtol=1e-12)
    np.testing.assert_allclose(V.backend.to_cpu(g.data), expected.data, rtol=1e-12)
    assert np.all(V.backend.to_cpu(g.data)[np.isnan(COUNTS)] == 0.0)


@pytest.mark.parametrize("call, match", [
    (lambda: V.nanmedian(COUNTS, out=np.empty(4)), "nanmedian: out= is not supported"),
    (lambda: V.nanquantile(COUNTS, 0.5, out=np.empty(())), "nanquantile: out= is not supported"),
    (lambda: V.nanpercentile(COUNTS, 50, out=np.empty(())), "nanpercentile: out= is not supported"),
    (lambda: V.nanmedian(COUNTS, axis=1.0), "nanmedian: axis must be None, an int or a tuple of ints"),
    (lambda: V.nanmedian("x"), "nanmedian"),
    (lambda: V.nanquantile(COUNTS, "half"), "nanquantile: q must be real numbers"),
    (lambda: V.nanquantile(COUNTS, V.Variable(np.array([0.5]))),
     r"nanquantile: q is a constant of the op .* e\.g\. q\.detach\(\)"),
    (lambda: V.nanquantile(COUNTS, 0.4, method="lower", interpolation="higher"),
     "nanquantile: give method or interpolation, not both"),
    (lambda: V.nanquantile(np.array([True, False]), 0.3), "nanquantile: method 'linear' interpolates"),
    (lambda: V.nanpercentile(COUNTS, 50, weights=V.Variable(np.ones((4, 5))), method="inverted_cdf"),
     "nanpercentile: weights are constants of the op"),
])
def test_nan_ops_refused_types(call, match):
    with pytest.raises(TypeError, match=match):
        call()


@pytest.mark.parametrize("call, match", [
    (lambda: V.nanquantile(COUNTS, 1.5), r"nanquantile: q must lie in \[0, 1\], got \[1\.5\]"),
    (lambda: V.nanquantile(COUNTS, np.nan), r"nanquantile: q must lie in \[0, 1\], got \[nan\]"),
    (lambda: V.nanpercentile(COUNTS, [50, 101]), r"nanpercentile: q must lie in \[0, 100\], got \[101\]"),
    (lambda: V.nanquantile(COUNTS, np.full((1, 1, 1), 0.5)), "nanquantile: q must be a scalar, 1-D or 2-D"),
    (lambda: V.nanquantile(COUNTS, 0.5, method="bogus"), "nanquantile: method must be one of"),
    (lambda: V.nanmedian(COUNTS, axis=2),
     r"nanmedian: axis 2 is out of range for an input of shape \(4, 5\)"),
    (lambda: V.nanpercentile(COUNTS, 5, axis=(0, -2)), "nanpercentile: repeated axis"),
    (lambda: V.nanquantile(COUNTS, 0.5, weights=np.ones((4, 5))),
     "nanquantile: only method='inverted_cdf' takes weights .*, got 'linear'"),
    (lambda: V.nanquantile(np.zeros((0, 2)), 0.5, weights=np.ones((0, 2))),
     "nanquantile: only method='inverted_cdf' takes weights .*, got 'linear'"),
    (lambda: V.nanquantile(COUNTS, 0.5, axis=1, weights=np.ones(4), method="inverted_cdf"),
     r"nanquantile: weights of shape \(4,\) do not match a's shape \(4, 5\) along axis 1"),
    (lambda: V.nanquantile(COUNTS, 0.5, axis=1, weights=-np.ones(5), method="inverted_cdf"),
     "nanquantile: weights must be non-negative"),
])
def test_nan_ops_refused_values(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("name", ["nanquantile", "nanpercentile"])
def test_nan_quantiles_over_no_axes_have_quantiles_shape(name):
    """axis=(): every entry is its own slice.  NumPy 2.4's nan-quantiles then put q's axes
    last ((1, 2, 1) below) where its quantile puts them first; gengrad follows quantile."""
    x, q = np.array([0.3, 0.7]), np.array([[0.25]]) * (100 if name == "nanpercentile" else 1)
    got = getattr(V, name)(x, q, axis=())
    plain = getattr(np, name.removeprefix("nan"))(x, q, axis=())
    assert got.shape == plain.shape == (1, 1, 2)
    np.testing.assert_array_equal(got.data, plain)
