"""np.linalg's Array API functions (V.linalg.vector_norm, matrix_norm, svdvals, cond, trace,
diagonal, cross, outer, tensordot, matrix_transpose, vecdot, multi_dot) against np.linalg.

Norms are sampled away from 0 (the Euclidean ones are smooth there only with the 0
subgradient convention, checked below) and, for the orders made of abs, max and min
(1, -1, inf, -inf), with entries away from 0 and continuous random values (no ties),
checked to order 2.  The singular values are sampled distinct (at least 0.4 apart) and
>= 0.5, where they are smooth: rows through them have V.linalg.svd's first-order Taylor
rule (Row.taylor = 1).  cond's norm orders invert well-conditioned matrices.
"""

import numpy as np
import pytest
from op_rows import PIECEWISE, SMOOTH, Row, nonzero, normal, table_tests, with_zeros
from variable_checks import assert_message

import variable as V

L = V.linalg
INF = np.inf
FTOL = 1e-4   # float32 against float64 through an SVD or an inverse


# ----- samplers ---------------------------------------------------------------------
def _orthogonal(rng, n):
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def distinct(*shapes):
    """Matrices (stacks) whose singular values are >= 0.5 and at least 0.4 apart."""
    def one(rng, m, n):
        k = min(m, n)
        s = rng.permutation(0.1 + np.cumsum(rng.uniform(0.4, 1.0, k)))
        return (_orthogonal(rng, m)[:, :k] * s) @ _orthogonal(rng, n)[:k]

    def sample(rng):
        return tuple(np.array([one(rng, *s[-2:]) for _ in range(int(np.prod(s[:-2])))]).reshape(s)
                     for s in shapes)
    return sample


def invertible(*shapes):
    """Entries in [-1, 1] plus 3 on the diagonal: well conditioned, and no ties in row sums."""
    return lambda rng: tuple(rng.uniform(-1, 1, s) + 3 * np.eye(s[-1]) for s in shapes)


def tensor_system(a_shape, b_shape):
    """a (its square matrix, rows = b's entries, well conditioned: random plus 3 I) and b."""
    def sample(rng):
        size = int(np.prod(b_shape))
        a = (rng.uniform(-1, 1, (size, size)) + 3 * np.eye(size)).reshape(a_shape)
        return a, rng.uniform(-1.5, 1.5, b_shape)
    return sample


def tensor_invertible(shape, ind):
    """A tensor whose (prod(shape[:ind]), prod(shape[ind:])) matrix is random plus 3 I."""
    def sample(rng):
        size = int(np.prod(shape[ind:]))
        return ((rng.uniform(-1, 1, (size, size)) + 3 * np.eye(size)).reshape(shape),)
    return sample


def _tensorsolve(a_shape, b_shape, axes=None):
    """A row of tensorsolve(a, b, axes); with `axes`, a_shape is that of a after tensorsolve
    moves those axes to the end (the drawn a has them at the positions `axes`)."""
    params = {} if axes is None else {"axes": axes}
    sample = tensor_system(a_shape, b_shape)
    if axes is not None:
        sample = _moved(sample, axes)
    label = f"{a_shape}x{b_shape}" + (f",axes={axes}" if axes is not None else "")
    return _row(label, lambda a, b: L.tensorsolve(a, b, **params),
                lambda a, b: np.linalg.tensorsolve(a, b, **params), sample)


def _moved(sample, axes):
    """`sample`'s a with its last len(axes) axes moved to positions `axes` (which tensorsolve
    moves back to the end)."""
    def moved(rng):
        a, b = sample(rng)
        return np.moveaxis(a, list(range(a.ndim - len(axes), a.ndim)), list(axes)), b
    return moved


def _row(label, fn, ref, sample, order=SMOOTH, taylor=6):
    return Row(label, fn, ref, sample, order, taylor=taylor, ftol=FTOL)


def _call(name, shapes, sampler=normal, order=SMOOTH, taylor=6, **params):
    """A row of V.linalg.<name>(*xs, **params) against np.linalg.<name>."""
    fn, ref = getattr(L, name), getattr(np.linalg, name)
    label = "x".join(map(str, shapes)) + "".join(f",{k}={v}" for k, v in params.items())
    return _row(label, lambda *xs: fn(*xs, **params), lambda *xs: ref(*xs, **params), sampler(*shapes),
                order, taylor)


