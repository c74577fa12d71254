"""On the GPU: the MLP step, nth derivatives of tanh, per-op overhead and device memory, next to PyTorch.

`python -m benchmarks --device gpu` (or `python -m benchmarks.gpu`) needs CuPy and a CUDA
GPU; PyTorch's CUDA eager mode runs the same computations when torch sees the GPU, and
DeZero (with CuPy) runs the MLP step when its folder is given (`--dezero PATH` or
GENGRAD_DEZERO_PATH=PATH, the folder holding the `dezero` package).

- device: the GPU's name and memory, CuPy's version, PyTorch's and whether it sees CUDA.
- MLP step: benchmarks/mlp.py's 784-1000-1000-10 sigmoid network, float32, softmax cross
  entropy, SGD, at batch 100 and 4096, its steps (mlp.GengradStep, mlp.TorchStep, and the
  same network in DeZero) on the GPU: the model and data moved with `model.to_gpu()`, all
  from the same weights.  Each step reads its loss as a Python float, in every framework
  (one sync per step, as a training loop that logs).  DeZero's softmax_cross_entropy
  builds its one-hot with the labels' dtype (int64), so its backward runs in float64.
- nth derivative of tanh on 10^6 float64 points: nested `V.grad(create_graph=True)` (as
  PyTorch's nested autograd) and Taylor mode (`V.taylor`), at orders 6, 8 and 10.  The
  nested graph grows about 6x an order (7,008 nodes at order 10, each a 10^6-entry
  array), so its 10th derivative may not fit in the device's memory.  Then Taylor mode
  alone at orders 10, 20 and 30, in float32 and float64: `V.taylor(...)[n]` and
  `V.nth_derivative` (the nth alone), each checked against NumPy's float64 values.
- Laplacian: benchmarks/laplacian.py's network R^64 -> R (three tanh layers of 64) at 4,096
  float32 points, its Laplacian by PyTorch's nested autograd (CUDA), gengrad's nested
  gradients and V.laplacian (one collapsed Taylor pass), each alone and in a training step
  (the loss mean((Laplacian - t)^2) and its gradient by the weights); and V.laplacian with no
  graph (under V.no_grad(): the value alone).
- op overhead: the chain y = sin(y) * 1.0001 + x on 1,000 float32 entries, forward and
  backward, microseconds per op (three a step), next to PyTorch CUDA and CuPy's forward
  alone (the floor: one kernel launch per op, no graph).
- memory: the device memory in use after each of 2,000 MLP steps (CuPy's pool), its peak
  over the first 100 steps against its peak over all of them (flat means no leak).

Every case (each framework at each MLP batch, each order and method, the overhead chain,
the memory run) runs through one guard (`Guard`): a case that runs out of device memory
(CuPy's OutOfMemoryError, PyTorch's torch.cuda.OutOfMemoryError, MemoryError) prints
"does not fit" with the bytes it asked for, its memory is freed, and the next case runs;
any other error propagates.  Rows are printed as they finish.  Every timing synchronizes
the device before reading the clock, and each framework's first step is checked to give
the same result before anything is timed.
"""

import argparse
import gc
import importlib
import importlib.metadata
import os
import re
import sys
import time

import numpy as np

import variable as V
from benchmarks import laplacian, mlp
from benchmarks.higher_order import tanh_nth_gengrad
from benchmarks.timing import ratio
from variable import backend

DEZERO_ENV = "GENGRAD_DEZERO_PATH"
"""The environment variable naming the folder that holds the `dezero` package (as --dezero)."""

OPS_PER_STEP = 3
"""sin, mul, add: the ops of one step of the overhead chain."""


def emit(line=""):
    """Print one row now (a long run shows its progress)."""
    print(line, flush=True)


# ----- running out of device memory -------------------------------------------------------
_CUDA_LIBRARY_ERRORS = {"CUDARuntimeError", "CUDADriverError", "CUBLASError", "CUSOLVERError", "CUFFTError"}
_OUT_OF_MEMORY_WORDS = ("out of memory", "ALLOC_FAILED", "cudaErrorMemoryAllocation")


