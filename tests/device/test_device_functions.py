"""The nn functions on a device: what `function` creates lands there, and labels meet their logits.

Runs on the CPU with tests/device/fake_gpu.py standing in for CuPy (registered for each
test and removed after it, the default device set to the CPU inside), so these checks
hold on every machine.  Each function is checked against itself on NumPy: same values,
results (and gradients) on the device.  Integer labels, ids and targets follow the rule
of `function.activation.as_array`: numbers and lists are made on the logits' device, a
NumPy array next to GPU data moves there only under set_default_device("gpu") and is
refused otherwise, naming the op and the fix.
"""

import numpy as np
import pytest
from device_checks import assert_on_gpu, host, on_gpu

import function as F
import layers as L
import variable as V
from variable import backend


def same_on_both(fn, *arrays, grad=True, rtol=1e-12, atol=1e-14):
    """fn on GPU Variables equals fn on CPU Variables, in value and (with `grad`) gradient."""
    cpu = [V.Variable(a) if a.dtype.kind == "f" else a for a in arrays]
    dev = [on_gpu(a) if a.dtype.kind == "f" else backend.to_gpu(a) for a in arrays]
    y_cpu, y_dev = fn(*cpu), fn(*dev)
    assert_on_gpu(y_dev)
    assert y_dev.dtype == y_cpu.dtype and y_dev.shape == y_cpu.shape
    np.testing.assert_allclose(host(y_dev), y_cpu.data, rtol=rtol, atol=atol)
    if grad:
        V.sum(y_cpu).backward()
        V.sum(y_dev).backward()
        for c, d in zip(cpu, dev):
            if isinstance(c, V.Variable):
                assert_on_gpu(d.grad)
                np.testing.assert_allclose(host(d.grad), c.grad.data, rtol=rtol, atol=atol)
    return y_dev


@pytest.fixture
def data():
    return np.random.default_rng(0)


# ----- activations ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_hard_sigmoid_slope_is_made_on_the_device(gpu, data, dtype):
    x = data.uniform(-5, 5, (3, 4)).astype(dtype)
    same_on_both(F.hard_sigmoid, x)


@pytest.mark.parametrize("shape", [(2, 3), ()])
def test_exact_gelu_stays_on_the_device(gpu, data, shape):
    x = np.asarray(data.uniform(-4, 4, shape))   # both sides of |x| = 2 sqrt 2 (series and fraction)
    same_on_both(lambda v: F.gelu(v, approximate="none"), x)


def test_exact_gelu_tails_and_nan_on_the_device(gpu):
    x = np.array([-40.0, -3.0, -0.5, 0.0, 0.5, 3.0, 40.0, np.nan])
    same_on_both(lambda v: F.gelu(v, approximate="none"), x, grad=False)


def test_sigmoid_far_left_on_the_device(gpu):
    same_on_both(F.sigmoid, np.array([-800.0, -30.0, 0.0, 30.0]))


def test_as_float_takes_device_arrays_and_makes_lists_on_a_given_device(gpu):
    from function.activation import as_float
    x = on_gpu([1.0, 2.0])
    assert_on_gpu(as_float(x.data, "op"), as_float(backend.to_gpu(np.array([1, 2])), "op"))
    t = as_float([0.5, 1.5], "op", like=x)
    assert_on_gpu(t)
    assert type(as_float([0.5, 1.5], "op").data) is np.ndarray     # no `like`: on the host


# ----- losses -------------------------------------------------------------------------------------
@pytest.mark.parametrize("loss", [F.mean_squared_error, F.mean_absolute_error, F.huber_loss,
                                  F.log_cosh_loss, F.sigmoid_cross_entropy, F.poisson_nll_loss])
def test_regression_losses_give_device_scalars(gpu, data, loss):
    x, t = data.uniform(-1, 1, (3, 4)), data.uniform(0.1, 0.9, (3, 4))
    same_on_both(loss, x, t, grad=loss in (F.mean_squared_error, F.mean_absolute_error))


def test_mean_absolute_error_keeps_float32(gpu, data):
    x, t = data.standard_normal((3, 4)).astype(np.float32), data.standard_normal((3, 4)).astype(np.float32)
    y = same_on_both(F.mean_absolute_error, x, t, rtol=1e-6)
    assert y.dtype == np.float32


def test_empty_loss_is_a_device_nan(gpu):
    y = F.mean_squared_error(on_gpu(np.zeros((0, 3))), on_gpu(np.zeros((0, 3))))
    assert_on_gpu(y)
    assert np.isnan(host(y))


