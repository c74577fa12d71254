"""Forwarder (what an op computes) and Function (how it joins the graph)."""

import functools
import re
import weakref
from typing import Any

import numpy as np

from . import backend, saving
from .config import _enable_backprop
from .types import ArrayLike
from .variable import (
    _COMPLEX,
    Variable,
    _clock,
    _FromInputs,
    _plain,
    _plain_array,
    _refuse_variables_inside,
    _TorchName,
)


class Forwarder:
    """Base class of every op: `forward` on ndarrays, `backward` on Variables.

    `Function` sets `self.inputs` (a tuple of Variables) when it records the op, and
    `self.outputs` (a tuple of Variables, None for an output nobody kept) for the
    duration of `backward`.  Subclasses may keep any other state saved in `forward`.
    """

    inputs = ()
    outputs = ()
    save_for_backward: tuple[str, ...] | None = None
    """The arrays `backward` reads: names "x0", "x1", ... ("x": "x0") of inputs, "y0", ...
    ("y": "y0") of outputs, or "inputs"/"outputs" for all; () for none (shapes and dtypes
    are always kept); or, per input, what its gradient reads ({"x0": ("x1",), "x1":
    ("x0",)} for a product), so nothing is kept for an input that needs no gradient.
    None, the default, keeps everything.  See variable/saving.py."""
    once_differentiable = False
    """True: `backward` may compute on arrays (an adjoint solver); its gradients are right to
    first order, and a second differentiation through them is refused (create_graph=True
    alone is fine)."""
    non_differentiable = ()
    """Names of float outputs that get no gradient ("y1", ...): they do not require grad."""
    taylor_records = False
    """True: `taylor` computes only from its inputs' series and `self.outputs` (NumPy
    functions, operators and V.series helpers, no in-place writes, no np.asarray, no array
    saved in `forward` that varies smoothly with an input), so run on Variables it records
    the graph of the derivatives it computes: V.taylor and V.jvp of a function of parameters
    then return derivatives that reverse mode can differentiate (a Laplacian in a loss)."""
    _short_constants = True  # built-in Taylor rules take an input constant along t as [x_0]
    _taylor_linear = None
    """A built-in rule's coefficient k of the output from the inputs' coefficients k alone:
    "linear" (in its inputs together: a sum, a reshape), "bilinear" (linear where one input
    varies: a product).  Such a rule gets None for an input coefficient the pass does not
    use, and gives None for that output coefficient (variable/series.py, `wanted`)."""
    _backward_arrays = None
    """A built-in op's first-order backward on arrays, `_backward_arrays(self, gy)` with gy
    an ndarray, returning what `backward` returns with ndarrays for Variables: the same
    formula, run by passes that record no graph (create_graph=False), where an op called
    in `backward` costs about 1 us of Python each.  `backward` stays the definition (every
    higher order runs it); tests/variable/test_backward_arrays.py checks that the two agree
    on every row of the op tables.  Ops written outside gengrad do not get one."""
    _pointwise = False
    """A built-in op of one input whose output's every entry depends on the same entry of the
    input alone (sin, tanh, sigmoid, softplus ...).  Along several directions at order 1, or
    in a collapsed pass (order 2, the directions' second-order coefficients summed:
    variable/directions.py), its coefficients then follow from f' and f''/2, which its own
    rule gives along one direction of ones: y_1 = f' x_1, y_2 = f' x_2 + f''/2 sum_d w_d
    x_1d^2 (forward_mode, `_pointwise_directions`)."""
    _plan = (False, None, frozenset(), True, None, False, frozenset(), False, None, None)
    """What recording and backward need to know of the class, in one tuple indexed by CUSTOM
    (written outside gengrad: read-only inputs and gradients, strict reads), DROPS (what a
    call with one or two inputs drops: saving.fast_table), KEPT (kept input indices),
    KEEPS_OUTPUTS, BY_GRAD (saving.declaration), STRICT (stand-ins for every undeclared
    array, leaves and live outputs too), NO_GRADIENT (output positions), ONCE (once
    differentiable), ARRAYS (a built-in class's `_backward_arrays`, or None) and OWN (a
    built-in class's own `backward` function, or None: see `_own_backward`).  The recording
    path reads it with one lookup (a class attribute read through an instance costs about
    twice a slot's); a recorded Function holds it."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # a rule written outside gengrad gets every input's full series (zeros for a constant)
        built_in = cls.__module__.partition(".")[0] in _BUILT_IN_PACKAGES
        if not built_in:
            _refuse_static_methods(cls)
        cls._short_constants = built_in
        declaration = saving.declaration(cls)  # (drops inputs, kept, keeps outputs, by_grad)
        _, kept, keeps_outputs, by_grad = declaration
        strict = cls.save_for_backward is not None and (not built_in or saving.strict_built_ins())
        if not built_in and not getattr(cls.forward, "_guarded", False):
            cls.forward = _guarded(cls.forward)
        no_gradient = saving.output_names(cls, cls.non_differentiable)
        own, rule = _own_backward(cls) if built_in else (None, None)
        cls._plan = (not built_in, saving.fast_table(*declaration), kept, keeps_outputs, by_grad,
                     strict, no_gradient, bool(cls.once_differentiable), rule, own)

    # the names other libraries give what a Forwarder holds, refused with gengrad's
    input = _TorchName("x, = self.inputs (Variables; self.inputs[0] is the first)",
                       "DeZero's first steps' name")
    output = _TorchName("y, = self.outputs (Variables, in backward)", "DeZero's first steps' name")
    saved_tensors = _TorchName("the inputs are kept for backward: x, = self.inputs (anything else "
                               "forward computes, keep on self: self.mask = ...)")
    needs_input_grad = _TorchName("return None for an input that needs no gradient; "
                                  "self.inputs[i].requires_grad tells")

    @classmethod
    def apply(cls, *inputs: ArrayLike, **params: Any) -> Variable | tuple[Variable, ...]:
        """Run a fresh `cls(**params)` on `inputs`: `Cube.apply(x)` is `Function(Cube())(x)`.

        The shortest safe way to call a custom op: every call gets its own Forwarder,
        which holds that call's inputs and saved state.
        """
        try:
            forwarder = cls(**params)
        except TypeError as error:
            name = cls.__name__
            if f"{name}.__init__()" not in str(error):
                raise
            missing = re.findall(r"'(\w+)'", str(error)) if "missing" in str(error) else []
            keywords = ", ".join(f"{p}=..." for p in missing) or "name=value"
            raise TypeError(
                f"{name}.apply: {error}; apply passes its positional arguments to forward as "
                f"inputs and its keyword arguments to {name}(...): give the op's parameters by "
                f"keyword, {name}.apply(x, {keywords}), or write V.Function({name}(...))(x)"
            ) from error
        return Function(forwarder)(*inputs)

    def __call__(self, *inputs: Any) -> None:
        name = type(self).__name__
        raise TypeError(
            f"{name}: a Forwarder is not called directly; wrap a fresh instance in a Function "
            f"for each call: V.Function({name}())(x), or {name}.apply(x)"
        )

    def forward(self, *xs: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]:
        """Compute the outputs (ndarray or tuple of ndarrays) from input ndarrays."""
        raise NotImplementedError(f"{type(self).__name__}.forward is not defined")

    def backward(self, *gys: Variable) -> Variable | tuple[Variable | None, ...] | None:
        """Gradients of the inputs (Variable, tuple, None for no gradient) from the outputs'."""
        raise NotImplementedError(f"{type(self).__name__}.backward is not defined")

    def taylor(self, *xs: list[np.ndarray]) -> list[np.ndarray] | tuple[list[np.ndarray], ...]:
        """Output Taylor coefficients from the inputs' (optional; used by V.jvp and V.taylor).

        Each argument is one input's list [x_0, x_1, ..., x_K] of ndarrays: the path
        x(t) = x_0 + x_1 t + ... + x_K t^K, x_0 being the value `forward` saw.  Return the
        output's [y_0, ..., y_K] (a tuple of such lists for several outputs), each array of
        the output's shape.  `self.outputs` holds the output Variables meanwhile, as during
        `backward`; y_0 is their data.  Order 1 alone is forward-mode AD.
        """
        raise NotImplementedError(f"{type(self).__name__} has no Taylor rule")


