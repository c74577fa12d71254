"""V.laplacian and V.divergence: exact against V.hessian / V.jacobian, trainable against
nested reverse mode, the estimator's mean against the exact value, and the slips refused."""

import numpy as np
import pytest

import function as F
import variable as V

D = 3


def mlp(rng, d=D, width=6, out=1):
    """A small tanh/softplus network R^d -> R^out on rows, and its weights (Variables)."""
    Ws = [V.Variable(rng.standard_normal((d, width)) / 2, name="W0"),
          V.Variable(rng.standard_normal(width), name="b0"),
          V.Variable(rng.standard_normal((width, width)) / 2, name="W1"),
          V.Variable(rng.standard_normal((width, out)) / 2, name="W2")]

    def u(x):
        h = V.tanh(x @ Ws[0] + Ws[1])
        h = F.softplus(h @ Ws[2]) * V.sin(h)
        return h @ Ws[3]
    return u, Ws


def row_hessians(u, x):
    """The Hessian of u at each row of x, by nested reverse mode (V.hessian)."""
    def at(row):
        return V.backend.to_cpu(V.hessian(lambda p: V.sum(u(V.reshape(p, (1, -1)))), row).data)
    return np.stack([at(row) for row in x])


def test_laplacian_is_the_trace_of_the_hessian(rng):
    u, _ = mlp(rng)
    x = rng.uniform(-1, 1, (5, D))
    expected = np.trace(row_hessians(u, x), axis1=1, axis2=2)
    np.testing.assert_allclose(V.laplacian(u, x).data, expected, rtol=1e-10, atol=1e-12)


def test_weighted_laplacian_of_an_anisotropic_operator(rng):
    u, _ = mlp(rng)
    x = rng.uniform(-1, 1, (4, D))
    c = np.array([2.0, -0.5, 0.25])
    H = row_hessians(u, x)
    expected = np.einsum("i,bii->b", c, H)
    np.testing.assert_allclose(V.laplacian(u, x, weights=c).data, expected, rtol=1e-10, atol=1e-12)


def test_points_of_any_batch_shape_and_a_single_point(rng):
    u, _ = mlp(rng)
    x = rng.uniform(-1, 1, (2, 3, D))
    lap = V.laplacian(u, x)
    assert lap.shape == (2, 3)
    flat = V.laplacian(u, x.reshape(6, D)).data
    np.testing.assert_allclose(lap.data.reshape(6), flat, rtol=1e-13)
    one = V.laplacian(lambda p: V.sum(p * p * p, axis=-1), np.array([1.0, 2.0, -1.0]))
    assert one.shape == () and float(one) == pytest.approx(6 * (1 + 2 - 1))


def test_gradient_of_a_laplacian_loss_matches_nested_reverse_mode(rng):
    # a PINN's step: the residual loss mean((lap u - f)^2), differentiated by the weights
    u, Ws = mlp(rng)
    x = rng.uniform(-1, 1, (6, D))
    f = rng.standard_normal(6)
    loss = V.mean((V.laplacian(u, x) - f) ** 2)
    got = V.grad(loss, Ws)
    X = V.Variable(x)
    g = V.grad(V.sum(u(X)), X, create_graph=True)
    nested = sum(V.grad(V.sum(g[:, i]), X, create_graph=True)[:, i] for i in range(D))
    expected = V.grad(V.mean((nested - f) ** 2), Ws)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a.data, b.data, rtol=1e-9, atol=1e-12)


def test_laplacian_passes_gradcheck_in_the_weights(rng):
    x = rng.uniform(-1, 1, (3, 2))

    def lap(W, b):
        return V.laplacian(lambda p: V.sum(V.tanh(p @ W + b) ** 2, axis=-1), x)
    assert V.gradcheck(lap, rng.standard_normal((2, 3)), rng.standard_normal(3), order=1)