def test_binary_cross_entropy_at_zero_and_one_on_the_device(gpu):
    p, t = np.array([0.0, 1.0, 0.3, 1.0]), np.array([1.0, 0.0, 0.5, 1.0])
    with np.errstate(divide="ignore"):   # the fake computes with NumPy, which warns; CuPy does not
        y = same_on_both(F.binary_cross_entropy, p, t, grad=False)
    assert host(y) == pytest.approx((100 + 100 - 0.5 * np.log(0.3) - 0.5 * np.log(0.7)) / 4)


@pytest.mark.parametrize("shape", [(4,), (2, 3), ()])
def test_softmax_cross_entropy_labels_on_the_device(gpu, data, shape):
    x, t = data.standard_normal(shape + (5,)), data.integers(0, 5, shape)
    same_on_both(F.softmax_cross_entropy, x, t)


def test_softmax_cross_entropy_probabilities_on_the_device(gpu, data):
    x, p = data.standard_normal((4, 3)), data.dirichlet(np.ones(3), 4)
    same_on_both(F.softmax_cross_entropy, x, p)


@pytest.mark.parametrize("reduction", ["sum", "none"])
@pytest.mark.parametrize("loss", [F.mean_squared_error, F.mean_absolute_error, F.huber_loss, F.log_cosh_loss,
                                  F.sigmoid_cross_entropy, F.poisson_nll_loss, F.binary_cross_entropy])
def test_losses_summed_or_each_on_the_device(gpu, data, loss, reduction):
    x, t = data.uniform(0.1, 0.9, (3, 4)), data.uniform(0.1, 0.9, (3, 4))
    same_on_both(lambda x, t: loss(x, t, reduction=reduction), x, t)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_softmax_cross_entropy_options_on_the_device_without_a_sync(gpu, data, count_syncs, reduction):
    """weight, ignore_index and label_smoothing: the targets and the mean's divisor are made
    on the device from the labels, no label read on the host; every row left out: NaN, its
    gradient 0 (PyTorch's)."""
    x, t, w = data.standard_normal((2, 3, 4)), data.integers(0, 4, (2, 3)), data.uniform(0.5, 2, 4)
    t[0, ::2] = -100
    options = dict(ignore_index=-100, label_smoothing=0.2, reduction=reduction)
    same_on_both(lambda x, t: F.softmax_cross_entropy(x, t, weight=w.tolist(), **options), x, t)   # (a list:
    # made on the logits' device)
    same_on_both(lambda x, p: F.softmax_cross_entropy(x, p, label_smoothing=0.3, reduction=reduction),
                 x, data.dirichlet(np.ones(4), (2, 3)))
    v, labels, weight = on_gpu(x), backend.to_gpu(t), backend.to_gpu(w)
    with count_syncs() as syncs:
        F.softmax_cross_entropy(v, labels, weight=weight, **options).sum().backward()
    assert syncs.count == 0
    v = on_gpu(x)
    y = F.softmax_cross_entropy(v, backend.to_gpu(np.full((2, 3), -100)), ignore_index=-100)
    y.backward()
    assert np.isnan(host(y)) and not host(v.grad).any()


def test_pytorchs_other_losses_on_the_device_without_a_sync(gpu, data, count_syncs):
    x, t, y = data.standard_normal((3, 4)), data.standard_normal((3, 4)), data.choice([-1, 1], (3, 4))
    calls = [
        (lambda x, t: F.smooth_l1_loss(x, t, beta=0.5, reduction="none"), (x, t)),
        (lambda x: F.soft_margin_loss(x, y.tolist()), (x,)),
        (lambda a, b: F.margin_ranking_loss(a, b, y.tolist(), margin=0.2), (x, t)),
        (lambda x: F.hinge_embedding_loss(x, y.tolist()), (np.abs(x),)),
        (lambda a, b: F.cosine_embedding_loss(a, b, y[:, 0].tolist(), margin=-2.0), (x, t)),
        (lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=9.0, swap=True), (x, t, -x)),
        (lambda x, t, v: F.gaussian_nll_loss(x, t, v, full=True), (x, t, data.uniform(0.5, 2, 3))),
    ]
    for call, arrays in calls:
        same_on_both(call, *arrays)
        with count_syncs() as syncs:
            call(*[on_gpu(a) for a in arrays]).sum().backward()
        assert syncs.count == 0


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_pos_weight_and_weight_on_the_device(gpu, data, count_syncs, reduction):
    x, t = data.standard_normal((3, 4)), data.uniform(0, 1, (3, 4))
    pos, rows = data.uniform(0.5, 3, 4), data.uniform(0.5, 2, (3, 1))
    same_on_both(lambda x, t: F.sigmoid_cross_entropy(x, t, pos_weight=pos.tolist(), weight=rows.tolist(),
                                                      reduction=reduction), x, t)
    same_on_both(lambda p, t: F.binary_cross_entropy(p, t, weight=pos.tolist(), reduction=reduction),
                 data.uniform(0.1, 0.9, (3, 4)), t)
    v, target = on_gpu(x), backend.to_gpu(t)
    with count_syncs() as syncs:
        F.sigmoid_cross_entropy(v, target, pos_weight=pos.tolist(), reduction=reduction).sum().backward()
    assert syncs.count == 0


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_on_the_device_without_a_sync(gpu, data, count_syncs, reduction):
    log_p = np.log(data.dirichlet(np.ones(4), (2, 3)))
    t, w = data.integers(0, 4, (2, 3)), data.uniform(0.5, 2, 4)
    t[1, ::2] = 3
    same_on_both(lambda lp, t: F.nll_loss(lp, t, weight=w.tolist(), ignore_index=3, reduction=reduction),
                 log_p, t)
    v = on_gpu(log_p)
    with count_syncs() as syncs:
        F.nll_loss(v, backend.to_gpu(t), ignore_index=3, reduction=reduction).sum().backward()
    assert syncs.count == 0


