"""Taylor rules that record (`taylor_records`): prod, cumprod, diag, slogdet and the
normalisation of layer_norm/batch_norm run on Variables in a recording pass, so reverse mode
through V.taylor's derivatives (a Laplacian in a loss) equals nested reverse mode; on arrays
they keep their fast path.  (Several directions at once, plain and collapsed, recorded too:
tests/variable/test_directions_ops.py.)"""

import numpy as np
import pytest

import function as F
import variable as V
from variable import Function
from variable.backend import to_cpu
from variable.ops.products import Cumprod


def _with_zero(rng):
    x = rng.standard_normal((3, 4))
    x[1, 2] = 0.0                                   # a product exact at a zero entry
    return (x,)


def _normal(*shapes):
    return lambda rng: tuple(rng.standard_normal(s) for s in shapes)


def _square(*shape):
    return lambda rng: (rng.standard_normal(shape) + 3 * np.eye(shape[-1]),)


def _negative_det(rng):
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    a[:, 0] *= -1                                    # sign -1: log |det| of a negative det
    return (a,)


# name: (f, a sample of its inputs)
CASES = {
    "prod over an axis": (lambda x: V.prod(x, axis=1), _normal((3, 4))),
    "prod over every axis": (lambda x: V.prod(x), _normal((2, 3))),
    "prod over two axes, keepdims": (lambda x: V.prod(x, axis=(0, 2), keepdims=True), _normal((2, 3, 3))),
    "prod with a zero entry": (lambda x: V.prod(V.sin(x), axis=1), _with_zero),
    "prod over an empty axis": (lambda x, y: V.prod(x, axis=1) * y, _normal((2, 0), (2,))),
    "cumprod along an axis": (lambda x: V.cumprod(x, axis=1), _normal((3, 5))),
    "cumprod flattened": (lambda x: V.cumprod(V.sin(x)), _normal((2, 3))),
    "cumprod with a zero entry": (lambda x: V.cumprod(x, axis=1), _with_zero),
    "cumprod from the end (Prod's backward)": (lambda x: Function(Cumprod(1, reverse=True))(x),
                                               _normal((2, 5))),
    "diag of a vector": (lambda x: V.diag(x), _normal((3,))),
    "diag above": (lambda x: V.tanh(V.diag(V.sin(x), 1)), _normal((3,))),
    "diag below": (lambda x: V.diag(x, -2) * x[0], _normal((2,))),
    "slogdet": (lambda a: V.linalg.slogdet(a).logabsdet, _square(2, 3, 3)),
    "slogdet, a negative det, both outputs": (lambda a: V.linalg.slogdet(a), _negative_det),
    "slogdet's sign times a product": (lambda a: V.linalg.slogdet(a).sign * V.linalg.det(a), _square(3, 3)),
    "layer_norm": (lambda x: F.layer_norm(x, np.full(4, 1.5), np.zeros(4)), _normal((3, 4))),
    "layer_norm, gamma and beta vary": (lambda x, g, b: F.layer_norm(V.tanh(x), g, b, eps=1e-3),
                                        _normal((2, 5), (5,), (5,))),
    "batch_norm": (lambda x: F.batch_norm(x, np.full(3, 2.0), np.ones(3)), _normal((4, 3))),
    "batch_norm of images": (lambda x: F.batch_norm(V.sin(x), np.full(2, 0.5), np.ones(2)),
                             _normal((2, 2, 2, 3))),
    # a gradient inside f: its graph holds the engine's own ops, Accumulate (x[i] used twice)
    # and ScatterSum (the slices x[i] and x[j] scattered back into x's gradient)
    "a gradient of pairs (Accumulate, ScatterSum)": (lambda x: _gradient_of_pairs(x), _normal((4,))),
    "a gradient of pairs, rows": (lambda x: _gradient_of_pairs(V.sin(x)), _normal((3, 2))),
}


def _gradient_of_pairs(x):
    """The gradient of sum over pairs i < j of (x_i - x_j)^2 tanh(x_i), recorded: an energy's
    force, the inner derivative of a Hessian or a third-order tensor."""
    i, j = np.triu_indices(x.shape[0], 1)
    xi = x[i]
    return V.grad(V.sum((xi - x[j]) ** 2 * V.tanh(xi)), x, create_graph=True)


