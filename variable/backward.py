"""The backward pass: a priority queue of Functions, highest generation first."""

import functools
import gc
import itertools
import sys
import weakref
from collections.abc import Sequence
from heapq import heappop, heappush
from operator import attrgetter

import numpy as np

from . import backend, config, saving, series
from . import variable as _variable
from .forwarder import (
    ARRAYS,
    CUSTOM,
    DROPS,
    KEEPS_OUTPUTS,
    ONCE,
    OWN,
    STRICT,
    Forwarder,
    Function,
    Variable,
    _read_only,  # (the views a custom forward gets)
    kept_by_call,
    new_variable,
    record_by_hand,
)
from .graph import _observer, graph_functions  # (_observer: record_backward's)
from .ops.indexing import Slice, summed
from .saving import key as _key
from .variable import (
    _FORWARD_MODE,
    _GRAPHLESS,
    _RECORDED_GRAD,
    _clock,
    _grad_is_current,
    _KeptInForward,
    _MixedGrad,
    _watched,
    _written,
    result_use,
    written_since,
)

_ONES = {}
"""A read-only 0-d 1 per NumPy dtype, made once: the seed of a 0-d output (a loss) as it is, of
any other as a broadcast view of it."""


def _one(dtype):
    one = _ONES.get(dtype)
    if one is None:
        one = np.ones((), dtype=dtype)
        one.flags.writeable = False
        _ONES[dtype] = one
    return one


def _seed(y, gy, where):
    """The incoming gradient for output `y`: ones when None, else `gy` checked."""
    if gy is None:  # ones that take no memory (a read-only view of one 1: never written)
        data = y._data
        if type(data) is np.ndarray:
            one = _one(data.dtype)
            return new_variable(one if data.ndim == 0 else np.broadcast_to(one, data.shape))
        xp = backend.get_array_module(data)
        return new_variable(xp.broadcast_to(xp.ones((), dtype=data.dtype), data.shape))
    if backend.is_device_array(gy):
        gy = new_variable(backend.constant_like(gy.astype(y._data.dtype, copy=False), y._data, where,
                                                "grad_output", "its output"))
    elif not isinstance(gy, Variable):
        if not isinstance(gy, (np.ndarray, int, float, np.number)) or isinstance(gy, bool):
            raise TypeError(
                f"{where}: a grad_output must be a Variable, an ndarray, a number or None, "
                f"got {type(gy).__name__}"
            )
        # on the output's device: a host array goes to the GPU where V.Variable would put it
        made = not isinstance(gy, np.ndarray)      # (a number)
        gy = new_variable(backend.constant_like(np.asarray(gy, dtype=y._data.dtype), y._data, where,
                                                "grad_output", "its output", made=made))
    if gy.shape != y.shape:
        raise ValueError(
            f"{where}: grad_output of shape {gy.shape} does not match output of shape {y.shape}"
        )
    return gy


def _seeds(outputs, grad_outputs, where):
    """One checked incoming gradient per output (ones where none is given)."""
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif isinstance(grad_outputs, (Variable, np.ndarray, int, float, np.number)) and not isinstance(
            grad_outputs, bool) or backend.is_device_array(grad_outputs):
        grad_outputs = [grad_outputs]
    elif not isinstance(grad_outputs, (list, tuple)):
        raise TypeError(
            f"{where}: grad_outputs must be a Variable, an ndarray, a number or a list/tuple of them, "
            f"got {type(grad_outputs).__name__}"
        )
    if len(grad_outputs) != len(outputs):
        raise ValueError(
            f"{where}: {len(grad_outputs)} grad_outputs given for {len(outputs)} outputs"
        )
    return [_seed(y, gy, where) for y, gy in zip(outputs, grad_outputs)]


_NOT_THE_FUNCTION = ("grad takes the output Variable, not the function: V.grad(f(x), x) (JAX's "
                     "grad(f)(x)); V.jacobian(f, x), V.hessian(f, x) and V.jvp(f, x, v) take f")
"""What V.grad(f, ...) and V.grad(f) are told (JAX's and HIPS autograd's grad(f))."""


def _as_list(xs, what, where):
    """`xs` (a Variable, or any iterable of them, e.g. model.params()) as a list."""
    if isinstance(xs, Variable):
        items = [xs]
    elif isinstance(xs, (list, tuple)):
        items = list(xs)
    elif hasattr(xs, "__iter__") and not isinstance(xs, (str, bytes, np.ndarray, dict)):
        items = list(xs)
    else:
        hint = _model_hint(xs, what)
        if callable(xs) and where == "grad" and not hint:   # JAX's grad(f)(x), HIPS autograd's grad(f)
            hint = f"; {_NOT_THE_FUNCTION}"
        raise TypeError(
            f"{where}: {what} must be a Variable or an iterable of Variables (a list, a tuple, "
            f"model.params()), got {type(xs).__name__}{hint}"
        )
    for x in items:
        if not isinstance(x, Variable):
            hint = _model_hint(x, what)
            raise TypeError(f"{where}: {what} must be Variables, got {type(x).__name__}{hint}")
    return items


def _model_hint(x, what):
    """Where `x` is a layer or model (it has params()): how to give its parameters instead."""
    if not callable(getattr(x, "params", None)):
        return ""
    return (f" (a layer or model: give its parameters, {what}=[x, *model.params()], and read "
            f"their gradients in that order)")


_by_generation = attrgetter("generation")


def _functions_reaching(outputs, targets):
    """The set of Functions that lie on a path from a target up to an output."""
    functions = graph_functions(outputs)
    # in generation order every Function comes after the creators of its inputs
    functions.sort(key=_by_generation)
    target_keys = {_key(x) for x in targets}
    target_creators = {x.creator for x in targets}
    relevant = set()
    for f in functions:
        for x in f.inputs:
            c = x.creator  # (the key is looked up only where it can be a target's)
            if c in relevant or (x in target_keys if c is None else (
                    c in target_creators and _key(x) in target_keys)):
                relevant.add(f)
                break
    return relevant


