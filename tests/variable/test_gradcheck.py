"""The gradient checker checks: it fails on wrong backwards, at the order they are wrong."""

import numpy as np
import pytest

import function as F
import variable as V


class Cube(V.Forwarder):
    """x ** 3 with a correct backward made of graph ops."""

    def forward(self, x):
        return x ** 3

    def backward(self, gy):
        x, = self.inputs
        return 3 * x ** 2 * gy


class WrongCube(Cube):
    """First-order wrong: 2 x^2 instead of 3 x^2."""

    def backward(self, gy):
        x, = self.inputs
        return 2 * x ** 2 * gy


class RawArrayCube(Cube):
    """Right value, but 3 x^2 is a fresh leaf, so its derivative in x is lost."""

    def backward(self, gy):
        x, = self.inputs
        return 3 * x.detach() ** 2 * gy     # (with x.data, the engine refuses it at once)


class DetachedGyCube(Cube):
    """Right value and right x-derivative, but the gradient's link to gy is cut."""

    def backward(self, gy):
        x, = self.inputs
        return 3 * x ** 2 * gy.detach()


class SquaredGyCube(Cube):
    """Nonlinear in the incoming gradient: gy * gy instead of gy."""

    def backward(self, gy):
        x, = self.inputs
        return 3 * x ** 2 * gy * gy


class WrongSecondInputMul(V.Forwarder):
    """x0 * x1 whose gradient for x1 has the wrong sign."""

    def forward(self, x0, x1):
        return x0 * x1

    def backward(self, gy):
        x0, x1 = self.inputs
        return gy * x1, -gy * x0


def apply(forwarder_cls):
    """The op `x -> Function(forwarder_cls())(x)` as a plain function."""
    return lambda *xs: V.Function(forwarder_cls())(*xs)


X = np.array([[0.5, -1.2, 2.0], [1.5, -0.3, 0.8]])


def test_correct_backward_passes_to_third_order():
    assert V.gradcheck(apply(Cube), X, order=3)


def test_wrong_first_order_backward_fails():
    with pytest.raises(V.GradcheckError, match="order 1, input 0"):
        V.gradcheck(apply(WrongCube), X)


def test_wrong_gradient_of_second_input_names_it():
    with pytest.raises(V.GradcheckError, match="order 1, input 1"):
        V.gradcheck(apply(WrongSecondInputMul), X, X[::-1])


def test_raw_array_backward_is_right_at_first_order_only():
    assert V.gradcheck(apply(RawArrayCube), X, order=1)
    with pytest.raises(V.GradcheckError, match="order 2, input 0"):
        V.gradcheck(apply(RawArrayCube), X, order=2)


def test_order_two_checks_the_derivative_in_the_incoming_gradient():
    # The gradient function at order 2 is (x, u) -> grad(<f(x), u>, x): input 1 is u.
    assert V.gradcheck(apply(DetachedGyCube), X, order=1)
    with pytest.raises(V.GradcheckError, match="order 2, input 1"):
        V.gradcheck(apply(DetachedGyCube), X, order=2)


def test_backward_nonlinear_in_the_incoming_gradient_fails():
    with pytest.raises(V.GradcheckError):
        V.gradcheck(apply(SquaredGyCube), X, order=2)


@pytest.mark.parametrize("broken, order, where", [
    (WrongCube, 1, "order 1, input 0"), (RawArrayCube, 2, "order 2, input 0"),
    (DetachedGyCube, 2, "order 2, input 1"), (SquaredGyCube, 2, "order 1, input 0"),
])
def test_entrywise_checks_fail_the_same_wrong_backwards_at_the_same_order(broken, order, where):
    assert V.gradcheck(apply(Cube), X, order=3, entrywise=True)
    with pytest.raises(V.GradcheckError, match=where):
        V.gradcheck(apply(broken), X, order=order, entrywise=True)
    with pytest.raises(V.GradcheckError, match="order 1, input 1"):
        V.gradcheck(apply(WrongSecondInputMul), X, X[::-1], entrywise=True)


def test_entrywise_calls_f_twice_per_input_and_order_not_twice_per_entry():
    calls = []

    def f(x, y):
        calls.append(1)
        return V.sin(x) * V.exp(y)
    for entrywise in (False, True):
        calls.clear()
        assert V.gradcheck(f, X, X[::-1], order=3, entrywise=entrywise)
        counted = len(calls)
        if not entrywise:
            full = counted
    # orders 1, 2, 3 check 2, 3 and 5 inputs (the points, then the incoming gradients), each of 6
    # entries: 2 * 6 * (2 + 3 + 5) differences, entrywise 2 * (2 + 3 + 5) and 2 per order along a
    # direction; and one analytic pass per order
    assert full - 3 == 2 * 6 * (2 + 3 + 5) and counted - 3 == 2 * (2 + 3 + 5) + 2 * 3


