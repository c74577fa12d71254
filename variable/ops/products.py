"""Products and running reductions: prod, cumsum, cumprod, trace.

Products are differentiated without dividing by an entry, so gradients are exact where
entries are 0 (as in PyTorch and JAX), to every order.  The tool is one private op,
`Recurrence`, h_i = a_i h_{i-1} + b_i along an axis: the gradient of a running product
x_0 x_1 ... x_i with respect to x_k is y_{k-1} s_k, where s_k = gy_k + x_{k+1} s_{k+1}
is such a recurrence run from the other end, and the adjoint of a recurrence is again a
recurrence, so backward differentiates again without end.  The product of the entries
other than x_k is (x_0 ... x_{k-1}) (x_{k+1} ... x_{n-1}), two exclusive running products.

Taylor rules multiply series (Cauchy products) along the axis, never through a log: the
running product, like any linear recurrence, is found in log2(n) doubling steps
(composing the affine maps h -> a h + b of entries i and i - d, d = 1, 2, 4, ...).
"""

import math
from numbers import Real

import numpy as np

from .. import series
from ..axes import normalize_axis, single_axis
from ..backend import get_array_module
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike, Axis
from .piecewise import where as _where
from .reduction import _initial_for, _spread, selection
from .shape import reshape, transpose


def _refuse_keywords(op, dtype=None, out=None, where=True):
    """Refuse NumPy's keywords that a Variable cannot honour (anything but their defaults);
    `where` for the ops that do not take NumPy's mask (prod and its kin do)."""
    if dtype is not None:
        raise TypeError(
            f"{op}: dtype={dtype!r} is not supported (the result keeps the input's dtype); "
            f"convert the input first, e.g. x.astype(np.float64)"
        )
    if out is not None:
        raise TypeError(f"{op}: out= is not supported (a Variable is never written in place); use the result")
    if where is not True:
        raise TypeError(
            f"{op}: where= is not supported; mask the input first, e.g. V.where(mask, x, neutral)"
        )


# ----- helpers on arrays and on series ------------------------------------------
def _along(ndim, axis, index):
    """An index that applies `index` (a slice or int) to `axis` and takes everything elsewhere."""
    return (slice(None),) * axis + (index,) + (slice(None),) * (ndim - axis - 1)


def _shifted(x, axis, reverse, fill):
    """Each entry of ndarray `x` replaced by the one before it along `axis` (after it if
    `reverse`); `fill` enters at the start."""
    y = get_array_module(x).full(x.shape, fill, dtype=x.dtype)
    n = x.shape[axis]
    early, late = slice(None, n - 1 if n else 0), slice(1, None)
    if reverse:
        y[_along(x.ndim, axis, early)] = x[_along(x.ndim, axis, late)]
    else:
        y[_along(x.ndim, axis, late)] = x[_along(x.ndim, axis, early)]
    return y


def _scan(a, b, axis, reverse, product=np.multiply):
    """h_i = a_i h_{i-1} + b_i along `axis` (h = 0 before the first entry; from the last if
    `reverse`), in log2(n) doubling steps: entry i takes the composition of its affine map
    with that of entry i - d, for d = 1, 2, 4, ...  `product` multiplies two entries (for
    stacked Taylor series: the Cauchy product)."""
    xp = get_array_module(a)
    if reverse:
        a, b = xp.flip(a, axis), xp.flip(b, axis)
    a, b = a.copy(), b.copy()
    n, d = a.shape[axis], 1
    while d < n:
        late, early = _along(a.ndim, axis, slice(d, None)), _along(a.ndim, axis, slice(None, n - d))
        b[late] = b[late] + product(a[late], b[early])       # (a, b) o (a', b') = (a a', b + a b')
        if 2 * d < n:
            a[late] = product(a[late], a[early])
        d *= 2
    return xp.flip(b, axis) if reverse else b


def _stack(*xs):
    """Input series (lists, a constant as [x_0]) stacked into arrays of one length along a new
    axis 0, zeros filling the coefficients a short list lacks."""
    n = max(len(x) for x in xs)
    xp = get_array_module(xs[0][0])
    return [xp.stack(x + [xp.zeros_like(x[0])] * (n - len(x))) for x in xs]