class Accumulate(Forwarder):
    """The sum of every gradient that reached one Variable, as one node.

    With create_graph=True the contributions to a Variable used k times are summed by
    one Accumulate instead of k - 1 Adds; its backward passes its gradient to each
    contribution and creates nothing, which keeps nth-derivative graphs small.
    """

    save_for_backward = ()  # gy goes to every input: shapes only
    taylor_records = True   # its rule is a sum: on Variables it records Adds

    def forward(self, *gs):  # (always two or more: a single gradient needs no node)
        total = gs[0] + gs[1]  # a new array, of the promoted dtype
        for g in gs[2:]:
            if g.dtype == total.dtype:
                total += g
            else:
                total = total + g
        return total

    def backward(self, gy):
        return (gy,) * len(self.inputs)

    def taylor(self, *gs):
        return functools.reduce(series.add, gs)        # a sum: y_k = sum of the inputs' k-th


def _take(grads, k, keep):
    """The total gradient filed under the key `k` (None if none), removed unless kept."""
    g = grads.get(k) if k in keep else grads.pop(k, None)
    if type(g) is list:  # several contributions recorded with create_graph (or one slice)
        g = Function(Accumulate())(*g) if Slice not in map(type, g) else summed(g)
        if k in keep:
            grads[k] = g
    return g


def _output_grads(f, grads, keep):
    """The outputs of `f` as its backward sees them, and their gradients (zeros for an
    output nobody used)."""
    several = f.output_specs is not None
    outputs, gys = [], []
    for i in range(len(f.outputs)):
        gy = _take(grads, (f, i) if several else f, keep)
        if gy is not None:
            gy = _arrayed(gy)
        else:  # (only an output among several can have none)
            shape, dtype = f.output_specs[i]
            gy = new_variable(backend.get_array_module(*f.inputs).zeros(shape, dtype))
        outputs.append(_output_seen(f, i))
        gys.append(gy)
    return outputs, gys


def _output_seen(f, i):
    """Output `i` of `f` as its backward sees it: the caller's Variable while it lives, the
    kept array (as a Variable made by `f`) when its backward reads it, else None (a strict
    op gets a stand-in for a live one)."""
    y = f.outputs[i]()
    keeps, saved = f.plan[KEEPS_OUTPUTS], f.saved
    if saved is not None and saved is not saving.NOTHING and (keeps is True or i in keeps):
        if y is None:  # (a per-input declaration may keep it for some calls only: saved tells)
            data = saved if f.output_specs is None else saved[i]
            y = new_variable(data, data.dtype.kind in "fc")
            y.creator = f
            y.generation = f.generation + 1
            outputs = list(f.outputs)  # it is output i from now on (saving.output_index)
            outputs[i] = weakref.ref(y)
            f.outputs = tuple(outputs)
        return y
    if y is None or not f.plan[STRICT]:  # (None: dropped by the caller, as documented)
        return y
    return saving.stand_in(y, i)  # a strict op sees no undeclared array, even a live one


def _wrong_count(f, gxs):
    n = len(f.inputs)
    fix = ", ".join(["gx"] + ["None"] * (n - 1)) if n > len(gxs) else None
    hint = (f"; return one per input, None for an input that gets no gradient: return {fix}"
            if fix else "; return one per input")
    return ValueError(f"{f.name}.backward returned {len(gxs)} gradients for {n} inputs{hint}")


def _check_single(f, gx):
    """Refuse what a backward returned in place of a gradient or a tuple of them."""
    if gx is None and any(x.requires_grad for x in f.inputs):
        raise TypeError(
            f"{f.name}.backward returned None, but its input requires grad: did it forget "
            f"`return`? It must return the gradient of each input (a Variable, or a tuple with "
            f"one entry per input, None inside the tuple for an input that gets no gradient)"
        )
    if isinstance(gx, list):
        raise TypeError(
            f"{f.name}.backward returned a list; return a tuple, one gradient per input: "
            f"return (gx0, gx1)"
        )


def _recorded(f, gys, watched):
    """`f`'s backward on `gys` while create_graph records it: the `.data` of its inputs, outputs
    and incoming gradients may give masks and shapes, not arithmetic (variable.py's watch;
    `watched` is the pass's own map, set once per pass by _propagate)."""
    forwarder = f.forwarder
    name = type(forwarder).__name__
    for v in f.inputs:
        watched[id(v)] = name
    for v in forwarder.outputs:
        watched[id(v)] = name  # (None among them is harmless)
    for v in gys:
        watched[id(v)] = name
    kept = getattr(forwarder, "_kept_from_inputs", None)
    originals = None if kept is None else _watch_kept(forwarder, kept, name)
    try:
        return forwarder.backward(*gys)
    finally:
        watched.clear()
        if originals is not None:
            forwarder.__dict__.update(originals)


def _watch_kept(forwarder, kept, name):
    """Put `_KeptInForward` views, which refuse arithmetic naming the attribute, in place of the
    arrays listed in `kept` (_kept_from_inputs: what its forward computed from the inputs), for
    `_recorded`'s backward; returns the attributes they replace, to restore."""
    attributes = forwarder.__dict__
    originals = {attribute: attributes[attribute] for attribute, _ in kept}
    for attribute, index in kept:
        array = originals[attribute] if index is None else originals[attribute][index]
        view = np.asarray(array).view(_KeptInForward)  # (a NumPy scalar as a 0-d view)
        view._op, view._attr = name, attribute if index is None else f"{attribute}[{index}]"
        if index is None:
            attributes[attribute] = view
        else:
            values = list(attributes[attribute])
            values[index] = view
            attributes[attribute] = type(originals[attribute])(values)
    return originals


