"""Indexing: get_item with NumPy's rules; its backward scatters with accumulation."""

import numpy as np

from .forwarder import Forwarder, Function, Variable, as_variable


def _plain_index(index):
    """Replace Variables and lists inside an index by ndarrays (constants)."""
    if isinstance(index, Variable):
        return index.data
    if isinstance(index, list):
        try:
            return np.asarray(index)
        except ValueError:
            raise IndexError(f"get_item: the index list {index!r} is not rectangular") from None
    if isinstance(index, tuple):
        return tuple(_plain_index(i) for i in index)
    return index


def _may_repeat(index):
    """True when the index holds integer arrays, which may pick an element twice."""
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, np.ndarray) and i.dtype.kind in "iu" for i in parts)


class GetItem(Forwarder):
    """x[index]."""

    def __init__(self, index):
        self.index = index

    def forward(self, x):
        return x[self.index]

    def backward(self, gy):
        x, = self.inputs
        return Function(GetItemGrad(self.index, x.shape))(gy)


class GetItemGrad(Forwarder):
    """Scatter gy into zeros of the input's shape; repeated indices add up."""

    def __init__(self, index, shape):
        self.index, self.shape = index, shape

    def forward(self, gy):
        gx = np.zeros(self.shape, dtype=gy.dtype)
        if _may_repeat(self.index):
            np.add.at(gx, self.index, gy)
        else:
            gx[self.index] = gy
        return gx

    def backward(self, ggx):
        return get_item(ggx, self.index)           # the adjoint of a scatter is a gather


def get_item(x, index):
    """x[index] with NumPy's indexing: ints, slices, Ellipsis, None, boolean masks and
    integer arrays.  Repeated integer indices accumulate their gradients.

    Raises
    ------
    IndexError
        If the index does not fit the input's shape.
    """
    x = as_variable(x, op="get_item")
    index = _plain_index(index)
    try:
        return Function(GetItem(index))(x)
    except IndexError as error:
        raise IndexError(f"get_item: {error} (input of shape {x.shape})") from None