def _cauchy(a, b):
    """Cauchy product of two stacked series (coefficient k along axis 0): sum_j a_j b_{k-j}."""
    shape, dtype = np.broadcast_shapes(a.shape, b.shape), np.result_type(a.dtype, b.dtype)
    out = get_array_module(a).empty(shape, dtype=dtype)
    for k in range(len(out)):
        out[k] = np.einsum("j...,j...->...", a[: k + 1], b[k::-1])
    return out


def _running_product(x, axis, reverse):
    """Stacked series of the running product of stacked series `x` along `axis` (of x_k)."""
    b = np.zeros_like(x)
    if x.shape[axis + 1] == 0:                                # nothing to multiply
        return b
    first = _along(x.ndim, axis + 1, -1 if reverse else 0)
    b[first] = x[first]                                       # h_0 = x_0, h_i = x_i h_{i-1}
    return _scan(x, b, axis + 1, reverse, _cauchy)


def _running_series(x, axis, reverse):
    """Series (a list) of the running product of series `x` along `axis`, in log2(n) doubling
    steps of Cauchy products: entry i takes the product of itself and entry i - d (Hillis and
    Steele), for d = 1, 2, 4, ...; slices, joins and products only, so recorded coefficients
    (Variables) and those of several directions pass (in a collapsed pass, series.mul sums
    their products with the weights)."""
    if reverse:
        return [np.flip(c, axis) for c in _running_series([np.flip(c, axis) for c in x], axis, False)]
    ndim, n, d = x[0].ndim, x[0].shape[axis], 1
    while d < n:
        head = [c[_along(ndim, axis, slice(None, d))] for c in x]
        late = [c[_along(ndim, axis, slice(d, None))] for c in x]
        early = [c[_along(ndim, axis, slice(None, n - d))] for c in x]
        x = [np.concatenate([h, p], axis=axis) for h, p in zip(head, series.mul(late, early))]
        d *= 2
    return x


def _product_series(x):
    """Series (a list) of the product of series `x` over its last axis (of length >= 1):
    halves multiplied pairwise (Cauchy products), log2(n) times; slices, joins and products
    only, as `_running_series`."""
    n = x[0].shape[-1]
    while n > 1:
        half = n // 2
        paired = series.mul([c[..., :half] for c in x], [c[..., half:2 * half] for c in x])
        x = paired if n % 2 == 0 else [np.concatenate([p, c[..., 2 * half:]], axis=-1)
                                       for p, c in zip(paired, x)]
        n -= half
    return [c[..., 0] for c in x]


# ----- private ops: a shift and a linear recurrence along an axis ----------------
class Shift(Forwarder):
    """Each entry replaced by the one before it along an axis (after it if `reverse`); the
    constant `fill` enters at the start."""

    def __init__(self, axis, reverse, fill):
        self.axis, self.reverse, self.fill = axis, reverse, fill

    def forward(self, x):
        return _shifted(x, self.axis, self.reverse, self.fill)

    save_for_backward = ()

    def backward(self, gy):
        return _shift(gy, self.axis, not self.reverse, 0)    # adjoint: shift back, 0 coming in

    def taylor(self, x):
        y, = self.outputs                                     # linear past the constant fill
        return [y._data] + [_shifted(c, self.axis, self.reverse, 0) for c in x[1:]]


def _shift(x, axis, reverse, fill):
    return Function(Shift(axis, reverse, fill))(x)


class Recurrence(Forwarder):
    """h_i = a_i h_{i-1} + b_i along an axis, h = 0 before the first entry (the last if
    `reverse`); `a` and `b` of one shape."""

    def __init__(self, axis, reverse):
        self.axis, self.reverse = axis, reverse

    def forward(self, a, b):
        return _scan(a, b, self.axis, self.reverse)

    save_for_backward = ("x0", "y")

    def backward(self, gh):
        a, b = self.inputs
        h, = self.outputs
        # adjoint, from the other end: gb_i = gh_i + a_{i+1} gb_{i+1}
        gb = _recurrence(_shift(a, self.axis, not self.reverse, 0), gh, self.axis, not self.reverse)
        ga = gb * _shift(h, self.axis, self.reverse, 0) if a.requires_grad else None   # dh_i/da_i = h_{i-1}
        return ga, gb

    def taylor(self, a, b):
        h, = self.outputs                                     # the recurrence on series: Cauchy products
        a, b = _stack(a, b)
        return [h._data] + list(_scan(a, b, self.axis + 1, self.reverse, _cauchy)[1:])


