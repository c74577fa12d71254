"""Statistics: var, std and average.

`var` and `average` are built from reduction.py's ops (variance, mean, sum), so their
gradients and Taylor rules are those ops' own.  `std` is an op of its own: at a constant
slice (std 0) sqrt has no derivative, and std's gradient there is the subgradient 0, as
in PyTorch, instead of the NaN that sqrt(var) would give.

Over an empty axis the results are NaN, and with ddof >= n they are inf or NaN, as in
NumPy (without its warnings).
"""

from numbers import Real

import numpy as np

from .. import series
from ..axes import normalize_axis
from ..backend import errstate, get_array_module
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike, Axis
from . import reduction
from .elementwise import where as _where
from .products import _refuse_keywords
from .reduction import _count, _mean_array, _spread
from .shape import broadcast_to, reshape, transpose


def _degrees(ddof, correction, op):
    """NumPy 2's ddof, or `correction` (its Array-API name) in its place; both is refused."""
    if correction is not None:
        if ddof != 0:
            raise ValueError(
                f"{op}: ddof and correction cannot both be given (correction is ddof's other name)"
            )
        ddof = correction
    if not isinstance(ddof, Real) or isinstance(ddof, bool):
        raise TypeError(f"{op}: ddof must be a real number, got {type(ddof).__name__}")
    return ddof


def _divisor(n, ddof):
    """n - ddof, the divisor of the sum of squares; 0 when ddof >= n (var is then inf or NaN)."""
    return n - ddof if n > ddof else 0


class Std(Forwarder):
    """Standard deviation over axes with `ddof`; gradient 0 where it is 0 (a constant slice)."""

    def __init__(self, axes, keepdims, ddof):
        self.axes, self.keepdims, self.ddof = axes, keepdims, ddof

    def forward(self, x):
        self.divisor = _divisor(_count(x.shape, self.axes), self.ddof)
        centred = x - _mean_array(x, self.axes, True)
        with errstate(x, divide="ignore", invalid="ignore"):   # ddof >= n: inf or NaN, meant
            y = np.sqrt((centred * centred).sum(axis=self.axes, keepdims=self.keepdims) / self.divisor)
        self.flat = y == 0                                     # constant slices: subgradient 0
        return y

    save_for_backward = ("x", "y")

    def backward(self, gy):
        x, = self.inputs
        y, = self.outputs
        centred = x - reduction.mean(x, self.axes, keepdims=True)
        # d std = (x - m) / (d std), d = n - ddof; 0 where std = 0 (no 1/0 on either branch)
        scale = _where(self.flat, 0, 1 / (self.divisor * _where(self.flat, 1, y)))
        return _spread(gy * scale, x, self.axes) * centred

    taylor_records = True

    def taylor(self, x):
        # var = sum((x - mean x)^2) / d, then sqrt; series 0 past y_0 where std = 0
        centred = series.map_linear(x, lambda c: c - _mean_array(c, self.axes, True))
        squares = series.square(centred)
        var = [c.sum(axis=self.axes, keepdims=self.keepdims) / self.divisor for c in squares]
        y, = self.outputs
        var[0] = np.where(self.flat, 1, var[0])               # (1 where std = 0: no division by 0)
        roots = series.sqrt(var, np.where(self.flat, 1, y._data))
        return [y._data] + [np.where(self.flat, 0, c) for c in roots[1:]]


def _check_var_keywords(op, dtype, out, where, mean_given):
    _refuse_keywords(op, dtype, out, where)
    if mean_given is not None:
        raise TypeError(
            f"{op}: mean= is not supported; the mean is computed from the input (and differentiated)"
        )


def var(
    a: ArrayLike,
    axis: Axis = None,
    dtype: None = None,
    out: None = None,
    ddof: float = 0,
    keepdims: bool = False,
    *,
    where: bool = True,
    mean: None = None,
    correction: float | None = None,
) -> Variable:
    """Variance of `a` over `axis`: the sum of squared deviations divided by n - ddof.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    dtype, out, where, mean
        NumPy's keywords, accepted at their defaults only (None, None, True, None).
    ddof : real number
        Delta degrees of freedom: 0 for the population variance, 1 for the unbiased estimate.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    correction : real number, optional
        NumPy 2's other name for `ddof` (the Array API's); give one of the two.

    Returns
    -------
    Variable
        The variances; NaN over an empty axis, inf (NaN for a constant slice) when
        ddof >= n, as in NumPy.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `ddof` is not a number, `dtype`,
        `out`, `where` or `mean` is given, or `a` is not a Variable, a numeric ndarray, a
        number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, or both `ddof` (non-zero) and `correction`
        are given.
    """
    _check_var_keywords("var", dtype, out, where, mean)
    ddof = _degrees(ddof, correction, "var")
    a = as_variable(a, op="var")
    axes = normalize_axis(axis, a.ndim, "var", a.shape)
    y = reduction.variance(a, axes, keepdims)
    if ddof == 0:
        return y
    n = _count(a.shape, axes)
    d = _divisor(n, ddof)
    with errstate(y, invalid="ignore"):                      # ddof >= n: 0 * inf is NaN, meant
        return y * (n / d if d else float("inf"))            # var = variance * n / (n - ddof)


