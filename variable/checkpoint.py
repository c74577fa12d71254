"""Gradient checkpointing: a block whose graph is dropped after its forward pass and built
again in backward (torch.utils.checkpoint), trading one more forward pass for memory.

    h = V.checkpoint(block, x)          # block(x), its inner arrays freed as it returns
    y = V.checkpoint_sequential(model, 4, x)   # a deep Sequential in 4 segments

`checkpoint(fn, *args)` runs `fn(*args)` as usual, then keeps of its graph only one node,
`Checkpoint`, whose inputs are the Variables `fn` read from outside (its arguments, the
parameters it used, anything it closed over) and whose outputs are `fn`'s results.  The
arrays `fn` made on the way are freed with its graph.  In backward, `Checkpoint` runs
`fn(*args)` again (the same random draws, the same train/test mode), backpropagates
through that graph and hands the inputs their gradients, so `backward()`, `V.grad`, and
`create_graph=True` to any order work as without it.  A long chain cut into k segments
keeps the k boundaries and, while backward runs, one segment's graph: for n layers and
k = sqrt(n), memory grows as sqrt(n) instead of n, for about a third more time.

Which Variables `fn` read is found from the graph of the first run: everything it reached
that was made before `fn` started (the clock below marks when) and requires grad.  The
second run must read the same ones; a closure that reads another (a lambda in a loop
sees the loop's last value) is refused, as is a block that gives other shapes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import backend, config, saving
from .backward import _run
from .forward_mode import _inside_f, _push
from .forwarder import Forwarder, Function, new_variable
from .saving import key as _key
from .variable import Variable, _clock

_PYTORCH_ONLY = {
    "context_fn": "gengrad's recompute runs fn as the first pass did (the same random draws and "
                  "train/test mode); set other state inside fn",
    "determinism_check": "gengrad always checks that the second run reads the same Variables "
                         "and gives the same shapes",
    "debug": "V.record_backward() shows each step of a backward pass, the recompute's included",
}
"""torch.utils.checkpoint's keywords that gengrad refuses: {keyword: the fix}."""


_WHAT_CHANGES = (
    "the block must compute the same each time it runs. What changes between runs: state a "
    "layer keeps between calls (a recurrent layer's kept h: checkpoint a block that takes the "
    "state as an argument and returns it); a closure's variable, read when the block runs (a "
    "lambda made in a loop sees the loop's last one: pass it as an argument, V.checkpoint("
    "lambda x, w=w: ..., h) or V.checkpoint(f, h, w)); a new V.Variable made in the block, a new "
    "leaf each call (use a plain array or a number for a constant); a layer built lazily in the "
    "first run, which drew its weights there (call the model once before, or give in_size)")
"""Why a block's second run can differ from its first, and the fix of each."""


class Checkpoint(Forwarder):
    """`fn(*args, **kwargs)` as one node: its outputs were computed when it was recorded, and
    `backward` computes them again, with a graph, to differentiate them.

    Its inputs are what `fn` read from outside (`keys`: each one's gradient key); `fn` and
    its arguments hold their arrays anyway, and the recompute reads their values, so it
    declares them all (data assigned in between is refused); it keeps none of its outputs'
    (the recompute makes them again)."""

    save_for_backward = ("inputs",)

    def __init__(self, fn, args, kwargs, result, keys, specs, state):
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.result = result   # the first run's output arrays, handed to Function once
        self.keys = keys       # gradient keys of the inputs, in order
        self.specs = specs     # (position in fn's result, shape, dtype) of each output
        self.state = state     # what the recompute restores: _State

    def forward(self, *xs):
        result, self.result = self.result, None
        return result

    def backward(self, *gys):
        outputs, inside, _ = _rerun(self)   # fn's outputs again, and the graph that made them
        create_graph = config.is_backprop_enabled()
        grads = _run(outputs, list(gys), create_graph, relevant=inside, keep=set(self.keys))
        return tuple(grads.get(k) for k in self.keys)

    def taylor(self, *xs):
        # the block again, every array kept, and the inputs' series pushed through its graph
        saving.keeping_all[0] += 1  # (its Functions record the Variables it read themselves)
        try:
            outputs, _, read = _rerun(self)
        finally:
            saving.keeping_all[0] -= 1
        order = max(len(s) for s in xs) - 1
        seeds = {read[k]: list(s) for k, s in zip(self.keys, xs) if len(s) > 1}
        series = _push(outputs, seeds, order)[0] if seeds else {}
        result = tuple(_whole(series.get(y), y._data, order) for y in outputs)
        return result if len(result) > 1 else result[0]


