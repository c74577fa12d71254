"""The Kolmogorov distribution on Variables: scipy.special's kolmogorov (the survival function of
the limiting Kolmogorov-Smirnov statistic, sqrt(n) D_n) and kolmogi (its inverse), and the CDF
1 - kolmogorov and its inverse as themselves (V.stats.kstwobign's cdf and ppf: a CDF of 1e-300
keeps its digits), each differentiable to any order.

    kolmogorov(x) = 2 sum_(k>=1) (-1)^(k-1) e^(-2 k^2 x^2)                          (x >= 0.82)
                  = 1 - sqrt(2 pi) / x sum_(k>=1) e^(-(2k-1)^2 pi^2 / (8 x^2))       (x < 0.82)

(Jacobi's theta transformation makes the two one function), 1 for x <= 0.  The exponentials of
the first sum take x^2 split exactly (special.py's _exp_minus_square), so the far tail keeps its
digits (2e-16 of 40-digit values at x = 10, value 3e-87).  The derivative is the sums' own,
written with gengrad's ops (so it is differentiable again), and Taylor mode integrates its series.

kolmogi(p) solves kolmogorov(x) = p by Newton's steps from the tails' leading terms (6 on every
entry, no data-dependent branch), on the residual of whichever tail is below 1/2 (1 - p, exact
there, against the theta sum itself: near p = 1, where x is small, p's own rounding would cost
x 1e-7): dx/dp = 1 / kolmogorov'(x).

smirnov(n, d) is the exact one-sided statistic of n samples, P(D_n^+ >= d): Birnbaum and Tingey's
sum d sum_(j < n (1 - d)) C(n, j) (d + j/n)^(j - 1) (1 - d - j/n)^(n - j), every term positive,
each a binomial probability in Loader's saddle-point form (Stirling's remainders and bd0(x, M) =
x log(x / M) + M - x by its series near x = M), so no n-fold product of rounded powers: within 6
+ 3 kappa ulps of exact rationals, kappa = |d S'/S| its condition.  The forward pass runs in
pieces of entries (no graph: the n terms per entry stay in a few MB); the derivative is the sum's
own, written with gengrad's ops, and Taylor mode carries d's series through it (V.jet).
smirnovi(n, p) solves it by Newton's steps on log S, kept in the bracket the residuals give.
Below d = 1/n the CDF 1 - S is one term, d (1 + d)^(n - 1); ksone_low_quantile inverts it (a small
probability to its last digit: smirnovi(n, 1 - q) would round q away).
"""

import functools
import math
from decimal import Decimal, localcontext

import numpy as np

from .. import series
from ..backend import get_array_module, is_device_array
from ..config import no_grad
from ..directions import Directions
from ..forward_mode import jet
from ..forwarder import Forwarder, Function, as_variable
from ..variable import Variable
from .distribution_inverses import _quantile_series
from .elementwise import exp, log
from .exponential import log1p
from .piecewise import where
from .shape import broadcast_to, expand_dims
from .special import (
    _B,
    _as_float_variable,
    _each_pair,
    _exp_minus_square,
    _in_float64,
    _stirling_correction,
    _whole_numbers,
)

__all__ = ["kolmogorov", "kolmogi", "smirnov", "smirnovi"]

_SPLIT = 0.82
_FAR_TERMS, _NEAR_TERMS = 7, 5
"""Terms of each sum: e^(-2 k^2 x^2) from x = 0.82 is below 1e-20 of the first at k = 7, and
e^(-(2k-1)^2 pi^2 / (8 x^2)) below x = 0.82 at k = 5."""
_SQRT_2PI = math.sqrt(2 * math.pi)
_NEWTON_STEPS = 6


def _near_constant(k):
    """(2k - 1)^2 pi^2 / 8, the theta form's exponent times x^2."""
    return (2 * k - 1) ** 2 * math.pi ** 2 / 8


