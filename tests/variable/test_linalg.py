"""matmul and transpose_matmul beyond the table: explicit gradients, `@`, bad input."""

import numpy as np
import pytest
from variable_checks import assert_message as _assert_message
from variable_checks import normal as _normal

import variable as V

# (shape a, shape b, einsum of the product, einsum of grad a from (gy, b), of grad b from (a, gy))
CASES = [
    ((3,), (3,), "i,i->", ",i->i", "i,->i"),
    ((3,), (3, 4), "i,ik->k", "k,ik->i", "i,k->ik"),
    ((2, 3), (3,), "ij,j->i", "i,j->ij", "ij,i->j"),
    ((2, 3), (3, 4), "ij,jk->ik", "ik,jk->ij", "ij,ik->jk"),
    ((5, 2, 3), (3, 4), "bij,jk->bik", "bik,jk->bij", "bij,bik->jk"),
    ((2, 1, 2, 3), (3, 3, 4), "pxij,qjk->pqik", "pqik,qjk->pij", "pxij,pqik->qjk"),   # x: size 1
    ((3,), (2, 3, 4), "j,bjk->bk", "bk,bjk->j", "j,bk->bjk"),
    ((2, 3, 4), (4,), "bij,j->bi", "bi,j->bij", "bij,bi->j"),
]


def _ids(cases):
    return [f"{a}@{b}" for a, b, *_ in cases]


@pytest.mark.parametrize(("sa", "sb", "product", "grad_a", "grad_b"), CASES, ids=_ids(CASES))
def test_forward_and_gradients_summed_to_operand_shapes(sa, sb, product, grad_a, grad_b):
    a_data, b_data = _normal(sa), _normal(sb, seed=1)
    expected = np.einsum(product, a_data, b_data)
    a, b = V.Variable(a_data), V.Variable(b_data)
    y = V.matmul(a, b)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y.data, expected, rtol=1e-12, atol=1e-12)

    gy = _normal(y.shape, seed=2)
    ga, gb = V.grad(y, [a, b], grad_outputs=gy)
    assert ga.shape == sa and gb.shape == sb
    expected_ga = np.einsum(grad_a, gy, b_data).reshape(sa)       # reshape restores a size-1 batch axis
    np.testing.assert_allclose(ga.data, expected_ga, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gb.data, np.einsum(grad_b, a_data, gy), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("sa", "sb"), [(c[0], c[1]) for c in CASES], ids=_ids(CASES))
def test_gradcheck_order_3(sa, sb):
    assert V.gradcheck(V.matmul, _normal(sa), _normal(sb, seed=1), order=3)


def test_vector_dot_is_a_scalar_with_simple_gradients():
    a, b = V.Variable(np.array([1.0, 2.0, 3.0])), V.Variable(np.array([4.0, -5.0, 6.0]))
    y = V.matmul(a, b)
    assert y.shape == ()
    np.testing.assert_allclose(y.data, 12.0)
    y.backward()
    np.testing.assert_allclose(a.grad.data, [4.0, -5.0, 6.0])
    np.testing.assert_allclose(b.grad.data, [1.0, 2.0, 3.0])


def test_matmul_operator_and_its_reflection():
    a_data, b_data = _normal((2, 3)), _normal((3, 4), seed=1)
    a, b = V.Variable(a_data), V.Variable(b_data)
    np.testing.assert_allclose((a @ b).data, V.matmul(a, b).data)
    left = a_data @ b             # ndarray @ Variable: Variable.__rmatmul__
    right = a @ b_data            # Variable @ ndarray
    assert isinstance(left, V.Variable) and isinstance(right, V.Variable)
    np.testing.assert_allclose(left.data, np.einsum("ij,jk->ik", a_data, b_data), rtol=1e-12)
    V.sum(left).backward()
    np.testing.assert_allclose(b.grad.data, np.broadcast_to(a_data.sum(axis=0)[:, None], (3, 4)))
    assert a.grad is None
    V.sum(right).backward()
    np.testing.assert_allclose(a.grad.data, np.broadcast_to(b_data.sum(axis=1), (2, 3)))