def is_out_of_memory(error) -> bool:
    """Whether `error` says the device (or the host) ran out of memory.

    MemoryError (CuPy's OutOfMemoryError derives from it on recent CuPy), any exception
    whose class is named OutOfMemoryError (CuPy's, torch.cuda.OutOfMemoryError), and a
    CUDA library error that says it could not allocate (cuBLAS's ALLOC_FAILED, the
    runtime's cudaErrorMemoryAllocation).
    """
    if isinstance(error, MemoryError):
        return True
    names = {kind.__name__ for kind in type(error).__mro__}
    if "OutOfMemoryError" in names:
        return True
    return bool(names & _CUDA_LIBRARY_ERRORS) and any(w in str(error) for w in _OUT_OF_MEMORY_WORDS)


def _size(n):
    """Bytes in binary units: '7.6 MiB'."""
    if n < 1024:
        return f"{n} B"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        n /= 1024
        if n < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}"


def _bytes_in(pattern, message):
    match = re.search(pattern, message)
    return None if match is None else int(match.group(1).replace(",", ""))


class DoesNotFit:
    """A case that ran out of device memory, and what it asked for (read from the error's message).

    CuPy says "Out of memory allocating 8,000,000 bytes (allocated so far: 80,079,937,024
    bytes)."; PyTorch "CUDA out of memory. Tried to allocate 20.00 MiB. ...".
    """

    def __init__(self, error):
        message = str(error)
        self.kind = type(error).__name__
        self.asked = _bytes_in(r"allocating ([\d,]+) bytes", message)
        self.allocated = _bytes_in(r"allocated so far: ([\d,]+) bytes", message)
        match = re.search(r"[Tt]ried to allocate ([\d.]+ ?[KMGT]?i?B)", message)
        self.asked_text = None if match is None else match.group(1)
        self.message = " ".join(message.split())[:160]

    def __str__(self):
        if self.asked is not None:
            text = f"does not fit: asked for {self.asked:,} bytes ({_size(self.asked)})"
            if self.allocated is not None:
                text += f" with {self.allocated:,} bytes ({_size(self.allocated)}) allocated so far"
            return text
        if self.asked_text is not None:
            return f"does not fit: asked for {self.asked_text}"
        return f"does not fit ({self.kind}{': ' + self.message if self.message else ''})"


class Guard:
    """Runs one case at a time: a case that runs out of memory gives a DoesNotFit instead of
    its result, any other error propagates; after every case the memory it left in the
    allocators' caches is handed back (CuPy's pools, PyTorch's caching allocator), so one
    framework's cache cannot starve the next case."""

    def __init__(self, xp, torch=None):
        self.xp, self.torch = xp, torch

    def __call__(self, case):
        """case() or, when it runs out of memory, a DoesNotFit."""
        try:
            result = case()
        except Exception as error:
            if not is_out_of_memory(error):
                raise
            result = DoesNotFit(error)
        # here the error, its traceback and the case's frames (holding its arrays) are gone
        self.release()
        return result

    def release(self):
        """Collect the garbage and free the cached device memory."""
        gc.collect()
        for name in ("get_default_memory_pool", "get_default_pinned_memory_pool"):
            pool = getattr(self.xp, name, None)
            if pool is not None:
                pool().free_all_blocks()
        if self.torch is not None:
            self.torch.cuda.empty_cache()


def fits(result) -> bool:
    """Whether a guarded case ran (it did not run out of memory)."""
    return not isinstance(result, DoesNotFit)


def cell(result, spec="8.3f"):
    """A timing for a row: the number, '-' when not run, or why it does not fit."""
    if result is None:
        return "-"
    if not fits(result):
        return f"[{result}]"
    return format(result, spec)


def ratio_of(a, b):
    """a / b formatted, '-' when either is missing or did not fit."""
    return ratio(a if a is None or fits(a) else None, b if b is None or fits(b) else None)


# ----- the device and the frameworks --------------------------------------------------------
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


