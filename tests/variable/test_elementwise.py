"""Elementwise ops where the table cannot look: ties, kinks, domain edges, argument errors."""

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


def test_power_of_non_positive_base_has_zero_exponent_gradient():
    # d x0^x1 / d x1 = x0^x1 log x0 is taken as 0 where x0 <= 0 (and no warning is raised)
    x0 = V.Variable(np.array([-2.0, 0.0, 2.0]))
    x1 = V.Variable(np.array([2.0, 2.0, 2.0]))
    y = x0 ** x1
    np.testing.assert_allclose(y.data, [4.0, 0.0, 4.0])
    y.backward()
    np.testing.assert_allclose(x1.grad.data, [0.0, 0.0, 4.0 * np.log(2.0)])
    np.testing.assert_allclose(x0.grad.data, [-4.0, 0.0, 4.0])


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
