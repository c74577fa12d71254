"""Selecting entries: sort, partition, take_along_axis, take, select, diag, diagonal, tril, triu.

Every op here is linear in its data (sort and partition piecewise so: linear once the
permutation is fixed).  Forward saves the integer index it gathers with as a constant;
backward scatters the gradient back through indexing's `GetItemGrad` (repeated indices
add up), and the Taylor rule applies the same gather to every coefficient.
"""

import operator
import sys
from collections.abc import Sequence

import numpy as np

from .. import series
from ..axes import single_axis
from ..backend import get_array_module, is_device_array
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike
from ..variable import refuse_torchs_pair
from .elementwise import _reduce
from .indexing import GetItem, GetItemGrad
from .joining import _as_sequence, _coefficients
from .piecewise import where
from .shape import reshape, sum_to, transpose


def _constant_indices(indices, x, op, name="indices"):
    """`indices` (array, list, int or Variable) as an integer array on the device of `x`."""
    if isinstance(indices, Variable):
        indices = indices.data
    if not (isinstance(indices, np.ndarray) or is_device_array(indices)):
        try:
            indices = np.asarray(indices)
        except ValueError:
            raise TypeError(f"{op}: {name} {indices!r} are not a rectangular array") from None
        if indices.size == 0 and indices.dtype.kind == "f":   # [] : no index at all
            indices = indices.astype(np.intp)
    if indices.dtype.kind not in "iu":
        raise TypeError(f"{op}: {name} must be integers, got dtype {indices.dtype}")
    if is_device_array(indices) and not is_device_array(x._data):
        raise TypeError(
            f"{op}: expected {name} on the device of the input, got an input on the CPU and "
            f"{name} on the GPU; move them with V.backend.to_cpu({name}), or the input with x.to_gpu()"
        )
    return get_array_module(x).asarray(indices)   # (a NumPy index goes to GPU data, as in CuPy)


def _along_axis(indices, shape, axis):
    """The fancy index with x[index] == np.take_along_axis(x, indices, axis) for x of `shape`."""
    xp = get_array_module(indices)
    ndim = len(shape)
    return tuple(
        indices if i == axis else xp.arange(n).reshape((1,) * i + (-1,) + (1,) * (ndim - i - 1))
        for i, n in enumerate(shape)
    )


def _refuse(op, keyword, value, default=None):
    if value is not default:
        raise TypeError(f"{op}: {keyword}={value!r} is not supported (only {keyword}={default!r})")


# ----- gathers along an axis -------------------------------------------------------
class TakeAlongAxis(Forwarder):
    """np.take_along_axis(x, indices, axis): a gather along one axis, by constant indices."""

    def __init__(self, indices, axis):
        self.indices, self.axis = indices, axis

    def forward(self, x):
        return get_array_module(x).take_along_axis(x, self.indices, axis=self.axis)

    save_for_backward = ()

    _permutation = False          # (Sort, Partition: the indices pick every entry once)

    def backward(self, gy):
        x, = self.inputs
        index = _along_axis(self.indices, x.shape, self.axis)
        return Function(GetItemGrad(index, x.shape, self._permutation))(gy)   # adjoint of a gather: scatter

    taylor_records = True

    def taylor(self, x):
        return series.map_linear(x, lambda c: np.take_along_axis(c, self.indices, axis=self.axis))   # linear


class Sort(TakeAlongAxis):
    """Sorted along an axis: a gather by the permutation np.argsort finds, saved as a constant."""

    _permutation = True

    def __init__(self, axis, kind):
        self.axis, self.kind = axis, kind

    def forward(self, x):
        xp = get_array_module(x)
        kind = self.kind if xp is np else None                # CuPy sorts stably, taking no other kind
        self.indices = xp.argsort(x, axis=self.axis, kind=kind)
        return super().forward(x)                             # y = x[perm]; dy = dx[perm]


class Partition(TakeAlongAxis):
    """Partitioned along an axis: a gather by np.argpartition's permutation, saved as a constant."""

    _permutation = True

    def __init__(self, kth, axis):
        self.kth, self.axis = kth, axis

    def forward(self, x):
        self.indices = get_array_module(x).argpartition(x, self.kth, axis=self.axis)
        return super().forward(x)                             # y = x[perm]; dy = dx[perm]