def _read_only_gradients(gys):
    """Incoming gradients for a custom backward, as Variables on read-only views (filed like
    the originals: same creator), so writing into one cannot change the caller's
    grad_outputs or a gradient another op shares.  A leaf that requires grad (a grad_output
    differentiated through) is passed as it is: its gradient lands on it alone."""
    views = []
    for g in gys:
        data = g._data
        if type(data) is np.ndarray and data.flags.writeable and not (g.creator is None and g.requires_grad):
            v = new_variable(_read_only((data,))[0], g.requires_grad)
            v.name, v.creator, v.generation = g.name, g.creator, g.generation
            g = v
        views.append(g)
    return tuple(views)


def _own(own, forwarder):
    """Whether `forwarder.backward` is still `own`, its built-in class's own (None for a
    custom op): one replaced on the class or on this instance is watched as a custom one is."""
    return own is not None and getattr(forwarder.backward, "__func__", None) is own


def _unrecorded(forwarder, gys):
    """A once-differentiable backward, run with no graph recorded (its results get a creator
    that refuses a second differentiation: _check_gradient)."""
    with config._setting(config._enable_backprop, False):
        return forwarder.backward(*gys)


def _backward_error(f, error):
    """A TypeError raised inside `f`'s backward, restated where a DeZero habit explains it."""
    if "'Variable' object is not callable" in str(error):
        return TypeError(
            f"{f.name}.backward: a Variable was called; in gengrad self.outputs holds the output "
            f"Variables themselves, not weak references as in DeZero: write y, = self.outputs "
            f"(or y = self.outputs[0]) instead of self.outputs[0]()"
        )
    return error


def _add_slice(previous, part, own):
    """The gradient `previous` (None: zeros) plus the Slice `part`, added in place into a
    buffer this pass made (`own`), else into a new one."""
    data = part.gy._data
    if previous is not None:
        previous = _arrayed(previous)
    if previous is None:
        buffer = backend.get_array_module(data).zeros(part.shape, dtype=data.dtype)
    elif own and previous._data.dtype == data.dtype:
        part.add_into(previous._data)
        return previous
    else:
        buffer = previous._data.astype(np.result_type(previous._data, data))   # (a copy)
    part.add_into(buffer)
    return new_variable(buffer)


def _cut(f, grads):
    """Move the gradients of `f`'s outputs that were unchained (now leaves) onto those
    Variables; True when every output was, so `f` has nothing left to do."""
    several = f.output_specs is not None
    for i, ref in f.cut.items():
        g = grads.pop((f, i) if several else f, None)
        y = ref()
        if g is not None and y is not None:
            previous = grads.get(y)
            if previous is None:
                grads[y] = g
            elif type(previous) is list:
                previous.extend(g if type(g) is list else [g])
            else:
                grads[y] = [previous, *(g if type(g) is list else [g])]
    return len(f.cut) == len(f.outputs)


def _check_unchanged(f):
    """Raise if data that `f`'s backward reads (the arrays its save_for_backward keeps, and
    every input's shape and dtype) was assigned, or written in place, since `f` was recorded."""
    kept, keeps_outputs = _what_backward_reads(f)
    outputs = [ref() if keeps_outputs is True or i in keeps_outputs else None
               for i, ref in enumerate(f.outputs)]
    for role, variables in (("an input", f.inputs), ("an output", outputs)):
        for i, x in enumerate(variables):
            if x is None:
                continue
            values = kept is None or role == "an output" or i in kept  # (else its shape alone)
            if getattr(x, "_assigned" if values else "_reshaped", -1) > f.stamp:
                what = "was assigned" if values else "was assigned an array of another shape or dtype"
            elif values and _written and not saving.is_stand_in(x) and (
                    (through := written_since(x._data, f.stamp)) is not False):
                through = f"Variable {through!r}" if through else "another Variable"
                what = (f"views memory (as W.T, a reshape or a slice does) that was written in place "
                        f"through the .data of {through} (an EmbedID with max_norm writes its W at each "
                        f"lookup: read W through a copy, W.copy().T, as PyTorch's docs say to clone it)")
            else:
                continue
            which = f"Variable {x.name!r}" if x.name else f"a Variable of shape {x.shape} (unnamed)"
            raise ValueError(
                f"backward: the data of {which}, {role} of {f.name}, {what} "
                f"after {f.name} was recorded, so this graph would differentiate values the "
                f"forward pass never saw; run the forward pass again after changing the "
                f"data, or change it after backward() (an optimizer step belongs after "
                f"backward); if the graph reaches back into an earlier step (a recurrent layer's "
                f"kept state, a loss summed across steps), cut it after each update: "
                f"loss.unchain_backward(), or model.reset_state() at a new sequence"
            )


def _what_backward_reads(f):
    """(indices of the inputs whose arrays `f`'s backward reads, None for all; True for all of
    its outputs, else their indices), from its Forwarder's save_for_backward."""
    plan = f.plan
    if plan[DROPS] is None:  # it keeps every input (and a custom op that declares nothing, all)
        return None, plan[KEEPS_OUTPUTS]
    return kept_by_call(plan, f.inputs)


class _OnceOnly(Forwarder):
    """The creator of a gradient from a once-differentiable op's backward (arrays, no graph):
    a second differentiation through it is refused, naming the op."""

    save_for_backward = ()

    def __init__(self, op):
        self.op = op

    def backward(self, gy):
        raise ValueError(
            f"backward: a second derivative would pass through {self.op}, which declares "
            f"once_differentiable = True (its backward computes on arrays, with no graph); "
            f"write {self.op}.backward with gengrad ops and drop the declaration to "
            f"differentiate it again"
        )

    def taylor(self, *xs):
        raise NotImplementedError(f"{self.op} is once differentiable: forward mode cannot push its gradient")


def _once_only(f, gx):
    """`gx` (an array or Variable) as a Variable whose creator refuses differentiation."""
    data = gx._data if isinstance(gx, Variable) else (gx if backend.is_device_array(gx) else np.asarray(gx))
    depends = tuple(x for x in f.inputs if x.requires_grad)
    v = new_variable(data, bool(depends))
    if depends:
        record_by_hand(_OnceOnly(f.name), v, depends)
    return v