def _sums(x, xp):
    """(kolmogorov(x), 1 - kolmogorov(x), kolmogorov'(x)), each as itself on its side of 0.82, from
    one set of exponentials: 2 sum (-1)^(k-1) e^(-2 k^2 x^2) and its slope -8 x sum (-1)^(k-1) k^2
    e^(-2 k^2 x^2) above, sqrt(2 pi) / x sum e^(-c_k / x^2) and sqrt(2 pi) sum e^(-c_k / x^2)
    (1/x^2 - 2 c_k / x^4) below (the other as 1 minus it; the slope 0 at and below 0)."""
    far = xp.where((x >= _SPLIT) & (x < 40.0), x, 40.0)   # (e^(-2 x^2) underflows from 27.3)
    total, slope = far * 0.0, far * 0.0
    for k in range(_FAR_TERMS, 0, -1):                  # (the smallest terms first)
        term = _exp_minus_square(far * k, 2.0)
        total = total + (-1.0) ** (k - 1) * term
        slope = slope + ((-1.0) ** (k - 1) * k * k) * term
    far_value = 2.0 * total
    near = xp.where((x > 0) & (x < _SPLIT), x, 0.5)
    inverse_square = 1.0 / (near * near)
    theta, near_slope = near * 0.0, near * 0.0
    for k in range(_NEAR_TERMS, 0, -1):
        c = _near_constant(k)
        term = xp.exp(-c * inverse_square)
        theta = theta + term
        near_slope = near_slope + term * (inverse_square - 2.0 * c * inverse_square ** 2)
    near_complement = (_SQRT_2PI / near) * theta
    value = xp.where(x >= _SPLIT, far_value, xp.where(x > 0, 1.0 - near_complement, 1.0))
    complement = xp.where(x >= _SPLIT, 1.0 - far_value, xp.where(x > 0, near_complement, 0.0))
    derivative = xp.where(x >= _SPLIT, -8.0 * far * slope, xp.where(x > 0, _SQRT_2PI * near_slope, 0.0))
    return value, complement, derivative


@_in_float64()
def kolmogorov_arrays(x):
    """kolmogorov(x) on an ndarray: 1 at and below 0 (and at -inf), 0 at inf, NaN at NaN."""
    xp = get_array_module(x)
    with np.errstate(under="ignore", over="ignore", divide="ignore", invalid="ignore"):
        return xp.where(xp.isnan(x), np.nan, _sums(x, xp)[0])


def _slope(x):
    """kolmogorov'(x) of a Variable, with gengrad's ops: -8 x sum (-1)^(k-1) k^2 e^(-2 k^2 x^2) from
    0.82 on, sqrt(2 pi) sum e^(-c_k / x^2) (1/x^2 - 2 c_k / x^4) below (0 at and below 0, and from
    40 on, where it underflows); an array is taken as a constant Variable."""
    x = as_variable(x, op="kolmogorov")
    xp = get_array_module(x._data)
    far_mask, near_mask = (x._data >= _SPLIT) & (x._data < 40.0), (x._data > 0) & (x._data < _SPLIT)
    far = where(far_mask, x, 1.0)
    square = far * far
    total = 0.0
    for k in range(_FAR_TERMS, 0, -1):
        total = total + ((-1.0) ** (k - 1) * k * k) * exp(square * (-2.0 * k * k))
    far_slope = far * total * -8.0
    near = where(near_mask, x, 0.5)
    inverse_square = 1.0 / (near * near)
    near_total = 0.0
    for k in range(_NEAR_TERMS, 0, -1):
        c = _near_constant(k)
        square = inverse_square * inverse_square
        near_total = near_total + exp(inverse_square * -c) * (inverse_square - 2.0 * c * square)
    near_slope = near_total * _SQRT_2PI
    rest = xp.where(xp.isnan(x._data), np.nan, 0.0).astype(x.dtype)   # (NaN at NaN, as its value)
    return where(far_mask, far_slope, where(near_mask, near_slope, rest))


def _slope_series(x):
    """Series of kolmogorov' along the series x, each sum on the entries of its side (batched
    directions too: coefficients picked by products, as V.dawsn's rule does)."""
    x0 = x[0]._data if isinstance(x[0], Variable) else x[0]
    xp = get_array_module(x0)
    far_mask, near_mask = (x0 >= _SPLIT) & (x0 < 40.0), (x0 > 0) & (x0 < _SPLIT)
    on_far, on_near = far_mask.astype(x0.dtype), near_mask.astype(x0.dtype)
    far = [where(far_mask, x[0], 1.0) if isinstance(x[0], Variable) else xp.where(far_mask, x0, 1.0)]
    far += [c * on_far for c in x[1:]]
    near = [where(near_mask, x[0], 0.5) if isinstance(x[0], Variable) else xp.where(near_mask, x0, 0.5)]
    near += [c * on_near for c in x[1:]]
    square = series.square(far)
    total = None
    for k in range(_FAR_TERMS, 0, -1):
        term = series.scale(series.exp(series.scale(square, -2.0 * k * k)), (-1.0) ** (k - 1) * k * k)
        total = term if total is None else series.add(total, term)
    far_slope = series.scale(series.mul(far, total), -8.0)
    inverse_square = series.reciprocal(series.square(near))
    near_total = None
    for k in range(_NEAR_TERMS, 0, -1):
        c = _near_constant(k)
        factor = series.sub(inverse_square, series.scale(series.square(inverse_square), 2.0 * c))
        term = series.mul(series.exp(series.scale(inverse_square, -c)), factor)
        near_total = term if near_total is None else series.add(near_total, term)
    near_slope = series.scale(near_total, _SQRT_2PI)
    return [f * on_far + n * on_near for f, n in zip(far_slope, near_slope)]


