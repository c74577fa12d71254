"""Reductions over axes: sum, mean, variance, max, min, logsumexp.

Each takes `axis=None | int | tuple` (negatives allowed) and `keepdims`.  Backward
reshapes the incoming gradient to the kept-dims shape and broadcasts it back.

Over an empty axis (length 0) they answer as PyTorch does, without NumPy's warnings: a
sum is 0, a mean or variance NaN, a logsumexp -inf (the log of an empty sum), and max and
min raise a ValueError (an empty slice has no extreme).  Gradients are then empty arrays
of the input's shape.
"""

import math
import sys

import numpy as np

from .. import backend, series
from ..axes import kept_shape, normalize_axis
from ..backend import errstate, get_array_module, is_device_array, maybe_any
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike, Axis
from ..variable import _EXTREMUM_FIX, refuse_torchs_pair
from .elementwise import _multiply, exp
from .piecewise import maximum, minimum, where
from .piecewise import where as _select  # (the reductions' own `where=` hides `where`
from .shape import broadcast_to, reshape


def _spread(gy, x, axes):
    """Broadcast a reduction's gradient `gy` back to the shape of input `x`."""
    return broadcast_to(reshape(gy, kept_shape(x.shape, axes)), x.shape)


def _spread_array(gy, shape, axes):
    """`_spread` on arrays: a read-only broadcast view of ndarray `gy`."""
    g = gy.reshape(kept_shape(shape, axes))
    return g if g.shape == shape else np.broadcast_to(g, shape)


def _reduced_shape(shape, axes):
    return () if axes is None else tuple(n for i, n in enumerate(shape) if i not in axes)


def _count(shape, axes):
    if axes is None:
        return math.prod(shape)
    return math.prod([shape[a] for a in axes])


def _per_entry(shape, axes):
    """1/n, the weight of each of the n entries in a mean (none to weigh when n is 0)."""
    return 1 / (_count(shape, axes) or 1)


def _mean_of_nothing(x, axes, keepdims):
    """The mean (or variance) over an empty axis: NaN, as in PyTorch, without NumPy's warning."""
    with errstate(x, invalid="ignore"):               # 0 / 0, meant
        return x.sum(axis=axes, keepdims=keepdims) / 0


def _mean_array(x, axes, keepdims):
    """The mean of ndarray `x` over `axes`, NaN over an empty axis (Mean's forward and Taylor rule)."""
    if _count(x.shape, axes) == 0:
        return _mean_of_nothing(x, axes, keepdims)
    return x.mean(axis=axes, keepdims=keepdims)


class Sum(Forwarder):
    """Sum over axes."""

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        return x.sum(axis=self.axes, keepdims=self.keepdims)

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return _spread(gy, x, self.axes)                # d sum = 1 for every element

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        return _spread_array(gy, self.inputs[0]._data.shape, self.axes)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x):
        return series.map_linear(x, lambda c: c.sum(axis=self.axes, keepdims=self.keepdims))  # linear


class Mean(Forwarder):
    """Arithmetic mean over axes."""

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        return _mean_array(x, self.axes, self.keepdims)

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return _spread(gy, x, self.axes) * _per_entry(x.shape, self.axes)   # d mean = 1/n

    def _backward_arrays(self, gy):
        shape = self.inputs[0]._data.shape
        return _spread_array(gy, shape, self.axes) * _per_entry(shape, self.axes)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x):
        return series.map_linear(x, lambda c: _mean_array(c, self.axes, self.keepdims))  # linear


