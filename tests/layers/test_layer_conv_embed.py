"""Conv1d, Conv2d and Deconv2d against direct loops, and EmbedID as a table lookup; all with gradients."""

import numpy as np
import pytest
from layer_checks import assert_param_grads_match, substituted

import function as F
import layers as L
import optimizers as O
import variable as V
from variable.backend import to_cpu


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
def test_conv2d_matches_a_direct_loop(stride, pad, rng, on_device):
    layer = L.Conv2d(4, 3, stride=stride, pad=pad)
    x = rng.standard_normal((2, 3, 6, 5))
    y = layer(on_device(x))
    assert layer.W.shape == (4, 3, 3, 3) and layer.in_channels == 3
    layer.b.data = on_device(rng.standard_normal(4))
    expected = _conv_by_hand(x, to_cpu(layer.W.data), to_cpu(layer.b.data), stride, pad)
    assert y.shape == expected.shape
    np.testing.assert_allclose(layer(on_device(x)).data, expected, rtol=1e-10)


def test_conv2d_gradients_initial_scale_and_dtype(rng, on_device):
    layer = L.Conv2d(2, (2, 3), in_channels=2, pad=1)
    x = on_device(rng.standard_normal((2, 2, 3, 3)))
    w = on_device(rng.standard_normal(layer(x).shape))
    assert_param_grads_match(layer, lambda: V.sum(layer(x) * w))
    big = L.Conv2d(64, 3, in_channels=32)
    np.testing.assert_allclose(big.W.data.std(), np.sqrt(1 / (32 * 9)), rtol=0.03)
    lazy = L.Conv2d(2, 1, nobias=True)
    assert lazy(x.astype(np.float32)).dtype == np.float32 and lazy.b is None


def test_conv2d_errors(on_device):
    layer = L.Conv2d(2, 3, in_channels=1)
    with pytest.raises(ValueError, match=r"Conv2d: input must be 4-D \(batch, channels, height, width\)"):
        layer(on_device(np.ones((3, 4, 4))))
    with pytest.raises(ValueError, match=r"Conv2d: input of shape \(1, 2, 4, 4\) has 2 channels"):
        layer(on_device(np.ones((1, 2, 4, 4))))
    with pytest.raises(ValueError, match="Conv2d: kernel_size must be a positive int"):
        L.Conv2d(2, 0)
    with pytest.raises(ValueError, match="Conv2d: kernel_size must be an int or a pair of ints"):
        L.Conv2d(2, (1, 2, 3))


