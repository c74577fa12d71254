"""Shared pieces of the op tables: the `Row` of a table, samplers of points inside an op's
domain, the shapes every op is tried on, and `table_tests`, which turns a family's dict of
rows into its four parametrized checks.

A family's test module (tests/variable/test_ops_<family>.py) writes

    ROWS = {"log1p": unary_rows(V.log1p, np.log1p, positive, SMOOTH), ...}
    test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)

and test_op_table.py merges every family's ROWS into OP_TABLE, whose meta-test fails when
an op of `variable.OPS` has no rows.
"""

import math
import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pytest

import variable as V

SMOOTH = 3      # derivative order checked for smooth ops
PIECEWISE = 2   # ... and for piecewise ones (their higher derivatives are 0 a.e.)
TAYLOR = 6      # order of Taylor mode checked against nested reverse mode (V.taylorcheck)
TAYLOR_ELSEWHERE = 3
"""The Taylor order of a row of an op built from gengrad's ops (zeta, ellipe, the R-functions)
whose other rows check its rule to TAYLOR: another range (where other ops compose it) or shape.
The rule is the composition of its ops' rules, each checked to TAYLOR in its own table, so such
a row checks the composition in its range; nested reverse mode, the reference, costs 5-10 s a
row at order 6 there and a tenth of that at order 3.  The ops page reads them as TAYLOR."""
ORDER_ELSEWHERE = 2
"""The gradcheck order of such a row (TAYLOR_ELSEWHERE) of a smooth op, for the same reason: the
op's TAYLOR row is gradchecked to SMOOTH (third order), and each op it is built from to third
order in its own table; a row of elliprj took 3-7 s at third order.  The ops page reads the
highest order of an op's rows."""
ON_DEVICE = os.environ.get("GENGRAD_DEVICE", "cpu") != "cpu"
DEVICE_ORDER, DEVICE_TAYLOR = 2, 3
"""On a device (GENGRAD_DEVICE) a row's derivatives are checked to second order at most and its
Taylor series to third: a higher order records the same ops again on the same device, and the
host's run checks every row to its full order."""


def device_order(order, on_device=DEVICE_ORDER):
    """The order a check runs to: `order` on the host, at most `on_device` on a device."""
    return min(order, on_device) if ON_DEVICE else order


@dataclass(frozen=True)
class Row:
    """One table entry: `fn` on Variables must equal `ref` on ndarrays at `sample(rng)`.

    `taylor` is the highest Taylor order checked (TAYLOR for ops with a rule to any order,
    1 for ops with a first-order jvp rule only, TAYLOR_ELSEWHERE for a row whose op another
    row checks to TAYLOR); `float32` says whether a float32 pass
    runs (data and first- and second-order gradients stay float32, values within `ftol`).
    `device=False` runs the row's checks on the host alone (under GENGRAD_DEVICE they skip): for
    an op whose forward is an iterative solve, which every central difference and every check
    re-runs in full, taking all of its steps on every entry on a device; its family's device test
    then holds the op's device values and gradients to the host's, bit for bit.
    """

    label: str
    fn: Callable
    ref: Callable
    sample: Callable   # rng -> tuple of float64 ndarrays, the point to check at
    order: int
    taylor: int = TAYLOR
    float32: bool = True
    ftol: float = 1e-5
    device: bool = True