def _own_backward(cls):
    """(`backward`, `_backward_arrays` or None) of the class in `cls`'s MRO that defines
    `backward`: a subclass that rewrites `backward` does not inherit the other.

    For a built-in class these are the plan's OWN and ARRAYS.  The engine runs the rule, and
    skips the `.data` watch of recorded passes, only while the Forwarder's `backward` is
    still OWN: replacing it, on the class (V.Sin.backward = ..., to see what a wrong one
    does) or on one instance (to print what reaches it), turns both off there."""
    klass = next(klass for klass in cls.__mro__ if "backward" in klass.__dict__)
    return klass.__dict__["backward"], klass.__dict__.get("_backward_arrays")


def _read_only(arrays, marking=False):
    """A custom forward's input arrays as read-only views: writing into one (np.log(x, out=x))
    would change the caller's data and every gradient that reads it. With `marking`, the views
    mark what is computed from them (`_FromInputs`), for `_kept_from_inputs`."""
    views = []
    for a in arrays:
        if type(a) is np.ndarray:
            a = a.view(_FromInputs) if marking else a.view()
            a.flags.writeable = False
        views.append(a)
    return views


_KEPT = "_kept_learned"
"""The class attribute (read from the class's own __dict__, not inherited) listing the arrays a
custom Forwarder's forward keeps on self that it computed from its inputs, as
_kept_from_inputs lists them: learned on the class's first call on NumPy arrays, which is run
on marking views (each NumPy call on them costs a few microseconds more), and looked up by
name on every later call."""


