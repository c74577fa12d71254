"""The histograms ops against NumPy: the table rows, then the rest.

Rows return the Variables among each op's outputs (histogram's integer counts are plain
arrays, checked below).  The counts are piecewise constant in the samples, so the samplers
keep every sample away from every edge (the edges computed from the data included) by a
fraction of a bin's width: gradcheck's steps then move no sample across an edge, and the
rows are checked to PIECEWISE order (the edges follow V.min/V.max).  Density is float64 in
NumPy whatever the data (and histogramdd's counts always): those rows have no float32
pass.  piecewise samples stay away from its conditions' boundaries; apply_along_axis and
apply_over_axes with smooth functions are checked to SMOOTH order.  Membership against
NumPy, the special points, the gradient conventions, dispatch and refusals are below.
"""

import numpy as np
import pytest
from op_rows import PIECEWISE, SMOOTH, Row, away_from, normal, table_tests

import variable as V

EDGES = [-1.5, -0.4, 0.3, 1.5]        # explicit edges, a list: device-safe next to GPU data
DATA = [-1.0, -0.2, 0.1, 0.35, 0.9]   # constant data for the range rows


def spread(*shapes, bins=4, gap=0.05):
    """Samples in [-1.5, 1.5] whose entries all stay `gap` bin widths away from the edges
    that `bins` (an int or an estimator's name) gives each array from its own min and max
    (the min and max themselves excepted: they are the outer edges)."""
    def sample(rng):
        out = []
        for s in shapes:
            while True:
                x = rng.uniform(-1.5, 1.5, s)
                flat = np.sort(x.reshape(-1))
                edges = np.histogram_bin_edges(flat, bins)
                inner = flat[1:-1]
                width = edges[1] - edges[0] if len(edges) > 1 else 1.0
                if len(flat) < 2 or np.all(np.abs(inner[:, None] - edges[None, :]) > gap * width):
                    out.append(x)
                    break
        return tuple(out)
    return sample


def with_weights(shape, bins=4, edges=None):
    """Samples (away from their edges, or from `edges`) and positive weights of their shape."""
    samples = away_from(edges, shape) if edges is not None else spread(shape, bins=bins)
    return lambda rng: samples(rng) + (rng.uniform(0.5, 2.0, shape),)


def edges_then_data(shape):
    """Increasing edges near EDGES, then samples away from them."""
    def sample(rng):
        e = np.array(EDGES) + rng.uniform(-0.05, 0.05, len(EDGES))
        return (e,) + away_from(list(e), shape, gap=0.05)(rng)
    return sample


def near_range(rng):
    """range ends near (-1.2, 1.3): the data DATA stay inside and away from the 4 bins' edges."""
    return (np.array(-1.2 + rng.uniform(-0.02, 0.02)), np.array(1.3 + rng.uniform(-0.02, 0.02)))


def histogram_rows():
    def counts(*args, **kw):
        return lambda x, *w: V.histogram(x, *args, **kw, **({"weights": w[0]} if w else {}))

    rows = [
        Row(f"edges, bins=4, {s}", lambda x: V.histogram(x, 4)[1], lambda x: np.histogram(x, 4)[1],
            spread(s), PIECEWISE) for s in [(12,), (3, 4)]
    ]
    rows += [
        Row(f"edges, bins={b!r}, (15,)", lambda x, b=b: V.histogram(x, b)[1],
            lambda x, b=b: np.histogram(x, b)[1], spread((15,), bins=b), PIECEWISE)
        for b in ("sturges", "auto", "fd", "sqrt")
    ]
    rows += [
        Row("one sample (): widened by 0.5", lambda x: V.histogram(x, 3)[1], lambda x: np.histogram(x, 3)[1],
            normal(()), PIECEWISE),
        Row("density, bins=4, (12,)", lambda x: V.histogram(x, 4, density=True), lambda x: np.histogram(
            x, 4, density=True), spread((12,)), PIECEWISE, float32=False),
        Row("weights, bins=3, (10,)", counts(3), lambda x, w: np.histogram(x, 3, weights=w),
            with_weights((10,), 3), PIECEWISE),
        Row("weights, density, (2, 5)", counts(4, density=True), lambda x, w: np.histogram(
            x, 4, density=True, weights=w), with_weights((2, 5)), PIECEWISE, float32=False),
        Row("weights, range=(-1, 1): outside dropped", lambda x, w: V.histogram(x, 4, (-1, 1), weights=w)[0],
            lambda x, w: np.histogram(x, 4, (-1, 1), weights=w)[0],
            with_weights((12,), edges=[-1.0, -0.5, 0.0, 0.5, 1.0]), PIECEWISE),
        Row("edges a Variable, density", lambda e, x: V.histogram(x, e, density=True)[0],
            lambda e, x: np.histogram(x, e, density=True)[0], edges_then_data((10,)), PIECEWISE,
            float32=False),
        Row("edges a list, weights, density", lambda x, w: V.histogram(x, EDGES, density=True, weights=w)[0],
            lambda x, w: np.histogram(x, EDGES, density=True, weights=w)[0],
            with_weights((10,), edges=EDGES), PIECEWISE, float32=False),
        Row("range of Variables: edges", lambda lo, hi: V.histogram(DATA, 4, (lo, hi))[1],
            lambda lo, hi: np.histogram(DATA, 4, (lo, hi))[1], near_range, SMOOTH, float32=False),
        Row("range of Variables: density", lambda lo, hi: V.histogram(DATA, 4, (lo, hi), density=True)[0],
            lambda lo, hi: np.histogram(DATA, 4, (lo, hi), density=True)[0], near_range, SMOOTH,
            float32=False),
    ]
    return rows


