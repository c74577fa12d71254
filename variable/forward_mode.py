"""Forward mode (`jvp`) and Taylor mode (`taylor`): series pushed through a recorded graph.

`f` runs once, define-by-run, recording its graph as usual.  Its Functions are then visited
in increasing generation order (the mirror of the backward queue: every Function comes
after the creators of its inputs), and each Forwarder's `taylor` rule turns its inputs'
truncated Taylor series into its outputs' (see variable/series.py for the representation).
Seeding an input x with the path x + t v makes coefficient k of an output its k-th
derivative along v divided by k!; order 1 is forward-mode AD.
"""

import contextvars
import math
from collections.abc import Callable

import numpy as np

from . import backend, saving
from .backward import _by_generation
from .config import enable_grad, is_backprop_enabled
from .directions import Directions, Unbatched, at, scaled, stacked
from .forwarder import Forwarder, Variable, new_variable, record_by_hand
from .graph import _functions_behind
from .series import _WANTED, _is_zero, _total, known_zero, owned_alone
from .types import ArrayLike
from .variable import _FORWARD_MODE

_inside_f = contextvars.ContextVar("gengrad_inside_forward_mode", default=None)
_noting = contextvars.ContextVar("gengrad_noting_forward_passes", default=None)
"""A list `run_kept` watches: every forward pass started while it is set adds its name."""


def run_kept(f, xs):
    """f(*xs) with every array its graph makes kept, so a forward pass can follow it along
    that graph (`_evaluate`'s `ran`) instead of running f again; and whether f ran a forward
    pass of its own (V.jvp inside f): a pass over its graph would then meet those arrays
    as constants, so the caller runs f again under `_evaluate`, which refuses that."""
    noted = []
    token = _noting.set(noted)
    saving.keeping_all[0] += 1
    try:
        y = f(*xs)
    finally:
        saving.keeping_all[0] -= 1
        _noting.reset(token)
    return y, bool(noted)


def _no_rule(f, op):
    name = f.name
    if f.forwarder._short_constants:  # a built-in op
        how = "gengrad has no rule for it; use V.grad (reverse mode) for this function"
    else:
        how = (
            f"define {name}.taylor(self, *xs): it gets each input's coefficients [x_0, ..., x_K] "
            f"and returns the output's [y_0, ..., y_K] (docs/custom_functions.md), or use V.grad "
            f"(reverse mode) for this function"
        )
    return NotImplementedError(
        f"{op}: the op {name} lies between the inputs and the outputs, and its Forwarder has no "
        f"Taylor rule, so forward mode cannot push derivatives through it; {how}"
    )


def _zeros(x):
    """A coefficient of zeros for the Variable x, read-only, that the series recurrences know
    to skip."""
    return _zeros_of(x._data)


def _zeros_of(base):
    """A read-only coefficient of zeros of an array's shape, that the recurrences skip."""
    z = backend.get_array_module(base).zeros(base.shape, dtype=base.dtype)
    if type(z) is np.ndarray:
        z.flags.writeable = False
    return known_zero(z)


def _rule_result(f, result, outputs, order, record=False, mask=None):
    """The series a rule returned, one list per output, after checking count and shapes
    (None where `mask`, the orders the pass uses, leaves a coefficient out)."""
    name = f.name
    several = f.output_specs is not None  # its forward returned a tuple (even of one array)
    lists = result if several else [result]
    if several and (not isinstance(result, tuple) or len(result) != len(outputs)):
        raise TypeError(
            f"{name}.taylor must return a tuple of {len(outputs)} lists (one per output), got "
            f"{type(result).__name__}"
        )
    for y, coefficients in zip(outputs, lists):
        if coefficients is None:
            raise TypeError(
                f"{name}.taylor returned None: did it forget `return`? It must return the "
                f"output's coefficients [y_0, ..., y_{order}], a list of arrays"
            )
        if not isinstance(coefficients, list) or len(coefficients) != order + 1:
            got = type(coefficients).__name__
            if isinstance(coefficients, list):
                got = f"a list of {len(coefficients)}"
            raise TypeError(
                f"{name}.taylor must return a list of {order + 1} arrays [y_0, ..., y_{order}] "
                f"for each output, got {got}"
            )
        if y is None:
            continue
        for k, c in enumerate(coefficients[1:], 1):
            if c is None:
                if mask is not None and not mask >> k & 1:   # (not used by the pass: not made)
                    continue
                raise TypeError(
                    f"{name}.taylor gave None for coefficient {k} of its output, which this pass "
                    f"uses (V.series.wanted({k}) is True): return an array of the output's shape, "
                    f"{y._data.shape}"
                )
            if type(c) is not np.ndarray and isinstance(c, np.generic):  # NumPy's 0-d results
                c = coefficients[k] = c.__array__()
            if isinstance(c, Variable) and not record:
                raise TypeError(
                    f"{name}.taylor returned Variables; like forward, it works on NumPy arrays "
                    f"(its inputs are lists of arrays): compute the coefficients with NumPy and "
                    f"V.series, not with gengrad ops"
                )
            if isinstance(c, Directions) and k >= 2 and c.weights is not None:
                raise Unbatched(f"{name}.taylor: coefficient {k} kept its directions in a collapsed pass")
            array = isinstance(c, (np.ndarray, Variable, Directions)) or backend.is_device_array(c)
            if not array or c.shape != y._data.shape:
                what = f"shape {c.shape}" if array else type(c).__name__
                raise ValueError(
                    f"{name}.taylor: coefficient {k} of its output has {what}, but the output "
                    f"has shape {y._data.shape}; every coefficient has the shape of the output"
                )
    return lists


