"""Fitting a noisy sine with a 1-10-1 sigmoid network (DeZero's first neural network).

Data: n points with x uniform on [0, 1) and y = sin(2 pi x) + u, u uniform on
[-0.5, 0.5) (variance 1/12 ~ 0.083).  No straight line fits that, so the model is a
network with one hidden layer of 10 sigmoid units:

    y_hat = sigmoid(x W1 + b1) W2 + b2,    sigmoid(z) = 1 / (1 + exp(-z)).

Each hidden unit is a smooth step at x = -b1/W1 of steepness W1; the output adds ten such
steps with weights W2, which is enough to draw one period of a sine.  The loss is the
mean squared error; backprop needs only sigmoid' = sigmoid (1 - sigmoid) beyond the
matrix products, and stochastic gradient descent (with momentum by default) updates the
weights after every minibatch.  One epoch visits every point once.

The best any model can do is predict sin(2 pi x) itself, which leaves the noise: a
mean squared error of 1/12 on the data.  The script prints the final loss next to
that floor and the root-mean-square distance of the fitted curve from sin(2 pi x).
DeZero's original run is `--batch-size 100 --momentum 0 --lr 0.2 --epochs 10000`
(full-batch gradient descent, 10000 steps).
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
from examples.cli import example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402

NOISE_FLOOR = 1.0 / 12.0   # variance of the uniform noise on [-0.5, 0.5)


def make_data(n, seed):
    """x of shape (n, 1) uniform on [0, 1) and y = sin(2 pi x) + uniform noise on [-0.5, 0.5)."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, 1))
    y = np.sin(2.0 * np.pi * x) + rng.random((n, 1)) - 0.5
    return x, y


def train(model, optimizer, x, y, epochs, batch_size, seed):
    """Minibatch SGD on the mean squared error; one progress line per epoch; returns the losses."""
    loader = L.DataLoader(x, y, batch_size=batch_size, seed=seed)
    losses = []
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        total = 0.0
        for xb, yb in loader:
            loss = F.mean_squared_error(model(xb), yb)
            model.cleargrads()
            loss.backward()
            optimizer.update()
            total += float(loss) * len(xb)
        losses.append(total / len(x))
        print(f"epoch {epoch:4d}/{epochs}  loss {losses[-1]:.4f}  time {time.perf_counter() - start:.2f}s")
    return losses


def main(argv=None):
    """Train the 1-10-1 network on the noisy sine and report how close it gets."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--epochs", type=int, default=300, help="passes over the data")
    parser.add_argument("--batch-size", type=int, default=10, help="points per minibatch")
    parser.add_argument("--lr", type=float, default=0.05, help="learning rate")
    parser.add_argument("--momentum", type=float, default=0.9, help="0 for plain SGD")
    parser.add_argument("--hidden", type=int, default=10, help="hidden sigmoid units")
    parser.add_argument("--samples", type=int, default=100, help="number of (x, y) points")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the data, the initial weights and the shuffling")
    args = parser.parse_args(argv)
    if min(args.epochs, args.batch_size, args.hidden, args.samples) < 1:
        parser.error("--epochs, --batch-size, --hidden and --samples must be positive")
    os.makedirs(args.out, exist_ok=True)
    np.random.seed(args.seed)
    L.seed(args.seed)

    x, y = make_data(args.samples, args.seed)
    model = L.MLP((args.hidden, 1), activation=F.sigmoid)
    if args.momentum:
        optimizer = O.MomentumSGD(lr=args.lr, momentum=args.momentum).setup(model)
    else:
        optimizer = O.SGD(lr=args.lr).setup(model)
    print(f"{len(x)} points of sin(2 pi x) + noise; 1-{args.hidden}-1 sigmoid network, SGD lr={args.lr:g} "
          f"momentum={args.momentum:g}, batch size {args.batch_size}")
    losses = train(model, optimizer, x, y, args.epochs, args.batch_size, args.seed)

    grid = np.linspace(0.0, 1.0, 201).reshape(-1, 1)
    with V.no_grad():
        fitted = model(grid).data
        data_loss = float(F.mean_squared_error(model(x), y).data)
    rmse = float(np.sqrt(np.mean((fitted - np.sin(2.0 * np.pi * grid)) ** 2)))
    print(f"final loss on the data {data_loss:.4f} (noise floor 1/12 = {NOISE_FLOOR:.4f})")
    print(f"RMS distance of the fitted curve from sin(2 pi x) on [0, 1]: {rmse:.4f}")

    plt = pyplot()
    if plt is None:
        return 0
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 4))
    ax0.scatter(x[:, 0], y[:, 0], s=10, color="C0", label="data")
    ax0.plot(grid[:, 0], np.sin(2.0 * np.pi * grid[:, 0]), "k--", lw=1, label="sin(2 pi x)")
    ax0.plot(grid[:, 0], fitted[:, 0], color="C3", lw=2, label="network")
    ax0.set_xlabel("x")
    ax0.set_ylabel("y")
    ax0.legend(fontsize=8)
    ax0.set_title(f"1-{args.hidden}-1 sigmoid network after {args.epochs} epochs")
    ax1.plot(np.arange(1, len(losses) + 1), losses, color="C0", label="training loss")
    ax1.axhline(NOISE_FLOOR, color="k", ls=":", label="noise floor 1/12")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("mean squared error")
    ax1.set_yscale("log")
    ax1.legend(fontsize=8)
    ax1.grid(alpha=0.3)
    save_figure(plt, fig, os.path.join(args.out, "sin_regression.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
