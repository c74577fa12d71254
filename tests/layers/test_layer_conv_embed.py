"""Conv2d against a direct loop, and EmbedID as a table lookup; both with gradients."""

import numpy as np
import pytest
from layer_checks import assert_param_grads_match

import layers as L
import variable as V


def _conv_by_hand(x, W, b, stride, pad):
    n, c, h, w = x.shape
    oc, _, kh, kw = W.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (w + 2 * pad - kw) // stride + 1
    y = np.zeros((n, oc, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            y[:, :, i, j] = np.einsum("nckl,ockl->no", patch, W) + b
    return y


@pytest.mark.parametrize("stride, pad", [(1, 0), (2, 1)])
def test_conv2d_matches_a_direct_loop(stride, pad, rng):
    layer = L.Conv2d(4, 3, stride=stride, pad=pad)
    x = rng.standard_normal((2, 3, 6, 5))
    y = layer(x)
    assert layer.W.shape == (4, 3, 3, 3) and layer.in_channels == 3
    layer.b.data = rng.standard_normal(4)
    expected = _conv_by_hand(x, layer.W.data, layer.b.data, stride, pad)
    assert y.shape == expected.shape
    np.testing.assert_allclose(layer(x).data, expected, rtol=1e-10)


def test_conv2d_gradients_initial_scale_and_dtype(rng):
    layer = L.Conv2d(2, (2, 3), in_channels=2, pad=1)
    x = rng.standard_normal((2, 2, 3, 3))
    w = rng.standard_normal(layer(x).shape)
    assert_param_grads_match(layer, lambda: V.sum(layer(x) * w))
    big = L.Conv2d(64, 3, in_channels=32)
    np.testing.assert_allclose(big.W.data.std(), np.sqrt(1 / (32 * 9)), rtol=0.03)
    lazy = L.Conv2d(2, 1, nobias=True)
    assert lazy(x.astype(np.float32)).dtype == np.float32 and lazy.b is None


def test_conv2d_errors():
    layer = L.Conv2d(2, 3, in_channels=1)
    with pytest.raises(ValueError, match=r"Conv2d: input must be 4-D \(batch, channels, height, width\)"):
        layer(np.ones((3, 4, 4)))
    with pytest.raises(ValueError, match=r"Conv2d: input of shape \(1, 2, 4, 4\) has 2 channels"):
        layer(np.ones((1, 2, 4, 4)))
    with pytest.raises(ValueError, match="Conv2d: kernel_size must be a positive int"):
        L.Conv2d(2, 0)
    with pytest.raises(ValueError, match="Conv2d: kernel_size must be an int or a pair of ints"):
        L.Conv2d(2, (1, 2, 3))


def test_embed_id_is_a_table_lookup(rng):
    layer = L.EmbedID(5, 3)
    ids = np.array([[0, 4], [2, 2]])
    y = layer(ids)
    assert y.shape == (2, 2, 3)
    np.testing.assert_array_equal(y.data, layer.W.data[ids])


def test_embed_id_gradient_accumulates_repeated_ids(rng):
    layer = L.EmbedID(4, 2)
    ids = np.array([1, 3, 1])
    w = rng.standard_normal((3, 2))
    V.sum(layer(ids) * w).backward()
    expected = np.zeros((4, 2))
    np.add.at(expected, ids, w)
    np.testing.assert_allclose(layer.W.grad.data, expected)
    assert_param_grads_match(layer, lambda: V.sum(V.tanh(layer(ids)) * w))


def test_embed_id_dtype_and_errors():
    assert L.EmbedID(3, 2).W.dtype == np.float64
    assert L.EmbedID(3, 2, dtype=np.float32)(np.array([0, 1])).dtype == np.float32
    with pytest.raises(ValueError, match="EmbedID: in_size must be a positive int"):
        L.EmbedID(0, 2)
    with pytest.raises(ValueError, match="embed_id"):
        L.EmbedID(3, 2)(np.array([3]))
