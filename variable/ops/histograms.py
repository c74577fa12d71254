"""Histograms: histogram, histogram_bin_edges, histogram2d and histogramdd.

Histograms.  Which bin a sample falls in is NumPy's rule: bin i holds edges[i] <= x <
edges[i + 1], the last bin closed at edges[-1], samples outside the edges (and NaN) in no
bin.  The counts are piecewise constant in the samples, so they send `a` no gradient; what
does carry gradients:

- the edges computed from the data (bins an int or an estimator's name, range None): NumPy's
  linspace(a.min(), a.max(), n + 1) built from V.min/V.max and V.linspace, so a's smallest and
  largest entries get the edges' gradient (ties split evenly, as V.min/V.max do; all-equal
  data widen to min - 0.5, max + 0.5 and keep that gradient); edges from `range` get none,
  unless its ends are Variables; explicit edges (bins an array or a Variable) are themselves;
- weighted counts: each bin sums the weights of its samples (a scatter-add, GetItemGrad), so
  a weight gets its bin's incoming gradient (0 outside every bin);
- density: counts / (total * bin widths), differentiable in the weights and the edges.

What comes back: the edges always as Variables; the histogram as a Variable where it is a
float array (float weights, density, and histogram2d/histogramdd, whose counts NumPy gives as
float64), and as a plain integer array (NumPy's or CuPy's, no gradient) where NumPy counts in
integers (no weights, or integer weights), as V.unique returns its counts.

Host reads on a GPU: the data's min and max with range None (one read per column: NumPy
refuses NaN there and widens an empty span), a given range's ends where they are Variables
or arrays (numbers need none), the check that explicit edges increase and hold no NaN (one
read), and for an estimator's name ('auto', 'fd', ...) the whole data, whose
bin count np.histogram_bin_edges computes on the host exactly as NumPy does (the edges are
then rebuilt with V.linspace).  The binning itself (searchsorted, bincount) stays on the device.
"""

import builtins
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..backend import constant_like, device_of, errstate, get_array_module, is_device_array, to_cpu
from ..forwarder import Function, Variable, as_variable
from ..types import ArrayLike
from .differences import diff
from .indexing import GetItemGrad, get_item
from .joining import stack
from .reduction import max as _max
from .reduction import min as _min
from .reduction import sum as _sum
from .sequences import linspace
from .shape import reshape

_range = builtins.range          # `range` is a keyword of the histograms, as in NumPy
_ESTIMATORS = ("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt")
_FLOAT64 = np.dtype(np.float64)


# ----- inputs ---------------------------------------------------------------------------------
def _is_array(value):
    return isinstance(value, (Variable, np.ndarray)) or is_device_array(value)


def _data_variable(a, op):
    """`a` as a Variable of NumPy's dtype for it (ints stay ints), refused if not real numbers."""
    if not _is_array(a) and isinstance(a, (list, tuple, bool, int, float, np.generic)):
        try:
            a = np.asarray(a)
        except ValueError:
            raise TypeError(f"{op}: cannot turn {a!r} into an array (a ragged list?)") from None
    return as_variable(a, op=op)


def _constant(value, like, op, name):
    """A constant `value` (an array, a list, a number) as a Variable on the device of `like`,
    in NumPy's dtype for it."""
    made = not _is_array(value)
    try:
        array = np.asarray(value) if made else getattr(value, "_data", value)
    except ValueError:
        raise TypeError(f"{op}: cannot turn {name} {value!r} into an array (a ragged list?)") from None
    if made and array.dtype.kind not in "biuf":
        raise TypeError(f"{op}: {name} must hold real numbers, got {value!r}")
    return as_variable(constant_like(array, like, op, name, "the data", made), op=op)


def _uint8_if_bool(x, op, warn):
    """Boolean data as uint8, as NumPy's histogram converts it (with its RuntimeWarning)."""
    if x.dtype != np.bool_:
        return x
    if warn:
        warnings.warn(f"{op}: converting input from bool to uint8 for compatibility (as NumPy does)",
                      RuntimeWarning, stacklevel=4)
    return Variable(x.data.astype(np.uint8), requires_grad=False)