def test_only_the_operand_that_requires_grad_gets_one():
    a = V.Variable(_normal((2, 3)))
    b = V.Variable(_normal((3, 4), seed=1), requires_grad=False)
    V.sum(a @ b).backward()
    assert b.grad is None
    np.testing.assert_allclose(a.grad.data, np.broadcast_to(b.data.sum(axis=1), (2, 3)))


@pytest.mark.parametrize(
    ("sa", "sb"),
    [((3, 2), (3, 4)), ((3, 2), (3,)), ((5, 3, 2), (3, 4)), ((2, 1, 3, 2), (4, 3, 1)),
     ((4, 3, 2), (4, 3, 5))],
)
def test_transpose_matmul_equals_a_T_at_b(sa, sb):
    a_data, b_data = _normal(sa), _normal(sb, seed=1)
    a, b = V.Variable(a_data), V.Variable(b_data)
    y = V.transpose_matmul(a, b)
    expected = np.matmul(np.swapaxes(a_data, -1, -2), b_data)
    np.testing.assert_allclose(y.data, expected, rtol=1e-12, atol=1e-12)
    gy = _normal(y.shape, seed=2)
    ga, gb = V.grad(y, [a, b], grad_outputs=gy)

    a2, b2 = V.Variable(a_data), V.Variable(b_data)
    axes = tuple(range(len(sa) - 2)) + (len(sa) - 1, len(sa) - 2)
    ea, eb = V.grad(V.matmul(V.transpose(a2, axes), b2), [a2, b2], grad_outputs=gy)
    np.testing.assert_allclose(ga.data, ea.data, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gb.data, eb.data, rtol=1e-12, atol=1e-12)
    if len(sa) == 2:
        np.testing.assert_allclose(y.data, (a.T @ b).data, rtol=1e-12, atol=1e-12)


