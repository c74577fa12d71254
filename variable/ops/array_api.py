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

ediff1d, linspace, logspace, geomspace and unique are in sequences.py.
"""

import math
import operator
from numbers import Real
from typing import Any

import numpy as np

from ..axes import single_axis
from ..backend import errstate, get_array_module, is_device_array, to_cpu
from ..forwarder import Function, Variable, as_variable
from ..types import ArrayLike
from .contraction import _operands, _pair
from .exponential import _ufunc_keywords
from .joining import Unstack, concat
from .matmul import matmul
from .products import _refuse_keywords, _running_axis, cumprod, cumsum
from .rearrange import swapaxes
from .reduction import sum
from .rounding import Positive
from .selection import diag, take
from .shape import reshape, transpose


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


# ----- matvec, vecmat ------------------------------------------------------------
def _core_axes(axes, op, matrix_first):
    """The gufunc `axes` of matvec (matrix_first) or vecmat: (the matrix's two core axes,
    the vector's axis, the output's axis), NumPy's defaults (-2, -1), -1, -1 for None."""
    if axes is None:
        matrix, vector, place = (-2, -1), -1, -1
    else:
        if not isinstance(axes, list):
            raise TypeError(
                f"{op}: axes must be a list (one entry per operand, and the output's), got {axes!r}"
            )
        if len(axes) != 3:
            raise ValueError(
                f"{op}: axes must have an entry for both operands and the output (3 entries: the output has "
                f"a core axis), got {axes!r}"
            )
        which = (1, 0) if not matrix_first else (0, 1)
        matrix = axes[which[0]]
        if not isinstance(matrix, tuple) or len(matrix) != 2:
            raise ValueError(
                f"{op}: the axes entry of the matrix must be a tuple of two ints, got {matrix!r}"
            )
        matrix = tuple(_integer(a, "an axes entry of the matrix", op) for a in matrix)
        vector = _core_axis(axes[which[1]], "the vector", op)
        place = _core_axis(axes[2], "the output", op)
    return matrix, vector, place


def _matrix_vector(x1, x2, axes, axis, keepdims, out, kwargs, op, matrix_first):
    """matvec (A x, A = x1) or vecmat (x^T A, x = x1) over the core axes, the rest broadcast."""
    _ufunc_keywords(op, out, kwargs)
    if axis is not None:
        raise TypeError(
            f"{op}: axis can only be used with a single shared core dimension, not with the 2 "
            f"distinct ones of its signature (as NumPy); use axes=[...]"
        )
    if not isinstance(keepdims, (bool, np.bool_)) or keepdims:
        raise TypeError(f"{op}: keepdims={keepdims!r} is not supported (NumPy refuses it for {op} too)")
    x1, x2 = _pair(x1, x2, op)
    a, v = (x1, x2) if matrix_first else (x2, x1)
    if a.ndim < 2 or v.ndim < 1:
        raise ValueError(
            f"{op}: needs a matrix (at least 2-d) and a vector (at least 1-d), got shapes {x1.shape} and "
            f"{x2.shape}; for numbers use x1 * x2"
        )
    matrix, vector, place = _core_axes(axes, op, matrix_first)
    rows, inner = (single_axis(i, a.ndim, op, a.shape) for i in matrix)
    if rows == inner:
        raise ValueError(f"{op}: the matrix's two core axes must differ, got {matrix}")
    if not matrix_first:
        rows, inner = inner, rows                      # vecmat's matrix is (n, m): n the summed axis
    vector = single_axis(vector, v.ndim, op, v.shape)
    if a.shape[inner] != v.shape[vector]:
        raise ValueError(
            f"{op}: the summed lengths differ, {a.shape[inner]} (axis {inner} of the matrix, shape "
            f"{a.shape}) and {v.shape[vector]} (axis {vector} of the vector, shape {v.shape})"
        )
    rest = [i for i in range(a.ndim) if i not in (rows, inner)]
    a = transpose(a, rest + [rows, inner])             # (..., m, n)
    v = _last(v, vector)                               # (..., n)
    try:
        np.broadcast_shapes(a.shape[:-2], v.shape[:-1])
    except ValueError:
        raise ValueError(
            f"{op}: the axes other than the core axes, {a.shape[:-2]} and {v.shape[:-1]}, do not broadcast "
            f"together"
        ) from None
    y = matmul(a, reshape(v, v.shape + (1,)))          # A v, as a matrix of one column (real: conj(x) = x)
    y = reshape(y, y.shape[:-1])
    place = single_axis(place, y.ndim, op, y.shape)
    if place != y.ndim - 1:                            # the output's core axis where `axes` puts it
        order = list(range(y.ndim - 1))
        order.insert(place, y.ndim - 1)
        y = transpose(y, order)
    dtype = np.result_type(x1.dtype, x2.dtype)         # NumPy's dtype (bool for booleans)
    return y if y.dtype == dtype else y.astype(dtype)


