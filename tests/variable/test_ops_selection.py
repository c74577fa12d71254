"""Selection and differences in NumPy's names: sort, partition, take_along_axis, take, select,
diag, diagonal, tril, triu (variable/ops/selection.py) and diff, gradient, pad
(variable/ops/differences.py).

Every op is linear in its data (sort and partition piecewise so), so the table checks
derivatives to order 3 (2 for sort/partition, at points without ties) and Taylor mode
to order 6; the functions below check what a table cannot: repeated indices adding up,
NumPy's return conventions, and the error messages.
"""

import numpy as np
import pytest
from op_rows import PIECEWISE, SMOOTH, Row, normal, table_tests

import variable as V


def distinct(*shapes, gap=0.2):
    """Points whose entries all differ by at least `gap` (no ties for sort/partition)."""

    def sample(rng):
        out = []
        for s in shapes:
            n = int(np.prod(s))
            values = rng.permutation(n) * gap + rng.uniform(0, gap / 4, n) - n * gap / 2
            out.append(values.reshape(s))
        return tuple(out)

    return sample


def rows(fn, ref, cases, order=SMOOTH):
    """One Row per (label, shapes, keyword arguments) case: fn(x, **kw) against ref(x, **kw)."""
    return [
        Row(label, lambda *xs, kw=kw: fn(*xs, **kw), lambda *xs, kw=kw: ref(*xs, **kw), sample(*shapes),
            order)
        for label, sample, shapes, kw in cases
    ]


_REPEATED = np.array([[0, 0, 2, 1], [2, 2, 2, -1]])
_COLUMN = np.array([[1], [0], [1], [1]])
_CONDITIONS = [np.array([[True, False, False], [False, True, False]]), np.array([True, True, False])]