def _flag(value, name, op):
    """NumPy's `density`: None or a bool."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{op}: {name} must be None or a bool, got {value!r}")


# ----- edges ----------------------------------------------------------------------------------
def _host_scalar(value, op, what):
    """A range end as NumPy reads it: a number (a 0-d array or Variable read on the host, one
    sync on a GPU)."""
    data = getattr(value, "_data", value)
    if _is_array(data):
        if data.ndim != 0:
            raise ValueError(f"{op}: each end of {what} must be a number, got an array of shape {data.shape}")
        data = np.asarray(to_cpu(data))[()]
    if isinstance(data, (bool, np.bool_)) or not isinstance(data, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}: the ends of {what} must be real numbers, got {value!r}")
    return data


def _outer_edges(x, range, op, what="range"):
    """NumPy's first and last edge for the flat data Variable `x`: (lo, hi) to build the
    edges from (V.min(x), V.max(x) Variables for float data, so they carry its gradient;
    numbers or the given Variables otherwise) and (lo, hi) on the host, as NumPy has them."""
    if range is not None:
        try:
            lo, hi = range
        except (TypeError, ValueError):
            raise ValueError(f"{op}: {what} must be None or a pair (lower, upper), got {range!r}") from None
        host = _host_scalar(lo, op, what), _host_scalar(hi, op, what)
        if host[0] > host[1]:
            raise ValueError(f"{op}: {what} ({host[0]}, {host[1]}) has its lower end above its upper end")
        if not (np.isfinite(host[0]) and np.isfinite(host[1])):
            raise ValueError(f"{op}: {what} of [{host[0]}, {host[1]}] is not finite")
    elif x.size == 0:
        lo, hi = host = (0, 1)                  # NumPy's range for no data
    else:
        xp = get_array_module(x)
        ends = to_cpu(xp.stack([x.data.min(), x.data.max()]))      # (one host read on a GPU)
        host = ends[0], ends[1]
        if not (np.isfinite(host[0]) and np.isfinite(host[1])):
            raise ValueError(
                f"{op}: the data hold NaN or infinity (their range is [{host[0]}, {host[1]}]), so no bins "
                f"can be made from it; pass {what}=(lower, upper) (NaN and infinities then fall "
                f"outside every bin), or drop them first (x[np.isfinite(x.data)])"
            )
        lo, hi = (_min(x), _max(x)) if x.dtype.kind == "f" else host
    if host[0] == host[1]:                      # NumPy widens an empty span by 0.5 each side
        lo, hi, host = lo - 0.5, hi + 0.5, (host[0] - 0.5, host[1] + 0.5)
    return lo, hi, host


def _dtype_of(value):
    """What np.result_type sees of an edge: a Variable's dtype, a number as it is (weak)."""
    return value.dtype if isinstance(value, Variable) else value


def _explicit_edges(bins, x, op, name="bins"):
    """Edges given as a 1-d array, list or Variable: increasing (checked: one host read on a
    GPU), NumPy's dtype kept."""
    edges = bins if isinstance(bins, Variable) else _constant(bins, x, op, name)
    if edges.ndim != 1:
        raise ValueError(f"{op}: {name} as an array of edges must be 1-d, got shape {edges.shape}")
    if edges.shape[0] == 0:
        raise ValueError(f"{op}: {name} as an array of edges needs at least one edge, got none")
    if edges.dtype.kind not in "biuf":
        raise TypeError(f"{op}: {name} must hold real numbers, got dtype {edges.dtype}")
    e = edges.data
    xp = get_array_module(e)
    if bool(xp.any(e[:-1] > e[1:]) | (xp.any(xp.isnan(e)) if e.dtype.kind == "f" else False)):
        raise ValueError(f"{op}: {name} must increase monotonically, when an array, and hold no NaN "
                         f"(got {to_cpu(e)})")
    return edges


def _ndim(bins, op, name):
    """The number of dimensions of `bins` (a number, a list of edges, an array)."""
    try:
        return np.ndim(bins)
    except ValueError:
        raise TypeError(f"{op}: cannot turn {name} {bins!r} into an array of edges (ragged?)") from None


