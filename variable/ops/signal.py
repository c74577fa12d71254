"""One-dimensional signals and curves: convolve, correlate, interp, trapezoid, polyval.

`convolve` and `correlate` are one op, `Convolve`: a window [lo, hi) of the full
convolution of `a` with `v` (with `v` reversed for a correlation).  It is bilinear, so the
gradient of each input is again such a window of the incoming gradient convolved with the
other input (the adjoint of "convolve with w" is "correlate with w"), and every order of
derivative works; its Taylor rule is the Cauchy product of the two series under it.
NumPy's modes are windows of the full result; where `v` is the longer input NumPy swaps
the two (and reverses a correlation), which moves the window of 'same' and 'valid': the
windows below are NumPy's, found for either order.

`interp`, `trapezoid` and `polyval` are composites of gathers, differences, arithmetic and
sums, so their gradients and Taylor rules are those ops' own.  interp looks up, once in
forward, the segment of `xp` each point of `x` falls in (a constant index, as
searchsorted gives it); everything after it is differentiable in `x`, `xp` and `fp`.
"""

from collections.abc import Sequence
from numbers import Real

import numpy as np

from .. import backend, series
from ..axes import single_axis
from ..backend import errstate, get_array_module, is_device_array, maybe_any
from ..directions import Directions
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike
from .differences import diff
from .division import mod
from .indexing import get_item
from .joining import _as_sequence, concat
from .piecewise import where
from .reduction import sum as _sum
from .selection import take
from .shape import reshape, sum_to

_MODES = {"valid": "valid", "same": "same", "full": "full", 0: "valid", 1: "same", 2: "full"}


# ----- convolve, correlate ------------------------------------------------------------
def _full(a, w):
    """The full convolution of a and w along their last axes, sum_i a_i w_{k-i} (length
    n + m - 1), leading axes broadcast (coefficients of several directions)."""
    if a.ndim == 1 and w.ndim == 1:
        return np.convolve(a, w)        # (full: symmetric in a and w, so NumPy's swap is no matter)
    if a.shape[-1] < w.shape[-1]:
        a, w = w, a                     # one shifted product per entry of the shorter
    n, m = a.shape[-1], w.shape[-1]
    batch = np.broadcast_shapes(a.shape[:-1], w.shape[:-1])
    y = get_array_module(a, w).zeros(batch + (n + m - 1,), dtype=np.result_type(a.dtype, w.dtype))
    for i in range(m):
        y[..., i:i + n] += a * w[..., i:i + 1]
    return y


