"""Property tests of broadcasting: binary-op gradients, broadcast_to / sum_to, batched matmul."""

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import variable as V

SETTINGS = settings(max_examples=50, deadline=None, derandomize=True, database=None)  # reproducible in CI

shape_pairs = mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3)
seeds = st.integers(min_value=0, max_value=2**32 - 1)

BINARY = {
    "add": V.add,
    "mul": V.mul,
    "div": V.div,
    "maximum": V.maximum,
}


def _operands(name, shapes, seed):
    rng = np.random.default_rng(seed)
    x0 = rng.standard_normal(shapes[0])
    x1 = rng.standard_normal(shapes[1])
    if name == "div":                                       # keep the denominator away from 0
        x1 = np.sign(x1) * (0.5 + np.abs(x1)) + (x1 == 0)
    if name == "maximum":                                   # no (near-)ties: the kink is not differentiable
        assume(np.min(np.abs(np.subtract(x0, x1))) > 1e-2)
    return x0, x1


@SETTINGS
@given(name=st.sampled_from(sorted(BINARY)), shapes=shape_pairs, seed=seeds)
def test_binary_op_gradients_have_input_shapes_and_match_numerics(name, shapes, seed):
    op = BINARY[name]
    x0_data, x1_data = _operands(name, shapes.input_shapes, seed)
    x0, x1 = V.Variable(x0_data), V.Variable(x1_data)
    y = op(x0, x1)
    assert y.shape == shapes.result_shape
    g0, g1 = V.grad(y, [x0, x1])                            # seeded with ones: d sum(y)
    assert g0.shape == x0.shape and g1.shape == x1.shape
    n0, n1 = V.numerical_grad(op, x0_data, x1_data)
    np.testing.assert_allclose(g0.data, n0, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(g1.data, n1, rtol=1e-6, atol=1e-6)


@SETTINGS
@given(shapes=shape_pairs, seed=seeds)
def test_mul_gradients_in_closed_form(shapes, seed):
    """d sum(x0 * x1) / d x0 = x1 summed over the axes x0 was broadcast along (and vice versa)."""
    x0_data, x1_data = _operands("mul", shapes.input_shapes, seed)
    x0, x1 = V.Variable(x0_data), V.Variable(x1_data)
    g0, g1 = V.grad(V.sum(x0 * x1), [x0, x1])
    full0 = np.broadcast_to(x1_data, shapes.result_shape)
    full1 = np.broadcast_to(x0_data, shapes.result_shape)
    np.testing.assert_allclose(g0.data, _reduce_to(full0, x0_data.shape), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g1.data, _reduce_to(full1, x1_data.shape), rtol=1e-12, atol=1e-12)


def _reduce_to(full, shape):
    """Sum `full` down to `shape` by looping over its elements (independent of sum_to)."""
    out = np.zeros(shape)
    lead = full.ndim - len(shape)
    for index in np.ndindex(*full.shape):
        target = tuple(0 if n == 1 else i for i, n in zip(index[lead:], shape))
        out[target] += full[index]
    return out


@SETTINGS
@given(shapes=shape_pairs, seed=seeds)
def test_sum_to_of_broadcast_to_is_x_times_the_replication_count(shapes, seed):
    shape, target = shapes.input_shapes[0], shapes.result_shape
    x_data = np.random.default_rng(seed).standard_normal(shape)
    x = V.Variable(x_data)
    y = V.sum_to(V.broadcast_to(x, target), shape)
    assert y.shape == shape
    count = int(np.prod(target)) // int(np.prod(shape))
    np.testing.assert_allclose(y.data, x_data * count, rtol=1e-12)
    y.backward()
    np.testing.assert_allclose(x.grad.data, np.full(shape, float(count)))


@SETTINGS
@given(shapes=shape_pairs, seed=seeds)
def test_broadcast_to_gradcheck_order_2(shapes, seed):
    shape, target = shapes.input_shapes[1], shapes.result_shape
    x = np.random.default_rng(seed).standard_normal(shape)
    assert V.gradcheck(lambda v: V.broadcast_to(v, target), x, order=2)


@SETTINGS
@given(shapes=mutually_broadcastable_shapes(signature=np.matmul.signature, max_dims=2, max_side=3),
       seed=seeds)
def test_matmul_with_broadcast_batch_dims(shapes, seed):
    rng = np.random.default_rng(seed)
    a_data, b_data = (rng.standard_normal(s) for s in shapes.input_shapes)
    a, b = V.Variable(a_data), V.Variable(b_data)
    y = V.matmul(a, b)
    assert y.shape == shapes.result_shape
    np.testing.assert_allclose(y.data, np.matmul(a_data, b_data), rtol=1e-12, atol=1e-12)
    ga, gb = V.grad(y, [a, b])
    assert ga.shape == a.shape and gb.shape == b.shape
    na, nb = V.numerical_grad(V.matmul, a_data, b_data)
    np.testing.assert_allclose(ga.data, na, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gb.data, nb, rtol=1e-6, atol=1e-6)