class Variance(Forwarder):
    """Population variance (ddof = 0) over axes."""

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        if _count(x.shape, self.axes) == 0:
            return _mean_of_nothing(x, self.axes, self.keepdims)
        return x.var(axis=self.axes, keepdims=self.keepdims)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        centred = x - mean(x, self.axes, keepdims=True)
        scale = 2 * _per_entry(x.shape, self.axes)
        return _spread(gy, x, self.axes) * centred * scale    # d var = 2 (x - m) / n

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        x = self.inputs[0]._data
        centred = x - _mean_array(x, self.axes, True)
        spread = _spread_array(gy, x.shape, self.axes)
        return _multiply(spread, centred) * (2 * _per_entry(x.shape, self.axes))

    taylor_records = True

    def taylor(self, x):
        # y = mean((x - mean x)^2): centring is linear, then a square series, then a mean
        centred = series.map_linear(x, lambda c: c - _mean_array(c, self.axes, True))
        return series.map_linear(
            series.square(centred), lambda c: _mean_array(c, self.axes, self.keepdims)
        )


class Max(Forwarder):
    """Maximum over axes; tied maxima share the gradient evenly."""

    pick = staticmethod(np.max)

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        y = self.pick(x, axis=self.axes, keepdims=True)
        hit = x == y
        count = hit.sum(axis=self.axes, keepdims=True)
        if maybe_any(count == 0):  # a slice whose extreme is NaN: the NaNs share the gradient
            hit |= np.isnan(x) & np.isnan(y)
            count = hit.sum(axis=self.axes, keepdims=True)
        self._keep(hit, count, x.dtype)
        return y if self.keepdims else y.reshape(_reduced_shape(x.shape, self.axes))

    def _keep(self, hit, count, dtype):
        """Keep where the extremes lie (`hit`, a mask of x's shape) and each one's share of its
        slice's gradient, 1 / count, in the output's shape and x's float dtype (float64 for
        integers).  (A float64 share per entry took 8 bytes an entry, and dividing it out as
        long as the forward's reductions: max pooling's forward and backward 9.0 -> 7.2-7.7 ms on
        (128, 8, 28, 28) float32 images.)"""
        dtype = dtype if dtype.kind in "fc" else np.dtype(np.float64)
        self.hit = hit
        self.weight = (1 / count.astype(dtype)).reshape(count.shape if self.keepdims else
                                                        _reduced_shape(hit.shape, self.axes))

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs                # gy / count to each extreme, exactly 0 elsewhere
        return _select(self.hit, _spread(gy * self.weight.astype(gy.dtype, copy=False), x, self.axes), 0)

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        share = _multiply(gy, self.weight.astype(gy.dtype, copy=False))
        spread = _spread_array(share, self.hit.shape, self.axes)
        if type(share) is np.ndarray and np.isfinite(share).all():  # (a check of the small array)
            return _multiply(spread, self.hit)       # (5x faster than where; inf * False is NaN)
        return get_array_module(gy).where(self.hit, spread, 0)

    taylor_records = True

    def taylor(self, x):
        # y_k = x_k at the extreme, ties (and NaNs) averaged with backward's shares
        weight = self.weight.astype(x[0].dtype, copy=False)
        y, = self.outputs                              # (not x_0 * share: -inf * 0 is NaN)
        picked = series.map_linear(
            x[1:], lambda c: np.where(self.hit, c, 0).sum(axis=self.axes, keepdims=self.keepdims) * weight)
        return [y._data, *picked]


class Min(Max):
    """Minimum over axes; tied minima share the gradient evenly."""

    pick = staticmethod(np.min)


