"""Layers, loaders, optimizers and files on the CPU stand-in for CuPy (tests/device/fake_gpu.py).

Moving a model and its buffers there and back, lazily sized layers building on the device,
a short training loop equal to the CPU's, weights and checkpoints saved from the device
and loaded into either device, data loaders on the device, and the error of to_gpu
without CuPy.  These run in the ordinary CPU suite too: the fake is registered by a fixture.
"""

import numpy as np
import pytest

import function as F
import layers as L
import optimizers as O
import variable as V
from variable import backend


def _on_gpu(a):
    return backend.is_device_array(a)


def _all_arrays(model):
    """Every parameter's data and gradient (where set) and every buffer of `model`."""
    arrays = []
    for _, p in model.named_params():
        arrays.append(p.data)
        if p.grad is not None:
            arrays.append(p.grad.data)
    arrays.extend(b for _, b in model.named_buffers() if b is not None)
    return arrays


class Net(L.Model):
    """Linear, BatchNorm, LayerNorm, Dropout and an eager Linear: parameters and buffers."""

    def __init__(self):
        super().__init__()
        self.l1 = L.Linear(6)
        self.bn = L.BatchNorm()
        self.ln = L.LayerNorm()
        self.drop = L.Dropout(0.0)
        self.l2 = L.Linear(2, in_size=6)

    def forward(self, x):
        return self.l2(self.drop(self.ln(F.relu(self.bn(self.l1(x))))))


def test_to_gpu_and_back_moves_parameters_gradients_and_buffers(gpu, rng):
    model = Net()
    x = rng.standard_normal((5, 4))
    V.sum(model(x)).backward()
    before = [a.copy() for a in _all_arrays(model)]
    assert model.to_gpu() is model
    assert all(_on_gpu(a) for a in _all_arrays(model)) and len(before) == 8 * 2 + 2
    assert all(p.device == "gpu" for p in model.params())
    y = model(V.Variable(x).to_gpu())
    assert y.device == "gpu"
    assert model.to_cpu() is model
    after = _all_arrays(model)
    assert all(type(a) is np.ndarray for a in after)
    for old, new in zip(before[:-2], after[:-2]):   # the running statistics moved on in the call
        assert old.shape == new.shape and old.dtype == new.dtype
    for (_, p), old in zip(model.named_params(), before[::2]):
        np.testing.assert_array_equal(p.data, old)


def test_lazy_layers_build_on_the_device_they_were_sent_to(gpu, rng):
    mlp = L.MLP((5, 3)).to_gpu()                    # no weights yet: the device is remembered
    assert list(mlp.params()) == []
    y = mlp(V.Variable(rng.standard_normal((4, 2))).to_gpu())
    assert y.device == "gpu" and all(p.device == "gpu" for p in mlp.params())

    bn = L.BatchNorm()                              # not moved: it follows its first input
    bn(V.Variable(rng.standard_normal((4, 3))).to_gpu())
    assert all(_on_gpu(a) for a in _all_arrays(bn))

    cpu = L.Linear(3).to_cpu()                      # sent to the CPU: a GPU input is refused
    with pytest.raises(TypeError, match="Linear: expected all inputs on one device"):
        cpu(V.Variable(rng.standard_normal((2, 4))).to_gpu())
    assert cpu.W.device == "cpu"


def test_rnn_and_embedding_and_conv_run_on_the_device(gpu, rng):
    for rnn in (L.LSTM(4).to_gpu(), L.GRU(4).to_gpu()):
        for _ in range(2):
            h = rnn(V.Variable(rng.standard_normal((3, 2))).to_gpu())
        V.sum(h).backward()
        assert all(p.grad.device == "gpu" for p in rnn.params())
    embed = L.EmbedID(5, 3).to_gpu()
    assert embed(gpu.asarray(np.array([0, 4, 4]))).device == "gpu"
    conv = L.Conv2d(2, 3, pad=1).to_gpu()
    assert conv(V.Variable(rng.standard_normal((1, 1, 4, 4))).to_gpu()).shape == (1, 2, 4, 4)


