"""Shape ops: reshape, transpose, squeeze and friends, broadcasting and its adjoint."""

import math
from collections.abc import Sequence

import numpy as np

from .. import series
from ..axes import broadcasts_to, normalize_axis, shape_tuple, single_axis
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike, Axis


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

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return broadcast_to(gy, x.shape)         # adjoint of a sum is a broadcast

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        shape = self.inputs[0]._data.shape
        return gy if gy.shape == shape else np.broadcast_to(gy, shape)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x):
        return series.map_linear(x, lambda c: _sum_to_array(c, self.shape))   # linear: each summed


class BroadcastTo(Forwarder):
    """Broadcast to a target shape (a read-only view, nothing copied)."""

    def __init__(self, shape):
        self.shape = shape

    def forward(self, x):
        return np.broadcast_to(x, self.shape)

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return sum_to(gy, x.shape)               # adjoint of a broadcast is a sum

    def _backward_arrays(self, gy):
        return _sum_to_array(gy, self.inputs[0]._data.shape)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x):
        return series.map_linear(x, lambda c: np.broadcast_to(c, self.shape))  # linear: each broadcast


def sum_to(x: ArrayLike, shape: int | Sequence[int]) -> Variable:
    """Sum `x` over the axes along which `shape` was broadcast to `x.shape`.

    The adjoint of `broadcast_to`; `x` itself is returned when it already has `shape`.

    Parameters
    ----------
    x : ArrayLike
    shape : int or sequence of ints
        The target shape; it must broadcast to `x.shape`.

    Returns
    -------
    Variable
        Of shape `shape`.

    Raises
    ------
    TypeError
        If `shape` is not an int or a sequence of ints, or `x` is not a Variable, a numeric ndarray,
        a number or a list of numbers.
    ValueError
        If `shape` does not broadcast to `x.shape`.
    """
    shape = shape_tuple(shape, "sum_to")
    x = as_variable(x, op="sum_to")
    x_shape = x.shape
    if x_shape == shape:
        return x
    if not broadcasts_to(shape, x_shape):
        raise ValueError(f"sum_to: shape {shape} does not broadcast to the input's {x_shape}")
    return Function(SumTo(shape))(x)


def broadcast_to(x: ArrayLike, shape: int | Sequence[int]) -> Variable:
    """Broadcast `x` to `shape` as NumPy does.

    `x` itself is returned when it already has `shape`.

    Parameters
    ----------
    x : ArrayLike
    shape : int or sequence of ints
        The target shape; `x.shape` must broadcast to it.

    Returns
    -------
    Variable
        Of shape `shape`.

    Raises
    ------
    TypeError
        If `shape` is not an int or a sequence of ints, or `x` is not a Variable, a numeric ndarray,
        a number or a list of numbers.
    ValueError
        If `x.shape` does not broadcast to `shape`.
    """
    shape = shape_tuple(shape, "broadcast_to")
    x = as_variable(x, op="broadcast_to")
    x_shape = x.shape
    if x_shape == shape:
        return x
    if not broadcasts_to(x_shape, shape):
        raise ValueError(f"broadcast_to: input of shape {x_shape} does not broadcast to {shape}")
    return Function(BroadcastTo(shape))(x)


class Reshape(Forwarder):
    """Same data, new shape."""

    def __init__(self, shape):
        self.shape = shape

    def forward(self, x):
        return x.reshape(self.shape)

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return reshape(gy, x.shape)

    def _backward_arrays(self, gy):
        return gy.reshape(self.inputs[0]._data.shape)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x):
        return series.map_linear(x, lambda c: c.reshape(self.shape))   # linear: each reshaped


class Transpose(Forwarder):
    """Permute the axes."""

    def __init__(self, axes):
        self.axes = axes

    def forward(self, x):
        return x.transpose(self.axes)

    save_for_backward = ()

    def backward(self, gy):
        return transpose(gy, self._inverse())

    def _backward_arrays(self, gy):
        return gy.transpose(self._inverse())

    def _inverse(self):
        return tuple(int(i) for i in np.argsort(self.axes))

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x):
        return series.map_linear(x, lambda c: c.transpose(self.axes))  # linear: each transposed