def _conv1d_by_hand(x, W, b, stride, pad):
    n, c, length = x.shape
    oc, _, k = W.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
    y = np.zeros((n, oc, (length + 2 * pad - k) // stride + 1))
    for i in range(y.shape[2]):
        y[:, :, i] = np.einsum("nck,ock->no", xp[:, :, i * stride:i * stride + k], W) + b
    return y


@pytest.mark.parametrize("stride, pad", [(1, 0), (2, 1), (3, 2)])
def test_conv1d_matches_a_direct_loop(stride, pad, rng, on_device):
    layer = L.Conv1d(4, 3, stride=stride, pad=pad)
    x = rng.standard_normal((2, 3, 9))
    y = layer(on_device(x))
    assert layer.W.shape == (4, 3, 3) and layer.in_channels == 3
    layer.b.data = on_device(rng.standard_normal(4))
    expected = _conv1d_by_hand(x, to_cpu(layer.W.data), to_cpu(layer.b.data), stride, pad)
    assert y.shape == expected.shape
    np.testing.assert_allclose(to_cpu(layer(on_device(x)).data), expected, rtol=1e-10)


def test_conv1d_gradients_second_order_initial_scale_and_dtype(rng, on_device):
    layer = L.Conv1d(2, 3, in_channels=2, pad=1)
    x = on_device(rng.standard_normal((2, 2, 5)))
    w = on_device(rng.standard_normal(layer(x).shape))
    assert_param_grads_match(layer, lambda: V.sum(layer(x) * w))
    assert V.gradcheck(lambda v: V.tanh(layer(v)), x, order=2)
    big = L.Conv1d(64, 5, in_channels=32)
    np.testing.assert_allclose(to_cpu(big.W.data).std(), np.sqrt(1 / (32 * 5)), rtol=0.03)
    lazy = L.Conv1d(2, 1, nobias=True)
    assert lazy(x.astype(np.float32)).dtype == np.float32 and lazy.b is None
    assert repr(L.Conv1d(8, 3, 2)) == "Conv1d(out_channels=8, kernel_size=3, stride=2, pad=0)"


def test_conv1d_errors(on_device):
    layer = L.Conv1d(2, 3, in_channels=1)
    with pytest.raises(ValueError, match=r"Conv1d: input must be 3-D \(batch, channels, length\)"):
        layer(on_device(np.ones((3, 1, 4, 4))))
    with pytest.raises(ValueError, match=r"Conv1d: input of shape \(1, 2, 4\) has 2 channels"):
        layer(on_device(np.ones((1, 2, 4))))
    with pytest.raises(TypeError, match=r"Conv1d: kernel_size must be an int, got \(3, 3\)"):
        L.Conv1d(2, (3, 3))
    with pytest.raises(ValueError, match=r"Conv1d: kernel 5 does not fit the input of shape \(2, 100, 3\) "
                                         r"padded by 0 .* a \(batch, length, channels\) sequence is "
                                         r"x\.transpose\(0, 2, 1\)"):
        L.Conv1d(8, 5, in_channels=100)(on_device(np.ones((2, 100, 3))))
    # (batch, length, channels), Keras's layout, which the padding would let through
    with pytest.raises(ValueError, match=r"Conv1d: input of shape \(2, 100, 3\) looks channels-last, "
                                         r"\(batch, length, channels\) with 3 channel\(s\) over 100 steps.*"
                                         r"x\.transpose\(0, 2, 1\); pass in_channels=100 if you do mean"):
        L.Conv1d(8, 5, pad=2)(on_device(np.ones((2, 100, 3))))
    assert L.Conv1d(8, 5, pad=2, in_channels=100)(on_device(np.ones((2, 100, 3)))).shape == (2, 8, 3)
    assert L.Conv1d(8, 3)(on_device(np.ones((2, 64, 4)))).shape == (2, 8, 2)    # many channels, short: fine


def test_conv1d_in_pytorchs_order_is_refused_with_the_call_to_write(on_device):
    with pytest.raises(ValueError, match=r"Conv1d\(3, 8, 3\) means out_channels=3, kernel_size=8, stride=3 .*"
                                         r"for PyTorch's nn\.Conv1d\(3, 8, 3\) write L\.Conv1d\(8, 3, "
                                         r"in_channels=3\) or just L\.Conv1d\(8, 3\)"):
        L.Conv1d(3, 8, 3)(on_device(np.ones((2, 3, 20))))
    assert L.Conv1d(8, 3)(on_device(np.ones((2, 3, 20)))).shape == (2, 8, 18)


def test_conv1d_is_the_functional_op_and_conv2d_one_row_high(rng, on_device):
    layer = L.Conv1d(3, 2, stride=2, pad=1)
    x = on_device(rng.standard_normal((2, 2, 7)))
    y = layer(x)
    np.testing.assert_array_equal(to_cpu(y.data), to_cpu(F.conv1d(x, layer.W, layer.b, 2, 1).data))
    image = F.conv2d(x[:, :, None, :], layer.W.data[:, :, None, :], layer.b, stride=(1, 2), pad=(0, 1))
    np.testing.assert_allclose(to_cpu(y.data), to_cpu(image.data)[:, :, 0, :], rtol=1e-14)


def _grouped_by_hand(x, W, b, dilation, groups):
    """Stride 1, pad 'same' (the odd pad after): each filter over its group's channels, taps
    `dilation` apart, for sequences (N, C, L)."""
    oc, cg, k = W.shape
    total = dilation * (k - 1)
    xp = np.pad(x, ((0, 0), (0, 0), (total // 2, total - total // 2)))
    y = np.zeros((x.shape[0], oc, x.shape[2]))
    for o in range(oc):
        g = o // (oc // groups)
        for p in range(x.shape[2]):
            taps = xp[:, g * cg:(g + 1) * cg, p:p + total + 1:dilation]
            y[:, o, p] = np.einsum("nck,ck->n", taps, W[o]) + b[o]
    return y


@pytest.mark.parametrize("k, dilation, groups", [(3, 2, 2), (2, 3, 4), (4, 1, 1), (2, 1, 4)])
def test_conv1d_same_dilated_grouped_matches_a_direct_loop(k, dilation, groups, rng, on_device):
    layer = L.Conv1d(8, k, pad="same", dilation=dilation, groups=groups)
    x = rng.standard_normal((2, 4, 9))
    y = layer(on_device(x))
    assert layer.W.shape == (8, 4 // groups, k) and layer.in_channels == 4 and y.shape == (2, 8, 9)
    layer.b.data = on_device(rng.standard_normal(8))
    expected = _grouped_by_hand(x, to_cpu(layer.W.data), to_cpu(layer.b.data), dilation, groups)
    np.testing.assert_allclose(to_cpu(layer(on_device(x)).data), expected, rtol=1e-10, atol=1e-14)


def test_conv2d_grouped_layer_is_the_functional_op_with_each_groups_fan_in(rng, on_device):
    layer = L.Conv2d(6, (2, 3), pad="same", dilation=(2, 1), groups=3)
    x = on_device(rng.standard_normal((2, 3, 5, 4)))
    y = layer(x)
    assert layer.W.shape == (6, 1, 2, 3) and y.shape == (2, 6, 5, 4)
    expected = F.conv2d(x, layer.W, layer.b, pad="same", dilation=(2, 1), groups=3)
    np.testing.assert_array_equal(to_cpu(y.data), to_cpu(expected.data))
    w = on_device(rng.standard_normal(y.shape))
    assert_param_grads_match(layer, lambda: V.sum(layer(x) * w))
    assert V.gradcheck(lambda v: V.tanh(layer(v)), x, order=2)
    depthwise = L.Conv2d(64, 3, in_channels=32, groups=32)         # each filter sees 1 channel of 9 taps
    np.testing.assert_allclose(to_cpu(depthwise.W.data).std(), np.sqrt(1 / 9), rtol=0.03)
    assert repr(L.Conv2d(8, 3, pad="same", dilation=2, groups=4)) == (
        "Conv2d(out_channels=8, kernel_size=(3, 3), stride=(1, 1), pad='same', dilation=(2, 2), groups=4)")
    assert repr(L.Conv1d(8, 3, pad="same", dilation=2)) == (
        "Conv1d(out_channels=8, kernel_size=3, stride=1, pad='same', dilation=2)")
    valid = L.Conv2d(2, 3, pad="valid")
    assert valid.pad == (0, 0) and valid(x).shape == (2, 2, 3, 2)
    # once built, W's shape shows the channels and the kernel, the first line what it cannot
    assert repr(layer).splitlines()[:2] == ["Conv2d(", "  pad='same', dilation=(2, 1), groups=3"]
    assert repr(valid).splitlines()[1].startswith("  (W): Parameter(2, 3, 3, 3)")


def test_grouped_and_same_padded_layers_refuse_what_cannot_run(on_device):
    with pytest.raises(ValueError, match=r"Conv2d: groups=3 must divide out_channels=8"):
        L.Conv2d(8, 3, groups=3)
    with pytest.raises(ValueError, match=r"Conv2d: groups=2 must divide the 3 input channels \(axis 1 of "
                                         r"the input of shape \(1, 3, 5, 5\)\)"):
        L.Conv2d(8, 3, groups=2)(on_device(np.ones((1, 3, 5, 5))))
    with pytest.raises(ValueError, match=r"Conv1d: pad='same' keeps the input's size only at stride 1 .*"
                                         r"got stride 2"):
        L.Conv1d(8, 3, 2, pad="same")
    # PyTorch's nn.Conv2d(3, 8, 3, padding='same') typed in gengrad's order: kernel 8, stride 3
    with pytest.raises(ValueError, match=r"for PyTorch's nn\.Conv2d\(3, 8, 3, padding='same'\) write "
                                         r"L\.Conv2d\(8, 3, pad='same', in_channels=3\)"):
        L.Conv2d(3, 8, 3, pad="same")
    with pytest.raises(ValueError, match=r"Conv1d: kernel 3 \(spread by dilation 3\) does not fit the input "
                                         r"of shape \(1, 3, 5\) padded by 0"):
        L.Conv1d(8, 3, dilation=3)(on_device(np.ones((1, 3, 5))))
    with pytest.raises(ValueError, match=r"Conv2d: pad must be an int or a pair of ints, 'same' or 'valid', "
                                         r"got 'full'"):
        L.Conv2d(8, 3, pad="full")
    assert L.Conv2d(8, 3, pad="same")(on_device(np.ones((1, 3, 2, 2)))).shape == (1, 8, 2, 2)   # fits


def _deconv_by_hand(x, W, b, stride, pad):
    """Each input pixel adds its W-weighted kernel patch into the padded output; the pad is cut."""
    n, c, h, w = x.shape
    _, oc, kh, kw = W.shape
    y = np.zeros((n, oc, stride * (h - 1) + kh, stride * (w - 1) + kw))
    for i in range(h):
        for j in range(w):
            y[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw] += np.einsum("nc,cokl->nokl",
                                                                                     x[:, :, i, j], W)
    return y[:, :, pad:y.shape[2] - pad, pad:y.shape[3] - pad] + b[None, :, None, None]


@pytest.mark.parametrize("stride, pad", [(1, 0), (2, 1)])
def test_deconv2d_matches_a_direct_loop(stride, pad, rng, on_device):
    layer = L.Deconv2d(4, 3, stride=stride, pad=pad)
    x = rng.standard_normal((2, 3, 4, 5))
    y = layer(on_device(x))
    assert layer.W.shape == (3, 4, 3, 3) and layer.in_channels == 3     # (in, out, kh, kw)
    assert y.shape == (2, 4, stride * 3 + 3 - 2 * pad, stride * 4 + 3 - 2 * pad)
    layer.b.data = on_device(rng.standard_normal(4))
    np.testing.assert_allclose(layer(on_device(x)).data,
                               _deconv_by_hand(x, to_cpu(layer.W.data), to_cpu(layer.b.data), stride, pad),
                               rtol=1e-10, atol=1e-12)


def test_deconv2d_undoes_the_shape_of_conv2d(rng, on_device):
    x = on_device(rng.standard_normal((1, 2, 7, 6)))
    down = L.Conv2d(3, 3, stride=2, pad=1)
    up = L.Deconv2d(2, 3, stride=2, pad=1)
    h = down(x)                                                 # (1, 3, 4, 3)
    assert up(h).shape == (1, 2, 7, 5)                          # the default size
    assert up(h, outsize=(7, 6)).shape == x.shape               # outsize picks the other one
    with pytest.raises(ValueError, match=r"deconv2d: outsize \(9, 6\) does not fit"):
        up(h, outsize=(9, 6))


def test_deconv2d_gradients_initial_scale_and_dtype(rng, on_device):
    layer = L.Deconv2d(2, (2, 3), in_channels=2, stride=(2, 1), pad=(0, 1))
    x = on_device(rng.standard_normal((2, 2, 3, 3)))
    w = on_device(rng.standard_normal(layer(x).shape))
    assert_param_grads_match(layer, lambda: V.sum(layer(x) * w))
    big = L.Deconv2d(64, 3, in_channels=32)
    assert big.W.shape == (32, 64, 3, 3)
    np.testing.assert_allclose(big.W.data.std(), np.sqrt(1 / (32 * 9)), rtol=0.03)
    lazy = L.Deconv2d(2, 1, nobias=True)
    assert lazy(x.astype(np.float32)).dtype == np.float32 and lazy.b is None
    assert lazy.W.dtype == np.float32
    fixed = L.Deconv2d(2, 2, dtype=np.float32)
    fixed(x)                                                    # a float64 input keeps float32 weights
    assert fixed.W.dtype == fixed.b.dtype == np.float32


def test_deconv2d_second_order_through_the_layer(rng, on_device):
    layer = L.Deconv2d(2, 2, stride=2, pad=1, in_channels=2)
    x = on_device(rng.standard_normal((1, 2, 2, 3)))
    layer.b.data = on_device(rng.standard_normal(2))
    values = [p.data.copy() for p in layer.params()]

    def f(x, *params):
        with substituted(layer, params):
            return V.tanh(layer(x))

    assert V.gradcheck(f, x, *values, order=2)

    def input_penalty(*params):                                 # |d loss / d x|^2, WGAN-GP style
        with substituted(layer, params):
            xv = V.Variable(x)
            gx = V.grad(V.sum(V.tanh(layer(xv))), xv, create_graph=True)
            return V.sum(gx * gx)

    assert V.gradcheck(input_penalty, *values, order=1)


def test_deconv2d_errors(on_device):
    layer = L.Deconv2d(2, 3, in_channels=1)
    with pytest.raises(ValueError, match=r"Deconv2d: input must be 4-D \(batch, channels, height, width\)"):
        layer(on_device(np.ones((3, 4, 4))))
    with pytest.raises(ValueError, match=r"Deconv2d: input of shape \(1, 2, 4, 4\) has 2 channels"):
        layer(on_device(np.ones((1, 2, 4, 4))))
    with pytest.raises(ValueError, match="Deconv2d: kernel_size must be >= 1"):
        L.Deconv2d(2, 0)
    with pytest.raises(TypeError, match="Deconv2d: kernel_size must be an int or a pair of ints"):
        L.Deconv2d(2, (1, 2, 3))
    with pytest.raises(ValueError, match="Deconv2d: out_channels must be a positive int"):
        L.Deconv2d(0, 2)
    with pytest.raises(ValueError, match="Deconv2d: pad must be >= 0"):
        L.Deconv2d(2, 2, pad=-1)
    with pytest.raises(ValueError, match="Deconv2d: cannot infer in_channels"):
        L.Deconv2d(2, 2)(on_device(np.ones((1, 0, 3, 3))))


def test_deconv2d_is_the_functional_op(rng, on_device):
    layer = L.Deconv2d(3, 2, stride=2, in_channels=2)
    x = on_device(rng.standard_normal((1, 2, 3, 3)))
    np.testing.assert_array_equal(layer(x).data, F.deconv2d(x, layer.W, layer.b, stride=2).data)


def test_embed_id_is_a_table_lookup(rng, on_device):
    layer = L.EmbedID(5, 3)
    ids = on_device(np.array([[0, 4], [2, 2]]))
    y = layer(ids)
    assert y.shape == (2, 2, 3)
    np.testing.assert_array_equal(y.data, layer.W.data[ids])


def test_embed_id_gradient_accumulates_repeated_ids(rng, on_device):
    layer = L.EmbedID(4, 2)
    ids = np.array([1, 3, 1])
    w = rng.standard_normal((3, 2))
    expected = np.zeros((4, 2))
    np.add.at(expected, ids, w)
    ids, w = on_device((ids, w))
    V.sum(layer(ids) * w).backward()
    np.testing.assert_allclose(layer.W.grad.data, expected)
    assert_param_grads_match(layer, lambda: V.sum(V.tanh(layer(ids)) * w))


def test_embed_id_dtype_and_errors(on_device):
    assert L.EmbedID(3, 2).W.dtype == np.float64
    assert L.EmbedID(3, 2, dtype=np.float32)(on_device(np.array([0, 1]))).dtype == np.float32
    with pytest.raises(ValueError, match="EmbedID: in_size must be a positive int"):
        L.EmbedID(0, 2)
    with pytest.raises(ValueError, match="embed_id"):   # (on a device: raised at the read)
        float(V.sum(L.EmbedID(3, 2)(on_device(np.array([3])))))


@pytest.mark.parametrize("padding_idx", [0, 3, -1])
def test_embed_id_padding_row_starts_at_zero_and_gets_no_gradient(padding_idx, rng, on_device):
    layer = L.EmbedID(6, 4, padding_idx=padding_idx)
    row = padding_idx % 6
    assert layer.padding_idx == row and not to_cpu(layer.W.data)[row].any()
    layer.W.data[row] = 0.5                       # (a loaded padding row comes out as it is)
    ids = rng.integers(0, 6, (3, 5))
    ids[0, :2] = row
    y = layer(on_device(ids))
    np.testing.assert_array_equal(to_cpu(y.data), to_cpu(layer.W.data)[ids])
    w = rng.standard_normal(y.shape)
    V.sum(y * on_device(w)).backward()
    expected = np.zeros((6, 4))
    np.add.at(expected, ids, w)
    expected[row] = 0
    np.testing.assert_allclose(to_cpu(layer.W.grad.data), expected, rtol=1e-14)
    assert repr(layer).splitlines()[1] == f"  padding_idx={row}"


def test_embed_id_padding_idx_refusals():
    with pytest.raises(TypeError, match=r"EmbedID: the third argument is the dtype, got 0; PyTorch's "
                                        r"padding_idx goes by name here: L\.EmbedID\(10, 4, padding_idx=0\)"):
        L.EmbedID(10, 4, 0)
    with pytest.raises(ValueError, match=r"EmbedID: padding_idx=10 is not an id of the table of in_size=10"):
        L.EmbedID(10, 4, padding_idx=10)
    with pytest.raises(TypeError, match=r"EmbedID: padding_idx must be an int, got float"):
        L.EmbedID(10, 4, padding_idx=1.0)


def _renormed_by_hand(W, ids, max_norm, p):
    """W after PyTorch's max_norm renorm of the rows `ids` pick, one row at a time."""
    W = W.copy()
    for row in sorted(set(np.asarray(ids).ravel().tolist())):
        magnitudes = [abs(v) for v in W[row]]
        norm = max(magnitudes) if p == np.inf else sum(m ** p for m in magnitudes) ** (1 / p)
        if norm > max_norm:
            W[row] = W[row] * (max_norm / (norm + 1e-7))
    return W


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, np.inf])
def test_embed_id_max_norm_rescales_the_looked_up_rows_in_place(p, rng, on_device):
    layer = L.EmbedID(8, 3, max_norm=1.5, norm_type=p)
    W0 = to_cpu(layer.W.data).copy()
    ids = np.array([[0, 5, 5], [2, 7, 0]])
    y = layer(on_device(ids))
    expected = _renormed_by_hand(W0, ids, 1.5, p)
    np.testing.assert_allclose(to_cpu(layer.W.data), expected, rtol=1e-13)   # rows 1, 3, 4, 6 untouched
    np.testing.assert_allclose(to_cpu(y.data), expected[ids], rtol=1e-13)
    w = rng.standard_normal(y.shape)
    V.sum(y * on_device(w)).backward()         # no gradient through the rescaling, as PyTorch's
    scattered = np.zeros((8, 3))
    np.add.at(scattered, ids, w)
    np.testing.assert_allclose(to_cpu(layer.W.grad.data), scattered, rtol=1e-14)
    before = to_cpu(layer.W.data).copy()
    layer(on_device(ids))                      # a row at max_norm stays there
    np.testing.assert_array_equal(to_cpu(layer.W.data), before)
    assert repr(layer).splitlines()[1] == ("  max_norm=1.5" if p == 2.0 else f"  max_norm=1.5, norm_type={p}")


def test_embed_id_max_norm_keeps_the_graph_and_the_gradient_of_earlier_lookups(on_device):
    layer = L.EmbedID(6, 4, max_norm=0.5)     # (rows of N(0, 1) entries: every one is over)
    layer.cleargrads()
    h = layer(on_device(np.array([0, 1])))     # a lookup per time step, as a recurrent model does
    h = V.tanh(h + layer(on_device(np.array([2, 1]))))   # rescales row 2 after the first lookup
    V.sum(h).backward()
    first = to_cpu(layer.W.grad.data).copy()
    V.sum(layer(on_device(np.array([3])))).backward()   # a second micro-batch: rescales row 3,
    grad = to_cpu(layer.W.grad.data)                     # whose gradient is 0
    np.testing.assert_allclose(grad[:3], first[:3])
    np.testing.assert_array_equal(grad[3], np.ones(4))
    O.SGD(lr=0.1).setup(layer).update()        # the accumulated gradient is current: no refusal
    norms = np.linalg.norm(to_cpu(layer.W.data)[:4] + 0.1 * grad[:4], axis=1)
    np.testing.assert_allclose(norms, 0.5, rtol=1e-6)


def test_embed_id_max_norm_refuses_a_tied_layer_recorded_before_it(rng, on_device):
    layer = L.EmbedID(6, 4, max_norm=1.0)
    h = V.Variable(on_device(rng.standard_normal((2, 4))))
    logits = h @ layer.W.T                     # reads W through a view
    y = layer(on_device(np.array([1, 2])))     # writes rows 1 and 2 of W
    with pytest.raises(ValueError, match=r"an input of MatMul2D, views memory .* written in place .*"
                                         r"W\.copy\(\)\.T"):
        V.sum(logits + V.sum(y)).backward()
    logits = h @ layer.W.copy().T              # PyTorch's clone(): the copy is not written
    y = layer(on_device(np.array([1, 2])))
    V.sum(logits + V.sum(y)).backward()
    np.testing.assert_allclose(h.grad.data, np.ones((2, 6)) @ to_cpu(layer.W.data))


def test_embed_id_max_norm_refusals():
    for bad, error, said in [(0, ValueError, "max_norm must be positive, got 0"),
                             (-1.0, ValueError, "max_norm must be positive"),
                             ("1", TypeError, "max_norm must be a number, got str"),
                             (True, TypeError, "max_norm must be a number, got bool")]:
        with pytest.raises(error, match=f"embed_id: {said}"):
            L.EmbedID(4, 2, max_norm=bad)
        with pytest.raises(error, match=f"embed_id: {said}"):
            F.embed_id(np.array([0]), np.ones((4, 2)), max_norm=bad)
    with pytest.raises(ValueError, match="embed_id: norm_type must be positive, got 0"):
        L.EmbedID(4, 2, max_norm=1.0, norm_type=0)


def test_conv3d_matches_a_direct_loop_and_the_functional_op(rng, on_device):
    layer = L.Conv3d(4, (2, 3, 2), stride=(1, 2, 1), pad=1, dilation=(2, 1, 1), groups=2)
    x = rng.standard_normal((2, 2, 4, 5, 3))
    y = layer(on_device(x))
    assert layer.W.shape == (4, 1, 2, 3, 2) and layer.in_channels == 2 and y.shape == (2, 4, 4, 3, 4)
    W, b = to_cpu(layer.W.data), to_cpu(layer.b.data)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)))
    expected = np.empty(y.shape)
    for o, p, q, r in np.ndindex(*y.shape[1:]):
        g = o // 2                                            # two filters a group, one channel each
        window = xp[:, g, p:p + 3:2, 2 * q:2 * q + 3, r:r + 2]
        expected[:, o, p, q, r] = np.einsum("nijk,ijk->n", window, W[o, 0]) + b[o]
    np.testing.assert_allclose(to_cpu(y.data), expected, rtol=1e-12, atol=1e-14)
    again = F.conv3d(on_device(x), layer.W, layer.b, (1, 2, 1), 1, (2, 1, 1), 2)
    np.testing.assert_array_equal(to_cpu(y.data), to_cpu(again.data))
    w = on_device(rng.standard_normal(y.shape))
    assert_param_grads_match(layer, lambda: V.sum(layer(on_device(x)) * w))
    big = L.Conv3d(32, 3, in_channels=16)
    np.testing.assert_allclose(to_cpu(big.W.data).std(), np.sqrt(1 / (16 * 27)), rtol=0.03)
    assert repr(layer).splitlines()[1] == "  stride=(1, 2, 1), pad=(1, 1, 1), dilation=(2, 1, 1), groups=2"


def test_conv3d_refusals_name_the_layout_and_the_order(on_device):
    with pytest.raises(ValueError, match=r"Conv3d: input must be 5-D \(batch, channels, depth, height, "
                                         r"width\), got shape \(2, 3, 8, 8\)"):
        L.Conv3d(8, 3)(on_device(np.ones((2, 3, 8, 8))))
    with pytest.raises(ValueError, match=r"Conv3d: input of shape \(2, 16, 16, 16, 1\) looks channels-last.*"
                                         r"x\.transpose\(0, 4, 1, 2, 3\)"):
        L.Conv3d(8, 3)(on_device(np.ones((2, 16, 16, 16, 1))))
    with pytest.raises(ValueError, match=r"for PyTorch's nn\.Conv3d\(3, 8, 3\) write L\.Conv3d\(8, 3, "
                                         r"in_channels=3\)"):
        L.Conv3d(3, 8, 3)(on_device(np.ones((1, 3, 16, 16, 16))))
    with pytest.raises(TypeError, match=r"Conv3d: kernel_size must be an int or a triple of ints, "
                                        r"got \(3, 3\)"):
        L.Conv3d(8, (3, 3))


def test_deconv2d_dilated_and_grouped_is_the_adjoint_of_conv2d(rng, on_device):
    """<conv2d(y, W), x> = <y, deconv2d(x, W)> with the same stride, pad, dilation and groups:
    the layer's W (in, out / groups, kh, kw) is the very W conv2d takes from out to in."""
    layer = L.Deconv2d(6, 3, stride=2, pad=1, dilation=2, groups=2)
    x = on_device(rng.standard_normal((2, 4, 4, 3)))
    y = layer(x)
    assert layer.W.shape == (4, 3, 3, 3) and y.shape == (2, 6, 9, 7)
    probe = on_device(rng.standard_normal(y.shape))
    back = F.conv2d(probe, layer.W, stride=2, pad=1, dilation=2, groups=2)
    assert back.shape == x.shape
    lhs = float(V.sum(back * x).data)
    rhs = float(V.sum(probe * (y - V.reshape(layer.b, (1, 6, 1, 1)))).data)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)
    assert repr(layer).splitlines()[1] == "  stride=(2, 2), pad=(1, 1), dilation=(2, 2), groups=2"
    wider = layer(x, outsize=(10, 8))          # dilation 2 > stride: PyTorch's output_padding up to 1
    assert wider.shape == (2, 6, 10, 8)


