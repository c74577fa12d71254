"""ndarray's methods and operators on a Variable: the recorded ones against NumPy (values
and gradients), the ones without gradient against the data's own method, and the in-place
ones refused with what to write instead."""

import operator
import re

import numpy as np
import pytest

import variable as V
from variable import backend

OPERATORS = {"&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
             ">>": operator.rshift}
DATA = np.array([[0.5, -1.5, 2.0], [3.0, 0.25, -0.75]])


def _x():
    return V.Variable(DATA.copy())


@pytest.mark.parametrize("call", [
    lambda a: a.argsort(), lambda a: a.argsort(axis=0, stable=True), lambda a: a.argpartition(1),
    lambda a: a.nonzero(), lambda a: a.any(axis=1), lambda a: a.all(keepdims=True),
    lambda a: a.any(where=a > 0), lambda a: a.ravel().searchsorted(0.3),
    lambda a: a.nbytes, lambda a: a.itemsize, lambda a: a.tobytes(),
], ids=["argsort", "argsort-stable", "argpartition", "nonzero", "any", "all", "any-where",
        "searchsorted", "nbytes", "itemsize", "tobytes"])
def test_methods_without_gradient_answer_as_the_data_does(call):
    got, want = call(_x()), call(DATA)
    assert not isinstance(got, V.Variable)
    if isinstance(want, tuple):
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(backend.to_cpu(g), w)
    elif isinstance(want, bytes | int):
        assert got == want
    else:
        np.testing.assert_array_equal(backend.to_cpu(got), want)


def test_searchsorted_takes_a_variable_as_the_values():
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(x.searchsorted(V.Variable(np.array([2.5, 0.0]))), [2, 0])


def test_cumsum_is_numpys_method_recorded():
    x = _x()
    y = x.cumsum(axis=1)
    np.testing.assert_array_equal(y.data, DATA.cumsum(axis=1))
    (y * np.arange(6.0).reshape(2, 3)).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [[3.0, 3.0, 2.0], [12.0, 9.0, 5.0]])


def test_take_real_imag_conjugate_and_mT_are_recorded():
    x = _x()
    y = x.take([0, 2], axis=1).sum() + 2 * x.real.sum() + x.imag.sum() + x.conjugate()[0, 0] + x.mT[2, 1]
    y.backward()
    want = np.full((2, 3), 2.0)
    want[:, [0, 2]] += 1.0
    want[0, 0] += 1.0
    want[1, 2] += 1.0
    np.testing.assert_array_equal(x.grad.data, want)
    np.testing.assert_array_equal(x.imag.data, np.zeros((2, 3)))
    np.testing.assert_array_equal(x.mT.data, DATA.T)


def test_positive_and_round_are_recorded():
    x = _x()
    np.testing.assert_array_equal((+x).data, DATA)
    np.testing.assert_array_equal(round(x).data, np.round(DATA))
    np.testing.assert_array_equal(round(x, 1).data, np.round(DATA, 1))
    (+x * 3 + round(x)).sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.full((2, 3), 3.0))   # round's derivative is 0


@pytest.mark.parametrize("symbol, op", [("&", np.bitwise_and), ("|", np.bitwise_or), ("^", np.bitwise_xor),
                                        ("<<", np.left_shift), (">>", np.right_shift)])
def test_bitwise_operators_on_integer_data_give_plain_arrays(symbol, op, on_device):
    i, j = np.array([1, 6, 12]), np.array([3, 2, 1])
    di, dj = on_device(i), on_device(j)                  # (the other operand where the data is)
    apply = OPERATORS[symbol]
    got = [apply(V.Variable(di), dj), apply(di, V.Variable(dj)), apply(3, V.Variable(dj))]
    for g, want in zip(got, (op(i, j), op(i, j), op(3, j)), strict=True):
        assert not isinstance(g, V.Variable)
        np.testing.assert_array_equal(backend.to_cpu(g), want)
    np.testing.assert_array_equal(backend.to_cpu(~V.Variable(np.array([True, False]))), [False, True])


def test_bitwise_ufuncs_and_integer_functions_run_on_the_data(on_device):
    i = V.Variable(np.array([4, 6, 9]))
    np.testing.assert_array_equal(backend.to_cpu(np.gcd(i, 6)), [2, 6, 3])
    np.testing.assert_array_equal(backend.to_cpu(np.bitwise_and(i, 1)), [0, 0, 1])
    keys = (V.Variable(np.array([2.0, 1.0, 3.0])), on_device(np.zeros(3)))
    np.testing.assert_array_equal(backend.to_cpu(np.lexsort(keys)), [1, 0, 2])


@pytest.mark.parametrize("symbol", ["&", "|", "^", "<<", ">>"])
def test_bitwise_operators_refuse_float_data_naming_the_fix(symbol):
    message = rf"^{re.escape(symbol)} on a Variable: bitwise operators take integer"
    with pytest.raises(TypeError, match=message):
        OPERATORS[symbol](_x(), 1)


@pytest.mark.parametrize("name, fix", [
    ("sort", r"V\.sort"), ("partition", r"V\.partition"), ("fill", r"np\.full_like"), ("put", r"V\.where"),
    ("resize", r"V\.resize"), ("setfield", r"x\.data\.setfield"), ("byteswap", r"x\.data\.byteswap"),
    ("flat", r"x\.ravel\(\)"), ("to_device", r"x\.to_gpu\(\)"),
])
def test_in_place_methods_are_refused_with_the_functional_spelling(name, fix):
    x = _x()
    with pytest.raises(AttributeError, match=rf"no attribute '{name}'.*{fix}"):
        getattr(x, name)
    assert not hasattr(x, name)
    np.testing.assert_array_equal(x.data, DATA)


def test_any_and_all_refuse_out():
    with pytest.raises(TypeError, match=r"x\.all\(out=\.\.\.\)"):
        _x().all(out=np.zeros((), bool))
