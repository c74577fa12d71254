"""Exponentials, logarithms and their relatives: log1p, expm1, log2, log10, exp2, logaddexp,
logaddexp2 and reciprocal, in NumPy's names and semantics.

Each backward is made of gengrad ops, so every order of derivative works; the binary ops
broadcast and end their backward with `_reduce`.  The wrappers take NumPy's ufunc keywords
at their defaults only (`_ufunc_keywords`, shared with inverse_trig.py and rounding.py).
"""

import math
from typing import Any

import numpy as np

from .. import series
from ..forwarder import Forwarder, Function, Variable
from ..types import ArrayLike
from .elementwise import _reduce, exp, square

_LN2 = math.log(2.0)    # Python floats: a float32 series times them stays float32
_LN10 = math.log(10.0)

_UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None, "subok": True,
                   "signature": None}


def _ufunc_keywords(op: str, out: Any, keywords: dict) -> None:
    """Refuse the keywords of NumPy's ufuncs that gengrad cannot honour (any but the default)."""
    if out is not None:
        raise TypeError(
            f"{op}: out= is not supported (a Variable is never written in place); "
            f"write y = V.{op}(...) instead"
        )
    for key, value in keywords.items():
        if key not in _UFUNC_DEFAULTS:
            raise TypeError(f"{op}() got an unexpected keyword argument {key!r}")
        default = _UFUNC_DEFAULTS[key]
        if default is None or default is True:
            honoured = value is default or (default is True and value is np.True_)
        else:
            honoured = isinstance(value, str) and value == default
        if not honoured:
            raise TypeError(
                f"{op}: {key}={value!r} is not supported (only NumPy's default {key}={default!r}); "
                f"call np.{op} on x.data for a plain array without gradient"
            )


