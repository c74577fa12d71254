"""Differential operators of functions of points: Laplacian, divergence, their estimators.

A physics-informed network fits u(x) for points x in R^d by penalising a PDE residual such
as -Laplacian(u) - f, and trains on its gradient with respect to the weights.  These
operators take `f` mapping each row of `x` (shape (..., d)) to a value, and compute, for
every row at once:

    laplacian(f, x)                    sum_i d^2 f / dx_i^2
    laplacian(f, x, weights=c)         sum_i c_i d^2 f / dx_i^2  (an anisotropic operator)
    laplacian(f, x, samples=k)         an unbiased estimate from k random directions
    divergence(f, x)                   sum_i d f_i / dx_i  (f maps rows to vectors in R^d)

How: one pass of collapsed Taylor mode (the forward Laplacian).  f runs once, on the
points; each op's Taylor rule then pushes the value, the d first-order coefficients (one
per direction e_i, along a leading axis) and one second-order coefficient, the weighted
sum over the directions, formed as it goes (variable/directions.py).  The divergence is
first order along the d directions at once.  `f` must treat the rows independently (as a
network on a batch of points does): batch normalisation in training mode, which would mix
them, is refused (`operator_on_rows`); a mean over the batch written into f is not seen,
and would give derivatives that are not the rows' own.

Trainable: where f uses Variables that require grad (a model's weights) and every op on
the way has a recording rule (`Forwarder.taylor_records`), the result has a graph to them,
so `loss.backward()` gives the exact gradient of a loss built from it.  Otherwise the pass
runs on arrays and a gradient through the result is refused, naming the op.
"""

import contextvars
from collections.abc import Callable

import numpy as np

from . import backend
from .forward_mode import collapsed, jvp
from .forwarder import Variable
from .ops.reduction import mean, sum
from .ops.shape import reshape
from .types import ArrayLike

_DISTRIBUTIONS = ("rademacher", "gaussian")

_on_rows_of = contextvars.ContextVar("gengrad_operator_on_rows", default=None)


def operator_on_rows() -> str | None:
    """The operator ("laplacian", "divergence") now running its f on points as rows, each of
    which must depend on its own row alone (an op that mixes rows, as batch normalisation
    in training does, asks this to refuse); None outside them."""
    return _on_rows_of.get()


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


def _on_rows(f, x, op, what, shape_of):
    """f as the operators call it: on the points as rows (n, d), its result checked."""
    d = x.shape[-1]
    rows = x.size // d

    def on_rows(X):
        if not callable(f):
            raise TypeError(f"{op}: f must be callable, got {type(f).__name__}")
        token = _on_rows_of.set(op)
        try:
            y = f(reshape(X, (rows, d)) if X.ndim != 2 else X)
        finally:
            _on_rows_of.reset(token)
        if not isinstance(y, Variable):
            raise TypeError(f"{op}: f must return a Variable, got {type(y).__name__}"
                            + (": did it forget `return`?" if y is None else ""))
        if y.shape not in shape_of(rows, d):
            raise ValueError(
                f"{op}: f must map each row of its input (shape (n, d)) to {what}; given your "
                f"{rows} points (shape ({rows}, {d})) it returned shape {y.shape}"
            )
        return y
    return on_rows, rows


def _random_directions(k, batch, d, distribution, rng, dtype, op):
    if distribution not in _DISTRIBUTIONS:
        raise ValueError(f"{op}: distribution must be 'rademacher' or 'gaussian', got {distribution!r}")
    if rng is None:
        rng = np.random.default_rng()
    elif not isinstance(rng, np.random.Generator):
        raise TypeError(f"{op}: rng must be a numpy.random.Generator (np.random.default_rng(seed)) or None, "
                        f"got {type(rng).__name__}")
    if distribution == "rademacher":
        v = rng.integers(0, 2, size=(k, *batch, d)) * 2.0 - 1.0
    else:
        v = rng.standard_normal((k, *batch, d))
    return v.astype(dtype, copy=False)


def _samples(samples, op):
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise ValueError(f"{op}: samples must be a positive int (the number of random directions), "
                         f"got {samples!r}")
    return int(samples)


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
    c = None
    if weights is not None:
        c = np.asarray(backend.to_cpu(getattr(weights, "data", weights)), dtype=np.float64)
        if c.shape != (d,):
            raise ValueError(f"{op}: weights must have shape (d,) = ({d},), one per coordinate, "
                             f"got {c.shape}")
        if samples is not None and (c < 0).any():
            raise ValueError(f"{op}: with samples, weights must be >= 0 (the directions are scaled by "
                             f"sqrt(c)); got {c}; use the exact form (no samples) for weights of both signs")
    u, rows = _on_rows(f, x, op, "a value, so return shape (n,) or (n, 1)",
                       lambda n, d: ((n,), (n, 1)))
    xp = backend.get_array_module(x)
    if samples is None:                              # e_1 .. e_d, the same for every row
        v = np.eye(d, dtype=x.dtype).reshape((d,) + (1,) * len(batch) + (d,))
        w = np.ones(d) if c is None else c
    else:
        k = _samples(samples, op)
        v = _random_directions(k, batch, d, distribution, rng, x.dtype, op)
        if c is not None:
            v = v * np.sqrt(c).astype(x.dtype)
        w = np.full(k, 1.0 / k)
    second = collapsed(u, x, xp.asarray(v), w, op)   # sum_d w_d v_d^T H v_d, per row
    return reshape(second, batch)


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
    field, rows = _on_rows(f, x, op, "a vector of R^d, so return shape (n, d)",
                           lambda n, d: ((n, d),))
    if samples is None:
        m = d
        v = np.eye(d, dtype=x.dtype).reshape((d,) + (1,) * len(batch) + (d,))
    else:
        m = _samples(samples, op)
        v = _random_directions(m, batch, d, distribution, rng, x.dtype, op)
    v = backend.get_array_module(x).asarray(v)
    _, first = jvp(lambda X: reshape(field(X), X.shape), x, v, batched=True)   # J v_i, per row
    along = sum(first * v, axis=-1)                                          # v_i^T J v_i
    return sum(along, axis=0) if samples is None else mean(along, axis=0)


__all__ = ["laplacian", "divergence"]