def _check_gradient(f, x, gx):
    if not isinstance(gx, Variable) or f.forwarder.once_differentiable and config.is_backprop_enabled():
        if config.is_backprop_enabled():
            if f.forwarder.once_differentiable:
                gx = _once_only(f, gx)
            else:
                raise TypeError(
                    f"{f.name}.backward returned {type(gx).__name__}; with create_graph=True it "
                    f"must return Variables built from differentiable ops (or, if it is meant to "
                    f"be differentiated once only, declare once_differentiable = True in {f.name})"
                )
        else:
            gx = new_variable(gx if backend.is_device_array(gx) else np.asarray(gx))
    if gx.shape != x.shape:
        raise ValueError(
            f"{f.name}.backward returned a gradient of shape {gx.shape} "
            f"for an input of shape {x.shape}{_shape_fix(f, x, gx.shape)}"
        )
    return gx


def _shape_fix(f, x, shape):
    """The likely fix for a gradient of the wrong shape: each input's gradient has its shape."""
    index = next((i for i, v in enumerate(f.inputs) if v is x), None)
    which = f" (input {index})" if index is not None and len(f.inputs) > 1 else ""
    if _broadcasts(shape, x.shape):
        return (f"{which}: each gradient has its input's shape; spread it over the input (as a sum's "
                f"gradient is): V.broadcast_to(gx, x.shape)")
    if _broadcasts(x.shape, shape):
        return (f"{which}: each gradient has its input's shape; where forward broadcast this input, "
                f"sum the gradient back: V.sum_to(gx, x.shape)")
    return f"{which}: each gradient has its input's shape (return one per input, in order)"


def _broadcasts(small, large):
    """Whether an array of shape `small` broadcasts to shape `large`."""
    if len(small) > len(large):
        return False
    return all(a in (1, b) for a, b in zip(reversed(small), reversed(large)))


def _run(outputs, seeds, create_graph, relevant=None, keep=(), retain=False):
    """Propagate `seeds` from `outputs`; returns {Variable: gradient} of what remains.

    relevant: when given, only these Functions are visited.
    keep: Variables whose gradient must survive the pass (the targets of `grad`).
    retain: store every intermediate gradient in `.grad` as it is consumed.
    """
    grads = {}
    for y, gy in zip(outputs, seeds):
        k = _key(y)
        previous = grads.get(k)
        grads[k] = gy if previous is None else previous + gy
    heap = []
    seen = set()
    counter = 0
    for y in outputs:
        f = y.creator
        if f is not None and f not in seen and (relevant is None or f in relevant):
            seen.add(f)
            heappush(heap, (-f.generation, counter, f))
            counter += 1
    observer = _observer.get()  # (record_backward)
    if observer is not None:
        observer.start(outputs, grads, heap, create_graph, relevant)
    with _CollectorPaused():
        _propagate(heap, seen, counter, grads, create_graph, relevant, keep, retain, observer)
    if observer is not None:
        observer.finish(grads)
    return grads


class _CollectorPaused:
    """The cyclic collector paused (if it was running) for a `with` block: a backward pass
    allocates many objects and no reference cycles, so the collector would only rescan the
    heap."""

    def __enter__(self):
        self.collecting = gc.isenabled()
        if self.collecting:
            gc.disable()

    def __exit__(self, *error):
        if self.collecting:
            gc.enable()


def _wrapped(gxs, gy):
    """The arrays a `_backward_arrays` returned (one, or a tuple with None for no gradient)
    as the Variables `backward` would have returned: `gy` itself where it passed gy's array
    on (a sum's, a same-shape reshape's).

    A NumPy scalar (NumPy's result of arithmetic on 0-d arrays) stays one while only array
    rules read it, its arithmetic being about 3x a 0-d array's; `_arrayed` makes it 0-d
    where it leaves them: for a `backward`, an in-place sum, a `.grad`.
    """
    data = gy._data
    if type(gxs) is not tuple:
        return gy if gxs is data else new_variable(gxs)
    if len(gxs) == 2:  # (spelled out: a comprehension costs a frame)
        g0, g1 = gxs
        return (g0 if g0 is None else gy if g0 is data else new_variable(g0),
                g1 if g1 is None else gy if g1 is data else new_variable(g1))
    return tuple([g if g is None else gy if g is data else new_variable(g) for g in gxs])


def _arrayed(g):
    """The gradient Variable `g` with 0-d array data where it held a NumPy scalar."""
    data = g._data
    if type(data) is np.ndarray or not isinstance(data, np.generic):
        return g
    return new_variable(data.__array__())


def _propagate(heap, seen, counter, grads, create_graph, relevant, keep, retain, observer):
    """Pop Functions by generation and push gradients through them into `grads`; `observer`
    (None unless in record_backward) is told what each step popped, sent and queued."""
    watched = token = None
    if create_graph:  # the .data watch: one map for the pass, filled by _recorded per backward
        watched = {}
        token = _watched.set(watched)
        _variable._watching += 1
    try:
        _pass(heap, seen, counter, grads, create_graph, relevant, keep, retain, watched, observer)
    finally:
        if create_graph:
            _variable._watching -= 1
            _watched.reset(token)


