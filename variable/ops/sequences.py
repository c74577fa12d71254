"""Sequences from Variables: ediff1d, linspace, logspace, geomspace and unique.

`ediff1d` is a ravel, a diff and a join; `linspace` NumPy's formula start + i * step on
Variables (so the samples are NumPy's and `start`, `stop` get gradients), `logspace` and
`geomspace` powers of it.  `unique` reads which entries are equal from the data (as
NumPy's return_index) and gathers the values at their first occurrences, which is where
their gradient goes.
"""

import operator
from typing import Any

import numpy as np

from ..axes import single_axis
from ..backend import device_of, get_array_module
from ..forwarder import Variable, as_variable
from ..types import ArrayLike
from .contraction import _pair
from .differences import diff
from .exponential import log10
from .joining import concat
from .piecewise import where
from .rearrange import moveaxis
from .rounding import floor
from .selection import take
from .shape import broadcast_to, reshape


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


__all__ = ["ediff1d", "linspace", "logspace", "geomspace", "unique"]
