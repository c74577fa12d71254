"""An LSTM that predicts the next value of a sine wave, trained by truncated backprop through time.

Data: a noisy sine y_k = sin(2 pi k / 25) + u_k, u_k uniform on [-0.05, 0.05]
(`L.datasets.sine_curve`), as one-step-ahead pairs (input y_k, target y_{k+1}).
`L.SeqDataLoader` reads the series as B contiguous streams side by side (stream j
starts at j * (n // B)), so every time step is a minibatch of B values and row j of
consecutive minibatches walks through one unbroken piece of the wave.

Model: an LSTM layer (layers/recurrent.py; `--cell gru` takes a GRU instead)

    [i, f, o, g] = x_t W_x + h_{t-1} W_h + b,   c_t = sigmoid(f) c_{t-1} + sigmoid(i) tanh(g),
    h_t = sigmoid(o) tanh(c_t),

followed by a linear read-out y_hat_t = h_t W + b.  The state (h, c) carries what the
network has seen so far, which a single value y_k alone cannot tell (is the wave going up
or down?).

Backprop through time differentiates the loss summed over time steps through the
recurrence h_{t-1} -> h_t.  Over a whole epoch that graph grows with every step, so the
training is truncated: every `bptt` steps the mean loss of those steps is backpropagated,
the optimizer steps, and `loss.unchain_backward()` cuts every creator link behind the
loss.  The state (h, c) keeps its value into the next segment but is now a leaf, so the
next backward stops there: memory and time per segment stay constant.

After training the script measures (a) one-step-ahead prediction of a clean sine and of
a cosine (a shifted input the network never saw) and (b) free running: after a warm-up
on the clean sine the network is fed its own predictions for one period.
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import function as F  # noqa: E402
import layers as L  # noqa: E402
import optimizers as O  # noqa: E402
import variable as V  # noqa: E402
from examples.cli import add_device_option, check_device, example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402

PERIOD = 25.0


CELLS = {"lstm": L.LSTM, "gru": L.GRU}


class SineLSTM(L.Model):
    """LSTM(hidden) (or a GRU) followed by Linear(1): one value in, the next value out, per time step."""

    def __init__(self, hidden, cell="lstm"):
        super().__init__()
        self.rnn = CELLS[cell](hidden)
        self.out = L.Linear(1)

    def reset_state(self):
        """Start a new sequence."""
        self.rnn.reset_state()

    def forward(self, x):
        """One time step: x of shape (batch, 1) -> the predicted next value, (batch, 1)."""
        return self.out(self.rnn(x))


def train_epoch(model, optimizer, loader, bptt):
    """One pass over the streams of `loader` (batches (x_t, t_t)) with truncated BPTT.

    Returns the mean loss per time step.
    """
    model.reset_state()
    loss, count, total = 0, 0, 0.0
    for k, (x, t) in enumerate(loader):
        loss = loss + F.mean_squared_error(model(x), t)
        count += 1
        if count == bptt or k == len(loader) - 1:
            loss = loss / count
            model.cleargrads()
            loss.backward()
            loss.unchain_backward()          # truncate: the state becomes a leaf
            optimizer.update()
            total += float(loss) * count
            loss, count = 0, 0
    return total / len(loader)


def one_step_predictions(model, series):
    """Predictions of series[k + 1] from series[:k + 1], for every k, without a graph."""
    model.reset_state()
    with V.no_grad():
        return np.array([model(np.array([[v]])).data[0, 0] for v in series[:-1]])


def free_run(model, warmup, steps):
    """Feed `warmup`, then `steps` of the model's own predictions; returns those predictions."""
    model.reset_state()
    outputs = []
    with V.no_grad():
        for v in warmup:
            y = model(np.array([[v]]))
        for _ in range(steps):
            outputs.append(float(y.data[0, 0]))
            y = model(y.data)
    return np.array(outputs)