class Kolmogorov(Forwarder):
    """kolmogorov(x): its derivative the sums' own (`_slope`; `sign` -1: the complement's, minus it)."""

    sign = 1.0

    def forward(self, x):
        return kolmogorov_arrays(x)

    save_for_backward = ("x0",)

    def backward(self, gy):
        x, = self.inputs
        slope = _slope(x)
        return gy * (slope if self.sign > 0 else -slope)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        if len(x) == 1:
            return [y._data]
        slope = _slope_series(x[:-1])
        return series.integral(x, y._data, slope if self.sign > 0 else series.neg(slope))


def kolmogorov(x):
    """The Kolmogorov distribution's survival function, elementwise (scipy.special.kolmogorov): the
    limit of P(sqrt(n) D_n > x) for the Kolmogorov-Smirnov statistic D_n; 1 for x <= 0.  Its
    derivative to any order.  Within a few ulps of 40-digit values, the far tail too."""
    return Function(Kolmogorov())(as_variable(x, op="kolmogorov"))


@_in_float64()
def kolmogorov_complement_arrays(x):
    """1 - kolmogorov(x) on an ndarray, as itself (the theta sum below 0.82: every digit of a small
    CDF): 0 at and below 0, 1 at inf, NaN at NaN."""
    xp = get_array_module(x)
    with np.errstate(under="ignore", over="ignore", divide="ignore", invalid="ignore"):
        return xp.where(xp.isnan(x), np.nan, _sums(x, xp)[1])


class KolmogorovComplement(Kolmogorov):
    """1 - kolmogorov(x), the limiting distribution's CDF: its derivative -kolmogorov'(x)."""

    sign = -1.0
    _pointwise = True

    def forward(self, x):
        return kolmogorov_complement_arrays(x)


def kolmogorov_complement(x):
    """1 - kolmogorov(x) with its own digits (V.stats.kstwobign's CDF): near 0, where it is
    e^(-pi^2 / (8 x^2)) small, the difference would lose them all."""
    return Function(KolmogorovComplement())(as_variable(x, op="kstwobign.cdf"))


# ----- its inverse ---------------------------------------------------------------------------------
def _solve(value, complement, xp):
    """x with kolmogorov(x) = value, 1 - kolmogorov(x) = complement (0 < value < 1; each given, the
    one below 1/2 exact), by Newton's steps from the tails' leading terms (6 on every entry, no
    data-dependent branch), on the residual of the tail below 1/2."""
    # starts: 2 e^(-2 x^2) = value in the upper tail; near 0, complement = sqrt(2 pi) / x e^(-u) with
    # u = pi^2 / (8 x^2), that is u - log(u) / 2 = log(4 / sqrt pi) - log(complement)
    upper = xp.sqrt(-0.5 * xp.log(value * 0.5))
    t = -xp.log(complement) + math.log(4 / math.sqrt(math.pi))
    u = t + 0.5 * xp.log(xp.maximum(t, 1.0))
    lower = math.pi / xp.sqrt(8.0 * u)
    x = xp.where(value < 0.6, upper, lower)
    for _ in range(_NEWTON_STEPS):
        now, rest, slope = _sums(x, xp)
        step = xp.where(value < 0.5, now - value, complement - rest) / slope
        x = xp.maximum(x - step, x * 0.5)               # (never past 0)
    return x


@_in_float64()
def kolmogi_arrays(p):
    """x with kolmogorov(x) = p on an ndarray: inf at 0, 0 at 1, NaN outside [0, 1]."""
    xp = get_array_module(p)
    with np.errstate(under="ignore", over="ignore", divide="ignore", invalid="ignore"):
        inside = (p > 0) & (p < 1)
        q = xp.where(inside, p, 0.5)
        x = _solve(q, 1.0 - q, xp)                      # (1 - q exact from 1/2 on)
        return xp.where(inside, x, xp.where(p == 0, np.inf, xp.where(p == 1, 0.0, np.nan)))


