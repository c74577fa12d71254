"""Set operations and selections by mask or index: union1d, intersect1d, setdiff1d,
setxor1d, unique_values / unique_counts / unique_inverse / unique_all, trim_zeros,
compress, extract, choose, resize and sliding_window_view.

Every op here is a gather: the positions its values come from are read from the data (or
from a constant mask, an index, a shape), and the values are picked from the inputs by
V.take / V.get_item / V.take_along_axis, which carry the backward (a scatter that adds
repeated positions) and the Taylor rule.  So the gradient of each value goes to the entry
it came from; a value present several times goes, as in V.unique (and JAX's jnp.unique),
to its FIRST occurrence, in the order NumPy concatenates the inputs (ar1 before ar2).
"""

import operator
from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import backend, series
from ..axes import normalize_axis, single_axis
from ..backend import get_array_module, is_device_array
from ..directions import Directions
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike
from .indexing import get_item
from .joining import _as_sequence, concat
from .reduction import sum as _sum
from .selection import take, take_along_axis
from .sequences import unique
from .shape import broadcast_to, reshape


# ----- helpers -----------------------------------------------------------------------------
def _flag(value, name, op):
    """A bool keyword (NumPy's bools too), or a TypeError naming `op`."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{op}: {name} must be a bool, got {value!r}")
    return bool(value)


def _refuse_out(out, op):
    if out is not None:
        raise TypeError(f"{op}: out= is not supported (a Variable is never written in place); use the result")


def _flat_pair(ar1, ar2, op):
    """`ar1` and `ar2` as flattened Variables (numbers take the other's dtype, on its device)."""
    x1, x2 = _as_sequence([ar1, ar2], op)
    return reshape(x1, (x1.size,)), reshape(x2, (x2.size,))


def _joined(x1, x2):
    """x1 and x2 (1-d) end to end in their common dtype, as np.concatenate joins them."""
    dtype = np.result_type(x1.dtype, x2.dtype)
    return concat([x if x.dtype == dtype else x.astype(dtype) for x in (x1, x2)])


def _stable_argsort(a):
    """The stable argsort of 1-d data: equal values keep their order (ar1's before ar2's)."""
    xp = get_array_module(a)
    return xp.argsort(a, kind="stable") if xp is np else xp.argsort(a)   # (CuPy's sort is stable)


def _firsts(x, assume_unique):
    """(the values a set op works on, their positions in `x`): the unique values and their
    first occurrences, or with `assume_unique` every entry in order."""
    xp = get_array_module(x)
    if assume_unique:
        return x.data, xp.arange(x.size)
    return xp.unique(x.data, return_index=True)       # NumPy's own unique: equal_nan=True


# ----- union1d, intersect1d, setdiff1d, setxor1d -----------------------------------------------
def union1d(ar1: ArrayLike, ar2: ArrayLike) -> Variable:
    """The sorted unique values of `ar1` and `ar2` together (both flattened), as np.union1d.

    NumPy's np.unique of their concatenation: each value's gradient goes to its first
    occurrence in ar1, then ar2 (a value in both: to ar1's first occurrence; ar2's copies
    get 0).  NaNs count as one value.  Which values are equal is read from the data on the
    host (syncs on a GPU, as the result's size depends on it).

    Parameters
    ----------
    ar1, ar2 : ArrayLike
        Any shapes (flattened).

    Returns
    -------
    Variable
        1-d, sorted, in the common dtype of the inputs.

    Raises
    ------
    TypeError
        If an input is not array-like.
    """
    x1, x2 = _flat_pair(ar1, ar2, "union1d")
    return unique(_joined(x1, x2))


def _common(values, source):
    """Positions (in the joined inputs) of NumPy's intersect1d: the first of each equal
    neighbour pair of the stably sorted values, and the second; `source` maps a value's
    place to its position."""
    order = _stable_argsort(values)
    ranked = values[order]
    pairs = ranked[1:] == ranked[:-1]
    return source[order[:-1][pairs]], order[:-1][pairs], order[1:][pairs]


def intersect1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False,
                return_indices: bool = False) -> Variable | tuple:
    """The sorted values found in both `ar1` and `ar2` (flattened), as np.intersect1d.

    Each value is gathered from ar1's first occurrence of it, which gets the whole
    gradient (ar2's copies get 0): NumPy's value is that entry of ar1 (it comes first in
    NumPy's stable sort of the two).  NaN is never common (NaN != NaN), as in NumPy.
    Which values are equal is read from the data on the host (syncs on a GPU,
    as the result's size depends on it).

    Parameters
    ----------
    ar1, ar2 : ArrayLike
        Any shapes (flattened).
    assume_unique : bool
        Trust that each input holds no repeats (skips their unique); with repeats the
        result is NumPy's for that case (a repeat of one input may then show up).
    return_indices : bool
        Also return the positions of the values in the flattened ar1 and ar2 (first
        occurrences), as NumPy's.

    Returns
    -------
    Variable, or (Variable, ndarray, ndarray) with return_indices
        The 1-d sorted common values (in the common dtype), and with return_indices plain
        integer arrays (no gradient) of the positions in ar1 and in ar2.

    Raises
    ------
    TypeError
        If a flag is not a bool or an input is not array-like.
    """
    assume_unique = _flag(assume_unique, "assume_unique", "intersect1d")
    return_indices = _flag(return_indices, "return_indices", "intersect1d")
    x1, x2 = _flat_pair(ar1, ar2, "intersect1d")
    xp = get_array_module(x1)
    (u1, i1), (u2, i2) = _firsts(x1, assume_unique), _firsts(x2, assume_unique)
    dtype = np.result_type(x1.dtype, x2.dtype)
    values = xp.concatenate([u1.astype(dtype), u2.astype(dtype)])
    source = xp.concatenate([i1, i2 + x1.size])
    picks, first, second = _common(values, source)
    y = take(_joined(x1, x2), picks)
    if not return_indices:
        return y
    second = second - u1.size
    if not assume_unique:
        first, second = i1[first], i2[second]
    return y, first, second