def _recurrence(a, b, axis, reverse):
    return Function(Recurrence(axis, reverse))(a, b)


# ----- the public ops -----------------------------------------------------------
class Cumsum(Forwarder):
    """Running sum along an axis (from the last entry if `reverse`)."""

    def __init__(self, axis, reverse=False):
        self.axis, self.reverse = axis, reverse

    def forward(self, x):
        if not self.reverse:
            return np.cumsum(x, axis=self.axis)
        xp = get_array_module(x)
        return xp.flip(np.cumsum(xp.flip(x, self.axis), axis=self.axis), self.axis)

    save_for_backward = ()

    def backward(self, gy):
        return Function(Cumsum(self.axis, not self.reverse))(gy)   # dy_i/dx_k = [k <= i]: sum from the end

    taylor_records = True

    def taylor(self, x):
        return series.map_linear(x, self.forward)            # linear: each coefficient summed


class Cumprod(Forwarder):
    """Running product along an axis (from the last entry if `reverse`), exact at zeros."""

    def __init__(self, axis, reverse=False):
        self.axis, self.reverse = axis, reverse

    def forward(self, x):
        if not self.reverse:
            return np.cumprod(x, axis=self.axis)
        xp = get_array_module(x)
        return xp.flip(np.cumprod(xp.flip(x, self.axis), axis=self.axis), self.axis)

    save_for_backward = ("x", "y")

    def backward(self, gy):
        x, = self.inputs
        y, = self.outputs
        # dy_i/dx_k = y_{k-1} x_{k+1} ... x_i for k <= i, so gx_k = y_{k-1} s_k where
        # s_k = gy_k + x_{k+1} s_{k+1}: a recurrence from the other end, with no division
        s = _recurrence(_shift(x, self.axis, not self.reverse, 0), gy, self.axis, not self.reverse)
        return _shift(y, self.axis, self.reverse, 1) * s

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs                                     # h_i = x_i h_{i-1} on series
        if series._recording(x):                             # (lists of recordable ops)
            return [y._data] + _running_series(x, self.axis, self.reverse)[1:]
        return [y._data] + list(_running_product(_stack(x)[0], self.axis, self.reverse)[1:])


def _cumprod(x, axis, reverse=False):
    return Function(Cumprod(axis, reverse))(x)


class Prod(Forwarder):
    """Product over axes, its gradient exact at zeros."""

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        return x.prod(axis=self.axes, keepdims=self.keepdims)

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return _spread(gy, x, self.axes) * _others(x, self.axes)   # d prod / d x_k = prod_{j != k} x_j

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs                                     # the last running product of the series
        rest, axes = _moved_last(self.axes, x[0].ndim)
        if series._recording(x):                             # the product of the reduced axes, flattened
            moved = [np.transpose(c, rest + axes) for c in x]
            lead = moved[0].shape[:len(rest)]
            flat = [np.reshape(c, lead + (math.prod(moved[0].shape[len(rest):]),)) for c in moved]
            if flat[0].shape[-1] == 0:                        # 1, a constant: zeros, as empty sums
                return [y._data] + [np.reshape(np.sum(c, axis=-1), y._data.shape) for c in flat[1:]]
            return [y._data] + [np.reshape(c, y._data.shape) for c in _product_series(flat)[1:]]
        stacked = _stack(x)[0].transpose((0,) + tuple(i + 1 for i in rest + axes))   # reduced axes last
        lead = stacked.shape[: 1 + len(rest)]
        flat = stacked.reshape(lead + (math.prod(stacked.shape[len(lead):]),))
        if flat.shape[-1] == 0:                               # an empty product is 1: a constant
            return [y._data] + [np.zeros_like(y._data) for _ in x[1:]]
        last = _running_product(flat, len(rest), False)[..., -1]
        return [y._data] + [c.reshape(y._data.shape) for c in last[1:]]


