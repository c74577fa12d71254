"""scipy.special's elementary functions, on gengrad's ops: those that keep the digits a
direct formula loses (exprel, cosm1, powm1, the Box-Cox transforms, zetac), exp10, the
trigonometric functions of degrees, the arithmetic-geometric mean agm, the dilogarithm spence
and the real loggamma.

Each is a composite of gengrad's ops, so its derivatives (in every argument) and Taylor rules
are theirs, to any order; where a formula has a removable singularity (expm1(x) / x at 0,
log1p(z) / z at 0) a series takes over near it, so the derivatives there are exact too.
Data-dependent choices are `where`s on the device (no host sync); on the CPU the number of
steps agm needs is read from the data.
"""

import math

import numpy as np

from ..backend import get_array_module, is_device_array
from ..forwarder import Forwarder, Function, new_variable
from .elementwise import exp, log, sqrt
from .exponential import _LN10, Exp2, expm1, log1p
from .piecewise import where
from .special import _B, _agm_count, _as_float_variable, _exact_value, _pair_of_floats, gammaln, zeta
from .trigonometric import cos, sin, tan

_SERIES_TERMS = 30
_EXPREL_SERIES = 2.0
"""Below |x| = 2, exprel(x) = sum_k x^k / (k + 1)! to 30 terms (the first left out is below
2^-90 of the sum there, its sixth derivative's below 2^-60); beyond it expm1(x) / x."""

_LOG1P_SERIES = 0.25
"""Below |z| = 1/4, log1p(z) / z = sum_k (-z)^k / (k + 1) to 30 terms (left out: 4^-30 / 31)."""


def _horner(x, coefficients):
    """sum_k c_k x^k, on gengrad's ops (c_0 first)."""
    total = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        total = total * x + c
    return total


def _exprel(x):
    """expm1(x) / x of the floating Variable x, 1 at 0, exact in all derivatives near it: the
    series below |x| = 2, expm1(x) / x to 700, e^(x/2) (e^(x/2) / x) beyond (where expm1 overflows but
    the quotient does not); +inf at +inf, 0 at -inf, NaN at NaN."""
    xp = get_array_module(x.data)
    start = 700.0 if x.dtype == np.float64 else 80.0       # (below e^x's overflow)
    with np.errstate(invalid="ignore"):
        near = xp.abs(x.data) < _EXPREL_SERIES
        far = x.data > start
        finite = xp.abs(x.data) < np.inf
    small = _horner(where(near, x, 0.0), [1.0 / math.factorial(k + 1) for k in range(_SERIES_TERMS)])
    middle = where(near | far | ~finite, 1.0, x)
    large = where(far & finite, x, start)
    half = exp(large * 0.5)                                # (e^x / x as e^(x/2) (e^(x/2) / x): x/2 exact)
    with np.errstate(over="ignore"):                       # (inf from x = 716.4: its value)
        quotient = half * (half / large)
    value = where(near, small, where(far, quotient, expm1(middle) / middle))
    edge = xp.where(x.data > 0, np.inf, xp.where(x.data < 0, 0.0, np.nan)).astype(x.dtype, copy=False)
    return where(finite, value, edge)


def _log1p_over(z):
    """log1p(z) / z of the floating Variable z > -1, 1 at 0, exact in all derivatives near it
    (the series below |z| = 1/4)."""
    near = get_array_module(z.data).abs(z.data) < _LOG1P_SERIES
    small = _horner(where(near, z, 0.0), [(-1.0) ** k / (k + 1) for k in range(_SERIES_TERMS)])
    other = where(near, 1.0, z)
    return where(near, small, log1p(other) / other)


def exprel(x):
    """The relative error exponential (e^x - 1) / x, elementwise (scipy.special.exprel), 1 at 0:
    exact to the last digits near 0 in its value and all its derivatives (a series below |x| = 2),
    finite to x = 716 (e^(x/2) (e^(x/2) / x) where e^x - 1 overflows), 0 at -inf."""
    return _exprel(_as_float_variable(x, "exprel"))


def cosm1(x):
    """cos(x) - 1, elementwise (scipy.special.cosm1), as -2 sin^2(x / 2): all its digits for small
    x (cosm1(1e-8) = -5e-17, where cos(x) - 1 is 0)."""
    x = _as_float_variable(x, "cosm1")
    half = sin(x * 0.5)
    return half * half * -2.0