def _premapped(f):
    """f with every input entering through x + x^2/100, so that the op's rule meets recorded
    coefficients (Variables) at every order, not only the seed's arrays."""
    return lambda *xs: f(*[x + 0.01 * x * x for x in xs])


@pytest.mark.parametrize("order", [2, 3])
@pytest.mark.parametrize("name", list(CASES))
def test_reverse_over_taylor_mode_matches_nested_reverse_mode(name, order, rng):
    # the gradient of <w, D_v^k f> by reverse mode through the recorded Taylor pass against
    # k nested V.grad calls (an op whose rule did not record fails, naming it)
    f, sample = CASES[name]
    xs = sample(rng)
    assert V.taylor_gradcheck(f, *xs, order=order)
    assert V.taylor_gradcheck(_premapped(f), *xs, order=order)


@pytest.mark.parametrize("name", list(CASES))
def test_a_recorded_pass_gives_the_numbers_of_a_pass_on_arrays(name, rng):
    # the same derivatives whether the rules ran on Variables (inputs that require grad) or
    # on arrays (the fast path, no graph)
    f, sample = CASES[name]
    xs = sample(rng)
    vs = tuple(rng.standard_normal(x.shape) for x in xs)
    plain = V.taylor(f, xs, vs, 3)
    starts = tuple(V.Variable(x.copy(), requires_grad=True) for x in xs)
    recorded = V.taylor(f, starts, vs, 3)
    for k in (1, 2, 3):
        for a, b in zip(*[d if isinstance(d, tuple) else (d,) for d in (plain[k], recorded[k])]):
            assert a.creator is None
            np.testing.assert_allclose(b.data, a.data, rtol=1e-12, atol=1e-12)


# name: (f(x, W) with W a parameter, x's shape, W's shape)
TRAINED = {
    "prod": (lambda x, W: V.prod(V.tanh(x * W), axis=-1), (3, 4), (4,)),
    "cumprod": (lambda x, W: V.cumprod(x * W, axis=1), (2, 4), (4,)),
    "diag": (lambda x, W: V.diag(V.sin(x * W[:4]), 1) @ W, (4,), (5,)),
    "slogdet": (lambda x, W: V.linalg.slogdet(x @ W + 3 * np.eye(3)).logabsdet, (3, 3), (3, 3)),
    "layer_norm": (lambda x, W: F.layer_norm(V.tanh(x @ W), np.full(4, 1.5), np.full(4, 0.5)),
                   (3, 2), (2, 4)),
    "batch_norm": (lambda x, W: F.batch_norm(V.tanh(x @ W), np.full(4, 1.5), np.full(4, 0.5)),
                   (5, 2), (2, 4)),
}


def _nested_second(f, x, v, W):
    """D_v^2 f(x) by two nested V.grad calls through t in f(x + t v), weighted by `weights`."""
    t = V.Variable(np.array(0.0))
    y = f(V.Variable(x) + t * v, W)

    def along(weights):
        d1 = V.grad(V.sum(y * weights), t, create_graph=True)
        return V.grad(d1, t, create_graph=True)
    return along


@pytest.mark.parametrize("name", list(TRAINED))
def test_gradient_of_a_second_derivative_in_a_parameter_matches_nested_reverse_mode(name, rng):
    # a loss on V.taylor(...)[2] of a function of a trained W: its gradient in W
    f, x_shape, w_shape = TRAINED[name]
    x, v = rng.standard_normal(x_shape), rng.standard_normal(x_shape)
    W = V.Variable(rng.standard_normal(w_shape) / 2, name="W")
    d2 = V.taylor(lambda p: f(p, W), x, v, 2)[2]
    weights = rng.standard_normal(d2.shape)
    got = V.grad(V.sum(d2 * weights), W)
    nested = _nested_second(f, x, v, W)(weights)
    np.testing.assert_allclose(V.sum(d2 * weights).data, nested.data, rtol=1e-10, atol=1e-12)
    expected = V.grad(nested, W)
    assert np.any(expected.data != 0), "a gradient of zero tests nothing"
    np.testing.assert_allclose(got.data, expected.data, rtol=1e-9, atol=1e-12)


