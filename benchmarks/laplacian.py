"""The Laplacian of a network, and a PINN training step on it, next to PyTorch's nested way.

`python -m benchmarks.laplacian`: an MLP R^d -> R (three tanh layers of 64, float64, batch
256 points), for d = 2, 16, 64 (and 256 with --big):

- gengrad nested: a gradient with create_graph=True, then one more backward per input
  dimension (what PyTorch users write);
- gengrad V.laplacian: one pass of collapsed second-order Taylor mode (variable/operators.py,
  variable/directions.py): the d first-order coefficients along a leading axis, one summed
  second-order coefficient;
- NumPy matmuls: the floor under it, the matrix products of the hidden and output layers
  over d x batch rows in plain NumPy (the first layer's are d rows only: e_i W = W[i]);
- PyTorch nested, when torch is installed, the same as gengrad nested;

each timed for the Laplacian alone and for a training step: the Laplacian, the loss
mean((Laplacian - f)^2), and its gradient with respect to the weights.  Every method's
Laplacian is checked against the first one's before timing.  Ratios are to PyTorch's
nested time in the same run; one BLAS thread (run on its own, this sets
OPENBLAS_NUM_THREADS=1 unless it is set; under `python -m benchmarks`, set it yourself).
"""

import argparse
import os

if __name__ == "__main__":  # before NumPy loads; importing this module changes nothing
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import variable as V  # noqa: E402
from benchmarks.timing import best_time, import_torch, ratio  # noqa: E402

WIDTH, BATCH = 64, 256


def weights(d, rng):
    sizes = [d, WIDTH, WIDTH, WIDTH, 1]
    return [(rng.standard_normal((a, b)) / np.sqrt(a), np.zeros(b)) for a, b in zip(sizes, sizes[1:])]


def gengrad_net(params):
    def u(x):
        h = x
        for i, (W, b) in enumerate(params):
            h = h @ W + b
            if i < len(params) - 1:
                h = V.tanh(h)
        return h
    return u


def gengrad_nested(u, x):
    X = V.Variable(x)
    g = V.grad(V.sum(u(X)), X, create_graph=True)
    total = None
    for i in range(x.shape[1]):
        gi = V.grad(V.sum(g[:, i]), X, create_graph=True)[:, i]
        total = gi if total is None else total + gi
    return total


def gengrad_taylor(u, x):
    return V.laplacian(u, x)


def torch_nested(torch, u, x):
    X = torch.tensor(x, requires_grad=True)
    g, = torch.autograd.grad(u(X).sum(), X, create_graph=True)
    total = None
    for i in range(x.shape[1]):
        gi = torch.autograd.grad(g[:, i].sum(), X, create_graph=True)[0][:, i]
        total = gi if total is None else total + gi
    return total


def torch_net(torch, params):
    ps = [(torch.tensor(W, requires_grad=True), torch.tensor(b, requires_grad=True)) for W, b in params]

    def u(x):
        h = x
        for i, (W, b) in enumerate(ps):
            h = h @ W + b
            if i < len(ps) - 1:
                h = torch.tanh(h)
        return h[:, 0]
    return u, [p for pair in ps for p in pair]


def run(d, repeat, torch):
    rng = np.random.default_rng(d)
    params = weights(d, rng)
    x = rng.uniform(-1, 1, (BATCH, d))
    target = rng.standard_normal(BATCH)
    gparams = [(V.Variable(W), V.Variable(b)) for W, b in params]
    flat = [p for pair in gparams for p in pair]
    u = gengrad_net(gparams)

    def step(method):
        def go():
            lap = method(u, x)
            loss = V.mean((lap - target) ** 2)
            return V.grad(loss, flat, allow_unused=True)   # (the last bias: no part in a Laplacian)
        return go

    reference = gengrad_nested(u, x).data
    np.testing.assert_allclose(gengrad_taylor(u, x).data, reference, rtol=1e-8, atol=1e-10)
    rows = [rng.standard_normal((d * BATCH, W.shape[0])) for W, _ in params[1:]]

    def products():                    # the matrix products a collapsed pass cannot avoid
        return [r @ W for r, (W, _) in zip(rows, params[1:])]
    row = {
        "floor": best_time(products, repeat),
        "nested": best_time(lambda: gengrad_nested(u, x), repeat),
        "laplacian": best_time(lambda: gengrad_taylor(u, x), repeat),
        "nested step": best_time(step(gengrad_nested), repeat),
        "laplacian step": best_time(step(gengrad_taylor), repeat),
    }
    if torch is not None:
        tu, tparams = torch_net(torch, params)
        got = torch_nested(torch, tu, x).detach().numpy()
        np.testing.assert_allclose(got, reference, rtol=1e-8, atol=1e-10)
        tt = torch.tensor(target)

        def torch_step():
            lap = torch_nested(torch, tu, x)
            loss = ((lap - tt) ** 2).mean()
            return torch.autograd.grad(loss, tparams, allow_unused=True)

        row["torch"] = best_time(lambda: torch_nested(torch, tu, x), repeat)
        row["torch step"] = best_time(torch_step, repeat)
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 16, 64])
    parser.add_argument("--big", action="store_true", help="add d = 256")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    torch = import_torch()
    if torch is not None:
        torch.set_default_dtype(torch.float64)
    dims = args.dims + ([256] if args.big else [])
    print(f"Laplacian of an MLP R^d -> R (3 tanh layers of {WIDTH}, float64, batch {BATCH}), ms, best of "
          f"{args.repeat}; ratios to PyTorch nested" + ("" if torch else " (torch not installed)"))
    print(f"{'d':>4} {'torch nested':>13} {'gengrad nested':>15} {'V.laplacian':>12} {'ratio':>7} "
          f"{'NumPy matmuls':>14} | {'torch step':>11} {'nested step':>12} {'laplacian step':>15} "
          f"{'ratio':>7}")
    for d in dims:
        r = run(d, args.repeat, torch)
        ms = {k: v * 1e3 for k, v in r.items()}
        t, ts = ms.get("torch"), ms.get("torch step")
        print(f"{d:>4} {t if t is not None else float('nan'):>13.1f} {ms['nested']:>15.1f} "
              f"{ms['laplacian']:>12.1f} {ratio(ms['laplacian'], t):>7} {ms['floor']:>14.1f} | "
              f"{ts if ts is not None else float('nan'):>11.1f} {ms['nested step']:>12.1f} "
              f"{ms['laplacian step']:>15.1f} {ratio(ms['laplacian step'], ts):>7}")
    return 0


if __name__ == "__main__":
    main()
