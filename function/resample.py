"""Resampling: `interpolate` (nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
area) and adaptive pooling (`adaptive_avg_pool1d`, `2d`, `3d` and their `max` twins), with
PyTorch's sizes and coordinates.

The interpolating modes and average pooling are linear maps along each spatial axis, applied
one axis after another (the separable 2-D or 3-D map): output i is a weighted sum of a few
inputs, sum_k w_ik x[j_ik] (two for linear interpolation, four for cubic, a window for
averaging), taken with `V.take` so that a NaN reaches only the outputs that read it (a dense
matrix of weights would spread it along the whole axis, 0 * NaN being NaN).  Nearest takes
one input index per output index; max pooling takes, along one axis and then the next, the
maximum over each output's window (a rectangle's maximum is the maximum over its rows of
their maxima).
"""

import math

import numpy as np

import variable as V
from variable import Variable
from variable.backend import constant_like, get_array_module

from .activation import ArrayLike, as_float, true_or_false

_SPATIAL = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
"""The interpolating modes and the number of spatial axes each takes."""

MODES = ("nearest", "nearest-exact", *_SPATIAL, "area")

_CUBIC = -0.75
"""The cubic convolution kernel's parameter (Keys, 1981), PyTorch's and OpenCV's."""


def _positive_sizes(op, name, value, count, x_shape, allow_none=False):
    """`value` (an int or `count` of them; None entries keep the input's size where allowed)."""
    if value is None:
        raise TypeError(f"{op}: {name} must be an int or a tuple of ints, got None"
                        + (" (None keeps an axis inside a tuple: (h, None))" if allow_none else ""))
    if isinstance(value, np.ndarray) and value.ndim == 1:                 # (np.array(x.shape[2:]))
        value = tuple(value.tolist())
    sizes = value if isinstance(value, (tuple, list)) else (value,) * count
    if len(sizes) != count:
        raise ValueError(f"{op}: {name} must be an int or {count} ints for the {count} spatial axes of x of "
                         f"shape {tuple(x_shape)}, got {value!r}")
    out = []
    for axis, size in zip(x_shape[-count:], sizes):
        if size is None and allow_none:
            out.append(axis)
            continue
        if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)):
            raise TypeError(f"{op}: {name} must be an int or a tuple of ints, got {value!r}")
        if size < 1:
            raise ValueError(f"{op}: {name} must be positive, got {value!r}")
        out.append(int(size))
    return tuple(out)


def _spatial_input(op, x):
    """`x` as a float Variable of shape (N, C, *spatial), at least one spatial axis, none empty."""
    x = as_float(x, op)
    if x.ndim < 3:
        raise ValueError(f"{op}: x must be (N, C, ...) with at least one spatial axis, got shape {x.shape}")
    if 0 in x.shape[2:]:
        raise ValueError(f"{op}: x of shape {x.shape} has an empty spatial axis: nothing to resample")
    return x


def _along(x, axis, terms, op):
    """sum_k w_k x[j_k] along `axis` of `x`, for `terms` [(j_k, w_k)] of (out,) index and
    weight arrays: output i is sum_k w_k[i] x[j_k[i]].  A term may carry a third (out,) mask of
    the outputs it belongs to: elsewhere it adds nothing, not 0 x[j_k] (NaN where x is inf)."""
    shape = (-1,) + (1,) * (x.ndim - 1 - axis)                # (weights along `axis`)
    y = None
    for index, weight, *belongs in terms:
        index = constant_like(index, x, op, made=True)
        weight = constant_like(weight.astype(x.dtype).reshape(shape), x, op, made=True)
        taken = V.take(x, index, axis=axis)
        if belongs and not belongs[0].all():
            taken = V.where(constant_like(belongs[0].reshape(shape), x, op, made=True), taken, 0.0)
        term = taken * weight
        y = term if y is None else y + term
    return y


def _source(size_in, size_out, scale, align_corners):
    """Where each output index reads the input: scale (i + 1/2) - 1/2, the pixel centres aligned
    (align_corners: i (in - 1) / (out - 1), the corners aligned); not clamped."""
    out = np.arange(size_out)
    if align_corners:
        return out * ((size_in - 1) / (size_out - 1) if size_out > 1 else 0.0)
    return scale * (out + 0.5) - 0.5


