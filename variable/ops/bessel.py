"""Bessel functions of the first and second kind: SciPy's j0, j1, jn, y0, y1 and yn of whole
order, jv and yv (jve, yve) of any real order, and the modified ones of the second kind, k0,
k1, kn, k0e, k1e, and kv and kve of any real order (I_n, the modified ones of the first kind,
are i0 and i1 in division.py and special.py).

J_n and Y_n are computed on NumPy alone, each entry in one of three regions of |x|:

- up to 2, their power series (Y_0 and Y_1 with the logarithmic terms);
- up to T = max(25, the highest order wanted), Miller's recurrence J_(k-1) = (2k/x) J_k -
  J_(k+1) run down from an order N past x (from 0 and 1, so every J_k comes out scaled by one
  unknown factor, fixed by J_0 + 2 (J_2 + J_4 + ...) = 1), and Y_0, Y_1 from the same J_k by
  Neumann's series;
- beyond, Hankel's expansions J, Y = sqrt(2 / (pi x)) (P cos, sin chi -+ Q sin, cos chi), whose
  error there is below 1e-18.

J_n and Y_n of higher n follow from J_0, J_1 (Y_0, Y_1) by the recurrence upwards where it is
stable (Y always, J for n below x; above x J_n comes from Miller's run). On the CPU each
region runs on its own entries; on a device every region runs on every entry (clamped into it)
and `where` picks, so nothing is read back from the device.

K_mu and K_(mu+1) (|mu| <= 1/2, mu = 0 for whole orders) come from Temme's series up to 1,
and beyond from
K_nu(x) = int_0^inf e^(-x cosh t) cosh(nu t) dt by the trapezoid rule on 24 nodes (scaled by
e^x, so K_nu e^x never underflows), which converges exponentially for such an integrand;
K_(mu+n) by the recurrence upwards, stable for K.

J_nu and Y_nu of a real order that is not whole (bessel_real_arrays): nu = n + mu, |mu| <= 1/2;
up to 2, J_nu's power series and Temme's series for Y_mu, Y_(mu+1); up to max(25, nu), Miller's
recurrence gives J's ratios down to mu, and Steed's continued fraction (J_mu' + i Y_mu') /
(J_mu + i Y_mu) with the Wronskian fixes J_mu and Y_mu (Numerical Recipes' bessjy); beyond,
Hankel's expansions at mu and mu + 1; Y_nu (J_nu beyond max(25, nu)) by the recurrence
upwards; a negative order by J_-a = cos(pi a) J_a - sin(pi a) Y_a and Y_-a = sin(pi a) J_a +
cos(pi a) Y_a.

Derivatives: J_n' = (J_(n-1) - J_(n+1)) / 2 and likewise for Y (J_(-1) = -J_1), and
K_n' = -(K_(n-1) + K_(n+1)) / 2 (K_(-1) = K_1), so each derivative is the same op at
neighbouring orders, to any order.
"""

import math

import numpy as np

from .. import numpy_dispatch
from ..backend import get_array_module
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike
from .division import BesselI, ScaledBesselI, neighbour_orders_series
from .piecewise import where
from .special import _each_order, _select, _select_tuple

_SMALL = 2.0            # the power series up to here
_HANKEL = 25.0          # Hankel's expansions from here (or from the highest order wanted)
_HANKEL_TERMS = 24      # P and Q together: the last term below 1e-18 of the first at x = 25
_EULER = 0.57721566490153286061


def _float(x):
    """x in float64 (bessel_arrays casts its result back to x's dtype)."""
    return x.astype(np.float64) if x.dtype != np.float64 else x


def _series(orders, x, want_y=True):
    """J_0..J_orders (and, `want_y`, Y_0 and Y_1) by their power series in x (0 < x <= 2)."""
    xp = get_array_module(x)
    h = x * 0.5
    u = -h * h                                        # (-x^2/4)^k
    js = []
    for n in range(orders + 1):                       # J_n = (x/2)^n sum_k u^k / (k! (k+n)!)
        term = xp.full_like(x, 1.0 / math.factorial(n))
        total = term
        for k in range(1, 18):
            term = term * u * (1.0 / (k * (k + n)))
            total = total + term
        js.append(total * h ** n)
    if not want_y:
        return js, None, None
    log_half = xp.log(h) + _EULER                     # ln(x/2) + gamma
    term, harmonic, rest = xp.ones_like(x), 0.0, xp.zeros_like(x)
    for k in range(1, 18):                            # Y_0 = (2/pi)[(ln(x/2)+gamma) J_0 - sum H_k u^k / k!^2]
        term = term * u * (1.0 / (k * k))
        harmonic += 1.0 / k
        rest = rest - harmonic * term
    y0 = (2 / math.pi) * (log_half * js[0] + rest)
    # Y_1 = -2/(pi x) + (2/pi) ln(x/2) J_1 - (1/pi) sum (psi(k+1) + psi(k+2)) (x/2)^(2k+1) (-1)^k / (k!(k+1)!)
    term, psis, rest = h * 1.0, 1 - 2 * _EULER, h * (1 - 2 * _EULER)
    for k in range(1, 18):
        term = term * u * (1.0 / (k * (k + 1)))
        psis += 1.0 / k + 1.0 / (k + 1)
        rest = rest + psis * term
    y1 = -2 / (math.pi * x) + (2 / math.pi) * xp.log(h) * js[1] - rest / math.pi
    return js, y0, y1


