"""Functions applied piece by piece and along axes: piecewise, apply_along_axis and
apply_over_axes.

Each calls the user's functions on Variables (a function written with gengrad ops, or with
np functions on the Variable, records its graph) and assembles the results as NumPy does,
with V.where, indexing, stack and transpose, so the gradient reaches `x` (and the Variables
the functions close over) through whatever the functions did.
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..axes import single_axis
from ..backend import constant_like, get_array_module, is_device_array
from ..forwarder import Function, Variable
from ..types import ArrayLike
from .histograms import _constant, _data_variable, _is_array
from .indexing import GetItemGrad, get_item
from .joining import stack
from .piecewise import where
from .rearrange import moveaxis
from .shape import broadcast_to, expand_dims, reshape, transpose


# ----- piecewise ------------------------------------------------------------------------------
def _conditions(condlist, x, op):
    """piecewise's conditions as boolean arrays on the device of `x`, NumPy's promotion of a
    single condition to a list of one."""
    if isinstance(condlist, (Variable, np.ndarray)) or is_device_array(condlist):
        condlist = getattr(condlist, "_data", condlist)
        single = condlist.ndim == 0 or (x.ndim != 0 and condlist.ndim == x.ndim)
        conds = [condlist] if single else [condlist[i] for i in range(condlist.shape[0])]
    elif isinstance(condlist, (list, tuple)):
        if not condlist:
            raise ValueError(f"{op}: condlist is empty; give one condition per function")
        first = condlist[0]
        single = not (isinstance(first, (list, tuple)) or _is_array(first)) and x.ndim != 0
        conds = [condlist] if single else list(condlist)
    elif isinstance(condlist, (bool, np.bool_)):
        conds = [condlist]
    else:
        raise TypeError(f"{op}: condlist must be a boolean array or a list of them, got {condlist!r}")
    masks = []
    for c in conds:
        c = getattr(c, "_data", c)
        made = not _is_array(c)
        try:
            c = np.asarray(c, dtype=bool) if made else c.astype(bool, copy=False)
        except (TypeError, ValueError):
            raise TypeError(f"{op}: each condition must be a boolean array, got {c!r}") from None
        if c.shape != x.shape[:c.ndim]:
            raise ValueError(f"{op}: a condition of shape {c.shape} does not match x of shape {x.shape} "
                             f"(it must have x's shape, or its leading axes)")
        masks.append(constant_like(c, x, op, "condlist", "x", made))
    return masks


def _as_result(value, like, op, name):
    """A function's result as a Variable: a Variable as it is, anything else a constant."""
    if isinstance(value, Variable):
        return value
    if isinstance(value, (list, tuple)) and any(isinstance(v, Variable) for v in value):
        return stack([v if isinstance(v, Variable) else _constant(v, like, op, name) for v in value])
    try:
        return _constant(value, like, op, name)
    except (TypeError, ValueError):
        raise TypeError(f"{op}: {name} returned {value!r}, which is not an array of numbers") from None