def powm1(x, y):
    """x^y - 1, elementwise with broadcasting (scipy.special.powm1), as expm1(y log x) for x > 0:
    all its digits where x^y is near 1 (powm1(1 + 1e-12, 3) = 3e-12); x < 0 with whole y by
    power, NaN with y not whole; x = 0: -1, inf, 0 for y > 0, < 0, = 0.  Differentiable in x and
    y (in y for x > 0)."""
    x, y, a, b, xp = _pair_of_floats(x, y, "powm1")
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        inside = (a > 0) & (a < np.inf) & (xp.abs(b) < np.inf)
        whole = (b == xp.round(b)) & (xp.abs(b) < np.inf)
        negative = (a < 0) & (a > -np.inf) & whole
        edge = xp.where((a == 1) | (b == 0), 0.0,                 # (1^nan = nan^0 = 1, as SciPy)
                        xp.where((a < 0) & ~whole, np.nan, xp.power(a, b) - 1.0))
    edge = edge.astype(x.dtype, copy=False)
    grown = expm1(where(inside, y, 0.0) * log(where(inside, x, 2.0)))
    signed = where(negative, x, 2.0) ** where(negative, y, 1.0) - 1.0
    return where(inside, grown, where(negative, signed, edge))


# ----- the Box-Cox transforms ----------------------------------------------------------------------
def _box_cox(x, lmbda, op, shifted):
    """(x^lmbda - 1) / lmbda as log(x) exprel(lmbda log x), log(x) at lmbda = 0 (`shifted`:
    of 1 + x, by log1p)."""
    x, lmbda, a, lam, xp = _pair_of_floats(x, lmbda, op)
    a = a + 1.0 if shifted else a
    with np.errstate(invalid="ignore", divide="ignore"):
        inside = (a > 0) & (a < np.inf) & (xp.abs(lam) < np.inf)
        at_zero = xp.where(lam > 0, -1.0 / lam, -np.inf)
        at_inf = xp.where(lam >= 0, np.inf, -1.0 / lam)
        edge = xp.where(a == 0, at_zero, xp.where(a == np.inf, at_inf, np.nan))
    edge = xp.where(xp.abs(lam) < np.inf, edge, np.nan).astype(x.dtype, copy=False)
    inner = where(inside, x, 0.0 if shifted else 1.0)
    logarithm = log1p(inner) if shifted else log(inner)
    lam_in = where(inside, lmbda, 0.0)
    value = logarithm * _exprel(lam_in * logarithm)
    return where(inside, value, edge)


def boxcox(x, lmbda):
    """The Box-Cox transform (x^lmbda - 1) / lmbda, log(x) at lmbda = 0, elementwise with
    broadcasting (scipy.special.boxcox): as log(x) exprel(lmbda log x), so no digits are lost near
    lmbda = 0 (nor in the derivative in lmbda there); differentiable in x and lmbda.  x < 0: NaN;
    x = 0: -1 / lmbda for lmbda > 0, -inf otherwise; lmbda = +-inf: NaN."""
    return _box_cox(x, lmbda, "boxcox", shifted=False)


def boxcox1p(x, lmbda):
    """The Box-Cox transform of 1 + x, ((1 + x)^lmbda - 1) / lmbda, elementwise with broadcasting
    (scipy.special.boxcox1p): log1p(x) exprel(lmbda log1p(x)), exact for small x and lmbda."""
    return _box_cox(x, lmbda, "boxcox1p", shifted=True)


def _inverse_box_cox(y, lmbda, op, shifted):
    """(1 + lmbda y)^(1 / lmbda) as e^(y log1p(lmbda y) / (lmbda y)), e^y at lmbda = 0
    (`shifted`: minus 1, by expm1)."""
    y, lmbda, b, lam, xp = _pair_of_floats(y, lmbda, op)
    with np.errstate(invalid="ignore", over="ignore"):
        z = lam * b
        inside = (z > -1) & (xp.abs(z) < np.inf) & (xp.abs(b) < np.inf)
        edge = xp.where((z == -1) & (lam > 0), 0.0, xp.where((z == -1) & (lam < 0), np.inf, np.nan))
        edge = xp.where((b == np.inf) & (lam >= 0), np.inf, xp.where((b == -np.inf) & (lam <= 0), 0.0, edge))
        edge = xp.where(xp.abs(lam) < np.inf, edge - 1.0 if shifted else edge, np.nan)
    edge = edge.astype(y.dtype, copy=False)
    y_in, lam_in = where(inside, y, 0.0), where(inside, lmbda, 0.0)
    exponent = y_in * _log1p_over(lam_in * y_in)
    return where(inside, expm1(exponent) if shifted else exp(exponent), edge)