def _sort_input(a, axis, op):
    """`a` as a Variable and `axis` as an int; axis=None flattens, as NumPy does."""
    a = as_variable(a, op=op)
    if axis is None:
        return reshape(a, (-1,)), 0
    return a, single_axis(axis, a.ndim, op, a.shape)


def sort(a: ArrayLike, axis: int | None = -1, kind: str | None = None, order: None = None, *,
         stable: bool | None = None) -> Variable:
    """A sorted copy of `a` along `axis`; the gradient follows the sorting permutation.

    Parameters
    ----------
    a : ArrayLike
    axis : int or None
        The axis to sort along (negatives allowed); None sorts the flattened array.
    kind : {None, 'quicksort', 'mergesort', 'heapsort', 'stable'}
        NumPy's algorithm; it only decides which of tied entries gets which gradient.
    order : None
        Field order of structured arrays: not supported (Variables hold plain arrays).
    stable : bool, optional
        True asks for a stable sort, as kind='stable'.

    Returns
    -------
    Variable
        Of the shape of `a` (1-D for axis=None).

    Raises
    ------
    TypeError
        If `order` is given, `axis` is not an int or None, `a` is not array-like, or the
        result is unpacked at the call into two names as torch.sort's (values, indices) pair
        where that cannot work or would take two rows with the first name `_`.
    ValueError
        If `axis` is out of range, `kind` is unknown, or both `kind` and `stable` are given.
    """
    _refuse("sort", "order", order)
    if kind not in (None, "quicksort", "mergesort", "heapsort", "stable"):
        raise ValueError(f"sort: kind must be 'quicksort', 'mergesort', 'heapsort' or 'stable', got {kind!r}")
    if stable is not None:
        if kind is not None:
            raise ValueError("sort: give kind or stable, not both")
        kind = "stable" if stable else None
    a, axis = _sort_input(a, axis, "sort")
    result = Function(Sort(axis, kind))(a)
    refuse_torchs_pair("sort", sys._getframe(1), result,   # (torch.sort(x) gives a pair)
                       "write values = V.sort(x, axis) and indices = x.argsort(axis)")
    return result


def partition(a: ArrayLike, kth: int | Sequence[int], axis: int | None = -1, kind: str = "introselect",
              order: None = None) -> Variable:
    """`a` partitioned along `axis`: entry `kth` in its sorted place, smaller before, larger after.

    The gradient follows np.argpartition's permutation.

    Parameters
    ----------
    a : ArrayLike
    kth : int or sequence of ints
        The positions (negatives allowed) that end up holding their sorted values.
    axis : int or None
        The axis to partition along (negatives allowed); None works on the flattened array.
    kind : {'introselect'}
        The only selection algorithm NumPy has.
    order : None
        Field order of structured arrays: not supported.

    Returns
    -------
    Variable
        Of the shape of `a` (1-D for axis=None).

    Raises
    ------
    TypeError
        If `order` is given, `kth` is not made of ints, or `axis` is not an int or None.
    ValueError
        If `kind` is not 'introselect', `axis` is out of range or a `kth` is out of bounds.
    """
    _refuse("partition", "order", order)
    if kind != "introselect":
        raise ValueError(f"partition: kind must be 'introselect', got {kind!r}")
    a, axis = _sort_input(a, axis, "partition")
    try:
        kths = [operator.index(k) for k in np.atleast_1d(np.asarray(kth, dtype=object))]
    except TypeError:
        raise TypeError(f"partition: kth must be an int or a sequence of ints, got {kth!r}") from None
    n = a.shape[axis]
    for k in kths:
        if not -n <= k < n:
            raise ValueError(f"partition: kth {k} is out of bounds for axis {axis} of length {n}")
    kth = kths[0] if np.ndim(kth) == 0 else kths
    return Function(Partition(kth, axis))(a)