class LogSumExp(Forwarder):
    """log(sum(exp(x))) over axes, computed without overflow."""

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        if x.size:
            m = x.max(axis=self.axes, keepdims=True)
        else:                                          # no entries: an empty sum is 0, its log -inf
            m = get_array_module(x).zeros(kept_shape(x.shape, self.axes), x.dtype)
        self.shift = np.where(np.isfinite(m), m, 0)   # a constant: softmax ignores shifts
        total = np.exp(x - self.shift).sum(axis=self.axes, keepdims=True)
        self.empty = total == 0                        # slices empty or of only -inf
        with errstate(x, divide="ignore"):             # ... whose log is -inf
            y = self.shift + np.log(total)
        return y if self.keepdims else y.reshape(_reduced_shape(x.shape, self.axes))

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        # d lse = softmax(x) = e / sum(e), e = exp(x - shift): exact even where lse has
        # rounded away the log of the count (|x| ~ 1e17 and beyond)
        e = exp(x - self.shift)
        total = sum(e, self.axes, keepdims=True)
        if maybe_any(self.empty):                      # all -inf: gradient 0, not 0/0
            total = where(self.empty, 1, total)
        return _spread(gy, x, self.axes) * (e / total)

    def _backward_arrays(self, gy):
        x = self.inputs[0]._data
        e = np.exp(x - self.shift)
        total = e.sum(axis=self.axes, keepdims=True)
        if maybe_any(self.empty):
            total = np.where(self.empty, 1, total)
        return _multiply(_spread_array(gy, x.shape, self.axes), e / total)

    taylor_records = True

    def taylor(self, x):
        # y = shift + log sum exp(x - shift): exp series, summed, then a log series
        e = series.exp([x[0] - self.shift, *x[1:]])
        total = series.map_linear(e, lambda c: c.sum(axis=self.axes, keepdims=True))
        total[0] = np.where(self.empty, 1, total[0])   # all -inf: every coefficient 0, not 0/0
        y, = self.outputs
        shape = y._data.shape
        return [y._data] + series.map_linear(series.log(total)[1:], lambda c: c.reshape(shape))


def _reduce(forwarder_class, op, x, axis, keepdims, nonempty=False):
    """Check the arguments of reduction `op` and apply it."""
    x = as_variable(x, op=op)
    axes = normalize_axis(axis, x.ndim, op, x.shape)
    if nonempty and _count(x.shape, axes) == 0:
        raise ValueError(
            f"{op}: cannot reduce over an empty axis (input of shape {x.shape}): an empty slice "
            f"has no extreme value; reduce over non-empty axes, or check the size first"
        )
    return Function(forwarder_class(axes, bool(keepdims)))(x)


def _selected(x, where_, fill, op):
    """NumPy's `where=` of a reduction: `x` with the entries outside the boolean mask `where_`
    (broadcast to x's shape) replaced by the constant `fill`, so they add nothing."""
    x = as_variable(x, op=op)
    return x, where(selection(where_, x, op), x, fill)


def selection(where_, x, op):
    """NumPy's `where=` mask of a reduction `op` of Variable `x`: a boolean array on x's
    device (by backend.constant_like's rule, as V.where's condition), checked to broadcast
    to x's shape; a Variable, a mask of another dtype or shape is refused, naming `op`."""
    from ..variable import Variable
    if isinstance(where_, Variable):
        raise TypeError(
            f"{op}(..., where=...): the mask is a Variable; give a boolean array (x.data > 0, or "
            f"a comparison of Variables, which gives one)"
        )
    shape, dtype = np.shape(where_), getattr(where_, "dtype", None) or np.asarray(where_).dtype
    if dtype != np.bool_:
        raise TypeError(f"{op}(..., where=...): the mask must be boolean, got dtype {dtype}")
    try:
        fits = len(shape) <= x.ndim and np.broadcast_shapes(shape, x.shape) == x.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"{op}(..., where=...): a mask of shape {shape} does not broadcast to the input's "
            f"shape {x.shape}"
        )
    mask = where_ if isinstance(where_, np.ndarray) or is_device_array(where_) else np.asarray(where_)
    return backend.constant_like(mask, x, op, "the where= mask", "the input", made=mask is not where_)


def _initial_for(y, initial, op):
    """NumPy's `initial=` for a result `y`: a scalar (else a ValueError), cast to an integer or
    boolean result's dtype as NumPy casts it (np.sum(ints, initial=0.5) adds 0)."""
    if np.ndim(initial) != 0:
        raise ValueError(f"{op}(..., initial=...): initial must be a scalar, got shape {np.shape(initial)}")
    if y.dtype.kind in "biu" and not isinstance(initial, Variable):
        return np.asarray(initial).astype(y.dtype)[()]
    return initial


