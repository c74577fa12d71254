"""Polynomials in NumPy's coefficient order (highest power first): polyadd, polysub,
polymul, polyder, polyint, polydiv, polyfit, vander, poly and roots.

Every op is a composite of gengrad's ops, so its gradients (to every order) and Taylor
rules are theirs:

- polyadd and polysub pad the shorter operand with leading zeros (a join) and add;
  polymul is a convolution (V.convolve) of its operands stripped of their leading zeros
  (NumPy makes poly1d objects of them: one host sync each); poly multiplies the factors
  (x - z_i) by one convolution each.
- polyder and polyint multiply or divide the coefficients by their powers (constants) and
  join the integration constants `k`, which are differentiable too.
- vander is a running product (V.cumprod) of copies of `x`, exact where x is 0.
- polydiv solves for the quotient q in one triangular Toeplitz system (V.linalg.solve:
  the leading K = len(u) - len(v) + 1 coefficients of u = q * v), and the remainder is
  u - q * v.  NumPy strips the remainder's leading entries while they are within
  allclose's tolerance of 0 (|r_0| <= 1e-8); how many it strips is read from NumPy's own
  np.polydiv of the data (one host transfer), so the remainder has NumPy's length for any
  input, and its values agree for generic ones.
- polyfit is NumPy's algorithm on gengrad's ops: the Vandermonde matrix (weighted), its
  columns scaled to unit norm, V.linalg.lstsq, the scale divided out.  Its derivatives are
  those of lstsq: exact where the scaled Vandermonde matrix has full rank (distinct points,
  deg < len(x)), or full row rank (deg >= len(x): NumPy's minimum-norm fit).

- roots are the eigenvalues of the companion matrix (V.linalg.eigvals), as NumPy computes
  them, for polynomials whose roots are all real; complex roots are refused.

poly of a square matrix (NumPy's characteristic polynomial from np.linalg.eigvals, complex
in general) is not here; poly1d objects are refused (pass their coefficients, p.coeffs).
"""

import operator
import warnings
from typing import Any

import numpy as np

from ..backend import device_of, errstate, get_array_module, to_cpu
from ..forwarder import Variable, as_variable
from ..types import ArrayLike
from .contraction import _operands
from .eigen import eigvals
from .indexing import get_item
from .inverses import inv, lstsq, solve
from .joining import _as_sequence, concat
from .matmul import matmul
from .products import cumprod
from .reduction import sum
from .selection import take
from .shape import broadcast_to, reshape, transpose
from .signal import convolve


# ----- helpers ----------------------------------------------------------------------
def _no_poly1d(op, *xs):
    """Refuse NumPy's poly1d objects (gengrad's polynomials are coefficient arrays)."""
    for x in xs:
        if isinstance(x, np.poly1d):
            raise TypeError(
                f"{op}: poly1d objects are not supported (results would be arrays, not poly1d); pass "
                f"the coefficients instead, p.coeffs"
            )


def _together(xs, op):
    """The inputs as Variables on one device: on the GPU if any is there (numbers and host
    arrays made there), else numbers taking the first array's dtype."""
    if any(device_of(x) == "gpu" for x in xs):
        return _operands(xs, op)
    return _as_sequence(xs, op)


def _polys(xs, op):
    """The coefficient arrays `xs` as Variables on one device, 0-d ones as length 1 (NumPy's
    atleast_1d)."""
    _no_poly1d(op, *xs)
    return [reshape(x, (1,)) if x.ndim == 0 else x for x in _together(list(xs), op)]


def _order(m, op, what):
    """The order m of polyder/polyint as a non-negative int."""
    if isinstance(m, (bool, np.bool_)):
        raise TypeError(f"{op}: m must be an int, got {m!r}")
    try:
        m = operator.index(m)
    except TypeError:
        raise TypeError(f"{op}: m must be an int (the order of the {what}), got {m!r}") from None
    if m < 0:
        raise ValueError(
            f"{op}: the order of the {what} must be non-negative, got m={m} "
            f"(see {'polyint' if op == 'polyder' else 'polyder'})"
        )
    return m


def _one_dimensional(p, op, name="p"):
    if p.ndim != 1:
        raise ValueError(
            f"{op}: {name} must be a 1-D sequence of coefficients, got shape {p.shape}; for several "
            f"polynomials call {op} on each"
        )


