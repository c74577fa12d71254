"""Truncated Taylor series as lists of arrays, and the recurrences that push them through ops.

A series is a list `[x_0, x_1, ..., x_K]` of arrays of one shape: the path
x(t) = x_0 + x_1 t + x_2 t^2 + ... + x_K t^K, so x_k is the k-th derivative along t divided
by k! (x_0 is the value).  A list shorter than the others stands for a series whose missing
coefficients are zero: the engine passes an input that does not depend on t to built-in
rules as `[x_0]` alone, and these helpers accept that.

The helpers use the standard recurrences: the Cauchy product for products, and for an
elementary function y = g(x) the ODE it satisfies, y' = h(y) x', solved coefficient by
coefficient:

    k y_k = sum_{j=1..k} j x_j h_{k-j}        (h_m needs y_0 .. y_m only)

Each sum over j is one array operation on coefficients stacked along a leading axis
(`_dot`), not one per term: order K costs O(K) array operations (O(K^2) arithmetic), which
is what matters on a GPU, where each operation is a kernel launch.

A coefficient registered with `known_zero` (the zeros after x_1 on the path x + t v that
`V.taylor` starts from) is skipped by the recurrences: along a straight path y_k costs one
product, not a sum over k terms, without reading any data (so no device sync).

A pass that wants only some of its outputs' coefficients (`V.laplacian` wants the summed
second order, `V.nth_derivative` the nth) tells each rule which of its output's coefficients
are used (`wanted`).  A rule may give None for one that is not: the output layer's
first-order coefficients of a network are then never made (`tanh(..., output=True)` and
the other elementary functions' `output`: the series is the rule's output, not a step
inside a composite rule, whose coefficients the rule itself reads).  A linear op's rule gets None
for an input coefficient that no one uses, and gives None for that output coefficient (the
helpers here pass None through: `add`, `neg`, `scale`, `map_linear`, and `mul` with one
constant side).  Rules written outside gengrad always get every coefficient.

Custom Forwarders may use them in their own `taylor` rule (see docs/custom_functions.md).
"""

import contextvars
import math
import weakref

import numpy as np

from . import backend, memory
from .backend import get_array_module, is_device_array
from .directions import Directions, scaled
from .variable import Variable

_WANTED = contextvars.ContextVar("gengrad_wanted_coefficients", default=None)


def wanted(k: int) -> bool:
    """Whether coefficient k of the output of the rule now running is used by the pass (a
    bit mask of the orders, set by the engine where some are not; outside a pass, True)."""
    mask = _WANTED.get()
    return mask is None or bool(mask >> k & 1)


def _every(k):
    return True


def _broadcast(c, shape):
    return c if c is None or c.shape == shape else np.broadcast_to(c, shape)


def _shape(*series):
    return np.broadcast_shapes(*[s[0].shape for s in series])


def add(a: list, b: list) -> list:
    """Series of a + b (broadcasting like NumPy)."""
    shape = _shape(a, b)
    n = max(len(a), len(b))
    return [
        (None if a[k] is None or b[k] is None else a[k] + b[k]) if k < len(a) and k < len(b)
        else _broadcast(a[k] if k < len(a) else b[k], shape)
        for k in range(n)
    ]


def neg(a: list) -> list:
    """Series of -a."""
    return [None if c is None else -c for c in a]


def sub(a: list, b: list) -> list:
    """Series of a - b (broadcasting like NumPy)."""
    return add(a, neg(b))


def scale(a: list, c) -> list:
    """Series of a * c for a constant (number or array) c."""
    return [None if ak is None else ak * c for ak in a]


_KNOWN_ZEROS = weakref.WeakValueDictionary()      # id -> a coefficient of zeros no one writes


def known_zero(z):
    """Register `z`, an array of zeros that nothing writes to (NumPy's read-only), as a
    coefficient the recurrences may skip; returns z."""
    try:
        _KNOWN_ZEROS[id(z)] = z
    except TypeError:                                # (an array type without weak references)
        pass
    return z