def _multi_dot(*shapes):
    return _row("x".join(map(str, shapes)), lambda *xs: L.multi_dot(list(xs)),
                lambda *xs: np.linalg.multi_dot(list(xs)), normal(*shapes))


ROWS = {
    "linalg.vector_norm": [
        # the 2-norm over any axes, any dimension
        _call("vector_norm", [()]), _call("vector_norm", [(3,)]), _call("vector_norm", [(2, 3)]),
        _call("vector_norm", [(2, 3, 2)], keepdims=True), _call("vector_norm", [(2, 3)], axis=1),
        _call("vector_norm", [(2, 3)], axis=-2, keepdims=True),
        _call("vector_norm", [(2, 3, 2)], axis=(0, 2)),
        _call("vector_norm", [(2, 3, 2)], axis=(-1, 0, 1), keepdims=True),
        _call("vector_norm", [(2, 3)], ord=None, axis=(1,)),
        _call("vector_norm", [(0, 3)], axis=1),
        # the other orders
        _call("vector_norm", [(3,)], nonzero, PIECEWISE, ord=1),
        _call("vector_norm", [(2, 3, 2)], nonzero, PIECEWISE, ord=1, axis=(0, 2)),
        _call("vector_norm", [(2, 3)], nonzero, PIECEWISE, ord=INF),
        _call("vector_norm", [(2, 3)], nonzero, PIECEWISE, ord=-INF, axis=0, keepdims=True),
        _call("vector_norm", [(2, 3, 2)], nonzero, PIECEWISE, ord=INF, axis=(1, 2), keepdims=True),
        _call("vector_norm", [(2, 3)], with_zeros, PIECEWISE, ord=0),
        _call("vector_norm", [(2, 3)], nonzero, ord=3, axis=1),
        _call("vector_norm", [(2, 3, 2)], nonzero, ord=0.5, axis=(0, 1)),
        _call("vector_norm", [(2, 3)], nonzero, ord=-2),
        _call("vector_norm", [(2, 3)], nonzero, ord=3, axis=()),        # over no axis: |x|
        _call("vector_norm", [()], nonzero, ord=1.5),
    ],
    "linalg.matrix_norm": [
        _call("matrix_norm", [(2, 3)]), _call("matrix_norm", [(2, 3, 2)], keepdims=True),
        _call("matrix_norm", [(2, 3)], ord=None), _call("matrix_norm", [(0, 3)]),
        _call("matrix_norm", [(2, 3)], nonzero, PIECEWISE, ord=1),
        _call("matrix_norm", [(2, 2, 3)], nonzero, PIECEWISE, ord=-1, keepdims=True),
        _call("matrix_norm", [(2, 3)], nonzero, PIECEWISE, ord=INF),
        _call("matrix_norm", [(2, 3, 2)], nonzero, PIECEWISE, ord=-INF),
        _call("matrix_norm", [(3, 2)], distinct, taylor=1, ord="nuc"),
        _call("matrix_norm", [(2, 3, 3)], distinct, taylor=1, ord=2, keepdims=True),
        _call("matrix_norm", [(2, 3)], distinct, taylor=1, ord=-2),
    ],
    "linalg.svdvals": [
        _call("svdvals", [s], distinct, taylor=1) for s in [(3, 3), (3, 2), (2, 3), (2, 3, 3), (2, 1, 2, 3)]
    ] + [_call("svdvals", [(0, 3)], taylor=1)],
    "linalg.cond": [
        _call("cond", [(3, 3)], distinct, taylor=1), _call("cond", [(3, 2)], distinct, taylor=1),
        _call("cond", [(2, 3)], distinct, taylor=1, p=2),
        _call("cond", [(2, 3, 3)], distinct, taylor=1, p=-2),
        _call("cond", [(3, 3)], invertible, p="fro"), _call("cond", [(2, 3, 3)], invertible, p="fro"),
        _call("cond", [(3, 3)], invertible, taylor=1, p="nuc"),
        _call("cond", [(3, 3)], invertible, PIECEWISE, p=1),
        _call("cond", [(2, 3, 3)], invertible, PIECEWISE, p=-1),
        _call("cond", [(3, 3)], invertible, PIECEWISE, p=INF),
        _call("cond", [(3, 3)], invertible, PIECEWISE, p=-INF),
    ],
    "linalg.trace": [
        _call("trace", [(3, 3)]), _call("trace", [(2, 3)]), _call("trace", [(2, 3, 4)]),
        _call("trace", [(2, 3, 4)], offset=1), _call("trace", [(3, 3)], offset=-2),
        _call("trace", [(2, 3)], offset=5), _call("trace", [(0, 2, 2)]),
    ],
    "linalg.diagonal": [
        _call("diagonal", [(3, 3)]), _call("diagonal", [(2, 3)]), _call("diagonal", [(2, 3, 4)]),
        _call("diagonal", [(2, 3, 4)], offset=2), _call("diagonal", [(3, 2)], offset=-1),
        _call("diagonal", [(2, 3)], offset=4),
    ],
    "linalg.cross": [
        _call("cross", [(3,), (3,)]), _call("cross", [(2, 3), (3,)]), _call("cross", [(3,), (2, 1, 3)]),
        _call("cross", [(3, 2), (3, 2)], axis=0), _call("cross", [(2, 3, 2), (3, 1)], axis=-2),
        _call("cross", [(0, 3), (3,)]),
    ],
    "linalg.outer": [
        _call("outer", [(3,), (2,)]), _call("outer", [(1,), (4,)]), _call("outer", [(0,), (2,)]),
    ],
    "linalg.tensordot": [
        _call("tensordot", [(2, 3, 2), (3, 2, 2)]), _call("tensordot", [(2, 3), (2, 3)]),
        _call("tensordot", [(2, 3), (3, 2)], axes=1), _call("tensordot", [(2,), (3,)], axes=0),
        _call("tensordot", [(2, 3), (3, 2)], axes=([0, 1], [1, 0])),
        _call("tensordot", [(2, 3), (2, 3, 2)], axes=(-1, 1)),
    ],
    "linalg.matrix_transpose": [
        _call("matrix_transpose", [(2, 3)]), _call("matrix_transpose", [(2, 3, 4)]),
        _call("matrix_transpose", [(2, 1, 3, 2)]),
    ],
    "linalg.vecdot": [
        _call("vecdot", [(3,), (3,)]), _call("vecdot", [(2, 3), (3,)]), _call("vecdot", [(2, 1, 3), (4, 3)]),
        _call("vecdot", [(3, 2), (3, 1)], axis=0), _call("vecdot", [(2, 3, 2), (3, 2)], axis=-2),
        _call("vecdot", [(2, 0), (0,)]),
    ],
    "linalg.tensorsolve": [
        _tensorsolve((2, 3, 6), (2, 3)), _tensorsolve((6, 2, 3), (6,)), _tensorsolve((4, 4), (4,)),
        _tensorsolve((2, 3, 2, 3), (2, 3)), _tensorsolve((2, 3, 6), (2, 3), axes=(0,)),
        _tensorsolve((2, 3, 3, 2), (2, 3), axes=(0, 3)),
    ],
    "linalg.tensorinv": [
        _row(f"{shape},ind={ind}", lambda a, ind=ind: L.tensorinv(a, ind),
             lambda a, ind=ind: np.linalg.tensorinv(a, ind), tensor_invertible(shape, ind))
        for shape, ind in [((4, 6, 8, 3), 2), ((6, 2, 3), 1), ((3, 3), 1), ((2, 2, 4), 2), ((1,), 1)]
    ],
    "linalg.multi_dot": [
        _multi_dot((2, 3), (3, 4), (4, 2)), _multi_dot((3,), (3, 4), (4, 2)),
        _multi_dot((2, 3), (3, 4), (4,)),
        _multi_dot((3,), (3, 4), (4,)), _multi_dot((2, 3), (3, 4), (4, 2), (2, 5)),
        _multi_dot((5, 1), (1, 4), (4, 3), (3, 2), (2, 1)), _multi_dot((2, 3), (3,)),
        _multi_dot((2, 2, 3), (3, 2)), _multi_dot((3,), (3,)),
    ],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


# ----- NumPy's functions on Variables ---------------------------------------------------
CALLS = [
    lambda x: np.linalg.vector_norm(x, axis=(0, 1), ord=3),
    lambda x: np.linalg.matrix_norm(x, ord="fro", keepdims=True),
    lambda x: np.linalg.svdvals(x),
    lambda x: np.linalg.cond(x, "fro"),
    lambda x: np.linalg.cond(x),
    lambda x: np.linalg.trace(x, offset=1),
    lambda x: np.linalg.diagonal(x, offset=-1),
    lambda x: np.linalg.cross(x, x[::-1], axis=-1),
    lambda x: np.linalg.outer(x[0], x[1]),
    lambda x: np.linalg.tensordot(x, x, axes=1),
    lambda x: np.linalg.matrix_transpose(x),
    lambda x: np.linalg.vecdot(x, x[0], axis=0),
    lambda x: np.linalg.multi_dot([x, x, x[0]]),
    lambda x: np.linalg.tensorsolve(x[:, :, None] * np.ones(1), x[0], axes=(2,)),
    lambda x: np.linalg.tensorinv(x, ind=1),
]


@pytest.mark.parametrize("call", CALLS)
def test_numpy_linalg_functions_record_gengrads_op(call, rng):
    data = distinct((3, 3))(rng)[0] + 0.5 * np.eye(3)   # distinct singular values, invertible
    x = V.Variable(data)
    y = call(x)
    assert isinstance(y, V.Variable)
    np.testing.assert_allclose(y.data, call(data), rtol=1e-10)
    assert V.gradcheck(call, data, order=2)


def test_matrix_rank_has_no_op_it_runs_on_the_data():
    assert "linalg.matrix_rank" not in V.LINALG_OPS
    assert not hasattr(V.linalg, "matrix_rank")
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert np.linalg.matrix_rank(V.Variable(a).data) == 1


# ----- gradient conventions at special points ---------------------------------------------
def test_vector_norm_of_zero_has_gradient_zero_to_every_order():
    # linalg.norm's (and PyTorch's) convention for the 2-norm at 0: the subgradient 0
    x = V.Variable(np.zeros((2, 3)))
    g, = V.grad(L.vector_norm(x, axis=(0, 1)), [x], create_graph=True)
    np.testing.assert_array_equal(g.data, np.zeros((2, 3)))
    h, = V.grad(V.sum(g), [x], allow_unused=True, materialize_grads=True)
    np.testing.assert_array_equal(h.data, np.zeros((2, 3)))
    g, = V.grad(V.sum(L.matrix_norm(x)), [x])
    np.testing.assert_array_equal(g.data, np.zeros((2, 3)))
    _, dy = V.jvp(L.vector_norm, np.zeros(3), np.ones(3))
    np.testing.assert_array_equal(dy.data, 0.0)


def test_vector_norm_conventions_of_the_other_orders_are_linalg_norms():
    x = V.Variable(np.array([0.0, -2.0, 2.0, 1.0]))
    g, = V.grad(L.vector_norm(x, ord=1), [x])                 # d|x| = sign(x), 0 at 0
    np.testing.assert_array_equal(g.data, [0.0, -1.0, 1.0, 1.0])
    g, = V.grad(L.vector_norm(x, ord=INF), [x])               # a tie: shared evenly
    np.testing.assert_array_equal(g.data, [0.0, -0.5, 0.5, 0.0])
    g, = V.grad(L.vector_norm(x, ord=0), [x])                 # a count: gradient 0
    np.testing.assert_array_equal(g.data, np.zeros(4))
    for ord in (1, INF, 0, 3):
        expected = V.grad(L.norm(x, ord), [x])[0].data
        np.testing.assert_array_equal(V.grad(L.vector_norm(x, ord=ord), [x])[0].data, expected)


def test_vector_norm_takes_integers_as_float64():
    y = L.vector_norm(np.arange(4).reshape(2, 2), axis=1)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.data, np.linalg.vector_norm(np.arange(4).reshape(2, 2), axis=1))