def _cast(x, dtype):
    return x if x.dtype == dtype else x.astype(dtype)


# ----- sums and products ---------------------------------------------------------------
def _padded(a, n, op):
    """`a` with n leading zeros of its dtype (NumPy pads the shorter polynomial so)."""
    if a.ndim != 1:
        raise ValueError(
            f"{op}: the shorter operand, of shape {a.shape}, must be 1-D to be padded with leading zeros "
            f"(NumPy refuses it too)"
        )
    return concat([get_array_module(a).zeros(n, dtype=a.dtype), a])


def _add(a1, a2, op, subtract):
    a1, a2 = _polys((a1, a2), op)
    if subtract and a1.dtype == a2.dtype == np.bool_:
        raise TypeError(
            f"{op}: boolean coefficients cannot be subtracted (NumPy refuses it too); convert them first, "
            f"e.g. a.astype(np.float64)"
        )
    diff = a2.shape[0] - a1.shape[0]
    if diff > 0:
        a1 = _padded(a1, diff, op)
    elif diff < 0:
        a2 = _padded(a2, -diff, op)
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        raise ValueError(f"{op}: coefficients of shapes {a1.shape} and {a2.shape} do not broadcast") from None
    return a1 - a2 if subtract else a1 + a2


def polyadd(a1: ArrayLike, a2: ArrayLike) -> Variable:
    """Sum of two polynomials, as np.polyadd: the shorter padded with leading zeros.

    Parameters
    ----------
    a1, a2 : ArrayLike
        Coefficients, highest power first (a number is a constant polynomial).  The shorter
        must be 1-D; of equal lengths they add as arrays (broadcasting), as in NumPy.

    Returns
    -------
    Variable
        Of the length of the longer.

    Raises
    ------
    TypeError
        If an input is a poly1d, or not array-like.
    ValueError
        If the shorter input is not 1-D, or the two do not broadcast.
    """
    return _add(a1, a2, "polyadd", subtract=False)


def polysub(a1: ArrayLike, a2: ArrayLike) -> Variable:
    """Difference a1 - a2 of two polynomials, as np.polysub: the shorter padded with leading zeros.

    Parameters
    ----------
    a1, a2 : ArrayLike
        Coefficients, highest power first (a number is a constant polynomial).  The shorter
        must be 1-D; of equal lengths they subtract as arrays (broadcasting), as in NumPy.

    Returns
    -------
    Variable
        Of the length of the longer.

    Raises
    ------
    TypeError
        If an input is a poly1d or not array-like, or both are boolean (NumPy refuses a
        boolean subtraction).
    ValueError
        If the shorter input is not 1-D, or the two do not broadcast.
    """
    return _add(a1, a2, "polysub", subtract=True)


def _leading_zeros_trimmed(a, op, name):
    """`a` without its leading zeros, as np.poly1d(a) keeps it ([0] if nothing is left): one
    host sync for where the first nonzero is.  A trimmed zero gets no gradient (its power is
    not in the result), the last of an all-zero `a` keeps its own."""
    _one_dimensional(a, op, name)
    xp = get_array_module(a)
    if a.shape[0] == 0:
        return as_variable(xp.zeros(1, dtype=a.dtype))
    nonzero = xp.concatenate([a.data != 0, xp.ones(1, dtype=bool)])
    first = min(int(nonzero.argmax()), a.shape[0] - 1)
    return a if first == 0 else get_item(a, slice(first, None))


def polymul(a1: ArrayLike, a2: ArrayLike) -> Variable:
    """Product of two polynomials, as np.polymul: the convolution of their coefficients, each
    first stripped of its leading zeros (NumPy makes a poly1d of each).

    Where the leading zeros are is read from the data (one host sync per operand); a
    stripped zero gets no gradient.

    Parameters
    ----------
    a1, a2 : ArrayLike
        1-D coefficients, highest power first (a number is a constant polynomial; an empty
        or all-zero one is the zero polynomial [0]).

    Returns
    -------
    Variable
        Of length len(a1') + len(a2') - 1, a1' and a2' without their leading zeros.

    Raises
    ------
    TypeError
        If an input is a poly1d, or not array-like.
    ValueError
        If an input has 2 or more dimensions (NumPy refuses it too).
    """
    a1, a2 = _polys((a1, a2), "polymul")
    return convolve(_leading_zeros_trimmed(a1, "polymul", "a1"), _leading_zeros_trimmed(a2, "polymul", "a2"))


