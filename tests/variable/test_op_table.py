"""Every primitive op, row by row: forward against NumPy, derivatives against gradcheck.

`OP_TABLE` maps each name in `variable.OPS` to its rows: `ELEMENTWISE_ROWS` below (the
elementwise ops, sum_to and broadcast_to, run here) merged with the dict of every other
op family's table module (`TENSOR_OPS_COVERED` of test_tensor_table.py, run there).
`test_every_op_has_rows` fails as soon as `variable.OPS` names an op without rows:
whoever adds an op adds rows for it to its family's dict, or merges a new dict here.

Smooth ops are checked to third order, piecewise ones (kinks, ties, masks) to second,
all in float64 and at points away from kinks, ties, poles and domain edges.
"""

import dataclasses

import numpy as np
import pytest

# sibling modules: tests/variable is on sys.path
from op_rows import (
    BINARY_SHAPES,
    DEVICE_SKIPS,
    DEVICE_TAYLOR,
    PIECEWISE,
    SHAPE_VARIANTS,
    SMOOTH,
    TAYLOR,
    TAYLOR_ELSEWHERE,
    UNARY_SHAPES,
    Row,
    away_from,
    binary_rows,
    checked_orders,
    device_order,
    near_zero,
    nonzero,
    normal,
    normal_then_nonzero,
    positive,
    positive_then_normal,
    shape_variants,
    skip_shape_variant_on_device,
    unary_rows,
    untied,
    with_zeros,
)
from test_ops_airy import ROWS as AIRY_ROWS
from test_ops_array_api import ROWS as ARRAY_API_ROWS
from test_ops_bessel import ROWS as BESSEL_ROWS
from test_ops_contraction import ROWS as CONTRACTION_ROWS
from test_ops_decompositions import ROWS as DECOMPOSITION_ROWS
from test_ops_distribution_functions import ROWS as DISTRIBUTION_ROWS
from test_ops_distribution_inverses import ROWS as INVERSE_DISTRIBUTION_ROWS
from test_ops_division import ROWS as DIVISION_ROWS
from test_ops_elementary import ROWS as ELEMENTARY_ROWS
from test_ops_elliptic_integrals import ROWS as ELLIPTIC_ROWS
from test_ops_exponential import ROWS as EXPONENTIAL_ROWS
from test_ops_grids import ROWS as GRID_ROWS
from test_ops_histograms import ROWS as HISTOGRAM_ROWS
from test_ops_hypergeometric import ROWS as HYPERGEOMETRIC_ROWS
from test_ops_implicit import ROWS as IMPLICIT_ROWS
from test_ops_integrals import ROWS as INTEGRAL_ROWS
from test_ops_kelvin import ROWS as KELVIN_ROWS
from test_ops_ks_distribution import ROWS as KS_ROWS
from test_ops_linalg import ROWS as LINALG_ROWS
from test_ops_linalg_api import ROWS as LINALG_API_ROWS
from test_ops_nanfunctions import ROWS as NANFUNCTION_ROWS
from test_ops_polynomials import ROWS as POLYNOMIAL_ROWS
from test_ops_powers import ROWS as POWER_ROWS
from test_ops_quantiles import ROWS as QUANTILE_ROWS
from test_ops_reductions import ROWS as REDUCTION_ROWS
from test_ops_rounding import ROWS as ROUNDING_ROWS
from test_ops_selection import ROWS as SELECTION_ROWS
from test_ops_sets import ROWS as SET_ROWS
from test_ops_shape_more import ROWS as SHAPE_ROWS
from test_ops_signal import ROWS as SIGNAL_ROWS
from test_ops_special import ROWS as SPECIAL_ROWS
from test_ops_spherical_bessel import ROWS as SPHERICAL_ROWS
from test_ops_statistics import ROWS as STATISTICS_ROWS
from test_tensor_table import TENSOR_OPS_COVERED

import variable as V
from variable.ops.trigonometric import TanhGrad

POWERS = 4      # derivative order checked for powers, at 0 where they are defined there


