"""NumPy's nan-functions: reductions and running reductions that skip NaN entries.

nansum, nanprod, nancumsum and nancumprod are the plain ops on the input with its NaN
entries replaced by the neutral value (0 for sums, 1 for products); nanmean, nanvar and
nanstd divide by the count of entries that are not NaN.  The replacement is a `where` on a
constant mask, which picks and never multiplies, so a NaN never enters an arithmetic
operation: the gradient is exactly 0 at NaN entries, and no NaN leaks into the gradient of
the other entries, at any order and in Taylor mode.  The same holds for the all-NaN slices
whose result is NaN (nanmean, nanvar, nanstd, nanmax, nanmin): the NaN is put in by a
last `where`, so such a slice gives its entries gradient 0.  No RuntimeWarning is emitted
(NumPy warns about all-NaN slices and about ddof >= count).

nanmax and nanmin are one op (`NanMax`): the maximum of the entries that are not NaN;
tied maxima share the gradient evenly, as in V.max (and PyTorch's amax, JAX's max), and
the NaN entries get none.

NumPy's `where=` mask skips the entries outside it as the NaNs are skipped (replaced by a
`where` on the constant mask): they give no value and gradient exactly 0.  nanmax and
nanmin then need `initial=`, as in NumPy (a slice with nothing selected has no extreme).

Integer and boolean inputs hold no NaN: they get the plain ops, as in NumPy.
"""

from numbers import Real

import numpy as np

from ..axes import normalize_axis
from ..backend import get_array_module, maybe_any
from ..forwarder import Function, Variable, as_variable
from ..types import ArrayLike, Axis
from . import products, reduction, statistics
from .piecewise import where as _where
from .products import _refuse_keywords
from .reduction import Max, _count, _initial_for, _reduced_shape
from .rounding import fmax, fmin

_NO_VALUE = np._NoValue
"""NumPy's marker of a keyword not given (`keepdims=<no value>` in its signatures)."""


# ----- helpers ------------------------------------------------------------------------
def _given(value, default):
    """`value`, or `default` when it is NumPy's <no value> marker."""
    return default if value is _NO_VALUE else value


def _input(a, dtype, op):
    """`a` as a Variable, converted to the floating `dtype` when one is given (as NumPy
    computes in it; the gradient is converted back to the input's dtype)."""
    a = as_variable(a, op=op)
    if dtype is None:
        return a
    dtype = statistics.floating_dtype(dtype, op,
                                      "a floating dtype such as np.float64, or None for the input's own")
    return a if a.dtype == dtype else a.astype(dtype)


def _real(value, name, op):
    """Check that the keyword `name` is a real number (not a bool)."""
    if not isinstance(value, Real) or isinstance(value, bool):
        raise TypeError(f"{op}: {name} must be a real number, got {type(value).__name__}")
    return value


def _nan_mask(a):
    """The constant mask of the NaN entries of Variable `a`, or None when `a` cannot hold NaN
    (integers and booleans)."""
    if a.dtype.kind != "f":
        return None
    return get_array_module(a).isnan(a.data)


def _skipped(a, where, op):
    """The constant mask of the entries nansum / nanmean skip: the NaNs, and with NumPy's
    `where=` (a boolean mask broadcast to a's shape) the entries outside it too; None when
    none can be skipped."""
    mask = _nan_mask(a)
    if where is True:
        return mask
    outside = ~get_array_module(a).broadcast_to(reduction.selection(where, a, op), a.shape)
    return outside if mask is None else mask | outside


def _replaced(a, mask, value):
    """`a` with its NaN entries replaced by the number `value`: a `where` on the constant mask
    (it picks, so the NaN meets no arithmetic and the gradient there is 0)."""
    if mask is None or not maybe_any(mask):
        return a
    return _where(mask, value, a)


def _nan_where(bad, y):
    """`y` with NaN where the constant mask `bad` holds (an all-NaN slice, ddof >= count): the
    NaN enters by a `where`, so the gradient of those results is 0, never NaN."""
    return _where(bad, np.nan, y) if maybe_any(bad) else y