def _kept_from_inputs(forwarder):
    """Turn the marked arrays that a custom forward left on `forwarder` (`self.e = np.exp(x)`,
    in a list or tuple too) into plain ones, and list the floating-point ones for a backward
    that create_graph records: (attribute, index in its list or tuple, or None), ..."""
    kept = []
    attributes = getattr(forwarder, "__dict__", {})
    for name, value in list(attributes.items()):
        if type(value) is _FromInputs:
            attributes[name] = value.view(np.ndarray)
            if value.dtype.kind in "fc":
                kept.append((name, None))
        elif type(value) in (list, tuple) and any(type(v) is _FromInputs for v in value):
            attributes[name] = type(value)(_plain(value))
            kept += [(name, i) for i, v in enumerate(value)
                     if type(v) is _FromInputs and v.dtype.kind in "fc"]
    return tuple(kept)


def _kept_as_learned(forwarder, learned):
    """The entries of `learned` (a class's _KEPT) that this call of its forward left on self."""
    attributes = getattr(forwarder, "__dict__", {})
    kept = []
    for name, index in learned:
        value = attributes.get(name)
        if index is not None:
            value = value[index] if type(value) in (list, tuple) and len(value) > index else None
        if (type(value) is np.ndarray or isinstance(value, np.floating)) and value.dtype.kind in "fc":
            kept.append((name, index))  # (a reduction gives a NumPy scalar)
    return tuple(kept)


def _guarded(forward):
    """A custom op's `forward`, run on read-only views of its input arrays with its slips
    restated (wrapped once, when the class is made, so Function.__call__ pays nothing)."""

    @functools.wraps(forward)
    def guarded(self, *xs):
        learned = type(self).__dict__.get(_KEPT)
        views = _read_only(xs, marking=learned is None)
        name = type(self).__name__
        try:
            ys = forward(self, *views)
        except ValueError as error:
            if "read-only" in str(error):
                raise ValueError(
                    f"{name}.forward writes into one of its input arrays ({error}); that would "
                    f"change the caller's data and the gradients that read it: compute into a "
                    f"new array (np.log(x) rather than np.log(x, out=x); x = x.copy() first to "
                    f"edit in place)"
                ) from None
            raise
        except TypeError as error:
            if "positional argument" in str(error) and "forward()" in str(error):
                raise TypeError(
                    f"{name}.forward got {len(xs)} inputs ({error}); an op's parameters are "
                    f"keyword arguments: {name}.apply(x, c=3.0) passes c to {name}.__init__, "
                    f"V.Function({name}(c=3.0))(x) too"
                ) from None
            raise
        outputs = ys if type(ys) is tuple else (ys,)
        if any(any(y is v or (isinstance(y, np.ndarray) and y.base is v) for v in views) for y in outputs):
            outputs = tuple(y.copy() for y in outputs)  # (identity)
        if learned is None:
            outputs = _plain(outputs)
            kept = _kept_from_inputs(self)
            if any(type(x) is np.ndarray for x in xs):  # (device arrays are not marked)
                setattr(type(self), _KEPT, kept)
        else:
            kept = _kept_as_learned(self, learned) if learned else ()
        if kept:
            self._kept_from_inputs = kept
        return outputs if type(ys) is tuple else outputs[0]

    guarded._guarded = True
    return guarded


