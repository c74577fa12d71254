"""Matrix decompositions under np.linalg's names: cholesky, eigh, eigvalsh, svd, qr.

Stacked matrices work as in NumPy (the last two axes are the matrix).  Each backward is the
published rule (M. Giles, "An extended collection of matrix derivative results", 2008;
J. Townsend, "Differentiating the singular value decomposition", 2016), written with gengrad
ops on the op's own outputs, so it differentiates again.  The Taylor rules are first order
only (V.jvp); higher orders raise NotImplementedError.  They record (`taylor_records`): in a
recording pass they read the output Variables and use gengrad ops only, so a gradient flows
back through the jvp (reverse over forward); on arrays they run on the arrays forward saved.

Conventions:

- One triangle.  `cholesky`, `eigh` and `eigvalsh` (and `svd(hermitian=True)`) read only one
  triangle of `a`, as NumPy does (the lower one, or the upper one with UPLO='U'); the other
  triangle does not change the result.  Their gradient is the exact gradient of that
  function: on the triangle read, G + G^T off the diagonal and G on it, where G is the
  usual symmetric-input rule; zero on the other triangle.  For a symmetric input built by
  the caller (A = B + B^T, X X^T, (A + A^T) / 2), the chain rule then gives the same
  gradient as the symmetrized convention of PyTorch and JAX.
- Repeated values.  Eigenvalues and singular values alone have a gradient at repeated
  values.  Eigenvectors and singular vectors have none there (they are not unique): their
  gradient, and their jvp, raise LinAlgError naming the op where two values differ by
  less than 100 n eps max|value| (also for a zero singular value when the extra columns of
  a non-square U or V take part).
- Sign.  Eigenvectors and singular vectors are NumPy's own (same LAPACK, same signs).
"""

import math
from typing import NamedTuple

import numpy as np

from ..backend import get_array_module
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike
from .joining import concat
from .matmul import _swap_last
from .piecewise import where


class EighResult(NamedTuple):
    """eigh's (eigenvalues, eigenvectors), as NumPy's EighResult."""

    eigenvalues: Variable
    eigenvectors: Variable


class SVDResult(NamedTuple):
    """svd's (U, S, Vh), as NumPy's SVDResult."""

    U: Variable
    S: Variable
    Vh: Variable


class QRResult(NamedTuple):
    """qr's (Q, R), as NumPy's QRResult."""

    Q: Variable
    R: Variable


# ----- helpers on Variables (backward) and ndarrays (Taylor rules) alike -------------
def _mT(x):
    """The last two axes swapped."""
    return _swap_last(x) if isinstance(x, Variable) else x.swapaxes(-1, -2)


def _diag(m, eye):
    """The diagonals of a stack of matrices: sum_j m_ij I_ij."""
    return (m * eye).sum(axis=-1)


def _gaps(w, eye):
    """F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it (the diagonal divides by 1)."""
    return 1 / (w[..., None, :] - w[..., :, None] + eye) * (1 - eye)   # (the Variable on the left)


def _from_triangle(p, strict, eye):
    """Gradient through reading one triangle: p + p^T on its strict part, p on the diagonal."""
    return (p + _mT(p)) * strict + p * eye


def _symmetric(d, strict, eye):
    """The symmetric matrix a direction `d` stands for when only one triangle is read."""
    part = d * strict
    return part + _mT(part) + d * eye


def _masks(n, dtype, xp, lower=True):
    """(I, the strictly lower (or upper) 0/1 mask) of n x n, in `dtype`."""
    ones = xp.ones((n, n), dtype=dtype)
    return xp.eye(n, dtype=dtype), (xp.tril(ones, -1) if lower else xp.triu(ones, 1))


def _used(g):
    """Whether an output's incoming gradient can be nonzero (not the zeros of an unused one)."""
    return g.requires_grad or bool(g.data.any())


def _alive(forwarder, again):
    """The op's outputs; if one was dropped, all of them recomputed as a graph by `again()`."""
    ys = forwarder.outputs
    return again() if any(y is None for y in ys) else ys


def _kept(forwarder):
    """Whether each output is still alive, as a Taylor rule sees them (Variables, or in a
    recording pass wrappers whose `_data` is the output Variable or None)."""
    return [getattr(y, "_data", None) is not None for y in forwarder.outputs]


