"""Layers as functions: linear, dropout, layer_norm, batch_norm, embed_id, and accuracy.

The parameters (weights, biases, running statistics) are arguments: the `layers`
package owns them and calls these.  Backward passes are written with differentiable
ops, so every function here can be differentiated to any order; `accuracy` alone has
no gradient (it returns a plain number).
"""

import math

import numpy as np

import variable as V
from variable import Forwarder, Function, Variable, series
from variable.backend import get_array_module, is_device_array, writes_through
from variable.operators import operator_on_rows
from variable.ops.elementwise import _multiply
from variable.ops.matmul import MatMul2D, _mm_arrays
from variable.ops.reduction import Mean

from .activation import (
    _SELU_ALPHA,
    _SELU_SCALE,
    ArrayLike,
    as_array,
    as_float,
    checked_indices,
    finite_number,
)


# ----- linear ---------------------------------------------------------------------------
class Linear(Forwarder):
    """x @ W (+ b) for x of shape (..., in), W (in, out), b (out,): one graph node."""

    def forward(self, x, W, b=None):
        # (rows counted, not -1: reshape cannot infer them when an axis is empty, as x of (0,))
        x2 = x if x.ndim == 2 else x.reshape(math.prod(x.shape[:-1]), x.shape[-1])
        y = x2 @ W
        if b is not None:
            if b.dtype == y.dtype:
                y += b
            else:
                y = y + b
        return y if x.ndim == 2 else y.reshape(x.shape[:-1] + (W.shape[1],))

    save_for_backward = ("x0", "x1")

    def backward(self, gy):
        x, W = self.inputs[:2]
        rows = math.prod(x.shape[:-1])
        gy2 = gy if gy.ndim == 2 else V.reshape(gy, (rows, W.shape[1]))
        gx = gW = gb = None
        if x.requires_grad:
            gx = Function(MatMul2D(transpose_b=True))(gy2, W)   # gy W^T
            if x.ndim != 2:
                gx = V.reshape(gx, x.shape)
        if W.requires_grad:
            x2 = x if x.ndim == 2 else V.reshape(x, (rows, W.shape[0]))
            gW = Function(MatMul2D(transpose_a=True))(x2, gy2)  # x^T gy
        if len(self.inputs) == 3:
            b = self.inputs[2]
            if b.requires_grad:
                gb = V.sum(gy2, axis=0)                         # sum of gy over rows
            return gx, gW, gb
        return gx, gW

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        x, W = self.inputs[:2]
        shape, (n_in, n_out) = x._data.shape, W._data.shape
        rows = math.prod(shape[:-1])
        gy2 = gy if gy.ndim == 2 else gy.reshape(rows, n_out)
        gx = gW = None
        if x.requires_grad:
            gx = _mm_arrays(gy2, W._data, False, True)            # gy W^T
            if len(shape) != 2:
                gx = gx.reshape(shape)
        if W.requires_grad:
            x2 = x._data if len(shape) == 2 else x._data.reshape(rows, n_in)
            gW = _mm_arrays(x2, gy2, True, False)                 # x^T gy
        if len(self.inputs) == 3:
            b = self.inputs[2]
            return gx, gW, (gy2.sum(axis=0) if b.requires_grad else None)
        return gx, gW

    taylor_records = True

    def taylor(self, x, W, b=None):
        y, = self.outputs                            # y_k = sum_j x_j W_(k-j) + b_k
        if b is None or len(b) == 1:                 # a constant bias is in y_0 alone
            return series.mul(x, W, product=np.matmul, y0=y._data)   # (y_0 known: no matmul)
        return series.add(series.mul(x, W, product=np.matmul, y0=y._data - b[0]), b)


def linear(x: ArrayLike, W: ArrayLike, b: ArrayLike | None = None) -> Variable:
    """Affine map x @ W + b over the last axis of `x`, as one fused op.

    Parameters
    ----------
    x : Variable or ndarray
        Inputs of shape (..., in_size), usually (N, in_size).
    W : Variable or ndarray
        Weights of shape (in_size, out_size) (DeZero's layout: y = x @ W).
    b : Variable, ndarray or None
        Bias of shape (out_size,).

    Returns
    -------
    Variable of shape (..., out_size).

    Raises
    ------
    ValueError
        If `W` is not 2-D, `x`'s last axis is not W.shape[0], or `b` is not (out_size,).
    """
    op = "linear"
    x, W = as_float(x, op), as_float(W, op)
    if W.ndim != 2:
        raise ValueError(f"{op}: W must be 2-D (in_size, out_size), got shape {W.shape}")
    if x.ndim == 0 or x.shape[-1] != W.shape[0]:
        raise ValueError(
            f"{op}: x of shape {x.shape} does not match W of shape {W.shape}: the last axis "
            f"of x must equal W.shape[0] (W is (in_size, out_size))"
            + ("; PyTorch's F.linear takes its weight as (out_size, in_size): pass W.T"
               if x.ndim and x.shape[-1] == W.shape[1] else "")
        )
    if b is None:
        return Function(Linear())(x, W)
    b = as_float(b, op)
    if b.shape != (W.shape[1],):
        raise ValueError(
            f"{op}: b must have shape ({W.shape[1]},) to match W of shape {W.shape}, got {b.shape}"
        )
    return Function(Linear())(x, W, b)