def _pass(heap, seen, counter, grads, create_graph, relevant, keep, retain, watched, observer):
    """_propagate's loop."""
    now = _clock[0]  # data assigned after a Function was recorded invalidates it
    owned = set()  # keys whose gradient is an array this pass made (added into in place)
    with config._setting(config._enable_backprop, create_graph):
        while heap:
            f = heappop(heap)[2]
            if f.stamp < now:
                _check_unchanged(f)
                if getattr(f, "cut", None) and _cut(f, grads):
                    if observer is not None:  # popped, with nothing left to send
                        observer.popped(f, (), grads)
                        observer.queued(heap)
                    continue
            forwarder = f.forwarder
            try:  # `finally`: a backward that raises must not leave outputs -> cycle
                if f.output_specs is None and not retain:  # one output: the common, fast case
                    gy = grads.get(f) if f in keep else grads.pop(f)
                    if type(gy) is list:  # several recorded contributions: let _take sum them
                        grads[f] = gy     # (the common case above skips the call: hot path)
                        gy = _take(grads, f, keep)
                    y = f.outputs[0]()
                    if f.saved is not None and (y is None or f.plan[STRICT]):  # (kept, or strict)
                        y = _output_seen(f, 0)
                    forwarder.outputs = (y,)
                    if f.plan[CUSTOM]:  # its gy is read-only: it may be the caller's or shared
                        gy, = _read_only_gradients((gy,))
                    if not create_graph:  # the same formula on arrays where the op has it
                        rule = f.plan[ARRAYS]  # (its rule on arrays while backward is OWN), or None
                        if rule is None or getattr(forwarder.backward, "__func__", None) is not f.plan[OWN]:
                            gxs = forwarder.backward(_arrayed(gy))
                        else:
                            gxs = _wrapped(rule(forwarder, gy._data), gy)
                    elif f.plan[ONCE]:  # arrays: run unrecorded, checked below
                        gxs = _unrecorded(forwarder, (gy,))
                    elif _own(f.plan[OWN], forwarder):  # gengrad's own backward: no .data to watch
                        gxs = forwarder.backward(gy)
                    else:
                        gxs = _recorded(f, (gy,), watched)
                else:
                    ys, gys = _output_grads(f, grads, keep)
                    if retain:  # a copy: no two Variables share a gradient
                        for ref, gy in zip(f.outputs, gys):
                            y = ref()  # (the caller's own Variables: those still alive)
                            if y is not None:
                                y._grad = _copy(gy, create_graph) if y._grad is None else y._grad + gy
                    forwarder.outputs = tuple(ys)
                    if f.plan[CUSTOM]:
                        gys = _read_only_gradients(gys)
                    if not create_graph:  # as above: the rule on arrays where the op has one
                        rule = f.plan[ARRAYS]
                        if rule is None or getattr(forwarder.backward, "__func__", None) is not f.plan[OWN]:
                            gxs = forwarder.backward(*gys)
                        else:
                            gxs = _wrapped(rule(forwarder, *[g._data for g in gys]), gys[0])
                    elif f.plan[ONCE]:
                        gxs = _unrecorded(forwarder, gys)
                    elif _own(f.plan[OWN], forwarder):
                        gxs = forwarder.backward(*gys)
                    else:
                        gxs = _recorded(f, gys, watched)
            except saving.NotKept as error:
                saving.restate(error, f)  # (the message only: the traceback shows the line)
                raise
            except ValueError as error:
                if f.plan[CUSTOM] and "read-only" in str(error):  # restated, raised from its line
                    error.args = (
                        f"{f.name}.backward writes into an incoming gradient ({error}); it may be "
                        f"the caller's grad_outputs or shared with other ops' gradients: compute "
                        f"a new one (gx = gy * 2, not gy.data *= 2)",
                    )
                raise
            except TypeError as error:
                restated = _backward_error(f, error)
                if restated is error:
                    raise
                raise restated from error
            finally:
                forwarder.outputs = ()
            inputs = f.inputs
            once = create_graph and f.plan[ONCE]
            kind = type(gxs)
            if kind is not tuple:
                if kind is not Variable:
                    _check_single(f, gxs)
                gxs = (gxs,)
            if len(gxs) != len(inputs):
                raise _wrong_count(f, gxs)
            if observer is not None:  # before the loop: which gradients will be added to one there
                observer.popped(f, gxs, grads)
            for x, gx in zip(inputs, gxs):
                if gx is None or not x.requires_grad:
                    continue
                sliced = False  # a Slice: x[index]'s gradient, gy at index
                if type(gx) is not Variable or gx._data.shape != x._data.shape or once:
                    if type(gx) is Slice:
                        sliced = True
                    else:
                        gx = _check_gradient(f, x, gx)
                creator = x.creator  # gradients are filed by where a Variable was made (_key)
                k = x if creator is None else (
                    creator if creator.output_specs is None else (creator, saving.output_index(creator, x)))
                previous = grads.get(k)
                if sliced and not create_graph:  # added into x's one buffer in place
                    grads[k] = _add_slice(previous, gx, k in owned)
                    owned.add(k)
                    if previous is not None:
                        continue
                elif previous is not None:  # x's creator was queued with its first gradient
                    if not create_graph:  # nothing to record: add the arrays, build no op
                        if k in owned and previous._data.dtype == gx._data.dtype:
                            previous._data += gx._data  # an array this pass made: add in place
                        else:
                            grads[k] = new_variable(previous._data + gx._data)
                            owned.add(k)
                    elif type(previous) is list:  # summed by one Accumulate (ScatterSum) when taken
                        previous.append(gx)
                    else:
                        grads[k] = [previous, gx]
                    continue
                else:
                    grads[k] = [gx] if sliced else gx  # (a slice: summed when taken)
                if creator is not None and creator not in seen:
                    if relevant is None or creator in relevant:
                        seen.add(creator)
                        heappush(heap, (-creator.generation, counter, creator))
                        counter += 1
            if observer is not None:
                observer.queued(heap)
        for x in [x for x, g in grads.items() if type(g) is list]:
            _take(grads, x, grads)  # leaves and targets: sum what reached them, keep it


class _Cast(Forwarder):
    """Convert to `dtype`; its gradient is converted back (keeps `.grad` in the leaf's dtype)."""

    def __init__(self, dtype):
        self.dtype = dtype

    def forward(self, x):
        self.source = x.dtype
        return x.astype(self.dtype)

    save_for_backward = ()

    def backward(self, gy):
        return Function(_Cast(self.source))(gy)

    taylor_records = True

    def taylor(self, x):
        return [None if c is None else c.astype(self.dtype) for c in x]   # linear: each converted


