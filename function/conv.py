"""Convolution on NCHW images (and sequences and volumes), built on im2col and col2im.

im2col copies every kernel-sized window of a padded image into a column array of shape
(N, C, KH, KW, OH, OW); col2im adds such columns back into an image.  The two are
linear and adjoint, so each is the other's backward and both are differentiable to any
order.  conv2d is then a matrix product with the columns, deconv2d (its transpose) a
matrix product whose columns col2im adds up (pooling, in function/pooling.py, a max or mean
over them), each a composition of differentiable ops (as fast as a fused op: the reshapes
copy nothing).
"""

import math

import numpy as np

import variable as V
from variable import Forwarder, Function, Variable, memory
from variable.backend import get_array_module
from variable.directions import Directions

from .activation import ArrayLike, as_float

Size = int | tuple[int, int]
"""A kernel size, stride or padding: one int for both axes or an (height, width) pair."""


def int_pair(value: Size, op: str, name: str, minimum: int) -> tuple[int, int]:
    """An int or a pair of ints, each >= `minimum`, as a pair (a kernel size, stride or pad).

    Raises
    ------
    TypeError
        If `value` is not an int or a pair of ints (bools refused), naming `op` and `name`.
    ValueError
        If an entry is below `minimum`.
    """
    return int_tuple(value, op, name, minimum, 2)


def int_tuple(value, op: str, name: str, minimum: int, count: int) -> tuple[int, ...]:
    """An int or `count` ints, each >= `minimum`, as a tuple of `count` (one per spatial axis).

    Raises
    ------
    TypeError
        If `value` is not an int or `count` ints (bools refused), naming `op` and `name`.
    ValueError
        If an entry is below `minimum`.
    """
    values = (value,) * count if isinstance(value, (int, np.integer)) else value
    if (
        not isinstance(values, (tuple, list)) or len(values) != count
        or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values)
    ):
        many = {2: "a pair of ints", 3: "a triple of ints"}.get(count, f"{count} ints")
        raise TypeError(f"{op}: {name} must be an int or {many}, got {value!r}")
    if any(v < minimum for v in values):
        raise ValueError(f"{op}: {name} must be >= {minimum}, got {value!r}")
    return tuple(int(v) for v in values)


def single_int(value, op: str, name: str, minimum: int) -> int:
    """An int (or a 1-tuple of one, PyTorch's spelling) >= `minimum`: a 1-D size, stride or pad.

    Raises
    ------
    TypeError
        If `value` is not an int or a 1-tuple of an int (bools refused), naming `op` and `name`.
    ValueError
        If it is below `minimum`.
    """
    single = value[0] if isinstance(value, (tuple, list)) and len(value) == 1 else value
    if not isinstance(single, (int, np.integer)) or isinstance(single, (bool, np.bool_)):
        raise TypeError(f"{op}: {name} must be an int, got {value!r}")
    if single < minimum:
        raise ValueError(f"{op}: {name} must be >= {minimum}, got {value!r}")
    return int(single)


def _bias(b, out_channels, W, op):
    """`b` (or None) as a float Variable of shape (out_channels,), naming `op` and W otherwise."""
    if b is None:
        return None
    b = as_float(b, op)
    if b.shape != (out_channels,):
        raise ValueError(f"{op}: b must have shape ({out_channels},) for W of shape {W.shape}, got {b.shape}")
    return b


def _check_fits_1d(kernel, pad, x_shape, op, dilation=1):
    """Refuse a kernel (spread by `dilation`) longer than the padded sequences of `x_shape` (N, C, L)."""
    if dilation * (kernel - 1) + 1 > x_shape[2] + 2 * pad:
        spread = "" if dilation == 1 else f" (spread by dilation {dilation})"
        raise ValueError(f"{op}: kernel {kernel}{spread} does not fit the input of shape {x_shape} "
                         f"padded by {pad}")


