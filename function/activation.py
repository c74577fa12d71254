"""Activation functions: sigmoid, the ReLU and ELU families, GELU, swish, mish, softplus, ...

(softmax and log_softmax: softmax.py.)

Each is one Forwarder: `forward` computes on ndarrays, stable for any finite input
(no overflow, no NumPy warnings), and `backward` is written with differentiable ops, so
every order of derivative works.  Piecewise-linear activations save their slope as a
constant array; their second derivative is zero away from the kinks.  float32 inputs
give float32 outputs and gradients; integer inputs are treated as float64 constants.
"""

import math

import numpy as np

import variable as V
from variable import ArrayLike, Forwarder, Function, Variable, backend, numpy_dispatch, series
from variable.axes import single_axis
from variable.backend import get_array_module, is_device_array
from variable.ops.elementwise import _multiply, _reduce, _times
from variable.ops.piecewise import _gated
from variable.ops.special import Ndtr, normal_cdf_arrays, normal_pdf_series
from variable.variable import _refuse_variables_inside


def as_float(x: ArrayLike, op: str, like: ArrayLike | None = None) -> Variable:
    """`x` as a floating-point Variable (package helper used by every nn function).

    A Variable or array (NumPy or GPU) of floating dtype is used as is; integer and
    boolean data become float64 constants; Python numbers and lists become float64, made
    on the device of `like` when given (constants follow the data, as in the engine).

    Raises
    ------
    TypeError
        If `x` is complex, non-numeric or not array-like, naming `op`.
    """
    if isinstance(x, Variable):
        if x.data.dtype.kind == "f":
            return x
        data = x.data
    elif isinstance(x, np.ndarray) or is_device_array(x):
        if x.dtype.kind == "f":
            return Variable(x, requires_grad=False)
        data = x
    elif isinstance(x, np.floating):
        return Variable(_made_like(np.asarray(x), like), requires_grad=False)   # keeps its dtype
    elif isinstance(x, (bool, int, float, np.number, list, tuple)):
        if isinstance(x, (list, tuple)):
            _refuse_variables_inside(x, op)
        try:
            data = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{op}: cannot turn {x!r} into a float array") from None
        return Variable(_made_like(data, like), requires_grad=False)
    else:
        raise TypeError(f"{op}: expects a Variable, ndarray or number, got {type(x).__name__}")
    if data.dtype.kind not in "biuf":
        raise TypeError(f"{op}: expects real numbers, got dtype {data.dtype}")
    return Variable(data.astype(np.float64), requires_grad=False)


def _made_like(data, like):
    """`data`, a NumPy array just made from numbers or a list, on the device of `like`."""
    if like is None or type(getattr(like, "_data", like)) is np.ndarray:
        return data
    return get_array_module(like).asarray(data)


def as_array(x: ArrayLike, op: str, like: ArrayLike | None = None, name: str = "t",
             like_name: str = "x") -> np.ndarray:
    """`x` as a constant array of real numbers, its dtype kept (labels, ids, scores).

    A Variable gives its data, an array (NumPy or GPU) itself; numbers and rectangular
    lists are converted by NumPy (a list of ints stays integer).  Given `like` (the
    Variable or array the result is used with), the result is on like's device:
    numbers and lists are made there; a NumPy array next to GPU data goes there only
    under `set_default_device("gpu")` (where V.Variable would put it), and is refused
    otherwise, as the engine refuses it (PyTorch too): it would cross to the device on
    every call.

    Raises
    ------
    TypeError
        If `x` is not array-like (str, None, dict, ...), a ragged or mixed list, or not
        real-valued, or (with `like`) it is on the other device, naming `op`, `name` and
        `like_name`.
    """
    made = False
    if isinstance(x, Variable):
        data = x.data
    elif isinstance(x, np.ndarray) or is_device_array(x):
        data = x
    elif isinstance(x, (bool, int, float, np.number, np.bool_, list, tuple)):
        try:
            data = np.asarray(x)
        except (TypeError, ValueError):
            raise TypeError(
                f"{op}: cannot turn the {type(x).__name__} into an array: it is ragged (rows of "
                f"different lengths) or mixes numbers with other objects"
            ) from None
        made = True
    else:
        raise TypeError(f"{op}: expects a Variable, ndarray, number or list, got {type(x).__name__}")
    if data.dtype.kind not in "biuf":
        raise TypeError(f"{op}: expects real numbers, got dtype {data.dtype}")
    if like is not None:
        target = getattr(like, "_data", like)
        if type(data) is not type(target):       # (both NumPy arrays: the common case)
            data = backend.constant_like(data, target, op, name, like_name, made)
    return data


