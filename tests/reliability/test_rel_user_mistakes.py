"""The catalogue of user mistakes: each slip is refused where it is made, with the fix.

Every case is a slip that students and authors of custom functions make (DeZero and
PyTorch habits included).  Each must raise a TypeError or ValueError (an OSError such as
FileNotFoundError for a slip with files, an AttributeError for a name that gengrad spells
otherwise, such as PyTorch's `opt.step()`) whose message names the op or object involved
and the likely fix, never compute a wrong number.  A new slip met anywhere becomes a row
here.
"""

import math
import os
import re
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import function as F
import layers as L
import optimizers as O
import variable as V


class Cube(V.Forwarder):
    def forward(self, x):
        return x ** 3

    def backward(self, gy):
        x, = self.inputs
        return 3 * x ** 2 * gy


class NoReturn(V.Forwarder):
    def forward(self, x):
        return x * 2

    def backward(self, gy):
        gy * 2  # noqa: B018  the slip: no `return`


def _torch_style_static_methods():
    class Square(V.Forwarder):         # torch.autograd.Function's habit
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, gy):
            x, = ctx.saved_tensors
            return 2 * x * gy


def _save_for_backward_called():
    class Square(V.Forwarder):
        def forward(self, x):
            self.save_for_backward(x)  # PyTorch's ctx call, on self
            return x ** 2

        def backward(self, gy):
            x, = self.inputs
            return 2 * x * gy

    return Square.apply(V.Variable(np.ones(2)))


def _dezero_self_input():
    class Square(V.Forwarder):
        def forward(self, x):
            return x ** 2

        def backward(self, gy):
            x = self.input             # DeZero's steps 7-10 keep one input as self.input
            return 2 * x * gy

    Square.apply(V.Variable(np.ones(2))).sum().backward()


def _with_no_grad_without_parentheses():
    with V.no_grad:                    # torch.no_grad's parentheses forgotten
        pass


def _with_test_mode_without_parentheses():
    with V.test_mode:
        pass


def _reuse_forwarder():
    c = Cube()
    V.Function(c)(V.Variable(2.0))
    V.Function(c)(V.Variable(3.0))


def _reuse_function():
    f = V.Function(Cube())
    f(V.Variable(2.0))
    f(V.Variable(3.0))


def _reuse_forwarder_under_no_grad():
    c = Cube()
    V.Function(c)(V.Variable(2.0))
    with V.no_grad():
        V.Function(c)(V.Variable(3.0))  # would overwrite state the first call's backward needs


def _backward_without_return():
    x = V.Variable(2.0)
    V.Function(NoReturn())(x).backward()


def _grad_without_return():
    x = V.Variable(2.0)
    V.grad(V.Function(NoReturn())(x), x)


def _subclass_function():
    class Square(V.Function):  # DeZero's spelling
        def forward(self, x):
            return x ** 2


def _call_forwarder():
    Cube()(V.Variable(2.0))  # DeZero's spelling


def _function_of_class():
    V.Function(Cube)(V.Variable(2.0))


def _backward_of_graphless_gradient():
    x = V.Variable(np.array(2.0))
    y = x ** 3
    y.backward()  # no create_graph=True
    gx = x.grad
    x.cleargrad()
    gx.backward()


def _grad_of_graphless_gradient():
    x = V.Variable(np.array(2.0))
    V.grad(V.grad(x ** 3, x), x)


def _grad_wrt_integer():
    x = V.Variable(np.array(2))
    V.grad(x ** 2, x)


def _backward_of_integer():
    (V.Variable(np.array(2)) ** 2).backward()


def _data_from_list():
    V.Variable(np.array([1.0, 2.0])).data = [1.0, 2.0]


def _data_from_variable():
    V.Variable(np.array([1.0, 2.0])).data = V.Variable(np.array([3.0, 4.0]))


def _integer_data_on_trainable():
    V.Variable(np.array([1.0, 2.0])).data = np.array([1, 2])


def _data_reshaped_before_backward():
    x = V.Variable(np.array([1.0, 2.0]), name="x")
    y = (x * x).sum()
    x.data = np.ones((3,))
    y.backward()


def _data_changed_before_backward():
    w, z = V.Variable(np.array(2.0), name="w"), V.Variable(np.array(3.0))
    d = V.tanh(w * z)
    w.data -= 1.0
    d.backward()


def _linear_in_pytorch_order():
    layer = L.Linear(3, 5)  # PyTorch's nn.Linear(in=3, out=5) habit
    layer(np.ones((2, 3)))


def _float_of_vector():
    float(V.Variable(np.array([1.0, 2.0])))


def _format_vector():
    return f"{V.Variable(np.array([1.0, 2.0])):.3f}"


def _item_of_vector():
    V.Variable(np.array([1.0, 2.0])).item()


def _variable_of_variables():
    x, y = V.Variable(1.0), V.Variable(2.0)
    V.Variable([x, y])


def _op_on_list_of_variables():
    x, y = V.Variable(1.0), V.Variable(2.0)
    x + [x, y]  # noqa: B018


def _using_config_unknown():
    V.using_config("enable_grad", False)


def _backward_with_positional_gradient():
    x = V.Variable(np.array([1.0, 2.0]))
    (x * x).backward(np.array([1.0, 10.0]))


def _math_exp_of_a_variable():
    x = V.Variable(np.array(0.5))
    return math.exp(x) * x                       # a float times x: d/dx would miss exp's part


def _square_of(x):
    return (x * x).sum()


def _torch_batch_norm_order():
    """PyTorch's F.batch_norm(x, running_mean, running_var, weight, bias): gengrad's order puts
    gamma and beta first, so the weight would land on running_mean and be overwritten."""
    gamma, beta = V.Variable(np.ones(3)), V.Variable(np.zeros(3))
    F.batch_norm(np.ones((4, 3)), np.zeros(3), np.ones(3), gamma, beta)


def _zero_grad_in_place():
    x = V.Variable(np.array([1.0, 2.0]))
    (x * x).sum().backward()
    x.grad.zero_()


_LBFGS_X = V.Variable(np.array([1.0, 2.0]))


def _lbfgs():
    """An LBFGS set up on one Variable, for the closure slips."""
    _LBFGS_X.cleargrad()
    return O.LBFGS().setup([_LBFGS_X])


@dataclass
class Mistake:
    label: str
    run: Callable[[], object]
    error: type
    words: tuple  # regexes the message must match: what is wrong and the fix
    gpu: bool = False  # made on a GPU module (the `gpu` fixture: the CPU stand-in for CuPy here)

    def __repr__(self):
        return self.label


def _grad_indexed_as_torchs_tuple():
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    return V.grad((x ** 2).sum(), x)[0]


def _grad_unpacked_as_torchs_tuple():
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    g, = V.grad((x ** 2).sum(), x)
    return g


def _max_unpacked_as_torchs_pair():
    y = V.Variable(np.arange(12.0).reshape(4, 3))
    _, predicted = y.max(1)
    return predicted


def _max_of_two_rows_unpacked():
    y = V.Variable(np.arange(6.0).reshape(2, 3))
    _, predicted = V.max(y, 1)                       # (unrefused: 5.0, a maximum, not its index)
    return predicted


def _sort_unpacked_as_torchs_pair():
    values, indices = V.sort(V.Variable(np.array([3.0, 1.0, 2.0])))
    return indices


def _hvp_unpacked_as_torchs_pair():
    _, hv = V.hvp(lambda x: (x ** 3).sum(), np.array([1.0, 2.0]), np.array([1.0, 0.0]))


def _none_coefficient():
    class Lazy(V.Forwarder):
        def forward(self, x):
            return x * x

        def backward(self, gy):
            return 2 * self.inputs[0] * gy

        def taylor(self, x):
            return [x[0] * x[0]] + [None] * (len(x) - 1)
    V.taylor(lambda t: V.Function(Lazy())(t), np.ones(3), np.ones(3), 2)


CATALOGUE = [
    Mistake("reuse a Forwarder instance", _reuse_forwarder, ValueError,
            (r"\bCube\b", r"new one per call", r"V\.Function\(Cube\(\.\.\.\)\)\(x\)")),
    Mistake("reuse a Function object", _reuse_function, ValueError, (r"\bCube\b", r"new one per call")),
    Mistake("reuse a Forwarder, second call under no_grad", _reuse_forwarder_under_no_grad, ValueError,
            (r"\bCube\b", r"new one per call")),
    Mistake("backward forgets return", _backward_without_return, TypeError,
            (r"NoReturn\.backward returned None", r"forget `return`")),
    Mistake("backward forgets return (grad)", _grad_without_return, TypeError,
            (r"NoReturn\.backward returned None", r"forget `return`")),
    Mistake("subclass Function (DeZero)", _subclass_function, TypeError,
            (r"\bSquare\b", r"V\.Forwarder", r"V\.Function\(Square\(\)\)\(x\)")),
    Mistake("call a Forwarder directly (DeZero)", _call_forwarder, TypeError,
            (r"\bCube\b", r"V\.Function\(Cube\(\)\)\(x\)", r"Cube\.apply\(x\)")),
    Mistake("wrap the Forwarder class", _function_of_class, TypeError,
            (r"\bCube\b", r"V\.Function\(Cube\(\)\)\(x\)")),
    Mistake("backward of a gradient without create_graph", _backward_of_graphless_gradient, ValueError,
            (r"backward", r"without create_graph=True", r"create_graph=True")),
    Mistake("grad of a gradient without create_graph", _grad_of_graphless_gradient, ValueError,
            (r"grad", r"without create_graph=True")),
    Mistake("grad with respect to integer data", _grad_wrt_integer, ValueError,
            (r"grad", r"integer", r"np\.array\(2\.0\)")),
    Mistake("backward of integer data", _backward_of_integer, ValueError,
            (r"backward", r"integer", r"floating point")),
    Mistake("assign a list to .data", _data_from_list, TypeError, (r"Variable\.data", r"np\.asarray")),
    Mistake("assign a Variable to .data", _data_from_variable, TypeError,
            (r"Variable\.data", r"other\.data")),
    Mistake("assign integer data to a trainable Variable", _integer_data_on_trainable, TypeError,
            (r"Variable\.data", r"floating point", r"astype")),
    Mistake("reshape .data between forward and backward", _data_reshaped_before_backward, ValueError,
            (r"backward", r"'x'", r"\bMul\b", r"forward pass again")),
    Mistake("change .data between forward and backward", _data_changed_before_backward, ValueError,
            (r"'w'", r"\bMul\b", r"forward pass again", r"after backward")),
    Mistake("Linear in PyTorch's (in, out) order", _linear_in_pytorch_order, ValueError,
            (r"Linear", r"out_size", r"in_size")),
    Mistake("float() of a vector", _float_of_vector, ValueError, (r"float", r"one-element", r"\.sum\(\)")),
    Mistake("format spec on a vector", _format_vector, TypeError, (r"format", r"one-element")),
    Mistake("item() of a vector", _item_of_vector, ValueError, (r"item", r"one-element")),
    Mistake("Variable of a list of Variables", _variable_of_variables, TypeError,
            (r"Variable", r"V\.stack")),
    Mistake("op on a list of Variables", _op_on_list_of_variables, TypeError, (r"\bAdd\b", r"V\.stack")),
    Mistake("using_config with a PyTorch name", _using_config_unknown, ValueError,
            (r"using_config", r"enable_backprop")),
]


# ----- slips from training and derivative scripts (DeZero, PyTorch and NumPy habits) -------------
class ReturnsNothing(V.Forwarder):
    def forward(self, x):
        x * 2  # noqa: B018  the slip: no `return`


class ReturnsList(V.Forwarder):
    def forward(self, x):
        return [x, 2 * x]


class ReturnsVariable(V.Forwarder):
    def forward(self, x):
        return V.sin(V.Variable(x))


class CallsOutput(V.Forwarder):  # DeZero keeps weak references in self.outputs
    def forward(self, x):
        return np.tanh(x)

    def backward(self, gy):
        y = self.outputs[0]()
        return gy * (1 - y * y)


class ListOfGradients(V.Forwarder):
    def forward(self, x0, x1):
        return x0 * x1

    def backward(self, gy):
        x0, x1 = self.inputs
        return [gy * x1, gy * x0]


class NumpyInBackward(V.Forwarder):
    def forward(self, x):
        return np.sin(x)

    def backward(self, gy):
        x, = self.inputs
        return gy * np.cos(x)   # NumPy's cos on the Variable records V.cos: right to any order


class DataInBackward(V.Forwarder):
    """DeZero's step 27: the backward computes with x.data, a constant to a recorded graph."""

    def forward(self, x):
        return np.sin(x)

    def backward(self, gy):
        x = self.inputs[0].data
        return gy * np.cos(x)


def _data_in_backward_under_create_graph():
    x = V.Variable(np.array([0.5, 1.5]))
    V.grad(V.Function(DataInBackward())(x), x, create_graph=True)


def _data_times_gradient_under_create_graph():
    class Square(V.Forwarder):
        def forward(self, x):
            return x * x

        def backward(self, gy):
            return 2 * gy * self.inputs[0].data

    x = V.Variable(np.array([0.5, 1.5]))
    V.grad(V.sum(V.Function(Square())(x)), x, create_graph=True)


def _run_forwarder(cls, *values):
    def run():
        xs = [V.Variable(np.array(v)) for v in values]
        y = V.Function(cls())(*xs)
        y.backward()
    return run


def _in_place_on_leaf_while_recording():
    p = V.Variable(np.array([1.0, 2.0]))
    p -= 0.1 * p


def _no_grad_without_parentheses():
    @V.no_grad
    def evaluate():
        pass


def _pickled_losses():
    import pickle
    w = V.Variable(np.array([0.5, -1.0]))
    losses = [V.sum(w * w), V.sum(w ** 4)]
    return pickle.dumps(losses)        # (PyTorch refuses non-leaf tensors alike)


def _grad_with_a_model_among_the_inputs():
    model = L.Linear(2)
    x = V.Variable(np.ones((1, 3)))
    return V.grad(V.sum(model(x)), [x, model])   # (PyTorch's autograd.grad(loss, [x, *model.parameters()]))


def _grad_of_a_list_assigned():
    V.Variable(np.array([1.0, 2.0])).grad = [0.1, 0.2]


def _grad_of_another_shape_assigned():
    V.Variable(np.array([1.0, 2.0])).grad = np.zeros(3)


def _ndarray_updated_in_place_from_variable():
    a = np.zeros(2)
    a += V.Variable(np.array([1.0, 2.0]))


def _variable_stored_into_an_ndarray():
    a = np.zeros(3)
    a[1:] = V.Variable(np.array([1.0, 2.0]))  # NumPy would store the values, dropping the graph


def _weights_pruned_between_forward_and_backward():
    layer = L.Linear(2, in_size=3)
    loss = V.sum(layer(np.ones((4, 3))) ** 2)
    with V.no_grad():                      # PyTorch's pruning habit, before backward
        layer.W[layer.W.data < 0] = 0.0   # Linear keeps W for the input's gradient... and x for W's
    V.grad(loss, [layer.W, layer.b])


def _second_derivative_added_to_the_first():
    x = V.Variable(np.array(2.0), name="x")
    (x ** 3).backward(create_graph=True)
    gx = x.grad
    gx.backward()  # DeZero's step 33 calls x.cleargrad() first: x.grad would be 3x^2 + 6x