def _output_size(size, kernel, stride, pad, dilation=1):
    return (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


def _geometry(x_shape, kernel_size, stride, pad, op, dilation=(1, 1)):
    """Checked (kernel, stride, pad) tuples and the output size (OH, OW) for NCHW `x_shape` (or
    (OD, OH, OW) for (N, C, D, H, W), as many axes as `dilation` has)."""
    dims = len(dilation)
    if len(x_shape) != dims + 2:
        layout = "(N, C, H, W)" if dims == 2 else "(N, C, D, H, W)"
        raise ValueError(f"{op}: x must be {dims + 2}-d {layout}, got shape {x_shape}")
    kernel = int_tuple(kernel_size, op, "kernel_size", 1, dims)
    stride = int_tuple(stride, op, "stride", 1, dims)
    pad = int_tuple(pad, op, "pad", 0, dims)
    out = tuple(_output_size(x_shape[2 + d], kernel[d], stride[d], pad[d], dilation[d]) for d in range(dims))
    if min(out) < 1:
        spread = "" if set(dilation) == {1} else f" (spread by dilation {dilation})"
        raise ValueError(
            f"{op}: kernel {kernel}{spread} does not fit the input of shape {x_shape} padded by {pad}"
        )
    return kernel, stride, pad, out


def _window(offsets, dilation, stride, out):
    """The entries of the padded image that the kernel entry at `offsets` reads, one per output
    position: along each spatial axis a slice from offset * dilation, `out` steps of `stride`."""
    return (slice(None), slice(None)) + tuple(slice(i * d, i * d + s * (o - 1) + 1, s)
                                              for i, d, s, o in zip(offsets, dilation, stride, out))


def _empty(like, shape):
    """An uninitialised array of `shape` in `like`'s dtype, on its device; on the host from
    gengrad's cache of large arrays, whose pages are already mapped (a fresh 3 MB array
    takes its page faults in the first pass that writes it)."""
    if type(like) is np.ndarray:
        return memory.empty(shape, like.dtype)
    return get_array_module(like).empty(shape, dtype=like.dtype)


class Im2col(Forwarder):
    """Windows of padded images as columns (N, C, KH, KW, OH, OW): two spatial axes (NCHW), or
    one or three (N, C, KD, KH, KW, OD, OH, OW); a dilated window's entries lie `dilation`
    apart."""

    def __init__(self, kernel, stride, pad, out, pad_value=0.0, dilation=None):
        self.kernel, self.stride, self.pad, self.out = kernel, stride, pad, out
        self.pad_value, self.dilation = pad_value, dilation or (1,) * len(kernel)

    def forward(self, x):
        if any(self.pad):
            x = np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in self.pad), constant_values=self.pad_value)
        col = _empty(x, x.shape[:2] + tuple(self.kernel) + tuple(self.out))
        for offsets in np.ndindex(*self.kernel):
            window = _window(offsets, self.dilation, self.stride, self.out)
            col[(slice(None), slice(None)) + offsets] = x[window]
        return col

    save_for_backward = ()

    def backward(self, gcol):
        x, = self.inputs
        # the adjoint of copying windows out is adding them back (pad entries are dropped)
        return Function(Col2im(x.shape, self.kernel, self.stride, self.pad, self.out, self.dilation))(gcol)

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        # linear: y_k = im2col(x_k), padded with zeros (a -inf pad is a constant of x_0 alone)
        def zero_pad(n):
            return Im2col(self.kernel, self.stride, self.pad, self.out, dilation=self.dilation)
        return [y._data] + [_linear(zero_pad, c) for c in x[1:]]


def _linear(make, c):
    """A linear op's coefficient: `make(n)`'s forward (n images) on an array, a recorded call
    of it on a Variable (a recording Taylor pass: the strided views of its forward would drop
    the graph); on a coefficient of several directions, one call for all, their axis merged
    into the images' (the op acts on each image alone)."""
    if isinstance(c, Directions):
        data = c.full()
        merged = _linear(make, np.reshape(data, (-1,) + data.shape[2:]))
        shape = c.shape[:1] + tuple(merged.shape[1:])
        return Directions(np.reshape(merged, (c.count,) + shape), shape, c.weights)
    return Function(make(c.shape[0]))(c) if isinstance(c, Variable) else make(c.shape[0]).forward(c)