def _miller(orders, x, top, want_y=True):
    """J_0..J_orders (and, `want_y`, Y_0 and Y_1) by Miller's recurrence and Neumann's series
    (2 < x <= top)."""
    xp = get_array_module(x)
    n_start = 2 * ((max(orders, int(top)) + 40) // 2)    # even, past x and the orders wanted
    above, here = xp.zeros_like(x), xp.full_like(x, 1e-30)
    norm, s0, s1 = xp.zeros_like(x), xp.zeros_like(x), xp.zeros_like(x)
    kept = {}
    inverse = 1.0 / x
    rescale = math.lgamma(n_start + 1) > 250 * math.log(10)   # (from 1e-30, growth <= N! for x >= 2)
    for m in range(n_start, -1, -1):                  # `here` is (a multiple of) J_m
        if m <= orders:
            kept[m] = here
        if m % 2 == 0 and m:
            k = m // 2                                # norm = 2 sum J_2k; S0 = sum (-1)^k J_2k / k
            norm = norm + 2 * here
            if want_y:
                s0 = s0 + here * ((-1) ** k / k)
        elif m % 2 and want_y:                        # S1 = sum_k (-1)^k (J_(2k-1) - J_(2k+1)) / k
            k = (m + 1) // 2
            coefficient = (-1) ** k / k - ((-1) ** (k - 1) / (k - 1) if k > 1 else 0.0)
            s1 = s1 + here * coefficient
        if m:
            above, here = here, (inverse * (2 * m)) * here - above
        if rescale and m % 8 == 0 and m:              # (rescale all alike: no overflow)
            factor = xp.where(xp.abs(here) > 1e250, 1e-250, 1.0)
            above, here, norm, s0, s1 = above * factor, here * factor, norm * factor, s0 * factor, s1 * factor
            kept = {j: v * factor for j, v in kept.items()}
    scale = 1.0 / (norm + here)                        # J_0 + 2 sum J_2k = 1
    js = [kept[j] * scale for j in range(orders + 1)]
    if not want_y:
        return js, None, None
    log_half = xp.log(x * 0.5) + _EULER
    y0 = (2 / math.pi) * (log_half * js[0] - 2 * s0 * scale)     # Y_0 = (2/pi)[L J_0 - 2 S0]
    y1 = (2 / math.pi) * (log_half * js[1] - js[0] * inverse + s1 * scale)   # Y_1 = -Y_0'
    return js, y0, y1


def _hankel_order(nu, x):
    """J_nu and Y_nu by Hankel's expansions (x >= 25, |nu| <= 3/2): sqrt(2 / (pi x)) (P cos chi -
    Q sin chi, P sin chi + Q cos chi), chi = x - (nu / 2 + 1/4) pi."""
    xp = get_array_module(x)
    r = 1.0 / x
    c, s = xp.cos(x), xp.sin(x)
    cos_phase, sin_phase = _cos_sin_pi(nu * 0.5 + 0.25)
    cos_chi, sin_chi = c * cos_phase + s * sin_phase, s * cos_phase - c * sin_phase
    p, q, term = xp.ones_like(x), xp.zeros_like(x), 1.0
    power = xp.ones_like(x)
    for k in range(1, _HANKEL_TERMS):                 # a_k = a_(k-1) (4 nu^2 - (2k-1)^2) / (8k)
        term = term * (4 * nu * nu - (2 * k - 1) ** 2) / (8 * k)
        power = power * r
        sign = -1 if (k // 2) % 2 else 1              # (-1)^floor(k/2)
        if k % 2:
            q = q + (sign * term) * power
        else:
            p = p + (sign * term) * power
    amplitude = xp.sqrt((2 / math.pi) * r)
    return amplitude * (p * cos_chi - q * sin_chi), amplitude * (p * sin_chi + q * cos_chi)


def _cos_sin_pi(t):
    """cos(pi t) and sin(pi t) of a number t, exact where they are 0 or +-1 (at multiples of 1/2)."""
    r = math.fmod(t, 2.0)
    if r * 2 == int(r * 2):
        return ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))[int(r * 2) % 4]
    return math.cos(math.pi * r), math.sin(math.pi * r)


def _hankel(x):
    """J_0, J_1, Y_0, Y_1 by Hankel's expansions (x >= 25)."""
    j0, y0 = _hankel_order(0.0, x)
    j1, y1 = _hankel_order(1.0, x)
    return j0, j1, y0, y1


def _upwards(z0, z1, n, x):
    """Z_n from Z_0 and Z_1 by Z_(k+1) = (2k/x) Z_k - Z_(k-1) (stable for Y, and for J below x);
    an infinite Z_k (Y at tiny x) stays as it is."""
    xp = get_array_module(x)
    zs = [z0, z1]
    for k in range(1, n):
        step = (2 * k) / x * zs[k] - zs[k - 1]
        zs.append(xp.where(xp.isinf(zs[k]), zs[k], step))
    return zs[n]


def bessel_arrays(kind, n, x):
    """J_n(x) (kind "j") or Y_n(x) (kind "y") of a whole n on a floating array, in x's dtype (of a
    real order that is not whole: bessel_real_arrays)."""
    if n != int(n):
        return bessel_real_arrays(kind, n, x)
    n = int(n)
    xp = get_array_module(x)
    dtype = x.dtype
    x = _float(x)
    sign = 1.0
    if n < 0:                                         # J_-n = (-1)^n J_n, and Y alike
        n, sign = -n, (-1.0) ** n
    top = max(_HANKEL, float(n))
    y = kind == "y"

    def small(a):
        js, y0, y1 = _series(max(n, 1), xp.minimum(a, _SMALL), y)
        return _upwards(y0, y1, n, a) if y else js[n]

    def middle(a):
        a = xp.clip(a, _SMALL, top)
        js, y0, y1 = _miller(max(n, 1), a, top, y)
        return _upwards(y0, y1, n, a) if y else js[n]

    def far(a):                                       # (far beyond every order: J upwards is stable)
        a = xp.maximum(a, top)
        j0, j1, y0, y1 = _hankel(a)
        return _upwards(y0, y1, n, a) if y else _upwards(j0, j1, n, a)

    def beyond_small(a):
        return _select(a > top, far, middle, a)

    with np.errstate(all="ignore"):
        ax = xp.abs(x)
        safe = xp.where((ax > 0) & xp.isfinite(ax), ax, 1.0)     # (0, inf, NaN: set below)
        value = _select(safe <= _SMALL, small, beyond_small, safe)
        if y:
            value = xp.where(ax == 0, -np.inf, value)
            value = xp.where((x < 0) | xp.isinf(x), np.nan, value)   # (SciPy's: complex below 0)
        else:
            value = xp.where(ax == 0, 1.0 if n == 0 else 0.0, value)
            value = xp.where(xp.isinf(ax), np.nan, value)   # (SciPy's: the phase is undefined)
            if n % 2:
                value = xp.where(x < 0, -value, value)  # J_n(-x) = (-1)^n J_n(x)
        value = xp.where(xp.isnan(x), np.nan, value)
    return (sign * value).astype(dtype if dtype.kind == "f" else np.float64, copy=False)


