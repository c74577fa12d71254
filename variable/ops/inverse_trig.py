"""Inverse trigonometric and hyperbolic functions, arctan2 and hypot, sinc, and the angle
conversions deg2rad/rad2deg (also named radians/degrees), in NumPy's names and semantics.

Each backward is made of gengrad ops, so every order of derivative works.  The derivatives
of the inverse functions are powers of a + b x^2; their Taylor rules integrate that
series (`_integrated`).  sinc's derivatives come from the family f_n(u) = j_n(u) / u^n of
spherical Bessel functions, smooth at u = 0, with f_n' = -u f_(n+1): one op per member.
"""

import math
from typing import Any

import numpy as np

from .. import series
from ..backend import get_array_module, is_device_array, maybe_any
from ..forwarder import Forwarder, Function, Variable
from ..types import ArrayLike
from .elementwise import _reduce, sqrt, square
from .exponential import _BINARY_DOC, _UNARY_DOC, _documented, _ufunc_keywords
from .piecewise import where

_PI = math.pi           # Python floats: a float32 series times them stays float32
_DEGREE = math.pi / 180.0


# ----- Taylor helpers -----------------------------------------------------------
def _quadratic(x, a, b):
    """Series of a + b x^2 for numbers a, b."""
    x2 = series.square(x)
    return [a + b * x2[0]] + [b * c for c in x2[1:]]


def _integrated(x, y0, a, b, p, sign=1.0):
    """Series of y with y' = sign (a + b x^2)^p x' and y(0) = y0: the inverse functions."""
    if len(x) == 1:
        return [y0]
    q = _quadratic(x[:-1], a, b)
    p = get_array_module(q[0]).asarray(p, dtype=q[0].dtype)   # (q's dtype, on q's device)
    g = series.power(q, p)                           # dy/dx along the path, to order K - 1
    return series.integral(x, y0, series.scale(g, sign) if sign != 1.0 else g)


def _padded(x, n):
    """A series of n coefficients: a short (constant) one gets zeros of its own shape."""
    return x + [np.zeros_like(x[0])] * (n - len(x))


def _masked(zero, g):
    """`g` with its entries at `zero` set to 0 (a subgradient there), for every order."""
    return where(zero, 0, g) if maybe_any(zero) else g


