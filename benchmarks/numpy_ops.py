"""NumPy's functions on Variables (statistics, signals, fits, histograms, eigenvalues), against
the same written out in NumPy.

Each case is one call of the NumPy function on a Variable, forward + backward (the gradient
of the sum of the result weighted by a fixed array), timed against hand-written NumPy: the
same forward and its gradient written out by hand for that one case, with nothing general
about it (the floor a library cannot beat).  The two agree to 1e-10 before timing.
Sizes are moderate, so the ratio shows the cost of gengrad's generality (composite ops,
several passes over the data) rather than its per-call overhead (benchmarks.overhead).
"""

import argparse

import numpy as np

import variable as V
from benchmarks.timing import best_time, ratio


def _gengrad(fn, *arrays):
    """forward + backward of <fn(*arrays), w> with w fixed: the gradient of the first input."""
    def step():
        xs = [V.Variable(a) for a in arrays]
        y = fn(*xs)
        weights = _weights(y.shape)
        V.sum(y * weights).backward()
        return xs[0].grad.data
    return step


def _weights(shape):
    return np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)


# ----- the cases: (name, gengrad's call, its hand-written NumPy, inputs) ------------------
def median_rows(x):
    """np.median over the rows of an odd width: the gradient is 1 at each row's middle entry."""
    n = x.shape[1]
    order = np.argsort(x, axis=1)
    middle = order[:, n // 2]
    rows = np.arange(x.shape[0])
    y = x[rows, middle]
    g = np.zeros_like(x)
    g[rows, middle] = _weights(y.shape)
    return g


def percentile_all(x):
    """np.percentile(x, 90): linear interpolation between two order statistics."""
    flat = x.ravel()
    order = np.argsort(flat)
    position = 0.9 * (flat.size - 1)
    lo = int(np.floor(position))
    frac = position - lo
    _ = flat[order[lo]] + frac * (flat[order[lo + 1]] - flat[order[lo]])
    w = _weights(())
    g = np.zeros_like(flat)
    g[order[lo]] += (1 - frac) * w
    g[order[lo + 1]] += frac * w
    return g.reshape(x.shape)


def convolve_full(a, v):
    """np.convolve(a, v): the gradient of a is the incoming gradient correlated with v."""
    y = np.convolve(a, v)
    return np.correlate(_weights(y.shape), v, "valid")


def interp_points(x, xp, fp):
    """np.interp(x, xp, fp): the gradient in x is the slope of each point's segment."""
    y = np.interp(x, xp, fp)
    i = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    slope = (fp[i + 1] - fp[i]) / (xp[i + 1] - xp[i])
    return _weights(y.shape) * slope


def nanmean_all(x):
    """np.nanmean(x): 1/count at the entries that are not NaN, 0 at the NaNs."""
    keep = ~np.isnan(x)
    _ = np.where(keep, x, 0.0).sum() / keep.sum()
    return np.where(keep, _weights(()) / keep.sum(), 0.0)


def cov_rows(x):
    """np.cov(x): C = xc xc^T / (n - 1), so dC = (G + G^T) xc / (n - 1) (rows of xc sum to 0)."""
    n = x.shape[1]
    xc = x - x.mean(axis=1, keepdims=True)
    c = xc @ xc.T / (n - 1)
    g = _weights(c.shape)
    return (g + g.T) @ xc / (n - 1)


def cbrt_all(x):
    """np.cbrt(x): d cbrt = 1 / (3 cbrt(x)^2)."""
    y = np.cbrt(x)
    return _weights(y.shape) / (3 * y * y)


def polyfit_values(x, y):
    """np.polyfit(x, y, 3) by y: c = A^+ y with A = vander(x, 4), so the gradient is A (A^T A)^-1 w."""
    a = np.vander(x, 4)
    c = np.linalg.lstsq(a, y)[0]
    return a @ np.linalg.solve(a.T @ a, _weights(c.shape))


def histogram_weights(w, data):
    """np.histogram(data, 50, (-4, 4), weights=w) by w: each weight gets its bin's weight."""
    index = np.clip(((data + 4) / 8 * 50).astype(int), 0, 49)
    _ = np.bincount(index, w, 50)
    return _weights((50,))[index]


def moving_average(x, width=16):
    """sliding_window_view(x, width).mean(axis=-1): each entry gets the windows holding it."""
    _ = np.convolve(x, np.ones(width) / width, "valid")
    return np.convolve(_weights((x.size - width + 1,)), np.ones(width) / width, "full")


def eigvals_of(a):
    """np.linalg.eigvals(a) of real spectrum: the gradient V^-T diag(w) V^T."""
    _, v = np.linalg.eig(a)
    return np.linalg.solve(v.T, _weights((a.shape[0],))[:, None] * v.T)


def cases(rng):
    """(name, gengrad step, NumPy step) for each case."""
    wide = rng.standard_normal((200, 101))
    signal, kernel = rng.standard_normal(20_000), rng.standard_normal(16)
    knots = np.sort(rng.uniform(-3, 3, 200))
    values, points = np.sin(knots), rng.uniform(-2.9, 2.9, 20_000)
    holes = rng.standard_normal(100_000)
    holes[rng.random(holes.size) < 0.1] = np.nan
    observations = rng.standard_normal((50, 2_000))
    positive = rng.uniform(0.5, 2.0, 100_000)
    xs, ys = np.linspace(-1, 1, 10_000), rng.standard_normal(10_000)
    data, masses = rng.uniform(-3.9, 3.9, 100_000), rng.uniform(0.5, 2.0, 100_000)
    basis = rng.standard_normal((50, 50)) + 5 * np.eye(50)
    spectral = (basis * np.linspace(-2, 2, 50)) @ np.linalg.inv(basis)
    return [
        ("median, axis=1, (200, 101)", _gengrad(lambda x: np.median(x, axis=1), wide),
         lambda: median_rows(wide)),
        ("percentile 90, (200, 101)", _gengrad(lambda x: np.percentile(x, 90), wide),
         lambda: percentile_all(wide)),
        ("convolve 20,000 with 16", _gengrad(lambda a: np.convolve(a, kernel), signal),
         lambda: convolve_full(signal, kernel)),
        ("interp 20,000 points, 200 knots", _gengrad(lambda x: np.interp(x, knots, values), points),
         lambda: interp_points(points, knots, values)),
        ("nanmean 100,000, 10% NaN", _gengrad(np.nanmean, holes), lambda: nanmean_all(holes)),
        ("cov 50 x 2,000", _gengrad(np.cov, observations), lambda: cov_rows(observations)),
        ("cbrt 100,000", _gengrad(np.cbrt, positive), lambda: cbrt_all(positive)),
        ("polyfit deg 3, 10,000 points", _gengrad(lambda y: np.polyfit(xs, y, 3), ys),
         lambda: polyfit_values(xs, ys)),
        ("histogram 100,000, weights, 50 bins",
         _gengrad(lambda w: np.histogram(data, 50, (-4, 4), weights=w)[0], masses),
         lambda: histogram_weights(masses, data)),
        ("moving average 100,000, width 16",
         _gengrad(lambda x: np.lib.stride_tricks.sliding_window_view(x, 16).mean(axis=-1), positive),
         lambda: moving_average(positive)),
        ("eigvals 50 x 50", _gengrad(np.linalg.eigvals, spectral), lambda: eigvals_of(spectral)),
    ]


def run(repeat, rng=None):
    """{name: (gengrad ms, NumPy ms)}, after checking that the two gradients agree."""
    results = {}
    for name, ours, floor in cases(rng or np.random.default_rng(0)):
        np.testing.assert_allclose(ours(), floor(), rtol=1e-10, atol=1e-12, err_msg=name)
        results[name] = (best_time(ours, repeat) * 1e3, best_time(floor, repeat) * 1e3)
    return results


def report(results):
    lines = ["NumPy's functions on Variables, forward + backward (ms, best of the rounds), against "
             "the same written out in NumPy"]
    for name, (ours, floor) in results.items():
        lines.append(f"  {name:34s} gengrad {ours:8.3f}   numpy {floor:8.3f}   ratio {ratio(ours, floor)}")
    return lines


def main(argv=None):
    """Run the cases and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    print("\n".join(report(run(args.repeat))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