def _count_of(bins, op, name="bins"):
    """An int number of bins, >= 1."""
    try:
        count = operator.index(bins)
    except TypeError:
        raise TypeError(
            f"{op}: {name} must be an int, a string (an estimator's name) or an array of edges, got {bins!r}"
        ) from None
    if count < 1:
        raise ValueError(f"{op}: {name} must be positive, when an integer, got {count}")
    return count


def _edges_1d(x, bins, range, weights, op):
    """The bin edges of histogram for the flat data Variable `x`, as NumPy makes them."""
    if isinstance(bins, str):
        if bins not in _ESTIMATORS:
            raise ValueError(f"{op}: {bins!r} is not a valid estimator for bins (use one of {_ESTIMATORS})")
        if weights is not None:
            raise TypeError(f"{op}: an estimator of the number of bins ({bins!r}) does not take weighted "
                            f"data; pass the number of bins or the edges")
        lo, hi, host = _outer_edges(x, range, op)
        given = None if range is None else tuple(_host_scalar(r, op, "range") for r in range)
        # NumPy's estimator on the data on the host (one copy from a GPU): the bin count only
        count = np.histogram_bin_edges(to_cpu(x.data), bins, given).shape[0] - 1
    elif _ndim(bins, op, "bins") == 0:
        count = _count_of(bins, op)
        lo, hi, host = _outer_edges(x, range, op)
    elif _ndim(bins, op, "bins") == 1:
        return _explicit_edges(bins, x, op)
    else:
        raise ValueError(f"{op}: bins as an array of edges must be 1-d, got shape {np.shape(bins)}")
    bin_type = np.result_type(_dtype_of(lo), _dtype_of(hi), x.dtype)
    if bin_type.kind != "f":
        bin_type = np.result_type(bin_type, float)
    reference = np.linspace(host[0], host[1], count + 1, dtype=bin_type)   # NumPy's, on the host
    if np.any(reference[:-1] >= reference[1:]):
        raise ValueError(f"{op}: too many bins for the data range [{host[0]}, {host[1]}]: cannot make "
                         f"{count} bins of nonzero width; use fewer bins or a wider range")
    return _spaced(lo, hi, count, bin_type, x)


def _spaced(lo, hi, count, dtype, x):
    """linspace(lo, hi, count + 1, dtype=dtype) on the device of the data `x` (numbers make
    their edges on the host: those constants move there)."""
    edges = linspace(lo, hi, count + 1, dtype=dtype)
    if isinstance(lo, Variable) or isinstance(hi, Variable):
        return edges
    return as_variable(constant_like(edges.data, x, "linspace", made=True))


# ----- binning --------------------------------------------------------------------------------
def _bin_of(x, edges):
    """The bin of each entry of the 1-d array `x` among `edges` (n + 1, increasing), NumPy's
    rule: i where edges[i] <= x < edges[i + 1], the last bin closed; n where there is none
    (outside the edges, NaN)."""
    xp = get_array_module(x)
    n = edges.shape[0] - 1
    dt = np.result_type(x.dtype, edges.dtype)              # compared in their common type, as NumPy
    x, edges = x.astype(dt, copy=False), edges.astype(dt, copy=False)
    i = _guessed_bins(x, edges) if xp is np and n > 0 and dt.kind == "f" else None
    if i is None:
        i = xp.searchsorted(edges, x, side="right") - 1
    if n > 0:
        i = xp.where(x == edges[-1], n - 1, i)             # the last edge closes the last bin
    return xp.where((i < 0) | (i >= n), n, i)


def _guessed_bins(x, edges):
    """searchsorted(edges, x, 'right') - 1 on the CPU, from the bin each entry would have if
    the edges were evenly spaced (as they are when `bins` is a count), each guess checked
    against the edges and searched for only where it is wrong: a few times faster than
    searching every entry, and the same answer for any increasing edges.  None where the
    edges span nothing."""
    n = edges.shape[0] - 1
    span = edges[-1] - edges[0]
    if not np.isfinite(span) or span <= 0:
        return None
    with np.errstate(invalid="ignore", over="ignore"):
        guess = ((x - edges[0]) * (n / span)).astype(np.intp)   # (NaN, inf: any integer, then clipped)
    np.clip(guess, 0, n - 1, out=guess)
    wrong = ~((edges[guess] <= x) & (x < edges[guess + 1]))
    if wrong.any():                                  # edges not even, out of range, NaN, the last edge
        guess[wrong] = np.searchsorted(edges, x[wrong], side="right") - 1
    return guess


