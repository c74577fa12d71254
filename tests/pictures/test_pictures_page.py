"""The HTML page of a recorded backward, read with html.parser: for machines without a browser
(tests/pictures/test_pictures_browser.py clicks through it in Chromium)."""

import dataclasses
import re

import pytest
from picture_scenes import Outline, diamond_recording, needs_dot, second_derivative_recording, without_dot

from pictures.frames import popped_id
from pictures.page import page


def read_page(steps, tmp_path):
    path = steps.write_html(str(tmp_path / "steps.html"), "the diamond")
    text = open(path, encoding="utf-8").read()
    outline = Outline(text)
    assert outline.errors == []                                   # every tag closed, well nested
    return text, outline


def frames_and_rows(outline):
    frames = outline.find("figure", class_="frame")
    rows = outline.find("tbody", class_="row")
    return frames, rows


def check_every_step_is_there(steps, outline):
    """A figure and a table row for the start of each pass and for each of its steps, in order,
    only the first shown; each row names the op its step popped."""
    frames, rows = frames_and_rows(outline)
    expected = [(p.number, k) for p in steps.passes for k in range(len(p.steps) + 1)]
    assert [(int(outline.elements[i][1]["data-pass"]), int(outline.elements[i][1]["data-step"]))
            for i in frames] == expected
    assert len(rows) == len(frames)
    assert ["hidden" in outline.elements[i][1] for i in frames] == [False] + [True] * (len(frames) - 1)
    assert ["hidden" in outline.elements[i][1] for i in rows] == [False] + [True] * (len(rows) - 1)
    for (pass_number, step), frame, row in zip(expected, frames, rows):
        p = steps.passes[pass_number - 1]
        op = p.steps[step - 1].title if step else "(start)"
        assert outline.elements[frame][1]["data-op"] == op
        popped_cell, = [j for j in outline.inside(row) if outline.elements[j][1].get("class") == "popped"]
        assert outline.text_of(popped_cell) == op
    slider, = outline.find("input", class_="slider")
    assert outline.elements[slider][1]["max"] == str(len(frames) - 1)
    assert outline.find("button", class_="next") and outline.find("button", class_="previous")


def check_self_contained(text, outline):
    """Nothing to fetch: no src or href anywhere, no <link>, the script inline."""
    assert not [e for e in outline.elements if "src" in e[1] or "href" in e[1] or e[0] == "link"]
    assert not re.search(r"https?://(?!www\.w3\.org/)", text)       # (the SVG namespaces only)
    script, = outline.find("script")
    assert "addEventListener" in outline.text_of(script)


@needs_dot
def test_the_page_holds_every_step_as_inline_svg_with_the_popped_op_marked(tmp_path):
    steps = diamond_recording()
    text, outline = read_page(steps, tmp_path)
    check_every_step_is_there(steps, outline)
    check_self_contained(text, outline)
    p = steps.passes[0]
    frames, _ = frames_and_rows(outline)
    for step, frame in enumerate(frames):
        inner = outline.inside(frame)
        assert [outline.elements[j][0] for j in inner].count("svg") == 1
        if step:
            popped, = [j for j in inner if outline.elements[j][1].get("id") == popped_id(p, step)]
            assert p.steps[step - 1].function.name in outline.text_of(popped)
    ids = [e[1]["id"] for e in outline.elements if "id" in e[1]]
    assert len(ids) == len(set(ids))                              # ids unique across the frames


def test_without_graphviz_the_page_shows_each_step_as_text(tmp_path, monkeypatch):
    without_dot(monkeypatch)
    steps = second_derivative_recording()
    text, outline = read_page(steps, tmp_path)
    check_every_step_is_there(steps, outline)
    check_self_contained(text, outline)
    assert "<svg" not in text
    frames, _ = frames_and_rows(outline)
    assert len(frames) == 2 + sum(len(p.steps) for p in steps.passes)
    last = outline.text_of(frames[-1])
    assert "gradients at the end: x = " in last and "pass 2, step" in last


def test_a_recording_of_nothing_says_what_to_do():
    from pictures import BackwardRecording

    html = page(BackwardRecording())
    assert "No backward pass was recorded" in html and Outline(html).errors == []


@pytest.mark.parametrize("title", ['<script>alert("x")</script>'])
def test_titles_and_names_are_escaped(tmp_path, title, monkeypatch):
    without_dot(monkeypatch)
    steps = diamond_recording()
    steps.passes[0].steps[0] = dataclasses.replace(steps.passes[0].steps[0], title="<b>&")
    html = page(steps, title)
    assert "<script>alert" not in html and "&lt;b&gt;&amp;" in html
    assert Outline(html).errors == []