def std(
    a: ArrayLike,
    axis: Axis = None,
    dtype: None = None,
    out: None = None,
    ddof: float = 0,
    keepdims: bool = False,
    *,
    where: bool = True,
    mean: None = None,
    correction: float | None = None,
) -> Variable:
    """Standard deviation of `a` over `axis`: the square root of `var`.

    At a constant slice (std 0) the gradient is the subgradient 0, as in PyTorch (sqrt has
    no derivative at 0; sqrt(var) would give NaN), and so are the higher derivatives and
    Taylor coefficients there.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    dtype, out, where, mean
        NumPy's keywords, accepted at their defaults only (None, None, True, None).
    ddof : real number
        Delta degrees of freedom: the squared deviations are summed and divided by n - ddof.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    correction : real number, optional
        NumPy 2's other name for `ddof` (the Array API's); give one of the two.

    Returns
    -------
    Variable
        The standard deviations; NaN over an empty axis, inf (NaN for a constant slice)
        when ddof >= n, as in NumPy.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `ddof` is not a number, `dtype`,
        `out`, `where` or `mean` is given, or `a` is not a Variable, a numeric ndarray, a
        number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, or both `ddof` (non-zero) and `correction`
        are given.
    """
    _check_var_keywords("std", dtype, out, where, mean)
    ddof = _degrees(ddof, correction, "std")
    a = as_variable(a, op="std")
    axes = normalize_axis(axis, a.ndim, "std", a.shape)
    return Function(Std(axes, bool(keepdims), ddof))(a)


def _weights_along(w, a, axis):
    """`w` reshaped to broadcast against `a` along `axis` (NumPy's rule: same shape as `a`, or
    the shape of `a` along the axes, in the order `axis` names them)."""
    if w.shape == a.shape:
        return w
    if axis is None:
        raise TypeError(
            f"average: weights of shape {w.shape} differ from a's shape {a.shape}; give the "
            f"axis they lie along"
        )
    named = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    named = tuple(int(i) % a.ndim for i in named)
    if w.shape != tuple(a.shape[i] for i in named):
        raise ValueError(
            f"average: weights of shape {w.shape} do not match a's shape {a.shape} along axis "
            f"{axis} (expected {tuple(a.shape[i] for i in named)})"
        )
    w = transpose(w, tuple(int(i) for i in np.argsort(named)))
    return reshape(w, tuple(n if i in named else 1 for i, n in enumerate(a.shape)))


def average(
    a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None, returned: bool = False, *,
    keepdims: bool = False,
) -> Variable | tuple[Variable, Variable]:
    """Weighted average of `a` over `axis`: sum(a * w) / sum(w) (the mean without weights).

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to average over (negatives allowed); None averages over all of them.
    weights : ArrayLike, optional
        Of the shape of `a`, or of `a`'s shape along `axis` (1-d for one axis). A Variable
        gets gradients too.
    returned : bool
        Also return the sum of the weights (the count without weights), of the average's shape.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.

    Returns
    -------
    Variable, or (Variable, Variable) if `returned`
        The averages (NaN over an empty axis without weights), and the sums of the weights.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, or the shapes of `a` and
        `weights` differ and `axis` is None, or an input is not a Variable, a numeric
        ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, or `weights` does not match `a` along `axis`.
    ZeroDivisionError
        If the weights of a slice sum to 0 (as in NumPy).
    """
    a = as_variable(a, op="average")
    axes = normalize_axis(axis, a.ndim, "average", a.shape)
    keepdims = bool(keepdims)
    if weights is None:
        avg = reduction.mean(a, axis, keepdims)
        if not returned:
            return avg
        count = get_array_module(a).full(avg.shape, _count(a.shape, axes), dtype=avg.dtype)
        return avg, as_variable(count)
    w = _weights_along(as_variable(weights, like=a, op="average"), a, axis)
    total = reduction.sum(w, axes, keepdims)
    if bool((total.data == 0).any()):
        raise ZeroDivisionError("average: the weights sum to 0 along the axis, so they cannot be normalized")
    avg = reduction.sum(a * w, axes, keepdims) / total                # avg = sum(a w) / sum(w)
    if not returned:
        return avg
    return avg, broadcast_to(total, avg.shape)


__all__ = ["var", "std", "average"]
