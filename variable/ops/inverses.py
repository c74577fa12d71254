"""Linear systems and inverses: inv, solve, det, slogdet, pinv, lstsq, matrix_power.

Stacked matrices work as in NumPy: the last two axes are the matrix, leading axes a batch.
Each backward is a published matrix-derivative rule (M. Giles, "An extended collection of
matrix derivative results for forward and reverse mode algorithmic differentiation",
2008), written with gengrad ops (matmul, and inv, solve, pinv themselves), so derivatives
of every order follow.  The Taylor rules come from the same identities: A Y = I gives the
inverse's series coefficient by coefficient, Y_k = -A_0^-1 sum_{j>=1} A_j Y_{k-j}.

A singular matrix raises NumPy's LinAlgError (a ValueError) whose message names the op;
so do malformed shapes, as in NumPy.
"""

import contextlib
import operator
from numbers import Real
from typing import NamedTuple

import numpy as np

from .. import series
from ..backend import get_array_module
from ..forwarder import Forwarder, Function, Variable, as_variable, new_variable
from ..types import ArrayLike
from . import reduction
from .elementwise import _reduce
from .matmul import _swap_last, matmul
from .shape import reshape

LinAlgError = np.linalg.LinAlgError

class _Unset:
    """pinv's `rtol` when not given (NumPy tells "not given" apart from rtol=None)."""

    def __repr__(self):
        return "<not given>"


_UNSET = _Unset()


@contextlib.contextmanager
def _named(op):
    """Re-raise NumPy's LinAlgError from inside with the op's name in front."""
    try:
        yield
    except LinAlgError as error:
        raise LinAlgError(f"{op}: {error}") from None


def _matrices(a, op, square=True):
    """`a` as a Variable of at least 2 dimensions (square in the last two when asked)."""
    a = as_variable(a, op=op)
    if a.ndim < 2:
        raise LinAlgError(
            f"{op}: expected a matrix or a stack of matrices (at least 2-D), got shape {a.shape}"
        )
    if square and a.shape[-1] != a.shape[-2]:
        raise LinAlgError(f"{op}: the last two dimensions must be square, got shape {a.shape}")
    return a


def _scale_matrices(s, m):
    """s[..., None, None] * m: one number per matrix of the stack `m`."""
    return reshape(s, s.shape + (1, 1)) * m


def _inverse_transposed(a, op):
    """A^-T as a Variable, for the gradients of det and slogdet."""
    try:
        return _swap_last(Function(Inv())(a))
    except LinAlgError:
        raise LinAlgError(
            f"{op}: the gradient at a singular matrix is not computed (it needs A^-1, which "
            f"does not exist there)"
        ) from None


# ----- Taylor-series helpers -----------------------------------------------------
def _convolve(a, y, k, product):
    """sum_{j=1..k} a_j y_{k-j}, over the coefficients `a` holds (None when there are none)."""
    total = None
    for j in range(1, min(k, len(a) - 1) + 1):
        term = product(a[j], y[k - j])
        total = term if total is None else total + term
    return total


def _inverse_series(a, y0):
    """Series of A(t)^-1 from y0 = A_0^-1: A Y = I gives Y_k = -Y_0 sum_{j=1..k} A_j Y_{k-j}."""
    y = [y0]
    for k in range(1, len(a)):
        y.append(-np.matmul(y0, _convolve(a, y, k, np.matmul)))
    return y


def _logdet_rate(a, op):
    """Coefficients h_0 .. h_{K-1} of h(t) = tr(A(t)^-1 A'(t)) = d log det A(t) / dt."""
    with _named(op):
        inverse = _inverse_series(a, np.linalg.inv(a[0]))
    slope = [(m + 1) * a[m + 1] for m in range(len(a) - 1)]     # A'(t): (m + 1) A_{m+1}
    trace = lambda p, q: np.einsum("...ij,...ji->...", p, q)    # tr(P Q), bilinear
    return [series.cauchy(inverse, slope, m, trace) for m in range(len(a) - 1)]


