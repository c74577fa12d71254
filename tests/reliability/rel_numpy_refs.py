"""Independent NumPy formulas for every public op, the oracle of the reliability tests.

A sibling module: the test modules of tests/reliability import it by name (pytest puts
their folder on sys.path).  Each reference takes ndarrays and returns an ndarray (or a
tuple of them, or a float), written from the op's definition with plain NumPy and the
standard library, never with gengrad.  Where an op documents a convention NumPy has no
opinion on (PyTorch's floor of -100 on each log in binary_cross_entropy, the eps clamp of cosine_similarity,
DeZero's flatten, PyTorch's logsumexp and softmax over an empty axis), the reference spells
that convention out.
"""

import cmath
import itertools
import math
from fractions import Fraction

import numpy as np

_erfc = np.vectorize(math.erfc, otypes=[np.float64])
gammaln = np.vectorize(math.lgamma, otypes=[np.float64])


def xlogy(x, y):
    """x log(y), 0 where x == 0."""
    x, y = np.broadcast_arrays(as_float(x), as_float(y))
    out = np.zeros(x.shape)
    keep = x != 0
    out[keep] = x[keep] * np.log(y[keep])
    return out


def xlog1py(x, y):
    """x log(1 + y), 0 where x == 0."""
    return xlogy(x, 1 + as_float(y))


def logit(p):
    """log(p / (1 - p))."""
    p = as_float(p)
    return np.log(p / (1 - p))