def setdiff1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False) -> Variable:
    """The values of `ar1` not in `ar2` (sorted unique ones, unless assume_unique), as
    np.setdiff1d.

    Gathered from ar1's first occurrences, which get the gradient (ar2 gets none: it only
    decides which values go).  NaN in ar1 stays (NaN != NaN), as in NumPy.  The values are
    read on the host (syncs on a GPU, as the result's size depends on them).

    Parameters
    ----------
    ar1, ar2 : ArrayLike
        Any shapes (flattened).
    assume_unique : bool
        Trust that the inputs hold no repeats: ar1's entries are then kept in their order
        (not sorted), as NumPy's.

    Returns
    -------
    Variable
        1-d, in ar1's dtype.

    Raises
    ------
    TypeError
        If `assume_unique` is not a bool or an input is not array-like.
    """
    assume_unique = _flag(assume_unique, "assume_unique", "setdiff1d")
    x1, x2 = _flat_pair(ar1, ar2, "setdiff1d")
    xp = get_array_module(x1)
    u1, i1 = _firsts(x1, assume_unique)
    u2 = x2.data if assume_unique else xp.unique(x2.data)
    keep = xp.isin(u1, u2, assume_unique=True, invert=True)
    return take(x1, i1[keep])


def setxor1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False) -> Variable:
    """The sorted values found in exactly one of `ar1` and `ar2` (flattened), as np.setxor1d.

    Each value is gathered from its first occurrence in the input that holds it, which
    gets the gradient.  A NaN in each input gives two NaNs, as in NumPy (NaN != NaN).
    The values are read on the host (syncs on a GPU,
    as the result's size depends on them).

    Parameters
    ----------
    ar1, ar2 : ArrayLike
        Any shapes (flattened).
    assume_unique : bool
        Trust that each input holds no repeats (a repeat then cancels, as in NumPy).

    Returns
    -------
    Variable
        1-d, sorted, in the common dtype.

    Raises
    ------
    TypeError
        If `assume_unique` is not a bool or an input is not array-like.
    """
    assume_unique = _flag(assume_unique, "assume_unique", "setxor1d")
    x1, x2 = _flat_pair(ar1, ar2, "setxor1d")
    xp = get_array_module(x1)
    (u1, i1), (u2, i2) = _firsts(x1, assume_unique), _firsts(x2, assume_unique)
    dtype = np.result_type(x1.dtype, x2.dtype)
    values = xp.concatenate([u1.astype(dtype), u2.astype(dtype)])
    source = xp.concatenate([i1, i2 + x1.size])
    if values.size == 0:                                              # nothing in either input
        return take(_joined(x1, x2), xp.arange(0))
    order = _stable_argsort(values)
    ranked = values[order]
    true = xp.ones(1, dtype=bool)
    differ = xp.concatenate([true, ranked[1:] != ranked[:-1], true])  # unequal to the neighbour
    alone = differ[1:] & differ[:-1]                                  # ... on both sides
    return take(_joined(x1, x2), source[order[alone]])


