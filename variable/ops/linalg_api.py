"""np.linalg's Array API functions (vector_norm, matrix_norm, svdvals, trace, diagonal, ...),
built on gengrad's ops.

Each is a composite of ops gengrad has, whose backward and Taylor rules it inherits:

- vector_norm and matrix_norm are linalg.norm's (norms.py): the Euclidean norm of any set
  of axes is norm's `Euclid` op, whose gradient where the norm is 0 is 0 (PyTorch's
  convention, to every order); the other orders are norm's own compositions (abs, max, min,
  sums, powers, the singular values), with norm's conventions at 0 and at ties.
- svdvals, cond (p = None, 2, -2) and matrix_norm (ord = 2, -2, 'nuc') go through the
  singular values of linalg.svd (decompositions.py): a gradient U diag(gS) V^T at any
  point, a second derivative only where the singular values are distinct (LinAlgError
  elsewhere), and a first-order Taylor rule.
- trace, diagonal, cross, outer, tensordot, matrix_transpose and vecdot are the top-level
  ops with the Array API's axes (the last ones); multi_dot is a chain of matmuls in the
  cheapest order.

matrix_rank is not here: it is an integer of no gradient; run it on the data
(np.linalg.matrix_rank(x.data)).
"""

from numbers import Real
from typing import Any

import numpy as np

from ..axes import normalize_axis, single_axis
from ..backend import errstate, get_array_module
from ..forwarder import Function, Variable, as_variable, new_variable
from ..types import ArrayLike
from .array_api import _integer, matrix_transpose, vector_dot
from .contraction import _operands, _pair, dot
from .contraction import cross as _cross
from .contraction import outer as _outer
from .contraction import tensordot as _tensordot
from .decompositions import svd
from .indexing import get_item
from .inverses import inv, solve
from .matmul import matmul
from .norms import Euclid, norm
from .piecewise import abs, where
from .products import _refuse_keywords
from .products import trace as _trace
from .selection import diagonal as _diagonal
from .shape import reshape, transpose

_INF = float("inf")
_MATRIX_ORDERS = ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF)


def _stack_of_matrices(x, op, error=ValueError):
    """`x` as a Variable of at least 2 dimensions, or `error` naming `op`."""
    x = as_variable(x, op=op)
    if x.ndim < 2:
        raise error(
            f"{op}: the input must be at least 2-d (a matrix or a stack of them), got shape {x.shape}"
        )
    return x


def _floating(x):
    """`x`, an integer or boolean one as float64 (a constant), as np.linalg's norms take it."""
    return x if x.dtype.kind in "fc" else new_variable(x.data.astype(np.float64))


# ----- norms ----------------------------------------------------------------------
def _norm(op, x, ord, axis, keepdims=False):
    """linalg.norm(x, ord, axis, keepdims), its refusals ("norm: ...": a min over an empty
    axis, a NaN the SVD cannot take) named by `op`, the function the user called."""
    try:
        return norm(x, ord, axis, keepdims)
    except ValueError as error:                        # (LinAlgError too: a ValueError)
        raise type(error)(f"{op}: {str(error).removeprefix('norm: ')}") from error