def _power_series(a, n):
    """Series of A(t)^n for whole n >= 1: repeated squaring of Cauchy products of matmuls."""
    result, base = None, a
    while n:
        if n & 1:
            result = base if result is None else series.mul(result, base, np.matmul)
        n >>= 1
        if n:
            base = series.mul(base, base, np.matmul)
    return result


def _pinv_series(a, op):
    """Series of A(t)^+ for A of full rank: (A^T A)^-1 A^T (tall) or A^T (A A^T)^-1 (wide)."""
    at = series.map_linear(a, lambda c: np.swapaxes(c, -1, -2))
    tall = a[0].shape[-2] >= a[0].shape[-1]
    gram = series.mul(at, a, np.matmul) if tall else series.mul(a, at, np.matmul)
    with _named(op):
        inverse = _inverse_series(gram, np.linalg.inv(gram[0]))
    return series.mul(inverse, at, np.matmul) if tall else series.mul(at, inverse, np.matmul)


def _pinv_grad(a, p, g):
    """Gradient of <G, A^+> for A of constant rank (Golub and Pereyra's dA^+), as gengrad ops.

    dA^+ = -A^+ dA A^+ + A^+ A^+T dA^T (I - A A^+) + (I - A^+ A) dA^T A^+T A^+, so
    gA = -A^+T G A^+T + (I - A A^+) G^T A^+ A^+T + A^+T A^+ G^T (I - A^+ A).
    """
    pt, gt = _swap_last(p), _swap_last(g)
    outer = -matmul(matmul(pt, g), pt)                        # -A^+T G A^+T
    left = matmul(gt, matmul(p, pt))                          # G^T A^+ A^+T
    right = matmul(matmul(pt, p), gt)                         # A^+T A^+ G^T
    return (outer + left - matmul(a, matmul(p, left))         # (I - A A^+) G^T A^+ A^+T
            + right - matmul(matmul(right, p), a))            # A^+T A^+ G^T (I - A^+ A)


# ----- ops -------------------------------------------------------------------------
class Inv(Forwarder):
    """A^-1 for each matrix of the stack."""

    def forward(self, a):
        with _named("inv"):
            return get_array_module(a).linalg.inv(a)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        yt = _swap_last(y)
        return -matmul(matmul(yt, gy), yt)          # d inv = -A^-1 dA A^-1: gA = -Y^T G Y^T

    taylor_records = True

    def taylor(self, a):
        y, = self.outputs
        return _inverse_series(a, y._data)          # Y_k = -Y_0 sum_{j>=1} A_j Y_{k-j}


def _product(vector):
    """The product A X of arrays: X a stack of vectors (..., M) when `vector`, else of matrices."""
    if vector:
        return lambda a, x: np.matmul(a, x[..., None])[..., 0]
    return np.matmul


class Solve(Forwarder):
    """x with A x = b; b a stack of vectors (..., M) when `vector`, else of matrices (..., M, K)."""

    def __init__(self, vector):
        self.vector = vector

    def forward(self, a, b):
        with _named("solve"):
            if self.vector:
                return np.linalg.solve(a, b[..., None])[..., 0]
            return np.linalg.solve(a, b)

    save_for_backward = ("x0", "y")

    def backward(self, gy):
        a, b = self.inputs
        x, = self.outputs
        gb = Function(Solve(self.vector))(_swap_last(a), gy)      # A^T gb = g
        ga = None
        if a.requires_grad:
            if self.vector:                                       # ga = -gb x^T, an outer product
                ga = -(reshape(gb, gb.shape + (1,)) * reshape(x, x.shape[:-1] + (1, x.shape[-1])))
            else:
                ga = -matmul(gb, _swap_last(x))                   # ga = -gb x^T
            ga = _reduce(ga, a)
        return ga, _reduce(gb, b)

    taylor_records = True

    def taylor(self, a, b):
        x, = self.outputs
        product = _product(self.vector)
        y = [x._data]
        for k in range(1, max(len(a), len(b))):
            # A_0 X_k = B_k - sum_{j=1..k} A_j X_{k-j}
            rhs = b[k] if k < len(b) else np.zeros_like(y[0])
            total = _convolve(a, y, k, product)
            y.append(self.forward(a[0], rhs if total is None else rhs - total))
        return y


