"""The Array API's names in NumPy 2 (cumulative_sum, cumulative_prod, vecdot, matrix_transpose,
permute_dims, unstack) and diagflat, unwrap, delete, insert, block (variable/ops/array_api.py),
and ediff1d, linspace, logspace, geomspace and unique (variable/ops/sequences.py), against
NumPy.

All but unwrap and unique are smooth compositions of gengrad's ops, checked to order 3;
unwrap is piecewise (the multiples of the period it adds jump where a step between
neighbours crosses a threshold), checked to order 2 at points whose steps stay away from
the thresholds; unique is a gather whose positions the data decide, checked to order 2 at
points without repeats (a finite difference moves one entry of a tie, which breaks it).
Below the table: NumPy's dispatch on Variables, the points the table cannot show (zeros in
cumulative_prod, repeated insertions, empty inputs, unique's repeats and NaNs, linspace's
edge counts) and every refusal.
"""

import math

import numpy as np
import pytest
from op_rows import PIECEWISE, SMOOTH, Row, normal, positive, table_tests
from variable_checks import assert_message

import variable as V


def _rows(name, cases, **params):
    """Rows of V.<name>(*xs, **params) against np.<name>, one per tuple of operand shapes."""
    label = "".join(f",{k}={v}" for k, v in params.items())
    return [
        Row("x".join(map(str, shapes)) + label,
            lambda *xs: getattr(V, name)(*xs, **params),
            lambda *xs: getattr(np, name)(*xs, **params),
            normal(*shapes), SMOOTH)
        for shapes in cases
    ]


def phases(shape, period=2 * math.pi):
    """Phases that wrapped: b + period * k with |b| <= period / 8 and k in -2..2, so every step
    between neighbours is at least period / 4 away from the thresholds (period / 2 mod period)
    and from discont=4 (for the 2 pi period)."""
    def sample(rng):
        return (rng.uniform(-period / 8, period / 8, shape) + period * rng.integers(-2, 3, shape),)
    return sample


def _unwrap(shape, **params):
    label = f"{shape}" + "".join(f",{k}={v}" for k, v in params.items())
    return Row(label, lambda p: V.unwrap(p, **params), lambda p: np.unwrap(p, **params),
               phases(shape, params.get("period", 2 * math.pi)), PIECEWISE)


def _positions(name, shape, obj, axis, values=None):
    """A row of V.delete(arr, obj, axis) (V.insert with a Variable `values` of that shape)."""
    if values is None:
        return Row(f"{shape},obj={obj},axis={axis}", lambda a: V.delete(a, obj, axis),
                   lambda a: np.delete(a, obj, axis), normal(shape), SMOOTH)
    return Row(f"{shape},obj={obj},values {values},axis={axis}", lambda a, v: V.insert(a, obj, v, axis),
               lambda a, v: np.insert(a, obj, v, axis), normal(shape, values), SMOOTH)


def spread(*shapes):
    """Entries of each shape far apart (gaps of at least 0.2 between any two of all the
    operands): no ties, before or after a finite-difference step, for unique."""
    def sample(rng):
        sizes = [math.prod(s) for s in shapes]
        grid = rng.permutation(np.linspace(-1.5, 1.5, max(sum(sizes), 2)))
        grid = grid + rng.uniform(-0.05, 0.05, grid.shape)
        starts = np.cumsum([0] + sizes)
        return tuple(grid[a:b].reshape(s) for a, b, s in zip(starts[:-1], starts[1:], shapes))
    return sample


def _call(name, **params):
    """A row's fn and ref: V.<name>(*xs, **params) and np.<name>(*xs, **params)."""
    return (lambda *xs: getattr(V, name)(*xs, **params)), (lambda *xs: getattr(np, name)(*xs, **params))


def _spacing(name, shapes, sampler=normal, float32=True, **params):
    """A row of linspace, logspace or geomspace from operands of `shapes`."""
    label = "x".join(map(str, shapes)) + "".join(f",{k}={v}" for k, v in params.items())
    return Row(label, *_call(name, **params), sampler(*shapes), SMOOTH, float32=float32)


def same_sign(*shapes):
    """geomspace's ends: magnitudes in [0.5, 2], all of one sign (drawn)."""
    def sample(rng):
        sign = rng.choice([-1.0, 1.0])
        return tuple(sign * rng.uniform(0.5, 2.0, s) for s in shapes)
    return sample


def _unique(shape, **params):
    """A row of the values of V.unique(x, **params) at a point without repeats."""
    label = f"{shape}" + "".join(f",{k}={v}" for k, v in params.items())
    return Row(label, lambda x: _values(V.unique(x, **params)), lambda x: _values(np.unique(x, **params)),
               spread(shape), PIECEWISE)


def _values(out):
    """unique's values, whether it returned them alone or first in a tuple."""
    return out[0] if isinstance(out, tuple) else out