# ----- derivative and integral ---------------------------------------------------------------
def polyder(p: ArrayLike, m: int = 1) -> Variable:
    """The m-th derivative of a polynomial, as np.polyder: p_i times its power, the last dropped.

    Parameters
    ----------
    p : ArrayLike
        1-D coefficients, highest power first.
    m : int
        The order of the derivative, >= 0 (0 gives `p`).

    Returns
    -------
    Variable
        Of length max(len(p) - m, 0); in NumPy's dtype (float32 p gives float64, as p times
        an integer array does in NumPy).

    Raises
    ------
    TypeError
        If `m` is not an int, `p` is 0-d, a poly1d or not array-like.
    ValueError
        If `m` is negative, or `p` has 2 or more dimensions.
    """
    m = _order(m, "polyder", "derivative")
    _no_poly1d("polyder", p)
    p = as_variable(p, op="polyder")
    if p.ndim == 0:
        raise TypeError("polyder: p must be a sequence of coefficients, got a 0-d input; write [p]")
    if m == 0:
        return p
    _one_dimensional(p, "polyder")
    p = _cast(p, np.result_type(p.dtype, np.intp))     # NumPy: p[:-1] * arange(n, 0, -1)
    xp = get_array_module(p)
    for _ in range(m):
        n = p.shape[0] - 1
        p = get_item(p, slice(None, -1))
        if n > 0:
            p = p * xp.arange(n, 0, -1).astype(p.dtype)   # d/dx c x^k = k c x^(k-1)
    return p


def _constants(k, m, p):
    """polyint's k as a list of m 1-d Variables of length 1 (None: zeros; one k for all m)."""
    if k is None:
        k = get_array_module(p).zeros(m, dtype=np.float64)
    _no_poly1d("polyint", k)
    p, k = _together([p, k], "polyint")
    if k.ndim > 1:
        raise ValueError(f"polyint: k must be a number or a 1-D sequence of constants, got shape {k.shape}")
    k = reshape(k, (k.size,))
    if k.shape[0] == 1 and m > 1:
        return p, [k] * m
    if k.shape[0] < m:
        raise ValueError(
            f"polyint: k must be a number or a sequence of at least m={m} constants, got {k.shape[0]}"
        )
    return p, [get_item(k, slice(i, i + 1)) for i in range(m)]


def polyint(p: ArrayLike, m: int = 1, k: ArrayLike | None = None) -> Variable:
    """The m-th antiderivative of a polynomial, as np.polyint: p_i divided by its power plus 1,
    each integration's constant appended.

    Parameters
    ----------
    p : ArrayLike
        1-D coefficients, highest power first.
    m : int
        The order of the antiderivative, >= 0 (0 gives `p`).
    k : ArrayLike, optional
        The integration constants: None (zeros), a number (the same for each of the m
        integrations) or a sequence of at least m (k[0] for the first integration, the
        lowest coefficient of the result); Variables get their gradient.

    Returns
    -------
    Variable
        Of length len(p) + m, floating (float64 unless p and k are float32 and ... as NumPy:
        p / an integer array, joined with k).

    Raises
    ------
    TypeError
        If `m` is not an int, `p` is 0-d, a poly1d or not array-like, or `k` is not array-like.
    ValueError
        If `m` is negative, `p` has 2 or more dimensions, or `k` has fewer than m constants
        (and more than one).
    """
    m = _order(m, "polyint", "integral")
    _no_poly1d("polyint", p)
    p = as_variable(p, op="polyint")
    if p.ndim == 0:
        raise TypeError("polyint: p must be a sequence of coefficients, got a 0-d input; write [p]")
    p, constants = _constants(k, m, p)
    if m == 0:
        return p
    _one_dimensional(p, "polyint")
    # NumPy's dtype: p / arange(...) (float64 for float32 p), joined with k
    dtype = np.result_type(np.zeros(0, p.dtype) / np.zeros(0, np.intp), *[c.dtype for c in constants])
    p = _cast(p, dtype)
    xp = get_array_module(p)
    for c in constants:
        n = p.shape[0]
        p = concat([p / xp.arange(n, 0, -1).astype(dtype), _cast(c, dtype)])   # c x^k -> c x^(k+1) / (k+1)
    return p


