"""Layers as functions: linear, dropout, layer_norm, batch_norm, embed_id, accuracy."""

import numpy as np
import pytest
from function_checks import assert_same_derivatives

import function as F
import variable as V


# ----- compositions of primitives: the oracles -------------------------------------------
def simple_linear(x, W, b):
    return V.matmul(x, W) + b


def simple_layer_norm(x, gamma, beta, eps=1e-5):
    centred = x - V.mean(x, axis=-1, keepdims=True)
    return centred / V.sqrt(V.variance(x, axis=-1, keepdims=True) + eps) * gamma + beta


def simple_batch_norm(x, gamma, beta, eps=2e-5):
    axes = (0, 2, 3)
    centred = x - V.mean(x, axis=axes, keepdims=True)
    xhat = centred / V.sqrt(V.variance(x, axis=axes, keepdims=True) + eps)
    return xhat * V.reshape(gamma, (1, -1, 1, 1)) + V.reshape(beta, (1, -1, 1, 1))


# ----- linear ---------------------------------------------------------------------------------
def test_linear_is_one_node_and_matches_matmul_plus_bias(rng):
    xs = [rng.standard_normal((5, 4)), rng.standard_normal((4, 3)), rng.standard_normal(3)]
    assert_same_derivatives(F.linear, simple_linear, xs)
    x, W, b = (V.Variable(a) for a in xs)
    y = F.linear(x, W, b)
    assert y.creator.name == "Linear" and y.creator.inputs == (x, W, b)


def test_linear_with_a_batch_of_sequences(rng):
    xs = [rng.standard_normal((2, 5, 4)), rng.standard_normal((4, 3)), rng.standard_normal(3)]
    assert_same_derivatives(F.linear, simple_linear, xs)


def test_linear_gradients_only_where_needed(rng):
    x, W = rng.standard_normal((5, 4)), V.Variable(rng.standard_normal((4, 3)))
    gW = V.grad(F.linear(x, W), W)                     # x is a constant: no gx is formed
    np.testing.assert_allclose(gW.data, x.T @ np.ones((5, 3)))


def test_linear_of_an_empty_vector_gives_zeros_as_numpy(rng):
    x, W = V.Variable(np.zeros(0)), V.Variable(rng.standard_normal((0, 3)))
    b = V.Variable(rng.standard_normal(3))
    y = F.linear(x, W)                                  # NumPy: zeros(0) @ W is zeros(3)
    assert y.shape == (3,)
    np.testing.assert_array_equal(y.data, np.zeros(0) @ W.data)
    gx, gW = V.grad(V.sum(y * np.arange(3.0)), [x, W])
    assert gx.shape == (0,) and gW.shape == (0, 3)
    y = F.linear(x, W, b)
    np.testing.assert_array_equal(y.data, b.data)
    gx, gW, gb = V.grad(V.sum(y * np.arange(3.0)), [x, W, b])
    assert gx.shape == (0,) and gW.shape == (0, 3)
    np.testing.assert_array_equal(gb.data, np.arange(3.0))
    y = F.linear(V.Variable(np.zeros((2, 0, 4))), V.Variable(rng.standard_normal((4, 0))))
    assert y.shape == (2, 0, 0)                         # (empty batch and no outputs: -1 cannot be inferred)


def test_linear_of_a_vector_gradcheck(rng):
    x, W, b = rng.standard_normal(4), rng.standard_normal((4, 3)), rng.standard_normal(3)
    assert V.gradcheck(F.linear, x, W, b, order=2)
    np.testing.assert_allclose(F.linear(x, W, b).data, x @ W + b)


@pytest.mark.parametrize("args, match", [
    ((np.ones((2, 3)), np.ones((4, 5))), r"linear: x of shape \(2, 3\) does not match W of shape \(4, 5\)"),
    ((np.ones((2, 3)), np.ones(3)), r"linear: W must be 2-D \(in_size, out_size\), got shape \(3,\)"),
    ((np.ones((2, 3)), np.ones((3, 4)), np.ones(3)), r"linear: b must have shape \(4,\)"),
    ((np.ones((2, 3)), np.ones((3, 4)), np.ones((1, 4))), r"got \(1, 4\)"),
    ((np.array(1.0), np.ones((1, 4))), "linear: x of shape \\(\\)"),
])
def test_linear_rejects_bad_shapes(args, match):
    with pytest.raises(ValueError, match=match):
        F.linear(*args)


# ----- dropout -----------------------------------------------------------------------------------
def test_dropout_drops_a_fraction_p_and_rescales_the_rest():
    x = V.Variable(np.ones((200, 500)))
    y = F.dropout(x, p=0.3)
    kept = y.data != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(y.data[kept], 1 / 0.7)
    y.backward()
    np.testing.assert_array_equal(x.grad.data, y.data)             # gradient: the same mask


