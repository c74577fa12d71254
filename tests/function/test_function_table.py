"""Every neural-network function of `function`, row by row.

`TABLE` maps each public name of `function.__all__` that is not a primitive of
`variable.OPS` to its rows.  Each row is checked for: forward against an independent
NumPy formula, derivatives against `V.gradcheck` in float64 (third order for smooth
functions, second for piecewise ones, at points away from kinks), float32 kept float32
in values and gradients, and no graph when no input requires grad.
`test_every_function_has_rows` fails as soon as a public function has no row.
"""

import itertools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from function_checks import as_float32, away, erfc, float_inputs, probabilities

sys.path.insert(0, str(Path(__file__).parents[1] / "variable"))  # the op tables' shared pieces
from op_rows import DEVICE_TAYLOR, device_order  # noqa: E402

import function as F
import layers as L
import variable as V
from function.activation import SigmoidGrad
from variable import backend

SMOOTH = 3      # derivative order checked for smooth functions
PIECEWISE = 2   # ... and for piecewise ones (higher derivatives are 0 away from kinks)
NO_GRADIENT = 0
TAYLOR = 6      # order of Taylor mode checked against nested reverse mode (V.taylorcheck)


@dataclass(frozen=True)
class Row:
    """`fn` on Variables must equal `ref` on ndarrays at `sample(rng)`."""

    label: str
    fn: Callable
    ref: Callable
    sample: Callable   # rng -> tuple of ndarrays (float64 inputs, integer constants)
    order: int


# ----- NumPy formulas ---------------------------------------------------------------
def np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis=-1):
    return np.log(np_softmax(x, axis))


def np_gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def np_group_norm(x, groups, gamma, beta, eps=1e-5):
    """Each example's group of channels standardised, then scaled and shifted per channel."""
    g = x.reshape(x.shape[0], groups, -1)
    g = (g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)
    channel = (-1,) + (1,) * (x.ndim - 2)
    return g.reshape(x.shape) * gamma.reshape(channel) + beta.reshape(channel)


def np_attention(q, k, v, keep=None, bias=None, scale=None):
    """Query by query: softmax over the keys it may see of its scaled dot products (all weights 0
    when it may see none), then the weighted sum of the values."""
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    q, k, v = (np.broadcast_to(a, batch + a.shape[-2:]) for a in (q, k, v))
    shape = batch + (q.shape[-2], k.shape[-2])
    keep = np.ones(shape, bool) if keep is None else np.broadcast_to(keep, shape)
    bias = np.zeros(shape) if bias is None else np.broadcast_to(bias, shape)
    out = np.zeros(batch + (q.shape[-2], v.shape[-1]))
    for index in np.ndindex(*batch, q.shape[-2]):
        seen = keep[index] & (bias[index] > -np.inf)
        if seen.any():
            s = np.array([q[index] @ k[index[:-1] + (j,)] * scale for j in range(k.shape[-2])])
            s = s + bias[index]
            w = np.where(seen, np.exp(s - s[seen].max()), 0)
            out[index] = (w / w.sum()) @ v[index[:-1]]
    return out


ATTENTION_KEEP = np.array([[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 0, 1]], bool)   # query 1 sees nothing


def np_conv1d(x, W, b=None, stride=1, pad=0, dilation=1, groups=1):
    """conv1d as the 2-D formula on images one row high."""
    y = np_conv2d(x[:, :, None, :], W[:, :, None, :], b, stride=(1, stride),
                  pad=pad if pad == "same" else (0, pad), dilation=(1, dilation), groups=groups)
    return y[:, :, 0, :]


def np_windows(size_in, size_out):
    """Adaptive pooling's windows: [floor(i in / out), ceil((i + 1) in / out))."""
    return [(int(np.floor(i * size_in / size_out)), int(np.ceil((i + 1) * size_in / size_out)))
            for i in range(size_out)]


def np_adaptive_pool(x, size, reduce):
    """Each output pixel: `reduce` over its rectangle of input pixels."""
    rows, cols = np_windows(x.shape[-2], size[0]), np_windows(x.shape[-1], size[1])
    y = np.zeros(x.shape[:-2] + size)
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            y[..., i, j] = reduce(x[..., r0:r1, c0:c1], axis=(-2, -1))
    return y


def np_adaptive_pool_nd(x, size, reduce):
    """Each output entry: `reduce` over its box of inputs, the product of one window per spatial
    axis (the last len(size) axes)."""
    dims = len(size)
    axes = tuple(range(-dims, 0))
    windows = [np_windows(n, m) for n, m in zip(x.shape[-dims:], size)]
    y = np.zeros(x.shape[:-dims] + tuple(size))
    for out in itertools.product(*(range(m) for m in size)):
        box = tuple(slice(*windows[k][i]) for k, i in enumerate(out))
        y[(Ellipsis, *out)] = reduce(x[(Ellipsis, *box)], axis=axes)
    return y


def adaptive_row(kind, d, shape, size):
    """A row of F.adaptive_{kind}_pool{d}d on x of `shape` pooled to `size`, against the boxes."""
    op = getattr(F, f"adaptive_{kind}_pool{d}d")
    sizes = (size,) * d if isinstance(size, int) else size
    sizes = tuple(shape[len(shape) - d + k] if s is None else s for k, s in enumerate(sizes))
    reduce = np.mean if kind == "avg" else np.max
    return Row(f"{shape} -> {size}", lambda x: op(x, size), lambda x: np_adaptive_pool_nd(x, sizes, reduce),
               normal(shape), PIECEWISE)


def np_linear_source(i, size_in, size_out, scale=None, align_corners=False):
    """The source coordinate of output i (PyTorch's): corners aligned, or pixel centres."""
    if align_corners:
        return i * (size_in - 1) / (size_out - 1) if size_out > 1 else 0.0
    scale = size_in / size_out if scale is None else scale
    return max((i + 0.5) * scale - 0.5, 0.0)


def np_bilinear(x, size, align_corners=False):
    """Each output pixel: its four neighbours at the source coordinates, weighted by distance."""
    (h, w), y = x.shape[-2:], np.zeros(x.shape[:-2] + size)
    for i in range(size[0]):
        s = np_linear_source(i, h, size[0], align_corners=align_corners) if h != size[0] else i
        r0 = min(int(s), h - 1)
        r1, a = min(r0 + 1, h - 1), s - r0
        for j in range(size[1]):
            t = np_linear_source(j, w, size[1], align_corners=align_corners) if w != size[1] else j
            c0 = min(int(t), w - 1)
            c1, b = min(c0 + 1, w - 1), t - c0
            y[..., i, j] = ((1 - a) * (1 - b) * x[..., r0, c0] + (1 - a) * b * x[..., r0, c1]
                            + a * (1 - b) * x[..., r1, c0] + a * b * x[..., r1, c1])
    return y


def np_cubic(d, a=-0.75):
    """The cubic convolution kernel at distance d."""
    d = abs(d)
    return ((a + 2) * d - (a + 3)) * d * d + 1 if d <= 1 else ((a * d - 5 * a) * d + 8 * a) * d - 4 * a


def np_bicubic(x, size, align_corners=False):
    """Each output pixel: the 4 x 4 inputs around its source coordinates (clamped at the border),
    each weighted by the cubic kernel at its distance along each axis."""
    (h, w), y = x.shape[-2:], np.zeros(x.shape[:-2] + size)

    def source(i, n, m):
        if align_corners:
            return i * (n - 1) / (m - 1) if m > 1 else 0.0
        return (i + 0.5) * n / m - 0.5

    for i in range(size[0]):
        s = source(i, h, size[0])
        for j in range(size[1]):
            t = source(j, w, size[1])
            for r in range(int(np.floor(s)) - 1, int(np.floor(s)) + 3):
                for c in range(int(np.floor(t)) - 1, int(np.floor(t)) + 3):
                    y[..., i, j] += (np_cubic(s - r) * np_cubic(t - c)
                                     * x[..., min(max(r, 0), h - 1), min(max(c, 0), w - 1)])
    return y


def np_trilinear(x, size):
    """Each output voxel: its eight neighbours at the source coordinates, weighted by distance."""
    y = np.zeros(x.shape[:2] + size)
    for out in np.ndindex(*size):
        corners = []
        for axis, i in enumerate(out):
            n = x.shape[2 + axis]
            s = np_linear_source(i, n, size[axis]) if n != size[axis] else i
            low = min(int(s), n - 1)
            corners.append(((low, 1 - (s - low)), (min(low + 1, n - 1), s - low)))
        for (d, wd), (h, wh), (w, ww) in itertools.product(*corners):
            y[(...,) + out] += wd * wh * ww * x[:, :, d, h, w]
    return y


def np_conv2d(x, W, b=None, stride=(1, 1), pad=(0, 0), dilation=(1, 1), groups=1):
    """Direct sum over output positions, each group's channels and kernel offsets; pad 'same'
    pads dilation (k - 1) per axis, its smaller half in front."""
    n, c, h, w = x.shape
    oc, cg, kh, kw = W.shape
    (sh, sw), (dh, dw) = stride, dilation
    if pad == "same":
        total = (dh * (kh - 1), dw * (kw - 1))
        widths = [(t // 2, t - t // 2) for t in total]
    else:
        widths = [(pad[0], pad[0]), (pad[1], pad[1])]
    xp = np.pad(x, [(0, 0), (0, 0)] + widths)
    oh = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    per_group = oc // groups
    y = np.zeros((n, oc, oh, ow))
    for o in range(oc):
        channels = slice(o // per_group * cg, (o // per_group + 1) * cg)
        for p in range(oh):
            for q in range(ow):
                rows = [p * sh + i * dh for i in range(kh)]
                cols = [q * sw + j * dw for j in range(kw)]
                window = xp[:, channels][:, :, rows][:, :, :, cols]          # (n, cg, kh, kw)
                y[:, o, p, q] = np.einsum("ncij,cij->n", window, W[o])
    return y if b is None else y + b[None, :, None, None]


def np_conv3d(x, W, b=None, stride=1, pad=0, dilation=1):
    """Direct sum over output positions, channels and the kernel's taps (one group)."""
    n, c, *size = x.shape
    oc, _, *kernel = W.shape
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pad, pad)] * 3)
    out = [(m + 2 * pad - dilation * (k - 1) - 1) // stride + 1 for m, k in zip(size, kernel)]
    y = np.zeros((n, oc, *out))
    for p in np.ndindex(*out):
        spans = [slice(q * stride, q * stride + dilation * (k - 1) + 1, dilation) for q, k in zip(p, kernel)]
        taps = (slice(None), slice(None), *spans)
        y[(slice(None), slice(None)) + p] = np.einsum("ncijk,ocijk->no", xp[taps], W)
    return y if b is None else y + b[None, :, None, None, None]


def np_pool3d(x, k, s, reduce):
    """Pooling of volumes by direct window reduction, no padding."""
    n, c, *size = x.shape
    out = [(m - k) // s + 1 for m in size]
    y = np.empty((n, c, *out))
    for p in np.ndindex(*out):
        window = tuple(slice(q * s, q * s + k) for q in p)
        y[(slice(None), slice(None)) + p] = reduce(x[(slice(None), slice(None)) + window], axis=(2, 3, 4))
    return y


def np_affine_grid(theta, size, align_corners=False):
    """Pixel centres (x, y, 1) on a meshgrid, mapped by theta."""
    n, _, h, w = size
    xs = np.linspace(-1, 1, w) if align_corners else (2 * np.arange(w) + 1) / w - 1
    ys = np.linspace(-1, 1, h) if align_corners else (2 * np.arange(h) + 1) / h - 1
    if w == 1:
        xs = np.zeros(1)
    if h == 1:
        ys = np.zeros(1)
    base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], 1.0), axis=-1)    # (h, w, 3)
    return np.einsum("hwk,nck->nhwc", base, theta)


