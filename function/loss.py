"""Losses: regression, classification and similarity, each the mean of its entries' losses,
or with PyTorch's `reduction=` their sum ('sum') or each one ('none').

Every loss is one Forwarder whose forward is stable (log-softmax and log1p forms, no
overflow for logits of +-1000) and whose backward is written with differentiable ops,
so losses can be differentiated to any order (gradient penalties, Hessians).  Targets
given as arrays are constants; a target given as a Variable that requires grad is
differentiated too.  Inputs must share a shape (no broadcasting), except class labels.
Empty inputs (an empty batch) give NaN, the mean of nothing, as PyTorch's mean
reductions do (their sum is 0), without NumPy's warnings; their gradients are empty arrays.

Checks of the data (a label out of range, a count below zero, a target outside [0, 1])
raise ValueError at once on the CPU.  On a GPU, reading the data on the host would be a
sync (the host would wait for the device at every call), so they run on the device
(`V.backend.device_check`), like PyTorch's device-side asserts: the loss and its gradients
come out NaN, never a wrong number, and the error, the CPU's message ending in "(checked
on the device)", is raised at the next read of a NaN (`float(loss)`, `loss.item()`,
`x.to_cpu()`) or at `V.backend.synchronize()`.
"""

import functools
import inspect
import math

import numpy as np

import variable as V
from variable import Forwarder, Function, Variable, backend, series
from variable.backend import errstate, get_array_module, is_device_array
from variable.ops.elementwise import _multiply

from .activation import (
    ArrayLike,
    Sigmoid,
    _sigmoid,
    _softplus,
    as_array,
    as_float,
    checked_indices,
    finite_number,
    relu,
    sigmoid,
    softplus,
    true_or_false,
)
from .softmax import Softmax, _softmax, log_softmax, log_softmax_array, log_softmax_series, softmax


def _target(t, x, op):
    """Target `t` as a Variable of `x`'s dtype (constants are cast, Variables kept)."""
    if isinstance(t, Variable) and t.requires_grad:
        return t
    t = as_float(t, op, like=x)                     # (numbers and lists made on x's device)
    if t.dtype != x.dtype:
        t = Variable(t.data.astype(x.dtype), requires_grad=False)
    return t


def _check_order(x, t, op, names):
    """Refuse (integer labels, a Variable that requires grad): a loss's arguments swapped."""
    if getattr(x, "dtype", np.dtype(float)).kind in "biu" and isinstance(t, Variable) and t.requires_grad:
        raise TypeError(
            f"{op}: {names[0]} holds integers ({x.dtype}) and {names[1]} is a Variable that requires "
            f"grad: the arguments look swapped; the model's output comes first, {op}(y, t) with t "
            f"the targets"
        )


def _pair(x, t, op, names=("x", "t"), ordered=False):
    """Check two loss inputs: floating Variables of one shape, the target cast to x's dtype.

    `ordered`: the loss is not symmetric in them, so a swap (labels first) is refused."""
    if ordered:
        _check_order(x, t, op, names)
    x = as_float(x, op)
    t = _target(t, x, op)
    if x.shape != t.shape:
        fix = f"; reshape one to the other, e.g. {names[1]}.reshape{x.shape}" if x.size == t.size else ""
        raise ValueError(
            f"{op}: {names[0]} of shape {x.shape} and {names[1]} of shape {t.shape} "
            f"must have the same shape (a loss does not broadcast){fix}"
        )
    return x, t


def _scalar(value, like):
    xp = np if type(like) is np.ndarray else get_array_module(like)
    return xp.asarray(value, dtype=like.dtype)


def _mean(total, n, like):
    """total / n as a 0-d array of `like`'s dtype; NaN for n = 0 (a mean of nothing, as in PyTorch)."""
    return _scalar(total / n if n else np.nan, like)


def _per_entry(n):
    """1/n, the weight of each of the n entries in a mean (none to weigh when n is 0)."""
    return 1 / (n or 1)


def _antiderivative(x, g):
    """Series, from coefficient 1 on, of elementwise terms whose derivative along x is g."""
    return series.integral(x, np.zeros_like(x[0]), g)


REDUCTIONS = ("mean", "sum", "none")


def _checked_reduction(reduction, op):
    """`reduction` if it is one of REDUCTIONS (PyTorch's), else a ValueError naming them."""
    if not isinstance(reduction, str) or reduction not in REDUCTIONS:
        raise ValueError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction


class _Reduced:
    """The reduction of a loss Forwarder (a mixin: `class Loss(_Reduced, Forwarder)`): its
    entries' losses, reduced as `reduction` says: 'mean' (of the entries), 'sum', or 'none' (the
    loss of each entry, in their shape).  An entry is an element, or a row along the last axis
    where `entry_axis` is -1 (softmax cross-entropy's).  Forward sets `count` (how many entries)
    and `per_entry` (each one's weight in the mean: 1/count, or an array where the divisor is the
    data's); backward and the Taylor rule scale by them."""

    entry_axis = None

    def __init__(self, reduction="mean"):
        self.reduction = reduction

    def _total(self, total, count, like):
        """Forward's output where the entries' losses sum to `total`: their mean or sum."""
        self.count = count
        if self.reduction == "mean":
            self.per_entry = _per_entry(count)
            return _mean(total, count, like)
        self.per_entry = 1
        return _scalar(total, like)

    def _reduce(self, losses, like):
        """Forward's output from the array of the entries' losses."""
        if self.reduction == "none":
            self.count, self.per_entry = losses.size, 1
            return losses.astype(like.dtype, copy=False)
        return self._total(losses.sum(), losses.size, like)

    def _scale(self, gy, factor=1.0):
        """`factor` times gy spread over the entries: gy factor / n for the mean (a row's own
        gy for 'none', broadcast along a row where an entry is one)."""
        if self.reduction == "mean":
            return gy * (factor * self.per_entry)
        if self.reduction == "none" and self.entry_axis is not None:
            gy = gy.reshape(gy.shape + (1,))
        return gy if factor == 1.0 else gy * factor

    def _slope_series(self, y, x):
        """Series of y where each entry's loss is linear near x[0] with the array `slope` (per
        entry weight included): y_k = sum(slope x_k), or slope x_k for 'none'."""
        if self.reduction == "none":
            return [y._data] + [self.slope * c for c in x[1:]]
        return [y._data] + [np.vdot(self.slope, c) for c in x[1:]]

    def _series(self, y, terms):
        """Series of the output y: y._data, then each coefficient of the entries' losses
        (`terms`, terms[0] not read) reduced as y is."""
        if self.reduction == "mean":
            return [y._data] + [np.sum(c) * self.per_entry for c in terms[1:]]
        if self.reduction == "sum":
            return [y._data] + [np.sum(c) for c in terms[1:]]
        if self.entry_axis is not None:
            return [y._data] + [c.sum(self.entry_axis) for c in terms[1:]]
        return [y._data] + [c for c in terms[1:]]


# ----- regression -------------------------------------------------------------------
class MeanSquaredError(_Reduced, Forwarder):
    """mean((x0 - x1)^2) (or their sum, or each)."""

    def forward(self, x0, x1):
        diff = x0 - x1
        if self.reduction == "none":
            return self._reduce(diff * diff, x0)
        return self._total(np.vdot(diff, diff), diff.size, x0)

    save_for_backward = ("x0", "x1")

    def backward(self, gy):
        x0, x1 = self.inputs
        gx0 = (x0 - x1) * self._scale(gy, 2.0)           # d mean (x0 - x1)^2 = 2 (x0 - x1) / n
        return (gx0 if x0.requires_grad else None), (-gx0 if x1.requires_grad else None)

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        x0, x1 = self.inputs
        gx0 = _multiply(x0._data - x1._data, self._scale(gy, 2.0))
        return (gx0 if x0.requires_grad else None), (-gx0 if x1.requires_grad else None)

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        d = series.sub(x0, x1)
        return self._series(y, series.square(d))      # y = mean(d^2)


def mean_squared_error(x0: ArrayLike, x1: ArrayLike, *, reduction: str = "mean") -> Variable:
    """Mean of the squared differences, mean((x0 - x1) ** 2).

    Parameters
    ----------
    x0, x1 : Variable, ndarray or number
        Same shape; either or both may require grad.
    reduction : 'mean', 'sum' or 'none'
        The mean of the entries' losses (the default), their sum, or each entry's loss.

    Returns
    -------
    Variable of `x0`'s floating dtype: 0-d, or `x0`'s shape for 'none'; the mean
    of no entries is NaN, their sum 0.

    Raises
    ------
    ValueError
        If the shapes differ.
    """
    reduction = _checked_reduction(reduction, "mean_squared_error")
    x0, x1 = _pair(x0, x1, "mean_squared_error", ("x0", "x1"))
    return Function(MeanSquaredError(reduction))(x0, x1)