def record_by_hand(forwarder: Forwarder, v: Variable, depends: tuple[Variable, ...]) -> None:
    """Record `v` as the one output of `forwarder` over `depends`, with no forward run: for a
    result computed elsewhere (forward mode, a once-differentiable backward) whose creator's
    backward explains why no gradient passes through it."""
    f = Function(forwarder)
    f.generation = max(x.generation for x in depends)
    f.stamp = _clock[0]
    f.inputs = forwarder.inputs = depends
    f.outputs = (weakref.ref(v),)
    f.output_specs = None
    f.saved = None
    f.plan = forwarder._plan
    v.set_creator(f)


def new_variable(data: np.ndarray, requires_grad: bool = False) -> Variable:
    """Make a Variable from an ndarray we already trust (no validation, no copy)."""
    v = Variable.__new__(Variable)
    v._data = data
    v.name = None
    v._grad = None
    v.creator = None
    v.generation = 0
    v.requires_grad = requires_grad
    return v


# the entries of Forwarder._plan
CUSTOM, DROPS, KEPT, KEEPS_OUTPUTS, BY_GRAD, STRICT, NO_GRADIENT, ONCE, ARRAYS, OWN = range(10)
_BUILT_IN_PACKAGES = ("variable", "function", "layers", "optimizers")
_keeping_all = saving.keeping_all
_stand_in = saving.stand_in
output_index = saving.output_index
_SMALL = saving.SMALL
_NOTHING = saving.NOTHING

_FLOAT64 = np.dtype(np.float64)
_SCALAR = np.float64  # the type of most 0-d results
_DEVICE_TYPES = backend.DEVICE_TYPES


def _reference_dtype(inputs):
    """dtype that Python scalars among `inputs` should take: that of the first array (a NumPy
    floating scalar counts: V.exp(np.float32(2)) is float32, as np.exp's)."""
    for x in inputs:
        if type(x) is Variable:
            return x._data.dtype
        if isinstance(x, (Variable, np.ndarray)) or backend.is_device_array(x):
            return x.dtype
        if isinstance(x, np.floating):
            return x.dtype
    return _FLOAT64


_constants = {}  # (number, dtype) -> constant Variable, so `x * 0.5` in a loop converts once


def _float_constant(x, dtype):
    """A shared constant Variable for a Python number in a floating dtype."""
    key = (x, dtype)
    v = _constants.get(key)
    if v is None:
        v = new_variable(np.array(x, dtype=dtype))
        v._data.flags.writeable = False
        if x != 0 and x == x:  # keep -0.0 apart from 0.0, and never cache NaN
            if len(_constants) >= 4096:
                _constants.clear()
            _constants[key] = v
    return v


def _as_inputs(inputs, forwarder):
    """Turn every op input into a Variable; numbers take the dtype of the first array."""
    if len(inputs) == 2:  # the common case first: `x * 0.5` and `1 - x`, a cached constant
        x0, x1 = inputs    # (NumPy data only: a constant on the host would not meet GPU data)
        if type(x0) is Variable and (type(x1) is float or type(x1) is int):
            if type(x0._data) is np.ndarray:
                constant = _constants.get((x1, x0._data.dtype))
                if constant is not None:
                    return x0, constant
        elif type(x1) is Variable and (type(x0) is float or type(x0) is int):
            if type(x1._data) is np.ndarray:
                constant = _constants.get((x0, x1._data.dtype))
                if constant is not None:
                    return constant, x1
    dtype = _reference_dtype(inputs)
    op = type(forwarder).__name__
    xp = backend.get_array_module(*inputs)
    if xp is not np:
        like = next(x for x in inputs if backend.device_of(x) == "gpu")
        return tuple([x if isinstance(x, Variable) else _on_device(x, dtype, op, xp, like) for x in inputs])
    return tuple([x if isinstance(x, Variable) else _as_input(x, dtype, op) for x in inputs])


