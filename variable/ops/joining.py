"""Joining and splitting along an axis: concat, stack, split."""

import operator
from collections.abc import Sequence

import numpy as np

from .. import series
from ..axes import single_axis
from ..backend import get_array_module, is_device_array
from ..forwarder import Forwarder, Function, Variable, _on_device, _reference_dtype, as_variable
from ..types import ArrayLike


def _coefficients(xs):
    """Coefficient k of every input, for each k: zeros for an input constant along t."""
    n = max(len(x) for x in xs)
    return [[x[k] if k < len(x) else np.zeros_like(x[0]) for x in xs] for k in range(n)]


def _used(coefficients):
    """Whether the pass uses coefficient k (no input's is None: variable/series.py, `wanted`)."""
    return all(c is not None for c in coefficients)


class Concat(Forwarder):
    """Join inputs along an existing axis."""

    def __init__(self, axis):
        self.axis = axis

    def forward(self, *xs):
        return np.concatenate(xs, axis=self.axis)

    save_for_backward = ()

    def backward(self, gy):
        return split(gy, self._bounds(), self.axis)

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        return tuple(np.split(gy, self._bounds(), axis=self.axis))

    def _bounds(self):
        return [int(b) for b in np.cumsum([x.shape[self.axis] for x in self.inputs])[:-1]]

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, *xs):
        return [np.concatenate(c, axis=self.axis) if _used(c) else None
                for c in _coefficients(xs)]                  # linear: joined per k


class Stack(Forwarder):
    """Join inputs along a new axis."""

    def __init__(self, axis):
        self.axis = axis

    def forward(self, *xs):
        return np.stack(xs, axis=self.axis)

    save_for_backward = ()

    def backward(self, gy):
        return Function(Unstack(self.axis))(gy)            # one op for every input's slice

    def _backward_arrays(self, gy):
        return Unstack(self.axis).forward(gy)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, *xs):
        return [np.stack(c, axis=self.axis) if _used(c) else None
                for c in _coefficients(xs)]                  # linear: stacked per k


class Unstack(Forwarder):
    """Cut an input along `axis` into its slices, the axis dropped (views): stack's adjoint."""

    def __init__(self, axis):
        self.axis = axis

    def forward(self, x):
        before = (slice(None),) * self.axis
        return tuple(x[(*before, i, Ellipsis)] for i in range(x.shape[self.axis]))   # (0-d: arrays)

    save_for_backward = ()

    def backward(self, *gys):
        return Function(Stack(self.axis))(*gys)

    def _backward_arrays(self, *gys):  # `backward` on arrays, for passes that record nothing
        return np.stack(gys, axis=self.axis)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x):
        before, n = (slice(None),) * self.axis, len(self.outputs)
        pieces = series.map_linear(x, lambda c: [c[(*before, i, Ellipsis)] for i in range(n)])
        return tuple(list(y) for y in zip(*pieces))  # linear: each cut, regrouped per output


class Split(Forwarder):
    """Cut an input along an axis into several outputs."""

    def __init__(self, sections, axis):
        self.sections, self.axis = sections, axis

    def forward(self, x):
        return tuple(np.split(x, self.sections, axis=self.axis))

    save_for_backward = ()

    def backward(self, *gys):
        return concat(gys, self.axis)

    def _backward_arrays(self, *gys):
        return np.concatenate(gys, axis=self.axis)

    taylor_records = True

    def taylor(self, x):
        pieces = series.map_linear(x, lambda c: np.split(c, self.sections, axis=self.axis))
        return tuple(list(y) for y in zip(*pieces))  # linear: each cut, regrouped per output


def _as_sequence(xs, op):
    """The inputs of `op` as a list of Variables (numbers take the first array's dtype)."""
    if not isinstance(xs, (list, tuple)) or len(xs) == 0:
        raise TypeError(
            f"{op}: expects a non-empty list or tuple of arrays/Variables, got {type(xs).__name__}"
        )
    like = next((x for x in xs if isinstance(x, (Variable, np.ndarray)) or is_device_array(x)), None)
    if like is not None and type(getattr(like, "_data", like)) is not np.ndarray:
        # GPU data: numbers and lists are made there, a NumPy array as in Function
        xp, dtype = get_array_module(like), _reference_dtype((like,))
        return [x if isinstance(x, Variable) else _on_device(x, dtype, op, xp, like) for x in xs]
    return [as_variable(x, like=like, op=op) for x in xs]


