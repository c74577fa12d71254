"""jacobian, hessian and hvp against closed forms."""

import numpy as np
import pytest
from variable_checks import normal as _normal

import variable as V


def _diag_tensor(values):
    """T[i..., j...] = values[i...] when i == j else 0, of shape values.shape * 2."""
    n = values.size
    return (np.eye(n) * values.ravel()).reshape(values.shape + values.shape)


# ----- jacobian ----------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_jacobian_of_elementwise_sin_is_diag_cos(shape):
    x = _normal(shape)
    J = V.jacobian(V.sin, x)
    assert J.shape == shape + shape
    np.testing.assert_allclose(J.data, _diag_tensor(np.cos(x)), rtol=1e-12, atol=1e-15)


def test_jacobian_of_a_linear_map_is_its_matrix(on_device):
    W = on_device(_normal((3, 4)))
    J = V.jacobian(lambda x: V.matmul(W, x), _normal((4,), seed=1))
    np.testing.assert_allclose(J.data, W, rtol=1e-15)


def test_jacobian_of_a_reduction_of_a_matrix():
    """f(x) = sum(x^2, axis=0) for x of shape (2, 3): J[k, i, j] = 2 x[i, j] delta_jk."""
    x = _normal((2, 3))
    J = V.jacobian(lambda v: V.sum(v * v, axis=0), x)
    assert J.shape == (3, 2, 3)
    expected = np.zeros((3, 2, 3))
    for k, i in np.ndindex(3, 2):
        expected[k, i, k] = 2 * x[i, k]
    np.testing.assert_allclose(J.data, expected, rtol=1e-12)


def test_jacobian_of_a_matrix_valued_function_of_a_matrix(on_device):
    """f(X) = X @ A: J[i, k, p, q] = delta_ip A[q, k]."""
    A = _normal((3, 2), seed=1)
    A_data = on_device(A)                       # where the data is (A stays for the reference)
    J = V.jacobian(lambda X: X @ A_data, _normal((4, 3)))
    assert J.shape == (4, 2, 4, 3)
    np.testing.assert_allclose(J.data, np.einsum("ip,qk->ikpq", np.eye(4), A), rtol=1e-15)


def test_jacobian_of_a_constant_function_is_zero():
    J = V.jacobian(lambda x: V.Variable(np.ones(2), requires_grad=False), _normal((3,)))
    assert J.shape == (2, 3)
    np.testing.assert_allclose(J.data, np.zeros((2, 3)))


def test_jacobian_with_create_graph_is_differentiable():
    """J of x^3 is diag(3 x^2); the sum of J differentiates to 6 x."""
    x = V.Variable(_normal((3,)))
    J = V.jacobian(lambda v: v ** 3, x, create_graph=True)
    np.testing.assert_allclose(J.data, np.diag(3 * x.data ** 2), rtol=1e-12)
    V.sum(J).backward()
    np.testing.assert_allclose(x.grad.data, 6 * x.data, rtol=1e-12)


def test_jacobian_rows_match_gradcheck_numerics():
    f = lambda x: V.logsumexp(V.stack([x, x * x, V.sin(x)]), axis=0)
    x = _normal((3,))
    J = V.jacobian(f, x).data
    for i in range(3):
        row = V.numerical_grad(lambda v, i=i: f(v)[i], x)
        np.testing.assert_allclose(J[i], row, rtol=1e-6, atol=1e-8)


def test_jacobian_runs_f_once():
    # the forward pass follows the graph f(x) made (tall Jacobians), as reverse mode does (wide
    # ones); f running a forward pass of its own is run again, and refused as before
    calls = []

    def f(x, w=None):
        calls.append(1)
        return V.tanh(x) * V.sum(x ** 2) if w is None else V.concat([V.sin(x) * w[0], w ** 3])
    x = _normal((3,))
    for jacobian in (lambda: V.jacobian(f, x), lambda: V.jacobian(lambda v: V.sum(f(v)), x),
                     lambda: V.jacobian(f, (x[:2], x))):
        calls.clear()
        J = jacobian()
        assert len(calls) == 1
    np.testing.assert_allclose(J[0].data, np.concatenate([np.diag(np.cos(x[:2]) * x[0]), np.zeros((3, 2))]),
                               rtol=1e-13)
    np.testing.assert_allclose(J[1].data[2:], np.diag(3 * x ** 2), rtol=1e-13)
    calls.clear()
    with pytest.raises(ValueError, match=r"jvp was called inside the function given to V\.jacobian"):
        V.jacobian(lambda v: f(v) * V.jvp(V.sin, v, np.ones(3))[1], x)
    assert len(calls) == 2