def test_hinge_loss_on_the_device(gpu, data):
    x, t = data.uniform(-2, 2, (3, 4)), data.choice([-1, 1], (3, 4))
    same_on_both(F.hinge_loss, x, t)


def test_label_out_of_range_on_the_device_names_it(gpu):
    # checked on the device (no sync at the call), raised at the next read, never a number
    x = on_gpu(np.zeros((2, 3)), requires_grad=True)
    loss = F.softmax_cross_entropy(x, backend.to_gpu(np.array([0, 7])))
    loss.backward()
    message = r"label 7 is out of range for 3 classes \(checked on the device\)"
    with pytest.raises(ValueError, match=message):       # reading the (poisoned) gradient
        host(x.grad)
    assert np.isnan(x.grad.data.get() if hasattr(x.grad.data, "get") else x.grad.data).all()
    loss = F.softmax_cross_entropy(x, backend.to_gpu(np.array([0, 7])))
    with pytest.raises(ValueError, match=message):       # reading the loss
        float(loss)
    assert not np.isnan(float(F.softmax_cross_entropy(on_gpu(np.zeros((2, 3))),
                                                      backend.to_gpu(np.array([0, 2])))))  # cleared after


# ----- labels, ids and targets next to GPU data ----------------------------------------------------
def refusing(op, name):
    return pytest.raises(TypeError, match=rf"{op}: expected {name} on the device of .*xp\.asarray\({name}\)")


def test_numpy_labels_next_to_gpu_logits_are_refused(gpu):
    x = on_gpu(np.zeros((2, 3)))
    labels = np.array([0, 2])
    with refusing("softmax_cross_entropy", "t"):
        F.softmax_cross_entropy(x, labels)
    with refusing("accuracy", "t"):
        F.accuracy(x, labels)
    with refusing("hinge_loss", "t"):
        F.hinge_loss(x, np.ones((2, 3)))
    with refusing("embed_id", "ids"):
        F.embed_id(labels, on_gpu(np.zeros((4, 2))))


def test_gpu_labels_next_to_cpu_logits_are_refused(gpu):
    labels = backend.to_gpu(np.array([0, 2]))
    with pytest.raises(TypeError, match=r"softmax_cross_entropy: expected t on the device of .* on the CPU"):
        F.softmax_cross_entropy(V.Variable(np.zeros((2, 3))), labels)
    with pytest.raises(TypeError, match=r"embed_id: expected ids on the device of W"):
        F.embed_id(labels, np.zeros((4, 2)))


def test_list_labels_are_made_on_the_logits_device(gpu, data):
    x = data.standard_normal((2, 3))
    expected = F.softmax_cross_entropy(x, np.array([0, 2])).data
    y = F.softmax_cross_entropy(on_gpu(x), [0, 2])
    assert_on_gpu(y)
    np.testing.assert_allclose(host(y), expected, rtol=1e-12)
    assert F.accuracy(on_gpu(x), [int(np.argmax(x[0])), 0]) in (0.5, 1.0)
    assert_on_gpu(F.embed_id([1, 1], on_gpu(np.eye(3))))
    assert_on_gpu(F.mean_squared_error(on_gpu([1.0, 2.0]), [0.0, 1.0]))