def test_svdvals_gradient_at_repeated_singular_values_is_svds():
    # first order: U V^T for d sum(S), defined at repeated values; the second moves the
    # singular vectors and raises, as V.linalg.svd's
    q = _orthogonal(np.random.default_rng(1), 3)
    a = (q * np.array([2.0, 1.0, 1.0])) @ q.T
    x = V.Variable(a)
    g, = V.grad(V.sum(L.svdvals(x)), [x], create_graph=True)
    u, _, vh = np.linalg.svd(a)
    np.testing.assert_allclose(g.data, u @ vh, atol=1e-12)
    with pytest.raises(np.linalg.LinAlgError) as error:
        V.grad(V.sum(g * np.arange(9.0).reshape(3, 3)), [x])
    assert_message(error, "svd", "singular vectors")


def test_cond_of_a_singular_matrix_is_inf_as_numpy():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    for a in (singular, np.zeros((2, 2)), np.stack([np.eye(2), np.zeros((2, 2))])):
        for p in (None, 2, -2):
            np.testing.assert_array_equal(L.cond(a, p).data, np.linalg.cond(a, p))
    x = V.Variable(np.zeros((2, 2)))
    with np.errstate(divide="ignore", invalid="ignore"):     # NumPy's warnings of 0 / 0 in backward
        g, = V.grad(L.cond(x), [x])
    assert not np.isfinite(V.backend.to_cpu(g.data)).any()    # not a number: no derivative there


