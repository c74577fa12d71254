"""`V.stats`: scipy.stats' distributions on Variables, written with gengrad's ops.

`V.stats.norm.logpdf(x, loc, scale)` is scipy.stats.norm.logpdf (the same names, arguments
and values), differentiable to any order in every argument through the ops it is made of;
SciPy's own functions convert a Variable to its values, so they are refused on one, naming
these.  The distribution functions (cdf, sf) are differentiable in x, loc and scale; in a
shape parameter (t's df, gamma's a, beta's a and b) their ops refuse a Variable that
requires grad, as V.gammainc does.

Outside the support the values are SciPy's (logpdf -inf, cdf 0 or 1, NaN for a scale or
shape that is not positive), computed without a NumPy warning and with zero gradient
there: the formulas run at a safe point and `where` chooses.
"""

import functools
import inspect
import math

import numpy as np

from .backend import default_device, get_array_module, gpu_module, is_device_array
from .ops import distribution_functions as tails
from .ops import distribution_inverses as quantiles
from .ops import implicit, reduction, special
from .ops import ks_distribution as ks
from .ops.elementwise import exp, log, sqrt, square
from .ops.exponential import expm1, log1p, logaddexp
from .ops.inverse_trig import arctan
from .ops.piecewise import abs, clip, maximum, where
from .ops.trigonometric import cos
from .variable import Variable

__all__ = ["norm", "t", "gamma", "beta", "chi2", "expon", "laplace", "logistic", "cauchy", "uniform",
           "lognorm", "halfnorm", "skewnorm", "weibull_min", "gumbel_r", "gumbel_l", "pareto", "rayleigh",
           "vonmises", "kstwobign", "ksone", "tukeylambda", "invgamma", "lomax", "invweibull", "poisson",
           "binom", "dirichlet", "multivariate_normal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _data(x):
    """The values of x: a Variable's data, else x itself (an array or a number, on its device)."""
    return x.data if isinstance(x, Variable) else x


def _positive(*values):
    """Where every one of `values` is > 0 (a constant mask, or one bool for numbers; NaN
    and negatives are not)."""
    mask = True
    for v in values:
        mask = mask & (_data(v) > 0)
    return _one(mask)


def _one(mask):
    """A mask of one value (a number's, or a host array's of one entry) as a Python bool,
    so numbers given with device data choose without an op; other masks as they are."""
    if isinstance(mask, (bool, np.bool_)) or type(mask) is np.ndarray and mask.ndim == 0:
        return bool(mask)
    return mask


def _at(mask, x, safe):
    """x where `mask`, `safe` elsewhere: the point the formulas run at (no NaN, no warning,
    no gradient outside the mask)."""
    mask = _one(mask)
    if isinstance(mask, bool):
        return x if mask else safe
    return where(mask, x, safe)


def _standardized(x, loc, scale, *shapes):
    """(ok, z, s): where scale and every shape parameter are positive (a mask, or one bool),
    the scale there (1 elsewhere: no NaN, no warning, no gradient) and z = (x - loc) / s."""
    ok = _positive(scale, *shapes)
    s = _at(ok, scale, 1.0)
    return ok, (x - loc) / s, s


def _choose(mask, value, other):
    """value where `mask`, `other` (a number, or a Variable) elsewhere."""
    mask = _one(mask)
    if not isinstance(mask, bool):
        return where(mask, value, other)
    return value if mask else value * 0.0 + other        # (other: NaN, or the edge value)


def _log(p):
    """log p, -inf where p is 0 (outside the support), without NumPy's warning."""
    pd = _data(p)
    return where(pd > 0, log(_at(pd > 0, p, 1.0)), where(pd == 0, -np.inf, np.nan))


def _log_of(p, q):
    """log p, given p and its complement q = 1 - p each computed on its own: log p up to
    p = 1/2, log1p(-q) above, where log p would lose the digits of a small q."""
    high = _data(p) > 0.5
    return where(high, log1p(-_at(high, q, 0.0)), _log(_at(high, 0.5, p)))


def _argument(where, name, v):
    """Argument `name` checked: a Variable, a number or a numeric array as it is, a list of
    numbers as an array; anything else a TypeError naming the function."""
    if v is None or isinstance(v, (Variable, bool, int, float, np.number)) or is_device_array(v):
        return v
    if isinstance(v, (list, tuple)):
        try:
            return np.asarray(v, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"{where}: {name} must hold numbers, got {v!r}") from None
    if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
        return v
    kind = f"an array of dtype {v.dtype}" if isinstance(v, np.ndarray) else type(v).__name__
    raise TypeError(f"{where}: {name} must be a number, an array of numbers or a Variable, got {kind}")


def _together(method, broadcast=True):
    """`method` with its arguments checked (numbers, arrays or Variables that broadcast
    together, errors naming the function) and the numbers and host arrays given beside device
    data moved to its device (gengrad's ops take one device; SciPy's numbers broadcast against
    any array), or to the GPU under set_default_device("gpu"), where the Variables the formulas
    make go."""
    signature = inspect.signature(method)
    if any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values()):
        return method                                    # (it calls a checked method)

    @functools.wraps(method)
    def call(self, *args, **kwargs):
        where = f"V.stats.{self.name}.{method.__name__}"
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{where}: {error}") from None
        bound.apply_defaults()                           # (the defaults, loc=0.0, ..., too)
        given = {name: _argument(where, name, v) for name, v in list(bound.arguments.items())[1:]}
        for name, v in given.items():
            if v is None and signature.parameters[name].default is not None:
                raise TypeError(f"{where}: {name} must be a number, an array of numbers or a Variable, "
                                f"got None")
        shapes = {name: np.shape(_data(v)) for name, v in given.items() if v is not None}
        if broadcast:
            try:
                np.broadcast_shapes(*shapes.values())
            except ValueError:
                raise ValueError(f"{where}: the arguments' shapes do not broadcast together: "
                                 + ", ".join(f"{name} {shape}" for name, shape in shapes.items())) from None
        found = next((d for d in map(_data, given.values()) if is_device_array(d)), None)
        if found is not None or default_device() == "gpu":
            xp = get_array_module(found) if found is not None else gpu_module("V.stats")
            host = getattr(type(self), "_host_arguments", ())     # (whole numbers its ops read on the host)
            for name, v in given.items():
                if not (v is None or isinstance(v, (Variable, bool)) or is_device_array(v) or name in host):
                    given[name] = xp.asarray(v, dtype=float)
        result = method(self, **given)
        result = result if isinstance(result, Variable) else Variable(np.asarray(result, dtype=float))
        return _nan_where_nan(result, given.values()) if broadcast else result   # (elementwise ones)
    return call


def _nan_where_nan(result, values):
    """result with NaN wherever one of the arguments `values` is NaN, as scipy.stats gives it (a
    support's mask compares a NaN x as outside: 0, 1 or -inf otherwise).  On the CPU only where
    there is one; device data always takes the `where` (asking would be a sync)."""
    mask = None
    for v in values:
        d = _data(v)
        if isinstance(d, float) and math.isnan(d):
            return where(True, np.nan, result)
        if not (isinstance(d, np.ndarray) and d.dtype.kind == "f" or is_device_array(d)):
            continue
        nan = get_array_module(d).isnan(d)
        if is_device_array(d) or nan.any():
            mask = nan if mask is None else mask | nan
    return result if mask is None else where(mask, np.nan, result)


