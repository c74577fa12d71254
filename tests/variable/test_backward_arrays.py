"""First-order passes run an op's `_backward_arrays` (its backward on arrays) where it has
one; every other pass runs `backward`.  Both must give the same gradients.

Every row of the op tables (variable's OP_TABLE and function's TABLE) whose graph holds an
op with an array rule is differentiated twice with one random incoming gradient: by a
first-order `V.grad` (the array rules) and by `V.grad(create_graph=True)` (the Variable
rules); shapes, dtypes and values must agree, in float64 and float32, and with each input
in turn the only one that requires grad (on a device, GENGRAD_DEVICE: float64, every input).
Both passes run with every built-in op strict, as under GENGRAD_STRICT_SAVES=1: its backward
sees stand-ins for the arrays its save_for_backward does not name, so a rule reading one
fails (`strict_saves`).  A meta-test fails when a rule's op has no row.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "function"))  # the function table's module
from op_rows import ON_DEVICE  # noqa: E402
from test_function_table import TABLE as FUNCTION_TABLE  # noqa: E402
from test_op_table import OP_TABLE  # noqa: E402

import variable as V  # noqa: E402
from variable import backend  # noqa: E402
from variable.forwarder import ARRAYS, CUSTOM, STRICT, Forwarder  # noqa: E402
from variable.ops.elementwise import Square  # noqa: E402
from variable.ops.trigonometric import Sin  # noqa: E402
from variable.saving import NotKept  # noqa: E402


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


RULED = sorted({c for c in _subclasses(Forwarder) if c._plan[ARRAYS] is not None},
               key=lambda c: (c.__module__, c.__name__))
"""Every Forwarder class whose first-order passes run an array rule."""

class _Entry:
    """A row of either table kind: `Row` (label, fn, sample) or the tensor table's `Case`
    (id, f, shapes: standard normal points)."""

    def __init__(self, row):
        self.label = getattr(row, "label", None) or row.id
        self.fn = getattr(row, "fn", None) or row.f
        self.order = row.order
        shapes = getattr(row, "shapes", None)
        self.sample = row.sample if shapes is None else (
            lambda rng: tuple(rng.standard_normal(s) for s in shapes))


ENTRIES = [(f"{name}-{_Entry(row).label}", _Entry(row))
           for table in (OP_TABLE, FUNCTION_TABLE) for name, rows in table.items() for row in rows
           if row.order > 0]


def _inputs(values, dtype, only=None):
    """The row's point as Variables: floating inputs in `dtype`, requiring grad (all, or the
    one at position `only`); integer ones (labels, indices) as constants."""
    xs = []
    for i, a in enumerate(values):
        a = np.asarray(a)
        floating = a.dtype.kind == "f"
        wants = floating and (only is None or i == only)
        xs.append(V.Variable(a.astype(dtype) if floating else a, requires_grad=wants))
    return xs


def _outputs(y):
    return [v for v in (y if isinstance(y, tuple) else (y,)) if v.requires_grad]


def _ruled_classes(ys):
    return {type(f.forwarder) for f in V.graph_functions(ys) if f.plan[ARRAYS] is not None}


def _met(entry):
    """The ops with an array rule in the graph of `entry` at its point (float64)."""
    xs = _inputs(entry.sample(np.random.default_rng(0)), np.float64)
    return _ruled_classes(_outputs(entry.fn(*xs)))


MET = {name: _met(entry) for name, entry in ENTRIES}
ROWS = [pytest.param(entry, id=name) for name, entry in ENTRIES if MET[name]]
"""The rows whose graph holds an op with an array rule (elsewhere both passes run the same code)."""


def _both_ways(row, values, dtype, only, rng):
    """(gradients of a first-order pass, gradients of a recorded pass), or None when nothing
    requires grad."""
    passes, seeds = [], None
    for create_graph in (False, True):
        xs = _inputs(values, dtype, only)
        wrt = [x for x in xs if x.requires_grad]
        ys = _outputs(row.fn(*xs))
        if not ys or not wrt:
            return None
        if seeds is None:  # one incoming gradient for both passes
            seeds = [rng.standard_normal(y.shape).astype(y.dtype) for y in ys]
        gs = V.grad(ys, wrt, grad_outputs=[V.Variable(u, requires_grad=False) for u in seeds],
                    create_graph=create_graph, allow_unused=True)
        passes.append([None if g is None else (g.dtype, backend.to_cpu(g.data)) for g in gs])
    return passes


def _agree(first, recorded, rtol, atol):
    assert len(first) == len(recorded)
    for i, (a, b) in enumerate(zip(first, recorded)):
        assert (a is None) == (b is None), f"input {i}: a gradient one way only"
        if a is None:
            continue
        assert a[0] == b[0], f"input {i}: dtype {a[0]} (array rules) vs {b[0]} (backward)"
        assert a[1].shape == b[1].shape, f"input {i}: shape {a[1].shape} vs {b[1].shape}"
        np.testing.assert_allclose(a[1], b[1], rtol=rtol, atol=atol, err_msg=f"input {i}")


def _with_strict(plan, strict):
    return plan[:STRICT] + (strict,) + plan[STRICT + 1:]


@pytest.fixture
def strict_saves(monkeypatch):
    """Every built-in op strict for the test, as under GENGRAD_STRICT_SAVES=1: a backward sees
    stand-ins for the arrays its save_for_backward does not name, leaves and live outputs too, and
    reading one raises NotKept (where the default keeps arrays of up to 128 entries and would
    hide the read).  The variable is read when an op class is made, so the classes made so far
    are switched here and put back after; the variable, set for the test, covers those made
    during it (then made lenient again, as they would have been)."""
    monkeypatch.setenv("GENGRAD_STRICT_SAVES", "1")
    before = {cls: cls._plan for cls in _subclasses(Forwarder)}
    for cls, plan in before.items():
        if not plan[CUSTOM] and cls.save_for_backward is not None:
            cls._plan = _with_strict(plan, True)
    yield
    for cls in _subclasses(Forwarder):
        if cls in before:
            cls._plan = before[cls]
        elif not cls._plan[CUSTOM]:
            cls._plan = _with_strict(cls._plan, False)


@pytest.mark.parametrize("row", ROWS)
def test_array_rules_agree_with_backward(row, rng, device_row, strict_saves):
    device_row(row)
    values = row.sample(rng)
    floating = [i for i, a in enumerate(values) if np.asarray(a).dtype.kind == "f"]
    onlys = [None] + (floating if len(floating) > 1 else [])
    dtypes = ((np.float64, 1e-11, 1e-13), (np.float32, 2e-5, 1e-6))
    if ON_DEVICE:   # the rules meet device arrays once; which dtype and which inputs need a gradient
        onlys, dtypes = [None], dtypes[:1]      # runs the same code there (the host's run checks it)
    checked = 0
    for dtype, rtol, atol in dtypes:
        for only in onlys:
            passes = _both_ways(row, values, dtype, only, np.random.default_rng(1))
            if passes is not None:
                _agree(*passes, rtol=rtol, atol=atol)
                checked += 1
    assert checked


def test_every_array_rule_meets_a_row():
    """Each op with an array rule lies in the graph of some table row (so the test above
    checks it), and the ops of the hot paths have one."""
    met = set().union(*MET.values())
    # (a base class, PiecewiseLinear, is met by its subclasses)
    unmet = [c.__qualname__ for c in RULED if not any(issubclass(m, c) for m in met)]
    assert not unmet, f"ops with an array rule that no table row reaches: {unmet}"
    names = {c.__name__ for c in RULED}
    assert {"Add", "Mul", "Sin", "MatMul2D", "Linear", "Sigmoid", "Sum"} <= names


class _Patched(Forwarder):
    """A Forwarder written outside gengrad never gets an array rule, even one it defines."""

    def forward(self, x):
        return 2 * x

    def backward(self, gy):
        return 2 * gy

    def _backward_arrays(self, gy):  # ignored: gengrad runs `backward`, the one definition
        return 3 * gy


def test_custom_ops_and_subclasses_run_their_own_backward():
    x = V.Variable(np.array([1.0, 2.0]))
    y = V.Function(_Patched())(x)
    y.backward(gradient=np.ones(2))
    np.testing.assert_array_equal(x.grad.data, [2.0, 2.0])

    class Sine(Sin):  # a subclass that rewrites backward: its own runs
        def backward(self, gy):
            return gy * 10

    x = V.Variable(np.array([0.5]))
    V.Function(Sine())(x).backward(gradient=np.ones(1))
    np.testing.assert_array_equal(x.grad.data, [10.0])


def test_a_replaced_backward_runs_in_first_order_passes_too(monkeypatch):
    """Replacing a built-in op's backward (to see what a wrong one does) turns its array
    rule off: every pass runs the replacement."""
    monkeypatch.setattr(Sin, "backward", lambda self, gy: gy * 10)
    x = V.Variable(np.array([0.5, 1.0]))
    g, = V.grad([V.sin(x)], [x], grad_outputs=[np.ones(2)])
    np.testing.assert_array_equal(g.data, [10.0, 10.0])


def test_a_replaced_backward_is_watched_while_create_graph_records_it(monkeypatch):
    """gengrad's own backwards run unwatched in recorded passes (they never read `.data`);
    a replacement, on the class or on one op, is watched as a custom op's is: arithmetic on
    `.data` there is refused at its line."""
    def on_data(self, gy):
        x, = self.inputs
        return gy * np.cos(x.data)  # right once, a constant to every higher order

    x = V.Variable(np.array([0.5, 1.0]))
    if type(x.data) is not np.ndarray:
        pytest.skip("the .data watch covers host arrays (variable.py's Variable.data)")
    V.grad(V.sum(V.sin(x)), x, create_graph=True)  # gengrad's own: fine
    monkeypatch.setattr(Sin, "backward", on_data)
    with pytest.raises(TypeError, match=r"Sin\.backward computes np\.cos on an input's"):
        V.grad(V.sum(V.sin(x)), x, create_graph=True)
    monkeypatch.undo()
    y = V.sin(x)
    y.creator.forwarder.backward = on_data.__get__(y.creator.forwarder)
    with pytest.raises(TypeError, match=r"Sin\.backward computes np\.cos on an input's"):
        V.grad(V.sum(y), x, create_graph=True)


def test_a_backward_replaced_on_one_forwarder_runs_there():
    """Replacing one recorded op's backward (to print what reaches it) runs it in a first-order
    pass too; the op's other calls keep their rule."""
    x = V.Variable(np.array([0.5, 1.0]))
    y, z = V.sin(x), V.sin(x)
    seen = []

    def noted(gy, forwarder=y.creator.forwarder, original=y.creator.forwarder.backward):
        seen.append(gy.data.copy())
        return original(gy)

    y.creator.forwarder.backward = noted
    (V.sum(y) + V.sum(z)).backward()
    assert len(seen) == 1
    np.testing.assert_allclose(x.grad.data, 2 * np.cos([0.5, 1.0]))