def _solve(f, targets, lo, hi):
    """For each target t, the root of the increasing f(y) = t in [lo, hi], by 200 halvings
    done on the whole array at once."""
    t = np.asarray(targets, dtype=np.float64)
    lo, hi = np.full(t.shape, lo), np.full(t.shape, hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        below = f(mid) < t
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return np.where(np.isnan(t), np.nan, (lo + hi) / 2)


def erfcinv(q):
    """y with erfc(y) = q (-erfc increases); inf at 0, -inf at 2, NaN outside [0, 2]."""
    q = as_float(q)
    y = _solve(lambda y: -_erfc(y), -q, -6.0, 27.3)
    return np.select([q == 0, q == 2, (q < 0) | (q > 2)], [np.inf, -np.inf, np.nan], y)


def erfinv(x):
    """y with erf(y) = x, x in (-1, 1): erfcinv(1 - x)."""
    return erfcinv(1 - as_float(x))


def ndtri(p):
    """z with erfc(-z / sqrt 2) / 2 = p; -inf at 0, inf at 1, NaN outside [0, 1]."""
    p = as_float(p)
    z = _solve(lambda z: _erfc(-z / math.sqrt(2)) / 2, p, -38.5, 8.3)
    return np.select([p == 0, p == 1, (p < 0) | (p > 1)], [-np.inf, np.inf, np.nan], z)


def ndtr(x):
    """P(Z <= x) = erfc(-x / sqrt 2) / 2."""
    return _erfc(-as_float(x) / math.sqrt(2)) / 2


def _bessel_i(n, x, scaled):
    """I_n(x) (`scaled`: times e^(-|x|)) for one float: the power series in Python floats up to
    |x| = 40, beyond it 30 terms of the asymptotic expansion (a switch point of its own)."""
    if math.isnan(x):
        return math.nan
    sign = -1.0 if n % 2 and x < 0 else 1.0
    a = abs(x)
    if math.isinf(a):
        return sign * (0.0 if scaled else math.inf)
    if a <= 40:
        term = (a / 2) ** n / math.factorial(n)
        total, k = term, 0
        while term > 1e-18 * total:
            k += 1
            term *= a * a / 4 / (k * (k + n))
            total += term
        return sign * total * (math.exp(-a) if scaled else 1.0)
    term = total = 1.0
    for k in range(1, 30):
        term *= -(4 * n * n - (2 * k - 1) ** 2) / (8 * k * a)
        total += term
    total /= math.sqrt(2 * math.pi * a)
    if not scaled:
        total = total * math.exp(a / 2) * math.exp(a / 2) if a < 1e3 else math.inf
    return sign * total


def i1(x):
    """I_1(x), the modified Bessel function of order 1."""
    return np.vectorize(lambda v: _bessel_i(1, v, False), otypes=[np.float64])(as_float(x))


def i0e(x):
    """I_0(x) e^(-|x|)."""
    return np.vectorize(lambda v: _bessel_i(0, v, True), otypes=[np.float64])(as_float(x))


def i1e(x):
    """I_1(x) e^(-|x|)."""
    return np.vectorize(lambda v: _bessel_i(1, v, True), otypes=[np.float64])(as_float(x))


def _bessel_jy(kind, n, x):
    """J_n(x) or Y_n(x) (whole n) for one float with |x| <= 12: the power series in 50-digit
    decimals of the double x (its terms peak near e^12 / 2 pi: 44 digits are left; Y_n with
    its logarithm), a method of its own; NaN outside, and for Y at x <= 0."""
    from decimal import Decimal, localcontext
    if math.isnan(x) or abs(x) > 12 or kind == "y" and x <= 0:
        return math.nan
    sign = (-1.0) ** n if n < 0 else 1.0
    n = abs(n)
    if kind == "j" and x < 0:
        return sign * (-1.0) ** n * _bessel_jy(kind, n, -x)
    with localcontext() as context:
        context.prec = 50
        h = Decimal(x) / 2
        term = h ** n / math.factorial(n) if n else Decimal(1)     # (Decimal's 0 ** 0 is undefined)
        j, psi_k, psi_nk = term, Decimal(0), sum((Decimal(1) / m for m in range(1, n + 1)), Decimal(0))
        rest = (psi_k + psi_nk) * term
        for k in range(1, 48):                       # (36^k / k!^2 below 1e-34 from k = 48)
            term = term * -h * h / (k * (k + n))
            j += term
            psi_k += Decimal(1) / k
            psi_nk += Decimal(1) / (n + k)
            rest += (psi_k + psi_nk) * term
        if kind == "j":
            return sign * float(j)
        euler = Decimal("0.57721566490153286060651209008240243104215933593992")
        pi = Decimal("3.14159265358979323846264338327950288419716939937511")
        finite = sum((Decimal(math.factorial(n - k - 1)) / math.factorial(k) * h ** (2 * k - n)
                      for k in range(n)), Decimal(0))
        return sign * float((2 * j * (h.ln() + euler) - finite - rest) / pi)


def bessel_j(n):
    """J_n on an array (|x| <= 12)."""
    return lambda x: np.vectorize(lambda v: _bessel_jy("j", n, v), otypes=[np.float64])(as_float(x))


def bessel_y(n):
    """Y_n on an array (0 < x <= 12)."""
    return lambda x: np.vectorize(lambda v: _bessel_jy("y", n, v), otypes=[np.float64])(as_float(x))


def _bessel_k(n, x, scaled):
    """K_n(x) (`scaled`: K_n(x) e^x) of a whole n for one float 0 < x <= 12: the power series
    in 60-digit decimals of the double x (the sums cancel to e^-2x of their size, 10 digits at
    12); its limits at 0 and +inf (+inf and 0), NaN elsewhere."""
    from decimal import Decimal, localcontext
    if x == 0 or x == math.inf:
        return math.inf if x == 0 else 0.0
    if math.isnan(x) or not 0 < x <= 12:
        return math.nan
    n = abs(n)
    with localcontext() as context:
        context.prec = 60
        h = Decimal(x) / 2
        finite = sum((Decimal(math.factorial(n - k - 1)) / math.factorial(k) * (-1) ** k * h ** (2 * k - n)
                      for k in range(n)), Decimal(0))
        term = h ** n / math.factorial(n)
        harmonic_k, harmonic_nk = Decimal(0), sum((Decimal(1) / m for m in range(1, n + 1)), Decimal(0))
        i_n, rest = term, (harmonic_k + harmonic_nk) * term
        for k in range(1, 48):                       # (36^k / k!^2 below 1e-34 from k = 48)
            term = term * h * h / (k * (k + n))
            i_n += term
            harmonic_k += Decimal(1) / k
            harmonic_nk += Decimal(1) / (n + k)
            rest += (harmonic_k + harmonic_nk) * term
        euler = Decimal("0.57721566490153286060651209008240243104215933593992")
        sign = -1 if n % 2 else 1
        value = finite / 2 + sign * rest / 2 - sign * (h.ln() + euler) * i_n
        return float(value * Decimal(x).exp() if scaled else value)


def bessel_k(n, scaled=False):
    """K_n (K_n e^x) on an array (0 < x <= 12)."""
    return lambda x: np.vectorize(lambda v: _bessel_k(n, v, scaled), otypes=[np.float64])(as_float(x))


def bessel_iv(nu, scaled=False, top=12.0):
    """I_nu (I_nu e^-x) of a real order nu > -1 on an array (0 <= x <= top; NaN elsewhere, and
    inf at +inf): (x/2)^nu / Gamma(nu + 1) sum_k (x^2/4)^k / (k! (nu + 1)_k), its positive terms
    summed in float64 until they fall below 1e-18 of the sum."""
    def one(v):
        if v == math.inf:
            return 0.0 if scaled else math.inf
        if math.isnan(v) or not 0 <= v <= top:
            return math.nan
        u, term, total, k = v * v / 4, 1.0, 1.0, 0
        while term > 1e-18 * total:
            k += 1
            term *= u / (k * (nu + k))
            total += term
        value = total * (v / 2) ** nu / math.gamma(nu + 1)
        return value * math.exp(-v) if scaled else value
    return lambda x: np.vectorize(one, otypes=[np.float64])(as_float(x))


def bessel_kv(nu, scaled=False):
    """K_nu (K_nu e^x) of a real order on an array (0.05 <= x <= 12; NaN outside, with K's
    limits at 0 and +inf): int_0^inf e^(-x (cosh t - 1)) cosh(nu t) dt (times e^-x) by the
    trapezoid rule on [0, 40] at a step of 1/32 (its error there is below 1e-30), in float64."""
    t = np.arange(0.0, 40.0, 1.0 / 32)
    weights = np.full(t.shape, 1.0 / 32)
    weights[0] /= 2

    def one(v):
        if v == 0 or v == math.inf:
            return math.inf if v == 0 else 0.0
        if math.isnan(v) or not 0.05 <= v <= 12:
            return math.nan
        with np.errstate(under="ignore"):
            value = float(np.sum(weights * np.exp(-2 * v * np.sinh(t / 2) ** 2) * np.cosh(nu * t)))
        return value if scaled else value * math.exp(-v)
    return lambda x: np.vectorize(one, otypes=[np.float64])(as_float(x))


def bessel_jy(kind, nu):
    """J_nu or Y_nu of a real order on an array (0.05 <= x <= 12; NaN outside, 0 / -inf at 0) by
    Schlaefli's integrals: pi J = int_0^pi cos(nu s - x sin s) ds - sin(nu pi) int_0^inf e^(-x sinh t
    - nu t) dt, pi Y = int_0^pi sin(x sin s - nu s) ds - int_0^inf (e^(nu t) + e^(-nu t) cos(nu pi))
    e^(-x sinh t) dt, by Gauss-Legendre's 16 nodes on 64 panels of [0, pi] and 480 of [0, 16]."""
    nodes, weights = np.polynomial.legendre.leggauss(16)

    def panels(end, count):
        edges = np.linspace(0.0, end, count + 1)
        half = np.diff(edges)[:, None] / 2
        return ((edges[:-1, None] + half) + half * nodes).ravel(), (half * weights).ravel()
    s, ws = panels(math.pi, 64)
    t, wt = panels(16.0, 480)

    def one(v):
        if v == 0:
            return 0.0 if kind == "j" else -math.inf
        if math.isnan(v) or not 0.05 <= v <= 12:
            return math.nan
        with np.errstate(under="ignore"):
            decay = np.exp(-v * np.sinh(t))
            if kind == "j":
                total = np.sum(ws * np.cos(nu * s - v * np.sin(s)))
                total -= math.sin(nu * math.pi) * np.sum(wt * decay * np.exp(-nu * t))
            else:
                total = np.sum(ws * np.sin(v * np.sin(s) - nu * s))
                total -= np.sum(wt * decay * (np.exp(nu * t) + np.exp(-nu * t) * math.cos(nu * math.pi)))
        return float(total / math.pi)
    return lambda x: np.vectorize(one, otypes=[np.float64])(as_float(x))


def spherical(kind, n):
    """z_n of kind "j", "y", "i" or "k" on an array (0 < x <= 12; NaN beyond, their values at 0 and
    +-inf):
    j_n and i_n by their power series, y_n upwards from -cos(x)/x and -cos(x)/x^2 - sin(x)/x, k_n
    by its closed form, in float64."""
    def one(v):
        if v == 0:
            at_zero = 1.0 if n == 0 else 0.0
            return {"j": at_zero, "i": at_zero, "y": -math.inf, "k": math.inf}[kind]
        if math.isinf(v):                               # (k_n is complex below 0; i_n has n's parity)
            if kind == "i":
                return -math.inf if v < 0 and n % 2 else math.inf
            return math.nan if kind == "k" and v < 0 else 0.0
        if math.isnan(v) or not 0 < v <= 12:
            return math.nan
        if kind in "ji":
            sign = -1.0 if kind == "j" else 1.0
            term = v ** n / math.prod(range(1, 2 * n + 2, 2))
            total = term
            for k in range(1, 80):
                term *= sign * v * v / (2 * k * (2 * n + 2 * k + 1))
                total += term
            return total
        if kind == "k":
            return math.pi / 2 * math.exp(-v) / v * sum(math.factorial(n + k) / (math.factorial(k)
                                                         * math.factorial(n - k)) / (2 * v) ** k
                                                         for k in range(n + 1))
        before, now = -math.cos(v) / v, -math.cos(v) / v ** 2 - math.sin(v) / v
        for m in range(1, n):
            before, now = now, (2 * m + 1) / v * now - before
        return before if n == 0 else now
    return lambda x: np.vectorize(one, otypes=[np.float64])(as_float(x))


_KELVIN = {"ber": ("b", 0, 0, False), "bei": ("b", 0, 0, True), "ker": ("k", 0, 0, False),
           "kei": ("k", 0, 0, True), "berp": ("b", 1, -1, False), "beip": ("b", 1, -1, True),
           "kerp": ("k", 1, -1, False), "keip": ("k", 1, -1, True)}


def kelvin(name):
    """Kelvin's function `name` (ber .. keip) on an array (|x| <= 8; NaN beyond, their limits at 0
    and +inf) in Python's complex numbers: ber_n + i bei_n = sum_k (-1)^k (x c / 2)^(n+2k) / (k!
    (n+k)!), c = e^(3 pi i/4); ker_n + i kei_n = (-i)^n K_n(x e^(i pi/4)) by K_n's series with its
    logarithm; berp = Re(e^(-i pi/4) b_1), and so on."""
    family, n, turn, imag = _KELVIN[name]
    at_zero = {"ber": 1.0, "bei": 0.0, "ker": math.inf, "kei": -math.pi / 4, "berp": 0.0, "beip": 0.0,
               "kerp": -math.inf, "keip": 0.0}[name]

    def one(v):
        if math.isnan(v) or (family == "k" and v < 0):
            return math.nan
        if v == 0:
            return at_zero
        if math.isinf(v):
            return 0.0 if family == "k" and v > 0 else math.nan
        if abs(v) > 8:
            return math.nan
        a = abs(v)
        z = a * cmath.exp(0.25j * math.pi)
        u = z * z / 4

        def i_series(m):
            return sum((z / 2) ** m * u ** k / math.factorial(k) / math.factorial(m + k) for k in range(60))
        if family == "b":
            value = 1j ** n * i_series(n)
        else:
            harmonic = [sum(1.0 / j for j in range(1, k + 1)) for k in range(62)]
            finite = sum((z / 2) ** (2 * k - n) * math.factorial(n - k - 1) / math.factorial(k) * (-1) ** k
                         for k in range(n)) / 2
            rest = sum((harmonic[k] + harmonic[n + k] - 2 * 0.5772156649015329) * (z / 2) ** n * u ** k
                       / (math.factorial(k) * math.factorial(n + k)) for k in range(60))
            logged = (-1) ** (n + 1) * cmath.log(z / 2) * i_series(n)
            value = (-1j) ** n * (finite + logged + (-1) ** n * rest / 2)
        value *= cmath.exp(0.25j * math.pi * turn)
        part = value.imag if imag else value.real
        return -part if family == "b" and v < 0 and n % 2 else part
    return lambda x: np.vectorize(one, otypes=[np.float64])(as_float(x))


def hyp0f1(b):
    """0F1(; b; z) on an array (|z| <= 40; NaN beyond, 1 at 0) by its series in float64 (for z < 0
    its terms reach e^(2 sqrt|z|), 3e5 at 40: 1e-11 of a value near 1)."""
    def one(v):
        if math.isnan(v) or abs(v) > 40:
            return math.nan
        term = total = 1.0
        for k in range(200):
            term *= v / ((b + k) * (k + 1))
            total += term
        return total
    return lambda z: np.vectorize(one, otypes=[np.float64])(as_float(z))


def _log_gamma(x):
    """log|Gamma(x)| for one float, inf at the poles (where math.lgamma raises)."""
    try:
        return math.lgamma(x)
    except ValueError:
        return math.inf


def _gamma(x):
    """Gamma(x) for one float, with SciPy's values where math.gamma raises: +-inf at +-0, NaN at
    the negative integers and -inf, inf past its overflow."""
    if x == 0:
        return math.copysign(math.inf, x)
    try:
        return math.gamma(x)
    except ValueError:
        return math.nan
    except OverflowError:
        return math.inf


def gamma(x):
    """Gamma(x), elementwise."""
    return np.vectorize(_gamma, otypes=[np.float64])(as_float(x))


def _gammasgn(x):
    """The sign of Gamma(x) for one float, SciPy's: -1 at -0, NaN at the negative integers and -inf."""
    if math.isnan(x) or x == -math.inf or (x < 0 and x == math.floor(x)):
        return math.nan
    if x == 0 or x == math.inf:
        return math.copysign(1.0, x)
    return -1.0 if x < 0 and math.floor(-x) % 2 == 0 else 1.0


def gammasgn(x):
    """The sign of Gamma(x), elementwise."""
    return np.vectorize(_gammasgn, otypes=[np.float64])(as_float(x))


def _rgamma(x):
    """1 / Gamma(x) for one float: 0 at the poles and at +-inf (-0 at -0), 1 / math.gamma elsewhere."""
    if math.isnan(x):
        return math.nan
    if math.isinf(x) or (x <= 0 and x == math.floor(x)):
        return 0.0 * math.copysign(1.0, x) if x == 0 else 0.0
    try:
        return 1.0 / math.gamma(x)
    except OverflowError:
        return 0.0 if x > 0 else math.copysign(math.inf, _gammasgn(x))


def rgamma(x):
    """1 / Gamma(x), elementwise."""
    return np.vectorize(_rgamma, otypes=[np.float64])(as_float(x))


def _beta(a, b):
    """B(a, b) for one pair of floats: signed e^betaln; inf at a pole of a or b, 0 where only a + b is one."""
    signs = [_gammasgn(v) for v in (a, b, a + b)]
    return math.prod(1.0 if math.isnan(s) else s for s in signs) * math.exp(_betaln(a, b))


def beta(a, b):
    """B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b), broadcast."""
    return np.vectorize(_beta, otypes=[np.float64])(*as_float(a, b))


_ORTHOGONAL = {   # p_1 and p_(k+1) from (k, x, p_k, p_(k-1)), in gengrad's order of operations
    "eval_legendre": (lambda x: x, lambda k, x, p, q: (x * p) * ((2 * k + 1) / (k + 1)) - q * (k / (k + 1))),
    "eval_chebyt": (lambda x: x, lambda k, x, p, q: (x * p) * 2.0 - q),
    "eval_chebyu": (lambda x: 2.0 * x, lambda k, x, p, q: (x * p) * 2.0 - q),
    "eval_hermite": (lambda x: 2.0 * x, lambda k, x, p, q: (x * p) * 2.0 - q * (2.0 * k)),
    "eval_hermitenorm": (lambda x: x, lambda k, x, p, q: x * p - q * k),
    "eval_laguerre": (lambda x: 1.0 - x,
                      lambda k, x, p, q: ((2 * k + 1) * p - x * p) / (k + 1) - q * (k / (k + 1))),
}


def orthogonal(name, n):
    """The orthogonal polynomial `name` (scipy.special.eval_<name>) of degree n, elementwise, by
    its three-term recurrence in floats (NaN stays NaN at degree 0)."""
    first, step = _ORTHOGONAL[name]

    def one(x):
        if n == 0:
            return math.nan if math.isnan(x) else 1.0
        previous, current = 1.0, first(x)
        for k in range(1, n):
            previous, current = current, step(k, x, current, previous)
        return current
    return lambda x: np.vectorize(one, otypes=[np.float64])(as_float(x))


def _jacobi_float(n, a, b, x):
    """P_n^(a, b)(x) by its recurrence in float64 scalars, in gengrad's order of operations."""
    s = a + b
    previous, current = np.float64(1.0), (a + 1.0) + (s + 2.0) * (x - 1.0) * 0.5
    for k in range(1, n):
        c = s + 2 * k
        left = ((c + 1.0) * ((c + 2.0) * c * x + (a * a - b * b))) * current
        right = ((a + k) * (b + k) * (c + 2.0)) * previous * 2.0
        previous, current = current, (left - right) / ((s + (k + 1)) * c * (2 * (k + 1)))
    return current


def _with_parameters_float(name, n, *args):
    *parameters, x = (np.float64(v) for v in args)
    if name == "eval_gegenbauer":
        (a,) = parameters
        previous, current = np.float64(1.0), (x * a) * 2.0
        for k in range(1, n):
            previous, current = current, (((x * current) * (a + k)) * (2 / (k + 1))
                                          - previous * ((a * 2.0 + (k - 1)) / (k + 1)))
        return current
    if name == "eval_genlaguerre":
        (a,) = parameters
        previous, current = np.float64(1.0), (a + 1.0) - x
        for k in range(1, n):
            previous, current = current, ((current * (a + (2 * k + 1)) - x * current) * (1 / (k + 1))
                                          - previous * ((a + k) * (1 / (k + 1))))
        return current
    if name == "eval_jacobi":
        return _jacobi_float(n, *parameters, x)
    p, q = parameters                                      # eval_sh_jacobi
    ratio = np.float64(1.0)
    for j in range(1, n + 1):
        ratio = ratio * (j / (p + (n - 1 + j)))
    return _jacobi_float(n, p - q, q - 1.0, x * 2.0 - 1.0) * ratio


def orthogonal_with(name, n):
    """The polynomial `name` with parameters (eval_gegenbauer(n, alpha, x), ...) of degree n >= 1,
    elementwise and broadcast, by its recurrence in floats as gengrad orders it."""
    return lambda *args: np.vectorize(lambda *v: _with_parameters_float(name, n, *v),
                                      otypes=[np.float64])(*[as_float(a) for a in args])


def orthogonal_mapped(name, n):
    """The shifted and rescaled ones: T_n(2x - 1), 2 T_n(x / 2), ... from their parents'."""
    parent, scale, shift, factor = {"eval_sh_legendre": ("eval_legendre", 2.0, -1.0, 1.0),
                                    "eval_sh_chebyt": ("eval_chebyt", 2.0, -1.0, 1.0),
                                    "eval_sh_chebyu": ("eval_chebyu", 2.0, -1.0, 1.0),
                                    "eval_chebyc": ("eval_chebyt", 0.5, 0.0, 2.0),
                                    "eval_chebys": ("eval_chebyu", 0.5, 0.0, 1.0)}[name]
    return lambda x: orthogonal(parent, n)(as_float(x) * scale + shift) * factor


def _bernoulli_numbers(count):
    """B_0 .. B_count as fractions (B_1 = -1/2)."""
    numbers = [Fraction(1)]
    for m in range(1, count + 1):
        numbers.append(-sum(math.comb(m + 1, j) * numbers[j] for j in range(m)) / (m + 1))
    return numbers


_ZETA_BERNOULLI = [float(b / math.factorial(2 * j)) for j, b in enumerate(_bernoulli_numbers(40)[2::2], 1)]


def _hurwitz(s, q):
    """zeta(s, q) for one pair of floats (SciPy's edges; q > 0 or whole): Euler-Maclaurin from
    q + 15 on with 20 Bernoulli terms, in floats."""
    if math.isnan(s) or math.isnan(q) or s < 1:
        return math.nan
    if s == 1 or (q <= 0 and q == math.floor(q)):
        return math.inf
    if q == math.inf:
        return 0.0
    if s == math.inf:
        return 1.0 if q == 1 else (0.0 if q > 1 else math.inf)
    return _euler_maclaurin(s, q)


def _euler_maclaurin(s, q):
    total = sum((q + k) ** -s for k in range(15))
    a = q + 15
    total += a ** (1 - s) / (s - 1) + a ** -s / 2
    term = s * a ** (-s - 1)
    for j, b in enumerate(_ZETA_BERNOULLI[:20], 1):
        if j > 1:
            term *= (s + 2 * j - 3) * (s + 2 * j - 2) / (a * a)
        total += b * term
    return total


def _riemann(s):
    """zeta(s) for one float: Euler-Maclaurin from s = -1/2 on (valid above -39), the reflection
    with math.gamma below, SciPy's edges."""
    if math.isnan(s) or s == -math.inf:
        return math.nan
    if s == 1:
        return math.inf
    if s == math.inf:
        return 1.0
    if s >= -0.5:
        return _euler_maclaurin(s, 1.0)
    if s < -170:
        return math.nan
    reflection = (2 * math.pi) ** s / math.pi * math.sin(math.pi * s / 2) * math.gamma(1 - s)
    return reflection * _euler_maclaurin(1 - s, 1.0)


def zeta(s, q=None):
    """zeta(s) (Riemann's) or zeta(s, q) (Hurwitz's), elementwise and broadcast."""
    if q is None:
        return np.vectorize(_riemann, otypes=[np.float64])(as_float(s))
    return np.vectorize(_hurwitz, otypes=[np.float64])(*as_float(s, q))


def _exp1(x):
    """E1(x) for one float (SciPy's edges: inf at 0, NaN below): the series up to 2, else the
    continued fraction e^-x / (x + 1 - 1/(x + 3 - 4/(...))) to 200 levels."""
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return math.inf
    if x == math.inf:
        return 0.0
    if x <= 2:
        term, total = 1.0, 0.0
        for k in range(1, 60):
            term *= -x / k
            total -= term / k
        return -0.5772156649015329 - math.log(x) + total
    f = x + 401
    for k in range(200, 0, -1):
        f = x + 2 * k - 1 - k * k / f
    return math.exp(-x) / f


def exp1(x):
    """E1(x), elementwise."""
    return np.vectorize(_exp1, otypes=[np.float64])(as_float(x))


def _expi(x):
    """Ei(x) for one float: -E1(-x) below 0, the series (positive terms) above, SciPy's edges."""
    if math.isnan(x):
        return math.nan
    if x < 0:
        return -_exp1(-x)
    if x == 0:
        return -math.inf
    if x > 700:
        return math.inf if x > 715 else math.exp(x) / x * sum(math.factorial(k) / x ** k for k in range(30))
    term, total, k = 1.0, 0.0, 0
    while k < 5 or term > 1e-18 * total:
        k += 1
        term *= x / k
        total += term / k
    return 0.5772156649015329 + math.log(x) + total


def expi(x):
    """Ei(x), elementwise."""
    return np.vectorize(_expi, otypes=[np.float64])(as_float(x))


def _erfi(x, dawson):
    """erfi(x) (Dawson's D(x) with `dawson`) for one float: the positive series 2/sqrt(pi) sum_k
    x^(2k+1) / (k! (2k+1)) below 8 (D: times sqrt(pi)/2 e^(-x^2)), beyond D's expansion."""
    if math.isnan(x):
        return math.nan
    if abs(x) > 8:
        if math.isinf(x):
            return math.copysign(0.0 if dawson else math.inf, x)
        r, term, total = 1 / (2 * x * x), 1.0, 1.0
        for k in range(1, 40):
            term *= (2 * k - 1) * r
            total += term
        d = total / (2 * x)
        if dawson:
            return d
        return math.inf if abs(x) > 26.6 else 2 / math.sqrt(math.pi) * math.exp(x * x) * d
    term = total = x
    for k in range(1, 200):
        term *= x * x / k
        total += term / (2 * k + 1)
    return total * math.exp(-x * x) if dawson else 2 / math.sqrt(math.pi) * total


def erfi(x):
    """erfi(x), elementwise."""
    return np.vectorize(lambda v: _erfi(v, False), otypes=[np.float64])(as_float(x))


def dawsn(x):
    """Dawson's integral, elementwise."""
    return np.vectorize(lambda v: _erfi(v, True), otypes=[np.float64])(as_float(x))


_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(24)


def _integral(f, x):
    """int_0^x f(t) dt for one finite float: Gauss-Legendre's 24 nodes on panels of width at
    most 1/(2 (1 + |x|)) (exact to double precision for these entire integrands, sin(pi t^2 / 2)
    turning pi |x| radians per unit at |x|)."""
    panels = max(1, math.ceil(abs(x) * 2 * (1 + abs(x))))
    total = 0.0
    for i in range(panels):
        a, b = x * i / panels, x * (i + 1) / panels
        t = (a + b) / 2 + (b - a) / 2 * _NODES
        total += (b - a) / 2 * float(np.dot(_WEIGHTS, f(t)))
    return total


def _trig_integral(x, kind):
    """Si, ci, Shi, Chi, Fresnel's S or C at one float, by quadrature of its integrand; SciPy's
    edges (and the limits at +-inf: ci(-inf) = 0, the real part of Ci there)."""
    if math.isnan(x):
        return math.nan
    odd = kind in ("si", "shi", "s", "c")
    if math.isinf(x):
        limit = {"si": math.pi / 2, "ci": 0.0, "shi": math.inf, "chi": math.inf, "s": 0.5, "c": 0.5}[kind]
        return math.copysign(limit, x) if odd else limit
    if x == 0 and kind in ("ci", "chi"):
        return -math.inf
    a = abs(x)
    integrands = {"si": lambda t: np.sinc(t / math.pi),
                  "shi": lambda t: np.where(t == 0, 1.0, np.sinh(t) / t),
                  "ci": lambda t: np.where(t == 0, 0.0, (np.cos(t) - 1) / t),
                  "chi": lambda t: np.where(t == 0, 0.0, (np.cosh(t) - 1) / t),
                  "s": lambda t: np.sin(math.pi / 2 * t * t), "c": lambda t: np.cos(math.pi / 2 * t * t)}
    with np.errstate(divide="ignore", invalid="ignore"):
        value = _integral(integrands[kind], a)
    if kind in ("ci", "chi"):
        value += 0.5772156649015329 + math.log(a)
    return math.copysign(value, x) if odd else value


def _pair_of(kinds):
    def pair(x):
        x = as_float(x)
        return tuple(np.vectorize(lambda v, k=k: _trig_integral(v, k), otypes=[np.float64])(x) for k in kinds)
    return pair


sici, shichi, fresnel = _pair_of(("si", "ci")), _pair_of(("shi", "chi")), _pair_of(("s", "c"))
"""(Si, ci), (Shi, Chi) and Fresnel's (S, C), elementwise."""


def airy(x):
    """(Ai, Ai', Bi, Bi') elementwise by their Maclaurin series in float64 (|x| <= 5, where the
    sums cancel to 1e-13 at most; NaN beyond but for the limits at +inf), Ai(0) and Ai'(0) from
    math.gamma."""
    c1, c2 = 1 / (3 ** (2 / 3) * math.gamma(2 / 3)), 1 / (3 ** (1 / 3) * math.gamma(1 / 3))

    def one(v):
        if v == math.inf:                               # (their limits; NaN at -inf, where they oscillate)
            return 0.0, 0.0, math.inf, math.inf
        if math.isnan(v) or abs(v) > 5:
            return (math.nan,) * 4
        f = g = df = dg = 0.0
        a = b = 1.0
        for k in range(60):
            f, g = f + a * v ** (3 * k), g + b * v ** (3 * k + 1)
            df += a * 3 * k * v ** (3 * k - 1) if k else 0.0
            dg += b * (3 * k + 1) * v ** (3 * k)
            a /= (3 * k + 2) * (3 * k + 3)
            b /= (3 * k + 3) * (3 * k + 4)
        root3 = math.sqrt(3)
        return c1 * f - c2 * g, c1 * df - c2 * dg, root3 * (c1 * f + c2 * g), root3 * (c1 * df + c2 * dg)
    x = as_float(x)
    values = [one(float(v)) for v in x.ravel()]
    return tuple(np.array([v[i] for v in values], dtype=np.float64).reshape(x.shape) for i in range(4))


def airye(x):
    """airye's four elementwise: airy's Maclaurin values times e^(+-zeta), zeta = 2/3 x^(3/2), for 0
    <= x <= 5; NaN and Bi, Bi' below 0 (NaN beyond 5, as airy's)."""
    x = as_float(x)
    ai, aip, bi, bip = airy(x)
    with np.errstate(invalid="ignore"):
        zeta = np.where(x >= 0, 2 / 3 * np.abs(x) ** 1.5, 0.0)
    below, inf = x < 0, x == np.inf                      # (+inf: their limits 0, -inf, 0, inf)
    with np.errstate(invalid="ignore"):
        values = (np.where(below, np.nan, ai * np.exp(zeta)), np.where(below, np.nan, aip * np.exp(zeta)),
                  bi * np.exp(-zeta), bip * np.exp(-zeta))
    return tuple(np.where(inf, limit, v) for v, limit in zip(values, (0.0, -np.inf, 0.0, np.inf)))


def _omega(x):
    """Wright's omega at one float: bisection on w + log w = x in log w, between min(x, 1) - 1 (w < 1
    below x = 1, and w >= 1 above) and log max(1, x) + 1, then Newton's steps; e^x below -700 (0
    at -inf), inf at inf."""
    if math.isnan(x):
        return math.nan
    if x == math.inf:
        return math.inf
    if x < -700:
        return math.exp(x)
    low, high = min(x, 1.0) - 1.0, math.log(max(1.0, x)) + 1.0
    for _ in range(200):
        middle = (low + high) / 2
        if math.exp(middle) + middle > x:
            high = middle
        else:
            low = middle
    m = (low + high) / 2
    for _ in range(3):                                   # Newton's steps in m = log w
        m -= (math.exp(m) + m - x) / (math.exp(m) + 1)
    return math.exp(m)


def wrightomega(x):
    """omega(x), elementwise."""
    return np.vectorize(_omega, otypes=[np.float64])(as_float(x))


def _lambertw(x, k):
    """W_k(x) at one float: bisection on w - x e^-w (sign-flipped on k = -1, where it falls past
    the root) between -1 and 1 + log max(1, x) (k = 0) or -1 - 2 |log(-x)| and -1 (k = -1), then
    Newton's steps where they stay in the bracket; NaN off the real branches."""
    if math.isnan(x) or x < -1 / math.e - 1e-16 or (k == -1 and x > 0):
        return math.nan
    if x == 0:
        return x if k == 0 else -math.inf
    if x == math.inf:
        return math.inf
    sign = 1.0 if k == 0 else -1.0
    low, high = (-1.0, 1.0 + math.log(max(1.0, x))) if k == 0 else (-1.0 + 2 * math.log(-x), -1.0)
    for _ in range(200):
        middle = (low + high) / 2
        if sign * (middle - x * math.exp(-middle)) < 0:
            low = middle
        else:
            high = middle
    w = (low + high) / 2
    for _ in range(3):
        slope = 1 + x * math.exp(-w)
        if slope != 0 and low <= w - (w - x * math.exp(-w)) / slope <= high:
            w -= (w - x * math.exp(-w)) / slope
    return w


def lambertw(x, k=0):
    """W_k(x) (its real branches, k = 0 or -1), elementwise."""
    return np.vectorize(lambda v: _lambertw(v, k), otypes=[np.float64])(as_float(x))


def _owens_t(h, a):
    """Owen's T at one pair of floats by quadrature of its integrand (SciPy's edges: 0 at |h| =
    inf, Phi(-|h|) / 2 at a = +-inf)."""
    if math.isnan(h) or math.isnan(a):
        return math.nan
    if math.isinf(h):
        return 0.0
    if math.isinf(a):
        return math.copysign(math.erfc(abs(h) / math.sqrt(2)) / 4, a)
    value = _integral(lambda t: np.exp(-h * h * (1 + t * t) / 2) / (1 + t * t), abs(a)) / (2 * math.pi)
    return math.copysign(value, a)


def owens_t(h, a):
    """T(h, a), elementwise with broadcasting."""
    return np.vectorize(_owens_t, otypes=[np.float64])(*as_float(h, a))


def _kolmogorov(x):
    """The Kolmogorov survival function at one float: 2 sum (-1)^(k-1) e^(-2 k^2 x^2) (to 100 terms)
    from 0.5 on, 1 - sqrt(2 pi) / x sum e^(-(2k-1)^2 pi^2 / (8 x^2)) below; 1 at and below 0."""
    if math.isnan(x):
        return math.nan
    if x <= 0:
        return 1.0
    if x >= 0.5:
        return 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * x * x) for k in range(1, 100))
    theta = sum(math.exp(-(2 * k - 1) ** 2 * math.pi ** 2 / (8 * x * x)) for k in range(1, 20))
    return 1 - math.sqrt(2 * math.pi) / x * theta


