"""benchmarks/gpu.py on the CPU stand-in for CuPy (the `gpu` fixture): a case that runs out
of device memory prints "does not fit" with the bytes it asked for and the run goes on; the
device is named; DeZero's column is wired through --dezero (a stand-in `dezero` package
built on gengrad, written to tmp_path: the real one is not a dependency).  torch is never
imported here (--no-torch)."""

import importlib.util
import sys
import textwrap

import pytest

from benchmarks import __main__ as run_all
from benchmarks import gpu as gpu_benchmark

CUPY_MESSAGE = "Out of memory allocating 8,000,000 bytes (allocated so far: 80,079,937,024 bytes)."
TORCH_MESSAGE = ("CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.11 GiB "
                 "of which 3.19 MiB is free.")

TINY = ["--batches", "2", "8", "--number", "1", "--repeat", "1", "--points", "50", "--orders", "2", "3",
        "--taylor-orders", "4", "30", "--dims", "3", "--laplacian-batch", "8", "--overhead-steps", "10",
        "--overhead-size", "20", "--memory-steps", "3", "--no-torch"]


class OutOfMemoryError(Exception):
    """Named as cupy.cuda.memory.OutOfMemoryError (and not a MemoryError: matched by name)."""


class CUDARuntimeError(RuntimeError):
    """Named as CuPy's runtime error."""


DEZERO_FILES = {
    "__init__.py": '''
        """A stand-in for the part of DeZero's API benchmarks/gpu.py uses, built on gengrad."""
        __version__ = "0.0-test"
        from dezero import functions, models, optimizers  # noqa: F401
    ''',
    "functions.py": '''
        from function import linear, sigmoid, softmax_cross_entropy  # noqa: F401
    ''',
    "optimizers.py": '''
        from optimizers import SGD  # noqa: F401
    ''',
    "models.py": '''
        import numpy as np

        import function as F
        import layers as L


        class Linear(L.Layer):
            """DeZero's Linear, its W set before the first call (here a placeholder until then)."""

            def __init__(self, out_size):
                super().__init__()
                self.W = L.Parameter(np.zeros((1, out_size), np.float32))
                self.b = L.Parameter(np.zeros(out_size, np.float32))

            def forward(self, x):
                return F.linear(x, self.W, self.b)


        class MLP(L.Layer):
            def __init__(self, fc_output_sizes, activation=F.sigmoid):
                super().__init__()
                self.activation = activation
                self.depth = len(fc_output_sizes)
                for i, size in enumerate(fc_output_sizes):
                    setattr(self, f"l{i}", Linear(size))

            @property
            def layers(self):
                return [getattr(self, f"l{i}") for i in range(self.depth)]

            def forward(self, x):
                for layer in self.layers[:-1]:
                    x = self.activation(layer(x))
                return self.layers[-1](x)
    ''',
}


def _dezero_modules():
    return {name: module for name, module in sys.modules.items()
            if name == "dezero" or name.startswith("dezero.")}


@pytest.fixture
def clean_dezero(monkeypatch):
    """sys.path, sys.modules' dezero entries and $GENGRAD_DEZERO_PATH restored after the test."""
    monkeypatch.setattr(sys, "path", list(sys.path))   # main puts --dezero's folder first
    monkeypatch.delenv(gpu_benchmark.DEZERO_ENV, raising=False)
    saved = _dezero_modules()
    for name in saved:
        del sys.modules[name]
    yield
    for name in _dezero_modules():
        del sys.modules[name]
    sys.modules.update(saved)


@pytest.fixture
def fake_dezero(tmp_path, clean_dezero):
    """A folder holding a stand-in `dezero` package."""
    package = tmp_path / "dezero"
    package.mkdir()
    for name, text in DEZERO_FILES.items():
        (package / name).write_text(textwrap.dedent(text).lstrip())
    return tmp_path


def test_out_of_memory_errors_are_told_from_others():
    assert gpu_benchmark.is_out_of_memory(OutOfMemoryError(CUPY_MESSAGE))
    assert gpu_benchmark.is_out_of_memory(MemoryError())
    assert gpu_benchmark.is_out_of_memory(type("OutOfMemoryError", (RuntimeError,), {})(TORCH_MESSAGE))
    assert gpu_benchmark.is_out_of_memory(CUDARuntimeError("cudaErrorMemoryAllocation: out of memory"))
    assert not gpu_benchmark.is_out_of_memory(CUDARuntimeError("cudaErrorIllegalAddress"))
    assert not gpu_benchmark.is_out_of_memory(ValueError("out of memory"))


