"""Matrix decompositions (V.linalg.cholesky, eigh, eigvalsh, svd, qr): the table, then the
conventions and limits the table cannot show.

Points are well conditioned: eigenvalues and singular values at least 0.4 apart (and
singular values >= 0.5).  Eigenvectors and singular vectors are defined up to sign, so
their rows check sign-invariant functions of them (the projectors v_k v_k^T, entry by
entry) against the same functions of NumPy's outputs; the rows marked "as returned"
compare NumPy's own outputs (same LAPACK, same signs) and differentiate them as they are.
The decompositions have first-order Taylor rules only (Row.taylor = 1).
"""

import warnings

import numpy as np
import pytest
from op_rows import SMOOTH, Row, table_tests
from variable_checks import assert_message

import variable as V
from variable import backend


# ----- samplers ---------------------------------------------------------------------
def _orthogonal(rng, n):
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def _spread(rng, n, low):
    """n values from `low` up, consecutive ones 0.4 to 1 apart, in random order."""
    return rng.permutation(low + np.cumsum(rng.uniform(0.4, 1.0, n)))


def _stacked(make, shape, rng):
    batch = shape[:-2]
    mats = [make(rng, *shape[-2:]) for _ in range(int(np.prod(batch)))]
    return np.array(mats).reshape(shape)


def symmetric(shape):
    """Symmetric matrices with eigenvalues of both signs, 0.4 apart."""
    def one(rng, n, _):
        q = _orthogonal(rng, n)
        return (q * _spread(rng, n, -1.5)) @ q.T
    return lambda rng: (_stacked(one, shape, rng),)


def positive_definite(shape):
    """Symmetric positive definite matrices, eigenvalues in about [0.4, 3]."""
    def one(rng, n, _):
        q = _orthogonal(rng, n)
        return (q * _spread(rng, n, 0.0)) @ q.T
    return lambda rng: (_stacked(one, shape, rng),)


def well_conditioned(shape):
    """Matrices with singular values >= 0.5, 0.4 apart."""
    def one(rng, m, n):
        k = min(m, n)
        return (_orthogonal(rng, m)[:, :k] * _spread(rng, k, 0.1)) @ _orthogonal(rng, n)[:k]
    return lambda rng: (_stacked(one, shape, rng),)


def real_spectrum(shape):
    """Non-symmetric matrices S diag(w) S^-1 with real eigenvalues 0.4 apart, S well conditioned."""
    def one(rng, n, _):
        s = _orthogonal(rng, n) + 0.3 * rng.standard_normal((n, n)) / np.sqrt(n)
        return (s * _spread(rng, n, -1.5)) @ np.linalg.inv(s)
    return lambda rng: (_stacked(one, shape, rng),)


# ----- sign-invariant views of the vectors ---------------------------------------------
def projectors(v):
    """v_ik v_jk for every column k: the same for v and -v (ndarrays and Variables alike)."""
    return v[..., :, None, :] * v[..., None, :, :]


def eigh_invariant(eigh):
    return lambda a, UPLO="L": (lambda w, v: (w, projectors(v)))(*eigh(a, UPLO))


def eig_invariant(eig):
    return lambda a: (lambda w, v: (w, projectors(v)))(*eig(a))


def row_projectors(vh):
    """vh_ki vh_kj for every row k."""
    return vh[..., :, :, None] * vh[..., :, None, :]


def svd_invariant(svd, full_matrices=True):
    def f(a):
        u, s, vh = svd(a, full_matrices=full_matrices)
        return projectors(u), s, row_projectors(vh)
    return f


SQUARE = [(3, 3), (2, 3, 3)]
ANY = [(3, 3), (2, 3, 3), (4, 3), (3, 4)]
J = 1   # first-order Taylor rules (V.jvp)


def _rows(fn, ref, sampler, shapes, ftol=1e-4, prefix=""):
    return [Row(f"{prefix}{s}", fn, ref, sampler(s), SMOOTH, taylor=J, ftol=ftol) for s in shapes]