def piecewise(x: ArrayLike, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Variable:
    """`x` evaluated piece by piece, as np.piecewise: funclist[i] where condlist[i] holds.

    A callable in `funclist` is called on the selected entries of `x` (a 1-d Variable, with
    `args` and `kw`), only where some are selected, as NumPy does; its result (one value per
    entry, or one for all) is written there, so a function built from gengrad ops (or np
    functions on the Variable) sends its gradient back to those entries of `x` and to the
    Variables it uses.  A scalar in `funclist` (a number or a 0-d Variable) is the value
    there.  Later conditions win where several hold; where none holds the result is 0, or
    funclist[-1] with one function more than conditions (NumPy's "otherwise").  A plain
    result of a callable (a number, a NumPy array) is taken as a constant, like a scalar entry.
    The result has the dtype of `x` (results are cast, as NumPy's assignment casts them).
    On a GPU, each callable's selection (a boolean mask) is one host read.

    Parameters
    ----------
    x : ArrayLike
        The input.
    condlist : boolean array, or list of boolean arrays
        Of x's shape (or its leading axes); a single condition is a list of one, as in NumPy.
    funclist : sequence of callables and scalars
        len(condlist) entries, or one more for the entries no condition holds.
    *args, **kw
        Passed to each callable.

    Returns
    -------
    Variable
        Of the shape and dtype of `x`.

    Raises
    ------
    TypeError
        If `funclist` is not a sequence, a condition is not boolean-like, an entry is
        neither callable nor a scalar, or a callable returns something that is not numbers.
    ValueError
        If the numbers of conditions and functions do not fit, a condition's shape does not
        match x's, or a callable returns the wrong number of values.
    """
    op = "piecewise"
    x = _data_variable(x, op)
    if callable(funclist) or not isinstance(funclist, Sequence) or isinstance(funclist, str):
        raise TypeError(f"{op}: funclist must be a list of callables and scalars, got {funclist!r}")
    funclist = list(funclist)
    conds = _conditions(condlist, x, op)
    xp = get_array_module(x)
    if len(conds) == len(funclist) - 1:                   # NumPy's "otherwise": where none holds
        held = xp.zeros(x.shape, dtype=bool)
        for c in conds:
            held = held | c.reshape(c.shape + (1,) * (x.ndim - c.ndim))
        conds.append(~held)
    elif len(conds) != len(funclist):
        raise ValueError(f"{op}: with {len(conds)} condition(s), either {len(conds)} or {len(conds) + 1} "
                         f"functions are expected, got {len(funclist)}")
    y = Variable(xp.zeros_like(x.data), requires_grad=False)
    for i, (cond, func) in enumerate(zip(conds, funclist)):
        wide = cond.reshape(cond.shape + (1,) * (x.ndim - cond.ndim))
        if callable(func):
            selected = get_item(x, cond)                  # (a boolean mask: one host read on a GPU)
            if selected.size == 0:
                continue
            value = _as_result(func(selected, *args, **kw), x, op, f"funclist[{i}]")
            try:
                value = broadcast_to(value, selected.shape)
            except ValueError:
                raise ValueError(f"{op}: funclist[{i}] returned shape {value.shape} for {selected.shape[0]} "
                                 f"selected entries; return one value per entry, or one for all") from None
            value = value.astype(x.dtype, copy=False)
            y = where(wide, Function(GetItemGrad(cond, x.shape))(value), y)
        else:
            value = _as_result(func, x, op, f"funclist[{i}]")
            if value.ndim != 0:
                raise TypeError(f"{op}: funclist[{i}] must be a callable or a scalar, got an array of shape "
                                f"{value.shape}; wrap it in a function of the selected entries")
            y = where(wide, value.astype(x.dtype, copy=False), y)
    return y


# ----- functions along axes -------------------------------------------------------------------
def _result_of(value, source, op, name):
    """A user function's result as a Variable; a plain result (no graph) is refused where
    `source` requires grad, since its gradient would be lost silently."""
    if not isinstance(value, Variable) and source.requires_grad and not (
            isinstance(value, (list, tuple)) and any(isinstance(v, Variable) for v in value)):
        raise TypeError(
            f"{op}: {name} returned a {type(value).__name__}, not a Variable, so the gradient to the input "
            f"would be lost; compute it with gengrad ops (np functions on the Variable it is given "
            f"record them), or call np.{op} on x.data for plain arrays without gradient"
        )
    return _as_result(value, source, op, name)


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: ArrayLike, *args: Any,
                     **kwargs: Any) -> Variable:
    """`func1d` applied to the 1-d slices of `arr` along `axis`, as np.apply_along_axis.

    func1d gets each slice as a 1-d Variable (with `args` and `kwargs`) and should build its
    result with gengrad ops or np functions on it, which record the graph; the results (of
    one shape, cast to the first's dtype, as NumPy's) are stacked with their axes where
    `axis` was.  A plain result (a number, a NumPy array) is refused when `arr` requires
    grad, as its gradient would be lost; taken as a constant otherwise.

    Parameters
    ----------
    func1d : callable
        Takes a 1-d Variable, returns a Variable (any shape; all calls the same shape).
    axis : int
        The axis along which `arr` is sliced (negatives allowed).
    arr : ArrayLike
        At least 1-d.
    *args, **kwargs
        Passed to `func1d`.

    Returns
    -------
    Variable
        arr.shape with `axis` replaced by the shape of func1d's result.

    Raises
    ------
    TypeError
        If `func1d` is not callable, `axis` is not an int, or a result is not a Variable
        while `arr` requires grad (or not numbers).
    ValueError
        If `axis` is out of range, another axis of `arr` has length 0, or the results'
        shapes differ.
    """
    op = "apply_along_axis"
    if not callable(func1d):
        raise TypeError(f"{op}: func1d must be callable, got {func1d!r}")
    arr = _data_variable(arr, op)
    axis = single_axis(axis, arr.ndim, op, arr.shape)
    moved = moveaxis(arr, axis, -1) if axis != arr.ndim - 1 else arr
    outer = moved.shape[:-1]
    if 0 in outer:
        raise ValueError(f"{op}: cannot apply along axis {axis} of shape {arr.shape}: another axis has "
                         f"length 0")
    results = []
    for index in np.ndindex(*outer):
        value = func1d(get_item(moved, index + (Ellipsis,)), *args, **kwargs)
        results.append(_result_of(value, arr, op, "func1d"))
    first = results[0]
    for i, r in enumerate(results[1:], 1):
        if r.shape != first.shape:
            raise ValueError(f"{op}: func1d returned shape {r.shape} for slice {i}, but {first.shape} for "
                             f"the first; every call must return one shape")
    results = [r.astype(first.dtype, copy=False) for r in results]
    buff = reshape(stack(results), outer + first.shape)
    nd, rnd = buff.ndim, first.ndim                       # NumPy's permutation: the result's axes at `axis`
    order = list(range(axis)) + list(range(nd - rnd, nd)) + list(range(axis, nd - rnd))
    return transpose(buff, order) if order != list(range(nd)) else buff


