"""Maximum likelihood with V.stats: a straight line through data with outliers, fitted with
a Student-t likelihood by Newton's method.

Least squares is maximum likelihood under Gaussian noise: it minimises sum r_i^2 for the
residuals r_i = y_i - (w x_i + b), so a few far outliers pull the line towards them.
Student's t has heavy tails; its negative log-likelihood

    L(w, b, s, nu) = -sum_i log t_nu((y_i - w x_i - b) / s) + n log s

grows only like log |r_i| for large residuals, so the outliers count for little, and the
scale s and the degrees of freedom nu are fitted with the line (s = e^u, nu = e^v keep them
positive). `V.stats.t.logpdf(y, nu, w x + b, s)` is scipy.stats.t.logpdf written with
gengrad's ops, so its gradient and Hessian in (w, b, u, v) come from V.grad and V.hessian,
and Newton's step theta <- theta - H^(-1) g converges in a handful of iterations (each
step's gradient norm is printed: the digits double near the optimum). A Levenberg-style
damping (H + lambda I, halved on success) keeps the first steps safe where H is not yet
positive definite.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402


def make_data(n, outliers, seed):
    """y = 1.5 x - 0.7 + t_3 noise of scale 0.3, with `outliers` points pushed 8-12 up."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-3, 3, n)
    y = 1.5 * x - 0.7 + 0.3 * rng.standard_t(3, n)
    far = rng.choice(n, outliers, replace=False)
    y[far] += rng.uniform(8, 12, outliers)
    return x, y


def negative_log_likelihood(x, y):
    """theta = (w, b, u, v) -> -sum log t_(e^v)(y; w x + b, e^u), as a function of a Variable."""
    def nll(theta):
        w, b, u, v = theta[0], theta[1], theta[2], theta[3]
        return -V.sum(V.stats.t.logpdf(y, V.exp(v), w * x + b, V.exp(u)))
    return nll


def newton(f, theta, steps, tol=1e-7):
    """Damped Newton on f from theta; prints one line per step, returns (theta, gradient norms).
    It stops at |grad f| < tol, or where no step lowers f any more (f is then at its minimum
    to rounding)."""
    damping, norms = 1.0, []
    value = f(theta).item()
    for step in range(steps):
        t = V.Variable(theta)
        g = V.grad(f(t), t).data
        norms.append(float(np.linalg.norm(g)))
        print(f"  step {step:2d}: f = {value:.10f}   |grad f| = {norms[-1]:.3e}   damping = {damping:.1e}")
        if norms[-1] < tol:
            break
        H = V.hessian(f, theta).data
        while damping < 1e12:                         # accept a step that lowers f
            trial = theta - np.linalg.solve(H + damping * np.eye(len(theta)), g)
            trial_value = f(trial).item()
            if trial_value < value:
                theta, value, damping = trial, trial_value, damping * 0.1
                break
            damping *= 10
        else:
            break
    return theta, norms


def main(argv=None):
    """Fit the line by least squares and by the Student-t likelihood; print and plot both."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--n", type=int, default=200, help="number of data points")
    parser.add_argument("--outliers", type=int, default=12, help="points pushed far up")
    parser.add_argument("--steps", type=int, default=40, help="most Newton steps")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    x, y = make_data(args.n, args.outliers, args.seed)
    w_ls, b_ls = np.polyfit(x, y, 1)
    print(f"least squares:  w = {w_ls:.6f}  b = {b_ls:.6f}   (the data's line: w = 1.5, b = -0.7)")

    print("Newton's method on the Student-t negative log-likelihood:")
    start = np.array([w_ls, b_ls, 0.0, np.log(5.0)])
    theta, norms = newton(negative_log_likelihood(x, y), start, args.steps)
    w, b, scale, nu = theta[0], theta[1], np.exp(theta[2]), np.exp(theta[3])
    print(f"Student-t fit:  w = {w:.6f}  b = {b:.6f}  scale = {scale:.6f}  nu = {nu:.6f}"
          f"   ({len(norms) - 1} Newton steps, final |grad f| = {norms[-1]:.1e})")

    plt = pyplot()
    if plt is None:
        return 0
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(x, y, ".", color="0.5", label="data")
    grid = np.linspace(-3, 3, 2)
    ax.plot(grid, 1.5 * grid - 0.7, "k:", label="the true line")
    ax.plot(grid, w_ls * grid + b_ls, color="C3", label="least squares")
    ax.plot(grid, w * grid + b, color="C0", label=f"Student-t (nu = {nu:.2f})")
    ax.legend()
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    save_figure(plt, fig, os.path.join(args.out, "robust_regression.png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
