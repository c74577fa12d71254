"""Jacobians, Hessians and many Taylor directions at once, next to torch.func.

`python -m benchmarks.jacobians` (one BLAS thread when run on its own):

- the Hessian of Rosenbrock's function (n = 100, 200) by V.hessian (forward over reverse:
  one pass along all n unit directions), a Newton step at n = 200, and the Jacobian of
  x -> tanh(W x) (100 -> 100, 300 -> 300) by V.jacobian (one forward pass), each against
  its closed form in hand-written NumPy and against torch.func (hessian, jacrev) when torch
  is installed;
- the Hessian blocks of f(x, y) with x of 50 and y of 40 entries (argnums=(0, 1));
- the third-order tensor of a Lennard-Jones energy of 10 particles (30 x 30 x 30), as
  V.jacobian of a V.hessian(create_graph=True), against torch.func.jacfwd(hessian);
- 64 directions of order 2 in one batched V.taylor pass: through tanh on 200 points
  against 8 single-direction passes, and through an MLP on 256 points against 64.

Every result is checked against the closed form (or PyTorch's) before it is timed.
"""

import argparse
import os

if __name__ == "__main__":  # before NumPy loads; importing this module changes nothing
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import variable as V  # noqa: E402
from benchmarks import laplacian  # noqa: E402
from benchmarks.timing import best_time, import_torch, ratio  # noqa: E402


def rosenbrock(x):
    return V.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def torch_rosenbrock(v):
    return (100 * (v[1:] - v[:-1] ** 2) ** 2 + (1 - v[:-1]) ** 2).sum()


def rosenbrock_hessian_numpy(x):
    """The tridiagonal Hessian of Rosenbrock's function, by hand."""
    n = x.size
    diagonal = np.zeros(n)
    diagonal[:-1] += 1200 * x[:-1] ** 2 - 400 * x[1:] + 2
    diagonal[1:] += 200
    off = -400 * x[:-1]
    return np.diag(diagonal) + np.diag(off, 1) + np.diag(off, -1)


def rosenbrock_gradient_numpy(x):
    g = np.zeros_like(x)
    g[:-1] = -400 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2 * (1 - x[:-1])
    g[1:] += 200 * (x[1:] - x[:-1] ** 2)
    return g


def newton_step(x):
    xv = V.Variable(x)
    g = V.grad(rosenbrock(xv), xv).data
    return x - np.linalg.solve(V.hessian(rosenbrock, x).data, g)


def lennard_jones(x):
    """4 sum_{i<j} (r^-12 - r^-6) for particles at the rows of x.reshape(-1, 3)."""
    p = V.reshape(x, (-1, 3))
    n = p.shape[0]
    i, j = np.triu_indices(n, 1)
    r2 = V.sum((p[i] - p[j]) ** 2, axis=1)
    inv6 = r2 ** -3
    return 4 * V.sum(inv6 * inv6 - inv6)


