"""scipy.special's distribution functions, on the incomplete gamma and beta functions: the
cumulative distribution functions (and their complements) of the chi-square (chdtr, chdtrc),
gamma (gdtr, gdtrc), Poisson (pdtr, pdtrc), binomial (bdtr, bdtrc), F (fdtr, fdtrc) and
negative binomial (nbdtr, nbdtrc) distributions, with SciPy's edges.

Each is differentiated in its continuous variable (x, m or p), to any order, as gammainc and
betainc are; the shapes, degrees of freedom and counts are constants, refused when they require
grad (their derivatives are not implemented, nor in PyTorch's incomplete gamma).  Counts are
floored, as SciPy floors them; the upper tails are computed as themselves (betaincc, gammaincc,
or the reflected beta), never as 1 minus the lower, so they keep their digits far out.
"""

import numpy as np

from .. import series
from ..backend import get_array_module, is_device_array
from ..forwarder import Forwarder, Function, new_variable
from ..variable import Variable
from .elementary import exprel
from .elementwise import _reduce, exp, log
from .exponential import log1p
from .implicit import _two_product
from .piecewise import where
from .special import (
    Betainc,
    Betaincc,
    Gammainc,
    Gammaincc,
    _as_float_variable,
    _constant_parameters,
    _floats_on_one_device,
    _in_float64,
)


def _arguments(op, signature, variable, constants, *values):
    """The arguments as floating Variables on one device, the constants refused where they require
    grad (`constants`: their names, in `signature`'s order; the variable is the last argument),
    Python numbers in the variable's floating dtype (as NumPy takes them), and the array module."""
    names = [name.strip() for name in signature.split(",")]
    _constant_parameters(f"{op}({signature})", variable,
                         [(name, value) for name, value in zip(names, values) if name in constants],
                         f"{op}({signature}), {variable} last")
    last = _as_float_variable(values[-1], op)
    values = [np.asarray(v, dtype=last.dtype) if type(v) in (int, float) else v for v in values[:-1]]
    values = _floats_on_one_device(op, *values, last)
    return (*values, get_array_module(last.data))


# ----- the chi-square, gamma and Poisson distributions ------------------------------------------
def _chi_square(v, x, op, upper):
    """P(v / 2, x / 2) (`upper`: Q)."""
    v, x, xp = _arguments(op, "v, x", "x", ("v",), v, x)
    return Function(Gammaincc() if upper else Gammainc())(new_variable(v.data * 0.5), x * 0.5)


def chdtr(v, x):
    """The chi-square distribution's CDF with v degrees of freedom at x, elementwise with broadcasting
    (scipy.special.chdtr): gammainc(v / 2, x / 2), differentiable in x (v constant)."""
    return _chi_square(v, x, "chdtr", upper=False)


def chdtrc(v, x):
    """The chi-square distribution's survival function, elementwise with broadcasting
    (scipy.special.chdtrc): gammaincc(v / 2, x / 2), its tail to full relative precision."""
    return _chi_square(v, x, "chdtrc", upper=True)


def _gamma_distribution(a, b, x, op, upper):
    """P(b, a x) (`upper`: Q) of rate a and shape b; NaN for a < 0."""
    a, b, x, xp = _arguments(op, "a, b, x", "x", ("a", "b"), a, b, x)
    with np.errstate(invalid="ignore"):
        bad = a.data < 0
    value = Function(Gammaincc() if upper else Gammainc())(new_variable(b.data), x * new_variable(a.data))
    return where(bad, np.nan, value)


def gdtr(a, b, x):
    """The gamma distribution's CDF of rate a and shape b at x, elementwise with broadcasting
    (scipy.special.gdtr, SciPy's order): gammainc(b, a x), differentiable in x (a, b constants);
    NaN for a < 0."""
    return _gamma_distribution(a, b, x, "gdtr", upper=False)


def gdtrc(a, b, x):
    """The gamma distribution's survival function, elementwise with broadcasting
    (scipy.special.gdtrc): gammaincc(b, a x); NaN for a < 0."""
    return _gamma_distribution(a, b, x, "gdtrc", upper=True)


def _poisson(k, m, op, upper):
    """P(K <= k) = Q(floor(k) + 1, m) (`upper`: P(K > k) = P(floor(k) + 1, m)); NaN for k < 0."""
    k, m, xp = _arguments(op, "k, m", "m", ("k",), k, m)
    with np.errstate(invalid="ignore"):
        bad = k.data < 0
    value = Function(Gammainc() if upper else Gammaincc())(new_variable(xp.floor(k.data) + 1.0), m)
    return where(bad, np.nan, value)


