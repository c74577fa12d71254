"""Forward mode and Taylor mode: V.jvp, V.taylor, V.taylorcheck and Forwarder.taylor.

Every op's rule is checked in the op tables (test_op_table.py, test_tensor_table.py,
tests/function/test_function_table.py); here: the pass itself, exact references to order
30, a composite program, forward-over-reverse, custom rules and the mistakes refused.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

import function as F
import variable as V

ORDER = 30


# ----- exact references to high order --------------------------------------------------
def tanh_derivative_polynomials(n):
    """Integer coefficients of P_0 .. P_n, d^k tanh = P_k(tanh): P_{k+1} = (1 - t^2) P_k'."""
    polys = [[0, 1]]                                   # P_0(t) = t, lowest power first
    for _ in range(n):
        p = polys[-1]
        dp = [i * c for i, c in enumerate(p)][1:] or [0]
        q = [0] * (len(dp) + 2)
        for i, c in enumerate(dp):
            q[i] += c
            q[i + 2] -= c
        polys.append(q)
    return polys


def exact_tanh_derivative(p, x):
    """P(tanh x), summed in exact rationals from the float tanh(x): no cancellation error."""
    t = Fraction(float(np.tanh(x)))
    return float(sum(c * t ** i for i, c in enumerate(p)))


def test_tanh_polynomials_start_right():
    polys = tanh_derivative_polynomials(3)
    assert polys[1] == [1, 0, -1]                      # 1 - t^2
    assert polys[2] == [0, -2, 0, 2]                   # -2t + 2t^3


def test_tanh_to_order_30_matches_its_derivative_polynomials():
    x = np.linspace(-0.9, 0.9, 13)
    derivatives = V.taylor(V.tanh, x, np.ones_like(x), ORDER)
    polys = tanh_derivative_polynomials(ORDER)
    for n in (1, 2, 5, 10, 20, 29, 30):
        expected = np.array([exact_tanh_derivative(polys[n], xi) for xi in x])
        # the n-th derivative is a sum of terms far larger than itself near its zeros:
        # relative to the largest value of this order over the points
        scale = np.abs(expected).max()
        np.testing.assert_allclose(derivatives[n].data, expected, rtol=1e-9, atol=1e-9 * scale)


def geometric(n, x):
    """d^n/dx^n 1/(1 - x) = n! / (1 - x)^(n+1)."""
    return math.factorial(n) / (1 - x) ** (n + 1)


@pytest.mark.parametrize(
    "f, nth, x",
    [
        (V.exp, lambda n, x: np.exp(x), np.linspace(-1.5, 1.5, 7)),
        (lambda x: 1 / (1 - x), geometric, np.linspace(-0.5, 0.5, 7)),
        (lambda x: V.pow(1 - x, -1), geometric, np.linspace(-0.5, 0.5, 7)),
        (lambda x: V.log(1 + x),
         lambda n, x: (-1) ** (n - 1) * math.factorial(n - 1) / (1 + x) ** n, np.linspace(-0.5, 1.5, 7)),
    ],
    ids=["exp", "1/(1-x)", "(1-x)**-1", "log(1+x)"],
)
def test_closed_forms_to_order_30(f, nth, x):
    derivatives = V.taylor(f, x, np.ones_like(x), ORDER)
    for n in range(1, ORDER + 1):
        np.testing.assert_allclose(derivatives[n].data, nth(n, x), rtol=1e-9, err_msg=f"order {n}")


def test_sin_to_order_30():
    x = np.linspace(-2, 2, 9)
    derivatives = V.taylor(V.sin, x, np.ones_like(x), ORDER)
    for n in range(ORDER + 1):
        # d^n sin x = sin(x + n pi / 2), bounded by 1: compare absolutely
        np.testing.assert_allclose(derivatives[n].data, np.sin(x + n * np.pi / 2), rtol=0, atol=1e-12)


