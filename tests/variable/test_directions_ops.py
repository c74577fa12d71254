"""Ops whose Taylor rules take coefficients of several directions directly (variable/directions.py),
never the engine's fallback that runs a rule once per direction (forward_mode._each_direction):
the batched pass and the collapsed one, on arrays, recorded and on a device, against one pass
per direction."""


import numpy as np
import pytest

import function as F
import variable as V
from variable import backend, forward_mode
from variable.forward_mode import collapsed

_rng = np.random.default_rng(7)
A = _rng.standard_normal((3, 3)) + 3 * np.eye(3)
A2 = _rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
B = _rng.standard_normal(3)
T = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
Y = _rng.standard_normal(6)
W = _rng.standard_normal((2, 2, 2, 2))
C = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 2.0]])
GAMMA, BETA = _rng.standard_normal(4), _rng.standard_normal(4)
WEIGHTS = np.array([0.75, -1.5, 2.0])


def _square(*shape):
    return lambda rng: (rng.standard_normal(shape) + 3 * np.eye(shape[-1]),)


def _normal(*shapes):
    return lambda rng: tuple(rng.standard_normal(s) for s in shapes)


def _with_zero(rng):
    x = rng.standard_normal((3, 4))
    x[1, 2] = 0.0                                   # a product exact at a zero entry
    return (x,)


# name: (fn of c, the constants' mover to where the data lives -> f; a sample of f's inputs)
CASES = {
    "prod over an axis": (lambda c: lambda x: V.prod(x, axis=1), _normal((3, 4))),
    "prod over every axis": (lambda c: lambda x: V.prod(x), _normal((2, 3))),
    "prod over two axes, keepdims": (lambda c: lambda x: V.prod(x, axis=(0, 2), keepdims=True),
                                     _normal((2, 3, 3))),
    "prod with a zero entry": (lambda c: lambda x: V.prod(V.sin(x), axis=1), _with_zero),
    "prod over an empty axis": (lambda c: lambda x: V.prod(x, axis=1) * V.sum(x * x), _normal((2, 0))),
    "cumprod along an axis": (lambda c: lambda x: V.cumprod(x, axis=1), _normal((3, 5))),
    "cumprod flattened": (lambda c: lambda x: V.cumprod(V.sin(x)), _normal((2, 3))),
    "diag of a vector": (lambda c: lambda x: V.tanh(V.diag(V.sin(x), 1)), _normal((3,))),
    "layer_norm": (lambda c: lambda x: V.tanh(F.layer_norm(V.sin(x), c(GAMMA), c(BETA))), _normal((2, 4))),
    "batch_norm": (lambda c: lambda x: F.batch_norm(V.sin(x) * x, c(GAMMA[:3]), c(BETA[:3])),
                   _normal((4, 3))),
    "det": (lambda c: lambda a: V.linalg.det(a), _square(3, 3)),
    "det of a stack": (lambda c: lambda a: V.linalg.det(a), _square(2, 3, 3)),
    "slogdet": (lambda c: lambda a: V.linalg.slogdet(a).logabsdet, _square(2, 3, 3)),
    "solve, the matrix varies": (lambda c: lambda a: V.linalg.solve(a, c(B)), _square(3, 3)),
    "solve, the vector varies": (lambda c: lambda b: V.tanh(V.linalg.solve(c(A), V.sin(b))),
                                 _normal((3,))),
    "solve, the columns vary": (lambda c: lambda b: V.tanh(V.linalg.solve(c(A), V.sin(b))),
                                _normal((3, 2))),
    "solve, a stack of matrices": (lambda c: lambda b: V.tanh(V.linalg.solve(c(A2), V.sin(b))),
                                   _normal((3,))),
    "solve, both vary": (lambda c: lambda a, b: V.linalg.solve(a, b * b),
                         lambda rng: (*_square(2, 3, 3)(rng), rng.standard_normal((2, 3, 2)))),
    "im2col": (lambda c: lambda x: V.tanh(F.im2col(V.sin(x), 2, 1, 1)), _normal((1, 2, 3, 3))),
    "im2col strided, as a matrix": (lambda c: lambda x: V.tanh(F.im2col(V.sin(x), 2, 2, 1, to_matrix=True)),
                                    _normal((2, 1, 3, 3))),
    "col2im": (lambda c: lambda col: V.tanh(F.col2im(V.sin(col), (1, 2, 3, 3), 2, 1, 1)),
               _normal((1, 2, 2, 2, 4, 4))),
    "conv2d": (lambda c: lambda x: V.tanh(F.conv2d(V.sin(x), c(W), pad=1)), _normal((1, 2, 3, 3))),
    "max pooling (a -inf pad)": (lambda c: lambda x: F.pooling(V.sin(x) * x, 2, 1, 1), _normal((1, 1, 3, 3))),
    "power, base and exponent vary": (lambda c: lambda x: (x * x + 1) ** V.sin(x), _normal((2, 3))),
    "power, a constant exponent of whole numbers": (lambda c: lambda x: V.sin(x) ** c(C), _normal((2, 3))),
    "power of two inputs": (lambda c: lambda a, b: a ** b,
                            lambda rng: (rng.uniform(0.5, 2.0, (2, 3)), rng.standard_normal((2, 3)))),
    "roll flattened": (lambda c: lambda x: V.tanh(V.roll(V.sin(x), 2)), _normal((2, 3))),
    "roll flattened, a negative shift": (lambda c: lambda x: V.roll(V.sin(x) * x, -4), _normal((2, 2, 3))),
    "roll along an axis": (lambda c: lambda x: V.tanh(V.roll(V.sin(x), 1, axis=1)), _normal((2, 3))),
    "hinge_loss": (lambda c: lambda x: V.tanh(F.hinge_loss(V.sin(x), c(T))), _normal((6,))),
    "mean_absolute_error": (lambda c: lambda x: V.tanh(F.mean_absolute_error(V.sin(x), c(Y))), _normal((6,))),
    "mean_absolute_error, both vary": (lambda c: lambda a, b: F.mean_absolute_error(a * a, V.sin(b)),
                                       _normal((6,), (6,))),
}
"""PowVar (but for a constant exponent of whole numbers) and roll along an axis took Directions
already: kept here so that they keep doing so."""

