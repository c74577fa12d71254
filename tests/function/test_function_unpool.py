"""F.pooling(..., return_indices=True) and F.max_unpool2d: where each maximum lies, found by a
direct search, and the values put back there; against torch's where PyTorch is installed."""

import importlib.util
import itertools

import numpy as np
import pytest

import function as F
import variable as V


def _first_maxima(x, k, s, p):
    """Flat indices of the first maximum of each window, by scanning every window."""
    n, c, h, w = x.shape
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    out = np.zeros((n, c, oh, ow), np.int64)
    for i, j, a, b in np.ndindex(n, c, oh, ow):
        best, where = -np.inf, -1
        for di, dj in np.ndindex(k, k):
            r, q = a * s + di - p, b * s + dj - p
            if 0 <= r < h and 0 <= q < w and x[i, j, r, q] > best:
                best, where = x[i, j, r, q], r * w + q
        out[i, j, a, b] = where
    return out


@pytest.mark.parametrize("k, s, p", [(2, 2, 0), (3, 2, 1), (3, 1, 1), (2, 1, 0)])
def test_indices_are_the_first_maximum_of_each_window(k, s, p):
    x = np.random.default_rng(k * 10 + s).integers(0, 4, (2, 3, 6, 5)).astype(float)   # many ties
    y, indices = F.pooling(x, k, s, p, return_indices=True)
    assert indices.dtype == np.int64 and indices.shape == y.shape
    np.testing.assert_array_equal(indices, _first_maxima(x, k, s, p))
    np.testing.assert_array_equal(y.data, np.take_along_axis(x.reshape(2, 3, -1), indices.reshape(2, 3, -1),
                                                             axis=2).reshape(y.shape))


def test_unpooling_puts_the_maxima_back_and_is_linear():
    x = np.random.default_rng(0).standard_normal((2, 2, 6, 4))
    y, indices = F.pooling(x, 2, 2, return_indices=True)
    back = F.max_unpool2d(y, indices, 2)
    assert back.shape == x.shape
    kept = back.data != 0
    np.testing.assert_array_equal(back.data[kept], x[kept])
    assert kept.sum() == y.size                            # one entry per window
    yv = V.Variable(y.data)
    assert V.gradcheck(lambda v: V.sin(F.max_unpool2d(v, indices, 2)), y.data, order=2)
    g = V.grad(V.sum(F.max_unpool2d(yv, indices, 2) * x), yv)
    np.testing.assert_array_equal(g.data, y.data)          # the adjoint picks the maxima back


def test_slips_are_refused():
    y, indices = F.pooling(np.ones((1, 1, 4, 4)), 2, 2, return_indices=True)
    with pytest.raises(ValueError, match=r"max_unpool2d: index 15 lies outside the output's 3x3 entries "
                                         r"\(give outsize: the size of the pooled input\)"):
        F.max_unpool2d(y, indices + 15, 2, outsize=3)
    with pytest.raises(TypeError, match=r"max_unpool2d: indices must be integers"):
        F.max_unpool2d(y, indices * 1.0, 2)
    with pytest.raises(ValueError, match=r"max_unpool2d: indices of shape \(1, 1, 2\) must have x's shape"):
        F.max_unpool2d(y, indices[..., 0], 2)
    with pytest.raises(TypeError, match=r"pooling: return_indices must be True or False"):
        F.pooling(np.ones((1, 1, 4, 4)), 2, 2, return_indices="yes")


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_indices_and_unpooling_agree_with_torch():
    import torch

    rng = np.random.default_rng(1)
    for k, s, p, ceil in itertools.product((2, 3), (1, 2, 3), (0, 1), (False, True)):
        if p >= k:
            continue
        x = rng.standard_normal((2, 3, 7, 6))
        y, indices = F.pooling(x, k, s, p, ceil_mode=ceil, return_indices=True)
        want, want_indices = torch.nn.functional.max_pool2d(torch.tensor(x), k, s, p, ceil_mode=ceil,
                                                            return_indices=True)
        np.testing.assert_array_equal(indices, want_indices.numpy())
        if s >= k:
            np.testing.assert_array_equal(
                F.max_unpool2d(y, indices, k, s, p, outsize=(7, 6)).data,
                torch.nn.functional.max_unpool2d(want, want_indices, k, s, p, output_size=(7, 6)).numpy())


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_dilated_pooling_agrees_with_torch():
    import torch

    rng = np.random.default_rng(2)
    for k, s, p, d, ceil in itertools.product((2, 3), (1, 2), (0, 1), ((2, 1), (3, 2)), (False, True)):
        x = rng.standard_normal((2, 2, 8, 7))
        xv = V.Variable(x)
        y, indices = F.pooling(xv, k, s, p, ceil_mode=ceil, return_indices=True, dilation=d)
        xt = torch.tensor(x, requires_grad=True)
        want, want_indices = torch.nn.functional.max_pool2d(xt, k, s, p, d, ceil_mode=ceil,
                                                            return_indices=True)
        np.testing.assert_array_equal(indices, want_indices.numpy())
        np.testing.assert_array_equal(y.data, want.detach().numpy())
        u = rng.standard_normal(y.shape)
        V.sum(y * u).backward()
        (want * torch.tensor(u)).sum().backward()
        np.testing.assert_allclose(xv.grad.data, xt.grad.numpy(), rtol=1e-14, atol=1e-15)