ROWS = {
    "cumulative_sum": (
        _rows("cumulative_sum", [((),), ((3,),), ((0,),)])
        + _rows("cumulative_sum", [((2, 3),)], axis=1)
        + _rows("cumulative_sum", [((2, 3),)], axis=-2)
        + _rows("cumulative_sum", [((3,),), ((),)], include_initial=True)
        + _rows("cumulative_sum", [((2, 3),), ((2, 0),)], axis=1, include_initial=True)
        + _rows("cumulative_sum", [((2, 3, 2),)], axis=0, include_initial=True)
    ),
    "cumulative_prod": (
        _rows("cumulative_prod", [((),), ((4,),)])
        + _rows("cumulative_prod", [((2, 3),)], axis=-1)
        + _rows("cumulative_prod", [((2, 3),)], axis=0)
        + _rows("cumulative_prod", [((3,),)], include_initial=True)
        + _rows("cumulative_prod", [((2, 3),)], axis=1, include_initial=True)
        + _rows("cumulative_prod", [((3, 2),)], axis=0, include_initial=True)
    ),
    "vecdot": (
        _rows("vecdot", [((3,), (3,)), ((2, 3), (3,)), ((3,), (2, 3)), ((2, 1, 3), (4, 3)), ((0, 3), (3,)),
                         ((2, 0), (0,))])
        + _rows("vecdot", [((3, 2), (3,)), ((3, 2), (3, 1))], axis=0)
        + _rows("vecdot", [((4, 3, 2), (3, 1))], axis=-2, keepdims=True)
        + _rows("vecdot", [((2, 3), (3,))], keepdims=True)
        + _rows("vecdot", [((3, 2), (2, 3))], axes=[0, 1])
        + _rows("vecdot", [((3, 2), (2, 3))], axes=[(0,), (1,), ()])
        + _rows("vecdot", [((3, 2), (2, 3))], axes=[0, -1, 0], keepdims=True)
    ),
    "matvec": (
        _rows("matvec", [((2, 3), (3,)), ((4, 2, 3), (3,)), ((2, 3), (4, 3)), ((2, 1, 2, 3), (4, 3)),
                         ((1, 3), (3,)), ((0, 3), (3,)), ((2, 0), (0,))])
        + _rows("matvec", [((2, 3, 4), (3,))], axes=[(2, 1), 0, 0])
        + _rows("matvec", [((2, 3, 4), (2, 3))], axes=[(-1, -2), -1, (0,)])
    ),
    "vecmat": (
        _rows("vecmat", [((3,), (3, 2)), ((3,), (4, 3, 2)), ((4, 3), (3, 2)), ((4, 3), (2, 1, 3, 2)),
                         ((0,), (0, 2)), ((3,), (3, 0))])
        + _rows("vecmat", [((3,), (2, 3, 4))], axes=[0, (1, 2), 0])
        + _rows("vecmat", [((2, 4), (2, 3, 4))], axes=[-1, (2, 1), (0,)])
    ),
    "matrix_transpose": _rows("matrix_transpose", [((2, 3),), ((2, 3, 4),), ((0, 3),)]),
    "permute_dims": (
        _rows("permute_dims", [((2, 3, 4),), ((3,),), ((),)])
        + _rows("permute_dims", [((2, 3, 4),)], axes=(2, 0, 1))
        + _rows("permute_dims", [((2, 3, 4),)], axes=(-1, 0, -2))
        + _rows("permute_dims", [((2, 3),)], axes=[0, 1])
    ),
    "unstack": (
        _rows("unstack", [((3,),), ((2, 3),), ((2, 3, 2),)])
        + _rows("unstack", [((2, 3),), ((2, 3, 2),)], axis=1)
        + _rows("unstack", [((2, 3, 2),)], axis=-1)
    ),
    "diagflat": (
        _rows("diagflat", [((3,),), ((2, 2),), ((),)])
        + _rows("diagflat", [((3,),)], k=1)
        + _rows("diagflat", [((2, 2),)], k=-2)
    ),
    "unwrap": [
        _unwrap((6,)), _unwrap((2, 5)), _unwrap((4, 3), axis=0), _unwrap((2, 5), axis=-2),
        _unwrap((6,), discont=4.0), _unwrap((2, 5), period=3.0), _unwrap((6,), period=360.0),
        _unwrap((1,)), _unwrap((0, 3), axis=0),
    ],
    "delete": [
        _positions("delete", (2, 3), 1, 1), _positions("delete", (3, 2), [0, 2], 0),
        _positions("delete", (2, 3), -1, None), _positions("delete", (2, 3), slice(0, 3, 2), -1),
        _positions("delete", (2, 3), [True, False, True], 1), _positions("delete", (4,), [], 0),
        _positions("delete", (3,), [0, 0, 2], None),
    ],
    "insert": [
        _positions("insert", (2, 3), 1, 1, values=(2,)),             # one column
        _positions("insert", (2, 3), 1, 0, values=(3,)),             # one row
        _positions("insert", (2, 3), [1], 1, values=(2, 1)),
        _positions("insert", (2, 3), [1, 1, 3], 1, values=(3,)),     # several columns, one repeated
        _positions("insert", (2, 3), 2, None, values=()),            # flattened, one number
        _positions("insert", (2, 3), 1, 1, values=()),               # a number broadcast to a column
        _positions("insert", (2, 3), slice(0, 3), -1, values=(1,)),  # broadcast: its gradient sums
        _positions("insert", (3,), 3, 0, values=(2,)),               # at the end
        _positions("insert", (2, 3), [0, 2], 0, values=(2, 3)),
        Row("(2, 3),obj=1,value 0.5,axis=0", lambda a: V.insert(a, 1, 0.5, axis=0),
            lambda a: np.insert(a, 1, 0.5, axis=0), normal((2, 3)), SMOOTH),
    ],
    "block": [
        Row("[[a, b], [c]]", lambda a, b, c: V.block([[a, b], [c]]), lambda a, b, c: np.block([[a, b], [c]]),
            normal((2, 2), (2, 1), (1, 3)), SMOOTH),
        Row("[a, b]", lambda a, b: V.block([a, b]), lambda a, b: np.block([a, b]), normal((3,), (2,)),
            SMOOTH),
        Row("[[a], [b]] 1-d", lambda a, b: V.block([[a], [b]]), lambda a, b: np.block([[a], [b]]),
            normal((3,), (3,)), SMOOTH),
        Row("[[a, 1.5]]", lambda a: V.block([[a, 1.5]]), lambda a: np.block([[a, 1.5]]), normal((1, 2)),
            SMOOTH),
        Row("[[[a, b]], [[c, d]]]", lambda a, b, c, d: V.block([[[a, b]], [[c, d]]]),
            lambda a, b, c, d: np.block([[[a, b]], [[c, d]]]),
            normal((1, 2, 1), (1, 2, 2), (1, 2, 2), (1, 2, 1)), SMOOTH),
        Row("a alone", V.block, np.block, normal((2, 3)), SMOOTH),
        Row("[a, a]", lambda a: V.block([a, a]), lambda a: np.block([a, a]), normal((2,)), SMOOTH),
    ],
    "ediff1d": [
        Row("(3,)", V.ediff1d, np.ediff1d, normal((3,)), SMOOTH),
        Row("(2, 3)", V.ediff1d, np.ediff1d, normal((2, 3)), SMOOTH),
        Row("()", V.ediff1d, np.ediff1d, normal(()), SMOOTH),
        Row("(1,)", V.ediff1d, np.ediff1d, normal((1,)), SMOOTH),
        Row("(2, 3),to_end (2,),to_begin ()", V.ediff1d, np.ediff1d, normal((2, 3), (2,), ()), SMOOTH),
        Row("(4,),to_end (2, 2)", V.ediff1d, np.ediff1d, normal((4,), (2, 2)), SMOOTH),
        Row("(3,),to_begin (0,)", lambda a, b: V.ediff1d(a, to_begin=b),
            lambda a, b: np.ediff1d(a, to_begin=b), normal((3,), (0,)), SMOOTH),
        Row("(2, 2),numbers", lambda a: V.ediff1d(a, to_end=2.5, to_begin=-1.0),
            lambda a: np.ediff1d(a, to_end=2.5, to_begin=-1.0), normal((2, 2)), SMOOTH),
    ],
    "linspace": [
        _spacing("linspace", ((), ()), num=5), _spacing("linspace", ((), ()), num=4, endpoint=False),
        _spacing("linspace", ((), ()), num=1), _spacing("linspace", ((), ()), num=1, endpoint=False),
        _spacing("linspace", ((), ()), num=0), _spacing("linspace", ((), ()), num=2),
        _spacing("linspace", ((3,), ()), num=4), _spacing("linspace", ((2, 1), (3,)), num=3, axis=1),
        _spacing("linspace", ((2, 1), (3,)), num=4, axis=-1, endpoint=False),
        _spacing("linspace", ((3,), (3,)), num=5, retstep=True),
        _spacing("linspace", ((2,), ()), num=3, axis=-1, retstep=True, endpoint=False),
        Row("(),stop 2.0", lambda a: V.linspace(a, 2.0, 6), lambda a: np.linspace(a, 2.0, 6), normal(()),
            SMOOTH),
    ],
    "logspace": [
        _spacing("logspace", ((), ()), num=4),
        _spacing("logspace", ((), ()), num=3, endpoint=False, base=2.0),
        _spacing("logspace", ((3,), ()), num=3, axis=1), _spacing("logspace", ((), ()), num=1),
        Row("base a Variable", lambda a, b, c: V.logspace(a, b, 3, base=c),
            lambda a, b, c: np.logspace(a, b, 3, base=c), positive((), (), ()), SMOOTH),
        Row("base (2,), axis=-1", lambda a, b, c: V.logspace(a, b, 4, base=c, axis=-1),
            lambda a, b, c: np.logspace(a, b, 4, base=c, axis=-1), positive((), (2, 1), (2,)), SMOOTH),
    ],
    "geomspace": [   # (NumPy computes in float64 whatever the ends' dtype: no float32 pass)
        _spacing("geomspace", ((), ()), same_sign, False, num=4),
        _spacing("geomspace", ((), ()), same_sign, False, num=3, endpoint=False),
        _spacing("geomspace", ((3,), (2, 1)), same_sign, False, num=3, axis=2),
        _spacing("geomspace", ((), ()), same_sign, False, num=1),
        _spacing("geomspace", ((), ()), same_sign, False, num=0),
        _spacing("geomspace", ((2,), ()), same_sign, False, num=3, dtype="float64", axis=-1),
    ],
    "unique": [
        _unique(()), _unique((5,)), _unique((2, 3)), _unique((0,)), _unique((3, 2), axis=0),
        _unique((2, 3), axis=-1), _unique((2, 3), return_index=True, return_counts=True),
        _unique((2, 2, 2), axis=1, return_inverse=True), _unique((4,), sorted=False),
        _unique((4,), equal_nan=False),
    ],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


# ----- NumPy's functions on Variables -----------------------------------------------
@pytest.mark.parametrize("call", [
    lambda np_, x: np_.cumulative_sum(x, axis=1, include_initial=True),
    lambda np_, x: np_.cumulative_prod(x, axis=0),
    lambda np_, x: np_.vecdot(x, x),
    lambda np_, x: np_.matrix_transpose(x),
    lambda np_, x: np_.permute_dims(x, (1, 0)),
    lambda np_, x: np_.unstack(x, axis=1)[2],
    lambda np_, x: np_.diagflat(x, 1),
    lambda np_, x: np_.unwrap(4 * x),
    lambda np_, x: np_.delete(x, [0, 2], axis=1),
    lambda np_, x: np_.insert(x, 1, x[0], axis=0),
    lambda np_, x: np_.block([[x, x], [x, x]]),
    lambda np_, x: np_.ediff1d(x, to_begin=x[0], to_end=1.5),
    lambda np_, x: np_.linspace(x[0], x[1], 4, axis=1),
    lambda np_, x: np_.logspace(x[0], x[1], 3, endpoint=False),
    lambda np_, x: np_.geomspace(2 + x[0], 2 + x[1], 3),
    lambda np_, x: np_.unique(x),
    lambda np_, x: np_.unique(x, axis=1, return_index=True)[0],
])
def test_numpy_functions_record_gengrads_op(call, rng):
    data = rng.uniform(-1.5, 1.5, (2, 3))
    x = V.Variable(data)
    y = call(np, x)
    assert isinstance(y, V.Variable)
    np.testing.assert_allclose(y.data, call(np, data), rtol=1e-12)
    assert V.gradcheck(lambda v: call(np, v), data, order=2)


def test_numpy_vecdot_passes_its_gufunc_keywords(rng):
    data = rng.uniform(-1.5, 1.5, (3, 2))
    x = V.Variable(data)
    y = np.vecdot(x, data, axis=0, keepdims=True)
    np.testing.assert_allclose(y.data, np.vecdot(data, data, axis=0, keepdims=True))
    V.sum(y).backward()
    np.testing.assert_allclose(x.grad.data, data)
    with pytest.raises(TypeError, match="out="):
        np.vecdot(x, data, out=np.empty(2))


def test_numpy_matvec_and_vecmat_pass_their_gufunc_keywords(rng):
    a, v = rng.uniform(-1.5, 1.5, (2, 3, 4)), rng.uniform(-1.5, 1.5, 3)
    x = V.Variable(a)
    y = np.matvec(x, v, axes=[(2, 1), 0, 0])
    assert isinstance(y, V.Variable)
    np.testing.assert_allclose(y.data, np.matvec(a, v, axes=[(2, 1), 0, 0]), rtol=1e-12)
    assert V.gradcheck(lambda t: np.matvec(t, v, axes=[(2, 1), 0, 0]), a, order=3)
    z = np.vecmat(V.Variable(v), a)
    np.testing.assert_allclose(z.data, np.vecmat(v, a), rtol=1e-12)
    assert V.gradcheck(lambda t: np.vecmat(t, a), v, order=3)
    with pytest.raises(TypeError, match="out="):
        np.matvec(x, v[:, None] * np.ones(4), out=np.empty((2, 3)))
    with pytest.raises(TypeError, match="matvec: axis can only be used"):
        np.matvec(x, np.ones(4), axis=0)
    with pytest.raises(TypeError, match="vecmat: keepdims"):
        np.vecmat(np.ones(3), V.Variable(a), keepdims=True)


def test_matvec_and_vecmat_are_matmul_with_its_gradients(rng):
    cpu = V.backend.to_cpu
    a, v, w = rng.standard_normal((2, 3)), rng.standard_normal(3), rng.standard_normal(2)
    x0, x1, xw = V.Variable(a), V.Variable(v), V.Variable(w)
    ga, gv = V.grad(V.sum(V.matvec(x0, x1) * V.Variable(w)), [x0, x1])
    np.testing.assert_allclose(cpu(ga.data), np.outer(w, v))         # d(A v)/dA = u v^T
    np.testing.assert_allclose(cpu(gv.data), a.T @ w)                # d(A v)/dv = A^T u
    gw, ga = V.grad(V.sum(V.vecmat(xw, x0) * x1), [xw, x0])
    np.testing.assert_allclose(cpu(gw.data), a @ v)                  # d(w^T A)/dw = A u
    np.testing.assert_allclose(cpu(ga.data), np.outer(w, v))         # d(w^T A)/dA = w u^T


def test_matvec_and_vecmat_give_numpys_dtype_for_integers_and_booleans():
    for a, v in [(np.arange(6).reshape(2, 3), np.arange(3)),
                 (np.ones((2, 3), bool), np.array([True, False, True])),
                 (np.ones((2, 3), np.int8), np.ones(3, np.int8))]:
        assert V.matvec(a, v).dtype == np.matvec(a, v).dtype
        np.testing.assert_array_equal(V.matvec(a, v).data, np.matvec(a, v))
        assert V.vecmat(v[:2], a).dtype == np.vecmat(v[:2], a).dtype
        np.testing.assert_array_equal(V.vecmat(v[:2], a).data, np.vecmat(v[:2], a))


def test_vecdot_is_the_sum_of_products_with_its_gradients(rng):
    a, b = rng.standard_normal((2, 3)), rng.standard_normal(3)
    x0, x1 = V.Variable(a), V.Variable(b)
    ga, gb = V.grad(V.sum(V.vecdot(x0, x1)), [x0, x1])
    np.testing.assert_allclose(ga.data, np.broadcast_to(b, (2, 3)))   # d/dx1 (x1 . x2) = x2
    np.testing.assert_allclose(gb.data, a.sum(axis=0))                 # summed over the broadcast rows


def test_vecdot_of_integers_stays_integer():
    y = V.vecdot(np.arange(3), np.arange(3))
    assert y.dtype == np.vecdot(np.arange(3), np.arange(3)).dtype
    assert y.item() == 5


def test_vecdot_gives_numpys_dtype_for_booleans_and_small_integers():
    # regression: sum(x1 * x2) alone gave int64 where np.vecdot gives bool (the OR of the
    # ANDs) and int8; V.linalg.vecdot shares the code
    a = np.array([[True, False, True], [False, False, False]])
    b = np.array([True, True, False])
    for x1, x2 in [(a, b), (a.astype(np.int8), b.astype(np.int8)), (a, b.astype(np.int8)), (a[:, :0], b[:0])]:
        expected = np.vecdot(x1, x2)
        for op in (V.vecdot, V.linalg.vecdot):
            y = op(x1, x2)
            assert y.dtype == expected.dtype
            np.testing.assert_array_equal(y.data, expected)


def test_numpy_linspace_of_a_variable_records_the_op():
    start = V.Variable(0.0)
    y = np.linspace(start, 1.0, 5)
    assert isinstance(y, V.Variable) and y.creator is not None
    np.testing.assert_array_equal(y.data, np.linspace(0.0, 1.0, 5))
    V.sum(y).backward()
    assert start.grad.item() == 2.5          # sum_i (1 - i / 4) over i = 0..4


# ----- special points -----------------------------------------------------------------
def test_cumulative_prod_gradient_is_exact_at_zeros():
    # as cumprod: no division by an entry, so one zero or two in a row give exact gradients
    data = np.array([2.0, 0.0, 3.0, 0.0, 5.0])
    x = V.Variable(data)
    g, = V.grad(V.sum(V.cumulative_prod(x, include_initial=True)), [x])
    expected = [sum(np.prod(np.delete(data[:i + 1], k)) for i in range(k, 5)) for k in range(5)]
    np.testing.assert_allclose(g.data, expected)
    assert V.gradcheck(lambda v: V.cumulative_prod(v, include_initial=True), data, order=3)


def test_cumulative_sum_include_initial_puts_the_identity_first():
    x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    y = V.cumulative_sum(x, axis=0, include_initial=True)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.data, [[0, 0], [1, 2], [4, 6]])
    y = V.cumulative_prod(x, axis=1, include_initial=True)
    np.testing.assert_array_equal(y.data, [[1, 1, 2], [1, 3, 12]])