def histogram_bin_edges_rows():
    return [
        Row("bins=5, (2, 4)", lambda x: V.histogram_bin_edges(x, 5), lambda x: np.histogram_bin_edges(x, 5),
            spread((2, 4), bins=5), PIECEWISE),
        Row("bins='rice', (12,)", lambda x: V.histogram_bin_edges(x, "rice"),
            lambda x: np.histogram_bin_edges(x, "rice"), spread((12,), bins="rice"), PIECEWISE),
        Row("bins='scott', weights=None", lambda x: V.histogram_bin_edges(x, "scott", weights=None),
            lambda x: np.histogram_bin_edges(x, "scott"), spread((12,), bins="scott"), PIECEWISE),
        Row("bins a Variable", lambda e: V.histogram_bin_edges(DATA, e),
            lambda e: np.histogram_bin_edges(DATA, e), lambda rng: (np.sort(rng.uniform(-1.5, 1.5, 4)),),
            SMOOTH),
        Row("range of Variables", lambda lo, hi: V.histogram_bin_edges(DATA, 3, (lo, hi)),
            lambda lo, hi: np.histogram_bin_edges(DATA, 3, (lo, hi)), near_range, SMOOTH, float32=False),
    ]


def columns_away(n, count, bins=3, weights=False):
    """`count` columns of n samples, each away from its own edges, and weights if asked."""
    def sample(rng):
        out = spread(*[(n,)] * count, bins=bins)(rng)
        return out + ((rng.uniform(0.5, 2.0, n),) if weights else ())
    return sample


def histogram2d_rows():
    return [
        Row("density, bins=3", lambda x, y: V.histogram2d(x, y, 3, density=True),
            lambda x, y: np.histogram2d(x, y, 3, density=True), columns_away(10, 2), PIECEWISE,
            float32=False),
        Row("weights, bins=[2, 3]", lambda x, y, w: V.histogram2d(x, y, [2, 3], weights=w)[0],
            lambda x, y, w: np.histogram2d(x, y, [2, 3], weights=w)[0],
            lambda rng: spread((10,), bins=2)(rng) + spread((10,), bins=3)(rng) + (rng.uniform(0.5, 2, 10),),
            PIECEWISE, float32=False),
        Row("edges [EDGES, 3], weights, density",
            lambda x, y, w: V.histogram2d(x, y, [EDGES, 3], density=True, weights=w),
            lambda x, y, w: np.histogram2d(x, y, [EDGES, 3], density=True, weights=w),
            lambda rng: away_from(EDGES, (10,))(rng) + spread((10,), bins=3)(rng) + (rng.uniform(.5, 2, 10),),
            PIECEWISE, float32=False),
    ]


def histogramdd_rows():
    def dd(*args, **kw):
        def fn(s, *w):
            hist, edges = V.histogramdd(s, *args, **kw, **({"weights": w[0]} if w else {}))
            return (hist, *edges)
        return fn

    def ref(*args, **kw):
        def fn(s, *w):
            hist, edges = np.histogramdd(s, *args, **kw, **({"weights": w[0]} if w else {}))
            return (hist, *edges)
        return fn

    def table(n, d, weights=False):
        columns = columns_away(n, d, bins=3, weights=weights)

        def sample(rng):
            out = columns(rng)
            return (np.stack(out[:d], axis=1),) + out[d:]
        return sample

    return [
        Row("(10, 2), bins=3, density", dd(3, density=True), ref(3, density=True), table(10, 2), PIECEWISE,
            float32=False),
        Row("(8, 3), bins=3, weights", dd(3), ref(3), table(8, 3, weights=True), PIECEWISE, float32=False),
        Row("(12,) one dimension, weights, density", dd(3, density=True), ref(3, density=True),
            columns_away(12, 1, weights=True), PIECEWISE, float32=False),
        Row("a sequence of 2 Variables, range given",
            lambda x, y: V.histogramdd([x, y], 2, [(-2, 2), (-1.6, 1.6)], density=True)[0],
            lambda x, y: np.histogramdd([x, y], 2, [(-2, 2), (-1.6, 1.6)], density=True)[0],
            away_from([0.0], (9,), (9,)), PIECEWISE, float32=False),
    ]


