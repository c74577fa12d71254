"""Shape ops: broadcasting and its adjoint, summing back to a shape."""

import numpy as np

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


def _shape_tuple(shape, op):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(int(n) for n in shape)
    except TypeError:
        raise TypeError(f"{op}: shape must be an int or a tuple of ints, got {shape!r}") from None


def sum_to(x, shape):
    """Sum `x` over the axes along which `shape` was broadcast to `x.shape`.

    Raises
    ------
    ValueError
        If `shape` does not broadcast to `x.shape`.
    """
    shape = _shape_tuple(shape, "sum_to")
    x_shape = np.shape(x.data if hasattr(x, "data") else x)
    if x_shape == shape:
        return as_variable(x)
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
    shape = _shape_tuple(shape, "broadcast_to")
    x_shape = np.shape(x.data if hasattr(x, "data") else x)
    if x_shape == shape:
        return as_variable(x)
    if not _broadcasts(x_shape, shape):
        raise ValueError(f"broadcast_to: input of shape {x_shape} does not broadcast to {shape}")
    return Function(BroadcastTo(shape))(x)


def _broadcasts(small, big):
    """True when an array of shape `small` broadcasts to exactly `big`."""
    if len(small) > len(big):
        return False
    return all(s == 1 or s == b for s, b in zip(small[::-1], big[::-1]))