ROWS = {
    "linalg.eig": (
        _rows(eig_invariant(V.linalg.eig), eig_invariant(np.linalg.eig), real_spectrum, SQUARE + [(1, 1)])
        + _rows(V.linalg.eig, np.linalg.eig, real_spectrum, [(3, 3)], prefix="as returned ")
    ),
    "linalg.eigvals": _rows(V.linalg.eigvals, np.linalg.eigvals, real_spectrum, SQUARE + [(2, 2), (4, 4)]),
    "linalg.cholesky": (
        _rows(V.linalg.cholesky, np.linalg.cholesky, positive_definite, SQUARE)
        + _rows(lambda a: V.linalg.cholesky(a, upper=True), lambda a: np.linalg.cholesky(a, upper=True),
                positive_definite, [(3, 3)], prefix="upper ")
    ),
    "linalg.eigvalsh": (
        _rows(V.linalg.eigvalsh, np.linalg.eigvalsh, symmetric, SQUARE)
        + _rows(lambda a: V.linalg.eigvalsh(a, "U"), lambda a: np.linalg.eigvalsh(a, "U"),
                symmetric, [(3, 3)], prefix="UPLO=U ")
    ),
    "linalg.eigh": (
        _rows(eigh_invariant(V.linalg.eigh), eigh_invariant(np.linalg.eigh), symmetric, SQUARE)
        + _rows(lambda a: eigh_invariant(V.linalg.eigh)(a, "U"),
                lambda a: eigh_invariant(np.linalg.eigh)(a, "U"), symmetric, [(3, 3)], prefix="UPLO=U ")
        + _rows(V.linalg.eigh, np.linalg.eigh, symmetric, [(3, 3)], prefix="as returned ")
    ),
    "linalg.svd": (
        _rows(svd_invariant(V.linalg.svd), svd_invariant(np.linalg.svd), well_conditioned, SQUARE)
        + _rows(svd_invariant(V.linalg.svd, False), svd_invariant(np.linalg.svd, False), well_conditioned,
                [(4, 3), (3, 4), (2, 4, 3)], prefix="reduced ")
        + _rows(lambda a: V.linalg.svd(a, compute_uv=False), lambda a: np.linalg.svd(a, compute_uv=False),
                well_conditioned, ANY, prefix="compute_uv=False ")
        + _rows(lambda a: V.linalg.svd(a, hermitian=True)[1], lambda a: np.linalg.svd(a, hermitian=True)[1],
                symmetric, [(3, 3)], prefix="hermitian S ")
        + _rows(lambda a: (lambda u, s, vh: (u * s[..., None, :]) @ vh)(*V.linalg.svd(a, hermitian=True)),
                lambda a: (lambda u, s, vh: (u * s[..., None, :]) @ vh)(*np.linalg.svd(a, hermitian=True)),
                symmetric, [(3, 3)], prefix="hermitian U S Vh ")
        + _rows(lambda a: V.linalg.svd(a, full_matrices=False),
                lambda a: np.linalg.svd(a, full_matrices=False), well_conditioned, [(4, 3)],
                prefix="as returned ")
    ),
    "linalg.qr": (
        _rows(V.linalg.qr, np.linalg.qr, well_conditioned, ANY + [(2, 4, 3)])
        + _rows(lambda a: V.linalg.qr(a, "r"), lambda a: np.linalg.qr(a, "r"), well_conditioned,
                [(4, 3), (3, 4)], prefix="mode=r ")
        + _rows(lambda a: V.linalg.qr(a, "complete"), lambda a: np.linalg.qr(a, "complete"),
                well_conditioned, [(3, 3), (3, 4)], prefix="mode=complete ")
    ),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


# ----- results as NumPy's ----------------------------------------------------------
def test_results_are_numpys_named_tuples_with_numpys_signs(rng):
    a = symmetric((2, 3, 3))(rng)[0]
    result, expected = V.linalg.eigh(a), np.linalg.eigh(a)
    w, v = result
    assert w is result.eigenvalues and v is result.eigenvectors
    np.testing.assert_allclose(v.data, expected.eigenvectors, rtol=1e-12, atol=1e-12)
    b = well_conditioned((4, 3))(rng)[0]
    for full in (True, False):
        result, expected = V.linalg.svd(b, full_matrices=full), np.linalg.svd(b, full_matrices=full)
        assert result.U.shape == expected.U.shape and result.Vh.shape == expected.Vh.shape
        for got, want in zip(result, expected):
            np.testing.assert_allclose(got.data, want, rtol=1e-12, atol=1e-12)
    result, expected = V.linalg.qr(b), np.linalg.qr(b)
    q, r = result
    assert q is result.Q and r is result.R
    np.testing.assert_allclose(r.data, expected.R, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_empty_stacks_as_numpy(shape):
    a = np.zeros(shape)
    assert V.linalg.eigh(a).eigenvectors.shape == np.linalg.eigh(a).eigenvectors.shape
    assert V.linalg.eigvalsh(a).shape == np.linalg.eigvalsh(a).shape
    assert V.linalg.svd(a).S.shape == np.linalg.svd(a).S.shape
    assert V.linalg.qr(a).R.shape == np.linalg.qr(a).R.shape


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_empty_rectangular_as_numpy(shape):
    a = np.zeros(shape)
    for got, want in zip(V.linalg.svd(a), np.linalg.svd(a)):
        assert got.shape == want.shape
    for got, want in zip(V.linalg.qr(a), np.linalg.qr(a)):
        assert got.shape == want.shape


def test_integer_input_gives_float64_and_float32_stays_float32():
    assert V.linalg.eigvalsh(np.eye(3, dtype=int)).dtype == np.float64
    a = V.Variable(np.diag([1.0, 2.0, 4.0]).astype(np.float32))
    for y in (*V.linalg.eigh(a), V.linalg.cholesky(a), *V.linalg.svd(a), *V.linalg.qr(a)):
        assert y.dtype == np.float32


# ----- the one-triangle convention ----------------------------------------------------
def test_eigh_gradient_lives_on_the_triangle_read(rng):
    """NumPy reads the lower triangle: the upper one gets no gradient (and 'U' the reverse)."""
    a = V.Variable(symmetric((3, 3))(rng)[0])
    for uplo, other in (("L", np.triu_indices(3, 1)), ("U", np.tril_indices(3, -1))):
        w, v = V.linalg.eigh(a, uplo)
        g, = V.grad(V.sum(w * w) + V.sum(projectors(v)[..., 0] * np.arange(9.0).reshape(3, 3)), [a])
        assert np.all(g.data[other] == 0) and np.any(g.data != 0)


@pytest.mark.parametrize("op", ["eigh", "eigvalsh", "cholesky", "svd"])
def test_symmetric_input_built_by_the_caller(op, rng):
    """Through (A + A^T) / 2 the gradient is the symmetrized rule, and gradcheck agrees."""
    def f(a):
        s = (a + V.transpose(a)) / 2
        if op == "eigh":
            w, v = V.linalg.eigh(s)
            return w, projectors(v)
        if op == "svd":
            return V.linalg.svd(s, hermitian=True, compute_uv=False)
        return getattr(V.linalg, op)(s)

    a = (positive_definite if op == "cholesky" else symmetric)((3, 3))(rng)[0]
    a = a + np.triu(rng.uniform(-0.1, 0.1, (3, 3)), 1)      # not symmetric: both triangles count
    assert V.gradcheck(f, a, order=2)
    x = V.Variable(a)
    g, = V.grad(V.sum(V.linalg.eigvalsh((x + V.transpose(x)) / 2) * np.array([1.0, 2.0, 3.0])), [x])
    np.testing.assert_allclose(g.data, g.data.T, atol=1e-12)


def test_eigvalsh_gradient_is_v_diag_v_t_on_the_lower_triangle(rng, on_device):
    a = symmetric((3, 3))(rng)[0]
    gw = np.array([1.0, -2.0, 0.5])
    x = V.Variable(a)
    g, = V.grad(V.linalg.eigvalsh(x), [x], grad_outputs=[on_device(gw)])
    _, v = np.linalg.eigh(a)
    p = (v * gw) @ v.T
    np.testing.assert_allclose(g.data, np.tril(p + p.T, -1) + np.diag(np.diag(p)), rtol=1e-10, atol=1e-12)


# ----- repeated values ----------------------------------------------------------------
def _repeated(rng):
    q = _orthogonal(rng, 3)
    return (q * np.array([1.0, 1.0, 2.0])) @ q.T


def test_eigenvalue_gradients_at_repeated_eigenvalues_are_finite(rng):
    a = _repeated(rng)
    for f in (V.linalg.eigvalsh, lambda x: V.linalg.eigh(x)[0]):
        x = V.Variable(a)
        g, = V.grad(V.sum(f(x)), [x])                  # d trace = I
        np.testing.assert_allclose(g.data, np.eye(3), atol=1e-12)
    _, dw = V.jvp(V.linalg.eigvalsh, a, np.eye(3))      # d eig(A + t I) = 1
    np.testing.assert_allclose(dw.data, np.ones(3), atol=1e-12)


def test_eigenvector_gradients_at_repeated_eigenvalues_raise(rng):
    x = V.Variable(_repeated(rng))
    with pytest.raises(np.linalg.LinAlgError) as error:
        V.grad(V.sum(V.linalg.eigh(x)[1] ** 2 * np.arange(9.0).reshape(3, 3)), [x])
    assert_message(error, "eigh", "eigenvectors", "repeat", "eigvalsh")
    with pytest.raises(np.linalg.LinAlgError) as error:
        V.jvp(lambda a: V.linalg.eigh(a)[1], x.data, np.ones((3, 3)))
    assert_message(error, "eigh", "eigenvectors")


def test_singular_value_gradients_at_repeated_values_and_vectors_raise(rng):
    q, p = _orthogonal(rng, 4), _orthogonal(rng, 3)
    a = (q[:, :3] * np.array([2.0, 1.0, 1.0])) @ p
    x = V.Variable(a)
    g, = V.grad(V.sum(V.linalg.svd(x, compute_uv=False)), [x])
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(g.data, u @ vh, atol=1e-12)          # d sum(S) = U V^T
    assert np.all(np.isfinite(V.grad(V.sum(V.linalg.svd(x)[1]), [x])[0].data))
    with pytest.raises(np.linalg.LinAlgError) as error:
        V.grad(V.sum(V.linalg.svd(x, full_matrices=False)[0] ** 3), [x])
    assert_message(error, "svd", "singular vectors", "compute_uv=False")


def test_singular_vectors_of_a_rank_deficient_tall_matrix_raise(rng):
    a = (_orthogonal(rng, 4)[:, :3] * np.array([2.0, 1.0, 0.0])) @ _orthogonal(rng, 3)
    x = V.Variable(a)
    with pytest.raises(np.linalg.LinAlgError) as error:
        V.grad(V.sum(V.linalg.svd(x, full_matrices=False)[0] ** 3), [x])
    assert_message(error, "svd", "rank-deficient")


def test_qr_of_a_rank_deficient_matrix_raises_in_backward():
    x = V.Variable(np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]]))
    q, r = V.linalg.qr(x)
    with pytest.raises(np.linalg.LinAlgError) as error:
        V.grad(V.sum(q ** 3) + V.sum(r), [x])
    assert_message(error, "qr", "rank-deficient")