def test_nan_input_as_numpy():
    a = np.array([[1.0, np.nan], [0.0, 1.0]])
    for op, call in [("cond", L.cond), ("svdvals", L.svdvals)]:
        with pytest.raises(np.linalg.LinAlgError) as error:  # as np.linalg.cond(a): LAPACK fails
            call(a)
        assert_message(error, op, "did not converge", "NaN")
    np.testing.assert_array_equal(L.cond(a, "fro").data, np.linalg.cond(a, "fro"))   # NaN


def test_multi_dot_chooses_numpys_cheapest_order():
    shapes = [(10, 100), (100, 5), (5, 50)]
    xs = [V.Variable(np.ones(s)) for s in shapes]
    y = L.multi_dot(xs)
    # (A B) C costs 10*100*5 + 10*5*50 = 7500, A (B C) 100*5*50 + 10*100*50 = 75000
    first = y.creator.inputs[0]
    assert first.shape == (10, 5)
    np.testing.assert_allclose(y.data, np.linalg.multi_dot([np.ones(s) for s in shapes]))


def test_trace_and_diagonal_read_the_last_two_axes(rng):
    data = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(L.trace(data).data, np.trace(data, axis1=-2, axis2=-1))
    np.testing.assert_allclose(V.trace(data).data, np.trace(data))            # V.trace: axes 0, 1
    np.testing.assert_allclose(L.diagonal(data).data, np.diagonal(data, axis1=-2, axis2=-1))


