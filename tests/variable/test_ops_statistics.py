"""cov and corrcoef against NumPy: the table rows, then NumPy's special cases and the errors.

The table crosses 1-d and 2-d inputs, rowvar, y (1-d and 2-d, both orientations), bias and
ddof, and the weights: aweights as a second input (so their gradients are checked too),
fweights as a list (a constant that runs on the device as well).  NumPy computes cov in at
least float64, so float32 input gives float64 and the rows have no float32 pass; a test
below checks dtype=np.float32 and the gradients' dtype.  (var, std and average have their
rows in test_ops_reductions.py.)
"""

import warnings

import numpy as np
import pytest
from op_rows import SMOOTH, Row, normal, positive, quiet, table_tests

import variable as V
from variable import backend


def rows(op, ref, cases):
    """Rows of op(*xs, **kw) against ref(*xs, **kw) for each (shapes, kw) in `cases`, the
    inputs drawn in [-1.5, 1.5]."""
    return [
        Row(f"{shapes} {kw}", lambda *xs, kw=kw: op(*xs, **kw), lambda *xs, kw=kw: ref(*xs, **kw),
            normal(*shapes), SMOOTH, float32=False)
        for shapes, kw in cases
    ]


def weighted_rows(cases):
    """Rows of cov(x, aweights=w, **kw): w a positive second input, differentiated too."""
    return [
        Row(f"aweights {shape} {kw}", lambda x, w, kw=kw: V.cov(x, aweights=w, **kw),
            lambda x, w, kw=kw: np.cov(x, aweights=w, **kw),
            lambda rng, shape=shape, kw=kw: normal(shape)(rng) + positive(shape[-1:] if kw.get("rowvar", True)
                                                                    else shape[:1])(rng),
            SMOOTH, float32=False)
        for shape, kw in cases
    ]


def y_rows(op, ref, cases):
    """Rows of op(m, y, **kw): two inputs, both differentiated."""
    return [
        Row(f"y {s0} {s1} {kw}", lambda m, y, kw=kw: op(m, y, **kw), lambda m, y, kw=kw: ref(m, y, **kw),
            normal(s0, s1), SMOOTH, float32=False)
        for s0, s1, kw in cases
    ]


COV_CASES = [
    (((3,),), {}),                                  # one variable: 0-d
    (((2, 4),), {}),
    (((4, 2),), {"rowvar": False}),
    (((3, 4),), {"rowvar": 0}),                     # 4 variables of 3 observations
    (((1, 5),), {}),                                # squeezed to 0-d
    (((2, 4),), {"bias": True}),
    (((2, 5),), {"ddof": 2}),
    (((3, 4),), {"ddof": 0, "bias": True}),
    (((2, 4),), {"dtype": np.float64}),
    (((2, 5),), {"fweights": [1, 2, 1, 3, 1]}),
    (((5, 2),), {"fweights": [2, 1, 1, 1, 4], "rowvar": False, "ddof": 0}),
    (((3, 3),), {"fweights": [2, 1, 3], "bias": True}),
]
Y_CASES = [
    ((3,), (3,), {}),
    ((2, 4), (4,), {}),
    ((2, 4), (1, 4), {"bias": True}),
    ((4, 2), (4, 3), {"rowvar": False}),
    ((4, 2), (4,), {"rowvar": False, "ddof": 2}),
]
WEIGHTED_CASES = [
    ((2, 5), {}),
    ((5,), {}),
    ((3, 4), {"ddof": 0}),
    ((3, 5), {"ddof": 2}),
    ((5, 2), {"rowvar": False, "bias": True}),
    ((2, 5), {"fweights": [1, 2, 1, 3, 1]}),
    ((2, 5), {"fweights": [1, 2, 1, 3, 1], "ddof": 2}),
]
CORRCOEF_CASES = [
    (((3,),), {}),                                  # one variable: 1, a constant
    (((1, 4),), {}),
    (((2, 4),), {}),
    (((3, 5),), {}),
    (((5, 3),), {"rowvar": False}),
    (((2, 4),), {"dtype": np.float64}),
]
CORRCOEF_Y_CASES = [
    ((4,), (4,), {}),
    ((2, 5), (5,), {}),
    ((4, 2), (4, 2), {"rowvar": False}),
]