@pytest.mark.parametrize("dims", [1, 3])
def test_deconv1d_and_deconv3d_are_the_adjoints_of_conv1d_and_conv3d(dims, rng, on_device):
    """<conv(y, W), x> = <y, deconv(x, W)> with the same stride, pad, dilation and groups, and
    the layers' W (in, out / groups, *kernel) the very W the convolution takes from out to in."""
    Deconv, conv = (L.Deconv1d, F.conv1d) if dims == 1 else (L.Deconv3d, F.conv3d)
    size = (5,) if dims == 1 else (3, 2, 3)
    layer = Deconv(6, 3, stride=2, pad=1, dilation=2 if dims == 1 else 1, groups=2)
    x = on_device(rng.standard_normal((2, 4, *size)))
    y = layer(x)
    assert layer.W.shape == (4, 3) + (3,) * dims and layer.in_channels == 4
    probe = on_device(rng.standard_normal(y.shape))
    back = conv(probe, layer.W, stride=2, pad=1, dilation=2 if dims == 1 else 1, groups=2)
    assert back.shape == x.shape
    lhs = float(V.sum(back * x).data)
    rhs = float(V.sum(probe * (y - V.reshape(layer.b, (1, 6) + (1,) * dims))).data)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)
    np.testing.assert_array_equal(
        layer(x).data, (F.deconv1d if dims == 1 else F.deconv3d)(
            x, layer.W, layer.b, stride=2, pad=1, dilation=2 if dims == 1 else 1, groups=2).data)