class Det(Forwarder):
    """The determinant of each matrix of the stack."""

    def forward(self, a):
        return get_array_module(a).linalg.det(a)

    save_for_backward = ("x0", "y")

    def backward(self, gy):
        a, = self.inputs
        y, = self.outputs
        return _scale_matrices(gy * y, _inverse_transposed(a, "det"))   # d det = det tr(A^-1 dA)

    taylor_records = True

    def taylor(self, a):
        y, = self.outputs
        rate = _logdet_rate(a, "det")               # y' = y h, h = tr(A^-1 A')
        d = [y._data]
        for k in range(1, len(a)):
            d.append(series.cauchy(d, rate, k - 1) / k)   # k y_k = sum_{j<k} y_j h_{k-1-j}
        return d


class SlogDet(Forwarder):
    """sign and log |det| of each matrix of the stack; the sign has no gradient."""

    def forward(self, a):
        sign, logabsdet = get_array_module(a).linalg.slogdet(a)
        return sign, logabsdet

    save_for_backward = ("x0",)

    def backward(self, gsign, glogabsdet):
        a, = self.inputs
        return _scale_matrices(glogabsdet, _inverse_transposed(a, "slogdet"))   # d log|det| = tr(A^-1 dA)

    taylor_records = True

    def taylor(self, a):
        sign, logabsdet = (getattr(y, "_data", None) for y in self.outputs)
        if sign is None or logabsdet is None:             # an output the caller dropped: again
            sign, logabsdet = np.linalg.slogdet(a[0])
        rate = _logdet_rate(a, "slogdet")           # (log|det|)' = tr(A^-1 A')
        zero = np.zeros_like(sign)
        return [sign] + [zero] * (len(a) - 1), [logabsdet] + [h / (m + 1) for m, h in enumerate(rate)]


class MatrixPower(Forwarder):
    """A^n for whole n >= 0 (a negative power is taken of A^-1)."""

    def __init__(self, n):
        self.n = n

    def forward(self, a):
        return get_array_module(a).linalg.matrix_power(a, self.n)

    save_for_backward = ("x0",)

    def backward(self, gy):
        a, = self.inputs
        n = self.n
        at = _swap_last(a)
        powers = [None, at]                          # (A^T)^k; k = 0, the identity, left out
        for _ in range(2, n):
            powers.append(matmul(powers[-1], at))
        total = gy * 0                               # n = 0: A^0 = I, a constant
        for k in range(n):                           # d A^n = sum_k A^k dA A^(n-1-k), so
            term = gy if powers[k] is None else matmul(powers[k], gy)    # gA = sum_k (A^T)^k G (A^T)^(n-1-k)
            total = total + (term if powers[n - 1 - k] is None else matmul(term, powers[n - 1 - k]))
        return total

    taylor_records = True

    def taylor(self, a):
        y, = self.outputs
        if self.n == 0:
            return [y._data] + [np.zeros_like(y._data)] * (len(a) - 1)
        return [y._data] + _power_series(a, self.n)[1:]   # repeated Cauchy products


def _lower_symmetric(a, xp):
    """The symmetric matrices NumPy's hermitian=True reads from the lower triangle of `a`."""
    lower = xp.tril(a)
    return lower + xp.swapaxes(xp.tril(a, -1), -1, -2)