# ----- the Array API's unique functions ------------------------------------------------------
UniqueAllResult = type(np.unique_all(np.zeros(1)))
UniqueCountsResult = type(np.unique_counts(np.zeros(1)))
UniqueInverseResult = type(np.unique_inverse(np.zeros(1)))
"""NumPy's own namedtuple classes (np.unique_all(...) is an instance of UniqueAllResult)."""

if not all(issubclass(t, tuple) for t in (UniqueAllResult, UniqueCountsResult, UniqueInverseResult)):
    UniqueAllResult = namedtuple("UniqueAllResult", "values indices inverse_indices counts")
    UniqueCountsResult = namedtuple("UniqueCountsResult", "values counts")
    UniqueInverseResult = namedtuple("UniqueInverseResult", "values inverse_indices")


def _unique(x, op, **outputs):
    """V.unique of `x` with the Array API's rule: every NaN a value of its own."""
    return unique(as_variable(x, op=op), equal_nan=False, **outputs)


def unique_values(x: ArrayLike) -> Variable:
    """The unique values of `x` (flattened), as np.unique_values.

    V.unique with equal_nan=False (the Array API's rule: each NaN is its own value, so
    every NaN comes back and gets its own gradient); each other value's gradient goes to
    its first occurrence.  The values come sorted: NumPy 2.4 sorts them for float data
    too (the order is unspecified in NumPy's documentation; for integer data, which has
    no gradient, NumPy 2.4 gives its hash table's order, gengrad the sorted one).  One
    host sync on a GPU.

    Parameters
    ----------
    x : ArrayLike

    Returns
    -------
    Variable
        1-d.

    Raises
    ------
    TypeError
        If `x` is not array-like.
    """
    return _unique(x, "unique_values")


def unique_counts(x: ArrayLike) -> tuple[Variable, Any]:
    """The unique values of `x` and how often each occurs, as np.unique_counts.

    Parameters
    ----------
    x : ArrayLike

    Returns
    -------
    UniqueCountsResult (NumPy's namedtuple)
        values (a Variable, as unique_values) and counts (a plain integer array).

    Raises
    ------
    TypeError
        If `x` is not array-like.
    """
    return UniqueCountsResult(*_unique(x, "unique_counts", return_counts=True))


def unique_inverse(x: ArrayLike) -> tuple[Variable, Any]:
    """The unique values of `x` and the positions that rebuild it, as np.unique_inverse.

    Parameters
    ----------
    x : ArrayLike

    Returns
    -------
    UniqueInverseResult (NumPy's namedtuple)
        values (a Variable, as unique_values) and inverse_indices (a plain integer array of
        x's shape: values[inverse_indices] == x).

    Raises
    ------
    TypeError
        If `x` is not array-like.
    """
    return UniqueInverseResult(*_unique(x, "unique_inverse", return_inverse=True))


def unique_all(x: ArrayLike) -> tuple[Variable, Any, Any, Any]:
    """The unique values of `x`, their first positions, the inverse and the counts, as
    np.unique_all.

    Parameters
    ----------
    x : ArrayLike

    Returns
    -------
    UniqueAllResult (NumPy's namedtuple)
        values (a Variable, as unique_values), then plain integer arrays: indices (first
        occurrences in the flattened x, where the gradient goes), inverse_indices (x's
        shape) and counts.

    Raises
    ------
    TypeError
        If `x` is not array-like.
    """
    return UniqueAllResult(*_unique(x, "unique_all", return_index=True, return_inverse=True,
                                    return_counts=True))