def test_transpose_matmul_second_order():
    """Hessian and hvp of f(a) = sum((a^T b)^2): d^2 f / da_ki da_lm = 2 delta_im sum_j b_kj b_lj."""
    b = _normal((3, 2), seed=1)
    a0, v = _normal((3, 2)), _normal((3, 2), seed=2)
    f = lambda a: V.sum(V.transpose_matmul(a, b) ** 2)
    H = V.hessian(f, a0).data.reshape(6, 6)
    expected = 2 * np.einsum("im,kj,lj->kilm", np.eye(2), b, b).reshape(6, 6)
    np.testing.assert_allclose(H, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(V.hvp(f, a0, v).data.ravel(), expected @ v.ravel(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f", [V.matmul, V.transpose_matmul, lambda a, b: a @ b], ids=["matmul", "tmm", "op"])
def test_float32_preserved(f):
    a = V.Variable(_normal((2, 3, 3), dtype=np.float32))
    b = V.Variable(_normal((3, 4), seed=1, dtype=np.float32))
    y = f(a, b)
    assert y.dtype == np.float32
    ga, gb = V.grad(V.sum(y * y), [a, b], create_graph=True)
    assert ga.dtype == gb.dtype == np.float32
    V.sum(ga * ga).backward()
    assert a.grad.dtype == b.grad.dtype == np.float32


# ----- bad input -------------------------------------------------------------------

@pytest.mark.parametrize(
    ("sa", "sb"),
    [((2, 3), (4, 5)), ((3,), (4,)), ((3,), (4, 2)), ((2, 3), (2,)), ((5, 2, 3), (2, 4)),
     ((2, 2, 3), (3, 3, 4)), ((2, 3), ()), ((), (3,)), ((), ())],
)
def test_matmul_of_incompatible_shapes(sa, sb):
    a, b = V.Variable(np.zeros(sa)), V.Variable(np.zeros(sb))
    for call in (lambda: V.matmul(a, b), lambda: a @ b):
        with pytest.raises(ValueError) as error:
            call()
        _assert_message(error, "matmul", sa, sb)


def test_matmul_with_a_python_scalar():
    with pytest.raises(ValueError) as error:
        V.matmul(V.Variable(np.zeros(3)), 2.0)
    _assert_message(error, "matmul", (3,), "()")


@pytest.mark.parametrize(("sa", "sb"), [((3,), (3, 4)), ((), (3,))])
def test_transpose_matmul_needs_a_2d_first_operand(sa, sb):
    with pytest.raises(ValueError) as error:
        V.transpose_matmul(V.Variable(np.zeros(sa)), V.Variable(np.zeros(sb)))
    _assert_message(error, "transpose_matmul", sa, "2-D")


@pytest.mark.parametrize(("sa", "sb"), [((3, 2), (4, 5)), ((2, 3, 2), (4, 3, 1))])
def test_transpose_matmul_of_incompatible_shapes(sa, sb):
    with pytest.raises(ValueError) as error:
        V.transpose_matmul(V.Variable(np.zeros(sa)), V.Variable(np.zeros(sb)))
    _assert_message(error, "transpose_matmul", sb)


@pytest.mark.parametrize(("sa", "sb"), [((3, 2), (4, 5)), ((2, 3, 2), (4, 3, 1))])
def test_transpose_matmul_error_names_the_given_shape_of_a(sa, sb):
    with pytest.raises(ValueError) as error:
        V.transpose_matmul(V.Variable(np.zeros(sa)), V.Variable(np.zeros(sb)))
    _assert_message(error, "transpose_matmul", sa, sb)


# ----- tall products: a stack of 128-row products (variable/ops/matmul.py, `product`) -------
@pytest.mark.parametrize(("m", "k", "n", "dtype"), [
    (8192, 64, 64, np.float64),        # whole blocks
    (8192 + 37, 17, 3, np.float64),    # and a remainder of rows
    (16384, 64, 8, np.float32),
    (9000, 2, 64, np.float32),
])
def test_a_tall_product_equals_numpys(m, k, n, dtype, monkeypatch):
    from variable.ops import matmul
    from variable.ops.matmul import product
    monkeypatch.setattr(matmul, "_STACKED", True)     # the stacked path on any CPU
    rng = np.random.default_rng(m + k + n)
    a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
    got = product(a, b)
    assert got.dtype == dtype and got.shape == (m, n) and got.flags.c_contiguous
    tolerance = 1e-12 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(got, a @ b, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize(("r", "m", "n", "dtype"), [
    (8192, 64, 64, np.float64),        # 64 blocks: two groups of 32
    (8192 * 3 + 77, 5, 9, np.float64),  # 192 blocks and a remainder of rows
    (16384, 64, 8, np.float32),
])
def test_a_weights_gradient_from_tall_arrays_equals_numpys(r, m, n, dtype, monkeypatch):
    # x^T b for tall x and b, as a sum of the 128-row blocks' products
    from variable.ops import matmul
    from variable.ops.matmul import product
    monkeypatch.setattr(matmul, "_STACKED", True)
    rng = np.random.default_rng(r + m + n)
    x, b = rng.standard_normal((r, m)).astype(dtype), rng.standard_normal((r, n)).astype(dtype)
    got = product(x.T, b)
    assert got.dtype == dtype and got.shape == (m, n)
    tolerance = 1e-10 if dtype == np.float64 else 1e-3
    np.testing.assert_allclose(got, x.T @ b, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("case", ["transposed a", "mixed dtypes", "wide b", "a column b", "short a",
                                  "integers"])
def test_products_a_stack_cannot_take_are_numpys_own(case):
    from variable.ops.matmul import product
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((8192, 8)), rng.standard_normal((8, 8))
    if case == "transposed a":
        a = np.ascontiguousarray(a.T).T
    elif case == "mixed dtypes":
        b = b.astype(np.float32)
    elif case == "wide b":
        b = rng.standard_normal((8, 65))
    elif case == "a column b":
        b = b[:, :1].copy()
    elif case == "short a":
        a = a[:8000]
    else:
        a, b = (a * 10).astype(np.int64), (b * 10).astype(np.int64)
    got = product(a, b)
    assert got.dtype == (a @ b).dtype
    np.testing.assert_array_equal(got, a @ b)


def test_gradients_of_a_tall_product():
    # both gradients are tall products again (gy b^T) or a long sum (a^T gy)
    rng = np.random.default_rng(3)
    a, b = V.Variable(rng.standard_normal((8192 + 5, 16))), V.Variable(rng.standard_normal((16, 8)))
    gy = rng.standard_normal((8192 + 5, 8))
    ga, gb = V.grad(V.sum((a @ b) * gy), [a, b])
    np.testing.assert_allclose(ga.data, gy @ b.data.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gb.data, a.data.T @ gy, rtol=1e-12, atol=1e-11)
