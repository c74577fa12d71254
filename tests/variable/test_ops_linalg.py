"""Linear systems, inverses and norms (V.linalg: inv, solve, det, slogdet, pinv, lstsq,
matrix_power, norm) against np.linalg.

Matrices are sampled well conditioned: entries in [-1, 1] plus 3 on the main diagonal,
so central differences check the matrix-derivative rules to order 3.  Batched stacks,
NumPy 2's rule for solve's `b`, every order of norm, and the points the rules single out
(singular matrices, the norm at 0) are covered below the table.
"""

import numpy as np
import pytest
from op_rows import PIECEWISE, SMOOTH, Row, nonzero, normal, table_tests, with_zeros
from variable_checks import assert_message

import variable as V

L = V.linalg
INF = np.inf
FTOL = 1e-4   # float32 against float64: an inverse multiplies rounding by the condition number


def _matrix(rng, shape, diagonal=3.0):
    """Entries in [-1, 1], plus `diagonal` on the main diagonal of each (last two axes) matrix."""
    return rng.uniform(-1, 1, shape) + diagonal * np.eye(shape[-2], shape[-1])


def matrices(*shapes, diagonal=3.0):
    """Well-conditioned (stacks of) matrices of each shape."""
    return lambda rng: tuple(_matrix(rng, s, diagonal) for s in shapes)


def system(sa, sb):
    """A well-conditioned matrix (stack) and a right-hand side of any sign."""
    return lambda rng: (_matrix(rng, sa), rng.uniform(-1.5, 1.5, sb))


def symmetric(a):
    """(a + a^T) / 2 in the last two axes, for Variables and arrays alike."""
    return (a + np.swapaxes(a, -1, -2)) / 2 if isinstance(a, np.ndarray) else (a + V.transpose(a)) / 2


def _row(label, fn, ref, sample, order=SMOOTH, taylor=6):
    return Row(label, fn, ref, sample, order, taylor=taylor, ftol=FTOL)


def _unary(name, shapes, **params):
    """Rows of V.linalg.<name>(a, **params) against np.linalg.<name> on matrices of `shapes`."""
    fn, ref = getattr(L, name), getattr(np.linalg, name)
    label = "".join(f",{k}={v}" for k, v in params.items())
    return [_row(f"{s}{label}", lambda a: fn(a, **params), lambda a: ref(a, **params), matrices(s))
            for s in shapes]


SQUARE = [(1, 1), (3, 3), (2, 3, 3), (2, 1, 2, 2)]

SOLVE = [
    ((3, 3), (3,)),            # one vector
    ((2, 3, 3), (3,)),         # one vector against a stack of matrices (NumPy 2)
    ((3, 3), (3, 2)),          # a matrix of right-hand sides
    ((2, 3, 3), (2, 3, 2)),
    ((2, 3, 3), (3, 2)),       # batch axes broadcast, both ways
    ((3, 3), (2, 3, 1)),
    ((2, 1, 2, 2), (3, 2, 2)),
]

MATRIX_POWERS = [((3, 3), n) for n in (0, 1, 2, 3, 4, -1, -2)] + [((2, 3, 3), 3), ((2, 3, 3), -2)]


def _lstsq(index):
    return (lambda a, b: L.lstsq(a, b)[index]), (lambda a, b: np.linalg.lstsq(a, b)[index])


LSTSQ = [((3, 2), (3,), 0), ((4, 2), (4, 3), 0), ((3, 3), (3,), 0), ((2, 3), (2,), 0),
         ((4, 2), (4,), 1), ((4, 2), (4, 2), 1)]


def _norm(shape, ord, axis, keepdims=False, sample=normal, order=SMOOTH, taylor=6):
    """A row of V.linalg.norm(x, ord, axis, keepdims) against np.linalg.norm."""
    def fn(x):
        return L.norm(x, ord, axis, keepdims)

    def ref(x):
        return np.linalg.norm(x, ord, axis, keepdims)

    label = f"{shape},ord={ord},axis={axis}" + (",keepdims" if keepdims else "")
    return _row(label, fn, ref, sample(shape), order, taylor)


