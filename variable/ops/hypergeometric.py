"""The confluent hypergeometric limit function 0F1(; b; z) on Variables (scipy.special.hyp0f1),
differentiable in z to any order (b a constant).

    0F1(; b; z) = sum_k z^k / ((b)_k k!)
                = Gamma(b) z^((1-b)/2) I_(b-1)(2 sqrt z)        (z > 0)
                = Gamma(b) |z|^((1-b)/2) J_(b-1)(2 sqrt |z|)    (z < 0)

Its series up to |z| = max(1, b) (its terms fall by |z| / (|b + k| (k + 1)) <= 1 / (k + 1)
there), the Bessel functions of real order beyond (bessel.py's J, division.py's I), Gamma(b)
|z|^((1-b)/2) by its logarithm where the product would leave a double.  Its derivative is
0F1(; b + 1; z) / b, the same op at b + 1, so every order and Taylor mode follow (the orders b ..
b + K pushed together).  NaN where b is a whole number <= 0 (the series' pole) and at +-inf (as
SciPy's); inf where it overflows.
"""

import math

import numpy as np

from ..backend import get_array_module
from ..forwarder import Forwarder, Function, Variable, as_variable
from .bessel import _real_order, _several, bessel_real_arrays
from .bessel import bessel_arrays as bessel_whole_arrays
from .division import bessel_i_arrays, neighbour_orders_series
from .special import _each_order, _in_float64, _select

__all__ = ["hyp0f1"]

_TERMS = 26
"""The series where |z| <= max(1, b): its terms fall by |z| / ((b + k)(k + 1)) <= 1 / (k + 1) there
(b > 0), the 26th below 1e-26 of the largest."""
_LIMIT = 170.0
"""The largest |b| (Gamma(b) within a double)."""


def _series(b, z, xp):
    term = total = xp.ones_like(z)
    for k in range(_TERMS):
        term = term * z * (1.0 / ((b + k) * (k + 1)))
        total = total + term
    return total


def _bessel_form(b, z, xp):
    """Gamma(b) |z|^((1-b)/2) (I or J)_(b-1)(2 sqrt |z|) for |z| >= 1: Gamma(b) |z|^((1-b)/2) as a
    product where the power is a normal double, else by its logarithm (its sign Gamma(b)'s)."""
    root = xp.sqrt(xp.abs(z))
    order = b - 1.0

    def j(t):
        if order == int(order):
            return bessel_whole_arrays("j", int(order), t)
        return bessel_real_arrays("j", order, t)
    bessel = _select(z > 0, lambda t: bessel_i_arrays(order, t), j, 2.0 * root)   # (each on its own side)
    power = (1.0 - b) * xp.log(root)
    sign = 1.0 if b > 0 or math.floor(b) % 2 == 0 else -1.0
    scale = xp.where(xp.abs(power) < 600.0, math.gamma(b) * root ** (1.0 - b),   # (no subnormal power)
                     sign * xp.exp(math.lgamma(b) + power))
    return scale * bessel


@_in_float64(at=1)
def hyp0f1_arrays(b, z):
    """0F1(; b; z) on an ndarray, b a number (|b| <= 170)."""
    xp = get_array_module(z)
    with np.errstate(all="ignore"):
        if b <= 0 and b == int(b):
            return xp.full_like(z, np.nan)
        reach = max(1.0, b)
        finite = xp.where(xp.isfinite(z), z, 0.0)

        def near(t):
            return _series(b, xp.clip(t, -reach, reach), xp)

        def far(t):
            return _bessel_form(b, xp.where(xp.abs(t) >= 1.0, t, 1.0), xp)
        value = _select(xp.abs(finite) <= reach, near, far, finite)
        return xp.where(xp.isfinite(z), value, np.nan)


class Hyp0F1(Forwarder):
    """0F1(; b; z) in z: its derivative 0F1(; b + 1; z) / b, the same op at b + 1."""

    _pointwise = True

    def __init__(self, b):
        self.b = b

    def forward(self, z):
        if z.dtype.kind != "f":
            z = z.astype(np.float64)
        return hyp0f1_arrays(self.b, z)

    save_for_backward = ("x0",)

    def backward(self, gy):
        z, = self.inputs
        return gy * (_hyp0f1(self.b + 1.0, z) * (1.0 / self.b))

    taylor_records = True

    def taylor(self, z):
        # y_j = 0F1(; b + j; z(t)): y_j' = y_(j+1) z' / (b + j), the orders b .. b + K together
        y, = self.outputs
        b, order = self.b, len(z) - 1
        ys = {j: [y._data if j == 0 else _hyp0f1(b + j, z[0])] for j in range(order + 1)}
        return neighbour_orders_series(z, ys, 0, 0, lambda ys, j, k: ys[j + 1][k] * (1.0 / (b + j)))


def _hyp0f1(b, z):
    if not isinstance(z, Variable):
        return hyp0f1_arrays(b, z)
    return Function(Hyp0F1(b))(z)


def hyp0f1(b, z):
    """The confluent hypergeometric limit function 0F1(; b; z) = sum_k z^k / ((b)_k k!),
    elementwise (scipy.special.hyp0f1(v, z), real b and z), differentiable in z to any order
    (d/dz 0F1(; b; z) = 0F1(; b + 1; z) / b).  b a real number, |b| <= 170, not differentiated (or
    an array of them, broadcast with z); NaN at b = 0, -1, -2, ... and at z = +-inf."""
    def one(order, z):
        return Function(Hyp0F1(_real_order(order, "hyp0f1", _LIMIT)))(z)
    if _several(b):
        return _each_order(b, z, "hyp0f1", one, name="b")
    return one(b, as_variable(z, op="hyp0f1"))
