"""The Array API's names in NumPy 2 (cumulative_sum, vecdot, matrix_transpose, unstack, ...) and a
few more of NumPy's functions, built on gengrad's ops.

Almost everything here is a composite: cumsum/cumprod and a join (cumulative_sum/prod), a
product and a sum (vecdot), an axis permutation (matrix_transpose, permute_dims), a split
(unstack), a diagonal (diagflat), so backward and Taylor rules are those ops' own.  `unwrap`
is one op, `Unwrap`: the multiples of the period it adds are piecewise constant, so its
gradient is 1 and its Taylor coefficients past the first are the input's.

`delete`, `insert` and `block` move entries around by NumPy's own rules: NumPy runs the call
on arrays of entry numbers (shapes only, no data), and the result is one gather (V.take) of
the inputs' entries by those numbers, whose backward scatters the gradient back (entries
repeated by insert's broadcasting add up).

`ediff1d` is a ravel, a diff and a join; `linspace` NumPy's formula start + i * step on
Variables (so the samples are NumPy's and `start`, `stop` get gradients), `logspace` and
`geomspace` powers of it.  `unique` reads which entries are equal from the data (as
NumPy's return_index) and gathers the values at their first occurrences, which is where
their gradient goes.
"""

import math
import operator
from numbers import Real
from typing import Any

import numpy as np

from ..axes import single_axis
from ..backend import device_of, errstate, get_array_module, is_device_array, to_cpu
from ..forwarder import Function, Variable, as_variable
from ..types import ArrayLike
from .contraction import _operands, _pair
from .differences import diff
from .elementwise import where
from .exponential import _ufunc_keywords, log10
from .joining import concat, split
from .products import _refuse_keywords, _running_axis, cumprod, cumsum
from .rearrange import moveaxis, swapaxes
from .reduction import sum
from .rounding import Positive, floor
from .selection import diag, take
from .shape import broadcast_to, reshape, transpose


