"""Conv2d and Deconv2d: 2-D convolution and its transpose on (batch, channels, height, width);
Conv1d: 1-D convolution on (batch, channels, length); Conv3d: 3-D on (batch, channels, depth,
height, width)."""

import math

import numpy as np

import function as F
import variable as V
from function.conv import int_pair, int_tuple, single_int

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


def _one(layer, pair):
    """A size pair of `layer` as written in a call: 3 for (3, 3), (3, 5) otherwise (Conv1d: 3 for
    its (1, 3))."""
    sizes = layer._written(pair)
    return str(sizes[0]) if len(set(sizes)) == 1 else str(tuple(sizes))


def _square(layer):
    """(kernel, stride, pad) of `layer` as single ints when each is the same along every axis
    (PyTorch's layers take channels as numbers, so only then can they be read in its order)."""
    pad = (0,) if layer.pad == "same" else layer._written(layer.pad)
    sizes = [layer._written(layer.kernel_size), layer._written(layer.stride), pad]
    return None if any(len(set(s)) > 1 for s in sizes) else tuple(s[0] for s in sizes)


def _order_note(layer, torch_name):
    """What the layer's arguments mean in gengrad's order, and the call PyTorch's order needs.

    `Conv2d(3, 8, 3)` is out_channels=3, kernel_size=8, stride=3; written with PyTorch's
    nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding) in mind, it wants
    `L.Conv2d(8, 3, in_channels=3)`.  A pad of 0 cannot be a PyTorch stride, so it (and an
    in_channels after it) counts as not written positionally.  The PyTorch reading is
    offered when the kernel, stride and pad are square (PyTorch's channels are numbers); pad='same',
    dilation and groups are keywords in both orders.
    """
    name = type(layer).__name__
    given = layer._in_channels_given
    keywords = [("pad", "'same'", "padding")] if layer.pad == "same" else []
    if set(layer.dilation) != {1}:
        keywords.append(("dilation", _one(layer, layer.dilation), "dilation"))
    if layer.groups != 1:
        keywords.append(("groups", str(layer.groups), "groups"))
    ours = "".join(f", {n}={v}" for n, v, _ in keywords)
    padded = layer.pad != "same" and any(layer.pad)
    values = [str(layer.out_channels), _one(layer, layer.kernel_size), _one(layer, layer.stride)]
    names = ["out_channels", "kernel_size", "stride"]
    if padded:
        values.append(_one(layer, layer.pad))
        names.append("pad")
    positional = ", ".join(values)
    call = positional
    if given:
        values.append(str(layer.in_channels))
        names.append("in_channels")
        call += f", {layer.in_channels}" if padded else f", in_channels={layer.in_channels}"
    plain, call = call, call + ours
    values += [v for _, v, _ in keywords]
    names += [n for n, _, _ in keywords]
    meaning = ", ".join(f"{n}={v}" for n, v in zip(names, values))
    note = (f"{name}({call}) means {meaning} (gengrad's order is {name}(out_channels, kernel_size, "
            f"stride, pad, in_channels))")
    square = _square(layer)
    if square is None:
        return note
    kh, sh, ph = square
    # the same numbers in PyTorch's order: (in, out, kernel, stride, padding)
    torch_call = (plain if padded else positional) + "".join(f", {t}={v}" for _, v, t in keywords)
    torch_stride = ph if padded else 1
    torch_padding = layer.in_channels if given and padded else 0
    fix = [str(kh), str(sh)]
    if torch_stride != 1:
        fix.append(f"stride={torch_stride}")
    if torch_padding:
        fix.append(f"pad={torch_padding}")
    fix += [f"{n}={v}" for n, v, _ in keywords]
    short = ", ".join(fix)
    fix.append(f"in_channels={layer.out_channels}")
    return note + (f"; for PyTorch's nn.{torch_name}({torch_call}) write L.{name}({', '.join(fix)}) "
                   f"or just L.{name}({short})")