def kolmogorov(x):
    """kolmogorov(x), elementwise."""
    return np.vectorize(_kolmogorov, otypes=[np.float64])(as_float(x))


def _kolmogi(p):
    """x with kolmogorov(x) = p by 100 halvings of [0, 40]; inf at 0, 0 at 1, NaN outside [0, 1]."""
    if math.isnan(p) or not 0 <= p <= 1:
        return math.nan
    if p == 0:
        return math.inf
    low, high = 0.0, 40.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if _kolmogorov(middle) > p else (low, middle)
    return (low + high) / 2


def kolmogi(p):
    """kolmogi(p), elementwise."""
    return np.vectorize(_kolmogi, otypes=[np.float64])(as_float(p))



def _tukey(x, lam):
    """Tukey's lambda CDF: 200 halvings of F in (0, 1) on (F^lam - (1 - F)^lam) / lam = x (log(F / (1 -
    F)) at lam = 0), in floats; 0 and 1 beyond a support's end, NaN at NaN."""
    if math.isnan(x) or math.isnan(lam):
        return math.nan
    if lam > 0 and abs(x) >= 1 / lam:
        return 0.0 if x < 0 else 1.0
    low, high = 0.0, 1.0
    for _ in range(200):
        f = (low + high) / 2
        if f in (low, high):
            break
        q = math.log(f / (1 - f)) if lam == 0 else (f ** lam - (1 - f) ** lam) / lam
        low, high = (f, high) if q < x else (low, f)
    return (low + high) / 2


def tklmbda(lam):
    """tklmbda(x, lam), elementwise in x."""
    return lambda x: np.vectorize(lambda t: _tukey(t, lam), otypes=[np.float64])(as_float(x))


def _smirnov(n, d):
    """P(D_n^+ >= d) by Birnbaum and Tingey's sum in exact fractions: 1 at 0, 0 at 1, NaN outside."""
    if math.isnan(d) or not 0 <= d <= 1:
        return math.nan
    if d in (0, 1):
        return 1.0 - d
    e = Fraction(d)
    total = sum(math.comb(n, j) * (e + Fraction(j, n)) ** (j - 1) * (1 - e - Fraction(j, n)) ** (n - j)
                for j in range(n + 1) if 1 - e - Fraction(j, n) > 0)
    return float(e * total)


def smirnov(n):
    """smirnov(n, d), elementwise in d."""
    return lambda d: np.vectorize(lambda t: _smirnov(n, t), otypes=[np.float64])(as_float(d))


def smirnovi(n):
    """d with smirnov(n, d) = p by 100 halvings of [0, 1], elementwise; NaN outside [0, 1]."""
    def one(p):
        if math.isnan(p) or not 0 <= p <= 1:
            return math.nan
        low, high = 0.0, 1.0
        for _ in range(100):
            middle = (low + high) / 2
            low, high = (middle, high) if _smirnov(n, middle) > p else (low, middle)
        return (low + high) / 2
    return lambda p: np.vectorize(one, otypes=[np.float64])(as_float(p))

def _huber(d, r):
    if math.isnan(d) or math.isnan(r):
        return math.nan
    if d < 0:
        return math.inf
    return r * r / 2 if abs(r) <= d else d * (abs(r) - d / 2)


def huber(d, r):
    """Huber's function of delta and r, broadcast."""
    return np.vectorize(_huber, otypes=[np.float64])(*as_float(d, r))


def _pseudo_huber(d, r):
    if math.isnan(d) or math.isnan(r) or d == math.inf:
        return math.nan
    if d < 0 or abs(r) == math.inf:
        return math.inf if d != 0 else math.nan
    if d == 0:
        return 0.0
    return d * r * r / (math.hypot(d, r) + d)


def pseudo_huber(d, r):
    """delta^2 (sqrt(1 + (r / delta)^2) - 1), broadcast."""
    return np.vectorize(_pseudo_huber, otypes=[np.float64])(*as_float(d, r))


