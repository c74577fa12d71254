"""Eigenvalues and eigenvectors of a general (not symmetric) square matrix: eig and eigvals.

gengrad has no complex dtype, so these take the matrices whose eigenvalues are all real,
for which NumPy too returns real arrays; a matrix with a complex eigenvalue is refused,
naming it.  With A = V diag(w) V^-1 and the columns of V of unit length (NumPy's LAPACK
normalization, sign included), a change dA moves them by

    P = V^-1 dA V,   dw = diag(P),   dV = D - V diag(diag(V^T D)),   D = V (F o P),

F_ij = 1 / (w_j - w_i) off the diagonal and 0 on it; the second term of dV keeps the
columns of unit length.  The gradient is the adjoint of that map:

    gA = V^-T (diag(gw) + F o (V^T gV')) V^T,   gV' = gV - V diag(diag(V^T gV)),

written with gengrad's ops on the outputs, so every order differentiates.  Eigenvalues
alone (eigvals) need no F: gA = V^-T diag(gw) V^T, defined at repeated eigenvalues as long
as V is invertible (a defective matrix has no derivative there).

The check that the eigenvalues are real reads them on the host: on a GPU it is a sync, as
NumPy's own choice of a real or complex result is.
"""

from typing import NamedTuple

import numpy as np

from ..backend import get_array_module
from ..forwarder import Forwarder, Function, Variable
from ..types import ArrayLike
from .decompositions import (
    _alive,
    _diag,
    _first_order,
    _gaps,
    _inverse,
    _kept,
    _matrix,
    _mT,
    _recorded_outputs,
    _used,
)
from .inverses import solve


class EigResult(NamedTuple):
    """eig's (eigenvalues, eigenvectors), as NumPy's EigResult."""

    eigenvalues: Variable
    eigenvectors: Variable


_FIX = ("gengrad has no complex dtype; a symmetric matrix has real eigenvalues "
        "(V.linalg.eigh / V.linalg.eigvalsh), and V.linalg.svdvals gives the singular values")
_TIE_FIX = ("differentiate the eigenvalues alone (V.linalg.eigvals), or perturb the matrix so that "
            "its eigenvalues are distinct")


def _real_eig(a, op, vectors=True):
    """(w, V) of `a` (V None without `vectors`), real; ValueError naming `op` for complex ones."""
    xp = get_array_module(a)
    if not hasattr(xp.linalg, "eig"):
        raise TypeError(f"{op}: this array library ({xp.__name__}) has no general eigensolver; "
                        f"move the matrix to the CPU (x.to_cpu()) first")
    try:
        w, v = xp.linalg.eig(a) if vectors else (xp.linalg.eigvals(a), None)
    except RuntimeError as error:       # CuPy on a CUDA without cuSOLVER's geev
        raise TypeError(f"{op}: the device's eigensolver failed ({error}); move the matrix to "
                        f"the CPU (x.to_cpu()) first") from None
    if w.dtype.kind == "c":
        imaginary = xp.abs(w.imag)
        if bool((imaginary > 0).any()):
            worst = w.reshape(-1)[int(xp.argmax(imaginary.reshape(-1)))].item()
            raise ValueError(f"{op}: the matrix has complex eigenvalues (such as {worst:.6g}); {_FIX}")
        w = w.real
        v = None if v is None else v.real
    real = np.float32 if a.dtype == np.float32 else np.float64
    return w.astype(real, copy=False), (None if v is None else v.astype(real, copy=False))


def _check_apart(w, op):
    """LinAlgError naming `op` if two eigenvalues of a matrix (nearly) coincide."""
    n = w.shape[-1]
    if n < 2 or w.size == 0:
        return
    xp = get_array_module(w)
    gaps = xp.where(xp.eye(n, dtype=bool), xp.inf, xp.abs(w[..., :, None] - w[..., None, :]))
    scale = xp.abs(w).max(axis=-1)[..., None, None]
    if bool((gaps <= 100 * n * np.finfo(w.dtype).eps * scale).any()):
        raise np.linalg.LinAlgError(
            f"{op}: the derivative of the eigenvectors is undefined where eigenvalues repeat: "
            f"two eigenvalues (nearly) coincide, and the eigenvectors of a repeated eigenvalue "
            f"are not unique; {_TIE_FIX}"
        )


