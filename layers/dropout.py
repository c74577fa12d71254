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
        name = type(self).__name__
        if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name}: p must be a number, got {type(p).__name__}")
        if not 0 <= p < 1:
            raise ValueError(f"{name}: p must lie in [0, 1), got {p!r}")
        self.p = float(p)

    def _repr_settings(self):
        return {"p": self.p}

    def forward(self, x):
        """Apply F.dropout."""
        return F.dropout(x, self.p)


class AlphaDropout(Dropout):
    """Dropout for SELU networks (PyTorch's nn.AlphaDropout): during training each input is set,
    with probability `p`, to SELU's negative saturation, and an affine map keeps zero mean and
    unit variance (`F.alpha_dropout`); inside `V.test_mode()` the identity.

    Parameters
    ----------
    p : float
        Drop probability, in [0, 1).

    Raises
    ------
    ValueError
        If `p` is outside [0, 1).
    """

    def forward(self, x):
        """Apply F.alpha_dropout."""
        return F.alpha_dropout(x, self.p)


class _ChannelDropout(Dropout):
    """Base of the dropouts that apply `function` (x, p): L.Dropout's p, checked as its."""

    def forward(self, x):
        """Apply the layer's function."""
        return self.function(x, self.p)


class Dropout1d(_ChannelDropout):
    """Dropout of whole channels of sequences (N, C, L) or (C, L) (PyTorch's nn.Dropout1d,
    `F.dropout1d`); inside `V.test_mode()` the identity.  Its p: as `L.Dropout`'s."""

    function = staticmethod(F.dropout1d)


class Dropout2d(_ChannelDropout):
    """Dropout of whole channels of images (N, C, H, W) (PyTorch's nn.Dropout2d, `F.dropout2d`);
    inside `V.test_mode()` the identity.  Its p: as `L.Dropout`'s."""

    function = staticmethod(F.dropout2d)


class Dropout3d(_ChannelDropout):
    """Dropout of whole channels of volumes (N, C, D, H, W) or (C, D, H, W) (PyTorch's
    nn.Dropout3d, `F.dropout3d`); inside `V.test_mode()` the identity.  Its p: as `L.Dropout`'s."""

    function = staticmethod(F.dropout3d)


class FeatureAlphaDropout(_ChannelDropout):
    """Alpha dropout of whole channels (PyTorch's nn.FeatureAlphaDropout,
    `F.feature_alpha_dropout`); inside `V.test_mode()` the identity.  Its p: as `L.Dropout`'s."""

    function = staticmethod(F.feature_alpha_dropout)