class PInv(Forwarder):
    """The Moore-Penrose pseudo-inverse of each matrix; derivatives for full (constant) rank."""

    def __init__(self, rcond, hermitian, rtol):
        self.rcond, self.hermitian, self.rtol = rcond, hermitian, rtol

    def forward(self, a):
        more = {} if self.rtol is _UNSET else {"rtol": self.rtol}
        xp = get_array_module(a)
        with _named("pinv"):
            if xp is np:
                return np.linalg.pinv(a, rcond=self.rcond, hermitian=self.hermitian, **more)
            return xp.linalg.pinv(_lower_symmetric(a, xp) if self.hermitian else a, rcond=self._cutoff(a, xp))

    def _cutoff(self, a, xp):
        """NumPy 2's rcond for CuPy's pinv, which has neither rtol= nor hermitian=."""
        if self.rcond is not None:
            rcond = self.rcond
        elif self.rtol is _UNSET:
            rcond = 1e-15
        elif self.rtol is None:
            rcond = max(a.shape[-2:]) * np.finfo(a.dtype).eps
        else:
            rcond = self.rtol
        return float(rcond) if np.ndim(rcond) == 0 else xp.asarray(rcond)

    save_for_backward = ("x0", "y")

    def backward(self, gy):
        a, = self.inputs
        p, = self.outputs
        return _pinv_grad(a, p, gy)                  # Golub and Pereyra's dA^+

    taylor_records = True

    def taylor(self, a):
        p, = self.outputs
        return [p._data] + _pinv_series(a, "pinv")[1:]   # A^+ = (A^T A)^-1 A^T or A^T (A A^T)^-1


class Lstsq(Forwarder):
    """The least-squares solution x = A^+ b; rank and singular values saved as constants."""

    def __init__(self, rcond):
        self.rcond = rcond

    def forward(self, a, b):
        with _named("lstsq"):
            x, _, self.rank, self.s = get_array_module(a).linalg.lstsq(a, b, rcond=self.rcond)
        return x

    save_for_backward = ("x0", "x1")

    def backward(self, gx):
        a, b = self.inputs
        p = Function(PInv(None, False, _UNSET))(a)    # x = A^+ b
        gb = _reduce(matmul(_swap_last(p), gx), b)   # gb = A^+T gx
        ga = None
        if a.requires_grad:                          # dx = dA^+ b: A^+'s gradient for G = gx b^T
            if b.ndim == 1:
                g = reshape(gx, (gx.shape[0], 1)) * reshape(b, (1, b.shape[0]))
            else:
                g = matmul(gx, _swap_last(b))
            ga = _pinv_grad(a, p, g)
        return ga, gb

    taylor_records = True

    def taylor(self, a, b):
        x, = self.outputs
        return series.mul(_pinv_series(a, "lstsq"), b, np.matmul, y0=x._data)   # x = A^+ b


# ----- public functions --------------------------------------------------------------
def inv(a: ArrayLike) -> Variable:
    """The inverse of a matrix, or of each matrix of a stack.

    Parameters
    ----------
    a : ArrayLike
        Of shape (..., M, M).

    Returns
    -------
    Variable
        As np.linalg.inv(a), of shape (..., M, M).

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) Naming inv, if `a` is not a (stack of) square matrices, or a
        matrix is singular.
    TypeError
        If `a` is not a Variable, a numeric ndarray, a number or a list of numbers.
    """
    return Function(Inv())(_matrices(a, "inv"))