class Eig(Forwarder):
    """(w, V) with A = V diag(w) V^-1, columns of V of unit length (real spectra only)."""

    def forward(self, a):
        w, v = _real_eig(a, "eig")
        self.eye = get_array_module(a).eye(a.shape[-1], dtype=w.dtype)
        self.w, self.v = w, v                                            # (for the Taylor rule)
        return w, v

    save_for_backward = ("outputs",)

    def backward(self, gw, gv):
        w, v = _alive(self, lambda: eig(self.inputs[0]))
        inner = gw[..., :, None] * self.eye                               # diag(gw)
        if _used(gv):
            _check_apart(self.w, "eig")
            vt_gv = _mT(v) @ gv
            unit = vt_gv - (_mT(v) @ v) * _diag(vt_gv, self.eye)[..., None, :]   # V^T gV'
            inner = inner + _gaps(w, self.eye) * unit                     # + F o (V^T gV')
        return solve(_mT(v), inner @ _mT(v))                              # V^-T (...) V^T

    taylor_records = True

    def taylor(self, a):
        if _first_order(a, "eig") == 0:
            return [self.w], [self.v]
        w, v = self.w, self.v
        if isinstance(a[0], Variable):                                    # recording: the outputs' graph
            w, v = _recorded_outputs(self, lambda: eig(a[0]))
        p = _inverse(v) @ a[1] @ v                                        # V^-1 dA V
        dv = np.zeros_like(self.v)
        if _kept(self)[1]:
            _check_apart(self.w, "eig")
            d = v @ (_gaps(w, self.eye) * p)                              # V (F o P)
            dv = d - v * _diag(_mT(v) @ d, self.eye)[..., None, :]         # columns kept of unit length
        return [self.w, _diag(p, self.eye)], [self.v, dv]


class Eigvals(Forwarder):
    """Eigenvalues w of A (real spectra only): dw = diag(V^-1 dA V)."""

    def forward(self, a):
        w, _ = _real_eig(a, "eigvals", vectors=False)
        self.eye = get_array_module(a).eye(a.shape[-1], dtype=w.dtype)
        return w

    save_for_backward = ("x0",)

    def backward(self, gw):
        _, v = eig(self.inputs[0])                                        # the eigenvectors, as a graph
        return solve(_mT(v), gw[..., :, None] * _mT(v))                   # V^-T diag(gw) V^T

    taylor_records = True

    def taylor(self, a):
        w = self.outputs[0].data
        if _first_order(a, "eigvals") == 0:
            return [w]
        v = eig(a[0])[1] if isinstance(a[0], Variable) else _real_eig(a[0], "eigvals")[1]
        return [w, _diag(_inverse(v) @ a[1] @ v, self.eye)]              # dw = diag(V^-1 dA V)


def eig(a: ArrayLike) -> EigResult:
    """Eigenvalues and unit eigenvectors of a square matrix (or stack) with real eigenvalues,
    as np.linalg.eig.

    Parameters
    ----------
    a : ArrayLike
        (..., M, M), any real square matrix whose eigenvalues are all real (a symmetric one:
        V.linalg.eigh is faster and orders them).

    Returns
    -------
    EigResult
        (eigenvalues (..., M), in LAPACK's order, not sorted; eigenvectors (..., M, M), the
        columns of unit length with NumPy's signs); unpacks as a pair.  Their gradient is
        defined where the eigenvalues are distinct.

    Raises
    ------
    ValueError
        Naming eig if an eigenvalue is complex (NumPy would return complex arrays), or (a
        LinAlgError) if `a` is not a (stack of) square matrices, or, in backward or jvp, if
        the eigenvectors are differentiated where eigenvalues (nearly) repeat.
    TypeError
        If `a` is not numeric, of a dtype NumPy's linalg refuses (float16), or on a device
        whose array library has no general eigensolver.
    """
    return EigResult(*Function(Eig())(_matrix(a, "eig")))


def eigvals(a: ArrayLike) -> Variable:
    """Eigenvalues of a square matrix (or stack) with real eigenvalues, as np.linalg.eigvals.

    Parameters
    ----------
    a : ArrayLike
        (..., M, M), real, with real eigenvalues.

    Returns
    -------
    Variable
        (..., M), in LAPACK's order.  Its gradient V^-T diag(gw) V^T is defined at repeated
        eigenvalues too, as long as the eigenvectors span the space.  A defective matrix, such
        as [[1, 1], [0, 1]], has eigenvalues without a derivative (they move as the square
        root of a change): its eigenvector matrix is (nearly) singular, and the gradient
        comes out huge (about 1/eps) unless their sum alone (the trace) is differentiated.

    Raises
    ------
    ValueError
        Naming eigvals if an eigenvalue is complex, or (a LinAlgError) if `a` is not a
        (stack of) square matrices.
    TypeError
        If `a` is not numeric, of a dtype NumPy's linalg refuses (float16), or on a device
        whose array library has no general eigensolver.
    """
    return Function(Eigvals())(_matrix(a, "eigvals"))


__all__ = ["eig", "eigvals"]
