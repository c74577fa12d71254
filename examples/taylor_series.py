"""Taylor polynomials of tanh to order 25 by Taylor mode, and what each mode costs per order.

Taylor mode pushes a truncated power series through the graph instead of a gradient back:
seeding x(t) = a + t, every op turns its inputs' coefficients into its output's by a
recurrence.  For y = tanh(x) that recurrence comes from the ODE y' = (1 - y^2) x':

    k y_k = sum_{j=1..k} j x_j (1 - y^2)_{k-j},

so order n costs O(n^2) array operations, and y_k = f^(k)(a) / k! are exactly the
coefficients of the Taylor polynomial

    T_n(x) = sum_{k=0..n} f^(k)(a) / k! (x - a)^k.

`V.taylor(V.tanh, a, 1.0, n)` returns [f(a), f'(a), ..., f^(n)(a)].  The first figure
draws T_n for growing n against tanh: inside the radius of convergence (the distance
from a to the nearest pole of tanh, at +-i pi/2, so sqrt(a^2 + (pi/2)^2)) the polynomials
close in on the function; outside it they leave it, ever faster.

Nested reverse mode, V.grad(..., create_graph=True) n times, gives the same numbers, but
each order's graph holds the previous one and its backward pass, so its time grows
about 3x per order.  The second figure times both on 200 points, on a log scale:
quadratic against exponential.
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402

FUNCTIONS = {"tanh": (V.tanh, np.tanh), "sin": (V.sin, np.sin)}


def derivatives_at(f, a, order):
    """[f(a), f'(a), ..., f^(order)(a)] as floats, by one Taylor-mode pass."""
    return [float(d.data) for d in V.taylor(f, np.array(a), np.array(1.0), order)]


def taylor_polynomial(derivatives, a, x, n):
    """T_n(x) = sum_{k<=n} f^(k)(a) / k! (x - a)^k, by Horner's rule."""
    total = np.zeros_like(x)
    coefficient = [d / np.prod(np.arange(1.0, k + 1)) for k, d in enumerate(derivatives[: n + 1])]
    for c in reversed(coefficient):
        total = total * (x - a) + c
    return total


def nested_derivatives(f, x_data, order):
    """The order-th derivative by nested reverse mode: grad(..., create_graph=True) repeated."""
    x = V.Variable(x_data)
    y = f(x)
    for _ in range(order):
        y = V.grad(V.sum(y), x, create_graph=True)
    return y


def seconds(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None):
    """Print the derivatives at a point, check them, plot T_n and the time per order."""
    parser = example_parser(__doc__, __file__, "the figures")
    parser.add_argument("--function", choices=sorted(FUNCTIONS), default="tanh", help="the function")
    parser.add_argument("--point", type=float, default=0.5, help="the point a the series is taken at")
    parser.add_argument("--order", type=int, default=25, help="highest order n of the Taylor polynomials")
    parser.add_argument("--nested-up-to", type=int, default=9,
                        help="highest order also timed by nested reverse mode (about 3x per order)")
    args = parser.parse_args(argv)
    if args.order < 1 or args.nested_up_to < 1:
        parser.error("--order and --nested-up-to must be at least 1")
    os.makedirs(args.out, exist_ok=True)
    np.random.seed(0)  # nothing here is random; fixed anyway so every run prints the same
    f, f_numpy = FUNCTIONS[args.function]
    a = args.point

    derivatives = derivatives_at(f, a, args.order)
    print(f"derivatives of {args.function} at a = {a:g} by Taylor mode (V.taylor, order {args.order}):")
    for k in sorted({0, 1, 2, 3, 5, 10, args.order} & set(range(args.order + 1))):
        print(f"  order {k:2d}: {derivatives[k]:+.10e}")
    check = min(6, args.order)
    nested = [float(nested_derivatives(f, np.array(a), k).data) for k in range(check + 1)]
    worst = max(abs(d - n) / max(1.0, abs(n)) for d, n in zip(derivatives, nested))
    print(f"orders 0-{check} against nested reverse mode: largest relative difference {worst:.1e}")

    if args.function == "tanh":
        radius = np.hypot(a, np.pi / 2)
        print(f"radius of convergence around a: distance to the pole at i pi/2 = {radius:.4f}")
    else:
        radius = np.inf
    grid = np.linspace(a - 2.5, a + 2.5, 401)
    ns = sorted({1, 3, 5, 9, 15, args.order} & set(range(1, args.order + 1)))
    inside = np.abs(grid - a) < min(radius, 2.5) * 0.8
    for n in ns:
        error = np.abs(taylor_polynomial(derivatives, a, grid, n) - f_numpy(grid))[inside].max()
        print(f"  T_{n:<2d} largest error within 0.8 of the radius: {error:.2e}")

    points = np.linspace(-2, 2, 200)
    ones = np.ones_like(points)
    taylor_orders = list(range(1, args.order + 1))
    taylor_times = [seconds(lambda n=n: V.taylor(f, points, ones, n)) for n in taylor_orders]
    nested_orders = list(range(1, args.nested_up_to + 1))
    nested_times = [seconds(lambda n=n: nested_derivatives(f, points, n), 1) for n in nested_orders]
    print("time per derivative order on 200 points (ms):")
    for n in sorted({1, 5, args.nested_up_to, args.order}):
        t = taylor_times[n - 1] * 1e3 if n <= args.order else None
        r = nested_times[n - 1] * 1e3 if n <= args.nested_up_to else None
        print(f"  order {n:2d}: Taylor mode {'-' if t is None else f'{t:8.3f}'}   "
              f"nested reverse mode {'-' if r is None else f'{r:8.3f}'}")

    plt = pyplot()
    if plt is None:
        return 0
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(grid, f_numpy(grid), color="black", lw=2.5, label=f"{args.function} x")
    for n in ns:
        ax.plot(grid, taylor_polynomial(derivatives, a, grid, n), lw=1.2, label=f"T_{n}")
    if np.isfinite(radius):
        for edge in (a - radius, a + radius):
            ax.axvline(edge, color="gray", ls=":", lw=1)
    ax.set_ylim(-2.5, 2.5)
    ax.set_xlabel("x")
    ax.set_title(f"Taylor polynomials of {args.function} around a = {a:g} (dotted: radius of convergence)")
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    ax.grid(alpha=0.3)
    save_figure(plt, fig, os.path.join(args.out, "taylor_polynomials.png"))

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.semilogy(taylor_orders, np.array(taylor_times) * 1e3, "o-", label="Taylor mode (V.taylor)")
    ax.semilogy(nested_orders, np.array(nested_times) * 1e3, "s-", label="nested reverse mode (V.grad)")
    ax.set_xlabel("derivative order")
    ax.set_ylabel("ms on 200 points")
    ax.set_title(f"nth derivative of {args.function}: quadratic against exponential")
    ax.legend()
    ax.grid(alpha=0.3, which="both")
    save_figure(plt, fig, os.path.join(args.out, "time_per_order.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
