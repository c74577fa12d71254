"""Losses: fused ops against compositions of primitives, extreme inputs, targets, errors."""

import math
import re
import warnings

import numpy as np
import pytest
from function_checks import assert_same_derivatives, probabilities

import function as F
import variable as V

RAISE = {"over": "raise", "invalid": "raise", "divide": "raise"}


# ----- compositions of primitives: the oracles -------------------------------------------
def simple_log_softmax(x):
    return x - V.logsumexp(x, axis=-1, keepdims=True)


def simple_softmax_cross_entropy(x, t):
    """-mean of the log-softmax entries picked by the labels."""
    return -V.mean(V.get_item(simple_log_softmax(x), (np.arange(len(t)), t)))


def simple_soft_target_cross_entropy(x, t):
    return -V.sum(t * simple_log_softmax(x)) / x.shape[0]


def simple_mean_squared_error(x0, x1):
    return V.mean(V.square(x0 - x1))


def simple_sigmoid_cross_entropy(x, t):
    s = 1 / (1 + V.exp(-x))
    return -V.mean(t * V.log(s) + (1 - t) * V.log(1 - s))


def simple_binary_cross_entropy(p, t):
    return -V.mean(t * V.log(p) + (1 - t) * V.log(1 - p))


def simple_log_cosh_loss(x, t):
    return V.mean(V.log(V.cosh(x - t)))


def simple_poisson_nll_loss(log_rate, t):
    return V.mean(V.exp(log_rate) - t * log_rate)


def simple_huber_loss(x, t, delta):
    a = V.abs(x - t)
    return V.mean(V.where(a.data <= delta, 0.5 * a * a, delta * (a - 0.5 * delta)))


def simple_cosine_similarity(x, y):
    return V.sum(x * y, axis=-1) / V.sqrt(V.sum(x * x, axis=-1) * V.sum(y * y, axis=-1))


def test_softmax_cross_entropy_with_labels_matches_composition(rng):
    t = rng.integers(0, 5, 4)
    assert_same_derivatives(lambda x: F.softmax_cross_entropy(x, t),
                            lambda x: simple_softmax_cross_entropy(x, t), [rng.standard_normal((4, 5))])


def test_softmax_cross_entropy_with_probabilities_matches_composition(rng):
    x, t = rng.standard_normal((4, 5)), probabilities(rng, (4, 5))
    assert_same_derivatives(F.softmax_cross_entropy, simple_soft_target_cross_entropy, [x, t])


@pytest.mark.parametrize("fused, simple, sample", [
    (F.mean_squared_error, simple_mean_squared_error,
     lambda r: [r.standard_normal((3, 4)), r.standard_normal((3, 4))]),
    (F.sigmoid_cross_entropy, simple_sigmoid_cross_entropy,
     lambda r: [r.standard_normal((3, 4)), r.uniform(0, 1, (3, 4))]),
    (F.binary_cross_entropy, simple_binary_cross_entropy,
     lambda r: [r.uniform(0.05, 0.95, (3, 4)), r.uniform(0, 1, (3, 4))]),
    (F.log_cosh_loss, simple_log_cosh_loss,
     lambda r: [r.standard_normal((3, 4)), r.standard_normal((3, 4))]),
    (F.poisson_nll_loss, simple_poisson_nll_loss,
     lambda r: [r.standard_normal((3, 4)), r.uniform(0, 5, (3, 4))]),
    (lambda x, t: F.huber_loss(x, t, 0.8), lambda x, t: simple_huber_loss(x, t, 0.8),
     lambda r: [r.standard_normal((3, 4)), r.standard_normal((3, 4))]),
    (F.cosine_similarity, simple_cosine_similarity,
     lambda r: [r.standard_normal((3, 4)), r.standard_normal((3, 4))]),
], ids=["mse", "sigmoid_ce", "bce", "log_cosh", "poisson", "huber", "cosine"])
def test_fused_loss_matches_composition_of_primitives(fused, simple, sample, rng):
    assert_same_derivatives(fused, simple, sample(rng))


def test_softmax_cross_entropy_gradient_is_softmax_minus_onehot_over_n(rng):
    x, t = V.Variable(rng.standard_normal((6, 4))), rng.integers(0, 4, 6)
    loss = F.softmax_cross_entropy(x, t)
    loss.backward()
    p = np.exp(x.data) / np.exp(x.data).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(x.grad.data, (p - np.eye(4)[t]) / 6, rtol=1e-12)
    assert loss.creator.name == "SoftmaxCrossEntropy"                 # one fused node
    assert loss.creator.inputs == (x,)


