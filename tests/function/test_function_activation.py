"""Activations: fused ops against compositions of primitives, extremes, closed forms, errors.

The table test (test_function_table.py) checks every activation against a NumPy formula
and gradcheck; here each fused Forwarder is compared, in value, gradient and second
derivatives, with a `simple_*` composition of primitive ops, and pushed to +-1000.
"""

import math
import warnings

import numpy as np
import pytest
from function_checks import assert_same_derivatives, erfc

import function as F
import variable as V


# ----- compositions of primitives: the oracles -------------------------------------------
def simple_sigmoid(x):
    return 1 / (1 + V.exp(-x))


def simple_swish(x):
    return x * simple_sigmoid(x)


def simple_softplus(x):
    return V.log(1 + V.exp(x))


def simple_gelu_tanh(x):
    return 0.5 * x * (1 + V.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def simple_softmax(x, axis=-1):
    return V.exp(x - V.logsumexp(x, axis=axis, keepdims=True))


def simple_log_softmax(x, axis=-1):
    return x - V.logsumexp(x, axis=axis, keepdims=True)


def simple_elu(x, alpha):
    return V.where(x.data > 0, x, alpha * (V.exp(x) - 1))


@pytest.mark.parametrize("fused, simple", [
    (F.sigmoid, simple_sigmoid),
    (F.swish, simple_swish),
    (F.softplus, simple_softplus),
    (lambda x: F.gelu(x, approximate="tanh"), simple_gelu_tanh),
    (F.softmax, simple_softmax),
    (F.log_softmax, simple_log_softmax),
    (lambda x: F.softmax(x, axis=0), lambda x: simple_softmax(x, axis=0)),
    (lambda x: F.elu(x, 0.7), lambda x: simple_elu(x, 0.7)),
], ids=["sigmoid", "swish", "softplus", "gelu", "softmax", "log_softmax", "softmax-axis0", "elu"])
def test_fused_matches_composition_of_primitives(fused, simple, rng):
    assert_same_derivatives(fused, simple, [rng.uniform(-3, 3, (3, 4))])


def test_sigmoid_derivatives_have_their_closed_forms(rng):
    x = V.Variable(rng.uniform(-4, 4, 7))
    s = 1 / (1 + np.exp(-x.data))
    d1 = V.grad(F.sigmoid(x), x, create_graph=True)
    d2 = V.grad(d1, x, create_graph=True)
    d3 = V.grad(d2, x)
    np.testing.assert_allclose(d1.data, s * (1 - s), rtol=1e-12)
    np.testing.assert_allclose(d2.data, s * (1 - s) * (1 - 2 * s), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(d3.data, s * (1 - s) * (1 - 6 * s + 6 * s * s), rtol=1e-9, atol=1e-14)


def test_softplus_derivative_is_sigmoid_and_second_is_its_derivative(rng):
    x = V.Variable(rng.uniform(-5, 5, 6))
    g = V.grad(F.softplus(x), x, create_graph=True)
    s = 1 / (1 + np.exp(-x.data))
    np.testing.assert_allclose(g.data, s, rtol=1e-12)
    np.testing.assert_allclose(V.grad(g, x).data, s * (1 - s), rtol=1e-10)


# d^n f / dx^n at 0, n = 1..5, from each Taylor series f(x) = sum f^(n)(0) x^n / n!
_A = math.sqrt(2 / math.pi)                      # tanh-GELU: u = A (x + B x^3); also 2 phi(0)
_B = 0.044715
DERIVATIVES_AT_ZERO = {
    # 1/2 + x/4 - x^3/48 + x^5/480
    "sigmoid": (F.sigmoid, [1 / 4, 0, -1 / 8, 0, 1 / 4]),
    # x/2 + x^2/4 - x^4/48 + ...
    "swish": (F.swish, [1 / 2, 1 / 2, 0, -1 / 2, 0]),
    # log 2 + x/2 + x^2/8 - x^4/192 + ...
    "softplus": (F.softplus, [1 / 2, 1 / 4, 0, -1 / 8, 0]),
    # x/2 + A x^2/2 + (A B - A^3/3) x^4/2 + O(x^6): x^3 in backward reaches x^0 at order 5
    "gelu tanh": (lambda x: F.gelu(x, approximate="tanh"), [1 / 2, _A, 0, 12 * (_A * _B - _A ** 3 / 3), 0]),
    # x/2 + phi(0) (x^2 - x^4/6 + x^6/40 - ...)
    "gelu none": (lambda x: F.gelu(x, approximate="none"), [1 / 2, _A, 0, -2 * _A, 0]),
    # log cosh d = d^2/2 - d^4/12 + ...
    "log_cosh_loss": (lambda x: F.log_cosh_loss(x, np.zeros(())), [0, 1, 0, -2, 0]),
    # softplus(x) - x t at t = 1
    "sigmoid_cross_entropy": (lambda x: F.sigmoid_cross_entropy(x, np.ones(())),
                              [-1 / 2, 1 / 4, 0, -1 / 8, 0]),
}


@pytest.mark.parametrize("name", list(DERIVATIVES_AT_ZERO))
def test_derivatives_at_zero_to_order_5(name):
    """Smooth activations and losses at 0, where a power in a backward met 0 ** -1 (NaN)."""
    fn, expected = DERIVATIVES_AT_ZERO[name]
    x = V.Variable(np.array(0.0))
    g = fn(x)
    for n, value in enumerate(expected, start=1):
        g = V.grad(g, x, create_graph=True, materialize_grads=True)
        np.testing.assert_allclose(g.data, value, rtol=1e-12, atol=1e-14, err_msg=f"order {n}")


def test_exact_gelu_uses_an_erf_accurate_to_1e_12():
    x = np.linspace(-20, 20, 40001)
    cdf = 0.5 * erfc(-x / math.sqrt(2))
    y = F.gelu(x, approximate="none").data
    np.testing.assert_allclose(y, x * cdf, rtol=1e-12, atol=1e-300)   # relative, tails too
    v = V.Variable(x)
    gx = V.grad(F.gelu(v, approximate="none"), v).data
    np.testing.assert_allclose(gx, cdf + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi),
                               rtol=1e-12, atol=1e-15)
    assert F.gelu(np.array(-1.5), approximate="none").shape == ()


def test_gelu_approximations_are_close():
    x = np.linspace(-5, 5, 101)
    gap = F.gelu(x, approximate="tanh").data - F.gelu(x, approximate="none").data
    assert np.max(np.abs(gap)) < 5e-4


def test_gelu_defaults_to_the_exact_form_as_pytorch():
    x = np.linspace(-4, 4, 9)
    np.testing.assert_array_equal(F.gelu(x).data, F.gelu(x, approximate="none").data)
    assert not np.array_equal(F.gelu(x, approximate="tanh").data, F.gelu(x).data)


def test_silu_is_swish():
    assert F.silu is F.swish


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name, expected", [
    ("sigmoid", [0.0, 1.0]),
    ("relu", [0.0, 1000.0]),
    ("relu6", [0.0, 6.0]),
    ("leaky_relu", [-10.0, 1000.0]),
    ("elu", [-1.0, 1000.0]),
    ("selu", [-1.6732632423543772 * 1.0507009873554805, 1000.0 * 1.0507009873554805]),
    ("celu", [-1.0, 1000.0]),
    ("mish", [0.0, 1000.0]),
    ("softsign", [-1000 / 1001, 1000 / 1001]),
    ("log_sigmoid", [-1000.0, 0.0]),
    ("hard_tanh", [-1.0, 1.0]),
    ("gelu", [0.0, 1000.0]),
    ("swish", [0.0, 1000.0]),
    ("hard_sigmoid", [0.0, 1.0]),
    ("hard_swish", [0.0, 1000.0]),
    ("softplus", [0.0, 1000.0]),
])
def test_extreme_inputs_give_exact_finite_values_and_gradients(name, expected, dtype):
    x = V.Variable(np.array([-1000.0, 1000.0], dtype=dtype))
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        y = getattr(F, name)(x)
        g1 = V.grad(y, x, create_graph=True)
        g2 = V.grad(g1, x, allow_unused=True)          # None: piecewise linear
    np.testing.assert_allclose(y.data, expected, atol=1e-30)
    assert y.dtype == g1.dtype == dtype
    assert np.all(np.isfinite(g1.data))
    assert g2 is None or (g2.dtype == dtype and np.all(np.isfinite(g2.data)))


