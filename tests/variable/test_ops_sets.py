"""The sets ops against NumPy: union1d, intersect1d, setdiff1d, setxor1d, unique_values,
unique_counts, unique_inverse, unique_all, trim_zeros, compress, extract, choose, resize and
sliding_window_view (variable/ops/sets.py).

Every op is a gather whose positions the data (or a constant) decide: linear in the values,
checked to order 3 at points without ties (a finite-difference step moves one entry of a tie
and breaks it).  Where a row needs equal values in both inputs (intersect1d), the second
input is a slice of the first, so a step moves both copies together.  Below the table:
NumPy's dispatch, the gradient conventions at repeats (a value's gradient goes to its first
occurrence, ar1 before ar2, as in V.unique and JAX), NaNs, empty and 0-d inputs, the device,
and every refusal.
"""

import math

import numpy as np
import pytest
from op_rows import SMOOTH, Row, normal, table_tests
from variable_checks import assert_message

import variable as V
from variable import backend


def spread(*shapes):
    """Entries of all the operands at least 0.2 apart: no ties, before or after a step."""
    def sample(rng):
        sizes = [math.prod(s) for s in shapes]
        grid = rng.permutation(np.linspace(-1.5, 1.5, max(sum(sizes), 2)))
        grid = grid + rng.uniform(-0.05, 0.05, grid.shape)
        starts = np.cumsum([0] + sizes)
        return tuple(grid[a:b].reshape(s) for a, b, s in zip(starts[:-1], starts[1:], shapes))
    return sample


def _label(shapes, **params):
    return "x".join(map(str, shapes)) + "".join(f",{k}={v}" for k, v in params.items())


def _set_rows(name, cases, **params):
    """V.<name>(x0, x1, **params) against np.<name> at points of `cases` without ties."""
    return [Row(_label(shapes, **params), lambda *xs: getattr(V, name)(*xs, **params),
                lambda *xs: getattr(np, name)(*xs, **params), spread(*shapes), SMOOTH)
            for shapes in cases]


def _with_part(name, shape, part, **params):
    """V.<name>(x, x[part]): the second input shares values with the first (a step moves both)."""
    return Row(_label([shape], part=part, **params), lambda x: getattr(V, name)(x, x[part], **params),
               lambda x: getattr(np, name)(x, x[part], **params), spread(shape), SMOOTH)


def _values_of(name, shape):
    """The values of V.<name>(x) (a namedtuple's `values`) against NumPy's."""
    def first(y):
        return y if name == "unique_values" else y.values
    return Row(str(shape), lambda x: first(getattr(V, name)(x)), lambda x: first(getattr(np, name)(x)),
               spread(shape), SMOOTH)


def _padded(shape, pad_width, trim="fb", axis=None):
    """trim_zeros of x padded with zeros (constants: a step never moves a trimmed zero)."""
    return Row(_label([shape], pad=pad_width, trim=trim, axis=axis),
               lambda x: V.trim_zeros(V.pad(x, pad_width), trim, axis),
               lambda x: np.trim_zeros(np.pad(x, pad_width), trim, axis), spread(shape), SMOOTH)


def _call(name, shapes, *args, sampler=normal, **params):
    """V.<name>(*args, *xs, **params) for the fixed leading `args` (constants)."""
    return Row(_label(shapes, args=args, **params) if args else _label(shapes, **params),
               lambda *xs: getattr(V, name)(*args, *xs, **params),
               lambda *xs: getattr(np, name)(*args, *xs, **params), sampler(*shapes), SMOOTH)


def _choose(index, shapes, **params):
    return Row(_label(shapes, a=index, **params), lambda *xs: V.choose(index, list(xs), **params),
               lambda *xs: np.choose(index, list(xs), **params), normal(*shapes), SMOOTH)


def _resize(shape, new_shape):
    return Row(_label([shape], new_shape=new_shape), lambda x: V.resize(x, new_shape),
               lambda x: np.resize(x, new_shape), normal(shape), SMOOTH)


def _windows(shape, window, axis=None):
    return Row(_label([shape], window=window, axis=axis), lambda x: V.sliding_window_view(x, window, axis),
               lambda x: np.lib.stride_tricks.sliding_window_view(x, window, axis), normal(shape), SMOOTH)