def test_dropout_mask_follows_numpys_global_seed(rng):
    x = rng.standard_normal((4, 5))
    np.random.seed(3)
    a = F.dropout(x).data
    np.random.seed(3)
    np.testing.assert_array_equal(F.dropout(x).data, a)
    assert not np.array_equal(F.dropout(x).data, a)


def test_dropout_is_the_identity_in_test_mode_and_for_p_0(rng):
    x = V.Variable(rng.standard_normal((3, 4)))
    with V.test_mode():
        assert F.dropout(x, 0.9) is x
    assert F.dropout(x, 0.0) is x
    assert F.dropout(x, 0.5) is not x


def test_dropout_keeps_float32():
    y = F.dropout(np.ones(1000, dtype=np.float32), 0.5)
    assert y.dtype == np.float32
    assert set(np.unique(y.data)) <= {0.0, 2.0}


@pytest.mark.parametrize("p, error", [(1.0, ValueError), (-0.1, ValueError), (1.5, ValueError),
                                      (float("nan"), ValueError), ("0.5", TypeError), (True, TypeError)])
def test_dropout_rejects_p_outside_0_1(p, error):
    with pytest.raises(error, match="dropout: p must"):
        F.dropout(np.ones(3), p)


# ----- alpha_dropout ---------------------------------------------------------------------------
def test_alpha_dropout_keeps_zero_mean_and_unit_variance():
    np.random.seed(0)
    x = V.Variable(np.random.standard_normal((400, 500)))
    for p in (0.1, 0.5):
        y = F.alpha_dropout(x, p)
        saturation = -1.0507009873554805 * 1.6732632423543772      # SELU's value at -inf
        a = ((1 - p) * (1 + p * saturation ** 2)) ** -0.5
        dropped = y.data == a * saturation * (1 - p)               # every dropped entry: one value
        assert abs(dropped.mean() - p) < 0.01
        np.testing.assert_allclose(y.data[~dropped], a * x.data[~dropped] - a * saturation * p, rtol=1e-13)
        assert abs(y.data.mean()) < 0.01 and abs(y.data.std() - 1) < 0.01
        x.cleargrad()
        y.backward()
        np.testing.assert_array_equal(x.grad.data, np.where(dropped, 0.0, a))   # the mask, times a


def test_alpha_dropout_follows_the_seed_the_mode_and_the_dtype(rng):
    x = V.Variable(rng.standard_normal((4, 5)))
    np.random.seed(3)
    first = F.alpha_dropout(x, 0.3).data
    np.random.seed(3)
    np.testing.assert_array_equal(F.alpha_dropout(x, 0.3).data, first)
    with V.test_mode():
        assert F.alpha_dropout(x, 0.9) is x
    assert F.alpha_dropout(x, 0.0) is x
    assert F.alpha_dropout(np.ones(10, dtype=np.float32), 0.5).dtype == np.float32
    with pytest.raises(ValueError, match=r"alpha_dropout: p must be in \[0, 1\), got 1.0"):
        F.alpha_dropout(x, 1.0)
    with pytest.raises(TypeError, match="alpha_dropout: p must be a number"):
        F.alpha_dropout(x, "0.5")
    with pytest.raises(TypeError, match=r"alpha_dropout: training is PyTorch's keyword.*V\.test_mode\(\)"):
        F.alpha_dropout(x, 0.5, training=False)


# ----- local_response_norm -----------------------------------------------------------------------
def test_local_response_norm_of_one_channel_and_of_constant_channels():
    x = np.full((2, 1, 3), 2.0)                  # one channel: its own square alone
    np.testing.assert_allclose(F.local_response_norm(x, 5, alpha=0.5, beta=1.0, k=1.0).data,
                               2.0 / (1 + 0.5 / 5 * 4.0))
    x = np.ones((1, 4, 2))                       # size 3: the edge channels have 2 neighbours in, the rest 3
    y = F.local_response_norm(x, 3, alpha=3.0, beta=1.0, k=1.0).data
    np.testing.assert_allclose(y[0, :, 0], [1 / 3, 1 / 4, 1 / 4, 1 / 3])


def test_local_response_norm_refusals():
    with pytest.raises(ValueError, match=r"local_response_norm: x must be \(N, C, \.\.\.\) with at least 3 "
                                         r"axes"):
        F.local_response_norm(np.ones((2, 3)), 2)
    with pytest.raises(ValueError, match="local_response_norm: size must be a positive int, got 0"):
        F.local_response_norm(np.ones((1, 2, 3)), 0)
    with pytest.raises(ValueError, match="local_response_norm: k must be positive and finite"):
        F.local_response_norm(np.ones((1, 2, 3)), 2, k=0.0)
    with pytest.raises(ValueError, match="local_response_norm: beta must be finite"):
        F.local_response_norm(np.ones((1, 2, 3)), 2, beta=np.inf)