def np_grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """Bilinear weights (1 - |dy|)(1 - |dx|) of the four pixels around each point, written as a
    sum over all pixels (zero beyond distance 1), or the nearest pixel."""
    n, c, h, w = x.shape
    size = np.array([w, h])
    p = (grid + 1) / 2 * (size - 1) if align_corners else ((grid + 1) * size - 1) / 2
    if padding_mode == "border":
        p = np.clip(p, 0, size - 1)
    cols, rows = np.arange(w), np.arange(h)
    if mode == "nearest":
        wx = (np.rint(p[..., 0])[..., None] == cols).astype(float)
        wy = (np.rint(p[..., 1])[..., None] == rows).astype(float)
    else:
        wx = np.maximum(0, 1 - abs(p[..., 0][..., None] - cols))                # (n, ho, wo, w)
        wy = np.maximum(0, 1 - abs(p[..., 1][..., None] - rows))                # (n, ho, wo, h)
    return np.einsum("nijy,nijx,ncyx->ncij", wy, wx, x)


def np_mirror(p, size, align_corners):
    """A position folded back into [lo, hi] by repeated reflection at its ends (lo, hi: the edge
    pixels' centres with align_corners, else the image's edges), then clipped to the pixels."""
    lo, hi = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
    if hi <= lo:
        return 0.0
    while p < lo or p > hi:
        p = 2 * lo - p if p < lo else 2 * hi - p
    return min(max(p, 0.0), size - 1.0)


def np_grid_sample_taps(x, grid, mode, padding_mode, align_corners):
    """Each output point as a sum over pixels of per-axis weights: bilinear's two nearest (after
    reflecting the point), or bicubic's four taps, each tap's position through the padding
    (zeros: a tap outside adds nothing)."""
    n, c, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:3])
    for b, i, j in np.ndindex(n, *grid.shape[1:3]):
        weights = []
        for coordinate, size in ((grid[b, i, j, 1], h), (grid[b, i, j, 0], w)):
            p = (coordinate + 1) / 2 * (size - 1) if align_corners else ((coordinate + 1) * size - 1) / 2
            axis = np.zeros(size)
            if mode == "bilinear":
                p = np_mirror(p, size, align_corners) if padding_mode == "reflection" else p
                for k in range(size):
                    axis[k] = max(0.0, 1 - abs(p - k))
            else:
                for tap in range(int(np.floor(p)) - 1, int(np.floor(p)) + 3):
                    where = {"border": min(max(tap, 0), size - 1), "zeros": tap,
                             "reflection": int(np_mirror(float(tap), size, align_corners))}[padding_mode]
                    if 0 <= where < size:
                        axis[where] += np_cubic(p - tap)
            weights.append(axis)
        out[b, :, i, j] = np.einsum("y,x,cyx->c", weights[0], weights[1], x[b])
    return out


def np_deconv2d(x, W, b=None, stride=(1, 1), pad=(0, 0), outsize=None):
    """Each input pixel adds its kernel-weighted patch into the padded output, then the pad is cut."""
    n, c, h, w = x.shape
    _, oc, kh, kw = W.shape
    oh, ow = outsize or (stride[0] * (h - 1) + kh - 2 * pad[0], stride[1] * (w - 1) + kw - 2 * pad[1])
    y = np.zeros((n, oc, oh + 2 * pad[0] + stride[0], ow + 2 * pad[1] + stride[1]))
    for p in range(h):
        for q in range(w):
            patch = np.einsum("nc,coij->noij", x[:, :, p, q], W)
            y[:, :, p * stride[0]:p * stride[0] + kh, q * stride[1]:q * stride[1] + kw] += patch
    y = y[:, :, pad[0]:pad[0] + oh, pad[1]:pad[1] + ow]
    return y if b is None else y + b[None, :, None, None]


def np_deconv2d_grouped(x, W, b, stride, pad, dilation, groups):
    """Each input pixel of group g spreads its W-weighted dilated patch into group g's output
    channels; the pad is then cut.  Stride, pad and dilation the same along both axes."""
    n, c, h, w = x.shape
    _, og, kh, kw = W.shape
    cg = c // groups
    size = [stride * (m - 1) + dilation * (k - 1) + 1 for m, k in ((h, kh), (w, kw))]
    y = np.zeros((n, og * groups, *size))
    for g, p, q, i, j in np.ndindex(groups, h, w, kh, kw):
        group = slice(g * cg, (g + 1) * cg)
        contribution = np.einsum("nc,co->no", x[:, group, p, q], W[group, :, i, j])
        y[:, g * og:(g + 1) * og, p * stride + i * dilation, q * stride + j * dilation] += contribution
    y = y[:, :, pad:size[0] - pad, pad:size[1] - pad]
    return y + b[None, :, None, None]


def np_deconv_nd(x, W, b=None, stride=1, pad=0, dilation=1, groups=1, outsize=None):
    """Any number of spatial axes: each input position of group g adds its W-weighted, dilated
    patch into group g's output channels at stride steps; the pad is then cut from each side
    (outsize: up to that many entries kept, zeros past the last patch).  Settings are the same
    along every axis."""
    n, c, *size = x.shape
    _, og, *kernel = W.shape
    cg = c // groups
    full = [stride * (m - 1) + dilation * (k - 1) + 1 for m, k in zip(size, kernel)]
    out = outsize or [f - 2 * pad for f in full]
    y = np.zeros((n, og * groups, *[max(f, o + 2 * pad) for f, o in zip(full, out)]))
    for g in range(groups):
        for p in np.ndindex(*size):
            for tap in np.ndindex(*kernel):
                at = tuple(q * stride + t * dilation for q, t in zip(p, tap))
                part = np.einsum("nc,co->no", x[(slice(None), slice(g * cg, (g + 1) * cg), *p)],
                                 W[(slice(g * cg, (g + 1) * cg), slice(None), *tap)])
                y[(slice(None), slice(g * og, (g + 1) * og), *at)] += part
    y = y[(slice(None), slice(None), *[slice(pad, pad + o) for o in out])]
    return y if b is None else y + b.reshape((1, -1) + (1,) * len(size))


def np_ctc_by_paths(log_probs, targets, input_lengths, target_lengths, blank=0):
    """CTC loss by enumerating every path of classes: the probability of a target is the sum of
    the probabilities of the paths that collapse to it (repeats merged, blanks dropped); each
    sequence's -log of it over its target length (at least 1), averaged."""
    steps, n, classes = log_probs.shape
    losses = []
    for i in range(n):
        target = tuple(targets[i, :target_lengths[i]])
        total = 0.0
        for path in itertools.product(range(classes), repeat=int(input_lengths[i])):
            merged = [c for j, c in enumerate(path) if j == 0 or c != path[j - 1]]
            if tuple(c for c in merged if c != blank) == target:
                total += np.exp(sum(log_probs[t, i, c] for t, c in enumerate(path)))
        losses.append(-np.log(total) / max(target_lengths[i], 1))
    return np.mean(losses)


CTC_TARGETS, CTC_INPUTS, CTC_LENGTHS = np.array([[1, 1, 2], [2, 0, 0]]), np.array([5, 3]), np.array([3, 1])


def np_unpool(x, indices, out):
    """Each entry of x placed at its flat index in a zero plane of `out` entries (repeats add)."""
    n, c = x.shape[:2]
    y = np.zeros((n, c, out[0] * out[1]))
    for i, j, q in np.ndindex(*x.shape[:2], x.shape[2] * x.shape[3]):
        y[i, j, indices[i, j].ravel()[q]] += x[i, j].ravel()[q]
    return y.reshape(n, c, *out)


UNPOOL_INDICES = np.array([[[[0, 3], [9, 14]], [[5, 2], [8, 15]]]])     # into 4x4 planes


