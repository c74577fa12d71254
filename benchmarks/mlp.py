"""Training step of a 784-1000-1000-10 sigmoid MLP: gengrad next to hand-written NumPy.

One step = forward (two sigmoid hidden layers, softmax cross entropy over a batch of
100), backward, and a plain SGD update of all six parameter arrays.  The NumPy version
writes out the same forward and backward by hand (the floor gengrad should reach:
the matrix products dominate, so a good autodiff adds little); PyTorch eager runs the
same step when `import torch` works.  Every framework starts from the same weights,
and the first step is checked to give the same loss and the same updated weights
before anything is timed.  Rounds alternate between frameworks, so machine noise hits
all of them alike.  The median and the best milliseconds per step are reported, each
with its ratio to NumPy (on a busy machine the best is the steadier of the two).

    python -m benchmarks.mlp                 # float32 and float64, a few steps each
    python -m benchmarks.mlp --steps 20 --rounds 5 --dtype float32
    python -m benchmarks.mlp --steady-malloc # glibc: no page faults from big temporaries
    python -m benchmarks.mlp --small         # a 2-10-10-3 MLP, batch 16: the per-op overhead

`--small` trains a network small enough that the step's time is the frameworks' own: a
few dozen ops of tiny arrays, forward and backward (the overhead of a training loop that
a student writes first).

On glibc, every freed 4-8 MB gradient or activation may be handed back to the system
and faulted in again (zeroed page by page) on the next allocation.  How often that
happens depends on the order of allocations, not on the framework, and it can move a
float64 step by 20 %; `--steady-malloc` keeps freed memory in the heap (mallopt) so the
comparison measures computation only.
"""

import argparse
import ctypes
import statistics
import time

import numpy as np

import function as F
import layers as L
import optimizers as O

SIZES = (784, 1000, 1000, 10)
BATCH = 100
SMALL = ((2, 10, 10, 3), 16)    # --small: sizes and batch
LR = 0.01


# ----- gengrad ------------------------------------------------------------------------
class GengradStep:
    """The network as an L.MLP trained with O.SGD."""

    def __init__(self, weights, x, t):
        dtype = x.dtype
        self.model = L.MLP([w.shape[1] for w in weights[::2]], activation=F.sigmoid, dtype=dtype)
        self.model(x[:1])                                  # build the lazy layers
        for param, value in zip(self.model.params(), weights):
            param.data = value.copy()
        self.optimizer = O.SGD(LR).setup(self.model)
        self.x, self.t = x, t

    def __call__(self):
        loss = F.softmax_cross_entropy(self.model(self.x), self.t)
        self.model.cleargrads()
        loss.backward()
        self.optimizer.update()
        return float(loss.data)

    def weights(self):
        return [p.data for p in self.model.params()]


# ----- hand-written NumPy ---------------------------------------------------------------
def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


class NumpyStep:
    """Forward, backward and SGD written out with NumPy arrays."""

    def __init__(self, weights, x, t):
        self.params = [w.copy() for w in weights]        # W1, b1, W2, b2, W3, b3
        self.x, self.t = x, t
        self.rows = np.arange(len(t))

    def __call__(self):
        W1, b1, W2, b2, W3, b3 = self.params
        x, t, rows = self.x, self.t, self.rows
        n = len(t)
        h1 = _sigmoid(x @ W1 + b1)
        h2 = _sigmoid(h1 @ W2 + b2)
        a3 = h2 @ W3 + b3
        shifted = a3 - a3.max(axis=1, keepdims=True)      # softmax cross entropy, stable
        e = np.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        loss = -np.mean(shifted[rows, t] - np.log(s[:, 0]))
        g3 = e / s                                        # d loss / d a3 = (softmax - onehot) / n
        g3[rows, t] -= 1
        g3 *= 1 / n
        g2 = (g3 @ W3.T) * h2 * (1 - h2)                  # through W3 and the sigmoid
        g1 = (g2 @ W2.T) * h1 * (1 - h1)
        grads = (x.T @ g1, g1.sum(axis=0), h1.T @ g2, g2.sum(axis=0), h2.T @ g3, g3.sum(axis=0))
        for p, g in zip(self.params, grads):
            p -= LR * g
        return float(loss)

    def weights(self):
        return self.params


# ----- PyTorch ------------------------------------------------------------------------
class TorchStep:
    """The same step in PyTorch eager mode (autograd, then an in-place SGD update).

    device="cuda": on the GPU (benchmarks/gpu.py).
    """

    def __init__(self, torch, weights, x, t, device="cpu"):
        self.torch = torch
        self.params = [torch.tensor(w.copy(), requires_grad=True, device=device) for w in weights]
        self.x = torch.from_numpy(x).to(device)
        self.t = torch.from_numpy(t).to(device)

    def __call__(self):
        torch = self.torch
        W1, b1, W2, b2, W3, b3 = self.params
        h1 = torch.sigmoid(self.x @ W1 + b1)
        h2 = torch.sigmoid(h1 @ W2 + b2)
        loss = torch.nn.functional.cross_entropy(h2 @ W3 + b3, self.t)
        for p in self.params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in self.params:
                p -= LR * p.grad
        return float(loss.detach())

    def weights(self):
        return [p.detach().cpu().numpy() for p in self.params]


