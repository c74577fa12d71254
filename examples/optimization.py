"""Minimising with first and second derivatives: gradient descent against Newton's method.

Gradient descent steps downhill, x <- x - lr * grad f(x), using only first derivatives.
Newton's method fits the quadratic model f(x + d) ~ f + g.d + d.H.d / 2 at every step and
jumps to its minimum, d = -H^(-1) g, which needs the second derivatives H: here they come
from double backprop (a gradient recorded with create_graph=True, differentiated again).

Warm-up in one dimension: f(x) = x^4 - 2 x^2 has minima at x = +-1.  Newton's update
x <- x - f'(x) / f''(x) uses f' = 4x^3 - 4x and f'' = 12x^2 - 4, both obtained with two
`V.grad` calls, and converges quadratically (the number of correct digits doubles).

Then the Rosenbrock function

    f(x0, x1) = 100 (x1 - x0^2)^2 + (1 - x0)^2,

whose minimum f = 0 lies at (1, 1) at the end of a long, curved, flat-bottomed valley.
Its gradient and Hessian are

    g = (-400 x0 (x1 - x0^2) - 2 (1 - x0),  200 (x1 - x0^2))
    H = [[1200 x0^2 - 400 x1 + 2, -400 x0], [-400 x0, 200]].

The valley walls are steep (curvature ~1000) while its floor is nearly flat, so a
gradient-descent step small enough to stay stable on the walls crawls along the floor:
thousands of steps get close to (1, 1) but not onto it.  Newton rescales by H and lands
on the minimum in a handful of steps, the path drawn over the contours shows both.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402


def quartic(x):
    """f(x) = x^4 - 2 x^2."""
    return x ** 4 - 2 * x ** 2


def newton_1d(x0, steps, tol=1e-12):
    """Newton's method on `quartic` from x0; f' and f'' by two V.grad calls."""
    x = V.Variable(np.array(x0), name="x")
    print(f"Newton on f(x) = x^4 - 2x^2 from x = {x0:g} (f' and f'' by double backprop):")
    for step in range(steps):
        y = quartic(x)
        gx = V.grad(y, x, create_graph=True)   # f'(x) as a Variable with its own graph
        gx2 = V.grad(gx, x)                     # f''(x): differentiate f' again
        d1, d2 = 4 * x.data ** 3 - 4 * x.data, 12 * x.data ** 2 - 4
        print(f"  step {step}: x = {x.data:.15f}   f'(x) = {gx.data:+.6e}   f''(x) = {gx2.data:10.6f}"
              f"   (closed forms differ by {max(abs(gx.data - d1), abs(gx2.data - d2)):.0e})")
        if abs(gx.data) < tol:
            break
        x.data -= gx.data / gx2.data           # in place: x.data stays an ndarray
    return float(x.data)


def point(x):
    """A 2-D point as text."""
    return f"({x[0]:g}, {x[1]:g})"


def rosenbrock(x):
    """Rosenbrock's banana function of a Variable of shape (2,)."""
    x0, x1 = x[0], x[1]
    return 100 * (x1 - x0 ** 2) ** 2 + (1 - x0) ** 2


def rosenbrock_hessian(x):
    """The closed-form Hessian of `rosenbrock` at the array x."""
    x0, x1 = x
    return np.array([[1200 * x0 ** 2 - 400 * x1 + 2, -400 * x0], [-400 * x0, 200.0]])


def gradient_descent(start, lr, steps, report_every):
    """Plain gradient descent on `rosenbrock`; returns the path (steps + 1, 2)."""
    x = V.Variable(np.array(start, dtype=np.float64), name="x")
    path = [x.data.copy()]
    print(f"gradient descent on Rosenbrock from {point(start)}, lr = {lr:g}:")
    for step in range(1, steps + 1):
        y = rosenbrock(x)
        g = V.grad(y, x)
        x.data = x.data - lr * g.data
        path.append(x.data.copy())
        if step % report_every == 0 or step == steps:
            print(f"  step {step:6d}: x = ({x.data[0]:.6f}, {x.data[1]:.6f})   "
                  f"f = {rosenbrock(x).data:.3e}")
    return np.array(path)


