"""Linear regression by gradient descent on plain Variables, checked against least squares.

Data: n points with x uniform on [0, 1) and y = 2 x + 5 + noise (Gaussian, std 0.1 by
default).  The model y_hat = x w + b has two parameters, held here as bare Variables (no
layer, no optimizer), and the loss is the mean squared error

    L(w, b) = (1/n) sum_i (x_i w + b - y_i)^2.

Backprop gives dL/dw = (2/n) sum_i (y_hat_i - y_i) x_i and dL/db = (2/n) sum_i (y_hat_i - y_i),
and each epoch takes one full-batch step (w, b) <- (w, b) - lr * grad.

L is a quadratic bowl, so the answer is also known in closed form: the least-squares
solution of the normal equations [x 1]^T [x 1] (w, b) = [x 1]^T y.  Gradient descent
converges to it at a rate set by the Hessian H = (2/n) [x 1]^T [x 1]: the error shrinks by
about |1 - lr * lambda| per step along each eigenvector of H (eigenvalue lambda), so it
converges when lr < 2 / lambda_max, and the smallest eigenvalue (here about 0.14,
because x is not centred) makes the last digits slow: late in training the loss above
its minimum shrinks by (1 - lr lambda_min)^2 per epoch.  The script prints both
solutions, the eigenvalues and that rate measured against theory, and draws the fit
and the convergence.
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import function as F  # noqa: E402
import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402


def make_data(n, noise, seed):
    """x of shape (n, 1) uniform on [0, 1) and y = 2 x + 5 + N(0, noise^2)."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, 1))
    y = 2.0 * x + 5.0 + noise * rng.standard_normal((n, 1))
    return x, y


def least_squares(x, y):
    """(w, b) minimising the mean squared error, from the normal equations."""
    A = np.hstack([x, np.ones_like(x)])
    w, b = np.linalg.solve(A.T @ A, A.T @ y).ravel()
    return float(w), float(b)


def fit(x, y, lr, epochs):
    """Full-batch gradient descent on the MSE; one progress line per epoch.

    Returns (w, b, losses), the loss of each epoch measured before its step.
    """
    W = V.Variable(np.zeros((1, 1)), name="W")
    b = V.Variable(np.zeros(1), name="b")
    losses = []
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        y_hat = x @ W + b
        loss = F.mean_squared_error(y_hat, y)
        W.cleargrad()
        b.cleargrad()
        loss.backward()
        W.data = W.data - lr * W.grad.data
        b.data = b.data - lr * b.grad.data
        losses.append(float(loss))
        print(f"epoch {epoch:3d}/{epochs}  loss {losses[-1]:.6f}  w {W.data[0, 0]:.4f}  "
              f"b {b.data[0]:.4f}  time {time.perf_counter() - start:.2f}s")
    return float(W.data[0, 0]), float(b.data[0]), losses


def main(argv=None):
    """Fit y = w x + b by gradient descent and compare with the least-squares solution."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--epochs", type=int, default=100, help="full-batch gradient steps")
    parser.add_argument("--lr", type=float, default=0.5, help="learning rate")
    parser.add_argument("--samples", type=int, default=100, help="number of (x, y) points")
    parser.add_argument("--noise", type=float, default=0.1, help="std of the noise on y")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.samples < 2:
        parser.error("--epochs must be positive and --samples at least 2")
    os.makedirs(args.out, exist_ok=True)
    np.random.seed(args.seed)

    x, y = make_data(args.samples, args.noise, args.seed)
    A = np.hstack([x, np.ones_like(x)])
    eigenvalues = np.linalg.eigvalsh(2.0 / len(x) * A.T @ A)
    print(f"{len(x)} points, y = 2x + 5 + noise (std {args.noise:g}); Hessian eigenvalues "
          f"{eigenvalues[0]:.4f} and {eigenvalues[1]:.4f}: stable for lr < {2 / eigenvalues[1]:.3f}")
    w, b, losses = fit(x, y, args.lr, args.epochs)
    w_ls, b_ls = least_squares(x, y)
    mse_ls = float(np.mean((x * w_ls + b_ls - y) ** 2))
    print(f"gradient descent: w = {w:.6f}  b = {b:.6f}  loss {float(np.mean((x * w + b - y) ** 2)):.6f}")
    print(f"least squares:    w = {w_ls:.6f}  b = {b_ls:.6f}  loss {mse_ls:.6f}")
    print(f"distance between the two: {np.hypot(w - w_ls, b - b_ls):.2e}")
    excess = np.array(losses) - mse_ls          # loss above the minimum, epoch by epoch
    half = len(losses) // 2
    if half >= 5 and excess[-1] > 1e-12:
        measured = (excess[-1] / excess[half - 1]) ** (1.0 / (len(losses) - half))
        print(f"over the last {len(losses) - half} epochs the excess loss shrank by {measured:.4f} per "
              f"epoch; theory (1 - lr * smallest eigenvalue)^2 = {(1 - args.lr * eigenvalues[0]) ** 2:.4f}")

    plt = pyplot()
    if plt is None:
        return 0
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 4))
    ax0.scatter(x[:, 0], y[:, 0], s=10, color="C0", label="data")
    grid = np.array([0.0, 1.0])
    ax0.plot(grid, w * grid + b, color="C3", lw=2, label=f"gradient descent: {w:.3f} x + {b:.3f}")
    ax0.plot(grid, w_ls * grid + b_ls, "k--", lw=1, label=f"least squares: {w_ls:.3f} x + {b_ls:.3f}")
    ax0.set_xlabel("x")
    ax0.set_ylabel("y")
    ax0.legend(fontsize=8)
    ax0.set_title("fit")
    ax1.semilogy(np.arange(1, len(losses) + 1), np.maximum(excess, 1e-16), color="C0")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("loss - least-squares loss")
    ax1.set_title("convergence")
    ax1.grid(alpha=0.3)
    save_figure(plt, fig, os.path.join(args.out, "linear_regression.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
