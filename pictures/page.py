"""A recorded backward as one self-contained HTML page: every frame, a slider, and the table.

The page needs no server and no network: the pictures are inline SVG (from Graphviz's
`dot`; without it, each frame is the text view), the style and the script are inline.
A slider and previous/next buttons (or the arrow keys) move through the frames; beside
the picture stands the current step's row of the table.  With the script off, the page
shows frame 0 and the whole table.

The same HTML, less the <html> wrapper, is what Jupyter shows for a recording
(notebook.py); element ids start with the block's own id, so several fit in one page.
"""

from __future__ import annotations

import html
import json
import uuid

from .frames import COLORS, frame_caption, frame_dot, popped_id
from .recording import BackwardRecording, Pass
from .render import have_dot, inline_svg, render
from .text import COLUMNS, final_text, listing, step_cells, steps_table

STYLE = """
.gengrad-steps { font-family: Helvetica, Arial, sans-serif; font-size: 14px; color: #222; }
.gengrad-steps .controls { margin: 0.5em 0; display: flex; gap: 0.6em; align-items: center; }
.gengrad-steps .controls input[type=range] { flex: 1; max-width: 30em; }
.gengrad-steps .position { font-weight: bold; }
.gengrad-steps .body { display: flex; gap: 1.5em; align-items: flex-start; flex-wrap: wrap; }
.gengrad-steps .frames { flex: 3 1 26em; min-width: 0; }
.gengrad-steps .frames svg { max-width: 100%; height: auto; }
.gengrad-steps .frames pre { font-size: 12px; background: #fafafa; padding: 0.6em; overflow-x: auto; }
.gengrad-steps .side { flex: 2 1 20em; }
.gengrad-steps table { border-collapse: collapse; width: 100%; }
.gengrad-steps th, .gengrad-steps td { border: 1px solid #ccc; padding: 0.3em 0.5em;
  text-align: left; vertical-align: top; font-size: 13px; }
.gengrad-steps th { background: #f0f0f0; width: 9em; }
.gengrad-steps .popped { color: POPPED_COLOR; font-weight: bold; }
.gengrad-steps .note { color: #444; }
.gengrad-steps .legend span { display: inline-block; padding: 0 0.4em; margin-right: 0.3em;
  border: 1px solid #999; border-radius: 3px; }
""".replace("POPPED_COLOR", COLORS["popped"])

SCRIPT = """
(function () {
  var root = document.getElementById(ELEMENT_ID);
  var frames = root.querySelectorAll(".frame");
  var rows = root.querySelectorAll("tbody.row");
  var slider = root.querySelector(".slider");
  var position = root.querySelector(".position");
  function show(k) {
    k = Math.max(0, Math.min(frames.length - 1, k));
    for (var i = 0; i < frames.length; i++) {
      frames[i].hidden = i !== k;
      rows[i].hidden = i !== k;
    }
    slider.value = k;
    position.textContent = frames[k].getAttribute("data-title");
    root.setAttribute("data-current", k);
  }
  root.querySelector(".previous").addEventListener("click", function () { show(+slider.value - 1); });
  root.querySelector(".next").addEventListener("click", function () { show(+slider.value + 1); });
  slider.addEventListener("input", function () { show(+slider.value); });
  root.addEventListener("keydown", function (event) {
    if (event.key === "ArrowLeft") { show(+slider.value - 1); }
    if (event.key === "ArrowRight") { show(+slider.value + 1); }
  });
  show(0);
})();
"""


LEGEND = (("popped", "popped now"), ("queued", "in the queue"), ("done", "popped before"),
          ("waiting", "not reached yet"), ("recorded", "recorded by create_graph"))
"""The node colours the page explains (frames.COLORS), and what each means."""


def _frames(recording: BackwardRecording):
    """(pass, step) for every frame of the recording, in order: each pass's start, then its steps."""
    return [(p, k) for p in recording.passes for k in range(len(p.steps) + 1)]


def frame_title(p: Pass, step: int, passes: int) -> str:
    """The position shown above the picture ("step 3 of 4", with the pass when there are several)."""
    where = "start" if step == 0 else f"step {step} of {len(p.steps)}"
    return where if passes == 1 else f"pass {p.number} of {passes}, {where}"


def _picture(p: Pass, step: int, drawn: bool) -> str:
    """Frame `step` of `p`: inline SVG from `dot`, or the text view when it is not installed."""
    if drawn:
        return inline_svg(render(frame_dot(p, step), "svg"))
    cells = step_cells(p, p.steps[step - 1] if step else None)
    lines = [frame_caption(p, step), f"gradients sent: {cells['gradients']}", "", *listing(p)]
    if step == len(p.steps):
        lines += ["", final_text(p)]
    return f"<pre>{html.escape(chr(10).join(lines))}</pre>"