def test_insert_repeated_values_sum_their_gradients():
    arr, values = V.Variable(np.zeros((2, 3))), V.Variable(np.array([1.0, 2.0]))
    y = V.insert(arr, [0, 1, 3], values[:, None], axis=1)   # each value broadcast to 3 columns
    np.testing.assert_array_equal(y.data, np.insert(np.zeros((2, 3)), [0, 1, 3], [[1.0], [2.0]], axis=1))
    ga, gv = V.grad(V.sum(y), [arr, values])
    np.testing.assert_array_equal(ga.data, np.ones((2, 3)))
    np.testing.assert_array_equal(gv.data, [3.0, 3.0])


def test_insert_casts_values_to_the_dtype_of_arr():
    arr = V.Variable(np.zeros(3, dtype=np.float32))
    values = V.Variable(np.array([0.1, 0.2]))
    y = V.insert(arr, 1, values)
    assert y.dtype == np.float32 == np.insert(np.zeros(3, np.float32), 1, [0.1, 0.2]).dtype
    g, = V.grad(V.sum(y), [values])
    assert g.dtype == np.float64
    np.testing.assert_array_equal(g.data, [1.0, 1.0])


def test_delete_gives_removed_entries_gradient_zero():
    x = V.Variable(np.arange(6.0).reshape(2, 3))
    V.sum(V.delete(x, 1, axis=1) * 2).backward()
    np.testing.assert_array_equal(x.grad.data, [[2, 0, 2], [2, 0, 2]])


