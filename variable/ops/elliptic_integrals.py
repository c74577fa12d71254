"""Carlson's symmetric elliptic integrals, Legendre's incomplete ones and Jacobi's elliptic
functions on Variables: scipy.special's elliprf, elliprd, elliprc, elliprg, elliprj, ellipkinc,
ellipeinc and ellipj, each differentiable in every argument, to any order.

    RF(x, y, z) = 1/2 int_0^inf dt / sqrt((t + x)(t + y)(t + z)),
    RD(x, y, z) = 3/2 int_0^inf dt / (sqrt((t + x)(t + y)) (t + z)^(3/2)),
    RJ(x, y, z, p) = 3/2 int_0^inf dt / (sqrt((t + x)(t + y)(t + z)) (t + p)),

by Carlson's duplication (Numer. Algorithms 10, 1995): with lambda = sqrt(x y) + sqrt(y z) +
sqrt(z x), RF(x, y, z) = RF((x + lambda) / 4, ...) (RD adds 3 / (4^n sqrt(z) (z + lambda)) at
step n, RJ 6 RC(1, 1 + e_n) / (4^n d_n)); the arguments close in on their mean A_n by 4 each
step, and a fifth-order series in (A_0 - x_0) / (4^n A_n) finishes.  Everything is written
with gengrad's ops, so the derivatives (dRF/dz = -RD(x, y, z) / 6, ...) and Taylor rules are
those of the iteration, which converges as it does.  Arguments whose largest is beyond
[2^-900, 2^1000] are first scaled by a power of 4 (RF(4^k x, ...) = 2^-k RF(x, ...)): no
overflow, no step reaching a subnormal, and at most 14 steps (0 and 5e-324 beside 1e100: the
quadratic phase of sqrt, then a factor 4 per step); on the CPU the steps the data needs
(Carlson's bound), on a device 16 (no data read).

    RC(x, y) = RF(x, y, y), for y < 0 Cauchy's principal value sqrt(x / (x - y)) RC(x - y, -y);
    2 RG(x, y, z) = z RF - (x - z)(y - z) RD / 3 + sqrt(x y / z), z the middle of the three
      (every term >= 0);
    F(phi, m) = s RF(c^2, c^2 + (1 - m) s^2, 1),  s = sin phi, c = cos phi;
    E(phi, m) = s RF(...) - (m / 3) s^3 RD(c^2, c^2 + (1 - m) s^2, 1)                 (m < 0),
              = (1 - m) s RF(...) + m (1 - m) s^3 RD(c^2, 1, delta^2) / 3 + m s c / delta
                                                                     (0 <= m <= 1, DLMF 19.25.10),

delta^2 = c^2 + (1 - m) s^2 (1 - m s^2 without its cancellation as m -> 1), every term positive
(F and E near m = 1, phi = pi/2 keep their digits: E(phi, 1) = sin phi), phi reduced to |phi|
<= pi/2 by whole multiples of pi, each adding 2 K(m) (2 E(m)).  SciPy's edges: NaN for m > 1
(as SciPy's, though F is real there for m sin^2 phi <= 1), F(pi/2, 1) = inf, and the others
listed with each function.
"""

import math

import numpy as np

from ..backend import get_array_module, is_device_array
from ..forwarder import as_variable
from ..variable import Variable
from .elementwise import exp, sqrt
from .exponential import log1p
from .inverse_trig import arcsin, arctan
from .piecewise import abs as absolute
from .piecewise import minimum, where
from .special import _AGM_STEPS, _agm_steps, _floats_on_one_device, ellipe, ellipk
from .trigonometric import cos, sin, tanh

__all__ = ["elliprf", "elliprd", "elliprc", "elliprg", "elliprj", "ellipkinc", "ellipeinc", "ellipj"]