def _recorded_outputs(forwarder, again):
    """A recording rule's outputs: the output Variables, all of them recomputed as a graph by
    `again()` if one was dropped (a coefficient's gradient needs how each output moves)."""
    if not all(_kept(forwarder)):
        return tuple(again())
    return tuple(y._data for y in forwarder.outputs)


def _inverse(a):
    """a^-1: recorded (_inv) for a Variable, the array module's for an array."""
    return _inv(a) if isinstance(a, Variable) else get_array_module(a).linalg.inv(a)


def _first_order(x, op):
    """The order of the series `x` (0 or 1); above 1, NotImplementedError naming `op`."""
    if len(x) > 2:
        raise NotImplementedError(
            f"{op}: Taylor mode of order {len(x) - 1} is not implemented for {op}; only V.jvp "
            f"(order 1) is supported for it (use nested V.grad for higher derivatives)"
        )
    return len(x) - 1


def _check_distinct(values, op, what, fix):
    """LinAlgError naming `op` if two of `values` (sorted along the last axis) nearly repeat."""
    n = values.shape[-1]
    if n < 2 or values.size == 0:
        return
    xp = get_array_module(values)
    scale = xp.abs(values).max(axis=-1, keepdims=True)
    close = xp.abs(xp.diff(values, axis=-1)) <= 100 * n * np.finfo(values.dtype).eps * scale
    if bool(close.any()):
        flat = int(xp.argmax(close.reshape(-1)))
        batch, i = divmod(flat, n - 1)
        pair = values.reshape(-1, n)[batch]
        index = tuple(int(j) for j in np.unravel_index(batch, values.shape[:-1]))
        where = f" of matrix {index}" if values.ndim > 1 else ""
        raise np.linalg.LinAlgError(
            f"{op}: the derivative of the {what} is undefined where values repeat: values "
            f"{pair[i].item()!r} and {pair[i + 1].item()!r}{where} (nearly) coincide, and "
            f"the {what} of a repeated value are not unique; {fix}"
        )


def _check_nonzero(values, op, what, fix):
    """LinAlgError naming `op` if a value in the last axis is (nearly) zero."""
    if values.size == 0:
        return
    xp = get_array_module(values)
    scale = xp.abs(values).max(axis=-1, keepdims=True)
    tiny = xp.abs(values) <= 100 * values.shape[-1] * np.finfo(values.dtype).eps * scale
    if bool(tiny.any()):
        raise np.linalg.LinAlgError(
            f"{op}: the derivative of the {what} is undefined for a rank-deficient matrix "
            f"(a zero singular value or pivot); {fix}"
        )


def _matrix(a, op, square=True):
    """`a` as a Variable holding a matrix or a stack of them, or an error naming `op`."""
    a = as_variable(a, op=op)
    if a.ndim < 2:
        raise np.linalg.LinAlgError(
            f"{op}: expected a matrix or a stack of matrices (at least 2-D), got shape {a.shape}"
        )
    if square and a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError(
            f"{op}: the last two dimensions must be square, got shape {a.shape}"
        )
    if a.dtype.kind not in "biuf" or (a.dtype.kind == "f" and a.dtype.itemsize < 4):
        raise TypeError(f"{op}: arrays of dtype {a.dtype} are not supported; use float32 or float64")
    return a


