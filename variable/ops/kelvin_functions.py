"""Kelvin's functions on Variables: scipy.special's ber, bei, ker, kei and their derivatives
berp, beip, kerp, keip, each differentiable to any order.

    ber_n(x) + i bei_n(x) = J_n(x e^(3 pi i / 4)) = i^n I_n(z),
    ker_n(x) + i kei_n(x) = e^(-n pi i / 2) K_n(x e^(pi i / 4)) = (-i)^n K_n(z),   z = x e^(pi i / 4),

so both pairs are Bessel functions of the complex argument z, computed here on NumPy's complex
arrays, relative to |ber_n + i bei_n| (|ker_n + i kei_n|) as J and Y are to their envelope:

- I_n(z): up to |z| = 2 + n its power series; up to 30, I_n(z) e^-z = (1/pi) int_0^pi
  e^(-2z sin^2(t/2)) cos(nt) dt by the trapezoid rule (exponentially convergent for a periodic
  integrand, and no cancellation: |e^(z cos t)| is at most |e^z|); beyond, its asymptotic
  expansion (the neglected e^-2z below 1e-18 there);
- K_0(z), K_1(z): up to 1 Temme's series at order 0 (as bessel.py's _k_temme, complex here);
  beyond, K_m(z) e^z = int_0^inf e^(-z (cosh t - 1)) cosh(mt) dt along the path of steepest
  descent t = u + i v(u), v = atan(tanh u) - atan(sqrt(2) sinh u), on which z (cosh t - 1) is
  real and grows, by the trapezoid rule in u (40 nodes, in real arithmetic); K_n by the
  recurrence upwards, stable for K;
- e^(+-z) with z's phase x / sqrt 2 in two parts (Dekker's product): within 2e-16 of the modulus
  to x = 700, where SciPy's ber is 1.4e-14 off (2.5e-14 at x = 300, 5e-10 at x = 10).

Derivatives: f_n' = (c/2)(f_(n-1) - f_(n+1)), c = e^(3 pi i / 4), for both pairs (f_(-n) =
(-1)^n f_n), so berp = Re(e^(-i pi/4) b_1), and so on.  One op, Kelvin, is the real or
imaginary part of e^(i turn pi/4) f_n: its derivative is two of itself (orders n -+ 1, a
turn 3 further), to any order; Taylor mode pushes the orders n - K .. n + K together.

ber and bei are even (ber_n(-x) = (-1)^n ber_n(x)); ker, kei are NaN below 0 (complex there, as
SciPy's).  At 0: ber = 1, bei = 0, ker = inf, kei = -pi/4, kerp = -inf, keip = 0 (the limits,
also of the orders and turns a derivative reaches; order 3 and above: +-inf); at +inf ker and
kei are 0 (SciPy's: NaN), ber and bei NaN (no limit).
"""

import math

import numpy as np

from .. import series
from ..backend import get_array_module
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike
from .bessel import _k_upwards
from .division import i_expansion, i_power_series
from .implicit import _two_product
from .special import _in_float64, _select, _select_tuple

__all__ = ["ber", "bei", "ker", "kei", "berp", "beip", "kerp", "keip"]

_ROOT = math.sqrt(0.5)
_ROOT_REST = -4.8336466567264567e-17       # 1/sqrt(2) - _ROOT
_EULER = 0.57721566490153286061
_TURNS = [(1.0, 0.0), (_ROOT, _ROOT), (0.0, 1.0), (-_ROOT, _ROOT),
          (-1.0, 0.0), (-_ROOT, -_ROOT), (0.0, -1.0), (_ROOT, -_ROOT)]
"""e^(i m pi / 4) for m = 0 .. 7 (cos, sin), its zeros exact."""

_I_SERIES = 2.0         # I_n's power series up to here
_I_FAR = 30.0           # its asymptotic expansion from here (e^-2z below 1e-18 of e^z)
_I_NODES = 30           # the trapezoid rule's nodes on [0, pi], and two more per order n
_I_TERMS = 30           # the asymptotic expansion's terms (the last below 1e-17 of the first at 30)
_K_SERIES = 1.0         # Temme's series up to here, the integral beyond
_K_NODES = 40           # the trapezoid rule's nodes on [0, u_max]
_K_TAIL = 45.0          # u_max where x (cosh u - 1) = 45: the integrand below e^-45 of its peak