def _on_device(x, dtype, op, xp, like):
    """An op input next to GPU data, as a Variable on the GPU: numbers become constants there,
    a NumPy array follows backend.constant_like's rule (refused unless it is 0-d or
    set_default_device("gpu") is on: it would cross to the device on every call)."""
    if isinstance(x, np.ndarray):
        x = backend.constant_like(_as_input(x, dtype, op)._data, like, op, "the NumPy array", "the GPU data")
    if backend.is_device_array(x):
        return _as_input(x, dtype, op)
    cached = (type(x) is float or type(x) is int) and x != 0 and x == x   # as _float_constant
    key = (x, dtype, xp)
    constant = _constants.get(key) if cached else None
    if constant is None:  # numbers and lists, checked as on the CPU, then moved once
        constant = new_variable(xp.asarray(_as_input(x, dtype, op)._data))
        if cached:
            _constants[key] = constant
    return constant


def _as_input(x, dtype, op):
    """Turn one op input into a Variable; constants do not require grad."""
    if isinstance(x, Variable):
        return x
    if (type(x) is float or type(x) is int) and dtype.kind in "fc":
        return _float_constant(x, dtype)
    if isinstance(x, np.ndarray) or backend.is_device_array(x):
        if type(x) is np.ndarray and x.dtype.kind in "biuf":  # the common case: a plain array
            return new_variable(x)
        if x.dtype.kind not in "biufc":
            raise TypeError(f"{op}: inputs must be numeric, got an array of dtype {x.dtype}")
        return new_variable(_plain_array(x, op))
    if isinstance(x, (complex, np.complexfloating)):
        raise TypeError(_COMPLEX.format(op=op))
    if isinstance(x, (bool, int, float, complex, np.number, np.bool_)):
        if dtype.kind in "fc" or isinstance(x, (bool, int, np.bool_, np.integer)):
            return new_variable(np.asarray(x, dtype=np.result_type(dtype, x)))
        return new_variable(np.asarray(x, dtype=np.float64))
    if isinstance(x, (list, tuple)):
        _refuse_variables_inside(x, op)
        try:
            array = np.asarray(x)
        except ValueError as error:
            raise TypeError(f"{op}: cannot turn {x!r} into an array ({error})") from None
        if array.dtype.kind not in "biuf":
            if array.dtype.kind == "c":
                raise TypeError(_COMPLEX.format(op=op))
            raise TypeError(f"{op}: a list input must hold numbers only, got {x!r}")
        if array.dtype.kind in "iub" and dtype.kind in "fc":
            array = array.astype(dtype)
        return new_variable(array)
    raise TypeError(
        f"{op}: inputs must be Variables, ndarrays or numbers, got {type(x).__name__}"
    )


def as_variable(x: ArrayLike, like: ArrayLike | None = None, op: str = "as_variable") -> Variable:
    """Return `x` as a Variable; numbers take the dtype of the array `like`.

    Parameters
    ----------
    x : ArrayLike
        A Variable is returned as is; anything else becomes a constant Variable
        (one that does not require grad), an ndarray without a copy.
    like : ArrayLike, optional
        If a Variable or ndarray of floating dtype, a Python number or a list of
        integers `x` takes its dtype; without `like` they become float64 (a NumPy
        floating scalar keeps its own: np.float32(2) is float32, as in NumPy).
    op : str
        Name of the calling op, used in error messages.

    Returns
    -------
    Variable

    Raises
    ------
    TypeError
        Naming `op`, if `x` is not a Variable, a numeric ndarray, a number or a
        (rectangular) list of numbers.
    """
    if isinstance(x, Variable):
        return x
    dtype = _reference_dtype((x,) if like is None else (like,))
    return _as_input(x, dtype, op)


def _broadcastable(x0, x1):
    try:
        np.broadcast_shapes(x0._data.shape, x1._data.shape)
    except ValueError:
        return False
    return True


def _refuse_static_methods(cls):
    """A TypeError where a custom Forwarder writes forward/backward as PyTorch's
    torch.autograd.Function does: static methods taking ctx."""
    for method in ("forward", "backward", "taylor"):
        kind = type(cls.__dict__.get(method))
        if kind in (staticmethod, classmethod):
            raise TypeError(
                f"{cls.__name__}.{method} is a {kind.__name__}, as in PyTorch's torch.autograd.Function "
                f"with ctx; a Forwarder's methods are ordinary ones on self: def forward(self, x) on "
                f"arrays and def backward(self, gy) on Variables, the inputs there as self.inputs "
                f"(x, = self.inputs; no ctx.save_for_backward), anything else kept on self "
                f"(self.mask = ...); call it with {cls.__name__}.apply(x)"
            )


