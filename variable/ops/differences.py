"""Differences and padding: diff, gradient, pad.

All three are linear maps of their input, so each backward is the transposed map, built
from these same ops (the adjoint of a difference is a difference of the zero-padded
gradient; the adjoint of a gather is a scatter-add), and each Taylor rule applies the map
to every coefficient.
"""

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import series
from ..axes import normalize_axis, single_axis
from ..backend import get_array_module, scatter_add, to_cpu
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike, Axis
from .elementwise import neg
from .indexing import GetItemGrad, get_item
from .joining import _as_sequence, concat
from .shape import broadcast_to


class _NoValue:
    """Marks an argument left out (NumPy's `<no value>`)."""

    def __repr__(self):
        return "<no value>"


_NO_VALUE = _NoValue()


# ----- diff ----------------------------------------------------------------------
class Diff(Forwarder):
    """The n-th forward difference along an axis: (D x)_i = x_{i+1} - x_i, n times."""

    def __init__(self, n, axis):
        self.n, self.axis = n, axis

    def forward(self, x):
        return np.diff(x, self.n, self.axis)

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        widths = [(0, 0)] * x.ndim                        # D^T = -D Z (Z pads one zero each side),
        widths[self.axis] = (self.n, x.shape[self.axis] - gy.shape[self.axis])   # so (D^n)^T = (-D)^n Z^n
        gx = Function(Diff(self.n, self.axis))(pad(gy, widths))
        return neg(gx) if self.n % 2 else gx

    taylor_records = True

    def taylor(self, x):
        return series.map_linear(x, lambda c: np.diff(c, self.n, self.axis))   # linear: each differenced


def _end_piece(piece, a, axis, name):
    """`prepend`/`append` of diff as a Variable fitting `a` outside `axis` (a number is spread)."""
    piece = _as_sequence([a, piece], "diff")[1]          # (a number goes where `a` is, in its dtype)
    if piece.ndim == 0:
        shape = list(a.shape)
        shape[axis] = 1
        return broadcast_to(piece, tuple(shape))
    outside = piece.shape[:axis] + piece.shape[axis + 1:]
    if piece.ndim != a.ndim or outside != a.shape[:axis] + a.shape[axis + 1:]:
        raise ValueError(
            f"diff: {name} of shape {piece.shape} does not fit the input of shape {a.shape} outside "
            f"axis {axis}"
        )
    return piece


def diff(a: ArrayLike, n: int = 1, axis: int = -1, prepend: ArrayLike = _NO_VALUE,
         append: ArrayLike = _NO_VALUE) -> Variable:
    """The n-th discrete difference of `a` along `axis`: out[i] = a[i + 1] - a[i], n times.

    Parameters
    ----------
    a : ArrayLike
        At least 1-D.
    n : int
        How many times to difference (>= 0; 0 returns `a`).
    axis : int
        The axis to difference along (negatives allowed).
    prepend, append : ArrayLike, optional
        Values joined to `a` along `axis` first (a number is repeated across the other
        axes); Variables among them get gradients.

    Returns
    -------
    Variable
        Of the shape of `a` (after joining), `n` shorter along `axis` (never below 0).

    Raises
    ------
    TypeError
        If `n` or `axis` is not an int.
    ValueError
        If `a` is 0-d, `n` is negative, `axis` is out of range, or `prepend`/`append` do
        not fit `a` outside `axis`.
    """
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"diff: n must be an int, got {n!r}") from None
    if n < 0:
        raise ValueError(f"diff: order n must be non-negative, got {n}")
    a = as_variable(a, op="diff")
    if a.ndim == 0:
        raise ValueError("diff: the input must be at least 1-D, got a 0-d input")
    axis = single_axis(axis, a.ndim, "diff", a.shape)
    if n == 0:
        return a
    pieces = [] if prepend is _NO_VALUE else [_end_piece(prepend, a, axis, "prepend")]
    pieces.append(a)
    if append is not _NO_VALUE:
        pieces.append(_end_piece(append, a, axis, "append"))
    if len(pieces) > 1:
        a = concat(pieces, axis)
    return Function(Diff(n, axis))(a)


