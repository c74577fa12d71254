"""What a recorded Function keeps: its Forwarder's `save_for_backward`, and stand-ins for the rest.

A Forwarder declares which of its inputs' and outputs' arrays its `backward` reads:

    save_for_backward = ("x0", "x1")    # Mul: gy * x1, gy * x0
    save_for_backward = ("y",)          # Tanh: gy * (1 - y^2)
    save_for_backward = ()              # Add: shapes only
    save_for_backward = {"x0": ("x1",), "x1": ("x0",)}   # Mul, per input: what its gradient
                                        # reads, so a constant factor keeps nothing

Names: "x0", "x1", ... for inputs ("x" is "x0"), "y0", "y1", ... for outputs ("y" is
"y0"), "inputs" and "outputs" for all of them.  A Forwarder that declares nothing
(`save_for_backward = None`, the default) keeps everything, as a custom op always did.

When a Function is recorded, an input whose array its backward does not read is replaced,
in the Function's record, by a *stand-in*: a Variable with the same creator, generation,
shape and dtype whose data is a `_Released` placeholder.  The caller's own Variable is no
longer held by the graph, so its array is freed as soon as the caller drops it (as in
PyTorch, whose autograd nodes keep only their saved tensors).  An output the backward
reads is kept as an array (a Variable would make a reference cycle with its creator) and
given back to `backward` as a Variable with the same creator.  Gradients are routed by
the producing Function and output position (variable/backward.py's `_key`), so a
stand-in and the Variable it stands for receive one and the same gradient.

Reading a placeholder's data raises `NotKept`; the backward pass restates it naming the op,
the array and the declaration to change.
"""

import inspect
import os

import numpy as np

from . import backend
from .variable import Variable

_ALL_INPUTS, _ALL_OUTPUTS = "inputs", "outputs"


class NotKept(TypeError):
    """A backward read an array that its Forwarder's save_for_backward does not keep."""


def declaration(cls):
    """(drops inputs, kept input indices, kept outputs, by_grad) from `cls.save_for_backward`.

    kept input indices: a frozenset (all inputs when the first item is False); kept
    outputs: True for every output, else a frozenset of indices; by_grad: None, or for a
    per-input declaration a tuple indexed by the bit mask of the inputs that require grad
    (bit i: input i) of (kept input indices, kept outputs).
    """
    spec = cls.save_for_backward
    if spec is None:
        return False, frozenset(), True, None
    if isinstance(spec, dict):
        return _per_input(cls, spec)
    drops, inputs, outputs = _names(cls, spec)
    arity = _arity(cls.forward)
    if drops and arity is not None and all(i in inputs for i in range(arity)):
        drops = False  # every input of its forward(self, x0, x1) is named: nothing to drop
    return drops, inputs, outputs, None


def fast_table(drops, kept, keeps_outputs, by_grad):
    """What a call with one or two inputs drops, from a `declaration`, for the recording
    path: None when it keeps every input, else (drop x0, drop x1, kept outputs); for a
    per-input declaration those triples in a table indexed [x1 requires grad][x0 requires
    grad]."""
    if not drops:
        return None
    if by_grad is None:
        return (0 not in kept, 1 not in kept, keeps_outputs)
    rows = by_grad
    triple = [(0 not in k, 1 not in k, outputs) for k, outputs in rows]
    return (triple[0], triple[1]), (triple[2 % len(rows)], triple[3 % len(rows)])


