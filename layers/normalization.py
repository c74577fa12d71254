"""Normalisation layers: LayerNorm, RMSNorm and GroupNorm (per example), LocalResponseNorm (across
channels) and BatchNorm (per feature, over the batch)."""

import numpy as np

import function as F
import variable as V
from function.activation import finite_number
from variable.backend import get_array_module

from .layer import Layer
from .linear import _dtype_or_none, _inferred_size, _positive_int
from .parameter import Parameter


def _positive_float(value, name, where):
    """`value` as a float > 0, else a TypeError/ValueError naming it."""
    value = _float(value, name, where)
    if value == 0:
        raise ValueError(f"{where}: {name} must be positive, got 0")
    return value


def _flag(value, name, where):
    """`value` as a bool, else a TypeError naming `where` and `name`."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} must be True or False, got {value!r}")
    return bool(value)


def _float(value, name, where, high=None):
    """`value` as a float in [0, inf) (or [0, high]), else a TypeError/ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}")
    value = float(value)
    if not np.isfinite(value) or value < 0 or (high is not None and value > high):
        raise ValueError(f"{where}: {name} must lie in [0, {high if high is not None else 'inf)'}"
                         f"{']' if high is not None else ''}, got {value!r}")
    return value


class LayerNorm(Layer):
    """Normalise each example over its last axis, then scale by gamma and shift by beta.

    y = (x - mean) / sqrt(var + eps) * gamma + beta, statistics over the last axis;
    gamma starts at one and beta at zero (`F.layer_norm`).

    Parameters
    ----------
    size : int, optional
        Length of the last axis; inferred from the first input when None.
    eps : float
        Added to the variance.
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    elementwise_affine : bool
        False: no gamma and no beta, the normalised input itself (PyTorch's keyword).
    bias : bool
        False: gamma alone, no beta (PyTorch's keyword).
    """

    def __init__(self, size: int | None = None, eps: float = 1e-5, dtype=None, *,
                 elementwise_affine: bool = True, bias: bool = True):
        super().__init__()
        name = type(self).__name__
        self.size = None if size is None else _positive_int(size, "size", name)
        self.eps = self._eps(eps)
        self._dtype = _dtype_or_none(dtype, name)
        self._affine = {key: _flag(value, key, name)
                        for key, value in (("elementwise_affine", elementwise_affine), ("bias", bias))}
        self.gamma = None
        self.beta = None
        if self.size is not None:
            self._create(self._dtype or np.float64)

    def _eps(self, eps):
        return _positive_float(eps, "eps", type(self).__name__)

    def _own_parameters(self):
        """The names of the parameters this layer makes: gamma and beta, or fewer."""
        if not self._affine["elementwise_affine"]:
            return ()
        return ("gamma", "beta") if self._affine["bias"] else ("gamma",)

    def _create(self, dtype):
        for name in self._own_parameters():
            start = np.ones if name == "gamma" else np.zeros
            setattr(self, name, Parameter(start(self.size, dtype=dtype), name=name))

    def _repr_settings(self):
        settings = {"eps": self.eps}
        return settings | {key: False for key, on in self._affine.items() if not on}

    def _lazy_shapes(self):
        """('size', shapes of gamma and beta) until they exist (see `Layer._lazy_shapes`); None
        without them (nothing to build from a file)."""
        if self.size is not None or not self._own_parameters():
            return None
        return "size", {name: (None,) for name in self._own_parameters()}

    def forward(self, x):
        """Normalise `x` over its last axis."""
        name = type(self).__name__
        x = V.as_variable(x, op=name)
        shape = x.shape
        if not shape:
            raise ValueError(f"{name}: the input must have at least one axis, got a 0-d input")
        if self.size is None:
            self.size = _inferred_size(shape[-1], "size", shape, name)
            self._create(self._settle_dtype(x))
            self._settle_device(x)
        else:
            self._settle_dtype(x)
            if shape[-1] != self.size:
                raise ValueError(f"{name}: input of shape {tuple(shape)} does not end in size={self.size}")
        return self._normalize(x)

    def _normalize(self, x):
        return F.layer_norm(x, self.gamma, self.beta, eps=self.eps)