def power_rows():
    """x ** c to order POWERS: whole c at points that include 0 (central differences are
    exact there for polynomials), c = 0.5 where it is defined (x > 0), negative c away from
    the pole; and an array exponent holding 0, 1, 2 and 3 at x = 0."""
    rows = [
        Row(f"c={c!r} {where}, {s}", lambda x, c=c: V.pow(x, c), lambda x, c=c: x ** c, sampler(s), POWERS)
        for c, sampler, where in [
            (0, with_zeros, "at 0"), (1, with_zeros, "at 0"), (2, with_zeros, "at 0"),
            (3, with_zeros, "at 0"), (3.0, with_zeros, "at 0"), (0.5, positive, "x > 0"),
            (-1, nonzero, "x != 0"), (-2, nonzero, "x != 0"),
        ]
        for s in UNARY_SHAPES
    ]
    c = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 2.0]])
    rows += [
        Row(f"c=[[0 1 2] [3 0 2]] at 0, {s}", lambda x: V.pow(x, c), lambda x: x ** c, sampler(s), POWERS)
        for s, sampler in [((2, 3), lambda s: lambda rng: (np.zeros(s),)), ((3,), with_zeros)]
    ]
    # a Variable exponent holding exact zeros: the mixed derivatives there are x0^-1, not 0
    rows.append(Row("x1 with zeros, x0 > 0", V.pow, np.power,
                    lambda rng: positive((2, 3))(rng) + with_zeros((2, 3))(rng), POWERS))
    return rows


def where_rows():
    """where(cond, x0, x1) with a fixed random mask of the broadcast shape."""
    rows = []
    for s0, s1 in BINARY_SHAPES:
        cond = np.random.default_rng(1).random(np.broadcast_shapes(s0, s1)) < 0.5
        rows.append(Row(
            f"{s0}x{s1}",
            lambda x0, x1, c=cond: V.where(c, x0, x1),
            lambda x0, x1, c=cond: np.where(c, x0, x1),
            normal(s0, s1),
            PIECEWISE,
        ))
    # a condition wider than both operands widens the result
    for sc, s0, s1 in [((2, 3), (), (3,)), ((2, 3), (2, 1), ())]:
        cond = np.random.default_rng(2).random(sc) < 0.5
        rows.append(Row(
            f"cond {sc}, {s0}x{s1}",
            lambda x0, x1, c=cond: V.where(c, x0, x1),
            lambda x0, x1, c=cond: np.where(c, x0, x1),
            normal(s0, s1),
            PIECEWISE,
        ))
    return rows


def sum_to_reference(x, shape):
    """NumPy sum_to: sum the leading axes away, then the axes that are 1 in `shape`."""
    y = x.sum(axis=tuple(range(x.ndim - len(shape))))
    return y.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1), keepdims=True)


def sum_to_rows():
    """sum_to from a shape down to every kind of shape that broadcasts to it."""
    pairs = [((2, 3), (3,)), ((2, 3), (1, 3)), ((2, 3), (2, 1)), ((2, 3), ()),
             ((3,), ()), ((2, 3), (2, 3)), ((4, 2, 3), (2, 1))]
    return [
        Row(f"{src}->{dst}",
            lambda x, d=dst: V.sum_to(x, d),
            lambda x, d=dst: sum_to_reference(x, d),
            normal(src), SMOOTH)
        for src, dst in pairs
    ]


def broadcast_to_rows():
    """broadcast_to from a shape up to a bigger one, and to itself."""
    pairs = [((), (2, 3)), ((3,), (2, 3)), ((2, 1), (2, 3)), ((1, 3), (2, 3)),
             ((3,), (3,)), ((2, 1), (4, 2, 3))]
    return [
        Row(f"{src}->{dst}",
            lambda x, d=dst: V.broadcast_to(x, d),
            lambda x, d=dst: np.broadcast_to(x, d),
            normal(src), SMOOTH)
        for src, dst in pairs
    ]