def test_positions_on_the_device_are_read_on_the_host(on_device):
    # obj sets the shape of the result, so delete/insert read it (one copy from a GPU)
    x = V.Variable(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(V.delete(x, on_device(np.array([0, 2])), axis=1).data, [[1.0], [4.0]])
    y = V.insert(x, on_device(np.array([1])), 9.0, axis=0)
    np.testing.assert_array_equal(y.data, np.insert(np.arange(6.0).reshape(2, 3), [1], 9.0, axis=0))


def test_permute_dims_of_a_number():
    assert V.permute_dims(np.float64(2.0), ()).item() == 2.0


def test_unwrap_adds_constant_multiples_of_the_period(rng):
    data = phases((10,))(rng)[0]
    p = V.Variable(data)
    y = V.unwrap(p)
    np.testing.assert_allclose(y.data, np.unwrap(data), rtol=1e-12)
    shift = (V.backend.to_cpu(y.data) - data) / (2 * math.pi)
    np.testing.assert_allclose(shift, np.round(shift), atol=1e-12)    # whole periods
    g, = V.grad(V.sum(y * y), [p], create_graph=True)
    np.testing.assert_allclose(g.data, 2 * V.backend.to_cpu(y.data))                  # dy/dp = 1
    h, = V.grad(V.sum(g), [p])
    np.testing.assert_allclose(h.data, 2 * np.ones(10))
    dy = V.jvp(V.unwrap, data, np.arange(10.0))[1]
    np.testing.assert_allclose(dy.data, np.arange(10.0))


def test_unwrap_lets_nan_through_as_numpy():
    data = np.array([0.0, np.nan, 7.0, 1.0])
    y = V.unwrap(data)
    np.testing.assert_array_equal(np.isnan(V.backend.to_cpu(y.data)), np.isnan(np.unwrap(data)))


@pytest.mark.parametrize("op, call, expected", [
    ("cumulative_sum", lambda: V.cumulative_sum(np.zeros((0,)), include_initial=True), np.zeros(1)),
    ("cumulative_prod", lambda: V.cumulative_prod(np.zeros((2, 0)), axis=1, include_initial=True),
     np.ones((2, 1))),
    ("vecdot", lambda: V.vecdot(np.zeros((2, 0)), np.zeros(0)), np.zeros(2)),
    ("matvec", lambda: V.matvec(np.zeros((2, 0)), np.zeros(0)), np.zeros(2)),
    ("vecmat", lambda: V.vecmat(np.zeros(0), np.zeros((0, 3))), np.zeros(3)),
    ("unstack", lambda: V.unstack(np.zeros((0, 2))), ()),
    ("delete", lambda: V.delete(np.ones(3), slice(None)), np.zeros(0)),
    ("insert", lambda: V.insert(np.zeros(0), 0, [1.0, 2.0]), np.array([1.0, 2.0])),
    ("block", lambda: V.block([np.zeros(0), np.ones(2)]), np.ones(2)),
])
def test_empty_inputs_as_numpy(op, call, expected):
    y = call()
    if isinstance(y, tuple):
        assert y == expected
    else:
        assert y.shape == np.shape(expected)
        np.testing.assert_array_equal(y.data, expected)


def test_unstack_is_the_inverse_of_stack(rng):
    data = rng.standard_normal((2, 3, 4))
    x = V.Variable(data)
    pieces = V.unstack(x, axis=1)
    assert isinstance(pieces, tuple) and len(pieces) == 3
    back = V.stack(pieces, axis=1)
    np.testing.assert_array_equal(back.data, data)
    V.sum(pieces[1] * 3).backward()
    expected = np.zeros_like(data)
    expected[:, 1] = 3
    np.testing.assert_array_equal(x.grad.data, expected)


def test_matrix_transpose_is_mT_and_linalg_shares_it(rng):
    data = rng.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(V.matrix_transpose(data).data, data.mT)
    assert V.linalg.matrix_transpose is V.matrix_transpose


def test_ediff1d_casts_its_ends_to_the_dtype_of_ary_as_numpy():
    ary = V.Variable(np.array([1.0, 4.0, 9.0], dtype=np.float32))
    begin = V.Variable(np.array([0.25, 0.5]))               # float64 -> float32: same_kind
    y = V.ediff1d(ary, to_end=2, to_begin=begin)
    assert y.dtype == np.float32 == np.ediff1d(ary.data, to_end=2, to_begin=begin.data).dtype
    np.testing.assert_array_equal(y.data, [0.25, 0.5, 3.0, 5.0, 2.0])
    ga, gb = V.grad(V.sum(y * np.arange(5.0, dtype=np.float32)), [ary, begin])
    assert ga.dtype == np.float32 and gb.dtype == np.float64
    np.testing.assert_array_equal(gb.data, [0.0, 1.0])
    np.testing.assert_array_equal(ga.data, [-2.0, -1.0, 3.0])  # d(x1 - x0) * 2 + d(x2 - x1) * 3
    ints = np.array([3, 1, 4])                              # integers keep NumPy's integer result
    np.testing.assert_array_equal(V.ediff1d(ints, to_end=[7, 8]).data, np.ediff1d(ints, to_end=[7, 8]))
    assert V.ediff1d(ints, to_end=[7, 8]).dtype == np.int64


@pytest.mark.parametrize("shape", [(), (1,), (0,), (0, 3)])
def test_ediff1d_of_fewer_than_two_entries_is_the_ends_alone(shape):
    ary = V.Variable(np.ones(shape))
    y = V.ediff1d(ary, to_end=[3.0], to_begin=np.array([1.0, 2.0]))
    np.testing.assert_array_equal(y.data, np.ediff1d(np.ones(shape), to_end=[3.0], to_begin=[1.0, 2.0]))
    assert V.grad(V.sum(y), [ary])[0].shape == shape


def test_linspace_gives_numpys_samples_bit_for_bit(rng):
    for start, stop, num, endpoint in [(0.1, 0.3, 7, True), (-2.5, 1e3, 50, True), (0.1, 0.7, 3, False),
                                       (1.0, 1.0, 4, True), (3.0, -1.0, 9, False)]:
        y = V.linspace(V.Variable(start), stop, num, endpoint)
        np.testing.assert_array_equal(y.data, np.linspace(start, stop, num, endpoint))
    a, b = rng.standard_normal((2, 1)), rng.standard_normal(3)
    y, step = V.linspace(a, b, 6, axis=1, retstep=True)
    expected, expected_step = np.linspace(a, b, 6, axis=1, retstep=True)
    np.testing.assert_array_equal(y.data, expected)
    np.testing.assert_array_equal(step.data, expected_step)
    assert V.linspace(0.1, 0.3, 7).data[-1] == 0.3          # the endpoint is stop itself


def test_linspace_gradients_are_the_fractions(rng):
    # y_i = start + (stop - start) i / div: d/dstart = 1 - i / div, d/dstop = i / div
    start, stop = V.Variable(rng.standard_normal(2)), V.Variable(1.5)
    u = rng.standard_normal((5, 2))
    for endpoint, div in [(True, 4), (False, 5)]:
        gs, ge = V.grad(V.sum(V.linspace(start, stop, 5, endpoint) * u), [start, stop])
        t = np.arange(5)[:, None] / div
        np.testing.assert_allclose(gs.data, np.sum(u * (1 - t), axis=0), rtol=1e-12)
        np.testing.assert_allclose(ge.data, np.sum(u * t), rtol=1e-12)
    y, step = V.linspace(start, stop, 5, retstep=True)       # the step is a Variable too
    gs, ge = V.grad(V.sum(step), [start, stop])
    np.testing.assert_allclose(gs.data, [-0.25, -0.25])
    np.testing.assert_allclose(ge.data, 0.5)


@pytest.mark.parametrize("num, endpoint", [(0, True), (0, False), (1, True), (1, False)])
def test_linspace_of_no_or_one_sample_as_numpy(num, endpoint):
    start, stop = V.Variable(np.array([0.5, -1.0])), V.Variable(2.0)
    y, step = V.linspace(start, stop, num, endpoint, retstep=True)
    expected, expected_step = np.linspace(start.data, 2.0, num, endpoint, retstep=True)
    assert y.shape == expected.shape
    np.testing.assert_array_equal(y.data, expected)
    np.testing.assert_array_equal(step.data, expected_step)   # NaN without a step, as NumPy's
    if num:                                                   # the one sample is start
        gs, ge = V.grad(V.sum(y), [start, stop])
        np.testing.assert_array_equal(gs.data, [1.0, 1.0])
        assert ge.item() == 0.0
    if num == 0 or endpoint:
        assert not step.requires_grad


def test_linspace_over_a_subnormal_span_matches_numpy():
    # (stop - start) / div underflows to 0: NumPy then scales i / div by the span (gh-5437)
    y = V.linspace(V.Variable(0.0), 5e-324 * 4, 50)
    np.testing.assert_array_equal(y.data, np.linspace(0.0, 5e-324 * 4, 50))
    assert np.count_nonzero(y.data) > 1


def test_linspace_dtypes_as_numpy():
    x32 = V.Variable(np.float32(0.5))
    assert V.linspace(x32, 2.0, 3).dtype == np.float32 == np.linspace(np.float32(0.5), 2.0, 3).dtype
    assert V.linspace(np.arange(2), 3, 4).dtype == np.float64
    y = V.linspace(V.Variable(0.0), 1.0, 5, dtype=np.float32)       # a float cast: the gradient goes back
    assert y.dtype == np.float32
    # an integer dtype: NumPy floors; integer data carry no gradient, so the result is a constant
    start = V.Variable(-1.0)
    y = V.linspace(start, 10.0, 4, dtype=int)
    np.testing.assert_array_equal(y.data, np.linspace(-1.0, 10.0, 4, dtype=int))
    assert y.dtype == np.int64 and not y.requires_grad
    assert V.logspace(V.Variable(0.0), 2.0, 3, dtype=int).dtype == np.int64
    # geomspace computes in float64 unless a lower float dtype is asked for, as NumPy
    ends = np.float32(0.5), np.float32(8.0)
    assert V.geomspace(V.Variable(ends[0]), ends[1], 4).dtype == np.float64 == np.geomspace(*ends, 4).dtype
    y = V.geomspace(V.Variable(ends[0]), ends[1], 4, dtype=np.float32)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.data, np.geomspace(*ends, 4, dtype=np.float32))