class _Recorded:
    """An output as a rule sees it in a recording pass: its `_data` is the output Variable
    itself, so a rule that reads y_0 as `y._data` records how y_0 depends on the inputs."""

    __slots__ = ("_data",)

    def __init__(self, y):
        self._data = y

    def __getattr__(self, name):
        return getattr(self._data, name)


def _uses(todo, outputs, varying, order, wanted):
    """For each Function of `todo`, the orders of its outputs' coefficients the pass uses (a
    bit mask: bit k for order k), when the outputs' are `wanted`: a linear op uses of its
    inputs the orders used of its output, any other op all orders up to the highest used."""
    every = (1 << (order + 1)) - 2                   # orders 1 .. order
    if wanted is None or wanted == every:
        return None
    used = {y: wanted for y in outputs}
    masks = [every] * len(todo)
    for i in range(len(todo) - 1, -1, -1):
        f = todo[i]
        mask = 0
        for ref in f.outputs:
            y = ref()
            if y is not None:
                mask |= used.get(y, 0)
        mask = masks[i] = mask or every
        kind = f.forwarder._taylor_linear
        linear = kind == "linear" or (kind == "bilinear" and sum(x in varying for x in f.inputs) == 1)
        into = mask if linear else (1 << mask.bit_length()) - 2
        for x in f.inputs:
            if x in varying:
                used[x] = used.get(x, 0) | into
    return masks


def _push(outputs: list[Variable], seeds: dict, order: int, op: str = "taylor", record: bool = False,
          wanted: int | None = None):
    """Push the series `seeds` ({Variable: [x_0, ..., x_order]}) through the graph of `outputs`.

    With `record`, the rules run on Variables (coefficient 0 of a series is the Variable
    itself), so the coefficients have a graph; a rule that cannot (taylor_records False)
    turns that off, and the pass runs on arrays.  `wanted`: the orders of the outputs'
    coefficients the caller reads (a bit mask, including `order`; None: all), so the rules
    need make no other (variable/series.py, `wanted`).  Returns ({Variable: series} for
    every Variable that depends on a seed, None when it recorded or else the first op that
    could not).
    """
    functions = _functions_behind(outputs, seeds)  # a seed is an input: what made it is not
    functions.sort(key=_by_generation)
    varying = set(seeds)
    todo = []
    for f in functions:  # first find every op on a path from a seed: a missing rule fails here
        for x in f.inputs:
            if x in varying:
                if type(f.forwarder).taylor is Forwarder.taylor:
                    raise _no_rule(f, op)
                todo.append(f)
                varying.update(y for y in (ref() for ref in f.outputs) if y is not None)
                break
    unrecorded = next((f for f in todo if not f.forwarder.taylor_records), None)
    if unrecorded is not None or not record:  # (on arrays: a direction's data, its graph
        record = False                        # refused through _NoGraph by the caller)
        series = {x: [c._data if isinstance(c, Variable) else c for c in s] for x, s in seeds.items()}
    else:
        series = {x: [x, *s[1:]] for x, s in seeds.items()}
    masks = _uses(todo, outputs, varying, order, wanted)
    last = {}                                        # a series is dropped after its last use,
    for i, f in enumerate(todo):                     # so its arrays can be reused (a big pass
        for x in f.inputs:                           # holds only what it still needs)
            last[x] = i
    kept = set(outputs)
    for i, f in enumerate(todo):
        forwarder = f.forwarder
        short = forwarder._short_constants
        xs = []
        for x in f.inputs:
            s = series.get(x)
            if s is None:  # constant along t: [x_0] for built-in rules, zeros padded for others
                x0 = x if record else x._data
                s = [x0] if short else [x0] + [_zeros(x)] * order
            xs.append(s)
        outputs_f = tuple(ref() for ref in f.outputs)
        forwarder.outputs = tuple(_Recorded(y) for y in outputs_f) if record else outputs_f
        mask = None if masks is None else masks[i]
        token = _WANTED.set(mask)
        try:
            try:
                if forwarder._pointwise and _pointwise_pass(xs[0], order):
                    result = _pointwise_directions(f, xs[0], outputs_f, record, mask)
                else:
                    result = _rule_result(f, forwarder.taylor(*xs), outputs_f, order, record, mask)
            except Exception:                        # a rule Directions cannot carry out: run
                if not _has_directions(xs):          # once per direction (a genuine error in
                    raise                            # the rule comes back from those runs)
                result = _each_direction(f, xs, outputs_f, order, record, mask)
        finally:
            _WANTED.reset(token)
            forwarder.outputs = ()
        for y, coefficients in zip(outputs_f, result):
            if y is not None:
                series[y] = [y if record else y._data, *coefficients[1:]]
        del xs, result
        for x in f.inputs:
            if last[x] == i and x not in kept:
                series.pop(x, None)
    return series, None if record else unrecorded


