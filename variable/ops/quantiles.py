"""Quantiles: median, percentile, quantile, ptp, and nanmedian, nanpercentile, nanquantile.

All four are composites, so their gradients and Taylor rules are those of the ops they are
made of.  The reduced axes are moved last and merged into one, which is sorted (a stable
`sort`); a quantile is then a linear interpolation between two order statistics,

    y = s[lo] + g (s[hi] - s[lo]),

where `lo`, `hi` and the weight `g` depend only on the slice length n, on q and on the
method, never on the data: they are computed on the host from q, and the gradient flows
to the entries sorted into positions lo and hi with weights 1 - g and g, as in PyTorch's
torch.quantile.  Tied entries take sorted positions in their order in the input, so the
gradient of a position goes to that one entry (PyTorch's median also picks one).  A slice
holding a NaN gives NaN, as in NumPy; its gradient goes to the NaN sorted last.  `ptp` is
max - min, whose tied extremes share the gradient evenly (as V.max and V.min do).

nanmedian, nanpercentile and nanquantile skip NaN entries.  NaN sorts last, so each sorted
slice holds its n_i entries that are not NaN first; lo, hi and g then depend on n_i and are
computed from the count array by array operations on the data's device (no host sync, no
loop over slices), and the two order statistics are gathered by take_along_axis at those
constant positions.  NaN entries are never gathered (gradient 0); an all-NaN slice gives
NaN by a `where` on a constant mask, so its entries get gradient 0 and no NaN reaches the
gradient of other entries.  No RuntimeWarning is emitted (NumPy warns "All-NaN slice
encountered").
"""

import warnings

import numpy as np

from ..axes import kept_shape, normalize_axis
from ..backend import get_array_module, is_device_array, maybe_any, to_cpu
from ..forwarder import Variable, as_variable
from ..types import ArrayLike, Axis
from .nanfunctions import _given
from .piecewise import where
from .products import _refuse_keywords
from .reduction import _count, _reduced_shape
from .reduction import max as _max
from .reduction import mean as _mean
from .reduction import min as _min
from .selection import sort, take, take_along_axis
from .shape import reshape, transpose
from .statistics import _weights_along as _laid_along

_CONTINUOUS = {   # Hyndman and Fan's (alpha, beta): virtual index n q + alpha + q (1 - alpha - beta) - 1
    "interpolated_inverted_cdf": (0.0, 1.0),
    "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0),
    "median_unbiased": (1 / 3, 1 / 3),
    "normal_unbiased": (3 / 8, 3 / 8),
}
_DISCRETE = ("inverted_cdf", "closest_observation", "lower", "higher", "nearest")
METHODS = (
    "inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
    "hazen", "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher",
    "midpoint", "nearest",
)
"""NumPy's 13 quantile methods, all supported."""


# ----- q and the method: positions in the sorted slice, on the host -------------------
def _fractions(q, op, scale):
    """q as a host array of fractions in [0, 1] (percentages divided by `scale` = 100)."""
    if isinstance(q, Variable):
        if q.requires_grad:
            raise TypeError(
                f"{op}: q is a constant of the op (it is not differentiated); pass numbers or an "
                f"array, e.g. q.detach()"
            )
        q = q.data
    if is_device_array(q):
        q = to_cpu(q)                                  # (q is small: one read of it, not of the data)
    try:
        q = np.asarray(q)
    except ValueError:
        raise TypeError(f"{op}: q must be a number or a rectangular array of numbers, got {q!r}") from None
    if q.dtype.kind not in "iuf":
        raise TypeError(f"{op}: q must be real numbers, got dtype {q.dtype}")
    if q.ndim > 2:
        raise ValueError(f"{op}: q must be a scalar, 1-D or 2-D (as in NumPy), got shape {q.shape}")
    bound = "[0, 1]" if scale == 1 else "[0, 100]"
    outside = ~((q >= 0) & (q <= scale))               # (NaN is outside)
    if outside.any():
        raise ValueError(f"{op}: q must lie in {bound}, got {q[outside].tolist()}")
    if q.dtype.kind != "f":
        q = q.astype(np.float64)
    return np.true_divide(q, scale) if scale != 1 else q