def checked_indices(data, n: int, op: str, message: str, dtype) -> tuple:
    """Integer `data` (labels, ids) checked to lie in [0, n), as intp indices (package helper).

    On NumPy arrays a bad entry raises at once: ValueError(message), `{value}` in it standing
    for the first bad entry.  On a device, reading the data would be a sync, so the check
    runs there (`V.backend.device_check`): the indices come back clipped into [0, n) (nothing
    is read out of bounds) with `poison`, a 0-d array of `dtype`, 1, or NaN if an entry is
    bad; the op multiplies its result (and gradient) by it, and the error is raised at the
    next read of a NaN (`float(loss)`) or at `V.backend.synchronize()`.

    Returns
    -------
    (indices, poison): poison is None on the CPU.
    """
    if not is_device_array(data):
        if data.size and (data.min() < 0 or data.max() >= n):
            bad = int(data[(data < 0) | (data >= n)].ravel()[0])
            raise ValueError(message.format(value=bad))
        return data.astype(np.intp, copy=False), None
    if n == 0 and data.size:                  # every entry is bad: no index to clip to
        raise ValueError(message.format(value=data.ravel()[0].item()))
    xp = get_array_module(data)
    found = backend.device_check(op, (data < 0) | (data >= n), data, message)
    indices = xp.clip(data, 0, max(n - 1, 0)).astype(np.intp, copy=False)
    return indices, xp.where(found, math.nan, 1).astype(dtype)


_EXP_LIMITS = {}


def _exp_limit(dtype):
    """Largest whole t with exp(t) + 1 finite in `dtype` (708 for float64, 87 for float32)."""
    limit = _EXP_LIMITS.get(dtype)
    if limit is None:
        limit = _EXP_LIMITS[dtype] = float(math.floor(math.log(float(np.finfo(dtype).max))) - 1)
    return limit


def _sigmoid(x):
    """1 / (1 + exp(-x)) on an ndarray, to a few ulps everywhere, without overflow.

    Where x < -limit, exp(-x) + 1 would overflow: there the exponent is capped, and
    sigmoid(x), equal to exp(x) to working precision, is computed as such.  The common
    case costs one array and a pass more than the naive formula (this op sits in MLPs).
    On a device both cases are computed everywhere (`_sigmoid_unbranched`: asking
    whether any x < -limit would be a sync), to the same values.
    """
    limit = _exp_limit(x.dtype)
    if is_device_array(x):
        return _sigmoid_unbranched(x, limit)
    far_left = x.size and not x.min() >= -limit       # (NaN also takes the careful path)
    y = np.negative(x, out=np.empty_like(x))          # (out= keeps 0-d inputs arrays)
    if far_left:
        np.minimum(y, limit, out=y)
    np.exp(y, out=y)
    y += 1
    np.divide(1, y, out=y)                            # 1 / (1 + exp(-x))
    if far_left:
        tail = x < -limit
        y[tail] = np.exp(x[tail])                     # sigmoid(x) = exp(x) out there
    return y


def _sigmoid_unbranched(x, limit):
    """`_sigmoid`'s values with no branch on the data: 1 / (1 + exp(-x)), its exponent capped
    at `limit`, and exp(x) where x < -limit (its argument capped at 0: nothing overflows)."""
    y = np.negative(x)
    np.minimum(y, limit, out=y)
    np.exp(y, out=y)
    y += 1
    np.divide(1, y, out=y)                            # 1 / (1 + exp(-x))
    tail = np.minimum(x, 0)
    np.exp(tail, out=tail)                            # sigmoid(x) = exp(x) out there
    return np.where(x < -limit, tail, y)


# ----- sigmoid and tanh-like ------------------------------------------------------
class Sigmoid(Forwarder):
    """Logistic sigmoid."""

    def forward(self, x):
        return _sigmoid(x)

    save_for_backward = ("y",)

    def backward(self, gy):
        y, = self.outputs
        return Function(SigmoidGrad())(gy, y)         # d sigmoid = y (1 - y)

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        return _sigmoid_grad(gy, self.outputs[0]._data)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.sigmoid(x, y._data, output=True)   # y' = y (1 - y) x'


def _sigmoid_grad(gy, y):
    """gy * y * (1 - y) on arrays, in one new array."""
    g = np.subtract(1, y)
    if isinstance(g, np.generic):  # (0-d: NumPy gave a scalar, nothing to write into)
        return gy * (g * y)
    np.multiply(g, y, out=g)
    return _times(g, gy)


class SigmoidGrad(Forwarder):
    """gy * y * (1 - y), sigmoid's backward as one op: one new array where gy * y * (1 - y)
    makes three, and one node keeping gy and y in a graph of higher derivatives."""

    def forward(self, gy, y):
        return _sigmoid_grad(gy, y)

    save_for_backward = {"x0": ("x1",), "x1": ("x0", "x1")}   # g_gy reads y, g_y gy and y

    def backward(self, gg):
        gy, y = self.inputs
        g_gy = _reduce(Function(SigmoidGrad())(gg, y), gy) if gy.requires_grad else None  # y (1 - y) gg
        g_y = _reduce(gg * gy * (1 - 2 * y), y) if y.requires_grad else None        # (1 - 2y) gy gg
        return g_gy, g_y

    taylor_records = True

    def taylor(self, gy, y):
        d = series.mul(y, [1 - y[0]] + [-c for c in y[1:]])
        return series.mul(gy, d)                                       # gy y (1 - y)


