"""The backward engine: backward(), grad(), higher orders, dtypes, errors, deep graphs."""

import gc
import weakref

import numpy as np
import pytest

import variable as V
from variable.backward import Accumulate
from variable.backward import backward as backward_all


class Counted(V.Forwarder):
    """2 * x, counting how often its backward runs (reset `calls` before use)."""

    calls = 0

    def forward(self, x):
        return 2 * x

    def backward(self, gy):
        Counted.calls += 1
        return 2 * gy


def counted(x):
    """2 * x through a Function whose backward calls are counted."""
    return V.Function(Counted())(x)


@pytest.fixture
def count():
    """Reset the backward-call counter of `Counted`, then read it via count()."""
    Counted.calls = 0
    return lambda: Counted.calls


class TwoOutputs(V.Forwarder):
    """(x * 2, x * 3): two outputs, each with its own gradient."""

    def forward(self, x):
        return 2 * x, 3 * x

    def backward(self, g0, g1):
        TwoOutputs.received = (g0, g1)
        return 2 * g0 + 3 * g1


class WrongShape(V.Forwarder):
    """Identity whose backward returns a gradient of the wrong shape."""

    def forward(self, x):
        return x.copy()

    def backward(self, gy):
        return V.Variable(np.zeros(7))


class WrongCount(V.Forwarder):
    """Identity whose backward returns two gradients for one input."""

    def forward(self, x):
        return x.copy()

    def backward(self, gy):
        return gy, gy


class Raises(V.Forwarder):
    """Identity whose backward fails."""

    def forward(self, x):
        return x.copy()

    def backward(self, gy):
        raise RuntimeError("backward failed")


class RawArray(V.Forwarder):
    """Identity whose backward returns a bare ndarray."""

    def forward(self, x):
        return x.copy()

    def backward(self, gy):
        return gy.data


