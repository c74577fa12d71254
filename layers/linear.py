"""Linear: y = x W + b, with W created lazily from the first input when in_size is None."""

import numpy as np

import function as F
import variable as V

from .initializers import generator, scaled_normal
from .layer import Layer
from .parameter import Parameter


def _positive_int(value, what, where):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{where}: {what} must be a positive int, got {value!r}")
    return int(value)


def _inferred_size(size, what, shape, where):
    """A size read off the first input, refused when 0 (the layer would have no weights)."""
    if size == 0:
        raise ValueError(
            f"{where}: cannot infer {what} from an input of shape {tuple(shape)}: that axis has "
            f"size 0, and the layer needs at least one"
        )
    return int(size)


def _dtype_or_none(dtype, where):
    if dtype is None:
        return None
    try:
        dtype = np.dtype(dtype)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: dtype must be a floating-point dtype, got {dtype!r}") from None
    if dtype.kind != "f":
        raise TypeError(f"{where}: dtype must be a floating-point dtype, got {dtype}")
    return dtype


class Linear(Layer):
    """Fully connected layer: y = x @ W + b, W of shape (in_size, out_size).

    W is drawn from N(0, 1) times sqrt(1 / in_size); b starts at zero.

    Parameters
    ----------
    out_size : int
    in_size : int, optional
        When None, W and b are created on the first call from the last axis of the input.
    nobias : bool
        Leave out b.
    dtype : dtype, optional
        Parameter dtype.  By default the parameters take the (float) dtype of the first
        input, so a float32 input gives a float32 layer.
    rng : numpy.random.Generator, optional
        Source of the initial W (default: the generator `layers.seed` resets).

    Raises
    ------
    TypeError
        If `dtype` is not a floating-point dtype, or an input is not array-like.
    ValueError
        If a size is not a positive int, the input's last axis differs from in_size, or
        in_size is to be inferred from an input whose last axis is empty.
    """

    def __init__(self, out_size: int, in_size: int | None = None, nobias: bool = False,
                 dtype=None, *, rng: np.random.Generator | None = None):
        super().__init__()
        self.out_size = _positive_int(out_size, "out_size", "Linear")
        self.in_size = None if in_size is None else _positive_int(in_size, "in_size", "Linear")
        self._in_size_given = in_size is not None
        self.nobias = bool(nobias)
        self._dtype = _dtype_or_none(dtype, "Linear")
        self._rng = rng
        generator(rng)  # reject a bad rng now rather than on the first call
        self.W = None
        self.b = None
        if self.in_size is not None:
            self._create(self._dtype or np.float64)

    def _width_error(self, shape):
        """Why an input of `shape` does not fit, naming the (out_size, in_size) argument order."""
        message = (f"Linear: input of shape {tuple(shape)} has {shape[-1]} features on its last axis, "
                   f"but the layer was built for in_size={self.in_size}")
        out, given = self.out_size, self.in_size
        if not self._in_size_given:
            return message + " (read off its first input or from loaded weights)"
        message += (f"; Linear({out}, {given}) means out_size={out}, in_size={given} (gengrad's order is "
                    f"Linear(out_size, in_size=None))")
        if shape[-1] == out and out != given:     # most likely PyTorch's order, nn.Linear(in, out)
            return message + (f"; for PyTorch's nn.Linear({out}, {given}) write "
                              f"L.Linear({given}, in_size={out}) or just L.Linear({given})")
        return message + (f"; for PyTorch's nn.Linear({given}, {out}) write L.Linear({out}, in_size={given}) "
                          f"or just L.Linear({out})")

    def _create(self, dtype):
        self.W = Parameter(scaled_normal((self.in_size, self.out_size), self.in_size, dtype, self._rng),
                           name="W")
        if not self.nobias:
            self.b = Parameter(np.zeros(self.out_size, dtype=dtype), name="b")

    def _repr_settings(self):
        """Shown until W exists (then W's shape says the sizes)."""
        return {"out_size": self.out_size, **({"nobias": True} if self.nobias else {})}

    def _lazy_shapes(self):
        """('in_size', shapes of W and b) until W exists (see `Layer._lazy_shapes`)."""
        if self.W is not None:
            return None
        shapes = {"W": (None, self.out_size)}
        if not self.nobias:
            shapes["b"] = (self.out_size,)
        return "in_size", shapes

    def forward(self, x):
        """x @ W + b over the last axis of `x`."""
        x = V.as_variable(x, op="Linear")
        shape = x.shape
        if not shape:
            raise ValueError("Linear: the input must have at least one axis, got a 0-d input")
        if self.W is None:
            self.in_size = _inferred_size(shape[-1], "in_size", shape, "Linear")
            self._create(self._settle_dtype(x))
            self._settle_device(x)
        else:
            self._settle_dtype(x)
            if shape[-1] != self.in_size:
                raise ValueError(self._width_error(shape))
        return F.linear(x, self.W, self.b)
