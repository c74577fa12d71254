"""Elementwise ops where the table cannot look: ties, kinks, domain edges, argument errors."""

import math

import numpy as np
import pytest

import variable as V


# ----- ties and kinks ------------------------------------------------------------------------
@pytest.mark.parametrize("op", [V.maximum, V.minimum])
def test_ties_split_the_gradient_evenly(op):
    x0 = V.Variable(np.array([1.0, 2.0, 3.0]))
    x1 = V.Variable(np.array([1.0, 5.0, 0.0]))
    op(x0, x1).backward()
    win0 = [0.5, 0.0, 1.0] if op is V.maximum else [0.5, 1.0, 0.0]
    np.testing.assert_allclose(x0.grad.data, win0)
    np.testing.assert_allclose(x1.grad.data, 1 - np.array(win0))


def test_tie_with_a_broadcast_operand_sums_its_halves():
    x = V.Variable(np.array([[1.0, 2.0], [1.0, 0.0]]))
    b = V.Variable(np.array(1.0))
    V.maximum(x, b).backward()
    np.testing.assert_allclose(x.grad.data, [[0.5, 1.0], [0.5, 0.0]])
    np.testing.assert_allclose(b.grad.data, 0.5 + 0.5 + 1.0)


def test_abs_has_zero_gradient_at_zero():
    x = V.Variable(np.array([-2.0, 0.0, 3.0]))
    abs(x).backward()
    np.testing.assert_allclose(x.grad.data, [-1.0, 0.0, 1.0])


def test_clip_gradient_passes_inside_and_on_the_bounds():
    x = V.Variable(np.array([-1.0, -0.5, 0.0, 0.5, 1.0]))
    y = V.clip(x, -0.5, 0.5)
    np.testing.assert_allclose(y.data, [-0.5, -0.5, 0.0, 0.5, 0.5])
    y.backward()
    np.testing.assert_allclose(x.grad.data, [0.0, 1.0, 1.0, 1.0, 0.0])


def test_clip_with_array_bounds():
    x = V.Variable(np.array([[0.0, 3.0], [-3.0, 1.0]]))
    lo, hi = np.array([-1.0, 0.0]), np.array([1.0, 2.0])
    y = V.clip(x, lo, hi)
    np.testing.assert_allclose(y.data, np.clip(x.data, lo, hi))
    y.backward()
    np.testing.assert_allclose(x.grad.data, [[1.0, 0.0], [0.0, 1.0]])


def test_exponent_gradient_follows_pytorch_at_non_positive_bases():
    # d x0^x1 / d x1 = x0^x1 log x0: 0 where x0 = 0 <= x1 (0^x1 is constant there), NaN
    # where x0 < 0 (no real logarithm), and no warning is raised
    x0 = V.Variable(np.array([-2.0, 0.0, 0.0, 2.0]))
    x1 = V.Variable(np.array([2.0, 2.0, 0.0, 2.0]))
    y = x0 ** x1
    np.testing.assert_allclose(y.data, [4.0, 0.0, 1.0, 4.0])
    y.backward()
    np.testing.assert_allclose(x1.grad.data, [np.nan, 0.0, 0.0, 4.0 * np.log(2.0)])
    np.testing.assert_allclose(x0.grad.data, [-4.0, 0.0, 0.0, 4.0])


def test_exponent_gradient_at_zero_base_and_negative_exponent_is_minus_infinity():
    # 0^x1 = inf for x1 < 0, so x0^x1 log x0 is inf * -inf (PyTorch's value); forward warns as NumPy does
    x1 = V.Variable(np.array([-1.0]))
    with np.errstate(divide="ignore"):
        y = 0.0 ** x1
        g = V.grad(y, x1)
    np.testing.assert_array_equal(g.data, [-np.inf])


# ----- powers at 0 ---------------------------------------------------------------------------------
def test_constant_term_of_a_polynomial_has_zero_gradient_at_zero():
    """The issue's example: d/dx (1 x^0 + 2 x + 3 x^2) = 2 at x = 0 (it was 0 * inf = NaN)."""
    x = V.Variable(np.array(0.0))
    g = V.grad(1.0 * x ** 0 + 2.0 * x + 3.0 * x ** 2, x)
    np.testing.assert_array_equal(g.data, 2.0)


@pytest.mark.parametrize("c", [0, 0.0, np.float64(0.0), np.array(0.0)], ids=repr)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_zero_exponent_gives_zeros_of_the_input_shape_and_dtype(c, dtype):
    x = V.Variable(np.array([[0.0, -1.5, np.inf], [2.0, np.nan, 0.0]], dtype=dtype))
    g = V.grad(V.sum(x ** c), x)
    assert g.shape == x.shape
    assert g.dtype == dtype
    np.testing.assert_array_equal(g.data, np.zeros((2, 3)))


@pytest.mark.parametrize("c", [0, 1, 2, 3, 4, 2.0, np.float64(3.0)], ids=repr)
def test_whole_powers_have_exact_derivatives_at_zero_to_order_5(c):
    """d^n x^c at 0 is c! where n == c, else 0 (n <= 5); never NaN."""
    x = V.Variable(np.array([0.0, 0.0]))
    g = V.sum(x ** c)
    for n in range(1, 6):
        g = V.grad(g, x, create_graph=True, materialize_grads=True)
        expected = math.factorial(int(c)) if n == c else 0.0
        np.testing.assert_array_equal(g.data, [expected, expected], err_msg=f"order {n}")
        g = V.sum(g)