def test_logspace_broadcasts_an_array_base_as_numpy(rng):
    a, b = rng.standard_normal(2), np.array([2.0, 10.0])
    start, base = V.Variable(a), V.Variable(b)
    for axis in (0, 1, -1):
        y = V.logspace(start, 1.5, 4, base=base, axis=axis)
        np.testing.assert_allclose(y.data, np.logspace(a, 1.5, 4, base=b, axis=axis), rtol=1e-14)
    y = V.logspace(start, 1.5, 4, base=base)
    g, = V.grad(V.sum(y), [base])                              # d b^t / db = t b^(t - 1)
    t = np.linspace(a, 1.5, 4)
    np.testing.assert_allclose(g.data, np.sum(t * b ** (t - 1), axis=0), rtol=1e-12)


def test_geomspace_ends_and_gradient(rng):
    a, b = V.Variable(-0.5), V.Variable(-8.0)
    y = V.geomspace(a, b, 5)
    np.testing.assert_array_equal(y.data, np.geomspace(-0.5, -8.0, 5))
    assert y.data[0] == -0.5 and y.data[-1] == -8.0          # the ends exactly, as NumPy sets them
    ga, gb = V.grad(V.sum(y), [a, b])
    t = np.arange(5) / 4                                      # y_i = -(0.5^(1 - t) 8^t)
    np.testing.assert_allclose(ga.data, np.sum((1 - t) * 0.5 ** -t * 8.0 ** t), rtol=1e-12)
    np.testing.assert_allclose(gb.data, np.sum(t * 0.5 ** (1 - t) * 8.0 ** (t - 1)), rtol=1e-12)
    with np.errstate(invalid="ignore"):                       # opposite signs: NaN inside, as NumPy
        np.testing.assert_array_equal(V.geomspace(-1.0, 4.0, 4).data, np.geomspace(-1.0, 4.0, 4))


