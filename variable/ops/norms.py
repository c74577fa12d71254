"""Vector and matrix norms: linalg.norm, with np.linalg.norm's orders and axes.

`norm` dispatches on `ord` and `axis` as NumPy does.  The Euclidean norm (vector ord
None or 2, matrix 'fro', and a whole array flattened) is its own op, `Euclid`: its
subgradient where the norm is 0 is 0, as PyTorch documents, at every derivative order
(never NaN).  ord=0, a count of the nonzero entries, is `CountNonzero`, of gradient 0.
The other orders are built from sum, max, min, abs and pow, and 'nuc', 2 and -2 from
the singular values of linalg.svd, whose own rules give derivatives and Taylor series of
every order (max and min share the gradient among tied entries, abs has gradient 0 at 0).
"""

import numpy as np

from .. import series
from ..axes import kept_shape
from ..forwarder import Forwarder, Function, Variable, as_variable, new_variable
from ..types import ArrayLike
from .elementwise import pow
from .piecewise import abs
from .reduction import _reduced_shape, _spread, max, min, sum
from .shape import reshape, transpose

_INF = float("inf")


class Euclid(Forwarder):
    """sqrt(sum(x^2)) over axes; the gradient where the norm is 0 is 0."""

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        y = np.sqrt((x * x).sum(axis=self.axes, keepdims=True))
        self.dead = (y == 0).astype(x.dtype)          # norms of 0: constant masks, kept dims
        self.live = 1 - self.dead
        return y if self.keepdims else y.reshape(_reduced_shape(x.shape, self.axes))

    save_for_backward = ("x0", "y")

    def backward(self, gy):
        x, = self.inputs
        y, = self.outputs
        kept = kept_shape(x.shape, self.axes)
        # d ||x|| = x / ||x||, and 0 where ||x|| = 0 (the 1/||x|| there is a constant 0)
        return reshape(gy, kept) * self.live / (reshape(y, kept) + self.dead) * x

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        y0 = y._data
        live = self.live.reshape(y0.shape)
        squares = series.map_linear(
            series.square(x), lambda c: c.sum(axis=self.axes, keepdims=self.keepdims)
        )
        # y^2 = sum x^2, as series.sqrt; where ||x_0|| = 0 the norm is not smooth: 0, as backward
        root = series.sqrt(squares, y0 + self.dead.reshape(y0.shape))
        return [y0] + [c * live for c in root[1:]]


class CountNonzero(Forwarder):
    """The number of nonzero entries over axes (norm's ord=0), in x's dtype; gradient 0."""

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        return (x != 0).astype(x.dtype).sum(axis=self.axes, keepdims=self.keepdims)

    save_for_backward = ()

    def backward(self, gy):
        x, = self.inputs
        return _spread(gy, x, self.axes) * 0           # piecewise constant: d = 0

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + [np.zeros_like(y._data)] * (len(x) - 1)


def _axes(axis, ndim, shape):
    """np.linalg.norm's `axis` as a tuple of one or two non-negative axes, in the order given."""
    if axis is None:
        return None
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        axis = (axis,)
    if not isinstance(axis, (tuple, list)) or not all(
        isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in axis
    ):
        raise TypeError(f"norm: axis must be None, an int or a tuple of ints, got {axis!r}")
    if len(axis) not in (1, 2):
        raise ValueError(
            f"norm: axis must name one axis (a vector norm) or two (a matrix norm), got {axis!r}"
        )
    for a in axis:
        if not -ndim <= a < ndim:
            raise ValueError(
                f"norm: axis {a} is out of range for an input of shape {shape} "
                f"(valid: {-ndim} to {ndim - 1})"
            )
    axes = tuple(int(a) % ndim for a in axis)
    if len(axes) == 2 and axes[0] == axes[1]:
        raise ValueError(f"norm: duplicate axes {axis!r}: a matrix norm needs two different axes")
    return axes


def _extreme(y, axis, keepdims, largest, ord, x):
    """max (`largest`) or min over `axis` of the nonnegative `y`, as NumPy's norm takes them:
    over an empty axis the max is 0 (NumPy's initial=0) and the min is refused, by name."""
    if y.shape[axis] == 0:
        if largest:
            return sum(y, axis, keepdims)              # an empty sum: 0
        raise ValueError(
            f"norm: ord={ord!r} takes a minimum over an empty axis (input of shape {x.shape})"
        )
    return (max if largest else min)(y, axis, keepdims)