def _per_input(cls, spec):
    """The declaration {"x0": names its gradient reads, ...}, tabulated by which inputs need one."""
    arity = _arity(cls.forward)
    if arity is None or arity > 8:
        raise TypeError(
            f"{cls.__name__}.save_for_backward: a declaration per input needs a forward with "
            f"named inputs (forward(self, x0, x1)); for forward(self, *xs) list the names"
        )
    needs = {}
    for name, reads in spec.items():
        index = _index(name, "x")
        if index is None or index >= arity:
            raise TypeError(
                f"{cls.__name__}.save_for_backward: the key {name!r} is not one of its "
                f"{arity} inputs; keys are 'x0', 'x1', ... and each value names what that "
                f"input's gradient reads"
            )
        needs[index] = _names(cls, reads)
    table = []
    for mask in range(2 ** arity):
        inputs, outputs = set(), set()
        for i, (drops, kept, out) in needs.items():
            if mask >> i & 1:
                inputs |= set(range(arity)) if not drops else kept
                outputs |= {0} if out is True else out  # (one output: a dict declares one)
        table.append((frozenset(inputs), frozenset(outputs)))
    inputs = frozenset().union(*(t[0] for t in table))
    outputs = frozenset().union(*(t[1] for t in table))
    return True, inputs, outputs, tuple(table)


def _index(name, letter):
    """The position `name` gives for `letter` ("x" or "x0": 0, "x1": 1, ...), or None."""
    if isinstance(name, str) and name[:1] == letter and (name[1:] == "" or name[1:].isdigit()):
        return int(name[1:] or 0)
    return None


def output_names(cls, names):
    """The output positions named by `names` ("y", "y0", "y1", ...: non_differentiable)."""
    indices = []
    for name in (names,) if isinstance(names, str) else names:
        if _index(name, "y") is None:
            raise TypeError(
                f"{cls.__name__}.non_differentiable: {name!r} is not an output name ('y0', 'y1', ...)"
            )
        indices.append(_index(name, "y"))
    return frozenset(indices)


def _names(cls, spec):
    """(drops inputs, kept input indices, kept outputs) of a tuple of names."""
    if isinstance(spec, str):
        spec = (spec,)
    if not isinstance(spec, (tuple, list)):
        raise TypeError(
            f"{cls.__name__}.save_for_backward must be a tuple of names such as ('x0', 'y'), "
            f"or a dict from each input to what its gradient reads, got {type(spec).__name__}"
        )
    inputs, outputs, drops, all_outputs = set(), set(), True, False
    for name in spec:
        if name == _ALL_INPUTS:
            drops = False
        elif name == _ALL_OUTPUTS:
            all_outputs = True
        elif _index(name, "x") is not None:
            inputs.add(_index(name, "x"))
        elif _index(name, "y") is not None:
            outputs.add(_index(name, "y"))
        else:
            raise TypeError(
                f"{cls.__name__}.save_for_backward: {name!r} is not a name of an input or "
                f"output; use 'x0', 'x1', ... (inputs, 'x' for 'x0'), 'y0', 'y1', ... "
                f"(outputs, 'y' for 'y0'), 'inputs' or 'outputs'"
            )
    return drops, frozenset(inputs), True if all_outputs else frozenset(outputs)


def _arity(forward):
    """The number of inputs `forward` takes, or None when it takes *xs."""
    try:
        parameters = list(inspect.signature(forward).parameters.values())[1:]  # (less self)
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return None
    return len(parameters)


def strict_built_ins():
    """Whether built-in ops hand their backward stand-ins for every undeclared array, as
    custom ops always do (GENGRAD_STRICT_SAVES=1, read when each op class is made; a test
    runs the array rules' table under it in a process of its own)."""
    return os.environ.get("GENGRAD_STRICT_SAVES", "") not in ("", "0")


class _Released:
    """The shape and dtype of an array a recorded Function did not keep (and, for one of
    several outputs, its position); any use of its values raises NotKept."""

    __slots__ = ("shape", "dtype", "index")
    __array_priority__ = 1e9  # `ndarray * placeholder` asks the placeholder first

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for k in self.shape:
            n *= k
        return n

    def _error(self):
        error = NotKept(
            f"a backward reads the data of an array of shape {self.shape} and dtype "
            f"{self.dtype} that the op which recorded it does not keep; add it to that op's "
            f"save_for_backward"
        )
        error.placeholder = self
        return error

    def __array__(self, *args, **kwargs):
        raise self._error()

    def __array_ufunc__(self, *args, **kwargs):
        raise self._error()

    def __array_function__(self, *args, **kwargs):
        raise self._error()

    def __getattr__(self, name):  # .astype, .sum, .copy, .T, ... of an array
        if name.startswith("__") or name == "index":
            raise AttributeError(name)
        raise self._error()

    def __repr__(self):
        return f"<array not kept: shape {self.shape}, dtype {self.dtype}>"

    def _refuse(self, *args):
        raise self._error()

    __getitem__ = __setitem__ = __iter__ = __len__ = __bool__ = __float__ = __int__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _refuse
    __rtruediv__ = __pow__ = __rpow__ = __neg__ = __matmul__ = __rmatmul__ = __abs__ = _refuse
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _refuse
    __hash__ = object.__hash__