# ----- extremes -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_softmax_cross_entropy_is_finite_for_logits_of_1000(dtype):
    x = V.Variable(np.array([[1000.0, -1000.0], [-1000.0, 1000.0], [1000.0, 1000.0]], dtype=dtype))
    t = np.array([1, 1, 0])
    with np.errstate(**RAISE):
        loss = F.softmax_cross_entropy(x, t)
        g = V.grad(loss, x, create_graph=True)
        h = V.grad(V.sum(g * g), x)
    assert loss.dtype == g.dtype == h.dtype == dtype
    np.testing.assert_allclose(loss.data, (2000 + 0 + math.log(2)) / 3, rtol=1e-6)
    np.testing.assert_allclose(g.data, [[1, -1], [0, 0], [-0.5, 0.5]] / np.float64(3), atol=1e-7)
    assert np.all(np.isfinite(h.data))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sigmoid_cross_entropy_is_finite_for_logits_of_1000(dtype):
    x = V.Variable(np.array([1000.0, -1000.0, 1000.0, -1000.0], dtype=dtype))
    t = np.array([1.0, 0.0, 0.0, 1.0])
    with np.errstate(**RAISE):
        loss = F.sigmoid_cross_entropy(x, t)
        g = V.grad(loss, x, create_graph=True)
        h = V.grad(V.sum(g), x)
    assert loss.dtype == dtype
    np.testing.assert_allclose(loss.data, 2000 / 4)
    np.testing.assert_allclose(g.data, [0, 0, 0.25, -0.25])
    np.testing.assert_allclose(h.data, 0, atol=1e-30)


@pytest.mark.parametrize("x, t", [(np.inf, 0.0), (np.inf, 0.3), (-np.inf, 1.0), (-np.inf, 0.3)])
def test_sigmoid_cross_entropy_of_an_infinite_logit_on_the_wrong_side_is_inf(x, t):
    # -t log s - (1 - t) log(1 - s) is inf there; max(x, 0) - x t would be NaN at x = +inf
    # (PyTorch's formula, (1 - t) x + ..., gives NaN at x = -inf and inf at x = +inf)
    with np.errstate(invalid="ignore", over="ignore"):
        assert F.sigmoid_cross_entropy(np.array([x, 0.0]), np.array([t, 0.5])).data == np.inf


def test_binary_cross_entropy_is_finite_at_p_0_and_1_where_t_matches():
    p = V.Variable(np.array([0.0, 1.0, 0.0, 1.0, 0.5]))
    t = np.array([0.0, 1.0, 0.0, 1.0, 1.0])
    with np.errstate(**RAISE):
        loss = F.binary_cross_entropy(p, t)
        g = V.grad(loss, p, create_graph=True)
        h = V.grad(V.sum(g), p)
    np.testing.assert_allclose(loss.data, math.log(2) / 5)
    np.testing.assert_allclose(g.data, [0.2, -0.2, 0.2, -0.2, -0.4])   # (-t/p + (1-t)/(1-p)) / n
    np.testing.assert_allclose(h.data, [0.2, 0.2, 0.2, 0.2, 0.8])      # (t/p^2 + (1-t)/(1-p)^2) / n


