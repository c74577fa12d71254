"""Piecewise elementwise ops: abs, maximum, minimum, clip and where.

Each saves, in `forward`, a constant array saying which piece every entry is on (a sign,
a share at ties, a mask), so its backward and Taylor rule are linear in that constant and
every order of derivative works (0 beyond the first, away from the kinks).
"""

import numpy as np

from .. import backend
from ..axes import broadcasts_to
from ..backend import get_array_module, maybe_any
from ..forwarder import Forwarder, Function, Variable, _on_device, _reference_dtype, as_variable
from ..types import ArrayLike
from .elementwise import _multiply, _reduce, _reduced
from .shape import broadcast_to


def _choose(y0, x0, x1, pick):
    """[y0, pick(x0_1, x1_1), ...] for a piecewise op whose choice is constant along t; a short
    list's missing coefficients are 0, and each coefficient is broadcast to y0's shape."""
    zero = get_array_module(y0).zeros((), dtype=y0.dtype)
    out = [y0]
    for k in range(1, max(len(x0), len(x1))):
        yk = pick(x0[k] if k < len(x0) else zero, x1[k] if k < len(x1) else zero)
        out.append(yk if yk.shape == y0.shape else np.broadcast_to(yk, y0.shape))
    return out


_GATE_BY_PRODUCT = 4096
"""From this many entries on, `_gated` multiplies a finite gy by the mask: NumPy's where
branches on each entry, and on a mask of random signs (a ReLU's) it takes 5-10x a product
(10^5 float64 entries: 472 against 107 us with the finiteness check; 3.2 * 10^6 float32:
4.8 against 0.7 ms); below it, where is as fast."""


def _gated(gy, mask, keep=True):
    """The gradient array gy where `mask` holds (where it does not: `keep` False), 0 elsewhere:
    a flat piece passes nothing back, whatever gy is there (gy * mask would be NaN where gy is
    inf, as after a sqrt at 0; PyTorch's relu, clamp and maximum give 0 there too), so a
    product serves only a gy known finite."""
    if type(gy) is np.ndarray and gy.size >= _GATE_BY_PRODUCT and np.isfinite(gy).all():
        return _multiply(gy, mask if keep else ~mask)
    return get_array_module(gy).where(mask, gy, 0) if keep else get_array_module(gy).where(mask, 0, gy)


class Abs(Forwarder):
    """Absolute value; its derivative at 0 is taken as 0."""

    def forward(self, x):
        self.sign = np.sign(x)
        return np.abs(x)

    save_for_backward = ()

    def backward(self, gy):
        return gy * self.sign                          # d |x| = sign(x)

    def _backward_arrays(self, gy):
        return _multiply(gy, self.sign)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + [self.sign * xk for xk in x[1:]]   # |x| = sign(x) x near x_0 != 0


class Maximum(Forwarder):
    """Elementwise maximum; a tie sends half the gradient to each side."""

    first = staticmethod(np.greater)                 # where x0 is the one picked
    pick = staticmethod(np.maximum)

    def forward(self, x0, x1):
        first, tie = self.first(x0, x1), x0 == x1
        # x0's share of the gradient: 1, 0, or 1/2 at a tie; with no tie a mask, which backward
        # applies as one product (np.maximum(x, 0), a ReLU: 5.6 -> 2.8 ms on 8 * 10^5 float32)
        self.share0 = first + 0.5 * tie if maybe_any(tie) else first
        return self.pick(x0, x1)

    save_for_backward = ()

    def backward(self, gy):
        x0, x1 = self.inputs
        share0 = self.share0.astype(gy.dtype, copy=False)
        gx0 = _reduce(where(share0 > 0, gy, 0) * share0, x0) if x0.requires_grad else None
        gx1 = _reduce(where(share0 < 1, gy, 0) * (1 - share0), x1) if x1.requires_grad else None
        return gx0, gx1

    def _backward_arrays(self, gy):
        x0, x1 = self.inputs
        if self.share0.dtype == bool:                # no tie: each entry's gy to one side whole
            gx0 = _reduced(_gated(gy, self.share0), x0) if x0.requires_grad else None
            gx1 = _reduced(_gated(gy, self.share0, keep=False), x1) if x1.requires_grad else None
            return gx0, gx1
        share0 = self.share0.astype(gy.dtype, copy=False)
        gx0 = _reduced(_multiply(_gated(gy, share0 > 0), share0), x0) if x0.requires_grad else None
        gx1 = _reduced(_multiply(_gated(gy, share0 < 1), 1 - share0), x1) if x1.requires_grad else None
        return gx0, gx1

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        share0 = self.share0.astype(y.dtype, copy=False)   # y_k = share0 x0_k + (1 - share0) x1_k
        return _choose(y._data, x0, x1, lambda a, b: share0 * a + (1 - share0) * b)


