"""The Laplacian of a network, and a PINN training step on it, next to PyTorch and JAX + folx.

`python -m benchmarks.laplacian`: an MLP R^d -> R (three tanh layers of 64, float64, batch
256 points; `--activation sin`, `softplus`, `swish` or `gelu` for another), for d = 2, 16,
64 (and 256 with --big):

- gengrad nested: a gradient with create_graph=True, then one more backward per input
  dimension (what PyTorch users write);
- gengrad V.laplacian: one pass of collapsed second-order Taylor mode (variable/operators.py,
  variable/directions.py): the d first-order coefficients along a leading axis, one summed
  second-order coefficient.  The weights require grad, so the pass records a graph to them
  (what a training step differentiates) and keeps the arrays its backward reads; "no graph"
  is the same under V.no_grad() (the Laplacian's value alone, as a trained PINN's residual
  is evaluated), where each array is freed, and its memory reused, once the pass has no
  more use for it;
- NumPy: the floor under it, the same collapsed pass written out by hand in NumPy
  (`numpy_laplacian`: per layer one matrix product over d x batch rows, tanh's two
  elementwise products and the sum of squares), on arrays it makes once and reuses;
- PyTorch nested, when torch is installed, the same as gengrad nested, and torch.func's
  Hessian of one row vmapped over the rows, its trace (`vmap(hessian)`);
- JAX + folx, when jax and folx are installed: `folx.forward_laplacian` (the same collapsed
  second-order pass as V.laplacian, with a dense Jacobian) of the network at one point,
  vmapped over the batch, in float64 under jax.jit; its training step is jax.grad of the
  loss through it, jit-compiled as well.  Both are compiled (and checked) before timing and
  timed up to `.block_until_ready()`;

each timed for the Laplacian alone and for a training step: the Laplacian, the loss
mean((Laplacian - f)^2), and its gradient with respect to the weights.  Every method's
Laplacian is checked against the first one's before timing (and folx's weight gradient
against V.laplacian's).  Ratios are gengrad's V.laplacian times (Laplacian, step) over
PyTorch nested's and over folx's, in the same run.  One thread: run on its own, this sets
OPENBLAS_NUM_THREADS=1 and, for JAX, XLA_FLAGS=--xla_cpu_multi_thread_eigen=false and
NPROC=1 unless they are set (this jaxlib sizes its CPU thread pool from NPROC: the XLA
flag alone leaves it at one thread per core); under `python -m benchmarks`, set them
yourself.
"""

import argparse
import os

if __name__ == "__main__":  # before NumPy and JAX load; importing this module changes nothing
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
    os.environ.setdefault("NPROC", "1")        # the size of XLA's CPU thread pool

import numpy as np  # noqa: E402

import variable as V  # noqa: E402
from benchmarks.timing import best_time, import_jax, import_torch, ratio  # noqa: E402

WIDTH, BATCH = 64, 256


def weights(d, rng):
    sizes = [d, WIDTH, WIDTH, WIDTH, 1]
    return [(rng.standard_normal((a, b)) / np.sqrt(a), np.zeros(b)) for a, b in zip(sizes, sizes[1:])]


def forward(params, x, tanh):
    """The network at x with any framework's arrays: tanh after every layer but the last."""
    h = x
    for i, (W, b) in enumerate(params):
        h = h @ W + b
        if i < len(params) - 1:
            h = tanh(h)
    return h


ACTIVATIONS = ("tanh", "sin", "softplus", "swish", "gelu")
"""`--activation`: the hidden layers' function (sin: a SIREN-like PINN; gelu: its erf form)."""


def activation(name, framework, module):
    """The activation `name` in one framework: "gengrad", "torch" or "jax" (module: torch / jax)."""
    if framework == "gengrad":
        import function as F
        return {"tanh": V.tanh, "sin": V.sin, "softplus": F.softplus, "swish": F.swish, "gelu": F.gelu}[name]
    if framework == "torch":
        nn = module.nn.functional
        return {"tanh": module.tanh, "sin": module.sin, "softplus": nn.softplus, "swish": nn.silu,
                "gelu": nn.gelu}[name]
    nn = module.nn
    return {"tanh": module.numpy.tanh, "sin": module.numpy.sin, "softplus": nn.softplus, "swish": nn.silu,
            "gelu": lambda z: nn.gelu(z, approximate=False)}[name]


def gengrad_net(params, name="tanh"):
    act = activation(name, "gengrad", None)
    return lambda x: forward(params, x, act)


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


def gengrad_value(u, x):
    with V.no_grad():
        return V.laplacian(u, x)