def pdtr(k, m):
    """The Poisson distribution's CDF P(K <= k) of mean m, elementwise with broadcasting
    (scipy.special.pdtr): gammaincc(floor(k) + 1, m), differentiable in m (k constant, floored as
    SciPy floors it); NaN for k < 0, 1 at k = inf."""
    return _poisson(k, m, "pdtr", upper=False)


def pdtrc(k, m):
    """The Poisson distribution's survival function P(K > k), elementwise with broadcasting
    (scipy.special.pdtrc): gammainc(floor(k) + 1, m); NaN for k < 0."""
    return _poisson(k, m, "pdtrc", upper=True)


# ----- the binomial and negative binomial distributions -------------------------------------------
def _binomial(k, n, p, op, upper):
    """P(K <= k) (`upper`: P(K > k)) of the binomial of n trials of success p, k and n floored:
    betaincc(k + 1, n - k, p) (betainc), with SciPy's edges: NaN for k > n and outside p in
    [0, 1]; at k = n 1 (0); below 0 NaN (1)."""
    k, n, p, xp = _arguments(op, "k, n, p", "p", ("k", "n"), k, n, p)
    with np.errstate(invalid="ignore"):
        k_, n_ = xp.floor(k.data), xp.trunc(n.data)
        below, full, beyond = k_ < 0, k_ == n_, (k_ > n_) | xp.isnan(k_) | xp.isnan(n_)
        outside = ~((p.data >= 0) & (p.data <= 1))
        inside = ~(below | full | beyond)
        a, b = xp.where(inside, k_ + 1.0, 1.0), xp.where(inside, n_ - k_, 1.0)
    value = Function(Betainc() if upper else Betaincc())(new_variable(a), new_variable(b), p)
    edge = xp.where(full, 0.0 if upper else 1.0, xp.where(below & ~beyond, 1.0 if upper else np.nan, np.nan))
    value = where(inside, value, edge.astype(value.dtype, copy=False))
    return where(outside, np.nan, value)


def bdtr(k, n, p):
    """The binomial distribution's CDF P(K <= k) in n trials of success probability p, elementwise
    with broadcasting (scipy.special.bdtr): betaincc(k + 1, n - k, p) (its upper tail computed as
    itself), differentiable in p (k, n constants, floored as SciPy takes them); 1 at k = n, NaN for
    k < 0, k > n or p outside [0, 1]."""
    return _binomial(k, n, p, "bdtr", upper=False)


def bdtrc(k, n, p):
    """The binomial distribution's survival function P(K > k), elementwise with broadcasting
    (scipy.special.bdtrc): betainc(k + 1, n - k, p); 0 at k = n, 1 for k < 0 (as SciPy), NaN for
    k > n or p outside [0, 1]."""
    return _binomial(k, n, p, "bdtrc", upper=True)


def _negative_binomial(k, n, p, op, upper):
    """P(K <= k) (`upper`: P(K > k)) of the failures K before the n-th success, success p:
    betainc(n, floor(k) + 1, p) (betaincc); NaN for k < 0 or n <= 0 (as SciPy)."""
    k, n, p, xp = _arguments(op, "k, n, p", "p", ("k", "n"), k, n, p)
    with np.errstate(invalid="ignore"):
        bad = (k.data < 0) | ~(n.data > 0)
    successes, failures = new_variable(n.data), new_variable(xp.floor(k.data) + 1.0)
    value = Function(Betaincc() if upper else Betainc())(successes, failures, p)
    return where(bad, np.nan, value)


def nbdtr(k, n, p):
    """The negative binomial distribution's CDF (at most k failures before the n-th success of
    probability p), elementwise with broadcasting (scipy.special.nbdtr): betainc(n, floor(k) + 1, p),
    differentiable in p (k, n constants); NaN for k < 0 or n <= 0."""
    return _negative_binomial(k, n, p, "nbdtr", upper=False)


def nbdtrc(k, n, p):
    """The negative binomial distribution's survival function, elementwise with broadcasting
    (scipy.special.nbdtrc): betaincc(n, floor(k) + 1, p)."""
    return _negative_binomial(k, n, p, "nbdtrc", upper=True)