def _row(p: Pass, step: int, names: list[str], passes: int, hidden: bool) -> str:
    """The table row of frame `step` of `p`, one <tr> per column (it stands beside the picture)."""
    cells = step_cells(p, p.steps[step - 1] if step else None)
    note = final_text(p) if step == len(p.steps) else frame_caption(p, step)
    lines = [f'<tbody class="row" data-pass="{p.number}" data-step="{step}"{" hidden" if hidden else ""}>']
    if passes > 1:
        inside = "" if p.inside is None else f", inside pass {p.inside[0]}'s step {p.inside[1]}"
        lines.append(f"<tr><th>pass</th><td>{p.number}: {html.escape(p.kind)}{inside}, "
                     f"create_graph={p.create_graph}</td></tr>")
    for name in names:
        value = html.escape(cells.get(name, ""))
        css = ' class="popped"' if name == "popped" else ""
        lines.append(f"<tr><th>{html.escape(COLUMNS[name])}</th><td{css}>{value}</td></tr>")
    lines.append(f'<tr><td colspan="2" class="note">{html.escape(note)}</td></tr></tbody>')
    return "\n".join(lines)


def fragment(recording: BackwardRecording, element_id: str | None = None) -> str:
    """The page's content (frames, controls, table, style and script) as one <div>, for the
    page and for Jupyter; `element_id` (random when None) must be unique in the document."""
    element_id = element_id or f"gengrad-steps-{uuid.uuid4().hex[:12]}"
    frames = _frames(recording)
    passes = len(recording.passes)
    if not frames:
        return (f'<div class="gengrad-steps" id="{element_id}"><p>No backward pass was recorded: run '
                f"backward() or V.grad(...) inside the <code>with V.record_backward()</code> "
                f"block.</p></div>")
    drawn = have_dot()
    names = [c for c in COLUMNS if c != "recorded" or any(p.create_graph for p in recording.passes)]
    figures, rows = [], []
    for index, (p, step) in enumerate(frames):
        popped = popped_id(p, step) if drawn else None
        op = p.steps[step - 1].title if step else "(start)"
        title = frame_title(p, step, passes)
        figures.append(
            f'<figure class="frame" data-index="{index}" data-pass="{p.number}" data-step="{step}" '
            f'data-op="{html.escape(op)}" data-popped="{popped or ""}" data-title="{html.escape(title)}"'
            f'{"" if index == 0 else " hidden"}>\n{_picture(p, step, drawn)}\n</figure>')
        rows.append(_row(p, step, names, passes, hidden=index > 0))
    legend = "".join(f'<span style="background:{COLORS[k]};{" color:white;" if k == "popped" else ""}">'
                     f"{label}</span>" for k, label in LEGEND)
    return "\n".join([
        f'<div class="gengrad-steps" id="{element_id}" tabindex="0">',
        f"<style>{STYLE}</style>",
        '<div class="controls">',
        '<button type="button" class="previous">&larr; previous</button>',
        f'<input type="range" class="slider" min="0" max="{len(frames) - 1}" value="0" aria-label="frame">',
        '<button type="button" class="next">next &rarr;</button>',
        f'<span class="position">{html.escape(frame_title(*frames[0], passes))}</span>',
        "</div>",
        f'<p class="legend">{legend} red edges: the gradients sent at this step, grey: those sent '
        f"before; the arrow points the way a gradient travels.</p>",
        '<div class="body">',
        '<div class="frames">', *figures, "</div>",
        '<div class="side"><table class="steps">', *rows, "</table></div>",
        "</div>",
        f"<details><summary>all steps as text</summary><pre>{html.escape(steps_table(recording))}</pre>"
        "</details>",
        f"<script>{SCRIPT.replace('ELEMENT_ID', json.dumps(element_id))}</script>",
        "</div>",
    ])


def page(recording: BackwardRecording, title: str = "Backward, step by step") -> str:
    """The whole page: an HTML document with nothing to fetch."""
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        f'<head><meta charset="utf-8"><title>{html.escape(title)}</title></head>',
        "<body>",
        f"<h1>{html.escape(title)}</h1>",
        "<p>Each frame is the graph after one pop of the backward queue: the queue is ordered by "
        "generation, highest first, so an op is popped only after every path into it has delivered "
        "its gradient.</p>",
        fragment(recording, "steps"),
        "</body>",
        "</html>",
    ]) + "\n"


def write_page(recording: BackwardRecording, path: str, title: str = "Backward, step by step") -> str:
    """Write `page(recording, title)` to `path`; returns `path`."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(page(recording, title))
    return path