def _from(x, loc, scale, shapes, start, value, below):
    """value(z, *shapes) where z >= start, `below` left of it, NaN where the scale or a shape is
    not positive; the formula runs at z = 1 and shapes 1 elsewhere (no warning, no gradient)."""
    ok, z, _ = _standardized(x, loc, scale, *shapes)
    inside = ok & (_data(z) >= start)
    return _choose(inside, value(_at(inside, z, 1.0), *[_at(ok, v, 1.0) for v in shapes]),
                   _choose(ok, below, np.nan))


def _log1m(q):
    """log(1 - q) for q <= 1, -inf at 1, without NumPy's warning (log1p(-q) to keep a small q's digits)."""
    below = _data(q) < 1
    return _choose(below, log1p(-_at(below, q, 0.0)), -np.inf)


def _quantile(q, loc, scale, inner):
    """loc + scale inner(q) for q in [0, 1], NaN outside (and where the scale is not positive)."""
    ok = _one((_data(q) >= 0) & (_data(q) <= 1))
    return _choose(ok, _scaled(inner(_at(ok, q, 0.5)), loc, scale), np.nan)


def _shaped_quantile(q, shape, loc, scale, inner):
    """loc + scale inner(q, k) with the shape k where it is positive, NaN where it is not (and for
    q outside [0, 1]): weibull_min's, pareto's, lomax's and invweibull's quantiles."""
    ok = _positive(shape)
    k = _at(ok, shape, 1.0)
    return _choose(ok, _quantile(q, loc, scale, lambda q: inner(q, k)), np.nan)


def _scaled(z, loc, scale):
    """loc + scale z, NaN where the scale is not positive (a quantile from the standard one)."""
    ok = _positive(scale)
    return _choose(ok, loc + _at(ok, scale, 1.0) * z, np.nan)


class _Distribution:
    """A scipy.stats distribution's functions; pdf is exp(logpdf), logcdf log(cdf), ..."""

    name = ""

    def __init_subclass__(cls):
        for attr, value in list(vars(cls).items()):
            if callable(value) and not attr.startswith("_"):
                setattr(cls, attr, _together(value))

    @_together
    def pdf(self, x, *args, **kwargs):
        return exp(self.logpdf(x, *args, **kwargs))

    @_together
    def logcdf(self, x, *args, **kwargs):
        self._from_cdf_and_sf("logcdf")
        return _log_of(self.cdf(x, *args, **kwargs), self.sf(x, *args, **kwargs))

    @_together
    def logsf(self, x, *args, **kwargs):
        self._from_cdf_and_sf("logsf")
        return _log_of(self.sf(x, *args, **kwargs), self.cdf(x, *args, **kwargs))

    def _from_cdf_and_sf(self, method):
        """Refuses `method` (logcdf, logsf) by its own name where cdf and sf are not given."""
        if not (hasattr(type(self), "cdf") and hasattr(type(self), "sf")):
            self.__getattr__(method)

    def __call__(self, *args, **kwargs):
        return _Frozen(self, args, kwargs)

    def __getattr__(self, method):
        """A scipy.stats method this distribution lacks: say which it has."""
        if method.startswith("_"):
            raise AttributeError(method)
        kind = type(self)
        have = sorted(m for m in dir(kind) if not m.startswith("_") and callable(getattr(kind, m))
                      and (m not in ("logcdf", "logsf") or hasattr(kind, "cdf") and hasattr(kind, "sf")))
        raise AttributeError(f"V.stats.{self.name} has no {method!r}: it has {', '.join(have)} (scipy.stats' "
                             f"names and arguments)")

    def __repr__(self):
        return f"V.stats.{self.name}"


class _Frozen:
    """A distribution with its parameters given, as scipy.stats.norm(loc, scale) makes one:
    `.logpdf(x)` is the distribution's logpdf(x, loc, scale)."""

    def __init__(self, dist, args, kwargs):
        self.dist, self.args, self.kwargs = dist, args, kwargs

    def __getattr__(self, method):
        function = getattr(self.dist, method)
        return lambda *x: function(*x, *self.args, **self.kwargs)

    def __repr__(self):
        given = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.dist!r}({', '.join(given)})"


class _Norm(_Distribution):
    """The normal distribution: scipy.stats.norm(loc, scale)."""

    name = "norm"

    def logpdf(self, x, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        return _choose(ok, -0.5 * square(z) - log(s) - _HALF_LOG_2PI, np.nan)   # -z^2/2 - log(s sqrt(2 pi))

    def cdf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, special.ndtr(z), np.nan)

    def logcdf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, special.log_ndtr(z), np.nan)

    def sf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, special.ndtr(-z), np.nan)                      # 1 - Phi(z) = Phi(-z)

    def logsf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, special.log_ndtr(-z), np.nan)

    def ppf(self, q, loc=0.0, scale=1.0):
        return _scaled(special.ndtri(q), loc, scale)

    def isf(self, q, loc=0.0, scale=1.0):
        return _scaled(-special.ndtri(q), loc, scale)


class _T(_Distribution):
    """Student's t distribution: scipy.stats.t(df, loc, scale)."""

    name = "t"

    def logpdf(self, x, df, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale, df)
        finite = ok & np.isfinite(_data(df))
        n = _at(finite, df, 1.0)
        # log Gamma((n+1)/2) - log Gamma(n/2) - log(n pi)/2 - log s - (n+1)/2 log(1 + z^2/n)
        value = (special.gammaln((n + 1) / 2) - special.gammaln(n / 2) - 0.5 * log(n * math.pi) - log(s)
                 - (n + 1) / 2 * log1p(square(z) / n))
        normal = -0.5 * square(z) - log(s) - _HALF_LOG_2PI                       # df = inf
        return _choose(finite, value, _choose(ok, normal, np.nan))

    def cdf(self, x, df, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale, df)
        return _choose(ok, special.stdtr(_at(ok, df, 1.0), z), np.nan)

    def sf(self, x, df, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale, df)
        return _choose(ok, special.stdtr(_at(ok, df, 1.0), -z), np.nan)

    def ppf(self, q, df, loc=0.0, scale=1.0):
        return _scaled(quantiles.stdtrit(df, q), loc, scale)

    def isf(self, q, df, loc=0.0, scale=1.0):
        return _scaled(-quantiles.stdtrit(df, q), loc, scale)


