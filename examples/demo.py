"""A first look at gengrad: a derivative, a second derivative, and the graph behind them.

y = sin(x) is recorded as a graph while it is computed (define-by-run).  Backward walks
that graph from y to x and gives dy/dx = cos(x).  With create_graph=True the backward
pass is recorded too, so the gradient is itself a Variable with a graph, and
differentiating it again gives d2y/dx2 = -sin(x).
"""

import argparse
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import variable as V  # noqa: E402


def main(argv=None):
    """Print first and second derivatives of sin at x = pi/4 and write the graph."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="demo-out", help="directory for the graph files")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    x = V.Variable(np.array(np.pi / 4), name="x")
    y = V.sin(x)
    y.name = "y"
    y.backward(create_graph=True)
    gx = x.grad
    print(f"y = sin(x) at x = pi/4:   y = {y.data:.6f}")
    print(f"dy/dx  (backward)          = {gx.data:.6f}   cos(x)  = {np.cos(np.pi / 4):.6f}")

    gx.name = "dy/dx"
    x.cleargrad()
    gx.backward()
    print(f"d2y/dx2 (double backprop)  = {x.grad.data:.6f}   -sin(x) = {-np.sin(np.pi / 4):.6f}")

    dot_path = os.path.join(args.out, "sin_grad.dot")
    with open(dot_path, "w") as handle:
        handle.write(V.get_dot_graph(gx))
    print(f"graph of dy/dx written to {dot_path}")
    if shutil.which("dot"):
        png = V.plot_dot_graph(gx, to_file=os.path.join(args.out, "sin_grad.png"))
        print(f"rendered with Graphviz to {png}")
    else:
        print("Graphviz 'dot' not found: install it to render the graph as PNG")
    return 0


if __name__ == "__main__":
    sys.exit(main())
