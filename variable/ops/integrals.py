"""scipy.special's integrals of oscillating and growing functions on Variables: the sine and
cosine integrals (sici), their hyperbolic kin (shichi) and Fresnel's integrals (fresnel).

    Si(x) = int_0^x sin t / t dt          Ci(x) = gamma + log x + int_0^x (cos t - 1) / t dt
    Shi(x) = int_0^x sinh t / t dt        Chi(x) = gamma + log x + int_0^x (cosh t - 1) / t dt
    S(x) = int_0^x sin(pi t^2 / 2) dt     C(x) = int_0^x cos(pi t^2 / 2) dt

Each is one op with its own derivative (sin x / x, cos x / x, sinh x / x, cosh x / x,
sin(pi x^2 / 2), cos(pi x^2 / 2)), written with differentiable ops, so every order of gradient
works, and a Taylor rule that integrates the derivative's series along the input's.  sinh x / x
is an op of its own here (`Sinhc`, smooth at 0 to every order), as V.sinc is for sin x / x.

The forwards, in float64 inside (float32 in, float32 out), with SciPy's values at the edges:
- sici: power series up to |x| = 3, beyond it E1(ix) = -Ci(x) + i (Si(x) - pi/2) from E1's
  continued fraction on the imaginary axis (84 levels from 3 on, fewer further out).
  For x < 0, Si is odd and ci(x) = Ci(|x|) (the real part of Ci(x), as SciPy's).
- shichi: power series of positive terms up to |x| = 2, beyond it Shi = (Ei + E1) / 2 and
  Chi = (Ei - E1) / 2 from V.expi's and V.exp1's own arrays.
- fresnel: power series up to |x| = 1; beyond it C + iS = (1 + i)/2 (1 - erfc(z) ...) with erfc's
  continued fraction at z = sqrt(pi)/2 (1 - i) x, and e^(i pi x^2 / 2) from x^2 taken exactly
  modulo 4 (x split in halves whose products are exact), so that the phase keeps its digits for
  large x: within 2e-16 of 40-digit values out to x = 1e7 (SciPy's: 6e-11 there).
A device runs every branch on every entry (no data-dependent branch, no host sync).
"""

import math

import numpy as np

from .. import series
from ..backend import get_array_module, is_device_array
from ..forwarder import Forwarder, Function, as_variable
from ..variable import Variable
from .inverse_trig import Sinc, _sinc_series
from .special import _EULER_GAMMA, _in_float64, _select_tuple, _split, exp1_arrays, expi_arrays
from .trigonometric import cos, cosh, sin

__all__ = ["sici", "shichi", "fresnel"]

_SICI_SPLIT, _SICI_TERMS = 3.0, 20
_SICI_BANDS = ((4.0, 84), (6.0, 56), (10.0, 36), (20.0, 22), (math.inf, 14))
"""(upper end, levels): E1's continued fraction at z = ix is exact to double precision with these
levels from each band's lower end (3, 4, 6, 10, 20) on (80, 52, 33, 20 and 12 are); from 1e8 on its
asymptotic series' first terms are (the next, 24 / x^4 times the first, below 1e-31 of it)."""
_SICI_FAR = 1e8
_SHICHI_SPLIT, _SHICHI_TERMS = 2.0, 20
_FRESNEL_SPLIT, _FRESNEL_TERMS = 1.0, 12
_FRESNEL_BANDS = ((1.2, 300), (1.5, 200), (2.0, 100), (3.0, 60), (math.inf, 30))
"""(upper end, levels): erfc's continued fraction at z = sqrt(pi)/2 (1 - i) x is exact to double
precision with these levels from each band's lower end (1, 1.2, 1.5, 2, 3) on."""


# ----- the forwards on arrays --------------------------------------------------------------------
def _series_pair(x, terms, sign):
    """(sum_n s^n x^(2n+1) / ((2n+1) (2n+1)!), sum_(n>=1) s^n x^(2n) / (2n (2n)!)) for s = sign
    (-1: Si and Ci - gamma - log x; +1: their hyperbolic kin)."""
    x2 = x * x * sign
    odd, even = x, x * 0.0
    odd_term, even_term = x, x * 0.0 + 1.0
    for n in range(1, terms):
        even_term = even_term * x2 * (1.0 / ((2 * n - 1) * (2 * n)))
        odd_term = odd_term * x2 * (1.0 / ((2 * n) * (2 * n + 1)))
        even = even + even_term * (1.0 / (2 * n))
        odd = odd + odd_term * (1.0 / (2 * n + 1))
    return odd, even