def sigmoid(x: ArrayLike) -> Variable:
    """Logistic sigmoid 1 / (1 + exp(-x)), elementwise; exact and finite for any x.

    Parameters
    ----------
    x : Variable, ndarray or number

    Returns
    -------
    Variable of the shape and floating dtype of `x`.
    """
    return Function(Sigmoid())(as_float(x, "sigmoid"))


# ----- piecewise linear -----------------------------------------------------------
class PiecewiseLinear(Forwarder):
    """Base of activations whose gradient is a constant slope saved in forward: `self.slope`,
    an array of slopes, or a boolean mask of where the slope is `self.scale` (0 elsewhere).
    A mask passes gy where it holds and 0 elsewhere, whatever gy is there (gy * mask would be
    NaN where gy is inf, as under a sqrt at 0; PyTorch's relu and hardtanh give 0 too)."""

    save_for_backward = ()
    scale = 1

    def backward(self, gy):
        if self.slope.dtype != bool:
            return gy * self.slope                    # d f = slope
        g = V.where(self.slope, gy, 0)                # d f = scale inside, 0 beyond the kinks
        return g if self.scale == 1 else g * self.scale

    def _backward_arrays(self, gy):
        if self.slope.dtype != bool:
            return _multiply(gy, self.slope)
        g = _gated(gy, self.slope)
        return g if self.scale == 1 else g * self.scale

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + [self.slope * c * self.scale for c in x[1:]]   # y_k = slope x_k


class ReLU(PiecewiseLinear):
    """max(x, 0); the derivative at 0 is taken as 0."""

    def forward(self, x):
        self.slope = x > 0
        return np.maximum(x, 0)


class ReLU6(PiecewiseLinear):
    """min(max(x, 0), 6)."""

    def forward(self, x):
        self.slope = (x > 0) & (x < 6)
        return np.clip(x, 0, 6)


class LeakyReLU(PiecewiseLinear):
    """x for x > 0, alpha x otherwise."""

    def __init__(self, alpha):
        self.alpha = alpha

    def forward(self, x):
        # 1 where x > 0, alpha elsewhere (NaN too), exactly: 1 + alpha * 0 and 0 + alpha * 1
        # (np.where on a mask of random signs branches per entry: 3x the time)
        positive = x > 0
        self.slope = _multiply(~positive, x.dtype.type(self.alpha))
        self.slope += positive
        return x * self.slope


class HardSigmoid(PiecewiseLinear):
    """relu6(x + 3) / 6 = clip(x / 6 + 1/2, 0, 1)."""

    def forward(self, x):
        self.slope, self.scale = (x > -3) & (x < 3), x.dtype.type(1 / 6)   # (a scalar of x's dtype)
        return np.clip(x / 6 + 0.5, 0, 1)


def relu(x: ArrayLike) -> Variable:
    """Rectified linear unit max(x, 0), elementwise (derivative 0 at 0).

    Parameters
    ----------
    x : Variable, ndarray or number

    Returns
    -------
    Variable of the shape and floating dtype of `x`.
    """
    return Function(ReLU())(as_float(x, "relu"))


def relu6(x: ArrayLike) -> Variable:
    """ReLU capped at 6: min(max(x, 0), 6), elementwise (derivative 0 at the kinks).

    Parameters
    ----------
    x : Variable, ndarray or number

    Returns
    -------
    Variable of the shape and floating dtype of `x`.
    """
    return Function(ReLU6())(as_float(x, "relu6"))


def finite_number(value: float, op: str, name: str) -> float:
    """`value` as a finite float (an activation parameter such as alpha), else an error naming `op`.

    Raises
    ------
    TypeError
        If `value` is not a real number (bools, strings, arrays and None are refused).
    ValueError
        If it is NaN or infinite.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}: {name} must be a real number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise ValueError(f"{op}: {name} must be finite, got {value!r}")
    return float(value)


def true_or_false(value, op: str, name: str) -> bool:
    """`value` as a bool: True or False only (a string "False" would be truthy), else a TypeError
    naming `op` and `name`."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{op}: {name} must be True or False, got {value!r}")
    return bool(value)