# ----- J_nu and Y_nu of a real order -------------------------------------------------------------
_STEED_DEPTH = 52
"""Steed's continued fraction from this depth up: exact to the last bit from x = 2 (at depth 40,
8e-16 off there); run from its top (not Lentz's way down), it gathers no rounding of a long
product (which cost 4e-15 at 60 steps)."""


def _temme_y(mu, x):
    """Y_mu(x) and Y_(mu+1)(x) for |mu| <= 1/2 and 0 < x <= 2 by Temme's series (1976), the
    counterpart of _k_temme's: with f_0 = (2/pi) (pi mu / sin(pi mu)) (Gamma_1 cosh e + Gamma_2
    d sinh(e) / e) (d = -log(x/2), e = mu d), p_0 = (x/2)^-mu Gamma(1 + mu) / pi, q_0 =
    (x/2)^mu Gamma(1 - mu) / pi, r = 2 sin(pi mu / 2)^2 / mu and c_k = (-x^2/4)^k / k!,
    -Y_mu = sum_k c_k (f_k + r q_k), -Y_(mu+1) x / 2 = sum_k c_k (p_k - k (f_k + r q_k))."""
    xp = get_array_module(x)
    a = _RECIPROCAL_GAMMA
    gamma1 = -sum(a[k] * mu ** (k - 1) for k in range(1, len(a), 2))
    gamma2 = sum(a[k] * mu ** k for k in range(0, len(a), 2))
    plus, minus = gamma2 - mu * gamma1, gamma2 + mu * gamma1        # 1/Gamma(1+mu), 1/Gamma(1-mu)
    d = -xp.log(x * 0.5)
    e = mu * d
    pi_mu = math.pi * mu
    fact = pi_mu / math.sin(pi_mu) if mu else 1.0
    power = (x * 0.5) ** -mu                                        # e^e, by pow (to an ulp)
    inverse = 1.0 / power
    small = xp.abs(e) < 0.5
    safe_e = xp.where(small, 1.0, e)
    sinhc = xp.where(small, xp.sinh(e) / xp.where(e == 0, 1.0, e), (power - inverse) * 0.5 / safe_e)
    sinhc = xp.where(e == 0, 1.0, sinhc)                            # sinh(e) / e
    f = (2 / math.pi) * fact * (gamma1 * ((power + inverse) * 0.5) + gamma2 * sinhc * d)
    p = power * (1 / (math.pi * plus))
    q = inverse * (1 / (math.pi * minus))
    r = 2 * math.sin(pi_mu * 0.5) ** 2 / mu if mu else 0.0
    total, total_next, c = f + r * q, p, 1.0
    u = x * x * -0.25
    for k in range(1, 21):                            # (|u| <= 1: c_20 below 1e-18)
        f = (k * f + p + q) * (1.0 / (k * k - mu * mu))
        c = c * u * (1.0 / k)
        p = p * (1.0 / (k - mu))
        q = q * (1.0 / (k + mu))
        term = c * (f + r * q)
        total = total + term
        total_next = total_next + (c * p - k * term)
    return -total, total_next * (-2.0) / x


def _j_series_real(nu, x):
    """J_nu(x) = (x/2)^nu / Gamma(nu + 1) sum_k (-x^2/4)^k / (k! (nu + 1)_k), nu >= 0, 0 < x <= 2."""
    xp = get_array_module(x)
    h = x * 0.5
    u = -h * h
    term = total = xp.ones_like(x)
    for k in range(1, 24):                            # (|u| <= 1: the 23rd term below 1e-22)
        term = term * u * (1.0 / (k * (k + nu)))
        total = total + term
    if nu <= 170:
        lead = h ** nu * (1.0 / math.gamma(nu + 1.0))
    else:                                             # (Gamma(nu + 1) overflows)
        lead = xp.exp(nu * xp.log(h) - math.lgamma(nu + 1.0))
    return lead * total


def _steed(mu, x):
    """p + i q = (J_mu' + i Y_mu') / (J_mu + i Y_mu) for x >= 2 (Steed's continued fraction):
    -1/(2x) + i + (i/x) a_1 / (b_1 + a_2 / (b_2 + ...)), a_k = (k - 1/2)^2 - mu^2, b_k = 2 (x + i k)."""
    xp = get_array_module(x)
    tr, ti = xp.zeros_like(x), xp.zeros_like(x)
    for k in range(_STEED_DEPTH, 0, -1):
        a = (k - 0.5) ** 2 - mu * mu
        br, bi = 2.0 * x + tr, 2.0 * k + ti           # b_k + the tail below it
        scale = a / (br * br + bi * bi)
        tr, ti = br * scale, -bi * scale
    inverse = 1.0 / x
    return -0.5 * inverse - ti * inverse, 1.0 + tr * inverse


def _miller_real(n, mu, x, top):
    """(h_(mu+n), h_mu, h_(mu+1)): J at those orders up to one common factor, by J_(k-1) = (2k/x) J_k
    - J_(k+1) run down from the order mu + top + 40 (past x and mu + n), rescaled as it grows."""
    xp = get_array_module(x)
    above, here = xp.zeros_like(x), xp.full_like(x, 1e-30)
    inverse = 1.0 / x
    kept = None
    for j in range(int(top) + 40, 0, -1):             # here = h_(mu+j); a step down to h_(mu+j-1)
        if j == n:
            kept = here
        above, here = here, (inverse * (2 * (mu + j))) * here - above
        if j % 8 == 0:
            factor = xp.where(xp.abs(here) > 1e250, 1e-250, 1.0)
            above, here = above * factor, here * factor
            kept = None if kept is None else kept * factor
    return (here if n == 0 else kept), here, above


