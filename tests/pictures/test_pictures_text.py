"""The text views: a graph as a listing (no Graphviz needed) and the table of a recorded backward."""

import numpy as np
import pytest
from picture_scenes import diamond, diamond_recording, second_derivative_recording, without_dot

import pictures
import variable as V


def test_graph_text_lists_every_variable_how_it_was_made_its_shape_and_values(monkeypatch):
    without_dot(monkeypatch)                                    # needs nothing installed
    x, y = diamond()
    lines = pictures.graph_text(y).splitlines()
    assert lines[0] == "graph of y: 4 ops, 5 variables"
    rows = [line.split() for line in lines[1:]]
    assert [r[0] for r in rows] == ["x", "a", "b", "c", "y"]   # leaves first, then in the order run
    assert rows[0][1:] == ["leaf", "()", "float64", "0.5"]
    assert rows[1][1:] == ["=", "Square(x)", "()", "float64", "0.25"]
    assert rows[4][1:4] == ["=", "Add(c,", "a)"]
    assert float(rows[4][-1]) == pytest.approx(float(y.data), rel=1e-3)


def test_graph_text_shows_constants_big_arrays_several_outputs_and_same_names():
    x = V.Variable(np.arange(20.0).reshape(4, 5), name="w")
    first, second = V.split(x, 2)
    y = first * 2.0 + second
    other = V.Variable(np.array([1.0, 2.0]), name="w")          # a second Variable named w
    z = [y.sum() * other]
    rows = {line.split()[0]: line for line in pictures.graph_text(z).splitlines()[1:]}
    assert rows["w[v1]"].split()[1:] == ["leaf", "(4,", "5)", "float64"]   # 20 entries: no values
    assert rows["w[v8]"].split()[1:] == ["leaf", "(2,)", "float64", "[1,", "2]"]   # two w's told apart
    assert rows["v4"].split()[1:] == ["constant", "()", "float64", "2"]            # the 2.0 of `* 2.0`
    assert "= Split(w[v1])[0]" in rows["v2"] and "= Split(w[v1])[1]" in rows["v3"]
    assert rows["v9"].split()[1:4] == ["=", "Mul(v7,", "w[v8])"]


def test_graph_text_refuses_what_is_not_a_variable():
    with pytest.raises(TypeError, match="expected Variables"):
        pictures.graph_text(np.ones(2))


def test_the_table_has_a_row_per_step_the_sums_and_the_final_gradients():
    steps = diamond_recording()
    lines = str(steps).splitlines()
    assert lines[0] == "pass 1: backward(), create_graph=False"
    header, start, *rows = lines[1:7]
    assert header.split()[:4] == ["step", "popped", "gen", "gradients"]
    assert start.split()[:4] == ["0", "(start)", "y", "<-"]
    assert [r.split()[1] for r in rows] == ["Add->y", "Sin->c", "Exp->b", "Square->a"]
    assert "c <- 1; a <- 1" in rows[0] and "Sin->c (2), Square->a (0)" in rows[0]
    assert "a += 0.3632 (= 1.363)" in rows[2]
    assert rows[3].rstrip().endswith("(empty)")
    assert lines[7].strip() == f"gradients at the end: x = {float(steps.passes[0].gradients[0].values):.4g}"


def test_a_table_with_create_graph_names_the_ops_each_step_recorded():
    steps = second_derivative_recording()
    text = steps.table()
    first, second = text.split("\n\n")[:2]
    assert first.startswith("pass 1: V.grad(...), create_graph=True")
    assert "recorded by create_graph" in first.splitlines()[1]
    assert "Mul, Mul" in first.splitlines()[3]                  # Mul's backward: gy * s and gy * x
    assert second.startswith("pass 2: backward(), create_graph=False")
    assert "recorded by create_graph" not in second