@pytest.mark.parametrize("name, f, scale, alpha, beta", [
    ("elu", lambda x: F.elu(x, 1.5), 1.0, 1.5, 1.0),
    ("selu", F.selu, 1.0507009873554805, 1.6732632423543772, 1.0),
    ("celu", lambda x: F.celu(x, 0.7), 1.0, 0.7, 0.7),
])
def test_elus_left_tail_keeps_the_digits_of_its_derivatives(name, f, scale, alpha, beta):
    """scale alpha e^(x/beta) / beta^k, from x: computed from the output, y + scale alpha, the
    slope at x = -30 kept 3 digits, and none at -40 (PyTorch computes it from x too)."""
    points = np.array([-40.0, -30.0, -5.0, -0.5])
    x = V.Variable(points)
    g1 = V.grad(V.sum(f(x)), x, create_graph=True)
    g2 = V.grad(V.sum(g1), x)
    expected = scale * alpha * np.exp(points / beta)
    np.testing.assert_allclose(g1.data, expected / beta, rtol=1e-14)
    np.testing.assert_allclose(g2.data, expected / beta ** 2, rtol=1e-14)
    series = V.taylor(f, points, np.ones(4), 3)                     # derivatives by Taylor mode
    for k in (1, 2, 3):
        np.testing.assert_allclose(series[k].data, expected / beta ** k, rtol=1e-14)