def _whole(s, y, order):
    """The series `s` of an output `y` (None: constant along t) with zeros for any coefficient
    left out."""
    zero = backend.get_array_module(y).zeros_like(y)
    s = s if s is not None else [y]
    return [c if c is not None else zero for c in s] + [zero] * (order + 1 - len(s))


class _State:
    """What a recompute needs to run `fn` as the first run did: the clock at its start, the
    train/test mode, NumPy's random state before it and after it (to check the recompute drew
    as much; both None where it drew nothing, the common case: reading the state costs about
    45 us), and the device generator's seed when `fn` ran on a GPU."""

    __slots__ = ("start", "train", "before", "after", "device_seed")


def _numpy_state_equal(a, b):
    return a[0] == b[0] and a[2:] == b[2:] and np.array_equal(a[1], b[1])


def _with_device_generator(seed, call):
    """`call()` with the GPU's global generator replaced by one seeded with `seed` (CuPy's
    generator has no state to save, so the recompute draws the same from the same seed); as it
    is where no GPU is in use (seed None)."""
    module = backend._GPU["module"]
    if seed is None or module is None:
        return call()
    random = module.random
    previous = random.get_random_state()
    random.set_random_state(random.RandomState(seed))
    try:
        return call()
    finally:
        random.set_random_state(previous)


def _made_since(outputs, start):
    """(the Functions behind `outputs` recorded since the clock read `start`, {gradient key:
    Variable} of what they read that was made before and requires grad)."""
    functions, seen, read = set(), set(), {}
    stack = [y.creator for y in outputs if y.creator is not None and y.creator.stamp >= start]
    while stack:
        f = stack.pop()
        if f in seen:
            continue
        seen.add(f)
        functions.add(f)
        for x in f.inputs:
            c = x.creator
            if c is not None and c.stamp >= start:
                if c not in seen:
                    stack.append(c)
            elif x.requires_grad:
                read.setdefault(_key(x), x)
    return functions, read


def _flat(result, fn):
    """The Variables in fn's result (one, or a tuple or list of them) with their positions."""
    if isinstance(result, Variable):
        return [(None, result)]
    if isinstance(result, (tuple, list)):
        return [(i, v) for i, v in enumerate(result) if isinstance(v, Variable)]
    name = getattr(fn, "__name__", type(fn).__name__)
    if result is None:
        raise TypeError(f"checkpoint: {name} returned None: did it forget `return`? It must return "
                        f"a Variable, or a tuple or list of them")
    if isinstance(result, dict):
        raise TypeError(f"checkpoint: {name} returned a dict; return a Variable, or a tuple or list "
                        f"of them (tuple(d.values()))")
    return []  # an array or a number: no graph to cut, returned as it is