CATALOGUE += [
    Mistake("Variable of an np.matrix", lambda: V.Variable(np.ones((1, 2)).view(np.matrix)), TypeError,
            (r"Variable", r"np\.matrix", r"np\.asarray")),
    Mistake("Variable of a masked array", lambda: V.Variable(np.ma.masked_array([1.0, 2.0], mask=[0, 1])),
            TypeError, (r"Variable", r"masked", r"filled")),
    Mistake("Variable of complex data", lambda: V.Variable(np.array([1j])), TypeError,
            (r"Variable", r"complex", r"np\.real")),
    Mistake("op with a complex array", lambda: V.Variable(np.ones(2)) * np.array([1j, 2j]), TypeError,
            (r"\bMul\b", r"complex")),
    Mistake("-= on a leaf while recording", _in_place_on_leaf_while_recording, ValueError,
            (r"-=", r"leaf", r"V\.no_grad\(\)", r"x = x - \.\.\.")),
    Mistake("forward forgets return", _run_forwarder(ReturnsNothing, 1.0), TypeError,
            (r"ReturnsNothing\.forward returned None", r"forget `return`")),
    Mistake("forward returns a list", _run_forwarder(ReturnsList, 1.0), TypeError,
            (r"ReturnsList\.forward returned a list", r"tuple of arrays")),
    Mistake("forward returns a Variable", _run_forwarder(ReturnsVariable, 1.0), TypeError,
            (r"ReturnsVariable\.forward returned a Variable", r"NumPy")),
    Mistake("self.outputs[0]() in backward (DeZero)", _run_forwarder(CallsOutput, 0.5), TypeError,
            (r"CallsOutput\.backward", r"y, = self\.outputs", r"DeZero")),
    Mistake("backward returns a list", _run_forwarder(ListOfGradients, 1.0, 2.0), TypeError,
            (r"ListOfGradients\.backward returned a list", r"tuple")),
    Mistake("backward computes with x.data under create_graph", _data_in_backward_under_create_graph,
            TypeError, (r"DataInBackward\.backward computes np\.cos", r"create_graph=True",
                        r"V\.cos\(x\)", r"x\.data > 0")),
    Mistake("backward multiplies by x.data under create_graph", _data_times_gradient_under_create_graph,
            TypeError, (r"Square\.backward computes", r"gy \* x instead of gy \* x\.data")),
    Mistake("a NumPy ufunc gengrad has no op for", lambda: np.nextafter(V.Variable(np.ones(2)), 2.0),
            TypeError,
            (r"np\.nextafter", r"no nextafter op", r"Forwarder", r"np\.nextafter\(x\.data, \.\.\.\)")),
    Mistake("a NumPy function gengrad has no op for", lambda: np.sort_complex(V.Variable(np.ones(3))),
            TypeError, (r"np\.sort_complex", r"no sort_complex op", r"Forwarder", r"x\.data")),
    Mistake("np.roots of a polynomial with complex roots",
            lambda: np.roots(V.Variable(np.array([1.0, 0.0, 1.0]))), ValueError,
            (r"roots: the polynomial has complex roots", r"np\.roots\(p\.data\)")),
    Mistake("np.linalg.eig of a matrix with complex eigenvalues",
            lambda: np.linalg.eig(V.Variable(np.array([[0.0, -1.0], [1.0, 0.0]]))), ValueError,
            (r"eig: the matrix has complex eigenvalues", r"no complex dtype", r"V\.linalg\.eigh")),
    Mistake("np.emath.sqrt of a negative entry (a complex answer)",
            lambda: np.emath.sqrt(V.Variable(np.array([4.0, -4.0]))), ValueError,
            (r"np\.emath\.sqrt", r"real domain", r"np\.sqrt", r"np\.emath\.sqrt\(x\.data\)")),
    Mistake("np.fft.fft on a Variable", lambda: np.fft.fft(V.Variable(np.ones(4))), TypeError,
            (r"np\.fft\.fft\(x\)", r"complex", r"np\.fft\.fft\(x\.data\)")),
    Mistake("np.add.at on a Variable", lambda: np.add.at(V.Variable(np.ones(3)), [0], 1.0), TypeError,
            (r"np\.add\.at", r"V\.where")),
    Mistake("np.multiply.reduceat on a Variable",
            lambda: np.multiply.reduceat(V.Variable(np.ones(4)), [0, 2]), TypeError,
            (r"np\.multiply\.reduceat", r"slices")),
    Mistake("@V.no_grad without parentheses", _no_grad_without_parentheses, TypeError,
            (r"no_grad", r"'evaluate'", r"@V\.no_grad\(\)")),
    Mistake("assign a list as .grad", _grad_of_a_list_assigned, TypeError, (r"Variable\.grad", r"ndarray")),
    Mistake("assign a gradient of another shape", _grad_of_another_shape_assigned, ValueError,
            (r"Variable\.grad", r"\(3,\)", r"\(2,\)")),
    Mistake("grad with a number as inputs", lambda: V.grad(V.Variable(1.0) * 2, 5), TypeError,
            (r"grad", r"iterable of Variables")),
    Mistake("pickle.dumps(losses): a list of losses pickled with their graphs", _pickled_losses, TypeError,
            (r"pickle / copy: this Variable was made by", r"x\.detach\(\)")),
    Mistake("V.grad(loss, [x, model]): a model among the inputs", _grad_with_a_model_among_the_inputs,
            TypeError, (r"grad: inputs must be Variables, got Linear", r"a layer or model",
                        r"inputs=\[x, \*model\.params\(\)\]")),
    Mistake("np.sum(x, dtype=...) on a Variable", lambda: np.sum(V.Variable(np.ones(2)), dtype=np.float32),
            TypeError, (r"np\.sum", r"dtype", r"x\.data")),
    Mistake("update an ndarray in place from a Variable", _ndarray_updated_in_place_from_variable, TypeError,
            (r"np\.add", r"\.data", r"a = a \+ x")),
    Mistake("store a Variable into an ndarray (a[1:] = x)", _variable_stored_into_an_ndarray, ValueError,
            (r"a\[i\] = x", r"gradient would be silently lost", r"V\.stack", r"a\[i\] = x\.item\(\)")),
    Mistake("x[0] = 5.0 on a Variable (PyTorch's and NumPy's item assignment)",
            lambda: V.Variable(np.arange(3.0)).__setitem__(0, 5.0), TypeError,
            (r"x\[i\] = v: a Variable is not written in place", r"V\.where\(mask, v, x\)",
             r"with V\.no_grad\(\): x\[i\] = v")),
    Mistake("W[mask] = 0 under no_grad between the forward pass and backward (PyTorch's pruning habit)",
            _weights_pruned_between_forward_and_backward, ValueError,
            (r"the data of Variable 'W', an input of \w+, was assigned after",
             r"change it after backward\(\)")),
    Mistake("gx.backward() with gx still in x.grad (DeZero's step 33 without x.cleargrad())",
            _second_derivative_added_to_the_first, ValueError,
            (r"the output is the \.grad of Variable 'x'", r"gx \+ d\(gx\)/dx",
             r"x\.cleargrad\(\) before gx\.backward\(\)", r"V\.grad\(gx, x\)")),
    Mistake("keep_freed_memory given a size as text", lambda: V.keep_freed_memory("1GB"), TypeError,
            (r"keep_freed_memory", r"int number of bytes", r"'1GB'")),
    Mistake("keep_freed_memory given a float", lambda: V.keep_freed_memory(2.0 ** 30), TypeError,
            (r"keep_freed_memory", r"int number of bytes")),
    Mistake("torch.cuda.empty_cache() written as V.cuda.empty_cache()", lambda: V.cuda.empty_cache(),
            AttributeError, (r"'cuda'", r"V\.empty_cache\(\)", r"free_all_blocks")),
    Mistake("cache_limit given a size as text", lambda: V.cache_limit("256MB"), TypeError,
            (r"cache_limit", r"int number of bytes", r"'256MB'", r"256 << 20")),
    Mistake("cache_limit given a float (256e6)", lambda: V.cache_limit(256e6), TypeError,
            (r"cache_limit", r"int number of bytes", r"write int\(256000000\.0\)")),
    Mistake("cache_limit given -1 to mean no limit", lambda: V.cache_limit(-1), ValueError,
            (r"cache_limit", r">= 0 bytes", r"0 turns the cache off", r"1 << 30")),
    Mistake("nth_derivative with n and v swapped",
            lambda: V.nth_derivative(V.tanh, np.ones(3), 2, np.ones(3)), TypeError,
            (r"nth_derivative", r"n must be an int", r"\(f, x, v, n\), as V\.taylor's")),
    Mistake("nth_derivative without a direction (called as V.grad is)",
            lambda: V.nth_derivative(V.tanh, np.ones(3), 2), TypeError,
            (r"nth_derivative: no order n", r"\(f, x, v, n\), as V\.taylor's", r"np\.ones_like\(x\)")),
    Mistake("nth_derivative with a float order",
            lambda: V.nth_derivative(V.tanh, np.ones(3), np.ones(3), 2.0), TypeError,
            (r"nth_derivative", r"n must be an int", r"got float")),
    Mistake("a Taylor rule gives None for a coefficient the pass reads", _none_coefficient, TypeError,
            (r"Lazy\.taylor gave None for coefficient 1", r"V\.series\.wanted\(1\) is True",
             r"return an array of the output's shape")),
]


# ----- slips with layers, recurrent state and weight files (issue 16) ------------------------------
def _assign_array_to_parameter():
    layer = L.Linear(3, in_size=2)
    layer.W = np.ones((2, 3))


def _assign_computed_variable_to_parameter():
    layer = L.Linear(3, in_size=2)
    layer.W = layer.W - 0.1 * layer.W


def _assign_none_to_parameter():
    L.Linear(3, in_size=2).b = None


def _new_batch_size_without_reset(cls, first, then):
    def run():
        layer = cls(32)
        layer(np.ones((first, 3)))
        layer(np.ones((then, 3)))
    return run


def _save_into_missing_directory():
    with tempfile.TemporaryDirectory() as directory:
        L.Linear(2, in_size=2).save_weights(f"{directory}/checkpoints/w.npz")


def _load_a_file_saved_without_the_suffix():
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "m")
        layer = L.Linear(2, in_size=2)
        layer.save_weights(path)                  # writes m.npz
        os.rename(path + ".npz", path)            # a file kept under the bare name
        layer.load_weights(path)


