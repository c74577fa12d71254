"""Per-op overhead: the chain y = sin(y) * 1.0001 + x on 0-d float64, forward + backward.

Three ops a step.  Hand-written NumPy (the same forward and its backward, written out) is
the floor; PyTorch eager runs the same chain when it is installed.  `engine_floor` runs it
in the leanest pure-Python engine of gengrad's design (no checks, no features): the best
any engine like ours can do in this Python.
"""

import argparse

import numpy as np

import variable as V
from benchmarks import engine_floor
from benchmarks.timing import best_time, import_torch, ratio

OPS_PER_STEP = 3


def gengrad_chain(steps):
    x = V.Variable(np.array(0.5))
    y = x
    for _ in range(steps):
        y = V.sin(y) * 1.0001 + x
    y.backward()
    return x.grad.data


def numpy_chain(steps):
    x = np.array(0.5)
    y = x
    inputs = []
    for _ in range(steps):
        inputs.append(y)
        y = np.sin(y) * 1.0001 + x
    gy = np.ones_like(y)
    gx = np.zeros_like(x)
    for y_in in reversed(inputs):
        gx = gx + gy                           # the "+ x" branch
        gy = gy * 1.0001 * np.cos(y_in)        # through "* 1.0001" and sin
    return gx + gy                             # the chain starts at y = x


def torch_chain(torch, steps):
    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    y = x
    for _ in range(steps):
        y = torch.sin(y) * 1.0001 + x
    y.backward()
    return x.grad.item()


def run(steps=2000, repeat=5, torch=True):
    """Time the chain in each framework; returns {name: microseconds per op}.

    Rounds alternate between the frameworks, so drift of the machine hits all of them.
    """
    expected = numpy_chain(steps)
    np.testing.assert_allclose(gengrad_chain(steps), expected, rtol=1e-10)
    np.testing.assert_allclose(engine_floor.chain(steps), expected, rtol=1e-10)
    chains = {
        "numpy": lambda: numpy_chain(steps),
        "minimal": lambda: engine_floor.chain(steps),
        "gengrad": lambda: gengrad_chain(steps),
    }
    torch = import_torch() if torch else None
    if torch is not None:
        np.testing.assert_allclose(torch_chain(torch, steps), expected, rtol=1e-10)
        chains["torch"] = lambda: torch_chain(torch, steps)
    best = dict.fromkeys(chains, float("inf"))
    for _ in range(repeat):
        for name, chain in chains.items():
            best[name] = min(best[name], best_time(chain, 1))
    n_ops = steps * OPS_PER_STEP
    return {name: seconds / n_ops * 1e6 for name, seconds in best.items()}


def report(results):
    """Lines of a table: microseconds per op and ratios."""
    g, n, m, t = results["gengrad"], results["numpy"], results["minimal"], results.get("torch")
    return [
        "op overhead (sin/mul/add chain, 0-d float64, forward+backward, us per op)",
        f"  numpy {n:7.2f}   minimal engine {m:7.2f}   gengrad {g:7.2f}   "
        f"torch {'-' if t is None else f'{t:7.2f}'}",
        f"  gengrad/numpy {ratio(g, n)}   gengrad/torch {ratio(g, t)}   "
        f"gengrad/minimal {ratio(g, m)}   minimal/torch {ratio(m, t)}",
    ]


def main(argv=None):
    """Run the overhead benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    args = parser.parse_args(argv)
    print("\n".join(report(run(args.steps, args.repeat, torch=not args.no_torch))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