class RMSNorm(LayerNorm):
    """Divide each example by the root mean square of its last axis, then scale by gamma.

    y = x / sqrt(mean(x^2) + eps) * gamma, over the last axis, with no mean taken away and
    no shift (`F.rms_norm`; PyTorch's nn.RMSNorm); gamma starts at one.

    Parameters
    ----------
    size : int, optional
        Length of the last axis; inferred from the first input when None.
    eps : float or None
        Added to the mean square; None takes the machine epsilon of the input's dtype, as
        PyTorch's does.
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    """

    torch_keywords = {"elementwise_affine": "RMSNorm always has its gamma; without it, a step "
                                            "lambda x: F.rms_norm(x)"}

    def __init__(self, size: int | None = None, eps: float | None = None, dtype=None):
        super().__init__(size, eps, dtype)

    def _eps(self, eps):
        return None if eps is None else super()._eps(eps)

    def _own_parameters(self):
        return ("gamma",)

    def _normalize(self, x):
        return F.rms_norm(x, self.gamma, eps=self.eps)


class GroupNorm(Layer):
    """Normalise each example's groups of channels, then scale and shift each channel (`F.group_norm`).

    The channels (axis 1) are split into `num_groups` groups; gamma starts at one and beta at
    zero, one of each per channel, as PyTorch's nn.GroupNorm(num_groups, num_channels).

    Parameters
    ----------
    num_groups : int
        A divisor of the channels.
    num_channels : int, optional
        The channels; inferred from axis 1 of the first input when None.
    eps : float
        Added to the variance.
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    affine : bool
        False: no gamma and no beta, the normalised input itself (PyTorch's keyword).
    """

    def __init__(self, num_groups: int, num_channels: int | None = None, eps: float = 1e-5, dtype=None, *,
                 affine: bool = True):
        super().__init__()
        self.affine = _flag(affine, "affine", "GroupNorm")
        self.num_groups = _positive_int(num_groups, "num_groups", "GroupNorm")
        self.num_channels = (None if num_channels is None
                             else _positive_int(num_channels, "num_channels", "GroupNorm"))
        if self.num_channels is not None and self.num_channels % self.num_groups:
            raise ValueError(f"GroupNorm: num_groups={self.num_groups} must divide "
                             f"num_channels={self.num_channels}")
        self.eps = _positive_float(eps, "eps", "GroupNorm")
        self._dtype = _dtype_or_none(dtype, "GroupNorm")
        self.gamma = None
        self.beta = None
        if self.num_channels is not None:
            self._create(self._dtype or np.float64)

    def _create(self, dtype):
        if self.affine:
            self.gamma = Parameter(np.ones(self.num_channels, dtype=dtype), name="gamma")
            self.beta = Parameter(np.zeros(self.num_channels, dtype=dtype), name="beta")

    def _repr_settings(self):
        return {"num_groups": self.num_groups, "eps": self.eps} | ({} if self.affine else {"affine": False})

    def _lazy_shapes(self):
        """('num_channels', shapes of gamma and beta) until they exist (see `Layer._lazy_shapes`)."""
        if self.num_channels is not None or not self.affine:    # (None without them: nothing to build)
            return None
        return "num_channels", {"gamma": (None,), "beta": (None,)}

    def forward(self, x):
        """Normalise `x` of shape (N, C, ...) by groups of channels."""
        x = V.as_variable(x, op="GroupNorm")
        shape = x.shape
        if len(shape) < 2:
            raise ValueError(f"GroupNorm: the input must be (N, C, ...), at least 2-d, got shape "
                             f"{tuple(shape)}")
        if self.num_channels is None:
            channels = _inferred_size(shape[1], "num_channels", shape, "GroupNorm")
            if channels % self.num_groups:                 # (refused before anything is built)
                raise ValueError(f"GroupNorm: num_groups={self.num_groups} must divide the {channels} "
                                 f"channels of the input of shape {tuple(shape)}")
            self.num_channels = channels
            self._create(self._settle_dtype(x))
            self._settle_device(x)
        else:
            self._settle_dtype(x)
            if shape[1] != self.num_channels:
                raise ValueError(f"GroupNorm: input of shape {tuple(shape)} has {shape[1]} channels, but the "
                                 f"layer was built for num_channels={self.num_channels}")
        return F.group_norm(x, self.num_groups, self.gamma, self.beta, eps=self.eps)