CATALOGUE += [
    Mistake("assign an array to a layer's parameter", _assign_array_to_parameter, TypeError,
            (r"cannot assign ndarray as parameter 'W' of Linear", r"layer\.W\.data\[\.\.\.\] = ",
             r"assign a Parameter")),
    Mistake("assign a computed Variable to a layer's parameter", _assign_computed_variable_to_parameter,
            TypeError, (r"cannot assign Variable as parameter 'W' of Linear", r"layer\.W\.data -=",
                        r"V\.no_grad\(\)")),
    Mistake("assign None to a layer's parameter", _assign_none_to_parameter, TypeError,
            (r"parameter 'b' of Linear", r"del layer\.b")),
    Mistake("LSTM fed a new batch size without reset_state", _new_batch_size_without_reset(L.LSTM, 2, 4),
            ValueError, (r"LSTM", r"batch size 2, this input has 4", r"reset_state\(\)")),
    Mistake("RNN fed a batch of 1 after a batch of 4", _new_batch_size_without_reset(L.RNN, 4, 1),
            ValueError, (r"RNN", r"batch size 4, this input has 1", r"reset_state\(\)")),
    Mistake("L.LSTM(3, 4) in PyTorch's (input_size, hidden_size) order",
            lambda: L.LSTM(3, 4)(np.ones((2, 3))), ValueError,
            (r"LSTM: x of shape \(2, 3\) has 3 features", r"LSTM\(3, 4\) means hidden_size=3, in_size=4",
             r"L\.LSTM\(4, in_size=3\) or just L\.LSTM\(4\)")),
    Mistake("L.GRU(hidden, batch_first=True) for a whole sequence", lambda: L.GRU(8, batch_first=True),
            TypeError, (r"GRU\(\) got an unexpected keyword argument 'batch_first'",
                        r"for t in range\(x\.shape\[1\]\): h = layer\(x\[:, t\]\)")),
    Mistake("gru(x, h) with the state passed along (PyTorch's GRUCell)",
            lambda: L.GRU(4)(np.ones((2, 3)), np.zeros((2, 4))), TypeError,
            (r"GRU takes one input a call", r"got 2 arguments", r"set the state first \(layer\.h = h0")),
    Mistake("LBFGS stepped as PyTorch's, opt.step(closure)", lambda: _lbfgs().step(lambda: None),
            AttributeError, (r"opt\.update\(closure\) runs the iterations",)),
    Mistake("LBFGS updated without a closure, as the other optimizers are", lambda: _lbfgs().update(),
            TypeError, (r"LBFGS\.update: give a closure", r"returns the loss: opt\.update\(closure\)")),
    Mistake("an LBFGS closure without `return loss`",
            lambda: _lbfgs().update(lambda: V.sum(_LBFGS_X ** 2).backward()), TypeError,
            (r"the closure returned None; end it with `return loss`",)),
    Mistake("an LBFGS closure without loss.backward()", lambda: _lbfgs().update(lambda: V.sum(_LBFGS_X ** 2)),
            ValueError, (r"the closure left no gradient: call loss\.backward\(\) in it",)),
    Mistake("weight decay hooked onto LBFGS", lambda: _lbfgs().add_hook(O.WeightDecay(1e-4)), TypeError,
            (r"LBFGS\.add_hook", r"put a penalty in the closure's loss")),
    Mistake("O.SGD(lr, nesterov=True) (PyTorch's SGD)", lambda: O.SGD(0.1, nesterov=True), TypeError,
            (r"SGD\(\) got an unexpected keyword argument 'nesterov'",
             r"O\.MomentumSGD\(lr, momentum=0\.9, nesterov=True\)")),
    Mistake("V.Variable(data, dtype=torch.float32): not a NumPy dtype",
            lambda: V.Variable([1.0, 2.0], dtype="torch.float32"), TypeError,
            (r"Variable: dtype must be a NumPy dtype such as np\.float32",)),
    Mistake("GRU fed a new batch size without reset_state", _new_batch_size_without_reset(L.GRU, 3, 2),
            ValueError, (r"GRU", r"batch size 3, this input has 2", r"reset_state\(\)")),
    Mistake("a layer class as a Sequential step", lambda: L.Sequential(L.Linear(3), L.ReLU), TypeError,
            (r"Sequential", r"class ReLU", r"L\.ReLU\(\)")),
    Mistake("Conv2d in PyTorch's (in, out, kernel) order", lambda: L.Conv2d(3, 8, 3)(np.ones((1, 3, 28, 28))),
            ValueError, (r"Conv2d\(3, 8, 3\) means out_channels=3, kernel_size=8, stride=3",
                         r"nn\.Conv2d\(3, 8, 3\) write L\.Conv2d\(8, 3, in_channels=3\)")),
    Mistake("Conv1d in PyTorch's (in, out, kernel) order", lambda: L.Conv1d(3, 8, 3)(np.ones((4, 3, 50))),
            ValueError, (r"Conv1d\(3, 8, 3\) means out_channels=3, kernel_size=8, stride=3",
                         r"nn\.Conv1d\(3, 8, 3\) write L\.Conv1d\(8, 3, in_channels=3\)")),
    Mistake("Conv2d(3, 8, 3, pad='same') in PyTorch's (in, out, kernel) order",
            lambda: L.Conv2d(3, 8, 3, pad="same"), ValueError,
            (r"pad='same' keeps the input's size only at stride 1", r"kernel_size=8, stride=3",
             r"nn\.Conv2d\(3, 8, 3, padding='same'\) write L\.Conv2d\(8, 3, pad='same', in_channels=3\)")),
    Mistake("Conv2d(..., padding_mode='reflect'), PyTorch's keyword",
            lambda: L.Conv2d(8, 3, pad=1, padding_mode="reflect"), TypeError,
            (r"padding_mode is PyTorch's keyword", r"V\.pad\(x, widths, mode='reflect'\)", r"pad=0")),
    Mistake("Deconv2d(..., output_padding=1), PyTorch's keyword",
            lambda: L.Deconv2d(8, 3, 2, output_padding=1), TypeError,
            (r"output_padding is PyTorch's keyword", r"layer\(x, outsize=\(h, w\)\)")),
    Mistake("Deconv1d(..., output_padding=1), PyTorch's keyword",
            lambda: L.Deconv1d(8, 3, 2, output_padding=1), TypeError,
            (r"output_padding is PyTorch's keyword", r"layer\(x, outsize=length\)")),
    Mistake("Deconv3d(..., output_padding=1), PyTorch's keyword",
            lambda: L.Deconv3d(8, 3, 2, output_padding=1), TypeError,
            (r"output_padding is PyTorch's keyword", r"layer\(x, outsize=\(d, h, w\)\)")),
    Mistake("ctc_loss given batch-first (N, T, C) log-probabilities",
            lambda: F.ctc_loss(np.zeros((2, 5, 3)), np.array([[1, 2], [2, 1]]), [5, 5], [2, 2]), ValueError,
            (r"ctc_loss: input_lengths must hold one length per sequence \(5\)",
             r"log_probs is \(T, N, C\), steps first as PyTorch's: from \(N, T, C\) write "
             r"x\.transpose\(1, 0, 2\)")),
    *[Mistake(f"F.{name} (PyTorch's)", lambda name=name: getattr(F, name), AttributeError, (fix,))
      for name, fix in [
          ("multilabel_soft_margin_loss", r"F\.sigmoid_cross_entropy\(x, y\), y of 0s and 1s"),
          ("multilabel_margin_loss", r"m the \(N, C\) 0/1 mask of each row's target classes"),
          ("channel_shuffle", r"x\.reshape\(N, g, C // g, H, W\)\.transpose\(0, 2, 1, 3, 4\)"),
          ("lp_pool2d", r"\(F\.average_pooling\(x \*\* p, k, k\) \* \(k \* k\)\) \*\* \(1 / p\)"),
          ("relu_", r"F\.relu\(x\): gengrad's ops never change their input in place"),
          ("rrelu", r"F\.leaky_relu\(x, \(lower \+ upper\) / 2\)"),
          ("feature_dropout", r"F\.dropout1d, F\.dropout2d or F\.dropout3d\(x, p\)"),
          ("max_pool2d_with_indices", r"y, indices = F\.pooling\(x, k, s, return_indices=True\)"),
          ("max_unpool1d", r"F\.max_unpool2d\(y\[:, :, None\], indices\[:, :, None\], \(1, k\), \(1, s\)"),
      ]],
    Mistake("nn.ConvTranspose1d(in, out, k)'s order typed into L.Deconv1d",
            lambda: L.Deconv1d(3, 8, 3)(np.ones((1, 3, 10))), ValueError,
            (r"Deconv1d\(3, 8, 3\) means out_channels=3, kernel_size=8, stride=3",
             r"for PyTorch's nn\.ConvTranspose1d\(3, 8, 3\) write L\.Deconv1d\(8, 3, in_channels=3\)")),
    *[Mistake(f"{where}.{name} (PyTorch's)", lambda module=module, name=name: getattr(module, name),
              AttributeError, (fix,))
      for where, module, name, fix in [
          ("V", V, "detect_anomaly", r"np\.errstate\(all='raise'\)"),
          ("V", V, "vmap", r"V\.jvp\(f, x, V_batch, batched=True\)"),
          ("V", V, "func", r"V\.jacobian\(f, x\)"),
          ("V", V, "parameters_to_vector",
           r"V\.concat\(\[V\.reshape\(p, -1\) for p in model\.params\(\)\]\)"),
          ("L", L, "spectral_norm", r"W / V\.linalg\.norm\(W, 2\)"),
          ("L", L, "weight_norm", r"g \* v / V\.linalg\.norm\(v, axis=0, keepdims=True\)"),
      ]],
    Mistake("nn.MaxUnpool2d spelled in gengrad", lambda: L.MaxUnpool2d, AttributeError,
            (r"F\.max_unpool2d\(y, indices, k\)", r"F\.pooling\(x, k, k, return_indices=True\)")),
    Mistake("max_unpool2d given a smaller output than the pooled input (no outsize after a pooling that "
            "dropped a row)", lambda: F.max_unpool2d(*F.pooling(np.arange(25.0).reshape(1, 1, 5, 5), 2, 2,
                                                               return_indices=True), 2), ValueError,
            (r"max_unpool2d: index 16 lies outside the output's 4x4 entries", r"give outsize")),
    Mistake("nn.ConvTranspose3d spelled in gengrad", lambda: L.ConvTranspose3d, AttributeError,
            (r"torch\.nn's name", r"L\.Deconv3d\(out_channels, kernel_size, stride, pad\)")),
    Mistake("F.conv_transpose1d spelled in gengrad", lambda: F.conv_transpose1d, AttributeError,
            (r"F\.deconv1d\(x, W, b, stride, pad\), W of shape \(in_channels, out_channels, k\)",)),
    Mistake("a grouped Conv2d on channels the groups do not split",
            lambda: L.Conv2d(8, 3, groups=2)(np.ones((1, 3, 8, 8))), ValueError,
            (r"Conv2d: groups=2 must divide the 3 input channels",)),
    Mistake("F.conv2d with the channels of a grouped W but no groups",
            lambda: F.conv2d(np.ones((1, 4, 5, 5)), np.ones((8, 1, 3, 3))), ValueError,
            (r"C = W\.shape\[1\] \(or groups=4, each filter seeing 1 of them\)",)),
    Mistake("Conv3d on a (batch, depth, height, width, channels) volume, channels last",
            lambda: L.Conv3d(8, 3)(np.ones((2, 32, 32, 32, 1))), ValueError,
            (r"Conv3d: input of shape \(2, 32, 32, 32, 1\) looks channels-last",
             r"x\.transpose\(0, 4, 1, 2, 3\)")),
    Mistake("Conv1d on a (batch, length, channels) series, Keras's layout",
            lambda: L.Conv1d(16, 5, pad=2)(np.ones((4, 50, 3))), ValueError,
            (r"Conv1d: input of shape \(4, 50, 3\) looks channels-last", r"x\.transpose\(0, 2, 1\)")),
    Mistake("F.max_pool1d(x, 2), PyTorch's name", lambda: F.max_pool1d(np.ones((1, 2, 8)), 2), AttributeError,
            (r"no attribute 'max_pool1d'", r"F\.pooling\(x, k, s\) of x of shape \(N, C, L\)",
             r"PyTorch's defaults to the kernel size, gengrad's to 1")),
    Mistake("F.conv1d(x, W, padding=1), PyTorch's keyword",
            lambda: F.conv1d(np.ones((1, 2, 5)), np.ones((3, 2, 2)), padding=1), TypeError,
            (r"conv1d\(\) got an unexpected keyword argument 'padding'", r"pad")),
    Mistake("F.interpolate(mode='bilinear') of a (batch, channels, length) signal",
            lambda: F.interpolate(np.ones((2, 3, 10)), scale_factor=2, mode="bilinear"), ValueError,
            (r"interpolate: mode 'bilinear' takes 2 spatial axes",
             r"x of shape \(2, 3, 10\) has 1: linear for it")),
    Mistake("F.adaptive_avg_pool1d on images (N, C, H, W)",
            lambda: F.adaptive_avg_pool1d(np.ones((2, 3, 4, 4)), 1), ValueError,
            (r"adaptive_avg_pool1d: x must be \(N, C, L\) or \(C, L\), got shape \(2, 3, 4, 4\)",
             r"images: adaptive_avg_pool2d")),
    Mistake("F.dropout2d on sequences (N, C, L) (PyTorch reads a 3-D input so, with a warning)",
            lambda: F.dropout2d(np.ones((2, 3, 4)), 0.5), ValueError,
            (r"dropout2d: x of shape \(2, 3, 4\) is 3-D", r"F\.dropout1d\(x, p\) for sequences \(N, C, L\)",
             r"F\.dropout2d\(x\[None\], p\)\[0\] for one image \(C, H, W\)")),
    Mistake("model.layers[0] on an L.MLP (DeZero's MLP keeps a list named layers)",
            lambda: L.MLP((4, 2)).layers[0], TypeError,
            (r"MLP\.layers is a method here, not a list: model\.layers\(\) yields every sub-layer",
             r"model\.l0, model\.l1, \.\.\. in an L\.MLP")),
    Mistake("for layer in model.layers: on an L.Sequential (the call forgotten)",
            lambda: [layer for layer in L.Sequential(L.Linear(2), L.ReLU()).layers], TypeError,
            (r"Sequential\.layers is a method here", r"its steps are model\[i\], `for step in model`")),
    Mistake("nn.AdaptiveAvgPool2d((1, 1)) as a layer", lambda: L.AdaptiveAvgPool2d((1, 1)), AttributeError,
            (r"no attribute 'AdaptiveAvgPool2d'", r"lambda x: F\.adaptive_avg_pool2d\(x, output_size\)")),
    Mistake("nn.Upsample(scale_factor=2) as a layer", lambda: L.Upsample(scale_factor=2), AttributeError,
            (r"no attribute 'Upsample'", r"lambda x: F\.interpolate\(x, scale_factor=s, mode='nearest'\)")),
    Mistake("Deconv2d in PyTorch's (in, out, kernel) order",
            lambda: L.Deconv2d(3, 8, 3)(np.ones((1, 3, 4, 4))), ValueError,
            (r"Deconv2d\(3, 8, 3\) means out_channels=3", r"L\.Deconv2d\(8, 3, in_channels=3\)")),
    Mistake("attention's (output, weights) used as one output",
            lambda: L.Linear(3)(L.MultiheadAttention(4, 2)(np.ones((2, 3, 4)))), TypeError,
            (r"Linear: got a tuple holding Variables", r"L\.MultiheadAttention's \(output, weights\)",
             r"unpack it first, out, weights = layer\(x\)")),
    Mistake("nn.MultiheadAttention(E, heads, batch_first=True)",
            lambda: L.MultiheadAttention(8, 2, batch_first=True), TypeError,
            (r"MultiheadAttention\(\) got an unexpected keyword argument 'batch_first'",
             r"batch first always", r"drop batch_first")),
    Mistake("L.MultiHeadAttention, Keras's spelling", lambda: L.MultiHeadAttention(8, 2), AttributeError,
            (r"no attribute 'MultiHeadAttention'", r"L\.MultiheadAttention\(embed_dim, num_heads\)")),
    Mistake("a padding mask of 1s and 0s (1 at a token) as key_padding_mask",
            lambda: L.MultiheadAttention(4, 2)(np.ones((2, 3, 4)), key_padding_mask=np.array([[1, 1, 0],
                                                                                             [1, 0, 0]])),
            TypeError, (r"MultiheadAttention: key_padding_mask must be boolean \(True at a key to hide",
                        r"got dtype int64", r"write key_padding_mask=\(mask == 0\)")),
    Mistake("scaled_dot_product_attention with attn_mask and is_causal=True",
            lambda: F.scaled_dot_product_attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)),
                                                   np.ones((3, 3), bool), is_causal=True), ValueError,
            (r"scaled_dot_product_attention: give either attn_mask or is_causal=True, not both",
             r"pass their logical and as attn_mask")),
    Mistake("PyTorch's in_proj_weight of the attention layer",
            lambda: L.MultiheadAttention(4, 2).in_proj_weight, AttributeError,
            (r"no attribute 'in_proj_weight'", r"q_proj\.W, k_proj\.W and v_proj\.W",
             r"V\.concat\(\[q_proj\.W, k_proj\.W, v_proj\.W\], axis=1\)\.T")),
    Mistake("nn.TransformerEncoder(layer, num_layers)", lambda: L.TransformerEncoder(
            L.TransformerEncoderLayer(8, 2), 3), AttributeError,
            (r"no attribute 'TransformerEncoder'", r"a stack of L\.TransformerEncoderLayer",
             r"for layer in layers: x = layer\(x, src_key_padding_mask=mask\)")),
    Mistake("nn.TransformerDecoder(layer, n), PyTorch's stack", lambda: L.TransformerDecoder(
            L.TransformerDecoderLayer(8, 2), 3), AttributeError,
            (r"no attribute 'TransformerDecoder'", r"a stack of L\.TransformerDecoderLayer",
             r"y = layer\(y, memory, tgt_is_causal=True\)")),
    Mistake("nn.TransformerDecoderLayer(d, h, batch_first=True)",
            lambda: L.TransformerDecoderLayer(8, 2, batch_first=True), TypeError,
            (r"TransformerDecoderLayer\(\) got an unexpected keyword argument 'batch_first'",
             r"gengrad's TransformerDecoderLayer is batch first always")),
    Mistake("nn.TransformerEncoderLayer(d, h, batch_first=True)",
            lambda: L.TransformerEncoderLayer(8, 2, batch_first=True), TypeError,
            (r"TransformerEncoderLayer\(\) got an unexpected keyword argument 'batch_first'",
             r"gengrad's TransformerEncoderLayer is batch first always")),
    Mistake("num_heads that does not divide embed_dim", lambda: L.MultiheadAttention(10, 4), ValueError,
            (r"MultiheadAttention: num_heads=4 must divide embed_dim=10",)),
    Mistake("save_weights into a missing directory", _save_into_missing_directory, FileNotFoundError,
            (r"save_weights", r"checkpoints' does not exist", r"os\.makedirs")),
    Mistake("load a weights file kept without its .npz", _load_a_file_saved_without_the_suffix,
            FileNotFoundError, (r"load_weights", r"exists without the suffix", r"rename it to '.*m\.npz'")),
]


def _checkpointed_lambdas_made_in_a_loop():
    h = V.Variable(np.ones((2, 3)))
    for W in [V.Variable(np.eye(3) * k) for k in (1.0, 2.0)]:
        h = V.checkpoint(lambda a: V.tanh(a @ W), h)  # noqa: B023 (the slip: the loop's last W)
    h.sum().backward()


def _checkpointed_block_making_a_leaf():
    y = V.checkpoint(lambda a: a * V.Variable(np.array(2.0)), V.Variable(np.ones(3)))
    y.sum().backward()


def _checkpointed_recurrent_layer():
    rnn = L.RNN(2)
    x = V.Variable(np.ones((1, 2)))
    rnn(x)
    V.checkpoint(rnn, x).sum().backward()


def _checkpointed_block_without_return():
    def block(a):
        V.sin(a)
    V.checkpoint(block, V.Variable(np.ones(2)))


CATALOGUE += [
    Mistake("checkpointed lambdas made in a loop (each reads the loop's last weight)",
            _checkpointed_lambdas_made_in_a_loop, ValueError,
            (r"checkpoint\(<lambda>, \.\.\.\) read other Variables", r"a lambda made in a loop sees the "
             r"loop's last one", r"V\.checkpoint\(\s?lambda x, w=w: \.\.\., h\)")),
    Mistake("a checkpointed block that makes a new V.Variable each call", _checkpointed_block_making_a_leaf,
            ValueError, (r"a new V\.Variable made in the block, a new leaf each call",
                         r"plain array or a number")),
    Mistake("a recurrent layer (it keeps its state) checkpointed", _checkpointed_recurrent_layer, ValueError,
            (r"checkpoint\(RNN, \.\.\.\)", r"a recurrent layer's kept h: checkpoint a block that takes the "
             r"state as an argument")),
    Mistake("V.checkpoint(block(x)): the block's result instead of the block",
            lambda: V.checkpoint(V.sin(V.Variable(np.ones(2)))), TypeError,
            (r"fn is a Variable, a block's result", r"V\.checkpoint\(block, x\)")),
    Mistake("a checkpointed block without `return`", _checkpointed_block_without_return, TypeError,
            (r"checkpoint: block returned None: did it forget `return`",)),
    Mistake("checkpoint(fn, x, determinism_check=...), a PyTorch keyword",
            lambda: V.checkpoint(V.sin, V.Variable(np.ones(2)), determinism_check="none"), TypeError,
            (r"checkpoint\(\) got PyTorch's keyword argument determinism_check",
             r"always checks that the second run reads the same Variables")),
    Mistake("torch.utils.checkpoint spelled V.utils.checkpoint", lambda: V.utils, AttributeError,
            (r"has no attribute 'utils'", r"torch\.utils\.checkpoint's functions are V\.checkpoint and "
             r"V\.checkpoint_sequential")),
    Mistake("checkpoint_sequential(model, x, 2), segments and input swapped",
            lambda: V.checkpoint_sequential([V.sin, V.cos], V.Variable(np.ones(2)), 2), TypeError,
            (r"segments must be an int, got Variable",
             r"checkpoint_sequential\(functions, segments, input\)")),
]


def _register_buffer_over_parameter():
    layer = L.Linear(2, in_size=3)
    layer.register_buffer("W", np.zeros((3, 2)))  # torch refuses this too (KeyError)


CATALOGUE += [
    Mistake("register_buffer over a parameter", _register_buffer_over_parameter, ValueError,
            (r"Linear\.register_buffer: 'W' is already a parameter", r"unregister",
             r"del layer\.W")),
]


# ----- devices (on a GPU module: the `gpu` fixture, the CPU stand-in for CuPy here) --------
def _gpu_variable_plus_cpu_variable():
    V.Variable(np.ones(3)).to_gpu() + V.Variable(np.ones(3)).to_cpu()


def _gpu_model_on_numpy_batch():
    model = L.Linear(2, in_size=3).to_gpu()
    model(np.ones((4, 3)))


def _numpy_of_gpu_data():
    np.asarray(V.Variable(np.ones(2)).to_gpu())


def _numpy_grad_output_for_gpu_output():     # PyTorch's y.backward(gradient=...) on another device
    x = V.Variable(np.ones(3)).to_gpu()
    (x * 2).backward(gradient=np.ones(3))


CATALOGUE += [
    Mistake("add a GPU Variable and a CPU Variable", _gpu_variable_plus_cpu_variable,
            TypeError, (r"Add: expected all inputs on one device", r"input 0 on the GPU, input 1 on the CPU",
                        r"to_gpu\(\)"), gpu=True),
    Mistake("a NumPy batch into a model on the GPU", _gpu_model_on_numpy_batch, TypeError,
            (r"Linear", r"expected all inputs on one device|on the other device|NumPy array",
             r"to_gpu|xp\.asarray"), gpu=True),
    Mistake("np.asarray of GPU data", _numpy_of_gpu_data, TypeError,
            (r"the data is on the GPU", r"x\.to_cpu\(\)"), gpu=True),
    Mistake("a NumPy grad_output for an output on the GPU", _numpy_grad_output_for_gpu_output, TypeError,
            (r"backward: expected grad_output on the device of its output", r"output on the GPU and "
             r"grad_output on the CPU", r"V\.Variable\(grad_output\)\.to_gpu\(\)"), gpu=True),
]


# ----- forward mode and Taylor mode -----------------------------------------------------
class TaylorForgetsValue(Cube):  # returns y_1 .. y_K, forgetting y_0
    def taylor(self, x):
        return V.series.mul(V.series.mul(x, x), x)[1:]


class TaylorWithoutReturn(Cube):
    def taylor(self, x):
        V.series.mul(V.series.mul(x, x), x)  # noqa: B018  the slip: no `return`


class TaylorOnVariables(Cube):  # written like backward, with gengrad ops
    def taylor(self, x):
        return [V.Variable(c) ** 3 for c in x]


def _jvp_inside_jvp():
    V.jvp(lambda x: V.jvp(V.sin, x, np.ones(2))[1], np.ones(2), np.ones(2))


class CubeWithTaylor(Cube):  # a custom rule on arrays that does not say it records
    def taylor(self, x):
        return V.series.mul(V.series.square(x), x)


def _grad_of_jvp_result():  # through an op whose Taylor rule works on arrays only
    x = V.Variable(np.array([1.0, 2.0]))
    _, dy = V.jvp(lambda x: V.sum(CubeWithTaylor.apply(x)), x, np.ones(2))
    V.grad(dy, x)


def _taylor_result_in_a_loss():
    x = V.Variable(np.ones(3), name="x")
    d2 = V.taylor(lambda x: CubeWithTaylor.apply(x), x, np.ones(3), 2)[2]
    V.grad(V.sum(d2) + V.sum(x), x)