def _positions(method, n, q):
    """(lo, hi, g): integer positions in a sorted slice of length n >= 1 and weights of q's
    shape, with the quantile at s[lo] + g (s[hi] - s[lo]); g is 0 where one position is meant.

    n is a number, or an array of slice lengths (shaped to broadcast against q) on the
    data's device, with q there too: the positions then come out there, one per slice."""
    xp = get_array_module(n, q)
    if method in _DISCRETE:
        if method == "lower":
            index = xp.floor((n - 1) * q)
        elif method == "higher":
            index = xp.ceil((n - 1) * q)
        elif method == "nearest":
            index = xp.around((n - 1) * q)             # (halves to even, as NumPy)
        else:                                          # the first order statistic reaching n q
            v = n * q - 1 if method == "inverted_cdf" else n * q - 1.5
            below = xp.floor(v)
            if method == "inverted_cdf":
                exact = v == below
            else:                                      # closest_observation: the even one at a tie
                exact = (v == below) & (below % 2 == 1)
            index = xp.maximum(xp.where(exact, below, below + 1), 0)
        index = index.astype(np.intp)
        return index, index, xp.zeros(index.shape)
    if method == "linear":
        v = (n - 1) * q
    elif method == "midpoint":                         # halfway between floor and ceil
        v = 0.5 * (xp.floor((n - 1) * q) + xp.ceil((n - 1) * q))
    elif method == "averaged_inverted_cdf":
        v = n * q - 1
    else:
        alpha, beta = _CONTINUOUS[method]
        v = n * q + (alpha + q * (1 - alpha - beta)) - 1
    lo = xp.floor(v)
    g = xp.asarray(v - lo, dtype=np.float64)
    if method == "averaged_inverted_cdf":              # the mean of two at a jump, else the upper
        g = xp.where(g == 0, 0.5, 1.0)
    lo = lo.astype(np.intp)
    hi = lo + 1
    upper = g == 1                                     # all weight on hi: one position
    lo = xp.where(upper, hi, lo)
    g = xp.where(upper, 0.0, g)
    clipped = (v >= n - 1) | (v < 0)                   # beyond the ends: the extreme itself
    end = xp.where(v < 0, 0, n - 1)
    lo, hi = xp.where(clipped, end, lo), xp.where(clipped, end, hi)
    return lo, hi, xp.where(clipped, 0.0, g)


# ----- the shared composite ----------------------------------------------------------
def _sorted_slices(a, axes):
    """`a` with the axes in `axes` (None: all) moved last, merged and sorted stably."""
    if axes is None:
        return sort(reshape(a, (-1,)), axis=-1, kind="stable")
    others = [i for i in range(a.ndim) if i not in axes]
    moved = transpose(a, others + list(axes))
    merged = reshape(moved, tuple(a.shape[i] for i in others) + (_count(a.shape, axes),))
    return sort(merged, axis=-1, kind="stable")


def _interpolate(s, lo, hi, g):
    """s[..., lo] + g (s[..., hi] - s[..., lo]), as NumPy's lerp: from hi's side for g >= 1/2."""
    lower = take(s, lo, axis=-1)
    if not g.any():
        return lower
    xp = get_array_module(s)
    from_hi = g >= 0.5
    base = take(s, np.where(from_hi, hi, lo), axis=-1)
    gap = take(s, hi, axis=-1) - lower                 # d = s[hi] - s[lo]
    y = base + gap * xp.asarray(np.where(from_hi, g - 1, g), dtype=s.dtype)   # s[hi] - d (1 - g)
    exact = g == 0
    if exact.any():                                    # one order statistic: no inf - inf
        y = where(xp.asarray(exact), lower, y)
    return y


def _nan_slices(s, y, q_ndim):
    """`y` (of shape rest + q's shape), NaN where the sorted slice of `s` holds a NaN (last)."""
    if s.dtype.kind != "f" or s.shape[-1] == 0:
        return y
    xp = get_array_module(s)
    last = s.data[..., -1]
    nan = xp.isnan(last)
    if not maybe_any(nan):
        return y
    shape = last.shape + (1,) * q_ndim
    at_end = take(s, np.full((1,) * q_ndim, s.shape[-1] - 1, dtype=np.intp), axis=-1)
    return where(nan.reshape(shape), at_end, y)        # the NaN itself: its gradient goes there