# ----- backward() basics ------------------------------------------------------------------
def test_non_scalar_output_is_seeded_with_ones():
    x = V.Variable(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    (x * x).backward()
    np.testing.assert_allclose(x.grad.data, 2 * x.data)


def test_backward_from_a_given_gradient():
    # PyTorch's y.backward(gy), by name: the leaves get the vector-Jacobian product with gy
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    (x * x).backward(gradient=np.array([1.0, 0.5, -1.0]))
    np.testing.assert_allclose(x.grad.data, [2.0, 2.0, -6.0])
    x.cleargrad()
    gy = V.Variable(np.array([1.0, 0.5, -1.0]))
    (x ** 3).backward(create_graph=True, gradient=gy)          # a graph to x and to gy
    np.testing.assert_allclose(V.grad(V.sum(x.grad), gy).data, 3 * x.data ** 2)
    with pytest.raises(ValueError, match=r"shape \(2,\) does not match output of shape \(3,\)"):
        (x * x).backward(gradient=np.ones(2))


def test_gradients_accumulate_until_cleargrad():
    x = V.Variable(3.0)
    (x * x).backward()
    (x * x * x).backward()                   # another output: its gradient adds (27)
    np.testing.assert_allclose(x.grad.data, 33.0)
    x.cleargrad()
    assert x.grad is None
    (x * x).backward()
    np.testing.assert_allclose(x.grad.data, 6.0)
    del x.grad                               # PyTorch's spelling of the same
    assert x.grad is None
    (x * x * x).backward()                   # (not a second pass: the gradient was cleared)
    np.testing.assert_allclose(x.grad.data, 27.0)


def test_a_second_backward_from_the_same_output_is_refused_until_cleared():
    x = V.Variable(3.0)
    y = x * x
    z = x * x * x
    y.backward()
    z.backward()                             # (the earlier outputs are remembered past this one)
    with pytest.raises(ValueError, match=r"earlier backward\(\).*would double it.*x\.cleargrad\(\)"):
        y.backward()
    np.testing.assert_allclose(x.grad.data, 33.0)   # nothing added by the refused pass
    x.cleargrad()
    y.backward()                             # cleared: the same output again is fine
    np.testing.assert_allclose(x.grad.data, 6.0)
    y.backward(gradient=np.array(2.0))       # a seed given: a sum of products may be meant
    np.testing.assert_allclose(x.grad.data, 18.0)
    x.grad = x.grad                          # an assigned gradient is the user's own
    y.backward()
    np.testing.assert_allclose(x.grad.data, 24.0)


def test_passes_from_many_kept_outputs_keep_a_record_no_larger_than_the_graph():
    # gradients summed over many passes whose outputs are kept (a list of losses): each output
    # keeps the epochs of the leaves its pass reached, one entry per leaf, so a pass costs the
    # same after 300 kept outputs as after one (a record on each leaf of every kept output grew)
    w = V.Variable(np.ones(3))
    b = V.Variable(0.5)
    losses = []
    for i in range(300):
        loss = V.sum(w * float(i)) + b
        loss.backward()
        losses.append(loss)
    np.testing.assert_allclose(w.grad.data, sum(range(300)))
    np.testing.assert_allclose(b.grad.data, 300.0)
    assert all(len(loss._handed) == 2 for loss in losses)
    for loss in (losses[0], losses[-1]):
        with pytest.raises(ValueError, match="would double it"):
            loss.backward()
    w.cleargrad()
    b.cleargrad()
    losses[0].backward()                     # cleared: allowed again
    losses[-1].backward()                    # another output's pass adds to it
    np.testing.assert_allclose(w.grad.data, 299.0)
    with pytest.raises(ValueError, match="would double it"):
        losses[0].backward()
    assert all(len(loss._handed) == 2 for loss in losses)


def test_a_pass_from_two_outputs_is_remembered_by_each():
    x = V.Variable(2.0)
    y1, y2 = x * x, x * x * x
    V.backward([y1, y2])
    for y in (y1, y2):
        with pytest.raises(ValueError, match="would double it"):
            y.backward()
    x.cleargrad()
    y1.backward()                            # the cleared gradient came from neither
    y2.backward()                            # (y1's record is its own, not y2's)
    np.testing.assert_allclose(x.grad.data, 4.0 + 12.0)
    with pytest.raises(ValueError, match="would double it"):
        y2.backward()


def test_retain_grad_false_keeps_only_leaf_gradients():
    x = V.Variable(2.0)
    a = x * x
    b = V.exp(a)
    y = b + a
    y.backward()
    for h in (a, b, y):                         # reading an intermediate's .grad warns, as PyTorch's
        with pytest.warns(UserWarning, match="intermediate"):
            assert h.grad is None
    np.testing.assert_allclose(x.grad.data, (np.exp(4.0) + 1) * 4.0)


def test_retain_grad_true_keeps_intermediate_gradients():
    x = V.Variable(2.0)
    a = x * x
    b = V.exp(a)
    y = b + a
    y.backward(retain_grad=True)
    np.testing.assert_allclose(y.grad.data, 1.0)
    np.testing.assert_allclose(b.grad.data, 1.0)
    np.testing.assert_allclose(a.grad.data, np.exp(4.0) + 1)
    np.testing.assert_allclose(x.grad.data, (np.exp(4.0) + 1) * 4.0)


def test_constant_leaves_get_no_gradient():
    x = V.Variable(2.0)
    c = V.Variable(5.0, requires_grad=False)
    (x * c).backward()
    np.testing.assert_allclose(x.grad.data, 5.0)
    assert c.grad is None


def test_op_on_constants_records_no_graph():
    c = V.Variable(np.array([1.0, 2.0]), requires_grad=False)
    y = V.sin(c) * 2 + np.ones(2)
    assert y.creator is None and not y.requires_grad
    x = V.Variable(np.array([1.0, 2.0]))
    z = x + y
    recorded = z.creator.inputs[1]   # y, or its stand-in (Add reads no input's array)
    assert recorded.creator is None and not recorded.requires_grad and recorded.shape == y.shape


def test_graph_is_recorded_again_after_no_grad():
    x = V.Variable(1.0)
    with V.no_grad():
        assert (x * 2).creator is None
    assert (x * 2).creator is not None


# ----- diamonds: each Function's backward runs once ------------------------------------------
def test_same_variable_used_many_times():
    x = V.Variable(3.0)
    y = x * x + x                                      # dy/dx = 2x + 1
    y.backward()
    np.testing.assert_allclose(x.grad.data, 7.0)

    x.cleargrad()
    (x + x + x + x * x * x).backward()                 # 3 + 3x^2
    np.testing.assert_allclose(x.grad.data, 30.0)


def test_diamond_runs_each_backward_once(count):
    x = V.Variable(1.5)
    a = counted(x)                                     # a = 2x
    y = a * a + a                                      # y = 4x^2 + 2x
    y.backward()
    np.testing.assert_allclose(x.grad.data, 8 * 1.5 + 2)
    assert count() == 1


def test_deep_diamonds_run_each_backward_once(count):
    # Six stacked diamonds: b = 2a feeds four uses in a <- b * b + sin(b) + b.
    x = V.Variable(np.array([0.3, -0.2]))
    a, da = x, np.ones(2)
    value = x.data.copy()
    for _ in range(6):
        b = counted(a)
        a = b * b + V.sin(b) + b
        v = 2 * value                                  # value of b
        da = da * 2 * (2 * v + np.cos(v) + 1)          # chain rule, closed form
        value = v * v + np.sin(v) + v
    a.backward()
    np.testing.assert_allclose(a.data, value)
    np.testing.assert_allclose(x.grad.data, da)
    assert count() == 6


def test_backward_of_shared_subgraph_from_two_outputs(count):
    x = V.Variable(2.0)
    a = counted(x)
    y0, y1 = a * 3, a * a
    backward_all([y0, y1])                             # seeds ones for every output
    np.testing.assert_allclose(x.grad.data, 2 * (3 + 2 * 4.0))
    assert count() == 1


def test_v_backward_is_torch_autograd_backward():
    """V.backward(outputs, grad_outputs) is exported as torch.autograd.backward is (the module of
    the same name stays importable as variable.backward)."""
    x = V.Variable(np.array([1.0, 2.0]))
    y0, y1 = x * x, 3 * x
    V.backward([y0, y1], [np.array([1.0, 10.0]), None])
    np.testing.assert_allclose(x.grad.data, [2 * 1.0 + 3, 10 * 2 * 2.0 + 3])
    assert V.backward is backward_all


# ----- multiple outputs -------------------------------------------------------------------------
def test_unused_output_gets_a_zero_gradient():
    x = V.Variable(np.array([1.0, 2.0]))
    y0, y1 = V.Function(TwoOutputs())(x)
    (y0 * y0).backward()                               # y1 is kept but not used
    g0, g1 = TwoOutputs.received
    np.testing.assert_allclose(g0.data, 2 * y0.data)
    assert g1.shape == y1.shape and g1.dtype == y1.dtype
    np.testing.assert_allclose(g1.data, 0.0)
    np.testing.assert_allclose(x.grad.data, 2 * 2 * x.data * 2)


def test_dropped_output_gets_a_zero_gradient():
    x = V.Variable(np.array([1.0, 2.0], dtype=np.float32))
    y0 = V.Function(TwoOutputs())(x)[0]                # the second output is freed at once
    y0.backward()
    g0, g1 = TwoOutputs.received
    assert g1.shape == (2,) and g1.dtype == np.float32
    np.testing.assert_allclose(g1.data, 0.0)
    np.testing.assert_allclose(x.grad.data, 2.0)


def test_both_outputs_used():
    x = V.Variable(np.array([1.0, 2.0]))
    y0, y1 = V.Function(TwoOutputs())(x)
    (y0 + y1 * y1).backward()                          # 2x + 9x^2 -> 2 + 18x
    np.testing.assert_allclose(x.grad.data, 2 + 18 * x.data)


# ----- higher order -----------------------------------------------------------------------------
def test_create_graph_to_third_order():
    x = V.Variable(2.0)
    y = x ** 4
    y.backward(create_graph=True)
    g1 = x.grad
    np.testing.assert_allclose(g1.data, 4 * 2.0 ** 3)          # 32
    x.cleargrad()
    g1.backward(create_graph=True)
    g2 = x.grad
    np.testing.assert_allclose(g2.data, 12 * 2.0 ** 2)         # 48
    x.cleargrad()
    g2.backward(create_graph=True)
    np.testing.assert_allclose(x.grad.data, 24 * 2.0)          # 48
    # the same through V.grad, one order further: the fourth derivative is 24
    g = x ** 4
    for _ in range(4):
        g = V.grad(g, x, create_graph=True)
    np.testing.assert_allclose(g.data, 24.0)


def test_without_create_graph_the_gradient_has_no_graph():
    x = V.Variable(2.0)
    (x ** 3).backward()
    assert x.grad.creator is None


def test_nth_derivative_of_tanh_closed_form():
    # t = tanh x:  t' = 1 - t^2,  t'' = -2 t (1 - t^2),  t''' = (6 t^2 - 2)(1 - t^2)
    xs = np.array([-1.2, -0.3, 0.0, 0.4, 1.5])
    t = np.tanh(xs)
    expected = [1 - t ** 2, -2 * t * (1 - t ** 2), (6 * t ** 2 - 2) * (1 - t ** 2)]
    x = V.Variable(xs)
    g = V.tanh(x)
    for want in expected:
        g = V.grad(g, x, create_graph=True)
        np.testing.assert_allclose(g.data, want, atol=1e-12)


def test_newton_method_with_second_derivative_from_double_backprop():
    # f(x) = x^4 - 2x^2 has a minimum at x = 1; Newton: x <- x - f'(x) / f''(x)
    x = V.Variable(2.0)
    for _ in range(7):
        y = x ** 4 - 2 * x ** 2
        gx = V.grad(y, x, create_graph=True)
        gx2 = V.grad(gx, x)
        x = V.Variable(x.data - gx.data / gx2.data)
    np.testing.assert_allclose(x.data, 1.0, atol=1e-12)


# ----- V.grad -------------------------------------------------------------------------------------
def test_grad_leaves_dot_grad_untouched():
    x = V.Variable(np.array([1.0, 2.0]))
    y = (x * x).sum_to(())
    gx = V.grad(y, x)
    np.testing.assert_allclose(gx.data, 2 * x.data)
    assert x.grad is None


def test_grad_of_several_inputs_returns_a_tuple():
    x0, x1 = V.Variable(2.0), V.Variable(3.0)
    g = V.grad(x0 * x1 + x1, [x0, x1])
    assert isinstance(g, tuple)
    np.testing.assert_allclose(g[0].data, 3.0)
    np.testing.assert_allclose(g[1].data, 3.0)
    assert x0.grad is None and x1.grad is None


def test_torchs_tuple_habits_on_one_input_are_refused_and_the_rest_of_indexing_is_not():
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    y = V.sum(x ** 2)
    with pytest.raises(TypeError, match=r"V\.grad\(y, x\)\[0\] takes the result as torch\.autograd"):
        V.grad(y, x)[0]                               # the first row, where the gradient was meant
    with pytest.raises(TypeError, match=r"g, = V\.grad\(y, x\)"):
        g, = V.grad(y, x)
    np.testing.assert_array_equal(V.grad(y, [x])[0].data, [2.0, 4.0, 6.0])   # a list: a tuple
    np.testing.assert_array_equal(V.grad(y, x)[1:].data, [4.0, 6.0])         # any other index
    g = V.grad(y, x)
    assert g[0].item() == 2.0                          # indexed apart from the call
    second = V.grad(V.grad(y, x, create_graph=True)[2], x)   # one entry of a recorded gradient
    np.testing.assert_array_equal(second.data, [0.0, 0.0, 2.0])
    t = V.Variable(np.array(2.0))
    with pytest.raises(TypeError, match=r"of shape \(\); write g = V\.grad\(y, x\)"):
        V.grad(t ** 2, t)[0]


def test_grad_with_respect_to_intermediate_variables():
    x = V.Variable(2.0)
    a = x * x                                   # 4
    b = V.sin(a)
    y = b * a                                   # dy/da = cos(a) a + sin(a), dy/db = a
    ga, gb, gx = V.grad(y, [a, b, x])
    np.testing.assert_allclose(ga.data, np.cos(4.0) * 4.0 + np.sin(4.0))
    np.testing.assert_allclose(gb.data, 4.0)
    np.testing.assert_allclose(gx.data, ga.data * 2 * 2.0)
    assert a._grad is None and b._grad is None and x.grad is None   # V.grad stores nothing


def test_grad_outputs_weights_the_outputs():
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    u = np.array([0.5, -1.0, 2.0])
    gx = V.grad(x * x, x, grad_outputs=u)                      # vector-Jacobian product
    np.testing.assert_allclose(gx.data, 2 * x.data * u)
    gx = V.grad(x * x, x, grad_outputs=V.Variable(u))
    np.testing.assert_allclose(gx.data, 2 * x.data * u)
    g = V.grad([x * 2, x * x], x, grad_outputs=[np.ones(3), u])
    np.testing.assert_allclose(g.data, 2 + 2 * x.data * u)


def test_a_number_is_the_grad_output_of_a_one_entry_output():
    # a NumPy scalar (np.float32(2.0), what indexing or np.sum of an array gives) is a number too
    x = V.Variable(np.array([1.0, 2.0], dtype=np.float32))
    for gy in (2.0, np.float32(2.0), np.float64(2.0), [np.float32(2.0)]):
        gx = V.grad(V.sum(x * x), x, grad_outputs=gy)
        np.testing.assert_array_equal(gx.data, [4.0, 8.0])
        assert gx.dtype == np.float32
    with pytest.raises(TypeError, match=r"grad_outputs must be a Variable, an ndarray, a number.*got bool"):
        V.grad(V.sum(x), x, grad_outputs=np.bool_(True))
    with pytest.raises(ValueError, match=r"grad_output of shape \(\) does not match output of shape \(2,\)"):
        V.grad(x * x, x, grad_outputs=np.float32(2.0))


def test_grad_output_of_wrong_shape_or_count_raises():
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="shape"):
        V.grad(x * x, x, grad_outputs=np.ones(2))
    with pytest.raises(ValueError, match="grad_outputs"):
        V.grad(x * x, x, grad_outputs=[np.ones(3), np.ones(3)])


