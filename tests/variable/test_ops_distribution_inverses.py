"""The inverses of scipy.special's distribution functions (variable/ops/distribution_inverses.py):
the table rows in the probability (third order, Taylor mode to sixth) against roots of the
60-digit distribution functions, closed forms, the far tails, the derivative as one over the
density, SciPy's values and edges, the constants refused when they require grad, and the device
path without a host sync."""

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from op_rows import SMOOTH, Row, device_equals_host, table_tests
from test_ops_distribution_functions import agrees_with_scipy, refuses_a_constant_that_requires_grad
from test_ops_special import _betainc_60_digits, _gammainc_60_digits

import variable as V


def inside(low, high, shape=(3,)):
    return lambda rng: (rng.uniform(low, high, shape),)


def _gamma_density(a, x):
    return math.exp((a - 1) * math.log(x) - x - math.lgamma(a))


def _gamma_quantile(a, y, upper=False):
    """x with P(a, x) = y (Q(a, x) = y with `upper`), the root of the 60-digit function: bisection
    in log x to 2^-40, then Newton's steps on the 60-digit residual."""
    low, high = -745.0, math.log(a + 50 * math.sqrt(a) + 800)

    def above(t):                                   # whether x = e^t is past the root
        value = _gammainc_60_digits(a, math.exp(t), upper)
        return value < y if upper else value > y
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (low, middle) if above(middle) else (middle, high)
    x = math.exp((low + high) / 2)
    for _ in range(3):
        step = (_gammainc_60_digits(a, x, upper) - y) / _gamma_density(a, x)
        x = x + step if upper else x - step
    return x


def reference_gammaincinv(a, y, upper=False):
    return np.vectorize(lambda a, y: _gamma_quantile(a, y, upper), otypes=[np.float64])(a, y)


def _beta_density(a, b, x):
    return math.exp((a - 1) * math.log(x) + (b - 1) * math.log1p(-x) + math.lgamma(a + b) - math.lgamma(a)
                    - math.lgamma(b))


def _beta_quantile(a, b, y, upper=False):
    """x with I_x(a, b) = y (1 - I = y with `upper`), the root of the 60-digit function: halvings of
    [0, 1], then Newton's steps on the 60-digit residual."""
    low, high = 0.0, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        value = _betainc_60_digits(a, b, middle, upper)
        low, high = (low, middle) if (value < y if upper else value > y) else (middle, high)
    x = (low + high) / 2
    for _ in range(3):
        step = (_betainc_60_digits(a, b, x, upper) - y) / _beta_density(a, b, x)
        x = x + step if upper else x - step
    return x


def reference_betaincinv(a, b, y, upper=False):
    return np.vectorize(lambda a, b, y: _beta_quantile(a, b, y, upper), otypes=[np.float64])(a, b, y)


def reference_stdtrit(df, p):
    """t^2 = df (1 - x) / x, x the beta quantile of (df / 2, 1/2) at 2 min(p, 1 - p)."""
    x = reference_betaincinv(df / 2, 0.5, 2 * np.minimum(p, 1 - p))
    return np.sign(p - 0.5) * np.sqrt(df * (1 - x) / x)


def _normal_quantile(p):
    """x with erfc(-x / sqrt 2) / 2 = p, by halvings of [-40, 10] on math.erfc."""
    low, high = -40.0, 10.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if math.erfc(-middle / math.sqrt(2)) / 2 < p else (low, middle)
    return (low + high) / 2


def reference_ndtri_exp(y):
    return np.vectorize(lambda y: _normal_quantile(math.exp(y)), otypes=[np.float64])(y)


