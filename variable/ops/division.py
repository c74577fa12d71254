"""Floor division, remainders and the float decompositions: floor_divide, divmod, mod
(remainder), fmod, modf, ldexp, frexp, spacing, angle, real_if_close and the modified Bessel
function i0.

Piecewise constant results (the quotient of floor_divide and divmod, modf's whole part,
spacing, angle of real data) have exact zero gradients, as in PyTorch and JAX (a jump has no
derivative; 0 is taken there too).  The remainder of divmod is mod's x1 - q x2 with q the
saved quotient; modf's fractional part is x - whole (gradient 1); ldexp and frexp's
mantissa scale x by a power of two that is constant between jumps, saved in forward.
Integer outputs (frexp's exponent) are plain integer arrays, as NumPy's and as V.unique's.

i0 is the internal op `BesselI` of order 0: I_n' = (I_(n-1) + I_(n+1)) / 2 (I_(-1) = I_1), so
its backward is again a BesselI op and every order of derivative works; its Taylor rule
pushes that same identity through the series, coefficient by coefficient.  The values come
from `_bessel_i`: the power series (positive terms, summed by their recurrence) up to a
switch point, and the asymptotic expansion of e^-x sqrt(2 pi x) I_n(x) beyond it, with
e^x applied as two halves so that I_0 stays finite up to |x| ~ 713.98 in float64.
"""

import functools
import math
import numbers
from typing import Any

import numpy as np

from .. import series
from ..backend import errstate, get_array_module
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike
from .elementwise import _reduce
from .exponential import _ufunc_keywords
from .piecewise import _choose
from .rounding import Real, _Flat, _zeros


def _zero_series(y, n):
    """[y_0, 0, ..., 0] (n coefficients): the series of an output constant between jumps."""
    zero = np.zeros_like(y._data)
    return [y._data] + [zero] * (n - 1)


def _outs(op, outs, out, keywords):
    """Check the ufunc keywords of a two-output ufunc: positional outs and out=(None, None)
    are NumPy's defaults; anything else is refused (`_ufunc_keywords`)."""
    if any(o is not None for o in outs):
        raise TypeError(f"{op}: out arrays are not supported (a Variable is never written in place); "
                        f"write a, b = V.{op}(...) instead")
    if isinstance(out, tuple) and all(o is None for o in out):
        out = None
    _ufunc_keywords(op, out, keywords)


# ----- floor division ----------------------------------------------------------------
class FloorDivide(Forwarder):
    """floor(x0 / x1) (NumPy's floor_divide): constant between jumps, zero gradient."""

    def forward(self, x0, x1):
        return np.floor_divide(x0, x1)

    save_for_backward = ()

    def backward(self, gy):
        x0, x1 = self.inputs                           # d/dx0 = d/dx1 = 0 (0 taken at a jump too)
        return (_zeros(x0) if x0.requires_grad else None), (_zeros(x1) if x1.requires_grad else None)

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        return _zero_series(y, max(len(x0), len(x1)))   # y(t) = y_0 near t = 0


class DivMod(Forwarder):
    """(floor(x0 / x1), x0 - floor(x0 / x1) x1): NumPy's divmod, in one call."""

    non_differentiable = ("y0",)                         # the quotient: constant between jumps

    def forward(self, x0, x1):
        q, r = np.divmod(x0, x1)
        self.quotient = q.astype(r.dtype, copy=False)    # the q of r = x0 - q x1
        return q, r

    save_for_backward = ()

    def backward(self, gq, gr):
        x0, x1 = self.inputs
        gx0 = _reduce(gr, x0)                                                  # d r/dx0 = 1
        gx1 = _reduce(gr * -self.quotient, x1) if x1.requires_grad else None   # d r/dx1 = -q
        return gx0, gx1

    taylor_records = True

    def taylor(self, x0, x1):
        q, r = self.outputs
        quotient = self.quotient                         # r_k = x0_k - q x1_k for k >= 1
        return (_zero_series(q, max(len(x0), len(x1))),
                _choose(r._data, x0, x1, lambda a, b: a - quotient * b))


