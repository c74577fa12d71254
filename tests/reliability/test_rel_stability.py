"""Numerical stability at extreme inputs: +-1e3 and +-1e30, in float64 and float32.

For sigmoid, softplus, log_sigmoid, log_softmax, logsumexp, softmax_cross_entropy,
sigmoid_cross_entropy, binary_cross_entropy (probabilities at and next to 0 and 1, each log
floored at -100 as in PyTorch) and
log_cosh_loss, each case checks, with every warning an error and NumPy's overflow,
divide-by-zero and invalid-value floating-point errors raised:

- the value against a scalar reference computed with the standard library's `math` in
  the stable branch of each formula (exact to double precision at these inputs);
- the gradient against its closed form;
- the second derivatives (grad of grad with create_graph=True) are finite.
"""

import math
import warnings

import numpy as np
import pytest

import function as F
import variable as V

DTYPES = [np.float64, np.float32]
TOL = {np.float64: 1e-12, np.float32: 2e-6}


def sigmoid(x):
    """1 / (1 + e^-x) in the branch where the exponential cannot overflow."""
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def softplus(x):
    """log(1 + e^x) = max(x, 0) + log1p(e^-|x|)."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def _shifted(row):
    """log(sum(e^(v - max))): logsumexp without its maximum, so nothing is absorbed by it."""
    m = max(row)
    return math.log(sum(math.exp(v - m) for v in row))


def logsumexp(row):
    return max(row) + _shifted(row)


def log_softmax(row):
    """(v - max) - log(sum(e^(v - max))), exact even when |max| dwarfs log n."""
    m, s = max(row), _shifted(row)
    return [(v - m) - s for v in row]


def softmax(row):
    return [math.exp(v) for v in log_softmax(row)]


def _strict():
    """Every warning an error, and NumPy's floating-point errors raised (underflow is fine)."""
    class Both:
        def __enter__(self):
            self.w = warnings.catch_warnings()
            self.w.__enter__()
            warnings.simplefilter("error")
            self.e = np.errstate(over="raise", divide="raise", invalid="raise")
            self.e.__enter__()

        def __exit__(self, *exc):
            self.e.__exit__(*exc)
            return self.w.__exit__(*exc)
    return Both()


def _value_grad_second(f, *arrays, wrt=0, constant=()):
    """f(*xs), d sum(f) / d xs[wrt], and the gradient of sum(that gradient) (create_graph).

    Arguments at the positions in `constant` stay ndarrays (targets are usually constants).
    """
    xs = [a if i in constant else V.Variable(a) for i, a in enumerate(arrays)]
    with _strict():
        y = f(*xs)
        g = V.grad(V.sum(y), xs[wrt], create_graph=True)
        g2 = V.grad(V.sum(g), xs[wrt], allow_unused=True)
    return y, g, g2


def _check(y, g, g2, value, grad, dtype):
    assert y.dtype == dtype and g.dtype == dtype
    assert np.all(np.isfinite(y.data)), y.data
    assert np.all(np.isfinite(g.data)), g.data
    assert g2 is None or np.all(np.isfinite(g2.data)), g2.data
    rtol = TOL[dtype]
    tiny = float(np.finfo(dtype).tiny)        # values below the dtype's range underflow to 0
    np.testing.assert_allclose(y.data, np.asarray(value, np.float64), rtol=rtol, atol=tiny)
    # a backward such as sigmoid's y (1 - y) is exact to eps relative to the gradient's scale,
    # not to each entry (sigmoid'(30) in float32 is 0, not 9e-14, in every framework)
    grad = np.asarray(grad, np.float64)
    scale = float(np.finfo(dtype).eps) * max(1.0, float(np.max(np.abs(grad), initial=0)))
    np.testing.assert_allclose(g.data, grad, rtol=rtol, atol=scale)


EXTREMES = [-1e30, -1e3, -700.0, -80.0, -30.0, 0.0, 30.0, 80.0, 700.0, 1e3, 1e30]


