"""Conv2d and Deconv2d: 2-D convolution and its transpose on (batch, channels, height, width)."""

import numpy as np

import function as F
import variable as V
from function.conv import int_pair

from .initializers import generator, scaled_normal
from .layer import Layer
from .linear import _dtype_or_none, _inferred_size, _positive_int
from .parameter import Parameter


def _pair(value, name):
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"Conv2d: {name} must be an int or a pair of ints, got {value!r}")
        return tuple(value)
    return (value, value)


class Conv2d(Layer):
    """2-D convolution (cross-correlation, as in every deep-learning library).

    W has shape (out_channels, in_channels, kh, kw) and starts as N(0, 1) times
    sqrt(1 / (in_channels kh kw)); b (out_channels,) starts at zero.

    Parameters
    ----------
    out_channels : int
    kernel_size : int or (int, int)
    stride : int or (int, int)
    pad : int or (int, int)
        Zero padding on each side.
    in_channels : int, optional
        Inferred from axis 1 of the first input when None.
    nobias : bool
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    rng : numpy.random.Generator, optional
        Source of the initial W.

    Raises
    ------
    TypeError
        If `stride` or `pad` is not an int or a pair of ints, `dtype` is not a floating
        dtype, or an input is not array-like.
    ValueError
        If a size or stride is not positive, a pad is negative, or the input is not 4-D
        with in_channels (> 0) channels.
    """

    def __init__(self, out_channels: int, kernel_size, stride=1, pad=0, in_channels: int | None = None,
                 nobias: bool = False, dtype=None, *, rng: np.random.Generator | None = None):
        super().__init__()
        self.out_channels = _positive_int(out_channels, "out_channels", "Conv2d")
        kernel = _pair(kernel_size, "kernel_size")
        self.kernel_size = tuple(_positive_int(k, "kernel_size", "Conv2d") for k in kernel)
        self.stride = int_pair(stride, "Conv2d", "stride", 1)
        self.pad = int_pair(pad, "Conv2d", "pad", 0)
        self.in_channels = None if in_channels is None else _positive_int(in_channels, "in_channels",
                                                                          "Conv2d")
        self.nobias = bool(nobias)
        self._dtype = _dtype_or_none(dtype, "Conv2d")
        self._rng = rng
        generator(rng)
        self.W = None
        self.b = None
        if self.in_channels is not None:
            self._create(self._dtype or np.float64)

    def _create(self, dtype):
        kh, kw = self.kernel_size
        c = self.in_channels
        self.W = Parameter(scaled_normal((self.out_channels, c, kh, kw), c * kh * kw, dtype, self._rng),
                           name="W")
        if not self.nobias:
            self.b = Parameter(np.zeros(self.out_channels, dtype=dtype), name="b")

    def _lazy_shapes(self):
        """('in_channels', shapes of W and b) until W exists (see `Layer._lazy_shapes`)."""
        if self.W is not None:
            return None
        shapes = {"W": (self.out_channels, None, *self.kernel_size)}
        if not self.nobias:
            shapes["b"] = (self.out_channels,)
        return "in_channels", shapes

    def forward(self, x):
        """Convolve `x` of shape (batch, in_channels, height, width)."""
        x = V.as_variable(x, op="Conv2d")
        shape = x.shape
        if len(shape) != 4:
            raise ValueError(f"Conv2d: input must be 4-D (batch, channels, height, width), got shape "
                             f"{tuple(shape)}")
        if self.W is None:
            self.in_channels = _inferred_size(shape[1], "in_channels", shape, "Conv2d")
            self._create(self._settle_dtype(x))
        else:
            self._settle_dtype(x)
            if shape[1] != self.in_channels:
                raise ValueError(
                    f"Conv2d: input of shape {tuple(shape)} has {shape[1]} channels, but the layer "
                    f"was built for in_channels={self.in_channels}"
                )
        return F.conv2d(x, self.W, self.b, stride=self.stride, pad=self.pad)


class Deconv2d(Layer):
    """2-D transposed convolution (PyTorch's ConvTranspose2d), the adjoint of Conv2d.

    W has shape (in_channels, out_channels, kh, kw), input channels first as
    `F.deconv2d` takes it, and starts as N(0, 1) times sqrt(1 / (in_channels kh kw)) (as
    in DeZero); b (out_channels,) starts at zero.  The output is stride (H - 1) + kh -
    2 pad high (likewise wide), or the `outsize` given to the call.

    Parameters
    ----------
    out_channels : int
    kernel_size : int or (int, int)
    stride : int or (int, int)
    pad : int or (int, int)
        Padding of the convolution this layer transposes: cut from each side of the output.
    in_channels : int, optional
        Inferred from axis 1 of the first input when None.
    nobias : bool
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    rng : numpy.random.Generator, optional
        Source of the initial W.

    Raises
    ------
    TypeError
        If `kernel_size`, `stride` or `pad` is not an int or a pair of ints, `dtype` is not a
        floating dtype, or an input is not array-like.
    ValueError
        If a size or stride is not positive, a pad is negative, or the input is not 4-D
        with in_channels (> 0) channels.
    """

    def __init__(self, out_channels: int, kernel_size, stride=1, pad=0, in_channels: int | None = None,
                 nobias: bool = False, dtype=None, *, rng: np.random.Generator | None = None):
        super().__init__()
        self.out_channels = _positive_int(out_channels, "out_channels", "Deconv2d")
        self.kernel_size = int_pair(kernel_size, "Deconv2d", "kernel_size", 1)
        self.stride = int_pair(stride, "Deconv2d", "stride", 1)
        self.pad = int_pair(pad, "Deconv2d", "pad", 0)
        self.in_channels = None if in_channels is None else _positive_int(in_channels, "in_channels",
                                                                          "Deconv2d")
        self.nobias = bool(nobias)
        self._dtype = _dtype_or_none(dtype, "Deconv2d")
        self._rng = rng
        generator(rng)
        self.W = None
        self.b = None
        if self.in_channels is not None:
            self._create(self._dtype or np.float64)

    def _create(self, dtype):
        kh, kw = self.kernel_size
        c = self.in_channels
        self.W = Parameter(scaled_normal((c, self.out_channels, kh, kw), c * kh * kw, dtype, self._rng),
                           name="W")
        if not self.nobias:
            self.b = Parameter(np.zeros(self.out_channels, dtype=dtype), name="b")

    def _lazy_shapes(self):
        """('in_channels', shapes of W and b) until W exists (see `Layer._lazy_shapes`)."""
        if self.W is not None:
            return None
        shapes = {"W": (None, self.out_channels) + self.kernel_size}
        if not self.nobias:
            shapes["b"] = (self.out_channels,)
        return "in_channels", shapes

    def forward(self, x, outsize=None):
        """Transposed convolution of `x` (batch, in_channels, height, width); `outsize` as in F.deconv2d."""
        x = V.as_variable(x, op="Deconv2d")
        shape = x.shape
        if len(shape) != 4:
            raise ValueError(f"Deconv2d: input must be 4-D (batch, channels, height, width), got shape "
                             f"{tuple(shape)}")
        if self.W is None:
            self.in_channels = _inferred_size(shape[1], "in_channels", shape, "Deconv2d")
            self._create(self._settle_dtype(x))
        else:
            self._settle_dtype(x)
            if shape[1] != self.in_channels:
                raise ValueError(
                    f"Deconv2d: input of shape {tuple(shape)} has {shape[1]} channels, but the layer "
                    f"was built for in_channels={self.in_channels}"
                )
        return F.deconv2d(x, self.W, self.b, stride=self.stride, pad=self.pad, outsize=outsize)