class Minimum(Maximum):
    """Elementwise minimum; a tie sends half the gradient to each side."""

    first = staticmethod(np.less)
    pick = staticmethod(np.minimum)


class Clip(Forwarder):
    """Clip to [lo, hi]; the gradient passes where lo <= x <= hi."""

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def forward(self, x):
        lo, hi = self.lo, self.hi                     # (a bound broadcasts to x's shape)
        if lo is None:
            self.inside = x <= hi
        elif hi is None:
            self.inside = x >= lo
        else:
            self.inside = (x >= lo) & (x <= hi)
        return np.clip(x, lo, hi)

    save_for_backward = ()

    def backward(self, gy):
        return where(self.inside, gy, 0)

    def _backward_arrays(self, gy):
        return _gated(gy, self.inside)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + [xk * self.inside for xk in x[1:]]   # y_k = x_k inside, 0 at a bound


class Where(Forwarder):
    """Pick from x0 where the constant mask holds, from x1 elsewhere."""

    def __init__(self, condition):
        self.condition = condition

    def forward(self, x0, x1):
        return np.where(self.condition, x0, x1)

    save_for_backward = ()

    def backward(self, gy):
        x0, x1 = self.inputs
        gx0 = _reduce(where(self.condition, gy, 0), x0) if x0.requires_grad else None
        gx1 = _reduce(where(self.condition, 0, gy), x1) if x1.requires_grad else None
        return gx0, gx1

    def _backward_arrays(self, gy):
        x0, x1 = self.inputs
        gx0 = _reduced(_gated(gy, self.condition), x0) if x0.requires_grad else None
        gx1 = _reduced(_gated(gy, self.condition, keep=False), x1) if x1.requires_grad else None
        return gx0, gx1

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        condition = self.condition                   # y_k = x0_k where the mask holds, else x1_k
        return _choose(y._data, x0, x1, lambda a, b: np.where(condition, a, b))


def abs(x: ArrayLike) -> Variable:
    """Absolute value, elementwise (gradient 0 at 0).

    Parameters
    ----------
    x : ArrayLike

    Returns
    -------
    Variable
        Of the shape of `x`.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a numeric ndarray, a number or a list of numbers.
    """
    return Function(Abs())(x)


def maximum(x0: ArrayLike, x1: ArrayLike) -> Variable:
    """Elementwise maximum with broadcasting; ties split the gradient evenly.

    Parameters
    ----------
    x0, x1 : ArrayLike
        The operands; a Python number takes the dtype of the other operand's array.

    Returns
    -------
    Variable
        The larger entries, of the operands' broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If the shapes of `x0` and `x1` do not broadcast together.
    """
    return Function(Maximum())(x0, x1)


def minimum(x0: ArrayLike, x1: ArrayLike) -> Variable:
    """Elementwise minimum with broadcasting; ties split the gradient evenly.

    Parameters
    ----------
    x0, x1 : ArrayLike
        The operands; a Python number takes the dtype of the other operand's array.

    Returns
    -------
    Variable
        The smaller entries, of the operands' broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If the shapes of `x0` and `x1` do not broadcast together.
    """
    return Function(Minimum())(x0, x1)


def _bound(value, op, which):
    if value is None or isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return value
    if isinstance(value, Variable):                  # (one that requires grad: clip's caller)
        value = value._data
    if (isinstance(value, np.ndarray) or backend.is_device_array(value)) and value.dtype.kind in "iuf":
        return value
    raise TypeError(f"{op}: {which} must be a number, a numeric ndarray or None, got {type(value).__name__}")


def clip(x: ArrayLike, lo: float | np.ndarray | None, hi: float | np.ndarray | None) -> Variable:
    """Clip `x` to [lo, hi] (either may be None); gradient 1 inside, 0 outside.

    Parameters
    ----------
    x : ArrayLike
    lo, hi : float, ndarray, Variable or None
        The bounds; an array bound must broadcast to the shape of `x`. None leaves
        that side open. Next to GPU data a NumPy bound moves there only under
        V.backend.set_default_device("gpu") (a 0-d one counts as a number). A bound that
        requires grad is differentiated too (PyTorch's clamp with tensor bounds): the
        result is then V.minimum(V.maximum(x, lo), hi), NumPy's clip where lo > hi.

    Returns
    -------
    Variable
        Of the shape of `x`.

    Raises
    ------
    TypeError
        If a bound is not a number, a real ndarray or None, or `x` is not a Variable, a
        numeric ndarray, a number or a list of numbers, or an array bound is on the other
        device than `x` (see above).
    ValueError
        If both bounds are None or an array bound does not broadcast to `x`.
    """
    if any(isinstance(b, Variable) and b.requires_grad for b in (lo, hi)):
        return _clip_to_variables(x, lo, hi)
    lo, hi = _bound(lo, "clip", "lo"), _bound(hi, "clip", "hi")
    if lo is None and hi is None:
        raise ValueError("clip: at least one of lo and hi must be given")
    x = as_variable(x, op="clip")
    x_shape = x.shape
    bounds = [lo, hi]
    for i, (bound, which) in enumerate(zip(bounds, ("lo", "hi"))):
        if isinstance(bound, np.ndarray) or backend.is_device_array(bound):
            if not broadcasts_to(bound.shape, x_shape):
                raise ValueError(f"clip: bound of shape {bound.shape} does not broadcast to input {x_shape}")
            bounds[i] = backend.constant_like(bound, x, "clip", which, "x")
    return Function(Clip(*bounds))(x)