def _elliptic(m, second):
    """K(m) (E(m) with `second`) for one float by the arithmetic-geometric mean in floats, with
    SciPy's edges: K(1) = inf, E(1) = 1, NaN above 1, K(-inf) = 0, E(-inf) = inf."""
    if math.isnan(m) or m > 1:
        return math.nan
    if m == 1:
        return 1.0 if second else math.inf
    if m == -math.inf:
        return math.inf if second else 0.0
    a, b, total = 1.0, math.sqrt(1 - m), m / 2
    for n in range(1, 30):                      # (to a_n = b_n in the last bit, or nearly)
        total += ((a - b) / 2) ** 2 * 2 ** (n - 1)
        a, b = (a + b) / 2, math.sqrt(a * b)
    k = math.pi / (2 * a)
    return k * (1 - total) if second else k


def ellipk(m):
    """K(m), elementwise."""
    return np.vectorize(lambda v: _elliptic(v, False), otypes=[np.float64])(as_float(m))


def ellipe(m):
    """E(m), elementwise."""
    return np.vectorize(lambda v: _elliptic(v, True), otypes=[np.float64])(as_float(m))


def _elementwise_of(scalar):
    """An elementwise, broadcasting reference from a function of floats."""
    return lambda *arrays: np.vectorize(scalar, otypes=[np.float64])(*[as_float(a) for a in arrays])


def _exprel(x):
    if math.isnan(x):
        return math.nan
    if math.isinf(x):
        return math.inf if x > 0 else 0.0
    return 1.0 if x == 0 else math.expm1(x) / x


def _powm1(x, y):
    if x == 1 or y == 0:
        return 0.0
    if math.isnan(x) or math.isnan(y) or (x < 0 and (math.isinf(y) or y != round(y))):
        return math.nan
    try:
        return x ** y - 1
    except ZeroDivisionError:                   # 0 ** negative
        return math.copysign(math.inf, x) if y % 2 == 1 else math.inf
    except OverflowError:
        return math.inf if x > 0 or y % 2 == 0 else -math.inf


def _boxcox(x, lam, shift=0.0):
    x += shift
    if math.isnan(x) or math.isnan(lam) or math.isinf(lam) or x < 0:
        return math.nan
    if x == 0:
        return -1 / lam if lam > 0 else -math.inf
    if x == math.inf:
        return math.inf if lam >= 0 else -1 / lam
    return math.log(x) if lam == 0 else (x ** lam - 1) / lam


def _inv_boxcox(y, lam, shift=0.0):
    if math.isnan(y) or math.isnan(lam) or math.isinf(lam):
        return math.nan
    if lam == 0:
        return math.exp(y) - shift
    base = 1 + lam * y
    if base < 0 or math.isnan(base):
        return math.nan
    if base == 0:
        return (0.0 if lam > 0 else math.inf) - shift
    if math.isinf(base):
        return (math.inf if lam > 0 else 0.0) - shift
    return base ** (1 / lam) - shift


def _degrees(x, function):
    """function(x degrees), x reduced modulo 360 exactly (fractions)."""
    if not math.isfinite(x):
        return math.nan
    return function(float(Fraction(x) % 360) * math.pi / 180)


def _agm(a, b):
    if math.isnan(a) or math.isnan(b) or a * b < 0:
        return math.nan
    if a == 0 or b == 0:
        return 0.0 if math.isfinite(a) and math.isfinite(b) else math.nan
    sign = -1.0 if a < 0 else 1.0
    a, b = abs(a), abs(b)
    if math.isinf(a) or math.isinf(b):
        return sign * math.inf
    for _ in range(60):
        a, b = (a + b) / 2, math.sqrt(a) * math.sqrt(b)
    return sign * a


exprel = _elementwise_of(_exprel)
powm1 = _elementwise_of(_powm1)
boxcox = _elementwise_of(_boxcox)
boxcox1p = _elementwise_of(lambda x, lam: _boxcox(x, lam, 1.0))
inv_boxcox = _elementwise_of(_inv_boxcox)
inv_boxcox1p = _elementwise_of(lambda y, lam: _inv_boxcox(y, lam, 1.0))
sindg = _elementwise_of(lambda x: _degrees(x, math.sin))
cosdg = _elementwise_of(lambda x: _degrees(x, math.cos))
tandg = _elementwise_of(lambda x: math.inf if math.isfinite(x) and Fraction(x) % 180 == 90
                        else _degrees(x, math.tan))
cotdg = _elementwise_of(lambda x: math.inf if math.isfinite(x) and Fraction(x) % 180 == 0
                        else _degrees(x, lambda r: 1 / math.tan(r)))
agm = _elementwise_of(_agm)


def cosm1(x):
    """cos(x) - 1, elementwise."""
    return np.cos(as_float(x)) - 1


def exp10(x):
    """10^x, elementwise."""
    with np.errstate(over="ignore"):
        return 10.0 ** as_float(x)


def radian(d, m, s):
    """The angle of d degrees, m minutes, s seconds in radians."""
    d, m, s = as_float(d, m, s)
    return (d + m / 60 + s / 3600) * math.pi / 180


def zetac(x):
    """zeta(x) - 1, elementwise."""
    return zeta(x) - 1


def loggamma(x):
    """log Gamma(x) for x >= 0, NaN below."""
    x = as_float(x)
    with np.errstate(invalid="ignore"):
        return np.where(x < 0, np.nan, np.where(x == 0, np.inf, gammaln(np.where(x <= 0, 1.0, x))))


def ellipkm1(p):
    """K(1 - p), elementwise."""
    return ellipk(1 - as_float(p))


def _betaln(a, b):
    """log|B(a, b)| for one pair of floats: B(a, inf) = 0 for a > 0, else the gammalns."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if math.inf in (a, b) and min(a, b) > 0:
        return -math.inf
    return _log_gamma(a) + _log_gamma(b) - _log_gamma(a + b)


def betaln(a, b):
    """log|B(a, b)| = log|Gamma(a)| + log|Gamma(b)| - log|Gamma(a + b)|, broadcast."""
    return np.vectorize(_betaln, otypes=[np.float64])(*as_float(a, b))


def _gammainc(a, x, upper):
    """P(a, x) (Q = 1 - P with `upper`) for one pair of floats, with SciPy's edge values: below
    x = a + 1 the series of P, above it the continued fraction of Q (modified Lentz), each
    times x^a e^-x / Gamma(a) from math.lgamma."""
    if math.isnan(a) or math.isnan(x) or a < 0 or x < 0 or (a == 0 and x == 0) or a == x == math.inf:
        return math.nan
    if x == math.inf or a == 0:
        p = 1.0
    elif x == 0 or a == math.inf:
        p = 0.0
    else:
        prefix = math.exp(a * math.log(x) - x - math.lgamma(a))
        if x < a + 1:
            term = total = 1 / a
            n = 1
            while term > 1e-17 * total:
                term *= x / (a + n)
                total += term
                n += 1
            p = prefix * total
        else:
            b, c, d = x + 1 - a, 1e300, 1 / (x + 1 - a)
            h, i = d, 1
            while True:
                an = -i * (i - a)
                b += 2
                d = 1 / (an * d + b)
                c = b + an / c
                h *= d * c
                i += 1
                if abs(d * c - 1) < 1e-16:
                    break
            q = prefix * h
            return q if upper else 1 - q
    return 1 - p if upper else p


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x), broadcast."""
    return np.vectorize(lambda a, x: _gammainc(a, x, False), otypes=[np.float64])(*as_float(a, x))


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), broadcast."""
    return np.vectorize(lambda a, x: _gammainc(a, x, True), otypes=[np.float64])(*as_float(a, x))


def _betainc(a, b, x, upper):
    """I_x(a, b) (1 - I with `upper`) for one triple of floats, with SciPy's edge values: the
    plain continued fraction (modified Lentz) on the side of (a + 1)/(a + b + 2) where it
    converges, times x^a (1 - x)^b / (a B(a, b)) from math.lgamma; the other side as 1 minus
    it (I_x(a, b) = 1 - I_(1-x)(b, a))."""
    if (math.isnan(a) or math.isnan(b) or math.isnan(x) or a < 0 or b < 0 or x < 0 or x > 1
            or a == b == 0 or a == b == math.inf):
        return math.nan
    if x == 0 or (b == 0 and x < 1) or (a == math.inf and x < 1):
        i = 0.0
    elif x == 1 or a == 0 or b == math.inf:
        i = 1.0
    else:
        swap = x > (a + 1) / (a + b + 2)
        if swap:
            a, b, x = b, a, 1 - x
        log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
        log_prefix = a * math.log(x) + b * math.log1p(-x) - log_beta
        c, d = 1.0, 1 - (a + b) * x / (a + 1)
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        h, m = d, 1
        while m < 100000:
            for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                              -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
                d = 1 + numerator * d
                d = 1 / (d if abs(d) > 1e-300 else 1e-300)
                c = 1 + numerator / c
                c = c if abs(c) > 1e-300 else 1e-300
                h *= d * c
            if abs(d * c - 1) < 1e-16:
                break
            m += 1
        i = math.exp(log_prefix) * h / a
        if swap:
            i = 1 - i
    return 1 - i if upper else i


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b), broadcast."""
    return np.vectorize(lambda a, b, x: _betainc(a, b, x, False), otypes=[np.float64])(*as_float(a, b, x))


def betaincc(a, b, x):
    """1 - I_x(a, b), broadcast."""
    return np.vectorize(lambda a, b, x: _betainc(a, b, x, True), otypes=[np.float64])(*as_float(a, b, x))


def _stdtr(df, t):
    """P(T <= t) for one pair of floats: I_(df/(df + t^2))(df/2, 1/2) / 2 below 0, 1 minus it above."""
    if math.isnan(df) or math.isnan(t) or df <= 0:
        return math.nan
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    if t == 0:
        return 0.5
    half = _betainc(df / 2, 0.5, df / (df + t * t), False) / 2
    return half if t < 0 else 1 - half


def stdtr(df, t):
    """Student's t distribution function, broadcast."""
    return np.vectorize(_stdtr, otypes=[np.float64])(*as_float(df, t))


def _poch(z, m):
    """Gamma(z + m) / Gamma(z) for one pair of floats: 1 at m = 0; the product for whole |m| < 20;
    else the ratio of math.gamma (exp of lgamma's difference where it overflows), SciPy's poles."""
    if m == 0:
        return 1.0
    if math.isnan(z) or math.isnan(m):
        return math.nan
    if math.isinf(z) or math.isinf(m):
        return (math.inf if (z == math.inf and m > 0) or (m == math.inf and z > 0)
                else 0.0 if z == math.inf and m < 0 else math.nan)
    if m == round(m) and abs(m) < 20:
        product = Fraction(1)
        for i in range(int(abs(m))):
            product *= (Fraction(z) + i) if m > 0 else (Fraction(z) - i - 1)
        if product == 0:
            return math.inf
        return float(product if m > 0 else 1 / product)
    top, bottom = z + m, z
    if top <= 0 and top == round(top):
        return math.inf
    if bottom <= 0 and bottom == round(bottom):
        return 0.0
    sign = math.copysign(1.0, math.gamma(top) if top < 171 else 1.0) * math.copysign(
        1.0, math.gamma(bottom) if bottom < 171 else 1.0)
    return sign * math.exp(math.lgamma(top) - math.lgamma(bottom))


def poch(z, m):
    """The Pochhammer symbol, broadcast."""
    return np.vectorize(_poch, otypes=[np.float64])(*as_float(z, m))


def _binom(n, k):
    """binom(n, k) for one pair: the product n (n - 1) ... / k! for whole k in [0, 64), else
    poch(n - k + 1, k) / k! by lgamma; 0 for whole k < 0."""
    if math.isnan(n) or math.isnan(k) or math.isinf(k):
        return math.nan
    if math.isinf(n):
        if n < 0:
            return math.nan
        return math.inf if k > 0 else 1.0 if k == 0 else 0.0 if k == round(k) else math.nan
    if k == round(k):
        if k < 0:
            return 0.0
        if k < 64:
            return float(math.prod((Fraction(n) - j for j in range(int(k))), start=Fraction(1))
                         / math.factorial(int(k)))
    return _poch(n - k + 1, k) / math.gamma(k + 1)


def binom(n, k):
    """The binomial coefficient of real n and k, broadcast."""
    return np.vectorize(_binom, otypes=[np.float64])(*as_float(n, k))


def _expn(n, x):
    """E_n(x) for one float: E_0 = e^-x / x; E1 (`_exp1`), then n E_(n+1) = e^-x - x E_n (fine
    for the small x of these tests); 1 / (n - 1) at 0, 0 at inf, NaN below 0."""
    if math.isnan(x) or x < 0:
        return math.nan
    if x == math.inf:
        return 0.0
    if x == 0:
        return math.inf if n <= 1 else 1 / (n - 1)
    if n == 0:
        return math.exp(-x) / x
    value = _exp1(x)
    for m in range(1, n):
        value = (math.exp(-x) - x * value) / m
    return value


def expn(n, x):
    """E_n(x), elementwise."""
    return np.vectorize(lambda v: _expn(n, v), otypes=[np.float64])(as_float(x))


def _dilog(w):
    """Li2(w) for a float w <= 1: its power series for |w| <= 1/2 (60 terms), else Euler's
    reflection, Landen's identity or the inversion into it."""
    if w < -1:
        return -math.pi ** 2 / 6 - math.log(-w) ** 2 / 2 - _dilog(1 / w)
    if w < -0.5:
        return -_dilog(w / (w - 1)) - math.log1p(-w) ** 2 / 2
    if w == 1:
        return math.pi ** 2 / 6
    if w > 0.5:
        return math.pi ** 2 / 6 - math.log(w) * math.log1p(-w) - _dilog(1 - w)
    return sum(w ** k / (k * k) for k in range(1, 61))