EMPTY = {"prod over an empty axis"}
"""Cases whose input has no entries, so no gradient to compare."""


@pytest.fixture
def no_fallback(monkeypatch):
    """The engine's once-per-direction fallback made an error: a rule must take Directions."""
    def refuse(f, xs, outputs, order, record):
        raise AssertionError(f"{f.name}'s Taylor rule fell back to one run per direction")
    monkeypatch.setattr(forward_mode, "_each_direction", refuse)


def _host(y):
    return np.asarray(backend.to_cpu(y.data))


@pytest.mark.parametrize("order", [2, 3])
@pytest.mark.parametrize("name", list(CASES))
def test_batched_and_collapsed_equal_one_pass_per_direction(name, order, rng, no_fallback, directions_check,
                                                            on_device):
    # V.taylor(batched=True) along 3 directions against 3 single passes; the collapsed pass
    # against the weighted sum of their second derivatives, on arrays and recorded (a
    # gradient of the result), and along every unit direction against nested reverse mode
    make, sample = CASES[name]
    directions_check(make(on_device), *sample(rng), order=order)   # (constants where the data is)


def _along(name, rng, move):
    fn = CASES[name][0](move)
    xs = CASES[name][1](rng)
    vs = tuple(rng.standard_normal((3, *x.shape)) for x in xs)
    if len(xs) == 1:
        return fn, xs[0], vs[0], lambda d: vs[0][d]
    return fn, xs, vs, lambda d: tuple(v[d] for v in vs)


@pytest.mark.parametrize("name", [n for n in CASES if n not in EMPTY])
def test_recorded_collapsed_pass_has_the_gradient_of_the_single_passes(name, rng, no_fallback, on_device):
    # the coefficients are Variables here (taylor_records): sum_d w_d grad <g, D^2_{v_d} f>
    fn, x, v, direction = _along(name, rng, on_device)
    several = isinstance(x, tuple)
    starts = [V.Variable(p.copy(), requires_grad=True) for p in (x if several else (x,))]
    at = tuple(starts) if several else starts[0]
    total = collapsed(fn, at, v, WEIGHTS, "test")
    assert total.creator is not None, "the collapsed pass recorded no graph"
    g = on_device(np.random.default_rng(2).standard_normal(total.shape))
    got = V.grad(V.sum(total * g), starts)
    expected = [np.zeros(s.shape) for s in starts]
    for d, w in enumerate(WEIGHTS):
        second = V.taylor(fn, at, direction(d), 2)[2]
        for e, gd in zip(expected, V.grad(V.sum(second * g), starts)):
            e += w * _host(gd)
    assert any(np.any(e != 0) for e in expected), "a case whose gradient is zero tests nothing"
    for a, e in zip(got, expected):
        np.testing.assert_allclose(_host(a), e, rtol=1e-9, atol=1e-12)


def test_an_op_without_a_recording_rule_still_refuses_a_gradient_naming_the_op(rng, no_fallback, cube_op):
    Cube = cube_op
    # its rule takes Directions (no fallback) and runs on arrays: the value is right, a
    # gradient through it is refused
    x, v = rng.standard_normal((2, 3)), rng.standard_normal((3, 2, 3))
    start = V.Variable(x.copy(), requires_grad=True)
    total = collapsed(lambda a: V.tanh(Cube.apply(V.sin(a))), start, v, WEIGHTS, "test")
    expected = collapsed(lambda a: V.tanh(V.sin(a) ** 3), x, v, WEIGHTS, "test")
    np.testing.assert_allclose(total.data, expected.data, rtol=1e-12)
    with pytest.raises(ValueError, match=r"the op Cube on its path.*set taylor_records = True on Cube"):
        V.grad(V.sum(total), start)




@pytest.mark.parametrize("name", list(CASES))
def test_on_a_device_with_no_more_host_syncs_than_one_direction(name, rng, gpu, count_syncs, no_fallback):
    # the handlers take the data's array module: device data stays there, no host round trip
    fn = CASES[name][0](backend.to_gpu)
    xs = CASES[name][1](rng)
    vs = tuple(rng.standard_normal((3, *x.shape)) for x in xs)
    one = len(xs) == 1
    x = backend.to_gpu(xs[0]) if one else tuple(backend.to_gpu(p) for p in xs)
    v = backend.to_gpu(vs[0]) if one else tuple(backend.to_gpu(s) for s in vs)
    with count_syncs() as single_syncs:
        singles = [V.taylor(fn, x, v[d] if one else tuple(s[d] for s in v), 3) for d in range(3)]
    with count_syncs() as batched_syncs:
        batched = V.taylor(fn, x, v, 3, batched=True)
        total = collapsed(fn, x, v, WEIGHTS, "test")
    assert 3 * batched_syncs.count <= 2 * single_syncs.count, getattr(batched_syncs, "where", "")
    for k in range(1, 4):
        assert isinstance(batched[k].data, gpu.ndarray)
        np.testing.assert_allclose(_host(batched[k]), np.stack([_host(s[k]) for s in singles]),
                                   rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(_host(total), sum(w * _host(s[2]) for w, s in zip(WEIGHTS, singles)),
                               rtol=1e-10, atol=1e-10)
