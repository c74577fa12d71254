"""Shape ops beyond the table: Variable methods, explicit gradients, and bad input."""

import numpy as np
import pytest
from variable_checks import assert_message as _assert_message
from variable_checks import normal as _normal

import variable as V

# ----- Variable methods ------------------------------------------------------------

def test_reshape_method_accepts_varargs_and_tuple():
    data = _normal((2, 3))
    x = V.Variable(data)
    for y in (x.reshape(3, 2), x.reshape((3, 2)), x.reshape([3, 2]), x.reshape(-1, 2)):
        assert y.shape == (3, 2)
        np.testing.assert_allclose(y.data, data.reshape(3, 2))
    np.testing.assert_allclose(x.reshape(6).data, data.ravel())


@pytest.mark.parametrize(
    ("call", "axes"),
    [
        (lambda x: x.transpose(), (2, 1, 0)),
        (lambda x: x.T, (2, 1, 0)),
        (lambda x: x.transpose(1, 0, 2), (1, 0, 2)),
        (lambda x: x.transpose((1, 0, 2)), (1, 0, 2)),
        (lambda x: x.transpose([2, 0, 1]), (2, 0, 1)),
        (lambda x: x.transpose(-1, 0, 1), (2, 0, 1)),
    ],
)
def test_transpose_method_forms(call, axes):
    data = _normal((2, 3, 4))
    x = V.Variable(data)
    y = call(x)
    expected = np.empty(tuple(data.shape[a] for a in axes))
    for index in np.ndindex(*data.shape):                     # out[index permuted] = x[index]
        expected[tuple(index[a] for a in axes)] = data[index]
    np.testing.assert_allclose(y.data, expected)
    gy = _normal(y.shape, seed=1)
    gx = V.grad(y, x, grad_outputs=gy)
    for index in np.ndindex(*data.shape):
        assert gx.data[index] == gy[tuple(index[a] for a in axes)]


def test_T_of_matrix_and_its_gradient():
    x = V.Variable(_normal((2, 3)))
    gy = _normal((3, 2), seed=1)
    (x.T * gy).sum().backward()
    np.testing.assert_allclose(x.grad.data, gy.T)


def test_methods_equal_functions():
    data = _normal((2, 3, 4))
    x = V.Variable(data)
    np.testing.assert_allclose(x.reshape(4, 6).data, V.reshape(x, (4, 6)).data)
    np.testing.assert_allclose(x.transpose(2, 0, 1).data, V.transpose(x, (2, 0, 1)).data)
    np.testing.assert_allclose(x.T.data, V.transpose(x).data)
    np.testing.assert_allclose(x.sum_to((3, 1)).data, V.sum_to(x, (3, 1)).data)
    np.testing.assert_allclose(x.broadcast_to((5, 2, 3, 4)).data, V.broadcast_to(x, (5, 2, 3, 4)).data)


# ----- gradients written out -------------------------------------------------------

def test_reshape_gradient_is_reshaped_back():
    x = V.Variable(_normal((2, 3, 4)))
    gy = _normal((4, 6), seed=1)
    gx = V.grad(V.reshape(x, (4, -1)), x, grad_outputs=gy)
    assert gx.shape == (2, 3, 4)
    np.testing.assert_allclose(gx.data.ravel(), gy.ravel())


def test_broadcast_to_gradient_sums_over_broadcast_axes():
    x = V.Variable(_normal((3, 1)))
    gy = _normal((2, 3, 4), seed=1)
    gx = V.grad(V.broadcast_to(x, (2, 3, 4)), x, grad_outputs=gy)
    expected = np.array([[gy[:, j, :].sum()] for j in range(3)])
    np.testing.assert_allclose(gx.data, expected)


def test_sum_to_gradient_broadcasts_back():
    x = V.Variable(_normal((2, 3, 4)))
    gy = _normal((3, 1), seed=1)
    gx = V.grad(V.sum_to(x, (3, 1)), x, grad_outputs=gy)
    expected = np.empty((2, 3, 4))
    for i, j, k in np.ndindex(2, 3, 4):
        expected[i, j, k] = gy[j, 0]
    np.testing.assert_allclose(gx.data, expected)


def test_broadcast_to_and_sum_to_are_adjoint():
    """<broadcast_to(x), y> == <x, sum_to(y)> for any x, y (the dot-product test)."""
    x, y = _normal((1, 3, 1)), _normal((2, 3, 4), seed=1)
    lhs = np.sum(V.broadcast_to(x, y.shape).data * y)
    rhs = np.sum(x * V.sum_to(y, x.shape).data)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)


def test_squeeze_without_size_1_axes_keeps_shape():
    data = _normal((2, 3))
    y = V.squeeze(V.Variable(data))
    assert y.shape == (2, 3)
    np.testing.assert_allclose(y.data, data)


def test_expand_then_squeeze_round_trip_gradient():
    x = V.Variable(_normal((2, 3)))
    y = V.squeeze(V.expand_dims(V.expand_dims(x, 0), -1))
    assert y.shape == (2, 3)
    gy = _normal((2, 3), seed=2)
    np.testing.assert_allclose(V.grad(y, x, grad_outputs=gy).data, gy)