def matvec(x1: ArrayLike, x2: ArrayLike, /, out: None = None, *, axes: list | None = None,
           axis: None = None, keepdims: bool = False, **kwargs: Any) -> Variable:
    """Matrix-vector products, as NumPy 2's gufunc np.matvec: y[..., i] = sum_j x1[..., i, j] x2[..., j].

    The matrices are the last two axes of x1 (or those `axes` names), the vectors the last
    axis of x2; the other axes broadcast.  One V.matmul, whose gradients and Taylor rule
    it inherits.  (Data are real: no conjugation arises.)

    Parameters
    ----------
    x1 : ArrayLike
        (..., M, N): at least 2-d.
    x2 : ArrayLike
        (..., N): at least 1-d.
    out : None
        Only None: a Variable is never written in place.
    axes : list, optional
        A gufunc's per-operand axes: [(rows, columns) of x1, the axis of x2, the output's
        axis] (ints or tuples of one int for the last two; all three are needed, as in
        NumPy).
    axis : None
        Refused unless None, as NumPy refuses it for matvec's two core dimensions.
    keepdims : bool
        Only False (NumPy refuses keepdims for matvec).
    **kwargs
        NumPy's other ufunc keywords (where, casting, order, dtype, subok, signature), at their
        defaults only.

    Returns
    -------
    Variable
        (..., M), the batch axes broadcast; in NumPy's dtype for integer and boolean inputs.

    Raises
    ------
    TypeError
        If `out`, `axis`, `keepdims` or another ufunc keyword is given, `axes` is not a list,
        or an operand is not array-like.
    ValueError
        If x1 is not at least 2-d or x2 at least 1-d, the summed lengths differ, an axis is
        out of range, `axes` does not have 3 entries, or the batch axes do not broadcast.
    """
    return _matrix_vector(x1, x2, axes, axis, keepdims, out, kwargs, "matvec", matrix_first=True)


def vecmat(x1: ArrayLike, x2: ArrayLike, /, out: None = None, *, axes: list | None = None,
           axis: None = None, keepdims: bool = False, **kwargs: Any) -> Variable:
    """Vector-matrix products, as NumPy 2's gufunc np.vecmat: y[..., j] = sum_i x1[..., i] x2[..., i, j].

    The vectors are the last axis of x1, the matrices the last two axes of x2 (or those
    `axes` names); the other axes broadcast.  One V.matmul, whose gradients and Taylor
    rule it inherits.  (Data are real, so conj(x1) is x1.)

    Parameters
    ----------
    x1 : ArrayLike
        (..., N): at least 1-d.
    x2 : ArrayLike
        (..., N, M): at least 2-d.
    out : None
        Only None: a Variable is never written in place.
    axes : list, optional
        A gufunc's per-operand axes: [the axis of x1, (rows, columns) of x2, the output's
        axis] (all three are needed, as in NumPy).
    axis : None
        Refused unless None, as NumPy refuses it for vecmat's two core dimensions.
    keepdims : bool
        Only False (NumPy refuses keepdims for vecmat).
    **kwargs
        NumPy's other ufunc keywords (where, casting, order, dtype, subok, signature), at their
        defaults only.

    Returns
    -------
    Variable
        (..., M), the batch axes broadcast; in NumPy's dtype for integer and boolean inputs.

    Raises
    ------
    TypeError
        If `out`, `axis`, `keepdims` or another ufunc keyword is given, `axes` is not a list,
        or an operand is not array-like.
    ValueError
        If x1 is not at least 1-d or x2 at least 2-d, the summed lengths differ, an axis is
        out of range, `axes` does not have 3 entries, or the batch axes do not broadcast.
    """
    return _matrix_vector(x1, x2, axes, axis, keepdims, out, kwargs, "vecmat", matrix_first=False)


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
    return Function(Unstack(axis))(x)


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


__all__ = [
    "cumulative_sum", "cumulative_prod", "vecdot", "matvec", "vecmat", "matrix_transpose", "permute_dims",
    "unstack", "diagflat", "unwrap", "delete", "insert", "block",
]
