"""Samplers and small checks shared by the tests of the `function` package.

A sibling module: the test modules of tests/function import it by name (pytest puts
their folder on sys.path).
"""

import math

import numpy as np

import variable as V

erfc = np.vectorize(math.erfc, otypes=[np.float64])
"""The complementary error function of the standard library, elementwise: the oracle of
the exact GELU, x Phi(x) with Phi(x) = erfc(-x / sqrt 2) / 2."""


def away(rng, shape, kinks=(0.0,), low=-3.0, high=3.0, gap=0.2):
    """Uniform points in [low, high], each at least `gap` from every kink."""
    x = np.asarray(rng.uniform(low, high, shape))
    for _ in range(1000):
        bad = np.zeros(x.shape, dtype=bool)
        for k in kinks:
            bad |= np.abs(x - k) < gap
        if not bad.any():
            return x
        x = np.where(bad, rng.uniform(low, high, shape), x)
    raise RuntimeError("away: could not sample points away from the kinks")


def probabilities(rng, shape):
    """Rows (last axis) of positive probabilities summing to 1."""
    e = np.exp(rng.standard_normal(shape))
    return e / e.sum(axis=-1, keepdims=True)


def as_float32(values):
    """The float arrays of `values` cast to float32; other entries left alone."""
    return tuple(
        v.astype(np.float32) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v
        for v in values
    )


def float_inputs(values):
    """Variables for the float arrays of `values` (they require grad); others kept."""
    return [V.Variable(v) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v for v in values]


def grads(y, xs, create_graph=False):
    """Gradients of sum(y) with respect to the Variables `xs` (a tuple)."""
    return V.grad(y, list(xs), create_graph=create_graph, allow_unused=True)


def second_derivatives(f, xs, seed=1):
    """d/dx <grad <f(x), u>, v> for random u, v: a Hessian-vector product through f."""
    rng = np.random.default_rng(seed)
    xs = [V.Variable(x.copy()) for x in xs]
    y = f(*xs)
    u = rng.standard_normal(y.shape)
    gs = V.grad(y, xs, grad_outputs=u, create_graph=True, allow_unused=True)
    total = None
    for g in gs:
        if g is not None:
            term = V.sum(g * rng.standard_normal(g.shape))
            total = term if total is None else total + term
    out = V.grad(total, xs, allow_unused=True)
    return [np.zeros(x.shape) if g is None else g.data for x, g in zip(xs, out)]


def assert_same_derivatives(f, g, xs, rtol=1e-10, atol=1e-12):
    """`f` and `g` agree in value, gradient and second derivatives at the float64 point `xs`."""
    vf = [V.Variable(x.copy()) for x in xs]
    vg = [V.Variable(x.copy()) for x in xs]
    yf, yg = f(*vf), g(*vg)
    np.testing.assert_allclose(yf.data, yg.data, rtol=rtol, atol=atol)
    u = np.random.default_rng(2).standard_normal(yf.shape)
    for a, b in zip(V.grad(yf, vf, grad_outputs=u, allow_unused=True),
                    V.grad(yg, vg, grad_outputs=u, allow_unused=True)):
        if a is None or b is None:
            assert a is None and b is None
            continue
        np.testing.assert_allclose(a.data, b.data, rtol=rtol, atol=atol)
    for a, b in zip(second_derivatives(f, xs), second_derivatives(g, xs)):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