# ----- non-unique extra columns -------------------------------------------------------------
def test_svd_full_matrices_extra_columns(rng):
    a = well_conditioned((4, 3))(rng)[0]
    x = V.Variable(a)
    u, s, vh = V.linalg.svd(x)                          # full_matrices=True: U is 4 x 4
    g, = V.grad(V.sum((u[:, :3] * s) @ vh), [x])        # the extra column unused: fine
    u2, s2, vh2 = V.linalg.svd(x, full_matrices=False)
    g2, = V.grad(V.sum((u2 * s2) @ vh2), [x])
    np.testing.assert_allclose(g.data, g2.data, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError) as error:
        V.grad(V.sum(V.linalg.svd(x)[0] ** 3), [x])
    assert_message(error, "svd", "full_matrices=False")
    with pytest.raises(ValueError) as error:
        V.jvp(lambda a: V.linalg.svd(a)[0], a, np.ones((4, 3)))
    assert_message(error, "svd", "full_matrices=False")


def test_qr_complete_extra_columns(rng):
    a = well_conditioned((4, 3))(rng)[0]
    x = V.Variable(a)
    q, r = V.linalg.qr(x, "complete")
    g, = V.grad(V.sum(q[:, :3] ** 3) + V.sum(r ** 2), [x])
    q2, r2 = V.linalg.qr(x)
    g2, = V.grad(V.sum(q2 ** 3) + V.sum(r2 ** 2), [x])
    np.testing.assert_allclose(g.data, g2.data, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError) as error:
        V.grad(V.sum(q ** 3), [x])
    assert_message(error, "qr", "mode='reduced'")


