"""examples/demo.py (what `make demo` runs): as a script, and in-process into tmp_path.

The script test runs `python examples/demo.py` with its defaults from the repository root in
a fresh interpreter with no PYTHONPATH, as `make demo` does, so it also proves the demo finds
the packages without pytest's path setup.  The in-process test runs a shorter demo (2 epochs,
800 steps of the physics-informed network) without Graphviz and matplotlib.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from examples import demo

ROOT = Path(__file__).resolve().parents[2]
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"


def numbers(line):
    """Every number on a printed line, in order."""
    return [float(s) for s in re.findall(NUMBER, line)]


def line_with(out, text):
    """The first printed line containing `text`."""
    return next(line for line in out.splitlines() if text in line)


def check_output(out, out_dir, epochs):
    """The derivatives are right, there is one progress line per epoch, the files exist."""
    x = np.pi / 4
    assert numbers(line_with(out, "y = sin(x)  "))[-1] == pytest.approx(np.sin(x), abs=1e-6)
    auto, exact = numbers(line_with(out, "dy/dx   (backward)"))
    assert auto == pytest.approx(np.cos(x), abs=1e-6) and exact == pytest.approx(np.cos(x), abs=1e-6)
    *_, auto2, exact2 = numbers(line_with(out, "d2y/dx2 (double backprop)"))
    assert auto2 == pytest.approx(-np.sin(x), abs=1e-6) and exact2 == pytest.approx(-np.sin(x), abs=1e-6)

    assert "against nested reverse mode: largest relative difference" in out   # step 5 ran
    assert numbers(line_with(out, "error against the exact solution"))[-2] < 0.2  # step 6 learned u
    epochs_seen = [int(m) for m in re.findall(rf"^epoch +(\d+)/{epochs} ", out, re.M)]
    assert epochs_seen == list(range(1, epochs + 1))

    assert numbers(line_with(out, "x.grad = "))[0] == pytest.approx(1.363195, abs=1e-6)   # step 7
    assert (out_dir / "order_matters.html").read_text().startswith("<!DOCTYPE html>")
    assert (out_dir / "second_derivative" / "pass2_step_00.dot").exists()
    dot = (out_dir / "sin_grad.dot").read_text()
    assert dot.startswith("digraph") and "Cos" in dot and "dy/dx" in dot
    if shutil.which("dot"):
        assert (out_dir / "sin_grad.png").read_bytes()[:4] == b"\x89PNG"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    figures = ("tanh_derivatives.png", "spiral_boundary.png", "taylor_polynomials.png", "time_per_order.png")
    for name in figures:
        assert (out_dir / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (out_dir / name).stat().st_size < 150_000


def test_demo_without_graphviz_or_matplotlib_still_runs(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert demo.main(["--out", str(tmp_path), "--epochs", "2", "--pinn-steps", "800",
                      "--pinn-lbfgs", "5"]) == 0
    out = capsys.readouterr().out
    assert "Graphviz 'dot' not found" in out
    assert out.count("matplotlib is not installed") == 4           # tanh, spiral, Taylor, PINN figures
    check_output(out, tmp_path, 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "order_matters", "order_matters.html", "second_derivative", "second_derivative.html", "sin_grad.dot"]


def test_demo_runs_as_a_script_from_the_repository_root_and_writes_everything(tmp_path):
    """`make demo` as it runs: its defaults (50 epochs), from the root, no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "examples/demo.py", "--out", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    check_output(result.stdout, tmp_path, 50)
    assert numbers(line_with(result.stdout, "training accuracy after 50 epochs"))[-1] >= 0.95
    assert result.stdout.rstrip().endswith(f"done: everything is in {tmp_path}/")
