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
"""

import math

import numpy as np

from .. import series
from ..backend import get_array_module
from ..forwarder import Forwarder, Function, as_variable
from ..variable import Variable
from .elementwise import exp
from .piecewise import where
from .special import _exp_minus_square, _in_float64

__all__ = ["kolmogorov", "kolmogi"]

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
