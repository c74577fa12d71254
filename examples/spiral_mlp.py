"""Classifying three interleaved spirals with a two-layer network, and its decision boundary.

The data (`L.datasets.spiral`) are points x in the plane on three spiral arms, one
class per arm; no straight line separates them.  The network

    h = act(x W1 + b1),    z = h W2 + b2    (three class scores)

maps a point to scores z, and softmax turns them into probabilities
p_k = exp(z_k) / sum_j exp(z_j).  Training minimises the cross-entropy, the mean of
-log p_t over a minibatch, whose gradient with respect to the scores is p - onehot(t);
backprop carries it through W2, the activation and W1, and the optimizer steps the
weights.  One epoch visits every point once in shuffled minibatches.

The hidden layer bends the plane so that the arms become linearly separable in h: the
figure shows the class the network picks at every point of a grid (its decision
regions), the training points on top, and the loss and accuracy per epoch.

Defaults (30 tanh units, Adam with lr 0.05, 50 epochs) reach a training accuracy of
about 0.98 in well under a second.  DeZero's original setting is
`--hidden 10 --activation sigmoid --optimizer sgd --lr 1.0 --epochs 300` (about 0.98).
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

LIGHT = ["#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94"]  # pale C0, C1, ...
ACTIVATIONS = {"tanh": F.tanh, "sigmoid": F.sigmoid, "relu": F.relu}
OPTIMIZERS = {"adam": O.Adam, "sgd": O.SGD}


def train(model, optimizer, x, t, epochs, batch_size, seed=0, device="cpu"):
    """Minibatch training with softmax cross-entropy; one progress line per epoch.

    Returns the history as a list of (loss, accuracy) per epoch, both averaged over the
    epoch's minibatches (weighted by their sizes).  device="gpu": the batches go to the
    GPU (the model must be there already).
    """
    loader = L.DataLoader(x, t, batch_size=batch_size, seed=seed)
    if device == "gpu":
        loader.to_gpu()
    history = []
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        total_loss, total_correct = 0.0, 0.0
        for xb, tb in loader:
            y = model(xb)
            loss = F.softmax_cross_entropy(y, tb)
            model.cleargrads()
            loss.backward()
            optimizer.update()
            total_loss += float(loss) * len(tb)
            total_correct += F.accuracy(y, tb) * len(tb)
        history.append((total_loss / len(x), total_correct / len(x)))
        print(f"epoch {epoch:3d}/{epochs}  loss {history[-1][0]:.4f}  "
              f"accuracy {history[-1][1]:.3f}  time {time.perf_counter() - start:.2f}s")
    return history


def class_grid(predict, x, steps=200, margin=0.2):
    """A grid over the bounding box of `x` and the class `predict` picks at each grid point."""
    lo, hi = x.min(axis=0) - margin, x.max(axis=0) + margin
    a, b = np.meshgrid(np.linspace(lo[0], hi[0], steps), np.linspace(lo[1], hi[1], steps))
    points = np.stack([a.ravel(), b.ravel()], axis=1).astype(x.dtype)
    with V.no_grad():
        scores = predict(points).data
    return a, b, scores.argmax(axis=1).reshape(a.shape)


def draw_decision_regions(ax, predict, x, t, title):
    """Colour the plane by the predicted class and scatter the labelled points on top."""
    a, b, classes = class_grid(predict, x)
    n_classes = int(t.max()) + 1
    ax.contourf(a, b, classes, levels=np.arange(n_classes + 1) - 0.5, colors=LIGHT[:n_classes])
    markers = "os^vDP"
    for k in range(n_classes):
        ax.scatter(x[t == k, 0], x[t == k, 1], s=12, marker=markers[k % len(markers)],
                   color=f"C{k}", edgecolors="k", linewidths=0.3, label=f"class {k}")
    ax.set_title(title)
    ax.set_aspect("equal")
    ax.set_xlabel("x0")
    ax.set_ylabel("x1")


def plot_spiral(model, x, t, history, path):
    """Decision regions and the training curves, saved as a PNG (None without matplotlib)."""
    plt = pyplot()
    if plt is None:
        return None
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 4.5))
    with V.no_grad():
        accuracy = F.accuracy(model(x), t)
    draw_decision_regions(ax0, model, x, t, f"decision regions (training accuracy {accuracy:.3f})")
    ax0.legend(fontsize=8, loc="upper right")
    epochs = np.arange(1, len(history) + 1)
    loss, acc = np.array(history).T
    ax1.plot(epochs, loss, color="C0", label="loss")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("cross-entropy", color="C0")
    ax2 = ax1.twinx()
    ax2.plot(epochs, acc, color="C3", label="accuracy")
    ax2.set_ylabel("accuracy", color="C3")
    ax2.set_ylim(0, 1.02)
    ax1.set_title("training curves")
    ax1.grid(alpha=0.3)
    return save_figure(plt, fig, path)


def main(argv=None):
    """Train the spiral classifier, print per-epoch progress, draw its decision regions."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--epochs", type=int, default=50, help="passes over the data")
    parser.add_argument("--batch-size", type=int, default=30, help="points per minibatch")
    parser.add_argument("--hidden", type=int, default=30, help="hidden units")
    parser.add_argument("--activation", choices=sorted(ACTIVATIONS), default="tanh",
                        help="activation of the hidden layer")
    parser.add_argument("--optimizer", choices=sorted(OPTIMIZERS), default="adam",
                        help="optimizer of the weights")
    parser.add_argument("--lr", type=float, default=0.05, help="learning rate")
    parser.add_argument("--points", type=int, default=100, help="points per spiral arm")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the data, the initial weights and the shuffling")
    add_device_option(parser)
    args = parser.parse_args(argv)
    if min(args.epochs, args.batch_size, args.hidden, args.points) < 1:
        parser.error("--epochs, --batch-size, --hidden and --points must be positive")
    check_device(parser, args.device)
    os.makedirs(args.out, exist_ok=True)
    np.random.seed(args.seed)
    L.seed(args.seed)

    x, t = L.datasets.spiral(n_per_class=args.points, n_classes=3, seed=args.seed)
    model = L.MLP((args.hidden, 3), activation=ACTIVATIONS[args.activation])
    optimizer = OPTIMIZERS[args.optimizer](lr=args.lr).setup(model)
    print(f"spiral: {len(x)} points in 3 classes; 2-{args.hidden}-3 network with {args.activation}, "
          f"{args.optimizer} lr={args.lr:g}, batch size {args.batch_size}")
    if args.device == "gpu":
        model.to_gpu()                       # its weights are made there at the first batch
    history = train(model, optimizer, x, t, args.epochs, args.batch_size, args.seed, args.device)
    model.to_cpu()                           # evaluated and drawn on the host
    with V.no_grad():
        accuracy = F.accuracy(model(x), t)
    print(f"training accuracy after {args.epochs} epochs: {accuracy:.3f}")
    plot_spiral(model, x, t, history, os.path.join(args.out, "spiral_boundary.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