def _calls_save_for_backward(forwarder):
    """Whether the forward of `forwarder` calls self.save_for_backward(...) (PyTorch's ctx habit)."""
    forward = getattr(type(forwarder).forward, "__wrapped__", type(forwarder).forward)
    code = getattr(forward, "__code__", None)
    return code is not None and "save_for_backward" in code.co_names


def _forward_error(forwarder, inputs, error):
    """`error` raised inside a forward, restated with the op's name and its inputs."""
    if isinstance(error, saving.NotKept):  # a backward read an array not kept: said there
        return error
    name = type(forwarder).__name__
    message = str(error)
    if "object is not callable" in message and _calls_save_for_backward(forwarder):
        return TypeError(
            f"{name}.forward calls self.save_for_backward(...), PyTorch's ctx method; in gengrad "
            f"save_for_backward is a class attribute naming what backward reads "
            f"(save_for_backward = (\"x\",), optional), and backward finds the inputs in "
            f"self.inputs: drop the call, and write x, = self.inputs in backward"
        )
    if message.startswith(name) or message.lower().startswith(name.lower() + ":"):
        return error
    devices = [backend.device_of(x) for x in inputs]
    if "gpu" in devices and "cpu" in devices:
        where = ", ".join(f"input {i} on the {d.upper()}" for i, d in enumerate(devices))
        return TypeError(
            f"{name}: expected all inputs on one device, got {where}; move them with "
            f"x.to_gpu() (layer.to_gpu() for a model's parameters) or x.to_cpu()"
        )
    broadcast = "broadcast" in message and len(inputs) == 2
    if isinstance(error, ValueError) and broadcast and not _broadcastable(*inputs):
        s0, s1 = inputs[0]._data.shape, inputs[1]._data.shape
        return ValueError(f"{name}: shapes {s0} and {s1} cannot be broadcast together")
    described = ", ".join(f"{x._data.dtype}{x._data.shape}" for x in inputs)
    kind = TypeError if isinstance(error, TypeError) else ValueError
    return kind(f"{name}: {message} (inputs: {described})")


def _forward_result(forwarder, y, index=None):
    """The output `y` of a forward as an ndarray, or a TypeError naming the slip."""
    if isinstance(y, np.generic):
        return np.asarray(y)
    name = type(forwarder).__name__
    what = f"{name}.forward returned" if index is None else f"{name}.forward's output {index} is"
    if y is None:
        raise TypeError(
            f"{what} None: did it forget `return`? It must return an array "
            f"(or a tuple of arrays for several outputs)"
        )
    if isinstance(y, list):
        raise TypeError(
            f"{what} a list; return one array, or a tuple of arrays for several outputs "
            f"(np.stack(list) makes one array of a list)"
        )
    if isinstance(y, Variable):
        raise TypeError(
            f"{what} a Variable: forward works on NumPy arrays (its inputs are arrays); use "
            f"NumPy there, and gengrad ops only in backward"
        )
    if isinstance(y, (bool, int, float)):
        return np.asarray(y)
    if not isinstance(y, np.ndarray) and not backend.is_device_array(y):
        raise TypeError(f"{what} {type(y).__name__}; it must return an ndarray (or a tuple of them)")
    return _plain_array(y, name)


def _reused(forwarder):
    name = type(forwarder).__name__
    return ValueError(
        f"{name}: this Forwarder instance was already used in a recorded call, and it holds "
        f"that call's inputs and saved state; make a new one per call: "
        f"V.Function({name}(...))(x), or {name}.apply(x)"
    )


def kept_by_call(plan, inputs):
    """(the indices of the inputs whose arrays a call on `inputs` keeps, the outputs it keeps: True
    for all, else their indices) of an op whose Forwarder's plan is `plan` and which drops some
    inputs; a per-input declaration keeps what the gradients of the inputs needing one read."""
    by_grad = plan[BY_GRAD]
    if by_grad is None:
        return plan[KEPT], plan[KEEPS_OUTPUTS]
    return by_grad[sum(x.requires_grad << i for i, x in enumerate(inputs))]