def _binned(index, count, weights):
    """Sums of `weights` (a flat float64 Variable) into `count` bins by `index` (`count` for
    no bin): a scatter-add, whose gradient gives each weight its bin's (0 for no bin).  inf and
    -inf in one bin give NaN without a warning, as NumPy's bincount."""
    with errstate(weights.data, invalid="ignore", over="ignore"):
        sums = Function(GetItemGrad(index, (count + 1,)))(weights)
    return get_item(sums, slice(0, count))


def _flat_weights(weights, a, shape, op):
    """`weights` as a flat Variable, checked to have `shape` (that of `a`)."""
    w = weights if isinstance(weights, Variable) else _constant(weights, a, op, "weights")
    if w.shape != shape:
        raise ValueError(f"{op}: weights of shape {w.shape} must have the shape of the data, {shape}")
    if w.dtype.kind not in "biuf":
        raise TypeError(f"{op}: weights must hold real numbers, got dtype {w.dtype}")
    return reshape(w, (w.size,))


def _as_float64(x):
    return x if x.dtype == _FLOAT64 else x.astype(_FLOAT64)


def _hist_1d(x, edges, w, density):
    """histogram's counts of the flat data `x` in `edges`, weighted by `w` (flat, or None)."""
    xp = get_array_module(x)
    n = edges.shape[0] - 1
    index = _bin_of(x.data, edges.data)
    if w is not None and w.dtype.kind == "f":
        # NumPy's bincount adds in float64, then casts to the weights' dtype
        counts = _binned(index, n, _as_float64(w))
        counts = counts if w.dtype == _FLOAT64 else counts.astype(w.dtype)
        if not density:
            return counts
    else:
        counts = xp.bincount(index, None if w is None else w.data, minlength=n + 1)[:n]
        counts = counts.astype(np.intp if w is None else w.dtype, copy=False)
        if not density:
            return counts                                    # integers: a plain array, no gradient
        counts = Variable(counts, requires_grad=False)
    widths = _as_float64(diff(edges))
    return _as_float64(counts) / widths / _as_float64(_sum(counts))   # NumPy's n / db / n.sum()


def _with_the_others(x, a, others, op):
    """The data Variable `x` made from `a` on the GPU where another argument (weights, edges,
    range ends) is there and `a` is not a Variable (numbers and lists go there as made by
    the op; a NumPy array by backend.constant_like's rule)."""
    if isinstance(a, Variable) or device_of(x) == "gpu":
        return x
    like = next((v for v in others if device_of(v) == "gpu"), None)
    if like is None:
        return x
    return as_variable(constant_like(x.data, like, op, "a", "the other arguments", not _is_array(a)))


def _device_arguments(*arguments):
    """The arrays among histogram's other arguments (weights, bins, range's ends)."""
    found = []
    for value in arguments:
        if isinstance(value, (list, tuple)):
            found += _device_arguments(*value)
        elif _is_array(value):
            found.append(value)
    return found


def _checked_1d(a, weights, op, bins=None, range=None):
    """histogram's data, flattened (booleans as uint8, as NumPy), and its weights, flattened."""
    x = _with_the_others(_data_variable(a, op), a, _device_arguments(weights, bins, range), op)
    if x.dtype.kind not in "biuf":
        raise TypeError(f"{op}: a must hold real numbers, got dtype {x.dtype}")
    w = None if weights is None else _flat_weights(weights, x, x.shape, op)
    x = _uint8_if_bool(reshape(x, (x.size,)), op, warn=True)
    return x, w