def test_does_not_fit_reads_the_bytes_asked_for():
    cupy = str(gpu_benchmark.DoesNotFit(OutOfMemoryError(CUPY_MESSAGE)))
    assert cupy.startswith("does not fit: asked for 8,000,000 bytes (7.6 MiB)")
    assert "80,079,937,024 bytes (74.6 GiB) allocated so far" in cupy
    torch = str(gpu_benchmark.DoesNotFit(OutOfMemoryError(TORCH_MESSAGE)))
    assert torch == "does not fit: asked for 20.00 MiB"
    assert str(gpu_benchmark.DoesNotFit(MemoryError())) == "does not fit (MemoryError)"
    assert str(gpu_benchmark.DoesNotFit(MemoryError("no\n room"))) == "does not fit (MemoryError: no room)"


class _Pool:
    def __init__(self):
        self.freed = 0

    def free_all_blocks(self):
        self.freed += 1


def test_guard_frees_memory_after_a_case_and_lets_other_errors_through():
    pool = _Pool()
    xp = type("xp", (), {"get_default_memory_pool": staticmethod(lambda: pool)})
    guard = gpu_benchmark.Guard(xp)

    def too_big():
        held = bytearray(1000)  # noqa: F841 - freed with the frame
        raise OutOfMemoryError(CUPY_MESSAGE)

    result = guard(too_big)
    assert not gpu_benchmark.fits(result) and "8,000,000 bytes" in str(result) and pool.freed == 1
    assert guard(lambda: 3.0) == 3.0 and pool.freed == 2
    with pytest.raises(ValueError, match="a real bug"):
        guard(lambda: (_ for _ in ()).throw(ValueError("a real bug")))