def describe_device(xp):
    """One line: the GPU's name and memory and CuPy's version, or that this is the CPU stand-in."""
    cuda = getattr(xp, "cuda", None)
    runtime = getattr(cuda, "runtime", None)
    properties = getattr(runtime, "getDeviceProperties", None)
    if properties is None:
        return "device: fake GPU (CPU stand-in for CuPy); no GPU figures here"
    device_type = getattr(cuda, "Device", None)
    index = device_type().id if device_type is not None else 0
    props = properties(index)
    name = props["name"]
    name = name.decode(errors="replace") if isinstance(name, bytes) else str(name)
    line = f"device: GPU {index}: {name}, {props['totalGlobalMem'] / 2**30:.1f} GiB"
    try:
        free, _ = runtime.memGetInfo()
        line += f" ({free / 2**30:.1f} GiB free)"
    except Exception:  # an extra, not worth failing over
        pass
    line += f"; CuPy {getattr(xp, '__version__', '?')}"
    try:
        version = runtime.runtimeGetVersion()
        line += f", CUDA runtime {version // 1000}.{version % 1000 // 10}"
    except Exception:
        pass
    return line


def load_torch(skip):
    """(torch when it is installed and sees a CUDA GPU, else None; one line saying which)."""
    try:
        version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None, "PyTorch: not installed (its columns are skipped)"
    if skip:
        return None, f"PyTorch {version}: installed, not used (--no-torch)"
    import torch

    if not torch.cuda.is_available():
        return None, f"PyTorch {torch.__version__}: does not see CUDA (its columns are skipped)"
    return torch, (f"PyTorch {torch.__version__}: sees CUDA {torch.version.cuda}, "
                   f"{torch.cuda.get_device_name()}")


_DEZERO_HOW = (f"give the folder holding the dezero package with --dezero PATH or {DEZERO_ENV}=PATH "
               f"(the dezero folder of github.com/oreilly-japan/deep-learning-from-scratch-3)")


def load_dezero(path, xp):
    """(the dezero package, or None; one line saying which and why).

    `path` (else $GENGRAD_DEZERO_PATH) is the folder holding the `dezero` package; it is put
    first on sys.path.  DeZero is a folder of Python, never a dependency.
    """
    path = path or os.environ.get(DEZERO_ENV)
    if path:
        path = os.path.abspath(os.path.expanduser(path))
        if not os.path.isfile(os.path.join(path, "dezero", "__init__.py")):
            return None, f"DeZero: {path} holds no dezero package (dezero/__init__.py); {_DEZERO_HOW}"
        if path not in sys.path:
            sys.path.insert(0, path)
    try:
        dezero = importlib.import_module("dezero")
        for part in ("functions", "models", "optimizers"):
            importlib.import_module(f"dezero.{part}")
    except ModuleNotFoundError as error:
        if error.name != "dezero":
            return None, f"DeZero: importing it failed ({error}); its column is skipped"
        return None, f"DeZero: not importable, its column is skipped; {_DEZERO_HOW}"
    except Exception as error:  # a broken DeZero must not stop the benchmark
        # e.g. the PyPI wheel dezero 0.0.13 uses np.int, removed in NumPy 1.24
        first = (str(error).splitlines() or [""])[0]
        return None, (f"DeZero: importing it failed ({type(error).__name__}: {first}); its column is "
                      f"skipped (the GitHub repository's dezero folder imports on NumPy 2)")
    where = os.path.dirname(os.path.dirname(os.path.abspath(dezero.__file__ or ".")))
    if not getattr(getattr(dezero, "cuda", None), "gpu_enable", True):
        return None, f"DeZero at {where}: its dezero.cuda cannot load CuPy; its column is skipped"
    return dezero, f"DeZero {getattr(dezero, '__version__', '?')}: from {where}"


# ----- MLP step ---------------------------------------------------------------------------
class GengradGpuStep(mlp.GengradStep):
    """mlp.GengradStep's network, SGD and data, moved to the GPU (before any update, so an
    optimizer's state would be made there too)."""

    def __init__(self, weights, x, t):
        super().__init__(weights, x, t)
        self.model.to_gpu()
        self.x, self.t = backend.to_gpu(x), backend.to_gpu(t)