class Convolve(Forwarder):
    """y_t = F_{lo+t} for t < hi - lo, F the full convolution of a with w = v (v reversed if
    `flip`: a correlation), 0 outside F's length n + m - 1; along the last axis, leading
    axes broadcast (the public ops are 1-D; the Taylor rule's directions add an axis)."""

    def __init__(self, lo, hi, flip):
        self.lo, self.hi, self.flip = lo, hi, flip

    def forward(self, a, v):
        full = _full(a, v[..., ::-1] if self.flip else v)
        lo, hi, size = self.lo, self.hi, full.shape[-1]
        if 0 <= lo and hi <= size:
            return full[..., lo:hi]
        # a window past F's ends reads zeros there (NumPy's modes and their adjoints stay
        # inside F, but the op is defined, and differentiated, for any window)
        y = get_array_module(full).zeros(full.shape[:-1] + (hi - lo,), dtype=full.dtype)
        start, stop = max(lo, 0), min(hi, size)
        if start < stop:
            y[..., start - lo:stop - lo] = full[..., start:stop]
        return y

    save_for_backward = {"x0": ("x1",), "x1": ("x0",)}   # ga reads v, gv reads a

    def backward(self, gy):
        a, v = self.inputs
        n, m, lo, span = a.shape[-1], v.shape[-1], self.lo, gy.shape[-1]
        ga = gv = None
        if a.requires_grad:
            # y_t = sum_i a_i w_{t+lo-i}, so ga_i = sum_t gy_t w_{t+lo-i}: gy convolved with
            # w reversed, from m - 1 - lo on
            ga = sum_to(_convolve(gy, v, m - 1 - lo, m - 1 - lo + n, not self.flip), a.shape)
        if v.requires_grad:
            if not self.flip:          # gv_j = sum_t gy_t a_{t+lo-j}: gy convolved with a reversed
                gv = _convolve(gy, a, n - 1 - lo, n - 1 - lo + m, True)
            else:                      # w = v reversed: gv_l = sum_t gy_t a_{t+lo-m+1+l}, which is
                gv = _convolve(a, gy, span - m + lo, span + lo, True)   # a convolved with gy reversed
            gv = sum_to(gv, v.shape)
        return ga, gv

    taylor_records = True
    _taylor_linear = "bilinear"

    def taylor(self, a, v):
        y, = self.outputs               # bilinear: y_k = sum_j conv(a_j, v_{k-j}), Cauchy products
        return series.mul(a, v, product=self._product, y0=y._data)

    def _product(self, a, v):
        """This op's window of a and v: on arrays at once, on Variables (a recording pass)
        as this op recorded again, on several directions' coefficients for all at once."""
        if isinstance(a, Directions) or isinstance(v, Directions):
            return self._directions(a, v)
        if isinstance(a, Variable) or isinstance(v, Variable):
            return _convolve(a, v, self.lo, self.hi, self.flip)
        return self.forward(a, v)

    def _directions(self, a, v):
        """The window for each direction (its axis leading the data's); in a collapsed pass a
        product of two directions' coefficients is their weighted sum sum_d w_d conv(a_d, v_d)."""
        several = a if isinstance(a, Directions) else v
        data = [x.full() if isinstance(x, Directions) else x for x in (a, v)]
        y = self._product(*data)
        if isinstance(a, Directions) and isinstance(v, Directions) and several.weights is not None:
            w = get_array_module(y).asarray(several.weights.astype(y.dtype))
            return (y * w.reshape((-1,) + (1,) * (y.ndim - 1))).sum(axis=0)
        return Directions(y, y.shape[1:], several.weights)


def _convolve(a, v, lo, hi, flip):
    return Function(Convolve(lo, hi, flip))(a, v)


def _mode(mode, op):
    """NumPy's mode name ('valid', 'same', 'full'; its legacy 0, 1, 2 too)."""
    if isinstance(mode, str) or (isinstance(mode, (int, np.integer)) and not isinstance(mode, bool)):
        name = _MODES.get(mode if isinstance(mode, str) else int(mode))
        if name is None:
            raise ValueError(f"{op}: mode must be one of 'valid', 'same' or 'full', got {mode!r}")
        return name
    raise TypeError(f"{op}: mode must be one of 'valid', 'same' or 'full', got {mode!r}")


def _signals(a, v, op, scalars):
    """`a` and `v` as 1-D Variables on one device (0-d ones as length 1 where `scalars`, as
    np.convolve's ndmin=1), checked non-empty."""
    a, v = _as_sequence([a, v], op)
    for name, x in (("a", a), ("v", v)):
        if x.ndim == 0 and scalars:
            continue
        if x.ndim != 1:
            raise ValueError(
                f"{op}: {name} must be 1-D, got shape {x.shape} (as in NumPy); for several signals, "
                f"call {op} on each row"
            )
        if x.shape[0] == 0:
            raise ValueError(f"{op}: {name} cannot be empty (NumPy refuses it too)")
    return [reshape(x, (1,)) if x.ndim == 0 else x for x in (a, v)]