class MeanAbsoluteError(_Reduced, Forwarder):
    """mean(|x0 - x1|) (or their sum, or each); the derivative at a tie is taken as 0."""

    def forward(self, x0, x1):
        diff = x0 - x1
        y = self._reduce(np.abs(diff), x0)
        self.slope = np.sign(diff) * self.per_entry            # (a Python float keeps the dtype)
        return y

    save_for_backward = ()

    def backward(self, gy):
        x0, x1 = self.inputs
        gx0 = gy * self.slope                          # d mean |d| = sign(d) / n
        return (gx0 if x0.requires_grad else None), (-gx0 if x1.requires_grad else None)

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        x0, x1 = self.inputs
        gx0 = _multiply(gy, self.slope)
        return (gx0 if x0.requires_grad else None), (-gx0 if x1.requires_grad else None)

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        return self._slope_series(y, series.sub(x0, x1))   # y_k = sign(d) d_k / n


def mean_absolute_error(x0: ArrayLike, x1: ArrayLike, *, reduction: str = "mean") -> Variable:
    """Mean of the absolute differences, mean(|x0 - x1|) (gradient 0 where x0 == x1).

    Parameters
    ----------
    x0, x1 : Variable, ndarray or number
        Same shape; either or both may require grad.
    reduction : 'mean', 'sum' or 'none'
        The mean of the entries' losses (the default), their sum, or each entry's loss.

    Returns
    -------
    Variable of `x0`'s floating dtype: 0-d, or `x0`'s shape for 'none'; the mean
    of no entries is NaN, their sum 0.

    Raises
    ------
    ValueError
        If the shapes differ.
    """
    reduction = _checked_reduction(reduction, "mean_absolute_error")
    x0, x1 = _pair(x0, x1, "mean_absolute_error", ("x0", "x1"))
    return Function(MeanAbsoluteError(reduction))(x0, x1)


class HuberLoss(_Reduced, Forwarder):
    """mean of d^2/2 where |d| <= delta, delta (|d| - delta/2) elsewhere; d = x - t."""

    def __init__(self, delta, reduction="mean"):
        super().__init__(reduction)
        self.delta = delta

    def forward(self, x, t):
        a = np.abs(x - t)
        delta = self.delta
        quadratic = np.minimum(a, delta)              # a where |d| <= delta, else delta
        return self._reduce(quadratic * (a - 0.5 * quadratic), x)

    save_for_backward = ("x0", "x1")

    def backward(self, gy):
        x, t = self.inputs
        gx = V.clip(x - t, -self.delta, self.delta) * self._scale(gy)   # clip(d) / n
        return (gx if x.requires_grad else None), (-gx if t.requires_grad else None)

    def _backward_arrays(self, gy):
        x, t = self.inputs
        d = np.clip(x._data - t._data, -self.delta, self.delta)
        gx = _multiply(d, self._scale(gy))
        return (gx if x.requires_grad else None), (-gx if t.requires_grad else None)

    taylor_records = True

    def taylor(self, x, t):
        y, = self.outputs
        d = series.sub(x, t)
        inside, slope = np.abs(d[0]) <= self.delta, np.clip(d[0], -self.delta, self.delta)
        square = series.square(d)                    # d^2/2 where |d| <= delta, linear beyond
        terms = [None] + [np.where(inside, 0.5 * square[k], slope * d[k]) for k in range(1, len(d))]
        return self._series(y, terms)


def huber_loss(x: ArrayLike, t: ArrayLike, delta: float = 1.0, *, reduction: str = "mean") -> Variable:
    """Huber loss: mean of d**2/2 for |d| <= delta and delta*(|d| - delta/2) beyond; d = x - t.

    Parameters
    ----------
    x, t : Variable, ndarray or number
        Same shape.
    delta : float
        Positive threshold between the quadratic and the linear part.
    reduction : 'mean', 'sum' or 'none'
        The mean of the entries' losses (the default), their sum, or each entry's loss.

    Returns
    -------
    Variable of `x`'s floating dtype: 0-d, or `x`'s shape for 'none'; the mean
    of no entries is NaN, their sum 0.

    Raises
    ------
    ValueError
        If the shapes differ or `delta` is not positive.
    """
    if isinstance(delta, bool) or not isinstance(delta, (int, float, np.integer, np.floating)):
        raise TypeError(f"huber_loss: delta must be a positive number, got {type(delta).__name__}")
    if not (0 < delta < math.inf):
        raise ValueError(f"huber_loss: delta must be positive and finite, got {delta!r}")
    reduction = _checked_reduction(reduction, "huber_loss")
    x, t = _pair(x, t, "huber_loss")
    return Function(HuberLoss(float(delta), reduction))(x, t)


class LogCoshLoss(_Reduced, Forwarder):
    """mean(log(cosh(x - t))) as |d| + log1p(exp(-2|d|)) - log 2."""

    def forward(self, x, t):
        a = np.abs(x - t)
        return self._reduce(a + np.log1p(np.exp(-2 * a)) - math.log(2), x)

    save_for_backward = ("x0", "x1")

    def backward(self, gy):
        x, t = self.inputs
        gx = V.tanh(x - t) * self._scale(gy)            # d log cosh d = tanh d
        return (gx if x.requires_grad else None), (-gx if t.requires_grad else None)

    def _backward_arrays(self, gy):
        x, t = self.inputs
        gx = _multiply(np.tanh(x._data - t._data), self._scale(gy))
        return (gx if x.requires_grad else None), (-gx if t.requires_grad else None)

    taylor_records = True

    def taylor(self, x, t):
        y, = self.outputs
        d = series.sub(x, t)
        return self._series(y, _antiderivative(d, series.tanh(d)))   # (log cosh d)' = tanh(d) d'


def log_cosh_loss(x: ArrayLike, t: ArrayLike, *, reduction: str = "mean") -> Variable:
    """Mean of log(cosh(x - t)); stable (linear) for large differences.

    Parameters
    ----------
    x, t : Variable, ndarray or number
        Same shape.
    reduction : 'mean', 'sum' or 'none'
        The mean of the entries' losses (the default), their sum, or each entry's loss.

    Returns
    -------
    Variable of `x`'s floating dtype: 0-d, or `x`'s shape for 'none'; the mean
    of no entries is NaN, their sum 0.

    Raises
    ------
    ValueError
        If the shapes differ.
    """
    reduction = _checked_reduction(reduction, "log_cosh_loss")
    x, t = _pair(x, t, "log_cosh_loss")
    return Function(LogCoshLoss(reduction))(x, t)


class PoissonNLLLoss(_Reduced, Forwarder):
    """mean(exp(l) - t l) for log rates l (the constant log t! is left out)."""

    def forward(self, log_rate, t):
        return self._reduce(np.exp(log_rate) - t * log_rate, log_rate)

    save_for_backward = ("x0", "x1")

    def backward(self, gy):
        log_rate, t = self.inputs
        scale = self._scale(gy)
        gl = (V.exp(log_rate) - t) * scale if log_rate.requires_grad else None   # e^l - t
        gt = -log_rate * scale if t.requires_grad else None                      # -l
        return gl, gt

    def _backward_arrays(self, gy):
        log_rate, t = self.inputs
        scale = self._scale(gy)
        gl = _multiply(np.exp(log_rate._data) - t._data, scale) if log_rate.requires_grad else None
        gt = _multiply(-log_rate._data, scale) if t.requires_grad else None
        return gl, gt

    taylor_records = True

    def taylor(self, log_rate, t):
        y, = self.outputs
        terms = series.sub(series.exp(log_rate), series.mul(t, log_rate))   # e^l - t l
        return self._series(y, terms)