# ----- one input --------------------------------------------------------------
class Log1p(Forwarder):
    """log(1 + x), accurate for small x."""

    def forward(self, x):
        return np.log1p(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy / (1 + x)                            # d log1p = 1 / (1 + x)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        shifted = [1 + x[0]] + x[1:]                 # log1p(x) = log u with u = 1 + x, u_k = x_k
        return [y._data] + series.log(shifted, y._data)[1:]


class Expm1(Forwarder):
    """e^x - 1, accurate for small x."""

    def forward(self, x):
        return np.expm1(x)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        return gy * (y + 1)                            # d expm1 = e^x = expm1 + 1

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + series.exp(x, y._data + 1)[1:]   # (e^x)' = e^x x'; only y_0 differs


class Log2(Forwarder):
    """Base-2 logarithm."""

    def forward(self, x):
        return np.log2(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy / (_LN2 * x)                         # d log2 = 1 / (x ln 2)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + series.scale(series.log(x, y._data)[1:], 1 / _LN2)   # log2 = log / ln 2


class Log10(Forwarder):
    """Base-10 logarithm."""

    def forward(self, x):
        return np.log10(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy / (_LN10 * x)                        # d log10 = 1 / (x ln 10)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + series.scale(series.log(x, y._data)[1:], 1 / _LN10)  # log10 = log / ln 10


class Exp2(Forwarder):
    """2 ** x (a subclass: base ** x, with its log_base)."""

    log_base = _LN2

    def forward(self, x):
        return np.exp2(x)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        return gy * (self.log_base * y)                # d b^x = b^x ln b

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.exp(series.scale(x, self.log_base), y._data)   # b^x = e^(x ln b)


class Reciprocal(Forwarder):
    """1 / x."""

    def forward(self, x):
        return np.reciprocal(x)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        return gy * -square(y)                         # d (1/x) = -1/x^2

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + series.reciprocal(x)[1:]  # y x = 1: y_k = -sum_j>0 x_j y_(k-j) / x_0


# ----- two inputs ---------------------------------------------------------------
def _log_add_exp_series(x0, x1, y0, shares0, base_log):
    """Series of y = x1 + log_b(1 + b^d), d = x0 - x1 (logaddexp for b = e, logaddexp2 for b = 2):
    y' = x1' + sigmoid(d ln b) d', with `shares0` = sigmoid(d_0 ln b) = b^(x0_0 - y_0)."""
    d = series.sub(x0, x1)
    share = series.sigmoid(series.scale(d, base_log), shares0)   # the series of sigmoid(d ln b)
    softplus = series.integral(d, y0, share)                     # k s_k = sum_j j d_j share_(k-j)
    return [y0] + series.add(x1, softplus)[1:]


class LogAddExp(Forwarder):
    """log(e^x0 + e^x1), without overflow."""

    def forward(self, x0, x1):
        return np.logaddexp(x0, x1)

    save_for_backward = ("x0", "x1", "y")

    def backward(self, gy):
        x0, x1 = self.inputs
        y, = self.outputs
        gx0 = _reduce(gy * exp(x0 - y), x0) if x0.requires_grad else None   # d/dx0 = e^x0 / e^y
        gx1 = _reduce(gy * exp(x1 - y), x1) if x1.requires_grad else None   # d/dx1 = e^x1 / e^y
        return gx0, gx1

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        shares0 = np.exp(x0[0] - y._data)            # y = x1 + softplus(x0 - x1), sigmoid(d) = e^(x0 - y)
        return _log_add_exp_series(x0, x1, y._data, shares0, 1.0)


class LogAddExp2(Forwarder):
    """log2(2^x0 + 2^x1), without overflow."""

    def forward(self, x0, x1):
        return np.logaddexp2(x0, x1)

    save_for_backward = ("x0", "x1", "y")

    def backward(self, gy):
        x0, x1 = self.inputs
        y, = self.outputs
        gx0 = _reduce(gy * exp2(x0 - y), x0) if x0.requires_grad else None   # d/dx0 = 2^x0 / 2^y
        gx1 = _reduce(gy * exp2(x1 - y), x1) if x1.requires_grad else None   # d/dx1 = 2^x1 / 2^y
        return gx0, gx1

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        shares0 = np.exp2(x0[0] - y._data)           # y' = x1' + sigmoid(d ln 2) d', d = x0 - x1
        return _log_add_exp_series(x0, x1, y._data, shares0, _LN2)


# ----- public functions ---------------------------------------------------------
_UNARY_DOC = """

    Parameters
    ----------
    x : ArrayLike
    out : None
        Only None: a Variable is never written in place.
    **kwargs
        NumPy's other ufunc keywords (where, casting, order, dtype, subok, signature),
        at their defaults only.

    Returns
    -------
    Variable
        Of the shape of `x`; float32 stays float32.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a numeric ndarray, a number or a list of numbers, or a
        keyword other than NumPy's default is given.
    """

_BINARY_DOC = """

    Parameters
    ----------
    x1, x2 : ArrayLike
        The operands, broadcast together; a Python number takes the dtype of the other
        operand's array.
    out : None
        Only None: a Variable is never written in place.
    **kwargs
        NumPy's other ufunc keywords (where, casting, order, dtype, subok, signature),
        at their defaults only.

    Returns
    -------
    Variable
        Of the operands' broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not a Variable, a numeric ndarray, a number or a list of numbers,
        or a keyword other than NumPy's default is given.
    ValueError
        If the shapes of `x1` and `x2` do not broadcast together.
    """


def _documented(doc):
    """Append the shared Parameters/Returns/Raises sections to a wrapper's one-line docstring."""
    def decorate(function):
        function.__doc__ = function.__doc__ + doc
        return function
    return decorate


@_documented(_UNARY_DOC)
def log1p(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """log(1 + x), elementwise, accurate where |x| is small; -1 gives -inf, below it NaN."""
    _ufunc_keywords("log1p", out, kwargs)
    return Function(Log1p())(x)


@_documented(_UNARY_DOC)
def expm1(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """e ** x - 1, elementwise, accurate where |x| is small."""
    _ufunc_keywords("expm1", out, kwargs)
    return Function(Expm1())(x)


@_documented(_UNARY_DOC)
def log2(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Base-2 logarithm, elementwise; 0 gives -inf and negative entries NaN, as in NumPy."""
    _ufunc_keywords("log2", out, kwargs)
    return Function(Log2())(x)


@_documented(_UNARY_DOC)
def log10(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Base-10 logarithm, elementwise; 0 gives -inf and negative entries NaN, as in NumPy."""
    _ufunc_keywords("log10", out, kwargs)
    return Function(Log10())(x)


@_documented(_UNARY_DOC)
def exp2(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """2 ** x, elementwise."""
    _ufunc_keywords("exp2", out, kwargs)
    return Function(Exp2())(x)


@_documented(_UNARY_DOC)
def reciprocal(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """1 / x, elementwise; as in NumPy, integer input gives integer output (no gradient)."""
    _ufunc_keywords("reciprocal", out, kwargs)
    return Function(Reciprocal())(x)


@_documented(_BINARY_DOC)
def logaddexp(x1: ArrayLike, x2: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """log(e ** x1 + e ** x2), elementwise with broadcasting, without overflow."""
    _ufunc_keywords("logaddexp", out, kwargs)
    return Function(LogAddExp())(x1, x2)


@_documented(_BINARY_DOC)
def logaddexp2(x1: ArrayLike, x2: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """log2(2 ** x1 + 2 ** x2), elementwise with broadcasting, without overflow."""
    _ufunc_keywords("logaddexp2", out, kwargs)
    return Function(LogAddExp2())(x1, x2)


__all__ = ["log1p", "expm1", "log2", "log10", "exp2", "logaddexp", "logaddexp2", "reciprocal"]