# ----- dropout ----------------------------------------------------------------------------
class Dropout(Forwarder):
    """x * mask / (1 - p) with a fresh Bernoulli(1 - p) mask (inverted dropout); the mask has
    x's shape, or spans only its first `leading` axes (whole channels dropped) and broadcasts."""

    def __init__(self, p, leading=None):
        self.p, self.leading = p, leading

    def _keep(self, x):
        """The mask of kept entries (or channels), drawn on x's device."""
        shape = x.shape if self.leading is None else x.shape[:self.leading] + (1,) * (x.ndim - self.leading)
        return get_array_module(x).random.random_sample(shape) >= self.p

    def forward(self, x):
        keep = self._keep(x)
        self.scale = np.multiply(keep, 1 / (1 - self.p), dtype=x.dtype)
        return x * self.scale

    save_for_backward = ()

    def backward(self, gy):
        return gy * self.scale                         # the same mask scales the gradient

    def _backward_arrays(self, gy):  # `backward` on arrays, for passes that record nothing
        return _multiply(gy, self.scale)

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        return [y._data] + [c * self.scale for c in x[1:]]   # y_k = mask x_k / (1 - p)


def _drop_probability(p, op):
    """`p` as a float in [0, 1), else a TypeError or ValueError naming `op`."""
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}: p must be a number in [0, 1), got {type(p).__name__}")
    if not 0 <= p < 1:
        raise ValueError(f"{op}: p must be in [0, 1), got {p!r}")
    return float(p)


def dropout(x: ArrayLike, p: float = 0.5, *, dropout_ratio: float | None = None,
            training: bool | None = None) -> Variable:
    """Inverted dropout: zero each entry with probability `p`, scale the rest by 1/(1-p).

    In `V.test_mode()` (and for p = 0) it is the identity and returns `x` itself.  The
    mask is drawn on x's device from its library's global random state: on the CPU
    NumPy's, which `L.seed(n)` (it seeds the initial weights too) or `np.random.seed(n)`
    reproduces; on a GPU CuPy's, which `L.seed(n)` reseeds too once the GPU is in use
    (or `cupy.random.seed(n)`).  CuPy draws from a generator of its own, so the same seed
    gives other masks on a GPU than on the CPU, the same ones on the same device.

    Parameters
    ----------
    x : Variable, ndarray or number
    p : float
        Drop probability in [0, 1).
    dropout_ratio
        DeZero's name for `p`: refused, naming `p`.
    training
        PyTorch's switch: refused, naming `V.test_mode()`, which is gengrad's.

    Returns
    -------
    Variable of the shape and floating dtype of `x`.

    Raises
    ------
    TypeError
        If `dropout_ratio` or `training` is given.
    ValueError
        If `p` is outside [0, 1).
    """
    if dropout_ratio is not None:                    # DeZero's name for it
        raise TypeError(f"dropout: gengrad calls the drop probability p, as PyTorch does: "
                        f"F.dropout(x, p={dropout_ratio!r})")
    _refuse_training_keyword("dropout", training)
    p = _drop_probability(p, "dropout")
    x = as_float(x, "dropout")
    if p == 0 or not V.is_train():
        return x
    return Function(Dropout(p))(x)


class AlphaDropout(Dropout):
    """a (x mask + alpha' (1 - mask)) + b: dropped entries set to SELU's negative saturation
    alpha' = -scale alpha, then an affine map that keeps a zero mean and unit variance; its
    derivative is Dropout's, the mask times a (`self.scale`)."""

    def forward(self, x):
        keep = self._keep(x)
        saturation = -_SELU_SCALE * _SELU_ALPHA
        a = ((1 - self.p) * (1 + self.p * saturation ** 2)) ** -0.5
        self.scale = np.multiply(keep, a, dtype=x.dtype)
        shift = np.where(keep, 0.0, a * saturation) - a * saturation * self.p
        return x * self.scale + shift.astype(x.dtype, copy=False)


def alpha_dropout(x: ArrayLike, p: float = 0.5, *, training: bool | None = None) -> Variable:
    """Dropout that keeps SELU's self-normalisation (Klambauer et al., 2017; PyTorch's
    F.alpha_dropout): each entry is set, with probability `p`, to SELU's negative saturation
    -1.7581, and the result is mapped by a x + b so that inputs of zero mean and unit
    variance keep them.

    In `V.test_mode()` (and for p = 0) it is the identity and returns `x` itself; its mask
    is drawn as `F.dropout`'s is (L.seed reproduces it).

    Parameters
    ----------
    x : Variable, ndarray or number
    p : float
        Drop probability in [0, 1).
    training
        PyTorch's switch: refused, naming `V.test_mode()`, which is gengrad's.

    Returns
    -------
    Variable of the shape and floating dtype of `x`.

    Raises
    ------
    TypeError, ValueError
        If `p` is not a number in [0, 1), or `training` is given.
    """
    _refuse_training_keyword("alpha_dropout", training)
    p = _drop_probability(p, "alpha_dropout")
    x = as_float(x, "alpha_dropout")
    if p == 0 or not V.is_train():
        return x
    return Function(AlphaDropout(p))(x)


