"""The inverses of scipy.special's distribution functions: gammaincinv and gammainccinv (the
incomplete gamma functions' inverses in x) and the quantiles on them, chdtri (chi-square), gdtrix
(gamma) and pdtri (the Poisson mean); betaincinv and betainccinv and the quantiles on them,
bdtri, nbdtri (binomial and negative binomial success probabilities), fdtri (F) and stdtrit
(Student's t); ndtri_exp (the normal quantile of a log-probability), nrdtrimn and nrdtrisd.

Each is differentiated in its probability, to any order: x = F^-1(y) has dx/dy = 1 / F'(x), the
density at the output, itself a differentiable op (so the backward pass is differentiable
again), and its Taylor rule solves x' = y' / F'(x) coefficient by coefficient.  The shapes,
degrees of freedom and counts are constants, refused when they require grad, as they are in the
distribution functions.

The forward solves F(x) = y by Halley's steps on log F (or the log of the complement, whichever
tail is below 1/2, so a tail keeps its digits), in t = log x for the gamma distribution and in
the logit for the beta: the log-gamma and logistic-beta variables have log-concave densities
(e^(a t - e^t) / Gamma(a); e^(a t) / (1 + e^t)^(a + b) / B(a, b)), so log F is concave in t, and
a Newton step from the steep side never passes the root, from the flat side lands on the steep
one.  Every step is kept inside bounds that hold the root, so no start diverges.
"""

import math

import numpy as np

from .. import series
from ..backend import is_device_array
from ..forwarder import Forwarder, Function, new_variable
from .distribution_functions import _arguments
from .elementwise import _reduce, exp
from .piecewise import where
from .special import (
    _LOG_SQRT_2PI,
    BetaDensity,
    GammaDensity,
    StudentTDensity,
    _at_value,
    _beta_density_series,
    _beta_fraction,
    _beta_offsets,
    _constant_parameters,
    _floats_on_one_device,
    _gamma_density_series,
    _gamma_log_prefix,
    _in_float64,
    _log_gamma_1p,
    _lower_sum,
    _select,
    _student_t_density_series,
    _temme_parts,
    _upper_denominator,
    betaln_arrays,
    erfcx_arrays,
    incomplete_beta_arrays,
    incomplete_gamma_arrays,
    inverse_erf_arrays,
    log_ndtr_arrays,
    ndtri,
    psi_arrays,
)

_DEVICE_STEPS = 6
"""Halley's steps on a device, where every entry takes them all (on the CPU the loop stops once
every entry has converged; a converged entry does not move, so both give the same bits): for the
gamma quantile the most any entry took was 4, over a grid of a from 1e-300 to 1e12 and y from
1e-323 to 1 - 1e-16 and 1.2 million random (a, y) with a from 1e-12 to 1e9.  The beta quantile
(whose incomplete beta function syncs on a device anyway) takes as many as the CPU's, asking after
these whether all are done: up to 18 for a or b near 1e6 beside a small other, or targets near
1e-300 (10 with a, b in [1e-3, 1e3])."""

_MOST_STEPS = 40
"""A bound on the steps (on the CPU and for the beta quantile on a device)."""

_TINY = 1e-305
"""Below this a tail's value is taken in logarithms throughout (it would underflow)."""

_T_RANGE = (-800.0, 709.0)
"""t = log x is kept in this range: below it x is 0 in floats (so is the answer), above it inf."""


def _over_density(gy, density, negative=False):
    """A quantile's backward: gy over the density at the output (minus it for a complement's
    inverse), quiet where the density is 0 at the ends of [0, 1] (an infinite slope)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        g = gy / density
    return -g if negative else g


def _quantile_series(y, x0, density, sign=1.0):
    """A quantile's Taylor rule: the series of x along the series y from its value x0, with x' =
    sign y' / f(x); `density(head)` gives the series of f along x's head."""
    def slope(xs, m):                                       # coefficient m of sign / f(x)
        return sign * series.reciprocal(density(list(xs[:m + 1])))[m]
    return _at_value(x0, series.ode(y, x0, slope))


def _gamma_residual(t, x, a, target, log_gamma_1p, upper):
    """(g, g', g''/g') of g = log(V / target) in t = log x at x = e^t (x may be 0 where t is below
    the floats), V = P(a, x) (Q with `upper`): g' = +-D / V, D = x^a e^-x / Gamma(a), and g''/g' =
    a - x - g' (`log_gamma_1p`: log Gamma(1 + a), to its last digit for a tiny a).  V from the
    incomplete gamma function where it is above `_TINY` (its ratio to the target keeps every digit
    that a difference of logarithms near -700 would lose), else from its logarithm: the series' or
    the fraction's prefix and sum, or Temme's expansion near a (large a); below the normal floats
    x is read from t."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        log_d = _select((a >= 10) & (x > 0), lambda a, x, t, lg: _gamma_log_prefix(a, x),
                        lambda a, x, t, lg: a * t - x - lg + np.log(a), a, x, t, log_gamma_1p)
        v = incomplete_gamma_arrays(a, x, upper)
        under = x < 1e-306                              # (x below the normal floats, so read from t:
        log_lower = a * t - log_gamma_1p                # P = x^a / Gamma(a + 1), Q = 1 - P)
        if upper:
            v = np.where(under, -np.expm1(log_lower), v)

        def logarithm(a, x, v, log_d):
            return np.log(v)

        def tiny(a, x, v, log_d):
            def temme(a, x, log_d):
                z, exponent, s = _temme_parts(a, x)
                return exponent + np.log(erfcx_arrays(z) / 2 + s if upper else erfcx_arrays(-z) / 2 - s)

            def prefix(a, x, log_d):
                if upper:
                    return log_d - np.log(_upper_denominator(a, x))
                return log_d - np.log(a) + np.log(_lower_sum(a, x))
            return _select((a >= 20) & (np.abs(x - a) < 0.3 * a), temme, prefix, a, x, log_d)

        small = v < _TINY
        log_v = _select(small, tiny, logarithm, a, x, v, log_d)
        if not upper:
            small = small | under
            log_v = np.where(under, log_lower, log_v)
        residual = np.where(small | (target < _TINY), log_v - np.log(target), np.log(v / target))
        slope = np.exp(log_d - log_v)
    return residual, -slope if upper else slope, (a - x) + (slope if upper else -slope)