ROWS = {
    "cov": rows(V.cov, np.cov, COV_CASES) + y_rows(V.cov, np.cov, Y_CASES) + weighted_rows(WEIGHTED_CASES),
    "corrcoef": rows(V.corrcoef, np.corrcoef, CORRCOEF_CASES)
    + y_rows(V.corrcoef, np.corrcoef, CORRCOEF_Y_CASES),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)



def finite(y):
    """`y` with NaN and infinities as 0: a sum that sees the finite entries only."""
    return V.nan_to_num(y, nan=0.0, posinf=0.0, neginf=0.0)


M = np.array([[0.5, -1.2, 0.3, 2.0], [1.1, 0.4, -0.7, 0.2], [-0.3, 0.9, 1.4, -1.0]])


# ----- NumPy's special cases ------------------------------------------------------------
def test_shapes_as_numpy():
    assert V.cov(M[0]).shape == () and V.corrcoef(M[0]).shape == ()
    assert V.cov(M[:1]).shape == ()
    assert V.cov(M, rowvar=False).shape == (4, 4)
    assert V.cov(M, M[0]).shape == (4, 4)
    # NumPy's quirk: with rowvar=False, a y of one row is not transposed (a variable of 4)
    np.testing.assert_allclose(V.cov(M.T, M[:1], rowvar=False).data, np.cov(M.T, M[:1], rowvar=False))
    assert V.cov(np.zeros((0, 3))).shape == (0, 0) and V.corrcoef(np.zeros((0, 3))).shape == (0, 0)
    assert V.cov(2.5).shape == ()


def test_no_degrees_of_freedom_gives_nan_or_inf_without_warnings_and_gradient_zero():
    # n - ddof <= 0: NumPy's product * inf (inf, or NaN where the product is 0), with gradient 0
    for call in (lambda m: V.cov(m, ddof=4), lambda m: V.cov(m[:, :1]), lambda m: V.cov(m, bias=True, ddof=5),
                 lambda m: V.cov(m, aweights=[1.0, 0.5, 0.25, 0.25], ddof=4),
                 lambda m: V.cov(m[:, :0]), lambda m: V.corrcoef(m[:, :1])):
        x = V.Variable(M)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = call(x)
            g, = V.grad(V.sum(finite(y)), [x], materialize_grads=True)
        np.testing.assert_array_equal(y.data, quiet(lambda m, f=call: f(V.Variable(m)).data)(M))
        assert not np.any(np.isfinite(y.data))
        np.testing.assert_array_equal(g.data, np.zeros_like(M))
    for kw in ({"ddof": 4}, {"aweights": [1.0, 0.5, 0.25, 0.25], "ddof": 4}, {"bias": True, "ddof": 5}):
        np.testing.assert_array_equal(V.cov(M, **kw).data, quiet(np.cov)(M, **kw))
    np.testing.assert_array_equal(V.cov(M[:, :1]).data, quiet(np.cov)(M[:, :1]))
    np.testing.assert_array_equal(V.cov(np.zeros(0)).data, quiet(np.cov)(np.zeros(0)))
    np.testing.assert_array_equal(V.corrcoef(M[:, :1]).data, quiet(np.corrcoef)(M[:, :1]))