def _laplacian_of_no_return():
    def u(x):
        V.sum(V.tanh(x), axis=-1)  # noqa: B018  the slip: no `return`
    V.laplacian(u, np.ones((2, 3)))


def _laplacian_of_a_field():
    V.laplacian(V.tanh, np.ones((2, 3)))


def _laplacian_through_batch_norm_in_training():
    model = L.Sequential(L.Linear(8), L.BatchNorm(), V.tanh, L.Linear(1))
    x = np.random.default_rng(0).uniform(-1, 1, (16, 3))
    model(x)
    V.laplacian(model, x)   # the slip: the batch's statistics mix the points


def _jvp_direction_of_another_shape():
    V.jvp(V.sin, np.ones((2, 3)), np.ones(3))


def _dezero_dropout_ratio():  # the book's keyword
    F.dropout(np.ones(3), dropout_ratio=0.5)


def _dezero_adadelta_rho():  # the book's AdaDelta(rho, eps): a bare number would be lr here
    O.AdaDelta(0.95)


def _dezero_config():  # the book's global switch
    V.Config.enable_backprop = False



def _np_full_of_a_trained_value():
    bias = V.Variable(np.array(0.1))
    return V.sum(np.full(4, bias) * np.arange(4.0))


def _np_array_of_a_named_list():
    x = V.Variable(np.array([0.5, 2.0]))
    parts = []
    for i in range(2):
        parts.append(x[i] ** (i + 1))
    return V.sum(np.array(parts) * 3)     # (the array holds the values: no graph back to x)


def _record_backward_without_call():  # `with V.no_grad:` habit, one pair of brackets short
    y = V.Variable(2.0) * 3
    with V.record_backward as steps:  # noqa: F841
        y.backward()


def _jvp_of_stacked_directions():  # torch.func.vmap(jvp) habit: a stack of directions as one v
    V.jvp(V.sin, np.ones(3), np.eye(3))


def _jvp_tuple_point_bare_direction():  # torch.func.jvp(f, (x,), (v,)) wants tuples for both
    V.jvp(V.sin, (np.ones(2),), np.ones(2))


def _taylor_rule(cls):
    return lambda: V.taylor(cls.apply, np.ones(2), np.ones(2), 3)


CATALOGUE += [
    Mistake("jvp inside the f of another jvp", _jvp_inside_jvp, ValueError,
            (r"inside the function given to V\.jvp", r"constants", r"V\.taylor for a higher order")),
    Mistake("V.grad of a derivative from V.jvp through an op without a recording rule", _grad_of_jvp_result,
            ValueError, (r"computed by V\.jvp or V\.taylor", r"the op CubeWithTaylor on its path",
                         r"set taylor_records = True on CubeWithTaylor", r"no graph", r"create_graph=True")),
    Mistake("a V.taylor result of a custom rule mixed into a loss", _taylor_result_in_a_loss, ValueError,
            (r"computed by V\.jvp or V\.taylor", r"set taylor_records = True on CubeWithTaylor",
             r"depends on 'x'", r"create_graph=True")),
    Mistake("a PINN's u without return, given to V.laplacian", _laplacian_of_no_return, TypeError,
            (r"laplacian: f must return a Variable", r"forget `return`")),
    Mistake("V.laplacian of a vector field (the divergence was meant)", _laplacian_of_a_field, ValueError,
            (r"laplacian: f must map each row", r"to a value", r"returned shape \(2, 3\)")),
    Mistake("V.laplacian of a model with BatchNorm in training mode",
            _laplacian_through_batch_norm_in_training, ValueError,
            (r"batch_norm: in training mode", r"rows depend on each other", r"V\.laplacian",
             r"with V\.test_mode\(\)", r"LayerNorm")),
    Mistake("jvp direction of another shape", _jvp_direction_of_another_shape, ValueError,
            (r"jvp: direction 0 has shape \(3,\)", r"input 0 has shape \(2, 3\)")),
    Mistake("the book's F.dropout(x, dropout_ratio=...)", _dezero_dropout_ratio, TypeError,
            (r"dropout: gengrad calls the drop probability p", r"F\.dropout\(x, p=0\.5\)")),
    Mistake("the book's AdaDelta(0.95), its rho", _dezero_adadelta_rho, TypeError,
            (r"AdaDelta: name its settings", r"AdaDelta\(lr=1\.0, rho=0\.9", r"means rho")),
    Mistake("the book's Config.enable_backprop = False", _dezero_config, AttributeError,
            (r"no attribute 'Config'", r"with V\.no_grad\(\):", r"V\.test_mode\(\)")),
    Mistake("V.record_backward used without its call", _record_backward_without_call, TypeError,
            (r"V\.record_backward must be called", r"with V\.record_backward\(\) as steps")),
    Mistake("jvp given a stack of directions without batched=True", _jvp_of_stacked_directions, ValueError,
            (r"jvp: direction 0 has shape \(3, 3\)", r"stack them along a first axis and pass batched=True")),
    Mistake("autograd's np.array([x, y]) to build a vector of Variables",
            lambda: V.sum(np.array([V.Variable(0.5), V.Variable(2.0) ** 2]) * 3), ValueError,
            (r"np\.array\(\[x, y\]\)", r"gradients would be silently lost", r"V\.stack\(\[x, y\]\)")),
    Mistake("np.array(parts) of a list of Variables built up in a loop", _np_array_of_a_named_list,
            ValueError, (r"np\.array\(parts\): parts is a list holding Variables",
                         r"gradients would be silently lost", r"V\.stack\(parts\)")),
    Mistake("np.full(n, w): a vector filled with a trained value", _np_full_of_a_trained_value, ValueError,
            (r"np\.full\(\.\.\., fill_value\): the fill value is a Variable", r"silently lost",
             r"V\.broadcast_to\(w, shape\)")),
    Mistake("torch.distributions.Normal(mu, sigma).log_prob(x), as V.distributions",
            lambda: V.distributions.Normal, AttributeError,
            (r"no attribute 'distributions'", r"torch\.distributions",
             r"V\.stats\.norm\.logpdf\(x, mu, sigma\)")),
    Mistake("opt.setup(model.params()), PyTorch's model.parameters() habit",
            lambda: O.Adam().setup(L.Linear(2, in_size=3).params()), TypeError,
            (r"Adam\.setup: got an iterator", r"pass the model itself, setup\(model\)", r"lazy layer")),
    Mistake("a Bessel function of fractional order by its whole-order name, V.jn(2.5, x) (SciPy's jn is jv)",
            lambda: V.jn(2.5, V.Variable(np.ones(2))), TypeError,
            (r"jn\(n, x\): n must be a whole number \(an int\), got float 2\.5",
             r"V\.jv\(v, x\) takes a real order v")),
    Mistake("a batch of directions that requires grad (a trained direction, batched)",
            lambda: V.jvp(V.sin, np.ones(3), V.Variable(np.eye(3)), batched=True), ValueError,
            (r"jvp: direction 0 is a Variable that requires grad", r"gradient would be lost",
             r"batched=False", r"v\.detach\(\)")),
    Mistake("jvp with a tuple point and a bare direction", _jvp_tuple_point_bare_direction, TypeError,
            (r"jvp", r"v must be a tuple")),
    Mistake("jvp at an integer point", lambda: V.jvp(V.sin, np.arange(3), np.ones(3)), TypeError,
            (r"jvp: input 0 has dtype int", r"np\.array\(2\.0\)")),
    Mistake("taylor rule forgets y_0", _taylor_rule(TaylorForgetsValue), TypeError,
            (r"TaylorForgetsValue\.taylor must return a list of 4 arrays", r"\[y_0, \.\.\., y_3\]",
             r"a list of 3")),
    Mistake("taylor rule without return", _taylor_rule(TaylorWithoutReturn), TypeError,
            (r"TaylorWithoutReturn\.taylor returned None", r"forget `return`")),
    Mistake("taylor rule on Variables", _taylor_rule(TaylorOnVariables), TypeError,
            (r"TaylorOnVariables\.taylor returned Variables", r"NumPy", r"V\.series")),
]


# ----- what a backward reads (save_for_backward) ------------------------------------------
class KeepsOutputReadsInput(V.Forwarder):  # declares its output, then reads its input
    save_for_backward = ("y",)

    def forward(self, x):
        return x ** 3

    def backward(self, gy):
        x, = self.inputs
        return gy * 3 * x ** 2


def _backward_reads_what_it_did_not_keep():
    x = V.Variable(np.array([1.0, 2.0]))
    V.sum(KeepsOutputReadsInput.apply(x)).backward()


def _misnamed_declaration():
    class Misnamed(V.Forwarder):
        save_for_backward = ("self", "result")  # PyTorch's derivatives.yaml names

        def forward(self, x):
            return x


CATALOGUE += [
    Mistake("backward reads an input its declaration does not keep",
            _backward_reads_what_it_did_not_keep, V.saving.NotKept,
            (r"KeepsOutputReadsInput\.backward reads the data of its input 0",
             r"save_for_backward is \('y',\)", r"add 'x0' there")),
    Mistake("save_for_backward with PyTorch's names", _misnamed_declaration, TypeError,
            (r"Misnamed\.save_for_backward: 'self' is not a name", r"'x0'", r"'y0'")),
]


# ----- a custom op's author (beside torch.autograd.Function's habits) -----------------------
class LogInPlace(V.Forwarder):
    def forward(self, x):
        return np.log(x, out=x)  # the slip: writes into the caller's array

    def backward(self, gy):
        x, = self.inputs
        return gy / x


class ScaleBy(V.Forwarder):
    def __init__(self, c=1.0):
        self.c = c

    def forward(self, x):
        return x * self.c

    def backward(self, gy):
        return gy * self.c


class ScaleByRequired(V.Forwarder):
    def __init__(self, k):
        self.k = k

    def forward(self, x):
        return x * self.k

    def backward(self, gy):
        return gy * self.k


class SinKeepingItsInput(V.Forwarder):  # the slip: forward keeps the array, backward uses it
    def forward(self, x):
        self.x = x
        return np.sin(x)

    def backward(self, gy):
        return gy * np.cos(self.x)  # a constant to the graph: right once, wrong after


def _second_derivative_of_a_backward_on_kept_arrays():
    x = V.Variable(np.array(0.5))
    g = V.grad(SinKeepingItsInput.apply(x), x, create_graph=True)
    V.grad(g, x)


class ExpTimesXKeepingExp(V.Forwarder):  # x e^x: the slip is half of the derivative
    def forward(self, x):
        self.e = np.exp(x)
        return x * self.e

    def backward(self, gy):
        x, = self.inputs
        return gy * self.e * (1 + x)  # silently wrong once differentiated again (before)


def _second_derivative_of_a_backward_mixing_kept_arrays():
    x = V.Variable(np.array(0.5))
    g = V.grad(ExpTimesXKeepingExp.apply(x), x, create_graph=True)
    return V.grad(g, x)


class ProductOneGradient(V.Forwarder):
    def forward(self, a, b):
        return a * b

    def backward(self, gy):
        return gy * self.inputs[1]  # the slip: one gradient for two inputs


class SumGivingGy(V.Forwarder):
    def forward(self, x):
        return x.sum()

    def backward(self, gy):
        return gy  # the slip: the sum's gradient has the output's shape (), not the input's


class ShiftGivingGy(V.Forwarder):
    def forward(self, x, b):
        return x + b  # b of shape (1,) broadcast over x

    def backward(self, gy):
        return gy, gy  # the slip: b's gradient is not summed back to its shape


class AdjointOnArrays(V.Forwarder):  # an adjoint solver's habit: arrays in backward
    def forward(self, x):
        return np.sin(x)

    def backward(self, gy):
        return gy.data * np.cos(self.inputs[0].data)


def _arrays_in_a_recorded_backward():
    x = V.Variable(np.ones(2))
    V.grad(V.sum(AdjointOnArrays.apply(x)), x, create_graph=True)


class DoubleInPlace(V.Forwarder):  # writes into its incoming gradient
    def forward(self, x):
        return 2 * x

    def backward(self, gy):
        g = gy.data
        g *= 2
        return V.Variable(g)


def _backward_writes_into_gy():
    x = V.Variable(np.array([1.0, 2.0]))
    V.grad(DoubleInPlace.apply(x), x, grad_outputs=np.ones(2))


def _second_derivative_of_once_differentiable():
    class Adjoint(AdjointOnArrays):
        once_differentiable = True

    x = V.Variable(np.array([0.5, 1.0]))
    g = V.grad(V.sum(Adjoint.apply(x)), x, create_graph=True)   # fine: first order
    V.grad(V.sum(g), x)                                          # refused: second order


CATALOGUE += [
    Mistake("custom forward writes into its input", lambda: LogInPlace.apply(V.Variable(np.array([2.0]))),
            ValueError, (r"LogInPlace\.forward writes into one of its input arrays", r"x\.copy\(\)")),
    Mistake("op parameter passed to apply as an input", lambda: ScaleBy.apply(V.Variable(np.ones(2)), 3.0),
            TypeError, (r"ScaleBy\.forward got 2 inputs", r"keyword arguments",
                        r"ScaleBy\.apply\(x, c=3\.0\)")),
    Mistake("a required op parameter passed to apply by position",
            lambda: ScaleByRequired.apply(V.Variable(np.ones(2)), 3.0), TypeError,
            (r"ScaleByRequired\.apply", r"missing 1 required positional argument: 'k'",
             r"ScaleByRequired\.apply\(x, k=\.\.\.\)")),
    Mistake("second derivative of a backward that uses an array forward kept (self.x)",
            _second_derivative_of_a_backward_on_kept_arrays, TypeError,
            (r"SinKeepingItsInput\.backward computes np\.cos on self\.x, an array "
             r"SinKeepingItsInput\.forward computed from its inputs", r"x, = self\.inputs")),
    Mistake("a backward mixing an array forward kept with its inputs (gy * self.e * (1 + x))",
            _second_derivative_of_a_backward_mixing_kept_arrays, TypeError,
            (r"ExpTimesXKeepingExp\.backward computes Mul on self\.e", r"silently wrong",
             r"V\.exp\(x\) or y rather than a kept np\.exp\(x\)")),
    Mistake("backward returns one gradient for two inputs",
            lambda: V.sum(ProductOneGradient.apply(V.Variable(np.ones(2)), V.Variable(np.ones(2))))
            .backward(), ValueError, (r"returned 1 gradients for 2 inputs", r"return gx, None")),
    Mistake("F.kl_div(F.log_softmax(z), p): PyTorch's argument order and log-probabilities",
            lambda: F.kl_div(F.log_softmax(V.Variable(np.ones((2, 3)))), np.full((2, 3), 1 / 3)), ValueError,
            (r"kl_div: x was made by F\.log_softmax, log-probabilities", r"gives inf where x < 0",
             r"V\.rel_entr\(p, V\.exp\(log_q\)\)\.sum\(\) / len\(p\)")),
    Mistake("V.rel_entr(F.log_sigmoid(z), p): log-probabilities where SciPy takes probabilities",
            lambda: V.rel_entr(F.log_sigmoid(V.Variable(np.ones(3))), np.full(3, 0.5)), ValueError,
            (r"rel_entr: x was made by F\.log_sigmoid",)),
    Mistake("backward of a sum returns gy, of the output's shape",
            lambda: SumGivingGy.apply(V.Variable(np.ones(3))).backward(), ValueError,
            (r"SumGivingGy\.backward returned a gradient of shape \(\) for an input of shape \(3,\)",
             r"V\.broadcast_to\(gx, x\.shape\)")),
    Mistake("backward of a broadcast add returns gy for the broadcast input",
            lambda: V.sum(ShiftGivingGy.apply(V.Variable(np.ones(3)), V.Variable(np.ones(1)))).backward(),
            ValueError, (r"ShiftGivingGy\.backward returned a gradient of shape \(3,\) for an input of "
                         r"shape \(1,\) \(input 1\)", r"V\.sum_to\(gx, x\.shape\)")),
    Mistake("backward on arrays with create_graph=True", _arrays_in_a_recorded_backward, TypeError,
            (r"AdjointOnArrays\.backward", r"once_differentiable = True")),
    Mistake("custom backward writes into its incoming gradient", _backward_writes_into_gy, ValueError,
            (r"DoubleInPlace\.backward writes into an incoming gradient", r"grad_outputs",
             r"gx = gy \* 2")),
    Mistake("second derivative through a once-differentiable op", _second_derivative_of_once_differentiable,
            ValueError, (r"once_differentiable = True", r"gengrad ops")),
]


# ----- a reader of the DeZero book, and PyTorch habits (issue 24; docs/from_dezero.md) ------------
def _trained_model():
    model = L.MLP((3, 1))
    F.sum(model(np.ones((2, 2)))).backward()
    return model


def _one_example_through_batch_norm_in_training():
    model = L.Sequential(L.Linear(4), L.BatchNorm(), F.relu, L.Linear(2))
    model(np.random.default_rng(0).standard_normal((8, 3)))   # trained on batches of 8 ...
    return model(np.ones((1, 3)))     # ... then one example predicted outside V.test_mode()