def _halley(residual, t, x, low, high, *constants, logit=False, checked=False):
    """t = log x with log V(t) = log target by Halley's steps, each kept in [low, high] (which hold
    the root); `residual(t, x, *constants)` gives g = log(V / target), g' = d log V / d t and g'' /
    g'.  The step moves x as x e^-s, so near the root x keeps its own digits (e^t would round them
    to t's); with `logit`, t is a logit and x the smaller of its two probabilities, 1 / (1 + e^|t|),
    moved exactly too.  Far from the root (Newton's step 1 or more, or Halley's correction to it
    large) it takes Newton's step, which on a concave g never passes the root from its steep
    side.  An entry is done once a step is below 1e-6 (the next would be below 1e-17: Halley's
    steps triple the digits) or stays put; on the CPU the steps after the first run on the entries
    not done.  A device takes `_DEVICE_STEPS`, or with `checked` as many as the CPU would, asking
    after those whether every entry is done (a host sync per further step)."""
    device = is_device_array(t)
    if device:
        t, x = t.copy(), x.copy()
    else:                                    # (arrays, written in place: a 0-d start may be a scalar)
        t, x = np.array(t, dtype=np.float64), np.array(x, dtype=np.float64)
    done = np.zeros_like(t, dtype=bool)
    for step in range(_MOST_STEPS):
        if device and step >= _DEVICE_STEPS and (not checked or bool(done.all())):
            break
        if device:
            t_, x_, low_, high_, constants_ = t, x, low, high, constants
        else:
            index = np.flatnonzero(~done)
            t_, x_, low_, high_, *constants_ = [c.reshape(-1)[index] for c in (t, x, low, high, *constants)]
        g, slope, curvature = residual(t_, x_, *constants_)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            newton = g / slope
            correction = 1 - 0.5 * newton * curvature
            s = np.where((np.abs(correction - 1) < 0.5) & (np.abs(newton) < 1), newton / correction, newton)
            s = np.where(np.isnan(s), 0.0, s)
            new_t = np.clip(t_ - s, low_, high_)
            inside = (new_t == t_ - s) & (x_ > 1e-306) & (np.abs(s) < 1)   # (x normal: e^t beyond)
            if logit:                                   # (x = 1 / (1 + e^|t|), moved by s exactly)
                side = np.where(t_ > 0, 1.0, -1.0)
                inside = inside & ((new_t > 0) == (t_ > 0))
                new_x = np.where(inside, x_ * np.exp(side * s) / (1 + x_ * np.expm1(side * s)),
                                 1 / (1 + np.exp(np.abs(new_t))))
                reread = (np.log1p(-new_x) - np.log(new_x)) * side
                new_t = np.where(inside & (new_x > 1e-306), reread, new_t)
            else:
                new_x = np.where(inside, x_ * np.exp(-s), np.exp(new_t))
                new_t = np.where(inside & (new_x > 1e-306), np.log(new_x), new_t)
        settled = (np.abs(s) < 1e-6) | (new_t == t_)
        if device:
            t, x = np.where(done, t, new_t), np.where(done, x, new_x)
            done = done | settled
        else:
            t.reshape(-1)[index], x.reshape(-1)[index] = new_t, new_x
            done.reshape(-1)[index] = settled
            if done.all():
                break
    return t, x


