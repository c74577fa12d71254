"""scipy.special's functions defined implicitly or by an integral with a parameter, on Variables:
Wright's omega function (wrightomega), Lambert's W function (lambertw) and Owen's T function
(owens_t).

wrightomega(x) = omega with omega + log omega = x (W(e^x), the Lambert function of e^x, without
its overflow), real x.  Up to x = 1 it solves w e^w = e^x by Halley's steps from Winitzki's
approximation of W (a residual relative to e^x, so no digits are lost to log omega ~ x for very
negative x, where SciPy's loses up to 3.5e-15); beyond, w + log w = x from x - log x + log x / x.
Four steps on every entry (cubic convergence from within 8%: no data-dependent branch, no host
sync); within 2.3e-16 of 40-digit values from -745 to 1e300.  Its derivative omega / (1 + omega),
of the output itself, is differentiable again (its own op, so that 1 / (1 + omega)^2 is no
difference); Taylor mode solves y' = y / (1 + y) x' coefficient by coefficient, through p = 1 / (1 + y).

lambertw(x, k) = w with w e^w = x on the real branches k = 0 (W >= -1) and k = -1 (W <= -1), real
x (NaN where W is complex).  Near the branch point x = -1/e, W by its series in p = sqrt(2 (e x +
1)) (40 terms, to p = 0.5, with x + 1/e from 1/e in two parts: every digit there too); beyond,
Halley's steps on w e^w = x (k = 0 up to x = e, from the series' first terms or Winitzki's
approximation), on w + log w = log x (k = 0 beyond e) or on v - log v = -log(-x), v = -w (k = -1),
four of them.  Within 4.4e-16 of 40-digit values over both branches (the rounding of w e^w in
Halley's residual, where 1 + W is near 0.5); SciPy's loses 5e-9 next to the branch point on k =
0, 1e-4 on k = -1 (x + 1/e = 2e-9).  W' = e^-W / (1 + W) is an op of W (`_LambertSlope`: from
W / (x (1 + W)) where |W| >= 1, as e^-W of a rounded W near 700 would carry 700 ulps),
differentiable again, with a Taylor rule; one ulp of 1 + W is all it loses next to the branch
point (3e-9 of W' one ulp of x from it).

owens_t(h, a) = 1/(2 pi) int_0^a e^(-h^2 (1 + t^2) / 2) / (1 + t^2) dt, the skew-normal's CDF's
part, differentiable in h and a to any order: dT/dh = -phi(h) erf(a h / sqrt 2) / 2 and dT/da =
e^(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2)), both of gengrad's ops.  T is even in h, odd in a; for
|a| <= 1 by Gauss-Legendre quadrature of the integrand over [0, min(|a|, 12 / |h|)] (beyond, the
integrand is below e^-72 of its start); for |a| > 1 by T(h, a) = (Phi(h) + Phi(a h)) / 2 -
Phi(h) Phi(a h) - T(a h, 1/a) (h >= 0), each normal tail from V.ndtr's complement so that no
digits cancel for large h.  The nodes and weights are our own (Newton's steps on P_24): NumPy's
leggauss weights are off by 1e-14, which a quadrature carries into its last digits.
"""

import functools
import math
from fractions import Fraction

import numpy as np

from .. import numpy_dispatch, series
from ..backend import get_array_module
from ..forwarder import Forwarder, Function, as_variable
from ..variable import Variable
from .elementwise import _reduce, exp
from .special import (
    TWO_OVER_SQRT_PI,
    Erf,
    _at_value,
    _density_series,
    _exp_minus_square,
    _floats_on_one_device,
    _in_float64,
    _select,
    _shorter,
    _split,
    erf,
    erf_arrays,
    erfcx_arrays,
    ndtr,
    ndtr_arrays,
)

__all__ = ["wrightomega", "lambertw", "owens_t"]

_OMEGA_STEPS = 4