# ----- trim_zeros ------------------------------------------------------------------------
def trim_zeros(filt: ArrayLike, trim: str = "fb", axis: int | Sequence[int] | None = None) -> Variable:
    """`filt` without its leading and/or trailing zeros along each axis of `axis`, as
    np.trim_zeros (NumPy 2.2's N-d form: the smallest box holding every nonzero entry).

    A slice of `filt`, so the kept entries get their gradient and the trimmed zeros 0.  The
    bounds depend on the data: reading them is one host sync on a GPU.  NaN is nonzero;
    an all-zero `filt` gives an empty result along the axes trimmed, as in NumPy.

    Parameters
    ----------
    filt : ArrayLike
    trim : str
        'f' trims the front, 'b' the back, 'fb' (or 'bf') both; case ignored.
    axis : int or tuple of ints, optional
        The axes to trim along; None: every axis.

    Returns
    -------
    Variable
        The trimmed slice (`filt` itself for a 0-d input or an empty `axis`).

    Raises
    ------
    TypeError
        If `trim` is not a str, `axis` is not None, an int or a tuple of ints, or `filt` is
        not array-like.
    ValueError
        If `trim` holds other letters, or an axis is out of range or repeated.
    """
    if not isinstance(trim, str):
        raise TypeError(f"trim_zeros: trim must be a str ('f', 'b' or 'fb'), got {trim!r}")
    if trim.lower() not in ("fb", "bf", "f", "b"):
        raise ValueError(f"trim_zeros: unexpected character(s) in trim: {trim!r} (use 'f', 'b' or 'fb')")
    trim = trim.lower()
    x = as_variable(filt, op="trim_zeros")
    axes = tuple(range(x.ndim)) if axis is None else normalize_axis(axis, x.ndim, "trim_zeros", x.shape)
    if not axes:
        return x
    xp = get_array_module(x)
    nonzero = x.data != 0                                   # NaN counts as nonzero
    if nonzero.dtype != bool:
        nonzero = nonzero.astype(bool)
    rows = [nonzero.any(axis=tuple(a for a in range(x.ndim) if a != i)) if x.ndim > 1 else nonzero
            for i in range(x.ndim)]
    marks = backend.to_cpu(xp.concatenate(rows)) if x.size else np.zeros(sum(x.shape), dtype=bool)
    bounds = np.cumsum((0,) + x.shape)                      # (the one host read)
    index = []
    for i in range(x.ndim):
        kept = np.flatnonzero(marks[bounds[i]:bounds[i + 1]])
        if i not in axes:
            index.append(slice(None))
        elif not marks.any():                               # all zero: empty, as NumPy
            index.append(slice(0, 0))
        else:
            index.append(slice(int(kept[0]) if "f" in trim else None,
                               int(kept[-1]) + 1 if "b" in trim else None))
    return get_item(x, tuple(index))


# ----- compress, extract ------------------------------------------------------------------
def _positions(condition, like, op):
    """The positions of the true (nonzero) entries of a 1-d `condition` (a constant):
    one host sync on a GPU, as the result's size depends on them."""
    if isinstance(condition, Variable):
        condition = condition.data
    if not (isinstance(condition, np.ndarray) or is_device_array(condition)):
        try:
            condition = np.asarray(condition)
        except ValueError:
            raise ValueError(f"{op}: condition {condition!r} is not a rectangular array") from None
        if condition.dtype.kind not in "biuf":
            raise TypeError(f"{op}: condition must be booleans or numbers, got dtype {condition.dtype}")
    if is_device_array(condition) and not is_device_array(like.data):
        raise TypeError(
            f"{op}: expected condition on the device of the input, got an input on the CPU and a "
            f"condition on the GPU; move it with V.backend.to_cpu(condition), or the input with x.to_gpu()"
        )
    return condition


def _truthy(condition, length, op, what):
    """Where the 1-d `condition` is true, checked to fall inside `length` entries."""
    xp = get_array_module(condition)
    if condition.shape[0] > length and bool(xp.any(condition[length:] != 0)):
        raise IndexError(
            f"{op}: condition of length {condition.shape[0]} is true past the {length} entries of "
            f"{what}; shorten it to {length} (missing entries count as False)"
        )
    return xp.nonzero(condition[:length] if condition.shape[0] > length else condition)[0]