# p exactly 0 or 1 against targets 0, 1 and soft ones.  PyTorch's BCELoss floors each log at
# -100 (its documented behaviour), so its per-element losses (reduction="none") are
# 0, 100, 100, 0, 0.5 * 100 and 0.75 * 100
EDGE_P = [0.0, 0.0, 1.0, 1.0, 0.0, 1.0]
EDGE_T = [0.0, 1.0, 0.0, 1.0, 0.5, 0.25]
EDGE_LOSS = [0.0, 100.0, 100.0, 0.0, 50.0, 75.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binary_cross_entropy_clamps_each_log_at_minus_100_as_pytorch(dtype):
    p = V.Variable(np.array(EDGE_P, dtype=dtype))
    t = V.Variable(np.array(EDGE_T, dtype=dtype))
    n = len(EDGE_P)
    with np.errstate(**RAISE):
        loss = F.binary_cross_entropy(p, t)
        gp, gt = V.grad(loss, [p, t], create_graph=True)
        gpp, gpt = V.grad(V.sum(gp), [p, t])
    assert loss.dtype == gp.dtype == gt.dtype == gpp.dtype == dtype
    np.testing.assert_allclose(loss.data, sum(EDGE_LOSS) / n, rtol=1e-6)
    for g in (gp, gt, gpp, gpt):
        assert np.all(np.isfinite(g.data))
    # d/dp = -t/p + (1-t)/(1-p), a floored log contributing 0 (it is the constant -100)
    np.testing.assert_allclose(gp.data, np.array([1, 0, 0, -1, 0.5, -0.25]) / n, rtol=1e-6)
    # d/dt = log(1-p) - log p, floored: +100 at p = 0, -100 at p = 1
    np.testing.assert_allclose(gt.data, np.array([100, 100, -100, -100, 100, -100]) / n, rtol=1e-6)
    # d2/dp2 = t/p^2 + (1-t)/(1-p)^2 and d2/dp dt = -1/p - 1/(1-p), floored terms 0
    np.testing.assert_allclose(gpp.data, np.array([1, 0, 0, 1, 0.5, 0.25]) / n, rtol=1e-6)
    np.testing.assert_allclose(gpt.data, np.full(n, -1.0) / n, rtol=1e-6)


def test_binary_cross_entropy_per_element_matches_the_pytorch_values():
    for p, t, expected in zip(EDGE_P, EDGE_T, EDGE_LOSS):
        assert F.binary_cross_entropy(np.array([p]), np.array([t])).data == expected


def test_binary_cross_entropy_floor_starts_at_exp_minus_100():
    p = V.Variable(np.array([1e-50, 1e-40]))            # log p = -115.1 (floored) and -92.1 (not)
    loss = F.binary_cross_entropy(p, np.ones(2))
    np.testing.assert_allclose(loss.data, (100 + 40 * math.log(10)) / 2, rtol=1e-12)
    np.testing.assert_allclose(V.grad(loss, p).data, [0.0, -1e40 / 2], rtol=1e-12)


def test_binary_cross_entropy_is_unchanged_inside_the_interval(rng):
    p = np.concatenate([rng.uniform(0.01, 0.99, 8), [1e-30, 1 - 1e-12]])
    t = rng.uniform(0, 1, p.shape)
    y = F.binary_cross_entropy(p, t)
    np.testing.assert_allclose(y.data, -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p)), rtol=1e-12)
    pv = V.Variable(p)
    g = V.grad(F.binary_cross_entropy(pv, t), pv)
    np.testing.assert_allclose(g.data, (-t / p + (1 - t) / (1 - p)) / p.size, rtol=1e-12)
    assert V.gradcheck(F.binary_cross_entropy, p[:8].reshape(2, 4), t[:8].reshape(2, 4), order=2)


def test_log_cosh_loss_is_linear_for_large_differences():
    x = V.Variable(np.array([1e4, -1e6, 800.0]))
    with np.errstate(**RAISE):
        loss = F.log_cosh_loss(x, np.zeros(3))
        g = V.grad(loss, x, create_graph=True)
        h = V.grad(V.sum(g), x)
    np.testing.assert_allclose(loss.data, (1e4 + 1e6 + 800 - 3 * math.log(2)) / 3)
    np.testing.assert_allclose(g.data, [1 / 3, -1 / 3, 1 / 3])
    np.testing.assert_allclose(h.data, 0, atol=1e-300)


def test_huber_loss_is_quadratic_inside_and_linear_outside():
    x = np.array([0.5, -0.5, 3.0, -3.0])
    np.testing.assert_allclose(F.huber_loss(x, np.zeros(4)).data, (0.125 * 2 + 2.5 * 2) / 4)
    v = V.Variable(x)
    np.testing.assert_allclose(V.grad(F.huber_loss(v, np.zeros(4), delta=2.0), v).data,
                               [0.125, -0.125, 0.5, -0.5])


def test_cosine_similarity_values_and_zero_vectors():
    x = V.Variable(np.array([[1.0, 2.0], [1.0, 0.0], [0.0, 0.0]]))
    y = np.array([[2.0, 4.0], [-3.0, 0.0], [1.0, 1.0]])
    with np.errstate(**RAISE):
        c = F.cosine_similarity(x, y)
        g = V.grad(V.sum(c), x, create_graph=True)
        h = V.grad(V.sum(g * g), x)
    np.testing.assert_allclose(c.data, [1, -1, 0], atol=1e-15)
    assert np.all(np.isfinite(g.data)) and np.all(np.isfinite(h.data))
    np.testing.assert_allclose(g.data[2], np.array([1.0, 1.0]) / math.sqrt(2) / 1e-8)


def test_poisson_nll_loss_value():
    log_rate, t = np.log(np.array([2.0, 0.5])), np.array([3.0, 0.0])
    np.testing.assert_allclose(F.poisson_nll_loss(log_rate, t).data, ((2 - 3 * math.log(2)) + 0.5) / 2)


def test_hinge_loss_value_and_gradient():
    x = V.Variable(np.array([2.0, 0.5, -0.5, 0.3]))
    t = np.array([1, 1, 1, -1])
    loss = F.hinge_loss(x, t)
    loss.backward()
    np.testing.assert_allclose(loss.data, (0 + 0.5 + 1.5 + 1.3) / 4)
    np.testing.assert_allclose(x.grad.data, [0, -0.25, -0.25, 0.25])