def test_exact_gelu_at_extremes():
    x = V.Variable(np.array([-1000.0, -30.0, 30.0, 1000.0]))
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        y = F.gelu(x, approximate="none")
        g = V.grad(y, x)
    np.testing.assert_allclose(y.data, [0, 0, 30, 1000], atol=1e-30)
    np.testing.assert_allclose(g.data, [0, 0, 1, 1], atol=1e-30)


def test_sigmoid_keeps_relative_precision_far_in_the_left_tail():
    x = np.array([-30.0, -300.0, -700.0])
    np.testing.assert_allclose(F.sigmoid(x).data, np.exp(x) / (1 + np.exp(x)), rtol=1e-14)


def test_sigmoid_float32_at_extremes_in_place():
    y = F.sigmoid(np.array([-1e30, -88.0, 0.0, 88.0, 1e30], dtype=np.float32))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.data, [0, np.exp(-88.0), 0.5, 1, 1], rtol=1e-6)


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_softmax_family_is_stable_for_huge_logits(fn):
    x = V.Variable(np.array([[1000.0, -1000.0, 0.0], [1e300, 1e300, -1e300]]))
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        y = fn(x)
        g = V.grad(V.sum(y * np.arange(6.0).reshape(2, 3)), x, create_graph=True)
        g2 = V.grad(V.sum(g * g), x)
    assert np.all(np.isfinite(g.data)) and np.all(np.isfinite(g2.data))
    if fn is F.softmax:
        np.testing.assert_allclose(y.data, [[1, 0, 0], [0.5, 0.5, 0]], atol=1e-300)
    else:
        np.testing.assert_allclose(y.data[0], [0, -2000, -1000])


def test_softmax_sums_to_one_and_log_softmax_is_its_log(rng):
    x = rng.standard_normal((3, 4, 5)) * 10
    for axis in (0, 1, -1, (0, 2)):
        p = F.softmax(x, axis=axis).data
        np.testing.assert_allclose(p.sum(axis=axis), 1, rtol=1e-12)
        np.testing.assert_allclose(F.log_softmax(x, axis=axis).data, np.log(p), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, axis", [((3, 0), 1), ((3, 0), -1), ((0, 3), 1), ((0, 3), 0),
                                         ((3, 0), None), ((0,), -1), ((2, 0, 4), (0, 2))], ids=repr)