def _copy(g, create_graph):
    """A copy of the gradient `g` in a new buffer (recorded when `create_graph`)."""
    if create_graph:
        return Function(_Cast(g.dtype))(g)  # astype copies; its backward passes gy through
    return new_variable(g._data.copy())


def _buffer(array):
    """id of the ndarray that owns `array`'s memory (views share it)."""
    kind = type(array)
    while type(array.base) is kind:
        array = array.base
    return id(array)


class _Handout:
    """Gives each Variable its gradient: in its dtype, never shared with another.

    A gradient object (or buffer) already handed to another Variable, given by the user
    as a grad_output, or read-only (a broadcast view), is copied first, as PyTorch's
    AccumulateGrad does, so `for p in params: p.grad.data *= s` scales each gradient
    once.  Without create_graph the gradients are marked as having no graph, so that
    differentiating one again names the missing create_graph=True.
    """

    def __init__(self, create_graph, grad_outputs):
        self.create_graph = create_graph
        self.taken = set()
        given = grad_outputs if isinstance(grad_outputs, (list, tuple)) else [grad_outputs]
        for g in given:  # the user's own arrays stay theirs
            if isinstance(g, Variable):
                self.taken.add(id(g))
                self.taken.add(_buffer(g._data))
            elif isinstance(g, np.ndarray):
                self.taken.add(_buffer(g))

    def __call__(self, x, g):
        create_graph = self.create_graph
        taken = self.taken
        data = g._data
        if type(data) is not np.ndarray and isinstance(data, np.generic):  # (_arrayed)
            g = new_variable(data.__array__())
            data = g._data
        if data.dtype != x._data.dtype:  # e.g. a float32 leaf met a float64 array
            g = Function(_Cast(x._data.dtype))(g)
            buffer = id(g._data)  # (astype's new array)
        else:
            buffer = id(data) if data.base is None else _buffer(data)
            if (not data.flags.writeable if type(data) is np.ndarray else backend.writes_through(data)) \
                    or buffer in taken or id(g) in taken:  # (a broadcast view is read-only:
                g = _copy(g, create_graph)                # `*=` must work)
                buffer = id(g._data)
        taken.add(id(g))
        taken.add(buffer)
        g._assigned = _RECORDED_GRAD if create_graph else _GRAPHLESS
        return g


def _no_gradient_reason(v, otherwise):
    """Why the Variable `v` has no graph to differentiate, naming the fix (`otherwise`: the rest)."""
    if getattr(v, "_assigned", None) == _GRAPHLESS:
        return (
            "it is a gradient computed by backward() or grad() without create_graph=True, so "
            "that pass recorded no graph; pass create_graph=True to the call that computed it "
            "(y.backward(create_graph=True) or V.grad(y, x, create_graph=True))"
        )
    if getattr(v, "_assigned", None) == _RECORDED_GRAD:
        return (
            "it is a gradient computed with create_graph=True that depends on nothing requiring "
            "grad: either the function is linear there, so the next derivative is zero "
            "(materialize_grads=True gives zeros), or a backward computed it from arrays instead of "
            "its inputs (a self.x kept by forward, or x.data), which are constants to the graph; "
            "read the inputs with x, = self.inputs and use gengrad's ops (docs/custom_functions.md)"
        )
    if getattr(v, "_assigned", None) == _FORWARD_MODE:
        return (
            "it is a derivative computed by V.jvp or V.taylor, whose rules work on arrays and "
            "record no graph; ask V.taylor for a higher order instead, or compute the inner "
            "derivative with V.grad(..., create_graph=True)"
        )
    if v.dtype.kind in "biu":
        return (
            f"it holds integer data ({v.dtype}), and integer Variables are constants (labels, "
            f"indices); make it floating point: V.Variable(np.array(2.0)), or "
            f"V.Variable(a.astype(np.float64)) for an integer array a"
        )
    return otherwise


_OUTPUT_OTHERWISE = (
    "it was computed from constants only, under no_grad(), from integer data, or it is a "
    "gradient computed without create_graph=True"
)
_INPUT_OTHERWISE = (
    "it is a constant (made with requires_grad=False, by detach(), or by an op under "
    "no_grad() or from constants only)"
)


def backward(
    outputs: Variable | Sequence[Variable],
    grad_outputs: Sequence[Variable | np.ndarray | float | None] | None = None,
    retain_grad: bool = False,
    create_graph: bool = False,
    *,
    retain_graph: bool | None = None,
    inputs: Sequence[Variable] | None = None,
) -> None:
    """Accumulate the gradients of `outputs` into the `.grad` of every leaf
    (torch.autograd.backward).

    Parameters
    ----------
    outputs : Variable or list/tuple of Variables
    grad_outputs : list or tuple, optional
        One incoming gradient per output: a Variable, an ndarray, a number, or None for
        ones (the default for every output).
    retain_grad : bool
        Also store the gradients of intermediate Variables in their `.grad`.
    create_graph : bool
        Record the backward pass, so the gradients can be differentiated again.
    retain_graph, inputs
        PyTorch's keywords: refused, naming gengrad's way (see `refuse_pytorch_keywords`).

    Raises
    ------
    TypeError
        If `outputs` is not a Variable or a list/tuple of Variables, or a grad_output is
        not a Variable, an ndarray, a number or None; or PyTorch's `retain_graph` or
        `inputs` is given.
    ValueError
        If no output requires grad, the numbers of grad_outputs and outputs differ, or a
        grad_output's shape differs from its output's.
    """
    if retain_graph is not None or inputs is not None:
        refuse_pytorch_keywords("backward", retain_graph=retain_graph, inputs=inputs)
    outputs = _as_list(outputs, "outputs", "backward")
    if not any(y.requires_grad for y in outputs):
        raise ValueError(
            f"backward: the output does not require grad, so there is nothing to "
            f"differentiate: {_no_gradient_reason(outputs[0], _OUTPUT_OTHERWISE)}"
        )
    seeds = _seeds(outputs, grad_outputs, "backward")
    with _CollectorPaused():  # through the handout too
        grads = _run(outputs, seeds, create_graph, retain=retain_grad)
        if any(getattr(y, "_assigned", None) == _RECORDED_GRAD for y in outputs):
            _refuse_adding_to_itself(outputs, grads)
        handed = None  # {id(leaf): its gradient's epoch} of a pass seeded with ones, for the next one
        if grad_outputs is None:
            _refuse_a_second_pass(outputs, grads)
            handed = {}
        handout = _Handout(create_graph, grad_outputs)
        now = _clock[0]
        with config._setting(config._enable_backprop, create_graph):
            for x, g in grads.items():
                if not isinstance(x, Variable):
                    continue  # intermediates are filed under their creator (saving.key)
                if x._grad is None:
                    x._grad = handout(x, g)
                    x._grad_at = now
                    x._grad_epoch = next(_epochs)
                else:
                    x._grad = _accumulated(x, g, handout)
                if handed is not None:
                    epoch = getattr(x, "_grad_epoch", None)
                    if epoch is None:  # (a gradient the user assigned: this pass adds to it)
                        epoch = x._grad_epoch = next(_epochs)
                    handed[id(x)] = epoch
        if handed is not None:
            _remember(outputs, handed)