def _z(a):
    """z = a e^(i pi/4) (rounded: the slowly varying parts read it; e^z takes the phase exactly)."""
    r = a * _ROOT
    return r + 1j * r


def _exp_z(a, sign, xp):
    """(h, w) with e^(sign z) = h h w for z = a e^(i pi/4), a >= 0: h = e^(sign a/(2 sqrt 2)) (applied
    twice, so that e^z keeps a product with a small factor finite to a = 1004 and e^-z underflows
    gradually) and w = e^(i sign a / sqrt 2), the phase a / sqrt 2 = high + low exact to 1e-32."""
    high, low = _two_product(a, _ROOT)
    low = low + a * _ROOT_REST
    half = xp.exp(high * (0.5 * sign))
    phase = (xp.cos(high) + 1j * (sign * xp.sin(high))) * (1.0 + sign * (1.0 + 1j) * low)
    return half, phase


def _i_series_terms(n):
    """The terms of I_n's series up to |z| = 2 + n: the last below 1e-19 of the largest."""
    log_u = 2.0 * math.log((_I_SERIES + n) / 2.0)
    logs = [0.0]
    while len(logs) < 8 or logs[-1] > max(logs) - 44.0:
        k = len(logs)
        logs.append(logs[-1] + log_u - math.log(k * (n + k)))
    return len(logs)


def _i_series(n, a, xp):
    """I_n(z) = (z/2)^n sum_k (z^2/4)^k / (k! (n+k)!) for |z| <= 2 + n."""
    return i_power_series(n, _z(a), _i_series_terms(n))


def _i_trapezoid(n, a, xp):
    """I_n(z) e^-z = (1/pi) int_0^pi e^(-2z sin^2(t/2)) cos(nt) dt by the trapezoid rule."""
    z = _z(a)
    nodes = _I_NODES + 2 * n
    total = 0.5 * (1.0 + xp.exp(-2.0 * z) * (-1.0) ** n)
    for j in range(1, nodes):
        t = math.pi * j / nodes
        s = math.sin(t * 0.5)
        total = total + xp.exp(z * (-2.0 * s * s)) * math.cos(n * t)
    return total * (1.0 / nodes)


def _i_asymptotic(n, a, xp):
    """I_n(z) e^-z ~ (2 pi z)^(-1/2) sum_k (-1)^k a_k(n) / z^k, a_k(n) = prod_(j<=k) (4n^2 - (2j-1)^2)
    / (8j)."""
    z = _z(a)
    return i_expansion(n, 1.0 / z, _I_TERMS) / xp.sqrt(2 * math.pi * z)


def _k_series(a, xp):
    """K_0(z), K_1(z) for |z| <= 1 by Temme's series at order 0: f_0 = -(log(z/2) + gamma),
    p_0 = q_0 = 1/2, f_k = (k f_(k-1) + p_(k-1) + q_(k-1)) / k^2, p_k = p_(k-1) / k; K_0 = sum c_k f_k,
    K_1 = (2/z) sum c_k (p_k - k f_k), c_k = (z^2/4)^k / k!."""
    z = _z(a)
    f = -(xp.log(z * 0.5) + _EULER)
    p = 0.5
    u = z * z * 0.25
    c = 1.0
    k0, k1 = f, xp.full_like(z, p)
    for k in range(1, 20):                            # (|u| <= 1/4: c_19 below 1e-28)
        f = (k * f + 2.0 * p) * (1.0 / (k * k))
        c = c * u * (1.0 / k)
        p = p * (1.0 / k)
        k0 = k0 + c * f
        k1 = k1 + c * (p - k * f)
    return k0, k1 * 2.0 / z