def _uplo(UPLO, op):
    """True for the lower triangle, False for the upper; ValueError for anything else."""
    side = UPLO.upper() if isinstance(UPLO, str) else UPLO
    if side not in ("L", "U"):
        raise ValueError(f"{op}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return side == "L"


_TIE_FIX = ("differentiate the eigenvalues alone (V.linalg.eigvalsh), or perturb the matrix "
            "so that its eigenvalues are distinct")


# ----- inverse (private: backward and rules of cholesky and qr) ------------------
class _Inverse(Forwarder):
    """a^-1 of a stack of invertible matrices (used inside the decompositions' backward)."""

    def forward(self, a):
        return get_array_module(a).linalg.inv(a)

    save_for_backward = ("y",)

    def backward(self, gy):
        a, = self.inputs
        y, = _alive(self, lambda: (_inv(a),))
        return -(_mT(y) @ gy @ _mT(y))                    # d a^-1 = -a^-1 da a^-1

    taylor_records = True

    def taylor(self, a):
        y = [self.outputs[0]._data if _kept(self)[0] else _inverse(a[0])]
        for k in range(1, len(a)):                        # a y = I: y_k = -y_0 sum_j a_j y_(k-j)
            y.append(-(y[0] @ sum(a[j] @ y[k - j] for j in range(1, min(k, len(a) - 1) + 1))))
        return y


def _inv(a):
    return Function(_Inverse())(a)


# ----- cholesky ---------------------------------------------------------------------
class Cholesky(Forwarder):
    """L with A = L L^T (L lower triangular), read from the lower triangle of A; L^T if upper."""

    def __init__(self, upper=False):
        self.upper = upper

    def forward(self, a):
        xp = get_array_module(a)
        try:
            lower = xp.linalg.cholesky(a)
        except np.linalg.LinAlgError as error:
            raise np.linalg.LinAlgError(
                f"cholesky: the matrix is not positive definite (NumPy: {error}); cholesky needs "
                f"a symmetric positive definite matrix (only its lower triangle is read)"
            ) from None
        self.eye, self.strict = _masks(a.shape[-1], lower.dtype, xp)
        return _mT(lower) if self.upper else lower

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = _alive(self, lambda: (cholesky(self.inputs[0], upper=self.upper),))
        L, gL = (_mT(y), _mT(gy)) if self.upper else (y, gy)
        Linv = _inv(L)
        phi = (_mT(L) @ gL) * (self.strict + 0.5 * self.eye)      # Phi(L^T gL): lower, half diagonal
        p = _mT(Linv) @ phi @ Linv                                 # L^-T Phi(L^T gL) L^-1
        return _from_triangle(p, self.strict, self.eye)            # A is read from its lower triangle

    taylor_records = True

    def taylor(self, a):
        y0 = self.outputs[0]._data                      # (recording: the output Variable)
        if _first_order(a, "cholesky") == 0:
            return [y0]
        L = _mT(y0) if self.upper else y0
        Linv = _inverse(L)
        x = Linv @ _symmetric(a[1], self.strict, self.eye) @ _mT(Linv)   # L^-1 dA L^-T
        dL = L @ (x * (self.strict + 0.5 * self.eye))                    # dL = L Phi(L^-1 dA L^-T)
        return [y0, _mT(dL) if self.upper else dL]


def cholesky(a: ArrayLike, /, *, upper: bool = False) -> Variable:
    """Cholesky factor of a symmetric positive definite matrix (or stack), as np.linalg.cholesky.

    Parameters
    ----------
    a : ArrayLike
        (..., M, M); only its lower triangle is read (for `upper` too, as in NumPy), and the
        gradient is that of this function: zero on the strict upper triangle.
    upper : bool
        Return the upper factor U = L^T (A = U^T U) instead of L (A = L L^T).

    Returns
    -------
    Variable
        (..., M, M), lower (or upper) triangular.

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) naming cholesky if `a` is not a (stack of) square matrices, or not
        positive definite.
    TypeError
        If `a` is not numeric, or of a dtype NumPy's linalg refuses (float16).
    """
    if not isinstance(upper, (bool, np.bool_)):
        raise TypeError(f"cholesky: upper must be True or False, got {upper!r}")
    return Function(Cholesky(bool(upper)))(_matrix(a, "cholesky"))


# ----- eigh, eigvalsh ------------------------------------------------------------
class Eigh(Forwarder):
    """(w, V) with A = V diag(w) V^T, ascending w, read from one triangle of A."""

    def __init__(self, lower=True):
        self.lower = lower

    def forward(self, a):
        xp = get_array_module(a)
        w, v = xp.linalg.eigh(a, UPLO="L" if self.lower else "U")
        self.eye, self.strict = _masks(a.shape[-1], w.dtype, xp, self.lower)
        self.w, self.v = w, v                                    # (for the Taylor rule)
        return w, v

    save_for_backward = ("outputs",)

    def backward(self, gw, gv):
        w, v = _alive(self, lambda: eigh(self.inputs[0], "L" if self.lower else "U"))
        inner = gw[..., :, None] * self.eye                          # diag(gw)
        if _used(gv):
            _check_distinct(self.w, "eigh", "eigenvectors", _TIE_FIX)
            inner = inner + _gaps(w, self.eye) * (_mT(v) @ gv)       # + F o (V^T gV)
        p = v @ inner @ _mT(v)                                       # V (diag(gw) + F o V^T gV) V^T
        return _from_triangle(p, self.strict, self.eye)              # A is read from one triangle

    taylor_records = True

    def taylor(self, a):
        if _first_order(a, "eigh") == 0:
            return [self.w], [self.v]
        w, v = self.w, self.v
        if isinstance(a[0], Variable):                                 # recording: the outputs' graph
            w, v = _recorded_outputs(self, lambda: eigh(a[0], "L" if self.lower else "U"))
        m = _mT(v) @ _symmetric(a[1], self.strict, self.eye) @ v       # V^T dA V
        dv = np.zeros_like(self.v)
        if _kept(self)[1]:
            _check_distinct(self.w, "eigh", "eigenvectors", _TIE_FIX)
            dv = v @ (_gaps(w, self.eye) * m)                          # dV = V (F o V^T dA V)
        dw = _diag(m, self.eye)                                        # dw = diag(V^T dA V)
        return [self.w, dw], [self.v, dv]


class Eigvalsh(Forwarder):
    """Ascending eigenvalues w of A (read from one triangle): dw = diag(V^T dA V)."""

    def __init__(self, lower=True):
        self.lower = lower

    def forward(self, a):
        xp = get_array_module(a)
        w = xp.linalg.eigvalsh(a, UPLO="L" if self.lower else "U")
        self.eye, self.strict = _masks(a.shape[-1], w.dtype, xp, self.lower)
        return w

    save_for_backward = ("x0",)

    def backward(self, gw):
        _, v = eigh(self.inputs[0], "L" if self.lower else "U")      # the eigenvectors, as a graph
        p = (v * gw[..., None, :]) @ _mT(v)                            # V diag(gw) V^T
        return _from_triangle(p, self.strict, self.eye)

    taylor_records = True

    def taylor(self, a):
        w = self.outputs[0].data
        if _first_order(a, "eigvalsh") == 0:
            return [w]
        _, v = np.linalg.eigh(a[0], UPLO="L" if self.lower else "U")   # (CuPy's, or recorded)
        m = _mT(v) @ _symmetric(a[1], self.strict, self.eye) @ v
        return [w, _diag(m, self.eye)]                                 # dw = diag(V^T dA V)


def eigh(a: ArrayLike, UPLO: str = "L") -> EighResult:  # noqa: N803 (NumPy's name)
    """Eigenvalues and eigenvectors of a symmetric matrix (or stack), as np.linalg.eigh.

    Parameters
    ----------
    a : ArrayLike
        (..., M, M); only the lower (UPLO='L') or upper ('U') triangle is read.  The gradient
        is that of this function: G + G^T off the diagonal of the triangle read, G on the
        diagonal (G the symmetric-input rule), zero on the other triangle.
    UPLO : {'L', 'U'}
        The triangle read.

    Returns
    -------
    EighResult
        (eigenvalues (..., M) ascending, eigenvectors (..., M, M) in columns), NumPy's signs;
        unpacks as a pair.

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) naming eigh if `a` is not a (stack of) square matrices, or, in backward
        or jvp, if the eigenvectors are differentiated where eigenvalues (nearly) repeat.
    ValueError
        If UPLO is not 'L' or 'U'.
    TypeError
        If `a` is not numeric, or of a dtype NumPy's linalg refuses (float16).
    """
    lower = _uplo(UPLO, "eigh")
    return EighResult(*Function(Eigh(lower))(_matrix(a, "eigh")))


def eigvalsh(a: ArrayLike, UPLO: str = "L") -> Variable:  # noqa: N803 (NumPy's name)
    """Eigenvalues of a symmetric matrix (or stack), ascending, as np.linalg.eigvalsh.

    Parameters
    ----------
    a : ArrayLike
        (..., M, M); only the lower (UPLO='L') or upper ('U') triangle is read (see eigh).
    UPLO : {'L', 'U'}
        The triangle read.

    Returns
    -------
    Variable
        (..., M).  Its gradient V diag(gw) V^T is defined at repeated eigenvalues too (its
        second derivative, which moves the eigenvectors, raises there as eigh's does).

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) naming eigvalsh if `a` is not a (stack of) square matrices.
    ValueError
        If UPLO is not 'L' or 'U'.
    TypeError
        If `a` is not numeric, or of a dtype NumPy's linalg refuses (float16).
    """
    lower = _uplo(UPLO, "eigvalsh")
    return Function(Eigvalsh(lower))(_matrix(a, "eigvalsh"))


# ----- svd ----------------------------------------------------------------------
_SVD_FIX = ("differentiate the singular values alone (svd(a, compute_uv=False)), or perturb the "
            "matrix so that its singular values are distinct and nonzero")
_EXTRA = ("svd: with full_matrices=True and a non-square matrix, the extra columns of U (rows "
          "of Vh) are any orthonormal completion and have no derivative; use "
          "full_matrices=False, or leave the extra columns out of the function differentiated")


def _svd(a, xp, hermitian, full_matrices=True, compute_uv=True):
    """xp.linalg.svd(a, ...); hermitian=True (which CuPy lacks) from eigh, as NumPy computes it."""
    if xp is np or not hermitian:
        options = {"hermitian": True} if hermitian else {}
        return xp.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv, **options)
    if not compute_uv:
        return xp.flip(xp.sort(xp.abs(xp.linalg.eigvalsh(a)), axis=-1), axis=-1)
    w, v = xp.linalg.eigh(a)
    order = xp.flip(xp.argsort(xp.abs(w), axis=-1), axis=-1)       # |w| descending
    w = xp.take_along_axis(w, order, axis=-1)
    u = xp.take_along_axis(v, order[..., None, :], axis=-1)
    return u, xp.abs(w), xp.swapaxes(u * xp.sign(w)[..., None, :], -1, -2)   # A = U |W| (U sign W)^T