class _Gamma(_Distribution):
    """The gamma distribution: scipy.stats.gamma(a, loc, scale), density z^(a-1) e^-z / Gamma(a)."""

    name = "gamma"

    def logpdf(self, x, a, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale, a)
        a_ = _at(ok, a, 1.0)
        inside = ok & (_data(z) >= 0)
        z = _at(inside, z, 1.0)
        value = special.xlogy(a_ - 1, z) - z - special.gammaln(a_) - log(s)      # (a-1) log z - z - ...
        return _choose(inside, value, _choose(ok, -np.inf, np.nan))

    def cdf(self, x, a, loc=0.0, scale=1.0):
        return self._integral(x, a, loc, scale, special.gammainc, 0.0)

    def sf(self, x, a, loc=0.0, scale=1.0):
        return self._integral(x, a, loc, scale, special.gammaincc, 1.0)

    def ppf(self, q, a, loc=0.0, scale=1.0):
        return _scaled(quantiles.gammaincinv(a, q), loc, scale)

    def isf(self, q, a, loc=0.0, scale=1.0):
        return _scaled(quantiles.gammainccinv(a, q), loc, scale)

    @staticmethod
    def _integral(x, a, loc, scale, op, below):
        """P(a, z) or Q(a, z) inside the support, `below` (0 or 1) left of it."""
        ok, z, _ = _standardized(x, loc, scale, a)
        inside = ok & (_data(z) >= 0)
        return _choose(inside, op(_at(ok, a, 1.0), _at(inside, z, 1.0)), _choose(ok, below, np.nan))


class _Chi2(_Distribution):
    """The chi-square distribution: scipy.stats.chi2(df, loc, scale), a gamma of a = df/2, scale 2."""

    name = "chi2"

    def logpdf(self, x, df, loc=0.0, scale=1.0):
        return gamma.logpdf(x, df / 2, loc, 2 * scale)

    def cdf(self, x, df, loc=0.0, scale=1.0):
        return gamma.cdf(x, df / 2, loc, 2 * scale)

    def sf(self, x, df, loc=0.0, scale=1.0):
        return gamma.sf(x, df / 2, loc, 2 * scale)

    def ppf(self, q, df, loc=0.0, scale=1.0):
        return gamma.ppf(q, df / 2, loc, 2 * scale)

    def isf(self, q, df, loc=0.0, scale=1.0):
        return gamma.isf(q, df / 2, loc, 2 * scale)


class _Beta(_Distribution):
    """The beta distribution: scipy.stats.beta(a, b, loc, scale) on [loc, loc + scale]."""

    name = "beta"

    def logpdf(self, x, a, b, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale, a, b)
        a_, b_ = _at(ok, a, 1.0), _at(ok, b, 1.0)
        zd = _data(z)
        inside = ok & (zd >= 0) & (zd <= 1)           # (at 0 and 1: +-inf, or a finite end)
        z = _at(inside, z, 0.5)
        # (a-1) log z + (b-1) log(1-z) - log B(a, b) - log s
        value = special.xlogy(a_ - 1, z) + special.xlog1py(b_ - 1, -z) - special.betaln(a_, b_) - log(s)
        return _choose(inside, value, _choose(ok, -np.inf, np.nan))

    def cdf(self, x, a, b, loc=0.0, scale=1.0):
        return self._integral(x, a, b, loc, scale, special.betainc, 0.0, 1.0)

    def sf(self, x, a, b, loc=0.0, scale=1.0):
        return self._integral(x, a, b, loc, scale, special.betaincc, 1.0, 0.0)

    def ppf(self, q, a, b, loc=0.0, scale=1.0):
        return _scaled(quantiles.betaincinv(a, b, q), loc, scale)

    def isf(self, q, a, b, loc=0.0, scale=1.0):
        return _scaled(quantiles.betainccinv(a, b, q), loc, scale)

    @staticmethod
    def _integral(x, a, b, loc, scale, op, below, above):
        ok, z, _ = _standardized(x, loc, scale, a, b)
        zd = _data(z)
        inside = ok & (zd >= 0) & (zd <= 1)
        value = op(_at(ok, a, 1.0), _at(ok, b, 1.0), _at(inside, z, 0.5))
        return _choose(inside, value, _choose(ok & (zd < 0), below, _choose(ok, above, np.nan)))


