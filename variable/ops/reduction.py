"""Reductions over axes: sum, mean, variance, max, min, logsumexp.

Each takes `axis=None | int | tuple` (negatives allowed) and `keepdims`.  Backward
reshapes the incoming gradient to the kept-dims shape and broadcasts it back.

Over an empty axis (length 0) they answer as PyTorch does, without NumPy's warnings: a
sum is 0, a mean or variance NaN, a logsumexp -inf (the log of an empty sum), and max and
min raise a ValueError (an empty slice has no extreme).  Gradients are then empty arrays
of the input's shape.
"""

import math

import numpy as np

from .. import series
from ..axes import kept_shape, normalize_axis
from ..backend import errstate, get_array_module, maybe_any
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike, Axis
from .elementwise import exp, where
from .shape import broadcast_to, reshape


def _spread(gy, x, axes):
    """Broadcast a reduction's gradient `gy` back to the shape of input `x`."""
    return broadcast_to(reshape(gy, kept_shape(x.shape, axes)), x.shape)


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
        self.share = hit / count
        return y if self.keepdims else y.reshape(_reduced_shape(x.shape, self.axes))

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return _spread(gy, x, self.axes) * self.share.astype(gy.dtype, copy=False)

    taylor_records = True

    def taylor(self, x):
        # y_k = x_k at the extreme, ties (and NaNs) averaged with backward's shares
        share = self.share.astype(x[0].dtype, copy=False)
        y, = self.outputs                              # (not x_0 * share: -inf * 0 is NaN)
        picked = series.map_linear(x[1:], lambda c: (c * share).sum(axis=self.axes, keepdims=self.keepdims))
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


def sum(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Sum of `x` over `axis` (None: all axes).

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
        The sums; 0 over an empty axis.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, or `x` is not a Variable, a numeric
        ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated.
    """
    return _reduce(Sum, "sum", x, axis, keepdims)


def mean(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Mean of `x` over `axis` (None: all axes).

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
        The means; NaN over an empty axis (as in PyTorch; NumPy also warns).

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, or `x` is not a Variable, a numeric
        ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated.
    """
    return _reduce(Mean, "mean", x, axis, keepdims)


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


def max(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Maximum of `x` over `axis`; ties split the gradient evenly.

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
        The maxima; a slice holding NaN gives NaN, and its NaNs share the gradient.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, or `x` is not a Variable, a numeric
        ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, or an axis reduced over has length 0
        (NumPy and PyTorch refuse too).
    """
    return _reduce(Max, "max", x, axis, keepdims, nonempty=True)


def min(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Minimum of `x` over `axis`; ties split the gradient evenly.

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
        The minima; a slice holding NaN gives NaN, and its NaNs share the gradient.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, or `x` is not a Variable, a numeric
        ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, or an axis reduced over has length 0
        (NumPy and PyTorch refuse too).
    """
    return _reduce(Min, "min", x, axis, keepdims, nonempty=True)


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