def _not_nan(mask, axes, keepdims, dtype):
    """How many entries of each slice are not NaN, as a constant array of `dtype`."""
    return (~mask).sum(axis=axes, keepdims=keepdims).astype(dtype)


def _moments(a, mask, axes, keepdims, ddof):
    """(var, bad) of the entries of `a` that the constant mask `mask` (the NaNs, and those
    outside `where=`) does not skip: var the sum of squared deviations from their mean over
    count - ddof, finite everywhere (no NaN inside), and bad the constant mask of the slices
    where count - ddof <= 0, whose variance is NaN."""
    squares, dof = statistics._moments(a, mask, axes, keepdims, ddof)
    bad = dof <= 0
    return squares / get_array_module(a).where(bad, 1, dof), bad


# ----- nanmax and nanmin ----------------------------------------------------------------
class NanMax(Max):
    """Maximum over axes skipping NaN; tied maxima share the gradient evenly, NaN entries get
    none, and an all-NaN slice gives NaN with no gradient."""

    pick = staticmethod(np.max)
    fill = -np.inf                                     # a NaN entry's stand-in, below every number

    @staticmethod
    def lowest(dtype):
        """The stand-in of an entry outside `where=` in data that holds no NaN: the least value."""
        return False if dtype.kind == "b" else np.iinfo(dtype).min

    def forward(self, x):
        if x.dtype.kind != "f":                        # integers hold no NaN
            return super().forward(x)
        xp = get_array_module(x)
        nan = xp.isnan(x)
        y = self.pick(xp.where(nan, self.fill, x), axis=self.axes, keepdims=True)
        y = xp.where(nan.all(axis=self.axes, keepdims=True), np.nan, y)
        hit = x == y                                   # (a NaN entry never equals y)
        self._keep(hit, xp.maximum(hit.sum(axis=self.axes, keepdims=True), 1), x.dtype)
        return y if self.keepdims else y.reshape(_reduced_shape(x.shape, self.axes))

    # backward and taylor: V.max's (a NaN entry is no extreme, so its coefficients are never read)


class NanMin(NanMax):
    """Minimum over axes skipping NaN; tied minima share the gradient evenly, NaN entries get
    none, and an all-NaN slice gives NaN with no gradient."""

    pick = staticmethod(np.min)
    fill = np.inf

    @staticmethod
    def lowest(dtype):
        """The stand-in of an entry outside `where=` in data that holds no NaN: the greatest value."""
        return True if dtype.kind == "b" else np.iinfo(dtype).max


def _extreme(forwarder_class, pair, op, a, axis, out, keepdims, initial, where):
    """nanmax / nanmin: check NumPy's keywords and reduce; `initial` joins by fmax / fmin, and
    the entries outside NumPy's `where=` mask become NaN (skipped; in data that holds no NaN,
    the dtype's least / greatest value), which needs `initial`, as in NumPy."""
    keepdims, initial, where = _given(keepdims, False), _given(initial, None), _given(where, True)
    _refuse_keywords(op, None, out)
    if initial is not None:
        _real(initial, "initial", op)
    elif where is not True:
        raise ValueError(
            f"{op}(..., where=...) needs initial= too: a slice with nothing selected has no "
            f"{op[3:]}imum, so NumPy asks for the value to give it (e.g. initial="
            f"{'-' if op == 'nanmax' else ''}np.inf)"
        )
    a = as_variable(a, op=op)
    axes = normalize_axis(axis, a.ndim, op, a.shape)
    if where is not True:
        fill = np.nan if a.dtype.kind == "f" else forwarder_class.lowest(a.dtype)
        a = _where(reduction.selection(where, a, op), a, fill)   # skipped as a NaN is, gradient 0
    if _count(a.shape, axes) == 0:
        if initial is None:
            raise ValueError(
                f"{op}: cannot reduce over an empty axis (input of shape {a.shape}) without "
                f"initial: an empty slice has no extreme value; give initial=, or check the size"
            )
        return reduction.sum(a, axes, keepdims) + _initial_for(a, initial, op)   # every slice empty
    y = Function(forwarder_class(axes, bool(keepdims)))(a)
    return y if initial is None else pair(y, _initial_for(y, initial, op))