# ----- Wright's omega ----------------------------------------------------------------------------
def _winitzki(y, xp):
    """W(y) for y >= 0 within 3% (Winitzki): L (1 - log(1 + L) / (2 + L)), L = log(1 + y)."""
    L = xp.log1p(y)
    return L * (1.0 - xp.log1p(L) / (2.0 + L))


def _halley_on_log(v, y, sign, xp):
    """v with v + sign log v = y (sign +-1, v > 0) by Halley's steps from v (f' = 1 + sign / v,
    f'' = -sign / v^2), a fixed number of them."""
    for _ in range(_OMEGA_STEPS):
        f = v + sign * xp.log(v) - y
        slope = 1.0 + sign / v
        v = v - f / (slope + sign * f / (2.0 * v * v * slope))
    return v


def _halley_on_exp(w, y, xp):
    """w with w e^w = y by Halley's steps from w, a fixed number of them."""
    for _ in range(_OMEGA_STEPS):
        e = xp.exp(w)
        f = w * e - y
        slope = e * (w + 1.0)
        w = w - f / (slope - f * (w + 2.0) / (2.0 * (w + 1.0)))
    return w


@_in_float64()
def wrightomega_arrays(x):
    """omega(x) on an ndarray: 0 at -inf (and below -745, where e^x underflows: omega = e^x),
    inf at inf."""
    xp = get_array_module(x)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        low = xp.minimum(x, 1.0)
        y = xp.exp(low)                                 # w e^w = y, w ~ y for small y
        w = xp.where(y > 0, _halley_on_exp(_winitzki(y, xp), y, xp), 0.0)
        high = xp.where(x > 1.0, x, 2.0)
        log_x = xp.log(high)
        v = _halley_on_log(high - log_x + log_x / high, high, 1.0, xp)   # w + log w = x
        out = xp.where(x > 1.0, v, w)
        out = xp.where(x == np.inf, np.inf, out)
        return xp.where(xp.isnan(x), np.nan, out)


class WrightOmega(Forwarder):
    """omega(x): omega' = omega / (1 + omega), of the output."""

    def forward(self, x):
        return wrightomega_arrays(x)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        return gy * Function(_OverOnePlus())(y)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        inverses = []                                   # p = 1 / (1 + y): y / (1 + y) = 1 - p

        def rate(ys, m):                                # (y / (1 + y))_m from p's coefficients
            if m == 0:
                inverses.clear()
                inverses.append(1.0 / (1.0 + ys[0]))
                return ys[0] * inverses[0]
            total = ys[1] * inverses[m - 1]             # (1 + y) p = 1: p_m = -sum_j y_j p_(m-j) / (1 + y_0)
            for j in range(2, m + 1):
                total = total + ys[j] * inverses[m - j]
            inverses.append(-total * inverses[0])
            return -inverses[m]
        return series.ode(x, y._data, rate)


class _OverOnePlus(Forwarder):
    """y / (1 + y), omega's slope: its derivative 1 / (1 + y)^2 with no difference taken (y / (1 + y)
    differentiated by the quotient rule would subtract two terms near 1 / y for large y)."""

    def forward(self, y):
        return y / (1.0 + y)

    save_for_backward = ("x0",)

    def backward(self, gy):
        y, = self.inputs
        return gy * (1.0 + y) ** -2.0

    taylor_records = True

    def taylor(self, y):
        out, = self.outputs                             # y / (1 + y) = 1 - p, p = 1 / (1 + y)
        p = series.reciprocal([y[0] + 1.0] + list(y[1:]))
        return _at_value(out._data, [out._data] + [-c for c in p[1:]])


def wrightomega(x):
    """Wright's omega function, elementwise (scipy.special.wrightomega, real x): omega with omega +
    log omega = x, W(e^x) without e^x's overflow; derivative omega / (1 + omega), to any order."""
    return Function(WrightOmega())(as_variable(x, op="wrightomega"))