# ----- targets ------------------------------------------------------------------------------
def test_array_targets_are_constants_and_variable_targets_get_gradients(rng):
    x, t = V.Variable(rng.standard_normal((2, 3))), rng.standard_normal((2, 3))
    loss = F.mean_squared_error(x, t)
    loss.backward()
    np.testing.assert_allclose(x.grad.data, 2 * (x.data - t) / 6)
    tv = V.Variable(t)
    gx, gt = V.grad(F.mean_squared_error(x, tv), [x, tv])
    np.testing.assert_allclose(gt.data, -gx.data)


@pytest.mark.parametrize("fn", [F.sigmoid_cross_entropy, F.binary_cross_entropy, F.softmax_cross_entropy])
def test_gradients_with_respect_to_soft_targets(fn, rng):
    p = rng.uniform(0.1, 0.9, (3, 4)) if fn is F.binary_cross_entropy else rng.standard_normal((3, 4))
    t = probabilities(rng, (3, 4))
    assert V.gradcheck(fn, p, t, order=2)


def test_labels_may_be_lists_or_integer_variables(rng):
    x = rng.standard_normal((3, 4))
    expected = F.softmax_cross_entropy(x, np.array([0, 3, 1])).data
    assert F.softmax_cross_entropy(x, [0, 3, 1]).data == expected
    assert F.softmax_cross_entropy(x, V.Variable(np.array([0, 3, 1]))).data == expected


def test_float32_logits_with_integer_or_float64_targets_stay_float32(rng):
    x = V.Variable(rng.standard_normal((3, 4)).astype(np.float32))
    for loss in (F.mean_squared_error(x, np.ones((3, 4), dtype=np.int64)),
                 F.sigmoid_cross_entropy(x, np.ones((3, 4))),
                 F.softmax_cross_entropy(x, probabilities(rng, (3, 4))),
                 F.hinge_loss(x, np.ones((3, 4), dtype=int))):
        assert loss.dtype == np.float32
        assert V.grad(loss, x).dtype == np.float32


# ----- errors --------------------------------------------------------------------------------
PAIRED = [F.mean_squared_error, F.mean_absolute_error, F.huber_loss, F.binary_cross_entropy,
          F.sigmoid_cross_entropy, F.hinge_loss, F.poisson_nll_loss, F.log_cosh_loss]


@pytest.mark.parametrize("fn", PAIRED, ids=lambda f: f.__name__)
def test_shape_mismatch_names_both_shapes(fn):
    with pytest.raises(ValueError, match=rf"{fn.__name__}: .*\(2, 3\).*\(3, 2\)"):
        fn(np.full((2, 3), 0.5), np.ones((3, 2)))


def test_a_shape_mismatch_of_as_many_entries_names_the_reshape():
    y = V.Variable(np.ones((5, 1)))
    with pytest.raises(ValueError, match=r"does not broadcast\); reshape one to the other, e\.g\. "
                                         r"x1\.reshape\(5, 1\)"):
        F.mean_squared_error(y, np.ones(5))
    np.testing.assert_allclose(F.mean_squared_error(y, np.ones(5).reshape(5, 1)).data, 0.0)


# ----- swapped arguments: the model's output comes first ---------------------------------------
@pytest.mark.parametrize("logits", ["Variable", "array"])
@pytest.mark.parametrize("shape", [(3, 4), (4,)], ids=repr)
def test_softmax_cross_entropy_with_labels_first_says_swapped(logits, shape, rng):
    y = rng.standard_normal(shape)
    y = V.Variable(y) if logits == "Variable" else y
    t = np.array([0, 1, 3]) if len(shape) == 2 else np.array(2)
    swapped = r"look swapped: the logits come first, softmax_cross_entropy\(y, t\) with y of shape "
    with pytest.raises(ValueError, match=swapped + re.escape(str(shape))):
        F.softmax_cross_entropy(t, y)
    assert np.isfinite(F.softmax_cross_entropy(y, t).item())


@pytest.mark.parametrize("fn, names", [
    (F.binary_cross_entropy, ("p", "t")), (F.sigmoid_cross_entropy, ("x", "t")),
    (F.hinge_loss, ("x", "t")), (F.poisson_nll_loss, ("log_rate", "t")),
], ids=lambda v: getattr(v, "__name__", ""))
def test_integer_labels_before_a_trainable_output_say_swapped(fn, names):
    y, labels = V.Variable(np.array([0.25, 0.75])), np.array([1, 0])
    if fn is F.hinge_loss:
        labels = np.array([1, -1])
    swapped = (rf"{fn.__name__}: {names[0]} holds integers \(int64\) and {names[1]} is a Variable that "
               rf"requires grad: the arguments look swapped")
    with pytest.raises(TypeError, match=swapped):
        fn(labels, y)
    assert np.isfinite(fn(y, labels).item())


