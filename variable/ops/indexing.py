"""Indexing: get_item with NumPy's rules; its backward scatters with accumulation."""

from typing import Any

import numpy as np

from .. import series
from ..backend import get_array_module, is_device_array, scatter_add
from ..directions import Directions, shifted
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike


def _plain_index(index, x):
    """Replace Variables and lists inside an index by arrays (constants) on the device of
    the input `x`: a NumPy index array goes to the GPU with GPU data, as CuPy itself moves
    one; a GPU index array with CPU data is refused."""
    if isinstance(index, Variable):
        index = index.data
    if isinstance(index, list):
        try:
            index = np.asarray(index)
        except ValueError:
            raise IndexError(f"get_item: the index list {index!r} is not rectangular") from None
    if isinstance(index, tuple):
        return tuple(_plain_index(i, x) for i in index)
    if type(index) is np.ndarray:
        if type(x._data) is not np.ndarray:
            return get_array_module(x).asarray(index)
    elif not isinstance(index, (int, slice)) and type(x._data) is np.ndarray and is_device_array(index):
        raise TypeError(
            "get_item: expected the index on the device of the input, got an input on the CPU "
            "and an index array on the GPU; move the index with V.backend.to_cpu(index), or "
            "the input with x.to_gpu()"
        )
    return index


def _may_repeat(index):
    """True when the index holds integer arrays, which may pick an element twice."""
    parts = index if isinstance(index, tuple) else (index,)
    return any(
        (isinstance(i, np.ndarray) or is_device_array(i)) and i.dtype.kind in "iu" for i in parts
    )


class Slice:
    """The gradient of x from one x[index]: gy at `index`, zeros elsewhere, not yet built.

    The backward pass adds it into x's one gradient buffer in place (the cost of gy, not of
    x), and with create_graph sums every slice of x in one ScatterSum node, so T slices of
    one array (an RNN's x[:, t], a loop over g[:, i]) cost linear time, not T full arrays.
    """

    __slots__ = ("index", "gy", "shape")

    def __init__(self, index, gy, shape):
        self.index, self.gy, self.shape = index, gy, shape

    def add_into(self, buffer):
        """buffer[index] += gy, repeated indices adding up."""
        if _may_repeat(self.index):
            scatter_add(buffer, self.index, self.gy._data)
        else:
            buffer[self.index] += self.gy._data


class GetItem(Forwarder):
    """x[index]."""

    def __init__(self, index):
        self.index = index

    def forward(self, x):
        return x[self.index]

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return Slice(self.index, gy, x.shape)          # gy scattered at index (by the engine)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x):
        return series.map_linear(x, lambda c: c[self.index])   # linear: each coefficient indexed


class GetItemGrad(Forwarder):
    """Scatter gy into zeros of the input's shape; repeated indices add up (`unique`: the
    index picks no element twice, a permutation's say, so a plain assignment will do)."""

    def __init__(self, index, shape, unique=False):
        self.index, self.shape, self.unique = index, shape, unique

    def forward(self, gy):
        gx = get_array_module(gy).zeros(self.shape, dtype=gy.dtype)
        if not self.unique and _may_repeat(self.index):
            scatter_add(gx, self.index, gy)
        else:
            gx[self.index] = gy
        return gx

    save_for_backward = ()

    def backward(self, ggx):
        return get_item(ggx, self.index)           # the adjoint of a scatter is a gather

    taylor_records = True

    def taylor(self, gy):
        gx, = self.outputs                              # linear: each coefficient scattered
        return [gx._data] + [self._scattered(c) for c in gy[1:]]

    def _scattered(self, c):
        if not isinstance(c, Directions):
            return self._scatter(c, self.index, self.shape)
        index = shifted(self.index)
        if index is None:                  # (an index that moves the directions' axis: refused,
            return self.forward(c)         # the rule then runs once per direction)
        return Directions(self._scatter(c.full(), index, (c.count, *self.shape)), self.shape, c.weights)

    def _scatter(self, c, index, shape):
        """c laid at `index` in zeros of `shape`: on an array at once, on a Variable (a
        recording pass) as this op recorded again."""
        if isinstance(c, Variable):
            return Function(type(self)(index, shape, self.unique))(c)
        return type(self)(index, shape, self.unique).forward(c)


