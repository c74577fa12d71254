"""A deep residual network trained with gradient checkpointing: the same steps in less memory.

Model: an input layer, D residual blocks h <- h + (W2 tanh(W1 h + b1) + b2) / sqrt(D) (the
scale keeps the sum of D branches in range), and an output layer, on the spiral's three
classes.  Plainly, backward needs every block's activations,
so the graph of one step holds about 3 D arrays of (batch, width).  With
`V.checkpoint_sequential(model.blocks, k, h)` the blocks run in k segments; of the first
k - 1 only the input is kept, and backward runs each segment again just before it needs
its graph (torch.utils.checkpoint's trade): about D/k + k segments' worth of arrays at a
time, least near k = sqrt(D), for one more forward pass through the first k - 1 segments.

The script trains two copies of the network from the same initial weights, plain and
checkpointed, and checks that they take the same steps (checkpointing changes what is kept,
not what is computed: the losses agree bit for bit).  Then it measures one step at several
k: the peak memory above what is held between steps (tracemalloc, which sees NumPy's
arrays) and the time, and draws both against k.
"""

import os
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import function as F  # noqa: E402
import layers as L  # noqa: E402
import optimizers as O  # noqa: E402
import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402


class Residual(L.Model):
    """h + (W2 tanh(W1 h + b1) + b2) * scale."""

    def __init__(self, width, scale):
        super().__init__()
        self.inner = L.Linear(width)
        self.outer = L.Linear(width)
        self.scale = scale

    def forward(self, h):
        return h + self.outer(F.tanh(self.inner(h))) * self.scale


class DeepNet(L.Model):
    """Input layer, `depth` residual blocks, output layer; `segments` > 1 checkpoints the blocks."""

    def __init__(self, depth, width, classes):
        super().__init__()
        self.first = L.Linear(width)
        self.blocks = L.Sequential(*[Residual(width, 1 / np.sqrt(depth)) for _ in range(depth)])
        self.last = L.Linear(classes)

    def forward(self, x, segments=1):
        h = self.first(x)
        h = self.blocks(h) if segments == 1 else V.checkpoint_sequential(self.blocks, segments, h)
        return self.last(h)


def build(depth, width, seed):
    """A DeepNet with its weights made (one plain call), the same for the same seed."""
    L.seed(seed)
    model = DeepNet(depth, width, 3)
    with V.no_grad():
        model(np.zeros((1, 2)))
    return model


def step(model, optimizer, x, t, segments):
    loss = F.softmax_cross_entropy(model(x, segments), t)
    model.cleargrads()
    loss.backward()
    optimizer.update()
    return float(loss)


def measure(model, x, t, segments, repeat=3):
    """(peak bytes of one step above what is held between steps, best seconds of a step)."""
    optimizer = O.SGD(lr=0.0).setup(model)       # (a step that leaves the weights as they are)
    step(model, optimizer, x, t, segments)        # the gradients exist, as between steps
    V.empty_cache()
    tracemalloc.start()
    try:
        resting = tracemalloc.get_traced_memory()[0]
        step(model, optimizer, x, t, segments)
        peak = tracemalloc.get_traced_memory()[1] - resting
    finally:
        tracemalloc.stop()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        step(model, optimizer, x, t, segments)
        best = min(best, time.perf_counter() - start)
    return peak, best


def main(argv=None):
    """Train plain and checkpointed copies, compare them, and measure memory and time against k."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--depth", type=int, default=36, help="residual blocks (D)")
    parser.add_argument("--width", type=int, default=64, help="features in each block")
    parser.add_argument("--points", type=int, default=300, help="spiral points per class (the batch: 3x)")
    parser.add_argument("--steps", type=int, default=30, help="training steps of each copy")
    parser.add_argument("--segments", type=int, default=6, help="k for the training comparison")
    parser.add_argument("--lr", type=float, default=0.1, help="SGD learning rate")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and the initial weights")
    args = parser.parse_args(argv)
    if min(args.depth, args.width, args.points, args.steps, args.segments) < 1:
        parser.error("--depth, --width, --points, --steps and --segments must be positive")
    if args.segments > args.depth:
        parser.error("--segments must be at most --depth")
    os.makedirs(args.out, exist_ok=True)
    x, t = L.datasets.spiral(n_per_class=args.points, n_classes=3, seed=args.seed)
    print(f"{args.depth} residual blocks of width {args.width}, batch {len(x)}: plain, and checkpointed "
          f"in {args.segments} segments")

    losses = {}
    for segments in (1, args.segments):
        model = build(args.depth, args.width, args.seed)
        optimizer = O.SGD(lr=args.lr).setup(model)
        losses[segments] = [step(model, optimizer, x, t, segments) for _ in range(args.steps)]
    plain, cut = losses[1], losses[args.segments]
    for i in sorted({0, args.steps // 2, args.steps - 1}):
        print(f"step {i + 1:4d}  loss plain {plain[i]:.6f}  checkpointed {cut[i]:.6f}")
    print("the two copies took the same steps: losses equal bit for bit" if plain == cut else
          f"the copies differ: largest loss difference {max(abs(a - b) for a, b in zip(plain, cut)):.3g}")

    ks = sorted({1, 2, max(1, round(args.depth ** 0.5)), args.segments, max(1, args.depth // 2), args.depth})
    print("one step against k (peak above resting, from tracemalloc; time best of 3):")
    model = build(args.depth, args.width, args.seed)
    rows = [(k, *measure(model, x, t, k)) for k in ks]
    base_peak, base_time = rows[0][1], rows[0][2]
    for k, peak, seconds in rows:
        print(f"  k = {k:3d}  peak {peak / 2 ** 20:7.2f} MiB ({peak / base_peak:.2f}x)  "
              f"time {seconds * 1e3:7.1f} ms ({seconds / base_time:.2f}x)")

    plt = pyplot()
    if plt is not None:
        fig, memory_axes = plt.subplots(figsize=(6, 3.6))
        memory_axes.plot(ks, [r[1] / 2 ** 20 for r in rows], "o-", color="C0")
        memory_axes.set_xscale("log", base=2)
        memory_axes.set_xticks(ks, [str(k) for k in ks])
        memory_axes.set_xlabel("segments k (k = 1: no checkpointing)")
        memory_axes.set_ylabel("peak memory of a step (MiB)", color="C0")
        time_axes = memory_axes.twinx()
        time_axes.plot(ks, [r[2] * 1e3 for r in rows], "s--", color="C1")
        time_axes.set_ylabel("time of a step (ms)", color="C1")
        memory_axes.set_title(f"{args.depth} residual blocks: memory against time")
        save_figure(plt, fig, os.path.join(args.out, "deep_checkpoint.png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
