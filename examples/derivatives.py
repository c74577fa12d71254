"""Derivatives three ways: central differences, backprop, and a Taylor series made of Variables.

Numerical differentiation approximates f'(x) by the central difference

    D_h f(x) = (f(x + h) - f(x - h)) / (2 h) = f'(x) + f'''(x) h^2 / 6 + O(h^4).

Its error has two parts: truncation, about |f'''| h^2 / 6, which shrinks with h, and
round-off, about eps |f| / h (eps = 2.2e-16 in float64), which grows as h shrinks.  The
best step is near eps^(1/3) ~ 1e-5 and even there only about 10 digits are right.

Automatic differentiation (backprop) applies the chain rule to the recorded ops, each
with its exact derivative (Sin's backward is gy * cos(x)), so its only error is the
round-off of evaluating that formula: 15-16 correct digits, and no step to choose.

The composite function

    f(x) = exp(sin(x^2)) / (1 + x^2)

has f'(x) = f(x) (2 x cos(x^2) - 2 x / (1 + x^2)), which backprop reproduces from the
five ops square, sin, exp, add and div without ever seeing that formula.

Finally sin is rebuilt from its Taylor series

    sin x = sum_k (-1)^k x^(2k+1) / (2k+1)!

by adding Variables term by term until a term is below a threshold.  Backprop through the
sum differentiates the polynomial, giving the Taylor polynomial of cos, so the gradient
approaches cos x as the threshold shrinks.
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402


def composite(x):
    """f(x) = exp(sin(x^2)) / (1 + x^2), built from gengrad ops."""
    return V.exp(V.sin(x ** 2)) / (1 + x ** 2)


def composite_derivative(x):
    """The closed form f'(x) = f(x) (2x cos(x^2) - 2x / (1 + x^2)) on arrays."""
    f = np.exp(np.sin(x ** 2)) / (1 + x ** 2)
    return f * (2 * x * np.cos(x ** 2) - 2 * x / (1 + x ** 2))


def autodiff(f, x):
    """f'(x) at every entry of the array x, by one backward pass (f acts elementwise)."""
    xv = V.Variable(np.array(x, dtype=np.float64))
    return V.grad(f(xv), xv).data


def central_difference(f, x, h):
    """(f(x + h) - f(x - h)) / 2h at every entry of the array x."""
    with V.no_grad():
        return (f(V.Variable(x + h)).data - f(V.Variable(x - h)).data) / (2 * h)


def taylor_sin(x, threshold=1e-4, max_terms=None):
    """sin(x) as a sum of Taylor terms, added until every |term| < threshold.

    Returns the sum (a Variable, differentiable like any other) and the number of terms.
    """
    y = 0
    for k in range(10_000 if max_terms is None else max_terms):
        term = (-1) ** k * x ** (2 * k + 1) / math.factorial(2 * k + 1)
        y = y + term
        if max_terms is None and np.max(np.abs(term.data)) < threshold:
            return y, k + 1
    return y, max_terms


def derivative_table(name, f, exact, xs, h):
    """Print autodiff and central-difference derivatives of `f` against the closed form."""
    auto = autodiff(f, xs)
    numerical = central_difference(f, xs, h)
    true = exact(xs)
    print(f"{name}: f'(x) by backprop, by central difference with h = {h:g}, and exact")
    print(f"  {'x':>7} {'backprop':>16} {'numerical':>16} {'exact':>16}  {'err backprop':>12}"
          f"  {'err numerical':>13}")
    for x, a, n, t in zip(xs, auto, numerical, true):
        print(f"  {x:+7.3f} {a:+16.12f} {n:+16.12f} {t:+16.12f}  {abs(a - t):12.1e}  {abs(n - t):13.1e}")
    return auto, numerical, true