class ScatterSum(Forwarder):
    """Dense gradients plus slices scattered at their indices: one buffer for every gradient
    that reached one Variable (the engine makes it; see Slice)."""

    def __init__(self, shape, indices, dense):
        self.shape, self.indices, self.dense = shape, indices, dense

    def forward(self, *gs):
        dense, parts = gs[:self.dense], gs[self.dense:]
        if dense:
            total = dense[0].astype(parts[0].dtype if parts else dense[0].dtype, copy=True)
            for g in dense[1:]:
                total += g
        else:
            total = get_array_module(parts[0]).zeros(self.shape, dtype=parts[0].dtype)
        for index, part in zip(self.indices, parts):
            if _may_repeat(index):
                scatter_add(total, index, part)
            else:
                total[index] += part
        return total

    save_for_backward = ()
    taylor_records = True   # linear: a coefficient that is a Variable is scattered by this op, recorded

    def backward(self, gy):
        return (gy,) * self.dense + tuple(get_item(gy, index) for index in self.indices)

    def taylor(self, *gs):                              # linear: each coefficient summed
        order = max(len(g) for g in gs) - 1
        zero = [None] * len(gs)
        for i, g in enumerate(gs):
            if len(g) <= order:
                zero[i] = np.zeros_like(g[0])           # (np's: g_0 may be a Variable)
        return [self._coefficient([g[k] if k < len(g) else zero[i] for i, g in enumerate(gs)])
                for k in range(order + 1)]

    def _coefficient(self, cs):
        several = next((c for c in cs if isinstance(c, Directions)), None)
        if several is None:
            return _scattered(ScatterSum(self.shape, self.indices, self.dense), cs)
        indices = [shifted(index) for index in self.indices]   # each direction's sum at once
        if any(index is None for index in indices):
            return self.forward(*cs)                     # (refused: run once per direction)
        lifted = [c.full() if isinstance(c, Directions) else np.broadcast_to(c, (several.count, *c.shape))
                  for c in cs]                          # (np.broadcast_to records on a Variable)
        total = _scattered(ScatterSum((several.count, *self.shape), indices, self.dense), lifted)
        return Directions(total, self.shape, several.weights)


def _scattered(op, cs):
    """`op` (a fresh ScatterSum) on the coefficients `cs`: on arrays, its forward; where one is
    a Variable (a recording pass), the op itself, recorded."""
    if any(isinstance(c, Variable) for c in cs):
        return Function(op)(*cs)
    return op.forward(*cs)


def summed(contributions):
    """One Variable for a list of gradients of one Variable, Variables and at least one
    Slice, recorded (it runs while create_graph records)."""
    dense = [g for g in contributions if type(g) is not Slice]
    parts = [g for g in contributions if type(g) is Slice]
    op = ScatterSum(parts[0].shape, [p.index for p in parts], len(dense))
    return Function(op)(*dense, *[p.gy for p in parts])


def get_item(x: ArrayLike, index: Any) -> Variable:
    """x[index] with NumPy's indexing; repeated integer indices accumulate their gradients.

    Ints, slices, Ellipsis, None, boolean masks and integer arrays all work as in NumPy.

    Parameters
    ----------
    x : ArrayLike
    index : int, slice, Ellipsis, None, ndarray, list, Variable or a tuple of these
        Any NumPy index; lists and Variables in it are constants, taken as ndarrays
        (on the GPU with GPU data, where a NumPy index array goes too, as in CuPy).

    Returns
    -------
    Variable
        x[index].

    Raises
    ------
    TypeError
        If `x` is not a Variable, a numeric ndarray, a number or a list of numbers, or an
        index array is on the GPU and `x` on the CPU.
    IndexError
        If the index does not fit the input's shape (or a list in it is ragged).
    """
    x = as_variable(x, op="get_item")
    index = _plain_index(index, x)
    try:
        return Function(GetItem(index))(x)
    except IndexError as error:
        raise IndexError(f"get_item: {error} (input of shape {x.shape})") from None
