"""Elementwise trigonometric and hyperbolic functions: sin, cos, tan, tanh, sinh, cosh.

Each backward is made of gengrad ops (often the op's own family: d sin = cos), so every
order of derivative works.
"""

import numpy as np

from .. import series
from ..forwarder import Forwarder, Function, Variable
from ..types import ArrayLike
from .elementwise import _multiply, _reduce, _times, square


class Sin(Forwarder):
    """Sine."""

    def forward(self, x):
        return np.sin(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy * cos(x)                             # d sin = cos

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        return _multiply(gy, np.cos(self.inputs[0]._data))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.sin_cos(x, y._data)[0]         # s' = c x', c' = -s x', solved together


class Cos(Forwarder):
    """Cosine."""

    def forward(self, x):
        return np.cos(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy * -sin(x)                            # d cos = -sin

    def _backward_arrays(self, gy):
        return _multiply(gy, -np.sin(self.inputs[0]._data))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.sin_cos(x, c0=y._data)[1]      # s' = c x', c' = -s x', solved together


class Tan(Forwarder):
    """Tangent."""

    def forward(self, x):
        return np.tan(x)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        return gy * (1 + square(y))                    # d tan = 1 + tan^2

    def _backward_arrays(self, gy):
        return _multiply(gy, 1 + np.square(self.outputs[0]._data))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.tan(x, y._data, output=True)   # y' = (1 + y^2) x'


class Tanh(Forwarder):
    """Hyperbolic tangent."""

    def forward(self, x):
        return np.tanh(x)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        return Function(TanhGrad())(gy, y)             # d tanh = 1 - tanh^2

    def _backward_arrays(self, gy):
        return _tanh_grad(gy, self.outputs[0]._data)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.tanh(x, y._data, output=True)  # y' = (1 - y^2) x'


def _tanh_grad(gy, y):
    """gy * (1 - y^2) on arrays, in one new array."""
    g = np.square(y)
    if isinstance(g, np.generic):  # (0-d: NumPy gave a scalar, nothing to write into)
        return gy * (1 - g)
    np.subtract(1, g, out=g)
    return _times(g, gy)


class TanhGrad(Forwarder):
    """gy * (1 - y^2), tanh's backward as one op: one new array where gy * (1 - square(y))
    makes three, and one node keeping gy and y in a graph of higher derivatives."""

    def forward(self, gy, y):
        return _tanh_grad(gy, y)

    save_for_backward = {"x0": ("x1",), "x1": ("x0", "x1")}   # g_gy reads y, g_y gy and y

    def backward(self, gg):
        gy, y = self.inputs
        g_gy = _reduce(Function(TanhGrad())(gg, y), gy) if gy.requires_grad else None  # (1 - y^2) gg
        g_y = _reduce(gg * gy * y * -2, y) if y.requires_grad else None           # -2 y gy gg
        return g_gy, g_y

    taylor_records = True

    def taylor(self, gy, y):
        d = series.mul(y, y)
        return series.mul(gy, [1 - d[0]] + [-c for c in d[1:]])      # gy (1 - y^2)


class Sinh(Forwarder):
    """Hyperbolic sine."""

    def forward(self, x):
        return np.sinh(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy * cosh(x)                            # d sinh = cosh

    def _backward_arrays(self, gy):
        return _multiply(gy, np.cosh(self.inputs[0]._data))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.sinh_cosh(x, y._data)[0]       # s' = c x', c' = s x', solved together


class Cosh(Forwarder):
    """Hyperbolic cosine."""

    def forward(self, x):
        return np.cosh(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy * sinh(x)                            # d cosh = sinh

    def _backward_arrays(self, gy):
        return _multiply(gy, np.sinh(self.inputs[0]._data))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.sinh_cosh(x, c0=y._data)[1]    # s' = c x', c' = s x', solved together


def sin(x: ArrayLike) -> Variable:
    """Sine, elementwise.

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
    return Function(Sin())(x)


def cos(x: ArrayLike) -> Variable:
    """Cosine, elementwise.

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
    return Function(Cos())(x)


def tan(x: ArrayLike) -> Variable:
    """Tangent, elementwise.

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
    return Function(Tan())(x)


def tanh(x: ArrayLike) -> Variable:
    """Hyperbolic tangent, elementwise.

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
    return Function(Tanh())(x)


def sinh(x: ArrayLike) -> Variable:
    """Hyperbolic sine, elementwise.

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
    return Function(Sinh())(x)


def cosh(x: ArrayLike) -> Variable:
    """Hyperbolic cosine, elementwise.

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
    return Function(Cosh())(x)


__all__ = ["sin", "cos", "tan", "tanh", "sinh", "cosh"]