def test_a_symmetric_loss_takes_either_order():
    y, t = V.Variable(np.array([0.25, 0.75])), np.array([1, 0])
    assert F.mean_squared_error(t, y).item() == F.mean_squared_error(y, t).item()


# ----- empty batches: NaN, the mean of nothing (PyTorch), with empty gradients ----------------
def _empty_pair(fn, shape, dtype):
    """A valid empty call of `fn`: x requires grad; t does too unless it is a constant (hinge)."""
    x = V.Variable(np.zeros(shape, dtype=dtype))
    t = np.ones(shape) if fn is F.hinge_loss else V.Variable(np.ones(shape, dtype=dtype))
    return x, t


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)], ids=repr)
@pytest.mark.parametrize("fn", PAIRED, ids=lambda f: f.__name__)
def test_empty_inputs_give_nan_and_empty_gradients(fn, shape, dtype):
    x, t = _empty_pair(fn, shape, dtype)
    wrt = [v for v in (x, t) if isinstance(v, V.Variable)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = fn(x, t)
        grads = V.grad(loss, wrt, create_graph=True)
        second = V.grad(V.sum(grads[0] * grads[0]), x, materialize_grads=True)
    assert loss.shape == () and loss.dtype == dtype
    assert np.isnan(loss.data)
    for v, g in zip(wrt, grads):
        assert g.shape == v.shape and g.dtype == dtype
    assert second.shape == shape


@pytest.mark.parametrize("x_shape, t", [
    ((0, 3), np.zeros(0, dtype=int)),        # no rows, labels
    ((0, 3), np.zeros((0, 3))),              # no rows, probabilities
    ((2, 0, 3), np.zeros((2, 0), dtype=int)),
    ((0, 3), np.array([])),                  # an empty label list of any dtype
], ids=["labels", "probabilities", "3-d labels", "float []"])
def test_softmax_cross_entropy_of_an_empty_batch_is_nan(x_shape, t):
    x = V.Variable(np.zeros(x_shape))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = F.softmax_cross_entropy(x, t)
        g = V.grad(loss, x, create_graph=True)
    assert np.isnan(loss.data)
    assert g.shape == x_shape


def test_softmax_cross_entropy_without_classes():
    """C = 0: a probability row holds nothing (loss 0, empty gradient); any label is out of range."""
    x = V.Variable(np.zeros((3, 0)))
    loss = F.softmax_cross_entropy(x, np.zeros((3, 0)))
    np.testing.assert_array_equal(loss.data, 0.0)
    assert V.grad(loss, x).shape == (3, 0)
    with pytest.raises(ValueError, match="softmax_cross_entropy: label 0 is out of range for 0 classes"):
        F.softmax_cross_entropy(x, np.zeros(3, dtype=int))


@pytest.mark.parametrize("shape, axis, expected", [((0, 3), -1, np.zeros(0)), ((3, 0), -1, np.zeros(3))])
def test_cosine_similarity_of_empty_inputs(shape, axis, expected):
    """No vectors: an empty result; vectors of length 0: similarity 0 (0 / eps^2)."""
    x = V.Variable(np.zeros(shape))
    y = F.cosine_similarity(x, np.zeros(shape), axis=axis)
    np.testing.assert_array_equal(y.data, expected)
    assert V.grad(V.sum(y), x).shape == shape


@pytest.mark.parametrize("call, error, match", [
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 3])), ValueError,
     "softmax_cross_entropy: label 3 is out of range for 3 classes"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([-1, 0])), ValueError, "label -1"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0.0, 1.0])), TypeError,
     "labels of shape \\(2,\\) must be integers"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 1, 2])), ValueError,
     r"logits of shape \(2, 3\) need labels of shape \(2,\) or probabilities of shape \(2, 3\)"),
    (lambda: F.softmax_cross_entropy(np.array(1.0), np.array(0)), ValueError, "at least 1-d"),
    (lambda: F.hinge_loss(np.ones(3), np.array([1, 0, -1])), ValueError, "hinge_loss: labels t must be"),
    (lambda: F.binary_cross_entropy(np.array([1.2]), np.array([1.0])), ValueError, "p must lie in"),
    (lambda: F.binary_cross_entropy(np.array([0.2]), np.array([-1.0])), ValueError, "t must lie in"),
    (lambda: F.sigmoid_cross_entropy(np.array([0.2]), np.array([2.0])), ValueError, "targets t must lie"),
    (lambda: F.poisson_nll_loss(np.array([0.2]), np.array([-1.0])), ValueError, "must be non-negative"),
    (lambda: F.huber_loss(np.ones(2), np.ones(2), delta=0), ValueError, "delta must be positive"),
    (lambda: F.huber_loss(np.ones(2), np.ones(2), delta="1"), TypeError, "delta must be a positive number"),
    (lambda: F.cosine_similarity(np.ones((2, 3)), np.ones((2, 4))), ValueError,
     r"cosine_similarity: x of shape \(2, 3\) and y of shape \(2, 4\) do not broadcast"),
    (lambda: F.cosine_similarity(np.ones((2, 3)), np.ones((2, 3)), axis=2), ValueError, "axis 2"),
    (lambda: F.cosine_similarity(np.ones(3), np.ones(3), eps=-1.0), ValueError, "eps must be"),
    (lambda: F.cosine_similarity(np.array(1.0), np.array(1.0)), ValueError, "0-d"),
    (lambda: F.mean_squared_error("a", np.ones(2)), TypeError, "mean_squared_error: expects"),
    *[(lambda loss=loss, bad=bad: loss(np.full(2, 0.5), np.full(2, 0.5), reduction=bad), ValueError,
       rf"{loss.__name__}: reduction must be 'mean', 'sum' or 'none', got {bad!r}")
      for loss in (F.mean_squared_error, F.mean_absolute_error, F.huber_loss, F.log_cosh_loss,
                   F.poisson_nll_loss, F.sigmoid_cross_entropy, F.binary_cross_entropy, F.hinge_loss)
      for bad in ("elementwise_mean", None)],
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 1]), reduction="batchmean"), ValueError,
     "softmax_cross_entropy: reduction must be 'mean', 'sum' or 'none', got 'batchmean'"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 1]), label_smoothing=1.5), ValueError,
     r"label_smoothing must lie in \[0, 1\], got 1\.5"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 1]), label_smoothing="0.1"), TypeError,
     "label_smoothing must be a number in"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 1]), ignore_index=1.0), TypeError,
     "ignore_index must be an integer label, got 1.0"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.full((2, 3), 1 / 3), ignore_index=-100), ValueError,
     r"ignore_index=-100 is for class labels, of shape \(2,\); t holds probabilities"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 1]), weight=np.ones(2)), ValueError,
     r"weight must hold one weight per class, shape \(3,\), got \(2,\)"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 1]), weight=V.Variable(np.ones(3))),
     TypeError,
     r"weight is a constant \(the classes' weights\); give weight\.data"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 3]), ignore_index=-100), ValueError,
     "label 3 is out of range for 3 classes"),
    (lambda: F.sigmoid_cross_entropy(np.ones((2, 3)), np.ones((2, 3)), pos_weight=np.ones(2)), ValueError,
     r"sigmoid_cross_entropy: pos_weight of shape \(2,\) must broadcast against the input's shape \(2, 3\)"),
    (lambda: F.binary_cross_entropy(np.full((2, 3), 0.5), np.ones((2, 3)), weight=np.ones((3, 3))),
     ValueError,
     r"binary_cross_entropy: weight of shape \(3, 3\) must broadcast"),
    (lambda: F.sigmoid_cross_entropy(np.ones(3), np.ones(3), weight=V.Variable(np.ones(3))), TypeError,
     r"weight is a constant; give weight\.data"),
])
def test_bad_arguments_raise_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_multi_margin_loss_is_the_multiclass_svm_loss():
    scores = np.array([[3.2, 5.1, -1.7], [1.3, 4.9, 2.0], [2.2, 2.5, -3.1]])   # CS231n's three examples
    labels = np.array([0, 1, 2])
    per_sample = np.array([2.9 + 0.0, 0.0 + 0.0, 6.3 + 6.6]) / 3             # the violations, over C
    np.testing.assert_allclose(F.multi_margin_loss(scores, labels, reduction="none").data, per_sample)
    np.testing.assert_allclose(F.multi_margin_loss(scores, labels).data, per_sample.mean())
    np.testing.assert_allclose(F.multi_margin_loss(scores, labels, p=2, reduction="sum").data,
                               (2.9 ** 2 + 6.3 ** 2 + 6.6 ** 2) / 3)
    x = V.Variable(scores)
    F.multi_margin_loss(x, labels, reduction="sum").backward()   # +1 per violating class, -(their count)
    np.testing.assert_allclose(x.grad.data, np.array([[-1, 1, 0], [0, 0, 0], [1, 1, -2]]) / 3)
    nan = scores.copy()
    nan[1, 0] = np.nan                           # a NaN score is a NaN loss (PyTorch's skips the term)
    assert np.isnan(F.multi_margin_loss(nan, labels).data)
    with pytest.raises(ValueError, match=r"multi_margin_loss: x of shape \(3,\) and t of shape \(3, 3\) "
                                         r"look swapped"):
        F.multi_margin_loss(labels, scores)