@_in_float64()
def kolmogi_complement_arrays(c):
    """x with 1 - kolmogorov(x) = c on an ndarray (kstwobign's quantile): 0 at 0, inf at 1, NaN
    outside [0, 1]; a small c keeps its digits (x near 0, where 1 - c rounds to 1)."""
    xp = get_array_module(c)
    with np.errstate(under="ignore", over="ignore", divide="ignore", invalid="ignore"):
        inside = (c > 0) & (c < 1)
        q = xp.where(inside, c, 0.5)
        x = _solve(1.0 - q, q, xp)
        return xp.where(inside, x, xp.where(c == 0, 0.0, xp.where(c == 1, np.inf, np.nan)))


class Kolmogi(Forwarder):
    """kolmogi(p): dx/dp = 1 / kolmogorov'(x), of the output (`sign` -1: the complement's inverse,
    dx/dc = -1 / kolmogorov'(x))."""

    sign = 1.0

    def forward(self, p):
        return kolmogi_arrays(p)

    save_for_backward = ("y",)

    def backward(self, gy):
        x, = self.outputs
        return gy / (_slope(x) * self.sign)

    taylor_records = True
    _pointwise = True

    def taylor(self, p):
        x, = self.outputs
        if len(p) == 1:
            return [x._data]
        # x' = p' / K'(x): coefficient by coefficient, the slope's series from x's own so far
        return series.ode(p, x._data, lambda xs, m: series.reciprocal(
            series.scale(_slope_series(list(xs[:m + 1])), self.sign))[m])


class KolmogiComplement(Kolmogi):
    """x with 1 - kolmogorov(x) = c: dx/dc = -1 / kolmogorov'(x)."""

    sign = -1.0
    _pointwise = True

    def forward(self, c):
        return kolmogi_complement_arrays(c)


def kolmogi(p):
    """The inverse of kolmogorov, elementwise (scipy.special.kolmogi): x with kolmogorov(x) = p, the
    Kolmogorov-Smirnov test's critical value sqrt(n) D at level p; inf at 0, 0 at 1.  Its
    derivative 1 / kolmogorov'(x), to any order."""
    return Function(Kolmogi())(as_variable(p, op="kolmogi"))


def kolmogi_complement(c):
    """x with 1 - kolmogorov(x) = c (V.stats.kstwobign's ppf), a small c to its last digit."""
    return Function(KolmogiComplement())(as_variable(c, op="kstwobign.ppf"))


# ----- the one-sided statistic of n samples ----------------------------------------------------------
_NEAR = 0.3
_BD0_TERMS = 17
"""bd0's series in v = (x - M) / (x + M) for |v| < 0.3: v^(2k) is below 1e-17 from k = 17 on."""
READ_STEPS = True
"""On the CPU, smirnov sums the n (1 - d) terms its smallest d needs and smirnovi stops its Newton
steps once every entry has settled (False: n - 1 terms and _SMIRNOVI_STEPS steps, as a device
takes them; the device test compares the two paths bit for bit)."""
_SMIRNOVI_STEPS = 24
"""Safeguarded Newton steps of smirnovi on a device (no data-dependent branch); the CPU stops when
every entry has settled, after 14 at most over n from 2 to 3000 and p from 1e-300 to 1 - 1e-16."""


@functools.cache
def _small_stirling_errors():
    """delta(k) for k = 1 .. 9 in 45-digit decimals: delta(16) by Stirling's series with special.py's
    Bernoulli numbers (20 terms), then down by delta(k) = delta(k + 1) + (k + 1/2) log(1 + 1/k) - 1
    (floats would lose 15 ulps to it)."""
    with localcontext() as ctx:
        ctx.prec = 45
        k = Decimal(16)
        delta = sum(Decimal(_B[2 * m].numerator) / Decimal(_B[2 * m].denominator)
                    / (2 * m * (2 * m - 1) * k ** (2 * m - 1)) for m in range(1, 21))
        values = []
        for k in range(15, 0, -1):
            delta = delta + (k + Decimal("0.5")) * (1 + Decimal(1) / k).ln() - 1
            values.append(delta)
    return np.array([float(v) for v in reversed(values)])[:9]