def test_grad_create_graph_gives_second_derivatives():
    x, w = V.Variable(0.7), V.Variable(-1.3)
    y = V.sin(x) * w * w
    gx, gw = V.grad(y, [x, w], create_graph=True)
    np.testing.assert_allclose(V.grad(gx, x).data, -np.sin(0.7) * 1.69)
    np.testing.assert_allclose(V.grad(gx, w).data, np.cos(0.7) * 2 * -1.3)
    np.testing.assert_allclose(V.grad(gw, w).data, 2 * np.sin(0.7))
    assert x.grad is None and w.grad is None


def test_grad_of_unused_input_raises_unless_allowed():
    x, z = V.Variable(1.0), V.Variable(2.0)
    y = x * 3
    with pytest.raises(ValueError, match="do not depend on input 1"):
        V.grad(y, [x, z])
    gx, gz = V.grad(y, [x, z], allow_unused=True)
    np.testing.assert_allclose(gx.data, 3.0)
    assert gz is None


def test_grad_of_constant_input_raises():
    c = V.Variable(1.0, requires_grad=False)
    with pytest.raises(ValueError, match="constant"):
        V.grad(c * 2, c)


def test_grad_rejects_non_variables():
    x = V.Variable(1.0)
    with pytest.raises(TypeError, match="grad"):
        V.grad(x * 2, [np.ones(1)])


