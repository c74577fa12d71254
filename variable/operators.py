"""Differential operators of functions of points: Laplacian, divergence, their estimators.

A physics-informed network fits u(x) for points x in R^d by penalising a PDE residual such
as -Laplacian(u) - f, and trains on its gradient with respect to the weights.  These
operators take `f` mapping each row of `x` (shape (..., d)) to a value, and compute, for
every row at once, from second-order Taylor mode (V.taylor) along d directions:

    laplacian(f, x)                    sum_i d^2 f / dx_i^2
    laplacian(f, x, weights=c)         sum_i c_i d^2 f / dx_i^2  (an anisotropic operator)
    laplacian(f, x, samples=k)         an unbiased estimate from k random directions
    divergence(f, x)                   sum_i d f_i / dx_i  (f maps rows to vectors in R^d)

How: the rows of `x` are repeated once per direction, and one Taylor pass of order 2 (1
for the divergence) runs f on all of them together along the directions e_1 .. e_d (or
random ones), so the work is a few large array operations per op rather than d passes.
`f` must therefore take a batch of rows and treat them independently (as a network on a
batch of points does; batch normalisation, or a mean over the batch, would mix them).

Trainable: where f uses Variables that require grad (a model's weights) and every op on
the way has a recording rule (`Forwarder.taylor_records`), the result has a graph to them,
so `loss.backward()` gives the exact gradient of a loss built from it.  Otherwise the pass
runs on arrays and a gradient through the result is refused, naming the op.
"""

from collections.abc import Callable

import numpy as np

from . import backend
from .forward_mode import taylor
from .forwarder import Variable
from .ops.reduction import mean, sum
from .ops.shape import broadcast_to, reshape
from .types import ArrayLike

_DISTRIBUTIONS = ("rademacher", "gaussian")


def _points(x, op):
    """`x` as a Variable of shape (..., d), d >= 1, floating point."""
    if not isinstance(x, Variable):
        try:
            x = Variable(x, requires_grad=False)
        except TypeError as error:
            raise TypeError(f"{op}: x: {error}") from None
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(
            f"{op}: x must have shape (..., d) with d >= 1 (one point per row), got shape {x.shape}; "
            f"a single point of R^d is an array of shape (d,)"
        )
    if x.dtype.kind != "f":
        raise TypeError(f"{op}: x must be floating point, got dtype {x.dtype} (x.astype(np.float64))")
    return x


def _repeated(x, m):
    """The rows of x repeated m times along a new leading axis, flattened: (m * rows, d)."""
    d = x.shape[-1]
    rows = x.size // d
    return reshape(broadcast_to(reshape(x, (1, rows, d)), (m, rows, d)), (m * rows, d)), rows


def _random_directions(k, rows, d, distribution, rng, dtype, op):
    if distribution not in _DISTRIBUTIONS:
        raise ValueError(f"{op}: distribution must be 'rademacher' or 'gaussian', got {distribution!r}")
    if rng is None:
        rng = np.random.default_rng()
    elif not isinstance(rng, np.random.Generator):
        raise TypeError(f"{op}: rng must be a numpy.random.Generator (np.random.default_rng(seed)) or None, "
                        f"got {type(rng).__name__}")
    if distribution == "rademacher":
        v = rng.integers(0, 2, size=(k, rows, d)) * 2.0 - 1.0
    else:
        v = rng.standard_normal((k, rows, d))
    return v.astype(dtype, copy=False)


def _samples(samples, op):
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise ValueError(f"{op}: samples must be a positive int (the number of random directions), "
                         f"got {samples!r}")
    return int(samples)


def _call(f, X, op):
    """f on the repeated rows, refused by `op`'s name unless it is a Variable (V.taylor, which
    runs it, would name itself)."""
    if not callable(f):
        raise TypeError(f"{op}: f must be callable, got {type(f).__name__}")
    y = f(X)
    if not isinstance(y, Variable):
        raise TypeError(f"{op}: f must return a Variable, got {type(y).__name__}"
                        + (": did it forget `return`?" if y is None else ""))
    return y


def _per_row(y, m, rows, batch, op, what):
    """A Variable of shape (m * rows,) or (m * rows, 1) as (m, *batch)."""
    if y.shape not in ((m * rows,), (m * rows, 1)):
        raise ValueError(
            f"{op}: f must map each row of its input (shape (n, d)) to {what}, so return shape (n,) "
            f"or (n, 1); given n = {m * rows} rows (your {rows} points, repeated once per "
            f"direction) it returned shape {y.shape}"
        )
    return reshape(y, (m, *batch))


