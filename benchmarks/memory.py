"""Memory: no leaks over long runs, and what a recorded graph keeps alive, next to PyTorch.

- leaks: MLP training steps and Hessian-vector products; peak RSS (resource.getrusage)
  and the memory traced by tracemalloc after the first 100 steps and at the end; growth
  beyond a few percent would mean the graph, gradients or optimizer state pile up.
- nested: the nth derivative of tanh on N points by nested V.grad(create_graph=True);
  the memory alive after the loop and the peak during it (tracemalloc), in input arrays
  (N float64).  PyTorch's count is the distinct tensors its autograd saves
  (saved_tensors_hooks) that are still alive, plus what the user holds (x and the result).
- peak: the peak RSS of that nested loop, gengrad's and PyTorch's, each in a fresh process
  (Linux's VmHWM, reset before the loop, above the resident set there; elsewhere
  getrusage's maximum), and the seconds.
- mlp: peak memory above resting of one training step of benchmarks/mlp.py's network at
  batch 4096, gengrad next to hand-written NumPy (the floor), and the time per step.
- slices: backward through T column slices x[:, t] of one array, ms in all and per slice.
- gp: a WGAN-GP critic step (gradient penalty by double backward), memory and time.
- checkpoint: a training step of a deep, narrow tanh network (many activations, few
  weights), plain and with V.checkpoint_sequential in about sqrt(depth) segments, next to
  the same two written by hand in NumPy (the floor of each); peak above resting and time.
  PyTorch's torch.utils.checkpoint column: its time, checkpointed over plain.
PyTorch is skipped when not installed; tracemalloc sees NumPy's arrays, not torch's.

    python -m benchmarks.memory            # everything (a minute or two)
    python -m benchmarks.memory --quick    # small sizes, a smoke run
    python -m benchmarks.memory --big      # only: 10th derivative of tanh on 10**6 points
"""

import argparse
import gc
import os
import resource
import subprocess
import sys
import time
import tracemalloc
import weakref
from unittest import mock

import numpy as np

import function as F
import layers as L
import optimizers as O
import variable as V
from benchmarks import mlp
from benchmarks.taylor_mode import tanh_nth_numpy, tanh_polynomial
from benchmarks.timing import best_time, import_torch, ratio

MIB = 2 ** 20
PARTS = ("leaks", "nested", "peak", "mlp", "slices", "gp", "checkpoint")
CRITIC = (64, 128, 128, 1)                            # the gradient-penalty critic's sizes