# ----- the ops covered by this file (issue: core engine and elementwise ops) -------------
ELEMENTWISE_ROWS = {
    "add": binary_rows(V.add, np.add, normal, SMOOTH),
    "sub": binary_rows(V.sub, np.subtract, normal, SMOOTH),
    "mul": binary_rows(V.mul, np.multiply, normal, SMOOTH),
    "div": binary_rows(V.div, np.divide, normal_then_nonzero, SMOOTH),
    "pow": binary_rows(V.pow, np.power, positive_then_normal, SMOOTH) + [
        Row(f"c={c}, {s}", lambda x, c=c: V.pow(x, c), lambda x, c=c: x ** c, sampler(s), SMOOTH)
        for c, sampler in [(3, normal), (2.5, positive), (-1.5, positive), (0.5, positive)]
        for s in UNARY_SHAPES
    ] + power_rows(),
    "neg": unary_rows(V.neg, np.negative, normal, SMOOTH),
    "square": unary_rows(V.square, np.square, normal, SMOOTH),
    "sqrt": unary_rows(V.sqrt, np.sqrt, positive, SMOOTH),
    "exp": unary_rows(V.exp, np.exp, normal, SMOOTH),
    "log": unary_rows(V.log, np.log, positive, SMOOTH),
    "sin": unary_rows(V.sin, np.sin, normal, SMOOTH),
    "cos": unary_rows(V.cos, np.cos, normal, SMOOTH),
    "tan": unary_rows(V.tan, np.tan, near_zero, SMOOTH),
    "tanh": unary_rows(V.tanh, np.tanh, normal, SMOOTH) + [  # and its backward op
        dataclasses.replace(row, label=f"TanhGrad {row.label}")
        for row in binary_rows(lambda gy, y: V.Function(TanhGrad())(gy, y),
                               lambda gy, y: gy * (1 - y ** 2), normal, SMOOTH)
    ],
    "sinh": unary_rows(V.sinh, np.sinh, normal, SMOOTH),
    "cosh": unary_rows(V.cosh, np.cosh, normal, SMOOTH),
    "abs": unary_rows(V.abs, np.abs, nonzero, PIECEWISE),
    "maximum": binary_rows(V.maximum, np.maximum, untied, PIECEWISE),
    "minimum": binary_rows(V.minimum, np.minimum, untied, PIECEWISE),
    "clip": unary_rows(
        lambda x: V.clip(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5),
        lambda s: away_from([-0.5, 0.5], s), PIECEWISE,
    ) + [
        Row("lo only", lambda x: V.clip(x, 0.0, None), lambda x: np.maximum(x, 0.0),
            away_from([0.0], (2, 3)), PIECEWISE),
        Row("hi only", lambda x: V.clip(x, None, 0.0), lambda x: np.minimum(x, 0.0),
            away_from([0.0], (2, 3)), PIECEWISE),
    ],
    # NumPy's other names for the same ops (np.multiply for mul, ...)
    "absolute": unary_rows(V.absolute, np.absolute, nonzero, PIECEWISE),
    "negative": unary_rows(V.negative, np.negative, normal, SMOOTH),
    "multiply": binary_rows(V.multiply, np.multiply, normal, SMOOTH),
    "subtract": binary_rows(V.subtract, np.subtract, normal, SMOOTH),
    "divide": binary_rows(V.divide, np.divide, normal_then_nonzero, SMOOTH),
    "true_divide": binary_rows(V.true_divide, np.true_divide, normal_then_nonzero, SMOOTH),
    "power": binary_rows(V.power, np.power, positive_then_normal, SMOOTH),
    "where": where_rows(),
    "sum_to": sum_to_rows(),
    "broadcast_to": broadcast_to_rows(),
}