def _bessel_jy_real(nu, x):
    """(J_nu(x), Y_nu(x)) for a real nu >= 0 that is not whole, on finite x > 0 (float64).  With
    nu = n + mu, |mu| <= 1/2:
    - x <= 2: J_nu by its power series, Y_mu and Y_(mu+1) by Temme's;
    - 2 < x <= T = max(25, nu): J's ratios by Miller's recurrence down to mu, J_mu'/J_mu among
      them, with Steed's continued fraction for (J_mu' + i Y_mu') / (J_mu + i Y_mu) and the
      Wronskian J Y' - J' Y = 2 / (pi x) giving J_mu and Y_mu themselves (NR's bessjy, 6.7);
    - beyond, J and Y at mu and mu + 1 by Hankel's expansions;
    then Y_nu (and J_nu beyond T, where the order is below x) by the recurrence upwards."""
    xp = get_array_module(x)
    n = int(math.floor(nu + 0.5))
    mu = nu - n
    top = max(_HANKEL, nu)

    def upwards(z0, z1, a):
        zs = [z0, z1]
        for k in range(1, n):
            step = (2 * (mu + k)) / a * zs[k] - zs[k - 1]
            zs.append(xp.where(xp.isinf(zs[k]), zs[k], step))
        return zs[n]

    def small(a):
        a = xp.minimum(a, _SMALL)
        return _j_series_real(nu, a), upwards(*_temme_y(mu, a), a)

    def middle(a):
        a = xp.clip(a, _SMALL, top)
        h_nu, h_mu, h_next = _miller_real(n, mu, a, top)
        f = mu / a - h_next / h_mu                    # J_mu' / J_mu
        p, q = _steed(mu, a)
        gamma = (p - f) / q                           # Y_mu / J_mu (J' = p J - q Y)
        j_mu = xp.sqrt((2 / math.pi) / (a * q * (1.0 + gamma * gamma)))
        j_mu = xp.where(h_mu < 0, -j_mu, j_mu)
        y_mu = gamma * j_mu
        y_next = (mu / a) * y_mu - (q * j_mu + p * y_mu)     # Y_(mu+1) = (mu/x) Y_mu - Y_mu'
        return h_nu * (j_mu / h_mu), upwards(y_mu, y_next, a)

    def far(a):
        a = xp.maximum(a, top)
        j0, y0 = _hankel_order(mu, a)
        j1, y1 = _hankel_order(mu + 1, a)
        return upwards(j0, j1, a), upwards(y0, y1, a)

    def beyond_small(a):
        return _select_tuple(a > top, far, middle, a)

    return _select_tuple(x <= _SMALL, small, beyond_small, x)


def bessel_real_arrays(kind, nu, x):
    """J_nu(x) (kind "j") or Y_nu(x) ("y") of a real order nu that is not whole, on a floating
    array: NaN below 0 and at +-inf (as SciPy's); at 0, J_nu = 0 and Y_nu = -inf for nu > 0.  A
    negative order by J_-a = cos(pi a) J_a - sin(pi a) Y_a, Y_-a = sin(pi a) J_a + cos(pi a) Y_a
    (Y_-(k+1/2) = +-J_(k+1/2): 0 at x = 0, where SciPy's gives -inf)."""
    xp = get_array_module(x)
    dtype = x.dtype
    x = _float(x)
    a = abs(nu)
    with np.errstate(all="ignore"):
        inside = (x > 0) & (x < np.inf)
        safe = xp.where(inside, x, 1.0)
        j, y = _bessel_jy_real(a, safe)
        j = xp.where(x == 0, 0.0, j)
        y = xp.where(x == 0, -np.inf, y)
        if nu < 0:
            cos, sin = _cos_sin_pi(a)
            value = cos * j - sin * y if kind == "j" else sin * j + (cos * y if cos else 0.0)
        else:
            value = j if kind == "j" else y
        value = xp.where(inside | (x == 0), value, np.nan)
    return value.astype(dtype if dtype.kind == "f" else np.float64, copy=False)


# ----- K_n, the modified Bessel functions of the second kind ----------------------------------
_K_SERIES = 1.0         # the power series up to here, the integral beyond
_K_NODES = 24           # the trapezoid rule's nodes on [0, t_max]: error below 1e-17 from x = 1
_K_TAIL = 45.0          # t_max where x (cosh t - 1) = 45: the integrand below e^-45 of its peak


# 1/Gamma(1 + z) = sum_k a_k z^k (Abramowitz and Stegun 6.1.34): Temme's Gamma_1, Gamma_2
_RECIPROCAL_GAMMA = (
    1.0, 0.57721566490153286061, -0.65587807152025388108, -0.042002635034095235529,
    0.1665386113822914895, -0.042197734555544336748, -0.0096219715278769735621,
    0.0072189432466630995424, -0.0011651675918590651121, -0.00021524167411495097282,
    0.00012805028238811618615, -0.000020134854780788238656, -1.2504934821426706573e-6,
    1.1330272319816958824e-6, -2.0563384169776071035e-7, 6.1160951044814158179e-9,
    5.0020076444692229301e-9, -1.1812745704870201446e-9, 1.0434267116911005105e-10,
    7.782263439905071254e-12, -3.6968056186422057082e-12, 5.100370287454475979e-13,
    -2.0583260535665067832e-14, -5.3481225394230179824e-15, 1.2267786282382607902e-15,
    -1.1812593016974587695e-16)