def test_conv1d_attention_and_resampling_run_on_the_device(gpu, rng):
    x = V.Variable(rng.standard_normal((2, 3, 5))).to_gpu()
    conv = L.Conv1d(4, 3, pad=1).to_gpu()
    assert conv(x).device == "gpu" and conv(x).shape == (2, 4, 5)
    attention = L.MultiheadAttention(5, 1).to_gpu()
    out, weights = attention(x, key_padding_mask=[[False, False, True], [False, True, True]], is_causal=True)
    V.sum(out).backward()
    assert out.device == weights.device == "gpu" and all(p.grad.device == "gpu" for p in attention.params())
    with pytest.raises(TypeError, match=r"MultiheadAttention: expected key_padding_mask on the device of the "
                                        r"data, .* \(a NumPy array of shape \(2, 3\)\)"):
        attention(x, key_padding_mask=np.zeros((2, 3), bool))
    image = x[:, :, None]
    for y in (F.interpolate(image, scale_factor=2, mode="bilinear"), F.interpolate(image, size=(1, 7)),
              F.adaptive_avg_pool2d(image, (1, 2)), F.adaptive_max_pool2d(image, (1, 2)),
              F.adaptive_avg_pool1d(x, 2), F.adaptive_max_pool1d(x, 2),
              F.adaptive_avg_pool3d(image[:, :, None], (1, 1, 2)),
              F.adaptive_max_pool3d(image[:, :, None], 1)):
        assert y.device == "gpu"


def _train(model, loader, optimizer, steps):
    losses = []
    for _ in range(steps):
        for x, t in loader:
            loss = F.mean_squared_error(model(x), t)
            model.cleargrads()
            loss.backward()
            optimizer.update()
            losses.append(float(loss.data))
    return losses


@pytest.mark.parametrize("make", [lambda: O.SGD(0.1), lambda: O.MomentumSGD(0.1), lambda: O.Adam(0.01)])
def test_training_on_the_device_gives_the_cpu_losses(gpu, rng, make):
    x, t = rng.standard_normal((20, 3)), rng.standard_normal((20, 2))
    runs = []
    for device in ("cpu", "gpu"):
        L.seed(0)
        model = L.MLP((8, 2), activation=F.tanh)
        loader = L.DataLoader(x, t, batch_size=8)
        if device == "gpu":
            model.to_gpu()
            loader.to_gpu()
        opt = make().setup(model).add_hook(O.ClipGrad(1.0)).add_hook(O.WeightDecay(1e-3))
        runs.append(_train(model, loader, opt, steps=3))
        assert all(p.device == device for p in model.params())
        assert all(backend.device_of(a) == device for s in opt.state.values() for a in s.values()
                   if not isinstance(a, int))
    np.testing.assert_allclose(runs[1], runs[0], rtol=1e-12, atol=0)


def test_weights_saved_from_the_device_load_into_either_device(gpu, rng, tmp_path):
    model = Net().to_gpu()
    x = V.Variable(rng.standard_normal((5, 4))).to_gpu()
    y = model(x).data
    model.save_weights(tmp_path / "w")
    with np.load(tmp_path / "w.npz") as stored:     # the file holds host arrays
        keys = [k for k, _ in model.named_params()] + [k for k, _ in model.named_buffers()]
        assert sorted(stored.files) == sorted(keys)
    with V.test_mode():
        expected = model(x).data

    on_cpu = Net()
    on_cpu.load_weights(tmp_path / "w")             # built from the file, on the host
    assert all(type(a) is np.ndarray for a in _all_arrays(on_cpu))
    with V.test_mode():
        np.testing.assert_allclose(on_cpu(backend.to_cpu(x.data)).data, backend.to_cpu(expected), rtol=1e-12)

    on_gpu = Net().to_gpu()                         # not built yet, but sent to the GPU
    on_gpu.load_weights(tmp_path / "w")
    assert all(_on_gpu(a) for a in _all_arrays(on_gpu))
    built = Net().to_gpu()                          # built on the device by a call, then loaded
    built(x)
    built.load_weights(tmp_path / "w")
    assert all(_on_gpu(a) for a in _all_arrays(built))
    with V.test_mode():
        np.testing.assert_allclose(on_gpu(x).data, expected, rtol=1e-12)
        np.testing.assert_allclose(built(x).data, expected, rtol=1e-12)
    assert y.shape == expected.shape