def leaky_relu(x: ArrayLike, alpha: float = 0.01) -> Variable:
    """Leaky ReLU: x where x > 0, `alpha` * x elsewhere.

    Parameters
    ----------
    x : Variable, ndarray or number
    alpha : float
        Slope for x <= 0.

    Returns
    -------
    Variable of the shape and floating dtype of `x`.

    Raises
    ------
    TypeError
        If `alpha` is not a real number.
    ValueError
        If `alpha` is NaN or infinite.
    """
    alpha = finite_number(alpha, "leaky_relu", "alpha")
    return Function(LeakyReLU(alpha))(as_float(x, "leaky_relu"))


def hard_sigmoid(x: ArrayLike) -> Variable:
    """Piecewise-linear sigmoid relu6(x + 3) / 6 (PyTorch's definition), elementwise.

    Parameters
    ----------
    x : Variable, ndarray or number

    Returns
    -------
    Variable of the shape and floating dtype of `x`.
    """
    return Function(HardSigmoid())(as_float(x, "hard_sigmoid"))


class HardTanh(PiecewiseLinear):
    """clip(x, lo, hi)."""

    def __init__(self, lo, hi):
        self.lo = lo
        self.hi = hi

    def forward(self, x):
        self.slope = (x > self.lo) & (x < self.hi)
        return np.clip(x, self.lo, self.hi)


def hard_tanh(x: ArrayLike, min_val: float = -1.0, max_val: float = 1.0) -> Variable:
    """Hard tanh: x clipped to [`min_val`, `max_val`] (PyTorch's hardtanh; derivative 0 at the kinks).

    Parameters
    ----------
    x : Variable, ndarray or number
    min_val, max_val : float
        The interval, min_val < max_val.

    Returns
    -------
    Variable of the shape and floating dtype of `x`.

    Raises
    ------
    TypeError
        If a bound is not a real number.
    ValueError
        If a bound is not finite, or min_val >= max_val.
    """
    lo, hi = hard_tanh_bounds(min_val, max_val, "hard_tanh")
    return Function(HardTanh(lo, hi))(as_float(x, "hard_tanh"))


def hard_tanh_bounds(min_val, max_val, op):
    """(min_val, max_val) as finite floats with min_val < max_val, else an error naming `op`."""
    lo, hi = finite_number(min_val, op, "min_val"), finite_number(max_val, op, "max_val")
    if not lo < hi:
        raise ValueError(f"{op}: min_val must be less than max_val, got min_val={lo!r}, max_val={hi!r}")
    return lo, hi


# ----- smooth and piecewise-smooth --------------------------------------------------
class ELU(Forwarder):
    """scale x for x > 0, scale alpha (exp(x / beta) - 1) otherwise: ELU (scale = beta = 1),
    SELU (its fixed alpha and scale) and CELU (beta = alpha)."""

    def __init__(self, alpha, scale=1.0, beta=1.0):
        self.alpha = alpha
        self.scale = scale
        self.beta = beta

    def forward(self, x):
        # scale max(x, 0) + scale alpha expm1(min(x, 0) / beta): each part is exactly 0 where the
        # other applies (np.where on a mask of random signs branches per entry, 5x a product)
        self.positive = x > 0
        xp = get_array_module(x)
        z = xp.minimum(x, 0)
        if self.beta != 1:
            z = z / self.beta
        y = xp.expm1(z)
        y *= self.scale * self.alpha
        y += xp.maximum(x, 0) if self.scale == 1 else self.scale * xp.maximum(x, 0)
        return y.astype(x.dtype, copy=False)

    save_for_backward = ("x0",)

    def _exponent(self, x, where):
        """min(x, 0) / beta, with the ops of `where` (V for Variables, np for arrays)."""
        z = where(self.positive, 0.0, x)
        return z if self.beta == 1 else z * (1 / self.beta)

    def backward(self, gy):
        # the slope scale alpha e^(x/beta) / beta where x <= 0, from x: (y + scale alpha) / beta,
        # from the output, would lose its digits where e^(x/beta) is small
        x, = self.inputs
        c = self.scale * self.alpha / self.beta
        return gy * V.where(self.positive, self.scale, c * V.exp(self._exponent(x, V.where)))

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        c = self.scale * self.alpha / self.beta
        x, xp = self.inputs[0]._data, get_array_module(gy)
        z = xp.minimum(x, 0)                      # (min(x, 0) / beta: exp(z) <= 1, no inf * 0)
        if self.beta != 1:
            z = z * (1 / self.beta)
        slope = xp.exp(z)
        slope *= ~self.positive                   # c exp(z) where x <= 0 (and NaN), scale where
        slope *= c                                # x > 0, each exactly (0 + scale, c e + 0)
        slope += self.scale * self.positive
        return _multiply(gy, slope.astype(gy.dtype, copy=False))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        c = self.scale * self.alpha / self.beta
        slope = np.where(self.positive, self.scale, c * np.exp(self._exponent(x[0], np.where)))

        def h(ys, m):        # y' = h x': h = scale | (y + scale alpha) / beta, its value from x
            if m == 0:
                return slope
            return np.where(self.positive, 0.0, ys[m] if self.beta == 1 else ys[m] / self.beta)

        y, = self.outputs
        return series.ode(x, y._data, h)


