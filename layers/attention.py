"""MultiheadAttention, TransformerEncoderLayer and TransformerDecoderLayer: PyTorch's, batch first,
on gengrad's attention.

Inputs are (batch, sequence, embed_dim), or (sequence, embed_dim) for one example; the
call returns (output, weights) as PyTorch's does, and its masks follow PyTorch's
convention for this layer: True in a boolean `attn_mask` or `key_padding_mask` means
*not* allowed to attend (the opposite of F.scaled_dot_product_attention's, as in PyTorch).
"""

import numpy as np

import function as F
import variable as V
from function.attention import attend, attention_mask, causal_keep, dropout_probability
from variable.backend import constant_like, get_array_module
from variable.variable import _TorchName

from .layer import Layer
from .linear import Linear, _dtype_or_none, _positive_int
from .normalization import LayerNorm

_TORCH_KEYWORDS = {
    "batch_first": "gengrad's {name} is batch first always, (batch, sequence, embed_dim): "
                   "drop batch_first (for PyTorch's default (sequence, batch, embed_dim) layout, "
                   "transpose: x.transpose(1, 0, 2))",
    "add_bias_kv": "gengrad's {name} has no learned bias key and value",
    "add_zero_attn": "gengrad's {name} has no zero attention row",
    "device": "the parameters move with layer.to_gpu() and layer.to_cpu()",
}
"""Keywords of PyTorch's nn.MultiheadAttention with what to write in gengrad."""


def _mask_array(mask, like, what):
    """A mask as an array on the device of `like`: a list made there (as numbers are), an array
    checked to be there (named as given, before any reshape); a Variable as it is."""
    if isinstance(mask, V.Variable):
        return mask
    if not hasattr(mask, "reshape"):
        return get_array_module(like._data).asarray(np.asarray(mask))
    return constant_like(mask, like, "MultiheadAttention", what)