def _wilson_hilferty(a, z):
    """log of a (1 - 1/(9a) + z / (3 sqrt a))^3, the Wilson-Hilferty estimate of the gamma quantile
    at the normal quantile z (NaN where the cube's base is not positive)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        base = 1 - 1 / (9 * a) + z / (3 * np.sqrt(a))
        return np.log(a) + 3 * np.log(np.where(base > 0, base, np.nan))


def _gamma_root(a, p, q, lower):
    """x >= 0 with P(a, x) = p and Q(a, x) = q (each given to full precision where it is read),
    0 < p, q < 1, 0 < a < inf: on log P where `lower` (p <= 1/2), on log Q elsewhere.  The bounds:
    P(a, x) <= x^a / Gamma(a + 1) and Q(a, x) <= 2^a e^(-x/2) (Chernoff's); the start inside them:
    the Wilson-Hilferty estimate from a = 1 on, below it P's small-x form, or Q's large-x form where
    that puts x past 1.5."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_gamma_1p = _select(a < 10, _log_gamma_1p, lambda a: psi_arrays(-1, a + 1), a)
        low = (np.log(p) + log_gamma_1p) / a
        high = np.log(2 * (a * math.log(2) - np.log(q)))
        low = np.maximum(low - 1e-9 * (1 + np.abs(low)), _T_RANGE[0])  # (their rounding: the root
        high = np.minimum(high + 1e-9 * (1 + np.abs(high)), _T_RANGE[1])  # can sit at a bound)
        z = np.where(lower, -1.0, 1.0) * math.sqrt(2) * inverse_erf_arrays(2 * np.where(lower, p, q), True)
        start = _wilson_hilferty(a, z)
        start = np.where(np.isnan(start), np.where(lower, low, high), start)
        far = -np.log(q) - (log_gamma_1p - np.log(a))     # Q ~ x^(a-1) e^-x / Gamma(a) for large x
        far = far + (a - 1) * np.log(np.maximum(far, 1.0))
        small = np.where(far > 1.5, np.log(np.maximum(far, 1.5)), low)   # (P ~ x^a / Gamma(a + 1): small x)
        start = np.clip(np.where(a < 1, small, start), low, high)

    def solve(upper):
        def on(a, target, start, low, high, log_gamma_1p):
            return _halley(lambda *args: _gamma_residual(*args, upper), start, np.exp(start), low, high,
                           a, target, log_gamma_1p)[1]
        return on

    return _select(lower, solve(False), solve(True), a, np.where(lower, p, q), start, low, high, log_gamma_1p)


@_in_float64(at=(0, 1))
def inverse_incomplete_gamma_arrays(a, y, upper):
    """x with P(a, x) = y (Q(a, x) = y with `upper`) on ndarrays (broadcast), in float64 inside:
    0 and inf at the ends of [0, 1] (inf and 0 with `upper`), NaN for y outside it, for a
    negative or NaN, and for a = 0 or inf inside it."""
    with np.errstate(invalid="ignore"):
        inside = (a > 0) & (a < np.inf) & (y > 0) & (y < 1)
        a_, y_ = np.where(inside, a, 1.0), np.where(inside, y, 0.5)
        p, q = (1 - y_, y_) if upper else (y_, 1 - y_)   # (1 - y exact from 1/2, where it is read)
        x = _gamma_root(a_, p, q, p <= 0.5)
        start, end = (np.inf, 0.0) if upper else (0.0, np.inf)
        edge = np.where((a >= 0) & (y == 0), start, np.where((a >= 0) & (y == 1), end, np.nan))
    return np.where(inside, x, edge)


class Gammaincinv(Forwarder):
    """x = P^-1(a, y), a held constant: dx/dy = 1 / (x^(a-1) e^-x / Gamma(a)), the gamma density at
    the output (Gammainccinv: Q's inverse, -1 over it)."""

    upper = False

    def forward(self, a, y):
        return inverse_incomplete_gamma_arrays(a, y, self.upper)

    save_for_backward = ("x0", "y")

    def backward(self, gy):
        a, y = self.inputs
        x, = self.outputs
        return None, _reduce(_over_density(gy, Function(GammaDensity())(a, x), self.upper), y)

    taylor_records = True

    def taylor(self, a, y):
        x, = self.outputs
        return _quantile_series(y, x._data, lambda head: _gamma_density_series(a[0], head),
                                -1.0 if self.upper else 1.0)


class Gammainccinv(Gammaincinv):
    """x = Q^-1(a, y), a held constant: dx/dy = -1 / (x^(a-1) e^-x / Gamma(a))."""

    upper = True


class Fdtri(Forwarder):
    """The F distribution's quantile x = (dfd / dfn) w / (1 - w), w = I^-1(dfn / 2, dfd / 2, p) (w and
    1 - w each to its last digit, so both tails keep theirs), dfn and dfd held constant: dx/dp =
    1 / f(x), f the F density, B'(z) dfn dfd / (dfn x + dfd)^2 with B' the beta density at z =
    dfn x / (dfn x + dfd)."""

    @_in_float64(at=(1, 2, 3))
    def forward(self, dfn, dfd, p):
        return dfd / dfn * _odds(*inverse_beta_logit_arrays(dfn * 0.5, dfd * 0.5, p, False))

    save_for_backward = ("x0", "x1", "y")

    def backward(self, gy):
        dfn, dfd, p = self.inputs
        x, = self.outputs
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # (x = inf at p = 1)
            scaled = x * dfn + dfd
            beta = Function(BetaDensity())(dfn * 0.5, dfd * 0.5, x * dfn / scaled)
            density = beta * (dfn * dfd) / (scaled * scaled)
            return None, None, _reduce(_over_density(gy, density), p)

    taylor_records = True

    def taylor(self, dfn, dfd, p):
        x, = self.outputs
        n, d = dfn[0], dfd[0]

        def density(head):                                  # B'(z) n d / (n x + d)^2, z = n x / (n x + d)
            scaled = [head[0] * n + d] + series.scale(head[1:], n)
            z = series.div(series.scale(head, n), scaled)
            return series.mul(_beta_density_series(n * 0.5, d * 0.5, z),
                              series.scale(series.reciprocal(series.square(scaled)), n * d))
        return _quantile_series(p, x._data, density)


_CORNISH_FISHER_DF = 1.0
"""From this df on Student's t quantile starts from its Cornish-Fisher expansion about the normal."""


def _cornish_fisher(z, df):
    """t's quantile from the normal's z to 1/df^4 (Abramowitz and Stegun 26.7.5)."""
    z2 = z * z
    g1 = (z2 + 1) / 4
    g2 = ((5 * z2 + 16) * z2 + 3) / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160
    return z * (1 + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df)


@_in_float64(at=(0, 1))
def student_t_quantile_arrays(df, p):
    """t with stdtr(df, t) = p on ndarrays (broadcast), in float64 inside: t^2 = df (1 - x) / x =
    df e^-T, T the logit of x with I_x(df / 2, 1/2) = 2 min(p, 1 - p) (exact); the normal quantile
    for an infinite df; -+inf at p = 0, 1, NaN for df <= 0 and p outside [0, 1]."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        infinite = df == np.inf
        tail = 2 * np.minimum(p, 1 - p)
        half = np.where(infinite, 1.0, df) * 0.5
        normal = -math.sqrt(2) * inverse_erf_arrays(2 * p, True) + 0.0
        start = np.where((df >= _CORNISH_FISHER_DF) & (np.abs(normal) < 6), np.log(df) - 2 * np.log(
            np.abs(_cornish_fisher(normal, df))), np.nan)
        t = np.sqrt(df / _odds(*inverse_beta_logit_arrays(half, np.full_like(half, 0.5), tail, False, start)))
        t = t * np.where(p < 0.5, -1.0, 1.0)
        return np.where(infinite, normal, np.where(df > 0, t, np.nan))


class Stdtrit(Forwarder):
    """Student's t quantile, df held constant: dt/dp = 1 / f(t), f Student's t density."""

    def forward(self, df, p):
        return student_t_quantile_arrays(df, p)

    save_for_backward = ("x0", "y")

    def backward(self, gy):
        df, p = self.inputs
        t, = self.outputs
        return None, _reduce(_over_density(gy, Function(StudentTDensity())(df, t)), p)

    taylor_records = True

    def taylor(self, df, p):
        t, = self.outputs
        return _quantile_series(p, t._data, lambda head: _student_t_density_series(df[0], head))


# ----- the normal distribution: its quantile in log space, and its mean and scale ---------------
_LOG_2_HIGH, _LOG_2_LOW = 0.6931471805599453, 2.3190468138462996e-17
"""log 2 = _LOG_2_HIGH + _LOG_2_LOW to twice a double's digits."""


def _ndtri_far(y):
    """ndtri_exp for y < -700 (e^y below the floats): the tail's asymptotics x^2 = -2y - log(2 pi x^2)
    (within 1e-3 there; within the floats' reach past y = -1e20), then four of Newton's steps on
    log_ndtr, each squaring the error."""
    x = -np.sqrt(-2 * y)
    for _ in range(3):
        x = -np.sqrt(-2 * y - np.log(2 * math.pi * x * x))
    near = np.maximum(y, -1e20)
    z = np.maximum(x, -np.sqrt(-2 * near))
    for _ in range(4):
        log_phi = log_ndtr_arrays(z)
        z = z - (log_phi - near) * np.exp(0.5 * z * z + _LOG_SQRT_2PI + log_phi)
    return np.where(y > -1e20, z, x)


@_in_float64()
def ndtri_exp_arrays(y):
    """x with log Phi(x) = y on an ndarray, in float64 inside: about p = e^y = 1/2 (y within 0.69
    below and 0.5 above log 1/2) sqrt(2) erfinv(2p - 1) with 2p - 1 = expm1(y + log 2) from log 2
    in two parts (p - 1/2 keeps its digits); above, -ndtri(-expm1(y)) (1 - p keeps its); below,
    ndtri(e^y) down to y = -700, and `_ndtri_far` beyond; inf at 0, -inf at -inf, NaN above 0."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore", under="ignore"):
        top, center = y > _LOG_2_HIGH * -1 + 0.5, y >= -2 * _LOG_2_HIGH
        tail = -math.sqrt(2) * inverse_erf_arrays(2 * np.exp(np.where(center, -1.0, y)), True)
        upper = math.sqrt(2) * inverse_erf_arrays(-2 * np.expm1(np.where(top, y, -0.1)), True) + 0.0
        a = np.expm1((np.where(center & ~top, y, -0.7) + _LOG_2_HIGH) + _LOG_2_LOW)     # 2p - 1
        middle = math.sqrt(2) * inverse_erf_arrays(a, False)
        deep = y < -700
        far = _select(deep, _ndtri_far, lambda y: y, np.where(deep, y, -800.0))
        x = np.where(top, upper, np.where(center, middle, np.where(deep, far, tail)))
        return np.where(y == 0, np.inf, np.where(y == -np.inf, -np.inf, np.where(y > 0, np.nan, x)))


class NdtriExp(Forwarder):
    """x = ndtri(e^y), the inverse of log_ndtr: dx/dy = Phi(x) / phi(x) = e^(y + x^2/2 + log sqrt(2 pi))."""

    def forward(self, y):
        return ndtri_exp_arrays(y)

    save_for_backward = ("x0", "y")

    def backward(self, gy):
        y, = self.inputs
        x, = self.outputs
        with np.errstate(invalid="ignore", over="ignore"):        # (x = inf at y = 0)
            return gy * exp(y + (x * x) * 0.5 + _LOG_SQRT_2PI)

    taylor_records = True
    _pointwise = True

    def taylor(self, y):
        x, = self.outputs

        def slope(xs, m):    # coefficient m of e^u, u = y + x^2/2 + log sqrt(2 pi)
            x2 = series.square(list(xs[:m + 1]))
            u = [y[0] + 0.5 * x2[0] + _LOG_SQRT_2PI] + [y[j] + 0.5 * x2[j] if j < len(y) else 0.5 * x2[j]
                                                       for j in range(1, m + 1)]
            return series.exp(u)[m]
        return series.ode(y, x._data, slope)


def _inverse_gamma(op, a, y, upper):
    a, y, xp = _arguments(op, "a, y", "y", ("a",), a, y)
    return Function(Gammainccinv() if upper else Gammaincinv())(a, y)


def gammaincinv(a, y):
    """The inverse of the regularized lower incomplete gamma function in x, elementwise with
    broadcasting (scipy.special.gammaincinv): x with P(a, x) = y, the gamma distribution's
    quantile (scipy.stats.gamma.ppf(y, a)).

    Parameters
    ----------
    a : ArrayLike
        The shape, a constant (a > 0; an array, or a Variable that does not require grad).
    y : ArrayLike
        Probabilities in [0, 1] (integers become float64).

    Returns
    -------
    Variable
        Of the broadcast shape, to a few ulps (y's tail below 1/2 read as itself, above it as
        1 - y); 0 at y = 0, inf at y = 1, NaN outside [0, 1] or for a <= 0.  Its derivative in
        y is 1 / (x^(a-1) e^-x / Gamma(a)), to any order.

    Raises
    ------
    TypeError
        If a requires grad: its derivative in a is not implemented.
    """
    return _inverse_gamma("gammaincinv", a, y, upper=False)


def gammainccinv(a, y):
    """The inverse of the regularized upper incomplete gamma function in x, elementwise with
    broadcasting (scipy.special.gammainccinv): x with Q(a, x) = y, read from y itself (a tail as
    small as y = 1e-300 keeps its digits); inf at y = 0, 0 at y = 1.  As `gammaincinv` otherwise;
    its derivative in y is -1 / (x^(a-1) e^-x / Gamma(a))."""
    return _inverse_gamma("gammainccinv", a, y, upper=True)


def chdtri(v, p):
    """The inverse of the chi-square survival function in x, elementwise with broadcasting
    (scipy.special.chdtri): x with chdtrc(v, x) = p, 2 gammainccinv(v / 2, p); differentiable in
    p (v constant)."""
    v, p, xp = _arguments("chdtri", "v, p", "p", ("v",), v, p)
    return Function(Gammainccinv())(new_variable(v.data * 0.5), p) * 2.0


def gdtrix(a, b, p):
    """The gamma distribution's quantile of rate a and shape b, elementwise with broadcasting
    (scipy.special.gdtrix, SciPy's order): x with gdtr(a, b, x) = p, gammaincinv(b, p) / a;
    differentiable in p (a, b constants)."""
    a, b, p, xp = _arguments("gdtrix", "a, b, p", "p", ("a", "b"), a, b, p)
    return Function(Gammaincinv())(new_variable(b.data), p) / a


def gdtria(p, b, x):
    """The rate a of the gamma distribution of shape b in which x is the p quantile, elementwise with
    broadcasting (scipy.special.gdtria, SciPy's order): gdtr(a, b, x) = p, a = gammaincinv(b, p) /
    x; differentiable in p and x (b constant, as gammaincinv's a); NaN at x = 0 (as SciPy's)."""
    _constant_parameters("gdtria(p, b, x)", "p and x", (("b", b),),
                         "gdtria(p, b, x): the probability, the shape b, then the quantile x")
    p, b, x = _floats_on_one_device("gdtria", p, b, x)
    zero = x.data == 0
    return where(zero, np.nan, gammaincinv(b, p) / where(zero, 1.0, x))


def pdtri(k, y):
    """The Poisson mean m with pdtr(k, m) = y, elementwise with broadcasting (scipy.special.pdtri):
    gammainccinv(floor(k) + 1, y), differentiable in y (k constant, floored as SciPy takes it);
    NaN for k < 0 and, as SciPy, at y = 1 (where the mean would be 0)."""
    k, y, xp = _arguments("pdtri", "k, y", "y", ("k",), k, y)
    with np.errstate(invalid="ignore"):
        counts = xp.where(k.data >= 0, xp.floor(k.data) + 1.0, np.nan)
        counts = xp.where(y.data == 1, np.nan, counts)
    return Function(Gammainccinv())(new_variable(counts), y)


# ----- the beta distribution: betaincinv and the quantiles on it --------------------------------
def _log_sigmoid(t):
    """log(1 / (1 + e^-t)), for any t (no overflow)."""
    return -np.logaddexp(0.0, -t)


def _beta_residual(t, m, a, b, target, log_beta):
    """(g, g', g''/g') of g = log(I_u(a, b) / target) in t = log(u / (1 - u)), m = 1 / (1 + e^|t|)
    the smaller of u and 1 - u (each to its last digit):
    g' = D / I, D = u^a (1 - u)^b / B(a, b) (`log_beta`: log B(a, b)), and g''/g' = a (1 - u) - b u -
    g'.  I from the incomplete beta function where it is above `_TINY`; below, from its logarithm,
    the prefix's and the continued fraction's (the tail is left of the mean, where it converges);
    below the normal floats u is read from t (I = u^a / (a B(a, b)) there)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        log_u, log_w = _log_sigmoid(t), _log_sigmoid(-t)
        log_d = a * log_u + b * log_w - log_beta
        u, w = np.where(t > 0, 1 - m, m), np.where(t > 0, m, 1 - m)   # (past 1/2 as 1 - I_w(b, a))
        v = _select(u <= 0.5, lambda a, b, u, w: incomplete_beta_arrays(a, b, u, False),
                    lambda a, b, u, w: incomplete_beta_arrays(b, a, w, True), a, b, u, w)
        under = u < 1e-306                              # (u or 1 - u below the normal floats: from t,
        v = np.where(w < 1e-306, -np.expm1(log_d - np.log(b)), v)   # I_w(b, a) = w^b / (b B(a, b)))

        def logarithm(a, b, u, v, log_d):
            return np.log(v)

        def tiny(a, b, u, v, log_d):
            _, offset = _beta_offsets(a, b, u)
            return log_d - np.log(a) + np.log(_beta_fraction(a, b, u, offset))

        small = (v < _TINY) & ~under
        log_v = _select(small, tiny, logarithm, a, b, u, v, log_d)
        log_v = np.where(under, log_d - np.log(a), log_v)
        residual = np.where(small | under | (target < _TINY), log_v - np.log(target), np.log(v / target))
        slope = np.exp(log_d - log_v)
    return residual, slope, a * np.exp(log_w) - b * u - slope


def _beta_halley(t, a, b, target, log_beta):
    """`_halley` in the logit: (t, m), m = 1 / (1 + e^|t|) to its last digit."""
    low, high = np.full_like(t, _T_RANGE[0]), np.full_like(t, -_T_RANGE[0])
    with np.errstate(over="ignore"):
        m = 1 / (1 + np.exp(np.abs(t)))
    return _halley(_beta_residual, t, m, low, high, a, b, target, log_beta, logit=True, checked=True)


def _beta_start(a, b, target):
    """A start for t = logit(u) with I_u(a, b) = target <= 1/2: from a, b >= 1 the normal
    approximation of the beta quantile (Abramowitz and Stegun 26.5.22, with the normal quantile
    itself); else the leading terms at either end, u^a / (a B) and 1 - (1 - u)^b / (b B), B
    approximated by 1/(a (a/s)^-a) + 1/(b (b/s)^-b), s = a + b, as Numerical Recipes' invbetai."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = math.sqrt(2) * inverse_erf_arrays(2 * target, True)         # -ndtri(target) >= 0
        square = (z * z - 3) / 6
        h = 2 / (1 / (2 * a - 1) + 1 / (2 * b - 1))
        w = z * np.sqrt(square + h) / h - (1 / (2 * b - 1) - 1 / (2 * a - 1)) * (square + 5 / 6 - 2 / (3 * h))
        normal = np.log(a / b) - 2 * w
        s = a + b
        left, right = np.exp(a * np.log(a / s)) / a, np.exp(b * np.log(b / s)) / b
        total = left + right
        log_u = np.log(a * total * target) / a
        log_w = np.log(b * total * (1 - target)) / b
        ends = np.where(target < left / total, log_u - np.log(-np.expm1(log_u)),
                        np.log(-np.expm1(log_w)) - log_w)
        start = np.where((a >= 1) & (b >= 1), normal, ends)
    return np.clip(np.where(np.isnan(start), 0.0, start), _T_RANGE[0], -_T_RANGE[0])


def inverse_beta_logit_arrays(a, b, y, upper, logit_start=None):
    """(t, m): t = log(x / (1 - x)) with I_x(a, b) = y (1 - I_x(a, b) = y with `upper`) and m the
    smaller of x and 1 - x, on float64 ndarrays (broadcast): solved on the tail below 1/2 (I_x(a,
    b) = 1 - I_(1-x)(b, a), the logit's sign flipping), so x and 1 - x both keep their digits;
    t -+inf at the ends of [0, 1] (+-inf with `upper`), NaN outside it and for a or b not in
    (0, inf).  `logit_start`: a start for t where the caller has a better one (NaN elsewhere)."""
    a, b, y = np.broadcast_arrays(a, b, y)
    with np.errstate(invalid="ignore", divide="ignore"):
        inside = (a > 0) & (b > 0) & (a < np.inf) & (b < np.inf) & (y > 0) & (y < 1)
        a_, b_, y_ = np.where(inside, a, 1.0), np.where(inside, b, 1.0), np.where(inside, y, 0.5)
        value, complement = (1 - y_, y_) if upper else (y_, 1 - y_)   # (1 - y exact from 1/2, where read)
        swap = value > 0.5
        p, q, target = np.where(swap, b_, a_), np.where(swap, a_, b_), np.where(swap, complement, value)
        start = _beta_start(p, q, target)
        if logit_start is not None:                     # (the caller's, in x's frame, where it has one)
            given = np.where(swap, -logit_start, logit_start)
            start = np.where(np.isfinite(given), np.clip(given, _T_RANGE[0], -_T_RANGE[0]), start)
        t, m = _beta_halley(start, p, q, target, betaln_arrays(p, q))
        t = np.where(swap, -t, t)
        low, high = (np.inf, -np.inf) if upper else (-np.inf, np.inf)
        valid = (a > 0) & (b > 0) & (a < np.inf) & (b < np.inf)
        edge = np.where(valid & (y == 0), low, np.where(valid & (y == 1), high, np.nan))
        t = np.where(inside, t, edge)
        m = np.where(inside, m, np.where(np.isnan(edge), np.nan, 0.0))
    return t, m


def inverse_beta_arrays(a, b, y, upper):
    """x with I_x(a, b) = y (1 - I = y with `upper`), to its last digit near 0 and near 1."""
    t, m = inverse_beta_logit_arrays(a, b, y, upper)
    return np.where(t > 0, 1 - m, m)


def _odds(t, m):
    """x / (1 - x) for the logit t of x and m = min(x, 1 - x), each digit kept."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(t > 0, (1 - m) / m, m / (1 - m))


class Betaincinv(Forwarder):
    """x = I^-1(a, b, y), a and b held constant: dx/dy = 1 / (x^(a-1) (1-x)^(b-1) / B(a, b)), the beta
    density at the output (Betainccinv: the complement's inverse, -1 over it)."""

    upper = False

    def forward(self, a, b, y):
        return _in_float64(at=(0, 1, 2))(inverse_beta_arrays)(a, b, y, self.upper)

    save_for_backward = ("x0", "x1", "y")

    def backward(self, gy):
        a, b, y = self.inputs
        x, = self.outputs
        return None, None, _reduce(_over_density(gy, Function(BetaDensity())(a, b, x), self.upper), y)

    taylor_records = True

    def taylor(self, a, b, y):
        x, = self.outputs
        return _quantile_series(y, x._data, lambda head: _beta_density_series(a[0], b[0], head),
                                -1.0 if self.upper else 1.0)


class Betainccinv(Betaincinv):
    """x with 1 - I_x(a, b) = y, a and b held constant: dx/dy = -1 over the beta density."""

    upper = True


def _inverse_beta(op, a, b, y, upper):
    a, b, y, xp = _arguments(op, "a, b, y", "y", ("a", "b"), a, b, y)
    return Function(Betainccinv() if upper else Betaincinv())(a, b, y)


def betaincinv(a, b, y):
    """The inverse of the regularized incomplete beta function in x, elementwise with broadcasting
    (scipy.special.betaincinv): x with I_x(a, b) = y, the beta distribution's quantile
    (scipy.stats.beta.ppf(y, a, b)).

    Parameters
    ----------
    a, b : ArrayLike
        The shapes, constants (a, b > 0; arrays, or Variables that do not require grad).
    y : ArrayLike
        Probabilities in [0, 1] (integers become float64).

    Returns
    -------
    Variable
        Of the broadcast shape: x and 1 - x each to a few ulps (the tail below 1/2 read as itself,
        the other as 1 - y); 0 at y = 0, 1 at y = 1, NaN outside [0, 1] or for a or b not in
        (0, inf).  Its derivative in y is one over the beta density at x, to any order.

    Raises
    ------
    TypeError
        If a or b requires grad: their derivatives are not implemented.
    """
    return _inverse_beta("betaincinv", a, b, y, upper=False)


def betainccinv(a, b, y):
    """x with 1 - I_x(a, b) = y, elementwise with broadcasting (scipy.special.betainccinv), read from y
    itself; as `betaincinv` otherwise (1 at y = 0, 0 at y = 1; the derivative -1 over the density)."""
    return _inverse_beta("betainccinv", a, b, y, upper=True)


def bdtri(k, n, y):
    """The success probability p with bdtr(k, n, p) = y, elementwise with broadcasting
    (scipy.special.bdtri): betainccinv(k + 1, n - k, y), differentiable in y (k, n constants,
    floored as SciPy takes them); NaN for k < 0 or k >= n."""
    k, n, y, xp = _arguments("bdtri", "k, n, y", "y", ("k", "n"), k, n, y)
    with np.errstate(invalid="ignore"):
        k_, n_ = xp.floor(k.data), xp.trunc(n.data)
        valid = (k_ >= 0) & (k_ < n_)
        a, b = xp.where(valid, k_ + 1.0, np.nan), xp.where(valid, n_ - k_, np.nan)
    return Function(Betainccinv())(new_variable(a), new_variable(b), y)


def nbdtri(k, n, y):
    """The success probability p with nbdtr(k, n, p) = y, elementwise with broadcasting
    (scipy.special.nbdtri): betaincinv(n, floor(k) + 1, y), differentiable in y (k, n constants);
    NaN for k < 0 or n <= 0."""
    k, n, y, xp = _arguments("nbdtri", "k, n, y", "y", ("k", "n"), k, n, y)
    with np.errstate(invalid="ignore"):
        failures = xp.where(k.data >= 0, xp.floor(k.data) + 1.0, np.nan)
    return Function(Betaincinv())(new_variable(n.data), new_variable(failures), y)


def fdtri(dfn, dfd, p):
    """The F distribution's quantile, elementwise with broadcasting (scipy.special.fdtri): x with
    fdtr(dfn, dfd, x) = p, dfd w / (dfn (1 - w)) for w = betaincinv(dfn / 2, dfd / 2, p) (from w's
    logit, so far tails keep their digits); differentiable in p (dfn, dfd constants); 0 at p = 0,
    inf at p = 1, NaN for dfn <= 0 or dfd <= 0."""
    dfn, dfd, p, xp = _arguments("fdtri", "dfn, dfd, p", "p", ("dfn", "dfd"), dfn, dfd, p)
    return Function(Fdtri())(dfn, dfd, p)


def stdtrit(df, p):
    """Student's t quantile, elementwise with broadcasting (scipy.special.stdtrit,
    scipy.stats.t.ppf(p, df)): t with stdtr(df, t) = p, differentiable in p (df constant) as one
    over the density; -inf at p = 0, inf at p = 1, the normal quantile for an infinite df, NaN
    for df <= 0."""
    df, p, xp = _arguments("stdtrit", "df, p", "p", ("df",), df, p)
    return Function(Stdtrit())(df, p)


def ndtri_exp(y):
    """The standard normal quantile of e^y, elementwise (scipy.special.ndtri_exp): the inverse of
    log_ndtr, for probabilities given by their logarithm, y <= 0 (integers become float64).  Kept
    to a few ulps where e^y underflows (ndtri_exp(-1e10) = -141421.3...) and where 1 - e^y would
    round (ndtri_exp(-1e-20) = 9.262...); inf at 0, -inf at -inf, NaN above 0.  Its derivative is
    Phi(x) / phi(x), to any order."""
    return Function(NdtriExp())(y)


def nrdtrimn(p, std, x):
    """The mean of the normal distribution of standard deviation std in which x is the p quantile,
    elementwise with broadcasting (scipy.special.nrdtrimn): x - std ndtri(p), differentiable in
    every argument; NaN for std <= 0 and p outside (0, 1)."""
    p, std, x = _floats_on_one_device("nrdtrimn", p, std, x)
    bad = ~((p.data > 0) & (p.data < 1) & (std.data > 0))
    return where(bad, np.nan, x - std * ndtri(where(bad, 0.5, p)))


def nrdtrisd(mn, p, x):
    """The standard deviation of the normal distribution of mean mn in which x is the p quantile,
    elementwise with broadcasting (scipy.special.nrdtrisd): (x - mn) / ndtri(p), differentiable in
    every argument (negative where x and the quantile are on opposite sides of the mean, as
    SciPy's); +-inf at p = 1/2, NaN for p outside (0, 1)."""
    mn, p, x = _floats_on_one_device("nrdtrisd", mn, p, x)
    bad = ~((p.data > 0) & (p.data < 1))
    return where(bad, np.nan, (x - mn) / ndtri(where(bad, 0.25, p)))


__all__ = ["gammaincinv", "gammainccinv", "chdtri", "gdtrix", "gdtria", "pdtri", "betaincinv", "betainccinv",
           "bdtri", "nbdtri", "fdtri", "stdtrit", "ndtri_exp", "nrdtrimn", "nrdtrisd"]