def test_polynomial_derivatives_are_exact_at_zero():
    # x^5 + 3 x^2: whole powers by repeated squaring, exact where x = 0
    x = np.array([0.0, 1.0, -2.0])
    d = V.taylor(lambda x: x ** 5 + 3 * x ** 2, x, np.ones(3), 7)
    assert [float(d[n].data[0]) for n in range(8)] == [0, 0, 6, 0, 0, 120, 0, 0]
    np.testing.assert_allclose(d[3].data, 60 * x ** 2)


# ----- a composite program against nested reverse mode --------------------------------
def mlp_loss(x, W1, b1, W2, b2, W3):
    h = V.tanh(F.linear(x, W1, b1))
    h = F.softplus(F.linear(h, W2, b2))
    return F.softmax_cross_entropy(V.matmul(h, W3), np.array([0, 2, 1, 2]))


def test_mlp_to_order_4_matches_nested_reverse(rng):
    params = [rng.standard_normal(s) * 0.7 for s in [(4, 3), (3, 5), (5,), (5, 4), (4,), (4, 3)]]
    assert V.taylorcheck(mlp_loss, *params, order=4)


def test_forward_over_reverse_is_a_hessian_vector_product(rng):
    def f(x):
        return V.sum(V.tanh(x) * V.sin(x[::-1]) + F.softplus(x) ** 2)

    x, v = rng.standard_normal(5), rng.standard_normal(5)
    _, hv = V.jvp(lambda x: V.grad(f(x), x, create_graph=True), x, v)
    np.testing.assert_allclose(hv.data, V.hvp(f, x, v).data, rtol=1e-10, atol=1e-12)


# ----- the public functions -------------------------------------------------------------
def test_jvp_returns_value_and_directional_derivative(rng):
    x, v = rng.standard_normal(4), rng.standard_normal(4)
    y, dy = V.jvp(lambda x: x * V.exp(x), x, v)
    np.testing.assert_allclose(y.data, x * np.exp(x))
    np.testing.assert_allclose(dy.data, (1 + x) * np.exp(x) * v)
    assert dy.creator is None and not dy.requires_grad


def test_several_inputs_and_outputs(rng):
    a, b = rng.standard_normal((2, 3)), rng.standard_normal(3)
    da, db = rng.standard_normal((2, 3)), rng.standard_normal(3)
    (s, p), (ds, dp) = V.jvp(lambda a, b: (a + b, a * b), (a, b), (da, db))
    np.testing.assert_allclose(ds.data, da + db)
    np.testing.assert_allclose(dp.data, da * b + a * db)
    series = V.taylor(lambda a, b: (a + b, a * b), (a, b), (da, db), 2)
    assert isinstance(series[2], tuple) and len(series[2]) == 2
    np.testing.assert_allclose(series[2][1].data, 2 * da * db)


def test_order_0_and_float32(rng):
    x = rng.standard_normal(3).astype(np.float32)
    only = V.taylor(V.tanh, x, np.ones(3), 0)
    assert len(only) == 1 and only[0].dtype == np.float32
    d = V.taylor(V.tanh, x, np.ones(3), 3)
    assert all(c.dtype == np.float32 for c in d)
    np.testing.assert_allclose(d[1].data, 1 - np.tanh(x) ** 2, rtol=1e-6)


def test_output_not_depending_on_x_has_zero_derivatives():
    y, dy = V.jvp(lambda x: V.Variable(np.array([1.0, 2.0])) * 3, np.zeros(2), np.ones(2))
    np.testing.assert_array_equal(dy.data, [0.0, 0.0])


def test_a_variable_that_requires_grad_stays_connected(rng):
    x = V.Variable(rng.standard_normal(3))
    y, _ = V.jvp(lambda x: V.sum(x * x), x, np.ones(3))
    y.backward()
    np.testing.assert_allclose(x.grad.data, 2 * x.data)


