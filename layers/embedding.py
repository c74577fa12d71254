"""EmbedID: a trainable lookup table mapping integer ids to vectors."""

import numpy as np

import function as F

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
    """

    def __init__(self, in_size: int, out_size: int, dtype=None, *,
                 rng: np.random.Generator | None = None):
        super().__init__()
        in_size = _positive_int(in_size, "in_size", "EmbedID")
        out_size = _positive_int(out_size, "out_size", "EmbedID")
        dtype = _dtype_or_none(dtype, "EmbedID") or np.dtype(np.float64)
        self.W = Parameter(generator(rng).standard_normal((in_size, out_size)).astype(dtype), name="W")

    def forward(self, ids):
        """The vectors of `ids` (an integer array)."""
        return F.embed_id(ids, self.W)