_CHANNEL_DROPOUT = {"dropout1d": 1, "dropout2d": 2, "dropout3d": 3}
"""The channel dropouts and their numbers of spatial axes."""


def _channel_dropout(op, x, p, training, alpha=False):
    """`op` (dropout1d/2d/3d, feature_alpha_dropout): whole channels of x (N, C, ...) dropped."""
    _refuse_training_keyword(op, training)
    p = _drop_probability(p, op)
    x = as_float(x, op)
    if op == "feature_alpha_dropout":
        if x.ndim < 2:
            raise ValueError(f"{op}: x must be (N, C, ...), at least 2-D, got shape {x.shape}")
        leading = 2
    else:
        dims = _CHANNEL_DROPOUT[op]
        spatial = {1: "L", 2: "H, W", 3: "D, H, W"}[dims]
        if op == "dropout2d" and x.ndim == 3:
            raise ValueError(
                f"dropout2d: x of shape {x.shape} is 3-D, which PyTorch reads as (N, C, L) (with a "
                f"warning that a later version reads (C, H, W)); say which: F.dropout1d(x, p) for "
                f"sequences (N, C, L), F.dropout2d(x[None], p)[0] for one image (C, H, W)")
        if x.ndim not in (dims + 1, dims + 2):
            raise ValueError(f"{op}: x must be (N, C, {spatial}) or (C, {spatial}), got shape {x.shape}")
        leading = x.ndim - dims
    if p == 0 or not V.is_train():
        return x
    return Function((AlphaDropout if alpha else Dropout)(p, leading))(x)


def _channel_dropout_doc(op, layout):
    return f"""Dropout of whole channels (PyTorch's F.{op}): each channel of x {layout} is zeroed
    with probability `p` for all its positions, the rest scaled by 1/(1-p).

    In `V.test_mode()` (and for p = 0) it is the identity and returns `x` itself; its mask is
    drawn as `F.dropout`'s is (L.seed reproduces it).

    Parameters
    ----------
    x : Variable or ndarray
        {layout}.
    p : float
        Drop probability in [0, 1).
    training
        PyTorch's switch: refused, naming `V.test_mode()`, which is gengrad's.

    Returns
    -------
    Variable of the shape and floating dtype of `x`.

    Raises
    ------
    TypeError, ValueError
        If `p` is not a number in [0, 1), `training` is given, or x has another number of axes.
    """


def dropout1d(x: ArrayLike, p: float = 0.5, *, training: bool | None = None) -> Variable:
    return _channel_dropout("dropout1d", x, p, training)


def dropout2d(x: ArrayLike, p: float = 0.5, *, training: bool | None = None) -> Variable:
    return _channel_dropout("dropout2d", x, p, training)


def dropout3d(x: ArrayLike, p: float = 0.5, *, training: bool | None = None) -> Variable:
    return _channel_dropout("dropout3d", x, p, training)


dropout1d.__doc__ = _channel_dropout_doc("dropout1d", "(N, C, L) or (C, L)")
dropout2d.__doc__ = _channel_dropout_doc("dropout2d", "(N, C, H, W) (a 3-D x is refused: it is ambiguous)")
dropout3d.__doc__ = _channel_dropout_doc("dropout3d", "(N, C, D, H, W) or (C, D, H, W)")


def feature_alpha_dropout(x: ArrayLike, p: float = 0.5, *, training: bool | None = None) -> Variable:
    """Alpha dropout of whole channels (PyTorch's F.feature_alpha_dropout): each channel of x
    (N, C, ...) is set, with probability `p`, to SELU's negative saturation at all its positions,
    then the map a x + b of `F.alpha_dropout` keeps zero mean and unit variance.

    In `V.test_mode()` (and for p = 0) it is the identity and returns `x` itself.

    Parameters
    ----------
    x : Variable or ndarray
        (N, C, ...), at least 2-D (a 2-D x has one entry a channel).
    p : float
        Drop probability in [0, 1).
    training
        PyTorch's switch: refused, naming `V.test_mode()`, which is gengrad's.

    Returns
    -------
    Variable of the shape and floating dtype of `x`.

    Raises
    ------
    TypeError, ValueError
        If `p` is not a number in [0, 1), `training` is given, or x has fewer than 2 axes.
    """
    return _channel_dropout("feature_alpha_dropout", x, p, training, alpha=True)