def _stirling_errors(k):
    """delta(k) = log(k!) - (k + 1/2) log k + k - log(2 pi) / 2 for an ndarray of whole k >= 1
    (float64): the decimals' values up to 9, special.py's _stirling_correction (log Gamma(k)'s
    remainder, the same function) from 10 on."""
    k = np.asarray(k, dtype=np.float64)
    small = _small_stirling_errors()[np.clip(k, 1, 9).astype(np.int64) - 1]
    return np.where(k < 10, small, _stirling_correction(np.maximum(k, 10.0)))


def _bd0_series(diff, v, x):
    """x log(x / M) + M - x near x = M, from diff = x - M and v = diff / (x + M): diff v + 2 x
    sum_(k>=1) v^(2k+1) / (2k + 1), no cancellation."""
    v2 = v * v
    inner = 1.0 / (2 * _BD0_TERMS + 1)
    for k in range(_BD0_TERMS - 1, 0, -1):
        inner = inner * v2 + 1.0 / (2 * k + 1)
    return diff * v + x * 2.0 * (v2 * v * inner)


def _smirnov_sums(n, d, parts):
    """smirnov(n, d) and its derivative in d (`parts`: the names of those wanted, "value" and
    "slope", a tuple of them back: one sum of terms serves both) for one whole n >= 2 and a float64
    Variable d, 0 < d < 1 at every entry: sum_j (d / p_j) b(j; n, p_j), p_j = d + j / n, over j < n
    (1 - d), each binomial probability b in Loader's saddle-point form, sqrt(n / (2 pi j (n - j)))
    e^(delta(n) - delta(j) - delta(n - j) - bd0(j, n p_j) - bd0(n - j, n q_j)), every factor within a few ulps
    (the powers of p and 1 - p in logarithms would lose n ulps); j = 0: (1 - d)^n."""
    xp = get_array_module(d.data)
    # (1 - d)^n: a power of 1 - d where that is exact (d >= 1/2), e^(n log1p(-d)) below
    first = where(d.data >= 0.5, (1.0 - where(d.data >= 0.5, d, 0.5)) ** n, exp(log1p(-d) * float(n)))
    if is_device_array(d.data) or not READ_STEPS:
        last = n - 1
    else:
        last = min(n - 1, int(math.floor(n * (1.0 - float(np.min(d.data, initial=1.0))))) + 1)
    first_slope = first * (-n / (1.0 - d)) if "slope" in parts else None
    if last < 1:
        return tuple(first if part == "value" else first_slope for part in parts)
    j_host = np.arange(1.0, last + 1.0)
    rest_host = n - j_host
    constant = (_stirling_errors(np.array([n]))[0] - _stirling_errors(j_host) - _stirling_errors(rest_host)
                + 0.5 * np.log(n / (2 * math.pi * j_host * rest_host)))
    j, rest, constant = (xp.asarray(a) for a in (j_host, rest_host, constant))
    u = expand_dims(d * float(n), -1)
    valid = (rest - u.data) > 0                                   # (j < n (1 - d): 1 - p_j > 0)
    u = where(valid, u, rest * 0.5)
    low = rest - u                                                # n (1 - p_j)
    v1, v2 = u / (u + j * 2.0) * -1.0, u / (rest * 2.0 - u)
    near1, near2 = abs(v1.data) < _NEAR, v2.data < _NEAR
    b1 = where(near1, _bd0_series(-u, v1, j), u - log1p(u / j) * j)
    b2 = where(near2, _bd0_series(u, v2, rest), log(low / rest) * -rest - u)
    terms = u / (u + j) * exp(constant - b1 - b2)
    sums = {}
    if "value" in parts:
        sums["value"] = first + where(valid, terms, 0.0).sum(axis=-1)
    if "slope" in parts:                                          # d/dd of (d / p) p^j q^(n - j) C
        factor = ((u + 1.0) * j / (u * (u + j)) - rest / low) * float(n)
        sums["slope"] = first_slope + where(valid, terms * factor, 0.0).sum(axis=-1)
    return tuple(sums[part] for part in parts)


def _smirnov_one(n, d, parts=("value",)):
    """smirnov(n, d) and its derivative in d (`parts`, as `_smirnov_sums`) for one whole n: the
    value 1 at d = 0, 0 at d = 1 (the slope NaN at both), NaN outside [0, 1] and for n < 1."""
    xp = get_array_module(d.data)
    data = d.data
    with np.errstate(invalid="ignore"):
        inside = (data > 0) & (data < 1) & (n >= 1)
    if n < 1:
        return tuple(where(inside, d, xp.full(data.shape, np.nan, d.dtype)) for _ in parts)
    e = where(inside, d, 0.5)
    if n == 1:
        sums = tuple(1.0 - e if part == "value" else -1.0 + e * 0.0 for part in parts)
    else:
        sums = _smirnov_sums(n, e, parts)
    edges = {"value": xp.where(data == 0, 1.0, xp.where(data == 1, 0.0, np.nan)).astype(np.float64),
             "slope": xp.asarray(np.nan, dtype=np.float64)}
    return tuple(where(inside, value, edges[part]) for value, part in zip(sums, parts))


