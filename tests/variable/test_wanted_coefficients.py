"""Passes that read some of their outputs' coefficients only: V.nth_derivative (the nth) and
V.laplacian (the summed second order).  The rules are told which coefficients of their
output are used (V.series.wanted), linear ops pass an unused one through as None, and the
elementary functions leave theirs out; every answer equals the full pass's."""

import numpy as np
import pytest

import function as F
import variable as V
from variable.forward_mode import _uses

host = V.backend.to_cpu


def const(a):
    """A constant where the data is (the GPU under GENGRAD_DEVICE; a host array would be refused)."""
    return V.Variable(np.asarray(a, dtype=np.float64), requires_grad=False)


def tanh_nth(x, n):
    return host(V.taylor(V.tanh, x, np.ones_like(x), n)[n].data)


# ----- V.nth_derivative ------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 30])
def test_nth_derivative_of_an_elementwise_function_equals_taylors(n):
    x = np.linspace(-2, 2, 41)
    np.testing.assert_array_equal(host(V.nth_derivative(V.tanh, x, np.ones_like(x), n).data), tanh_nth(x, n))


def test_nth_derivative_in_blocks_of_points_equals_taylors():
    # 10^5 points: tanh's recurrence runs over blocks, and only the nth row is copied out
    x = np.linspace(-3, 3, 100_000)
    for n in (4, 12):
        got = V.nth_derivative(V.tanh, x, np.ones_like(x), n)
        np.testing.assert_array_equal(host(got.data), tanh_nth(x, n))
        assert got.shape == x.shape
        assert not isinstance(got.data, np.ndarray) or got.data.flags.writeable


def test_nth_derivative_agrees_with_nested_grad():
    x = np.linspace(-1.5, 1.5, 7)
    X = V.Variable(x)
    g = V.sin(X) * V.exp(X)
    for _ in range(4):
        g = V.grad(V.sum(g), X, create_graph=True)
    got = V.nth_derivative(lambda t: V.sin(t) * V.exp(t), x, np.ones_like(x), 4)
    np.testing.assert_allclose(host(got.data), host(g.data), rtol=1e-12, atol=1e-12)


def test_nth_derivative_along_a_direction_through_a_network(rng):
    # the last ops are linear (matmul, add, sum), so tanh makes only its nth coefficient
    W, w, b = (const(rng.standard_normal(shape)) for shape in [(4, 5), (5, 2), (2,)])

    def f(x):
        return V.sum(V.tanh(x @ W) @ w + b, axis=1)
    x, v = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    for n in (1, 2, 5):
        expected = host(V.taylor(f, x, v, n)[n].data)
        np.testing.assert_allclose(host(V.nth_derivative(f, x, v, n).data), expected, rtol=1e-13, atol=1e-13)


def test_nth_derivative_of_several_inputs_and_outputs(rng):
    a, b = rng.standard_normal(5), rng.standard_normal(5)
    va, vb = rng.standard_normal(5), rng.standard_normal(5)

    def f(p, q):
        return V.exp(p) * q, V.sum(V.tanh(p - q))
    got = V.nth_derivative(f, (a, b), (va, vb), 3)
    expected = V.taylor(f, (a, b), (va, vb), 3)[3]
    assert isinstance(got, tuple) and len(got) == 2
    for g, e in zip(got, expected):
        np.testing.assert_allclose(host(g.data), host(e.data), rtol=1e-13, atol=1e-13)


def test_order_zero_is_the_value():
    x = np.linspace(-1, 1, 5)
    got = V.nth_derivative(V.tanh, x, np.ones_like(x), 0)
    np.testing.assert_allclose(host(got.data), np.tanh(x), rtol=1e-15)


def test_nth_derivative_in_float32():
    x = np.linspace(-1, 1, 9, dtype=np.float32)
    got = V.nth_derivative(V.tanh, x, np.ones_like(x), 3)
    assert got.dtype == np.float32
    np.testing.assert_allclose(host(got.data), tanh_nth(x.astype(np.float64), 3), rtol=1e-5, atol=1e-5)


