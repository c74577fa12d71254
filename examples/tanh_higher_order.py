"""The first n derivatives of tanh by repeated backprop, and the graph of the third.

Backprop with create_graph=True records the backward pass as a graph of ordinary ops,
so the gradient is a Variable that can be differentiated again:

    g1 = grad(tanh(x), x, create_graph=True)      # 1 - tanh(x)^2, as a graph
    g2 = grad(g1, x, create_graph=True)           # and so on, to any order

Every derivative of tanh is a polynomial in t = tanh(x): since dt/dx = 1 - t^2,

    P_0(t) = t,    P_{k+1}(t) = P_k'(t) (1 - t^2),

so P_1 = 1 - t^2, P_2 = -2t + 2t^3, P_3 = -2 + 8t^2 - 6t^4, ...  The script checks each
order against these closed forms.  Because x is a vector and tanh acts elementwise,
one backward pass per order gives the derivative at every point at once.

Each order's graph contains the previous one plus its backward pass, so the number of
ops grows quickly; the graph of the third derivative is written as DOT text and, when
Graphviz is installed, drawn as a PNG.
"""

import os
import sys

import numpy as np
from numpy.polynomial import Polynomial

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402
from examples.plotting import count_functions, pyplot, save_figure, write_graph  # noqa: E402


def tanh_derivative_polynomials(n):
    """[P_0, ..., P_n]: the k-th derivative of tanh is P_k(tanh(x))."""
    polys = [Polynomial([0.0, 1.0])]
    one_minus_t2 = Polynomial([1.0, 0.0, -1.0])
    for _ in range(n):
        polys.append(polys[-1].deriv() * one_minus_t2)
    return polys


def tanh_derivatives(x, n):
    """[tanh(x), d tanh/dx, ..., d^n tanh/dx^n] as Variables, each a graph over `x`."""
    ys = [V.tanh(x)]
    for _ in range(n):
        ys.append(V.grad(ys[-1], x, create_graph=True))
    return ys


def main(argv=None):
    """Differentiate tanh n times, check against the polynomials, plot, draw the 3rd's graph."""
    parser = example_parser(__doc__, __file__, "the figure and the graph")
    parser.add_argument("--order", type=int, default=4, help="highest derivative order n")
    parser.add_argument("--points", type=int, default=201, help="grid points on [-4, 4]")
    parser.add_argument("--x", type=float, default=0.5, help="point at which values are printed")
    parser.add_argument("--graph-order", type=int, default=3, help="order whose graph is drawn")
    args = parser.parse_args(argv)
    if args.order < 1 or args.graph_order < 1:
        parser.error("--order and --graph-order must be at least 1")
    os.makedirs(args.out, exist_ok=True)
    np.random.seed(0)  # nothing here is random; fixed anyway so every run prints the same

    grid = np.linspace(-4.0, 4.0, args.points)
    x = V.Variable(grid, name="x")
    ys = tanh_derivatives(x, args.order)
    polys = tanh_derivative_polynomials(args.order)
    t_grid, t_point = np.tanh(grid), np.tanh(args.x)
    x_point = V.Variable(np.array(args.x), name="x")
    at_point = tanh_derivatives(x_point, args.order)
    print(f"derivatives of tanh by repeated backprop (create_graph=True), {args.points} points "
          f"on [-4, 4]; values at x = {args.x:g}:")
    for k, (y, p, yp) in enumerate(zip(ys, polys, at_point)):
        error = np.abs(y.data - p(t_grid)).max()
        print(f"  order {k}: {yp.data:+13.8f}  (closed form {p(t_point):+13.8f})   "
              f"max error on the grid {error:.1e}   ops in its graph: {count_functions(y)}")
    coeffs = " ".join(f"{c:+g}" for c in polys[min(3, args.order)].coef)
    print(f"closed form of order {min(3, args.order)} in t = tanh(x), coefficients of t^0, t^1, ...: "
          f"{coeffs}")

    xg = V.Variable(np.array(1.0), name="x")
    y = V.tanh(xg)
    y.name = "y"
    g = y
    for _ in range(args.graph_order):
        g = V.grad(g, xg, create_graph=True)
    g.name = f"d{args.graph_order}y/dx{args.graph_order}"
    print(f"graph of the derivative of order {args.graph_order} at x = 1 "
          f"({count_functions(g)} ops, value {g.data:+.8f}):")
    write_graph(g, args.out, f"tanh_derivative_{args.graph_order}")

    plt = pyplot()
    if plt is None:
        return 0
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k, y in enumerate(ys):
        label = "tanh x" if k == 0 else f"order {k}"
        ax.plot(grid, y.data, lw=2 if k == 0 else 1.2, label=label)
    ax.set_xlabel("x")
    ax.set_title(f"tanh and its derivatives of order 1 to {args.order} (repeated backprop)")
    ax.legend(fontsize=8, ncol=2, loc="lower left")
    ax.grid(alpha=0.3)
    save_figure(plt, fig, os.path.join(args.out, "tanh_derivatives.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