def _pointwise_pass(x, order):
    """Whether a pointwise op's input series x is of a pass `_pointwise_directions` takes:
    several directions at order 1, or collapsed (weighted) at order 2."""
    c = x[1] if len(x) > 1 else None
    return isinstance(c, Directions) and (order == 1 or (order == 2 and c.weights is not None))


def _pointwise_directions(f, x, outputs, record, mask):
    """A pointwise op's series along several directions at order 1, or collapsed at order 2:
    its rule runs once, along one direction of ones (x_0 + t: coefficients y_0, f', f''/2,
    arrays of x_0's shape), then y_1 = f' x_1 and y_2 = f' x_2 + f''/2 sum_d w_d x_1d^2, the
    directions' products summed as they form.  So an activation's rule, however many
    operations it takes, runs on one direction's arrays, and the directions' arrays see one
    or two (y_1 left unmade: `scaled`)."""
    order = len(x) - 1
    x0, x1 = x[0], x[1]
    base = x0._data if isinstance(x0, Variable) else x0
    xp = backend.get_array_module(base)
    along = [x0, xp.ones(base.shape, dtype=base.dtype)] + [_zeros_of(base)] * (order - 1)
    token = _WANTED.set(None)                        # (the probe's every order)
    try:
        (probe,) = _rule_result(f, f.forwarder.taylor(along), outputs, order, record)
    finally:
        _WANTED.reset(token)
    wants = (lambda k: True) if mask is None else (lambda k: bool(mask >> k & 1))
    slope = probe[1]
    result = [probe[0], scaled(x1, slope) if wants(1) else None]
    if order == 2:
        y2 = None
        if wants(2):
            y2 = probe[2] * (x1 * x1)                # f''/2 sum_d w_d x_1d^2
            if x[2] is not None and not _is_zero(x[2]):
                y2 = slope * x[2] + y2
        result.append(y2)
    return [result]


def _has_directions(xs):
    return any(isinstance(c, Directions) for s in xs for c in s[1:])


def _each_direction(f, xs, outputs, order, record, mask=None):
    """The rule of `f` run once per direction, for a rule that cannot take Directions.

    In a collapsed pass coefficient 2 is sum_d w_d y_2(x_0, x_1^d, x_2^d), linear in x_2 and
    quadratic in x_1: so each direction's run has x_2 = 0, and one more run with x_1 = 0 and
    the summed x_2 adds the linear part."""
    found = next(c for s in xs for c in s[1:] if isinstance(c, Directions))
    count, weights = found.count, found.weights

    def run(series):
        return _rule_result(f, f.forwarder.taylor(*series), outputs, order, record, mask)

    if weights is None:                              # each direction's whole series
        runs = [run([[at(c, d) for c in s] for s in xs]) for d in range(count)]
    else:
        runs = [run([[at(c, d) for c in s[:2]] + [_zero(c) for c in s[2:]] for s in xs])
                for d in range(count)]
        linear = run([s[:1] + [_zero(c) for c in s[1:2]] + s[2:] for s in xs])
    result = []
    for i, y in enumerate(outputs):
        if y is None:
            result.append(runs[0][i])
            continue
        shape = y._data.shape
        coefficients = [runs[0][i][0]] + [None if runs[0][i][k] is None else
                                          stacked([r[i][k] for r in runs], shape, weights)
                                          for k in range(1, order + 1)]
        if weights is not None:                      # sum_d w_d (quadratic part) + linear part
            coefficients[2] = _total([linear[i][2]] + [r[i][2] * float(w) for r, w in zip(runs, weights)])
        result.append(coefficients)
    return result


def _zero(c):
    """Zeros of coefficient c's shape, where its data is (None, a coefficient not used, as is)."""
    if c is None:
        return None
    data = c._data if isinstance(c, (Directions, Variable)) else c
    return backend.get_array_module(data).zeros(c.shape, dtype=data.dtype)