def _is_zero(c) -> bool:
    return _KNOWN_ZEROS.get(id(c)) is c


def _last_varying(x) -> int:
    """The index m >= 1 past which every coefficient of x is a known zero (1 for x + t v)."""
    m = len(x) - 1
    while m > 1 and _is_zero(x[m]):
        m -= 1
    return m


def _recording(*series) -> bool:
    """Whether a coefficient is a Variable (the pass records a graph: V.taylor of a function
    of parameters) or holds several directions (variable/directions.py): the helpers then
    build lists of ops, never stacking coefficients or writing in place."""
    return any(isinstance(c, (Variable, Directions)) for a in series for c in a)


def _total(terms):
    """The sum of recorded terms, with no 0 to start from (each + is a recorded op)."""
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def _rate_sum(x, h, k):
    """sum_{j=1..k} j x_j h_{k-j} / k on recorded coefficients, with no multiplication by 1
    and the 1/k folded into the weights: k recorded products and k - 1 sums."""
    m = min(k, _last_varying(x))
    return _total([x[j] * h[k - j] if j == k else (x[j] * (j / k)) * h[k - j] for j in range(1, m + 1)])


def _dot(a, b):
    """sum_j a[j] * b[j] over the leading axis of two stacks of coefficients: one operation
    (NumPy's einsum, its fastest here; on a device a product and a sum, two plain kernels
    where einsum may turn this into a batched matrix product of 1x1 matrices)."""
    if type(a) is np.ndarray:
        return np.einsum("j...,j...->...", a, b)
    if a.ndim != b.ndim:                             # broadcast the coefficients, not the j axis
        a, b = [c.reshape(c.shape[:1] + (1,) * (max(a.ndim, b.ndim) - c.ndim) + c.shape[1:]) for c in (a, b)]
    return (a * b).sum(axis=0)


def _stack(a):
    """The coefficients of `a` as one array, along a new leading axis (a coefficient of a
    smaller shape, as a custom rule may give, broadcast to the others')."""
    shape = np.broadcast_shapes(*[c.shape for c in a])
    return np.stack([c if c.shape == shape else np.broadcast_to(c, shape) for c in a])


def cauchy(a: list, b: list, k: int, product=np.multiply):
    """Coefficient k of a * b: sum_{j=0..k} a_j b_{k-j}, over the terms both series hold.

    `product` may be any bilinear map of two arrays, e.g. np.matmul.
    """
    lo, hi = max(0, k - len(b) + 1), min(k, len(a) - 1)
    if lo == hi and (a[lo] is None or b[k - lo] is None):   # (one varying side, unused here)
        return None
    total = product(a[lo], b[k - lo])
    for j in range(lo + 1, hi + 1):
        total = total + product(a[j], b[k - j])
    return total


def mul(a: list, b: list, product=np.multiply, y0: np.ndarray | None = None) -> list:
    """Series of a * b (or of any bilinear `product`, e.g. np.matmul): Cauchy products.

    `y0`, when given, is the product's value already computed (an op's forward output), so
    coefficient 0 costs nothing: for a matrix product that is one matmul saved.
    """
    n = max(len(a), len(b))
    first = cauchy(a, b, 0, product) if y0 is None else y0
    if product is np.multiply and len(a) == len(b) > 2 and a[0].shape == b[0].shape and not _recording(a, b):
        sa, sb = _stack(a), _stack(b)                # one operation per coefficient
        return [first] + [_dot(sa[:k + 1], sb[k::-1]) for k in range(1, n)]
    return [first] + [cauchy(a, b, k, product) for k in range(1, n)]


def square(a: list) -> list:
    """Series of a * a; each coefficient sums half the terms of a Cauchy product twice."""
    if len(a) > 2 and not _recording(a):
        stack = _stack(a)                            # a few operations per coefficient
        return [a[0] * a[0]] + [_square_coefficient(stack, k) for k in range(1, len(a))]
    return [_square_coefficient(a, k) for k in range(len(a))]