class MultiheadAttention(Layer):
    """Multi-head attention (Vaswani et al., 2017), PyTorch's nn.MultiheadAttention batch first.

    query, key and value are projected to embed_dim, split into num_heads heads of
    embed_dim / num_heads features, attended (scaled dot product, one softmax a head), joined
    and projected again: ``out_proj(concat_h attention(q_proj(query)_h, k_proj(key)_h,
    v_proj(value)_h))``.  The four projections are L.Linear layers (W of shape (in, out));
    PyTorch's in_proj_weight rows [0:E], [E:2E], [2E:3E] transposed are q_proj.W, k_proj.W and
    v_proj.W.

    Parameters
    ----------
    embed_dim : int
        The features of a query, and of the output.
    num_heads : int
        A divisor of embed_dim.
    dropout : float
        Dropout on the attention weights, in [0, 1); off inside ``V.test_mode()``.
    nobias : bool
        Leave out the projections' biases (PyTorch's bias=False).
    kdim, vdim : int, optional
        Features of a key and of a value; embed_dim by default.
    dtype : dtype, optional
        Parameter dtype; by default the first input's float dtype (as Linear's).
    rng : numpy.random.Generator, optional
        Source of the initial weights.

    Raises
    ------
    TypeError
        If PyTorch's `batch_first`, `add_bias_kv`, `add_zero_attn` or `device` is given (with
        what to write), or `dtype` is not a floating-point dtype.
    ValueError
        If a size is not a positive int, num_heads does not divide embed_dim, or `dropout` is
        outside [0, 1).
    """

    torch_keywords = _TORCH_KEYWORDS

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, nobias: bool = False,
                 kdim: int | None = None, vdim: int | None = None, dtype=None, *,
                 rng: np.random.Generator | None = None):
        super().__init__()
        name = type(self).__name__
        self.embed_dim = _positive_int(embed_dim, "embed_dim", name)
        self.num_heads = _positive_int(num_heads, "num_heads", name)
        if self.embed_dim % self.num_heads:
            raise ValueError(f"{name}: num_heads={num_heads} must divide embed_dim={embed_dim} (each head "
                             f"takes embed_dim / num_heads features)")
        self.dropout = dropout_probability(dropout, name, "dropout")
        self._dtype = _dtype_or_none(dtype, name)
        kdim = self.embed_dim if kdim is None else _positive_int(kdim, "kdim", name)
        vdim = self.embed_dim if vdim is None else _positive_int(vdim, "vdim", name)
        e, nobias = self.embed_dim, bool(nobias)
        self.q_proj = Linear(e, e, nobias, dtype, rng=rng)
        self.k_proj = Linear(e, kdim, nobias, dtype, rng=rng)
        self.v_proj = Linear(e, vdim, nobias, dtype, rng=rng)
        self.out_proj = Linear(e, e, nobias, dtype, rng=rng)

    in_proj_weight = _TorchName("q_proj.W, k_proj.W and v_proj.W (L.Linear's, each of shape (in, "
                                "embed_dim)) are its three blocks transposed: PyTorch's in_proj_weight "
                                "is V.concat([q_proj.W, k_proj.W, v_proj.W], axis=1).T")
    in_proj_bias = _TorchName("q_proj.b, k_proj.b and v_proj.b are its three parts")

    def _repr_settings(self):
        return {"embed_dim": self.embed_dim, "num_heads": self.num_heads,
                **({"dropout": self.dropout} if self.dropout else {})}

    def _repr_above_entries(self):
        """The settings, above the four projections."""
        return self._repr_settings()

    def _heads(self, x, n):
        """(N, T, E) -> (N, H, T, E / H)."""
        heads = self.num_heads
        return x.reshape(n, x.shape[1], heads, self.embed_dim // heads).transpose(0, 2, 1, 3)

    def forward(self, query, key=None, value=None, *, key_padding_mask=None, need_weights: bool = True,
                attn_mask=None, average_attn_weights: bool = True, is_causal: bool = False):
        """(output, weights) of attending from `query` to `key` and `value`.

        Parameters
        ----------
        query : Variable or ndarray
            (N, L, embed_dim), or (L, embed_dim) for one example.
        key, value : Variable or ndarray, optional
            (N, S, kdim) and (N, S, vdim) (or 2-d, as the query); by default key is the
            query and value the key (self-attention: ``layer(x)``).
        key_padding_mask : ndarray, optional
            (N, S): boolean, True at the keys to ignore (padding); or floating, added to
            the scores.
        need_weights : bool
            Return the weights as the second element; None there otherwise.
        attn_mask : ndarray or Variable, optional
            (L, S) or (N * num_heads, L, S): boolean, True where a query may *not* attend to
            a key; or floating, added to the scores.
        average_attn_weights : bool
            Weights averaged over the heads, (N, L, S); else per head, (N, num_heads, L, S).
        is_causal : bool
            Query i attends to keys 0..i only (with `attn_mask` too: both apply).

        Returns
        -------
        (Variable, Variable or None)
            The output (N, L, embed_dim) (or (L, embed_dim)) and the weights, or None.
            A query with every key masked gets weights of 0 and the output bias of
            out_proj (PyTorch's layer gives NaN there).
        """
        name = type(self).__name__
        query = V.as_variable(query, op=name)
        key = query if key is None else V.as_variable(key, op=name)
        value = key if value is None else V.as_variable(value, op=name)
        unbatched = query.ndim == 2
        for what, x, size in (("query", query, self.embed_dim), ("key", key, self.k_proj.in_size),
                              ("value", value, self.v_proj.in_size)):
            if x.ndim != query.ndim or x.ndim not in (2, 3):
                raise ValueError(f"{name}: query, key and value must be all 3-d, (batch, sequence, "
                                 f"features), or all 2-d, (sequence, features); got query {query.shape}, "
                                 f"key {key.shape}, value {value.shape}")
            if x.shape[-1] != size:
                raise ValueError(f"{name}: {what} of shape {x.shape} has {x.shape[-1]} features on its "
                                 f"last axis, but the layer takes {size} (embed_dim={self.embed_dim}, "
                                 f"kdim={self.k_proj.in_size}, vdim={self.v_proj.in_size})")
        if unbatched:
            query, key, value = query[None], key[None], value[None]
        n, length, source = query.shape[0], query.shape[1], key.shape[1]
        if key.shape[:2] != (n, source) or value.shape[:2] != (n, source):
            raise ValueError(f"{name}: key and value must have the query's batch size and the same "
                             f"sequence length; got query {query.shape}, key {key.shape}, value "
                             f"{value.shape}")
        q = self._heads(self.q_proj(query), n)
        k = self._heads(self.k_proj(key), n)
        v = self._heads(self.v_proj(value), n)
        keep, bias = self._masks(attn_mask, key_padding_mask, is_causal, unbatched, n, length, source, q)
        out, weights = attend(q, k, v, keep, bias, self.dropout,
                              every_query_sees=attn_mask is None and key_padding_mask is None)
        out = self.out_proj(out.transpose(0, 2, 1, 3).reshape(n, length, self.embed_dim))
        if need_weights and average_attn_weights:
            weights = V.mean(weights, axis=1)
        if unbatched:
            out = out[0]
            weights = weights[0]
        return out, (weights if need_weights else None)

    def __call__(self, *inputs, **kwargs):
        """Run `forward`: (output, weights), weights None when need_weights=False."""
        return self.forward(*inputs, **kwargs)

    def _masks(self, attn_mask, key_padding_mask, is_causal, unbatched, n, length, source, like):
        """(keep, bias) for scores of shape (N, H, L, S) from the layer's masks (True: masked)."""
        name, heads = type(self).__name__, self.num_heads
        scores = (n, heads, length, source)
        keep = causal_keep(length, source, like) if is_causal else None
        bias = None
        if attn_mask is not None:
            attn_mask = _mask_array(attn_mask, like, "attn_mask")
            shape = attn_mask.shape
            if len(shape) == 3 and shape[0] == n * heads:       # PyTorch's (N * H, L, S)
                attn_mask = attn_mask.reshape(n, heads, *shape[1:])
            elif len(shape) != 2:
                raise ValueError(f"{name}: attn_mask must be (L, S) = ({length}, {source}) or "
                                 f"(N * num_heads, L, S) = ({n * heads}, {length}, {source}), got shape "
                                 f"{tuple(shape)}")
            keep, bias = self._add(keep, bias, attn_mask, "attn_mask", scores, like)
        if key_padding_mask is not None:
            key_padding_mask = _mask_array(key_padding_mask, like, "key_padding_mask")
            shape = key_padding_mask.shape
            if tuple(shape) != ((source,) if unbatched else (n, source)):
                raise ValueError(f"{name}: key_padding_mask must be (N, S) = ({n}, {source}) (or (S,) "
                                 f"for one example), got shape {tuple(shape)}")
            keep, bias = self._add(keep, bias, key_padding_mask.reshape(n, 1, 1, source),
                                   "key_padding_mask", scores, like)
        return keep, bias

    def _add(self, keep, bias, mask, what, scores, like):
        """keep and bias with the mask `mask` (PyTorch's convention: True is masked) added."""
        masked, extra = attention_mask(mask, type(self).__name__, scores, like, what, hides=True)
        if masked is not None:
            keep = ~masked if keep is None else keep & ~masked
        if extra is not None:
            bias = extra if bias is None else bias + extra
        return keep, bias



_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


class _TransformerLayer(Layer):
    """What the encoder and decoder layers share: their settings and parts, made in PyTorch's
    order (self_attn, the decoder's multihead_attn, linear1, linear2, norm1, norm2, the
    decoder's norm3), the feed-forward network, dropout and the repr; a subclass says whether
    it attends to a memory (`CROSS`) and how the blocks follow each other (`forward`)."""

    torch_keywords = {key: _TORCH_KEYWORDS[key] for key in ("batch_first", "device")}
    CROSS = False

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation="relu", layer_norm_eps: float = 1e-5, norm_first: bool = False,
                 nobias: bool = False, dtype=None, *, rng: np.random.Generator | None = None):
        super().__init__()
        name = type(self).__name__
        if isinstance(activation, str) and activation in _ACTIVATIONS:
            activation = _ACTIVATIONS[activation]
        elif not callable(activation):
            raise TypeError(f"{name}: activation must be 'relu', 'gelu' or a function such as F.gelu, got "
                            f"{activation!r}")
        self.activation = activation
        self.norm_first = bool(norm_first)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout, nobias, dtype=dtype, rng=rng)
        if self.CROSS:
            self.multihead_attn = MultiheadAttention(d_model, nhead, dropout, nobias, dtype=dtype, rng=rng)
        width = _positive_int(dim_feedforward, "dim_feedforward", name)
        self.linear1 = Linear(width, d_model, nobias, dtype, rng=rng)
        self.linear2 = Linear(d_model, width, nobias, dtype, rng=rng)
        for k in range(3 if self.CROSS else 2):
            setattr(self, f"norm{k + 1}", LayerNorm(d_model, layer_norm_eps, dtype))
        self.dropout = self.self_attn.dropout

    def _drop(self, x):
        return F.dropout(x, self.dropout) if self.dropout else x

    def _feed_forward(self, h):
        return self._drop(self.linear2(self._drop(self.activation(self.linear1(h)))))

    def _attend(self, attention, h, memory, mask, padding, causal, names):
        """attention(h, memory) dropped out; a refusal of its masks or inputs names this layer and
        what its keywords are called here (`names`: the mask's and the padding mask's)."""
        try:
            out, _ = attention(h, memory, attn_mask=mask, key_padding_mask=padding, is_causal=causal,
                               need_weights=False)
        except ValueError as error:
            block = "attention to the memory" if memory is not None else "self-attention"
            raise ValueError(f"{type(self).__name__}, its {block} (where {names[0]} is attn_mask and "
                             f"{names[1]} key_padding_mask): {error}") from None
        return self._drop(out)

    def _repr_settings(self):
        activation = getattr(self.activation, "__name__", repr(self.activation))
        return {"d_model": self.self_attn.embed_dim, "nhead": self.self_attn.num_heads,
                "dim_feedforward": self.linear1.out_size, "dropout": self.dropout,
                "activation": activation, **({"norm_first": True} if self.norm_first else {})}

    def _repr_above_entries(self):
        """The settings, above the parts."""
        return self._repr_settings()