def _point(x, i, op):
    """Input `i` as a Variable the graph can be recorded from."""
    if isinstance(x, Variable):
        if x.requires_grad:
            return x
        data = x._data
    else:
        try:
            data = Variable(x)._data
        except TypeError as error:
            raise TypeError(f"{op}: input {i}: {error}") from None
    if data.dtype.kind not in "f":
        raise TypeError(
            f"{op}: input {i} has dtype {data.dtype}; derivatives need floating point "
            f"(np.array(2.0), or a.astype(np.float64))"
        )
    return new_variable(data, True)


def _direction(v, x, i, op, batched=False):
    """The direction for input `i`: an ndarray of x's shape and dtype (batched: a stack of
    them along a leading axis).  A direction that requires grad stays a Variable (outside
    no_grad), so the derivatives, linear in it, keep their graph to it."""
    traced = isinstance(v, Variable) and v.requires_grad and is_backprop_enabled()
    if traced and batched:
        raise ValueError(
            f"{op}: direction {i} is a Variable that requires grad, and with batched=True the "
            f"directions are pushed through as arrays, so its gradient would be lost; push one "
            f"direction at a time (batched=False), or pass v.detach() if it is a constant"
        )
    if traced:
        data = v if v.dtype == x._data.dtype else v.astype(x._data.dtype)    # (a recorded cast)
    else:
        try:
            data = backend.get_array_module(x).asarray(v._data if isinstance(v, Variable) else v,
                                                       dtype=x._data.dtype)
        except (TypeError, ValueError) as error:                             # (on x's device)
            raise TypeError(f"{op}: direction {i} must be numeric like its input ({error})") from None
    if batched and (data.ndim != x.ndim + 1 or not len(data) or not _broadcasts(data.shape[1:], x.shape)):
        raise ValueError(
            f"{op}: with batched=True, v holds a stack of directions along its first axis, so for "
            f"input {i} of shape {x._data.shape} it has shape (n, {', '.join(map(str, x._data.shape))}"
            f"{',' if x.ndim == 0 else ''}) with n >= 1 (an axis of length 1 where every entry "
            f"of x takes the same direction), got {data.shape}"
        )
    if not batched and data.shape != x._data.shape:
        hint = ("; for several directions at once, stack them along a first axis and pass "
                "batched=True" if data.shape[1:] == x._data.shape else "")
        raise ValueError(
            f"{op}: direction {i} has shape {data.shape} but input {i} has shape "
            f"{x._data.shape}; v holds one direction per input, each of its input's shape{hint}"
        )
    return data


def _as_outputs(ys, op):
    if isinstance(ys, Variable):
        return [ys], False
    if isinstance(ys, tuple) and ys and all(isinstance(y, Variable) for y in ys):
        return list(ys), True
    raise TypeError(
        f"{op}: f must return a Variable or a tuple of Variables, got {type(ys).__name__}"
        + (": did it forget `return`?" if ys is None else "")
        + ("; return a tuple, not a list" if isinstance(ys, list) else "")
    )


def _path(series, x, i, order, op):
    """Input i's path for jet: its derivatives [x', ..., x^(K)] as coefficients x^(k) / k!."""
    if not isinstance(series, (list, tuple)) or len(series) != order:
        raise TypeError(f"{op}: the series of input {i} must be a list of its {order} derivatives along "
                        f"t, [x', x'', ...], each of its shape {x._data.shape}")
    return [_direction(c, x, i, op) / float(math.factorial(k)) for k, c in enumerate(series, 1)]


def _broadcasts(shape, target):
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def _refuse_one_point_as_a_list(f, xs, op):
    """A TypeError where `x`, a list, is one point of an f of one argument: a list or tuple x is
    one point per argument (as JAX's primals), and f cannot take len(xs)."""
    from .functional import takes
    if takes(f, len(xs)) is False and takes(f, 1):
        raise TypeError(f"{op}: x is a list of {len(xs)}, which is one point per argument of f (a list "
                        f"or a tuple, as JAX's primals), but f takes one argument; give its point "
                        f"as one array, and the direction too: V.{op}(f, np.array(x), np.array(v), ...)")