def _in_doubles(x, one):
    """one(x) of a float Variable computed in float64, back in x's dtype (float32 stays float32)."""
    if x.dtype == np.float64:
        return one(x)
    return one(x.astype(np.float64)).astype(x.dtype)


def _ks_samples(n, op):
    """The sample size: an int, or an int64 array of whole numbers; anything else refused naming
    the op and its order of arguments (the statistic given first is the likely slip)."""
    place = "given after x (or q)" if op.startswith("ksone") else "and comes first"
    return _whole_numbers(n, f"{op}: the sample size n must be a whole number, {place} (not "
                             f"differentiated; SciPy's truncates others with a warning)")


def smirnov(n, d):
    """The exact one-sided Kolmogorov-Smirnov survival function P(D_n^+ >= d) of n samples,
    elementwise with broadcasting (scipy.special.smirnov, scipy.stats.ksone.sf), differentiable in d
    to any order (n a whole number, or an array of them): Birnbaum and Tingey's sum d sum_(j <= n
    (1 - d)) C(n, j) (d + j/n)^(j - 1) (1 - d - j/n)^(n - j), each term a binomial probability in
    Loader's saddle-point form (no n-fold product of rounded powers: within a few ulps of the
    condition, against exact rationals).  1 at d = 0, 0 at d = 1, NaN outside [0, 1] or for n <
    1.  Its cost is n terms per entry (on a device always n - 1; on the CPU the n (1 - d) the
    smallest d needs)."""
    n = _ks_samples(n, "smirnov(n, d)")
    d = _as_float_variable(d, "smirnov")
    if isinstance(n, np.ndarray):
        return _each_pair((n,), d, lambda k, x: Function(Smirnov(k))(x))
    return Function(Smirnov(n))(d)



_CHUNK = 2 ** 18
"""Entries times terms per piece of smirnov's forward pass (its arrays: ~2 MB each)."""


