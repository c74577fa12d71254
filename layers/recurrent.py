"""Recurrent layers that keep their state between calls: RNN, LSTM and GRU.

Call the layer once per time step with a batch of inputs of shape (batch, in_size);
it returns the new hidden state and keeps it for the next call (a whole (batch, time,
features) sequence, PyTorch's nn.RNN input, is refused, naming the loop).  `reset_state()`
starts a new sequence; an input whose batch size differs from the kept state's is
refused (ValueError) rather than broadcast against it.  For truncated backpropagation through time, call
`unchain_backward()` on the loss (or on the state) after each backward.
"""

import numpy as np

import function as F

from .layer import Layer
from .linear import Linear, _positive_int


def _check_step(layer, x):
    """Refuse a whole sequence: the layer is one time step, and a (batch, time, features) input
    would run every step at once from the same state, with no recurrence between them; and an
    input whose features differ from those the layer was built for, naming the layer (its inner
    Linear would name only itself)."""
    shape = getattr(x, "shape", None)
    if shape is None:
        try:
            shape = np.shape(x)
        except ValueError:      # (a ragged list: the layer's Linear names it)
            return
    name = type(layer).__name__
    if len(shape) >= 3:
        raise ValueError(
            f"{name}: x of shape {tuple(shape)} has {len(shape)} axes, but {name} is one time step: it "
            f"takes (batch, in_size) and keeps the state for the next call (as DeZero's does, where "
            f"PyTorch's nn.{name} scans a sequence); for a (batch, time, features) sequence, loop over "
            f"time: for t in range(x.shape[1]): h = layer(x[:, t])"
        )
    size = layer.x2h.in_size
    if size is not None and shape and shape[-1] != size:
        message = (f"{name}: x of shape {tuple(shape)} has {shape[-1]} features on its last axis, but "
                   f"this {name} was built for in_size={size} (read off its first input, given, or from "
                   f"loaded weights); each time step takes (batch, {size})")
        hidden = layer.hidden_size
        if layer.x2h._in_size_given and shape[-1] == hidden != size:   # PyTorch's (input, hidden) order
            message += (f"; {name}({hidden}, {size}) means hidden_size={hidden}, in_size={size} (gengrad's "
                        f"order is {name}(hidden_size, in_size=None), as DeZero's); for PyTorch's "
                        f"nn.{name}({hidden}, {size}) write L.{name}({size}, in_size={hidden}) or just "
                        f"L.{name}({size})")
        raise ValueError(message)


_TORCH_KEYWORDS = {
    "batch_first": "{name} is one time step, (batch, in_size) in and (batch, hidden_size) out: loop over "
                   "time, for t in range(x.shape[1]): h = layer(x[:, t]), for a (batch, time, features) x",
    "num_layers": "stack the layers: h = layer2(layer1(x)) at each step, one {name} per layer",
    "bidirectional": "run a second {name} over the reversed sequence and concatenate the two states",
    "dropout": "apply F.dropout to each layer's output before the next layer",
    "bias": "{name} always has its biases",
    "nonlinearity": "{name} uses tanh",
    "proj_size": "follow the {name} with an L.Linear(proj_size, nobias=True)",
}
"""Keywords of PyTorch's nn.RNN, nn.LSTM and nn.GRU, with what to write in gengrad."""


class _Recurrent(Layer):
    """Base of the recurrent layers: refuses PyTorch's keywords of nn.RNN/LSTM/GRU by name."""

    torch_keywords = _TORCH_KEYWORDS

    def __init__(self, hidden_size, in_size, blocks, state_bias, dtype, rng):
        """x2h and h2h with `blocks` blocks of hidden_size outputs (one per gate), h2h with a
        bias where `state_bias`; the state h starts empty."""
        super().__init__()
        self.hidden_size = _positive_int(hidden_size, "hidden_size", type(self).__name__)
        self.x2h = Linear(blocks * hidden_size, in_size, dtype=dtype, rng=rng)
        self.h2h = Linear(blocks * hidden_size, hidden_size, nobias=not state_bias, dtype=dtype, rng=rng)
        self.h = None

    def __call__(self, *inputs, **kwargs):
        """One time step of one input; a state passed along (PyTorch's cell(x, h)) is refused."""
        if len(inputs) + len(kwargs) != 1 or kwargs.keys() - {"x"}:   # (layer(x=...) is one input)
            name = type(self).__name__
            state = "layer.h, layer.c = h0, c0" if name == "LSTM" else "layer.h = h0"
            given = len(inputs) + len(kwargs)
            raise TypeError(
                f"{name} takes one input a call, the time step x of shape (batch, in_size), and keeps "
                f"its state on the layer; got {given} arguments. For PyTorch's {name}Cell(x, hx), set "
                f"the state first ({state}, arrays or Variables), then call layer(x); reset_state() "
                f"starts again from zeros"
            )
        return super().__call__(*inputs, **kwargs)


def _check_batch(layer, z, x):
    """Refuse an input whose batch differs from the state's (it would broadcast or fail in Add)."""
    kept, new = layer.h.shape[:-1], z.shape[:-1]
    if kept == new:
        return
    what = "size" if len(kept) == len(new) == 1 else "shape"
    kept, new = (kept[0], new[0]) if what == "size" else (kept, new)
    raise ValueError(
        f"{type(layer).__name__}: the state kept from the previous batch has batch {what} {kept}, "
        f"this input has {new} (input shape {tuple(x.shape)}); call reset_state() between sequences "
        f"(or keep the batch size fixed, e.g. DataLoader(..., drop_last=True))"
    )