# ----- division ------------------------------------------------------------------------------
def _toeplitz(v, size):
    """The (size, size) lower-triangular Toeplitz matrix T[i, j] = v[i - j] (0 past v's end):
    T q holds the first `size` coefficients of the product q * v."""
    n = v.shape[0]
    xp = get_array_module(v)
    i = np.arange(size)
    lag = i[:, None] - i[None, :]
    index = np.where((lag >= 0) & (lag < n), lag, n)   # n: the zero appended to v
    return take(concat([v, xp.zeros(1, dtype=v.dtype)]), xp.asarray(index))


def polydiv(u: ArrayLike, v: ArrayLike) -> tuple[Variable, Variable]:
    """Quotient and remainder of the division of polynomial u by v, as np.polydiv: u = q v + r.

    The quotient solves the triangular Toeplitz system of the leading coefficients (one
    V.linalg.solve) and the remainder is u - q v, so both are differentiable in u and v
    to every order.  NumPy strips the remainder's leading entries while they are within
    np.allclose(r0, 0, rtol=1e-14) (|r0| <= 1e-8) of zero, keeping one; the number it strips
    is taken from NumPy's np.polydiv on the data (a host transfer), so the remainder has
    NumPy's length, and its values (and q's) agree with NumPy's for generic inputs.

    Parameters
    ----------
    u : ArrayLike
        The dividend: 1-D coefficients, highest power first (a number: a constant).
    v : ArrayLike
        The divisor: 1-D; its leading coefficient must be nonzero where len(v) <= len(u).

    Returns
    -------
    q : Variable
        The quotient, of length max(len(u) - len(v) + 1, 1) (the constant [0.] when v is
        the longer: no gradient).
    r : Variable
        The remainder, as NumPy trims it (at least one entry).

    Raises
    ------
    TypeError
        If an input is a poly1d, or not array-like.
    ValueError
        If an input has 2 or more dimensions or is empty, holds an inf, or the leading
        coefficient of v is 0 where NumPy would divide by it (giving inf and NaN).
    """
    u, v = _polys((u, v), "polydiv")
    for name, a in (("u", u), ("v", v)):
        _one_dimensional(a, "polydiv", name)
        if a.shape[0] == 0:
            raise ValueError(
                f"polydiv: {name} is empty (NumPy refuses it too); use [0.0] for the zero polynomial"
            )
    dtype = np.result_type(u.dtype, v.dtype, 0.0)        # NumPy: u + 0.0, v + 0.0 and their common type
    u, v = _cast(u, dtype), _cast(v, dtype)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    host_u, host_v = to_cpu(u.data), to_cpu(v.data)
    if np.isinf(host_u).any() or np.isinf(host_v).any():
        raise ValueError(
            f"polydiv: infinite coefficients (u = {host_u!r}, v = {host_v!r}) make inf - inf of no defined "
            f"value in the division; NumPy's answer there depends on its order of operations"
        )
    if m >= n and host_v[0] == 0:
        raise ValueError(
            f"polydiv: the leading coefficient of v is 0 (v = {host_v!r}); NumPy divides by it (inf and "
            f"NaN): drop v's leading zeros first, e.g. np.trim_zeros(v, 'f')"
        )
    with errstate(host_u, all="ignore"):
        kept = np.polydiv(host_u, host_v)[1].shape[0]     # NumPy's trimmed remainder's length
    xp = get_array_module(u)
    if m < n:                                           # u is the remainder itself
        q, full = as_variable(xp.zeros(1, dtype=dtype)), u
    else:
        size = m - n + 1                                # T q = u[:size], T[i, j] = v[i - j]
        q = solve(_toeplitz(v, size), get_item(u, slice(None, size)))
        full = u - convolve(q, v)                       # r = u - q v (its first `size` entries ~0)
    return q, get_item(full, slice(full.shape[0] - kept, None))


