"""erf, erfc, gammaln, digamma and polygamma (variable/ops/special.py): the table rows (third
order, Taylor mode to sixth), then their values against Python's math.erf/erfc/lgamma and an
independent sum to a few ulps of relative precision (from erf's smallest values to erfc's far
tail; gammaln and digamma by their zeros, polygamma on both sides of its poles), identities
of the gamma family, and SciPy's ufuncs recording them."""

import functools
import math
import warnings
from decimal import Decimal, getcontext, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import (
    BINARY_SHAPES,
    SMOOTH,
    TAYLOR,
    TAYLOR_ELSEWHERE,
    UNARY_SHAPES,
    Row,
    device_equals_host,
    elsewhere,
    normal,
    table_tests,
    unary_rows,
)
from test_ops_division import bessel_series

import variable as V
import variable.ops.special as special_ops

reference_erf = np.vectorize(math.erf, otypes=[np.float64])
reference_erfc = np.vectorize(math.erfc, otypes=[np.float64])
def _bernoulli(m):
    """B_m (B_1 = +1/2) by the Akiyama-Tanigawa algorithm, in exact fractions."""
    a = [Fraction(1, j + 1) for j in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(m - i + 1):
            a[j] = (j + 1) * (a[j] - a[j + 1])
    return a[0]


B = [Decimal(b.numerator) / Decimal(b.denominator) for b in map(_bernoulli, range(0, 27))]


def _decimal_pi():
    """pi in the context's precision (50 to 70 digits here) by Machin's formula, pi =
    16 arctan(1/5) - 4 arctan(1/239); computed once a precision (every log-gamma reads it)."""
    return _pi_to(getcontext().prec)


@functools.cache
def _pi_to(precision):
    def arctan_inverse(q):
        total, power, k = Decimal(0), Decimal(1) / q, 0
        while power > Decimal(10) ** -60:
            total += (-1) ** k * power / (2 * k + 1)
            power /= q * q
            k += 1
        return total
    with localcontext() as context:
        context.prec = precision
        return 16 * arctan_inverse(Decimal(5)) - 4 * arctan_inverse(Decimal(239))


def _log_gamma_decimal(x):
    """log|Gamma(x)| of the Decimal x, in the context's precision (50 digits): the recurrence
    up to z >= 40 (either side of the poles: no reflection), then Stirling's series there."""
    N = 40 + max(0, math.ceil(-x))
    z = x + N
    product = Decimal(1)
    for k in range(N):
        product *= x + k
    stirling = ((z - Decimal("0.5")) * z.ln() - z + (2 * _decimal_pi()).ln() / 2
                + sum(B[2 * k] / (2 * k * (2 * k - 1) * z ** (2 * k - 1)) for k in range(1, 14)))
    return stirling - abs(product).ln()


def _psi_50_digits(n, x):
    """psi^(n)(x) (n = -1: log|Gamma(x)|) in 50-digit decimals from the exact value of the
    double x: the recurrence up to z >= 40 (either side of the poles: no reflection), then
    13 terms of the asymptotic series there (the first left out below 1e-25 for z >= 20)."""
    with localcontext() as context:
        context.prec = 50
        return float(_psi_decimal(n, Decimal(float(x))))


def _psi_decimal(n, x):
    """psi^(n) of the Decimal x in the context's precision, as _psi_50_digits describes."""
    N = 40 + max(0, math.ceil(-x))
    z = x + N
    terms = range(1, 14)
    if n == -1:
        return _log_gamma_decimal(x)
    if n == 0:
        return (z.ln() - 1 / (2 * z) - sum(B[2 * k] / (2 * k * z ** (2 * k)) for k in terms)
                - sum(1 / (x + k) for k in range(N)))
    f = math.factorial
    tail = (f(n - 1) / z ** n + f(n) / (2 * z ** (n + 1))
            + sum(B[2 * k] * f(2 * k + n - 1) / (f(2 * k) * z ** (2 * k + n)) for k in terms))
    return (-1) ** (n + 1) * (tail + f(n) * sum((x + k) ** -(n + 1) for k in range(N)))


def reference_psi_difference(n, a, b):
    """psi^(n)(a) - psi^(n)(a + b), correctly rounded: both in 70 digits (a + b exact), so
    that the 20 or so digits their difference cancels leave 50."""
    def one(a, b):
        with localcontext() as context:
            context.prec = 70
            a, b = Decimal(float(a)), Decimal(float(b))
            return float(_psi_decimal(n, a) - _psi_decimal(n, a + b))
    return np.vectorize(one, otypes=[np.float64])(a, b)


def reference_polygamma(n, x):
    """psi^(n)(x) (digamma for n = 0, log|Gamma(x)| for n = -1), correctly rounded to double:
    independent of the op's reflection, its shift and its series about zeros, and of its
    float64 arithmetic."""
    return np.vectorize(lambda v: _psi_50_digits(n, v), otypes=[np.float64])(x)


def _betaln_50_digits(a, b):
    """log|B(a, b)| from three 50-digit log-gammas (a + b exact in 50 digits)."""
    with localcontext() as context:
        context.prec = 50
        a, b = Decimal(float(a)), Decimal(float(b))
        return float(_log_gamma_decimal(a) + _log_gamma_decimal(b) - _log_gamma_decimal(a + b))


def reference_betaln(a, b):
    return np.vectorize(_betaln_50_digits, otypes=[np.float64])(a, b)


def _erfcx(x):
    """e^(x^2) erfc(x) in 60-digit decimals: erf's alternating series up to 3, erfc's continued
    fraction (300 levels) beyond, and 2 e^(x^2) - erfcx(-x) for x < 0."""
    with localcontext() as context:
        context.prec = 60
        t = Decimal(abs(x))
        if t < 3:
            term, total, n = t, t, 0
            while abs(term) > Decimal(10) ** -70:
                n += 1
                term = -term * t * t * (2 * n - 1) / (n * (2 * n + 1))
                total += term
            positive = (t * t).exp() * (1 - 2 / _decimal_pi().sqrt() * total)
        else:
            fraction = t
            for k in range(300, 0, -1):
                fraction = t + Decimal(k) / 2 / fraction
            positive = 1 / (_decimal_pi().sqrt() * fraction)
        return float(positive if x >= 0 else 2 * (t * t).exp() - positive)


def reference_erfcx(x):
    return np.vectorize(_erfcx, otypes=[np.float64])(x)


def _gamma_50_digits(x):
    """Gamma(x) from the 50-digit log|Gamma| (its sign (-1)^ceil(-x) below 0)."""
    with localcontext() as context:
        context.prec = 50
        magnitude = _log_gamma_decimal(Decimal(float(x))).exp()
        return float(magnitude if x > 0 else (-1) ** math.ceil(-x) * magnitude)


def reference_gamma(x):
    return np.vectorize(_gamma_50_digits, otypes=[np.float64])(x)


def reference_multigammaln(a, d):
    return sum(reference_gammaln(a - j / 2) for j in range(d)) + d * (d - 1) / 4 * math.log(math.pi)


def reference_gammaln(x):
    return reference_polygamma(-1, x)


def wide(*shapes):
    """Points in [-4, 4]: both formulas (the series inside, the continued fraction outside)."""
    return lambda rng: tuple(rng.uniform(-4.0, 4.0, s) for s in shapes)


def across_the_split(*shapes):
    """Points by |x| = 1 and 2, where each op passes from its series to its fraction."""
    def sample(rng):
        return tuple(rng.choice([-1.0, 1.0], s) * (rng.choice([1.0, 2.0], s) + rng.uniform(-0.05, 0.05, s))
                     for s in shapes)
    return sample


def rows(fn, ref):
    return (unary_rows(fn, ref, normal, SMOOTH)
            + [Row(f"wide, {s}", fn, ref, wide(s), SMOOTH) for s in UNARY_SHAPES]
            + [Row(f"across the split, {s}", fn, ref, across_the_split(s), SMOOTH) for s in UNARY_SHAPES])


def positive_and_negative(*shapes):
    """Points in [0.3, 4] and in (-2.85, -2.15): both sides of 0, off the poles at 0, -1, -2, -3."""
    def sample(rng):
        return tuple(np.where(rng.random(s) < 0.5, rng.uniform(0.3, 4.0, s), rng.uniform(-2.85, -2.15, s))
                     for s in shapes)
    return sample


def across_the_zeros(*shapes):
    """Points by 1 and 2 (gammaln's zeros) and 1.46 (digamma's), where the ops take their series."""
    return lambda rng: tuple(rng.choice([0.8, 1.2, 1.46, 1.9, 2.1], s) + rng.uniform(-0.1, 0.1, s)
                             for s in shapes)


def gamma_rows(fn, ref):
    return ([Row(str(s), fn, ref, positive_and_negative(s), SMOOTH) for s in UNARY_SHAPES]
            + [Row(f"across the zeros, {s}", fn, ref, across_the_zeros(s), SMOOTH) for s in UNARY_SHAPES])


def polygamma_of(n):
    def call(x):
        return V.polygamma(n, x)
    call.__name__ = f"polygamma({n}, x)"
    return call


def nonzero_then_positive(s0, s1):
    """x away from 0 (the op's convention there is tested apart), y > 0 (inside log's domain)."""
    return lambda rng: (rng.choice([-1.0, 1.0], s0) * rng.uniform(0.3, 2.0, s0), rng.uniform(0.3, 3.0, s1))


def probabilities(*shapes):
    """Points in (0.05, 0.95): both of logit's formulas (by 1/2, and nearer 0 and 1)."""
    return lambda rng: tuple(rng.uniform(0.05, 0.95, s) for s in shapes)


def bisection(f, target, lo, hi):
    """The double y in [lo, hi] where the increasing f crosses `target`, by halving until the
    midpoint is one of the ends (a reference independent of the ops' Newton and Halley steps)."""
    while True:
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            return lo if abs(f(lo) - target) <= abs(f(hi) - target) else hi
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)


def _erfcinv(q):            # (erfc decreases: bisect -erfc; in the tail erfc keeps q's digits)
    return bisection(lambda y: -math.erfc(y), -q, -6.0, 27.3)


def reference_erfcinv(q):
    return np.vectorize(_erfcinv, otypes=[np.float64])(q)


def reference_erfinv(x):    # (from 1/2 on, erfcinv(1 - |x|): 1 - |x| exact, erf flat near 1)
    return np.vectorize(lambda v: bisection(math.erf, v, -6.0, 6.0) if abs(v) <= 0.5
                        else math.copysign(_erfcinv(1 - abs(v)), v), otypes=[np.float64])(x)


def _ndtri(p):              # P(Z <= z) = erfc(-z / sqrt 2) / 2, read in the lower tail
    return bisection(lambda z: math.erfc(-z / math.sqrt(2)) / 2, p, -38.5, 0.0)


def reference_ndtri(p):     # (above 1/2, -ndtri(1 - p): 1 - p exact there)
    return np.vectorize(lambda v: _ndtri(v) if v <= 0.5 else -_ndtri(1 - v), otypes=[np.float64])(p)


def _upper_tail(t):
    """P(Z > t) for t > 0 as a Decimal, in the context's precision: Mills' continued fraction
    (300 levels)."""
    fraction = t
    for k in range(300, 0, -1):
        fraction = t + k / fraction
    return (-t * t / 2).exp() / (2 * _decimal_pi()).sqrt() / fraction


def _log_ndtr(x):
    """log P(Z <= x): Python's math.erfc where its rounded argument x/sqrt 2 costs nothing in
    log space, an asymptotic series below -37 (math.erfc underflows there), and 50-digit
    decimals of Mills' continued fraction above 2.83 (where erfc(x/sqrt 2)'s relative error,
    2x^2 ulps, is the answer's)."""
    if x < -37:
        u = 1 / (x * x)
        return (-x * x / 2 - math.log(-x) - 0.5 * math.log(2 * math.pi)
                + math.log1p(-u + 3 * u ** 2 - 15 * u ** 3 + 105 * u ** 4 - 945 * u ** 5))
    if x <= 0:
        return math.log(math.erfc(-x / math.sqrt(2)) / 2)
    if x <= 2.83:
        return math.log1p(-math.erfc(x / math.sqrt(2)) / 2)
    with localcontext() as context:
        context.prec = 50
        upper_tail = _upper_tail(Decimal(x))
        return float(-upper_tail if upper_tail < Decimal("1e-20") else (1 - upper_tail).ln())


def reference_log_ndtr(x):
    return np.vectorize(_log_ndtr, otypes=[np.float64])(x)


def _ndtr(x):
    """P(Z <= x): Python's math.erfc inside |x| <= 2.83 (where rounding x/sqrt 2 costs at most
    8 ulps), beyond it 50-digit decimals of Mills' continued fraction, as for _log_ndtr."""
    if abs(x) <= 2.83:
        return math.erfc(-x / math.sqrt(2)) / 2
    with localcontext() as context:
        context.prec = 50
        tail = _upper_tail(Decimal(abs(x)))
        return float(tail if x < 0 else 1 - tail)


def reference_ndtr(x):
    return np.vectorize(_ndtr, otypes=[np.float64])(x)


def bessel_reference(n, scaled=False):
    """I_n (scaled: I_n e^(-|x|)) on an array, by test_ops_division's 60-digit power series."""
    return np.vectorize(lambda x: bessel_series(n, x, scaled=scaled), otypes=[np.float64])


def _gammainc_60_digits(a, x, upper):
    """P(a, x) (Q = 1 - P with `upper`) in 60-digit decimals, from x^a e^-x / Gamma(a) (the
    reference log-gamma's 30 digits) times: below x = a + 1 the series sum_n x^n / (a (a+1)
    ... (a+n)), every term positive; above, Q's continued fraction 1/(x + 1 - a - 1 (1 - a)/
    (x + 3 - a - ...)), evaluated from a tail twice as deep until two depths agree to 1e-50.
    The other one is 1 minus it, which keeps its digits there."""
    with localcontext() as context:
        context.prec = 60
        a, x = Decimal(float(a)), Decimal(float(x))
        prefix = (a * x.ln() - x - _log_gamma_decimal(a)).exp()
        if x < a + 1:
            term = 1 / a
            total, n = term, 1
            while term > total * Decimal("1e-62"):
                term = term * x / (a + n)
                total, n = total + term, n + 1
            p = prefix * total
            return float(1 - p if upper else p)

        def fraction(depth):
            f = x + 2 * depth + 1 - a
            for k in range(depth, 0, -1):
                f = (x + 2 * k - 1 - a) - k * (k - a) / f
            return 1 / f
        depth, last = 32, fraction(32)
        while True:
            depth *= 2
            now = fraction(depth)
            if abs(now - last) <= Decimal("1e-50") * now:
                break
            last = now
        q = prefix * now
        return float(q if upper else 1 - q)


def reference_gammainc(a, x, upper=False):
    return np.vectorize(lambda a, x: _gammainc_60_digits(a, x, upper), otypes=[np.float64])(a, x)


def gammainc_rows(op, upper):
    """op(a, x) in x for a few constant a: the series, Temme's expansion (a = 40 within 12 of
    x) and the continued fraction each get points, each a in one of the shapes (every branch
    runs on every entry on a device: one shape each keeps the stand-in's run short)."""
    rows = [Row(f"a={a}, {s}", lambda x, a=a: op(a, x), lambda x, a=a: reference_gammainc(a, x, upper),
                inside(low, high)(s), SMOOTH)
            for (a, low, high), s in zip(_GAMMAINC_POINTS, UNARY_SHAPES * 2)]
    # a (2, 1) against x (3,): the gradient sums to x's shape (no float32 pass: a float64 array
    # promotes a float32 x, as in NumPy)
    a = np.array([[0.6], [3.5]])
    return rows + [Row("a (2, 1) x (3,)", lambda x: op(a, x), lambda x: reference_gammainc(a, x, upper),
                       inside(0.5, 3.0)((3,)), SMOOTH, float32=False)]


_GAMMAINC_POINTS = ((0.6, 0.2, 3.0), (3.5, 0.5, 9.0), (40.0, 30.0, 50.0), (25.0, 35.0, 60.0))
"""(a, the range of x) for the table: the series, the fraction, Temme's expansion, the fraction past 1.3 a."""


def _betainc_60_digits(a, b, x, upper):
    """I_x(a, b) (1 - I with `upper`) in 60-digit decimals, as a float (`_betainc_decimal`)."""
    with localcontext() as context:
        context.prec = 60
        return float(_betainc_decimal(Decimal(float(a)), Decimal(float(b)), Decimal(float(x)), upper))


def _betainc_decimal(a, b, x, upper):
    """I_x(a, b) (1 - I with `upper`) of decimals, in the context's precision (60 digits): x^a
    (1-x)^b / (a B(a, b)) (B from the reference log-gammas) times the hypergeometric series
    sum_n (a+b)_n / (a+1)_n x^n, every term positive, on the side of the mean where its terms
    shrink from the first (x <= (a + 1)/(a + b + 2)); beyond, I_x(a, b) = 1 - I_(1-x)(b, a), 1 - x
    exact in decimals, and from x = 0.999 on (a series in x takes about 140/(1 - x) terms).
    Where one parameter dwarfs the other (from 1e6 on) the side is x's own below 1/2 (by that
    side's mean, the series would take about 1/x or 1/(1 - x) terms)."""
    if max(a, b) < Decimal(10 ** 6):
        swap = x > (a + 1) / (a + b + 2) or x > Decimal("0.999")
    else:
        swap = x > Decimal("0.5")
    if swap:
        a, b, x = b, a, 1 - x
    log_beta = _log_gamma_decimal(a) + _log_gamma_decimal(b) - _log_gamma_decimal(a + b)
    prefix = (a * x.ln() + b * (1 - x).ln() - log_beta).exp() / a
    term = total = Decimal(1)
    n = 0
    while term > total * Decimal("1e-62"):
        term = term * (a + b + n) / (a + 1 + n) * x
        total, n = total + term, n + 1
    value = prefix * total
    return value if swap == upper else 1 - value


def reference_betainc(a, b, x, upper=False):
    return np.vectorize(lambda a, b, x: _betainc_60_digits(a, b, x, upper), otypes=[np.float64])(a, b, x)


def _stdtr_60_digits(df, t):
    """P(T <= t) in 60-digit decimals: I = I_(df/(df + t^2))(df/2, 1/2) (its argument exact in
    decimals), I/2 below 0 and 1 - I/2 above."""
    with localcontext() as context:
        context.prec = 60
        df, t = Decimal(float(df)), Decimal(float(t))
        if t == 0:
            return 0.5
        i = _betainc_decimal(df / 2, Decimal("0.5"), df / (df + t * t), False)
        return float(i / 2 if t < 0 else 1 - i / 2)


def reference_stdtr(df, t):
    return np.vectorize(_stdtr_60_digits, otypes=[np.float64])(df, t)


def betainc_rows(op, upper):
    """op(a, b, x) in x for constant a and b: below and above the mean (the fraction on either
    side), b below 1 (1 - I by its own series), both above 10 (Stirling's prefactor)."""
    rows = [Row(f"a={a}, b={b}, {s}", lambda x, a=a, b=b: op(a, b, x),
                lambda x, a=a, b=b: reference_betainc(a, b, x, upper), inside(low, high)(s), SMOOTH)
            for (a, b, low, high), s in zip(_BETAINC_POINTS, UNARY_SHAPES * 2)]
    a = np.array([[0.6], [3.5]])                   # (2, 1) against x (3,): the gradient sums to x's shape
    return rows + [Row("a (2, 1) x (3,)", lambda x: op(a, 2.0, x),
                       lambda x: reference_betainc(a, 2.0, x, upper), inside(0.1, 0.9)((3,)), SMOOTH,
                       float32=False)]