# ----- refusals -------------------------------------------------------------------------
M = np.ones((2, 3))
S = np.eye(3)


@pytest.mark.parametrize("call, error, op, parts", [
    (lambda: L.vector_norm(M, ord="fro"), ValueError, "vector_norm", ["'fro'", "matrix_norm"]),
    (lambda: L.vector_norm(M, axis=[0, 1]), TypeError, "vector_norm", ["tuple of ints"]),
    (lambda: L.vector_norm(M, ord=[1]), TypeError, "vector_norm", ["ord must be a real number"]),
    (lambda: L.vector_norm(M, axis=2), ValueError, "vector_norm", ["axis 2 is out of range", "(2, 3)"]),
    (lambda: L.vector_norm(M, axis=(0, 0)), ValueError, "vector_norm", ["repeated axis"]),
    (lambda: L.matrix_norm(np.ones(3)), ValueError, "matrix_norm", ["at least 2-d", "(3,)"]),
    (lambda: L.matrix_norm(M, ord=3), ValueError, "matrix_norm", ["invalid order 3", "vector_norm"]),
    (lambda: L.matrix_norm(M, ord="max"), ValueError, "matrix_norm", ["invalid order 'max'"]),
    (lambda: L.svdvals(np.ones(3)), np.linalg.LinAlgError, "svdvals", ["at least 2-d", "(3,)"]),
    (lambda: L.cond(np.ones(3)), np.linalg.LinAlgError, "cond", ["at least 2-d"]),
    (lambda: L.cond(np.ones((0, 0))), np.linalg.LinAlgError, "cond", ["empty", "(0, 0)"]),
    (lambda: L.cond(M, "fro"), np.linalg.LinAlgError, "cond", ["square", "(2, 3)"]),
    (lambda: L.cond(np.array([[1.0, 2.0], [2.0, 4.0]]), 1), np.linalg.LinAlgError, "cond",
     ["singular", "p=None"]),
    (lambda: L.cond(S, 3), ValueError, "cond", ["invalid order 3"]),
    (lambda: L.cond(S, "max"), ValueError, "cond", ["invalid order 'max'"]),
    (lambda: L.trace(np.ones(3)), ValueError, "linalg.trace", ["at least 2-d"]),
    (lambda: L.trace(S, dtype=np.float32), TypeError, "linalg.trace", ["dtype="]),
    (lambda: L.trace(S, offset=0.5), TypeError, "linalg.trace", ["offset must be an int"]),
    (lambda: L.diagonal(np.ones(3)), ValueError, "linalg.diagonal", ["at least 2-d"]),
    (lambda: L.diagonal(S, offset=None), TypeError, "linalg.diagonal", ["offset must be an int"]),
    (lambda: L.cross(np.ones(2), np.ones(2)), ValueError, "linalg.cross", ["3-vectors", "2 and 2"]),
    (lambda: L.cross(np.ones((3, 2)), np.ones((3, 2))), ValueError, "linalg.cross", ["lengths 2 and 2"]),
    (lambda: L.cross(np.ones(3), np.ones(()), axis=-1), ValueError, "linalg.cross", ["3-vectors", "()"]),
    (lambda: L.cross(np.ones(3), np.ones(3), axis=1), ValueError, "linalg.cross", ["axis 1 is out of range"]),
    (lambda: L.cross(np.ones(3), np.ones(3), axis=None), TypeError, "linalg.cross", ["axis must be an int"]),
    (lambda: L.outer(M, np.ones(3)), ValueError, "linalg.outer", ["1-d", "(2, 3)", "V.outer"]),
    (lambda: L.tensordot(M, M, axes=3), ValueError, "tensordot", ["axes=3"]),
    (lambda: L.vecdot(M, np.ones(2)), ValueError, "linalg.vecdot", ["differ in length"]),
    (lambda: L.vecdot(M, M, axis=None), TypeError, "linalg.vecdot", ["axis must be an int"]),
    (lambda: L.matrix_transpose(np.ones(3)), ValueError, "matrix_transpose", ["at least 2-d"]),
    (lambda: L.multi_dot([M]), ValueError, "multi_dot", ["at least two"]),
    (lambda: L.multi_dot(M), TypeError, "multi_dot", ["list or tuple"]),
    (lambda: L.multi_dot([M, S], out=np.empty((2, 3))), TypeError, "multi_dot", ["out="]),
    (lambda: L.multi_dot([M, np.ones((3, 3, 3)), S]), ValueError, "multi_dot", ["array 1 is 3-d"]),
    (lambda: L.multi_dot([M, M]), ValueError, "multi_dot", ["not aligned", "(2, 3)"]),
    # regression: these were linalg.norm's or V.dot's errors, naming norm or dot
    (lambda: L.vector_norm(np.ones((2, 0)), ord=-INF), ValueError, "vector_norm", ["empty axis", "ord=-inf"]),
    (lambda: L.vector_norm(np.ones((2, 0)), ord=-INF, axis=1), ValueError, "vector_norm", ["empty axis"]),
    (lambda: L.matrix_norm(np.ones((2, 0)), ord=-2), ValueError, "matrix_norm", ["empty axis", "ord=-2"]),
    (lambda: L.matrix_norm(np.full((2, 3), np.nan), ord="nuc"), ValueError, "matrix_norm",
     ["did not converge"]),
    (lambda: L.tensorsolve(np.ones((2, 3, 4)), np.ones((2, 3))), np.linalg.LinAlgError, "linalg.tensorsolve",
     ["prod(a.shape[b.ndim:])", "(2, 3, 4)"]),
    (lambda: L.tensorsolve(np.zeros((2, 3, 6)), np.ones((2, 3))), np.linalg.LinAlgError, "linalg.tensorsolve",
     ["Singular matrix", "(6, 6)"]),
    (lambda: L.tensorsolve(np.ones((3, 3)), np.ones(3), axes=(-1,)), ValueError, "linalg.tensorsolve",
     ["axes of a", "negative"]),
    (lambda: L.tensorsolve(np.ones((3, 3)), np.ones(3), axes=(0.5,)), TypeError, "linalg.tensorsolve",
     ["sequence of ints"]),
    (lambda: L.tensorsolve(np.ones((6, 6)), np.ones((2, 3, 1))), np.linalg.LinAlgError,
     "linalg.tensorsolve", []),
    (lambda: L.tensorsolve("a", np.ones(3)), TypeError, "linalg.tensorsolve", []),
    (lambda: L.tensorinv(np.ones((2, 3, 6)), 0), ValueError, "linalg.tensorinv", ["invalid ind", "positive"]),
    (lambda: L.tensorinv(np.ones((2, 3)), 1.0), TypeError, "linalg.tensorinv", ["ind must be an int"]),
    (lambda: L.tensorinv(np.ones((2, 3, 4)), 1), np.linalg.LinAlgError, "linalg.tensorinv",
     ["not square", "(2, 3, 4)"]),
    (lambda: L.tensorinv(np.ones((2, 5)), 1), np.linalg.LinAlgError, "linalg.tensorinv",
     ["not square", "(5, 2)"]),
    (lambda: L.tensorinv(np.zeros((2, 3, 6)), 2), np.linalg.LinAlgError, "linalg.tensorinv",
     ["Singular matrix", "(6, 6)"]),
    (lambda: L.tensorinv(np.ones((3, 0)), 1), ValueError, "linalg.tensorinv", ["cannot be read", "(3, 0)"]),
    (lambda: L.multi_dot(["a", M]), TypeError, "multi_dot", []),
    (lambda: L.multi_dot([M, None]), TypeError, "multi_dot", []),
    (lambda: L.multi_dot([M, S, M]), ValueError, "multi_dot",
     ["arrays 1 and 2 do not chain", "(3, 3)", "(2, 3)"]),
])
def test_refusals_name_the_op(call, error, op, parts):
    with pytest.raises(error) as raised:
        call()
    assert_message(raised, op, *parts)


