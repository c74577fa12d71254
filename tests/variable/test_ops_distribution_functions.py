"""scipy.special's distribution functions (variable/ops/distribution_functions.py): the table rows in the
continuous variable (third order, Taylor mode to sixth), then their tails against sums in
decimals, SciPy's values and edges, the constants refused when they require grad (naming the
function and SciPy's order), and the device path without a host sync; Tukey's lambda CDF
(tklmbda) against roots found by halving in 60-digit decimals."""

import functools
import math
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import SMOOTH, Row, device_equals_host, table_tests
from test_ops_special import reference_betainc, reference_gammainc

import variable as V
from variable.ops import distribution_functions


def inside(low, high, shape=(3,)):
    return lambda rng: (rng.uniform(low, high, shape),)


def _decimal(v):
    f = Fraction(float(v))
    return Decimal(f.numerator) / Decimal(f.denominator)


@functools.cache     # (a row's checks, its forward and float32, read the same points)
def _tukey_decimal(x, lam):
    """Tukey's lambda CDF at x in 60-digit decimals: 250 halvings of log F over (-2000, log 1/2) on
    Q(F) = (F^lambda - (1 - F)^lambda) / lambda (log(F / (1 - F)) at 0), for -|x|; 1 - F above 0."""
    if math.isnan(x) or math.isnan(lam):
        return math.nan
    if lam > 0 and abs(x) >= 1 / lam or math.isinf(x):
        return 0.0 if x < 0 else 1.0
    with localcontext() as context:
        context.prec = 60
        z, lam = -abs(_decimal(x)), _decimal(lam)

        def quantile(f):
            if lam == 0:
                return (f / (1 - f)).ln()
            return ((lam * f.ln()).exp() - (lam * (1 - f).ln()).exp()) / lam
        low, high = Decimal(-2000), Decimal("0.5").ln()
        for _ in range(250):
            middle = (low + high) / 2
            low, high = (middle, high) if quantile(middle.exp()) < z else (low, middle)
        f = ((low + high) / 2).exp()
        return float(f) if x <= 0 else float(1 - f)


def reference_tklmbda(lam):
    return np.vectorize(lambda x: _tukey_decimal(x, lam), otypes=[np.float64])