def test_a_scalar_chain_hands_out_arrays():
    """0-d arithmetic makes NumPy scalars inside a first-order pass; every gradient that
    leaves it (.grad, V.grad, an op without a rule) is a 0-d ndarray again."""
    x = V.Variable(np.array(0.5))
    y = V.arcsinh(V.sin(x) * 3.0 + x) * x      # arcsinh: an op without an array rule
    y.backward()
    assert type(x.grad.data) is type(x.data) and x.grad.shape == ()  # (the device's array there)
    g, = V.grad([V.exp(x) * 2.0], [x])
    assert type(g.data) is type(x.data) and g.shape == ()
    assert float(backend.to_cpu(g.data)) == pytest.approx(2 * np.exp(0.5), rel=1e-15)
    if type(g.data) is np.ndarray:
        assert g.data.flags.writeable


class _ReadsItsInput(Square):
    """x ** 2 as a built-in op (by its module's name, read when the class is made) whose
    backward reads its input without declaring it: the slip `strict_saves` is there to catch."""

    __module__ = "variable.ops.testing"
    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return 2.0 * x * gy


def test_strict_saves_catch_a_rule_reading_an_array_its_op_did_not_keep(strict_saves):
    assert not _ReadsItsInput._plan[CUSTOM] and _ReadsItsInput._plan[STRICT]
    x = V.Variable(np.array([0.5, 1.5]))
    y = V.Function(_ReadsItsInput())(x)
    with pytest.raises(NotKept, match="_ReadsItsInput"):
        V.grad(V.sum(y), x)


def test_without_strict_saves_a_small_array_is_kept_and_the_read_works():
    """(the default: the control of the test above, and the strict plans put back)"""
    assert not _ReadsItsInput._plan[STRICT]
    assert not any(c._plan[STRICT] for c in _subclasses(Forwarder) if not c._plan[CUSTOM])
    x = V.Variable(np.array([0.5, 1.5]))
    g = V.grad(V.sum(V.Function(_ReadsItsInput())(x)), x)
    np.testing.assert_allclose(g.data, [1.0, 3.0])