def _e1_on_imaginary_axis(x, levels):
    """1 / (z + 1 - 1/(z + 3 - 4/(z + 5 - ...))) at z = ix, as (real, imaginary) parts: E1(ix)
    e^(ix), evaluated from its bottom level up in real arithmetic."""
    re, im = x * 0.0 + (2 * levels + 1), x
    for k in range(levels, 0, -1):
        scale = (k * k) / (re * re + im * im)           # f = z + 2k - 1 - k^2 / f
        re, im = (2 * k - 1) - scale * re, x + scale * im
    size = re * re + im * im
    return re / size, -im / size


@_in_float64()
def sici_arrays(x):
    """(Si(x), ci(x)) on an ndarray, in one pass."""
    xp = get_array_module(x)
    ax = xp.abs(x)

    def near(a):
        odd, even = _series_pair(a, _SICI_TERMS, -1.0)
        return odd, (_EULER_GAMMA + xp.log(a)) + even

    def far(a):
        a = xp.maximum(a, _SICI_SPLIT)                  # (clamped to its side, for a device)
        re, im = _in_bands(xp.minimum(a, _SICI_FAR), _SICI_SPLIT, _SICI_BANDS, _e1_on_imaginary_axis)
        r = 1.0 / a
        u = r * r                                       # from 1e8: 1/(ia) - 1/(ia)^2 + 2/(ia)^3 - 6/(ia)^4
        re = xp.where(a < _SICI_FAR, re, u * (1.0 - 6.0 * u))
        im = xp.where(a < _SICI_FAR, im, -r * (1.0 - 2.0 * u))
        c, s = xp.cos(a), xp.sin(a)                     # E1(ia) = (c - i s)(re + i im)
        return math.pi / 2 + (c * im - s * re), -(c * re + s * im)

    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        si, ci = _select_tuple(ax <= _SICI_SPLIT, near, far, xp.where(ax == np.inf, 1e300, ax))
        si = xp.where(ax == np.inf, math.pi / 2, si)
        ci = xp.where(ax == np.inf, 0.0, xp.where(ax == 0, -np.inf, ci))
        nan = xp.isnan(x)
        return xp.where(nan, np.nan, xp.copysign(si, x)), xp.where(nan, np.nan, ci)


@_in_float64()
def shichi_arrays(x):
    """(Shi(x), Chi(x)) on an ndarray, in one pass."""
    xp = get_array_module(x)
    ax = xp.abs(x)

    def near(a):
        odd, even = _series_pair(a, _SHICHI_TERMS, 1.0)
        return odd, (_EULER_GAMMA + xp.log(a)) + even

    def far(a):
        a = xp.maximum(a, _SHICHI_SPLIT)
        ei, e1 = expi_arrays(a), exp1_arrays(a)
        return (ei + e1) * 0.5, (ei - e1) * 0.5

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        shi, chi = _select_tuple(ax <= _SHICHI_SPLIT, near, far, ax)
        nan = xp.isnan(x)
        chi = xp.where(ax == 0, -np.inf, chi)
        return xp.where(nan, np.nan, xp.copysign(shi, x)), xp.where(nan, np.nan, chi)


def _half_square_turns(x):
    """x^2 modulo 4, in [-2, 2), to double precision: x = hi + lo with hi of 26 bits, so that
    hi^2, 2 hi lo and lo^2 are exact and each is reduced exactly (e^(i pi x^2 / 2) repeats as x^2
    moves by 4)."""
    xp = get_array_module(x)
    hi, lo = _split(x)
    r = xp.fmod(hi * hi, 4.0) + xp.fmod(2.0 * hi * lo, 4.0) + xp.fmod(lo * lo, 4.0)
    r = xp.fmod(r, 4.0)
    return xp.where(r >= 2.0, r - 4.0, r)