class Svd(Forwarder):
    """(U, S, Vh) with A = U diag(S) Vh, S descending (A read from its lower triangle if hermitian)."""

    def __init__(self, full_matrices=True, hermitian=False):
        self.full, self.hermitian = full_matrices, hermitian

    def forward(self, a):
        xp = get_array_module(a)
        u, s, vh = _svd(a, xp, self.hermitian, full_matrices=self.full)
        m, n = a.shape[-2:]
        self.k = min(m, n)
        self.eye, self.strict = _masks(self.k, s.dtype, xp)
        if self.hermitian:
            self.square_eye, self.square_strict = _masks(n, s.dtype, xp)
        self.s, self.u, self.vh = s, u, vh                            # (for the Taylor rule)
        return u, s, vh

    def _reduced(self, u, gu, vh, gvh):
        """The first k columns of U (rows of Vh) and their gradients; the others must get none."""
        k = self.k
        if u.shape[-1] > k:
            if _used(gu[..., k:]):
                raise ValueError(_EXTRA)
            u, gu = u[..., :k], gu[..., :k]
        if vh.shape[-2] > k:
            if _used(gvh[..., k:, :]):
                raise ValueError(_EXTRA)
            vh, gvh = vh[..., :k, :], gvh[..., :k, :]
        return u, gu, vh, gvh

    save_for_backward = ("outputs",)

    def backward(self, gu, gs, gvh):
        a, = self.inputs
        u, s, vh = _alive(self, lambda: svd(a, self.full, True, self.hermitian))
        u, gu, vh, gvh = self._reduced(u, gu, vh, gvh)
        m, n = a.shape[-2:]
        use_u, use_v = _used(gu), _used(gvh)
        inner = gs[..., :, None] * self.eye                                   # diag(gS)
        if use_u or use_v:
            _check_distinct(self.s, "svd", "singular vectors", _SVD_FIX)
            if (use_u and m > self.k) or (use_v and n > self.k):
                _check_nonzero(self.s, "svd", "singular vectors", _SVD_FIX)
            f = _gaps(s * s, self.eye)                                        # F_ij = 1 / (s_j^2 - s_i^2)
        if use_u:
            j = _mT(u) @ gu
            inner = inner + f * (j - _mT(j)) * s[..., None, :]                # + (F o (U^T gU - gU^T U)) S
        if use_v:
            j = vh @ _mT(gvh)
            inner = inner + s[..., :, None] * (f * (j - _mT(j)))              # + S (F o (V^T gV - gV^T V))
        ga = u @ inner @ vh
        if use_u and m > self.k:
            ga = ga + ((gu - u @ (_mT(u) @ gu)) / s[..., None, :]) @ vh       # + (I - U U^T) gU S^-1 V^T
        if use_v and n > self.k:
            ga = ga + (u / s[..., None, :]) @ (gvh - (gvh @ _mT(vh)) @ vh)    # + U S^-1 gV^T (I - V V^T)
        if self.hermitian:
            return _from_triangle(ga, self.square_strict, self.square_eye)   # A read from its lower triangle
        return ga

    taylor_records = True

    def taylor(self, a):
        s, u, vh = self.s, self.u, self.vh
        if _first_order(a, "svd") == 0:
            return [u], [s], [vh]
        k = self.k
        da = _symmetric(a[1], self.square_strict, self.square_eye) if self.hermitian else a[1]
        kept = _kept(self)
        vectors = kept[0] or kept[2]
        if vectors and (u.shape[-1] > k or vh.shape[-2] > k):          # full_matrices, M != N
            raise ValueError(_EXTRA.replace("have no derivative", "have no derivative (jvp)"))
        if isinstance(a[0], Variable):                 # recording: the outputs' graph (S alone
            square = u.shape[-1] == vh.shape[-2]       # needs no extra columns: reduced then)
            u, s, vh = _recorded_outputs(
                self, lambda: svd(a[0], self.full and square, True, self.hermitian))
        u, vh = u[..., :k], vh[..., :k, :]
        p = _mT(u) @ da @ _mT(vh)                                              # dP = U^T dA V
        du, dvh = np.zeros_like(self.u), np.zeros_like(self.vh)
        if vectors:
            m, n = da.shape[-2:]
            _check_distinct(self.s, "svd", "singular vectors", _SVD_FIX)
            if m != n:
                _check_nonzero(self.s, "svd", "singular vectors", _SVD_FIX)
            f, ps = _gaps(s * s, self.eye), p * s[..., None, :]                # dP S
            du = u @ (f * (ps + _mT(ps)))                                      # dU = U (F o (dP S + S dP^T))
            sp = s[..., :, None] * p                                           # S dP
            dv = _mT(vh) @ (f * (sp + _mT(sp)))                                # dV = V (F o (S dP + dP^T S))
            if m > k:
                du = du + (da @ _mT(vh) - u @ p) / s[..., None, :]            # + (I - U U^T) dA V S^-1
            if n > k:
                dv = dv + (_mT(da) @ u - _mT(vh) @ _mT(p)) / s[..., None, :]  # + (I - V V^T) dA^T U S^-1
            dvh = _mT(dv)
        return [self.u, du], [self.s, _diag(p, self.eye)], [self.vh, dvh]      # dS = diag(U^T dA V)