def inv_boxcox(y, lmbda):
    """The inverse Box-Cox transform (1 + lmbda y)^(1 / lmbda), e^y at lmbda = 0, elementwise with
    broadcasting (scipy.special.inv_boxcox): inv_boxcox(boxcox(x, l), l) = x; NaN where
    1 + lmbda y < 0 and for lmbda = +-inf (as SciPy); differentiable in y and lmbda."""
    return _inverse_box_cox(y, lmbda, "inv_boxcox", shifted=False)


def inv_boxcox1p(y, lmbda):
    """(1 + lmbda y)^(1 / lmbda) - 1, elementwise with broadcasting (scipy.special.inv_boxcox1p):
    the inverse of boxcox1p, exact for small y."""
    return _inverse_box_cox(y, lmbda, "inv_boxcox1p", shifted=True)


# ----- 10^x --------------------------------------------------------------------------------------
class Exp10(Exp2):
    """10 ** x."""

    log_base = _LN10
    _pointwise = True

    def forward(self, x):
        return get_array_module(x).power(x.dtype.type(10), x)


def exp10(x):
    """10^x, elementwise (scipy.special.exp10): NumPy's power(10, x), exact at whole x (10^x by
    e^(x ln 10) is not: 10^22 would be 1 ulp off)."""
    return Function(Exp10())(_as_float_variable(x, "exp10"))


# ----- trigonometric functions of degrees ----------------------------------------------------------
def _quarter_turns(x):
    """(r, k) of the array x in degrees: x = r + 90 k, |r| <= 45, exactly (fmod, then Sterbenz's
    subtraction), k mod 4 as integers (0 where x is NaN or infinite: r is NaN there)."""
    xp = get_array_module(x)
    with np.errstate(invalid="ignore"):
        turn = xp.fmod(x, x.dtype.type(360))
        k = xp.round(turn / x.dtype.type(90))
        r = turn - x.dtype.type(90) * k
    return r, xp.where(xp.isnan(k), 0, k).astype(np.int64) % 4


class QuarterTurnRest(Forwarder):
    """x minus its nearest multiple of 90 (degrees), exactly at any size: x - 90 k for the whole k
    with |x - 90 k| <= 45; derivative 1 (k is locally constant)."""

    def forward(self, x):
        return _quarter_turns(x)[0]

    save_for_backward = ()

    def backward(self, gy):
        return gy * 1.0

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + list(x[1:])


def _reduced_degrees(x):
    """(r, k mod 4) of the Variable x (degrees): r = x - 90 k exactly, a Variable whose
    derivative in x is 1."""
    return Function(QuarterTurnRest())(x), _quarter_turns(x.data)[1]


def _radians(r):
    return r * (math.pi / 180.0)


def _sine_and_cosine(r):
    """sin and cos of r degrees, |r| <= 45, correctly rounded at r = +-30 (1/2 and sqrt(3)/2, where
    sin(pi / 6) is 1 ulp below 1/2), derivatives kept."""
    xp = get_array_module(r.data)
    s, c = sin(_radians(r)), cos(_radians(r))
    third = xp.abs(r.data) == 30.0
    s = _exact_value(s, xp.where(third, xp.sign(r.data) * 0.5, s.data).astype(s.dtype, copy=False))
    c = _exact_value(c, xp.where(third, math.sqrt(3.0) / 2, c.data).astype(c.dtype, copy=False))
    return s, c


def _of_quadrant(quadrant, *values):
    """values[quadrant] entrywise (four Variables or constants)."""
    first, second, third, fourth = values
    return where(quadrant == 0, first, where(quadrant == 1, second, where(quadrant == 2, third, fourth)))


def sindg(x):
    """sin(x) of x in degrees, elementwise (scipy.special.sindg): x reduced by whole turns and
    quarter turns exactly, so sindg(180 k) = 0 and sindg(30 + 360 k) = 1/2 to the last digit at any size;
    NaN at +-inf (SciPy's: 0)."""
    r, quadrant = _reduced_degrees(_as_float_variable(x, "sindg"))
    s, c = _sine_and_cosine(r)
    return _of_quadrant(quadrant, s, c, -s, -c)


def cosdg(x):
    """cos(x) of x in degrees, elementwise (scipy.special.cosdg): exact reduction as sindg's, so
    cosdg(90 + 180 k) = 0; NaN at +-inf."""
    r, quadrant = _reduced_degrees(_as_float_variable(x, "cosdg"))
    s, c = _sine_and_cosine(r)
    return _of_quadrant(quadrant, c, -s, -c, s)