def peak_rss_mib():
    """Peak resident set size of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


# ----- leaks over long runs -----------------------------------------------------------
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


# ----- measuring helpers -----------------------------------------------------------------
def peak_above_resting(make_step):
    """Bytes: (traced peak of a step above the memory held between steps, what the step
    holds between steps beyond what it held when built).  Tracing starts before the build
    and a warm-up step runs first, so what a step frees (old gradients) counts too."""
    gc.collect()
    V.empty_cache()               # (no cached buffer made before tracing is reused untraced)
    tracemalloc.start()
    try:
        step = make_step()
        built = tracemalloc.get_traced_memory()[0]
        step()
        gc.collect()
        V.empty_cache()           # (resting: what is alive, not the cache's free buffers)
        resting = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        step()
        return tracemalloc.get_traced_memory()[1] - resting, resting - built
    finally:
        tracemalloc.stop()


class SavedTensors:
    """Within `with saved.hooks`: records every tensor torch autograd saves (pack hook;
    unpack returns it as is).  live_bytes() counts the distinct storages still alive, once each."""

    def __init__(self, torch):
        self.hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, lambda t: t)
        self.saved = {}                  # (data_ptr, nbytes) -> weak references to tensors

    def _pack(self, t):
        storage = t.untyped_storage()
        self.saved.setdefault((storage.data_ptr(), storage.nbytes()), []).append(weakref.ref(t))
        return t

    def live_bytes(self, held=(), resting=()):
        """Saved storages still alive, plus those of `held`, minus those of `resting`."""
        gc.collect()
        keys = {key for key, refs in self.saved.items() if any(r() is not None for r in refs)}
        keys |= {(t.untyped_storage().data_ptr(), t.untyped_storage().nbytes()) for t in held}
        keys -= {(t.untyped_storage().data_ptr(), t.untyped_storage().nbytes()) for t in resting}
        return sum(nbytes for _, nbytes in keys)


# ----- nested derivatives of tanh ----------------------------------------------------------
def tanh_nested(x, order):
    g = V.tanh(x)
    for _ in range(order):
        g = V.grad(V.sum(g), x, create_graph=True)
    return g


def nested_gengrad(n, order):
    """d^order tanh on n points by nested V.grad: (bytes alive after, peak bytes, values)."""
    gc.collect()
    V.empty_cache()               # (no cached buffer made before tracing is reused untraced)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        g = tanh_nested(V.Variable(np.linspace(-2, 2, n)), order)
        gc.collect()
        V.empty_cache()           # alive: arrays, not the cache's free buffers
        live, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return live - base, peak - base, g.data


def nested_torch(torch, n, order):
    """The same loop in PyTorch: (saved tensors alive + x + the result, in bytes; values)."""
    x = torch.linspace(-2, 2, n, dtype=torch.float64, requires_grad=True)
    saved = SavedTensors(torch)
    with saved.hooks:
        g = torch.tanh(x)
        for _ in range(order):
            (g,) = torch.autograd.grad(g.sum(), x, create_graph=True)
    return saved.live_bytes(held=(x, g)), g.detach().numpy()


def run_nested(n, orders, torch=None):
    """One row per order: live and peak in input arrays, or 'does not fit' (MemoryError)."""
    rows = []
    for order in orders:
        row = {"order": order}
        try:
            live, peak, value = nested_gengrad(n, order)
            row.update(live=live / (8 * n), peak=peak / (8 * n))
            if order <= 6:                 # the derivative polynomial, exact enough here
                closed = tanh_nth_numpy(np.linspace(-2, 2, n), [float(c) for c in tanh_polynomial(order)])
                np.testing.assert_allclose(value, closed, rtol=1e-9, atol=1e-9)
            if torch is not None:
                torch_live, expected = nested_torch(torch, n, order)
                row["torch"] = torch_live / (8 * n)
                np.testing.assert_allclose(value, expected, rtol=1e-8, atol=1e-8 * np.abs(expected).max())
        except MemoryError:
            row["fail"] = True
        rows.append(row)
    return rows


def report_nested(n, rows):
    lines = [f"nth derivative of tanh on {n:,} float64 points, nested grad (memory in input arrays)",
             "  torch live = saved tensors + what the user holds (x and the result)",
             f"  {'order':>5s} | {'gengrad live':>12s} | {'gengrad peak':>12s} | {'torch live (saved)':>18s}"
             " | ratio gengrad/torch live"]
    for r in rows:
        if r.get("fail"):
            lines.append(f"  {r['order']:5d} | does not fit")
            continue
        t = r.get("torch")
        lines.append(f"  {r['order']:5d} | {r['live']:12.1f} | {r['peak']:12.1f} | "
                     f"{'-' if t is None else f'{t:.1f}':>18s} | {ratio(r['live'], t)}")
    return lines


_PEAK_SCRIPT = """
import resource, sys, time
import numpy as np
n, order, which = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if which == "torch":
    import torch
    torch.set_num_threads(1)
    x = torch.linspace(-2, 2, n, dtype=torch.float64, requires_grad=True)
    def nested():
        g = torch.tanh(x)
        for _ in range(order):
            (g,) = torch.autograd.grad(g.sum(), x, create_graph=True)
        return g.detach().numpy()
else:
    import variable as V
    from benchmarks.memory import tanh_nested
    x = V.Variable(np.linspace(-2, 2, n))
    def nested():
        return tanh_nested(x, order).data