class SvdValues(Forwarder):
    """Singular values of A, descending: dS = diag(U^T dA V)."""

    def __init__(self, hermitian=False):
        self.hermitian = hermitian

    def forward(self, a):
        xp = get_array_module(a)
        s = _svd(a, xp, self.hermitian, compute_uv=False)
        self.eye, self.strict = _masks(a.shape[-1], s.dtype, xp)
        self.k_eye = xp.eye(s.shape[-1], dtype=s.dtype)
        return s

    save_for_backward = ("x0",)

    def backward(self, gs):
        a, = self.inputs
        # A matrix holding inf or NaN has NaN singular values (as NumPy's svdvals gives), and
        # LAPACK refuses its vectors: it is replaced by one with distinct singular values, and
        # its gradient is NaN at every order; the other matrices of a stack get their own.
        xp = get_array_module(a.data)
        bad = ~xp.isfinite(a.data).all(axis=(-2, -1))[..., None, None]
        m, n = a.shape[-2:]
        distinct = xp.eye(m, n, dtype=a.dtype) * xp.arange(1, n + 1, dtype=a.dtype)
        u, _, vh = svd(where(bad, distinct, a), full_matrices=False, hermitian=self.hermitian)
        ga = where(bad, where(bad, a, 0.0) * math.nan, (u * gs[..., None, :]) @ vh)  # U diag(gS) V^T
        return _from_triangle(ga, self.strict, self.eye) if self.hermitian else ga

    taylor_records = True

    def taylor(self, a):
        s = self.outputs[0].data
        if _first_order(a, "svd") == 0:
            return [s]
        xp = np if isinstance(a[0], Variable) else get_array_module(s)   # (a Variable: recorded)
        u, _, vh = _svd(a[0], xp, self.hermitian, full_matrices=False)
        da = _symmetric(a[1], self.strict, self.eye) if self.hermitian else a[1]
        return [s, _diag(_mT(u) @ da @ _mT(vh), self.k_eye)]                 # dS = diag(U^T dA V)


