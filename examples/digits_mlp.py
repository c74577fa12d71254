"""Handwritten digits with a multilayer perceptron: scikit-learn's 8x8 digits, or MNIST.

Each image becomes a vector x of D pixel values scaled to [0, 1] (D = 64 for the 8x8
digits bundled with scikit-learn, 784 for MNIST's 28x28).  The network

    h = relu(x W1 + b1),    z = h W2 + b2,    p = softmax(z)

turns it into ten scores z and their probabilities p_k = exp(z_k) / sum_j exp(z_j).
Training minimises the cross-entropy, the mean over a minibatch of -log p_t for the
true digit t, with Adam.  The gradient of -log p_t with respect to the scores is
simply p - onehot(t), which backprop carries through W2, relu (a 0/1 mask) and W1.
Accuracy, the fraction of images whose highest score is the true digit, is measured
on the training batches during the epoch and on held-out test images after it.

Data: scikit-learn's digits (1797 images shipped with scikit-learn, 20% held out);
scikit-learn comes with the examples extra (`pip install -e '.[examples]'`, which
`make demo` runs).  Without it, MNIST is read from --mnist-dir, a directory with the
four standard IDX files (see examples/mnist.py; nothing is downloaded).  When neither
is there the script says so and exits.  --source picks one explicitly.
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
from examples import mnist  # noqa: E402
from examples.cli import add_device_option, check_device, example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402

DEFAULT_MNIST_DIR = os.environ.get("MNIST_DIR", "mnist")


def sklearn_digits(seed=0, test_fraction=0.2):
    """scikit-learn's 8x8 digits as (x_train, t_train, x_test, t_test, image_shape, name).

    Raises ImportError when scikit-learn is not installed.
    """
    from sklearn.datasets import load_digits

    bunch = load_digits()
    x = (bunch.data / 16.0).astype(np.float32)          # pixel values 0..16 -> [0, 1]
    t = bunch.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    n_test = int(round(test_fraction * len(x)))
    test, train = order[:n_test], order[n_test:]
    return x[train], t[train], x[test], t[test], (8, 8), "scikit-learn digits (8x8)"


def mnist_digits(directory):
    """MNIST from IDX files in `directory`, as (x_train, t_train, x_test, t_test, image_shape, name)."""
    data = []
    for split in ("train", "test"):
        images, labels = mnist.load_mnist(directory, split)
        data.append(images.reshape(len(images), -1).astype(np.float32) / 255.0)
        data.append(labels.astype(np.int64))
    shape = images.shape[1:]
    return (*data, shape, f"MNIST from {directory} ({shape[0]}x{shape[1]})")


class NoData(Exception):
    """The chosen data set is not available on this machine."""


def load_data(source, mnist_dir, seed=0):
    """The data set chosen by `source`: 'auto' (scikit-learn, else MNIST), 'sklearn' or 'mnist'.

    Raises
    ------
    NoData
        If the source (for 'auto': either source) is not available.
    FileNotFoundError, mnist.IDXError
        If MNIST was chosen (explicitly, or by 'auto' finding its files) and a file is
        missing or malformed.
    """
    if source in ("auto", "sklearn"):
        try:
            return sklearn_digits(seed)
        except ImportError:
            if source == "sklearn":
                raise NoData("scikit-learn is not installed (pip install scikit-learn)") from None
        if not mnist.has_mnist(mnist_dir):
            raise NoData(
                f"neither scikit-learn (pip install scikit-learn) nor the MNIST IDX files in "
                f"{mnist_dir!r} (set --mnist-dir or MNIST_DIR) are available"
            )
    return mnist_digits(mnist_dir)


class DigitsMLP(L.Model):
    """D -> hidden (relu) -> 10 class scores."""

    def __init__(self, hidden, n_classes=10):
        super().__init__()
        self.l1 = L.Linear(hidden)
        self.l2 = L.Linear(n_classes)

    def forward(self, x):
        """Class scores (logits) of shape (batch, n_classes)."""
        return self.l2(F.relu(self.l1(x)))


def evaluate(model, x, t, batch_size=1000):
    """Test accuracy, computed in batches without recording a graph."""
    correct = 0
    with V.no_grad():
        for i in range(0, len(x), batch_size):
            correct += F.accuracy(model(x[i:i + batch_size]), t[i:i + batch_size]) * len(x[i:i + batch_size])
    return correct / len(x)


def train(model, x, t, x_test, t_test, epochs, batch_size, lr, seed, device="cpu", schedule="constant"):
    """Adam on minibatches; prints one line per epoch, returns the per-epoch history.

    device="gpu": the batches and the test set go to the GPU (the model must be there).
    schedule: "constant" (lr throughout), "cosine" (O.CosineAnnealingLR: lr falls along half
    a cosine to 0 over the epochs, stepped once an epoch) or "onecycle" (O.OneCycleLR: lr rises
    to 4 lr and falls to nearly 0 over every update, beta1 moving the other way).
    """
    optimizer = O.Adam(lr=lr).setup(model)
    loader = L.DataLoader(x, t, batch_size=batch_size, seed=seed)
    per_epoch = per_update = None
    if schedule == "cosine":
        per_epoch = O.CosineAnnealingLR(optimizer, T_max=epochs)
    elif schedule == "onecycle":
        per_update = O.OneCycleLR(optimizer, max_lr=4 * lr, epochs=epochs, steps_per_epoch=len(loader))
    if device == "gpu":
        loader.to_gpu()
        x_test, t_test = V.backend.to_gpu(x_test), V.backend.to_gpu(t_test)
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
            if per_update is not None:
                per_update.step()
            total_loss += float(loss) * len(tb)
            total_correct += F.accuracy(y, tb) * len(tb)
        loss, accuracy = total_loss / len(x), total_correct / len(x)
        test_accuracy = evaluate(model, x_test, t_test)
        history.append((loss, accuracy, test_accuracy))
        rate = f"  lr {optimizer.lr:.2e}" if schedule != "constant" else ""
        print(f"epoch {epoch:3d}/{epochs}  loss {loss:.4f}  accuracy {accuracy:.3f}  "
              f"test accuracy {test_accuracy:.3f}{rate}  time {time.perf_counter() - start:.2f}s")
        if per_epoch is not None:
            per_epoch.step()
    return history


def plot_predictions(model, x_test, t_test, image_shape, path, count=32):
    """The first `count` test images with predicted (and, when wrong, true) digits."""
    plt = pyplot()
    if plt is None:
        return None
    count = min(count, len(x_test))
    with V.no_grad():
        predicted = model(x_test[:count]).data.argmax(axis=1)
    cols = 8
    rows = -(-count // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(cols * 1.1, rows * 1.25), squeeze=False)
    for k, ax in enumerate(axes.flat):
        ax.axis("off")
        if k >= count:
            continue
        ax.imshow(x_test[k].reshape(image_shape), cmap="gray_r")
        right = predicted[k] == t_test[k]
        ax.set_title(f"{predicted[k]}" if right else f"{predicted[k]} ({t_test[k]})",
                     color="black" if right else "red", fontsize=10)
    fig.suptitle("test digits: predicted (true, when wrong)")
    return save_figure(plt, fig, path)


def main(argv=None):
    """Train the digit classifier on whichever data set is available and report test accuracy."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--source", choices=("auto", "sklearn", "mnist"), default="auto",
                        help="data set: scikit-learn's digits if installed, else MNIST (auto)")
    parser.add_argument("--mnist-dir", default=DEFAULT_MNIST_DIR,
                        help="directory with the MNIST IDX files (the default is $MNIST_DIR when set)")
    parser.add_argument("--epochs", type=int, default=10, help="passes over the training images")
    parser.add_argument("--batch-size", type=int, default=32, help="images per minibatch")
    parser.add_argument("--hidden", type=int, default=64, help="hidden units")
    parser.add_argument("--lr", type=float, default=0.005, help="Adam learning rate")
    parser.add_argument("--schedule", choices=("constant", "cosine", "onecycle"), default="constant",
                        help="learning-rate schedule: cosine annealing to 0 over the epochs "
                             "(O.CosineAnnealingLR), or the 1cycle policy up to 4 lr (O.OneCycleLR)")
    parser.add_argument("--train-limit", type=int, default=10000,
                        help="use at most this many training images (MNIST has 60000)")
    parser.add_argument("--test-limit", type=int, default=2000, help="at most this many test images")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the test split, the initial weights and the shuffling")
    add_device_option(parser)
    args = parser.parse_args(argv)
    if min(args.epochs, args.batch_size, args.hidden, args.train_limit, args.test_limit) < 1:
        parser.error("--epochs, --batch-size, --hidden and the limits must be positive")
    check_device(parser, args.device)

    try:
        data = load_data(args.source, args.mnist_dir, args.seed)
    except NoData as reason:
        print(f"digits example skipped: {reason}")
        return 0 if args.source == "auto" else 1
    except (FileNotFoundError, mnist.IDXError) as error:
        print(f"digits example failed: {error}")
        return 1
    x, t, x_test, t_test, image_shape, name = data
    x, t = x[:args.train_limit], t[:args.train_limit]
    x_test, t_test = x_test[:args.test_limit], t_test[:args.test_limit]
    print(f"data: {name}: {len(x)} training and {len(x_test)} test images of {x.shape[1]} pixels")

    os.makedirs(args.out, exist_ok=True)
    np.random.seed(args.seed)
    L.seed(args.seed)
    model = DigitsMLP(args.hidden)
    if args.device == "gpu":
        model.to_gpu()
    history = train(model, x, t, x_test, t_test, args.epochs, args.batch_size, args.lr, args.seed,
                    args.device, args.schedule)
    model.to_cpu()                           # the figure is drawn on the host
    print(f"final test accuracy {history[-1][2]:.3f} ({len(x_test)} images)")
    plot_predictions(model, x_test, t_test, image_shape, os.path.join(args.out, "digits.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