def poisson_nll_loss(log_rate: ArrayLike, t: ArrayLike, *, log_input: bool = True, full: bool = False,
                     eps: float = 1e-8, reduction: str = "mean") -> Variable:
    """Poisson negative log-likelihood from log rates: mean(exp(log_rate) - t * log_rate).

    The term log(t!), constant in the rate, is left out (PyTorch's default).  A log rate
    above ~709 overflows exp in float64 (the loss is then inf).  The keywords are PyTorch's.

    Parameters
    ----------
    log_rate : Variable, ndarray or number
        Logarithm of the predicted Poisson rate (the rate itself where `log_input` is False).
    t : Variable, ndarray or number
        Observed counts (non-negative), the shape of `log_rate`.
    log_input : bool
        False: the first argument is the rate r, and the loss r - t log(r + eps).
    full : bool
        Add Stirling's approximation of log(t!), t log t - t + log(2 pi t) / 2, where t > 1.
    eps : float
        Added to the rate inside the log where `log_input` is False.
    reduction : 'mean', 'sum' or 'none'
        The mean of the entries' losses (the default), their sum, or each entry's loss.

    Returns
    -------
    Variable of `log_rate`'s floating dtype: 0-d, or `log_rate`'s shape for 'none'; the mean
    of no entries is NaN, their sum 0.

    Raises
    ------
    ValueError
        If the shapes differ or a count is negative (on a GPU: checked on the device,
        raised at the next read; see the module's docstring).
    """
    op = "poisson_nll_loss"
    reduction = _checked_reduction(reduction, op)
    log_input, full = true_or_false(log_input, op, "log_input"), true_or_false(full, op, "full")
    eps = _nonnegative(eps, op, "eps")
    log_rate, t = _pair(log_rate, t, op, ("log_rate", "t"), ordered=True)
    t = _check_targets(t, [(t.data < 0, t.data, f"{op}: counts t must be non-negative, got {{value}}")], op)
    if log_input and not full:
        return Function(PoissonNLLLoss(reduction))(log_rate, t)
    if log_input:
        losses = Function(PoissonNLLLoss("none"))(log_rate, t)
    else:                                              # the rate itself
        losses = log_rate - t * V.log(log_rate + eps)
    if full:                                           # Stirling's log(t!) where t > 1, as PyTorch's
        above = t.data > 1
        safe = V.where(above, t, 2.0)
        stirling = safe * V.log(safe) - safe + 0.5 * V.log(2 * math.pi * safe)
        losses = losses + V.where(above, stirling, 0.0)
    return _weighed(losses, reduction)


# ----- classification ------------------------------------------------------------------
class SoftmaxCrossEntropy(_Reduced, Forwarder):
    """-sum(t log softmax(x)) along the last axis of each row, the rows' losses reduced (mean,
    sum or each): t integer labels, or a target row per row (probabilities, or what
    softmax_cross_entropy's options made of labels).  `divisor`: the mean's, where it is the
    data's (the weight of the rows kept), not the number of rows."""

    entry_axis = -1

    def __init__(self, labels=None, poison=None, reduction="mean", divisor=None):
        super().__init__(reduction)
        self.labels = labels
        self.poison = poison      # labels checked on a device: 1, or NaN if one is out of range
        self.divisor = divisor

    def forward(self, x, *t):
        log_p = log_softmax_array(x, -1)
        rows = math.prod(x.shape[:-1])
        if self.labels is not None:
            picked = (*_row_indices(self.labels), self.labels)   # every row once, its label
            losses = -log_p[picked]
            self.onehot = np.zeros_like(x)
            self.onehot[picked] = 1
            if self.poison is not None:         # a bad label: NaN loss and gradient, no wrong number
                losses = losses * self.poison
                self.onehot *= self.poison
            return self._reduce(losses, x)
        if self.reduction == "none":
            return self._reduce(-(t[0] * log_p).sum(axis=-1), x)
        return self._total(-np.vdot(t[0], log_p), rows, x)

    def _total(self, total, count, like):
        if self.divisor is None:
            return super()._total(total, count, like)
        self.count = count
        self.per_entry = _per_kept_row(self.divisor)    # (no row kept: the mean 0 / 0 is NaN)
        with errstate(like, divide="ignore", invalid="ignore"):
            return _scalar(total / self.divisor, like)

    save_for_backward = ("x0", "x1")

    def backward(self, gy):
        x = self.inputs[0]
        scale = self._scale(gy)
        if self.labels is not None:
            return (softmax(x) - self.onehot) * scale             # (softmax - onehot) / n
        t = self.inputs[1]
        gx = gt = None
        if x.requires_grad:
            mass = V.sum(t, axis=-1, keepdims=True)              # 1 for probability rows
            gx = (softmax(x) * mass - t) * scale                  # (softmax sum t - t) / n
        if t.requires_grad:
            gt = -log_softmax(x) * scale                          # -log softmax / n
        return gx, gt

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        x = self.inputs[0]
        scale = self._scale(gy)
        if self.labels is not None:
            return _multiply(_softmax(x._data, (x.ndim - 1,)) - self.onehot, scale)
        t = self.inputs[1]
        gx = gt = None
        if x.requires_grad:
            mass = t._data.sum(axis=-1, keepdims=True)
            gx = _multiply(_multiply(_softmax(x._data, (x.ndim - 1,)), mass) - t._data, scale)
        if t.requires_grad:
            gt = _multiply(-log_softmax_array(x._data, (x.ndim - 1,)), scale)
        return gx, gt

    taylor_records = True

    def taylor(self, x, *t):
        y, = self.outputs
        log_p = log_softmax_series(x, -1)
        terms = series.neg(series.mul(t[0], log_p) if t else series.scale(log_p, self.onehot))
        return self._series(y, terms)                # y = -sum(t log softmax(x)) / rows


def _row_indices(labels):
    """Index arrays, one per axis of `labels`, that broadcast to pick every row once
    (np.indices(labels.shape, sparse=True), made on the labels' device)."""
    if type(labels) is np.ndarray:
        return np.indices(labels.shape, sparse=True)
    xp = get_array_module(labels)
    ndim = labels.ndim
    return [xp.arange(n).reshape((1,) * d + (n,) + (1,) * (ndim - d - 1))
            for d, n in enumerate(labels.shape)]


def _labels(t, x, op):
    """Integer class labels (an array of shape x.shape[:-1]) as intp indices, range-checked
    (on a device, on the device: see `checked_indices`), and the poison of a device check."""
    n_class = x.shape[-1]
    return checked_indices(t, n_class, op, f"{op}: label {{value}} is out of range for {n_class} classes",
                           x.dtype)


def _check_targets(t, checks, op):
    """Target Variable `t` after checks of the data [(bad mask, the values, message)]: on the CPU
    a bad value raises ValueError at once (`{value}` in the message standing for the first
    one); on a device the checks run there (V.backend.device_check) and `t` comes back NaN if
    one failed, so the loss and its gradients are NaN: the error is raised at the next read."""
    if not is_device_array(t.data):
        for bad, values, message in checks:
            if bad.any():
                raise ValueError(message.format(value=values[bad].ravel()[0]))
        return t
    xp = get_array_module(t.data)
    found = None
    for bad, values, message in checks:
        flag = backend.device_check(op, bad, values, message)
        found = flag if found is None else found | flag
    poison = xp.where(found, math.nan, 1).astype(t.dtype)
    return t * poison if t.requires_grad else Variable(t.data * poison, requires_grad=False)