def nanmax(
    a: ArrayLike,
    axis: Axis = None,
    out: None = None,
    keepdims: bool = False,
    initial: float | None = None,
    where: ArrayLike = True,
) -> Variable:
    """Maximum of `a` over `axis`, ignoring NaN entries.

    Tied maxima share the gradient evenly (as V.max, PyTorch's amax and JAX's max); NaN
    entries get gradient 0.  A slice of only NaN gives NaN (without NumPy's warning), and
    its entries gradient 0.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    out : None
        NumPy's keyword, accepted at its default only.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    initial : number, optional
        A value joined to every slice (by fmax): the result over an empty axis, over an
        all-NaN slice and over a slice with nothing selected; where it ties with the
        maximum, they share the gradient evenly.
    where : bool or array of bools
        NumPy's mask, broadcast to `a`'s shape: the entries outside it are skipped as the
        NaNs are (gradient 0); needs `initial`, as in NumPy.

    Returns
    -------
    Variable
        The maxima of the entries that are not NaN; NaN for an all-NaN slice (without
        `initial`).  Integer input keeps its dtype (`initial` cast to it), as in NumPy.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `initial` is not a number, `out`
        is given, `where` is not boolean or is a Variable, or `a` is not a Variable, a
        numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, an axis reduced over has length 0 and
        `initial` is not given (NumPy refuses too), `where` is given without `initial` (as
        in NumPy) or does not broadcast to `a`'s shape.
    """
    return _extreme(NanMax, fmax, "nanmax", a, axis, out, keepdims, initial, where)


def nanmin(
    a: ArrayLike,
    axis: Axis = None,
    out: None = None,
    keepdims: bool = False,
    initial: float | None = None,
    where: ArrayLike = True,
) -> Variable:
    """Minimum of `a` over `axis`, ignoring NaN entries.

    Tied minima share the gradient evenly (as V.min, PyTorch's amin and JAX's min); NaN
    entries get gradient 0.  A slice of only NaN gives NaN (without NumPy's warning), and
    its entries gradient 0.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    out : None
        NumPy's keyword, accepted at its default only.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    initial : number, optional
        A value joined to every slice (by fmin): the result over an empty axis, over an
        all-NaN slice and over a slice with nothing selected; where it ties with the
        minimum, they share the gradient evenly.
    where : bool or array of bools
        NumPy's mask, broadcast to `a`'s shape: the entries outside it are skipped as the
        NaNs are (gradient 0); needs `initial`, as in NumPy.

    Returns
    -------
    Variable
        The minima of the entries that are not NaN; NaN for an all-NaN slice (without
        `initial`).  Integer input keeps its dtype (`initial` cast to it), as in NumPy.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `initial` is not a number, `out`
        is given, `where` is not boolean or is a Variable, or `a` is not a Variable, a
        numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, an axis reduced over has length 0 and
        `initial` is not given (NumPy refuses too), `where` is given without `initial` (as
        in NumPy) or does not broadcast to `a`'s shape.
    """
    return _extreme(NanMin, fmin, "nanmin", a, axis, out, keepdims, initial, where)


# ----- sums and products ----------------------------------------------------------------
def nansum(
    a: ArrayLike,
    axis: Axis = None,
    dtype: np.dtype | type | None = None,
    out: None = None,
    keepdims: bool = False,
    initial: float | None = None,
    where: ArrayLike = True,
) -> Variable:
    """Sum of `a` over `axis`, NaN entries counted as 0.

    The gradient is 1 at the other entries and exactly 0 at NaN entries.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to sum over (negatives allowed); None sums over all of them.
    dtype : floating dtype, optional
        Compute and return in this dtype (the gradient comes back in the input's).
    out : None
        NumPy's keyword, accepted at its default only.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    initial : number, optional
        A starting value added to every sum.
    where : bool or array of bools
        NumPy's mask, broadcast to `a`'s shape: the entries outside it are skipped as the
        NaNs are (no part of the sum, gradient 0).

    Returns
    -------
    Variable
        The sums; 0 for an all-NaN slice and over an empty axis (plus `initial`).

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `dtype` is not a floating dtype,
        `initial` is not a number, `out` is given, `where` is not boolean, or `a` is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, or `where` does not broadcast to `a`'s shape.
    """
    keepdims, initial, where = _given(keepdims, False), _given(initial, None), _given(where, True)
    _refuse_keywords("nansum", None, out, True)
    a = _input(a, dtype, "nansum")
    axes = normalize_axis(axis, a.ndim, "nansum", a.shape)
    y = reduction.sum(_replaced(a, _skipped(a, where, "nansum"), 0), axes, keepdims)
    return y if initial is None else y + _initial_for(y, _real(initial, "initial", "nansum"), "nansum")