def _clip_to_variables(x, lo, hi):
    """clip(x, lo, hi) with a bound that requires grad: max(x, lo), then min(., hi), each bound
    checked to broadcast to x's shape, as a constant bound is."""
    x = as_variable(x, op="clip")
    y = x
    for bound, which, op in ((lo, "lo", maximum), (hi, "hi", minimum)):
        if bound is None:
            continue
        if not isinstance(bound, Variable):
            _bound(bound, "clip", which)
        if not broadcasts_to(np.shape(bound), x.shape):
            raise ValueError(f"clip: bound of shape {np.shape(bound)} does not broadcast to input {x.shape}")
        y = op(y, bound)
    return y


def where(condition: np.ndarray | Variable | bool | list, x0: ArrayLike, x1: ArrayLike) -> Variable:
    """Elementwise `x0 if condition else x1`, broadcasting all three like np.where.

    Parameters
    ----------
    condition : ndarray, Variable, bool or list of bools
        A constant boolean mask: no gradient flows into it. Next to GPU data a bool or
        list is made there, and a NumPy mask moves there only under
        V.backend.set_default_device("gpu") (a 0-d one always).
    x0, x1 : ArrayLike
        Values taken where `condition` holds and where it does not; a Python number takes
        the dtype of the other input when that is a floating array.

    Returns
    -------
    Variable
        Of the broadcast shape of the three arguments.

    Raises
    ------
    TypeError
        If `condition` is not boolean, or `x0` or `x1` is not a Variable, a numeric
        ndarray, a number or a list of numbers, or the condition is on the other device
        than the data (see above).
    ValueError
        If the three shapes do not broadcast together.

    Notes
    -----
    The side not taken gets a zero gradient, and zero times that side's own local derivative
    is still taken: where it is infinite or NaN (V.log(x) at x = 0, V.sqrt at 0) the gradient
    is NaN there, as in PyTorch and JAX.  Compute the unsafe side at a safe point instead:
    ``V.where(x > 0, V.log(V.where(x > 0, x, 1.0)), 0.0)``.
    """
    if isinstance(condition, Variable):
        condition = condition.data
    xp = get_array_module(x0, x1, condition)
    if xp is np or not (isinstance(condition, np.ndarray) or backend.is_device_array(condition)):
        try:                                           # a bool or a list: made where the data is
            condition = np.asarray(condition) if xp is np else xp.asarray(np.asarray(condition))
        except ValueError:
            raise TypeError(f"where: condition must be a boolean array, got {condition!r}") from None
    if condition.dtype != bool:
        raise TypeError(f"where: condition must be boolean, got dtype {condition.dtype}")
    if xp is np:
        # a Python number takes the dtype of the other input, as it would in Function
        x0, x1 = as_variable(x0, like=x1, op="where"), as_variable(x1, like=x0, op="where")
    else:                                              # numbers and lists made on the GPU
        host = next((x for x in (x0, x1) if type(getattr(x, "_data", x)) is np.ndarray), None)
        on_gpu = next(x for x in (x0, x1, condition) if backend.device_of(x) == "gpu")
        dtype = _reference_dtype((x0, x1))
        x0, x1 = [x if isinstance(x, Variable) else _on_device(x, dtype, "where", xp, on_gpu)
                  for x in (x0, x1)]
        data = host if host is not None else x0 if backend.is_device_array(x0._data) else x1
        condition = backend.constant_like(condition, data, "where", "condition", "x0 and x1")
    s0, s1 = x0.shape, x1.shape
    try:
        shape = np.broadcast_shapes(condition.shape, s0, s1)
    except ValueError:
        raise ValueError(
            f"where: condition {condition.shape}, x0 {s0} and x1 {s1} cannot be broadcast together"
        ) from None
    if shape != np.broadcast_shapes(s0, s1):
        # the condition widens the result: broadcast an input so gradients keep shapes
        x0 = broadcast_to(x0, shape)
    return Function(Where(condition))(x0, x1)


__all__ = ["abs", "maximum", "minimum", "clip", "where"]