def _rerun(forwarder):
    """Run the block again as its first run did: its output Variables, checked against the
    first run's, the Functions it recorded and {gradient key: Variable} of what it read."""
    state, fn = forwarder.state, forwarder.fn
    name = getattr(fn, "__name__", type(fn).__name__)
    for v in [*forwarder.args, *forwarder.kwargs.values()]:
        if isinstance(v, Variable) and getattr(v, "_assigned", -1) >= state.start:
            raise ValueError(
                f"backward: the data of an argument of checkpoint({name}, ...) was assigned after "
                f"the forward pass, so the block would run again on values the forward pass never "
                f"saw; change it after backward() (an optimizer step belongs after backward)")
    _clock[0] += 1
    start = _clock[0]
    saved = np.random.get_state()
    if state.before is not None:
        np.random.set_state(state.before)
    drew_alike = False
    try:
        with config._setting(config._enable_backprop, True), \
                config._setting(config._train, state.train), \
                config._setting(config._recomputing, True):
            result = _with_device_generator(state.device_seed,
                                            lambda: fn(*forwarder.args, **forwarder.kwargs))
        drew_alike = _numpy_state_equal(np.random.get_state(), state.after or saved)
    finally:
        if state.before is not None or not drew_alike:
            np.random.set_state(saved)
    flat = dict(_flat(result, fn))
    outputs = []
    for position, shape, dtype in forwarder.specs:
        y = flat.get(position)
        if y is None or y._data.shape != shape or y._data.dtype != dtype:
            got = "nothing" if y is None else f"{y._data.dtype}{y._data.shape}"
            raise ValueError(
                f"backward: checkpoint({name}, ...) gave {got} on its second run where the first "
                f"gave {dtype}{shape}, so its gradients would belong to another computation; "
                f"{_WHAT_CHANGES}")
        outputs.append(y)
    inside, read = _made_since(outputs, start)
    if set(read) != set(forwarder.keys) or not drew_alike:
        raise ValueError(
            f"backward: checkpoint({name}, ...) read other Variables (or drew other random numbers) "
            f"on its second run than on its first, so its gradients would belong to another "
            f"computation; {_WHAT_CHANGES}")
    return outputs, inside, read