def _rnn_state_kept_across_updates():
    rnn = L.RNN(4)
    opt = O.SGD(0.1).setup(rnn)
    for _ in range(2):                # no loss.unchain_backward() or rnn.reset_state()
        loss = F.sum(rnn(np.ones((1, 2))) ** 2)
        rnn.cleargrads()
        loss.backward()
        opt.update()


def _never_cleared():
    model = L.MLP((3, 1))
    opt = O.SGD(0.1).setup(model)
    for _ in range(2):                # PyTorch's zero_grad() (DeZero's cleargrads()) forgotten
        F.sum(model(np.ones((2, 2)))).backward()
        opt.update()


def _update_without_backward():
    model = L.MLP((3, 1))
    opt = O.SGD(0.1).setup(model)
    loss = F.sum(model(np.ones((2, 2))))
    model.cleargrads()
    opt.update()  # forgot loss.backward(): nothing would change
    return loss


def _backward_twice_from_one_loss():
    model = L.MLP((3, 1))
    model.cleargrads()
    loss = F.sum(model(np.ones((2, 2))))
    loss.backward()
    loss.backward()  # (a helper that already called it, or a pasted line)


def _update_twice_with_one_gradient():
    model = L.MLP((3, 1))
    opt = O.SGD(0.1).setup(model)
    model.cleargrads()
    F.sum(model(np.ones((2, 2)))).backward()
    opt.update()
    opt.update()  # a second step from the old point's gradient


def _shared_parameter_two_optimizers():
    shared = L.Linear(3)
    encoder, head = L.Model(), L.Model()
    encoder.shared, head.shared, head.out = shared, shared, L.Linear(1)
    opt_encoder, opt_head = O.SGD(0.1).setup(encoder), O.SGD(0.1).setup(head)
    head.cleargrads()
    F.sum(head.out(head.shared(np.ones((2, 2))))).backward()
    opt_encoder.update()
    opt_head.update()  # steps the shared Linear a second time with the same gradient


def _tied_output_layer_before_a_max_norm_lookup():
    embed = L.EmbedID(10, 4, max_norm=1.0)
    h = V.Variable(np.ones((2, 4)))
    logits = h @ embed.W.T                 # the tied output layer reads W (a view of it)
    y = embed(np.array([[1, 2], [3, 4]]))  # max_norm rescales rows of W in place
    F.sum(logits + F.sum(y)).backward()


def _vae_sample_drawn_by_numpy():
    encoder = L.Linear(4)
    h = encoder(np.ones((2, 3)))
    mu, log_var = h[:, :2], h[:, 2:]
    rng = np.random.default_rng(0)
    return rng.normal(mu, V.exp(0.5 * log_var))  # the reparameterization forgotten


def _weighted_losses_by_np_dot():
    a, b = V.Variable(np.array(2.0)), V.Variable(np.array(3.0))
    weights = np.array([0.3, 0.7])
    return np.dot([a ** 2, b ** 2], weights)


def _scipy_logsumexp_of_a_variable():
    special = pytest.importorskip("scipy.special")
    logits = L.Linear(3)(np.ones((2, 4)))
    return special.logsumexp(logits, axis=1)


def _matern_kv_of_a_trained_order():
    special = pytest.importorskip("scipy.special")
    r, nu = V.Variable(np.array([0.5, 2.0])), V.Variable(np.array(1.5))
    return special.kv(nu, V.sqrt(2 * nu) * r)


def _scipy_polygamma_of_a_variable():
    special = pytest.importorskip("scipy.special")
    a = V.Variable(np.array([0.5, 2.0]))
    return special.polygamma(1, a)


def _scipy_struve_of_a_variable():
    special = pytest.importorskip("scipy.special")
    x = V.Variable(np.array([0.5, 1.5]))
    return special.struve(1.0, x)


def _scipy_lambertw_on_a_complex_branch():
    special = pytest.importorskip("scipy.special")
    return special.lambertw(V.Variable(np.array([0.5, 2.0])), 1)


def _scipy_kelvin_of_a_variable():
    special = pytest.importorskip("scipy.special")
    return special.kelvin(V.Variable(np.array([0.5, 2.0])))


def _scipy_lpmv_of_a_half_integer_degree():
    special = pytest.importorskip("scipy.special")
    return special.lpmv(1, 2.5, V.Variable(np.array([0.3, -0.5])))


def _smirnov_with_its_arguments_swapped():
    statistic = V.Variable(np.array([0.12, 0.3]))
    return V.smirnov(statistic, 25)


def _ksone_ppf_with_its_arguments_swapped():
    return V.stats.ksone.ppf(25, np.array([0.01, 0.5]))       # (smirnovi's order: n first)


def _tklmbda_with_its_arguments_swapped():
    x = V.Variable(np.array([-0.4, 0.8]), requires_grad=True)
    return V.tklmbda(0.14, x)


def _scipy_student_t_cdf_of_a_variable():
    stats = pytest.importorskip("scipy.stats")
    t = V.Variable(np.array([-0.5, 1.2]))
    return stats.t.cdf(t, 4)


def _scipy_student_t_quantile_of_a_variable():
    stats = pytest.importorskip("scipy.stats")
    q = V.Variable(np.array([0.9, 0.975]))
    return stats.t.ppf(q, 4)


def _array_method_given_a_variable():
    w = np.array([0.3, 0.7])
    x = V.Variable(np.array([2.0, 3.0]))
    return w.dot(x)


def _cleargrads_between_backward_and_update():
    model = _trained_model()
    opt = O.SGD(0.1).setup(model)
    model.cleargrads()  # PyTorch's zero_grad() written after backward
    opt.update()


def _update_before_the_model_ran():
    O.Adam(lr=0.01).setup(L.MLP((3, 1))).update()


def _update_data_by_a_variable_gradient():
    x = V.Variable(np.array([1.0, 2.0]))
    (x * x).sum().backward()
    x.data -= 0.1 * x.grad            # the book's `x.data -= lr * x.grad.data`, without .data


def _accumulate_after_unchain_backward():
    x = V.Variable(np.ones((1, 1)))
    rnn = L.RNN(2)
    loss = 0
    for step in range(4):              # the book's step 59: truncated BPTT every 2 steps
        loss += F.sum(rnn(x) ** 2)
        if step % 2 == 1:
            loss.backward()
            loss.name = "loss"
            loss.unchain_backward()


def _swapped_binary_cross_entropy():
    p = F.sigmoid(V.Variable(np.array([0.3, -0.2])))
    F.binary_cross_entropy(np.array([1, 0]), p)