def _k_temme(mu, x):
    """K_mu(x) and K_(mu+1)(x) for |mu| <= 1/2 (0 too: K_0 and K_1) and 0 < x <= 1 by Temme's
    series (1975):
    K_mu = sum_k c_k f_k, K_(mu+1) = (2/x) sum_k c_k (p_k - k f_k), c_k = (x^2/4)^k / k!, with
    f_0 from Gamma_1(mu) = (1/Gamma(1-mu) - 1/Gamma(1+mu)) / (2 mu) and Gamma_2 (their mean),
    p_0 = (x/2)^-mu Gamma(1+mu) / 2, q_0 = (x/2)^mu Gamma(1-mu) / 2, f_k = (k f_(k-1) + p_(k-1)
    + q_(k-1)) / (k^2 - mu^2), p_k = p_(k-1) / (k - mu), q_k = q_(k-1) / (k + mu)."""
    xp = get_array_module(x)
    a = _RECIPROCAL_GAMMA
    gamma1 = -sum(a[k] * mu ** (k - 1) for k in range(1, len(a), 2))
    gamma2 = sum(a[k] * mu ** k for k in range(0, len(a), 2))
    plus, minus = gamma2 - mu * gamma1, gamma2 + mu * gamma1        # 1/Gamma(1+mu), 1/Gamma(1-mu)
    exact = x >= 1e-300                               # (x/2 is exact; below, a subnormal x/2 is not)
    tiny = xp.where(exact, 1.0, x)
    d = xp.where(exact, -xp.log(x * 0.5), math.log(2.0) - xp.log(tiny))
    e = mu * d
    pi_mu = math.pi * mu
    fact = pi_mu / math.sin(pi_mu) if mu else 1.0
    # e^e = (x/2)^-mu by pow, to an ulp (exp(mu d) carries |e| ulps of the rounded e: 3e-14 at
    # x = 1e-270); so cosh e, and sinh e / e where e is not small
    power = xp.where(exact, (x * 0.5) ** -mu, tiny ** -mu * 2.0 ** mu)
    inverse = 1.0 / power
    small = xp.abs(e) < 0.5
    safe_e = xp.where(small, 1.0, e)
    sinhc = xp.where(small, xp.sinh(e) / xp.where(e == 0, 1.0, e), (power - inverse) * 0.5 / safe_e)
    sinhc = xp.where(e == 0, 1.0, sinhc)                            # sinh(e) / e
    f = fact * (gamma1 * ((power + inverse) * 0.5) + gamma2 * sinhc * d)
    p = power * (0.5 / plus)
    q = inverse * (0.5 / minus)
    k_mu, k_next = f, p
    c = 1.0
    u = x * x * 0.25
    for k in range(1, 16):                            # (u <= 1/4: c_15 below 1e-33)
        f = (k * f + p + q) * (1.0 / (k * k - mu * mu))
        c = c * u * (1.0 / k)
        p = p * (1.0 / (k - mu))
        q = q * (1.0 / (k + mu))
        k_mu = k_mu + c * f
        k_next = k_next + c * (p - k * f)
    return k_mu, (k_next * 2.0) / x                  # (2 / x overflows for a subnormal x)


def _k_integral(x, mu=0.0, both=True):
    """K_mu(x) e^x and K_(mu+1)(x) e^x (x >= 1, |mu| <= 1/2; the second None unless `both`) from
    K_nu(x) = int_0^inf e^(-x cosh t) cosh(nu t) dt by the trapezoid rule, which converges
    exponentially here (an integrand analytic in a strip, decaying doubly exponentially); its
    nodes span [0, t_max(x)] (cosh t - 1 = 2 sinh(t/2)^2)."""
    xp = get_array_module(x)
    h = xp.arccosh(1.0 + _K_TAIL / x) * (1.0 / _K_NODES)
    k0 = k1 = xp.full_like(x, 0.5)
    for k in range(1, _K_NODES + 1):
        t = h * k
        half = xp.sinh(t * 0.5)
        weight = xp.exp((-2.0 * x) * (half * half))
        k0 = k0 + (weight * xp.cosh(t * mu) if mu else weight)
        if both:
            k1 = k1 + weight * xp.cosh(t * (mu + 1.0))
    return k0 * h, (k1 * h if both else None)


def bessel_k_arrays(nu, x, scaled=False):
    """K_nu(x) (`scaled`: K_nu(x) e^x) of a real order nu on a floating array, in x's dtype: +inf
    at 0, NaN below 0 (as SciPy's), 0 at +inf; K_(-nu) = K_nu, and K_(mu+k+1) = K_(mu+k-1) +
    (2(mu+k)/x) K_(mu+k) upwards from K_mu and K_(mu+1), mu = nu - round(nu) (stable: K grows
    with the order); K_mu and K_(mu+1) by Temme's series below 1, the integral beyond."""
    xp = get_array_module(x)
    dtype = x.dtype
    x = _float(x)
    nu = abs(nu)
    n = int(math.floor(nu + 0.5))
    mu = nu - n                                       # in [-1/2, 1/2)

    def near(a):
        k0, k1 = _k_temme(mu, xp.minimum(a, _K_SERIES))
        if scaled:
            grow = xp.exp(a)
            k0, k1 = k0 * grow, k1 * grow
        return _k_upwards(k0, k1, n, a, mu)

    def far(a):
        a = xp.maximum(a, _K_SERIES)
        k0, k1 = _k_integral(a, mu, both=n > 0)
        value = _k_upwards(k0, k1, n, a, mu)
        return value if scaled else value * xp.exp(-a)

    with np.errstate(all="ignore"):
        safe = xp.where((x > 0) & (x < np.inf), x, 1.0)   # (0, inf, below 0, NaN: set below)
        value = _select(safe <= _K_SERIES, near, far, safe)
        value = xp.where(x == 0, np.inf, value)
        value = xp.where(x == np.inf, 0.0, value)
        value = xp.where((x < 0) | xp.isnan(x), np.nan, value)
    return value.astype(dtype if dtype.kind == "f" else np.float64, copy=False)