# ----- inverse trigonometric and hyperbolic functions ------------------------------
class Arcsin(Forwarder):
    """Inverse sine."""

    def forward(self, x):
        return np.arcsin(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy / sqrt(1 - square(x))                # d arcsin = 1 / sqrt(1 - x^2)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return _integrated(x, y._data, 1.0, -1.0, -0.5)   # y' = (1 - x^2)^(-1/2) x'


class Arccos(Forwarder):
    """Inverse cosine."""

    def forward(self, x):
        return np.arccos(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return -gy / sqrt(1 - square(x))               # d arccos = -1 / sqrt(1 - x^2)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return _integrated(x, y._data, 1.0, -1.0, -0.5, -1.0)   # y' = -(1 - x^2)^(-1/2) x'


class Arctan(Forwarder):
    """Inverse tangent."""

    def forward(self, x):
        return np.arctan(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy / (1 + square(x))                    # d arctan = 1 / (1 + x^2)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return _integrated(x, y._data, 1.0, 1.0, -1)  # y' = (1 + x^2)^-1 x'


class Arcsinh(Forwarder):
    """Inverse hyperbolic sine."""

    def forward(self, x):
        return np.arcsinh(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy / sqrt(1 + square(x))                # d arcsinh = 1 / sqrt(1 + x^2)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return _integrated(x, y._data, 1.0, 1.0, -0.5)    # y' = (1 + x^2)^(-1/2) x'


class Arccosh(Forwarder):
    """Inverse hyperbolic cosine."""

    def forward(self, x):
        return np.arccosh(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy / sqrt(square(x) - 1)                # d arccosh = 1 / sqrt(x^2 - 1)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return _integrated(x, y._data, -1.0, 1.0, -0.5)   # y' = (x^2 - 1)^(-1/2) x'


class Arctanh(Forwarder):
    """Inverse hyperbolic tangent."""

    def forward(self, x):
        return np.arctanh(x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy / (1 - square(x))                    # d arctanh = 1 / (1 - x^2)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return _integrated(x, y._data, 1.0, -1.0, -1)  # y' = (1 - x^2)^-1 x'


# ----- two inputs: arctan2 and hypot -----------------------------------------------
class Arctan2(Forwarder):
    """Angle of the point (x2, x1), in (-pi, pi]; the gradient at (0, 0) is taken as 0."""

    def forward(self, x1, x2):
        self.zero = (x1 == 0) & (x2 == 0)
        return np.arctan2(x1, x2)

    save_for_backward = ("x0", "x1")

    def backward(self, gy):
        x1, x2 = self.inputs
        r2 = square(x1) + square(x2)
        if maybe_any(self.zero):
            r2 = where(self.zero, 1, r2)               # no 0/0 at the origin (masked below)
        g = gy / r2
        gx1 = _reduce(_masked(self.zero, g * x2), x1) if x1.requires_grad else None    # d/dx1 = x2 / r^2
        gx2 = _reduce(_masked(self.zero, -g * x1), x2) if x2.requires_grad else None   # d/dx2 = -x1 / r^2
        return gx1, gx2

    taylor_records = True

    def taylor(self, x1, x2):
        y, = self.outputs
        y0, zero = y._data, self.zero
        n = max(len(x1), len(x2))
        if n == 1:
            return [y0]
        x1, x2 = _padded(x1, n), _padded(x2, n)
        d1 = [k * x1[k] for k in range(1, n)]         # the series of x1' and x2'
        d2 = [k * x2[k] for k in range(1, n)]
        r2 = series.add(series.square(x1[:-1]), series.square(x2[:-1]))
        r2[0] = np.where(zero, 1, r2[0])
        w = series.sub(series.mul(x2[:-1], d1), series.mul(x1[:-1], d2))
        dy = series.div(w, r2)                        # y' = (x2 x1' - x1 x2') / (x1^2 + x2^2)
        return [y0] + [np.broadcast_to(np.where(zero, 0, c / k), y0.shape) for k, c in enumerate(dy, 1)]


class Hypot(Forwarder):
    """sqrt(x1^2 + x2^2); the gradient at (0, 0) is taken as 0, as in PyTorch."""

    def forward(self, x1, x2):
        y = np.hypot(x1, x2)
        self.zero = y == 0
        return y

    save_for_backward = ("x0", "x1", "y")

    def backward(self, gy):
        x1, x2 = self.inputs
        y, = self.outputs
        r = where(self.zero, 1, y) if maybe_any(self.zero) else y   # no 0/0 at the origin (masked below)
        g = gy / r
        gx1 = _reduce(_masked(self.zero, g * x1), x1) if x1.requires_grad else None   # d/dx1 = x1 / r
        gx2 = _reduce(_masked(self.zero, g * x2), x2) if x2.requires_grad else None   # d/dx2 = x2 / r
        return gx1, gx2

    taylor_records = True

    def taylor(self, x1, x2):
        y, = self.outputs
        y0, zero = y._data, self.zero
        r2 = series.add(series.square(x1), series.square(x2))
        r = series.sqrt(r2, np.where(zero, 1, y0))   # r^2 = x1^2 + x2^2: 2 r_0 r_k = r2_k - ...
        return [y0] + [np.broadcast_to(np.where(zero, 0, c), y0.shape) for c in r[1:]]


# ----- sinc ---------------------------------------------------------------------
def _sinc_family(n, x):
    """f_n(pi x), f_n(u) = j_n(u) / u^n: f_0 = sin u / u, f_(n+1) = ((2n+1) f_n - f_(n-1)) / u^2
    from f_(-1) = cos u, upward (stable) where |u| >= n + 2, and its power series
    f_n = sum_k (-u^2 / 2)^k / (k! (2n+2k+1)!!) nearer 0."""
    if n == 0:
        return np.sinc(x)
    xp = get_array_module(x)
    u = _PI * x
    near = abs(u) < n + 2
    far_u = np.where(near, n + 2.0, u).astype(x.dtype, copy=False)
    far_u2 = far_u * far_u
    previous, current = np.cos(far_u), np.sin(far_u) / far_u
    for m in range(n):
        previous, current = current, ((2 * m + 1) * current - previous) / far_u2
    term = xp.full(x.shape, 1.0 / math.prod(range(1, 2 * n + 2, 2)), dtype=x.dtype)
    near_u2 = np.where(near, u * u, 0).astype(x.dtype, copy=False)
    total = term
    for k in range(_sinc_terms(near_u2, n)):
        term = term * -near_u2 / (2 * (k + 1) * (2 * n + 2 * k + 3))
        total = total + term
    return np.where(near, total, current)


def _sinc_terms(u2, n):
    """Terms of f_n's series for the largest u^2 among u2 (a device: for the bound (n + 2)^2, read
    from no data), to a term below 1e-18 of the first (f_n, which has no zero below n + 2, is above
    a third of it there): the magnitudes' own recurrence."""
    top = (n + 2.0) ** 2 if is_device_array(u2) or not u2.size else float(np.max(u2))
    term, k = 1.0, 0
    while k < 200 and term > 1e-18:
        term *= top / (2 * (k + 1) * (2 * n + 2 * k + 3))
        k += 1
    return k


class Sinc(Forwarder):
    """f_n(pi x) of the family f_n(u) = j_n(u) / u^n, smooth at 0; n = 0 is NumPy's sinc."""

    def __init__(self, n=0):
        self.n = n

    def forward(self, x):
        return _sinc_family(self.n, x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        below = Function(Sinc(self.n + 1))(x)           # f_n'(u) = -u f_(n+1)(u), u = pi x
        return gy * (-_PI * _PI * x) * below           # d f_n(pi x) = -pi^2 x f_(n+1)(pi x)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return _sinc_series(x, self.n, y._data)


def _sinc_series(x, n, y0):
    """Series of f_n(pi x): y' = -pi^2 x f_(n+1)(pi x) x', that series one order shorter."""
    if len(x) == 1:
        return [y0]
    below = _sinc_series(x[:-1], n + 1, _sinc_family(n + 1, x[0]))
    h = series.scale(series.mul(x[:-1], below), -_PI * _PI)
    return series.integral(x, y0, h)                 # k y_k = sum_j j x_j h_(k-j)


# ----- angles -------------------------------------------------------------------
class Deg2rad(Forwarder):
    """Degrees to radians: x pi / 180."""

    def forward(self, x):
        return np.deg2rad(x)

    save_for_backward = ()

    def backward(self, gy):
        return gy * _DEGREE                            # d (x pi/180) = pi/180

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + series.scale(x[1:], _DEGREE)   # linear: y_k = x_k pi / 180


class Rad2deg(Forwarder):
    """Radians to degrees: x 180 / pi."""

    def forward(self, x):
        return np.rad2deg(x)

    save_for_backward = ()

    def backward(self, gy):
        return gy * (1 / _DEGREE)                      # d (x 180/pi) = 180/pi

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + series.scale(x[1:], 1 / _DEGREE)   # linear: y_k = x_k 180 / pi


# ----- public functions ---------------------------------------------------------
@_documented(_UNARY_DOC)
def arcsin(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Inverse sine, elementwise, in [-pi/2, pi/2]; NaN outside [-1, 1], as in NumPy."""
    _ufunc_keywords("arcsin", out, kwargs)
    return Function(Arcsin())(x)


@_documented(_UNARY_DOC)
def arccos(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Inverse cosine, elementwise, in [0, pi]; NaN outside [-1, 1], as in NumPy."""
    _ufunc_keywords("arccos", out, kwargs)
    return Function(Arccos())(x)


@_documented(_UNARY_DOC)
def arctan(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Inverse tangent, elementwise, in (-pi/2, pi/2)."""
    _ufunc_keywords("arctan", out, kwargs)
    return Function(Arctan())(x)


@_documented(_UNARY_DOC)
def arcsinh(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Inverse hyperbolic sine, elementwise."""
    _ufunc_keywords("arcsinh", out, kwargs)
    return Function(Arcsinh())(x)


@_documented(_UNARY_DOC)
def arccosh(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Inverse hyperbolic cosine, elementwise; NaN below 1, as in NumPy."""
    _ufunc_keywords("arccosh", out, kwargs)
    return Function(Arccosh())(x)


@_documented(_UNARY_DOC)
def arctanh(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Inverse hyperbolic tangent, elementwise; +-inf at +-1 and NaN beyond, as in NumPy."""
    _ufunc_keywords("arctanh", out, kwargs)
    return Function(Arctanh())(x)


@_documented(_BINARY_DOC)
def arctan2(x1: ArrayLike, x2: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Angle of the point (x2, x1) in (-pi, pi], elementwise with broadcasting (gradient 0 at (0, 0))."""
    _ufunc_keywords("arctan2", out, kwargs)
    return Function(Arctan2())(x1, x2)


@_documented(_BINARY_DOC)
def hypot(x1: ArrayLike, x2: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """sqrt(x1 ** 2 + x2 ** 2), elementwise with broadcasting (gradient 0 at (0, 0), as in PyTorch)."""
    _ufunc_keywords("hypot", out, kwargs)
    return Function(Hypot())(x1, x2)


def sinc(x: ArrayLike) -> Variable:
    """NumPy's normalized sinc, sin(pi x) / (pi x), elementwise; 1 at x = 0, smooth there to every order.

    Parameters
    ----------
    x : ArrayLike

    Returns
    -------
    Variable
        Of the shape of `x`; integer input gives float64, float32 stays float32.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a numeric ndarray, a number or a list of numbers.
    """
    return Function(Sinc())(x)


@_documented(_UNARY_DOC)
def deg2rad(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Angles in degrees to radians, elementwise: x * pi / 180 (also named `radians`)."""
    _ufunc_keywords("deg2rad", out, kwargs)
    return Function(Deg2rad())(x)


@_documented(_UNARY_DOC)
def rad2deg(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Angles in radians to degrees, elementwise: x * 180 / pi (also named `degrees`)."""
    _ufunc_keywords("rad2deg", out, kwargs)
    return Function(Rad2deg())(x)


radians = deg2rad
degrees = rad2deg

# NumPy 2's (and the Array API's) names for the inverse functions: the same ops
asin, acos, atan, atan2 = arcsin, arccos, arctan, arctan2
asinh, acosh, atanh = arcsinh, arccosh, arctanh


__all__ = [
    "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh", "hypot", "sinc",
    "deg2rad", "rad2deg", "radians", "degrees",
    "asin", "acos", "atan", "atan2", "asinh", "acosh", "atanh",
]
