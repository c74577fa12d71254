"""Rounding, signs, steps, NaN-aware extrema and the real/complex parts of real data.

The rounding ops and sign are constant almost everywhere: their gradient is exact zeros of
the input's shape and dtype (a jump has no derivative; we take 0 there too) and their Taylor
series is y_0 followed by zeros.  heaviside is such a step in its input, and passes its
second operand where the input is exactly 0 (gradient 1 there).  gengrad holds real data
only, so real, conj and conjugate are identities and imag is zeros; complex input is
refused.  (The remainders, mod and fmod, are in division.py.)
"""

import operator
from typing import Any

import numpy as np

from ..backend import get_array_module
from ..directions import Directions
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike
from .elementwise import _reduce
from .exponential import _ufunc_keywords
from .piecewise import Abs, Maximum, _choose


def _zeros(x):
    """A constant gradient of exact zeros of the shape and dtype of input `x`."""
    return Variable(get_array_module(x).zeros(x.shape, dtype=x.dtype), requires_grad=False)


# ----- constant almost everywhere ------------------------------------------------
class _Flat(Forwarder):
    """Base of the ops that are constant almost everywhere (their forward differs)."""

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return _zeros(x)                               # dy/dx = 0 between jumps (0 taken at one too)

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs                              # y(t) = y_0 near t = 0: y_k = 0 for k >= 1,
        zero = np.zeros_like(y._data)                  # with the directions of x_k where x_k has
        return [y._data] + [c * 0.0 if isinstance(c, Directions) else zero for c in x[1:]]   # them


class Sign(_Flat):
    """Sign: -1, 0 or 1 (NaN stays NaN)."""

    def forward(self, x):
        return np.sign(x)


class Floor(_Flat):
    """Largest whole number <= x."""

    def forward(self, x):
        return np.floor(x)


class Ceil(_Flat):
    """Smallest whole number >= x."""

    def forward(self, x):
        return np.ceil(x)


class Rint(_Flat):
    """Nearest whole number, halves to even."""

    def forward(self, x):
        return np.rint(x)


class Trunc(_Flat):
    """Whole part, rounded towards 0."""

    def forward(self, x):
        return np.trunc(x)


class Fix(_Flat):
    """Rounded towards 0 (NumPy's fix)."""

    def forward(self, x):
        return get_array_module(x).fix(x)


class Round(_Flat):
    """Rounded to `decimals` decimals, halves to even."""

    def __init__(self, decimals):
        self.decimals = decimals

    def forward(self, x):
        return get_array_module(x).round(x, self.decimals)


class Imag(_Flat):
    """Imaginary part of real data: zeros."""

    def forward(self, x):
        return get_array_module(x).zeros_like(x)


def _unary(forwarder, x, op, out, keywords):
    """Run a one-input op on `x` after checking the ufunc keywords; errors name `op`."""
    _ufunc_keywords(op, out, keywords)
    return Function(forwarder)(as_variable(x, op=op))