def softmax_cross_entropy(x: ArrayLike, t: ArrayLike, *, weight: ArrayLike | None = None,
                          ignore_index: int | None = None, reduction: str = "mean",
                          label_smoothing: float = 0.0) -> Variable:
    """Cross-entropy of softmax(x) along the last axis against `t`, mean over rows.

    With integer labels this is mean(-log softmax(x)[..., t]); with a probability array
    of `x`'s shape it is mean over rows of -sum(t * log_softmax(x)).  The log-softmax
    is computed inside, so logits of +-1000 give finite losses and gradients.  The
    keywords are PyTorch's F.cross_entropy's, to the same numbers.

    Parameters
    ----------
    x : Variable, ndarray
        Logits, shape (..., C) (usually (N, C)).
    t : Variable, ndarray or list
        Integer class labels in [0, C) of shape x.shape[:-1], or probabilities of
        shape x.shape (a Variable that requires grad is differentiated too).
    weight : ndarray or Variable, optional
        (C,) weights of the classes, constants: a row's loss is weighed by its label's
        weight, and the mean divides by the sum of the weights of the rows' labels (with
        probability targets, each class's term by its weight, the mean over rows).
    ignore_index : int, optional
        Rows whose label is this one count for nothing: their loss is 0 and the mean is over
        the other rows (NaN where none is left).  None, the default, leaves out no row
        (PyTorch's default is -100).  Labels only.
    reduction : 'mean', 'sum' or 'none'
        The mean over rows (weighed, as above), their sum, or each row's loss, of shape
        x.shape[:-1].
    label_smoothing : float in [0, 1]
        The target is (1 - label_smoothing) of the label's one-hot row (or of the
        probabilities) plus label_smoothing / C on every class.

    Returns
    -------
    Variable of `x`'s floating dtype: 0-d, or x.shape[:-1] for reduction 'none'; the mean is
    NaN for no rows (an empty batch). With no classes (C = 0), probability targets give 0
    per row (an empty sum) and any label is out of range.

    Raises
    ------
    TypeError
        If `t` is not an array of real numbers (a str, None, a ragged list, ...), or
        labels of shape x.shape[:-1] are not integers, or `ignore_index` is not an integer.
    ValueError
        If `t` has neither shape, a label is out of range, `x` is 0-d, `weight` is not of
        shape (C,), `reduction` or `label_smoothing` is none of those above, or
        `ignore_index` is given with probability targets.  On a GPU the labels are checked
        on the device, without a sync: a label out of range makes the loss and its
        gradient NaN, and the error ("label 12 is out of range for 10 classes (checked on
        the device)") is raised by the next `float(loss)` or `loss.item()` (or
        `V.backend.synchronize()`); reading `loss.data` directly bypasses it.
    """
    op = "softmax_cross_entropy"
    _refuse_probabilities(x, op, Softmax, "drop the F.softmax (or L.Softmax) before the loss")
    reduction = _checked_reduction(reduction, op)
    smoothing = _checked_smoothing(label_smoothing, op)
    _check_ignore_index(ignore_index, op)
    x_given = x
    x = as_float(x, op)
    t_data = as_array(t, op, like=x, like_name="the logits x")   # (on x's device, see as_array)
    if t_data.ndim == x.ndim + 1 and t_data.shape[:-1] == x.shape:   # (labels, logits): never valid
        raise ValueError(
            f"{op}: x of shape {x.shape} and t of shape {t_data.shape} look swapped: the logits come "
            f"first, {op}(y, t) with y of shape {t_data.shape} and labels t of shape {x.shape}"
        )
    _check_order(x_given, t, op, ("x", "t"))
    if x.ndim == 0:
        raise ValueError(f"{op}: logits must be at least 1-d, got shape {x.shape}")
    weight = _class_weights(weight, x, op)
    if t_data.shape == x.shape[:-1]:
        if t_data.dtype.kind not in "iu" and t_data.size:       # (no labels: any dtype will do)
            raise TypeError(
                f"{op}: labels of shape {t_data.shape} must be integers, got dtype {t_data.dtype} "
                f"(probability targets have the logits' shape {x.shape})"
            )
        if weight is None and ignore_index is None and not smoothing:
            return Function(SoftmaxCrossEntropy(*_class_labels(t_data, x, op, None), reduction=reduction))(x)
        target, divisor = _label_targets(t_data, x, op, weight, ignore_index, smoothing)
        divisor = divisor if reduction == "mean" else None
        return Function(SoftmaxCrossEntropy(reduction=reduction, divisor=divisor))(x, target)
    if t_data.shape == x.shape:
        if ignore_index is not None:
            raise ValueError(f"{op}: ignore_index={ignore_index!r} is for class labels, of shape "
                             f"{x.shape[:-1]}; t holds probabilities, of the logits' shape {x.shape}")
        t = _target(t if isinstance(t, Variable) else t_data, x, op)
        if smoothing:
            t = t * (1 - smoothing) + smoothing / x.shape[-1]
        if weight is not None:
            t = t * weight
        return Function(SoftmaxCrossEntropy(reduction=reduction))(x, t)
    raise ValueError(
        f"{op}: logits of shape {x.shape} need labels of shape {x.shape[:-1]} or "
        f"probabilities of shape {x.shape}, got t of shape {t_data.shape}"
    )


def _check_ignore_index(ignore_index, op):
    """Refuse an `ignore_index` that is neither None nor an integer label, naming `op`."""
    if ignore_index is not None and (isinstance(ignore_index, bool)
                                     or not isinstance(ignore_index, (int, np.integer))):
        raise TypeError(f"{op}: ignore_index must be an integer label, got {ignore_index!r}")


def _checked_smoothing(label_smoothing, op):
    """label_smoothing as a float in [0, 1], else an error naming `op`."""
    if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, (int, float, np.number)):
        raise TypeError(f"{op}: label_smoothing must be a number in [0, 1], got "
                        f"{type(label_smoothing).__name__}")
    if not 0 <= label_smoothing <= 1:
        raise ValueError(f"{op}: label_smoothing must lie in [0, 1], got {label_smoothing!r}")
    return float(label_smoothing)


def _class_weights(weight, x, op):
    """The (C,) class weights of the logits `x` as a constant array of x's dtype, or None."""
    if weight is None:
        return None
    if isinstance(weight, Variable) and weight.requires_grad:
        raise TypeError(f"{op}: weight is a constant (the classes' weights); give weight.data, or "
                        f"weigh each row's loss with reduction='none'")
    w = as_float(weight, op, like=x).data
    if w.shape != x.shape[-1:]:
        raise ValueError(f"{op}: weight must hold one weight per class, shape {x.shape[-1:]}, "
                         f"got {w.shape}")
    return w.astype(x.dtype, copy=False)


def _row_weights(labels, x, op, weight, ignore_index):
    """Integer `labels` of the rows of `x` checked (`_class_labels`; a row labelled `ignore_index`
    given any class), `live` (1 for a kept row, 0 for an ignored one; NaN everywhere where a
    label on a device is out of range) and each row's weight (live times its label's)."""
    xp = get_array_module(x.data)
    live = xp.ones(labels.shape, dtype=x.dtype)
    if ignore_index is not None:
        kept = labels != ignore_index
        labels = xp.where(kept, labels, 0 if x.shape[-1] else ignore_index)   # (any class: the row weighs 0)
        live = live * kept
    labels, poison = _class_labels(labels, x, op, ignore_index)
    if poison is not None:
        live = live * poison
    return labels, live, (live if weight is None else live * weight[labels])


def _per_kept_row(divisor):
    """Each kept row's weight in a mean over the kept rows' weights `divisor` (0-d): 1 / divisor,
    or 0 where no row is kept, whose gradient is 0, as PyTorch's (the mean itself is NaN)."""
    xp = get_array_module(divisor)
    empty = divisor == 0
    return 1 / xp.where(empty, 1, divisor) * ~empty


def _label_targets(labels, x, op, weight, ignore_index, smoothing):
    """The target rows (x's shape, constants) and the mean's divisor (0-d) of integer labels
    under softmax_cross_entropy's options, as PyTorch's: the label's one-hot row times
    1 - smoothing plus smoothing / C on every class, each class weighed by `weight` and each
    row by its label's weight; the rows labelled `ignore_index` all 0; the divisor the sum of
    the kept rows' weights (their number, unweighed)."""
    xp = get_array_module(x.data)
    n_class = x.shape[-1]
    labels, live, rows = _row_weights(labels, x, op, weight, ignore_index)
    target = xp.zeros(x.shape, dtype=x.dtype)
    target[(*_row_indices(labels), labels)] = (1 - smoothing) * rows
    if smoothing:
        spread = smoothing / n_class if weight is None else (smoothing / n_class) * weight
        target += live.reshape(live.shape + (1,)) * spread
    return Variable(target, requires_grad=False), rows.sum()


def nll_loss(log_p: ArrayLike, t: ArrayLike, *, weight: ArrayLike | None = None,
             ignore_index: int | None = None, reduction: str = "mean") -> Variable:
    """The negative log-likelihood of integer labels given log-probabilities (PyTorch's
    F.nll_loss): mean over rows of -log_p[..., t], each row weighed by its label's weight.

    `F.nll_loss(F.log_softmax(x), t)` is `F.softmax_cross_entropy(x, t)`, which is one op
    (and checks that x holds logits); this one takes log-probabilities made otherwise (a
    mixture's, a log_sigmoid's, a model's own).  A composition of differentiable ops: every
    order of derivative.

    Parameters
    ----------
    log_p : Variable, ndarray
        Log-probabilities, shape (..., C) (usually (N, C)), the classes last.
    t : array of ints
        Labels in [0, C), of shape log_p.shape[:-1].
    weight : ndarray, optional
        (C,) weights of the classes, constants: a row's loss is weighed by its label's, and the
        mean divides by the sum of the kept rows' weights.
    ignore_index : int, optional
        Rows of this label count for nothing (loss 0; left out of the mean, which is NaN, with
        gradient 0, where none is left).  None, the default, leaves out no row (PyTorch's is -100).
    reduction : 'mean', 'sum' or 'none'
        The (weighed) mean over rows, their sum, or each row's loss, of shape log_p.shape[:-1].

    Returns
    -------
    Variable of `log_p`'s floating dtype: 0-d, or log_p.shape[:-1] for 'none'.

    Raises
    ------
    TypeError
        If the labels are not integers, or `ignore_index` is not an integer.
    ValueError
        If `log_p` is 0-d, the shapes do not fit, `weight` is not of shape (C,), `reduction` is
        none of the three, or a label is out of range (on a GPU: checked on the device, raised
        at the next read; see the module's docstring).
    """
    op = "nll_loss"
    reduction = _checked_reduction(reduction, op)
    _check_ignore_index(ignore_index, op)
    _check_order(log_p, t, op, ("log_p", "t"))
    x = as_float(log_p, op)
    if x.ndim == 0:
        raise ValueError(f"{op}: log-probabilities must be at least 1-d, got shape {x.shape}")
    t_data = as_array(t, op, like=x, like_name="the log-probabilities log_p")
    if t_data.shape != x.shape[:-1]:
        raise ValueError(f"{op}: log-probabilities of shape {x.shape} need labels of shape {x.shape[:-1]} "
                         f"(the classes last), got t of shape {t_data.shape}")
    if t_data.dtype.kind not in "iu" and t_data.size:
        raise TypeError(f"{op}: labels must be integers, got dtype {t_data.dtype}")
    weight = _class_weights(weight, x, op)
    labels, _, rows = _row_weights(t_data, x, op, weight, ignore_index)
    xp = get_array_module(x.data)
    losses = -V.take_along_axis(x, xp.expand_dims(labels, -1), -1)[..., 0] * rows
    if reduction == "none":
        return losses
    total = V.sum(losses)
    if reduction == "sum":
        return total
    divisor = rows.sum()                 # no row kept: NaN, its gradient 0
    return total * _per_kept_row(divisor) + xp.where(divisor == 0, math.nan, 0).astype(x.dtype)