# ----- Vandermonde matrices and fits ---------------------------------------------------------
def vander(x: ArrayLike, N: int | None = None, increasing: bool = False) -> Variable:
    """The Vandermonde matrix of `x`, as np.vander: columns x^(N-1), ..., x, 1 (or reversed).

    The powers are running products of x (V.cumprod), exact where x is 0, to every order.

    Parameters
    ----------
    x : ArrayLike
        1-D.
    N : int, optional
        The number of columns; None: len(x).
    increasing : bool
        Powers increasing from the left (1, x, x^2, ...).

    Returns
    -------
    Variable
        (len(x), N), in NumPy's dtype (x's promoted with int: float32 gives float64, as in
        NumPy).

    Raises
    ------
    TypeError
        If `N` is not an int or None, or `x` is not array-like.
    ValueError
        If `x` is not 1-D, or `N` is negative.
    """
    x = as_variable(x, op="vander")
    if x.ndim != 1:
        raise ValueError(f"vander: x must be a one-dimensional array or sequence, got shape {x.shape}")
    rows = x.shape[0]
    if N is None:
        N = rows
    elif isinstance(N, (bool, np.bool_)):
        raise TypeError(f"vander: N must be an int or None, got {N!r}")
    else:
        try:
            N = operator.index(N)
        except TypeError:
            raise TypeError(f"vander: N must be an int or None, got {N!r}") from None
    if N < 0:
        raise ValueError(f"vander: N must be non-negative (the number of columns), got {N}")
    x = _cast(x, np.promote_types(x.dtype, np.intp))
    column = reshape(x, (rows, 1))
    if N == 0:
        return get_item(column, (slice(None), slice(0, 0)))      # (rows, 0), still x's graph
    powers = cumprod(broadcast_to(column, (rows, N - 1)), axis=1)  # x, x^2, ..., x^(N-1)
    ones = get_array_module(x).ones((rows, 1), dtype=x.dtype)
    y = concat([ones, powers], axis=1)
    return y if increasing else get_item(y, (slice(None), slice(None, None, -1)))


