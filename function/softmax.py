"""softmax and log_softmax over any axes, stable for any finite input.

Each is one Forwarder whose `backward` is written with differentiable ops (every order of
derivative works); the array helpers here also serve the cross-entropy losses (loss.py).
"""

import numpy as np

import variable as V
from variable import ArrayLike, Axis, Forwarder, Function, Variable, memory, series
from variable.axes import normalize_axis
from variable.ops.elementwise import _multiply

from .activation import as_float


def axis_type(axis: Axis, op: str) -> Axis:
    """`axis` checked to be None, an int or a tuple of ints, before the input's ndim is known.

    The range (and repetition) check needs the input; `normalize_axis` makes it at the call.

    Raises
    ------
    TypeError
        If `axis` is anything else (a str, a float, a bool, ...), naming `op`.
    """
    def is_int(a):
        return isinstance(a, (int, np.integer)) and not isinstance(a, bool)

    if axis is None or is_int(axis) or isinstance(axis, (tuple, list)) and all(map(is_int, axis)):
        return axis
    raise TypeError(f"{op}: axis must be None, an int or a tuple of ints, got {axis!r}")


def _axes(x, axis, op):
    if x.ndim == 0:
        raise ValueError(f"{op}: the input is 0-d; it needs an axis to normalise over")
    axes = normalize_axis(axis, x.ndim, op)
    return tuple(range(x.ndim)) if axes is None else axes


_UNSHIFTED = {np.dtype(np.float32): 64.0, np.dtype(np.float64): 512.0}
"""Per dtype, a bound b such that for |x| <= b exp(x) is a normal number and a sum of even
10^10 of them stays finite: exp(x) / sum then needs no max taken out (float32: e^64 = 6e27,
e^-64 = 2e-28; float64: e^512 = 2e222, e^-512 = 4e-223)."""


_ROW_DOT = 4096
"""Rows up to this long have softmax's backward sum as einsum's dot product (its sum runs in
a few accumulators, where np.sum's is pairwise: on rows this short the two agree to a few
units in the last place)."""


def _softmax(x, axes):
    """exp(x - max) / sum, on an ndarray; the max is taken out so nothing overflows.

    On a NumPy array whose entries all lie within `_UNSHIFTED`'s bound (logits and attention
    scores do), exp(x) / sum directly, the same to rounding: the max over each row is a slow
    reduction (a short pass per row), two over the whole array are not (the softmax of
    10^6 float32 entries in rows of 128: 3.0-3.5 -> 1.8-2.1 ms).  A NaN fails both comparisons.  On a
    GPU the comparison would wait for the device, so there the max is always taken out.
    """
    if x.size == 0:                       # an empty axis (or batch): nothing to normalise
        return x.copy()
    bound = _UNSHIFTED.get(x.dtype) if type(x) is np.ndarray else None
    if bound is not None and -bound <= x.min() and x.max() <= bound:
        e = np.exp(x, out=memory.empty(x.shape, x.dtype))
    else:
        e = x - x.max(axis=axes, keepdims=True)
        np.exp(e, out=e)
    e /= e.sum(axis=axes, keepdims=True)
    return e


def log_softmax_array(x: np.ndarray, axes: Axis) -> np.ndarray:
    """x - logsumexp(x) over `axes` on an ndarray, the max taken out first (package helper).

    Nothing overflows; an empty input (an empty axis or batch) gives an empty copy.
    """
    if x.size == 0:
        return x.copy()
    shifted = x - x.max(axis=axes, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axes, keepdims=True))


def log_softmax_series(x: list, axes: Axis) -> list:
    """Series of x - logsumexp(x) over `axes` along the series `x` (package helper).

    logsumexp = m + log(sum(exp(x - m))) with m the (constant) max of x_0, so the sum's
    value is >= 1 and nothing overflows.
    """
    if x[0].size == 0:
        return [c.copy() for c in x]
    m = x[0].max(axis=axes, keepdims=True)
    total = series.map_linear(series.exp(series.sub(x, [m])), lambda c: c.sum(axis=axes, keepdims=True))
    return series.sub(x, series.add([m], series.log(total)))


class Softmax(Forwarder):
    """exp(x) / sum(exp(x)) over axes."""

    def __init__(self, axes):
        self.axes = axes

    def forward(self, x):
        return _softmax(x, self.axes)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        gx = y * gy                                   # d softmax: y (gy - sum(y gy))
        return gx - y * V.sum(gx, axis=self.axes, keepdims=True)

    def _backward_arrays(self, gy):
        y = self.outputs[0]._data
        if (type(y) is np.ndarray and type(gy) is np.ndarray and y.dtype == gy.dtype
                and self.axes == (y.ndim - 1,) and y.shape[-1] <= _ROW_DOT and y.shape == gy.shape):
            # y (gy - sum(y gy)): the sum as a dot product per row (no y gy array), one buffer
            # (10^6 float32 entries in rows of 128: 2.1 -> 1.4 ms; float64 3.8 -> 2.8 ms)
            gx = np.subtract(gy, np.einsum("...i,...i->...", y, gy)[..., np.newaxis],
                             out=memory.empty(y.shape, y.dtype))
            return np.multiply(y, gx, out=gx)
        gx = _multiply(y, gy)
        return gx - _multiply(y, gx.sum(axis=self.axes, keepdims=True))

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        return series.exp(log_softmax_series(x, self.axes), y._data)   # y = exp(log_softmax(x))


class LogSoftmax(Forwarder):
    """x - logsumexp(x) over axes."""

    def __init__(self, axes):
        self.axes = axes

    def forward(self, x):
        return log_softmax_array(x, self.axes)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        # d log_softmax: gy - softmax * sum(gy), softmax = exp(y)
        return gy - V.exp(y) * V.sum(gy, axis=self.axes, keepdims=True)

    def _backward_arrays(self, gy):
        return gy - _multiply(np.exp(self.outputs[0]._data), gy.sum(axis=self.axes, keepdims=True))

    taylor_records = True

    def taylor(self, x):
        return log_softmax_series(x, self.axes)      # y = x - m - log(sum(exp(x - m)))


def softmax(x: ArrayLike, axis: Axis = -1) -> Variable:
    """Softmax exp(x) / sum(exp(x)) over `axis`, stable for any finite logits.

    Parameters
    ----------
    x : Variable, ndarray or number
        At least 1-d.
    axis : int, tuple of ints or None
        Axis (or axes; None: all) to normalise over.

    Returns
    -------
    Variable of the shape and floating dtype of `x`; it sums to 1 over `axis`. An empty
    axis gives an empty result of that shape (as in PyTorch).

    Raises
    ------
    ValueError
        If `x` is 0-d or `axis` is out of range.
    """
    x = as_float(x, "softmax")
    return Function(Softmax(_axes(x, axis, "softmax")))(x)


def log_softmax(x: ArrayLike, axis: Axis = -1) -> Variable:
    """Logarithm of the softmax over `axis`, x - logsumexp(x), stable for any finite x.

    Parameters
    ----------
    x : Variable, ndarray or number
        At least 1-d.
    axis : int, tuple of ints or None
        Axis (or axes; None: all) to normalise over.

    Returns
    -------
    Variable of the shape and floating dtype of `x`. An empty axis gives an empty result
    of that shape (as in PyTorch).

    Raises
    ------
    ValueError
        If `x` is 0-d or `axis` is out of range.
    """
    x = as_float(x, "log_softmax")
    return Function(LogSoftmax(_axes(x, axis, "log_softmax")))(x)


__all__ = ["softmax", "log_softmax"]
