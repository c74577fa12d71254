"""A first look at gengrad: a derivative, a second derivative, and a trained network.

1. y = sin(x) is recorded as a graph while it is computed (define-by-run).  Backward
   walks that graph from y to x and gives dy/dx = cos(x).  With create_graph=True the
   backward pass is recorded too, so the gradient is itself a Variable with a graph, and
   differentiating it again (double backprop) gives d2y/dx2 = -sin(x).
2. Repeating that, tanh is differentiated four times; every derivative is a polynomial
   in tanh(x) (examples/tanh_higher_order.py checks them), and the figure draws them.
3. A 2-30-3 network learns to tell three interleaved spirals apart
   (examples/spiral_mlp.py): cross-entropy, backprop, Adam, one line per epoch, and a
   figure of its decision regions.
4. The graph behind dy/dx is written as Graphviz DOT text, and drawn as PNG when the
   `dot` program is installed.
5. Taylor mode (examples/taylor_series.py): one pass of truncated Taylor series gives
   tanh's first 25 derivatives at a point, the figure draws its Taylor polynomials, and
   a second one times Taylor mode against nested reverse mode order by order.
6. A physics-informed network (examples/pinn_poisson.py) learns the solution of Poisson's
   equation on the unit square from the residual of -Laplacian(u) = f, with V.laplacian
   inside its loss, trained by Adam and then L-BFGS; the figure draws its solution, its
   error and the loss curve.
7. The backward pass step by step (examples/backward_step_by_step.py): V.record_backward
   watches the engine's queue pop each op once, after every path into it has delivered its
   gradient; a table per pass, and an HTML page with one picture per step to open in a
   browser.

Everything goes to --out (default out/demo/); figures need matplotlib and are skipped
with a notice without it.  Runs in a few seconds.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import variable as V  # noqa: E402
from examples import backward_step_by_step, pinn_poisson, spiral_mlp, taylor_series  # noqa: E402
from examples.cli import add_device_option, check_device, example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure, write_graph  # noqa: E402
from examples.tanh_higher_order import tanh_derivatives  # noqa: E402


def sin_derivatives(x0):
    """dy/dx (a Variable with its own graph) and d2y/dx2 of y = sin(x) at x0, by double backprop."""
    x = V.Variable(np.array(x0), name="x")
    y = V.sin(x)
    y.name = "y"
    y.backward(create_graph=True)
    gx = x.grad
    gx.name = "dy/dx"
    x.cleargrad()
    gx.backward()
    return y, gx, x.grad


def plot_tanh(path, order=4):
    """tanh and its derivatives of order 1..`order` on [-4, 4], by repeated backprop."""
    plt = pyplot()
    if plt is None:
        return None
    grid = np.linspace(-4.0, 4.0, 201)
    ys = tanh_derivatives(V.Variable(grid, name="x"), order)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k, y in enumerate(ys):
        ax.plot(grid, y.data, lw=2 if k == 0 else 1.2, label="tanh x" if k == 0 else f"order {k}")
    ax.set_xlabel("x")
    ax.set_title(f"tanh and its derivatives of order 1 to {order} (repeated backprop)")
    ax.legend(fontsize=8, ncol=2, loc="lower left")
    ax.grid(alpha=0.3)
    return save_figure(plt, fig, path)


def main(argv=None):
    """Print derivatives of sin, draw tanh's derivatives, train the spiral network, write the graph."""
    parser = example_parser(__doc__, __file__, "the figures and the graph")
    parser.add_argument("--epochs", type=int, default=50, help="training epochs of the spiral network")
    parser.add_argument("--pinn-steps", type=int, default=1000,
                        help="Adam steps of the physics-informed network")
    parser.add_argument("--pinn-lbfgs", type=int, default=25,
                        help="L-BFGS updates of the physics-informed network, after Adam")
    add_device_option(parser)
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.pinn_steps < 1 or args.pinn_lbfgs < 0:
        parser.error("--epochs and --pinn-steps must be positive, --pinn-lbfgs at least 0")
    check_device(parser, args.device)
    os.makedirs(args.out, exist_ok=True)
    np.random.seed(0)

    print("1. derivatives of y = sin(x) at x = pi/4")
    y, gx, gx2 = sin_derivatives(np.pi / 4)
    print(f"   y = sin(x)                 = {y.data:.6f}")
    print(f"   dy/dx   (backward)         = {gx.data:.6f}   cos(x)  = {np.cos(np.pi / 4):.6f}")
    print(f"   d2y/dx2 (double backprop)  = {gx2.data:.6f}   -sin(x) = {-np.sin(np.pi / 4):.6f}")

    print("2. tanh and its first four derivatives by repeated backprop")
    plot_tanh(os.path.join(args.out, "tanh_derivatives.png"))

    print("3. a small network learns three spirals")
    spiral_mlp.main(["--epochs", str(args.epochs), "--out", args.out, "--device", args.device])

    print("4. the graph that computes dy/dx")
    write_graph(gx, args.out, "sin_grad")
    print("5. Taylor mode: tanh's Taylor polynomials to order 25, and the cost per order")
    taylor_series.main(["--out", args.out, "--nested-up-to", "7"])
    print("6. a physics-informed network solves Poisson's equation, trained on V.laplacian")
    pinn_poisson.main(["--out", args.out, "--steps", str(args.pinn_steps), "--lbfgs", str(args.pinn_lbfgs)])
    print("7. the backward pass step by step: what the queue pops, and the gradients it sends")
    backward_step_by_step.main(["--out", args.out])
    print(f"done: everything is in {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