class RNN(_Recurrent):
    """Elman recurrent layer: h_t = tanh(x_t W_x + b + h_{t-1} W_h), h_0 = 0.

    Parameters
    ----------
    hidden_size : int
    in_size : int, optional
        Inferred from the first input when None.
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    rng : numpy.random.Generator, optional
        Source of the initial weights.

    Attributes
    ----------
    x2h : Linear
        Input-to-hidden weights W_x and bias b.
    h2h : Linear
        Hidden-to-hidden weights W_h (no bias).
    h : Variable or None
        The current hidden state.
    """

    def __init__(self, hidden_size: int, in_size: int | None = None, *, dtype=None,
                 rng: np.random.Generator | None = None):
        super().__init__(hidden_size, in_size, 1, False, dtype, rng)

    def reset_state(self) -> None:
        """Forget the hidden state: the next call starts a new sequence."""
        self.h = None

    def forward(self, x):
        """One time step: the new hidden state, shape (batch, hidden_size)."""
        _check_step(self, x)
        z = self.x2h(x)
        self.h2h._settle_dtype(z)     # W_h takes the dtype of the state even before it is used
        if self.h is not None:
            _check_batch(self, z, x)
            z = z + self.h2h(self.h)
        h = F.tanh(z)
        self.h = h
        return h


class LSTM(_Recurrent):
    """Long short-term memory layer (Hochreiter and Schmidhuber, with a forget gate).

    With z = x_t W_x + b + h_{t-1} W_h split into four blocks [i, f, o, g]:
    i, f, o = sigmoid(.), g = tanh(.), c_t = f * c_{t-1} + i * g, h_t = o * tanh(c_t),
    starting from h_0 = c_0 = 0.  The four gates share one matrix product.

    Parameters
    ----------
    hidden_size : int
    in_size : int, optional
        Inferred from the first input when None.
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    rng : numpy.random.Generator, optional
        Source of the initial weights.

    Attributes
    ----------
    x2h : Linear
        W_x of shape (in_size, 4 hidden_size) and the bias b.
    h2h : Linear
        W_h of shape (hidden_size, 4 hidden_size), no bias.
    h, c : Variable or None
        The current hidden and cell states.
    """

    def __init__(self, hidden_size: int, in_size: int | None = None, *, dtype=None,
                 rng: np.random.Generator | None = None):
        super().__init__(hidden_size, in_size, 4, False, dtype, rng)
        self.c = None

    def reset_state(self) -> None:
        """Forget the hidden and cell states: the next call starts a new sequence."""
        self.h = None
        self.c = None

    def forward(self, x):
        """One time step: the new hidden state h, shape (batch, hidden_size)."""
        _check_step(self, x)
        z = self.x2h(x)
        self.h2h._settle_dtype(z)     # W_h takes the dtype of the state even before it is used
        if self.h is not None:
            _check_batch(self, z, x)
            z = z + self.h2h(self.h)
        i, f, o, g = F.split(z, 4, axis=-1)
        i, f, o, g = F.sigmoid(i), F.sigmoid(f), F.sigmoid(o), F.tanh(g)
        c = i * g if self.c is None else f * self.c + i * g
        h = o * F.tanh(c)
        self.h, self.c = h, c
        return h


class GRU(_Recurrent):
    """Gated recurrent unit (Cho et al., 2014), in PyTorch's form and gate order.

    With a = x_t W_x + b_x and u = h_{t-1} W_h + b_h, each split into three blocks [r, z, n]:
    r = sigmoid(a_r + u_r), z = sigmoid(a_z + u_z), n = tanh(a_n + r * u_n) and
    h_t = (1 - z) * n + z * h_{t-1}, starting from h_0 = 0.  The reset gate r scales u_n,
    bias included, as in PyTorch's nn.GRU (whose weights are these matrices transposed); the
    three gates share one matrix product for the input and one for the state.

    Parameters
    ----------
    hidden_size : int
    in_size : int, optional
        Inferred from the first input when None.
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    rng : numpy.random.Generator, optional
        Source of the initial weights.

    Attributes
    ----------
    x2h : Linear
        W_x of shape (in_size, 3 hidden_size) and the bias b_x.
    h2h : Linear
        W_h of shape (hidden_size, 3 hidden_size) and the bias b_h.
    h : Variable or None
        The current hidden state.
    """

    def __init__(self, hidden_size: int, in_size: int | None = None, *, dtype=None,
                 rng: np.random.Generator | None = None):
        super().__init__(hidden_size, in_size, 3, True, dtype, rng)

    def reset_state(self) -> None:
        """Forget the hidden state: the next call starts a new sequence."""
        self.h = None

    def forward(self, x):
        """One time step: the new hidden state h, shape (batch, hidden_size)."""
        _check_step(self, x)
        a = self.x2h(x)
        self.h2h._settle_dtype(a)     # W_h and b_h take the dtype of the state even before use
        if self.h is None:
            u = self.h2h.b            # h_0 = 0 leaves the bias alone
        else:
            _check_batch(self, a, x)
            u = self.h2h(self.h)
        a_r, a_z, a_n = F.split(a, 3, axis=-1)
        u_r, u_z, u_n = F.split(u, 3, axis=-1)
        r, z = F.sigmoid(a_r + u_r), F.sigmoid(a_z + u_z)
        n = F.tanh(a_n + r * u_n)
        h = (1 - z) * n if self.h is None else (1 - z) * n + z * self.h
        self.h = h
        return h