def np_pool(x, k, s, p, reduce, pad_value):
    """Pooling by direct window reduction over the padded image."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=pad_value)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    y = np.empty((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            y[:, :, i, j] = reduce(xp[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return y


def np_pool_clipped(x, k, s, p, kind, ceil_mode=False, count_include_pad=True):
    """PyTorch's pooling written out: each window clipped to the input (and, for the mean's
    divisor with count_include_pad, to the padded input); ceil_mode rounds the size up unless
    the last window would start in the far padding."""
    n, c, h, w = x.shape

    def size_out(size):
        o = (size + 2 * p - k + (s - 1 if ceil_mode else 0)) // s + 1
        return o - 1 if ceil_mode and (o - 1) * s >= size + p else o

    y = np.empty((n, c, size_out(h), size_out(w)))
    for i, j in np.ndindex(*y.shape[2:]):
        h0, w0 = i * s - p, j * s - p
        h1, w1 = min(h0 + k, h + p), min(w0 + k, w + p)
        window = x[:, :, max(h0, 0):min(h1, h), max(w0, 0):min(w1, w)]
        if kind == "max":
            y[:, :, i, j] = window.max(axis=(2, 3))
        else:
            count = (h1 - h0) * (w1 - w0) if count_include_pad else window.shape[2] * window.shape[3]
            y[:, :, i, j] = window.sum(axis=(2, 3)) / count
    return y


def np_max_pool_dilated(x, k, s, p, d):
    """Max pooling of images whose windows' entries lie d apart: output (i, j) is the max over
    x[a, b] for a = i s - p + d u and b = j s - p + d v inside the image, u, v < k (pairs)."""
    n, c, h, w = x.shape
    oh, ow = ((size + 2 * pp - dd * (kk - 1) - 1) // ss + 1
              for size, kk, ss, pp, dd in zip((h, w), k, s, p, d))
    y = np.full((n, c, oh, ow), -np.inf)
    for i, j, u, v in np.ndindex(oh, ow, k[0], k[1]):
        a, b = i * s[0] - p[0] + d[0] * u, j * s[1] - p[1] + d[1] * v
        if 0 <= a < h and 0 <= b < w:
            y[:, :, i, j] = np.maximum(y[:, :, i, j], x[:, :, a, b])
    return y


def np_pool1d(x, k, s, p, reduce, pad_value):
    """1-D pooling by direct window reduction over the padded sequence."""
    xp = np.pad(x, ((0, 0), (0, 0), (p, p)), constant_values=pad_value)
    out = (x.shape[2] + 2 * p - k) // s + 1
    return np.stack([reduce(xp[:, :, i * s:i * s + k], axis=2) for i in range(out)], axis=2)


def np_im2col(x, k, s, p):
    """col[n, c, i, j, a, b] = x_padded[n, c, a s + i, b s + j] by explicit loops."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh, ow = (h + 2 * p[0] - k[0]) // s[0] + 1, (w + 2 * p[1] - k[1]) // s[1] + 1
    col = np.zeros((n, c, k[0], k[1], oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            for a in range(oh):
                for b in range(ow):
                    col[:, :, i, j, a, b] = xp[:, :, a * s[0] + i, b * s[1] + j]
    return col


def np_col2im(col, x_shape, k, s, p):
    """Adds each column entry back at its image position, dropping the padding."""
    n, c, h, w = x_shape
    image = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]))
    oh, ow = col.shape[4:]
    for i in range(k[0]):
        for j in range(k[1]):
            for a in range(oh):
                for b in range(ow):
                    image[:, :, a * s[0] + i, b * s[1] + j] += col[:, :, i, j, a, b]
    return image[:, :, p[0]:p[0] + h, p[1]:p[1] + w]