class _Expon(_Distribution):
    """The exponential distribution: scipy.stats.expon(loc, scale), density e^-z."""

    name = "expon"

    def logpdf(self, x, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        inside = ok & (_data(z) >= 0)
        return _choose(inside, -z - log(s), _choose(ok, -np.inf, np.nan))

    def cdf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        inside = ok & (_data(z) >= 0)
        return _choose(inside, -expm1(-_at(inside, z, 0.0)), _choose(ok, 0.0, np.nan))     # 1 - e^-z

    def sf(self, x, loc=0.0, scale=1.0):
        return exp(self.logsf(x, loc, scale))

    def logsf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        inside = ok & (_data(z) >= 0)
        return _choose(inside, -z, _choose(ok, 0.0, np.nan))


class _Poisson(_Distribution):
    """The Poisson distribution: scipy.stats.poisson(mu, loc), its pmf at whole numbers k."""

    name = "poisson"

    def logpmf(self, k, mu, loc=0):
        k = _data(k) - _data(loc)
        ok = _data(mu) >= 0
        inside = ok & (k >= 0) & (k == np.floor(k))
        m = _at(ok, mu, 1.0)
        k = k * inside                                                           # (0 outside: no NaN)
        value = special.xlogy(k, m) - special.gammaln(k + 1.0) - m                # k log mu - log k! - mu
        return _choose(inside, value, _choose(ok, -np.inf, np.nan))

    def pmf(self, k, mu, loc=0):
        return exp(self.logpmf(k, mu, loc))

    def pdf(self, *args, **kwargs):
        raise AttributeError("V.stats.poisson is discrete: it has pmf(k, mu) and logpmf(k, mu), as SciPy's")

    def cdf(self, k, mu, loc=0):
        return self._integral(k, mu, loc, special.gammaincc, 0.0)

    def sf(self, k, mu, loc=0):
        return self._integral(k, mu, loc, special.gammainc, 1.0)

    @staticmethod
    def _integral(k, mu, loc, op, below):
        """P(N <= k) = Q(k + 1, mu) (gammaincc) for k >= 0, `below` left of 0."""
        k = np.floor(_data(k) - _data(loc))
        ok = _data(mu) >= 0
        inside = ok & (k >= 0)
        value = op(k * inside + 1.0, _at(ok, mu, 1.0))                        # (k = 0 outside)
        return _choose(inside, value, _choose(ok, below, np.nan))


class _Dirichlet:
    """The Dirichlet distribution: scipy.stats.dirichlet(alpha); x's first axis holds the K
    components (a point of the simplex per column), as in SciPy."""

    name = "dirichlet"

    @functools.partial(_together, broadcast=False)
    def logpdf(self, x, alpha):
        xd, ad = _data(x), _data(alpha)
        if np.ndim(ad) != 1 or np.shape(xd)[:1] != np.shape(ad):
            raise ValueError(f"V.stats.dirichlet.logpdf: alpha must be a vector of the K concentrations "
                             f"and x hold K components along its first axis; got x of shape "
                             f"{np.shape(xd)} and alpha of shape {np.shape(ad)}")
        if not is_device_array(xd) and not (np.all((xd > 0) & (xd < 1))
                                            and np.allclose(np.sum(xd, axis=0), 1.0, rtol=0, atol=1e-10)):
            raise ValueError("V.stats.dirichlet.logpdf: x must lie in the open simplex, each column's K "
                             "components in (0, 1) and summing to 1, as SciPy requires")  # (not on a GPU)
        a = alpha.reshape(ad.shape + (1,) * (xd.ndim - 1)) if xd.ndim > 1 else alpha
        # sum_i (alpha_i - 1) log x_i - (sum_i log Gamma(alpha_i) - log Gamma(sum_i alpha_i))
        norm_ = reduction.sum(special.gammaln(alpha)) - special.gammaln(reduction.sum(alpha))
        return reduction.sum(special.xlogy(a - 1, x), axis=0) - norm_

    def pdf(self, x, alpha):
        return exp(self.logpdf(x, alpha))

    def __call__(self, alpha):
        return _Frozen(self, (alpha,), {})

    def __repr__(self):
        return "V.stats.dirichlet"


class _Laplace(_Distribution):
    """The Laplace distribution: scipy.stats.laplace(loc, scale), density e^-|z| / 2."""

    name = "laplace"

    def logpdf(self, x, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        return _choose(ok, -abs(z) - log(2 * s), np.nan)

    def cdf(self, x, loc=0.0, scale=1.0):
        return self._tail(x, loc, scale, 1.0)

    def sf(self, x, loc=0.0, scale=1.0):
        return self._tail(x, loc, scale, -1.0)

    @staticmethod
    def _tail(x, loc, scale, sign):
        """e^-|z| / 2 on the tail's side, 1 - e^-|z| / 2 on the other (no cancellation)."""
        ok, z, _ = _standardized(x, loc, scale)
        z = sign * z
        half = 0.5 * exp(-abs(z))
        return _choose(ok, _choose(_data(z) < 0, half, 1.0 - half), np.nan)


def _softplus(t):
    """log(1 + e^t) without overflow: max(t, 0) + log1p(e^-|t|)."""
    return maximum(t, 0.0) + log1p(exp(-abs(t)))


class _Logistic(_Distribution):
    """The logistic distribution: scipy.stats.logistic(loc, scale), its cdf the sigmoid."""

    name = "logistic"

    def logpdf(self, x, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        return _choose(ok, -abs(z) - 2 * log1p(exp(-abs(z))) - log(s), np.nan)   # (symmetric in z)

    def cdf(self, x, loc=0.0, scale=1.0):
        return exp(self.logcdf(x, loc, scale))

    def logcdf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, -_softplus(-z), np.nan)                          # log sigmoid(z)

    def sf(self, x, loc=0.0, scale=1.0):
        return exp(self.logsf(x, loc, scale))

    def logsf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, -_softplus(z), np.nan)


class _Cauchy(_Distribution):
    """The Cauchy distribution: scipy.stats.cauchy(loc, scale), density 1 / (pi (1 + z^2))."""

    name = "cauchy"

    def logpdf(self, x, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        return _choose(ok, -log1p(square(z)) - log(math.pi * s), np.nan)

    def cdf(self, x, loc=0.0, scale=1.0):
        return self._tail(x, loc, scale, 1.0)

    def sf(self, x, loc=0.0, scale=1.0):
        return self._tail(x, loc, scale, -1.0)

    @staticmethod
    def _tail(x, loc, scale, sign):
        """1/2 + arctan(z) / pi, as -arctan(1/z) / pi below 0 (no cancellation in the far tail)."""
        ok, z, _ = _standardized(x, loc, scale)
        z = sign * z
        left = _data(z) < 0
        value = _choose(left, -arctan(1.0 / _at(left, z, -1.0)) / math.pi, 0.5 + arctan(z) / math.pi)
        return _choose(ok, value, np.nan)


class _Uniform(_Distribution):
    """The uniform distribution on [loc, loc + scale]: scipy.stats.uniform(loc, scale)."""

    name = "uniform"

    def logpdf(self, x, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        zd = _data(z)
        inside = ok & (zd >= 0) & (zd <= 1)
        return _choose(inside, -log(s) + 0.0 * x, _choose(ok, -np.inf, np.nan))

    def cdf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, clip(z, 0.0, 1.0), np.nan)

    def sf(self, x, loc=0.0, scale=1.0):
        ok, _, s = _standardized(x, loc, scale)
        return _choose(ok, clip((loc + s - x) / s, 0.0, 1.0), np.nan)


class _Lognorm(_Distribution):
    """The log-normal distribution: scipy.stats.lognorm(s, loc, scale), log(z) normal with sd s."""

    name = "lognorm"

    def logpdf(self, x, s, loc=0.0, scale=1.0):
        ok, z, c = _standardized(x, loc, scale, s)
        s_ = _at(ok, s, 1.0)
        inside = ok & (_data(z) > 0)
        lz = log(_at(inside, z, 1.0))
        # -(log z)^2 / (2 s^2) - log(s z sqrt(2 pi)) - log(scale)
        value = -square(lz / s_) / 2 - log(s_) - lz - _HALF_LOG_2PI - log(c)
        return _choose(inside, value, _choose(ok, -np.inf, np.nan))

    def cdf(self, x, s, loc=0.0, scale=1.0):
        return self._integral(x, s, loc, scale, 1.0, 0.0)

    def sf(self, x, s, loc=0.0, scale=1.0):
        return self._integral(x, s, loc, scale, -1.0, 1.0)

    @staticmethod
    def _integral(x, s, loc, scale, sign, below):
        ok, z, _ = _standardized(x, loc, scale, s)
        inside = ok & (_data(z) > 0)
        value = special.ndtr(sign * log(_at(inside, z, 1.0)) / _at(ok, s, 1.0))
        return _choose(inside, value, _choose(ok, below, np.nan))


class _Halfnorm(_Distribution):
    """The half-normal distribution: scipy.stats.halfnorm(loc, scale), |N(0, 1)| scaled."""

    name = "halfnorm"

    def logpdf(self, x, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        inside = ok & (_data(z) >= 0)
        value = -0.5 * square(z) - log(s) + (math.log(2) - _HALF_LOG_2PI)
        return _choose(inside, value, _choose(ok, -np.inf, np.nan))

    def cdf(self, x, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (), 0.0, lambda z: special.erf(z / math.sqrt(2)), 0.0)

    def sf(self, x, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (), 0.0, lambda z: special.erfc(z / math.sqrt(2)), 1.0)


class _Skewnorm(_Distribution):
    """The skew-normal distribution: scipy.stats.skewnorm(a, loc, scale), density 2 phi(z) Phi(a z),
    its shape a any real (0: the normal), differentiable like loc and scale, to any order.  The
    CDF is Phi(z) - 2 T(z, a) (Owen's T) where that is a sum of one sign; in the tail against the
    skew (z < 0 for a > 0), where the difference would cancel to nothing, 2 (Q(|z|)/2 - T(|z|, a))
    computed as itself (implicit.owens_t_tail): within 5e-15 of 40-digit values there, where
    SciPy's is off by up to 25% (a = 30, z = -1: 2.6e-201)."""

    name = "skewnorm"

    def logpdf(self, x, a, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        value = special.log_ndtr(a * z) - 0.5 * square(z) - log(s) + (math.log(2) - _HALF_LOG_2PI)
        return _choose(ok, value, np.nan)

    def pdf(self, x, a, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)          # (Phi(a z) itself: e^(log Phi) would carry its ulps)
        value = exp(-0.5 * square(z)) * special.ndtr(a * z) / s * (2 * math.exp(-_HALF_LOG_2PI))
        return _choose(ok, value, np.nan)

    def cdf(self, x, a, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, self._tails(z, a)[0], np.nan)

    def sf(self, x, a, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, self._tails(z, a)[1], np.nan)

    @staticmethod
    def _tails(z, a):
        """(cdf, sf) at z: for a >= 0, 2 U(-z, a) below 0 and Q(z) + 2 T(z, a) above, each tail
        as itself, the other 1 minus it; for a < 0 the mirror (X ~ SN(a): -X ~ SN(-a))."""
        flip = _data(a) < 0
        zz, aa = _choose(flip, -z, z), _choose(flip, -a, a)           # (no abs: a = 0's slope kept)
        left = _data(zz) < 0
        below = 2.0 * implicit.owens_t_tail(_at(left, -zz, 0.0), aa)
        right = _at(left, 0.0, zz)
        above = special.ndtr(-right) + 2.0 * implicit.owens_t(right, aa)
        cdf, sf = _choose(left, below, 1.0 - above), _choose(left, 1.0 - below, above)
        return _choose(flip, sf, cdf), _choose(flip, cdf, sf)


class _WeibullMin(_Distribution):
    """The Weibull distribution: scipy.stats.weibull_min(c, loc, scale), cdf 1 - e^(-z^c) for z >= 0."""

    name = "weibull_min"

    def logpdf(self, x, c, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale, c)
        k = _at(ok, c, 1.0)
        inside = ok & (_data(z) > 0)
        zz = _at(inside, z, 1.0)
        value = log(k) + (k - 1.0) * log(zz) - zz ** k - log(s)
        return _choose(inside, value, _choose(ok, -np.inf, np.nan))

    def cdf(self, x, c, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (c,), 0.0, lambda z, c: -expm1(-(z ** c)), 0.0)

    def sf(self, x, c, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (c,), 0.0, lambda z, c: exp(-(z ** c)), 1.0)

    def logsf(self, x, c, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (c,), 0.0, lambda z, c: -(z ** c), 0.0)

    def ppf(self, q, c, loc=0.0, scale=1.0):
        return _shaped_quantile(q, c, loc, scale, lambda q, k: (-_log1m(q)) ** (1.0 / k))

    def isf(self, q, c, loc=0.0, scale=1.0):
        return _shaped_quantile(q, c, loc, scale, lambda q, k: (-_log(q)) ** (1.0 / k))


class _GumbelR(_Distribution):
    """The right-skewed Gumbel distribution: scipy.stats.gumbel_r(loc, scale), cdf e^(-e^-z)."""

    name = "gumbel_r"
    side = 1.0

    def logpdf(self, x, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        u = z * self.side                               # (-inf far on the short side: e^-u overflows)
        far = _data(u) < -700
        safe = _at(far, 0.0, u)
        return _choose(ok, _choose(far, -np.inf, -(safe + exp(-safe)) - log(s)), np.nan)

    def cdf(self, x, loc=0.0, scale=1.0):
        return self._tail(x, loc, scale, self.side > 0)

    def sf(self, x, loc=0.0, scale=1.0):
        return self._tail(x, loc, scale, self.side < 0)

    def logcdf(self, x, loc=0.0, scale=1.0):
        return self._log_tail(x, loc, scale) if self.side > 0 else super().logcdf(x, loc, scale)

    def logsf(self, x, loc=0.0, scale=1.0):
        return self._log_tail(x, loc, scale) if self.side < 0 else super().logsf(x, loc, scale)

    def _log_tail(self, x, loc, scale):
        """-e^-u, u = side z: the log of the tail e^(-e^-u) as itself (-inf where e^-u overflows)."""
        ok, z, _ = _standardized(x, loc, scale)
        u = z * self.side
        far = _data(u) < -700
        return _choose(ok, _choose(far, -np.inf, -exp(-_at(far, 0.0, u))), np.nan)

    def ppf(self, q, loc=0.0, scale=1.0):                # -log(-log q); gumbel_l: log(-log(1 - q))
        if self.side > 0:
            return _quantile(q, loc, scale, lambda q: -_log(-_log(q)))
        return _quantile(q, loc, scale, lambda q: _log(-_log1m(q)))

    def isf(self, q, loc=0.0, scale=1.0):
        if self.side > 0:
            return _quantile(q, loc, scale, lambda q: -_log(-_log1m(q)))
        return _quantile(q, loc, scale, lambda q: _log(-_log(q)))

    def _tail(self, x, loc, scale, lower):
        """e^(-e^-u) (lower) or 1 - e^(-e^-u), u = side z: 0 and 1 where e^-u overflows."""
        ok, z, _ = _standardized(x, loc, scale)
        u = z * self.side
        far = _data(u) < -700
        t = exp(-_at(far, 0.0, u))
        value = exp(-t) if lower else -expm1(-t)
        return _choose(ok, _choose(far, 0.0 if lower else 1.0, value), np.nan)


class _GumbelL(_GumbelR):
    """The left-skewed Gumbel distribution: scipy.stats.gumbel_l(loc, scale), gumbel_r mirrored."""

    name = "gumbel_l"
    side = -1.0


class _Pareto(_Distribution):
    """The Pareto distribution: scipy.stats.pareto(b, loc, scale), sf z^-b for z >= 1."""

    name = "pareto"

    def logpdf(self, x, b, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale, b)
        k = _at(ok, b, 1.0)
        inside = ok & (_data(z) >= 1)
        value = log(k) - (k + 1.0) * log(_at(inside, z, 1.0)) - log(s)
        return _choose(inside, value, _choose(ok, -np.inf, np.nan))

    def cdf(self, x, b, loc=0.0, scale=1.0):                      # 1 - z^-b
        return _from(x, loc, scale, (b,), 1.0, lambda z, b: -expm1(-b * log(z)), 0.0)

    def sf(self, x, b, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (b,), 1.0, lambda z, b: exp(-b * log(z)), 1.0)

    def logsf(self, x, b, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (b,), 1.0, lambda z, b: -b * log(z), 0.0)

    def ppf(self, q, b, loc=0.0, scale=1.0):
        return _shaped_quantile(q, b, loc, scale, lambda q, k: exp(-_log1m(q) / k))

    def isf(self, q, b, loc=0.0, scale=1.0):
        return _shaped_quantile(q, b, loc, scale, lambda q, k: exp(-_log(q) / k))


class _Rayleigh(_Distribution):
    """The Rayleigh distribution: scipy.stats.rayleigh(loc, scale), sf e^(-z^2 / 2) for z >= 0."""

    name = "rayleigh"

    def logpdf(self, x, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        inside = ok & (_data(z) >= 0)
        zz = _at(inside, z, 1.0)
        return _choose(inside, _log(zz) - 0.5 * square(zz) - log(s), _choose(ok, -np.inf, np.nan))

    def cdf(self, x, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (), 0.0, lambda z: -expm1(-0.5 * square(z)), 0.0)

    def sf(self, x, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (), 0.0, lambda z: exp(-0.5 * square(z)), 1.0)

    def logsf(self, x, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (), 0.0, lambda z: -0.5 * square(z), 0.0)

    def ppf(self, q, loc=0.0, scale=1.0):
        return _quantile(q, loc, scale, lambda q: sqrt(-2.0 * _log1m(q)))

    def isf(self, q, loc=0.0, scale=1.0):
        return _quantile(q, loc, scale, lambda q: sqrt(-2.0 * _log(q)))


class _Vonmises(_Distribution):
    """The von Mises distribution: scipy.stats.vonmises(kappa, loc, scale), density e^(kappa cos z) /
    (2 pi I0(kappa)), periodic in z (its density alone: log I0 from i0e, no overflow)."""

    name = "vonmises"

    def logpdf(self, x, kappa, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale, kappa)
        k = _at(ok, kappa, 1.0)                          # kappa (cos z - 1) - log(2 pi i0e(kappa)) - log s
        value = k * (cos(z) - 1.0) - log(special.i0e(k)) - log(s) - math.log(2 * math.pi)
        return _choose(ok, value, np.nan)


def _above_zero(x, loc, scale, shapes, value, below):
    """value(z, *shapes) where z > 0, `below` at and left of 0, NaN where the scale or a shape is
    not positive (the formula runs at z = 1 and shapes 1 elsewhere: no 1/0, no gradient)."""
    ok, z, _ = _standardized(x, loc, scale, *shapes)
    inside = ok & (_data(z) > 0)
    return _choose(inside, value(_at(inside, z, 1.0), *[_at(ok, v, 1.0) for v in shapes]),
                   _choose(ok, below, np.nan))


def _reciprocal_or_inf(z):
    """1 / z, +inf where z is 0 (a quantile at the support's far end)."""
    zero = _data(z) == 0
    return _choose(zero, np.inf, 1.0 / _at(zero, 1.0, z))


class _Invgamma(_Distribution):
    """The inverse gamma distribution: scipy.stats.invgamma(a, loc, scale), 1/X for X gamma(a):
    density z^(-a-1) e^(-1/z) / Gamma(a), cdf Q(a, 1/z) (gammaincc), sf P(a, 1/z)."""

    name = "invgamma"

    def logpdf(self, x, a, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale, a)
        k = _at(ok, a, 1.0)
        inside = ok & (_data(z) > 0)
        zz = _at(inside, z, 1.0)
        value = -(k + 1.0) * log(zz) - 1.0 / zz - special.gammaln(k) - log(s)
        return _choose(inside, value, _choose(ok, -np.inf, np.nan))

    def cdf(self, x, a, loc=0.0, scale=1.0):
        return _above_zero(x, loc, scale, (a,), lambda z, a: special.gammaincc(a, 1.0 / z), 0.0)

    def sf(self, x, a, loc=0.0, scale=1.0):
        return _above_zero(x, loc, scale, (a,), lambda z, a: special.gammainc(a, 1.0 / z), 1.0)

    def ppf(self, q, a, loc=0.0, scale=1.0):
        return _quantile(q, loc, scale, lambda q: _reciprocal_or_inf(quantiles.gammainccinv(a, q)))

    def isf(self, q, a, loc=0.0, scale=1.0):
        return _quantile(q, loc, scale, lambda q: _reciprocal_or_inf(quantiles.gammaincinv(a, q)))


class _Lomax(_Distribution):
    """The Lomax (Pareto II) distribution: scipy.stats.lomax(c, loc, scale), sf (1 + z)^-c, z >= 0."""

    name = "lomax"

    def logpdf(self, x, c, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale, c)
        k = _at(ok, c, 1.0)
        inside = ok & (_data(z) >= 0)
        value = log(k) - (k + 1.0) * log1p(_at(inside, z, 1.0)) - log(s)
        return _choose(inside, value, _choose(ok, -np.inf, np.nan))

    def cdf(self, x, c, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (c,), 0.0, lambda z, c: -expm1(-c * log1p(z)), 0.0)

    def sf(self, x, c, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (c,), 0.0, lambda z, c: exp(-c * log1p(z)), 1.0)

    def logsf(self, x, c, loc=0.0, scale=1.0):
        return _from(x, loc, scale, (c,), 0.0, lambda z, c: -c * log1p(z), 0.0)

    def ppf(self, q, c, loc=0.0, scale=1.0):                # (1 - q)^(-1/c) - 1
        return _shaped_quantile(q, c, loc, scale, lambda q, k: expm1(-_log1m(q) / k))

    def isf(self, q, c, loc=0.0, scale=1.0):
        return _shaped_quantile(q, c, loc, scale, lambda q, k: expm1(-_log(q) / k))


class _Invweibull(_Distribution):
    """The inverse Weibull (Frechet) distribution: scipy.stats.invweibull(c, loc, scale), cdf
    e^(-z^-c) for z > 0."""

    name = "invweibull"

    def logpdf(self, x, c, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale, c)
        k = _at(ok, c, 1.0)
        inside = ok & (_data(z) > 0)
        zz = _at(inside, z, 1.0)
        value = log(k) - (k + 1.0) * log(zz) - zz ** -k - log(s)
        return _choose(inside, value, _choose(ok, -np.inf, np.nan))

    def cdf(self, x, c, loc=0.0, scale=1.0):
        return _above_zero(x, loc, scale, (c,), lambda z, c: exp(-(z ** -c)), 0.0)

    def logcdf(self, x, c, loc=0.0, scale=1.0):
        return _above_zero(x, loc, scale, (c,), lambda z, c: -(z ** -c), -np.inf)

    def sf(self, x, c, loc=0.0, scale=1.0):
        return _above_zero(x, loc, scale, (c,), lambda z, c: -expm1(-(z ** -c)), 1.0)

    def ppf(self, q, c, loc=0.0, scale=1.0):                # (-log q)^(-1/c), inf where -log q is 0
        return _shaped_quantile(q, c, loc, scale, lambda q, k: _reciprocal_or_inf((-_log(q)) ** (1.0 / k)))

    def isf(self, q, c, loc=0.0, scale=1.0):
        return _shaped_quantile(q, c, loc, scale, lambda q, k: _reciprocal_or_inf((-_log1m(q)) ** (1.0 / k)))


_THETA = math.pi ** 2 / 8
"""kstwobign's CDF near 0 is sqrt(2 pi) / z sum_k e^(-(2k-1)^2 pi^2 / (8 z^2))."""


class _Kstwobign(_Distribution):
    """The limiting Kolmogorov-Smirnov distribution (of sqrt(n) D_n): scipy.stats.kstwobign(loc,
    scale), sf kolmogorov(z).  Its log-tails as themselves where the values underflow: below z =
    0.3 the theta sum's first term alone (the next is e^(-pi^2 / z^2) <= e^-109 of it), from z = 3
    the alternating sum's (the next e^(-6 z^2) <= e^-54 of it)."""

    name = "kstwobign"

    def pdf(self, x, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        return _choose(ok, (0.0 - ks._slope(_at(ok, z, 1.0))) / s, np.nan)   # (+0 at and below 0)

    def logpdf(self, x, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        zd = _data(z)
        near, far = ok & (zd > 0) & (zd < 0.3), ok & (zd >= 3.0) & (zd < np.inf)
        middle = ok & (zd >= 0.3) & (zd < 3.0)
        u = 1.0 / square(_at(near, z, 0.2))             # log(sqrt(2 pi) e^(-c u) (2 c u^2 - u))
        low = _HALF_LOG_2PI - _THETA * u + log(u * (2.0 * _THETA * u - 1.0))
        w = _at(far, z, 3.0)                            # log(8 w e^(-2 w^2))
        high = log(8.0 * w) - 2.0 * square(w)
        inner = log(-ks._slope(_at(middle, z, 1.0)))
        value = _choose(near, low, _choose(far, high, inner)) - log(s)
        return _choose(near | far | middle, value, _choose(ok, -np.inf, np.nan))

    def cdf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, ks.kolmogorov_complement(z), np.nan)

    def sf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, ks.kolmogorov(z), np.nan)

    def logcdf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        zd = _data(z)
        near = ok & (zd > 0) & (zd < 0.3)
        w = _at(near, z, 0.2)                           # log(sqrt(2 pi) / w) - c / w^2
        low = _HALF_LOG_2PI - log(w) - _THETA / square(w)
        rest = super().logcdf(x, loc, scale)
        return _choose(near, low, rest)

    def logsf(self, x, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        far = ok & (_data(z) >= 3.0)
        w = _at(far, z, 3.0)
        return _choose(far, math.log(2.0) - 2.0 * square(w), super().logsf(x, loc, scale))

    def ppf(self, q, loc=0.0, scale=1.0):
        return _quantile(q, loc, scale, ks.kolmogi_complement)

    def isf(self, q, loc=0.0, scale=1.0):
        return _quantile(q, loc, scale, ks.kolmogi)


class _Ksone(_Distribution):
    """The one-sided Kolmogorov-Smirnov statistic D_n^+ of n samples: scipy.stats.ksone(n, loc,
    scale), sf smirnov(n, z) on [0, 1] (n a whole number or an array of them, not differentiated);
    its CDF below z = 1/n as itself, z (1 + z)^(n - 1) (the complement's one term there: 1 - sf
    would lose a small CDF's digits), and its quantile there as that term's inverse (ppf; above,
    smirnovi(n, 1 - q))."""

    name = "ksone"
    _host_arguments = ("n",)

    @staticmethod
    def _support(z, below, above, at_zero=None):
        """(inside: 0 < z < 1, z there and 1/2 elsewhere, the values outside: `below` at and below
        0 (`at_zero` at 0 where given: the density's limit 1 there, as SciPy's), `above` at and
        above 1, NaN at NaN)."""
        zd = _data(z)
        xp = get_array_module(zd)
        inside = _one((zd > 0) & (zd < 1))
        with np.errstate(invalid="ignore"):
            outside = xp.where(zd <= 0, below, xp.where(zd >= 1, above, np.nan))
            if at_zero is not None:
                outside = xp.where(zd == 0, at_zero, outside)
        return inside, _at(inside, z, 0.5), outside

    @staticmethod
    def _first(w, n):
        """(z < 1/n, z there and 1/(2n) elsewhere, n - 1 as an array on w's device): where the CDF
        is its one term z (1 + z)^(n - 1)."""
        xp = get_array_module(_data(w))
        count = np.asarray(n, dtype=np.float64)
        first = _one(_data(w) < xp.asarray(1.0 / count))
        rest = float(count) - 1.0 if count.ndim == 0 else xp.asarray(count - 1.0)   # (a number: no read)
        return first, _at(first, w, xp.asarray(0.5 / count)), rest

    def logpdf(self, x, n, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        inside, w, outside = self._support(z, -np.inf, -np.inf, at_zero=0.0)
        first, near, rest = self._first(w, n)
        # below 1/n the one term's derivative (1 + z)^(n - 2) (1 + n z), in logarithms (its log
        # from the sum's slope would keep the digits of 1, not of a log of 1 + 1e-9)
        one_term = log1p(near) * (rest - 1.0) + log1p(near * (rest + 1.0))
        value = _choose(first, one_term, log(0.0 - ks.smirnov_slope(n, w))) - log(s)
        return _choose(ok, _choose(inside, value, outside), np.nan)

    def pdf(self, x, n, loc=0.0, scale=1.0):
        ok, z, s = _standardized(x, loc, scale)
        inside, w, outside = self._support(z, 0.0, 0.0, at_zero=1.0)
        first, near, rest = self._first(w, n)
        one_term = (1.0 + near) ** (rest - 1.0) * (1.0 + near * (rest + 1.0))
        value = _choose(first, one_term, 0.0 - ks.smirnov_slope(n, w)) / s
        return _choose(ok, _choose(inside, value, outside), np.nan)

    def sf(self, x, n, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        inside, w, outside = self._support(z, 1.0, 0.0)
        return _choose(ok, _choose(inside, ks.smirnov(n, w), outside), np.nan)

    def cdf(self, x, n, loc=0.0, scale=1.0):
        ok, z, _ = _standardized(x, loc, scale)
        inside, w, outside = self._support(z, 0.0, 1.0)
        first, near, rest = self._first(w, n)
        value = _choose(first, near * (1.0 + near) ** rest, 1.0 - ks.smirnov(n, w))
        return _choose(ok, _choose(inside, value, outside), np.nan)

    def isf(self, q, n, loc=0.0, scale=1.0):
        return _quantile(q, loc, scale, lambda q: ks.smirnovi(n, q))

    def ppf(self, q, n, loc=0.0, scale=1.0):
        def inner(q):
            xp = get_array_module(_data(q))
            count = np.asarray(n, dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):  # (n < 1: NaN, smirnovi's)
                edge = (1.0 + 1.0 / count) ** (count - 1.0) / count   # the CDF at 1/n, where one term ends
            edge = float(edge) if edge.ndim == 0 else xp.asarray(edge)
            low = _one(_data(q) <= edge)
            if type(low) is np.ndarray and (low.all() or not low.any()):
                low = bool(low.all())   # (on the host, a side no entry takes is not run: smirnovi
                #                          sums n terms a step, 9 s at n = 10^6)
            if low is True:
                return ks.ksone_low_quantile(n, q)
            if low is False:
                return ks.smirnovi(n, 1.0 - q)
            below = ks.ksone_low_quantile(n, _at(low, q, edge * 0.5))
            return _choose(low, below, ks.smirnovi(n, 1.0 - _at(low, 0.5, q)))
        return _quantile(q, loc, scale, inner)


class _Tukeylambda(_Distribution):
    """Tukey's lambda distribution: scipy.stats.tukeylambda(lam, loc, scale), cdf tklmbda(z, lam)
    (lam a constant there), sf its mirror tklmbda(-z, lam) (a far tail as itself), the density
    from min(F, 1 - F) to its last digit in logarithms (G^(lam - 1) overflows where its log does
    not), ppf and isf the closed quantile (q^lam - (1 - q)^lam) / lam, differentiable in lam too."""

    name = "tukeylambda"

    @staticmethod
    def _constant(method, lam):
        """lam refused where it requires grad, naming this method (tklmbda is differentiated in x
        alone: its gradient in lam would be lost)."""
        special._constant_parameters(f"V.stats.tukeylambda.{method}(x, lam, loc, scale)", "x, loc and scale",
                                     [("lam", lam)], "x, lam, loc, scale (its quantiles ppf and isf "
                                     "are differentiable in lam)")

    def logpdf(self, x, lam, loc=0.0, scale=1.0):
        self._constant("logpdf", lam)
        ok, z, s = _standardized(x, loc, scale)
        g = tails.tukey_lower(z, lam)
        inside = _one(_data(g) > 0)
        w = _at(inside, g, 0.25)
        power = lam - 1.0
        value = 0.0 - logaddexp(log(w) * power, log1p(0.0 - w) * power) - log(s)
        return _choose(ok, _choose(inside, value, -np.inf), np.nan)

    def cdf(self, x, lam, loc=0.0, scale=1.0):
        self._constant("cdf", lam)
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, tails.tklmbda(z, lam), np.nan)

    def sf(self, x, lam, loc=0.0, scale=1.0):
        self._constant("sf", lam)
        ok, z, _ = _standardized(x, loc, scale)
        return _choose(ok, tails.tklmbda(0.0 - z, lam), np.nan)

    def ppf(self, q, lam, loc=0.0, scale=1.0):
        return _quantile(q, loc, scale, lambda q: tails.tukey_quantile(q, lam))

    def isf(self, q, lam, loc=0.0, scale=1.0):
        return _quantile(q, loc, scale, lambda q: 0.0 - tails.tukey_quantile(q, lam))


class _Binom(_Distribution):
    """The binomial distribution: scipy.stats.binom(n, p, loc), its pmf at whole numbers k."""

    name = "binom"

    def logpmf(self, k, n, p, loc=0):
        k, n = _data(k) - _data(loc), _data(n)
        ok = (n >= 0) & (n == np.floor(n)) & (_data(p) >= 0) & (_data(p) <= 1)
        inside = ok & (k >= 0) & (k <= n) & (k == np.floor(k))
        k = k * inside                                                   # (0 outside: no NaN)
        q = _at(ok, p, 0.5)
        # log C(n, k) + k log p + (n - k) log(1 - p)
        value = (special.gammaln(n + 1.0) - special.gammaln(k + 1.0) - special.gammaln(n - k + 1.0)
                 + special.xlogy(k, q) + special.xlog1py(n - k, -q))
        return _choose(inside, value, _choose(ok, -np.inf, np.nan))

    def pmf(self, k, n, p, loc=0):
        return exp(self.logpmf(k, n, p, loc))

    def pdf(self, *args, **kwargs):
        raise AttributeError("V.stats.binom is discrete: it has pmf(k, n, p) and logpmf(k, n, p), as SciPy's")

    def cdf(self, k, n, p, loc=0):
        return self._integral(k, n, p, loc, special.betaincc, 0.0, 1.0)

    def sf(self, k, n, p, loc=0):
        return self._integral(k, n, p, loc, special.betainc, 1.0, 0.0)

    @staticmethod
    def _integral(k, n, p, loc, op, below, above):
        """P(K <= k) = 1 - I_p(k + 1, n - k) (betaincc) for 0 <= k < n; `below` left of
        0, `above` from n on."""
        k, n = np.floor(_data(k) - _data(loc)), _data(n)
        ok = (n >= 0) & (n == np.floor(n)) & (_data(p) >= 0) & (_data(p) <= 1)
        inside = ok & (k >= 0) & (k < n)
        kk, nn = k * inside, n * inside + (1 - inside)                  # (k = 0, n = 1 outside)
        value = op(kk + 1.0, nn - kk, _at(ok, p, 0.5))
        return _choose(inside, value, _choose(ok, _choose(k < 0, below, above), np.nan))


def _covariance(cov, d, op, like):
    """cov as a (d, d) matrix on the device of `like`: a number is that variance on the
    diagonal, a vector the diagonal, as SciPy takes them (its graph kept)."""
    shape = np.shape(_data(cov))
    eye = get_array_module(_data(like)).eye(d)
    if shape == ():
        return cov * eye
    if shape == (d,):
        return cov * eye                               # (each column j scaled by cov[j]: diag(cov))
    if shape == (d, d):
        return cov
    raise ValueError(f"V.stats.multivariate_normal.{op}: cov must be a ({d}, {d}) matrix, a vector of "
                     f"{d} variances or a number; got shape {shape}")


class _MultivariateNormal:
    """The multivariate normal: scipy.stats.multivariate_normal(mean, cov); x's last axis
    holds the d coordinates."""

    name = "multivariate_normal"

    @functools.partial(_together, broadcast=False)
    def logpdf(self, x, mean=None, cov=1.0, allow_singular=False):
        from . import linalg

        if allow_singular:
            raise ValueError("V.stats.multivariate_normal.logpdf: allow_singular=True (a pseudo-inverse) is "
                             "not supported; give a positive definite cov")
        if not isinstance(x, Variable):                  # (a number or an array: a point, or points)
            x = Variable(get_array_module(x).asarray(x, dtype=float))
        xd = _data(x)
        d = xd.shape[-1] if xd.ndim else 1
        c = _covariance(cov, d, "logpdf", x)
        diff = x - mean if mean is not None else x
        rows = diff.reshape(-1, d)
        solved = linalg.solve(c, rows.T)                                     # cov^-1 (x - mean)
        maha = reduction.sum(rows.T * solved, axis=0)
        _, logdet = linalg.slogdet(c)
        value = -0.5 * (maha + logdet + d * math.log(2 * math.pi))  # -(maha + log det(2 pi cov)) / 2
        return value.reshape(xd.shape[:-1] if xd.ndim else ())

    def pdf(self, x, mean=None, cov=1.0, allow_singular=False):
        return exp(self.logpdf(x, mean, cov, allow_singular))

    @functools.partial(_together, broadcast=False)
    def entropy(self, mean=None, cov=1.0):
        from . import linalg

        shape = np.shape(_data(cov))
        given = mean is not None and np.ndim(_data(mean))
        d = shape[0] if shape else np.shape(_data(mean))[-1] if given else 1
        c = _covariance(cov, d, "entropy", cov if mean is None else mean)
        _, logdet = linalg.slogdet(c)
        return 0.5 * (logdet + c.shape[0] * (1 + math.log(2 * math.pi)))    # log det(2 pi e cov) / 2

    def __call__(self, mean=None, cov=1.0):
        return _Frozen(self, (mean, cov), {})

    def __repr__(self):
        return "V.stats.multivariate_normal"


norm = _Norm()
laplace = _Laplace()
logistic = _Logistic()
cauchy = _Cauchy()
uniform = _Uniform()
lognorm = _Lognorm()
halfnorm = _Halfnorm()
skewnorm = _Skewnorm()
weibull_min = _WeibullMin()
gumbel_r = _GumbelR()
gumbel_l = _GumbelL()
pareto = _Pareto()
rayleigh = _Rayleigh()
vonmises = _Vonmises()
kstwobign = _Kstwobign()
ksone = _Ksone()
tukeylambda = _Tukeylambda()
invgamma = _Invgamma()
lomax = _Lomax()
invweibull = _Invweibull()
binom = _Binom()
t = _T()
gamma = _Gamma()
chi2 = _Chi2()
beta = _Beta()
expon = _Expon()
poisson = _Poisson()
dirichlet = _Dirichlet()
multivariate_normal = _MultivariateNormal()


def __getattr__(name):
    """A scipy.stats distribution V.stats lacks: say which it has."""
    raise AttributeError(
        f"module 'variable.stats' has no attribute {name!r}: V.stats has {', '.join(__all__)} (scipy.stats' "
        f"names and arguments); write another density with gengrad's ops (V.log, V.gammaln, ...), "
        f"which differentiate it"
    )