NORMS = [
    # ord=None, axis=None: the 2-norm of everything, any dimension
    _norm((), None, None), _norm((3,), None, None), _norm((2, 3), None, None),
    _norm((2, 3, 2), None, None, True), _norm((0, 3), None, None),
    # vector orders
    _norm((3,), 2, None), _norm((2, 3), 2, 1), _norm((2, 3), None, -2, True),
    _norm((2, 3), 1, 0, sample=nonzero, order=PIECEWISE),
    _norm((3,), INF, None, sample=nonzero, order=PIECEWISE),
    _norm((2, 3), INF, 1, True, sample=nonzero, order=PIECEWISE),
    _norm((2, 3), -INF, 0, sample=nonzero, order=PIECEWISE),
    _norm((2, 3), 0, 1, sample=with_zeros, order=PIECEWISE),
    _norm((3,), 0, None, sample=nonzero, order=PIECEWISE),
    _norm((3,), 3, None, sample=nonzero), _norm((2, 3), 0.5, -1, sample=nonzero),
    _norm((2, 3), -1, 1, sample=nonzero), _norm((3,), -2.5, 0, sample=nonzero),
    _norm((0, 3), 2, 0), _norm((0, 3), 1, 0), _norm((0, 3), INF, 0, order=PIECEWISE),   # max of nothing: 0
    # matrix orders
    _norm((2, 3), "fro", None), _norm((2, 3), None, (1, 0)), _norm((2, 3, 2), "fro", (0, 2), True),
    _norm((2, 3), 1, None, sample=nonzero, order=PIECEWISE),
    _norm((2, 3), -1, None, sample=nonzero, order=PIECEWISE),
    _norm((2, 3), INF, None, sample=nonzero, order=PIECEWISE),
    _norm((2, 3), -INF, None, sample=nonzero, order=PIECEWISE),
    _norm((2, 3, 2), 1, (2, 0), sample=nonzero, order=PIECEWISE),
    _norm((2, 3, 2), INF, (-1, -3), True, sample=nonzero, order=PIECEWISE),
    _norm((2, 3, 2), -INF, (0, 1), sample=nonzero, order=PIECEWISE),
    _norm((0, 3), "fro", None), _norm((3, 0), INF, None, order=PIECEWISE),
    _norm((0, 3), -1, None, order=PIECEWISE),
    # through the singular values: svd has a first-order Taylor rule only
    _norm((3, 2), "nuc", None, taylor=1), _norm((2, 3), 2, None, taylor=1),
    _norm((2, 3), -2, None, taylor=1), _norm((2, 3, 2), "nuc", (0, 1), taylor=1),
    _norm((2, 2, 3), 2, (-1, -2), True, taylor=1), _norm((0, 3), 2, None, taylor=1),
]