@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_softmax_family_over_an_empty_axis_is_empty(fn, shape, axis, dtype):
    """An empty result of the input's shape and dtype (PyTorch), empty gradients to order 2, no warning."""
    x = V.Variable(np.zeros(shape, dtype=dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = fn(x, axis=axis)
        g = V.grad(V.sum(y * y), x, create_graph=True)
        g2 = V.grad(V.sum(g * g), x, materialize_grads=True)
    assert y.shape == g.shape == g2.shape == shape
    assert y.dtype == g.dtype == g2.dtype == dtype


def _softmax_rows_exactly(x, g):
    """softmax of each row of x, y (g - sum(y g)), and how far a float computation of each may
    be off: exp's argument x - max is exact for float32 data (in float64) and rounded for
    float64, so an entry's softmax is good to (|x - max| + a few) units in the last place of
    the dtype; the gradient adds the dot product's rounding; a result near the smallest normal
    number is good only to that (math.fsum's sums, float64 exps)."""
    eps, tiny = np.finfo(x.dtype).eps, np.finfo(x.dtype).tiny
    ys, gxs, y_tol, gx_tol = [], [], [], []
    rows = x.astype(np.float64).reshape(-1, x.shape[-1])
    for row, grow in zip(rows, g.astype(np.float64).reshape(rows.shape)):
        m = max(row)
        e = [math.exp(v - m) for v in row]
        total = math.fsum(e)
        y = [v / total for v in e]
        dot = math.fsum(a * b for a, b in zip(y, grow))
        spread = math.fsum(abs(a * b) for a, b in zip(y, grow))
        ys.append(y)
        gxs.append([a * (b - dot) for a, b in zip(y, grow)])
        y_tol.append([(m - v + 16) * eps * a + 4 * tiny for v, a in zip(row, y)])
        gx_tol.append([((m - v + 16) * (abs(b) + abs(dot)) + 64 * spread) * eps * a + 4 * tiny
                       for v, a, b in zip(row, y, grow)])
    return [np.reshape(r, x.shape) for r in (ys, gxs, y_tol, gx_tol)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("scale, shift",
                         [(3.0, 0.0), (3.0, 60.0), (3.0, -60.0), (1.0, 600.0), (40.0, 0.0)],
                         ids=["small", "near +bound", "near -bound", "beyond", "across"])
@pytest.mark.parametrize("row", [7, 5000], ids=["row 7", "row 5000"])
def test_softmax_and_its_gradient_to_a_few_ulps_beside_the_max_free_bound(dtype, scale, shift, row, rng):
    """Within the bound (|x| <= 64 in float32, 512 in float64) softmax skips the max and its
    backward takes the row sum as a dot product (rows up to 4096); beyond, the max is taken
    out and the sum is NumPy's; both give the exact rows to rounding."""
    x = (rng.standard_normal((3, row)) * scale + shift).astype(dtype)
    g = rng.standard_normal((3, row)).astype(dtype)
    xv = V.Variable(x)
    y = F.softmax(xv, axis=-1)
    (gx,) = V.grad(V.sum(y * g), [xv])
    want_y, want_gx, y_tol, gx_tol = _softmax_rows_exactly(x, g)
    assert y.dtype == gx.dtype == dtype
    assert np.all(np.abs(y.data - want_y) <= y_tol), np.max(np.abs(y.data - want_y) / y_tol)
    assert np.all(np.abs(gx.data - want_gx) <= gx_tol), np.max(np.abs(gx.data - want_gx) / gx_tol)


def test_softmax_of_a_nan_row_is_nan_and_leaves_the_other_rows_exact():
    x = np.array([[0.5, np.nan, 1.0], [0.0, 1.0, 2.0]])
    y = F.softmax(x, axis=-1).data
    assert np.isnan(y[0]).all()
    np.testing.assert_allclose(y[1], np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum(), rtol=1e-15)


def test_softmax_keeps_its_output_for_backward():
    x = V.Variable(np.array([0.1, 0.2, 0.3]))
    y = F.softmax(x)
    assert y.creator.name == "Softmax" and y.creator.inputs == (x,)


def test_piecewise_activations_take_derivative_zero_or_the_lower_slope_at_their_kinks():
    x = V.Variable(np.array([0.0, 6.0, -3.0, 3.0]))
    np.testing.assert_array_equal(V.grad(F.relu(x), x).data, [0, 1, 0, 1])
    np.testing.assert_array_equal(V.grad(F.relu6(x), x).data, [0, 0, 0, 1])
    np.testing.assert_allclose(V.grad(F.leaky_relu(x, 0.1), x).data, [0.1, 1, 0.1, 1])
    np.testing.assert_allclose(V.grad(F.hard_sigmoid(x), x).data, [1 / 6, 0, 0, 0])


def test_relu_saves_a_mask_and_its_second_derivative_is_zero(rng):
    x = V.Variable(rng.standard_normal(10))
    g = V.grad(F.relu(x) ** 2, x, create_graph=True)     # 2 relu(x) relu'(x)
    np.testing.assert_allclose(g.data, 2 * np.maximum(x.data, 0))
    np.testing.assert_allclose(V.grad(V.sum(g), x).data, 2.0 * (x.data > 0))


def test_integer_inputs_become_float64_constants():
    y = F.relu(np.array([-2, 3]))
    assert y.dtype == np.float64 and not y.requires_grad
    np.testing.assert_array_equal(y.data, [0, 3])
    assert F.sigmoid(0).data == 0.5
    assert F.sigmoid(np.float32(0.5)).dtype == np.float32          # a NumPy scalar keeps its dtype
    np.testing.assert_allclose(F.softmax([1, 1]).data, [0.5, 0.5])


@pytest.mark.parametrize("call, error, match", [
    (lambda: F.gelu(np.ones(2), approximate="erf"), ValueError, "gelu: approximate"),
    (lambda: F.gelu(np.ones(2), approximate=None), ValueError, "gelu: approximate"),
    (lambda: F.leaky_relu(np.ones(2), alpha="0.1"), TypeError, "leaky_relu: alpha"),
    (lambda: F.elu(np.ones(2), alpha=float("nan")), ValueError, "elu: alpha must be finite"),
    (lambda: F.softmax(np.array(1.0)), ValueError, "softmax: the input is 0-d"),
    (lambda: F.log_softmax(np.ones((2, 3)), axis=2), ValueError, "log_softmax: axis 2 is out of range"),
    (lambda: F.softmax(np.ones((2, 3)), axis=1.5), TypeError, "softmax: axis"),
    (lambda: F.sigmoid("abc"), TypeError, "sigmoid: expects a Variable"),
    (lambda: F.relu(np.array([1 + 2j])), TypeError, "relu: expects real numbers"),
    (lambda: F.swish(np.array(["a"])), TypeError, "swish: expects real numbers"),
    (lambda: F.softplus([[1.0], [2.0, 3.0]]), TypeError, "softplus: cannot turn"),
])
def test_bad_arguments_raise_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("name, f", [
    ("relu", F.relu), ("relu6", F.relu6), ("hard_tanh", lambda x: F.hard_tanh(x) + 1),
    ("hard_sigmoid", lambda x: F.hard_sigmoid(10 * x)),
    ("hard_swish", lambda x: F.hard_swish(10 * x)),
    ("clip", lambda x: V.clip(x, 0, None)), ("maximum", lambda x: V.maximum(x, 0)),
    ("minimum", lambda x: -V.minimum(-x, 0)),
])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("repeat", [1, 1250], ids=["4 entries", "5000 entries"])
def test_a_flat_piece_passes_no_gradient_even_an_infinite_one(name, f, create_graph, repeat):
    # sqrt's gradient at 0 is inf: where f is flat (at 0) the gradient is 0, not inf * 0 = NaN,
    # as PyTorch's relu, hardtanh, clamp and maximum give it (5000 entries: past the size from
    # which a finite gradient is gated by a product)
    x = V.Variable(np.tile([-1.0, 2.0, -3.0, 0.5], repeat))
    with np.errstate(divide="ignore"):
        g = V.grad(V.sum(V.sqrt(f(x))), x, create_graph=create_graph)
    assert (g.data[0::2] == 0).all() and np.isfinite(g.data).all(), (name, g.data)


@pytest.mark.parametrize("f, at_tie, beside", [
    (F.relu, [0, 1, 0, 1], [0, 1, 0, 1]), (lambda x: V.clip(x, 0, None), [1, 1, 0, 1], [0, 1, 0, 1]),
    (lambda x: V.maximum(x, 0), [0.5, 1, 0, 1], [0, 1, 0, 1]),
    (lambda x: V.minimum(x, 0), [0.5, 0, 1, 0], [1, 0, 1, 0]),
    (lambda x: V.where(x.data > 0, x, 2 * x), [2, 1, 2, 1], [2, 1, 2, 1]),
], ids=["relu", "clip", "maximum", "minimum", "where"])
@pytest.mark.parametrize("tie", [True, False], ids=["with a tie", "no tie"])
def test_a_piecewise_gradient_on_many_entries_is_the_slope_times_gy(f, at_tie, beside, tie, rng):
    """From 4096 entries on a finite gradient is gated by a product with the mask: the same
    values as where's, ties (x = 0) included."""
    x = V.Variable(np.tile([0.0 if tie else -1e-3, 2.0, -3.0, 0.5], 1250))
    gy = rng.standard_normal(x.shape)
    want = np.tile(np.array(at_tie if tie else beside, dtype=float), 1250) * gy
    np.testing.assert_array_equal(V.grad(V.sum(f(x) * gy), x).data, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_exact_gelu_on_the_device_is_the_hosts_without_a_sync(dtype, gpu, count_syncs):
    """The normal CDF's one formula (erfc_of_abs) has no branch on the data: on a device the
    host's values and gradients, bit for bit, with no sync; gelu(-inf) = 0 (not -inf * 0), its
    slope 1 at inf and 0 at -inf."""
    x = np.concatenate([np.linspace(-40.0, 12.0, 521), [0.0, -0.0, np.inf, -np.inf]]).astype(dtype)
    host = V.Variable(x)
    want, (grad,) = F.gelu(host), V.grad(V.sum(F.gelu(host)), [host])
    np.testing.assert_array_equal([want.data[-2:], grad.data[-2:]], [[np.inf, 0.0], [1.0, 0.0]])
    moved = V.Variable(x).to_gpu()
    with count_syncs() as syncs:
        y = F.gelu(moved)
        g, = V.grad(V.sum(y), [moved])
    assert syncs.count == 0, syncs.where
    np.testing.assert_array_equal(V.backend.to_cpu(y.data), want.data)
    np.testing.assert_array_equal(V.backend.to_cpu(g.data), grad.data)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_at_the_infinities_is_its_limits_in_both_passes(approximate):
    """gelu(-inf) = 0 and gelu(inf) = inf; the slope 0 and 1 there, first order and recorded
    (x times a CDF, or a density, that is 0 there: not -inf * 0 = NaN); the second derivative
    0 far out (at the infinities themselves V.ndtr's own is NaN: -x phi(x))."""
    x = V.Variable(np.array([-np.inf, np.inf, -1e30, 1e30]))
    y = F.gelu(x, approximate=approximate)
    np.testing.assert_array_equal(y.data, [0.0, np.inf, 0.0, 1e30])
    first, = V.grad(V.sum(y), [x])
    recorded, = V.grad(V.sum(F.gelu(x, approximate=approximate)), [x], create_graph=True)
    for g in (first, recorded):
        np.testing.assert_array_equal(g.data, [0.0, 1.0, 0.0, 1.0])
    far = V.Variable(np.array([-1e30, 1e30, -80.0, 80.0]))
    slope, = V.grad(V.sum(F.gelu(far, approximate=approximate)), [far], create_graph=True)
    second, = V.grad(V.sum(slope), [far])
    np.testing.assert_array_equal(np.abs(second.data), [0.0, 0.0, 0.0, 0.0])


def test_the_exact_gelu_in_float64_is_x_times_the_normal_cdf_to_1e_14_relative():
    """gelu's normal CDF by one formula (erfc's polynomial fit) against V.ndtr's series and
    continued fraction, from the underflow of the left tail to 1; its gradient likewise."""
    x = np.concatenate([np.linspace(-37, 12, 9801), [0.0, -0.0, 1e-300, -1e-300, np.inf]])
    y = F.gelu(V.Variable(x)).data
    cdf = V.ndtr(x).data
    want = x * cdf
    normal = np.isfinite(x) & (np.abs(want) > 1e-300)
    assert np.max(np.abs(y[normal] - want[normal]) / np.abs(want[normal])) < 1.2e-14
    assert F.gelu(V.Variable(np.array(0.0))).data == 0
    assert y[-1] == np.inf
    inside = np.abs(x) < 30
    xv = V.Variable(x[inside])
    pdf = np.exp(-x[inside] ** 2 / 2) / np.sqrt(2 * np.pi)
    g = V.grad(V.sum(F.gelu(xv)), xv).data
    terms = cdf[inside] + np.abs(x[inside]) * pdf        # (Phi + x phi cancels for x < 0)
    assert np.all(np.abs(g - (cdf[inside] + x[inside] * pdf)) <= 4e-14 * terms)


@pytest.mark.parametrize("f", [F.gelu, lambda x: V.erf(x), lambda x: V.erfc(x), lambda x: V.ndtr(x)],
                         ids=["gelu", "erf", "erfc", "ndtr"])
def test_float32_results_of_the_normal_cdf_family_are_the_float64_ones_rounded(f):
    """On float32 input the series behind erf runs 24 terms, not 40: the results still are the
    float64 ones to a unit or two in float32's last place (tails and 1 - erf near 2 included);
    gelu's gradient Phi(x) + x phi(x), which cancels for x < 0, to a few units of its terms'
    (float32's own arithmetic: PyTorch's float32 gelu too)."""
    x = np.concatenate([np.linspace(-12, 12, 4001), -np.geomspace(1e-30, 1, 200), np.geomspace(1e-30, 1, 200),
                        np.sqrt(2) * np.linspace(1.9, 2.1, 201), -np.sqrt(2) * np.linspace(1.9, 2.1, 201)])
    x32 = V.Variable(x.astype(np.float32))
    x64 = V.Variable(x.astype(np.float32).astype(np.float64))
    y32, y64 = f(x32), f(x64)
    assert y32.dtype == np.float32
    ulps = np.abs(y32.data.astype(np.float64) - y64.data) / np.spacing(np.abs(y64.data.astype(np.float32)))
    assert np.all((ulps <= 2) | (np.abs(y64.data) < np.finfo(np.float32).tiny)), ulps.max()
    if f is F.gelu:
        (g32,), (g64,) = V.grad(V.sum(y32), [x32]), V.grad(V.sum(y64), [x64])
        x64 = x64.data
        terms = V.ndtr(x64).data + np.abs(x64) * np.exp(-x64 * x64 / 2) / np.sqrt(2 * np.pi)
        assert g32.dtype == np.float32
        # (phi's exponent -x^2/2, rounded to float32, moves it by up to x^2/2 units in the last place)
        tolerance = 4 * np.finfo(np.float32).eps * (1 + x64 * x64) * terms + 1e-37
        assert np.all(np.abs(g32.data - g64.data) <= tolerance)