# ----- normalisation -----------------------------------------------------------------------
class Normalize(Forwarder):
    """(x - mean) / sqrt(var + eps) with mean and (population) variance over `axes`."""

    def __init__(self, axes, eps):
        self.axes, self.eps = axes, eps

    def _rows(self, x):
        """Whether x is a NumPy array normalised over its last axis alone (layer norm's rows):
        there a row's sum of products is one einsum, with no array of the products (with the
        backward in one new array: layer_norm's step on (1000, 1000) float32, 6.95-7.12 ->
        5.10-5.56 ms)."""
        return type(x) is np.ndarray and self.axes == (x.ndim - 1,) and x.dtype.kind == "f"

    def forward(self, x):
        self.mean = x.mean(axis=self.axes, keepdims=True)
        centred = x - self.mean
        if self._rows(x):
            self.var = np.einsum("...i,...i->...", centred, centred)[..., None] / x.shape[-1]
        else:
            self.var = np.mean(centred * centred, axis=self.axes, keepdims=True)
        centred /= np.sqrt(self.var + self.eps)
        return centred

    save_for_backward = ("x0", "y")

    def backward(self, gy):
        x, = self.inputs
        xhat, = self.outputs
        axes = self.axes
        inv_std = (V.variance(x, axis=axes, keepdims=True) + self.eps) ** -0.5
        # d xhat: inv_std (gy - mean(gy) - xhat mean(gy xhat))
        g_mean = V.mean(gy, axis=axes, keepdims=True)
        g_proj = V.mean(gy * xhat, axis=axes, keepdims=True)
        return inv_std * (gy - g_mean - xhat * g_proj)

    def _backward_arrays(self, gy):
        xhat, axes = self.outputs[0]._data, self.axes
        inv_std = (self.var + self.eps) ** -0.5       # (forward's variance, its statistics' arithmetic)
        g_mean = Mean(axes, True).forward(gy)
        if self._rows(xhat) and gy.shape == xhat.shape and gy.dtype == xhat.dtype:
            g_proj = np.einsum("...i,...i->...", gy, xhat)[..., None] / xhat.shape[-1]
            g = _multiply(xhat, g_proj)             # inv_std (gy - mean(gy) - xhat mean(gy xhat)),
            g += g_mean                             # in one new array
            np.subtract(gy, g, out=g)
            g *= inv_std
            return g
        g_proj = Mean(axes, True).forward(_multiply(gy, xhat))
        return _multiply(inv_std, gy - g_mean - _multiply(xhat, g_proj))

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        axes = self.axes
        mean, var0 = self.mean, self.var              # forward's statistics, arrays
        if isinstance(x[0], Variable):                # a recording pass: recorded from x_0 again
            mean = np.mean(x[0], axis=axes, keepdims=True)
            var0 = np.mean(np.square(x[0] - mean), axis=axes, keepdims=True)
        # y = c (v + eps)^(-1/2), c = x - mean(x), v = mean(c^2)
        centred = [x[0] - mean] + [c - c.mean(axis=axes, keepdims=True) for c in x[1:]]
        var = series.map_linear(series.square(centred)[1:], lambda c: c.mean(axis=axes, keepdims=True))
        inv_std = series.power([var0 + self.eps] + var, -0.5)
        return [y._data] + series.mul(centred, inv_std, y0=y._data)[1:]


def _positive(value, op, name):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}: {name} must be a number, got {type(value).__name__}")
    if not 0 < value < math.inf:
        raise ValueError(f"{op}: {name} must be positive and finite, got {value!r}")
    return float(value)


def _check_scale_shift(op, x, size, **params):
    """Refuse a scale or shift (gamma=..., beta=...) of another shape than (size,), naming `op`
    and the shapes."""
    for name, v in params.items():
        if v.shape != (size,):
            raise ValueError(f"{op}: {name} must have shape ({size},) for x of shape {x.shape}, "
                             f"got {v.shape}")


def _last_axis(x, op):
    """The length of x's last axis, the one normalised over; x 0-d or that axis empty refused."""
    if x.ndim == 0:
        raise ValueError(f"{op}: x must be at least 1-d, got a 0-d input")
    d = x.shape[-1]
    if d == 0:
        raise ValueError(f"{op}: x of shape {x.shape} has an empty last axis: nothing to normalise over")
    return d


def _refuse_normalized_shape(op, x, gamma, call):
    """PyTorch's normalized_shape, a tuple or list of ints equal to x's trailing shape, given
    where gengrad takes the scale itself: a TypeError naming `call`, the call to write."""
    if not isinstance(gamma, (tuple, list)) or not gamma or not all(
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in gamma):
        return
    shape = tuple(int(n) for n in gamma)
    if shape != x.shape[x.ndim - len(shape):]:
        return
    k = len(shape)
    several = "" if k == 1 else (f"; over the {k} trailing axes, make them one: "
                                 f"{op}(x.reshape(*x.shape[:-{k}], -1), ...).reshape(x.shape)")
    raise TypeError(f"{op}: gamma is {shape}, x's trailing shape: PyTorch's normalized_shape, but "
                    f"gengrad's {op} normalises over the last axis and takes the scale itself: {call}"
                    + several)