# ----- gradient ------------------------------------------------------------------
def _stencil(m, spacing, edge_order):
    """Columns and weights of np.gradient's rule along an axis of length m: three taps.

    Row i of the rule reads x inside the window of 3 places starting at
    s_i = clip(i - 1, 0, m - 3), whose places differ mod 3; so np.gradient of the comb
    p_r (ones where j = r mod 3) is, at i, the weight of the window's place equal to r mod 3.
    """
    start = np.clip(np.arange(m) - 1, 0, max(m - 3, 0))
    places = np.arange(m)
    columns, weights = [], []
    for r in range(3):
        comb = (places % 3 == r).astype(np.float64)
        weights.append(np.gradient(comb, spacing, edge_order=edge_order))
        columns.append(np.minimum(start + (r - start) % 3, m - 1))   # (m = 2: the third tap weighs 0)
    return columns, weights


class Gradient(Forwarder):
    """np.gradient along one axis: y_i = sum_r w_r[i] x[c_r[i]], three constant taps."""

    def __init__(self, axis, spacing, edge_order):
        self.axis, self.spacing, self.edge_order = axis, spacing, edge_order

    def forward(self, x):
        xp = get_array_module(x)
        dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
        columns, weights = _stencil(x.shape[self.axis], self.spacing, self.edge_order)
        along = (-1,) + (1,) * (x.ndim - self.axis - 1)
        self.index = [(slice(None),) * self.axis + (xp.asarray(c),) for c in columns]
        self.weights = [xp.asarray(w.astype(dtype).reshape(along)) for w in weights]
        return self.apply(x)

    def apply(self, c):
        # a tap of weight 0 (the middle one of a central difference) reads 0, not 0 * inf = NaN
        return sum(w * np.where(w != 0, c[index], 0) for index, w in zip(self.index, self.weights))

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return Function(GradientGrad(self.index, self.weights, x.shape))(gy)   # the transposed taps

    taylor_records = True

    def taylor(self, x):
        return series.map_linear(x, self.apply)               # linear: each coefficient differenced


class GradientGrad(Forwarder):
    """The transpose of Gradient's taps: gx[c_r[i]] += w_r[i] gy_i."""

    def __init__(self, index, weights, shape):
        self.index, self.weights, self.shape = index, weights, shape

    def forward(self, gy):
        gx = get_array_module(gy).zeros(self.shape, dtype=gy.dtype)
        for index, w in zip(self.index, self.weights):
            scatter_add(gx, index, w * gy)
        return gx

    save_for_backward = ()

    def backward(self, ggx):
        return sum(self.weights[r] * get_item(ggx, self.index[r]) for r in range(3))   # the taps again

    def taylor(self, gy):
        return series.map_linear(gy, self.forward)            # linear: each coefficient scattered


def _spacings(varargs, f, axes):
    """One spacing per axis: a number, or 1-D coordinates along it (a host array)."""
    if len(varargs) == 0:
        varargs = (1.0,) * len(axes)
    elif len(varargs) == 1 and np.ndim(_constant(varargs[0])) == 0:
        varargs = varargs * len(axes)
    elif len(varargs) != len(axes):
        raise TypeError(
            f"gradient: expected no spacing, one number, or one spacing per axis ({len(axes)}), "
            f"got {len(varargs)}"
        )
    spacings = []
    for axis, h in zip(axes, varargs):
        h = _constant(h)
        if np.ndim(h) == 0:
            spacings.append(float(h))
            continue
        if h.ndim != 1 or h.shape[0] != f.shape[axis]:
            raise ValueError(
                f"gradient: coordinates along axis {axis} must be 1-D of length {f.shape[axis]}, got "
                f"shape {h.shape}"
            )
        spacings.append(h.astype(np.float64) if h.dtype.kind in "biu" else h)
    return spacings


def _constant(h):
    """A spacing argument as a host number or array; Variables that require grad are refused."""
    if isinstance(h, Variable):
        if h.requires_grad:
            raise TypeError("gradient: the spacing is a constant; got a Variable that requires grad")
        h = h.data
    h = np.asarray(to_cpu(h))
    if h.dtype.kind not in "biuf":
        raise TypeError(f"gradient: spacing must be numbers or arrays of numbers, got dtype {h.dtype}")
    return h