def _class_labels(labels, x, op, ignore_index):
    """`_labels` for softmax_cross_entropy and nll_loss: a label of -100 out of range, where no
    ignore_index is given, names PyTorch's default ignore_index=-100."""
    try:
        return _labels(labels, x, op)
    except ValueError:
        if ignore_index is None and (labels == -100).any():
            torch = "cross_entropy" if op == "softmax_cross_entropy" else op
            raise ValueError(f"{op}: label -100 is out of range for {x.shape[-1]} classes; PyTorch's "
                             f"{torch} leaves out the rows labelled -100 by default (its "
                             f"ignore_index=-100), gengrad's none unless told: F.{op}(x, t, "
                             f"ignore_index=-100)") from None
        raise


class SigmoidCrossEntropy(_Reduced, Forwarder):
    """mean((1-t) max(x, 0) + t max(-x, 0) + log1p(exp(-|x|))) = mean of -t log s - (1-t) log(1-s)
    (max(x, 0) - x t written so that a logit of +-inf gives inf, not inf - inf, where t < 1 or t > 0);
    with `pos_weight` w (an array broadcasting against x, PyTorch's), -w t log s - (1-t) log(1-s)."""

    def __init__(self, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        self.pos_weight = pos_weight

    def forward(self, x, t):
        w = self.pos_weight
        if w is None:
            losses = (1 - t) * np.maximum(x, 0) + t * np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))
        else:                                    # w t softplus(-x) + (1 - t) softplus(x)
            wt = w * t
            losses = ((1 - t) * np.maximum(x, 0) + wt * np.maximum(-x, 0)
                      + (wt + 1 - t) * np.log1p(np.exp(-np.abs(x))))
        return self._reduce(losses, x)

    save_for_backward = ("x0", "x1")

    def backward(self, gy):
        x, t = self.inputs
        scale = self._scale(gy)
        w = self.pos_weight
        if w is None:
            gx = (sigmoid(x) - t) * scale if x.requires_grad else None   # (sigmoid(x) - t) / n
            gt = -x * scale if t.requires_grad else None                # -x / n
            return gx, gt
        gx = ((1 + (w - 1) * t) * sigmoid(x) - w * t) * scale if x.requires_grad else None
        gt = ((w - 1) * softplus(x) - w * x) * scale if t.requires_grad else None   # w sp(-x) - sp(x)
        return gx, gt

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        x_in, t_in = self.inputs
        x, t = x_in._data, t_in._data
        scale = self._scale(gy)
        w = self.pos_weight
        if w is None:
            gx = _multiply(_sigmoid(x) - t, scale) if x_in.requires_grad else None
            gt = _multiply(-x, scale) if t_in.requires_grad else None
            return gx, gt
        gx = _multiply((1 + (w - 1) * t) * _sigmoid(x) - w * t, scale) if x_in.requires_grad else None
        gt = _multiply((w - 1) * _softplus(x) - w * x, scale) if t_in.requires_grad else None
        return gx, gt

    taylor_records = True

    def taylor(self, x, t):
        y, = self.outputs
        w = self.pos_weight
        if w is None:                                       # softplus' = sigmoid
            softplus_x = _antiderivative(x, series.sigmoid(x))
            return self._series(y, series.sub(softplus_x, series.mul(x, t)))   # softplus(x) - x t
        # (1 + (w - 1) t) softplus(x) - w t x: a product, so softplus's own coefficient 0 too
        softplus_x = series.integral(x, _softplus(x[0]), series.sigmoid(x))
        scaled = series.scale(t, w - 1)
        return self._series(y, series.sub(series.mul([scaled[0] + 1] + scaled[1:], softplus_x),
                                          series.mul(series.scale(t, w), x)))


def _refuse_probabilities(x, op, made_by, fix):
    """Raise if `x` was made by the activation op `made_by` (Softmax, Sigmoid), which `op`
    applies itself: the loss would quietly apply it twice.  `fix` ends the message."""
    creator = x.creator if isinstance(x, Variable) else None
    if creator is not None and type(creator.forwarder) is made_by:
        activation = made_by.__name__.lower()
        raise ValueError(
            f"{op}: x was made by F.{activation}, but {op} takes logits and applies the "
            f"{activation} itself, so it would be applied twice (a wrong loss, quietly); pass "
            f"the logits, the {activation}'s input: {fix}"
        )


def sigmoid_cross_entropy(x: ArrayLike, t: ArrayLike, *, weight: ArrayLike | None = None,
                          reduction: str = "mean", pos_weight: ArrayLike | None = None) -> Variable:
    """Binary cross-entropy of sigmoid(x) against targets t, from logits; mean over elements.

    Computed as max(x, 0) - x t + log(1 + exp(-|x|)), finite for logits of +-1000.

    Parameters
    ----------
    x : Variable, ndarray or number
        Logits.
    t : Variable, ndarray or number
        Targets in [0, 1] (labels 0/1 or probabilities), the shape of `x`.
    weight : ndarray, optional
        Weights of the entries' losses, broadcasting against `x` (constants; PyTorch's): the
        mean is still over the entries.
    reduction : 'mean', 'sum' or 'none'
        The mean of the entries' losses (the default), their sum, or each entry's loss.
    pos_weight : ndarray, optional
        The weight of the positive term, -pos_weight t log s - (1 - t) log(1 - s), broadcasting
        against `x` (one per class along the last axis, usually): PyTorch's, for classes with
        few positives (constants).

    Returns
    -------
    Variable of `x`'s floating dtype: 0-d, or `x`'s shape for 'none'; the mean
    of no entries is NaN, their sum 0.

    Raises
    ------
    ValueError
        If the shapes differ or a target lies outside [0, 1] (on a GPU: checked on the
        device, raised at the next read; see the module's docstring).
    """
    op = "sigmoid_cross_entropy"
    reduction = _checked_reduction(reduction, op)
    _refuse_probabilities(x, op, Sigmoid, "drop the F.sigmoid before the loss, or give the "
                          "probabilities to F.binary_cross_entropy(p, t)")
    x, t = _pair(x, t, op, ordered=True)
    outside = (t.data < 0) | (t.data > 1)
    t = _check_targets(t, [(outside, t.data, f"{op}: targets t must lie in [0, 1], got {{value}}")], op)
    pos_weight = _entry_weights(pos_weight, x, op, "pos_weight")
    weight = _entry_weights(weight, x, op, "weight")
    if weight is None:
        return Function(SigmoidCrossEntropy(reduction, pos_weight))(x, t)
    return _weighed(Function(SigmoidCrossEntropy("none", pos_weight))(x, t) * weight, reduction)


def _entry_weights(weight, x, op, name):
    """Constant weights `weight` broadcasting against the entries of `x`, in x's dtype, or None."""
    if weight is None:
        return None
    if isinstance(weight, Variable) and weight.requires_grad:
        raise TypeError(f"{op}: {name} is a constant; give {name}.data, or weigh the losses yourself "
                        f"with reduction='none'")
    return _broadcasting(as_float(weight, op, like=x).data, x, op, name,
                         " (one weight per entry, or per class along the last axis)")


def _broadcasting(data, like, op, name, hint=""):
    """The constant array `data` in the dtype of `like` if it broadcasts against like's shape (and
    does not make it larger), else a ValueError naming `op` and `name`."""
    try:
        shape = np.broadcast_shapes(data.shape, like.shape)
    except ValueError:
        shape = None
    if shape != like.shape:
        raise ValueError(f"{op}: {name} of shape {data.shape} must broadcast against the input's shape "
                         f"{like.shape}{hint}")
    return data.astype(like.dtype, copy=False)


def _weighed(losses, reduction):
    """The weighed entries' `losses` reduced: their mean over the entries, sum, or each."""
    if reduction == "none":
        return losses
    return V.sum(losses) if reduction == "sum" else V.mean(losses)


LOG_CLAMP = -100.0
"""The floor of each log term of binary_cross_entropy, as in PyTorch: log 0 counts as -100."""