def test_grad_visits_only_functions_on_a_path_to_the_inputs(count):
    x, w = V.Variable(1.0), V.Variable(2.0)
    side = counted(w)                            # leads to w only
    y = x * 3 + side * side
    np.testing.assert_allclose(V.grad(y, x).data, 3.0)
    assert count() == 0
    np.testing.assert_allclose(V.grad(y, w).data, 2 * side.data * 2)
    assert count() == 1


def test_grad_does_not_walk_past_the_inputs(count):
    x = V.Variable(1.0)
    a = counted(x)
    y = a * a
    np.testing.assert_allclose(V.grad(y, a).data, 4.0)
    assert count() == 0


# ----- dtypes -------------------------------------------------------------------------------------
@pytest.mark.parametrize("f", [
    lambda x: x * 2.5 + 1,
    lambda x: 2 / x - 1.5 ** x + x ** 2.5,
    lambda x: V.maximum(x, 1.5) + V.clip(x, 0.5, 2.5) + V.where(x.data > 2, x, 0.5),
    lambda x: V.sqrt(x) * V.log(x) + V.tanh(x) * abs(x) - V.exp(-x),
    lambda x: V.sum_to(V.broadcast_to(x, (2, 3)) * np.float32(2.0), (3,)),
], ids=["scale-shift", "powers", "piecewise", "transcendental", "broadcast"])
def test_float32_stays_float32(f):
    x = V.Variable(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    y = f(x)
    assert y.dtype == np.float32
    y.backward(create_graph=True)
    assert x.grad.dtype == np.float32
    assert V.grad(y, x).dtype == np.float32


@pytest.mark.parametrize("create_graph", [False, True])
def test_float32_leaf_gets_a_float32_grad_when_mixed_with_float64(create_graph):
    x = V.Variable(np.array([1.0, 2.0], dtype=np.float32))
    c = np.array([3.0, 4.0])
    y = x * x * c                               # NumPy promotes the product to float64
    assert y.dtype == np.float64
    y.backward(create_graph=create_graph)
    assert x.grad.dtype == np.float32
    np.testing.assert_allclose(x.grad.data, 2 * x.data * c)
    if create_graph:                            # the cast back is differentiable
        gx = x.grad
        x.cleargrad()
        gx.backward()
        assert x.grad.dtype == np.float32
        np.testing.assert_allclose(x.grad.data, 2 * c)


# ----- errors -------------------------------------------------------------------------------------
def test_shape_mismatch_names_the_op_and_both_shapes():
    x0, x1 = V.Variable(np.ones((2, 3))), V.Variable(np.ones(4))
    with pytest.raises(ValueError, match=r"(?i)add.*\(2, 3\).*\(4,\)"):
        x0 + x1
    with pytest.raises(ValueError, match=r"(?i)mul.*\(2, 3\).*\(4,\)"):
        V.mul(x0, np.ones(4))


def test_string_operand_names_the_op():
    with pytest.raises(TypeError, match="(?i)add"):
        V.Variable(1.0) + "a"
    with pytest.raises(TypeError, match="(?i)mul"):
        V.mul("a", V.Variable(1.0))


def test_wrong_gradient_shape_names_the_forwarder():
    y = V.Function(WrongShape())(V.Variable(np.ones(3)))
    with pytest.raises(ValueError, match=r"WrongShape.*\(7,\).*\(3,\)"):
        y.backward()


def test_wrong_gradient_count_names_the_forwarder():
    y = V.Function(WrongCount())(V.Variable(np.ones(3)))
    with pytest.raises(ValueError, match="WrongCount.*2 gradients for 1 inputs"):
        y.backward()


def test_raw_array_gradient_is_accepted_without_create_graph_only():
    x = V.Variable(np.ones(3))
    V.Function(RawArray())(x).backward()
    np.testing.assert_allclose(x.grad.data, 1.0)
    with pytest.raises(TypeError, match="RawArray"):
        V.Function(RawArray())(x).backward(create_graph=True)


# ----- deep graphs and memory -----------------------------------------------------------------
CHAIN = 100_000


def test_long_chain_backward_without_recursion_error():
    x = V.Variable(np.array(0.5))
    y = x
    for _ in range(CHAIN):
        y = V.sin(y)
    y.backward()
    # d/dx sin(sin(...sin(x))) = prod_k cos(y_k) where y_0 = x, y_{k+1} = sin(y_k)
    values, v = [], 0.5
    for _ in range(CHAIN):
        values.append(v)
        v = np.sin(v)
    np.testing.assert_allclose(y.data, v)
    np.testing.assert_allclose(x.grad.data, np.prod(np.cos(values)), rtol=1e-8)
    middle = weakref.ref(y.creator.inputs[0])
    function = weakref.ref(y.creator.inputs[0].creator)
    del y
    gc.collect()
    assert middle() is None and function() is None


def test_graph_is_freed_after_del_with_gc():
    x = V.Variable(np.ones(2))
    y = x
    for _ in range(1000):
        y = y * 1.0 + 1.0
    y.backward(create_graph=True)              # the gradient's graph refers back to x
    middle = weakref.ref(y.creator.inputs[0])
    function = weakref.ref(y.creator.inputs[0].creator)
    del y
    x.cleargrad()
    gc.collect()
    assert middle() is None and function() is None


def test_chain_is_freed_by_refcount_alone():
    gc.collect()
    gc.disable()
    try:
        x = V.Variable(np.ones(2))
        y = x
        for _ in range(CHAIN):
            y = y * 1.0
        middle = weakref.ref(y.creator.inputs[0])
        function = weakref.ref(y.creator.inputs[0].creator)
        y.backward()
        np.testing.assert_allclose(x.grad.data, 1.0)
        del y
        assert middle() is None and function() is None
    finally:
        gc.enable()


def test_a_failing_backward_leaves_no_reference_cycle():
    x = V.Variable(np.ones(2))
    y = V.Function(Raises())(x)
    forwarder = y.creator.forwarder
    with pytest.raises(RuntimeError, match="backward failed"):
        y.backward()
    assert forwarder.outputs == ()
    output = weakref.ref(y)
    gc.disable()
    try:
        del y
        assert output() is None
    finally:
        gc.enable()


def test_create_graph_sums_many_contributions_with_one_node():
    # x feeds six inputs (x * x counts twice): one Accumulate of six terms, not five Adds
    x = V.Variable(np.array([0.3, -1.2]))
    y = V.sin(x) + x * x + V.exp(x) + V.tanh(x) + x
    (g,) = V.grad(y, [x], create_graph=True)
    assert g.creator.name == "Accumulate" and len(g.creator.inputs) == 6
    xv = x.data
    np.testing.assert_allclose(
        g.data, np.cos(xv) + 2 * xv + np.exp(xv) + 1 - np.tanh(xv) ** 2 + 1, rtol=1e-12)
    (g2,) = V.grad(g.sum(), [x])
    np.testing.assert_allclose(
        g2.data, -np.sin(xv) + 2 + np.exp(xv) - 2 * np.tanh(xv) * (1 - np.tanh(xv) ** 2),
        rtol=1e-12)


def test_accumulated_gradient_keeps_float32():
    x = V.Variable(np.array([0.5, 1.5], dtype=np.float32))
    y = x * x * x + x
    y.backward(create_graph=True)
    assert x.grad.dtype == np.float32
    np.testing.assert_allclose(x.grad.data, 3 * x.data ** 2 + 1, rtol=1e-6)


def test_module_backward_checks_grad_outputs_like_grad():
    from variable.backward import backward

    x = V.Variable(np.ones(2))
    a, b = x * 2, x * 3
    with pytest.raises(ValueError, match=r"backward: 1 grad_outputs given for 2 outputs"):
        backward([a, b], [None])
    with pytest.raises(TypeError, match="backward: grad_outputs"):
        backward([a, b], "ab")
    backward([a, b], [np.full(2, 0.5), None])
    np.testing.assert_allclose(x.grad.data, [4.0, 4.0])        # 2 * 0.5 + 3 * 1


@pytest.mark.parametrize("make", [
    lambda: V.Variable(np.array([1, 2])) * 2,                     # integer data: a constant
    lambda: V.sin(np.ones(2)),                                    # constants only
])
def test_backward_of_something_that_does_not_require_grad_raises(make):
    with pytest.raises(ValueError, match="backward: the output does not require grad"):
        make().backward()


def test_backward_under_no_grad_raises_instead_of_doing_nothing():
    x = V.Variable(np.ones(2))
    with V.no_grad():
        y = (x * 3).sum()
    with pytest.raises(ValueError, match="does not require grad"):
        y.backward()
    assert x.grad is None


def test_grad_returns_gradients_in_the_inputs_dtype():
    x = V.Variable(np.array([0.5, 1.5], dtype=np.float32))
    y = (x * np.array([2.0, 3.0])).sum()           # a float64 array upcasts the graph
    g = V.grad(y, x, create_graph=True)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g.data, [2.0, 3.0])
    assert V.grad((g * g).sum(), x, allow_unused=True) is None   # g is constant in x