def _k_upwards(k0, k1, n, x, mu=0.0):
    """K_(mu+n) from K_mu and K_(mu+1) (scaled alike) by K_(mu+k+1) = K_(mu+k-1) + (2(mu+k)/x) K_(mu+k)."""
    ks = [k0, k1]
    for k in range(1, n):
        ks.append(ks[k - 1] + (2 * (mu + k)) / x * ks[k])
    return ks[n]


def _bessel(kind, n, x):
    """J_n or Y_n of `x`: a recorded op on a Variable, the values on an array."""
    if not isinstance(x, Variable):
        return bessel_arrays(kind, n, x)
    return Function(BesselJ(n) if kind == "j" else BesselY(n))(x)


class BesselJ(Forwarder):
    """J_n, the Bessel function of the first kind of order n (j0: n = 0, j1: n = 1; jv: real n)."""

    kind = "j"

    def __init__(self, order):
        self.order = order

    def forward(self, x):
        if x.dtype.kind != "f":                       # (integers and booleans: float64)
            x = x.astype(np.float64)
        if self.kind == "y":
            self.zero = x == 0                        # (where backward's neighbours are both -inf)
        return bessel_arrays(self.kind, self.order, x)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        n, kind = self.order, self.kind
        if kind == "y":                               # (at 0, Y_(n-1) - Y_(n+1) is -inf + inf: +inf)
            x = where(self.zero, 1.0, x)
            return gy * where(self.zero, np.inf, (_bessel(kind, n - 1, x) - _bessel(kind, n + 1, x)) * 0.5)
        return gy * ((_bessel(kind, n - 1, x) - _bessel(kind, n + 1, x)) * 0.5)   # (Z_(n-1) - Z_(n+1))/2

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        # y_j = Z_j(x(t)) satisfy y_j' = g_j x' with g_j = (y_(j-1) - y_(j+1)) / 2: the orders
        # from n - K to n + K, pushed together (neighbour_orders_series)
        # (j counts from n: order n + j, a real n too)
        y, = self.outputs
        n, order, kind = self.order, len(x) - 1, self.kind
        x0 = x[0]
        ys = {j: [y._data if j == 0 else _bessel(kind, n + j, x0)] for j in range(-order, order + 1)}
        return neighbour_orders_series(x, ys, 0, -order, lambda ys, j, k: (ys[j - 1][k] - ys[j + 1][k]) * 0.5)


class BesselY(BesselJ):
    """Y_n, the Bessel function of the second kind of order n (y0, y1, yv): the same rules."""

    kind = "y"
    _pointwise = True


_I_LIMIT = 256
"""The highest |v| of iv and ive (kv's): up to 30, I_v's power series and its asymptotic
expansion; beyond, Debye's uniform expansion (_bessel_i_debye)."""


def iv(v: float, x: ArrayLike) -> Variable:
    """The modified Bessel function of the first kind of real order v, elementwise
    (scipy.special.iv): I_(-n) = I_n at whole orders; at a fractional one NaN for x < 0 and
    I_(-a) = I_a + (2/pi) sin(pi a) K_a (so +-inf at 0 for a negative fractional order, with
    the sign of (x/2)^v / Gamma(v + 1) there).  The von Mises-Fisher density on the sphere in d
    dimensions is normalized by I_(d/2 - 1).

    Parameters
    ----------
    v : float or array of floats
        The order, |v| <= 256; not differentiated (a number, not a Variable).  An array of
        orders broadcasts with x, as in SciPy (one op per distinct order).
    x : ArrayLike
        Real data (integers become float64).

    Returns
    -------
    Variable
        I_v(x), of x's shape (broadcast with v's), to about 1e-15 relative; its derivative is
        (iv(v - 1, x) + iv(v + 1, x)) / 2, to any order.
    """
    if _several(v):
        return _each_order(v, x, "iv", lambda order, x: Function(BesselI(_i_order(order, "iv")))(x))
    return Function(BesselI(_i_order(v, "iv")))(as_variable(x, op="iv"))


def ive(v: float, x: ArrayLike) -> Variable:
    """I_v(x) e^(-|x|), the exponentially scaled modified Bessel function of the first kind of
    real order v, elementwise (scipy.special.ive): log I_v(x) = log ive(v, x) + |x| without
    overflow."""
    if _several(v):
        return _each_order(v, x, "ive", lambda order, x: Function(ScaledBesselI(_i_order(order, "ive")))(x))
    return Function(ScaledBesselI(_i_order(v, "ive")))(as_variable(x, op="ive"))


def _i_order(v, op):
    """iv's order: a real number, |v| <= _I_LIMIT; a whole one as BesselI's whole |n| (I_(-n) = I_n)."""
    v = _real_order(v, op, _I_LIMIT)
    return abs(int(v)) if v == int(v) else v


def _bessel_k(n, x, scaled):
    """K_n of `x` (`scaled`: K_n(x) e^x): a recorded op on a Variable, the values on an array."""
    if not isinstance(x, Variable):
        return bessel_k_arrays(n, x, scaled)
    return Function(ScaledBesselK(n) if scaled else BesselK(n))(x)