def _k_path(a, xp, both=True):
    """K_0(z) e^z and K_1(z) e^z (the second None unless `both`) along the steepest-descent path
    t = u + i v(u), tan v = (tanh u - sqrt(2) sinh u) / (1 + sqrt(2) tanh u sinh u) (v(0) = 0,
    v' = (1 - sqrt(2) cosh u) / cosh 2u), trapezoid rule in u; in real arithmetic: z (cosh t - 1) =
    2z sinh^2(t/2) is real there, 2a (sinh^2(u/2) + sin^2(v/2)), without a cancellation."""
    h = xp.arccosh(1.0 + _K_TAIL / a) * (1.0 / _K_NODES)
    root2 = math.sqrt(2.0)
    k0_re, k0_im = xp.full_like(a, 0.5), xp.full_like(a, 0.5 * (1.0 - root2))   # (u = 0: half a node)
    k1_re, k1_im = (k0_re.copy(), k0_im.copy()) if both else (None, None)
    for j in range(1, _K_NODES + 1):
        u = h * j
        grown = xp.expm1(u)
        sinh = grown * (grown + 2.0) / (2.0 * (grown + 1.0))
        cosh = 1.0 + grown * grown / (2.0 * (grown + 1.0))
        tanh, stretched = sinh / cosh, root2 * sinh
        tan_v = (tanh - stretched) / (1.0 + tanh * stretched)
        cos_v = 1.0 / xp.sqrt(1.0 + tan_v * tan_v)
        sin_v = tan_v * cos_v
        half_squares = sinh * sinh / (2.0 * (1.0 + cosh)) + sin_v * sin_v / (2.0 * (1.0 + cos_v))
        weight = xp.exp(a * (-2.0 * half_squares))
        slope = weight * ((1.0 - root2 * cosh) / (1.0 + 2.0 * sinh * sinh))          # (weight v')
        k0_re, k0_im = k0_re + weight, k0_im + slope
        if both:                                      # (cosh t = cosh u cos v + i sinh u sin v)
            c, s = cosh * cos_v, sinh * sin_v
            k1_re, k1_im = k1_re + (weight * c - slope * s), k1_im + (weight * s + slope * c)
    k0 = (k0_re + 1j * k0_im) * h
    return k0, ((k1_re + 1j * k1_im) * h if both else None)


def _part_at(family, n, turn, imag, a, xp):
    """The real part (or `imag`) of e^(i turn pi/4) f_n(a) for a > 0 (finite), n >= 0: f = b (ber +
    i bei) or k (ker + i kei); turned before e^(+-z) scales it (no inf - inf where it overflows)."""
    unit = 1j ** n if family == "b" else (-1j) ** n

    def part(value, half=None):
        value = value * unit                          # (exact: a power of i)
        value = _turned(value.real, value.imag, turn, imag)
        return value if half is None else (value * half) * half

    if family == "b":
        reach = _I_SERIES + n                         # (the trapezoid rule loses I_0 / I_n below)

        def near(a):
            return part(_i_series(n, xp.minimum(a, reach), xp))

        def beyond(a):
            a = xp.maximum(a, reach)
            scaled = _select_tuple(a <= _I_FAR, lambda a: _split(_i_trapezoid(n, a, xp)),
                                   lambda a: _split(_i_asymptotic(n, xp.maximum(a, _I_FAR), xp)), a)
            half, phase = _exp_z(a, 1.0, xp)
            return part((scaled[0] + 1j * scaled[1]) * phase, half)
        return _select(a <= reach, near, beyond, a)

    def near(a):
        a = xp.minimum(a, _K_SERIES)
        k0, k1 = _k_series(a, xp)
        return part(_k_upwards(k0, k1, n, _z(a)))

    def beyond(a):
        a = xp.maximum(a, _K_SERIES)
        k0, k1 = _k_path(a, xp, both=n > 0)
        half, phase = _exp_z(a, -1.0, xp)
        return part(_k_upwards(k0, k1, n, _z(a)) * phase, half)
    return _select(a <= _K_SERIES, near, beyond, a)


def _split(value):
    return value.real, value.imag


def _turned(re, im, turn, imag):
    """The part of e^(i turn pi/4) (re + i im), a zero coefficient's term left out (0 inf is NaN)."""
    c, s = _TURNS[turn % 8]
    first, second = (s, c) if imag else (c, -s)
    if not second:
        return re * first
    if not first:
        return im * second
    return re * first + im * second