def test_jacobian_of_float32_stays_float32():
    J = V.jacobian(V.tanh, _normal((3,), dtype=np.float32))
    assert J.dtype == np.float32


# ----- hessian -----------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_hessian_of_sum_of_cubes_is_diag_6x(shape):
    x = _normal(shape)
    H = V.hessian(lambda v: V.sum(v ** 3), x)
    assert H.shape == shape + shape
    np.testing.assert_allclose(H.data, _diag_tensor(6 * x), rtol=1e-12, atol=1e-15)


def test_hessian_of_a_quadratic_form_is_A_plus_A_T(on_device):
    A = on_device(_normal((4, 4), seed=1))      # not symmetric
    # V.matmul(A, x), not A @ x: with A a GPU array, `@` would be the GPU array's own operator
    H = V.hessian(lambda x: x @ V.matmul(A, x), _normal((4,)))
    np.testing.assert_allclose(H.data, A + A.T, rtol=1e-12, atol=1e-14)


def test_hessian_of_a_matrix_quadratic_form(on_device):
    """f(X) = sum(X * (A @ X)) for X of shape (3, 2): H[i, j, k, l] = (A + A^T)[i, k] delta_jl."""
    A = _normal((3, 3), seed=1)
    A_data = on_device(A)                       # where the data is (A stays for the reference)
    H = V.hessian(lambda X: V.sum(X * V.matmul(A_data, X)), _normal((3, 2)))
    assert H.shape == (3, 2, 3, 2)
    np.testing.assert_allclose(H.data, np.einsum("ik,jl->ijkl", A + A.T, np.eye(2)), rtol=1e-12, atol=1e-14)


def test_hessian_of_logsumexp_is_diag_p_minus_p_p_T():
    x = _normal((5,))
    p = np.exp(x) / np.exp(x).sum()
    H = V.hessian(V.logsumexp, x)
    np.testing.assert_allclose(H.data, np.diag(p) - np.outer(p, p), rtol=1e-10, atol=1e-14)


def test_hessian_of_a_linear_function_is_zero():
    H = V.hessian(lambda x: V.sum(x * 2.0), _normal((3,)))
    np.testing.assert_allclose(H.data, np.zeros((3, 3)))


def test_hessian_equals_jacobian_of_the_gradient():
    f = lambda x: V.sum(V.tanh(x) * V.sin(x[::-1]))
    x = _normal((4,))
    H = V.hessian(f, x)
    J = V.jacobian(lambda v: V.grad(f(v), v, create_graph=True), x)
    np.testing.assert_allclose(H.data, J.data, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(H.data, H.data.T, rtol=1e-10, atol=1e-14)


# ----- hvp ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "f",
    [
        lambda x: V.sum(x ** 3),
        lambda x: V.logsumexp(x) * V.sum(V.sin(x)),
        lambda x: V.variance(V.tanh(x)),
    ],
    ids=["cubes", "lse-times-sin", "variance-of-tanh"],
)
@pytest.mark.parametrize("shape", [(5,), (2, 3)])
def test_hvp_equals_hessian_times_v(f, shape, on_device):
    x, v = _normal(shape), on_device(_normal(shape, seed=1))
    n = int(np.prod(shape))
    H = V.hessian(f, x).data.reshape(n, n)
    hv = V.hvp(f, x, v)
    assert hv.shape == shape
    np.testing.assert_allclose(hv.data.ravel(), H @ v.ravel(), rtol=1e-10, atol=1e-12)


def test_hvp_of_a_quadratic_form(on_device):
    A = on_device(_normal((4, 4), seed=1))
    x, v = _normal((4,)), on_device(_normal((4,), seed=2))
    np.testing.assert_allclose(V.hvp(lambda z: z @ V.matmul(A, z), x, v).data, (A + A.T) @ v, rtol=1e-12)