def svd(
    a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
) -> SVDResult | Variable:
    """Singular value decomposition of a matrix (or stack), as np.linalg.svd.

    Parameters
    ----------
    a : ArrayLike
        (..., M, N).
    full_matrices : bool
        U (..., M, M) and Vh (..., N, N) if True, else (..., M, K) and (..., K, N),
        K = min(M, N).  For a non-square `a` the extra columns of U (rows of Vh) are not
        unique: backward through them (a nonzero gradient reaching them) raises; use False.
    compute_uv : bool
        If False, return only S.
    hermitian : bool
        Take `a` as symmetric and compute the SVD from its eigendecomposition, reading only
        its lower triangle (as NumPy does); the gradient is then zero on the strict upper one.

    Returns
    -------
    SVDResult or Variable
        (U, S, Vh) with S descending (NumPy's signs); S alone if not compute_uv.

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) naming svd if `a` is not at least 2-D (or not square with hermitian),
        or, in backward or jvp, if U or Vh is differentiated where singular values (nearly)
        repeat, or are zero while the extra columns of a non-square U or V take part.
    ValueError
        In backward or jvp, for the extra columns of full_matrices=True (see above).
    TypeError
        If `a` is not numeric, of a dtype NumPy's linalg refuses (float16), or a flag is
        not a bool.
    """
    flags = {"full_matrices": full_matrices, "compute_uv": compute_uv, "hermitian": hermitian}
    for name, flag in flags.items():
        if not isinstance(flag, (bool, np.bool_, int)):
            raise TypeError(f"svd: {name} must be True or False, got {flag!r}")
    a = _matrix(a, "svd", square=bool(hermitian))
    if not compute_uv:
        return Function(SvdValues(bool(hermitian)))(a)
    return SVDResult(*Function(Svd(bool(full_matrices), bool(hermitian)))(a))