def test_numpy_labels_follow_the_default_device(gpu, data):
    x = data.standard_normal((4, 3))
    t = data.integers(0, 3, 4)
    expected = F.softmax_cross_entropy(x, t).data
    backend.set_default_device("gpu")
    y = F.softmax_cross_entropy(on_gpu(x), t)
    assert_on_gpu(y)
    np.testing.assert_allclose(host(y), expected, rtol=1e-12)
    assert F.accuracy(on_gpu(x), t) == F.accuracy(x, t)
    W = on_gpu(data.standard_normal((5, 2)))
    np.testing.assert_array_equal(host(F.embed_id(np.array([4, 0]), W)), host(W)[[4, 0]])
    cpu = F.softmax_cross_entropy(V.Variable(x).to_cpu(), t)   # CPU logits: the labels stay
    assert type(cpu.data) is np.ndarray


def test_accuracy_on_the_device_is_a_float(gpu, data):
    y, t = data.standard_normal((6, 4)), data.integers(0, 4, 6)
    got = F.accuracy(on_gpu(y), backend.to_gpu(t))
    assert type(got) is float and got == F.accuracy(y, t)


def test_embed_id_forward_on_the_device(gpu, data):
    W, ids = data.standard_normal((5, 2)), np.array([[0, 3], [4, 0]])
    y = F.embed_id(backend.to_gpu(ids), on_gpu(W))
    assert_on_gpu(y)
    np.testing.assert_array_equal(host(y), W[ids])


# ----- nn -----------------------------------------------------------------------------------------
def test_dropout_mask_is_drawn_on_the_device(gpu, data):
    """The mask comes from the device's own generator (CuPy's, not NumPy's: its masks are not
    the CPU's), which L.seed reseeds: the same seed gives the same mask, about 1 - p of the
    entries are kept, scaled by 1 / (1 - p), and the gradient goes through the same mask."""
    p, x = 0.4, data.standard_normal((200, 250)).astype(np.float32)   # no zero entry

    def seeded(n):
        L.seed(n)
        v = on_gpu(x)
        cpu_state = np.random.get_state()[1].copy()
        y = F.dropout(v, p)
        np.testing.assert_array_equal(np.random.get_state()[1], cpu_state)  # NumPy's not drawn from
        return v, y

    v, y = seeded(3)
    assert_on_gpu(y)
    assert y.dtype == np.float32
    gy = data.standard_normal(x.shape).astype(np.float32)
    V.sum(y * on_gpu(gy)).backward()
    assert_on_gpu(v.grad)
    kept, scale = host(y) != 0, np.float32(1 / (1 - p))
    assert abs(kept.mean() - (1 - p)) < 0.01                                # 1 - p +- 4.5 sigma
    np.testing.assert_array_equal(host(y), np.where(kept, x * scale, 0))
    np.testing.assert_array_equal(host(v.grad), np.where(kept, gy * scale, 0))
    np.testing.assert_array_equal(host(seeded(3)[1]), host(y))              # the same seed, the same mask
    assert not np.array_equal(host(seeded(4)[1]) != 0, kept)                # another seed, another mask


def test_channel_dropout_masks_whole_channels_on_the_device(gpu, data):
    """dropout2d's and feature_alpha_dropout's masks are drawn on the device, one per channel,
    constant over its positions, and reproduced by L.seed."""
    x = data.standard_normal((64, 32, 3, 3)).astype(np.float32)
    for op in (F.dropout2d, F.feature_alpha_dropout):
        L.seed(5)
        y = op(on_gpu(x), 0.3)
        assert_on_gpu(y)
        assert y.dtype == np.float32
        L.seed(5)
        np.testing.assert_array_equal(host(op(on_gpu(x), 0.3)), host(y))
        kept = host(op(on_gpu(np.ones_like(x)), 0.3)).reshape(64, 32, 9)
        assert (kept == kept[:, :, :1]).all()                              # constant over a channel
        dropped = kept[:, :, 0] == kept.min()
        assert abs(dropped.mean() - 0.3) < 0.05                              # 0.3 +- 6 sigma


def test_linear_and_layer_norm_on_the_device(gpu, data):
    same_on_both(F.linear, data.standard_normal((2, 3, 4)), data.standard_normal((4, 2)),
                 data.standard_normal(2))
    same_on_both(F.layer_norm, data.standard_normal((3, 4)), data.standard_normal(4),
                 data.standard_normal(4), rtol=1e-10)


