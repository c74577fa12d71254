"""Backward passes on small graphs: the fixed cost of a pass, and passes summed into kept leaves.

`one op`: y = sin(x) on 0-d float64, x.cleargrad(), y.backward(): the pass's own work (the
queue, the seed, handing the gradient out) outweighs the op's.  `kept losses`: one pass from
loss = sum(w * k) + b into the same w (3 entries) and b, their gradients never cleared and
every loss kept in a list, as a loop that accumulates gradients and logs its losses keeps
them: the time of a pass after `--kept` earlier ones against after none, which must not grow
with their number.  Hand-written NumPy is the floor; PyTorch eager runs the same code when
installed.  Rounds alternate between the frameworks.
"""

import argparse

import numpy as np

import variable as V
from benchmarks.timing import best_time, import_torch, ratio


def gengrad_cases():
    x = V.Variable(np.array(0.5))
    w = V.Variable(np.ones(3))
    b = V.Variable(np.array(0.5))
    kept = []

    def one_op():
        y = V.sin(x)
        x.cleargrad()
        y.backward()
        return x.grad.data

    def kept_loss(k=2.0):
        loss = V.sum(w * k) + b
        loss.backward()
        kept.append(loss)
        return w.grad.data

    return one_op, kept_loss, kept


def numpy_cases():
    x = np.array(0.5)
    w = np.ones(3)
    grads = {"w": np.zeros(3), "b": np.array(0.0)}
    kept = []

    def one_op():
        _ = np.sin(x)
        return np.cos(x) * 1.0

    def kept_loss(k=2.0):
        kept.append(np.sum(w * k) + 0.5)
        grads["w"] = grads["w"] + k
        grads["b"] = grads["b"] + 1.0
        return grads["w"]

    return one_op, kept_loss, kept


def torch_cases(torch):
    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    w = torch.ones(3, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    kept = []

    def one_op():
        y = torch.sin(x)
        x.grad = None
        y.backward()
        return x.grad.numpy()

    def kept_loss(k=2.0):
        loss = (w * k).sum() + b
        loss.backward()
        kept.append(loss)
        return w.grad.numpy()

    return one_op, kept_loss, kept


def _per_pass(kept_loss, passes):
    def run():
        for _ in range(passes):
            kept_loss()
    return run


def run(kept=3000, passes=200, repeat=5, torch=True):
    """{framework: (one op us, us a pass after no kept losses, after `kept`)}, each case checked
    against NumPy first."""
    makers = {"numpy": numpy_cases, "gengrad": gengrad_cases}
    torch = import_torch() if torch else None
    if torch is not None:
        makers["torch"] = lambda: torch_cases(torch)
    cases = {name: make() for name, make in makers.items()}
    for name, (one_op, kept_loss, _) in cases.items():
        np.testing.assert_allclose(one_op(), np.cos(0.5), rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(kept_loss(1.0), [1.0, 1.0, 1.0], rtol=1e-12, err_msg=name)
    best = {name: [float("inf")] * 3 for name in cases}
    for _ in range(repeat):  # one op
        for name, (one_op, _, _) in cases.items():
            best[name][0] = min(best[name][0], best_time(one_op, 1, 200))
    fresh = {name: make() for name, make in makers.items()}
    for name, (_, kept_loss, _) in fresh.items():  # the first passes: few losses kept yet
        best[name][1] = best_time(_per_pass(kept_loss, passes), 1) / passes
    for _, kept_loss, losses in fresh.values():
        for _ in range(kept - len(losses)):
            kept_loss()
    for _ in range(repeat):
        for name, (_, kept_loss, _) in fresh.items():
            best[name][2] = min(best[name][2], best_time(_per_pass(kept_loss, passes), 1) / passes)
    for name, (_, kept_loss, losses) in fresh.items():
        np.testing.assert_allclose(kept_loss(0.0), 2.0 * (len(losses) - 1), rtol=1e-12, err_msg=name)
    return {name: tuple(t * 1e6 for t in times) for name, times in best.items()}


def report(results, kept):
    """Lines of a table: microseconds a pass and ratios."""
    lines = [f"backward passes on small graphs (us a pass; kept losses: after none / after {kept:,})"]
    for name, (one, first, later) in results.items():
        lines.append(f"  {name:8s} one op {one:8.2f}   kept losses {first:8.2f} / {later:8.2f}")
    g, n, t = results["gengrad"], results["numpy"], results.get("torch")
    lines.append(f"  gengrad/numpy one op {ratio(g[0], n[0])}   kept losses later/first: gengrad "
                 f"{ratio(g[2], g[1])}" + ("" if t is None else f", torch {ratio(t[2], t[1])}"))
    if t is not None:
        lines.append(f"  gengrad/torch one op {ratio(g[0], t[0])}   kept losses {ratio(g[2], t[2])}")
    return lines


def main(argv=None):
    """Run the passes benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kept", type=int, default=3000, help="losses kept before the later passes")
    parser.add_argument("--passes", type=int, default=200, help="passes per timing")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    args = parser.parse_args(argv)
    results = run(args.kept, args.passes, args.repeat, torch=not args.no_torch)
    print("\n".join(report(results, args.kept)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