def _clamped_log_series(x, live):
    """Series of log x where `live`, of the constant LOG_CLAMP elsewhere."""
    logs = series.log([np.where(live, x[0], 1)] + [np.where(live, c, 0) for c in x[1:]])
    return [np.where(live, logs[0], LOG_CLAMP)] + [np.where(live, c, 0) for c in logs[1:]]


def _clamped_log_array(x, live):
    """`_clamped_log` on arrays."""
    return np.where(live, np.log(np.where(live, x, 1)), LOG_CLAMP)


def _clamped_log(x, live):
    """log x where `live` (log x > LOG_CLAMP), else LOG_CLAMP, a constant: its derivative is 0."""
    return V.where(live, V.log(V.where(live, x, 1)), LOG_CLAMP)


class BinaryCrossEntropy(_Reduced, Forwarder):
    """mean(-t max(log p, -100) - (1 - t) max(log(1 - p), -100)), PyTorch's clamped form."""

    def forward(self, p, t):
        with errstate(p, divide="ignore"):            # log 0 = -inf, floored just below
            log_p, log_q = np.log(p), np.log(1 - p)
        # where each log is above the floor; elsewhere the term is the constant -100 t (or (1 - t))
        self.live_p, self.live_q = log_p > LOG_CLAMP, log_q > LOG_CLAMP
        log_p = np.where(self.live_p, log_p, LOG_CLAMP)
        log_q = np.where(self.live_q, log_q, LOG_CLAMP)
        return self._reduce(-(t * log_p + (1 - t) * log_q), p)

    save_for_backward = ("x0", "x1")

    def backward(self, gy):
        p, t = self.inputs
        scale = self._scale(gy)
        gp = gt = None
        if p.requires_grad:
            # d/dp = -t/p + (1-t)/(1-p), each quotient 0 where its log is floored (a constant)
            pos = V.where(self.live_p, t / V.where(self.live_p, p, 1), 0)
            neg = V.where(self.live_q, (1 - t) / V.where(self.live_q, 1 - p, 1), 0)
            gp = (neg - pos) * scale
        if t.requires_grad:
            # d/dt = log(1-p) - log p, with the logs floored as in forward
            gt = (_clamped_log(1 - p, self.live_q) - _clamped_log(p, self.live_p)) * scale
        return gp, gt

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        p_in, t_in = self.inputs
        scale = self._scale(gy)
        gp = gt = None
        if p_in.requires_grad:
            p, t = p_in._data, t_in._data
            pos = np.where(self.live_p, t / np.where(self.live_p, p, 1), 0)
            neg = np.where(self.live_q, (1 - t) / np.where(self.live_q, 1 - p, 1), 0)
            gp = _multiply(neg - pos, scale)
        if t_in.requires_grad:
            p = p_in._data
            gt = _multiply(_clamped_log_array(1 - p, self.live_q) - _clamped_log_array(p, self.live_p), scale)
        return gp, gt

    taylor_records = True

    def taylor(self, p, t):
        y, = self.outputs
        one = [np.ones_like(p[0])]                   # y = -mean(t log p + (1 - t) log(1 - p))
        log_p = _clamped_log_series(p, self.live_p)
        log_q = _clamped_log_series(series.sub(one, p), self.live_q)
        terms = series.add(series.mul(t, log_p), series.mul(series.sub(one, t), log_q))
        return self._series(y, series.neg(terms))


def binary_cross_entropy(p: ArrayLike, t: ArrayLike, *, weight: ArrayLike | None = None,
                         reduction: str = "mean") -> Variable:
    """Binary cross-entropy of probabilities `p` against targets `t`, mean over elements.

    mean(-t log p - (1 - t) log(1 - p)) with each log clamped at -100, as PyTorch's
    BCELoss does, so the loss is finite for every p in [0, 1]: p = 0 with t = 1 (or p = 1
    with t = 0) costs 100 per element, and p = 0 or 1 where t matches costs 0.  A clamped
    log is a constant, so its gradient is 0 (where log p <= -100, i.e. p <= e^-100, and
    likewise for 1 - p); elsewhere the value and every derivative are those of the
    unclamped formula.  Gradients are thus finite at p = 0 and 1 too (PyTorch instead
    divides p - t by max(p (1 - p), 1e-12)).  Prefer `sigmoid_cross_entropy` on logits,
    which is stable everywhere and never saturates.

    Parameters
    ----------
    p : Variable, ndarray or number
        Probabilities in [0, 1].
    t : Variable, ndarray or number
        Targets in [0, 1], the shape of `p`.
    weight : ndarray, optional
        Weights of the entries' losses, broadcasting against `p` (constants; PyTorch's): the
        mean is still over the entries.
    reduction : 'mean', 'sum' or 'none'
        The mean of the entries' losses (the default), their sum, or each entry's loss.

    Returns
    -------
    Variable of `p`'s floating dtype: 0-d, or `p`'s shape for 'none'; the mean
    of no entries is NaN, their sum 0.

    Raises
    ------
    ValueError
        If the shapes differ, or p or t leaves [0, 1] (on a GPU: checked on the device,
        raised at the next read; see the module's docstring).
    """
    op = "binary_cross_entropy"
    reduction = _checked_reduction(reduction, op)
    p, t = _pair(p, t, op, ("p", "t"), ordered=True)
    checks = [(~((v.data >= 0) & (v.data <= 1)), v.data, f"{op}: {name} must lie in [0, 1], got {{value}}")
              for name, v in (("p", p), ("t", t))]
    t = _check_targets(t, checks, op)                   # (a NaN t makes the loss and both gradients NaN)
    weight = _entry_weights(weight, p, op, "weight")
    if weight is None:
        return Function(BinaryCrossEntropy(reduction))(p, t)
    return _weighed(Function(BinaryCrossEntropy("none"))(p, t) * weight, reduction)


class HingeLoss(_Reduced, Forwarder):
    """mean(max(0, 1 - t x)) for labels t in {-1, +1}."""

    def __init__(self, t, reduction="mean"):
        super().__init__(reduction)
        self.t = t

    def forward(self, x):
        margin = 1 - self.t * x
        y = self._reduce(np.maximum(margin, 0), x)    # np.maximum keeps a NaN score NaN
        # slope -t where the margin is violated, 0 where it holds, NaN where x is NaN
        slope = np.where(margin > 0, -self.t, np.where(np.isnan(margin), np.nan, 0))
        slope = slope.astype(x.dtype)
        self.slope = slope / (x.size or 1) if self.reduction == "mean" else slope
        return y

    save_for_backward = ()

    def backward(self, gy):
        return gy * self.slope                        # d = -t / n where the margin is violated

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        return _multiply(gy, self.slope)

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        return self._slope_series(y, x)              # y_k = sum(slope x_k)


def hinge_loss(x: ArrayLike, t: ArrayLike, *, reduction: str = "mean") -> Variable:
    """Hinge loss mean(max(0, 1 - t * x)) for labels t in {-1, +1} (a constant).

    Parameters
    ----------
    x : Variable, ndarray or number
        Scores.
    t : Variable, ndarray or number
        Labels -1 or +1, the shape of `x`.
    reduction : 'mean', 'sum' or 'none'
        The mean of the entries' losses (the default), their sum, or each entry's loss.

    Returns
    -------
    Variable of `x`'s floating dtype: 0-d, or `x`'s shape for 'none'; the mean
    of no entries is NaN, their sum 0.

    Raises
    ------
    TypeError
        If `x` or `t` is not an array of real numbers (a str, None, a ragged list, ...).
    ValueError
        If the shapes differ or a label is not -1 or +1 (on a GPU: checked on the device,
        raised at the next read; see the module's docstring).
    """
    op = "hinge_loss"
    reduction = _checked_reduction(reduction, op)
    _check_order(x, t, op, ("x", "t"))
    x = as_float(x, op)
    t_data = as_array(t, op, like=x)
    if t_data.shape != x.shape:
        raise ValueError(f"{op}: x of shape {x.shape} and t of shape {t_data.shape} must have the same shape")
    if t_data.dtype.kind not in "biuf":
        raise ValueError(f"{op}: labels t must be -1 or +1")
    t = Variable(t_data.astype(x.dtype), requires_grad=False)
    other = ~((t_data == 1) | (t_data == -1))
    t = _check_targets(t, [(other, t_data, f"{op}: labels t must be -1 or +1, got {{value}}")], op)
    return Function(HingeLoss(t.data, reduction))(x)


