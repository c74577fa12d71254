"""A collapsed pass's scaled first-order coefficients (variable/directions.py: Scaled,
ScaledProduct): tanh's (1 - y^2) x_1 is left unmade, and the next layer's matrix product
scales its rows a block at a time.  Checked against the product made in full, in every
block layout, as an op (gradients to order 3, its Taylor rule), and in whole passes, with
and without a graph, where the scaled coefficients reach other ops too."""

import numpy as np
import pytest

import variable as V
from variable import directions
from variable.directions import Scaled, ScaledProduct, scaled_product


def full(z, s, w):
    """(z * s) @ w made in full."""
    return np.matmul(z * s, w)


def data(rng, count, n, k, m, broadcast=False, dtype=np.float64):
    z = rng.standard_normal((count, 1 if broadcast else n, k)).astype(dtype)
    return z, rng.standard_normal((n, k)).astype(dtype), rng.standard_normal((k, m)).astype(dtype)


@pytest.mark.parametrize("count, n, k, m, block", [
    (4, 5, 3, 2, None),               # one block, a product too small to split
    (7, 96, 64, 64, 1 << 17),         # two directions a block (256 rows), the last alone
    (3, 300, 64, 16, 1 << 16),        # 128 rows a block within a direction, 44 left over
    (2, 300, 8, 100, 1 << 13),        # n = 100 columns: products not split
])
@pytest.mark.parametrize("broadcast", [False, True])
def test_block_by_block_equals_the_product_made_in_full(rng, monkeypatch, count, n, k, m, block, broadcast):
    if block is not None:
        monkeypatch.setattr(directions, "_SCALED_BYTES", block)
    z, s, w = data(rng, count, n, k, m, broadcast)
    got = scaled_product(z, s, w)
    assert got.shape == (count, n, m)
    np.testing.assert_allclose(got, full(z, s, w), rtol=1e-12, atol=1e-12)


def test_float32_stays_float32(rng, monkeypatch):
    monkeypatch.setattr(directions, "_SCALED_BYTES", 1 << 15)
    z, s, w = data(rng, 5, 200, 32, 24, dtype=np.float32)
    got = scaled_product(z, s, w)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, full(z, s, w), rtol=1e-5, atol=1e-5)


def test_float32_with_weights_of_several_values(rng, monkeypatch):
    monkeypatch.setattr(directions, "_SCALED_BYTES", 1 << 15)
    z, s, w = data(rng, 5, 64, 32, 24, dtype=np.float32)
    weights = np.array([1.0, 0.5, 2.0, 0.25, 3.0])
    out, square = scaled_product(z, s, w, weights)
    assert out.dtype == square.dtype == np.float32
    expected = full(z, s, w).astype(np.float64)
    np.testing.assert_allclose(square, np.einsum("i,i...,i...->...", weights, expected, expected), rtol=1e-5)


def scaled_op(z, s, w):
    return V.Function(ScaledProduct())(z, s, w)


@pytest.mark.parametrize("broadcast", [False, True])
def test_the_op_passes_gradcheck_to_order_3(rng, broadcast):
    # trilinear: central differences are exact up to round-off at every order
    assert V.gradcheck(scaled_op, *data(rng, 3, 4, 3, 2, broadcast), order=3)


def test_the_op_taylor_rule_matches_reverse_mode(rng):
    assert V.taylorcheck(scaled_op, *data(rng, 3, 4, 3, 2), order=3)


def tanh_net(rng, d, width=8):
    Ws = [V.Variable(rng.standard_normal((d, width)) / np.sqrt(d)),
          V.Variable(rng.standard_normal(width) / 4),
          V.Variable(rng.standard_normal((width, width)) / np.sqrt(width)),
          V.Variable(rng.standard_normal((width, 1)) / np.sqrt(width))]

    def u(x):
        h = V.tanh(x @ Ws[0] + Ws[1])
        h = V.tanh(h @ Ws[2])
        return (h @ Ws[3])[:, 0]
    return u, Ws


@pytest.fixture
def products(monkeypatch):
    """Counts the scaled products made: [on arrays, recorded]."""
    made = [0, 0]
    kernel = directions.scaled_product
    forward = ScaledProduct.forward

    def counted(*args):
        made[0] += 1
        return kernel(*args)

    def recorded(self, z, s, w):
        made[1] += 1
        return forward(self, z, s, w)
    monkeypatch.setattr(directions, "scaled_product", counted)
    monkeypatch.setattr(ScaledProduct, "forward", recorded)
    return made


def unfused(monkeypatch):
    """From here on a Scaled is always made in full (the pass as it was before)."""
    monkeypatch.setattr(Scaled, "times", lambda self, b: None)