def _moved_last(axes, ndim):
    """(other axes, reduced axes): the order that moves `axes` (None: all) to the end."""
    axes = tuple(range(ndim)) if axes is None else axes
    return tuple(i for i in range(ndim) if i not in axes), axes


def _others(x, axes):
    """For every entry of `x`, the product of the other entries of its slice over `axes`:
    exclusive running products from the left times those from the right, no division."""
    rest, axes = _moved_last(axes, x.ndim)
    if not axes:
        return 1
    moved = transpose(x, rest + axes)
    lead = moved.shape[: len(rest)]
    flat = reshape(moved, lead + (math.prod(moved.shape[len(rest):]),))
    axis = len(rest)
    left = _shift(_cumprod(flat, axis), axis, False, 1)             # x_0 ... x_{k-1}
    right = _shift(_cumprod(flat, axis, reverse=True), axis, True, 1)   # x_{k+1} ... x_{n-1}
    order = rest + axes
    return transpose(reshape(left * right, moved.shape), tuple(int(i) for i in np.argsort(order)))


class Trace(Forwarder):
    """Sum along a diagonal of two axes."""

    def __init__(self, offset, axis1, axis2):
        self.offset, self.axis1, self.axis2 = offset, axis1, axis2

    def forward(self, x):
        n1, n2 = x.shape[self.axis1], x.shape[self.axis2]
        diagonal = get_array_module(x).eye(n1, n2, k=self.offset, dtype=x.dtype)
        if self.axis1 > self.axis2:
            diagonal = diagonal.T
        shape = [1] * x.ndim
        shape[self.axis1], shape[self.axis2] = n1, n2
        self.diagonal = diagonal.reshape(shape)              # a constant: 1 on the summed diagonal
        return x.trace(offset=self.offset, axis1=self.axis1, axis2=self.axis2)

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return _spread(gy, x, (self.axis1, self.axis2)) * self.diagonal   # d trace = 1 on the diagonal

    taylor_records = True

    def taylor(self, x):
        return series.map_linear(x, lambda c: c.trace(self.offset, self.axis1, self.axis2))   # linear


# ----- wrappers -------------------------------------------------------------------
def prod(
    a: ArrayLike,
    axis: Axis = None,
    dtype: None = None,
    out: None = None,
    keepdims: bool = False,
    initial: float | None = None,
    where: ArrayLike = True,
) -> Variable:
    """Product of the entries of `a` over `axis`, its gradient exact where entries are 0.

    The gradient with respect to an entry is the product of the other entries, found
    without dividing by it (as in PyTorch and JAX), so it is right, to every order, with
    one zero or several in a slice.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to multiply over (negatives allowed); None multiplies everything.
    dtype, out
        NumPy's keywords, accepted at their default None only.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    initial : number, optional
        A starting value the product is multiplied by (the result over an empty axis).
    where : bool or array of bools
        NumPy's mask, broadcast to `a`'s shape: only the entries where it holds are
        multiplied (the others count as 1, by a `where` on the constant mask, so whatever
        they hold, NaN or inf, gives no value and gradient exactly 0 at every order).

    Returns
    -------
    Variable
        The products; 1 (or `initial`) over an empty axis or an empty selection.  Integer
        input keeps its dtype, as in NumPy.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `initial` is not a number, `dtype`
        or `out` is given, `where` is not boolean or is a Variable, or `a` is not a Variable,
        a numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, or `where` does not broadcast to `a`'s shape.
    """
    _refuse_keywords("prod", dtype, out)
    if initial is not None and (not isinstance(initial, Real) or isinstance(initial, bool)):
        raise TypeError(f"prod: initial must be a real number or None, got {type(initial).__name__}")
    a = as_variable(a, op="prod")
    axes = normalize_axis(axis, a.ndim, "prod", a.shape)
    if where is not True:                                     # unselected entries: 1, gradient 0
        a = _where(selection(where, a, "prod"), a, 1)
    y = Function(Prod(axes, bool(keepdims)))(a)
    return y if initial is None else y * _initial_for(y, initial, "prod")