# ----- layer_norm ------------------------------------------------------------------------------
def test_layer_norm_normalises_the_last_axis(rng):
    x = rng.standard_normal((4, 6)) * 5 + 3
    y = F.layer_norm(x, np.ones(6), np.zeros(6)).data
    np.testing.assert_allclose(y.mean(axis=-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=-1), 1, rtol=1e-5)


def test_layer_norm_matches_composition_of_primitives(rng):
    xs = [rng.standard_normal((2, 3, 4)), rng.standard_normal(4), rng.standard_normal(4)]
    assert_same_derivatives(F.layer_norm, simple_layer_norm, xs)


def test_layer_norm_third_derivatives_through_the_normalisation(rng):
    assert V.gradcheck(lambda x: F.layer_norm(x, np.full(5, 1.5), np.zeros(5), eps=1e-3),
                       rng.standard_normal((2, 5)), order=3)


@pytest.mark.parametrize("args, error, match", [
    ((np.ones((2, 3)), np.ones(4), np.ones(3)), ValueError, r"layer_norm: gamma must have shape \(3,\)"),
    ((np.ones((2, 3)), np.ones(3), np.ones((1, 3))), ValueError, r"layer_norm: beta must have shape \(3,\)"),
    ((np.array(2.0), np.ones(1), np.ones(1)), ValueError, "layer_norm: x must be at least 1-d"),
])
def test_layer_norm_rejects_bad_shapes(args, error, match):
    with pytest.raises(error, match=match):
        F.layer_norm(*args)


def test_layer_norm_rejects_bad_eps():
    with pytest.raises(ValueError, match="layer_norm: eps must be positive"):
        F.layer_norm(np.ones((2, 3)), np.ones(3), np.ones(3), eps=0.0)


# ----- batch_norm --------------------------------------------------------------------------------
def test_batch_norm_training_matches_composition_of_primitives(rng):
    xs = [rng.standard_normal((3, 2, 2, 2)), rng.standard_normal(2), rng.standard_normal(2)]
    assert_same_derivatives(F.batch_norm, simple_batch_norm, xs)


def test_batch_norm_updates_running_statistics_in_place(rng):
    x = rng.standard_normal((5, 3, 2, 2)) * 2 + 1
    mean, var = np.zeros(3), np.ones(3)
    mean_id, var_id = id(mean), id(var)
    F.batch_norm(x, np.ones(3), np.zeros(3), mean, var, decay=0.8)
    assert id(mean) == mean_id and id(var) == var_id
    np.testing.assert_allclose(mean, 0.2 * x.mean(axis=(0, 2, 3)))
    np.testing.assert_allclose(var, 0.8 + 0.2 * x.var(axis=(0, 2, 3), ddof=1))   # unbiased


def test_batch_norm_updates_statistics_under_no_grad_but_not_in_test_mode(rng):
    x = rng.standard_normal((4, 2))
    mean, var = np.zeros(2), np.ones(2)
    with V.no_grad():
        F.batch_norm(x, np.ones(2), np.zeros(2), mean, var)
    assert np.all(mean != 0)
    before = mean.copy(), var.copy()
    with V.test_mode():
        y = F.batch_norm(x, np.full(2, 2.0), np.full(2, 0.5), mean, var)
    np.testing.assert_array_equal(mean, before[0])
    np.testing.assert_array_equal(var, before[1])
    np.testing.assert_allclose(y.data, (x - mean) / np.sqrt(var + 2e-5) * 2 + 0.5)


def test_batch_norm_in_test_mode_is_affine_in_x(rng):
    x = V.Variable(rng.standard_normal((3, 2)))
    mean, var = np.array([0.5, -1.0]), np.array([4.0, 0.25])
    with V.test_mode():
        g = V.grad(F.batch_norm(x, np.ones(2), np.zeros(2), mean, var), x)
    np.testing.assert_allclose(g.data, np.broadcast_to(1 / np.sqrt(var + 2e-5), (3, 2)))


def test_batch_norm_keeps_float32_statistics(rng):
    x = rng.standard_normal((4, 3)).astype(np.float32)
    mean, var = np.zeros(3, np.float32), np.ones(3, np.float32)
    y = F.batch_norm(x, np.ones(3, np.float32), np.zeros(3, np.float32), mean, var)
    assert y.dtype == mean.dtype == var.dtype == np.float32


