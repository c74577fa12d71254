"""Powers: cbrt and float_power, in NumPy's names and semantics.

cbrt is the real cube root (negative for negative x), an op of its own: its derivative
1 / (3 cbrt(x)^2) is inf at x = 0, where the cube root has a vertical tangent (NumPy's
formula and PyTorch's gradient give the same inf).  float_power is pow computed in float64
at least, as NumPy's is: its operands are cast up (`Variable.astype`, whose gradient is cast
back to each operand's own dtype) and `pow` does the rest, so its gradients with respect to
both sides, its conventions at 0 and its Taylor rules are pow's.
"""

from typing import Any

import numpy as np

from .. import series
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike
from .elementwise import pow, square
from .exponential import _ufunc_keywords

_THIRD = 1.0 / 3.0


class Cbrt(Forwarder):
    """Real cube root: y^3 = x, negative for negative x."""

    _pointwise = True

    def forward(self, x):
        return np.cbrt(x)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        return gy / (3 * square(y))                    # d cbrt x = 1 / (3 y^2): inf at x = 0

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        # y^3 = x, so 3 y^2 y' = x' and x y' = y x' / 3: pow's recurrence for c = 1/3, which
        # divides by x_0 and reads y_0 = cbrt(x_0), never x_0^(1/3): negative x_0 too
        return series.power(x, _THIRD, y._data)


def cbrt(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Real cube root of `x`, elementwise (negative for negative `x`, as in NumPy).

    The gradient is 1 / (3 cbrt(x) ** 2): inf at x = 0, where the cube root's tangent is
    vertical (PyTorch's gradient of x ** (1/3) at 0 is inf too); an incoming gradient of 0
    there gives NaN (0 * inf). Its Taylor rule is exact to any order away from 0.

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
        Of the shape of `x`; float32 stays float32 (integers give float64, as in NumPy).

    Raises
    ------
    TypeError
        If `x` is not a Variable, a numeric ndarray, a number or a list of numbers, or a
        keyword other than NumPy's default is given.
    """
    _ufunc_keywords("cbrt", out, kwargs)
    return Function(Cbrt())(x)


def _at_least_float64(x):
    """An operand of float_power in float64 (or a wider float), left where it is: a Variable
    cast (its gradient cast back), a number as a Python float, a list as a list of floats (made
    on the other operand's device, as pow makes lists), an array cast on its own device."""
    if isinstance(x, Variable):
        dtype = np.result_type(x.dtype, np.float64)
        return x if x.dtype == dtype else x.astype(dtype)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    data = as_variable(x, op="float_power")._data         # (refuses strings, complex ...)
    dtype = np.result_type(data.dtype, np.float64)
    if isinstance(x, (list, tuple)):
        return data.astype(dtype).tolist()
    return data if data.dtype == dtype else data.astype(dtype)


def float_power(x1: ArrayLike, x2: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """x1 ** x2 computed in float64 at least, elementwise with NumPy broadcasting.

    As in NumPy, float32 (and integer) operands give a float64 result; the gradient of a
    float32 Variable comes back in float32.  Derivatives are pow's, with respect to both
    sides: d/dx1 = x2 x1 ** (x2 - 1), d/dx2 = x1 ** x2 log x1.  A negative base with a
    non-integer exponent gives NaN (with NumPy's warning), as in NumPy.

    Parameters
    ----------
    x1, x2 : ArrayLike
        Base and exponent, broadcast together.
    out : None
        Only None: a Variable is never written in place.
    **kwargs
        NumPy's other ufunc keywords (where, casting, order, dtype, subok, signature),
        at their defaults only.

    Returns
    -------
    Variable
        Of the operands' broadcast shape, float64 (a wider float dtype is kept).

    Raises
    ------
    TypeError
        If an operand is not a Variable, a real ndarray, a number or a list of numbers, or
        a keyword other than NumPy's default is given.
    ValueError
        If the shapes of `x1` and `x2` do not broadcast together.

    Notes
    -----
    At x1 = 0 the values are pow's (PyTorch's): d/dx1 of x1 ** 0 is 0, and d/dx2 =
    x1 ** x2 log x1 is 0 where x1 == 0 <= x2 and -inf where x1 == 0 > x2.
    """
    _ufunc_keywords("float_power", out, kwargs)
    base, exponent = _at_least_float64(x1), _at_least_float64(x2)
    try:
        shapes = [v.shape if hasattr(v, "shape") else np.shape(v) for v in (base, exponent)]
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(
            f"float_power: shapes {shapes[0]} and {shapes[1]} cannot be broadcast together; "
            f"reshape one of them (V.reshape, V.expand_dims) so that trailing axes match"
        ) from None
    return pow(base, exponent)


__all__ = ["cbrt", "float_power"]