class _ReleasedOnDevice(_Released):
    """A placeholder for an array that lived on the GPU (its array module is the GPU's)."""

    __slots__ = ()


backend._MODULES[_Released] = np

SMALL = 128
"""An array of at most this many entries stays with the graph although its backward does
not read it: its stand-in (two small objects) would cost about as much as it frees.  A
strict Forwarder (any custom op that declares save_for_backward) gets stand-ins always."""

NOTHING = ()
"""A strict op's Function.saved when it keeps no output (None for any other op): a backward
pass looks at how an op sees its outputs only when `saved` is not None."""

keeping_all = [0]
"""Above 0 while V.jvp / V.taylor run f: their pass, right after f, reads every array."""


_new = Variable.__new__


def stand_in(x, index=0):
    """A Variable standing for `x` in a Function's record: same links, no data; `index`:
    its position among the outputs of its creator, when that made several."""
    data = x._data
    if type(data) is np.ndarray:
        released = _Released()  # (calling the class is the fastest way to make one)
    elif isinstance(data, _Released):
        released = data.__class__()
    else:
        backend._MODULES.setdefault(_ReleasedOnDevice, backend.get_array_module(data))
        released = _ReleasedOnDevice()
    released.shape = data.shape
    released.dtype = data.dtype
    if index:
        released.index = index
    v = _new(Variable)
    v._data = released
    v.name = x.name
    v._grad = None
    v.creator = x.creator
    v.generation = x.generation
    v.requires_grad = x.requires_grad
    return v


def restate(error, f):
    """Restate `error` (NotKept, raised in `f`'s backward) naming the op, which array and the
    declaration to change; re-raised as it is, its traceback points at the line that read it."""
    placeholder = getattr(error, "placeholder", None)
    forwarder = f.forwarder
    op = f.name
    role = None
    for i, x in enumerate(forwarder.inputs):
        if x is not None and x._data is placeholder:
            role, name = f"input {i}", f"x{i}"
    for i, y in enumerate(forwarder.outputs):
        if y is not None and y._data is placeholder:
            role, name = f"output {i}", f"y{i}"
    if role is None:
        return
    declared = forwarder.save_for_backward
    error.args = (
        f"{op}.backward reads the data of its {role} (shape {placeholder.shape}, dtype "
        f"{placeholder.dtype}), which {op} does not keep: its save_for_backward is "
        f"{tuple(declared)!r}; add {name!r} there (a backward may read only the arrays it "
        f"declares; 'inputs' or 'outputs' keeps them all; shapes and dtypes are always kept)",
    )


def is_stand_in(x):
    """Whether the Variable `x` is a stand-in (its data was not kept)."""
    return isinstance(x._data, _Released)


def output_index(f, x):
    """The position of `x` among the outputs of its creator `f` (several outputs)."""
    data = x._data
    if isinstance(data, _Released):
        return getattr(data, "index", 0)
    for i, ref in enumerate(f.outputs):
        if ref() is x:
            return i
    raise ValueError(f"{f.name}: a Variable claims {f.name} as its creator but is not one of its outputs")


def key(x):
    """What gradients of `x` are filed under: the leaf itself, or where it was made (its
    creator, with the output position when there are several)."""
    f = x.creator
    if f is None:
        return x
    if f.output_specs is None:
        return f
    return (f, output_index(f, x))