def _integer(value, name, op):
    """`value` as an int (NumPy integers too), or a TypeError naming `op`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{op}: {name} must be an int, got {value!r}")
    return int(value)


# ----- running sums and products -------------------------------------------------
def _cumulative(x, axis, dtype, out, include_initial, op, running, identity):
    """cumulative_sum/cumulative_prod: `running` (cumsum, cumprod) along `axis`, with the
    identity in front if `include_initial`."""
    _refuse_keywords(op, dtype, out)
    x = as_variable(x, op=op)
    if x.ndim == 0:                                     # NumPy takes a 0-d input as 1-d
        x = reshape(x, (1,))
    if axis is None:
        if x.ndim > 1:
            raise ValueError(
                f"{op}: axis is required for an input of more than one dimension (shape {x.shape}); "
                f"give axis=..., or flatten first (V.ravel(x)) for np.cumsum's axis=None"
            )
        axis = 0
    x, axis = _running_axis(x, _integer(axis, "axis", op), op)
    y = running(x, axis)
    if include_initial:
        shape = list(y.shape)
        shape[axis] = 1
        first = get_array_module(y).full(shape, identity, dtype=y.dtype)   # a constant: 0 or 1
        y = concat([first, y], axis)
    return y


def cumulative_sum(x: ArrayLike, /, *, axis: int | None = None, dtype: None = None, out: None = None,
                   include_initial: bool = False) -> Variable:
    """Running sum of `x` along `axis`, as NumPy 2's np.cumulative_sum (the Array API's cumsum).

    Parameters
    ----------
    x : ArrayLike
        A 0-d input is taken as 1-d, as in NumPy.
    axis : int or None
        The axis to sum along (negatives allowed); None only for an input of at most one
        dimension (NumPy's rule: unlike np.cumsum it never flattens).
    dtype, out
        NumPy's keywords, accepted at their default None only.
    include_initial : bool
        Put the sum of no entries, 0, in front: the result is one longer along `axis`.

    Returns
    -------
    Variable
        Of the shape of `x` (one longer along `axis` with include_initial).

    Raises
    ------
    TypeError
        If `axis` is not an int or None, `dtype` or `out` is given, or `x` is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If `axis` is None for an input of more than one dimension, or out of range.
    """
    return _cumulative(x, axis, dtype, out, include_initial, "cumulative_sum", cumsum, 0)


def cumulative_prod(x: ArrayLike, /, *, axis: int | None = None, dtype: None = None, out: None = None,
                    include_initial: bool = False) -> Variable:
    """Running product of `x` along `axis`, as NumPy 2's np.cumulative_prod, exact at zeros.

    The gradient is cumprod's: found without dividing by an entry, so it is right, to
    every order, where entries are 0.

    Parameters
    ----------
    x : ArrayLike
        A 0-d input is taken as 1-d, as in NumPy.
    axis : int or None
        The axis to multiply along (negatives allowed); None only for an input of at most
        one dimension (NumPy's rule: unlike np.cumprod it never flattens).
    dtype, out
        NumPy's keywords, accepted at their default None only.
    include_initial : bool
        Put the product of no entries, 1, in front: the result is one longer along `axis`.

    Returns
    -------
    Variable
        Of the shape of `x` (one longer along `axis` with include_initial).

    Raises
    ------
    TypeError
        If `axis` is not an int or None, `dtype` or `out` is given, or `x` is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If `axis` is None for an input of more than one dimension, or out of range.
    """
    return _cumulative(x, axis, dtype, out, include_initial, "cumulative_prod", cumprod, 1)


# ----- vecdot -------------------------------------------------------------------
def vector_dot(x1, x2, axis1, axis2, op):
    """sum(x1 * x2) over axis `axis1` of x1 and `axis2` of x2 (each normalised by its own
    operand's dimensions, as a gufunc's core axis), the other axes broadcast."""
    x1, x2 = _pair(x1, x2, op)
    for i, x in enumerate((x1, x2)):
        if x.ndim == 0:
            raise ValueError(
                f"{op}: operand {i} is 0-d (shapes {x1.shape} and {x2.shape}); vecdot needs vectors "
                f"along an axis, use x1 * x2 for numbers"
            )
    axis1 = single_axis(axis1, x1.ndim, op, x1.shape)
    axis2 = single_axis(axis2, x2.ndim, op, x2.shape)
    n1, n2 = x1.shape[axis1], x2.shape[axis2]
    if n1 != n2:
        raise ValueError(
            f"{op}: the vectors differ in length, {n1} (axis {axis1} of shape {x1.shape}) and {n2} "
            f"(axis {axis2} of shape {x2.shape}); the vector axis does not broadcast"
        )
    x1, x2 = _last(x1, axis1), _last(x2, axis2)
    try:
        np.broadcast_shapes(x1.shape[:-1], x2.shape[:-1])
    except ValueError:
        raise ValueError(
            f"{op}: the axes other than the vector axis, {x1.shape[:-1]} and {x2.shape[:-1]}, do not "
            f"broadcast together"
        ) from None
    y = sum(x1 * x2, -1)                               # real data: conj(x1) = x1
    dtype = np.result_type(x1.dtype, x2.dtype)         # NumPy's dtype: bool for booleans (the OR of
    return y if y.dtype == dtype else y.astype(dtype)  # the ANDs), int8 for int8; sum gave int64


def _last(x, axis):
    """`x` with `axis` moved to the end (x itself if it is there)."""
    if axis == x.ndim - 1:
        return x
    return transpose(x, [i for i in range(x.ndim) if i != axis] + [axis])


def _core_axis(item, which, op):
    """One operand's entry of a gufunc's `axes` list: an int or a tuple of one int."""
    if isinstance(item, tuple):
        if len(item) != 1:
            raise ValueError(f"{op}: axes entry {item!r} of {which} must name one axis (the vector axis)")
        item, = item
    return _integer(item, f"the axes entry of {which}", op)


def _vecdot_axes(axis, axes, keepdims, op):
    """(axis of x1, axis of x2, place of the kept axis in the result) from the gufunc keywords."""
    if not isinstance(keepdims, (bool, np.bool_)):
        raise TypeError(f"{op}: keepdims must be a boolean, got {keepdims!r}")
    if axes is None:
        axis = -1 if axis is None else _integer(axis, "axis", op)
        return axis, axis, axis
    if axis is not None:
        raise TypeError(f"{op}: cannot specify both axis and axes")
    if not isinstance(axes, list):
        raise TypeError(f"{op}: axes must be a list (one entry per operand, and the output's), got {axes!r}")
    if len(axes) not in (2, 3):
        raise ValueError(f"{op}: axes must have an entry for each operand (and the output), got {axes!r}")
    axis1, axis2 = (_core_axis(item, f"operand {i}", op) for i, item in enumerate(axes[:2]))
    place = -1
    if len(axes) == 3:
        if keepdims:
            place = _core_axis(axes[2], "the output", op)
        elif axes[2] != ():
            raise ValueError(
                f"{op}: the output has no vector axis, its axes entry must be (), got {axes[2]!r}"
            )
    return axis1, axis2, place


def vecdot(x1: ArrayLike, x2: ArrayLike, /, out: None = None, *, axis: int | None = None,
           axes: list | None = None, keepdims: bool = False, **kwargs: Any) -> Variable:
    """Dot products of vectors along an axis, as NumPy 2's gufunc np.vecdot: sum(x1 * x2, axis).

    The other axes broadcast; the vector axis must have one length in both operands.
    (Data are real, so conj(x1) is x1.)

    Parameters
    ----------
    x1, x2 : ArrayLike
        At least 1-d.
    out : None
        Only None: a Variable is never written in place.
    axis : int, optional
        The vector axis of each operand (negatives count from each operand's end); -1 by
        default.
    axes : list, optional
        A gufunc's per-operand axes instead of `axis`: [axis of x1, axis of x2], each an int
        or a tuple of one int, optionally followed by the output's entry (() or, with
        keepdims, the place of the kept axis).
    keepdims : bool
        Keep the vector axis with length 1, at `axis` (or the output's entry of `axes`,
        else last).
    **kwargs
        NumPy's other ufunc keywords (where, casting, order, dtype, subok, signature), at their
        defaults only.

    Returns
    -------
    Variable
        Of the broadcast shape of the other axes.

    Raises
    ------
    TypeError
        If `out` or another ufunc keyword is given, `axis` is not an int, both `axis` and
        `axes` are given, `axes` is not a list, `keepdims` is not a bool, or an operand is
        not array-like.
    ValueError
        If an operand is 0-d, an axis is out of range, the vector lengths differ, or the
        other axes do not broadcast.
    """
    _ufunc_keywords("vecdot", out, kwargs)
    axis1, axis2, place = _vecdot_axes(axis, axes, keepdims, "vecdot")
    y = vector_dot(x1, x2, axis1, axis2, "vecdot")
    if keepdims:
        place = single_axis(place, y.ndim + 1, "vecdot", y.shape)
        y = reshape(y, y.shape[:place] + (1,) + y.shape[place:])
    return y


# ----- axes -----------------------------------------------------------------------
def matrix_transpose(x: ArrayLike, /) -> Variable:
    """The matrices in the last two axes of `x` transposed, as np.matrix_transpose (x.mT).

    Parameters
    ----------
    x : ArrayLike
        At least 2-d: (..., M, N).

    Returns
    -------
    Variable
        (..., N, M).

    Raises
    ------
    ValueError
        If `x` has fewer than 2 dimensions (use V.transpose, or x[:, None], for a vector).
    TypeError
        If `x` is not a Variable, a numeric ndarray, a number or a list of numbers.
    """
    x = as_variable(x, op="matrix_transpose")
    if x.ndim < 2:
        raise ValueError(
            f"matrix_transpose: the input must be at least 2-d (a stack of matrices), got shape {x.shape}"
        )
    return swapaxes(x, -1, -2)


def permute_dims(a: ArrayLike, axes: tuple[int, ...] | None = None) -> Variable:
    """The axes of `a` permuted, as np.permute_dims (NumPy 2's Array-API name of transpose).

    Parameters
    ----------
    a : ArrayLike
    axes : tuple of ints, optional
        A permutation of the axes (negatives allowed); None reverses them.

    Returns
    -------
    Variable
        Axis i of the result is axis axes[i] of `a`.

    Raises
    ------
    TypeError
        If `axes` is not a sequence of ints, or `a` is not array-like.
    ValueError
        If `axes` is not a permutation of the axes of `a`.
    """
    a = as_variable(a, op="permute_dims")
    if axes is None:
        return transpose(a)
    try:
        order = [operator.index(i) for i in axes]
    except TypeError:
        raise TypeError(f"permute_dims: axes must be a tuple of ints or None, got {axes!r}") from None
    normal = [i % a.ndim if -a.ndim <= i < a.ndim else None for i in order] if a.ndim else order
    if sorted(n for n in normal if n is not None) != list(range(a.ndim)) or len(order) != a.ndim:
        raise ValueError(
            f"permute_dims: axes {tuple(order)} are not a permutation of the axes of an input of "
            f"shape {a.shape}"
        )
    return transpose(a, normal)


def unstack(x: ArrayLike, /, *, axis: int = 0) -> tuple[Variable, ...]:
    """The slices of `x` along `axis`, as np.unstack: a tuple, stack's inverse.

    Parameters
    ----------
    x : ArrayLike
        At least 1-d.
    axis : int
        The axis to cut along (negatives allowed).

    Returns
    -------
    tuple of Variable
        x.shape[axis] Variables of the shape of `x` without `axis` (one split in the graph).

    Raises
    ------
    TypeError
        If `axis` is not an int, or `x` is not array-like.
    ValueError
        If `x` is 0-d or `axis` is out of range.
    """
    x = as_variable(x, op="unstack")
    if x.ndim == 0:
        raise ValueError("unstack: the input must be at least 1-d, got a 0-d input")
    axis = single_axis(axis, x.ndim, "unstack", x.shape)
    n = x.shape[axis]
    if n == 0:
        return ()
    rest = x.shape[:axis] + x.shape[axis + 1:]
    return tuple(reshape(piece, rest) for piece in split(x, n, axis))


def diagflat(v: ArrayLike, k: int = 0) -> Variable:
    """A square matrix with the flattened `v` on diagonal `k`, as np.diagflat.

    Parameters
    ----------
    v : ArrayLike
        Any shape; flattened first.
    k : int
        0 the main diagonal, > 0 above it, < 0 below it.

    Returns
    -------
    Variable
        2-d, of side v.size + |k|, zero off the diagonal.

    Raises
    ------
    TypeError
        If `k` is not an int, or `v` is not array-like.
    """
    k = _integer(k, "the diagonal offset k", "diagflat")
    v = as_variable(v, op="diagflat")
    return diag(reshape(v, (v.size,)), k)


# ----- unwrap ---------------------------------------------------------------------
class Unwrap(Positive):
    """Phase unwrapped along an axis: p plus multiples of the period, piecewise constant in p."""

    def __init__(self, discont, axis, period):
        self.discont, self.axis, self.period = discont, axis, period

    def forward(self, p):
        xp = get_array_module(p)
        with errstate(p, invalid="ignore"):             # NaN in p: NaN out, as NumPy, quietly
            return xp.unwrap(p, discont=self.discont, axis=self.axis, period=self.period)

    # backward and Taylor rule: Positive's, y = p + c with c piecewise constant: dy = dp


def _real(value, name):
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"unwrap: {name} must be a real number, got {value!r}")
    return float(value)


def unwrap(p: ArrayLike, discont: float | None = None, axis: int = -1, *,
           period: float = 2 * math.pi) -> Variable:
    """Unwrap phases by adding multiples of `period` where consecutive entries jump by more
    than `discont`, as np.unwrap.

    The multiples added are piecewise constant in `p`, so the gradient is 1 (and the
    higher derivatives 0) away from the jumps' thresholds, where the result itself jumps.

    Parameters
    ----------
    p : ArrayLike
        At least 1-d.
    discont : float, optional
        The largest jump left alone; None (and anything below period / 2) is period / 2.
    axis : int
        The axis to unwrap along (negatives allowed).
    period : float
        The period of the data (2 pi: radians); nonzero.

    Returns
    -------
    Variable
        Of the shape of `p`.

    Raises
    ------
    TypeError
        If `discont` or `period` is not a real number (arrays are not supported), `axis`
        is not an int, or `p` is not array-like.
    ValueError
        If `p` is 0-d, `axis` is out of range, or `period` is 0.
    """
    p = as_variable(p, op="unwrap")
    if discont is not None:
        discont = _real(discont, "discont")
    period = _real(period, "period")
    if period == 0:
        raise ValueError("unwrap: period must be nonzero (NumPy's answer would be NaN)")
    if p.ndim == 0:
        raise ValueError("unwrap: the input must be at least 1-d, got a 0-d input")
    axis = single_axis(axis, p.ndim, "unwrap", p.shape)
    return Function(Unwrap(discont, axis, period))(p)


# ----- delete, insert, block: a gather by entry numbers that NumPy lays out -------------------
def _positions(obj, op):
    """`obj` of delete/insert (an int, a slice, or a sequence or array of ints or booleans)
    as NumPy takes it: positions are constants, on the host."""
    if isinstance(obj, Variable):
        raise TypeError(
            f"{op}: obj must be positions (an int, a slice or an array of ints), not a Variable; "
            f"positions have no gradient, pass obj.data"
        )
    return to_cpu(obj) if is_device_array(obj) else obj


def _numbered(shape, start=0):
    """An array of `shape` holding the entry numbers start, start + 1, ..."""
    return np.arange(start, start + math.prod(shape), dtype=np.intp).reshape(shape)


def _gathered(flat, numbers):
    """The entries of the 1-d `flat` at `numbers` (NumPy's layout of the result), as one gather."""
    return take(flat, np.asarray(numbers, dtype=np.intp))


def _numpy_layout(call, op, shapes):
    """`call()` on entry numbers; NumPy's errors named by `op`, with the input shapes."""
    try:
        return call()
    except (ValueError, IndexError, TypeError) as error:    # (an AxisError is a ValueError here)
        kind = next(k for k in (ValueError, IndexError, TypeError) if isinstance(error, k))
        raise kind(f"{op}: {error} (input shapes {shapes})") from None


def delete(arr: ArrayLike, obj: Any, axis: int | None = None) -> Variable:
    """`arr` without the entries at `obj` along `axis` (None: of the flattened `arr`), as np.delete.

    Parameters
    ----------
    arr : ArrayLike
    obj : int, slice, or sequence/array of ints or booleans
        The positions to remove (negatives count from the end; a boolean mask marks them).
        Constants: a Variable is refused.
    axis : int or None
        The axis to delete along (negatives allowed); None flattens `arr` first.

    Returns
    -------
    Variable
        The remaining entries; the gradient of a removed entry is 0.

    Raises
    ------
    TypeError
        If `obj` is a Variable or of a type NumPy refuses (floats), `axis` is not an int or
        None, or `arr` is not array-like.
    IndexError
        If a position is out of bounds.
    ValueError
        If `axis` is out of range, or a boolean `obj` has the wrong length.
    """
    arr = as_variable(arr, op="delete")
    obj = _positions(obj, "delete")
    if axis is not None:
        axis = single_axis(axis, max(arr.ndim, 1), "delete", arr.shape)
    numbers = _numpy_layout(lambda: np.delete(_numbered(arr.shape), obj, axis), "delete", [arr.shape])
    return _gathered(reshape(arr, (arr.size,)), numbers)


def insert(arr: ArrayLike, obj: Any, values: ArrayLike, axis: int | None = None) -> Variable:
    """`values` inserted into `arr` before the positions `obj` along `axis` (None: into the
    flattened `arr`), as np.insert.

    `values` broadcast to the slots as in NumPy and are cast to the dtype of `arr`; the
    gradient flows to both `arr` and `values` (an entry of `values` that broadcasting
    repeats gets the sum of its copies' gradients).

    Parameters
    ----------
    arr : ArrayLike
    obj : int, slice, or sequence/array of ints
        The positions before which to insert (len(arr) appends).  Constants: a Variable
        is refused.
    values : ArrayLike
        What to insert, broadcast as NumPy does; a Python number takes the dtype of `arr`.
    axis : int or None
        The axis to insert along (negatives allowed); None flattens `arr` first.

    Returns
    -------
    Variable
        `arr` with the new entries, in the dtype of `arr`.

    Raises
    ------
    TypeError
        If `obj` is a Variable or of a type NumPy refuses, `axis` is not an int or None, or
        an input is not array-like.
    IndexError
        If a position is out of bounds.
    ValueError
        If `axis` is out of range, or `values` do not broadcast to the slots.
    """
    arr, values = _pair(arr, values, "insert")
    if values.dtype != arr.dtype:                      # NumPy casts values to arr's dtype
        values = values.astype(arr.dtype)
    obj = _positions(obj, "insert")
    if axis is not None:
        axis = single_axis(axis, max(arr.ndim, 1), "insert", arr.shape)
    shapes = [arr.shape, values.shape]
    numbers = _numpy_layout(
        lambda: np.insert(_numbered(arr.shape), obj, _numbered(values.shape, arr.size), axis),
        "insert", shapes,
    )
    flat = concat([reshape(arr, (arr.size,)), reshape(values, (values.size,))])
    return _gathered(flat, numbers)


def _leaves(arrays, found):
    """The nested lists (and tuples, kept for NumPy to refuse) of `arrays`, their leaves
    collected in order into `found`."""
    if isinstance(arrays, (list, tuple)):
        return type(arrays)(_leaves(item, found) for item in arrays)
    found.append(arrays)
    return None


def block(arrays: Any) -> Variable:
    """An array assembled from nested lists of blocks, as np.block.

    The innermost lists join along the last axis, the next ones out along the one before,
    and so on; blocks of fewer dimensions are padded with leading 1s, as in NumPy.

    Parameters
    ----------
    arrays : nested lists of ArrayLike, or one ArrayLike
        Variables, arrays and numbers (numbers take the dtype of the first array).  Only
        lists arrange blocks: a tuple is refused, as in NumPy.

    Returns
    -------
    Variable
        The assembled array, in the dtypes' common type; each block gets its part of the
        gradient.

    Raises
    ------
    TypeError
        If a tuple arranges blocks, or a block is not array-like.
    ValueError
        If a list is empty, the list depths differ, or the blocks' shapes do not fit.
    """
    leaves = []
    structure = _leaves(arrays, leaves)
    if not leaves:                                       # only empty lists: NumPy's error
        _numpy_layout(lambda: np.block(structure), "block", [])
    leaves = _operands(leaves, "block")
    shapes = [x.shape for x in leaves]
    starts = np.cumsum([0] + [x.size for x in leaves[:-1]])
    numbered = iter([_numbered(shape, int(start)) for shape, start in zip(shapes, starts)])
    numbers = _numpy_layout(lambda: np.block(_renumber(structure, numbered)), "block", shapes)
    return _gathered(concat([reshape(x, (x.size,)) for x in leaves]), numbers)


def _renumber(structure, numbered):
    """`structure` with each leaf replaced by the next array of entry numbers."""
    if isinstance(structure, (list, tuple)):
        return type(structure)(_renumber(item, numbered) for item in structure)
    return next(numbered)



# ----- ediff1d ------------------------------------------------------------------------------
def _numpy_dtype(value):
    """The dtype np.asanyarray gives `value`: a Variable's or an array's own, NumPy's default
    for a number or a list (int64 for ints, float64 for floats)."""
    if isinstance(value, Variable) or hasattr(value, "dtype"):
        return np.dtype(value.dtype)
    return np.asarray(value).dtype


def _end_piece(value, flat, name):
    """ediff1d's `to_begin`/`to_end` flattened, in the dtype of `flat`, where NumPy's
    same_kind rule allows the cast (an int ary refuses float ends, as in NumPy)."""
    piece = _pair(flat, value, "ediff1d")[1]
    dtype = _numpy_dtype(value)
    if not np.can_cast(dtype, flat.dtype, casting="same_kind"):
        raise TypeError(
            f"ediff1d: {name} of dtype {dtype} cannot be cast to the dtype of ary, {flat.dtype}, under "
            f"NumPy's same_kind rule; convert ary (ary.astype(np.float64)) or {name} first"
        )
    piece = reshape(piece, (piece.size,))
    return piece if piece.dtype == flat.dtype else piece.astype(flat.dtype)


def ediff1d(ary: ArrayLike, to_end: ArrayLike | None = None, to_begin: ArrayLike | None = None) -> Variable:
    """The differences of consecutive entries of the flattened `ary`, with `to_begin` in front
    and `to_end` behind, as np.ediff1d.

    A composite: ravel, diff and concatenate.  `to_begin` and `to_end` may be Variables (they
    get their part of the gradient) or constants.

    Parameters
    ----------
    ary : ArrayLike
        Any shape (flattened first); not boolean (NumPy has no difference of booleans).
    to_end, to_begin : ArrayLike, optional
        Entries to put behind and in front of the differences (flattened).  Cast to the
        dtype of `ary`, which must be allowed under NumPy's same_kind rule (floats next to
        integers are not).

    Returns
    -------
    Variable
        1-d, of length max(ary.size - 1, 0) + to_begin.size + to_end.size, in the dtype of `ary`.

    Raises
    ------
    TypeError
        If `ary` is boolean, `to_begin` or `to_end` cannot be cast to its dtype under the
        same_kind rule, or an argument is not array-like.
    """
    ary = as_variable(ary, op="ediff1d")
    if ary.dtype.kind == "b":
        raise TypeError(
            "ediff1d: ary is boolean, and NumPy has no subtraction of booleans; convert it first "
            "(ary.astype(int)), or compare neighbours with np.not_equal for a mask of changes"
        )
    flat = reshape(ary, (ary.size,))
    pieces = [diff(flat)]                                # flat[1:] - flat[:-1]
    if to_begin is not None:
        pieces.insert(0, _end_piece(to_begin, flat, "to_begin"))
    if to_end is not None:
        pieces.append(_end_piece(to_end, flat, "to_end"))
    return concat(pieces) if len(pieces) > 1 else pieces[0]


# ----- linspace, logspace, geomspace ----------------------------------------------------------
def _flag(value, name, op):
    """A bool argument (NumPy's bools too), or a TypeError naming `op`."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{op}: {name} must be a bool, got {value!r}")
    return bool(value)


def _count(num, op):
    """The number of samples, a non-negative int."""
    try:
        num = operator.index(num)
    except TypeError:
        raise TypeError(f"{op}: num must be an int, got {num!r}") from None
    if num < 0:
        raise ValueError(f"{op}: the number of samples, {num}, must be non-negative")
    return num


def _real_dtype(dtype, op):
    """`dtype` as a NumPy dtype of real numbers (integers and booleans too), or None."""
    if dtype is None:
        return None
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{op}: dtype {dtype!r} is not a NumPy dtype") from None
    if dtype.kind not in "biuf":
        raise TypeError(f"{op}: dtype must be a real number type (gengrad holds real data), got {dtype}")
    return dtype


def _inexact(*values):
    """The dtype of linspace's samples of `values` (start, stop), as NumPy finds it: their
    common type, Python numbers weak (NumPy 2's rule), float64 where that is not a float."""
    dt = np.result_type(*[v if type(v) in (bool, int, float) else _numpy_dtype(v) for v in values])
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _endpoints(start, stop, op):
    """start and stop as Variables in the dtype of linspace's samples (numbers take it)."""
    x0, x1 = _pair(start, stop, op)
    dt = _inexact(start, stop)
    return tuple(x if x.dtype == dt else x.astype(dt) for x in (x0, x1))


def _broadcast_ends(start, stop, op):
    """The broadcast shape of `start` and `stop`, or a ValueError naming `op`."""
    try:
        return np.broadcast_shapes(start.shape, stop.shape)
    except ValueError:
        raise ValueError(
            f"{op}: start of shape {start.shape} and stop of shape {stop.shape} do not broadcast together"
        ) from None


def _spaced(start, stop, num, endpoint, axis, op):
    """(samples along a new first axis moved to `axis`, step) of linspace, by NumPy's formula
    y_i = start + i * step with step = (stop - start) / div, and the last sample stop itself
    with the endpoint: exact NumPy values, and a gradient (1 - i / div, i / div) to (start, stop)."""
    shape = _broadcast_ends(start, stop, op)
    axis = single_axis(axis, len(shape) + 1, op, (num, *shape))
    xp, dt = get_array_module(start, stop), start.dtype
    div = num - 1 if endpoint else num
    last = endpoint and num > 1                     # the last sample is stop itself, as NumPy sets it
    i = xp.arange(num - last, dtype=dt).reshape((-1,) + (1,) * len(shape))   # constants 0, 1, ...
    delta = stop - start
    if div > 0:
        step = delta / div
        # where the step underflows to 0 (a span of subnormals, NumPy's gh-5437), NumPy scales
        # i / div by the span instead; picked per entry, with no host sync (NumPy switches every
        # entry of an array once one underflows: the others may then differ in the last bit)
        y = start + where(step.data == 0, delta * (i / div), step * i)
    else:                                           # no sample, or one with the endpoint: no step
        step = Variable(xp.full((), np.nan, dtype=dt), requires_grad=False)   # NumPy's NaN
        y = start + delta * i
    if last:
        y = concat([y, reshape(broadcast_to(stop, shape), (1, *shape))])
    return (moveaxis(y, 0, axis) if axis else y), step


def _on_host_only(device, op, *xs):
    """NumPy's `device` keyword: None, or 'cpu' (NumPy's only device) for data on the host."""
    on_host = all(device_of(x) == "cpu" for x in xs)
    if device is None or (isinstance(device, str) and device == "cpu" and on_host):
        return
    raise ValueError(
        f"{op}: device={device!r} is not supported: the samples are made where start and stop are "
        f"(device None, or 'cpu' for host data as in NumPy); move them with .to_gpu() / .to_cpu()"
    )


def linspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0, *,
             device: str | None = None) -> Variable | tuple[Variable, Variable]:
    """`num` evenly spaced samples from `start` to `stop`, as np.linspace.

    The samples are NumPy's, start + i * step with step = (stop - start) / div (div = num - 1
    with the endpoint, else num), the last one stop itself with the endpoint; `start` and
    `stop` may be Variables (arrays too, broadcast together), and get the gradients
    sum_i (1 - i / div) g_i and sum_i (i / div) g_i.

    Parameters
    ----------
    start, stop : ArrayLike
        The ends of the interval; arrays broadcast together and give one sequence per entry.
    num : int
        The number of samples, >= 0.
    endpoint : bool
        Whether `stop` is the last sample (else the samples stop one step short of it).
    retstep : bool
        Return the step too.
    dtype : dtype, optional
        The samples' dtype (computed in the inputs' float type first).  An integer dtype
        floors the samples, as NumPy does: integer data carry no gradient, so the result
        is a constant.
    axis : int
        Where the samples' axis goes in the result when `start`/`stop` are arrays
        (negatives count from the end of the result).
    device : None or 'cpu'
        NumPy's keyword: the samples are made where `start` and `stop` are.

    Returns
    -------
    Variable, or (Variable, Variable) with retstep
        Of shape (num,) + the broadcast shape of `start` and `stop`, the first axis moved to
        `axis`; with retstep, the step too: (stop - start) / div, of the broadcast shape (a
        Variable, differentiable), or a constant NaN where there is no step (num 0, or num 1
        with the endpoint), as NumPy's.

    Raises
    ------
    TypeError
        If `num` is not an int, `endpoint` or `retstep` not a bool, `dtype` not a real
        dtype, `axis` not an int, or `start`/`stop` not array-like.
    ValueError
        If `num` is negative, `start` and `stop` do not broadcast, `axis` is out of range,
        or `device` is not None or 'cpu' (for host data).
    """
    num = _count(num, "linspace")
    endpoint, retstep = _flag(endpoint, "endpoint", "linspace"), _flag(retstep, "retstep", "linspace")
    dtype = _real_dtype(dtype, "linspace")
    x0, x1 = _endpoints(start, stop, "linspace")
    _on_host_only(device, "linspace", x0, x1)
    y, step = _spaced(x0, x1, num, endpoint, axis, "linspace")
    if dtype is not None:
        if dtype.kind in "iu":
            y = floor(y)                                 # NumPy floors before the cast
        y = y.astype(dtype, copy=False)
    return (y, step) if retstep else y


def logspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True, base: ArrayLike = 10.0,
             dtype: Any = None, axis: int = 0) -> Variable:
    """`num` samples spaced evenly on a log scale, base ** linspace(start, stop), as np.logspace.

    A composite: linspace, then a power.  `start`, `stop` and `base` may be Variables.

    Parameters
    ----------
    start, stop : ArrayLike
        The exponents of the first and last samples (broadcast together).
    num : int
        The number of samples, >= 0.
    endpoint : bool
        Whether base ** stop is the last sample.
    base : ArrayLike
        The base of the log scale; an array broadcasts with `start` and `stop`, its new
        samples axis at `axis`, as in NumPy.
    dtype : dtype, optional
        The result's dtype (a cast, as NumPy's: an integer dtype gives a constant).
    axis : int
        Where the samples' axis goes in the result (negatives count from its end).

    Returns
    -------
    Variable
        Of shape (num,) + the broadcast shape of `start`, `stop` (and `base`), the first axis
        moved to `axis`.

    Raises
    ------
    TypeError
        If `num` is not an int, `endpoint` not a bool, `dtype` not a real dtype, `axis`
        not an int, or an argument is not array-like.
    ValueError
        If `num` is negative, the shapes do not broadcast, or `axis` is out of range.
    """
    num = _count(num, "logspace")
    endpoint = _flag(endpoint, "endpoint", "logspace")
    dtype = _real_dtype(dtype, "logspace")
    x0, x1 = _endpoints(start, stop, "logspace")
    if not isinstance(base, (int, float)):
        base = _pair(x0, base, "logspace")[1]
        if base.ndim:                        # NumPy's rule: all three padded to one ndim, and
            try:                             # base given the samples' axis
                ndim = len(np.broadcast_shapes(x0.shape, x1.shape, base.shape))
            except ValueError:
                raise ValueError(
                    f"logspace: start {x0.shape}, stop {x1.shape} and base {base.shape} do not broadcast "
                    f"together"
                ) from None
            x0, x1, base = (reshape(v, (1,) * (ndim - v.ndim) + v.shape) for v in (x0, x1, base))
            place = single_axis(axis, ndim + 1, "logspace", (num, *base.shape))
            base = reshape(base, base.shape[:place] + (1,) + base.shape[place:])
    y = base ** _spaced(x0, x1, num, endpoint, axis, "logspace")[0]
    return y if dtype is None else y.astype(dtype, copy=False)


def geomspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Variable:
    """`num` samples from `start` to `stop` in geometric progression, as np.geomspace.

    NumPy's construction, as a composite: with s the sign of `start`, the samples are
    s * 10 ** linspace(log10(start / s), log10(stop / s)), the first and last ones
    `start` and `stop` themselves; sample i of n is start^(1 - t) stop^t (t = i / div),
    so `start` and `stop` get the gradients of that.  Ends of opposite signs give NaN, as
    in NumPy.

    Parameters
    ----------
    start, stop : ArrayLike
        The first and last samples (broadcast together), nonzero.
    num : int
        The number of samples, >= 0.
    endpoint : bool
        Whether `stop` is the last sample.
    dtype : dtype, optional
        The result's dtype (a cast, as NumPy's: an integer dtype gives a constant).  The
        samples are computed in float64, or in `dtype` where it is a float type.
    axis : int
        Where the samples' axis goes in the result (negatives count from its end).

    Returns
    -------
    Variable
        Of shape (num,) + the broadcast shape of `start` and `stop`, the first axis moved to
        `axis`.

    Raises
    ------
    TypeError
        If `num` is not an int, `endpoint` not a bool, `dtype` not a real dtype, `axis`
        not an int, or `start`/`stop` not array-like.
    ValueError
        If `start` or `stop` holds a 0 (checked on the data: one host sync on a GPU), `num`
        is negative, the shapes do not broadcast, or `axis` is out of range.
    """
    num = _count(num, "geomspace")
    endpoint = _flag(endpoint, "endpoint", "geomspace")
    dtype = _real_dtype(dtype, "geomspace")
    x0, x1 = _pair(start, stop, "geomspace")
    _broadcast_ends(x0, x1, "geomspace")
    # NumPy computes in the common type of the ends (as arrays), float(num) and a 0-d array of
    # `dtype` (float64 for None): float64, or a lower float dtype asked for
    dt = np.result_type(_numpy_dtype(start), _numpy_dtype(stop), float(num),
                        np.dtype(np.float64 if dtype is None else dtype))
    dt = dt if dt.kind == "f" else np.dtype(np.float64)
    x0, x1 = (x if x.dtype == dt else x.astype(dt) for x in (x0, x1))
    xp = get_array_module(x0, x1)
    if bool(xp.any(x0.data == 0) | xp.any(x1.data == 0)):       # (one host sync on a GPU)
        raise ValueError("geomspace: a geometric sequence cannot include zero (start or stop holds a 0)")
    sign = xp.sign(x0.data)                               # a constant: start / sign > 0
    x0, x1 = x0 / sign, x1 / sign
    samples, _ = _spaced(log10(x0), log10(x1), num, endpoint, 0, "geomspace")
    y = 10.0 ** samples
    if num > 0:                                           # the ends exactly, as NumPy sets them
        shape = y.shape[1:]
        ends = [reshape(broadcast_to(x0, shape), (1, *shape)), y[1:]]
        if num > 1 and endpoint:
            ends = [ends[0], y[1:-1], reshape(broadcast_to(x1, shape), (1, *shape))]
        y = concat(ends)
    y = y * sign
    axis = single_axis(axis, y.ndim, "geomspace", y.shape)
    if axis:
        y = moveaxis(y, 0, axis)
    return y if dtype is None else y.astype(dtype, copy=False)


# ----- unique -------------------------------------------------------------------------------
def unique(ar: ArrayLike, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           sorted: bool = True) -> Variable | tuple:
    """The sorted unique entries of `ar` (unique slices along `axis`), as np.unique.

    The values are entries of `ar`: a gather of its entries at their first occurrences
    (np.unique's return_index), so the gradient of each unique value goes to the first
    occurrence of that value in `ar` (in the flattened order; along `axis`: the first
    slice), and repeats get 0, as in JAX's jnp.unique (PyTorch's torch.unique has no
    gradient).  NaNs are one value with equal_nan (the first NaN gets the gradient), each
    its own without.  Which entries are equal is read from the data: one host sync on a
    GPU, as CuPy's unique.

    Parameters
    ----------
    ar : ArrayLike
        Flattened unless `axis` is given.
    return_index, return_inverse, return_counts : bool
        Also return the positions of the first occurrences, the positions in the unique
        values that rebuild `ar` (values[inverse] == ar), and how often each unique value
        occurs: plain integer arrays (no gradient), as NumPy's.
    axis : int, optional
        The axis whose slices are compared (unique rows for axis=0); None flattens `ar`.
    equal_nan : bool
        Whether all NaNs count as one value.
    sorted : bool
        NumPy's keyword: the values come sorted either way (NumPy allows it for False).

    Returns
    -------
    Variable, or a tuple (values, then the integer arrays asked for, in this order)
        The values: 1-d for axis None, else `ar` with `axis` cut to the unique slices.  The
        inverse has the shape of `ar` for axis None (or 1-d `ar`), else 1-d.

    Raises
    ------
    TypeError
        If a flag is not a bool, `axis` is not an int or None, or `ar` is not array-like.
    ValueError
        If `axis` is out of range (a 0-d `ar` has no axis).
    """
    flags = [_flag(value, name, "unique") for name, value in (
        ("return_index", return_index), ("return_inverse", return_inverse), ("return_counts", return_counts),
        ("equal_nan", equal_nan), ("sorted", sorted))]
    return_index, return_inverse, return_counts, equal_nan, _ = flags
    ar = as_variable(ar, op="unique")
    if axis is not None:
        axis = single_axis(axis, ar.ndim, "unique", ar.shape)
    xp = get_array_module(ar)
    found = list(xp.unique(ar.data, return_index=True, return_inverse=return_inverse,
                           return_counts=return_counts, axis=axis, equal_nan=equal_nan))
    first = found[1]                                      # the first occurrences: distinct positions
    outputs = [take(ar, first, axis)]
    if return_index:
        outputs.append(first)
    if return_inverse:                                    # NumPy 2's shape: ar's, 1-d along an axis
        inverse = found[2]
        outputs.append(inverse.reshape(ar.shape if axis is None or ar.ndim == 1 else (-1,)))
    if return_counts:
        outputs.append(found[-1])
    return outputs[0] if len(outputs) == 1 else tuple(outputs)

__all__ = [
    "cumulative_sum", "cumulative_prod", "vecdot", "matrix_transpose", "permute_dims", "unstack",
    "diagflat", "unwrap", "delete", "insert", "block", "ediff1d", "linspace", "logspace", "geomspace",
    "unique",
]
