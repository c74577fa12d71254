"""A recorded backward pass: what the engine's own queue did, step by step.

`V.record_backward()` puts a BackwardRecording where the engine (variable/backward.py)
looks for an observer, and the engine calls it at four points of every pass:

- `start`: the outputs, their seed gradients and the queue before the first pop;
- `popped`: the Function just popped and the gradients its backward returned, before they
  are filed, so that each is known to start a gradient or to be added to one already there;
- `queued`: the queue after the step, in the order it will be popped;
- `finish`: the gradients left when the pass ends (the leaves').

Everything here turns those calls into plain records (ids, shapes, small values copied
when they were seen) that the views draw: text.py (a table for the terminal), frames.py
(one Graphviz picture per step), page.py (an HTML page with a slider) and notebook.py
(inline in Jupyter).  Nothing here decides an order: the steps are the engine's pops.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from variable import Function, Variable, backend, graph_functions
from variable.ops.indexing import Slice
from variable.saving import is_stand_in, key

SMALL = 16
"""Arrays of at most this many entries are recorded with their values; larger ones by shape."""


# ----- what is recorded ---------------------------------------------------------------
@dataclass(frozen=True)
class VariableNode:
    """A Variable of a recorded graph."""

    id: str                     # "v1", "v2", ...: its id in the pictures
    label: str                  # its name, or its id when it has none
    shape: tuple
    dtype: str
    values: np.ndarray | None   # a host copy, when small and kept by the graph
    leaf: bool                  # made by no Function
    requires_grad: bool
    step: int = 0               # the step whose backward recorded it (create_graph); 0: the graph walked


@dataclass(frozen=True)
class FunctionNode:
    """A Function of a recorded graph."""

    id: str                     # "f1", "f2", ...
    name: str                   # the op's name ("Mul")
    generation: int
    inputs: tuple[str, ...]     # its input Variables' ids, one per input (repeats kept)
    outputs: tuple[str, ...]    # its outputs' ids
    title: str                  # the op and what it made ("Mul->y"): tells two Muls apart
    visited: bool = True        # False: not in the walk (V.grad's pruning, or recorded by create_graph)
    step: int = 0               # as for VariableNode


@dataclass(frozen=True)
class Queued:
    """A Function waiting in the queue."""

    node: str                   # its id
    title: str
    generation: int


@dataclass(frozen=True)
class Arrival:
    """A gradient reaching a Variable: sent by a popped Function, or the seed of an output,
    or (in Pass.gradients) what it holds at the end."""

    variable: str               # the Variable's id
    label: str                  # and its label
    sender: str | None          # the Function's id; None for a seed or a final gradient
    position: int               # which input of the sender it reached (0 without a sender)
    shape: tuple
    values: np.ndarray | None   # when small
    added: bool                 # added to a gradient that had reached this Variable before
    total: np.ndarray | None = None   # the sum after the addition, when added and small


@dataclass(frozen=True)
class Step:
    """One pop of the engine's queue."""

    number: int                 # 1, 2, ... within its pass
    pass_number: int
    function: Function          # the engine's own Function
    node: str                   # its id in the pictures
    title: str
    generation: int
    arrivals: tuple[Arrival, ...]
    queue: tuple[Queued, ...]   # after the step, first to be popped first
    recorded: tuple[str, ...] = ()   # ids of the Functions its backward recorded (create_graph)


@dataclass
class Pass:
    """One backward pass, `backward()` or `V.grad(...)`: its graph and its steps."""

    number: int
    kind: str                   # "backward" or "grad"
    create_graph: bool
    outputs: tuple[str, ...] = ()
    seeds: tuple[Arrival, ...] = ()
    queue: tuple[Queued, ...] = ()   # before the first pop
    variables: dict[str, VariableNode] = field(default_factory=dict)
    functions: dict[str, FunctionNode] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    gradients: tuple[Arrival, ...] = ()   # at the end: each leaf's (and V.grad's targets')
    inside: tuple[int, int] | None = None  # (pass, step) whose Function's backward ran this one

    @property
    def leaf_gradients(self) -> tuple[Arrival, ...]:
        """The final gradient of each leaf the pass reached."""
        return tuple(g for g in self.gradients if self.variables[g.variable].leaf)