def test_fweights_repeat_observations():
    # cov with frequency 2 for observation j is cov with observation j written twice
    x = V.Variable(M)
    weighted = V.cov(x, fweights=[1, 2, 1, 3])
    repeated = V.cov(V.concatenate([x[:, :1], x[:, 1:2], x[:, 1:2], x[:, 2:3]] + [x[:, 3:]] * 3, axis=1))
    np.testing.assert_allclose(weighted.data, repeated.data, rtol=1e-12)
    g, = V.grad(V.sum(weighted * M[:, :3]), [x])
    e, = V.grad(V.sum(repeated * M[:, :3]), [x])
    np.testing.assert_allclose(g.data, e.data, rtol=1e-12)
    np.testing.assert_allclose(V.cov(M, fweights=np.array([1.0, 2.0, 1.0, 3.0])).data, weighted.data)


def test_aweights_get_gradients():
    x = V.Variable(M)
    weights = np.array([0.5, 1.5, 1.0, 2.0])
    w = V.Variable(weights)
    y = V.cov(x, aweights=w, ddof=1)
    np.testing.assert_allclose(y.data, np.cov(M, aweights=weights, ddof=1), rtol=1e-12)
    V.sum(y * y).backward()
    numerical = V.numerical_grad(lambda v: V.sum(V.cov(V.Variable(M), aweights=v, ddof=1) ** 2), weights)
    np.testing.assert_allclose(w.grad.data, numerical, rtol=1e-6)
    assert x.grad.shape == M.shape


def test_float32_with_dtype_stays_float32_and_gradients_keep_the_input_dtype():
    x = V.Variable(M.astype(np.float32))
    y = V.cov(x)
    assert y.dtype == np.float64                               # NumPy's default: at least float64
    np.testing.assert_allclose(y.data, np.cov(M.astype(np.float32)), rtol=1e-12)
    for op in (V.cov, V.corrcoef):
        y = op(x, dtype=np.float32)
        assert y.dtype == np.float32
        np.testing.assert_allclose(y.data, op(M).data, rtol=1e-5, atol=1e-6)
        g, = V.grad(V.sum(y * y), [x], create_graph=True)
        assert g.dtype == np.float32
        h, = V.grad(V.sum(g * g), [x])
        assert h.dtype == np.float32
        g, = V.grad(V.sum(op(x)), [x])
        assert g.dtype == np.float32


def test_integer_input_gives_float64():
    data = np.array([[1, 2, 4], [3, 0, 1]])
    y = V.cov(data)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.data, np.cov(data), rtol=1e-12)
    np.testing.assert_allclose(V.corrcoef(data).data, np.corrcoef(data), rtol=1e-12)


# ----- corrcoef: the diagonal, variance 0, the clip ---------------------------------------
def test_corrcoef_diagonal_is_one_with_gradient_zero():
    x = V.Variable(M)
    r = V.corrcoef(x)
    np.testing.assert_array_equal(np.diag(r.data), 1.0)
    g, = V.grad(V.sum(V.diagonal(r)), [x], materialize_grads=True)
    np.testing.assert_array_equal(g.data, 0.0)
    one = V.Variable(M[0])
    assert V.corrcoef(one).item() == 1.0
    g, = V.grad(V.corrcoef(one), [one], materialize_grads=True)
    np.testing.assert_array_equal(g.data, 0.0)
    # off the diagonal: d r_01 against central differences
    g, = V.grad(r[0, 1], [x])
    numerical = V.numerical_grad(lambda v: V.corrcoef(v)[0, 1], M)
    np.testing.assert_allclose(g.data, numerical, rtol=1e-6, atol=1e-9)