def spence(z):
    """Li2(1 - z) for z >= 0: pi^2/6 at 0, -inf at inf, NaN below 0."""
    return np.vectorize(lambda v: math.nan if math.isnan(v) or v < 0 else -math.inf if v == math.inf
                        else _dilog(1 - v), otypes=[np.float64])(as_float(z))


def chdtr(v, x, upper=False):
    """The chi-square CDF (survival function with `upper`): P(v / 2, x / 2) (Q), broadcast."""
    v, x = as_float(v, x)
    return (gammaincc if upper else gammainc)(v / 2, x / 2)


def gdtr(a, b, x, upper=False):
    """The gamma distribution's CDF of rate a, shape b: P(b, a x) (Q with `upper`); NaN for a < 0."""
    a, b, x = as_float(a, b, x)
    with np.errstate(invalid="ignore"):
        return np.where(a < 0, np.nan, (gammaincc if upper else gammainc)(b, a * x))


def pdtr(k, m, upper=False):
    """The Poisson CDF P(K <= k) = Q(floor(k) + 1, m) (P with `upper`); NaN for k < 0."""
    k, m = as_float(k, m)
    with np.errstate(invalid="ignore"):
        return np.where(k < 0, np.nan, (gammainc if upper else gammaincc)(np.floor(k) + 1, m))


def _binomial_cdf(k, n, p, upper):
    """P(K <= k) (P(K > k)) of the binomial, k and n whole (floored), SciPy's edges."""
    if math.isnan(k) or math.isnan(n) or math.isnan(p) or not 0 <= p <= 1:
        return math.nan
    k, n = math.floor(k), math.trunc(n)
    if k > n:
        return math.nan
    if k == n:
        return 0.0 if upper else 1.0
    if k < 0:
        return 1.0 if upper else math.nan
    return _betainc(k + 1, n - k, p, not upper)


def bdtr(k, n, p, upper=False):
    """The binomial CDF (survival function with `upper`), broadcast."""
    return np.vectorize(lambda *v: _binomial_cdf(*v, upper), otypes=[np.float64])(*as_float(k, n, p))


def nbdtr(k, n, p, upper=False):
    """The negative binomial CDF I_p(n, floor(k) + 1) (1 - I with `upper`); NaN for k < 0, n <= 0."""
    k, n, p = as_float(k, n, p)
    with np.errstate(invalid="ignore"):
        bad = (k < 0) | ~(n > 0)
        return np.where(bad, np.nan, (betaincc if upper else betainc)(np.where(bad, 1, n),
                                                                      np.floor(np.where(bad, 0, k)) + 1, p))


def _snedecor_cdf(dfn, dfd, x, upper):
    if math.isnan(x) or not (dfn > 0 and dfd > 0) or x < 0:
        return math.nan
    if x == math.inf:
        return 0.0 if upper else 1.0
    if upper:
        return _betainc(dfd / 2, dfn / 2, dfd / (dfn * x + dfd), False)
    return _betainc(dfn / 2, dfd / 2, dfn * x / (dfn * x + dfd), False)


def fdtr(dfn, dfd, x, upper=False):
    """The F distribution's CDF (survival function with `upper`), broadcast."""
    return np.vectorize(lambda *v: _snedecor_cdf(*v, upper), otypes=[np.float64])(*as_float(dfn, dfd, x))


def gammaincinv(a, y, upper=False):
    """x with P(a, x) = y (Q(a, x) = y with `upper`), broadcast: halvings of log x in [-745, 710]
    on `_gammainc` (the tail below 1/2 read as itself); 0 and inf at the ends, NaN outside [0, 1]
    and for a <= 0."""
    a, y = np.broadcast_arrays(*as_float(a, y))
    with np.errstate(invalid="ignore"):
        inside = (a > 0) & (a < np.inf) & (y > 0) & (y < 1)
        a_, y_ = np.where(inside, a, 1.0), np.where(inside, y, 0.5)
    lower = (y_ <= 0.5) != upper                          # (solve on the tail that is below 1/2)
    target = np.where(lower != upper, y_, 1 - y_)
    def tail(a, t, low):                                  # P, or -Q (increasing in t)
        return _gammainc(a, math.exp(t), False) if low else -_gammainc(a, math.exp(t), True)
    t = _solve(lambda t: np.vectorize(tail, otypes=[np.float64])(a_, t, lower),
               np.where(lower, target, -target), -745.0, 710.0)
    start, end = (np.inf, 0.0) if upper else (0.0, np.inf)
    with np.errstate(invalid="ignore"):
        edge = np.where((a >= 0) & (y == 0), start, np.where((a >= 0) & (y == 1), end, np.nan))
    return np.where(inside, np.exp(t), edge)


def betaincinv(a, b, y, upper=False):
    """x with I_x(a, b) = y (1 - I = y with `upper`), broadcast: halvings of [0, 1] on `_betainc`;
    0 and 1 at the ends (1 and 0 with `upper`), NaN outside [0, 1] and for a or b not in (0, inf)."""
    a, b, y = np.broadcast_arrays(*as_float(a, b, y))
    with np.errstate(invalid="ignore"):
        inside = (a > 0) & (b > 0) & (a < np.inf) & (b < np.inf) & (y > 0) & (y < 1)
        a_, b_, y_ = np.where(inside, a, 1.0), np.where(inside, b, 1.0), np.where(inside, y, 0.5)
    sign = -1.0 if upper else 1.0                         # (1 - I decreases in x)
    x = _solve(lambda x: sign * np.vectorize(lambda a, b, x: _betainc(a, b, x, upper), otypes=[np.float64])(
        a_, b_, x), sign * y_, 0.0, 1.0)
    start, end = (1.0, 0.0) if upper else (0.0, 1.0)
    with np.errstate(invalid="ignore"):
        valid = (a > 0) & (b > 0) & (a < np.inf) & (b < np.inf)
        edge = np.where(valid & (y == 0), start, np.where(valid & (y == 1), end, np.nan))
    return np.where(inside, x, edge)


def stdtrit(df, p):
    """t with stdtr(df, t) = p: halvings of [-1e4, 1e4] on `stdtr`; -inf at 0, inf at 1, NaN outside."""
    df, p = np.broadcast_arrays(*as_float(df, p))
    t = _solve(lambda t: stdtr(df, t), p, -1e4, 1e4)
    return np.select([p == 0, p == 1, (p < 0) | (p > 1) | ~(df > 0)], [-np.inf, np.inf, np.nan], t)


def gdtria(p, b, x):
    """The gamma distribution's rate: gammaincinv(b, p) / x, NaN at x = 0 (as SciPy's)."""
    p, b, x = np.broadcast_arrays(*as_float(p, b, x))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, np.nan, gammaincinv(b, p) / np.where(x == 0, 1.0, x))



def _carlson(x, y, z, rd):
    """RF(x, y, z) or RD(x, y, z) at floats >= 0: the duplication x -> (x + lambda) / 4 ... until
    the three agree to 1e-15 (no truncated series), RF = A^-1/2 there, RD = 4^-n A^-3/2 + 3 sum_k
    4^-k / (sqrt(z_k) (z_k + lambda_k)); SciPy's edges."""
    values = (x, y, z)
    if any(math.isnan(v) or v < 0 for v in values):
        return math.nan
    if rd and z == 0:
        return math.inf
    if math.inf in values:
        return 0.0
    if sum(v == 0 for v in (values[:2] if rd else values)) >= 2:
        return math.inf
    total, power = 0.0, 1.0
    for _ in range(200):
        if max(x, y, z) - min(x, y, z) <= 1e-15 * max(x, y, z):
            break
        sx, sy, sz = math.sqrt(x), math.sqrt(y), math.sqrt(z)
        lam = sx * sy + sy * sz + sz * sx
        if rd:
            total += power / (sz * (z + lam))
        x, y, z, power = (x + lam) / 4, (y + lam) / 4, (z + lam) / 4, power / 4
    a = (x + y + z) / 3
    return power / (a * math.sqrt(a)) + 3 * total if rd else 1 / math.sqrt(a)


def elliprf(x, y, z):
    """Carlson's RF, elementwise with broadcasting."""
    return np.vectorize(lambda *t: _carlson(*t, False), otypes=[np.float64])(*as_float(x, y, z))


def elliprd(x, y, z):
    """Carlson's RD, elementwise with broadcasting."""
    return np.vectorize(lambda *t: _carlson(*t, True), otypes=[np.float64])(*as_float(x, y, z))


def _elliprj(x, y, z, p):
    """RJ at floats (SciPy's edges; NaN for a NaN p): the duplication until the four agree to
    1e-15, 6 sum_k 4^-k RC(alpha_k, beta_k) / ... in Carlson's first form, alpha = (p (sqrt x +
    sqrt y + sqrt z) + sqrt(x y z))^2, beta = p (p + lambda)^2; p < 0 by DLMF 19.20.14."""
    if any(math.isnan(v) for v in (x, y, z, p)) or min(x, y, z) < 0:
        return math.nan
    infinite = math.inf in (x, y, z) or abs(p) == math.inf
    if sum(v == 0 for v in (x, y, z)) >= 2:
        return (0.0 if infinite else math.nan) if p == 0 else math.inf
    if p == 0:
        return 0.0 if infinite else math.nan
    if infinite:
        return 0.0
    if p < 0:
        x, y, z = sorted((x, y, z))
        q = -p
        p = y + (z - y) * (y - x) / (y + q)
        return ((p - y) * _elliprj(x, y, z, p) - 3 * _carlson(x, y, z, False)
                + 3 * math.sqrt(x * y * z / (x * z + p * q)) * _elliprc(x * z + p * q, p * q)) / (y + q)
    total, power = 0.0, 1.0
    for _ in range(200):
        if max(x, y, z, p) - min(x, y, z, p) <= 1e-15 * max(x, y, z, p):
            break
        sx, sy, sz = math.sqrt(x), math.sqrt(y), math.sqrt(z)
        lam = sx * sy + sy * sz + sz * sx
        alpha, beta = (p * (sx + sy + sz) + sx * sy * sz) ** 2, p * (p + lam) ** 2
        total += power * _elliprc(alpha, beta)
        x, y, z, p, power = (x + lam) / 4, (y + lam) / 4, (z + lam) / 4, (p + lam) / 4, power / 4
    a = (x + y + z + 2 * p) / 5
    return power / (a * math.sqrt(a)) + 3 * total


def elliprj(x, y, z, p):
    """Carlson's RJ (its principal value for p < 0), elementwise with broadcasting."""
    return np.vectorize(_elliprj, otypes=[np.float64])(*as_float(x, y, z, p))


def _elliprc(x, y):
    if math.isnan(x) or math.isnan(y) or x < 0 or y == 0 or (x == math.inf and y < 0):
        return math.nan
    if abs(y) == math.inf or x == math.inf or (x == 0 and y < 0):
        return 0.0
    if y < 0:                                           # Cauchy's principal value
        return math.sqrt(x / (x - y)) * _carlson(x - y, -y, -y, False)
    return _carlson(x, y, y, False)


def elliprc(x, y):
    """Carlson's RC (for y < 0 its principal value), elementwise with broadcasting."""
    return np.vectorize(_elliprc, otypes=[np.float64])(*as_float(x, y))


def _elliprg(x, y, z):
    if any(math.isnan(v) or v < 0 for v in (x, y, z)):
        return math.nan
    if math.inf in (x, y, z):
        return math.inf
    x, y, z = sorted((x, y, z))
    if y == 0:
        return math.sqrt(z) / 2
    return (y * _carlson(x, z, y, False) - (x - y) * (z - y) * _carlson(x, z, y, True) / 3
            + math.sqrt(x * z / y)) / 2


def elliprg(x, y, z):
    """Carlson's RG, elementwise with broadcasting (2 RG = z RF - (x - z)(y - z) RD / 3 + sqrt(x y /
    z), z the middle one)."""
    return np.vectorize(_elliprg, otypes=[np.float64])(*as_float(x, y, z))


def _legendre(phi, m, second):
    """F(phi, m) = s RF(c^2, 1 - m s^2, 1) + 2 k K(m) (E: - (m / 3) s^3 RD(...) + 2 k E(m)), phi =
    k pi + psi; E(phi, 1) = 2k + sin psi; SciPy's edges."""
    if math.isnan(phi) or math.isnan(m) or m > 1:
        return math.nan
    if m == -math.inf:
        return (math.nan if abs(phi) == math.inf else 0.0) if not second else math.copysign(math.inf, phi)
    if abs(phi) == math.inf:
        return phi
    k = round(phi / math.pi)
    psi = phi - k * math.pi
    s, c = math.sin(psi), math.cos(psi)
    if m == 1:
        if second:
            return 2 * k + s
        return math.copysign(math.inf, phi) if k or abs(phi) >= math.pi / 2 else math.atanh(s)
    d = c * c + (1 - m) * s * s
    value = s * _carlson(c * c, d, 1.0, False)
    whole = _carlson(0.0, 1 - m, 1.0, False)
    if second:
        value -= m / 3 * s ** 3 * _carlson(c * c, d, 1.0, True)
        whole -= m / 3 * _carlson(0.0, 1 - m, 1.0, True)
    return value + 2 * k * whole


def ellipkinc(phi, m):
    """F(phi, m), elementwise with broadcasting."""
    return np.vectorize(lambda p, q: _legendre(p, q, False), otypes=[np.float64])(*as_float(phi, m))


def ellipeinc(phi, m):
    """E(phi, m), elementwise with broadcasting."""
    return np.vectorize(lambda p, q: _legendre(p, q, True), otypes=[np.float64])(*as_float(phi, m))



