"""Elementwise ops: arithmetic, powers and exponentials (piecewise ops: piecewise.py,
trigonometry: trigonometric.py).

Binary ops broadcast like NumPy; each backward ends with `_reduce`, the one helper that
sums a gradient back to its input's shape (`_reduced` in the rules on arrays).
"""

import math

import numpy as np

from .. import backend, memory, series
from ..backend import get_array_module, maybe_any
from ..forwarder import Forwarder, Function, Variable
from ..types import ArrayLike
from .shape import _sum_to_array, reshape, sum_to

_LARGE = memory.LARGE_INPUT     # elements of an operand before a product asks the cache


def _reduce(gx, x):
    """Gradient `gx` summed back to the shape of input `x` (None if x needs none)."""
    if not x.requires_grad:
        return None
    shape = x._data.shape  # (the arrays' shapes: this runs once per gradient of every pass)
    return gx if gx._data.shape == shape else sum_to(gx, shape)


def _multiply(x0, x1):
    """x0 * x1 on arrays, a large product in the cache's memory (memory.binary)."""
    if x0.size < _LARGE and x1.size < _LARGE:        # (the hot path: small arrays)
        return x0 * x1
    return memory.binary(np.multiply, x0, x1)


def _reduced(gx, x):
    """`_reduce` on arrays (the `_backward_arrays` rules): ndarray `gx` summed to x's shape."""
    if not x.requires_grad:
        return None
    shape = x._data.shape
    return gx if gx.shape == shape else _sum_to_array(gx, shape)


def _times(g, gy):
    """g * gy, written into `g` (an array the caller just made) when the product has its
    dtype and shape: a fused backward's last factor without a new array."""
    if g.dtype == gy.dtype and g.shape == gy.shape:
        np.multiply(g, gy, out=g)
        return g
    return g * gy


# ----- arithmetic -------------------------------------------------------------
class Add(Forwarder):
    """x0 + x1."""

    def forward(self, x0, x1):
        return x0 + x1

    save_for_backward = ()

    def backward(self, gy):
        x0, x1 = self.inputs
        return _reduce(gy, x0), _reduce(gy, x1)

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        x0, x1 = self.inputs
        return _reduced(gy, x0), _reduced(gy, x1)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x0, x1):
        return series.add(x0, x1)                    # (x0 + x1)_k = x0_k + x1_k


class Sub(Forwarder):
    """x0 - x1."""

    def forward(self, x0, x1):
        return x0 - x1

    save_for_backward = ()

    def backward(self, gy):
        x0, x1 = self.inputs
        return _reduce(gy, x0), (_reduce(-gy, x1) if x1.requires_grad else None)

    def _backward_arrays(self, gy):
        x0, x1 = self.inputs
        return _reduced(gy, x0), (_reduced(-gy, x1) if x1.requires_grad else None)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x0, x1):
        return series.sub(x0, x1)                    # (x0 - x1)_k = x0_k - x1_k


class Mul(Forwarder):
    """x0 * x1."""

    def forward(self, x0, x1):
        return _multiply(x0, x1)

    save_for_backward = {"x0": ("x1",), "x1": ("x0",)}   # gx0 reads x1, gx1 reads x0

    def backward(self, gy):
        x0, x1 = self.inputs
        gx0 = _product_to(gy, x1, x0) if x0.requires_grad else None
        gx1 = _product_to(gy, x0, x1) if x1.requires_grad else None
        return gx0, gx1

    def _backward_arrays(self, gy):
        x0, x1 = self.inputs
        gx0 = _product_to_array(gy, x1._data, x0) if x0.requires_grad else None
        gx1 = _product_to_array(gy, x0._data, x1) if x1.requires_grad else None
        return gx0, gx1

    taylor_records = True
    _taylor_linear = "bilinear"

    def taylor(self, x0, x1):
        return series.mul(x0, x1)                    # Cauchy product: sum_j x0_j x1_(k-j)


_FUSED_FROM = 1 << 16
"""Entries of gy from which a broadcast product's gradient is one einsum, not a product and a
sum (the product's array is never made: a Laplacian's weights' gradient sums 64 directions)."""


def _product_to(gy, other, x):
    """gy * other summed back to x's shape: where that sums over many entries, one recorded
    einsum (differentiable as the product and sum are, to any order)."""
    shape, target = gy._data.shape, x._data.shape
    einsum = None if target == shape else _fused_product(shape, other._data.shape, target)
    if einsum is None:
        return _reduce(gy * other, x)
    g = Function(einsum)(gy, other)
    return g if g._data.shape == target else reshape(g, target)


