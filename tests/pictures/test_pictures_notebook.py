"""Inline in Jupyter: what a Variable and a recording give IPython's display protocol.

IPython calls `_repr_mimebundle_`, `_repr_html_` and `_repr_svg_` when a cell ends with an
object; the answers must be well-formed SVG and HTML, text when Graphviz is missing or
fails, and never an exception.  gengrad imports no Jupyter package to give them.
"""

import ast
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from picture_scenes import Outline, diamond, diamond_recording, needs_dot, without_dot

import variable as V
from pictures import notebook

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


@needs_dot
def test_a_variable_shows_its_value_and_its_graph_as_svg_and_html():
    x, y = diamond()
    svg = ET.fromstring(y._repr_svg_())
    assert svg.tag == f"{SVG}svg"
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    for op in ("Square", "Exp", "Sin", "Add"):
        assert op in texts
    html = y._repr_html_()
    outline = Outline(html)
    assert outline.errors == []
    pre = outline.find("pre")[0]
    assert outline.text_of(pre) == repr(y)
    assert len(outline.find("svg")) == 1
    bundle = y._repr_mimebundle_()
    assert bundle["text/plain"] == repr(y)
    assert set(bundle) == {"text/plain", "text/html", "image/svg+xml"}
    ET.fromstring(bundle["image/svg+xml"])
    first, second = ET.fromstring(y._repr_svg_()), ET.fromstring(y._repr_svg_())
    assert first.find(f"{SVG}g").get("id") != second.find(f"{SVG}g").get("id")   # unique in a notebook


def test_without_graphviz_a_variable_shows_its_graph_as_text(monkeypatch):
    without_dot(monkeypatch)
    x, y = diamond()
    assert y._repr_svg_() is None                        # IPython then shows the other formats
    outline = Outline(y._repr_html_())
    assert outline.errors == [] and outline.find("svg") == []
    listing = outline.text_of(outline.find("pre")[1])
    assert listing.startswith("graph of y: 4 ops") and "= Square(x)" in listing
    assert set(y._repr_mimebundle_()) == {"text/plain", "text/html"}


def test_when_dot_fails_the_text_stands_in_without_an_exception(tmp_path, monkeypatch):
    broken = tmp_path / "dot"
    broken.write_text("#!/bin/sh\necho 'dot: broken on purpose' >&2\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    x, y = diamond()
    assert y._repr_svg_() is None
    assert "graph of y" in y._repr_html_()
    assert "image/svg+xml" not in y._repr_mimebundle_()


def test_a_leaf_shows_its_value_only_and_a_big_graph_says_how_to_draw_it():
    x = V.Variable(np.array([1.0, 2.0]))
    assert x._repr_svg_() is None and x._repr_html_() is None
    assert x._repr_mimebundle_() == {"text/plain": "variable([1. 2.])"}
    y = x
    for _ in range(notebook.INLINE_LIMIT + 1):
        y = V.sin(y)
    assert y._repr_svg_() is None
    html = y._repr_html_()
    assert f"{notebook.INLINE_LIMIT + 1} ops, too many to draw inline" in html and Outline(html).errors == []


def test_a_recording_shows_the_page_and_its_table():
    steps = diamond_recording()
    bundle = steps._repr_mimebundle_()
    assert bundle["text/plain"] == str(steps)
    outline = Outline(bundle["text/html"])
    assert outline.errors == []
    assert len(outline.find("figure", class_="frame")) == 5
    first, second = (Outline(steps._repr_html_()) for _ in range(2))
    assert first.elements[0][1]["id"] != second.elements[0][1]["id"]   # two displays, two ids
    assert first.elements[0][1]["id"] in first.text_of(first.find("script")[0])


def test_a_long_recording_shows_its_table_only(monkeypatch):
    monkeypatch.setattr(notebook, "FRAME_LIMIT", 3)
    steps = diamond_recording()
    html = steps._repr_html_()
    assert "too many to draw inline" in html and "Square-&gt;a" in html and "<figure" not in html


def test_importing_gengrad_imports_no_picture_and_no_engine_module_imports_the_pictures():
    code = ("import sys, numpy as np, variable as V, function, layers, optimizers\n"
            "print('pictures' in sys.modules)\n"
            "V.sin(V.Variable(np.ones(2)))._repr_mimebundle_()\n"
            "print('pictures' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]      # imported on first display, not before
    for path in (ROOT / "variable").rglob("*.py"):
        for node in ast.parse(path.read_text()).body:   # module level: what runs at import
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] == "pictures" for n in names), path


def test_the_display_methods_live_on_the_class_and_add_no_state():
    x = V.Variable(np.ones(2))
    assert "_repr_html_" not in dir(type(x).__slots__)
    assert {"_repr_mimebundle_", "_repr_html_", "_repr_svg_"} <= set(vars(V.Variable))
    assert not hasattr(x, "__dict__")                    # still slotted: no per-Variable cost