def _vector_norm(x, ord, axis, keepdims):
    """A vector norm over the one axis `axis`."""
    if isinstance(ord, str):
        raise ValueError(f"norm: invalid order {ord!r} for vectors (use a number, inf or -inf)")
    axes = (axis,)
    if ord is None or ord == 2:
        return Function(Euclid(axes, keepdims))(x)
    if ord == _INF or ord == -_INF:
        return _extreme(abs(x), axis, keepdims, ord > 0, ord, x)
    if ord == 0:
        return Function(CountNonzero(axes, keepdims))(x)
    if ord == 1:
        return sum(abs(x), axis, keepdims)
    p = float(ord)
    return pow(sum(pow(abs(x), p), axis, keepdims), 1 / p)    # (sum |x|^p)^(1/p)


def _singular_values(x, row, col):
    """The singular values of the matrices in axes (row, col) of x, along a last axis."""
    from .decompositions import svd
    rest = [a for a in range(x.ndim) if a not in (row, col)]
    try:
        return svd(transpose(x, rest + [row, col]), compute_uv=False)
    except ValueError as error:                        # LAPACK's "SVD did not converge" (NaN)
        raise ValueError(f"norm: the singular values failed: {error}") from error


def _matrix_norm(x, ord, row, col, keepdims):
    """A matrix norm over the axes (row, col)."""
    if ord is None or ord == "fro":
        return Function(Euclid(tuple(sorted((row, col))), keepdims))(x)
    if ord == "nuc" or ord == 2 or ord == -2:
        s = _singular_values(x, row, col)
        if ord == "nuc":
            y = sum(s, -1)
        else:
            y = _extreme(s, -1, False, ord == 2, ord, x)
    elif ord == 1 or ord == -1 or ord == _INF or ord == -_INF:
        inner, outer = (row, col) if ord in (1, -1) else (col, row)    # sum along, then pick
        outer -= outer > inner                                         # (axis `inner` is gone)
        y = _extreme(sum(abs(x), inner), outer, False, ord > 0, ord, x)
    else:
        raise ValueError(
            f"norm: invalid order {ord!r} for matrices (use None, 'fro', 'nuc', 1, -1, 2, -2, "
            f"inf or -inf)"
        )
    if keepdims:
        y = reshape(y, tuple(1 if i in (row, col) else n for i, n in enumerate(x.shape)))
    return y


def norm(x: ArrayLike, ord: float | str | None = None, axis: int | tuple[int, ...] | None = None,
         keepdims: bool = False) -> Variable:
    """A vector or matrix norm, as np.linalg.norm.

    Vector orders (one axis, or a 1-D `x` with axis=None): None or 2 (Euclidean), 1, inf
    (max |x|), -inf (min |x|), 0 (the count of nonzero entries, gradient 0) and any
    other p, (sum |x|^p)^(1/p).  Matrix orders (two axes, or a 2-D `x` with axis=None):
    None or 'fro' (Frobenius), 1 and -1 (max and min column sum of |x|), inf and -inf
    (max and min row sum), 'nuc' (sum of singular values), 2 and -2 (largest and
    smallest singular value).  ord=None with axis=None is the 2-norm of `x` flattened,
    of any dimension.  At x = 0 the Euclidean and Frobenius norms have gradient 0 (to
    every order), as in PyTorch.

    Parameters
    ----------
    x : ArrayLike
        An integer `x` is taken as float64, as NumPy does.
    ord : {None, int, float, inf, -inf, 'fro', 'nuc'}
        The order, as above.
    axis : None, int or tuple of two ints
        The axis of vector norms, or the (row, col) axes of matrix norms; negatives allowed.
    keepdims : bool
        Keep the normed axes with size 1.

    Returns
    -------
    Variable
        As np.linalg.norm(x, ord, axis, keepdims), in the dtype of `x`.

    Raises
    ------
    TypeError
        Naming norm, if `axis` is not None, an int or a tuple of ints, or `x` is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        Naming norm, if an axis is out of range or repeated, `axis` names more than two
        axes, axis=None with an `ord` meets an input that is neither 1-D nor 2-D, `ord`
        is not an order of vectors (or matrices), or a max or min would be taken over an
        empty axis.
    """
    x = as_variable(x, op="norm")
    if x.dtype.kind not in "fc":
        x = new_variable(x.data.astype(np.float64))
    axes = _axes(axis, x.ndim, x.shape)
    if axes is None:
        if ord is None:                                # the 2-norm of everything
            return Function(Euclid(None, bool(keepdims)))(x)
        if x.ndim not in (1, 2):
            raise ValueError(
                f"norm: with axis=None and ord={ord!r} the input must be 1-D or 2-D, got shape "
                f"{x.shape}; give axis, or ord=None for the norm of everything"
            )
        axes = tuple(range(x.ndim))
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], bool(keepdims))
    return _matrix_norm(x, ord, axes[0], axes[1], bool(keepdims))


__all__ = ["norm"]
