"""Forwarder and Function: what a call records, and what a custom op may rely on."""

import weakref

import numpy as np
import pytest

import variable as V


class Cube(V.Forwarder):
    """x ** 3 (the API's example of a custom op)."""

    def forward(self, x):
        return x ** 3

    def backward(self, gy):
        x, = self.inputs
        return 3 * x ** 2 * gy


class SplitSign(V.Forwarder):
    """Two outputs: the positive and the negative part of x."""

    def forward(self, x):
        self.mask = x > 0                     # state saved in forward, used in backward
        return np.where(self.mask, x, 0.0), np.where(self.mask, 0.0, x)

    def backward(self, gpos, gneg):
        return V.where(self.mask, gpos, gneg)


class Spy(V.Forwarder):
    """Identity that records what backward sees."""

    seen = None

    def forward(self, x):
        return x.copy()

    def backward(self, gy):
        Spy.seen = (self.inputs, self.outputs)
        return gy


class Times(V.Forwarder):
    """x0 * x1 for inputs of one shape."""

    def forward(self, x0, x1):
        return x0 * x1

    def backward(self, gy):
        x0, x1 = self.inputs
        return gy * x1, gy * x0


class ReturnsNumpyScalar(V.Forwarder):
    """forward returns a NumPy scalar, not an array."""

    def forward(self, x):
        return np.sum(x)

    def backward(self, gy):
        x, = self.inputs
        return V.broadcast_to(gy, x.shape)


def cube(x):
    """The custom op of the API page."""
    return V.Function(Cube())(x)


def test_custom_op_forward_and_backward():
    x = V.Variable(np.array([1.0, -2.0, 0.5]))
    y = cube(x)
    np.testing.assert_allclose(y.data, [1.0, -8.0, 0.125])
    y.backward()
    np.testing.assert_allclose(x.grad.data, 3 * x.data ** 2)


def test_function_records_inputs_creator_and_weak_outputs():
    x = V.Variable(np.array([1.0, 2.0]))
    f = V.Function(Cube())
    y = f(x)
    assert y.creator is f
    assert f.inputs == (x,) and isinstance(f.inputs, tuple)
    assert f.forwarder.inputs == (x,)
    assert [ref() for ref in f.outputs] == [y]
    assert all(isinstance(ref, weakref.ref) for ref in f.outputs)
    assert f.name == "Cube"
    assert "Cube" in repr(f)


def test_backward_sees_inputs_and_outputs_as_tuples_of_variables():
    x = V.Variable(np.array([1.0, 2.0]))
    y = V.Function(Spy())(x)
    y.backward()
    inputs, outputs = Spy.seen
    assert inputs == (x,)
    assert outputs == (y,)
    assert y.creator.forwarder.outputs == ()    # only set for the duration of backward


def test_multiple_outputs_come_back_as_a_tuple_and_state_is_kept():
    x = V.Variable(np.array([1.0, -2.0, 3.0]))
    pos, neg = V.Function(SplitSign())(x)
    np.testing.assert_allclose(pos.data, [1.0, 0.0, 3.0])
    np.testing.assert_allclose(neg.data, [0.0, -2.0, 0.0])
    assert pos.creator is neg.creator
    assert pos.generation == neg.generation == 1
    (pos * 2 + neg * 3).backward()
    np.testing.assert_allclose(x.grad.data, [2.0, 3.0, 2.0])


def test_numpy_scalar_outputs_become_arrays():
    y = V.Function(ReturnsNumpyScalar())(V.Variable(np.array([1.0, 2.0])))
    assert isinstance(y.data, np.ndarray)
    assert y.shape == ()


def test_constant_inputs_become_variables_that_do_not_require_grad():
    x = V.Variable(np.array([1.0, 2.0]))
    y = V.Function(Times())(x, np.array([3.0, 4.0]))
    a, b = y.creator.inputs
    assert a is x
    assert isinstance(b, V.Variable) and not b.requires_grad
    y.backward()
    np.testing.assert_allclose(x.grad.data, [3.0, 4.0])
    assert b.grad is None


def test_no_graph_is_recorded_when_no_input_requires_grad():
    y = V.Function(Cube())(np.array([1.0, 2.0]))
    assert y.creator is None
    assert not y.requires_grad
    z = cube(V.Variable(np.array([1.0, 2.0]), requires_grad=False))
    assert z.creator is None
    w = V.Variable(np.array([1, 2])) * 2.0       # integer Variables are constants
    assert w.creator is None


def test_function_wraps_only_forwarders():
    with pytest.raises(TypeError, match="Forwarder"):
        V.Function(lambda x: x)


def test_base_forwarder_methods_are_abstract():
    with pytest.raises(NotImplementedError, match="forward"):
        V.Function(V.Forwarder())(V.Variable(1.0))
    with pytest.raises(NotImplementedError, match="backward"):
        V.Forwarder().backward(V.Variable(1.0))


def test_as_variable():
    x = V.Variable(1.0)
    assert V.as_variable(x) is x
    a = V.as_variable(np.array([1.0, 2.0]))
    assert isinstance(a, V.Variable) and not a.requires_grad
    assert V.as_variable(2.5).dtype == np.float64
    like = V.Variable(np.ones(2, dtype=np.float32))
    assert V.as_variable(2.5, like=like).dtype == np.float32
    with pytest.raises(TypeError, match="as_variable"):
        V.as_variable("2.5")


class Glue(V.Forwarder):
    """Two inputs of any shapes; refuses when they differ in size, in its own words."""

    def forward(self, x0, x1):
        if x0.size != x1.size:
            raise ValueError("the two parts must have the same size")
        return x0.ravel() + x1.ravel()

    def backward(self, gy):
        x0, x1 = self.inputs
        return V.reshape(gy, x0.shape), V.reshape(gy, x1.shape)


def test_a_forward_error_is_restated_with_the_op_and_its_inputs():
    x0, x1 = V.Variable(np.ones((2, 3))), V.Variable(np.ones(4))
    with pytest.raises(ValueError, match=r"^Glue: the two parts must have the same size "
                                         r"\(inputs: float64\(2, 3\), float64\(4,\)\)$"):
        V.Function(Glue())(x0, x1)         # shapes that do not broadcast: not a broadcast error
    with pytest.raises(ValueError, match=r"^Times: shapes \(2, 3\) and \(4,\) cannot be broadcast"):
        V.Function(Times())(x0, x1)        # NumPy's broadcast failure, said plainly