def _erfc_fraction(x, levels):
    """erfc's continued fraction F(z) = z + (1/2)/(z + 1/(z + (3/2)/(z + ...))) at z = sqrt(pi)/2
    (1 - i) x, as (real, imaginary) parts, from its bottom level up."""
    zr = x * (math.sqrt(math.pi) / 2)
    re, im = zr, -zr
    for k in range(levels, 0, -1):
        scale = (0.5 * k) / (re * re + im * im)         # f = z + (k/2) / f
        re, im = zr + scale * re, -zr - scale * im
    return re, im


def _fresnel_tail(a, levels):
    """(1/2 - C(a), 1/2 - S(a)) for a >= 1: the real and imaginary parts of (1 + i)/2 erfc(z),
    erfc(z) = e^(-z^2) / (sqrt(pi) F(z)) with -z^2 = i pi a^2 / 2."""
    xp = get_array_module(a)
    re, im = _erfc_fraction(a, levels)
    size = re * re + im * im
    turns = _half_square_turns(a) * (math.pi / 2)
    c, s = xp.cos(turns), xp.sin(turns)
    er = (c * re + s * im) / size                       # e^(i theta) / F
    ei = (s * re - c * im) / size
    scale = 0.5 / math.sqrt(math.pi)
    return (er - ei) * scale, (er + ei) * scale


def _in_bands(a, low, bands, tail):
    """tail(a, levels), a pair of arrays, with each band's levels on its own entries (bands:
    (upper end, levels) upward from `low`); a device takes the first band's, the most, everywhere."""
    if is_device_array(a):
        return tail(a, bands[0][1])
    out = np.zeros((2,) + a.shape)
    for high, levels in bands:
        mask = (a >= low) & (a < high)
        if mask.any():
            out[:, mask] = tail(a[mask], levels)
        low = high
    return out[0], out[1]


@_in_float64()
def fresnel_arrays(x):
    """(S(x), C(x)) on an ndarray, in one pass."""
    xp = get_array_module(x)
    ax = xp.abs(x)

    def near(a):
        u = a * a * (math.pi / 2)
        u2 = -(u * u)
        cos_term, sin_term = a, a * u
        c, s = cos_term, sin_term * (1.0 / 3)
        for n in range(1, _FRESNEL_TERMS):
            cos_term = cos_term * u2 * (1.0 / ((2 * n - 1) * (2 * n)))
            sin_term = sin_term * u2 * (1.0 / ((2 * n) * (2 * n + 1)))
            c = c + cos_term * (1.0 / (4 * n + 1))
            s = s + sin_term * (1.0 / (4 * n + 3))
        return s, c

    def far(a):
        a = xp.minimum(xp.maximum(a, _FRESNEL_SPLIT), 1e100)   # (1/2 - 1/(pi x) is 1/2 from 1e17)
        c_tail, s_tail = _in_bands(a, _FRESNEL_SPLIT, _FRESNEL_BANDS, _fresnel_tail)
        return 0.5 - s_tail, 0.5 - c_tail

    with np.errstate(under="ignore", invalid="ignore"):
        s, c = _select_tuple(ax <= _FRESNEL_SPLIT, near, far, ax)
        nan = xp.isnan(x)
        return xp.where(nan, np.nan, xp.copysign(s, x)), xp.where(nan, np.nan, xp.copysign(c, x))


# ----- sinh x / x and its derivatives ------------------------------------------------------------
_SINHC_NEAR = 20.0


def _sinhc_family(n, x):
    """g_n(x) = i_n(x) / x^n (i_n the modified spherical Bessel function): g_0 = sinh x / x, g_n' =
    x g_(n+1).  The series sum_k (x^2 / 2)^k / (k! (2n + 2k + 1)!!) (positive terms) up to
    |x| = 20 + n^2 / 2; beyond, g_(n+1) = (g_(n-1) - (2n + 1) g_n) / x^2 upward from g_(-1) =
    cosh x, whose error grows about e^(n^2 / 2|x|) (below 3 there)."""
    xp = get_array_module(x)
    ax = xp.abs(x)
    reach = _SINHC_NEAR + n * n / 2
    with np.errstate(over="ignore", invalid="ignore"):
        far = xp.where(ax > reach, ax, reach + 1.0)
        half = xp.exp(far * 0.5)                          # sinh, cosh in halves: e^|x| / 2 far out
        previous, current = (half * 0.5) * half, ((half * 0.5) / far) * half
        for m in range(n):
            previous, current = current, (previous - (2 * m + 1) * current) / (far * far)
        near = xp.where(ax <= reach, ax, 0.0)           # (NaN too: 0 here, NaN from the far side)
        u = near * near * 0.5
        term = near * 0.0 + 1.0 / math.prod(range(1, 2 * n + 2, 2))
        total = term
        for k in range(_sinhc_terms(near, n, reach)):
            term = term * u * (1.0 / ((k + 1) * (2 * n + 2 * k + 3)))
            total = total + term
        return xp.where(ax > reach, current, total)