def test_checkpoint_round_trip_on_the_device(gpu, rng, tmp_path):
    x, t = rng.standard_normal((12, 3)), rng.standard_normal((12, 2))

    def fresh():
        L.seed(1)
        model = L.MLP((4, 2)).to_gpu()
        return model, O.Adam(0.01).setup(model)

    loader = L.DataLoader(x, t, batch_size=4, shuffle=False).to_gpu()
    model, opt = fresh()
    straight = _train(model, loader, opt, steps=4)

    model, opt = fresh()
    first = _train(model, loader, opt, steps=2)
    L.save_checkpoint(tmp_path / "c", model, opt)
    with np.load(tmp_path / "c.npz") as stored:
        assert all(type(stored[k]) is np.ndarray for k in stored.files)
    model, opt = fresh()                            # lazy and on the GPU: built from the file
    L.load_checkpoint(tmp_path / "c", model, opt)
    assert all(p.device == "gpu" for p in model.params())
    assert all(_on_gpu(a) for s in opt.state.values() for a in s.values() if not isinstance(a, int))
    np.testing.assert_allclose(first + _train(model, loader, opt, steps=2), straight, rtol=1e-12)

    cpu_model = L.MLP((4, 2))                       # and the same file on the host
    cpu_opt = O.Adam(0.01).setup(cpu_model)
    L.load_checkpoint(tmp_path / "c", cpu_model, cpu_opt)
    assert all(type(a) is np.ndarray for s in cpu_opt.state.values() for a in s.values()
               if not isinstance(a, int))
    state = opt.state_dict()                        # state_dict copies on the device
    assert all(_on_gpu(v) for k, v in state.items() if k.startswith("state/") and not k.endswith("/t"))


def test_data_loaders_on_the_device(gpu, rng):
    x, t = rng.standard_normal((10, 3)), np.arange(10)
    loader = L.DataLoader(x, t, batch_size=4, seed=0)
    host = list(loader)
    assert loader.to_gpu() is loader and loader.device == "gpu"
    loader.rng = np.random.default_rng(0)
    device = list(loader)
    assert [len(b[0]) for b in device] == [4, 4, 2]
    for (hx, ht), (dx, dt) in zip(host, device):
        assert _on_gpu(dx) and _on_gpu(dt)
        np.testing.assert_array_equal(backend.to_cpu(dx), hx)
        np.testing.assert_array_equal(backend.to_cpu(dt), ht)
    assert loader.to_cpu().device == "cpu" and type(next(iter(loader))[0]) is np.ndarray

    seq = L.SeqDataLoader(np.arange(10.0), batch_size=3).to_gpu()
    batches = list(seq)
    assert all(_on_gpu(b) for b in batches)
    np.testing.assert_array_equal(backend.to_cpu(batches[1]), [1.0, 4.0, 7.0])


def test_to_gpu_without_cupy_names_the_layer_and_cupy(monkeypatch):
    monkeypatch.setitem(backend._GPU, "module", None)
    monkeypatch.setattr(backend, "_cupy", lambda: (_ for _ in ()).throw(ModuleNotFoundError("cupy")))
    with pytest.raises(ModuleNotFoundError, match=r"MLP.to_gpu: CuPy is not installed"):
        L.MLP((3, 2)).to_gpu()
    with pytest.raises(ModuleNotFoundError, match=r"DataLoader.to_gpu: CuPy is not installed"):
        L.DataLoader(np.ones((3, 2))).to_gpu()