# Every op family's rows.  A new family: import its dict of rows and merge it here.
OP_TABLE = {**TENSOR_OPS_COVERED, **ELEMENTWISE_ROWS, **EXPONENTIAL_ROWS, **ROUNDING_ROWS, **REDUCTION_ROWS,
            **SPECIAL_ROWS, **BESSEL_ROWS, **ELEMENTARY_ROWS, **DISTRIBUTION_ROWS,
            **INVERSE_DISTRIBUTION_ROWS, **INTEGRAL_ROWS, **IMPLICIT_ROWS, **KS_ROWS, **AIRY_ROWS,
            **SPHERICAL_ROWS, **HYPERGEOMETRIC_ROWS, **KELVIN_ROWS, **ELLIPTIC_ROWS,
            **CONTRACTION_ROWS, **SHAPE_ROWS, **SELECTION_ROWS,
            **LINALG_ROWS, **DECOMPOSITION_ROWS, **QUANTILE_ROWS, **NANFUNCTION_ROWS, **SIGNAL_ROWS,
            **POWER_ROWS, **GRID_ROWS, **STATISTICS_ROWS, **ARRAY_API_ROWS, **LINALG_API_ROWS,
            **POLYNOMIAL_ROWS, **DIVISION_ROWS, **SET_ROWS, **HISTOGRAM_ROWS}
"""Op name -> its rows, every family merged ("linalg.<name>" for V.linalg's ops)."""

CASES = [
    pytest.param(name, row, id=f"{name}-{row.label}")
    for name, rows in ELEMENTWISE_ROWS.items()
    for row in rows
]


def _public(name):
    """The public op called `name` ("linalg.det": V.linalg.det), or None."""
    module, _, op = name.rpartition(".")
    return getattr(V.linalg if module == "linalg" else V, op, None)


def test_every_op_has_rows():
    missing = [name for name in (*V.OPS, *V.LINALG_OPS) if not OP_TABLE.get(name)]
    assert not missing, (
        f"ops in variable.OPS without rows in OP_TABLE ({__file__}): {missing}; "
        f"add a dict of rows for them and merge it into OP_TABLE"
    )


def test_every_row_names_a_public_op():
    unknown = sorted(name for name in OP_TABLE
                     if name not in (*V.OPS, *V.LINALG_OPS) or _public(name) is None)
    assert not unknown, f"OP_TABLE rows for names that are not public ops: {unknown}"


def test_an_op_checked_elsewhere_has_a_row_checked_in_full():
    """An op with rows at TAYLOR_ELSEWHERE (Taylor to order 3, gradcheck to ORDER_ELSEWHERE) has
    a row at TAYLOR whose gradcheck order is the highest of its rows (op_rows.py)."""
    def taylor(row):
        return getattr(row, "taylor", TAYLOR)      # (the tensor table's cases: order 6)
    partial = sorted(name for name, rows in OP_TABLE.items()
                     if any(taylor(r) == TAYLOR_ELSEWHERE for r in rows) and not any(
                         taylor(r) == TAYLOR and r.order == max(q.order for q in rows) for r in rows))
    assert not partial, f"ops without a row checked in full: {partial}"


def test_shape_variants_are_the_smaller_shapes_of_each_run():
    """An elementwise family's rows of one range at several shapes: the largest keeps its orders."""
    def row(label, taylor=TAYLOR):
        return Row(label, V.sin, np.sin, normal(()), SMOOTH, taylor=taylor)
    rows = {"op": [row("()"), row("(3,)"), row("(2, 3)"), row("()"), row("(2, 3)"), row("(3,)"),
                   row("v=1, ()"), row("v=2, ()"), row("v=2, (3,)"), row("far"), row("far")],
            "other": [row("()x(2, 3)"), row("(2, 3)x(3,)"), row("(3,)x(3,)", taylor=1)]}
    variants = shape_variants(rows)
    labels = [(name, r.label) for name, rs in rows.items() for r in rs if id(r) in variants]
    assert labels == [("op", "()"), ("op", "(3,)"), ("op", "()"), ("op", "(3,)"), ("op", "v=2, ()"),
                      ("other", "()x(2, 3)"), ("other", "(3,)x(3,)")]     # (7 and 6 entries; 9 kept)
    assert checked_orders(rows["op"][0], variants) == (2, TAYLOR_ELSEWHERE)
    assert checked_orders(rows["op"][2], variants) == (SMOOTH, TAYLOR)
    assert checked_orders(rows["other"][2], variants) == (2, 1)