def quiet(f):
    """`f` without NumPy's RuntimeWarnings (all-NaN slices, empty means, ddof >= count): a
    reference at the degenerate points where gengrad gives the value without a warning."""
    def call(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return f(*args, **kwargs)
    return call


# ----- samplers: points inside each op's domain, away from its kinks ----------------
def normal(*shapes):
    """Points in [-1.5, 1.5]: both signs, bounded so exp/sinh/cosh stay tame."""
    return lambda rng: tuple(rng.uniform(-1.5, 1.5, s) for s in shapes)


def positive(*shapes):
    """Points in [0.5, 2]: inside the domain of log, sqrt and non-integer powers."""
    return lambda rng: tuple(rng.uniform(0.5, 2.0, s) for s in shapes)


def near_zero(*shapes):
    """Points in [-1.2, 1.2]: tan stays well away from its poles at +-pi/2."""
    return lambda rng: tuple(rng.uniform(-1.2, 1.2, s) for s in shapes)


def nonzero(*shapes):
    """Points with 0.3 <= |x| <= 2: away from the kink of abs and the pole of 1/x."""
    return lambda rng: tuple(
        rng.choice([-1.0, 1.0], s) * rng.uniform(0.3, 2.0, s) for s in shapes
    )


def with_zeros(*shapes):
    """Points in [-1.5, 1.5] with every other entry exactly 0 (a 0-d point is 0)."""

    def sample(rng):
        out = []
        for s in shapes:
            x = rng.uniform(-1.5, 1.5, s)
            x.reshape(-1)[::2] = 0.0
            out.append(x)
        return tuple(out)

    return sample


def positive_then_normal(s0, s1):
    """A positive base and any exponent, for x0 ** x1 with a Variable exponent."""
    return lambda rng: (rng.uniform(0.5, 2.0, s0), rng.uniform(-1.5, 1.5, s1))


def normal_then_nonzero(s0, s1):
    """Any numerator, a denominator away from zero."""
    return lambda rng: normal(s0)(rng) + nonzero(s1)(rng)


def untied(s0, s1, gap=0.2):
    """Two operands whose broadcast entries all differ by more than `gap`."""

    def sample(rng):
        while True:
            x0, x1 = rng.uniform(-1.5, 1.5, s0), rng.uniform(-1.5, 1.5, s1)
            if np.all(np.abs(x0 - x1) > gap):
                return x0, x1

    return sample


def away_from(points, *shapes, gap=0.1):
    """Points in [-1.5, 1.5] at least `gap` away from each of `points`."""

    def sample(rng):
        out = []
        for s in shapes:
            while True:
                x = rng.uniform(-1.5, 1.5, s)
                if all(np.all(np.abs(x - p) > gap) for p in points):
                    out.append(x)
                    break
        return tuple(out)

    return sample


# ----- shapes -------------------------------------------------------------------
UNARY_SHAPES = [(), (3,), (2, 3)]
BINARY_SHAPES = [((), ()), ((3,), (3,)), ((2, 3), (2, 3))] + [
    pair
    for s0, s1 in [((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3))]
    for pair in [(s0, s1), (s1, s0)]
]


def unary_rows(fn, ref, sampler, order):
    """Rows of a unary op on every shape in UNARY_SHAPES."""
    return [Row(str(s), fn, ref, sampler(s), order) for s in UNARY_SHAPES]


def elsewhere(rows):
    """`rows` with their Taylor rules checked to TAYLOR_ELSEWHERE (another row of the op to TAYLOR)."""
    return [replace(row, taylor=TAYLOR_ELSEWHERE) for row in rows]


def binary_rows(fn, ref, sampler, order):
    """Rows of a binary op on equal shapes and on broadcast pairs in both orders."""
    return [Row(f"{s0}x{s1}", fn, ref, sampler(s0, s1), order) for s0, s1 in BINARY_SHAPES]



def _as_tuple(y):
    return y if isinstance(y, tuple) else (y,)


def check_forward(row, rng):
    """`row.fn` on Variables equals `row.ref` on the arrays, in shape, dtype and value."""
    xs = row.sample(rng)
    ys = _as_tuple(row.fn(*[V.Variable(x) for x in xs]))
    expected = _as_tuple(row.ref(*xs))
    assert len(ys) == len(expected)
    for y, e in zip(ys, expected):
        assert isinstance(y, V.Variable)
        assert y.shape == np.shape(e)
        assert y.dtype == np.float64
        np.testing.assert_allclose(y.data, e, rtol=1e-10, atol=1e-12)


def check_float32(row, rng):
    """float32 in, float32 out: the data, and gradients of first and second order."""
    inputs = [x.astype(np.float32) for x in row.sample(rng)]
    xs = [V.Variable(x) for x in inputs]
    ys = _as_tuple(row.fn(*xs))
    expected = _as_tuple(row.ref(*[x.astype(np.float64) for x in inputs]))
    for y, e in zip(ys, expected):
        assert y.dtype == np.float32
        np.testing.assert_allclose(y.data, e, rtol=row.ftol, atol=row.ftol)
    differentiable = [y for y in ys if y.requires_grad]
    if not differentiable:
        return
    seeds = [V.Variable(np.full(y.shape, 0.5, dtype=np.float32)) for y in differentiable]
    grads = V.grad(differentiable, xs, grad_outputs=seeds, create_graph=True, allow_unused=True)
    for x, g in zip(xs, grads):
        if g is not None:
            assert g.shape == x.shape
            assert g.dtype == np.float32
    used = [g for g in grads if g is not None and g.requires_grad]
    if used:
        for v, g in zip(xs + seeds, V.grad(used, xs + seeds, allow_unused=True)):
            if g is not None:
                assert g.shape == v.shape
                assert g.dtype == np.float32


_SHAPE = re.compile(r"\((?:\d+(?:, \d+)*,?)?\)")
"""A shape in a row's label: (), (3,), (2, 3)."""


def _entries(label):
    """The number of entries of the shapes a label names."""
    return sum(math.prod(int(n) for n in re.findall(r"\d+", s)) for s in _SHAPE.findall(label))


def shape_variants(rows):
    """The rows of an entrywise family (ops that act entry by entry) that another row of the
    same op checks to their full orders at other shapes: the same label but for its shapes, in
    one run of distinct shapes (one range of points; a repeated shape begins the next run).
    Of each run, the row with the highest Taylor order and then the most entries keeps the
    row's orders; the others are checked to ORDER_ELSEWHERE and TAYLOR_ELSEWHERE.  An entrywise
    op meets a row's shape only through broadcasting, which its first orders go through as
    its sixth does, and nested reverse mode at order 6, the reference, took 0.1-1 s a row.
    Returns the ids of those rows."""
    variants = set()
    for rs in rows.values():
        runs, current = [], {}
        for row in rs:
            shapes = tuple(_SHAPE.findall(row.label))
            if not shapes:
                continue                            # (a row of its own)
            key = _SHAPE.sub("", row.label)
            run = current.get(key)              # {its rows' shapes: row}
            if run is None or shapes in run:
                run = current[key] = {}
                runs.append(run)
            run[shapes] = row
        for run in runs:
            full = max(run.values(), key=lambda r: (r.taylor, r.order, _entries(r.label)))
            variants.update(id(r) for r in run.values() if r is not full)
    return variants


SHAPE_VARIANTS = set()
"""The ids of the rows `shape_variants` chose in every entrywise family's `table_tests` (filled as
the families' modules are imported): test_op_table's checks of every row read it too."""
DEVICE_SKIPS = set()
"""The ids of those a device skips (`skip_shape_variant_on_device`): the shape variants of an op
that has a row for the device (`Row.device`) which is not one."""


def _skipped_on_device(rows, variants):
    return {id(r) for rs in rows.values() if any(r.device and id(r) not in variants for r in rs)
            for r in rs if id(r) in variants}


def skip_shape_variant_on_device(row):
    """Under GENGRAD_DEVICE, skip a derivative check (gradcheck, Taylor mode, reverse over Taylor,
    many directions) of a row of DEVICE_SKIPS: on a device every check runs to the orders a
    shape variant is checked to on the host (DEVICE_ORDER, DEVICE_TAYLOR), so the row of its op
    at the larger shape runs the same device code, the broadcasting included; the host checks
    this shape.  Its forward and float32 checks still run on the device."""
    if ON_DEVICE and id(row) in DEVICE_SKIPS:
        pytest.skip("a shape variant of an entrywise op: on the device its op's row at the larger "
                    "shape checks the same code; the host checks this shape")


def checked_orders(row, variants=()):
    """(gradcheck order, Taylor order) a family's table checks `row` to on the host: lower for a
    row at TAYLOR_ELSEWHERE and for one of `variants` (shape_variants)."""
    if row.taylor == TAYLOR_ELSEWHERE or id(row) in variants:
        return min(row.order, ORDER_ELSEWHERE), min(row.taylor, TAYLOR_ELSEWHERE)
    return row.order, row.taylor


def table_tests(rows, entrywise=False):
    """The four checks of a family's dict {op name: [Row, ...]}, as pytest test functions.
    `entrywise`: every op of the family acts entry by entry, as NumPy's ufuncs do (gradcheck's
    `entrywise`: the central differences move all entries of an input at once; and a row that
    another row of its op checks at another shape, `shape_variants`, to lower orders)."""
    cases = [pytest.param(name, row, id=f"{name}-{row.label}") for name, rs in rows.items() for row in rs]
    parametrize = pytest.mark.parametrize("name, row", cases)
    variants = shape_variants(rows) if entrywise else set()
    SHAPE_VARIANTS.update(variants)
    DEVICE_SKIPS.update(_skipped_on_device(rows, variants))

    @parametrize
    def test_forward(name, row, rng, device_row):
        device_row(row)
        check_forward(row, rng)

    @parametrize
    def test_derivatives(name, row, rng, device_row):
        device_row(row)
        skip_shape_variant_on_device(row)
        order, _ = checked_orders(row, variants)
        assert V.gradcheck(row.fn, *row.sample(rng), order=device_order(order), entrywise=entrywise)

    @parametrize
    def test_taylor(name, row, rng, device_row):
        device_row(row)
        skip_shape_variant_on_device(row)
        _, taylor = checked_orders(row, variants)
        assert V.taylorcheck(row.fn, *row.sample(rng), order=device_order(taylor, DEVICE_TAYLOR))

    @parametrize
    def test_float32(name, row, rng, device_row):
        device_row(row)
        if not row.float32:
            pytest.skip("no float32 pass for this row")
        check_float32(row, rng)

    return test_forward, test_derivatives, test_taylor, test_float32


def device_equals_host(op, args, count_syncs, constants=()):
    """op(*constants, *args) with the args on the device equals it on the host, bit for bit: the
    value, and the gradients in args of the sum of its finite entries; returns the host syncs the
    device run took (the `count_syncs` fixture's record: its .count and .where)."""
    host = [V.Variable(a) for a in args]
    with np.errstate(all="ignore"):
        host_value = op(*constants, *host)
        finite = np.isfinite(host_value.data)
        host_gradients = V.grad(V.sum(V.where(finite, host_value, 0.0)), host)
    moved = [V.Variable(a).to_gpu() for a in args]
    device_constants = [V.backend.to_gpu(c) for c in constants]
    with count_syncs() as syncs, np.errstate(all="ignore"):
        value = op(*device_constants, *moved)
        keep = V.backend.get_array_module(value.data).isfinite(value.data)
        gradients = V.grad(V.sum(V.where(keep, value, 0.0)), moved)
    np.testing.assert_array_equal(V.backend.to_cpu(value.data), host_value.data)
    for g, h in zip(gradients, host_gradients):
        np.testing.assert_array_equal(V.backend.to_cpu(g.data), h.data)
    return syncs