class BesselK(Forwarder):
    """K_nu, the modified Bessel function of the second kind of real order nu (k0, k1, kn, kv)."""

    scaled = False

    def __init__(self, order):
        self.order = order

    def forward(self, x):
        if x.dtype.kind != "f":                       # (integers and booleans: float64)
            x = x.astype(np.float64)
        if self.scaled:
            self.zero = x == 0                        # (where the scaled slope is -inf + inf)
        return bessel_k_arrays(self.order, x, self.scaled)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        n, scaled = self.order, self.scaled
        if not scaled:                                # -(K_(n-1) + K_(n+1))/2
            return gy * ((_bessel_k(n - 1, x, False) + _bessel_k(n + 1, x, False)) * -0.5)
        y, = self.outputs                             # (K_n e^x)' = (K_n' + K_n) e^x; -inf at 0
        x, y = where(self.zero, 1.0, x), where(self.zero, 1.0, y)       # (not -inf + inf there)
        slope = (_bessel_k(n - 1, x, True) + _bessel_k(n + 1, x, True)) * -0.5 + y
        return gy * where(self.zero, -np.inf, slope)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        # y_j = K_(nu+j)(x(t)) (K e^x scaled) satisfy y_j' = g_j x' with g_j = -(y_(j-1) + y_(j+1))/2
        # (+ y_j scaled): the orders from nu - K to nu + K (j from -K to K), pushed together
        y, = self.outputs
        nu, order, scaled = self.order, len(x) - 1, self.scaled
        x0 = x[0]
        ys = {j: [y._data if j == 0 else _bessel_k(nu + j, x0, scaled)] for j in range(-order, order + 1)}

        def slope(ys, j, k):
            g = (ys[j - 1][k] + ys[j + 1][k]) * -0.5
            return g + ys[j][k] if scaled else g
        return neighbour_orders_series(x, ys, 0, -order, slope)


class ScaledBesselK(BesselK):
    """K_nu(x) e^x (k0e, k1e, kve), which does not underflow; its backward reads its output too."""

    scaled = True
    save_for_backward = ("x", "y")
    _pointwise = True


def _several(v):
    """Whether the order v is an array of orders (a list, tuple or an ndarray of one axis or more)."""
    return isinstance(v, (list, tuple)) or (isinstance(v, np.ndarray) and v.ndim > 0)


def _real_order(v, op, limit=256):
    """The order of kv(v, x): a real number, not differentiated, |v| <= limit."""
    if isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "iuf":   # (SciPy's ufunc may pass one)
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        got = type(v).__name__
        if isinstance(v, Variable):
            got = "a Variable (the order is not differentiated: give v.item())"
        raise TypeError(f"{op}(v, x): v must be a real number, got {got}")
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"{op}(v, x): v must be finite, got {v}")
    if abs(v) > limit:
        raise ValueError(f"{op}(v, x): an order beyond |v| = {limit} is not supported, got {v}")
    return v


def _order(n, op):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        real = {"jn": "jv", "yn": "yv", "kn": "kv"}.get(op)
        raise TypeError(f"{op}(n, x): n must be a whole number (an int), got {type(n).__name__}"
                        + (f" {n!r}" if isinstance(n, (float, np.floating)) else "")
                        + (f"; V.{real}(v, x) takes a real order v" if real else ""))
    if abs(n) > 256:
        raise ValueError(f"{op}(n, x): |n| must be at most 256, got {n}")
    return int(n)


def j0(x: ArrayLike) -> Variable:
    """The Bessel function of the first kind of order 0, elementwise (scipy.special.j0,
    torch.special.bessel_j0); its derivative is -j1(x).

    Parameters
    ----------
    x : ArrayLike
        Real data (integers become float64).

    Returns
    -------
    Variable
        J_0(x), of x's shape, to about 1e-15 absolute (relative away from its zeros).
    """
    return Function(BesselJ(0))(as_variable(x, op="j0"))


def j1(x: ArrayLike) -> Variable:
    """The Bessel function of the first kind of order 1, elementwise (scipy.special.j1,
    torch.special.bessel_j1); its derivative is (j0(x) - jn(2, x)) / 2."""
    return Function(BesselJ(1))(as_variable(x, op="j1"))


def jn(n: int, x: ArrayLike) -> Variable:
    """The Bessel function of the first kind of whole order n, elementwise (scipy.special.jn);
    J_(-n) = (-1)^n J_n (V.jv: a real order).

    Parameters
    ----------
    n : int
        The order, |n| <= 256; not differentiated.
    x : ArrayLike
        Real data (integers become float64).

    Returns
    -------
    Variable
        J_n(x), of x's shape.

    Raises
    ------
    TypeError
        If n is not a whole number (a float order is refused, naming jv / kv, which take one).
    """
    return Function(BesselJ(_order(n, "jn")))(as_variable(x, op="jn"))


def y0(x: ArrayLike) -> Variable:
    """The Bessel function of the second kind of order 0, elementwise (scipy.special.y0,
    torch.special.bessel_y0): -inf at 0, NaN for x < 0 (as SciPy's); its derivative is -y1(x)."""
    return Function(BesselY(0))(as_variable(x, op="y0"))


def y1(x: ArrayLike) -> Variable:
    """The Bessel function of the second kind of order 1, elementwise (scipy.special.y1,
    torch.special.bessel_y1): -inf at 0, NaN for x < 0."""
    return Function(BesselY(1))(as_variable(x, op="y1"))


def yn(n: int, x: ArrayLike) -> Variable:
    """The Bessel function of the second kind of whole order n, elementwise (scipy.special.yn):
    Y_(-n) = (-1)^n Y_n; -inf at 0, NaN for x < 0.

    Raises
    ------
    TypeError
        If n is not a whole number.
    """
    return Function(BesselY(_order(n, "yn")))(as_variable(x, op="yn"))


def k0(x: ArrayLike) -> Variable:
    """The modified Bessel function of the second kind of order 0, elementwise
    (scipy.special.k0, torch.special.modified_bessel_k0): +inf at 0, NaN for x < 0 (as SciPy's);
    its derivative is -k1(x).

    Parameters
    ----------
    x : ArrayLike
        Real data (integers become float64).

    Returns
    -------
    Variable
        K_0(x), of x's shape, to about 1e-15 relative; 0 from about x = 745 (k0e keeps it).
    """
    return Function(BesselK(0))(as_variable(x, op="k0"))


def k1(x: ArrayLike) -> Variable:
    """The modified Bessel function of the second kind of order 1, elementwise
    (scipy.special.k1, torch.special.modified_bessel_k1): +inf at 0, NaN for x < 0; its
    derivative is -(k0(x) + kn(2, x)) / 2."""
    return Function(BesselK(1))(as_variable(x, op="k1"))