def sum(x: ArrayLike, axis: Axis = None, keepdims: bool = False, *, initial: ArrayLike | None = None,
        where: ArrayLike = True) -> Variable:
    """Sum of `x` over `axis` (None: all axes).

    Parameters
    ----------
    x : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `x`.
    initial : scalar, optional
        Added to every sum (NumPy's starting value; a Variable gets its gradient).
    where : bool or array of bools
        NumPy's mask, broadcast to `x`'s shape: only the entries where it holds are summed,
        and only they get a gradient.

    Returns
    -------
    Variable
        The sums; 0 (or `initial`) over an empty axis or an empty selection.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `where` is not boolean, or `x` is
        not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, `where` does not broadcast to `x`'s shape,
        or `initial` is not a scalar.
    """
    if where is True and initial is None:
        return _reduce(Sum, "sum", x, axis, keepdims)
    if where is not True:
        _, x = _selected(x, where, 0, "sum")
    y = _reduce(Sum, "sum", x, axis, keepdims)
    return y if initial is None else y + _initial_for(y, initial, "sum")


def mean(x: ArrayLike, axis: Axis = None, keepdims: bool = False, *, where: ArrayLike = True) -> Variable:
    """Mean of `x` over `axis` (None: all axes).

    Parameters
    ----------
    x : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `x`.
    where : bool or array of bools
        NumPy's mask, broadcast to `x`'s shape: the mean of the entries where it holds (only
        they get a gradient).

    Returns
    -------
    Variable
        The means; NaN over an empty axis or an empty selection (as in PyTorch; NumPy also
        warns).

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `where` is not boolean, or `x` is
        not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, or `where` does not broadcast to `x`'s shape.
    """
    if where is True:
        return _reduce(Mean, "mean", x, axis, keepdims)
    x = as_variable(x, op="mean")
    mask = selection(where, x, "mean")
    axes = normalize_axis(axis, x.ndim, "mean", x.shape)
    count = get_array_module(x).broadcast_to(mask, x.shape).sum(axis=axes, keepdims=bool(keepdims),
                                                                dtype=x.dtype)
    with errstate(count, divide="ignore"):
        per_entry = get_array_module(count).where(count == 0, np.nan, 1 / count)  # NaN: nothing selected
    return _reduce(Sum, "mean", _select(mask, x, 0), axis, keepdims) * per_entry