def nanprod(
    a: ArrayLike,
    axis: Axis = None,
    dtype: np.dtype | type | None = None,
    out: None = None,
    keepdims: bool = False,
    initial: float | None = None,
    where: ArrayLike = True,
) -> Variable:
    """Product of `a` over `axis`, NaN entries counted as 1.

    The gradient at an entry is the product of the other entries that are not NaN (found
    without dividing, so exact at zeros, as V.prod), and exactly 0 at NaN entries.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to multiply over (negatives allowed); None multiplies everything.
    dtype : floating dtype, optional
        Compute and return in this dtype (the gradient comes back in the input's).
    out : None
        NumPy's keyword, accepted at its default only.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    initial : number, optional
        A starting value every product is multiplied by.
    where : bool or array of bools
        NumPy's mask, broadcast to `a`'s shape: the entries outside it are skipped as the
        NaNs are (counted as 1, gradient 0).

    Returns
    -------
    Variable
        The products; 1 (or `initial`) for an all-NaN slice, a slice with nothing selected
        and over an empty axis.  Integer input keeps its dtype, as in NumPy.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `dtype` is not a floating dtype,
        `initial` is not a number, `out` is given, `where` is not boolean or is a Variable,
        or `a` is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, or `where` does not broadcast to `a`'s shape.
    """
    keepdims, initial, where = _given(keepdims, False), _given(initial, None), _given(where, True)
    _refuse_keywords("nanprod", None, out)
    a = _input(a, dtype, "nanprod")
    axes = normalize_axis(axis, a.ndim, "nanprod", a.shape)
    if initial is not None:
        _real(initial, "initial", "nanprod")
    skipped = _replaced(a, _skipped(a, where, "nanprod"), 1)
    return products.prod(skipped, axes, keepdims=keepdims, initial=initial)


def nancumsum(
    a: ArrayLike, axis: int | None = None, dtype: np.dtype | type | None = None, out: None = None
) -> Variable:
    """Running sum of `a` along `axis` (None: of the flattened input), NaN entries counted as 0.

    Parameters
    ----------
    a : ArrayLike
    axis : int or None
        The axis to sum along (negative allowed); None flattens `a` first.
    dtype : floating dtype, optional
        Compute and return in this dtype (the gradient comes back in the input's).
    out
        NumPy's keyword, accepted at its default None only.

    Returns
    -------
    Variable
        Of the shape of `a` (1-d if `axis` is None or `a` is 0-d); the gradient is exactly
        0 at NaN entries.

    Raises
    ------
    TypeError
        If `axis` is not an int or None, `dtype` is not a floating dtype, `out` is given, or
        `a` is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If `axis` is out of range.
    """
    _refuse_keywords("nancumsum", None, out)
    a, axis = products._running_axis(_input(a, dtype, "nancumsum"), axis, "nancumsum")
    return products.cumsum(_replaced(a, _nan_mask(a), 0), axis)