class DezeroStep:
    """The same step in DeZero: dezero.models.MLP with F.sigmoid, F.softmax_cross_entropy
    and dezero.optimizers.SGD, from mlp's weights; model and data on the device of `xp`
    (`model.to_gpu()` unless `xp` is NumPy)."""

    def __init__(self, dezero, xp, weights, x, t):
        self.F = dezero.functions
        self.model = dezero.models.MLP(mlp.SIZES[1:], activation=self.F.sigmoid)
        for layer, W, b in zip(self.model.layers, weights[::2], weights[1::2]):
            layer.W.data, layer.b.data = W.copy(), b.copy()   # set before the first call: not drawn
        if xp is not np:
            self.model.to_gpu()
        self.x, self.t = xp.asarray(x), xp.asarray(t)
        self.optimizer = dezero.optimizers.SGD(mlp.LR).setup(self.model)

    def __call__(self):
        loss = self.F.softmax_cross_entropy(self.model(self.x), self.t)
        self.model.cleargrads()
        loss.backward()
        self.optimizer.update()
        return float(loss.data)


def mlp_problem(batch):
    """mlp's weights (float32) and a batch of `batch` inputs and labels."""
    weights, _, _ = mlp._problem(np.float32)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((batch, mlp.SIZES[0])).astype(np.float32)
    t = rng.integers(0, mlp.SIZES[-1], size=batch)
    return weights, x, t


def mlp_frameworks(xp, torch, dezero):
    """{name: make(weights, x, t) -> step}: gengrad, then torch and DeZero when available."""
    makers = {"gengrad": GengradGpuStep}
    if torch is not None:
        makers["torch"] = lambda w, x, t: mlp.TorchStep(torch, w, x, t, device="cuda")
    if dezero is not None:
        makers["dezero"] = lambda w, x, t: DezeroStep(dezero, xp, w, x, t)
    return makers


def _time_step(make, problem, xp, repeat, number):
    step = make(*problem)
    first = step()
    return first, best_ms(step, xp, repeat, number)


def run_agreeing(guard, cases, times, what, rtol, atol=0.0):
    """Run each case ({name: () -> (value, ms)}) through `guard`, putting its ms (or
    DoesNotFit) in `times`; every value that was computed must agree with the first."""
    reference = None
    for name, case in cases.items():
        result = guard(case)
        if not fits(result):
            times[name] = result
            continue
        value, times[name] = result
        if reference is None:
            reference = (name, value)
        else:
            np.testing.assert_allclose(value, reference[1], rtol=rtol, atol=atol,
                                       err_msg=f"{what}{name} against {reference[0]}")
    return times


def run_mlp_batch(guard, xp, makers, batch, repeat=5, number=20):
    """{name: ms per step, or DoesNotFit} at one batch; the first losses must agree."""
    problem = mlp_problem(batch)
    cases = {name: (lambda make=make: _time_step(make, problem, xp, repeat, number))
             for name, make in makers.items()}
    return run_agreeing(guard, cases, {}, "first loss of ", rtol=1e-4)


def mlp_row(batch, times, makers):
    line = f"  batch {batch:5d}  gengrad {cell(times.get('gengrad'))}  torch {cell(times.get('torch'))}"
    if "dezero" in makers:
        line += f"  dezero {cell(times.get('dezero'))}"
    line += f"  gengrad/torch {ratio_of(times.get('gengrad'), times.get('torch'))}"
    if "dezero" in makers:
        line += f"  gengrad/dezero {ratio_of(times.get('gengrad'), times.get('dezero'))}"
    return line


# ----- nth derivative of tanh ---------------------------------------------------------------
def tanh_nth_torch_cuda(torch, x, n):
    """The nth derivative of tanh at `x`, a CUDA tensor that requires grad."""
    y = torch.tanh(x)
    for _ in range(n):
        (y,) = torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)
    return y