_PYTORCH_BACKWARD_KEYWORDS = {
    "retain_graph": "gengrad keeps the graph after backward(), as PyTorch does with "
                    "retain_graph=True, until its outputs are freed: drop it (a second backward() "
                    "from the same output adds to .grad, so clear the gradients before it unless "
                    "you mean the sum)",
    "inputs": "the gradients of some inputs only are V.grad(outputs, inputs), returned, every "
              ".grad left untouched",
}
"""torch.autograd's keywords that gengrad's backward() and grad() refuse: {keyword: the fix}."""


def refuse_pytorch_keywords(call, **given):
    """Raise a TypeError naming the fix for the first of PyTorch's keywords in `given`
    (keyword: value, None where not given) that was given to `call` ("backward", "grad")."""
    for key, value in given.items():
        if value is not None:
            raise TypeError(f"{call}() got PyTorch's keyword argument {key}={value!r}: "
                            f"{_PYTORCH_BACKWARD_KEYWORDS[key]}")


_epochs = itertools.count()
"""Numbers for a leaf's gradients: a gradient gets the next when a pass hands it out where the
leaf held none (or the user's own), and keeps it while later passes add to it
(`Variable._grad_epoch`)."""


def _remember(outputs, handed):
    """Keep on each output of a pass seeded with ones the leaves it handed gradients to, and
    their gradients' epochs ({id(leaf): epoch}, `Variable._handed`): the leaves of its graph,
    which the graph keeps alive, so an id names one leaf while the output lives.  Each output
    keeps the latest epoch per leaf, so the record is no larger than its graph however many
    passes run (a record of the outputs on each leaf grew with every pass whose output was
    kept)."""
    for y in outputs:
        earlier = getattr(y, "_handed", None)
        if earlier is None:
            y._handed = handed if len(outputs) == 1 else dict(handed)  # (each output its own)
        else:
            earlier.update(handed)


def _refuse_a_second_pass(outputs, grads):
    """Raise if a leaf this pass reached holds, uncleared, the gradient that an earlier
    backward() from these very outputs put there: y.backward() twice would double it (PyTorch
    refuses a second pass through a graph too). Passes given grad_outputs are let through: a
    sum of vector-Jacobian products may be meant."""
    records = [handed for y in outputs if (handed := getattr(y, "_handed", None))]
    if not records:
        return
    for x in grads:
        if isinstance(x, Variable) and x._grad is not None:
            epoch = getattr(x, "_grad_epoch", None)
            if epoch is not None and any(handed.get(id(x)) == epoch for handed in records):
                which = f"Variable {x.name!r}" if x.name else f"a Variable of shape {x.shape}"
                raise ValueError(
                    f"backward: this output was differentiated by an earlier backward(), whose "
                    f"gradient the .grad of {which} still holds, so a second pass would double it; "
                    f"call model.cleargrads() (x.cleargrad()) before backward() again. For the "
                    f"gradient of several losses, backward each once, or (loss1 + loss2).backward()"
                )


def _accumulated(x, g, handout):
    """x's `.grad` plus g; a _MixedGrad (refused when read) where x's data was assigned after
    its `.grad` was handed out: the sum of gradients at two points, PyTorch's forgotten
    zero_grad(). (A GAN's discriminator gets such a sum in the generator's step, and clears it
    before it reads it: so this refuses the read, not the backward.)"""
    old = x._grad
    if type(old) is _MixedGrad:
        return _MixedGrad(handout(x, old.grad + g))
    total = handout(x, old + g)
    return total if _grad_is_current(x) else _MixedGrad(total)


def _refuse_adding_to_itself(outputs, grads):
    """Raise if a leaf this pass reached still holds, as its `.grad`, one of the `outputs`:
    backward() would add d(gx)/dx to gx itself (DeZero's step 33 calls x.cleargrad() first)."""
    for x in grads:
        if isinstance(x, Variable) and x._grad is not None and any(x._grad is y for y in outputs):
            which = f"Variable {x.name!r}" if x.name else f"a Variable of shape {x.shape} (unnamed)"
            raise ValueError(
                f"backward: the output is the .grad of {which}, from backward(create_graph=True), "
                f"and still held there, so this backward would add its derivative to it: .grad "
                f"would be gx + d(gx)/dx, two orders summed; call x.cleargrad() before "
                f"gx.backward(), or take the next derivative with V.grad(gx, x)"
            )