def _ellipj(u, m):
    """sn, cn, dn, am at floats: am the root of F(am, m) = u by Newton's steps (slope 1 / delta)
    from u pi / (2 K(m)); tanh, sech, sech and the Gudermannian at m = 1; NaN outside [0, 1]."""
    if math.isnan(u) or math.isnan(m) or not 0 <= m <= 1 or math.isinf(u):
        return (math.nan,) * 4
    if m == 1:
        return math.tanh(u), 1 / math.cosh(u), 1 / math.cosh(u), 2 * math.atan(math.tanh(u / 2))
    phi = u * math.pi / (2 * _carlson(0.0, 1 - m, 1.0, False))
    for _ in range(30):
        phi -= (_legendre(phi, m, False) - u) * math.sqrt(1 - m * math.sin(phi) ** 2)
    s = math.sin(phi)
    return s, math.cos(phi), math.sqrt(1 - m * s * s), phi


def ellipj(u, m):
    """Jacobi's sn, cn, dn and the amplitude, elementwise with broadcasting (a tuple of four)."""
    u, m = np.broadcast_arrays(*as_float(u, m))
    out = np.array([_ellipj(a, b) for a, b in zip(u.ravel(), m.ravel())]).T.reshape((4,) + u.shape)
    return tuple(out)



def _lpmv(m, v, x):
    """P_v^m(x) at a float by the recurrence in the degree from P_m^m = (-1)^m (2m - 1)!! (1 -
    x^2)^(m/2): (l - m + 1) P_(l+1) = (2l + 1) x P_l - (l + m) P_(l-1); m >= 0, v >= m."""
    if math.isnan(x) or (m and abs(x) > 1):
        return math.nan
    previous, current = 0.0, (-1) ** m * math.prod(range(1, 2 * m, 2)) * (1 - x * x) ** (m / 2)
    for degree in range(m, v):
        step = ((2 * degree + 1) * x * current - (degree + m) * previous) / (degree - m + 1)
        previous, current = current, step
    return current


def lpmv(m, v):
    """P_v^m(x) elementwise, for whole m >= 0 and v >= m."""
    return lambda x: np.vectorize(lambda t: _lpmv(m, v, t), otypes=[np.float64])(as_float(x))



def pbdv(n):
    """D_n(x) = e^(-x^2/4) He_n(x) and D_n' = n D_(n-1) - x D_n / 2 (NumPy's hermeval), elementwise;
    0 at +-inf."""
    def both(x):
        x = as_float(x)
        with np.errstate(invalid="ignore", over="ignore"):
            weight = np.exp(-x * x / 4)
            value = weight * np.polynomial.hermite_e.hermeval(x, [0] * n + [1])
            lower = weight * np.polynomial.hermite_e.hermeval(x, [0] * (n - 1) + [1]) if n else 0 * x
            slope = n * lower - x * value / 2
        far = np.isinf(x)
        return np.where(far, 0.0, value), np.where(far, 0.0, slope)
    return both


QUANTILES = (
    ("gammaincinv", (2.5,), lambda y: gammaincinv(2.5, y)),
    ("gammainccinv", (0.6,), lambda y: gammaincinv(0.6, y, True)),
    ("chdtri", (3.0,), lambda p: 2 * gammaincinv(1.5, p, True)),
    ("gdtrix", (2.0, 2.5), lambda p: gammaincinv(2.5, p) / 2),
    ("pdtri", (4,), lambda y: np.where(np.asarray(y) == 1, np.nan, gammaincinv(5.0, y, True))),
    ("betaincinv", (2.5, 0.7), lambda y: betaincinv(2.5, 0.7, y)),
    ("betainccinv", (0.6, 3.0), lambda y: betaincinv(0.6, 3.0, y, True)),
    ("bdtri", (3, 10), lambda y: betaincinv(4.0, 7.0, y, True)),
    ("nbdtri", (4, 3), lambda y: betaincinv(3.0, 5.0, y)),
    ("fdtri", (3.0, 8.0), lambda p: 8 / 3 / (1 / betaincinv(1.5, 4.0, p) - 1)),
    ("stdtrit", (4.5,), lambda p: stdtrit(4.5, p)))
"""(name, its constants, the reference in the probability) of the distributions' quantiles."""


def entr(x):
    """-x log(x); 0 at 0, -inf below (SciPy's)."""
    x = as_float(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x < 0, -np.inf, np.where(x == 0, 0.0, -x * np.log(x)))


def rel_entr(x, y):
    """x log(x/y) for x, y > 0; 0 where x == 0 <= y; NaN where either is; inf elsewhere."""
    x, y = np.broadcast_arrays(*as_float(x, y))
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = x * np.log(x / y)
    return np.select([(x > 0) & (y > 0), (x == 0) & (y >= 0), np.isnan(x) | np.isnan(y)],
                     [inside, 0.0, np.nan], np.inf)


def kl_div(x, y):
    """x log(x/y) - x + y for x, y > 0; y where x == 0 <= y; NaN where either is; inf elsewhere."""
    x, y = np.broadcast_arrays(*as_float(x, y))
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = x * np.log(x / y) - x + y
    return np.select([(x > 0) & (y > 0), (x == 0) & (y >= 0), np.isnan(x) | np.isnan(y)],
                     [inside, y, np.nan], np.inf)


def multigammaln(a, d):
    """sum_(j<d) log Gamma(a - j/2) + d(d - 1)/4 log(pi)."""
    a = as_float(a)
    return sum(gammaln(a - j / 2) for j in range(d)) + d * (d - 1) / 4 * math.log(math.pi)


def _erfcx(x):
    """e^(x^2) erfc(x) for one float: math.erfc below 25, the asymptotic series beyond."""
    if math.isnan(x) or x == math.inf:
        return math.nan if math.isnan(x) else 0.0
    if x > 25:
        u = 1 / (2 * x * x)
        return (1 - u + 3 * u * u - 15 * u ** 3) / (x * math.sqrt(math.pi))
    try:
        return math.exp(x * x) * math.erfc(x)
    except OverflowError:
        return math.inf


def erfcx(x):
    """e^(x^2) erfc(x); 0 at inf, inf where e^(x^2) overflows."""
    return np.vectorize(_erfcx, otypes=[np.float64])(as_float(x))


def log_ndtr(x):
    """log P(Z <= x) = log(erfc(-x / sqrt 2) / 2)."""
    with np.errstate(divide="ignore"):
        return np.log(_erfc(-as_float(x) / math.sqrt(2)) / 2)


def polygamma(n, x):
    """psi^(n)(x) (digamma for n = 0): the recurrence psi^(n)(x) = psi^(n)(x + 1000) +
    (-1)^(n+1) n! sum_{k<1000} (x + k)^-(n+1), summed exactly, and three terms of the asymptotic
    series at x + 1000 (valid on either side of the poles)."""
    f = math.factorial

    def one(x):
        if math.isnan(x):
            return math.nan
        if math.isinf(x):          # psi(inf) = inf, psi^(n)(inf) = 0; at -inf SciPy's convention
            if n == 0:
                return math.inf if x > 0 else math.nan
            return 0.0 if x > 0 else (-1) ** (n + 1) * math.inf
        z = x + 1000
        if n == 0:
            return math.log(z) - 1 / (2 * z) - 1 / (12 * z ** 2) - math.fsum(1 / (x + k) for k in range(1000))
        tail = f(n - 1) / z ** n + f(n) / (2 * z ** (n + 1)) + f(n + 1) / (12 * z ** (n + 2))
        return (-1) ** (n + 1) * (tail + f(n) * math.fsum((x + k) ** -(n + 1) for k in range(1000)))

    return np.vectorize(one, otypes=[np.float64])(x)


def as_float(*arrays):
    """Arrays as float64 (the `function` package treats integers and booleans so)."""
    out = tuple(np.asarray(a, dtype=np.float64) for a in arrays)
    return out[0] if len(out) == 1 else out


# ----- shape helpers ----------------------------------------------------------------
def sum_to(x, shape):
    """Sum `x` down to `shape` one element at a time (no NumPy reduction logic reused)."""
    x = np.asarray(x)
    out = np.zeros(shape, dtype=np.sum(np.zeros(1, dtype=x.dtype)).dtype)    # the dtype np.sum gives
    lead = x.ndim - len(shape)
    for index in np.ndindex(*x.shape):
        out[tuple(0 if n == 1 else i for i, n in zip(index[lead:], shape))] += x[index]
    return out


def flatten(x):
    """DeZero's flatten: keep axis 0, merge the rest."""
    return x.reshape(x.shape[0], int(np.prod(x.shape[1:])))


def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) with the maximum taken out; -inf over an empty axis (PyTorch's value)."""
    x = np.asarray(x)
    m = np.max(x, axis=axis, keepdims=True) if x.size else np.zeros(np.sum(x, axis, keepdims=True).shape)
    m = np.where(np.isfinite(m), m, 0.0)
    y = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return y if keepdims else np.squeeze(y, axis=axis if axis is not None else tuple(range(x.ndim)))


def polyval(p, x):
    """Horner's scheme, y = p[0], then y x + p[i] for each next coefficient: at x = +-inf the
    polynomial's limit (gengrad's documented convention; NumPy's loop starts from 0 x, which
    is NaN there).  Shape and dtype as NumPy's: those of zeros_like(x) + p[0]."""
    p, x = np.asarray(p), np.asarray(x)
    y = np.zeros_like(x)
    for i, c in enumerate(p):
        y = y + c if i == 0 else y * x + c
    return y


# ----- activations (float64, as the `function` package computes integer inputs) -------------
def sigmoid(x):
    x = as_float(x)
    return 0.5 * (1.0 + np.tanh(0.5 * x))                  # = 1 / (1 + e^-x), overflow-free


def relu(x):
    return np.maximum(as_float(x), 0.0)


def relu6(x):
    return np.minimum(np.maximum(as_float(x), 0.0), 6.0)


def leaky_relu(x, alpha=0.01):
    x = as_float(x)
    return np.where(x > 0, x, alpha * x)


def elu(x, alpha=1.0):
    x = as_float(x)
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))


def selu(x):
    return 1.0507009873554804934193349852946 * elu(x, 1.6732632423543772848170429916717)


def celu(x, alpha=1.0):
    x = as_float(x)
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0) / alpha))


def mish(x):
    x = as_float(x)
    return x * np.tanh(np.logaddexp(0.0, x))


def softsign(x):
    x = as_float(x)
    return x / (1 + np.abs(x))


def log_sigmoid(x):
    return -np.logaddexp(0.0, -as_float(x))


def hard_tanh(x, min_val=-1.0, max_val=1.0):
    return np.clip(as_float(x), min_val, max_val)


def prelu(x, w):
    x, w = as_float(x), as_float(w)
    if w.ndim == 1 and w.size > 1 and x.ndim > 2:
        w = w.reshape((-1,) + (1,) * (x.ndim - 2))
    elif w.ndim == 1 and w.size == 1:
        w = w.reshape(())
    return np.where(x > 0, x, w * x)