@pytest.mark.parametrize(
    "order", [(np.float32, np.float32, np.float64), (np.float64, np.float32, np.float32)]
)
def test_accumulate_promotes_mixed_dtypes_in_any_order(order):
    values = [np.array([0.1, 0.2], dtype=d) * (i + 1) for i, d in enumerate(order)]
    total = V.Function(Accumulate())(*[V.Variable(v) for v in values])
    assert total.dtype == np.float64
    np.testing.assert_allclose(total.data, sum(v.astype(np.float64) for v in values), rtol=1e-7)
    np.testing.assert_array_equal(values[0], np.array([0.1, 0.2], dtype=order[0]))  # not in place


# ----- gradients are never shared between Variables -------------------------------------
def _assert_unshared(grads):
    for i, a in enumerate(grads):
        for b in grads[i + 1:]:
            assert a is not b and not np.shares_memory(a.data, b.data)


@pytest.mark.parametrize("create_graph", [False, True])
def test_leaves_of_an_add_get_their_own_gradients(create_graph):
    a, b = V.Variable(np.array([1.0, 2.0])), V.Variable(np.array([3.0, 4.0]))
    (a + b).backward(create_graph=create_graph)
    _assert_unshared([a.grad, b.grad])
    for p in (a, b):                    # clipping by hand: each gradient is scaled once
        p.grad.data *= 0.5
    np.testing.assert_array_equal(a.grad.data, [0.5, 0.5])
    np.testing.assert_array_equal(b.grad.data, [0.5, 0.5])