def test_works_under_no_grad(rng):
    x = rng.standard_normal(3)
    with V.no_grad():
        _, dy = V.jvp(V.sin, x, np.ones(3))
    np.testing.assert_allclose(dy.data, np.cos(x))


def test_ops_outside_the_path_need_no_rule(rng, on_device):
    class NoRule(V.Forwarder):
        def forward(self, x):
            return x * 2

        def backward(self, gy):
            return gy * 2

    c = NoRule.apply(on_device(np.ones(3)))   # a constant: no derivative to push through it
    _, dy = V.jvp(lambda x: x * c, rng.standard_normal(3), np.ones(3))
    np.testing.assert_allclose(dy.data, 2 * np.ones(3))


# ----- custom rules -----------------------------------------------------------------------
class ScaledBy(V.Forwarder):
    """x0 * x1 with a rule that indexes every coefficient of both inputs."""

    def forward(self, x0, x1):
        return x0 * x1

    def backward(self, gy):
        x0, x1 = self.inputs
        return gy * x1, gy * x0

    def taylor(self, x0, x1):
        K = len(x0) - 1
        return [sum(x0[j] * x1[k - j] for j in range(k + 1)) for k in range(K + 1)]


def test_custom_rule_and_taylorcheck(rng, cube_op):
    Cube = cube_op                                      # x^3 by two Cauchy products (tests/conftest.py)
    x = rng.standard_normal(4)
    assert V.taylorcheck(Cube.apply, x, order=5)
    d = V.taylor(Cube.apply, x, np.ones(4), 4)
    np.testing.assert_allclose(d[3].data, 6 * np.ones(4))
    np.testing.assert_allclose(d[4].data, np.zeros(4), atol=1e-12)


def test_custom_rule_gets_a_constant_as_its_full_series(rng, on_device):
    x, c = rng.standard_normal(3), rng.standard_normal(3)
    d = V.taylor(lambda x: ScaledBy.apply(x, on_device(c)), x, np.ones(3), 3)
    np.testing.assert_allclose(d[1].data, c)
    np.testing.assert_allclose(d[2].data, 0 * c)


def test_taylorcheck_fails_on_a_wrong_rule(rng, cube_op):
    class WrongCube(cube_op):
        def taylor(self, x):
            y = V.series.mul(V.series.mul(x, x), x)
            return y[:2] + [2 * c for c in y[2:]]       # order 2 and up doubled

    with pytest.raises(V.GradcheckError, match="order 2"):
        V.taylorcheck(WrongCube.apply, rng.standard_normal(3), order=3)


# ----- mistakes refused, naming the fix ----------------------------------------------
def test_op_without_rule_is_named():
    class Square2(V.Forwarder):
        def forward(self, x):
            return x * x

        def backward(self, gy):
            x, = self.inputs
            return gy * 2 * x

    with pytest.raises(NotImplementedError, match=r"Square2.*no Taylor rule.*Square2\.taylor\(self"):
        V.jvp(Square2.apply, np.ones(3), np.ones(3))


def test_rule_returning_wrong_length_or_shape_is_named(cube_op):
    class Short(cube_op):
        def taylor(self, x):
            return V.series.mul(x, x)[:2]

    class Flat(cube_op):
        def taylor(self, x):
            return [c.reshape(-1) for c in V.series.mul(V.series.mul(x, x), x)]

    with pytest.raises(TypeError, match=r"Short.taylor must return a list of 4 arrays"):
        V.taylor(Short.apply, np.ones(2), np.ones(2), 3)
    with pytest.raises(ValueError, match=r"Flat.taylor: coefficient 1 .* shape \(2,\),.* shape \(1, 2\)"):
        V.jvp(Flat.apply, np.ones((1, 2)), np.ones((1, 2)))


