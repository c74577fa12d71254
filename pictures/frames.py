"""One picture per step of a recorded backward: DOT text, and SVG/PNG when Graphviz is there.

Frame k shows the graph after step k (frame 0: before the first pop, with the seeds):

- the Function popped at step k in red, the ones popped before in grey, the ones waiting
  in the queue in gold with their place in it and their generation, the others blue;
  an op that V.grad does not visit (no path to the inputs asked for) is dashed;
- the gradients sent at step k in red on the edges they travel (the arrow points the way
  the gradient goes: from the op back to its input), with "+=" and the sum where a
  gradient is added to one that had arrived before; earlier gradients in grey;
- with create_graph=True, the ops each backward records, in green, as they appear
  (every frame lays out the whole graph, hiding what is not there yet, so nothing jumps);
- in the last frame, each leaf's final gradient beside it.

Every node and edge has an SVG id that starts with the frame's ("p1s3_f2"), so many
frames can share one HTML page; the popped op's is `popped_id(p, step)`.
"""

from __future__ import annotations

import os
import warnings

from .recording import BackwardRecording, FunctionNode, Pass, VariableNode
from .render import have_dot, quote, render
from .text import format_values, labels, queue_text

COLORS = {
    "variable": "#ffe0b2", "constant": "#f5f5f5", "waiting": "#cfe2f3", "queued": "#ffd54f",
    "popped": "#d62728", "done": "#e0e0e0", "recorded": "#c8e6c9", "gradient": "#d62728",
    "earlier": "#9e9e9e", "final": "#1f5fbf",
}
"""The colours of the frames (the HTML page's legend uses them too)."""


def frame_id(pass_number: int, step: int) -> str:
    """The id prefix of frame `step` of pass `pass_number` ("p1s3")."""
    return f"p{pass_number}s{step}"


def popped_id(p: Pass, step: int) -> str | None:
    """The SVG id of the node popped at `step` of pass `p` (None for frame 0)."""
    if step == 0:
        return None
    return f"{frame_id(p.number, step)}_{p.steps[step - 1].node}"


def frame_caption(p: Pass, step: int) -> str:
    """One line saying what frame `step` of `p` shows."""
    if step == 0:
        return f"pass {p.number}, start: the seed is on the output; queue: {queue_text(p.queue)}"
    s = p.steps[step - 1]
    return (f"pass {p.number}, step {step} of {len(p.steps)}: popped {s.title} (generation "
            f"{s.generation}); queue after: {queue_text(s.queue)}")