def multi_margin_loss(x: ArrayLike, t: ArrayLike, p: int = 1, margin: float = 1.0,
                      weight: ArrayLike | None = None, reduction: str = "mean") -> Variable:
    """Multi-class hinge loss (PyTorch's F.multi_margin_loss, the multiclass SVM loss): per
    sample, sum over the classes i other than its label y of max(0, margin - x[y] + x[i])^p,
    times weight[y] when given, divided by the number of classes C.

    Parameters
    ----------
    x : Variable or ndarray
        Scores, (N, C), or (C,) for one sample.
    t : array of ints
        Labels in [0, C), of shape x.shape[:-1].
    p : 1 or 2
        The power of each margin violation.
    margin : float
        How far the label's score must exceed each other score to cost nothing.
    weight : Variable or ndarray, optional
        (C,) weights of the classes, each sample's loss scaled by its label's (an array is
        taken in the dtype of `x`).
    reduction : 'mean', 'sum' or 'none'
        The mean over samples, their sum, or the (N,) losses.

    Returns
    -------
    Variable of `x`'s floating dtype: 0-d, or (N,) for reduction 'none'; the mean of no
    samples is NaN.  The derivative at a margin met exactly is 0, as PyTorch's.

    Raises
    ------
    TypeError
        If the labels are not integers, or `margin` is not a number.
    ValueError
        If `x` is not 1-D or 2-D, the shapes do not fit, `p` is not 1 or 2, `reduction` is
        not one of the three, or a label is out of range (on a GPU: checked on the device,
        raised at the next read; see the module's docstring).
    """
    op = "multi_margin_loss"
    _check_order(x, t, op, ("x", "t"))
    x = as_float(x, op)
    if x.ndim not in (1, 2):
        raise ValueError(f"{op}: x must hold (N, C) scores, or (C,) for one sample, got shape {x.shape}")
    if isinstance(p, bool) or p not in (1, 2):
        raise ValueError(f"{op}: p must be 1 or 2, got {p!r}")
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}: margin must be a number, got {type(margin).__name__}")
    reduction = _checked_reduction(reduction, op)
    t_data = as_array(t, op, like=x, like_name="the scores x")
    if t_data.ndim == x.ndim + 1 and t_data.shape[:-1] == x.shape:   # (labels, scores)
        raise ValueError(f"{op}: x of shape {x.shape} and t of shape {t_data.shape} look swapped: the "
                         f"scores come first, {op}(y, t) with y of shape {t_data.shape} and labels t of "
                         f"shape {x.shape}")
    if t_data.shape != x.shape[:-1]:
        raise ValueError(f"{op}: scores of shape {x.shape} need labels of shape {x.shape[:-1]}, "
                         f"got t of shape {t_data.shape}")
    if t_data.dtype.kind not in "iu" and t_data.size:
        raise TypeError(f"{op}: labels must be integers, got dtype {t_data.dtype}")
    labels, poison = _labels(t_data, x, op)
    picked = (*_row_indices(labels), labels)
    violations = relu(x - V.expand_dims(x[picked], -1) + float(margin))
    if p == 2:
        violations = violations * violations
    others = get_array_module(x.data).ones(x.shape, dtype=bool)
    others[picked] = False                              # the label's own term is left out
    violations = V.where(others, violations, 0.0)
    if weight is not None:
        weight = as_float(weight, op, like=x)
        if not weight.requires_grad and weight.dtype != x.dtype:   # a constant takes the scores' dtype
            weight = Variable(weight.data.astype(x.dtype), requires_grad=False)
        if weight.shape != x.shape[-1:]:
            raise ValueError(f"{op}: weight must hold one weight per class, shape {x.shape[-1:]}, "
                             f"got {weight.shape}")
        violations = violations * V.expand_dims(weight[labels], -1)
    losses = V.sum(violations, axis=-1) / x.shape[-1]
    if poison is not None:
        losses = losses * poison
    return _weighed(losses, reduction)


# ----- PyTorch's other losses, compositions of differentiable ops ------------------------------
def _signs(y, like, op, name="y"):
    """Labels `y` (+1 or -1; PyTorch reads them as given) as a constant array of like's dtype, on
    its device, of like's shape (broadcast)."""
    data = as_array(y, op, like=like, name=name)
    if data.dtype.kind not in "biuf":
        raise TypeError(f"{op}: {name} must hold the labels +1 and -1, got dtype {data.dtype}")
    return _broadcasting(data, like, op, name)


def _nonnegative(value, op, name):
    value = finite_number(value, op, name)
    if value < 0:
        raise ValueError(f"{op}: {name} must be >= 0, got {value!r}")
    return value


def smooth_l1_loss(x: ArrayLike, t: ArrayLike, *, reduction: str = "mean", beta: float = 1.0) -> Variable:
    """PyTorch's smooth L1 loss: 0.5 d^2 / beta where |d| < beta, |d| - beta / 2 beyond (d = x - t),
    that is huber_loss(x, t, beta) / beta; beta = 0 is the L1 loss (mean_absolute_error).

    Parameters
    ----------
    x, t : Variable, ndarray or number
        Same shape.
    reduction : 'mean', 'sum' or 'none'
        The mean of the entries' losses (the default), their sum, or each entry's loss.
    beta : float
        Where the quadratic part ends (>= 0).

    Returns
    -------
    Variable of `x`'s floating dtype: 0-d, or `x`'s shape for 'none'.
    """
    op = "smooth_l1_loss"
    reduction = _checked_reduction(reduction, op)
    beta = _nonnegative(beta, op, "beta")
    x, t = _pair(x, t, op)
    if beta == 0:
        return Function(MeanAbsoluteError(reduction))(x, t)
    return Function(HuberLoss(beta, reduction))(x, t) / beta


def soft_margin_loss(x: ArrayLike, y: ArrayLike, *, reduction: str = "mean") -> Variable:
    """PyTorch's soft margin loss of scores `x` and labels `y` of +-1: log(1 + exp(-y x)) per
    entry (a softplus, finite for scores of +-1000), reduced as `reduction` says."""
    op = "soft_margin_loss"
    reduction = _checked_reduction(reduction, op)
    _check_order(x, y, op, ("x", "y"))
    x = as_float(x, op)
    return _weighed(softplus(-_signs(y, x, op) * x), reduction)


def margin_ranking_loss(x1: ArrayLike, x2: ArrayLike, y: ArrayLike, *, margin: float = 0.0,
                        reduction: str = "mean") -> Variable:
    """PyTorch's margin ranking loss: max(0, -y (x1 - x2) + margin) per entry, y = +1 where x1
    should rank higher, -1 where x2 should; reduced as `reduction` says."""
    op = "margin_ranking_loss"
    reduction = _checked_reduction(reduction, op)
    margin = finite_number(margin, op, "margin")
    x1, x2 = _pair(x1, x2, op, ("x1", "x2"))
    return _weighed(relu(-_signs(y, x1, op) * (x1 - x2) + margin), reduction)


def hinge_embedding_loss(x: ArrayLike, y: ArrayLike, *, margin: float = 1.0,
                         reduction: str = "mean") -> Variable:
    """PyTorch's hinge embedding loss of distances `x` and labels `y`: x where y = 1 (similar
    pairs), max(0, margin - x) where y = -1 (dissimilar ones); reduced as `reduction` says."""
    op = "hinge_embedding_loss"
    reduction = _checked_reduction(reduction, op)
    margin = finite_number(margin, op, "margin")
    _check_order(x, y, op, ("x", "y"))
    x = as_float(x, op)
    y = _signs(y, x, op)
    return _weighed(V.where(y != 1, relu(margin - x), 0.0) + V.where(y != -1, x, 0.0), reduction)


def cosine_embedding_loss(x1: ArrayLike, x2: ArrayLike, y: ArrayLike, *, margin: float = 0.0,
                          reduction: str = "mean") -> Variable:
    """PyTorch's cosine embedding loss of rows `x1`, `x2` ((N, D), or (D,) for one pair) and labels
    `y` of +-1: 1 - cos where y = 1, max(0, cos - margin) where y = -1, cos = x1.x2 / sqrt((|x1|^2
    + 1e-12)(|x2|^2 + 1e-12)) as PyTorch's (a zero row has cos 0); reduced over the rows."""
    op = "cosine_embedding_loss"
    reduction = _checked_reduction(reduction, op)
    margin = finite_number(margin, op, "margin")
    x1, x2 = _pair(x1, x2, op, ("x1", "x2"))
    if x1.ndim not in (1, 2):
        raise ValueError(f"{op}: x1 and x2 must hold (N, D) rows, or (D,) for one pair, got shape {x1.shape}")
    squares = (V.sum(x1 * x1, axis=-1) + 1e-12) * (V.sum(x2 * x2, axis=-1) + 1e-12)
    cos = V.sum(x1 * x2, axis=-1) / V.sqrt(squares)
    y = _signs(y, cos, op)
    return _weighed(V.where(y == 1, 1 - cos, 0.0) + V.where(y == -1, relu(cos - margin), 0.0), reduction)