def elu(x: ArrayLike, alpha: float = 1.0) -> Variable:
    """Exponential linear unit: x where x > 0, `alpha` * (exp(x) - 1) elsewhere.

    Parameters
    ----------
    x : Variable, ndarray or number
    alpha : float
        Value approached as x -> -inf is -alpha.

    Returns
    -------
    Variable of the shape and floating dtype of `x`.

    Raises
    ------
    TypeError
        If `alpha` is not a real number.
    ValueError
        If `alpha` is NaN or infinite.
    """
    alpha = finite_number(alpha, "elu", "alpha")
    return Function(ELU(alpha))(as_float(x, "elu"))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class SELU(ELU):
    """ELU scaled, with SELU's fixed alpha and scale (its own name in graphs and recordings)."""

    def __init__(self):
        super().__init__(_SELU_ALPHA, scale=_SELU_SCALE)


class CELU(ELU):
    """alpha (exp(x / alpha) - 1) left of 0: ELU with beta = alpha."""

    def __init__(self, alpha):
        super().__init__(alpha, beta=alpha)


def selu(x: ArrayLike) -> Variable:
    """Scaled ELU (Klambauer et al., 2017): scale * elu(x, alpha) with the fixed alpha =
    1.6732632... and scale = 1.0507009..., which keep self-normalizing networks' activations
    at mean 0 and variance 1.

    Parameters
    ----------
    x : Variable, ndarray or number

    Returns
    -------
    Variable of the shape and floating dtype of `x`.
    """
    return Function(SELU())(as_float(x, "selu"))


def positive_number(value: float, op: str, name: str) -> float:
    """`value` as a finite float > 0, else an error naming `op` (see `finite_number`)."""
    value = finite_number(value, op, name)
    if value <= 0:
        raise ValueError(f"{op}: {name} must be positive, got {value!r}")
    return value


def celu(x: ArrayLike, alpha: float = 1.0) -> Variable:
    """Continuously differentiable ELU (Barron, 2017): x where x > 0, `alpha` * (exp(x / alpha)
    - 1) elsewhere; its slope is 1 on both sides of 0 for every alpha.

    Parameters
    ----------
    x : Variable, ndarray or number
    alpha : float
        Positive; the value approached as x -> -inf is -alpha.

    Returns
    -------
    Variable of the shape and floating dtype of `x`.

    Raises
    ------
    TypeError
        If `alpha` is not a real number.
    ValueError
        If `alpha` is not finite and positive.
    """
    alpha = positive_number(alpha, "celu", "alpha")
    return Function(CELU(alpha))(as_float(x, "celu"))


def _hard_swish_slope(x):
    """d hard_swish / dx on an array, but for the gate: (2x + 3) / 6 on (-3, 3), 1 from 3 on
    (3/2 - 1/2 there), and -1/2 up to -3, which the caller's gate (x > -3) makes 0."""
    slope = np.clip(x, -3, 3)
    slope *= 1 / 3
    slope += 0.5
    slope -= (x >= 3) * slope.dtype.type(0.5)       # (0.5 * a mask would be float64: 2x the time)
    return slope


class HardSwish(Forwarder):
    """x relu6(x + 3) / 6; backward reads x alone (no masks kept, as PyTorch's)."""

    def forward(self, x):
        return x * np.clip(x + 3, 0, 6) / 6

    save_for_backward = ("x0",)

    def backward(self, gy):
        x, = self.inputs
        # d hard_swish = (2x + 3) / 6 on (-3, 3), 1 above, 0 below (whatever gy is there)
        middle = ((x._data > -3) & (x._data < 3)).astype(x.dtype)
        slope = x * (middle / 3) + (middle / 2 + (x._data >= 3))
        return V.where(x._data > -3, gy, 0) * slope

    def _backward_arrays(self, gy):
        x = self.inputs[0]._data
        return _multiply(_gated(gy, x > -3), _hard_swish_slope(x))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, x0 = self.outputs[0], self.inputs[0]._data
        middle, upper = ((x0 > -3) & (x0 < 3)).astype(x0.dtype), (x0 >= 3).astype(x0.dtype)
        square = series.square(x)                    # y = (x^2 + 3x) / 6 on (-3, 3), x above
        return [y._data] + [(square[k] + 3 * x[k]) * (middle / 6) + upper * x[k]
                            for k in range(1, len(x))]