def test_entrywise_moves_entry_by_entry_the_inputs_that_broadcast():
    y = np.array([0.3, -0.7, 1.1])          # broadcast along X's rows: each entry feeds two outputs
    assert V.gradcheck(lambda a, b: V.sin(a) * V.exp(b), X, y, order=3, entrywise=True)
    with pytest.raises(V.GradcheckError, match="order 1, input 1"):
        V.gradcheck(lambda a, b: V.sin(a) * apply(WrongCube)(b), X, y, entrywise=True)


@pytest.mark.parametrize("f", [lambda a: V.cumsum(a, axis=1), lambda a: a * V.sum(a), lambda a: V.flip(a, 1),
                               lambda a: F.softmax(a, axis=1)])   # (a newcomer's slip)
def test_entrywise_refuses_an_f_that_is_not(f):
    assert V.gradcheck(f, X, order=2)
    with pytest.raises(V.GradcheckError, match=r"order 1: f is not entrywise \(gradcheck's entrywise=True\)"
                                                r".*check it without entrywise=True"):
        V.gradcheck(f, X, order=2, entrywise=True)


def test_entrywise_must_be_a_bool():
    with pytest.raises(TypeError, match="gradcheck: entrywise must be True or False, got 'yes'"):
        V.gradcheck(V.sin, X, entrywise="yes")


@pytest.mark.parametrize("keyword, fix", [
    ("fast_mode", "entrywise=True"), ("raise_exception", "GradcheckError"),
    ("check_forward_ad", r"V\.taylorcheck"), ("inputs", "positionally")])
def test_pytorchs_keywords_are_refused_naming_what_stands_for_them(keyword, fix):
    torchs = rf"gradcheck: {keyword}= is torch\.autograd\.gradcheck's keyword"
    with pytest.raises(TypeError, match=rf"{torchs}.*{fix}"):
        V.gradcheck(V.sin, X, **{keyword: True})


def test_an_unknown_keyword_is_refused_naming_the_ones_it_takes():
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'tol'; "
                                        r"it takes order, eps, rtol, atol, seed and entrywise"):
        V.gradcheck(V.sin, X, tol=1e-3)


def test_order_must_be_a_positive_int():
    with pytest.raises(ValueError, match="order"):
        V.gradcheck(apply(Cube), X, order=0)


def test_function_must_return_variables():
    with pytest.raises(TypeError, match="gradcheck"):
        V.gradcheck(lambda x: x.data, X)


def test_multiple_outputs_and_integer_inputs():
    # Integer inputs are held constant; every output's derivative is checked.
    k = np.array([1, 2, 3])
    assert V.gradcheck(lambda x, k: (V.sin(x) * k, V.exp(x).sum_to(())), X, k, order=2)


def test_accepts_variables_and_numbers():
    assert V.gradcheck(lambda x, y: x * V.cos(y), V.Variable(X), 0.7, order=2)


def test_numerical_grad_of_one_input_is_an_array():
    g = V.numerical_grad(V.sin, X)
    assert isinstance(g, np.ndarray)
    np.testing.assert_allclose(g, np.cos(X), rtol=1e-6)


def test_numerical_grad_sums_outputs_and_returns_one_array_per_input():
    # d/dx sum(x^2 y) = 2 x y,  d/dy sum(x^2 y) = sum over rows of x^2 (y broadcasts)
    y = np.array([0.5, -2.0, 1.5])
    gx, gy = V.numerical_grad(lambda x, y: x * x * y, X, y)
    np.testing.assert_allclose(gx, 2 * X * y, rtol=1e-6)
    np.testing.assert_allclose(gy, (X ** 2).sum(axis=0), rtol=1e-6)


def test_numerical_grad_of_scalar_input():
    np.testing.assert_allclose(V.numerical_grad(lambda x: x ** 3, 2.0), 12.0, rtol=1e-6)


class _Spy(V.Forwarder):
    """Identity that records the incoming gradients its backward receives."""

    seen = []

    def forward(self, x):
        return x.copy()

    def backward(self, gy):
        _Spy.seen.append(gy.data.copy())
        return gy

    def taylor(self, x):
        if isinstance(x[1], np.ndarray):             # the direction along t (not V.jacobian's
            _Spy.seen.append(x[1].copy())            # unit directions, all at once)
        return [c.copy() for c in x]


@pytest.mark.parametrize("seed", [0, 7])
def test_checkers_draw_from_a_stream_apart_from_the_users(seed):
    # a test point drawn from default_rng(seed) must not come back as the incoming gradient
    # (for a scale-invariant op, u = x hides a wrong second-order backward)
    x = np.random.default_rng(seed).standard_normal((2, 3))
    _Spy.seen.clear()
    assert V.gradcheck(lambda v: V.Function(_Spy())(v), x, seed=seed)
    assert _Spy.seen
    for u in _Spy.seen:
        assert not np.allclose(u, x)
    v_user = np.random.default_rng(seed).standard_normal(x.shape)
    _Spy.seen.clear()
    assert V.taylorcheck(lambda v: V.Function(_Spy())(v), x, order=1, seed=seed)
    assert _Spy.seen
    for u in _Spy.seen:
        assert not np.allclose(u, v_user)