def _recorded_inputs(forwarder, inputs):
    """(the Function's record of `inputs`, what its backward sees as `self.inputs`, whether
    it keeps its outputs), for a Forwarder that drops some of its inputs.

    An input whose array the backward does not read is recorded as a stand-in (same
    creator, no data: saving.stand_in), so the caller's Variable and its array are not
    held by the graph; an array of at most saving.SMALL entries stays (a stand-in would
    cost more than it frees), except for a strict Forwarder.  A leaf that requires grad
    stays in the record (its gradient lands on it); a strict Forwarder's backward sees a
    stand-in for it too, so an undeclared read fails whatever the input.
    """
    plan = forwarder._plan
    kept, keeps_outputs = kept_by_call(plan, inputs)
    strict = plan[STRICT]
    links = list(inputs)
    view = list(inputs) if strict else links
    for i, x in enumerate(inputs):
        if i in kept:
            continue
        creator = x.creator
        if creator is None and x.requires_grad:
            if strict:
                view[i] = saving.stand_in(x)
        elif not strict and x._data.size <= _SMALL:
            continue  # a stand-in would cost more than the array it frees
        elif creator is None or creator.output_specs is None:
            links[i] = view[i] = saving.stand_in(x)
        else:
            links[i] = view[i] = saving.stand_in(x, saving.output_index(creator, x))
    links = tuple(links)
    return links, (tuple(view) if strict else links), keeps_outputs