def polyfit(x: ArrayLike, y: ArrayLike, deg: int, rcond: float | None = None, full: bool = False,
            w: ArrayLike | None = None, cov: bool | str = False) -> Any:
    """Least-squares polynomial fit of degree `deg` to the points (x, y), as np.polyfit.

    NumPy's algorithm on gengrad's ops: the Vandermonde matrix of x (times the weights w),
    its columns scaled to unit norm, V.linalg.lstsq, the scale divided out; gradients flow
    to x, y and w (to every order) where the scaled matrix has full rank, or full row
    rank (deg >= len(x), NumPy's minimum-norm fit).  A rank-deficient fit warns with
    NumPy's RankWarning (unless `full`), as NumPy; its derivatives are not defined.

    Parameters
    ----------
    x : ArrayLike
        1-D, non-empty: the sample points.
    y : ArrayLike
        (len(x),), or (len(x), K): one fit per column.
    deg : int
        The degree, >= 0.
    rcond : float, optional
        Singular values below rcond times the largest are dropped; None:
        len(x) * eps of x's float dtype, as NumPy.
    full : bool
        Also return lstsq's diagnostics.
    w : ArrayLike, optional
        1-D weights, multiplying the residuals (1/sigma for Gaussian errors).
    cov : bool or 'unscaled'
        Also return the covariance of the coefficients (ignored with `full`, as NumPy):
        NumPy's inv(A^T A) / outer(scale, scale), times residuals / (len(x) - deg - 1)
        unless 'unscaled'.

    Returns
    -------
    p : Variable
        (deg + 1,) or (deg + 1, K), highest power first, float64 for float32 input as in
        NumPy.
    residuals, rank, singular_values, rcond
        With full=True: the sum of squared weighted residuals (a Variable, differentiable;
        empty where the rank is below deg + 1 or len(x) <= deg + 1, as lstsq), the rank
        (an int), the singular values of the scaled matrix (a constant Variable) and rcond.
    V : Variable
        With cov (and not full): (deg + 1, deg + 1), or (deg + 1, deg + 1, K) for 2-D y.

    Raises
    ------
    TypeError
        If `deg` is not an int, an input is a poly1d or not array-like, x is not 1-D or is
        empty, y is not 1-D or 2-D, w is not 1-D, or their lengths differ (NumPy's
        TypeErrors).
    ValueError
        If `deg` is negative, or a scaled covariance is asked for with len(x) <= deg + 1
        or from a rank-deficient fit.
    numpy.linalg.LinAlgError
        (a ValueError) naming polyfit, if the SVD does not converge (a NaN or inf in the
        data, as in NumPy).
    """
    _no_poly1d("polyfit", x, y, w)
    if isinstance(deg, (bool, np.bool_)):
        raise TypeError(f"polyfit: deg must be an int, got {deg!r}")
    try:
        order = operator.index(deg) + 1
    except TypeError:
        raise TypeError(f"polyfit: deg must be an int (the degree), got {deg!r}") from None
    inputs = _together([x, y] + ([] if w is None else [w]), "polyfit")
    inputs = [_cast(a, np.result_type(a.dtype, 0.0)) for a in inputs]      # NumPy: x + 0.0, y + 0.0
    x, y = inputs[:2]
    if order < 1:
        raise ValueError(f"polyfit: expected deg >= 0, got deg={deg}")
    if x.ndim != 1:
        raise TypeError(f"polyfit: expected a 1-D vector for x, got shape {x.shape}")
    if x.size == 0:
        raise TypeError("polyfit: expected a non-empty vector for x")
    if y.ndim not in (1, 2):
        raise TypeError(f"polyfit: expected a 1-D or 2-D array for y, got shape {y.shape}")
    if x.shape[0] != y.shape[0]:
        raise TypeError(
            f"polyfit: expected x and y to have the same length, got shapes {x.shape} and {y.shape}"
        )
    if rcond is None:
        rcond = len(x) * np.finfo(x.dtype).eps
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = inputs[2]
        if w.ndim != 1:
            raise TypeError(f"polyfit: expected a 1-D array for the weights w, got shape {w.shape}")
        if w.shape[0] != y.shape[0]:
            raise TypeError(
                f"polyfit: expected w and y to have the same length, got shapes {w.shape} and {y.shape}"
            )
        column = reshape(w, (w.shape[0], 1))
        lhs = lhs * column
        rhs = rhs * (column if rhs.ndim == 2 else w)
    dtype = np.result_type(lhs.dtype, rhs.dtype)
    lhs, rhs = _cast(lhs, dtype), _cast(rhs, dtype)
    scale = sum(lhs * lhs, axis=0) ** 0.5                # each column to unit norm
    lhs = lhs / scale
    try:
        c, residuals, rank, s = lstsq(lhs, rhs, rcond)
    except np.linalg.LinAlgError as error:             # LAPACK's SVD fails on NaN and inf, as in NumPy
        raise np.linalg.LinAlgError(
            f"polyfit: {str(error).removeprefix('lstsq: ')} (is there a NaN or an inf among x of shape "
            f"{x.shape}, y of shape {y.shape} or the weights?)"
        ) from None
    c = c / (reshape(scale, (order, 1)) if c.ndim == 2 else scale)
    if rank != order and not full:
        warnings.warn("polyfit: Polyfit may be poorly conditioned (rank-deficient; the derivatives are "
                      "not defined)", np.exceptions.RankWarning, stacklevel=2)
    if full:
        return c, residuals, rank, s, rcond
    if not cov:
        return c
    base = inv(matmul(transpose(lhs), lhs))
    base = base / (reshape(scale, (order, 1)) * reshape(scale, (1, order)))
    if isinstance(cov, str) and cov == "unscaled":
        factor = 1.0
    else:
        if len(x) <= order:
            raise ValueError(
                f"polyfit: the number of data points ({len(x)}) must exceed order = deg + 1 ({order}) to "
                f"scale the covariance matrix; cov='unscaled' gives it unscaled"
            )
        if residuals.shape[0] == 0:
            raise ValueError(
                f"polyfit: the fit is rank-deficient (rank {rank} < {order}): no residuals to scale the "
                f"covariance with"
            )
        factor = residuals / (len(x) - order)
    if y.ndim == 1:
        return c, base * factor
    return c, reshape(base, (order, order, 1)) * factor


