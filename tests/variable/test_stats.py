"""V.stats: scipy.stats' distributions on Variables.

Values against SciPy's at points inside and outside each support (SciPy is a test-time
reference only), derivatives against central differences in every argument that has one,
and the edges: no NumPy warning (the suite turns RuntimeWarnings into errors), zero
gradients outside the support, NaN for a scale or shape that is not positive.
"""

import math
import os
from decimal import Decimal, localcontext

import numpy as np
import pytest
from op_rows import device_order
from test_ops_distribution_functions import _tukey_decimal
from test_ops_implicit import tail_reference

import variable as V

stats = pytest.importorskip("scipy.stats")

RNG = np.random.default_rng(7)
X = RNG.normal(size=6) * 2
POS = np.abs(RNG.normal(size=6)) * 2 + 0.1
UNIT = np.array([0.05, 0.2, 0.45, 0.5, 0.8, 0.97])

# (distribution, method, arguments as SciPy takes them)
VALUES = [
    *[("norm", m, (X, 0.3, 1.7)) for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")],
    ("norm", "logpdf", (X.reshape(2, 3), np.array([0.1, -0.2, 0.3]), np.array([[0.5], [2.0]]))),
    ("norm", "ppf", (UNIT, 0.3, 1.7)), ("norm", "isf", (UNIT, 0.3, 1.7)),
    *[(dist, m, (UNIT, *shapes, 0.3, 1.7)) for dist, shapes in (("t", (4.5,)), ("gamma", (2.5,)),
                                                                  ("chi2", (3.0,)), ("beta", (2.0, 0.7)))
      for m in ("ppf", "isf")],
    *[("t", m, (X, np.array([0.7, 3.0, 30.0, np.inf, 1.0, 2.5]), 0.3, 1.7))
      for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")],
    *[("gamma", m, (np.append(POS[:5], -1.0), np.array([0.5, 1.0, 2.0, 3.5, 10.0, 2.0]), 0.05, 2.0))
      for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")],
    *[("chi2", m, (POS, np.array([1.0, 2.0, 3.0, 5.5, 10.0, 0.5]))) for m in ("pdf", "logpdf", "cdf", "sf")],
    *[("expon", m, (X, 0.1, 1.5)) for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")],
    *[("beta", m, (np.array([-0.1, 0.0, 0.2, 0.5, 1.0, 1.3]), np.array([2.0, 1.0, 3.0, 0.5, 0.7, 2.0]),
                   np.array([2.0, 0.5, 3.0, 1.0, 0.7, 4.0])))
      for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")],
    *[("poisson", m, (np.array([0.0, 1.0, 2.5, -1.0, 7.0, 12.0]), 3.2))
      for m in ("pmf", "logpmf", "cdf", "sf")],
    *[(dist, m, args) for dist, args in [
        ("laplace", (X, 0.3, 1.2)), ("logistic", (X * 20, 0.3, 1.2)), ("cauchy", (X * 1e3, 0.3, 1.2)),
        ("uniform", (X, -1.0, 2.5)), ("lognorm", (np.append(POS[:5], 0.0), 0.8, 0.0, 1.5)),
        ("halfnorm", (X, -0.5, 1.3))] for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")],
    *[("skewnorm", m, (X, np.array([-4.0, -0.5, 0.0, 0.7, 3.0, 6.0]), 0.3, 1.7))
      for m in ("pdf", "logpdf")],
    *[(dist, m, args) for dist, args in [
        ("weibull_min", (X, 1.7, -0.5, 1.3)), ("gumbel_r", (X * 5, 0.3, 1.2)),
        ("gumbel_l", (X * 5, 0.3, 1.2)),
        ("pareto", (X + 2, 2.5, 0.1, 1.2)), ("rayleigh", (X, -0.5, 1.3))]
      for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")],
    *[(dist, m, (np.append(UNIT[:5], [0.0]), *shapes, 0.3, 1.7))
      for dist, shapes in (("weibull_min", (1.7,)), ("gumbel_r", ()), ("gumbel_l", ()), ("pareto", (2.5,)),
                           ("rayleigh", ())) for m in ("ppf", "isf")],
    *[("vonmises", m, (X, np.array([0.1, 1.0, 2.0, 5.0, 30.0, 700.0]), 0.3, 1.1)) for m in ("pdf", "logpdf")],
    *[("kstwobign", m, (np.array([-0.5, 0.1, 0.35, 0.9, 1.6, 2.8]), 0.1, 1.2))
      for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")],
    *[("kstwobign", m, (np.append(UNIT[:5], [0.0]), 0.3, 1.7)) for m in ("ppf", "isf")],
    *[("ksone", m, (np.array([-0.5, 0.03, 0.12, 0.3, 0.6, 1.4]), 12, 0.02, 1.1))
      for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")],
    *[("ksone", m, (np.append(UNIT[:5], [0.0]), 12, 0.3, 1.7)) for m in ("ppf", "isf")],
    *[("tukeylambda", m, (np.array([-3.0, -0.7, 0.0, 0.4, 1.9, 60.0]), lam, 0.1, 1.3))   # (SciPy: 1e-14)
      for lam in (2.5,) for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")],
    *[("tukeylambda", m, (np.append(UNIT[:5], [0.0]), lam, 0.3, 1.7)) for lam in (-1.2, 0.0, 0.4)
      for m in ("ppf", "isf")],
    *[(dist, m, (np.array([-0.5, 0.1, 0.35, 0.9, 2.6, 40.0]), shape, 0.1, 1.2))
      for dist, shape in (("invgamma", 2.5), ("lomax", 1.7), ("invweibull", 1.7))
      for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")],
    *[(dist, m, (np.append(UNIT[:5], [0.0, 1.0]), shape, 0.3, 1.7))
      for dist, shape in (("invgamma", 2.5), ("lomax", 1.7), ("invweibull", 1.7)) for m in ("ppf", "isf")],
    *[("binom", m, (np.array([-1.0, 0.0, 2.5, 5.0, 10.0, 12.0]), 10, 0.3))
      for m in ("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf")],
]


def _ours(dist, method):
    return getattr(getattr(V.stats, dist), method)


@pytest.mark.parametrize("dist, method, args", VALUES, ids=[f"{d}.{m}" for d, m, _ in VALUES])
def test_values_are_scipys(dist, method, args):
    ours = _ours(dist, method)(*args).data
    theirs = np.asarray(getattr(getattr(stats, dist), method)(*args), dtype=float)
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=2e-14, atol=0)       # infinities and NaN alike


def test_a_scale_or_shape_that_is_not_positive_gives_nan_as_scipy():
    np.testing.assert_array_equal(V.stats.norm.logpdf(X, 0.0, -1.0).data, np.full(6, np.nan))
    np.testing.assert_array_equal(V.stats.gamma.cdf(POS, -2.0).data, np.full(6, np.nan))
    np.testing.assert_array_equal(V.stats.t.logpdf(X, 0.0).data, np.full(6, np.nan))
    assert np.isnan(V.stats.poisson.pmf(2.0, -1.0).data)


def test_the_multivariate_distributions_are_scipys():
    cov = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
    mean, x = np.array([0.1, -0.4, 0.2]), RNG.normal(size=(5, 3))
    mvn = stats.multivariate_normal
    ours = V.stats.multivariate_normal
    np.testing.assert_allclose(ours.logpdf(x, mean, cov).data, mvn.logpdf(x, mean, cov), rtol=1e-14)
    np.testing.assert_allclose(ours.pdf(x[0], mean, cov).data, mvn.pdf(x[0], mean, cov), rtol=1e-14)
    np.testing.assert_allclose(V.stats.multivariate_normal.entropy(mean, cov).data, mvn.entropy(mean, cov),
                               rtol=1e-14)
    for c in (0.7, np.array([0.5, 2.0, 1.5])):              # a variance, or the diagonal
        np.testing.assert_allclose(ours.logpdf(x, mean, c).data, mvn.logpdf(x, mean, c), rtol=1e-14)
        np.testing.assert_allclose(ours.entropy(mean, c).data, mvn.entropy(mean, c), rtol=1e-14)
    variance = V.Variable(np.array(0.7))                       # a learned variance keeps its graph
    g = V.grad(V.sum(ours.logpdf(x, mean, variance)), variance)
    np.testing.assert_allclose(g.data, np.sum(np.sum((x - mean) ** 2, axis=1) / 0.7 ** 2 / 2 - 1.5 / 0.7))
    alpha = np.array([1.5, 2.0, 3.0])
    points = RNG.dirichlet(alpha, size=4).T                     # SciPy's layout: components first
    np.testing.assert_allclose(V.stats.dirichlet.logpdf(points, alpha).data,
                               stats.dirichlet.logpdf(points, alpha), rtol=1e-14)
    np.testing.assert_allclose(V.stats.dirichlet.pdf(points[:, 0], alpha).data,
                               stats.dirichlet.pdf(points[:, 0], alpha), rtol=1e-14)


# (function of Variables, the point, order): every argument that has a derivative
DERIVATIVES = [
    ("norm.logpdf", lambda x, m, s: V.stats.norm.logpdf(x, m, s), (X[:3], X[3:], POS[:3]), 3),
    ("norm.logcdf", lambda x, m, s: V.stats.norm.logcdf(x, m, s), (X[:3], X[3:], POS[:3]), 2),
    ("norm.sf", lambda x, m, s: V.stats.norm.sf(x, m, s), (X[:3], X[3:], POS[:3]), 2),
    ("norm.ppf", lambda q, m, s: V.stats.norm.ppf(q, m, s), (UNIT[:3], X[:3], POS[:3]), 2),
    ("t.ppf", lambda q, m, s: V.stats.t.ppf(q, 4.5, m, s), (UNIT[:3], X[:3], POS[:3]), 2),
    ("gamma.isf", lambda q, s: V.stats.gamma.isf(q, 2.5, 0.0, s), (UNIT[:3], POS[:3]), 2),
    ("beta.ppf", lambda q: V.stats.beta.ppf(q, 2.0, 0.7), (UNIT[:3],), 2),
    ("t.logpdf", lambda x, df, m, s: V.stats.t.logpdf(x, df, m, s),
     (X[:3], POS[:3] + 1, X[3:], POS[3:]), 3),
    ("t.logcdf", lambda x, m, s: V.stats.t.logcdf(x, 2.5, m, s), (X[:3], X[3:], POS[3:]), 2),
    ("gamma.logpdf", lambda x, a, s: V.stats.gamma.logpdf(x, a, 0.0, s),
     (POS[:3], POS[3:] + 1, POS[:3]), 3),
    ("gamma.sf", lambda x, s: V.stats.gamma.sf(x, 2.5, 0.0, s), (POS[:3], POS[3:]), 2),
    ("chi2.logpdf", lambda x, df: V.stats.chi2.logpdf(x, df), (POS[:3], POS[3:] + 2), 2),
    ("expon.logcdf", lambda x, s: V.stats.expon.logcdf(x, 0.0, s), (POS[:3], POS[3:]), 2),
    ("beta.logpdf", lambda x, a, b: V.stats.beta.logpdf(x, a, b),
     (UNIT[:3], POS[:3] + 1, POS[3:] + 1), 3),
    ("beta.cdf", lambda x, s: V.stats.beta.cdf(x, 2.0, 3.0, 0.0, s), (UNIT[:3], POS[3:] + 1), 2),
    ("laplace.logpdf", lambda x, m, s: V.stats.laplace.logpdf(x, m, s), (X[:3], X[3:], POS[:3]), 2),
    ("laplace.cdf", lambda x, s: V.stats.laplace.cdf(x, 0.1, s), (X[:3], POS[:3]), 2),
    ("logistic.logpdf", lambda x, m, s: V.stats.logistic.logpdf(x, m, s), (X[:3], X[3:], POS[:3]), 3),
    ("logistic.logsf", lambda x, s: V.stats.logistic.logsf(x, 0.1, s), (X[:3], POS[:3]), 2),
    ("cauchy.logpdf", lambda x, m, s: V.stats.cauchy.logpdf(x, m, s), (X[:3], X[3:], POS[:3]), 3),
    ("cauchy.cdf", lambda x, s: V.stats.cauchy.cdf(x, 0.1, s), (X[:3] * 5, POS[:3]), 2),
    ("uniform.cdf", lambda x, m: V.stats.uniform.cdf(x, m, 4.0), (np.array([0.3, 1.1, 2.9]), X[:3] * 0.1), 2),
    ("lognorm.logpdf", lambda x, s, c: V.stats.lognorm.logpdf(x, s, 0.0, c), (POS[:3], POS[3:], POS[:3]), 3),
    ("lognorm.sf", lambda x, s: V.stats.lognorm.sf(x, s), (POS[:3], POS[3:]), 2),
    ("halfnorm.logpdf", lambda x, s: V.stats.halfnorm.logpdf(x, 0.0, s), (POS[:3], POS[3:]), 3),
    ("halfnorm.cdf", lambda x, s: V.stats.halfnorm.cdf(x, 0.0, s), (POS[:3], POS[3:]), 2),
    ("skewnorm.logpdf", lambda x, a, m, s: V.stats.skewnorm.logpdf(x, a, m, s),
     (X[:3], X[3:] * 2, X[3:], POS[:3]), 3),
    ("skewnorm.cdf", lambda x, a, s: V.stats.skewnorm.cdf(x, a, 0.2, s), (X[:3], X[3:] * 2, POS[:3]), 2),
    ("weibull_min.logpdf", lambda x, c, s: V.stats.weibull_min.logpdf(x, c, 0.0, s),
     (POS[:3], POS[3:] + 0.5, POS[:3]), 3),
    ("weibull_min.sf", lambda x, c: V.stats.weibull_min.sf(x, c), (POS[:3], POS[3:] + 0.5), 2),
    ("weibull_min.ppf", lambda q, c, s: V.stats.weibull_min.ppf(q, c, 0.1, s),
     (UNIT[:3], POS[3:] + 0.5, POS[:3]), 2),
    ("gumbel_r.logpdf", lambda x, m, s: V.stats.gumbel_r.logpdf(x, m, s), (X[:3], X[3:], POS[:3]), 3),
    ("gumbel_l.cdf", lambda x, s: V.stats.gumbel_l.cdf(x, 0.1, s), (X[:3], POS[:3]), 2),
    ("gumbel_r.isf", lambda q, s: V.stats.gumbel_r.isf(q, 0.1, s), (UNIT[:3], POS[:3]), 2),
    ("pareto.logpdf", lambda x, b: V.stats.pareto.logpdf(x, b), (POS[:3] + 1, POS[3:]), 3),
    ("pareto.cdf", lambda x, b, s: V.stats.pareto.cdf(x, b, 0.0, s),
     (POS[:3] + 3, POS[3:], POS[:3] + 0.5), 2),
    ("rayleigh.logpdf", lambda x, s: V.stats.rayleigh.logpdf(x, 0.0, s), (POS[:3], POS[3:]), 3),
    ("rayleigh.ppf", lambda q, s: V.stats.rayleigh.ppf(q, 0.0, s), (UNIT[:3], POS[:3]), 2),
    ("vonmises.logpdf", lambda x, k, m: V.stats.vonmises.logpdf(x, k, m), (X[:3], POS[:3], X[3:]), 3),
    ("kstwobign.logpdf", lambda x, m, s: V.stats.kstwobign.logpdf(x, m, s),   # (its three ways)
     (np.array([0.25, 1.2, 3.4]), np.array([0.02, -0.1, 0.1]), np.array([1.1, 0.8, 0.9])), 3),
    ("kstwobign.cdf", lambda x, s: V.stats.kstwobign.cdf(x, 0.1, s), (POS[:3] * 0.5 + 0.3, POS[3:]), 2),
    ("kstwobign.logcdf", lambda x: V.stats.kstwobign.logcdf(x), (np.array([0.2, 0.28, 1.5]),), 2),
    ("kstwobign.logsf", lambda x: V.stats.kstwobign.logsf(x), (np.array([0.5, 2.9, 3.5]),), 2),
    ("kstwobign.ppf", lambda q, s: V.stats.kstwobign.ppf(q, 0.0, s), (UNIT[:3], POS[:3]), 2),
    ("kstwobign.isf", lambda q: V.stats.kstwobign.isf(q), (UNIT[3:],), 2),
    ("ksone.logpdf", lambda x: V.stats.ksone.logpdf(x, 12), (np.array([0.03, 0.2, 0.45]),), 3),
    ("ksone.cdf", lambda x, s: V.stats.ksone.cdf(x, 12, 0.0, s),
     (np.array([0.05, 0.3, 0.5]), np.array([1.1, 1.3, 0.9])), 2),
    ("ksone.isf", lambda q: V.stats.ksone.isf(q, 12), (UNIT[:3],), 2),
    ("ksone.ppf", lambda q, s: V.stats.ksone.ppf(q, 12, 0.1, s),      # (either side of 1/n's CDF)
     (np.array([1e-3, 0.15, 0.6]), POS[:3]), 3),
    ("tukeylambda.logpdf", lambda x, s: V.stats.tukeylambda.logpdf(x, -0.4, 0.1, s), (X[:3], POS[:3]), 3),
    ("tukeylambda.sf", lambda x: V.stats.tukeylambda.sf(x, 0.3), (np.array([-2.0, 0.4, 1.5]),), 2),
    ("tukeylambda.ppf", lambda q, lam, s: V.stats.tukeylambda.ppf(q, lam, 0.2, s),    # (in lambda too)
     (UNIT[:3], np.array([-0.5, 0.0, 0.7]), POS[:3]), 3),
    ("invgamma.logpdf", lambda x, a, s: V.stats.invgamma.logpdf(x, a, 0.0, s),
     (POS[:3], POS[3:] + 1, POS[:3]), 3),
    ("invgamma.cdf", lambda x, s: V.stats.invgamma.cdf(x, 2.5, 0.1, s), (POS[:3] + 0.5, POS[3:]), 2),
    ("invgamma.isf", lambda q, s: V.stats.invgamma.isf(q, 2.5, 0.0, s), (UNIT[:3], POS[:3]), 2),
    ("lomax.logpdf", lambda x, c, s: V.stats.lomax.logpdf(x, c, 0.0, s), (POS[:3], POS[3:], POS[:3]), 3),
    ("lomax.sf", lambda x, c: V.stats.lomax.sf(x, c), (POS[:3], POS[3:]), 2),
    ("lomax.ppf", lambda q, c, s: V.stats.lomax.ppf(q, c, 0.1, s), (UNIT[:3], POS[3:], POS[:3]), 2),
    ("invweibull.logpdf", lambda x, c, s: V.stats.invweibull.logpdf(x, c, 0.0, s),
     (POS[:3], POS[3:] + 0.5, POS[:3]), 3),
    ("invweibull.cdf", lambda x, c: V.stats.invweibull.cdf(x, c), (POS[:3], POS[3:] + 0.5), 2),
    ("invweibull.isf", lambda q, c, s: V.stats.invweibull.isf(q, c, 0.1, s),
     (UNIT[:3], POS[3:] + 0.5, POS[:3]), 2),
    ("skewnorm.logsf", lambda x, a: V.stats.skewnorm.logsf(x, a), (X[:3], np.array([2.0, -1.5, 0.4])), 2),
    ("binom.logpmf", lambda p: V.stats.binom.logpmf(np.array([0.0, 3.0, 7.0]), 7, p), (UNIT[1:4],), 3),
    ("binom.cdf", lambda p: V.stats.binom.cdf(np.array([0.0, 3.0, 6.0]), 7, p), (UNIT[1:4],), 2),
    ("poisson.logpmf", lambda mu: V.stats.poisson.logpmf(np.array([0.0, 2.0, 5.0]), mu), (POS[:3],), 3),
    ("poisson.cdf", lambda mu: V.stats.poisson.cdf(np.array([0.0, 2.0, 5.0]), mu), (POS[:3],), 2),
    ("dirichlet.logpdf", lambda x, a: V.stats.dirichlet.logpdf(x / V.sum(x), a),   # (on the simplex)
     (UNIT[:3], POS[:3]), 2),
    ("multivariate_normal.logpdf",
     lambda x, m, c: V.stats.multivariate_normal.logpdf(x, m, (c + c.T) / 2 + 2 * np.eye(2)),
     (X[:4].reshape(2, 2), X[4:], np.array([[1.0, 0.2], [0.1, 0.5]])), 2),
]


ON_A_DEVICE = os.environ.get("GENGRAD_DEVICE", "cpu") != "cpu"
HOST_ONLY = {"skewnorm.cdf", "skewnorm.logsf", "t.ppf", "gamma.isf", "beta.ppf", "invgamma.isf"}
"""Checks a device would run far slower than the host (50 s of the stand-in's time): the skew-normal's
tail takes all three of its ways on every entry, 40 quadrature nodes each, and a quantile all of its
solver's steps, for every central difference; their device paths are held by
test_the_skew_normal_cdf_on_the_device and test_ops_distribution_inverses.py's device test."""


@pytest.mark.parametrize("name, f, point, order", DERIVATIVES, ids=[row[0] for row in DERIVATIVES])
def test_derivatives_match_central_differences(name, f, point, order):
    if ON_A_DEVICE and name in HOST_ONLY:
        pytest.skip("a host check: its device path has a test of its own (HOST_ONLY)")
    entrywise = name.split(".")[0] not in ("dirichlet", "multivariate_normal")   # (the others: by entry)
    assert V.gradcheck(f, *point, order=device_order(order), entrywise=entrywise)   # (as the op tables')


def test_outside_the_support_the_gradient_is_zero_and_no_warning_is_raised():
    x = V.Variable(np.array([-1.0, 0.25, 0.5, 0.75, 2.0]))    # (at 0 and 1 the value may be infinite)
    a, b = V.Variable(np.array(2.0)), V.Variable(np.array(3.0))
    for value in (V.stats.beta.logpdf(x, a, b), V.stats.beta.cdf(x, 2.0, 3.0), V.stats.gamma.logpdf(x, a),
                  V.stats.gamma.logcdf(x, 2.0), V.stats.expon.logpdf(x)):
        gx = V.grad(V.sum(V.where(np.isfinite(value.data), value, 0.0)), x)
        assert np.all(np.isfinite(gx.data)) and gx.data[0] == 0.0
    sigma = V.Variable(np.array([1.0, -1.0]))
    g = V.grad(V.sum(V.where(np.isfinite(V.stats.norm.logpdf(0.5, 0.0, sigma).data),
                             V.stats.norm.logpdf(0.5, 0.0, sigma), 0.0)), sigma)
    np.testing.assert_allclose(g.data, [0.25 - 1.0, 0.0])       # d/ds (-z^2/2 - log s) = z^2/s - 1/s


def test_a_gaussian_fit_by_maximum_likelihood_recovers_the_sample_moments():
    data = RNG.normal(1.5, 0.7, size=400)
    mu, log_sigma = V.Variable(np.array(0.0)), V.Variable(np.array(0.0))
    for _ in range(200):
        nll = -V.sum(V.stats.norm.logpdf(data, mu, V.exp(log_sigma))) / len(data)
        g_mu, g_ls = V.grad(nll, [mu, log_sigma])
        mu.data -= 0.5 * g_mu.data
        log_sigma.data -= 0.5 * g_ls.data
    np.testing.assert_allclose([mu.item(), np.exp(log_sigma.item())], [data.mean(), data.std()], rtol=1e-6)


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match=r"V\.stats\.norm\.logpdf: scale must be a number, an array of "
                                        r"numbers or a Variable, got None"):
        V.stats.norm.logpdf(1.0, 0.0, None)
    with pytest.raises(TypeError, match=r"V\.stats\.gamma\.cdf: x must be .* got str"):
        V.stats.gamma.cdf("1.0", 2.0)
    with pytest.raises(TypeError, match=r"V\.stats\.norm\.cdf: .* got an array of dtype complex128"):
        V.stats.norm.cdf(np.array([1j]))
    with pytest.raises(TypeError, match=r"V\.stats\.t\.logpdf: missing a required argument: 'df'"):
        V.stats.t.logpdf(1.0)
    with pytest.raises(ValueError, match=r"V\.stats\.norm\.logpdf: the arguments' shapes do not broadcast "
                                         r"together: x \(3,\), loc \(2,\), scale \(\)"):
        V.stats.norm.logpdf(np.ones(3), np.ones(2))
    if os.environ.get("GENGRAD_DEVICE", "cpu") == "cpu":                  # (device data is not read)
        with pytest.raises(ValueError, match=r"V\.stats\.dirichlet\.logpdf: x must lie in the open simplex"):
            V.stats.dirichlet.logpdf(np.array([0.5, 0.6]), np.ones(2))
    np.testing.assert_allclose(V.stats.norm.logpdf([0.1, 0.2]).data, stats.norm.logpdf([0.1, 0.2]))  # a list


def test_wrong_shapes_are_named():
    with pytest.raises(ValueError, match=r"dirichlet\.logpdf: alpha must be a vector.*x of shape \(4,\)"):
        V.stats.dirichlet.logpdf(np.full(4, 0.25), np.ones(3))
    with pytest.raises(ValueError, match=r"multivariate_normal\.logpdf: cov must be a \(3, 3\) matrix"):
        V.stats.multivariate_normal.logpdf(np.zeros(3), np.zeros(3), np.ones(2))


@pytest.mark.skipif(os.environ.get("GENGRAD_DEVICE", "cpu") != "cpu",
                    reason="on a device, NumPy refuses to convert device data before SciPy's code runs")
def test_scipys_own_functions_on_a_variable_name_v_stats():
    x = V.Variable(np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match=r"scipy\.stats\.norm\.logpdf.*V\.stats\.norm\.logpdf\(x, loc, "
                                         r"scale\)"):
        stats.norm.logpdf(x)
    with pytest.raises(ValueError,
                       match=r"scipy\.stats\.gamma\.logpdf.*V\.stats\.gamma\.logpdf\(x, a, loc, scale\)"):
        stats.gamma.logpdf(x, 2.0)
    spelled = r"scipy\.stats\.skewnorm\.logpdf.*V\.stats\.skewnorm\.logpdf\(x, a, loc, scale\)"
    with pytest.raises(ValueError, match=spelled):
        stats.skewnorm.logpdf(x, 2.0)


def test_on_the_device_the_values_are_the_hosts_and_the_densities_read_nothing_back(gpu, count_syncs):
    x, unit = V.Variable(X[:4]), V.Variable(UNIT[:4])
    calls = [lambda x, u: V.stats.norm.logpdf(x, 0.2, 1.5), lambda x, u: V.stats.t.logpdf(x, 3.0),
             lambda x, u: V.stats.gamma.logpdf(V.abs(x), 2.0), lambda x, u: V.stats.gamma.sf(V.abs(x), 2.0),
             lambda x, u: V.stats.beta.logpdf(u, 2.0, 3.0), lambda x, u: V.stats.expon.logcdf(x),
             lambda x, u: V.stats.poisson.logpmf(np.floor(u.data * 4), V.abs(x)),   # (k on u's device)
             lambda x, u: V.stats.multivariate_normal.logpdf(V.reshape(x, (2, 2)), None, 2.0)]
    for call in calls:
        host = call(x, unit)
        host_gradient = V.grad(V.sum(host), x, materialize_grads=True)
        moved = V.Variable(X[:4]).to_gpu(), V.Variable(UNIT[:4]).to_gpu()   # (to_gpu moves in place)
        with count_syncs() as syncs:
            value = call(*moved)
            gradient = V.grad(V.sum(value), moved[0], materialize_grads=True)
        assert syncs.count == 0
        np.testing.assert_allclose(V.backend.to_cpu(value.data), host.data, rtol=1e-14)
        np.testing.assert_allclose(V.backend.to_cpu(gradient.data), host_gradient.data, rtol=1e-13)


def test_a_frozen_distribution_takes_its_parameters_once_as_scipys_does():
    x = np.array([0.2, 1.5])
    np.testing.assert_allclose(V.stats.norm(0.5, 2.0).logpdf(x).data, stats.norm(0.5, 2.0).logpdf(x),
                               rtol=1e-15)
    np.testing.assert_allclose(V.stats.t(3.0, loc=1.0).cdf(x).data, stats.t(3.0, loc=1.0).cdf(x), rtol=1e-15)
    np.testing.assert_allclose(V.stats.multivariate_normal(np.zeros(2), np.eye(2)).logpdf(x).data,
                               stats.multivariate_normal(np.zeros(2), np.eye(2)).logpdf(x), rtol=1e-15)
    sigma = V.Variable(np.array(2.0))
    frozen = V.stats.norm(0.0, sigma)
    assert repr(frozen) == "V.stats.norm(0.0, variable(2.0))"
    np.testing.assert_allclose(V.grad(V.sum(frozen.logpdf(x)), sigma).data, np.sum(x ** 2 / 8 - 0.5))


def test_the_skew_normal_is_the_normal_at_a_0_and_its_density_integrates_to_1():
    x = np.linspace(-8, 8, 4001)
    np.testing.assert_allclose(V.backend.to_cpu(V.stats.skewnorm.logpdf(x, 0.0, 0.3, 1.7).data),
                               V.backend.to_cpu(V.stats.norm.logpdf(x, 0.3, 1.7).data), rtol=1e-15)
    for a in (-3.0, 0.5, 6.0):
        density = V.backend.to_cpu(V.stats.skewnorm.pdf(x, a).data)
        assert abs(np.sum(density) * (x[1] - x[0]) - 1) < 1e-12          # (the tails below e^-32)
        mean = np.sum(x * density) * (x[1] - x[0])                        # sqrt(2/pi) a / sqrt(1 + a^2)
        assert abs(mean - math.sqrt(2 / math.pi) * a / math.sqrt(1 + a * a)) < 1e-12


def test_methods_a_distribution_lacks_are_refused_by_their_own_names():
    for method in ("ppf", "isf", "entropy"):
        with pytest.raises(AttributeError, match=rf"V\.stats\.skewnorm has no '{method}': it has cdf, "):
            getattr(V.stats.skewnorm, method)(0.5, 2.0)


@pytest.mark.skipif(ON_A_DEVICE, reason="accuracy, on the host: test_the_skew_normal_cdf_on_the_device")
def test_the_skew_normal_cdf_keeps_its_tail_against_the_skew():
    """cdf(z) = 2 (Q(|z|)/2 - T(|z|, a)) for z < 0 < a, where Phi(z) - 2 T(z, a) cancels to nothing
    (SciPy's is off by 25% at a = 30, z = -1), and the mirror sf(z; a) = cdf(-z; -a)."""
    cases = [(-6.0, 4.0), (-3.0, 4.0), (-1.0, 30.0), (-0.2, 30.0), (-1.0, 4.0), (-20.0, 0.5),
             (-0.05, 300.0)]
    for z, a in cases:
        expected = 2 * tail_reference(-z, a)
        np.testing.assert_allclose(V.backend.to_cpu(V.stats.skewnorm.cdf(z, a).data), expected, rtol=2e-14)
        np.testing.assert_allclose(V.backend.to_cpu(V.stats.skewnorm.sf(-z, -a).data), expected, rtol=2e-14)
        log = V.backend.to_cpu(V.stats.skewnorm.logcdf(z, a).data)
        np.testing.assert_allclose(log, math.log(expected), rtol=1e-15)


def test_the_skew_normal_cdf_is_scipys_where_scipys_keeps_its_digits():
    """Away from the tails (SciPy's loses 2e-8 of a 3e-9 CDF at a = 2)."""
    z, a = np.meshgrid(np.linspace(-4, 4, 17), np.array([-5.0, -1.0, 0.0, 0.5, 2.0, 5.0]))
    for method in ("cdf", "sf"):
        ours = V.backend.to_cpu(getattr(V.stats.skewnorm, method)(z, a, 0.1, 1.3).data)
        theirs = getattr(stats.skewnorm, method)(z, a, 0.1, 1.3)
        kept = theirs > 1e-3
        np.testing.assert_allclose(ours[kept], theirs[kept], rtol=5e-14)


def test_the_skew_normal_cdf_on_the_device(gpu, count_syncs):
    """Each of its ways on every entry, with no host sync: the host's values and gradients to an
    ulp or two (Owen's T there takes the same nodes; the normal tails are the host's)."""
    x = np.array([-6.0, -1.0, -0.2, 0.0, 0.7, 3.0])
    a = np.array([4.0, 30.0, -2.0, 0.0, 0.5, -4.0])
    host_x, host_a = V.Variable(x), V.Variable(a)
    host = V.stats.skewnorm.cdf(host_x, host_a)
    host_gradients = V.grad(V.sum(host), [host_x, host_a])
    moved = V.Variable(x).to_gpu(), V.Variable(a).to_gpu()
    with count_syncs() as syncs:
        value = V.stats.skewnorm.cdf(*moved)
        gradients = V.grad(V.sum(value), list(moved))
    assert syncs.count == 0
    np.testing.assert_allclose(V.backend.to_cpu(value.data), host.data, rtol=1e-14)
    for g, h in zip(gradients, host_gradients):
        np.testing.assert_allclose(V.backend.to_cpu(g.data), h.data, rtol=1e-13)


def test_the_skew_normal_cdf_is_the_integral_of_its_density():
    x = np.linspace(-8, 3, 11001)
    for a in (-2.0, 0.0, 3.0):
        density = V.backend.to_cpu(V.stats.skewnorm.pdf(x, a).data)
        trapezoid = np.concatenate([[0.0], np.cumsum((density[1:] + density[:-1]) / 2) * (x[1] - x[0])])
        cdf = V.backend.to_cpu(V.stats.skewnorm.cdf(x, a).data)
        np.testing.assert_allclose(cdf - cdf[0], trapezoid, atol=2e-7)   # (the trapezoid rule's error)


def test_kstwobign_keeps_its_log_tails_where_the_values_underflow():
    """logpdf, logcdf below z = 0.3 and logpdf, logsf from 3 as the leading terms themselves
    (-pi^2 / (8 z^2) + ..., -2 z^2 + ...): finite where SciPy's log of an underflowed value is -inf,
    and the log of the value where it does not underflow."""
    z = np.array([0.01, 0.03, 0.1, 0.29])
    theta = np.pi ** 2 / (8 * z * z)
    cdf = np.sqrt(2 * np.pi) / z * np.exp(-theta)        # (the next term: e^(-9 theta), below e^-109 of it)
    expected_log = 0.5 * np.log(2 * np.pi) - np.log(z) - theta
    np.testing.assert_allclose(V.backend.to_cpu(V.stats.kstwobign.logcdf(z).data), expected_log, rtol=1e-15)
    density = 0.5 * np.log(2 * np.pi) - theta + np.log(2 * theta / z ** 2 - 1 / z ** 2)
    np.testing.assert_allclose(V.backend.to_cpu(V.stats.kstwobign.logpdf(z).data), density, rtol=1e-14)
    kept = cdf > 1e-300
    ours = V.backend.to_cpu(V.stats.kstwobign.cdf(z).data)
    np.testing.assert_allclose(np.exp(expected_log[kept]), ours[kept], rtol=1e-13)
    w = np.array([3.0, 10.0, 30.0, 1e10])
    np.testing.assert_allclose(V.backend.to_cpu(V.stats.kstwobign.logsf(w).data), np.log(2) - 2 * w * w,
                               rtol=1e-15)
    np.testing.assert_allclose(V.backend.to_cpu(V.stats.kstwobign.logpdf(w).data),
                               np.log(8 * w) - 2 * w * w, rtol=1e-15)
    for method, edge in (("logpdf", 0.3), ("logpdf", 3.0), ("logcdf", 0.3), ("logsf", 3.0)):
        below, at = V.backend.to_cpu(getattr(V.stats.kstwobign, method)(np.array([edge - 1e-12, edge])).data)
        np.testing.assert_allclose(below, at, rtol=1e-10)       # (one formula meets the other)


def test_tukeylambda_keeps_its_far_tails():
    """sf as the mirrored CDF and the density from min(F, 1 - F): at lambda = 0 (the logistic) to
    the last digits where 1 - cdf and SciPy's lose them (SciPy's sf at z = 30: 5e-4 off); the
    density's logarithm finite where G^(lambda - 1) overflows."""
    z = np.array([-40.0, -5.0, 0.5, 12.0, 30.0])
    np.testing.assert_allclose(V.backend.to_cpu(V.stats.tukeylambda.sf(z, 0.0).data), 1 / (1 + np.exp(z)),
                               rtol=2e-16)
    tail = np.exp(-np.abs(z))
    np.testing.assert_allclose(V.backend.to_cpu(V.stats.tukeylambda.pdf(z, 0.0).data), tail / (1 + tail) ** 2,
                               rtol=4e-15)
    far = V.backend.to_cpu(V.stats.tukeylambda.logpdf(np.array([-1e300, 1e300]), -1.0).data)
    np.testing.assert_allclose(far, 2 * np.log(1e-300) + 0.0, rtol=1e-14)   # (F = 1/|x|: -2 log|x|)
    for lam, x in ((-1.2, np.array([-3.0, -0.7, 0.4, 1.9, 60.0])),     # (SciPy's sf = 1 - cdf: 5e-14
                   (0.5, np.array([-1.7, -0.7, 0.4, 1.5, 1.8]))):        # off at 1.9, lambda = 0.5)
        lower = np.array([_tukey_decimal(-abs(t), lam) for t in x])
        cdf = np.where(x <= 0, lower, 1 - lower)
        np.testing.assert_allclose(V.backend.to_cpu(V.stats.tukeylambda.cdf(x, lam).data), cdf, rtol=2e-15)
        np.testing.assert_allclose(V.backend.to_cpu(V.stats.tukeylambda.sf(-x, lam).data), cdf, rtol=2e-15)
        density = 1 / (lower ** (lam - 1) + (1 - lower) ** (lam - 1))
        ours = V.backend.to_cpu(V.stats.tukeylambda.pdf(x, lam).data)
        np.testing.assert_allclose(ours, density, rtol=1e-14)


def test_tukeylambda_lam_is_a_constant_but_in_its_quantiles():
    """A lam that requires grad is refused by the density and the CDF, naming the method and the
    fix (tklmbda is differentiated in x alone); the quantiles take its gradient."""
    lam = V.Variable(np.array(0.2), requires_grad=True)
    for method in ("logpdf", "cdf", "sf"):
        refusal = (rf"^V\.stats\.tukeylambda\.{method}\(x, lam, loc, scale\): gengrad differentiates it in "
                   r"x, loc and scale only, and lam requires grad")
        with pytest.raises(TypeError, match=refusal):
            getattr(V.stats.tukeylambda, method)(np.array([0.3]), lam)
    q = np.array([0.3])
    slope = V.grad(V.stats.tukeylambda.ppf(q, lam).sum(), lam).data
    step = 1e-6
    up, down = V.stats.tukeylambda.ppf(q, 0.2 + step).data, V.stats.tukeylambda.ppf(q, 0.2 - step).data
    difference = (up - down) / (2 * step)
    np.testing.assert_allclose(slope, difference[0], rtol=1e-7)


def test_ksone_below_1_over_n_is_its_one_term():
    """Below z = 1/n the CDF is z (1 + z)^(n - 1) (the complement's one term) and the density (1 +
    z)^(n - 2) (1 + n z), as themselves: a CDF of 1e-12 keeps its digits (1 - sf would keep 4),
    and logpdf its (SciPy's: 3.8e-8 at z = 1e-9, n = 20, for 3.79999998e-8); the sum's values meet
    them at 1/n."""
    n, z = 20, np.array([1e-12, 1e-9, 1e-3, 0.04])
    np.testing.assert_allclose(V.backend.to_cpu(V.stats.ksone.cdf(z, n).data), z * (1 + z) ** (n - 1),
                               rtol=1e-15)
    expected = (n - 2) * np.log1p(z) + np.log1p(n * z)
    np.testing.assert_allclose(V.backend.to_cpu(V.stats.ksone.logpdf(z, n).data), expected, rtol=2e-15)
    edge = np.array([1 / n - 1e-13, 1 / n + 1e-13])
    for method in ("cdf", "logcdf", "sf"):
        below, above = V.backend.to_cpu(getattr(V.stats.ksone, method)(edge, n).data)
        np.testing.assert_allclose(below, above, rtol=1e-11)


def test_ksone_ppf_below_the_cdf_at_1_over_n_inverts_its_one_term():
    """Below q = F(1/n) ksone's quantile solves z (1 + z)^(n - 1) = q to its last digits (a q of
    1e-300 too: 1 - q would round it away), its CDF gives q back; above, smirnovi(n, 1 - q); the two
    meet at F(1/n); n as an array takes each its own.  (n = 10^6 on the host alone: a device sums
    all n - 1 terms in each of smirnovi's 24 steps, 50 s of the stand-in.)"""
    for n in (1, 2, 7, 20, 1000) + (() if ON_A_DEVICE else (10 ** 6,)):
        edge = (1 + 1 / n) ** (n - 1) / n
        q = np.array([1e-300, 1e-40, 1e-12, 1e-6, 0.3, 0.999999]) * edge
        z = V.backend.to_cpu(V.stats.ksone.ppf(q, n).data)
        with localcontext() as context:
            context.prec = 40
            back = [Decimal(float(v)) * (1 + Decimal(float(v))) ** (n - 1) for v in z]
        relative = np.array([float(abs(b / Decimal(float(t)) - 1)) for b, t in zip(back, q)])
        assert np.all(relative <= 4 * 2.2e-16 * 2), (n, relative)   # (F's condition: z F' / F <= 2)
        if n > 1:
            around = np.array([edge * (1 - 1e-9), edge * (1 + 1e-9)])
            around = V.backend.to_cpu(V.stats.ksone.ppf(around, n).data)
            np.testing.assert_allclose(around * n, 1.0, atol=1e-8 * n)
    mixed = V.backend.to_cpu(V.stats.ksone.ppf(np.array([1e-5, 0.4]), np.array([3, 40])).data)
    single = [V.backend.to_cpu(V.stats.ksone.ppf(q, k).data) for q, k in ((1e-5, 3), (0.4, 40))]
    np.testing.assert_array_equal(mixed, np.array(single))


@pytest.mark.skipif(ON_A_DEVICE, reason="every method of every distribution (22 s of the stand-in): "
                                         "test_a_nan_argument_on_the_device_reads_nothing_back")
def test_a_nan_argument_gives_nan_as_scipys():
    """NaN in x, loc or a shape is NaN out, on every support (a one-sided support's mask compared
    a NaN x as outside it: 0, 1 or -inf)."""
    shapes = {"t": (3.0,), "gamma": (2.0,), "chi2": (3.0,), "beta": (2.0, 3.0), "lognorm": (0.8,),
              "skewnorm": (2.0,), "weibull_min": (1.5,), "pareto": (2.0,), "vonmises": (1.0,),
              "poisson": (2.0,), "binom": (5, 0.3), "invgamma": (2.5,), "lomax": (1.7,), "invweibull": (1.7,),
              "ksone": (9,), "tukeylambda": (0.3,)}
    checked = 0
    for dist in V.stats.__all__:
        if dist in ("dirichlet", "multivariate_normal"):
            continue
        for method in ("pdf", "logpdf", "cdf", "sf", "logcdf", "logsf", "ppf", "isf", "pmf", "logpmf"):
            x = np.array([np.nan, 0.7])
            try:
                function = getattr(getattr(V.stats, dist), method)
                value = V.backend.to_cpu(function(x, *shapes.get(dist, ())).data)
            except AttributeError:                             # (a method it lacks)
                continue
            assert np.isnan(value[0]) and not np.isnan(value[1]), (dist, method, value)
            at_nan_loc = function(0.7, *shapes.get(dist, ()), np.nan)
            assert np.isnan(V.backend.to_cpu(at_nan_loc.data)), (dist, method)
            checked += 1
    assert checked > 100
    x = V.Variable(np.array([np.nan, 0.5, 2.0]))        # (the gradient: 0 at the NaN)
    g = V.grad(V.sum(V.stats.rayleigh.logpdf(x)[1:]), x)
    np.testing.assert_allclose(g.data, [0.0, 1 / 0.5 - 0.5, 1 / 2.0 - 2.0])


def test_a_nan_argument_on_the_device_reads_nothing_back(gpu, count_syncs):
    x = V.Variable(np.array([np.nan, 0.5, 2.0])).to_gpu()
    with count_syncs() as syncs:
        value = V.stats.rayleigh.logpdf(x, 0.0, 1.0)
        gradient = V.grad(V.sum(value[1:]), x)
    assert syncs.count == 0
    expected = np.log([0.5, 2.0]) - [0.125, 2.0]
    np.testing.assert_allclose(V.backend.to_cpu(value.data)[1:], expected, rtol=1e-15)
    assert np.isnan(V.backend.to_cpu(value.data)[0])
    np.testing.assert_allclose(V.backend.to_cpu(gradient.data), [0.0, 1 / 0.5 - 0.5, 1 / 2.0 - 2.0])


def test_numbers_in_give_a_variable_out():
    """Each method of Python numbers is a Variable (expon.logsf(0.3) was the float -0.3)."""
    assert isinstance(V.stats.expon.logsf(0.3), V.Variable)
    assert isinstance(V.stats.expon.sf(0.3), V.Variable)
    value = V.stats.multivariate_normal.logpdf(0.3)
    assert isinstance(value, V.Variable) and value.shape == ()
    np.testing.assert_allclose(value.data, -0.5 * 0.09 - 0.5 * math.log(2 * math.pi), rtol=1e-15)


def test_a_distribution_v_stats_lacks_is_named_with_those_it_has():
    with pytest.raises(AttributeError, match=r"no attribute 'weibull_max': V\.stats has norm, t, gamma"):
        V.stats.weibull_max.logpdf(0.5)


TAYLOR = {"t.logpdf": lambda x: V.stats.t.logpdf(x, 3.0, 0.1, 1.5),
          "beta.cdf": lambda x: V.stats.beta.cdf(x / 3, 2.0, 3.0),
          "logistic.logcdf": lambda x: V.stats.logistic.logcdf(x),
          "cauchy.sf": lambda x: V.stats.cauchy.sf(x),
          "gamma.logsf": lambda x: V.stats.gamma.logsf(x, 2.0),
          "mvn.logpdf": lambda x: V.stats.multivariate_normal.logpdf(x, np.zeros(3), 2.0)}


@pytest.mark.parametrize("f", TAYLOR.values(), ids=TAYLOR.keys())
def test_taylor_mode_runs_through_them(f):
    # forward mode (V.jvp, V.taylor, V.hessian's rows) agrees with nested reverse mode
    assert V.taylorcheck(f, np.array([0.3, 1.2, 2.5]), order=3)