def test_reductions_of_an_empty_batch_nan_mean_zero_sum_empty_none():
    x = V.Variable(np.zeros((0, 3)))
    assert np.isnan(F.mean_squared_error(x, np.zeros((0, 3))).data)
    assert F.mean_squared_error(x, np.zeros((0, 3)), reduction="sum").data == 0.0
    assert F.softmax_cross_entropy(x, np.zeros(0, dtype=int), reduction="sum").data == 0.0
    assert F.binary_cross_entropy(x, np.zeros((0, 3)), reduction="none").shape == (0, 3)
    assert F.softmax_cross_entropy(x, np.zeros(0, dtype=int), reduction="none").shape == (0,)


def test_cross_entropy_options_match_their_plain_forms(rng):
    """ignore_index is the plain loss of the kept rows; weight of ones, and label_smoothing 0 with
    probabilities, change nothing; 'sum' is the mean times the rows and 'none' each row's loss."""
    x, t = rng.standard_normal((6, 4)), rng.integers(0, 4, 6)
    t[[1, 4]] = -100
    kept = t != -100
    y = F.softmax_cross_entropy(x, t, ignore_index=-100)
    np.testing.assert_allclose(y.data, F.softmax_cross_entropy(x[kept], t[kept]).data, rtol=1e-15)
    each = F.softmax_cross_entropy(x, t, ignore_index=-100, reduction="none").data
    assert (each[~kept] == 0).all()
    rows = [F.softmax_cross_entropy(x[i], t[i]).data for i in np.flatnonzero(kept)]
    np.testing.assert_allclose(each[kept], rows, rtol=1e-15)
    t[~kept] = 3
    plain = F.softmax_cross_entropy(x, t)
    np.testing.assert_allclose(F.softmax_cross_entropy(x, t, weight=np.ones(4)).data, plain.data, rtol=1e-15)
    summed = F.softmax_cross_entropy(x, t, reduction="sum")
    np.testing.assert_allclose(summed.data, 6 * plain.data, rtol=1e-15)
    v = V.Variable(x)
    F.softmax_cross_entropy(v, t, reduction="none")[2].backward()   # one row's loss: softmax - onehot there
    expected = np.zeros_like(x)
    expected[2] = np.exp(x[2]) / np.exp(x[2]).sum() - np.eye(4)[t[2]]
    np.testing.assert_allclose(v.grad.data, expected, rtol=1e-14, atol=1e-16)