_BETAINC_POINTS = ((2.5, 3.5, 0.05, 0.95), (0.7, 0.4, 0.1, 0.9), (30.0, 12.0, 0.6, 0.8),
                   (4.0, 40.0, 0.02, 0.2))
"""(a, b, the range of x) for the table: both sides of the mean, b and a below 1, both large, one large."""


_STDTR_POINTS = ((1.0, -3.0, 3.0), (4.5, -8.0, 2.0), (30.0, -1.0, 6.0))
"""(df, the range of t) for the table: Cauchy's, a few degrees, nearly the normal."""
_DF_COLUMN = np.array([[1.5], [7.0]])


_RECURRENCES = {   # p_0 = 1, p_1, and p_(k+1) from (k, x, p_k, p_(k-1)), in exact fractions
    "eval_legendre": (lambda x: x, lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1)),
    "eval_chebyt": (lambda x: x, lambda k, x, p, q: 2 * x * p - q),
    "eval_chebyu": (lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - q),
    "eval_hermite": (lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q),
    "eval_hermitenorm": (lambda x: x, lambda k, x, p, q: x * p - k * q),
    "eval_laguerre": (lambda x: 1 - x, lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1)),
}


def reference_orthogonal(name, n):
    """The orthogonal polynomial `name` of degree n at each float x, by its recurrence in exact
    fractions of x (so rounded once)."""
    first, step = _RECURRENCES[name]

    def one(x):
        x = Fraction(float(x))
        previous, current = Fraction(1), first(x)
        if n == 0:
            return 1.0
        for k in range(1, n):
            previous, current = current, step(k, x, current, previous)
        return float(current)
    return np.vectorize(one, otypes=[np.float64])


def _zeta_decimal(s, q=1.0):
    """zeta(s, q) by Euler-Maclaurin from q + 30 on with 30 Bernoulli terms in 60-digit decimals:
    the analytic continuation too (valid above s = -59; a negative s costs 30^(1-s) of the 60
    digits), so one formula serves both of gengrad's sides of -1/2."""
    with localcontext() as context:
        context.prec = 60
        s, q = Decimal(float(s)), Decimal(float(q))
        total = sum((q + k) ** -s for k in range(30))
        a = q + 30
        total += a ** (1 - s) / (s - 1) + a ** -s / 2
        term = s * a ** (-s - 1)
        for j in range(1, 31):
            if j > 1:
                term *= (s + 2 * j - 3) * (s + 2 * j - 2) / (a * a)
            b = _BERNOULLI[2 * j]
            total += Decimal(b.numerator) / Decimal(b.denominator) / math.factorial(2 * j) * term
        return float(total)


def _bernoulli_fractions(count):
    numbers = [Fraction(1)]
    for m in range(1, count + 1):
        numbers.append(-sum(math.comb(m + 1, j) * numbers[j] for j in range(m)) / (m + 1))
    return numbers


_BERNOULLI = _bernoulli_fractions(60)


def reference_zeta(s, q=None):
    return np.vectorize(_zeta_decimal, otypes=[np.float64])(s, 1.0 if q is None else q)


def _elliptic_decimal(m, second=False):
    """K(m) (E(m) with `second`) as a float, from `elliptic_decimals`."""
    return float(elliptic_decimals(m, second))


def elliptic_decimals(m, second=False):
    """K(m) (E(m) with `second`) by the arithmetic-geometric mean in 60-digit decimals, to a_n =
    b_n there: K = pi / (2 AGM(1, sqrt(1 - m))), E = K (1 - sum_n 2^(n-1) c_n^2), c_0^2 = m (the
    elliptic integrals' references take it from here)."""
    with localcontext() as context:
        context.prec = 60
        m = Decimal(float(m))
        a, b, total, n = Decimal(1), (1 - m).sqrt(), m / 2, 0
        while abs(a - b) > Decimal(10) ** -55 * a:
            n += 1
            c = (a - b) / 2
            total += c * c * 2 ** (n - 1)
            a, b = (a + b) / 2, (a * b).sqrt()
        k = _decimal_pi() / (2 * a)
        return k * (1 - total) if second else k


def _elliptic_decimal_complement(p):
    """K(1 - p) for a float p > 0 by the same mean from b_0 = sqrt(p) (1 - p never rounded)."""
    with localcontext() as context:
        context.prec = 60
        a, b = Decimal(1), Decimal(float(p)).sqrt()
        while abs(a - b) > Decimal(10) ** -55 * a:
            a, b = (a + b) / 2, (a * b).sqrt()
        return float(_decimal_pi() / (2 * a))


def reference_elliptic(second=False, complement=False):
    one = _elliptic_decimal_complement if complement else (lambda m: _elliptic_decimal(m, second))
    return np.vectorize(one, otypes=[np.float64])


def _exponential_integral(x, ei=False):
    """E1(x) (Ei(x) with `ei`; -E1(-x) below 0) from the power series in 100-digit decimals:
    -gamma - log x - sum_k (-x)^k / (k k!) (E1, whose terms reach e^x: 40 digits at 45, 60
    left), gamma + log x + sum_k x^k / (k k!) (Ei, positive terms)."""
    if ei and x < 0:
        return -_exponential_integral(-x)
    with localcontext() as context:
        context.prec = 100
        t = Decimal(float(x)) * (1 if ei else -1)
        term, total, k = Decimal(1), Decimal(0), 0
        while k < 5 or abs(term) > Decimal(10) ** -90 * (abs(total) + 1):
            k += 1
            term = term * t / k
            total += term / k
        euler = Decimal("0.57721566490153286060651209008240243104215933593992359880576723488486772677766467")
        return float(euler + abs(t).ln() + total) if ei else float(-euler - abs(t).ln() - total)


def _expn_decimal(n, x):
    """E_n(x) in 100-digit decimals: E1 by its series (as above), then n E_(n+1) = e^-x - x E_n
    upward (its cancellation far below the 100 digits for x <= 45); E_0 = e^-x / x."""
    with localcontext() as context:
        context.prec = 100
        t = Decimal(float(x))
        term, total, k = Decimal(1), Decimal(0), 0
        while k < 5 or abs(term) > Decimal(10) ** -90 * (abs(total) + 1):
            k += 1
            term = term * -t / k
            total += term / k
        euler = Decimal("0.57721566490153286060651209008240243104215933593992359880576723488486772677766467")
        value = -euler - t.ln() - total
        if n == 0:
            return float((-t).exp() / t)
        for m in range(1, n):
            value = ((-t).exp() - t * value) / m
        return float(value)


def reference_expn(n):
    return np.vectorize(lambda x: _expn_decimal(n, x), otypes=[np.float64])


def reference_exponential_integral(ei=False):
    return np.vectorize(lambda x: _exponential_integral(x, ei), otypes=[np.float64])


def _away_from_the_knees(rng, shape):
    """Residuals in [-4, 4] at least 0.3 from |r| in [0.5, 2] (huber's delta), one side or the
    other of every knee |r| = delta, so central differences see one formula."""
    r = rng.uniform(2.3, 4.0, shape) * rng.choice([-1.0, 1.0], shape)
    return np.where(rng.random(shape) < 0.5, r, r / 20)


def _erfi_decimal(x, dawson=False):
    """erfi(x) (Dawson's D(x) = sqrt(pi)/2 e^(-x^2) erfi(x) with `dawson`) from the series of
    positive terms 2/sqrt(pi) sum_k x^(2k+1) / (k! (2k+1)) in 60-digit decimals."""
    with localcontext() as context:
        context.prec = 60
        t = Decimal(float(x))
        term = total = t
        k = 0
        while abs(term) > Decimal(10) ** -55 * abs(total) or k < 3:
            k += 1
            term = term * t * t / k
            total += term / (2 * k + 1)
        return float(total * (-t * t).exp() if dawson else 2 * total / _decimal_pi().sqrt())


def reference_erfi(dawson=False):
    return np.vectorize(lambda x: _erfi_decimal(x, dawson), otypes=[np.float64])


def orthogonal_rows(name):
    return [Row(f"n={n}, {row.label}", lambda x, n=n: getattr(V, name)(n, x), reference_orthogonal(name, n),
                row.sample, SMOOTH) for n in (0, 1, 2, 5, 9)
            for row in unary_rows(None, None, inside(-1.3, 1.3), SMOOTH)[::3]]


def _rising(a, m):
    """(a)_m = a (a + 1) ... (a + m - 1), exact for a Fraction a."""
    return math.prod((a + j for j in range(m)), start=Fraction(1))


def _binomial(top, m):
    """binom(top, m) = (top - m + 1)_m / m! for a Fraction top, a whole m >= 0."""
    return _rising(top - m + 1, m) / math.factorial(m)