def resident():  # (resident set now, its peak) in bytes; on Linux the peak was reset below
    try:
        with open("/proc/self/status") as status:
            kib = dict(line.split(":", 1) for line in status if line.startswith(("VmRSS", "VmHWM")))
        return int(kib["VmRSS"].split()[0]) * 1024, int(kib["VmHWM"].split()[0]) * 1024
    except (OSError, KeyError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return None, peak * (1 if sys.platform == "darwin" else 1024)
try:
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")                  # the peak starts again from the resident set now
except OSError:
    pass
now, before = resident()
before = before if now is None else now
start = time.perf_counter()
g = nested()
seconds = time.perf_counter() - start
print(resident()[1] - before, seconds, repr(float(np.abs(g).sum())))
"""


def peak_in_fresh_process(which, n, order):
    """The nested nth derivative of tanh in a new interpreter (one thread): (peak RSS above
    the process's own before the loop, in bytes; seconds; sum of |result|, to compare)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-c", _PEAK_SCRIPT, str(n), str(order), which],
                          capture_output=True, text=True, env=env, check=True)
    peak, seconds, total = done.stdout.split()
    return int(peak), float(seconds), float(total)


def run_peaks(n, orders, torch=None):
    """One row per order: the peak RSS of the nested loop, gengrad's and PyTorch's, in input
    arrays (N float64), each measured in its own fresh process, and their seconds."""
    rows = []
    for order in orders:
        peak, seconds, total = peak_in_fresh_process("gengrad", n, order)
        row = {"order": order, "peak": peak / (8 * n), "seconds": seconds}
        if torch is not None:
            torch_peak, torch_seconds, torch_total = peak_in_fresh_process("torch", n, order)
            np.testing.assert_allclose(total, torch_total, rtol=1e-8)
            row.update(torch=torch_peak / (8 * n), torch_seconds=torch_seconds)
        rows.append(row)
    return rows


def report_peaks(n, rows):
    lines = [f"peak RSS during the nested nth derivative of tanh on {n:,} float64 points (a fresh "
             f"process each, one thread; in input arrays)",
             f"  {'order':>5s} | {'gengrad peak':>12s} | {'seconds':>7s} | {'torch peak':>10s} | "
             f"{'seconds':>7s} | ratio gengrad/torch peak"]
    for r in rows:
        t = r.get("torch")
        peak, seconds = ("-", "-") if t is None else (f"{t:.0f}", f"{r['torch_seconds']:.2f}")
        lines.append(f"  {r['order']:5d} | {r['peak']:12.0f} | {r['seconds']:7.2f} | {peak:>10s} | "
                     f"{seconds:>7s} | {ratio(r['peak'], t)}")
    return lines


def nested_big(n=10 ** 6, order=10):
    """Only gengrad: a line with the seconds for d^order tanh on n points, and peak RSS."""
    x = V.Variable(np.linspace(-2, 2, n))
    start = time.perf_counter()
    tanh_nested(x, order)
    seconds, rss = time.perf_counter() - start, peak_rss_mib()
    return (f"derivative of order {order} of tanh on {n:,} float64 points (gengrad): {seconds:.2f} s, "
            f"peak RSS {rss:.0f} MiB ({rss * MIB / (8 * n):.0f} input arrays)")


# ----- MLP training step ---------------------------------------------------------------------
def mlp_problem(dtype, batch):
    """mlp._problem (same seed, same draws) at another batch size."""
    with mock.patch.object(mlp, "BATCH", batch):
        return mlp._problem(np.dtype(dtype))


def run_mlp_step(batch, dtype, repeat=3):
    """{name: (peak bytes above resting, bytes kept between steps, best seconds per step)}."""
    weights, x, t = mlp_problem(dtype, batch)
    makers = {"numpy": mlp.NumpyStep, "gengrad": mlp.GengradStep}
    steps = {name: make(weights, x, t) for name, make in makers.items()}
    mlp._check_agreement(steps, np.dtype(dtype))          # one step each: also the warm-up
    return {name: (*peak_above_resting(lambda make=make: make(weights, x, t)), best_time(steps[name], repeat))
            for name, make in makers.items()}


def report_mlp(batch, results):
    lines = [f"MLP 784-1000-1000-10 training step, batch {batch} (MiB; ms per step, best of 3)",
             "  peak = traced peak of a step above resting; kept = held between steps beyond the"
             " weights (gengrad: the gradients)",
             f"  {'dtype':8s} {'numpy':>7s} {'gengrad':>7s} {'ratio':>6s} | {'kept':>4s} {'peak+kept':>9s}"
             f" {'ratio':>6s} | {'numpy ms':>8s} {'gengrad ms':>10s} {'ratio':>6s}"]
    for dtype, r in results.items():
        (np_peak, np_kept, np_s), (gg_peak, gg_kept, gg_s) = r["numpy"], r["gengrad"]
        lines.append(f"  {dtype:8s} {np_peak / MIB:7.1f} {gg_peak / MIB:7.1f} {ratio(gg_peak, np_peak):>6s}"
                     f" | {gg_kept / MIB:4.1f} {(gg_peak + gg_kept) / MIB:9.1f} "
                     f"{ratio(gg_peak + gg_kept, np_peak + np_kept):>6s} | "
                     f"{np_s * 1e3:8.1f} {gg_s * 1e3:10.1f} {ratio(gg_s, np_s):>6s}")
    return lines


# ----- backward through T slices -------------------------------------------------------------
def slices_loss(x, tanh, total):
    """sum over t of total(tanh(x[:, t]) ** 2), for gengrad (V.tanh, V.sum) or torch."""
    loss = total(tanh(x[:, 0]) ** 2)
    for t in range(1, x.shape[1]):
        loss = loss + total(tanh(x[:, t]) ** 2)
    return x, loss


def time_backward(build, backward, repeat):
    """Best seconds of `backward(*build())`, a fresh forward each time (not timed)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        args = build()
        start = time.perf_counter()
        result = backward(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def run_slices(widths, repeat=3, torch=None, rows=256, seed=0):
    """For each T: seconds of backward (gengrad, gengrad create_graph, torch)."""
    out = []
    for width in widths:
        x_data = np.random.default_rng(seed).standard_normal((rows, width))
        expected, row = 2 * np.tanh(x_data) * (1 - np.tanh(x_data) ** 2), {"T": width}
        build = lambda x_data=x_data: slices_loss(V.Variable(x_data), V.tanh, V.sum)
        row["gengrad"], grad = time_backward(build, lambda x, loss: (loss.backward(), x.grad.data)[1], repeat)
        np.testing.assert_allclose(grad, expected, rtol=1e-12, atol=1e-14)
        row["create_graph"], grad = time_backward(build, lambda x, loss: V.grad(loss, x, create_graph=True),
                                                  repeat)
        np.testing.assert_allclose(grad.data, expected, rtol=1e-12, atol=1e-14)
        if torch is not None:
            build = lambda x_data=x_data: slices_loss(torch.tensor(x_data, requires_grad=True),
                                                      torch.tanh, torch.sum)
            row["torch"], grad = time_backward(build, lambda x, loss: (loss.backward(), x.grad)[1], repeat)
            np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-12, atol=1e-14)
        out.append(row)
    return out


def report_slices(rows):
    lines = ["backward through T slices: loss = sum_t sum(tanh(x[:, t])**2), x (256, T) float64 (ms)",
             f"  {'T':>5s} {'gengrad':>9s} {'per slice':>9s} {'torch':>9s} {'per slice':>9s} {'ratio':>7s}"
             f"   {'create_graph':>12s} {'per slice':>9s}"]
    for r in rows:
        per = lambda s, r=r: "-" if s is None else f"{s * 1e3 / r['T']:.4f}"
        t = r.get("torch")
        lines.append(f"  {r['T']:5d} {r['gengrad'] * 1e3:9.2f} {per(r['gengrad']):>9s} "
                     f"{'-' if t is None else f'{t * 1e3:.2f}':>9s} {per(t):>9s} {ratio(r['gengrad'], t):>7s}"
                     f"   {r['create_graph'] * 1e3:12.2f} {per(r['create_graph']):>9s}")
    return lines


# ----- gradient penalty ------------------------------------------------------------------------
def gp_problem(seed=0, batch=512):
    """Critic weights (W of shape (in, out), b) and a batch of inputs, all float64."""
    rng = np.random.default_rng(seed)
    weights = []
    for n_in, n_out in zip(CRITIC[:-1], CRITIC[1:]):
        weights += [rng.standard_normal((n_in, n_out)) / np.sqrt(n_in), rng.standard_normal(n_out) / 10]
    return weights, rng.standard_normal((batch, CRITIC[0]))


def gp_loss_numpy(weights, x):
    """mean(D(x)) + 10 * mean((|grad_x D|_2 - 1)^2), the input gradient written by hand."""
    W1, b1, W2, b2, W3, b3 = weights
    h1 = np.tanh(x @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    d = h2 @ W3 + b3
    g2 = W3[:, 0] * (1 - h2 * h2)
    g1 = (g2 @ W2.T) * (1 - h1 * h1)
    gx = g1 @ W1.T
    return d.mean() + 10 * np.mean((np.sqrt((gx * gx).sum(axis=1)) - 1) ** 2)


def gp_loss(params, x, torch=None):
    """mean(D(x)) + 10 * mean((|grad_x D(x)|_2 - 1)^2), in gengrad or (given torch) PyTorch."""
    W1, b1, W2, b2, W3, b3 = params
    linear, tanh = (F.linear, F.tanh) if torch is None else (lambda x, W, b: x @ W + b, torch.tanh)
    d = linear(tanh(linear(tanh(linear(x, W1, b1)), W2, b2)), W3, b3)
    if torch is None:
        g = V.grad(V.sum(d), x, create_graph=True)
    else:
        (g,) = torch.autograd.grad(d.sum(), x, create_graph=True)
    return d.mean() + 10 * (((g * g).sum(axis=1) ** 0.5 - 1) ** 2).mean()


class GPStep:
    """A critic step: loss with gradient penalty, backward to the weights (gengrad, or torch)."""

    def __init__(self, weights, x, torch=None):
        self.torch = torch
        make = V.Variable if torch is None else lambda a: torch.tensor(a, requires_grad=True)
        self.params, self.x = [make(w.copy()) for w in weights], make(x)

    def loss(self):
        return gp_loss(self.params, self.x, self.torch)

    def __call__(self):
        for p in self.params:
            p.grad = None
        loss = self.loss()
        loss.backward()
        return float(loss.data if self.torch is None else loss.detach())


def run_gp(repeat=3, torch=None, batch=512):
    """Memory (bytes) and best seconds of a critic step, gengrad and torch."""
    weights, x = gp_problem(batch=batch)
    gengrad = GPStep(weights, x)
    np.testing.assert_allclose(gengrad(), gp_loss_numpy(weights, x), rtol=1e-10)
    peak, kept = peak_above_resting(lambda: GPStep(weights, x))
    out = {"gengrad_peak": peak, "gengrad_kept": kept, "gengrad": best_time(gengrad, repeat)}
    gc.collect()
    V.empty_cache()
    tracemalloc.start()           # what the graph holds once the loss is formed (from zero)
    loss = gengrad.loss()
    gc.collect()
    V.empty_cache()
    out["gengrad_held"] = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    if torch is not None:
        step = GPStep(weights, x, torch)
        np.testing.assert_allclose(step(), gengrad(), rtol=1e-8)
        for p, q in zip(step.params, gengrad.params):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.data, rtol=1e-8, atol=1e-12)
        saved = SavedTensors(torch)
        with saved.hooks:
            loss = step.loss()
        out["torch_held"] = saved.live_bytes(held=(loss,), resting=(step.x, *step.params))
        out["torch"] = best_time(step, repeat)
    return out


def report_gp(batch, r):
    th, tt = r.get("torch_held"), r.get("torch")
    return [f"gradient-penalty critic step (64-128-128-1 tanh, x ({batch}, 64) float64)",
            "  held = graph memory once the loss is formed (gengrad: traced; torch: saved tensors)",
            f"  gengrad: peak above resting {r['gengrad_peak'] / MIB:.2f} MiB (gradients kept between "
            f"steps {r['gengrad_kept'] / MIB:.2f})   held {r['gengrad_held'] / MIB:.2f} MiB   "
            f"{r['gengrad'] * 1e3:.2f} ms/step",
            f"  torch:   held {'-' if th is None else f'{th / MIB:.2f}'} MiB   "
            f"{'-' if tt is None else f'{tt * 1e3:.2f}'} ms/step   "
            f"ratio gengrad/torch: held {ratio(r['gengrad_held'], th)}  time {ratio(r['gengrad'], tt)}"]


# ----- main --------------------------------------------------------------------------------------
# ----- gradient checkpointing ----------------------------------------------------------------
def deep_problem(depth, width, batch, seed=0):
    """Weights of a tanh chain (scaled to keep it in tanh's range) and its input."""
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal((width, width)) / np.sqrt(width) for _ in range(depth)]
    return weights, rng.standard_normal((batch, width))


def deep_numpy(weights, x, segments=None):
    """Gradients of sum(h_L^2) / 2, h_(i+1) = tanh(h_i W_i), by hand: every h kept, or (segments)
    the segments' first inputs only, each segment's h made again in backward."""
    n = len(weights)
    bounds = [round(i * n / (segments or 1)) for i in range((segments or 1) + 1)]

    def run(h, lo, hi, keep):
        hs = [h]
        for W in weights[lo:hi]:
            h = np.tanh(h @ W)
            if keep:
                hs.append(h)
        return hs if keep else h

    if segments is None:
        hs = run(x, 0, n, True)
        starts = None
    else:
        starts, h = [], x
        for lo, hi in zip(bounds, bounds[1:]):
            starts.append(h)
            h = run(h, lo, hi, False)
        hs = None
    g = h if hs is None else hs[-1]  # d/dh_L of sum(h_L^2) / 2
    grads = [None] * n
    pieces = [(0, n, hs)] if hs is not None else [
        (lo, hi, None) for lo, hi in zip(bounds, bounds[1:])]
    for k in reversed(range(len(pieces))):
        lo, hi, kept = pieces[k]
        kept = kept if kept is not None else run(starts[k], lo, hi, True)
        for i in reversed(range(lo, hi)):
            g = g * (1 - kept[i - lo + 1] ** 2)
            grads[i] = kept[i - lo].T @ g
            g = g @ weights[i].T
    return grads


def deep_gengrad(weights, x, segments=None):
    params = [V.Variable(W) for W in weights]
    chain = [lambda h, W=W: V.tanh(h @ W) for W in params]

    def step():
        for p in params:
            p.cleargrad()
        if segments is None:
            h = x
            for f in chain:
                h = f(h)
        else:
            h = V.checkpoint_sequential(chain, segments, x)
        ((h * h).sum() / 2).backward()
        return [p.grad.data for p in params]
    return step


def deep_torch(torch, weights, x, segments=None):
    from torch.utils import checkpoint as tc
    params = [torch.tensor(W, requires_grad=True) for W in weights]
    xt = torch.tensor(x)
    chain = [lambda h, W=W: torch.tanh(h @ W) for W in params]

    def step():
        for p in params:
            p.grad = None
        if segments is None:
            h = xt
            for f in chain:
                h = f(h)
        else:
            h = tc.checkpoint_sequential(chain, segments, xt, use_reentrant=False)
        ((h * h).sum() / 2).backward()
    return step


def run_checkpoint(depth, width, batch, repeat=3, torch=None):
    """{name: (peak bytes above resting, seconds per step)}, checked against the NumPy floor."""
    weights, x = deep_problem(depth, width, batch)
    segments = max(1, round(depth ** 0.5))
    want = deep_numpy(weights, x)
    rows = {}
    for name, seg in (("plain", None), (f"{segments} segments", segments)):
        numpy_step = lambda seg=seg: deep_numpy(weights, x, seg)  # noqa: E731
        gengrad_step = deep_gengrad(weights, x, seg)
        for got in (numpy_step(), gengrad_step()):
            err = max(float(np.abs(a - b).max() / (np.abs(b).max() + 1e-300)) for a, b in zip(got, want))
            if err > 1e-10:
                raise AssertionError(f"checkpoint benchmark: {name} disagrees with NumPy by {err:.1e}")
        row = {}
        for who, step in (("numpy", numpy_step), ("gengrad", gengrad_step)):
            peak = peak_above_resting(lambda step=step: step)[0]
            row[who] = (peak, best_time(step, repeat))
        if torch is not None:
            row["torch"] = (None, best_time(deep_torch(torch, weights, x, seg), repeat))
        rows[name] = row
    return rows


def report_checkpoint(depth, width, batch, rows):
    lines = [f"gradient checkpointing: tanh chain of {depth} layers {width} wide, batch {batch}, "
             f"a training step (MiB above resting; ms, best of 3)",
             f"  {'':12s} {'numpy MiB':>9s} {'gengrad':>8s} {'ratio':>6s} | {'numpy ms':>8s} "
             f"{'gengrad':>8s} {'ratio':>6s} | {'torch ms':>8s}"]
    for name, r in rows.items():
        (np_peak, np_s), (gg_peak, gg_s) = r["numpy"], r["gengrad"]
        torch_s = r.get("torch", (None, None))[1]
        torch_ms = "-" if torch_s is None else f"{torch_s * 1e3:.1f}"
        lines.append(f"  {name:12s} {np_peak / MIB:9.1f} {gg_peak / MIB:8.1f} "
                     f"{ratio(gg_peak, np_peak):>6s} | {np_s * 1e3:8.1f} {gg_s * 1e3:8.1f} "
                     f"{ratio(gg_s, np_s):>6s} | {torch_ms:>8s}")
    (plain_peak, plain_s), (cut_peak, cut_s) = [r["gengrad"] for r in rows.values()]
    lines.append(f"  gengrad checkpointed / plain: memory {ratio(cut_peak, plain_peak)}, time "
                 f"{ratio(cut_s, plain_s)}")
    return lines


def main(argv=None):
    """Run the leak loops and the memory comparisons, and print their tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, help="leak loops: steps (default 2000; quick 120)")
    parser.add_argument("--warmup", type=int, help="leak loops: first reading (default 100)")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=PARTS, help="default: all")
    parser.add_argument("--big", action="store_true", help="only: d^10 tanh on 10**6 points (GiBs)")
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    args = parser.parse_args(argv)
    if args.big:
        print(nested_big())
        return 0
    quick, parts, repeat = args.quick, args.parts, 1 if args.quick else 3
    if "leaks" in parts:
        steps = args.steps if args.steps is not None else 120 if quick else 2000
        warmup = args.warmup if args.warmup is not None else min(100, steps // 2)
        print(f"memory over {steps} steps (after {warmup} steps -> at the end)")
        print(report("mlp", mlp_steps(steps, warmup)))
        print(report("hvp", hvp_steps(steps, warmup)))
    torch = None if args.no_torch else import_torch()
    gc.freeze()                   # what is loaded now (torch's many objects) stays out of GC passes
    if torch is None:
        print("(torch columns: skipped, --no-torch or torch not installed)")
    if "nested" in parts:
        n = 2_000 if quick else 20_000
        print("\n".join(report_nested(n, run_nested(n, (4, 6) if quick else (4, 6, 8, 10, 12), torch))))
    if "peak" in parts:
        n = 2_000 if quick else 20_000
        print("\n".join(report_peaks(n, run_peaks(n, (4,) if quick else (8, 10), torch))))
    if "mlp" in parts:
        batch = 256 if quick else 4096
        results = {dtype: run_mlp_step(batch, dtype, repeat) for dtype in ("float32", "float64")}
        print("\n".join(report_mlp(batch, results)))
    if "slices" in parts:
        print("\n".join(report_slices(run_slices((20, 40) if quick else (100, 400, 1600), repeat, torch))))
    if "gp" in parts:
        batch = 64 if quick else 512
        print("\n".join(report_gp(batch, run_gp(repeat, torch, batch))))
    if "checkpoint" in parts:
        depth, width, batch = (16, 32, 64) if quick else (64, 256, 1024)
        print("\n".join(report_checkpoint(depth, width, batch,
                                          run_checkpoint(depth, width, batch, repeat, torch))))
    gc.unfreeze()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
