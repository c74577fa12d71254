"""One picture per step: the DOT text of each frame, and the files with and without Graphviz."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from picture_scenes import diamond_recording, needs_dot, second_derivative_recording, without_dot

import variable as V
from pictures.frames import COLORS, frame_dot, popped_id

SVG = "{http://www.w3.org/2000/svg}"


def attributes(dot, node):
    """{attribute: value} of the DOT statement that declares `node` (a node id or "a -> b")."""
    match = re.search(rf"^  {re.escape(node)} \[(.*)\];$", dot, re.M)
    assert match, f"{node} is not in the frame"
    return dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(1)))


def ids(p):
    """{title: node id} of the Functions, {label: node id} of the Variables of pass `p`."""
    return ({f.title: f.id for f in p.functions.values()}, {v.label: v.id for v in p.variables.values()})


def test_a_frame_highlights_the_popped_op_marks_the_queue_and_writes_gradients_on_edges():
    steps = diamond_recording()
    p = steps.passes[0]
    functions, variables = ids(p)
    dot = frame_dot(p, 3)                                        # step 3: Exp popped, a gets its sum
    exp = attributes(dot, functions["Exp->b"])
    assert exp["fillcolor"] == COLORS["popped"]
    assert exp["id"] == popped_id(p, 3) == f"p1s3_{functions['Exp->b']}"
    assert exp["label"] == r"Exp\ngen 1"
    square = attributes(dot, functions["Square->a"])
    assert square["fillcolor"] == COLORS["queued"] and square["xlabel"] == "queue #1"
    assert attributes(dot, functions["Add->y"])["fillcolor"] == COLORS["done"]
    now = attributes(dot, f"{variables['a']} -> {functions['Exp->b']}")
    assert now["xlabel"] == r"+= 0.3632\n= 1.363"
    assert now["color"] == COLORS["gradient"] and now["dir"] == "back"
    before = attributes(dot, f"{variables['b']} -> {functions['Sin->c']}")   # sent at step 2
    assert before["xlabel"] == "0.2829" and before["color"] == COLORS["earlier"]
    assert "xlabel" not in attributes(dot, f"{variables['x']} -> {functions['Square->a']}")   # not yet


def test_the_first_frame_shows_the_seed_and_the_last_the_leaf_gradients():
    steps = diamond_recording()
    p = steps.passes[0]
    functions, variables = ids(p)
    first = frame_dot(p, 0)
    assert attributes(first, variables["y"])["xlabel"] == "seed 1"
    assert attributes(first, functions["Add->y"])["xlabel"] == "queue #1"
    assert COLORS["popped"] not in first
    last = frame_dot(p, 4)
    x = attributes(last, variables["x"])
    assert x["xlabel"] == f"grad = {float(p.gradients[0].values):.4g}" and x["fontcolor"] == COLORS["final"]
    assert "grad =" not in frame_dot(p, 3)


def test_ops_recorded_by_create_graph_appear_at_their_step_and_the_layout_keeps_them():
    steps = second_derivative_recording()
    p = steps.passes[0]
    recorded_at = {i: s.number for s in p.steps for i in s.recorded}
    assert recorded_at
    for step in range(len(p.steps) + 1):
        dot = frame_dot(p, step)
        for i, when in recorded_at.items():
            style = attributes(dot, i)["style"]
            assert (style == "invis") == (when > step)            # drawn hidden until it exists
            if when <= step:
                assert attributes(dot, i)["fillcolor"] == COLORS["recorded"]


def test_ops_that_grad_does_not_visit_are_dashed():
    x = V.Variable(np.array(0.3), name="x")
    z = V.Variable(np.array(0.7), name="z")
    y = V.sin(x) * V.exp(z)
    with V.record_backward() as steps:
        V.grad(y, x)
    p = steps.passes[0]
    functions, _ = ids(p)
    assert [s.function.name for s in steps] == ["Mul", "Sin"]
    exp = attributes(frame_dot(p, 1), next(i for t, i in functions.items() if t.startswith("Exp")))
    assert exp["style"] == "dashed,rounded" and exp["fillcolor"] == "white"


@needs_dot
def test_frames_are_written_as_dot_svg_and_png(tmp_path):
    steps = diamond_recording()
    paths = steps.write_frames(str(tmp_path / "frames"))
    names = sorted(p.rsplit("/", 1)[1] for p in paths)
    assert names == sorted(f"step_{k:02d}.{ext}" for k in range(5) for ext in ("dot", "svg", "png"))
    assert (tmp_path / "frames" / "step_02.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = ET.parse(tmp_path / "frames" / "step_03.svg").getroot()
    assert svg.tag == f"{SVG}svg"
    popped = [g for g in svg.iter(f"{SVG}g") if g.get("id") == popped_id(steps.passes[0], 3)]
    assert len(popped) == 1
    assert [t.text for t in popped[0].iter(f"{SVG}text")] == ["Exp", "gen 1"]
    assert popped[0].find(f"{SVG}path").get("fill") == COLORS["popped"]


def test_without_graphviz_the_frames_are_dot_files_and_a_warning_says_how_to_render(tmp_path, monkeypatch):
    without_dot(monkeypatch)
    steps = second_derivative_recording()
    with pytest.warns(UserWarning, match=r"Graphviz's `dot` is not on PATH.*dot -Tsvg -O"):
        paths = steps.write_frames(str(tmp_path))
    assert all(p.endswith(".dot") for p in paths)
    first, second = steps.passes
    assert len(paths) == len(first.steps) + len(second.steps) + 2
    assert (tmp_path / "pass2_step_00.dot").read_text().startswith('digraph "p2s0"')