ROWS = {
    "union1d": (
        _set_rows("union1d", [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((), (2, 3)), ((0,), (2,)),
                              ((0,), (0,))])
        + [_with_part("union1d", (4,), slice(1, 3)), _with_part("union1d", (2, 3), 0)]
    ),
    "intersect1d": (
        _set_rows("intersect1d", [((3,), (2,)), ((0,), (3,))])
        + [_with_part("intersect1d", (4,), slice(1, 3)), _with_part("intersect1d", (2, 3), 1),
           _with_part("intersect1d", (5,), slice(None, None, 2), assume_unique=True),
           _with_part("intersect1d", (3,), 0)]
        + [Row("(2, 3),x[0],return_indices", lambda x: V.intersect1d(x, x[0], return_indices=True)[0],
               lambda x: np.intersect1d(x, x[0], return_indices=True)[0], spread((2, 3)), SMOOTH)]
    ),
    "setdiff1d": (
        _set_rows("setdiff1d", [((), ()), ((3,), (2,)), ((2, 3), (3,)), ((0,), (2,)), ((3,), (0,))])
        + _set_rows("setdiff1d", [((4,), (2,))], assume_unique=True)
        + [_with_part("setdiff1d", (4,), slice(1, 3)), _with_part("setdiff1d", (2, 3), 1),
           _with_part("setdiff1d", (5,), slice(None, None, 2), assume_unique=True)]
    ),
    "setxor1d": (
        _set_rows("setxor1d", [((), ()), ((3,), (2,)), ((2, 3), (3,)), ((0,), (2,)), ((0,), (0,))])
        + _set_rows("setxor1d", [((4,), (2,))], assume_unique=True)
        + [_with_part("setxor1d", (4,), slice(1, 3)), _with_part("setxor1d", (2, 3), 0),
           _with_part("setxor1d", (5,), slice(None, None, 2), assume_unique=True)]
    ),
    **{name: [_values_of(name, s) for s in [(), (3,), (2, 3), (0,), (2, 2, 2)]]
       for name in ("unique_values", "unique_counts", "unique_inverse", "unique_all")},
    "trim_zeros": [
        _padded((3,), 2), _padded((3,), (1, 2), "f"), _padded((3,), (2, 1), "B"),
        _padded((2, 3), ((1, 2), (0, 1))), _padded((2, 3), ((1, 2), (2, 1)), "f", 1),
        _padded((2, 3), ((1, 1), (1, 2)), "b", (0, -1)), _padded((2, 3), ((1, 1), (2, 2)), "fb", ()),
        _padded((2, 2, 2), 1, "bf", -2),
        Row("(3,) no zeros", V.trim_zeros, np.trim_zeros, normal((3,)), SMOOTH),
        Row("()", V.trim_zeros, np.trim_zeros, normal(()), SMOOTH),
    ],
    "compress": [
        _call("compress", [(2, 3)], [True, False, True], axis=1),
        _call("compress", [(2, 3)], [False, True], axis=0),
        _call("compress", [(2, 3)], [True, False], axis=-1),          # shorter: the rest are False
        _call("compress", [(2, 3)], [0, 2, 1, 0], axis=1),             # longer, False past the end
        _call("compress", [(2, 3)], [True, False, True, True]),        # flattened
        _call("compress", [(3,)], [False, False, False]),
        _call("compress", [()], [True]),
        _call("compress", [(2, 0)], [True, False], axis=0),
    ],
    "extract": [
        _call("extract", [(2, 3)], [[True, False, True], [False, True, True]]),
        _call("extract", [(2, 3)], [1, 0, 0, 1]),
        _call("extract", [(3,)], [0.5, 0.0, -1.0]),
        _call("extract", [(3,)], [False, False, False]),
        _call("extract", [()], True),
    ],
    "choose": [
        _choose([0, 1, 1], [(3,), (3,)]),
        _choose([[0, 1, 2], [2, 1, 0]], [(2, 3), (3,), ()]),
        _choose([[0], [1]], [(3,), (2, 3)]),
        _choose(1, [(3,), (2, 1)]),
        _choose([0, -1, 3, 1], [(4,), (4,)], mode="wrap"),
        _choose([[0, -2, 5]], [(2, 3), (3,)], mode="clip"),
        _choose([True, False], [(2,), ()]),
        Row("stacked (3, 2, 3)", lambda c: V.choose([0, 2, 1], c), lambda c: np.choose([0, 2, 1], c),
            normal((3, 2, 3)), SMOOTH),
    ],
    "resize": [
        _resize((3,), (2, 4)), _resize((2, 3), 7), _resize((2, 3), (2, 3)), _resize((), (2,)),
        _resize((2, 3), (4, 1, 2)), _resize((2, 3), (0,)), _resize((2, 3), ()), _resize((0,), (2, 2)),
    ],
    "sliding_window_view": [
        _windows((5,), 3), _windows((4, 5), (2, 3)), _windows((4, 5), 2, 0), _windows((4, 5), 3, -1),
        _windows((3, 5), (2, 2), (1, 1)), _windows((2, 3, 4), (2, 2), (-1, 0)), _windows((4,), 4),
        _windows((4,), 1), _windows((2, 3), 0, 1), _windows((), ()),
    ],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


# ----- NumPy's dispatch ---------------------------------------------------------------------
A = np.array([0.5, -1.0, 2.0, 0.5])
B = np.array([[2.0, 3.0], [-1.0, 4.0]])


@pytest.mark.parametrize("call", [
    lambda np_, a, b: np_.union1d(a, b),
    lambda np_, a, b: np_.intersect1d(a, b),
    lambda np_, a, b: np_.intersect1d(a, b, return_indices=True)[0],
    lambda np_, a, b: np_.setdiff1d(a, b),
    lambda np_, a, b: np_.setxor1d(a, b, assume_unique=False),
    lambda np_, a, b: np_.unique_values(a),
    lambda np_, a, b: np_.unique_counts(b).values,
    lambda np_, a, b: np_.unique_inverse(a).values,
    lambda np_, a, b: np_.unique_all(a).values,
    lambda np_, a, b: np_.trim_zeros(np_.concatenate([a, np.zeros(2)]), "b"),
    lambda np_, a, b: np_.compress([True, False, True], a),
    lambda np_, a, b: np_.extract([[False, True], [True, True]], b),
    lambda np_, a, b: np_.choose([[0, 1], [1, 0]], [b, a[:2]]),
    lambda np_, a, b: np_.resize(b, (3, 3)),
    lambda np_, a, b: (np_.lib.stride_tricks if np_ is np else np_).sliding_window_view(a, 2),
])
def test_numpy_functions_on_variables_record_the_op(call):
    """np.<name>(Variable) is V.<name>: the same values as NumPy's, the same gradients as gengrad's
    own op (the data hold repeats and shared values: the first-occurrence convention)."""
    a, b = V.Variable(A), V.Variable(B)
    y = call(np, a, b)
    assert isinstance(y, V.Variable)
    np.testing.assert_array_equal(y.data, call(np, A, B))
    grads = V.grad(V.sum(y * y), [a, b], allow_unused=True)
    direct = V.grad(V.sum(call(V, a, b) ** 2), [a, b], allow_unused=True)
    assert any(g is not None for g in grads)
    for g, d in zip(grads, direct):
        assert (g is None) == (d is None)
        if g is not None:
            np.testing.assert_array_equal(g.data, d.data)


def test_unique_functions_return_numpys_namedtuples():
    data = np.array([[2.0, 1.0], [2.0, np.nan]])
    x = V.Variable(data)
    for name in ("unique_counts", "unique_inverse", "unique_all"):
        ours, numpys = getattr(np, name)(x), getattr(np, name)(data)
        assert type(ours) is type(numpys) and ours._fields == numpys._fields
        assert isinstance(ours.values, V.Variable)
        for field in ours._fields[1:]:                            # plain integer arrays, no graph
            got = getattr(ours, field)
            assert not isinstance(got, V.Variable) and got.dtype == np.intp
            np.testing.assert_array_equal(got, getattr(numpys, field))
        np.testing.assert_array_equal(ours.values.data, numpys.values)
    assert type(V.unique_all(x)) is V.ops.sets.UniqueAllResult


# ----- gradients at repeats: the first occurrence, ar1 before ar2 ------------------------------------
def _grads(name, a, b, **params):
    x0, x1 = V.Variable(np.asarray(a, dtype=float)), V.Variable(np.asarray(b, dtype=float))
    y = getattr(V, name)(x0, x1, **params)
    y = y[0] if isinstance(y, tuple) else y
    weights = np.arange(1.0, y.size + 1)
    g0, g1 = V.grad(V.sum(y * weights), [x0, x1], allow_unused=True)
    return y, *(np.zeros(x.shape) if g is None else g.data for g, x in zip((g0, g1), (x0, x1)))


def test_union1d_gives_a_value_in_both_inputs_to_its_first_occurrence_in_ar1():
    y, g0, g1 = _grads("union1d", [2.0, 1.0, 2.0], [[3.0, 1.0], [2.0, 3.0]])
    np.testing.assert_array_equal(y.data, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(g0, [2.0, 1.0, 0.0])                  # 1 -> weight 1, 2 -> weight 2
    np.testing.assert_array_equal(g1, [[3.0, 0.0], [0.0, 0.0]])         # 3 only in ar2: its first copy


def test_intersect1d_gives_the_gradient_to_ar1():
    y, g0, g1 = _grads("intersect1d", [3.0, 1.0, 3.0, 5.0], [5.0, 3.0, 3.0, 7.0])
    np.testing.assert_array_equal(y.data, [3.0, 5.0])
    np.testing.assert_array_equal(g0, [1.0, 0.0, 0.0, 2.0])             # ar1's first copies
    np.testing.assert_array_equal(g1, np.zeros(4))                      # ar2 decides, gets nothing
    values, i1, i2 = V.intersect1d(np.array([3.0, 1.0, 3.0, 5.0]), np.array([5.0, 3.0, 3.0, 7.0]),
                                   return_indices=True)
    for ours, numpys in zip((i1, i2), np.intersect1d([3.0, 1.0, 3.0, 5.0], [5.0, 3.0, 3.0, 7.0],
                                                     return_indices=True)[1:]):
        assert not isinstance(ours, V.Variable)
        np.testing.assert_array_equal(ours, numpys)


def test_intersect1d_with_assume_unique_misused_gives_numpys_values():
    a, b = np.array([1.0, 4.0]), np.array([2.0, 2.0, 4.0])          # b repeats 2: NumPy keeps it
    y, g0, g1 = _grads("intersect1d", a, b, assume_unique=True)
    np.testing.assert_array_equal(y.data, np.intersect1d(a, b, assume_unique=True))
    np.testing.assert_array_equal(g0, [0.0, 2.0])
    np.testing.assert_array_equal(g1, [1.0, 0.0, 0.0])                 # the 2 came from ar2


def test_setdiff1d_and_setxor1d_give_the_gradient_to_first_occurrences():
    y, g0, g1 = _grads("setdiff1d", [4.0, 1.0, 4.0, 2.0], [2.0, 9.0])
    np.testing.assert_array_equal(y.data, [1.0, 4.0])
    np.testing.assert_array_equal(g0, [2.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(g1, [0.0, 0.0])
    y, g0, g1 = _grads("setxor1d", [4.0, 1.0, 4.0, 2.0], [2.0, 9.0, 9.0])
    np.testing.assert_array_equal(y.data, [1.0, 4.0, 9.0])
    np.testing.assert_array_equal(g0, [2.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(g1, [0.0, 3.0, 0.0])
    y, g0, _ = _grads("setdiff1d", [4.0, 1.0, 2.0], [2.0], assume_unique=True)   # order kept
    np.testing.assert_array_equal(y.data, [4.0, 1.0])
    np.testing.assert_array_equal(g0, [1.0, 2.0, 0.0])


def test_second_order_gradients_go_through_the_same_gathers():
    x = V.Variable(np.array([0.5, -1.0, 2.0, 0.5, 3.0]))
    for y, expected in [(V.union1d(x, x[:2]), [2, 2, 2, 0, 2]),             # the repeat (entry 3) gets 0
                        (V.setxor1d(x, x[1:2] + 10), [2, 4, 2, 0, 2]),      # x[1] gathered twice
                        (V.intersect1d(x, x[2:]), [2, 0, 2, 0, 2])]:        # ar1's first copies
        g, = V.grad(V.sum(y ** 2), [x], create_graph=True)
        h, = V.grad(V.sum(g), [x])
        np.testing.assert_array_equal(h.data, expected)


# ----- NaN, empty and 0-d inputs -----------------------------------------------------------------
NAN = np.array([np.nan, 1.0, np.nan, 2.0])
OTHER = np.array([np.nan, 2.0, 3.0])


@pytest.mark.parametrize("name, params", [("union1d", {}), ("intersect1d", {}), ("setdiff1d", {}),
                                          ("setxor1d", {}), ("intersect1d", {"assume_unique": True}),
                                          ("setdiff1d", {"assume_unique": True}),
                                          ("setxor1d", {"assume_unique": True})])
def test_set_ops_treat_nans_as_numpy(name, params):
    x0, x1 = V.Variable(NAN), V.Variable(OTHER)
    y = getattr(V, name)(x0, x1, **params)
    np.testing.assert_array_equal(y.data, getattr(np, name)(NAN, OTHER, **params))
    g0, g1 = V.grad(V.sum(y), [x0, x1], allow_unused=True)
    counted = sum(0 if g is None else np.sum(g.data) for g in (g0, g1))
    assert counted == y.size                                           # each value's gradient, once


def test_union1d_merges_nans_and_gives_the_first_one_the_gradient():
    _, g0, g1 = _grads("union1d", NAN, OTHER)
    np.testing.assert_array_equal(g0, [4.0, 1.0, 0.0, 2.0])             # values 1, 2, 3 and one NaN
    np.testing.assert_array_equal(g1, [0.0, 0.0, 3.0])


def test_unique_functions_keep_every_nan_with_its_own_gradient():
    x = V.Variable(NAN)
    values, indices, inverse, counts = V.unique_all(x)
    np.testing.assert_array_equal(values.data, [1.0, 2.0, np.nan, np.nan])
    np.testing.assert_array_equal(counts, [1, 1, 1, 1])
    V.sum(values).backward()
    np.testing.assert_array_equal(x.grad.data, np.ones(4))


def test_unique_values_is_sorted_as_numpys_for_floats_and_for_integers():
    data = np.array([3.0, -1.0, 3.0, 7.0, 0.5])
    np.testing.assert_array_equal(V.unique_values(data).data, np.unique_values(data))
    ints = np.array([3, -1, 3, 7])                  # NumPy 2.4's order here is its hash table's
    np.testing.assert_array_equal(V.unique_values(ints).data, [-1, 3, 7])
    assert set(np.unique_values(ints)) == {-1, 3, 7}


@pytest.mark.parametrize("name", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
def test_set_ops_of_numbers_and_empty_inputs_as_numpy(name):
    for a, b in [(np.array(2.0), np.array(2.0)), (np.zeros(0), np.zeros((2, 0))), (np.array(1.0), [1.0, 2.0]),
                 (np.zeros((0, 3)), np.ones(2)), (np.arange(3), np.array([1, 5]))]:
        y, expected = getattr(V, name)(a, b), getattr(np, name)(a, b)
        assert y.shape == expected.shape and y.dtype == expected.dtype, (a, b)
        np.testing.assert_array_equal(y.data, expected)


def test_unique_functions_of_0d_and_empty_inputs_as_numpy():
    for data in (np.array(3.0), np.zeros(0), np.zeros((2, 0))):
        ours, numpys = V.unique_all(data), np.unique_all(data)
        for got, expected in zip(ours, numpys):
            got = got.data if isinstance(got, V.Variable) else got
            assert got.shape == expected.shape and got.dtype == expected.dtype
        assert V.unique_inverse(data).inverse_indices.shape == np.unique_inverse(data).inverse_indices.shape


def test_float32_set_ops_keep_float32_and_mixed_dtypes_promote():
    a32, b64 = np.array([1.0, 2.0, 3.0], np.float32), np.array([2.0, 5.0])
    assert V.setxor1d(a32, a32[:1]).dtype == np.float32
    for name in ("union1d", "intersect1d", "setxor1d"):
        y = getattr(V, name)(V.Variable(a32), b64)
        assert y.dtype == getattr(np, name)(a32, b64).dtype == np.float64
    x = V.Variable(a32)
    g, = V.grad(V.sum(V.union1d(x, b64)), [x])
    assert g.dtype == np.float32


# ----- trim_zeros ------------------------------------------------------------------------------
def test_trim_zeros_gradient_and_edges_as_numpy():
    data = np.array([0.0, 0.0, 1.5, 0.0, -2.0, 0.0])
    x = V.Variable(data)
    y = V.trim_zeros(x)
    np.testing.assert_array_equal(y.data, [1.5, 0.0, -2.0])
    V.sum(y * 2.0).backward()
    np.testing.assert_array_equal(x.grad.data, [0, 0, 2, 2, 2, 0])        # the inner zero is kept
    for filt, trim, axis in [(np.zeros(3), "fb", None), (np.zeros((2, 3)), "f", 1),
                             (np.array([0.0, np.nan, 0.0]), "fb", None), (np.array(0.0), "fb", None),
                             (np.zeros((0, 2)), "b", None), (np.array([[0.0, 1.0], [0.0, 0.0]]), "B", 0),
                             (np.array([0, 0, 3, 0]), "f", None),
                             (np.array([False, True, False]), "fb", None)]:
        y, expected = V.trim_zeros(filt, trim, axis), np.trim_zeros(filt, trim, axis)
        assert y.shape == expected.shape and y.dtype == expected.dtype, (filt, trim, axis)
        np.testing.assert_array_equal(y.data, expected)


# ----- compress, extract --------------------------------------------------------------------------
def test_compress_and_extract_gradients_go_to_the_selected_entries():
    data = np.arange(6.0).reshape(2, 3)
    x = V.Variable(data)
    V.sum(V.compress([True, False, True], x, axis=1) * 3.0).backward()
    np.testing.assert_array_equal(x.grad.data, [[3, 0, 3], [3, 0, 3]])
    x.cleargrad()
    V.sum(V.extract(data > 2.5, x)).backward()
    np.testing.assert_array_equal(x.grad.data, [[0, 0, 0], [1, 1, 1]])
    condition = V.Variable(np.array([1.0, 0.0, 2.0]))                  # a Variable condition: its data
    np.testing.assert_array_equal(V.compress(condition, x, axis=1).data, data[:, [0, 2]])
    np.testing.assert_array_equal(V.compress([True], np.array(5.0), axis=0).data, [5.0])   # as NumPy


# ----- choose ------------------------------------------------------------------------------------
def test_choose_gradient_goes_to_the_chosen_entries_and_broadcast_choices_add_up():
    c0, c1 = V.Variable(np.array([1.0, 2.0, 3.0])), V.Variable(np.array(10.0))
    y = V.choose([[0, 1, 1], [1, 1, 0]], [c0, c1])
    np.testing.assert_array_equal(y.data, [[1.0, 10.0, 10.0], [10.0, 10.0, 3.0]])
    g0, g1 = V.grad(V.sum(y), [c0, c1])
    np.testing.assert_array_equal(g0.data, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(g1.data, 4.0)
    assert V.choose([0, 1], [np.ones(2, np.float32), 2.5]).dtype == np.float32   # weak numbers
    assert V.choose([0, 1], [np.ones(2, np.float32), np.zeros(2)]).dtype == np.float64
    lists = [[1, 2], [3, 4]]
    np.testing.assert_array_equal(V.choose([1, 0], lists).data, np.choose([1, 0], lists))
    assert V.choose(np.zeros(0, int), [np.ones(1)]).shape == (0,)
    a = V.Variable(np.array([1, 0]))                                  # an integer Variable: a constant
    np.testing.assert_array_equal(V.choose(a, [V.Variable(np.ones(2)), V.Variable(np.zeros(2))]).data, [0, 1])


# ----- resize, sliding_window_view -----------------------------------------------------------------
def test_resize_gradient_sums_over_the_repeats():
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    y = V.resize(x, (2, 4))                                          # 1 2 3 1 / 2 3 1 2
    V.sum(y).backward()
    np.testing.assert_array_equal(x.grad.data, [3.0, 3.0, 2.0])
    empty = V.Variable(np.zeros(0, np.float32))
    y = V.resize(empty, (2, 3))
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.data, np.resize(np.zeros(0, np.float32), (2, 3)))
    assert V.grad(V.sum(y), [empty])[0].shape == (0,)
    np.testing.assert_array_equal(V.resize(np.arange(3), 5).data, np.resize(np.arange(3), 5))


def test_sliding_windows_sum_the_overlapping_gradients_back():
    x = V.Variable(np.arange(5.0))
    V.sum(V.sliding_window_view(x, 3)).backward()
    np.testing.assert_array_equal(x.grad.data, [1.0, 2.0, 3.0, 2.0, 1.0])   # windows holding each entry
    data = np.random.default_rng(0).standard_normal((4, 5))
    x = V.Variable(data)
    y = V.sliding_window_view(x, (2, 3))
    u = np.random.default_rng(1).standard_normal(y.shape)
    g, = V.grad(V.sum(y * u), [x])
    expected = np.zeros((4, 5))
    for i in range(3):
        for j in range(3):
            expected[i:i + 2, j:j + 3] += u[i, j]                  # the scatter-add of the windows
    np.testing.assert_allclose(g.data, expected, rtol=1e-14)


# ----- on the device --------------------------------------------------------------------------------
def _shaped_by_arguments(x):
    """resize, choose (mode 'wrap') and sliding_window_view of x: shapes known from the arguments."""
    y = V.resize(x, (3, 3)) + V.choose([[0, 1, 2], [2, 2, 1], [1, 0, 0]], [x[:3], x[1:], x[3]], mode="wrap")
    return V.sum(y * y) + V.sum(V.sliding_window_view(x, 2))


def test_on_the_device(gpu, count_syncs):
    data = np.array([0.5, -1.0, 0.5, 2.0])
    x = V.Variable(data).to_gpu()
    with count_syncs() as syncs:                          # shapes given: no host sync
        y = _shaped_by_arguments(x)
        g, = V.grad(y, [x])
        c = V.choose([0, 1, 1], [x[:3], x[1:]])             # mode 'raise': checked on the device
    assert syncs.count == 0, syncs
    assert y.device == g.device == c.device == "gpu"
    host = V.Variable(data)
    expected, = V.grad(_shaped_by_arguments(host), [host])
    np.testing.assert_allclose(V.backend.to_cpu(g.data), expected.data, rtol=1e-12)
    with count_syncs() as syncs:                          # data-dependent sizes: host reads
        u = V.union1d(x, x[1:])
        t = V.trim_zeros(x)
    assert syncs.count >= 1 and u.device == t.device == "gpu"
    np.testing.assert_array_equal(V.backend.to_cpu(u.data), np.union1d(data, data[1:]))
    with count_syncs() as syncs:
        V.trim_zeros(x)
    assert syncs.count == 1, syncs                        # trim_zeros: one read of the bounds
    bad = V.choose([0, 3, 1], [x[:3], x[1:]])
    with pytest.raises(ValueError, match=r"^choose: invalid entry in choice array: a holds 3.*device\)"):
        V.backend.synchronize()
    assert np.isnan(V.backend.to_cpu(bad.data)).all()


# ----- refusals -------------------------------------------------------------------------------------
X = np.ones((2, 3))


@pytest.mark.parametrize("call, error, op, parts", [
    (lambda: V.union1d(X, "ab"), TypeError, "union1d", []),
    (lambda: V.intersect1d(X, X, assume_unique=1), TypeError, "intersect1d", ["assume_unique must be"]),
    (lambda: V.intersect1d(X, X, return_indices="yes"), TypeError, "intersect1d", ["return_indices"]),
    (lambda: V.setdiff1d(X, X, assume_unique=None), TypeError, "setdiff1d", ["assume_unique"]),
    (lambda: V.setxor1d(X, None), TypeError, "setxor1d", []),
    (lambda: V.unique_values("ab"), TypeError, "unique_values", []),
    (lambda: V.unique_all(None), TypeError, "unique_all", []),
    (lambda: V.trim_zeros(X, "x"), ValueError, "trim_zeros", ["unexpected character", "'x'"]),
    (lambda: V.trim_zeros(X, 1), TypeError, "trim_zeros", ["trim must be a str"]),
    (lambda: V.trim_zeros(X, axis=2), ValueError, "trim_zeros", ["axis 2 is out of range"]),
    (lambda: V.trim_zeros(X, axis=(0, 0)), ValueError, "trim_zeros", ["repeated axis"]),
    (lambda: V.compress([True], X, out=np.empty(1)), TypeError, "compress", ["out="]),
    (lambda: V.compress([[True]], X, axis=1), ValueError, "compress", ["1-d", "(1, 1)"]),
    (lambda: V.compress(True, X), ValueError, "compress", ["1-d", "()"]),
    (lambda: V.compress([1, 0, 1, 1], X, axis=1), IndexError, "compress", ["length 4", "3 entries"]),
    (lambda: V.compress([True], X, axis=2), ValueError, "compress", ["axis 2 is out of range"]),
    (lambda: V.compress([True], X, axis=1.0), TypeError, "compress", ["axis must be an int"]),
    (lambda: V.compress(["a"], X), TypeError, "compress", ["condition must be booleans or numbers"]),
    (lambda: V.compress([[True], [True, False]], X), ValueError, "compress", ["not a rectangular array"]),
    (lambda: V.extract(np.ones(7, bool), X), IndexError, "extract", ["length 7", "6 entries"]),
    (lambda: V.extract("ab", X), TypeError, "extract", ["condition"]),
    (lambda: V.choose([0, 1], [X[0], X[1]], out=np.empty(2)), TypeError, "choose", ["out="]),
    (lambda: V.choose([0, 1], [X[0], X[1]], mode="bad"), ValueError, "choose", ["mode must be", "'bad'"]),
    (lambda: V.choose([0, 2], [np.ones(2), np.zeros(2)]), ValueError, "choose",
     ["invalid entry in choice array", "holds 2", "[0, 2)", "mode='wrap'"]),
    (lambda: V.choose([0, -1], [np.ones(2), np.zeros(2)]), ValueError, "choose", ["holds -1"]),
    (lambda: V.choose([0.0, 1.0], [np.ones(2), np.zeros(2)]), TypeError, "choose", ["integers", "float64"]),
    (lambda: V.choose([0, 1], []), ValueError, "choose", ["empty"]),
    (lambda: V.choose([0, 1], np.array(1.0)), ValueError, "choose", ["0-d"]),
    (lambda: V.choose([0, 1], 3.0), TypeError, "choose", ["sequence of arrays"]),
    (lambda: V.choose([0, 1, 0], [np.ones(2), np.zeros(2)]), ValueError, "choose",
     ["(3,)", "(2,)", "do not broadcast"]),
    (lambda: V.choose([[0, 1], [1]], [np.ones(2)]), ValueError, "choose", ["not a rectangular array"]),
    (lambda: V.resize(X, (2, -1)), ValueError, "resize", ["non-negative", "(2, -1)"]),
    (lambda: V.resize(X, 2.0), TypeError, "resize", ["new_shape must be"]),
    (lambda: V.resize(X, (2, True)), TypeError, "resize", ["new_shape must be"]),
    (lambda: V.resize(X, "ab"), TypeError, "resize", ["new_shape must be"]),
    (lambda: V.sliding_window_view(X, 2, 1, writeable=True), ValueError, "sliding_window_view",
     ["writeable=True is not supported"]),
    (lambda: V.sliding_window_view(X, 2, 1, subok=None), TypeError, "sliding_window_view", ["subok"]),
    (lambda: V.sliding_window_view(X, 4, 1), ValueError, "sliding_window_view", ["window of 4", "(2, 3)"]),
    (lambda: V.sliding_window_view(X, (2, 2, 2), 1), ValueError, "sliding_window_view", ["one size per"]),
    (lambda: V.sliding_window_view(X, 2), ValueError, "sliding_window_view", ["one size per axis", "(2, 3)"]),
    (lambda: V.sliding_window_view(X, -1, 0), ValueError, "sliding_window_view", ["negative"]),
    (lambda: V.sliding_window_view(X, 1.5, 0), TypeError, "sliding_window_view", ["window_shape must be"]),
    (lambda: V.sliding_window_view(X, 2, 3), ValueError, "sliding_window_view", ["axis 3 is out of range"]),
    (lambda: V.sliding_window_view(X, (3, 3), (1, 1)), ValueError, "sliding_window_view", ["larger", "(1)"]),
])
def test_refusals(call, error, op, parts):
    with pytest.raises(error) as caught:
        call()
    assert_message(caught, op, *parts)


def test_sliding_windows_are_numpys_view_on_the_cpu_and_add_back_by_slices(on_device):
    data = np.arange(12.0).reshape(3, 4)
    x = V.Variable(on_device(data))
    y = np.lib.stride_tricks.sliding_window_view(x, (2, 3))
    np.testing.assert_array_equal(backend.to_cpu(y.data),
                                  np.lib.stride_tricks.sliding_window_view(data, (2, 3)))
    if backend.device_of(y.data) == "cpu":                 # no copy, and read-only, as NumPy's
        assert np.shares_memory(y.data, x.data) and not y.data.flags.writeable
    g, = V.grad(V.sum(y * y), [x], create_graph=True)
    counts = np.lib.stride_tricks.sliding_window_view(np.ones((3, 4)), (2, 3)).sum(axis=(-1, -2))
    hits = np.zeros((3, 4))                                # windows holding each entry
    for i, j in np.ndindex(counts.shape):
        hits[i:i + 2, j:j + 3] += 1
    np.testing.assert_array_equal(backend.to_cpu(g.data), 2 * hits * data)
    gg, = V.grad(V.sum(g), [x])                            # the adjoint's adjoint: windows again
    np.testing.assert_array_equal(backend.to_cpu(gg.data), 2 * hits)