def kn(n: int, x: ArrayLike) -> Variable:
    """The modified Bessel function of the second kind of whole order n, elementwise
    (scipy.special.kn, scipy.special.kv at whole orders): K_(-n) = K_n; +inf at 0, NaN for x < 0.

    Parameters
    ----------
    n : int
        The order, |n| <= 256; not differentiated.
    x : ArrayLike
        Real data (integers become float64).

    Returns
    -------
    Variable
        K_n(x), of x's shape (+inf where it overflows, near 0 for large n).

    Raises
    ------
    TypeError
        If n is not a whole number (a float order is refused, naming jv / kv, which take one).
    """
    return Function(BesselK(_order(n, "kn")))(as_variable(x, op="kn"))


def k0e(x: ArrayLike) -> Variable:
    """The exponentially scaled modified Bessel function of the second kind of order 0,
    K_0(x) e^x, elementwise (scipy.special.k0e, torch.special.scaled_modified_bessel_k0):
    log K_0(x) = log k0e(x) - x without underflow."""
    return Function(ScaledBesselK(0))(as_variable(x, op="k0e"))


def k1e(x: ArrayLike) -> Variable:
    """The exponentially scaled modified Bessel function of the second kind of order 1,
    K_1(x) e^x, elementwise (scipy.special.k1e, torch.special.scaled_modified_bessel_k1)."""
    return Function(ScaledBesselK(1))(as_variable(x, op="k1e"))


def kv(v: float, x: ArrayLike) -> Variable:
    """The modified Bessel function of the second kind of real order v, elementwise
    (scipy.special.kv): K_(-v) = K_v; +inf at 0, NaN for x < 0.  Matern kernels and the
    generalized hyperbolic and variance-gamma densities are made of it.

    Parameters
    ----------
    v : float or array of floats
        The order, |v| <= 256; not differentiated (a number, not a Variable).  An array of
        orders broadcasts with x, as in SciPy (one op per distinct order).
    x : ArrayLike
        Real data (integers become float64).

    Returns
    -------
    Variable
        K_v(x), of x's shape (broadcast with v's), to about 1e-15 relative; its derivative is
        -(kv(v - 1, x) + kv(v + 1, x)) / 2, to any order.

    Raises
    ------
    TypeError
        If v is not a number (a Variable order is refused: it is not differentiated).
    """
    if _several(v):
        return _each_order(v, x, "kv", lambda order, x: Function(BesselK(_real_order(order, "kv")))(x))
    return Function(BesselK(_real_order(v, "kv")))(as_variable(x, op="kv"))


def kve(v: float, x: ArrayLike) -> Variable:
    """K_v(x) e^x, the exponentially scaled modified Bessel function of the second kind of real
    order v, elementwise (scipy.special.kve): log K_v(x) = log kve(v, x) - x without underflow."""
    if _several(v):
        return _each_order(v, x, "kve",
                           lambda order, x: Function(ScaledBesselK(_real_order(order, "kve")))(x))
    return Function(ScaledBesselK(_real_order(v, "kve")))(as_variable(x, op="kve"))


def jv(v: float, x: ArrayLike) -> Variable:
    """The Bessel function of the first kind of real order v, elementwise (scipy.special.jv):
    NaN for x < 0 at an order that is not whole (the value is complex there) and at +-inf;
    J_(-a) = cos(pi a) J_a - sin(pi a) Y_a.  Vibrating membranes, diffraction and FM spectra.

    Parameters
    ----------
    v : float or array of floats
        The order, |v| <= 256; not differentiated (a number, not a Variable).  An array of
        orders broadcasts with x, as in SciPy (one op per distinct order).
    x : ArrayLike
        Real data (integers become float64).

    Returns
    -------
    Variable
        J_v(x), of x's shape (broadcast with v's), within about 3e-15 of sqrt(J_v^2 + Y_v^2)
        (relative, away from its zeros; 1e-14 below the turning point at orders near 100); its
        derivative is (jv(v - 1, x) - jv(v + 1, x)) / 2, to any order.
    """
    return _of_real_order(BesselJ, v, x, "jv")


def yv(v: float, x: ArrayLike) -> Variable:
    """The Bessel function of the second kind of real order v, elementwise (scipy.special.yv):
    -inf at 0 for v > 0, NaN for x < 0 and at inf; Y_(-a) = sin(pi a) J_a + cos(pi a) Y_a (so
    Y_(-1/2) = J_(1/2): 0 at 0).  Its derivative is (yv(v - 1, x) - yv(v + 1, x)) / 2."""
    return _of_real_order(BesselY, v, x, "yv")


def jve(v: float, x: ArrayLike) -> Variable:
    """scipy.special.jve on real x: J_v(x) e^(-|Im x|) is J_v(x) itself (V.jv)."""
    return _of_real_order(BesselJ, v, x, "jve")


def yve(v: float, x: ArrayLike) -> Variable:
    """scipy.special.yve on real x: Y_v(x) itself (V.yv)."""
    return _of_real_order(BesselY, v, x, "yve")


def _of_real_order(kind, v, x, op):
    """Z_v(x) for jv and yv (`kind` BesselJ or BesselY), refusals named `op`: the order a real
    number, |v| <= 256 (a whole one an int: jn's and yn's op), or an array of them."""
    def one(order, x):
        order = _real_order(order, op)
        return Function(kind(int(order) if order == int(order) else order))(x)
    if _several(v):
        return _each_order(v, x, op, one)
    return one(v, as_variable(x, op=op))


for _name, _op in (("jv", jv), ("yv", yv), ("jve", jve), ("yve", yve)):   # (scipy.special.jn is jv)
    numpy_dispatch.register_scipy_ufunc(_name, _op)
__all__ = ["j0", "j1", "jn", "y0", "y1", "yn", "jv", "yv", "jve", "yve", "k0", "k1", "kn", "k0e", "k1e", "kv",
           "kve", "iv", "ive"]