def take_along_axis(arr: ArrayLike, indices: ArrayLike, axis: int | None = -1) -> Variable:
    """Entries of `arr` picked along `axis` by `indices`; repeated indices add their gradients.

    Parameters
    ----------
    arr : ArrayLike
    indices : integer array-like
        A constant of `arr`'s number of dimensions (1-D for axis=None), broadcasting with
        `arr` along the other axes, as np.take_along_axis; negatives count from the end.
    axis : int or None
        The axis to pick along (negatives allowed); None picks from the flattened array.

    Returns
    -------
    Variable
        Of the broadcast shape of `indices` and `arr` (with `indices`' length along `axis`).

    Raises
    ------
    TypeError
        If `indices` are not integers or `axis` is not an int or None.
    ValueError
        If `axis` is out of range or `indices` has the wrong number of dimensions.
    IndexError
        If an index is out of bounds.
    """
    arr = as_variable(arr, op="take_along_axis")
    indices = _constant_indices(indices, arr, "take_along_axis")
    arr, axis = _sort_input(arr, axis, "take_along_axis")
    if indices.ndim != arr.ndim:
        raise ValueError(
            f"take_along_axis: indices of shape {indices.shape} must have as many dimensions as the "
            f"input of shape {arr.shape}"
        )
    try:
        np.broadcast_shapes(
            indices.shape[:axis] + indices.shape[axis + 1:], arr.shape[:axis] + arr.shape[axis + 1:]
        )
    except ValueError:
        raise ValueError(
            f"take_along_axis: indices of shape {indices.shape} do not broadcast with the input of "
            f"shape {arr.shape} outside axis {axis}"
        ) from None
    try:
        return Function(TakeAlongAxis(indices, axis))(arr)
    except IndexError as error:
        raise IndexError(f"take_along_axis: {error} (input of shape {arr.shape})") from None


class Take(GetItem):
    """np.take(x, indices, axis): x[:, ..., indices] along one axis (a gather; backward scatter-adds)."""


def take(a: ArrayLike, indices: ArrayLike, axis: int | None = None, out: None = None,
         mode: str = "raise") -> Variable:
    """Entries of `a` at `indices` along `axis` (of the flattened `a` for axis=None).

    Repeated indices add their gradients.

    Parameters
    ----------
    a : ArrayLike
    indices : int or integer array-like
        Constant positions (negatives count from the end); the result holds their shape in
        place of `axis`.
    axis : int or None
        The axis to pick along (negatives allowed); None picks from the flattened array.
    out : None
        Not supported (Variables are not written in place).
    mode : {'raise'}
        Only 'raise': an index out of bounds raises ('wrap' and 'clip' are not supported).

    Returns
    -------
    Variable

    Raises
    ------
    TypeError
        If `out` is given, `indices` are not integers, or `axis` is not an int or None.
    ValueError
        If `mode` is not 'raise' or `axis` is out of range.
    IndexError
        If an index is out of bounds.
    """
    _refuse("take", "out", out)
    if mode != "raise":
        raise ValueError(f"take: mode={mode!r} is not supported (only mode='raise')")
    a = as_variable(a, op="take")
    indices = _constant_indices(indices, a, "take")
    a, axis = _sort_input(a, axis, "take")
    try:
        return Function(Take((slice(None),) * axis + (indices,)))(a)
    except IndexError as error:
        raise IndexError(f"take: {error} (input of shape {a.shape})") from None


# ----- select ------------------------------------------------------------------
class Select(Forwarder):
    """np.select: each entry from the first choice whose condition holds, else the default."""

    def __init__(self, conditions):
        self.conditions = conditions

    def forward(self, *xs):
        xp = get_array_module(*xs)
        shape = np.broadcast_shapes(*[c.shape for c in self.conditions], *[x.shape for x in xs])
        chosen = xp.full(shape, len(self.conditions))     # which input each entry comes from
        for i in reversed(range(len(self.conditions))):
            chosen = xp.where(self.conditions[i], i, chosen)
        self.chosen = chosen
        return self._pick(xs)

    def _pick(self, xs):
        y = xs[-1]                                             # (CuPy's select takes a scalar default)
        for i in reversed(range(len(xs) - 1)):
            y = np.where(self.chosen == i, xs[i], y)
        return y

    save_for_backward = ()

    def backward(self, gy):
        return tuple(                                          # dy/dx_i = 1 where x_i was chosen
            _reduce(where(self.chosen == i, gy, 0), x) if x.requires_grad else None
            for i, x in enumerate(self.inputs)
        )

    taylor_records = True

    def taylor(self, *xs):
        y, = self.outputs                                      # y_k = (chosen x_i)_k
        return [y._data] + [self._pick(c) for c in _coefficients(xs)[1:]]


