"""Higher-order derivatives: nth derivative of tanh, and Hessian-vector products.

- tanh: the 8th and 10th derivatives on 200 points by repeated grad(create_graph=True),
  with the number of Functions in the final graph; PyTorch does the same when installed.
- hvp: a Hessian-vector product of f(x) = sum(tanh(A x)) + sum(x^4) / 4 with 1,000
  parameters by double backward, timed against one gradient of the same f (the ratio
  is what counts), next to hand-written NumPy of the same gradient and hvp.
"""

import argparse

import numpy as np

import variable as V
from benchmarks.timing import best_time, import_torch, ratio


def tanh_nth_gengrad(x_data, n):
    x = V.Variable(x_data)
    y = V.tanh(x)
    for _ in range(n):
        y = V.grad(y, x, create_graph=True)
    return y


def tanh_nth_torch(torch, x_data, n):
    x = torch.tensor(x_data, requires_grad=True)
    y = torch.tanh(x)
    for _ in range(n):
        (y,) = torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)
    return y


def make_problem(n_params=1000, n_rows=200, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n_rows, n_params)) / np.sqrt(n_params)
    x = rng.standard_normal(n_params)
    v = rng.standard_normal(n_params)
    return a, x, v


def f_gengrad(a):
    return lambda x: V.tanh(V.matmul(a, x)).sum() + (x ** 4).sum() * 0.25


def numpy_grad(a, x):
    t = np.tanh(a @ x)
    return a.T @ (1 - t * t) + x ** 3


def numpy_hvp(a, x, v):
    t = np.tanh(a @ x)
    d2 = -2 * t * (1 - t * t)                  # tanh''
    return a.T @ (d2 * (a @ v)) + 3 * x ** 2 * v


def run_tanh(orders=(8, 10), repeat=3, torch=True):
    """Time the nth derivatives; gengrad runs before torch is imported, as in a user's
    process that does not load it (torch's many objects slow Python's cyclic GC)."""
    x_data = np.linspace(-2, 2, 200)
    rows = []
    for n in orders:
        y = tanh_nth_gengrad(x_data, n)
        rows.append({"n": n, "nodes": len(V.graph_functions(y)), "value": y.data})
        del y
        rows[-1]["gengrad"] = best_time(lambda n=n: tanh_nth_gengrad(x_data, n), repeat)
    torch = import_torch() if torch else None
    if torch is not None:
        for row in rows:
            n = row["n"]
            expected = tanh_nth_torch(torch, x_data, n).detach().numpy()
            np.testing.assert_allclose(row["value"], expected, rtol=1e-8, atol=1e-8)
            row["torch"] = best_time(lambda n=n: tanh_nth_torch(torch, x_data, n), repeat)
    return rows


def run_hvp(repeat=20):
    a, x_data, v = make_problem()
    f = f_gengrad(a)
    x = V.Variable(x_data)
    np.testing.assert_allclose(V.grad(f(x), x).data, numpy_grad(a, x_data), rtol=1e-10)
    np.testing.assert_allclose(V.hvp(f, x, v).data, numpy_hvp(a, x_data, v), rtol=1e-8)
    return {
        "grad": best_time(lambda: V.grad(f(x), x), repeat),
        "hvp": best_time(lambda: V.hvp(f, x, v), repeat),
        "numpy_grad": best_time(lambda: numpy_grad(a, x_data), repeat),
        "numpy_hvp": best_time(lambda: numpy_hvp(a, x_data, v), repeat),
    }


def report(tanh_rows, hvp):
    lines = ["nth derivative of tanh on 200 points (ms)"]
    for r in tanh_rows:
        t = r.get("torch")
        lines.append(
            f"  n={r['n']:2d}  nodes {r['nodes']:5d}  gengrad {r['gengrad'] * 1e3:8.2f}  "
            f"torch {'-' if t is None else f'{t * 1e3:8.2f}'}  gengrad/torch {ratio(r['gengrad'], t)}"
        )
    lines += [
        "Hessian-vector product, 1,000 parameters (ms)",
        f"  grad {hvp['grad'] * 1e3:.3f}  hvp {hvp['hvp'] * 1e3:.3f}  "
        f"hvp/grad {ratio(hvp['hvp'], hvp['grad'])}"
        f"   numpy grad {hvp['numpy_grad'] * 1e3:.3f}  numpy hvp {hvp['numpy_hvp'] * 1e3:.3f}",
    ]
    return lines


def main(argv=None):
    """Run the higher-order benchmarks and print their table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, nargs="+", default=[8, 10])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    args = parser.parse_args(argv)
    tanh_rows = run_tanh(args.orders, args.repeat, torch=not args.no_torch)
    print("\n".join(report(tanh_rows, run_hvp(max(args.repeat, 5)))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