def _square_coefficient(a, k):
    """Coefficient k of a * a: 2 sum_{j < k/2} a_j a_{k-j} (+ a_{k/2}^2 for even k); for a
    stacked `a` (an array, as `ode` hands its `h`), one operation."""
    if not isinstance(a, list) and k > 0:
        half = (k + 1) // 2                          # a_j a_{k-j} for j < k/2, twice
        total = _dot(a[:half], a[k:k - half:-1])
        total *= 2                                   # (a new array: in place)
        if k % 2 == 0:
            total += a[k // 2] * a[k // 2]
        return total
    total = None
    for j in range((k + 1) // 2):
        term = a[j] * a[k - j]
        total = term if total is None else total + term
    total = None if total is None else 2 * total
    if k % 2 == 0:
        middle = a[k // 2] * a[k // 2]
        total = middle if total is None else total + middle
    return total


def div(a: list, b: list) -> list:
    """Series of a / b: y_k = (a_k - sum_{j=1..k} b_j y_{k-j}) / b_0."""
    n = max(len(a), len(b))
    if len(b) == 1:
        return [ak / b[0] for ak in a]
    y0 = a[0] / b[0]
    if _recording(a, b):
        y = [y0]
        for k in range(1, n):
            total = cauchy(b[1:], y, k - 1)          # sum_{j=1..k} b_j y_{k-j}
            y.append(((a[k] - total) if k < len(a) else -total) / b[0])
        return y
    ys = _empty(n, y0)
    ys[0] = y0
    bs = _stack(b)
    for k in range(1, n):
        m = min(k, len(b) - 1)                       # sum_{j=1..m} b_j y_{k-j}
        total = _dot(bs[1:m + 1], ys[k - 1::-1][:m])
        ys[k] = ((a[k] - total) if k < len(a) else -total) / b[0]
    return [y0] + list(ys[1:])


def reciprocal(b: list) -> list:
    """Series of 1 / b."""
    return div([np.ones_like(b[0])], b)


def _empty(n, like, *others):
    """An uninitialised stack of n coefficients of the shape and dtype `like` and `others`
    broadcast to."""
    shape = np.broadcast_shapes(like.shape, *[o.shape for o in others])
    dtype = np.result_type(like.dtype, *[o.dtype for o in others])   # (dtypes: no device array read)
    xp = get_array_module(like)
    return memory.empty((n,) + shape, dtype) if xp is np else xp.empty((n,) + shape, dtype=dtype)


def _stacked(x):
    """The coefficients 1..K of a (full) series, stacked, each times its index: (j x_j)_j."""
    if len(x) == 2:                                  # (x_1 alone: a view, no copy)
        return x[1][np.newaxis]
    stack = np.stack(x[1:])
    weights = get_array_module(stack).arange(1, len(x), dtype=stack.dtype)
    return stack * weights.reshape((-1,) + (1,) * x[0].ndim)


_BLOCK = 16384
"""Points per block of a long recurrence on NumPy arrays, at the least: its stacked
coefficients then stay in cache while its O(K^2) sums run (tanh's 30th derivative on 10^6
points: 1.7x faster)."""

_SCRATCH_ROWS = 64
"""Rows of _BLOCK points a block's scratch stack may take: a recurrence of fewer terms takes
longer blocks (a power of two times _BLOCK), fewer Python steps for the same cache (tanh on
10^6 points, orders 10 / 20 / 30: 50 / 117 / 204 -> 48 / 112 / 200 ms)."""


def _block(n):
    """Points per block of a recurrence of n terms."""
    return _BLOCK << max(0, (_SCRATCH_ROWS // n).bit_length() - 1)


def _in_blocks(n, pointwise, y0, x0, jx) -> bool:
    """Whether a recurrence runs over blocks of points: a pointwise one of 4 or more terms on
    big NumPy arrays of one shape, laid out in order."""
    return (pointwise and n >= 4 and y0.size >= 4 * _BLOCK and y0.shape == x0.shape == jx.shape[1:]
            and all(type(a) is np.ndarray and a.flags.c_contiguous for a in (y0, x0, jx)))


_OWNED = weakref.WeakValueDictionary()             # id -> a coefficient no one else holds


def owned_alone(c) -> bool:
    """Whether c is an array a recurrence made for one coefficient (nothing else views it when
    it is handed out), so the caller it reaches last may write into it (V.taylor's k!)."""
    return _OWNED.get(id(c)) is c


def _ode_in_blocks(h, y0, jx, n, m, dtype, keep):
    """ode's recurrence over cache-sized blocks of points: a block's coefficients live in a
    scratch stack while its O(K^2) sums run, then each y_k is copied out to an array of its
    own (so a caller can scale it in place, and keeping one keeps no other); one not to
    `keep` is not copied (None)."""
    rows = [memory.empty(y0.shape, dtype) if keep(k) else None for k in range(1, n)]
    flat = [None if r is None else r.reshape(-1) for r in rows]
    y0f, jxf = y0.reshape(-1), jx.reshape(len(jx), -1)
    block = _block(n)
    scratch = memory.empty((n, block), dtype)
    hs = memory.empty((n - 1, block), dtype) if m > 1 else None
    for lo in range(0, y0.size, block):
        size = min(block, y0.size - lo)
        yb, jb = scratch[:, :size], jxf[:, lo:lo + size]
        yb[0] = y0f[lo:lo + size]
        hb = hs[:, :size] if m > 1 else None
        for k in range(1, n):
            _next_coefficient(h, yb, jb, hb, k, m)
            if flat[k - 1] is not None:
                flat[k - 1][lo:lo + size] = yb[k]
    for r in rows:
        if r is not None:
            _OWNED[id(r)] = r
    return [y0] + rows


def ode(x: list, y0: np.ndarray, h, pointwise: bool = False, output: bool = False) -> list:
    """Series of y = g(x) where y' = h x' and `h(y, m)` gives h_m from y_0 .. y_m.

    k y_k = sum_{j=1..k} j x_j h_{k-j}: one operation per k, besides `h`'s own.  `h` gets the
    coefficients y_0 .. y_m stacked in one array (row i is y_i; a list of arrays indexes
    the same way), so it can form sums over them in one operation too (`_square_coefficient`).
    `pointwise`: h reads nothing but the y it is given (no arrays of its own), so on large
    NumPy arrays the recurrence runs over cache-sized blocks of points.  `output`: y is the
    output of the rule now running (not a step inside it), so a coefficient the pass does
    not use (`wanted`) may be left out, None.
    """
    keep = wanted if output else _every
    n = len(x)
    y = [y0]
    if n == 1:
        return y
    if n == 2:                                       # forward mode: y_1 = h_0 x_1
        return [y0, h(y, 0) * x[1]]
    if n == 3 and isinstance(x[1], Directions) and x[1].weights is not None:
        # collapsed (sum_d w_d over the directions at order 2): h_1 = h'(y_0) y_1 and
        # y_1 = h_0 x_1, so y_2 = h_0 x_2 + h'(y_0) h_0 sum_d w_d x_1^2 / 2, with h'(y_0)
        # from h itself at y_1 = 1 (unless h reads x too, as `integral`'s does): two
        # operations on the directions' arrays, not six
        slope = h([y0, np.ones_like(y0)], 1)
        if not isinstance(slope, Directions):
            h0 = h(y, 0)
            return [y0, scaled(x[1], h0) if keep(1) else None,
                    x[2] * h0 + (0.5 * slope * h0) * (x[1] * x[1])]
    if _recording(x, [y0]):                          # lists of recorded ops
        y, hs = [y0], []
        for k in range(1, n):
            hs.append(h(y, k - 1))
            y.append(_rate_sum(x, hs, k))
        return y
    m = _last_varying(x)                             # x_j = 0 for j > m (x + t v: m = 1)
    jx = _stacked(x[:m + 1])                         # row j-1 holds j x_j
    if _in_blocks(n, pointwise, y0, x[0], jx):
        return _ode_in_blocks(h, y0, jx, n, m, np.result_type(y0.dtype, x[0].dtype, jx.dtype), keep)
    ys = _empty(n, y0, x[0], jx[0])
    ys[0] = y0
    hs = _empty(n - 1, ys[0]) if m > 1 else None     # h_0 .. h_{k-1}, where x_2.. vary
    for k in range(1, n):
        _next_coefficient(h, ys, jx, hs, k, m)
    return [y0] + list(ys[1:])


def _next_coefficient(h, ys, jx, hs, k, m):
    """Row k of the stack ys from rows 0..k-1: k y_k = sum_{j=1..min(k,m)} j x_j h_{k-j}, with
    jx's row j-1 holding j x_j (x_j = 0 past m) and hs keeping h_0 .. h_{k-1} where m > 1."""
    into = getattr(h, "into", None)
    if m == 1 and into is not None and type(ys) is np.ndarray:
        out = ys[k, ...]                             # y_k = x_1 h_{k-1} / k: h's coefficient
        into(ys[:k], k - 1, out, 1.0 / k)            # written scaled, straight into row k
        np.multiply(out, jx[0], out=out, casting="unsafe")
        return
    hk = h(ys[:k], k - 1)
    if m > 1:
        hs[k - 1] = hk
    j = min(k, m)
    if type(ys) is not np.ndarray:
        ys[k] = (jx[0] * hk if m == 1 else _dot(jx[:j], hs[k - 1::-1][:j])) / k
        return
    out = ys[k, ...]                                 # (a view, even of one number; cast as
    if m == 1:                                       # an assignment casts) y_k = x_1 h_{k-1} / k
        np.multiply(jx[0], hk, out=out, casting="unsafe")
    else:
        np.einsum("j...,j...->...", jx[:j], hs[k - 1::-1][:j], out=out, casting="unsafe")
    out /= k


def exp(x: list, y0: np.ndarray | None = None, output: bool = False) -> list:
    """Series of e^x: y' = y x'.  (`output`: see `ode`.)"""
    return ode(x, np.exp(x[0]) if y0 is None else y0, lambda y, m: y[m], pointwise=True, output=output)


def log(x: list, y0: np.ndarray | None = None) -> list:
    """Series of log x: x y' = x', so k y_k x_0 = k x_k - sum_{j=1..k-1} j y_j x_{k-j}."""
    y0 = np.log(x[0]) if y0 is None else y0
    if len(x) == 1:
        return [y0]
    if _recording(x, [y0]):
        y = [y0]
        for k in range(1, len(x)):
            total = x[k] - sum(j * y[j] * x[k - j] for j in range(1, k)) / k if k > 1 else x[k]
            y.append(total / x[0])
        return y
    xs, jy = _stack(x), _empty(len(x), y0, x[0])    # jy row j: j y_j
    for k in range(1, len(x)):
        total = x[k]
        if k > 1:                                    # sum_{j=1..k-1} j y_j x_{k-j}
            total = total - _dot(jy[1:k], xs[k - 1:0:-1]) / k
        jy[k] = k * (total / x[0])
    return [y0] + [jy[k] / k for k in range(1, len(x))]


def sqrt(x: list, y0: np.ndarray | None = None) -> list:
    """Series of sqrt x: y^2 = x, so 2 y_0 y_k = x_k - sum_{j=1..k-1} y_j y_{k-j}."""
    y0 = np.sqrt(x[0]) if y0 is None else y0
    twice = 2 * y0
    if _recording(x, [y0]):
        y = [y0]
        for k in range(1, len(x)):
            total = x[k] - sum(y[j] * y[k - j] for j in range(1, k)) if k > 1 else x[k]
            y.append(total / twice)
        return y
    ys = _empty(len(x), y0, x[0])
    ys[0] = y0
    for k in range(1, len(x)):
        total = x[k]
        if k > 1:                                    # sum_{j=1..k-1} y_j y_{k-j}
            total = total - _dot(ys[1:k], ys[k - 1:0:-1])
        ys[k] = total / twice
    return [y0] + list(ys[1:])


def power(x: list, c, y0: np.ndarray | None = None) -> list:
    """Series of x^c for a constant c (a number or an array broadcasting with x).

    Where c is whole and >= 0, repeated squaring, exact at x_0 = 0; elsewhere x y' = c y x'
    gives k x_0 y_k = sum_{j=1..k} (c j - (k - j)) x_j y_{k-j}.  A number c stays on the
    host, so the choice between the two costs no device sync.
    """
    y0 = x[0] ** c if y0 is None else y0
    if isinstance(c, Variable):                      # (a recording pass)
        if c.requires_grad:                          # a trained exponent: the general rule
            return _fractional_power(x, c, y0)
        c = c._data
    if not is_device_array(c) and np.ndim(c) == 0:
        c = np.asarray(c)[()]                        # a NumPy scalar: device ops take it
        if np.isfinite(c) and c >= 0 and c == np.floor(c):
            return [y0] + _whole_power(x, np.asarray(c).astype(np.int64))[1:]
        return _fractional_power(x, c, y0)
    c = get_array_module(x[0]).asarray(c)          # (an array exponent goes where x is)
    whole = np.isfinite(c) & (c >= 0) & (c == np.floor(c))
    if whole.all():
        return [y0] + _whole_power(x, c.astype(np.int64))[1:]
    base = x if not whole.any() else [np.where(whole, 1, x[0])] + x[1:]   # x_0 = 1 where unused
    y = _fractional_power(base, c, y0)
    if not whole.any():
        return y
    exact = _whole_power(x, np.where(whole, c, 0).astype(np.int64))
    return [y0] + [np.where(whole, e, g) for e, g in zip(exact[1:], y[1:])]


def _fractional_power(x, c, y0):
    """The recurrence k x_0 y_k = c sum_{j=1..k} j x_j y_{k-j} - sum_{j=1..k} x_j (k-j) y_{k-j},
    two operations per k; where x_0 = 0 (it divides by x_0) the limit of _power_at_zero."""
    n = len(x)
    if n == 1:
        return [y0]
    at_zero = x[0] == 0
    zeros = backend.maybe_any(at_zero)              # (on a device always: a branch would sync)
    x0 = np.where(at_zero, 1, x[0]) if zeros else x[0]
    if _recording(x, [y0]):
        y = [y0]
        base = [x0] + list(x[1:])
        weight = c.item() if isinstance(c, np.generic) else c    # (a Python float keeps float32 float32)
        for k in range(1, n):
            y.append(sum((weight * j - (k - j)) * base[j] * y[k - j] for j in range(1, k + 1)) / (k * x0))
        if zeros:
            limit = [_power_at_zero(_value(x[1]), _value(c), k) for k in range(1, n)]
            y = [y[0]] + [np.where(at_zero, a, b) for a, b in zip(limit, y[1:])]
        return y
    xs = _stack([x0] + list(x[1:]))
    jx = _stacked([x0] + list(x[1:]))                # row j-1: j x_j
    jy = _empty(n, y0, x0, xs[0])                    # row i: i y_i
    ys = _empty(n, y0, x0, xs[0])
    ys[0], jy[0] = y0, 0
    for k in range(1, n):
        total = c * _dot(jx[:k], ys[k - 1::-1]) - _dot(xs[1:k + 1], jy[k - 1::-1])
        ys[k] = total / (k * x0)
        jy[k] = k * ys[k]
    y = [y0] + list(ys[1:])
    if zeros:
        y = [y[0]] + [np.where(at_zero, _power_at_zero(x[1], c, k), y[k]) for k in range(1, n)]
    return y


def _value(c):
    """The array of a coefficient (the value of a recorded one: the limit it selects is
    piecewise constant, infinite or zero, so it carries no gradient)."""
    if isinstance(c, Directions) and isinstance(c.data, Variable):
        return Directions(c.data._data, c.shape, c.weights)
    return c._data if isinstance(c, Variable) else c


def _power_at_zero(x1, c, k):
    """Coefficient k of (x_1 t + ...)^c at x_0 = 0, as nested reverse mode gives it: the k-th
    derivative c (c-1) ... (c-k+1) 0^(c-k) x_1^k / k! is 0 for k < c (as in PyTorch's and JAX's
    jvp), and infinite for k > c, where x^c has no k-th derivative at 0."""
    xp = get_array_module(x1)
    c = c.item() if isinstance(c, np.generic) else c        # (a Python float keeps float32 float32)
    falling = xp.ones(np.shape(c), dtype=x1.dtype)
    for i in range(k):
        falling = falling * (c - i)
    with backend.errstate(x1, invalid="ignore", over="ignore"):
        power = x1 ** k if not isinstance(x1, Directions) else _times(x1, k)
        beyond = falling * power * xp.inf / float(math.factorial(k))
    if np.ndim(c) == 0 and not is_device_array(c):           # (np's: a Directions is its own)
        return np.zeros_like(beyond) if k < c else beyond
    return np.where(k < c, np.zeros_like(beyond), beyond)


def _times(x1, k):
    """x1^k as k - 1 products (of several directions: collapsed at k = 2 as a product is)."""
    power = x1
    for _ in range(k - 1):
        power = power * x1
    return power


def _whole_power(x, c):
    """Series of x^c for whole c >= 0 by repeated squaring; an array c, entry by entry."""
    if c.ndim == 0:
        c = int(c)
        if c == 0:
            return [np.ones_like(x[0])] + [np.zeros_like(x[0]) for _ in x[1:]]
        result, base = None, x
        while c:
            if c & 1:
                result = base if result is None else mul(result, base)
            c >>= 1
            if c:
                base = square(base)
        return result
    one = get_array_module(x[0]).ones(np.broadcast_shapes(x[0].shape, c.shape), dtype=x[0].dtype)
    # the constant 1; zeros past it, left out where x holds several directions (a collapsed
    # product of one direction's coefficient with zeros shared by all is not their weighted sum)
    carried = any(isinstance(a, Directions) for a in x[1:])
    result, base = [one] + ([] if carried else [np.zeros_like(one) for _ in x[1:]]), x
    while True:                                      # x^c = product over c's set bits b of x^(2^b)
        odd = (c & 1).astype(bool)
        if odd.any():
            product = mul(result, base)
            result = [np.where(odd, p, result[k] if k < len(result) else 0) for k, p in enumerate(product)]
        c = c >> 1
        if not c.any():
            return result + [np.zeros_like(one) for _ in x[len(result):]]
        base = square(base)


def sin_cos(x: list, s0: np.ndarray | None = None, c0: np.ndarray | None = None) -> tuple[list, list]:
    """Series of sin x and cos x together: s' = c x', c' = -s x'."""
    return _rotation(x, np.sin(x[0]) if s0 is None else s0, np.cos(x[0]) if c0 is None else c0, -1)


def sinh_cosh(x: list, s0: np.ndarray | None = None, c0: np.ndarray | None = None) -> tuple[list, list]:
    """Series of sinh x and cosh x together: s' = c x', c' = s x'."""
    return _rotation(x, np.sinh(x[0]) if s0 is None else s0, np.cosh(x[0]) if c0 is None else c0, 1)


def _rotation(x, s0, c0, sign):
    """s' = c x', c' = sign s x': k s_k = sum j x_j c_{k-j}, k c_k = sign sum j x_j s_{k-j}."""
    s, c = [s0], [c0]
    n = len(x)
    if n == 1:
        return s, c
    if _recording(x, [s0, c0]):
        for k in range(1, n):
            s.append(_rate_sum(x, c, k))
            c.append(_rate_sum(x, s, k) if sign > 0 else -_rate_sum(x, s, k))
        return s, c
    m = _last_varying(x)                             # x_j = 0 for j > m
    jx = _stacked(x[:m + 1])
    shape = (n,) + np.broadcast_shapes(s0.shape, x[0].shape)
    xp = get_array_module(jx)
    ss, cs = xp.empty(shape, dtype=jx.dtype), xp.empty(shape, dtype=jx.dtype)
    ss[0], cs[0] = s0, c0
    for k in range(1, n):
        j = min(k, m)
        ss[k] = np.einsum("j...,j...->...", jx[:j], cs[k - 1::-1][:j]) / k
        cs[k] = sign * np.einsum("j...,j...->...", jx[:j], ss[k - 1::-1][:j]) / k
        s.append(ss[k])
        c.append(cs[k])
    return s, c


def _one_minus_square(y, m, sign=-1):
    """Coefficient m of 1 + sign y^2."""
    square_m = _square_coefficient(y, m)
    if m == 0:
        return 1 + square_m if sign > 0 else 1 - square_m
    if sign > 0:
        return square_m
    if isinstance(y, list):                          # (coefficients of their own: recorded ops)
        return -square_m
    square_m *= -1                                   # (a stack's sum is a new array: in place)
    return square_m


def _square_into(y, m, out, factor):
    """out = factor * coefficient m of y^2, for y stacked in a NumPy array: one einsum over
    the pairs j < m/2 (the middle term of an even m added), scaled in place."""
    half = (m + 1) // 2
    np.einsum("j...,j...->...", y[:half], y[m:m - half:-1], out=out, casting="unsafe")
    if m % 2:
        out *= 2 * factor
        return
    out *= 2
    out += y[m // 2] * y[m // 2]
    out *= factor


def _one_plus_square_into(sign):
    """`into` for h = 1 + sign y^2 (tanh: -1, tan: +1): out = factor * h_m, in place."""
    def into(y, m, out, factor):
        _square_into(y, m, out, sign * factor)
        if m == 0:
            out += factor
    return into


def _one_plus_square(y, m):
    """Coefficient m of 1 + y^2 (tan's h)."""
    return _one_minus_square(y, m, 1)


_one_minus_square.into = _one_plus_square_into(-1)
_one_plus_square.into = _one_plus_square_into(1)


def tanh(x: list, y0: np.ndarray | None = None, output: bool = False) -> list:
    """Series of tanh x: y' = (1 - y^2) x'.  (`output`: see `ode`.)"""
    return ode(x, np.tanh(x[0]) if y0 is None else y0, _one_minus_square, pointwise=True, output=output)


def tan(x: list, y0: np.ndarray | None = None, output: bool = False) -> list:
    """Series of tan x: y' = (1 + y^2) x'.  (`output`: see `ode`.)"""
    return ode(x, np.tan(x[0]) if y0 is None else y0, _one_plus_square, pointwise=True, output=output)


def sigmoid(x: list, y0: np.ndarray | None = None, output: bool = False) -> list:
    """Series of 1 / (1 + e^-x): y' = (y - y^2) x'.  (`output`: see `ode`.)"""
    if y0 is None:
        y0 = np.exp(-np.logaddexp(0, -x[0]))         # 1 / (1 + e^-x) without overflow
    return ode(x, y0, lambda y, m: y[m] - _square_coefficient(y, m), pointwise=True, output=output)


def integral(x: list, y0: np.ndarray, g: list) -> list:
    """Series of y with y(0) = y0 and y' = g x', for a known series g of dg/dx at x(t).

    k y_k = sum_{j=1..k} j x_j g_{k-j}: softplus from sigmoid, the normal CDF from its density.
    """
    return ode(x, y0, lambda y, m: g[m])


def map_linear(x: list, f) -> list:
    """Series of f(x) for a linear map f (reshape, sum, indexing...): f applied to each x_k
    (None, a coefficient the pass does not use, stays None)."""
    return [None if c is None else f(c) for c in x]


__all__ = [
    "add", "sub", "neg", "scale", "cauchy", "mul", "square", "div", "reciprocal", "ode", "exp",
    "log", "sqrt", "power", "sin_cos", "sinh_cosh", "tanh", "tan", "sigmoid", "integral",
    "map_linear", "wanted",
]