def numpy_laplacian(params, x, scratch):
    """The collapsed pass by hand: through each layer z = h W + b go the value, the d
    directions' first-order coefficients (d, batch, width) and one summed second-order
    coefficient; tanh's rule (y' = s = 1 - y^2, y'' = -2 y s) makes y_1 = s z_1 and
    y_2 = s z_2 - y s sum_d z_1^2.  The Laplacian is twice the output's y_2.  The first-order
    coefficients take turns in the two arrays of `scratch` (a list, filled the first time:
    the hidden layers are all WIDTH wide)."""
    d = x.shape[1]
    if not scratch:
        scratch.extend(np.empty((d, len(x), WIDTH)) for _ in range(2))
    h, first, second = x, None, None
    for i, (W, b) in enumerate(params):
        z = h @ W + b
        z2 = None if second is None else second @ W
        if i == len(params) - 1:
            return 2 * z2[:, 0]
        out = scratch[i % 2]                         # (not the one `first` is in)
        if first is None:                            # e_i W = W[i], the same at every point
            z1, squares = W[:, None, :], (W * W).sum(axis=0)
        else:
            z1 = np.matmul(first.reshape(-1, WIDTH), W, out=out.reshape(-1, WIDTH)).reshape(out.shape)
            squares = np.einsum("i...,i...->...", z1, z1)
        y = np.tanh(z)
        s = 1 - y * y
        second = -y * s * squares if z2 is None else s * z2 - y * s * squares
        first = np.multiply(z1, s, out=out)
        h = y


def torch_nested(torch, u, x):
    """PyTorch's nested Laplacian at x (a NumPy array, or a tensor already on its device)."""
    X = x.detach().requires_grad_() if isinstance(x, torch.Tensor) else torch.tensor(x, requires_grad=True)
    g, = torch.autograd.grad(u(X).sum(), X, create_graph=True)
    total = None
    for i in range(x.shape[1]):
        gi = torch.autograd.grad(g[:, i].sum(), X, create_graph=True)[0][:, i]
        total = gi if total is None else total + gi
    return total


def torch_func_trace(torch, u, x):
    """The Laplacian as the trace of torch.func's Hessian of one row, vmapped over the rows."""
    X = x if isinstance(x, torch.Tensor) else torch.tensor(x)
    hessians = torch.func.vmap(torch.func.hessian(lambda row: u(row[None])[0]))(X)
    return hessians.diagonal(dim1=-2, dim2=-1).sum(-1)


def torch_net(torch, params, device=None, name="tanh"):
    def tensor(a):
        return torch.tensor(a, requires_grad=True, device=device)
    ps = [(tensor(W), tensor(b)) for W, b in params]
    act = activation(name, "torch", torch)

    def u(x):
        return forward(ps, x, act)[:, 0]
    return u, [p for pair in ps for p in pair]


def jax_net(jax, name="tanh"):
    """The same network in JAX, at one point x of R^d: u(params, x), a scalar."""
    act = activation(name, "jax", jax)
    return lambda params, x: forward(params, x, act)[0]


def folx_laplacian(jax, folx, u):
    """The Laplacian at each row of x: folx's forward Laplacian at one point, vmapped."""
    def laplacian(params, x):
        def one(xi):
            return folx.forward_laplacian(lambda y: u(params, y))(xi).laplacian
        return jax.vmap(one)(x)
    return laplacian


def run_folx(jax, folx, params, x, target, reference, gradients, repeat, name="tanh"):
    """The times of folx's Laplacian and training step, each jit-compiled and checked first."""
    jnp = jax.numpy
    laplacian = folx_laplacian(jax, folx, jax_net(jax, name))
    lap = jax.jit(laplacian)
    step = jax.jit(jax.grad(lambda ps, x, t: jnp.mean((laplacian(ps, x) - t) ** 2)))
    jparams = [(jnp.asarray(W), jnp.asarray(b)) for W, b in params]
    jx, jt = jnp.asarray(x), jnp.asarray(target)
    np.testing.assert_allclose(np.asarray(lap(jparams, jx)), reference, rtol=1e-8, atol=1e-10)
    got = [g for pair in step(jparams, jx, jt) for g in pair]
    for g, expected in zip(got, gradients):
        if expected is not None:       # (gengrad: None for the last bias, folx: zeros)
            np.testing.assert_allclose(np.asarray(g), expected.data, rtol=1e-8, atol=1e-10)
    return {
        "folx": best_time(lambda: lap(jparams, jx).block_until_ready(), repeat),
        "folx step": best_time(lambda: jax.block_until_ready(step(jparams, jx, jt)), repeat),
    }


def problem(rng, d, batch=BATCH, dtype=np.float64):
    """The network's weights, `batch` points in [-1, 1]^d and a training step's targets, in
    `dtype`, drawn from `rng` in that order."""
    params = [(W.astype(dtype), b.astype(dtype)) for W, b in weights(d, rng)]
    x = rng.uniform(-1, 1, (batch, d)).astype(dtype)
    return params, x, rng.standard_normal(batch).astype(dtype)