def _product_to_array(gy, other, x):
    """`_product_to` on arrays: the same product, or the same einsum."""
    shape = x._data.shape
    if gy.shape == shape:                            # (the hot path: no sum)
        return _multiply(gy, other)
    einsum = _fused_product(gy.shape, other.shape, shape)
    if einsum is None:
        return _reduced(_multiply(gy, other), x)
    g = einsum.forward(gy, other)
    return g if g.shape == shape else g.reshape(shape)


def _fused_product(shape, other, target):
    """The Einsum that sums gy * other (shapes `shape`, `other`) to `target`, another shape
    (the callers handle an equal one), in one pass, or None where the product and a sum are
    as cheap."""
    size = math.prod(shape)
    if size < _FUSED_FROM or 4 * math.prod(target) > size or len(shape) > 20:
        return None
    from .contraction import Einsum  # (contraction imports this module)
    labels = "abcdefghijklmnopqrst"[:len(shape)]
    spare = iter("uvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")  # an axis of length 1 broadcast in `other`
    lead = len(shape) - len(other)
    term = "".join(labels[lead + i] if n == shape[lead + i] else next(spare)
                   for i, n in enumerate(other))
    lead = len(shape) - len(target)                  # kept: x's axes of gy's length
    out = "".join(labels[lead + i] for i, n in enumerate(target) if n == shape[lead + i])
    return Einsum((labels, term), out)


class Div(Forwarder):
    """x0 / x1."""

    def forward(self, x0, x1):
        return x0 / x1

    save_for_backward = {"x0": ("x1",), "x1": ("x1", "y")}   # gx0 reads x1, gx1 x1 and y

    def backward(self, gy):
        x0, x1 = self.inputs
        y, = self.outputs
        gx0 = gy / x1                                    # d/dx0 = 1/x1
        gx1 = _reduce(-(gx0 * y), x1) if x1.requires_grad else None   # d/dx1 = -x0/x1^2
        return _reduce(gx0, x0), gx1

    def _backward_arrays(self, gy):
        x0, x1 = self.inputs
        y, = self.outputs
        gx0 = gy / x1._data
        gx1 = _reduced(-_multiply(gx0, y._data), x1) if x1.requires_grad else None
        return _reduced(gx0, x0), gx1

    taylor_records = True

    def taylor(self, x0, x1):
        return series.div(x0, x1)                    # y x1 = x0: y_k = (x0_k - sum_j>0 x1_j y_(k-j)) / x1_0


class Neg(Forwarder):
    """-x."""

    def forward(self, x):
        return -x

    save_for_backward = ()

    def backward(self, gy):
        return -gy

    def _backward_arrays(self, gy):
        return -gy

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x):
        return series.neg(x)


def add(x0: ArrayLike, x1: ArrayLike) -> Variable:
    """x0 + x1 with NumPy broadcasting.

    Parameters
    ----------
    x0, x1 : ArrayLike
        The operands; a Python number takes the dtype of the other operand's array.

    Returns
    -------
    Variable
        The sum, of the operands' broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If the shapes of `x0` and `x1` do not broadcast together.
    """
    return Function(Add())(x0, x1)


def sub(x0: ArrayLike, x1: ArrayLike) -> Variable:
    """x0 - x1 with NumPy broadcasting.

    Parameters
    ----------
    x0, x1 : ArrayLike
        The operands; a Python number takes the dtype of the other operand's array.

    Returns
    -------
    Variable
        The difference, of the operands' broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If the shapes of `x0` and `x1` do not broadcast together.
    """
    return Function(Sub())(x0, x1)


def mul(x0: ArrayLike, x1: ArrayLike) -> Variable:
    """x0 * x1 with NumPy broadcasting.

    Parameters
    ----------
    x0, x1 : ArrayLike
        The operands; a Python number takes the dtype of the other operand's array.

    Returns
    -------
    Variable
        The product, of the operands' broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If the shapes of `x0` and `x1` do not broadcast together.
    """
    return Function(Mul())(x0, x1)


