"""Max and average pooling of images, sequences and volumes: a max or mean over the windows
that im2col copies out (function/conv.py), so each is differentiable to any order."""

import functools
import math

import numpy as np

import variable as V
from variable import Function, Variable
from variable.backend import get_array_module

from .activation import ArrayLike, as_float, true_or_false
from .conv import Im2col, Size, _check_fits_1d, _geometry, _output_size, single_int


def _ceil_extra(size, kernel, stride, pad):
    """Rows past the far padding that ceil_mode's last window reaches (PyTorch's rule: one more
    window where the stride leaves rows uncovered, unless it would start in the far padding)."""
    out = -(-(size + 2 * pad - kernel) // stride) + 1
    if (out - 1) * stride >= size + pad:
        out -= 1
    return max(0, (out - 1) * stride + kernel - (size + 2 * pad))


def _pool_geometry(x, kernel_size, stride, pad, op):
    """Checked float `x` as images, (kernel, stride, pad) pairs and whether it came as (N, C, L)
    sequences (pooled as images one row high)."""
    x = as_float(x, op)
    if x.ndim == 3:
        k, s, p = (single_int(v, op, name, least) for v, name, least in
                   ((kernel_size, "kernel_size", 1), (stride, "stride", 1), (pad, "pad", 0)))
        if p >= k:
            raise ValueError(f"{op}: pad {p} must be smaller than kernel_size {k}")
        _check_fits_1d(k, p, x.shape, op)
        return V.expand_dims(x, 2), (1, k), (1, s), (0, p), True
    if x.ndim not in (4, 5):
        raise ValueError(f"{op}: x must be images (N, C, H, W), sequences (N, C, L) or volumes "
                         f"(N, C, D, H, W), got shape {x.shape}")
    kernel, stride, pad, _ = _geometry(x.shape, kernel_size, stride, pad, op, (1,) * (x.ndim - 2))
    if any(p >= k for p, k in zip(pad, kernel)):
        raise ValueError(f"{op}: pad {pad} must be smaller than kernel_size {kernel}")
    return x, kernel, stride, pad, False


def _windows(x, kernel, stride, pad, extra, pad_value):
    """Columns (N, C, KH*KW, OH, OW) of images `x` (or (N, C, KD*KH*KW, OD, OH, OW) of volumes)
    padded by `pad` on both sides and `extra` more on the far ones (ceil_mode), with `pad_value`."""
    if any(extra):
        x = V.pad(x, ((0, 0), (0, 0)) + tuple((0, e) for e in extra), constant_values=pad_value)
    out = tuple(_output_size(x.shape[2 + d], kernel[d], stride[d], pad[d]) for d in range(len(kernel)))
    col = Function(Im2col(kernel, stride, pad, out, pad_value))(x)
    return V.reshape(col, x.shape[:2] + (math.prod(kernel),) + out)


def _pool(x, kernel_size, stride, pad, ceil_mode, op, reduce):
    """`reduce(x, kernel, stride, pad, extra)` of images (sequences as images one row high, `extra`
    ceil_mode's rows and columns past the padding), as (N, C, OH, OW) or (N, C, OL)."""
    ceil_mode = true_or_false(ceil_mode, op, "ceil_mode")
    x, kernel, stride, pad, sequences = _pool_geometry(x, kernel_size, stride, pad, op)
    extra = tuple(_ceil_extra(x.shape[2 + d], kernel[d], stride[d], pad[d]) if ceil_mode else 0
                  for d in range(len(kernel)))
    y = reduce(x, kernel, stride, pad, extra)
    return V.squeeze(y, axis=2) if sequences else y


def _window_counts(size, kernel, stride, pad, extra, count_include_pad):
    """How many entries each window along an axis averages: those inside the padded input
    (count_include_pad, PyTorch's default) or inside the input; never ceil_mode's extra."""
    inside = np.zeros(size + 2 * pad + extra)
    inside[slice(0, size + 2 * pad) if count_include_pad else slice(pad, pad + size)] = 1
    out = (size + 2 * pad + extra - kernel) // stride + 1
    return np.array([inside[o * stride:o * stride + kernel].sum() for o in range(out)])


def pooling(x: ArrayLike, kernel_size: Size, stride: Size = 1, pad: Size = 0,
            ceil_mode: bool = False) -> Variable:
    """Max pooling of NCHW images (or of (N, C, L) sequences) over kernel-sized windows;
    padding never wins the max.

    Padding counts as -inf (as in PyTorch); tied maxima share the gradient evenly.

    Parameters
    ----------
    x : Variable or ndarray
        Images of shape (N, C, H, W), sequences (N, C, L) (PyTorch's max_pool1d) or volumes
        (N, C, D, H, W) (max_pool3d).
    kernel_size, stride, pad : int or pair of ints
        Window size, step and padding (pad < kernel_size), as (height, width); ints for
        sequences, triples for volumes.
    ceil_mode : bool
        Round the output size up, as PyTorch's ceil_mode: a last window that runs past the
        padding where the stride leaves rows (columns) uncovered.

    Returns
    -------
    Variable of shape (N, C, OH, OW) (or (N, C, OL), (N, C, OD, OH, OW)).

    Raises
    ------
    ValueError
        If `x` is not 3-d, 4-d or 5-d, a size is out of range, pad >= kernel_size or the window
        does not fit.
    """
    def reduce(x, kernel, stride, pad, extra):
        return V.max(_windows(x, kernel, stride, pad, extra, -np.inf), axis=2)
    return _pool(x, kernel_size, stride, pad, ceil_mode, "pooling", reduce)


def average_pooling(x: ArrayLike, kernel_size: Size, stride: Size = 1, pad: Size = 0, ceil_mode: bool = False,
                    count_include_pad: bool = True) -> Variable:
    """Average pooling of NCHW images (or of (N, C, L) sequences); zero padding is counted in
    every mean unless `count_include_pad` is False.

    Parameters
    ----------
    x : Variable or ndarray
        Images of shape (N, C, H, W), sequences (N, C, L) (PyTorch's avg_pool1d) or volumes
        (N, C, D, H, W) (avg_pool3d).
    kernel_size, stride, pad : int or pair of ints
        Window size, step and zero padding (pad < kernel_size), as (height, width); ints for
        sequences, triples for volumes.
    ceil_mode : bool
        Round the output size up, as pooling's; the entries past the padding are never counted.
    count_include_pad : bool
        Count the padding in each mean (PyTorch's default); False averages over the input's
        entries alone.

    Returns
    -------
    Variable of shape (N, C, OH, OW) (or (N, C, OL), (N, C, OD, OH, OW)).

    Raises
    ------
    ValueError
        If `x` is not 3-d, 4-d or 5-d, a size is out of range, pad >= kernel_size or the window
        does not fit.
    """
    op = "average_pooling"
    count_include_pad = true_or_false(count_include_pad, op, "count_include_pad")

    def reduce(x, kernel, stride, pad, extra):
        col = _windows(x, kernel, stride, pad, extra, 0.0)
        if not any(extra) and count_include_pad:
            return V.mean(col, axis=2)
        counts = functools.reduce(np.multiply.outer, (
            _window_counts(x.shape[2 + d], kernel[d], stride[d], pad[d], extra[d], count_include_pad)
            for d in range(len(kernel))))
        counts = get_array_module(x._data).asarray(counts.astype(x.dtype))
        return V.sum(col, axis=2) / counts
    return _pool(x, kernel_size, stride, pad, ceil_mode, op, reduce)


__all__ = ["pooling", "average_pooling"]