@pytest.mark.parametrize("dtype", DTYPES)
def test_sigmoid(dtype):
    x = np.array(EXTREMES, dtype=dtype)
    y, g, g2 = _value_grad_second(F.sigmoid, x)
    expected = [sigmoid(float(v)) for v in x]
    _check(y, g, g2, expected, [s * (1 - s) for s in expected], dtype)
    # the left tail keeps its relative precision: sigmoid(x) = e^x there
    tail = -700.0 if dtype == np.float64 else -80.0
    np.testing.assert_allclose(F.sigmoid(np.array(tail, dtype)).data, math.exp(tail), rtol=TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_softplus(dtype):
    x = np.array(EXTREMES, dtype=dtype)
    y, g, g2 = _value_grad_second(F.softplus, x)
    _check(y, g, g2, [softplus(float(v)) for v in x], [sigmoid(float(v)) for v in x], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_log_sigmoid(dtype):
    x = np.array(EXTREMES, dtype=dtype)
    y, g, g2 = _value_grad_second(F.log_sigmoid, x)
    _check(y, g, g2, [-softplus(-float(v)) for v in x], [sigmoid(-float(v)) for v in x], dtype)
    # the right tail keeps its relative precision: log sigmoid(x) = -e^-x there
    tail = 700.0 if dtype == np.float64 else 80.0
    np.testing.assert_allclose(F.log_sigmoid(np.array(tail, dtype)).data, -math.exp(-tail), rtol=TOL[dtype])


ROWS = [[1e30, 0.0, -1e30], [1e3, -1e3, 0.0], [-1e3, -1e3, -1e3], [1e30, 1e30, 1e30], [-1e30, -1e30, 5.0]]


@pytest.mark.parametrize("dtype", DTYPES)
def test_log_softmax(dtype):
    x = np.array(ROWS, dtype=dtype)
    rows = [[float(v) for v in r] for r in x]
    y, g, g2 = _value_grad_second(F.log_softmax, x)
    expected = [log_softmax(r) for r in rows]
    grad = [[1 - len(r) * p for p in softmax(r)] for r in rows]       # d sum(log_softmax) = 1 - n softmax
    _check(y, g, g2, expected, grad, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_logsumexp_value_and_finite_derivatives(dtype):
    x = np.array(ROWS, dtype=dtype)
    rows = [[float(v) for v in r] for r in x]
    y, g, g2 = _value_grad_second(lambda v: V.logsumexp(v, axis=1), x)
    _check(y, g, g2, [logsumexp(r) for r in rows], g.data, dtype)      # the gradient: below


@pytest.mark.parametrize("dtype", DTYPES)
def test_logsumexp_gradient_is_the_softmax(dtype):
    x = np.array(ROWS, dtype=dtype)
    rows = [[float(v) for v in r] for r in x]
    y, g, g2 = _value_grad_second(lambda v: V.logsumexp(v, axis=1), x)
    _check(y, g, g2, [logsumexp(r) for r in rows], [softmax(r) for r in rows], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_cross_entropy(dtype):
    x = np.array(ROWS, dtype=dtype)
    rows = [[float(v) for v in r] for r in x]
    labels = np.array([2, 1, 0, 2, 0])          # the wrong class at +-1e30 and +-1e3 included
    y, g, g2 = _value_grad_second(lambda v: F.softmax_cross_entropy(v, labels), x)
    n = len(rows)
    loss = -sum(log_softmax(r)[t] for r, t in zip(rows, labels)) / n
    grad = [[(p - (j == t)) / n for j, p in enumerate(softmax(r))] for r, t in zip(rows, labels)]
    _check(y, g, g2, loss, grad, dtype)
    probabilities = np.full(x.shape, 1 / 3, dtype)     # the probability-target form, too
    y, g, g2 = _value_grad_second(lambda v: F.softmax_cross_entropy(v, probabilities), x)
    loss = -sum(sum(log_softmax(r)) / 3 for r in rows) / n
    _check(y, g, g2, loss, [[(p - 1 / 3) / n for p in softmax(r)] for r in rows], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sigmoid_cross_entropy(dtype):
    x = np.array([1e30, 1e30, -1e30, -1e30, 1e3, 1e3, -1e3, -1e3, 0.0], dtype=dtype)
    t = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0.5], dtype=dtype)
    n = x.size
    y, g, g2 = _value_grad_second(F.sigmoid_cross_entropy, x, t, constant=(1,))
    loss = sum(softplus(float(a)) - float(a) * float(b) for a, b in zip(x, t)) / n
    _check(y, g, g2, loss, [(sigmoid(float(a)) - float(b)) / n for a, b in zip(x, t)], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_cross_entropy(dtype):
    eps = float(np.finfo(dtype).eps)
    tiny = 1e-40 if dtype == np.float64 else 1e-15     # above the floor; 1/p^2 stays finite
    below = 1e-150 if dtype == np.float64 else 1e-45   # log p < -100: floored
    p = np.array([0.0, 1.0, tiny, 1 - eps, 0.5, tiny, 1 - eps, 0.0, 1.0, below], dtype=dtype)
    t = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0], dtype=dtype)
    n = p.size
    y, g, g2 = _value_grad_second(F.binary_cross_entropy, p, t, constant=(1,))

    def floored_log(v):                          # PyTorch's floor: log 0 counts as -100
        return max(math.log(v), -100.0) if v > 0 else -100.0

    def term(a, b):
        return -(b * floored_log(a) + (1 - b) * floored_log(1 - a))

    def slope(a, b):                             # a floored log is a constant: slope 0
        return ((-b / a) if floored_log(a) > -100 else 0.0) + \
            (((1 - b) / (1 - a)) if floored_log(1 - a) > -100 else 0.0)

    pairs = [(float(a), float(b)) for a, b in zip(p, t)]
    _check(y, g, g2, sum(term(a, b) for a, b in pairs) / n, [slope(a, b) / n for a, b in pairs], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_log_cosh_loss(dtype):
    d = np.array([1e30, -1e30, 1e3, -1e3, 30.0, 0.0], dtype=dtype)
    t = np.zeros_like(d)
    n = d.size
    y, g, g2 = _value_grad_second(F.log_cosh_loss, d, t, constant=(1,))
    loss = sum(abs(v) + math.log1p(math.exp(-2 * abs(v))) - math.log(2) for v in map(float, d)) / n
    _check(y, g, g2, loss, [math.tanh(float(v)) / n for v in d], dtype)
    y, g, g2 = _value_grad_second(F.log_cosh_loss, d, t, wrt=1)      # and with respect to the target
    _check(y, g, g2, loss, [-math.tanh(float(v)) / n for v in d], dtype)


def test_the_strict_context_does_catch_an_overflow():
    """The checks above would see an overflow: the context turns it into an error."""
    with pytest.raises(FloatingPointError), _strict():
        np.exp(np.array(1e3))
    with pytest.raises(RuntimeWarning), _strict():
        warnings.warn("a warning", RuntimeWarning, stacklevel=1)