def nancumprod(
    a: ArrayLike, axis: int | None = None, dtype: np.dtype | type | None = None, out: None = None
) -> Variable:
    """Running product of `a` along `axis` (None: of the flattened input), NaN entries
    counted as 1.

    The gradient is V.cumprod's (no division, exact at zeros) at the other entries and
    exactly 0 at NaN entries.

    Parameters
    ----------
    a : ArrayLike
    axis : int or None
        The axis to multiply along (negative allowed); None flattens `a` first.
    dtype : floating dtype, optional
        Compute and return in this dtype (the gradient comes back in the input's).
    out
        NumPy's keyword, accepted at its default None only.

    Returns
    -------
    Variable
        Of the shape of `a` (1-d if `axis` is None or `a` is 0-d).

    Raises
    ------
    TypeError
        If `axis` is not an int or None, `dtype` is not a floating dtype, `out` is given, or
        `a` is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If `axis` is out of range.
    """
    _refuse_keywords("nancumprod", None, out)
    a, axis = products._running_axis(_input(a, dtype, "nancumprod"), axis, "nancumprod")
    return products.cumprod(_replaced(a, _nan_mask(a), 1), axis)


# ----- mean, var, std ---------------------------------------------------------------------
def nanmean(
    a: ArrayLike,
    axis: Axis = None,
    dtype: np.dtype | type | None = None,
    out: None = None,
    keepdims: bool = False,
    *,
    where: ArrayLike = True,
) -> Variable:
    """Mean of the entries of `a` over `axis` that are not NaN.

    The gradient is 1/count at those entries (count: how many there are in the slice) and
    exactly 0 at NaN entries.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to average over (negatives allowed); None averages over all of them.
    dtype : floating dtype, optional
        Compute and return in this dtype (the gradient comes back in the input's).
    out : None
        NumPy's keyword, accepted at its default only.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    where : bool or array of bools
        NumPy's mask, broadcast to `a`'s shape: the entries outside it are skipped as the
        NaNs are (not counted, gradient 0).

    Returns
    -------
    Variable
        The means; NaN (with gradient 0, and without NumPy's warning) for an all-NaN slice,
        a slice with nothing selected and over an empty axis.  Integer input gives float64,
        as in NumPy.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `dtype` is not a floating dtype,
        `out` is given, `where` is not boolean, or `a` is not a Variable, a numeric ndarray,
        a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, or `where` does not broadcast to `a`'s shape.
    """
    keepdims, where = bool(_given(keepdims, False)), _given(where, True)
    _refuse_keywords("nanmean", None, out, True)
    a = _input(a, dtype, "nanmean")
    mask = _skipped(a, where, "nanmean")
    axes = normalize_axis(axis, a.ndim, "nanmean", a.shape)
    if mask is None or (_count(a.shape, axes) > 0 and not maybe_any(mask)):
        return reduction.mean(a, axes, keepdims)             # (an empty axis: NaN by a where)
    count = _not_nan(mask, axes, keepdims, a.dtype)
    empty = count == 0
    total = reduction.sum(_replaced(a, mask, 0), axes, keepdims)
    return _nan_where(empty, total / get_array_module(a).where(empty, 1, count))


def _spread_keywords(op, out, keepdims, where, mean, ddof, correction):
    """Check nanvar's and nanstd's NumPy keywords; (keepdims, ddof, where)."""
    keepdims, where, mean = bool(_given(keepdims, False)), _given(where, True), _given(mean, None)
    statistics._check_var_keywords(op, None, out, mean)
    return keepdims, statistics._degrees(ddof, _given(correction, None), op), where