# ----- Snedecor's F distribution ------------------------------------------------------------------
def _snedecor(dfn, dfd, x, op, upper):
    """F's CDF (`upper`: survival function): betainc(dfn / 2, dfd / 2, dfn x / (dfn x + dfd)), the
    survival function as betainc(dfd / 2, dfn / 2, dfd / (dfn x + dfd)), each argument from its
    own side; 1 (0) at x = inf, NaN for dfn <= 0, dfd <= 0 or x < 0."""
    dfn, dfd, x, xp = _arguments(op, "dfn, dfd, x", "x", ("dfn", "dfd"), dfn, dfd, x)
    with np.errstate(invalid="ignore"):
        bad = ~(dfn.data > 0) | ~(dfd.data > 0) | ~(x.data >= 0)
        infinite = x.data == np.inf
    finite = where(infinite | bad, 1.0, x)
    n, d = new_variable(dfn.data), new_variable(dfd.data)
    scaled = finite * n
    half_n, half_d = new_variable(dfn.data * 0.5), new_variable(dfd.data * 0.5)
    if upper:
        value = Function(Betainc())(half_d, half_n, d / (scaled + d))
    else:
        value = Function(Betainc())(half_n, half_d, scaled / (scaled + d))
    value = where(infinite, 0.0 if upper else 1.0, value)
    return where(bad, np.nan, value)


def fdtr(dfn, dfd, x):
    """The F distribution's CDF with dfn and dfd degrees of freedom at x, elementwise with
    broadcasting (scipy.special.fdtr): betainc(dfn / 2, dfd / 2, dfn x / (dfn x + dfd)),
    differentiable in x (dfn, dfd constants)."""
    return _snedecor(dfn, dfd, x, "fdtr", upper=False)


def fdtrc(dfn, dfd, x):
    """The F distribution's survival function, elementwise with broadcasting (scipy.special.fdtrc):
    betainc(dfd / 2, dfn / 2, dfd / (dfn x + dfd)), its tail to full relative precision."""
    return _snedecor(dfn, dfd, x, "fdtrc", upper=True)


__all__ = ["tklmbda", "chdtr", "chdtrc", "gdtr", "gdtrc", "pdtr", "pdtrc", "bdtr", "bdtrc", "nbdtr", "nbdtrc",
           "fdtr", "fdtrc"]


# ----- Tukey's lambda distribution ---------------------------------------------------------------
READ_STEPS = True
"""On the CPU, tklmbda stops its Newton steps once every entry has settled (False: all
_TUKEY_STEPS, as a device takes them; the device test compares the two paths bit for bit)."""
_TUKEY_STEPS = 24
"""Newton's steps of tklmbda on a device (no data-dependent branch): 20 give the CPU's values
(which stop once settled) over lambda from -30 to 30 and x over 40 decades either side."""
_HALF_LOG = float(np.log(0.5))


def _tukey_quantile(s, lam, xp, exact=False):
    """(Q, dQ/ds, lambda Q, 1 + lambda Q) at s = logit F <= 0: lambda Q = F^lambda - (1 - F)^lambda
    = (1 - F)^lambda expm1(lambda s), no difference of near numbers at any F or lambda (Q = s at
    lambda = 0); `exact`: lambda s to every digit (two products), for the last step."""
    rest = xp.log1p(xp.exp(s))                                      # -log(1 - F)
    zero = lam == 0
    if exact:
        p, e = _two_product(lam, s)
        grown = xp.expm1(p) + xp.exp(p) * e
    else:
        grown = xp.expm1(lam * s)
    times = xp.exp(-lam * rest) * grown                             # lambda Q
    q = xp.where(zero, s, times / xp.where(zero, 1.0, lam))
    f = xp.exp(s - rest)                                            # F, and 1 - F = e^-rest
    slope = xp.exp(lam * (s - rest)) * xp.exp(-rest) + f * xp.exp(-lam * rest)   # F^l (1-F) + F (1-F)^l
    lifted = xp.exp(lam * (s - rest)) - xp.expm1(-lam * rest)       # F^lambda + 1 - (1 - F)^lambda
    return q, slope, times, lifted


@_in_float64(at=(0, 1))
def tklmbda_arrays(x, lam):
    """F with Q(F) = x (`_tukey_tails`'s first)."""
    return _tukey_tails(x, lam)[0]


@_in_float64(at=(0, 1))
def tukey_tails_arrays(x, lam):
    """(F, min(F, 1 - F) = F(-|x|) to its last digit): `_tukey_tails`."""
    return _tukey_tails(x, lam)