def frame_dot(p: Pass, step: int) -> str:
    """The DOT text of frame `step` (0 to len(p.steps)) of the recorded pass `p`."""
    prefix = frame_id(p.number, step)
    names = labels(p)
    done = {s.node for s in p.steps[:max(step - 1, 0)]}
    popped = p.steps[step - 1].node if step else None
    queue = p.steps[step - 1].queue if step else p.queue
    place = {q.node: k + 1 for k, q in enumerate(queue)}
    final = {g.variable: g for g in p.gradients} if step == len(p.steps) else {}
    seeds = {a.variable: a for a in p.seeds} if step == 0 else {}
    lines = [
        f"digraph {quote(prefix)} {{",
        f"  graph [id={quote(prefix)}, label={quote(frame_caption(p, step))}, labelloc=t, "
        f"fontname=Helvetica, fontsize=12, forcelabels=true];",
        "  node [fontname=Helvetica, fontsize=11];",
        "  edge [fontname=Helvetica, fontsize=10, color=\"#555555\"];",
    ]
    for v in p.variables.values():
        lines.append(_variable_line(prefix, v, names[v.id], step, seeds.get(v.id), final.get(v.id)))
    for f in p.functions.values():
        state = ("popped" if f.id == popped else "queued" if f.id in place else "done" if f.id in done
                 else "recorded" if f.step else "waiting")
        lines.append(_function_line(prefix, f, state, place.get(f.id), step))
    arrivals = {}  # (function, position) -> (step it arrived, Arrival)
    for s in p.steps[:step]:
        for a in s.arrivals:
            arrivals[(a.sender, a.position)] = (s.number, a)
    for f in p.functions.values():
        hidden = f.step > step
        for position, x in enumerate(f.inputs):
            lines.append(_input_edge(prefix, f, position, x, arrivals.get((f.id, position)), step, hidden))
        for k, y in enumerate(f.outputs):
            style = ", style=invis" if hidden else ""
            lines.append(f"  {f.id} -> {y} [id={quote(f'{prefix}_{f.id}_out{k}')}{style}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def graph_dot(p: Pass, prefix: str = "graph") -> str:
    """The DOT text of a plain graph (recording.graph_of): each Variable with its values when
    small (else its shape), each op with its generation; no step, no queue.  Every SVG id
    starts with `prefix`."""
    names = labels(p)
    lines = [f"digraph {quote(prefix)} {{", f"  graph [id={quote(prefix)}];",
             "  node [fontname=Helvetica, fontsize=11];",
             '  edge [color="#555555"];']
    for v in p.variables.values():
        lines.append(_variable_line(prefix, v, names[v.id], 0, None, None))
    for f in p.functions.values():
        lines.append(_function_line(prefix, f, "waiting", None, 0))
        for position, x in enumerate(f.inputs):
            lines.append(f"  {x} -> {f.id} [id={quote(f'{prefix}_{f.id}_in{position}')}];")
        for k, y in enumerate(f.outputs):
            lines.append(f"  {f.id} -> {y} [id={quote(f'{prefix}_{f.id}_out{k}')}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _variable_line(prefix, v: VariableNode, label, step, seed, final) -> str:
    shown = format_values(v.values, v.shape) if v.values is not None and v.values.size <= 4 else str(v.shape)
    constant = v.leaf and not v.requires_grad
    attributes = {
        "id": f"{prefix}_{v.id}",
        "label": shown if constant else f"{label}\n{shown}",
        "shape": "ellipse", "style": "filled",
        "fillcolor": COLORS["constant" if constant else "recorded" if v.step else "variable"],
    }
    if seed is not None:
        attributes["xlabel"] = f"seed {format_values(seed.values, seed.shape)}"
    if final is not None:
        attributes["xlabel"] = f"grad = {format_values(final.values, final.shape)}"
        attributes["fontcolor"] = COLORS["final"]
    if v.step > step:
        attributes["style"] = "invis"
    return f"  {v.id} [{_attributes(attributes)}];"


def _function_line(prefix, f: FunctionNode, state, place, step) -> str:
    attributes = {
        "id": f"{prefix}_{f.id}",
        "label": f"{f.name}\ngen {f.generation}",
        "shape": "box", "style": "filled,rounded", "fillcolor": COLORS[state],
    }
    if state == "popped":
        attributes.update(fontcolor="white", penwidth="3", color="#7f0000")
    elif state == "queued":
        attributes["xlabel"] = f"queue #{place}"
    elif state == "done":
        attributes["fontcolor"] = "#757575"
    if not f.visited and not f.step:
        attributes.update(style="dashed,rounded", fillcolor="white")
    if f.step:
        attributes["style"] = "filled,rounded,dashed" if f.step <= step else "invis"
    return f"  {f.id} [{_attributes(attributes)}];"


def _input_edge(prefix, f: FunctionNode, position, x, arrived, step, hidden) -> str:
    attributes = {"id": f"{prefix}_{f.id}_in{position}"}
    if hidden:
        attributes["style"] = "invis"
    elif arrived is not None:
        when, a = arrived
        text = format_values(a.values, a.shape)
        if a.added:
            text = f"+= {text}" + ("" if a.total is None else f"\n= {format_values(a.total, a.shape)}")
        now = when == step
        attributes.update(xlabel=text, dir="back", fontcolor=COLORS["gradient" if now else "earlier"],
                          color=COLORS["gradient" if now else "earlier"], penwidth="2.5" if now else "1.2")
    return f"  {x} -> {f.id} [{_attributes(attributes)}];"


def _attributes(attributes: dict) -> str:
    return ", ".join(f"{name}={quote(str(value))}" for name, value in attributes.items())


def write_frames(recording: BackwardRecording, directory: str,
                 formats: tuple[str, ...] = ("svg", "png")) -> list[str]:
    """Write one DOT file per frame of every recorded pass into `directory`, and render each
    in `formats` when Graphviz's `dot` is installed (otherwise a UserWarning says how).

    Parameters
    ----------
    recording : BackwardRecording
        What `with V.record_backward() as steps:` recorded.
    directory : str
        Created if missing.  Files are `step_00.dot`, `step_00.svg`, ... for one pass and
        `pass1_step_00.dot`, ... for several; frame 0 is the start, frame k after step k.
    formats : tuple of str
        Graphviz output formats ("svg", "png", "pdf", ...).

    Returns
    -------
    list of str
        Every path written.
    """
    os.makedirs(directory, exist_ok=True)
    rendering = have_dot()
    paths = []
    for p in recording.passes:
        width = len(str(len(p.steps)))
        for step in range(len(p.steps) + 1):
            prefix = "" if len(recording.passes) == 1 else f"pass{p.number}_"
            stem = f"{prefix}step_{step:0{max(width, 2)}d}"
            source = frame_dot(p, step)
            path = os.path.join(directory, f"{stem}.dot")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(source)
            paths.append(path)
            for fmt in formats if rendering else ():
                path = os.path.join(directory, f"{stem}.{fmt}")
                with open(path, "wb") as handle:
                    handle.write(render(source, fmt))
                paths.append(path)
    if not rendering and formats:
        warnings.warn(
            f"write_frames: Graphviz's `dot` is not on PATH, so the frames went to {directory} as DOT "
            f"text; install Graphviz (apt-get install graphviz, brew install graphviz or conda install "
            f"graphviz) and run `dot -T{formats[0]} -O {os.path.join(directory, '*.dot')}`, or "
            f"print(steps) for the table", UserWarning, stacklevel=2)
    return paths