def test_gradient_through_an_nth_derivative_matches_taylors(rng):
    # a recorded pass: the third derivative of tanh(a x) has a graph to a
    x = np.linspace(-1, 1, 6)
    a = V.Variable(np.array(0.7))
    loss = V.sum(V.nth_derivative(lambda t: V.tanh(a * t), x, np.ones_like(x), 3) ** 2)
    got, = V.grad(loss, [a])
    b = V.Variable(np.array(0.7))
    ref = V.sum(V.taylor(lambda t: V.tanh(b * t), x, np.ones_like(x), 3)[3] ** 2)
    expected, = V.grad(ref, [b])
    np.testing.assert_allclose(host(got.data), host(expected.data), rtol=1e-12)


@pytest.mark.parametrize("n, error, pattern", [
    (2.0, TypeError, "nth_derivative: n must be an int"),
    (True, TypeError, "nth_derivative: n must be an int"),
    (-1, ValueError, "nth_derivative: n must be >= 0"),
    (np.ones(3), TypeError, r"nth_derivative: n must be an int.*arguments are \(f, x, v, n\), as V.taylor's"),
])
def test_a_bad_order_is_refused_naming_the_op(n, error, pattern):
    # (an array: n and v swapped)
    with pytest.raises(error, match=pattern):
        V.nth_derivative(V.tanh, np.ones(3), np.ones(3), n)


def test_an_integer_point_is_refused_naming_the_op():
    with pytest.raises(TypeError, match="nth_derivative: input 0 has dtype int"):
        V.nth_derivative(V.tanh, np.arange(3), np.ones(3), 2)


# ----- what the rules are told ------------------------------------------------------------
class Spy(V.Forwarder):
    """x^2 with a rule that notes which of its output's coefficients the pass uses; it may
    give None for one that is not."""

    def __init__(self, seen, leave_out=False):
        self.seen, self.leave_out = seen, leave_out

    def forward(self, x):
        return x * x

    def backward(self, gy):
        x, = self.inputs
        return 2 * x * gy

    def taylor(self, x):
        order = len(x) - 1
        self.seen.append([V.series.wanted(k) for k in range(1, order + 1)])
        y = V.series.square(x)
        return [c if k == 0 or not self.leave_out or V.series.wanted(k) else None for k, c in enumerate(y)]


def spy(seen, leave_out=False):
    return lambda x: V.Function(Spy(seen, leave_out))(x)


def test_a_rule_is_told_which_coefficients_are_used(rng):
    W = const(rng.standard_normal((3, 4)))
    seen = []
    V.laplacian(lambda x: V.sum(spy(seen)(x @ W), axis=1), rng.standard_normal((2, 3)))
    assert seen == [[False, True]]                   # read by a sum only: the second order
    seen.clear()
    V.laplacian(lambda x: V.sum(V.tanh(spy(seen)(x @ W)), axis=1), rng.standard_normal((2, 3)))
    assert seen == [[True, True]]                    # read by tanh: both
    seen.clear()
    V.taylor(lambda x: V.sum(spy(seen)(x)), np.ones(3), np.ones(3), 3)
    assert seen == [[True, True, True]]              # V.taylor returns every order
    seen.clear()
    V.nth_derivative(lambda x: V.sum(spy(seen)(x) * 2.0), np.ones(3), np.ones(3), 3)
    assert seen == [[False, False, True]]
    seen.clear()
    V.nth_derivative(lambda x: V.sum(spy(seen)(x) * x), np.ones(3), np.ones(3), 3)
    assert seen == [[True, True, True]]              # a product of two varying series: all


def test_outside_a_pass_every_coefficient_is_wanted():
    assert V.series.wanted(1) and V.series.wanted(7)


def test_a_rule_may_leave_out_what_the_pass_does_not_use(rng):
    w = rng.standard_normal((3, 4))
    W = const(w)
    x = rng.standard_normal((2, 3))
    full = V.laplacian(lambda p: V.sum(spy([])(p @ W), axis=1), x)
    lean = V.laplacian(lambda p: V.sum(spy([], leave_out=True)(p @ W), axis=1), x)
    np.testing.assert_array_equal(host(lean.data), host(full.data))
    np.testing.assert_allclose(host(full.data), 2 * np.sum(w * w), rtol=1e-12)   # lap of sum((xW)^2)


