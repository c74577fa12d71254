"""What Jupyter shows for a Variable and for a recorded backward: IPython's display protocol.

IPython asks an object for `_repr_mimebundle_`, `_repr_html_` or `_repr_svg_` when a cell
ends with it; Variable and BackwardRecording answer with the functions below, so gengrad
needs no Jupyter import.  A Variable made by an op shows its value and, beneath it, the
graph behind it (SVG from Graphviz's `dot`; without `dot`, the text listing of
text.py); a leaf shows its value only.  A recording shows the HTML page of page.py.
Nothing here raises for want of Graphviz or for a graph too big to draw: the text
view, or a line saying how to draw it, stands in.
"""

from __future__ import annotations

import html
import uuid

from variable import Variable, graph_functions

from .frames import graph_dot
from .page import fragment
from .recording import BackwardRecording, graph_of
from .render import have_dot, inline_svg, render
from .text import graph_text, steps_table

INLINE_LIMIT = 150
"""The most ops a graph may have to be drawn inline; a bigger one gets a line saying how."""

FRAME_LIMIT = 120
"""The most frames a recording may have to be drawn inline; a longer one shows its table."""


def _too_big(v: Variable) -> str | None:
    """The line that replaces the graph of `v` when it has more than INLINE_LIMIT ops."""
    n = len(graph_functions(v))
    if n <= INLINE_LIMIT:
        return None
    return (f"the graph behind this Variable has {n} ops, too many to draw inline; "
            f"V.plot_dot_graph(y, to_file='graph.svg') draws it")


def variable_svg(v: Variable) -> str | None:
    """The graph behind `v` as SVG, or None: for a leaf, without `dot`, or when too big."""
    if v.creator is None or not have_dot() or _too_big(v):
        return None
    try:
        prefix = f"gengrad-graph-{uuid.uuid4().hex[:12]}"  # (ids unique in the notebook)
        return inline_svg(render(graph_dot(graph_of(v), prefix), "svg"))
    except RuntimeError:  # dot failed or took too long: the text view stands in
        return None


def variable_html(v: Variable, svg: str | None = None) -> str | None:
    """The value of `v` and the graph behind it as HTML (None for a leaf: its text is enough)."""
    if v.creator is None:
        return None
    too_big = _too_big(v)
    if too_big:
        graph = f"<p>{html.escape(too_big)}</p>"
    else:
        svg = svg or variable_svg(v)
        graph = svg if svg else f"<pre>{html.escape(graph_text(v))}</pre>"
    return f'<div class="gengrad-variable"><pre>{html.escape(repr(v))}</pre>\n{graph}\n</div>'


def variable_bundle(v: Variable) -> dict[str, str]:
    """{mime type: text} for IPython: the repr always, HTML and SVG for a Variable made by an op."""
    bundle = {"text/plain": repr(v)}
    if v.creator is None:
        return bundle
    svg = variable_svg(v)
    if svg is not None:
        bundle["image/svg+xml"] = svg
    bundle["text/html"] = variable_html(v, svg)
    return bundle


def recording_html(recording: BackwardRecording) -> str:
    """The recording as the page's HTML block, or its table when it is too long to draw."""
    frames = sum(len(p.steps) + 1 for p in recording.passes)
    biggest = max((len(p.functions) for p in recording.passes), default=0)
    if frames > FRAME_LIMIT or biggest > INLINE_LIMIT:
        note = (f"{frames} frames of graphs of up to {biggest} ops: too many to draw inline; "
                f"steps.write_html('backward.html') writes the page")
        return f"<p>{html.escape(note)}</p><pre>{html.escape(steps_table(recording))}</pre>"
    return fragment(recording)