def np_batch_norm(x, g, b, eps=2e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean, var = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g.reshape(shape) + b.reshape(shape)


def np_rms_norm(x, g=None, eps=None):
    eps = np.finfo(x.dtype).eps if eps is None else eps
    y = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return y if g is None else y * g


def np_layer_norm(x, g, b, eps=1e-5):
    mean, var = x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


# ----- samplers -------------------------------------------------------------------------
def normal(*shapes):
    return lambda rng: tuple(rng.uniform(-2, 2, s) for s in shapes)


def kinked(shape, kinks, low=-3.0, high=3.0):
    return lambda rng: (away(rng, shape, kinks, low, high),)


def labelled(shape, n_class):
    return lambda rng: (rng.standard_normal(shape + (n_class,)), rng.integers(0, n_class, shape))


def ignoring(shape, n_class, ignored):
    """Logits and labels, every other label `ignored` (softmax_cross_entropy's ignore_index)."""
    def sample(rng):
        x, t = labelled(shape, n_class)(rng)
        t.reshape(-1)[::2] = ignored
        return x, t
    return sample


def np_reduced(losses, reduction):
    """The entries' losses as `reduction` (PyTorch's keyword) reduces them."""
    return {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction](losses)


def np_cross_entropy(x, t, weight=None, ignore_index=None, reduction="mean", smoothing=0.0):
    """PyTorch's cross_entropy of labels by its definition, row by row: (1 - smoothing) w[t]
    (-log p[t]) + smoothing / C sum_c w[c] (-log p[c]), 0 for an ignored row; the mean divides
    by the kept rows' w[t]."""
    n_class = x.shape[-1]
    w = np.ones(n_class) if weight is None else weight
    log_p = np_log_softmax(x)
    losses, kept = np.zeros(t.shape), 0.0
    for i in np.ndindex(t.shape):
        if t[i] != ignore_index:
            losses[i] = (-(1 - smoothing) * w[t[i]] * log_p[i][t[i]]
                         - smoothing / n_class * np.sum(w * log_p[i]))
            kept += w[t[i]]
    return losses.sum() / kept if reduction == "mean" else np_reduced(losses, reduction)


CLASS_WEIGHT = np.array([0.5, 2.0, 1.0, 1.5])
SIGNS = np.array([[1.0, -1.0, -1.0, 1.0], [-1.0, 1.0, 1.0, 1.0], [1.0, -1.0, 1.0, -1.0]])


def ranked_pair(rng):
    """x1, x2 with -SIGNS (x1 - x2) + 0.5 away from margin_ranking_loss's kink at 0."""
    x2 = rng.standard_normal((3, 4))
    return x2 + SIGNS * (0.5 - away(rng, (3, 4), kinks=(0.0,), low=-2, high=2)), x2


def np_stirling(t):
    """Stirling's log(t!) where t > 1, PyTorch's poisson_nll_loss(full=True) term."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(t > 1, t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t), 0.0)


def counts_sample(low, high):
    """(Log) rates in [low, high] and counts away from Stirling's switch at 1."""
    return lambda rng: (rng.uniform(low, high, (3, 4)), away(rng, (3, 4), kinks=(1.0,), low=0.2, high=4.0))


def gaussian_sample(var_shape):
    return lambda rng: (rng.standard_normal((3, 4)), rng.standard_normal((3, 4)),
                        rng.uniform(0.5, 2, var_shape))


def np_cosine(a, b):
    return np.sum(a * b, -1) / np.sqrt((np.sum(a * a, -1) + 1e-12) * (np.sum(b * b, -1) + 1e-12))


def np_distance(u, v, p=2.0):
    return np.sum(np.abs(u - v + 1e-6) ** p, -1) ** (1 / p)
ROW_WEIGHT = np.array([[0.25], [1.0], [3.0]])


def np_nll(log_p, t, weight, ignore_index):
    """PyTorch's nll_loss by its definition: sum of -w[t] log_p[t] over the kept rows / their w[t]."""
    total = kept = 0.0
    for i in np.ndindex(t.shape):
        if t[i] != ignore_index:
            total -= weight[t[i]] * log_p[i][t[i]]
            kept += weight[t[i]]
    return total / kept
MARGIN_WEIGHT = np.array([0.5, 1.5, 1.0, 2.0])
RUNNING_MEAN = np.array([0.3, -0.2, 0.1])
RUNNING_VAR = np.array([0.5, 1.5, 2.0])


def dropout_seeded(x):
    """Dropout with a fixed mask (L.seed before the draw), so the function is deterministic."""
    L.seed(7)
    return F.dropout(x, 0.4)


def np_dropout_seeded(x):
    """x * mask / 0.6 with the mask dropout_seeded draws: from the random state of the device
    its input goes to, reseeded by L.seed(7) (NumPy's global one on the CPU; under
    GENGRAD_DEVICE the GPU's own, so its masks are not the CPU's)."""
    L.seed(7)
    xp = backend.gpu_module() if backend.default_device() == "gpu" else np
    keep = backend.to_cpu(xp.random.random_sample(x.shape)) >= 0.4
    return x * keep / 0.6


def alpha_dropout_seeded(x):
    """Alpha dropout with a fixed mask (L.seed before the draw), as dropout_seeded."""
    L.seed(7)
    return F.alpha_dropout(x, 0.4)


def np_alpha_dropout_seeded(x):
    """The mask alpha_dropout_seeded draws; a dropped entry becomes SELU's saturation
    -lambda alpha, then a x + b with a = ((1 - p)(1 + p alpha'^2))^-1/2, b = -a alpha' p."""
    L.seed(7)
    xp = backend.gpu_module() if backend.default_device() == "gpu" else np
    keep = backend.to_cpu(xp.random.random_sample(x.shape)) >= 0.4
    saturation = -1.0507009873554805 * 1.6732632423543772
    a = (0.6 * (1 + 0.4 * saturation ** 2)) ** -0.5
    return a * np.where(keep, x, saturation) - a * saturation * 0.4


def channel_dropout_seeded(op, leading):
    """F.`op` with a fixed mask (L.seed before the draw), and its NumPy formula: the mask of
    the first `leading` axes (dropout's draw, of that shape) broadcast over the rest."""
    def seeded(x):
        L.seed(7)
        return getattr(F, op)(x, 0.4)

    def reference(x):
        L.seed(7)
        xp = backend.gpu_module() if backend.default_device() == "gpu" else np
        shape = x.shape[:leading] + (1,) * (x.ndim - leading)
        keep = backend.to_cpu(xp.random.random_sample(shape)) >= 0.4
        if op != "feature_alpha_dropout":
            return x * keep / 0.6
        saturation = -1.0507009873554805 * 1.6732632423543772
        a = (0.6 * (1 + 0.4 * saturation ** 2)) ** -0.5
        return a * np.where(keep, x, saturation) - a * saturation * 0.4

    return seeded, reference


def np_local_response_norm(x, size, alpha, beta, k):
    """Channel by channel: the squares of channels c - size // 2 to c + (size - 1) // 2 that exist."""
    y = np.empty_like(x)
    for c in range(x.shape[1]):
        around = range(max(c - size // 2, 0), min(c + (size - 1) // 2 + 1, x.shape[1]))
        total = sum(x[:, j] ** 2 for j in around)
        y[:, c] = x[:, c] / (k + alpha / size * total) ** beta
    return y


def np_multi_margin(x, t, p=1, margin=1.0, weight=None, reduction="mean"):
    """Sample by sample, class by class: the margins other classes' scores violate."""
    losses = []
    for scores, label in zip(np.atleast_2d(x), np.atleast_1d(t)):
        total = 0.0
        for i, score in enumerate(scores):
            violation = margin - scores[label] + score
            if i != label and violation > 0:
                total += violation ** p * (1.0 if weight is None else weight[label])
        losses.append(total / len(scores))
    losses = np.array(losses) if x.ndim == 2 else np.array(losses[0])
    return {"mean": np.mean, "sum": np.sum, "none": lambda v: v}[reduction](losses)


def margin_sample(shape, n_class, margin=1.0):
    """Scores whose margins margin - x[t] + x[i] stay 0.1 or more from 0 (the hinge's kink)."""
    def sample(rng):
        t = rng.integers(0, n_class, shape)
        base = rng.standard_normal(shape + (1,))
        x = base - margin + away(rng, shape + (n_class,), kinks=(0.0,), low=-2, high=2)
        np.put_along_axis(x, t[..., None], base, axis=-1)
        return x, t
    return sample


def batch_norm_test_mode(x, g, b):
    with V.test_mode():
        return F.batch_norm(x, g, b, RUNNING_MEAN, RUNNING_VAR)


def np_batch_norm_test_mode(x, g, b):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return ((x - RUNNING_MEAN.reshape(shape)) / np.sqrt(RUNNING_VAR.reshape(shape) + 2e-5)
            * g.reshape(shape) + b.reshape(shape))


def hinge_sample(rng):
    t = rng.choice([-1, 1], (3, 4))
    margin = away(rng, (3, 4), kinks=(0.0,), low=-2, high=2)   # 1 - t x away from 0
    return (1 - margin) * t, t


def huber_sample(rng):
    t = rng.standard_normal((3, 4))
    d = away(rng, (3, 4), kinks=(-0.7, 0.7), low=-2, high=2)
    return t + d, t


def untied_pair(rng):
    t = rng.standard_normal((3, 4))
    return t + away(rng, (3, 4), kinks=(0.0,), low=-2, high=2), t


def ids_and_table(rng):
    return np.array([[0, 3, 3], [1, 0, 4]]), rng.standard_normal((5, 2))


# ----- the table ------------------------------------------------------------------------
ACTIVATION_ROWS = {
    "sigmoid": [
        Row("(2,3)", F.sigmoid, np_sigmoid, normal((2, 3)), SMOOTH),
        Row("scalar", F.sigmoid, np_sigmoid, normal(()), SMOOTH),
    ] + [  # and its backward op, gy * y * (1 - y)
        Row(f"SigmoidGrad {label}", lambda gy, y: V.Function(SigmoidGrad())(gy, y),
            lambda gy, y: gy * y * (1 - y), normal(*shapes), SMOOTH)
        for label, shapes in [("(2,3)", ((2, 3), (2, 3))), ("scalar", ((), ())),
                              ("(2,3)x(3,)", ((2, 3), (3,))), ("(3,)x(2,3)", ((3,), (2, 3)))]
    ],
    "relu": [Row("(2,3)", F.relu, lambda x: np.maximum(x, 0), kinked((2, 3), (0,)), PIECEWISE)],
    "relu6": [Row("(3,4)", F.relu6, lambda x: np.clip(x, 0, 6),
                  kinked((3, 4), (0, 6), -2, 8), PIECEWISE)],
    "leaky_relu": [
        Row("alpha=0.01", F.leaky_relu, lambda x: np.where(x > 0, x, 0.01 * x),
            kinked((2, 3), (0,)), PIECEWISE),
        Row("alpha=0.3", lambda x: F.leaky_relu(x, alpha=0.3), lambda x: np.where(x > 0, x, 0.3 * x),
            kinked((2, 3), (0,)), PIECEWISE),
    ],
    "elu": [
        Row("alpha=1", F.elu, lambda x: np.where(x > 0, x, np.exp(x) - 1), kinked((2, 3), (0,)), SMOOTH),
        Row("alpha=1.5", lambda x: F.elu(x, 1.5), lambda x: np.where(x > 0, x, 1.5 * (np.exp(x) - 1)),
            kinked((2, 3), (0,)), SMOOTH),
    ],
    "selu": [Row("(2,3)", F.selu,
                 lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
                 kinked((2, 3), (0,)), SMOOTH)],
    "celu": [
        Row("alpha=1", F.celu, lambda x: np.where(x > 0, x, np.expm1(x)), kinked((2, 3), (0,)), SMOOTH),
        Row("alpha=0.5", lambda x: F.celu(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(2 * x)),
            kinked((2, 3), (0,)), SMOOTH),
    ],
    "mish": [Row("(2,3)", F.mish, lambda x: x * np.tanh(np.log1p(np.exp(x))), normal((2, 3)), SMOOTH)],
    "softsign": [Row("(2,3)", F.softsign, lambda x: x / (1 + np.abs(x)), kinked((2, 3), (0,)), SMOOTH)],
    "log_sigmoid": [Row("(2,3)", F.log_sigmoid, lambda x: np.log(np_sigmoid(x)), normal((2, 3)), SMOOTH)],
    "hard_tanh": [
        Row("[-1, 1]", F.hard_tanh, lambda x: np.clip(x, -1, 1), kinked((3, 4), (-1, 1)), PIECEWISE),
        Row("[0, 2.5]", lambda x: F.hard_tanh(x, 0.0, 2.5), lambda x: np.clip(x, 0, 2.5),
            kinked((3, 4), (0, 2.5), -1, 4), PIECEWISE),
    ],
    "prelu": [
        Row("(2,3) per channel", F.prelu, lambda x, w: np.where(x > 0, x, w * x),
            lambda rng: (away(rng, (2, 3), (0,), -3, 3), rng.uniform(-0.5, 0.5, 3)), PIECEWISE),
        Row("(2,3,2,2) per channel", F.prelu, lambda x, w: np.where(x > 0, x, w[:, None, None] * x),
            lambda rng: (away(rng, (2, 3, 2, 2), (0,), -3, 3), rng.uniform(-0.5, 0.5, 3)), PIECEWISE),
        Row("(4,) shared", F.prelu, lambda x, w: np.where(x > 0, x, w * x),
            lambda rng: (away(rng, (4,), (0,), -3, 3), rng.uniform(-0.5, 0.5, 1)), PIECEWISE),
    ],
    "glu": [
        Row("axis=-1", F.glu, lambda x: x[:, :2] * np_sigmoid(x[:, 2:]), normal((3, 4)), SMOOTH),
        Row("axis=0", lambda x: F.glu(x, axis=0), lambda x: x[:1] * np_sigmoid(x[1:]), normal((2, 3)),
            SMOOTH),
    ],
    "gelu": [
        Row("tanh", lambda x: F.gelu(x, approximate="tanh"), np_gelu_tanh, normal((2, 3)), SMOOTH),
        Row("none", F.gelu, lambda x: 0.5 * x * erfc(-x / np.sqrt(2)), normal((2, 3)), SMOOTH),
    ],
    "swish": [Row("(2,3)", F.swish, lambda x: x * np_sigmoid(x), normal((2, 3)), SMOOTH)],
    "silu": [Row("(4,)", F.silu, lambda x: x / (1 + np.exp(-x)), normal((4,)), SMOOTH)],
    "hard_sigmoid": [Row("(3,4)", F.hard_sigmoid, lambda x: np.clip(x / 6 + 0.5, 0, 1),
                         kinked((3, 4), (-3, 3), -5, 5), PIECEWISE)],
    "hard_swish": [Row("(3,4)", F.hard_swish, lambda x: x * np.clip(x + 3, 0, 6) / 6,
                       kinked((3, 4), (-3, 3), -5, 5), SMOOTH)],
    "softplus": [Row("(2,3)", F.softplus, lambda x: np.log1p(np.exp(x)), normal((2, 3)), SMOOTH)],
    "softmax": [
        Row("axis=-1", F.softmax, np_softmax, normal((2, 3)), SMOOTH),
        Row("axis=0", lambda x: F.softmax(x, axis=0), lambda x: np_softmax(x, 0), normal((3, 2)), SMOOTH),
        Row("axis=(1,2)", lambda x: F.softmax(x, axis=(1, 2)), lambda x: np_softmax(x, (1, 2)),
            normal((2, 2, 2)), SMOOTH),
    ],
    "log_softmax": [
        Row("axis=-1", F.log_softmax, np_log_softmax, normal((2, 3)), SMOOTH),
        Row("axis=1 of 3-d", lambda x: F.log_softmax(x, axis=1), lambda x: np_log_softmax(x, 1),
            normal((2, 3, 2)), SMOOTH),
    ],
}

LOSS_ROWS = {
    "mean_squared_error": [
        Row("(3,4)", F.mean_squared_error, lambda a, b: np.mean((a - b) ** 2), normal((3, 4), (3, 4)),
            SMOOTH),
        Row("(5,)", F.mean_squared_error, lambda a, b: np.mean((a - b) ** 2), normal((5,), (5,)), SMOOTH),
        Row("(3,4) sum", lambda a, b: F.mean_squared_error(a, b, reduction="sum"),
            lambda a, b: np.sum((a - b) ** 2), normal((3, 4), (3, 4)), SMOOTH),
        Row("(2,3) none", lambda a, b: F.mean_squared_error(a, b, reduction="none"),
            lambda a, b: (a - b) ** 2, normal((2, 3), (2, 3)), SMOOTH),
    ],
    "mean_absolute_error": [
        Row("(3,4)", F.mean_absolute_error, lambda a, b: np.mean(np.abs(a - b)), untied_pair, PIECEWISE),
        Row("(3,4) sum", lambda a, b: F.mean_absolute_error(a, b, reduction="sum"),
            lambda a, b: np.sum(np.abs(a - b)), untied_pair, PIECEWISE),
        Row("(3,4) none", lambda a, b: F.mean_absolute_error(a, b, reduction="none"),
            lambda a, b: np.abs(a - b), untied_pair, PIECEWISE),
    ],
    "huber_loss": [Row("delta=0.7", lambda x, t: F.huber_loss(x, t, delta=0.7),
                       lambda x, t: np.mean(np.where(np.abs(x - t) <= 0.7, 0.5 * (x - t) ** 2,
                                                     0.7 * (np.abs(x - t) - 0.35))),
                       huber_sample, PIECEWISE),
                   Row("delta=0.7 none", lambda x, t: F.huber_loss(x, t, 0.7, reduction="none"),
                       lambda x, t: np.where(np.abs(x - t) <= 0.7, 0.5 * (x - t) ** 2,
                                             0.7 * (np.abs(x - t) - 0.35)),
                       huber_sample, PIECEWISE)],
    "ctc_loss": [
        Row("two sequences, a repeat, lengths 5 and 3",
            lambda x: F.ctc_loss(x, CTC_TARGETS, CTC_INPUTS, CTC_LENGTHS),
            lambda x: np_ctc_by_paths(x, CTC_TARGETS, CTC_INPUTS, CTC_LENGTHS), normal((5, 2, 3)), SMOOTH),
        Row("blank 2, an empty target",
            lambda x: F.ctc_loss(x, np.array([[1, 0], [0, 0]]), np.array([4, 2]), np.array([2, 0]), blank=2),
            lambda x: np_ctc_by_paths(x, np.array([[1, 0], [0, 0]]), np.array([4, 2]), np.array([2, 0]), 2),
            normal((4, 2, 3)), SMOOTH),
    ],
    "softmax_cross_entropy": [
        Row("labels", F.softmax_cross_entropy,
            lambda x, t: -np.mean(np_log_softmax(x)[np.arange(len(t)), t]), labelled((4,), 3), SMOOTH),
        Row("labels (2,3,C)", F.softmax_cross_entropy,
            lambda x, t: -np.mean(np.take_along_axis(np_log_softmax(x), t[..., None], -1)),
            labelled((2, 3), 4), SMOOTH),
        Row("probabilities", F.softmax_cross_entropy,
            lambda x, t: -np.sum(t * np_log_softmax(x)) / len(x),
            lambda rng: (rng.standard_normal((4, 3)), probabilities(rng, (4, 3))), SMOOTH),
        Row("labels, none", lambda x, t: F.softmax_cross_entropy(x, t, reduction="none"),
            lambda x, t: np_cross_entropy(x, t, reduction="none"), labelled((4,), 3), SMOOTH),
        Row("labels (2,3,C), sum", lambda x, t: F.softmax_cross_entropy(x, t, reduction="sum"),
            lambda x, t: np_cross_entropy(x, t, reduction="sum"), labelled((2, 3), 4), SMOOTH),
        Row("probabilities, none", lambda x, t: F.softmax_cross_entropy(x, t, reduction="none"),
            lambda x, t: -np.sum(t * np_log_softmax(x), -1),
            lambda rng: (rng.standard_normal((4, 3)), probabilities(rng, (4, 3))), SMOOTH),
        Row("probabilities, weight, label_smoothing 0.2, sum",
            lambda x, t: F.softmax_cross_entropy(x, t, weight=CLASS_WEIGHT, label_smoothing=0.2,
                                                 reduction="sum"),
            lambda x, t: -np.sum(CLASS_WEIGHT * (0.8 * t + 0.05) * np_log_softmax(x)),
            lambda rng: (rng.standard_normal((3, 4)), probabilities(rng, (3, 4))), SMOOTH),
        Row("labels, weight", lambda x, t: F.softmax_cross_entropy(x, t, weight=CLASS_WEIGHT),
            lambda x, t: np_cross_entropy(x, t, CLASS_WEIGHT), labelled((5,), 4), SMOOTH),
        Row("labels, label_smoothing 0.1", lambda x, t: F.softmax_cross_entropy(x, t, label_smoothing=0.1),
            lambda x, t: np_cross_entropy(x, t, smoothing=0.1), labelled((5,), 4), SMOOTH),
        Row("labels (2,3,C), ignore_index -100, weight, label_smoothing 0.3",
            lambda x, t: F.softmax_cross_entropy(x, t, weight=CLASS_WEIGHT, ignore_index=-100,
                                                 label_smoothing=0.3),
            lambda x, t: np_cross_entropy(x, t, CLASS_WEIGHT, -100, smoothing=0.3), ignoring((2, 3), 4, -100),
            SMOOTH),
        Row("labels, ignore_index 2 (a class), none",
            lambda x, t: F.softmax_cross_entropy(x, t, ignore_index=2, reduction="none"),
            lambda x, t: np_cross_entropy(x, t, ignore_index=2, reduction="none"), ignoring((5,), 4, 2),
            SMOOTH),
    ],
    "binary_cross_entropy": [
        *(Row(f"(3,4) {reduction}", lambda p, t, r=reduction: F.binary_cross_entropy(p, t, reduction=r),
              lambda p, t, r=reduction: np_reduced(-(t * np.log(p) + (1 - t) * np.log(1 - p)), r),
              lambda rng: (rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0, 1, (3, 4))), SMOOTH)
          for reduction in ("mean", "sum", "none")),
        Row("(3,4) weight per class, sum", lambda p, t: F.binary_cross_entropy(p, t, weight=CLASS_WEIGHT,
                                                                              reduction="sum"),
            lambda p, t: np.sum(CLASS_WEIGHT * -(t * np.log(p) + (1 - t) * np.log(1 - p))),
            lambda rng: (rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0, 1, (3, 4))), SMOOTH),
    ],
    "sigmoid_cross_entropy": [
        *(Row(f"(3,4) {reduction}", lambda x, t, r=reduction: F.sigmoid_cross_entropy(x, t, reduction=r),
              lambda x, t, r=reduction: np_reduced(
                  -(t * np.log(np_sigmoid(x)) + (1 - t) * np.log(1 - np_sigmoid(x))), r),
              lambda rng: (rng.standard_normal((3, 4)), rng.uniform(0, 1, (3, 4))), SMOOTH)
          for reduction in ("mean", "sum", "none")),
        *(Row(f"(3,4) pos_weight per class, weight per row, {reduction}",
              lambda x, t, r=reduction: F.sigmoid_cross_entropy(x, t, weight=ROW_WEIGHT,
                                                                 pos_weight=CLASS_WEIGHT, reduction=r),
              lambda x, t, r=reduction: np_reduced(ROW_WEIGHT * -(CLASS_WEIGHT * t * np.log(np_sigmoid(x))
                                                                  + (1 - t) * np.log(1 - np_sigmoid(x))), r),
              lambda rng: (rng.standard_normal((3, 4)), rng.uniform(0, 1, (3, 4))), SMOOTH)
          for reduction in ("mean", "none")),
    ],
    "cosine_similarity": [
        Row("(3,4)", F.cosine_similarity,
            lambda x, y: np.sum(x * y, -1) / np.linalg.norm(x, axis=-1) / np.linalg.norm(y, axis=-1),
            normal((3, 4), (3, 4)), SMOOTH),
        Row("axis=0 broadcast", lambda x, y: F.cosine_similarity(x, y, axis=0),
            lambda x, y: np.sum(x * y, 0) / np.linalg.norm(x, axis=0) / np.linalg.norm(y, axis=0),
            normal((4, 3), (4, 1)), SMOOTH),
    ],
    "hinge_loss": [
        *(Row(f"(3,4) {reduction}", lambda x, t, r=reduction: F.hinge_loss(x, t, reduction=r),
              lambda x, t, r=reduction: np_reduced(np.maximum(0, 1 - t * x), r), hinge_sample, PIECEWISE)
          for reduction in ("mean", "sum", "none")),
    ],
    "poisson_nll_loss": [
        *(Row(f"(3,4) {reduction}", lambda lr, t, r=reduction: F.poisson_nll_loss(lr, t, reduction=r),
              lambda lr, t, r=reduction: np_reduced(np.exp(lr) - t * lr, r),
              lambda rng: (rng.uniform(-1, 1, (3, 4)), rng.uniform(0.2, 4.0, (3, 4))), SMOOTH)
          for reduction in ("mean", "sum", "none")),
        Row("(3,4) rates (log_input False), full",
            lambda r, t: F.poisson_nll_loss(r, t, log_input=False, full=True),
            lambda r, t: np.mean(r - t * np.log(r + 1e-8) + np_stirling(t)), counts_sample(0.2, 3), SMOOTH),
        Row("(3,4) log rates, full, none",
            lambda lr, t: F.poisson_nll_loss(lr, t, full=True, reduction="none"),
            lambda lr, t: np.exp(lr) - t * lr + np_stirling(t), counts_sample(-1, 1), SMOOTH),
    ],
    "log_cosh_loss": [
        *(Row(f"(3,4) {reduction}", lambda x, t, r=reduction: F.log_cosh_loss(x, t, reduction=r),
              lambda x, t, r=reduction: np_reduced(np.log(np.cosh(x - t)), r), normal((3, 4), (3, 4)), SMOOTH)
          for reduction in ("mean", "sum", "none")),
    ],
    "nll_loss": [
        Row("(4,3)", F.nll_loss, lambda lp, t: -np.mean(lp[np.arange(len(t)), t]), labelled((4,), 3), SMOOTH),
        Row("(2,3,C), weight, sum", lambda lp, t: F.nll_loss(lp, t, weight=CLASS_WEIGHT, reduction="sum"),
            lambda lp, t: -np.sum(CLASS_WEIGHT[t] * np.take_along_axis(lp, t[..., None], -1)[..., 0]),
            labelled((2, 3), 4), SMOOTH),
        Row("ignore_index -100, weight",
            lambda lp, t: F.nll_loss(lp, t, weight=CLASS_WEIGHT, ignore_index=-100),
            lambda lp, t: np_nll(lp, t, CLASS_WEIGHT, -100), ignoring((5,), 4, -100), SMOOTH),
        Row("ignore_index 1, none", lambda lp, t: F.nll_loss(lp, t, ignore_index=1, reduction="none"),
            lambda lp, t: np.where(t == 1, 0.0, -np.take_along_axis(lp, t[..., None], -1)[..., 0]),
            ignoring((5,), 3, 1), SMOOTH),
    ],
    "smooth_l1_loss": [
        Row("beta 0.7, none", lambda x, t: F.smooth_l1_loss(x, t, beta=0.7, reduction="none"),
            lambda x, t: np.where(np.abs(x - t) < 0.7, 0.5 * (x - t) ** 2 / 0.7, np.abs(x - t) - 0.35),
            huber_sample, PIECEWISE),
        Row("beta 0 (L1), sum", lambda x, t: F.smooth_l1_loss(x, t, beta=0.0, reduction="sum"),
            lambda x, t: np.sum(np.abs(x - t)), untied_pair, PIECEWISE),
    ],
    "soft_margin_loss": [Row("(3,4)", lambda x: F.soft_margin_loss(x, SIGNS),
                             lambda x: np.mean(np.logaddexp(0, -SIGNS * x)), normal((3, 4)), SMOOTH)],
    "margin_ranking_loss": [Row("(3,4), margin 0.5, none", lambda a, b: F.margin_ranking_loss(
        a, b, SIGNS, margin=0.5, reduction="none"), lambda a, b: np.maximum(0, -SIGNS * (a - b) + 0.5),
        ranked_pair, PIECEWISE)],
    "hinge_embedding_loss": [Row("(3,4), margin 2", lambda x: F.hinge_embedding_loss(x, SIGNS, margin=2.0),
                                 lambda x: np.mean(np.where(SIGNS == 1, x, np.maximum(0, 2.0 - x))),
                                 kinked((3, 4), (2.0,), 0.0, 4.0), PIECEWISE)],
    "cosine_embedding_loss": [Row(
        "(3,4), margin -2 (every negative active)",
        lambda a, b: F.cosine_embedding_loss(a, b, SIGNS[:, 0], margin=-2.0),
        lambda a, b: np.mean(np.where(SIGNS[:, 0] == 1, 1 - np_cosine(a, b), np_cosine(a, b) + 2.0)),
        normal((3, 4), (3, 4)), SMOOTH)],
    "triplet_margin_loss": [
        Row("(3,4), p 2, margin 9", lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=9.0),
            lambda a, p, n: np.mean(np_distance(a, p) - np_distance(a, n) + 9.0),
            normal((3, 4), (3, 4), (3, 4)), SMOOTH),
        Row("(4,), p 3, swap, margin 9",
            lambda a, p, n: F.triplet_margin_loss(a, p, n, p=3.0, margin=9.0, swap=True),
            lambda a, p, n: np_distance(a, p, 3) - min(np_distance(a, n, 3), np_distance(p, n, 3)) + 9.0,
            normal((4,), (4,), (4,)), SMOOTH),
    ],
    "gaussian_nll_loss": [
        Row("(3,4), var (3,4)", F.gaussian_nll_loss,
            lambda x, t, v: np.mean(0.5 * (np.log(v) + (x - t) ** 2 / v)),
            gaussian_sample((3, 4)),
            SMOOTH),
        Row("(3,4), var (3,), full, sum",
            lambda x, t, v: F.gaussian_nll_loss(x, t, v, full=True, reduction="sum"),
            lambda x, t, v: np.sum(0.5 * (np.log(v[:, None]) + (x - t) ** 2 / v[:, None]
                                          + np.log(2 * np.pi))),
            gaussian_sample((3,)),
            SMOOTH),
    ],
    "multi_margin_loss": [
        Row("(4,3)", F.multi_margin_loss, np_multi_margin, margin_sample((4,), 3), PIECEWISE),
        Row("p=2, margin 0.5, weight, sum", lambda x, t: F.multi_margin_loss(
            x, t, p=2, margin=0.5, weight=MARGIN_WEIGHT, reduction="sum"), lambda x, t: np_multi_margin(
            x, t, 2, 0.5, MARGIN_WEIGHT, "sum"), margin_sample((5,), 4, 0.5), PIECEWISE),
        Row("(C,) one sample, none", lambda x, t: F.multi_margin_loss(x, t, reduction="none"),
            lambda x, t: np_multi_margin(x, t, reduction="none"), margin_sample((), 4), PIECEWISE),
    ],
}