# ----- tensorsolve, tensorinv -------------------------------------------------------------
def test_tensorsolve_solves_the_tensordot_system(rng):
    a, b = tensor_system((2, 3, 2, 3), (2, 3))(rng)
    av, bv = V.Variable(a), V.Variable(b)
    x = L.tensorsolve(av, bv)
    np.testing.assert_allclose(np.tensordot(a, V.backend.to_cpu(x.data), 2), b, atol=1e-12)
    # gradients: solve's, x = A^-1 b with A the (6, 6) matrix: gb = A^-T g, ga = -gb x^T
    g = rng.standard_normal(x.shape)
    ga, gb = V.grad(V.sum(x * V.Variable(g)), [av, bv])
    ga, gb = V.backend.to_cpu(ga.data), V.backend.to_cpu(gb.data)
    A = a.reshape(6, 6)
    expected_gb = np.linalg.solve(A.T, g.ravel())
    np.testing.assert_allclose(gb, expected_gb.reshape(2, 3), rtol=1e-10)
    solution = V.backend.to_cpu(x.data).ravel()
    np.testing.assert_allclose(ga, -np.outer(expected_gb, solution).reshape(a.shape), rtol=1e-10)


def test_tensorinv_is_the_tensordot_inverse_with_every_order(rng):
    a, = tensor_invertible((2, 3, 6), 2)(rng)
    y = L.tensorinv(V.Variable(a), 2)
    np.testing.assert_allclose(np.tensordot(V.backend.to_cpu(y.data), a, 2), np.eye(6), atol=1e-12)
    assert V.gradcheck(lambda t: L.tensorinv(t, 2), a, order=3)
    assert V.taylorcheck(lambda t: L.tensorinv(t, 2), a, order=4)


def test_tensorsolve_takes_repeated_axes_as_numpy(rng):
    # NumPy's list.remove / append moves a repeated axis to the end again: no error
    a, b = tensor_system((3, 3), (3,))(rng)
    expected = np.linalg.tensorsolve(a, b, axes=(0, 0))
    np.testing.assert_allclose(L.tensorsolve(a, b, axes=(0, 0)).data, expected)


def test_tensorsolve_of_a_0d_b_keeps_numpys_quirk():
    # b 0-d: NumPy's slice a.shape[-0:] is all of a's shape, so only a 1-entry a works
    a, b = np.array([[2.0]]), np.array(4.0)
    np.testing.assert_allclose(L.tensorsolve(a, b).data, np.linalg.tensorsolve(a, b))
    assert L.tensorsolve(a, b).shape == np.linalg.tensorsolve(a, b).shape