# ----- the histograms -------------------------------------------------------------------------
def histogram_bin_edges(a: ArrayLike, bins: int | str | ArrayLike = 10,
                        range: tuple[ArrayLike, ArrayLike] | None = None,
                        weights: ArrayLike | None = None) -> Variable:
    """The bin edges histogram(a, bins, range, weights) uses, as np.histogram_bin_edges.

    Edges computed from the data (`bins` an int or an estimator's name, `range` None) are
    NumPy's linspace(a.min(), a.max(), n + 1): a's smallest and largest entries get their
    gradient (see the module's docstring); NaN or infinite data are refused there, as NumPy
    does.

    Parameters
    ----------
    a : ArrayLike
        The data, flattened; booleans are read as uint8 (with NumPy's RuntimeWarning).
    bins : int, str or ArrayLike
        The number of equal bins, an estimator's name ('auto', 'fd', 'doane', 'scott',
        'stone', 'rice', 'sturges', 'sqrt': the number of bins is NumPy's, computed on
        the host), or the edges themselves (1-d, increasing; a Variable keeps its graph).
    range : (lower, upper), optional
        The span of the bins (numbers or 0-d Variables); default a's min and max.  An
        empty span is widened by 0.5 on each side, as NumPy does.
    weights : ArrayLike, optional
        Only checked (the shape of `a`; refused with an estimator), as in NumPy.

    Returns
    -------
    Variable
        The edges, 1-d, of NumPy's dtype (float64 for integer data).

    Raises
    ------
    TypeError
        If `bins` is not an int, a string or an array, `weights` go with an estimator, or
        an argument does not hold real numbers.
    ValueError
        If the data hold NaN or infinity with range None, `range` is reversed or not finite,
        `bins` is not positive, an unknown estimator, not increasing or not 1-d, there are
        too many bins for the span, or `weights` does not have the shape of `a`.
    """
    x, w = _checked_1d(a, weights, "histogram_bin_edges", bins, range)
    return _edges_1d(x, bins, range, w, "histogram_bin_edges")


def histogram(a: ArrayLike, bins: int | str | ArrayLike = 10,
              range: tuple[ArrayLike, ArrayLike] | None = None, density: bool | None = None,
              weights: ArrayLike | None = None) -> tuple[Any, Variable]:
    """The histogram of `a`, as np.histogram: (hist, bin_edges).

    A sample falls in bin i when edges[i] <= x < edges[i + 1] (the last bin closed); samples
    outside the edges count nowhere.  Gradients: the counts send `a` none (they are piecewise
    constant); the edges computed from the data carry the gradient of a's min and max;
    weighted counts give each weight its bin's gradient; density divides by the total and
    the bin widths, differentiably.

    Parameters
    ----------
    a : ArrayLike
        The data, flattened; booleans are read as uint8 (with NumPy's RuntimeWarning).
    bins : int, str or ArrayLike
        The number of equal bins, an estimator's name ('auto', 'fd', 'doane', 'scott',
        'stone', 'rice', 'sturges', 'sqrt'; the number is NumPy's, computed from the data on
        the host), or the edges (1-d, increasing; a Variable gets gradients through density).
    range : (lower, upper), optional
        The span of equal bins (numbers or 0-d Variables), default a's min and max (NaN or
        infinite data are then refused, as in NumPy); samples outside it count nowhere.
    density : bool, optional
        Divide each count by the total and its bin's width: a probability density.
    weights : ArrayLike, optional
        One weight per entry of `a` (its shape); a bin sums the weights of its samples.

    Returns
    -------
    hist : Variable or ndarray
        The counts: a plain integer array (NumPy's or CuPy's; integer weights keep their
        dtype) without weights or with integer ones, as NumPy's; with float weights a
        Variable of their dtype; with density a float64 Variable.
    bin_edges : Variable
        The edges, of length len(hist) + 1, of NumPy's dtype.

    Raises
    ------
    TypeError
        If `bins` is not an int, a string or an array, an estimator goes with weights,
        `density` is not a bool, or an argument does not hold real numbers.
    ValueError
        If the data hold NaN or infinity with range None, `range` is reversed or not finite,
        `bins` is not positive, an unknown estimator, not increasing or not 1-d, there are
        too many bins for the span, or `weights` does not have the shape of `a`.
    """
    density = _flag(density, "density", "histogram")
    x, w = _checked_1d(a, weights, "histogram", bins, range)
    edges = _edges_1d(x, bins, range, w, "histogram")
    return _hist_1d(x, edges, w, density), edges