def compress(condition: ArrayLike, a: ArrayLike, axis: int | None = None, out: None = None) -> Variable:
    """The slices of `a` along `axis` where `condition` is true, as np.compress.

    A gather (V.take) at the positions of the true entries: those get the gradient.  The
    result's size depends on `condition`: one host sync on a GPU.

    Parameters
    ----------
    condition : 1-d array-like of bools (or numbers: nonzero is true)
        A constant; shorter than the axis: the missing entries count as False; longer:
        its extra entries must be False, as in NumPy.
    a : ArrayLike
    axis : int, optional
        The axis to select along; None works on the flattened `a`.
    out : None
        Not supported.

    Returns
    -------
    Variable
        `a` with `axis` cut to the selected slices (1-d for axis=None).

    Raises
    ------
    TypeError
        If `out` is given, `axis` is not an int or None, or an argument is not array-like.
    ValueError
        If `condition` is not 1-d, or `axis` is out of range.
    IndexError
        If `condition` is true past the end of the axis.
    """
    _refuse_out(out, "compress")
    x = as_variable(a, op="compress")
    condition = _positions(condition, x, "compress")
    if condition.ndim != 1:
        raise ValueError(f"compress: condition must be a 1-d array, got shape {condition.shape}")
    if axis is None or x.ndim == 0:                      # (a 0-d `a` counts as 1-d, as in NumPy)
        if axis is not None:
            single_axis(axis, 1, "compress", x.shape)
        x, axis = reshape(x, (x.size,)), 0
    axis = single_axis(axis, x.ndim, "compress", x.shape)
    return take(x, _truthy(condition, x.shape[axis], "compress", f"axis {axis}"), axis=axis)


def extract(condition: ArrayLike, arr: ArrayLike) -> Variable:
    """The entries of `arr` where `condition` is true (both flattened), as np.extract.

    A gather at the positions of the true (nonzero) entries, which get the gradient.  One
    host sync on a GPU (the result's size depends on `condition`).

    Parameters
    ----------
    condition : array-like of bools or numbers
        A constant, any shape (flattened); it may be shorter than `arr` (the rest count as
        False) or longer with only False past its end, as in NumPy.
    arr : ArrayLike

    Returns
    -------
    Variable
        1-d.

    Raises
    ------
    TypeError
        If an argument is not array-like.
    IndexError
        If `condition` is true past the end of `arr`.
    """
    x = as_variable(arr, op="extract")
    condition = _positions(condition, x, "extract")
    flat = x if x.ndim == 1 else reshape(x, (x.size,))
    return take(flat, _truthy(condition.reshape(-1), x.size, "extract", "arr"))


# ----- choose ------------------------------------------------------------------------------
_MODES = ("raise", "wrap", "clip")


def _choice_index(a, like):
    """`a` as an integer array (booleans as 0 and 1, as NumPy casts them) on like's device."""
    if isinstance(a, Variable):
        a = a.data
    made = not (isinstance(a, np.ndarray) or is_device_array(a))       # a list or a number
    if made:
        try:
            a = np.asarray(a)
        except ValueError:
            raise ValueError(f"choose: a {a!r} is not a rectangular array") from None
    if a.dtype.kind == "b":
        a = a.astype(np.intp)
    if a.dtype.kind not in "iu":
        raise TypeError(
            f"choose: a must hold integers (the choice of each entry), got dtype {a.dtype}; "
            f"convert it with a.astype(int)"
        )
    return backend.constant_like(a, like, "choose", "a", "the choices", made=made)


def _choices(choices):
    """The choices as a Variable whose first axis runs over them, or as a list of Variables in
    their common dtype (Python numbers weak, as NumPy 2 promotes them)."""
    if isinstance(choices, (Variable, np.ndarray)) or is_device_array(choices):
        stacked = as_variable(choices, op="choose")
        if stacked.ndim == 0:
            raise ValueError("choose: choices must be a sequence of arrays, got a 0-d array")
        return stacked
    if not isinstance(choices, (list, tuple)):
        raise TypeError(f"choose: choices must be a sequence of arrays, got {type(choices).__name__}")
    if not choices:
        raise ValueError("choose: choices is empty (a 0-length sequence); give at least one array")
    xs = _as_sequence(list(choices), "choose")
    weak = [type(c) in (bool, int, float) for c in choices]
    if all(weak):
        dtype = np.result_type(*choices)
    else:
        dtype = np.result_type(*[x.dtype for x, w in zip(xs, weak) if not w],
                               *[c for c, w in zip(choices, weak) if w])
    return [x if x.dtype == dtype else x.astype(dtype) for x in xs]