def main(argv=None):
    """Train the LSTM on the noisy sine, then test one-step and free-running prediction."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--epochs", type=int, default=20, help="passes over the series")
    parser.add_argument("--hidden", type=int, default=32, help="LSTM (or GRU) units")
    parser.add_argument("--cell", choices=sorted(CELLS), default="lstm", help="the recurrent layer")
    parser.add_argument("--bptt", type=int, default=20, help="time steps per truncated segment")
    parser.add_argument("--streams", type=int, default=10, help="parallel streams (batch size)")
    parser.add_argument("--samples", type=int, default=1000, help="length of the training series")
    parser.add_argument("--lr", type=float, default=0.01, help="Adam learning rate")
    parser.add_argument("--seed", type=int, default=0, help="seed of the noise and the initial weights")
    add_device_option(parser)
    args = parser.parse_args(argv)
    if min(args.epochs, args.hidden, args.bptt, args.streams) < 1 or args.samples < 2 * args.streams:
        parser.error("--epochs, --hidden, --bptt, --streams must be positive and --samples >= 2 * --streams")
    check_device(parser, args.device)
    os.makedirs(args.out, exist_ok=True)
    np.random.seed(args.seed)
    L.seed(args.seed)

    x, t = L.datasets.sine_curve(n=args.samples, period=PERIOD, noise=0.05, seed=args.seed)
    loader = L.SeqDataLoader(x, t, batch_size=args.streams)
    model = SineLSTM(args.hidden, args.cell)
    cell = args.cell.upper()
    if args.device == "gpu":                 # the streams and the weights on the GPU
        loader.to_gpu()
        model.to_gpu()
    optimizer = O.Adam(lr=args.lr).setup(model)
    print(f"{args.samples} samples of a noisy sine (period {PERIOD:g}) in {args.streams} streams of "
          f"{len(loader)} steps; {cell}({args.hidden}), truncated BPTT every {args.bptt} steps")
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        loss = train_epoch(model, optimizer, loader, args.bptt)
        print(f"epoch {epoch:3d}/{args.epochs}  loss {loss:.5f}  time {time.perf_counter() - start:.2f}s")
    model.to_cpu()                           # predictions and the figure on the host

    k = np.arange(4 * int(PERIOD) + 1)
    sine, cosine = np.sin(2 * np.pi * k / PERIOD), np.cos(2 * np.pi * k / PERIOD)
    results = {}
    for name, curve in (("sine", sine), ("cosine", cosine)):
        predicted = one_step_predictions(model, curve)
        results[name] = predicted
        rmse = np.sqrt(np.mean((predicted[5:] - curve[6:]) ** 2))    # after a 5-step warm-up
        print(f"one-step-ahead RMS error on a clean {name}: {rmse:.4f}")
    warm = 2 * int(PERIOD)
    generated = free_run(model, sine[:warm], int(PERIOD))
    free_rmse = np.sqrt(np.mean((generated - sine[warm:warm + int(PERIOD)]) ** 2))
    print(f"free-running RMS error over one period after a {warm}-step warm-up: {free_rmse:.4f}")

    plt = pyplot()
    if plt is None:
        return 0
    fig, (ax0, ax1) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    ax0.plot(k, cosine, "k--", lw=1, label="cos (clean)")
    ax0.plot(k[1:], results["cosine"], ".", color="C3", ms=4, label="one-step prediction")
    ax0.set_title(f"one step ahead: the {cell} reads the true value at every step")
    ax0.legend(fontsize=8, loc="upper right")
    ax1.plot(k, sine, "k--", lw=1, label="sin (clean)")
    ax1.plot(k[:warm], sine[:warm], color="C0", lw=2, label="warm-up input")
    steps = np.arange(warm, warm + len(generated))
    ax1.plot(steps, generated, "o-", color="C3", ms=3, label="fed its own predictions")
    ax1.set_title(f"free running: the {cell} continues the wave on its own")
    ax1.set_xlabel("time step")
    ax1.legend(fontsize=8, loc="upper right")
    save_figure(plt, fig, os.path.join(args.out, "lstm_sine.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
