"""Rearranging axes and entries: repeat, tile, roll, flips, rotations, axis moves, atleast_nd, ravel.

Every op here is linear and moves entries only, so its backward is the inverse rearrangement
(roll back, flip again, rotate back, transpose back) or, where entries were copied (repeat,
tile), the sum of the copies; its Taylor rule applies the op to each coefficient.
"""

import math
import operator
from collections.abc import Sequence

import numpy as np

from .. import series
from ..axes import normalize_axis, single_axis
from ..backend import get_array_module
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike, Axis
from . import reduction
from .indexing import GetItemGrad
from .shape import reshape, transpose


def _ints(value, op, what):
    """`value` (an int or a sequence of ints) as a list of Python ints, else a TypeError."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)]
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.ndim <= 1:
        return [int(v) for v in value.reshape(-1)]
    try:
        items = list(value)
        if any(isinstance(v, bool) for v in items):
            raise TypeError
        return [operator.index(v) for v in items]
    except TypeError:
        raise TypeError(f"{op}: {what} must be an int or a sequence of ints, got {value!r}") from None


def _axes_in_order(axis, ndim, op, shape):
    """`axis` (an int or a sequence of ints) as a list of non-negative axes, in the given order."""
    axes = [single_axis(a, ndim, op, shape) for a in _ints(axis, op, "axis")]
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}: repeated axis in {axis!r} for an input of shape {shape}")
    return axes


# ----- copies of entries: repeat, tile -----------------------------------------
class Repeat(Forwarder):
    """Each entry along `axis` repeated `repeats` times (an int, or a list: one count per entry)."""

    def __init__(self, repeats, axis):
        self.repeats, self.axis = repeats, axis

    def forward(self, x):
        if not isinstance(self.repeats, int):   # per-entry counts: the gather index, for backward
            xp = get_array_module(x)
            self.index = (slice(None),) * self.axis + (xp.arange(x.shape[self.axis]).repeat(self.repeats),)
        return x.repeat(self.repeats, self.axis)

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        axis, shape = self.axis, x.shape
        if isinstance(self.repeats, int):       # copies side by side: split them off and add them
            copies = shape[:axis] + (shape[axis], self.repeats) + shape[axis + 1:]
            return reduction.sum(reshape(gy, copies), axis=axis + 1)   # d repeat = sum of the copies
        return Function(GetItemGrad(self.index, shape))(gy)           # d repeat = scatter-add of copies

    taylor_records = True

    def taylor(self, x):
        return series.map_linear(x, lambda c: c.repeat(self.repeats, self.axis))   # linear: each repeated


class Tile(Forwarder):
    """The input laid out `reps` times along each axis (reps as long as the result's ndim)."""

    def __init__(self, reps):
        self.reps = reps

    def forward(self, x):
        return get_array_module(x).tile(x, self.reps)

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        if not self.reps:
            return gy                            # a 0-d copy: nothing to add
        shape = (1,) * (len(self.reps) - x.ndim) + x.shape
        blocks = tuple(n for r, s in zip(self.reps, shape) for n in (r, s))  # axis i -> (copy, entry)
        g = reduction.sum(reshape(gy, blocks), axis=tuple(range(0, len(blocks), 2)))
        return reshape(g, x.shape)               # d tile = sum over the copies

    taylor_records = True

    def taylor(self, x):
        return series.map_linear(x, lambda c: np.tile(c, self.reps))  # linear: each tiled


def repeat(a: ArrayLike, repeats: int | Sequence[int], axis: int | None = None) -> Variable:
    """Repeat each entry of `a` along `axis` (None: of the flattened input), as np.repeat.

    Parameters
    ----------
    a : ArrayLike
    repeats : int or sequence of ints
        How many times each entry appears: one count for all, or one per entry along `axis`.
    axis : int, optional
        The axis to repeat along (negatives allowed); None flattens `a` first.

    Returns
    -------
    Variable
        Like `a` (1-D for axis=None), longer along `axis`.

    Raises
    ------
    TypeError
        If `repeats` or `axis` is not made of ints, or `a` is not array-like.
    ValueError
        If a count is negative, `axis` is out of range, or `repeats` is neither one count nor one per
        entry along `axis`.
    """
    a = as_variable(a, op="repeat")
    counts = _ints(repeats, "repeat", "repeats")
    if axis is None:
        a, axis = ravel(a), 0
    shape = a.shape
    axis = single_axis(axis, len(shape), "repeat", shape)
    if any(n < 0 for n in counts):
        raise ValueError(f"repeat: repeats must be >= 0, got {repeats!r}")
    if len(counts) not in (1, shape[axis]):
        raise ValueError(
            f"repeat: got {len(counts)} counts in repeats for axis {axis} of length {shape[axis]} "
            f"(input of shape {shape}); give one count, or one per entry"
        )
    if len(set(counts)) <= 1:                   # one count for all (or none: an empty axis)
        counts = counts[0] if counts else 0
    return Function(Repeat(counts, axis))(a)


def tile(A: ArrayLike, reps: int | Sequence[int]) -> Variable:
    """`A` repeated as a block `reps` times along each axis, as np.tile.

    Parameters
    ----------
    A : ArrayLike
    reps : int or sequence of ints
        Copies along each axis; the shorter of `reps` and `A.shape` is padded with 1s in front.

    Returns
    -------
    Variable
        Of ndim max(len(reps), A.ndim), each axis `reps` times as long as `A`'s.

    Raises
    ------
    TypeError
        If `reps` is not made of ints, or `A` is not array-like.
    ValueError
        If an entry of `reps` is negative.
    """
    A = as_variable(A, op="tile")
    reps = _ints(reps, "tile", "reps")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: reps must be >= 0, got {tuple(reps)}")
    reps = (1,) * (A.ndim - len(reps)) + tuple(reps)
    return Function(Tile(reps))(A)


# ----- entries moved within their axes: roll, flip, rot90 ---------------------
class Roll(Forwarder):
    """Entries shifted cyclically by `shift` along `axis` (None: the flattened input)."""

    def __init__(self, shift, axis):
        self.shift, self.axis = shift, axis

    def forward(self, x):
        return get_array_module(x).roll(x, self.shift, self.axis)

    save_for_backward = ()

    def backward(self, gy):
        back = -self.shift if self.axis is None else tuple(-s for s in self.shift)
        return Function(Roll(back, self.axis))(gy)   # d roll = roll back

    taylor_records = True

    def taylor(self, x):
        return series.map_linear(x, lambda c: np.roll(c, self.shift, self.axis))


class Flip(Forwarder):
    """Entries in reverse order along `axes`."""

    def __init__(self, axes):
        self.axes = axes

    def forward(self, x):
        self.index = tuple(slice(None, None, -1) if i in self.axes else slice(None) for i in range(x.ndim))
        return x[self.index]

    save_for_backward = ()

    def backward(self, gy):
        return Function(Flip(self.axes))(gy)    # d flip = flip again

    taylor_records = True

    def taylor(self, x):
        return series.map_linear(x, lambda c: c[self.index])   # linear: each coefficient flipped


class Rot90(Forwarder):
    """A quarter turn, `k` times (1 to 3), in the plane of `axes`, from the first towards the second."""

    def __init__(self, k, axes):
        self.k, self.axes = k, axes

    def forward(self, x):
        return get_array_module(x).rot90(x, self.k, self.axes)

    save_for_backward = ()

    def backward(self, gy):
        return Function(Rot90(4 - self.k, self.axes))(gy)   # d rot90 = rotate back

    taylor_records = True

    def taylor(self, x):
        return series.map_linear(x, lambda c: np.rot90(c, self.k, self.axes))


def roll(a: ArrayLike, shift: int | Sequence[int], axis: int | Sequence[int] | None = None) -> Variable:
    """Shift the entries of `a` cyclically, as np.roll.

    Parameters
    ----------
    a : ArrayLike
    shift : int or sequence of ints
        How far entries move (towards higher indices when positive).
    axis : int, sequence of ints or None
        The axes to roll along, paired with the shifts (an int on either side is broadcast; an
        axis named twice is rolled by the sum); None rolls the flattened input, reshaped back.

    Returns
    -------
    Variable
        Of the shape of `a`.

    Raises
    ------
    TypeError
        If `shift` or `axis` is not made of ints, or `a` is not array-like.
    ValueError
        If an axis is out of range, or `shift` and `axis` have different lengths (neither 1).
    """
    a = as_variable(a, op="roll")
    shifts = _ints(shift, "roll", "shift")
    if axis is None:
        return Function(Roll(sum(shifts), None))(a)
    shape = a.shape
    axes = [single_axis(n, len(shape), "roll", shape) for n in _ints(axis, "roll", "axis")]
    if len(shifts) == 1:                        # broadcast shift and axis against each other
        shifts = shifts * len(axes)
    elif len(axes) == 1:
        axes = axes * len(shifts)
    elif len(shifts) != len(axes):
        raise ValueError(f"roll: shift {shift!r} and axis {axis!r} do not broadcast together")
    total = dict.fromkeys(axes, 0)
    for s, n in zip(shifts, axes):
        total[n] += s                           # an axis named twice rolls by the sum
    return Function(Roll(tuple(total.values()), tuple(total)))(a)


def flip(m: ArrayLike, axis: Axis = None) -> Variable:
    """Reverse the order of the entries of `m` along `axis` (None: every axis), as np.flip.

    Parameters
    ----------
    m : ArrayLike
    axis : int, tuple of ints or None
        The axes to reverse (negatives allowed).

    Returns
    -------
    Variable
        Of the shape of `m`.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, or `m` is not array-like.
    ValueError
        If an axis is out of range or repeated.
    """
    m = as_variable(m, op="flip")
    axes = normalize_axis(axis, m.ndim, "flip", m.shape)
    return Function(Flip(tuple(range(m.ndim)) if axes is None else axes))(m)


def fliplr(m: ArrayLike) -> Variable:
    """Reverse the order of the columns (axis 1) of `m`, as np.fliplr.

    Parameters
    ----------
    m : ArrayLike
        At least 2-D.

    Returns
    -------
    Variable
        Of the shape of `m`.

    Raises
    ------
    TypeError
        If `m` is not array-like.
    ValueError
        If `m` has fewer than 2 dimensions.
    """
    m = as_variable(m, op="fliplr")
    if m.ndim < 2:
        raise ValueError(f"fliplr: the input must be at least 2-D, got shape {m.shape}")
    return Function(Flip((1,)))(m)


def flipud(m: ArrayLike) -> Variable:
    """Reverse the order of the rows (axis 0) of `m`, as np.flipud.

    Parameters
    ----------
    m : ArrayLike
        At least 1-D.

    Returns
    -------
    Variable
        Of the shape of `m`.

    Raises
    ------
    TypeError
        If `m` is not array-like.
    ValueError
        If `m` is 0-d.
    """
    m = as_variable(m, op="flipud")
    if m.ndim < 1:
        raise ValueError("flipud: the input must be at least 1-D, got a 0-d input")
    return Function(Flip((0,)))(m)


def rot90(m: ArrayLike, k: int = 1, axes: Sequence[int] = (0, 1)) -> Variable:
    """Rotate `m` by 90 degrees `k` times in the plane of `axes`, as np.rot90.

    Parameters
    ----------
    m : ArrayLike
        At least 2-D.
    k : int
        Number of quarter turns, from the first axis towards the second (negative: the other way).
    axes : sequence of two ints
        The plane of the rotation: two different axes (negatives allowed).

    Returns
    -------
    Variable
        `m` rotated; the two axes' lengths swap when `k` is odd.

    Raises
    ------
    TypeError
        If `k` or `axes` is not made of ints, or `m` is not array-like.
    ValueError
        If `axes` is not two different axes in range.
    """
    m = as_variable(m, op="rot90")
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"rot90: k must be an int, got {k!r}")
    pair = _ints(axes, "rot90", "axes")
    if len(pair) != 2:
        raise ValueError(f"rot90: axes must hold two axes, got {axes!r}")
    first, second = (single_axis(n, m.ndim, "rot90", m.shape) for n in pair)
    if first == second:
        raise ValueError(f"rot90: axes must be two different axes, got {axes!r}")
    k = int(k) % 4
    return m if k == 0 else Function(Rot90(k, (first, second)))(m)