def layer_norm(x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None,
               eps: float = 1e-5) -> Variable:
    """Layer normalisation over the last axis: gamma * (x - mean) / sqrt(var + eps) + beta.

    Parameters
    ----------
    x : Variable or ndarray
        Shape (..., D), at least 1-d.
    gamma, beta : Variable, ndarray or None
        Scale and shift of shape (D,); None scales by one / shifts by nothing (PyTorch's
        weight=None, bias=None).
    eps : float
        Added to the (population) variance.

    Returns
    -------
    Variable of the shape of `x`.

    Raises
    ------
    TypeError
        If gamma is x's trailing shape (PyTorch's normalized_shape, in the place of gamma).
    ValueError
        If `x` is 0-d or its last axis is empty, gamma or beta is not (D,), or `eps` is
        not positive.
    """
    op = "layer_norm"
    x = as_float(x, op)
    _refuse_normalized_shape(op, x, gamma, "F.layer_norm(x) for torch's F.layer_norm(x, shape), "
                                           "F.layer_norm(x, w, b) for F.layer_norm(x, shape, w, b)")
    eps = _positive(eps, op, "eps")
    d = _last_axis(x, op)
    gamma, beta = (None if v is None else as_float(v, op) for v in (gamma, beta))
    _check_scale_shift(op, x, d, **{name: v for name, v in (("gamma", gamma), ("beta", beta))
                                    if v is not None})
    y = Function(Normalize((x.ndim - 1,), eps))(x)
    if gamma is not None:
        y = y * gamma
    return y if beta is None else y + beta


def rms_norm(x: ArrayLike, gamma: ArrayLike | None = None, eps: float | None = None) -> Variable:
    """RMS normalisation over the last axis (Zhang and Sennrich, 2019): x / sqrt(mean(x^2) + eps),
    scaled by gamma; no mean is taken away and no shift added (PyTorch's F.rms_norm over one axis).

    Parameters
    ----------
    x : Variable or ndarray
        Shape (..., D), at least 1-d.
    gamma : Variable, ndarray or None
        Scale of shape (D,); None scales by one.
    eps : float or None
        Added to the mean square; None takes the machine epsilon of x's dtype, as PyTorch's
        (2.2e-16 in float64, 1.2e-7 in float32).

    Returns
    -------
    Variable of the shape of `x`.

    Raises
    ------
    TypeError
        If `eps` is not a number, or gamma is x's trailing shape (PyTorch's normalized_shape,
        in the place of gamma).
    ValueError
        If `x` is 0-d or its last axis is empty, gamma is not (D,), or `eps` is not positive.
    """
    op = "rms_norm"
    x = as_float(x, op)
    _refuse_normalized_shape(op, x, gamma, "F.rms_norm(x) for torch's F.rms_norm(x, shape), "
                                           "F.rms_norm(x, w) for F.rms_norm(x, shape, w)")
    eps = float(np.finfo(x.dtype).eps) if eps is None else _positive(eps, op, "eps")
    d = _last_axis(x, op)
    if gamma is not None:
        gamma = as_float(gamma, op)
        _check_scale_shift(op, x, d, gamma=gamma)
    y = x * (V.mean(V.square(x), axis=-1, keepdims=True) + eps) ** -0.5
    return y if gamma is None else y * gamma


def group_norm(x: ArrayLike, num_groups: int, gamma: ArrayLike | None = None, beta: ArrayLike | None = None,
               eps: float = 1e-5) -> Variable:
    """Group normalisation (Wu and He, 2018): the channels (axis 1) split into `num_groups`
    groups, each example's group normalised over its channels and positions, then scaled by
    gamma and shifted by beta per channel.  One group is layer norm over (C, H, W); C groups
    are instance norm.

    Parameters
    ----------
    x : Variable or ndarray
        Shape (N, C, ...), at least 2-d.
    num_groups : int
        A divisor of C.
    gamma, beta : Variable, ndarray or None
        Scale and shift of shape (C,); None scales by one / shifts by nothing (PyTorch's
        weight=None, bias=None).
    eps : float
        Added to the (population) variance.

    Returns
    -------
    Variable of the shape of `x`.

    Raises
    ------
    TypeError
        If `num_groups` is not an int.
    ValueError
        If `x` has fewer than 2 axes or its groups are empty, `num_groups` is not a positive
        divisor of C, gamma or beta is not (C,), or `eps` is not positive.
    """
    op = "group_norm"
    eps = _positive(eps, op, "eps")
    x = as_float(x, op)
    gamma, beta = (None if v is None else as_float(v, op) for v in (gamma, beta))
    if x.ndim < 2:
        raise ValueError(f"{op}: x must be (N, C, ...), at least 2-d, got shape {x.shape}")
    n, c = x.shape[:2]
    if isinstance(num_groups, bool) or not isinstance(num_groups, (int, np.integer)):
        raise TypeError(f"{op}: num_groups must be an int, got {type(num_groups).__name__}")
    if num_groups < 1 or c % num_groups:
        raise ValueError(f"{op}: num_groups={num_groups} must be a positive divisor of the {c} channels "
                         f"of x of shape {x.shape}")
    group = x.size // (n * num_groups) if n else 0
    if group == 0:
        raise ValueError(f"{op}: x of shape {x.shape} has empty groups: nothing to normalise over")
    _check_scale_shift(op, x, c, **{name: v for name, v in (("gamma", gamma), ("beta", beta))
                                    if v is not None})
    xhat = Function(Normalize((2,), eps))(V.reshape(x, (n, int(num_groups), group)))
    y = V.reshape(xhat, x.shape)
    per_channel = (c,) + (1,) * (x.ndim - 2)
    if gamma is not None:
        y = y * V.reshape(gamma, per_channel)
    return y if beta is None else y + V.reshape(beta, per_channel)


