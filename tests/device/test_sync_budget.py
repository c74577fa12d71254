"""A training step on a GPU waits for the device once: when the user reads the loss.

Every host sync (bool(), float(), .item(), an index, a boolean mask, printing a device
array...) drains the GPU's queue and stops the host from running ahead, so a training
step must make none of its own.  tests/device/fake_gpu.py counts them (`count_syncs`) and
names the line each came from; here an MLP (as a Sequential with SGD and as plain
functions), a small conv net (conv2d, batch norm, max pooling, dropout, Adam) and an LSTM
with truncated backprop (MomentumSGD, gradient clipping) each train for a few steps after
a warm-up, and every step may make one sync: the user's `float(loss)`.

Checks that need the data (a label out of range) run on the device and are raised at the
next read that can see them: a step with a bad label makes no sync at the loss, gives no
finite wrong number, and `float(loss)` (or V.backend.synchronize()) raises the CPU's
message, naming the op, the label and the range, plus "(checked on the device)".
"""

import contextlib
import math

import numpy as np
import pytest

import function as F
import layers as L
import optimizers as O
import variable as V
from variable import backend

STEPS = 3
"""Steps counted after the warm-up step (which builds lazy layers and optimizer state)."""






@pytest.fixture(autouse=True)
def _no_pending_checks():
    """No error of an earlier test's device check is waiting to be raised, nor left behind."""
    with contextlib.suppress(ValueError, IndexError):
        backend.raise_device_errors()
    yield
    with contextlib.suppress(ValueError, IndexError):
        backend.raise_device_errors()


def _budget(count_syncs, step, steps=STEPS):
    """Run `step()` once to warm up, then `steps` times counting syncs; each step may make one
    (its own read of the loss).  Returns the losses."""
    losses = [step()]
    with count_syncs() as syncs:
        losses += [step() for _ in range(steps)]
    assert syncs.count <= steps, (
        f"{syncs.count} host syncs in {steps} steps (at most one a step, the read of the loss):\n  "
        + "\n  ".join(syncs.where))
    assert all(math.isfinite(v) for v in losses), losses
    return losses


def _classifier_step(model, optimizer, data):
    """One step on the next (x, labels) of `data`: softmax cross-entropy, backward, update,
    and the loss read as a Python float (the step's one sync)."""
    def step():
        x, t = next(data)
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        return float(loss)
    return step


def _batches(rng, n_in, n_class, batch, count):
    """`count` batches (x float32, t int) on the device."""
    return [(backend.to_gpu(rng.standard_normal((batch,) + n_in).astype(np.float32)),
             backend.to_gpu(rng.integers(0, n_class, batch)))
            for _ in range(count)]


# ----- the MLP 784-1000-1000-10 (narrowed), sigmoid, softmax cross-entropy, SGD -------------------
SIZES = (20, 30, 30, 10)


def test_mlp_sequential_with_sgd_syncs_once_a_step(gpu, rng, count_syncs):
    model = L.Sequential(L.Linear(SIZES[1]), L.Sigmoid(), L.Linear(SIZES[2]), L.Sigmoid(),
                         L.Linear(SIZES[3])).to_gpu()
    optimizer = O.SGD(0.1).setup(model)
    data = iter(_batches(rng, (SIZES[0],), SIZES[3], 16, STEPS + 1))
    _budget(count_syncs, _classifier_step(model, optimizer, data))


def _plain_mlp(rng):
    """The MLP's parameters as leaf Variables on the device (weights (in, out), biases)."""
    params = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        W = rng.standard_normal((n_in, n_out)).astype(np.float32) / np.sqrt(n_in)
        params += [V.Variable(W).to_gpu(), V.Variable(np.zeros(n_out, np.float32)).to_gpu()]
    return params


def _plain_forward(params, x):
    h = x
    for i in range(0, len(params), 2):
        h = F.linear(h, params[i], params[i + 1])
        if i + 2 < len(params):
            h = F.sigmoid(h)
    return h


def test_mlp_as_plain_functions_syncs_once_a_step(gpu, rng, count_syncs):
    params = _plain_mlp(rng)
    data = iter(_batches(rng, (SIZES[0],), SIZES[3], 16, STEPS + 1))
    lr = 0.1

    def step():
        x, t = next(data)
        loss = F.softmax_cross_entropy(_plain_forward(params, x), t)
        for p in params:
            p.cleargrad()
        loss.backward()
        for p in params:
            p.data -= lr * p.grad.data
        return loss.item()

    _budget(count_syncs, step)


# ----- a small conv net: conv2d, batch norm, max pooling, dropout, linear, Adam -------------------
class ConvNet(L.Model):
    def __init__(self):
        super().__init__()
        self.conv = L.Conv2d(4, 3, pad=1)
        self.bn = L.BatchNorm()
        self.drop = L.Dropout(0.25)
        self.out = L.Linear(5)

    def forward(self, x):
        h = F.pooling(F.relu(self.bn(self.conv(x))), 2, 2)
        return self.out(self.drop(F.reshape(h, (h.shape[0], -1))))