def _tangent_of_degrees(x, op, cotangent):
    """tan or cot of x degrees, x = r + 90 k: tan(r) or -1 / tan(r) (cot: 1 / tan(r) or -tan(r))
    as k is even or odd, exactly +-1 at 45 degrees (derivative kept), +inf at the poles (SciPy's
    tandg(90) = tandg(-90) = inf)."""
    r, quadrant = _reduced_degrees(_as_float_variable(x, op))
    xp = get_array_module(r.data)
    odd = quadrant % 2 == 1
    t = tan(_radians(r))
    with np.errstate(invalid="ignore"):
        pole = (odd != cotangent) & (r.data == 0)
        diagonal = xp.abs(r.data) == 45.0
    t = _exact_value(t, xp.where(diagonal, xp.sign(r.data), t.data).astype(t.dtype, copy=False))
    inverted = odd != cotangent                            # (where 1 / tan(r) is taken; 0 only at a pole)
    inverse = 1.0 / where(inverted & ~pole, t, 1.0)
    value = where(odd, -t, inverse) if cotangent else where(odd, -inverse, t)
    return where(pole, np.inf, value)


def tandg(x):
    """tan(x) of x in degrees, elementwise (scipy.special.tandg): exactly 0 at 180 k and +-1 at
    45 + 90 k, inf at 90 + 180 k (as SciPy); NaN at +-inf."""
    return _tangent_of_degrees(x, "tandg", cotangent=False)


def cotdg(x):
    """cot(x) of x in degrees, elementwise (scipy.special.cotdg): exactly 0 at 90 + 180 k and +-1
    at 45 + 90 k, inf at 180 k (as SciPy); NaN at +-inf."""
    return _tangent_of_degrees(x, "cotdg", cotangent=True)


def radian(d, m, s):
    """The angle of d degrees, m minutes and s seconds in radians, elementwise with broadcasting
    (scipy.special.radian): (d + m / 60 + s / 3600) pi / 180."""
    d, m, s = (_as_float_variable(v, "radian") for v in (d, m, s))
    return (d + m * (1 / 60) + s * (1 / 3600)) * (math.pi / 180)


# ----- the arithmetic-geometric mean ---------------------------------------------------------------
_AGM_DEVICE_STEPS = 20
"""Steps of the mean on a device (no data read): enough for the widest ratio of two floats
(5e-324 / 1.8e308: its logarithm halves in the first steps, then digits double)."""


def _agm_steps(a, b):
    """The steps the mean of |a| and |b| (positive, finite, host arrays) needs: those of its
    widest ratio r = e^lr, its log halved (r -> 2 sqrt r, as the first steps do) until r is a
    float, then run in floats until the two means agree, and one more."""
    if is_device_array(a):
        return _AGM_DEVICE_STEPS
    if not a.size:
        return 0
    with np.errstate(divide="ignore"):
        lr = float(np.min(-np.abs(np.log(a) - np.log(b))))
    steps = 0
    while lr < -700.0:
        lr, steps = lr / 2 + math.log(2.0), steps + 1
    return _agm_count(math.exp(lr), _AGM_DEVICE_STEPS, steps)


def agm(a, b):
    """The arithmetic-geometric mean of a and b, elementwise with broadcasting (scipy.special.agm):
    the common limit of a_(n+1) = (a_n + b_n) / 2, b_(n+1) = sqrt(a_n b_n), on gengrad's ops
    (differentiable in a and b: the iteration converges quadratically, and so do its derivatives);
    -agm(-a, -b) for a, b < 0; NaN for opposite signs, 0 where one is 0 (the other finite),
    +-inf where one is."""
    a, b, p, q, xp = _pair_of_floats(a, b, "agm")
    with np.errstate(invalid="ignore"):
        sign = xp.where((p < 0) & (q < 0), -1.0, 1.0)
        same = (p * sign > 0) & (q * sign > 0)
        inside = same & (xp.abs(p) < np.inf) & (xp.abs(q) < np.inf)
        zero = ((p == 0) | (q == 0)) & (xp.abs(p) < np.inf) & (xp.abs(q) < np.inf)
        edge = xp.where(zero, 0.0,
                        xp.where(same, sign * np.inf, np.nan))
    edge = edge.astype(a.dtype, copy=False)
    sign = sign.astype(a.dtype, copy=False)
    u, v = where(inside, a * sign, 1.0), where(inside, b * sign, 1.0)
    steps = max(_agm_steps(xp.abs(u.data), xp.abs(v.data)), 2)
    for _ in range(2):                                     # (halves and roots: no overflow, and
        u, v = u * 0.5 + v * 0.5, sqrt(u) * sqrt(v)        # the ratio is above 1e-158 after two)
    scale = xp.ldexp(xp.ones_like(u.data), -xp.frexp(u.data)[1])     # (u >= v: a power of 2, exact)
    u, v = u * new_variable(scale), v * new_variable(scale)
    for _ in range(steps - 2):
        u, v = (u + v) * 0.5, sqrt(u * v)                  # (u = v stays: sqrt(u u) is u)
    return where(inside, (u / new_variable(scale)) * sign, edge)


