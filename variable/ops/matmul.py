"""Matrix products: matmul with NumPy semantics, and transpose_matmul."""

import numpy as np

from .. import memory, series
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike
from .shape import _sum_to_array, reshape, sum_to, transpose

_ROWS = 128                     # rows per product of a tall one split up (see `product`)


def _avx512() -> bool:
    """Whether NumPy found AVX-512 on this CPU (False where its private table is gone)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:
        return False
    return bool(__cpu_features__.get("AVX512F"))


_STACKED = _avx512()
"""Whether tall products are split: on CPUs with AVX-512, where OpenBLAS picks its SkylakeX
kernels and their small-matrix path."""


def product(a, b):
    """a @ b for 2-D arrays, tall ones split into 128-row blocks on a CPU with AVX-512.

    Two shapes are split, for NumPy arrays of float64 or float32 with m >= 8192 rows, k <= 64
    and 8 <= n <= 64: a tall `a` (m, k) times a small `b` (k, n), as a stack of 128-row
    products; and `a` = x^T for a tall x (m, k) times a tall `b` (m, n) (a weight's gradient),
    as a sum of the blocks' products, 32 blocks at a time.  OpenBLAS's SkylakeX kernels run
    the blocks on their small-matrix path, with no packing: 0.43-0.8x the time of the one
    product (one thread, `python -m benchmarks.matmul_rows`); its Haswell, Zen and Prescott
    kernels gain nothing (0.67-1.23x), so elsewhere this is `a @ b`.  A forward Laplacian's
    first-order coefficients, directions x points rows by a layer's features, are this shape.
    A result of 128 KiB or more (memory.SMALLEST) is made in gengrad's cache of large arrays
    (variable/memory.py).
    """
    if not (type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype
            and a.dtype in (np.float64, np.float32)):
        return a @ b
    m, k = a.shape
    n = b.shape[1]
    if _STACKED and 8192 <= m and k <= 64 and 8 <= n <= 64 and a.flags.c_contiguous:
        out = memory.empty((m, n), a.dtype)
        product_into(a, np.ascontiguousarray(b), out)
        return out
    if (_STACKED and 8192 <= k and m <= 64 and 8 <= n <= 64 and a.T.flags.c_contiguous
            and b.flags.c_contiguous):
        return _summed(a.T, b)
    if m * n * a.itemsize < memory.SMALLEST:
        return a @ b
    return np.matmul(a, b, out=memory.empty((m, n), a.dtype))


def product_into(a, b, out):
    """out = a @ b for C-ordered NumPy arrays a (m, k), b (k, n) and out (m, n), in 128-row
    blocks where `product` splits a tall one (AVX-512, k <= 64, 8 <= n <= 64), at any m."""
    m, k = a.shape
    n = b.shape[1]
    rows = m - m % _ROWS
    if not (_STACKED and rows and k <= 64 and 8 <= n <= 64):
        np.matmul(a, b, out=out)
        return
    np.matmul(a[:rows].reshape(-1, _ROWS, k), b, out=out[:rows].reshape(-1, _ROWS, n))
    if rows < m:
        np.matmul(a[rows:], b, out=out[rows:])


_GROUP = 32                     # blocks per stacked product of `_summed`


def _summed(x, b):
    """x^T b for tall C-ordered x (r, m) and b (r, n): the 128-row blocks' products, summed."""
    r, m = x.shape
    n = b.shape[1]
    rows = r - r % _ROWS
    xs, bs = x[:rows].reshape(-1, _ROWS, m), b[:rows].reshape(-1, _ROWS, n)
    total = x[rows:].T @ b[rows:]
    scratch = memory.empty((min(_GROUP, len(xs)), m, n), x.dtype)
    for i in range(0, len(xs), _GROUP):
        block = xs[i:i + _GROUP]
        part = scratch[:len(block)]
        np.matmul(block.transpose(0, 2, 1), bs[i:i + _GROUP], out=part)
        total += part.sum(axis=0)
    return total


class MatMul2D(Forwarder):
    """op(a) @ op(b) for 2-D a and b, op transposing when asked (no copy is made)."""

    def __init__(self, transpose_a=False, transpose_b=False):
        self.ta, self.tb = transpose_a, transpose_b

    def forward(self, a, b):
        return _mm_arrays(a, b, self.ta, self.tb)

    save_for_backward = {"x0": ("x1",), "x1": ("x0",)}   # ga reads b, gb reads a

    def backward(self, gy):
        a, b = self.inputs
        ga = gb = None
        ta, tb = self.ta, self.tb
        if a.requires_grad:
            if not ta:
                ga = _mm(gy, b, False, not tb)          # gy op(b)^T
            else:
                ga = _mm(b, gy, tb, True)               # (gy op(b)^T)^T = op(b) gy^T
        if b.requires_grad:
            if not tb:
                gb = _mm(a, gy, not ta, False)          # op(a)^T gy
            else:
                gb = _mm(gy, a, True, ta)               # (op(a)^T gy)^T = gy^T op(a)
        return ga, gb

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        a, b = self.inputs
        ta, tb = self.ta, self.tb
        ga = gb = None
        if a.requires_grad:
            ga = _mm_arrays(gy, b._data, False, not tb) if not ta else _mm_arrays(b._data, gy, tb, True)
        if b.requires_grad:
            gb = _mm_arrays(a._data, gy, not ta, False) if not tb else _mm_arrays(gy, a._data, True, ta)
        return ga, gb

    taylor_records = True
    _taylor_linear = "bilinear"

    def taylor(self, a, b):
        y, = self.outputs                               # bilinear: Cauchy product of op(a) @ op(b)
        return series.mul(a, b, product=self.forward, y0=y._data)


def _mm_arrays(a, b, transpose_a, transpose_b):
    """op(a) @ op(b) on 2-D arrays (MatMul2D's forward)."""
    return product(a.T if transpose_a else a, b.T if transpose_b else b)


def _mm(a, b, transpose_a, transpose_b):
    return Function(MatMul2D(transpose_a, transpose_b))(a, b)


def _matmul_arrays(a, b):
    """`matmul` on arrays: MatMul2D's product for two matrices, else np.matmul."""
    return product(a, b) if a.ndim == 2 and b.ndim == 2 else np.matmul(a, b)


def _swap_last(x):
    """Transpose the last two axes."""
    axes = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return transpose(x, axes)


class MatMul(Forwarder):
    """np.matmul: 1-D operands, stacks of matrices and broadcast batch dimensions."""

    def forward(self, a, b):
        return np.matmul(a, b)

    save_for_backward = {"x0": ("x1",), "x1": ("x0",)}   # ga reads b, gb reads a

    def backward(self, gy):
        a, b = self.inputs
        # promote 1-D operands to matrices, as matmul does, then undo it at the end (each
        # operand is reshaped only for the other's gradient: only then is its array kept)
        shape_a = a.shape if a.ndim > 1 else (1, a.shape[0])
        shape_b = b.shape if b.ndim > 1 else (b.shape[0], 1)
        batch = np.broadcast_shapes(shape_a[:-2], shape_b[:-2])
        gy2 = reshape(gy, batch + (shape_a[-2], shape_b[-1]))
        ga = gb = None
        if a.requires_grad:
            b2 = b if b.ndim > 1 else reshape(b, shape_b)
            ga = reshape(sum_to(matmul(gy2, _swap_last(b2)), shape_a), a.shape)   # gy b^T
        if b.requires_grad:
            a2 = a if a.ndim > 1 else reshape(a, shape_a)
            gb = reshape(sum_to(matmul(_swap_last(a2), gy2), shape_b), b.shape)   # a^T gy
        return ga, gb

    def _backward_arrays(self, gy):
        a, b = self.inputs
        sa, sb = a._data.shape, b._data.shape
        shape_a = sa if len(sa) > 1 else (1, sa[0])
        shape_b = sb if len(sb) > 1 else (sb[0], 1)
        batch = np.broadcast_shapes(shape_a[:-2], shape_b[:-2])
        gy2 = gy.reshape(batch + (shape_a[-2], shape_b[-1]))
        ga = gb = None
        if a.requires_grad:
            b2 = b._data.reshape(shape_b)
            ga = _sum_to_array(_matmul_arrays(gy2, np.swapaxes(b2, -1, -2)), shape_a).reshape(sa)
        if b.requires_grad:
            a2 = a._data.reshape(shape_a)
            gb = _sum_to_array(_matmul_arrays(np.swapaxes(a2, -1, -2), gy2), shape_b).reshape(sb)
        return ga, gb

    taylor_records = True
    _taylor_linear = "bilinear"

    def taylor(self, a, b):
        y, = self.outputs
        return series.mul(a, b, product=np.matmul, y0=y._data)   # bilinear: Cauchy product


def _check_batch(sa, sb, op):
    """Raise a ValueError naming `op` unless the batch axes of `sa` and `sb` broadcast."""
    if len(sa) > 2 or len(sb) > 2:
        try:
            np.broadcast_shapes(sa[:-2], sb[:-2])
        except ValueError:
            raise ValueError(
                f"{op}: batch dimensions of shapes {sa} and {sb} do not broadcast"
            ) from None


def _check_aligned(sa, sb, op):
    """Raise a ValueError naming `op` unless shapes `sa` @ `sb` is a valid matmul."""
    if not sa or not sb:
        raise ValueError(f"{op}: operands must have at least one dimension, got shapes {sa} and {sb}")
    k_a = sa[-1]
    k_b = sb[-2] if len(sb) > 1 else sb[0]
    if k_a != k_b:
        raise ValueError(
            f"{op}: shapes {sa} and {sb} are not aligned: {k_a} (last axis of the first) "
            f"!= {k_b} ({'second-to-last' if len(sb) > 1 else 'only'} axis of the second)"
        )
    _check_batch(sa, sb, op)


def matmul(a: ArrayLike, b: ArrayLike) -> Variable:
    """Matrix product with NumPy's semantics (1-D, batched and broadcast operands).

    Parameters
    ----------
    a, b : ArrayLike
        At least 1-D. A 1-D `a` is a row vector, a 1-D `b` a column vector (the added
        axis is removed from the result); leading axes are batch axes and broadcast.

    Returns
    -------
    Variable
        As np.matmul(a, b).

    Raises
    ------
    TypeError
        If an operand is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If the contracted dimensions differ, an operand is 0-d, or batch dimensions do
        not broadcast.
    """
    a, b = as_variable(a, like=b, op="matmul"), as_variable(b, like=a, op="matmul")
    sa, sb = a.shape, b.shape
    _check_aligned(sa, sb, "matmul")
    if len(sa) == 2 and len(sb) == 2:
        return Function(MatMul2D())(a, b)
    return Function(MatMul())(a, b)


def transpose_matmul(a: ArrayLike, b: ArrayLike) -> Variable:
    """a^T @ b for 2-D a and b, without a separate transpose in the graph.

    For operands of more dimensions the last two axes of `a` are swapped.

    Parameters
    ----------
    a : ArrayLike
        At least 2-D.
    b : ArrayLike
        At least 1-D.

    Returns
    -------
    Variable
        As np.matmul(np.swapaxes(a, -1, -2), b).

    Raises
    ------
    TypeError
        If an operand is not a Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If `a` is not at least 2-D or `b` is 0-d, the contracted dimensions differ, or
        batch dimensions do not broadcast.
    """
    a = as_variable(a, like=b, op="transpose_matmul")
    b = as_variable(b, like=a, op="transpose_matmul")
    sa, sb = a.shape, b.shape
    if len(sa) < 2 or not sb:
        raise ValueError(
            f"transpose_matmul: the first operand must be at least 2-D and the second at least "
            f"1-D, got shapes {sa} and {sb}"
        )
    if sa[-2] != (sb[-2] if len(sb) > 1 else sb[0]):
        raise ValueError(
            f"transpose_matmul: shapes {sa} and {sb} are not aligned: a^T @ b contracts axis -2 "
            f"of the first ({sa[-2]}) with the {'second-to-last' if len(sb) > 1 else 'only'} axis "
            f"of the second"
        )
    _check_batch(sa, sb, "transpose_matmul")
    if len(sa) == 2 and len(sb) == 2:
        return Function(MatMul2D(transpose_a=True))(a, b)
    return matmul(_swap_last(a), b)