def test_conv_net_with_adam_syncs_once_a_step(gpu, rng, count_syncs):
    model = ConvNet().to_gpu()
    optimizer = O.Adam(1e-3).setup(model)
    data = iter(_batches(rng, (1, 6, 6), 5, 8, STEPS + 1))
    _budget(count_syncs, _classifier_step(model, optimizer, data))
    with V.test_mode():                     # inference with the running statistics: no sync either
        x, _ = _batches(rng, (1, 6, 6), 5, 8, 1)[0]
        with count_syncs() as syncs:
            model(x)
        assert syncs.count == 0, "\n  ".join(syncs.where)


# ----- an LSTM with truncated backprop, a linear head, MSE, MomentumSGD and clipping -----------------
class SeqNet(L.Model):
    def __init__(self, cell=L.LSTM):
        super().__init__()
        self.lstm = cell(8)
        self.out = L.Linear(1)

    def forward(self, x):
        return self.out(self.lstm(x))


@pytest.mark.parametrize("cell", [L.LSTM, L.GRU])
def test_lstm_with_truncated_backprop_syncs_once_a_step(gpu, rng, count_syncs, cell):
    model = SeqNet(cell).to_gpu()
    optimizer = O.MomentumSGD(0.01).setup(model).add_hook(O.ClipGrad(1.0))
    bptt = 3
    series = backend.to_gpu(np.sin(np.arange(200) / 4).astype(np.float32).reshape(-1, 4, 1))
    position = iter(range(0, len(series) - 1, bptt))

    def step():                             # one truncated segment of bptt time steps
        start = next(position)
        loss = 0
        for k in range(start, start + bptt):
            loss = loss + F.mean_squared_error(model(series[k]), series[k + 1])
        loss = loss / bptt
        model.cleargrads()
        loss.backward()
        loss.unchain_backward()
        optimizer.update()
        return float(loss)

    _budget(count_syncs, step, steps=4)


def test_lstm_classifier_with_adam_syncs_once_a_step(gpu, rng, count_syncs):
    """An LSTM whose head is read by softmax cross-entropy with labels, trained with Adam."""
    model = SeqNet()
    model.out = L.Linear(3)
    model.to_gpu()
    optimizer = O.Adam(1e-2).setup(model)
    xs = backend.to_gpu(rng.standard_normal((40, 4, 2)).astype(np.float32))
    ts = backend.to_gpu(rng.integers(0, 3, (40, 4)))
    position = iter(range(0, 40, 2))

    def step():
        start = next(position)
        loss = 0
        for k in range(start, start + 2):
            loss = loss + F.softmax_cross_entropy(model(xs[k]), ts[k])
        model.cleargrads()
        loss.backward()
        loss.unchain_backward()
        optimizer.update()
        return float(loss)

    _budget(count_syncs, step)


# ----- a transformer block: causal multi-head attention, layer norm, a padding mask, Adam -----------
class Block(L.Model):
    """x + attention(norm(x)), then + MLP(norm(.)), then a classifier of each position."""

    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = L.LayerNorm(), L.LayerNorm()
        self.attn = L.MultiheadAttention(8, 2, dropout=0.1)
        self.l1, self.l2, self.out = L.Linear(16), L.Linear(8), L.Linear(3)

    def forward(self, x, padding):
        h = x + self.attn(self.norm1(x), key_padding_mask=padding, is_causal=True)[0]
        h = h + self.l2(F.gelu(self.l1(self.norm2(h))))
        return self.out(h)


def test_transformer_block_with_adam_syncs_once_a_step(gpu, rng, count_syncs):
    """Attention's masks (causal, padding, a query that sees no key) are where()s on the device:
    no branch reads them."""
    model = Block().to_gpu()
    optimizer = O.Adam(1e-2).setup(model)
    padding = np.zeros((4, 5), bool)
    padding[0, 3:] = True
    padding[1, :] = True                               # an example of padding only
    padding = backend.to_gpu(padding)
    data = iter([(backend.to_gpu(rng.standard_normal((4, 5, 8)).astype(np.float32)),
                  backend.to_gpu(rng.integers(0, 3, 20))) for _ in range(STEPS + 1)])

    def step():
        x, t = next(data)
        loss = F.softmax_cross_entropy(model(x, padding).reshape(20, 3), t)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        return float(loss)

    _budget(count_syncs, step)