def _nested_case(xp, x_host, order, repeat):
    x = backend.to_gpu(x_host)
    value = backend.to_cpu(tanh_nth_gengrad(x, order).data)
    return value, best_ms(lambda: tanh_nth_gengrad(x, order), xp, repeat, 1)


def _taylor_case(xp, x_host, order, repeat):
    x = backend.to_gpu(x_host)
    taylor = lambda: V.taylor(V.tanh, V.Variable(x), xp.ones(x.shape[0]), order)[order]
    value = backend.to_cpu(taylor().data)
    return value, best_ms(taylor, xp, repeat, 1)


def _torch_case(torch, xp, x_host, order, repeat):
    x = torch.tensor(x_host, device="cuda", requires_grad=True)
    value = tanh_nth_torch_cuda(torch, x, order).detach().cpu().numpy()
    return value, best_ms(lambda: tanh_nth_torch_cuda(torch, x, order), xp, repeat, 1)


def run_tanh_order(guard, xp, torch, order, points=10**6, repeat=3):
    """{'nested', 'taylor', 'torch': ms, DoesNotFit or None} for one order; the values that
    were computed must agree."""
    x_host = np.linspace(-2, 2, points)
    cases = {
        "nested": lambda: _nested_case(xp, x_host, order, repeat),
        "taylor": lambda: _taylor_case(xp, x_host, order, repeat),
    }
    if torch is not None:
        cases["torch"] = lambda: _torch_case(torch, xp, x_host, order, repeat)
    row = {"nested": None, "taylor": None, "torch": None}
    return run_agreeing(guard, cases, row, f"order {order}: ", rtol=1e-8, atol=1e-6)


def tanh_row(order, row):
    nested, taylor, torch = row["nested"], row["taylor"], row["torch"]
    return (f"  n={order:2d}  nested grad {cell(nested, '8.2f')}  Taylor mode {cell(taylor, '8.2f')}"
            f"  torch nested {cell(torch, '8.2f')}  nested/torch {ratio_of(nested, torch)}"
            f"  Taylor/torch {ratio_of(taylor, torch)}")


# ----- Taylor mode alone, to order 30, in float32 and float64 -----------------------------------
TAYLOR_CASES = ("taylor float32", "nth float32", "taylor float64", "nth float64")
"""V.taylor(...)[n] (every order made) and V.nth_derivative (the nth alone), in each dtype."""


def _taylor_alone_case(xp, x_host, order, dtype, nth, repeat):
    """tanh's `order`th derivative on the device in `dtype`: (its values in float64, ms)."""
    x = V.Variable(backend.to_gpu(x_host.astype(dtype)))
    ones = xp.ones(x.shape, dtype=dtype)
    if nth:
        run = lambda: V.nth_derivative(V.tanh, x, ones, order)
    else:
        run = lambda: V.taylor(V.tanh, x, ones, order)[order]
    value = backend.to_cpu(run().data).astype(np.float64)
    return value, best_ms(run, xp, repeat, 1)


def run_taylor_order(guard, xp, order, points=10**6, repeat=3):
    """{case: ms, or DoesNotFit} for tanh's `order`th derivative by Taylor mode alone (no
    nested or PyTorch column: they do not reach these orders); each value checked against
    V.nth_derivative in float64 on the host (float32: within 1e-3 of the largest value)."""
    x_host = np.linspace(-2, 2, points)
    device = backend.default_device()
    backend.set_default_device("cpu")                # (the reference on the host)
    try:
        expected = V.nth_derivative(V.tanh, x_host, np.ones(points), order).data
    finally:
        backend.set_default_device(device)
    scale = float(np.abs(expected).max())
    row = {}
    for name in TAYLOR_CASES:
        kind, dtype = name.split()
        tolerance = 1e-3 if dtype == "float32" else 1e-8
        result = guard(lambda dtype=dtype, nth=kind == "nth":
                       _taylor_alone_case(xp, x_host, order, np.dtype(dtype), nth, repeat))
        if fits(result):
            value, row[name] = result
            np.testing.assert_allclose(value, expected, rtol=tolerance, atol=tolerance * scale,
                                       err_msg=f"order {order}: {name} against NumPy's float64")
        else:
            row[name] = result
    return row