def _linear_terms(size_in, size_out, scale, align_corners):
    """Linear interpolation's two terms: output i reads input at the source coordinate
    (`_source`), clamped to the input."""
    source = np.maximum(_source(size_in, size_out, scale, align_corners), 0.0)
    low = np.minimum(np.floor(source).astype(np.intp), size_in - 1)
    upper = source - low
    return [(low, 1 - upper), (np.minimum(low + 1, size_in - 1), upper)]


def _cubic_terms(size_in, size_out, scale, align_corners):
    """Cubic convolution's four terms: output i reads inputs floor(s) - 1 .. floor(s) + 2 (clamped
    to the input) at the source coordinate s as for linear interpolation (not clamped), each
    weighted by the cubic kernel at its distance from s."""
    source = _source(size_in, size_out, scale, align_corners)
    low = np.floor(source).astype(np.intp)
    weights = _cubic_weights(source - low)
    return [(np.clip(low + k - 1, 0, size_in - 1), w) for k, w in enumerate(weights)]


def _cubic_weights(t):
    """The cubic convolution kernel's weights of the four pixels floor(s) - 1 .. floor(s) + 2 at
    t = s - floor(s) (a Variable: differentiable in the position)."""
    a = _CUBIC

    def near(d):                                    # |d| <= 1: (a + 2)|d|^3 - (a + 3)|d|^2 + 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):                                     # 1 < |d| < 2: a|d|^3 - 5a|d|^2 + 8a|d| - 4a
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _windows(size_in, size_out):
    """PyTorch's adaptive pooling windows: output i covers inputs floor(i in / out) up to
    ceil((i + 1) in / out), as (start, stop) arrays."""
    out = np.arange(size_out)
    return out * size_in // size_out, -(-(out + 1) * size_in // size_out)


def _area_terms(size_in, size_out):
    """Adaptive average pooling's terms: the k-th entry of each window, weighted 1 / its length,
    for the windows longer than k (the index repeats a shorter window's last entry)."""
    start, stop = _windows(size_in, size_out)
    length = stop - start
    return [(np.minimum(start + k, stop - 1), 1 / length, k < length) for k in range(int(length.max()))]