NN_ROWS = {
    "linear": [
        Row("with bias", F.linear, lambda x, W, b: x @ W + b, normal((3, 4), (4, 2), (2,)), PIECEWISE),
        Row("no bias", F.linear, lambda x, W: x @ W, normal((3, 4), (4, 2)), PIECEWISE),
        Row("3-d x", F.linear, lambda x, W, b: x @ W + b, normal((2, 3, 4), (4, 2), (2,)), PIECEWISE),
        Row("1-d x", F.linear, lambda x, W, b: x @ W + b, normal((4,), (4, 2), (2,)), PIECEWISE),
    ],
    "dropout": [Row("p=0.4 seeded", dropout_seeded, np_dropout_seeded, normal((3, 4)), PIECEWISE)],
    "alpha_dropout": [Row("p=0.4 seeded", alpha_dropout_seeded, np_alpha_dropout_seeded, normal((3, 4)),
                          PIECEWISE)],
    **{op: [Row(f"{shape} p=0.4 seeded", *channel_dropout_seeded(op, leading), normal(shape), PIECEWISE)
            for shape, leading in cases]
       for op, cases in (("dropout1d", [((2, 3, 4), 2), ((3, 5), 1)]),
                         ("dropout2d", [((2, 3, 2, 3), 2)]),
                         ("dropout3d", [((2, 2, 2, 1, 3), 2), ((3, 2, 2, 2), 1)]),
                         ("feature_alpha_dropout", [((3, 4), 2), ((2, 3, 2, 2), 2)]))},
    "local_response_norm": [
        Row("(2,5,3) size 3", lambda x: F.local_response_norm(x, 3, 0.5, 0.75, 1.0),
            lambda x: np_local_response_norm(x, 3, 0.5, 0.75, 1.0), normal((2, 5, 3)), SMOOTH),
        Row("(1,4,2,2) size 2, beta 1.5", lambda x: F.local_response_norm(x, 2, 2.0, 1.5, 0.5),
            lambda x: np_local_response_norm(x, 2, 2.0, 1.5, 0.5), normal((1, 4, 2, 2)), SMOOTH),
        Row("size 6 beyond the channels", lambda x: F.local_response_norm(x, 6, 1.0, 0.6, 2.0),
            lambda x: np_local_response_norm(x, 6, 1.0, 0.6, 2.0), normal((2, 3, 2)), SMOOTH),
    ],
    "rms_norm": [
        Row("(3,4)", F.rms_norm, np_rms_norm, normal((3, 4), (4,)), SMOOTH),
        Row("(2,2,3), no gamma, eps 1e-3", lambda x: F.rms_norm(x, eps=1e-3),
            lambda x: np_rms_norm(x, eps=1e-3), normal((2, 2, 3)), SMOOTH),
    ],
    "layer_norm": [
        Row("(3,4)", F.layer_norm, np_layer_norm, normal((3, 4), (4,), (4,)), SMOOTH),
        Row("(2,2,3)", F.layer_norm, np_layer_norm, normal((2, 2, 3), (3,), (3,)), SMOOTH),
        Row("(3,4), no gamma or beta", F.layer_norm, lambda x: np_layer_norm(x, 1.0, 0.0), normal((3, 4)),
            SMOOTH),
        Row("(2,3), beta alone", lambda x, b: F.layer_norm(x, beta=b), lambda x, b: np_layer_norm(x, 1.0, b),
            normal((2, 3), (3,)), SMOOTH),
    ],
    "group_norm": [
        Row("(2,4,3) 2 groups", lambda x, g, b: F.group_norm(x, 2, g, b),
            lambda x, g, b: np_group_norm(x, 2, g, b), normal((2, 4, 3), (4,), (4,)), SMOOTH),
        Row("(2,2,2,2) 1 group", lambda x, g, b: F.group_norm(x, 1, g, b),
            lambda x, g, b: np_group_norm(x, 1, g, b), normal((2, 2, 2, 2), (2,), (2,)), SMOOTH),
        Row("(2,4,3) 2 groups, no gamma or beta", lambda x: F.group_norm(x, 2),
            lambda x: np_group_norm(x, 2, np.ones(4), np.zeros(4)), normal((2, 4, 3)), SMOOTH),
        Row("(2,4,3) 4 groups, gamma alone", lambda x, g: F.group_norm(x, 4, g),
            lambda x, g: np_group_norm(x, 4, g, np.zeros(4)), normal((2, 4, 3), (4,)), SMOOTH),
    ],
    "batch_norm": [
        Row("(4,3) train", F.batch_norm, np_batch_norm, normal((4, 3), (3,), (3,)), SMOOTH),
        Row("NCHW train", F.batch_norm, np_batch_norm, normal((2, 3, 2, 1), (3,), (3,)), SMOOTH),
        Row("NCHW test mode", batch_norm_test_mode, np_batch_norm_test_mode,
            normal((2, 3, 2, 2), (3,), (3,)), PIECEWISE),
    ],
    "scaled_dot_product_attention": [
        Row("(2,3,4) (2,5,4) (2,5,3)", F.scaled_dot_product_attention, np_attention,
            normal((2, 3, 4), (2, 5, 4), (2, 5, 3)), SMOOTH),
        Row("heads broadcast, scale", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.7),
            lambda q, k, v: np_attention(q, k, v, scale=0.7),
            normal((2, 2, 3, 2), (1, 2, 4, 2), (2, 1, 4, 2)), SMOOTH),
        Row("causal", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
            lambda q, k, v: np_attention(q, k, v, np.tri(3, 4, dtype=bool)), normal((3, 2), (4, 2), (4, 3)),
            SMOOTH),
        Row("boolean mask, a row of none", lambda q, k, v: F.scaled_dot_product_attention(
            q, k, v, ATTENTION_KEEP), lambda q, k, v: np_attention(q, k, v, ATTENTION_KEEP),
            normal((2, 3, 2), (2, 4, 2), (2, 4, 2)), SMOOTH),
        Row("float mask of -inf, a row of none", lambda q, k, v: F.scaled_dot_product_attention(
            q, k, v, np.where(ATTENTION_KEEP, 0.5, -np.inf)), lambda q, k, v: np_attention(
            q, k, v, bias=np.where(ATTENTION_KEEP, 0.5, -np.inf)), normal((3, 2), (4, 2), (4, 2)), SMOOTH),
        Row("float mask, differentiated", F.scaled_dot_product_attention,
            lambda q, k, v, m: np_attention(q, k, v, bias=m), normal((2, 3, 2), (2, 4, 2), (2, 4, 2), (3, 4)),
            SMOOTH),
    ],
    "embed_id": [Row("repeated ids", F.embed_id, lambda ids, W: W[ids], ids_and_table, PIECEWISE)],
    "accuracy": [Row("(5,3)", F.accuracy, lambda y, t: np.mean(np.argmax(y, 1) == t),
                     lambda rng: (rng.standard_normal((5, 3)), rng.integers(0, 3, 5)), NO_GRADIENT)],
}

