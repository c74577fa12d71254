"""Connectionist temporal classification (CTC): the loss of a sequence of per-step class
scores against a shorter label sequence, summed over every alignment (PyTorch's ctc_loss).

An alignment of a target l (length L) to T steps reads one class per step, blank included,
that collapses to l once repeats are merged and blanks dropped.  Over the extended target
l' = (blank, l_1, blank, l_2, ..., l_L, blank) of 2L + 1 symbols, the forward variable
alpha_t(s) = log P(the first t + 1 steps end at l'_s) follows

    alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), [alpha_{t-1}(s-2)]) + lp[t, l'_s]

(s - 2 only where l'_s is a label that differs from l'_{s-2}), and the sequence's negative
log-likelihood is -logsumexp(alpha_{T-1}(2L), alpha_{T-1}(2L - 1)).  Every step is a few
differentiable ops on (batch, 2 max L + 1) arrays, so the loss has gradients of every order
(the posterior occupation of each symbol is its first derivative).
"""

import numpy as np

import variable as V
from variable import Variable, backend

from .activation import ArrayLike, as_float

LOG_ZERO = -1e30
"""log 0 as a finite number: logsumexp and its gradient stay finite where no alignment reaches."""


def _ints(values, op, name):
    """`values` as a host array of ints, refused naming `name` if they are not integers."""
    a = np.asarray(backend.to_cpu(values.data if isinstance(values, Variable) else values))
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and a.size and np.all(a == np.round(a)):
            raise TypeError(f"{op}: {name} must be integers, got {a.dtype} (write .astype(int))")
        raise TypeError(f"{op}: {name} must be integers, got {a.dtype}")
    return a.astype(np.intp)


def _lengths(values, n, op, name, largest, steps):
    """One length per sequence, each between 1 (0 for targets) and `largest`."""
    a = _ints(values, op, name).reshape(-1) if np.ndim(values) <= 1 else None
    if a is None or len(a) != n:
        hint = ("; log_probs is (T, N, C), steps first as PyTorch's: from (N, T, C) write "
                "x.transpose(1, 0, 2)" if a is not None and len(a) == steps else "")
        raise ValueError(f"{op}: {name} must hold one length per sequence ({n}), got shape "
                         f"{np.shape(values)}{hint}")
    low = 1 if name == "input_lengths" else 0
    bad = (a < low) | (a > largest)
    if bad.any():
        raise ValueError(f"{op}: {name} must be between {low} and {largest}, got {a[bad][0]}")
    return a


def _labels(targets, lengths, n, op):
    """Each sequence's labels, from padded (N, S) targets or their concatenation."""
    t = _ints(targets, op, "targets")
    if t.ndim == 2 and t.shape[0] == n:
        if t.shape[1] < lengths.max(initial=0):
            raise ValueError(f"{op}: targets of shape {t.shape} are shorter than the longest target length "
                             f"{lengths.max()}")
        return [t[i, :k] for i, k in enumerate(lengths)]
    if t.ndim == 1 and len(t) == lengths.sum():
        return np.split(t, np.cumsum(lengths)[:-1])
    raise ValueError(f"{op}: targets must be (N, S) padded, N = {n}, or the {lengths.sum()} labels of all "
                     f"targets concatenated (the sum of target_lengths), got shape {t.shape}")