# ----- from zeros ----------------------------------------------------------------------------
def poly(seq_of_zeros: ArrayLike) -> Variable:
    """Coefficients of the monic polynomial with the given (real) zeros, as np.poly:
    (x - z_0)(x - z_1)...: one convolution with [1, -z_i] per zero.

    Parameters
    ----------
    seq_of_zeros : ArrayLike
        1-D: the zeros.  A square matrix (NumPy's characteristic polynomial, from its
        eigenvalues, complex in general) is refused.

    Returns
    -------
    Variable
        Of length len(seq_of_zeros) + 1, leading coefficient 1; float32 for float32 zeros,
        float64 otherwise (as NumPy); 1.0 (0-d, float64) for no zeros.

    Raises
    ------
    TypeError
        If the input is 0-d (NumPy needs a sequence), a poly1d or not array-like.
    ValueError
        If the input is a square matrix (pass its eigenvalues instead) or of another shape
        than 1-D.
    """
    _no_poly1d("poly", seq_of_zeros)
    z = as_variable(seq_of_zeros, op="poly")
    if z.ndim == 0:
        raise TypeError("poly: seq_of_zeros must be a sequence of zeros, got a 0-d input; write [z]")
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        raise ValueError(
            f"poly: a square matrix (shape {z.shape}) asks for its characteristic polynomial from "
            f"np.linalg.eigvals, complex in general, which gengrad does not differentiate; pass its "
            f"eigenvalues (e.g. V.poly(V.linalg.eigvalsh(a)) for a symmetric a)"
        )
    if z.ndim != 1:
        raise ValueError(f"poly: input must be 1-D (the zeros) or a square 2-D array, got shape {z.shape}")
    z = _cast(z, z.dtype if z.dtype in (np.float32, np.float64) else np.float64)
    if z.shape[0] == 0:
        return _cast(sum(z) * 0.0 + 1.0, np.float64)          # NumPy's 1.0, on z's graph
    xp = get_array_module(z)
    one = xp.ones(1, dtype=z.dtype)
    a = concat([one, -get_item(z, slice(0, 1))])
    for i in range(1, z.shape[0]):
        a = convolve(a, concat([one, -get_item(z, slice(i, i + 1))]))   # times (x - z_i)
    return a


def roots(p: ArrayLike) -> Variable:
    """The roots of the polynomial with coefficients `p` (highest power first), as np.roots:
    the eigenvalues of its companion matrix (V.linalg.eigvals), for polynomials whose roots
    are all real.

    Leading zeros are dropped and trailing zeros give roots at 0, as in NumPy (which entries
    are zero is read on the host: one sync on a GPU).  The gradient of a simple root r is
    -r^(n-k) / p'(r) for coefficient k (through eigvals, to every order); a repeated root has
    none (it moves as the square root of a change: the gradient comes out huge).

    Parameters
    ----------
    p : ArrayLike
        1-D coefficients.

    Returns
    -------
    Variable
        The roots, in LAPACK's order (NumPy's), float64 (float32 for float32 coefficients);
        empty for a constant or all-zero polynomial.

    Raises
    ------
    ValueError
        If `p` is not 1-D, has complex roots (np.roots(p.data) gives them as plain complex
        numbers), or (a LinAlgError) holds NaN or inf, as NumPy's.
    TypeError
        If `p` is a poly1d or not array-like.
    """
    _no_poly1d("roots", p)
    p = as_variable(p, op="roots")
    if p.ndim != 1:
        raise ValueError(f"roots: p must be a 1-D sequence of coefficients, got shape {p.shape}")
    p = _cast(p, p.dtype if p.dtype in (np.float32, np.float64) else np.float64)
    xp = get_array_module(p)
    nonzero = np.flatnonzero(np.asarray(to_cpu(p.data)))               # (NaN counts as nonzero)
    if nonzero.size == 0:
        return get_item(p, slice(0, 0))
    q = get_item(p, slice(int(nonzero[0]), int(nonzero[-1]) + 1))
    n = q.shape[0]
    found = get_item(q, slice(0, 0))
    if n > 1:
        first = -get_item(q, slice(1, None)) / get_item(q, slice(0, 1))
        companion = concat([reshape(first, (1, n - 1)), xp.eye(n - 2, n - 1, dtype=p.dtype)])
        try:
            found = eigvals(companion)
        except ValueError as error:                   # (LinAlgError too: NaN or inf coefficients)
            text = str(error)
            if "complex eigenvalues" not in text:
                raise type(error)(f"roots: {text.removeprefix('Eigvals: ')}") from None
            example = text[text.index("(such as"):text.index(")") + 1]
            raise ValueError(
                f"roots: the polynomial has complex roots {example}; gengrad has no complex dtype: "
                f"np.roots(p.data) gives them as plain complex numbers (no gradient)"
            ) from None
    trailing = p.shape[0] - int(nonzero[-1]) - 1
    if trailing:
        found = concat([found, xp.zeros(trailing, dtype=p.dtype)])
    return found


__all__ = ["polyadd", "polysub", "polymul", "polyder", "polyint", "polydiv", "polyfit", "vander", "poly",
           "roots"]