CONV_ROWS = {
    "im2col": [
        Row("k=2", lambda x: F.im2col(x, 2), lambda x: np_im2col(x, (2, 2), (1, 1), (0, 0)),
            normal((1, 2, 3, 3)), PIECEWISE),
        Row("k=(2,3) s=(1,2) p=(1,0)", lambda x: F.im2col(x, (2, 3), (1, 2), (1, 0)),
            lambda x: np_im2col(x, (2, 3), (1, 2), (1, 0)), normal((2, 1, 3, 5)), PIECEWISE),
    ],
    "col2im": [Row("k=2 s=2 p=1", lambda c: F.col2im(c, (1, 2, 3, 3), 2, 2, 1),
                   lambda c: np_col2im(c, (1, 2, 3, 3), (2, 2), (2, 2), (1, 1)),
                   normal((1, 2, 2, 2, 2, 2)), PIECEWISE)],
    "conv1d": [
        Row("bias", F.conv1d, np_conv1d, normal((2, 2, 6), (3, 2, 3), (3,)), PIECEWISE),
        Row("stride 2 pad 1, no bias", lambda x, W: F.conv1d(x, W, stride=2, pad=1),
            lambda x, W: np_conv1d(x, W, stride=2, pad=1), normal((1, 2, 5), (2, 2, 3)), PIECEWISE),
        Row("dilation 3, pad 'same', groups 2",
            lambda x, W, b: F.conv1d(x, W, b, pad="same", dilation=3, groups=2),
            lambda x, W, b: np_conv1d(x, W, b, pad="same", dilation=3, groups=2),
            normal((2, 4, 7), (4, 2, 2), (4,)), PIECEWISE),
        Row("depthwise, stride 2, dilation 2", lambda x, W: F.conv1d(x, W, stride=2, dilation=2, groups=3),
            lambda x, W: np_conv1d(x, W, stride=2, dilation=2, groups=3), normal((1, 3, 8), (6, 1, 3)),
            PIECEWISE),
    ],
    "conv2d": [
        Row("bias", F.conv2d, np_conv2d, normal((2, 2, 4, 4), (3, 2, 3, 3), (3,)), PIECEWISE),
        Row("stride 2 pad 1, no bias", lambda x, W: F.conv2d(x, W, stride=2, pad=1),
            lambda x, W: np_conv2d(x, W, stride=(2, 2), pad=(1, 1)), normal((1, 2, 5, 5), (2, 2, 3, 3)),
            PIECEWISE),
        Row("pairs", lambda x, W, b: F.conv2d(x, W, b, stride=(1, 2), pad=(0, 1)),
            lambda x, W, b: np_conv2d(x, W, b, stride=(1, 2), pad=(0, 1)),
            normal((1, 1, 4, 3), (2, 1, 2, 2), (2,)), PIECEWISE),
        Row("dilation (2, 1), groups 2", lambda x, W, b: F.conv2d(x, W, b, pad=1, dilation=(2, 1), groups=2),
            lambda x, W, b: np_conv2d(x, W, b, pad=(1, 1), dilation=(2, 1), groups=2),
            normal((2, 4, 5, 4), (6, 2, 2, 3), (6,)), PIECEWISE),
        Row("pad 'same', even kernel, depthwise", lambda x, W: F.conv2d(x, W, pad="same", groups=2),
            lambda x, W: np_conv2d(x, W, pad="same", groups=2), normal((1, 2, 4, 5), (4, 1, 2, 3)),
            PIECEWISE),
        Row("pad 'valid', stride 2, dilation 2",
            lambda x, W: F.conv2d(x, W, stride=2, pad="valid", dilation=2),
            lambda x, W: np_conv2d(x, W, stride=(2, 2), dilation=(2, 2)), normal((1, 2, 6, 7), (2, 2, 2, 2)),
            PIECEWISE),
    ],
    "conv3d": [
        Row("bias", F.conv3d, np_conv3d, normal((2, 2, 3, 4, 3), (3, 2, 2, 2, 2), (3,)), PIECEWISE),
        Row("stride 2 pad 1 dilation 2, no bias", lambda x, W: F.conv3d(x, W, stride=2, pad=1, dilation=2),
            lambda x, W: np_conv3d(x, W, stride=2, pad=1, dilation=2),
            normal((1, 1, 4, 5, 4), (2, 1, 2, 2, 2)), PIECEWISE),
    ],
    "interpolate": [
        Row("nearest (2,3,3,4) -> (5,2)", lambda x: F.interpolate(x, size=(5, 2)),
            lambda x: x[:, :, [0, 0, 1, 1, 2]][:, :, :, [0, 2]], normal((2, 3, 3, 4)), PIECEWISE),
        Row("nearest scale 2, 1-d", lambda x: F.interpolate(x, scale_factor=2),
            lambda x: np.repeat(x, 2, axis=2), normal((2, 2, 3)), PIECEWISE),
        Row("bilinear (1,2,3,4) -> (5,3)", lambda x: F.interpolate(x, size=(5, 3), mode="bilinear"),
            lambda x: np_bilinear(x, (5, 3)), normal((1, 2, 3, 4)), PIECEWISE),
        Row("bilinear align_corners, scale 1.5", lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear",
                                                                          align_corners=True),
            lambda x: np_bilinear(x, (4, 6), align_corners=True), normal((2, 1, 3, 4)), PIECEWISE),
        Row("linear 4 -> 7", lambda x: F.interpolate(x, size=7, mode="linear"),
            lambda x: np_bilinear(x[:, :, None, :], (1, 7))[:, :, 0], normal((2, 3, 4)), PIECEWISE),
        Row("trilinear (1,1,2,3,2) -> (3,3,4)", lambda x: F.interpolate(x, size=(3, 3, 4), mode="trilinear"),
            lambda x: np_trilinear(x, (3, 3, 4)), normal((1, 1, 2, 3, 2)), PIECEWISE),
        Row("bicubic (1,2,3,4) -> (5,3)", lambda x: F.interpolate(x, size=(5, 3), mode="bicubic"),
            lambda x: np_bicubic(x, (5, 3)), normal((1, 2, 3, 4)), PIECEWISE),
        Row("bicubic align_corners (2,1,4,3) -> (7,2)",
            lambda x: F.interpolate(x, size=(7, 2), mode="bicubic", align_corners=True),
            lambda x: np_bicubic(x, (7, 2), align_corners=True), normal((2, 1, 4, 3)), PIECEWISE),
        Row("nearest-exact (1,2,5,3) -> (3,4)", lambda x: F.interpolate(x, size=(3, 4), mode="nearest-exact"),
            lambda x: x[:, :, [int((i + 0.5) * 5 / 3) for i in range(3)]][:, :, :, [int((j + 0.5) * 3 / 4)
                                                                                 for j in range(4)]],
            normal((1, 2, 5, 3)), PIECEWISE),
        Row("area (2,2,5,4) -> (3,2)", lambda x: F.interpolate(x, size=(3, 2), mode="area"),
            lambda x: np_adaptive_pool(x, (3, 2), np.mean), normal((2, 2, 5, 4)), PIECEWISE),
    ],
    "grid_sample": [
        Row("bilinear, zeros", lambda x, g: F.grid_sample(x, g), lambda x, g: np_grid_sample(x, g),
            lambda rng: [rng.standard_normal((2, 2, 3, 4)), rng.uniform(-1.2, 1.2, (2, 3, 2, 2))], PIECEWISE),
        Row("bilinear, border, align_corners",
            lambda x, g: F.grid_sample(x, g, padding_mode="border", align_corners=True),
            lambda x, g: np_grid_sample(x, g, padding_mode="border", align_corners=True),
            lambda rng: [rng.standard_normal((1, 3, 4, 3)), rng.uniform(-1.2, 1.2, (1, 2, 3, 2))], PIECEWISE),
        Row("nearest", lambda x, g: F.grid_sample(x, g, mode="nearest"),
            lambda x, g: np_grid_sample(x, g, mode="nearest"),
            lambda rng: [rng.standard_normal((1, 2, 3, 3)), rng.uniform(-0.9, 0.9, (1, 2, 2, 2))], PIECEWISE),
        *[Row(f"{mode}, {padding}{', align_corners' if corners else ''}",
              lambda x, g, mode=mode, padding=padding, corners=corners: F.grid_sample(
                  x, g, mode=mode, padding_mode=padding, align_corners=corners),
              lambda x, g, mode=mode, padding=padding, corners=corners: np_grid_sample_taps(
                  x, g, mode, padding, corners),
              lambda rng: [rng.standard_normal((1, 2, 3, 4)), rng.uniform(-1.6, 1.6, (1, 2, 3, 2))],
              PIECEWISE)
          for mode, padding, corners in [("bilinear", "reflection", False), ("bilinear", "reflection", True),
                                         ("bicubic", "zeros", False), ("bicubic", "border", True),
                                         ("bicubic", "reflection", False)]],
    ],
    "affine_grid": [
        Row("(2, 1, 3, 4)", lambda t: F.affine_grid(t, (2, 1, 3, 4)),
            lambda t: np_affine_grid(t, (2, 1, 3, 4)), normal((2, 2, 3)), SMOOTH),
        Row("align_corners", lambda t: F.affine_grid(t, (1, 2, 4, 2), align_corners=True),
            lambda t: np_affine_grid(t, (1, 2, 4, 2), align_corners=True), normal((1, 2, 3)), SMOOTH),
    ],
    "adaptive_avg_pool2d": [
        Row("(2,3,5,7) -> (3,4)", lambda x: F.adaptive_avg_pool2d(x, (3, 4)),
            lambda x: np_adaptive_pool(x, (3, 4), np.mean), normal((2, 3, 5, 7)), PIECEWISE),
        Row("(2,4,4) -> 1, global", lambda x: F.adaptive_avg_pool2d(x, 1),
            lambda x: x.mean(axis=(-2, -1), keepdims=True), normal((2, 4, 4)), PIECEWISE),
        Row("(1,2,3,4) -> (6, None), larger", lambda x: F.adaptive_avg_pool2d(x, (6, None)),
            lambda x: np_adaptive_pool(x, (6, 4), np.mean), normal((1, 2, 3, 4)), PIECEWISE),
    ],
    "adaptive_max_pool2d": [
        Row("(2,3,5,7) -> (3,4)", lambda x: F.adaptive_max_pool2d(x, (3, 4)),
            lambda x: np_adaptive_pool(x, (3, 4), np.max), normal((2, 3, 5, 7)), PIECEWISE),
        Row("(2,4,4) -> 1, global", lambda x: F.adaptive_max_pool2d(x, 1),
            lambda x: x.max(axis=(-2, -1), keepdims=True), normal((2, 4, 4)), PIECEWISE),
    ],
    **{f"adaptive_{kind}_pool{d}d": [adaptive_row(kind, d, shape, size) for shape, size in cases]
       for kind in ("avg", "max")
       for d, cases in ((1, [((2, 3, 7), 3), ((3, 5), 1), ((1, 2, 3), (5,))]),
                        (3, [((2, 2, 3, 5, 4), (2, 3, 2)), ((2, 3, 3, 2), 1),
                             ((1, 1, 2, 4, 3), (3, None, 2))]))},
    "deconv2d": [
        Row("bias", F.deconv2d, np_deconv2d, normal((2, 2, 3, 3), (2, 3, 2, 2), (3,)), PIECEWISE),
        Row("stride 2 pad 1, no bias", lambda x, W: F.deconv2d(x, W, stride=2, pad=1),
            lambda x, W: np_deconv2d(x, W, stride=(2, 2), pad=(1, 1)), normal((1, 2, 3, 3), (2, 2, 3, 3)),
            PIECEWISE),
        Row("pairs, outsize", lambda x, W, b: F.deconv2d(x, W, b, stride=(2, 1), pad=(0, 1), outsize=(6, 3)),
            lambda x, W, b: np_deconv2d(x, W, b, stride=(2, 1), pad=(0, 1), outsize=(6, 3)),
            normal((1, 1, 2, 3), (1, 2, 3, 3), (2,)), PIECEWISE),
        Row("stride 2 pad 1 dilation 2 groups 2",
            lambda x, W, b: F.deconv2d(x, W, b, stride=2, pad=1, dilation=2, groups=2),
            lambda x, W, b: np_deconv2d_grouped(x, W, b, 2, 1, 2, 2),
            normal((2, 4, 3, 2), (4, 3, 2, 3), (6,)), PIECEWISE),
    ],
    "deconv1d": [
        Row("bias", F.deconv1d, np_deconv_nd, normal((2, 2, 4), (2, 3, 3), (3,)), PIECEWISE),
        Row("stride 2 pad 1 dilation 2 groups 2, outsize",
            lambda x, W, b: F.deconv1d(x, W, b, stride=2, pad=1, dilation=2, groups=2, outsize=10),
            lambda x, W, b: np_deconv_nd(x, W, b, 2, 1, 2, 2, outsize=[10]),
            normal((2, 4, 4), (4, 3, 3), (6,)), PIECEWISE),
    ],
    "deconv3d": [
        Row("bias", F.deconv3d, np_deconv_nd, normal((1, 2, 2, 3, 2), (2, 3, 2, 2, 2), (3,)), PIECEWISE),
        Row("stride 2 pad 1 groups 2, no bias",
            lambda x, W: F.deconv3d(x, W, stride=2, pad=1, groups=2),
            lambda x, W: np_deconv_nd(x, W, None, 2, 1, 1, 2),
            normal((1, 4, 2, 2, 3), (4, 1, 3, 2, 2)), PIECEWISE),
    ],
    "max_unpool2d": [
        Row("k=2: a 4x4 plane", lambda x: F.max_unpool2d(x, UNPOOL_INDICES, 2),
            lambda x: np_unpool(x, UNPOOL_INDICES, (4, 4)), normal((1, 2, 2, 2)), SMOOTH),
        Row("k=3 s=2 outsize (5, 6), a position taken twice",
            lambda x: F.max_unpool2d(x, UNPOOL_INDICES * 0 + [[[[0, 7], [7, 29]], [[12, 1], [2, 3]]]], 3, 2,
                                     outsize=(5, 6)),
            lambda x: np_unpool(x, np.array([[[[0, 7], [7, 29]], [[12, 1], [2, 3]]]]), (5, 6)),
            normal((1, 2, 2, 2)), SMOOTH),
    ],
    "pooling": [
        Row("k=2 s=2, return_indices: the values", lambda x: F.pooling(x, 2, 2, return_indices=True)[0],
            lambda x: np_pool(x, 2, 2, 0, np.max, -np.inf), normal((2, 2, 4, 4)), PIECEWISE),
        Row("k=2 s=2", lambda x: F.pooling(x, 2, 2), lambda x: np_pool(x, 2, 2, 0, np.max, -np.inf),
            normal((2, 2, 4, 4)), PIECEWISE),
        Row("k=3 s=2 p=1", lambda x: F.pooling(x, 3, 2, 1), lambda x: np_pool(x, 3, 2, 1, np.max, -np.inf),
            normal((1, 2, 5, 5)), PIECEWISE),
        Row("1-d k=3 s=2 p=1", lambda x: F.pooling(x, 3, 2, 1),
            lambda x: np_pool1d(x, 3, 2, 1, np.max, -np.inf), normal((2, 2, 7)), PIECEWISE),
        Row("3-d k=2 s=1", lambda x: F.pooling(x, 2, 1), lambda x: np_pool3d(x, 2, 1, np.max),
            normal((1, 2, 3, 3, 4)), PIECEWISE),
        Row("k=3 s=2 p=1 ceil_mode", lambda x: F.pooling(x, 3, 2, 1, ceil_mode=True),
            lambda x: np_pool_clipped(x, 3, 2, 1, "max", ceil_mode=True), normal((1, 2, 6, 6)), PIECEWISE),
        Row("k=(2,3) s=(1,2) p=(1,1) dilation=(2,1)", lambda x: F.pooling(x, (2, 3), (1, 2), (1, 1),
                                                                            dilation=(2, 1)),
            lambda x: np_max_pool_dilated(x, (2, 3), (1, 2), (1, 1), (2, 1)), normal((2, 1, 5, 6)),
            PIECEWISE),
        Row("1-d k=2 s=1 dilation=3", lambda x: F.pooling(x, 2, 1, dilation=3),
            lambda x: np_max_pool_dilated(x[:, :, None], (1, 2), (1, 1), (0, 0), (1, 3))[:, :, 0],
            normal((2, 2, 7)), PIECEWISE),
    ],
    "average_pooling": [
        Row("3-d k=2 s=2", lambda x: F.average_pooling(x, 2, 2), lambda x: np_pool3d(x, 2, 2, np.mean),
            normal((2, 1, 4, 4, 5)), SMOOTH),
        Row("k=3 s=2 p=1 ceil_mode", lambda x: F.average_pooling(x, 3, 2, 1, ceil_mode=True),
            lambda x: np_pool_clipped(x, 3, 2, 1, "mean", ceil_mode=True), normal((1, 2, 6, 6)), SMOOTH),
        Row("k=3 s=2 p=1 ceil_mode, count_include_pad=False",
            lambda x: F.average_pooling(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
            lambda x: np_pool_clipped(x, 3, 2, 1, "mean", ceil_mode=True, count_include_pad=False),
            normal((2, 1, 6, 5)), SMOOTH),
        Row("k=2 s=1 p=1, count_include_pad=False",
            lambda x: F.average_pooling(x, 2, 1, 1, count_include_pad=False),
            lambda x: np_pool_clipped(x, 2, 1, 1, "mean", count_include_pad=False), normal((1, 2, 3, 4)),
            SMOOTH),
        Row("k=2 s=1", lambda x: F.average_pooling(x, 2), lambda x: np_pool(x, 2, 1, 0, np.mean, 0),
            normal((1, 2, 3, 3)), SMOOTH),
        Row("k=3 s=2 p=1", lambda x: F.average_pooling(x, 3, 2, 1),
            lambda x: np_pool(x, 3, 2, 1, np.mean, 0), normal((2, 1, 5, 5)), PIECEWISE),
        Row("1-d k=2 s=2", lambda x: F.average_pooling(x, 2, 2),
            lambda x: np_pool1d(x, 2, 2, 0, np.mean, 0), normal((2, 3, 6)), SMOOTH),
    ],
}

