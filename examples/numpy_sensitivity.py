"""How far a fitted peak moves when one measurement changes: NumPy code, differentiated as written.

Noisy samples y_i of a bump at t_i are fitted with a cubic p (np.polyfit).  The peak of the
fit is the root of p' (np.polyder, np.roots) where p'' < 0 (np.polyval).  Written with
NumPy's own functions, that is

    c = np.polyfit(t, y, 3);  s = np.roots(np.polyder(c));  peak = s[argmin(polyval(c'', s))]

and on Variables the same lines record gengrad's ops, so one V.grad(peak, y) gives
d peak / d y_i for every sample at once: how far the peak moves per unit change of each
measurement (its influence).  Samples left of the peak pull it left when raised, those
right of it pull it right, and the last few, where the cubic turns up again, pull it back:
a cubic is a global fit, so even the far end matters.  The influences sum to 0 (raising
every sample alike moves no peak).  The script prints the peak,
the most influential samples, and checks their influence against central differences of
the plain NumPy computation (no gengrad in it); the figure shows the fit and the
influence of every sample.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402


def make_data(n, noise, seed):
    """n samples t on [0, 1] of the bump exp(-(t - 0.4)^2 / 0.08), plus N(0, noise^2)."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0, n)
    return t, np.exp(-(t - 0.4) ** 2 / 0.08) + noise * rng.standard_normal(n)


def peak(t, y):
    """The peak of the cubic least-squares fit of (t, y): plain NumPy, arrays or Variables."""
    c = np.polyfit(t, y, 3)
    stationary = np.roots(np.polyder(c))                     # where p' = 0
    curvature = np.polyval(np.polyder(c, 2), stationary)     # p'' there
    data = curvature.data if isinstance(curvature, V.Variable) else curvature
    return stationary[int(np.argmin(data))]                  # the maximum: p'' < 0


def influence_by_differences(t, y, i, h=1e-6):
    """d peak / d y_i by central differences of the plain NumPy computation."""
    up, down = y.copy(), y.copy()
    up[i] += h
    down[i] -= h
    return (peak(t, up) - peak(t, down)) / (2 * h)


def main(argv=None):
    """Fit the bump, differentiate its peak by every sample, and check the largest influences."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--samples", type=int, default=40, help="number of samples")
    parser.add_argument("--noise", type=float, default=0.05, help="std of the noise on y")
    parser.add_argument("--seed", type=int, default=0, help="seed of the noise")
    parser.add_argument("--top", type=int, default=5, help="influential samples printed and checked")
    args = parser.parse_args(argv)
    if args.samples < 5 or args.top < 1:
        parser.error("--samples must be at least 5 and --top at least 1")
    os.makedirs(args.out, exist_ok=True)

    t, y = make_data(args.samples, args.noise, args.seed)
    ys = V.Variable(y)
    top = peak(t, ys)                                        # the same code, on a Variable
    influence = V.grad(top, ys).data
    print(f"{args.samples} samples of a bump at t = 0.4 (noise std {args.noise:g}); "
          f"the cubic fit peaks at t = {float(top):.6f} (plain NumPy: {peak(t, y):.6f})")
    print("most influential samples: i, t_i, d peak / d y_i, by central differences")
    for i in np.argsort(-np.abs(influence))[:args.top]:
        print(f"  {i:3d}  {t[i]:.4f}  {influence[i]:+.6e}  {influence_by_differences(t, y, i):+.6e}")
    print(f"sum of the influences {influence.sum():+.3e} (raising every sample alike moves no peak)")

    plt = pyplot()
    if plt is None:
        return 0
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 4))
    grid = np.linspace(0.0, 1.0, 200)
    ax0.scatter(t, y, s=12, color="C0", label="samples")
    ax0.plot(grid, np.polyval(np.polyfit(t, y, 3), grid), color="C3", label="cubic fit")
    ax0.axvline(float(top), color="k", ls="--", lw=1, label=f"peak {float(top):.3f}")
    ax0.set_xlabel("t")
    ax0.legend(fontsize=8)
    ax0.set_title("fit")
    ax1.bar(t, influence, width=0.8 / args.samples, color="C2")
    ax1.axhline(0.0, color="k", lw=0.5)
    ax1.set_xlabel("t_i")
    ax1.set_ylabel("d peak / d y_i")
    ax1.set_title("influence of each sample")
    save_figure(plt, fig, os.path.join(args.out, "numpy_sensitivity.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