@pytest.mark.parametrize("kwargs, error, match", [
    ({"x": np.ones(3)}, ValueError, r"batch_norm: x must be \(N, C\)"),
    ({"gamma": np.ones(2)}, ValueError, r"batch_norm: gamma must have shape \(3,\)"),
    ({"running_mean": np.zeros(2)}, ValueError, r"batch_norm: running_mean must have shape \(3,\)"),
    ({"running_var": [1.0, 1.0, 1.0]}, TypeError, "batch_norm: running_var must be a float ndarray"),
    ({"decay": 1.5}, ValueError, r"batch_norm: decay must be in \[0, 1\]"),
    ({"eps": -1.0}, ValueError, "batch_norm: eps must be positive"),
])
def test_batch_norm_rejects_bad_arguments(kwargs, error, match):
    args = {"x": np.ones((4, 3)), "gamma": np.ones(3), "beta": np.zeros(3),
            "running_mean": np.zeros(3), "running_var": np.ones(3)}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        F.batch_norm(**args)


def test_batch_norm_test_mode_needs_running_statistics():
    with V.test_mode(), pytest.raises(ValueError, match="batch_norm: test mode needs running_mean"):
        F.batch_norm(np.ones((2, 3)), np.ones(3), np.zeros(3))


# ----- embed_id and accuracy ---------------------------------------------------------------------
def test_embed_id_picks_rows_and_accumulates_gradients_of_repeated_ids(rng):
    W = V.Variable(rng.standard_normal((5, 3)))
    ids = np.array([[0, 2, 2], [4, 2, 0]])
    y = F.embed_id(ids, W)
    np.testing.assert_array_equal(y.data, W.data[ids])
    gy = rng.standard_normal((2, 3, 3))
    expected = np.zeros((5, 3))
    np.add.at(expected, ids, gy)
    np.testing.assert_allclose(V.grad(y, W, grad_outputs=gy).data, expected)


@pytest.mark.parametrize("ids, W, error, match", [
    (np.array([0.0, 1.0]), np.ones((3, 2)), TypeError, "embed_id: ids must be integers"),
    (np.array([0, 3]), np.ones((3, 2)), ValueError, "embed_id: id 3 is out of range for W with 3 rows"),
    (np.array([-1]), np.ones((3, 2)), ValueError, "embed_id: id -1 is out of range"),
    (np.array([0]), np.ones(3), ValueError, r"embed_id: W must be 2-D"),
])
def test_embed_id_rejects_bad_ids(ids, W, error, match):
    with pytest.raises(error, match=match):
        F.embed_id(ids, W)


def test_accuracy_is_a_plain_number_without_a_graph():
    y = V.Variable(np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]]))
    acc = F.accuracy(y, np.array([1, 0, 0, 0]))
    assert type(acc) is float and acc == 0.75
    assert F.accuracy(y, [1, 0, 1, 0]) == 1.0
    assert F.accuracy(np.zeros((2, 3, 4)), np.zeros((2, 3), dtype=int)) == 1.0


@pytest.mark.parametrize("y, t, error, match", [
    (np.ones((3, 2)), np.zeros(2, dtype=int), ValueError, r"accuracy: scores of shape \(3, 2\) need labels"),
    (np.ones((3, 2)), np.zeros(3), TypeError, "accuracy: labels must be integers"),
    (np.ones((0, 2)), np.zeros(0, dtype=int), ValueError, "accuracy: no scores"),
])
def test_accuracy_rejects_bad_shapes(y, t, error, match):
    with pytest.raises(error, match=match):
        F.accuracy(y, t)


def test_f_pad_is_numpys_pad_but_refuses_a_pair_pytorch_reads_as_the_last_axis():
    x = V.Variable(np.arange(6.0).reshape(2, 3))
    y = F.pad(x, ((0, 0), (1, 2)), mode="wrap")               # one pair per axis: NumPy's form
    np.testing.assert_array_equal(y.data, np.pad(x.data, ((0, 0), (1, 2)), mode="wrap"))
    V.sum(y).backward()
    np.testing.assert_array_equal(x.grad.data, [[2, 2, 2], [2, 2, 2]])   # 3 inputs wrap onto 3 places
    np.testing.assert_array_equal(F.pad(np.ones(3), (1, 2)).data, [0, 1, 1, 1, 0, 0])   # 1-D: one reading
    assert F.pad(x, 1).shape == (4, 5) and V.pad(x, (1, 1)).shape == (4, 5)
    with pytest.raises(ValueError, match=r"pad: pad_width \(1, 2\) for an input of 2 axes .* "
                                         r"pad_width=\(\(0, 0\), \(1, 2\)\) for the last axis"):
        F.pad(x, (1, 2))