def hard_swish(x: ArrayLike) -> Variable:
    """Hard swish x * relu6(x + 3) / 6 (MobileNetV3), elementwise.

    Parameters
    ----------
    x : Variable, ndarray or number

    Returns
    -------
    Variable of the shape and floating dtype of `x`.
    """
    return Function(HardSwish())(as_float(x, "hard_swish"))


class Swish(Forwarder):
    """x sigmoid(x)."""

    def forward(self, x):
        y = _sigmoid(x)                               # (a new array: x s(x) written into it)
        return x * y if y.ndim == 0 else np.multiply(y, x, out=y)

    save_for_backward = ("x0",)

    def backward(self, gy):
        x, = self.inputs
        s = sigmoid(x)
        return gy * (s * (1 + x * (1 - s)))           # d x s(x) = s + x s (1 - s)

    def _backward_arrays(self, gy):
        x = self.inputs[0]._data
        s = _sigmoid(x)
        if s.ndim == 0 or gy.shape != s.shape or gy.dtype != s.dtype:
            return _multiply(gy, _multiply(s, 1 + _multiply(x, 1 - s)))
        g = np.subtract(1, s)                         # the same products in one new array (10^6
        g *= x                                        # float32 entries: 3.3 -> 2.6 ms)
        g += 1
        g *= s
        g *= gy
        return g

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        return series.mul(x, series.sigmoid(x))       # y = x sigmoid(x)


def swish(x: ArrayLike) -> Variable:
    """Swish / SiLU x * sigmoid(x), elementwise (`silu` is the same function).

    Parameters
    ----------
    x : Variable, ndarray or number

    Returns
    -------
    Variable of the shape and floating dtype of `x`.
    """
    return Function(Swish())(as_float(x, "swish"))


silu = swish


def _softplus(x):
    """log(1 + exp(x)) on an ndarray, without overflow."""
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


class Softplus(Forwarder):
    """log(1 + exp(x)) computed as max(x, 0) + log1p(exp(-|x|))."""

    def forward(self, x):
        return _softplus(x)

    save_for_backward = ("x0",)

    def backward(self, gy):
        x, = self.inputs
        return gy * sigmoid(x)                        # d softplus = sigmoid

    def _backward_arrays(self, gy):
        return _multiply(gy, _sigmoid(self.inputs[0]._data))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.integral(x, y._data, series.sigmoid(x))   # y' = sigmoid(x) x'


def softplus(x: ArrayLike) -> Variable:
    """Softplus log(1 + exp(x)), elementwise; linear (no overflow) for large x.

    Parameters
    ----------
    x : Variable, ndarray or number

    Returns
    -------
    Variable of the shape and floating dtype of `x`.
    """
    return Function(Softplus())(as_float(x, "softplus"))


class LogSigmoid(Forwarder):
    """log sigmoid(x) = -softplus(-x), computed as min(x, 0) - log1p(exp(-|x|))."""

    def forward(self, x):
        return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))

    save_for_backward = ("x0",)

    def backward(self, gy):
        x, = self.inputs
        return gy * sigmoid(-x)                       # d log sigmoid = 1 - sigmoid = sigmoid(-x)

    def _backward_arrays(self, gy):
        return _multiply(gy, _sigmoid(-self.inputs[0]._data))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.integral(x, y._data, series.sigmoid(series.neg(x)))   # y' = sigmoid(-x) x'


def log_sigmoid(x: ArrayLike) -> Variable:
    """log(sigmoid(x)) = -softplus(-x), elementwise, without overflow or loss of digits for
    large |x| (PyTorch's logsigmoid, SciPy's log_expit).

    Parameters
    ----------
    x : Variable, ndarray or number

    Returns
    -------
    Variable of the shape and floating dtype of `x`.
    """
    return Function(LogSigmoid())(as_float(x, "log_sigmoid"))


class Mish(Forwarder):
    """x tanh(softplus(x))."""

    def forward(self, x):
        return x * np.tanh(_softplus(x))

    save_for_backward = ("x0",)

    def backward(self, gy):
        x, = self.inputs
        t = V.tanh(softplus(x))
        return gy * (t + x * (1 - t * t) * sigmoid(x))   # d mish = t + x (1 - t^2) sigmoid(x)

    def _backward_arrays(self, gy):
        x = self.inputs[0]._data
        t = np.tanh(_softplus(x))
        return _multiply(gy, t + _multiply(_multiply(x, 1 - t * t), _sigmoid(x)))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        softplus_x = series.integral(x, _softplus(x[0]), series.sigmoid(x))
        return series.mul(x, series.tanh(softplus_x), y0=y._data)


def mish(x: ArrayLike) -> Variable:
    """Mish (Misra, 2019): x * tanh(softplus(x)), elementwise.

    Parameters
    ----------
    x : Variable, ndarray or number

    Returns
    -------
    Variable of the shape and floating dtype of `x`.
    """
    return Function(Mish())(as_float(x, "mish"))