def taylor_row(order, row):
    return (f"  n={order:2d}  " + "  ".join(
        f"{'V.taylor' if name.startswith('taylor') else 'nth_derivative'} {name.split()[1]} "
        f"{cell(row[name], '8.2f')}" for name in TAYLOR_CASES))


# ----- the Laplacian of a network (a PINN's operator) -----------------------------------------
LAPLACIAN_CASES = ("torch", "nested", "laplacian", "no graph")
"""PyTorch CUDA nested, gengrad nested and V.laplacian: the Laplacian row's columns, each timed
alone and in a training step; and V.laplacian under V.no_grad() (the value alone, no step)."""


def _laplacian_problem(d, batch):
    """benchmarks/laplacian.py's network R^d -> R (three tanh layers), `batch` points in
    [-1, 1]^d and the step's targets, in float32."""
    return laplacian.problem(np.random.default_rng(d), d, batch, np.float32)


def _gengrad_laplacian_case(xp, problem, method, step, repeat):
    """(the Laplacian, or the first weight's gradient in a step, on the host; ms) for
    laplacian.gengrad_nested or laplacian.gengrad_taylor on the device."""
    params, x_host, target_host = problem
    ps = [(V.Variable(backend.to_gpu(W)), V.Variable(backend.to_gpu(b))) for W, b in params]
    u = laplacian.gengrad_net(ps)
    x, target = backend.to_gpu(x_host), backend.to_gpu(target_host)
    flat = [p for pair in ps for p in pair]

    def run():
        lap = method(u, x)
        if not step:
            return lap.data
        loss = V.mean((lap - target) ** 2)
        return V.grad(loss, flat, allow_unused=True)[0].data   # (the last bias has no part)
    return backend.to_cpu(run()), best_ms(run, xp, repeat, 1)


def _torch_laplacian_case(torch, xp, problem, step, repeat, device="cuda"):
    """As _gengrad_laplacian_case, for PyTorch's nested Laplacian on `device`."""
    params, x_host, target_host = problem
    u, tparams = laplacian.torch_net(torch, params, device=device)
    x, target = torch.tensor(x_host, device=device), torch.tensor(target_host, device=device)

    def run():
        lap = laplacian.torch_nested(torch, u, x)
        if not step:
            return lap
        loss = ((lap - target) ** 2).mean()
        return torch.autograd.grad(loss, tparams, allow_unused=True)[0]
    return run().detach().cpu().numpy(), best_ms(run, xp, repeat, 1)


def run_laplacian(guard, xp, torch, d=64, batch=4096, repeat=3):
    """{case and case + ' step': ms, DoesNotFit or None} for the Laplacian of the network at
    `batch` points of R^d and for a training step on it (the loss mean((Laplacian - t)^2) and
    its gradient by the weights); each kind's values must agree (float32)."""
    problem = _laplacian_problem(d, batch)
    times = {}
    for step in (False, True):
        suffix = " step" if step else ""
        cases = {}
        if torch is not None:
            cases["torch"] = lambda step=step: _torch_laplacian_case(torch, xp, problem, step, repeat)
        cases["nested"] = lambda step=step: _gengrad_laplacian_case(
            xp, problem, laplacian.gengrad_nested, step, repeat)
        cases["laplacian"] = lambda step=step: _gengrad_laplacian_case(
            xp, problem, laplacian.gengrad_taylor, step, repeat)
        if not step:
            cases["no graph"] = lambda: _gengrad_laplacian_case(
                xp, problem, laplacian.gengrad_value, False, repeat)
        row = {name: None for name in LAPLACIAN_CASES}
        run_agreeing(guard, cases, row, f"Laplacian{suffix}: ", rtol=2e-3, atol=2e-3)
        times.update({name + suffix: ms for name, ms in row.items()})
    return times


