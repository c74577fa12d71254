"""Derivatives of any order by repeated backprop, against closed forms."""

import numpy as np
import pytest
from numpy.polynomial import Polynomial

import variable as V


def _tanh_derivative_polynomials(order):
    """P_0 .. P_order with d^n/dx^n tanh x = P_n(tanh x): P_0(t) = t, P_{n+1} = P_n' (1 - t^2)."""
    polys = [Polynomial([0.0, 1.0])]
    one_minus_t2 = Polynomial([1.0, 0.0, -1.0])
    for _ in range(order):
        polys.append(polys[-1].deriv() * one_minus_t2)
    return polys


def test_tanh_polynomials_are_right_at_low_order():
    """The recurrence gives the known forms 1 - t^2 and -2t + 2t^3 (guards the reference itself)."""
    P = _tanh_derivative_polynomials(2)
    np.testing.assert_allclose(P[1].coef, [1.0, 0.0, -1.0])
    np.testing.assert_allclose(P[2].coef, [0.0, -2.0, 0.0, 2.0])


def test_nth_derivative_of_tanh():
    points = np.linspace(-2.0, 2.0, 50)
    x = V.Variable(points)
    t = np.tanh(points)
    P = _tanh_derivative_polynomials(8)
    g = V.tanh(x)
    for n in range(1, 9):
        g = V.grad(g, x, create_graph=True)
        expected = P[n](t)
        scale = np.max(np.abs(expected))
        np.testing.assert_allclose(g.data, expected, rtol=1e-10, atol=1e-12 * scale, err_msg=f"order {n}")


def test_nth_derivative_of_tanh_by_backward():
    """The same through the user-facing x.backward(create_graph=True) and cleargrad()."""
    points = np.array([-1.5, -0.3, 0.0, 0.7, 1.9])
    x = V.Variable(points)
    P = _tanh_derivative_polynomials(4)
    y = V.tanh(x)
    for n in range(1, 5):
        x.cleargrad()
        y.backward(create_graph=True)
        y = x.grad
        expected = P[n](np.tanh(points))
        np.testing.assert_allclose(y.data, expected, rtol=1e-10, atol=1e-12, err_msg=f"order {n}")


DERIVATIVES_AT_ZERO = {       # d^n f / dx^n at 0, n = 1..5, from each Taylor series
    "exp": (V.exp, [1, 1, 1, 1, 1]),
    "sin": (V.sin, [1, 0, -1, 0, 1]),
    "cos": (V.cos, [0, -1, 0, 1, 0]),
    "tan": (V.tan, [1, 0, 2, 0, 16]),                  # x + x^3/3 + 2 x^5/15
    "tanh": (V.tanh, [1, 0, -2, 0, 16]),               # x - x^3/3 + 2 x^5/15
    "sinh": (V.sinh, [1, 0, 1, 0, 1]),
    "cosh": (V.cosh, [0, 1, 0, 1, 0]),
    "square": (V.square, [0, 2, 0, 0, 0]),
    "x ** 4": (lambda x: x ** 4, [0, 0, 0, 24, 0]),
    "polynomial": (lambda x: 1.0 * x ** 0 + 2.0 * x + 3.0 * x ** 2 - x ** 5, [2, 6, 0, 0, -120]),
    "log(1 + x)": (lambda x: V.log(1 + x), [1, -1, 2, -6, 24]),
    "1 / (1 - x)": (lambda x: 1 / (1 - x), [1, 2, 6, 24, 120]),
    "(1 + x) ** 0.5": (lambda x: (1 + x) ** 0.5, [1 / 2, -1 / 4, 3 / 8, -15 / 16, 105 / 32]),
    "sqrt(1 + x)": (lambda x: V.sqrt(1 + x), [1 / 2, -1 / 4, 3 / 8, -15 / 16, 105 / 32]),
    "2 ** x": (lambda x: 2 ** x, [np.log(2) ** n for n in range(1, 6)]),
}


@pytest.mark.parametrize("name", list(DERIVATIVES_AT_ZERO))
def test_derivatives_at_zero_to_order_5(name):
    """Smooth primitives at 0, where a power in a backward used to meet 0 ** -1 (NaN)."""
    fn, expected = DERIVATIVES_AT_ZERO[name]
    x = V.Variable(np.array(0.0))
    g = fn(x)
    for n, value in enumerate(expected, start=1):
        g = V.grad(g, x, create_graph=True, materialize_grads=True)
        np.testing.assert_allclose(g.data, value, rtol=1e-12, atol=1e-14, err_msg=f"order {n}")