def select(
    condlist: Sequence[ArrayLike], choicelist: Sequence[ArrayLike], default: ArrayLike = 0
) -> Variable:
    """Each entry from the first choice whose condition holds there, else from `default`.

    Parameters
    ----------
    condlist : list of boolean array-likes
        Constant masks (Variables are taken as their data), broadcasting together.
    choicelist : list of ArrayLike
        As many choices as conditions; Variables among them get gradients.
    default : ArrayLike
        Taken where no condition holds (a Variable gets the gradient there).

    Returns
    -------
    Variable
        Of the broadcast shape of all conditions, choices and the default.

    Raises
    ------
    TypeError
        If a condition is not boolean, or a choice is not array-like.
    ValueError
        If the lists are empty or differ in length, or the shapes do not broadcast.
    """
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)):
        raise TypeError("select: condlist and choicelist must be lists")
    if len(condlist) != len(choicelist):
        raise ValueError(
            f"select: condlist and choicelist must have the same length, got {len(condlist)} and "
            f"{len(choicelist)}"
        )
    if not condlist:
        raise ValueError("select: condlist is empty; give at least one condition")
    xs = _as_sequence(list(choicelist) + [default], "select")
    conditions = [_constant_mask(c, xs[0], i) for i, c in enumerate(condlist)]
    try:
        np.broadcast_shapes(*[c.shape for c in conditions], *[x.shape for x in xs])
    except ValueError:
        shapes = [c.shape for c in conditions] + [x.shape for x in xs]
        raise ValueError(f"select: the shapes {shapes} do not broadcast together") from None
    return Function(Select(conditions))(*xs)


def _constant_mask(c, like, i):
    """Condition `i` of select as a boolean array on the device of `like`."""
    if isinstance(c, Variable):
        c = c.data
    if not (isinstance(c, np.ndarray) or is_device_array(c)):
        c = np.asarray(c)
    if c.dtype != bool:
        raise TypeError(f"select: condition {i} must be boolean, got dtype {c.dtype}")
    return get_array_module(like).asarray(c)


# ----- diagonals and triangles -------------------------------------------------------
def _diagonal_index(n, m, offset, xp):
    """Row and column indices of diagonal `offset` of an n x m matrix."""
    length = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    steps = xp.arange(length)
    return steps + max(-offset, 0), steps + max(offset, 0)


class Diagonal(GetItem):
    """x[..., i, i + offset] over the last two axes, gathered into one last axis."""


class Diag(GetItemGrad):
    """A vector laid on diagonal k of a square matrix of zeros (the adjoint of Diagonal)."""


def _offset(k, op):
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"{op}: the diagonal offset must be an int, got {k!r}")
    return int(k)