CATALOGUE += [
    Mistake("x.data -= lr * x.grad (grad is a Variable)", _update_data_by_a_variable_gradient, TypeError,
            (r"np\.subtract", r"\.data")),
    Mistake("opt.update() without loss.backward()", _update_without_backward, ValueError,
            (r"SGD\.update: no parameter has a gradient", r"call loss\.backward\(\) before opt\.update\(\)")),
    Mistake("model.cleargrads() between loss.backward() and opt.update()",
            _cleargrads_between_backward_and_update, ValueError,
            (r"no parameter has a gradient", r"model\.cleargrads\(\) before loss\.backward\(\)")),
    Mistake("opt.update() before the model's first forward pass", _update_before_the_model_ran, ValueError,
            (r"Adam\.update: the model has no parameters yet", r"run the forward pass")),
    Mistake("softmax_cross_entropy of F.softmax's output (the softmax twice)",
            lambda: F.softmax_cross_entropy(F.softmax(V.Variable(np.ones((2, 3)))), np.array([0, 2])),
            ValueError, (r"softmax_cross_entropy: x was made by F\.softmax", r"applied twice",
                         r"drop the F\.softmax \(or L\.Softmax\)")),
    Mistake("sigmoid_cross_entropy of F.sigmoid's output (the sigmoid twice)",
            lambda: F.sigmoid_cross_entropy(F.sigmoid(V.Variable(np.zeros(2))), np.array([0, 1])),
            ValueError, (r"sigmoid_cross_entropy: x was made by F\.sigmoid",
                         r"F\.binary_cross_entropy\(p, t\)")),
    Mistake("optimizer.step() (PyTorch)", lambda: O.SGD(0.1).setup(_trained_model()).step(),
            AttributeError, (r"'SGD' object has no attribute 'step'", r"opt\.update\(\)")),
    Mistake("optimizer.zero_grad() (PyTorch)", lambda: O.SGD(0.1).setup(_trained_model()).zero_grad(),
            AttributeError, (r"'SGD' object has no attribute 'zero_grad'", r"model\.cleargrads\(\)")),
    Mistake("O.clip_grad_norm_(model.params(), 1.0) before opt.update() (torch.nn.utils' habit)",
            lambda: O.clip_grad_norm_(_trained_model().params(), 1.0), AttributeError,
            (r"module 'optimizers' has no attribute 'clip_grad_norm_'",
             r"opt\.add_hook\(O\.ClipGrad\(max_norm\)\)")),
    Mistake("model.parameters() (PyTorch)", lambda: _trained_model().parameters(), AttributeError,
            (r"'MLP' object has no attribute 'parameters'", r"model\.params\(\)")),
    Mistake("model.eval() (PyTorch)", lambda: _trained_model().eval(), AttributeError,
            (r"'MLP' object has no attribute 'eval'", r"with V\.test_mode\(\):")),
    Mistake("V.grad(f, x) (JAX's grad(f)(x))",
            lambda: V.grad(lambda x: (x ** 2).sum(), V.Variable(np.ones(2))), TypeError,
            (r"grad: outputs must be a Variable", r"got function",
             r"V\.grad\(f\(x\), x\) \(JAX's grad\(f\)\(x\)\)")),
    Mistake("V.taylorcheck(f, x, v, 3): a direction and the order given as inputs",
            lambda: V.taylorcheck(lambda x: V.sin(x), np.array([0.3]), np.ones(1), 3), TypeError,
            (r"taylorcheck: f cannot take the 3 input\(s\) given", r"V\.taylorcheck\(f, x, order=3\)",
             r"direction is drawn at random")),
    Mistake("V.taylorcheck(Op.apply, x, v, 3): the same through a Forwarder's apply",
            lambda: V.taylorcheck(Cube.apply, np.array([0.3]), np.ones(1), 3), TypeError,
            (r"taylorcheck: f cannot take the 3 input\(s\) given", r"V\.taylorcheck\(f, x, order=3\)")),
    Mistake("V.gradcheck(f, x, 3): the order given as an input", lambda: V.gradcheck(V.tanh, np.ones(2), 3),
            TypeError, (r"gradcheck: f cannot take the 2 input\(s\) given",
                        r"V\.gradcheck\(f, x, order=3\)")),
    Mistake("V.gradcheck(f, x, entrywise='fast'): PyTorch's fast_mode habit",
            lambda: V.gradcheck(V.tanh, np.ones(3), entrywise="fast"), TypeError,
            (r"gradcheck: entrywise must be True or False, got 'fast'",)),
    Mistake("V.gradcheck(f, x, fast_mode=True) (PyTorch's keyword)",
            lambda: V.gradcheck(V.tanh, np.ones(3), fast_mode=True), TypeError,
            (r"gradcheck: fast_mode= is torch\.autograd\.gradcheck's keyword",
             r"entrywise=True is the faster check")),
    Mistake("V.gradcheck(f, x, raise_exception=False) to get False (PyTorch's keyword)",
            lambda: V.gradcheck(V.tanh, np.ones(3), raise_exception=False), TypeError,
            (r"raise_exception= is torch\.autograd\.gradcheck's keyword", r"raises V\.GradcheckError")),
    Mistake("V.gradgradcheck(f, x) (PyTorch's name)", lambda: V.gradgradcheck(V.tanh, np.ones(3)),
            AttributeError, (r"no attribute 'gradgradcheck'", r"V\.gradcheck\(f, x, order=2\)")),
    Mistake("V.grad(f)(x) (JAX's grad of a function)", lambda: V.grad(V.tanh)(np.ones(2)), TypeError,
            (r"grad\(\) missing its argument inputs", r"V\.grad\(f\(x\), x\) \(JAX's grad\(f\)\(x\)\)")),
    Mistake("V.vjp(f, x) (JAX's and torch.func's vector-Jacobian product)", lambda: V.vjp(V.tanh, np.ones(2)),
            AttributeError, (r"no attribute 'vjp'", r"V\.grad\(y, x, grad_outputs=u\)")),
    Mistake("V.taylorcheck(f, x, eps=1e-6): gradcheck's step given to the Taylor checker",
            lambda: V.taylorcheck(V.tanh, np.ones(3), eps=1e-6), TypeError,
            (r"taylorcheck\(\) got an unexpected keyword argument 'eps'", r"no step to give",
             r"takes order, rtol, atol and seed")),
    Mistake("V.taylor_gradcheck(f, x, v=v): a direction given to the checker, as to V.taylor",
            lambda: V.taylor_gradcheck(V.tanh, np.ones(3), v=np.ones(3)), TypeError,
            (r"taylor_gradcheck\(\) got an unexpected keyword argument 'v'", r"drawn at random \(seed=")),
    Mistake("V.jacobian(f, x, y): a second point where create_graph goes",
            lambda: V.jacobian(lambda x, y: x * y, np.ones(2), np.ones(2)), TypeError,
            (r"jacobian: create_graph must be True or False, got ndarray", r"V\.jacobian\(f, \(x, y\)\)")),
    Mistake("V.jacobian(f, x, vectorize=True) (torch.autograd.functional's keyword)",
            lambda: V.jacobian(V.sin, np.ones(3), vectorize=True), TypeError,
            (r"jacobian\(\) got an unexpected keyword argument 'vectorize'", r"one forward pass",
             r"drop vectorize=True")),
    Mistake("V.hessian(f, [x, y]): the points of an f of two arguments as a list",
            lambda: V.hessian(lambda x, y: (x * y).sum(), [np.ones(2), np.ones(2)]), TypeError,
            (r"hessian: f takes 2 arguments and x is a list of 2", r"V\.hessian\(f, \(x, y\)\)")),
    Mistake("V.hvp(f, x, y, v): the second point of an f of two arguments given apart",
            lambda: V.hvp(lambda x, y: (x * y).sum(), np.ones(2), np.ones(2), np.ones(2)), TypeError,
            (r"hvp: create_graph must be True or False, got ndarray", r"V\.hvp\(f, \(x, y\), \(vx, vy\)\)")),
    Mistake("V.grad(y, x)[0]: torch.autograd.grad(y, x)[0], the gradient taken from a tuple",
            _grad_indexed_as_torchs_tuple, TypeError,
            (r"grad: V\.grad\(y, x\)\[0\] takes the result as torch\.autograd\.grad's tuple",
             r"of shape \(3,\), so this would take its first row", r"write g = V\.grad\(y, x\)")),
    Mistake("g, = V.grad(y, x): torch's one-entry tuple unpacked", _grad_unpacked_as_torchs_tuple, TypeError,
            (r"grad: g, = V\.grad\(y, x\) takes the result as torch\.autograd\.grad's tuple",)),
    Mistake("_, predicted = y.max(1): torch.max's (values, indices) pair, the accuracy idiom",
            _max_unpacked_as_torchs_pair, TypeError,
            (r"max: its result is unpacked into two names, as torch\.max's \(values, indices\) pair is",
             r"indices = y\.argmax\(axis=1\)", r"F\.accuracy\(y, t\)")),
    Mistake("_, predicted = V.max(y, 1) on a batch of two (it would unpack the two maxima)",
            _max_of_two_rows_unpacked, TypeError,
            (r"of shape \(2,\), which would unpack into its two rows", r"y\.argmax\(axis=1\)")),
    Mistake("F.pad(x, (1, 1, 2, 2)): torch.nn.functional.pad's flat (left, right, top, bottom)",
            lambda: F.pad(np.ones((2, 3)), (1, 1, 2, 2)), ValueError,
            (r"pad: pad_width \(1, 1, 2, 2\) does not fit an input of shape \(2, 3\)",
             r"pads the last axes first: here pad_width=\(\(2, 2\), \(1, 1\)\)")),
    Mistake("F.pad(x, (1, 1)) on images: PyTorch's pair for the last axis, NumPy's for every axis",
            lambda: F.pad(np.ones((2, 3, 4, 4)), (1, 1)), ValueError,
            (r"pad: pad_width \(1, 1\) for an input of 4 axes", r"the last axis alone as PyTorch's F\.pad",
             r"pad_width=\(\(0, 0\), \(0, 0\), \(0, 0\), \(1, 1\)\)")),
    Mistake("F.pad(x, (1, 1), mode='circular'): PyTorch's name of the mode",
            lambda: F.pad(np.ones(4), (1, 1), mode="circular"), ValueError,
            (r"pad: mode 'circular' is not supported", r"PyTorch's circular padding is mode='wrap'")),
    Mistake("F.pad(x, (1, 1), value=0.5): torch's keyword for the fill",
            lambda: F.pad(np.ones(3), (1, 1), value=0.5), ValueError,
            (r"\['value'\]", r"write constant_values=0\.5")),
    Mistake("x.std(unbiased=True) (PyTorch's keyword; its default divides by n - 1)",
            lambda: V.Variable(np.arange(4.0)).std(unbiased=True), TypeError,
            (r"'unbiased'", r"PyTorch's std and var divide by n - 1", r"write ddof=1 for unbiased=True")),
    Mistake("V.max(a, b): torch.max(a, b), the larger entry by entry", lambda: V.max(np.ones(2), np.zeros(2)),
            TypeError, (r"max: axis must be None, an int or a tuple of ints", r"V\.maximum\(a, b\)")),
    Mistake("values, indices = V.sort(x): torch.sort's pair", _sort_unpacked_as_torchs_pair, TypeError,
            (r"sort: its result is unpacked into two names", r"indices = x\.argsort\(axis\)")),
    Mistake("_, hv = V.hvp(f, x, v): torch.autograd.functional.hvp's (f(x), product) pair unpacked",
            _hvp_unpacked_as_torchs_pair, TypeError,
            (r"hvp: its result is unpacked into two names", r"V\.hvp returns the product alone",
             r"hv = V\.hvp\(f, x, v\)")),
    Mistake("V.jvp(f, [1.0, 2.0], [1.0, 0.0]): one point of an f of one argument as a list",
            lambda: V.jvp(V.sin, [1.0, 2.0], [1.0, 0.0]), TypeError,
            (r"jvp: x is a list of 2, which is one point per argument of f", r"f takes one argument",
             r"np\.array\(x\)")),
    Mistake("V.grad(y, x, None, gy2): a second incoming gradient where create_graph goes",
            lambda: (lambda x: V.grad(x * 2, x, None, np.ones(2)))(V.Variable(np.ones(2))), TypeError,
            (r"grad: create_graph must be True or False, got ndarray", r"create_graph=True")),
    Mistake("one example through BatchNorm outside V.test_mode() (PyTorch's model.eval() forgotten)",
            _one_example_through_batch_norm_in_training, ValueError,
            (r"batch_norm: x of shape \(1, 4\) has one value per channel", r"every output would be beta",
             r"with V\.test_mode\(\): model\(x\)")),
    Mistake("a Forwarder written as torch.autograd.Function (static methods with ctx)",
            _torch_style_static_methods, TypeError,
            (r"Square\.forward is a staticmethod, as in PyTorch's torch\.autograd\.Function",
             r"def forward\(self, x\)", r"x, = self\.inputs", r"Square\.apply\(x\)")),
    Mistake("self.save_for_backward(x) called in forward (PyTorch's ctx)", _save_for_backward_called,
            TypeError, (r"Square\.forward calls self\.save_for_backward\(\.\.\.\)",
                        r"a class attribute", r"x, = self\.inputs in backward")),
    Mistake("self.input in backward (DeZero's first steps)", _dezero_self_input, AttributeError,
            (r"'Square' object has no attribute 'input'; that is DeZero's first steps' name",
             r"x, = self\.inputs")),
    Mistake("with V.no_grad: (no parentheses)", _with_no_grad_without_parentheses, TypeError,
            (r"with V\.no_grad: needs parentheses", r"with V\.no_grad\(\):")),
    Mistake("with V.test_mode: (no parentheses)", _with_test_mode_without_parentheses, TypeError,
            (r"with V\.test_mode: needs parentheses", r"with V\.test_mode\(\):")),
    Mistake("np.mean([loss1, loss2]): a list of Variables averaged by NumPy",
            lambda: np.mean([V.Variable(np.array(2.0)) ** 2, V.Variable(np.array(3.0)) ** 2]), ValueError,
            (r"np\.mean: a Variable reached NumPy's own code", r"gradient would be silently lost",
             r"np\.mean\(V\.stack\(\[a, b\]\)\)")),
    Mistake("z = rng.normal(mu, sigma) in a VAE (the reparameterization forgotten)",
            _vae_sample_drawn_by_numpy, ValueError,
            (r"rng\.normal: NumPy's random generators draw from the values of a Variable",
             r"mu \+ sigma \* rng\.standard_normal\(mu\.shape\)")),
    Mistake("np.dot([loss1, loss2], weights): a list of Variables to NumPy's code in C",
            _weighted_losses_by_np_dot, ValueError,
            (r"np\.dot: NumPy's code in C converts a Variable inside a list",
             r"np\.dot\(V\.stack\(\[a, b\]\), \.\.\.\)")),
    Mistake("scipy.special.logsumexp(logits) in a loss", _scipy_logsumexp_of_a_variable, ValueError,
            (r"scipy\.special\.logsumexp: a Variable reached SciPy's code",
             r"gradient would be silently lost", r"V\.logsumexp\(x, axis\)")),
    Mistake("a Matern kernel's smoothness nu trained: scipy.special.kv(nu, r) with nu a Variable",
            _matern_kv_of_a_trained_order, TypeError,
            (r"kv\(v, x\): v must be a real number, got a Variable", r"not differentiated",
             r"v\.item\(\)")),
    Mistake("scipy.special.polygamma(1, a): SciPy's Python code", _scipy_polygamma_of_a_variable, ValueError,
            (r"scipy\.special\.polygamma: a Variable reached SciPy's code", r"V\.polygamma\(n, x\)")),
    Mistake("torch.special.legendre_polynomial_p(x, n): PyTorch's name and argument order",
            lambda: V.legendre_polynomial_p(np.linspace(-1, 1, 5), 3), AttributeError,
            (r"V\.eval_legendre\(n, x\), SciPy's name \(the degree n first\)",)),
    Mistake("eval_legendre(x, 3): PyTorch's argument order (x first) with SciPy's name",
            lambda: V.eval_legendre(np.linspace(-1, 1, 5), 3), TypeError,
            (r"eval_legendre\(n, x\): the degree n must be whole numbers, got an array of shape \(5,\)",
             r"the degree comes first")),
    Mistake("eval_legendre(2.5, x): a degree that is not whole (SciPy's Jacobi-function extension)",
            lambda: V.eval_legendre(2.5, np.linspace(-1, 1, 5)), TypeError,
            (r"eval_legendre\(n, x\): the degree n must be a whole number", r"got 2\.5")),
    Mistake("V.sici(x).backward(): a pair of Variables (Si, Ci) used as one, as a tensor-returning op",
            lambda: V.sici(V.Variable(np.array([0.5, 2.0]))).backward(), AttributeError,
            (r"V\.sici\(x\) returns a pair of Variables \(si, ci\), not one", r"si, ci = V\.sici\(x\)",
             r"take \.backward of either")),
    Mistake("scipy.special.lambertw(x, k=1): a complex branch, from SciPy's habits, on real Variables",
            _scipy_lambertw_on_a_complex_branch, ValueError,
            (r"lambertw\(x, k=1\): gengrad's Variables are real", r"only the branches k = 0 .* and k = -1",
             r"SciPy's other branches are complex")),
    Mistake("scipy.special.kelvin(x): SciPy's four complex values at once, on a real Variable",
            _scipy_kelvin_of_a_variable, TypeError,
            (r"scipy\.special\.kelvin\(x\) does not take Variables",
             r"real and imaginary parts: V\.ber\(x\), V\.bei\(x\), V\.ker\(x\), V\.kei\(x\), V\.berp\(x\)",
             r"gengrad's Variables are real")),
    Mistake("scipy.special.lpmv(1, 2.5, x): a non-integer degree (a hypergeometric function) on a Variable",
            _scipy_lpmv_of_a_half_integer_degree, TypeError,
            (r"^lpmv\(m, v, x\): gengrad's degree v is a whole number",
             r"SciPy's other real degrees are hypergeometric functions gengrad does not have\), got 2\.5")),
    Mistake("V.smirnov(d, n): the statistic given first, the sample size second (as a p-value call reads)",
            _smirnov_with_its_arguments_swapped, TypeError,
            (r"^smirnov\(n, d\): the sample size n must be a whole number, and comes first",
             r"got variable\(\[0\.12 0\.3 *\]\)")),
    Mistake("V.stats.ksone.ppf(n, q): the sample size given first (as smirnovi(n, p) reads), q second",
            _ksone_ppf_with_its_arguments_swapped, TypeError,
            (r"^ksone\.ppf\(q, n\): the sample size n must be a whole number, given after x \(or q\)",
             r"got an array of dtype float64 \(not all whole numbers\)")),
    Mistake("V.tklmbda(lmbda, x): the shape given first (as scipy.stats.tukeylambda(lam) is built), x second",
            _tklmbda_with_its_arguments_swapped, TypeError,
            (r"^tklmbda\(x, lmbda\): gengrad differentiates it in x only, and lmbda requires grad",
             r"The order is SciPy's: x first, then lmbda")),
    Mistake("scipy.special.struve(1, x) with a trained x (a piston's radiation impedance): no gengrad op",
            _scipy_struve_of_a_variable, TypeError,
            (r"scipy\.special\.struve\(x1, x2\) does not take Variables", r"gengrad has no struve op",
             r"scipy\.special\.struve\(x\.data, \.\.\.\) gives a plain array")),
    Mistake("gammainc(k, x) with a shape k that requires grad (a learned Gamma distribution's CDF)",
            lambda: V.gammainc(V.Variable(np.array(2.0)), np.array([0.5, 3.0])), TypeError,
            (r"gammainc\(a, x\): gengrad differentiates it in x only", r"gradient would be lost",
             r"a\.detach\(\) or an array")),
    Mistake("bdtr(k, n, p) with every argument a Variable (PyTorch's habit of torch.tensor for all)",
            lambda: V.bdtr(V.Variable(np.array(3.0)), V.Variable(np.array(10.0)), V.Variable(np.array(0.4))),
            TypeError,
            (r"bdtr\(k, n, p\): gengrad differentiates it in p only, and k requires grad",
             r"k\.detach\(\) or an array", r"The order is SciPy's: bdtr\(k, n, p\), p last")),
    Mistake("eval_jacobi(x, alpha, beta, n): PyTorch's x-first order for a polynomial with parameters",
            lambda: V.eval_jacobi(np.linspace(-1, 1, 4), 0.5, -0.3, 3), TypeError,
            (r"eval_jacobi\(n, alpha, beta, x\): the degree n must be whole numbers",
             r"the degree comes first")),
    Mistake("scipy.stats.t.cdf(t, df) in a robust regression's likelihood: SciPy's Python code",
            _scipy_student_t_cdf_of_a_variable, ValueError,
            (r"scipy\.stats\.t\.cdf: a Variable reached SciPy's code", r"gradient would be silently lost",
             r"V\.stats\.t\.cdf\(x, df, loc, scale\)")),
    Mistake("scipy.stats.t.ppf(q, df) for a confidence bound inside a loss: SciPy's Python code",
            _scipy_student_t_quantile_of_a_variable, ValueError,
            (r"scipy\.stats\.t\.ppf: a Variable reached SciPy's code", r"gradient would be silently lost",
             r"V\.stats\.t\.ppf\(q, df, loc, scale\)")),
    Mistake("stdtrit(q, df): scipy.stats.t.ppf's order, the probability first",
            lambda: V.stdtrit(V.Variable(np.array([0.9, 0.975])), 4.0), TypeError,
            (r"stdtrit\(df, p\): gengrad differentiates it in p only", r"df requires grad",
             r"The order is SciPy's: stdtrit\(df, p\), p last")),
    Mistake("betainc(a, b, x) with a shape that requires grad (a learned Beta distribution's CDF)",
            lambda: V.betainc(2.0, V.Variable(np.array(3.0)), np.array([0.2, 0.7])), TypeError,
            (r"betainc\(a, b, x\): gengrad differentiates it in x only", r"b requires grad",
             r"b\.detach\(\) or an array")),
    Mistake("betainc(x, a, b): scipy.stats.beta.cdf's order, x first",
            lambda: V.betainc(V.Variable(np.array([0.2, 0.7])), 2.0, 3.0), TypeError,
            (r"betainc\(a, b, x\): gengrad differentiates it in x only", r"a requires grad",
             r"The order is SciPy's: the shapes first, x last",
             r"scipy\.stats\.beta\.cdf\(x, a, b\) is betainc\(a, b, x\)")),
    Mistake("x.repeat(2, 3) on a matrix: PyTorch's repeat tiles, NumPy's repeats entries",
            lambda: V.Variable(np.ones((2, 3))).repeat(2, 3), ValueError,
            (r"repeat: axis 3 is out of range", r"PyTorch's x\.repeat\(2, 3\) tiles the whole array",
             r"V\.tile\(x, \(2, 3\)\)")),
    Mistake("x.repeat(2, 1, 1): PyTorch's tiling of three axes",
            lambda: V.Variable(np.ones((2, 3, 4))).repeat(2, 1, 1), TypeError,
            (r"Variable\.repeat\(repeats, axis\) is NumPy's", r"V\.tile\(x, \(2, 1, 1\)\)")),
    Mistake("V.polygamma(x, 1): the order and the points swapped",
            lambda: V.polygamma(np.array([0.5, 2.0]), 1), TypeError,
            (r"polygamma: n must be an int, the order of the derivative of digamma",
             r"call polygamma once per order")),
    Mistake("V.lgamma(x) (torch.lgamma)", lambda: V.lgamma(V.Variable(np.array([0.5]))), AttributeError,
            (r"module 'variable' has no attribute 'lgamma'", r"V\.gammaln\(x\)")),
    Mistake("w.dot(x): an ndarray's method given a Variable", _array_method_given_a_variable, ValueError,
            (r"w\.dot: an ndarray's method converts a Variable", r"np\.dot\(a, x\)")),
    Mistake("an RNN given a whole (batch, time, features) sequence (PyTorch's nn.RNN habit)",
            lambda: L.RNN(8)(np.ones((5, 10, 3))), ValueError,
            (r"RNN: x of shape \(5, 10, 3\) has 3 axes, but RNN is one time step",
             r"for t in range\(x\.shape\[1\]\): h = layer\(x\[:, t\]\)")),
    Mistake("an RNN's state carried across updates (no unchain_backward() or reset_state())",
            _rnn_state_kept_across_updates, ValueError,
            (r"was assigned after Linear was recorded", r"a recurrent layer's kept state",
             r"loss\.unchain_backward\(\), or model\.reset_state\(\)")),
    Mistake("Conv2d given channels-last images (N, H, W, C)", lambda: L.Conv2d(8, 3)(np.ones((2, 28, 28, 1))),
            ValueError, (r"Conv2d: input of shape \(2, 28, 28, 1\) looks channels-last",
                         r"x\.transpose\(0, 3, 1, 2\)")),
    Mistake("a training loop that never clears the gradients (no model.cleargrads())", _never_cleared,
            ValueError, (r"adds up gradients taken before and after its data changed",
                         r"call model\.cleargrads\(\) \(x\.cleargrad\(\) for one Variable\) before each")),
    Mistake("loss.backward() twice (the gradients doubled)", _backward_twice_from_one_loss, ValueError,
            (r"this output was differentiated by an earlier backward\(\)", r"would double it",
             r"model\.cleargrads\(\) \(x\.cleargrad\(\)\) before backward\(\) again")),
    Mistake("opt.update() twice after one loss.backward()", _update_twice_with_one_gradient, ValueError,
            (r"SGD\.update: the gradient of parameter 'W' was taken before its data last changed",
             r"model\.cleargrads\(\); loss = \.\.\.; loss\.backward\(\); opt\.update\(\)")),
    Mistake("a parameter shared by two models, each with its optimizer, updated twice a step",
            _shared_parameter_two_optimizers, ValueError,
            (r"was taken before its data last changed", r"a parameter that two optimizers update")),
    Mistake("model.state_dict() to save a model (PyTorch)", lambda: _trained_model().state_dict(),
            AttributeError, (r"'MLP' object has no attribute 'state_dict'", r"model\.save_weights\(path\)")),
    Mistake("for g in opt.param_groups: g['lr'] = ... (PyTorch)", lambda: O.SGD(0.1).param_groups,
            AttributeError, (r"'SGD' object has no attribute 'param_groups'", r"opt\.lr = ")),
    Mistake("y.backward(gy) (PyTorch's positional gradient)", _backward_with_positional_gradient, TypeError,
            (r"retain_grad must be True or False, got ndarray", r"y\.backward\(gradient=gy\)")),
    Mistake("loss.backward(retain_graph=True) (PyTorch)",
            lambda: _square_of(V.Variable(np.ones(2))).backward(retain_graph=True), TypeError,
            (r"backward\(\) got PyTorch's keyword argument retain_graph=True",
             r"gengrad keeps the graph after backward\(\)", r"drop it")),
    Mistake("V.grad(y, x, retain_graph=True) (torch.autograd.grad)",
            lambda: V.grad(_square_of(x := V.Variable(np.ones(2))), x, retain_graph=True), TypeError,
            (r"grad\(\) got PyTorch's keyword argument retain_graph=True", r"drop it")),
    Mistake("loss.backward(inputs=[w]) (PyTorch)",
            lambda: _square_of(x := V.Variable(np.ones(2))).backward(inputs=[x]), TypeError,
            (r"backward\(\) got PyTorch's keyword argument inputs=", r"V\.grad\(outputs, inputs\)")),
    Mistake("F.dropout(x, p, training=False) (PyTorch)", lambda: F.dropout(np.ones(3), 0.5, training=False),
            TypeError, (r"dropout: training is PyTorch's keyword", r"with V\.test_mode\(\):",
                        r"drop training=False and call it under V\.test_mode\(\)")),
    Mistake("F.batch_norm(x, ..., training=True) (PyTorch)",
            lambda: F.batch_norm(np.ones((4, 3)), np.ones(3), np.zeros(3), training=True), TypeError,
            (r"batch_norm: training is PyTorch's keyword", r"drop training=True")),
    Mistake("F.batch_norm(x, running_mean, running_var, weight, bias) (PyTorch's order)",
            _torch_batch_norm_order, TypeError,
            (r"batch_norm: running_mean is a Variable that requires grad",
             r"F\.batch_norm\(x, gamma, beta, running_mean, running_var\)")),
    Mistake("F.linear(x, W) with PyTorch's (out_size, in_size) weight",
            lambda: F.linear(np.ones((2, 3)), V.Variable(np.ones((4, 3)))), ValueError,
            (r"linear: x of shape \(2, 3\) does not match W of shape \(4, 3\)",
             r"PyTorch's F\.linear takes its weight as \(out_size, in_size\): pass W\.T")),
    Mistake("math.exp(x) * x (Python's math module on a Variable)", _math_exp_of_a_variable, ValueError,
            (r"math\.exp: Python's math module computes with a float", r"gradient would be silently lost",
             r"V\.exp\(x\), or np\.exp\(x\)")),
    Mistake("math.atan(x) (math's name for arctan)", lambda: math.atan(V.Variable(np.array(0.5))), ValueError,
            (r"math\.atan: Python's math module", r"V\.arctan\(x\), or np\.arctan\(x\)")),
    Mistake("L.BatchNorm(momentum=0.1) (PyTorch's keyword)", lambda: L.BatchNorm(momentum=0.1), TypeError,
            (r"BatchNorm: momentum is PyTorch's keyword", r"decay=0\.9 for momentum=0\.1")),
    Mistake("L.Linear(10, bias=False) (PyTorch's keyword)", lambda: L.Linear(10, bias=False), TypeError,
            (r"Linear\(\) got an unexpected keyword argument 'bias'", r"write nobias=True")),
    Mistake("L.Conv2d(16, 3, padding=1) (PyTorch's keyword)", lambda: L.Conv2d(16, 3, padding=1), TypeError,
            (r"Conv2d\(\) got an unexpected keyword argument 'padding'", r"write pad=1")),
    Mistake("L.ReLU(inplace=True) (PyTorch's nn.ReLU)", lambda: L.ReLU(inplace=True), TypeError,
            (r"ReLU\(\) got an unexpected keyword argument 'inplace'", r"never write into their input",
             r"drop inplace=True")),
    Mistake("F.binary_cross_entropy(p, x, size_average=False) (PyTorch's keyword before reduction=, "
            "in its older VAE examples)",
            lambda: F.binary_cross_entropy(np.full((2, 3), 0.5), np.ones((2, 3)), size_average=False),
            TypeError,
            (r"'size_average'", r"replaced it with reduction=", r"size_average=False is reduction='sum'")),
    Mistake("F.softmax_cross_entropy(y, t) with padding rows labelled -100 (PyTorch's default ignore_index)",
            lambda: F.softmax_cross_entropy(np.zeros((2, 3)), np.array([0, -100])), ValueError,
            (r"label -100 is out of range for 3 classes", r"leaves out the rows labelled -100 by default",
             r"ignore_index=-100")),
    Mistake("F.softmax_cross_entropy(y, t, w) (PyTorch's cross_entropy takes its weight third)",
            lambda: F.softmax_cross_entropy(np.zeros((2, 3)), np.array([0, 1]), np.ones(3)), TypeError,
            (r"softmax_cross_entropy\(\) takes 2 positional arguments \(x, t\), got 3",
             r"PyTorch's F\.cross_entropy reads them in the order weight, size_average",
             r"write softmax_cross_entropy\(x, t, weight=\.\.\.\)")),
    Mistake("F.smooth_l1_loss(x, t, None, None, 'sum') (PyTorch's positional order)",
            lambda: F.smooth_l1_loss(np.zeros(2), np.ones(2), None, None, "sum"), TypeError,
            (r"write smooth_l1_loss\(x, t, size_average=\.\.\., reduce=\.\.\., reduction=\.\.\.\)",)),
    Mistake("F.softmax_cross_entropy(y, t, reduction='batchmean') (kl_div's reduction)",
            lambda: F.softmax_cross_entropy(np.zeros((2, 3)), np.array([0, 1]), reduction="batchmean"),
            ValueError,
            (r"softmax_cross_entropy: reduction must be 'mean', 'sum' or 'none', got 'batchmean'",)),
    Mistake("F.kl_div(F.log_softmax(y), p, reduction='batchmean') (torch.nn.functional's kl_div)",
            lambda: F.kl_div(F.log_softmax(np.zeros((2, 3))), np.full((2, 3), 1 / 3), reduction="batchmean"),
            TypeError, (r"kl_div is scipy\.special\.kl_div\(p, q\)", r"takes log q first",
                        r"V\.rel_entr\(p, V\.exp\(log_q\)\)\.sum\(\) / len\(p\)")),
    Mistake("L.Sequential([L.Linear(10), F.relu]): the steps in one list (Keras's habit)",
            lambda: L.Sequential([L.Linear(10), F.relu]), TypeError,
            (r"Sequential: step 0 must be a Layer", r"got list", r"L\.Sequential\(\*steps\)")),
    Mistake("opt.lr = args.lr: a schedule's rate read from the command line as a string",
            lambda: setattr(O.Adam(), "lr", "3e-4"), TypeError,
            (r"Adam: lr must be a number, got str '3e-4'", r"float\('3e-4'\)")),
    Mistake("opt.lr = -0.01 between updates (a schedule's sign slip: gradient ascent)",
            lambda: setattr(O.SGD(lr=0.1), "lr", -0.01), ValueError,
            (r"SGD: lr must lie in \[0\.0, inf\), got -0\.01",)),
    Mistake("L.DataLoader(x, t, batch_size=32, num_workers=4) (torch.utils.data's keyword)",
            lambda: L.DataLoader(np.ones((8, 2)), np.zeros(8), batch_size=4, num_workers=4), TypeError,
            (r"DataLoader\(\) got an unexpected keyword argument 'num_workers'",
             r"torch\.utils\.data\.DataLoader's keyword", r"drop num_workers")),
    Mistake("O.SGD(learning_rate=0.1) (Keras's and optax's name)", lambda: O.SGD(learning_rate=0.1),
            TypeError,
            (r"SGD\(\) got an unexpected keyword argument 'learning_rate'", r"the step size is lr")),
    Mistake("x.grad.zero_() (PyTorch)", _zero_grad_in_place, AttributeError,
            (r"'Variable' object has no attribute 'zero_'", r"x\.cleargrad\(\)")),
    Mistake("x.zero_grad() (PyTorch's module name on a tensor)", lambda: V.Variable(1.0).zero_grad(),
            AttributeError, (r"no attribute 'zero_grad'", r"x\.cleargrad\(\)")),
    Mistake("x.cuda() (PyTorch)", lambda: V.Variable(1.0).cuda(), AttributeError,
            (r"no attribute 'cuda'", r"x\.to_gpu\(\)")),
    Mistake("x.view(...) (PyTorch)", lambda: V.Variable(np.ones(4)).view(2, 2), AttributeError,
            (r"no attribute 'view'", r"x\.reshape")),
    Mistake("x.floor_divide(2) (PyTorch's method)", lambda: V.Variable(np.ones(2)).floor_divide(2),
            AttributeError, (r"no attribute 'floor_divide'", r"x // y")),
    Mistake("x.unique() (PyTorch's method)", lambda: V.Variable(np.ones(2)).unique(), AttributeError,
            (r"no attribute 'unique'", r"V\.unique\(x\), or np\.unique\(x\)")),
    Mistake("x.exp() (PyTorch's method)", lambda: V.Variable(1.0).exp(), AttributeError,
            (r"no attribute 'exp'", r"V\.exp\(x\), or np\.exp\(x\)")),
    Mistake("x.add_(y) (PyTorch's in-place op)", lambda: V.Variable(1.0).add_(1.0), AttributeError,
            (r"no attribute 'add_'", r"x = x \+ y", r"V\.no_grad")),
    Mistake("x.size(0) (PyTorch)", lambda: V.Variable(np.ones((2, 3))).size(0), TypeError,
            (r"x\.size is NumPy's number of entries \(6\)", r"x\.shape\[0\]")),
    Mistake("x.sort() (NumPy's in-place sort)", lambda: V.Variable(np.array([2.0, 1.0])).sort(),
            AttributeError,
            (r"no attribute 'sort'", r"in-place method", r"V\.sort\(x, axis\)")),
    Mistake("x.fill(0) (NumPy's in-place fill)", lambda: V.Variable(np.ones(2)).fill(0.0), AttributeError,
            (r"no attribute 'fill'", r"np\.full_like\(x, value\)", r"V\.no_grad")),
    Mistake("x.resize(4) (NumPy's in-place resize)", lambda: V.Variable(np.ones(2)).resize(4), AttributeError,
            (r"no attribute 'resize'", r"V\.resize\(x, shape\)")),
    Mistake("x.flat (NumPy's iterator)", lambda: V.Variable(np.ones(2)).flat, AttributeError,
            (r"no attribute 'flat'", r"x\.ravel\(\)")),
    Mistake("x & y on float data (a mask meant)", lambda: V.Variable(np.ones(2)) & 1, TypeError,
            (r"& on a Variable: bitwise operators take integer or boolean data", r"\(x > 0\) & \(x < 1\)")),
    Mistake("x.any(out=...)", lambda: V.Variable(np.ones(2)).any(out=np.zeros((), bool)), TypeError,
            (r"x\.any\(out=\.\.\.\)", r"x\.data\.any\(out=\.\.\.\)")),
    Mistake("x.sum(dim=1) (PyTorch's dim)", lambda: V.Variable(np.ones((2, 2))).sum(dim=1), TypeError,
            (r"unexpected keyword argument 'dim'", r"write axis=1")),
    Mistake("O.SGD(model.params(), lr=...) (PyTorch)", lambda: O.SGD(_trained_model().params(), lr=0.1),
            TypeError, (r"SGD: the parameters go to setup\(\)", r"O\.SGD\(lr=\.\.\.\)\.setup\(model\)")),
    Mistake("Adam(alpha=...) (DeZero)", lambda: O.Adam(alpha=0.001), TypeError,
            (r"unexpected keyword argument 'alpha'", r"O\.Adam\(lr=0\.001\)")),
    Mistake("L.datasets.get_spiral (DeZero)", lambda: L.datasets.get_spiral(train=True), AttributeError,
            (r"no attribute 'get_spiral'", r"L\.datasets\.spiral\(\)")),
    Mistake("loss += ... after loss.unchain_backward()", _accumulate_after_unchain_backward, ValueError,
            (r"loss \+= \.\.\.: loss was cut from its graph by unchain\(\) or unchain_backward\(\)",
             r"write loss = loss \+ \.\.\. for a new Variable")),
    Mistake("DataLoader(x, t, 30) (DeZero's positional batch size)",
            lambda: L.DataLoader(np.ones((90, 2)), np.zeros(90, dtype=int), 30), TypeError,
            (r"DataLoader: argument 3 is the number 30", r"keyword-only",
             r"L\.DataLoader\(x, t, batch_size=30\)")),
    Mistake("softmax_cross_entropy(t, y): labels first",
            lambda: F.softmax_cross_entropy(np.array([0, 2]), V.Variable(np.ones((2, 3)))), ValueError,
            (r"softmax_cross_entropy", r"look swapped",
             r"softmax_cross_entropy\(y, t\) with y of shape \(2, 3\)")),
    Mistake("binary_cross_entropy(t, p): integer labels first", _swapped_binary_cross_entropy, TypeError,
            (r"binary_cross_entropy: p holds integers", r"look swapped", r"binary_cross_entropy\(y, t\)")),
    Mistake("mean_squared_error of (N, 1) and (N,)",
            lambda: F.mean_squared_error(V.Variable(np.ones((4, 1))), np.ones(4)), ValueError,
            (r"mean_squared_error", r"\(4, 1\)", r"x1\.reshape\(4, 1\)")),
    Mistake("a tied output layer h @ W.T recorded before an EmbedID(max_norm=...) lookup",
            _tied_output_layer_before_a_max_norm_lookup, ValueError,
            (r"an input of MatMul2D, views memory", r"written in place through the \.data of Variable 'W'",
             r"EmbedID with max_norm", r"W\.copy\(\)\.T")),
]