def triplet_margin_loss(anchor: ArrayLike, positive: ArrayLike, negative: ArrayLike, *, margin: float = 1.0,
                        p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                        reduction: str = "mean") -> Variable:
    """PyTorch's triplet margin loss: max(0, d(a, p) - d(a, n) + margin) per row, d(u, v) the
    p-norm of u - v + eps along the last axis (PyTorch's pairwise_distance); with `swap`,
    d(a, n) is replaced by d(p, n) where that is smaller.  Rows (N, D), or (D,) for one triplet."""
    op = "triplet_margin_loss"
    reduction = _checked_reduction(reduction, op)
    margin = finite_number(margin, op, "margin")
    p = finite_number(p, op, "p")
    if p <= 0:
        raise ValueError(f"{op}: p must be positive, got {p!r}")
    eps = _nonnegative(eps, op, "eps")
    swap = true_or_false(swap, op, "swap")
    anchor, positive = _pair(anchor, positive, op, ("anchor", "positive"))
    anchor, negative = _pair(anchor, negative, op, ("anchor", "negative"))
    if anchor.ndim not in (1, 2):
        raise ValueError(f"{op}: the triplets must be (N, D) rows, or (D,) for one, got shape {anchor.shape}")

    def distance(u, v):
        return V.linalg.norm(u - v + eps, ord=p, axis=-1)
    to_negative = distance(anchor, negative)
    if swap:
        to_negative = V.minimum(to_negative, distance(positive, negative))
    return _weighed(relu(distance(anchor, positive) - to_negative + margin), reduction)


def gaussian_nll_loss(x: ArrayLike, t: ArrayLike, var: ArrayLike, *, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Variable:
    """PyTorch's Gaussian negative log-likelihood of targets `t` under means `x` and variances
    `var`: 0.5 (log v + (x - t)^2 / v) per entry (+ 0.5 log(2 pi) with `full`), v = max(var, eps)
    with the derivative of var itself (PyTorch's clamp under no_grad).  `var` has x's shape, or
    x.shape[:-1] or x.shape[:-1] + (1,) (one variance for the last axis), or is a number.

    Raises
    ------
    ValueError
        If var's shape is none of those, or an entry is negative (on a GPU: checked on the
        device, raised at the next read; see the module's docstring).
    """
    op = "gaussian_nll_loss"
    reduction = _checked_reduction(reduction, op)
    eps = _nonnegative(eps, op, "eps")
    full = true_or_false(full, op, "full")
    x, t = _pair(x, t, op, ("x", "t"))
    var = _target(var, x, op)
    if var.shape != x.shape:
        if var.shape == x.shape[:-1]:
            var = V.expand_dims(var, -1)
        elif not (var.ndim == 0 or (var.shape[:-1] == x.shape[:-1] and var.shape[-1:] == (1,))):
            raise ValueError(f"{op}: var of shape {var.shape} must have x's shape {x.shape}, or "
                             f"{x.shape[:-1]} or {x.shape[:-1] + (1,)} (one variance for the last axis)")
    var = _check_targets(var, [(var.data < 0, var.data, f"{op}: var must be >= 0, got {{value}}")], op)
    xp = get_array_module(var.data)
    clamped = var + (xp.maximum(var.data, eps) - var.data)      # max(var, eps), var's derivative
    losses = 0.5 * (V.log(clamped) + (x - t) ** 2 / clamped)
    if full:
        losses = losses + 0.5 * math.log(2 * math.pi)
    return _weighed(V.broadcast_to(losses, x.shape) if losses.shape != x.shape else losses, reduction)


# ----- similarity ----------------------------------------------------------------------
def cosine_similarity(x: ArrayLike, y: ArrayLike, axis: int = -1, eps: float = 1e-8) -> Variable:
    """Cosine of the angle between `x` and `y` along `axis`: values, not a loss.

    x.y / (max(|x|, eps) max(|y|, eps)); the eps clamp keeps a zero vector at
    similarity 0 with finite gradients.  A composition of differentiable ops.

    Parameters
    ----------
    x, y : Variable, ndarray
        Shapes that broadcast together.
    axis : int
        Axis of the vectors.
    eps : float
        Smallest norm used in the denominator (non-negative).

    Returns
    -------
    Variable of the broadcast shape without `axis`.

    Raises
    ------
    ValueError
        If the shapes do not broadcast, `axis` is out of range or `eps` is negative.
    """
    op = "cosine_similarity"
    x = as_float(x, op)
    y = _target(y, x, op)
    try:
        shape = np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise ValueError(f"{op}: x of shape {x.shape} and y of shape {y.shape} do not broadcast") from None
    if not shape:
        raise ValueError(f"{op}: inputs are 0-d; they need an axis of vector entries")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{op}: axis must be an int, got {type(axis).__name__}")
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"{op}: axis {axis} is out of range for inputs of shape {shape}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating)) or not eps >= 0:
        raise ValueError(f"{op}: eps must be a non-negative number, got {eps!r}")
    if x.shape != shape:                  # broadcast first: the norms are of the broadcast vectors
        x = V.broadcast_to(x, shape)      # (broadcast_to's backward sums the gradient back)
    if y.shape != shape:
        y = V.broadcast_to(y, shape)
    floor = eps * eps
    norm_x = V.sqrt(V.maximum(V.sum(x * x, axis=axis), floor))   # max(|x|, eps)
    norm_y = V.sqrt(V.maximum(V.sum(y * y, axis=axis), floor))
    return V.sum(x * y, axis=axis) / (norm_x * norm_y)


# PyTorch's positional orders past the inputs, which gengrad takes by keyword alone:
# {gengrad's name: (PyTorch's name, its parameters there in order)}
_TORCH_POSITIONS = {
    "mean_squared_error": ("mse_loss", ("size_average", "reduce", "reduction")),
    "mean_absolute_error": ("l1_loss", ("size_average", "reduce", "reduction")),
    "softmax_cross_entropy": ("cross_entropy", ("weight", "size_average", "ignore_index", "reduce",
                                                "reduction", "label_smoothing")),
    "nll_loss": ("nll_loss", ("weight", "size_average", "ignore_index", "reduce", "reduction")),
    "binary_cross_entropy": ("binary_cross_entropy", ("weight", "size_average", "reduce", "reduction")),
    "sigmoid_cross_entropy": ("binary_cross_entropy_with_logits", ("weight", "size_average", "reduce",
                                                                   "reduction", "pos_weight")),
    "poisson_nll_loss": ("poisson_nll_loss", ("log_input", "full", "size_average", "eps", "reduce",
                                              "reduction")),
    "smooth_l1_loss": ("smooth_l1_loss", ("size_average", "reduce", "reduction", "beta")),
    "soft_margin_loss": ("soft_margin_loss", ("size_average", "reduce", "reduction")),
    "margin_ranking_loss": ("margin_ranking_loss", ("margin", "size_average", "reduce", "reduction")),
    "hinge_embedding_loss": ("hinge_embedding_loss", ("margin", "size_average", "reduce", "reduction")),
    "cosine_embedding_loss": ("cosine_embedding_loss", ("margin", "size_average", "reduce", "reduction")),
    "triplet_margin_loss": ("triplet_margin_loss", ("margin", "p", "eps", "swap", "size_average", "reduce",
                                                    "reduction")),
    "gaussian_nll_loss": ("gaussian_nll_loss", ("full", "eps", "reduction")),
}


def _keywords_after_the_inputs(loss, torch_name, order):
    """`loss`, refusing more positional arguments than its inputs, naming the keyword PyTorch's
    `torch_name` reads there (F.cross_entropy(x, t, w): weight=)."""
    inputs = [p.name for p in inspect.signature(loss).parameters.values()
              if p.kind is p.POSITIONAL_OR_KEYWORD]

    @functools.wraps(loss)
    def checked(*args, **kwargs):
        if len(args) > len(inputs):
            extra = len(args) - len(inputs)
            named = ", ".join(f"{key}=..." for key in order[:extra])
            raise TypeError(
                f"{loss.__name__}() takes {len(inputs)} positional arguments ({', '.join(inputs)}), got "
                f"{len(args)}: the rest are keywords here, where PyTorch's F.{torch_name} reads them in the "
                f"order {', '.join(order)}: write {loss.__name__}({', '.join(inputs)}, {named})")
        return loss(*args, **kwargs)
    return checked


for _name, (_torch_name, _order) in _TORCH_POSITIONS.items():
    globals()[_name] = _keywords_after_the_inputs(globals()[_name], _torch_name, _order)
del _name, _torch_name, _order


__all__ = [
    "mean_squared_error", "mean_absolute_error", "huber_loss", "softmax_cross_entropy",
    "binary_cross_entropy", "sigmoid_cross_entropy", "cosine_similarity", "hinge_loss",
    "poisson_nll_loss", "log_cosh_loss", "multi_margin_loss", "nll_loss", "smooth_l1_loss",
    "soft_margin_loss", "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
    "triplet_margin_loss",
    "gaussian_nll_loss",
]