TABLE = {**ACTIVATION_ROWS, **LOSS_ROWS, **NN_ROWS, **CONV_ROWS}

ROWS = [pytest.param(row, id=f"{name}-{row.label}") for name, rows in TABLE.items() for row in rows]
GRADIENT_ROWS = [p for p in ROWS if p.values[0].order > 0]


def nn_functions():
    """The public names of `function` beyond the primitive ops of `variable`."""
    return [name for name in F.__all__ if name not in V.OPS]


# ----- meta-tests -----------------------------------------------------------------------
def test_every_function_has_rows():
    missing = [name for name in nn_functions() if not TABLE.get(name)]
    assert not missing, f"public functions without a row in TABLE: {missing}"


def test_every_row_names_a_public_function():
    stale = [name for name in TABLE if name not in nn_functions()]
    assert not stale, f"TABLE rows for names that function.__all__ does not export: {stale}"


def test_function_reexports_every_primitive_op():
    # F.pad alone is V.pad behind a guard (it refuses the flat pair PyTorch's F.pad reads otherwise)
    assert all(name in F.__all__ and (getattr(F, name) is getattr(V, name) or name == "pad")
               for name in V.OPS)
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(F.pad(x, ((1, 0), (2, 1)), mode="reflect").data,
                                  V.pad(x, ((1, 0), (2, 1)), mode="reflect").data)
    assert len(set(F.__all__)) == len(F.__all__)
    assert all(callable(getattr(F, name)) for name in F.__all__)


