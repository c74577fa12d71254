"""im2col/col2im, conv2d, deconv2d and pooling: adjointness, padding semantics, ties, errors.

The table test checks each of them against a direct NumPy loop and gradcheck; here are
the properties that make them correct by construction.
"""

import numpy as np
import pytest

import function as F
import variable as V

GEOMETRIES = [  # x shape, kernel, stride, pad
    ((2, 3, 5, 5), 3, 1, 0),
    ((1, 2, 6, 5), (2, 3), (2, 1), (1, 2)),
    ((2, 1, 4, 4), 2, 3, 1),          # stride larger than the kernel: some pixels unused
    ((1, 1, 3, 7), (3, 1), 2, (0, 1)),
]


@pytest.mark.parametrize("shape, k, s, p", GEOMETRIES)
def test_im2col_and_col2im_are_adjoint(shape, k, s, p, rng):
    x = rng.standard_normal(shape)
    col = F.im2col(x, k, s, p)
    c = rng.standard_normal(col.shape)
    back = F.col2im(c, shape, k, s, p)
    assert back.shape == shape
    np.testing.assert_allclose(np.vdot(col.data, c), np.vdot(x, back.data), rtol=1e-12)


@pytest.mark.parametrize("shape, k, s, p", GEOMETRIES)
def test_im2col_and_col2im_are_each_others_backward(shape, k, s, p, rng):
    x = V.Variable(rng.standard_normal(shape))
    col = F.im2col(x, k, s, p)
    gcol = V.Variable(rng.standard_normal(col.shape))          # a Variable: the graph is kept
    gx = V.grad(col, x, grad_outputs=gcol, create_graph=True)
    assert gx.creator.name == "Col2im"
    np.testing.assert_array_equal(gx.data, F.col2im(gcol.data, shape, k, s, p).data)
    c = V.Variable(rng.standard_normal(col.shape))
    image = F.col2im(c, shape, k, s, p)
    gimage = V.Variable(rng.standard_normal(shape))
    gc = V.grad(image, c, grad_outputs=gimage, create_graph=True)
    assert gc.creator.name == "Im2col"
    np.testing.assert_array_equal(gc.data, F.im2col(gimage.data, k, s, p).data)
    assert V.gradcheck(lambda c: F.col2im(c, shape, k, s, p), c.data, order=2)