# ----- a PINN: the loss reads V.laplacian of the network, Adam --------------------------------------
@pytest.mark.parametrize("samples", [None, 3], ids=["exact", "estimated"])
def test_pinn_step_on_the_laplacian_syncs_once_a_step(gpu, rng, count_syncs, samples):
    """One collapsed Taylor pass a step (the exact Laplacian, or the estimate from random
    directions drawn on the host), its gradient by the weights, an Adam update."""
    model = L.Sequential(L.Linear(16), L.Tanh(), L.Linear(16), L.Tanh(), L.Linear(1)).to_gpu()
    optimizer = O.Adam(1e-3).setup(model)
    points = [backend.to_gpu(rng.uniform(0, 1, (32, 3)).astype(np.float32)) for _ in range(STEPS + 1)]
    data = iter(points)
    directions = np.random.default_rng(0)

    def step():
        x = next(data)
        laplacian = V.laplacian(model, x, samples=samples, rng=directions if samples else None)
        loss = V.mean((laplacian + 1) ** 2)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        return float(loss)

    _budget(count_syncs, step)


# ----- data checks run on the device, raised at the next read ------------------------------------
def test_a_label_out_of_range_makes_no_sync_and_raises_at_the_read(gpu, rng, count_syncs):
    params = _plain_mlp(rng)
    x = backend.to_gpu(rng.standard_normal((4, SIZES[0])).astype(np.float32))
    t = backend.to_gpu(np.array([1, 12, 3, -2]))
    with count_syncs() as syncs:
        loss = F.softmax_cross_entropy(_plain_forward(params, x), t)
        loss.backward()
    assert syncs.count == 0, "\n  ".join(syncs.where)
    assert all(np.isnan(gpu.asnumpy(p.grad.data)).all() for p in params)   # no wrong number
    message = r"softmax_cross_entropy: label 12 is out of range for 10 classes \(checked on the device\)"
    with pytest.raises(ValueError, match=message):
        float(loss)
    assert math.isnan(float(loss))           # raised once: the check is cleared
    V.backend.synchronize()


def test_a_bad_label_is_raised_by_synchronize_and_item(gpu, rng):
    x = V.Variable(rng.standard_normal((3, 4))).to_gpu()
    F.softmax_cross_entropy(x, backend.to_gpu(np.array([0, 4, 1])))
    with pytest.raises(ValueError, match=r"label 4 is out of range for 4 classes \(checked on the device\)"):
        V.backend.synchronize()
    V.backend.synchronize()                  # cleared
    loss = F.softmax_cross_entropy(x, backend.to_gpu(np.array([-1, 0, 1])))
    with pytest.raises(ValueError, match=r"label -1 is out of range for 4 classes"):
        loss.item()


def test_good_labels_leave_nan_losses_alone(gpu, rng):
    x = V.Variable(np.array([[np.nan, 0.0]])).to_gpu()
    loss = F.softmax_cross_entropy(x, backend.to_gpu(np.array([1])))
    assert math.isnan(float(loss))           # a NaN of the data's own: nothing to raise


def test_an_id_out_of_range_in_embed_id_is_raised_at_the_read(gpu, rng, count_syncs):
    W = V.Variable(rng.standard_normal((5, 3))).to_gpu()
    with count_syncs() as syncs:
        y = F.embed_id(backend.to_gpu(np.array([[0, 7], [2, 1]])), W)
        total = V.sum(y)
        total.backward()
    assert syncs.count == 0, "\n  ".join(syncs.where)
    grad = gpu.asnumpy(W.grad.data)                # (not to_cpu: it would raise, seeing the NaN)
    assert np.isnan(grad[[0, 1, 2, 4]]).all() and (grad[3] == 0).all()   # the rows read (7 -> 4)
    message = r"embed_id: id 7 is out of range for W with 5 rows \(checked on the device\)"
    with pytest.raises(ValueError, match=message):
        total.item()


def test_the_first_bad_label_of_several_calls_is_named(gpu, rng):
    x = V.Variable(rng.standard_normal((2, 3))).to_gpu()
    losses = [F.softmax_cross_entropy(x, backend.to_gpu(np.array(t))) for t in ([0, 1], [5, 1], [0, 9])]
    with pytest.raises(ValueError, match=r"label 5 is out of range for 3 classes"):
        float(sum(losses))


# ----- ops that branch on the data on the CPU compute every branch on the device, to the same values ----
EXTREMES = [-1000.0, -800.0, -745.0, -720.0, -709.5, -100.0, -88.5, -87.0, -30.0, -1e-8, -0.0, 0.0, 1e-8,
            0.5, 30.0, 88.5, 100.0, 710.0, 1000.0, np.nan]
"""Both sides of every branch point (float64's exp limit 708, float32's 87, 0) and NaN."""