def gradient(
    f: ArrayLike, *varargs: Any, axis: Axis = None, edge_order: int = 1
) -> Variable | tuple[Variable, ...]:
    """The derivative of sampled `f` along each axis, by central differences inside.

    Second-order accurate inside; one-sided differences of order `edge_order` at the ends.

    Parameters
    ----------
    f : ArrayLike
    *varargs : numbers or 1-D arrays, optional
        The spacing: none (1), one number for all axes, or one per axis, each a number or
        the coordinates along that axis (constants).
    axis : None, int or tuple of ints
        The axes to differentiate along (negatives allowed, order kept); None: all.
    edge_order : {1, 2}
        Accuracy of the one-sided differences at the ends.

    Returns
    -------
    Variable or tuple of Variable
        One Variable of `f`'s shape per axis; a lone axis gives the Variable itself.

    Raises
    ------
    TypeError
        If the number of spacings fits neither form, a spacing requires grad, or `f` is boolean.
    ValueError
        If `edge_order` is not 1 or 2, an axis is out of range or repeated, coordinates do
        not match their axis, or an axis has fewer than edge_order + 1 entries.
    """
    if edge_order not in (1, 2) or isinstance(edge_order, bool):
        raise ValueError(f"gradient: edge_order must be 1 or 2, got {edge_order!r}")
    f = as_variable(f, op="gradient")
    if f.dtype == bool:
        raise TypeError("gradient: boolean input is not supported (as in NumPy, which cannot subtract "
                        "booleans); convert it to a number type first")
    if axis is None:
        axes = tuple(range(f.ndim))
    else:
        normalize_axis(axis, f.ndim, "gradient", f.shape)     # (checks range and repeats)
        axes = tuple(int(a) % f.ndim for a in ((axis,) if np.ndim(axis) == 0 else axis))
    spacings = _spacings(varargs, f, axes)
    for a in axes:
        if f.shape[a] < edge_order + 1:
            raise ValueError(
                f"gradient: axis {a} of the input of shape {f.shape} is too short: edge_order "
                f"{edge_order} needs at least {edge_order + 1} entries"
            )
    out = tuple(Function(Gradient(a, h, edge_order))(f) for a, h in zip(axes, spacings))
    return out[0] if len(out) == 1 else out


# ----- pad -------------------------------------------------------------------------
_CIRCULAR = "; PyTorch's circular padding is mode='wrap'"
_PAD_OPTIONS = {"constant": {"constant_values"}, "edge": set(), "reflect": {"reflect_type"},
                "symmetric": {"reflect_type"}, "wrap": set()}


def _source(n, before, after, mode):
    """For each place of a padded axis of length n, the place of the input it copies."""
    j = np.arange(-before, n + after)
    if mode == "wrap":                                     # the axis repeated
        return j % n
    if mode == "symmetric":                                # mirrored with the end entries repeated
        j = j % (2 * n)
        return np.where(j < n, j, 2 * n - 1 - j)
    if mode == "edge" or n == 1:
        return np.clip(j, 0, max(n - 1, 0))
    period = 2 * (n - 1)                                   # reflect: mirror about both ends
    j = j % period
    return np.where(j < n, j, period - j)


class Pad(Forwarder):
    """np.pad in mode 'constant', 'edge', 'reflect', 'symmetric' or 'wrap': the input inside,
    copies or constants around."""

    def __init__(self, widths, mode, options):
        self.widths, self.mode, self.options = widths, mode, options
        self.pad_width = widths or 0                       # (np.pad reads () as floats: a 0-d input)

    def forward(self, x):
        return get_array_module(x).pad(x, self.pad_width, mode=self.mode, **self.options)

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        if self.mode == "constant":                        # d pad = 1 inside, 0 on the constants
            return get_item(gy, tuple(slice(b, b + n) for (b, _), n in zip(self.widths, x.shape)))
        xp = get_array_module(x)
        ndim = x.ndim
        index = tuple(                                     # every copy sends its gradient home
            xp.asarray(_source(n, b, a, self.mode)).reshape((1,) * i + (-1,) + (1,) * (ndim - i - 1))
            for i, (n, (b, a)) in enumerate(zip(x.shape, self.widths))
        )
        return Function(GetItemGrad(index, x.shape))(gy)

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        # linear (the constants only in y_0); np.pad hands a Variable or Directions to its own
        return [y._data] + [np.pad(c, self.pad_width, mode=self.mode) for c in x[1:]]