_DEVICE_STEPS = 16
"""Duplication steps on a device: the most any (scaled) arguments need is 14 (0, 5e-324, 1e100)."""
_HOST_STEPS = 60
"""The most steps the CPU takes (RF, RD and RJ with p at most _FAR times max(x, y, z) take 14 at
most; with p 10^16 times them the duplication would need 37, 4^-n underflowing from p / x =
10^320: elliprj brings such a p down first)."""
_FAR = 2.0 ** 20
"""elliprj's p beyond this times max(x, y, z) is brought down (DLMF 19.21.10, x the smallest):
(p - x) RJ(p) + (p'' - x) RJ(p'') = 3 RF(x, y, z) - 3 sqrt(x) RC(y z, p p''), (p - x)(p'' - x) =
(y - x)(z - x), so p'' is near x (x, y, z evolve in the duplication as RF's, and p would come
down by 4 a step only, 37 steps at p / z = 10^16, where a device's 16 were 99% off)."""
READ_STEPS = True
"""On the CPU, take the steps the data needs (False: _DEVICE_STEPS, and ellipj's AGM special.py's
_AGM_STEPS, as a device does; the device tests compare the two paths bit for bit so)."""
_STOP_RF = (3 * 2.0 ** -53) ** (-1 / 6)
_STOP_RD = (2.0 ** -53 / 4) ** (-1 / 6)
"""Carlson's bound: after n steps the series' error is below 2^-53 once 4^-n Q < A_n, Q this
constant times the largest |A_0 - x_0| (RF's error (3 r)^-1/6, RD's (r / 4)^-1/6 for r = 2^-53)."""
_NEGLIGIBLE = 2.0 ** -900
"""RG(x, y, z) with two arguments below this (the largest near 1) is sqrt(z) / 2 to 1e-268: RD(x,
y, z) there would overflow where (x - z)(y - z) RD(x, y, z) does not."""
_PI_HIGH, _PI_LOW = math.pi, 1.2246467991473532e-16           # pi = _PI_HIGH + _PI_LOW to 1e-32


def _floats(op, *xs):
    """xs as floating Variables on one device (a Python number in the first array's floating
    dtype: float32 stays float32), their data broadcast together, and the module."""
    xs = _floats_on_one_device(op, *xs)
    xp = get_array_module(xs[0].data)
    try:
        arrays = xp.broadcast_arrays(*[x.data for x in xs])
    except ValueError:
        shapes = " and ".join(str(x.shape) for x in xs)
        raise ValueError(f"{op}: shapes {shapes} cannot be broadcast together") from None
    return xs, arrays, xp


