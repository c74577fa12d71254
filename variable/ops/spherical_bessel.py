"""The spherical Bessel functions on Variables: scipy.special's spherical_jn, spherical_yn,
spherical_in and spherical_kn (whole orders n >= 0, `derivative=True` too), each
differentiable to any order.

    j_n(x) = sqrt(pi / (2x)) J_(n+1/2)(x),   y_n(x) = sqrt(pi / (2x)) Y_(n+1/2)(x),
    i_n(x) = sqrt(pi / (2x)) I_(n+1/2)(x),   k_n(x) = sqrt(pi / (2x)) K_(n+1/2)(x)

from bessel.py's and division.py's functions of half-integer order (relative to their
envelope, as those), with j_n(-x) = (-1)^n j_n(x), y_n(-x) = (-1)^(n+1) y_n(x), i_n(-x) =
(-1)^n i_n(x); k_n is NaN below 0 (K_(n+1/2) is complex there; SciPy's continues k_n's closed
form).  At 0: j_0 = i_0 = 1, the others of j and i 0, y_n = -inf, k_n = inf; at +-inf, j_n = y_n
= 0 (as SciPy's).

Derivatives without 1/x (so they hold at 0): (2n + 1) j_n' = n j_(n-1) - (n + 1) j_(n+1) (y
alike), (2n + 1) i_n' = n i_(n-1) + (n + 1) i_(n+1), (2n + 1) k_n' = -(n k_(n-1) + (n + 1)
k_(n+1)): each the same op at neighbouring orders, to any order; Taylor mode pushes the orders
n - K .. n + K together (division.py's neighbour_orders_series).
"""

import math

import numpy as np

from ..backend import get_array_module
from ..forwarder import Forwarder, Function, Variable, as_variable
from .bessel import _bessel_jy_real, bessel_k_arrays
from .division import bessel_i_arrays, neighbour_orders_series
from .piecewise import where
from .special import _each_order, _in_float64

__all__ = ["spherical_jn", "spherical_yn", "spherical_in", "spherical_kn"]

_LIMIT = 255
"""The highest order n (n + 1/2 within the Bessel functions' 256)."""

@_in_float64(at=2)
def spherical_arrays(kind, n, x):
    """z_n(x) of a whole n >= 0 on an ndarray (kind "j", "y", "i" or "k")."""
    xp = get_array_module(x)
    with np.errstate(all="ignore"):
        a = xp.abs(x)
        inside = (a > 0) & (a < np.inf)
        safe = xp.where(inside, a, 1.0)
        nu = n + 0.5
        if kind in "jy":
            j, y = _bessel_jy_real(nu, safe)
            value = j if kind == "j" else y
        elif kind == "i":
            value = bessel_i_arrays(nu, safe)
        else:
            value = bessel_k_arrays(nu, safe)
        value = value * xp.sqrt((math.pi / 2) / safe)
        odd = n % 2 == (0 if kind == "y" else 1)      # the parity of z_n (k: none, NaN below 0)
        if kind == "k":
            value = xp.where(x < 0, np.nan, value)
        elif odd:
            value = xp.where(x < 0, -value, value)
        at_zero = {"j": 1.0 if n == 0 else 0.0, "i": 1.0 if n == 0 else 0.0, "y": -np.inf, "k": np.inf}[kind]
        value = xp.where(x == 0, at_zero, value)
        far = np.inf if kind == "i" else 0.0           # (j and y decay as 1/x: 0 at +-inf, as SciPy's)
        value = xp.where(xp.isinf(x), far, value)
        if kind == "i" and n % 2:
            value = xp.where(x == -np.inf, -np.inf, value)
        if kind == "k":
            value = xp.where(x == -np.inf, np.nan, value)
        return xp.where(xp.isnan(x), np.nan, value)


def _spherical(kind, n, x):
    """z_n of `x`: a recorded op on a Variable, the values on an array."""
    if not isinstance(x, Variable):
        return spherical_arrays(kind, n, x)
    return Function(SphericalBessel(kind, n))(x)


def _slope(kind, n, lower, higher):
    """z_n' from z_(n-1) and z_(n+1) (either an op or an array; the first unused at n = 0)."""
    upper = higher * ((n + 1) / (2 * n + 1))
    if kind == "k":
        return -(upper if n == 0 else lower * (n / (2 * n + 1)) + upper)
    if n == 0:
        return upper if kind == "i" else -upper
    down = lower * (n / (2 * n + 1))
    return down + upper if kind == "i" else down - upper