# ----- the dilogarithm (scipy.special.spence) -------------------------------------------------------
_DILOG_TERMS = 22
"""Terms of Li2(w) = sum_n B_n u^(n+1) / (n+1)!, u = -log(1 - w), used for |u| <= log 2: the
first left out is below 2^-60 of the sum (the even terms fall as (u / 2 pi)^n)."""


def _dilog_series(u):
    """Li2(1 - e^-u) = sum_n B_n u^(n+1) / (n+1)! on gengrad's ops (B_1 = -1/2; the odd B_n above
    it are 0), a polynomial in u: its derivatives too."""
    coefficients = [0.0] + [float(_B[n] / math.factorial(n + 1)) for n in range(_DILOG_TERMS)]
    return _horner(u, coefficients)


def spence(z):
    """Spence's function int_1^z log(t) / (1 - t) dt = Li2(1 - z) for real z >= 0, elementwise
    (scipy.special.spence), on gengrad's ops (its derivative log(z) / (1 - z), to any order, smooth
    through z = 1): for z in [1/2, 2] the Bernoulli series in u = -log z (z = 1 - w exactly, so no
    digits go into 1 - z); below 1/2 Euler's reflection pi^2/6 - log(z) log(1 - z) - Li2(z); above 2
    the inversion -pi^2/6 - log^2(z - 1)/2 - Li2(1/(1 - z)).  pi^2/6 at 0, -inf at inf (SciPy's:
    NaN), NaN below 0."""
    z = _as_float_variable(z, "spence")
    xp = get_array_module(z.data)
    with np.errstate(invalid="ignore"):
        middle = (z.data >= 0.5) & (z.data <= 2.0)
        low = (z.data > 0) & (z.data < 0.5)
        high = (z.data > 2.0) & (z.data < np.inf)
    zeta2 = math.pi ** 2 / 6
    center = _dilog_series(-log(where(middle, z, 1.0)))
    z_low = where(low, z, 0.25)
    reflected = (zeta2 - log(z_low) * log1p(-z_low)) - _dilog_series(-log1p(-z_low))
    z_high = where(high, z, 3.0)
    shifted = log(z_high - 1.0)
    inverted = (-zeta2 - shifted * shifted * 0.5) - _dilog_series(-log(z_high / (z_high - 1.0)))
    value = where(middle, center, where(low, reflected, inverted))
    with np.errstate(invalid="ignore"):
        edge = xp.where(z.data == 0, zeta2, xp.where(z.data == np.inf, -np.inf, np.nan))
    return where(middle | low | high, value, edge.astype(z.dtype, copy=False))


# ----- zeta(x) - 1, and the real log-gamma -------------------------------------------------------
def zetac(x):
    """zeta(x) - 1, elementwise (scipy.special.zetac): Hurwitz's zeta(x, 2) above 1, so its
    digits stay where zeta(x) is near 1 (zetac(60) = 2^-60 + ...), zeta(x) - 1 below; inf at 1,
    NaN at -inf; differentiable to any order."""
    x = _as_float_variable(x, "zetac")
    with np.errstate(invalid="ignore"):
        above = x.data > 1
    two = new_variable(get_array_module(x.data).full_like(x.data, 2))     # (q in x's dtype)
    return where(above, zeta(where(above, x, 2.0), two), zeta(where(above, 0.5, x)) - 1.0)


def loggamma(x):
    """The principal branch of log Gamma(x) for real x (scipy.special.loggamma): gammaln(x) for x
    >= 0 (inf at 0), NaN below 0 where Gamma(x) < 0 would take a complex logarithm (SciPy's real
    loggamma is NaN for every x < 0; gengrad has no complex numbers: V.gammaln(x) is log|Gamma(x)|)."""
    x = _as_float_variable(x, "loggamma")
    with np.errstate(invalid="ignore"):
        below = x.data < 0
    return where(below, np.nan, gammaln(where(below, 1.0, x)))


__all__ = ["exprel", "cosm1", "powm1", "boxcox", "boxcox1p", "inv_boxcox", "inv_boxcox1p", "exp10",
           "sindg", "cosdg", "tandg", "cotdg", "radian", "agm", "zetac", "loggamma", "spence"]