def _evaluate(f, x, v, order, op, batched=False, weights=None, path=False, wanted=None, nested=False,
              ran=None):
    """Run `f` at `x` and push the path x + t v through it: (outputs, their series, tuple?).

    `batched`: v holds n directions along a leading axis, pushed through together
    (coefficients k >= 1 are Directions); with `weights` too (order 2), coefficient 2 is
    collapsed: sum_d w_d of the directions' (variable/directions.py).  `wanted`: the orders
    the caller reads (a bit mask; None: all); the others may come back None.  `ran`: what
    `run_kept(f, x)` returned, f's output at x, whose graph the pass follows (f is not run
    again; x must then be the Variables it ran on)."""
    if not callable(f):
        raise TypeError(f"{op}: f must be callable, got {type(f).__name__}")
    noted = _noting.get()
    if noted is not None:
        noted.append(op)
    if _inside_f.get() is not None and not nested:
        raise ValueError(
            f"{op} was called inside the function given to {_inside_f.get()}: the inner "
            f"derivatives are arrays with no graph, so the outer pass would treat them as "
            f"constants and return wrong numbers; ask one V.taylor for a higher order instead, "
            f"or use V.grad(..., create_graph=True) for the inner derivative"
        )
    several = isinstance(x, (tuple, list))
    xs = list(x) if several else [x]
    if type(x) is list and len(xs) > 1:
        _refuse_one_point_as_a_list(f, xs, op)
    vs = list(v) if isinstance(v, (tuple, list)) and several else [v]
    if several and not isinstance(v, (tuple, list)):
        raise TypeError(f"{op}: x is a tuple of {len(xs)} inputs, so v must be a tuple of as many directions")
    if len(vs) != len(xs):
        raise ValueError(f"{op}: {len(xs)} inputs but {len(vs)} directions; give one direction per input")
    xs = [_point(xi, i, op) for i, xi in enumerate(xs)]
    if len({id(xi) for xi in xs}) != len(xs):
        raise ValueError(f"{op}: the same Variable appears twice among the inputs; pass it once")
    if path:   # (jet) v holds each input's path: [x', x'', ..., x^(K)], as normalized coefficients
        vs = [_path(vi, xi, i, order, op) for i, (vi, xi) in enumerate(zip(vs, xs))]
    else:
        vs = [_direction(vi, xi, i, op, batched) for i, (vi, xi) in enumerate(zip(vs, xs))]
    if weights is not None:
        weights = np.asarray(backend.to_cpu(weights), dtype=xs[0]._data.dtype)
    if batched and len({len(vi) for vi in vs}) > 1:
        raise ValueError(f"{op}: with batched=True every input needs as many directions; got "
                         f"{', '.join(str(len(vi)) for vi in vs)}")
    if ran is not None:
        ys = ran
    else:
        token = _inside_f.set(f"V.{op}")
        saving.keeping_all[0] += 1  # the pass below reads every array f's graph made
        try:
            with enable_grad():
                ys = f(*xs)
        finally:
            saving.keeping_all[0] -= 1
            _inside_f.reset(token)
    outputs, several_outputs = _as_outputs(ys, op)
    seeds = {}
    for xi, vi in zip(xs, vs):  # the path x + t v: coefficients x, v, then zeros
        if path:
            seeds[xi] = [xi._data, *vi]
            continue
        first = Directions(vi, xi._data.shape, weights) if batched else vi
        seeds[xi] = [xi._data, first][:order + 1] + [_zeros(xi)] * (order - 1)
    made_here = {id(xi) for xi, given in zip(xs, x if several else [x]) if xi is not given}
    traced = tuple(c for vi in vs for c in (vi if path else [vi]) if isinstance(c, Variable))
    depends = _depended_on(outputs, made_here) + traced  # (a direction that requires grad too)
    unrecorded = None
    if order:  # a graph for the derivatives where they depend on Variables that require grad
        with enable_grad():
            series, unrecorded = _push(outputs, seeds, order, op, record=bool(depends), wanted=wanted)
    else:
        series = seeds
    out = []
    for y in outputs:
        s = series.get(y)
        s = s if s is not None else [y._data] + [_zeros(y)] * order
        if batched:  # each coefficient k >= 1 with its leading axis of directions
            s = s[:1] + [_stacked_coefficient(c, len(vs[0]), y._data.shape, k, weights)
                         for k, c in enumerate(s[1:], 1)]
        out.append(s)
    return outputs, out, several_outputs, (depends, unrecorded)


def _stacked_coefficient(c, count, shape, k, weights):
    """Coefficient k as one array (or Variable) of shape (count, *shape); collapsed
    (weights, k = 2), of `shape`; None (not made) as it is."""
    if c is None or weights is not None and k == 2:
        return c
    if isinstance(c, Directions):
        return c.full()
    return np.broadcast_to(c, (count, *shape))


def _depended_on(outputs, made_here):
    """The leaves that require grad behind `outputs` (the user's inputs, closed-over weights),
    less the Variables this pass made from arrays: what a derivative of f depends on."""
    if not is_backprop_enabled():
        return ()
    leaves = {}
    for y in outputs:
        if y.creator is None and y.requires_grad and id(y) not in made_here:
            leaves[id(y)] = y
    for f in _functions_behind(outputs):
        for x in f.inputs:
            if x.creator is None and x.requires_grad and id(x) not in made_here:
                leaves[id(x)] = x
    return tuple(leaves.values())