def diagonal(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """The diagonal `offset` of the matrices spanned by `axis1` and `axis2` of `a`.

    As np.diagonal, the two axes are removed and the diagonal becomes the last axis (a
    copy here, not a read-only view).

    Parameters
    ----------
    a : ArrayLike
        At least 2-D.
    offset : int
        0 the main diagonal, > 0 above it, < 0 below it.
    axis1, axis2 : int
        The two distinct axes (negatives allowed) holding the rows and columns.

    Returns
    -------
    Variable
        Of `a`'s shape without `axis1` and `axis2`, plus the diagonal's length.

    Raises
    ------
    TypeError
        If `offset` or an axis is not an int.
    ValueError
        If `a` has fewer than 2 dimensions, or the axes are out of range or equal.
    """
    offset = _offset(offset, "diagonal")
    a = as_variable(a, op="diagonal")
    if a.ndim < 2:
        raise ValueError(f"diagonal: the input must be at least 2-D, got shape {a.shape}")
    axis1 = single_axis(axis1, a.ndim, "diagonal", a.shape)
    axis2 = single_axis(axis2, a.ndim, "diagonal", a.shape)
    if axis1 == axis2:
        raise ValueError(f"diagonal: axis1 and axis2 must differ, got both {axis1}")
    rest = [i for i in range(a.ndim) if i not in (axis1, axis2)]
    rows, cols = _diagonal_index(a.shape[axis1], a.shape[axis2], offset, get_array_module(a))
    return Function(Diagonal((Ellipsis, rows, cols)))(transpose(a, rest + [axis1, axis2]))


def diag(v: ArrayLike, k: int = 0) -> Variable:
    """Diagonal `k` of a 2-D `v`, or a square matrix with the 1-D `v` on diagonal `k`.

    Parameters
    ----------
    v : ArrayLike
        1-D (placed on a diagonal) or 2-D (its diagonal extracted).
    k : int
        0 the main diagonal, > 0 above it, < 0 below it.

    Returns
    -------
    Variable
        2-D of side len(v) + |k| for a 1-D `v`; 1-D for a 2-D `v`.

    Raises
    ------
    TypeError
        If `k` is not an int.
    ValueError
        If `v` is neither 1-D nor 2-D.
    """
    k = _offset(k, "diag")
    v = as_variable(v, op="diag")
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError(f"diag: the input must be 1-D or 2-D, got shape {v.shape}")
    side = v.shape[0] + abs(k)
    return Function(Diag(_diagonal_index(side, side, k, get_array_module(v)), (side, side)))(v)


class Tril(Forwarder):
    """Entries on and below diagonal k of the last two axes kept, the others zero."""

    def __init__(self, k):
        self.k = k

    def keep(self, rows, cols):
        return cols <= rows + self.k                           # np.tri(M, N, k)

    def forward(self, x):
        xp = get_array_module(x)
        rows, cols = x.shape[-2:] if x.ndim > 1 else x.shape * 2   # (1-D: the rows of a square)
        self.mask = self.keep(xp.arange(rows).reshape(-1, 1), xp.arange(cols))   # a constant mask
        return xp.where(self.mask, x, xp.zeros((), dtype=x.dtype))

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return sum_to(where(self.mask, gy, 0), x.shape)        # dy/dx = 1 where kept, else 0

    taylor_records = True

    def taylor(self, x):
        return series.map_linear(x, lambda c: np.where(self.mask, c, 0))   # linear: each masked


class Triu(Tril):
    """Entries on and above diagonal k of the last two axes kept, the others zero."""

    def keep(self, rows, cols):
        return cols >= rows + self.k                           # 1 - np.tri(M, N, k - 1)


def _triangle(m, k, forwarder, op):
    k = _offset(k, op)
    m = as_variable(m, op=op)
    if m.ndim == 0:
        raise ValueError(f"{op}: the input must be at least 1-D, got a 0-d input")
    return Function(forwarder(k))(m)


def tril(m: ArrayLike, k: int = 0) -> Variable:
    """Lower triangle of the matrices in the last two axes of `m` (above diagonal `k` zeroed).

    Parameters
    ----------
    m : ArrayLike
        Of shape (..., M, N); a 1-D input of length N acts as an (N, N) matrix whose rows
        all equal it, as in NumPy.
    k : int
        The last diagonal kept: 0 the main one, > 0 above it, < 0 below it.

    Returns
    -------
    Variable
        Of the shape of `m` ((N, N) for a 1-D `m`).

    Raises
    ------
    TypeError
        If `k` is not an int.
    ValueError
        If `m` is 0-d.
    """
    return _triangle(m, k, Tril, "tril")


def triu(m: ArrayLike, k: int = 0) -> Variable:
    """Upper triangle of the matrices in the last two axes of `m` (below diagonal `k` zeroed).

    Parameters
    ----------
    m : ArrayLike
        Of shape (..., M, N); a 1-D input of length N acts as an (N, N) matrix whose rows
        all equal it, as in NumPy.
    k : int
        The first diagonal kept: 0 the main one, > 0 above it, < 0 below it.

    Returns
    -------
    Variable
        Of the shape of `m` ((N, N) for a 1-D `m`).

    Raises
    ------
    TypeError
        If `k` is not an int.
    ValueError
        If `m` is 0-d.
    """
    return _triangle(m, k, Triu, "triu")


__all__ = [
    "sort", "partition", "take_along_axis", "take", "select", "diag", "diagonal", "tril", "triu",
]