def _tukey_tails(x, lam):
    """Tukey's lambda distribution's CDF F with Q(F) = x on ndarrays (broadcast together): for x <=
    0 F itself, from Newton's steps on s = logit F against the residual log(1 + lambda Q) / lambda -
    log1p(lambda x) / lambda (nearly s minus its value at the root far out, in both tails and for
    every lambda), kept in the bracket the residuals' signs give, from s = log1p(lambda x) /
    lambda; then one step in F itself (the residual Q - x over Q'(F): the last digits, which s
    would round away far out); for x > 0 1 - F(-x).  lambda = 0 is the logistic CDF; lambda > 0
    has support |x| <= 1 / lambda (0 and 1 beyond)."""
    xp = get_array_module(x)
    with np.errstate(all="ignore"):
        z = -xp.abs(x)
        nan = (x != x) | (lam != lam)
        outside = ((lam > 0) & (z * lam <= -1.0)) | (z == -np.inf)
        work = ~nan & ~outside
        z, lam = xp.where(work, z, -1.0), xp.where(work, lam, 0.5)
        zero = lam == 0
        scale = xp.where(zero, 1.0, lam)
        target = xp.where(zero, z, xp.log1p(lam * z) / scale)
        high = xp.minimum(target - _HALF_LOG, 0.0)          # (log F <= target: logit F below this)
        low, t = xp.full(high.shape, -np.inf), xp.minimum(target, 0.0)
        device, close = is_device_array(x) or not READ_STEPS, 0
        for _ in range(_TUKEY_STEPS if device else 200):
            q, slope, times, lifted = _tukey_quantile(t, lam, xp)
            logarithm = xp.where(abs(times) < 0.5, xp.log1p(times), xp.log(lifted))   # log(1 + lambda Q)
            residual = xp.where(zero, q, logarithm / scale) - target
            low, high = xp.where(residual < 0, t, low), xp.where(residual > 0, t, high)
            step = residual * xp.where(zero, 1.0, lifted) / slope
            new = t - step
            inner = (new >= low) & (new <= high)
            # outside the bracket: halve it, or (no point left of the root yet) reach left
            reach = xp.where(low > -np.inf, (low + high) * 0.5, high - xp.maximum(abs(high), 1.0))
            t = xp.where(inner, new, reach)
            if not device:
                settled = (abs(step) <= 2.0 ** -30 * xp.maximum(abs(t), 1.0)) | (residual == 0)
                close = bool(xp.all(~work | settled)) and close + 1
                if close == 3:
                    break
        # the last digits: one step in F itself, dF = -(Q - x) F (1 - F) / (dQ/ds) (F to |s| ulps
        # from s alone), F = e^s / (1 + e^s) to two ulps of the s it has
        q, slope, _, _ = _tukey_quantile(t, lam, xp, exact=True)
        grown = xp.exp(t)
        f = grown / (1.0 + grown)
        f = xp.minimum(f - (q - z) * (f * (1.0 - f)) / slope, 0.5)
        lower = xp.where(zero, xp.exp(z) / (1.0 + xp.exp(z)), f)
        below = xp.where(outside, 0.0, xp.where(nan, np.nan, lower))
        return xp.where(x > 0, 1.0 - below, below), below


def _lower_tail(y, x, lower):
    """G = min(F, 1 - F) as a Variable from the output F (y) at x (an array): F, or 1 - F where x >
    0, with the value `lower` (1 - F of an F near 1 would keep F's rounding) and F's graph."""
    xp = get_array_module(y.data)
    sign = xp.where(x <= 0, 1.0, -1.0)
    base = y * sign + (1.0 - sign) * 0.5
    return base + (lower - base.data)


def _tukey_density(y, x, lam, lower):
    """dF/dx = 1 / Q'(F) = 1 / (G^(lambda - 1) + (1 - G)^(lambda - 1)), G = min(F, 1 - F) (Q' is
    symmetric), of the output F as gengrad's ops (differentiable again): G is F or 1 - F with the
    value `lower` (1 - F of an F near 1 would keep its rounding), the graph F's; 0 outside 0 < F
    < 1 (beyond a support's end)."""
    xp = get_array_module(y.data)
    inside = (y.data > 0) & (y.data < 1)
    g = where(inside, _lower_tail(y, x, lower), 0.5)
    power = lam - 1.0
    return where(inside, 1.0 / (exp(log(g) * power) + exp(log1p(-g) * power)), xp.zeros_like(y.data))