def newton(start, steps, tol=1e-10):
    """Newton's method on `rosenbrock` with the Hessian from V.hessian; returns the path."""
    x = np.array(start, dtype=np.float64)
    path = [x.copy()]
    print(f"Newton's method on Rosenbrock from {point(start)} (Hessian by double backprop):")
    for step in range(steps + 1):
        xv = V.Variable(x)
        y = rosenbrock(xv)
        g = V.grad(y, xv).data
        print(f"  step {step}: x = ({x[0]:+.9f}, {x[1]:+.9f})   f = {y.data:.3e}   "
              f"|grad f| = {np.linalg.norm(g):.2e}")
        if np.linalg.norm(g) < tol or step == steps:
            break
        H = V.hessian(rosenbrock, xv).data
        x = x - np.linalg.solve(H, g)   # the minimum of the local quadratic model
        path.append(x.copy())
    return np.array(path)


def main(argv=None):
    """Run Newton in 1-D, then gradient descent and Newton on Rosenbrock, and plot the paths."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--start", type=float, nargs=2, default=[-1.2, 1.0],
                        help="starting point on Rosenbrock")
    parser.add_argument("--lr", type=float, default=1e-3, help="gradient-descent step size")
    parser.add_argument("--gd-steps", type=int, default=5000, help="gradient-descent steps")
    parser.add_argument("--newton-steps", type=int, default=20, help="most Newton steps")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    np.random.seed(0)  # nothing here is random; fixed anyway so every run prints the same

    root = newton_1d(2.0, steps=10)
    print(f"  -> minimum at x = {root:.15f} (exact: 1)")

    start = np.array(args.start)
    H = V.hessian(rosenbrock, V.Variable(start)).data
    print(f"Hessian of Rosenbrock at {point(start)} by double backprop: "
          f"[[{H[0, 0]:g}, {H[0, 1]:g}], [{H[1, 0]:g}, {H[1, 1]:g}]]; "
          f"max difference from the closed form {np.abs(H - rosenbrock_hessian(start)).max():.1e}")

    gd = gradient_descent(start, args.lr, args.gd_steps, max(1, args.gd_steps // 5))
    nt = newton(start, args.newton_steps)
    for name, path in (("gradient descent", gd), ("Newton", nt)):
        end = path[-1]
        print(f"{name:>16}: {len(path) - 1:5d} steps -> ({end[0]:.6f}, {end[1]:.6f}), "
              f"distance to the minimum (1, 1) = {np.linalg.norm(end - 1):.1e}")

    plt = pyplot()
    if plt is None:
        return 0
    both = np.vstack([gd, nt])
    lo = np.minimum(both.min(axis=0), [-1.5, -0.5]) - 0.3
    hi = np.maximum(both.max(axis=0), [1.5, 2.0]) + 0.3
    a, b = np.meshgrid(np.linspace(lo[0], hi[0], 300), np.linspace(lo[1], hi[1], 300))
    z = 100 * (b - a ** 2) ** 2 + (1 - a) ** 2
    fig, ax = plt.subplots(figsize=(7, 5.5))
    ax.contour(a, b, np.log10(z + 1e-3), levels=18, cmap="viridis", linewidths=0.7)
    ax.plot(gd[:, 0], gd[:, 1], "-", color="C3", lw=1.5, label=f"gradient descent ({len(gd) - 1} steps)")
    marks = gd[:: max(1, len(gd) // 25)]
    ax.plot(marks[:, 0], marks[:, 1], ".", color="C3")
    ax.plot(nt[:, 0], nt[:, 1], "o--", color="C0", lw=1.5, label=f"Newton ({len(nt) - 1} steps)")
    ax.plot(*start, "ks", label="start")
    ax.plot(1, 1, "k*", ms=14, label="minimum (1, 1)")
    ax.set_xlabel("x0")
    ax.set_ylabel("x1")
    ax.set_title("Rosenbrock: gradient descent vs Newton (contours of log10 f)")
    ax.legend(fontsize=8, loc="lower left")
    save_figure(plt, fig, os.path.join(args.out, "rosenbrock.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