def test_shape_variants_leave_every_op_checked_to_its_highest_orders():
    """Whichever rows `shape_variants` lowers, each op keeps a row at its highest gradcheck
    order and its highest Taylor order (those of op_rows.checked_orders without them)."""
    lowered = []
    for name, rows in OP_TABLE.items():
        rows = [r for r in rows if isinstance(r, Row)]     # (the tensor table's cases are not)
        variants = shape_variants({name: rows})
        for i in (0, 1):
            if rows and max(checked_orders(r, variants)[i] for r in rows) != max(
                    checked_orders(r)[i] for r in rows):
                lowered.append((name, ("gradcheck", "Taylor")[i]))
    assert not lowered, f"ops whose highest order no row checks: {lowered}"


def test_every_op_run_on_a_device_keeps_a_row_that_is_not_a_shape_variant():
    """A device skips the derivative checks of DEVICE_SKIPS' rows (skip_shape_variant_on_device):
    each op with a row for the device keeps one there (poch's and binom's rows at their full shapes
    are for the host alone: their shape variants run on the device)."""
    assert DEVICE_SKIPS and DEVICE_SKIPS <= SHAPE_VARIANTS
    unchecked = sorted(name for name, rows in OP_TABLE.items()
                       if any(getattr(r, "device", True) for r in rows)
                       and all(id(r) in DEVICE_SKIPS for r in rows if getattr(r, "device", True)))
    assert not unchecked, f"ops whose derivatives no row checks on a device: {unchecked}"


@pytest.mark.parametrize("name, row", CASES)
def test_forward_matches_numpy(name, row, rng, device_row):
    device_row(row)
    xs = row.sample(rng)
    y = row.fn(*[V.Variable(x) for x in xs])
    expected = row.ref(*xs)
    assert isinstance(y, V.Variable)
    assert y.shape == np.shape(expected)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.data, expected)


@pytest.mark.parametrize("name, row", CASES)
def test_derivatives_match_gradcheck(name, row, rng, device_row):
    device_row(row)
    entrywise = name not in ("sum_to", "broadcast_to")     # (the others act entry by entry)
    assert V.gradcheck(row.fn, *row.sample(rng), order=device_order(row.order), entrywise=entrywise)


@pytest.mark.parametrize("name, row", CASES)
def test_taylor_matches_nested_reverse(name, row, rng, device_row):
    device_row(row)
    # every op has a Taylor rule: V.taylor to order 6 and V.jvp against V.jacobian
    assert V.taylorcheck(row.fn, *row.sample(rng), order=device_order(TAYLOR, DEVICE_TAYLOR))


DIFFERENTIABLE_TAYLOR = [
    pytest.param(name, row, id=f"{name}-{row.label}") for name, rows in OP_TABLE.items() for row in rows
    if hasattr(row, "label") and row.order >= 1 and row.taylor >= 1
]
"""Rows whose Taylor derivatives have derivatives again (a gradient and a Taylor rule)."""


@pytest.mark.parametrize("name, row", DIFFERENTIABLE_TAYLOR)
def test_taylor_results_are_differentiable(name, row, rng, device_row, recording_check):
    # reverse over Taylor: V.taylor's derivatives carry a graph to the inputs
    device_row(row)
    skip_shape_variant_on_device(row)
    recording_check(row.fn, *row.sample(rng), order=device_order(min(2, row.taylor), 1))


@pytest.mark.parametrize("name, row", DIFFERENTIABLE_TAYLOR)
def test_many_directions_in_one_pass(name, row, rng, device_row, directions_check):
    # V.taylor(batched=True) and the collapsed pass against one pass per direction; the collapsed
    # pass recorded, and the Laplacian, at one shape of an entrywise op (not its shape variants)
    device_row(row)
    skip_shape_variant_on_device(row)
    directions_check(row.fn, *row.sample(rng), order=device_order(min(2, row.taylor), 1),
                     recorded=id(row) not in SHAPE_VARIANTS)