def piecewise_rows():
    rows = []
    for s in [(), (3,), (2, 3)]:
        rows += [
            Row(f"two functions, {s}",
                lambda x: V.piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, V.sin]),
                lambda x: np.piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, np.sin]),
                away_from([0.0], s), PIECEWISE),
            Row(f"otherwise, scalars, {s}",
                lambda x: V.piecewise(x, [x < -0.5, x > 0.5], [lambda v: 2 * v, 3.0, lambda v: V.exp(v)]),
                lambda x: np.piecewise(x, [x < -0.5, x > 0.5], [lambda v: 2 * v, 3.0, np.exp]),
                away_from([-0.5, 0.5], s), PIECEWISE),
        ]
    rows += [
        Row("later conditions win, (2, 3)",
            lambda x: V.piecewise(x, [x < 0.5, x > -0.5], [V.cos, lambda v: v ** 3]),
            lambda x: np.piecewise(x, [x < 0.5, x > -0.5], [np.cos, lambda v: v ** 3]),
            away_from([-0.5, 0.5], (2, 3)), PIECEWISE),
        Row("a captured Variable and a Variable scalar",
            lambda x, c: V.piecewise(x, [x < 0, x > 1], [lambda v: c * v * v, c]),
            lambda x, c: np.piecewise(x, [x < 0, x > 1], [lambda v: c * v * v, c]),
            lambda rng: away_from([0.0, 1.0], (2, 3))(rng) + (np.array(rng.uniform(0.5, 2.0)),), PIECEWISE),
        Row("args and kw", lambda x: V.piecewise(x, x > 0, [lambda v, k, p: k * v ** p,
                                                             lambda v, k, p: V.tanh(v) * k], 1.5, p=3),
            lambda x: np.piecewise(x, x > 0, [lambda v, k, p: k * v ** p,
                                              lambda v, k, p: np.tanh(v) * k], 1.5, p=3),
            away_from([0.0], (4,)), PIECEWISE),
        Row("a single condition as a mask", lambda x: V.piecewise(x, x > 0, [V.exp]),
            lambda x: np.piecewise(x, x > 0, [np.exp]), away_from([0.0], (5,)), PIECEWISE),
        Row("one value for all selected", lambda x: V.piecewise(x, [x < 0], [lambda v: V.sum(v * v)]),
            lambda x: np.piecewise(x, [x < 0], [lambda v: np.sum(v * v)]), away_from([0.0], (5,)), PIECEWISE),
    ]
    return rows


def apply_along_axis_rows():
    def smooth(v):
        return V.exp(v) * V.sum(v * v)

    def smooth_ref(v):
        return np.exp(v) * np.sum(v * v)

    rows = [
        Row(f"vector result, {s} axis={a}", lambda x, a=a: V.apply_along_axis(smooth, a, x),
            lambda x, a=a: np.apply_along_axis(smooth_ref, a, x), normal(s), SMOOTH)
        for s, a in [((3,), 0), ((2, 3), 0), ((2, 3), 1), ((2, 3, 2), -2)]
    ]
    rows += [
        Row(f"scalar result, {s} axis={a}",
            lambda x, a=a: V.apply_along_axis(lambda v: V.sum(V.sin(v) * v), a, x),
            lambda x, a=a: np.apply_along_axis(lambda v: np.sum(np.sin(v) * v), a, x), normal(s), SMOOTH)
        for s, a in [((3,), 0), ((2, 3), 1), ((2, 3, 2), 0)]
    ]
    rows += [
        Row("matrix result, (2, 3, 2) axis=1",
            lambda x: V.apply_along_axis(lambda v: V.outer(v, v * v), 1, x),
            lambda x: np.apply_along_axis(lambda v: np.outer(v, v * v), 1, x), normal((2, 3, 2)), SMOOTH),
        Row("args and kwargs, a captured Variable",
            lambda x, c: V.apply_along_axis(lambda v, c, p: V.sum(c * v ** p), 0, x, c, p=3),
            lambda x, c: np.apply_along_axis(lambda v, c, p: np.sum(c * v ** p), 0, x, c, p=3),
            normal((3, 2), (3,)), SMOOTH),
        Row("through np.apply_along_axis",
            lambda x: np.apply_along_axis(lambda v: np.cumsum(np.tanh(v)), -1, x),
            lambda x: np.apply_along_axis(lambda v: np.cumsum(np.tanh(v)), -1, x), normal((2, 3)), SMOOTH),
    ]
    return rows