def laplacian(
    f: Callable[[Variable], Variable],
    x: ArrayLike,
    weights: ArrayLike | None = None,
    samples: int | None = None,
    distribution: str = "rademacher",
    rng: np.random.Generator | None = None,
) -> Variable:
    """sum_i c_i d^2 f / dx_i^2 for every row of `x`: the Laplacian (c = 1), a weighted one,
    or an unbiased estimate of either from random directions.

    Parameters
    ----------
    f : callable
        Maps a Variable of shape (n, d) (n points of R^d, one per row) to a Variable of shape
        (n,) or (n, 1), each row's value depending on that row alone.
    x : ArrayLike
        Points, shape (..., d).  A Variable that requires grad is differentiated through too.
    weights : ArrayLike, optional
        c, shape (d,): the coefficient of each pure second derivative (default ones).  With
        `samples`, they must be >= 0 (the directions are scaled by sqrt(c)).
    samples : int, optional
        Estimate from this many random directions v per row instead of the d exact ones:
        the mean of v^T H v, whose expectation is sum_i c_i H_ii.  Its variance is
        2 sum_{i != j} c_i c_j H_ij^2 / samples for Rademacher directions (0 when H is
        diagonal) and 2 sum_{i, j} c_i c_j H_ij^2 / samples for Gaussian ones.  Worth it when
        d is large against the accuracy needed (a PINN in hundreds of dimensions).
    distribution : {'rademacher', 'gaussian'}
        Of the random directions' entries (+-1 with equal odds, or standard normal).
    rng : numpy.random.Generator, optional
        Where random directions come from (np.random.default_rng(seed) for a repeatable
        estimate); a fresh generator when None.

    Returns
    -------
    Variable of shape x.shape[:-1]
        With a graph to what f used that requires grad (see the module docstring).

    Raises
    ------
    TypeError
        If f is not callable or returns no Variable, x is not floating point, or rng is not
        a Generator.
    ValueError
        If x has no last axis of points, f returns another shape, weights are not of shape
        (d,) (or negative with samples), samples is not a positive int, or the distribution
        is unknown.
    NotImplementedError
        If an op of f has no Taylor rule (naming it).
    """
    op = "laplacian"
    x = _points(x, op)
    d, batch = x.shape[-1], x.shape[:-1]
    xp = backend.get_array_module(x)
    c = None
    if weights is not None:
        c = np.asarray(backend.to_cpu(getattr(weights, "data", weights)), dtype=np.float64)
        if c.shape != (d,):
            raise ValueError(f"{op}: weights must have shape (d,) = ({d},), one per coordinate, "
                             f"got {c.shape}")
        if samples is not None and (c < 0).any():
            raise ValueError(f"{op}: with samples, weights must be >= 0 (the directions are scaled by "
                             f"sqrt(c)); got {c}; use the exact form (no samples) for weights of both signs")
    if samples is None:
        X, rows = _repeated(x, d)
        eye = np.broadcast_to(np.eye(d, dtype=x.dtype)[:, None, :], (d, rows, d)).reshape(d * rows, d)
        second = taylor(lambda X: _call(f, X, op), X, xp.asarray(eye), 2)[2]
        second = _per_row(second, d, rows, batch, op, "a value")          # v^T H v along e_i
        if c is None:
            return sum(second, axis=0)
        return sum(second * xp.asarray(c.astype(x.dtype)).reshape((d,) + (1,) * len(batch)), axis=0)
    k = _samples(samples, op)
    X, rows = _repeated(x, k)
    v = _random_directions(k, rows, d, distribution, rng, x.dtype, op)
    if c is not None:
        v = v * np.sqrt(c).astype(x.dtype)
    second = taylor(lambda X: _call(f, X, op), X, xp.asarray(v.reshape(k * rows, d)), 2)[2]
    return mean(_per_row(second, k, rows, batch, op, "a value"), axis=0)


def divergence(
    f: Callable[[Variable], Variable],
    x: ArrayLike,
    samples: int | None = None,
    distribution: str = "rademacher",
    rng: np.random.Generator | None = None,
) -> Variable:
    """sum_i d f_i / dx_i for every row of `x`: the trace of the Jacobian of a vector field,
    exactly or estimated from random directions (Hutchinson: the mean of v^T J v).

    Parameters
    ----------
    f : callable
        Maps a Variable of shape (n, d) to a Variable of shape (n, d), each row's value
        depending on that row alone.
    x, samples, distribution, rng
        As for `laplacian`; the estimate's variance is (sum_{i != j} (J_ij + J_ji)^2 / 2) /
        samples for Rademacher directions.

    Returns
    -------
    Variable of shape x.shape[:-1], with a graph as for `laplacian`.
    """
    op = "divergence"
    x = _points(x, op)
    d, batch = x.shape[-1], x.shape[:-1]
    xp = backend.get_array_module(x)
    if samples is None:
        m = d
        X, rows = _repeated(x, d)
        v = np.broadcast_to(np.eye(d, dtype=x.dtype)[:, None, :], (d, rows, d))
    else:
        m = _samples(samples, op)
        X, rows = _repeated(x, m)
        v = _random_directions(m, rows, d, distribution, rng, x.dtype, op)
    v_device = xp.asarray(np.ascontiguousarray(v).reshape(m * rows, d))

    def field(X):
        y = _call(f, X, op)
        if y.shape != X.shape:
            raise ValueError(
                f"{op}: f must map each row of its input (shape (n, d)) to a vector of R^d, so return "
                f"shape (n, d); given shape {X.shape} (your {rows} points, repeated once per direction) "
                f"it returned shape {y.shape}"
            )
        return y

    first = taylor(field, X, v_device, 1)[1]                                # J v, per row
    along = sum(first * v_device, axis=-1)                                  # v^T J v
    along = reshape(along, (m, *batch))
    return sum(along, axis=0) if samples is None else mean(along, axis=0)


__all__ = ["laplacian", "divergence"]