def test_flatten_keeps_first_axis():
    data = _normal((3, 2, 2))
    y = V.flatten(V.Variable(data))
    assert y.shape == (3, 4)
    for i in range(3):
        np.testing.assert_allclose(y.data[i], [data[i, 0, 0], data[i, 0, 1], data[i, 1, 0], data[i, 1, 1]])


def test_shape_ops_on_plain_arrays_record_nothing():
    y = V.reshape(np.ones((2, 3)), (3, 2))
    assert isinstance(y, V.Variable)
    assert not y.requires_grad
    assert y.creator is None


@pytest.mark.parametrize(
    "f",
    [
        lambda x: V.reshape(x, (3, 4, 2)),
        lambda x: V.transpose(x, (2, 0, 1)),
        lambda x: V.flatten(x),
        lambda x: V.expand_dims(x, 1),
        lambda x: V.squeeze(V.expand_dims(x, 0), 0),
        lambda x: V.broadcast_to(x, (5, 2, 3, 4)),
        lambda x: V.sum_to(x, (3, 1)),
    ],
    ids=["reshape", "transpose", "flatten", "expand_dims", "squeeze", "broadcast_to", "sum_to"],
)
def test_float32_through_shape_ops(f):
    x = V.Variable(_normal((2, 3, 4), dtype=np.float32))
    y = f(x)
    assert y.dtype == np.float32
    y.backward()
    assert x.grad.dtype == np.float32
    assert x.grad.shape == x.shape


# ----- bad input -------------------------------------------------------------------

@pytest.mark.parametrize(
    ("shape", "target"),
    [((2, 3), (4, 2)), ((2, 3), (7,)), ((2, 3), (4, -1)), ((2, 3), (-1, -1)), ((2, 3), (-2, -3))],
)
def test_reshape_to_a_wrong_size(shape, target):
    with pytest.raises(ValueError) as error:
        V.reshape(V.Variable(np.zeros(shape)), target)
    _assert_message(error, "reshape", shape, target)


def test_reshape_with_a_non_integer_shape():
    with pytest.raises(TypeError) as error:
        V.reshape(V.Variable(np.zeros((2, 3))), (2.0, 3))
    _assert_message(error, "reshape")


@pytest.mark.parametrize("axes", [(0, 0), (0,), (0, 1, 2), (0, 2), (1, -1)])
def test_transpose_with_a_non_permutation(axes):
    with pytest.raises(ValueError) as error:
        V.transpose(V.Variable(np.zeros((2, 3))), axes)
    _assert_message(error, "transpose", axes, (2, 3))


@pytest.mark.parametrize(
    ("op", "call"),
    [
        ("squeeze", lambda x: V.squeeze(x, 2)),
        ("squeeze", lambda x: V.squeeze(x, -3)),
        ("expand_dims", lambda x: V.expand_dims(x, 3)),
        ("expand_dims", lambda x: V.expand_dims(x, -4)),
        ("expand_dims", lambda x: V.expand_dims(x, (0, 4))),
        ("expand_dims", lambda x: V.expand_dims(x, (-5, 0))),
    ],
)
def test_axis_out_of_range(op, call):
    with pytest.raises(ValueError) as error:
        call(V.Variable(np.zeros((1, 3))))
    _assert_message(error, op, "out of range", (1, 3))


def test_squeeze_an_axis_that_is_not_size_1():
    with pytest.raises(ValueError) as error:
        V.squeeze(V.Variable(np.zeros((1, 3))), 1)
    _assert_message(error, "squeeze", (1, 3))


def test_flatten_a_scalar():
    with pytest.raises(ValueError) as error:
        V.flatten(V.Variable(1.0))
    _assert_message(error, "flatten", "0-d")


@pytest.mark.parametrize(("shape", "target"), [((2, 3), (3, 2)), ((3,), (3, 2)), ((2, 3), (3,))])
def test_broadcast_to_an_incompatible_shape(shape, target):
    with pytest.raises(ValueError) as error:
        V.broadcast_to(V.Variable(np.zeros(shape)), target)
    _assert_message(error, "broadcast_to", shape, target)


@pytest.mark.parametrize(("shape", "target"), [((2, 3), (2,)), ((2, 3), (4, 2, 3)), ((2, 3), (1, 2))])
def test_sum_to_an_incompatible_shape(shape, target):
    with pytest.raises(ValueError) as error:
        V.sum_to(V.Variable(np.zeros(shape)), target)
    _assert_message(error, "sum_to", shape, target)


def test_expand_dims_refuses_a_repeated_axis_as_numpy_does():
    with pytest.raises(ValueError, match="expand_dims: .*repeated"):
        V.expand_dims(V.Variable(np.zeros((1, 3))), (1, -3))
    with pytest.raises(ValueError):
        np.expand_dims(np.zeros((1, 3)), (1, -3))
    no_axes = V.expand_dims(V.Variable(np.zeros((1, 3))), ())
    assert no_axes.shape == (1, 3) == np.expand_dims(np.zeros((1, 3)), ()).shape