class LocalResponseNorm(Layer):
    """Local response normalisation across channels (AlexNet's; PyTorch's nn.LocalResponseNorm):
    each channel divided by (k + alpha / size * the sum of squares of its `size` neighbouring
    channels)^beta (`F.local_response_norm`).  No parameters.

    Parameters
    ----------
    size : int
        The number of neighbouring channels summed over.
    alpha, beta, k : float
        The scale of the sum, the exponent and the offset (> 0).
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size = _positive_int(size, "size", "LocalResponseNorm")
        self.alpha = finite_number(alpha, "LocalResponseNorm", "alpha")
        self.beta = finite_number(beta, "LocalResponseNorm", "beta")
        self.k = _positive_float(k, "k", "LocalResponseNorm")

    def _repr_settings(self):
        return {"size": self.size, "alpha": self.alpha, "beta": self.beta, "k": self.k}

    def forward(self, x):
        """Normalise `x` of shape (N, C, ...) across its channels."""
        return F.local_response_norm(x, self.size, self.alpha, self.beta, self.k)


class BatchNorm(Layer):
    """Batch normalisation over every axis but the channel axis 1, with running statistics.

    In training, each channel is normalised with the mean and variance of the batch and
    the running statistics are updated: running = decay * running + (1 - decay) * batch
    (the variance stored unbiased).  Inside `V.test_mode()` the running statistics are
    used instead (`F.batch_norm`).  gamma starts at one, beta at zero, the running mean
    at zero and the running variance at one.  The running statistics are buffers
    (`avg_mean`, `avg_var`): saved with the weights, never trained.  A training batch
    with one value per channel (one example of shape (1, C)) is refused, as in PyTorch: its
    variance is 0; predict one example inside `V.test_mode()`.

    Parameters
    ----------
    size : int, optional
        Number of channels (axis 1); inferred from the first input when None.
    decay : float
        Weight of the old running value, in [0, 1].
    eps : float
        Added to the variance.
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    momentum
        PyTorch's keyword: refused, naming `decay` (1 - momentum).
    """

    def __init__(self, size: int | None = None, decay: float = 0.9, eps: float = 2e-5, dtype=None, *,
                 momentum: float | None = None):
        F.nn.refuse_momentum("BatchNorm", momentum)
        super().__init__()
        self.size = None if size is None else _positive_int(size, "size", "BatchNorm")
        self.decay = _float(decay, "decay", "BatchNorm", high=1.0)
        self.eps = _positive_float(eps, "eps", "BatchNorm")
        self._dtype = _dtype_or_none(dtype, "BatchNorm")
        self.gamma = None
        self.beta = None
        self.register_buffer("avg_mean", None)
        self.register_buffer("avg_var", None)
        if self.size is not None:
            self._create(self._dtype or np.float64)

    def _create(self, dtype):
        self.gamma = Parameter(np.ones(self.size, dtype=dtype), name="gamma")
        self.beta = Parameter(np.zeros(self.size, dtype=dtype), name="beta")
        xp = get_array_module(self.gamma)   # where the parameters went (set_default_device)
        self.avg_mean = xp.zeros(self.size, dtype=dtype)
        self.avg_var = xp.ones(self.size, dtype=dtype)

    def _repr_settings(self):
        return {"decay": self.decay, "eps": self.eps}

    def _lazy_shapes(self):
        """('size', shapes of gamma, beta and the running statistics) until they exist."""
        if self.gamma is not None:
            return None
        return "size", {"gamma": (None,), "beta": (None,), "avg_mean": (None,), "avg_var": (None,)}

    def forward(self, x):
        """Normalise `x` of shape (N, C) or (N, C, ...) per channel."""
        x = V.as_variable(x, op="BatchNorm")
        shape = x.shape
        if len(shape) < 2:
            raise ValueError(
                f"BatchNorm: input must have a batch and a channel axis, got shape {tuple(shape)}"
            )
        if self.gamma is None:
            self.size = _inferred_size(shape[1], "size", shape, "BatchNorm")
            self._create(self._settle_dtype(x))
            self._settle_device(x)
        else:
            self._settle_dtype(x)
            if shape[1] != self.size:
                raise ValueError(
                    f"BatchNorm: input of shape {tuple(shape)} has {shape[1]} channels on axis 1, "
                    f"but the layer was built for size={self.size}"
                )
        return F.batch_norm(x, self.gamma, self.beta, self.avg_mean, self.avg_var,
                            decay=self.decay, eps=self.eps)