def choose(a: ArrayLike, choices: Sequence[ArrayLike] | ArrayLike, out: None = None,
           mode: str = "raise") -> Variable:
    """Each entry from the choice `a` names there, as np.choose: y[i] = choices[a[i]][i].

    `a` and every choice broadcast together.  A gather (V.take_along_axis) from the
    choices stacked along a new first axis: each entry's gradient goes to the entry of the
    choice it was taken from (broadcast choices add up their entries' gradients).

    Parameters
    ----------
    a : integer array-like
        A constant (booleans count as 0 and 1, as NumPy casts them).
    choices : sequence of ArrayLike, or an array
        The choices (an array: its first axis runs over them); Variables get gradients.
    out : None
        Not supported.
    mode : {'raise', 'wrap', 'clip'}
        An `a` outside [0, n) for n choices: refused ('raise'), taken modulo n ('wrap'),
        or clipped to [0, n - 1] ('clip').  On a GPU, 'raise' checks on the device (no host
        sync): the result then holds NaN and the error comes at the next read (see
        V.backend.device_check).

    Returns
    -------
    Variable
        Of the broadcast shape of `a` and the choices, in the choices' common dtype.

    Raises
    ------
    TypeError
        If `out` is given, `a` does not hold integers, or a choice is not array-like.
    ValueError
        If `mode` is unknown, `choices` is empty, the shapes do not broadcast, or (mode
        'raise') an entry of `a` is outside [0, n).
    """
    _refuse_out(out, "choose")
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    xs = _choices(choices)
    like = xs if isinstance(xs, Variable) else xs[0]
    index = _choice_index(a, like)
    shapes = [xs.shape[1:]] if isinstance(xs, Variable) else [x.shape for x in xs]
    try:
        shape = np.broadcast_shapes(index.shape, *shapes)
    except ValueError:
        raise ValueError(
            f"choose: a of shape {index.shape} and choices of shapes {shapes} do not broadcast together"
        ) from None
    n = xs.shape[0] if isinstance(xs, Variable) else len(xs)
    xp = get_array_module(like)
    found = None
    if mode == "wrap":
        index = index % n                                   # (Python's modulo: -1 is the last)
    elif mode == "clip" or index.size == 0:
        index = xp.clip(index, 0, n - 1)
    else:
        bad = (index < 0) | (index >= n)
        message = f"choose: invalid entry in choice array: a holds {{value}}, outside [0, {n}) for {n} " \
                  f"choices; use mode='wrap' or mode='clip' to map it inside"
        if is_device_array(index):
            found = backend.device_check("choose", bad, index, message)
            index = xp.clip(index, 0, n - 1)
        elif bad.any():
            raise ValueError(message.format(value=index[bad][0]))
    stacked = broadcast_to(xs, (n, *shape)) if isinstance(xs, Variable) else \
        _stack_broadcast(xs, shape)
    index = xp.broadcast_to(index, shape).reshape((1, *shape))
    y = reshape(take_along_axis(stacked, index, axis=0), shape)
    if found is not None and y.dtype.kind == "f":           # no wrong number: NaN until the error is read
        y = y * xp.where(found, np.nan, 1).astype(y.dtype)
    return y


def _stack_broadcast(xs, shape):
    """The choices broadcast to `shape` and stacked along a new first axis."""
    return concat([reshape(broadcast_to(x, shape), (1, *shape)) for x in xs], axis=0)