@_in_float64(at=1)
def sinhc_arrays(n, x):
    """g_n(x) on an ndarray."""
    return _sinhc_family(n, x)


def _sinhc_terms(near, n, reach):
    """Series terms g_n needs for its largest entry (on a device: for its reach), to 1e-17."""
    top = reach if is_device_array(near) or not near.size else float(np.max(near))
    u, term, total, k = top * top / 2, 1.0, 1.0, 0
    while term > 1e-17 * total and k < 400:
        term *= u / ((k + 1) * (2 * n + 2 * k + 3))
        total, k = total + term, k + 1
    return k + 1


class Sinhc(Forwarder):
    """g_n(x) = i_n(x) / x^n: n = 0 is sinh x / x (1 at 0), smooth to every order; g_n' = x g_(n+1)."""

    def __init__(self, n=0):
        self.n = n

    def forward(self, x):
        return sinhc_arrays(self.n, x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return gy * x * Function(Sinhc(self.n + 1))(x)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return _sinhc_series(x, self.n, y._data)


def _value(forwarder, x0, arrays):
    """forwarder's value at x0: recorded on a Variable (a recording Taylor pass), else on arrays."""
    return Function(forwarder)(x0) if isinstance(x0, Variable) else arrays(x0)


def _sinhc_series(x, n, y0):
    """Series of g_n along the series x: y' = x g_(n+1)(x) x', that series one order shorter."""
    if len(x) == 1:
        return [y0]
    head = x[:-1]
    below = _sinhc_series(head, n + 1, _value(Sinhc(n + 1), x[0], lambda x0: sinhc_arrays(n + 1, x0)))
    return series.integral(x, y0, series.mul(head, below))


# ----- the ops -----------------------------------------------------------------------------------
class _Integral(Forwarder):
    """An integral of `slope`, x's function: backward gy slope(x), Taylor rule the integral of
    the slope's series along x's.  Its value is one of a pair computed together (`arrays`, part
    `part`): the pair's function hands it in (`value`), or forward computes the pair."""

    part = 0

    def __init__(self, value=None):
        self.value = value

    def forward(self, x):
        value, self.value = self.value, None           # (handed in once: the pair's other half is its twin's)
        return self.arrays(x)[self.part] if value is None else value

    save_for_backward = ("x0",)
    taylor_records = True

    def backward(self, gy):
        x, = self.inputs
        return gy * self.slope(x)

    def taylor(self, x):
        y, = self.outputs
        if len(x) == 1:
            return [y._data]
        return series.integral(x, y._data, self.slope_series(x[:-1]))


class Si(_Integral):
    """Si(x): Si' = sin x / x = sinc(x / pi)."""

    _pointwise = True

    arrays, part = staticmethod(sici_arrays), 0

    def slope(self, x):
        return Function(Sinc())(x * (1 / math.pi))

    def slope_series(self, x):
        u = series.scale(x, 1 / math.pi)
        return _sinc_series(u, 0, _value(Sinc(), u[0], np.sinc))


class Ci(_Integral):
    """ci(x) = Ci(|x|): ci' = cos x / x on both sides."""

    _pointwise = True

    arrays, part = staticmethod(sici_arrays), 1

    def slope(self, x):
        return cos(x) / x

    def slope_series(self, x):
        return series.div(series.sin_cos(x)[1], x)


class Shi(_Integral):
    """Shi(x): Shi' = sinh x / x."""

    _pointwise = True

    arrays, part = staticmethod(shichi_arrays), 0

    def slope(self, x):
        return Function(Sinhc())(x)

    def slope_series(self, x):
        return _sinhc_series(x, 0, _value(Sinhc(), x[0], lambda x0: sinhc_arrays(0, x0)))


class Chi(_Integral):
    """Chi(x) (even, as SciPy's): Chi' = cosh x / x."""

    _pointwise = True

    arrays, part = staticmethod(shichi_arrays), 1

    def slope(self, x):
        return cosh(x) / x

    def slope_series(self, x):
        return series.div(series.sinh_cosh(x)[1], x)


class FresnelS(_Integral):
    """S(x): S' = sin(pi x^2 / 2)."""

    _pointwise = True

    arrays, part = staticmethod(fresnel_arrays), 0

    def slope(self, x):
        return sin(x * x * (math.pi / 2))

    def slope_series(self, x):
        return series.sin_cos(series.scale(series.square(x), math.pi / 2))[self.part]


class FresnelC(FresnelS):
    """C(x): C' = cos(pi x^2 / 2)."""

    _pointwise = True

    part = 1

    def slope(self, x):
        return cos(x * x * (math.pi / 2))


# ----- public functions --------------------------------------------------------------------------
class _Pair(tuple):
    """A pair of Variables with names (sici's si and ci; airy's four too); a Variable's attribute
    asked of the tuple itself (`.backward()`, `.data`) is refused naming the unpacking."""

    __slots__ = ()
    op, names = "", ()

    def __getattr__(self, name):
        if name in type(self).names:
            return self[type(self).names.index(name)]
        if name.startswith("__"):
            raise AttributeError(name)
        names = type(self).names
        both = ", ".join(names)
        count = "a pair of" if len(names) == 2 else f"{len(names)}"
        raise AttributeError(f"V.{type(self).op}(x) returns {count} Variables ({both}), not one: "
                             f"unpack it, {both} = V.{type(self).op}(x), and take .{name} of "
                             f"{'either' if len(names) == 2 else 'one'}")


class SiciResult(_Pair):
    """V.sici's (si, ci)."""

    __slots__ = ()
    op, names = "sici", ("si", "ci")


class ShichiResult(_Pair):
    """V.shichi's (shi, chi)."""

    __slots__ = ()
    op, names = "shichi", ("shi", "chi")


class FresnelResult(_Pair):
    """V.fresnel's (s, c)."""

    __slots__ = ()
    op, names = "fresnel", ("s", "c")


def _pair(x, op, first, second, kind):
    """The two ops of x, the pair's arrays computed once (first.arrays)."""
    x = as_variable(x, op=op)
    one, two = first.arrays(x._data)
    return kind((Function(first(one))(x), Function(second(two))(x)))


def sici(x):
    """The sine and cosine integrals (Si(x), ci(x)), elementwise (scipy.special.sici): Si(x) =
    int_0^x sin t / t dt, odd; ci(x) = gamma + log|x| + int_0^|x| (cos t - 1) / t dt, the real
    part of Ci(x) for x < 0, as SciPy's (-inf at 0; 0 at +-inf, where SciPy gives NaN at -inf).
    Derivatives sin x / x and cos x / x, to any order.  Within a few ulps of 40-digit values,
    ci's error near its zeros a few ulps of the terms that cancel there (3e-16 absolute)."""
    return _pair(x, "sici", Si, Ci, SiciResult)


def shichi(x):
    """The hyperbolic sine and cosine integrals (Shi(x), Chi(x)), elementwise
    (scipy.special.shichi): Shi odd, Chi even (the real part of Chi(x) for x < 0, as SciPy's),
    -inf at 0; both overflow to +-inf from |x| = 717.  Derivatives sinh x / x (smooth at 0,
    an op of its own) and cosh x / x, to any order."""
    return _pair(x, "shichi", Shi, Chi, ShichiResult)


def fresnel(x):
    """Fresnel's integrals (S(x), C(x)) = int_0^x (sin, cos)(pi t^2 / 2) dt, elementwise, in
    SciPy's order (scipy.special.fresnel): both odd, 1/2 at inf.  Derivatives sin(pi x^2 / 2) and
    cos(pi x^2 / 2), to any order.  Within 5e-16 relative of 40-digit values, also for large x
    (the phase from x^2 modulo 4 exactly)."""
    return _pair(x, "fresnel", FresnelS, FresnelC, FresnelResult)