KINDS = {                                            # what else V.laplacian is asked
    "exact": lambda d: {},
    "weighted": lambda d: {"weights": np.linspace(0.5, 2.0, d)},      # a square weighted per direction
    "sampled": lambda d: {"samples": 3, "rng": np.random.default_rng(7)},   # weights 1/3
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("block", [None, 1 << 12])   # (1 << 12: 64 rows, blocks within directions)
def test_a_pass_takes_the_fused_product_and_agrees_with_the_unfused_one(
        rng, monkeypatch, products, no_fallback, block, kind):
    if block is not None:
        monkeypatch.setattr(directions, "_SCALED_BYTES", block)
    d, n = 5, 300
    u, Ws = tanh_net(rng, d)
    x = rng.uniform(-1, 1, (n, d))
    target = rng.standard_normal(n)
    squares = []                                     # sums over the directions of whole arrays
    contracted = directions._contracted

    def counted(a, b, weights):
        squares.append(np.shape(a))
        return contracted(a, b, weights)
    monkeypatch.setattr(directions, "_contracted", counted)

    def value():
        squares.clear()
        with V.no_grad():
            return V.laplacian(u, x, **KINDS[kind](d)).data, len(squares)
    bare, fused_squares = value()
    assert products == [1, 0]                        # the second layer's, on arrays (the last
    lap = V.laplacian(u, x, **KINDS[kind](d))        # tanh's first order is not wanted)
    assert products[1] == 1                          # recorded, to the weights
    grads = V.grad(V.mean((lap - target) ** 2), Ws)
    unfused(monkeypatch)
    before = list(products)
    unfused_bare, unfused_squares = value()
    expected = V.laplacian(u, x, **KINDS[kind](d))
    assert products == before
    if block is None and V.backend.get_array_module(Ws[0].data) is np:
        assert unfused_squares == fused_squares + 1   # the product's square made as it went
    np.testing.assert_allclose(bare, unfused_bare, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lap.data, expected.data, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bare, expected.data, rtol=1e-12, atol=1e-12)
    for got, want in zip(grads, V.grad(V.mean((expected - target) ** 2), Ws)):
        np.testing.assert_allclose(got.data, want.data, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("weights", [None, np.array([1.0, 0.5, 2.0, 0.25, 1.0, 3.0, 1.5]), np.full(7, 0.25)])
def test_the_square_made_with_the_product(rng, monkeypatch, weights):
    z, s, w = data(rng, 7, 96, 64, 64)
    monkeypatch.setattr(directions, "_SCALED_BYTES", 1 << 17)   # two directions a block
    out, square = scaled_product(z, s, w, np.ones(7) if weights is None else weights)
    expected = full(z, s, w)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    weighted = np.ones(7) if weights is None else weights
    np.testing.assert_allclose(square, np.einsum("i,i...,i...->...", weighted, expected, expected),
                               rtol=1e-12, atol=1e-12)


@pytest.fixture
def no_fallback(monkeypatch):
    """Fails a test whose pass runs a rule once per direction (forward_mode._each_direction):
    a Scaled must take every operation a plain coefficient of several directions takes."""
    from variable import forward_mode

    def refuse(f, *args, **kwargs):
        raise AssertionError(f"{f.name}'s rule ran once per direction")
    monkeypatch.setattr(forward_mode, "_each_direction", refuse)


def row_trace(u, x):
    """The Laplacian at each row of x as the trace of its Hessian (nested reverse mode)."""
    def at(row):
        return np.trace(V.backend.to_cpu(V.hessian(lambda p: V.sum(u(V.reshape(p, (1, -1)))), row).data))
    return np.array([at(row) for row in x])


@pytest.mark.parametrize("after", [
    lambda h, W: V.sin(h) @ W,                       # read by another pointwise op: made
    lambda h, W: (h * 2.0) @ W,                      # scaled again by a constant: made
    lambda h, W: V.tanh(h) @ W,                      # a tanh of a tanh: the factors multiplied
    lambda h, W: h[:, :3] @ W[:3],                   # indexed
    lambda h, W: V.sum(h, axis=1, keepdims=True) * (h @ W),
])
def test_scaled_coefficients_read_by_any_op_give_the_hessians_trace(rng, on_device, no_fallback, after):
    d = 3
    W0, W1 = on_device((rng.standard_normal((d, 5)), rng.standard_normal((5, 1))))

    def u(x):
        return after(V.tanh(x @ W0), W1)[:, 0]
    x = rng.uniform(-1, 1, (4, d))
    got = V.backend.to_cpu(V.laplacian(u, x).data)
    np.testing.assert_allclose(got, row_trace(u, x), rtol=1e-10, atol=1e-12)


def test_a_float32_weighted_pass_runs_fused_with_no_fallback(rng, on_device, products, no_fallback):
    d = 4
    Ws = on_device([rng.standard_normal(shape).astype(np.float32) / 2 for shape in ((d, 8), (8, 8), (8, 1))])

    def u(x):
        return (V.tanh(V.tanh(x @ Ws[0]) @ Ws[1]) @ Ws[2])[:, 0]
    x = rng.uniform(-1, 1, (300, d)).astype(np.float32)
    c = np.array([1.0, 0.5, 2.0, 0.25])
    lap = V.laplacian(u, x, weights=c)
    assert lap.dtype == np.float32 and products == [1, 0]
    expected = V.laplacian(u, x.astype(np.float64), weights=c)            # (float64 throughout)
    np.testing.assert_allclose(lap.data, expected.data, rtol=2e-4, atol=1e-4)
