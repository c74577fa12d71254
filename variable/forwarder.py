"""Forwarder (what an op computes) and Function (how it joins the graph)."""

import weakref

import numpy as np

from . import config
from .variable import Variable

_NUMERIC_KINDS = "biufc"


class Forwarder:
    """Base class of every op: `forward` on ndarrays, `backward` on Variables.

    `Function` sets `self.inputs` (a tuple of Variables) when it records the op, and
    `self.outputs` (a tuple of Variables, None for an output nobody kept) for the
    duration of `backward`.  Subclasses may keep any other state saved in `forward`.
    """

    inputs = ()
    outputs = ()

    def forward(self, *xs):
        """Compute the outputs (ndarray or tuple of ndarrays) from input ndarrays."""
        raise NotImplementedError(f"{type(self).__name__}.forward is not defined")

    def backward(self, *gys):
        """Gradients of the inputs (Variable, tuple, None for no gradient) from the outputs'."""
        raise NotImplementedError(f"{type(self).__name__}.backward is not defined")


def new_variable(data, requires_grad=False):
    """Make a Variable from an ndarray we already trust (no validation, no copy)."""
    v = Variable.__new__(Variable)
    v.data = data
    v.name = None
    v.grad = None
    v.creator = None
    v.generation = 0
    v.requires_grad = requires_grad
    return v


def _reference_dtype(inputs):
    """dtype that Python scalars among `inputs` should take: that of the first array."""
    for x in inputs:
        if isinstance(x, Variable):
            return x.data.dtype
        if isinstance(x, np.ndarray):
            return x.dtype
    return np.dtype(np.float64)


def _as_input(x, dtype, op):
    """Turn one op input into a Variable; constants do not require grad."""
    if isinstance(x, Variable):
        return x
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in _NUMERIC_KINDS:
            raise TypeError(f"{op}: inputs must be numeric, got an array of dtype {x.dtype}")
        return new_variable(x)
    if isinstance(x, (bool, int, float, complex, np.number, np.bool_)):
        if dtype.kind in "fc" or isinstance(x, (bool, int, np.bool_, np.integer)):
            return new_variable(np.asarray(x, dtype=np.result_type(dtype, x)))
        return new_variable(np.asarray(x, dtype=np.float64))
    if isinstance(x, (list, tuple)):
        try:
            array = np.asarray(x)
        except ValueError as error:
            raise TypeError(f"{op}: cannot turn {x!r} into an array ({error})") from None
        if array.dtype.kind not in _NUMERIC_KINDS:
            raise TypeError(f"{op}: a list input must hold numbers only, got {x!r}")
        if array.dtype.kind in "iub" and dtype.kind in "fc":
            array = array.astype(dtype)
        return new_variable(array)
    raise TypeError(
        f"{op}: inputs must be Variables, ndarrays or numbers, got {type(x).__name__}"
    )


def as_variable(x, like=None):
    """Return `x` as a Variable; numbers take the dtype of the array `like`."""
    if isinstance(x, Variable):
        return x
    dtype = np.dtype(np.float64) if like is None else _reference_dtype((like,))
    return _as_input(x, dtype, "as_variable")


class Function:
    """Runs a Forwarder on Variables and, when a graph is wanted, records it.

    The outputs get this Function as their creator and generation + 1; the Function
    keeps its inputs and only weak references to its outputs, so a graph is freed as
    soon as the user drops its last Variable.
    """

    __slots__ = ("forwarder", "inputs", "outputs", "generation", "output_specs", "__weakref__")

    def __init__(self, forwarder):
        if not isinstance(forwarder, Forwarder):
            raise TypeError(
                f"Function wraps a Forwarder instance, got {type(forwarder).__name__}"
            )
        self.forwarder = forwarder

    @property
    def name(self):
        """Name of the op (the Forwarder's class name)."""
        return type(self.forwarder).__name__

    def __call__(self, *inputs):
        for x in inputs:
            if type(x) is not Variable:
                dtype = _reference_dtype(inputs)
                name = type(self.forwarder).__name__
                inputs = tuple(_as_input(x, dtype, name) for x in inputs)
                break
        forwarder = self.forwarder
        ys = forwarder.forward(*[x.data for x in inputs])
        if isinstance(ys, tuple):
            ys = [y if type(y) is np.ndarray else np.asarray(y) for y in ys]
            single = False
        else:
            ys = [ys if type(ys) is np.ndarray else np.asarray(ys)]
            single = True

        recording = config._enable_backprop.get() and any(x.requires_grad for x in inputs)
        if not recording:
            outputs = [new_variable(y) for y in ys]
            return outputs[0] if single else tuple(outputs)

        generation = max([x.generation for x in inputs])
        self.generation = generation
        self.inputs = forwarder.inputs = inputs
        outputs = []
        for y in ys:
            v = new_variable(y, y.dtype.kind in "fc")
            v.creator = self
            v.generation = generation + 1
            outputs.append(v)
        self.outputs = [weakref.ref(v) for v in outputs]
        self.output_specs = None if single else [(y.shape, y.dtype) for y in ys]
        return outputs[0] if single else tuple(outputs)

    def __repr__(self):
        return f"<Function {self.name} generation={self.generation}>"