def pad(array: ArrayLike, pad_width: int | Sequence, mode: str = "constant", **kwargs: Any) -> Variable:
    """`array` padded along every axis, in NumPy's modes 'constant', 'edge', 'reflect',
    'symmetric' and 'wrap'.

    Parameters
    ----------
    array : ArrayLike
    pad_width : int, sequence or dict
        Entries added before and after each axis: n, (before, after), or
        ((before_1, after_1), ..., (before_N, after_N)); or {axis: n or (before, after)}
        for some axes (the others unpadded).
    mode : {'constant', 'edge', 'reflect', 'symmetric', 'wrap'}
        'constant' fills with `constant_values` (constants: no gradient), 'edge' repeats
        the end values, 'reflect' mirrors about the ends without repeating them,
        'symmetric' mirrors repeating them, 'wrap' repeats the axis (PyTorch's circular
        padding).
    **kwargs
        constant_values (mode 'constant'; default 0), reflect_type (modes 'reflect' and
        'symmetric'; only 'even').

    Returns
    -------
    Variable
        Longer along each axis by before + after.

    Raises
    ------
    TypeError
        If `pad_width` is not made of ints, or `constant_values` is a Variable requiring grad.
    ValueError
        If `pad_width` is negative or does not fit the input's axes, `mode` is not one of
        the five, a keyword does not belong to the mode, or a mode other than 'constant'
        would extend an empty axis.
    """
    if not isinstance(mode, str) or mode not in _PAD_OPTIONS:
        raise ValueError(
            f"pad: mode {mode!r} is not supported (only 'constant', 'edge', 'reflect', 'symmetric' "
            f"and 'wrap'{_CIRCULAR if mode == 'circular' else ''})"
        )
    unknown = set(kwargs) - _PAD_OPTIONS[mode]
    if unknown:
        torch = (f"; value is torch.nn.functional.pad's keyword: write constant_values="
                 f"{kwargs['value']!r}" if unknown == {"value"} and mode == "constant" else "")
        raise ValueError(f"pad: unsupported keyword arguments for mode {mode!r}: {sorted(unknown)}{torch}")
    if kwargs.get("reflect_type", "even") != "even":
        raise ValueError(f"pad: reflect_type={kwargs['reflect_type']!r} is not supported (only 'even')")
    array = as_variable(array, op="pad")
    widths = _pad_widths(pad_width, array.shape)
    options = {}
    if "constant_values" in kwargs:
        options["constant_values"] = _constant_values(kwargs["constant_values"], array.ndim)
    if mode != "constant":
        for i, (n, (b, a)) in enumerate(zip(array.shape, widths)):
            if n == 0 and (b or a):
                raise ValueError(f"pad: cannot extend the empty axis {i} in mode {mode!r} (only 'constant')")
    return Function(Pad(widths, mode, options))(array)


def _pad_widths(pad_width, shape):
    """`pad_width` as ((before, after),) per axis, by NumPy's broadcasting rule."""
    if isinstance(pad_width, dict):                        # {axis: n or (before, after)}, others 0
        widths = [(0, 0)] * len(shape)
        for axis, width in pad_width.items():
            widths[single_axis(axis, len(shape), "pad", shape)] = _pad_widths(width, (1,))[0]
        return tuple(widths)
    if isinstance(pad_width, Variable):
        pad_width = pad_width.data
    widths = np.asarray(to_cpu(pad_width))
    if widths.dtype.kind not in "iu":
        raise TypeError(f"pad: pad_width must be ints, got {pad_width!r}")
    try:
        widths = np.broadcast_to(widths, (len(shape), 2))
    except ValueError:
        flat = widths.ndim == 1 and widths.size % 2 == 0 and 4 <= widths.size <= 2 * len(shape)
        torch = ""
        if flat:                                           # torch's (left, right, top, bottom, ...)
            pairs = [(int(widths[i]), int(widths[i + 1])) for i in range(0, widths.size, 2)]
            numpys = tuple([(0, 0)] * (len(shape) - len(pairs)) + pairs[::-1])
            torch = (f"; torch.nn.functional.pad's flat form pads the last axes first: here "
                     f"pad_width={numpys}")
        raise ValueError(
            f"pad: pad_width {pad_width!r} does not fit an input of shape {shape}; give n, "
            f"(before, after) or one (before, after) per axis{torch}"
        ) from None
    if (widths < 0).any():
        raise ValueError(f"pad: pad_width must be >= 0, got {pad_width!r}")
    return tuple((int(b), int(a)) for b, a in widths)


def _constant_values(values, ndim):
    """constant_values of mode 'constant' as a host array (numbers only, no gradient)."""
    if isinstance(values, Variable):
        if values.requires_grad:
            raise TypeError("pad: constant_values are constants; got a Variable that requires grad")
        values = values.data
    values = np.asarray(to_cpu(values))
    if values.dtype.kind not in "biuf":
        raise TypeError(f"pad: constant_values must be numbers, got dtype {values.dtype}")
    try:
        np.broadcast_to(values, (ndim, 2))
    except ValueError:
        raise ValueError(
            f"pad: constant_values of shape {values.shape} do not fit {ndim} axes; give a number, "
            f"(before, after) or one pair per axis"
        ) from None
    return values.tolist()   # (numbers, so the device's pad takes them too)


__all__ = ["diff", "gradient", "pad"]