def test_batch_norm_updates_device_running_statistics_in_place(gpu, data):
    x, g, b = data.standard_normal((4, 3, 2, 2)), data.standard_normal(3), data.standard_normal(3)
    mean, var = np.zeros(3), np.ones(3)
    expected = F.batch_norm(x, g, b, mean, var).data
    mean_dev, var_dev = backend.to_gpu(np.zeros(3)), backend.to_gpu(np.ones(3))
    y = F.batch_norm(on_gpu(x), on_gpu(g), on_gpu(b), mean_dev, var_dev)
    assert_on_gpu(y)
    np.testing.assert_allclose(host(y), expected, rtol=1e-10)
    np.testing.assert_allclose(host(mean_dev), mean, rtol=1e-12)
    np.testing.assert_allclose(host(var_dev), var, rtol=1e-12)
    with V.test_mode():
        z = F.batch_norm(on_gpu(x), on_gpu(g), on_gpu(b), mean_dev, var_dev)
        np.testing.assert_allclose(host(z), F.batch_norm(x, g, b, mean, var).data, rtol=1e-12)
    assert_on_gpu(z)


def test_batch_norm_refuses_running_statistics_on_the_other_device(gpu):
    x = on_gpu(np.ones((2, 3)))
    with pytest.raises(TypeError, match=r"batch_norm: expected running_mean on the device of x.*to_gpu"):
        F.batch_norm(x, on_gpu(np.ones(3)), on_gpu(np.zeros(3)), np.zeros(3), None)
    with pytest.raises(TypeError, match=r"batch_norm: expected running_var on the device of x"):
        F.batch_norm(np.ones((2, 3)), np.ones(3), np.zeros(3), None, backend.to_gpu(np.ones(3)))


def test_ctc_loss_on_the_device(gpu, data, count_syncs):
    """Targets and lengths on the device too (read once on the host: their structure shapes the
    recursion), log-probabilities and the recursion on the device."""
    targets, inputs, lengths = np.array([[1, 1, 2], [2, 0, 0]]), np.array([5, 3]), np.array([3, 1])
    same_on_both(lambda lp: F.ctc_loss(lp, targets, inputs, lengths), data.standard_normal((5, 2, 3)),
                 rtol=1e-11)
    same_on_both(lambda lp, t, i, n: F.ctc_loss(lp, t, i, n, reduction="sum"),
                 data.standard_normal((5, 2, 3)), targets, inputs, lengths, rtol=1e-11)
    x = on_gpu(data.standard_normal((5, 2, 3)))
    with count_syncs() as syncs:
        F.ctc_loss(x, targets, inputs, lengths).backward()
    assert syncs.count == 0


# ----- convolution and pooling -----------------------------------------------------------------------
def test_im2col_and_col2im_on_the_device(gpu, data):
    same_on_both(lambda x: F.im2col(x, (2, 3), (1, 2), (1, 0)), data.standard_normal((2, 1, 3, 5)))
    same_on_both(lambda c: F.col2im(c, (1, 2, 3, 3), 2, 2, 1), data.standard_normal((1, 2, 2, 2, 2, 2)))


def test_conv_and_pooling_on_the_device(gpu, data):
    x = data.standard_normal((2, 2, 5, 5))
    same_on_both(lambda x, W, b: F.conv2d(x, W, b, stride=2, pad=1), x,
                 data.standard_normal((3, 2, 3, 3)), data.standard_normal(3), rtol=1e-10)
    same_on_both(lambda x, W: F.deconv2d(x, W, stride=2, pad=1, outsize=(10, 10)), x,
                 data.standard_normal((2, 3, 3, 3)), rtol=1e-10)
    same_on_both(lambda x, W: F.deconv1d(x, W, stride=2, pad=1, dilation=2, groups=2),
                 data.standard_normal((2, 2, 5)), data.standard_normal((2, 2, 3)), rtol=1e-10)
    same_on_both(lambda x, W, b: F.deconv3d(x, W, b, stride=2, outsize=(5, 3, 4)),
                 data.standard_normal((1, 2, 2, 1, 2)), data.standard_normal((2, 3, 2, 2, 2)),
                 data.standard_normal(3), rtol=1e-10)
    same_on_both(lambda x: F.pooling(x, 3, 2, 1), x)
    same_on_both(lambda x: F.average_pooling(x, 3, 2, 1), x)
    _, indices = F.pooling(on_gpu(x), 2, 2, return_indices=True)
    assert backend.is_device_array(indices)
    np.testing.assert_array_equal(host(indices), F.pooling(x, 2, 2, return_indices=True)[1])
    same_on_both(lambda y, i: F.max_unpool2d(y, i, 2, outsize=(5, 5)),
                 data.standard_normal((2, 2, 2, 2)), F.pooling(x, 2, 2, return_indices=True)[1])