def test_gradients_are_writable_even_from_a_broadcast():
    a, b = V.Variable(np.ones(3)), V.Variable(np.ones(3))
    (a + b).sum().backward()                    # sum's backward broadcasts a read-only view
    for p in (a, b):
        p.grad.data *= 0.5
    np.testing.assert_array_equal(a.grad.data, [0.5] * 3)
    np.testing.assert_array_equal(b.grad.data, [0.5] * 3)
    ga = V.grad((a * 2).sum(), a)
    ga.data += 1.0
    np.testing.assert_array_equal(ga.data, [3.0] * 3)


def test_gradients_through_reshapes_and_sums_are_unshared():
    a, b, c = V.Variable(np.ones((2, 3))), V.Variable(np.ones(6)), V.Variable(np.ones((2, 3)))
    y = a + b.reshape(2, 3) + c
    y.backward(retain_grad=True)
    _assert_unshared([a.grad, b.grad, c.grad, y.grad])


def test_grad_results_and_user_seeds_are_unshared():
    a, b = V.Variable(np.array([1.0, 2.0])), V.Variable(np.array([3.0, 4.0]))
    seed = np.array([1.0, -1.0])
    ga, gb = V.grad(a + b, [a, b], grad_outputs=seed)
    _assert_unshared([ga, gb])
    assert not np.shares_memory(ga.data, seed) and not np.shares_memory(gb.data, seed)
    u = V.Variable(np.array([2.0, 2.0]))
    assert V.grad(a, a, grad_outputs=u) is not u      # the output is the input itself
    np.testing.assert_array_equal(u.data, [2.0, 2.0])


def test_unsharing_keeps_second_order_right():
    a, b = V.Variable(np.array(1.5)), V.Variable(np.array(-0.5))
    ga, gb = V.grad((a + b) * (a + b), [a, b], create_graph=True)
    _assert_unshared([ga, gb])
    (ga + gb).backward()
    assert a.grad.item() == 4.0 and b.grad.item() == 4.0     # d/da of 4(a + b)