def _interpolate_each(s, q, method):
    """The quantiles of each sorted slice of `s` over its entries that are not NaN (sorted
    last), of shape rest + q's shape: each slice's positions come from its own count n_i, by
    array operations on the data's device (no host sync), and the two order statistics are
    gathered by take_along_axis at those constant positions."""
    xp = get_array_module(s)
    rest = s.shape[:-1]
    count = (~xp.isnan(s.data)).sum(axis=-1)           # n_i; an all-NaN slice reads position 0
    n = xp.maximum(count, 1).astype(q.dtype).reshape(rest + (1,) * q.ndim)   # (n's type: NumPy's)
    lo, hi, g = (xp.broadcast_to(p, rest + q.shape).reshape(rest + (q.size,))
                 for p in _positions(method, n, xp.asarray(q)))
    lower = take_along_axis(s, lo.astype(np.intp), axis=-1)
    if method in _DISCRETE:                            # one order statistic: s[lo]
        return reshape(lower, rest + q.shape)
    upper = take_along_axis(s, hi.astype(np.intp), axis=-1)
    exact = g == 0                                     # one order statistic: s[lo] as it is,
    lower0, upper0 = where(exact, 0, lower), where(exact, 0, upper)   # no inf - inf nor inf * 0
    from_hi = g >= 0.5                                 # NumPy's lerp: from hi's side for g >= 1/2
    c = xp.where(from_hi, g - 1, g).astype(s.dtype)
    y = where(from_hi, upper0, lower0) + (upper0 - lower0) * c   # s[lo] + g d, or s[hi] - (1 - g) d
    return reshape(where(exact, lower, y), rest + q.shape)


def _all_nan_slices(s, y, q_ndim):
    """`y` (of shape rest + q's shape) with NaN where the sorted slice of `s` is all NaN (its
    first entry is): put in by a `where`, so those slices' entries get gradient 0."""
    xp = get_array_module(s)
    empty = xp.isnan(s.data[..., 0])
    if not maybe_any(empty):
        return y
    return where(empty.reshape(empty.shape + (1,) * q_ndim), np.nan, y)


def _weights_skipping_nan(w, nan, axes):
    """The weights `w` (of a's shape) with 0 at the NaN entries of `a` (`nan`, its mask), so
    the weighted quantile skips them, and 1 throughout an all-NaN slice (its result is NaN,
    put in by `_all_nan_slices`), so that only a slice of zero weights is refused."""
    xp = get_array_module(w)
    all_nan = nan.all(axis=axes, keepdims=True)
    return xp.where(nan, xp.where(all_nan, 1, 0), w)


def _placed(y, a, axes, keepdims, q_ndim):
    """`y` of shape rest + q's shape as NumPy's result: q's axes first, then the reduced shape."""
    rest = y.ndim - q_ndim
    y = transpose(y, list(range(rest, y.ndim)) + list(range(rest)))
    tail = kept_shape(a.shape, axes) if keepdims else _reduced_shape(a.shape, axes)
    return reshape(y, y.shape[:q_ndim] + tuple(tail))


def _method(method, interpolation, op):
    """`method`, or the deprecated `interpolation` in its place (NumPy 2.0 to 2.3)."""
    if interpolation is not None and method != "linear":
        raise TypeError(f"{op}: give method or interpolation, not both (interpolation is method's old name)")
    name = method if interpolation is None else interpolation
    if name not in METHODS:
        raise ValueError(f"{op}: method must be one of {', '.join(METHODS)}; got {name!r}")
    if interpolation is not None:
        warnings.warn(
            f"{op}: the interpolation= argument is deprecated (as in NumPy); use method=",
            DeprecationWarning, stacklevel=4,
        )
    return name