ROWS = {
    "tklmbda": [Row(f"lambda={lam}", lambda x, lam=lam: V.tklmbda(x, lam), reference_tklmbda(lam),
                    inside(*support, shape), SMOOTH)
                for lam, support, shape in ((-0.7, (-6.0, 6.0), (2, 3)), (0.0, (-4.0, 4.0), (3,)),
                                            (0.3, (-3.0, 3.0), (3,)), (2.5, (-0.35, 0.35), (3,)))],
    "chdtr": [Row("v=3", lambda x: V.chdtr(3.0, x), lambda x: reference_gammainc(1.5, x / 2),
                  inside(0.2, 9.0), SMOOTH)],
    "chdtrc": [Row("v=7", lambda x: V.chdtrc(7.0, x), lambda x: reference_gammainc(3.5, x / 2, True),
                   inside(0.5, 20.0, (2, 3)), SMOOTH)],
    "gdtr": [Row("a=2, b=2.5", lambda x: V.gdtr(2.0, 2.5, x), lambda x: reference_gammainc(2.5, 2 * x),
                 inside(0.1, 4.0), SMOOTH)],
    "gdtrc": [Row("a=0.5, b=3", lambda x: V.gdtrc(0.5, 3.0, x),
                  lambda x: reference_gammainc(3.0, x / 2, True), inside(0.5, 15.0), SMOOTH)],
    "pdtr": [Row("k=4", lambda m: V.pdtr(4, m), lambda m: reference_gammainc(5.0, m, True), inside(0.5, 9.0),
                 SMOOTH)],
    "pdtrc": [Row("k=2.7", lambda m: V.pdtrc(2.7, m), lambda m: reference_gammainc(3.0, m), inside(0.5, 9.0),
                  SMOOTH)],
    "bdtr": [Row("k=3, n=10", lambda p: V.bdtr(3, 10, p), lambda p: reference_betainc(4.0, 7.0, p, True),
                 inside(0.05, 0.95), SMOOTH)],
    "bdtrc": [Row("k=3, n=10", lambda p: V.bdtrc(3, 10, p), lambda p: reference_betainc(4.0, 7.0, p),
                  inside(0.05, 0.95, (2, 3)), SMOOTH)],
    "nbdtr": [Row("k=4, n=3", lambda p: V.nbdtr(4, 3, p), lambda p: reference_betainc(3.0, 5.0, p),
                  inside(0.05, 0.95), SMOOTH)],
    "nbdtrc": [Row("k=4, n=3", lambda p: V.nbdtrc(4, 3, p), lambda p: reference_betainc(3.0, 5.0, p, True),
                   inside(0.05, 0.95), SMOOTH)],
    "fdtr": [Row("dfn=3, dfd=8", lambda x: V.fdtr(3.0, 8.0, x),
                 lambda x: reference_betainc(1.5, 4.0, 3 * x / (3 * x + 8)), inside(0.1, 5.0), SMOOTH)],
    "fdtrc": [Row("dfn=4, dfd=5", lambda x: V.fdtrc(4.0, 5.0, x),
                  lambda x: reference_betainc(2.5, 2.0, 5 / (4 * x + 5)), inside(0.1, 5.0), SMOOTH)],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


def _binomial_tail(k, n, p, upper):
    """P(K <= k) (P(K > k)) of the binomial, summed in 50-digit decimals."""
    with localcontext() as context:
        context.prec = 50
        p = Decimal(p)
        terms = [math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(n + 1)]
        return float(sum(terms[k + 1:]) if upper else sum(terms[:k + 1]))


def _poisson_tail(k, m, upper):
    """P(K <= k) (P(K > k)) of the Poisson of mean m, in 50-digit decimals."""
    with localcontext() as context:
        context.prec = 50
        m = Decimal(m)
        terms, term = [], (-m).exp()
        for i in range(k + 400):
            terms.append(term)
            term = term * m / (i + 1)
        return float(sum(terms[k + 1:]) if upper else sum(terms[:k + 1]))


def test_the_tails_keep_their_digits():
    for k, n, p in ((3, 40, 0.9), (30, 100, 0.6), (0, 5, 1e-9), (97, 100, 0.3)):
        assert V.bdtr(k, n, p).data == pytest.approx(_binomial_tail(k, n, p, False), rel=2e-14)
        assert V.bdtrc(k, n, p).data == pytest.approx(_binomial_tail(k, n, p, True), rel=2e-14)
    for k, m in ((50, 3.0), (2, 60.0), (0, 1e-10)):
        assert V.pdtr(k, m).data == pytest.approx(_poisson_tail(k, m, False), rel=2e-14)
        assert V.pdtrc(k, m).data == pytest.approx(_poisson_tail(k, m, True), rel=2e-14)
    # the F distribution's far tail: the survival function from its own side, not 1 - CDF
    assert V.fdtrc(4.0, 5.0, 1e6).data == pytest.approx(float(reference_betainc(2.5, 2.0, 5 / (4e6 + 5))),
                                                        rel=1e-14)
    assert V.fdtr(4.0, 5.0, 1e-8).data == pytest.approx(float(reference_betainc(2.0, 2.5, 4e-8 / (4e-8 + 5))),
                                                       rel=1e-14)


def test_the_derivative_is_the_density():
    x = V.Variable(np.array([0.5, 2.0, 7.0]))
    g, = V.grad(V.sum(V.chdtr(3.0, x)), [x])
    density = x.data ** 0.5 * np.exp(-x.data / 2) / (2 ** 1.5 * math.gamma(1.5))
    np.testing.assert_allclose(g.data, density, rtol=1e-14)
    p = V.Variable(np.array([0.2, 0.5, 0.9]))
    g, = V.grad(V.sum(V.bdtr(3, 10, p)), [p])          # d/dp P(K <= k) = -(n - k) C(n, k) p^k (1 - p)^(n-k-1)
    np.testing.assert_allclose(g.data, -7 * math.comb(10, 3) * p.data ** 3 * (1 - p.data) ** 6, rtol=1e-13)


@pytest.mark.parametrize("name, constants", [("chdtr", (3.0,)), ("gdtr", (2.0, 2.5)), ("pdtr", (4.0,)),
                                             ("bdtr", (3.0, 10.0)), ("nbdtr", (4.0, 3.0)),
                                             ("fdtr", (3.0, 8.0))])
def test_a_constant_that_requires_grad_is_refused_naming_the_function(name, constants):
    refuses_a_constant_that_requires_grad(name, constants)


def refuses_a_constant_that_requires_grad(name, constants):
    """V.<name>(constant, *rest, 0.4) refused naming the function where the first requires grad."""
    constant = V.Variable(np.array(constants[0]))
    with pytest.raises(TypeError, match=rf"^{name}\(.*\): gengrad differentiates it in .* only, and \w+ "
                                        r"requires grad, so its gradient would be lost; pass a constant"):
        getattr(V, name)(constant, *constants[1:], 0.4)
    assert getattr(V, name)(constant.detach(), *constants[1:], 0.4).shape == ()


EDGES = {
    "bdtr": (np.array([-1, 0, 2.7, 5, 6, np.nan, 2, 2, 2, 2, 2, 30, 3]),
             np.array([5, 5, 5, 5, 5, 5, 5.5, 5, 5, 5, 5, 100, 4]),
             np.array([0.3] * 7 + [0, 1, -0.1, 1.1, 0.6, 1e-5])),
    "pdtr": (np.array([-1, 0, 2.7, np.inf, 3, 2, 2, 50]), np.array([2.0, 2, 2, 2, -1, 0, np.inf, 3.0])),
    "chdtr": (np.array([0, 2, -1, np.inf, 2, 2, 2, 3.5]), np.array([1, 1, 1, 1, -1, 0, np.inf, 80])),
    "gdtr": (np.array([1, -1, 0, 2, 1, 1, 1, 2.5]), np.array([2, 2, 2, 0, 2, 2, 2, 3.5]),
             np.array([1, 1, 1, 1, -1, 0, np.inf, 30])),
    "fdtr": (np.array([2, -1, 0, 2, 2, 2, 2, 3.5, 5]), np.array([3, 3, 3, 0, 3, 3, 3, 7, 11]),
             np.array([1, 1, 1, 1, -1, 0, np.inf, 200, 1e-6])),
    "nbdtr": (np.array([-1, 0, 2.7, 3, 2, 2, 2, 40]), np.array([5, 5, 5, 0, 5, 5, 5, 3]),
              np.array([0.3] * 4 + [0, 1, 1.1, 0.05])),
}


@pytest.mark.parametrize("name", sorted([*EDGES, *[f"{name}c" for name in EDGES]]))
def test_scipys_values_and_edges_and_its_ufunc_on_a_variable_records_the_op(name):
    agrees_with_scipy(name, EDGES[name[:-1] if name.endswith("c") and name[:-1] in EDGES else name])


def agrees_with_scipy(name, args, rtol=2e-14):
    """V.<name>(*args) within rtol of scipy.special's, which records the op given a Variable last."""
    special = pytest.importorskip("scipy.special")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected, ours = getattr(special, name)(*args), getattr(V, name)(*args).data
        recorded = getattr(special, name)(*args[:-1], V.Variable(args[-1]))
    np.testing.assert_allclose(ours, expected, rtol=rtol, atol=0)
    assert isinstance(recorded, V.Variable) and recorded.creator is not None
    np.testing.assert_array_equal(recorded.data, ours)


def test_float32_in_float32_out():
    x = np.array([0.25, 0.5, 0.75], dtype=np.float32)
    for name, constants in [("chdtr", (3.0,)), ("gdtrc", (2.0, 2.5)), ("pdtr", (4,)), ("bdtrc", (3, 10)),
                            ("nbdtr", (4, 3)), ("fdtrc", (3.0, 8.0))]:
        assert getattr(V, name)(*constants, x).dtype == np.float32, name


def test_on_the_device_the_distributions_are_the_hosts_without_a_sync(gpu, count_syncs):
    cases = [(V.chdtr, (np.array([0.0, 3.0, -1.0]),), np.array([1.0, 2.0, 0.5])),
             (V.gdtrc, (np.array([1.0, -1.0, 2.0]), np.array([2.0, 2.0, 0.0])), np.array([1.0, 1.0, np.inf])),
             (V.pdtr, (np.array([-1.0, 2.7, 50.0]),), np.array([2.0, 2.0, 3.0])),
             (V.bdtr, (np.array([-1.0, 2.0, 5.0, 6.0]), np.array([5.0, 5.0, 5.0, 5.0])),
              np.array([0.3, 0.4, 0.5, 0.6])),
             (V.bdtrc, (np.array([-1.0, 2.0, 5.0]), np.array([5.0, 5.0, 5.0])), np.array([0.3, 1.2, 0.5])),
             (V.nbdtrc, (np.array([4.0, -1.0, 2.0]), np.array([3.0, 3.0, 0.0])), np.array([0.3, 0.4, 0.5])),
             (V.fdtr, (np.array([3.0, 0.0, 2.0]), np.array([8.0, 3.0, 3.0])), np.array([0.7, 1.0, np.inf]))]
    for op, constants, x in cases:
        syncs = device_equals_host(op, (x,), count_syncs, constants)
        # (none of their own: the incomplete beta function's fraction syncs once per doubling of
        # its depth on a device, a documented limit of betainc itself)
        assert all("beta" in where for where in syncs.where), (op.__name__, syncs.where)
        assert syncs.count == 0 or op in (V.bdtr, V.bdtrc, V.nbdtrc, V.fdtr), op.__name__


# ----- Tukey's lambda distribution ------------------------------------------------------------------
def test_tklmbda_within_a_few_ulps_of_its_condition():
    """lambda from -8 to 8 (1e-12 to 1 either side too) and x over 40 decades either side: within
    4 (1 + kappa) ulps of 60-digit roots, kappa = |x F'(x) / F| (SciPy's bisection: 1e-14 of F,
    4e-10 at lambda = 1e-10)."""
    rng = np.random.default_rng(3)
    lam = np.concatenate([rng.uniform(-8, 8, 8), 10.0 ** rng.uniform(-12, 0, 4) * rng.choice([-1, 1], 4)])
    x = np.concatenate([10.0 ** rng.uniform(-40, 40, 7) * rng.choice([-1, 1], 7), rng.uniform(-5, 5, 6)])
    x, lam = (a.ravel() for a in np.meshgrid(x, lam))
    keep = ~((lam > 0) & (np.abs(x) * lam >= 1))
    x, lam = x[keep], lam[keep]
    got = V.tklmbda(x, lam).data
    exact = np.array([_tukey_decimal(a, b) for a, b in zip(x, lam)])
    positive = (exact > 1e-300) & (exact < 1)
    f = np.minimum(exact, 1 - exact)
    with np.errstate(all="ignore"):
        density = 1 / (f ** (lam - 1) + (1 - f) ** (lam - 1))
        kappa = np.abs(x * density / exact)
    ulps = np.abs(got[positive] / exact[positive] - 1) / 2.0 ** -53
    assert np.all(ulps <= 4 * (1 + kappa[positive]))


def test_tklmbda_edges_shapes_and_a_constant_lambda():
    inf, nan = np.inf, np.nan
    x = np.array([-inf, inf, nan, 0.0, -2.0, 2.0, 0.5, -0.5, 1.0])
    lam = np.array([-1.0, -1.0, 0.5, 0.7, 0.5, 0.5, nan, 2.0, 1.0])
    np.testing.assert_array_equal(V.tklmbda(x, lam).data, [0.0, 1.0, nan, 0.5, 0.0, 1.0, nan, 0.0, 1.0])
    np.testing.assert_allclose(V.tklmbda(np.array([-0.4, 0.3]), 1.0).data, [0.3, 0.65], rtol=1e-15)  # uniform
    logistic = V.tklmbda(np.array([-3.0, 2.0]), 0.0).data
    np.testing.assert_allclose(logistic, 1 / (1 + np.exp([3.0, -2.0])), rtol=1e-15)
    assert V.tklmbda(np.zeros((2, 1)), np.array([0.5, -0.5, 1.0])).shape == (2, 3)
    with pytest.raises(TypeError, match=r"^tklmbda\(x, lmbda\): gengrad differentiates it in x only, and "
                                        r"lmbda requires grad.*The order is SciPy's: x first, then lmbda"):
        V.tklmbda(0.3, V.Variable(np.array(0.5), requires_grad=True))
    assert V.tklmbda(np.array([0.3], np.float32), 0.5).dtype == np.float32


def test_tklmbda_agrees_with_scipy_its_ufunc_records_and_its_derivative_is_the_density():
    special = pytest.importorskip("scipy.special")
    x = np.linspace(-6, 6, 61)
    for lam in (-1.5, -0.2, 0.0, 0.14, 0.5, 1.0, 3.0):
        np.testing.assert_allclose(V.tklmbda(x, lam).data, special.tklmbda(x, lam), rtol=3e-14, atol=1e-14)
    recorded = special.tklmbda(V.Variable(np.array([0.3, -1.0])), 0.5)
    assert isinstance(recorded, V.Variable) and recorded.creator is not None
    t = V.Variable(np.array([-2.0, 0.3, 1.5]))
    f = V.tklmbda(t, -0.4).data
    slope = V.grad(V.sum(V.tklmbda(t, -0.4)), t).data
    np.testing.assert_allclose(slope, 1 / (f ** -1.4 + (1 - f) ** -1.4), rtol=1e-14)
    far = V.Variable(np.array([30.0, 12.0, -30.0, -12.0]))    # (the logistic: F (1 - F) exactly)
    tail = np.exp(-np.abs(far.data))
    density = tail / (1 + tail) ** 2
    np.testing.assert_allclose(V.grad(V.sum(V.tklmbda(far, 0.0)), far).data, density, rtol=1e-14)
    _, first = V.jvp(lambda t: V.tklmbda(t, 0.0), far.data, np.ones(4))
    np.testing.assert_allclose(first.data, density, rtol=1e-14)   # (F near 1: 1 - F kept its rounding)


def test_tklmbda_the_host_settles_where_a_device_takes_its_steps(monkeypatch):
    rng = np.random.default_rng(8)
    lam = rng.uniform(-30, 30, 50)
    x = 10.0 ** rng.uniform(-30, 30, 50) * rng.choice([-1, 1], 50)
    read = V.tklmbda(x, lam).data
    monkeypatch.setattr(distribution_functions, "READ_STEPS", False)
    np.testing.assert_allclose(V.tklmbda(x, lam).data, read, rtol=4e-16, atol=0)


def test_tklmbda_on_the_device_without_a_sync(gpu, count_syncs, monkeypatch):
    monkeypatch.setattr(distribution_functions, "READ_STEPS", False)
    x = np.array([-np.inf, -1e30, -3.0, -0.2, 0.0, 0.4, 5.0, np.nan])
    for lam in (np.array(-1.3), np.array(0.0), np.array(0.6)):
        syncs = device_equals_host(lambda t, lam=lam: V.tklmbda(t, lam), (x,), count_syncs)
        assert syncs.count == 0
