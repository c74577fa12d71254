"""examples/backward_step_by_step.py: the printed derivatives are right, the stack's mistake is
the one the docstring describes, and the pages and frames are written, with Graphviz or without."""

import re
import shutil

import numpy as np
import pytest

from examples import backward_step_by_step

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"


def numbers(line):
    return [float(s) for s in re.findall(NUMBER, line)]


def line_with(out, text):
    return next(line for line in out.splitlines() if text in line)


def value_after(out, label):
    """The number printed right after `label`."""
    return float(re.search(re.escape(label) + rf"\s*({NUMBER})", out).group(1))


def check_printed(out, x, x2):
    # y = sin(exp(x^2)) + x^2: dy/dx = (cos(e^(x^2)) e^(x^2) + 1) 2x, written out here
    b = np.exp(x * x)
    assert value_after(out, "x.grad = ") == pytest.approx((np.cos(b) * b + 1) * 2 * x, abs=1e-6)
    assert numbers(line_with(out, "a stack would pop Square"))[-1] == pytest.approx(2 * x, abs=1e-6)
    assert "Add->y     3    c <- 1; a <- 1" in out                   # the table: Add first, a gets 1
    assert value_after(out, "dy/dx   = ") == pytest.approx(np.sin(x2) + x2 * np.cos(x2), abs=1e-6)
    second = 2 * np.cos(x2) - x2 * np.sin(x2)
    assert value_after(out, "d2y/dx2 = ") == pytest.approx(second, abs=1e-6)
    assert "pass 1: V.grad(...), create_graph=True" in out and "pass 2: backward(), create_graph=False" in out


def test_the_example_prints_the_right_derivatives_and_writes_pages_and_frames(tmp_path, capsys):
    assert backward_step_by_step.main(["--out", str(tmp_path), "--x", "0.7", "--x2", "0.3"]) == 0
    out = capsys.readouterr().out
    check_printed(out, 0.7, 0.3)
    for stem in ("order_matters", "second_derivative"):
        page = (tmp_path / f"{stem}.html").read_text()
        assert page.startswith("<!DOCTYPE html>") and 'class="next"' in page
    assert len(list((tmp_path / "order_matters").glob("step_*.dot"))) == 5          # start + 4 steps
    assert len(list((tmp_path / "second_derivative").glob("pass*_step_*.dot"))) == 3 + 7
    if shutil.which("dot"):
        assert len(list((tmp_path / "order_matters").glob("*.svg"))) == 5
        assert "<svg" in (tmp_path / "order_matters.html").read_text()


def test_the_example_without_graphviz_writes_dot_text_and_says_so(tmp_path, capsys, monkeypatch, recwarn):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    assert backward_step_by_step.main(["--out", str(tmp_path), "--formats", "png"]) == 0
    out = capsys.readouterr().out
    check_printed(out, 0.5, 1.0)
    assert "Graphviz 'dot' not found" in out
    assert {p.suffix for p in (tmp_path / "second_derivative").iterdir()} == {".dot"}
    assert "<svg" not in (tmp_path / "order_matters.html").read_text()
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]   # the script said it itself