def group_norm(x, num_groups, gamma, beta, eps=1e-5):
    x, gamma, beta = as_float(x), as_float(gamma), as_float(beta)
    if x.size == 0:
        return x.copy()
    g = x.reshape(x.shape[0], num_groups, -1)
    g = (g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)
    per_channel = (-1,) + (1,) * (x.ndim - 2)
    return g.reshape(x.shape) * gamma.reshape(per_channel) + beta.reshape(per_channel)


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0):
    """Channel by channel: x_c / (k + alpha / size * the sum of the squares of the channels
    c - size // 2 .. c + (size - 1) // 2 that exist)^beta."""
    x = as_float(x)
    y = np.empty_like(x)
    for c in range(x.shape[1]):
        total = np.zeros_like(x[:, c])
        for j in range(c - size // 2, c + (size - 1) // 2 + 1):
            if 0 <= j < x.shape[1]:
                total = total + x[:, j] * x[:, j]
        y[:, c] = x[:, c] / (k + alpha / size * total) ** beta
    return y


def scaled_dot_product_attention(q, k, v, is_causal=False, scale=None):
    """softmax(q k^T scale) v over the last two axes (scale 1 / sqrt(E) by default); causal:
    query i weighs keys 0..i only."""
    q, k, v = as_float(q), as_float(k), as_float(v)
    scale = 1 / np.sqrt(max(q.shape[-1], 1)) if scale is None else scale
    scores = q @ np.swapaxes(k, -1, -2) * scale
    if is_causal:
        scores = np.where(np.tri(*scores.shape[-2:], dtype=bool), scores, -np.inf)
    return softmax(scores, axis=-1) @ v


def glu(x, axis=-1):
    x = as_float(x)
    a, b = np.split(x, 2, axis=axis)
    return a * sigmoid(b)


def gelu(x, approximate="none"):
    x = as_float(x)
    with np.errstate(invalid="ignore"):
        if approximate == "tanh":
            y = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
        else:
            y = x * 0.5 * _erfc(-x / math.sqrt(2))
    return np.where(x == -np.inf, 0.0, y)          # (the limit: x times a CDF that reaches 0)


def swish(x):
    x = as_float(x)
    return x * sigmoid(x)


def hard_sigmoid(x):
    return np.clip(as_float(x) / 6 + 0.5, 0.0, 1.0)


def hard_swish(x):
    x = as_float(x)
    return x * np.clip(x + 3, 0.0, 6.0) / 6


def softplus(x):
    return np.logaddexp(0.0, as_float(x))


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)); an empty axis gives an empty array (PyTorch's value)."""
    x = as_float(x)
    if x.size == 0:
        return x.copy()
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    x = as_float(x)
    return x - logsumexp(x, axis=axis, keepdims=True)


# ----- losses ------------------------------------------------------------------------
def mean_squared_error(x0, x1):
    x0, x1 = as_float(x0, x1)
    return np.mean((x0 - x1) ** 2)


def mean_absolute_error(x0, x1):
    x0, x1 = as_float(x0, x1)
    return np.mean(np.abs(x0 - x1))


def huber_loss(x, t, delta=1.0):
    x, t = as_float(x, t)
    a = np.abs(x - t)
    return np.mean(np.where(a <= delta, 0.5 * a * a, delta * (a - 0.5 * delta)))


def log_cosh_loss(x, t):
    x, t = as_float(x, t)
    d = np.abs(x - t)
    return np.mean(d + np.log1p(np.exp(-2 * d)) - math.log(2))       # log cosh d, overflow-free


def poisson_nll_loss(log_rate, t):
    log_rate, t = as_float(log_rate, t)
    return np.mean(np.exp(log_rate) - t * log_rate)


def softmax_cross_entropy(x, t):
    """Mean over rows of -log softmax(x)[t] (labels) or -sum(t log softmax(x)) (probabilities)."""
    x = as_float(x)
    log_p = log_softmax(x, axis=-1)
    t = np.asarray(t)
    rows = x.size // x.shape[-1]
    if t.shape == x.shape[:-1]:
        picked = np.take_along_axis(log_p, t[..., None].astype(np.intp), axis=-1)
        return -np.sum(picked) / rows
    return -np.sum(as_float(t) * log_p) / rows


def cross_entropy_of_labels(x, t, weight=None, ignore_index=None, reduction="mean", label_smoothing=0.0):
    """PyTorch's cross_entropy of integer labels, one row at a time: (1 - e) w[t] (-log p[t]) +
    e / C sum_c w[c] (-log p[c]); 0 for a row labelled ignore_index; the mean divides by the kept
    rows' w[t] (NaN if none)."""
    x = as_float(x)
    log_p = log_softmax(x, axis=-1)
    return _weighed_rows(log_p, np.asarray(t), weight, ignore_index, reduction, label_smoothing)


def nll_loss(log_p, t, weight=None, ignore_index=None, reduction="mean"):
    """PyTorch's nll_loss, one row at a time: -w[t] log_p[t], 0 for an ignored row; the mean
    divides by the kept rows' w[t] (NaN if none)."""
    return _weighed_rows(as_float(log_p), np.asarray(t), weight, ignore_index, reduction, 0.0)


def _weighed_rows(log_p, t, weight, ignore_index, reduction, smoothing):
    n_class = log_p.shape[-1]
    w = np.ones(n_class) if weight is None else as_float(weight)
    losses, kept = np.zeros(t.shape), 0.0
    for i in np.ndindex(t.shape):
        label = int(t[i])
        if label == ignore_index:
            continue
        row = log_p[i]
        losses[i] = -(1 - smoothing) * w[label] * row[label]
        if smoothing:
            losses[i] -= smoothing / n_class * sum(w[c] * row[c] for c in range(n_class))
        kept += w[label]
    if reduction == "none":
        return losses
    total = np.sum(losses)
    if reduction == "sum":
        return total
    return total / kept if kept else np.nan


def _reduced(losses, reduction):
    if reduction == "none":
        return losses
    return np.sum(losses) if reduction == "sum" else (np.mean(losses) if losses.size else np.nan)


def smooth_l1_loss(x, t, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, |d| - beta / 2 elsewhere (|d| for beta 0)."""
    x, t = as_float(x, t)
    d = np.abs(x - t)
    with np.errstate(divide="ignore", invalid="ignore"):
        losses = d if beta == 0 else np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduced(losses, reduction)


def soft_margin_loss(x, y, reduction="mean"):
    x, y = as_float(x, y)
    return _reduced(np.logaddexp(0.0, -y * x), reduction)


def margin_ranking_loss(x1, x2, y, margin=0.0, reduction="mean"):
    x1, x2, y = as_float(x1, x2, y)
    return _reduced(np.maximum(0.0, -y * (x1 - x2) + margin), reduction)


def hinge_embedding_loss(x, y, margin=1.0, reduction="mean"):
    """x where y = 1, max(0, margin - x) where y = -1."""
    x, y = as_float(x, y)
    losses = np.where(y == 1, x, 0.0) + np.where(y == -1, np.maximum(0.0, margin - x), 0.0)
    return _reduced(losses, reduction)


def cosine_embedding_loss(x1, x2, y, margin=0.0, reduction="mean"):
    """Row by row: 1 - cos where y = 1, max(0, cos - margin) where y = -1; cos with 1e-12 added to
    each squared norm."""
    x1, x2 = as_float(x1, x2)
    a, b, labels = np.atleast_2d(x1), np.atleast_2d(x2), np.atleast_1d(np.asarray(y, dtype=float))
    labels = np.broadcast_to(labels, (len(a),))
    losses = np.zeros(len(a))
    for i in range(len(a)):
        cos = sum(a[i] * b[i]) / math.sqrt((sum(a[i] * a[i]) + 1e-12) * (sum(b[i] * b[i]) + 1e-12))
        losses[i] = 1 - cos if labels[i] == 1 else (np.maximum(0.0, cos - margin) if labels[i] == -1 else 0.0)
    return _reduced(losses if x1.ndim == 2 else losses[0], reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction="mean"):
    """Row by row: max(0, d(a, p) - d(a, n) + margin), d(u, v) = (sum |u - v + eps|^p)^(1/p)."""
    rows = [np.atleast_2d(v) for v in as_float(anchor, positive, negative)]

    def d(u, v):
        return sum(abs(u - v + eps) ** p) ** (1 / p)
    losses = np.zeros(len(rows[0]))
    for i, (a, pos, neg) in enumerate(zip(*rows)):
        to_negative = np.minimum(d(a, neg), d(pos, neg)) if swap else d(a, neg)   # (NaN stays NaN)
        losses[i] = np.maximum(0.0, d(a, pos) - to_negative + margin)
    return _reduced(losses if np.ndim(anchor) == 2 else losses[0], reduction)


def gaussian_nll_loss(x, t, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log v + (x - t)^2 / v), v = max(var, eps) (var of x's shape, or x.shape[:-1])."""
    x, t, var = as_float(x, t, var)
    if var.shape == x.shape[:-1] and var.shape != x.shape:
        var = var[..., None]
    v = np.maximum(var, eps)
    constant = 0.5 * math.log(2 * math.pi) if full else 0.0
    losses = np.broadcast_to(0.5 * (np.log(v) + (x - t) ** 2 / v) + constant, x.shape)
    return _reduced(losses, reduction)


def sigmoid_cross_entropy(x, t):
    x, t = as_float(x, t)
    # -t log s(x) - (1-t) log(1-s(x)): -log s(x) = log(1 + e^-x), -log(1 - s(x)) = log(1 + e^x)
    return np.mean(t * np.logaddexp(0.0, -x) + (1 - t) * np.logaddexp(0.0, x))


def binary_cross_entropy(p, t):
    """-mean(t max(log p, -100) + (1-t) max(log(1-p), -100)): each log floored, as in PyTorch."""
    p, t = as_float(p, t)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = np.maximum(np.log(p), -100.0)                   # np.maximum keeps NaN
        log_q = np.maximum(np.log(1 - p), -100.0)
    return -np.mean(t * log_p + (1 - t) * log_q)


def hinge_loss(x, t):
    x, t = as_float(x, t)
    return np.mean(np.maximum(0.0, 1 - t * x))               # np.maximum propagates NaN


def multi_margin_loss(x, t, p=1, margin=1.0, weight=None, reduction="mean"):
    """Per sample, the sum over the other classes of max(0, margin - x[t] + x[i])^p (times
    weight[t]) over C; np.maximum propagates NaN."""
    x = as_float(x)
    scores, labels = np.atleast_2d(x), np.atleast_1d(np.asarray(t)).astype(np.intp)
    rows = np.arange(len(labels))
    violations = np.maximum(0.0, margin - scores[rows, labels][:, None] + scores) ** p
    violations[rows, labels] = 0.0
    if weight is not None:
        violations = violations * as_float(weight)[labels][:, None]
    losses = violations.sum(axis=1) / scores.shape[1]
    losses = losses if x.ndim == 2 else losses[0]
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else (losses.mean() if losses.size else np.nan)


def cosine_similarity(x, y, axis=-1, eps=1e-8):
    """x.y / (max(|x|, eps) max(|y|, eps)) along `axis`, after broadcasting x against y."""
    x, y = np.broadcast_arrays(*as_float(x, y))
    dot = np.sum(x * y, axis=axis)
    norm_x = np.maximum(np.sqrt(np.sum(x * x, axis=axis)), eps)
    norm_y = np.maximum(np.sqrt(np.sum(y * y, axis=axis)), eps)
    return dot / (norm_x * norm_y)


# ----- layers as functions ---------------------------------------------------------------
def linear(x, W, b=None):
    x, W = as_float(x, W)
    y = np.einsum("...i,io->...o", x, W)
    return y if b is None else y + as_float(b)


def rms_norm(x, gamma=None, eps=None):
    """Each row over the root of its mean square (eps: x's machine epsilon when None)."""
    x = as_float(x)
    eps = np.finfo(x.dtype).eps if eps is None else eps
    root = np.sqrt(np.einsum("...i,...i->...", x, x)[..., None] / x.shape[-1] + eps)
    return x / root if gamma is None else x / root * as_float(gamma)


def layer_norm(x, gamma, beta, eps=1e-5):
    x, gamma, beta = as_float(x, gamma, beta)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def batch_norm(x, gamma, beta, eps=2e-5):
    """Training-mode batch norm over every axis but axis 1 (no running statistics)."""
    x, gamma, beta = as_float(x, gamma, beta)
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)


def embed_id(ids, W):
    return as_float(W)[np.asarray(ids)]


def accuracy(y, t):
    return float(np.mean(np.argmax(y, axis=-1) == t))


# ----- convolution and pooling, by explicit loops over output positions --------------------------
def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _padded(x, pad, value):
    ph, pw = _pair(pad)
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=value)