class Function:
    """Runs a Forwarder on Variables and, when a graph is wanted, records it.

    The outputs get this Function as their creator and generation + 1.  The Function
    keeps weak references to its outputs and, of its inputs' and outputs' arrays, only
    those its Forwarder's `save_for_backward` names (variable/saving.py): an
    intermediate array no backward reads is freed as soon as the user drops its
    Variable, and a whole graph as soon as the user drops its last Variable.
    """

    __slots__ = ("forwarder", "inputs", "outputs", "generation", "output_specs", "stamp", "saved",
                 "plan", "cut", "__weakref__")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError(
            f"class {cls.__name__}(Function): in gengrad an op subclasses V.Forwarder (forward on "
            f"arrays, backward on Variables) and is called as V.Function({cls.__name__}())(x), "
            f"or {cls.__name__}.apply(x)"
        )

    def __init__(self, forwarder: Forwarder) -> None:
        if not isinstance(forwarder, Forwarder):
            if isinstance(forwarder, type) and issubclass(forwarder, Forwarder):
                raise TypeError(
                    f"Function wraps a Forwarder instance, got the class {forwarder.__name__}; "
                    f"write V.Function({forwarder.__name__}())(x)"
                )
            raise TypeError(
                f"Function wraps a Forwarder instance, got {type(forwarder).__name__}"
            )
        self.forwarder = forwarder

    @property
    def name(self) -> str:
        """Name of the op (the Forwarder's class name)."""
        return type(self.forwarder).__name__

    def __call__(self, *inputs):
        forwarder = self.forwarder
        # one and two inputs are spelled out: this is the hottest path of the library
        n = len(inputs)
        if n == 1:
            x0, = inputs
            if type(x0) is not Variable and not isinstance(x0, Variable):  # (a Parameter is one)
                x0, = inputs = _as_inputs(inputs, forwarder)
            recording = x0.requires_grad
            generation = x0.generation
        elif n == 2:
            x0, x1 = inputs
            if type(x0) is not Variable or type(x1) is not Variable:
                if not (isinstance(x0, Variable) and isinstance(x1, Variable)):
                    x0, x1 = inputs = _as_inputs(inputs, forwarder)
            recording = x0.requires_grad or x1.requires_grad
            generation = x0.generation if x0.generation > x1.generation else x1.generation
        else:
            for x in inputs:
                if not isinstance(x, Variable):
                    inputs = _as_inputs(inputs, forwarder)
                    break
            recording, generation = False, 0
            for x in inputs:
                recording = recording or x.requires_grad
                if x.generation > generation:
                    generation = x.generation
        if forwarder.inputs:  # recorded once already: its saved state belongs to that call
            raise _reused(forwarder)
        if not (recording and _enable_backprop.get()):
            recording = False
        try:  # (a custom op's forward is _guarded: read-only views, slips restated)
            if n == 1:
                ys = forwarder.forward(x0._data)
            elif n == 2:
                ys = forwarder.forward(x0._data, x1._data)
            else:
                ys = forwarder.forward(*[x._data for x in inputs])
        except (TypeError, ValueError) as error:
            raise _forward_error(forwarder, inputs, error) from error
        kind = type(ys)
        if kind is not np.ndarray:
            if kind is _SCALAR or isinstance(ys, np.generic):  # NumPy's 0-d results
                ys = ys.__array__()  # (a 0-d array of the same dtype, faster than np.asarray)
            elif kind is tuple:
                return self._outputs(inputs, ys, recording, generation)
            elif kind not in _DEVICE_TYPES:  # (a CuPy array passes as an ndarray does)
                ys = _forward_result(forwarder, ys)
        y = Variable.__new__(Variable)
        y._data = ys
        y.name = y._grad = None
        if recording:
            self.generation = generation
            self.stamp = _clock[0]
            self.plan = plan = forwarder._plan  # (one lookup: see Forwarder._plan)
            table = plan[DROPS]  # None: it keeps every input (saving.fast_table)
            if table is None or _keeping_all[0]:
                self.inputs = forwarder.inputs = inputs
                keeps_outputs = plan[KEEPS_OUTPUTS]
            elif n > 2 or plan[STRICT]:
                self.inputs, forwarder.inputs, keeps_outputs = _recorded_inputs(forwarder, inputs)
            else:  # one or two inputs, spelled out: a stand-in for one whose array is not kept
                if plan[BY_GRAD] is not None:  # what it keeps depends on which need a gradient
                    table = table[x1.requires_grad if n == 2 else False][x0.requires_grad]
                drop0, drop1, keeps_outputs = table
                if drop0:
                    c = x0.creator
                    if (c is not None or not x0.requires_grad) and x0._data.size > _SMALL:
                        x0 = _stand_in(x0) if c is None or c.output_specs is None else (
                            _stand_in(x0, output_index(c, x0)))
                        inputs = (x0,) if n == 1 else (x0, x1)
                if drop1 and n == 2:
                    c = x1.creator
                    if (c is not None or not x1.requires_grad) and x1._data.size > _SMALL:
                        x1 = _stand_in(x1) if c is None or c.output_specs is None else (
                            _stand_in(x1, output_index(c, x1)))
                        inputs = (x0, x1)
                self.inputs = forwarder.inputs = inputs
            self.outputs = (weakref.ref(y),)
            self.output_specs = None
            self.saved = ys if keeps_outputs else (_NOTHING if plan[STRICT] else None)
            y.creator = self
            y.generation = generation + 1
            y.requires_grad = ys.dtype.kind in "fc" and not plan[NO_GRADIENT]
        else:
            y.creator = None
            y.generation = 0
            y.requires_grad = False
        return y

    def _outputs(self, inputs, ys, recording, generation):
        """The general case of `__call__`: a forward that returned several arrays."""
        ys = [y if type(y) is np.ndarray or type(y) in _DEVICE_TYPES
              else _forward_result(self.forwarder, y, i) for i, y in enumerate(ys)]
        if not recording:
            return tuple(new_variable(y) for y in ys)
        self.generation = generation
        self.stamp = _clock[0]
        forwarder = self.forwarder
        self.plan = plan = forwarder._plan
        keeps_outputs = plan[KEEPS_OUTPUTS]
        if plan[DROPS] is not None and not _keeping_all[0]:
            self.inputs, forwarder.inputs, keeps_outputs = _recorded_inputs(forwarder, inputs)
        else:
            self.inputs = forwarder.inputs = inputs
        self.saved = tuple(ys) if keeps_outputs else (_NOTHING if plan[STRICT] else None)
        outputs = []
        for i, y in enumerate(ys):
            v = new_variable(y, y.dtype.kind in "fc" and i not in plan[NO_GRADIENT])
            v.creator = self
            v.generation = generation + 1
            outputs.append(v)
        self.outputs = tuple(weakref.ref(v) for v in outputs)
        self.output_specs = [(y.shape, y.dtype) for y in ys]
        return tuple(outputs)

    def __repr__(self) -> str:
        return f"<Function {self.name} generation={self.generation}>"