# ----- Lambert's W -------------------------------------------------------------------------------
_INV_E, _INV_E_REST = 0.36787944117144233, -1.2428753672788363e-17
"""1/e = _INV_E + _INV_E_REST (the double nearest 1/e is above it: -_INV_E, NumPy's -1/e, is W's
branch point as it rounds, W = -1 there)."""
_BRANCH_REACH = 0.5
"""The series in p = sqrt(2 (e x + 1)) about the branch point serves p < 0.5 (its terms shrink as
(p / sqrt 2)^k: 40 of them); Halley's steps beyond (1 + W >= 0.4 there: no digits lost to W's
infinite slope at the branch point)."""


@functools.cache
def _branch_coefficients(n=40):
    """W = sum_k mu_k p^k about x = -1/e (p < 0 on the branch k = -1): Corless et al.'s recurrence
    (1996, eq. 4.23), in exact fractions: mu_k = (k-1)/(k+1) (mu_(k-2)/2 + alpha_(k-2)/4) - alpha_k/2
    - mu_(k-1)/(k+1), alpha_k = sum_(j=2..k-1) mu_j mu_(k+1-j)."""
    mu, alpha = [Fraction(-1), Fraction(1)], [Fraction(2), Fraction(-1)]
    for k in range(2, n):
        alpha.append(sum((mu[j] * mu[k + 1 - j] for j in range(2, k)), Fraction(0)))
        mu.append(Fraction(k - 1, k + 1) * (mu[k - 2] / 2 + alpha[k - 2] / 4) - alpha[k] / 2
                  - mu[k - 1] / (k + 1))
    return tuple(float(m) for m in mu)


def _about_branch_point(p, terms):
    """W from the series in p, its first `terms` terms (Horner's)."""
    coefficients = _branch_coefficients()[:terms]
    out = p * 0.0 + coefficients[-1]
    for c in reversed(coefficients[:-1]):
        out = out * p + c
    return out


@_in_float64()
def lambertw_arrays(x, k):
    """W_k(x) on an ndarray, k = 0 or -1: NaN where it is not real (x < -1/e; x > 0 on k = -1),
    -inf at x = 0 on k = -1, inf at inf."""
    xp = get_array_module(x)
    sign = 1.0 if k == 0 else -1.0
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        rest = (x + _INV_E) + _INV_E_REST               # x + 1/e, exact where it is small (Sterbenz)
        rest = xp.where(x >= -_INV_E, xp.maximum(rest, 0.0), np.nan)
        p = sign * xp.sqrt((2 * math.e) * rest)

        def near(p, x):
            return _about_branch_point(p, 40)

        if k == 0:
            def below_e(p, x):                          # w e^w = x: from the series' first terms
                low = xp.minimum(x, math.e)             # or Winitzki's (each clamped to its side)
                start = xp.where(low < -0.25, _about_branch_point(p, 4),
                                 _winitzki(xp.maximum(low, -0.25), xp))
                return _halley_on_exp(start, low, xp)

            def beyond_e(p, x):                         # w + log w = log x
                y = xp.log(xp.maximum(x, math.e))
                return _halley_on_log(y - xp.log(y) + xp.log(y) / y, y, 1.0, xp)

            def far(p, x):
                return _select(x > math.e, beyond_e, below_e, p, x)
        else:
            def far(p, x):                              # v - log v = -log(-x), v = -w
                y = -xp.log(-xp.where(x < 0, x, -0.1))
                start = xp.where(p > -1.0, -_about_branch_point(p, 4), y + xp.log(y))
                return -_halley_on_log(start, y, -1.0, xp)
        out = _select(xp.abs(p) < _BRANCH_REACH, near, far, p, x)
        if k == 0:
            out = xp.where(x == np.inf, np.inf, xp.where(x == 0, x, out))   # (W(-0.0) = -0.0)
        else:
            out = xp.where(x == 0, -np.inf, xp.where(x > 0, np.nan, out))
        return xp.where(xp.isnan(rest), np.nan, out)     # (x below -1/e, or NaN)


