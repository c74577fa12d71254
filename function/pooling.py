"""Max and average pooling of images, sequences and volumes: a max or mean over the windows
that im2col copies out (function/conv.py), so each is differentiable to any order."""

import functools
import math

import numpy as np

import variable as V
from variable import Function, Variable
from variable.backend import get_array_module, is_device_array
from variable.ops.indexing import GetItemGrad
from variable.ops.selection import _along_axis

from .activation import ArrayLike, as_float, checked_indices, true_or_false
from .conv import Im2col, Size, _check_fits_1d, _geometry, _output_size, int_pair, int_tuple, single_int


def _ceil_extra(size, kernel, stride, pad):
    """Rows past the far padding that ceil_mode's last window reaches (PyTorch's rule: one more
    window where the stride leaves rows uncovered, unless it would start in the far padding);
    `kernel`: the window's span (dilation (k - 1) + 1)."""
    out = -(-(size + 2 * pad - kernel) // stride) + 1
    if (out - 1) * stride >= size + pad:
        out -= 1
    return max(0, (out - 1) * stride + kernel - (size + 2 * pad))


def _pool_geometry(x, kernel_size, stride, pad, op, dilation=1):
    """Checked float `x` as images, (kernel, stride, pad, dilation) pairs and whether it came as
    (N, C, L) sequences (pooled as images one row high)."""
    x = as_float(x, op)
    if x.ndim == 3:
        k, s, p, d = (single_int(v, op, name, least) for v, name, least in
                      ((kernel_size, "kernel_size", 1), (stride, "stride", 1), (pad, "pad", 0),
                       (dilation, "dilation", 1)))
        if p >= k:
            raise ValueError(f"{op}: pad {p} must be smaller than kernel_size {k}")
        _check_fits_1d(k, p, x.shape, op, d)
        return V.expand_dims(x, 2), (1, k), (1, s), (0, p), (1, d), True
    if x.ndim not in (4, 5):
        raise ValueError(f"{op}: x must be images (N, C, H, W), sequences (N, C, L) or volumes "
                         f"(N, C, D, H, W), got shape {x.shape}")
    dilation = int_tuple(dilation, op, "dilation", 1, x.ndim - 2)
    kernel, stride, pad, _ = _geometry(x.shape, kernel_size, stride, pad, op, dilation)
    if any(p >= k for p, k in zip(pad, kernel)):
        raise ValueError(f"{op}: pad {pad} must be smaller than kernel_size {kernel}")
    return x, kernel, stride, pad, dilation, False


def _windows(x, kernel, stride, pad, extra, pad_value, dilation=None):
    """Columns (N, C, KH*KW, OH, OW) of images `x` (or (N, C, KD*KH*KW, OD, OH, OW) of volumes)
    padded by `pad` on both sides and `extra` more on the far ones (ceil_mode), with `pad_value`;
    a window's entries `dilation` apart."""
    dilation = dilation or (1,) * len(kernel)
    if any(extra):
        x = V.pad(x, ((0, 0), (0, 0)) + tuple((0, e) for e in extra), constant_values=pad_value)
    out = tuple(_output_size(x.shape[2 + d], kernel[d], stride[d], pad[d], dilation[d])
                for d in range(len(kernel)))
    col = Function(Im2col(kernel, stride, pad, out, pad_value, dilation))(x)
    return V.reshape(col, x.shape[:2] + (math.prod(kernel),) + out)


def _pool(x, kernel_size, stride, pad, ceil_mode, op, reduce, dilation=1):
    """`reduce(x, kernel, stride, pad, extra, dilation)` of images (sequences as images one row
    high, `extra` ceil_mode's rows and columns past the padding), as (N, C, OH, OW) or (N, C, OL)."""
    ceil_mode = true_or_false(ceil_mode, op, "ceil_mode")
    x, kernel, stride, pad, dilation, sequences = _pool_geometry(x, kernel_size, stride, pad, op,
                                                                 dilation)
    extra = tuple(_ceil_extra(x.shape[2 + d], dilation[d] * (kernel[d] - 1) + 1, stride[d], pad[d])
                  if ceil_mode else 0 for d in range(len(kernel)))
    for d, n in enumerate(x.shape[2:]):
        if dilation[d] > 1 and _padding_only(n, kernel[d], stride[d], pad[d], dilation[d], extra[d]):
            spread, padded = (dilation[1], pad[1]) if sequences else (dilation, pad)
            shape = x.shape[:2] + x.shape[3:] if sequences else x.shape
            raise ValueError(
                f"{op}: a window of kernel_size {kernel_size} spread by dilation {spread} with pad "
                f"{padded} reads only padding of x of shape {shape}: its entries fall around the input's "
                f"(its maximum would be -inf); lower the dilation or the padding")
    y = reduce(x, kernel, stride, pad, extra, dilation)
    return V.squeeze(y, axis=2) if sequences else y


def _padding_only(size, kernel, stride, pad, dilation, extra):
    """Whether some window along an axis of `size` entries has every one of its entries, `dilation`
    apart, in the padding: a dilated window can straddle a short input."""
    out = _output_size(size + extra, kernel, stride, pad, dilation)
    return any(not any(0 <= o * stride - pad + dilation * j < size for j in range(kernel))
               for o in range(out))


def _window_counts(size, kernel, stride, pad, extra, count_include_pad):
    """How many entries each window along an axis averages: those inside the padded input
    (count_include_pad, PyTorch's default) or inside the input; never ceil_mode's extra."""
    inside = np.zeros(size + 2 * pad + extra)
    inside[slice(0, size + 2 * pad) if count_include_pad else slice(pad, pad + size)] = 1
    out = (size + 2 * pad + extra - kernel) // stride + 1
    return np.array([inside[o * stride:o * stride + kernel].sum() for o in range(out)])


def _argmax_positions(x, col, kernel, stride, pad, extra, dilation):
    """Where each window's maximum lies: its flat index in the input's plane (H W entries; L,
    or D H W), as PyTorch's return_indices, from the windows `col` of `x` and of the indices."""
    xp = get_array_module(x.data)
    size = x.shape[2:]
    ids = xp.broadcast_to(xp.arange(math.prod(size), dtype=np.float64).reshape(size), x.shape)
    id_col = _windows(V.as_variable(ids), kernel, stride, pad, extra, -1.0, dilation).data   # (no graph)
    first = xp.expand_dims(col.data.argmax(axis=2), 2)           # the first maximum, as PyTorch's
    return xp.take_along_axis(id_col, first, axis=2)[:, :, 0].astype(np.int64)


def pooling(x: ArrayLike, kernel_size: Size, stride: Size = 1, pad: Size = 0,
            ceil_mode: bool = False, return_indices: bool = False, *,
            dilation: Size = 1) -> Variable | tuple:
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
    return_indices : bool
        Also return where each maximum lies (`F.max_unpool2d` puts values back there).
    dilation : int or pair of ints
        The spacing of a window's entries (PyTorch's dilation; by keyword).

    Returns
    -------
    Variable of shape (N, C, OH, OW) (or (N, C, OL), (N, C, OD, OH, OW)); with
    return_indices, (that Variable, an int64 array of its shape): each maximum's flat index
    into its channel's plane of x (h W + w; the first maximum of a window where several tie).

    Raises
    ------
    ValueError
        If `x` is not 3-d, 4-d or 5-d, a size is out of range, pad >= kernel_size, the window
        (spread by dilation) does not fit, or a dilated window would read only padding (where
        PyTorch's gives -inf).
    """
    return_indices = true_or_false(return_indices, "pooling", "return_indices")
    found = []

    def reduce(x, kernel, stride, pad, extra, dilation):
        col = _windows(x, kernel, stride, pad, extra, -np.inf, dilation)
        if return_indices:
            found.append(_argmax_positions(x, col, kernel, stride, pad, extra, dilation))
        return V.max(col, axis=2)
    y = _pool(x, kernel_size, stride, pad, ceil_mode, "pooling", reduce, dilation)
    return (y, found[0].reshape(y.shape)) if return_indices else y


def max_unpool2d(x: ArrayLike, indices: ArrayLike, kernel_size: Size, stride: Size | None = None,
                 pad: Size = 0, outsize: Size | None = None) -> Variable:
    """The inverse of max pooling where it can be (PyTorch's max_unpool2d): each entry of `x`
    put back at the position `indices` gives (`F.pooling(..., return_indices=True)`), zeros
    elsewhere.  Linear in x, differentiable to any order (the adjoint of picking the maxima).

    Parameters
    ----------
    x : Variable or ndarray
        Pooled images (N, C, H, W).
    indices : int array of x's shape
        Flat positions in each output plane (h OW + w).
    kernel_size, stride, pad : int or pair of ints
        Of the pooling undone; they give the output size (H - 1) stride - 2 pad + kernel.
        stride defaults to kernel_size, as PyTorch's (F.pooling's stride defaults to 1).
    outsize : int, pair of ints or None
        The output size (OH, OW) instead.  Give it (the pooled input's size) wherever that is
        not the default, as after a pooling that dropped rows or columns: the indices count
        positions in rows of the input's width, and in rows of another width they would land
        elsewhere (an index past the end is refused; one inside cannot be told apart).

    Returns
    -------
    Variable of shape (N, C, OH, OW).  Where two windows chose the same entry (overlapping
    windows), their values add: the adjoint of picking (PyTorch keeps one of them).

    Raises
    ------
    TypeError
        If `indices` are not integers, or a size is not an int or a pair of ints.
    ValueError
        If x is not 4-d, `indices` do not have x's shape, or an index lies outside the output
        (on a device: at the next read, as labels out of range do).
    """
    op = "max_unpool2d"
    x = as_float(x, op)
    if x.ndim != 4:
        raise ValueError(f"{op}: x must be pooled images (N, C, H, W), got shape {x.shape}")
    index = indices.data if isinstance(indices, Variable) else indices
    index = index if is_device_array(index) else np.asarray(index)
    if index.dtype.kind not in "iu":
        raise TypeError(f"{op}: indices must be integers (from F.pooling(..., return_indices=True)), "
                        f"got {index.dtype}")
    if tuple(index.shape) != x.shape:
        raise ValueError(f"{op}: indices of shape {tuple(index.shape)} must have x's shape {x.shape}")
    kernel = int_pair(kernel_size, op, "kernel_size", 1)
    stride = kernel if stride is None else int_pair(stride, op, "stride", 1)
    pad = int_pair(pad, op, "pad", 0)
    n, c, h, w = x.shape
    if outsize is None:
        out = tuple((m - 1) * s - 2 * p + k for m, s, p, k in zip((h, w), stride, pad, kernel))
        if min(out) < 1:
            raise ValueError(f"{op}: pad {pad} leaves no output for x of shape {x.shape} and kernel {kernel}")
    else:
        out = int_pair(outsize, op, "outsize", 1)
    plane = out[0] * out[1]
    flat, poison = checked_indices(index.reshape(n, c, h * w), plane, op,
                                   f"{op}: index {{value}} lies outside the output's {out[0]}x{out[1]} "
                                   f"entries (give outsize: the size of the pooled input)", x.dtype)
    y = Function(GetItemGrad(_along_axis(flat, (n, c, plane), 2), (n, c, plane)))(V.reshape(x, (n, c, h * w)))
    y = V.reshape(y, (n, c) + out)
    return y if poison is None else y * poison


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

    def reduce(x, kernel, stride, pad, extra, dilation):  # (average pooling has none: 1)
        col = _windows(x, kernel, stride, pad, extra, 0.0)
        if not any(extra) and count_include_pad:
            return V.mean(col, axis=2)
        counts = functools.reduce(np.multiply.outer, (
            _window_counts(x.shape[2 + d], kernel[d], stride[d], pad[d], extra[d], count_include_pad)
            for d in range(len(kernel))))
        counts = get_array_module(x._data).asarray(counts.astype(x.dtype))
        return V.sum(col, axis=2) / counts
    return _pool(x, kernel_size, stride, pad, ceil_mode, op, reduce)


__all__ = ["pooling", "average_pooling", "max_unpool2d"]