def test_nested_forward_mode_is_refused():
    with pytest.raises(ValueError, match=r"inside the function given to V.jvp.*higher order"):
        V.jvp(lambda x: V.jvp(V.sin, x, np.ones(2))[1], np.ones(2), np.ones(2))


def test_reverse_mode_through_a_forward_derivative():
    # reverse over forward: d/dx of the jvp sum(cos x . v) along ones is -sin x
    x = V.Variable(np.array([0.3, -1.2]))
    _, dy = V.jvp(lambda x: V.sum(V.sin(x)), x, np.ones(2))
    np.testing.assert_allclose(V.grad(dy, x).data, -np.sin(x.data), rtol=1e-14)
    dy.backward()
    np.testing.assert_allclose(x.grad.data, -np.sin(x.data), rtol=1e-14)


def test_reverse_mode_through_an_op_without_a_recording_rule_names_it(cube_op):
    Cube = cube_op
    x = V.Variable(np.array([1.0, 2.0]))
    _, dy = V.jvp(lambda x: V.sum(Cube.apply(x)), x, np.ones(2))   # its rule: taylor_records False
    np.testing.assert_allclose(dy.data, 3 * (1.0 + 4.0))
    with pytest.raises(ValueError, match=r"V.jvp or V.taylor.*the op Cube on its path.*"
                                         r"set taylor_records = True on Cube.*higher order"):
        V.grad(dy, x)
    with pytest.raises(ValueError, match=r"computed by V.jvp or V.taylor"):
        dy.backward()


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (lambda: V.jvp(V.sin, np.ones(3), np.ones(2)), ValueError,
         r"jvp: direction 0 has shape \(2,\).*\(3,\)"),
        (lambda: V.jvp(V.add, (np.ones(2), np.ones(2)), np.ones(2)), TypeError, r"v must be a tuple"),
        (lambda: V.jvp(V.add, (np.ones(2), np.ones(2)), (np.ones(2),)), ValueError, r"2 inputs but 1"),
        (lambda: V.jvp(V.sin, np.arange(3), np.ones(3)), TypeError, r"input 0 has dtype int.*floating"),
        (lambda: V.taylor(V.sin, np.ones(2), np.ones(2), -1), ValueError, r"order must be >= 0"),
        (lambda: V.taylor(V.sin, np.ones(2), np.ones(2), 2.0), TypeError, r"order must be an int"),
        (lambda: V.jvp(lambda x: None, np.ones(2), np.ones(2)), TypeError, r"forget `return`"),
        (lambda: V.jvp(np.sin(np.ones(2)), np.ones(2), np.ones(2)), TypeError, r"f must be callable"),
    ],
    ids=["shape", "tuple-v", "count", "integer", "negative-order", "float-order", "no-return",
         "not-callable"],
)
def test_bad_arguments_are_refused(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_same_variable_twice_is_refused():
    x = V.Variable(np.ones(2))
    with pytest.raises(ValueError, match="same Variable appears twice"):
        V.jvp(V.mul, (x, x), (np.ones(2), np.ones(2)))


def test_every_built_in_forwarder_has_a_taylor_rule():
    import function  # noqa: F401  (its Forwarders register as subclasses on import)
    import layers  # noqa: F401

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    packages = ("variable", "function", "layers")
    built_in = [c for c in subclasses(V.Forwarder) if c.__module__.split(".")[0] in packages]
    assert len(built_in) > 60
    missing = sorted(c.__name__ for c in built_in if c.taylor is V.Forwarder.taylor)
    assert not missing, f"Forwarders without a taylor rule: {missing}"


def test_forward_over_reverse_through_the_backward_pass_own_ops(rng, on_device):
    # a float32 leaf meeting float64 data: its gradient is cast back (_Cast), and x used
    # three times sums its contributions with one Accumulate; both have rules
    x = rng.standard_normal(4).astype(np.float32)
    c = on_device(rng.standard_normal(4))

    def f(x):
        return V.sum(x * c) + V.sum(V.sin(x) * x) + V.sum(x ** 3)

    _, hv = V.jvp(lambda x: V.grad(f(x), x, create_graph=True), x, np.ones(4, dtype=np.float32))
    assert hv.dtype == np.float32
    np.testing.assert_allclose(hv.data, V.hvp(f, x, np.ones(4, dtype=np.float32)).data, rtol=1e-5)
    np.testing.assert_allclose(hv.data, 2 * np.cos(x) - x * np.sin(x) + 6 * x, rtol=1e-5)


def test_a_taylor_result_in_a_loss_has_its_gradient():
    # d2 = D^2 sin along ones = -sin x, so grad(sum(d2) + sum(x)) is 1 - cos x (a pass on
    # arrays would have given [1, 1, 1])
    x = V.Variable(np.ones(3), name="x")
    d2 = V.taylor(V.sin, x, np.ones(3), 2)[2]
    np.testing.assert_allclose(V.grad(V.sum(d2) + V.sum(x), x).data, 1 - np.cos(np.ones(3)), rtol=1e-14)


def test_a_taylor_result_through_an_op_without_a_recording_rule_is_refused_naming_what_it_depends_on(cube_op):
    Cube = cube_op
    x = V.Variable(np.ones(3), name="x")
    d2 = V.taylor(lambda x: Cube.apply(V.sum(x, keepdims=True)) * x, x, np.ones(3), 2)[2]
    with pytest.raises(ValueError, match=r"V\.taylor, order 2.*Cube.*depends on 'x' of shape \(3,\)"):
        V.grad(V.sum(d2) + V.sum(x), x)


def test_a_jvp_with_closed_over_weights_trains_them():
    # a PINN-style loss: u_x from V.jvp depends on the weights W that f closes over; its
    # gradient must equal nested reverse mode's
    W = V.Variable(np.array([1.0, 2.0]), name="W")
    x = np.array([0.3, 0.4])
    _, ux = V.jvp(lambda x: V.sum(V.tanh(x * W)), x, np.array([1.0, 0.0]))
    loss = ux ** 2 + V.sum(W * W)
    loss.backward()
    xv = V.Variable(x)
    gx = V.grad(V.sum(V.tanh(xv * W)), xv, create_graph=True)   # (its [0]: the entry along (1, 0))
    nested = gx[0] ** 2 + V.sum(W * W)
    np.testing.assert_allclose(W.grad.data, V.grad(nested, W).data, rtol=1e-13)


def test_a_direction_that_requires_grad_keeps_its_graph():
    # J v is linear in v: grad over v of sum(J v) + sum(v^2) is J^T 1 + 2 v, over x it is
    # H v (f = x sin x, elementwise); a pass that took v's data would give 2 v alone
    x = V.Variable(np.array([1.0, 2.0]))
    v = V.Variable(np.array([0.5, -0.25]))
    _, jv = V.jvp(lambda t: t * V.sin(t), x, v)
    gx, gv = V.grad(V.sum(jv) + V.sum(v * v), [x, v])
    a = x.data
    np.testing.assert_allclose(gv.data, np.sin(a) + a * np.cos(a) + 2 * v.data, rtol=1e-14)
    np.testing.assert_allclose(gx.data, (2 * np.cos(a) - a * np.sin(a)) * v.data, rtol=1e-14)


def test_a_taylor_coefficient_is_differentiable_in_its_direction():
    # D_v^3 sin = -cos(x) v^3: its gradient in v is -3 cos(x) v^2, in a float32 v too
    x = V.Variable(np.array([0.3, 1.1]))
    v = V.Variable(np.array([2.0, -0.5], dtype=np.float32))
    d3 = V.taylor(V.sin, x, v, 3)[3]
    np.testing.assert_allclose(d3.data, -np.cos(x.data) * v.data.astype(np.float64) ** 3, rtol=1e-7)
    np.testing.assert_allclose(V.grad(V.sum(d3), v).data, -3 * np.cos(x.data) * v.data ** 2, rtol=1e-6)
    path = V.jet(V.sin, x, [v, np.zeros(2)])[1]               # jet along x + t v: the same J v
    np.testing.assert_allclose(V.grad(V.sum(path[0]), v).data, np.cos(x.data), rtol=1e-6)


def test_a_direction_that_requires_grad_is_refused_where_its_gradient_would_be_lost(cube_op):
    v = V.Variable(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"jvp: direction 0 is a Variable that requires grad.*"
                                         r"batched=False.*v\.detach\(\)"):
        V.jvp(V.sin, np.ones(3), v, batched=True)
    _, jv = V.jvp(lambda t: cube_op.apply(t), np.ones(3), v[0])   # a rule on arrays only:
    with pytest.raises(ValueError, match=r"V\.jvp, order 1.*Cube"):  # its derivative has no graph
        V.grad(V.sum(jv), v)
    with V.no_grad():                                            # under no_grad, a constant
        _, jv = V.jvp(V.sin, np.ones(3), v[0])
    assert not jv.requires_grad


def test_forward_derivatives_of_constants_stay_plain_constants():
    _, t = V.jvp(V.sin, np.ones(2), np.ones(2))
    assert not t.requires_grad and t.creator is None
    with V.no_grad():
        x = V.Variable(np.ones(2))
        _, t = V.jvp(V.sin, x, np.ones(2))
    assert not t.requires_grad and t.creator is None
    np.testing.assert_allclose((t * 2).data, 2 * np.cos(np.ones(2)))


@pytest.mark.parametrize("c", [2.5, 1.5, 3.5])
def test_non_integer_power_at_zero_has_the_derivatives_reverse_mode_has(c):
    # d^k/dx^k x^c at 0 is 0 for k < c (as torch.func.jvp and jax.jvp give), inf past c
    _, t = V.jvp(lambda x: x ** c, 0.0, 1.0)
    assert t.item() == 0.0
    x = np.array([0.0, 0.7])
    coefficients = V.taylor(lambda x: x ** c, x, np.ones(2), 4)
    for k in range(1, 5):
        expected = np.prod([c - i for i in range(k)]) * 0.7 ** (c - k)
        np.testing.assert_allclose(coefficients[k].data[1], expected, rtol=1e-12)
        if k < c:
            assert coefficients[k].data[0] == 0.0
        else:
            assert np.isinf(coefficients[k].data[0])


def test_hvp_of_abs_power_is_finite_at_zero():
    x = np.array([0.0, 0.7, -0.4])
    f = lambda x: V.sum(V.abs(x) ** 2.5)
    _, forward_over_reverse = V.jvp(lambda x: V.grad(f(x), x, create_graph=True), x, np.ones(3))
    expected = 2.5 * 1.5 * np.abs(x) ** 0.5
    np.testing.assert_allclose(forward_over_reverse.data, expected, rtol=1e-12)
    np.testing.assert_allclose(V.hvp(f, x, np.ones(3)).data, expected, rtol=1e-12)


def test_float32_taylor_agrees_with_float64_up_to_its_largest_order_and_refuses_past_it():
    x = np.array([0.3, -0.2])
    high = V.taylor(V.tanh, x, np.ones(2), 34)[34].data
    low = V.taylor(V.tanh, x.astype(np.float32), np.ones(2, np.float32), 34)[34]
    assert low.dtype == np.float32 and np.all(np.isfinite(low.data))
    np.testing.assert_allclose(low.data, high, rtol=1e-4)
    with pytest.raises(ValueError, match=r"order 36 in float32.*largest order 34.*float64"):
        V.taylor(V.tanh, x.astype(np.float32), np.ones(2, np.float32), 36)
    assert np.isfinite(V.taylor(V.tanh, x, np.ones(2), 60)[60].data).all()