# ----- qr -----------------------------------------------------------------------
_RANK_FIX = "the factors of a rank-deficient matrix are not unique; perturb the matrix"


def _qr_grad(q, r, gq, gr, upper, strict):
    """gA of A = Q R (M >= N, reduced): (gQ + Q copyu(M)) R^-T with M = gR R^T - Q^T gQ."""
    m = gr @ _mT(r) - _mT(q) @ gq
    n = m * upper + _mT(m) * strict                   # copyu(M): M's upper triangle mirrored below
    return (gq + q @ n) @ _mT(_inv(r))


def _qr_tangent(q, r, da, strict):
    """(dQ, dR) of A = Q R (M >= N, reduced) along dA: X = Q^T dA R^-1, C = tril(X) - tril(X)^T."""
    rinv = _inverse(r)
    x = _mT(q) @ da @ rinv
    c = x * strict - _mT(x * strict)                  # Q^T dQ, antisymmetric
    return da @ rinv - q @ (x - c), (x - c) @ r       # dQ = dA R^-1 - Q (X - C), dR = (X - C) R


class Qr(Forwarder):
    """(Q, R) with A = Q R, Q orthonormal columns, R upper triangular (NumPy's signs)."""

    def __init__(self, mode="reduced"):
        self.mode = mode

    def forward(self, a):
        xp = get_array_module(a)
        q, r = xp.linalg.qr(a, mode=self.mode)
        m, n = a.shape[-2:]
        self.k = min(m, n)
        self.eye, self.strict = _masks(self.k, r.dtype, xp)
        self.upper = 1 - self.strict
        self.q, self.r = q, r                         # (for the Taylor rule)
        return q, r

    save_for_backward = ("x0", "outputs")

    def backward(self, gq, gr):
        a, = self.inputs
        q, r = _alive(self, lambda: qr(a, self.mode))
        m, n, k = a.shape[-2], a.shape[-1], self.k
        if q.shape[-1] > k:                           # mode='complete', M > N: Q's extra columns
            if _used(gq[..., k:]):
                raise ValueError(
                    "qr: with mode='complete' and M > N, the extra columns of Q are any orthonormal "
                    "completion and have no derivative; use mode='reduced'"
                )
            q, gq, r, gr = q[..., :k], gq[..., :k], r[..., :k, :], gr[..., :k, :]   # R's rows below are 0
        self._check_rank()
        if m >= n:
            return _qr_grad(q, r, gq, gr, self.upper, self.strict)
        # M < N: A = [X | Y] with X = Q U square and R = [U | Q^T Y]
        y, gv = a[..., k:], gr[..., k:]
        gx = _qr_grad(q, r[..., :k], gq + y @ _mT(gv), gr[..., :k], self.upper, self.strict)
        return concat([gx, q @ gv], axis=-1)          # gY = Q gV

    def _check_rank(self):
        diag = (self.r[..., :self.k, :self.k] * self.eye).sum(axis=-1)
        _check_nonzero(diag, "qr", "factors", _RANK_FIX)

    taylor_records = True

    def taylor(self, a):
        q, r = self.q, self.r
        if _first_order(a, "qr") == 0:
            return [q], [r]
        m, n, k = q.shape[-2], r.shape[-1], self.k
        if q.shape[-1] > k:
            raise ValueError("qr: with mode='complete' and M > N, the extra columns of Q have no "
                             "derivative (jvp); use mode='reduced'")
        self._check_rank()
        if isinstance(a[0], Variable):                # recording: the outputs' graph (mode='r'
            q, r = _recorded_outputs(self, lambda: qr(a[0], self.mode))   # dropped Q)
        if m >= n:
            dq, dr = _qr_tangent(q, r, a[1], self.strict)
            return [self.q, dq], [self.r, dr]
        dq, du = _qr_tangent(q, r[..., :k], a[1][..., :k], self.strict)
        dv = _mT(dq) @ a[0][..., k:] + _mT(q) @ a[1][..., k:]            # V = Q^T Y
        return [self.q, dq], [self.r, np.concatenate([du, dv], axis=-1)]