def test_a_point_that_requires_grad_is_differentiated_through(rng):
    # d/dx of lap(x1^2 x2^2) = 2 x2^2 + 2 x1^2: its gradient is (4 x1, 4 x2)
    x = V.Variable(np.array([[0.5, -1.5]]))
    lap = V.laplacian(lambda p: (p[:, 0] * p[:, 1]) ** 2, x)
    np.testing.assert_allclose(lap.data, [2 * 1.5 ** 2 + 2 * 0.5 ** 2])
    np.testing.assert_allclose(V.grad(V.sum(lap), x).data, [[2.0, -6.0]])


@pytest.mark.parametrize("distribution", ["rademacher", "gaussian"])
def test_the_estimate_is_unbiased(rng, distribution):
    # H = [[2, 1, 0], [1, 6, 0], [0, 0, -2]] for f = x1^2 + x1 x2 + 3 x2^2 - x3^2: trace 6.
    # Rademacher's variance is 2 sum_{i != j} H_ij^2 = 4 per direction, Gaussian's
    # 2 ||H||_F^2 = 92; the mean of n directions is within 5 standard deviations
    def f(p):
        return p[:, 0] ** 2 + p[:, 0] * p[:, 1] + 3 * p[:, 1] ** 2 - p[:, 2] ** 2
    x = rng.standard_normal((50, 3))
    n = 400
    estimate = V.laplacian(f, x, samples=n, distribution=distribution, rng=np.random.default_rng(7)).data
    variance = 4.0 if distribution == "rademacher" else 92.0
    assert abs(estimate.mean() - 6.0) < 5 * np.sqrt(variance / (n * 50))
    assert float(np.std(estimate)) == pytest.approx(np.sqrt(variance / n), rel=0.3)   # each point's spread
    again = V.laplacian(f, x, samples=n, distribution=distribution, rng=np.random.default_rng(7)).data
    np.testing.assert_array_equal(estimate, again)                              # a seeded Generator


def test_a_diagonal_hessian_is_estimated_exactly_by_rademacher_directions(rng):
    u = lambda p: V.sum(V.sin(p), axis=-1)    # noqa: E731  (H is diagonal: v^T H v = tr H for v = +-1)
    x = rng.standard_normal((4, 5))
    np.testing.assert_allclose(V.laplacian(u, x, samples=3, rng=rng).data, -np.sin(x).sum(axis=1), rtol=1e-12)
    weighted = V.laplacian(u, x, weights=np.arange(5.0), samples=2, rng=rng).data
    np.testing.assert_allclose(weighted, -(np.sin(x) * np.arange(5.0)).sum(axis=1), rtol=1e-12)


def test_divergence_is_the_trace_of_the_jacobian(rng):
    A = V.Variable(rng.standard_normal((D, D)), name="A")
    field = lambda p: V.tanh(p @ A) * p          # noqa: E731
    x = rng.uniform(-1, 1, (4, D))
    expected = [np.trace(V.jacobian(lambda p: field(V.reshape(p, (1, D)))[0], row).data) for row in x]
    div = V.divergence(field, x)
    np.testing.assert_allclose(div.data, expected, rtol=1e-10, atol=1e-12)
    # trainable in A, as nested reverse mode has it
    X = V.Variable(x)
    nested = sum(V.grad(V.sum(field(X)[:, i]), X, create_graph=True)[:, i] for i in range(D))
    expected_grad = V.grad(V.sum(nested ** 2), A).data
    np.testing.assert_allclose(V.grad(V.sum(div ** 2), A).data, expected_grad, rtol=1e-10)
    estimate = V.divergence(field, x, samples=4000, rng=np.random.default_rng(3))
    np.testing.assert_allclose(estimate.data, expected, atol=0.1)


class RowProduct(V.Forwarder):
    """p[..., 0] * p[..., 1], with a Taylor rule that does not say it records (taylor_records False)."""

    def forward(self, p):
        return p[..., 0] * p[..., 1]

    def backward(self, gy):
        p, = self.inputs
        return V.stack([gy * p[..., 1], gy * p[..., 0]], axis=-1)

    def taylor(self, p):
        return V.series.mul([c[..., 0] for c in p], [c[..., 1] for c in p])   # a Cauchy product