def test_deconv1d_and_deconv3d_undo_shapes_and_train(rng, on_device):
    x = on_device(rng.standard_normal((1, 2, 9)))
    h = L.Conv1d(3, 3, stride=2, pad=1)(x)                       # (1, 3, 5)
    up = L.Deconv1d(2, 3, stride=2, pad=1)
    assert up(h).shape == (1, 2, 9) and up(h, outsize=10).shape == (1, 2, 10)
    with pytest.raises(ValueError, match=r"deconv1d: outsize 11 does not fit x of shape \(1, 3, 5\) with "
                                         r"kernel 3, stride 2 and pad 1: conv1d would not take an input "
                                         r"of that size back to 5; outsize must be between 9 and 10"):
        up(h, outsize=11)
    volume = on_device(rng.standard_normal((1, 2, 5, 4, 3)))
    up3 = L.Deconv3d(2, (3, 2, 1), stride=(2, 2, 1), pad=(1, 0, 0))
    h3 = L.Conv3d(3, (3, 2, 1), stride=(2, 2, 1), pad=(1, 0, 0))(volume)
    assert up3(h3, outsize=(5, 4, 3)).shape == volume.shape
    w = on_device(rng.standard_normal(up3(h3).shape))
    assert_param_grads_match(up3, lambda: V.sum(up3(h3) * w))
    assert_param_grads_match(up, lambda: V.sum(V.tanh(up(h))))