class _NoGraph(Forwarder):
    """The creator of a forward-mode derivative that depends on Variables requiring grad: its
    rules ran on arrays, so a gradient through it would silently miss that dependence."""

    def __init__(self, op, k, unrecorded=None):
        self.op, self.k, self.unrecorded = op, k, unrecorded

    def backward(self, gy):
        names = ", ".join(
            f"{x.name!r} of shape {x.shape}" if x.name else f"a Variable of shape {x.shape}"
            for x in self.inputs[:4]
        ) + (", ..." if len(self.inputs) > 4 else "")
        op = self.unrecorded.name
        fix = (f"gengrad's {op} has no recording rule yet" if self.unrecorded.forwarder._short_constants
               else f"set taylor_records = True on {op} once its taylor rule uses only NumPy functions, "
                    f"operators and V.series on its inputs' coefficients (docs/custom_functions.md)")
        raise ValueError(
            f"backward: a gradient would pass through a derivative computed by V.jvp or V.taylor "
            f"(here V.{self.op}, order {self.k}), and the op {op} on its path has a Taylor rule "
            f"that works on arrays only ({fix}), so that derivative has no graph and the gradient "
            f"would miss how it depends on {names}. Ask V.taylor for a higher order instead of "
            f"differentiating its result, or compute the inner derivative with "
            f"V.grad(..., create_graph=True), which records its graph"
        )

    def taylor(self, *xs):
        raise NotImplementedError(f"V.{self.op}'s derivatives cannot be pushed through forward mode again")


def jet(
    f: Callable[..., Variable | tuple[Variable, ...]],
    x: ArrayLike | tuple[ArrayLike, ...],
    series: list | tuple,
) -> tuple:
    """(f(x(0)), [y', y'', ..., y^(K)]): the derivatives of y(t) = f(x(t)) at t = 0 along a
    path x(t) given by its own derivatives, as JAX's `jet` takes them.

    Where V.taylor's path is the line x + t v, here it is any curve: `series` holds x'(0),
    x''(0), ..., x^(K)(0).  One pass of Taylor mode, O(K^2) per op; so a Taylor integrator of
    an ODE x' = g(x) grows its series one term per pass (tests/variable/test_directions.py).

    Parameters
    ----------
    f : callable
        As for `taylor`.
    x : ArrayLike or tuple of ArrayLike
        The point x(0), floating point.
    series : list of K arrays, or a tuple of such lists (one per input)
        The derivatives of the path, each of x's shape; K >= 1.

    Returns
    -------
    (Variable, list of K Variables), or (tuple, list of tuples) when f returns a tuple
        f(x) and its derivatives along the path (with a graph, as V.taylor's have).

    Raises
    ------
    TypeError
        If a series is not a list of K arrays of its input's shape (for several inputs, a
        tuple of such lists of one length), or as `taylor` raises.
    """
    several = isinstance(x, (tuple, list))
    lists = list(series) if several and isinstance(series, tuple) else [series]
    order = len(lists[0]) if lists and isinstance(lists[0], (list, tuple)) else 0
    if order < 1:
        raise TypeError("jet: series must be a non-empty list of the path's derivatives [x', x'', ...] "
                        "(a tuple of such lists, one per input, when x is a tuple)")
    outputs, out, several_outputs, depends = _evaluate(f, x, lists if several else series, order, "jet",
                                                        path=True)
    for y in outputs:
        _check_order_fits(order, y.dtype)
    derivatives = []
    for k in range(1, order + 1):
        entry = [_derivative(s[k], k, y.dtype, depends, "jet") for y, s in zip(outputs, out)]
        derivatives.append(tuple(entry) if several_outputs else entry[0])
    return (tuple(outputs) if several_outputs else outputs[0]), derivatives


def collapsed(f, x, v, weights, op):
    """sum_d w_d D_{v_d}^2 f(x), the second derivatives of f along the directions v_d (a stack,
    shape (n, *x.shape), axes of length 1 broadcast) summed with the weights w (shape (n,)),
    in one pass of collapsed Taylor mode (variable/directions.py).  A Variable (with a graph
    where the pass recorded one, as V.taylor's)."""
    outputs, series, several, depends = _evaluate(f, x, v, 2, op, True, weights, wanted=1 << 2)
    y, = outputs
    return _derivative(series[0][2], 2, y.dtype, depends, op)


def _flag(value, op):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{op}: batched must be True or False, got {type(value).__name__}; "
                        f"the directions themselves go in v")
    return bool(value)


def _largest_order(dtype):
    """The largest k whose k! the floating `dtype` holds (float32: 34, float64: 170)."""
    top, k, factorial = float(np.finfo(dtype).max), 1, 1.0
    while factorial * (k + 1) <= top:
        k += 1
        factorial *= k
    return k


def _check_order_fits(order, dtype):
    """Refuse an order whose k! rescale the output's dtype cannot carry (inf, then nan)."""
    if np.dtype(dtype).kind == "f" and order > _largest_order(dtype):
        raise ValueError(
            f"taylor: order {order} in {np.dtype(dtype).name}: the derivative is k! times a "
            f"normalized coefficient, and {order}! is past {np.dtype(dtype).name}'s range "
            f"(largest order {_largest_order(dtype)}), so it would come out as inf or nan; pass "
            f"float64 data (orders up to {_largest_order(np.float64)})"
        )