def run(d, repeat, torch, jax_folx=None, name="tanh"):
    rng = np.random.default_rng(d)
    params, x, target = problem(rng, d)
    gparams = [(V.Variable(W), V.Variable(b)) for W, b in params]
    flat = [p for pair in gparams for p in pair]
    u = gengrad_net(gparams, name)

    def step(method):
        def go():
            lap = method(u, x)
            loss = V.mean((lap - target) ** 2)
            return V.grad(loss, flat, allow_unused=True)   # (the last bias: no part in a Laplacian)
        return go

    reference = gengrad_nested(u, x).data
    np.testing.assert_allclose(gengrad_taylor(u, x).data, reference, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(gengrad_value(u, x).data, reference, rtol=1e-8, atol=1e-10)
    row = {}
    if name == "tanh":                                 # (the pass by hand is tanh's)
        scratch = []
        np.testing.assert_allclose(numpy_laplacian(params, x, scratch), reference, rtol=1e-8, atol=1e-10)
        row["floor"] = best_time(lambda: numpy_laplacian(params, x, scratch), repeat)
    row.update({
        "nested": best_time(lambda: gengrad_nested(u, x), repeat),
        "laplacian": best_time(lambda: gengrad_taylor(u, x), repeat),
        "no graph": best_time(lambda: gengrad_value(u, x), repeat),
        "nested step": best_time(step(gengrad_nested), repeat),
        "laplacian step": best_time(step(gengrad_taylor), repeat),
    })
    if torch is not None:
        tu, tparams = torch_net(torch, params, name=name)
        got = torch_nested(torch, tu, x).detach().numpy()
        np.testing.assert_allclose(got, reference, rtol=1e-8, atol=1e-10)

        np.testing.assert_allclose(torch_func_trace(torch, tu, x).detach().numpy(), reference,
                                   rtol=1e-8, atol=1e-10)
        tt = torch.tensor(target)

        def torch_step(method):
            def go():
                lap = method(torch, tu, x)
                loss = ((lap - tt) ** 2).mean()
                return torch.autograd.grad(loss, tparams, allow_unused=True)
            return go

        row["torch"] = best_time(lambda: torch_nested(torch, tu, x), repeat)
        row["torch step"] = best_time(torch_step(torch_nested), repeat)
        row["torch.func"] = best_time(lambda: torch_func_trace(torch, tu, x), repeat)
        row["torch.func step"] = best_time(torch_step(torch_func_trace), repeat)
    if jax_folx is not None:
        row.update(run_folx(*jax_folx, params, x, target, reference, step(gengrad_taylor)(), repeat, name))
    return row


def cell(ms, width):
    """A time in ms right-aligned in `width` characters, or '-' for a column not run."""
    return f"{'-' if ms is None else f'{ms:.1f}':>{width}}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 16, 64])
    parser.add_argument("--big", action="store_true", help="add d = 256")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--activation", choices=ACTIVATIONS, default="tanh",
                        help="the hidden layers' function (the NumPy pass is tanh's alone)")
    parser.add_argument("--keep-memory", action="store_true",
                        help="first V.keep_freed_memory(): glibc keeps freed arrays' pages (every column)")
    args = parser.parse_args(argv)
    if args.keep_memory:
        print(f"V.keep_freed_memory(): {'on' if V.keep_freed_memory() else 'not glibc: nothing changed'}")
    torch = import_torch()
    if torch is not None:
        torch.set_default_dtype(torch.float64)
    jax_folx = import_jax("folx")
    dims = args.dims + ([256] if args.big else [])
    missing = [name for name, module in (("torch", torch), ("jax/folx", jax_folx)) if module is None]
    print(f"Laplacian of an MLP R^d -> R (3 {args.activation} layers of {WIDTH}, float64, batch {BATCH}), "
          f"ms, best of {args.repeat}; ratios: gengrad's V.laplacian (with its graph to the weights, and "
          f"with none) over PyTorch nested; with none over JAX jit + folx and over the pass written "
          f"out in NumPy"
          + (f" ({', '.join(missing)} not installed)" if missing else ""))
    print(f"{'d':>4} {'torch nested':>13} {'torch.func':>11} {'gengrad nested':>15} {'V.laplacian':>12} "
          f"{'/torch':>7} {'no graph':>9} {'/torch':>7} {'jax folx':>9} {'/folx':>7} {'NumPy pass':>11} "
          f"{'/NumPy':>7} | {'torch step':>11} {'torch.func step':>16} {'nested step':>12} "
          f"{'laplacian step':>15} {'/torch':>7} {'folx step':>10} {'/folx':>7}")
    for d in dims:
        r = run(d, args.repeat, torch, jax_folx, args.activation)
        ms = {k: v * 1e3 for k, v in r.items()}
        t, ts, f, fs = ms.get("torch"), ms.get("torch step"), ms.get("folx"), ms.get("folx step")
        lap, bare, step = ms["laplacian"], ms["no graph"], ms["laplacian step"]
        print(f"{d:>4} {cell(t, 13)} {cell(ms.get('torch.func'), 11)} {ms['nested']:>15.1f} {lap:>12.1f} "
              f"{ratio(lap, t):>7} {bare:>9.1f} {ratio(bare, t):>7} {cell(f, 9)} {ratio(bare, f):>7} "
              f"{cell(ms.get('floor'), 11)} {ratio(bare, ms.get('floor')):>7} | {cell(ts, 11)} "
              f"{cell(ms.get('torch.func step'), 16)} {ms['nested step']:>12.1f} {step:>15.1f} "
              f"{ratio(step, ts):>7} {cell(fs, 10)} {ratio(step, fs):>7}")
    return 0

if __name__ == "__main__":
    main()