def main(argv=None):
    """Compare numerical and automatic derivatives, then differentiate a Taylor series."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--points", type=int, default=5, help="points in each derivative table")
    parser.add_argument("--h", type=float, default=1e-4, help="step of the central difference")
    parser.add_argument("--x", type=float, default=np.pi / 4, help="point of the Taylor series (pi/4)")
    parser.add_argument("--threshold", type=float, default=1e-4,
                        help="stop the Taylor series when a term is below this")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random table points")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    xs = np.round(np.sort(rng.uniform(-2.0, 2.0, size=args.points)), 3)  # printed exactly

    derivative_table("sin", V.sin, np.cos, xs, args.h)
    derivative_table("f(x) = exp(sin(x^2)) / (1 + x^2)", composite, composite_derivative, xs, args.h)

    x0 = np.array([1.0])
    steps = np.logspace(-13, -1, 25)
    errors = np.array([abs(central_difference(composite, x0, h)[0] - composite_derivative(x0)[0])
                       for h in steps])
    auto_error = abs(autodiff(composite, x0)[0] - composite_derivative(x0)[0])
    best = int(np.argmin(errors))
    print(f"f'(1) by central differences: best step h = {steps[best]:.0e} with error "
          f"{errors[best]:.1e}; at h = 1e-13 the error is {errors[0]:.1e} (round-off), "
          f"at h = 1e-1 it is {errors[-1]:.1e} (truncation)")
    print(f"f'(1) by autodiff: error {auto_error:.1e}, with no step to choose")

    x = V.Variable(np.array(args.x), name="x")
    y, n_terms = taylor_sin(x, args.threshold)
    gx = V.grad(y, x)
    print(f"Taylor series of sin at x = {args.x:.6f} with threshold {args.threshold:g}: {n_terms} terms")
    print(f"  value    = {y.data:+.12f}   sin(x) = {np.sin(args.x):+.12f}   "
          f"error = {abs(y.data - np.sin(args.x)):.1e}")
    print(f"  gradient = {gx.data:+.12f}   cos(x) = {np.cos(args.x):+.12f}   "
          f"error = {abs(gx.data - np.cos(args.x)):.1e}")

    plt = pyplot()
    if plt is None:
        return 0
    grid = np.linspace(-3.0, 3.0, 301)
    fig, axes = plt.subplots(2, 2, figsize=(9, 6.5))
    ax = axes[0, 0]
    ax.plot(grid, np.sin(grid), label="sin x")
    ax.plot(grid, autodiff(V.sin, grid), label="d/dx sin x by backprop")
    ax.plot(grid[::20], np.cos(grid[::20]), "k.", label="cos x")
    ax.set_title("backprop reproduces cos")
    ax.legend(fontsize=8)
    ax = axes[0, 1]
    ax.plot(grid, composite(V.Variable(grid)).data, label="f(x)")
    ax.plot(grid, autodiff(composite, grid), label="f'(x) by backprop")
    ax.plot(grid[::10], composite_derivative(grid[::10]), "k.", label="closed form")
    ax.set_title("f(x) = exp(sin x²) / (1 + x²)")
    ax.legend(fontsize=8)
    ax = axes[1, 0]
    ax.loglog(steps, np.maximum(errors, 1e-17), "o-", label="central difference")
    ax.axhline(max(auto_error, 1e-17), color="C1", label="backprop")
    ax.set_xlabel("step h")
    ax.set_ylabel("|error| of f'(1)")
    ax.set_title("round-off (left) vs truncation (right)")
    ax.legend(fontsize=8)
    ax = axes[1, 1]
    wide = np.linspace(-2 * np.pi, 2 * np.pi, 401)
    ax.plot(wide, np.sin(wide), "k", lw=2, label="sin x")
    for terms in (1, 2, 3, 4, 6):
        poly, _ = taylor_sin(V.Variable(wide), max_terms=terms)
        ax.plot(wide, poly.data, lw=1, label=f"degree {2 * terms - 1}")
    ax.set_ylim(-2.2, 3.0)
    ax.set_title("Taylor polynomials of sin")
    ax.legend(fontsize=7, ncol=3, loc="upper center")
    save_figure(plt, fig, os.path.join(args.out, "derivatives.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