def reshape(x: ArrayLike, *shape: int | Sequence[int]) -> Variable:
    """`x` with a new shape of the same size (`reshape(x, 2, 3)` or `reshape(x, (2, 3))`).

    `x` itself is returned when it already has the shape.

    Parameters
    ----------
    x : ArrayLike
    *shape : ints, or one sequence of ints
        The new shape; one entry may be -1, inferred from the size of `x`.

    Returns
    -------
    Variable
        The data of `x` in the new shape.

    Raises
    ------
    TypeError
        If the shape is not made of ints, or `x` is not a Variable, a numeric ndarray, a number or a
        list of numbers.
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


def _swap_hint(axes, ndim):
    """For two distinct axes of an array of more than two (PyTorch's x.transpose(i, j)), what
    gengrad calls that swap; else nothing."""
    if len(axes) != 2 or ndim <= 2 or not all(-ndim <= a < ndim for a in axes):
        return ""
    i, j = axes
    if i % ndim == j % ndim:
        return ""
    return (f"; transpose takes the whole permutation, as NumPy's does, and PyTorch's "
            f"x.transpose({i}, {j}), which swaps two axes, is x.swapaxes({i}, {j})")


def transpose(x: ArrayLike, axes: Sequence[int] | None = None) -> Variable:
    """Permute the axes of `x`; `axes=None` reverses them, as in NumPy.

    `x` itself is returned when the permutation is the identity.

    Parameters
    ----------
    x : ArrayLike
    axes : sequence of ints, optional
        A permutation of the axes of `x` (negatives allowed): axis i of the result is
        axis `axes[i]` of `x`.

    Returns
    -------
    Variable
        The data of `x` with its axes permuted.

    Raises
    ------
    TypeError
        If `axes` is not made of ints, or `x` is not a Variable, a numeric ndarray, a number or a
        list of numbers.
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
                f"of shape {x.shape}{_swap_hint(axes, ndim)}"
            )
        axes = tuple(a % ndim for a in axes)
    if axes == tuple(range(ndim)):
        return x
    return Function(Transpose(axes))(x)


def flatten(x: ArrayLike) -> Variable:
    """Keep axis 0 and flatten the rest: shape (n, ...) becomes (n, m).

    Parameters
    ----------
    x : ArrayLike
        At least 1-D; a 1-D input of length n becomes (n, 1).

    Returns
    -------
    Variable
        Of shape (x.shape[0], product of the other dimensions).

    Raises
    ------
    TypeError
        If `x` is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If `x` is 0-d.
    """
    x = as_variable(x, op="flatten")
    x_shape = x.shape
    if not x_shape:
        raise ValueError("flatten: the input is 0-d; it needs at least one axis to keep")
    return reshape(x, (x_shape[0], math.prod(x_shape[1:])))


def expand_dims(x: ArrayLike, axis: int | tuple[int, ...]) -> Variable:
    """Insert size-1 axes at the positions `axis` of the result (negatives count from its end),
    as np.expand_dims.

    Parameters
    ----------
    x : ArrayLike
    axis : int or tuple of ints
        Positions of the new axes in the result, each from -(x.ndim + n) to x.ndim + n - 1
        for n new axes.

    Returns
    -------
    Variable
        The data of `x` with n more axes.

    Raises
    ------
    TypeError
        If `axis` is not an int or a tuple of ints, or `x` is not a Variable, a numeric
        ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated.
    """
    x = as_variable(x, op="expand_dims")
    x_shape = x.shape
    if isinstance(axis, (tuple, list)):
        axes = normalize_axis(tuple(axis), len(x_shape) + len(axis), "expand_dims", x_shape)
    else:
        axes = (single_axis(axis, len(x_shape) + 1, "expand_dims", x_shape),)
    shape = iter(x_shape)
    return reshape(x, tuple(1 if i in axes else next(shape) for i in range(len(x_shape) + len(axes))))


def squeeze(x: ArrayLike, axis: Axis = None) -> Variable:
    """Remove size-1 axes: all of them, or those in `axis`.

    Parameters
    ----------
    x : ArrayLike
    axis : int, tuple of ints or None
        The axes to remove (negatives allowed); None removes every size-1 axis.

    Returns
    -------
    Variable
        The data of `x` without those axes.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, or `x` is not a Variable, a numeric
        ndarray, a number or a list of numbers.
    ValueError
        If an axis in `axis` is out of range, repeated or not of size 1.
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