CATALOGUE += [  # PyTorch's spellings of shapes, axes and modules
    Mistake("x.transpose(0, 1) on a matrix (PyTorch's swap; NumPy's identity)",
            lambda: V.Variable(np.ones((2, 3))).transpose(0, 1), ValueError,
            (r"x\.transpose\(0, 1\) on a 2-D Variable", r"identity permutation", r"x\.T",
             r"x\.transpose\(\(0, 1\)\) to keep them")),
    Mistake("x.transpose(0, 1) on a 3-D Variable (PyTorch's swap)",
            lambda: V.Variable(np.ones((2, 3, 4))).transpose(0, 1), ValueError,
            (r"axes \(0, 1\) are not a permutation", r"x\.swapaxes\(0, 1\)")),
    Mistake("F.softmax(x, dim=1) (PyTorch's dim)", lambda: F.softmax(V.Variable(np.ones((2, 3))), dim=1),
            TypeError, (r"softmax\(\) got an unexpected keyword argument 'dim'", r"write axis=1")),
    Mistake("V.concat(xs, dim=0) (PyTorch's dim)", lambda: V.concat([V.Variable(np.ones(2))] * 2, dim=0),
            TypeError, (r"concat\(\) got an unexpected keyword argument 'dim'", r"write axis=0")),
    Mistake("V.sum(x, 0, keepdim=True) (PyTorch's keepdim)",
            lambda: V.sum(V.Variable(np.ones((2, 3))), 0, keepdim=True), TypeError,
            (r"unexpected keyword argument 'keepdim'", r"write keepdims=True")),
    Mistake("x.sum(1, keepdim=True) (PyTorch's keepdim)",
            lambda: V.Variable(np.ones((2, 3))).sum(1, keepdim=True), TypeError,
            (r"unexpected keyword argument 'keepdim'", r"write keepdims=True")),
    Mistake("V.flip(x, dims=0) (PyTorch's dims)", lambda: V.flip(V.Variable(np.ones(3)), dims=0), TypeError,
            (r"flip\(\) got an unexpected keyword argument 'dims'", r"write axis=0")),
    Mistake("V.cat(xs) (torch.cat)", lambda: V.cat([V.Variable(np.ones(2))] * 2), AttributeError,
            (r"module 'variable' has no attribute 'cat'", r"V\.concat\(xs, axis\)")),
    Mistake("F.cross_entropy (torch.nn.functional)", lambda: F.cross_entropy, AttributeError,
            (r"no attribute 'cross_entropy'", r"F\.softmax_cross_entropy\(logits, t\)")),
    Mistake("x.permute(1, 0) (PyTorch)", lambda: V.Variable(np.ones((2, 3))).permute(1, 0), AttributeError,
            (r"no attribute 'permute'", r"x\.transpose\(1, 0, 2\)", r"V\.permute_dims")),
    Mistake("x.masked_fill(mask, 0) (PyTorch)",
            lambda: V.Variable(np.ones(2)).masked_fill(np.ones(2, bool), 0), AttributeError,
            (r"no attribute 'masked_fill'", r"V\.where\(mask, value, x\)")),
    Mistake("x.to('cpu') (PyTorch)", lambda: V.Variable(np.ones(2)).to("cpu"), AttributeError,
            (r"no attribute 'to'", r"x\.to_cpu\(\)")),
    Mistake("class Net(L.Module) (torch.nn)", lambda: L.Module, AttributeError,
            (r"module 'layers' has no attribute 'Module'", r"L\.Model")),
    Mistake("DataLoader(L.datasets.sine_curve(), batch_size=30): (x, t) as one argument (DeZero)",
            lambda: L.DataLoader(L.datasets.sine_curve(), batch_size=30), TypeError,
            (r"DataLoader: its one argument is a tuple of 2 arrays \(shapes \(1000, 1\), \(1000, 1\)\)",
             r"L\.DataLoader\(x, t, batch_size=\.\.\.\)")),
    Mistake("F.softmax_simple (DeZero's first version)", lambda: F.softmax_simple, AttributeError,
            (r"no attribute 'softmax_simple'", r"F\.softmax\(x, axis\)")),
    Mistake("O.Adam(lr=..., weight_decay=...) (PyTorch)", lambda: O.Adam(lr=1e-3, weight_decay=1e-4),
            TypeError,
            (r"unexpected keyword argument 'weight_decay'", r"opt\.add_hook\(O\.WeightDecay\(rate\)\)")),
    Mistake("F.layer_norm(x, (4,)) (PyTorch's normalized_shape)",
            lambda: F.layer_norm(V.Variable(np.ones((2, 4))), (4,)), TypeError,
            (r"layer_norm: gamma is \(4,\), x's trailing shape: PyTorch's normalized_shape",
             r"F\.layer_norm\(x\) for torch's F\.layer_norm\(x, shape\)")),
    Mistake("F.layer_norm(x, x.shape[-2:], w, b) (PyTorch's normalized_shape over two axes)",
            lambda: F.layer_norm(np.ones((2, 3, 4)), (3, 4), np.ones(12), np.zeros(12)), TypeError,
            (r"gamma is \(3, 4\)", r"F\.layer_norm\(x, w, b\) for F\.layer_norm\(x, shape, w, b\)",
             r"make them one: layer_norm\(x\.reshape\(\*x\.shape\[:-2\], -1\), \.\.\.\)")),
    Mistake("F.rms_norm(x, [4]) (PyTorch's normalized_shape)",
            lambda: F.rms_norm(np.ones((2, 4)), [4]), TypeError,
            (r"rms_norm: gamma is \(4,\)", r"F\.rms_norm\(x, w\) for F\.rms_norm\(x, shape, w\)")),
    Mistake("x.erf() (PyTorch's tensor method)", lambda: V.Variable(np.ones(2)).erf(), AttributeError,
            (r"no attribute 'erf'", r"V\.erf\(x\) \(scipy\.special's name; NumPy has none\)")),
    Mistake("x.log1p() (PyTorch's tensor method)", lambda: V.Variable(np.ones(2)).log1p(), AttributeError,
            (r"no attribute 'log1p'", r"V\.log1p\(x\), or np\.log1p\(x\)")),
    Mistake("x.argmax(dim=1) (PyTorch's keyword in a method that has no **kwargs)",
            lambda: V.Variable(np.ones((2, 3))).argmax(dim=1), TypeError,
            (r"argmax\(\) got an unexpected keyword argument 'dim'", r"write axis=1")),
    Mistake("x.var(dim=0) (PyTorch's keyword)", lambda: V.Variable(np.ones((2, 3))).var(dim=0), TypeError,
            (r"var\(\) got an unexpected keyword argument 'dim'", r"write axis=0")),
    Mistake("x.flatten(1) (PyTorch's start_dim, NumPy's order)",
            lambda: V.Variable(np.ones((2, 3, 4))).flatten(1), TypeError,
            (r"PyTorch's flatten\(start_dim=1\)", r"x\.reshape\(x\.shape\[:1\] \+ \(-1,\)\)",
             r"V\.flatten\(x\)")),
    Mistake("x.exp_() (PyTorch's in-place method)", lambda: V.Variable(np.ones(2)).exp_(), AttributeError,
            (r"no attribute 'exp_'", r"without the underscore gives a new Variable", r"V\.exp\(x\)")),
    Mistake("V.randn_like(x) (PyTorch's constructor)", lambda: V.randn_like(V.Variable(np.ones(2))),
            AttributeError,
            (r"no attribute 'randn_like'", r"rng\.standard_normal\(x\.shape\)")),
]