# ----- Python scalars and ndarray constants on either side --------------------------------
A = np.array([0.5, -1.25, 2.0])          # broadcasts against x of shape (2, 3)
A_POS = np.array([0.5, 1.5, 2.0])
B = np.array([[1.5, -0.75, 0.25], [2.0, -1.0, 0.5]])
MASK = np.array([[True, False, True], [False, True, True]])

CONSTANT_OPERANDS = [
    ("x + 2.0", lambda x: x + 2.0, lambda x: x + 2.0, normal, SMOOTH),
    ("2.0 + x", lambda x: 2.0 + x, lambda x: 2.0 + x, normal, SMOOTH),
    ("x + 2", lambda x: x + 2, lambda x: x + 2, normal, SMOOTH),
    ("x - 2.0", lambda x: x - 2.0, lambda x: x - 2.0, normal, SMOOTH),
    ("2.0 - x", lambda x: 2.0 - x, lambda x: 2.0 - x, normal, SMOOTH),
    ("x * 3.0", lambda x: x * 3.0, lambda x: x * 3.0, normal, SMOOTH),
    ("3.0 * x", lambda x: 3.0 * x, lambda x: 3.0 * x, normal, SMOOTH),
    ("x / 4.0", lambda x: x / 4.0, lambda x: x / 4.0, normal, SMOOTH),
    ("4.0 / x", lambda x: 4.0 / x, lambda x: 4.0 / x, nonzero, SMOOTH),
    ("x ** 2", lambda x: x ** 2, lambda x: x ** 2, normal, SMOOTH),
    ("x ** 2.5", lambda x: x ** 2.5, lambda x: x ** 2.5, positive, SMOOTH),
    ("x ** -1", lambda x: x ** -1, lambda x: 1.0 / x, nonzero, SMOOTH),
    ("2 ** x", lambda x: 2 ** x, lambda x: 2.0 ** x, normal, SMOOTH),
    ("2.5 ** x", lambda x: 2.5 ** x, lambda x: 2.5 ** x, normal, SMOOTH),
    ("A + x", lambda x: A + x, lambda x: A + x, normal, SMOOTH),
    ("x + A", lambda x: x + A, lambda x: x + A, normal, SMOOTH),
    ("A - x", lambda x: A - x, lambda x: A - x, normal, SMOOTH),
    ("x - B", lambda x: x - B, lambda x: x - B, normal, SMOOTH),
    ("A * x", lambda x: A * x, lambda x: A * x, normal, SMOOTH),
    ("x * B", lambda x: x * B, lambda x: x * B, normal, SMOOTH),
    ("A / x", lambda x: A / x, lambda x: A / x, nonzero, SMOOTH),
    ("x / A", lambda x: x / A, lambda x: x / A, normal, SMOOTH),
    ("A_POS ** x", lambda x: A_POS ** x, lambda x: A_POS ** x, normal, SMOOTH),
    ("x ** A", lambda x: x ** A, lambda x: x ** A, positive, SMOOTH),
    ("maximum(x, 0.0)", lambda x: V.maximum(x, 0.0), lambda x: np.maximum(x, 0.0), nonzero,
     PIECEWISE),
    ("minimum(A, x)", lambda x: V.minimum(A, x), lambda x: np.minimum(A, x),
     lambda s: away_from([A], s), PIECEWISE),
    ("where(M, x, 0.0)", lambda x: V.where(MASK, x, 0.0), lambda x: np.where(MASK, x, 0.0),
     normal, PIECEWISE),
    ("where(M, 1.0, x)", lambda x: V.where(MASK, 1.0, x), lambda x: np.where(MASK, 1.0, x),
     normal, PIECEWISE),
]


@pytest.mark.parametrize(
    "fn, ref, sampler, order",
    [pytest.param(*case[1:], id=case[0]) for case in CONSTANT_OPERANDS],
)
def test_constant_operands(fn, ref, sampler, order, rng, device_row):
    device_row(fn)
    x, = sampler((2, 3))(rng)
    y = fn(V.Variable(x))
    assert isinstance(y, V.Variable)
    np.testing.assert_allclose(y.data, ref(x))
    assert V.gradcheck(fn, x, order=order)
    assert V.taylorcheck(fn, x, order=TAYLOR)