def _alone(series_lists):
    """The ids of the coefficients a recurrence made that nothing else here shares (views
    included): the pass is over, so V.taylor may scale those by k! in place."""
    arrays = [c for s in series_lists for c in s[1:] if type(c) is np.ndarray]
    holders = {}
    for c in arrays:
        owner = c if owned_alone(c) else c.base
        if owner is not None and owned_alone(owner):
            holders[id(owner)] = holders.get(id(owner), 0) + 1
    return {id(c) for c in arrays if owned_alone(c) and holders[id(c)] == 1}


def _derivative(coefficient, k, dtype, depends, op, alone=()):
    """A Variable holding k! times `coefficient` (a k-th derivative), with no graph.

    When it `depends` on Variables that require grad, its creator refuses any gradient
    through it (_NoGraph), naming them: mixed into a loss, it would give a wrong gradient.
    A coefficient in `alone` is scaled in place (no new array).
    """
    depends, unrecorded = depends
    if isinstance(coefficient, Variable):  # a recorded pass: the derivative has its graph
        return coefficient * float(math.factorial(k)) if k > 1 else coefficient
    # k! as a float64 number: a Python int past 2^63 is refused by CuPy, overflows float32
    wide = coefficient.dtype in (np.float64, np.complex128)
    if id(coefficient) in alone and wide and coefficient.dtype == dtype:
        if k > 1:
            coefficient *= float(math.factorial(k))
        data = coefficient
    elif k == 1:
        data = coefficient.astype(dtype)                                    # (a copy)
    else:
        wide = coefficient if wide else coefficient.astype(np.float64)
        data = (wide * float(math.factorial(k))).astype(dtype, copy=False)         # (one pass)
    if not depends or unrecorded is None:  # (a recorded pass: an array coefficient is constant)
        v = new_variable(data)
        v._assigned = _FORWARD_MODE
        return v
    v = new_variable(data, data.dtype.kind == "f")
    record_by_hand(_NoGraph(op, k, unrecorded), v, depends)
    v._assigned = _FORWARD_MODE
    return v


def jvp(
    f: Callable[..., Variable | tuple[Variable, ...]],
    x: ArrayLike | tuple[ArrayLike, ...],
    v: ArrayLike | tuple[ArrayLike, ...],
    batched: bool = False,
) -> tuple:
    """(f(x), J v): the value of `f` at `x` and its derivative along `v`, by forward mode.

    Like torch.func.jvp: one pass through f's graph, whatever the number of outputs.

    Parameters
    ----------
    f : callable
        Takes one Variable (or one per input when `x` is a tuple), returns a Variable or a
        tuple of Variables.
    x : ArrayLike or tuple of ArrayLike
        The point, floating point.  A Variable that requires grad is used as is (f(x) stays
        connected to its graph); anything else becomes a new Variable.
    v : ArrayLike or tuple of ArrayLike
        The direction: one array of each input's shape; a Variable that requires grad
        keeps its graph (J v is differentiable in v).  With `batched`, n directions
        stacked along a first axis (shape (n, *x.shape)), pushed through f together.
    batched : bool
        Whether v holds a batch of directions (torch.func.vmap over jvp, in one pass).

    Returns
    -------
    (Variable, Variable), or (tuple, tuple) when f returns a tuple
        f(x), recorded as usual, and J v, the derivative of f(x + t v) at t = 0 (batched:
        shape (n, *y.shape), one per direction).  It has a graph to the Variables f used
        that require grad, where every op on the way has a recording rule.

    Raises
    ------
    TypeError
        If `f` is not callable or returns no Variable, or an input is not floating point.
    ValueError
        If a direction's shape differs from its input's, a batch of directions requires
        grad (its gradient would be lost: push them one at a time), or `jvp` is called inside the `f`
        of another jvp or taylor.
    NotImplementedError
        If an op between the inputs and the outputs has no Taylor rule (naming it).
    """
    outputs, series, several, depends = _evaluate(f, x, v, 1, "jvp", _flag(batched, "jvp"))
    tangents = [_derivative(s[1], 1, y.dtype, depends, "jvp") for y, s in zip(outputs, series)]
    if several:
        return tuple(outputs), tuple(tangents)
    return outputs[0], tangents[0]