def vector_norm(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False,
                ord: float = 2) -> Variable:
    """Vector norm of `x` over `axis`, as np.linalg.vector_norm: a vector norm over any set of
    axes (None: all of them, whatever the dimension of `x`).

    ord 2 (or None) is the Euclidean norm, of gradient 0 where the norm is 0 (PyTorch's
    convention, to every order); the other orders are linalg.norm's: 1 (sum |x|, gradient
    0 at 0 entries), inf and -inf (max and min |x|, the gradient shared among ties), 0 (the
    count of nonzero entries, gradient 0) and any other p, (sum |x|^p)^(1/p), whose
    gradient at a zero norm is not defined (NaN, as linalg.norm's).  Over a single entry
    every order but 0 is |x| itself, taken as abs (exact, gradient 0 at 0).

    Parameters
    ----------
    x : ArrayLike
        An integer `x` is taken as float64, as in NumPy.
    axis : int, tuple of ints or None
        The axes to take the norm over (negatives allowed); None: all.
    keepdims : bool
        Keep the normed axes with length 1.
    ord : {int, float, inf, -inf}
        The order, as above; not a string ('fro' and 'nuc' are matrix_norm's).

    Returns
    -------
    Variable
        Of the shape of `x` without `axis` (with length 1 there if `keepdims`).

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `ord` is not a number, or `x` is
        not array-like.
    ValueError
        If `ord` is a string, an axis is out of range or repeated, or a min (ord=-inf) is
        taken over no entries.
    """
    x = _floating(as_variable(x, op="vector_norm"))
    if isinstance(ord, str):
        raise ValueError(
            f"vector_norm: invalid order {ord!r} for vectors (use a number, inf or -inf; 'fro' and "
            f"'nuc' are V.linalg.matrix_norm's)"
        )
    if ord is not None and (isinstance(ord, bool) or not isinstance(ord, Real)):
        raise TypeError(f"vector_norm: ord must be a real number (inf and -inf included), got {ord!r}")
    if axis is not None and not isinstance(axis, (int, np.integer, tuple)):
        raise TypeError(f"vector_norm: axis must be None, an int or a tuple of ints, got {axis!r}")
    shape = x.shape
    axes = normalize_axis(tuple(range(x.ndim)) if axis is None else axis, x.ndim, "vector_norm", shape)
    keepdims = bool(keepdims)
    if (ord is None or ord == 2) and axes:
        return Function(Euclid(axes, keepdims))(x)     # sqrt(sum x^2) over the axes at once
    size = int(np.prod([shape[i] for i in axes], dtype=np.int64))
    if size == 1 and not (ord == 0 or ord is None or ord == 2):
        y = abs(x)                                     # the norm of one number: |x|, exactly
        return y if keepdims else reshape(y, tuple(n for i, n in enumerate(shape) if i not in axes))
    if isinstance(axis, (int, np.integer)):
        return _norm("vector_norm", x, ord, axes[0], keepdims)
    rest = [i for i in range(x.ndim) if i not in axes]  # the normed axes flattened into one, first
    flat = reshape(transpose(x, list(axes) + rest), (size,) + tuple(shape[i] for i in rest))
    y = _norm("vector_norm", flat, ord, 0)
    if keepdims:
        y = reshape(y, tuple(1 if i in axes else n for i, n in enumerate(shape)))
    return y


def matrix_norm(x: ArrayLike, /, *, keepdims: bool = False, ord: float | str = "fro") -> Variable:
    """Matrix norm of the matrices in the last two axes of `x`, as np.linalg.matrix_norm.

    'fro' (or None) is the Frobenius norm, of gradient 0 at a zero matrix (PyTorch's
    convention, to every order); 'nuc', 2 and -2 come from the singular values (sum, max,
    min); 1, -1, inf and -inf are the max and min column and row sums of |x| (the gradient
    shared among ties, 0 at zero entries), all as linalg.norm.

    Parameters
    ----------
    x : ArrayLike
        (..., M, N); an integer `x` is taken as float64.
    keepdims : bool
        Keep the last two axes with length 1.
    ord : {'fro', 'nuc', 1, -1, 2, -2, inf, -inf, None}
        The order, as above.

    Returns
    -------
    Variable
        Of shape x.shape[:-2] ((..., 1, 1) if `keepdims`).

    Raises
    ------
    ValueError
        If `x` has fewer than 2 dimensions, `ord` is not a matrix order, a max or min
        is taken over an empty axis, or the SVD of ord 2, -2 or 'nuc' does not converge
        (a NaN in `x`, as in NumPy).
    TypeError
        If `x` is not array-like.
    """
    x = _stack_of_matrices(x, "matrix_norm")
    if ord is not None and not any(_same(ord, valid) for valid in _MATRIX_ORDERS):
        raise ValueError(
            f"matrix_norm: invalid order {ord!r} for matrices (use 'fro', 'nuc', 1, -1, 2, -2, inf or "
            f"-inf; other vector orders are V.linalg.vector_norm's)"
        )
    return _norm("matrix_norm", _floating(x), ord, (-2, -1), bool(keepdims))


def _same(ord, valid):
    """Whether the order `ord` is `valid` (numbers and strings compared apart)."""
    if isinstance(valid, str) or isinstance(ord, str):
        return ord == valid
    return isinstance(ord, Real) and not isinstance(ord, bool) and ord == valid


def svdvals(x: ArrayLike, /) -> Variable:
    """Singular values of the matrices in the last two axes of `x`, descending, as
    np.linalg.svdvals (svd(x, compute_uv=False)).

    The gradient is linalg.svd's: U diag(gS) V^T, defined at any point; the second
    derivative moves the singular vectors and raises LinAlgError where singular values
    (nearly) repeat; the Taylor rule is first order.

    Parameters
    ----------
    x : ArrayLike
        (..., M, N).

    Returns
    -------
    Variable
        (..., min(M, N)).

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) naming svdvals if `x` has fewer than 2 dimensions.
    TypeError
        If `x` is not numeric, or of a dtype NumPy's linalg refuses (float16).
    """
    return _singular_values(_stack_of_matrices(x, "svdvals", np.linalg.LinAlgError), "svdvals")