# ----- resize ------------------------------------------------------------------------------
def resize(a: ArrayLike, new_shape: int | Sequence[int]) -> Variable:
    """`a` flattened and repeated cyclically to fill `new_shape`, as np.resize.

    A gather of entry k % a.size for each k: every entry's gradient is the sum over its
    repeats.  An empty `a` gives zeros, as in NumPy.  No host sync (the shape is given).

    Parameters
    ----------
    a : ArrayLike
    new_shape : int or sequence of ints
        The result's shape, every size >= 0.

    Returns
    -------
    Variable
        Of shape `new_shape`, in a's dtype.

    Raises
    ------
    TypeError
        If `new_shape` is not an int or a sequence of ints, or `a` is not array-like.
    ValueError
        If a size in `new_shape` is negative.
    """
    x = as_variable(a, op="resize")
    if isinstance(new_shape, (int, np.integer)) and not isinstance(new_shape, bool):
        new_shape = (new_shape,)
    try:
        shape = tuple(operator.index(n) for n in new_shape)
    except TypeError:
        raise TypeError(
            f"resize: new_shape must be an int or a sequence of ints, got {new_shape!r}"
        ) from None
    if any(isinstance(n, bool) for n in new_shape):
        raise TypeError(f"resize: new_shape must be an int or a sequence of ints, got {new_shape!r}")
    if any(n < 0 for n in shape):
        raise ValueError(f"resize: all sizes in new_shape must be non-negative, got {shape}")
    flat = reshape(x, (x.size,))
    size = int(np.prod(shape))
    if x.size == 0 or size == 0:                            # zeros, as NumPy (a sum of no entries)
        zero = _sum(flat) if x.size == 0 else _sum(flat[:0])
        zero = zero if zero.dtype == x.dtype else zero.astype(x.dtype)
        return broadcast_to(zero, shape)
    return reshape(take(flat, np.arange(size) % x.size), shape)


# ----- sliding_window_view -------------------------------------------------------------------
def _window_index(shape, window_shape, axes):
    """The integer index arrays with x[index] == sliding_window_view(x, window_shape, axes)."""
    ndim = len(shape)
    trimmed = list(shape)
    for ax, w in zip(axes, window_shape):
        trimmed[ax] -= w - 1
    out_ndim = ndim + len(window_shape)

    def along(n, place):                              # arange(n) on output axis `place`
        return np.arange(n).reshape((1,) * place + (n,) + (1,) * (out_ndim - place - 1))

    index = [along(trimmed[i], i) for i in range(ndim)]
    for j, (ax, w) in enumerate(zip(axes, window_shape)):
        index[ax] = index[ax] + along(w, ndim + j)       # position = window start + offset
    return tuple(trimmed), tuple(index)


class SlidingWindows(Forwarder):
    """The windows of `window` along distinct `axes`: NumPy's read-only strided view on the CPU
    (no copy), a gather on a device; the backward adds the windows back (WindowSums)."""

    def __init__(self, window, axes):
        self.window, self.axes = window, axes

    def forward(self, x):
        if get_array_module(x) is np:
            return np.lib.stride_tricks.sliding_window_view(x, self.window, self.axes)
        return x[_window_index(x.shape, self.window, self.axes)[1]]

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return Function(WindowSums(self.window, self.axes, x.shape))(gy)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, x):   # linear: each coefficient windowed
        return series.map_linear(x, lambda c: _linear_map(
            c, lambda shift, count: SlidingWindows(self.window, tuple(a + shift for a in self.axes))))


class WindowSums(Forwarder):
    """The adjoint of SlidingWindows: each window added back where it came from, one slice
    per offset in the window (no scatter of repeated indices)."""

    def __init__(self, window, axes, shape):
        self.window, self.axes, self.shape = window, axes, shape

    def forward(self, gy):
        gx = get_array_module(gy).zeros(self.shape, dtype=gy.dtype)
        counts = [gy.shape[ax] for ax in self.axes]              # windows along each axis
        for offset in np.ndindex(*self.window):
            place = [slice(None)] * len(self.shape)
            for ax, o, n in zip(self.axes, offset, counts):
                place[ax] = slice(o, o + n)
            gx[tuple(place)] += gy[(Ellipsis, *offset)]
        return gx

    save_for_backward = ()

    def backward(self, ggx):
        return Function(SlidingWindows(self.window, self.axes))(ggx)

    taylor_records = True
    _taylor_linear = "linear"

    def taylor(self, gy):  # linear: each coefficient's windows added back
        return series.map_linear(gy, lambda c: _linear_map(
            c, lambda shift, count: WindowSums(self.window, tuple(a + shift for a in self.axes),
                                               (count,) * shift + self.shape)))