def _at_zero(n, turn, imag):
    """The part (`imag` or real) of e^(i turn pi/4) k_n(x) as x -> 0+, n >= 0: k_0 = -log(x) + ... -
    i pi/4; k_n = L x^-n + N x^(2-n) + ..., L = (-i)^n (n-1)! 2^(n-1) e^(-i n pi/4), N = -(-i)^n (n-2)!
    2^(n-3) e^(-i (n-2) pi/4) (n >= 3): the first nonzero part, +-inf; else the finite limit (0 for
    n = 1, e^(i turn pi/4)/2's part for n = 2)."""
    def part(m):
        c, s = _TURNS[m % 8]
        return s if imag else c
    if n == 0:                                        # (infinite real part, then -i pi/4)
        lead = part(turn)
        return math.copysign(math.inf, lead) if lead else -(math.pi / 4) * part(turn + 2)
    lead = part(turn - 2 * n - n)                     # ((-i)^n e^(-i n pi/4) = e^(-3 i n pi/4))
    if lead:
        return math.copysign(math.inf, lead)
    if n == 1:
        return 0.0
    if n == 2:
        return 0.5 * part(turn)
    return math.copysign(math.inf, part(turn + 6 - 3 * n))        # (N's phase: e^(i (6 - 3n) pi/4))


@_in_float64(at=4)
def kelvin_arrays(family, n, turn, imag, x):
    """The real part (or `imag`) of e^(i turn pi/4) f_n(x) on an ndarray, f = b (ber_n + i bei_n) or
    k (ker_n + i kei_n), any whole n (f_(-n) = (-1)^n f_n)."""
    xp = get_array_module(x)
    sign = -1.0 if n < 0 and n % 2 else 1.0
    n = abs(n)
    with np.errstate(all="ignore"):
        a = xp.abs(x)
        inside = (a > 0) & (a < np.inf)
        safe = xp.where(inside, a, 1.0)
        value = _part_at(family, n, turn, imag, safe, xp)
        if sign < 0:
            value = -value
        if family == "b":
            if n % 2:
                value = xp.where(x < 0, -value, value)
            at_zero = _TURNS[turn % 8][1 if imag else 0] if n == 0 else 0.0
            value = xp.where(x == 0, at_zero, value)
            value = xp.where(xp.isinf(x), np.nan, value)
        else:
            value = xp.where(x == 0, sign * _at_zero(n, turn, imag), value)
            value = xp.where(x == np.inf, 0.0, value)
            value = xp.where(x < 0, np.nan, value)
        return xp.where(xp.isnan(x), np.nan, value)


def _kelvin(family, n, turn, imag, x):
    """Part of e^(i turn pi/4) f_n of `x`: a recorded op on a Variable, the values on an array."""
    if not isinstance(x, Variable):
        return kelvin_arrays(family, n, turn, imag, x)
    return Function(Kelvin(family, n, turn, imag))(x)


