"""Shape ops: reshape, transpose, squeeze and friends, broadcasting and its adjoint."""

import math

import numpy as np

from .axes import normalize_axis, shape_tuple, single_axis
from .forwarder import Forwarder, Function, as_variable


def _sum_to_array(x, shape):
    """Sum ndarray `x` over the axes broadcasting added, so the result has `shape`."""
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and x.shape[lead + i] != 1
    )
    y = x.sum(axis=axes, keepdims=True) if axes else x
    if lead:
        y = y.reshape(shape)
    return y


class SumTo(Forwarder):
    """Sum over broadcast axes down to a target shape."""

    def __init__(self, shape):
        self.shape = shape

    def forward(self, x):
        return _sum_to_array(x, self.shape)

    def backward(self, gy):
        x, = self.inputs
        return broadcast_to(gy, x.shape)         # adjoint of a sum is a broadcast


class BroadcastTo(Forwarder):
    """Broadcast to a target shape (a read-only view, nothing copied)."""

    def __init__(self, shape):
        self.shape = shape

    def forward(self, x):
        return np.broadcast_to(x, self.shape)

    def backward(self, gy):
        x, = self.inputs
        return sum_to(gy, x.shape)               # adjoint of a broadcast is a sum


def sum_to(x, shape):
    """Sum `x` over the axes along which `shape` was broadcast to `x.shape`.

    Raises
    ------
    ValueError
        If `shape` does not broadcast to `x.shape`.
    """
    shape = shape_tuple(shape, "sum_to")
    x = as_variable(x, op="sum_to")
    x_shape = x.shape
    if x_shape == shape:
        return x
    if not _broadcasts(shape, x_shape):
        raise ValueError(f"sum_to: shape {shape} does not broadcast to the input's {x_shape}")
    return Function(SumTo(shape))(x)


def broadcast_to(x, shape):
    """Broadcast `x` to `shape` as NumPy does.

    Raises
    ------
    ValueError
        If `x.shape` does not broadcast to `shape`.
    """
    shape = shape_tuple(shape, "broadcast_to")
    x = as_variable(x, op="broadcast_to")
    x_shape = x.shape
    if x_shape == shape:
        return x
    if not _broadcasts(x_shape, shape):
        raise ValueError(f"broadcast_to: input of shape {x_shape} does not broadcast to {shape}")
    return Function(BroadcastTo(shape))(x)


def _broadcasts(small, big):
    """True when an array of shape `small` broadcasts to exactly `big`."""
    if len(small) > len(big):
        return False
    return all(s == 1 or s == b for s, b in zip(small[::-1], big[::-1]))


class Reshape(Forwarder):
    """Same data, new shape."""

    def __init__(self, shape):
        self.shape = shape

    def forward(self, x):
        return x.reshape(self.shape)

    def backward(self, gy):
        x, = self.inputs
        return reshape(gy, x.shape)


class Transpose(Forwarder):
    """Permute the axes."""

    def __init__(self, axes):
        self.axes = axes

    def forward(self, x):
        return x.transpose(self.axes)

    def backward(self, gy):
        inverse = tuple(int(i) for i in np.argsort(self.axes))
        return transpose(gy, inverse)


def reshape(x, *shape):
    """`x` with a new shape of the same size (`reshape(x, 2, 3)` or `reshape(x, (2, 3))`).

    Raises
    ------
    ValueError
        If the new shape does not hold exactly `x.size` elements.
    """
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    shape = shape_tuple(shape, "reshape")
    x = as_variable(x, op="reshape")
    x_shape = x.shape
    if x_shape == shape:
        return x
    size = math.prod(x_shape)
    known = math.prod([n for n in shape if n != -1])
    unknown = shape.count(-1)
    if unknown > 1 or any(n < -1 for n in shape) or (
        size != known if unknown == 0 else (known == 0 or size % known)
    ):
        raise ValueError(f"reshape: cannot reshape an input of shape {x_shape} into {shape}")
    if unknown:
        shape = tuple(size // known if n == -1 else n for n in shape)
    return Function(Reshape(shape))(x)


def transpose(x, axes=None):
    """Permute the axes of `x`; `axes=None` reverses them, as in NumPy.

    Raises
    ------
    ValueError
        If `axes` is not a permutation of the input's axes.
    """
    x = as_variable(x, op="transpose")
    ndim = x.ndim
    if axes is None:
        axes = tuple(range(ndim))[::-1]
    else:
        axes = shape_tuple(axes, "transpose")
        if sorted(a % ndim if -ndim <= a < ndim else a for a in axes) != list(range(ndim)):
            raise ValueError(
                f"transpose: axes {axes} are not a permutation of the axes of an input "
                f"of shape {x.shape}"
            )
        axes = tuple(a % ndim for a in axes)
    if axes == tuple(range(ndim)):
        return x
    return Function(Transpose(axes))(x)


def flatten(x):
    """Keep axis 0 and flatten the rest: shape (n, ...) becomes (n, m).

    Raises
    ------
    ValueError
        If `x` is 0-d.
    """
    x = as_variable(x, op="flatten")
    x_shape = x.shape
    if not x_shape:
        raise ValueError("flatten: the input is 0-d; it needs at least one axis to keep")
    return reshape(x, (x_shape[0], math.prod(x_shape[1:])))


def expand_dims(x, axis):
    """Insert a size-1 axis at position `axis` (negative counts from the end of the result)."""
    x = as_variable(x, op="expand_dims")
    x_shape = x.shape
    axis = single_axis(axis, len(x_shape) + 1, "expand_dims", x_shape)
    return reshape(x, x_shape[:axis] + (1,) + x_shape[axis:])


def squeeze(x, axis=None):
    """Remove size-1 axes: all of them, or those in `axis`.

    Raises
    ------
    ValueError
        If an axis in `axis` does not have size 1.
    """
    x = as_variable(x, op="squeeze")
    x_shape = x.shape
    axes = normalize_axis(axis, len(x_shape), "squeeze", x_shape)
    if axes is None:
        axes = tuple(i for i, n in enumerate(x_shape) if n == 1)
    for a in axes:
        if x_shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} of the input of shape {x_shape} is not of size 1")
    return reshape(x, tuple(n for i, n in enumerate(x_shape) if i not in axes))