def div(x0: ArrayLike, x1: ArrayLike) -> Variable:
    """x0 / x1 with NumPy broadcasting.

    Parameters
    ----------
    x0, x1 : ArrayLike
        The operands; a Python number takes the dtype of the other operand's array.

    Returns
    -------
    Variable
        The quotient, of the operands' broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If the shapes of `x0` and `x1` do not broadcast together.
    """
    return Function(Div())(x0, x1)


def neg(x: ArrayLike) -> Variable:
    """-x.

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
    return Function(Neg())(x)


# ----- powers -----------------------------------------------------------------
def _power(x, c):
    """x ** c on an array; c = 3 and 4 as products, to two units in the last place: NumPy's **
    multiplies only for c = 2 (and takes roots and reciprocals), elsewhere it calls the C
    library's pow, 80x a product's time (10^6 float32 cubes: 66 against 0.8 ms); PyTorch's pow
    multiplies for these too.  (Integers, booleans and exponents that promote keep **.)"""
    if (c == 3 or c == 4) and x.dtype.kind in "fc" and np.result_type(x.dtype, c) == x.dtype:
        x2 = x * x
        return x2 * x if c == 3 else x2 * x2
    return x ** c


class Pow(Forwarder):
    """x ** c for a constant exponent c."""

    def __init__(self, c):
        self.c = c

    def forward(self, x):
        return _power(x, self.c)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        c = self.c
        if c == 0:                                     # x^0 = 1 everywhere: d = 0, even at x = 0
            return Variable(get_array_module(x).zeros(x.shape, dtype=x.dtype), requires_grad=False)
        # d x^c = c x^(c-1); for a whole c >= 1 the chain of derivatives ends in c = 0 above,
        # so polynomials have exact derivatives of every order, at x = 0 too
        return _reduce(gy * (c * x ** (c - 1)), x)

    def _backward_arrays(self, gy):
        x, = self.inputs
        c = self.c
        if c == 0:
            return get_array_module(x._data).zeros(x.shape, dtype=x.dtype)
        return _reduced(_multiply(gy, c * _power(x._data, c - 1)), x)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.power(x, self.c, y._data)      # x y' = c y x'; a whole c >= 0 by squaring


class PowVar(Forwarder):
    """x0 ** x1 where the exponent is a Variable too (PyTorch's conventions at x0 = 0)."""

    def forward(self, x0, x1):
        self.positive, zero = x0 > 0, x0 == 0
        self.zero_power = zero & (x1 == 0)            # x0^0 = 1 for all x0: d/dx0 = 0 at 0^0 too
        # log x0 where x0 <= 0, for d/dx1 = x0^x1 log x0: 0 where 0 <= x1 (0^x1 is constant
        # there), -inf where x1 < 0 (0^x1 = inf), NaN where x0 < 0 (no real log); a float dtype
        fill = np.where(zero, np.where(x1 >= 0, 0.0, -np.inf), np.nan)
        self.log_fill = fill.astype(np.result_type(x0.dtype, x1.dtype, np.float16), copy=False)
        return x0 ** x1

    save_for_backward = ("x0", "x1", "y")

    def backward(self, gy):
        from .piecewise import where  # (piecewise imports this module)
        x0, x1 = self.inputs
        y, = self.outputs
        gx0 = gx1 = None
        if x0.requires_grad:
            masked = maybe_any(self.zero_power)
            base = where(self.zero_power, 1, x0) if masked else x0    # no 0^-1 at 0^0
            gx0 = gy * x1 * base ** (x1 - 1)                          # d/dx0 = x1 x0^(x1-1)
            gx0 = _reduce(where(self.zero_power, 0, gx0) if masked else gx0, x0)
        if x1.requires_grad:
            log_x0 = where(self.positive, log(where(self.positive, x0, 1)), self.log_fill)
            gx1 = _reduce(gy * y * log_x0, x1)                        # d/dx1 = x0^x1 log x0
        return gx0, gx1

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        if len(x1) == 1:                             # a constant exponent c: x0 y' = c y x0'
            return series.power(x0, x1[0], y._data)
        positive = self.positive                     # log x0, with backward's values where x0 <= 0
        log_x0 = np.where(positive, np.log(np.where(positive, x0[0], 1)), self.log_fill)
        if len(x0) == 1:                             # a constant base: y = e^(x1 log x0)
            return series.exp(series.scale(x1, log_x0), y._data)
        return series.exp(series.mul(x1, series.log(x0, log_x0)), y._data)   # y = e^(x1 log x0)


class Square(Forwarder):
    """x * x."""

    def forward(self, x):
        return np.square(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy * (2 * x)                            # d x^2 = 2x

    def _backward_arrays(self, gy):
        return _multiply(gy, 2 * self.inputs[0]._data)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        return series.square(x)                      # (x^2)_k = sum_j x_j x_(k-j)


class Sqrt(Forwarder):
    """Square root."""

    def forward(self, x):
        return np.sqrt(x)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        return gy / (2 * y)                            # d sqrt x = 1 / (2 sqrt x)

    def _backward_arrays(self, gy):
        return gy / (2 * self.outputs[0]._data)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.sqrt(x, y._data)               # y^2 = x: 2 y_0 y_k = x_k - sum_0<j<k y_j y_(k-j)


def pow(x: ArrayLike, c: ArrayLike) -> Variable:
    """x ** c; `c` a number or array (a constant) or a Variable (differentiated too).

    Parameters
    ----------
    x : ArrayLike
        The base.
    c : ArrayLike
        The exponent: a number, list or ndarray is a constant, a Variable is
        differentiated too. An array exponent broadcasts with `x`; next to GPU data a
        list is made there, and a NumPy array moves there only under
        V.backend.set_default_device("gpu") (a 0-d one counts as a number).

    Returns
    -------
    Variable
        Of the broadcast shape of `x` and `c`.

    Raises
    ------
    TypeError
        If `x` or `c` is not a Variable, a numeric ndarray, a number or a list of numbers,
        or an array `c` is on the other device than `x` (see above).
    ValueError
        If the shapes of `x` and `c` do not broadcast together.

    Notes
    -----
    Where the derivative formulas meet 0 * inf, the values are PyTorch's: d/dx x**0 = 0
    everywhere, x = 0 included, so powers with whole exponents have exact derivatives of
    every order at 0 (d^n x^c = c! at n = c, else 0). With a Variable exponent, d/dx is 0
    where c == 0, and d/dc = x**c log x is 0 where x == 0 <= c, -inf where x == 0 > c and
    NaN where x < 0 (no real logarithm).
    """
    if isinstance(c, Variable) or not isinstance(x, Variable):
        return Function(PowVar())(x, c)
    if isinstance(c, (int, float, np.number)) and not isinstance(c, bool):
        return Function(Pow(c))(x)
    if isinstance(c, (list, tuple)):
        try:
            c = get_array_module(x).asarray(np.asarray(c, dtype=x.dtype))   # made on x's device
        except (TypeError, ValueError):
            raise TypeError(f"pow: a list exponent must hold numbers only, got {c!r}") from None
    if not (isinstance(c, np.ndarray) or backend.is_device_array(c)):
        raise TypeError(f"pow: exponent must be a number, ndarray or Variable, got {type(c).__name__}")
    if c.ndim:                                         # an array exponent, on x's device
        return Function(PowVar())(x, backend.constant_like(c, x, "pow", "c", "x"))
    return Function(Pow(c[()] if type(c) is np.ndarray else c.item()))(x)   # 0-d: a number


def square(x: ArrayLike) -> Variable:
    """x squared, elementwise.

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
    return Function(Square())(x)


def sqrt(x: ArrayLike) -> Variable:
    """Square root, elementwise.

    Negative entries give NaN, as in NumPy.

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
    return Function(Sqrt())(x)


# ----- exponentials -----------------------------------------------------------
class Exp(Forwarder):
    """Exponential."""

    def forward(self, x):
        return np.exp(x)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        return gy * y                                  # d e^x = e^x

    def _backward_arrays(self, gy):
        return _multiply(gy, self.outputs[0]._data)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.exp(x, y._data, output=True)   # y' = y x'


class Log(Forwarder):
    """Natural logarithm."""

    def forward(self, x):
        return np.log(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy / x                                  # d log x = 1/x

    def _backward_arrays(self, gy):
        return gy / self.inputs[0]._data

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.log(x, y._data)                # x y' = x', solved for each y_k in turn


def exp(x: ArrayLike) -> Variable:
    """e ** x, elementwise.

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
    return Function(Exp())(x)


def log(x: ArrayLike) -> Variable:
    """Natural logarithm, elementwise.

    Zero gives -inf and negative entries NaN, as in NumPy.

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
    return Function(Log())(x)


__all__ = ["add", "sub", "mul", "div", "neg", "pow", "square", "sqrt", "exp", "log"]