def local_response_norm(x: ArrayLike, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Variable:
    """Local response normalisation across channels (AlexNet's; PyTorch's F.local_response_norm):
    x / (k + alpha / size * s)^beta, s the sum of x^2 over the `size` channels around each one
    (size // 2 before it and (size - 1) // 2 after, the missing ones at the edges counted as 0).

    Parameters
    ----------
    x : Variable or ndarray
        Shape (N, C, ...), at least 3-d.
    size : int
        The number of neighbouring channels summed over.
    alpha, beta, k : float
        The scale of the sum, the exponent (both may be any number) and the offset (> 0).

    Returns
    -------
    Variable of the shape of `x`.

    Raises
    ------
    TypeError, ValueError
        If `x` has fewer than 3 axes, `size` is not a positive int, `alpha` or `beta` is not
        a finite number, or `k` is not a positive number.
    """
    op = "local_response_norm"
    x = as_float(x, op)
    if x.ndim < 3:
        raise ValueError(f"{op}: x must be (N, C, ...) with at least 3 axes, got shape {x.shape}")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"{op}: size must be a positive int, got {size!r}")
    alpha, beta, k = finite_number(alpha, op, "alpha"), finite_number(beta, op, "beta"), _positive(k, op, "k")
    c = x.shape[1]
    widths = [(0, 0)] * x.ndim
    widths[1] = (size // 2, (size - 1) // 2)
    squares = V.pad(V.square(x), widths)
    total = squares[:, 0:c]
    for j in range(1, size):
        total = total + squares[:, j:j + c]
    return x / (k + alpha / size * total) ** beta


def _refuse_training_keyword(op, training):
    """Raise if PyTorch's `training=` was given to `op`: gengrad's mode is V.test_mode()."""
    if training is not None:
        raise TypeError(
            f"{op}: training is PyTorch's keyword; gengrad's {op} follows the mode, training unless "
            f"inside `with V.test_mode():` (DeZero's Config.train): drop training={training!r}"
            + ("" if training else " and call it under V.test_mode()")
        )


def refuse_momentum(op, momentum):
    """Raise if PyTorch's `momentum=` was given to `op` (F.batch_norm, L.BatchNorm), naming
    gengrad's `decay` = 1 - momentum."""
    if momentum is not None:
        raise TypeError(
            f"{op}: momentum is PyTorch's keyword; gengrad's decay is 1 - momentum, the weight of "
            f"the old running value: decay={1 - momentum!r} for momentum={momentum!r}"
        )


def _running(array, name, n_channel, op, x_data):
    """The running-statistic array to update in place (None allowed in training)."""
    if array is None:
        return None
    if isinstance(array, Variable) and array.requires_grad:
        raise TypeError(
            f"{op}: {name} is a Variable that requires grad, a parameter, but it is a running "
            f"statistic, updated in place; gengrad's order is F.batch_norm(x, gamma, beta, "
            f"running_mean, running_var) (PyTorch's F.batch_norm puts the running statistics "
            f"before weight and bias)"
        )
    data = array.data if isinstance(array, Variable) else array
    if not (isinstance(data, np.ndarray) or is_device_array(data)) or data.dtype.kind != "f":
        raise TypeError(
            f"{op}: {name} must be a float ndarray (updated in place), got {type(array).__name__}"
        )
    if data.shape != (n_channel,):
        raise ValueError(f"{op}: {name} must have shape ({n_channel},), got {data.shape}")
    if writes_through(data):
        raise ValueError(f"{op}: {name} must be writeable: it is updated in place")
    if type(data) is not type(x_data) and is_device_array(data) != is_device_array(x_data):
        where = ("x", "GPU", name, "CPU") if is_device_array(x_data) else (name, "GPU", "x", "CPU")
        raise TypeError(
            f"{op}: expected {name} on the device of x, got {where[0]} on the {where[1]} and "
            f"{where[2]} on the {where[3]}; {name} is updated in place, so keep it where x is "
            f"(layer.to_gpu() moves a BatchNorm layer's running statistics with its parameters)"
        )
    return data


def batch_norm(x: ArrayLike, gamma: ArrayLike, beta: ArrayLike, running_mean: np.ndarray | None = None,
               running_var: np.ndarray | None = None, decay: float = 0.9, eps: float = 2e-5, *,
               training: bool | None = None, momentum: float | None = None) -> Variable:
    """Batch normalisation over every axis but the channel axis 1.

    Training (the default mode): normalise with the batch mean and (population)
    variance, then update the running statistics in place,
    running = decay * running + (1 - decay) * batch, where the variance stored is the
    unbiased one (times m / (m - 1), m values per channel), as Chainer and PyTorch do.
    In `V.test_mode()`: normalise with the running statistics instead.

    Parameters
    ----------
    x : Variable or ndarray
        Shape (N, C) or (N, C, ...) (e.g. NCHW).
    gamma, beta : Variable or ndarray
        Scale and shift of shape (C,).
    running_mean, running_var : ndarray of shape (C,) or None
        Updated in place in training; required in test mode.  None skips the update.
    decay : float
        Weight of the old running value, in [0, 1].
    eps : float
        Added to the variance (Chainer's default 2e-5).
    training, momentum
        PyTorch's keywords: refused, naming `V.test_mode()` and `decay` (1 - momentum).

    Returns
    -------
    Variable of the shape of `x`.

    Raises
    ------
    TypeError
        If a running statistic is a Variable that requires grad (a parameter: PyTorch's
        F.batch_norm takes the running statistics before weight and bias), or `training` or
        `momentum` is given.
    ValueError
        If `x` has fewer than 2 axes, a parameter does not have shape (C,), a running
        statistic is missing in test mode, `decay`/`eps` is out of range, or `x` is
        empty or has one value per channel in training mode (no batch statistics).
    """
    op = "batch_norm"
    _refuse_training_keyword(op, training)
    refuse_momentum(op, momentum)
    eps = _positive(eps, op, "eps")
    if isinstance(decay, bool) or not isinstance(decay, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}: decay must be a number in [0, 1], got {type(decay).__name__}")
    if not 0 <= decay <= 1:
        raise ValueError(f"{op}: decay must be in [0, 1], got {decay!r}")
    x, gamma, beta = as_float(x, op), as_float(gamma, op), as_float(beta, op)
    if x.ndim < 2:
        raise ValueError(f"{op}: x must be (N, C) or (N, C, ...), got shape {x.shape}")
    c = x.shape[1]
    _check_scale_shift(op, x, c, gamma=gamma, beta=beta)
    mean = _running(running_mean, "running_mean", c, op, x.data)
    var = _running(running_var, "running_var", c, op, x.data)
    param_shape = (1, c) + (1,) * (x.ndim - 2)
    gamma, beta = V.reshape(gamma, param_shape), V.reshape(beta, param_shape)
    if not V.is_train():
        if mean is None or var is None:
            raise ValueError(f"{op}: test mode needs running_mean and running_var")
        inv_std = (1 / np.sqrt(var + eps)).astype(x.dtype).reshape(param_shape)
        return (x - mean.astype(x.dtype).reshape(param_shape)) * (gamma * inv_std) + beta
    if operator_on_rows() is not None:
        raise ValueError(
            f"{op}: in training mode it normalises each row by the batch's mean and variance, so "
            f"the rows depend on each other and V.{operator_on_rows()} would not give each point's "
            f"own derivatives; evaluate the model in test mode (with V.test_mode(): ...), which "
            f"uses the running statistics, or use LayerNorm"
        )
    if x.size == 0:
        raise ValueError(
            f"{op}: x of shape {x.shape} is empty: training mode needs at least one value per "
            f"channel (and at least one channel) for the batch statistics"
        )
    if x.size == x.shape[1]:
        raise ValueError(
            f"{op}: x of shape {x.shape} has one value per channel, so in training mode its batch "
            f"variance is 0 and every output would be beta, with no gradient to x, and the running "
            f"variance would decay toward 0; train on batches of at least 2, and evaluate one "
            f"example in test mode (with V.test_mode(): model(x)), which uses the running statistics"
        )
    axes = (0,) + tuple(range(2, x.ndim))
    normalize = Normalize(axes, eps)
    xhat = Function(normalize)(x)
    m = x.size // c
    if V.config.is_recomputing():  # V.checkpoint's second run: the first updated them
        mean = var = None
    if mean is not None:
        mean *= decay
        mean += (1 - decay) * normalize.mean.reshape(c)
    if var is not None:
        var *= decay
        var += (1 - decay) * (m / max(m - 1, 1)) * normalize.var.reshape(c)
    return xhat * gamma + beta


# ----- embedding and accuracy ----------------------------------------------------------------
def embed_id(ids: ArrayLike, W: ArrayLike, max_norm: float | None = None, norm_type: float = 2.0) -> Variable:
    """Rows of the embedding matrix `W` picked by integer `ids`: W[ids].

    Parameters
    ----------
    ids : ndarray, Variable or list of ints
        Indices in [0, vocabulary size), any shape (a constant).
    W : Variable or ndarray
        Embedding matrix of shape (vocabulary size, D).
    max_norm : float, optional
        As PyTorch's: before the lookup, each picked row whose `norm_type`-norm exceeds
        `max_norm` is scaled in place by max_norm / (norm + 1e-7), with no gradient through
        the scaling.  It is a write to W: a graph that reads W's values (a tied output layer
        W^T h) recorded before it refuses backward, as PyTorch does.
    norm_type : float
        The p of that norm (default 2; inf for the largest entry).

    Returns
    -------
    Variable of shape ids.shape + (D,); repeated ids accumulate their gradients.

    Raises
    ------
    TypeError
        If `ids` are not an array of integers (a str, None, a ragged list, floats, ...), or
        `max_norm` or `norm_type` is not a number.
    ValueError
        If `W` is not 2-D, `max_norm` or `norm_type` is not positive, or an id is out of
        range (negative ids are not wrapped).  On a
        GPU the range is checked on the device, without a sync: the rows come out NaN (and
        so do their gradients), and the error, ending in "(checked on the device)", is
        raised at the next read of a NaN (`float(loss)`, `loss.item()`, `to_cpu`) or at
        `V.backend.synchronize()`, as PyTorch's device-side asserts are.
    """
    op = "embed_id"
    W = as_float(W, op)
    if W.ndim != 2:
        raise ValueError(f"{op}: W must be 2-D (vocabulary size, D), got shape {W.shape}")
    ids = as_array(ids, op, like=W, name="ids", like_name="W")
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{op}: ids must be integers, got dtype {ids.dtype}")
    n = W.shape[0]
    message = f"{op}: id {{value}} is out of range for W with {n} rows"
    ids, poison = checked_indices(ids, n, op, message, W.dtype)
    max_norm = checked_max_norm(max_norm, norm_type, op)
    if max_norm is not None and not V.config.is_recomputing():  # (V.checkpoint's second run: done)
        _renorm_rows(W, ids, max_norm, float(norm_type))
    y = V.get_item(W, ids)
    return y if poison is None else y * poison   # (a bad id checked on a device: NaN, rows and gradient)


def checked_max_norm(max_norm, norm_type, op):
    """`max_norm` as a float (or None), once it and `norm_type` are checked to be positive numbers."""
    for name, value in (("max_norm", 1.0 if max_norm is None else max_norm), ("norm_type", norm_type)):
        real = isinstance(value, (int, float, np.integer, np.floating))
        if isinstance(value, (bool, np.bool_)) or not real:
            raise TypeError(f"{op}: {name} must be a number, got {type(value).__name__}")
        if not value > 0:
            raise ValueError(f"{op}: {name} must be positive, got {value}")
    return None if max_norm is None else float(max_norm)


def _renorm_rows(W, ids, max_norm, p):
    """Scale, in place, each row of W picked by `ids` whose p-norm exceeds max_norm to
    max_norm (PyTorch's embedding_renorm_).  No branch on the data (a device runs it without
    a sync): a repeated id writes its row twice, the same values."""
    data = W.data
    xp = get_array_module(data)
    flat = ids.reshape(-1)
    rows = data[flat]
    norms = xp.linalg.norm(rows, ord=p, axis=1)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(data.dtype)
    data[flat] = rows * scale[:, None]
    W._changed_in_place()


def accuracy(y: ArrayLike, t: ArrayLike) -> float:
    """Fraction of rows whose highest score is at the true label; a plain float, no gradient.

    Accuracy is piecewise constant, so it has no useful gradient: it returns a Python
    float and records no graph.

    Parameters
    ----------
    y : Variable or ndarray
        Scores of shape (..., C) (usually (N, C)).
    t : Variable, ndarray or list of ints
        Labels of shape y.shape[:-1].

    Returns
    -------
    float in [0, 1].

    Raises
    ------
    ValueError
        If the shapes do not fit or `y` is empty.
    TypeError
        If `y` or `t` is not an array of real numbers, or `t` is not integer.
    """
    op = "accuracy"
    scores = as_array(y, op)
    labels = as_array(t, op, like=scores, like_name="the scores y")
    if scores.ndim == 0 or labels.shape != scores.shape[:-1]:
        raise ValueError(
            f"{op}: scores of shape {scores.shape} need labels of shape {scores.shape[:-1]}, "
            f"got {labels.shape}"
        )
    if labels.dtype.kind not in "iu":
        raise TypeError(f"{op}: labels must be integers, got dtype {labels.dtype}")
    if scores.size == 0:
        raise ValueError(f"{op}: no scores (shape {scores.shape})")
    return float(np.mean(scores.argmax(axis=-1) == labels))


__all__ = ["linear", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout", "layer_norm", "rms_norm", "group_norm",
           "local_response_norm", "batch_norm", "embed_id", "accuracy"]