def test_hvp_of_a_linear_function_is_zero():
    np.testing.assert_allclose(V.hvp(lambda x: V.sum(3.0 * x), _normal((3,)), np.ones(3)).data, np.zeros(3))


# ----- bad input ---------------------------------------------------------------------

def test_hessian_of_a_non_scalar_function():
    with pytest.raises(ValueError) as error:
        V.hessian(V.sin, _normal((3,)))
    assert str(error.value).startswith("hessian:") and "(3,)" in str(error.value)


def test_hvp_with_a_mismatched_vector():
    with pytest.raises(ValueError) as error:
        V.hvp(lambda x: V.sum(x * x), _normal((3,)), np.ones(4))
    assert str(error.value).startswith("hvp:") and "(4,)" in str(error.value) and "(3,)" in str(error.value)


def test_hvp_unpacked_as_torchs_pair_is_refused_and_other_unpackings_are_not():
    cube = lambda x: V.sum(x ** 3)  # noqa: E731
    x, v = np.array([1.0, 2.0]), np.array([1.0, 0.0])
    with pytest.raises(TypeError, match=r"hvp: its result is unpacked into two names"):
        _, hv = V.hvp(cube, x, v)                    # torch.autograd.functional.hvp's (f(x), hvp)
    hv = V.hvp(cube, x, v)                           # the product, named once
    np.testing.assert_allclose(hv.data, [6.0, 0.0])
    first, second = hv                                # its rows, unpacked apart from the call
    assert (first.item(), second.item()) == (6.0, 0.0)
    a, b, c = V.hvp(cube, np.ones(3), np.ones(3))     # three rows: no pair to mistake it for
    hx, hy = V.hvp(lambda p, q: V.sum(p * q * q), (x, x), (v, v))   # a tuple x: one per point
    np.testing.assert_allclose(hx.data, [2.0, 0.0])
    assert a.item() == b.item() == c.item() == 6.0 and hy.shape == (2,)


def test_hvp_of_a_non_scalar_function():
    with pytest.raises(ValueError) as error:
        V.hvp(V.sin, _normal((3,)), np.ones(3))
    assert str(error.value).startswith("hvp:")


def test_jacobian_of_a_function_returning_an_array():
    with pytest.raises(TypeError) as error:
        V.jacobian(lambda x: np.sin(x.data), _normal((3,)))
    assert str(error.value).startswith("jacobian:")


@pytest.mark.parametrize("op", [V.jacobian, V.hessian])
def test_integer_point(op):
    with pytest.raises(ValueError) as error:
        op(lambda x: V.sum(x), np.arange(3))
    assert "floating point" in str(error.value)


# ----- several inputs: a tuple point, as for V.jvp --------------------------------------
def _two_inputs(x, y):
    return V.sum(V.sin(x)) * V.sum(y ** 2) + V.sum(x[:2] * y[0])


def _flat_hessian(a, b):
    def flat(z):
        return _two_inputs(z[:3], V.reshape(z[3:], (2, 2)))
    return V.backend.to_cpu(V.hessian(flat, np.concatenate([a, b.ravel()])).data)


def test_hessian_of_a_tuple_gives_every_block(rng):
    a, b = rng.standard_normal(3), rng.standard_normal((2, 2))
    H = V.hessian(_two_inputs, (a, b))
    flat = _flat_hessian(a, b)
    blocks = [[flat[:3, :3], flat[:3, 3:]], [flat[3:, :3], flat[3:, 3:]]]
    for i in range(2):
        for j in range(2):
            got = V.backend.to_cpu(H[i][j].data)
            assert got.shape == (a.shape, b.shape)[i] + (a.shape, b.shape)[j]
            np.testing.assert_allclose(got.reshape(blocks[i][j].shape), blocks[i][j], rtol=1e-12, atol=1e-14)


