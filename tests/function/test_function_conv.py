"""im2col/col2im, conv2d and pooling: adjointness, padding semantics, ties, errors.

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
    (lambda: F.pooling(np.ones((1, 1, 4, 4)), 2, pad=2), ValueError,
     r"pooling: pad \(2, 2\) must be smaller than kernel_size \(2, 2\)"),
    (lambda: F.average_pooling(np.ones((1, 4, 4)), 2), ValueError, "average_pooling: x must be 4-d"),
])
def test_bad_arguments_raise_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