# ----- the recording ------------------------------------------------------------------
class BackwardRecording:
    """Every backward pass run inside `with V.record_backward() as steps:`, step by step.

    A sequence of Steps (every pass's, in order); `passes` groups them by pass.
    `print(steps)` shows the table; `write_html` and `write_frames` write the other views,
    and in Jupyter the recording displays as the HTML page.  It holds the Functions it saw
    (and so their graphs) for as long as it lives.
    """

    def __init__(self) -> None:
        self.passes: list[Pass] = []
        self._open: list[Pass] = []   # the passes running: a backward may run one (V.checkpoint)
        self._ids = _Ids()
        self._pending = None   # (Function, [Arrival]): between popped and queued

    # -- a sequence of steps --
    @property
    def steps(self) -> list[Step]:
        """The steps of every pass, in the order they ran."""
        return [s for p in self.passes for s in p.steps]

    def __len__(self) -> int:
        return sum(len(p.steps) for p in self.passes)

    def __iter__(self):
        return iter(self.steps)

    def __getitem__(self, index):
        return self.steps[index]

    def __repr__(self) -> str:
        return f"<BackwardRecording: {len(self.passes)} pass(es), {len(self)} steps>"

    def __str__(self) -> str:
        return self.table()

    # -- views (imported on use) --
    def table(self) -> str:
        """The steps as a text table for a terminal (pictures/text.py)."""
        from .text import steps_table

        return steps_table(self)

    def write_frames(self, directory: str, formats: tuple[str, ...] = ("svg", "png")) -> list[str]:
        """One DOT picture per step in `directory`, rendered in `formats` when Graphviz is
        installed (pictures/frames.py); returns the paths written."""
        from .frames import write_frames

        return write_frames(self, directory, formats)

    def write_html(self, path: str, title: str = "Backward, step by step") -> str:
        """The self-contained HTML page with a step slider at `path` (pictures/page.py)."""
        from .page import write_page

        return write_page(self, path, title)

    def _repr_html_(self) -> str:
        from .notebook import recording_html

        return recording_html(self)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return {"text/plain": self.table(), "text/html": self._repr_html_()}

    # -- what the engine calls (variable/backward.py) --
    def start(self, outputs, grads, heap, create_graph, relevant) -> None:
        """A pass begins: `grads` holds the seeds, `heap` the first queue; `relevant` is the
        set of Functions V.grad visits (None: every one)."""
        p = Pass(len(self.passes) + 1, "backward" if relevant is None else "grad", create_graph)
        if self._open:  # run by the backward of the Function the open pass popped last
            outer = self._open[-1]
            p.inside = (outer.number, len(outer.steps) + 1)
        self.passes.append(p)
        self._open.append(p)
        for f in sorted(graph_functions(outputs), key=_by_generation):   # (ids in the order run)
            self._function(p, f, visited=relevant is None or f in relevant)
        seeds = {}
        for y in outputs:  # (one seed per Variable: an output given twice gets the sum)
            node = self._variable(p, y)
            seeds[node.id] = Arrival(node.id, node.label, None, 0, node.shape, _values(grads[key(y)]), False)
        p.outputs = tuple(seeds)
        p.seeds = tuple(seeds.values())
        p.queue = self._queue(p, heap)

    def popped(self, f, gxs, grads) -> None:
        """`f` was popped; `gxs` (one per input, None for none) are about to be filed in `grads`."""
        p = self._open[-1]
        running = {}  # key -> the gradient's values so far, this step included (x * x: two)
        arrivals = []
        for position, (x, gx) in enumerate(zip(f.inputs, gxs)):
            if gx is None or not x.requires_grad:
                continue
            k = key(x)
            added = k in grads or k in running
            values = _values(gx)
            total = None
            if added:
                before = running[k] if k in running else _values(grads[k])
                total = None if before is None or values is None else before + values
            running[k] = total if added else values
            node = self._variable(p, x)
            arrivals.append(Arrival(node.id, node.label, self._ids.function(f), position,
                                    tuple(x.shape), values, added, total))
        self._pending = (f, arrivals, [gx for gx in gxs if gx is not None])

    def queued(self, heap) -> None:
        """The step is done: its gradients are filed, and `heap` is the queue after it."""
        f, arrivals, gradients = self._pending
        self._pending = None
        p = self._open[-1]
        number = len(p.steps) + 1
        recorded = []
        if p.create_graph:
            for gx in gradients:
                recorded += self._recorded_behind(p, gx, number)
        node = self._function(p, f)
        p.steps.append(Step(number, p.number, f, node.id, node.title, f.generation, tuple(arrivals),
                            self._queue(p, heap), tuple(dict.fromkeys(recorded))))

    def finish(self, grads) -> None:
        """The pass is over: `grads` holds what the leaves (and V.grad's targets) receive."""
        p = self._open.pop()
        gradients, recorded = [], []
        for k, g in grads.items():
            node_id = self._ids.key(k)
            node = p.variables.get(node_id)
            if node is None:
                continue  # (a gradient filed under a Variable the graph does not show)
            if p.create_graph:  # the Accumulate that sums several contributions, made at the end
                recorded += self._recorded_behind(p, g, max(len(p.steps), 1))
            gradients.append(Arrival(node.id, node.label, None, 0, node.shape, _values(g), False))
        p.gradients = tuple(gradients)
        if recorded and p.steps:  # drawn with the last step: the end of the pass
            last = p.steps[-1]
            recorded = tuple(dict.fromkeys(last.recorded + tuple(recorded)))
            p.steps[-1] = dataclasses.replace(last, recorded=recorded)

    # -- the graph, as ids and nodes --
    def _variable(self, p, x, step=0) -> VariableNode:
        node_id = self._ids.variable(x)
        node = p.variables.get(node_id)
        if node is None or (node.values is None and not is_stand_in(x) and _size(x.shape) <= SMALL):
            # (new, or first seen as a stand-in, which has no values)
            node = VariableNode(
                node_id, x.name or node_id, tuple(x.shape), str(x.dtype),
                None if is_stand_in(x) else _values(x._data), x.creator is None, x.requires_grad,
                step if node is None else node.step,
            )
            p.variables[node_id] = node
        return node

    def _function(self, p, f, visited=True, step=0) -> FunctionNode:
        node_id = self._ids.function(f)
        node = p.functions.get(node_id)
        if node is not None:
            return node
        inputs = tuple(self._variable(p, x, step).id for x in f.inputs)
        outputs = []
        for i, ref in enumerate(f.outputs):
            y = ref()
            output_id = self._ids.key(f if f.output_specs is None else (f, i))
            if y is not None:
                outputs.append(self._variable(p, y, step).id)
            elif output_id in p.variables:  # dropped by its caller, but an op reads it (a stand-in)
                outputs.append(output_id)
        labels = ",".join(p.variables[o].label for o in outputs)
        title = f"{f.name}->{labels}" if labels else f.name
        node = FunctionNode(node_id, f.name, f.generation, inputs, tuple(outputs), title, visited, step)
        p.functions[node_id] = node
        return node

    def _recorded_behind(self, p, gradient, step) -> list[str]:
        """The ids of the Functions behind `gradient` that the pass does not show yet: what
        a step's backward recorded (create_graph), shown from `step` on."""
        parts = gradient if isinstance(gradient, list) else [gradient]
        heads = [g.gy if type(g) is Slice else g for g in parts]
        stack = [g.creator for g in heads if isinstance(g, Variable) and g.creator is not None]
        found = {}
        while stack:
            f = stack.pop()
            if f in found or self._ids.function(f) in p.functions:
                continue
            found[f] = None
            stack.extend(x.creator for x in f.inputs if x.creator is not None)
        ordered = sorted(found, key=lambda f: f.generation)   # the creators of inputs first
        return [self._function(p, f, visited=False, step=step).id for f in ordered]

    def _queue(self, p, heap) -> tuple[Queued, ...]:
        queue = []
        for _, _, f in sorted(heap, key=_pop_order):
            node = self._function(p, f)
            queue.append(Queued(node.id, node.title, f.generation))
        return tuple(queue)