def test_gpu_benchmark_goes_on_past_a_case_that_does_not_fit(capsys, gpu, monkeypatch, fake_dezero):
    """Batch 8's gengrad step and the nested 3rd derivative run out of memory: each row says
    so with the bytes asked for, and every later case still runs (DeZero's step at batch 8,
    Taylor mode at order 3, the overhead chain, the memory run)."""
    real_step, real_nested = gpu_benchmark.GengradGpuStep, gpu_benchmark.tanh_nth_gengrad

    def step(weights, x, t):
        if len(x) == 8:
            raise OutOfMemoryError(CUPY_MESSAGE)
        return real_step(weights, x, t)

    def nested(x, n):
        if n == 3:
            raise OutOfMemoryError(CUPY_MESSAGE)
        return real_nested(x, n)

    monkeypatch.setattr(gpu_benchmark, "GengradGpuStep", step)
    monkeypatch.setattr(gpu_benchmark, "tanh_nth_gengrad", nested)
    assert gpu_benchmark.main(TINY + ["--dezero", str(fake_dezero)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("device: fake GPU (CPU stand-in")
    assert lines[1].startswith("PyTorch") and ("not installed" in lines[1] or "(--no-torch)" in lines[1])
    assert lines[2].startswith("DeZero 0.0-test: from ")
    fits_row = next(line for line in lines if line.startswith("  batch     2"))
    assert "does not fit" not in fits_row and "dezero " in fits_row and "gengrad/dezero" in fits_row
    oom_row = next(line for line in lines if line.startswith("  batch     8"))
    assert "gengrad [does not fit: asked for 8,000,000 bytes (7.6 MiB) with 80,079,937,024 bytes" in oom_row
    assert "dezero [" not in oom_row and "gengrad/dezero -" in oom_row      # DeZero still ran
    n2 = next(line for line in lines if line.startswith("  n= 2"))
    n3 = next(line for line in lines if line.startswith("  n= 3"))
    assert "does not fit" not in n2
    assert "nested grad [does not fit: asked for 8,000,000 bytes" in n3 and "Taylor mode [" not in n3
    later = lines[lines.index(n3) + 1:]
    assert later[0].startswith("nth derivative of tanh on 50 points on the GPU by Taylor mode alone")
    for order, line in zip((4, 30), later[1:3]):
        assert line.startswith(f"  n={order:2d}  V.taylor float32 ") and "nth_derivative float64 " in line
        assert "does not fit" not in line and " - " not in line
    later = later[3:]
    assert later[0].startswith("Laplacian of an MLP R^3 -> R (3 tanh layers of 64) at 8 float32 points")
    assert later[1].startswith("  Laplacian ") and later[2].startswith("  step ")
    assert "does not fit" not in later[1] + later[2] and "V.laplacian/torch -" in later[2]
    assert "  no graph " in later[1] and "no graph/torch -" in later[1] and "no graph" not in later[2]
    assert later[3].startswith("op overhead on the GPU") and "CuPy forward only (the floor)" in later[4]
    assert "does not fit" not in later[4]
    assert later[5].startswith("device memory in use over 3 MLP steps") and "not measured" in later[6]


def test_gpu_benchmark_without_dezero_says_how_to_give_it(capsys, gpu, tmp_path, clean_dezero):
    if importlib.util.find_spec("dezero") is not None:
        pytest.skip("a dezero package is importable here")
    argv = ["--batches", "2", "--number", "1", "--repeat", "1", "--points", "20", "--orders", "2",
            "--dims", "2", "--laplacian-batch", "4", "--overhead-steps", "2", "--overhead-size", "4",
            "--memory-steps", "1", "--no-torch"]
    assert gpu_benchmark.main(argv) == 0
    out = capsys.readouterr().out
    assert "DeZero: not importable" in out and "--dezero PATH" in out and "GENGRAD_DEZERO_PATH" in out
    assert "gengrad/dezero" not in out
    assert gpu_benchmark.main(argv + ["--dezero", str(tmp_path)]) == 0
    assert f"DeZero: {tmp_path} holds no dezero package" in capsys.readouterr().out


def test_gpu_benchmark_without_cupy_says_so(capsys, monkeypatch):
    def missing(op):
        raise ModuleNotFoundError(f"{op}: CuPy is not installed")

    monkeypatch.setattr(gpu_benchmark.backend, "gpu_module", missing)
    assert gpu_benchmark.main([]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "GPU benchmarks not run: benchmarks --device gpu: CuPy is not installed\n"


def test_run_all_passes_quick_and_dezero_to_the_gpu_benchmark(monkeypatch):
    seen = []
    monkeypatch.setattr(run_all.gpu, "main", lambda argv: seen.append(argv) or 0)
    assert run_all.main(["--device", "gpu", "--quick", "--dezero", "/somewhere"]) == 0
    assert run_all.main(["--device", "gpu"]) == 0
    assert seen[0][-2:] == ["--dezero", "/somewhere"] and "--orders" in seen[0]
    assert seen[1] == []


def test_running_out_of_memory_inside_the_engine_leaves_later_cases_right(capsys, gpu, monkeypatch):
    """The stand-in raises CuPy's error on a device allocation halfway through the nested
    derivative of order 3 (inside gengrad's backward): that row does not fit, and the later
    cases, each checked against another method or NumPy before timing, still agree."""
    device_array, made = gpu.ndarray, {"count": 0, "raise at": None}
    real_init, real_nested = device_array.__init__, gpu_benchmark.tanh_nth_gengrad

    def init(self, a):
        made["count"] += 1
        if made["count"] == made["raise at"]:
            raise OutOfMemoryError(CUPY_MESSAGE)
        real_init(self, a)

    def nested(x, n):
        made["count"] = 0
        return real_nested(x, n)

    monkeypatch.setattr(device_array, "__init__", init)
    nested(gpu.linspace(-2, 2, 30), 3)
    made["raise at"] = made["count"] // 2             # halfway through one nested order-3 call
    assert made["raise at"] >= 5
    monkeypatch.setattr(gpu_benchmark, "tanh_nth_gengrad",
                        lambda x, n: nested(x, n) if n == 3 else real_nested(x, n))
    argv = ["--batches", "2", "--number", "1", "--repeat", "1", "--points", "30", "--orders", "3", "4",
            "--dims", "2", "--laplacian-batch", "4", "--overhead-steps", "10", "--overhead-size", "20",
            "--memory-steps", "1", "--no-torch"]
    assert gpu_benchmark.main(argv) == 0
    out = capsys.readouterr().out
    assert "n= 3  nested grad [does not fit: asked for 8,000,000 bytes" in out
    n4 = next(line for line in out.splitlines() if line.startswith("  n= 4"))
    assert "does not fit" not in n4 and "gengrad fwd+bwd" in out


def test_gpu_check_script_runs_its_steps_under_their_limits(tmp_path):
    """benchmarks/gpu_check.sh (make gpu-check) on the stand-in, every limit a few seconds: each
    step runs and is logged under $OUT whatever the one before gave, the suite step is given
    exactly conftest's DEVICE_READY files, and a step stopped at its limit says so."""
    import ast
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    tree = ast.parse((root / "tests" / "conftest.py").read_text())   # (`conftest` may be another one)
    ready = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                        and getattr(node.targets[0], "id", "") == "DEVICE_READY")
    env = dict(os.environ, OUT=str(tmp_path), PYTHON=sys.executable, GPU_CHECK_DEVICE="fake",
               GPU_CHECK_FIRST="2", GPU_CHECK_BENCH="20", GPU_CHECK_SUITE="2", GPU_CHECK_WORKERS="0")
    done = subprocess.run(["bash", str(root / "benchmarks" / "gpu_check.sh")], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = (tmp_path / "summary.txt").read_text().splitlines()
    assert [line.split()[0] for line in summary] == ["machine", "first-failures", "benchmark", "suite"]
    assert summary[3].split()[1] in ("exit=124", "exit=137")   # 2 s: stopped at its limit (SIGINT, or KILL)
    assert "stopped at its limit" in done.stdout
    if importlib.util.find_spec("cupy") is None:
        assert "cupy not importable" in (tmp_path / "machine.log").read_text()
        assert "GPU benchmarks not run" in (tmp_path / "benchmark.log").read_text()
    suite_line = next(line for line in done.stdout.splitlines() if line.startswith("== suite (limit"))
    assert suite_line.split()[-len(ready):] == ["tests/" + path for path in ready]