def _weights_along(weights, a, axis, op):
    """Constant weights broadcast to a's shape, on a's device (NumPy's rule: of a's shape, or
    of a's shape along `axis`, in the order `axis` names the axes)."""
    if isinstance(weights, Variable):
        if weights.requires_grad:
            raise TypeError(
                f"{op}: weights are constants of the op (the weighted quantile is piecewise "
                f"constant in them); pass an array, e.g. weights.detach()"
            )
        weights = weights.data
    if is_device_array(weights) and not is_device_array(a.data):
        raise TypeError(
            f"{op}: weights on the GPU and data on the CPU; move the weights with "
            f"V.backend.to_cpu(weights), or the data with a.to_gpu()"
        )
    w = weights if is_device_array(weights) else np.asarray(weights)
    if w.dtype.kind not in "iuf":
        raise TypeError(f"{op}: weights must be real numbers, got dtype {w.dtype}")
    w = _laid_along(w, a, axis, op)
    xp = get_array_module(a)
    w = xp.broadcast_to(xp.asarray(w), a.shape)
    if bool((w < 0).any()):
        raise ValueError(f"{op}: weights must be non-negative")
    return w


def _weighted(a, q, axes, w, op):
    """The weighted inverted_cdf quantile: the first sorted entry whose share of the total
    weight reaches q.  Returns (sorted slices, y of shape rest + q's shape)."""
    xp = get_array_module(a)
    if axes is None:
        x, w = reshape(a, (-1,)), w.reshape(-1)
    else:
        others = [i for i in range(a.ndim) if i not in axes]
        shape = tuple(a.shape[i] for i in others) + (_count(a.shape, axes),)
        x = reshape(transpose(a, others + list(axes)), shape)
        w = xp.transpose(w, others + list(axes)).reshape(shape)
    order = xp.argsort(x.data, axis=-1, kind="stable" if xp is np else None)
    s = take_along_axis(x, order, axis=-1)
    cdf = xp.cumsum(xp.take_along_axis(w, order, axis=-1), axis=-1, dtype=np.float64)
    total = cdf[..., -1:]
    if not bool(xp.all(xp.isfinite(total) & (total > 0))):
        raise ValueError(f"{op}: the weights hold NaN or inf, or sum to 0 along the axis")
    cdf = cdf / total
    if q.dtype.kind == "f":
        cdf = cdf.astype(q.dtype)
    cdf = xp.where(cdf == 0, -1, cdf)                  # leading zero weights: never picked at q = 0
    fractions = xp.asarray(q.reshape(-1))
    # first i with cdf[i] >= q: the count of cdf < q, at most n - 1
    index = (cdf[..., None, :] < fractions[:, None]).sum(axis=-1)
    index = xp.minimum(index, x.shape[-1] - 1)
    y = take_along_axis(s, index, axis=-1)             # rest + (m,)
    return s, reshape(y, y.shape[:-1] + q.shape)


def _quantile(a, q, axis, out, method, keepdims, weights, interpolation, op, scale, skip_nan=False):
    """quantile and percentile: q (host fractions) at `method` over `axis`; with `skip_nan`,
    nanquantile and nanpercentile: over the entries that are not NaN."""
    _refuse_keywords(op, out=out)
    method = _method(method, interpolation, op)
    q = _fractions(q, op, scale)
    a = as_variable(a, op=op)
    axes = normalize_axis(axis, a.ndim, op, a.shape)
    keepdims = bool(keepdims)
    if weights is not None:
        if method != "inverted_cdf":
            raise ValueError(f"{op}: only method='inverted_cdf' takes weights (as in NumPy), got {method!r}")
        weights = _weights_along(weights, a, axis, op)
    if skip_nan and a.size == 0:                       # as NumPy: nanmean of the empty input,
        return _mean(a, axes, keepdims)                # NaN over an empty axis, without q's axes
    n = _count(a.shape, axes)
    if n == 0:
        raise ValueError(
            f"{op}: cannot take a quantile over an empty axis (input of shape {a.shape}); an empty "
            f"slice has no order statistics"
        )
    nan = get_array_module(a).isnan(a.data) if skip_nan and a.dtype.kind == "f" else None
    if nan is not None and not maybe_any(nan):
        nan = None                                     # no NaN to skip (known on the host only)
    if weights is not None:
        if nan is not None:
            weights = _weights_skipping_nan(weights, nan, axes)
        s, y = _weighted(a, q, axes, weights, op)
    else:
        if method not in _DISCRETE and a.dtype == np.bool_:
            raise TypeError(
                f"{op}: method {method!r} interpolates, which subtracts booleans (NumPy refuses "
                f"boolean input there too); cast it first, e.g. a.astype(float), or use a "
                f"discrete method such as 'lower' or 'nearest'"
            )
        if method not in _DISCRETE and a.dtype.kind != "f":
            a = a.astype(np.float64)                   # interpolated: float64, as in NumPy
        s = _sorted_slices(a, axes)
        if nan is not None:                            # per-slice positions, on the device
            y = _interpolate_each(s, q, method)
        else:
            lo, hi, g = _positions(method, n, q)
            y = _interpolate(s, lo, hi, g)
    y = _nan_slices(s, y, q.ndim) if nan is None else _all_nan_slices(s, y, q.ndim)
    return _placed(y, a, axes, keepdims, q.ndim)