def steady_malloc() -> bool:
    """Ask glibc to keep freed memory (no trimming, no mmap for arrays up to 32 MB)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3           # from <malloc.h>
    return bool(libc.mallopt(m_mmap_threshold, 32 * 2 ** 20) and libc.mallopt(m_trim_threshold, 2 ** 30))


def _import_torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


# ----- the benchmark -----------------------------------------------------------------
def _problem(dtype, seed=0, sizes=SIZES, batch=BATCH):
    """Initial weights (as Linear draws them), a batch of inputs and integer labels."""
    rng = np.random.default_rng(seed)
    weights = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        weights.append((rng.standard_normal((n_in, n_out)) * np.sqrt(1 / n_in)).astype(dtype))
        weights.append(np.zeros(n_out, dtype=dtype))
    x = rng.standard_normal((batch, sizes[0])).astype(dtype)
    t = rng.integers(0, sizes[-1], size=batch)
    return weights, x, t


def _check_agreement(steps, dtype):
    """One step of each framework from the same start must agree (loss and new weights)."""
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    losses = {name: step() for name, step in steps.items()}
    reference = steps["numpy"].weights()
    for name, step in steps.items():
        np.testing.assert_allclose(losses[name], losses["numpy"], rtol=rtol, err_msg=name)
        for got, expected in zip(step.weights(), reference):
            assert got.dtype == expected.dtype == dtype, (name, got.dtype)
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * 1e-2, err_msg=name)


def run(dtype=np.float32, steps=5, rounds=3, warmup=2, torch=True, sizes=SIZES, batch=BATCH):
    """Milliseconds per training step for each framework: {name: (median ms, best ms)}."""
    dtype = np.dtype(dtype)
    weights, x, t = _problem(dtype, sizes=sizes, batch=batch)
    factories = {
        "numpy": lambda: NumpyStep(weights, x, t),
        "gengrad": lambda: GengradStep(weights, x, t),
    }
    torch_module = _import_torch() if torch else None
    if torch_module is not None:
        factories["torch"] = lambda: TorchStep(torch_module, weights, x, t)
    _check_agreement({name: make() for name, make in factories.items()}, dtype)

    runners = {name: make() for name, make in factories.items()}
    for step in runners.values():
        for _ in range(warmup):
            step()
    samples = {name: [] for name in runners}
    for _ in range(rounds):                  # alternate, so drift affects every framework alike
        for name, step in runners.items():
            for _ in range(steps):
                start = time.perf_counter()
                step()
                samples[name].append((time.perf_counter() - start) * 1e3)
    return {name: (statistics.median(values), min(values)) for name, values in samples.items()}


def report(dtype, results, sizes=SIZES, batch=BATCH):
    """Lines of the table for one dtype."""
    median_np, best_np = results["numpy"]
    network = "-".join(str(n) for n in sizes)
    lines = [f"MLP {network}, batch {batch}, sigmoid, softmax CE, SGD - {np.dtype(dtype).name}",
             f"  {'':8s} {'median':>8s} {'best':>8s}  ms/step   {'median':>7s} {'best':>7s}  vs numpy"]
    for name in ("numpy", "gengrad", "torch"):
        if name in results:
            median, best = results[name]
            lines.append(f"  {name:8s} {median:8.3f} {best:8.3f}            "
                         f"{median / median_np:6.3f}x {best / best_np:6.3f}x")
        else:
            lines.append(f"  {name:8s}        - (skipped: --no-torch or torch not installed)")
    return lines


def main(argv=None):
    """Run the MLP benchmark for each dtype and print ms/step and ratios to NumPy."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=None,
                        help="timed steps per round (default 5; --small: 200)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps first (default 2)")
    parser.add_argument("--dtype", choices=("float32", "float64", "both"), default="both")
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    parser.add_argument("--steady-malloc", action="store_true",
                        help="glibc only: keep freed memory in the heap, removing page-fault noise")
    parser.add_argument("--small", action="store_true",
                        help=f"a {'-'.join(map(str, SMALL[0]))} MLP, batch {SMALL[1]}: the per-op overhead")
    args = parser.parse_args(argv)
    sizes, batch = SMALL if args.small else (SIZES, BATCH)
    steps = args.steps or (200 if args.small else 5)
    if args.steady_malloc:
        print("steady malloc: " + ("on" if steady_malloc() else "not available (not glibc)"))
    dtypes = ("float32", "float64") if args.dtype == "both" else (args.dtype,)
    for dtype in dtypes:
        results = run(dtype, steps=steps, rounds=args.rounds, warmup=args.warmup,
                      torch=not args.no_torch, sizes=sizes, batch=batch)
        print("\n".join(report(dtype, results, sizes, batch)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