def apply_over_axes_rows():
    return [
        Row("V.sum over (0, 2), (2, 3, 2)", lambda x: V.apply_over_axes(V.sum, x, (0, 2)),
            lambda x: np.apply_over_axes(np.sum, x, (0, 2)), normal((2, 3, 2)), SMOOTH),
        Row("np.sum over [-1], (2, 3)", lambda x: np.apply_over_axes(np.sum, x, [-1]),
            lambda x: np.apply_over_axes(np.sum, x, [-1]), normal((2, 3)), SMOOTH),
        Row("logsumexp over 1, (2, 3)",
            lambda x: V.apply_over_axes(lambda v, a: V.logsumexp(v, axis=a), x, 1),
            lambda x: np.apply_over_axes(lambda v, a: np.log(np.sum(np.exp(v), axis=a)), x, 1),
            normal((2, 3)), SMOOTH),
        Row("cumsum keeps the axes, (2, 3)",
            lambda x: V.apply_over_axes(lambda v, a: V.cumsum(v * v, axis=a), x, [0, 1]),
            lambda x: np.apply_over_axes(lambda v, a: np.cumsum(v * v, axis=a), x, [0, 1]),
            normal((2, 3)), SMOOTH),
    ]


ROWS = {
    "histogram": histogram_rows(),
    "histogram_bin_edges": histogram_bin_edges_rows(),
    "histogram2d": histogram2d_rows(),
    "histogramdd": histogramdd_rows(),
    "piecewise": piecewise_rows(),
    "apply_along_axis": apply_along_axis_rows(),
    "apply_over_axes": apply_over_axes_rows(),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


def _host(a):
    """A result's data on the host (a Variable's, or a plain array's)."""
    return V.backend.to_cpu(a.data if isinstance(a, V.Variable) else a)


# ----- histogram: membership, dtypes and what comes back --------------------------------------
MEMBERSHIP_CASES = [
    ({}, np.float64), ({"bins": 7}, np.float32), ({"bins": 5, "range": (0.1, 0.7)}, np.float64),
    ({"bins": 3, "range": (-1, 2)}, np.int64), ({"bins": [0.0, 0.2, 0.2, 0.5, 1.0]}, np.float64),
    ({"bins": [0, 1, 2]}, np.float32), ({"bins": "auto"}, np.float32), ({"bins": "fd"}, np.float64),
    ({"bins": "doane"}, np.float64), ({"bins": "stone"}, np.float64),
    ({"bins": "sturges", "range": (0.2, 0.8)}, np.float64),
]


@pytest.mark.parametrize("options, dtype", MEMBERSHIP_CASES)
def test_histogram_bins_as_numpy_with_values_on_the_edges(options, dtype, rng):
    # tenths hit the edges of 10 equal bins of [0, 1] exactly; the last edge is in the last bin
    data = np.concatenate([np.arange(11) / 10, rng.uniform(-0.2, 1.2, 40)])
    data = (data * 4).astype(dtype) if dtype == np.int64 else data.astype(dtype)
    hist, edges = V.histogram(V.Variable(data), **options)
    expected, expected_edges = np.histogram(data, **options)
    assert type(hist) is type(V.backend.get_array_module(edges.data).zeros(1))   # a plain integer array
    assert hist.dtype == expected.dtype == np.intp
    np.testing.assert_array_equal(_host(hist), expected)
    assert edges.dtype == expected_edges.dtype
    np.testing.assert_array_equal(_host(edges), expected_edges)


@pytest.mark.parametrize("weights_dtype, density", [
    (np.float64, False), (np.float32, False), (np.int64, False), (np.float32, True), (np.int64, True),
    (None, True)])
def test_histogram_dtypes_as_numpy(weights_dtype, density, rng):
    data = rng.uniform(-1, 1, 20).astype(np.float32)
    w = None if weights_dtype is None else (rng.uniform(0, 3, 20)).astype(weights_dtype)
    hist, edges = V.histogram(V.Variable(data), 4, density=density,
                              weights=None if w is None else V.Variable(w))
    expected, expected_edges = np.histogram(data, 4, density=density, weights=w)
    assert hist.dtype == expected.dtype and edges.dtype == expected_edges.dtype == np.float32
    assert isinstance(hist, V.Variable) == (expected.dtype.kind == "f")   # integer counts: plain arrays
    np.testing.assert_allclose(_host(hist), expected, rtol=1e-6)


def test_histogram_drops_out_of_range_values_and_nan_with_a_range():
    data = np.array([-3.0, 0.0, 0.25, 0.5, 1.0, np.nan, 7.0])
    hist, edges = V.histogram(V.Variable(data), 2, range=(0, 1))
    np.testing.assert_array_equal(_host(hist), [2, 2])
    np.testing.assert_array_equal(_host(hist), np.histogram(data, 2, range=(0, 1))[0])
    hist, _ = V.histogram(V.Variable(data), [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(_host(hist), [2, 2])


def test_histogram_of_equal_values_widens_the_range_and_splits_the_gradient():
    x = V.Variable(np.full(4, 2.0))
    hist, edges = V.histogram(x, 4)
    expected, expected_edges = np.histogram(x.data, 4)
    np.testing.assert_array_equal(_host(edges), expected_edges)          # 1.5 ... 2.5
    np.testing.assert_array_equal(_host(hist), expected)
    g, = V.grad([V.sum(edges)], [x])
    # each edge is min(x) - 0.5 + k/4 (max(x) - min(x) + 1): d/dx_i splits min's and max's
    # gradients evenly among the 4 tied entries (V.min/V.max's convention, as PyTorch's)
    np.testing.assert_allclose(_host(g), np.full(4, 5 / 4))


def test_histogram_of_no_data():
    hist, edges = V.histogram(V.Variable(np.zeros(0)), 3)
    np.testing.assert_array_equal(_host(hist), [0, 0, 0])
    np.testing.assert_allclose(_host(edges), np.histogram([], 3)[1])
    with np.errstate(invalid="ignore"):
        density, _ = V.histogram(V.Variable(np.zeros(0)), 2, density=True)
    assert np.isnan(_host(density)).all()                                  # 0 / 0, as NumPy
    hist, edges = V.histogramdd(V.Variable(np.zeros((0, 2))), 2)
    np.testing.assert_array_equal(_host(hist), np.zeros((2, 2)))
    assert [e.shape for e in edges] == [(3,), (3,)]


def test_histogram_of_booleans_counts_them_as_uint8_as_numpy():
    data = np.array([True, False, True])
    with pytest.warns(RuntimeWarning, match="histogram: converting input from bool to uint8"):
        hist, edges = V.histogram(V.Variable(data), 2)
    with pytest.warns(RuntimeWarning):
        expected, expected_edges = np.histogram(data, 2)
    np.testing.assert_array_equal(_host(hist), expected)
    np.testing.assert_array_equal(_host(edges), expected_edges)


# ----- gradients: the conventions -------------------------------------------------------------
def test_histogram_edges_carry_the_gradient_of_min_and_max():
    data = np.array([0.3, -1.0, 0.5, 2.0, 0.1])
    x = V.Variable(data)
    _, edges = V.histogram(x, 4)
    g, = V.grad([V.sum(edges * np.arange(5.0))], [x])
    k = np.arange(5)                                 # edge k = min + k/4 (max - min)
    expected = np.zeros(5)
    expected[1] = np.sum(k * (1 - k / 4))            # the min, x[1]
    expected[3] = np.sum(k * (k / 4))                # the max, x[3]
    np.testing.assert_allclose(_host(g), expected)


def test_weighted_counts_give_each_weight_its_bins_gradient():
    data = np.array([0.1, 0.6, 0.7, 1.5, -2.0, 0.3])
    x, w = V.Variable(data), V.Variable(np.arange(1.0, 7.0))
    hist, _ = V.histogram(x, 2, range=(0, 1), weights=w)
    np.testing.assert_allclose(_host(hist), [1 + 6, 2 + 3])
    gx, gw = V.grad([V.sum(hist * np.array([10.0, 20.0]))], [x, w], allow_unused=True, materialize_grads=True)
    np.testing.assert_allclose(_host(gw), [10, 20, 20, 0, 0, 10])       # dropped samples: 0
    np.testing.assert_array_equal(_host(gx), np.zeros(6))               # counts: piecewise constant


def test_density_is_differentiable_in_the_weights_and_the_edges():
    data = np.array([0.1, 0.6, 0.7, 0.2])
    x, w = V.Variable(data), V.Variable(np.array([1.0, 2.0, 3.0, 4.0]))
    e = V.Variable(np.array([0.0, 0.5, 1.0]))
    hist, edges = V.histogram(x, e, density=True, weights=w)
    assert edges is e
    np.testing.assert_allclose(_host(hist), np.histogram(data, _host(e), density=True, weights=_host(w))[0])
    assert V.gradcheck(lambda w, e: V.histogram(data, e, density=True, weights=w)[0], _host(w), _host(e),
                       order=2)


def test_histogramdd_gradients_and_sequence_input():
    x, y = V.Variable(np.array([0.1, 0.4, 0.9, 0.6])), V.Variable(np.array([1.0, 3.0, 2.0, 2.5]))
    w = V.Variable(np.array([1.0, 2.0, 3.0, 4.0]))
    hist, (ex, ey) = V.histogramdd([x, y], (2, 2), weights=w)
    expected, _ = np.histogramdd([x.data, y.data], (2, 2), weights=w.data)
    np.testing.assert_allclose(_host(hist), expected)
    gw, gx = V.grad([V.sum(hist * np.array([[1.0, 2.0], [3.0, 4.0]])) + V.sum(ex)], [w, x])
    np.testing.assert_allclose(_host(gw), [1, 2, 4, 4])                 # the weights' bins
    np.testing.assert_allclose(_host(gx), [1.5, 0, 1.5, 0])             # ex: min x[0], max x[2]


# ----- dispatch --------------------------------------------------------------------------------
def test_numpy_histograms_on_variables_record_gengrad_ops():
    data = np.array([0.3, -1.0, 0.5, 2.0, 0.1])
    x, w = V.Variable(data), V.Variable(np.ones(5))
    hist, edges = np.histogram(x, 4, weights=w)
    assert isinstance(hist, V.Variable) and isinstance(edges, V.Variable)
    g, = V.grad([V.sum(hist * np.arange(4.0))], [w])
    np.testing.assert_allclose(_host(g), [1, 0, 2, 3, 1])               # each weight's bin
    counts, edges = np.histogram(x)
    assert not isinstance(counts, V.Variable) and counts.dtype == np.intp
    edges = np.histogram_bin_edges(x, "sturges")
    np.testing.assert_array_equal(_host(edges), np.histogram_bin_edges(data, "sturges"))
    assert V.grad([V.sum(edges)], [x]) is not None
    H, xe, ye = np.histogram2d(x, x * 2, 2)
    assert isinstance(H, V.Variable) and isinstance(ye, V.Variable) and ye.requires_grad
    hist, edges = np.histogramdd(V.stack([x, x], axis=1), 2)
    assert isinstance(hist, V.Variable) and isinstance(edges, list) and len(edges) == 2


def test_numpy_piecewise_and_apply_functions_on_variables():
    x = V.Variable(np.array([-1.0, -0.5, 0.5, 2.0]))
    y = np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2])
    assert isinstance(y, V.Variable)
    g, = V.grad([V.sum(y)], [x])
    np.testing.assert_allclose(_host(g), [-1, -1, 1, 4])
    m = V.Variable(np.arange(6.0).reshape(2, 3))
    r = np.apply_along_axis(lambda v: np.sum(v * v), 1, m)
    g, = V.grad([V.sum(r)], [m])
    np.testing.assert_allclose(_host(g), 2 * np.arange(6.0).reshape(2, 3))
    s = np.apply_over_axes(np.sum, m, [0, 1])
    assert s.shape == (1, 1) and isinstance(s, V.Variable)


# ----- piecewise ------------------------------------------------------------------------------
def test_piecewise_keeps_the_dtype_and_leaves_zeros_where_no_condition_holds():
    x = np.array([-2.0, -0.5, 0.5, 3.0])
    y = V.piecewise(V.Variable(x), [x < -1, x > 1], [lambda v: v, 7.5])
    np.testing.assert_array_equal(_host(y), np.piecewise(x, [x < -1, x > 1], [lambda v: v, 7.5]))
    ints = np.array([1, 2, 3])
    y = V.piecewise(ints, [ints > 1], [lambda v: v * 2.5])          # cast to x's dtype, as NumPy
    assert y.dtype == np.int64
    np.testing.assert_array_equal(_host(y), np.piecewise(ints, [ints > 1], [lambda v: v * 2.5]))
    x32 = V.Variable(np.array([0.5, -1.0], dtype=np.float32))
    assert V.piecewise(x32, [x32 > 0], [lambda v: V.Variable(2.0) * v]).dtype == np.float32


def test_piecewise_skips_functions_with_nothing_selected_and_takes_0_d_input():
    x = V.Variable(np.array([1.0, 2.0]))

    def refuse(v):
        raise AssertionError("called on no entries")
    y = V.piecewise(x, [x < 0, x > 0], [refuse, lambda v: v * 3])
    np.testing.assert_array_equal(_host(y), [3.0, 6.0])
    s = V.Variable(np.array(2.0))
    y = V.piecewise(s, [True, False], [lambda v: v * v, 1.0])
    np.testing.assert_allclose(_host(y), np.piecewise(np.array(2.0), [True, False], [lambda v: v * v, 1.0]))
    g, = V.grad([y], [s])
    np.testing.assert_allclose(_host(g), 4.0)


def test_piecewise_no_nan_gradient_from_unselected_entries():
    # sqrt is called on the selected (positive) entries only: no 0 * inf at the others
    x = V.Variable(np.array([-1.0, 0.0, 4.0]))
    y = V.piecewise(x, [x > 0], [V.sqrt])
    g, = V.grad([V.sum(y)], [x])
    np.testing.assert_allclose(_host(g), [0.0, 0.0, 0.25])


# ----- apply_along_axis / apply_over_axes -----------------------------------------------------
@pytest.mark.parametrize("shape, axis", [((4,), 0), ((2, 3), 0), ((2, 3), -1), ((2, 3, 4), 1),
                                         ((1, 3, 2), 2)])
@pytest.mark.parametrize("fn, ref", [
    (lambda v: v[::-1], lambda v: v[::-1]), (lambda v: v.sum(), np.sum),
    (lambda v: V.outer(v, v), lambda v: np.outer(v, v)), (lambda v: v[:1], lambda v: v[:1])])
def test_apply_along_axis_shapes_as_numpy(shape, axis, fn, ref):
    data = np.arange(np.prod(shape), dtype=float).reshape(shape)
    got = V.apply_along_axis(fn, axis, V.Variable(data))
    expected = np.apply_along_axis(ref, axis, data)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(_host(got), expected)


def test_apply_along_axis_casts_to_the_first_results_dtype_and_takes_constants_without_a_graph():
    data = np.arange(6).reshape(2, 3)
    got = V.apply_along_axis(lambda v: v.data.sum() * 0.5, 1, data)     # a constant input: plain results
    np.testing.assert_array_equal(_host(got), np.apply_along_axis(lambda v: v.sum() * 0.5, 1, data))


def test_apply_along_axis_refuses_results_without_a_graph():
    x = V.Variable(np.ones((2, 3)))
    with pytest.raises(TypeError, match="apply_along_axis: func1d returned a ndarray, not a Variable"):
        V.apply_along_axis(lambda v: np.ones(3), 1, x)
    with pytest.raises(TypeError, match="apply_over_axes: func returned a float"):
        V.apply_over_axes(lambda v, a: 1.0, x, 0)


# ----- on the device --------------------------------------------------------------------------
def test_on_the_device(gpu, count_syncs):
    data = np.array([0.3, -1.0, 0.5, 2.0, 0.1, 0.45])
    x, w = V.Variable(data).to_gpu(), V.Variable(np.linspace(1, 2, 6)).to_gpu()
    with count_syncs() as syncs:                   # one host read: the data's min and max
        hist, edges = V.histogram(x, 4, weights=w, density=True)
        g = V.grad([V.sum(hist * hist)], [x, w])
    assert syncs.count == 1, syncs
    assert hist.device == edges.device == g[0].device == "gpu"
    expected = np.histogram(data, 4, weights=np.linspace(1, 2, 6), density=True)[0]
    np.testing.assert_allclose(V.backend.to_cpu(hist.data), expected, rtol=1e-12)
    with count_syncs() as syncs:                   # a range given as numbers: no host read
        counts, _ = V.histogram(x, 3, range=(0, 1))
    assert syncs.count == 0, syncs
    assert V.backend.is_device_array(counts)
    np.testing.assert_array_equal(V.backend.to_cpu(counts), np.histogram(data, 3, range=(0, 1))[0])
    with count_syncs() as syncs:
        hist, edges = V.histogramdd(V.stack([x, x * x], axis=1), 2)
    assert syncs.count == 2, syncs                 # each column's min and max
    expected = np.histogramdd(np.stack([data, data ** 2], 1), 2)[0]
    np.testing.assert_allclose(V.backend.to_cpu(hist.data), expected)
    y = V.piecewise(x, [x < 0.4], [V.exp, lambda v: v * 2])
    expected = np.piecewise(data, [data < 0.4], [np.exp, lambda v: v * 2])
    np.testing.assert_allclose(V.backend.to_cpu(y.data), expected)
    assert y.device == "gpu"


# ----- refusals -------------------------------------------------------------------------------
X = np.array([0.5, 1.0, 2.0, 3.0])


@pytest.mark.parametrize("call, error, match", [
    (lambda: V.histogram(X, 0), ValueError, r"^histogram: bins must be positive"),
    (lambda: V.histogram(X, 2.5), TypeError, r"^histogram: bins must be an int, a string"),
    (lambda: V.histogram(X, "xx"), ValueError, r"^histogram: 'xx' is not a valid estimator"),
    (lambda: V.histogram(X, [[0, 1, 2]]), ValueError, r"^histogram: bins as an array of edges must be 1-d"),
    (lambda: V.histogram(X, [2, 1, 3]), ValueError, r"^histogram: bins must increase monotonically"),
    (lambda: V.histogram(X, [0.0, np.nan]), ValueError, r"^histogram: bins must .* and hold no NaN"),
    (lambda: V.histogram(X, [[0.0], [1.0, 2.0]]), TypeError, r"^histogram: cannot turn bins"),
    (lambda: V.histogram(X, []), ValueError,
     r"^histogram: bins as an array of edges needs at least one edge"),
    (lambda: V.histogram(X, "auto", weights=X), TypeError, r"^histogram: an estimator .* weighted"),
    (lambda: V.histogram([1.0, np.nan]), ValueError, r"^histogram: the data hold NaN or infinity"),
    (lambda: V.histogram_bin_edges([1.0, np.inf], "fd"), ValueError,
     r"^histogram_bin_edges: the data hold NaN"),
    (lambda: V.histogram(X, 2, range=(3, 1)), ValueError,
     r"^histogram: range \(3, 1\) has its lower end above"),
    (lambda: V.histogram(X, 2, range=(0, np.inf)), ValueError,
     r"^histogram: range of \[0, inf\] is not finite"),
    (lambda: V.histogram(X, 2, range=(0, 1, 2)), ValueError, r"^histogram: range must be None or a pair"),
    (lambda: V.histogram(X, 2, range=("a", 1)), TypeError, r"^histogram: the ends of range must be real"),
    (lambda: V.histogram(X, weights=[1.0, 2.0]), ValueError,
     r"^histogram: weights of shape \(2,\) must have"),
    (lambda: V.histogram(X, density="yes"), TypeError, r"^histogram: density must be None or a bool"),
    (lambda: V.histogram(X, 1000, range=(0, 1e-321)), ValueError, r"^histogram: too many bins"),
    (lambda: V.histogram("abc"), TypeError, r"histogram"),
    (lambda: V.histogramdd(np.ones((3, 2)), (2, 3, 4)), ValueError, r"^histogramdd: bins has 3 entries"),
    (lambda: V.histogramdd(np.ones((3, 2)), 2, range=[(0, 1)]), ValueError,
     r"^histogramdd: range has 1 entries"),
    (lambda: V.histogramdd(np.ones((3, 2)), [2, [1, 0]]), ValueError,
     r"^histogramdd: bins\[1\] must increase"),
    (lambda: V.histogramdd(np.ones((3, 2)), [0, 2]), ValueError, r"^histogramdd: bins\[0\] must be positive"),
    (lambda: V.histogramdd(np.ones((3, 2)), "auto"), TypeError, r"^histogramdd: bins 'auto': estimators"),
    (lambda: V.histogramdd(np.ones((2, 2, 2))), ValueError, r"^histogramdd: sample of shape \(2, 2, 2\)"),
    (lambda: V.histogramdd(np.ones((3, 2)), weights=np.ones(2)), ValueError,
     r"^histogramdd: weights of shape"),
    (lambda: V.histogramdd([V.Variable(X), V.Variable(X[:2])]), ValueError,
     r"^histogramdd: the arrays of sample"),
    (lambda: V.histogram2d(X, X[:3]), ValueError, r"^histogram2d: x and y must be 1-d of the same length"),
    (lambda: V.piecewise(X, [X > 1], [1.0, 2.0, 3.0]), ValueError,
     r"^piecewise: with 1 condition\(s\), either 1 or 2 functions are expected, got 3"),
    (lambda: V.piecewise(X, [X[:2] > 1], [1.0]), ValueError,
     r"^piecewise: a condition of shape \(2,\) does not"),
    (lambda: V.piecewise(X, [X > 1], len), TypeError, r"^piecewise: funclist must be a list"),
    (lambda: V.piecewise(X, [X > 1], [lambda v: np.ones(7)]), ValueError,
     r"^piecewise: funclist\[0\] returned"),
    (lambda: V.piecewise(X, [X > 1], [np.ones(3)]), TypeError,
     r"^piecewise: funclist\[0\] must be a callable"),
    (lambda: V.piecewise(X, [X > 1], [lambda v: "a"]), TypeError, r"^piecewise: funclist\[0\] returned 'a'"),
    (lambda: V.apply_along_axis(3, 0, X), TypeError, r"^apply_along_axis: func1d must be callable"),
    (lambda: V.apply_along_axis(V.sum, 2, X), ValueError, r"^apply_along_axis: axis 2 is out of range"),
    (lambda: V.apply_along_axis(V.sum, 1, np.ones((0, 3))), ValueError, r"^apply_along_axis: cannot apply"),
    (lambda: V.apply_along_axis(lambda v: v[:int(v.data[0])], 1, np.array([[1.0, 1.0], [2.0, 2.0]])),
     ValueError, r"^apply_along_axis: func1d returned shape \(2,\) for slice 1"),
    (lambda: V.apply_over_axes(V.sum, X, 1), ValueError, r"^apply_over_axes: axis 1 is out of range"),
    (lambda: V.apply_over_axes(lambda v, a: V.sum(v), np.ones((2, 3, 2)), 0), ValueError,
     r"^apply_over_axes: func returned shape \(\) for axis 0"),
    (lambda: V.apply_over_axes("sum", X, 0), TypeError, r"^apply_over_axes: func must be callable"),
])
def test_refusals(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("kind", ["even", "uneven", "even float32"])
def test_binning_by_guessed_bins_is_searchsorted(kind):
    """The CPU's shortcut (a guess from even spacing, checked against the edges) gives
    searchsorted's bins for any increasing edges: on and beside every edge, NaN, inf."""
    from variable.ops.histograms import _guessed_bins
    rng = np.random.default_rng(5)
    for _ in range(50):
        n = int(rng.integers(1, 40))
        lo, hi = sorted(rng.normal(size=2) * 10.0 ** int(rng.integers(-3, 4)))
        edges = np.sort(rng.uniform(lo, hi, n + 1)) if kind == "uneven" else np.linspace(lo, hi, n + 1)
        edges = edges.astype(np.float32) if kind == "even float32" else edges
        beside = np.concatenate([np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)])
        x = np.concatenate([rng.uniform(lo - 1, hi + 1, 200), edges, beside, [np.nan, np.inf, -np.inf]])
        x = x.astype(edges.dtype)
        np.testing.assert_array_equal(_guessed_bins(x, edges), np.searchsorted(edges, x, side="right") - 1)