# ----- axes moved: swapaxes, moveaxis, rollaxis (permutations, via transpose) ----
def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> Variable:
    """Exchange two axes of `a`, as np.swapaxes.

    Parameters
    ----------
    a : ArrayLike
    axis1, axis2 : int
        The axes to exchange (negatives allowed).

    Returns
    -------
    Variable
        `a` with the two axes exchanged (`a` itself when they are the same).

    Raises
    ------
    TypeError
        If an axis is not an int, or `a` is not array-like.
    ValueError
        If an axis is out of range.
    """
    a = as_variable(a, op="swapaxes")
    i, j = (single_axis(n, a.ndim, "swapaxes", a.shape) for n in (axis1, axis2))
    order = list(range(a.ndim))
    order[i], order[j] = j, i
    return transpose(a, order)


def moveaxis(a: ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]) -> Variable:
    """Move axes of `a` to new positions, the others keeping their order, as np.moveaxis.

    Parameters
    ----------
    a : ArrayLike
    source : int or sequence of ints
        The axes to move (negatives allowed, no repeats).
    destination : int or sequence of ints
        Their positions in the result, one per source axis.

    Returns
    -------
    Variable
        `a` with its axes permuted.

    Raises
    ------
    TypeError
        If `source` or `destination` is not made of ints, or `a` is not array-like.
    ValueError
        If an axis is out of range or repeated, or the two differ in length.
    """
    a = as_variable(a, op="moveaxis")
    moved = _axes_in_order(source, a.ndim, "moveaxis", a.shape)
    places = _axes_in_order(destination, a.ndim, "moveaxis", a.shape)
    if len(moved) != len(places):
        raise ValueError(
            f"moveaxis: source {source!r} and destination {destination!r} must hold as many axes"
        )
    order = [n for n in range(a.ndim) if n not in moved]
    for place, n in sorted(zip(places, moved)):
        order.insert(place, n)
    return transpose(a, order)


