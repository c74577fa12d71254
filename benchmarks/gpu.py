"""On the GPU: the MLP step, the 10th derivative of tanh, and device memory, next to PyTorch.

`python -m benchmarks --device gpu` (or `python -m benchmarks.gpu`) needs CuPy and a CUDA
GPU; PyTorch's CUDA eager mode runs the same computations when torch sees the GPU.

- MLP step: benchmarks/mlp.py's 784-1000-1000-10 sigmoid network, float32, softmax cross
  entropy, SGD, at batch 100 and 4096, its steps (mlp.GengradStep, mlp.TorchStep) on the
  GPU: the model and data moved with `model.to_gpu()`.  Each step reads its loss as a
  Python float, in both frameworks (one sync per step, as a training loop that logs).
- nth derivative of tanh on 10^6 points: nested `V.grad(create_graph=True)` (as PyTorch's
  nested autograd) and Taylor mode (`V.taylor`).
- memory: the device memory in use after each of 2,000 MLP steps (CuPy's pool), its peak
  over the first 100 steps against its peak over all of them (flat means no leak).

Every timing synchronizes the device before reading the clock, and each framework's first
step is checked to give the same loss before anything is timed.
"""

import argparse
import time

import numpy as np

import variable as V
from benchmarks import mlp
from benchmarks.higher_order import tanh_nth_gengrad
from benchmarks.timing import ratio
from variable import backend


def synchronize(xp):
    """Wait for the device (a no-op for a module without CUDA streams)."""
    device = getattr(getattr(xp, "cuda", None), "Device", None)
    if device is not None:
        device().synchronize()


def best_ms(fn, xp, repeat, number):
    """Best milliseconds per call of `fn` over `repeat` rounds of `number` calls."""
    best = float("inf")
    for _ in range(repeat):
        synchronize(xp)
        start = time.perf_counter()
        for _ in range(number):
            fn()
        synchronize(xp)
        best = min(best, (time.perf_counter() - start) / number)
    return best * 1e3


class GengradGpuStep(mlp.GengradStep):
    """mlp.GengradStep's network, SGD and data, moved to the GPU (before any update, so an
    optimizer's state would be made there too)."""

    def __init__(self, weights, x, t):
        super().__init__(weights, x, t)
        self.model.to_gpu()
        self.x, self.t = backend.to_gpu(x), backend.to_gpu(t)


def cuda_torch():
    """torch when it is installed and sees a CUDA GPU, else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def run_mlp(xp, torch, batches=(100, 4096), repeat=5, number=20):
    rows = []
    for batch in batches:
        weights, _, _ = mlp._problem(np.float32)
        rng = np.random.default_rng(1)
        x = rng.standard_normal((batch, mlp.SIZES[0])).astype(np.float32)
        t = rng.integers(0, mlp.SIZES[-1], size=batch)
        ours = GengradGpuStep(weights, x, t)
        row = {"batch": batch, "gengrad": None, "torch": None}
        first = ours()
        row["gengrad"] = best_ms(ours, xp, repeat, number)
        if torch is not None:
            theirs = mlp.TorchStep(torch, weights, x, t, device="cuda")
            np.testing.assert_allclose(theirs(), first, rtol=1e-4)
            row["torch"] = best_ms(theirs, xp, repeat, number)
        rows.append(row)
    return rows


def tanh_nth_torch_cuda(torch, x_data, n):
    x = torch.tensor(x_data, requires_grad=True, device="cuda")
    y = torch.tanh(x)
    for _ in range(n):
        (y,) = torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)
    return y


def run_tanh(xp, torch, points=10**6, order=10, repeat=3):
    x_host = np.linspace(-2, 2, points)
    x = backend.to_gpu(x_host)
    nested = tanh_nth_gengrad(x, order)
    taylor = V.taylor(V.tanh, V.Variable(x), xp.ones(points), order)[order]
    np.testing.assert_allclose(backend.to_cpu(taylor.data), backend.to_cpu(nested.data), rtol=1e-8, atol=1e-6)
    row = {
        "nested": best_ms(lambda: tanh_nth_gengrad(x, order), xp, repeat, 1),
        "taylor": best_ms(lambda: V.taylor(V.tanh, V.Variable(x), xp.ones(points), order), xp, repeat, 1),
        "torch": None,
    }
    if torch is not None:
        expected = tanh_nth_torch_cuda(torch, x_host, order).detach().cpu().numpy()
        np.testing.assert_allclose(backend.to_cpu(nested.data), expected, rtol=1e-8, atol=1e-6)
        row["torch"] = best_ms(lambda: tanh_nth_torch_cuda(torch, x_host, order), xp, repeat, 1)
    return row


def run_memory(xp, steps=2000, warmup=100):
    pool = getattr(xp, "get_default_memory_pool", None)
    if pool is None:
        return None
    weights, x, t = mlp._problem(np.float32)
    step = GengradGpuStep(weights, x, t)
    used = []
    for _ in range(steps):
        step()
        synchronize(xp)
        used.append(pool().used_bytes())
    early, peak = max(used[:warmup]), max(used)
    return {"early": early, "peak": peak, "growth": peak / early - 1}


def report(mlp_rows, tanh, memory, order, points):
    lines = ["MLP 784-1000-1000-10 training step on the GPU, float32 (ms)"]
    for r in mlp_rows:
        torch = "-" if r["torch"] is None else f"{r['torch']:8.3f}"
        lines.append(
            f"  batch {r['batch']:5d}  gengrad {r['gengrad']:8.3f}  torch {torch}"
            f"  gengrad/torch {ratio(r['gengrad'], r['torch'])}"
        )
    torch = "-" if tanh["torch"] is None else f"{tanh['torch']:8.2f}"
    lines += [
        f"derivative of order {order} of tanh on {points:,} points on the GPU (ms)",
        f"  nested grad {tanh['nested']:8.2f}  Taylor mode {tanh['taylor']:8.2f}  "
        f"torch nested {torch}  nested/torch {ratio(tanh['nested'], tanh['torch'])}",
    ]
    if memory is not None:
        lines.append(
            f"device memory in use over 2,000 MLP steps: {memory['early'] / 2**20:.1f} MiB (peak of the "
            f"first 100) -> {memory['peak'] / 2**20:.1f} MiB (peak of all): {memory['growth']:+.1%}"
        )
    return lines


def main(argv=None):
    """Run the GPU benchmarks and print their table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--number", type=int, default=20, help="MLP steps per timed round")
    parser.add_argument("--points", type=int, default=10**6)
    parser.add_argument("--order", type=int, default=10)
    parser.add_argument("--memory-steps", type=int, default=2000)
    parser.add_argument("--batches", type=int, nargs="+", default=[100, 4096])
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    args = parser.parse_args(argv)
    xp = backend.gpu_module("benchmarks --device gpu")
    torch = None if args.no_torch else cuda_torch()
    rows = run_mlp(xp, torch, args.batches, args.repeat, args.number)
    tanh = run_tanh(xp, torch, args.points, args.order, max(1, args.repeat // 2))
    memory = run_memory(xp, args.memory_steps, min(100, args.memory_steps))
    print("\n".join(report(rows, tanh, memory, args.order, args.points)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
