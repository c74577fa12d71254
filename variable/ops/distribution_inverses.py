"""The inverses of scipy.special's distribution functions: gammaincinv and gammainccinv (the
inverses of the regularized incomplete gamma functions in x) and the quantiles built on them,
chdtri (chi-square), gdtrix (gamma) and pdtri (the Poisson mean).

Each is differentiated in its probability, to any order: x = F^-1(y) has dx/dy = 1 / F'(x), the
density at the output, itself a differentiable op (so the backward pass is differentiable
again), and its Taylor rule solves x' = y' / F'(x) coefficient by coefficient.  The shapes,
degrees of freedom and counts are constants, refused when they require grad, as they are in the
distribution functions.

The forward solves F(x) = y by Newton's steps in t = log x on log F (or log of the complement,
whichever is the smaller tail, so a tail keeps its digits): the gamma distribution's log is a
log-concave variable (its density e^(a t - e^t) / Gamma(a) is), so log P and log Q are concave
in t, and a Newton step from the steep side never passes the root, and from the flat side lands
on the steep one.  Every step is kept inside bounds that hold the root, so no start diverges.
"""

import math

import numpy as np

from .. import series
from ..backend import is_device_array
from ..forwarder import Forwarder, Function, new_variable
from .distribution_functions import _arguments
from .elementwise import _reduce
from .special import (
    GammaDensity,
    _at_value,
    _gamma_density_series,
    _gamma_log_prefix,
    _in_float64,
    _log_gamma_1p,
    _lower_sum,
    _select,
    _temme_parts,
    _upper_denominator,
    erfcx_arrays,
    incomplete_gamma_arrays,
    inverse_erf_arrays,
    psi_arrays,
)

_DEVICE_STEPS = 6
"""Halley's steps on a device, where every entry takes them all (on the CPU the loop stops once
every entry has converged; a converged entry does not move, so both give the same bits): the
most any entry took was 4, over a grid of a from 1e-300 to 1e12 and y from 1e-323 to 1 - 1e-16
and 1.2 million random (a, y) with a from 1e-12 to 1e9."""

_TINY = 1e-305
"""Below this a tail's value is taken in logarithms throughout (it would underflow)."""

_T_RANGE = (-800.0, 709.0)
"""t = log x is kept in this range: below it x is 0 in floats (so is the answer), above it inf."""


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


def _halley(residual, t, x, low, high, *constants):
    """t = log x with log V(t) = log target by Halley's steps, each kept in [low, high] (which hold
    the root); `residual(t, x, *constants)` gives g = log(V / target), g' = d log V / d t and g'' /
    g'.  The step moves x as x e^-s, so near the root x keeps its own digits (e^t would round them
    to t's).  Far from the root (where Halley's correction to Newton's step is large) it takes
    Newton's step, which on a concave g never passes the root from its steep side.  An entry is
    done once a step is below 1e-6 (the next would be below 1e-17: Halley's steps triple the
    digits) or stays put; on the CPU the steps after the first run on the entries not done."""
    device = is_device_array(t)
    done = np.zeros_like(t, dtype=bool)
    t, x = t.copy(), x.copy()
    for _ in range(_DEVICE_STEPS if device else 4 * _DEVICE_STEPS):
        if device:
            t_, x_, low_, high_, constants_ = t, x, low, high, constants
        else:
            index = np.flatnonzero(~done)
            t_, x_, low_, high_, *constants_ = [c.reshape(-1)[index] for c in (t, x, low, high, *constants)]
        g, slope, curvature = residual(t_, x_, *constants_)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            newton = g / slope
            correction = 1 - 0.5 * newton * curvature
            s = np.where(np.abs(correction - 1) < 0.5, newton / correction, newton)
            s = np.where(np.isnan(s), 0.0, s)
            new_t = np.clip(t_ - s, low_, high_)
            inside = (new_t == t_ - s) & (x_ > 1e-306) & (np.abs(s) < 1)   # (x normal: e^t beyond)
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
    return x


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
                           a, target, log_gamma_1p)
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
        a, _ = self.inputs
        x, = self.outputs
        g = gy / Function(GammaDensity())(a, x)
        return None, _reduce(-g if self.upper else g, self.inputs[1])

    taylor_records = True

    def taylor(self, a, y):
        x, = self.outputs
        sign = -1.0 if self.upper else 1.0

        def slope(xs, m):                                   # coefficient m of +-1 / density(x)
            density = _gamma_density_series(a[0], list(xs[:m + 1]))
            return sign * series.reciprocal(density)[m]
        return _at_value(x._data, series.ode(y, x._data, slope))


class Gammainccinv(Gammaincinv):
    """x = Q^-1(a, y), a held constant: dx/dy = -1 / (x^(a-1) e^-x / Gamma(a))."""

    upper = True


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


def pdtri(k, y):
    """The Poisson mean m with pdtr(k, m) = y, elementwise with broadcasting (scipy.special.pdtri):
    gammainccinv(floor(k) + 1, y), differentiable in y (k constant, floored as SciPy takes it);
    NaN for k < 0 and, as SciPy, at y = 1 (where the mean would be 0)."""
    k, y, xp = _arguments("pdtri", "k, y", "y", ("k",), k, y)
    with np.errstate(invalid="ignore"):
        counts = xp.where(k.data >= 0, xp.floor(k.data) + 1.0, np.nan)
        counts = xp.where(y.data == 1, np.nan, counts)
    return Function(Gammainccinv())(new_variable(counts), y)


__all__ = ["gammaincinv", "gammainccinv", "chdtri", "gdtrix", "pdtri"]
