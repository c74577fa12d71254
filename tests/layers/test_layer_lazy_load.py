"""load_weights into lazily sized layers that have not run yet: built from the file, all or nothing."""

import numpy as np
import pytest

import function as F
import layers as L
import variable as V
from variable.backend import to_cpu


class Lazy(L.Model):
    """Every lazily sized layer: Conv2d, BatchNorm (buffers), Linear, LayerNorm, LSTM, MLP."""

    def __init__(self):
        super().__init__()
        self.conv = L.Conv2d(3, 2)
        self.bn = L.BatchNorm()
        self.fc = L.Linear(6, nobias=True)
        self.ln = L.LayerNorm()
        self.rnn = L.LSTM(4)
        self.head = L.MLP((5, 2))

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        h = self.ln(self.fc(h.reshape(h.shape[0], -1)))
        self.rnn.reset_state()
        return self.head(self.rnn(h))


def _input(rng, move, dtype=np.float64):
    """A batch for Lazy, put where `move` (the on_device fixture) puts data."""
    return move(rng.standard_normal((2, 1, 4, 4)).astype(dtype))


def _source(tmp_path, rng, move, dtype=np.float64, seed=1):
    L.seed(seed)
    model = Lazy()
    model(_input(rng, move, dtype))
    for _, buffer in model.named_buffers():
        buffer += 0.25                               # running statistics that differ from a fresh start
    path = tmp_path / "lazy.npz"
    model.save_weights(path)
    return model, path


def _unbuilt(model):
    """True when no lazily sized layer of `model` has created anything yet."""
    eager = ["rnn/h2h/W"]                            # LSTM's W_h: hidden_size is known at once
    return ([k for k, _ in model.named_params()] == eager
            and all(b is None for _, b in model.named_buffers())
            and model.fc.in_size is None and model.ln.size is None and model.bn.size is None
            and model.conv.in_channels is None
            and all(layer._dtype is None for layer in model.layers() if hasattr(layer, "_dtype"))
            and model.rnn.h2h.W.dtype == np.float64)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_fresh_model_loads_and_computes_what_the_saved_one_computed(tmp_path, rng, dtype, on_device):
    source, path = _source(tmp_path, rng, on_device, dtype)
    L.seed(7)
    fresh = Lazy()
    assert _unbuilt(fresh)
    fresh.load_weights(path)                         # no dummy forward
    assert [k for k, _ in fresh.named_params()] == [k for k, _ in source.named_params()]
    for (key, p), (_, q) in zip(fresh.named_params(), source.named_params()):
        assert p.dtype == q.dtype == dtype, key
        np.testing.assert_array_equal(p.data, q.data, err_msg=key)
        assert p.data is not q.data
    for (key, b), (_, c) in zip(fresh.named_buffers(), source.named_buffers()):
        np.testing.assert_array_equal(b, c, err_msg=key)
    assert (fresh.conv.in_channels, fresh.bn.size, fresh.fc.in_size, fresh.ln.size) == (1, 3, 27, 6)
    x = _input(rng, on_device, dtype)
    with V.test_mode():                              # uses the loaded running statistics
        np.testing.assert_array_equal(fresh(x).data, source(x).data)
    np.testing.assert_array_equal(fresh(x).data, source(x).data)
    np.testing.assert_array_equal(fresh.bn.avg_mean, source.bn.avg_mean)


def test_the_size_and_dtype_taken_from_the_file_stay_fixed(tmp_path, rng, on_device):
    source, path = _source(tmp_path, rng, on_device, np.float32)
    fresh = Lazy()
    fresh.load_weights(path)
    x = _input(rng, on_device, np.float64)                      # a float64 input no longer changes the dtype
    np.testing.assert_array_equal(fresh(x).data, source(x).data)
    assert all(p.dtype == np.float32 for p in fresh.params())
    with pytest.raises(ValueError, match="Linear: input of shape .* built for in_size=27"):
        fresh.fc(on_device(np.ones((2, 5))))


def test_a_built_layer_whose_dtype_is_open_takes_the_files(tmp_path, rng, on_device):
    source = L.RNN(3, in_size=2)                     # h2h is built at once, in float64, dtype still open
    source(on_device(rng.standard_normal((4, 2)).astype(np.float32)))
    source.save_weights(tmp_path / "rnn.npz")
    fresh = L.RNN(3, in_size=2)
    assert fresh.h2h.W.dtype == np.float64
    fresh.load_weights(tmp_path / "rnn.npz")
    assert all(p.dtype == np.float32 for p in fresh.params())
    x = on_device(rng.standard_normal((4, 2)))
    source.reset_state()
    np.testing.assert_array_equal(fresh(x).data, source(x).data)