def test_corrcoef_of_a_variable_of_variance_zero_is_nan_without_warnings():
    data = np.array([[1.0, 2.0, 4.0], [1.5, 1.5, 1.5], [0.5, -1.0, 2.0]])
    x = V.Variable(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = V.corrcoef(x)
        g, = V.grad(V.sum(V.nan_to_num(r)), [x], create_graph=True)
        h, = V.grad(V.sum(g * g), [x])
    np.testing.assert_array_equal(r.data, quiet(np.corrcoef)(data))
    assert np.all(np.isfinite(g.data)) and np.all(np.isfinite(h.data))
    np.testing.assert_array_equal(g.data[1], 0.0)
    assert np.isnan(V.corrcoef(data[1]).item()) and np.isnan(V.corrcoef(2.5).item())


def test_corrcoef_clips_rounding_past_one_where_the_gradient_is_zero():
    # perfectly (anti-)correlated variables: r = +-1, an extreme, so the exact gradient is 0;
    # the clip (as NumPy's) keeps |r| <= 1 and the gradient stays at rounding level
    base = np.array([0.1, 0.7, -0.3, 0.35, 1.9])
    data = np.stack([base, 3.0 * base + 0.2, -0.7 * base])
    x = V.Variable(data)
    r = V.corrcoef(x)
    np.testing.assert_allclose(r.data, np.corrcoef(data), rtol=1e-12)
    assert np.all(np.abs(r.data) <= 1.0)
    g, = V.grad(V.sum(r), [x])
    np.testing.assert_allclose(g.data, 0.0, atol=1e-12)


def test_corrcoef_is_pearsons_formula():
    x, y = M[0], M[1]
    xc, yc = x - x.mean(), y - y.mean()
    r = V.corrcoef(x, y)
    np.testing.assert_allclose(r.data[0, 1], (xc @ yc) / np.sqrt((xc @ xc) * (yc @ yc)), rtol=1e-12)


# ----- NumPy's dispatch ------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda m, y: np.cov(m, y),
    lambda m, y: np.cov(m, rowvar=False, bias=True),
    lambda m, y: np.cov(m, aweights=[1.0, 2.0, 0.5, 1.0], ddof=0),
    lambda m, y: np.corrcoef(m, y),
    lambda m, y: np.corrcoef(m.T, rowvar=False),
])
def test_numpy_functions_dispatch_to_the_ops(call):
    m, y = V.Variable(M), V.Variable(M[0] ** 2)
    out = call(m, y)
    assert isinstance(out, V.Variable)
    np.testing.assert_allclose(out.data, call(M, M[0] ** 2), rtol=1e-12)
    g, = V.grad(V.sum(out * out), [m])
    numerical = V.numerical_grad(lambda v: V.sum(call(v, V.Variable(M[0] ** 2)) ** 2), M)
    np.testing.assert_allclose(g.data, numerical, rtol=1e-6, atol=1e-8)


# ----- on the device -----------------------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda m: V.cov(m),
    lambda m: V.cov(m, ddof=5),
    lambda m: V.cov(m, fweights=[1, 2, 1, 1], aweights=[0.5, 1.0, 1.0, 2.0], ddof=2),
    lambda m: V.corrcoef(m),
    lambda m: V.corrcoef(m[0]),
    lambda m: V.corrcoef(V.concatenate([m, m[:1] * 0.0 + 1.0])),
])
def test_on_the_device_without_host_syncs(call, gpu, count_syncs):
    x = V.Variable(M).to_gpu()
    with count_syncs() as syncs:
        y = call(x)
        g, = V.grad(V.sum(finite(y)), [x], create_graph=True, materialize_grads=True)
        coefficients = V.taylor(call, x, V.Variable(np.ones(M.shape)).to_gpu(), 2)
    assert syncs.count == 0, syncs
    assert y.device == g.device == "gpu" and all(c.device == "gpu" for c in coefficients)
    host = V.Variable(M)
    expected, = V.grad(V.sum(finite(call(host))), [host], materialize_grads=True)
    np.testing.assert_allclose(backend.to_cpu(y.data), call(host).data, rtol=1e-12)
    np.testing.assert_allclose(backend.to_cpu(g.data), expected.data, rtol=1e-12, atol=1e-15)