def _check_channels_first(name, shape):
    """At the first call, refuse an image batch laid out channels-last, (batch, height, width,
    channels) as PIL, matplotlib and Keras give it: read as (batch, channels, height, width) it
    would make height channels and a strip of width `channels`, and train silently."""
    n, c, h, w = shape
    if w in (1, 3, 4) and c == h and c > 4 * w:
        raise ValueError(
            f"{name}: input of shape {tuple(shape)} looks channels-last, (batch, height, width, "
            f"channels) with {w} channel(s) of {c}x{h}; gengrad's {name} takes (batch, channels, "
            f"height, width), as PyTorch's does: x.transpose(0, 3, 1, 2); pass in_channels={c} "
            f"if you do mean {c} channels of {h}x{w}"
        )


def _check_pytorch_order(layer, shape, torch_name):
    """At the first call, refuse arguments that read like PyTorch's order and would run silently.

    With in_channels left to the input, an input of as many channels as `out_channels`
    and a square stride of 3 or more below a larger kernel is what PyTorch's
    nn.Conv2d(in, out, kernel) gives when typed into gengrad's Conv2d(out, kernel,
    stride): Conv2d(3, 8, 3) on an RGB image.  A channel-preserving convolution with a
    stride of 3 or more and a larger kernel is rare enough to ask for in_channels.
    """
    if layer._in_channels_given or shape[1] != layer.out_channels:
        return
    square = _square(layer)
    kh, sh = square[:2] if square else (0, 0)
    if square and 3 <= sh < kh:
        name = type(layer).__name__
        raise ValueError(
            f"{name}: input of shape {tuple(shape)} has {shape[1]} channels, as many as "
            f"out_channels={layer.out_channels}, and {_order_note(layer, torch_name)}; if you do mean "
            f"kernel_size={kh} with stride={sh}, pass in_channels={shape[1]} to say so"
        )