def test_a_layer_shared_by_two_paths_is_built_once(tmp_path, rng, on_device):
    shared = L.Linear(3)
    source = L.Sequential(shared, F.tanh, shared)
    source(on_device(rng.standard_normal((2, 3))))
    source.save_weights(tmp_path / "shared.npz")
    again = L.Linear(3)
    fresh = L.Sequential(again, F.tanh, again)
    fresh.load_weights(tmp_path / "shared.npz")
    assert [k for k, _ in fresh.named_params()] == ["l0/W", "l0/b"]
    x = on_device(rng.standard_normal((2, 3)))
    np.testing.assert_array_equal(fresh(x).data, source(x).data)


def _rewritten(tmp_path, path, drop=(), **replace):
    with np.load(path) as archive:
        arrays = {k: archive[k] for k in archive.files if k not in drop}
    arrays.update({k.replace("__", "/"): v for k, v in replace.items()})
    out = tmp_path / "rewritten.npz"
    np.savez(out, **arrays)
    return out


@pytest.mark.parametrize("change, match", [
    (dict(fc__W=np.ones((27, 7))), r"'fc/W' is \(27, 7\) float64 .* needs shape \(in_size, 6\)"),
    (dict(fc__W=np.ones(6)), r"'fc/W' is \(6,\) float64 .* needs shape \(in_size, 6\)"),
    (dict(fc__W=np.ones((0, 6))), r"'fc/W' is \(0, 6\) .* gives Linear in_size=0"),
    (dict(ln__beta=np.ones(5)), r"'ln/beta' is \(5,\) .* needs shape \(6,\) \(size=6, as 'ln/gamma'"),
    (dict(bn__avg_var=np.ones(4)), r"'bn/avg_var' is \(4,\) .* needs shape \(3,\) \(size=3"),
    (dict(conv__W=np.ones((2, 1, 2, 2))), r"'conv/W' is \(2, 1, 2, 2\) .* needs shape \(3, in_channels, 2"),
    (dict(conv__b=np.ones(3, dtype=np.float32)), r"'conv/b' is float32 .* but 'conv/W' of the same layer"),
    (dict(ln__gamma=np.ones(6, dtype=np.int64)), r"'ln/gamma' is \(6,\) int64 .* must be floating point"),
    (dict(rnn__h2h__W=np.ones((4, 15))), r"'rnn/h2h/W' is \(4, 16\) float64 in the model but \(4, 15\)"),
    (dict(head__l1__W=np.ones((5, 2), dtype=np.float32)),
     r"'head/l1/b' is float64 .* but 'head/l1/W' of the same layer is float32"),
    (dict(fc__b=np.ones(6)), r"in the file but not in the model: 'fc/b'"),
    (dict(extra__W=np.ones(2)), r"in the file but not in the model: 'extra/W' \(no layer of the model"),
], ids=["wider than out_size", "1-d W", "in_size 0", "beta unlike gamma", "buffer unlike gamma",
        "conv out_channels", "mixed dtypes", "integer weights", "eager h2h", "mixed dtypes in MLP",
        "bias of a nobias layer", "unknown layer"])
def test_a_file_the_model_cannot_hold_is_refused_and_builds_nothing(tmp_path, rng, change, match, on_device):
    _, path = _source(tmp_path, rng, on_device)
    fresh = Lazy()
    h2h = fresh.rnn.h2h.W.data
    with pytest.raises(ValueError, match=match):
        fresh.load_weights(_rewritten(tmp_path, path, **change))
    assert _unbuilt(fresh)                           # not even the layers before the bad key
    assert fresh.rnn.h2h.W.data is h2h
    fresh.load_weights(path)                         # and a good file still loads afterwards
    assert not _unbuilt(fresh)


def test_a_missing_key_of_a_lazy_layer_is_named(tmp_path, rng, on_device):
    _, path = _source(tmp_path, rng, on_device)
    fresh = Lazy()
    with pytest.raises(ValueError, match=r"missing from the file: 'bn/avg_mean'"):
        fresh.load_weights(_rewritten(tmp_path, path, drop=("bn/avg_mean",)))
    assert _unbuilt(fresh)


def test_an_explicit_dtype_is_kept(tmp_path, rng, on_device):
    source = L.Linear(3)
    source(on_device(np.ones((2, 4))))
    source.save_weights(tmp_path / "w.npz")
    fresh = L.Linear(3, dtype=np.float32)
    with pytest.raises(ValueError, match=r"'W' is float64 .* built with dtype=float32"):
        fresh.load_weights(tmp_path / "w.npz")
    assert fresh.W is None and fresh.in_size is None


