"""Memory over long runs: MLP training steps and Hessian-vector products must not leak.

Peak RSS (resource.getrusage) and the memory traced by tracemalloc are read after the
first 100 steps and again at the end; growth beyond a few percent would mean the
graph, gradients or optimizer state pile up from step to step.
"""

import argparse
import gc
import resource
import sys
import tracemalloc

import numpy as np

import function as F
import layers as L
import optimizers as O
import variable as V


def peak_rss_mib():
    """Peak resident set size of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def mlp_steps(steps, warmup, seed=0):
    """Train a small MLP for `steps` steps; returns memory at `warmup` and at the end."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((64, 20))
    t = rng.integers(0, 5, size=64)
    L.seed(seed)
    model = L.MLP((64, 64, 5), activation=F.relu)
    optimizer = O.Adam().setup(model)

    def step():
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        optimizer.update()

    return _measure(step, steps, warmup)


def hvp_steps(steps, warmup, seed=0):
    """Run `steps` Hessian-vector products; returns memory at `warmup` and at the end."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((50, 200)) / 10
    x = V.Variable(rng.standard_normal(200))
    v = rng.standard_normal(200)

    def f(x):
        return V.tanh(V.matmul(a, x)).sum() + (x ** 4).sum()

    def step():
        V.hvp(f, x, v)

    return _measure(step, steps, warmup)


def _measure(step, steps, warmup):
    tracemalloc.start()
    try:
        for _ in range(warmup):
            step()
        gc.collect()
        early = (tracemalloc.get_traced_memory()[0], peak_rss_mib())
        for _ in range(steps - warmup):
            step()
        gc.collect()
        late = (tracemalloc.get_traced_memory()[0], peak_rss_mib())
    finally:
        tracemalloc.stop()
    return {"traced_early": early[0], "traced_late": late[0], "rss_early": early[1],
            "rss_late": late[1]}


def report(name, m):
    """One line: traced memory and peak RSS after warm-up and at the end, and growth."""
    growth = (m["rss_late"] - m["rss_early"]) / m["rss_early"] * 100
    return (f"  {name:4s} traced {m['traced_early'] / 1e3:8.1f} kB -> {m['traced_late'] / 1e3:8.1f} kB"
            f"   peak RSS {m['rss_early']:7.1f} MiB -> {m['rss_late']:7.1f} MiB ({growth:+.1f}%)")


def main(argv=None):
    """Run both long loops and print their memory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=100)
    args = parser.parse_args(argv)
    print(f"memory over {args.steps} steps (after {args.warmup} steps -> at the end)")
    print(report("mlp", mlp_steps(args.steps, args.warmup)))
    print(report("hvp", hvp_steps(args.steps, args.warmup)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