def test_label_smoothing_of_labels_is_the_loss_of_the_smoothed_one_hot_rows(rng):
    x, t = rng.standard_normal((5, 3)), rng.integers(0, 3, 5)
    smoothed = 0.75 * np.eye(3)[t] + 0.25 / 3
    assert_same_derivatives(lambda x: F.softmax_cross_entropy(x, t, label_smoothing=0.25),
                            lambda x: F.softmax_cross_entropy(x, smoothed), [x])


def test_nll_loss_of_log_softmax_is_softmax_cross_entropy(rng):
    x, t = rng.standard_normal((6, 5)), rng.integers(0, 5, 6)
    assert_same_derivatives(lambda x: F.nll_loss(F.log_softmax(x), t),
                            lambda x: F.softmax_cross_entropy(x, t), [x])
    t[[0, 3]] = -100
    assert_same_derivatives(lambda x: F.nll_loss(F.log_softmax(x), t, ignore_index=-100, reduction="sum"),
                            lambda x: F.softmax_cross_entropy(x, t, ignore_index=-100, reduction="sum"), [x])


@pytest.mark.parametrize("call, error, match", [
    (lambda: F.nll_loss(np.zeros((2, 3)), np.array([0, 3])), ValueError, "nll_loss: label 3 is out of range"),
    (lambda: F.nll_loss(np.zeros((2, 3)), np.array([0, -100])), ValueError,
     r"PyTorch's nll_loss leaves out the rows labelled -100 by default.*ignore_index=-100"),
    (lambda: F.nll_loss(np.zeros((2, 3)), np.array([0, 1, 2])), ValueError,
     r"log-probabilities of shape \(2, 3\) need labels of shape \(2,\)"),
    (lambda: F.nll_loss(np.zeros((2, 3)), np.array([0.0, 1.0])), TypeError, "labels must be integers"),
    (lambda: F.nll_loss(np.zeros((2, 3)), np.array([0, 1]), reduction="batchmean"), ValueError,
     "nll_loss: reduction must be"),
    (lambda: F.nll_loss(np.array(0.0), np.array(0)), ValueError, "at least 1-d"),
    (lambda: F.nll_loss(np.zeros((2, 3)), np.array([0, 1]), weight=np.ones(4)), ValueError,
     "one weight per class"),
    (lambda: F.nll_loss(np.array([0, 1]), V.Variable(np.zeros((2, 3)))), TypeError, "look swapped"),
])
def test_nll_loss_refuses_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_pos_weight_weighs_the_positive_term_alone(rng):
    x, t = rng.standard_normal((4, 3)), rng.uniform(0, 1, (4, 3))
    w = np.array([0.5, 1.0, 3.0])
    sp = lambda z: np.logaddexp(0, z)                                             # noqa: E731
    y = F.sigmoid_cross_entropy(x, t, pos_weight=w, reduction="none")
    np.testing.assert_allclose(y.data, w * t * sp(-x) + (1 - t) * sp(x), rtol=1e-14)
    np.testing.assert_array_equal(F.sigmoid_cross_entropy(x, t, pos_weight=np.ones(3)).data,
                                  F.sigmoid_cross_entropy(x, t).data)
    big = F.sigmoid_cross_entropy(np.array([-1000.0, 1000.0]), np.array([1.0, 0.0]),
                                  pos_weight=np.array(2.0), reduction="none")
    np.testing.assert_array_equal(big.data, [2000.0, 1000.0])                  # finite at +-1000