def test_bad_weights_on_the_device_raise_at_the_next_read(gpu):
    x = V.Variable(M).to_gpu()
    y = V.cov(x, aweights=gpu.asarray(np.array([1.0, -1.0, 1.0, 1.0])))
    with pytest.raises(ValueError, match=r"cov: aweights cannot be negative, got -1.0 \(checked on the dev"):
        backend.synchronize()
    y = V.cov(x, fweights=[1, 1.5, 1, 1])
    with pytest.raises(TypeError, match=r"cov: fweights must be integers, got 1.5 \(checked on the device\)"):
        y.to_cpu()
    V.cov(x, aweights=[0.0, 0.0, 0.0, 0.0])
    with pytest.raises(ZeroDivisionError, match=r"cov: the weights sum to 0.0, so they cannot be normalized"):
        backend.synchronize()


# ----- refused arguments ----------------------------------------------------------------------
@pytest.mark.parametrize("call, error, match", [
    (lambda: V.cov(np.ones((2, 2, 2))), ValueError,
     r"cov: m has 3 dimensions \(shape \(2, 2, 2\)\); give at most 2"),
    (lambda: V.cov(M, np.ones((1, 1, 4))), ValueError, "cov: y has 3 dimensions"),
    (lambda: V.corrcoef(np.ones((2, 2, 2))), ValueError, "corrcoef: m has 3 dimensions"),
    (lambda: V.cov(M, M[:, :3]), ValueError, "cov: m has 4 observations and y 3"),
    (lambda: V.corrcoef(M, M[0, :2]), ValueError, "corrcoef: m has 4 observations and y 2"),
    (lambda: V.cov(M, ddof=1.5), ValueError, "cov: ddof must be an integer, got 1.5"),
    (lambda: V.cov(M, ddof="1"), TypeError, "cov: ddof must be an integer or None, got str"),
    (lambda: V.cov(M, dtype=np.int32), TypeError, "cov: dtype=int32 is not supported"),
    (lambda: V.corrcoef(M, dtype=np.int64), TypeError, "corrcoef: dtype=int64 is not supported"),
    (lambda: V.cov(M, dtype="nonsense"), TypeError, "cov: dtype must be a floating dtype or None"),
    (lambda: V.cov(M, fweights=[1, -1, 1, 1]), ValueError, "cov: fweights cannot be negative, got -1"),
    (lambda: V.cov(M, fweights=[1, 1.5, 1, 1]), TypeError, "cov: fweights must be integers, got 1.5"),
    (lambda: V.cov(M, fweights=V.Variable(np.ones(4))), TypeError, "cov: fweights are integer frequencies"),
    (lambda: V.cov(M, aweights=[1.0, -0.5, 1.0, 1.0]), ValueError,
     "cov: aweights cannot be negative, got -0.5"),
    (lambda: V.cov(M, aweights=np.ones(3)), ValueError,
     r"cov: aweights must be 1-d, one weight per observation \(4\), got shape \(3,\)"),
    (lambda: V.cov(M, fweights=np.ones((1, 4), int)), ValueError, "cov: fweights must be 1-d"),
    (lambda: V.cov(M, aweights=np.zeros(4)), ZeroDivisionError, "cov: the weights sum to 0"),
    (lambda: V.cov(M, aweights=["a"] * 4), TypeError, "cov"),
    (lambda: V.cov("m"), TypeError, "cov"),
])
def test_refused_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_corrcoef_dtype_float_is_float64():
    # a floating dtype given as a name, as NumPy takes it
    assert V.corrcoef(M, dtype="float").dtype == np.float64


def test_std_with_ddof_at_least_n_has_a_nan_derivative_without_warnings():
    """std is inf (NaN for a constant slice) there, as NumPy's: no derivative, in every mode."""
    x = np.array([[1.0, 2.0], [3.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = V.Variable(x)
        g = V.grad(V.std(v, axis=1, ddof=2).sum(), v, create_graph=True)
        gg = V.grad(g.sum(), v)
        _, t = V.jvp(lambda a: V.std(a, axis=1, ddof=3), x, np.ones_like(x))
    assert np.isnan(g.data).all() and np.isnan(gg.data).all() and np.isnan(t.data).all()