def nanvar(
    a: ArrayLike,
    axis: Axis = None,
    dtype: np.dtype | type | None = None,
    out: None = None,
    ddof: float = 0,
    keepdims: bool = False,
    *,
    where: ArrayLike = True,
    mean: None = None,
    correction: float | None = None,
) -> Variable:
    """Variance of the entries of `a` over `axis` that are not NaN, with `ddof`.

    The sum of their squared deviations from their mean, divided by count - ddof; the
    gradient is exactly 0 at NaN entries.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    dtype : floating dtype, optional
        Compute and return in this dtype (the gradient comes back in the input's).
    out, mean
        NumPy's keywords, accepted at their defaults only (None, None).
    ddof : real number
        Delta degrees of freedom: 0 for the population variance, 1 for the unbiased estimate.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    where : bool or array of bools
        NumPy's mask, broadcast to `a`'s shape: the entries outside it are skipped as the
        NaNs are (not counted, gradient 0).
    correction : real number, optional
        NumPy 2's other name for `ddof` (the Array API's); give one of the two.

    Returns
    -------
    Variable
        The variances; NaN (with gradient 0, and without NumPy's "Degrees of freedom
        <= 0" warning) where count - ddof <= 0: an all-NaN slice, a slice with nothing
        selected, an empty axis, too large a ddof.  Integer input gets V.var (with
        `where`), as in NumPy: float64, and inf or NaN where count - ddof <= 0.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `ddof` is not a number, `dtype`
        is not a floating dtype, `out` or `mean` is given, `where` is not boolean or is a
        Variable, or `a` is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, both `ddof` (non-zero) and `correction`
        are given, or `where` does not broadcast to `a`'s shape.
    """
    keepdims, ddof, where = _spread_keywords("nanvar", out, keepdims, where, mean, ddof, correction)
    a = _input(a, dtype, "nanvar")
    axes = normalize_axis(axis, a.ndim, "nanvar", a.shape)
    if a.dtype.kind != "f":                                   # no NaN: NumPy's var, where= and all
        return statistics.var(a, axes, ddof=ddof, keepdims=keepdims, where=where)
    mask = _skipped(a, where, "nanvar")
    if where is True and _count(a.shape, axes) > max(ddof, 0) and not maybe_any(mask):
        return statistics.var(a, axes, ddof=ddof, keepdims=keepdims)
    var, bad = _moments(a, mask, axes, keepdims, ddof)
    return _nan_where(bad, var)


def nanstd(
    a: ArrayLike,
    axis: Axis = None,
    dtype: np.dtype | type | None = None,
    out: None = None,
    ddof: float = 0,
    keepdims: bool = False,
    *,
    where: ArrayLike = True,
    mean: None = None,
    correction: float | None = None,
) -> Variable:
    """Standard deviation of the entries of `a` over `axis` that are not NaN: sqrt(nanvar).

    The gradient is exactly 0 at NaN entries, and, as V.std's, the subgradient 0 at a slice
    whose entries that are not NaN are all equal (std 0, where sqrt has no derivative).

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    dtype : floating dtype, optional
        Compute and return in this dtype (the gradient comes back in the input's).
    out, mean
        NumPy's keywords, accepted at their defaults only (None, None).
    ddof : real number
        Delta degrees of freedom: the squared deviations are summed and divided by
        count - ddof.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    where : bool or array of bools
        NumPy's mask, broadcast to `a`'s shape: the entries outside it are skipped as the
        NaNs are (not counted, gradient 0).
    correction : real number, optional
        NumPy 2's other name for `ddof` (the Array API's); give one of the two.

    Returns
    -------
    Variable
        The standard deviations; NaN (with gradient 0, and without NumPy's "Degrees of freedom
        <= 0" warning) where count - ddof <= 0: an all-NaN slice, a slice with nothing
        selected, an empty axis, too large a ddof.  Integer input gets V.std (with
        `where`), as in NumPy: float64, and inf or NaN where count - ddof <= 0.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `ddof` is not a number, `dtype`
        is not a floating dtype, `out` or `mean` is given, `where` is not boolean or is a
        Variable, or `a` is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, both `ddof` (non-zero) and `correction`
        are given, or `where` does not broadcast to `a`'s shape.
    """
    keepdims, ddof, where = _spread_keywords("nanstd", out, keepdims, where, mean, ddof, correction)
    a = _input(a, dtype, "nanstd")
    axes = normalize_axis(axis, a.ndim, "nanstd", a.shape)
    if a.dtype.kind != "f":                                   # no NaN: NumPy's std, where= and all
        return statistics.std(a, axes, ddof=ddof, keepdims=keepdims, where=where)
    mask = _skipped(a, where, "nanstd")
    if where is True and _count(a.shape, axes) > max(ddof, 0) and not maybe_any(mask):
        return statistics.std(a, axes, ddof=ddof, keepdims=keepdims)
    var, bad = _moments(a, mask, axes, keepdims, ddof)
    return _nan_where(bad, statistics._flat_root(var))      # std 0: subgradient 0, as V.std


__all__ = [
    "nansum", "nanprod", "nancumsum", "nancumprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
]