@pytest.mark.parametrize("call, error, match", [
    (lambda: F.smooth_l1_loss(np.ones(2), np.ones(2), beta=-1.0), ValueError,
     "smooth_l1_loss: beta must be >= 0"),
    (lambda: F.smooth_l1_loss(np.ones(2), np.ones(3)), ValueError,
     r"smooth_l1_loss: x of shape \(2,\) and t"),
    (lambda: F.soft_margin_loss(np.ones(2), np.ones(3)), ValueError,
     r"soft_margin_loss: y of shape \(3,\) must broadcast against the input's shape \(2,\)"),
    (lambda: F.soft_margin_loss(np.ones(2), "ab"), TypeError, "soft_margin_loss"),
    (lambda: F.margin_ranking_loss(np.ones(2), np.ones(2), np.ones(2), margin="1"), TypeError,
     "margin_ranking_loss: margin must be a real number"),
    (lambda: F.cosine_embedding_loss(np.ones((2, 2, 2)), np.ones((2, 2, 2)), np.ones(2)), ValueError,
     r"cosine_embedding_loss: x1 and x2 must hold \(N, D\) rows"),
    (lambda: F.triplet_margin_loss(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 4))), ValueError,
     r"triplet_margin_loss: anchor of shape \(2, 3\) and negative of shape \(2, 4\)"),
    (lambda: F.triplet_margin_loss(np.ones(3), np.ones(3), np.ones(3), p=0), ValueError,
     "p must be positive"),
    (lambda: F.triplet_margin_loss(np.ones(3), np.ones(3), np.ones(3), swap=1), TypeError, "swap"),
    (lambda: F.gaussian_nll_loss(np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 2))), ValueError,
     r"gaussian_nll_loss: var of shape \(3, 2\) must have x's shape \(2, 3\), or \(2,\) or \(2, 1\)"),
    (lambda: F.gaussian_nll_loss(np.ones(2), np.ones(2), np.array([1.0, -1.0])), ValueError,
     "gaussian_nll_loss: var must be >= 0, got -1.0"),
])
def test_pytorchs_other_losses_refuse_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_gaussian_nll_loss_clamps_var_as_pytorch_keeping_its_derivative():
    """var below eps counts as eps in the value, and its gradient is the formula's at eps (PyTorch
    clamps it under no_grad), not 0."""
    var = V.Variable(np.array([1e-9, 1.0]))
    F.gaussian_nll_loss(np.array([0.0, 0.0]), np.array([1e-3, 1.0]), var, reduction="sum").backward()
    v = np.array([1e-6, 1.0])
    np.testing.assert_allclose(var.grad.data, 0.5 * (1 / v - np.array([1e-6, 1.0]) / v ** 2), rtol=1e-12)


def test_smooth_l1_loss_is_huber_over_beta_and_l1_at_zero(rng):
    x, t = rng.standard_normal((3, 4)) * 2, rng.standard_normal((3, 4))
    np.testing.assert_allclose(F.smooth_l1_loss(x, t, beta=0.5).data, F.huber_loss(x, t, 0.5).data / 0.5,
                               rtol=1e-15)
    assert F.smooth_l1_loss(x, t, beta=0.0).data == F.mean_absolute_error(x, t).data