def test_a_rule_that_leaves_out_a_used_coefficient_is_refused(rng):
    class Lazy(Spy):
        def taylor(self, x):
            return [x[0] * x[0]] + [None] * (len(x) - 1)
    with pytest.raises(TypeError, match=r"Lazy.taylor gave None for coefficient 1 of its output, which "
                                        r"this pass uses \(V.series.wanted\(1\) is True\)"):
        V.taylor(lambda t: V.Function(Lazy([]))(t), np.ones(3), np.ones(3), 2)


def test_a_rule_run_once_per_direction_may_leave_out_a_coefficient(rng):
    # np.asarray of a coefficient of several directions sends the rule to the per-direction
    # fallback, which must carry the left-out (None) first order through
    class Unbatched(Spy):
        def taylor(self, x):
            xp = V.backend.get_array_module(x[0])
            xs = [xp.asarray(c) for c in x]
            y = V.series.square(xs)
            return [c if k == 0 or V.series.wanted(k) else None for k, c in enumerate(y)]
    w = rng.standard_normal((3, 4))
    x = rng.standard_normal((2, 3))
    got = V.laplacian(lambda p: V.sum(V.Function(Unbatched([]))(p @ const(w)), axis=1), x)
    np.testing.assert_allclose(host(got.data), 2 * np.sum(w * w), rtol=1e-12)


@pytest.mark.parametrize("tail", [
    lambda h: V.sum(h, axis=1),
    lambda h: V.mean(h, axis=1) * 3.0,
    lambda h: V.reshape(h, (-1, 2, 2))[:, 1, 0] - V.transpose(h)[2],
    lambda h: V.sum_to(V.broadcast_to(V.reshape(h, (-1, 1, 4)), (h.shape[0], 3, 4)),
                       (h.shape[0], 1, 4))[:, 0, 1],
    lambda h: V.sum(-(h @ const(np.ones((4, 1)))) + 1.0, axis=1),
    lambda h: V.sum(V.matmul(V.reshape(h, (-1, 1, 4)), const(np.ones((4, 2)))), axis=(1, 2)),
    lambda h: V.sum(V.concat([h, 2.0 * h[:, :1]], axis=1), axis=1),
    lambda h: V.sum(V.stack([h[:, 0], h[:, 3]], axis=1) * const(np.array([1.0, -2.0])), axis=1),
])
def test_the_laplacian_through_linear_tails_is_the_trace_of_the_hessian(rng, tail):
    W = V.Variable(rng.standard_normal((3, 4)) / 2)

    def u(x):   # tanh last: its first-order coefficients are left out, None through the tail
        return tail(V.tanh(F.softplus(V.tanh(x @ W)) * F.sigmoid(x @ W)))
    x = rng.uniform(-1, 1, (4, 3))
    hessians = [host(V.hessian(lambda p: V.sum(u(V.reshape(p, (1, -1)))), row).data) for row in x]
    np.testing.assert_allclose(host(V.laplacian(u, x).data), np.trace(hessians, axis1=1, axis2=2),
                               rtol=1e-10, atol=1e-12)
    # and its gradient, against batched Taylor mode's (every coefficient made, none left out)
    got, = V.grad(V.sum(V.laplacian(u, x) ** 2), [W])
    directions = np.broadcast_to(np.eye(3)[:, None, :], (3, 4, 3))
    second = V.taylor(u, x, directions, 2, batched=True)[2]
    expected, = V.grad(V.sum(V.sum(second, axis=0) ** 2), [W])
    np.testing.assert_allclose(host(got.data), host(expected.data), rtol=1e-10, atol=1e-12)


def test_uses_marks_what_linear_ops_read(rng):
    # tanh -> matmul by a constant -> sum: the laplacian uses only the second order of
    # tanh's output; tanh itself needs both orders of its input
    W = const(rng.standard_normal((3, 4)))
    X = V.Variable(rng.standard_normal((2, 3)))
    z = X @ W
    h = V.tanh(z)
    y = V.sum(h @ const(np.ones((4, 1))), axis=1)
    todo = [z.creator, h.creator, y.creator.inputs[0].creator, y.creator]
    masks = _uses(todo, [y], {X, z, h, y.creator.inputs[0], y}, 2, 1 << 2)
    assert masks == [0b110, 0b100, 0b100, 0b100]
    assert _uses(todo, [y], {X, z, h, y.creator.inputs[0], y}, 2, 0b110) is None   # all: no plan