def convolve(a: ArrayLike, v: ArrayLike, mode: str | int = "full") -> Variable:
    """Discrete linear convolution of two 1-D sequences: (a * v)_k = sum_i a_i v_{k-i}.

    The gradient of each input is the incoming gradient correlated with the other input
    (itself this op), so derivatives of every order work; the Taylor rule is the Cauchy
    product of the two inputs' series.

    Parameters
    ----------
    a, v : ArrayLike
        1-D and non-empty (a number is a sequence of length 1, as in NumPy); either may be a
        constant. NumPy swaps them when `v` is the longer; the result is the same.
    mode : {'full', 'same', 'valid'}
        'full': all n + m - 1 entries; 'same': max(n, m) of them, from (min(n, m) - 1) // 2
        into the full result (NumPy's centring, in either order); 'valid': the
        max(n, m) - min(n, m) + 1 where the inputs overlap completely. NumPy's legacy 0, 1,
        2 (valid, same, full) are taken too.

    Returns
    -------
    Variable
        1-D, as np.convolve(a, v, mode).

    Raises
    ------
    TypeError
        If `mode` is not a str or an int, or an input is not a Variable, a numeric ndarray,
        a number or a list of numbers.
    ValueError
        If `mode` is not one of NumPy's, an input has 2 or more dimensions, or is empty.
    """
    mode = _mode(mode, "convolve")
    a, v = _signals(a, v, "convolve", scalars=True)
    n, m = a.shape[0], v.shape[0]
    short, long = min(n, m), max(n, m)
    lo, size = {"full": (0, n + m - 1), "same": ((short - 1) // 2, long),
                "valid": (short - 1, long - short + 1)}[mode]
    return _convolve(a, v, lo, lo + size, False)


def correlate(a: ArrayLike, v: ArrayLike, mode: str | int = "valid") -> Variable:
    """Cross-correlation of two 1-D sequences: c_k = sum_n a_{n+k} v_n, as np.correlate.

    Where `v` is longer than `a`, NumPy correlates v with a and reverses the result: the
    entries of the full correlation of a with v, in NumPy's window of it for that order.
    The gradients are correlations and convolutions of the incoming gradient with the
    other input (this op again), so derivatives of every order work.

    Parameters
    ----------
    a, v : ArrayLike
        1-D and non-empty; either may be a constant. Real numbers (no conjugation).
    mode : {'valid', 'same', 'full'}
        'valid' (NumPy's default): the max(n, m) - min(n, m) + 1 lags where the inputs
        overlap completely; 'same': max(n, m) lags, from (m - 1) // 2 into the full result
        (n // 2 where v is the longer, NumPy's window after its swap); 'full': all n + m - 1,
        from the lag -(m - 1) (the full result is np.convolve(a, v[::-1])). NumPy's legacy
        0, 1, 2 are taken too.

    Returns
    -------
    Variable
        1-D, as np.correlate(a, v, mode).

    Raises
    ------
    TypeError
        If `mode` is not a str or an int, or an input is not a Variable, a numeric ndarray,
        a number or a list of numbers.
    ValueError
        If `mode` is not one of NumPy's, an input is not 1-D (0-d too, as NumPy refuses
        it), or is empty.
    """
    mode = _mode(mode, "correlate")
    a, v = _signals(a, v, "correlate", scalars=False)
    n, m = a.shape[0], v.shape[0]
    short = min(n, m)
    if mode == "full":
        lo, size = 0, n + m - 1
    elif mode == "valid":
        lo, size = short - 1, abs(n - m) + 1
    else:                               # NumPy: (m - 1) // 2 in, or n // 2 after its swap
        lo, size = ((m - 1) // 2 if n >= m else n // 2), max(n, m)
    return _convolve(a, v, lo, lo + size, True)


# ----- interp --------------------------------------------------------------------------
def _scalar(value, op, name):
    """A bound or period: a real number, or a 0-d array or Variable (kept as is)."""
    if isinstance(value, Variable) or isinstance(value, np.ndarray) or is_device_array(value):
        if value.ndim != 0:
            raise ValueError(f"{op}: {name} must be a scalar, got an array of shape {value.shape}")
        return value
    if not isinstance(value, Real) or isinstance(value, bool):
        raise TypeError(f"{op}: {name} must be a real number, got {value!r}")
    return value


def _increasing(points):
    """Check that the sample points never decrease, before any arithmetic on them: on the CPU
    a ValueError at once (None when they are in order); on a device the check runs there
    (backend.device_check) and this returns the factor that makes the result NaN where it
    failed, the error raised at the next read (no sync here)."""
    message = ("interp: xp must be increasing (NumPy assumes it and gives wrong values "
               "otherwise), but it falls to {value}; sort xp and fp together first, e.g. "
               "order = np.argsort(xp), then xp[order], fp[order]")
    step_down = ~(points[1:] >= points[:-1])                # (a NaN counts as out of order)
    if not is_device_array(points):
        if step_down.any():
            raise ValueError(message.format(value=points[1:][step_down][0]))
        return None
    found = backend.device_check("interp", step_down, points[1:], message)
    return get_array_module(points).where(found, np.nan, 1).astype(points.dtype)


def interp(x: ArrayLike, xp: ArrayLike, fp: ArrayLike, left: float | None = None,
           right: float | None = None, period: float | None = None) -> Variable:
    """Piecewise-linear interpolation of the points (xp, fp) at `x`, as np.interp.

    Each x in [xp[j], xp[j+1]) gets fp[j] + (fp[j+1] - fp[j]) / (xp[j+1] - xp[j]) (x - xp[j]),
    differentiable in `x`, `xp` and `fp`; the segment j is looked up once, in forward (a
    constant index). Convention at the knots (where the gradient in x jumps): the segment
    to the right of the knot is used, as NumPy's search picks it, so the gradient in x at
    xp[j] is the slope of [xp[j], xp[j+1]]; at the last knot the value is fp[-1] exactly
    (as in NumPy) and its gradient in x is 0 (the slope to its right, where `right`
    defaults to fp[-1]). Below xp[0] the value is `left`, above xp[-1] `right`: gradient 0
    in x there, and 1 in fp[0] / fp[-1] where those are the defaults. Infinite values of
    `fp` give NumPy's values, with no warning as in NumPy: where the formula above meets
    inf - inf, the same line from the segment's right end, fp[j+1] + slope (x - xp[j+1]),
    and fp[j] at the knot xp[j] itself and where both ends are the same infinity.

    `xp` must be increasing (repeated points are allowed: a step). NumPy assumes it without
    checking; here it is checked, at the cost of one comparison pass over `xp`: on the CPU
    a ValueError at once; on a GPU the check runs on the device with no host sync, and a
    failure makes the result NaN and raises at the next read (`float(y)`,
    `V.backend.synchronize()`), as the other checks of device data do. With `period` the
    points are sorted first, as NumPy does, so no order is required.

    Unlike NumPy, which always computes in float64, float32 inputs give a float32 result
    (gengrad keeps float32 end to end); integer and boolean inputs are read as float64, as
    NumPy reads them.

    Parameters
    ----------
    x : ArrayLike
        The points to evaluate at, any shape.
    xp : ArrayLike
        1-D, non-empty, increasing sample points (in any order with `period`).
    fp : ArrayLike
        1-D sample values, as long as `xp`.
    left, right : number or 0-d array/Variable, optional
        The values below xp[0] and above xp[-1] (default fp[0] and fp[-1]); ignored with
        `period`, as in NumPy. A 0-d Variable gets its gradient.
    period : real number, optional
        The period of the sample points: x and xp are taken modulo it (gradient 1 in each),
        xp sorted, and the ends joined across the period, as np.interp does. A constant: a
        Variable is refused (no gradient flows into it).

    Returns
    -------
    Variable
        Of the shape of `x`.

    Raises
    ------
    TypeError
        If an input is not a Variable, a numeric ndarray, a number or a list of numbers,
        `left`, `right` or `period` is not a real number (or a 0-d array), or `period` is a
        Variable.
    ValueError
        If `xp` or `fp` is not 1-D, they differ in length or are empty, `period` is 0, a
        bound is not a scalar, or `xp` is not increasing (without `period`).
    """
    x, xp, fp = _as_sequence([x, xp, fp], "interp")
    # integers and booleans in float64, as NumPy computes (a boolean has no difference)
    x, xp, fp = [v if v.dtype.kind == "f" else v.astype(np.float64) for v in (x, xp, fp)]
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError(f"interp: xp and fp must be 1-D sequences, got shapes {xp.shape} and {fp.shape}")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError(f"interp: fp and xp are not of the same length ({fp.shape[0]} and {xp.shape[0]})")
    if xp.shape[0] == 0:
        raise ValueError("interp: the array of sample points xp is empty")
    if period is not None:
        if isinstance(period, Variable):
            raise TypeError("interp: period must be a number, got a Variable (no gradient flows into "
                            "the period); pass float(period)")
        period = _scalar(period, "interp", "period")
        period = float(period)                       # (a 0-d array: read once, on the host)
        if period == 0:
            raise ValueError("interp: period must be a non-zero value")
        period = abs(period)
        x, xp = mod(x, period), mod(xp, period)     # d/dx (x mod p) = 1
        order = np.argsort(xp.data)                  # (constant: the points' order, as NumPy's)
        xp, fp = take(xp, order), take(fp, order)
        xp = concat([get_item(xp, slice(-1, None)) - period, xp, get_item(xp, slice(0, 1)) + period])
        fp = concat([get_item(fp, slice(-1, None)), fp, get_item(fp, slice(0, 1))])
        left = right = None
    else:
        left = None if left is None else _scalar(left, "interp", "left")
        right = None if right is None else _scalar(right, "interp", "right")
    poison = None if period is not None else _increasing(xp.data)
    if xp.shape[0] == 1:                             # one knot: a segment of width 0, slope 0
        xp, fp = concat([xp, xp]), concat([fp, fp])
    points, at = xp.data, x.data
    array = get_array_module(points)
    last = points.shape[0] - 1
    j = array.clip(np.searchsorted(points, at, side="right") - 1, 0, last - 1)   # the segment
    x0, x1, f0, f1 = take(xp, j), take(xp, j + 1), take(fp, j), take(fp, j + 1)
    width = points[j + 1] - points[j]                # (0 only where the segment is not used)
    span = where(width == 0, 1, x1 - x0)
    with errstate(points, invalid="ignore", over="ignore"):     # NumPy's loop raises no flags
        slope = (f1 - f0) / span
        y = f0 + slope * (x - x0)                    # NumPy's slope (x - xp[j]) + fp[j]
        lost = array.isnan(y.data) & ~array.isnan(at)
        if maybe_any(lost):                          # inf - inf at an infinite fp: NumPy's retries,
            y = where(lost, f1 + slope * (x - x1), y)   # from the segment's right end; fp[j] at the
            agree = array.isnan(y.data) & (f0.data == f1.data)   # knot itself and where the ends agree
            y = where(lost & ((at == points[j]) | agree), f0, y)
    end = get_item(fp, -1)
    y = where(at == points[last], end, y)            # the last knot: fp[-1] exactly
    y = where(at > points[last], end if right is None else right, y)
    y = where(at < points[0], get_item(fp, 0) if left is None else left, y)
    return y if poison is None else y * poison.astype(y.dtype)


# ----- trapezoid --------------------------------------------------------------------
def trapezoid(y: ArrayLike, x: ArrayLike | None = None, dx: float = 1.0, axis: int = -1) -> Variable:
    """Integral of `y` along `axis` by the composite trapezoidal rule, as np.trapezoid.

    sum_i (x_{i+1} - x_i) (y_i + y_{i+1}) / 2, built from differences, slices and a sum, so
    it is differentiable in `y`, `x` (and `dx`) to every order.

    Parameters
    ----------
    y : ArrayLike
        The samples, at least 1-D.
    x : ArrayLike, optional
        The sample points: 1-D of y's length along `axis`, or an array whose differences
        along `axis` broadcast with y's. Default: spaced `dx` apart.
    dx : number or ArrayLike
        The spacing when `x` is None (an array broadcasting against the pairs of samples,
        or a Variable, gets its gradient).
    axis : int
        The axis to integrate along (negatives allowed).

    Returns
    -------
    Variable
        Of y's shape without `axis`; 0 where `axis` has fewer than 2 samples.

    Raises
    ------
    TypeError
        If `axis` is not an int, or an input is not a Variable, a numeric ndarray, a number
        or a list of numbers.
    ValueError
        If `y` is 0-d, `axis` is out of range, or `x` (or `dx`) does not fit `y`.
    """
    pieces = [y] + ([] if x is None else [x]) + ([dx] if x is None and not isinstance(dx, Real) else [])
    pieces = _as_sequence(pieces, "trapezoid")
    y = pieces[0]
    if y.ndim == 0:
        raise ValueError("trapezoid: y must be at least 1-D, got a 0-d input")
    along = single_axis(axis, y.ndim, "trapezoid", y.shape)
    n = y.shape[along]
    if x is not None:
        x = pieces[1]
        if x.ndim == 1:                              # spacings along y's axis
            if x.shape[0] != n:
                raise ValueError(
                    f"trapezoid: x of length {x.shape[0]} does not match y of shape {y.shape} along "
                    f"axis {axis} (length {n})"
                )
            d = reshape(diff(x), tuple(max(n - 1, 0) if i == along else 1 for i in range(y.ndim)))
        else:                                        # (NumPy's axis, counted in x's dimensions)
            if x.ndim == 0:
                raise ValueError("trapezoid: x must be 1-D or more, got a 0-d input")
            d = diff(x, axis=single_axis(axis, x.ndim, "trapezoid", x.shape))
    else:
        d = dx if isinstance(dx, Real) else pieces[1]
    before = (slice(None),) * along
    pairs = get_item(y, before + (slice(1, None),)) + get_item(y, before + (slice(None, -1),))
    try:
        shape = np.broadcast_shapes(np.shape(d) if isinstance(d, Real) else d.shape, pairs.shape)
    except ValueError:
        raise ValueError(
            f"trapezoid: the spacings of shape {d.shape} do not broadcast with y's pairs of samples "
            f"of shape {pairs.shape} (y of shape {y.shape}, axis {axis})"
        ) from None
    # sum of dx (y_i + y_{i+1}) / 2, over NumPy's axis of the broadcast terms
    return _sum(d * pairs / 2.0, single_axis(axis, len(shape), "trapezoid", shape))


# ----- polyval ---------------------------------------------------------------------
def _rectangular(p):
    """Refuse a list of numbers that NumPy cannot read as an array (a ragged one): only
    coefficients given as arrays or Variables may differ in shape."""
    if any(isinstance(c, Variable) or isinstance(c, np.ndarray) or is_device_array(c) for c in p):
        return
    try:
        np.asarray(p)
    except ValueError:
        raise ValueError(
            f"polyval: p is a ragged list of numbers, {p!r} (NumPy refuses it too); for "
            f"coefficients of different shapes give each as an array, e.g. [np.array([1.0, 2.0]), 3.0]"
        ) from None


def polyval(p: Sequence[ArrayLike] | ArrayLike, x: ArrayLike) -> Variable:
    """The polynomial p[0] x^(N-1) + p[1] x^(N-2) + ... + p[N-1] at `x`, by Horner's scheme.

    y = (...((p[0] x + p[1]) x + p[2]) ...) x + p[N-1]: products and sums only, so it is
    differentiable in `p` and `x` to every order.

    Parameters
    ----------
    p : sequence or ArrayLike
        The coefficients, highest power first: a list or tuple of Variables, numbers or
        arrays (each gets its own gradient), or an array or Variable whose first axis runs
        over them (a 2-D p holds one polynomial per column, broadcasting against `x`).
    x : ArrayLike
        The points.

    Returns
    -------
    Variable
        Of the broadcast shape of `x` and the coefficients; zeros of x's shape (a constant)
        for no coefficients, as in NumPy. At x = inf it is the polynomial's limit (NumPy's
        first step 0 * inf gives NaN there).

    Raises
    ------
    TypeError
        If `p` is 0-d (it must be a sequence), or a coefficient or `x` is not a Variable, a
        numeric ndarray, a number or a list of numbers.
    ValueError
        If the coefficients and `x` do not broadcast together, or `p` is a ragged list of
        numbers (NumPy refuses it too; coefficients of different shapes come as arrays).
    """
    if isinstance(p, (list, tuple)):
        _rectangular(p)
        pieces = _as_sequence([x, *p], "polyval")
        x, coefficients = pieces[0], pieces[1:]
    else:
        x, p = _as_sequence([x, p], "polyval")
        if p.ndim == 0:
            raise TypeError(
                "polyval: p must be a sequence of coefficients (a list, or an array of 1 or more "
                "dimensions), got a 0-d input; write [p] for a constant polynomial"
            )
        coefficients = [get_item(p, i) for i in range(p.shape[0])]
    if not coefficients:
        return as_variable(get_array_module(x).zeros_like(x.data))
    try:
        np.broadcast_shapes(x.shape, *[c.shape for c in coefficients])
    except ValueError:
        raise ValueError(
            f"polyval: coefficients of shapes {[c.shape for c in coefficients]} do not broadcast "
            f"with x of shape {x.shape}"
        ) from None
    y = coefficients[0]
    for c in coefficients[1:]:
        y = y * x + c                                # Horner: y <- y x + p_i
    if len(coefficients) == 1:                       # (x's shape and dtype, as NumPy's zeros_like(x))
        y = y * get_array_module(x).ones_like(x.data)
    return y


__all__ = ["convolve", "correlate", "interp", "trapezoid", "polyval"]