class Col2im(Forwarder):
    """Add columns (N, C, KH, KW, OH, OW) back into NCHW images (any number of spatial axes, as
    Im2col's), dropping the padding."""

    def __init__(self, x_shape, kernel, stride, pad, out, dilation=None):
        self.x_shape, self.kernel, self.stride, self.pad, self.out = x_shape, kernel, stride, pad, out
        self.dilation = dilation or (1,) * len(kernel)

    def forward(self, col):
        padded = tuple(self.x_shape[:2]) + tuple(n + 2 * p for n, p in zip(self.x_shape[2:], self.pad))
        image = _empty(col, padded)
        image.fill(0)
        for offsets in np.ndindex(*self.kernel):
            window = _window(offsets, self.dilation, self.stride, self.out)
            image[window] += col[(slice(None), slice(None)) + offsets]
        if any(self.pad):
            inside = tuple(slice(p, p + n) for p, n in zip(self.pad, self.x_shape[2:]))
            image = image[(slice(None), slice(None)) + inside].copy()   # (a C-contiguous copy)
        return image

    save_for_backward = ()

    def backward(self, gx):
        # the adjoint of adding windows up is copying them out, with zero padding
        return Function(Im2col(self.kernel, self.stride, self.pad, self.out, dilation=self.dilation))(gx)

    taylor_records = True

    def taylor(self, col):
        y, = self.outputs
        def again(n):
            shape = (n,) + self.x_shape[1:]
            return Col2im(shape, self.kernel, self.stride, self.pad, self.out, self.dilation)
        return [y._data] + [_linear(again, c) for c in col[1:]]   # linear: y_k = col2im(col_k)


def _shape_of(x):
    return x.shape if isinstance(x, (Variable, np.ndarray)) else np.shape(x)


def im2col(x: ArrayLike, kernel_size: Size, stride: Size = 1, pad: Size = 0,
           to_matrix: bool = False) -> Variable:
    """Every window of the zero-padded NCHW image `x` as columns (N, C, KH, KW, OH, OW).

    col[n, c, i, j, p, q] = x_padded[n, c, p * SH + i, q * SW + j]; OH = (H + 2 PH - KH)
    // SH + 1 and likewise OW.  Its backward is `col2im`.

    Parameters
    ----------
    x : Variable or ndarray
        Images of shape (N, C, H, W).
    kernel_size, stride, pad : int or pair of ints
        Window size (>= 1), step (>= 1) and zero padding (>= 0), as (height, width).
    to_matrix : bool
        Return one window per row instead, shape (N * OH * OW, C * KH * KW), as the DeZero
        book's im2col does by default.

    Returns
    -------
    Variable of shape (N, C, KH, KW, OH, OW), or (N * OH * OW, C * KH * KW) with `to_matrix`.

    Raises
    ------
    ValueError
        If `x` is not 4-d, a size is out of range or the window does not fit.
    """
    if not isinstance(to_matrix, (bool, np.bool_)):
        raise TypeError(f"im2col: to_matrix must be True or False, got {type(to_matrix).__name__}")
    x = as_float(x, "im2col")
    kernel, stride, pad, out = _geometry(x.shape, kernel_size, stride, pad, "im2col")
    col = Function(Im2col(kernel, stride, pad, out))(x)
    if not to_matrix:
        return col
    n, c, kh, kw, oh, ow = col.shape                 # one window per row: (N OH OW, C KH KW)
    return V.reshape(V.transpose(col, (0, 4, 5, 1, 2, 3)), (n * oh * ow, c * kh * kw))


def col2im(col: ArrayLike, x_shape: tuple[int, int, int, int], kernel_size: Size, stride: Size = 1,
           pad: Size = 0) -> Variable:
    """Add columns (N, C, KH, KW, OH, OW) back into images of `x_shape` (the adjoint of im2col).

    Entries that fall into the padding are dropped; overlapping windows add up.

    Parameters
    ----------
    col : Variable or ndarray
        Columns as `im2col` makes them.
    x_shape : tuple of 4 ints
        Shape (N, C, H, W) of the images.
    kernel_size, stride, pad : int or pair of ints
        As for `im2col`.

    Returns
    -------
    Variable of shape `x_shape`.

    Raises
    ------
    ValueError
        If `col` does not have the shape im2col gives for `x_shape`.
    """
    op = "col2im"
    col = as_float(col, op)
    try:
        x_shape = tuple(int(n) for n in x_shape)
    except (TypeError, ValueError):
        raise TypeError(f"{op}: x_shape must be a tuple of 4 ints (N, C, H, W), got {x_shape!r}") from None
    kernel, stride, pad, out = _geometry(x_shape, kernel_size, stride, pad, op)
    expected = x_shape[:2] + kernel + out
    if col.shape != expected:
        raise ValueError(
            f"{op}: columns of shape {col.shape} do not fit images {x_shape}: expected {expected}"
        )
    return Function(Col2im(x_shape, kernel, stride, pad, out))(col)