def test_jacobian_and_hvp_of_a_tuple(rng):
    a, b = rng.standard_normal(3), rng.standard_normal((2, 2))
    Ja, Jb = V.jacobian(lambda x, y: V.sin(x) * V.sum(y), (a, b))
    np.testing.assert_allclose(V.backend.to_cpu(Ja.data), np.diag(np.cos(a)) * b.sum(), rtol=1e-12)
    np.testing.assert_allclose(V.backend.to_cpu(Jb.data), np.sin(a)[:, None, None] * np.ones((3, 2, 2)),
                               rtol=1e-12)
    va, vb = rng.standard_normal(3), rng.standard_normal((2, 2))
    expected = _flat_hessian(a, b) @ np.concatenate([va, vb.ravel()])
    ha, hb = V.hvp(_two_inputs, (a, b), (va, vb))
    np.testing.assert_allclose(V.backend.to_cpu(ha.data), expected[:3], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(V.backend.to_cpu(hb.data).ravel(), expected[3:], rtol=1e-12, atol=1e-14)
    # an input f does not use gets zeros, as for a single x
    Ja, Jc = V.jacobian(lambda x, y: V.sin(x), (a, b))
    assert not V.backend.to_cpu(Jc.data).any() and Jc.shape == (3, 2, 2)


def test_tuple_slips_are_refused():
    with pytest.raises(TypeError, match=r"hvp: x is a tuple of 2 arrays, so v must be a tuple of as many"):
        V.hvp(_two_inputs, (np.ones(3), np.ones((2, 2))), np.ones(3))
    with pytest.raises(ValueError, match=r"jacobian: x is an empty tuple"):
        V.jacobian(lambda: V.Variable(1.0), ())
    x = V.Variable(np.ones(3))
    with pytest.raises(ValueError, match=r"the same Variable appears twice"):
        V.hessian(lambda a, b: V.sum(a * b), (x, x))


def _pair_energy(x):
    """A Lennard-Jones-like energy of particles at the rows of x.reshape(-1, 2): its gradient's
    graph holds Accumulate (a slice used twice) and ScatterSum (slices scattered back)."""
    p = V.reshape(x, (-1, 2))
    i, j = np.triu_indices(p.shape[0], 1)
    r2 = V.sum((p[i] - p[j]) ** 2, axis=1) + 1.0
    return V.sum(r2 ** -2 - V.tanh(p[i][:, 0]) * r2)


def _third_by_nested_reverse(f, x):
    """d^3 f / dx_i dx_j dx_k by three nested V.grad calls, one backward per (i, j)."""
    xv = V.Variable(x)
    g = V.grad(f(xv), xv, create_graph=True)
    third = np.empty((x.size,) * 3)
    for i in range(x.size):
        gi = V.grad(g[i], xv, create_graph=True)
        for j in range(x.size):
            third[i, j] = V.backend.to_cpu(V.grad(gi[j], xv, materialize_grads=True).data)
    return third


def test_a_third_order_tensor_as_the_jacobian_of_a_recorded_hessian(rng, monkeypatch):
    # V.jacobian pushes its directions through V.hessian(create_graph=True), which runs its
    # own recorded forward pass inside (forward over forward over reverse): no backward per
    # row anywhere, and the tensor of nested reverse mode
    x = rng.standard_normal(8)
    expected = _third_by_nested_reverse(_pair_energy, x)
    from variable import functional
    monkeypatch.setattr(functional, "_rows", lambda *a: pytest.fail("a backward per row was taken"))
    third = V.jacobian(lambda v: V.hessian(_pair_energy, v, create_graph=True), x)
    np.testing.assert_allclose(third.data, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(third.data, third.data.transpose(1, 0, 2), rtol=1e-12, atol=1e-12)


def test_a_hessian_inside_a_taylor_pass_records_or_the_inner_derivative_is_refused(rng):
    x, v = rng.standard_normal(6), rng.standard_normal(6)
    # the directional derivative of the Hessian's trace: recorded inside, so it is right
    d = V.jvp(lambda p: V.trace(V.hessian(_pair_energy, p, create_graph=True)), x, v)[1]
    eps = 1e-5
    numeric = (np.trace(V.hessian(_pair_energy, x + eps * v).data)
               - np.trace(V.hessian(_pair_energy, x - eps * v).data)) / (2 * eps)
    np.testing.assert_allclose(d.data, numeric, rtol=1e-6)
    # without create_graph the inner derivatives would be constants: still refused
    with pytest.raises(ValueError, match=r"^jvp was called inside the function given to V\.jvp"):
        V.jvp(lambda p: V.jvp(_pair_energy, p, v)[1], x, v)