def sign(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Sign of `x`, elementwise: -1, 0 or 1 (NaN for NaN); zero gradient.

    Parameters
    ----------
    x : ArrayLike
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the shape and dtype of `x`; its gradient is zeros.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or a
        keyword is not at its default.
    """
    return _unary(Sign(), x, "sign", out, kwargs)


def floor(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Floor of `x`, elementwise; zero gradient.

    Parameters
    ----------
    x : ArrayLike
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the shape and dtype of `x`; its gradient is zeros.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or a
        keyword is not at its default.
    """
    return _unary(Floor(), x, "floor", out, kwargs)


def ceil(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Ceiling of `x`, elementwise; zero gradient.

    Parameters
    ----------
    x : ArrayLike
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the shape and dtype of `x`; its gradient is zeros.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or a
        keyword is not at its default.
    """
    return _unary(Ceil(), x, "ceil", out, kwargs)


def rint(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """`x` rounded to the nearest whole number (halves to even), elementwise; zero gradient.

    Parameters
    ----------
    x : ArrayLike
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the shape and dtype of `x`; its gradient is zeros.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or a
        keyword is not at its default.
    """
    return _unary(Rint(), x, "rint", out, kwargs)


def trunc(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """`x` rounded towards 0, elementwise; zero gradient.

    Parameters
    ----------
    x : ArrayLike
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the shape and dtype of `x`; its gradient is zeros.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or a
        keyword is not at its default.
    """
    return _unary(Trunc(), x, "trunc", out, kwargs)


def fix(x: ArrayLike, out: None = None) -> Variable:
    """`x` rounded towards 0, elementwise (as `trunc`); zero gradient.

    Parameters
    ----------
    x : ArrayLike
    out : None
        Only None: a Variable is never written in place.

    Returns
    -------
    Variable
        Of the shape and dtype of `x`; its gradient is zeros.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or `out`
        is given.
    """
    return _unary(Fix(), x, "fix", out, {})


def round(a: ArrayLike, decimals: int = 0, out: None = None) -> Variable:
    """`a` rounded to `decimals` decimals (halves to even), elementwise; zero gradient.

    Parameters
    ----------
    a : ArrayLike
    decimals : int
        Number of decimals; a negative number rounds to tens, hundreds...
    out : None
        Only None: a Variable is never written in place.

    Returns
    -------
    Variable
        Of the shape and dtype of `a`; its gradient is zeros.

    Raises
    ------
    TypeError
        If `a` is not a Variable, a real ndarray, a number or a list of numbers, `decimals`
        is not an int, or `out` is given.
    """
    return _round(a, decimals, out, "round")


def around(a: ArrayLike, decimals: int = 0, out: None = None) -> Variable:
    """`a` rounded to `decimals` decimals (halves to even): the same as `round`.

    Parameters
    ----------
    a : ArrayLike
    decimals : int
        Number of decimals; a negative number rounds to tens, hundreds...
    out : None
        Only None: a Variable is never written in place.

    Returns
    -------
    Variable
        Of the shape and dtype of `a`; its gradient is zeros.

    Raises
    ------
    TypeError
        If `a` is not a Variable, a real ndarray, a number or a list of numbers, `decimals`
        is not an int, or `out` is given.
    """
    return _round(a, decimals, out, "around")


def _round(a, decimals, out, op):
    try:
        decimals = operator.index(decimals)
    except TypeError:
        raise TypeError(f"{op}: decimals must be an int, got {type(decimals).__name__}") from None
    return _unary(Round(decimals), a, op, out, {})


# ----- NaN-aware extrema -------------------------------------------------------------
class Fmax(Maximum):
    """Elementwise maximum ignoring NaN; a tie (or two NaNs) sends half the gradient to each side."""

    def forward(self, x0, x1):
        nan0, nan1 = np.isnan(x0), np.isnan(x1)        # the NaN side gives its gradient away
        self.share0 = (x0 > x1) + 0.5 * (x0 == x1) + nan1 - 0.5 * (nan0 & nan1)
        return np.fmax(x0, x1)


class Fmin(Maximum):
    """Elementwise minimum ignoring NaN; a tie (or two NaNs) sends half the gradient to each side."""

    def forward(self, x0, x1):
        nan0, nan1 = np.isnan(x0), np.isnan(x1)
        self.share0 = (x0 < x1) + 0.5 * (x0 == x1) + nan1 - 0.5 * (nan0 & nan1)
        return np.fmin(x0, x1)


def fmax(x0: ArrayLike, x1: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Elementwise maximum ignoring NaN (NaN only where both are), with NumPy broadcasting.

    The gradient goes to the larger operand, or to the one that is not NaN; ties (and two
    NaNs) split it evenly, as `maximum` does.

    Parameters
    ----------
    x0, x1 : ArrayLike
        The operands; a Python number takes the dtype of the other operand's array.
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the operands' broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not a Variable, a real ndarray, a number or a list of numbers, or
        a keyword is not at its default.
    ValueError
        If the shapes of `x0` and `x1` do not broadcast together.
    """
    _ufunc_keywords("fmax", out, kwargs)
    return Function(Fmax())(x0, x1)


def fmin(x0: ArrayLike, x1: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Elementwise minimum ignoring NaN (NaN only where both are), with NumPy broadcasting.

    The gradient goes to the smaller operand, or to the one that is not NaN; ties (and two
    NaNs) split it evenly, as `minimum` does.

    Parameters
    ----------
    x0, x1 : ArrayLike
        The operands; a Python number takes the dtype of the other operand's array.
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the operands' broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not a Variable, a real ndarray, a number or a list of numbers, or
        a keyword is not at its default.
    ValueError
        If the shapes of `x0` and `x1` do not broadcast together.
    """
    _ufunc_keywords("fmin", out, kwargs)
    return Function(Fmin())(x0, x1)


# ----- replacing NaN and infinities ------------------------------------------------------
class NanToNum(Forwarder):
    """NaN and infinities replaced by constants; the gradient passes where x was finite."""

    def __init__(self, nan, posinf, neginf):
        self.nan, self.posinf, self.neginf = nan, posinf, neginf

    def forward(self, x):
        self.finite = np.isfinite(x)
        return get_array_module(x).nan_to_num(x, copy=True, nan=self.nan, posinf=self.posinf,
                                              neginf=self.neginf)

    save_for_backward = ()

    def backward(self, gy):
        return gy * self.finite.astype(gy.dtype)        # d = 1 where x is finite, 0 where replaced

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + [xk * self.finite for xk in x[1:]]   # y_k = x_k where finite, else 0


def nan_to_num(x: ArrayLike, copy: bool = True, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Variable:
    """`x` with NaN replaced by `nan` and infinities by `posinf` and `neginf`, elementwise.

    The gradient is 1 where `x` is finite and 0 where an entry was replaced.

    Parameters
    ----------
    x : ArrayLike
    copy : bool
        Only True: a Variable is never changed in place (False would replace in `x`).
    nan : float
        What NaN becomes.
    posinf, neginf : float or None
        What inf and -inf become; None: the largest and the most negative finite number
        of the dtype of `x`.

    Returns
    -------
    Variable
        Of the shape and dtype of `x`.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, a
        replacement is not a real number (or None for `posinf`, `neginf`), or `copy` is
        not True.
    """
    if copy is not True:
        raise TypeError(f"nan_to_num: copy={copy!r} is not supported (a Variable is never changed in "
                        f"place); write y = V.nan_to_num(x)")
    for name, value in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        number = isinstance(value, (int, float, np.integer, np.floating))
        if not number and (value is not None or name == "nan"):
            raise TypeError(f"nan_to_num: {name} must be a real number, got {type(value).__name__}")
    return Function(NanToNum(nan, posinf, neginf))(as_variable(x, op="nan_to_num"))


# ----- identities ------------------------------------------------------------------------
class Positive(Forwarder):
    """+x, a copy: an identity recorded in the graph."""

    def forward(self, x):
        return np.positive(x)

    save_for_backward = ()

    def backward(self, gy):
        return gy                                      # d x = 1

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + x[1:]                       # y_k = x_k


class Real(Positive):
    """Real part of real data: `x` itself (a view)."""

    def forward(self, x):
        return x.view()


class Conj(Positive):
    """Complex conjugate of real data: a copy of `x`."""

    def forward(self, x):
        return np.conjugate(x)


class Fabs(Abs):
    """Absolute value as a float (integers too); its derivative at 0 is taken as 0."""

    def forward(self, x):
        y = np.fabs(x)
        self.sign = np.sign(x.astype(y.dtype, copy=False))     # (in y's float type: bool has no sign)
        return y


def positive(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """+x, elementwise: a copy of `x` with gradient 1.

    Parameters
    ----------
    x : ArrayLike
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the shape and dtype of `x`.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or a
        keyword is not at its default.
    """
    return _unary(Positive(), x, "positive", out, kwargs)


def real(val: ArrayLike) -> Variable:
    """Real part of `val`: for gengrad's real data, `val` itself (an identity in the graph).

    Parameters
    ----------
    val : ArrayLike
        Real data: complex input is refused.

    Returns
    -------
    Variable
        Of the shape and dtype of `val`, sharing its data.

    Raises
    ------
    TypeError
        If `val` is complex, or not a Variable, a real ndarray, a number or a list of numbers.
    """
    return Function(Real())(as_variable(val, op="real"))


def imag(val: ArrayLike) -> Variable:
    """Imaginary part of `val`: for gengrad's real data, zeros, with zero gradient.

    Parameters
    ----------
    val : ArrayLike
        Real data: complex input is refused.

    Returns
    -------
    Variable
        Zeros of the shape and dtype of `val`.

    Raises
    ------
    TypeError
        If `val` is complex, or not a Variable, a real ndarray, a number or a list of numbers.
    """
    return Function(Imag())(as_variable(val, op="imag"))


def conj(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Complex conjugate of `x`: for gengrad's real data, a copy of `x` with gradient 1.

    `conjugate` is the same function, as in NumPy.

    Parameters
    ----------
    x : ArrayLike
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the shape and dtype of `x`.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or a
        keyword is not at its default.
    """
    return _unary(Conj(), x, "conj", out, kwargs)


conjugate = conj


def fabs(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Absolute value of `x` as floating point, elementwise (gradient sign(x), 0 at 0).

    Parameters
    ----------
    x : ArrayLike
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the shape of `x`, floating point (float64 for integers, as in NumPy).

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or a
        keyword is not at its default.
    """
    return _unary(Fabs(), x, "fabs", out, kwargs)


class Copysign(Forwarder):
    """|x0| with the sign (bit) of x1: the gradient reaches x0 only."""

    def forward(self, x0, x1):
        y = np.copysign(x0, x1)
        sign0 = np.sign(x0.astype(y.dtype, copy=False))        # (in y's float type: bool has no sign)
        self.factor = (sign0 * np.copysign(1, x1)).astype(y.dtype, copy=False)
        return y

    save_for_backward = ()

    def backward(self, gy):
        x0, x1 = self.inputs
        gx0 = _reduce(gy * self.factor, x0) if x0.requires_grad else None   # d/dx0 = sign(x0) sign(x1)
        return gx0, (_zeros(x1) if x1.requires_grad else None)              # d/dx1 = 0 (a jump at 0)

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        factor = self.factor                            # y_k = sign(x0) sign(x1) x0_k for k >= 1
        return _choose(y._data, x0, x1, lambda a, b: factor * a)


def copysign(x1: ArrayLike, x2: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """|x1| with the sign of `x2` (its sign bit: -0.0 counts as negative), with broadcasting.

    The gradient is +-1 for `x1` (+1 where the signs already match, 0 at x1 == 0) and 0
    for `x2`.

    Parameters
    ----------
    x1, x2 : ArrayLike
        Magnitudes and signs; a Python number takes the dtype of the other operand's array.
    out, **kwargs
        NumPy's ufunc keywords, at their defaults only.

    Returns
    -------
    Variable
        Of the operands' broadcast shape, floating point.

    Raises
    ------
    TypeError
        If an operand is not a Variable, a real ndarray, a number or a list of numbers, or
        a keyword is not at its default.
    ValueError
        If the shapes of `x1` and `x2` do not broadcast together.
    """
    _ufunc_keywords("copysign", out, kwargs)
    return Function(Copysign())(x1, x2)


class Heaviside(Forwarder):
    """Step: 0 where x0 < 0, x1 where x0 == 0, 1 where x0 > 0 (NaN where x0 is NaN)."""

    def forward(self, x0, x1):
        y = np.heaviside(x0, x1)
        self.at_zero = (x0 == 0).astype(y.dtype)          # where y is x1 (a float mask)
        return y

    save_for_backward = ()

    def backward(self, gy):
        x0, x1 = self.inputs
        gx0 = _zeros(x0) if x0.requires_grad else None                     # d/dx0 = 0 (a jump at 0)
        gx1 = _reduce(gy * self.at_zero, x1) if x1.requires_grad else None  # d/dx1 = [x0 == 0]
        return gx0, gx1

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        at_zero = self.at_zero                          # y_k = [x0 == 0] x1_k for k >= 1
        return _choose(y._data, x0, x1, lambda a, b: b * at_zero)


def heaviside(x1: ArrayLike, x2: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Heaviside step of `x1`: 0 where x1 < 0, `x2` where x1 == 0, 1 where x1 > 0.

    NaN in `x1` gives NaN, as in NumPy. The gradient is 0 with respect to `x1` (a step,
    0 taken at the jump too, as for sign) and 1 where x1 == 0 (else 0) with respect to
    `x2`, as JAX's where-based heaviside gives; PyTorch has no derivative for it.

    Parameters
    ----------
    x1, x2 : ArrayLike
        The input and the value at 0, broadcast together; a Python number takes the dtype
        of the other operand's array.
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the operands' broadcast shape, floating point (float64 for integers).

    Raises
    ------
    TypeError
        If an operand is not a Variable, a real ndarray, a number or a list of numbers, or
        a keyword is not at its default.
    ValueError
        If the shapes of `x1` and `x2` do not broadcast together.
    """
    _ufunc_keywords("heaviside", out, kwargs)
    return Function(Heaviside())(x1, x2)


__all__ = [
    "sign", "floor", "ceil", "round", "around", "rint", "trunc", "fix",
    "fmax", "fmin", "nan_to_num",
    "real", "imag", "conj", "conjugate", "positive", "fabs", "copysign", "heaviside",
]
