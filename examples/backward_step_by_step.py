"""The backward pass step by step: the queue, the gradients, and why the order matters.

Backward applies the chain rule from the output back to the inputs.  A Variable used
twice gets a gradient from each use, and its own gradient is their sum:

    x = 0.5,  a = x^2,  b = exp(a),  c = sin(b),  y = c + a

    dy/da = dy/dc * dc/da + 1 = cos(b) exp(a) + 1,    dy/dx = dy/da * 2x.

`a` feeds two branches of different depth: directly into the Add (one step from y) and
through Exp and Sin (three steps).  The op that made `a` (Square) may run only once both
have delivered; if it ran after the first, x would get 2x * 1 = 1.0 instead of 1.363.
A plain stack does exactly that: after Add it pops the last op pushed, Square, while
Exp and Sin still wait.  gengrad's engine keeps a priority queue ordered by generation
(the longest path from a leaf: x 0, a 1, b 2, c 3, y 4; an op's generation is its
inputs' highest): every consumer of a Variable has a higher generation than the op that
made it, so popping the highest first runs Square last, once, with a's whole gradient.

The second part differentiates twice.  With create_graph=True, the backward pass of

    y = x sin(x),   dy/dx = sin(x) + x cos(x),   d2y/dx2 = 2 cos(x) - x sin(x)

is itself recorded as a graph of ops (Mul's backward builds gy * sin(x) and gy * x,
Sin's builds gy * cos(x)); the pictures show that graph growing, in green, one popped op
at a time.  Then backward() through dy/dx walks forward ops and recorded ones alike.

Each pass is recorded with `V.record_backward()`, which watches the engine's own queue:
the script prints each table and writes, under --out, one page per part
(order_matters.html, second_derivative.html: open it in a browser, no server needed),
and one picture per step in a folder of the same name (DOT text, and SVG/PNG when
Graphviz's `dot` is installed).
"""

import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402


def named(v, name):
    """`v`, named `name` (the name shows in the tables and the pictures)."""
    v.name = name
    return v


def order_matters(x0):
    """Record y.backward() for y = sin(exp(x^2)) + x^2; returns (the recording, x)."""
    x = V.Variable(np.array(x0), name="x")
    a = named(V.square(x), "a")
    b = named(V.exp(a), "b")
    c = named(V.sin(b), "c")
    y = named(c + a, "y")
    with V.record_backward() as steps:
        y.backward()
    return steps, x


def second_derivative(x0):
    """Record dy/dx with create_graph=True, then backward through it, for y = x sin(x);
    returns (the recording, dy/dx, x)."""
    x = V.Variable(np.array(x0), name="x")
    y = named(x * named(V.sin(x), "s"), "y")
    with V.record_backward() as steps:
        gx = named(V.grad(y, x, create_graph=True), "dy/dx")   # pass 1: its graph is recorded
        gx.backward()                                            # pass 2: into x.grad
    return steps, gx, x


def write_views(steps, out_dir, stem, title, formats):
    """The page `<stem>.html` and the frames in `<stem>/`; says where they went."""
    page = steps.write_html(os.path.join(out_dir, f"{stem}.html"), title)
    drawn = shutil.which("dot") is not None
    frames = steps.write_frames(os.path.join(out_dir, stem), formats if drawn else ())
    kind = f"{len(frames)} files (DOT, {', '.join(formats).upper()})" if drawn else \
        f"{len(frames)} DOT files (Graphviz 'dot' not found: install it to draw them)"
    print(f"   page written to {page} (open it in a browser)")
    print(f"   frames: {kind} in {os.path.join(out_dir, stem)}/")


def main(argv=None):
    """Record two backward passes, print their tables, write their pages and frames."""
    parser = example_parser(__doc__, __file__, "the pages and the frames")
    parser.add_argument("--x", type=float, default=0.5, help="the point x of the first part")
    parser.add_argument("--x2", type=float, default=1.0, help="the point x of the second part")
    parser.add_argument("--formats", nargs="+", default=["svg"],
                        help="picture formats of the frames when Graphviz is installed (svg, png, pdf)")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    np.random.seed(0)  # nothing here is random; fixed anyway so every run prints the same

    print("1. order matters: y = sin(exp(x^2)) + x^2, where a = x^2 feeds two branches")
    steps, x = order_matters(args.x)
    print(steps)
    first = next(a for a in steps[0].arrivals if a.label == "a")    # Add's gradient for a
    b = np.exp(args.x ** 2)
    expected = (np.cos(b) * b + 1) * 2 * args.x
    print(f"   x.grad = {x.grad.data:.6f}   (cos(b) exp(a) + 1) 2x = {expected:.6f}")
    print(f"   a stack would pop Square right after Add, when a holds only {first.values:.6g}: "
          f"x.grad would be 2x * {first.values:.6g} = {2 * args.x * first.values:.6f}")
    write_views(steps, args.out, "order_matters", "Order matters: a used by two branches", args.formats)

    print("2. a second derivative: y = x sin(x); dy/dx with create_graph=True, then backward")
    steps, gx, x = second_derivative(args.x2)
    print(steps)
    x2 = args.x2
    print(f"   dy/dx   = {gx.data:.6f}   sin(x) + x cos(x)    = {np.sin(x2) + x2 * np.cos(x2):.6f}")
    print(f"   d2y/dx2 = {x.grad.data:.6f}   2 cos(x) - x sin(x) = {2 * np.cos(x2) - x2 * np.sin(x2):.6f}")
    write_views(steps, args.out, "second_derivative", "A second derivative, recorded with create_graph",
                args.formats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