@_in_float64(at=(0, 1))
def _lambert_slope_arrays(w, x, k):
    """W' = W / (x (1 + W)), or e^-W / (1 + W) where |W| < 1 (at x = 0, W = 0: 1); +-inf at
    the branch point (W = -1), by the branch's side.  (e^-W of a rounded W of size 700 would
    carry 700 ulps: from x they stay 2.)"""
    xp = get_array_module(w)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        small = xp.abs(w) < 1.0
        inside = xp.exp(-xp.where(small, w, 0.0)) / (1.0 + w)
        outside = (w / (1.0 + w)) / xp.where(small, 1.0, x)
        out = xp.where(small, inside, outside)
        return xp.where(w == -1.0, np.inf if k == 0 else -np.inf, out)


class LambertW(Forwarder):
    """W_k(x), k = 0 or -1: W' = e^-W / (1 + W), a function of the output (`_LambertSlope`)."""

    def __init__(self, k):
        self.k = k

    def forward(self, x):
        return lambertw_arrays(x, self.k)

    save_for_backward = ("x0", "y")

    def backward(self, gy):
        x, = self.inputs
        y, = self.outputs
        return gy * Function(_LambertSlope(x._data, self.k))(y)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        slope = _LambertSlope(x[0] if not isinstance(x[0], Variable) else x[0]._data, self.k)
        return series.ode(x, y._data, slope.rate)


class _LambertSlope(Forwarder):
    """s(w) = e^-w / (1 + w), W's slope as a function of W (its value from x, kept as a constant,
    where e^-w would lose digits): s' = -s (2 + w) / (1 + w)."""

    def __init__(self, x, k):
        self.x, self.k = x, k

    def forward(self, w):
        return _lambert_slope_arrays(w, self.x, self.k)

    save_for_backward = ("x0", "y")

    def backward(self, gy):
        w, = self.inputs
        s, = self.outputs
        return gy * -s * (2.0 + w) / (1.0 + w)

    taylor_records = True

    def taylor(self, w):
        out, = self.outputs
        head = self.rate(w, 0, None if isinstance(w[0], Variable) else out._data)
        return _at_value(out._data, [head] + [self.rate(w, m) for m in range(1, len(w))])

    def rate(self, ws, m, s0=None):
        """Coefficient m of s along the series ws of w (from ws[0 .. m]): s = s_0 E P with E =
        e^-(w - w_0) (m E_m = -sum_j j w_j E_(m-j)) and P = (1 + w_0) / (1 + w) (P_m = -sum_j w_j
        P_(m-j) / (1 + w_0)), each from 1 at order 0; the rate of W's Taylor rule."""
        if m == 0 or len(self._e) != m:                 # (a fresh series: from its start)
            w0 = ws[0]
            if s0 is None:
                s0 = Function(_LambertSlope(self.x, self.k))(w0) if isinstance(w0, Variable) \
                    else _lambert_slope_arrays(w0, self.x, self.k)
            self._s0, self._e, self._p, self._over = s0, [1.0], [1.0], 1.0 / (1.0 + w0)
            for j in range(1, m):
                self._extend(ws, j)
            if m == 0:
                return s0
        self._extend(ws, m)
        return self._s0 * _total_product(self._e, self._p, m)

    _e = ()

    def _extend(self, ws, m):
        e = ws[1] * self._e[m - 1]
        p = ws[1] * self._p[m - 1]
        for j in range(2, m + 1):
            e = e + j * ws[j] * self._e[m - j]
            p = p + ws[j] * self._p[m - j]
        self._e.append(e * (-1.0 / m))
        self._p.append(-p * self._over)


def _total_product(a, b, m):
    """sum_(j=0..m) a_j b_(m-j), with a_0 = b_0 = 1."""
    total = a[m] + b[m]
    for j in range(1, m):
        total = total + a[j] * b[m - j]
    return total