class SoftSign(Forwarder):
    """x / (1 + |x|)."""

    def forward(self, x):
        self.sign = np.sign(x)                        # constant on each side of 0 (0 at 0)
        return x / (1 + np.abs(x))

    save_for_backward = ("x0",)

    def backward(self, gy):
        x, = self.inputs
        return gy / V.square(1 + self.sign * x)       # d softsign = 1 / (1 + |x|)^2

    def _backward_arrays(self, gy):
        return gy / np.square(1 + np.abs(self.inputs[0]._data))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs                             # y = x / (1 + sign x) on each side of 0
        return [y._data] + series.div(x, [1 + np.abs(x[0])] + [self.sign * c for c in x[1:]])[1:]


def softsign(x: ArrayLike) -> Variable:
    """Softsign x / (1 + |x|), elementwise.  Its second derivative jumps at 0 (from 2 to -2):
    there it is taken as 0, as |x|'s slope is.

    Parameters
    ----------
    x : Variable, ndarray or number

    Returns
    -------
    Variable of the shape and floating dtype of `x`.
    """
    return Function(SoftSign())(as_float(x, "softsign"))


def prelu(x: ArrayLike, weight: ArrayLike) -> Variable:
    """Parametric ReLU (He et al., 2015): x where x > 0, weight * x elsewhere, with a learned
    slope `weight`, one for all entries or one per channel (x's axis 1), as PyTorch's prelu.

    Parameters
    ----------
    x : Variable, ndarray or number
    weight : Variable, ndarray or number
        1-D, of size 1 or of x.shape[1] (a number counts as size 1).

    Returns
    -------
    Variable of the shape of `x`, differentiable in `x` and in `weight`.

    Raises
    ------
    ValueError
        If `weight` is not 1-D (or a number), or its size is neither 1 nor the channels'.
    """
    x = as_float(x, "prelu")
    w = as_float(weight, "prelu", like=x)
    channels = x.shape[1] if x.ndim >= 2 else 1
    if w.ndim > 1 or w.ndim == 1 and w.shape[0] not in (1, channels):
        raise ValueError(
            f"prelu: weight of shape {w.shape} for x of shape {x.shape}: weight is 1-D, with one slope "
            f"for every entry (size 1) or one per channel, x's axis 1 (size {channels})"
        )
    if w.ndim == 1 and w.shape[0] == 1:
        w = V.reshape(w, ())                               # one slope: the output keeps x's shape
    elif w.ndim == 1:
        w = V.reshape(w, (channels,) + (1,) * (x.ndim - 2))   # (C, 1, 1): over axis 1 of (N, C, H, W)
    return V.where(x.data > 0, x, w * x)


def glu(x: ArrayLike, axis: int = -1) -> Variable:
    """Gated linear unit (Dauphin et al., 2017): x split in halves a, b along `axis`, a * sigmoid(b).

    Parameters
    ----------
    x : Variable, ndarray or number
        Its size along `axis` must be even.
    axis : int
        The axis halved.

    Returns
    -------
    Variable of the shape of `x` with that axis halved.

    Raises
    ------
    TypeError
        If `axis` is not an int.
    ValueError
        If `x` is 0-d, `axis` is out of range, or the axis's size is odd.
    """
    x = as_float(x, "glu")
    if x.ndim == 0:
        raise ValueError("glu: x is 0-d; glu halves an axis of it")
    axis = single_axis(axis, x.ndim, "glu", x.shape)
    if x.shape[axis] % 2:
        raise ValueError(f"glu: axis {axis} of x of shape {x.shape} has odd size {x.shape[axis]}; "
                         f"glu splits it into two halves")
    a, b = V.split(x, 2, axis=axis)
    return a * sigmoid(b)


# ----- GELU and the error function ------------------------------------------------------
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_GELU_CUBIC = 0.044715


_GELU_SATURATED = 50.0   # tanh(u(x)) is exactly +-1 for |x| >= 10; clipping keeps x^3 finite


