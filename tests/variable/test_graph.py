"""Drawing the graph: DOT text, and rendering it with Graphviz."""

import shutil
import warnings

import numpy as np
import pytest

import variable as V

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def small_graph():
    """y = sin(x) * w + x, with names on the leaves and the output."""
    x = V.Variable(np.ones((2, 3)), name="x")
    w = V.Variable(np.ones(3), name="w")
    y = V.sin(x) * w + x
    y.name = "y"
    return x, w, y


def test_dot_graph_names_ops_variables_and_shapes():
    x, w, y = small_graph()
    dot = V.get_dot_graph(y)
    assert dot.startswith("digraph")
    for op in ("Sin", "Mul", "Add"):
        assert f'label="{op}"' in dot
    assert "x: (2, 3) float64" in dot
    assert "w: (3,) float64" in dot
    assert "y: (2, 3) float64" in dot
    assert f"{id(x)} -> {id(y.creator)}" in dot       # x feeds the Add directly
    assert dot.count(f"{id(x)} [") == 1               # each variable drawn once


def test_dot_graph_without_verbose_shows_names_only():
    _, _, y = small_graph()
    dot = V.get_dot_graph(y, verbose=False)
    assert 'label="x"' in dot and 'label="w"' in dot
    assert "(2, 3)" not in dot


def test_dot_graph_of_a_leaf_and_of_several_outputs():
    x = V.Variable(1.0, name="x")
    assert 'label="x: () float64"' in V.get_dot_graph(x)
    a, b = V.sin(x), V.cos(x)
    dot = V.get_dot_graph([a, b])
    assert 'label="Sin"' in dot and 'label="Cos"' in dot
    with pytest.raises(TypeError, match="get_dot_graph"):
        V.get_dot_graph(np.ones(2))


def test_plot_dot_graph_without_graphviz_writes_the_dot_file_and_goes_on(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    _, _, y = small_graph()
    target = tmp_path / "graph.svg"
    with pytest.warns(UserWarning, match="^plot_dot_graph: Graphviz's `dot` is not on PATH") as caught:
        written = V.plot_dot_graph(y, to_file=str(target))
    assert written == str(tmp_path / "graph.dot") and not target.exists()
    assert (tmp_path / "graph.dot").read_text() == V.get_dot_graph(y)
    message = str(caught[0].message)
    assert "\n" not in message                                  # one line
    assert f"`dot -Tsvg {tmp_path / 'graph.dot'} -o {target}`" in message
    assert "apt-get install graphviz" in message and "pictures.graph_text(y)" in message
    assert caught[0].filename == __file__                        # at the caller's line


@pytest.mark.parametrize("dot_installed", [True, False])
def test_plot_dot_graph_to_a_dot_file_writes_the_text_quietly(monkeypatch, tmp_path, dot_installed):
    if not dot_installed:
        monkeypatch.setattr(shutil, "which", lambda name: None)
    _, _, y = small_graph()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert V.plot_dot_graph(y, to_file=str(tmp_path / "g.dot")) == str(tmp_path / "g.dot")
    assert (tmp_path / "g.dot").read_text() == V.get_dot_graph(y)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_plot_dot_graph_writes_a_png(tmp_path):
    _, _, y = small_graph()
    path = tmp_path / "graph.png"
    assert V.plot_dot_graph(y, to_file=str(path)) == str(path)
    assert path.read_bytes()[:8] == PNG_SIGNATURE


def test_dot_graph_escapes_quotes_in_names():
    x = V.Variable(1.0, name='say "hi"')
    dot = V.get_dot_graph(x, verbose=False)
    assert r'label="say \"hi\""' in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_plot_dot_graph_renders_names_with_quotes(tmp_path):
    x = V.Variable(1.0, name='say "hi"')
    path = tmp_path / "graph.png"
    V.plot_dot_graph(V.sin(x), to_file=str(path))
    assert path.read_bytes()[:8] == PNG_SIGNATURE


def test_graph_functions_lists_each_op_once():
    x = V.Variable(np.array([0.5, 1.0]))
    a = V.sin(x)
    y = a * a + a                       # a feeds three inputs; Sin appears once
    names = sorted(f.name for f in V.graph_functions(y))
    assert names == ["Add", "Mul", "Sin"]
    assert V.graph_functions(x) == []
    with pytest.raises(TypeError, match="graph_functions"):
        V.graph_functions(np.ones(2))