def interpolate(x: ArrayLike, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: bool | None = None) -> Variable:
    """Resize the spatial axes of x (N, C, ...) to `size`, or by `scale_factor` (PyTorch's
    F.interpolate: its output sizes and source coordinates).

    Parameters
    ----------
    x : Variable or ndarray
        (N, C, L), (N, C, H, W) or (N, C, D, H, W).
    size : int or tuple of ints, optional
        Output size of each spatial axis.
    scale_factor : float or tuple of floats, optional
        Instead of `size`: the output is floor(input size * scale_factor), and the source
        coordinates scale by 1 / scale_factor.
    mode : str
        'nearest' (output i takes input floor(i in / out)), 'nearest-exact' (input
        floor((i + 1/2) in / out), the nearest centre), 'linear', 'bilinear' or 'trilinear'
        (for 1, 2 or 3 spatial axes; the pixel centres align: source (i + 1/2) in / out -
        1/2, clamped; an axis whose size stays is left as it is, as PyTorch leaves it),
        'bicubic' (2 spatial axes: the cubic convolution kernel, a = -0.75, over the 4
        nearest inputs, clamped at the border), or 'area' (adaptive average pooling).
    align_corners : bool, optional
        Interpolating modes only: the corner pixels of input and output align (source
        i (in - 1) / (out - 1)).  False by default, as in PyTorch.

    Returns
    -------
    Variable of shape (N, C, *output sizes).

    Raises
    ------
    TypeError
        If a size is not an int or a scale factor not a number.
    ValueError
        If neither or both of size and scale_factor are given, a size is not positive, the
        mode is unknown or does not fit the spatial axes of x, or align_corners is given to a
        mode that is not linear.
    """
    op = "interpolate"
    if mode not in MODES:
        raise ValueError(f"{op}: mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
    x = _spatial_input(op, x)
    dims = x.ndim - 2
    if mode in _SPATIAL and _SPATIAL[mode] != dims:
        wanted = {1: "linear", 2: "bilinear", 3: "trilinear"}.get(dims, "no linear mode")
        raise ValueError(f"{op}: mode {mode!r} takes {_SPATIAL[mode]} spatial axes, x of shape {x.shape} has "
                         f"{dims}: {wanted} for it")
    if align_corners is not None and mode not in _SPATIAL:
        raise ValueError(f"{op}: align_corners is for the interpolating modes only, not {mode!r}; drop it")
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{op}: give one of size and scale_factor")
    shape_in = x.shape[2:]
    if size is not None:
        shape_out = _positive_sizes(op, "size", size, dims, x.shape)
        scales = [a / b for a, b in zip(shape_in, shape_out)]
    else:
        factors = scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * dims
        if len(factors) != dims or not all(isinstance(f, (int, float, np.integer, np.floating))
                                           and not isinstance(f, (bool, np.bool_)) for f in factors):
            raise TypeError(f"{op}: scale_factor must be a number or {dims} numbers, got {scale_factor!r}")
        if not all(f > 0 and math.isfinite(f) for f in factors):
            raise ValueError(f"{op}: scale_factor must be positive and finite, got {scale_factor!r}")
        shape_out = tuple(math.floor(n * f) for n, f in zip(shape_in, factors))
        if min(shape_out) < 1:
            raise ValueError(f"{op}: scale_factor {scale_factor!r} leaves no output for x of shape {x.shape}")
        scales = [1 / f for f in factors]
    y = x
    for axis, (n_in, n_out, scale) in enumerate(zip(shape_in, shape_out, scales), start=2):
        if n_in == n_out and (scale == 1 or mode in ("linear", "bilinear", "trilinear")):   # (PyTorch's)
            continue
        if mode in ("nearest", "nearest-exact"):
            exact = mode == "nearest-exact"                    # the nearest centre: i + 1/2
            index = ((2 * np.arange(n_out) + exact) * n_in // (2 * n_out) if size is not None
                     else np.floor((np.arange(n_out) + 0.5 * exact) * scale).astype(np.intp))
            index = constant_like(np.minimum(index, n_in - 1), y, op, made=True)
            y = V.take(y, index, axis=axis)
        elif mode == "area":
            y = _mean_over_windows(y, axis, n_in, n_out, op)         # (adaptive average pooling)
        elif mode == "bicubic":
            y = _along(y, axis, _cubic_terms(n_in, n_out, scale, bool(align_corners)), op)
        else:
            y = _along(y, axis, _linear_terms(n_in, n_out, scale, bool(align_corners)), op)
    return y


_SPATIAL_NAMES = {1: "L", 2: "H, W", 3: "D, H, W"}


def _adaptive(op, x, output_size, pool, dims=2):
    """x pooled to `output_size` along each of its last `dims` axes whose size changes, one axis
    after the other, by `pool(y, axis, size_in, size_out, op)`."""
    if dims == 2:
        x = _spatial_input(op, x)                    # (N, C, H, W) or (C, H, W), or more axes
    else:
        x = as_float(x, op)
        if x.ndim not in (dims + 1, dims + 2):
            axes = _SPATIAL_NAMES[dims]
            raise ValueError(f"{op}: x must be (N, C, {axes}) or (C, {axes}), got shape {x.shape}"
                             + (f" (images: {op.replace('1d', '2d')})" if dims == 1 and x.ndim == 4 else ""))
    if 0 in x.shape[-dims:]:
        raise ValueError(f"{op}: x of shape {x.shape} has an empty spatial axis: nothing to resample")
    sizes = _positive_sizes(op, "output_size", output_size, dims, x.shape, allow_none=True)
    y = x
    for axis, size in zip(range(x.ndim - dims, x.ndim), sizes):
        if size != x.shape[axis]:
            y = pool(y, axis, x.shape[axis], size, op)
    return y


def _mean_over_windows(y, axis, size_in, size_out, op):
    """The mean over each of the adaptive windows along `axis`."""
    return _along(y, axis, _area_terms(size_in, size_out), op)


def _max_over_windows(y, axis, size_in, size_out, op):
    """The maximum over each of the adaptive windows along `axis`."""
    index = [slice(None)] * y.ndim
    parts = []
    for start, stop in zip(*_windows(size_in, size_out)):
        index[axis] = slice(start, stop)
        parts.append(V.max(y[tuple(index)], axis=axis, keepdims=True))
    return V.concat(parts, axis=axis)


def adaptive_avg_pool2d(x: ArrayLike, output_size) -> Variable:
    """Average pooling of x (..., H, W) to `output_size` (PyTorch's windows: output i covers
    inputs floor(i H / h) up to ceil((i + 1) H / h), likewise along W).

    Parameters
    ----------
    x : Variable or ndarray
        (N, C, H, W) or (C, H, W).
    output_size : int or (int or None, int or None)
        (h, w); None keeps the input's size along that axis.

    Returns
    -------
    Variable of shape (..., h, w).

    Raises
    ------
    TypeError
        If a size is not an int (or None).
    ValueError
        If x has fewer than 3 axes or an empty one after the first two, or a size is not
        positive.
    """
    return _adaptive("adaptive_avg_pool2d", x, output_size, _mean_over_windows)


def adaptive_max_pool2d(x: ArrayLike, output_size) -> Variable:
    """Max pooling of x (..., H, W) to `output_size` over adaptive_avg_pool2d's windows.

    Parameters
    ----------
    x : Variable or ndarray
        (N, C, H, W) or (C, H, W).
    output_size : int or (int or None, int or None)
        (h, w); None keeps the input's size along that axis.

    Returns
    -------
    Variable of shape (..., h, w).

    Raises
    ------
    TypeError
        If a size is not an int (or None).
    ValueError
        If x has fewer than 3 axes or an empty one after the first two, or a size is not
        positive.
    """
    return _adaptive("adaptive_max_pool2d", x, output_size, _max_over_windows)


def adaptive_avg_pool1d(x: ArrayLike, output_size) -> Variable:
    """Average pooling of x (N, C, L) or (C, L) to `output_size` over adaptive_avg_pool2d's
    windows along L (PyTorch's F.adaptive_avg_pool1d; 1 is global average pooling).

    Parameters
    ----------
    x : Variable or ndarray
        (N, C, L) or (C, L).
    output_size : int or (int,)

    Returns
    -------
    Variable of shape (..., output_size).

    Raises
    ------
    TypeError
        If the size is not an int.
    ValueError
        If x is not 2-D or 3-D, L is 0, or the size is not positive.
    """
    return _adaptive("adaptive_avg_pool1d", x, output_size, _mean_over_windows, dims=1)


def adaptive_max_pool1d(x: ArrayLike, output_size) -> Variable:
    """Max pooling of x (N, C, L) or (C, L) to `output_size` over adaptive_avg_pool1d's windows
    (PyTorch's F.adaptive_max_pool1d, without return_indices); its arguments, result and errors
    are adaptive_avg_pool1d's."""
    return _adaptive("adaptive_max_pool1d", x, output_size, _max_over_windows, dims=1)


def adaptive_avg_pool3d(x: ArrayLike, output_size) -> Variable:
    """Average pooling of x (N, C, D, H, W) or (C, D, H, W) to `output_size` (PyTorch's
    F.adaptive_avg_pool3d: adaptive_avg_pool2d's windows along each of D, H and W).

    Parameters
    ----------
    x : Variable or ndarray
        (N, C, D, H, W) or (C, D, H, W).
    output_size : int or (int or None, int or None, int or None)
        (d, h, w); None keeps the input's size along that axis.

    Returns
    -------
    Variable of shape (..., d, h, w).

    Raises
    ------
    TypeError
        If a size is not an int (or None).
    ValueError
        If x is not 4-D or 5-D, has an empty spatial axis, or a size is not positive.
    """
    return _adaptive("adaptive_avg_pool3d", x, output_size, _mean_over_windows, dims=3)


def adaptive_max_pool3d(x: ArrayLike, output_size) -> Variable:
    """Max pooling of x (N, C, D, H, W) or (C, D, H, W) to `output_size` over adaptive_avg_pool3d's windows
    (PyTorch's F.adaptive_max_pool3d, without return_indices); its arguments, result and errors
    are adaptive_avg_pool3d's."""
    return _adaptive("adaptive_max_pool3d", x, output_size, _max_over_windows, dims=3)


def affine_grid(theta: ArrayLike, size, align_corners: bool = False) -> Variable:
    """The sampling grid of an affine map (PyTorch's F.affine_grid, 2-D): for each output pixel
    its normalised (x, y) in [-1, 1] mapped by theta, ready for `grid_sample`.

    grid[n, i, j] = theta[n] @ (x_j, y_i, 1), x_j and y_i the pixel centres spread over [-1, 1]
    (with `align_corners`, the corner pixels' centres at -1 and 1).

    Parameters
    ----------
    theta : Variable or ndarray
        Affine maps of shape (N, 2, 3).
    size : tuple of 4 ints
        The output's (N, C, H, W).
    align_corners : bool

    Returns
    -------
    Variable of shape (N, H, W, 2), differentiable in theta.

    Raises
    ------
    TypeError
        If `size` is not 4 ints or `align_corners` not a bool.
    ValueError
        If theta is not (N, 2, 3) for the size's N, or a size is not positive.
    """
    op = "affine_grid"
    theta = as_float(theta, op)
    align_corners = true_or_false(align_corners, op, "align_corners")
    if not isinstance(size, (tuple, list)) or len(size) != 4 or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in size):
        raise TypeError(f"{op}: size must be 4 ints (N, C, H, W), got {size!r}")
    n, _, h, w = (int(v) for v in size)
    if min(n, h, w) < 1:
        raise ValueError(f"{op}: size must be positive, got {tuple(size)}")
    if theta.shape != (n, 2, 3):
        raise ValueError(f"{op}: theta must have shape (N, 2, 3) = ({n}, 2, 3) for size {tuple(size)}, got "
                         f"{theta.shape}")

    def centres(count):                      # the pixel centres in [-1, 1]
        steps = np.linspace(-1.0, 1.0, count) if count > 1 else np.zeros(1)
        return steps if align_corners else steps * (count - 1) / count

    xs, ys = np.meshgrid(centres(w), centres(h))
    base = np.stack([xs, ys, np.ones_like(xs)], axis=-1).reshape(1, h * w, 3).astype(theta.dtype)
    base = constant_like(base, theta, op, "the base grid")
    return V.matmul(base, V.transpose(theta, (0, 2, 1))).reshape(n, h, w, 2)