# ----- Taylor mode: first order only ------------------------------------------------------
@pytest.mark.parametrize("op, make", [
    ("cholesky", lambda a: V.linalg.cholesky(a)),
    ("eigh", lambda a: V.linalg.eigh(a)[0]),
    ("eigvalsh", lambda a: V.linalg.eigvalsh(a)),
    ("svd", lambda a: V.linalg.svd(a)[1]),
    ("qr", lambda a: V.linalg.qr(a)[1]),
])
def test_taylor_above_order_one_is_refused(op, make, rng):
    a = positive_definite((3, 3))(rng)[0]
    with pytest.raises(NotImplementedError) as error:
        V.taylor(make, a, np.eye(3), 2)
    assert_message(error, op, "V.jvp", "order 1")


# ----- errors -------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["cholesky", "eigh", "eigvalsh"])
def test_non_square_and_one_dimensional_are_refused(op):
    f = getattr(V.linalg, op)
    with pytest.raises(np.linalg.LinAlgError) as error:
        f(np.ones((2, 3)))
    assert_message(error, op, "square", "(2, 3)")
    with pytest.raises(ValueError) as error:
        f(np.ones(3))
    assert_message(error, op, "2-D", "(3,)")


def test_svd_and_qr_refuse_vectors_and_svd_hermitian_non_square():
    for op in ("svd", "qr"):
        with pytest.raises(np.linalg.LinAlgError) as error:
            getattr(V.linalg, op)(np.ones(3))
        assert_message(error, op, "2-D")
    with pytest.raises(np.linalg.LinAlgError) as error:
        V.linalg.svd(np.ones((2, 3)), hermitian=True)
    assert_message(error, "svd", "square")