@pytest.mark.parametrize("method", ["grad", "backward"])
def test_newton_method_by_double_backprop(method):
    """Minimise f(x) = x^4 - 2x^2 from x = 2 with x <- x - f'(x) / f''(x); the minimum is at 1."""
    x = V.Variable(np.array(2.0))
    steps = 0
    while steps < 7:
        steps += 1
        y = x ** 4 - 2 * x ** 2
        if method == "grad":
            g1 = V.grad(y, x, create_graph=True)
            g2 = V.grad(g1, x)
        else:
            x.cleargrad()
            y.backward(create_graph=True)
            g1 = x.grad
            x.cleargrad()
            g1.backward()
            g2 = x.grad
        value = float(x.data)
        np.testing.assert_allclose(g1.data, 4 * value ** 3 - 4 * value, rtol=1e-14, atol=1e-13)
        np.testing.assert_allclose(g2.data, 12 * value ** 2 - 4, rtol=1e-14)
        x = V.Variable(x.data - g1.data / g2.data)
        if abs(float(x.data) - 1.0) < 1e-10:
            break
    assert abs(float(x.data) - 1.0) < 1e-10, (steps, float(x.data))


def test_softplus_derivatives_through_stack_and_logsumexp():
    """logsumexp([x, 0]) = softplus(x); its derivatives are s, s(1-s), s(1-s)(1-2s) (s = sigmoid)."""
    points = np.linspace(-4.0, 4.0, 9)
    x = V.Variable(points)
    y = V.logsumexp(V.stack([x, V.Variable(np.zeros(9), requires_grad=False)]), axis=0)
    s = 1 / (1 + np.exp(-points))
    expected = [s, s * (1 - s), s * (1 - s) * (1 - 2 * s)]
    np.testing.assert_allclose(y.data, np.log1p(np.exp(points)), rtol=1e-12)
    for n in range(3):
        y = V.grad(y, x, create_graph=True)
        np.testing.assert_allclose(y.data, expected[n], rtol=1e-10, atol=1e-14, err_msg=f"order {n + 1}")


def test_derivatives_of_a_power_through_broadcast_matmul_and_reductions(on_device):
    """f(x) = (w . x)^5, computed as a mean over a broadcast batch of matmuls.

    The k-th derivative contracted k - 1 times with w is 5!/(5-k)! (w . x)^(5-k) |w|^(2(k-1)) w.
    """
    w = on_device(np.array([0.5, -1.0, 2.0]))
    x = V.Variable(np.array([0.3, 0.2, 0.4]))
    batch = V.broadcast_to(x, (4, 3))                      # four copies of x
    z = V.mean(V.matmul(batch, w) ** 5)                    # = (w . x)^5
    s = float(w @ x.data)
    g = z
    coefficient = 1.0
    for k in range(1, 6):
        g = V.grad(V.sum(g * w) if k > 1 else g, x, create_graph=True)     # directional derivatives along w
        coefficient *= 6 - k
        expected = coefficient * s ** (5 - k) * (w @ w) ** (k - 1) * w
        np.testing.assert_allclose(g.data, expected, rtol=1e-12, err_msg=f"order {k}")


PICK = [5, 0, 1, 2, 3, 4, 0, 0, 1, 2, 3, 5]


@pytest.mark.parametrize(
    "f",
    [
        lambda x: V.logsumexp(V.reshape(x, (2, 3)) @ V.transpose(V.reshape(x, (2, 3))), axis=-1),
        lambda x: V.variance(V.concat([x, V.tanh(x)]) * V.concat([x, x])[PICK]),
        lambda x: V.max(V.sum_to(V.broadcast_to(x, (2, 6)) * V.expand_dims(x, 0), (6,))),
    ],
    ids=["lse-gram", "variance-concat-getitem", "max-broadcast"],
)
def test_composites_gradcheck_order_3(f):
    """Tensor ops chained together keep correct derivatives to third order."""
    x = np.random.default_rng(3).standard_normal(6)
    assert V.gradcheck(f, x, order=3)