def lattice(n, rng):
    """n particles near the points of a cubic lattice of spacing 1.1 (no two too close)."""
    side = int(np.ceil(n ** (1 / 3)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[:n]
    return (1.1 * grid + 0.05 * rng.standard_normal((n, 3))).reshape(-1)


def mlp(d, rng, width=64):
    sizes = [d, width, width, 1]
    params = [(rng.standard_normal((a, b)) / np.sqrt(a), np.zeros(b)) for a, b in zip(sizes, sizes[1:])]

    return laplacian.gengrad_net(params)


def run(repeat, torch):
    rng = np.random.default_rng(0)
    rows = []

    def row(name, gengrad, numpy=None, peer=None, peer_name="torch.func"):
        rows.append((name, best_time(gengrad, repeat), None if numpy is None else best_time(numpy, repeat),
                     None if peer is None else best_time(peer, repeat), peer_name))

    for n in (100, 200):
        x = rng.uniform(-1, 1, n)
        np.testing.assert_allclose(V.hessian(rosenbrock, x).data, rosenbrock_hessian_numpy(x), rtol=1e-12)
        peer = None
        if torch is not None:
            tx, hessian = torch.tensor(x), torch.func.hessian(torch_rosenbrock)
            np.testing.assert_allclose(hessian(tx).numpy(), rosenbrock_hessian_numpy(x), rtol=1e-12)
            peer = lambda hessian=hessian, tx=tx: hessian(tx)              # noqa: E731
        row(f"Rosenbrock Hessian, n={n}", lambda x=x: V.hessian(rosenbrock, x),
            lambda x=x: rosenbrock_hessian_numpy(x), peer)
    x = rng.uniform(-1, 1, 200)
    expected = x - np.linalg.solve(rosenbrock_hessian_numpy(x), rosenbrock_gradient_numpy(x))
    np.testing.assert_allclose(newton_step(x), expected, rtol=1e-9)
    peer = None
    if torch is not None:
        def torch_newton():
            tx = torch.tensor(x)
            f = torch_rosenbrock
            return tx - torch.linalg.solve(torch.func.hessian(f)(tx), torch.func.grad(f)(tx))
        np.testing.assert_allclose(torch_newton().numpy(), expected, rtol=1e-9)
        peer = torch_newton
    row("Newton step, n=200", lambda: newton_step(x),
        lambda: x - np.linalg.solve(rosenbrock_hessian_numpy(x), rosenbrock_gradient_numpy(x)), peer)

    for n in (100, 300):
        W = rng.standard_normal((n, n)) / np.sqrt(n)
        x = rng.standard_normal(n)
        f = lambda v, W=W: V.tanh(V.matmul(W, v))                          # noqa: E731
        closed = lambda W=W, x=x: (1 - np.tanh(W @ x) ** 2)[:, None] * W   # noqa: E731
        np.testing.assert_allclose(V.jacobian(f, x).data, closed(), rtol=1e-12, atol=1e-15)
        peer = None
        if torch is not None:
            tW, tx = torch.tensor(W), torch.tensor(x)
            jac = torch.func.jacrev(lambda v, tW=tW: torch.tanh(tW @ v))
            peer = lambda jac=jac, tx=tx: jac(tx)                          # noqa: E731
        row(f"Jacobian of tanh(W x), {n} -> {n}", lambda f=f, x=x: V.jacobian(f, x), closed, peer,
            "torch.func.jacrev")

    a, b, W = rng.standard_normal(50), rng.standard_normal(40), rng.standard_normal((50, 40)) / 10
    cross = lambda u, w: V.sum(V.tanh(u[:, None] * W * w[None, :]))      # noqa: E731
    t = np.tanh(a[:, None] * W * b[None, :])                              # d2/da_i db_j, by hand:
    by_hand = lambda: (1 - t * t) * (W - 2 * t * (a[:, None] * W) * (W * b[None, :]))   # noqa: E731
    np.testing.assert_allclose(V.hessian(cross, (a, b), argnums=(0, 1))[0][1].data, by_hand(), rtol=1e-10)
    peer = None
    if torch is not None:
        tW = torch.tensor(W)
        blocks = torch.func.hessian(lambda u, w: torch.tanh(u[:, None] * tW * w[None, :]).sum(),
                                    argnums=(0, 1))
        ta, tb = torch.tensor(a), torch.tensor(b)
        peer = lambda: blocks(ta, tb)                                     # noqa: E731
    row("Hessian blocks of f(x, y), x of 50 and y of 40 (argnums=(0, 1))",
        lambda: V.hessian(cross, (a, b), argnums=(0, 1)), by_hand, peer, "torch.func.hessian")

    x = lattice(10, rng)
    third = V.jacobian(lambda v: V.hessian(lennard_jones, v, create_graph=True), x).data
    peer = None
    if torch is not None:
        def torch_lj(v):
            p = v.reshape(-1, 3)
            i, j = np.triu_indices(p.shape[0], 1)
            inv6 = ((p[i] - p[j]) ** 2).sum(1) ** -3
            return 4 * (inv6 * inv6 - inv6).sum()
        tensor = torch.func.jacfwd(torch.func.hessian(torch_lj))
        tx = torch.tensor(x)
        np.testing.assert_allclose(third, tensor(tx).numpy(), rtol=1e-8, atol=1e-8 * np.abs(third).max())
        peer = lambda: tensor(tx)                                          # noqa: E731
    row("Lennard-Jones 3rd-order tensor, 10 particles",
        lambda: V.jacobian(lambda v: V.hessian(lennard_jones, v, create_graph=True), x), None, peer,
        "torch.func.jacfwd(hessian)")

    x, directions = rng.uniform(-2, 2, 200), rng.standard_normal((64, 200))
    batched = V.taylor(V.tanh, x, directions, 2, batched=True)[2].data
    np.testing.assert_allclose(batched[5], V.taylor(V.tanh, x, directions[5], 2)[2].data, rtol=1e-12)
    rows.append(("tanh on 200 points, 64 directions of order 2: one batched pass",
                 best_time(lambda: V.taylor(V.tanh, x, directions, 2, batched=True), repeat), None,
                 best_time(lambda: [V.taylor(V.tanh, x, v, 2) for v in directions[:8]], repeat),
                 "8 single passes"))
    u = mlp(64, rng)
    points, directions = rng.uniform(-1, 1, (256, 64)), rng.standard_normal((64, 256, 64))
    batched = V.taylor(u, points, directions, 2, batched=True)[2].data
    single = V.taylor(u, points, directions[5], 2)[2].data
    np.testing.assert_allclose(batched[5], single, rtol=1e-10, atol=1e-12)
    rows.append(("MLP 64-64-64-1 on 256 points, 64 directions of order 2: one batched pass",
                 best_time(lambda: V.taylor(u, points, directions, 2, batched=True), repeat), None,
                 best_time(lambda: [V.taylor(u, points, v, 2) for v in directions], repeat),
                 "64 single passes"))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-torch", action="store_true", help="leave PyTorch out even where installed")
    args = parser.parse_args(argv)
    torch = None if args.no_torch else import_torch()
    if torch is not None:
        torch.set_default_dtype(torch.float64)
    print("Jacobians, Hessians and Taylor directions, float64, ms (best of "
          f"{args.repeat}); ratio = gengrad / peer" + ("" if torch else " (torch not installed)"))
    print(f"{'case':<72} {'gengrad':>8} {'NumPy':>8} {'peer':>8} {'ratio':>7}  peer")
    for name, ours, numpy, peer, peer_name in run(args.repeat, torch):
        print(f"{name:<72} {ours * 1e3:>8.2f} {'-' if numpy is None else f'{numpy * 1e3:.2f}':>8} "
              f"{'-' if peer is None else f'{peer * 1e3:.2f}':>8} {ratio(ours, peer):>7}  "
              f"{peer_name if peer is not None else ''}")
    return 0


if __name__ == "__main__":
    main()
