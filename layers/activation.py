"""One layer class per activation function, for use in Sequential and as attributes.

A parameter (alpha, approximate, axis) is checked when the layer is built, by the same
validator its function uses, so a bad value fails at once rather than on the first call.
"""

import numpy as np

import function as F
from function.activation import finite_number, gelu_approximate, hard_tanh_bounds, positive_number
from function.softmax import axis_type

from .layer import Layer
from .linear import _dtype_or_none, _positive_int
from .parameter import Parameter


class ReLU(Layer):
    """max(x, 0), elementwise (`F.relu`)."""

    def forward(self, x):
        """Apply F.relu."""
        return F.relu(x)


class ReLU6(Layer):
    """min(max(x, 0), 6), elementwise (`F.relu6`)."""

    def forward(self, x):
        """Apply F.relu6."""
        return F.relu6(x)


class LeakyReLU(Layer):
    """x for x > 0, alpha * x otherwise (`F.leaky_relu`).

    Parameters
    ----------
    alpha : float
        Slope for negative inputs.

    Raises
    ------
    TypeError
        If `alpha` is not a real number.
    ValueError
        If `alpha` is NaN or infinite.
    """

    def __init__(self, alpha: float = 0.01):
        super().__init__()
        self.alpha = finite_number(alpha, "LeakyReLU", "alpha")

    def _repr_settings(self):
        return {"alpha": self.alpha}

    def forward(self, x):
        """Apply F.leaky_relu."""
        return F.leaky_relu(x, self.alpha)


class PReLU(Layer):
    """Parametric ReLU: x for x > 0, W * x otherwise, the slope W learned (`F.prelu`).

    Parameters
    ----------
    num_parameters : int
        1 for one slope shared by every entry, or the number of channels (the input's axis 1)
        for one slope each, as PyTorch's nn.PReLU.
    init : float
        The slopes' initial value.
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.

    Attributes
    ----------
    W : Parameter of shape (num_parameters,)

    Raises
    ------
    TypeError
        If `init` is not a real number or `dtype` not a floating-point dtype.
    ValueError
        If `num_parameters` is not a positive int or `init` not finite.
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, dtype=None):
        super().__init__()
        self.num_parameters = _positive_int(num_parameters, "num_parameters", "PReLU")
        init = finite_number(init, "PReLU", "init")
        self._dtype = _dtype_or_none(dtype, "PReLU")
        self.W = Parameter(np.full(self.num_parameters, init, dtype=self._dtype or np.float64), name="W")

    def forward(self, x):
        """Apply F.prelu with the layer's slopes."""
        self._settle_dtype(x)
        return F.prelu(x, self.W)


class ELU(Layer):
    """x for x > 0, alpha * (exp(x) - 1) otherwise (`F.elu`).

    Parameters
    ----------
    alpha : float
        -alpha is the limit as x -> -inf.

    Raises
    ------
    TypeError
        If `alpha` is not a real number.
    ValueError
        If `alpha` is NaN or infinite.
    """

    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = finite_number(alpha, "ELU", "alpha")

    def _repr_settings(self):
        return {"alpha": self.alpha}

    def forward(self, x):
        """Apply F.elu."""
        return F.elu(x, self.alpha)


class SELU(Layer):
    """Scaled ELU with its fixed alpha and scale, for self-normalizing networks (`F.selu`)."""

    def forward(self, x):
        """Apply F.selu."""
        return F.selu(x)


class CELU(Layer):
    """x for x > 0, alpha * (exp(x / alpha) - 1) otherwise (`F.celu`).

    Parameters
    ----------
    alpha : float
        Positive; -alpha is the limit as x -> -inf.

    Raises
    ------
    TypeError
        If `alpha` is not a real number.
    ValueError
        If `alpha` is not finite and positive.
    """

    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = positive_number(alpha, "CELU", "alpha")

    def _repr_settings(self):
        return {"alpha": self.alpha}

    def forward(self, x):
        """Apply F.celu."""
        return F.celu(x, self.alpha)


class GELU(Layer):
    """Gaussian error linear unit (`F.gelu`).

    Parameters
    ----------
    approximate : {"none", "tanh"}
        "none" (default, as PyTorch's) for the exact erf form, "tanh" for the tanh
        approximation.

    Raises
    ------
    ValueError
        If `approximate` is neither "tanh" nor "none" (None and non-strings included).
    """

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = gelu_approximate(approximate, "GELU")

    def _repr_settings(self):
        return {"approximate": self.approximate}

    def forward(self, x):
        """Apply F.gelu."""
        return F.gelu(x, approximate=self.approximate)


class Swish(Layer):
    """x * sigmoid(x), also called SiLU (`F.swish`)."""

    def forward(self, x):
        """Apply F.swish."""
        return F.swish(x)


class Mish(Layer):
    """x * tanh(softplus(x)) (`F.mish`)."""

    def forward(self, x):
        """Apply F.mish."""
        return F.mish(x)


class Sigmoid(Layer):
    """1 / (1 + exp(-x)) (`F.sigmoid`)."""

    def forward(self, x):
        """Apply F.sigmoid."""
        return F.sigmoid(x)


class Tanh(Layer):
    """Hyperbolic tangent (`F.tanh`)."""

    def forward(self, x):
        """Apply F.tanh."""
        return F.tanh(x)


class HardSigmoid(Layer):
    """Piecewise-linear sigmoid (`F.hard_sigmoid`)."""

    def forward(self, x):
        """Apply F.hard_sigmoid."""
        return F.hard_sigmoid(x)


class HardTanh(Layer):
    """x clipped to [min_val, max_val] (`F.hard_tanh`, PyTorch's Hardtanh).

    Parameters
    ----------
    min_val, max_val : float
        The interval, min_val < max_val.

    Raises
    ------
    TypeError
        If a bound is not a real number.
    ValueError
        If a bound is not finite, or min_val >= max_val.
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0):
        super().__init__()
        self.min_val, self.max_val = hard_tanh_bounds(min_val, max_val, "HardTanh")

    def _repr_settings(self):
        return {"min_val": self.min_val, "max_val": self.max_val}

    def forward(self, x):
        """Apply F.hard_tanh."""
        return F.hard_tanh(x, self.min_val, self.max_val)


class HardSwish(Layer):
    """x * hard_sigmoid(x) (`F.hard_swish`)."""

    def forward(self, x):
        """Apply F.hard_swish."""
        return F.hard_swish(x)


class SoftPlus(Layer):
    """log(1 + exp(x)) (`F.softplus`)."""

    def forward(self, x):
        """Apply F.softplus."""
        return F.softplus(x)


class SoftSign(Layer):
    """x / (1 + |x|) (`F.softsign`)."""

    def forward(self, x):
        """Apply F.softsign."""
        return F.softsign(x)


class LogSigmoid(Layer):
    """log(sigmoid(x)), computed without overflow (`F.log_sigmoid`)."""

    def forward(self, x):
        """Apply F.log_sigmoid."""
        return F.log_sigmoid(x)


class Softmax(Layer):
    """exp(x) / sum(exp(x)) along `axis` (`F.softmax`).

    Parameters
    ----------
    axis : int, tuple of ints or None
        Axis (or axes; None: all) to normalise over; its range is checked on each call.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints.
    """

    def __init__(self, axis: int | tuple[int, ...] | None = -1):
        super().__init__()
        self.axis = axis_type(axis, "Softmax")

    def _repr_settings(self):
        return {"axis": self.axis}

    def forward(self, x):
        """Apply F.softmax."""
        return F.softmax(x, axis=self.axis)