def _unnormalised(coordinate, size, align_corners):
    """A normalised coordinate in [-1, 1] as a pixel position (0 is the first pixel's centre)."""
    if align_corners:
        return (coordinate + 1) * ((size - 1) / 2)
    return ((coordinate + 1) * size - 1) / 2


def _reflected(p, size, align_corners):
    """Pixel positions `p` (a Variable, or an array of tap positions) folded back into the
    image as a mirror does (PyTorch's reflection padding: about the edge pixels' centres with
    align_corners, else about the image's edges), then clipped to [0, size - 1]."""
    low, high = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
    span = high - low
    if span <= 0:                                      # one pixel, align_corners: it alone
        return p * 0
    data = getattr(p, "_data", p)
    xp = get_array_module(data)
    side = xp.where(data >= low, 1.0, -1.0)           # |p - low| = side (p - low)
    flips = xp.floor(side * (data - low) / span)      # how many times the mirror folds it
    even = flips % 2 == 0
    # the fold is linear between folds: p -> slope p + offset, both constant there
    slope = xp.where(even, side, -side)
    offset = xp.where(even, low - side * low - flips * span, low + side * low + (flips + 1) * span)
    return (p * slope.astype(data.dtype) + offset.astype(data.dtype)).clip(0, size - 1)


def grid_sample(x: ArrayLike, grid: ArrayLike, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = False) -> Variable:
    """`x` read at the points of `grid` (PyTorch's F.grid_sample, 2-D): out[n, :, i, j] is x[n]
    interpolated at grid[n, i, j] = (x, y), both normalised to [-1, 1] across the image.

    Bilinear mode weighs the four pixels around the point by their nearness, so the output
    is differentiable in x and in the grid (a spatial transformer learns its grid so);
    bicubic weighs the 4x4 around it by the cubic convolution kernel (a = -0.75, as
    `interpolate`'s), differentiable in both too; nearest takes the nearest pixel
    (differentiable in x only).  Points outside the image read zeros (padding_mode 'zeros'),
    the nearest border pixel ('border'), or the image mirrored at its edges ('reflection');
    bicubic applies the padding to each of its 16 pixels, as PyTorch's does.

    Parameters
    ----------
    x : Variable or ndarray
        Images (N, C, H, W).
    grid : Variable or ndarray
        Points (N, Ho, Wo, 2), x (width) first.
    mode : 'bilinear', 'nearest' or 'bicubic'
    padding_mode : 'zeros', 'border' or 'reflection'
    align_corners : bool
        Whether -1 and 1 are the corner pixels' centres (True) or the image's edges (False).

    Returns
    -------
    Variable of shape (N, C, Ho, Wo).

    Raises
    ------
    TypeError
        If `align_corners` is not a bool.
    ValueError
        If the shapes do not fit together, or the mode or padding mode is not one above.
    """
    op = "grid_sample"
    x, grid = as_float(x, op), as_float(grid, op)
    align_corners = true_or_false(align_corners, op, "align_corners")
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"{op}: mode must be 'bilinear', 'nearest' or 'bicubic', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"{op}: padding_mode must be 'zeros', 'border' or 'reflection', got "
                         f"{padding_mode!r}")
    if x.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != x.shape[0]:
        raise ValueError(f"{op}: x must be (N, C, H, W) and grid (N, Ho, Wo, 2) with the same N, got x of "
                         f"shape {x.shape} and grid of shape {grid.shape}")
    n, _, h, w = x.shape
    xp = get_array_module(x._data)
    px = _unnormalised(grid[..., 0], w, align_corners)
    py = _unnormalised(grid[..., 1], h, align_corners)
    if mode != "bicubic":                              # (bicubic pads each of its pixels instead)
        if padding_mode == "border":                   # (points beyond the edge read the edge)
            px, py = V.clip(px, 0, w - 1), V.clip(py, 0, h - 1)
        elif padding_mode == "reflection":
            px, py = _reflected(px, w, align_corners), _reflected(py, h, align_corners)
    batch = xp.arange(n).reshape(n, 1, 1)

    def read(row, col):
        """x at integer pixels (row, col) (N, Ho, Wo), zero where they fall outside: (N, Ho, Wo, C)."""
        inside = (row >= 0) & (row < h) & (col >= 0) & (col < w)
        picked = x[batch, :, xp.clip(row, 0, h - 1), xp.clip(col, 0, w - 1)]
        return V.where(inside[..., None], picked, 0.0)   # (not picked * inside: 0 * inf is NaN)

    def padded(tap, size):
        """Integer tap positions through the padding (zeros: as they are, read as zero outside)."""
        if padding_mode == "border":
            return xp.clip(tap, 0, size - 1)
        if padding_mode == "reflection":
            return _reflected(tap.astype(x.dtype), size, align_corners).astype(np.int64)
        return tap

    if mode == "nearest":                              # (round half to even, as PyTorch's)
        out = read(xp.rint(py._data).astype(np.int64), xp.rint(px._data).astype(np.int64))
    elif mode == "bicubic":
        x0, y0 = xp.floor(px._data), xp.floor(py._data)
        wx, wy = _cubic_weights(px - x0), _cubic_weights(py - y0)
        c0, r0 = x0.astype(np.int64), y0.astype(np.int64)
        out = 0
        for i in range(4):
            row = padded(r0 + i - 1, h)
            for j in range(4):
                out = out + read(row, padded(c0 + j - 1, w)) * (wy[i] * wx[j])[..., None]
    else:
        x0, y0 = xp.floor(px._data), xp.floor(py._data)
        wx1, wy1 = px - x0, py - y0                     # the weights: how far past the lower pixel
        wx0, wy0 = 1 - wx1, 1 - wy1
        c0, r0 = x0.astype(np.int64), y0.astype(np.int64)
        out = (read(r0, c0) * (wy0 * wx0)[..., None] + read(r0, c0 + 1) * (wy0 * wx1)[..., None]
               + read(r0 + 1, c0) * (wy1 * wx0)[..., None] + read(r0 + 1, c0 + 1) * (wy1 * wx1)[..., None])
    return V.transpose(out, (0, 3, 1, 2))


__all__ = ["interpolate", "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "affine_grid", "grid_sample"]