def test_a_custom_lazy_layer_without_the_hook_is_explained(tmp_path, rng, on_device):
    class Scale(L.Layer):
        def __init__(self):
            super().__init__()
            self.w = None

        def forward(self, x):
            if self.w is None:
                self.w = L.Parameter(np.ones(x.shape[-1]))
            return x * self.w

    source = L.Sequential(Scale())
    source(on_device(np.ones((2, 3))))
    source.save_weights(tmp_path / "w.npz")
    with pytest.raises(ValueError, match=r"'l0/w' \(no such parameter in Scale at 'l0'; .*_lazy_shapes"):
        L.Sequential(Scale()).load_weights(tmp_path / "w.npz")


def test_deconv2d_and_a_float32_conv_net_load_without_a_forward_pass(tmp_path, rng, on_device):
    def net():
        return L.Sequential(L.Conv2d(4, 3, pad=1), F.relu, L.Deconv2d(2, 2, stride=2))

    source = net()
    x = on_device(rng.standard_normal((1, 3, 5, 5)).astype(np.float32))
    y = source(x)
    source.save_weights(tmp_path / "conv.npz")
    fresh = net()
    fresh.load_weights(tmp_path / "conv.npz")
    assert fresh.l0.in_channels == 3 and fresh.l2.in_channels == 4
    assert fresh.l2.W.shape == (4, 2, 2, 2) and fresh.l2.W.dtype == np.float32
    np.testing.assert_array_equal(fresh(x).data, y.data)
    wrong = L.Sequential(L.Conv2d(4, 3, pad=1), F.relu, L.Deconv2d(2, 3, stride=2))
    with pytest.raises(ValueError, match=r"'l2/W' is \(4, 2, 2, 2\) float32 .* \(in_channels, 2, 3, 3\)"):
        wrong.load_weights(tmp_path / "conv.npz")
    assert wrong.l0.W is None


def test_grouped_convolutions_load_their_in_channels_without_a_forward_pass(tmp_path, rng, on_device):
    """A grouped layer's W holds in_channels / groups along axis 1; the size read off the file
    is multiplied back."""
    def net():
        return L.Sequential(L.Conv2d(6, 3, pad="same", groups=3), F.relu, L.Conv2d(4, 1, groups=2),
                            lambda h: V.reshape(h, h.shape[:2] + (-1,)), L.Conv1d(4, 2, dilation=2, groups=4))

    source = net()
    x = on_device(rng.standard_normal((2, 3, 4, 4)))
    y = source(x)
    source.save_weights(tmp_path / "grouped.npz")
    fresh = net()
    fresh.load_weights(tmp_path / "grouped.npz")
    assert (fresh.l0.in_channels, fresh.l2.in_channels, fresh.l4.in_channels) == (3, 6, 4)
    assert fresh.l0.W.shape == (6, 1, 3, 3) and fresh.l2.W.shape == (4, 3, 1, 1)
    np.testing.assert_array_equal(to_cpu(fresh(x).data), to_cpu(y.data))


def test_a_conv3d_net_loads_without_a_forward_pass(tmp_path, rng, on_device):
    def net():
        return L.Sequential(L.Conv3d(4, 3, pad="same", groups=1), F.relu, L.Conv3d(6, 1, groups=2))

    source = net()
    x = on_device(rng.standard_normal((1, 2, 3, 4, 4)))
    y = source(x)
    source.save_weights(tmp_path / "volumes.npz")
    fresh = net()
    fresh.load_weights(tmp_path / "volumes.npz")
    assert (fresh.l0.in_channels, fresh.l2.in_channels) == (2, 4) and fresh.l2.W.shape == (6, 2, 1, 1, 1)
    np.testing.assert_array_equal(to_cpu(fresh(x).data), to_cpu(y.data))


def test_deconv1d_and_deconv3d_nets_load_without_a_forward_pass(tmp_path, rng, on_device):
    def net():
        return L.Sequential(L.Deconv1d(4, 3, stride=2, groups=2), F.tanh, L.Deconv1d(2, 2, dilation=2),
                            lambda h: V.reshape(h, h.shape + (1, 1)), L.Deconv3d(4, 2, groups=2))

    source = net()
    x = on_device(rng.standard_normal((1, 2, 5)))
    y = source(x)
    source.save_weights(tmp_path / "up.npz")
    fresh = net()
    fresh.load_weights(tmp_path / "up.npz")
    assert (fresh.l0.in_channels, fresh.l2.in_channels, fresh.l4.in_channels) == (2, 4, 2)
    assert fresh.l0.W.shape == (2, 2, 3) and fresh.l4.W.shape == (2, 2, 2, 2, 2)
    np.testing.assert_array_equal(to_cpu(fresh(x).data), to_cpu(y.data))