def _singular_values(x, op):
    """svd(x, compute_uv=False); LAPACK's failure (a NaN or inf in `x`) named by `op`."""
    try:
        return svd(x, compute_uv=False)
    except ValueError as error:                        # LAPACK's "SVD did not converge"
        raise np.linalg.LinAlgError(
            f"{op}: SVD did not converge, as in NumPy: does the input of shape {x.shape} hold a NaN or "
            f"an inf?"
        ) from error


def cond(x: ArrayLike, p: float | str | None = None) -> Variable:
    """Condition number of the matrices in the last two axes of `x`, as np.linalg.cond.

    p None, 2 and -2 come from the singular values, s_max / s_min (s_min / s_max for -2),
    for any M x N matrices: inf at a singular matrix, as NumPy (its gradient there is not
    a number).  The other orders, 'fro', 'nuc', 1, -1, inf, -inf, are
    norm(x, p) * norm(inv(x), p) of square matrices, which must be invertible here (NumPy
    answers inf for a singular one; this refuses, as the inverse has no derivative there).

    Parameters
    ----------
    x : ArrayLike
        (..., M, N), square for the orders other than None, 2 and -2.
    p : {None, 2, -2, 'fro', 'nuc', 1, -1, inf, -inf}
        The order of the norm.

    Returns
    -------
    Variable
        Of shape x.shape[:-2].

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) naming cond if `x` has fewer than 2 dimensions, is empty, is not
        square (for the norm orders), or a matrix is singular (for the norm orders).
    ValueError
        If `p` is not one of the orders above.
    TypeError
        If `x` is not array-like.
    """
    x = _floating(_stack_of_matrices(x, "cond", np.linalg.LinAlgError))
    if x.size == 0 and 0 in x.shape[-2:]:
        raise np.linalg.LinAlgError(
            f"cond: the condition number is not defined for empty matrices (shape {x.shape})"
        )
    if p is None or _same(p, 2) or _same(p, -2):
        s = _singular_values(x, "cond")
        first, last = get_item(s, (Ellipsis, 0)), get_item(s, (Ellipsis, -1))
        with errstate(s.data, divide="ignore", invalid="ignore"):
            r = last / first if _same(p, -2) else first / last
        # NumPy's inf where 0 / 0 (a zero matrix; svd refuses a NaN in x): a constant mask
        return where(get_array_module(r).isnan(r.data), _INF, r)
    if not any(_same(p, valid) for valid in _MATRIX_ORDERS):
        raise ValueError(f"cond: invalid order {p!r} (use None, 2, -2, 'fro', 'nuc', 1, -1, inf or -inf)")
    if x.shape[-1] != x.shape[-2]:
        raise np.linalg.LinAlgError(f"cond: p={p!r} needs square matrices, got shape {x.shape}")
    try:
        inverse = inv(x)
    except np.linalg.LinAlgError:
        raise np.linalg.LinAlgError(
            f"cond: a matrix of the input (shape {x.shape}) is singular: its condition number is inf "
            f"and has no derivative; p=None, 2 or -2 give inf there, or perturb the matrix"
        ) from None
    return _norm("cond", x, p, (-2, -1)) * _norm("cond", inverse, p, (-2, -1))


# ----- the top-level ops on the last axes ---------------------------------------------------
def trace(x: ArrayLike, /, *, offset: int = 0, dtype: None = None) -> Variable:
    """Sum along diagonal `offset` of the matrices in the last two axes, as np.linalg.trace.

    Parameters
    ----------
    x : ArrayLike
        (..., M, N).
    offset : int
        0 the main diagonal, > 0 above it, < 0 below it.
    dtype : None
        Only None: the result keeps the dtype of `x`.

    Returns
    -------
    Variable
        Of shape x.shape[:-2]; 0 where the diagonal is empty.

    Raises
    ------
    TypeError
        If `offset` is not an int, `dtype` is given, or `x` is not array-like.
    ValueError
        If `x` has fewer than 2 dimensions.
    """
    _refuse_keywords("linalg.trace", dtype)
    offset = _integer(offset, "offset", "linalg.trace")
    return _trace(_stack_of_matrices(x, "linalg.trace"), offset, -2, -1)