def _out_size(h, w, k, s, p):
    (kh, kw), (sh, sw), (ph, pw) = _pair(k), _pair(s), _pair(p)
    return (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1


def im2col(x, kernel_size, stride=1, pad=0):
    x = as_float(x)
    (kh, kw), (sh, sw) = _pair(kernel_size), _pair(stride)
    n, c, h, w = x.shape
    oh, ow = _out_size(h, w, kernel_size, stride, pad)
    xp = _padded(x, pad, 0.0)
    col = np.zeros((n, c, kh, kw, oh, ow))
    for i in range(kh):
        for j in range(kw):
            for p in range(oh):
                for q in range(ow):
                    col[:, :, i, j, p, q] = xp[:, :, p * sh + i, q * sw + j]
    return col


def col2im(col, x_shape, kernel_size, stride=1, pad=0):
    col = as_float(col)
    (kh, kw), (sh, sw), (ph, pw) = _pair(kernel_size), _pair(stride), _pair(pad)
    n, c, h, w = x_shape
    oh, ow = _out_size(h, w, kernel_size, stride, pad)
    image = np.zeros((n, c, h + 2 * ph, w + 2 * pw))
    for i in range(kh):
        for j in range(kw):
            for p in range(oh):
                for q in range(ow):
                    image[:, :, p * sh + i, q * sw + j] += col[:, :, i, j, p, q]
    return image[:, :, ph:ph + h, pw:pw + w]


def _conv_pads(pad, kernel, dilation):
    """Per-axis (before, after) zero padding: numbers on both sides, 'valid' none, 'same'
    dilation (k - 1) in all, the larger half after."""
    if pad == "valid":
        return [(0, 0)] * len(kernel)
    if pad == "same":
        return [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for k, d in zip(kernel, dilation)]
    return [(p, p) for p in pad]


def conv2d(x, W, b=None, stride=1, pad=0, dilation=1, groups=1):
    """Each group of W's filters against its own slice of x's channels, window by window."""
    x, W = as_float(x, W)
    oc, cg, kh, kw = W.shape
    (sh, sw), (dh, dw) = _pair(stride), _pair(dilation)
    pads = _conv_pads(pad if isinstance(pad, str) else _pair(pad), (kh, kw), (dh, dw))
    xp = np.pad(x, [(0, 0), (0, 0)] + pads)
    n, _, hp, wp = xp.shape
    oh, ow = (hp - dh * (kh - 1) - 1) // sh + 1, (wp - dw * (kw - 1) - 1) // sw + 1
    y = np.zeros((n, oc, oh, ow))
    og = oc // groups
    for g in range(groups):
        xg, Wg = xp[:, g * cg:(g + 1) * cg], W[g * og:(g + 1) * og]
        for p in range(oh):
            for q in range(ow):
                window = xg[:, :, p * sh:p * sh + dh * (kh - 1) + 1:dh, q * sw:q * sw + dw * (kw - 1) + 1:dw]
                y[:, g * og:(g + 1) * og, p, q] = np.tensordot(window, Wg, axes=([1, 2, 3], [1, 2, 3]))
    return y if b is None else y + as_float(b).reshape(1, oc, 1, 1)


def conv3d(x, W, b=None, stride=1, pad=0, dilation=1, groups=1):
    """Each group's filters against its slice of the volumes' channels, output entry by entry."""
    x, W = as_float(x, W)
    oc, cg, *kernel = W.shape
    triple = (lambda v: (v,) * 3 if isinstance(v, int) else tuple(v))
    stride, dilation = triple(stride), triple(dilation)
    pads = _conv_pads(pad if isinstance(pad, str) else triple(pad), kernel, dilation)
    xp = np.pad(x, [(0, 0), (0, 0)] + pads)
    out = [(m - d * (k - 1) - 1) // s + 1 for m, k, s, d in zip(xp.shape[2:], kernel, stride, dilation)]
    y = np.zeros((x.shape[0], oc, *out))
    og = oc // groups
    for o in range(oc):
        g = o // og
        for p in np.ndindex(*out):
            spans = [slice(q * s, q * s + d * (k - 1) + 1, d)
                     for q, s, d, k in zip(p, stride, dilation, kernel)]
            window = xp[(slice(None), slice(g * cg, (g + 1) * cg), *spans)]
            y[(slice(None), o, *p)] = np.sum(window * W[o], axis=(1, 2, 3, 4))
    return y if b is None else y + as_float(b).reshape(1, oc, 1, 1, 1)


def conv1d(x, W, b=None, stride=1, pad=0, dilation=1, groups=1):
    """Each output position: the kernel-weighted sum over its group's channels of its (dilated)
    window of the padded input."""
    x, W = as_float(x, W)
    oc, cg, k = W.shape
    (before, after), = _conv_pads(pad if isinstance(pad, str) else (pad,), (k,), (dilation,))
    xp = np.pad(x, ((0, 0), (0, 0), (before, after)))
    out = (xp.shape[2] - dilation * (k - 1) - 1) // stride + 1
    y = np.zeros((x.shape[0], oc, out))
    og = oc // groups
    for o in range(oc):
        g = o // og
        for p in range(out):
            taps = xp[:, g * cg:(g + 1) * cg, [p * stride + i * dilation for i in range(k)]]
            y[:, o, p] = np.sum(taps * W[o], axis=(1, 2))
    return y if b is None else y + as_float(b).reshape(1, oc, 1)


def _adaptive_windows(size_in, size_out):
    return [(i * size_in // size_out, -(-(i + 1) * size_in // size_out)) for i in range(size_out)]


def _adaptive_pool(x, output_size, reduce):
    x = as_float(x)
    size = _pair(output_size)
    y = np.zeros(x.shape[:-2] + size)
    for i, (r0, r1) in enumerate(_adaptive_windows(x.shape[-2], size[0])):
        for j, (c0, c1) in enumerate(_adaptive_windows(x.shape[-1], size[1])):
            if x.size:
                y[..., i, j] = reduce(x[..., r0:r1, c0:c1], axis=(-2, -1))
    return y


def _adaptive_pool_nd(x, output_size, reduce, dims):
    """`reduce` over each output's box: one adaptive window per axis of the last `dims`."""
    x = as_float(x)
    size = (output_size,) * dims if isinstance(output_size, int) else tuple(output_size)
    windows = [_adaptive_windows(n, m) for n, m in zip(x.shape[-dims:], size)]
    y = np.zeros(x.shape[:-dims] + size)
    if x.size:
        for out in itertools.product(*(range(m) for m in size)):
            box = tuple(slice(*windows[k][i]) for k, i in enumerate(out))
            y[(Ellipsis, *out)] = reduce(x[(Ellipsis, *box)], axis=tuple(range(-dims, 0)))
    return y


def affine_grid(theta, size, align_corners=False):
    """Each output pixel's centre (x, y) in [-1, 1], mapped by its image's theta."""
    theta = as_float(theta)
    n, _, h, w = size

    def centre(i, count):
        if count == 1:
            return 0.0
        return -1 + 2 * i / (count - 1) if align_corners else (2 * i + 1) / count - 1

    grid = np.empty((n, h, w, 2))
    for b, i, j in np.ndindex(n, h, w):
        grid[b, i, j] = theta[b] @ np.array([centre(j, w), centre(i, h), 1.0])
    return grid


def _mirrored(p, size, align_corners):
    """p reflected at the edges (the edge centres with align_corners, else the image's edges)
    until it lies inside, then clipped to the pixels."""
    lo, hi = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
    while hi > lo and (p < lo or p > hi):
        p = 2 * lo - p if p < lo else 2 * hi - p
    return min(max(p, 0.0), size - 1.0) if hi > lo else 0.0


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """Each output point read off its image: the four pixels around it weighted by nearness
    (or the nearest, or the 16 around it by the cubic kernel, each through the padding), zero
    outside the image ('zeros'), clamped to it ('border') or mirrored into it ('reflection')."""
    x, grid = as_float(x, grid)
    n, c, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:3])

    def pixel(b, row, col):
        return x[b, :, row, col] if 0 <= row < h and 0 <= col < w else np.zeros(c)

    def cubic(d):
        d, a = abs(d), -0.75
        return ((a + 2) * d - (a + 3)) * d * d + 1 if d <= 1 else ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    def tap(k, size):
        if padding_mode == "border":
            return min(max(k, 0), size - 1)
        return int(_mirrored(float(k), size, align_corners)) if padding_mode == "reflection" else k

    for b, i, j in np.ndindex(n, *grid.shape[1:3]):
        gx, gy = grid[b, i, j]
        px = (gx + 1) / 2 * (w - 1) if align_corners else ((gx + 1) * w - 1) / 2
        py = (gy + 1) / 2 * (h - 1) if align_corners else ((gy + 1) * h - 1) / 2
        if mode == "bicubic":
            c0, r0 = int(np.floor(px)), int(np.floor(py))
            for row in range(r0 - 1, r0 + 3):
                for col in range(c0 - 1, c0 + 3):
                    out[b, :, i, j] += cubic(py - row) * cubic(px - col) * pixel(b, tap(row, h), tap(col, w))
            continue
        if padding_mode == "border":
            px, py = min(max(px, 0), w - 1), min(max(py, 0), h - 1)
        elif padding_mode == "reflection":
            px, py = _mirrored(px, w, align_corners), _mirrored(py, h, align_corners)
        if mode == "nearest":
            out[b, :, i, j] = pixel(b, int(np.rint(py)), int(np.rint(px)))
            continue
        c0, r0 = int(np.floor(px)), int(np.floor(py))
        for row, col in ((r0, c0), (r0, c0 + 1), (r0 + 1, c0), (r0 + 1, c0 + 1)):
            out[b, :, i, j] += (1 - abs(py - row)) * (1 - abs(px - col)) * pixel(b, row, col)
    return out


def adaptive_avg_pool2d(x, output_size):
    """The mean over each output's window [floor(i H / h), ceil((i + 1) H / h)) x (likewise along W)."""
    return _adaptive_pool(x, output_size, np.mean)


def adaptive_max_pool2d(x, output_size):
    """The maximum over adaptive_avg_pool2d's windows."""
    return _adaptive_pool(x, output_size, np.max)


def adaptive_avg_pool1d(x, output_size):
    return _adaptive_pool_nd(x, output_size, np.mean, 1)


def adaptive_max_pool1d(x, output_size):
    return _adaptive_pool_nd(x, output_size, np.max, 1)


def adaptive_avg_pool3d(x, output_size):
    return _adaptive_pool_nd(x, output_size, np.mean, 3)


def adaptive_max_pool3d(x, output_size):
    return _adaptive_pool_nd(x, output_size, np.max, 3)


def interpolate(x, size, mode="nearest"):
    """F.interpolate of an image to `size`: nearest (input floor(i H / h)), bilinear or area."""
    if mode == "bilinear":
        return interpolate_bilinear(x, size)
    if mode == "area":
        return adaptive_avg_pool2d(x, size)
    x = as_float(x)
    rows = np.arange(size[0]) * x.shape[-2] // size[0]
    cols = np.arange(size[1]) * x.shape[-1] // size[1]
    return x[..., rows, :][..., cols]


def interpolate_bilinear(x, size):
    """Bilinear resize to `size` (pixel centres aligned, PyTorch's align_corners=False)."""
    x = as_float(x)
    (h, w), y = x.shape[-2:], np.zeros(x.shape[:-2] + tuple(size))

    def source(i, n, m):
        s = max((i + 0.5) * n / m - 0.5, 0.0) if n != m else i
        low = min(int(s), n - 1)
        return low, min(low + 1, n - 1), s - low

    for i in range(size[0]):
        r0, r1, a = source(i, h, size[0])
        for j in range(size[1]):
            c0, c1, b = source(j, w, size[1])
            y[..., i, j] = ((1 - a) * ((1 - b) * x[..., r0, c0] + b * x[..., r0, c1])
                            + a * ((1 - b) * x[..., r1, c0] + b * x[..., r1, c1]))
    return y


def deconv2d(x, W, b=None, stride=1, pad=0):
    """Transposed convolution: each input pixel adds its kernel-weighted copy; then crop pad."""
    x, W = as_float(x, W)
    _, oc, kh, kw = W.shape
    (sh, sw), (ph, pw) = _pair(stride), _pair(pad)
    n, _, h, w = x.shape
    full = np.zeros((n, oc, sh * (h - 1) + kh, sw * (w - 1) + kw))
    for i in range(h):
        for j in range(w):
            full[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw] += np.tensordot(x[:, :, i, j], W, axes=(1, 0))
    y = full[:, :, ph:full.shape[2] - ph, pw:full.shape[3] - pw]
    return y if b is None else y + as_float(b).reshape(1, oc, 1, 1)


def _deconv(x, W, b, stride, pad, dilation, groups):
    """Transposed convolution on any number of spatial axes (one setting for all): each input
    position of a group adds its kernel-weighted, dilated copy into the group's output channels
    at stride steps; then pad is cropped from each side."""
    x, W = as_float(x, W)
    n, c, *size = x.shape
    _, og, *kernel = W.shape
    cg = c // groups
    full = np.zeros((n, og * groups,
                     *[stride * (m - 1) + dilation * (k - 1) + 1 for m, k in zip(size, kernel)]))
    for g in range(groups):
        xs, ws = x[:, g * cg:(g + 1) * cg], W[g * cg:(g + 1) * cg]
        for p in np.ndindex(*size):
            for tap in np.ndindex(*kernel):
                at = tuple(q * stride + t * dilation for q, t in zip(p, tap))
                full[(slice(None), slice(g * og, (g + 1) * og), *at)] += xs[(..., *p)] @ ws[(..., *tap)]
    y = full[(slice(None), slice(None), *[slice(pad, m - pad) for m in full.shape[2:]])]
    return y if b is None else y + as_float(b).reshape((1, -1) + (1,) * len(size))


def deconv1d(x, W, b=None, stride=1, pad=0, dilation=1, groups=1):
    """Transposed convolution of sequences (`_deconv`)."""
    return _deconv(x, W, b, stride, pad, dilation, groups)


def deconv3d(x, W, b=None, stride=1, pad=0, dilation=1, groups=1):
    """Transposed convolution of volumes (`_deconv`)."""
    return _deconv(x, W, b, stride, pad, dilation, groups)


def _pool(x, kernel_size, stride, pad, reduce, pad_value):
    x = as_float(x)
    (kh, kw), (sh, sw) = _pair(kernel_size), _pair(stride)
    n, c, h, w = x.shape
    oh, ow = _out_size(h, w, kernel_size, stride, pad)
    xp = _padded(x, pad, pad_value)
    y = np.zeros((n, c, oh, ow))
    for p in range(oh):
        for q in range(ow):
            y[:, :, p, q] = reduce(xp[:, :, p * sh:p * sh + kh, q * sw:q * sw + kw], axis=(2, 3))
    return y


def pooling(x, kernel_size, stride=1, pad=0):
    return _pool(x, kernel_size, stride, pad, np.max, -np.inf)


def pooling_dilated(x, kernel_size, stride=1, pad=0, dilation=1):
    """Max pooling whose windows' entries lie `dilation` apart: output (p, q) the max over the
    entries (p sh - ph + dh u, q sw - pw + dw v) inside the image, one at a time."""
    x = as_float(x)
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = (_pair(v) for v in (kernel_size, stride, pad, dilation))
    n, c, h, w = x.shape
    oh, ow = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    y = np.full((n, c, oh, ow), -np.inf)
    for p in range(oh):
        for q in range(ow):
            for u in range(kh):
                for v in range(kw):
                    a, b = p * sh - ph + dh * u, q * sw - pw + dw * v
                    if 0 <= a < h and 0 <= b < w:
                        y[:, :, p, q] = np.fmax(y[:, :, p, q], x[:, :, a, b])
    return y


def average_pooling(x, kernel_size, stride=1, pad=0):
    return _pool(x, kernel_size, stride, pad, np.mean, 0.0)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    """CTC by the forward recursion, one sequence and one extended-target position at a time, in
    log space (np.logaddexp); each sequence's -log-likelihood over its target length (at least
    1), averaged.  A target no alignment fits gives inf (0 with zero_infinity)."""
    log_probs = as_float(log_probs)
    losses = []
    for i in range(log_probs.shape[1]):
        labels = list(targets[i, :target_lengths[i]]) if np.ndim(targets) == 2 else None
        extended = [blank]
        for c in labels:
            extended += [c, blank]
        alpha = np.full(len(extended), -np.inf)
        alpha[0] = log_probs[0, i, blank]
        if len(extended) > 1:
            alpha[1] = log_probs[0, i, extended[1]]
        for t in range(1, input_lengths[i]):
            new = np.full(len(extended), -np.inf)
            for k, c in enumerate(extended):
                total = alpha[k]
                if k >= 1:
                    total = np.logaddexp(total, alpha[k - 1])
                if k >= 2 and c != blank and c != extended[k - 2]:
                    total = np.logaddexp(total, alpha[k - 2])
                new[k] = total + log_probs[t, i, c]
            alpha = new
        likelihood = alpha[-1] if len(extended) == 1 else np.logaddexp(alpha[-1], alpha[-2])
        loss = -likelihood
        if np.isinf(loss) and zero_infinity:
            loss = 0.0
        losses.append(loss / max(target_lengths[i], 1))
    return np.mean(losses)


def max_unpool2d(x, indices, kernel_size, stride=None, pad=0, outsize=None):
    """Each pooled value added at its flat index of a zero output plane of the pooling's input
    size ((H - 1) stride - 2 pad + kernel, or outsize)."""
    x = as_float(x)
    (kh, kw), (ph, pw) = _pair(kernel_size), _pair(pad)
    sh, sw = _pair(kernel_size if stride is None else stride)
    n, c, h, w = x.shape
    oh, ow = _pair(outsize) if outsize is not None else (
        (h - 1) * sh - 2 * ph + kh, (w - 1) * sw - 2 * pw + kw)
    y = np.zeros((n, c, oh * ow))
    for i in range(n):
        for j in range(c):
            np.add.at(y[i, j], np.asarray(indices)[i, j].ravel(), x[i, j].ravel())
    return y.reshape(n, c, oh, ow)
