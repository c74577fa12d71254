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

from ..backend import get_array_module
from ..forwarder import Function, new_variable
from .piecewise import where
from .special import (
    Betainc,
    Betaincc,
    Gammainc,
    Gammaincc,
    _as_float_variable,
    _constant_parameters,
    _floats_on_one_device,
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


__all__ = ["chdtr", "chdtrc", "gdtr", "gdtrc", "pdtr", "pdtrc", "bdtr", "bdtrc", "nbdtr", "nbdtrc", "fdtr",
           "fdtrc"]