def lambertw(x, k=0, tol=1e-8):
    """Lambert's W function, elementwise (scipy.special.lambertw on its real branches): w with w e^w
    = x, on the branch k = 0 (x >= -1/e, W >= -1) or k = -1 (-1/e <= x < 0, W <= -1), real: NaN
    where W is complex (SciPy's result is complex there, and its imaginary part 0 elsewhere).
    Differentiable to any order: W' = e^-W / (1 + W) = W / (x (1 + W)).  Within 4.4e-16 of
    40-digit values over the whole of both branches, the branch point's neighbourhood too, whatever
    `tol` (SciPy's stopping tolerance; gengrad's steps are fixed, to double precision)."""
    branch = _lambert_branch(k)
    if not isinstance(tol, (int, float, np.integer, np.floating)) or isinstance(tol, bool):
        raise TypeError(f"lambertw(x, k, tol): tol must be a number, got {type(tol).__name__}")
    return Function(LambertW(branch))(as_variable(x, op="lambertw"))


def _lambert_branch(k):
    """The branch k as an int, 0 or -1 (a 0-d integer array, as SciPy passes it, too)."""
    if isinstance(k, Variable) or not (isinstance(k, (int, np.integer)) or (
            isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu")) or isinstance(k, bool):
        raise TypeError(f"lambertw(x, k): the branch k must be an integer, 0 or -1, got "
                        f"{type(k).__name__}")
    if int(k) not in (0, -1):
        raise ValueError(
            f"lambertw(x, k={int(k)}): gengrad's Variables are real, and only the branches k = 0 "
            f"(x >= -1/e) and k = -1 (-1/e <= x < 0) take real values; SciPy's other branches "
            f"are complex")
    return int(k)


# ----- Owen's T ----------------------------------------------------------------------------------
def _gauss_legendre(n):
    """Gauss-Legendre's n nodes and weights on [-1, 1] to an ulp or two: Newton's steps on P_n from
    cos(pi (i - 1/4) / (n + 1/2)), w = 2 / ((1 - x^2) P_n'(x)^2).  (NumPy's leggauss weights are
    off by up to 7e-14 at n = 60, 1e-14 at 24: a quadrature's last digits.)"""
    def legendre(x):
        p0, p1 = 1.0, x
        for k in range(2, n + 1):
            p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
        return p1, n * (x * p1 - p0) / (x * x - 1)
    nodes, weights = [], []
    for i in range(1, n + 1):
        x = math.cos(math.pi * (i - 0.25) / (n + 0.5))
        for _ in range(100):
            value, slope = legendre(x)
            x -= value / slope
            if abs(value / slope) < 1e-17:
                break
        slope = legendre(x)[1]
        nodes.append(x)
        weights.append(2 / ((1 - x * x) * slope * slope))
    return tuple(nodes), tuple(weights)


def _gauss_laguerre(n):
    """Gauss-Laguerre's n nodes and weights (weight e^-s on [0, inf)): Newton's steps on L_n from
    the usual asymptotic starts, w = 1 / (s L_n'(s)^2)."""
    def laguerre(z):
        p1, p2 = 1.0, 0.0
        for j in range(1, n + 1):
            p1, p2 = ((2 * j - 1 - z) * p1 - (j - 1) * p2) / j, p1
        return p1, n * (p1 - p2) / z
    nodes, weights = [], []
    for i in range(n):
        if i == 0:
            z = 3.0 / (1 + 2.4 * n)
        elif i == 1:
            z = nodes[0] + 15.0 / (1 + 2.5 * n)
        else:
            z = nodes[-1] + (1 + 2.55 * (i - 1)) / (1.9 * (i - 1)) * (nodes[-1] - nodes[-2])
        for _ in range(100):
            value, slope = laguerre(z)
            z -= value / slope
            if abs(value / slope) <= 1e-16 * z:
                break
        slope = laguerre(z)[1]
        nodes.append(z)
        weights.append(1.0 / (z * slope * slope))
    return tuple(nodes), tuple(weights)


_NODES, _WEIGHTS = _gauss_legendre(24)
_TAIL_NODES, _TAIL_WEIGHTS = _gauss_legendre(40)
_LAGUERRE_NODES, _LAGUERRE_WEIGHTS = _gauss_laguerre(40)
_REACH = 12.0
"""The integrand e^(-h^2 t^2 / 2) / (1 + t^2) is below e^-72 of its start from t = 12 / h on: 24
Gauss-Legendre nodes over [0, min(a, 12 / h)] are exact to double precision there."""


def _owens_t_inside(h, a):
    """T(h, a) for h >= 0 and 0 <= a <= 1: e^(-h^2/2) / (2 pi) int_0^L e^(-h^2 t^2/2) / (1 + t^2) dt,
    L = min(a, 12 / h), by Gauss-Legendre's nodes (e^(-h^2/2) from its split exponent)."""
    xp = get_array_module(h)
    with np.errstate(divide="ignore"):
        reach = xp.minimum(a, _REACH / h)
    half = reach * 0.5
    total = h * 0.0
    for node, weight in zip(_NODES, _WEIGHTS):
        t = half * (1.0 + node)
        ht = h * t
        total = total + weight * xp.exp(-0.5 * ht * ht) / (1.0 + t * t)
    return _exp_minus_square(h, 0.5) * (total * half) * (1.0 / (2.0 * math.pi))


@_in_float64(at=(0, 1))
def owens_t_arrays(h, a):
    """T(h, a) on ndarrays (broadcast): even in h, odd in a; for |a| > 1, (Q(h) + Q(a h)) / 2 -
    Q(h) Q(a h) - T(a h, 1/a) with Q the upper normal tails (h >= 0); Q(|h|) / 2 at |a| = inf."""
    xp = get_array_module(h)
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        sign = xp.where(a < 0, -1.0, 1.0)
        h, a = xp.abs(h), xp.abs(a)
        finite_h = xp.where(h == np.inf, 0.0, h)
        inside = _owens_t_inside(finite_h, xp.minimum(a, 1.0))
        outer = xp.where(a > 1.0, a, 2.0)
        ah = xp.where(a == np.inf, 0.0, outer * finite_h)
        q, q_ah = ndtr_arrays(-finite_h), ndtr_arrays(-ah)
        beyond = (q + q_ah) * 0.5 - q * q_ah - _owens_t_inside(ah, 1.0 / outer)
        value = xp.where(a > 1.0, xp.where(a == np.inf, q * 0.5, beyond), inside)
        value = xp.where(h == np.inf, 0.0, value)
        return xp.where(xp.isnan(h) | xp.isnan(a), np.nan, sign * value)


class OwensT(Forwarder):
    """T(h, a): dT/dh = -phi(h) erf(a h / sqrt 2) / 2, dT/da = e^(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2))."""

    def forward(self, h, a):
        return owens_t_arrays(h, a)

    save_for_backward = ("x0", "x1")

    def backward(self, gy):
        h, a = self.inputs
        gh = ga = None
        if h.requires_grad:
            gh = _reduce(gy * (exp(h * h * -0.5) * (-0.5 / math.sqrt(2 * math.pi)))
                         * erf(a * h * (1 / math.sqrt(2))), h)
        if a.requires_grad:
            square = 1.0 + a * a
            ga = _reduce(gy * exp(h * h * square * -0.5) / (square * (2 * math.pi)), a)
        return gh, ga

    taylor_records = True

    def taylor(self, h, a):
        def h_slope(head_h, head_a):                   # -phi(h) erf(a h / sqrt 2) / 2
            u = series.scale(series.mul(head_a, head_h), 1 / math.sqrt(2))
            return series.mul(_density_series(head_h, -0.5 / math.sqrt(2 * math.pi), -0.5), _erf_series(u))
        return _owens_series(self.outputs[0]._data, h, a, h_slope, 1.0)


def _owens_series(y0, h, a, h_slope, a_sign):
    """Series of T (or its tail) along the series h and a, from its value y0: y' = h_slope h' +
    a_sign e^(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2)) a', each slope's series along the heads."""
    if len(h) == 1 and len(a) == 1:
        return [y0]
    parts = []
    head_h, head_a = _shorter(h), _shorter(a)
    if len(h) > 1:
        parts.append(series.integral(h, y0, h_slope(head_h, head_a)))
    if len(a) > 1:
        square = series.square(head_a)
        square = [square[0] + 1.0] + square[1:]
        slope = series.div(series.exp(series.scale(series.mul(series.square(head_h), square), -0.5)),
                           series.scale(square, a_sign * 2 * math.pi))
        parts.append(series.integral(a, y0, slope))
    rest = parts[0][1:]
    for part in parts[1:]:
        rest = series.add(rest, part[1:])
    return _at_value(y0, [y0] + rest)


def _erf_series(u):
    """Series of erf along the series u (its value recorded where u's is a Variable)."""
    u0 = u[0]
    value = Function(Erf())(u0) if isinstance(u0, Variable) else erf_arrays(u0, False, 2.0)
    if len(u) == 1:
        return [value]
    return series.integral(u, value, _density_series(_shorter(u), TWO_OVER_SQRT_PI, -1.0))


# ----- Q(h)/2 - T(h, a), without the cancellation ------------------------------------------------
def _two_product(a, b):
    """(p, e) with p + e = a b exactly (Dekker's product of split halves)."""
    p = a * b
    a1, a2 = _split(a)
    b1, b2 = _split(b)
    return p, ((a1 * b1 - p) + a1 * b2 + a2 * b1) + a2 * b2


@_in_float64(at=(0, 1))
def owens_t_tail_arrays(h, a):
    """U(h, a) = Q(h)/2 - T(h, a) = int_h^inf phi(u) Q(a u) du for h, a >= 0 on ndarrays: the
    skew-normal's tail against its skew, which the difference loses (all of it by Q ~ 1e-18).
    Three ways, each where it keeps every digit (within 6e-15 of 40-digit values):
    - a <= 1 and a h < 1: the difference itself (T is below 0.85 Q/2 there);
    - a > 1 and H = h sqrt(1 + a^2) < 2: (1/a) int_(ah)^(ah + 9) phi(v/a) Q(v) dv, by 40
      Gauss-Legendre nodes;
    - else e^(-H^2/2) / (2 pi H sqrt(1 + a^2)) int_0^inf e^-s e^(-s^2 / (2 H^2)) R(b (H + s/H)) ds
      (R(t) = Q(t) / phi(t), Mills' ratio, from erfcx; b = a / sqrt(1 + a^2)), by 40
      Gauss-Laguerre nodes, e^(-H^2/2) from h^2 and (a h)^2 split exactly."""
    xp = get_array_module(h)

    def difference(h, a):
        return ndtr_arrays(-h) * 0.5 - owens_t_arrays(h, a)

    def near(h, a):                                     # (1/a) int phi(v/a) Q(v) dv over [a h, a h + 9]
        low, scale = xp.minimum(a * h, 2.0), xp.maximum(a, 1.0)   # (clamped to its side, for a device)
        total = h * 0.0
        for node, weight in zip(_TAIL_NODES, _TAIL_WEIGHTS):
            v = low + 4.5 * (1.0 + node)
            w = v / scale
            total = total + weight * xp.exp(-0.5 * w * w) * ndtr_arrays(-v)
        return total * (4.5 / math.sqrt(2 * math.pi)) / scale

    def far(h, a):                                      # Laguerre's
        root = xp.sqrt(1.0 + a * a)
        big_h = xp.maximum(h * root, 1.0)               # (H >= 1 on its side)
        p, e = _two_product(h, a)
        prefactor = (_exp_minus_square(h, 0.5) * _exp_minus_square(p, 0.5) * xp.exp(-p * e)
                     / (2 * math.pi * big_h * root))
        b = a / root
        total = h * 0.0
        for node, weight in zip(_LAGUERRE_NODES, _LAGUERRE_WEIGHTS):
            t = b * (big_h + node / big_h)
            ratio = math.sqrt(math.pi / 2) * erfcx_arrays(t * (1 / math.sqrt(2)))
            total = total + weight * xp.exp(-0.5 * (node / big_h) ** 2) * ratio
        return prefactor * total

    def beyond_the_difference(h, a):
        middle = (a > 1.0) & (h * xp.sqrt(1.0 + a * a) < 2.0)
        return _select(middle, near, far, h, a)

    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        h_, a_ = xp.minimum(h, 1e150), xp.minimum(a, 1e150)
        small = (a_ <= 1.0) & (h_ * a_ < 1.0)           # (each way on its own entries, `_select`)
        out = _select(small, difference, beyond_the_difference, h_, a_)
        out = xp.where((h == np.inf) | (a == np.inf), 0.0, out)
        return xp.where(xp.isnan(h) | xp.isnan(a), np.nan, out)


class OwensTTail(Forwarder):
    """U(h, a) = Q(h)/2 - T(h, a) (h, a >= 0): dU/dh = -phi(h) Q(a h), dU/da = -dT/da."""

    def forward(self, h, a):
        return owens_t_tail_arrays(h, a)

    save_for_backward = ("x0", "x1")

    def backward(self, gy):
        h, a = self.inputs
        gh = ga = None
        if h.requires_grad:
            gh = _reduce(gy * (exp(h * h * -0.5) * (-1 / math.sqrt(2 * math.pi))) * ndtr(-(a * h)), h)
        if a.requires_grad:
            square = 1.0 + a * a
            ga = _reduce(gy * exp(h * h * square * -0.5) / (square * (-2 * math.pi)), a)
        return gh, ga

    taylor_records = True

    def taylor(self, h, a):
        def h_slope(head_h, head_a):                   # -phi(h) Q(a h)
            density = _density_series(head_h, -1 / math.sqrt(2 * math.pi), -0.5)
            return series.mul(density, _upper_tail_series(series.mul(head_a, head_h)))
        return _owens_series(self.outputs[0]._data, h, a, h_slope, -1.0)


def _upper_tail_series(u):
    """Series of Q(u) = Phi(-u) along the series u: Q' = -phi(u) u'."""
    u0 = u[0]
    value = ndtr(-u0) if isinstance(u0, Variable) else ndtr_arrays(-u0)
    if len(u) == 1:
        return [value]
    return series.integral(u, value, _density_series(_shorter(u), -1 / math.sqrt(2 * math.pi), -0.5))


def owens_t_tail(h, a):
    """Q(h)/2 - T(h, a) for h, a >= 0 (the skew-normal's tail against its skew, V.stats.skewnorm's):
    its own digits where the difference would cancel them."""
    h, a = _floats_on_one_device("owens_t_tail", h, a)
    return Function(OwensTTail())(h, a)


def owens_t(h, a):
    """Owen's T function, elementwise with broadcasting (scipy.special.owens_t): T(h, a) = 1/(2 pi)
    int_0^a e^(-h^2 (1 + t^2) / 2) / (1 + t^2) dt, the skew-normal's CDF Phi(x) - 2 T(x, alpha);
    differentiable in h and a to any order.  Within 3e-15 of 40-digit values over h in [0, 38] and
    a in [1e-10, 1e10] (the rounding of (h t)^2 in the integrand's exponent; SciPy's: 1.6e-8)."""
    h, a = _floats_on_one_device("owens_t", h, a)
    return Function(OwensT())(h, a)


numpy_dispatch.register_scipy_ufunc("_lambertw", lambertw)   # (scipy.special.lambertw calls it)