class SphericalBessel(Forwarder):
    """z_n, a spherical Bessel function of whole order n >= 0 (kind "j", "y", "i" or "k"): its
    derivative the same op at n - 1 and n + 1."""

    _pointwise = True

    def __init__(self, kind, order):
        self.kind, self.order = kind, order

    def forward(self, x):
        if x.dtype.kind != "f":                       # (integers and booleans: float64)
            x = x.astype(np.float64)
        if self.kind == "y":
            self.zero = x == 0                        # (where the slope is +inf: -inf + inf otherwise)
        return spherical_arrays(self.kind, self.order, x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        kind, n = self.kind, self.order
        if kind == "y":
            x = where(self.zero, 1.0, x)
            slope = _slope(kind, n, _spherical(kind, n - 1, x) if n else None, _spherical(kind, n + 1, x))
            return gy * where(self.zero, np.inf, slope)
        return gy * _slope(kind, n, _spherical(kind, n - 1, x) if n else None, _spherical(kind, n + 1, x))

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        kind, n, order = self.kind, self.order, len(x) - 1
        lowest = max(0, n - order)
        ys = {j: [y._data if j == n else _spherical(kind, j, x[0])] for j in range(lowest, n + order + 1)}

        def slope(ys, j, k):
            return _slope(kind, j, ys[j - 1][k] if j else None, ys[j + 1][k])
        return neighbour_orders_series(x, ys, n, lowest, slope)


def _order(n, op):
    """A whole order 0 <= n <= 255 (an int, or an integer-valued number or 0-d array, as SciPy passes it)."""
    if isinstance(n, np.ndarray) and n.ndim == 0:
        n = n.item()
    if isinstance(n, (bool, Variable)) or not isinstance(n, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}(n, x): n must be a whole number >= 0, got {type(n).__name__}")
    if n != int(n) or not 0 <= n <= _LIMIT:
        raise ValueError(f"{op}(n, x): n must be a whole number from 0 to {_LIMIT}, got {n!r}")
    return int(n)


def _public(kind, name, n, x, derivative):
    if not isinstance(derivative, (bool, np.bool_)):
        raise TypeError(f"{name}(n, x, derivative): derivative must be True or False, got "
                        f"{type(derivative).__name__}")

    def one(order, x):
        order = _order(order, name)
        if not derivative:
            return Function(SphericalBessel(kind, order))(x)
        lower = Function(SphericalBessel(kind, order - 1))(x) if order else None
        return _slope(kind, order, lower, Function(SphericalBessel(kind, order + 1))(x))
    if isinstance(n, (list, tuple)) or (isinstance(n, np.ndarray) and n.ndim > 0):
        return _each_order(n, x, name, one, name="n")
    return one(n, as_variable(x, op=name))


def spherical_jn(n, x, derivative=False):
    """The spherical Bessel function of the first kind j_n(x) = sqrt(pi / (2x)) J_(n+1/2)(x),
    elementwise (scipy.special.spherical_jn, real x): j_0 = sin(x) / x; `derivative=True` gives
    j_n'.  Whole n from 0 to 255 (an array of them broadcasts with x); differentiable in x to any
    order.  Scattering by spheres (Mie), the radial waves of a free particle."""
    return _public("j", "spherical_jn", n, x, derivative)


def spherical_yn(n, x, derivative=False):
    """The spherical Bessel function of the second kind y_n(x) = sqrt(pi / (2x)) Y_(n+1/2)(x),
    elementwise (scipy.special.spherical_yn): y_0 = -cos(x) / x, -inf at 0."""
    return _public("y", "spherical_yn", n, x, derivative)


def spherical_in(n, x, derivative=False):
    """The modified spherical Bessel function of the first kind i_n(x) = sqrt(pi / (2x))
    I_(n+1/2)(x), elementwise (scipy.special.spherical_in): i_0 = sinh(x) / x."""
    return _public("i", "spherical_in", n, x, derivative)


def spherical_kn(n, x, derivative=False):
    """The modified spherical Bessel function of the second kind k_n(x) = sqrt(pi / (2x))
    K_(n+1/2)(x), elementwise (scipy.special.spherical_kn): k_0 = pi e^-x / (2x); inf at 0, NaN
    below 0 (K_(n+1/2) is complex there; SciPy's continues the closed form of k_n)."""
    return _public("k", "spherical_kn", n, x, derivative)