def laplacian_row(times):
    bare = (f"  no graph {cell(times['no graph'], '8.2f')}  no graph/torch "
            f"{ratio_of(times['no graph'], times['torch'])}")
    return "\n".join(
        f"  {what:<9} torch nested {cell(times['torch' + suffix], '8.2f')}  gengrad nested "
        f"{cell(times['nested' + suffix], '8.2f')}  V.laplacian {cell(times['laplacian' + suffix], '8.2f')}"
        f"  V.laplacian/torch {ratio_of(times['laplacian' + suffix], times['torch' + suffix])}"
        + (bare if not suffix else "")
        for what, suffix in (("Laplacian", ""), ("step", " step")))


# ----- per-op overhead ------------------------------------------------------------------------
def chain_reference(x, steps):
    """d sum(y) / dx of the chain, in float64 NumPy on the host (the check)."""
    x = x.astype(np.float64)
    y, inputs = x, []
    for _ in range(steps):
        inputs.append(y)
        y = np.sin(y) * 1.0001 + x
    gy, gx = np.ones_like(x), np.zeros_like(x)
    for y_in in reversed(inputs):
        gx = gx + gy                           # the "+ x" branch
        gy = gy * 1.0001 * np.cos(y_in)        # through "* 1.0001" and sin
    return gx + gy


def chain_gengrad(x_device, steps):
    x = V.Variable(x_device)
    y = x
    for _ in range(steps):
        y = V.sin(y) * 1.0001 + x
    y.backward()                               # seeded with ones
    return x.grad.data


def chain_forward(xp, x, steps):
    y = x
    for _ in range(steps):
        y = xp.sin(y) * 1.0001 + x
    return y


def chain_torch(torch, x, steps):
    x = x.detach().requires_grad_()
    y = x
    for _ in range(steps):
        y = torch.sin(y) * 1.0001 + x
    y.backward(torch.ones_like(y))
    return x.grad


def run_overhead(guard, xp, torch, steps=500, size=1000, repeat=5):
    """{'gengrad', 'torch', 'forward': us per op, DoesNotFit or None}; the gradients are
    checked against float64 NumPy first."""
    x_host = np.linspace(-1, 1, size, dtype=np.float32)
    expected = chain_reference(x_host, steps)
    ops = steps * OPS_PER_STEP

    def gengrad():
        x = backend.to_gpu(x_host)
        np.testing.assert_allclose(backend.to_cpu(chain_gengrad(x, steps)), expected, rtol=1e-3, atol=1e-4)
        return best_ms(lambda: chain_gengrad(x, steps), xp, repeat, 1) * 1e3 / ops

    def theirs():
        x = torch.tensor(x_host, device="cuda")
        got = chain_torch(torch, x, steps).cpu().numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-4)
        return best_ms(lambda: chain_torch(torch, x, steps), xp, repeat, 1) * 1e3 / ops

    def forward():
        x = backend.to_gpu(x_host)
        return best_ms(lambda: chain_forward(xp, x, steps), xp, repeat, 1) * 1e3 / ops

    return {"gengrad": guard(gengrad), "torch": None if torch is None else guard(theirs),
            "forward": guard(forward)}


# ----- device memory over many steps -------------------------------------------------------
def run_memory(xp, steps=2000, warmup=100):
    """{'early', 'peak' bytes, 'growth'} over `steps` MLP steps, or None without a memory pool."""
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


def memory_row(memory, steps, warmup):
    if memory is None:
        return "  not measured: the device module has no memory pool (the CPU stand-in)"
    if not fits(memory):
        return f"  [{memory}]"
    return (f"  {memory['early'] / 2**20:.1f} MiB (peak of the first {warmup:,}) -> "
            f"{memory['peak'] / 2**20:.1f} MiB (peak of all): {memory['growth']:+.1%}")


