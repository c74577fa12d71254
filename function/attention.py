"""Scaled dot-product attention (Vaswani et al., 2017): softmax(q k^T scale + mask) v.

Composed of differentiable ops (matmul, where, softmax), so it has every derivative and
Taylor rule they have.  A masked score is set to -inf before the softmax, so its weight is
exactly 0; a query whose every key is masked gets weights of 0 (and an output of 0), not
the NaN of a softmax over nothing, and never a weight on a masked key.
"""

import math

import numpy as np

import variable as V
from variable import Variable
from variable.backend import constant_like, get_array_module

from .activation import as_float
from .nn import dropout
from .softmax import softmax


def attention_mask(mask, op, scores_shape, like, name="attn_mask", hides=False):
    """(keep, bias) of a user's mask for scores of `scores_shape` (package helper): a boolean
    mask gives `keep` (True where a key takes part; where it is hidden if `hides`, which the
    caller inverts), a float one `bias` (added to the scores; a Variable keeps its gradient);
    the other is None."""
    if mask is None:
        return None, None
    data = mask._data if isinstance(mask, Variable) else mask
    made = not hasattr(data, "dtype")                 # (a list: made here, where the data is)
    if made:
        data = np.asarray(data)
    if data.dtype.kind not in "bf":
        true, ones = (("at a key to hide, PyTorch's layer's convention", "mask == 0") if hides else
                      ("where a query may attend to a key", "mask == 1"))
        raise TypeError(f"{op}: {name} must be boolean (True {true}) or floating (added to the scores), "
                        f"got dtype {data.dtype}; for a mask of 1s at the keys to attend to and 0s "
                        f"elsewhere write {name}=({ones})")
    try:
        shape = np.broadcast_shapes(data.shape, scores_shape)
    except ValueError:
        shape = None
    if shape != tuple(scores_shape):
        raise ValueError(f"{op}: {name} of shape {data.shape} does not broadcast to the scores' shape "
                         f"{tuple(scores_shape)} (..., queries, keys)")
    if data.dtype == bool:
        return constant_like(data, like, op, name, made=made), None
    if isinstance(mask, Variable):
        return None, mask
    return None, constant_like(data.astype(like.dtype, copy=False), like, op, name, made=made)   # (its dtype)


def dropout_probability(p, op, name):
    """`p` checked to be a probability of dropping, in [0, 1) (package helper)."""
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}: {name} must be a number in [0, 1), got {type(p).__name__}")
    if not 0 <= p < 1:
        raise ValueError(f"{op}: {name} must be in [0, 1), got {p!r}")
    return float(p)


def causal_keep(n_queries, n_keys, like):
    """(queries, keys) boolean mask, True on and below the diagonal: query i sees keys 0..i
    (package helper), made on the device of `like`."""
    xp = get_array_module(like._data)
    return xp.tril(xp.ones((n_queries, n_keys), dtype=bool))


def attend(q, k, v, keep=None, bias=None, dropout_p=0.0, scale=None, every_query_sees=False):
    """(output, weights) of attention on Variables of shapes (..., L, E), (..., S, E) and
    (..., S, Ev) (package helper): weights = softmax(q k^T scale + bias) over the keys, 0 where
    `keep` is False, output = weights v.  `every_query_sees`: `keep` leaves each query a key
    (a causal mask), so no row of weights is to be zeroed."""
    scale = 1 / math.sqrt(max(q.shape[-1], 1)) if scale is None else scale   # (no features: scores of 0)
    scores = V.matmul(q * scale, V.swapaxes(k, -1, -2))     # (q scaled: fewer entries than the scores)
    if bias is not None:
        scores = scores + bias
        finite = getattr(bias, "_data", bias) != -np.inf      # (a score of -inf is masked too)
        keep = finite if keep is None else keep & finite
    if keep is None:
        weights = softmax(scores, axis=-1)
    elif every_query_sees and bias is None:
        weights = softmax(V.where(keep, scores, -np.inf), axis=-1)
    else:
        some = keep.any(axis=-1, keepdims=True)    # (a row with no key: softmax of 0s, then 0)
        masked = V.where(some, V.where(keep, scores, -np.inf), 0.0)
        weights = V.where(some, softmax(masked, axis=-1), 0.0)
    if dropout_p:
        weights = dropout(weights, dropout_p)
    return V.matmul(weights, v), weights


def _dims(op, query, key, value):
    """Refuse shapes that do not make an attention, naming them."""
    shapes = f"query {query.shape}, key {key.shape}, value {value.shape}"
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise ValueError(f"{op}: query, key and value must be at least 2-d, (..., sequence, features); "
                         f"got {shapes}")
    if query.shape[-1] != key.shape[-1]:
        raise ValueError(f"{op}: query and key must have the same number of features (last axis); "
                         f"got {shapes}")
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(f"{op}: key and value must have the same sequence length (axis -2); got {shapes}")
    try:
        batch = np.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    except ValueError:
        raise ValueError(f"{op}: the leading (batch) axes of query, key and value do not broadcast; "
                         f"got {shapes}") from None
    return batch + (query.shape[-2], key.shape[-2])


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None) -> Variable:
    """Attention softmax(query key^T scale + mask) value, over the last two axes, batched over
    the others (PyTorch's F.scaled_dot_product_attention, its arguments and mask convention).

    Parameters
    ----------
    query, key, value : Variable, ndarray
        Shapes (..., L, E), (..., S, E) and (..., S, Ev); the leading axes broadcast.
    attn_mask : ndarray or Variable, optional
        Broadcasting to (..., L, S). Boolean: True where a query may attend to a key (a query
        with no such key gets weights and an output of 0). Floating: added to the scores
        (-inf masks; a Variable is differentiated).
    dropout_p : float
        Dropout on the weights, in [0, 1); as F.dropout, off inside ``V.test_mode()``.
    is_causal : bool
        Query i attends to keys 0..i only (the lower triangle of (L, S)).
    scale : float, optional
        Factor of the scores; 1 / sqrt(E) by default.

    Returns
    -------
    Variable of shape (..., L, Ev).

    Raises
    ------
    TypeError
        If the mask is neither boolean nor floating, or `scale` or `dropout_p` is not a real
        number.
    ValueError
        If the shapes do not fit together, the mask does not broadcast to (..., L, S), both a
        mask and `is_causal` are given, or `dropout_p` is outside [0, 1).
    """
    op = "scaled_dot_product_attention"
    query, key, value = as_float(query, op), as_float(key, op), as_float(value, op)
    scores_shape = _dims(op, query, key, value)
    if scale is not None:
        if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)):
            raise TypeError(f"{op}: scale must be a real number, got {type(scale).__name__}")
        scale = float(scale)
    if is_causal and attn_mask is not None:
        raise ValueError(f"{op}: give either attn_mask or is_causal=True, not both (for a causal mask "
                         f"combined with another, pass their logical and as attn_mask)")
    dropout_p = dropout_probability(dropout_p, op, "dropout_p")
    keep, bias = attention_mask(attn_mask, op, scores_shape, query)
    if is_causal:
        keep = causal_keep(*scores_shape[-2:], query)
    out, _ = attend(query, key, value, keep, bias, dropout_p, scale, every_query_sees=is_causal)
    return out


__all__ = ["scaled_dot_product_attention"]