class _Convolution(Layer):
    """What Conv2d and Deconv2d share: arguments, lazy in_channels, W and b, input checks.

    A subclass says how it reads `kernel_size`, how W is laid out (`_w_shape`) and which
    PyTorch class its argument order is confused with (`TORCH_NAME`).
    """

    TORCH_NAME = ""
    LAYOUT = "(batch, channels, height, width)"
    DIMS = 2
    """Spatial axes of the settings (Conv1d's are pairs too: it is Conv2d one row high)."""
    torch_keywords = {"padding_mode": "gengrad's convolutions pad with zeros; pad the input first, "
                                      "V.pad(x, widths, mode='reflect') ('edge' for PyTorch's 'replicate'), "
                                      "and give pad=0"}

    def __init__(self, out_channels: int, kernel_size, stride=1, pad=0, in_channels: int | None = None,
                 nobias: bool = False, dtype=None, *, rng: np.random.Generator | None = None,
                 dilation=1, groups: int = 1):
        super().__init__()
        name = type(self).__name__
        self.out_channels = _positive_int(out_channels, "out_channels", name)
        self.kernel_size = self._kernel(kernel_size)
        self.stride = int_tuple(stride, name, "stride", 1, self.DIMS)
        self.dilation = int_tuple(dilation, name, "dilation", 1, self.DIMS)
        self.groups = _positive_int(groups, "groups", name)
        self.in_channels = None if in_channels is None else _positive_int(in_channels, "in_channels", name)
        self._in_channels_given = in_channels is not None
        self.pad = self._padding(pad)
        if self.out_channels % self.groups:
            raise ValueError(f"{name}: groups={self.groups} must divide out_channels={self.out_channels}")
        if self.in_channels is not None:
            self._check_groups(self.in_channels, "in_channels")
        self.nobias = bool(nobias)
        self._dtype = _dtype_or_none(dtype, name)
        self._rng = rng
        generator(rng)
        self.W = None
        self.b = None
        if self.in_channels is not None:
            self._create(self._dtype or np.float64)

    def _padding(self, pad):
        """`pad` as a checked pair, or 'same' ('valid' is no padding), refused as F.conv2d would."""
        name = type(self).__name__
        if not isinstance(pad, str):
            return int_tuple(pad, name, "pad", 0, self.DIMS)
        if pad not in ("same", "valid"):
            raise ValueError(f"{name}: pad must be {self._pad_kinds}, 'same' or 'valid', got {pad!r}")
        if pad == "same" and set(self.stride) != {1}:
            self.pad = "same"                               # (for the note on the argument order)
            raise ValueError(f"{name}: pad='same' keeps the input's size only at stride 1 (PyTorch refuses "
                             f"it for strided convolutions too), got stride {self._as_written(self.stride)}; "
                             f"{_order_note(self, self.TORCH_NAME)}")
        return "same" if pad == "same" else (0,) * self.DIMS

    _pad_kinds = "an int or a pair of ints"

    def _check_groups(self, channels, what):
        """Refuse `channels` input channels that groups does not divide."""
        if channels % self.groups:
            raise ValueError(f"{type(self).__name__}: groups={self.groups} must divide the {channels} input "
                             f"channels ({what})")

    def _create(self, dtype):
        c = self.in_channels // self.groups                 # the channels each filter sees
        fan_in = c * math.prod(self.kernel_size)
        self.W = Parameter(scaled_normal(self._w_shape(self.in_channels), fan_in, dtype, self._rng), name="W")
        if not self.nobias:
            self.b = Parameter(np.zeros(self.out_channels, dtype=dtype), name="b")

    def _repr_settings(self):
        """Shown until W exists (then W's shape says the channels and the kernel), as written:
        pairs for a 2-D layer, ints for Conv1d."""
        pad = self.pad if self.pad == "same" else self._as_written(self.pad)
        settings = {"out_channels": self.out_channels, "kernel_size": self._as_written(self.kernel_size),
                    "stride": self._as_written(self.stride), "pad": pad}
        if set(self.dilation) != {1}:
            settings["dilation"] = self._as_written(self.dilation)
        if self.groups != 1:
            settings["groups"] = self.groups
        return settings | ({"nobias": True} if self.nobias else {})

    def _repr_above_entries(self):
        """Once W exists its shape gives the channels and the kernel; above it, the settings it
        cannot show: a stride, pad, dilation or groups other than the default."""
        defaults = {"stride": 1, "pad": 0, "dilation": 1, "groups": 1}
        return {key: value for key, value in self._repr_settings().items()
                if key in defaults and set(np.atleast_1d(value)) != {defaults[key]}}

    def _lazy_shapes(self):
        """('in_channels', shapes of W and b) until W exists (see `Layer._lazy_shapes`)."""
        if self.W is not None:
            return None
        shapes = {"W": self._w_shape(None)}          # (None: in_channels / groups for a grouped one)
        if not self.nobias:
            shapes["b"] = (self.out_channels,)
        return "in_channels", shapes

    def _checked_input(self, x):
        """`x` as a 4-D Variable with in_channels channels; the first call builds W and b."""
        name = type(self).__name__
        x = V.as_variable(x, op=name)
        shape = x.shape
        ndim = self.LAYOUT.count(",") + 1
        if len(shape) != ndim:
            raise ValueError(f"{name}: input must be {ndim}-D {self.LAYOUT}, got shape {tuple(shape)}")
        if self.W is None:
            if not self._in_channels_given:
                self._check_channels_first(shape)
            _check_pytorch_order(self, shape, self.TORCH_NAME)
            self._check_fits(shape)
            self.in_channels = _inferred_size(shape[1], "in_channels", shape, name)
            self._check_groups(shape[1], f"axis 1 of the input of shape {tuple(shape)}")
            self._create(self._settle_dtype(x))
            self._settle_device(x)
        else:
            self._settle_dtype(x)
            if shape[1] != self.in_channels:
                raise ValueError(_channels_error(self, shape, self.TORCH_NAME))
            self._check_fits(shape)
        return x

    def _build_from(self, size_name, size, arrays):
        """Built from loaded weights: W's open axis holds in_channels / groups."""
        super()._build_from(size_name, size * self.groups, arrays)

    def _w_shape(self, in_channels):
        """W's shape (None for in_channels while it is unknown): (out, in / groups, *kernel)."""
        return (self.out_channels, in_channels and in_channels // self.groups, *self.kernel_size)

    def _check_fits(self, shape):
        """Refuse an input smaller than the kernel, naming the argument order on a first call."""
        self._refuse_unfitting(shape)

    def _check_channels_first(self, shape):
        """At the first call (in_channels not given), refuse an input that looks channels-last."""
        _check_channels_first(type(self).__name__, shape)

    @staticmethod
    def _written(pair):
        """The entries of a (kernel, stride or pad) pair that the user wrote: both for 2-D layers."""
        return pair

    def _as_written(self, pair):
        """A (kernel, stride or pad) pair as the layer takes it: the pair, or Conv1d's one int."""
        written = self._written(pair)
        return written[0] if len(written) == 1 else written

    def _refuse_unfitting(self, shape, layout=""):
        """Refuse an input smaller than the kernel along a spatial axis, naming the argument order
        on a first call; `layout` says more about the input's layout."""
        if self.pad == "same":
            return
        kernel, pad = self._written(self.kernel_size), self._written(self.pad)
        dilation = self._written(self.dilation)
        if all(d * (k - 1) + 1 <= n + 2 * p for k, d, n, p in zip(kernel, dilation, shape[2:], pad)):
            return
        name = type(self).__name__
        dilation = self._as_written(self.dilation)
        spread = "" if set(self.dilation) == {1} else f" (spread by dilation {dilation})"
        message = (f"{name}: kernel {self._as_written(self.kernel_size)}{spread} does not fit the input of "
                   f"shape {tuple(shape)} padded by {self._as_written(self.pad)}{layout}")
        if self.W is None or self._in_channels_given:    # never run on an input of this size yet
            message += "; " + _order_note(self, self.TORCH_NAME)
        raise ValueError(message)


class Conv2d(_Convolution):
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
        If a size or stride is not positive, a pad is negative, the input is not 4-D
        with in_channels (> 0) channels, or the kernel does not fit the padded input.  At
        the first call, with in_channels left to the input, an input with out_channels
        channels under a square stride of 3 or more below the kernel size is refused:
        that is PyTorch's nn.Conv2d(in, out, kernel) typed as Conv2d(3, 8, 3) (write
        `Conv2d(8, 3)`; pass in_channels to mean the unusual layer).  So is a channels-last
        image batch (N, H, W, C) with C of 1, 3 or 4 and H = W (transpose it to (N, C, H,
        W)).  Errors at the first call name the argument order.
    """

    TORCH_NAME = "Conv2d"

    @staticmethod
    def _kernel(kernel_size):
        return tuple(_positive_int(k, "kernel_size", "Conv2d") for k in _pair(kernel_size, "kernel_size"))

    def forward(self, x):
        """Convolve `x` of shape (batch, in_channels, height, width)."""
        x = self._checked_input(x)
        return F.conv2d(x, self.W, self.b, stride=self.stride, pad=self.pad, dilation=self.dilation,
                        groups=self.groups)


def _channels_error(layer, shape, torch_name):
    """Why an input of `shape` has the wrong number of channels, naming the argument order when given."""
    message = (f"{type(layer).__name__}: input of shape {tuple(shape)} has {shape[1]} channels, but the "
               f"layer was built for in_channels={layer.in_channels}")
    if not layer._in_channels_given:
        return message + " (read off its first input or from loaded weights)"
    return message + "; " + _order_note(layer, torch_name)


class Deconv2d(_Convolution):
    """2-D transposed convolution (PyTorch's ConvTranspose2d), the adjoint of Conv2d.

    W has shape (in_channels, out_channels / groups, kh, kw), input channels first as
    `F.deconv2d` takes it, and starts as N(0, 1) times sqrt(1 / (in_channels / groups kh kw))
    (as in DeZero); b (out_channels,) starts at zero.  The output is stride (H - 1) +
    dilation (kh - 1) + 1 - 2 pad high (likewise wide), or the `outsize` given to the call
    (PyTorch's output_padding).

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
    dilation : int or (int, int)
    groups : int
        As in F.deconv2d.

    Raises
    ------
    TypeError
        If `kernel_size`, `stride` or `pad` is not an int or a pair of ints, `dtype` is not a
        floating dtype, or an input is not array-like.
    ValueError
        If a size or stride is not positive, a pad is negative, or the input is not 4-D
        with in_channels (> 0) channels.  As for Conv2d, PyTorch's
        nn.ConvTranspose2d(in, out, kernel) order typed as Deconv2d(3, 8, 3) is refused
        at the first call when the input has out_channels channels under a square stride
        of 3 or more below the kernel size, and channel errors name the argument order.
    """

    TORCH_NAME = "ConvTranspose2d"
    torch_keywords = {**_Convolution.torch_keywords,
                      "output_padding": "{name}(..., stride=s) takes the extra rows as its call's outsize: "
                                        "layer(x, outsize=(h, w))"}

    def _padding(self, pad):
        return int_pair(pad, "Deconv2d", "pad", 0)      # (no 'same': PyTorch's has none either)

    @staticmethod
    def _kernel(kernel_size):
        return int_pair(kernel_size, "Deconv2d", "kernel_size", 1)

    def _w_shape(self, in_channels):
        return (in_channels, self.out_channels // self.groups, *self.kernel_size)

    def _build_from(self, size_name, size, arrays):
        """Built from loaded weights: W's open axis (its first) holds in_channels itself."""
        Layer._build_from(self, size_name, size, arrays)

    def _check_fits(self, shape):
        """Any input fits a transposed convolution (it spreads each pixel into a kernel)."""

    def forward(self, x, outsize=None):
        """Transposed convolution of `x` (batch, in_channels, height, width); `outsize` as in F.deconv2d."""
        x = self._checked_input(x)
        return F.deconv2d(x, self.W, self.b, stride=self.stride, pad=self.pad, outsize=outsize,
                          dilation=self.dilation, groups=self.groups)


class Conv1d(_Convolution):
    """1-D convolution (cross-correlation) of sequences (batch, channels, length).

    W has shape (out_channels, in_channels, k), PyTorch's layout, and starts as N(0, 1)
    times sqrt(1 / (in_channels k)); b (out_channels,) starts at zero.  It is Conv2d on
    images one row high (`F.conv1d`).

    Parameters
    ----------
    out_channels : int
    kernel_size : int
    stride : int
    pad : int
        Zero padding at each end.
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
        If `kernel_size`, `stride` or `pad` is not an int, `dtype` is not a floating dtype,
        or an input is not array-like.
    ValueError
        If a size or stride is not positive, a pad is negative, the input is not 3-D with
        in_channels (> 0) channels, or the kernel does not fit the padded input.  As for
        Conv2d, PyTorch's nn.Conv1d(in, out, kernel) order typed as Conv1d(3, 8, 3) is
        refused at the first call when the input has out_channels channels under a stride
        of 3 or more below the kernel size, and errors at the first call name the order.
    """

    TORCH_NAME = "Conv1d"
    LAYOUT = "(batch, channels, length)"

    def __init__(self, out_channels: int, kernel_size: int, stride: int = 1, pad: int | str = 0,
                 in_channels: int | None = None, nobias: bool = False, dtype=None, *,
                 rng: np.random.Generator | None = None, dilation: int = 1, groups: int = 1):
        stride, dilation = (single_int(v, "Conv1d", name, 1) for v, name in ((stride, "stride"),
                                                                            (dilation, "dilation")))
        pad = pad if isinstance(pad, str) else (0, single_int(pad, "Conv1d", "pad", 0))
        super().__init__(out_channels, kernel_size, (1, stride), pad, in_channels, nobias, dtype,
                         rng=rng, dilation=(1, dilation), groups=groups)

    _pad_kinds = "an int"

    @staticmethod
    def _kernel(kernel_size):
        return 1, single_int(kernel_size, "Conv1d", "kernel_size", 1)

    @staticmethod
    def _written(pair):
        return pair[1:]

    def _w_shape(self, in_channels):
        return (self.out_channels, in_channels and in_channels // self.groups, self.kernel_size[1])

    def _check_channels_first(self, shape):
        """A (batch, length, channels) series, Keras's layout, read as (batch, channels, length)
        has a long axis of "channels" and a "length" shorter than the kernel, which only the
        padding lets it fit: refused, naming the transpose."""
        n, c, length = shape
        if length < self.kernel_size[1] and c > 4 * length:
            raise ValueError(
                f"Conv1d: input of shape {tuple(shape)} looks channels-last, (batch, length, channels) "
                f"with {length} channel(s) over {c} steps: read as (batch, channels, length) it is shorter "
                f"than the kernel ({self.kernel_size[1]}); gengrad's Conv1d takes (batch, channels, "
                f"length), as PyTorch's does: x.transpose(0, 2, 1); pass in_channels={c} if you do mean "
                f"{c} channels of length {length}")

    def forward(self, x):
        """Convolve `x` of shape (batch, in_channels, length)."""
        x = self._checked_input(x)
        pad = self.pad if self.pad == "same" else self.pad[1]
        return F.conv1d(x, self.W, self.b, stride=self.stride[1], pad=pad, dilation=self.dilation[1],
                        groups=self.groups)

    def _check_fits(self, shape):
        """Refuse an input shorter than the kernel, naming the layout and, on a first call, the order."""
        self._refuse_unfitting(shape, " (the input is (batch, channels, length); a (batch, length, "
                                      "channels) sequence is x.transpose(0, 2, 1))")


def _check_volume_channels_first(name, shape):
    """A channels-last volume, (batch, depth, height, width, channels), refused as Conv2d refuses
    a channels-last image."""
    n, c, d, h, w = shape
    if w in (1, 3, 4) and c == d and c > 4 * w:
        raise ValueError(
            f"{name}: input of shape {tuple(shape)} looks channels-last, (batch, depth, height, width, "
            f"channels) with {w} channel(s); gengrad's {name} takes (batch, channels, depth, height, "
            f"width), as PyTorch's does: x.transpose(0, 4, 1, 2, 3); pass in_channels={c} if you do mean "
            f"{c} channels of {d}x{h}x{w}")


class Conv3d(_Convolution):
    """3-D convolution (cross-correlation) of volumes (batch, channels, depth, height, width).

    W has shape (out_channels, in_channels / groups, kd, kh, kw), PyTorch's layout, and starts
    as N(0, 1) times sqrt(1 / (in_channels / groups kd kh kw)); b (out_channels,) starts at
    zero (`F.conv3d`).

    Parameters
    ----------
    out_channels : int
    kernel_size, stride : int or (int, int, int)
    pad : int, (int, int, int), 'same' or 'valid'
        Zero padding on each side.
    in_channels : int, optional
        Inferred from axis 1 of the first input when None.
    nobias : bool
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    rng : numpy.random.Generator, optional
        Source of the initial W.
    dilation : int or (int, int, int)
    groups : int

    Raises
    ------
    TypeError, ValueError
        As Conv2d's, for inputs of 5 axes; a channels-last volume (N, D, H, W, C) with C of 1,
        3 or 4 and D = H is refused at the first call (transpose it to (N, C, D, H, W)).
    """

    TORCH_NAME = "Conv3d"
    LAYOUT = "(batch, channels, depth, height, width)"
    DIMS = 3
    _pad_kinds = "an int or a triple of ints"

    @staticmethod
    def _kernel(kernel_size):
        return int_tuple(kernel_size, "Conv3d", "kernel_size", 1, 3)

    def _check_channels_first(self, shape):
        _check_volume_channels_first(type(self).__name__, shape)

    def forward(self, x):
        """Convolve `x` of shape (batch, in_channels, depth, height, width)."""
        x = self._checked_input(x)
        return F.conv3d(x, self.W, self.b, stride=self.stride, pad=self.pad, dilation=self.dilation,
                        groups=self.groups)


class Deconv1d(Deconv2d):
    """1-D transposed convolution of sequences (PyTorch's ConvTranspose1d), the adjoint of Conv1d.

    W has shape (in_channels, out_channels / groups, k), input channels first as
    `F.deconv1d` takes it, and starts as Deconv2d's does; b (out_channels,) starts at zero.
    The output is stride (L - 1) + dilation (k - 1) + 1 - 2 pad long, or the `outsize` given
    to the call (PyTorch's output_padding).

    Parameters
    ----------
    out_channels : int
    kernel_size, stride, pad, dilation : int
        As in F.deconv1d.
    in_channels : int, optional
        Inferred from axis 1 of the first input when None.
    nobias : bool
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    rng : numpy.random.Generator, optional
        Source of the initial W.
    groups : int

    Raises
    ------
    TypeError, ValueError
        As Deconv2d's, for inputs (batch, channels, length) and int settings.
    """

    TORCH_NAME = "ConvTranspose1d"
    LAYOUT = "(batch, channels, length)"
    _pad_kinds = "an int"
    torch_keywords = {**_Convolution.torch_keywords,
                      "output_padding": "{name}(..., stride=s) takes the extra entries as its call's "
                                        "outsize: layer(x, outsize=length)"}

    def __init__(self, out_channels: int, kernel_size: int, stride: int = 1, pad: int = 0,
                 in_channels: int | None = None, nobias: bool = False, dtype=None, *,
                 rng: np.random.Generator | None = None, dilation: int = 1, groups: int = 1):
        stride, dilation, pad = (single_int(v, "Deconv1d", name, low) for v, name, low in (
            (stride, "stride", 1), (dilation, "dilation", 1), (pad, "pad", 0)))
        super().__init__(out_channels, kernel_size, (1, stride), (0, pad), in_channels, nobias, dtype,
                         rng=rng, dilation=(1, dilation), groups=groups)

    @staticmethod
    def _kernel(kernel_size):
        return 1, single_int(kernel_size, "Deconv1d", "kernel_size", 1)

    @staticmethod
    def _written(pair):
        return pair[1:]

    def _w_shape(self, in_channels):
        return (in_channels, self.out_channels // self.groups, self.kernel_size[1])

    def _check_channels_first(self, shape):
        """No layout check: any length fits a transposed convolution, and a short sequence of
        many channels (an upsampling decoder's input) is its usual input."""

    def forward(self, x, outsize=None):
        """Transposed convolution of `x` (batch, in_channels, length); `outsize` as in F.deconv1d."""
        x = self._checked_input(x)
        return F.deconv1d(x, self.W, self.b, stride=self.stride[1], pad=self.pad[1], outsize=outsize,
                          dilation=self.dilation[1], groups=self.groups)


class Deconv3d(Deconv2d):
    """3-D transposed convolution of volumes (PyTorch's ConvTranspose3d), the adjoint of Conv3d.

    W has shape (in_channels, out_channels / groups, kd, kh, kw), input channels first as
    `F.deconv3d` takes it, and starts as Deconv2d's does; b (out_channels,) starts at zero.

    Parameters
    ----------
    out_channels : int
    kernel_size, stride, pad, dilation : int or (int, int, int)
        As in F.deconv3d.
    in_channels : int, optional
        Inferred from axis 1 of the first input when None.
    nobias : bool
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    rng : numpy.random.Generator, optional
        Source of the initial W.
    groups : int

    Raises
    ------
    TypeError, ValueError
        As Deconv2d's, for inputs of 5 axes; a channels-last volume is refused as Conv3d
        refuses it.
    """

    TORCH_NAME = "ConvTranspose3d"
    LAYOUT = "(batch, channels, depth, height, width)"
    DIMS = 3
    _pad_kinds = "an int or a triple of ints"
    torch_keywords = {**_Convolution.torch_keywords,
                      "output_padding": "{name}(..., stride=s) takes the extra entries as its call's "
                                        "outsize: layer(x, outsize=(d, h, w))"}

    def _padding(self, pad):
        return int_tuple(pad, "Deconv3d", "pad", 0, 3)

    @staticmethod
    def _kernel(kernel_size):
        return int_tuple(kernel_size, "Deconv3d", "kernel_size", 1, 3)

    def _check_channels_first(self, shape):
        _check_volume_channels_first(type(self).__name__, shape)

    def forward(self, x, outsize=None):
        """Transposed convolution of `x` (batch, in_channels, depth, height, width); `outsize` as in
        F.deconv3d."""
        x = self._checked_input(x)
        return F.deconv3d(x, self.W, self.b, stride=self.stride, pad=self.pad, outsize=outsize,
                          dilation=self.dilation, groups=self.groups)