def _smirnov_arrays(n, d, parts=("value",)):
    """smirnov(n, d) and its slope (`parts`, as `_smirnov_sums`: a tuple) on a float64 ndarray,
    recording nothing: in pieces of entries whose terms fill about _CHUNK (the memory of n terms
    per entry stays bounded)."""
    flat = d.reshape(-1)
    step = max(1, _CHUNK // max(n, 1))
    with no_grad():
        if flat.size <= step:
            return tuple(part.data for part in _smirnov_one(n, as_variable(d), parts))
        xp = get_array_module(d)
        pieces = [_smirnov_one(n, as_variable(flat[i:i + step]), parts) for i in range(0, flat.size, step)]
        return tuple(xp.concatenate([piece[k].data for piece in pieces]).reshape(d.shape)
                     for k in range(len(parts)))


@_in_float64(at=1)
def smirnov_arrays(n, d):
    """smirnov(n, d) on an ndarray (float32 computed in float64)."""
    return _smirnov_arrays(n, d)[0]


def _slope_of(n):
    """smirnov'(n, .) of a Variable, as gengrad's ops (computed in float64)."""
    return lambda t: _in_doubles(t, lambda e: _smirnov_one(n, e, ("slope",))[0])


def _path_series(n, xs, m, reciprocal=False):
    """Coefficient m of smirnov'(n, x(t)) (reciprocal: of 1 / smirnov') along the series x_0 ..
    x_m (rows of `xs`: arrays, or Variables where the pass records): smirnov' is gengrad's ops, so
    V.jet carries the path through them (recording where the path's coefficients are Variables);
    several independent directions (Directions) ride along as a batch axis."""
    slope = _slope_of(n)
    recording = isinstance(xs[0], Variable)
    if m == 0:
        if recording:
            value = slope(xs[0])
            return 1.0 / value if reciprocal else value
        with no_grad():
            value = slope(as_variable(xs[0])).data
        return 1.0 / value if reciprocal else value
    found = next((c for c in xs[1:m + 1] if isinstance(c, Directions)), None)
    coefficients = [xs[k] for k in range(m + 1)]
    if found is not None:
        if found.weights is not None:
            raise ValueError("smirnov's rules take independent directions only")
        full = (found.count, *found.shape)
        coefficients = [_spread(c.data if isinstance(c, Directions) else c[None], full) for c in coefficients]
    path = [coefficients[k] * math.factorial(k) for k in range(1, m + 1)]
    value, derivatives = jet(slope, coefficients[0], path)
    slopes = [value] + [derivatives[k - 1] / math.factorial(k) for k in range(1, m + 1)]
    slopes = slopes if recording else [c.data for c in slopes]
    coefficient = (series.reciprocal(slopes) if reciprocal else slopes)[m]
    return coefficient if found is None else Directions(coefficient, found.shape)


def _spread(c, shape):
    """c broadcast to `shape` (an array, or a Variable recorded)."""
    if isinstance(c, Variable):
        return broadcast_to(c, shape)
    return get_array_module(c).broadcast_to(c, shape)


class Smirnov(Forwarder):
    """smirnov(n, d) for one whole n: the forward pass in pieces (no graph), its derivative
    smirnov'(n, d) as gengrad's ops (differentiable again), its Taylor rule the integral of that
    derivative's series along d's."""

    def __init__(self, n):
        self.n = n

    def forward(self, d):
        return smirnov_arrays(self.n, d)

    save_for_backward = ("x0",)

    def backward(self, gy):
        d, = self.inputs
        return gy * _slope_of(self.n)(d)

    taylor_records = True
    _pointwise = True

    def taylor(self, d):
        y, = self.outputs
        if len(d) == 1:
            return [y._data]
        slopes = [_path_series(self.n, d, m) for m in range(len(d) - 1)]
        return series.integral(d, y._data, slopes)


@_in_float64(at=1)
def smirnovi_arrays(n, p):
    """d with smirnov(n, d) = p on an ndarray, for one whole n: 0 at p = 1, 1 at p = 0, NaN outside
    [0, 1] and for n < 1.  Newton's steps on log smirnov(n, d) - log p (nearly a parabola in d),
    kept inside the bracket the residuals' signs give (halving it where a step would leave it), from
    1 - p^(1/n) (exact for d >= 1 - 1/n, where only the first term remains) or sqrt(-log p / (2 n))
    (the large-n tail) below."""
    xp = get_array_module(p)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        inside = (p > 0) & (p < 1) & (n >= 1)
        q = xp.where(inside, p, 0.5)
        edges = xp.where((p == 1) & (n >= 1), 0.0, xp.where((p == 0) & (n >= 1), 1.0, np.nan))
        if n < 1:
            return edges
        if n == 1:
            return xp.where(inside, 1.0 - q, edges)
        power = -xp.expm1(xp.log(q) / n)
        exact = power >= 1.0 - 1.0 / n                            # (smirnov = (1 - d)^n there)
        d = xp.where(exact, 0.5, xp.minimum(xp.sqrt(-xp.log(q) / (2.0 * n)), 1.0 - 1.0 / n))
        low, high = xp.zeros_like(q), xp.ones_like(q)
        device, close = is_device_array(p) or not READ_STEPS, 0
        for _ in range(_SMIRNOVI_STEPS if device else 60):
            value, slope = _smirnov_arrays(n, d, ("value", "slope"))          # (one sum for both)
            above = value > q
            low, high = xp.where(above, d, low), xp.where(above, high, d)
            step = xp.log1p((value - q) / q) * value / slope
            new = d - step
            inner = (new >= low) & (new <= high)
            d = xp.where(inner, new, (low + high) * 0.5)
            if not device:
                settled = (abs(step) <= 2.0 ** -30 * d) | (abs(value - q) <= 2.0 ** -50 * q)
                close = bool(xp.all(exact | settled)) and close + 1
                if close == 3:       # (two steps after every step was below 2^-30 of d or the
                    break            # residual at smirnov's rounding: quadratic convergence)
        return xp.where(inside, xp.where(exact, power, d), edges)


class Smirnovi(Forwarder):
    """smirnovi(n, p) for one whole n: dd/dp = 1 / smirnov'(n, d), of the output."""

    def __init__(self, n):
        self.n = n

    def forward(self, p):
        return smirnovi_arrays(self.n, p)

    save_for_backward = ("y",)

    def backward(self, gy):
        d, = self.outputs
        return gy / _slope_of(self.n)(d)

    taylor_records = True
    _pointwise = True

    def taylor(self, p):
        d, = self.outputs
        if len(p) == 1:
            return [d._data]
        # d' = p' / smirnov'(d): coefficient by coefficient, the slope's series from d's own so far
        return series.ode(p, d._data, lambda ds, m: _path_series(self.n, ds, m, reciprocal=True))


def smirnov_slope(n, d):
    """smirnov'(n, d) = -(D_n^+'s density), elementwise, as gengrad's ops (differentiable again),
    for 0 < d < 1 (NaN elsewhere); n a whole number or an array of them (scipy.stats.ksone's pdf)."""
    n = _ks_samples(n, "ksone.pdf(x, n)")
    d = _as_float_variable(d, "ksone.pdf")
    if isinstance(n, np.ndarray):
        return _each_pair((n,), d, lambda k, x: _slope_of(k)(x))
    return _slope_of(n)(d)


def smirnovi(n, p):
    """The inverse of smirnov in d, elementwise with broadcasting (scipy.special.smirnovi,
    scipy.stats.ksone.isf): d with P(D_n^+ >= d) = p, the one-sided Kolmogorov-Smirnov critical value of n
    samples at level p; 0 at p = 1, 1 at p = 0, NaN outside [0, 1] or for n < 1.  Differentiable
    in p to any order (dd/dp = 1 / smirnov'(n, d)); n a whole number or an array of them."""
    n = _ks_samples(n, "smirnovi(n, p)")
    p = _as_float_variable(p, "smirnovi")
    if isinstance(n, np.ndarray):
        return _each_pair((n,), p, lambda k, x: Function(Smirnovi(k))(x))
    return Function(Smirnovi(n))(p)


_KSONE_LOW_STEPS = 8
"""Newton's steps of ksone_low_quantile, on every entry (n up to 1e9 needs at most 7)."""


def _ksone_low_arrays(n, q):
    """z with z (1 + z)^(n - 1) = q on an ndarray, 0 <= q <= the CDF at 1/n: Newton's steps from
    min(q, 1/n), right of the root (the one term F is convex and increasing, so each step stays
    right of it and closes in), on the residual z P - q with P = e^((n - 1) log1p z) in [1, e):
    each factor to its last digits, so z keeps its own."""
    xp = get_array_module(q)
    if n < 1:
        return xp.full_like(q, np.nan)      # (no sample: NaN, as SciPy's)
    z = xp.minimum(q, 1.0 / n)
    for _ in range(_KSONE_LOW_STEPS):
        power = xp.exp((n - 1.0) * xp.log1p(z))
        z = z - (z * power - q) * (1.0 + z) / (power * (1.0 + n * z))
    return z


def _ksone_low_slope(n, z):
    """F'(z) = (1 + z)^(n - 2) (1 + n z) of a Variable, as gengrad's ops."""
    return exp(log1p(z) * (n - 2.0)) * (z * float(n) + 1.0)


class KsoneLowQuantile(Forwarder):
    """z = F^-1(q) for F(z) = z (1 + z)^(n - 1), ksone's CDF below z = 1/n, one whole n: dz/dq =
    1 / F'(z), F'(z) = (1 + z)^(n - 2) (1 + n z), of the output."""

    def __init__(self, n):
        self.n = n

    @_in_float64(at=1)
    def forward(self, q):
        return _ksone_low_arrays(self.n, q)

    save_for_backward = ("y",)

    def backward(self, gy):
        z, = self.outputs
        return gy / _ksone_low_slope(self.n, z)

    taylor_records = True
    _pointwise = True

    def taylor(self, q):
        z, = self.outputs
        n = float(self.n)

        def density(zs):                            # the series of F'(z) along z's head
            power = series.power([1.0 + zs[0]] + zs[1:], n - 2.0)
            return series.mul(power, [1.0 + n * zs[0]] + [n * c for c in zs[1:]])
        return _quantile_series(q, z._data, density)


def ksone_low_quantile(n, q):
    """z with z (1 + z)^(n - 1) = q elementwise, for 0 <= q <= (1 + 1/n)^(n - 1) / n: ksone's
    quantile below 1/n, where its CDF is that one term (V.stats.ksone.ppf), differentiable in q to
    any order; n a whole number or an array of them."""
    n = _ks_samples(n, "ksone.ppf(q, n)")
    q = _as_float_variable(q, "ksone.ppf")
    if isinstance(n, np.ndarray):
        return _each_pair((n,), q, lambda k, x: Function(KsoneLowQuantile(k))(x))
    return Function(KsoneLowQuantile(n))(q)