def apply_over_axes(func: Callable[..., Any], a: ArrayLike, axes: int | Sequence[int]) -> Variable:
    """`func(a, axis)` applied over each of `axes` in turn, as np.apply_over_axes.

    Each call gets the previous result and one axis; a result with one dimension fewer gets
    it back as a length-1 axis (so V.sum gives keepdims sums).  func must return a Variable
    (np.sum and the other np functions on a Variable do); a plain result is refused when `a`
    requires grad, as its gradient would be lost.

    Parameters
    ----------
    func : callable
        func(Variable, int) -> Variable of the same number of dimensions, or one fewer.
    a : ArrayLike
        The input.
    axes : int or sequence of ints
        The axes, in order (negatives count from the end).

    Returns
    -------
    Variable
        Of a's number of dimensions.

    Raises
    ------
    TypeError
        If `func` is not callable, an axis is not an int, or a result is not a Variable while
        `a` requires grad (or not numbers).
    ValueError
        If an axis is out of range or func's result has a wrong number of dimensions.
    """
    op = "apply_over_axes"
    if not callable(func):
        raise TypeError(f"{op}: func must be callable, got {func!r}")
    val = _data_variable(a, op)
    source = val
    axes = [axes] if np.ndim(axes) == 0 else list(axes)
    for axis in axes:
        axis = single_axis(axis, val.ndim, op, val.shape)
        res = _result_of(func(val, axis), source, op, "func")
        if res.ndim == val.ndim - 1:
            res = expand_dims(res, axis)
        elif res.ndim != val.ndim:
            raise ValueError(f"{op}: func returned shape {res.shape} for axis {axis} of shape {val.shape}; "
                             f"it must keep the number of dimensions or remove that axis")
        val = res
    return val


__all__ = ["piecewise", "apply_along_axis", "apply_over_axes"]