class Kelvin(Forwarder):
    """The real part (or `imag`) of e^(i turn pi/4) f_n(x), f_n = ber_n + i bei_n (family "b") or
    ker_n + i kei_n ("k"), whole n: ber is (b, 0, 0, real), berp (b, 1, -1, real), and so on.
    Its derivative is (1/2) of itself at n - 1 minus itself at n + 1, each a turn 3 further."""

    _pointwise = True

    def __init__(self, family, order, turn, imag):
        self.family, self.order, self.turn, self.imag = family, order, turn % 8, imag

    def forward(self, x):
        if x.dtype.kind != "f":                       # (integers and booleans: float64)
            x = x.astype(np.float64)
        return kelvin_arrays(self.family, self.order, self.turn, self.imag, x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        family, n, turn, imag = self.family, self.order, self.turn + 3, self.imag
        if n == 0:                                    # (f_(-1) = -f_1: one op, not two)
            return gy * -_kelvin(family, 1, turn, imag, x)
        return gy * ((_kelvin(family, n - 1, turn, imag, x) - _kelvin(family, n + 1, turn, imag, x)) * 0.5)

    taylor_records = True

    def taylor(self, x):
        # f_j(x(t)) for j = n - K .. n + K as complex series (pairs of real ones): f_j' = g_j x',
        # g_j = (c/2)(f_(j-1) - f_(j+1)), so k f_j,k = sum_i i x_i g_j,(k-i); the output is the
        # part of e^(i turn pi/4) f_n
        y, = self.outputs
        family, n, order = self.family, self.order, len(x) - 1
        x0 = x[0]
        fs = {}
        for j in sorted(range(n - order, n + order + 1), key=abs):
            if -j in fs:                              # (f_(-j) = (-1)^j f_j)
                fs[j] = [fs[-j][0] if j % 2 == 0 else tuple(-part for part in fs[-j][0])]
            else:
                fs[j] = [(_kelvin(family, j, 0, False, x0), _kelvin(family, j, 0, True, x0))]
        slopes = {}

        def slope(j, k):                              # coefficient k of g_j: (c/2) (f_(j-1),k - f_(j+1),k)
            if (j, k) not in slopes:
                (a, b), (p, q) = fs[j - 1][k], fs[j + 1][k]
                re, im = a - p, b - q
                slopes[j, k] = ((re + im) * (-_ROOT / 2), (re - im) * (_ROOT / 2))
            return slopes[j, k]

        for k in range(1, order + 1):
            for j in range(n - (order - k), n + order - k + 1):
                weights = [x[i] if i == k else x[i] * (i / k) for i in range(1, k + 1)]
                gs = [slope(j, k - i) for i in range(1, k + 1)]
                fs[j].append(tuple(series._total([w * g[part] for w, g in zip(weights, gs)])
                                   for part in (0, 1)))
        c, s = _TURNS[self.turn]
        return [y._data] + [(s * re + c * im) if self.imag else (c * re - s * im) for re, im in fs[n][1:]]


def _public(family, order, turn, imag, name, x):
    return Function(Kelvin(family, order, turn, imag))(as_variable(x, op=name))


def ber(x: ArrayLike) -> Variable:
    """Kelvin's function ber(x) = Re J_0(x e^(3 pi i / 4)), elementwise (scipy.special.ber): even,
    1 at 0, growing as e^(x / sqrt 2) / sqrt(2 pi x) with a turning phase (ber(1000) ~ -1.5e305,
    +-inf beyond x ~ 1004; NaN at +-inf, which has no limit).  Differentiable to any order
    (ber' = berp).  Skin effect in round conductors, heat and flow in oscillating pipes."""
    return _public("b", 0, 0, False, "ber", x)


def bei(x: ArrayLike) -> Variable:
    """Kelvin's function bei(x) = Im J_0(x e^(3 pi i / 4)), elementwise (scipy.special.bei): even,
    0 at 0; bei' = beip."""
    return _public("b", 0, 0, True, "bei", x)


def ker(x: ArrayLike) -> Variable:
    """Kelvin's function ker(x) = Re K_0(x e^(pi i / 4)), elementwise (scipy.special.ker): inf at 0,
    decaying as e^(-x / sqrt 2) sqrt(pi / 2x); 0 at +inf (SciPy's: NaN), NaN below 0 (complex
    there, as SciPy's); ker' = kerp."""
    return _public("k", 0, 0, False, "ker", x)


def kei(x: ArrayLike) -> Variable:
    """Kelvin's function kei(x) = Im K_0(x e^(pi i / 4)), elementwise (scipy.special.kei): -pi/4 at
    0, 0 at +inf, NaN below 0; kei' = keip."""
    return _public("k", 0, 0, True, "kei", x)


def berp(x: ArrayLike) -> Variable:
    """ber'(x), elementwise (scipy.special.berp): (ber_1 + bei_1) / sqrt 2 of the first order, odd,
    0 at 0; differentiable again (ber'' = (bei_2 - bei_0) / 2)."""
    return _public("b", 1, -1, False, "berp", x)


def beip(x: ArrayLike) -> Variable:
    """bei'(x), elementwise (scipy.special.beip): (bei_1 - ber_1) / sqrt 2, odd, 0 at 0."""
    return _public("b", 1, -1, True, "beip", x)


def kerp(x: ArrayLike) -> Variable:
    """ker'(x), elementwise (scipy.special.kerp): (ker_1 + kei_1) / sqrt 2, -inf at 0 (~ -1/x), NaN
    below 0."""
    return _public("k", 1, -1, False, "kerp", x)


def keip(x: ArrayLike) -> Variable:
    """kei'(x), elementwise (scipy.special.keip): (kei_1 - ker_1) / sqrt 2, 0 at 0 (~ x log x),
    NaN below 0."""
    return _public("k", 1, -1, True, "keip", x)
