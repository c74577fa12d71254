"""Reductions over axes: sum, mean, variance, max, min, logsumexp.

Each takes `axis=None | int | tuple` (negatives allowed) and `keepdims`.  Backward
reshapes the incoming gradient to the kept-dims shape and broadcasts it back.
"""

import math

import numpy as np

from .axes import kept_shape, normalize_axis
from .elementwise import exp, where
from .forwarder import Forwarder, Function, Variable
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


class Sum(Forwarder):
    """Sum over axes."""

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        return x.sum(axis=self.axes, keepdims=self.keepdims)

    def backward(self, gy):
        x, = self.inputs
        return _spread(gy, x, self.axes)                # d sum = 1 for every element


class Mean(Forwarder):
    """Arithmetic mean over axes."""

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        return x.mean(axis=self.axes, keepdims=self.keepdims)

    def backward(self, gy):
        x, = self.inputs
        return _spread(gy, x, self.axes) * (1 / _count(x.shape, self.axes))   # d mean = 1/n


class Variance(Forwarder):
    """Population variance (ddof = 0) over axes."""

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        return x.var(axis=self.axes, keepdims=self.keepdims)

    def backward(self, gy):
        x, = self.inputs
        centred = x - mean(x, self.axes, keepdims=True)
        scale = 2 / _count(x.shape, self.axes)
        return _spread(gy, x, self.axes) * centred * scale    # d var = 2 (x - m) / n


class Max(Forwarder):
    """Maximum over axes; tied maxima share the gradient evenly."""

    pick = staticmethod(np.max)

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        y = self.pick(x, axis=self.axes, keepdims=True)
        hit = x == y
        self.share = hit / hit.sum(axis=self.axes, keepdims=True)
        return y if self.keepdims else y.reshape(_reduced_shape(x.shape, self.axes))

    def backward(self, gy):
        x, = self.inputs
        return _spread(gy, x, self.axes) * self.share.astype(gy.dtype, copy=False)


class Min(Max):
    """Minimum over axes; tied minima share the gradient evenly."""

    pick = staticmethod(np.min)


class LogSumExp(Forwarder):
    """log(sum(exp(x))) over axes, computed without overflow."""

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        m = x.max(axis=self.axes, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        with np.errstate(divide="ignore"):  # a slice of only -inf sums to 0: log gives -inf
            y = m + np.log(np.exp(x - m).sum(axis=self.axes, keepdims=True))
        self.finite = np.isfinite(y)          # where the result is infinite, the gradient is 0
        return y if self.keepdims else y.reshape(_reduced_shape(x.shape, self.axes))

    def backward(self, gy):
        x, = self.inputs
        y, = self.outputs
        lse = _spread(y, x, self.axes)
        if not self.finite.all():
            lse = where(np.broadcast_to(self.finite, x.shape), lse, np.inf)
        softmax = exp(x - lse)                      # d lse = exp(x - lse)
        return _spread(gy, x, self.axes) * softmax


def _reduce(forwarder_class, op, x, axis, keepdims):
    if not isinstance(x, Variable):
        x = np.asarray(x) if not isinstance(x, np.ndarray) else x
        if x.dtype.kind not in "biufc":
            raise TypeError(f"{op}: input must be numeric, got dtype {x.dtype}")
    axes = normalize_axis(axis, x.ndim, op, x.shape)
    return Function(forwarder_class(axes, bool(keepdims)))(x)


def _nonempty(x, axis, op):
    shape = x.shape if isinstance(x, (Variable, np.ndarray)) else np.shape(x)
    axes = normalize_axis(axis, len(shape), op, shape)
    if _count(shape, axes) == 0:
        raise ValueError(f"{op}: cannot reduce over an empty axis (input of shape {shape})")


def sum(x, axis=None, keepdims=False):
    """Sum of `x` over `axis` (None: all axes)."""
    return _reduce(Sum, "sum", x, axis, keepdims)


def mean(x, axis=None, keepdims=False):
    """Mean of `x` over `axis` (None: all axes)."""
    _nonempty(x, axis, "mean")
    return _reduce(Mean, "mean", x, axis, keepdims)


def variance(x, axis=None, keepdims=False):
    """Population variance (mean squared deviation) of `x` over `axis`."""
    _nonempty(x, axis, "variance")
    return _reduce(Variance, "variance", x, axis, keepdims)


def max(x, axis=None, keepdims=False):
    """Maximum of `x` over `axis`; ties split the gradient evenly."""
    _nonempty(x, axis, "max")
    return _reduce(Max, "max", x, axis, keepdims)


def min(x, axis=None, keepdims=False):
    """Minimum of `x` over `axis`; ties split the gradient evenly."""
    _nonempty(x, axis, "min")
    return _reduce(Min, "min", x, axis, keepdims)


def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) over `axis`, stable for large inputs."""
    _nonempty(x, axis, "logsumexp")
    return _reduce(LogSumExp, "logsumexp", x, axis, keepdims)
