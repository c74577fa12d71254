"""Many inputs: n separate 0-d Variables joined into one loss, forward + backward.

Three ways a user meets many inputs: `V.stack` of n scalars (a list of parameters, one
loss term each), `V.grad` of a loss with respect to a list of n leaves, and Python's
`sum()` of n Variables (a chain of n additions).  Hand-written NumPy is the floor (the same
numbers as one array, its gradient written out); PyTorch eager runs the same code when
installed.  Rounds alternate between the frameworks.
"""

import argparse

import numpy as np

import variable as V
from benchmarks.timing import best_time, import_torch, ratio


def gengrad_cases(values):
    xs = [V.Variable(np.array(v)) for v in values]

    def stack():
        for x in xs:
            x.cleargrad()
        y = V.stack(xs)
        V.sum(y * y).backward()
        return np.array([x.grad.data for x in xs])

    def grad_list():
        return np.array([g.data for g in V.grad(V.sum(V.stack(xs) ** 2), xs)])

    def python_sum():
        for x in xs:
            x.cleargrad()
        sum(xs).backward()
        return np.array([x.grad.data for x in xs])
    return {"stack": stack, "grad of a list": grad_list, "sum()": python_sum}


def numpy_cases(values):
    def stack():
        y = np.array(values)
        _ = (y * y).sum()
        return 2 * y

    def python_sum():
        _ = np.sum(values)
        return np.ones(len(values))
    return {"stack": stack, "grad of a list": stack, "sum()": python_sum}


def torch_cases(torch, values):
    xs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]

    def stack():
        for x in xs:
            x.grad = None
        (torch.stack(xs) ** 2).sum().backward()
        return np.array([x.grad.item() for x in xs])

    def grad_list():
        gs = torch.autograd.grad((torch.stack(xs) ** 2).sum(), xs)
        return np.array([g.item() for g in gs])

    def python_sum():
        for x in xs:
            x.grad = None
        sum(xs).backward()
        return np.array([x.grad.item() for x in xs])
    return {"stack": stack, "grad of a list": grad_list, "sum()": python_sum}


def run(n=16_000, repeat=5, torch=True):
    """{case: {framework: milliseconds}}, after checking every framework's gradients agree."""
    values = np.random.default_rng(0).standard_normal(n).tolist()
    frameworks = {"numpy": numpy_cases(values), "gengrad": gengrad_cases(values)}
    torch = import_torch() if torch else None
    if torch is not None:
        frameworks["torch"] = torch_cases(torch, values)
    results = {}
    for case in frameworks["gengrad"]:
        expected = frameworks["numpy"][case]()
        for name, cases in frameworks.items():
            np.testing.assert_allclose(cases[case](), expected, rtol=1e-12, err_msg=f"{name}: {case}")
        best = dict.fromkeys(frameworks, float("inf"))
        for _ in range(repeat):
            for name, cases in frameworks.items():
                best[name] = min(best[name], best_time(cases[case], 1))
        results[case] = {name: seconds * 1e3 for name, seconds in best.items()}
    return results


def report(results, n):
    lines = [f"many inputs: {n:,} 0-d Variables into one loss, forward + backward (ms, best of the rounds)"]
    for case, times in results.items():
        g, torch = times["gengrad"], times.get("torch")
        line = f"  {case:15s} numpy {times['numpy']:8.2f}   gengrad {g:8.2f}"
        if torch is not None:
            line += f"   torch {torch:8.2f}   gengrad/torch {ratio(g, torch)}"
        lines.append(line)
    return lines


def main(argv=None):
    """Run the cases and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=16_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print("\n".join(report(run(args.n, args.repeat), args.n)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