def _running_axis(a, axis, op):
    """The input of cumsum/cumprod and its axis: None flattens (as does a 0-d input)."""
    a = as_variable(a, op=op)
    if axis is None or a.ndim == 0:
        ndim = max(a.ndim, 1)
        axis = 0 if axis is None else single_axis(axis, ndim, op, a.shape)
        return reshape(a, (a.size,)), axis
    return a, single_axis(axis, a.ndim, op, a.shape)


def cumsum(a: ArrayLike, axis: int | None = None, dtype: None = None, out: None = None) -> Variable:
    """Running sum of `a` along `axis` (None: of the flattened input).

    Parameters
    ----------
    a : ArrayLike
    axis : int or None
        The axis to sum along (negative allowed); None flattens `a` first.
    dtype, out
        NumPy's keywords, accepted at their default None only.

    Returns
    -------
    Variable
        Of the shape of `a` (1-d if `axis` is None or `a` is 0-d); empty for an empty `a`.

    Raises
    ------
    TypeError
        If `axis` is not an int or None, `dtype` or `out` is given, or `a` is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If `axis` is out of range.
    """
    _refuse_keywords("cumsum", dtype, out)
    a, axis = _running_axis(a, axis, "cumsum")
    return Function(Cumsum(axis))(a)


def cumprod(a: ArrayLike, axis: int | None = None, dtype: None = None, out: None = None) -> Variable:
    """Running product of `a` along `axis` (None: of the flattened input), exact at zeros.

    The gradient with respect to x_k is y_{k-1} s_k with s_k = gy_k + x_{k+1} s_{k+1} (a
    recurrence along the axis from the end), never a division by x_k: derivatives of
    every order are right where entries are 0.

    Parameters
    ----------
    a : ArrayLike
    axis : int or None
        The axis to multiply along (negative allowed); None flattens `a` first.
    dtype, out
        NumPy's keywords, accepted at their default None only.

    Returns
    -------
    Variable
        Of the shape of `a` (1-d if `axis` is None or `a` is 0-d); empty for an empty `a`.

    Raises
    ------
    TypeError
        If `axis` is not an int or None, `dtype` or `out` is given, or `a` is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If `axis` is out of range.
    """
    _refuse_keywords("cumprod", dtype, out)
    a, axis = _running_axis(a, axis, "cumprod")
    return _cumprod(a, axis)


def trace(
    a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: None = None, out: None = None
) -> Variable:
    """Sum along the diagonal `offset` of axes `axis1` and `axis2` of `a`.

    Parameters
    ----------
    a : ArrayLike
        At least 2-d.
    offset : int
        The diagonal: entries (i, i + offset) of the two axes (negative: below the main one).
    axis1, axis2 : int
        The two axes (negatives allowed, distinct).
    dtype, out
        NumPy's keywords, accepted at their default None only.

    Returns
    -------
    Variable
        Of the shape of `a` without the two axes; 0 where the diagonal is empty.

    Raises
    ------
    TypeError
        If `offset`, `axis1` or `axis2` is not an int, `dtype` or `out` is given, or `a` is
        not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If `a` has fewer than 2 dimensions, or an axis is out of range, or the axes are the same.
    """
    _refuse_keywords("trace", dtype, out)
    if not isinstance(offset, (int, np.integer)) or isinstance(offset, bool):
        raise TypeError(f"trace: offset must be an int, got {offset!r}")
    a = as_variable(a, op="trace")
    if a.ndim < 2:
        raise ValueError(f"trace: the input must have at least 2 dimensions, got shape {a.shape}")
    axis1 = single_axis(axis1, a.ndim, "trace", a.shape)
    axis2 = single_axis(axis2, a.ndim, "trace", a.shape)
    if axis1 == axis2:
        raise ValueError(f"trace: axis1 and axis2 must be different axes, both are {axis1}")
    return Function(Trace(int(offset), axis1, axis2))(a)


__all__ = ["prod", "cumsum", "cumprod", "trace"]