class Tklmbda(Forwarder):
    """tklmbda(x, lmbda), lambda held constant: dF/dx = 1 / Q'(F), of the output (`values`: F and
    its lower tail, handed in where the caller solved for them already)."""

    def __init__(self, values=None):
        self.values = values

    def forward(self, x, lam):
        values, self.values = self.values, None
        y, self.lower = tukey_tails_arrays(x, lam) if values is None else values
        return y

    save_for_backward = ("x0", "x1", "y")

    def backward(self, gy):
        x, lam = self.inputs
        y, = self.outputs
        return _reduce(gy * _tukey_density(y, _broadcast_like(x.data, y.data), lam.data, self.lower), x), None

    taylor_records = True

    def taylor(self, x, lam):
        y, = self.outputs
        if len(x) == 1:
            return [y._data]
        x0 = x[0].data if isinstance(x[0], Variable) else x[0]
        xp = get_array_module(x0)
        power = (lam[0].data if isinstance(lam[0], Variable) else lam[0]) - 1.0
        values = y._data.data if isinstance(y._data, Variable) else y._data      # (recording: a Variable)
        sign = xp.where(xp.broadcast_to(x0, values.shape) <= 0, 1.0, -1.0)
        offset = (1.0 - sign) * 0.5
        correction = self.lower - (offset + sign * values)     # (G's last digits: a constant)

        def density(ys, m):                      # coefficient m of 1 / Q'(F(t)), G = min(F, 1 - F)
            g = series.scale(list(ys[:m + 1]), sign)
            g[0] = (g[0] + offset) + correction
            rest = [1.0 - g[0]] + [-c for c in g[1:]]
            q = series.add(series.exp(series.scale(series.log(g), power)),
                           series.exp(series.scale(series.log(rest), power)))
            return series.reciprocal(q)[m]
        return series.ode(x, y._data, density)


def _broadcast_like(a, b):
    """a broadcast to b's shape (an array of x's entries beside the output's)."""
    return get_array_module(b).broadcast_to(a, b.shape)


def tklmbda(x, lmbda):
    """The CDF of Tukey's lambda distribution, elementwise with broadcasting (scipy.special.tklmbda,
    scipy.stats.tukeylambda's cdf): F with (F^lambda - (1 - F)^lambda) / lambda = x (log(F / (1 -
    F)) at lambda = 0: the logistic CDF); for lambda > 0 0 and 1 beyond |x| = 1 / lambda.
    Differentiable in x to any order (dF/dx = 1 / (F^(lambda - 1) + (1 - F)^(lambda - 1))), lambda
    a constant (refused where it requires grad).  Within a few ulps of the condition against
    60-digit roots, every lambda (SciPy's bisection: 1e-14 of F, 4e-10 at lambda = 1e-10)."""
    return Function(Tklmbda())(*_tukey_inputs(x, lmbda))


def _tukey_inputs(x, lmbda):
    """x and lmbda as floating Variables on one device, lmbda a constant (refused where it requires
    grad, naming SciPy's order)."""
    _constant_parameters("tklmbda(x, lmbda)", "x", [("lmbda", lmbda)], "x first, then lmbda")
    x = _as_float_variable(x, "tklmbda")
    lmbda = np.asarray(lmbda, dtype=x.dtype) if type(lmbda) in (int, float) else lmbda
    x, lmbda = _floats_on_one_device("tklmbda", x, lmbda)
    return x, new_variable(lmbda.data)


def tukey_lower(x, lmbda):
    """G = min(F, 1 - F) of Tukey's lambda CDF at x, a Variable: its value the lower tail F(-|x|)
    to its last digit, its graph F's (where 1 - F of an F near 1 would keep F's rounding); the
    density is 1 / (G^(lambda - 1) + (1 - G)^(lambda - 1)) (V.stats.tukeylambda)."""
    x, lam = _tukey_inputs(x, lmbda)
    values = tukey_tails_arrays(x.data, lam.data)                  # (one solve gives F and G)
    f = Function(Tklmbda(values))(x, lam)
    return _lower_tail(f, _broadcast_like(x.data, f.data), values[1])


def tukey_quantile(q, lmbda):
    """Q(q) = (q^lambda - (1 - q)^lambda) / lambda = log q exprel(lambda log q) - log1p(-q)
    exprel(lambda log1p(-q)): differentiable in q and lambda to any order, lambda = 0 (the logistic's
    logit) included; -1/lambda and 1/lambda at q = 0 and 1 for lambda > 0, -inf and inf else."""
    q = _as_float_variable(q, "tukeylambda.ppf")
    lam = lmbda if isinstance(lmbda, Variable) else _as_float_variable(lmbda, "tukeylambda.ppf")
    q, lam = _floats_on_one_device("tukeylambda.ppf", q, lam)
    xp = get_array_module(q.data)
    ends = (q.data == 0) | (q.data == 1)
    inner = where(ends, 0.5, q)
    low, high = log(inner), log1p(-inner)
    value = low * exprel(lam * low) - high * exprel(lam * high)
    with np.errstate(divide="ignore"):
        edge = xp.where(lam.data > 0, 1.0 / xp.where(lam.data > 0, lam.data, 1.0), np.inf)
    return where(ends, xp.where(q.data == 0, -edge, edge), value)