# ----- the public ops ----------------------------------------------------------------
def median(a: ArrayLike, axis: Axis = None, out: None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Variable:
    """Median of `a` over `axis`: the middle sorted entry, or the mean of the two middle ones.

    The gradient goes to the middle entry (1), or to the two middle ones (1/2 each).  Tied
    entries take sorted positions in their order in the input (a stable sort), so at a tie
    one entry gets the gradient of a position, as in PyTorch's median.  A slice holding a
    NaN has median NaN, as in NumPy, and its gradient goes to its last NaN.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    out : None
        Not supported (a Variable is never written in place).
    overwrite_input : bool
        Accepted and ignored: in NumPy only a hint that `a` may be reordered to save memory;
        gengrad never changes its input.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.

    Returns
    -------
    Variable
        The medians (float64 for integer input, as in NumPy); NaN over an empty axis.

    Raises
    ------
    TypeError
        If `out` is given, `axis` is not None, an int or a tuple of ints, or `a` is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated.
    """
    _refuse_keywords("median", out=out)
    a = as_variable(a, op="median")
    axes = normalize_axis(axis, a.ndim, "median", a.shape)
    keepdims = bool(keepdims)
    n = _count(a.shape, axes)
    if n == 0:                                         # NaN, as NumPy (mean of nothing)
        return _mean(a, axes, keepdims)
    s = _sorted_slices(a, axes)
    middle = [n // 2] if n % 2 else [n // 2 - 1, n // 2]
    y = _mean(take(s, np.array(middle), axis=-1), axis=-1)   # NumPy's mean of the middle one(s)
    return _placed(_nan_slices(s, y, 0), a, axes, keepdims, 0)


def quantile(
    a: ArrayLike,
    q: ArrayLike,
    axis: Axis = None,
    out: None = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: ArrayLike | None = None,
    interpolation: str | None = None,
) -> Variable:
    """The q-th quantiles of `a` over `axis`, for q in [0, 1], by NumPy's `method`.

    A quantile interpolates linearly between two order statistics, s[lo] + g (s[hi] - s[lo]),
    where lo, hi and g depend on n, q and the method only; the gradient flows to the
    entries sorted into positions lo and hi with weights 1 - g and g, as in PyTorch's
    torch.quantile (the discrete methods pick one entry: weight 1).  Tied entries take
    sorted positions in their order in the input (a stable sort).  A slice holding a NaN
    gives NaN, as in NumPy, and its gradient goes to its last NaN.  Where a method lands on
    one order statistic (g = 0, e.g. q = 0 or 1) that entry is returned as it is, so an
    infinite extreme gives inf where NumPy's interpolation yields NaN (inf - inf).

    Parameters
    ----------
    a : ArrayLike
    q : number or array-like of at most 2 dimensions
        The quantiles, in [0, 1].  A constant: it is not differentiated (a Variable that
        requires grad is refused; one that does not, say `q.detach()`, is read as data).
        It is read on the host (a small copy if it lives on the GPU).
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    out : None
        Not supported (a Variable is never written in place).
    overwrite_input : bool
        Accepted and ignored: in NumPy only a hint that `a` may be reordered to save memory;
        gengrad never changes its input.
    method : str
        One of NumPy's 13: 'linear' (default), 'lower', 'higher', 'nearest', 'midpoint',
        'inverted_cdf', 'averaged_inverted_cdf', 'closest_observation',
        'interpolated_inverted_cdf', 'hazen', 'weibull', 'median_unbiased',
        'normal_unbiased'.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    weights : array-like, optional
        Non-negative constant weights (method 'inverted_cdf' only, as in NumPy), of a's
        shape or of a's shape along `axis`; the quantile is then the first sorted entry
        whose share of the total weight reaches q.  Not differentiated: a Variable that
        requires grad is refused.
    interpolation : str, optional
        Deprecated old name of `method` (NumPy 2.0 to 2.3): used as it, with a
        DeprecationWarning.

    Returns
    -------
    Variable
        Of shape q.shape followed by the reduced shape (the kept one with keepdims), as in
        NumPy.  The dtype of `a` for floating input (float32 stays float32, also for an
        array q, where NumPy gives float64); float64 for integer input, except with the
        discrete methods ('lower', 'higher', 'nearest', 'inverted_cdf',
        'closest_observation'), which keep it.

    Raises
    ------
    TypeError
        If `out` is given, `q` or `weights` is a Variable that requires grad or not real
        numbers, both `method` and `interpolation` are given, weights of another shape
        come without `axis`, `axis` is not None, an int or a tuple of ints, `a` is not
        array-like, or `a` is boolean and the method interpolates (all but the discrete
        ones; NumPy refuses it too).
    ValueError
        If q is outside [0, 1] (or NaN) or has more than 2 dimensions, `method` is unknown,
        an axis is out of range or repeated, an axis reduced over is empty (NumPy fails
        there too), or the weights do not fit, are negative, hold NaN or inf, sum to 0,
        or come with another method than 'inverted_cdf'.
    """
    return _quantile(a, q, axis, out, method, keepdims, weights, interpolation, "quantile", 1)


def percentile(
    a: ArrayLike,
    q: ArrayLike,
    axis: Axis = None,
    out: None = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: ArrayLike | None = None,
    interpolation: str | None = None,
) -> Variable:
    """The q-th percentiles of `a` over `axis`, for q in [0, 100]: quantile(a, q / 100).

    The gradient flows to the entries sorted into the two interpolated positions, with the
    interpolation weights, as in PyTorch's torch.quantile; see `quantile` for ties, NaN and
    infinite extremes.

    Parameters
    ----------
    a : ArrayLike
    q : number or array-like of at most 2 dimensions
        The percentiles, in [0, 100]; a constant (see `quantile`).
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    out : None
        Not supported (a Variable is never written in place).
    overwrite_input : bool
        Accepted and ignored: in NumPy only a hint that `a` may be reordered to save memory;
        gengrad never changes its input.
    method : str
        One of NumPy's 13 methods ('linear' by default), as in `quantile`.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    weights : array-like, optional
        Non-negative constant weights, with method 'inverted_cdf' only (see `quantile`).
    interpolation : str, optional
        Deprecated old name of `method` (NumPy 2.0 to 2.3), with a DeprecationWarning.

    Returns
    -------
    Variable
        Of shape q.shape followed by the reduced shape (the kept one with keepdims); dtype
        as in `quantile`.

    Raises
    ------
    TypeError
        As `quantile`.
    ValueError
        If q is outside [0, 100] (or NaN), and otherwise as `quantile`.
    """
    return _quantile(a, q, axis, out, method, keepdims, weights, interpolation, "percentile", 100)


def nanmedian(a: ArrayLike, axis: Axis = None, out: None = None, overwrite_input: bool = False,
              keepdims: bool = np._NoValue) -> Variable:
    """Median of the entries of `a` over `axis` that are not NaN.

    Each slice's middle entry, or the mean of its two middle ones (NumPy's value; PyTorch's
    nanmedian takes the lower one), among its n_i entries that are not NaN; the gradient
    goes to the middle entry (1), or to the two middle ones (1/2 each), and is exactly 0 at
    NaN entries.  Tied entries take sorted positions in their order in the input (a stable
    sort), so at a tie one entry gets the gradient of a position, as in PyTorch's
    nanmedian.  An all-NaN slice gives NaN (without NumPy's "All-NaN slice encountered"
    warning) and its entries gradient 0.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    out : None
        Not supported (a Variable is never written in place).
    overwrite_input : bool
        Accepted and ignored: in NumPy only a hint that `a` may be reordered to save memory;
        gengrad never changes its input.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.

    Returns
    -------
    Variable
        The medians; NaN for an all-NaN slice and for empty input (as NumPy).  Integer and
        boolean input holds no NaN: V.median's result (float64 for integers).

    Raises
    ------
    TypeError
        If `out` is given, `axis` is not None, an int or a tuple of ints, or `a` is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated.
    """
    keepdims = bool(_given(keepdims, False))
    _refuse_keywords("nanmedian", out=out)
    a = as_variable(a, op="nanmedian")
    axes = normalize_axis(axis, a.ndim, "nanmedian", a.shape)
    if a.dtype.kind != "f" or (a.size and not maybe_any(get_array_module(a).isnan(a.data))):
        return median(a, axes, keepdims=keepdims)      # no NaN to skip
    if a.size == 0:                                    # NaN over an empty axis, as NumPy
        return _mean(a, axes, keepdims)
    xp = get_array_module(a)
    s = _sorted_slices(a, axes)                        # NaN sorted last
    n = xp.maximum((~xp.isnan(s.data)).sum(axis=-1, keepdims=True), 1)   # n_i (an all-NaN slice: 1)
    lower = take_along_axis(s, (n - 1) // 2, axis=-1)  # the middle one or two of n_i
    upper = take_along_axis(s, n // 2, axis=-1)
    y = reshape(0.5 * lower + 0.5 * upper, s.shape[:-1])   # their mean (x itself when one; no overflow)
    return _placed(_all_nan_slices(s, y, 0), a, axes, keepdims, 0)


def nanquantile(
    a: ArrayLike,
    q: ArrayLike,
    axis: Axis = None,
    out: None = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = np._NoValue,
    *,
    weights: ArrayLike | None = None,
    interpolation: str | None = None,
) -> Variable:
    """The q-th quantiles of the entries of `a` over `axis` that are not NaN, for q in [0, 1].

    Each slice's quantile among its n_i entries that are not NaN, by NumPy's `method`: an
    interpolation s[lo] + g (s[hi] - s[lo]) between two of its order statistics, where lo,
    hi and g depend on n_i, q and the method only.  They are computed per slice from the
    count of entries that are not NaN, on the data's device without a host sync.  The
    gradient flows to the entries sorted into positions lo and hi with weights 1 - g and
    g, as in PyTorch's torch.nanquantile (the discrete methods pick one entry: weight 1),
    and is exactly 0 at NaN entries.  Tied entries take sorted positions in their order in
    the input (a stable sort).  An all-NaN slice gives NaN (without NumPy's "All-NaN slice
    encountered" warning) and its entries gradient 0.

    Parameters
    ----------
    a : ArrayLike
    q : number or array-like of at most 2 dimensions
        The quantiles, in [0, 1]: a constant (see `quantile`), read on the host.
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    out : None
        Not supported (a Variable is never written in place).
    overwrite_input : bool
        Accepted and ignored: in NumPy only a hint that `a` may be reordered to save memory;
        gengrad never changes its input.
    method : str
        One of NumPy's 13 methods ('linear' by default), as in `quantile`.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    weights : array-like, optional
        Non-negative constant weights, with method 'inverted_cdf' only, as in `quantile`;
        those of NaN entries are left out.  Reading them is a host sync (they are checked).
    interpolation : str, optional
        Deprecated old name of `method` (NumPy 2.0 to 2.3), with a DeprecationWarning.

    Returns
    -------
    Variable
        Of shape q.shape followed by the reduced shape (the kept one with keepdims), dtype as
        in `quantile`; NaN for an all-NaN slice.  Empty input gives NaN of the shape without
        q's axes, as NumPy (its nanmean).  Integer and boolean input holds no NaN: V.quantile's
        result.

    Raises
    ------
    TypeError
        As `quantile`.
    ValueError
        As `quantile`, except that an empty input gives NaN; and if the weights of a
        slice's entries that are not NaN sum to 0 (NumPy refuses too).
    """
    return _quantile(a, q, axis, out, method, _given(keepdims, False), weights, interpolation,
                     "nanquantile", 1, skip_nan=True)


def nanpercentile(
    a: ArrayLike,
    q: ArrayLike,
    axis: Axis = None,
    out: None = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = np._NoValue,
    *,
    weights: ArrayLike | None = None,
    interpolation: str | None = None,
) -> Variable:
    """The q-th percentiles of the entries of `a` over `axis` that are not NaN, for q in
    [0, 100]: nanquantile(a, q / 100).

    The gradient flows to the entries sorted into the two interpolated positions of each
    slice's entries that are not NaN, with the interpolation weights, as in PyTorch's
    torch.nanquantile, and is exactly 0 at NaN entries; an all-NaN slice gives NaN (without
    NumPy's warning) and its entries gradient 0.  See `nanquantile`.

    Parameters
    ----------
    a : ArrayLike
    q : number or array-like of at most 2 dimensions
        The percentiles, in [0, 100]; a constant (see `quantile`).
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    out : None
        Not supported (a Variable is never written in place).
    overwrite_input : bool
        Accepted and ignored (gengrad never changes its input).
    method : str
        One of NumPy's 13 methods ('linear' by default), as in `quantile`.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    weights : array-like, optional
        Non-negative constant weights, with method 'inverted_cdf' only (see `nanquantile`).
    interpolation : str, optional
        Deprecated old name of `method` (NumPy 2.0 to 2.3), with a DeprecationWarning.

    Returns
    -------
    Variable
        As `nanquantile`.

    Raises
    ------
    TypeError
        As `quantile`.
    ValueError
        If q is outside [0, 100] (or NaN), and otherwise as `nanquantile`.
    """
    return _quantile(a, q, axis, out, method, _given(keepdims, False), weights, interpolation,
                     "nanpercentile", 100, skip_nan=True)


def ptp(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Variable:
    """Range ("peak to peak") of `a` over `axis`: max - min.

    The gradient is that of V.max minus that of V.min: tied maxima (and minima) share it
    evenly, as in PyTorch and JAX, so a constant slice has range 0 and gradient 0.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    out : None
        Not supported (a Variable is never written in place).
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.

    Returns
    -------
    Variable
        The ranges, of a's dtype; NaN for a slice holding a NaN.

    Raises
    ------
    TypeError
        If `out` is given, `axis` is not None, an int or a tuple of ints, `a` is not
        array-like, or `a` is boolean (NumPy refuses it too: max - min subtracts).
    ValueError
        If an axis is out of range or repeated, or an axis reduced over is empty (as in
        NumPy: an empty slice has no extremes).
    """
    _refuse_keywords("ptp", out=out)
    a = as_variable(a, op="ptp")
    axes = normalize_axis(axis, a.ndim, "ptp", a.shape)
    if _count(a.shape, axes) == 0:
        raise ValueError(
            f"ptp: cannot reduce over an empty axis (input of shape {a.shape}): an empty slice has "
            f"no extremes; reduce over non-empty axes, or check the size first"
        )
    if a.dtype == np.bool_:
        raise TypeError(
            "ptp: boolean input: max - min subtracts booleans, which NumPy refuses too; cast it "
            "first, e.g. a.astype(int), or use V.max(a) != V.min(a)"
        )
    keepdims = bool(keepdims)
    return _max(a, axes, keepdims) - _min(a, axes, keepdims)


__all__ = ["median", "percentile", "quantile", "ptp", "nanmedian", "nanpercentile", "nanquantile"]