ROWS = {
    "linalg.inv": _unary("inv", SQUARE + [(0, 0)]),
    "linalg.det": _unary("det", SQUARE + [(2, 0, 0)]) + [
        _row("(3, 3),negative", L.det, np.linalg.det, matrices((3, 3), diagonal=-3.0)),
    ],
    "linalg.slogdet": _unary("slogdet", SQUARE) + [
        _row("(2, 3, 3),negative", L.slogdet, np.linalg.slogdet, matrices((2, 3, 3), diagonal=-3.0)),
    ],
    "linalg.solve": [_row(f"{sa}x{sb}", L.solve, np.linalg.solve, system(sa, sb)) for sa, sb in SOLVE],
    "linalg.matrix_power": [
        _row(f"{s},n={n}", lambda a, n=n: L.matrix_power(a, n), lambda a, n=n: np.linalg.matrix_power(a, n),
             matrices(s))
        for s, n in MATRIX_POWERS
    ],
    "linalg.pinv": _unary("pinv", [(3, 2), (2, 3), (3, 3), (2, 3, 2), (2, 2, 3)]) + [
        _row("(3, 3),hermitian", lambda a: L.pinv(symmetric(a), hermitian=True),
             lambda a: np.linalg.pinv(symmetric(a), hermitian=True), matrices((3, 3))),
    ],
    "linalg.lstsq": [
        _row(f"{sa}x{sb}[{i}]", *_lstsq(i), system(sa, sb)) for sa, sb, i in LSTSQ
    ],
    "linalg.norm": NORMS,
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


# ----- singular matrices ---------------------------------------------------------------
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


@pytest.mark.parametrize("op, call", [
    ("inv", lambda: L.inv(SINGULAR)),
    ("solve", lambda: L.solve(SINGULAR, np.ones(2))),
    ("inv", lambda: L.matrix_power(SINGULAR, -2)),
    ("inv", lambda: L.inv(np.stack([np.eye(2), SINGULAR]))),
])
def test_singular_matrices_raise_linalg_error_naming_the_op(op, call):
    with pytest.raises(np.linalg.LinAlgError) as error:
        call()
    assert_message(error, op, "ingular")


@pytest.mark.parametrize("op", ["det", "slogdet"])
def test_det_and_slogdet_have_values_at_a_singular_matrix_but_refuse_the_gradient(op):
    a = V.Variable(SINGULAR)
    y = L.det(a) if op == "det" else L.slogdet(a).logabsdet
    np.testing.assert_allclose(y.data, np.linalg.det(SINGULAR) if op == "det" else -np.inf, atol=1e-12)
    with pytest.raises(np.linalg.LinAlgError) as error:
        y.backward()
    assert_message(error, op, "singular")


# ----- results and NumPy 2 semantics ------------------------------------------------------
def test_slogdet_result_has_fields_and_unpacks_and_its_sign_has_no_gradient(rng):
    data = _matrix(rng, (2, 3, 3), diagonal=-3.0)
    a = V.Variable(data)
    result = L.slogdet(a)
    sign, logabsdet = result
    expected = np.linalg.slogdet(data)
    assert result.sign is sign and result.logabsdet is logabsdet
    np.testing.assert_array_equal(sign.data, expected.sign)
    np.testing.assert_allclose(logabsdet.data, expected.logabsdet, rtol=1e-12)
    g, = V.grad(V.sum(sign), [a], allow_unused=True, materialize_grads=True)
    np.testing.assert_array_equal(g.data, np.zeros_like(data))
    g, = V.grad(V.sum(logabsdet), [a])
    np.testing.assert_allclose(g.data, np.swapaxes(np.linalg.inv(data), -1, -2), rtol=1e-10)


def test_gradients_are_the_published_rules(rng, on_device):
    data, b = _matrix(rng, (3, 3)), rng.standard_normal(3)
    inverse_t = np.linalg.inv(data).T
    a = V.Variable(data)
    g, = V.grad(L.det(a), [a])
    np.testing.assert_allclose(g.data, np.linalg.det(data) * inverse_t, rtol=1e-10)   # det A^-T
    a, bv = V.Variable(data), V.Variable(b)
    gy = rng.standard_normal(3)
    ga, gb = V.grad(L.solve(a, bv), [a, bv], grad_outputs=on_device(gy))
    x = np.linalg.solve(data, b)
    np.testing.assert_allclose(gb.data, np.linalg.solve(data.T, gy), rtol=1e-10)      # A^-T g
    np.testing.assert_allclose(ga.data, -np.outer(V.backend.to_cpu(gb.data), x), rtol=1e-10)  # -gb x^T


def test_solve_follows_numpy_2_a_2_d_b_is_a_matrix_never_a_stack_of_vectors(rng):
    a = _matrix(rng, (2, 3, 3))
    b = rng.standard_normal((3, 3))
    np.testing.assert_allclose(L.solve(a, b).data, np.linalg.solve(a, b), rtol=1e-12)
    with pytest.raises(ValueError) as error:
        L.solve(a, rng.standard_normal((2, 3)))      # NumPy 1 took it as two vectors
    assert_message(error, "solve", "(2, 3)", "(2, 3, 3)")


def test_lstsq_returns_numpys_four_results(rng):
    for sa, sb, residual_shape in [((4, 2), (4,), (1,)), ((4, 2), (4, 3), (3,)), ((2, 3), (2,), (0,)),
                                   ((3, 3), (3, 2), (0,))]:
        a, b = _matrix(rng, sa), rng.standard_normal(sb)
        x, residuals, rank, s = L.lstsq(a, b)
        ex, eresiduals, erank, es = np.linalg.lstsq(a, b)
        np.testing.assert_allclose(x.data, ex, rtol=1e-10)
        assert residuals.shape == eresiduals.shape == residual_shape
        np.testing.assert_allclose(residuals.data, eresiduals, rtol=1e-10)
        assert rank == erank
        np.testing.assert_allclose(s.data, es, rtol=1e-12)
        assert not s.requires_grad


def test_lstsq_rcond_is_numpys(rng):
    a = np.array([[1.0, 0.0], [0.0, 1e-3], [0.0, 0.0]])
    b = rng.standard_normal(3)
    for rcond in (None, 1e-2):
        x, _, rank, _ = L.lstsq(a, b, rcond=rcond)
        ex, _, erank, _ = np.linalg.lstsq(a, b, rcond=rcond)
        np.testing.assert_allclose(x.data, ex, rtol=1e-10)
        assert rank == erank


def test_lstsq_refuses_an_rcond_that_is_not_a_number():
    a = V.Variable(np.eye(3))
    for rcond in (a, "1e-3", True):
        with pytest.raises(TypeError, match="lstsq: rcond must be None or a real number"):
            np.linalg.lstsq(a, np.ones(3), rcond)


def test_pinv_passes_rcond_and_rtol_to_numpy(rng):
    a = np.diag([1.0, 0.1, 1e-3])
    for params in ({}, {"rcond": 0.05}, {"rtol": 0.5}, {"rtol": None}):
        np.testing.assert_allclose(L.pinv(a, **params).data, np.linalg.pinv(a, **params), rtol=1e-12)
    with pytest.raises(TypeError) as error:
        L.pinv(a, rcond=0.1, rtol=0.1)
    assert_message(error, "pinv", "rcond", "rtol")


def test_matrix_power_keeps_integer_matrices_and_accepts_numpy_integers():
    a = np.array([[1, 2], [3, 4]])
    for n in (0, 1, np.int64(3)):
        y = L.matrix_power(a, n)
        np.testing.assert_array_equal(y.data, np.linalg.matrix_power(a, n))
        assert y.dtype == a.dtype


def test_matrix_power_backward_of_a_high_power_matches_differences(rng):
    assert V.gradcheck(lambda a: L.matrix_power(a, 7), _matrix(rng, (2, 2), diagonal=0.5), order=2)


def test_det_taylor_matches_the_closed_form_polynomial(rng):
    # det(A + t B) for 2x2 matrices is a quadratic in t: its Taylor coefficients end at t^2
    a, b = _matrix(rng, (2, 2)), rng.standard_normal((2, 2))
    derivatives = V.taylor(L.det, a, b, 4)
    quadratic = np.linalg.det(b)
    np.testing.assert_allclose(derivatives[2].data, 2 * quadratic, rtol=1e-10)
    np.testing.assert_allclose([derivatives[3].data, derivatives[4].data], [0.0, 0.0], atol=1e-10)


# ----- the norm at 0 ---------------------------------------------------------------------
@pytest.mark.parametrize("shape, ord, axis", [
    ((3,), None, None), ((3,), 2, 0), ((2, 2), "fro", None), ((2, 3), None, None), ((2, 3), 2, 1),
])
def test_euclidean_norm_at_zero_has_subgradient_zero_at_every_order(shape, ord, axis):
    x = V.Variable(np.zeros(shape))
    y = L.norm(x, ord, axis)
    np.testing.assert_array_equal(y.data, np.zeros(y.shape))
    g, = V.grad(V.sum(y), [x], create_graph=True)
    np.testing.assert_array_equal(g.data, np.zeros(shape))
    weights = np.arange(1.0, 1.0 + x.size).reshape(shape)
    h, = V.grad(V.sum(g * weights), [x], create_graph=True)
    np.testing.assert_array_equal(h.data, np.zeros(shape))
    k, = V.grad(V.sum(h * weights), [x], allow_unused=True, materialize_grads=True)
    np.testing.assert_array_equal(k.data, np.zeros(shape))
    _, tangent = V.jvp(lambda t: L.norm(t, ord, axis), np.zeros(shape), np.ones(shape))
    np.testing.assert_array_equal(tangent.data, np.zeros(y.shape))


def test_norm_gradient_is_zero_only_in_the_slices_that_are_zero():
    data = np.array([[0.0, 0.0], [3.0, 4.0]])
    x = V.Variable(data)
    g, = V.grad(V.sum(L.norm(x, axis=1)), [x])
    np.testing.assert_allclose(g.data, [[0.0, 0.0], [0.6, 0.8]], rtol=1e-12)


def test_norm_of_integers_is_float64_and_float32_stays_float32():
    assert L.norm([3, 4]).dtype == np.float64
    np.testing.assert_allclose(L.norm([3, 4]).data, 5.0)
    for ord in (None, 1, INF, 0, 3):
        assert L.norm(np.ones(3, np.float32), ord).dtype == np.float32
    for ord in ("fro", 1, "nuc", 2):
        assert L.norm(np.eye(2, dtype=np.float32), ord).dtype == np.float32


# ----- bad arguments --------------------------------------------------------------------
@pytest.mark.parametrize("op, call, kind, parts", [
    ("inv", lambda: L.inv(np.ones(3)), np.linalg.LinAlgError, ["(3,)"]),
    ("det", lambda: L.det(np.ones((2, 3))), np.linalg.LinAlgError, ["square", "(2, 3)"]),
    ("slogdet", lambda: L.slogdet(np.ones((3, 2))), np.linalg.LinAlgError, ["square"]),
    ("solve", lambda: L.solve(np.eye(3), np.ones(2)), ValueError, ["(2,)", "(3, 3)"]),
    ("solve", lambda: L.solve(np.eye(3), 1.0), ValueError, ["()"]),
    ("solve", lambda: L.solve(np.ones((2, 3, 3)), np.ones((3, 3, 1))), ValueError, ["broadcast"]),
    ("matrix_power", lambda: L.matrix_power(np.eye(2), 1.5), TypeError, ["integer", "1.5"]),
    ("matrix_power", lambda: L.matrix_power(np.ones((2, 3)), 2), np.linalg.LinAlgError, ["square"]),
    ("pinv", lambda: L.pinv(np.ones(3)), np.linalg.LinAlgError, ["(3,)"]),
    ("pinv", lambda: L.pinv(np.ones((2, 3)), hermitian=True), np.linalg.LinAlgError, ["square"]),
    ("lstsq", lambda: L.lstsq(np.ones((2, 2, 2)), np.ones(2)), np.linalg.LinAlgError, ["(2, 2, 2)"]),
    ("lstsq", lambda: L.lstsq(np.ones((3, 2)), np.ones(2)), np.linalg.LinAlgError, ["(3, 2)", "(2,)"]),
    ("norm", lambda: L.norm(np.ones(3), "fro"), ValueError, ["'fro'", "vectors"]),
    ("norm", lambda: L.norm(np.ones(3), "nuc", 0), ValueError, ["'nuc'", "vectors"]),
    ("norm", lambda: L.norm(np.ones((2, 2)), 3), ValueError, ["3", "matrices"]),
    ("norm", lambda: L.norm(np.ones((2, 2, 2)), 1), ValueError, ["1-D or 2-D", "(2, 2, 2)"]),
    ("norm", lambda: L.norm(np.ones(3), axis=3), ValueError, ["axis 3", "(3,)"]),
    ("norm", lambda: L.norm(np.ones((2, 2)), axis=(0, -2)), ValueError, ["duplicate"]),
    ("norm", lambda: L.norm(np.ones((2, 2, 2)), axis=(0, 1, 2)), ValueError, ["(0, 1, 2)"]),
    ("norm", lambda: L.norm(np.ones((2, 2)), axis="0"), TypeError, ["axis"]),
    ("norm", lambda: L.norm(np.ones((0, 3)), -INF, 0), ValueError, ["minimum", "empty", "(0, 3)"]),
    ("norm", lambda: L.norm(np.ones((3, 0)), -1, None), ValueError, ["minimum", "empty", "(3, 0)"]),
    ("norm", lambda: L.norm(np.ones((0, 2)), -2, None), ValueError, ["minimum", "empty", "(0, 2)"]),
])
def test_bad_arguments_raise_errors_naming_the_op(op, call, kind, parts):
    with pytest.raises(kind) as error:
        call()
    assert_message(error, op, *parts)