def _columns(sample, op):
    """histogramdd's sample as D flat Variables of N entries: an (N, D) array's columns (a
    1-d array is one column, as NumPy reads it), or a sequence of D arrays of N entries."""
    if _is_array(sample):
        s = _data_variable(sample, op)
        if s.ndim > 2:
            raise ValueError(f"{op}: sample of shape {s.shape} must be an (N, D) array or a sequence of D "
                             f"arrays of N entries")
        if s.ndim < 2:
            return [reshape(s, (s.size,))]
        return [get_item(s, (slice(None), d)) for d in _range(s.shape[1])]
    if not isinstance(sample, (list, tuple)) or not len(sample):
        raise TypeError(f"{op}: sample must be an (N, D) array or a sequence of D arrays, got {sample!r}")
    if not any(isinstance(s, Variable) for s in sample):
        s = _data_variable(sample, op)                   # D rows of N, or N numbers
        return _columns(s.T if s.ndim == 2 else s, op)
    items = [_data_variable(s, op) for s in sample]
    if all(s.ndim == 0 for s in items):                  # numbers: one column
        return [stack(items)]
    if any(s.ndim != 1 for s in items) or len({s.shape for s in items}) != 1:
        raise ValueError(f"{op}: the arrays of sample must all be 1-d of one length, got shapes "
                         f"{[s.shape for s in items]}")
    return items


def _edges_dd(columns, bins, range, op):
    """histogramdd's edges, one Variable per column, as NumPy makes them."""
    D = len(columns)
    if isinstance(bins, str):
        raise TypeError(f"{op}: bins {bins!r}: estimators are for histogram only; pass ints or edges")
    try:
        if len(bins) != D:
            raise ValueError(f"{op}: bins has {len(bins)} entries; the sample has {D} dimensions, "
                             f"one entry each")
        bins = list(bins)
    except TypeError:
        bins = [bins] * D
    if range is None:
        range = [None] * D
    elif len(range) != D:
        raise ValueError(f"{op}: range has {len(range)} entries; the sample has {D} dimensions, one "
                         f"(lower, upper) or None each")
    edges = []
    for d, (column, b, r) in enumerate(zip(columns, bins, range)):
        if isinstance(b, str):
            raise TypeError(f"{op}: bins[{d}] {b!r}: estimators are for histogram only; pass ints or edges")
        if _ndim(b, op, f"bins[{d}]") == 0:
            count = _count_of(b, op, f"bins[{d}]")
            lo, hi, _ = _outer_edges(column, r, op, f"range[{d}]")
            edges.append(_spaced(lo, hi, count, None, column))
        elif _ndim(b, op, f"bins[{d}]") == 1:
            edges.append(_explicit_edges(b, column, op, f"bins[{d}]"))
        else:
            raise ValueError(f"{op}: bins[{d}] must be an int or a 1-d array of edges, got shape "
                             f"{np.shape(b)}")
    return edges


def _hist_dd(columns, edges, weights, density, op):
    """histogramdd's float64 counts of `columns` in `edges`."""
    xp = get_array_module(columns[0])
    shape = tuple(e.shape[0] - 1 for e in edges)
    total = int(np.prod(shape))
    flat, outside = xp.zeros(columns[0].shape, dtype=np.intp), xp.zeros(columns[0].shape, dtype=bool)
    for column, e, n in zip(columns, edges, shape):      # C order over the bins' shape
        index = _bin_of(column.data, e.data)
        flat, outside = flat * n + index, outside | (index == n)
    flat = xp.where(outside, total, flat)
    if weights is None:
        counts = xp.bincount(flat, minlength=total + 1)[:total].astype(np.float64)
        hist = Variable(counts.reshape(shape), requires_grad=False)
    else:
        hist = reshape(_binned(flat, total, _as_float64(weights)), shape)
    if density:                                           # NumPy's: divided by each axis's widths, then s
        s = _sum(hist)
        for d, e in enumerate(edges):
            along = tuple(n if i == d else 1 for i, n in enumerate(shape))
            hist = hist / reshape(_as_float64(diff(e)), along)
        hist = hist / s
    return hist