def rollaxis(a: ArrayLike, axis: int, start: int = 0) -> Variable:
    """Move `axis` of `a` to sit before position `start`, as np.rollaxis.

    Parameters
    ----------
    a : ArrayLike
    axis : int
        The axis to move (negatives allowed).
    start : int
        It ends before the axis that was at `start` (from -a.ndim to a.ndim; a.ndim: last).

    Returns
    -------
    Variable
        `a` with its axes permuted.

    Raises
    ------
    TypeError
        If `axis` or `start` is not an int, or `a` is not array-like.
    ValueError
        If `axis` or `start` is out of range.
    """
    a = as_variable(a, op="rollaxis")
    n = a.ndim
    axis = single_axis(axis, n, "rollaxis", a.shape)
    if not isinstance(start, (int, np.integer)) or isinstance(start, bool):
        raise TypeError(f"rollaxis: start must be an int, got {start!r}")
    if not -n <= start <= n:
        raise ValueError(f"rollaxis: start {start} is out of range for an input of shape {a.shape} "
                         f"(valid: {-n} to {n})")
    start = int(start) + n if start < 0 else int(start)
    if axis < start:
        start -= 1
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return transpose(a, order)


# ----- at least n dimensions, flattening ---------------------------------------
def _at_least(x, ndim, op):
    """`x` with 1s added to its shape up to `ndim` axes, NumPy's way for each atleast_<ndim>d."""
    x = as_variable(x, op=op)
    shape = x.shape
    if len(shape) >= ndim:
        return x
    if ndim == 3 and len(shape) >= 1:           # (n,) -> (1, n, 1), (m, n) -> (m, n, 1)
        return reshape(x, ((1,) if len(shape) == 1 else ()) + shape + (1,))
    return reshape(x, (1,) * (ndim - len(shape)) + shape)