def test_im2col_output_shape_follows_the_formula():
    col = F.im2col(np.zeros((2, 3, 7, 9)), (3, 2), (2, 3), (1, 0))
    assert col.shape == (2, 3, 3, 2, (7 + 2 - 3) // 2 + 1, (9 - 2) // 3 + 1)


def test_conv2d_of_a_delta_filter_copies_the_input(rng):
    x = rng.standard_normal((2, 3, 4, 4))
    W = np.zeros((3, 3, 3, 3))
    for c in range(3):
        W[c, c, 1, 1] = 1.0                            # centre tap: identity with pad 1
    np.testing.assert_allclose(F.conv2d(x, W, pad=1).data, x)


def test_conv2d_is_a_composition_through_im2col(rng):
    x, W = V.Variable(rng.standard_normal((1, 2, 4, 4))), V.Variable(rng.standard_normal((3, 2, 2, 2)))
    y = F.conv2d(x, W)
    names = set()
    stack = [y.creator]
    while stack:
        f = stack.pop()
        names.add(f.name)
        stack.extend(v.creator for v in f.inputs if v.creator is not None)
    assert "Im2col" in names
    assert y.shape == (1, 3, 3, 3)


def test_conv2d_gradients_for_float32_stay_float32(rng):
    x = V.Variable(rng.standard_normal((2, 2, 5, 5)).astype(np.float32))
    W = V.Variable(rng.standard_normal((4, 2, 3, 3)).astype(np.float32))
    b = V.Variable(np.zeros(4, np.float32))
    y = F.conv2d(x, W, b, stride=2, pad=1)
    gx, gW, gb = V.grad(y, [x, W, b])
    assert y.dtype == gx.dtype == gW.dtype == gb.dtype == np.float32
    np.testing.assert_allclose(gb.data, y.shape[0] * y.shape[2] * y.shape[3])


def deconv2d_by_loops(x, W, b, stride, pad, outsize=None):
    """Transposed convolution one scalar at a time: pixel (p, q) adds W[c, o] at (p S + i, q S + j)."""
    n, c, h, w = x.shape
    _, oc, kh, kw = W.shape
    oh, ow = outsize or (stride * (h - 1) + kh - 2 * pad, stride * (w - 1) + kw - 2 * pad)
    y = np.zeros((n, oc, oh, ow))
    for m, ci, p, q, o, i, j in np.ndindex(n, c, h, w, oc, kh, kw):
        r, s = p * stride + i - pad, q * stride + j - pad       # position in the unpadded output
        if 0 <= r < oh and 0 <= s < ow:
            y[m, o, r, s] += x[m, ci, p, q] * W[ci, o, i, j]
    return y + b[None, :, None, None]


DECONV_CASES = [(s, p) for s in (1, 2) for p in (0, 1)]   # stride, pad


@pytest.mark.parametrize("stride, pad", DECONV_CASES)
def test_deconv2d_matches_a_scalar_loop(stride, pad, rng):
    x, W, b = rng.standard_normal((2, 3, 3, 4)), rng.standard_normal((3, 2, 3, 2)), rng.standard_normal(2)
    y = F.deconv2d(x, W, b, stride=stride, pad=pad)
    assert y.shape == (2, 2, stride * 2 + 3 - 2 * pad, stride * 3 + 2 - 2 * pad)
    np.testing.assert_allclose(y.data, deconv2d_by_loops(x, W, b, stride, pad), rtol=1e-12, atol=1e-12)


def test_deconv2d_outsize_adds_rows_that_only_the_bias_reaches(rng):
    x, W, b = rng.standard_normal((1, 2, 3, 3)), rng.standard_normal((2, 1, 3, 3)), rng.standard_normal(1)
    y = F.deconv2d(x, W, b, stride=2, outsize=(8, 7))              # default would be (7, 7)
    np.testing.assert_allclose(y.data, deconv2d_by_loops(x, W, b, 2, 0, (8, 7)), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(y.data[0, 0, 7], b[0])              # the extra row gets only the bias
    assert F.conv2d(y, W, stride=2).shape == x.shape                # conv2d takes (8, 7) back to (3, 3)


@pytest.mark.parametrize("shape, k, s, p", GEOMETRIES)
def test_deconv2d_is_the_adjoint_of_conv2d(shape, k, s, p, rng):
    kh, kw = (k, k) if isinstance(k, int) else k
    y = rng.standard_normal(shape)                                  # conv2d's input
    W = rng.standard_normal((4, shape[1], kh, kw))       # conv2d (OC, C, ..) = deconv2d (C, OC, ..)
    conv = F.conv2d(y, W, stride=s, pad=p)
    x = rng.standard_normal(conv.shape)
    back = F.deconv2d(x, W, stride=s, pad=p, outsize=shape[2:])
    assert back.shape == shape
    np.testing.assert_allclose(np.vdot(conv.data, x), np.vdot(y, back.data), rtol=1e-12)


def test_deconv2d_is_the_gradient_of_conv2d_with_respect_to_its_input(rng):
    y, W = V.Variable(rng.standard_normal((2, 3, 5, 5))), rng.standard_normal((2, 3, 3, 3))
    conv = F.conv2d(y, W, stride=2, pad=1)
    g = rng.standard_normal(conv.shape)
    gy = V.grad(conv, y, grad_outputs=g)
    np.testing.assert_allclose(gy.data, F.deconv2d(g, W, stride=2, pad=1).data, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("stride, pad", DECONV_CASES)
def test_deconv2d_gradcheck_to_second_order(stride, pad, rng):
    x, W, b = rng.standard_normal((2, 2, 2, 3)), rng.standard_normal((2, 3, 2, 3)), rng.standard_normal(3)
    assert V.gradcheck(lambda x, W, b: F.deconv2d(x, W, b, stride=stride, pad=pad), x, W, b, order=2)


def test_deconv2d_third_order_through_a_nonlinearity(rng):
    x, W = rng.standard_normal((1, 2, 2, 2)), rng.standard_normal((2, 1, 2, 2))
    assert V.gradcheck(lambda x, W: V.tanh(F.deconv2d(x, W, stride=2, pad=1)), x, W, order=3)


def test_deconv2d_is_a_composition_through_col2im(rng):
    x, W = V.Variable(rng.standard_normal((1, 2, 3, 3))), V.Variable(rng.standard_normal((2, 3, 2, 2)))
    y = F.deconv2d(x, W)
    assert y.creator.name == "Col2im" and y.shape == (1, 3, 4, 4)
    gx = V.grad(V.sum(y * y), x, create_graph=True)                # and its backward records a graph
    assert gx.creator is not None


def test_deconv2d_float32_stays_float32_and_empty_batches_work(rng):
    x = V.Variable(rng.standard_normal((2, 2, 3, 3)).astype(np.float32))
    W = V.Variable(rng.standard_normal((2, 4, 3, 3)).astype(np.float32))
    b = V.Variable(np.zeros(4, np.float32))
    y = F.deconv2d(x, W, b, stride=2, pad=1)
    gx, gW, gb = V.grad(y, [x, W, b])
    assert y.dtype == gx.dtype == gW.dtype == gb.dtype == np.float32
    assert F.deconv2d(np.zeros((0, 2, 3, 3)), W.data).shape == (0, 4, 5, 5)


def test_max_pooling_never_picks_the_padding():
    x = -np.arange(1.0, 17.0).reshape(1, 1, 4, 4)     # all negative: zero padding would win
    y = F.pooling(x, 2, stride=2, pad=1)
    np.testing.assert_array_equal(y.data[0, 0], [[-1, -2, -4], [-5, -6, -8], [-13, -14, -16]])


def test_average_pooling_counts_the_zero_padding():
    y = F.average_pooling(np.ones((1, 1, 2, 2)), 2, stride=1, pad=1)
    np.testing.assert_allclose(y.data[0, 0], [[0.25, 0.5, 0.25], [0.5, 1, 0.5], [0.25, 0.5, 0.25]])


def test_max_pooling_ties_share_the_gradient():
    x = V.Variable(np.ones((1, 1, 2, 2)))
    g = V.grad(F.pooling(x, 2), x)
    np.testing.assert_allclose(g.data, 0.25)


def test_max_pooling_routes_the_gradient_to_each_windows_maximum(rng):
    x = V.Variable(rng.permutation(16).reshape(1, 1, 4, 4).astype(float))
    g = V.grad(F.pooling(x, 2, 2), x)
    windows = x.data.reshape(2, 2, 2, 2).transpose(0, 2, 1, 3).reshape(4, 4)
    is_max = windows == windows.max(axis=1, keepdims=True)
    expected = is_max.reshape(2, 2, 2, 2).transpose(0, 2, 1, 3).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(g.data, expected)


@pytest.mark.parametrize("call, error, match", [
    (lambda: F.im2col(np.ones((2, 3, 4)), 2), ValueError, r"im2col: x must be 4-d \(N, C, H, W\)"),
    (lambda: F.im2col(np.ones((1, 1, 3, 3)), 4), ValueError, "im2col: kernel \\(4, 4\\) does not fit"),
    (lambda: F.im2col(np.ones((1, 1, 3, 3)), 2, stride=0), ValueError, "im2col: stride must be >= 1"),
    (lambda: F.im2col(np.ones((1, 1, 3, 3)), 2, pad=-1), ValueError, "im2col: pad must be >= 0"),
    (lambda: F.im2col(np.ones((1, 1, 3, 3)), 1.5), TypeError, "im2col: kernel_size must be an int"),
    (lambda: F.im2col(np.ones((1, 1, 3, 3)), (1, 2, 3)), TypeError, "kernel_size must be an int or a pair"),
    (lambda: F.im2col(np.ones((1, 1, 3, 3)), 2, stride=True), TypeError, "stride must be an int"),
    (lambda: F.col2im(np.ones((1, 1, 2, 2, 3, 3)), (1, 1, 3, 3), 2), ValueError,
     r"col2im: columns of shape \(1, 1, 2, 2, 3, 3\) do not fit images \(1, 1, 3, 3\)"),
    (lambda: F.col2im(np.ones((1, 1, 2, 2, 2, 2)), 3, 2), TypeError, "col2im: x_shape must be a tuple"),
    (lambda: F.col2im(np.ones((1, 1, 2, 2, 2, 2)), (3, 3), 2), ValueError, "col2im: x must be 4-d"),
    (lambda: F.conv2d(np.ones((1, 2, 4, 4)), np.ones((3, 1, 2, 2))), ValueError,
     r"conv2d: x of shape \(1, 2, 4, 4\) does not match W of shape \(3, 1, 2, 2\)"),
    (lambda: F.conv2d(np.ones((1, 2, 4, 4)), np.ones((3, 2, 2))), ValueError, "conv2d: W must be 4-d"),
    (lambda: F.conv2d(np.ones((1, 2, 4, 4)), np.ones((3, 2, 2, 2)), np.ones(2)), ValueError,
     r"conv2d: b must have shape \(3,\)"),
    (lambda: F.conv2d(np.ones((1, 2, 2, 2)), np.ones((3, 2, 3, 3))), ValueError, "conv2d: kernel"),
    (lambda: F.deconv2d(np.ones((1, 2, 4, 4)), np.ones((3, 2, 2, 2))), ValueError,
     r"deconv2d: x of shape \(1, 2, 4, 4\) does not match W of shape \(3, 2, 2, 2\): .* C = W.shape\[0\]"),
    (lambda: F.deconv2d(np.ones((2, 4, 4)), np.ones((2, 3, 2, 2))), ValueError,
     r"deconv2d: x of shape \(2, 4, 4\) does not match .* must be \(N, C, H, W\)"),
    (lambda: F.deconv2d(np.ones((1, 2, 4, 4)), np.ones((2, 3, 2))), ValueError,
     r"deconv2d: W must be 4-d \(C, OC, KH, KW\), input channels first"),
    (lambda: F.deconv2d(np.ones((1, 2, 4, 4)), np.ones((2, 3, 2, 2)), np.ones(2)), ValueError,
     r"deconv2d: b must have shape \(3,\)"),
    (lambda: F.deconv2d(np.ones((1, 1, 1, 1)), np.ones((1, 1, 2, 2)), pad=1), ValueError,
     r"deconv2d: pad \(1, 1\) is too large .* the output would be \(0, 0\)"),
    (lambda: F.deconv2d(np.ones((1, 1, 3, 3)), np.ones((1, 1, 3, 3)), stride=2, outsize=(9, 7)), ValueError,
     r"deconv2d: outsize \(9, 7\) does not fit .* axis 0 of outsize must be between 7 and 8"),
    (lambda: F.deconv2d(np.ones((1, 1, 3, 3)), np.ones((1, 1, 3, 3)), outsize=(5, 6)), ValueError,
     "deconv2d: outsize .* axis 1 of outsize must be 5"),
    (lambda: F.deconv2d(np.ones((1, 1, 3, 3)), np.ones((1, 1, 3, 3)), outsize="5"), TypeError,
     "deconv2d: outsize must be an int or a pair of ints"),
    (lambda: F.deconv2d(np.ones((1, 1, 3, 3)), np.ones((1, 1, 3, 3)), stride=0), ValueError,
     "deconv2d: stride must be >= 1"),
    (lambda: F.deconv2d("x", np.ones((1, 1, 3, 3))), TypeError, "deconv2d"),
    (lambda: F.pooling(np.ones((1, 1, 4, 4)), 2, pad=2), ValueError,
     r"pooling: pad \(2, 2\) must be smaller than kernel_size \(2, 2\)"),
    (lambda: F.average_pooling(np.ones((4, 4)), 2), ValueError,
     r"average_pooling: x must be images \(N, C, H, W\), sequences \(N, C, L\) or volumes "
     r"\(N, C, D, H, W\)"),
    (lambda: F.conv1d(np.ones((1, 2, 5)), np.ones((3, 2, 2)), pad="full"), ValueError,
     r"conv1d: pad must be an int, 'same' or 'valid', got 'full'"),       # (an int: not a pair, as conv2d's)
    (lambda: F.conv3d(np.ones((1, 2, 5, 5, 5)), np.ones((3, 2, 2, 2, 2)), pad="full"), ValueError,
     r"conv3d: pad must be an int, a triple of ints, 'same' or 'valid', got 'full'"),
    (lambda: F.pooling(np.ones((1, 4, 4)), (2, 2)), TypeError,
     r"pooling: kernel_size must be an int, got \(2, 2\)"),
])
def test_bad_arguments_raise_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_im2col_to_matrix_is_the_book_s_one_window_per_row(rng):
    x = rng.standard_normal((2, 3, 5, 4))
    matrix = F.im2col(x, (3, 2), stride=1, pad=1, to_matrix=True)
    col = F.im2col(x, (3, 2), stride=1, pad=1).data
    n, c, kh, kw, oh, ow = col.shape
    assert matrix.shape == (n * oh * ow, c * kh * kw)
    # row (n, p, q) holds window (p, q) of image n, flattened over (c, i, j)
    np.testing.assert_array_equal(matrix.data[1 * oh * ow + 2 * ow + 1], col[1, :, :, :, 2, 1].reshape(-1))
    assert V.gradcheck(lambda v: F.im2col(v, (3, 2), pad=1, to_matrix=True), x[:1, :2], order=2)
    with pytest.raises(TypeError, match="im2col: to_matrix must be True or False"):
        F.im2col(x, 3, to_matrix="yes")