ROWS = {
    "sort": rows(V.sort, np.sort, [
        ("(3,)", distinct, [(3,)], {}),
        ("(2,3)", distinct, [(2, 3)], {}),
        ("(2,3)-axis0", distinct, [(2, 3)], {"axis": 0}),
        ("(2,3)-axis-2", distinct, [(2, 3)], {"axis": -2}),
        ("(2,3)-axisNone", distinct, [(2, 3)], {"axis": None}),
        ("()-axisNone", distinct, [()], {"axis": None}),
        ("(2,3)-stable", distinct, [(2, 3)], {"kind": "stable"}),
        ("(0,3)", distinct, [(0, 3)], {"axis": 0}),
    ], PIECEWISE),
    "partition": rows(V.partition, np.partition, [
        ("(5,)-kth2", distinct, [(5,)], {"kth": 2}),
        ("(5,)-kth-1", distinct, [(5,)], {"kth": -1}),
        ("(4,3)-kths-axis0", distinct, [(4, 3)], {"kth": [0, 2], "axis": 0}),
        ("(2,3)-axisNone", distinct, [(2, 3)], {"kth": 4, "axis": None}),
        ("(0,3)", distinct, [(0, 3)], {"kth": 1}),
    ], PIECEWISE),
    "take_along_axis": rows(V.take_along_axis, np.take_along_axis, [
        ("(2,3)-repeated", normal, [(2, 3)], {"indices": _REPEATED, "axis": 1}),
        ("(2,3)-axis-1", normal, [(2, 3)], {"indices": _REPEATED, "axis": -1}),
        ("(2,3)-broadcast-axis0", normal, [(2, 3)], {"indices": _COLUMN, "axis": 0}),
        ("(2,3)-axisNone", normal, [(2, 3)], {"indices": np.array([5, 0, 5]), "axis": None}),
        ("(0,3)-empty", normal, [(0, 3)], {"indices": np.zeros((0, 2), dtype=int), "axis": 1}),
    ]),
    "take": rows(V.take, np.take, [
        ("(2,3)-flat-repeated", normal, [(2, 3)], {"indices": [0, 5, 5, -1]}),
        ("(2,3)-axis1-2d", normal, [(2, 3)], {"indices": [[0, 2], [2, 2]], "axis": 1}),
        ("(2,3)-axis-2", normal, [(2, 3)], {"indices": [1, 1, 0], "axis": -2}),
        ("(3,)-scalar", normal, [(3,)], {"indices": 1}),
        ("()-flat", normal, [()], {"indices": [0, 0]}),
        ("(2,3)-empty-indices", normal, [(2, 3)], {"indices": [], "axis": 0}),
    ]),
    "select": [
        Row("(2,3)-choices-default", lambda a, b, d: V.select(_CONDITIONS, [a, b], d),
            lambda a, b, d: np.select(_CONDITIONS, [a, b], d), normal((2, 3), (3,), (2, 3)), SMOOTH),
        Row("(2,3)-number-default", lambda a, b: V.select(_CONDITIONS, [a, b]),
            lambda a, b: np.select(_CONDITIONS, [a, b]), normal((2, 3), (2, 1)), SMOOTH),
        Row("()-choice", lambda a: V.select([np.array(False)], [a], 1.5),
            lambda a: np.select([np.array(False)], [a], 1.5), normal(()), SMOOTH),
    ],
    "diag": rows(V.diag, np.diag, [
        ("(3,)", normal, [(3,)], {}),
        ("(3,)-k2", normal, [(3,)], {"k": 2}),
        ("(3,)-k-1", normal, [(3,)], {"k": -1}),
        ("(3,4)-k1", normal, [(3, 4)], {"k": 1}),
        ("(3,4)-k-2", normal, [(3, 4)], {"k": -2}),
        ("(0,)", normal, [(0,)], {}),
    ]),
    "diagonal": rows(V.diagonal, np.diagonal, [
        ("(3,4)", normal, [(3, 4)], {}),
        ("(2,3,4)-offset1-axes12", normal, [(2, 3, 4)], {"offset": 1, "axis1": 1, "axis2": 2}),
        ("(2,3,4)-axes-1-0", normal, [(2, 3, 4)], {"offset": -1, "axis1": -1, "axis2": 0}),
        ("(3,4)-offset-beyond", normal, [(3, 4)], {"offset": 5}),
        ("(0,3)", normal, [(0, 3)], {}),
    ]),
    "tril": rows(V.tril, np.tril, [
        ("(3,)", normal, [(3,)], {}),
        ("(3,4)", normal, [(3, 4)], {}),
        ("(3,4)-k1", normal, [(3, 4)], {"k": 1}),
        ("(2,3,3)-k-1", normal, [(2, 3, 3)], {"k": -1}),
        ("(0,3)", normal, [(0, 3)], {}),
    ]),
    "triu": rows(V.triu, np.triu, [
        ("(3,)", normal, [(3,)], {}),
        ("(3,4)", normal, [(3, 4)], {}),
        ("(3,4)-k-1", normal, [(3, 4)], {"k": -1}),
        ("(2,3,3)-k1", normal, [(2, 3, 3)], {"k": 1}),
        ("(0,3)", normal, [(0, 3)], {}),
    ]),
    "diff": rows(V.diff, np.diff, [
        ("(4,)", normal, [(4,)], {}),
        ("(3,4)-n2", normal, [(3, 4)], {"n": 2}),
        ("(3,4)-n3-axis0", normal, [(3, 4)], {"n": 3, "axis": 0}),
        ("(3,4)-n2-axis-2", normal, [(3, 4)], {"n": 2, "axis": -2}),
        ("(2,3)-n5-empty", normal, [(2, 3)], {"n": 5}),
        ("(2,3)-n0", normal, [(2, 3)], {"n": 0}),
        ("(2,3)-prepend-number", normal, [(2, 3)], {"prepend": 0.5}),
        ("(0,3)", normal, [(0, 3)], {"axis": 0}),
    ]) + [
        Row("(2,3)-prepend-append-variables", lambda a, p, q: V.diff(a, 2, axis=1, prepend=p, append=q),
            lambda a, p, q: np.diff(a, 2, axis=1, prepend=p, append=q), normal((2, 3), (2, 1), (2, 2)),
            SMOOTH),
    ],
    "gradient": rows(V.gradient, np.gradient, [
        ("(5,)", normal, [(5,)], {}),
        ("(2,)", normal, [(2,)], {}),
        ("(5,)-edge2", normal, [(5,)], {"edge_order": 2}),
        ("(3,4)-both-axes", normal, [(3, 4)], {}),
        ("(3,4)-axis-1-edge2", normal, [(3, 4)], {"axis": -1, "edge_order": 2}),
        ("(3,4)-axes10", normal, [(3, 4)], {"axis": (1, 0)}),
    ]) + [
        Row("(4,)-spacing", lambda f: V.gradient(f, 0.5), lambda f: np.gradient(f, 0.5), normal((4,)),
            SMOOTH),
        Row("(3,4)-coordinates-edge2", lambda f: V.gradient(f, 2.0, [0.0, 0.5, 1.5, 1.75], edge_order=2),
            lambda f: np.gradient(f, 2.0, [0.0, 0.5, 1.5, 1.75], edge_order=2), normal((3, 4)), SMOOTH),
        Row("(4,3)-coordinates-axis0", lambda f: V.gradient(f, [0.0, 1.0, 3.0, 3.5], axis=0),
            lambda f: np.gradient(f, [0.0, 1.0, 3.0, 3.5], axis=0), normal((4, 3)), SMOOTH),
    ],
    "pad": rows(V.pad, np.pad, [
        ("(3,)-constant", normal, [(3,)], {"pad_width": 2}),
        ("(2,3)-constant-values", normal, [(2, 3)], {"pad_width": ((1, 0), (2, 1)), "constant_values": 1.5}),
        ("(2,3)-constant-pairs", normal, [(2, 3)],
         {"pad_width": (1, 2), "constant_values": ((1, 2), (3, 4))}),
        ("(2,3)-edge", normal, [(2, 3)], {"pad_width": (2, 1), "mode": "edge"}),
        ("(2,3)-reflect", normal, [(2, 3)], {"pad_width": ((1, 1), (2, 3)), "mode": "reflect"}),
        ("(2,3)-dict", normal, [(2, 3)], {"pad_width": {-1: (1, 2)}, "mode": "edge"}),
        ("(3,)-reflect-wide", normal, [(3,)], {"pad_width": (5, 7), "mode": "reflect"}),
        ("(2,3)-wrap", normal, [(2, 3)], {"pad_width": ((1, 2), (2, 4)), "mode": "wrap"}),
        ("(3,)-wrap-wide", normal, [(3,)], {"pad_width": (7, 5), "mode": "wrap"}),
        ("(2,3)-symmetric", normal, [(2, 3)], {"pad_width": ((2, 1), (3, 2)), "mode": "symmetric"}),
        ("(2,)-symmetric-wide", normal, [(2,)], {"pad_width": (5, 6), "mode": "symmetric"}),
        ("()-constant", normal, [()], {"pad_width": 1}),
        ("(0,3)-constant", normal, [(0, 3)], {"pad_width": 1}),
        ("(0,3)-edge-other-axis", normal, [(0, 3)], {"pad_width": ((0, 0), (1, 1)), "mode": "edge"}),
    ]),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


# ----- what the table cannot express -------------------------------------------------
def test_take_repeated_indices_accumulate():
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    V.take(x, [0, 0, 2, 0]).backward()
    np.testing.assert_allclose(x.grad.data, [3.0, 0.0, 1.0])


def test_take_along_axis_repeated_indices_accumulate():
    x = V.Variable(np.zeros((2, 3)))
    y = V.take_along_axis(x, np.array([[1, 1, 1], [0, 2, 0]]), axis=1)
    V.sum(y * np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).backward()
    np.testing.assert_allclose(x.grad.data, [[0.0, 6.0, 0.0], [10.0, 0.0, 5.0]])


def test_sort_gradient_follows_the_permutation():
    x = V.Variable(np.array([3.0, 1.0, 2.0]))
    V.sum(V.sort(x) * np.array([10.0, 20.0, 30.0])).backward()
    np.testing.assert_allclose(x.grad.data, [30.0, 10.0, 20.0])


def test_select_default_gets_the_gradient_where_no_condition_holds():
    a, d = V.Variable(np.ones(3)), V.Variable(np.zeros(3))
    V.select([np.array([True, False, True])], [a], d).backward()
    np.testing.assert_allclose(a.grad.data, [1.0, 0.0, 1.0])
    np.testing.assert_allclose(d.grad.data, [0.0, 1.0, 0.0])


def test_select_keeps_float32_with_a_number_default():
    y = V.select([np.array([True, False])], [V.Variable(np.ones(2, dtype=np.float32))])
    assert y.dtype == np.float32


def test_gradient_returns_a_tuple_for_several_axes_and_nothing_for_0d():
    f = np.arange(12.0).reshape(3, 4) ** 2
    ys = V.gradient(V.Variable(f))
    assert isinstance(ys, tuple) and len(ys) == 2
    assert isinstance(V.gradient(V.Variable(f), axis=1), V.Variable)
    assert V.gradient(V.Variable(np.array(1.0))) == ()


def test_gradient_with_uniform_coordinates_equals_the_number():
    f = np.sin(np.linspace(0, 2, 6))
    a = V.gradient(V.Variable(f), np.linspace(0, 1, 6), edge_order=2)
    np.testing.assert_allclose(a.data, np.gradient(f, 0.2, edge_order=2))


def test_diff_of_a_sampled_parabola_is_linear():
    x = V.Variable(np.arange(6.0) ** 2)
    np.testing.assert_allclose(V.diff(x).data, [1, 3, 5, 7, 9])
    np.testing.assert_allclose(V.diff(x, 2).data, [2, 2, 2, 2])


def test_pad_constant_values_get_no_gradient():
    x = V.Variable(np.ones((2, 2)))
    V.pad(x, 1, constant_values=7.0).backward()
    np.testing.assert_allclose(x.grad.data, np.ones((2, 2)))


def test_pad_reflect_sends_each_copy_home():
    x = V.Variable(np.array([1.0, 2.0, 3.0]))
    V.pad(x, (2, 1), mode="reflect").backward()        # [3 2 | 1 2 3 | 2]
    np.testing.assert_allclose(x.grad.data, [1.0, 3.0, 2.0])


# ----- errors name the op ----------------------------------------------------------
X = np.arange(6.0).reshape(2, 3)

ERRORS = [
    (lambda: V.sort(X, axis=2), ValueError, "sort: axis 2"),
    (lambda: V.sort(X, order="f"), TypeError, "sort: order="),
    (lambda: V.sort(X, kind="bogo"), ValueError, "sort: kind"),
    (lambda: V.sort(np.array(1.0)), ValueError, "sort: axis -1"),
    (lambda: V.partition(X, 3), ValueError, "partition: kth 3"),
    (lambda: V.partition(X, 1.5), TypeError, "partition: kth"),
    (lambda: V.partition(X, 1, kind="quick"), ValueError, "partition: kind"),
    (lambda: V.partition(X, 1, order="f"), TypeError, "partition: order="),
    (lambda: V.take_along_axis(X, np.array([0, 1]), axis=1), ValueError, "take_along_axis: indices of shape"),
    (lambda: V.take_along_axis(X, np.array([[0.5]]), axis=1), TypeError, "take_along_axis: indices must be"),
    (lambda: V.take_along_axis(X, np.array([[3]]), axis=1), IndexError, "take_along_axis:"),
    (lambda: V.take_along_axis(X, np.zeros((3, 1), dtype=int), axis=1), ValueError, "do not broadcast"),
    (lambda: V.take(X, [6]), IndexError, "take:"),
    (lambda: V.take(X, [0], axis=-3), ValueError, "take: axis -3"),
    (lambda: V.take(X, [0], mode="wrap"), ValueError, "take: mode='wrap'"),
    (lambda: V.take(X, [0], out=np.zeros(1)), TypeError, "take: out="),
    (lambda: V.select([np.array([1, 0])], [np.ones(2)]), TypeError, "select: condition 0 must be boolean"),
    (lambda: V.select([np.array([True])], []), ValueError, "select: condlist and choicelist"),
    (lambda: V.select([], []), ValueError, "select: condlist is empty"),
    (lambda: V.select([np.ones(3, bool)], [np.ones(2)]), ValueError, "select: the shapes"),
    (lambda: V.diag(np.ones((2, 2, 2))), ValueError, "diag: the input must be 1-D or 2-D"),
    (lambda: V.diag(np.ones(2), k=0.5), TypeError, "diag: the diagonal offset"),
    (lambda: V.diagonal(np.ones(3)), ValueError, "diagonal: the input must be at least 2-D"),
    (lambda: V.diagonal(X, axis1=1, axis2=-1), ValueError, "diagonal: axis1 and axis2 must differ"),
    (lambda: V.diagonal(X, axis2=2), ValueError, "diagonal: axis 2"),
    (lambda: V.tril(np.array(1.0)), ValueError, "tril: the input must be at least 1-D"),
    (lambda: V.triu(X, k=None), TypeError, "triu: the diagonal offset"),
    (lambda: V.diff(np.array(1.0)), ValueError, "diff: the input must be at least 1-D"),
    (lambda: V.diff(X, n=-1), ValueError, "diff: order n must be non-negative"),
    (lambda: V.diff(X, n=1.0), TypeError, "diff: n must be an int"),
    (lambda: V.diff(X, axis=2), ValueError, "diff: axis 2"),
    (lambda: V.diff(X, prepend=np.ones((3, 1))), ValueError, "diff: prepend of shape (3, 1)"),
    (lambda: V.gradient(X, edge_order=3), ValueError, "gradient: edge_order"),
    (lambda: V.gradient(np.ones(2), edge_order=2), ValueError, "gradient: axis 0 of the input"),
    (lambda: V.gradient(X, 1.0, 2.0, 3.0), TypeError, "gradient: expected no spacing"),
    (lambda: V.gradient(X, [0.0, 1.0], axis=1), ValueError, "gradient: coordinates along axis 1"),
    (lambda: V.gradient(X, axis=(0, 0)), ValueError, "gradient: repeated axis"),
    (lambda: V.gradient(X, V.Variable(1.0)), TypeError, "gradient: the spacing is a constant"),
    (lambda: V.pad(X, 1, mode="maximum"), ValueError, "pad: mode 'maximum' is not supported"),
    (lambda: V.pad(X, 1, mode="circular"), ValueError, "PyTorch's circular padding is mode='wrap'"),
    (lambda: V.pad(X, 1, mode="edge", constant_values=1), ValueError, "pad: unsupported keyword"),
    (lambda: V.pad(X, 1, mode="reflect", reflect_type="odd"), ValueError, "pad: reflect_type='odd'"),
    (lambda: V.pad(X, -1), ValueError, "pad: pad_width must be >= 0"),
    (lambda: V.pad(X, 1.5), TypeError, "pad: pad_width must be ints"),
    (lambda: V.pad(X, ((1, 1), (1, 1), (1, 1))), ValueError, "pad: pad_width"),
    (lambda: V.pad(X, {2: 1}), ValueError, "pad: axis 2"),
    (lambda: V.pad(np.ones((0, 2)), 1, mode="edge"), ValueError, "pad: cannot extend the empty axis 0"),
    (lambda: V.pad(X, 1, constant_values=V.Variable(1.0)), TypeError, "pad: constant_values are constants"),
]


@pytest.mark.parametrize("call, kind, message", ERRORS, ids=[m for _, _, m in ERRORS])
def test_errors_name_the_op(call, kind, message):
    with pytest.raises(kind) as error:
        call()
    assert message in str(error.value)