D = 3


def layer_norm_mlp(rng, d=D, width=5):
    """A small network R^d -> R on rows with layer_norm between its layers, and its weights."""
    Ws = [V.Variable(rng.standard_normal((d, width)) / 2, name="W0"),
          V.Variable(rng.standard_normal(width) / 2, name="b0"),
          V.Variable(1 + rng.standard_normal(width) / 4, name="gamma"),
          V.Variable(rng.standard_normal(width) / 4, name="beta"),
          V.Variable(rng.standard_normal((width, 1)) / 2, name="W1")]

    def u(x):
        h = V.tanh(x @ Ws[0] + Ws[1])
        h = V.tanh(F.layer_norm(h, Ws[2], Ws[3]))
        return V.reshape(h @ Ws[4], (-1,))
    return u, Ws


def product_net(rng, d=D, width=4):
    """A network whose last layer multiplies its units (prod), after a cumprod of them."""
    Ws = [V.Variable(rng.standard_normal((d, width)) / 2, name="W0"),
          V.Variable(rng.standard_normal(width) / 2, name="b0")]

    def u(x):
        h = V.tanh(x @ Ws[0] + Ws[1]) + 1.5
        return V.prod(V.cumprod(h, axis=-1), axis=-1)
    return u, Ws


@pytest.mark.parametrize("network", [layer_norm_mlp, product_net])
def test_gradient_of_a_laplacian_loss_matches_nested_reverse_mode(network, rng):
    # a PINN's step, mean((lap u - f)^2), differentiated by the weights: the collapsed
    # Taylor pass recorded through layer_norm (or prod and cumprod) against nested reverse mode
    u, Ws = network(rng)
    x = rng.uniform(-1, 1, (4, D))
    f = rng.standard_normal(4)
    lap = V.laplacian(u, x)
    got = V.grad(V.mean((lap - f) ** 2), Ws)
    X = V.Variable(x)
    g = V.grad(V.sum(u(X)), X, create_graph=True)
    nested = sum(V.grad(V.sum(g[:, i]), X, create_graph=True)[:, i] for i in range(D))
    np.testing.assert_allclose(lap.data, nested.data, rtol=1e-10, atol=1e-12)
    expected = V.grad(V.mean((nested - f) ** 2), Ws)
    for W, a, b in zip(Ws, got, expected):
        assert np.any(b.data != 0), f"{W.name}: a gradient of zero tests nothing"
        np.testing.assert_allclose(a.data, b.data, rtol=1e-9, atol=1e-12, err_msg=W.name)


def test_a_hessian_with_create_graph_is_one_recorded_forward_pass(rng, monkeypatch):
    # forward over reverse, recorded: the gradient's graph (Accumulate, ScatterSum) records
    # under the Taylor pass, so no backward per row is needed, and the result differentiates
    def energy(p):
        return V.sum(_gradient_of_pairs(p) ** 2) + V.sum(V.cos(p) * p)

    x = rng.standard_normal(5)
    by_rows = V.hessian(energy, x).data                    # (no graph: the plain pass)
    from variable import functional
    monkeypatch.setattr(functional, "_rows", lambda *a: pytest.fail("a backward per row was taken"))
    W = rng.standard_normal((5, 5))
    xv = V.Variable(x)
    H = V.hessian(energy, xv, create_graph=True)
    np.testing.assert_allclose(H.data, by_rows, rtol=1e-10, atol=1e-12)
    got = V.grad(V.sum(H * W), xv)                          # sum_ij W_ij d^3 E / dx_i dx_j dx_k
    eps = 1e-5
    numeric = np.array([(np.sum(to_cpu(V.hessian(energy, x + eps * e).data) * W)
                         - np.sum(to_cpu(V.hessian(energy, x - eps * e).data) * W)) / (2 * eps)
                        for e in np.eye(5)])
    np.testing.assert_allclose(to_cpu(got.data), numeric, rtol=1e-6, atol=1e-7)