def _half_exponent(top, xp, highest):
    """The k of the scale 4^-k bringing `top` to [1/2, 2) where it is beyond [2^-900,
    2^highest], 0 elsewhere (an int array)."""
    _, exponent = xp.frexp(top)
    return xp.where((exponent > highest) | (exponent < -900), exponent // 2, 0)


def _carlson(x, y, z, rf=True, rd=False, p=None):
    """RF(x, y, z), RD(x, y, z) and RJ(x, y, z, p) (a tuple of those asked for: RJ with p) on
    gengrad's ops, for finite x, y, z >= 0 of which at most one is 0 (z > 0 for RD, p > 0 for
    RJ): one duplication from arguments scaled where the largest is beyond [2^-900, 2^1000] to
    [1/2, 2) (below 2^-900 the steps would reach subnormals, above 2^1000 x + lambda overflow;
    between, scaling would lose a small argument that a far larger one makes vanish: RF(0,
    1e-300, 1e300) = 7e-148 is log(z / y) / sqrt(z)), until Carlson's bound holds for every entry
    (a device: _DEVICE_STEPS).  RJ's sum takes 4^-n RC(1, 1 + e_n) / d_n, d_n = (sqrt p_n + sqrt
    x_n)(...)(...), e_n = prod (p_0 - x_0) 4^-n / (sqrt p_n + sqrt x_n)^2 (no cancellation, no
    overflow: each factor is below 1)."""
    xp = get_array_module(x.data)
    top = xp.maximum(xp.maximum(x.data, y.data), z.data)
    if p is not None:
        top = xp.maximum(top, p.data)
    half = _half_exponent(top, xp, 1000)
    scale = xp.ldexp(xp.ones_like(top), -2 * half)                  # 4^-half, exact
    x, y, z = x * scale, y * scale, z * scale
    means = {}
    if rf:
        means["rf"] = (x + y + z) * (1 / 3)
    if rd:
        means["rd"] = (x + y + z * 3.0) * 0.2
    if p is not None:
        p = p * scale
        means["rj"] = (x + y + z + p * 2.0) * 0.2
        spread = [p - v for v in (x, y, z)]
    starts = [v for v in (x, y, z, p) if v is not None]
    device = is_device_array(top) or not READ_STEPS
    if not device:
        bound, smallest = 0.0, np.inf
        for key, a in means.items():
            gap = np.max([abs(a.data - v.data) for v in starts], axis=0)
            bound = np.maximum(bound, (_STOP_RF if key == "rf" else _STOP_RD) * gap)
            smallest = np.minimum(smallest, a.data)
    gaps = {key: [a - v for v in starts] for key, a in means.items()}
    total, third, power, n = 0.0, 0.0, 1.0, 0
    most = _DEVICE_STEPS if device else _HOST_STEPS
    while n < most and (device or not bool(np.all(bound * power < smallest))):
        sx, sy, sz = sqrt(x), sqrt(y), sqrt(z)
        lam = sx * (sy + sz) + sy * sz
        if rd:
            total = total + power / sz / (z + lam)        # (no product: z^(3/2) overflows from 2^683)
        if p is not None:
            sp = sqrt(p)
            sums = [sp + sx, sp + sy, sp + sz]
            e = spread[0] * power / (sums[0] * sums[0])
            for d, s in zip(spread[1:], sums[1:]):
                e = e * (d * power / (s * s))
            near = [minimum(sp, s) * 2.0 / (sp + s) for s in (sx, sy, sz)]   # 1 - |factor|, each
            rest = near[0] + (1.0 - near[0]) * (near[1] + (1.0 - near[1]) * near[2])   # 1 - |e|
            third = third + power / sums[0] / sums[1] / sums[2] * _rc_one(e, rest)
            p = (p + lam) * 0.25
        x, y, z = (x + lam) * 0.25, (y + lam) * 0.25, (z + lam) * 0.25
        means = {key: (a + lam) * 0.25 for key, a in means.items()}
        power, n = power * 0.25, n + 1
        if not device:
            smallest = smallest * 0.25 + lam.data * 0.25
    unscale = xp.ldexp(xp.ones_like(top), -half)                     # 2^-half
    values = []
    if rf:
        a = means["rf"]
        big_x, big_y = gaps["rf"][0] * power / a, gaps["rf"][1] * power / a
        xy, big_z = big_x * big_y, -(big_x + big_y)
        e2, e3 = xy - big_z * big_z, xy * big_z
        series = 1.0 - e2 * 0.1 + e3 * (1 / 14) + e2 * e2 * (1 / 24) - e2 * e3 * (3 / 44)
        values.append(series / sqrt(a) * unscale)
    for key, last in (("rd", 3.0), ("rj", 6.0)):
        if key not in means:
            continue
        a = means[key]
        big_x, big_y, big_z = (gap * power / a for gap in gaps[key][:3])
        if key == "rd":                               # (X + Y + 3 Z = 0; RJ's P plays Z's part)
            big_p, xyz = (big_x + big_y) * (-1 / 3), big_x * big_y
            e2, e3 = xyz - big_p * big_p * 6.0, (xyz * 3.0 - big_p * big_p * 8.0) * big_p
            e4, e5 = (xyz - big_p * big_p) * big_p * big_p * 3.0, xyz * big_p * big_p * big_p
        else:
            big_p = (big_x + big_y + big_z) * -0.5
            xyz, pp = big_x * big_y * big_z, big_p * big_p
            e2 = big_x * big_y + big_x * big_z + big_y * big_z - pp * 3.0
            e3 = xyz + e2 * big_p * 2.0 + pp * big_p * 4.0
            e4 = (xyz * 2.0 + e2 * big_p + pp * big_p * 3.0) * big_p
            e5 = xyz * pp
        series = (1.0 - e2 * (3 / 14) + e3 * (1 / 6) + e2 * e2 * (9 / 88) - e4 * (3 / 22)
                  - e2 * e3 * (9 / 52) + e5 * (3 / 26))
        value = series * power / a / sqrt(a) + (total if key == "rd" else third) * last
        values.append(value * unscale * unscale * unscale)             # (2^-3half could overflow)
    return tuple(values)


def _rc_one(e, rest):
    """RC(1, 1 + e) = atan(sqrt e) / sqrt e for e > -1, below 0 atanh(r) / r = log1p(2 r (1 + r) /
    (1 + e)) / (2 r), r = sqrt(-e), with 1 + e = `rest` to every digit as e -> -1 (where 1 + e in
    floats would be 0: RJ(0, 1e100, 1e-100, 1)); by its series sum (-e)^k / (2k + 1) where |e| <
    1e-3 (8 terms: 1e-26)."""
    xp = get_array_module(e.data)
    small = xp.abs(e.data) < 1e-3
    above = ~small & (e.data > 0)
    t = where(small, e, 0.0)
    series = 1 / 15
    for k in range(6, -1, -1):
        series = 1.0 / (2 * k + 1) - t * series
    root = sqrt(where(above, e, 1.0))
    below = ~small & ~above
    inverse = sqrt(where(below, -e, 0.25))
    logarithm = log1p(inverse * (inverse + 1.0) * 2.0 / where(below, rest, 0.75)) * 0.5
    return where(small, series, where(above, arctan(root) / root, logarithm / inverse))


def _in_order(x, y, z):
    """x, y, z sorted entrywise by their data, (low, middle, high): a permutation of the three at
    every entry, ties broken by position, so each argument's gradient reaches that argument
    (RG's and RJ's formulas want the middle one, RJ's principal value all three in order)."""
    a, b, c = x.data, y.data, z.data
    ranks = ((b < a).astype(np.int8) + (c < a), (a <= b).astype(np.int8) + (c < b),
             (a <= c).astype(np.int8) + (b <= c))
    return tuple(where(ranks[0] == i, x, where(ranks[1] == i, y, z)) for i in range(3))


def _outside_values(xp, inside, values, dtype):
    """The edge values as an array of the result's dtype (only where not `inside` matters)."""
    return xp.where(inside, 0.0, values).astype(dtype, copy=False)


def _safe(inside, *xs):
    """Each of xs where `inside`, 1 elsewhere (the edges get their values apart)."""
    return [where(inside, x, 1.0) for x in xs]


def elliprf(x: Variable, y: Variable, z: Variable) -> Variable:
    """Carlson's RF(x, y, z) = 1/2 int_0^inf ((t + x)(t + y)(t + z))^(-1/2) dt, elementwise with
    broadcasting (scipy.special.elliprf, real arguments), differentiable in each (dRF/dx =
    -RD(y, z, x) / 6), to any order.  SciPy's edges: NaN below 0 or for NaN, 0 where one is inf,
    inf where two are 0."""
    (x, y, z), (p, q, r), xp = _floats("elliprf", x, y, z)
    with np.errstate(invalid="ignore"):
        bad = (p != p) | (q != q) | (r != r) | (p < 0) | (q < 0) | (r < 0)
        infinite = (p == np.inf) | (q == np.inf) | (r == np.inf)
        zeros = (p == 0).astype(np.int8) + (q == 0) + (r == 0)
    inside = ~bad & ~infinite & (zeros <= 1)
    edge = xp.where(bad, np.nan, xp.where(infinite, 0.0, np.inf))
    value, = _carlson(*_safe(inside, x, y, z))
    return where(inside, value, _outside_values(xp, inside, edge, value.dtype))


def elliprd(x: Variable, y: Variable, z: Variable) -> Variable:
    """Carlson's RD(x, y, z) = 3/2 int_0^inf ((t + x)(t + y))^(-1/2) (t + z)^(-3/2) dt, elementwise
    with broadcasting (scipy.special.elliprd, real arguments), differentiable in each, to any
    order.  SciPy's edges: NaN below 0 or for NaN, inf at z = 0 (else 0 where one is inf), inf
    where x = y = 0."""
    (x, y, z), (p, q, r), xp = _floats("elliprd", x, y, z)
    with np.errstate(invalid="ignore"):
        bad = (p != p) | (q != q) | (r != r) | (p < 0) | (q < 0) | (r < 0)
        infinite = (p == np.inf) | (q == np.inf) | (r == np.inf)
        pole = (r == 0) | ((p == 0) & (q == 0))
    inside = ~bad & ~infinite & ~pole
    edge = xp.where(bad, np.nan, xp.where(r == 0, np.inf, xp.where(infinite, 0.0, np.inf)))
    value, = _carlson(*_safe(inside, x, y, z), rf=False, rd=True)
    return where(inside, value, _outside_values(xp, inside, edge, value.dtype))


def elliprc(x: Variable, y: Variable) -> Variable:
    """Carlson's RC(x, y) = RF(x, y, y), elementwise with broadcasting (scipy.special.elliprc,
    real arguments): for y < 0 Cauchy's principal value sqrt(x / (x - y)) RC(x - y, -y);
    differentiable in both, to any order.  RC(x, y) = acos(sqrt(x / y)) / sqrt(y - x) for x < y,
    acosh(sqrt(x / y)) / sqrt(x - y) above.  SciPy's edges: NaN for x < 0, y = 0 or NaN, 0 where
    y is +-inf or x = inf (y > 0; NaN for y < 0) and at x = 0 for y < 0."""
    (x, y), (p, q), xp = _floats("elliprc", x, y)
    with np.errstate(invalid="ignore"):
        bad = (p != p) | (q != q) | (p < 0) | (q == 0) | ((p == np.inf) & (q < 0))
        zero = (abs(q) == np.inf) | (p == np.inf) | ((p == 0) & (q < 0))
    inside = ~bad & ~zero
    edge = xp.where(bad, np.nan, 0.0)
    x, y = _safe(inside, x, y)
    negative = inside & (q < 0)
    shifted = where(negative, x - y, x)
    positive = where(negative, -y, y)
    factor = where(negative, sqrt(where(negative, x, 1.0) / where(negative, shifted, 1.0)), 1.0)
    value = _carlson(shifted, positive, positive)[0] * factor
    return where(inside, value, _outside_values(xp, inside, edge, value.dtype))


def elliprg(x: Variable, y: Variable, z: Variable) -> Variable:
    """Carlson's RG(x, y, z) = 1/(4 pi) int int sqrt(x sin^2 t cos^2 u + y sin^2 t sin^2 u +
    z cos^2 t) sin t dt du, elementwise with broadcasting (scipy.special.elliprg, real
    arguments), differentiable in each, to any order: 2 RG = z RF - (x - z)(y - z) RD / 3 +
    sqrt(x y / z) with z the middle of the three.  An ellipsoid of semi-axes a, b, c has the
    surface 4 pi RG(b^2 c^2, c^2 a^2, a^2 b^2).  SciPy's edges: NaN below 0 or for NaN, inf where
    one is inf, sqrt(t) / 2 where two are 0."""
    (x, y, z), (p, q, r), xp = _floats("elliprg", x, y, z)
    with np.errstate(invalid="ignore"):
        bad = (p != p) | (q != q) | (r != r) | (p < 0) | (q < 0) | (r < 0)
        infinite = (p == np.inf) | (q == np.inf) | (r == np.inf)
    inside = ~bad & ~infinite
    x, y, z = _safe(inside, x, y, z)
    _, exponent = xp.frexp(xp.maximum(xp.maximum(x.data, y.data), z.data))
    half = exponent // 2                                    # the largest scaled to [1/2, 2)
    x, y, z = (v * xp.ldexp(xp.ones_like(half, dtype=x.dtype), -2 * half) for v in (x, y, z))
    p, q, r = x.data, y.data, z.data
    zeros = (p < _NEGLIGIBLE).astype(np.int8) + (q < _NEGLIGIBLE) + (r < _NEGLIGIBLE)
    two_zeros = zeros >= 2
    alone = where(two_zeros, x + y + z, 1.0)                # RG(0, 0, t) = sqrt(t) / 2
    low, mid, high = _in_order(*_safe(~two_zeros, x, y, z))
    rf, rd = _carlson(low, high, mid, rd=True)
    value = mid * rf - (low - mid) * rd * (high - mid) * (1 / 3) + sqrt(low) * sqrt(high) / sqrt(mid)
    value = where(two_zeros, sqrt(alone), value) * (0.5 * xp.ldexp(xp.ones_like(p), half))
    edge = xp.where(bad, np.nan, np.inf)
    return where(inside, value, _outside_values(xp, inside, edge, value.dtype))


def _legendre(phi, m, op):
    """The common part of F(phi, m) and E(phi, m): the Variables, their data, the module, the
    whole multiples k of pi taken from phi (a constant array), and s = sin psi, c = |cos psi|,
    delta^2 = c^2 + (1 - m) s^2 of the reduced psi = phi - k pi (|psi| <= pi/2) on the entries
    `inside` (finite phi, finite m <= 1; others get phi = m = 0.5)."""
    (phi, m), (p, q), xp = _floats(op, phi, m)
    with np.errstate(invalid="ignore"):
        inside = (abs(p) < np.inf) & (q <= 1) & (q > -np.inf)
        k = xp.where(inside, xp.round(p * (1 / math.pi)), 0.0)
    phi, m = where(inside, phi, 0.5), where(inside, m, 0.5)
    psi = phi - k * _PI_HIGH - k * _PI_LOW
    s, c = sin(psi), absolute(cos(psi))
    delta2 = c * c + (1.0 - m) * (s * s)
    return phi, m, p, q, xp, inside, k, s, c, delta2


def _periods(value, m, k, xp, complete):
    """value + 2 k K(m) (E(m) with `complete` = ellipe): K or E only where k != 0 (on the CPU
    only when some k is)."""
    if not (is_device_array(k) or bool(k.any())):
        return value
    turned = k != 0
    whole = complete(where(turned, m, 0.5))
    return value + where(turned, whole * (2.0 * k), 0.0)


def ellipkinc(phi: Variable, m: Variable) -> Variable:
    """The incomplete elliptic integral of the first kind F(phi, m) = int_0^phi (1 - m sin^2 t)^(-1/2)
    dt, elementwise with broadcasting (scipy.special.ellipkinc, parameter m = k^2), as sin(phi)
    RF(cos^2 phi, 1 - m sin^2 phi, 1), differentiable in phi and m, to any order (dF/dphi =
    (1 - m sin^2 phi)^(-1/2)).  A pendulum released at theta_0 takes sqrt(L / g) F(phi, sin^2(
    theta_0 / 2)) to reach theta with sin(theta / 2) = sin(theta_0 / 2) sin(phi).  SciPy's
    edges: NaN for m > 1 or NaN, +-inf at phi = +-inf, F(+-pi/2, 1) = +-inf (and beyond), 0 at
    m = -inf (NaN for phi = +-inf)."""
    phi, m, p, q, xp, inside, k, s, c, delta2 = _legendre(phi, m, "ellipkinc")
    with np.errstate(invalid="ignore"):
        pole = inside & (q == 1) & ((k != 0) | (abs(p) >= math.pi / 2))
        edge = xp.where((q <= 1) & (abs(p) == np.inf) & (q > -np.inf) | pole, xp.sign(p) * np.inf,
                        xp.where((q == -np.inf) & (abs(p) < np.inf), 0.0, np.nan))
    inside = inside & ~pole
    rf, = _carlson(c * c, delta2, as_variable(xp.ones_like(p)))
    value = _periods(s * rf, m, xp.where(inside, k, 0.0), xp, ellipk)
    return where(inside, value, _outside_values(xp, inside, edge, value.dtype))


def ellipeinc(phi: Variable, m: Variable) -> Variable:
    """The incomplete elliptic integral of the second kind E(phi, m) = int_0^phi (1 - m sin^2
    t)^(1/2) dt, elementwise with broadcasting (scipy.special.ellipeinc, parameter m = k^2), by
    Carlson's RF and RD (for 0 <= m <= 1 three positive terms, DLMF 19.25.10: E(phi, 1) = sin
    phi keeps its digits), differentiable in phi and m, to any order (dE/dphi = (1 - m sin^2
    phi)^(1/2), dE/dm = (E - F) / (2m)).  An ellipse x = a sin t, y = b cos t (b <= a) has the
    arc a E(phi, 1 - b^2 / a^2) from t = 0 to phi.  SciPy's edges: NaN for m > 1 or NaN, +-inf
    at phi = +-inf and at m = -inf (inf at phi = 0 there, as SciPy's)."""
    phi, m, p, q, xp, inside, k, s, c, delta2 = _legendre(phi, m, "ellipeinc")
    with np.errstate(invalid="ignore"):
        edge = xp.where(((q <= 1) & (abs(p) == np.inf)) | (q == -np.inf) & (p == p),
                        xp.where(p < 0, -np.inf, np.inf), np.nan)
        negative = q < 0
    outer = where(negative, 0.0, m)                     # m on [0, 1] (the third term's), 0 below
    ones = as_variable(xp.ones_like(p))
    rf, rd = _carlson(c * c, where(negative, delta2, ones), where(negative, ones, delta2), rd=True)
    square = s * s
    third = where(negative, -m, outer * (1.0 - m)) * (1 / 3)
    value = s * (rf * (1.0 - outer) + square * rd * third + outer * c / sqrt(delta2))
    value = _periods(value, m, k, xp, ellipe)
    return where(inside, value, _outside_values(xp, inside, edge, value.dtype))


def ellipj(u: Variable, m: Variable) -> tuple[Variable, Variable, Variable, Variable]:
    """Jacobi's elliptic functions sn, cn, dn and the amplitude ph = am(u, m) (F(ph, m) = u),
    elementwise with broadcasting (scipy.special.ellipj: a tuple of four Variables), each
    differentiable in u and m, to any order: sn' = cn dn, cn' = -sn dn, dn' = -m sn cn in u.  A
    pendulum released at theta_0 is at theta(t) = 2 asin(k sn(sqrt(g / L) t + K, k^2)), k =
    sin(theta_0 / 2).  By the arithmetic-geometric mean from (1, sqrt(1 - m)) (Abramowitz and
    Stegun 16.4.3: ph_N = 2^N a_N u, ph_(n-1) = (ph_n + asin(c_n / a_n sin ph_n)) / 2) on
    gengrad's ops, c_(n+1) = c_n^2 / (4 a_(n+1)) to every digit (as a_n - b_n it would be rounding
    that the derivatives in u multiply by (2^n a_n u)^k), dn = sqrt(cn^2 + (1 - m) sn^2) (no
    cancellation as m -> 1, nor 0 / 0 at cn = 0 as in cn / cos(ph_1 - ph)); at m = 1
    tanh u, sech u, sech u and the Gudermannian 2 atan(tanh(u / 2)).  SciPy's edges: NaN for m
    outside [0, 1] and for u = +-inf."""
    (u, m), (p, q), xp = _floats("ellipj", u, m)
    with np.errstate(invalid="ignore"):
        inside = (abs(p) < np.inf) & (q >= 0) & (q < 1)
        one = (abs(p) < np.inf) & (q == 1)
    at_one = where(one, u, 0.5)
    u, m = where(inside, u, 0.5), where(inside, m, 0.5)
    a, b, ratios = 1.0, sqrt(1.0 - m), []
    c = m / ((b + 1.0) * 2.0)                                   # c_1 = (1 - sqrt(1 - m)) / 2
    for n in range(_agm_steps(b.data) if READ_STEPS else _AGM_STEPS):
        a, b = (a + b) * 0.5, sqrt(a * b)
        if n:
            c = c * c / (a * 4.0)                               # (a_(n-1) - b_(n-1)) / 2, no cancellation
        ratios.append(c / a)
    phi = u * a * float(2 ** len(ratios))
    for ratio in reversed(ratios):
        phi = (phi + arcsin(ratio * sin(phi))) * 0.5
    sn, cn = sin(phi), cos(phi)
    dn = sqrt(cn * cn + (1.0 - m) * (sn * sn))                 # (two terms >= 0: no cancellation)
    decay = exp(-absolute(at_one))                              # sech u = 2 e^-|u| / (1 + e^-2|u|)
    sech = decay * 2.0 / (1.0 + decay * decay)
    limits = (tanh(at_one), sech, sech, arctan(tanh(at_one * 0.5)) * 2.0)
    nan = xp.where(inside | one, 0.0, np.nan).astype(sn.dtype, copy=False)
    return tuple(where(inside, value, where(one, limit, nan))
                 for value, limit in zip((sn, cn, dn, phi), limits))


def elliprj(x: Variable, y: Variable, z: Variable, p: Variable) -> Variable:
    """Carlson's RJ(x, y, z, p) = 3/2 int_0^inf ((t + x)(t + y)(t + z))^(-1/2) / (t + p) dt,
    elementwise with broadcasting (scipy.special.elliprj, real arguments), differentiable in
    each, to any order; RJ(x, y, z, z) = RD(x, y, z).  For p < 0 Cauchy's principal value, from
    x <= y <= z and q = -p (DLMF 19.20.14): (y + q) RJ(x, y, z, -q) = (p' - y) RJ(x, y, z, p') -
    3 RF(x, y, z) + 3 sqrt(x y z / (x z + p' q)) RC(x z + p' q, p' q), p' = y + (z - y)(y - x) /
    (y + q), with x, y, z scaled alone and q met in ratios where it is beyond 2^20 max(x, y, z);
    p above 2^20 max(x, y, z) brought down as _FAR says.  SciPy's edges: NaN below 0
    (x, y, z) or for NaN; inf where two of x, y, z are 0;
    at p = 0 NaN (0 where one is inf); else 0 where one is +-inf."""
    (x, y, z, p), (a, b, c, d), xp = _floats("elliprj", x, y, z, p)
    with np.errstate(invalid="ignore"):
        bad = (a != a) | (b != b) | (c != c) | (d != d) | (a < 0) | (b < 0) | (c < 0)
        infinite = (a == np.inf) | (b == np.inf) | (c == np.inf) | (abs(d) == np.inf)
        zeros = (a == 0).astype(np.int8) + (b == 0) + (c == 0)
        edge = xp.where(bad, np.nan, xp.where(
            zeros >= 2, xp.where((d == 0) & infinite, 0.0, xp.where(d == 0, np.nan, np.inf)),
            xp.where(d == 0, xp.where(infinite, 0.0, np.nan), 0.0)))
    inside = ~bad & ~infinite & (zeros <= 1) & (d != 0)
    x, y, z, p = _safe(inside, x, y, z, p)
    with np.errstate(invalid="ignore"):
        reach = _FAR * xp.maximum(xp.maximum(a, b), c)
        far, sink = inside & (d > reach), inside & (-d > reach)
    negative = inside & (d < 0) & ~sink
    if not (is_device_array(d) or bool(negative.any()) or bool(far.any()) or bool(sink.any())):
        rj, = _carlson(*_in_order(x, y, z), rf=False, p=p)                # (the CPU: RJ alone)
        return where(inside, rj, _outside_values(xp, inside, edge, rj.dtype))
    # p < 0: scaled where the largest is beyond 2^500 (x z + p' q: no overflow); p far above or far
    # below: x, y, z scaled to a largest in [1/2, 2) (RJ(x, y, z, p'') at x = 1e-300 would overflow
    # where (p'' - x) RJ does not; scaling by |p| would flush x = 1e-300 to 0 beside p = -1e300)
    # and p met in ratios only; else p > 0 as it is (_carlson scaling its own beyond 2^1000: a far
    # smaller argument kept)
    top = xp.maximum(xp.maximum(x.data, y.data), xp.maximum(z.data, abs(p.data)))
    _, exponent = xp.frexp(xp.maximum(xp.maximum(x.data, y.data), z.data))
    ratios = far | sink
    half = xp.where(negative, _half_exponent(top, xp, 500), xp.where(ratios, exponent // 2, 0))
    scale = xp.ldexp(xp.ones_like(top), -2 * half)
    low0, _, high0 = _in_order(x, y, z)                                 # (as they are, for the ratios)
    x, y, z, p = x * scale, y * scale, z * scale, p * xp.where(ratios, 1.0, scale)
    low, mid, high = _in_order(x, y, z)
    unscale = xp.ldexp(xp.ones_like(top), -half)                       # 2^-half, three times (no overflow)
    q = where(negative, -p, 1.0)
    depth = where(sink, -p, 1.0)                                       # p far below: q as it is,
    rho = where(sink, high0 / depth / high, 0.0)                       # 1 / (its scaled value)
    lift = where(sink, (high - mid) * (mid - low) * rho / (mid * rho + 1.0),
                 (high - mid) * (mid - low) / (mid + q))              # p' - y >= 0
    above = where(far, p, high0 + 1.0)
    drop = (mid - low) * ((high0 - low0) / (above - low0))              # p far above: p'' - x, scaled
    vanish = far & ((low + drop).data == 0)            # (x = 0, p'' - x below the floats: both terms 0)
    lowest = where(vanish, mid, low + drop)
    shifted = where(negative | sink, mid + lift, 1.0)
    rf, rj = _carlson(low, mid, high, p=where(negative | sink, shifted, where(far, lowest, p)))
    cross = where(sink, low * high * rho + shifted, low * high + shifted * q)   # (sink: over q)
    beside = where(negative, shifted * q, where(sink, shifted, lowest))
    rc, = _carlson(where(negative | sink, cross, mid * (high0 / above)), beside, beside)
    root = sqrt(low) * sqrt(mid) * sqrt(high) / sqrt(cross) * where(sink, rho, 1.0)
    terms = lift * rj - rf * 3.0 + root * rc * 3.0
    cube = xp.where(negative, unscale, 1.0)                              # (elsewhere 2^-half may be 2^537)
    principal = terms / (mid + q) * cube * cube * cube
    sunk = terms * (unscale / depth) / (mid * rho + 1.0)
    rest = where(vanish, 0.0, sqrt(low0 / above) * rc * 3.0 + drop * rj)
    lowered = (rf * 3.0 - rest) * unscale / (above - low0)
    value = where(negative, principal, where(sink, sunk, where(far, lowered, rj)))
    return where(inside, value, _outside_values(xp, inside, edge, value.dtype))