def graph_of(outputs) -> Pass:
    """The graph behind `outputs` (a Variable or a list of them) as the nodes a recorded
    pass holds, with no steps: what the text and notebook views draw of a plain graph."""
    functions = graph_functions(outputs)  # (raises TypeError for anything but Variables)
    outputs = [outputs] if isinstance(outputs, Variable) else list(outputs)
    recording = BackwardRecording()
    p = Pass(0, "graph", False)
    for f in sorted(functions, key=_by_generation):  # (ids in the order the ops ran)
        recording._function(p, f)
    p.outputs = tuple(dict.fromkeys(recording._variable(p, y).id for y in outputs))
    return p


def _by_generation(f):
    return f.generation


def _pop_order(entry):
    """A heap entry's place in the pop order: (-generation, counter); the Function itself is
    never compared."""
    return entry[0], entry[1]


class _Ids:
    """Short stable ids ("v1", "f1") for the Variables and Functions of a recording.

    A Variable is named by where its gradient is filed (the leaf itself, or its creator and
    output position: variable/saving.py's key), so a stand-in in a Function's record gets
    the id of the Variable it stands for.  Every named object is held, so that its id()
    cannot be reused by another while the recording lives.
    """

    def __init__(self):
        self._ids = {}
        self._counts = {"v": 0, "f": 0}
        self._held = []

    def _id(self, ident, obj):
        name = self._ids.get(ident)
        if name is None:
            prefix = ident[0]
            self._counts[prefix] += 1
            name = self._ids[ident] = f"{prefix}{self._counts[prefix]}"
            self._held.append(obj)
        return name

    def function(self, f) -> str:
        return self._id(("f", id(f)), f)

    def key(self, k) -> str:
        """The id of the Variable whose gradients are filed under `k`."""
        if type(k) is tuple:
            return self._id(("v", id(k[0]), k[1]), k[0])
        return self._id(("v", id(k), 0), k)

    def variable(self, x) -> str:
        return self.key(key(x))


def _size(shape) -> int:
    return math.prod(shape)


def _values(gradient) -> np.ndarray | None:
    """A host copy of what a gradient holds, when it has at most SMALL entries, else None.

    A gradient is whatever the engine holds: a Variable, an array or a number (an op that
    is differentiated once only), a Slice (x[index]'s gradient, gy at index and zeros
    elsewhere), or a list of those (create_graph's contributions, summed later).
    """
    if isinstance(gradient, list):
        parts = [_values(g) for g in gradient]
        return None if any(v is None for v in parts) else sum(parts[1:], parts[0])
    if type(gradient) is Slice:
        if _size(gradient.shape) > SMALL:
            return None
        buffer = np.zeros(gradient.shape, dtype=gradient.gy.dtype)
        np.add.at(buffer, gradient.index, _host(gradient.gy._data))   # (repeated indices add up)
        return buffer
    if isinstance(gradient, Variable):
        if is_stand_in(gradient):
            return None
        gradient = gradient._data
    if _size(np.shape(gradient)) > SMALL:
        return None
    return np.array(_host(gradient), copy=True)


def _host(data):
    """`data` (a NumPy or device array, or a number) as a NumPy array."""
    return backend.to_cpu(data) if backend.is_device_array(data) else np.asarray(data)