class TransformerEncoderLayer(_TransformerLayer):
    """PyTorch's nn.TransformerEncoderLayer, batch first: self-attention and a feed-forward
    network, each added to its input, with layer norms.

    Post-norm (the default, as in Vaswani et al. and PyTorch):

        x = norm1(x + dropout1(self_attn(x)));   x = norm2(x + dropout2(ff(x)))

    and with `norm_first` (pre-norm): x = x + dropout1(self_attn(norm1(x))), then
    x = x + dropout2(ff(norm2(x))), where ff(x) = linear2(dropout(activation(linear1(x)))).
    Its parts carry PyTorch's names (self_attn, linear1, linear2, norm1, norm2), so its
    weights load as the table in docs/from_pytorch.md says.

    Parameters
    ----------
    d_model : int
        Features of each position.
    nhead : int
        Attention heads (a divisor of d_model).
    dim_feedforward : int
        Width of the feed-forward network.
    dropout : float
        Dropout on the attention weights and after each block, in [0, 1); off inside
        ``V.test_mode()``.
    activation : 'relu', 'gelu' or a function
        Of the feed-forward network.
    layer_norm_eps : float
    norm_first : bool
        Pre-norm instead of post-norm.
    nobias : bool
        Leave out the biases of the projections and of the feed-forward network.
    dtype : dtype, optional
        Parameter dtype; by default the first input's float dtype.
    rng : numpy.random.Generator, optional
        Source of the initial weights.

    Raises
    ------
    TypeError
        If PyTorch's `batch_first` or `device` is given (with what to write), or the
        activation is neither a name above nor callable.
    ValueError
        If a size is not a positive int, nhead does not divide d_model, or dropout is outside
        [0, 1).
    """

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal: bool = False):
        """(N, L, d_model) -> (N, L, d_model) (or (L, d_model) for one example); the masks as
        for MultiheadAttention: True where a key is hidden."""
        x = V.as_variable(src, op=type(self).__name__)
        own = (src_mask, src_key_padding_mask, is_causal, ("src_mask", "src_key_padding_mask"))
        if self.norm_first:
            x = x + self._attend(self.self_attn, self.norm1(x), None, *own)
            return x + self._feed_forward(self.norm2(x))
        x = self.norm1(x + self._attend(self.self_attn, x, None, *own))
        return self.norm2(x + self._feed_forward(x))