def variance(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Population variance (mean squared deviation) of `x` over `axis`.

    Parameters
    ----------
    x : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `x`.

    Returns
    -------
    Variable
        The variances (ddof = 0); NaN over an empty axis (as in PyTorch; NumPy also warns).

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, or `x` is not a Variable, a numeric
        ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated.
    """
    return _reduce(Variance, "variance", x, axis, keepdims)


def _extremum(forwarder_class, op, x, axis, keepdims, initial, where_, fill, combine):
    """max / min with NumPy's `initial=` and `where=`: the masked entries become `fill` (-inf
    or inf), and the result is combined with `initial` (maximum or minimum)."""
    if where_ is not True:
        if initial is None:
            raise ValueError(
                f"{op}(..., where=...) needs initial= too: a slice with nothing selected has no "
                f"{op}imum, so NumPy asks for the value to give it (e.g. initial=-np.inf)"
            )
        x = as_variable(x, op=op)
        kind = x.dtype.kind
        if kind in "iu":                                 # the dtype's own extreme: integers stay integers
            fill = np.iinfo(x.dtype).min if fill < 0 else np.iinfo(x.dtype).max
        elif kind == "b":
            fill = bool(fill > 0)
        _, x = _selected(x, where_, fill, op)
    x = as_variable(x, op=op)
    axes = normalize_axis(axis, x.ndim, op, x.shape)
    initial = _initial_for(x, initial, op)
    if _count(x.shape, axes) == 0:                       # empty: initial itself, of the reduced shape
        return _reduce(Sum, op, x, axis, keepdims) + initial
    return combine(_reduce(forwarder_class, op, x, axis, keepdims), initial)


def max(x: ArrayLike, axis: Axis = None, keepdims: bool = False, *, initial: ArrayLike | None = None,
        where: ArrayLike = True) -> Variable:
    """Maximum of `x` over `axis`; ties split the gradient evenly.

    Parameters
    ----------
    x : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `x`.
    initial : scalar, optional
        NumPy's starting value: the result is `maximum(result, initial)`, and `initial` over
        an empty axis (a tie with it splits the gradient, as `maximum` does).
    where : bool or array of bools
        NumPy's mask, broadcast to `x`'s shape: only the entries where it holds take part
        (needs `initial`, the value of a slice with none).

    Returns
    -------
    Variable
        The maxima; a slice holding NaN gives NaN, and its NaNs share the gradient.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `where` is not boolean, or `x` is
        not a Variable, a numeric ndarray, a number or a list of numbers; or, with an axis, the
        result is unpacked at the call into two names as torch.max's (values, indices) pair
        where that cannot work or would take two rows with the first name `_`.
    ValueError
        If an axis is out of range or repeated, an axis reduced over has length 0 and no
        `initial` is given (NumPy and PyTorch refuse too), `where` is given without
        `initial` or does not broadcast to `x`'s shape, or `initial` is not a scalar.
    """
    if where is True and initial is None:
        result = _reduce(Max, "max", x, axis, keepdims, nonempty=True)
    else:
        result = _extremum(Max, "max", x, axis, keepdims, initial, where, -np.inf, maximum)
    if axis is not None:                                 # (torch.max(y, 1) gives a pair)
        refuse_torchs_pair("max", sys._getframe(1), result, _EXTREMUM_FIX, axis)
    return result


def min(x: ArrayLike, axis: Axis = None, keepdims: bool = False, *, initial: ArrayLike | None = None,
        where: ArrayLike = True) -> Variable:
    """Minimum of `x` over `axis`; ties split the gradient evenly.

    Parameters
    ----------
    x : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `x`.
    initial : scalar, optional
        NumPy's starting value: the result is `minimum(result, initial)`, and `initial` over
        an empty axis (a tie with it splits the gradient, as `minimum` does).
    where : bool or array of bools
        NumPy's mask, broadcast to `x`'s shape: only the entries where it holds take part
        (needs `initial`, the value of a slice with none).

    Returns
    -------
    Variable
        The minima; a slice holding NaN gives NaN, and its NaNs share the gradient.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `where` is not boolean, or `x` is
        not a Variable, a numeric ndarray, a number or a list of numbers; or, with an axis, the
        result is unpacked at the call into two names as torch.min's (values, indices) pair
        where that cannot work or would take two rows with the first name `_`.
    ValueError
        If an axis is out of range or repeated, an axis reduced over has length 0 and no
        `initial` is given (NumPy and PyTorch refuse too), `where` is given without
        `initial` or does not broadcast to `x`'s shape, or `initial` is not a scalar.
    """
    if where is True and initial is None:
        result = _reduce(Min, "min", x, axis, keepdims, nonempty=True)
    else:
        result = _extremum(Min, "min", x, axis, keepdims, initial, where, np.inf, minimum)
    if axis is not None:                                 # (torch.min(y, 1) gives a pair)
        refuse_torchs_pair("min", sys._getframe(1), result, _EXTREMUM_FIX, axis)
    return result


def logsumexp(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Variable:
    """log(sum(exp(x))) over `axis`, stable for large inputs.

    Parameters
    ----------
    x : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `x`.

    Returns
    -------
    Variable
        The values; -inf for a slice of only -inf (whose gradient is 0) and over an empty
        axis (the log of an empty sum, as in PyTorch).

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, or `x` is not a Variable, a numeric
        ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated.
    """
    return _reduce(LogSumExp, "logsumexp", x, axis, keepdims)