# ----- the row checks ---------------------------------------------------------------------
@pytest.mark.parametrize("row", ROWS)
def test_forward_matches_numpy(row, rng, device_row):
    device_row(row)
    values = row.sample(rng)
    y = row.fn(*values)
    expected = row.ref(*values)
    if row.order == NO_GRADIENT:
        assert type(y) is float
        assert y == pytest.approx(float(expected), rel=1e-12)
        return
    assert isinstance(y, V.Variable)
    assert y.shape == np.shape(expected)
    np.testing.assert_allclose(y.data, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("row", GRADIENT_ROWS)
def test_gradcheck(row, rng, device_row):
    device_row(row)
    assert V.gradcheck(row.fn, *row.sample(rng), order=device_order(row.order))


@pytest.mark.parametrize("row", GRADIENT_ROWS)
def test_taylor_matches_nested_reverse(row, rng, device_row):
    device_row(row)
    # every function with a gradient has a Taylor rule: V.taylor to order 6, V.jvp vs V.jacobian
    assert V.taylorcheck(row.fn, *row.sample(rng), order=device_order(TAYLOR, DEVICE_TAYLOR))


@pytest.mark.parametrize("row", GRADIENT_ROWS)
def test_many_directions_in_one_pass(row, rng, device_row, directions_check):
    device_row(row)
    directions_check(row.fn, *row.sample(rng), order=device_order(2, 1))


@pytest.mark.parametrize("row", GRADIENT_ROWS)
def test_taylor_results_are_differentiable(row, rng, device_row, recording_check):
    # reverse over Taylor: a Laplacian in a loss, V.jvp of a function of parameters
    device_row(row)
    recording_check(row.fn, *row.sample(rng), order=device_order(2, 1))


@pytest.mark.parametrize("row", ROWS)
def test_float32_stays_float32(row, rng, device_row):
    device_row(row)
    values = as_float32(row.sample(rng))
    xs = float_inputs(values)
    y = row.fn(*xs)
    if row.order == NO_GRADIENT:
        assert type(y) is float
        return
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.data, row.ref(*values), rtol=2e-4, atol=2e-5)
    variables = [x for x in xs if isinstance(x, V.Variable)]
    gs = V.grad(y, variables, create_graph=True, allow_unused=True)
    assert all(g is None or g.dtype == np.float32 for g in gs)
    y.backward()
    assert all(x.grad.dtype == np.float32 for x in variables if x.grad is not None)


@pytest.mark.parametrize("row", GRADIENT_ROWS)
def test_constants_record_no_graph(row, rng, device_row):
    device_row(row)
    y = row.fn(*row.sample(rng))
    assert y.creator is None and not y.requires_grad
