"""Variable: construction, array facts, repr, operators, generations, unchaining."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import variable as V


def test_package_imports_in_a_fresh_interpreter():
    # the op modules bind themselves to Variable at import time: the load order matters
    root = Path(__file__).resolve().parents[2]
    for module in ("variable", "variable.forwarder"):
        result = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=root,
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


# ----- construction -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_ndarray_is_kept_as_is(dtype):
    a = np.array([1.0, 2.0], dtype=dtype)
    x = V.Variable(a)
    assert x.data is a
    assert x.dtype == dtype
    assert x.requires_grad


@pytest.mark.parametrize("value, shape", [(0.5, ()), (3, ()), ([1, 2, 3], (3,)),
                                          ([[1.0, 2.0], [3.0, 4.0]], (2, 2)), ((1, 2), (2,))])
def test_numbers_and_lists_become_float64(value, shape):
    x = V.Variable(value)
    assert isinstance(x.data, np.ndarray)
    assert x.dtype == np.float64
    assert x.shape == shape
    np.testing.assert_allclose(x.data, np.asarray(value, dtype=np.float64))
    assert x.requires_grad


@pytest.mark.parametrize("value", [[1, 2], 3.0, np.arange(3.0), np.float64(0.5)])
def test_a_dtype_is_given_as_numpy_and_pytorch_give_it(value):
    x = V.Variable(value, dtype=np.float32)               # torch.tensor(data, dtype=...)'s habit
    assert x.dtype == np.float32 and x.requires_grad
    np.testing.assert_array_equal(x.data, np.asarray(value, dtype=np.float32))
    labels = V.Variable([0, 2], dtype=np.int64)
    assert labels.dtype == np.int64 and not labels.requires_grad
    kept = np.ones(2, dtype=np.float32)
    assert V.Variable(kept, dtype="float32").data is kept  # no copy when nothing changes


@pytest.mark.parametrize("dtype, words", [("torch.float32", "a NumPy dtype such as np.float32"),
                                          (np.complex128, "complex data"), (np.str_, "real numeric dtype")])
def test_a_dtype_that_is_not_a_real_numpy_dtype_is_refused(dtype, words):
    with pytest.raises(TypeError, match=rf"^Variable: .*{words}"):
        V.Variable([1.0], dtype=object() if dtype == "torch.float32" else dtype)


def test_numpy_float32_scalar_keeps_its_dtype():
    # float32 end to end: a NumPy float32 scalar is data of a dtype, like a 0-d array
    assert V.Variable(np.float32(0.5)).dtype == np.float32


@pytest.mark.parametrize("value", ["abc", None, object(), {"a": 1}, ["a", "b"],
                                   np.array(["a", "b"]), np.array([object()])])
def test_non_numeric_data_raises_type_error(value):
    with pytest.raises(TypeError, match="Variable"):
        V.Variable(value)


def test_a_variable_is_not_wrapped_twice():
    with pytest.raises(TypeError, match="already a Variable"):
        V.Variable(V.Variable(1.0))


@pytest.mark.parametrize("a", [np.array([1, 2, 3]), np.array([True, False])])
def test_integer_and_boolean_arrays_are_constants(a):
    x = V.Variable(a)
    assert x.data is a
    assert not x.requires_grad


def test_integer_data_cannot_require_grad():
    with pytest.raises(TypeError, match="floating-point"):
        V.Variable(np.array([1, 2]), requires_grad=True)


def test_requires_grad_can_be_turned_off():
    x = V.Variable(np.ones(3), requires_grad=False)
    assert not x.requires_grad


def test_fresh_variable_state():
    x = V.Variable(np.ones(3), name="x")
    assert x.name == "x"
    assert x.grad is None
    assert x.creator is None
    assert x.generation == 0
    assert V.Variable(1.0).name is None


# ----- array facts ------------------------------------------------------------------------
def test_shape_ndim_size_dtype_len():
    x = V.Variable(np.zeros((2, 3, 4), dtype=np.float32))
    assert x.shape == (2, 3, 4)
    assert x.ndim == 3
    assert x.size == 24
    assert x.dtype == np.float32
    assert len(x) == 2


def test_len_of_zero_dim_variable_raises():
    with pytest.raises(TypeError, match="0-d"):
        len(V.Variable(1.0))


def test_truth_value_of_one_element_only():
    assert bool(V.Variable(1.0)) is True and bool(V.Variable(np.array([0.0]))) is False
    with pytest.raises(ValueError, match="one-element"):
        bool(V.Variable(np.array([1.0, 2.0])))


def test_repr():
    assert repr(V.Variable(np.array([1.0, 2.0]))) == "variable([1. 2.])"
    assert repr(V.Variable(np.array(3.5))) == "variable(3.5)"
    # continuation lines are indented under the first element
    assert repr(V.Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))) == (
        "variable([[1. 2.]\n          [3. 4.]])"
    )


# ----- operators ------------------------------------------------------------------------
X = np.array([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]])
Y = np.array([2.0, -0.5, 4.0])

BINARY = [
    ("+", lambda a, b: a + b),
    ("-", lambda a, b: a - b),
    ("*", lambda a, b: a * b),
    ("/", lambda a, b: a / b),
]


@pytest.mark.parametrize("symbol, op", BINARY, ids=[s for s, _ in BINARY])
def test_binary_operators_between_variables(symbol, op):
    z = op(V.Variable(X), V.Variable(Y))
    assert isinstance(z, V.Variable)
    np.testing.assert_allclose(z.data, op(X, Y))


@pytest.mark.parametrize("symbol, op", BINARY, ids=[s for s, _ in BINARY])
@pytest.mark.parametrize("other", [2.5, 3, Y], ids=["float", "int", "ndarray"])
def test_operators_with_constants_on_either_side(symbol, op, other):
    x = V.Variable(X)
    for z, expected in [(op(x, other), op(X, other)), (op(other, x), op(other, X))]:
        assert isinstance(z, V.Variable)  # ndarray (op) Variable too: no object array
        np.testing.assert_allclose(z.data, expected)


def test_numpy_scalar_on_the_left_gives_a_variable():
    z = np.float64(2.0) * V.Variable(X)
    assert isinstance(z, V.Variable)
    np.testing.assert_allclose(z.data, 2.0 * X)


def test_unary_operators_and_powers():
    x = V.Variable(np.abs(X) + 0.5)
    np.testing.assert_allclose((-x).data, -(np.abs(X) + 0.5))
    np.testing.assert_allclose(abs(V.Variable(X)).data, np.abs(X))
    np.testing.assert_allclose((x ** 2).data, (np.abs(X) + 0.5) ** 2)
    np.testing.assert_allclose((2 ** x).data, 2 ** (np.abs(X) + 0.5))
    np.testing.assert_allclose((x ** V.Variable(Y)).data, (np.abs(X) + 0.5) ** Y)
    np.testing.assert_allclose((Y ** V.Variable(X)).data[:, 2], Y[2] ** X[:, 2])


def test_operators_differentiate_with_reflected_constants():
    # y = 2 / x + 3 - x * 4 + x ** 2  ->  dy/dx = -2 / x^2 - 4 + 2 x
    x = V.Variable(X)
    y = 2.0 / x + 3 - x * 4 + x ** 2
    y.backward()
    np.testing.assert_allclose(x.grad.data, -2 / X ** 2 - 4 + 2 * X)


def test_sum_to_and_broadcast_to_methods():
    x = V.Variable(X)
    np.testing.assert_allclose(x.sum_to((3,)).data, X.sum(axis=0))
    np.testing.assert_allclose(V.Variable(Y).broadcast_to((2, 3)).data, np.broadcast_to(Y, (2, 3)))


# ----- generations and unchaining ---------------------------------------------------------
def test_generation_stamping():
    x = V.Variable(1.0)
    a = V.sin(x)              # function generation 0, output 1
    b = V.exp(a)              # 1, output 2
    c = a + b                 # max(1, 2) = 2, output 3
    d = c * x                 # max(3, 0) = 3, output 4
    assert (x.generation, a.generation, b.generation, c.generation, d.generation) == (0, 1, 2, 3, 4)
    assert a.creator.generation == 0
    assert c.creator.generation == 2
    assert d.creator.generation == 3


def test_unchain_makes_a_leaf():
    x = V.Variable(2.0)
    y = x * 3
    z = y * y
    y.unchain()
    assert y.creator is None
    z.backward()
    np.testing.assert_allclose(y.grad.data, 12.0)   # d(y^2)/dy at y = 6
    assert x.grad is None


def test_unchain_backward_cuts_everything_upstream():
    x = V.Variable(2.0)
    a = x * 3
    b = V.sin(a)
    c = b * b
    c.unchain_backward()
    assert c.creator is None
    assert b.creator is None
    assert a.creator is None
    c.backward()
    assert x.grad is None


def test_comparisons_give_boolean_masks_without_gradient():
    x = V.Variable(np.array([-1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(x > 0, [False, False, True])
    np.testing.assert_array_equal(x <= 0, [True, True, False])
    np.testing.assert_array_equal(x < V.Variable(np.ones(3)), [True, True, False])
    np.testing.assert_array_equal(np.zeros(3) >= x, [True, True, False])   # reflected
    assert isinstance(x > 0, np.ndarray)
    y = V.where(x > 0, x, 0.0)                     # the usual use: a mask for where
    y.sum().backward()
    np.testing.assert_allclose(x.grad.data, [0.0, 0.0, 1.0])
    with pytest.raises(TypeError, match="comparison"):
        _ = x < "a"
    # == and != are elementwise too; hashing stays by identity, so Variables are dict keys
    np.testing.assert_array_equal(x == 0.0, [False, True, False])
    np.testing.assert_array_equal(x != V.Variable(np.zeros(3)), [True, False, True])
    np.testing.assert_array_equal(np.zeros(3) == x, [False, True, False])  # reflected
    twin = V.Variable(x.data)
    assert hash(x) == object.__hash__(x) and {x: 1, twin: 2}[twin] == 2
    assert (x == None) is False and (x != "a") is True  # noqa: E711  other types: identity


# ----- what PyTorch users reach for -----------------------------------------------------
def test_where_with_equality_mask():
    x = V.Variable(np.array([0.0, 2.0, -3.0]))
    y = V.where(x == 0, 1.0, x)  # was silently `x` when == meant identity
    np.testing.assert_array_equal(y.data, [1.0, 2.0, -3.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 1.0, 1.0])


def test_conversions_of_one_element_variables():
    loss = V.Variable(np.array(0.123456))
    assert float(loss) == 0.123456 and isinstance(float(loss), float)
    assert int(V.Variable(np.array([3.7]))) == 3
    assert loss.item() == 0.123456 and type(loss.item()) is float
    assert f"{loss:.3f}" == "0.123" and f"{loss}" == "variable(0.123456)"
    assert f"{V.Variable(np.array([[2.5]])):>6.2f}" == "  2.50"


def test_numpy_sees_the_data():
    x = V.Variable(np.array([1.0, 2.0], dtype=np.float32))
    a = np.array(x)
    assert a.dtype == np.float32 and a.tolist() == [1.0, 2.0]  # was an object array
    assert np.asarray(x) is x.data and x.numpy() is x.data
    np.testing.assert_array_equal(np.asarray(x, dtype=np.float64), [1.0, 2.0])
    assert not np.shares_memory(np.array(x, copy=True), x.data)
    y = np.ones(2) * x                  # an ndarray on the left still defers to the Variable
    assert isinstance(y, V.Variable) and y.requires_grad


def test_detach_shares_data_and_cuts_the_graph():
    x = V.Variable(np.array([1.0, 2.0]))
    y = x * 3
    d = y.detach()
    assert d.data is y.data and d.creator is None and not d.requires_grad
    (x * d).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [3.0, 6.0])  # d is a constant


def test_matplotlib_plots_variables(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = V.Variable(np.linspace(-1, 1, 5))
    y = V.tanh(x)
    figure, axes = plt.subplots()
    (line,) = axes.plot(x, y)          # "setting an array element with a sequence" before
    np.testing.assert_allclose(line.get_ydata(), np.tanh(x.data))
    figure.savefig(tmp_path / "plot.png")
    plt.close(figure)


def test_data_assignment_is_checked():
    x = V.Variable(np.array([1.0, 2.0]))
    x.data = np.array([3.0, 4.0, 5.0])        # a new array, even of a new shape, is fine
    x.data -= 1.0                             # and in-place updates, which assign x.data
    np.testing.assert_array_equal(x.data, [2.0, 3.0, 4.0])
    s = V.Variable(np.array(1.0))
    s.data = s.data - 0.5                     # a NumPy scalar (0-d arithmetic) becomes 0-d
    assert type(s.data) is np.ndarray and s.data.shape == () and s.item() == 0.5
    for bad in ([1.0, 2.0], 3.0, None, np.ones((1, 1)).view(np.matrix), np.array(["a"]), np.array([1j])):
        with pytest.raises(TypeError, match="Variable.data"):
            x.data = bad
    np.testing.assert_array_equal(x.data, [2.0, 3.0, 4.0])  # unchanged by the refusals
    labels = V.Variable(np.array([1, 2]))     # integer Variables may take integer data
    labels.data = np.array([0, 1, 2])
    assert labels.shape == (3,)


def test_a_graph_recorded_before_a_data_assignment_refuses_backward():
    x = V.Variable(np.array([1.0, 2.0]), name="x")
    y = V.tanh(x)                             # tanh's backward needs its output y too
    y.data = np.zeros(2)
    with pytest.raises(ValueError, match=r"'x'|Tanh"):
        y.sum().backward()
    x2 = V.Variable(np.array([1.0, 2.0]))
    z = (x2 * x2).sum()
    z.backward()                              # first backward, then the update: the usual order
    x2.data -= 0.1 * x2.grad.data
    x2.cleargrad()
    (x2 * x2).sum().backward()                # a new forward pass records a new graph
    np.testing.assert_allclose(x2.grad.data, 2 * np.array([0.8, 1.6]))


def test_an_assignment_refuses_only_the_ops_that_read_what_changed():
    x = V.Variable(np.array([1.0, 2.0, 3.0]), name="x")
    y = V.sum(x + 1.0) * 2.0                  # neither Add nor Sum reads x's values
    x.data = np.array([5.0, 6.0, 7.0])
    y.backward()                              # the recorded computation's gradient, as in PyTorch
    np.testing.assert_array_equal(x.grad.data, [2.0, 2.0, 2.0])
    for new in (np.zeros(4), np.zeros(3, dtype=np.float32)):   # but every backward reads shapes
        x = V.Variable(np.array([1.0, 2.0, 3.0]), name="x")
        y = V.sum(x + 1.0)
        x.data = new
        with pytest.raises(ValueError, match=r"'x', an input of Add, was assigned an array of another "
                                             r"shape or dtype after Add was recorded"):
            y.backward()
    x = V.Variable(np.arange(5.0), name="x")
    s = x[1:4]                                # a view of x's array, made by an op that reads nothing
    z = V.sum(s * s)                          # Mul reads the view
    with V.no_grad():
        x -= 1.0                              # written in place: the view changed with it
    with pytest.raises(ValueError, match=r"an input of Mul, views memory .* written in place through the "
                                         r"\.data of Variable 'x'"):
        z.backward()
    x = V.Variable(np.arange(5.0), name="x")
    s = x[1:4]
    z = V.sum(s * s)
    x.data = x.data - 1.0                     # a new array: the view keeps the values Mul saw
    z.backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 2.0, 4.0, 6.0, 0.0])


def test_the_record_of_in_place_writes_forgets_arrays_that_are_gone_and_keeps_the_rest():
    x = V.Variable(np.arange(4.0), name="x")
    z = V.sum(V.sin(x.reshape(2, 2)))            # Sin keeps a view of x's array
    alive = [V.Variable(np.ones(2)) for _ in range(5000)]
    with V.no_grad():
        x -= 1.0
        for w in alive:                          # more written arrays than the record holds before
            w -= 1.0                             # it looks for those that are gone
    del alive[::2]
    with V.no_grad():
        for w in [V.Variable(np.ones(2)) for _ in range(5000)]:
            w -= 1.0
    with pytest.raises(ValueError, match=r"an input of Sin, views memory .* through the \.data of "
                                         r"Variable 'x'"):
        z.backward()


def test_item_assignment_under_no_grad_writes_in_place_and_refuses_the_graphs_that_read_it():
    # PyTorch's `with torch.no_grad(): w[i] = v`: the write counts as an assignment of .data
    W = V.Variable(np.arange(4.0), name="W")
    x = V.Variable(np.ones(4))
    data = W.data
    y = V.sum(W * x)                             # Mul reads W for x's gradient
    z = V.sum(W + 1.0)                           # Add reads no values
    with V.no_grad():
        W[1] = 20.0
        W[np.array([0, 2])] = V.Variable(np.array([-1.0, -2.0]))
        W[W < 0] = 0
    assert W.data is data
    np.testing.assert_array_equal(W.data, [0.0, 20.0, 0.0, 3.0])
    with pytest.raises(ValueError, match=r"the data of Variable 'W', an input of Mul, was assigned"):
        y.backward()
    z.backward()
    np.testing.assert_array_equal(W.grad.data, [1.0, 1.0, 1.0, 1.0])
    M = V.Variable(np.arange(6.0).reshape(2, 3), name="M")
    t = V.sum(V.sin(M.T))                        # Sin keeps a view of M's array
    with V.no_grad():
        M[0, 0] = 5.0
    with pytest.raises(ValueError, match=r"an input of Sin, views memory .* through the \.data of "
                                         r"Variable 'M'"):
        t.backward()


def test_item_assignment_is_refused_while_recording_and_checked_under_no_grad():
    W = V.Variable(np.arange(4.0), name="W")
    with pytest.raises(TypeError, match=r"W\[i\] = v: a Variable is not written in place while a graph "
                                        r"is recorded .* `with V\.no_grad\(\): W\[i\] = v`"):
        W[0] = 1.0
    with V.no_grad():
        with pytest.raises(IndexError, match=r"W\[i\] = v \(under no_grad\) on data of shape \(4,\)"):
            W[7] = 1.0
        with pytest.raises(ValueError, match=r"W\[i\] = v \(under no_grad\) on data of shape \(4,\), v of "
                                             r"shape \(3,\)"):
            W[:2] = np.ones(3)
        with pytest.raises(TypeError, match=r"v of dtype float64 does not fit x's data of dtype int64"):
            V.Variable(np.arange(3))[0] = 2.5
        with pytest.raises(TypeError, match=r"v of dtype complex128 does not fit W's data of dtype float64"):
            W[0] = 1 + 2j
    np.testing.assert_array_equal(W.data, np.arange(4.0))


def test_size_is_an_int_and_tolist_gives_numbers():
    x = V.Variable(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert x.size == 6 and isinstance(x.size, int) and repr(x.size) == "6"
    assert np.zeros(x.size).shape == (6,) and x.size + 1 == 7
    assert x.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert V.Variable(2.5).tolist() == 2.5


def test_a_numpy_floating_scalar_gives_an_op_its_dtype_as_in_numpy():
    # np.exp(np.float32(2)) is float32: so is V.exp's, and a Python number beside it follows it
    for op, args in [(V.exp, (np.float32(2.0),)), (V.erf, (np.float32(0.5),)),
                     (V.add, (np.float32(1.0), 2.0)), (V.chdtr, (3, np.float32(2.0))),
                     (V.as_variable, (np.float32(3.0),))]:
        assert op(*args).dtype == np.float32, op.__name__
    # beside arrays NumPy's rule (a NumPy scalar is typed): float32 data times np.float64 is float64
    assert (V.Variable(np.ones(2, dtype=np.float32)) * np.float64(2.0)).dtype == np.float64
    assert (np.float32(2.0) * V.Variable(np.ones(2))).dtype == np.float64
    assert V.as_variable(3.0).dtype == np.float64 and V.as_variable(np.int64(3)).dtype == np.float64