def floor_divide(x1: ArrayLike, x2: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Largest whole number <= x1 / x2 (Python's //), elementwise with NumPy broadcasting.

    The result is constant between its jumps, so the gradient is 0 for both operands (as
    in PyTorch and JAX); integer operands give NumPy's integer quotient (no gradient).
    Division by zero gives NumPy's values (inf, -inf or NaN for floats, 0 for integers),
    with NumPy's warning.  `x // y` on Variables calls this.

    Parameters
    ----------
    x1, x2 : ArrayLike
        Dividend and divisor; a Python number takes the dtype of the other operand's array.
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the operands' broadcast shape and NumPy's result dtype.

    Raises
    ------
    TypeError
        If an operand is not a Variable, a real ndarray, a number or a list of numbers, or
        a keyword is not at its default.
    ValueError
        If the shapes of `x1` and `x2` do not broadcast together.
    """
    _ufunc_keywords("floor_divide", out, kwargs)
    return Function(FloorDivide())(x1, x2)


def divmod(x1: ArrayLike, x2: ArrayLike, /, *outs: None, out: tuple | None = None,
           **kwargs: Any) -> tuple[Variable, Variable]:
    """(x1 // x2, x1 % x2), elementwise with NumPy broadcasting, from one NumPy call.

    The quotient has gradient 0 (it does not require grad); the remainder is mod's, with
    gradient 1 for `x1` and -floor(x1 / x2) for `x2`.  `divmod(x, y)` on Variables calls
    this.

    Parameters
    ----------
    x1, x2 : ArrayLike
        Dividend and divisor; a Python number takes the dtype of the other operand's array.
    *outs, out, **kwargs
        NumPy's ufunc keywords (out1, out2, out, where, casting, order, dtype, subok), at
        their defaults only.

    Returns
    -------
    tuple of Variable
        Quotient and remainder, of the operands' broadcast shape; NaN remainders where
        x2 == 0 (with NumPy's warning).

    Raises
    ------
    TypeError
        If an operand is not a Variable, a real ndarray, a number or a list of numbers, or
        a keyword is not at its default.
    ValueError
        If the shapes of `x1` and `x2` do not broadcast together.
    """
    _outs("divmod", outs, out, kwargs)
    return Function(DivMod())(x1, x2)


# ----- fractional and whole parts, mantissa and exponent ---------------------------------
# ----- remainders ------------------------------------------------------------------
class Mod(Forwarder):
    """x0 - floor(x0 / x1) x1: the remainder with the sign of x1 (Python's %)."""

    def forward(self, x0, x1):
        y = np.mod(x0, x1)
        self.quotient = self._quotient(x0, x1, y)
        return y

    def _quotient(self, x0, x1, y):
        """q with y = x0 - q x1, constant between the jumps (saved for backward and taylor)."""
        with errstate(x0, divide="ignore", invalid="ignore"):    # x1 = 0: forward has warned
            q = np.floor_divide(x0, x1)
        return q.astype(y.dtype, copy=False)

    save_for_backward = ()

    def backward(self, gy):
        x0, x1 = self.inputs
        gx0 = _reduce(gy, x0)                                  # d/dx0 (x0 - q x1) = 1
        gx1 = _reduce(gy * -self.quotient, x1) if x1.requires_grad else None   # d/dx1 = -q
        return gx0, gx1

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        q = self.quotient                               # y_k = x0_k - q x1_k for k >= 1
        return _choose(y._data, x0, x1, lambda a, b: a - q * b)


class Fmod(Mod):
    """x0 - trunc(x0 / x1) x1: the remainder with the sign of x0 (C's fmod)."""

    def forward(self, x0, x1):
        y = np.fmod(x0, x1)
        self.quotient = self._quotient(x0, x1, y)
        return y

    def _quotient(self, x0, x1, y):
        """q = trunc(x0 / x1), with y = x0 - q x1."""
        with errstate(x0, divide="ignore", invalid="ignore"):
            q = np.trunc(np.true_divide(x0, x1))
        return q.astype(y.dtype, copy=False)


def mod(x0: ArrayLike, x1: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Remainder of x0 / x1 with the sign of `x1` (Python's %), with NumPy broadcasting.

    The gradient is 1 for `x0` and -floor(x0 / x1) for `x1` (both constant between the
    jumps at x0 / x1 whole). `remainder` is the same function, as in NumPy.

    Parameters
    ----------
    x0, x1 : ArrayLike
        Dividend and divisor; a Python number takes the dtype of the other operand's array.
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the operands' broadcast shape; NaN where x1 == 0 (with NumPy's warning).

    Raises
    ------
    TypeError
        If an operand is not a Variable, a real ndarray, a number or a list of numbers, or
        a keyword is not at its default.
    ValueError
        If the shapes of `x0` and `x1` do not broadcast together.
    """
    _ufunc_keywords("mod", out, kwargs)
    return Function(Mod())(x0, x1)


remainder = mod


def fmod(x0: ArrayLike, x1: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Remainder of x0 / x1 with the sign of `x0` (C's fmod), with NumPy broadcasting.

    The gradient is 1 for `x0` and -trunc(x0 / x1) for `x1`.

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
        Of the operands' broadcast shape; NaN where x1 == 0 (with NumPy's warning).

    Raises
    ------
    TypeError
        If an operand is not a Variable, a real ndarray, a number or a list of numbers, or
        a keyword is not at its default.
    ValueError
        If the shapes of `x0` and `x1` do not broadcast together.
    """
    _ufunc_keywords("fmod", out, kwargs)
    return Function(Fmod())(x0, x1)


class Modf(Forwarder):
    """(x - trunc(x), trunc(x)) with the sign of x (NumPy's modf)."""

    non_differentiable = ("y1",)                         # the whole part: constant between jumps

    def forward(self, x):
        return np.modf(x)

    save_for_backward = ()

    def backward(self, gfrac, gwhole):
        return gfrac                                     # d frac/dx = 1, d whole/dx = 0

    taylor_records = True

    def taylor(self, x):
        frac, whole = self.outputs                       # frac_k = x_k, whole_k = 0 for k >= 1
        return [frac._data] + x[1:], _zero_series(whole, len(x))


class Frexp(Forwarder):
    """The mantissa m = x 2^-e of NumPy's frexp; the exponent e is kept as `self.exponent`."""

    def forward(self, x):
        m, e = np.frexp(x)
        self.exponent = e = get_array_module(x).asarray(e)   # (an array for 0-d x too, not a scalar)
        with errstate(m, over="ignore"):                 # 2^-e of a subnormal x: inf, as it is
            self.scale = np.ldexp(get_array_module(m).ones((), dtype=m.dtype), -e)
        return m

    save_for_backward = ()

    def backward(self, gy):
        return gy * self.scale                           # dm/dx = 2^-e between jumps

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + [self.scale * xk for xk in x[1:]]   # m_k = 2^-e x_k


class Ldexp(Forwarder):
    """x0 2^x1 for integer x1: the gradient 2^x1 reaches x0 only."""

    def forward(self, x0, x1):
        y = np.ldexp(x0, x1)
        with errstate(y, over="ignore"):                 # 2^x1 may overflow where y does not
            self.scale = np.ldexp(get_array_module(y).ones((), dtype=y.dtype), x1)
        return y

    save_for_backward = ()

    def backward(self, gy):
        x0, x1 = self.inputs
        return _reduce(gy * self.scale, x0), None        # dy/dx0 = 2^x1 (x1: integers, no gradient)

    taylor_records = True

    def taylor(self, x0, x1):
        y, = self.outputs
        scale = self.scale                               # y_k = 2^x1 x0_k for k >= 1
        return _choose(y._data, x0, x1, lambda a, b: scale * a)


def modf(x: ArrayLike, /, *outs: None, out: tuple | None = None,
         **kwargs: Any) -> tuple[Variable, Variable]:
    """Fractional and whole parts of `x`, elementwise, both with the sign of `x`.

    The fractional part has gradient 1 and the whole part 0 (it does not require grad),
    as in JAX.  modf(inf) is (0, inf), as in NumPy.

    Parameters
    ----------
    x : ArrayLike
    *outs, out, **kwargs
        NumPy's ufunc keywords (out1, out2, out, where, casting, order, dtype, subok), at
        their defaults only.

    Returns
    -------
    tuple of Variable
        Fractional and whole parts, of the shape of `x`, floating point (float64 for
        integers, as in NumPy).

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or a
        keyword is not at its default.
    """
    _outs("modf", outs, out, kwargs)
    return Function(Modf())(as_variable(x, op="modf"))


def frexp(x: ArrayLike, /, *outs: None, out: tuple | None = None, **kwargs: Any) -> tuple:
    """Mantissa and exponent of `x`: x = m 2^e with 0.5 <= |m| < 1 (m = e = 0 at 0).

    The mantissa has gradient 2^-e (constant between the powers of two, where it jumps),
    as in JAX; at 0, inf and NaN, where NumPy gives e = 0, that is 1.  The exponent is a
    plain integer array (NumPy's int32, on the device of `x`), as V.unique returns its
    integer outputs: it has no gradient.  V.ldexp(m, e) gives `x` back.

    Parameters
    ----------
    x : ArrayLike
    *outs, out, **kwargs
        NumPy's ufunc keywords (out1, out2, out, where, casting, order, dtype, subok), at
        their defaults only.

    Returns
    -------
    tuple of (Variable, ndarray)
        The mantissa, of the shape of `x` and floating point (float64 for integers, as in
        NumPy), and the exponent as int32.

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or a
        keyword is not at its default.
    """
    _outs("frexp", outs, out, kwargs)
    forwarder = Frexp()
    mantissa = Function(forwarder)(as_variable(x, op="frexp"))
    return mantissa, forwarder.exponent


def _exponent(x2):
    """ldexp's `x2` as an integer operand (an integer number as a 0-d array, a list as an
    array); floating point exponents are refused, as NumPy refuses them."""
    if isinstance(x2, (bool, int, np.integer, np.bool_)):
        return np.asarray(x2)
    if isinstance(x2, (list, tuple)):
        try:
            x2 = np.asarray(x2)
        except (TypeError, ValueError):
            return x2                                    # (refused by the Function, naming ldexp)
    dtype = getattr(x2, "dtype", None)
    if isinstance(x2, (float, complex)) or (dtype is not None and np.dtype(dtype).kind not in "biu"):
        got = type(x2).__name__ if dtype is None else f"dtype {dtype}"
        raise TypeError(f"ldexp: the exponent x2 must be integers (NumPy refuses a floating point "
                        f"exponent), got {got}; write V.ldexp(x1, x2.astype(int)), or x1 * 2.0 ** x2 "
                        f"for a differentiable exponent")
    return x2


def ldexp(x1: ArrayLike, x2: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """x1 * 2**x2 for integer `x2`, elementwise with NumPy broadcasting.

    The gradient is 2**x2 for `x1`; `x2` holds integers and gets none (for a
    differentiable exponent write x1 * 2.0 ** x2).

    Parameters
    ----------
    x1 : ArrayLike
        The mantissas (integers become float64, as in NumPy).
    x2 : ArrayLike
        The exponents: an integer array or Variable, a Python int or a list of ints.
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the operands' broadcast shape, in the floating dtype of `x1`; inf where it
        overflows (with NumPy's warning).

    Raises
    ------
    TypeError
        If `x2` is floating point, an operand is not a Variable, a real ndarray, a number
        or a list of numbers, or a keyword is not at its default.
    ValueError
        If the shapes of `x1` and `x2` do not broadcast together.
    """
    _ufunc_keywords("ldexp", out, kwargs)
    return Function(Ldexp())(x1, _exponent(x2))


# ----- constant almost everywhere ------------------------------------------------------
class Spacing(_Flat):
    """Distance from x to the next float away from 0 (NumPy's spacing)."""

    def forward(self, x):
        xp = get_array_module(x)
        if xp is np:
            return np.spacing(x)
        # CuPy has no spacing ufunc: the step to the next float away from 0 (from +0 for
        # -0.0, as NumPy's), in NumPy's dtype for x (float16 for int8, float64 for int64)
        x = x.astype(np.spacing(np.zeros(0, x.dtype)).dtype, copy=False)
        away = xp.where(x < 0, -xp.inf, xp.inf).astype(x.dtype)
        return xp.nextafter(x, away) - x


class Angle(_Flat):
    """Argument of real data: 0 for x >= +0, pi for x < 0 and for -0.0 (arctan2(0, x))."""

    def __init__(self, deg):
        self.deg = deg

    def forward(self, x):
        y = np.arctan2(0, x)                             # NumPy's formula, its dtypes too
        return y * (180 / math.pi) if self.deg else y


def spacing(x: ArrayLike, /, out: None = None, **kwargs: Any) -> Variable:
    """Distance between `x` and the nearest adjacent float (negative for x < 0), elementwise.

    Constant between powers of two: the gradient is 0.  spacing(+-inf) and NaN are NaN.

    Parameters
    ----------
    x : ArrayLike
    out, **kwargs
        NumPy's ufunc keywords (out, where, casting, order, dtype, subok), at their
        defaults only.

    Returns
    -------
    Variable
        Of the shape of `x`, floating point (NumPy's dtype for integers).

    Raises
    ------
    TypeError
        If `x` is not a Variable, a real ndarray, a number or a list of numbers, or a
        keyword is not at its default.
    """
    _ufunc_keywords("spacing", out, kwargs)
    return Function(Spacing())(as_variable(x, op="spacing"))


def angle(z: ArrayLike, deg: bool = False) -> Variable:
    """Argument of `z`: for gengrad's real data, 0 where z >= 0 and pi where z < 0.

    As NumPy's arctan2(0, z): -0.0 gives pi too, NaN gives NaN.  The gradient is 0.

    Parameters
    ----------
    z : ArrayLike
        Real data: complex input is refused (gengrad has no complex dtype).
    deg : bool
        Degrees (0 or 180) instead of radians.

    Returns
    -------
    Variable
        Of the shape of `z`, floating point (float64 for integers, as in NumPy).

    Raises
    ------
    TypeError
        If `z` is complex, or not a Variable, a real ndarray, a number or a list of
        numbers, or `deg` is not a bool.
    """
    if not isinstance(deg, (bool, np.bool_, int, np.integer)):
        raise TypeError(f"angle: deg must be a bool, got {type(deg).__name__}")
    return Function(Angle(bool(deg)))(as_variable(z, op="angle"))


def real_if_close(a: ArrayLike, tol: float = 100) -> Variable:
    """`a` itself for gengrad's real data (NumPy returns real input unchanged).

    An identity in the graph (gradient 1), sharing the data of `a`.

    Parameters
    ----------
    a : ArrayLike
        Real data: complex input is refused (gengrad has no complex dtype).
    tol : float
        NumPy's tolerance for dropping imaginary parts, in machine epsilons: it has no
        effect on real data.

    Returns
    -------
    Variable
        Of the shape and dtype of `a`.

    Raises
    ------
    TypeError
        If `a` is complex, or not a Variable, a real ndarray, a number or a list of
        numbers, or `tol` is not a real number.
    """
    if isinstance(tol, (bool, np.bool_)) or not isinstance(tol, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"real_if_close: tol must be a real number, got {type(tol).__name__}")
    return Function(Real())(as_variable(a, op="real_if_close"))


# ----- the modified Bessel functions of the first kind -----------------------------------
_TINY = 2.0 ** -60        # relative size of the first term left out of either sum


@functools.cache
def _plan(n):
    """(switch point s, power-series terms, asymptotic terms) for I_n: the least whole s at
    which the asymptotic expansion's terms fall from the first on and reach one below _TINY,
    and the terms each sum needs on its side of s (counts fixed, so no data is read)."""
    s = 10.0 if n == int(n) else 21.0       # (a fractional order's own e^-x part, e^-2x of I's: < 2^-60)
    while True:
        term, k = 1.0, 0
        while term >= _TINY:
            k += 1
            ratio = abs(4 * n * n - (2 * k - 1) ** 2) / (8 * k * s)
            if ratio >= 1:                               # a term grows (at first, for a large order,
                break                                    # or again): the sum would lose digits
            term *= ratio
        if term < _TINY:
            break
        s += 1.0
    asymptotic = k + 1
    u, term, total, k = s * s / 4, 1.0, 1.0, 0
    while not (term < _TINY * total and k * k > u):     # past the largest term, and small
        k += 1
        term *= u / (k * (k + n))
        total += term
    return s, k + 1, asymptotic


_DEBYE_FROM = 30.0        # orders above it: Debye's uniform expansion


@functools.cache
def _debye_polynomials(count=24):
    """Debye's polynomials U_0 .. U_(count-1) as exact coefficient lists (lowest power first):
    U_0 = 1, U_(k+1)(p) = p^2 (1 - p^2) U_k'(p) / 2 + (1/8) int_0^p (1 - 5 t^2) U_k(t) dt."""
    from fractions import Fraction
    polynomials = [[Fraction(1)]]
    for _ in range(count - 1):
        u = polynomials[-1]
        nxt = [Fraction(0)] * (len(u) + 3)
        for i, c in enumerate(u):
            if i:                                      # p^2 (1 - p^2) i c p^(i-1) / 2
                nxt[i + 1] += i * c / 2
                nxt[i + 3] -= i * c / 2
            nxt[i + 1] += c / (8 * (i + 1))            # (1 - 5 t^2) c t^i, integrated
            nxt[i + 3] -= 5 * c / (8 * (i + 3))
        polynomials.append(nxt)
    return polynomials


@functools.cache
def _debye_plan(nu):
    """The coefficients, highest power first, of sum_k U_k(p) / nu^k over the terms whose bound
    max |U_k| on [0, 1] over nu^k is at least _TINY (each U_k's maximum taken on a grid)."""
    grid = np.linspace(0.0, 1.0, 2001)
    total = np.zeros(3 * len(_debye_polynomials()) + 1)
    for k, u in enumerate(_debye_polynomials()):
        coefficients = np.array([float(c) for c in u])
        if k and np.max(np.abs(np.polyval(coefficients[::-1], grid))) < _TINY * nu ** k:
            break
        total[:len(u)] += coefficients / nu ** k
    else:
        raise ValueError(f"iv: Debye's expansion needs more than {k + 1} terms at order {nu}")
    return tuple(float(c) for c in total[:np.flatnonzero(total)[-1] + 1][::-1])   # (Python floats: NEP 50)


@functools.cache
def _debye_constant(nu):
    """sqrt(e^(nu - nu log nu) / sqrt(2 pi nu)) to a rounding, from 40-digit decimals (the
    constant itself underflows from nu = 143)."""
    from decimal import Decimal, localcontext
    with localcontext() as context:
        context.prec = 40
        v = Decimal(nu)
        pi = Decimal("3.141592653589793238462643383279502884197")
        return float(((v - v * v.ln()).exp() / (2 * pi * v).sqrt()).sqrt())


def _bessel_i_debye(nu, x, scaled):
    """I_nu(x) for nu > _DEBYE_FROM (`scaled`: I_nu(x) e^(-|x|)) by Debye's uniform expansion: with
    z = x / nu, t = sqrt(1 + z^2), p = 1 / t and w = z / (1 + t),
    I_nu(x) = e^(nu (t + log w)) / sqrt(2 pi nu t) sum_k U_k(p) / nu^k, uniformly in x >= 0
    (I_nu(-x) as in _bessel_i).  The exponent is taken as x + nu (t - z + log w), t - z =
    1/(t + z), and e^x in two halves: x is exact, so a large x costs no digits (nu t would), and
    nothing overflows before the result does; log w is log1p(-(1 + 1/(t + z)) / (1 + t)) from
    z = 1 on.  Each branch sees only entries of its side (and 1 elsewhere), and I_nu is 0 below
    1e-300 (it underflows far above) and at +inf its limit: no log of 0, no inf - inf.  In
    float64 inside (float32's range holds neither (x/2)^(nu/2) nor the constant's root)."""
    if x.dtype != np.float64:
        y = _bessel_i_debye(nu, x.astype(np.float64), scaled)
        with errstate(y, over="ignore"):                 # (inf where float32 overflows)
            return y.astype(x.dtype)
    xp = get_array_module(x)
    ax = xp.abs(x)
    edge = (ax < 1e-300) | (ax == np.inf)                # (NaN: False, and NaN throughout)
    z = xp.where(edge, 1.0, ax) * (1.0 / nu)
    t = xp.hypot(1.0, z)
    small = z < 1.0
    z_small, t_small = xp.where(small, z, 1.0), xp.where(small, t, math.sqrt(2.0))
    z_big, t_big = xp.where(small, 1.0, z), xp.where(small, math.sqrt(2.0), t)
    log_w = xp.log1p(-(1.0 + 1.0 / (t_big + z_big)) / (1.0 + t_big))
    p = 1.0 / t
    total = xp.zeros_like(p)
    for c in _debye_plan(nu):
        total = total * p + c
    # below z = 1: (x/2)^nu e^(nu - nu log nu) / sqrt(2 pi nu) e^(nu (t - 1 - log1p((t - 1)/2))),
    # the constant's square root from decimals and (x/2)^(nu/2) by pow, so that nu log(x/2)'s
    # rounding (nu ulps) never enters; t - 1 = z^2 / (1 + t)
    near = xp.where(small & ~edge, ax, 1.0)
    rise = z_small * z_small / (1.0 + t_small)
    root = (near * 0.5) ** (nu * 0.5) * _debye_constant(nu)
    inner = xp.exp(nu * (rise - xp.log1p(rise * 0.5)) - (near if scaled else 0.0))
    y_near = root * (inner * (total / xp.sqrt(t))) * root
    y = xp.exp(nu * (1.0 / (t + z) + log_w)) * (total / xp.sqrt(t * (2 * math.pi * nu)))
    if not scaled:
        half = xp.exp(xp.where(edge | small, 0.0, ax) * 0.5)
        y = (half * y) * half
    y = xp.where(small, y_near, y)
    y = xp.where(ax == np.inf, 0.0 if scaled else np.inf, xp.where(edge, 0.0, y))
    if nu != int(nu):
        return xp.where(x < 0, np.nan, y)
    return xp.copysign(y, x) if nu % 2 else y


def i_power_series(n, x, terms):
    """I_n's power series (x/2)^n / n! sum_(k < terms) u^k n! / (k! (k + n)!), u = x^2 / 4, its
    terms by t_k = t_(k-1) u / (k (k + n)); x real (_bessel_i) or complex (kelvin_functions.py)."""
    xp = get_array_module(x)
    u = x * x * 0.25
    term = total = xp.ones_like(x)
    for k in range(1, terms):
        term = term * (u * (1.0 / (k * (k + n))))
        total = total + term
    if n:
        total = total * ((x * 0.5) ** n * (1.0 / math.gamma(n + 1)))
    return total


def i_expansion(n, r, terms):
    """sum_(k < terms) t_k, t_0 = 1, t_k = -t_(k-1) (4 n^2 - (2k - 1)^2) r / (8k): I_n(z) e^-z
    sqrt(2 pi z) for r = 1/z, real (_bessel_i) or complex (kelvin_functions.py)."""
    xp = get_array_module(r)
    term = expansion = xp.ones_like(r)
    for k in range(1, terms):
        term = term * (r * (-(4 * n * n - (2 * k - 1) ** 2) / (8 * k)))
        expansion = expansion + term
    return expansion


def _bessel_i(n, x, scaled=False):
    """I_n(x) (`scaled`: I_n(x) e^(-|x|)) for a real n >= 0 on a floating array: I_n(-x) =
    (-1)^n I_n(x) for a whole n (NaN for a fractional one), and for |x|

    - <= s, the power series (x/2)^n / n! sum_k u^k n! / (k! (k + n)!), u = x^2 / 4 (n! is
      Gamma(n + 1)), its positive terms summed as the recurrence t_k = t_(k-1) u / (k (k + n))
      makes them;
    - > s, e^x / sqrt(2 pi x) sum_k t_k with t_k = -t_(k-1) (4 n^2 - (2k - 1)^2) / (8 k x),
      e^x applied in two halves (no overflow before the result's own).

    Both branches run on every entry (clamped to their side of s) and `where` picks one:
    no data-dependent branch, so no host sync on a device.
    """
    xp = get_array_module(x)
    if x.dtype == np.float16:                            # (computed in float32, as NumPy keeps float16)
        return _bessel_i(n, x.astype(np.float32), scaled).astype(np.float16)
    if n > _DEBYE_FROM:
        return _bessel_i_debye(n, x, scaled)
    s, series_terms, asymptotic_terms = _plan(n)
    ax = xp.abs(x)
    far = ax > s                                         # (NaN: False, the series keeps it NaN)
    near = xp.minimum(ax, s)
    total = i_power_series(n, near, series_terms)
    if scaled:
        total = total * xp.exp(-near)
    big = xp.where(far & (ax < np.inf), ax, s)           # inf: its value is set below
    expansion = i_expansion(n, 1.0 / big, asymptotic_terms)
    expansion = expansion / (xp.sqrt(big) * math.sqrt(2 * math.pi))   # (big * 2 pi overflows from 3e307)
    if not scaled:
        half = xp.exp(big * 0.5)                         # e^x = e^(x/2) e^(x/2)
        expansion = (half * expansion) * half
    y = xp.where(far, expansion, total)
    y = xp.where(ax == np.inf, 0.0 if scaled else np.inf, y)
    if n != int(n):                                      # (a fractional order: complex below 0)
        return xp.where(x < 0, np.nan, y)
    return xp.copysign(y, x) if n % 2 else y


def bessel_i_arrays(nu, x, scaled=False):
    """I_nu(x) (`scaled`: I_nu(x) e^(-|x|)) of a real order nu on a floating array: I_(-n) = I_n
    at whole orders, and I_(-a) = I_a + (2/pi) sin(pi a) K_a at fractional ones (the series'
    sum alone would miss K's share, e^-2x of I's, beyond its switch point); NaN for x < 0 at a
    fractional order, as SciPy's."""
    if nu == int(nu) or nu > 0:
        return _bessel_i(abs(nu) if nu == int(nu) else nu, x, scaled)
    from .bessel import bessel_k_arrays
    xp = get_array_module(x)
    a = -nu
    with np.errstate(all="ignore"):
        k = bessel_k_arrays(a, xp.abs(x), True) * xp.exp(-2 * xp.abs(x) if scaled else -xp.abs(x))
        y = _bessel_i(a, x, scaled) + (2 / math.pi) * math.sin(math.pi * a) * k
        return xp.where(x == 0, math.copysign(np.inf, math.sin(math.pi * a)), y)   # (K_a(0) = inf)


def _bessel(n, x, scaled=False):
    """I_n of `x` (`scaled`: I_n(x) e^(-|x|)), n real: a recorded BesselI op on a Variable, the
    values on an array."""
    if not isinstance(x, Variable):
        return bessel_i_arrays(n, x, scaled)
    return Function(ScaledBesselI(n) if scaled else BesselI(n))(x)


def _sign_of(x):
    """The sign of `x`'s data, a constant (the slope of |x|, 0 at 0)."""
    data = x._data if isinstance(x, Variable) else x
    return get_array_module(data).sign(data)


class BesselI(Forwarder):
    """I_n, the modified Bessel function of the first kind of order n (i0: n = 0, i1: n = 1;
    iv: any real n)."""

    scaled = False

    def __init__(self, order):
        self.order = order

    def forward(self, x):
        if x.dtype.kind != "f":                          # (integers and booleans: float64, as np.i0)
            x = x.astype(np.float64)
        return bessel_i_arrays(self.order, x, self.scaled)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        n, scaled = self.order, self.scaled
        if n == 0:
            slope = _bessel(1, x, scaled)                                  # I_0' = I_1
        else:
            slope = (_bessel(n - 1, x, scaled) + _bessel(n + 1, x, scaled)) * 0.5   # (I_(n-1) + I_(n+1))/2
        if scaled:                                      # (I_n e^(-|x|))' = (I_n' - sign(x) I_n) e^(-|x|)
            y, = self.outputs
            slope = slope - _sign_of(x) * y
        return gy * slope

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        # y_j = I_j(x(t)) satisfy y_j' = g_j x' with g_j = (y_(j-1) + y_(j+1)) / 2 (g_0 = y_1), so
        # k y_j,k = sum_i i x_i g_j,(k-i): coefficient k of I_j needs k - 1 of I_(j-1), I_(j+1).
        # Scaled (y_j = I_j(x) e^(-s x), s = sign(x_0) along the series), g_j takes - s y_j too.
        # A fractional order nu: the orders nu + j, j from -K to K (no I_(-j) = I_j to lean on).
        y, = self.outputs
        n, order, scaled = self.order, len(x) - 1, self.scaled
        x0 = x[0]
        sign = _sign_of(x0) if scaled else None
        whole = n == int(n)
        lowest = max(0, n - order) if whole else -order
        ys = {j: [y._data if j == (n if whole else 0) else _bessel(j if whole else n + j, x0, scaled)]
              for j in range(lowest, (n if whole else 0) + order + 1)}

        def slope(ys, j, k):
            g = ys[1][k] if whole and j == 0 else (ys[j - 1][k] + ys[j + 1][k]) * 0.5
            return g - sign * ys[j][k] if scaled else g
        return neighbour_orders_series(x, ys, n if whole else 0, lowest, slope)


def neighbour_orders_series(x, ys, n, lowest, slope):
    """Coefficients of y_n = Z_n(x(t)) along the series x, for a family of functions whose
    derivative reads the neighbouring orders (Bessel's: I_n here, J_n and Y_n in bessel.py):
    y_j' = g_j x', so k y_j,k = sum_i i x_i g_j,(k-i), and coefficient k of Z_j needs
    coefficient k - 1 of Z_(j-1) and Z_(j+1).  `ys` maps every order from `lowest` to
    n + K (K = len(x) - 1) to [its value at x_0] and is extended in place; slope(ys, j, k) is
    coefficient k of g_j, each computed once."""
    order, slopes = len(x) - 1, {}

    def g(j, k):
        if (j, k) not in slopes:
            slopes[j, k] = slope(ys, j, k)
        return slopes[j, k]

    for k in range(1, order + 1):
        for j in range(max(lowest, n - (order - k)), n + order - k + 1):
            ys[j].append(series._total([x[i] * g(j, k - i) if i == k else (x[i] * (i / k)) * g(j, k - i)
                                        for i in range(1, k + 1)]))
    return ys[n]


class ScaledBesselI(BesselI):
    """I_n(x) e^(-|x|) (i0e, i1e), which does not overflow; its backward reads its output too."""

    scaled = True
    save_for_backward = ("x", "y")
    _pointwise = True


def i0(x: ArrayLike) -> Variable:
    """The modified Bessel function of the first kind of order 0, elementwise (np.i0).

    The gradient is I_1(x), computed by the same internal op at order 1, whose derivative
    is (I_0 + I_2) / 2 (I_1'(0) = 1/2), and so on: every order of derivative works, to
    about 1e-15 relative in float64.  I_0 is finite up to |x| ~ 713.98 in float64, where
    np.i0 overflows from 709.78 (it computes e^x whole); I_0(+-inf) is inf (the limit, as
    scipy.special.i0 gives), where np.i0 gives NaN with a warning.

    Parameters
    ----------
    x : ArrayLike
        Real data (integers become float64, as in NumPy); complex input is refused.

    Returns
    -------
    Variable
        Of the shape of `x`; float32 stays float32.

    Raises
    ------
    TypeError
        If `x` is complex, or not a Variable, a real ndarray, a number or a list of numbers.
    """
    return Function(BesselI(0))(as_variable(x, op="i0"))


__all__ = [
    "floor_divide", "divmod", "mod", "remainder", "fmod", "modf", "ldexp", "frexp", "spacing", "angle",
    "real_if_close", "i0",
]