def solve(a: ArrayLike, b: ArrayLike) -> Variable:
    """The solution x of a x = b, with NumPy 2's rule for `b`.

    Parameters
    ----------
    a : ArrayLike
        Of shape (..., M, M).
    b : ArrayLike
        Of shape (M,): one vector, solved against every matrix of `a`; or (..., M, K):
        a stack of matrices whose batch axes broadcast with those of `a` (as NumPy 2:
        `b` is a vector only when it is 1-D).

    Returns
    -------
    Variable
        As np.linalg.solve(a, b): of shape (..., M) or (..., M, K).

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) Naming solve, if `a` is not a (stack of) square matrices or a
        matrix of it is singular.
    ValueError
        Naming solve, if the shape of `b` does not match `a`.
    TypeError
        If an operand is not a Variable, a numeric ndarray, a number or a list of numbers.
    """
    a = _matrices(a, "solve")
    b = as_variable(b, like=a, op="solve")
    m = a.shape[-1]
    vector = b.ndim == 1
    if b.ndim == 0 or b.shape[0 if vector else -2] != m:
        raise ValueError(
            f"solve: b of shape {b.shape} does not match a of shape {a.shape}: b must be of "
            f"shape ({m},) or (..., {m}, K)"
        )
    if not vector:
        try:
            np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        except ValueError:
            raise ValueError(
                f"solve: batch dimensions of a {a.shape} and b {b.shape} do not broadcast"
            ) from None
    return Function(Solve(vector))(a, b)


def det(a: ArrayLike) -> Variable:
    """The determinant of a matrix, or of each matrix of a stack.

    The gradient, det(A) A^-T, is refused at a singular matrix (where A^-1 does not
    exist) with a LinAlgError naming det.

    Parameters
    ----------
    a : ArrayLike
        Of shape (..., M, M).

    Returns
    -------
    Variable
        As np.linalg.det(a), of shape (...).

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) Naming det, if `a` is not a (stack of) square matrices.
    TypeError
        If `a` is not a Variable, a numeric ndarray, a number or a list of numbers.
    """
    return Function(Det())(_matrices(a, "det"))


class SlogdetResult(NamedTuple):
    """slogdet's result, as NumPy 2's: `.sign` and `.logabsdet`, also unpackable as a pair."""

    sign: Variable
    logabsdet: Variable


def slogdet(a: ArrayLike) -> SlogdetResult:
    """Sign and natural log of the absolute value of the determinant, as NumPy 2's namedtuple.

    `sign` has no gradient (it is piecewise constant); the gradient of `logabsdet` is
    A^-T, refused at a singular matrix with a LinAlgError naming slogdet.

    Parameters
    ----------
    a : ArrayLike
        Of shape (..., M, M).

    Returns
    -------
    SlogdetResult
        (sign, logabsdet), both Variables of shape (...), as np.linalg.slogdet(a); at a
        singular matrix sign is 0 and logabsdet -inf.

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) Naming slogdet, if `a` is not a (stack of) square matrices.
    TypeError
        If `a` is not a Variable, a numeric ndarray, a number or a list of numbers.
    """
    sign, logabsdet = Function(SlogDet())(_matrices(a, "slogdet"))
    return SlogdetResult(sign, logabsdet)


def matrix_power(a: ArrayLike, n: int) -> Variable:
    """A matrix (or each matrix of a stack) raised to the whole power `n`.

    n = 0 gives identities, a negative `n` the power -n of inv(a).  Backward costs about
    3 |n| matrix products.

    Parameters
    ----------
    a : ArrayLike
        Of shape (..., M, M).
    n : int
        The exponent.

    Returns
    -------
    Variable
        As np.linalg.matrix_power(a, n).

    Raises
    ------
    TypeError
        Naming matrix_power, if `n` is not an integer, or `a` is not a Variable, a numeric
        ndarray, a number or a list of numbers.
    numpy.linalg.LinAlgError
        (a ValueError) Naming matrix_power, if `a` is not a (stack of) square matrices;
        naming inv, for n < 0 and a singular matrix.
    """
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"matrix_power: the exponent must be an integer, got {n!r}") from None
    a = _matrices(a, "matrix_power")
    if n < 0:
        a, n = inv(a), -n
    return Function(MatrixPower(n))(a)