ROWS = [[1.0, 3.0, 3.0, -2.0], [0.5, np.nan, 2.0, 1.0], [-np.inf] * 4]
"""Ties, a NaN and a row of -inf, for the reductions."""


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fn, x", [
    (F.sigmoid, EXTREMES), (F.swish, EXTREMES), (F.softplus, EXTREMES),
    (lambda x: F.gelu(x, approximate="none"), EXTREMES),
    (lambda x: V.max(x, axis=1), ROWS[:2]),
    (lambda x: V.logsumexp(x, axis=1), [ROWS[0], ROWS[2]]),
], ids=["sigmoid", "swish", "softplus", "gelu_erf", "max", "logsumexp"])
def test_unbranched_device_paths_give_the_cpu_values(gpu, dtype, fn, x, count_syncs):
    x = np.array(x, dtype=dtype)
    cpu = V.Variable(x.copy())
    dev = V.Variable(x.copy()).to_gpu()
    y_cpu = fn(cpu)
    finite = np.isfinite(y_cpu.data)                 # (the gradient of the finite values)
    V.sum(V.where(finite, y_cpu, 0)).backward()
    finite = gpu.asarray(finite)
    with count_syncs() as syncs:
        y_dev = fn(dev)
        V.sum(V.where(finite, y_dev, 0)).backward()
    assert syncs.count == 0, "\n  ".join(syncs.where)
    np.testing.assert_array_equal(gpu.asnumpy(y_dev.data), y_cpu.data)
    np.testing.assert_array_equal(gpu.asnumpy(dev.grad.data), cpu.grad.data)


def test_clip_grad_on_the_device_scales_as_on_the_cpu(gpu, rng, count_syncs):
    grads = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)]
    for max_norm in (0.5, 100.0):                    # clipped, and left as it is
        results = []
        for device in ("cpu", "gpu"):
            model = L.Linear(4, in_size=3, dtype=np.float32)
            if device == "gpu":
                model.to_gpu()
            for p, g in zip(model.params(), grads):
                p.grad = V.Variable(g if device == "cpu" else backend.to_gpu(g))
            with count_syncs() as syncs:
                O.ClipGrad(max_norm)(list(model.params()))
            assert syncs.count == 0, "\n  ".join(syncs.where)
            results.append([gpu.asnumpy(p.grad.data) if device == "gpu" else p.grad.data
                            for p in model.params()])
        for c, d in zip(*results):
            np.testing.assert_allclose(d, c, rtol=1e-6)


def test_empty_labels_and_targets_on_the_device(gpu):
    x = V.Variable(np.zeros((0, 3))).to_gpu()
    assert math.isnan(float(F.softmax_cross_entropy(x, backend.to_gpu(np.zeros(0, np.int64)))))
    W = V.Variable(np.ones((4, 2))).to_gpu()
    assert F.embed_id(backend.to_gpu(np.zeros((0, 2), np.int64)), W).shape == (0, 2, 2)
    assert math.isnan(float(F.binary_cross_entropy(x, backend.to_gpu(np.zeros((0, 3))))))
    V.backend.synchronize()


RANGE = r"must lie in \[0, 1\], got"


@pytest.mark.parametrize("call, message", [
    (lambda x, t: F.binary_cross_entropy(F.sigmoid(x), t * 2), rf"binary_cross_entropy: t {RANGE} 1\.5"),
    (lambda x, t: F.binary_cross_entropy(x * 0 + 2.5, t), rf"binary_cross_entropy: p {RANGE} 2\.5"),
    (lambda x, t: F.sigmoid_cross_entropy(x, t - 1), rf"sigmoid_cross_entropy: targets t {RANGE} -0\.25"),
    (lambda x, t: F.poisson_nll_loss(x, t - 0.5),
     r"poisson_nll_loss: counts t must be non-negative, got -0\.25"),
    (lambda x, t: F.hinge_loss(x, 1 - 2 * (t > 0.6) + (t == 0.25)),
     r"hinge_loss: labels t must be -1 or \+1, got 2"),
], ids=["bce_t", "bce_p", "sigmoid_ce", "poisson", "hinge"])
def test_targets_out_of_their_range_are_checked_on_the_device(gpu, count_syncs, call, message):
    x = V.Variable(np.array([[0.1, -0.3], [0.2, 0.4]]))
    t = np.array([[0.75, 0.25], [0.5, 0.5]])
    with pytest.raises(ValueError, match=message):      # the CPU: at once
        call(x, t)
    dev, t_dev = V.Variable(x.data.copy()).to_gpu(), backend.to_gpu(t)
    with count_syncs() as syncs:
        loss = call(dev, t_dev)
        loss.backward()
    assert syncs.count == 0, "\n  ".join(syncs.where)
    assert np.isnan(gpu.asnumpy(loss.data)) and np.isnan(gpu.asnumpy(dev.grad.data)).all()
    with pytest.raises(ValueError, match=message + r".* \(checked on the device\)"):
        loss.item()