def test_deconv1d_and_deconv3d_errors(on_device):
    with pytest.raises(ValueError, match=r"Deconv1d: input must be 3-D \(batch, channels, length\)"):
        L.Deconv1d(2, 3)(on_device(np.ones((1, 3, 4, 4))))
    with pytest.raises(TypeError, match=r"Deconv1d: kernel_size must be an int"):
        L.Deconv1d(2, (1, 3))
    with pytest.raises(TypeError, match=r"Deconv1d: pad must be an int"):
        L.Deconv1d(2, 3, pad=(1, 1))
    with pytest.raises(ValueError, match=r"Deconv3d: input must be 5-D \(batch, channels, depth, height, "
                                         r"width\)"):
        L.Deconv3d(2, 3)(on_device(np.ones((1, 3, 4, 4))))
    with pytest.raises(TypeError, match=r"Deconv3d: kernel_size must be an int or a triple of ints"):
        L.Deconv3d(2, (3, 3))
    with pytest.raises(ValueError, match=r"Deconv3d: input of shape \(1, 16, 16, 6, 3\) looks channels-last"):
        L.Deconv3d(2, 3)(on_device(np.ones((1, 16, 16, 6, 3))))
    with pytest.raises(AttributeError, match=r"ConvTranspose1d.*L\.Deconv1d\(out_channels, kernel_size"):
        L.ConvTranspose1d  # noqa: B018