def test_unique_of_repeats_gives_the_gradient_to_first_occurrences():
    data = np.array([2.0, -1.0, 2.0, 0.5, -1.0, 2.0])
    x = V.Variable(data)
    values, index, inverse, counts = V.unique(x, True, True, True)
    for ours, numpys in zip((values.data, index, inverse, counts), np.unique(data, True, True, True)):
        np.testing.assert_array_equal(ours, numpys)
    for positions in (index, inverse, counts):                            # plain integers, no graph
        assert not isinstance(positions, V.Variable) and positions.dtype == np.intp
    np.testing.assert_array_equal(values.data[inverse], data)
    V.sum(values * V.Variable(np.array([1.0, 2.0, 3.0]))).backward()
    np.testing.assert_array_equal(x.grad.data, [3.0, 1.0, 0.0, 2.0, 0.0, 0.0])   # first copies only
    g, = V.grad(V.sum(V.unique(x) ** 2), [x], create_graph=True)
    h, = V.grad(V.sum(g), [x])
    np.testing.assert_array_equal(h.data, [2.0, 2.0, 0.0, 2.0, 0.0, 0.0])


def test_unique_rows_give_the_gradient_to_the_first_copy():
    data = np.array([[1.0, 2.0], [0.0, 5.0], [1.0, 2.0], [0.0, 5.0], [0.0, 4.0]])
    x = V.Variable(data)
    values, index, inverse, counts = V.unique(x, True, True, True, axis=0)
    for ours, numpys in zip((values.data, index, inverse, counts), np.unique(data, True, True, True, axis=0)):
        np.testing.assert_array_equal(ours, numpys)
    V.sum(values).backward()
    np.testing.assert_array_equal(x.grad.data, [[1, 1], [1, 1], [0, 0], [0, 0], [1, 1]])
    cols = V.unique(x.T, axis=1, return_inverse=True)[1]        # along the other axis: 1-d, as NumPy's
    np.testing.assert_array_equal(cols, np.unique(data.T, axis=1, return_inverse=True)[1])


@pytest.mark.parametrize("equal_nan", [True, False])
def test_unique_nans_as_numpy(equal_nan):
    data = np.array([np.nan, 1.0, np.nan, 1.0, 0.5])
    x = V.Variable(data)
    values, index = V.unique(x, return_index=True, equal_nan=equal_nan)
    expected, expected_index = np.unique(data, return_index=True, equal_nan=equal_nan)
    np.testing.assert_array_equal(values.data, expected)
    np.testing.assert_array_equal(index, expected_index)
    V.sum(values).backward()                                     # one NaN: the first gets it
    np.testing.assert_array_equal(x.grad.data, [1.0, 1.0, 0.0 if equal_nan else 1.0, 0.0, 1.0])