def _padding(pad, kernel, stride, dilation, op, shown):
    """(pad, crop) tuples for a convolution's `pad`: numbers as they are; 'valid' none; 'same'
    dilation (k - 1) per axis in all, as PyTorch's padding='same' (the odd one on the far side):
    padded by its half rounded up on both sides, then `crop` leading rows (columns) cut off.
    `shown` is (the stride, what else pad may be) as the user's op takes them, for messages."""
    dims = len(kernel)
    if not isinstance(pad, str):
        return int_tuple(pad, op, "pad", 0, dims), (0,) * dims
    if pad == "valid":
        return (0,) * dims, (0,) * dims
    shown_stride, kinds = shown
    if pad != "same":
        raise ValueError(f"{op}: pad must be {kinds}, 'same' or 'valid', got {pad!r}")
    if set(stride) != {1}:
        raise ValueError(f"{op}: pad='same' keeps the input's size only at stride 1 (PyTorch refuses it for "
                         f"strided convolutions too), got stride {shown_stride}; give pad as a number")
    total = tuple(d * (k - 1) for d, k in zip(dilation, kernel))
    return tuple((t + 1) // 2 for t in total), tuple(t % 2 for t in total)


def _convolve(x, W, b, stride, pad, dilation, groups, op, shown):
    """The convolution of float Variables x (N, C, H, W) and W (OC, C / groups, KH, KW) whose
    channels fit (or of volumes, (N, C, D, H, W) and (OC, C / groups, KD, KH, KW)), `stride` and
    `dilation` checked tuples, `pad` as the user gave it (`shown` as for `_padding`)."""
    oc, cg, *kernel = W.shape
    pad, crop = _padding(pad, tuple(kernel), stride, dilation, op, shown)
    kernel, stride, pad, out = _geometry(x.shape, tuple(kernel), stride, pad, op, dilation)
    b = _bias(b, oc, W, op)
    n, taps, positions = x.shape[0], cg * math.prod(kernel), math.prod(out)
    col = Function(Im2col(kernel, stride, pad, out, dilation=dilation))(x)
    if groups == 1:                                      # (OC, K) @ (N, K, OH*OW)
        col = V.reshape(col, (n, taps, positions))
        y = V.matmul(V.reshape(W, (oc, taps)), col)
    else:       # each group's filters see its own channels: (G, OC / G, K) @ (N, G, K, OH*OW)
        col = V.reshape(col, (n, groups, taps, positions))
        y = V.matmul(V.reshape(W, (groups, oc // groups, taps)), col)
    y = V.reshape(y, (n, oc) + out)
    if any(crop):
        y = y[(slice(None), slice(None)) + tuple(slice(c, None) for c in crop)]
    if b is not None:
        y = y + V.reshape(b, (1, oc) + (1,) * len(out))
    return y


def _group_count(groups, op):
    """`groups` as an int >= 1, else a TypeError/ValueError naming `op`."""
    if isinstance(groups, (bool, np.bool_)) or not isinstance(groups, (int, np.integer)):
        raise TypeError(f"{op}: groups must be an int, got {groups!r}")
    if groups < 1:
        raise ValueError(f"{op}: groups must be >= 1, got {groups}")
    return int(groups)


def _groups(groups, x, W, op, layout):
    """Check `groups` against x's channels and W's: x has W.shape[1] * groups channels and
    groups divides W's output channels."""
    groups = _group_count(groups, op)
    if x.ndim != W.ndim or x.shape[1] != W.shape[1] * groups:
        split = f" * groups = {W.shape[1]} * {groups}" if groups > 1 else ""
        whole = x.ndim == W.ndim and groups == 1 and x.shape[1] > W.shape[1] and x.shape[1] % W.shape[1] == 0
        whole = whole and W.shape[0] % (x.shape[1] // W.shape[1]) == 0
        hint = (f" (or groups={x.shape[1] // W.shape[1]}, each filter seeing {W.shape[1]} of them)"
                if whole else "")
        raise ValueError(f"{op}: x of shape {x.shape} does not match W of shape {W.shape}: x must be "
                         f"{layout} with C = W.shape[1]{split}{hint}")
    if W.shape[0] % groups:
        raise ValueError(f"{op}: groups={groups} must divide W's {W.shape[0]} output channels "
                         f"(W of shape {W.shape})")
    return groups


def conv2d(x: ArrayLike, W: ArrayLike, b: ArrayLike | None = None, stride: Size = 1,
           pad: Size | str = 0, dilation: Size = 1, groups: int = 1) -> Variable:
    """2-D convolution (cross-correlation, as in every deep-learning library) of NCHW images.

    y[n, o, p, q] = sum_{c,i,j} W[o, c, i, j] x_padded[n, g C' + c, p SH + i DH, q SW + j DW] + b[o],
    with g = o // (OC / groups) the group of filter o and C' = C / groups the channels each
    group sees; computed as im2col followed by one batched matrix product.

    Parameters
    ----------
    x : Variable or ndarray
        Images of shape (N, C, H, W).
    W : Variable or ndarray
        Filters of shape (OC, C / groups, KH, KW).
    b : Variable, ndarray or None
        Bias of shape (OC,).
    stride : int or pair of ints
        Step (>= 1), as (height, width).
    pad : int, pair of ints, 'same' or 'valid'
        Zero padding (>= 0) on each side; 'valid' is none, 'same' keeps the size at stride 1
        (DH (KH - 1) rows in all, the odd one at the bottom, as PyTorch's padding='same').
    dilation : int or pair of ints
        Spacing (>= 1) between a kernel's taps (atrous convolution).
    groups : int
        Channel groups: C and OC split into `groups` parts, each filter seeing its own
        group's channels (groups = C with OC a multiple of C: a depthwise convolution).

    Returns
    -------
    Variable of shape (N, OC, OH, OW), OH = (H + 2 PH - DH (KH - 1) - 1) // SH + 1 (likewise OW).

    Raises
    ------
    TypeError
        If a stride, pad or dilation is not an int, a pair of ints or (pad) a string, or
        `groups` is not an int.
    ValueError
        If the shapes do not fit together, groups does not divide the channels, pad is
        'same' at a stride above 1 or an unknown string, or the kernel does not fit the
        padded input.
    """
    op = "conv2d"
    x, W = as_float(x, op), as_float(W, op)
    if W.ndim != 4:
        raise ValueError(f"{op}: W must be 4-d (OC, C, KH, KW), got shape {W.shape}")
    groups = _groups(groups, x, W, op, "(N, C, H, W)")
    stride, dilation = int_pair(stride, op, "stride", 1), int_pair(dilation, op, "dilation", 1)
    return _convolve(x, W, b, stride, pad, dilation, groups, op, (stride, "an int, a pair of ints"))


def conv1d(x: ArrayLike, W: ArrayLike, b: ArrayLike | None = None, stride: int = 1, pad: int | str = 0,
           dilation: int = 1, groups: int = 1) -> Variable:
    """1-D convolution (cross-correlation) of (N, C, L) sequences: conv2d of images one row high.

    y[n, o, p] = sum_{c,i} W[o, c, i] x_padded[n, g C' + c, p S + i D] + b[o], g and C' as in
    conv2d.

    Parameters
    ----------
    x : Variable or ndarray
        Sequences of shape (N, C, L).
    W : Variable or ndarray
        Filters of shape (OC, C / groups, K).
    b : Variable, ndarray or None
        Bias of shape (OC,).
    stride : int
        Step (>= 1).
    pad : int, 'same' or 'valid'
        Zero padding at each end (>= 0); 'valid' is none, 'same' keeps the length at stride 1
        (D (K - 1) in all, the odd one at the end, as PyTorch's padding='same').
    dilation : int
        Spacing (>= 1) between the kernel's taps (a dilated, "atrous" convolution).
    groups : int
        Channel groups, as in conv2d.

    Returns
    -------
    Variable of shape (N, OC, (L + 2 pad - D (K - 1) - 1) // stride + 1).

    Raises
    ------
    TypeError
        If `stride`, `pad`, `dilation` or `groups` is not an int (pad: or a string).
    ValueError
        If the shapes do not fit together, groups does not divide the channels, pad is
        'same' at a stride above 1 or an unknown string, or the kernel does not fit the
        padded input.
    """
    op = "conv1d"
    x, W = as_float(x, op), as_float(W, op)
    if W.ndim != 3:
        raise ValueError(f"{op}: W must be 3-d (OC, C, K), got shape {W.shape}")
    groups = _groups(groups, x, W, op, "(N, C, L)")
    b = _bias(b, W.shape[0], W, op)                    # (named with conv1d's W, not the 4-d one below)
    stride, dilation = single_int(stride, op, "stride", 1), single_int(dilation, op, "dilation", 1)
    if not isinstance(pad, str):
        pad = single_int(pad, op, "pad", 0)
        _check_fits_1d(W.shape[2], pad, x.shape, op, dilation)
        pad = (0, pad)
    y = _convolve(V.expand_dims(x, 2), V.expand_dims(W, 2), b, (1, stride), pad, (1, dilation), groups,
                  op, (stride, "an int"))
    return V.squeeze(y, axis=2)


def conv3d(x: ArrayLike, W: ArrayLike, b: ArrayLike | None = None, stride: int | tuple = 1,
           pad: int | tuple | str = 0, dilation: int | tuple = 1, groups: int = 1) -> Variable:
    """3-D convolution (cross-correlation) of (N, C, D, H, W) volumes, as conv2d of images.

    y[n, o, p, q, r] = sum_{c,i,j,k} W[o, c, i, j, k] x_padded[n, g C' + c, p SD + i DD,
    q SH + j DH, r SW + k DW] + b[o], g and C' as in conv2d.

    Parameters
    ----------
    x : Variable or ndarray
        Volumes of shape (N, C, D, H, W).
    W : Variable or ndarray
        Filters of shape (OC, C / groups, KD, KH, KW).
    b : Variable, ndarray or None
        Bias of shape (OC,).
    stride, dilation : int or triple of ints
        Step and spacing of the taps (>= 1), as (depth, height, width).
    pad : int, triple of ints, 'same' or 'valid'
        Zero padding (>= 0) on each side, as conv2d's.
    groups : int
        Channel groups, as in conv2d.

    Returns
    -------
    Variable of shape (N, OC, OD, OH, OW), each as conv2d's output sizes.

    Raises
    ------
    TypeError
        If a stride, pad or dilation is not an int, a triple of ints or (pad) a string, or
        `groups` is not an int.
    ValueError
        If the shapes do not fit together, groups does not divide the channels, pad is
        'same' at a stride above 1 or an unknown string, or the kernel does not fit the
        padded input.
    """
    op = "conv3d"
    x, W = as_float(x, op), as_float(W, op)
    if W.ndim != 5:
        raise ValueError(f"{op}: W must be 5-d (OC, C, KD, KH, KW), got shape {W.shape}")
    groups = _groups(groups, x, W, op, "(N, C, D, H, W)")
    stride, dilation = int_tuple(stride, op, "stride", 1, 3), int_tuple(dilation, op, "dilation", 1, 3)
    return _convolve(x, W, b, stride, pad, dilation, groups, op, (stride, "an int, a triple of ints"))


def _deconv_size(size, kernel, stride, pad, outsize, op, x_shape, W_shape, dilation, conv):
    """The output's spatial size: `outsize` once checked, else the smallest size that `conv`
    (the convolution this op transposes) maps to `size`.

    With stride S, the S consecutive sizes from there on all map back to `size` under the
    convolution; with a dilation D above S, as PyTorch's output_padding allows, D of them (the
    rows past the last window get the bias alone).
    """
    dims = range(len(size))
    low = tuple(stride[d] * (size[d] - 1) + dilation[d] * (kernel[d] - 1) + 1 - 2 * pad[d] for d in dims)
    high = tuple(low[d] + max(stride[d], dilation[d]) - 1 for d in dims)
    shown = (lambda t: t[0]) if conv == "conv1d" else (lambda t: t)   # conv1d's settings are ints
    if (outsize is None and min(low) < 1) or min(high) < 1:
        raise ValueError(
            f"{op}: pad {shown(pad)} is too large for x of shape {x_shape} and W of shape {W_shape}: "
            f"the output would be {shown(low)}; use a smaller pad"
            + (" or give outsize" if min(high) >= 1 else "")
        )
    if outsize is None:
        return low
    out = int_tuple(outsize, op, "outsize", 1, len(size))
    for d in dims:
        if not low[d] <= out[d] <= high[d]:
            first = max(low[d], 1)
            allowed = f"{first}" if first == high[d] else f"between {first} and {high[d]}"
            spread = "" if set(dilation) == {1} else f", dilation {shown(dilation)}"
            axis = "" if len(size) == 1 else f"axis {d} of "
            raise ValueError(
                f"{op}: outsize {shown(out)} does not fit x of shape {x_shape} with kernel {shown(kernel)}, "
                f"stride {shown(stride)}{spread} and pad {shown(pad)}: {conv} would not take an input of "
                f"that size back to {shown(tuple(size))}; {axis}outsize must be {allowed}"
            )
    return out


def _deconvolve(x, W, b, stride, pad, outsize, dilation, groups, op, conv, layout):
    """The transposed convolution of `x` (N, C, *size) by W (C, OC / groups, *kernel), each
    setting a checked tuple of one entry per spatial axis: deconv1d, deconv2d and deconv3d."""
    dims = W.ndim - 2
    if x.ndim != dims + 2 or x.shape[1] != W.shape[0]:
        raise ValueError(
            f"{op}: x of shape {x.shape} does not match W of shape {W.shape}: x must be "
            f"{layout} with C = W.shape[0] (W is (C, OC / groups, ...), input channels first)"
        )
    groups = _group_count(groups, op)
    if W.shape[0] % groups:
        raise ValueError(f"{op}: groups={groups} must divide W's {W.shape[0]} input channels (W of shape "
                         f"{W.shape})")
    c, og, kernel = W.shape[0], W.shape[1], W.shape[2:]
    oc = og * groups
    n, size = x.shape[0], x.shape[2:]
    out = _deconv_size(size, kernel, stride, pad, outsize, op, x.shape, W.shape, dilation, conv)
    b = _bias(b, oc, W, op)
    # col[n, g, (o, *taps), positions] = sum_{c of group g} W[c, (o, *taps)] x[n, c, positions]
    col = V.transpose_matmul(V.reshape(W, (groups, c // groups, og * math.prod(kernel))),
                             V.reshape(x, (n, groups, c // groups, math.prod(size))))
    col = V.reshape(col, (n, oc, *kernel, *size))
    y = Function(Col2im((n, oc, *out), kernel, stride, pad, size, dilation))(col)
    if b is not None:
        y = y + V.reshape(b, (1, oc) + (1,) * dims)
    return y


def deconv2d(x: ArrayLike, W: ArrayLike, b: ArrayLike | None = None, stride: Size = 1, pad: Size = 0,
             outsize: Size | None = None, dilation: Size = 1, groups: int = 1) -> Variable:
    """2-D transposed convolution of NCHW images: the adjoint (and gradient) of conv2d.

    Each input pixel spreads a kernel-sized patch into the output:
    y_padded[n, o, p SH + i, q SW + j] += sum_c x[n, c, p, q] W[c, o, i, j], the padding is
    then cut off and b[o] added.  Computed as one batched matrix product W^T x giving the
    columns (N, OC, KH, KW, H, W), which col2im adds into the image; both are
    differentiable, so every order of derivative works.  For matching shapes
    <conv2d(y, W), x> = <y, deconv2d(x, W)>.

    Parameters
    ----------
    x : Variable or ndarray
        Images of shape (N, C, H, W).
    W : Variable or ndarray
        Filters of shape (C, OC / groups, KH, KW), input channels first as in DeZero and
        PyTorch's conv_transpose2d: the very W that conv2d takes from OC channels to C, used
        as is.
    b : Variable, ndarray or None
        Bias of shape (OC,).
    stride, pad : int or pair of ints
        Step (>= 1) and padding (>= 0) of the convolution this op transposes.
    outsize : int, pair of ints or None
        Output size (OH, OW).  By default OH = SH (H - 1) + DH (KH - 1) + 1 - 2 PH and
        likewise OW; with a stride > 1 up to SH - 1 more rows (and SW - 1 more columns) also
        map back to H under conv2d, and `outsize` picks one of them (PyTorch's
        output_padding is OH minus the default).
    dilation : int or pair of ints
        Spacing (>= 1) of the kernel's taps, as in conv2d.
    groups : int
        Channel groups, as in conv2d: C and OC split into `groups` parts, each input group
        spreading into its own output group.

    Returns
    -------
    Variable of shape (N, OC, OH, OW).

    Raises
    ------
    TypeError
        If an input is not array-like, a size, stride, pad, outsize or dilation is not an int
        or a pair of ints, or groups not an int.
    ValueError
        If the shapes do not fit together, groups does not divide C, pad leaves no output, or
        `outsize` is not an image that conv2d with the same kernel, stride and pad takes back
        to (H, W).
    """
    op = "deconv2d"
    x, W = as_float(x, op), as_float(W, op)
    if W.ndim != 4:
        raise ValueError(
            f"{op}: W must be 4-d (C, OC, KH, KW), input channels first (the layout of "
            f"transposed convolutions in DeZero and PyTorch), got shape {W.shape}"
        )
    stride, pad = int_pair(stride, op, "stride", 1), int_pair(pad, op, "pad", 0)
    dilation = int_pair(dilation, op, "dilation", 1)
    return _deconvolve(x, W, b, stride, pad, outsize, dilation, groups, op, "conv2d", "(N, C, H, W)")


def deconv1d(x: ArrayLike, W: ArrayLike, b: ArrayLike | None = None, stride: int = 1, pad: int = 0,
             outsize: int | None = None, dilation: int = 1, groups: int = 1) -> Variable:
    """1-D transposed convolution of (N, C, L) sequences (PyTorch's conv_transpose1d): the
    adjoint of conv1d, as deconv2d is of conv2d.

    y_padded[n, o, p S + i D] += sum_c x[n, c, p] W[c, o, i], the padding cut off, b[o] added.

    Parameters
    ----------
    x : Variable or ndarray
        Sequences of shape (N, C, L).
    W : Variable or ndarray
        Filters of shape (C, OC / groups, K), input channels first.
    b : Variable, ndarray or None
        Bias of shape (OC,).
    stride, pad, dilation : int
        Of the convolution this op transposes (stride, dilation >= 1, pad >= 0).
    outsize : int or None
        Output length: by default S (L - 1) + D (K - 1) + 1 - 2 pad; up to max(S, D) - 1
        more (PyTorch's output_padding is the difference).
    groups : int
        Channel groups, as in deconv2d.

    Returns
    -------
    Variable of shape (N, OC, OL).

    Raises
    ------
    TypeError, ValueError
        As deconv2d's, for sequences: settings are ints.
    """
    op = "deconv1d"
    x, W = as_float(x, op), as_float(W, op)
    if W.ndim != 3:
        raise ValueError(f"{op}: W must be 3-d (C, OC, K), input channels first (the layout of "
                         f"transposed convolutions in PyTorch), got shape {W.shape}")
    stride, dilation = single_int(stride, op, "stride", 1), single_int(dilation, op, "dilation", 1)
    pad = single_int(pad, op, "pad", 0)
    outsize = outsize if outsize is None else single_int(outsize, op, "outsize", 1)
    return _deconvolve(x, W, b, (stride,), (pad,), outsize, (dilation,), groups, op, "conv1d", "(N, C, L)")


def deconv3d(x: ArrayLike, W: ArrayLike, b: ArrayLike | None = None, stride: int | tuple = 1,
             pad: int | tuple = 0, outsize: int | tuple | None = None, dilation: int | tuple = 1,
             groups: int = 1) -> Variable:
    """3-D transposed convolution of (N, C, D, H, W) volumes (PyTorch's conv_transpose3d): the
    adjoint of conv3d, as deconv2d is of conv2d.

    Parameters
    ----------
    x : Variable or ndarray
        Volumes of shape (N, C, D, H, W).
    W : Variable or ndarray
        Filters of shape (C, OC / groups, KD, KH, KW), input channels first.
    b : Variable, ndarray or None
        Bias of shape (OC,).
    stride, pad, dilation : int or triple of ints
        Of the convolution this op transposes.
    outsize : int, triple of ints or None
        Output size (OD, OH, OW), as deconv2d's.
    groups : int
        Channel groups, as in deconv2d.

    Returns
    -------
    Variable of shape (N, OC, OD, OH, OW).

    Raises
    ------
    TypeError, ValueError
        As deconv2d's, for volumes: settings are ints or triples.
    """
    op = "deconv3d"
    x, W = as_float(x, op), as_float(W, op)
    if W.ndim != 5:
        raise ValueError(f"{op}: W must be 5-d (C, OC, KD, KH, KW), input channels first (the layout of "
                         f"transposed convolutions in PyTorch), got shape {W.shape}")
    stride, pad = int_tuple(stride, op, "stride", 1, 3), int_tuple(pad, op, "pad", 0, 3)
    dilation = int_tuple(dilation, op, "dilation", 1, 3)
    return _deconvolve(x, W, b, stride, pad, outsize, dilation, groups, op, "conv3d", "(N, C, D, H, W)")


__all__ = ["im2col", "col2im", "conv1d", "conv2d", "conv3d", "deconv1d", "deconv2d", "deconv3d"]