def _each(arys, ndim, op):
    views = tuple(_at_least(x, ndim, op) for x in arys)
    return views[0] if len(views) == 1 else views


def atleast_1d(*arys: ArrayLike) -> Variable | tuple[Variable, ...]:
    """Each input with at least one axis (0-d becomes shape (1,)), as np.atleast_1d.

    Parameters
    ----------
    *arys : ArrayLike

    Returns
    -------
    Variable or tuple of Variable
        One Variable for one input, else a tuple; an input already 1-D or more is returned as is.

    Raises
    ------
    TypeError
        If an input is not array-like.
    """
    return _each(arys, 1, "atleast_1d")


def atleast_2d(*arys: ArrayLike) -> Variable | tuple[Variable, ...]:
    """Each input with at least two axes ((n,) becomes (1, n)), as np.atleast_2d.

    Parameters
    ----------
    *arys : ArrayLike

    Returns
    -------
    Variable or tuple of Variable
        One Variable for one input, else a tuple; an input already 2-D or more is returned as is.

    Raises
    ------
    TypeError
        If an input is not array-like.
    """
    return _each(arys, 2, "atleast_2d")


def atleast_3d(*arys: ArrayLike) -> Variable | tuple[Variable, ...]:
    """Each input with at least three axes ((n,) becomes (1, n, 1), (m, n) becomes (m, n, 1)).

    As np.atleast_3d.

    Parameters
    ----------
    *arys : ArrayLike

    Returns
    -------
    Variable or tuple of Variable
        One Variable for one input, else a tuple; an input already 3-D or more is returned as is.

    Raises
    ------
    TypeError
        If an input is not array-like.
    """
    return _each(arys, 3, "atleast_3d")


def ravel(a: ArrayLike, order: str = "C") -> Variable:
    """The entries of `a` as a 1-D Variable, in row-major order, as np.ravel.

    Parameters
    ----------
    a : ArrayLike
    order : str
        Only "C" (row-major), NumPy's default.

    Returns
    -------
    Variable
        Of shape (a.size,); `a` itself when it is already 1-D.

    Raises
    ------
    TypeError
        If `a` is not array-like.
    ValueError
        If `order` is not "C".
    """
    if order != "C":
        raise ValueError(f"ravel: order={order!r} is not supported; only order='C' (row-major)")
    a = as_variable(a, op="ravel")
    return reshape(a, (math.prod(a.shape),))


__all__ = [
    "repeat", "tile", "roll", "flip", "fliplr", "flipud", "rot90", "swapaxes", "moveaxis", "rollaxis",
    "atleast_1d", "atleast_2d", "atleast_3d", "ravel",
]
