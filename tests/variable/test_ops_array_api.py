"""The Array API's names in NumPy 2 (cumulative_sum, cumulative_prod, vecdot, matrix_transpose,
permute_dims, unstack) and diagflat, unwrap, delete, insert and block, against NumPy.

All but unwrap are linear or bilinear compositions of gengrad's ops, checked to order 3;
unwrap is piecewise (the multiples of the period it adds jump where a step between
neighbours crosses a threshold), checked to order 2 at points whose steps stay away from
the thresholds.  Below the table: NumPy's dispatch on Variables, the points the table
cannot show (zeros in cumulative_prod, repeated insertions, empty inputs) and every
refusal.
"""

import math

import numpy as np
import pytest
from op_rows import PIECEWISE, SMOOTH, Row, normal, table_tests
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
])
def test_refusals_name_the_op(call, error, op, parts):
    with pytest.raises(error) as raised:
        call()
    assert_message(raised, op, *parts)