def pinv(
    a: ArrayLike, rcond: float | None = None, hermitian: bool = False, *, rtol: float | None = _UNSET
) -> Variable:
    """The Moore-Penrose pseudo-inverse of a matrix, or of each matrix of a stack.

    Derivatives (backward and Taylor) are those of a matrix of full rank; they hold
    wherever the rank is locally constant and no singular value falls under the cutoff.
    The Taylor rule needs full rank: (A^T A)^-1 A^T for tall A, A^T (A A^T)^-1 for wide.
    With hermitian=True NumPy reads only the lower triangle; the gradient is that of
    the pseudo-inverse at the symmetric `a` given.

    Parameters
    ----------
    a : ArrayLike
        Of shape (..., M, N).
    rcond : float or array, optional
        Cutoff for small singular values, relative to the largest, as in NumPy.
    hermitian : bool
        Whether `a` is symmetric (NumPy then uses an eigendecomposition).
    rtol : float or array, optional
        NumPy 2's name for the cutoff (only one of rcond and rtol may be given).

    Returns
    -------
    Variable
        As np.linalg.pinv(a, rcond, hermitian), of shape (..., N, M).

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) Naming pinv, if `a` is not at least 2-D (square with hermitian=True).
    TypeError
        If `a` is not a Variable, a numeric ndarray, a number or a list of numbers.
    """
    a = _matrices(a, "pinv", square=bool(hermitian))
    if rcond is not None and rtol is not _UNSET:
        raise TypeError("pinv: give rcond or rtol, not both")
    return Function(PInv(rcond, bool(hermitian), rtol))(a)


def lstsq(a: ArrayLike, b: ArrayLike, rcond: float | None = None) -> tuple:
    """The least-squares solution of a x = b, as np.linalg.lstsq: (x, residuals, rank, s).

    Gradients flow through `x` and `residuals` (each to any order) for `a` of full rank;
    `s` is a constant Variable (V.linalg.svd(a, compute_uv=False) gives differentiable
    singular values) and `rank` NumPy's integer.

    Parameters
    ----------
    a : ArrayLike
        Of shape (M, N).
    b : ArrayLike
        Of shape (M,) or (M, K).
    rcond : float, optional
        Cutoff for small singular values, relative to the largest; None: NumPy's
        default, machine precision times max(M, N).

    Returns
    -------
    x : Variable
        Of shape (N,) or (N, K).
    residuals : Variable
        The squared 2-norms of the columns of b - a x: shape (1,) for a 1-D `b`, (K,)
        otherwise, and (0,) (empty) when rank < N or M <= N, as NumPy.
    rank : int
        The rank of `a`.
    s : Variable
        The singular values of `a` (no gradient).

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) Naming lstsq, if `a` is not 2-D, `b` is not 1-D or 2-D, or their
        first dimensions differ.
    TypeError
        If an operand is not a Variable, a numeric ndarray, a number or a list of numbers,
        or `rcond` is not None or a real number.
    """
    a = as_variable(a, op="lstsq")
    b = as_variable(b, like=a, op="lstsq")
    if a.ndim != 2 or b.ndim not in (1, 2) or a.shape[0] != b.shape[0]:
        raise LinAlgError(
            f"lstsq: expected a of shape (M, N) and b of shape (M,) or (M, K), got {a.shape} "
            f"and {b.shape}"
        )
    if rcond is not None and (not isinstance(rcond, Real) or isinstance(rcond, bool)):
        raise TypeError(f"lstsq: rcond must be None or a real number, got {type(rcond).__name__} "
                        f"(the cutoff is a constant: give rcond=float(...))")
    f = Lstsq(rcond)
    x = Function(f)(a, b)
    m, n = a.shape
    rank = np.int32(int(f.rank))                          # NumPy's host integer (CuPy's is on the device)
    if rank == n and m > n:                               # sum of squares of each column of b - a x
        r = b - matmul(a, x)
        residuals = reduction.sum(r * r, axis=0, keepdims=b.ndim == 1)
    else:
        residuals = new_variable(get_array_module(x).zeros((0,), dtype=x.dtype))
    return x, residuals, rank, new_variable(f.s)


__all__ = ["inv", "solve", "det", "slogdet", "pinv", "lstsq", "matrix_power"]
