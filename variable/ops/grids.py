"""Grids and broadcasting: meshgrid and broadcast_arrays.

Both are composites of shape.py's `reshape` and `broadcast_to`, so their gradients (sums
back to each input's shape) and Taylor rules (each coefficient reshaped and broadcast) are
those ops' own.  Each returns a tuple of Variables, one per input, as NumPy 2 does.

An input that is not a Variable (a NumPy array, a list, a number) comes back as a Variable
that does not require grad, of NumPy's dtype for it: the results never meet in an op, so a
number does not take the dtype of the other inputs (broadcast_arrays(x32, 2.5) gives a
float64 constant, as NumPy does).

The results share the inputs' data (views, the broadcast ones read-only), and meshgrid
copies nothing even with copy=True: gengrad's ops never write into a Variable's data, so no
copy is needed to keep the inputs intact (make a new Variable, e.g. `g + 0`, before
changing a result in place under no_grad).
"""

import numpy as np

from ..backend import constant_like, device_of, is_device_array
from ..forwarder import Variable, as_variable
from ..types import ArrayLike
from .shape import broadcast_to, reshape


def _inputs(arrays, op):
    """Each input as a Variable; one that is not a Variable takes NumPy's dtype for it (int64
    for an int) and, next to GPU data, goes there as numbers and lists do (a NumPy array by
    backend.constant_like's rule)."""
    like = next((a for a in arrays if device_of(a) == "gpu"), None)
    xs = []
    for a in arrays:
        if not isinstance(a, Variable):
            made = not (isinstance(a, np.ndarray) or is_device_array(a))
            if made:                                   # a number or a list, as np.asarray makes it
                try:
                    a = np.asarray(a)
                except ValueError as error:
                    raise TypeError(f"{op}: cannot turn {a!r} into an array ({error})") from None
            a = as_variable(a, op=op)                  # (refuses strings, complex ...)
            if like is not None:
                a = as_variable(constant_like(a._data, like, op, "a constant input", "the GPU data", made))
        xs.append(a)
    return xs


def _common_shape(xs, op):
    """The shape the inputs' shapes broadcast to, or a ValueError naming `op` and them all."""
    shapes = [x.shape for x in xs]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        listed = ", ".join(str(s) for s in shapes)
        raise ValueError(
            f"{op}: shapes {listed} cannot be broadcast together (each axis, counted from the "
            f"last, must have equal lengths or length 1); reshape the inputs so that they do"
        ) from None


def broadcast_arrays(*args: ArrayLike, subok: bool = False) -> tuple[Variable, ...]:
    """The inputs broadcast against each other, as NumPy's broadcast_arrays.

    Each result is `broadcast_to(arg, shape)` for the inputs' common shape: the gradient of
    an input sums its result's gradient back to the input's shape.  An input that already
    has the common shape is returned as is (NumPy returns that array itself too).

    Parameters
    ----------
    *args : ArrayLike
        Variables, arrays, lists or numbers; those that are not Variables come back as
        Variables that do not require grad.
    subok : bool
        Accepted at either value: Variables hold plain arrays (subclasses such as np.matrix
        are refused as inputs), so there is no subclass to keep.

    Returns
    -------
    tuple of Variable
        One per input, each of the common shape (an empty tuple for no input).

    Raises
    ------
    TypeError
        If an input is not a Variable, a real ndarray, a number or a list of numbers.
    ValueError
        If the inputs' shapes do not broadcast together.
    """
    xs = _inputs(args, "broadcast_arrays")
    shape = _common_shape(xs, "broadcast_arrays")
    return tuple(broadcast_to(x, shape) for x in xs)


def meshgrid(*xi: ArrayLike, copy: bool = True, sparse: bool = False,
             indexing: str = "xy") -> tuple[Variable, ...]:
    """Coordinate grids from coordinate vectors, as NumPy's meshgrid.

    With n inputs of lengths N1, ..., Nn, result i holds input i (flattened, as NumPy
    flattens it) along axis i, broadcast along the others: each of shape (N1, ..., Nn) for
    indexing="ij", and with the first two axes swapped, (N2, N1, N3, ..., Nn), for the
    default "xy" (Cartesian). The gradient of an input sums over the axes its grid was
    broadcast along.

    Parameters
    ----------
    *xi : ArrayLike
        The coordinate vectors (an input of more dimensions is flattened); those that are
        not Variables come back as Variables that do not require grad.
    copy : bool
        Accepted at either value: nothing is copied (the grids are views of the inputs'
        data, see the module's docstring), and no gengrad op writes into them.
    sparse : bool
        True: result i keeps length 1 along every axis but its own (shape (1, ..., Ni,
        ..., 1), first two axes swapped for "xy"), broadcasting to the full grid.
    indexing : {"xy", "ij"}
        Cartesian ("xy") or matrix ("ij") indexing of the results.

    Returns
    -------
    tuple of Variable
        One grid per input (a tuple also where NumPy gives a list, for sparse=True with
        copy=False); an empty tuple for no input.

    Raises
    ------
    TypeError
        If an input is not a Variable, a real ndarray, a number or a list of numbers.
    ValueError
        If `indexing` is not "xy" or "ij".
    """
    if not (isinstance(indexing, str) and indexing in ("xy", "ij")):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = _inputs(xi, "meshgrid")
    ndim = len(xs)
    axes = list(range(ndim))
    if indexing == "xy" and ndim > 1:
        axes[0], axes[1] = 1, 0                        # x varies along columns, y along rows
    grids = [reshape(x, tuple(-1 if a == axis else 1 for a in range(ndim))) for x, axis in zip(xs, axes)]
    if sparse:
        return tuple(grids)
    shape = _common_shape(grids, "meshgrid")
    return tuple(broadcast_to(g, shape) for g in grids)


__all__ = ["meshgrid", "broadcast_arrays"]
