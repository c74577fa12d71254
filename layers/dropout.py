"""Dropout as a layer: active in training, the identity inside `V.test_mode()`."""

import numpy as np

import function as F

from .layer import Layer


class Dropout(Layer):
    """Zero each input with probability `p` during training, scaling survivors by 1/(1-p).

    Inside `V.test_mode()` it passes its input through unchanged (`F.dropout`).  The
    masks come from NumPy's global random state, which `L.seed(n)` reseeds along with the
    initial weights, so one `L.seed(n)` makes a run with dropout reproducible.

    Parameters
    ----------
    p : float
        Drop probability, in [0, 1).

    Raises
    ------
    ValueError
        If `p` is outside [0, 1).
    """

    def __init__(self, p: float = 0.5):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
            raise TypeError(f"Dropout: p must be a number, got {type(p).__name__}")
        if not 0 <= p < 1:
            raise ValueError(f"Dropout: p must lie in [0, 1), got {p!r}")
        self.p = float(p)

    def _repr_settings(self):
        return {"p": self.p}

    def forward(self, x):
        """Apply F.dropout."""
        return F.dropout(x, self.p)