def checkpoint(fn: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               preserve_rng_state: bool = True, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)`, its graph kept as one node that runs `fn` again in backward.

    Gradients are those of `fn(*args, **kwargs)` itself, to any order; the arrays `fn` makes
    inside are freed when it returns and made again when backward reaches the node, so a
    chain of checkpointed blocks keeps only the blocks' inputs and outputs (plus, while
    backward runs, one block's graph).  The second run repeats the first: the same random
    draws (dropout masks: NumPy's global state is set back; on a GPU the block draws from a
    generator of its own, seeded for it), the same train/test mode, and batch norm's running
    statistics are not updated twice.  Under `V.no_grad()`, and inside V.jvp, V.taylor and
    the differential operators (which follow the whole graph forward), `fn` simply runs.

    Parameters
    ----------
    fn : callable
        The block: a layer, a model, or any function of Variables, returning a Variable or a
        tuple or list of them.  The Variables it reads from outside (its arguments, the
        parameters it uses, what it closes over) are found from its graph.
    *args, **kwargs
        Passed to `fn` (Variables, arrays, numbers, anything it takes).
    use_reentrant, preserve_rng_state
        PyTorch's keywords, accepted: gengrad's checkpoint works as PyTorch's with
        use_reentrant=False (V.grad and create_graph pass through it) and always replays the
        random draws.

    Returns
    -------
    What `fn` returns: its Variables recorded as outputs of one `Checkpoint` node.

    Raises
    ------
    TypeError
        If `fn` is not callable, returns None or a dict, or one of PyTorch's keywords
        gengrad has no use for (context_fn, determinism_check, debug) is given.
    ValueError
        In backward, if the second run reads other Variables or gives other shapes than the
        first (a closure rebound since, a block with state of its own), or an argument's
        data was assigned in between.
    """
    if isinstance(fn, Variable):
        raise TypeError("checkpoint: fn is a Variable, a block's result (V.checkpoint(block(x)) runs the "
                        "block before checkpoint sees it); pass the block and its input: "
                        "V.checkpoint(block, x)")
    if not callable(fn):
        raise TypeError(f"checkpoint: fn must be callable (a layer or a function), got "
                        f"{type(fn).__name__}; write V.checkpoint(fn, x)")
    for keyword, fix in _PYTORCH_ONLY.items():
        if keyword in kwargs:
            raise TypeError(f"checkpoint() got PyTorch's keyword argument {keyword}=...: {fix}")
    del use_reentrant, preserve_rng_state  # (see Parameters)
    if not config.is_backprop_enabled() or _inside_f.get() is not None or saving.keeping_all[0]:
        return fn(*args, **kwargs)  # no graph wanted, or a forward-mode pass that follows it all
    state = _State()
    state.train = config.is_train()
    state.before = np.random.get_state()
    # a GPU in use: the block's device draws get a generator of their own
    state.device_seed = None if backend._GPU["module"] is None else backend.segment_seed()
    _clock[0] += 1
    state.start = _clock[0]
    result = _with_device_generator(state.device_seed, lambda: fn(*args, **kwargs))
    state.after = np.random.get_state()
    if _numpy_state_equal(state.before, state.after):
        state.before = state.after = None  # it drew nothing: the recompute must draw nothing
    flat = _flat(result, fn)
    made = [(i, y) for i, y in flat
            if y.requires_grad and y.creator is not None and y.creator.stamp >= state.start]
    if not made:
        return result  # nothing fn computed has a graph: nothing to cut
    _, read = _made_since([y for _, y in made], state.start)
    specs = [(i, y._data.shape, y._data.dtype) for i, y in made]
    arrays = tuple(y._data for _, y in made)
    forwarder = Checkpoint(fn, args, kwargs, arrays if len(arrays) > 1 else arrays[0],
                           tuple(read), specs, state)
    outputs = Function(forwarder)(*read.values())
    outputs = outputs if type(outputs) is tuple else (outputs,)
    if isinstance(result, Variable):
        return outputs[0]
    replaced = dict(zip((i for i, _ in made), outputs))
    items = [replaced.get(i, v) for i, v in enumerate(result)]
    for i, v in enumerate(items):  # a result that does not require grad: no graph behind it
        if isinstance(v, Variable) and i not in replaced and v.creator is not None and not v.requires_grad:
            items[i] = new_variable(v._data)
    return type(result)(items)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: bool | None = None,
                          **kwargs: Any) -> Any:
    """Run `functions` (a Sequential, or a list of layers or functions) one after another
    on `input`, cut into `segments` runs of about equal length, each but the last
    checkpointed (torch.utils.checkpoint.checkpoint_sequential).

    With n functions and segments about sqrt(n), backward keeps about 2 sqrt(n) of the
    intermediate results instead of n.

    Parameters
    ----------
    functions : L.Sequential, list or tuple of callables
    segments : int
        How many runs, 1 to len(functions).
    input : Variable or array
        The first function's input.
    use_reentrant
        PyTorch's keyword, accepted (see `checkpoint`).
    **kwargs
        PyTorch's keywords of `checkpoint` (preserve_rng_state), accepted.

    Returns
    -------
    Variable
        The last function's output.

    Raises
    ------
    TypeError
        If `functions` is not a sequence of callables, or `segments` not an int.
    ValueError
        If `segments` is not between 1 and the number of functions.
    """
    try:
        chain = list(functions)
    except TypeError:
        chain = None
    if chain is None or not all(callable(f) for f in chain):
        raise TypeError(f"checkpoint_sequential: functions must be a Sequential, or a list of layers "
                        f"or functions, got {type(functions).__name__}; a model that is not a sequence "
                        f"is checkpointed whole with V.checkpoint(model, x)")
    if isinstance(segments, bool) or not isinstance(segments, (int, np.integer)):
        raise TypeError(f"checkpoint_sequential: segments must be an int, got {type(segments).__name__}"
                        f"; the call is checkpoint_sequential(functions, segments, input)")
    if not 1 <= segments <= max(len(chain), 1):
        raise ValueError(f"checkpoint_sequential: segments must be between 1 and the number of "
                         f"functions ({len(chain)}), got {segments}")
    unknown = set(kwargs) - {"preserve_rng_state"}
    if unknown:
        raise TypeError(f"checkpoint_sequential() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    bounds = [round(i * len(chain) / segments) for i in range(segments + 1)]
    x = input
    for i, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
        part = chain[lo:hi]
        x = _run_part(part, x) if i == segments - 1 else checkpoint(_run_part, part, x)
    return x


def _run_part(part, x):
    """The functions of `part` applied in order."""
    for f in part:
        x = f(x)
    return x