def diagonal(x: ArrayLike, /, *, offset: int = 0) -> Variable:
    """Diagonal `offset` of the matrices in the last two axes, as np.linalg.diagonal.

    Parameters
    ----------
    x : ArrayLike
        (..., M, N).
    offset : int
        0 the main diagonal, > 0 above it, < 0 below it.

    Returns
    -------
    Variable
        (..., K), K the length of the diagonal (a copy, not a view).

    Raises
    ------
    TypeError
        If `offset` is not an int, or `x` is not array-like.
    ValueError
        If `x` has fewer than 2 dimensions.
    """
    offset = _integer(offset, "offset", "linalg.diagonal")
    return _diagonal(_stack_of_matrices(x, "linalg.diagonal"), offset, -2, -1)


def cross(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Variable:
    """Cross products of 3-vectors along `axis`, the other axes broadcast, as np.linalg.cross.

    Parameters
    ----------
    x1, x2 : ArrayLike
        Arrays of 3-vectors along `axis` (2-vectors are refused, as np.linalg.cross does).
    axis : int
        The vectors' axis in both operands and in the result (negatives allowed).

    Returns
    -------
    Variable
        The broadcast shape, with the 3-vectors along `axis`.

    Raises
    ------
    TypeError
        If `axis` is not an int, or an operand is not array-like or boolean.
    ValueError
        If an operand is 0-d, `axis` is out of range, a vector does not have 3 entries, or
        the other axes do not broadcast.
    """
    x1, x2 = _pair(x1, x2, "linalg.cross")
    axis = _integer(axis, "axis", "linalg.cross")
    lengths = []
    for x in (x1, x2):
        if x.ndim == 0:
            raise ValueError(
                f"linalg.cross: operands must be arrays of 3-vectors, got shapes {x1.shape} and {x2.shape}"
            )
        lengths.append(x.shape[single_axis(axis, x.ndim, "linalg.cross", x.shape)])
    if lengths != [3, 3]:
        raise ValueError(
            f"linalg.cross: both operands must be (arrays of) 3-vectors along axis {axis}, got lengths "
            f"{lengths[0]} and {lengths[1]} (shapes {x1.shape} and {x2.shape})"
        )
    return _cross(x1, x2, axis=axis)


def outer(x1: ArrayLike, x2: ArrayLike, /) -> Variable:
    """Outer product of two vectors, as np.linalg.outer: y[i, j] = x1[i] * x2[j].

    Parameters
    ----------
    x1, x2 : ArrayLike
        1-d (unlike np.outer, nothing is flattened).

    Returns
    -------
    Variable
        (len(x1), len(x2)).

    Raises
    ------
    ValueError
        If an operand is not 1-d (V.outer flattens, as np.outer).
    TypeError
        If an operand is not array-like.
    """
    x1, x2 = _pair(x1, x2, "linalg.outer")
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(
            f"linalg.outer: both operands must be 1-d, got shapes {x1.shape} and {x2.shape}; "
            f"V.outer flattens them first, as np.outer"
        )
    return _outer(x1, x2)


def tensordot(x1: ArrayLike, x2: ArrayLike, /, *, axes: Any = 2) -> Variable:
    """Sums of products over the given axes, as np.linalg.tensordot (V.tensordot's rules).

    Parameters
    ----------
    x1, x2 : ArrayLike
    axes : int or (sequence of ints, sequence of ints)
        N: the last N axes of `x1` with the first N of `x2`; a pair: those axes of `x1`
        with those of `x2`, in order.

    Returns
    -------
    Variable
        The free axes of `x1`, then those of `x2`.

    Raises
    ------
    TypeError
        If `axes` is not an int or a pair of sequences of ints, or an operand is not
        array-like.
    ValueError
        If N is out of range, an axis is out of range or repeated, or paired axes differ
        in length.
    """
    return _tensordot(x1, x2, axes)


def vecdot(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Variable:
    """Dot products of vectors along `axis`, the other axes broadcast, as np.linalg.vecdot.

    Parameters
    ----------
    x1, x2 : ArrayLike
        At least 1-d, with one length along `axis`.
    axis : int
        The vector axis (negatives count from each operand's end).

    Returns
    -------
    Variable
        Of the broadcast shape of the other axes.

    Raises
    ------
    TypeError
        If `axis` is not an int, or an operand is not array-like.
    ValueError
        If an operand is 0-d, `axis` is out of range, the vector lengths differ, or the
        other axes do not broadcast.
    """
    axis = _integer(axis, "axis", "linalg.vecdot")
    return vector_dot(x1, x2, axis, axis, "linalg.vecdot")


# ----- tensorsolve, tensorinv ----------------------------------------------------------
def _size(shape):
    """The number of entries of `shape` (1 for ()), a Python int."""
    size = 1
    for n in shape:
        size *= n
    return size


def tensorsolve(a: ArrayLike, b: ArrayLike, axes: Any = None) -> Variable:
    """The x with tensordot(a, x, x.ndim) = b, as np.linalg.tensorsolve.

    `a` (its `axes` moved to the end first) is read as a square matrix: its leading b.ndim
    axes (b's shape) as rows, the rest (x's shape) as columns; a reshape, V.linalg.solve and
    a reshape back, so the gradients (to every order) and the Taylor rule are solve's.

    Parameters
    ----------
    a : ArrayLike
        The coefficient tensor, of shape b.shape + Q with prod(Q) = b.size.
    b : ArrayLike
        The right-hand side.
    axes : sequence of ints, optional
        Axes of `a` to move to the end, in this order, before the solve (non-negative, as
        NumPy's list.remove takes them; a repeated one moves to the end again).

    Returns
    -------
    Variable
        Of shape Q.

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) Naming tensorsolve, if prod(Q) ** 2 != a.size, or the matrix is
        singular.
    ValueError
        If an entry of `axes` is not an axis of `a` (negatives included), or b.size does
        not match.
    TypeError
        If `axes` is not a sequence of ints, or an operand is not array-like.
    """
    a, b = _pair(a, b, "linalg.tensorsolve")
    an = a.ndim
    if axes is not None:
        try:
            moved = [_integer(k, "an entry of axes", "linalg.tensorsolve") for k in axes]
        except TypeError as error:
            raise TypeError(f"{error}; axes must be a sequence of ints, got {axes!r}") from None
        order = list(range(an))
        for k in moved:                                # NumPy: remove k, append it
            if k not in order:
                raise ValueError(
                    f"linalg.tensorsolve: axes {axes!r} must be axes of a (shape {a.shape}), counted from 0 "
                    f"(NumPy refuses negative ones too)"
                )
            order.remove(k)
            order.append(k)
        a = transpose(a, order)
    shape = a.shape[-(an - b.ndim):]                   # NumPy's slice, quirks included
    size = _size(shape)
    if a.size != size ** 2:
        raise np.linalg.LinAlgError(
            f"linalg.tensorsolve: a of shape {a.shape} (axes moved) and b of shape {b.shape} must satisfy "
            f"prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])"
        )
    if b.size != size:
        raise ValueError(
            f"linalg.tensorsolve: b has {b.size} entries, the solution's shape {shape} has {size} (a of "
            f"shape {a.shape} after moving axes)"
        )
    try:
        x = solve(reshape(a, (size, size)), reshape(b, (size,)))
    except np.linalg.LinAlgError as error:
        raise np.linalg.LinAlgError(
            f"linalg.tensorsolve: {str(error).removeprefix('solve: ')}: a of shape {a.shape} as a "
            f"({size}, {size}) matrix"
        ) from None
    return reshape(x, shape)


def tensorinv(a: ArrayLike, ind: int = 2) -> Variable:
    """The inverse of `a` under tensordot(., ., ind), as np.linalg.tensorinv.

    `a` is read as a square matrix, its first `ind` axes as rows, the rest as columns; a
    reshape, V.linalg.inv and a reshape back, so the gradients (to every order) and the
    Taylor rule are inv's.

    Parameters
    ----------
    a : ArrayLike
        With prod(a.shape[:ind]) == prod(a.shape[ind:]).
    ind : int
        The number of leading axes taken as rows, > 0.

    Returns
    -------
    Variable
        Of shape a.shape[ind:] + a.shape[:ind].

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) Naming tensorinv, if the matrix is not square, or singular.
    ValueError
        If `ind` is not positive, or a has no entries past `ind` to make a matrix of.
    TypeError
        If `ind` is not an int, or `a` is not array-like.
    """
    ind = _integer(ind, "ind", "linalg.tensorinv")
    if ind <= 0:
        raise ValueError(f"linalg.tensorinv: invalid ind argument {ind}: it must be a positive int")
    a = as_variable(a, op="linalg.tensorinv")
    shape = a.shape
    size = _size(shape[ind:])
    if size == 0 or a.size % size:
        raise ValueError(
            f"linalg.tensorinv: a of shape {shape} cannot be read as a matrix of {size} rows (its axes from "
            f"ind={ind} on)"
        )
    matrix = reshape(a, (size, a.size // size))
    if matrix.shape[0] != matrix.shape[1]:
        raise np.linalg.LinAlgError(
            f"linalg.tensorinv: a of shape {shape} with ind={ind} is a {matrix.shape} matrix, not square: "
            f"prod(a.shape[ind:]) must equal prod(a.shape[:ind])"
        )
    try:
        y = inv(matrix)
    except np.linalg.LinAlgError as error:
        raise np.linalg.LinAlgError(
            f"linalg.tensorinv: {str(error).removeprefix('inv: ')}: a of shape {shape} as a "
            f"{matrix.shape} matrix"
        ) from None
    return reshape(y, shape[ind:] + shape[:ind])


# ----- multi_dot ------------------------------------------------------------------------
def _chain_order(dims):
    """split[i][j]: where the cheapest product of matrices i..j splits, matrix k of shape
    (dims[k], dims[k + 1]) (dynamic programming over the chain, as NumPy's multi_dot)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(matrices, split, i, j):
    """The product of matrices i..j in the order `split` says."""
    if i == j:
        return matrices[i]
    k = split[i][j]
    return matmul(_chain(matrices, split, i, k), _chain(matrices, split, k + 1, j))


def multi_dot(arrays: list, *, out: None = None) -> Variable:
    """The product of two or more matrices in the cheapest order, as np.linalg.multi_dot.

    The first may be a 1-d row vector and the last a 1-d column vector; the others are
    2-d.  The order of the products (the fewest multiplications, found as NumPy does)
    changes only the rounding; each is a matmul, whose gradients the result inherits.

    Parameters
    ----------
    arrays : sequence of ArrayLike
        At least two.  With exactly two, any dimensions: np.dot's rule.
    out : None
        Only None.

    Returns
    -------
    Variable
        2-d; 1-d if the first or the last is 1-d; 0-d if both are.

    Raises
    ------
    TypeError
        If `out` is given, `arrays` is not a list or tuple, or an entry is not array-like.
    ValueError
        If fewer than two arrays are given, a middle one is not 2-d, or neighbouring
        shapes do not chain.
    """
    if out is not None:
        raise TypeError("multi_dot: out= is not supported (results are new Variables); use the result")
    if not isinstance(arrays, (list, tuple)):
        raise TypeError(f"multi_dot: arrays must be a list or tuple of arrays, got {type(arrays).__name__}")
    if len(arrays) < 2:
        raise ValueError(f"multi_dot: expects at least two arrays, got {len(arrays)}")
    matrices = list(_operands(list(arrays), "multi_dot"))
    if len(matrices) == 2:                             # np.dot's rule, as NumPy's multi_dot
        try:
            return dot(*matrices)
        except ValueError as error:
            raise ValueError(f"multi_dot: {error}") from None
    first, last = matrices[0].ndim, matrices[-1].ndim
    if first == 1:
        matrices[0] = reshape(matrices[0], (1, matrices[0].shape[0]))
    if last == 1:
        matrices[-1] = reshape(matrices[-1], (matrices[-1].shape[0], 1))
    shapes = [m.shape for m in matrices]
    for i, shape in enumerate(shapes):
        if len(shape) != 2:
            raise ValueError(
                f"multi_dot: array {i} is {len(shape)}-d (shapes {[a.shape for a in matrices]}); the "
                f"arrays must be 2-d (the first and the last may be 1-d)"
            )
    for i in range(len(shapes) - 1):
        if shapes[i][1] != shapes[i + 1][0]:
            raise ValueError(
                f"multi_dot: arrays {i} and {i + 1} do not chain, shapes {shapes[i]} and {shapes[i + 1]} "
                f"(as 2-d matrices)"
            )
    dims = [shapes[0][0]] + [s[1] for s in shapes]
    y = _chain(matrices, _chain_order(dims), 0, len(matrices) - 1)
    if first == 1 and last == 1:
        return reshape(y, ())
    if first == 1 or last == 1:
        return reshape(y, (y.size,))
    return y


__all__ = [
    "vector_norm", "matrix_norm", "svdvals", "cond", "trace", "diagonal", "cross", "outer", "tensordot",
    "matrix_transpose", "vecdot", "multi_dot", "tensorsolve", "tensorinv",
]