def _flags(**flags):
    """grad's True/False settings as bools, refused where one is anything else (a NumPy bool
    is one)."""
    for name, value in flags.items():
        if type(value) is not bool and not isinstance(value, np.bool_):
            raise TypeError(f"grad: {name} must be True or False, got {type(value).__name__}; the "
                            f"settings after grad_outputs are best given by name: "
                            f"V.grad(y, x, gy, create_graph=True)")
    return tuple(bool(value) for value in flags.values())


class _Required:
    """The default of a parameter that must be given, so that leaving it out can be refused
    naming the likely slip."""

    def __repr__(self):
        return "<required>"


_REQUIRED = _Required()


def grad(
    outputs: Variable | Sequence[Variable],
    inputs: Variable | Sequence[Variable] = _REQUIRED,
    grad_outputs: Variable | np.ndarray | float | Sequence[Variable | np.ndarray | float | None]
    | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
    materialize_grads: bool = False,
    *,
    retain_graph: bool | None = None,
) -> Variable | tuple[Variable | None, ...] | None:
    """Gradients of `outputs` with respect to `inputs`, leaving every `.grad` untouched.

    Only the part of the graph that lies between `inputs` and `outputs` is visited.

    Parameters
    ----------
    outputs : Variable or list/tuple of Variables
    inputs : Variable or iterable of Variables (a list, a tuple, model.params())
        Each must require grad.
    grad_outputs : Variable, ndarray, number or list/tuple of them, optional
        Incoming gradients (vector-Jacobian product), one per output (a number: for an
        output of one entry); None, or a None entry, means ones.
    create_graph : bool
        Record the pass so the returned gradients can be differentiated again.
    allow_unused : bool
        Return None for an input the outputs do not depend on instead of raising.
    materialize_grads : bool
        Return zeros (of the input's shape and dtype) instead of None for an input the
        outputs do not depend on, as for derivatives that are structurally zero (x**2 at
        order 3); implies `allow_unused`. An nth-derivative loop then needs no special case.
    retain_graph
        PyTorch's keyword: refused, naming the fix (gengrad keeps the graph).

    Returns
    -------
    Variable if `inputs` is one Variable, else a tuple (None where unused); each
    gradient has its input's dtype and its own buffer.

    Raises
    ------
    TypeError
        If `inputs` is left out (JAX's grad(f) named), `outputs` or `inputs` is not a Variable
        or a list/tuple of Variables, `grad_outputs` or one of its entries has the wrong type,
        `create_graph`, `allow_unused` or `materialize_grads` is not True or False,
        PyTorch's `retain_graph` is given, or with one Variable as inputs the call's result is
        taken as torch.autograd.grad's tuple at the call (`V.grad(y, x)[0]`, `g, = V.grad(y,
        x)`), which would take the gradient's first row.
    ValueError
        If an input does not require grad, no output requires grad (unless `allow_unused`
        or `materialize_grads`; the message says why: a gradient computed without
        create_graph=True, integer data, ...), or (unless `allow_unused` or
        `materialize_grads`) the outputs do not depend on an input, the numbers of
        grad_outputs and outputs differ, or a grad_output's shape differs from its output's.
    """
    if inputs is _REQUIRED:
        fix = (_NOT_THE_FUNCTION if callable(outputs) else
               "the Variables to differentiate with respect to: V.grad(y, x)")
        raise TypeError(f"grad() missing its argument inputs: {fix}")
    if retain_graph is not None:
        refuse_pytorch_keywords("grad", retain_graph=retain_graph)
    if not (type(create_graph) is type(allow_unused) is type(materialize_grads) is bool):
        create_graph, allow_unused, materialize_grads = _flags(
            create_graph=create_graph, allow_unused=allow_unused, materialize_grads=materialize_grads)
    single = isinstance(inputs, Variable)
    if single:
        use = result_use(sys._getframe(1))
        if use == ("index", 0) or use is not None and use[:2] == ("unpack", 1):
            taken = "g, = V.grad(y, x)" if use[0] == "unpack" else "V.grad(y, x)[0]"
            raise TypeError(
                f"grad: {taken} takes the result as torch.autograd.grad's tuple, but with one "
                f"Variable as inputs V.grad returns its gradient itself, of shape {inputs.shape}"
                f"{', so this would take its first row' if inputs.ndim else ''}; write "
                f"g = V.grad(y, x) (or V.grad(y, [x])[0]: a list of inputs gives a tuple)")
    outputs = _as_list(outputs, "outputs", "grad")
    inputs = _as_list(inputs, "inputs", "grad")
    for i, x in enumerate(inputs):
        if not x.requires_grad:
            reason = _no_gradient_reason(x, _INPUT_OTHERWISE)
            raise ValueError(f"grad: input {i} does not require grad: {reason}")
    unused_ok = allow_unused or materialize_grads
    if not unused_ok and not any(y.requires_grad for y in outputs):
        raise ValueError(
            f"grad: the output does not require grad, so there is nothing to differentiate: "
            f"{_no_gradient_reason(outputs[0], _OUTPUT_OTHERWISE)}"
        )
    seeds = _seeds(outputs, grad_outputs, "grad")
    relevant = _functions_reaching(outputs, inputs)
    grads = _run(outputs, seeds, create_graph, relevant=relevant, keep={_key(x) for x in inputs})
    handout = _Handout(create_graph, grad_outputs)
    result = []
    with config._setting(config._enable_backprop, create_graph):
        for i, x in enumerate(inputs):
            g = grads.get(_key(x))
            if g is None:
                if not unused_ok:
                    raise ValueError(
                        f"grad: the outputs do not depend on input {i} (shape {x.shape}); pass "
                        f"allow_unused=True to get None for it, or materialize_grads=True for zeros"
                    )
                if materialize_grads:
                    g = new_variable(np.zeros_like(x._data))
            if g is not None:
                g = handout(x, g)
            result.append(g)
    return result[0] if single else tuple(result)