def qr(a: ArrayLike, mode: str = "reduced") -> QRResult | Variable:
    """QR decomposition of a matrix (or stack), as np.linalg.qr.

    Parameters
    ----------
    a : ArrayLike
        (..., M, N) of full rank min(M, N) where derivatives are taken.
    mode : {'reduced', 'complete', 'r'}
        'reduced': Q (..., M, K), R (..., K, N), K = min(M, N); 'complete': Q (..., M, M),
        R (..., M, N) (for M > N the extra columns of Q are not unique: backward through
        them raises); 'r': R alone.  'raw' (LAPACK's Householder reflectors) is refused.

    Returns
    -------
    QRResult or Variable
        (Q, R) with NumPy's signs; R alone for mode='r'.

    Raises
    ------
    numpy.linalg.LinAlgError
        (a ValueError) naming qr if `a` is not at least 2-D, or, in backward or jvp, if it is
        rank-deficient.
    ValueError
        For an unknown mode, mode='raw', or backward through the extra columns of Q.
    TypeError
        If `a` is not numeric, or of a dtype NumPy's linalg refuses (float16).
    """
    if mode == "raw":
        raise ValueError("qr: mode='raw' (LAPACK's Householder reflectors) is not supported; "
                         "use 'reduced', 'complete' or 'r'")
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    a = _matrix(a, "qr", square=False)
    if mode == "r":
        return Function(Qr("reduced"))(a)[1]
    return QRResult(*Function(Qr(mode))(a))


__all__ = ["cholesky", "eigh", "eigvalsh", "svd", "qr"]