def test_an_op_without_a_recording_rule_gives_a_laplacian_whose_gradient_is_refused(rng):
    W = V.Variable(rng.standard_normal((2, 2)), name="W")
    x = rng.standard_normal((3, 2))
    lap = V.laplacian(lambda p: RowProduct.apply(p @ W), x)   # the value is right: 2 W0 . W1 per row
    np.testing.assert_allclose(lap.data, np.full(3, float(2 * W.data[:, 0] @ W.data[:, 1])), rtol=1e-12)
    with pytest.raises(ValueError, match=r"the op RowProduct on its path.*set taylor_records = True on "
                                         r"RowProduct.*'W'"):
        V.grad(V.sum(lap), W)


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (lambda: V.laplacian(lambda p: p, np.ones((4, 2))), ValueError,
         r"laplacian: f must map each row .* to a value, so return shape \(n,\) or \(n, 1\); "
         r"given your 4 points \(shape \(4, 2\)\) it returned shape \(4, 2\)"),
        (lambda: V.laplacian(lambda p: V.sum(p, axis=-1), np.ones(())), ValueError, r"shape \(\.\.\., d\)"),
        (lambda: V.laplacian(lambda p: V.sum(p, axis=-1), np.ones((2, 3)), weights=np.ones(2)), ValueError,
         r"weights must have shape \(d,\) = \(3,\)"),
        (lambda: V.laplacian(lambda p: V.sum(p, axis=-1), np.ones((2, 3)), weights=-np.ones(3), samples=2),
         ValueError, r"with samples, weights must be >= 0"),
        (lambda: V.laplacian(lambda p: V.sum(p, axis=-1), np.ones((2, 3)), samples=0), ValueError,
         r"samples must be a positive int"),
        (lambda: V.laplacian(lambda p: V.sum(p, axis=-1), np.ones((2, 3)), samples=2, distribution="normal"),
         ValueError, r"'rademacher' or 'gaussian'"),
        (lambda: V.laplacian(lambda p: V.sum(p, axis=-1), np.ones((2, 3)), samples=2, rng=3), TypeError,
         r"rng must be a numpy.random.Generator"),
        (lambda: V.laplacian(lambda p: V.sum(p, axis=-1), np.arange(6).reshape(2, 3)), TypeError,
         r"must be floating point"),
        (lambda: V.laplacian(3, np.ones((2, 3))), TypeError, r"f must be callable"),
        (lambda: V.laplacian(lambda p: None, np.ones((2, 3))), TypeError,
         r"^laplacian: f must return a Variable, got NoneType: did it forget `return`\?"),
        (lambda: V.divergence(lambda p: (p,), np.ones((2, 3))), TypeError,
         r"^divergence: f must return a Variable, got tuple"),
        (lambda: V.divergence(lambda p: V.sum(p, axis=-1), np.ones((2, 3))), ValueError,
         r"divergence: f must map each row .* to a vector of R\^d"),
    ],
)
def test_slips_are_refused_naming_the_fix(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_batch_norm_in_training_is_refused_and_in_test_mode_gives_the_hessians_trace(rng, on_device):
    import layers as L
    model = L.Sequential(L.Linear(6), L.BatchNorm(), V.tanh, L.Linear(1))
    x = on_device(rng.uniform(-1, 1, (5, D)))
    model(x)
    bn = model[1]
    running = V.backend.to_cpu(bn.avg_mean).copy()
    with pytest.raises(ValueError, match="rows depend on each other"):
        V.laplacian(model, x)
    with pytest.raises(ValueError, match="V.divergence"):
        V.divergence(lambda p: model(p) * p, x)
    np.testing.assert_array_equal(V.backend.to_cpu(bn.avg_mean), running)   # refused before updating
    with V.test_mode():
        got = V.backend.to_cpu(V.laplacian(model, x).data)
        np.testing.assert_allclose(got, np.trace(row_hessians(model, x), axis1=1, axis2=2),
                                   rtol=1e-10, atol=1e-12)