def test_a_custom_backward_cannot_change_the_callers_grad_outputs():
    seed = np.ones(2)
    x = V.Variable(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="writes into an incoming gradient"):
        V.grad(DoubleInPlace.apply(x), x, grad_outputs=seed)
    np.testing.assert_array_equal(seed, [1.0, 1.0])


def test_a_custom_backward_on_read_only_gradients_still_differentiates_to_second_order():
    class Cube(V.Forwarder):
        save_for_backward = ("x",)

        def forward(self, x):
            return x ** 3

        def backward(self, gy):
            x, = self.inputs
            return gy * 3 * x ** 2

    x = V.Variable(np.array([0.5, -1.5]))
    g = V.grad(V.sum(Cube.apply(x) * x), x, create_graph=True)          # 4 x^3
    np.testing.assert_allclose(g.data, 4 * x.data ** 3)
    np.testing.assert_allclose(V.grad(V.sum(g * g), x).data, 2 * 4 * x.data ** 3 * 12 * x.data ** 2)


def test_an_identity_forward_does_not_hand_out_its_input():
    class Identity(V.Forwarder):
        def forward(self, x):
            return x

        def backward(self, gy):
            return gy

    x = V.Variable(np.array([1.0, 2.0]))
    y = Identity.apply(x)
    y.data[0] = 5.0          # the output is its own array, writeable
    assert x.data[0] == 1.0


def test_a_non_differentiable_output_requires_no_grad():
    class MaxAndWhere(V.Forwarder):
        non_differentiable = ("y1",)

        def forward(self, x):
            return x.max(), np.asarray(float(x.argmax()))

        def backward(self, gy, gi):
            x, = self.inputs
            return gy * (x == x.data.max())

    x = V.Variable(np.array([1.0, 3.0, 2.0]))
    m, i = MaxAndWhere.apply(x)
    assert m.requires_grad and not i.requires_grad
    m.backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 1.0, 0.0])


@pytest.mark.parametrize("mistake", CATALOGUE, ids=repr)
def test_mistake_is_refused_with_its_fix(mistake, request):
    if mistake.gpu:
        request.getfixturevalue("gpu")
    with pytest.raises((TypeError, ValueError, OSError, AttributeError)) as caught:
        mistake.run()
    got = caught.value
    assert type(got) is mistake.error, f"{mistake.label}: {type(got).__name__}: {got}"
    message = str(caught.value)
    for word in mistake.words:
        assert re.search(word, message), f"{mistake.label}: {word!r} not in: {message}"


def test_a_reused_forwarder_leaves_the_first_call_right():
    # the reproducer: the first graph must not be silently corrupted by the second call
    x1, x2 = V.Variable(2.0), V.Variable(3.0)
    c = Cube()
    y1 = V.Function(c)(x1)
    with pytest.raises(ValueError):
        V.Function(c)(x2)
    y1.backward()
    assert x1.grad.item() == 12.0


def test_apply_makes_a_fresh_forwarder_per_call():
    x1, x2 = V.Variable(2.0), V.Variable(3.0)
    y1, y2 = Cube.apply(x1), Cube.apply(x2)
    (y1 + y2).backward()
    assert (x1.grad.item(), x2.grad.item()) == (12.0, 27.0)
    assert V.gradcheck(Cube.apply, np.array([0.5, -1.5]), order=3)


def test_a_backward_may_return_none_for_inputs_that_need_no_gradient():
    class Scale(V.Forwarder):  # None inside a tuple is deliberate: no gradient for that input
        def forward(self, x, s):
            return x * s

        def backward(self, gy):
            x, s = self.inputs
            return gy * s, None

    x, s = V.Variable(2.0), V.Variable(5.0)
    V.Function(Scale())(x, s).backward()
    assert x.grad.item() == 5.0 and s.grad is None


def test_gradcheck_in_float32_warns_and_explains_its_failure():
    with pytest.warns(UserWarning, match="float64"), pytest.raises(V.GradcheckError) as caught:
        V.gradcheck(V.sin, np.linspace(-1, 1, 5).astype(np.float32))
    message = str(caught.value)
    assert "from backward" in message and "central differences" in message and "float64" in message
    assert V.gradcheck(V.sin, np.linspace(-1, 1, 5), order=3)  # float64 passes


def test_nth_derivative_loop_with_materialized_zeros():
    x = V.Variable(np.array([0.5, -1.0, 2.0]))
    g, derivatives = x ** 2, []
    for _ in range(4):
        g = V.grad(F.sum(g), x, create_graph=True, materialize_grads=True)
        derivatives.append(g.data.copy())
    np.testing.assert_allclose(derivatives[0], 2 * x.data)
    np.testing.assert_allclose(derivatives[1], [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(derivatives[2], np.zeros(3))  # x**2 at order 3
    np.testing.assert_array_equal(derivatives[3], np.zeros(3))
    g = V.grad(F.sum(F.relu(x)), x, create_graph=True)
    second = V.grad(F.sum(g), x, materialize_grads=True)      # relu at order 2
    assert second.shape == x.shape and second.dtype == x.dtype and not second.data.any()
    assert V.grad(F.sum(g), x, allow_unused=True) is None
    with pytest.raises(ValueError, match="materialize_grads=True"):
        V.grad(F.sum(x * 1.0), [x, V.Variable(1.0)])


# ----- the habits that now work ------------------------------------------------------------------
def _regression_problem():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (32, 2))
    return x, x @ np.array([[1.5], [-2.0]]) + 0.5


def test_pytorch_style_sgd_step_trains():
    # `p -= lr * p.grad` under no_grad: it used to rebind the loop variable, and nothing trained
    L.seed(0)
    x, t = _regression_problem()
    model = L.Linear(1)
    losses = []
    for _ in range(50):
        loss = F.mean_squared_error(model(x), t)
        model.cleargrads()
        loss.backward()
        with V.no_grad():
            for p in model.params():
                p -= 0.1 * p.grad
        losses.append(loss.item())
    assert losses[-1] < 0.1 * losses[0]
    assert [name for name, _ in model.named_params()] == ["W", "b"]


def test_in_place_operators_keep_their_meaning_elsewhere():
    x = V.Variable(np.array([1.0, 2.0]))
    total = 0
    for _ in range(3):
        total += (x * x).sum()                  # a new Variable each time, graph kept
    total.backward()
    np.testing.assert_array_equal(x.grad.data, [6.0, 12.0])
    y = x * 1.0
    y += 1.0                                    # not a leaf: a new Variable
    assert y.creator is not None and y.creator.name == "Add"
    with V.no_grad():
        data = x.data
        x *= 2.0
    assert x.data is data and x.data.tolist() == [2.0, 4.0]


def test_data_changed_between_forward_and_backward_names_the_variable():
    w, z = V.Variable(np.array(2.0), name="w"), V.Variable(np.array(3.0))
    d = V.tanh(w * z)
    w.data -= 1.0                               # gave z.grad = 2.46e-05, neither value's gradient
    with pytest.raises(ValueError, match=r"'w', an input of Mul.*forward pass again"):
        d.backward()
    d = V.tanh(w * z)                           # recomputed: the gradient at w = 1
    d.backward()
    np.testing.assert_allclose(z.grad.data, 1 - np.tanh(3.0) ** 2)


def test_an_optimizer_step_before_backward_is_refused():
    L.seed(0)
    x, t = _regression_problem()
    model = L.Linear(1)
    opt = __import__("optimizers").SGD(0.1).setup(model)
    F.mean_squared_error(model(x), t).backward()
    opt.update()
    stale = F.mean_squared_error(model(x), t)
    model.cleargrads()
    F.mean_squared_error(model(x), t).backward()
    opt.update()                                # updates W and b: `stale` saw the old ones
    with pytest.raises(ValueError, match=r"an optimizer step belongs after backward"):
        stale.backward()


def test_a_gradient_may_be_assigned_an_array():
    model = L.Linear(1, in_size=2)
    opt = __import__("optimizers").SGD(0.5).setup(model)
    model.W.grad = np.ones((2, 1))              # "'memoryview' object has no attribute 'dtype'"
    model.b.grad = np.float64(2.0) * np.ones(1)
    W, b = model.W.data.copy(), model.b.data.copy()
    opt.update()
    np.testing.assert_allclose(model.W.data, W - 0.5)
    np.testing.assert_allclose(model.b.data, b - 1.0)


def test_grad_takes_any_iterable_of_variables():
    model = L.MLP((3, 1))
    loss = F.sum(model(np.ones((2, 2))) ** 2)
    grads = V.grad(loss, model.params(), create_graph=True)   # a generator
    assert len(grads) == len(list(model.params()))
    assert all(g.shape == p.shape for g, p in zip(grads, model.params()))


def test_ndarray_operators_with_a_variable_record_the_op():
    x = V.Variable(np.array([1.0, 2.0]))
    y = np.array([3.0, 4.0]) * x + np.ones(2) / x - np.float64(1.0) ** x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.data, [3.0 - 1.0, 4.0 - 0.25])
    np.testing.assert_array_equal(np.zeros(2) < x, [True, True])


def test_numpy_reductions_take_variables_and_keep_the_graph():
    x = V.Variable(np.array([1.0, -2.0, 3.0]))
    y = np.sum(x * x) + np.mean(x) + np.max(x) - np.min(x, axis=0, keepdims=True).sum()
    assert isinstance(y, V.Variable)
    y.backward()
    np.testing.assert_allclose(x.grad.data, 2 * x.data + 1 / 3 + np.array([0.0, -1.0, 1.0]))


def test_numpy_functions_on_variables_in_a_backward_record_the_op():
    # np.cos(x) on the input Variable is V.cos(x): right to third order, no slip to refuse
    assert V.gradcheck(NumpyInBackward.apply, np.array([0.5, -1.0, 2.0]), order=3)


def test_masks_from_data_in_a_recorded_backward_are_fine():
    class Relu(V.Forwarder):
        def forward(self, x):
            return np.maximum(x, 0.0)

        def backward(self, gy):
            x, = self.inputs
            return gy * (x.data > 0)

    x = V.Variable(np.array([1.5, -2.0, 0.5]))
    g = V.grad(V.sum(Relu.apply(x) ** 2), x, create_graph=True)
    np.testing.assert_allclose(g.data, [3.0, 0.0, 1.0])
    np.testing.assert_allclose(V.grad(V.sum(g), x).data, [2.0, 0.0, 2.0])


def test_data_in_a_backward_without_create_graph_stays_allowed():
    # first order is right (DeZero's step 27); only a recorded backward would go wrong
    x = V.Variable(np.array([0.5, 1.5]))
    V.Function(DataInBackward())(x).backward()
    np.testing.assert_allclose(x.grad.data, np.cos([0.5, 1.5]))


def test_an_integer_variable_mixed_into_a_float_graph_says_why_it_has_no_gradient():
    # DeZero's habit V.Variable(np.array(2)) makes an integer constant: its .grad stays None
    x = V.Variable(np.array([1, 2, 3]))
    w = V.Variable(np.array([0.5, 1.0, 2.0]))
    V.sum(x * w).backward()
    with pytest.warns(UserWarning, match=r"integer data \(int64\).*no gradient.*floating point"):
        assert x.grad is None
    np.testing.assert_allclose(w.grad.data, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"integer data \(int64\)"):
        V.grad(V.sum(x * w), x)


def test_reading_the_grad_of_an_intermediate_warns_and_names_retain_grad():
    # PyTorch warns on a non-leaf's .grad; a silent None led to 'NoneType' has no attribute 'data'
    x = V.Variable(np.array([0.5, 1.5]))
    h = V.sin(x)
    V.sum(h * h).backward()
    with pytest.warns(UserWarning, match=r"made by Sin.*intermediate.*retain_grad=True.*V\.grad\(y, h\)"):
        assert h.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(x.grad.data, np.sin(2 * x.data))      # a leaf: no warning
        x.cleargrad()
        h = V.sin(x)
        V.sum(h * h).backward(retain_grad=True)
        np.testing.assert_allclose(h.grad.data, 2 * np.sin(x.data))      # kept: no warning


def test_a_variable_stored_into_one_element_is_refused_through_numpys_own_error():
    # for one element NumPy calls float(x) and restates any error as its own ValueError,
    # with gengrad's refusal as the cause (shown first in the traceback)
    a = np.zeros(3)
    with pytest.raises(ValueError) as caught:
        a[0] = V.Variable(np.array(2.0))
    assert "a[i] = x" in str(caught.value.__cause__)
    assert "x.item()" in str(caught.value.__cause__)
    np.testing.assert_array_equal(a, [0.0, 0.0, 0.0])  # nothing was stored


def test_storing_values_that_carry_no_gradient_into_an_ndarray_still_works():
    x = V.Variable(np.array(2.0))
    v = V.Variable(np.array([3.0, 4.0]))
    a = np.zeros(3)
    a[0] = x.item()
    a[1:] = v.data
    np.testing.assert_array_equal(a, [2.0, 3.0, 4.0])
    a[0] = V.Variable(np.array(5.0), requires_grad=False)  # a constant: nothing to lose
    a[1:] = v.detach()
    with V.no_grad():  # no graph is recorded, so nothing is lost either
        a[0] = x * 3
    np.testing.assert_array_equal(a, [6.0, 3.0, 4.0])
    assert float(x) == 2.0 and np.asarray(v).tolist() == [3.0, 4.0]  # reading a value is fine


def test_a_second_derivative_by_backward_after_cleargrad_and_a_penalty_on_grads_still_add_up():
    x = V.Variable(np.array(2.0))
    (x ** 3).backward(create_graph=True)
    gx = x.grad
    x.cleargrad()
    gx.backward()
    assert x.grad.item() == 12.0  # 6x
    w = V.Variable(np.array([1.0, 2.0]))
    (w ** 3).sum().backward(create_graph=True)  # w.grad = 3 w^2, with its graph
    (w.grad ** 2).sum().backward()  # a penalty on the gradient adds 36 w^3 to it, as in PyTorch
    np.testing.assert_allclose(w.grad.data, 3 * w.data ** 2 + 36 * w.data ** 3)


def test_an_update_skips_the_parameters_without_gradients_and_log_probabilities_are_logits():
    model = L.MLP((3, 1))
    F.sum(model.l1(np.ones((2, 3)))).backward()  # only the second layer gets gradients
    before = [p.data.copy() for p in model.params()]
    O.SGD(0.1).setup(model).update()
    changed = [not np.array_equal(b, p.data) for b, p in zip(before, model.params())]
    assert changed == [p.grad is not None for p in model.params()] and any(changed)
    x = V.Variable(np.array([[0.5, -1.0, 2.0]]))  # log_softmax is idempotent: its output is logits
    loss = F.softmax_cross_entropy(F.log_softmax(x), np.array([2]))
    np.testing.assert_allclose(loss.item(), F.softmax_cross_entropy(x, np.array([2])).item())