def test_unique_shapes_of_numbers_and_empty_inputs_as_numpy():
    for data, axis in [(np.array(3.0), None), (np.zeros(0), None), (np.zeros((2, 0)), None),
                       (np.zeros((0, 3)), 0), (np.zeros((2, 0)), 0), (np.array([[1.0, 1.0]]), 1)]:
        ours = V.unique(data, True, True, True, axis=axis)
        for y, expected in zip(ours, np.unique(data, True, True, True, axis=axis)):
            y = y.data if isinstance(y, V.Variable) else y
            assert y.shape == expected.shape
            np.testing.assert_array_equal(y, expected)


def test_unique_sorts_with_sorted_false_too():
    # NumPy allows sorted values for sorted=False ("may be sorted in practice")
    data = np.array([3.0, 1.0, 3.0, 2.0])
    np.testing.assert_array_equal(V.unique(data, sorted=False).data, [1.0, 2.0, 3.0])
    assert set(np.unique(data, sorted=False)) == {1.0, 2.0, 3.0}


def test_on_the_device(gpu, count_syncs):
    data = np.array([0.5, -1.0, 0.5, 2.0])
    x = V.Variable(data).to_gpu()
    with count_syncs() as syncs:                     # linspace and ediff1d: no host sync
        y = V.linspace(x[0], x[1:3], 5, axis=1) + V.ediff1d(x, to_begin=x[3], to_end=1.0)[None]
        g, = V.grad(V.sum(y * y), [x])
    assert syncs.count == 0, syncs
    assert y.device == g.device == "gpu"
    host = V.Variable(data)
    expected = V.linspace(host[0], host[1:3], 5, axis=1) + V.ediff1d(host, to_begin=host[3], to_end=1.0)[None]
    np.testing.assert_allclose(V.backend.to_cpu(y.data), expected.data, rtol=1e-12)
    with count_syncs() as syncs:                     # geomspace: one, its check for zeros
        V.geomspace(x[0], x[3], 4)
    assert syncs.count == 1, syncs
    with count_syncs() as syncs:                     # unique: one, its result's size
        values, counts = V.unique(x, return_counts=True)
    assert syncs.count == 1, syncs
    assert values.device == "gpu" and V.backend.is_device_array(counts)
    np.testing.assert_array_equal(V.backend.to_cpu(values.data), [-1.0, 0.5, 2.0])
    np.testing.assert_array_equal(V.backend.to_cpu(counts), [1, 2, 1])


# ----- refusals -------------------------------------------------------------------------
X = np.ones((2, 3))