def _histogram_dd(columns, bins, range, density, weights, op):
    density = _flag(density, "density", op)
    columns = [_uint8_if_bool(c, op, warn=False) for c in columns]
    for c in columns:
        if c.dtype.kind not in "biuf":
            raise TypeError(f"{op}: the sample must hold real numbers, got dtype {c.dtype}")
    w = None if weights is None else _flat_weights(weights, columns[0], columns[0].shape, op)
    edges = _edges_dd(columns, bins, range, op)
    return _hist_dd(columns, edges, w, density, op), edges


def histogramdd(sample: ArrayLike | Sequence[ArrayLike], bins: int | Sequence[Any] = 10,
                range: Sequence[Any] | None = None, density: bool | None = None,
                weights: ArrayLike | None = None) -> tuple[Variable, list[Variable]]:
    """The multidimensional histogram of `sample`, as np.histogramdd: (hist, edges).

    Each dimension's bins follow histogram's rule (edges[i] <= x < edges[i + 1], the last
    closed); a sample outside the edges of one dimension counts nowhere.  The counts are
    float64, as NumPy's (a Variable); gradients as histogram's: edges from the data carry the
    gradient of each column's min and max, weights get their bin's, density is
    differentiable in both.

    Parameters
    ----------
    sample : ArrayLike or sequence of ArrayLike
        An (N, D) array (a 1-d one is one dimension), or a sequence of D arrays of N entries
        (Variables among them keep their graphs).
    bins : int, or sequence of ints and 1-d edge arrays
        One entry per dimension (an int applies to all): a number of equal bins or the
        edges (increasing).  Estimators' names are histogram's only.
    range : sequence of (lower, upper) or None, optional
        One entry per dimension, for the int bins; default each column's min and max.
    density : bool, optional
        Divide by the total and each bin's volume.
    weights : ArrayLike, optional
        One weight per sample, shape (N,).

    Returns
    -------
    hist : Variable
        float64, of shape (number of bins of each dimension).
    edges : list of Variable
        The edges of each dimension.

    Raises
    ------
    TypeError
        If a bins entry is a string or not an int/array, `density` is not a bool, or an
        argument does not hold real numbers.
    ValueError
        If the sample has more than 2 dimensions (or ragged arrays), bins or range do not
        have one entry per dimension, a bins entry is not positive or not increasing, the data
        hold NaN or infinity where an edge is computed from them, a range is reversed or not
        finite, or the weights are not of shape (N,).
    """
    return _histogram_dd(_columns(sample, "histogramdd"), bins, range, density, weights, "histogramdd")


def histogram2d(x: ArrayLike, y: ArrayLike, bins: Any = 10, range: Sequence[Any] | None = None,
                density: bool | None = None,
                weights: ArrayLike | None = None) -> tuple[Variable, Variable, Variable]:
    """The two-dimensional histogram of the points (x, y), as np.histogram2d: (H, xedges, yedges).

    histogramdd of the columns x and y (see it for the rule and the gradients); H[i, j]
    counts the points with x in bin i and y in bin j.

    Parameters
    ----------
    x, y : ArrayLike
        1-d, of one length N.
    bins : int, 1-d array, or [int or array, int or array]
        The number of bins or the edges, for both dimensions or for each.
    range : [[xmin, xmax], [ymin, ymax]], optional
        The spans of the int bins (default the min and max of x and y).
    density : bool, optional
        Divide by the total and each bin's area.
    weights : ArrayLike, optional
        One weight per point, shape (N,).

    Returns
    -------
    H : Variable
        float64, of shape (nx, ny).
    xedges, yedges : Variable
        The edges along x and along y.

    Raises
    ------
    TypeError
        As histogramdd's, or if `x` or `y` is not array-like.
    ValueError
        If `x` and `y` are not 1-d of one length, and as histogramdd's.
    """
    op = "histogram2d"
    x, y = _data_variable(x, op), _data_variable(y, op)
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"{op}: x and y must be 1-d of the same length, got shapes {x.shape} and {y.shape}")
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):                                # one array of edges for both
        bins = [bins, bins]
    hist, (xedges, yedges) = _histogram_dd([x, y], bins, range, density, weights, op)
    return hist, xedges, yedges


__all__ = ["histogram", "histogram_bin_edges", "histogram2d", "histogramdd"]