def _linear_map(c, make):
    """A Taylor coefficient `c` through the linear op `make(shift, count)` builds: recorded for a
    Variable, run for an array, and for several directions run once on all of them (the
    directions' axis first: the op's axes shifted by one)."""
    if isinstance(c, Directions):
        full = c.full()
        op = make(1, c.count)
        return c._like(Function(op)(full) if isinstance(full, Variable) else op.forward(full))
    op = make(0, None)
    return Function(op)(c) if isinstance(c, Variable) else op.forward(c)


def sliding_window_view(x: ArrayLike, window_shape: int | Sequence[int],
                        axis: int | Sequence[int] | None = None, *, subok: bool = False,
                        writeable: bool = False) -> Variable:
    """Every window of `window_shape` sliding over `x` along `axis`, as
    np.lib.stride_tricks.sliding_window_view.

    The result's shape is x's, each windowed axis cut to the number of windows (n - w + 1),
    followed by the window's axes.  On the CPU the data is NumPy's read-only strided view
    of x's (no copy); on a GPU a gather.  The backward adds the overlapping windows back, one
    slice per offset in the window: each entry of x gets the incoming gradient of every
    window holding it.  An axis named twice (windows within windows) takes a gather by
    integer indices instead.  No host sync.

    Parameters
    ----------
    x : ArrayLike
    window_shape : int or sequence of ints
        The window's size along each axis in `axis` (every axis of `x` for axis None).
    axis : int or sequence of ints, optional
        The axes the windows slide along (repeats allowed: windows of windows, as in NumPy).
    subok : bool
        NumPy's keyword for array subclasses: Variables hold plain arrays, either value is
        the same.
    writeable : bool
        Only False: the windows cannot be written through (a Variable is never written in
        place).

    Returns
    -------
    Variable
        Of shape (x's shape with the windowed axes cut) + window_shape.

    Raises
    ------
    TypeError
        If `window_shape` or `axis` does not hold ints, `subok` is not a bool, or `x` is not
        array-like.
    ValueError
        If `writeable` is True, `window_shape` has a negative size, the wrong length for
        `axis`, or a window is larger than its axis, or an axis is out of range.
    """
    op = "sliding_window_view"
    _flag(subok, "subok", op)
    if _flag(writeable, "writeable", op):
        raise ValueError(
            f"{op}: writeable=True is not supported (a Variable is never written in place); "
            f"the windows are a new array, write into a copy of its data (y.data.copy()) instead"
        )
    x = as_variable(x, op=op)
    window = (window_shape,) if isinstance(window_shape, (int, np.integer)) else window_shape
    try:
        window = tuple(operator.index(w) for w in window)
    except TypeError:
        raise TypeError(
            f"{op}: window_shape must be an int or a sequence of ints, got {window_shape!r}"
        ) from None
    if any(w < 0 for w in window):
        raise ValueError(f"{op}: window_shape cannot hold negative sizes, got {window}")
    if axis is None:
        axes = tuple(range(x.ndim))
        if len(window) != x.ndim:
            raise ValueError(
                f"{op}: window_shape {window} needs one size per axis of the input of shape {x.shape} "
                f"(since axis is None); give axis= for fewer"
            )
    else:
        many = axis if isinstance(axis, (tuple, list)) else (axis,)
        axes = tuple(single_axis(a, x.ndim, op, x.shape) for a in many)
        if len(window) != len(axes):
            raise ValueError(
                f"{op}: window_shape {window} must have one size per axis in axis={axis!r} ({len(axes)})"
            )
    trimmed = list(x.shape)
    for ax, w in zip(axes, window):
        if w > trimmed[ax]:
            raise ValueError(
                f"{op}: a window of {w} along axis {ax} is larger than what is left of it "
                f"({trimmed[ax]}) for the input of shape {x.shape}"
            )
        trimmed[ax] -= w - 1
    if x.ndim == 0:
        return x
    if len(set(axes)) < len(axes):                     # windows within windows along one axis
        return get_item(x, _window_index(x.shape, window, axes)[1])
    return Function(SlidingWindows(window, axes))(x)


__all__ = [
    "union1d", "intersect1d", "setdiff1d", "setxor1d", "unique_values", "unique_counts",
    "unique_inverse", "unique_all", "trim_zeros", "compress", "extract", "choose", "resize",
    "sliding_window_view",
]