def ctc_loss(log_probs: ArrayLike, targets: ArrayLike, input_lengths: ArrayLike, target_lengths: ArrayLike,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Variable:
    """CTC loss of per-step log-probabilities against label sequences (PyTorch's F.ctc_loss):
    each sequence's negative log-likelihood over all its alignments; by default divided by
    its target length (at least 1) and averaged over the batch.

    Parameters
    ----------
    log_probs : Variable or ndarray
        (T, N, C) log-probabilities of C classes (blank included) at T steps for N sequences,
        usually `F.log_softmax(scores, axis=-1)`; or (T, C) for one sequence.
    targets : array of ints
        (N, S) labels padded to S, or all targets' labels concatenated (1-D); no blank.
    input_lengths, target_lengths : arrays of ints
        Per sequence: the steps it uses (1 to T) and its number of labels (0 to S).
    blank : int
        The blank class (0 to C - 1).
    reduction : 'mean', 'sum' or 'none'
        As PyTorch's: 'mean' divides each sequence's loss by its target length and averages
        them, 'sum' adds the losses, 'none' returns them, shape (N,) (() for (T, C) input).
    zero_infinity : bool
        Give 0 (and no gradient) for a sequence no alignment fits (fewer steps than its labels
        and repeats need), whose loss is otherwise inf.

    Returns
    -------
    Variable
        The loss.  Its gradient with respect to `log_probs` is minus the posterior
        probability of each class at each step (PyTorch's differs by exp(log_probs), which
        log_softmax's backward cancels: through log_softmax the two agree).

    Raises
    ------
    TypeError
        If targets or lengths are not integers, or blank is not an int.
    ValueError
        If log_probs is not (T, N, C) or (T, C), a length is out of range, targets do not
        match the target lengths, a label is the blank or not a class, or `reduction` is none
        of the three.
    """
    op = "ctc_loss"
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    lp = as_float(log_probs, op)
    single = lp.ndim == 2
    if single:
        lp = V.expand_dims(lp, 1)
        targets = np.asarray(backend.to_cpu(targets))[None] if np.ndim(targets) == 1 else targets
        input_lengths, target_lengths = np.reshape(input_lengths, 1), np.reshape(target_lengths, 1)
    if lp.ndim != 3:
        raise ValueError(f"{op}: log_probs must be (T, N, C) (steps, sequences, classes) or (T, C), "
                         f"got shape {lp.shape}")
    steps, n, classes = lp.shape
    if isinstance(blank, bool) or not isinstance(blank, (int, np.integer)):
        raise TypeError(f"{op}: blank must be an int, got {type(blank).__name__}")
    if not 0 <= blank < classes:
        raise ValueError(f"{op}: blank {blank} is not one of the {classes} classes")
    input_lengths = _lengths(input_lengths, n, op, "input_lengths", steps, steps)
    target_lengths = _lengths(target_lengths, n, op, "target_lengths",
                              np.inf if np.ndim(targets) == 1 else np.shape(targets)[-1], steps)
    labels = _labels(targets, target_lengths, n, op)
    every = np.concatenate(labels) if labels else np.zeros(0, np.intp)
    bad = (every < 0) | (every >= classes) | (every == blank)
    if bad.any():
        label = every[bad][0]
        raise ValueError(f"{op}: label {label} is {'the blank' if label == blank else 'not a class'} "
                         f"(classes 0 to {classes - 1}, blank {blank})")

    width = 2 * target_lengths.max(initial=0) + 1
    extended = np.full((n, width), blank, np.intp)            # l' = (blank, l_1, blank, ..., l_L, blank)
    for i, seq in enumerate(labels):
        extended[i, 1:2 * len(seq):2] = seq
    skip = np.zeros((n, width), bool)                           # s - 2 -> s allowed: a label unlike l'_{s-2}
    skip[:, 2:] = (extended[:, 2:] != blank) & (extended[:, 2:] != extended[:, :-2])
    start = np.full((n, width), LOG_ZERO)
    start[:, 0] = 0
    if width > 1:
        start[target_lengths > 0, 1] = 0
    dtype = lp.dtype

    def constant(a):  # (made here from the targets: it goes where log_probs are)
        return backend.constant_like(a.astype(dtype) if a.dtype.kind == "f" else a, lp, op, made=True)

    rows = constant(np.arange(n)[:, None])
    emit = lp[:, rows, constant(extended)]                      # (T, N, width): lp[t, n, l'_s]
    skip_penalty = constant(np.where(skip, 0.0, LOG_ZERO))
    pad1, pad2 = constant(np.full((n, 1), LOG_ZERO)), constant(np.full((n, 2), LOG_ZERO))
    alpha = emit[0] + constant(start)
    for t in range(1, steps):
        stay = alpha
        step = V.concat([pad1, alpha[:, :-1]], axis=1)
        jump = V.concat([pad2, alpha[:, :-2]], axis=1)[:, :width] + skip_penalty
        new = V.logsumexp(V.stack([stay, step, jump]), axis=0) + emit[t]
        done = input_lengths <= t
        alpha = V.where(constant(done[:, None]), alpha, new) if done.any() else new
    last = constant(2 * target_lengths)
    before = constant(np.maximum(2 * target_lengths - 1, 0))
    no_before = constant(np.where(target_lengths > 0, 0.0, LOG_ZERO))
    rows = constant(np.arange(n))
    ends = V.stack([alpha[rows, last], alpha[rows, before] + no_before])
    nll = -V.logsumexp(ends, axis=0)
    repeats = np.array([int(np.sum(seq[1:] == seq[:-1])) for seq in labels], np.intp)
    impossible = input_lengths < target_lengths + repeats
    if impossible.any():
        nll = V.where(constant(impossible), constant(np.array(0.0 if zero_infinity else np.inf)), nll)
    if reduction == "none":
        return nll[0] if single else nll
    if reduction == "sum":
        return V.sum(nll)
    return V.mean(nll / constant(np.maximum(target_lengths, 1).astype(float)))


__all__ = ["ctc_loss"]
