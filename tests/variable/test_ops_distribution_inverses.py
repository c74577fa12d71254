"""The inverses of scipy.special's distribution functions (variable/ops/distribution_inverses.py):
the table rows in the probability (third order, Taylor mode to sixth) against roots of the
60-digit distribution functions, closed forms, the far tails, the derivative as one over the
density, SciPy's values and edges, the constants refused when they require grad, and the device
path without a host sync."""

import math

import numpy as np
import pytest
from op_rows import SMOOTH, Row, device_equals_host, table_tests
from test_ops_distribution_functions import agrees_with_scipy, refuses_a_constant_that_requires_grad
from test_ops_special import _gammainc_60_digits

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


ROWS = {
    "gammaincinv": [Row("a=2.5", lambda y: V.gammaincinv(2.5, y), lambda y: reference_gammaincinv(2.5, y),
                        inside(0.05, 0.95), SMOOTH, device_order=1)],
    "gammainccinv": [Row("a=0.6", lambda y: V.gammainccinv(0.6, y),
                         lambda y: reference_gammaincinv(0.6, y, True), inside(0.05, 0.95, (2, 3)), SMOOTH,
                         device_order=1)],
    "chdtri": [Row("v=3", lambda p: V.chdtri(3.0, p), lambda p: 2 * reference_gammaincinv(1.5, p, True),
                   inside(0.05, 0.95), SMOOTH, device_order=1)],
    "gdtrix": [Row("a=2, b=2.5", lambda p: V.gdtrix(2.0, 2.5, p), lambda p: reference_gammaincinv(2.5, p) / 2,
                   inside(0.05, 0.95), SMOOTH, device_order=1)],
    "pdtri": [Row("k=4", lambda y: V.pdtri(4, y), lambda y: reference_gammaincinv(5.0, y, True),
                  inside(0.05, 0.95), SMOOTH, device_order=1)],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


def test_closed_forms():
    y = np.array([1e-300, 1e-20, 0.1, 0.5, 0.9, 1 - 1e-12])
    np.testing.assert_allclose(V.gammaincinv(1.0, y).data, -np.log1p(-y), rtol=1e-15)
    np.testing.assert_allclose(V.gammainccinv(1.0, y).data, -np.log(y), rtol=1e-15)
    np.testing.assert_allclose(V.chdtri(2.0, y).data, -2 * np.log(y), rtol=1e-15)
    np.testing.assert_allclose(V.pdtri(0, y).data, -np.log(y), rtol=1e-15)
    np.testing.assert_allclose(V.gdtrix(4.0, 1.0, y).data, -np.log1p(-y) / 4, rtol=1e-15)


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
                                             ("chdtri", (3.0,)), ("gdtrix", (2.0, 2.5)), ("pdtri", (4.0,))])
def test_a_constant_that_requires_grad_is_refused_naming_the_function(name, constants):
    refuses_a_constant_that_requires_grad(name, constants)


EDGES = {
    "gammaincinv": (np.array([0, 1, -1, np.inf, 2, 2, 2, 2, np.nan, 1e-300, 1e-10, 0.5, 1e6]),
                    np.array([0.3, 0, 0.5, 0.5, 1, 1.2, np.nan, 0.3, 0.5, 0.5, 0.9999999, 1e-300, 0.5])),
    "chdtri": (np.array([0, 2, -1, np.inf, 2, 2, 2, 3.5, 1e-8]),
               np.array([0.5, 0, 0.5, 0.5, 1, -1, 0.3, 1e-80, 0.5])),
    "gdtrix": (np.array([1, -1, 0, 2, 1, 1, 1, 2.5]), np.array([2, 2, 2, 0, 2, 2, 2, 3.5]),
               np.array([0.5, 0.5, 0.5, 0.5, -1, 0, 1, 1e-30])),
    "pdtri": (np.array([-1, 0, 2.7, np.inf, 3, 2, 2, 50, 3]),
              np.array([0.5, 0.5, 0.3, 0.5, 0, 1, 1.5, 1e-100, 0.999])),
}


@pytest.mark.parametrize("name", ["gammaincinv", "gammainccinv", "chdtri", "gdtrix", "pdtri"])
def test_scipys_values_and_edges_and_its_ufunc_on_a_variable_records_the_op(name):
    agrees_with_scipy(name, EDGES["gammaincinv" if name == "gammainccinv" else name], rtol=5e-14)


def test_float32_in_float32_out():
    y = np.array([0.25, 0.5, 0.75], dtype=np.float32)
    for name, constants in [("gammaincinv", (2.0,)), ("gammainccinv", (0.5,)), ("chdtri", (3.0,)),
                            ("gdtrix", (2.0, 2.5)), ("pdtri", (4,))]:
        assert getattr(V, name)(*constants, y).dtype == np.float32, name


def test_on_the_device_the_inverses_are_the_hosts_without_a_sync(gpu, count_syncs):
    cases = [(V.gammaincinv, (np.array([0.0, 3.0, 1e-10, 2.0, 1e4]),),
              np.array([0.3, 1e-200, 0.9999, 1.0, 0.5])),
             (V.gammainccinv, (np.array([0.6, 1e4, 2.0, -1.0]),), np.array([1e-300, 0.3, 0.0, 0.5])),
             (V.chdtri, (np.array([3.0, 0.5]),), np.array([0.2, 0.9])),
             (V.gdtrix, (np.array([2.0, 1.0]), np.array([2.5, 30.0])), np.array([0.2, 0.9])),
             (V.pdtri, (np.array([-1.0, 2.7, 50.0]),), np.array([0.5, 0.3, 0.999]))]
    for op, constants, y in cases:
        assert device_equals_host(op, (y,), count_syncs, constants).count == 0, op.__name__