_EXPLICIT = {      # the polynomials with parameters by their explicit sums, in exact fractions
    "eval_gegenbauer": lambda n, x, a: sum((-1) ** k * _rising(a, n - k) * (2 * x) ** (n - 2 * k)
                                           / (math.factorial(k) * math.factorial(n - 2 * k))
                                           for k in range(n // 2 + 1)),
    "eval_genlaguerre": lambda n, x, a: sum((-1) ** i * _binomial(n + a, n - i) * x ** i / math.factorial(i)
                                            for i in range(n + 1)),
    "eval_jacobi": lambda n, x, a, b: sum(_binomial(n + a, n - s) * _binomial(n + b, s) * ((x - 1) / 2) ** s
                                          * ((x + 1) / 2) ** (n - s) for s in range(n + 1)),
    "eval_sh_jacobi": lambda n, x, p, q: (_EXPLICIT["eval_jacobi"](n, 2 * x - 1, p - q, q - 1)
                                          / _binomial(2 * n + p - 1, n)),
}


def reference_with_parameters(name, n):
    """`name`(n, *parameters, x) at floats, summed in exact fractions (so rounded once)."""
    def one(*args):
        *parameters, x = (Fraction(float(v)) for v in args)
        return float(_EXPLICIT[name](n, x, *parameters))
    return lambda *args: np.vectorize(one, otypes=[np.float64])(*args)


def parameter_rows(name, ranges, x_range):
    """Rows of `name`(n, *parameters, x) at n = 2 and 5, every argument a differentiated input."""
    return [Row(f"n={n}, {shape}", lambda *args, n=n: getattr(V, name)(n, *args),
                lambda *args, n=n: reference_with_parameters(name, n)(*args),
                lambda rng, shape=shape: tuple(rng.uniform(low, high, shape)
                                               for low, high in (*ranges, x_range)),
                SMOOTH) for n, shape in ((2, (3,)), (5, (2, 3)))]


_SHIFTED = {"eval_sh_legendre": ("eval_legendre", lambda x: 2 * x - 1),
            "eval_sh_chebyt": ("eval_chebyt", lambda x: 2 * x - 1),
            "eval_sh_chebyu": ("eval_chebyu", lambda x: 2 * x - 1),
            "eval_chebyc": ("eval_chebyt", lambda x: x / 2), "eval_chebys": ("eval_chebyu", lambda x: x / 2)}


def shifted_rows(name):
    """The shifted and rescaled Chebyshev and Legendre polynomials against their parents' exact
    values at the (exactly) mapped points."""
    parent, mapped = _SHIFTED[name]
    scale = 2.0 if name == "eval_chebyc" else 1.0
    low, high = (-0.1, 1.1) if "_sh_" in name else (-2.3, 2.3)
    return [Row(f"n={n}", lambda x, n=n: getattr(V, name)(n, x),
                lambda x, n=n: scale * reference_orthogonal(parent, n)(mapped(x)), inside(low, high)((3,)),
                SMOOTH)
            for n in (2, 6)]


def _poch_50_digits(z, m):
    """Gamma(z + m) / Gamma(z) from 50-digit log|Gamma|s, signed (z, z + m off the poles)."""
    with localcontext() as context:
        context.prec = 50
        z, m = Decimal(float(z)), Decimal(float(m))
        magnitude = (_log_gamma_decimal(z + m) - _log_gamma_decimal(z)).exp()
        sign = (-1) ** (max(0, math.ceil(-(z + m))) + max(0, math.ceil(-z)))
        return float(sign * magnitude)


def reference_poch(z, m):
    return np.vectorize(_poch_50_digits, otypes=[np.float64])(z, m)


def _binom_50_digits(n, k):
    """Gamma(n + 1) / (Gamma(k + 1) Gamma(n - k + 1)) from 50-digit log|Gamma|s, signed (off the poles)."""
    with localcontext() as context:
        context.prec = 50
        n, k = Decimal(float(n)), Decimal(float(k))
        parts = (n + 1, k + 1, n - k + 1)
        magnitude = (_log_gamma_decimal(parts[0]) - _log_gamma_decimal(parts[1])
                     - _log_gamma_decimal(parts[2])).exp()
        return float((-1) ** sum(max(0, math.ceil(-x)) for x in parts) * magnitude)


def reference_binom(n, k):
    return np.vectorize(_binom_50_digits, otypes=[np.float64])(n, k)


def _associated_legendre(m, v, x):
    """P_v^m(x) exactly: (-1)^m (1 - x^2)^(m/2) d^m/dx^m P_v(x), P_v's coefficients 2^-v (-1)^k
    C(v, k) C(2v - 2k, v) of x^(v - 2k) as Fractions at x's exact value, the root in 40-digit
    decimals; m < 0 by (-1)^m (v - m)! / (v + m)!, v < 0 by P_(-v-1), 0 for |m| > v."""
    if v < 0:
        v = -v - 1
    order = abs(m)
    if order > v:
        return 0.0
    t = Fraction(float(x))
    total = Fraction(0)
    for k in range(v // 2 + 1):
        power = v - 2 * k
        if power < order:
            continue
        coefficient = Fraction((-1) ** k * math.comb(v, k) * math.comb(2 * v - 2 * k, v), 2 ** v)
        total += coefficient * math.perm(power, order) * t ** (power - order)
    if m < 0:
        total *= Fraction(math.factorial(v - order), math.factorial(v + order)) * (-1) ** order
    with localcontext() as context:
        context.prec = 40
        square = 1 - t * t
        root = (Decimal(square.numerator) / Decimal(square.denominator)).sqrt() ** order if order else 1
        return float(Decimal(total.numerator) / Decimal(total.denominator) * root * (-1) ** order)


def _parabolic_cylinder(n, x):
    """D_n(x) = e^(-x^2/4) He_n(x) and D_n' = n D_(n-1) - x D_n / 2: He_n exact as a Fraction (its
    recurrence He_(k+1) = x He_k - k He_(k-1) at x's exact value), e^(-x^2/4) in 40-digit decimals."""
    t = Fraction(float(x))
    previous, current = Fraction(0), Fraction(1)
    for k in range(n):
        previous, current = current, t * current - k * previous
    with localcontext() as context:
        context.prec = 40
        weight = (-(Decimal(t.numerator) / Decimal(t.denominator)) ** 2 / 4).exp()
        value = Decimal(current.numerator) / Decimal(current.denominator) * weight
        lower = Decimal(previous.numerator) / Decimal(previous.denominator) * weight
        return float(value), float(n * lower - Decimal(t.numerator) / Decimal(t.denominator) * value / 2)


def reference_pbdv(n):
    def both(x):
        pairs = np.array([_parabolic_cylinder(n, t) for t in np.ravel(x)]).reshape(np.shape(x) + (2,))
        return pairs[..., 0], pairs[..., 1]
    return both


def reference_lpmv(m, v):
    return lambda x: np.vectorize(lambda t: _associated_legendre(m, v, t), otypes=[np.float64])(x)


def positive_pairs(low, high, s0, s1):
    return lambda rng: (rng.uniform(low, high, s0), rng.uniform(low, high, s1))


def inside(low, high):
    return lambda *shapes: (lambda rng: tuple(rng.uniform(low, high, s) for s in shapes))


ROWS = {
    "erfinv": unary_rows(V.erfinv, reference_erfinv, inside(-0.95, 0.95), SMOOTH),
    "erfcinv": unary_rows(V.erfcinv, reference_erfcinv, inside(0.02, 1.98), SMOOTH),
    "ndtri": unary_rows(V.ndtri, reference_ndtri, inside(0.01, 0.99), SMOOTH),
    "log_ndtr": unary_rows(V.log_ndtr, reference_log_ndtr, inside(-6.0, 6.0), SMOOTH),
    "ndtr": unary_rows(V.ndtr, reference_ndtr, inside(-6.0, 6.0), SMOOTH),
    "erfcx": unary_rows(V.erfcx, reference_erfcx, inside(-3.0, 6.0), SMOOTH),
    "i1": unary_rows(V.i1, bessel_reference(1), inside(-4.0, 4.0), SMOOTH),
    "i0e": unary_rows(V.i0e, bessel_reference(0, scaled=True), inside(0.2, 4.0), SMOOTH)
    + unary_rows(V.i0e, bessel_reference(0, scaled=True), inside(-30.0, -0.2), SMOOTH),
    "i1e": unary_rows(V.i1e, bessel_reference(1, scaled=True), inside(-30.0, -0.2), SMOOTH)
    + unary_rows(V.i1e, bessel_reference(1, scaled=True), inside(0.2, 30.0), SMOOTH),
    "betaln": [Row(f"{s0}x{s1}", V.betaln, reference_betaln, positive_pairs(low, high, s0, s1), SMOOTH)
               for low, high, shapes in ((0.3, 5.0, BINARY_SHAPES), (11.0, 40.0, BINARY_SHAPES[:3]))
               for s0, s1 in shapes],
    "gammainc": gammainc_rows(V.gammainc, False),
    "gammaincc": gammainc_rows(V.gammaincc, True),
    "betainc": betainc_rows(V.betainc, False),
    "betaincc": betainc_rows(V.betaincc, True),
    "stdtr": [Row(f"df={df}, {s}", lambda t, df=df: V.stdtr(df, t), lambda t, df=df: reference_stdtr(df, t),
                  inside(low, high)(s), SMOOTH)
              for (df, low, high), s in zip(_STDTR_POINTS, UNARY_SHAPES)]
    + [Row("df (2, 1) t (3,)", lambda t: V.stdtr(_DF_COLUMN, t), lambda t: reference_stdtr(_DF_COLUMN, t),
           inside(-2.0, 2.0)((3,)), SMOOTH, float32=False)],
    "multigammaln": [Row(f"d={d}, {s}", lambda a, d=d: V.multigammaln(a, d),
                         lambda a, d=d: reference_multigammaln(a, d), inside(d / 2 + 0.1, 6.0)(s), SMOOTH)
                     for d in (1, 3) for s in UNARY_SHAPES],
    "entr": unary_rows(V.entr, lambda x: -x * np.log(x), inside(0.1, 3.0), SMOOTH),
    "rel_entr": [Row(f"{s0}x{s1}", V.rel_entr, lambda x, y: x * np.log(x / y),
                     positive_pairs(0.1, 3.0, s0, s1), SMOOTH) for s0, s1 in BINARY_SHAPES],
    "kl_div": [Row(f"{s0}x{s1}", V.kl_div, lambda x, y: x * np.log(x / y) - x + y,
                   positive_pairs(0.1, 3.0, s0, s1), SMOOTH) for s0, s1 in BINARY_SHAPES],
    "xlogy": [Row(f"{s0}x{s1}", V.xlogy, lambda x, y: x * np.log(y), nonzero_then_positive(s0, s1), SMOOTH)
              for s0, s1 in BINARY_SHAPES],
    "xlog1py": [Row(f"{s0}x{s1}", V.xlog1py, lambda x, y: x * np.log1p(y), nonzero_then_positive(s0, s1),
                    SMOOTH) for s0, s1 in BINARY_SHAPES],
    "logit": [Row(str(s), V.logit, lambda p: np.log(p / (1 - p)), probabilities(s), SMOOTH)
              for s in UNARY_SHAPES],
    "erf": rows(V.erf, reference_erf),
    "erfc": rows(V.erfc, reference_erfc),
    "gammaln": gamma_rows(V.gammaln, reference_gammaln),
    "gamma": unary_rows(V.gamma, reference_gamma, inside(0.3, 5.0), SMOOTH)
    + unary_rows(V.gamma, reference_gamma, inside(-2.9, -2.1), SMOOTH),
    "rgamma": [row for low, high in ((0.3, 5.0), (-3.4, -2.6), (-0.4, 0.4))      # (across the poles 0, -3)
               for row in unary_rows(V.rgamma, lambda x: 1 / reference_gamma(x), inside(low, high), SMOOTH)],
    "gammasgn": unary_rows(V.gammasgn, lambda x: np.sign(reference_gamma(x)), inside(0.3, 5.0), SMOOTH)
    + unary_rows(V.gammasgn, lambda x: np.sign(reference_gamma(x)), inside(-2.9, -2.1), SMOOTH),
    "beta": [Row(f"{s0}x{s1}", V.beta, lambda a, b: np.exp(reference_betaln(a, b)),
                 positive_pairs(0.3, 5.0, s0, s1), SMOOTH) for s0, s1 in BINARY_SHAPES]
    + [Row("below 0", V.beta, lambda a, b: reference_gamma(a) * reference_gamma(b) / reference_gamma(a + b),
           lambda rng: (rng.uniform(-2.9, -2.1, (2, 3)), rng.uniform(0.2, 0.8, (3,))), SMOOTH)],
    **{name: orthogonal_rows(name) for name in _RECURRENCES},
    "eval_gegenbauer": parameter_rows("eval_gegenbauer", ((0.2, 2.0),), (-1.2, 1.2)),
    "eval_genlaguerre": parameter_rows("eval_genlaguerre", ((-0.8, 3.0),), (-1.0, 6.0)),
    "eval_jacobi": parameter_rows("eval_jacobi", ((-0.8, 2.0), (-0.8, 2.0)), (-1.2, 1.2)),
    "eval_sh_jacobi": parameter_rows("eval_sh_jacobi", ((2.2, 4.0), (0.3, 2.0)), (-0.1, 1.1)),
    **{name: shifted_rows(name) for name in _SHIFTED},
    "pbdv": [Row(f"v={n}", lambda x, n=n: V.pbdv(n, x), reference_pbdv(n), inside(low, high)(shape),
                 SMOOTH)
             for n, low, high, shape in ((0, -3.0, 3.0, (3,)), (3, -5.0, 5.0, (2, 3)),
                                         (12, -6.0, 8.0, (3,)))],
    "lpmv": [Row(f"m={m}, v={v}", lambda x, m=m, v=v: V.lpmv(m, v, x), reference_lpmv(m, v),
                 inside(-0.95, 0.95)(shape), SMOOTH)
             for m, v, shape in ((0, 4, (3,)), (1, 3, (2, 3)), (2, 5, (3,)), (-3, 4, (3,)), (1, -3, ()))],
    # (E's three ways; the Taylor rule to order 6 in the first, to TAYLOR_ELSEWHERE in the others)
    **{name: [row for i, (low, high) in enumerate(((-4.0, -0.2), (0.05, 0.45), (0.55, 0.97)))
              for row in (elsewhere if i else list)(unary_rows(op, ref, inside(low, high), SMOOTH))]
       for name, op, ref in (("ellipk", V.ellipk, reference_elliptic()),
                             ("ellipe", V.ellipe, reference_elliptic(True)))},
    "ellipkm1": [row for low, high in ((0.03, 0.5), (1.2, 5.0))
                 for row in unary_rows(V.ellipkm1, reference_elliptic(complement=True), inside(low, high),
                                       SMOOTH)],
    "exp1": [row for low, high in ((0.1, 1.4), (1.6, 8.0), (20.0, 45.0))       # (series, fraction)
             for row in unary_rows(V.exp1, reference_exponential_integral(), inside(low, high), SMOOTH)],
    "expi": [row for low, high in ((-6.0, -0.2), (0.1, 6.0), (41.0, 45.0))      # (E1, series, expansion)
             for row in unary_rows(V.expi, reference_exponential_integral(True), inside(low, high), SMOOTH)],
    "huber": [Row(f"{s0}x{s1}", V.huber,
                  lambda d, r: np.where(np.abs(r) <= d, r * r / 2, d * (np.abs(r) - d / 2)),
                  lambda rng, s0=s0, s1=s1: (rng.uniform(0.5, 2.0, s0), _away_from_the_knees(rng, s1)),
                  SMOOTH)
              for s0, s1 in BINARY_SHAPES],
    "pseudo_huber": [Row(f"{s0}x{s1}", V.pseudo_huber, lambda d, r: d * d * (np.sqrt(1 + (r / d) ** 2) - 1),
                         lambda rng, s0=s0, s1=s1: (rng.uniform(0.3, 3.0, s0), rng.uniform(-4.0, 4.0, s1)),
                         SMOOTH)
                     for s0, s1 in BINARY_SHAPES],
    "expn": [Row(f"n={n}, [{low}, {high}]", lambda x, n=n: V.expn(n, x), reference_expn(n),
                 inside(low, high)(shape), SMOOTH)
             for n, (low, high), shape in ((2, (0.1, 1.4), (3,)), (5, (1.6, 8.0), (2, 3)),
                                           (0, (0.3, 3.0), ()))],
    "erfi": [row for low, high in ((-2.0, 2.0), (6.6, 7.2))                  # (series, expansion)
             for row in unary_rows(V.erfi, reference_erfi(), inside(low, high), SMOOTH)],
    "dawsn": [row for low, high in ((-2.0, 2.0), (6.6, 12.0))
              for row in unary_rows(V.dawsn, reference_erfi(True), inside(low, high), SMOOTH)],
    # (both sides of -1/2; the Taylor rule to order 6 above 1 and on two Hurwitz rows, the others
    # to TAYLOR_ELSEWHERE)
    "zeta": [row for i, (low, high) in enumerate(((1.3, 6.0), (0.1, 0.8), (-0.45, -0.05), (-5.5, -0.7)))
             for row in (elsewhere if i else list)(unary_rows(V.zeta, reference_zeta, inside(low, high),
                                                              SMOOTH))]
    + [Row(f"Hurwitz {s0}x{s1}", V.zeta, reference_zeta,
           lambda rng, s0=s0, s1=s1: (rng.uniform(1.3, 4.0, s0), rng.uniform(0.6, 5.0, s1)), SMOOTH,
           taylor=TAYLOR if (s0, s1) in (((), ()), ((2, 1), (1, 3))) else TAYLOR_ELSEWHERE)
       for s0, s1 in BINARY_SHAPES],
    # (poch's and binom's device path: the first shape's row and the family's device test, which
    # holds values and gradients to the host's bit for bit; the other rows, 70 s on the stand-in,
    # on the host alone)
    "poch": [Row(f"{s0}x{s1}", V.poch, reference_poch,
                 lambda rng, s0=s0, s1=s1: (rng.uniform(0.3, 6.0, s0), rng.uniform(-0.25, 3.3, s1)), SMOOTH,
                 device=i == 0)
             for i, (s0, s1) in enumerate(BINARY_SHAPES[:4])]
    + [Row("z below 0", V.poch, reference_poch,
           lambda rng: (rng.uniform(-2.9, -2.1, (2, 3)), rng.uniform(0.2, 0.8, (3,))), SMOOTH, device=False)],
    "binom": [Row(f"{s0}x{s1}", V.binom, reference_binom,
                  lambda rng, s0=s0, s1=s1: (rng.uniform(3.0, 8.0, s0), rng.uniform(0.3, 2.7, s1)), SMOOTH,
                  device=i == 0)
              for i, (s0, s1) in enumerate(BINARY_SHAPES[:4])]
    + [Row("n below 0", V.binom, reference_binom,
           lambda rng: (rng.uniform(-2.9, -2.1, (2, 3)), rng.uniform(0.2, 0.8, (3,))), SMOOTH, device=False)],
    "digamma": gamma_rows(V.digamma, lambda x: reference_polygamma(0, x)),
    "polygamma": [Row(f"n={n}, {row.label}", polygamma_of(n), lambda x, n=n: reference_polygamma(n, x),
                      row.sample, SMOOTH) for n in (1, 3) for row in gamma_rows(None, None)],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


POINTS = np.concatenate([np.linspace(-6.0, 27.0, 3301), [-1e-10, 1e-300, 0.0, -0.0, 0.99999, 1.99999]])


def test_erf_to_full_relative_precision_down_to_its_smallest_values():
    expected = reference_erf(POINTS)
    got = V.erf(POINTS).data
    nonzero = expected != 0
    assert np.max(np.abs(got - expected)[nonzero] / np.abs(expected[nonzero])) < 4e-15
    np.testing.assert_array_equal(got[~nonzero], expected[~nonzero])


def test_erfc_keeps_its_right_tail_to_full_relative_precision():
    expected = reference_erfc(POINTS)
    got = V.erfc(POINTS).data
    normal_range = expected > 1e-300   # (below it the reference is subnormal; 1 - erf's 4.2e-15 at 1-
    assert np.max(np.abs(got - expected)[normal_range] / expected[normal_range]) < 2e-15  # is gone)
    assert V.erfc(np.array(10.0)).data == pytest.approx(2.088487583762545e-45, rel=1e-14)
    assert 1 - V.erf(np.array(10.0)).data == 0.0   # what erfc(x) = 1 - erf(x) would give


def test_erfc_by_one_formula_to_its_stated_precision_from_zero_to_underflow():
    """erfc_of_abs (the exact GELU's normal CDF): erfc(|x|) = t e^(g(2t - 1) - x^2), t = 2/(2 + |x|),
    g a polynomial interpolated once: within 4.2e-10 relative of libm's erfc at degree 14 (for
    float32 results) and 1e-14 at 24, at either sign, of x / sqrt 2, on float32 data, 0-d arrays;
    and e^(-x^2) beside it."""
    x = np.concatenate([-POINTS, POINTS, [np.inf, -np.inf, 27.3]])
    expected = reference_erfc(np.abs(x))
    normal = expected > 1e-300
    for single, bound in ((True, 4.2e-10), (False, 1.2e-14)):
        got, density = special_ops.erfc_of_abs(x, single=single)
        assert got.dtype == np.float64
        assert np.max(np.abs(got - expected)[normal] / expected[normal]) < bound
        assert np.all(np.abs(got - expected)[~normal] < 1e-300)           # (0 at inf: no inf - inf)
        square = x[normal] ** 2                  # (e^(-x^2) here rounds x^2: x^2 ulps at most)
        want = np.exp(-square)
        assert np.all(np.abs(density[normal] - want) <= (4e-16 + 2.3e-16 * square) * want)
        scaled = special_ops.erfc_of_abs(x[normal] * math.sqrt(2), normal=True, single=single)[0]
        assert np.max(np.abs(scaled - expected[normal]) / expected[normal]) < bound * 40   # (x rounded)
    x32 = np.linspace(-9, 9, 1001, dtype=np.float32)
    got = special_ops.erfc_of_abs(x32)[0]
    assert got.dtype == np.float64
    assert np.max(np.abs(got / reference_erfc(np.abs(x32.astype(np.float64))) - 1)) < 4.2e-10
    for single in (True, False):
        zero, one = special_ops.erfc_of_abs(np.array(0.0), single=single)
        nan, _ = special_ops.erfc_of_abs(np.array(np.nan), single=single)
        assert zero.shape == one.shape == () and zero == one == 1.0 and np.isnan(nan)


def test_limits_and_nan():
    x = np.array([np.inf, -np.inf, 40.0, -40.0, np.nan])
    np.testing.assert_array_equal(V.erf(x).data[:4], [1.0, -1.0, 1.0, -1.0])
    np.testing.assert_array_equal(V.erfc(x).data[:4], [0.0, 2.0, 0.0, 2.0])
    assert np.isnan(V.erf(x).data[4]) and np.isnan(V.erfc(x).data[4])


def test_float32_data_gives_float32_results():
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    for op, ref in [(V.erf, reference_erf), (V.erfc, reference_erfc)]:
        y = op(x)
        assert y.dtype == np.float32
        np.testing.assert_allclose(y.data, ref(x.astype(np.float64)), rtol=2e-7, atol=1e-7)


def test_derivatives_are_the_gaussian_density_to_any_order():
    x = V.Variable(np.array([-0.7, 0.2, 2.5]))
    d1 = V.grad(V.sum(V.erf(x)), x, create_graph=True)
    np.testing.assert_allclose(d1.data, 2 / math.sqrt(math.pi) * np.exp(-x.data ** 2), rtol=1e-15)
    d2 = V.grad(V.sum(d1), x)
    np.testing.assert_allclose(d2.data, -4 * x.data / math.sqrt(math.pi) * np.exp(-x.data ** 2), rtol=1e-14)
    density = 2 / math.sqrt(math.pi) * np.exp(-x.data ** 2)
    np.testing.assert_allclose(V.grad(V.sum(V.erfc(x)), x).data, -density)


def test_scipys_erf_and_erfc_on_a_variable_record_the_ops():
    special = pytest.importorskip("scipy.special")
    x = V.Variable(np.array([-1.2, 0.3, 2.7]))
    for scipys, ours in [(special.erf, V.erf), (special.erfc, V.erfc)]:
        y = scipys(x)
        assert isinstance(y, V.Variable) and y.creator is not None
        np.testing.assert_allclose(y.data, scipys(x.data), rtol=1e-14)
        np.testing.assert_allclose(V.grad(V.sum(y), x).data, V.grad(V.sum(ours(x)), x).data)


# ----- the gamma family --------------------------------------------------------------------
GRID = np.concatenate([np.linspace(-40.0, 60.0, 4001), 10.0 ** np.linspace(-8, 8, 161),
                       np.linspace(0.5, 2.5, 801), [1.0, 2.0, 1.4616321449683622, 9.999999, 10.0, 10.000001]])
GRID = GRID[(GRID > 0) | (np.abs(GRID - np.round(GRID)) > 1e-3)]     # off the poles by 1e-3


def relative(got, expected):
    return np.abs(got - expected) / np.maximum(np.abs(expected), 1e-300)


def test_gammaln_to_a_few_ulps():
    expected = reference_gammaln(GRID)
    got = V.gammaln(GRID).data
    positive = GRID > 0    # relative, by the zeros at 1 and 2 too (its series about 2 there)
    exact_zero = np.abs(expected) < 1e-30
    assert np.max(relative(got, expected)[positive & ~exact_zero]) < 4e-15
    np.testing.assert_array_equal(got[exact_zero], 0.0)                   # at 1 and 2
    # x < 0: log(pi / |sin(pi x)|) - log Gamma(1 - x), to a few ulps of those terms (they cancel
    # by the zeros of log|Gamma| below -2)
    x = GRID[~positive]
    terms = np.abs(np.log(np.pi / np.abs(np.sin(np.pi * x)))) + np.abs(reference_gammaln(1 - x))
    assert np.max(np.abs(got - expected)[~positive] / terms) < 4e-15
    # and the C library agrees, to its own error (3e-16 absolute by 1 and 2, 1.5e-14 relative by
    # 2.13, more by the zeros below -2)
    libc = np.vectorize(math.lgamma, otypes=[np.float64])(GRID)
    assert np.max(np.abs(got - libc) / np.maximum(1.0, np.abs(libc))) < 2e-14


def test_gammaln_and_digamma_below_10_by_the_recurrence_toward_their_series():
    # gammaln on (3.75, 10) down into its series about 2 and on (-10, 0) up into it: sums of
    # positive terms (up by 10 with log Gamma(x + 10) - log(x ... (x+9)) it was 28 ulps, and the
    # reflection's rounded 1 - x 3x that by log|Gamma|'s zeros); digamma on (1.96, 10) down into
    # its series about its zero and below 0.96 up into it (9 ulps by 2 before)
    grid = np.linspace(3.76, 9.99, 700)
    assert np.max(relative(V.gammaln(grid).data, reference_gammaln(grid))) < 8e-16
    grid = np.linspace(-9.99, -0.01, 1000)
    grid = grid[np.abs(grid - np.round(grid)) > 1e-3]
    expected = reference_gammaln(grid)
    away = np.abs(expected) > 0.5                     # (by its zeros the function itself is ill-conditioned)
    assert np.max(relative(V.gammaln(grid).data, expected)[away]) < 8e-16
    grid = np.concatenate([np.linspace(0.01, 0.95, 300), np.linspace(1.97, 9.99, 700)])
    assert np.max(relative(V.digamma(grid).data, reference_polygamma(0, grid))) < 1.2e-15


@pytest.mark.parametrize("n", [0, 1, 2, 5, 12])
def test_digamma_and_polygamma_to_a_few_ulps(n):
    points = GRID[(GRID > -20) & (GRID < 1e4)]
    expected = reference_polygamma(n, points)
    got = V.polygamma(n, points).data
    positive = points > 0  # relative, by digamma's zero too (its series about the zero there)
    assert np.max(relative(got, expected)[positive]) < 4e-15
    if n == 0:   # x < 0: to a few ulps of the reflection's terms, which cancel by digamma's zeros
        x = points[~positive]
        terms = np.abs(reference_polygamma(0, 1 - x)) + np.abs(np.pi / np.tan(np.pi * x))
        assert np.max(np.abs(got - expected)[~positive] / terms) < 4e-15
    else:
        assert np.max(relative(got, expected)[~positive]) < 4e-15


def test_the_gamma_family_keeps_its_identities():
    x = np.random.default_rng(5).uniform(0.5, 30.0, 500)
    # Legendre's duplication: psi(2x) = (psi(x) + psi(x + 1/2)) / 2 + log 2
    np.testing.assert_allclose(V.digamma(2 * x).data,
                               (V.digamma(x).data + V.digamma(x + 0.5).data) / 2 + math.log(2),
                               rtol=1e-14, atol=1e-14)
    # the recurrence: psi^(n)(x + 1) = psi^(n)(x) + (-1)^n n! x^-(n+1), across the shift at 10 + 2n
    # (x >= 1/2: the right side's terms cancel little)
    for n in (1, 2, 4):
        np.testing.assert_allclose(V.polygamma(n, x + 1).data,
                                   V.polygamma(n, x).data + (-1) ** n * math.factorial(n) * x ** -(n + 1.0),
                                   rtol=1e-13)
    # known values: psi(1) = -gamma, psi(1/2) = -gamma - 2 log 2, psi'(1) = pi^2/6, psi'(1/2) = pi^2/2,
    # psi''(1) = -2 zeta(3), and psi^(2k-1)(1) = (2k-1)! zeta(2k) with zeta(2k) from pi
    assert V.digamma(np.array(1.0)).data == pytest.approx(-np.euler_gamma, rel=2e-16)
    assert V.digamma(np.array(0.5)).data == pytest.approx(-np.euler_gamma - 2 * math.log(2), rel=4e-16)
    assert V.polygamma(1, np.array(1.0)).data == pytest.approx(math.pi ** 2 / 6, rel=4e-16)
    assert V.polygamma(1, np.array(0.5)).data == pytest.approx(math.pi ** 2 / 2, rel=4e-16)
    assert V.polygamma(3, np.array(1.0)).data == pytest.approx(6 * math.pi ** 4 / 90, rel=4e-16)
    assert V.polygamma(5, np.array(1.0)).data == pytest.approx(120 * math.pi ** 6 / 945, rel=1e-15)
    # the reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x)
    z = np.random.default_rng(6).uniform(-6.0, 6.0, 200)
    z = z[np.abs(z - np.round(z)) > 0.01]
    np.testing.assert_allclose(V.gammaln(z).data + V.gammaln(1 - z).data,
                               np.log(np.pi / np.abs(np.sin(np.pi * z))), rtol=1e-13, atol=1e-13)


def test_the_gamma_family_at_its_poles_and_infinities():
    x = np.array([0.0, -0.0, -1.0, -2.0, np.inf, -np.inf, np.nan, -1e300])
    np.testing.assert_array_equal(V.gammaln(x).data, [np.inf] * 6 + [np.nan, np.inf])
    np.testing.assert_array_equal(V.digamma(x).data,
                                  [-np.inf, np.inf, np.nan, np.nan, np.inf, np.nan, np.nan, np.nan])
    np.testing.assert_array_equal(V.polygamma(1, x[[0, 2, 4, 6]]).data, [np.inf, np.inf, 0.0, np.nan])
    np.testing.assert_array_equal(V.polygamma(2, x[[0, 2, 4]]).data, [-np.inf, -np.inf, 0.0])
    assert V.gammaln(np.array(1e300)).data == pytest.approx(1e300 * (math.log(1e300) - 1), rel=1e-15)
    assert V.gammaln(np.array(1e-300)).data == pytest.approx(300 * math.log(10), rel=1e-15)


def test_polygamma_of_high_order_neither_overflows_nor_underflows_early():
    # psi^(60)(2e5) = -59!/z^60 (1 + ...) ~ -4.3e-239: z^-60 alone would be subnormal
    z = 2e5
    expected = -math.factorial(59) / z ** 30 / z ** 30 * (1 + 60 / (2 * z))
    assert V.polygamma(60, np.array(z)).data == pytest.approx(expected, rel=1e-9)
    expected = reference_polygamma(30, np.array(0.5))
    assert V.polygamma(30, np.array(0.5)).data == pytest.approx(expected, rel=1e-14)


def test_gammaln_derivatives_are_digamma_and_polygamma_to_any_order():
    x = np.array([-2.5, 0.3, 1.0, 7.5])
    d = V.taylor(V.gammaln, x, np.ones(4), 6)
    np.testing.assert_allclose(d[1].data, V.digamma(x).data, rtol=1e-15)
    for k in range(2, 7):
        np.testing.assert_allclose(d[k].data, V.polygamma(k - 1, x).data, rtol=1e-14)
    g = V.grad(V.sum(V.gammaln(V.Variable(x))), [V.Variable(x)], allow_unused=True)
    assert g == (None,)   # (a fresh Variable: not the one differentiated)
    v = V.Variable(x)
    g1 = V.grad(V.sum(V.gammaln(v)), v, create_graph=True)
    g2 = V.grad(V.sum(g1), v)
    np.testing.assert_allclose(g2.data, V.polygamma(1, x).data, rtol=1e-15)


def test_polygamma_refuses_an_order_that_is_not_one_non_negative_int():
    x = np.array([1.0, 2.0])
    with pytest.raises(TypeError, match=r"polygamma: n must be an int.*call polygamma once per order"):
        V.polygamma(np.array([1, 2]), x)
    with pytest.raises(TypeError, match=r"polygamma: n must be an int"):
        V.polygamma(1.5, x)
    with pytest.raises(ValueError, match=r"at least 0 \(0 is digamma\).*V\.gammaln\(x\)"):
        V.polygamma(-1, x)
    assert V.polygamma(np.int64(0), x).data == pytest.approx(V.digamma(x).data)


def test_scipys_gamma_family_on_a_variable_records_the_ops():
    special = pytest.importorskip("scipy.special")
    x = V.Variable(np.array([-2.5, 0.3, 1.7, 40.0]))
    pairs = [(special.gammaln, V.gammaln), (special.digamma, V.digamma), (special.psi, V.digamma)]
    for scipys, ours in pairs:
        y = scipys(x)
        assert isinstance(y, V.Variable) and y.creator is not None
        np.testing.assert_allclose(y.data, ours(x.data).data, rtol=1e-15)
        np.testing.assert_allclose(y.data, scipys(x.data), rtol=1e-12)
    assert V.gradcheck(lambda v: special.gammaln(v), x.data, order=3)


def test_scipys_polygamma_is_refused_naming_gengrads_spelling():
    special = pytest.importorskip("scipy.special")
    if V.backend.default_device() != "cpu":
        pytest.skip("on the device, SciPy's conversion is refused as a host conversion first")
    x = V.Variable(np.array([0.3, 1.7]))
    with pytest.raises(ValueError, match=r"scipy\.special\.polygamma.*V\.polygamma\(n, x\)"):
        special.polygamma(1, x)


def test_rgamma_gammasgn_and_beta_are_scipys_with_derivatives_through_the_poles():
    special = pytest.importorskip("scipy.special")
    x = np.array([0.0, -0.0, -1.0, -2.0, np.inf, -np.inf, np.nan, -2.5, 171.7, -180.5, 1e-300, 0.3, 3.7,
                  -0.4])
    np.testing.assert_array_equal(V.gammasgn(x).data, special.gammasgn(x))
    np.testing.assert_array_equal(np.signbit(V.gammasgn(x).data), np.signbit(special.gammasgn(x)))
    np.testing.assert_allclose(V.rgamma(x).data, special.rgamma(x), rtol=2e-15, atol=0)
    np.testing.assert_array_equal(np.signbit(V.rgamma(x).data), np.signbit(special.rgamma(x)))
    a = np.array([1.0, -0.5, -1.0, 0.0, -1.5, 0.3, np.nan, -2.5, 40.0])
    b = np.array([2.0, 2.0, 2.0, 1.0, 0.5, 0.2, 1.0, 1.2, 2.5])
    np.testing.assert_allclose(V.beta(a, b).data, special.beta(a, b), rtol=1e-14, atol=0)
    # large arguments from betaln (SciPy's beta(300, 300) is 1.6e-13 off, beta(1e-3, 1e5) 1e-10)
    a, b = np.array([300.0, 1e-3, 0.5, 1e-8]), np.array([300.0, 1e5, 1e6, 3.0])
    np.testing.assert_allclose(V.beta(a, b).data, np.exp(reference_betaln(a, b)), rtol=5e-14, atol=0)
    for ours, scipys, args in ((V.rgamma, special.rgamma, (x,)), (V.gammasgn, special.gammasgn, (x,)),
                               (V.beta, special.beta, (a, b[::-1]))):
        y = scipys(*[V.Variable(v) for v in args])                      # scipy.special's names record
        assert y.creator is not None
        np.testing.assert_array_equal(y.data, ours(*args).data)
    # 1/Gamma is entire: at -n its derivative is (-1)^n n!, its second at 0 2 gamma_E (Euler's),
    # backward and Taylor mode alike
    poles = V.Variable(np.array([0.0, -1.0, -2.0, -3.0, -4.0]))
    slope = V.grad(V.sum(V.rgamma(poles)), poles, create_graph=True)
    np.testing.assert_allclose(slope.data, [1.0, -1.0, 2.0, -6.0, 24.0], rtol=1e-15)
    curvature = V.grad(V.sum(slope), poles)
    np.testing.assert_allclose(curvature.data[0], 2 * 0.57721566490153286, rtol=1e-14)
    d = V.taylor(V.rgamma, poles.data, np.ones(5), 3)
    np.testing.assert_allclose(d[1].data, slope.data, rtol=1e-15)
    np.testing.assert_allclose(d[2].data, curvature.data, rtol=1e-13)
    assert V.gradcheck(V.rgamma, np.array([-3.0, -2.0, 0.0, 1.0]), order=3)
    assert V.taylorcheck(V.rgamma, np.array([-3.0, -2.0, 0.0, 1.0]), order=4)
    # beta's gradient: B (psi(a) - psi(a + b)), against SciPy's psi
    a, b = V.Variable(np.array([0.7, 2.5, -0.5])), V.Variable(np.array([1.3, 0.4, 2.2]))
    ga, gb = V.grad(V.sum(V.beta(a, b)), [a, b])
    value, psi_total = special.beta(a.data, b.data), special.psi(a.data + b.data)
    np.testing.assert_allclose(ga.data, value * (special.psi(a.data) - psi_total), rtol=1e-13)
    np.testing.assert_allclose(gb.data, value * (special.psi(b.data) - psi_total), rtol=1e-13)


@pytest.mark.parametrize("name", sorted(_RECURRENCES))
def test_orthogonal_polynomials_of_high_degree_and_their_refusals(name):
    op = getattr(V, name)
    x = np.linspace(-1.1, 1.1, 23)
    for n in (15, 40):                     # to a few ulps of the largest value on the interval
        exact = reference_orthogonal(name, n)(x)
        assert np.max(np.abs(op(n, x).data - exact)) <= 2e-15 * n * np.max(np.abs(exact))
    assert op(np.int64(3), x).data.tolist() == op(3, x).data.tolist() == op(3.0, x).data.tolist()
    assert op(4, x.astype(np.float32)).dtype == np.float32
    np.testing.assert_array_equal(op(0, np.array([np.nan, 2.0])).data, [np.nan, 1.0])
    t = V.Variable(np.array([0.3, -0.7]))
    assert V.grad(V.sum(op(0, t)), t).data.tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match=rf"{name}\(n, x\): the degree n must be a whole number .*got 2\.5"):
        op(2.5, x)
    with pytest.raises(TypeError, match=rf"{name}\(n, x\): the degree n must be a whole number"):
        op(V.Variable(np.array(2.0)), x)
    with pytest.raises(ValueError, match=rf"{name}\(n, x\): the degree n must be in \[0, 10000\], got -1"):
        op(-1, x)
    # an array of degrees broadcasts with x (SciPy's Vandermonde-like table); PyTorch's order refused
    table = op(np.arange(6)[:, None], x)
    assert table.shape == (6, 23)
    for n in range(6):
        np.testing.assert_array_equal(table.data[n], op(n, x).data)
    assert V.gradcheck(lambda t: op(np.array([0, 2, 5]), t), np.array([0.3, -0.7, 1.1]), order=3)
    with pytest.raises(TypeError, match=rf"{name}\(n, x\): the degree n must be whole numbers, got an array "
                                        rf"of shape \(23,\) and dtype float64; the degree comes first"):
        op(x, 3)
    with pytest.raises(ValueError, match=rf"{name}\(n, x\): every degree must be in \[0, 10000\], "
                                         rf"got -2 \.\. 1"):
        op(np.array([-2, 1]), 0.5)
    special = pytest.importorskip("scipy.special")
    y = getattr(special, name)(5, t)                                     # SciPy's ufunc records it
    assert y.creator is not None
    np.testing.assert_allclose(y.data, getattr(special, name)(5, t.data), rtol=1e-13)
    torch_name = {"eval_legendre": "legendre_polynomial_p", "eval_chebyt": "chebyshev_polynomial_t",
                  "eval_chebyu": "chebyshev_polynomial_u", "eval_hermite": "hermite_polynomial_h",
                  "eval_hermitenorm": "hermite_polynomial_he", "eval_laguerre": "laguerre_polynomial_l"}[name]
    with pytest.raises(AttributeError, match=rf"V\.{name}\(n, x\), SciPy's name \(the degree n first\)"):
        getattr(V, torch_name)


PARAMETERS = {"eval_gegenbauer": (0.75,), "eval_genlaguerre": (1.5,), "eval_jacobi": (0.5, -0.25),
              "eval_sh_jacobi": (2.5, 1.5)}


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_polynomials_with_parameters_against_their_exact_sums_scipy_and_broadcasting(name):
    op, parameters = getattr(V, name), PARAMETERS[name]
    x = np.linspace(-0.1, 1.1, 13) if name == "eval_sh_jacobi" else np.linspace(-1.1, 1.1, 23)
    for n in (12, 30):                     # to a few ulps of the largest value on the interval
        exact = reference_with_parameters(name, n)(*parameters, x)
        assert np.max(np.abs(op(n, *parameters, x).data - exact)) <= 2e-15 * n * np.max(np.abs(exact))
    # the parameters broadcast with x and an array of degrees, each entry its own, differentiable
    column = np.array([[parameters[0]], [parameters[0] + 0.5]])
    grid = op(np.array([[1], [4]]), column, *parameters[1:], x[:3])
    for i in range(2):
        for j in range(3):
            expected = reference_with_parameters(name, (1, 4)[i])(column[i, 0], *parameters[1:], x[j])
            assert grid.data[i, j] == pytest.approx(float(expected), rel=1e-14, abs=1e-15)
    assert V.gradcheck(lambda *args: op(3, *args), *[np.array([p, p + 0.3]) for p in parameters], x[4:6],
                       order=3)
    assert op(0, np.array([1.0, 2.0]), *parameters[1:], 0.3).shape == (2,)
    arguments = ", ".join(_SIGNATURES_SHOWN[name])
    with pytest.raises(TypeError, match=rf"{name}\({arguments}\): the degree n must be a whole number"):
        op(2.5, *parameters, x)
    special = pytest.importorskip("scipy.special")
    t = V.Variable(x[2:5])
    y = getattr(special, name)(5, *parameters, t)                       # SciPy's ufunc records it
    assert y.creator is not None
    np.testing.assert_allclose(y.data, getattr(special, name)(5, *parameters, t.data), rtol=1e-13)


_SIGNATURES_SHOWN = {"eval_gegenbauer": ("n", "alpha", "x"), "eval_genlaguerre": ("n", "alpha", "x"),
                     "eval_jacobi": ("n", "alpha", "beta", "x"), "eval_sh_jacobi": ("n", "p", "q", "x")}


@pytest.mark.parametrize("name", sorted(_SHIFTED))
def test_shifted_and_rescaled_polynomials_are_scipys_and_name_themselves(name):
    op, x = getattr(V, name), np.linspace(-0.2, 1.2, 15)
    parent, mapped = _SHIFTED[name]
    for n in (0, 3, 20):
        exact = (2.0 if name == "eval_chebyc" else 1.0) * reference_orthogonal(parent, n)(mapped(x))
        np.testing.assert_allclose(op(n, x).data, exact, rtol=0, atol=4e-15 * max(1.0, np.max(np.abs(exact))))
    with pytest.raises(ValueError, match=rf"^{name}\(n, x\): the degree n must be in \[0, 10000\], got -1"):
        op(-1, x)
    special = pytest.importorskip("scipy.special")
    np.testing.assert_allclose(getattr(special, name)(7, V.Variable(x)).data, getattr(special, name)(7, x),
                               rtol=1e-12, atol=1e-14)


def test_lpmv_to_a_few_ulps_of_its_exact_values_scipys_edges_and_refusals():
    """P_v^m against its exact polynomial (and root) within 4 (1 + |v|) ulps of the largest
    |P_v^m| on [-1, 1] (the recurrence's error is absolute) up to degree 40 and order 12; x beyond
    [-1, 1] NaN for m != 0, the polynomial for m = 0, 0 for |m| > v; the gradient at 0.3 against
    P_5^2's exact derivative; non-integer orders and degrees and Variables refused naming lpmv."""
    x = np.concatenate([np.linspace(-1, 1, 21), [0.999, -0.9999]])
    for m, v in ((0, 7), (1, 2), (3, 9), (12, 40), (-2, 5), (-5, 20), (4, -8), (1, 1), (0, 0)):
        exact = np.array([_associated_legendre(m, v, t) for t in x])
        bound = 4 * 2.2e-16 * np.max(np.abs(exact)) * (1 + abs(v))     # (x's own rounding times P'
        assert np.max(np.abs(V.lpmv(m, v, x).data - exact)) <= bound  # ~ v^2 P near +-1)
    outside = np.array([-1.5, 1.2, np.nan])
    np.testing.assert_array_equal(V.lpmv(1, 3, outside).data, [np.nan] * 3)
    np.testing.assert_array_equal(V.lpmv(4, 3, np.array([0.3, 1.5])).data, [0.0, np.nan])
    t = V.Variable(np.array([0.3, -0.7]))
    np.testing.assert_array_equal(V.grad(V.sum(V.lpmv(4, 3, t)), t).data, [0.0, 0.0])   # (a constant 0)
    orders, degrees = np.array([[0], [1], [-2], [4]]), np.array([2, 3, 7])       # a table, as SciPy's
    inner = x[1:-3]
    table = V.lpmv(orders[..., None], degrees[:, None], inner)
    assert table.shape == (4, 3, 19)
    for i, j in np.ndindex(4, 3):
        single = V.lpmv(int(orders[i, 0]), int(degrees[j]), inner)
        np.testing.assert_array_equal(table.data[i, j], single.data)
    t = V.Variable(inner)
    np.testing.assert_allclose(V.grad(V.sum(V.lpmv(np.array([1, 2]), 3, t[:, None])), t).data,
                               sum(V.grad(V.sum(V.lpmv(k, 3, t)), t).data for k in (1, 2)), rtol=1e-14)
    with pytest.raises(TypeError, match=r"^lpmv\(m, v, x\): the order m must be a whole .*not all whole"):
        V.lpmv(np.array([1.5, 2.0]), 3, x)
    np.testing.assert_allclose(V.lpmv(0, 2, outside[:2]).data, (3 * outside[:2] ** 2 - 1) / 2, rtol=1e-15)
    t = V.Variable(np.array(0.3))
    d1 = V.grad(V.lpmv(2, 5, t), t)                        # P_5^2 = 105/2 x (1 - x^2)(3 x^2 - 1)
    u = 0.3
    exact = 105 / 2 * ((1 - u * u) * (3 * u * u - 1) - 2 * u * u * (3 * u * u - 1) + 6 * u * u * (1 - u * u))
    assert float(d1.data) == pytest.approx(exact, rel=1e-14)
    for bad, message in (((1.5, 3), "the order m must be a whole number"),
                         ((1, 2.5), "gengrad's degree v is a whole number"),
                         ((V.Variable(np.array(1.0)), 3), "the order m must be a whole number")):
        with pytest.raises(TypeError, match=rf"^lpmv\(m, v, x\): {message}"):
            V.lpmv(*bad, x)
    special = pytest.importorskip("scipy.special")
    y = special.lpmv(2, 5, V.Variable(x[1:-3]))
    np.testing.assert_allclose(y.data, special.lpmv(2, 5, x[1:-3]), rtol=1e-13, atol=1e-14)


def test_pbdv_to_a_few_ulps_of_its_exact_values_its_limits_and_refusals():
    """D_n and D_n' against e^(-x^2/4) times the exact Hermite polynomial within 4 (1 + n) ulps of
    their largest (the recurrence's error is absolute), n to 200 (D_200(40) = 2.7e140, where He_200
    alone would overflow); 0 far out and at +-inf; negative or non-integer orders refused."""
    x = np.concatenate([np.linspace(-15, 15, 31), [40.0, -37.5]])
    for n in (0, 1, 4, 25, 200):
        exact = np.array([_parabolic_cylinder(n, t) for t in x]).T
        for got, want in zip(V.pbdv(n, x), exact):
            assert np.max(np.abs(got.data - want)) <= 4 * 2.2e-16 * (1 + n) * np.max(np.abs(want))
    d, slope = V.pbdv(3, np.array([np.inf, -np.inf, 60.0, np.nan]))
    np.testing.assert_array_equal(d.data, [0.0, 0.0, 0.0, np.nan])
    np.testing.assert_array_equal(slope.data, [0.0, 0.0, 0.0, np.nan])
    t = V.Variable(np.linspace(-3, 3, 7))
    d, slope = V.pbdv(6, t)
    np.testing.assert_allclose(V.grad(V.sum(d), t).data, slope.data, rtol=1e-13, atol=1e-15)
    with pytest.raises(TypeError, match=r"^pbdv\(v, x\): gengrad's order v is a whole number >= 0"):
        V.pbdv(2.5, t)
    with pytest.raises(ValueError, match=r"^pbdv\(v, x\): the order v must be a whole number in \[0, 1"):
        V.pbdv(-1, t)
    orders = np.array([0, 2, 5])
    for got, want in zip(V.pbdv(orders, x[:, None]), zip(*[V.pbdv(int(n), x) for n in orders])):
        np.testing.assert_array_equal(got.data, np.stack([w.data for w in want], axis=1))
    special = pytest.importorskip("scipy.special")
    for ours, theirs in zip(special.pbdv(5, V.Variable(x[:31])), special.pbdv(5, x[:31])):
        np.testing.assert_allclose(ours.data, theirs, rtol=1e-13, atol=1e-13 * np.max(np.abs(theirs)))


def test_jacobi_is_nan_where_its_recurrence_divides_by_0_and_defined_for_every_other_parameter():
    # P_2^(-1, -1): 2k + alpha + beta = 0 at k = 1 (SciPy: NaN too); Gegenbauer at alpha = -1/2 and
    # Laguerre at alpha = -3/2 are polynomials in alpha (SciPy: NaN), against their exact sums
    assert np.isnan(V.eval_jacobi(2, -1.0, -1.0, 0.3).data)
    for name, parameter in (("eval_gegenbauer", -0.5), ("eval_genlaguerre", -1.5)):
        expected = reference_with_parameters(name, 3)(parameter, 0.3)
        assert getattr(V, name)(3, parameter, 0.3).data == pytest.approx(float(expected), rel=1e-15)


def test_poch_and_binom_exact_products_and_their_gamma_forms_digits():
    # whole m and k: the products, each factor rounded once (exact where the value is a float)
    assert V.binom(10, 3).data == 120 and V.binom(52, 5).data == 2598960 and V.binom(-3, 2).data == 6
    for n, k in ((60, 30), (63, 40), (1e10, 2), (-7.5, 6), (0.5, 13)):
        exact = math.prod((Fraction(n) - j for j in range(k)), start=Fraction(1)) / math.factorial(k)
        assert V.binom(n, k).data == pytest.approx(float(exact), rel=4e-16 * k), (n, k)
    for z, m in ((-2.5, 4), (0.3, -3), (7.0, 19), (-30.25, 5)):
        exact = math.prod((Fraction(z) + i for i in range(m)), start=Fraction(1)) if m > 0 else \
            1 / math.prod((Fraction(z) - i for i in range(1, -m + 1)), start=Fraction(1))
        assert V.poch(z, m).data == pytest.approx(float(exact), rel=4e-16 * abs(m)), (z, m)
    # the gamma forms, against 50-digit log|Gamma|s: a fraction's poch times the whole steps below
    # 64, beyond it the log-gamma difference (about |log value| ulps)
    for z, m, rel in ((1e6, 0.3, 2e-15), (170.0, 30.5, 4e-15), (30.0, -29.5, 4e-15), (3.3, 50.7, 4e-15),
                      (5.0, 100.5, 2e-13), (0.1, 63.9, 4e-15), (-0.5, -0.7, 4e-15), (-170.5, 3.5, 1e-13)):
        assert V.poch(z, m).data == pytest.approx(_poch_50_digits(z, m), rel=rel), (z, m)
    for n, k in ((1000.0, 500.0), (30.0, 29.5), (7.25, 2.5)):
        assert V.binom(n, k).data == pytest.approx(float(reference_binom(n, k)), rel=4e-13), (n, k)
    # edges: m = 0 (even at NaN), poles of z + m (inf) and of z (0), whole k < 0 and k > n
    z = np.array([np.nan, -2.5, 3.0, -3.0, 0.0, np.inf, 1.0])
    m = np.array([0.0, 1.5, -3.0, 0.5, 2.0, 1.0, np.inf])
    np.testing.assert_array_equal(V.poch(z, m).data, [1.0, np.inf, np.inf, 0.0, 0.0, np.inf, np.inf])
    np.testing.assert_array_equal(V.binom(np.array([5.5, 10.0, 10.0, np.inf, 10.0]),
                                          np.array([-1.0, 11.0, -2.0, 2.0, np.inf])).data,
                                  [0.0, 0.0, 0.0, np.inf, np.nan])


def test_poch_and_binom_derivatives_through_the_poles_are_the_polynomials():
    z = V.Variable(np.array([0.0, -1.0, -2.0, -3.0, 1.5]))
    first, = V.grad(V.sum(V.poch(z, 3.0)), [z], create_graph=True)        # z (z + 1) (z + 2)
    second, = V.grad(V.sum(first), [z])
    np.testing.assert_allclose(first.data, 3 * z.data ** 2 + 6 * z.data + 2, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(second.data, 6 * z.data + 6, rtol=1e-14, atol=1e-13)
    n, k = V.Variable(np.array([10.0, -3.0])), V.Variable(np.array([3.0, 2.0]))
    gn, gk = V.grad(V.sum(V.binom(n, k)), [n, k])
    psi = reference_polygamma
    np.testing.assert_allclose(gn.data[0], 120 * (psi(0, 11.0) - psi(0, 8.0)), rtol=1e-14)
    np.testing.assert_allclose(gk.data[0], 120 * (psi(0, 8.0) - psi(0, 4.0)), rtol=1e-14)
    assert float(gn.data[1]) == pytest.approx(-3.5, rel=1e-14)            # d/dn n (n - 1) / 2 = n - 1/2
    assert V.gradcheck(V.poch, np.array([0.7, 2.5, 30.0]), np.array([1.3, -0.4, 2.2]), order=3)
    assert V.gradcheck(lambda n: V.binom(n, 5.0), np.array([-3.0, -1.5, 2.5]), order=3)


def test_scipys_poch_and_binom_on_a_variable_record_the_ops():
    special = pytest.importorskip("scipy.special")
    z = np.array([2.5, 0.0, -3.0, -2.5, 1e6, 3.0, -0.5, 5.0, 0.5, 170.0])
    m = np.array([1.5, 2.0, 4.0, -1.0, 0.3, -3.0, -0.7, -5.5, -0.5, 30.0])
    np.testing.assert_allclose(V.poch(z, m).data, special.poch(z, m), rtol=2e-14)
    n = np.array([10.0, 10.0, 5.5, 1000.0, -3.5, 10.0, 0.0, 10.0, 1e10, 3.0, 3.0])
    k = np.array([3.0, 3.5, 2.0, 500.0, 3.0, 11.0, 0.0, 12.5, 2.0, 5.0, -2.5])
    np.testing.assert_allclose(V.binom(n, k).data, special.binom(n, k), rtol=1e-12)
    y = special.binom(V.Variable(n[:3]), k[:3])
    assert y.creator is not None
    np.testing.assert_array_equal(V.backend.to_cpu(y.data), V.backend.to_cpu(V.binom(n[:3], k[:3]).data))


def test_expn_against_decimals_its_edges_its_orders_and_scipy():
    x = np.concatenate([np.linspace(0.05, 1.45, 15), np.linspace(1.55, 40.0, 25)])
    for n in (1, 2, 3, 7, 30):
        exact = reference_expn(n)(x)
        np.testing.assert_allclose(V.expn(n, x).data, exact, rtol=4e-15, atol=0)
    np.testing.assert_array_equal(V.expn(3, np.array([0.0, np.inf, -1.0, np.nan])).data,
                                  [0.5, 0.0, np.nan, np.nan])
    np.testing.assert_array_equal(V.expn(1, np.array([0.0])).data, [np.inf])
    np.testing.assert_array_equal(V.expn(0, np.array([0.0, -1.0])).data, [np.inf, np.nan])
    # E_n' = -E_(n-1): to any order, down through E_0 = e^-x / x
    t = V.Variable(np.array([0.4, 2.5]))
    first, = V.grad(V.sum(V.expn(3, t)), [t], create_graph=True)
    second, = V.grad(V.sum(first), [t])
    np.testing.assert_allclose(first.data, -reference_expn(2)(np.array([0.4, 2.5])), rtol=1e-14)
    np.testing.assert_allclose(second.data, reference_expn(1)(np.array([0.4, 2.5])), rtol=1e-14)
    table = V.expn(np.array([[0], [2], [4]]), np.array([0.5, 3.0]))
    for i, n in enumerate((0, 2, 4)):
        np.testing.assert_array_equal(table.data[i], V.expn(n, np.array([0.5, 3.0])).data)
    with pytest.raises(TypeError, match=r"expn\(n, x\): the order n must be a whole number"):
        V.expn(2.5, x)
    with pytest.raises(ValueError, match=r"expn\(n, x\): the order n must be in \[0, 10000\], got -1"):
        V.expn(-1, x)
    special = pytest.importorskip("scipy.special")
    y = special.expn(3, V.Variable(x))
    assert y.creator is not None
    np.testing.assert_allclose(V.backend.to_cpu(y.data), special.expn(3, x), rtol=5e-15)


def test_zeta_within_a_few_ulps_times_its_condition_number_and_scipys_edges():
    # against the 60-digit Euler-Maclaurin sum, both sides of -1/2 and near the pole; the error
    # measured against |x zeta'(x)| + |zeta(x)| (zeta' by the same sum's central difference)
    x = np.concatenate([-np.geomspace(1e-12, 0.5, 12), np.linspace(-40.3, -0.55, 30),
                        np.geomspace(1e-12, 0.99, 8), 1 + np.geomspace(1e-10, 30.0, 12)])
    exact = reference_zeta(x)
    step = 1e-6 * np.maximum(np.abs(x), 1e-3)
    step = np.minimum(step, np.abs(x - 1) / 4)
    slope = (reference_zeta(x + step) - reference_zeta(x - step)) / (2 * step)
    scale = np.abs(x * slope) + np.abs(exact)
    error = np.abs(V.zeta(x).data - exact)
    assert np.all(error <= 40 * 2.2e-16 * scale), np.max(error / scale) / 2.2e-16
    s, q = np.array([1.5, 2.0, 7.5, 30.0, 1.0 + 1e-8]), np.array([0.3, 11.0, 0.9, 2.0, 0.7])
    np.testing.assert_allclose(V.zeta(s, q).data, reference_zeta(s, q), rtol=1e-15)
    x = np.array([0.0, -0.0, 1.0, -2.0, -200.0, -201.0, -500.0, -501.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(V.zeta(x).data[[0, 1, 2, 3, 4, 6, 7, 8, 9, 10]],
                                  [-0.5, -0.5, np.inf, 0.0, 0.0, 0.0, -np.inf, 1.0, np.nan, np.nan])
    b_202 = _bernoulli_fractions(202)[202]                  # zeta(-201) = -B_202 / 202 (condition 700)
    assert V.zeta(np.array(-201.0)).data == pytest.approx(float(-b_202 / 202), rel=3e-13)
    s = np.array([0.5, 1.0, 3.0, 3.0, 2.5, np.inf, np.inf, 3.0])
    q = np.array([1.0, 1.0, 0.0, -2.0, np.inf, 1.0, 2.0, 0.5])
    np.testing.assert_array_equal(V.zeta(s, q).data,
                                  [np.nan, np.inf, np.inf, np.inf, 0.0, 1.0, 0.0, V.zeta(3.0, 0.5).data])
    with pytest.raises(ValueError, match=r"zeta\(x, q\): q below 0 and not whole is not supported.*"
                                         r"got q = -0\.5"):
        V.zeta(3.0, np.array([1.0, -0.5]))
    # derivatives: d/dq zeta(x, q) = -x zeta(x + 1, q); zeta'(-2) = -zeta(3) / (4 pi^2)
    s_data, q_data = np.array([2.5, 4.0]), np.array([0.7, 3.0])
    s, q = V.Variable(s_data), V.Variable(q_data)
    _, gq = V.grad(V.sum(V.zeta(s, q)), [s, q])
    expected = -s_data * reference_zeta(s_data + 1, q_data)
    np.testing.assert_allclose(V.backend.to_cpu(gq.data), expected, rtol=1e-14)
    at = V.Variable(np.array(-2.0))
    slope = V.backend.to_cpu(V.grad(V.zeta(at), at).data)
    np.testing.assert_allclose(slope, -reference_zeta(3.0) / (4 * np.pi ** 2),
                               rtol=1e-14)


def test_elliptic_integrals_to_an_ulp_times_their_condition_number_and_scipys_edges():
    m = np.concatenate([-np.geomspace(1e-300, 1e300, 25), np.linspace(-5.0, 0.999, 25),
                        1 - np.geomspace(1.2e-16, 0.9, 15), np.geomspace(1e-300, 0.5, 10)])
    for op, second in ((V.ellipk, False), (V.ellipe, True)):
        exact = reference_elliptic(second)(m)
        step = 1e-7 * np.minimum(np.abs(m) + 1e-3, 1 - m)
        slope = (reference_elliptic(second)(m + step) - reference_elliptic(second)(m - step)) / (2 * step)
        scale = np.abs(m * slope) + np.abs(exact)
        error = np.abs(op(m).data - exact)
        assert np.all(error <= 4 * 2.2e-16 * scale), np.max(error / scale) / 2.2e-16
        alone = np.array([op(np.array([v])).data[0] for v in m[::7]])       # (its own step count)
        assert np.all(np.abs(alone - exact[::7]) <= 4 * 2.2e-16 * scale[::7])
    p = np.geomspace(1e-300, 0.5, 12)
    np.testing.assert_allclose(V.ellipkm1(p).data, [_elliptic_decimal_complement(v) for v in p], rtol=4e-16)
    edges = np.array([1.0, 1.5, -np.inf, np.inf, np.nan, 0.0])
    np.testing.assert_array_equal(V.ellipk(edges).data, [np.inf, np.nan, 0.0, np.nan, np.nan, np.pi / 2])
    np.testing.assert_array_equal(V.ellipe(edges).data, [1.0, np.nan, np.inf, np.nan, np.nan, np.pi / 2])
    np.testing.assert_array_equal(V.ellipkm1(np.array([0.0, -0.5, np.inf])).data, [np.inf, np.nan, 0.0])
    # K' = (E - (1 - m) K) / (2 m (1 - m)), E' = (E - K) / (2m); pi/8 and -pi/8 at 0; a pendulum
    m = V.Variable(np.array([0.3, -2.0, 0.8, 0.0]))
    k, e = V.ellipk(m), V.ellipe(m)
    gk, ge = V.grad(V.sum(k), m), V.grad(V.sum(e), m)
    md, kd, ed = m.data[:3], k.data[:3], e.data[:3]
    np.testing.assert_allclose(gk.data[:3], (ed - (1 - md) * kd) / (2 * md * (1 - md)), rtol=1e-13)
    np.testing.assert_allclose(ge.data[:3], (ed - kd) / (2 * md), rtol=1e-13)
    np.testing.assert_allclose([gk.data[3], ge.data[3]], [np.pi / 8, -np.pi / 8], rtol=1e-15)


def test_exponential_integrals_to_a_few_ulps_times_their_condition_number_and_scipys_edges():
    x = np.concatenate([np.geomspace(1e-300, 1e-3, 8), np.geomspace(1e-3, 45.0, 60),
                        [1.5, np.nextafter(1.5, 2)]])
    for op, ei in ((V.exp1, False), (V.expi, True)):
        for t in ((x, -x[:-10]) if ei else (x,)):
            exact = reference_exponential_integral(ei)(t)
            slope = np.exp(t if ei else -t) / t * (1 if ei else -1)
            scale = np.abs(t * slope) + np.abs(exact)
            error = np.abs(op(t).data - exact)
            assert np.all(error <= 4 * 2.2e-16 * scale), np.max(error / scale) / 2.2e-16
    # far out against the expansions in decimals: E1 ~ e^-x / x sum (-1)^k k! / x^k
    def expansion(v, sign):                                  # sum_k sign^k k! / v^k, to its smallest term
        term, total = Decimal(1), Decimal(1)
        for k in range(1, 60):
            term = term * k / Decimal(v) * sign
            total += term
        return float(total)
    far = np.array([60.0, 300.0, 700.0, 710.0])
    normal = far[:3]                                       # (E1(710) is subnormal)
    np.testing.assert_allclose(V.exp1(normal).data * np.exp(normal / 2) * np.exp(normal / 2) * normal,
                               [expansion(v, -1) for v in normal], rtol=1e-14)
    np.testing.assert_allclose(V.expi(far).data / np.exp(far / 2) / np.exp(far / 2) * far,
                               [expansion(v, 1) for v in far], rtol=1e-14)
    edges = np.array([0.0, -0.0, -1.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(V.exp1(edges).data, [np.inf, np.inf, np.nan, 0.0, np.nan, np.nan])
    np.testing.assert_array_equal(V.expi(edges).data[[0, 1, 3, 4, 5]],
                                  [-np.inf, -np.inf, np.inf, -0.0, np.nan])
    assert np.isfinite(V.expi(np.array(710.0)).data)        # (e^710 overflows, Ei(710) not; SciPy's: inf)
    # derivatives: -e^-x / x and e^x / x, the Taylor rule's and the nested ones alike
    t = V.Variable(np.array([0.4, 2.5, -1.5]))
    first = V.grad(V.sum(V.expi(t)), t, create_graph=True)
    np.testing.assert_allclose(first.data, np.exp(t.data) / t.data, rtol=1e-15)
    second = V.grad(V.sum(first), t)
    np.testing.assert_allclose(second.data, np.exp(t.data) * (t.data - 1) / t.data ** 2, rtol=1e-14)
    assert V.taylorcheck(V.exp1, np.array([0.4, 1.4, 1.6, 9.0]), order=4)


def test_huber_and_pseudo_huber_name_themselves_for_shapes_that_do_not_broadcast():
    for op in (V.huber, V.pseudo_huber):
        with pytest.raises(ValueError, match=rf"^{op.__name__}: shapes \(3,\) and \(2,\) cannot be"):
            op(V.Variable(np.ones(3)), V.Variable(np.ones(2)))


def test_huber_and_pseudo_huber_are_scipys_and_differentiable_in_delta():
    special = pytest.importorskip("scipy.special")
    d = np.array([1.0, 1.0, 1.0, 0.0, -1.0, 2.0, np.inf, 1.0, np.nan, 0.0, 3.0])
    r = np.array([0.5, 3.0, -3.0, 2.0, 1.0, np.inf, 5.0, np.nan, 1.0, 0.0, 1e-9])
    np.testing.assert_array_equal(V.huber(d, r).data, special.huber(d, r))
    np.testing.assert_allclose(V.pseudo_huber(d, r).data, special.pseudo_huber(d, r), rtol=1e-15)
    # no cancellation where SciPy's overflows or cancels: r^2 / 2 for small r, delta |r| far out
    assert V.pseudo_huber(1.0, 1e-9).data == pytest.approx(5e-19, rel=1e-15)
    assert V.pseudo_huber(1e-300, 1.0).data == pytest.approx(1e-300, rel=1e-15)    # (SciPy's: NaN)
    delta, r = V.Variable(np.array([1.0, 0.5, 2.0])), V.Variable(np.array([0.3, -3.0, 1.0]))
    g_delta, g_r = V.grad(V.sum(V.pseudo_huber(delta, r)), [delta, r])
    h = np.hypot(delta.data, r.data)                     # (r^4 / (h (h + delta)^2): no cancellation)
    np.testing.assert_allclose(g_r.data, r.data * delta.data / h, rtol=1e-15)
    np.testing.assert_allclose(g_delta.data, r.data ** 4 / (h * (h + delta.data) ** 2), rtol=1e-14)
    g_delta, g_r = V.grad(V.sum(V.huber(delta, r)), [delta, r])
    np.testing.assert_array_equal(g_r.data, [0.3, -0.5, 1.0])                 # r, or delta sign(r)
    np.testing.assert_array_equal(g_delta.data, [0.0, 2.5, 0.0])              # |r| - delta beyond


def test_erfi_and_dawsn_to_an_ulp_or_so_times_their_condition_number_and_scipys_edges():
    x = np.concatenate([np.geomspace(1e-300, 1e-3, 6), np.geomspace(1e-3, 26.0, 60),
                        [6.5, np.nextafter(6.5, 7)]])
    for op, dawson in ((V.erfi, False), (V.dawsn, True)):
        exact = reference_erfi(dawson)(x)
        slope = 1 - 2 * x * exact if dawson else np.exp(x * x) * 2 / np.sqrt(np.pi)
        scale = np.abs(x * slope) + np.abs(exact)
        error = np.abs(op(x).data - exact)
        assert np.all(error <= 4 * 2.2e-16 * scale), np.max(error / scale) / 2.2e-16
        np.testing.assert_array_equal(op(-x).data, -op(x).data)                     # (odd)
    far = np.array([1e4, 1e5, 1e70])                       # D ~ 1/(2x) (1 + 1/(2x^2) + 3/(4x^4))
    np.testing.assert_allclose(V.dawsn(far).data, (1 + 0.5 / far ** 2 + 0.75 / far ** 4) / (2 * far),
                               rtol=3e-16)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 27.0])
    np.testing.assert_array_equal(V.erfi(edges).data, [0.0, -0.0, np.inf, -np.inf, np.nan, np.inf])
    np.testing.assert_array_equal(np.signbit(V.erfi(edges[:2]).data), [False, True])
    np.testing.assert_array_equal(V.dawsn(edges[:5]).data, [0.0, -0.0, 0.0, -0.0, np.nan])
    # D' = 1 - 2 x D, D'' = -2 D - 2 x D', by backward twice and by Taylor mode
    t = V.Variable(np.array([0.4, 3.0, 5.0]))
    first = V.grad(V.sum(V.dawsn(t)), t, create_graph=True)
    value = V.dawsn(t).data
    np.testing.assert_allclose(first.data, 1 - 2 * t.data * value, rtol=1e-14)
    second = V.grad(V.sum(first), t)
    np.testing.assert_allclose(second.data, -2 * value - 2 * t.data * first.data, rtol=1e-13)
    # far out, where 1 - 2 x D cancels to nothing, from D's expansion: -1/(2x^2) - 3/(4x^4), 1/x^3
    far = V.Variable(np.array([1e4, -1e8, 1e200]))
    first = V.grad(V.sum(V.dawsn(far)), far, create_graph=True)
    inverse = 1 / far.data
    np.testing.assert_allclose(first.data, -0.5 * inverse ** 2 * (1 + 1.5 * inverse ** 2), rtol=1e-15)
    np.testing.assert_allclose(V.grad(V.sum(first), far).data[:2], inverse[:2] ** 3, rtol=1e-7)
    points = V.Variable(np.array([1e4, 7.0, 3.0]))
    taylor = V.taylor(V.dawsn, points.data, np.ones(3), 2)               # Taylor mode: the same
    np.testing.assert_allclose(taylor[1].data, V.grad(V.sum(V.dawsn(points)), points).data, rtol=1e-15)
    np.testing.assert_allclose(taylor[1].data[0], -0.5e-8 * (1 + 1.5e-8), rtol=1e-15)


# ----- gamma -------------------------------------------------------------------------------
def test_gamma_to_a_few_ulps_on_both_sides_of_zero():
    rng = np.random.default_rng(16)
    x = np.concatenate([rng.uniform(0, 171.6, 1500), rng.uniform(-170, 0, 1000), rng.uniform(-3, 3, 1000),
                        10.0 ** rng.uniform(-300, 0, 100), [0.5, 1.0, 2.0, 10.0, 9.999999999, 10.000000001]])
    x = x[~((x < 0) & (x == np.round(x)))]                 # (not the poles)
    expected = reference_gamma(x)
    got = V.gamma(x).data
    normal = np.abs(expected) > 1e-300                      # (below, Gamma is subnormal: fewer digits)
    assert np.max(relative(got, expected)[normal]) < 2e-15
    assert V.gamma(np.array(0.5)).data == pytest.approx(math.sqrt(math.pi), rel=2e-16)
    np.testing.assert_array_equal(V.gamma(np.arange(1.0, 21.0)).data, [math.factorial(k) for k in range(20)])


def test_gamma_at_its_poles_infinities_and_overflow_as_scipy_gives_them():
    got = V.gamma(np.array([0.0, -0.0, -1.0, -2.0, 171.7, np.inf, -np.inf, np.nan, -180.5, 1e-310])).data
    np.testing.assert_array_equal(got[:2], [np.inf, -np.inf])
    assert np.isnan(got[2]) and np.isnan(got[3]) and got[4] == np.inf and got[5] == np.inf
    assert np.isnan(got[6]) and np.isnan(got[7]) and got[8] == 0 and np.signbit(got[8]) and got[9] == np.inf


def test_special_functions_far_out_give_their_limits_not_nan():
    # (each was NaN once: an overflowing intermediate met a 0 there, inf * 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(V.gamma(np.array([172.0, 1e3, 1e300])).data, np.inf)
        np.testing.assert_array_equal(np.abs(V.gamma(np.array([-200.5, -1245.42])).data), 0.0)
        np.testing.assert_array_equal(V.erfcx(np.array([-27.0, -1e3, -1e308])).data, np.inf)
        first = 1 / (math.sqrt(2 * math.pi) * math.sqrt(1e308))    # I_n(x) e^-x ~ 1/sqrt(2 pi x)
        np.testing.assert_allclose(V.i0e(np.array([1e308, -1e308])).data, first, rtol=1e-15)
        np.testing.assert_allclose(V.i1e(np.array([1e308, -1e308])).data, [first, -first], rtol=1e-15)
        a = x = np.array([1e-310])                                  # a subnormal shape
        assert V.gammainc(a, x).data[0] == 1.0
        q = 1e-310 * (-0.5772156649015329 - math.log(1e-310))       # Q(a, x) ~ a E1(x) for a, x -> 0
        np.testing.assert_allclose(V.gammaincc(a, x).data, q, rtol=1e-12)
    with pytest.warns(RuntimeWarning, match="overflow"):            # NumPy's np.i0 warns there too
        np.testing.assert_array_equal(V.i0(np.array([1e308, -1e308])).data, np.inf)


def test_gammas_derivatives_are_gamma_times_polygammas():
    points = np.array([0.3, 1.5, 4.2, -0.4, -2.7])
    x = V.Variable(points)
    first = V.grad(V.sum(V.gamma(x)), x, create_graph=True)            # Gamma psi
    second = V.grad(V.sum(first), x)                                    # Gamma (psi^2 + psi')
    g, psi, psi1 = reference_gamma(points), reference_polygamma(0, points), reference_polygamma(1, points)
    np.testing.assert_allclose(V.backend.to_cpu(first.data), g * psi, rtol=1e-13)
    np.testing.assert_allclose(V.backend.to_cpu(second.data), g * (psi ** 2 + psi1), rtol=1e-12)


def test_scipys_gamma_records_the_op():
    special = pytest.importorskip("scipy.special")
    x = V.Variable(np.array([0.5, 3.0, -1.5, 100.0]))
    y = special.gamma(x)
    assert isinstance(y, V.Variable) and y.creator is not None
    np.testing.assert_array_equal(y.data, V.gamma(x).data)
    np.testing.assert_allclose(y.data, special.gamma(x.data), rtol=2e-15)


# ----- gammainc, gammaincc ---------------------------------------------------------------------
def _gammainc_condition(a, x, value):
    """|x d/dx log value|, how much the value itself moves with a relative rounding of x."""
    return np.maximum(1.0, np.abs(x * np.exp((a - 1) * np.log(x) - x - np.vectorize(math.lgamma)(a)) / value))


_A_SMALL, _A_MIDDLE = 10 ** np.linspace(-4, -0.01, 30), np.linspace(1.0, 19.9, 30)
_A_LARGE, _A_TEMME = 10 ** np.linspace(1.31, 2.5, 30), 10 ** np.linspace(1.31, 4, 30)


@pytest.mark.parametrize("region, a, x", [
    ("a < 1, x < 1.1: Q without 1 - P", _A_SMALL, np.linspace(1e-4, 1.09, 30)),
    ("a < 1, x >= 1.1: the fraction", _A_SMALL, np.linspace(1.1, 40.0, 30)),
    ("1 <= a < 20, x < a + 1: the series", _A_MIDDLE, np.linspace(0.05, 0.99, 30) * (_A_MIDDLE + 1)),
    ("1 <= a < 20, x >= a + 1: the fraction", _A_MIDDLE, np.linspace(1.01, 4.0, 30) * (_A_MIDDLE + 1)),
    ("a >= 20, |x - a| < 0.3 a: Temme's expansion", _A_TEMME, np.linspace(0.71, 1.29, 30) * _A_TEMME),
    ("a >= 20, x <= 0.7 a: the series", _A_LARGE, np.linspace(0.3, 0.69, 30) * _A_LARGE),
    ("a >= 20, x >= 1.3 a: the fraction", _A_LARGE, np.linspace(1.31, 2.5, 30) * _A_LARGE),
], ids=lambda v: v if isinstance(v, str) else "")
def test_gammainc_and_gammaincc_to_a_few_ulps_where_well_conditioned(region, a, x):
    for upper, op in ((False, V.gammainc), (True, V.gammaincc)):
        expected = reference_gammainc(a, x, upper)
        got = op(a, x).data
        tolerance = 4e-15 * _gammainc_condition(a, x, expected)
        assert np.all(np.abs(got - expected) <= tolerance * np.abs(expected)), (region, upper)


def test_gammainc_at_its_edges_as_scipy_gives_them():
    a = np.array([0.0, 0.0, 1.0, 1.0, -1.0, 1.0, np.inf, 1.0, np.nan, 2.0, 0.0, np.inf])
    x = np.array([0.0, 1.0, 0.0, np.inf, 1.0, -1.0, 1.0, np.nan, 1.0, np.inf, np.inf, np.inf])
    nan = np.nan
    np.testing.assert_array_equal(V.gammainc(a, x).data, [nan, 1, 0, 1, nan, nan, 0, nan, nan, 1, 1, nan])
    np.testing.assert_array_equal(V.gammaincc(a, x).data, [nan, 0, 1, 0, nan, nan, 1, nan, nan, 0, 0, nan])
    # the derivative at x = 0: x^(a-1) / Gamma(a) there (inf below a = 1, 1 at a = 1, 0 above)
    x0 = V.Variable(np.zeros(3))
    g, = V.grad(V.sum(V.gammainc(np.array([0.5, 1.0, 2.0]), x0)), [x0])
    np.testing.assert_array_equal(V.backend.to_cpu(g.data), [np.inf, 1.0, 0.0])


def _log_gamma_density_50_digits(a, x):
    """log(x^(a-1) e^-x / Gamma(a)) in 50-digit decimals, as a float (its exp is then the
    density to the rounding of exp)."""
    with localcontext() as context:
        context.prec = 50
        a, x = Decimal(float(a)), Decimal(float(x))
        return float((a - 1) * x.ln() - x - _log_gamma_decimal(a))


def test_gammaincs_derivative_is_the_gamma_density_to_any_order():
    a, x0 = np.array([0.3, 2.5, 40.0, 150.0]), np.array([0.7, 1.5, 33.0, 100.0])
    x = V.Variable(x0)
    g, = V.grad(V.sum(V.gammainc(a, x)), [x], create_graph=True)
    log_density = np.vectorize(_log_gamma_density_50_digits)(a, x0)
    np.testing.assert_allclose(V.backend.to_cpu(g.data), np.exp(log_density), rtol=2e-14)
    gg, = V.grad(V.sum(g), [x])                      # the density's own: itself times (a - 1)/x - 1
    np.testing.assert_allclose(V.backend.to_cpu(gg.data), np.exp(log_density) * ((a - 1) / x0 - 1),
                               rtol=2e-14)
    gq, = V.grad(V.sum(V.gammaincc(a, x)), [x])
    np.testing.assert_allclose(V.backend.to_cpu(gq.data), -np.exp(log_density), rtol=2e-14)


def test_gammainc_refuses_an_a_that_requires_grad_and_records_scipys_ufuncs():
    x = V.Variable(np.array([0.5, 2.0]))
    for op, name in ((V.gammainc, "gammainc"), (V.gammaincc, "gammaincc")):
        with pytest.raises(TypeError, match=rf"^{name}\(a, x\): gengrad differentiates it in x only"
                                            r".*a\.detach\(\)"):
            op(V.Variable(np.array(2.0)), x)
    assert V.gammainc(V.Variable(np.array(2.0), requires_grad=False), x).creator is not None
    special = pytest.importorskip("scipy.special")
    y = special.gammaincc(3.0, x)                    # the Poisson CDF at 2 with mean x
    assert y.creator is not None
    np.testing.assert_allclose(V.backend.to_cpu(y.data), special.gammaincc(3.0, x.data), rtol=1e-14)


# ----- betainc, betaincc ----------------------------------------------------------------------
def _betainc_condition(a, b, x, value):
    """|x d/dx log value|, how much the value itself moves with a relative rounding of x."""
    density = np.exp((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - reference_betaln(a, b))
    with np.errstate(invalid="ignore", divide="ignore"):             # (a value that underflows to 0)
        return np.where(value > 0, np.maximum(1.0, np.abs(x * density / value)), 1.0)


def _betainc_points(a, b, seed):
    """x for each (a, b): within three widths of the mean, and a third uniform in (0, 1) unless
    one parameter dwarfs the other (where that third would be 0 or 1 to every digit)."""
    rng = np.random.default_rng(seed)
    mean, width = a / (a + b), np.sqrt(a / (a + b) * (b / (a + b)) / (a + b + 1))
    x = np.clip(mean + width * rng.normal(0, 1.5, a.shape), 1e-300, 1 - 1e-15)
    if np.all(np.maximum(a, b) < 1e6):
        x[::3] = rng.uniform(0.001, 0.999, a.shape)[::3]
    return x


_RNG = np.random.default_rng(7)
_A_DWARFED = 10 ** _RNG.uniform(-3, 2, 24)
_DWARFING = 1e8 * np.maximum(_A_DWARFED, 1) ** 1.5 * 10 ** _RNG.uniform(0, 4, 24)


@pytest.mark.parametrize("region, a, b", [
    ("a, b below 10: the powers", 10 ** _RNG.uniform(-3, 1, 24), 10 ** _RNG.uniform(-3, 1, 24)),
    ("a, b from 10 on: Stirling's form", 10 ** _RNG.uniform(1, 3.3, 24), 10 ** _RNG.uniform(1, 3.3, 24)),
    ("a below 10, b above", 10 ** _RNG.uniform(-2, 1, 24), 10 ** _RNG.uniform(1, 3.3, 24)),
    ("a above 10, b below", 10 ** _RNG.uniform(1, 3.3, 24), 10 ** _RNG.uniform(-2, 1, 24)),
    ("a below 1, b any: 1 - I by its series", 10 ** _RNG.uniform(-6, 0, 24), 10 ** _RNG.uniform(-2, 3, 24)),
    ("Student's t: b = 1/2", _RNG.uniform(0.5, 20, 24), np.full(24, 0.5)),
    ("b dwarfs a: the gamma limit", _A_DWARFED, _DWARFING),
    ("a dwarfs b: the gamma limit", _DWARFING, _A_DWARFED),
], ids=lambda v: v if isinstance(v, str) else "")
def test_betainc_and_betaincc_to_a_few_ulps_where_well_conditioned(region, a, b):
    x = _betainc_points(a, b, len(region))
    for upper, op in ((False, V.betainc), (True, V.betaincc)):
        expected = reference_betainc(a, b, x, upper)
        got = op(a, b, x).data
        tolerance = 8e-15 * _betainc_condition(a, b, x, expected)
        assert np.all(np.abs(got - expected) <= tolerance * np.abs(expected) + 1e-300), (region, upper)


def test_betainc_at_its_edges_as_scipy_gives_them():
    inf, nan = np.inf, np.nan
    a = np.array([0.0, 1.0, 0.0, 2.0, 2.0, inf, 1.0, inf, -1.0, 1.0, 1.0, nan, 2.0])
    b = np.array([1.0, 0.0, 0.0, 3.0, 3.0, 1.0, inf, inf, 1.0, 1.0, 1.0, 1.0, 0.0])
    x = np.array([0.5, 0.5, 0.5, 0.0, 1.0, 0.5, 0.5, 0.5, 0.5, -0.1, 1.1, 0.5, 0.0])
    expected = np.array([1, 0, nan, 0, 1, 0, 1, nan, nan, nan, nan, nan, 0])
    np.testing.assert_array_equal(V.betainc(a, b, x).data, expected)
    np.testing.assert_array_equal(V.betaincc(a, b, x).data, 1 - expected)
    # a = b tiny: 1/2 by symmetry (SciPy gives 0 for I and 1/2 for 1 - I at a = b = 1e-310)
    np.testing.assert_array_equal(V.betainc(1e-310, 1e-310, 0.5).data, 0.5)
    # the density at x = 0 and 1: inf below 1, b (or a) at 1 (1/B(1, b) = b), 0 above
    x0 = V.Variable(np.array([0.0, 0.0, 0.0, 1.0]))
    g, = V.grad(V.sum(V.betainc(np.array([0.5, 1.0, 2.0, 2.0]), np.array([2.0, 3.0, 2.0, 1.0]), x0)), [x0])
    np.testing.assert_array_equal(V.backend.to_cpu(g.data), [np.inf, 3.0, 0.0, 2.0])


def test_betainc_where_its_fraction_does_not_converge_is_nan_with_a_warning(monkeypatch):
    # past its deepest level (2^15, which a = b = 1e12 at the mean needs: here 64, which a = b =
    # 1e6 needs) the value is NaN there, said, never a wrong number
    from variable.ops import special
    monkeypatch.setattr(special, "_BETA_DEPTH", 64)
    with pytest.warns(RuntimeWarning, match=r"^betainc: the continued fraction did not converge in 64 "
                                            r"levels for 1 entries"):
        y = V.backend.to_cpu(V.betainc(1e6, 1e6, V.Variable(np.array([0.5, 0.49]))).data)
    assert np.isnan(y[0]) and 0 < y[1] < 1e-170                   # (2.49e-176: converged there)


def _log_beta_density_50_digits(a, b, x):
    with localcontext() as context:
        context.prec = 50
        a, b, x = Decimal(float(a)), Decimal(float(b)), Decimal(float(x))
        log_beta = _log_gamma_decimal(a) + _log_gamma_decimal(b) - _log_gamma_decimal(a + b)
        return float((a - 1) * x.ln() + (b - 1) * (1 - x).ln() - log_beta)


def test_betaincs_derivative_is_the_beta_density_to_any_order():
    a, b = np.array([0.3, 2.5, 40.0, 3.0]), np.array([0.5, 3.5, 60.0, 400.0])
    x0 = np.array([0.2, 0.6, 0.41, 0.01])
    x = V.Variable(x0)
    g, = V.grad(V.sum(V.betainc(a, b, x)), [x], create_graph=True)
    density = np.exp(np.vectorize(_log_beta_density_50_digits)(a, b, x0))
    np.testing.assert_allclose(V.backend.to_cpu(g.data), density, rtol=2e-14)
    gg, = V.grad(V.sum(g), [x])                      # itself times (a - 1)/x - (b - 1)/(1 - x)
    np.testing.assert_allclose(V.backend.to_cpu(gg.data), density * ((a - 1) / x0 - (b - 1) / (1 - x0)),
                               rtol=2e-14)
    gq, = V.grad(V.sum(V.betaincc(a, b, x)), [x])
    np.testing.assert_allclose(V.backend.to_cpu(gq.data), -density, rtol=2e-14)


def test_betainc_refuses_a_shape_that_requires_grad_and_records_scipys_ufuncs():
    x = V.Variable(np.array([0.3, 0.8]))
    for op, name in ((V.betainc, "betainc"), (V.betaincc, "betaincc")):
        with pytest.raises(TypeError, match=rf"^{name}\(a, b, x\): gengrad differentiates it in x only"
                                            r".*b requires grad.*b\.detach\(\)"):
            op(2.0, V.Variable(np.array(3.0)), x)
    assert V.betainc(V.Variable(np.array(2.0), requires_grad=False), 3.0, x).creator is not None
    special = pytest.importorskip("scipy.special")
    y = special.betaincc(3.0, 2.0, x)                # the binomial CDF P(K <= 2) of 4 trials at p = x
    assert y.creator is not None
    np.testing.assert_allclose(V.backend.to_cpu(y.data), special.betaincc(3.0, 2.0, x.data), rtol=1e-14)


# ----- stdtr ---------------------------------------------------------------------------------
_DFS = np.array([0.5, 1.0, 2.5, 4.0, 10.0, 100.0, 1e5, 1e10])


def test_stdtr_to_a_few_ulps_by_zero_and_in_both_tails():
    rng = np.random.default_rng(11)
    df = np.repeat(_DFS, 30)
    # (at df = 1e10 the reference takes I as 1 minus a value near 1, to its log-gammas' 28 digits:
    # a value above 1e-9 keeps 17 of them)
    far = np.where(df > 1e6, 0.75, 3.0)
    t = np.sign(rng.uniform(-1, 1, df.shape)) * 10 ** rng.uniform(-12, -1, df.shape)
    t[10::30] = 0
    middle, tails = np.arange(df.size) % 30 // 10 == 1, np.arange(df.size) % 30 // 10 == 2
    t[middle] = rng.uniform(-4, 4, middle.sum())
    t[tails] = np.sign(t[tails]) * 10 ** rng.uniform(0.5, far[tails])
    expected = reference_stdtr(df, t)
    density = np.exp(np.vectorize(_log_student_t_density_50_digits)(df, t))
    with np.errstate(invalid="ignore", divide="ignore"):                 # (a value that underflows to 0)
        tolerance = 8e-15 * np.where(expected > 0, np.maximum(1.0, np.abs(t * density / expected)), 1.0)
    got = V.stdtr(df, t).data
    assert np.all(np.abs(got - expected) <= tolerance * expected + 1e-300)


def test_stdtr_at_its_edges_as_scipy_gives_them():
    inf, nan = np.inf, np.nan
    df = np.array([0.0, -1.0, inf, 1.0, 1.0, 1.0, nan, inf, 3.0, 3.0, 1e-300])
    t = np.array([1.0, 1.0, 1.0, inf, -inf, nan, 1.0, inf, 0.0, -0.0, 1.0])
    got = V.stdtr(df, t).data
    np.testing.assert_array_equal(got[[0, 1, 3, 4, 5, 6, 7, 8, 9, 10]],
                                  [nan, nan, 1, 0, nan, nan, 1, 0.5, 0.5, 0.5])
    np.testing.assert_allclose(got[2], 0.8413447460685429, rtol=1e-15)           # the normal's, df = inf
    # the far tails, where df/(df + t^2) underflows or t^2 overflows
    np.testing.assert_allclose(V.stdtr(3.0, np.array([-1e200, 1e200, -1e5])).data,
                               [0.0, 1.0, float(reference_stdtr(3.0, -1e5))], rtol=1e-14)


def _log_student_t_density_50_digits(df, t):
    with localcontext() as context:
        context.prec = 50
        df, t = Decimal(float(df)), Decimal(float(t))
        return float(_log_gamma_decimal((df + 1) / 2) - _log_gamma_decimal(df / 2)
                     - (df * _decimal_pi()).ln() / 2 - (df + 1) / 2 * (1 + t * t / df).ln())


def test_stdtrs_derivative_is_the_t_density_to_any_order_and_finite_at_zero():
    df, t0 = np.array([1.0, 4.0, 4.0, 30.0, 1e8]), np.array([0.0, 0.0, -2.5, 1.5, 0.7])
    t = V.Variable(t0)
    g, = V.grad(V.sum(V.stdtr(df, t)), [t], create_graph=True)
    density = np.exp(np.vectorize(_log_student_t_density_50_digits)(df, t0))
    np.testing.assert_allclose(V.backend.to_cpu(g.data), density, rtol=2e-14)
    gg, = V.grad(V.sum(g), [t])                      # itself times -(1 + 1/df) t / (1 + t^2/df)
    np.testing.assert_allclose(V.backend.to_cpu(gg.data), density * -(1 + 1 / df) * t0 / (1 + t0 * t0 / df),
                               rtol=2e-14, atol=1e-300)


def test_stdtr_refuses_a_df_that_requires_grad_and_records_scipys_ufunc():
    t = V.Variable(np.array([-0.5, 1.2]))
    with pytest.raises(TypeError, match=r"^stdtr\(df, t\): gengrad differentiates it in t only.*"
                                        r"df\.detach\(\).*scipy\.stats\.t\.cdf\(x, df\) is stdtr\(df, x\)"):
        V.stdtr(V.Variable(np.array(3.0)), t)
    special = pytest.importorskip("scipy.special")
    y = special.stdtr(3.0, t)
    assert y.creator is not None
    np.testing.assert_allclose(V.backend.to_cpu(y.data), special.stdtr(3.0, t.data), rtol=1e-14)


# ----- betaln --------------------------------------------------------------------------------
def test_betaln_to_a_few_ulps_for_large_arguments_too():
    rng = np.random.default_rng(14)
    a = np.concatenate([10.0 ** rng.uniform(-3, 8, 600), rng.uniform(9.0, 11.0, 100), [1e6, 1.0, 0.5]])
    b = np.concatenate([10.0 ** rng.uniform(-3, 8, 600), rng.uniform(9.0, 11.0, 100), [1.0, 1e6, 0.5]])
    expected = reference_betaln(a, b)
    got = V.betaln(a, b).data
    # (where |betaln| < 1 it is ill-conditioned itself: its terms, of size 1, cancel)
    assert np.all(np.abs(got - expected) <= 8e-15 * np.maximum(np.abs(expected), 1.0))
    assert got[-3] == got[-2] == pytest.approx(-math.log(1e6), rel=1e-16)
    assert got[-1] == pytest.approx(math.log(math.pi), rel=1e-15)            # B(1/2, 1/2) = pi


def test_betaln_of_negative_arguments_poles_and_infinities():
    a = np.array([-0.5, -3.5, 2.5, -0.5, 0.0, 5.0, np.nan])
    b = np.array([20.0, 15.0, -0.3, -0.5, 2.0, np.inf, 1.0])
    got = V.betaln(a, b).data
    np.testing.assert_allclose(got[:3], reference_betaln(a[:3], b[:3]), rtol=4e-15)
    np.testing.assert_array_equal(got[3:6], [-np.inf, np.inf, -np.inf])   # a + b = -1: a pole; B(5, inf) = 0
    assert np.isnan(got[6])


def test_betalns_derivatives_are_differences_of_digammas_to_a_few_ulps():
    # psi(a) - psi(a + b) computed as written loses digits where b is small beside a (five
    # at a = 1e4, b = 3; eight at a = 5, b = 1e-9): the op differences the series term by term
    rng = np.random.default_rng(15)
    a = np.concatenate([10.0 ** rng.uniform(-3, 8, 150), [1e4, 5.0, 0.5, 40.0, 1e8, 15.0]])
    b = np.concatenate([10.0 ** rng.uniform(-3, 8, 150), [3.0, 1e-9, 2.0, 60.0, 1.0, 1e-12]])
    x, y = V.Variable(a), V.Variable(b)
    ga, gb = V.grad(V.sum(V.betaln(x, y)), [x, y], create_graph=True)
    np.testing.assert_allclose(V.backend.to_cpu(ga.data), reference_psi_difference(0, a, b), rtol=4e-15)
    np.testing.assert_allclose(V.backend.to_cpu(gb.data), reference_psi_difference(0, b, a), rtol=4e-15)
    # the second derivatives: psi'(a) - psi'(a + b) in a, -psi'(a + b) across
    gaa, gab = V.grad(V.sum(ga), [x, y])
    np.testing.assert_allclose(V.backend.to_cpu(gaa.data), reference_psi_difference(1, a, b), rtol=4e-15)
    np.testing.assert_allclose(V.backend.to_cpu(gab.data), -reference_polygamma(1, a + b), rtol=4e-15)


def test_betalns_derivatives_where_an_argument_or_their_sum_is_negative_or_a_pole():
    a, b = np.array([-2.5, 3.0, 0.0, 1.0, -0.5]), np.array([1.0, -2.5, 1.0, np.inf, -0.5])
    x, y = V.Variable(a), V.Variable(b)
    ga, gb = V.grad(V.betaln(x, y), [x, y], V.Variable(np.ones(5)))   # (betaln(-0.5, -0.5) = -inf: no sum)
    ga, gb = V.backend.to_cpu(ga.data), V.backend.to_cpu(gb.data)
    np.testing.assert_allclose(ga[:2], reference_psi_difference(0, a[:2], b[:2]), rtol=4e-15)
    np.testing.assert_allclose(gb[:2], reference_psi_difference(0, b[:2], a[:2]), rtol=4e-15)
    assert ga[2] == -np.inf and ga[3] == -np.inf         # psi(0+) = -inf; psi(1) - psi(inf) = -inf
    assert gb[3] == 0                                    # psi(b) - psi(b + 1) = -1/b -> 0
    assert np.isnan(ga[4]) and np.isnan(gb[4])           # a + b = -1: a pole of psi


def test_a_beta_log_density_by_scipy_records_betaln():
    special = pytest.importorskip("scipy.special")
    p = np.array([0.2, 0.5, 0.9])
    a, b = V.Variable(np.array(2.0)), V.Variable(np.array(3.0))
    logpdf = V.xlogy(a - 1, p) + V.xlog1py(b - 1, -p) - special.betaln(a, b)
    assert logpdf.creator is not None
    np.testing.assert_allclose(V.backend.to_cpu(logpdf.data),
                               np.log(12 * p * (1 - p) ** 2), rtol=1e-14)           # 1/B(2, 3) = 12
    ga, gb = V.grad(V.sum(logpdf), [a, b])
    psi = lambda v: reference_polygamma(0, v)                                       # noqa: E731
    np.testing.assert_allclose(V.backend.to_cpu(ga.data), np.sum(np.log(p)) - 3 * (psi(2.0) - psi(5.0)),
                               rtol=1e-13)


# ----- multigammaln, entr, rel_entr, kl_div ----------------------------------------------------
def test_multigammaln_is_a_sum_of_gammalns_and_refuses_a_too_small():
    a = np.array([1.6, 2.0, 7.5, 40.0])
    np.testing.assert_allclose(V.backend.to_cpu(V.multigammaln(V.Variable(a), 3).data),
                               reference_multigammaln(a, 3), rtol=4e-15)
    np.testing.assert_array_equal(V.multigammaln(a, 1).data, V.gammaln(a).data)
    if V.backend.default_device() == "cpu":
        with pytest.raises(ValueError, match=r"multigammaln: every entry of a must be above \(d - 1\)/2 = 1"):
            V.multigammaln(np.array([3.0, 1.0]), 3)
    else:                                                # (checked on the device: NaN, no sync)
        assert np.isnan(V.backend.to_cpu(V.multigammaln(V.Variable(np.array([3.0, 1.0])), 3).data)[1])
    for d, error in ((0, ValueError), (2.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match=r"multigammaln: .*d"):
            V.multigammaln(a, d)


def test_the_entropies_at_the_edges_of_their_domains_as_scipy_gives_them():
    x = V.Variable(np.array([-1.0, 0.0, 0.0, 0.3, 2.5, np.nan, 1.0]))
    y = V.Variable(np.array([0.5, 0.0, 2.0, -1.0, 1.0, 1.0, 0.0]))
    f = V.backend.to_cpu
    np.testing.assert_array_equal(f(V.entr(x).data), [-np.inf, 0.0, 0.0, -0.3 * math.log(0.3),
                                                      -2.5 * math.log(2.5), np.nan, 0.0])
    np.testing.assert_array_equal(f(V.rel_entr(x, y).data), [np.inf, 0.0, 0.0, np.inf, 2.5 * math.log(2.5),
                                                             np.nan, np.inf])
    np.testing.assert_array_equal(f(V.kl_div(x, y).data), [np.inf, 0.0, 2.0, np.inf,
                                                           2.5 * math.log(2.5) - 1.5, np.nan, np.inf])


def test_a_kl_divergence_has_finite_gradients_at_zero_probabilities():
    p = V.Variable(np.array([0.0, 0.25, 0.75]))
    q = V.Variable(np.array([0.2, 0.3, 0.5]))
    gp, gq = V.grad(V.sum(V.kl_div(p, q)), [p, q])
    np.testing.assert_allclose(V.backend.to_cpu(gp.data), [0.0, math.log(0.25 / 0.3), math.log(0.75 / 0.5)])
    np.testing.assert_allclose(V.backend.to_cpu(gq.data), [1.0, 1 - 0.25 / 0.3, 1 - 0.75 / 0.5])
    gp, = V.grad(V.sum(V.rel_entr(p, q)), [p])
    np.testing.assert_allclose(V.backend.to_cpu(gp.data), [0.0, math.log(0.25 / 0.3) + 1, math.log(1.5) + 1])


def test_scipys_entropies_and_multigammaln_record_the_ops():
    special = pytest.importorskip("scipy.special")
    p, q = V.Variable(np.array([0.0, 0.25, 0.75])), V.Variable(np.array([0.2, 0.3, 0.5]))
    for scipys, ours, args in ((special.entr, V.entr, (p,)), (special.rel_entr, V.rel_entr, (p, q)),
                               (special.kl_div, V.kl_div, (p, q))):
        y = scipys(*args)
        assert isinstance(y, V.Variable) and y.creator is not None
        np.testing.assert_array_equal(y.data, ours(*args).data)
        np.testing.assert_allclose(y.data, scipys(*[v.data for v in args]), rtol=1e-15)
    a = np.array([2.0, 5.5])
    np.testing.assert_allclose(V.multigammaln(a, 3).data, [special.multigammaln(v, 3) for v in a], rtol=1e-14)


# ----- xlogy, xlog1py and logit ----------------------------------------------------------------
def test_xlogy_and_xlog1py_are_zero_where_x_is_zero_with_their_derivatives():
    x = V.Variable(np.array([0.0, 0.0, 0.0, 2.0]))
    y = V.Variable(np.array([0.0, 3.0, -1.0, 3.0]))
    np.testing.assert_array_equal(V.xlogy(x, y).data, [0.0, 0.0, 0.0, 2 * math.log(3)])
    np.testing.assert_allclose(V.xlog1py(x, y - 1).data, [0.0, 0.0, 0.0, 2 * math.log(3)],   # (log1p(2):
                               rtol=2.3e-16, atol=0)                                        # its last ulp)
    gx, gy = V.grad(V.sum(V.xlogy(x, y)), [x, y], create_graph=True)   # PyTorch's: 0 where x == 0
    np.testing.assert_array_equal(gx.data, [0.0, 0.0, 0.0, math.log(3)])
    np.testing.assert_array_equal(gy.data, [0.0, 0.0, 0.0, 2 / 3])
    gxy = V.grad(V.sum(gx), y)
    np.testing.assert_array_equal(gxy.data, [0.0, 0.0, 0.0, 1 / 3])
    d = V.taylor(lambda v: V.xlogy(v, y.data), x.data, np.ones(4), 3)     # (along x: log y, then 0)
    np.testing.assert_array_equal(np.stack([c.data for c in d])[:, :3], 0.0)
    np.testing.assert_allclose([c.data[3] for c in d], [2 * math.log(3), math.log(3), 0.0, 0.0])


def test_an_entropy_by_xlogy_has_a_finite_gradient_at_zero_probabilities():
    p = V.Variable(np.array([0.0, 0.25, 0.75]))
    entropy = -V.sum(V.xlogy(p, p))
    assert float(entropy.data) == pytest.approx(-(0.25 * math.log(0.25) + 0.75 * math.log(0.75)), rel=1e-15)
    entropy.backward()
    np.testing.assert_allclose(p.grad.data, [0.0, -(math.log(0.25) + 1), -(math.log(0.75) + 1)], rtol=1e-15)


def test_logit_keeps_its_digits_by_one_half_and_inverts_the_sigmoid():
    p = np.concatenate([0.5 + np.random.default_rng(7).uniform(-1e-6, 1e-6, 500),
                        np.linspace(0.001, 0.999, 999)])

    def logit_50_digits(v):
        with localcontext() as context:
            context.prec = 50
            v = Decimal(float(v))
            return float((v / (1 - v)).ln())

    exact = np.vectorize(logit_50_digits, otypes=[np.float64])(p)
    assert np.max(relative(V.logit(p).data, exact)) < 1e-15
    naive = np.log(p) - np.log1p(-p)
    assert np.max(relative(naive, exact)) > 1e-12                     # what the plain formula loses
    z = np.linspace(-30, 30, 121)
    sigmoid = np.exp(-np.logaddexp(0, -z))
    np.testing.assert_allclose(V.logit(sigmoid).data[z < 15], z[z < 15], rtol=1e-9, atol=1e-13)
    np.testing.assert_array_equal(V.logit(np.array([0.0, 1.0])).data, [-np.inf, np.inf])
    assert np.isnan(V.logit(np.array(1.5)).data)


def test_scipys_xlogy_xlog1py_and_logit_record_the_ops():
    special = pytest.importorskip("scipy.special")
    x, y = V.Variable(np.array([0.0, 0.5, 2.0])), V.Variable(np.array([0.0, 1.5, 3.0]))
    for scipys, ours in [(special.xlogy, V.xlogy), (special.xlog1py, V.xlog1py)]:
        z = scipys(x, y)
        assert isinstance(z, V.Variable) and z.creator is not None
        np.testing.assert_array_equal(z.data, ours(x, y).data)
        np.testing.assert_allclose(z.data, scipys(x.data, y.data), rtol=1e-15)
    p = V.Variable(np.array([0.01, 0.4, 0.5 + 1e-9, 0.99]))
    z = special.logit(p)
    assert isinstance(z, V.Variable)
    np.testing.assert_allclose(z.data, special.logit(p.data), rtol=1e-15)


# ----- erfinv, erfcinv and ndtri ------------------------------------------------------------
def test_the_inverse_error_functions_to_a_few_ulps_into_their_tails():
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.uniform(-1, 1, 300), 1 - 10.0 ** -rng.uniform(1, 16, 100), [0.9, 0.5, 1e-300]])
    np.testing.assert_allclose(V.erfinv(x).data, reference_erfinv(x), rtol=4e-15, atol=0)
    np.testing.assert_allclose(V.erfinv(-x).data, -reference_erfinv(x), rtol=4e-15, atol=0)
    q = np.concatenate([10.0 ** -rng.uniform(0, 307, 300), rng.uniform(0, 2, 100), [0.004, 0.1, 1.0]])
    np.testing.assert_allclose(V.erfcinv(q).data, reference_erfcinv(q), rtol=4e-15, atol=3e-16)  # (as below)
    p = np.concatenate([10.0 ** -rng.uniform(0, 300, 300), rng.uniform(0, 1, 100),
                        1 - 10.0 ** -rng.uniform(1, 16, 50)])
    # (by p = 1/2, q = 1, a few ulps of p itself: the reference's resolution there is 1e-16)
    np.testing.assert_allclose(V.ndtri(p).data, reference_ndtri(p), rtol=4e-15, atol=3e-16)
    assert V.ndtri(np.array(1e-300)).data == pytest.approx(-37.04710, abs=1e-5)
    assert V.erfcinv(np.array(5e-324)).data == pytest.approx(27.2, abs=0.05)     # (the smallest double)


def test_the_inverse_error_functions_at_the_ends_of_their_domains():
    np.testing.assert_array_equal(V.erfinv(np.array([-1.0, 1.0, 0.0, 1.5, -1.5, np.nan])).data,
                                  [-np.inf, np.inf, 0.0, np.nan, np.nan, np.nan])
    np.testing.assert_array_equal(V.erfcinv(np.array([0.0, 2.0, 1.0, -0.1, 2.1])).data,
                                  [np.inf, -np.inf, 0.0, np.nan, np.nan])
    np.testing.assert_array_equal(V.ndtri(np.array([0.0, 1.0, 0.5, 1.1])).data,
                                  [-np.inf, np.inf, 0.0, np.nan])
    assert not np.signbit(V.ndtri(np.array(0.5)).data)
    assert V.erfinv(np.float32([0.5])).dtype == np.float32


def test_the_inverse_error_functions_invert_erf_and_have_its_reciprocal_slope():
    x = np.linspace(-0.99, 0.99, 41)
    np.testing.assert_allclose(V.erf(V.erfinv(x)).data, x, rtol=1e-15, atol=1e-16)
    v = V.Variable(x)
    y = V.erfinv(v)
    g = V.grad(V.sum(y), v, create_graph=True)
    np.testing.assert_allclose(g.data, math.sqrt(math.pi) / 2 * np.exp(y.data ** 2), rtol=1e-15)
    g2 = V.grad(V.sum(g), v)       # d/dx (sqrt(pi)/2 e^(y^2)) = 2 y (sqrt(pi)/2 e^(y^2))^2
    slope = math.sqrt(math.pi) / 2 * np.exp(y.data ** 2)
    np.testing.assert_allclose(g2.data, 2 * y.data * slope ** 2, rtol=1e-14)
    p = V.Variable(np.array([0.001, 0.3, 0.97]))
    z = V.ndtri(p)
    density = np.exp(-z.data ** 2 / 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(V.grad(V.sum(z), p).data, 1 / density, rtol=1e-14)


def test_scipys_inverse_error_functions_record_the_ops():
    special = pytest.importorskip("scipy.special")
    for scipys, ours, point in [(special.erfinv, V.erfinv, [-0.9, 0.2, 0.999]),
                                (special.erfcinv, V.erfcinv, [1e-20, 0.7, 1.9]),
                                (special.ndtri, V.ndtri, [1e-10, 0.5, 0.8])]:
        x = V.Variable(np.array(point))
        y = scipys(x)
        assert isinstance(y, V.Variable) and y.creator is not None
        np.testing.assert_array_equal(y.data, ours(x).data)
        np.testing.assert_allclose(y.data, scipys(x.data), rtol=1e-14)


# ----- log_ndtr ----------------------------------------------------------------------------
def test_log_ndtr_to_a_few_ulps_in_both_tails():
    rng = np.random.default_rng(12)
    x = np.concatenate([rng.uniform(-50, 40, 2000), -(10.0 ** rng.uniform(0, 150, 200)),
                        [-2 * math.sqrt(2), 2 * math.sqrt(2), -2.8285, 2.8285, 0.0]])
    expected = reference_log_ndtr(x)
    got = V.log_ndtr(x).data
    nonzero = expected != 0
    assert np.max(relative(got, expected)[nonzero]) < 4e-15
    np.testing.assert_array_equal(got[~nonzero], 0.0)
    assert V.log_ndtr(np.array(-40.0)).data == pytest.approx(-804.6084420137538, rel=1e-15)
    assert V.log_ndtr(np.array(10.0)).data == pytest.approx(-7.619853024160527e-24, rel=1e-14)
    np.testing.assert_array_equal(V.log_ndtr(np.array([-np.inf, np.inf, -1e200])).data,
                                  [-np.inf, 0.0, -np.inf])
    assert np.isnan(V.log_ndtr(np.array(np.nan)).data)


def test_log_ndtrs_slope_is_the_inverse_mills_ratio_finite_in_both_tails():
    points = np.array([-40.0, -5.0, 0.0, 5.0, 30.0])
    x = V.Variable(points)
    slope = V.grad(V.sum(V.log_ndtr(x)), x, create_graph=True)
    m = V.backend.to_cpu(slope.data)
    expected = np.exp(-points ** 2 / 2 - 0.5 * math.log(2 * math.pi) - reference_log_ndtr(points))
    np.testing.assert_allclose(m, expected, rtol=1e-14)
    assert m[0] == pytest.approx(40.02495, rel=1e-6)                  # about -x far left
    curvature = V.backend.to_cpu(V.grad(V.sum(slope), x).data)         # m' = -m (x + m)
    np.testing.assert_allclose(curvature, -m * (points + m), rtol=1e-9, atol=1e-300)


# ----- ndtr --------------------------------------------------------------------------------
def test_ndtr_to_a_few_ulps_into_its_left_tail():
    rng = np.random.default_rng(13)
    x = np.concatenate([rng.uniform(-37.5, 10, 2000), [-2 * math.sqrt(2), -2.8285, -2.8283, 0.0]])
    expected = reference_ndtr(x)
    got = V.ndtr(x).data
    assert np.max(relative(got, expected)) < 4e-15
    assert V.ndtr(np.array(-37.0)).data == pytest.approx(5.725571222524576e-300, rel=1e-15)
    np.testing.assert_array_equal(V.ndtr(np.array([-np.inf, -40.0, np.inf, 40.0])).data, [0, 0, 1, 1])
    assert np.isnan(V.ndtr(np.array(np.nan)).data)


def test_ndtr_far_out_is_zero_not_nan():
    """Below -22,700 the rest of e^(-x^2 / 2)'s split exponent, (x - s)(x + s) / 2 with s = x to 1/16,
    can pass 709 where e^(-s^2 / 2) is 0 already: 0 * inf was NaN for half the points there."""
    x = -np.random.default_rng(5).uniform(2.2e4, 1e8, 1001)
    y = V.Variable(x)
    value = V.ndtr(y)
    g, = V.grad(V.sum(value), [y])
    np.testing.assert_array_equal(value.data, 0.0)
    np.testing.assert_array_equal(g.data, 0.0)
    np.testing.assert_array_equal(V.stats.norm.cdf(x).data, 0.0)
    np.testing.assert_array_equal(V.erfc(x).data, 2.0)
    np.testing.assert_array_equal(V.erfc(-x).data, 0.0)


def test_ndtrs_derivatives_are_the_normal_density_and_its_derivatives():
    points = np.array([-30.0, -3.0, 0.0, 0.7, 5.0])
    x = V.Variable(points)
    density = V.grad(V.sum(V.ndtr(x)), x, create_graph=True)
    phi = np.exp(-points ** 2 / 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(V.backend.to_cpu(density.data), phi, rtol=1e-14)
    slope = V.grad(V.sum(density), x, create_graph=True)             # phi' = -x phi
    np.testing.assert_allclose(V.backend.to_cpu(slope.data), -points * phi, rtol=1e-13, atol=1e-300)
    curvature = V.grad(V.sum(slope), x)                                # phi'' = (x^2 - 1) phi
    np.testing.assert_allclose(V.backend.to_cpu(curvature.data), (points ** 2 - 1) * phi, rtol=1e-13,
                               atol=1e-300)


def test_ndtr_is_the_exponential_of_log_ndtr_and_one_minus_its_mirror():
    x = np.linspace(-30, 8, 761)
    np.testing.assert_allclose(np.log(V.ndtr(x).data), V.log_ndtr(x).data, rtol=4e-15, atol=1e-15)
    inner = x[np.abs(x) < 5]
    np.testing.assert_allclose(V.ndtr(inner).data + V.ndtr(-inner).data, 1.0, rtol=4e-16)


def test_scipys_ndtr_expit_and_log_expit_record_ops_with_only_variable_imported():
    """scipy.special.ndtr is V.ndtr; expit and log_expit are function's sigmoid and log_sigmoid,
    which the dispatch imports itself (a script that imported only `variable` got a refusal)."""
    special = pytest.importorskip("scipy.special")
    x = V.Variable(np.array([-30.0, -2.0, 0.5, 8.0]))
    for scipys, ours in ((special.ndtr, V.ndtr), (special.expit, None), (special.log_expit, None)):
        y = scipys(x)
        assert isinstance(y, V.Variable) and y.creator is not None
        if ours is not None:
            np.testing.assert_array_equal(y.data, ours(x).data)
        np.testing.assert_allclose(y.data, scipys(x.data), rtol=1e-12)


# ----- erfcx -------------------------------------------------------------------------------
def test_erfcx_to_a_few_ulps_without_overflow_or_underflow():
    rng = np.random.default_rng(15)
    x = np.concatenate([rng.uniform(-26, 40, 2000), rng.uniform(-1.2, 1.2, 1000),
                        10.0 ** rng.uniform(1, 300, 100), [0.7, -0.7, 1.0, 2.0, -1.0, 0.0]])
    got = V.erfcx(x).data
    assert np.max(relative(got, reference_erfcx(x))) < 4e-15
    np.testing.assert_array_equal(V.erfcx(np.array([np.inf, -np.inf, -27.0])).data, [0.0, np.inf, np.inf])
    assert np.isnan(V.erfcx(np.array(np.nan)).data)


def test_erfcxs_derivative_and_scipys_erfcx_on_a_variable():
    points = np.array([-3.0, -0.5, 0.3, 0.9, 1.5, 40.0, 1e6])
    x = V.Variable(points)
    y = V.erfcx(x)
    slope = V.grad(V.sum(y), x)                                       # 2 x erfcx(x) - 2/sqrt(pi)
    expected = 2 * points * reference_erfcx(points) - 2 / math.sqrt(math.pi)
    np.testing.assert_allclose(V.backend.to_cpu(slope.data), expected, rtol=1e-9, atol=1e-15)
    special = pytest.importorskip("scipy.special")
    z = special.erfcx(x)
    assert isinstance(z, V.Variable) and z.creator is not None
    np.testing.assert_array_equal(z.data, y.data)


# ----- i1, i0e, i1e --------------------------------------------------------------------------
BESSEL_POINTS = np.array([1e-3, 0.5, 3.0, 17.9, 20.0, 20.5, 21.0, 40.0, 123.4, 500.0, 709.5, 713.9, 2e3,
                          -2.5, -713.0, -1e4])


@pytest.mark.parametrize("n, op, scaled", [(1, V.i1, False), (0, V.i0e, True), (1, V.i1e, True)])
def test_i1_i0e_and_i1e_match_a_60_digit_power_series(n, op, scaled):
    points = BESSEL_POINTS if scaled else BESSEL_POINTS[np.abs(BESSEL_POINTS) < 714]
    expected = np.array([bessel_series(n, x, scaled=scaled) for x in points])
    np.testing.assert_allclose(V.backend.to_cpu(op(V.Variable(points)).data), expected, rtol=1e-14)


def test_the_scaled_bessel_functions_neither_overflow_nor_lose_their_tails():
    x = V.Variable(np.array([1e300, -1e300, np.inf, -np.inf, np.nan, 0.0]))
    i0e, i1e = (V.backend.to_cpu(op(x).data) for op in (V.i0e, V.i1e))
    np.testing.assert_allclose(i0e[:2], 1 / np.sqrt(2 * np.pi * 1e300), rtol=1e-15)   # ~ 1/sqrt(2 pi x)
    np.testing.assert_array_equal(i0e[2:4], [0.0, 0.0])
    np.testing.assert_array_equal(i1e[2:4], [0.0, -0.0])
    assert np.isnan(i0e[4]) and np.isnan(i1e[4])
    assert i0e[5] == 1.0 and i1e[5] == 0.0


def test_the_scaled_bessel_functions_derivatives():
    """d log i0e = I_1/I_0 - sign(x) (from 60-digit series); each second derivative against
    central differences of the first."""
    points = np.array([-30.0, -2.0, 0.7, 5.0, 300.0])
    x = V.Variable(points)
    slope = V.grad(V.sum(V.log(V.i0e(x))), x)
    ratio = np.array([bessel_series(1, v) / bessel_series(0, v) for v in points])
    np.testing.assert_allclose(V.backend.to_cpu(slope.data), ratio - np.sign(points), rtol=1e-13, atol=1e-15)

    def first(op, at):
        x = V.Variable(at)
        return V.backend.to_cpu(V.grad(V.sum(op(x)), x).data)

    h = 1e-5 * np.maximum(1, np.abs(points))
    for op in (V.i0e, V.i1e):
        x = V.Variable(points)
        second = V.grad(V.sum(V.grad(V.sum(op(x)), x, create_graph=True)), x)
        numeric = (first(op, points + h) - first(op, points - h)) / (2 * h)
        np.testing.assert_allclose(V.backend.to_cpu(second.data), numeric, rtol=1e-7, atol=1e-14)


def test_scipys_bessel_functions_record_the_ops():
    special = pytest.importorskip("scipy.special")
    x = V.Variable(np.array([-30.0, -2.0, 0.5, 8.0, 700.0]))
    for scipys, ours in ((special.i1, V.i1), (special.i0e, V.i0e), (special.i1e, V.i1e)):
        y = scipys(x)
        assert isinstance(y, V.Variable) and y.creator is not None
        np.testing.assert_array_equal(y.data, ours(x).data)
        np.testing.assert_allclose(y.data, scipys(x.data), rtol=1e-14)


def test_scipys_log_ndtr_records_the_op():
    special = pytest.importorskip("scipy.special")
    x = V.Variable(np.array([-30.0, -2.0, 0.5, 8.0]))
    y = special.log_ndtr(x)
    assert isinstance(y, V.Variable) and y.creator is not None
    np.testing.assert_allclose(y.data, special.log_ndtr(x.data), rtol=1e-12)


def test_on_the_device_erf_and_its_kin_are_the_hosts_in_every_band_without_a_sync(gpu, count_syncs):
    # erfc's continued fraction takes 400 levels below 1, 200 below 2 and 60 beyond: on a device
    # one pass from the deepest, each entry starting again at its band's depth (restarts)
    x = np.concatenate([np.linspace(-6.0, 30.0, 721), [np.nextafter(1.0, 0), np.nextafter(2.0, 0)]])
    for op in (V.erf, V.erfc, V.erfcx, V.ndtr, V.log_ndtr, V.ndtri):
        point = np.clip(np.abs(x) / 31, 1e-300, 1 - 1e-16) if op is V.ndtri else x
        assert device_equals_host(op, [point], count_syncs).count == 0, op.__name__


def test_on_the_device_float32_erf_erfc_and_ndtr_by_the_fitted_formula_are_the_hosts_without_a_sync(
        gpu, count_syncs):
    # float32 results take erfc_of_abs's one formula (erf inside |x| < 1/2 its series): no band,
    # no branch; the exact GELU's normal CDF is the same formula (test_function_activation.py)
    x = np.concatenate([np.linspace(-14.0, 14.0, 561), [-0.5, 0.4999, 0.0, np.inf, -np.inf, np.nan]])
    for op in (V.erf, V.erfc, V.ndtr):
        assert device_equals_host(op, [x.astype(np.float32)], count_syncs).count == 0, op.__name__


def test_on_the_device_rgamma_beta_zeta_and_the_polynomials_are_the_hosts_without_a_sync(gpu, count_syncs):
    # every branch and edge: rgamma at its poles, beta at a pole, zeta on both sides of -1/2 and
    # beyond -400, Hurwitz's NaN and inf, a polynomial's recurrence
    x = np.array([-3.0, -2.5, -0.3, 0.0, 0.7, 2.5, 180.0])
    s = np.array([-500.0, -33.0, -2.0, -0.7, -0.2, 0.5, 1.0, 2.5, np.inf])
    for op, args in [(V.rgamma, (x,)), (V.gammasgn, (x,)), (V.zeta, (s,)),
                     (V.beta, (np.array([0.5, -1.0, 2.5, -1.5]), np.array([1.5, 2.0, 0.3, 0.5]))),
                     (V.zeta, (np.array([2.5, 1.0, 0.5, 3.0, 1.5]), np.array([0.7, 2.0, 1.0, -2.0, 40.0]))),
                     (lambda t: V.eval_legendre(6, t), (np.array([-1.2, 0.3, 0.9]),)),
                     (lambda t: V.eval_laguerre(4, t), (np.array([-1.2, 0.3, 5.0]),)),
                     (lambda t: V.eval_legendre(np.array([[1], [4], [6]]), t), (np.array([-1.2, 0.3, 0.9]),)),
                     (lambda a, t: V.eval_gegenbauer(np.array([[1], [4]]), a, t),
                      (np.array([0.5, 1.5, 2.0]), np.array([-1.2, 0.3, 0.9]))),
                     (lambda p, q, t: V.eval_sh_jacobi(3, p, q, t),
                      (np.array([2.5, 3.0]), np.array([1.5, 0.5]), np.array([0.2, 0.9]))),
                     (lambda a, b, t: V.eval_jacobi(2, a, b, t),
                      (np.array([-1.0, 0.5]), np.array([-1.0, 0.25]), np.array([0.3, 0.3]))),
                     (V.ellipk, (np.array([-1e300, -3.0, 0.0, 0.4, 0.9, 1.0, 1.5]),)),
                     (V.poch, (np.array([2.5, -3.0, -2.5, 3.0, 1e6, 0.0, 5.0]),
                               np.array([1.5, 2.0, 1.5, -3.0, 0.3, 2.0, 70.5]))),
                     (V.binom, (np.array([10.0, -3.0, 5.5, 1000.0, 10.0]),
                                np.array([3.0, 2.0, 2.2, 500.0, -2.0]))),
                     (V.exp1, (np.array([-1.0, 0.0, 0.3, 1.5, 2.0, 30.0, 800.0, np.inf]),)),
                     (lambda t: V.expn(4, t), (np.array([-1.0, 0.0, 0.3, 1.5, 2.0, 30.0, 800.0, np.inf]),)),
                     (V.huber, (np.array([1.0, -1.0, 2.0, 0.5]), np.array([0.3, 1.0, -5.0, np.inf]))),
                     (V.erfi, (np.array([-7.0, -0.3, 0.0, 2.0, 6.5, 20.0]),)),
                     (V.dawsn, (np.array([-7.0, -0.3, 0.0, 2.0, 6.5, 1e200, np.inf]),)),
                     (V.pseudo_huber, (np.array([1.0, -1.0, 0.0, 2.0]), np.array([0.3, 1.0, 0.0, -5.0]))),
                     (V.expi, (np.array([-30.0, -0.5, 0.0, 0.3, 12.0, 45.0, 800.0]),)),
                     (V.ellipe, (np.array([-1e300, -3.0, 0.0, 0.4, 0.9, 1.0, 1.5]),)),
                     (lambda x: V.lpmv(3, 7, x), (np.array([-1.5, -1.0, -0.3, 0.0, 0.8, 1.0]),)),
                     (lambda x: V.pbdv(4, x)[1], (np.array([-np.inf, -3.0, 0.0, 2.5, 60.0]),)),
                     (lambda x: V.lpmv(np.array([[0], [2], [-1]]), np.array([3, 4]), x),
                      (np.array([-0.5, 0.2, 0.9, 1.5]).reshape(4, 1, 1),))]:
        assert device_equals_host(op, args, count_syncs).count == 0


def test_python_numbers_beside_float32_data_stay_float32_in_the_special_functions():
    """NumPy's weak scalars (SciPy's float32 loops): a Python number takes the first array's
    floating dtype in every special function of several arguments (owens_t and poch were float64)."""
    x = np.array([0.3, 0.6], np.float32)
    for y in (V.owens_t(x, 2.0), V.owens_t(1.5, x), V.poch(x, 2.0), V.binom(5.0, x), V.huber(1.0, x),
              V.agm(x, 2.0), V.gdtria(x, 2.5, 3.0), V.nrdtrimn(x, 2.0, 0.5), V.eval_gegenbauer(3, 0.5, x)):
        assert y.dtype == np.float32
    assert V.owens_t(0.3, 2).dtype == np.float64 and V.owens_t(np.array([1, 2]), 0.5).dtype == np.float64