class GELUTanh(Forwarder):
    """x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""

    def forward(self, x):
        xc = np.clip(x, -_GELU_SATURATED, _GELU_SATURATED)
        u = _SQRT_2_OVER_PI * (xc + _GELU_CUBIC * xc * xc * xc)
        return 0.5 * np.maximum(x, -_GELU_SATURATED) * (1 + np.tanh(u))   # (-0 at -inf, not -inf * 0)

    save_for_backward = ("x0",)

    def backward(self, gy):
        x, = self.inputs
        xc = V.clip(x, -_GELU_SATURATED, _GELU_SATURATED)
        t = V.tanh(_SQRT_2_OVER_PI * (xc + _GELU_CUBIC * xc ** 3))
        du = _SQRT_2_OVER_PI * (1 + (3 * _GELU_CUBIC) * xc * xc)
        # d gelu = (1 + t)/2 + x/2 (1 - t^2) u', with xc for x: 1 - t^2 is 0 where they differ
        return gy * (0.5 * (1 + t) + 0.5 * xc * (1 - t * t) * du)

    def _backward_arrays(self, gy):
        x = self.inputs[0]._data
        xc = np.clip(x, -_GELU_SATURATED, _GELU_SATURATED)
        t = np.tanh(_SQRT_2_OVER_PI * (xc + _GELU_CUBIC * xc * xc * xc))
        du = _SQRT_2_OVER_PI * (1 + (3 * _GELU_CUBIC) * xc * xc)
        return _multiply(gy, 0.5 * (1 + t) + 0.5 * xc * (1 - t * t) * du)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        # y = x/2 (1 + tanh(u)), u = sqrt(2/pi) (xc + 0.044715 xc^3); xc is constant where clipped
        inside = np.abs(x[0]) <= _GELU_SATURATED
        xc = [np.clip(x[0], -_GELU_SATURATED, _GELU_SATURATED)] + [c * inside for c in x[1:]]
        u = series.scale(series.add(xc, series.scale(series.power(xc, 3), _GELU_CUBIC)), _SQRT_2_OVER_PI)
        t = series.tanh(u)
        return [0.5 * (x[k] + series.cauchy(x, t, k)) for k in range(len(x))]


class GELUErf(Forwarder):
    """x Phi(x) with Phi(x) = (1 + erf(x / sqrt 2)) / 2 the normal CDF."""

    def forward(self, x):
        return normal_cdf_arrays(x, "gelu").astype(x.dtype, copy=False)

    save_for_backward = ("x0",)

    def backward(self, gy):
        x, = self.inputs
        cdf = Function(Ndtr())(x)
        pdf = V.exp(-0.5 * x * x) * _INV_SQRT_2PI
        # d x Phi(x) = Phi(x) + x phi(x); x clamped where phi is 0 (1 at inf, not inf * 0)
        return gy * (cdf + V.clip(x, -60.0, 60.0) * pdf)

    def _backward_arrays(self, gy):
        x = self.inputs[0]._data
        return _multiply(gy, normal_cdf_arrays(x, "slope").astype(x.dtype, copy=False))

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        x0 = x[0]                                    # Phi(x_0), recorded in a recording pass
        if isinstance(x0, Variable):
            cdf0 = Function(Ndtr())(x0)
        else:
            cdf0 = normal_cdf_arrays(x0).astype(x0.dtype, copy=False)
        cdf = series.integral(x, cdf0, normal_pdf_series(x))
        return series.mul(x, cdf)                    # y = x Phi(x), Phi' = phi


GELU_FORMS = ("tanh", "none")
"""The values of gelu's `approximate`."""


def gelu_approximate(approximate: str, op: str = "gelu") -> str:
    """`approximate` checked to be one of GELU_FORMS, else a ValueError naming `op`.

    Anything else (another string, None, a bool, an array) is refused with a ValueError,
    without comparing it to the strings (an array would compare elementwise).

    Raises
    ------
    ValueError
        If `approximate` is not the str "tanh" or "none".
    """
    if not (isinstance(approximate, str) and approximate in GELU_FORMS):
        simple = approximate is None or isinstance(approximate, (str, bool, int, float))
        got = repr(approximate) if simple else f"a value of type {type(approximate).__name__}"
        raise ValueError(f'{op}: approximate must be "tanh" or "none", got {got}')
    return approximate


def gelu(x: ArrayLike, approximate: str = "none") -> Variable:
    """Gaussian error linear unit x * Phi(x), elementwise.

    Parameters
    ----------
    x : Variable, ndarray or number
    approximate : {"none", "tanh"}
        "none" (default, as PyTorch's): the exact x/2 (1 + erf(x / sqrt 2)), with an erf
        accurate to ~1e-15 (NumPy has none; see `_normal_cdf`).
        "tanh": x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as in BERT/GPT-2, within
        ~5e-4 of the exact form.

    Returns
    -------
    Variable of the shape and floating dtype of `x`.

    Raises
    ------
    ValueError
        If `approximate` is neither "tanh" nor "none" (None and non-strings included).
    """
    forwarder = GELUTanh() if gelu_approximate(approximate) == "tanh" else GELUErf()
    return Function(forwarder)(as_float(x, "gelu"))


__all__ = [
    "sigmoid", "relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "swish", "silu", "mish",
    "hard_sigmoid", "hard_swish", "hard_tanh", "softplus", "softsign", "log_sigmoid", "prelu", "glu",
]


# scipy.special's ufuncs on a Variable record these ops (variable/numpy_dispatch.py)
numpy_dispatch.register_scipy_ufunc("expit", sigmoid)
numpy_dispatch.register_scipy_ufunc("log_expit", log_sigmoid)