@pytest.mark.parametrize("call, error, op, parts", [
    (lambda: V.cumulative_sum(X), ValueError, "cumulative_sum", ["axis is required", "(2, 3)"]),
    (lambda: V.cumulative_prod(X, axis=2), ValueError, "cumulative_prod", ["axis 2 is out of range"]),
    (lambda: V.cumulative_sum(X, axis=1.0), TypeError, "cumulative_sum", ["axis must be an int"]),
    (lambda: V.cumulative_sum(X, axis=0, dtype=np.float32), TypeError, "cumulative_sum", ["dtype="]),
    (lambda: V.cumulative_prod(X, axis=0, out=np.empty((2, 3))), TypeError, "cumulative_prod", ["out="]),
    (lambda: V.vecdot(X, np.ones(2)), ValueError, "vecdot", ["differ in length", "3", "2"]),
    (lambda: V.vecdot(X, np.ones((4, 3))), ValueError, "vecdot", ["do not broadcast", "(2,)", "(4,)"]),
    (lambda: V.vecdot(np.ones(()), np.ones(3)), ValueError, "vecdot", ["0-d"]),
    (lambda: V.vecdot(X, X, axis=0, axes=[0, 0]), TypeError, "vecdot", ["both axis and axes"]),
    (lambda: V.vecdot(X, X, axes=(0, 0)), TypeError, "vecdot", ["axes must be a list"]),
    (lambda: V.vecdot(X, X, axes=[0]), ValueError, "vecdot", ["an entry for each operand"]),
    (lambda: V.vecdot(X, X, axes=[(0, 1), 0]), ValueError, "vecdot", ["one axis"]),
    (lambda: V.vecdot(X, X, axes=[0, 0, 0]), ValueError, "vecdot", ["must be ()"]),
    (lambda: V.vecdot(X, X, keepdims=1), TypeError, "vecdot", ["keepdims must be a boolean"]),
    (lambda: V.vecdot(X, X, axis=2), ValueError, "vecdot", ["axis 2 is out of range"]),
    (lambda: V.vecdot(X, X, out=np.empty(2)), TypeError, "vecdot", ["out="]),
    (lambda: V.vecdot(X, X, dtype=np.float32), TypeError, "vecdot", ["dtype="]),
    (lambda: V.matvec(X, np.ones(2)), ValueError, "matvec", ["summed lengths differ", "3", "2"]),
    (lambda: V.matvec(np.ones(3), np.ones(3)), ValueError, "matvec", ["at least 2-d", "x1 * x2"]),
    (lambda: V.matvec(np.ones((2, 2, 3)), np.ones((3, 3))), ValueError, "matvec",
     ["do not broadcast", "(2,)"]),
    (lambda: V.matvec(X, np.ones(3), axes=[(0, 1), 0]), ValueError, "matvec", ["3 entries"]),
    (lambda: V.matvec(X, np.ones(3), axes=((0, 1), 0, 0)), TypeError, "matvec", ["axes must be a list"]),
    (lambda: V.matvec(X, np.ones(3), axes=[0, 0, 0]), ValueError, "matvec", ["tuple of two ints"]),
    (lambda: V.matvec(X, np.ones(3), axes=[(1, 1), 0, 0]), ValueError, "matvec", ["must differ"]),
    (lambda: V.matvec(X, np.ones(3), axes=[(0, 2), 0, 0]), ValueError, "matvec", ["axis 2 is out of range"]),
    (lambda: V.matvec(X, np.ones(3), axis=-1), TypeError, "matvec", ["axis can only be used", "axes"]),
    (lambda: V.matvec(X, np.ones(3), keepdims=True), TypeError, "matvec", ["keepdims"]),
    (lambda: V.matvec(X, np.ones(3), out=np.empty(2)), TypeError, "matvec", ["out="]),
    (lambda: V.matvec(X, np.ones(3), dtype=np.float32), TypeError, "matvec", ["dtype="]),
    (lambda: V.matvec(X, "abc"), TypeError, "matvec", []),
    (lambda: V.vecmat(np.ones(3), X), ValueError, "vecmat", ["summed lengths differ"]),
    (lambda: V.vecmat(np.ones(()), X), ValueError, "vecmat", ["at least 1-d"]),
    (lambda: V.vecmat(np.ones(2), X, axes=[0, (0, 1)]), ValueError, "vecmat", ["3 entries"]),
    (lambda: V.vecmat(np.ones(2), X, axes=[(0, 1), (0, 1), 0]), ValueError, "vecmat", ["one axis"]),
    (lambda: V.vecmat(np.ones(2), X, axis=0), TypeError, "vecmat", ["axis can only be used"]),
    (lambda: V.vecmat(np.ones(2), X, casting="unsafe"), TypeError, "vecmat", ["casting="]),
    (lambda: V.matrix_transpose(np.ones(3)), ValueError, "matrix_transpose", ["at least 2-d", "(3,)"]),
    (lambda: V.permute_dims(X, (0, 0)), ValueError, "permute_dims", ["not a permutation", "(2, 3)"]),
    (lambda: V.permute_dims(X, (0, 1, 2)), ValueError, "permute_dims", ["not a permutation"]),
    (lambda: V.permute_dims(X, (0, 2)), ValueError, "permute_dims", ["not a permutation"]),
    (lambda: V.permute_dims(X, "ab"), TypeError, "permute_dims", ["tuple of ints"]),
    (lambda: V.unstack(np.ones(())), ValueError, "unstack", ["at least 1-d"]),
    (lambda: V.unstack(X, axis=2), ValueError, "unstack", ["axis 2 is out of range"]),
    (lambda: V.diagflat(X, k=0.5), TypeError, "diagflat", ["k must be an int"]),
    (lambda: V.unwrap(np.ones(())), ValueError, "unwrap", ["at least 1-d"]),
    (lambda: V.unwrap(X, axis=2), ValueError, "unwrap", ["axis 2 is out of range"]),
    (lambda: V.unwrap(X, period=0), ValueError, "unwrap", ["period must be nonzero"]),
    (lambda: V.unwrap(X, period=np.ones(3)), TypeError, "unwrap", ["period must be a real number"]),
    (lambda: V.unwrap(X, discont="x"), TypeError, "unwrap", ["discont must be a real number"]),
    (lambda: V.delete(X, 7), IndexError, "delete", ["out of bounds", "(2, 3)"]),
    (lambda: V.delete(X, 1.5), IndexError, "delete", ["integer"]),
    (lambda: V.delete(X, V.Variable(np.array([0]))), TypeError, "delete", ["not a Variable", "obj.data"]),
    (lambda: V.delete(X, 0, axis=2), ValueError, "delete", ["axis 2 is out of range"]),
    (lambda: V.insert(X, 9, 1.0, axis=1), IndexError, "insert", ["out of bounds"]),
    (lambda: V.insert(X, 1, np.ones(3), axis=1), ValueError, "insert", ["broadcast", "(2, 3)", "(3,)"]),
    (lambda: V.insert(X, V.Variable(np.array([1])), 1.0), TypeError, "insert", ["not a Variable"]),
    (lambda: V.block(([X],)), TypeError, "block", ["tuple"]),
    (lambda: V.block([]), ValueError, "block", ["cannot be empty"]),
    (lambda: V.block([[X], X]), ValueError, "block", ["depths are mismatched"]),
    (lambda: V.block([X, np.ones((3, 3))]), ValueError, "block", ["must match", "(2, 3)", "(3, 3)"]),
    (lambda: V.block([X, "a"]), TypeError, "block", []),
    (lambda: V.ediff1d(X > 0), TypeError, "ediff1d", ["boolean", "astype"]),
    (lambda: V.ediff1d(np.arange(3), to_begin=1.5), TypeError, "ediff1d",
     ["to_begin of dtype float64", "int64", "same_kind"]),
    (lambda: V.ediff1d(np.arange(3), to_end=V.Variable(np.ones(2))), TypeError, "ediff1d", ["to_end"]),
    (lambda: V.ediff1d(X, to_end="a"), TypeError, "ediff1d", []),
    (lambda: V.linspace(0.0, 1.0, 2.5), TypeError, "linspace", ["num must be an int"]),
    (lambda: V.linspace(0.0, 1.0, -1), ValueError, "linspace", ["-1", "non-negative"]),
    (lambda: V.linspace(0.0, 1.0, endpoint="yes"), TypeError, "linspace", ["endpoint must be a bool"]),
    (lambda: V.linspace(0.0, 1.0, retstep=1), TypeError, "linspace", ["retstep must be a bool"]),
    (lambda: V.linspace(0.0, 1.0, dtype=np.complex128), TypeError, "linspace", ["real number type"]),
    (lambda: V.linspace(0.0, 1.0, dtype="nonsense"), TypeError, "linspace", ["not a NumPy dtype"]),
    (lambda: V.linspace(np.zeros(2), np.ones(3)), ValueError, "linspace", ["(2,)", "(3,)", "broadcast"]),
    (lambda: V.linspace(np.zeros(2), 1.0, axis=2), ValueError, "linspace", ["axis 2 is out of range"]),
    (lambda: V.linspace(0.0, 1.0, axis=0.0), TypeError, "linspace", ["axis must be an int"]),
    (lambda: V.linspace(0.0, 1.0, device="cuda"), ValueError, "linspace", ["device='cuda'"]),
    (lambda: V.logspace(np.zeros(2), 1.0, base=np.ones(3) * 2), ValueError, "logspace",
     ["(3,)", "broadcast"]),
    (lambda: V.logspace(0.0, 1.0, base=np.ones(2) * 2, axis=3), ValueError, "logspace", ["axis 3"]),
    (lambda: V.logspace(0.0, 1.0, num=None), TypeError, "logspace", ["num must be an int"]),
    (lambda: V.geomspace(0.0, 1.0), ValueError, "geomspace", ["cannot include zero"]),
    (lambda: V.geomspace(np.array([1.0, 2.0]), np.array([3.0, 0.0])), ValueError, "geomspace", ["zero"]),
    (lambda: V.geomspace(1.0, 2.0, 3, axis=1), ValueError, "geomspace", ["axis 1 is out of range"]),
    (lambda: V.geomspace(1.0, 2.0, dtype="U3"), TypeError, "geomspace", ["real number type"]),
    (lambda: V.unique(X, axis=2), ValueError, "unique", ["axis 2 is out of range", "(2, 3)"]),
    (lambda: V.unique(np.ones(()), axis=0), ValueError, "unique", ["axis 0 is out of range"]),
    (lambda: V.unique(X, axis=(0, 1)), TypeError, "unique", ["axis must be an int"]),
    (lambda: V.unique(X, return_index="yes"), TypeError, "unique", ["return_index must be a bool"]),
    (lambda: V.unique(X, equal_nan=None), TypeError, "unique", ["equal_nan must be a bool"]),
    (lambda: V.unique(X, sorted=0), TypeError, "unique", ["sorted must be a bool"]),
    (lambda: V.unique("abc"), TypeError, "unique", []),
])
def test_refusals_name_the_op(call, error, op, parts):
    with pytest.raises(error) as raised:
        call()
    assert_message(raised, op, *parts)