def taylor(
    f: Callable[..., Variable | tuple[Variable, ...]],
    x: ArrayLike | tuple[ArrayLike, ...],
    v: ArrayLike | tuple[ArrayLike, ...],
    order: int,
    batched: bool = False,
) -> list:
    """[f(x), D_v f(x), D_v^2 f(x), ..., D_v^order f(x)]: derivatives along `v`, by Taylor mode.

    D_v^k f(x) is the k-th derivative of f(x + t v) at t = 0.  For an elementwise f and v
    of ones these are the ordinary nth derivatives at every point.  One pass pushes
    truncated Taylor series through f's graph at a cost of O(order^2) array operations
    per op, where nested V.grad(create_graph=True) grows exponentially with the order.

    Parameters
    ----------
    f : callable
        Takes one Variable (or one per input when `x` is a tuple), returns a Variable or a
        tuple of Variables.
    x : ArrayLike or tuple of ArrayLike
        The point, floating point.  A Variable that requires grad is used as is.
    v : ArrayLike or tuple of ArrayLike
        The direction: one array of each input's shape; a Variable that requires grad
        keeps its graph (D_v^k f is differentiable in v).
    order : int
        The highest derivative wanted, >= 0.
    batched : bool
        Whether v holds n directions stacked along a first axis (shape (n, *x.shape)): one
        pass for all of them, each rule doing one array operation per coefficient for all n.

    Returns
    -------
    list of order + 1 entries
        Entry k is D_v^k f(x): a Variable (batched: of shape (n, *y.shape)), or a tuple of
        them when f returns a tuple.  Entry 0 is f(x) as recorded; the derivatives have a
        graph to the Variables f used that require grad, where every op on the way has a
        recording rule (otherwise a gradient through them is refused, naming the op).

    Raises
    ------
    TypeError
        If `f` is not callable or returns no Variable, an input is not floating point, or
        `order` is not an int.
    ValueError
        If `order` is negative, a direction's shape differs from its input's, or `taylor`
        is called inside the `f` of another jvp or taylor.
    NotImplementedError
        If an op between the inputs and the outputs has no Taylor rule (naming it).
    """
    if not isinstance(order, (int, np.integer)) or isinstance(order, bool):
        raise TypeError(f"taylor: order must be an int, got {type(order).__name__}")
    if order < 0:
        raise ValueError(f"taylor: order must be >= 0, got {order}")
    outputs, series, several, depends = _evaluate(f, x, v, int(order), "taylor", _flag(batched, "taylor"))
    for y in outputs:
        _check_order_fits(order, y.dtype)
    result = []
    alone = _alone(series)
    for k in range(order + 1):
        entry = [y if k == 0 else _derivative(s[k], k, y.dtype, depends, "taylor", alone)
                 for y, s in zip(outputs, series)]
        result.append(tuple(entry) if several else entry[0])
    return result


def nth_derivative(
    f: Callable[..., Variable | tuple[Variable, ...]],
    x: ArrayLike | tuple[ArrayLike, ...],
    v: ArrayLike | tuple[ArrayLike, ...],
    n: int | None = None,
) -> Variable | tuple[Variable, ...]:
    """D_v^n f(x) alone: `V.taylor(f, x, v, n)[n]` without making the lower derivatives of
    f's output that nothing reads.

    With v of ones, the nth derivative of an elementwise f at every point of x:
    `V.nth_derivative(V.tanh, x, np.ones_like(x), 10)`.  One pass of Taylor mode, as
    `V.taylor`; an op whose output is read only by linear ops (a sum, a matrix product by a
    constant) makes only its nth coefficient, so on big arrays the n - 1 others are never
    written out (tanh's 10th derivative on 10^6 points: 10 arrays of 8 MB fewer).

    Parameters
    ----------
    f : callable
        As for `taylor`.
    x : ArrayLike or tuple of ArrayLike
        The point, floating point.
    v : ArrayLike or tuple of ArrayLike
        The direction, as for `taylor`: one array of each input's shape.
    n : int
        The order, >= 0 (0 gives f(x)); required (None only so that a call without a
        direction, `nth_derivative(f, x, 3)`, is told what it left out).

    Returns
    -------
    Variable, or a tuple of them when f returns a tuple
        D_v^n f(x), with a graph as `taylor`'s derivatives have.

    Raises
    ------
    TypeError, ValueError, NotImplementedError
        As `taylor` raises, naming nth_derivative.
    """
    op = "nth_derivative"
    if n is None:
        raise TypeError(f"{op}: no order n: the arguments are (f, x, v, n), as V.taylor's; give the "
                        f"direction v too (np.ones_like(x) for the nth derivative of an elementwise f)")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        swapped = np.ndim(n) > 0                         # (a direction where n goes)
        raise TypeError(f"{op}: n must be an int (the order of the derivative), got {type(n).__name__}"
                        + ("; the arguments are (f, x, v, n), as V.taylor's" if swapped else ""))
    if n < 0:
        raise ValueError(f"{op}: n must be >= 0, got {n}")
    n = int(n)
    outputs, series, several, depends = _evaluate(f, x, v, n, op, wanted=1 << n if n else None)
    if n == 0:
        return tuple(outputs) if several else outputs[0]
    for y in outputs:
        _check_order_fits(n, y.dtype)
    alone = _alone(series)
    entry = [_derivative(s[n], n, y.dtype, depends, op, alone) for y, s in zip(outputs, series)]
    return tuple(entry) if several else entry[0]


__all__ = ["jvp", "taylor", "jet", "nth_derivative"]