class TransformerDecoderLayer(_TransformerLayer):
    """PyTorch's nn.TransformerDecoderLayer, batch first: self-attention over the target,
    attention from it to the encoder's output (`memory`), and a feed-forward network, each
    added to its input, with layer norms.

    Post-norm (the default): x = norm1(x + self_attn(x)), x = norm2(x + multihead_attn(x,
    memory)), x = norm3(x + ff(x)); with `norm_first`, x = x + self_attn(norm1(x)), x = x +
    multihead_attn(norm2(x), memory), x = x + ff(norm3(x)); each block's output dropped out,
    ff as in TransformerEncoderLayer.  Parts under PyTorch's names (self_attn, multihead_attn,
    linear1, linear2, norm1, norm2, norm3).

    Parameters
    ----------
    As TransformerEncoderLayer's.

    Raises
    ------
    As TransformerEncoderLayer's.
    """

    CROSS = True

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal: bool = False, memory_is_causal: bool = False):
        """(N, T, d_model) and the encoder's (N, S, d_model) -> (N, T, d_model) (or 2-d for one
        example); the masks as for MultiheadAttention (True where a key is hidden): tgt_* for
        the self-attention, memory_* for the attention to `memory`.  `tgt_is_causal` makes
        position i of the target see positions 0..i only (as a causal tgt_mask does)."""
        name = type(self).__name__
        x = V.as_variable(tgt, op=name)
        memory = V.as_variable(memory, op=name)
        own = (tgt_mask, tgt_key_padding_mask, tgt_is_causal, ("tgt_mask", "tgt_key_padding_mask"))
        cross = (memory_mask, memory_key_padding_mask, memory_is_causal,
                 ("memory_mask", "memory_key_padding_mask"))
        if self.norm_first:
            x = x + self._attend(self.self_attn, self.norm1(x), None, *own)
            x = x + self._attend(self.multihead_attn, self.norm2(x), memory, *cross)
            return x + self._feed_forward(self.norm3(x))
        x = self.norm1(x + self._attend(self.self_attn, x, None, *own))
        x = self.norm2(x + self._attend(self.multihead_attn, x, memory, *cross))
        return self.norm3(x + self._feed_forward(x))


__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer"]