def test_cholesky_of_a_matrix_that_is_not_positive_definite():
    with pytest.raises(np.linalg.LinAlgError) as error:
        V.linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert_message(error, "cholesky", "not positive definite")


def test_bad_keywords_are_refused():
    a = np.eye(3)
    for op in ("eigh", "eigvalsh"):
        with pytest.raises(ValueError) as error:
            getattr(V.linalg, op)(a, UPLO="X")
        assert_message(error, op, "UPLO", "'X'")
    np.testing.assert_allclose(V.linalg.eigvalsh(a, "u").data, np.ones(3))   # NumPy takes lowercase
    for mode in ("raw", "economic"):
        with pytest.raises(ValueError) as error:
            V.linalg.qr(a, mode)
        assert_message(error, "qr", "mode", repr(mode))
    with pytest.raises(TypeError) as error:
        V.linalg.cholesky(a, upper="yes")
    assert_message(error, "cholesky", "upper")
    with pytest.raises(TypeError) as error:
        V.linalg.svd(a, compute_uv="no")
    assert_message(error, "svd", "compute_uv")
    with pytest.raises(TypeError) as error:
        V.linalg.eigh(a.astype(np.float16))
    assert_message(error, "eigh", "float16")


# ----- on a device (the CPU stand-in without a GPU) --------------------------------------------
@pytest.mark.parametrize("op", ["cholesky", "eigh", "eigvalsh", "svd", "qr"])
def test_on_a_device_as_on_the_cpu(op, gpu, rng):
    """Data, first and second derivatives and the jvp on the device equal the CPU's."""
    a = positive_definite((2, 3, 3))(rng)[0]
    f = {
        "cholesky": V.linalg.cholesky,
        "eigh": eigh_invariant(V.linalg.eigh),
        "eigvalsh": V.linalg.eigvalsh,
        "svd": svd_invariant(V.linalg.svd),
        "qr": V.linalg.qr,
    }[op]

    def run(x):
        ys = f(x)
        ys = ys if isinstance(ys, tuple) else (ys,)
        loss = sum(V.sum(y * y) for y in ys)
        g, = V.grad(loss, [x], create_graph=True)
        gg, = V.grad(V.sum(g * g), [x])
        _, dy = V.jvp(f, x.data, x.data)
        dy = dy if isinstance(dy, tuple) else (dy,)
        return [y.data for y in ys] + [g.data, gg.data] + [d.data for d in dy]

    on_cpu = run(V.Variable(a))
    on_device = run(V.Variable(a).to_gpu())
    for got, want in zip(on_device, on_cpu):
        assert V.backend.device_of(got) == "gpu"
        np.testing.assert_allclose(V.backend.to_cpu(got), want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("op", ["cholesky", "eigvalsh", "svd", "qr"])
def test_forward_over_reverse(op, rng):
    """V.jvp of a gradient (Hessian-vector products) goes through the rules of the backward's ops."""
    f = {"cholesky": V.linalg.cholesky, "eigvalsh": V.linalg.eigvalsh,
         "svd": lambda x: V.linalg.svd(x, compute_uv=False), "qr": lambda x: V.linalg.qr(x)[1]}[op]

    def gradient(x):
        return V.grad(V.sum(f(x) ** 3), [x], create_graph=True)[0]

    assert V.taylorcheck(gradient, positive_definite((3, 3))(rng)[0], order=1)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3)])