ROWS = {
    # (a (2, 1) against y (3,): the gradient sums to y's shape; a float64 array promotes a float32 y)
    "gammaincinv": [Row("a=2.5", lambda y: V.gammaincinv(2.5, y), lambda y: reference_gammaincinv(2.5, y),
                        inside(0.05, 0.95), SMOOTH, device=False),
                    Row("a (2, 1) y (3,)", lambda y: V.gammaincinv(np.array([[0.6], [3.5]]), y),
                        lambda y: reference_gammaincinv(np.array([[0.6], [3.5]]), y),
                        inside(0.05, 0.95), SMOOTH, float32=False, device=False)],
    "gammainccinv": [Row("a=0.6", lambda y: V.gammainccinv(0.6, y),
                         lambda y: reference_gammaincinv(0.6, y, True), inside(0.05, 0.95, (2, 3)), SMOOTH,
                         device=False)],
    "chdtri": [Row("v=3", lambda p: V.chdtri(3.0, p), lambda p: 2 * reference_gammaincinv(1.5, p, True),
                   inside(0.05, 0.95), SMOOTH, device=False)],
    "gdtrix": [Row("a=2, b=2.5", lambda p: V.gdtrix(2.0, 2.5, p), lambda p: reference_gammaincinv(2.5, p) / 2,
                   inside(0.05, 0.95), SMOOTH, device=False)],
    "gdtria": [Row("b=2.5, in p and x", lambda p, x: V.gdtria(p, 2.5, x),
                   lambda p, x: reference_gammaincinv(2.5, p) / x,
                   lambda rng: (rng.uniform(0.05, 0.95, 3), rng.uniform(0.5, 3.0, 3)), SMOOTH, device=False)],
    "pdtri": [Row("k=4", lambda y: V.pdtri(4, y), lambda y: reference_gammaincinv(5.0, y, True),
                  inside(0.05, 0.95), SMOOTH, device=False)],
    "betaincinv": [Row("a=2.5, b=0.7", lambda y: V.betaincinv(2.5, 0.7, y),
                       lambda y: reference_betaincinv(2.5, 0.7, y), inside(0.05, 0.95), SMOOTH,
                       device=False),
                   Row("a (2, 1) y (3,)", lambda y: V.betaincinv(np.array([[0.6], [3.5]]), 2.0, y),
                       lambda y: reference_betaincinv(np.array([[0.6], [3.5]]), 2.0, y),
                       inside(0.05, 0.95), SMOOTH, float32=False, device=False)],
    "betainccinv": [Row("a=0.6, b=3", lambda y: V.betainccinv(0.6, 3.0, y),
                        lambda y: reference_betaincinv(0.6, 3.0, y, True), inside(0.05, 0.95, (2, 3)), SMOOTH,
                        device=False)],
    "bdtri": [Row("k=3, n=10", lambda y: V.bdtri(3, 10, y), lambda y: reference_betaincinv(4.0, 7.0, y, True),
                  inside(0.05, 0.95), SMOOTH, device=False)],
    "nbdtri": [Row("k=4, n=3", lambda y: V.nbdtri(4, 3, y), lambda y: reference_betaincinv(3.0, 5.0, y),
                   inside(0.05, 0.95), SMOOTH, device=False)],
    "fdtri": [Row("dfn=3, dfd=8", lambda p: V.fdtri(3.0, 8.0, p),
                  lambda p: 8 / 3 / (1 / reference_betaincinv(1.5, 4.0, p) - 1),
                  inside(0.05, 0.95), SMOOTH, device=False)],
    "ndtri_exp": [Row("y in (-6, -0.02)", V.ndtri_exp, reference_ndtri_exp, inside(-6.0, -0.02), SMOOTH)],
    "nrdtrimn": [Row("in p, std and x", V.nrdtrimn, lambda p, s, x: x - s * reference_ndtri_exp(np.log(p)),
                     lambda rng: (rng.uniform(0.05, 0.95, 3), rng.uniform(0.5, 2.0, 3), rng.normal(size=3)),
                     SMOOTH)],
    "nrdtrisd": [Row("in mn, p and x", V.nrdtrisd, lambda m, p, x: (x - m) / reference_ndtri_exp(np.log(p)),
                     lambda rng: (rng.normal(size=3), rng.uniform(0.55, 0.95, 3), rng.uniform(2.0, 3.0, 3)),
                     SMOOTH)],
    "stdtrit": [Row("df=4.5", lambda p: V.stdtrit(4.5, p), lambda p: reference_stdtrit(4.5, p),
                    inside(0.05, 0.95), SMOOTH, device=False)],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


def test_closed_forms():
    y = np.array([1e-300, 1e-20, 0.1, 0.5, 0.9, 1 - 1e-12])
    np.testing.assert_allclose(V.gammaincinv(1.0, y).data, -np.log1p(-y), rtol=1e-15)
    np.testing.assert_allclose(V.gammainccinv(1.0, y).data, -np.log(y), rtol=1e-15)
    np.testing.assert_allclose(V.chdtri(2.0, y).data, -2 * np.log(y), rtol=1e-15)
    np.testing.assert_allclose(V.pdtri(0, y).data, -np.log(y), rtol=1e-15)
    np.testing.assert_allclose(V.gdtrix(4.0, 1.0, y).data, -np.log1p(-y) / 4, rtol=1e-15)
    # I_x(4, 1) = x^4; 1 - I_x(1, b) = (1 - x)^b; Cauchy's quantile -cot(pi p); t with 2 degrees
    # of freedom: (2p - 1) sqrt(2 / (4 p (1 - p)))
    np.testing.assert_allclose(V.betaincinv(4.0, 1.0, y).data, np.sqrt(np.sqrt(y)), rtol=1e-15)
    np.testing.assert_allclose(V.betainccinv(1.0, 3.0, y).data, -np.expm1(np.log(y) / 3), rtol=1e-15)
    p = np.array([1e-12, 0.1, 0.3, 0.5, 0.75, 0.999])
    cauchy = np.where(p < 0.5, -1 / np.tan(np.pi * p), 1 / np.tan(np.pi * (1 - p)))   # (each argument exact)
    np.testing.assert_allclose(V.stdtrit(1.0, p).data, cauchy, rtol=1e-14, atol=1e-15)
    two = (2 * p - 1) * np.sqrt(2 / (4 * p * (1 - p)))
    np.testing.assert_allclose(V.stdtrit(2.0, p).data, two, rtol=1e-14)


# (a, y, upper): the tails of both sides, small and large shapes, targets down to 1e-295
TAILS = [(5.0, 1e-253, False), (0.5, 1e-64, False), (20.0, 1e-288, False), (0.01, 0.5, False),
         (0.1, 1e-29, False), (1000.0, 1e-57, True), (1e4, 1e-295, True), (3.5, 0.999999, False),
         (0.6, 1e-200, True), (40.0, 0.3, True)]


@pytest.mark.parametrize("a, y, upper", TAILS)
def test_the_tails_against_the_60_digit_function(a, y, upper):
    """The x error, (F(x) - y) / (x F'(x)) with F in 60 digits, within 1e-15 times x's condition
    (1/a for small a, where x ~ (y Gamma(a + 1))^(1/a)), plus what the forward's own rounding
    costs in a far tail (F's prefix e^(log ...) carries |log y| ulps, x a-th of them)."""
    x = float((V.gammainccinv if upper else V.gammaincinv)(a, y).data)
    error = (_gammainc_60_digits(a, x, upper) - y) / (x * _gamma_density(a, x))
    assert abs(error) <= 1e-15 * max(1.0, 1 / a) + 2.2e-16 * abs(math.log(y)) / a, (a, y, x, error)


# (a, b, y, upper): both tails, small and large shapes, targets down to 1e-299 (where SciPy's
# betaincinv is off by 10% to 10^130: its 8.6e-299 tail of (332, 36.5) at 0.1014, this one's 0.0909)
BETA_TAILS = [(332.277822400168, 36.46413724011502, 8.618430189005336e-299, False), (2.5, 0.7, 1e-200, False),
              (0.004182186104353697, 51.61409212697837, 0.47245648119380645, True), (3.0, 40.0, 1e-150, True),
              (14.10604961297692, 0.01598241913711206, 2.6199284827620545e-195, False),
              (20.0, 30.0, 0.999, False),
              (0.0010207996231617312, 6.285936649796298, 0.6012789522190544, False)]


@pytest.mark.parametrize("a, b, y, upper", BETA_TAILS)
def test_the_beta_tails_against_the_60_digit_function(a, b, y, upper):
    """The error of x's logit, (I(x) - y) / (x (1 - x) I'(x)) with I in 60 digits: within 1e-14 times
    x's condition (1/a where x ~ (a B y)^(1/a), 1/b at the other end), beside the rounding of x
    itself (an ulp of x over 1 - x near 1)."""
    x = float((V.betainccinv if upper else V.betaincinv)(a, b, y).data)
    error = (_betainc_60_digits(a, b, x, upper) - y) / (x * (1 - x) * _beta_density(a, b, x))
    assert abs(error) <= 1e-14 * max(1.0, 1 / a, 1 / b) + 1.2e-16 / (1 - x), (a, b, y, x, error)


def test_the_derivative_is_one_over_the_density():
    y = V.Variable(np.array([0.05, 0.5, 0.97]))
    x = V.gammaincinv(2.5, y)
    g, = V.grad(V.sum(x), [y])
    np.testing.assert_allclose(g.data, [1 / _gamma_density(2.5, v) for v in x.data], rtol=1e-14)
    x = V.gammainccinv(0.6, y)
    g, = V.grad(V.sum(x), [y])
    np.testing.assert_allclose(g.data, [-1 / _gamma_density(0.6, v) for v in x.data], rtol=1e-14)


def test_the_second_derivative_is_the_inverse_functions():
    """d^2x/dy^2 = -f'(x) / f(x)^3, f the density: f'/f = (a - 1)/x - 1."""
    y = V.Variable(np.array([0.2, 0.7]))
    g, = V.grad(V.sum(V.gammaincinv(3.0, y)), [y], create_graph=True)
    h, = V.grad(V.sum(g), [y])
    x = V.backend.to_cpu(V.gammaincinv(3.0, y).data)
    f = np.array([_gamma_density(3.0, v) for v in x])
    np.testing.assert_allclose(V.backend.to_cpu(h.data), -((2.0 / x - 1) * f) / f ** 3, rtol=1e-13)


@pytest.mark.parametrize("name, constants", [("gammaincinv", (2.0,)), ("gammainccinv", (2.0,)),
                                             ("chdtri", (3.0,)), ("gdtrix", (2.0, 2.5)), ("pdtri", (4.0,)),
                                             ("betaincinv", (2.0, 3.0)), ("betainccinv", (3.0, 2.0)),
                                             ("bdtri", (3.0, 10.0)), ("nbdtri", (4.0, 3.0)),
                                             ("fdtri", (3.0, 8.0)), ("stdtrit", (4.5,))])
def test_a_constant_that_requires_grad_is_refused_naming_the_function(name, constants):
    refuses_a_constant_that_requires_grad(name, constants)


EDGES = {
    "gammaincinv": (np.array([0, 1, -1, np.inf, 2, 2, 2, 2, np.nan, 1e-300, 1e-10, 0.5, 1e6]),
                    np.array([0.3, 0, 0.5, 0.5, 1, 1.2, np.nan, 0.3, 0.5, 0.5, 0.9999999, 1e-300, 0.5])),
    "chdtri": (np.array([0, 2, -1, np.inf, 2, 2, 2, 3.5, 1e-8]),
               np.array([0.5, 0, 0.5, 0.5, 1, -1, 0.3, 1e-80, 0.5])),
    "gdtrix": (np.array([1, -1, 0, 2, 1, 1, 1, 2.5]), np.array([2, 2, 2, 0, 2, 2, 2, 3.5]),
               np.array([0.5, 0.5, 0.5, 0.5, -1, 0, 1, 1e-30])),
    "gdtria": (np.array([0, 0.3, 1, 0.5, 0.5, 0.5, -0.1, 1.2, np.nan, 0.7, 0.3, 0.3, 1e-30]),
               np.array([2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 30.0, 0.0, -1.0, 3.5]),
               np.array([1, 1, 1, 0, np.inf, -1, 1, 1, 1, 3.5, 1, 1, 2.0])),
    "pdtri": (np.array([-1, 0, 2.7, np.inf, 3, 2, 2, 50, 3]),
              np.array([0.5, 0.5, 0.3, 0.5, 0, 1, 1.5, 1e-100, 0.999])),
    "betaincinv": (np.array([0, 1, 2, 2, 2, 2, np.inf, -1, 2, 0, 2, 0.5, 40.0]),
                   np.array([2, 0, 3, 3, 3, 3, 2, 2, np.inf, 0, -1, 0.5, 30.0]),
                   np.array([0.5, 0.5, 0, 1, -0.1, 1.1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.3, 0.999])),
    "bdtri": (np.array([-1, 0, 3, 5, 6, 3, 3, 2.7]), np.array([5, 5, 5, 5, 5, 5, 5, 5]),
              np.array([0.5, 0.5, 0.5, 0.5, 0.5, 0, 1, 0.5])),
    "nbdtri": (np.array([-1, 0, 3, 3, 3, 2.7]), np.array([5, 5, 0, 5, 5, 5]),
               np.array([0.5, 0.5, 0.5, 0, 1, 0.5])),
    "fdtri": (np.array([-1, 0, 3, 3, 3, 3, 2]), np.array([5, 5, 0, 5, 5, 5, 3]),
              np.array([0.5, 0.5, 0.5, 0, 1, 0.99, 1 - 1e-12])),
    "ndtri_exp": (np.array([0, -1e-20, -0.1, -0.7, -1, -50, -699, -701, -800, -1e10, -1e300, np.nan, 0.1,
                            -np.inf]),),
    "nrdtrimn": (np.array([0.3, 0.5, 0, 1, 1.2, 0.3, 0.3]), np.array([2, 2, 2, 2, 2, 0, -1]),
                 np.array([1.0, 1, 1, 1, 1, 1, 1])),
    "nrdtrisd": (np.array([0, 0, 0, 0, 1, 2]), np.array([0.3, 0, 1, 0.7, 0.7, 0.7]),
                 np.array([1.0, 1, 1, 1, 1, 1])),
    "stdtrit": (np.array([-1, 0, 3, 3, 3, np.inf, 2, 1e6]),
                np.array([0.5, 0.5, 0.5, 1, 0.99, 0.3, 1e-300, 0.7])),
}


@pytest.mark.parametrize("name", [*EDGES, "gammainccinv", "betainccinv"])
def test_scipys_values_and_edges_and_its_ufunc_on_a_variable_records_the_op(name):
    agrees_with_scipy(name, EDGES[name.replace("cc", "c")], rtol=5e-14)


def test_ndtri_exp_keeps_its_digits_where_e_to_the_y_would_lose_them():
    """About log 1/2, ndtri(1/2 + d) = sqrt(2 pi) (d + (2 pi / 6) d^3 + ...) with d = e^y - 1/2 in
    decimals (ndtri(e^y) loses 1e-11 there); near 0 against -ndtri(1 - e^y) from the decimals'
    1 - e^y; below -700, where e^y underflows, log_ndtr of it gives y back to a few ulps."""
    for y in (-0.6931, -0.69314, -0.69315, -0.6932, -0.6935):
        with localcontext() as context:
            context.prec = 50
            d = Decimal(y).exp() - Decimal("0.5")
            c = 2 * Decimal(math.pi)
            expected = float(c.sqrt() * (d + c / 6 * d ** 3 + 7 * c * c / 120 * d ** 5))
        assert V.ndtri_exp(y).data == pytest.approx(expected, rel=4e-16), y
    for y in (-1e-20, -1e-9):
        with localcontext() as context:
            context.prec = 50
            tail = float(1 - Decimal(y).exp())
        assert V.ndtri_exp(y).data == pytest.approx(-_normal_quantile(tail), rel=1e-14), y
    y = np.array([-701.0, -800.0, -1e4, -1e10])
    np.testing.assert_allclose(V.log_ndtr(V.ndtri_exp(y)).data, y, rtol=4e-16)
    assert V.ndtri_exp(np.array([0.0, -np.inf, 0.5])).data.tolist()[:2] == [np.inf, -np.inf]


def test_gdtria_is_gdtrix_with_rate_and_quantile_exchanged():
    """a x = gammaincinv(b, p) either way: gdtria(p, b, x) = gdtrix(x, b, p), bit for bit, and its
    gradient in x is -a / x; b requiring grad is refused naming gdtria."""
    p, x = V.Variable(np.array([0.1, 0.5, 0.97])), V.Variable(np.array([0.4, 2.0, 9.0]))
    a = V.gdtria(p, 3.0, x)
    np.testing.assert_array_equal(a.data, V.gdtrix(x.data, 3.0, p.data).data)
    gp, gx = V.grad(V.sum(a), [p, x])
    np.testing.assert_allclose(gx.data, -a.data / x.data, rtol=1e-15)
    np.testing.assert_allclose(gp.data, V.grad(V.sum(V.gdtrix(x.data, 3.0, p)), [p])[0].data, rtol=1e-15)
    with pytest.raises(TypeError, match=r"^gdtria\(p, b, x\): gengrad differentiates it in p and x only, "
                                        r"and b requires grad"):
        V.gdtria(0.3, V.Variable(np.array(2.0)), x)


def test_the_t_quantile_at_0_is_minus_infinity():
    """(SciPy's stdtrit gives +inf at p = 0 for a finite df, its normal quantile -inf.)"""
    assert V.stdtrit(np.array([3.0, np.inf]), 0.0).data.tolist() == [-np.inf, -np.inf]


def test_float32_in_float32_out():
    y = np.array([0.25, 0.5, 0.75], dtype=np.float32)
    for name, constants in [("gammaincinv", (2.0,)), ("gammainccinv", (0.5,)), ("chdtri", (3.0,)),
                            ("gdtrix", (2.0, 2.5)), ("pdtri", (4,)), ("betaincinv", (2.0, 0.5)),
                            ("bdtri", (3, 10)), ("fdtri", (3.0, 8.0)), ("stdtrit", (4.5,)),
                            ("nrdtrimn", (0.3, 2.0))]:
        assert getattr(V, name)(*constants, y).dtype == np.float32, name
    assert V.ndtri_exp(-y).dtype == np.float32


def test_on_the_device_the_inverses_are_the_hosts_without_a_sync(gpu, count_syncs):
    cases = [(V.gammaincinv, (np.array([0.0, 3.0, 1e-10, 2.0, 1e4]),),
              np.array([0.3, 1e-200, 0.9999, 1.0, 0.5])),
             (V.gammainccinv, (np.array([0.6, 1e4, 2.0, -1.0]),), np.array([1e-300, 0.3, 0.0, 0.5])),
             (V.chdtri, (np.array([3.0, 0.5]),), np.array([0.2, 0.9])),
             (V.gdtrix, (np.array([2.0, 1.0]), np.array([2.5, 30.0])), np.array([0.2, 0.9])),
             (V.pdtri, (np.array([-1.0, 2.7, 50.0]),), np.array([0.5, 0.3, 0.999])),
             (V.gdtria, (np.array([0.2, 0.9, 0.5]), np.array([2.5, 30.0, 1.0])), np.array([1.5, 0.3, 0.0])),
             (V.ndtri_exp, (), np.array([-1e-20, -0.69314, -5.0, -800.0, -1e25, 0.0])),
             (V.nrdtrimn, (np.array([0.3, 0.5, 1.0]), np.array([2.0, 0.5, 1.0])), np.array([1.0, -1.0, 0.0])),
             (V.nrdtrisd, (np.array([0.0, 1.0]), np.array([0.3, 0.9])), np.array([1.0, 3.0]))]
    for op, constants, y in cases:
        assert device_equals_host(op, (y,), count_syncs, constants).count == 0, op.__name__
    cases = [(V.betaincinv, (np.array([2.5, 0.6, 1e4, 2.0]), np.array([0.7, 3.0, 2.0, -1.0])),
              np.array([0.3, 1e-200, 0.5, 0.5])),
             (V.betainccinv, (np.array([0.6, 3.0]), np.array([3.0, 40.0])), np.array([0.7, 1e-150])),
             (V.bdtri, (np.array([3.0, -1.0]), np.array([10.0, 5.0])), np.array([0.2, 0.5])),
             (V.nbdtri, (np.array([4.0, 2.7]), np.array([3.0, 5.0])), np.array([0.3, 0.9])),
             (V.fdtri, (np.array([3.0, 1.0]), np.array([8.0, 2.0])), np.array([0.2, 1 - 1e-9])),
             (V.stdtrit, (np.array([4.5, np.inf, 1.0]),), np.array([0.2, 0.7, 0.5]))]
    for op, constants, y in cases:
        syncs = device_equals_host(op, (y,), count_syncs, constants)
        # (the beta quantile asks whether its entries are done once its sure steps are taken, and
        # the incomplete beta function's fraction syncs once per doubling of its depth)
        assert all("beta" in where or "halley" in where for where in syncs.where), (op.__name__, syncs.where)