# ----- the benchmark ------------------------------------------------------------------------
def main(argv=None):
    """Run the GPU benchmarks, printing each row as it finishes; 1 when there is no GPU."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--number", type=int, default=20, help="MLP steps per timed round")
    parser.add_argument("--batches", type=int, nargs="+", default=[100, 4096])
    parser.add_argument("--points", type=int, default=10**6, help="points of the tanh derivatives")
    parser.add_argument("--orders", type=int, nargs="+", default=[6, 8, 10],
                        help="orders of the tanh derivatives")
    parser.add_argument("--taylor-orders", type=int, nargs="+", default=[10, 20, 30],
                        help="orders of the tanh derivatives by Taylor mode alone")
    parser.add_argument("--dims", type=int, default=64, help="d of the Laplacian's network R^d -> R")
    parser.add_argument("--laplacian-batch", type=int, default=4096, help="points of the Laplacian")
    parser.add_argument("--overhead-steps", type=int, default=500, help="steps of the overhead chain")
    parser.add_argument("--overhead-size", type=int, default=1000, help="entries of the overhead chain")
    parser.add_argument("--memory-steps", type=int, default=2000)
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    parser.add_argument("--dezero", metavar="PATH", default=None,
                        help=f"folder holding the dezero package (default: ${DEZERO_ENV})")
    args = parser.parse_args(argv)
    try:
        xp = backend.gpu_module("benchmarks --device gpu")
    except (ImportError, RuntimeError) as error:
        print(f"GPU benchmarks not run: {error}", file=sys.stderr)
        return 1
    emit(describe_device(xp))
    torch, torch_line = load_torch(args.no_torch)
    emit(torch_line)
    dezero, dezero_line = load_dezero(args.dezero, xp)
    emit(dezero_line)
    gc.freeze()  # what exists now is no case's garbage: each case's gc.collect() walks what cases made
    try:         # (in a process holding much more, a test suite's, a collection took 0.1 s a case)
        return run_all(args, xp, torch, dezero)
    finally:
        gc.unfreeze()


def run_all(args, xp, torch, dezero):
    """Every case, one row at a time; 0."""
    guard = Guard(xp, torch)
    emit()
    emit("MLP 784-1000-1000-10 training step on the GPU, float32 (ms per step, reading the loss)")
    makers = mlp_frameworks(xp, torch, dezero)
    for batch in args.batches:
        emit(mlp_row(batch, run_mlp_batch(guard, xp, makers, batch, args.repeat, args.number), makers))

    emit(f"nth derivative of tanh on {args.points:,} float64 points on the GPU (ms)")
    for order in args.orders:
        row = run_tanh_order(guard, xp, torch, order, args.points, max(1, args.repeat // 2))
        emit(tanh_row(order, row))

    emit(f"nth derivative of tanh on {args.points:,} points on the GPU by Taylor mode alone, "
         f"float32 and float64 (ms)")
    for order in args.taylor_orders:
        emit(taylor_row(order, run_taylor_order(guard, xp, order, args.points, max(1, args.repeat // 2))))

    emit(f"Laplacian of an MLP R^{args.dims} -> R (3 tanh layers of {laplacian.WIDTH}) at "
         f"{args.laplacian_batch:,} float32 points on the GPU, and a training step on it (ms)")
    emit(laplacian_row(run_laplacian(guard, xp, torch, args.dims, args.laplacian_batch,
                                     max(1, args.repeat // 2))))

    emit(f"op overhead on the GPU (sin/mul/add chain, {args.overhead_size:,} float32 entries, "
         f"{args.overhead_steps:,} steps, us per op)")
    overhead = run_overhead(guard, xp, torch, args.overhead_steps, args.overhead_size, args.repeat)
    ours, theirs = overhead["gengrad"], overhead["torch"]
    emit(f"  gengrad fwd+bwd {cell(ours, '7.2f')}  torch fwd+bwd {cell(theirs, '7.2f')}"
         f"  gengrad/torch {ratio_of(ours, theirs)}"
         f"  CuPy forward only (the floor) {cell(overhead['forward'], '7.2f')}")

    warmup = min(100, args.memory_steps)
    emit(f"device memory in use over {args.memory_steps:,} MLP steps (batch {mlp.BATCH})")
    memory = guard(lambda: run_memory(xp, args.memory_steps, warmup))
    emit(memory_row(memory, args.memory_steps, warmup))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
