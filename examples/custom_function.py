"""Writing a new differentiable function: a numerically stable softplus, checked and used.

softplus(x) = log(1 + exp(x)) is a smooth ReLU.  Written literally it fails in floating
point: exp(1000) overflows to inf, and for x = -40 the sum 1 + exp(-40) rounds to 1, so
the result is 0 instead of 4.2e-18.  The stable form splits off the large part,

    softplus(x) = max(x, 0) + log1p(exp(-|x|)),

where exp never sees a positive argument and log1p keeps the tiny values.

A gengrad op is a Forwarder: `forward` computes on NumPy arrays (any trick is allowed
there), `backward` returns the input gradient built from differentiable gengrad ops.  The
derivative is the logistic sigmoid, which we write with the op's own output y:

    d softplus / dx = sigmoid(x) = exp(x - softplus(x)) = exp(x - y),

stable too, since x - y <= 0.  Because exp(x - y) is a graph over x (y is the output
Variable, itself made by this op), differentiating it again gives the second derivative
sigmoid(x) (1 - sigmoid(x)) with no extra code, and `V.gradcheck` confirms orders 1 to 3
against central differences.  A variant whose backward computes the sigmoid in NumPy
from `x.data` has a correct first derivative but a lost second derivative: while
create_graph=True records that backward (gradcheck's order-2 check does), gengrad refuses
the NumPy arithmetic on `.data` at its line, naming the fix.

Finally the op is used like any built-in one: the "smooth hinge" model

    y = a softplus(w x + b) + c

is fitted to noisy data by plain gradient descent on the mean squared error, with the
gradients of the four parameters from one `V.grad` call per step.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402


class Softplus(V.Forwarder):
    """softplus(x) = log(1 + exp(x)), elementwise, without overflow or underflow to 0."""

    def forward(self, x):
        return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))

    def backward(self, gy):
        x, = self.inputs
        y, = self.outputs
        return gy * V.exp(x - y)          # d softplus = sigmoid(x) = exp(x - softplus(x))


def softplus(x):
    """Softplus of `x`, elementwise; `x` must be floating point.

    Raises
    ------
    TypeError
        If `x` is not floating point (integer data has no gradient to compute).
    """
    dtype = x.dtype if isinstance(x, (V.Variable, np.ndarray)) else np.asarray(x).dtype
    if dtype.kind != "f":
        raise TypeError(f"softplus: x must be floating point, got dtype {dtype}")
    return V.Function(Softplus())(x)


class SoftplusWithConstantSlope(Softplus):
    """A broken variant: its backward computes the slope in NumPy, outside the graph."""

    def backward(self, gy):
        x, = self.inputs
        slope = 1 / (1 + np.exp(-x.data))   # right value, but a constant to the graph
        return gy * slope


def broken_softplus(x):
    """Softplus whose first derivative is right and whose second derivative is lost."""
    return V.Function(SoftplusWithConstantSlope())(x)


def naive_softplus(x):
    """log(1 + exp(x)) written literally (overflows for large x, underflows for very negative x)."""
    with np.errstate(over="ignore"):
        return np.log(1 + np.exp(x))


def smooth_hinge(params, x):
    """The model y = a softplus(w x + b) + c."""
    a, w, b, c = params
    return a * softplus(w * x + b) + c


def main(argv=None):
    """Show the stable forward, gradcheck the op to order 3, catch a broken one, fit a model."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--samples", type=int, default=100, help="data points for the fit")
    parser.add_argument("--steps", type=int, default=1000, help="gradient-descent steps")
    parser.add_argument("--lr", type=float, default=0.05, help="gradient-descent step size")
    parser.add_argument("--noise", type=float, default=0.1, help="noise on the targets")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)

    print("softplus(x): literal log(1 + exp(x)) vs the stable Forwarder vs np.logaddexp(0, x)")
    probe = np.array([-1000.0, -40.0, 0.0, 40.0, 1000.0])
    stable = softplus(V.Variable(probe)).data
    for x, n, s, r in zip(probe, naive_softplus(probe), stable, np.logaddexp(0, probe)):
        print(f"  x = {x:+6g}   literal = {n:<10.4g}  stable = {s:<10.4g}  reference = {r:.4g}")

    x = V.Variable(np.array(0.0))
    g1 = V.grad(softplus(x), x, create_graph=True)
    g2 = V.grad(g1, x)
    print(f"derivatives at x = 0: first {g1.data:.6f} (sigmoid(0) = 0.5), "
          f"second {g2.data:.6f} (sigmoid(0)(1 - sigmoid(0)) = 0.25)")

    points = np.array([-30.0, -2.0, -0.5, 0.0, 0.7, 3.0, 30.0])
    V.gradcheck(softplus, points, order=3)
    print(f"gradcheck(softplus, order=3) passes at x = {points.tolist()}")
    V.gradcheck(broken_softplus, points, order=1)
    print("gradcheck(broken_softplus, order=1) passes: its first derivative is right")
    try:
        V.gradcheck(broken_softplus, points, order=2)
        print("gradcheck(broken_softplus, order=2) passed (unexpected)")
    except TypeError as error:  # the recorded backward computes with x.data: refused there
        print(f"gradcheck(broken_softplus, order=2) is refused: {error}")

    true_params = (1.5, 2.0, -1.0, 0.5)
    data_x = rng.uniform(-3.0, 3.0, size=args.samples)
    a, w, b, c = true_params
    data_t = a * np.logaddexp(0, w * data_x + b) + c + args.noise * rng.standard_normal(args.samples)
    params = [V.Variable(np.array(v), name=n) for v, n in zip((1.0, 1.0, 0.0, 0.0), "awbc")]
    print(f"fitting y = a softplus(w x + b) + c to {args.samples} noisy points "
          f"(true a, w, b, c = {true_params}), lr = {args.lr:g}:")
    losses = []
    for step in range(args.steps + 1):
        loss = ((smooth_hinge(params, data_x) - data_t) ** 2).mean()
        losses.append(float(loss))
        if step % max(1, args.steps // 4) == 0 or step == args.steps:
            values = ", ".join(f"{p.name} = {p.data:+.3f}" for p in params)
            print(f"  step {step:5d}: loss = {loss.data:.5f}   {values}")
        if step == args.steps:
            break
        grads = V.grad(loss, params)
        for p, g in zip(params, grads):
            p.data -= args.lr * g.data
    print(f"final mean squared error {losses[-1]:.5f} (noise variance {args.noise ** 2:.5f})")

    plt = pyplot()
    if plt is None:
        return 0
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    grid = np.linspace(-4.0, 4.0, 201)
    xv = V.Variable(grid)
    y = softplus(xv)
    d1 = V.grad(y, xv, create_graph=True)
    d2 = V.grad(d1, xv)
    ax = axes[0]
    ax.plot(grid, y.data, label="softplus")
    ax.plot(grid, d1.data, label="1st derivative (sigmoid)")
    ax.plot(grid, d2.data, label="2nd derivative")
    ax.plot(grid, np.maximum(grid, 0), "k:", lw=1, label="ReLU")
    ax.set_title("the custom op and its derivatives by backprop")
    ax.legend(fontsize=8)
    ax = axes[1]
    span = np.linspace(-3.0, 3.0, 121)
    ax.plot(data_x, data_t, ".", color="0.5", label="data")
    ax.plot(span, a * np.logaddexp(0, w * span + b) + c, "k:", label="true curve")
    with V.no_grad():
        ax.plot(span, smooth_hinge(params, span).data, "C3", label="fitted model")
    ax.set_title(f"smooth-hinge fit after {args.steps} steps")
    ax.legend(fontsize=8)
    save_figure(plt, fig, os.path.join(args.out, "softplus_fit.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
