"""Jacobians, Hessians and Hessian-vector products by backprop, checked against closed forms.

For a vector function g: R^n -> R^m the Jacobian J[i, j] = d g_i / d x_j has one row per
output; `V.jacobian` gets row i from one backward pass seeded with the unit vector e_i
(a vector-Jacobian product e_i^T J).  For g(x) = tanh(A x), with y = g(x),

    J = diag(1 - y^2) A.

For a scalar function f the Hessian is the Jacobian of the gradient: `V.hessian` takes
the gradient with create_graph=True and backprops through it once per entry of x.  The
test function is a log-sum-exp of linear scores, the log-partition function of softmax
regression:

    f(x) = log sum_i exp((A x)_i),   grad f = A^T p,   H = A^T (diag(p) - p p^T) A,

with p = softmax(A x).  H is symmetric and positive semi-definite.

A Hessian-vector product H v needs no Hessian: it is the gradient of the scalar
grad f(x) . v, so two backward passes give it whatever the dimension, where the full
Hessian takes n of them (and n^2 memory).  `V.hvp` does exactly that; the script also
does it by hand with two `V.grad` calls and times both approaches on a larger problem.
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402


def softmax(z):
    """softmax of a 1-D array, shifted for stability."""
    e = np.exp(z - z.max())
    return e / e.sum()


def log_partition(A):
    """f(x) = logsumexp(A x) as a function of a Variable x."""
    return lambda x: V.logsumexp(A @ x)


def closed_form_hessian(A, x):
    """A^T (diag(p) - p p^T) A with p = softmax(A x)."""
    p = softmax(A @ x)
    return A.T @ (np.diag(p) - np.outer(p, p)) @ A


def hvp_by_hand(f, x, v):
    """H v as the gradient of (grad f . v): two V.grad calls."""
    x = V.Variable(x)
    g = V.grad(f(x), x, create_graph=True)   # grad f, recorded as a graph over x
    return V.grad((g * v).sum(), x).data     # d/dx (grad f . v) = H v (H is symmetric)


def main(argv=None):
    """Check jacobian, hessian and hvp against closed forms; time hvp against the full Hessian."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--dim", type=int, default=4, help="dimension n of x")
    parser.add_argument("--rows", type=int, default=6, help="rows m of A")
    parser.add_argument("--big-dim", type=int, default=200, help="dimension of the timing problem")
    parser.add_argument("--seed", type=int, default=0, help="seed of A, x and v")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    n, m = args.dim, args.rows
    A = rng.standard_normal((m, n))
    x = rng.standard_normal(n)
    v = rng.standard_normal(n)

    J = V.jacobian(lambda x: V.tanh(A @ x), x).data
    J_exact = (1 - np.tanh(A @ x) ** 2)[:, None] * A
    print(f"Jacobian of tanh(A x), A of shape {A.shape}: shape {J.shape}, "
          f"max |J - diag(1 - y^2) A| = {np.abs(J - J_exact).max():.1e}")

    f = log_partition(A)
    xv = V.Variable(x)
    H = V.hessian(f, xv).data
    H_exact = closed_form_hessian(A, x)
    g = V.grad(f(xv), xv).data
    print(f"f(x) = logsumexp(A x): gradient max error {np.abs(g - A.T @ softmax(A @ x)).max():.1e}, "
          f"Hessian {H.shape} max error {np.abs(H - H_exact).max():.1e}")
    eigenvalues = " ".join(f"{e:.4f}" for e in np.linalg.eigvalsh(H))
    print(f"  Hessian symmetric to {np.abs(H - H.T).max():.1e}; eigenvalues {eigenvalues} "
          f"(>= 0: f is convex; rank <= min(n, m - 1) = {min(n, m - 1)})")
    J_of_grad = V.jacobian(lambda x: V.grad(f(x), x, create_graph=True), x).data
    print(f"  jacobian of the gradient equals the Hessian to {np.abs(J_of_grad - H).max():.1e}")

    hv = V.hvp(f, x, v).data
    hv_hand = hvp_by_hand(f, x, v)
    print(f"Hessian-vector product: |V.hvp - H v| = {np.abs(hv - H_exact @ v).max():.1e}, "
          f"|two V.grad calls - H v| = {np.abs(hv_hand - H_exact @ v).max():.1e}")

    big_n = args.big_dim
    A_big = rng.standard_normal((big_n // 2 + 1, big_n))
    x_big, v_big = rng.standard_normal(big_n), rng.standard_normal(big_n)
    f_big = log_partition(A_big)
    start = time.perf_counter()
    H_big = V.hessian(f_big, x_big).data
    t_hessian = time.perf_counter() - start
    start = time.perf_counter()
    hv_big = V.hvp(f_big, x_big, v_big).data
    t_hvp = time.perf_counter() - start
    agree = np.abs(H_big @ v_big - hv_big).max()
    print(f"n = {big_n}: full Hessian {t_hessian * 1e3:.1f} ms ({big_n} backward passes), "
          f"one hvp {t_hvp * 1e3:.2f} ms (2 passes); they agree to {agree:.1e}")

    plt = pyplot()
    if plt is None:
        return 0
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8))
    image = axes[0].imshow(H, cmap="RdBu_r", vmin=-np.abs(H).max(), vmax=np.abs(H).max())
    axes[0].set_title("V.hessian of logsumexp(A x)")
    fig.colorbar(image, ax=axes[0])
    error = np.log10(np.abs(H - H_exact) + 1e-20)
    image = axes[1].imshow(error, cmap="viridis", vmin=-20, vmax=-12)
    axes[1].set_title("log10 |V.hessian - closed form|")
    fig.colorbar(image, ax=axes[1])
    save_figure(plt, fig, os.path.join(args.out, "hessian.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