def concat(xs: Sequence[ArrayLike], axis: int = 0) -> Variable:
    """Join a sequence of arrays along an existing `axis`.

    Parameters
    ----------
    xs : list or tuple of ArrayLike
        Non-empty; Python numbers take the dtype of the first array among them.
    axis : int
        The axis to join along (negatives allowed).

    Returns
    -------
    Variable
        The joined array; its length along `axis` is the sum of the inputs'.

    Raises
    ------
    TypeError
        If `xs` is not a non-empty list or tuple, an input is not array-like, or `axis` is
        not an int.
    ValueError
        If the inputs are 0-d, differ in number of dimensions or in any axis but `axis`,
        or `axis` is out of range.
    """
    xs = _as_sequence(xs, "concat")
    shapes = [x.shape for x in xs]
    ndim = len(shapes[0])
    if any(len(s) != ndim for s in shapes) or ndim == 0:
        raise ValueError(f"concat: inputs must share a number of dimensions >= 1, got {shapes}")
    axis = single_axis(axis, ndim, "concat", shapes[0])
    if any(s[:axis] + s[axis + 1:] != shapes[0][:axis] + shapes[0][axis + 1:] for s in shapes):
        raise ValueError(f"concat: shapes {shapes} differ outside axis {axis}")
    return Function(Concat(axis))(*xs)


def stack(xs: Sequence[ArrayLike], axis: int = 0) -> Variable:
    """Join a sequence of same-shaped arrays along a new `axis`.

    Parameters
    ----------
    xs : list or tuple of ArrayLike
        Non-empty; Python numbers take the dtype of the first array among them.
    axis : int
        Position of the new axis in the result, from -(ndim + 1) to ndim.

    Returns
    -------
    Variable
        With one more axis than the inputs, of length `len(xs)`.

    Raises
    ------
    TypeError
        If `xs` is not a non-empty list or tuple, an input is not array-like, or `axis` is
        not an int.
    ValueError
        If the inputs differ in shape or `axis` is out of range.
    """
    xs = _as_sequence(xs, "stack")
    shapes = [x.shape for x in xs]
    if any(s != shapes[0] for s in shapes):
        raise ValueError(f"stack: all inputs must have the same shape, got {shapes}")
    axis = single_axis(axis, len(shapes[0]) + 1, "stack", shapes[0])
    return Function(Stack(axis))(*xs)


def split(x: ArrayLike, sections: int | Sequence[int], axis: int = 0) -> tuple[Variable, ...]:
    """Split `x` along `axis` into `sections` equal parts, or at the given indices.

    Returns a tuple of Variables (one multi-output Function in the graph).

    Parameters
    ----------
    x : ArrayLike
        At least 1-D.
    sections : int or sequence of ints
        The number of equal parts, or the indices along `axis` at which to cut (as in
        np.split).
    axis : int
        The axis to split along (negatives allowed).

    Returns
    -------
    tuple of Variable
        The parts, in order.

    Raises
    ------
    TypeError
        If `sections` is not an int or a sequence of ints, `axis` is not an int, or `x` is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If `x` is 0-d, `axis` is out of range, or an int `sections` does not divide the axis.
    """
    x = as_variable(x, op="split")
    shape = x.shape
    if not shape:
        raise ValueError("split: the input is 0-d; it needs an axis to split along")
    axis = single_axis(axis, len(shape), "split", shape)
    if isinstance(sections, (int, np.integer)) and not isinstance(sections, bool):
        if sections <= 0 or shape[axis] % sections:
            raise ValueError(
                f"split: axis {axis} of the input of shape {shape} does not split into "
                f"{sections} equal parts"
            )
        sections = int(sections)
    else:
        try:
            sections = [operator.index(i) for i in sections]
        except TypeError:
            raise TypeError(
                f"split: sections must be an int or a sequence of ints, got {sections!r}"
            ) from None
        bounds = [0, *sections, shape[axis]]
        starts = [slice(b, None).indices(shape[axis])[0] for b in bounds]   # as slicing reads them
        if any(a > b for a, b in zip(starts, starts[1:])):  # pieces overlap: not one cut of x
            before = (slice(None),) * axis
            return tuple(x[before + (slice(lo, hi),)] for lo, hi in zip(bounds, bounds[1:]))
    return Function(Split(sections, axis))(x)
