"""get_item and Variable.__getitem__: NumPy's indexing rules and a scatter-add gradient."""

import numpy as np
import pytest
from variable_checks import normal as _normal

import variable as V


def _scatter_add(shape, index, gy):
    """The gradient of x[index] written independently: count every pick of every element."""
    size = int(np.prod(shape))
    picked = np.arange(size).reshape(shape)[index]          # flat position of each picked element
    return np.bincount(np.ravel(picked), weights=np.ravel(gy), minlength=size).reshape(shape)


_MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, True, True]])

INDICES = {
    "int": 1,
    "negative-int": -2,
    "int-tuple": (2, -1),
    "slice": slice(1, None),
    "slice-step": (slice(None), slice(None, None, 2)),
    "negative-step": (slice(None, None, -1), slice(3, 0, -2)),
    "ellipsis": (Ellipsis, 1),
    "ellipsis-front": (0, Ellipsis),
    "none": (None, 1),
    "none-middle": (slice(None), None, slice(0, 2)),
    "bool-mask-2d": _MASK,
    "bool-mask-rows": np.array([True, False, True]),
    "int-array": np.array([2, 0]),
    "int-array-repeated": np.array([0, 0, 1, 0]),
    "int-list-repeated": [1, 1],
    "int-array-2d": np.array([[0, 2], [2, 2]]),
    "int-array-pairs": (np.array([0, 2, 0]), np.array([3, 1, 3])),
    "array-and-slice": (slice(0, 2), np.array([3, 3, 0])),
    "bool-and-int": (np.array([True, False, True]), 2),
    "all": (),
}


@pytest.mark.parametrize("index", list(INDICES.values()), ids=list(INDICES))
def test_forward_and_gradient(index):
    data = _normal((3, 4))
    x = V.Variable(data)
    y = V.get_item(x, index)
    expected = data[index]
    assert y.shape == expected.shape
    np.testing.assert_allclose(y.data, expected)
    gy = _normal(y.shape, seed=1)
    gx = V.grad(y, x, grad_outputs=gy)
    assert gx.shape == x.shape
    np.testing.assert_allclose(gx.data, _scatter_add(x.shape, index, gy), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("index", list(INDICES.values()), ids=list(INDICES))
def test_gradcheck_order_3(index):
    assert V.gradcheck(lambda x: V.get_item(x, index), _normal((3, 4)), order=3)


@pytest.mark.parametrize("index", list(INDICES.values()), ids=list(INDICES))
def test_getitem_operator_equals_get_item(index):
    x = V.Variable(_normal((3, 4)))
    y = x[index]
    np.testing.assert_allclose(y.data, V.get_item(x, index).data)
    y.backward()
    np.testing.assert_allclose(x.grad.data, _scatter_add(x.shape, index, np.ones(y.shape)))


def test_repeated_indices_accumulate():
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    x[[0, 0, 1]].backward()
    np.testing.assert_allclose(x.grad.data, [2.0, 1.0, 0.0])


def test_repeated_index_pairs_accumulate_in_2d():
    x = V.Variable(np.zeros((2, 2)))
    y = x[np.array([1, 1, 0, 1]), np.array([0, 0, 1, 0])]
    V.sum(y * np.array([1.0, 2.0, 3.0, 4.0])).backward()
    np.testing.assert_allclose(x.grad.data, [[0.0, 3.0], [7.0, 0.0]])


def test_index_given_as_a_variable():
    data = _normal((4,))
    x = V.Variable(data)
    idx = V.Variable(np.array([3, 3, 1]))
    assert not idx.requires_grad
    y = x[idx]
    np.testing.assert_allclose(y.data, [data[3], data[3], data[1]])
    y.backward()
    np.testing.assert_allclose(x.grad.data, [0.0, 1.0, 0.0, 2.0])


def test_backward_of_the_gradient_is_a_gather():
    """The gradient of x[idx] is scatter(gy); differentiating it again gathers."""
    idx = np.array([0, 0, 2])
    data = np.array([1.0, 2.0, 3.0])
    x = V.Variable(data)
    gx = V.grad(V.sum(x[idx] ** 2), x, create_graph=True)       # 2 x_i per pick
    np.testing.assert_allclose(gx.data, [4.0, 0.0, 6.0])
    ggx = V.grad(V.sum(gx * np.array([1.0, 10.0, 100.0])), x)   # d/dx of sum(w * gx)
    np.testing.assert_allclose(ggx.data, [4.0, 0.0, 200.0])

    # the gradient is linear in the incoming gradient u: d<scatter(u), w>/du = w[idx]
    u = V.Variable(np.array([0.5, -1.0, 2.0]))
    w = np.array([1.0, 10.0, 100.0])
    g = V.grad(x[idx], x, grad_outputs=u, create_graph=True)
    np.testing.assert_allclose(g.data, [-0.5, 0.0, 2.0])
    np.testing.assert_allclose(V.grad(V.sum(g * w), u).data, w[idx])


def test_third_derivative_through_repeated_indices():
    x = V.Variable(np.array([0.5, -1.5]))
    y = V.sum(x[[0, 0, 1]] ** 4)             # 2 x0^4 + x1^4
    g = V.grad(y, x, create_graph=True)
    g2 = V.grad(V.sum(g), x, create_graph=True)
    g3 = V.grad(V.sum(g2), x)
    np.testing.assert_allclose(g3.data, [2 * 24 * 0.5, 24 * -1.5])


def test_get_item_on_an_array_is_a_constant():
    y = V.get_item(np.arange(6.0).reshape(2, 3), (1, slice(None)))
    np.testing.assert_allclose(y.data, [3.0, 4.0, 5.0])
    assert not y.requires_grad


def test_float32_preserved():
    x = V.Variable(_normal((3, 4), dtype=np.float32))
    y = x[np.array([0, 0, 2]), 1:]
    assert y.dtype == np.float32
    g = V.grad(V.sum(y * y), x, create_graph=True)
    assert g.dtype == np.float32
    V.sum(g * g).backward()
    assert x.grad.dtype == np.float32


@pytest.mark.parametrize(
    ("shape", "index"),
    [
        ((3,), 5),
        ((3,), -4),
        ((2, 3), (0, 3)),
        ((2, 3), (0, 0, 0)),
        ((2, 3), np.array([0, 2])),
        ((2, 3), (slice(None), [0, 7])),
        ((2, 3), np.array([True, False, True])),
    ],
    ids=["int", "negative-int", "second-axis", "too-many", "int-array", "list", "mask-shape"],
)
def test_out_of_range_raises_index_error(shape, index):
    x = V.Variable(np.zeros(shape))
    with pytest.raises(IndexError) as error:
        x[index]
    message = str(error.value)
    assert message.startswith("get_item:"), message
    assert str(shape) in message, message
