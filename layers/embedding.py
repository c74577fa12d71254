"""EmbedID: a trainable lookup table mapping integer ids to vectors."""

import numpy as np

import function as F
import variable as V
from function.activation import as_array
from function.nn import checked_max_norm

from .initializers import generator
from .layer import Layer
from .linear import _dtype_or_none, _positive_int
from .parameter import Parameter


class EmbedID(Layer):
    """Row `id` of a table W of shape (in_size, out_size), for every id of the input.

    W starts as standard normal entries (as PyTorch's Embedding).  An input of integer
    ids of shape S gives an output of shape S + (out_size,).

    Parameters
    ----------
    in_size : int
        Number of ids (vocabulary size).
    out_size : int
        Length of each vector.
    dtype : dtype, optional
        dtype of W (default float64: integer ids carry no float dtype to copy).
    rng : numpy.random.Generator, optional
        Source of the initial W.
    padding_idx : int, optional
        An id that pads sequences, as PyTorch's Embedding takes it: its row starts at zero and
        gets no gradient, so it stays as it is (negative: counted from the end).
    max_norm : float, optional
        As PyTorch's: each row a call looks up whose norm exceeds `max_norm` is first scaled,
        in place, to that norm (F.embed_id's max_norm).
    norm_type : float
        The p of that norm (default 2).

    Raises
    ------
    TypeError, ValueError
        If a size is not a positive int, `dtype` is not a floating dtype, `padding_idx`
        is not an id of the table, or `max_norm` or `norm_type` is not a positive number.
    """

    def __init__(self, in_size: int, out_size: int, dtype=None, *,
                 rng: np.random.Generator | None = None, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0):
        super().__init__()
        in_size = _positive_int(in_size, "in_size", "EmbedID")
        out_size = _positive_int(out_size, "out_size", "EmbedID")
        if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
            raise TypeError(f"EmbedID: the third argument is the dtype, got {dtype}; PyTorch's padding_idx "
                            f"goes by name here: L.EmbedID({in_size}, {out_size}, padding_idx={dtype})")
        dtype = _dtype_or_none(dtype, "EmbedID") or np.dtype(np.float64)
        W = generator(rng).standard_normal((in_size, out_size)).astype(dtype)
        self.padding_idx = None
        if padding_idx is not None:
            if isinstance(padding_idx, (bool, np.bool_)) or not isinstance(padding_idx, (int, np.integer)):
                raise TypeError(f"EmbedID: padding_idx must be an int, got {type(padding_idx).__name__}")
            if not -in_size <= padding_idx < in_size:
                raise ValueError(f"EmbedID: padding_idx={padding_idx} is not an id of the table of "
                                 f"in_size={in_size} (from {-in_size} to {in_size - 1})")
            self.padding_idx = int(padding_idx) % in_size
            W[self.padding_idx] = 0
        checked_max_norm(max_norm, norm_type, "embed_id")   # (the two refused as F.embed_id refuses them)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.W = Parameter(W, name="W")

    def _repr_above_entries(self):
        shown = {} if self.padding_idx is None else {"padding_idx": self.padding_idx}
        if self.max_norm is not None:
            shown["max_norm"] = self.max_norm
            if self.norm_type != 2.0:
                shown["norm_type"] = self.norm_type
        return shown

    def forward(self, ids):
        """The vectors of `ids` (an integer array); the padding id's row passes no gradient."""
        out = F.embed_id(ids, self.W, self.max_norm, self.norm_type)
        if self.padding_idx is None:
            return out
        padding = as_array(ids, "EmbedID", like=self.W, name="ids", like_name="W") == self.padding_idx
        return V.where(padding[..., None], out.detach(), out)