def test_array_exponent_with_a_zero_at_zero_base():
    """x ** [0, 1, 2, 3] at x = 0: first derivatives 0, 1, 0, 0; second 0, 0, 2, 0; third 0, 0, 0, 6."""
    x = V.Variable(np.zeros(4))
    g = V.sum(x ** np.array([0.0, 1.0, 2.0, 3.0]))
    for expected in ([0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 6], [0, 0, 0, 0]):
        g = V.grad(g, x, create_graph=True, materialize_grads=True)
        np.testing.assert_array_equal(g.data, expected)
        g = V.sum(g)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_variable_exponent_at_zero_base(dtype):
    """x0^x1 at x0 = 0 for x1 = 0, 1, 2: d/dx0 = 0, 1, 0 and d/dx1 = 0 (PyTorch's values)."""
    x0 = V.Variable(np.zeros(3, dtype=dtype))
    x1 = V.Variable(np.array([0.0, 1.0, 2.0], dtype=dtype))
    g0, g1 = V.grad(V.sum(x0 ** x1), [x0, x1])
    assert g0.dtype == g1.dtype == dtype
    np.testing.assert_array_equal(g0.data, [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(g1.data, [0.0, 0.0, 0.0])


def test_mixed_second_derivative_at_a_zero_exponent():
    """d/dx1 d/dx0 x0^x1 = x0^(x1-1) (1 + x1 log x0) is 1/x0 at x1 = 0 (a mask there would give 0)."""
    x0 = V.Variable(np.array([0.5, 2.0]))
    x1 = V.Variable(np.array([0.0, 0.0]))
    g0 = V.grad(V.sum(x0 ** x1), x0, create_graph=True)
    np.testing.assert_array_equal(g0.data, [0.0, 0.0])
    np.testing.assert_allclose(V.grad(V.sum(g0), x1).data, [2.0, 0.5], rtol=1e-15)


def test_integer_power_of_negative_base():
    x = V.Variable(np.array([-2.0, -0.5]))
    (x ** 3).backward()
    np.testing.assert_allclose(x.grad.data, 3 * x.data ** 2)


# ----- dtypes ----------------------------------------------------------------------------------
def test_float32_where_with_a_widening_condition_and_a_number():
    x = V.Variable(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    y = V.where(np.array([[True], [False]]), 2.0, x)
    assert y.shape == (2, 3)
    assert y.dtype == np.float32
    y.backward()
    np.testing.assert_allclose(x.grad.data, [1.0, 1.0, 1.0])


# ----- argument errors ----------------------------------------------------------------------------
def test_clip_argument_errors():
    x = V.Variable(np.ones(3))
    with pytest.raises(ValueError, match="clip"):
        V.clip(x, None, None)
    with pytest.raises(TypeError, match="clip: lo"):
        V.clip(x, "0", 1.0)
    with pytest.raises(ValueError, match=r"clip.*\(4,\)"):
        V.clip(x, np.zeros(4), None)


def test_where_argument_errors():
    x = V.Variable(np.ones(3))
    with pytest.raises(TypeError, match="where: condition must be boolean"):
        V.where(np.array([1, 0, 1]), x, 0.0)
    with pytest.raises(ValueError, match=r"where.*\(4,\)"):
        V.where(np.array([True, False, True, True]), x, 0.0)


def test_pow_rejects_non_numeric_exponents():
    x = V.Variable(np.ones(3))
    with pytest.raises(TypeError, match="pow"):
        x ** "2"
    with pytest.raises(TypeError, match="pow"):
        V.pow(x, True)


@pytest.mark.parametrize("op", [V.add, V.sub, V.mul, V.div, V.maximum, V.minimum])
def test_binary_shape_errors_name_the_op(op):
    with pytest.raises(ValueError, match=rf"(?i){op.__name__}.*\(2, 3\).*\(4,\)"):
        op(V.Variable(np.ones((2, 3))), V.Variable(np.ones(4)))


# ----- a broadcast product's gradient as one einsum --------------------------------------------
FUSED_SHAPES = [((4, 3, 5), (3, 5)), ((3, 5), (4, 3, 5)), ((4, 6, 5), (4, 1, 5)), ((4, 1, 5), (1, 3, 5)),
                ((2, 3, 4), ()), ((6, 1), (1, 6)), ((4, 3, 5), (5,))]


@pytest.mark.parametrize("a_shape, b_shape", FUSED_SHAPES)
def test_broadcast_product_gradient_by_one_einsum_is_the_product_and_sum(a_shape, b_shape, rng, monkeypatch):
    # Mul's backward sums gy * other back to an input's shape; past a size it is one recorded
    # einsum: the same gradient, and (through it) the same second and third derivatives
    from variable.ops import elementwise
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    u = rng.standard_normal(np.broadcast_shapes(a_shape, b_shape))

    def derivatives():
        x, y = V.Variable(a), V.Variable(b)
        ga, gb = V.grad(V.sum(V.tanh(x * y) * u), (x, y), create_graph=True)
        hx, hy = V.grad(V.sum(ga * ga) + V.sum(gb ** 3), (x, y), create_graph=True)
        return [d.data for d in (ga, gb, hx, hy)]

    plain = derivatives()
    monkeypatch.setattr(elementwise, "_FUSED_FROM", 1)
    einsums = []
    real = elementwise.Function

    def counting(forwarder):
        if type(forwarder).__name__ == "Einsum":
            einsums.append(forwarder.subscripts)
        return real(forwarder)
    monkeypatch.setattr(elementwise, "Function", counting)
    fused = derivatives()
    monkeypatch.setattr(elementwise, "Function", real)
    assert einsums, "no gradient took the fused path"
    for got, want in zip(fused, plain):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert V.gradcheck(lambda x, y: V.tanh(x * y), a, b, order=3)