def test_singular_values_of_a_matrix_holding_inf_have_a_nan_gradient_at_every_order(shape):
    """LAPACK refuses the vectors of such a matrix (the values are NaN, as NumPy's): its
    gradient is NaN, and the other matrices of the stack keep their own gradients."""
    rng = np.random.default_rng(3)
    stack = rng.normal(size=(2, *shape))
    stack[0, 0, 0], stack[0, -1, -1] = np.inf, -np.inf

    def f(a):
        return (V.linalg.svdvals(a) ** 2).sum()
    x, alone = V.Variable(stack), V.Variable(stack[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = V.grad(f(x), x, create_graph=True)
        h = V.grad((g ** 2).sum(), x)
    g1 = V.grad(f(alone), alone, create_graph=True)
    assert np.isnan(g.data[0]).all() and np.isnan(h.data[0]).all()
    np.testing.assert_allclose(g.data[1], g1.data, rtol=1e-12)
    np.testing.assert_allclose(h.data[1], V.grad((g1 ** 2).sum(), alone).data, rtol=1e-10)


# ----- eig and eigvals: general matrices with real spectra ------------------------------
def test_eig_is_numpys_named_tuple_and_dispatches_from_numpy(rng):
    a = real_spectrum((2, 3, 3))(rng)[0]
    result, expected = np.linalg.eig(V.Variable(a)), np.linalg.eig(a)
    assert type(result).__name__ == "EigResult" and result._fields == expected._fields
    for got, want in zip(result, expected, strict=True):
        assert isinstance(got, V.Variable)
        np.testing.assert_array_equal(got.data, want)
    np.testing.assert_array_equal(np.linalg.eigvals(V.Variable(a)).data, np.linalg.eigvals(a))


def test_eig_gradients_match_the_formula_and_keep_unit_columns(rng, on_device):
    a = real_spectrum((3, 3))(rng)[0]
    x = V.Variable(a)
    gw = np.array([1.0, -2.0, 0.5])
    g, = V.grad(V.linalg.eigvals(x), [x], grad_outputs=[on_device(gw)])
    w, v = np.linalg.eig(a)
    np.testing.assert_allclose(g.data, np.linalg.solve(v.T, gw[:, None] * v.T), rtol=1e-10)
    # the columns stay of unit length: moving along V's own columns changes nothing
    _, dv = V.jvp(lambda m: V.linalg.eig(m)[1], x.data, on_device(rng.standard_normal((3, 3))))
    np.testing.assert_allclose(np.einsum("ik,ik->k", v, backend.to_cpu(dv.data)), 0.0, atol=1e-12)


def test_eig_refuses_complex_eigenvalues_naming_the_way_out():
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    for op in (V.linalg.eig, V.linalg.eigvals, np.linalg.eig):
        with pytest.raises(ValueError, match=r"complex eigenvalues \(such as .*j\).*eigh"):
            op(V.Variable(rotation))


def test_eig_vectors_at_repeated_eigenvalues_raise_values_do_not():
    a = np.diag([1.0, 1.0, 2.0])
    x = V.Variable(a)
    np.testing.assert_allclose(V.grad(V.linalg.eigvals(x).sum(), x).data, np.eye(3))
    np.testing.assert_allclose(V.grad(V.linalg.eig(x)[0].sum(), x).data, np.eye(3))
    with pytest.raises(np.linalg.LinAlgError) as error:
        V.grad(V.linalg.eig(x)[1].sum(), x)
    assert_message(error, "eig", "eigenvectors", "repeat", "eigvals")
    with pytest.raises(np.linalg.LinAlgError, match="eig: the derivative of the eigenvectors"):
        V.jvp(lambda m: V.linalg.eig(m)[1], a, np.ones((3, 3)))


def test_eig_dtypes_and_shapes_as_numpy(rng):
    a = real_spectrum((3, 3))(rng)[0].astype(np.float32)
    x = V.Variable(a)
    w, v = V.linalg.eig(x)
    assert w.dtype == v.dtype == np.float32
    assert V.grad(w.sum() + (v ** 2).sum(), x).dtype == np.float32
    assert V.linalg.eigvals(np.eye(3, dtype=int)).dtype == np.float64
    assert V.linalg.eig(np.zeros((2, 0, 0))).eigenvectors.shape == (2, 0, 0)
    for bad in (np.ones((2, 3)), np.ones(3)):
        with pytest.raises(np.linalg.LinAlgError, match="eigvals"):
            V.linalg.eigvals(bad)
