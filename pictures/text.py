"""Text views that need nothing installed: a graph as a listing, a recorded backward as a table.

`graph_text(y)` lists every Variable behind `y`, leaves first, then one line per result in
the order the ops ran (by generation), with its shape, dtype and values when small:

    x    leaf          ()  float64  0.5
    a    = Square(x)   ()  float64  0.25
    y    = Add(a, x)   ()  float64  0.75

`steps_table(recording)` is what `print(steps)` shows for `with V.record_backward() as
steps:`: one row per pop of the queue, with the gradients sent and the queue after it.
The HTML page (page.py) shows the same cells.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from variable import Variable

from .recording import SMALL, Arrival, BackwardRecording, Pass, Queued, Step, graph_of


def format_values(values: np.ndarray | None, shape: tuple) -> str:
    """Small values on one line ("0.5", "[1, 2.5]"); a larger array by its shape ("(3, 4) array")."""
    if values is None:
        return f"{tuple(shape)} array"
    if values.ndim == 0:
        return f"{values.item():.4g}" if values.dtype.kind in "fc" else str(values.item())
    number = (lambda v: f"{v:.4g}") if values.dtype.kind in "fc" else str
    text = np.array2string(values, separator=", ", max_line_width=10**6, threshold=SMALL,
                           formatter={"all": number})
    return " ".join(text.split())   # (a matrix on one line)


def labels(p: Pass) -> dict[str, str]:
    """The label of each Variable of `p`: its name, with its id added where two share a name."""
    count = {}
    for node in p.variables.values():
        count[node.label] = count.get(node.label, 0) + 1
    return {i: node.label if count[node.label] == 1 else f"{node.label}[{i}]"
            for i, node in p.variables.items()}


def graph_text(output: Variable | Sequence[Variable]) -> str:
    """The graph behind `output` as text: one line per Variable, how it was made, its shape,
    dtype and values (when it has at most 16 entries).  Needs nothing installed.

    Parameters
    ----------
    output : Variable or sequence of Variables

    Returns
    -------
    str
        Leaves first (a leaf that requires no grad is a "constant"), then each op's outputs
        in the order the ops ran.

    Raises
    ------
    TypeError
        If `output` is not a Variable or a sequence of Variables.
    """
    p = graph_of(output)
    return "\n".join(listing(p))


def listing(p: Pass) -> list[str]:
    """The lines of graph_text for the nodes of `p`."""
    names = labels(p)
    made = {}  # variable id -> "Op(a, b)" (with [k] for output k of several)
    functions = sorted(p.functions.values(), key=lambda f: (f.generation, int(f.id[1:])))
    order = [i for i, v in p.variables.items() if v.leaf]
    for f in functions:
        arguments = ", ".join(names[i] for i in f.inputs)
        for k, out in enumerate(f.outputs):
            made[out] = f"= {f.name}({arguments})" + (f"[{k}]" if len(f.outputs) > 1 else "")
            order.append(out)
    rows = []
    for i in dict.fromkeys(order):
        v = p.variables[i]
        how = made.get(i, "leaf" if v.requires_grad else "constant")
        rows.append((names[i], how, str(v.shape), v.dtype, format_values(v.values, v.shape)
                     if v.values is not None else ""))
    outputs = ", ".join(names[o] for o in p.outputs)
    header = f"graph of {outputs}: {len(p.functions)} ops, {len(rows)} variables"
    return [header, *_aligned(rows, indent="  ")]


def _aligned(rows, indent="", header=None) -> list[str]:
    """Rows of cells as lines with aligned columns (the last one left ragged)."""
    rows = [header, *rows] if header else list(rows)
    if not rows:
        return []
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]) - 1)]
    return [(indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1]).rstrip()
            for row in rows]


# ----- a recorded backward -------------------------------------------------------------
def arrival_text(a: Arrival, names: dict[str, str] | None = None) -> str:
    """"x <- 0.5", or "a += 0.8 (= 1.8)" for a gradient added to one already there."""
    label = a.label if names is None else names.get(a.variable, a.label)
    if not a.added:
        return f"{label} <- {format_values(a.values, a.shape)}"
    total = "" if a.total is None else f" (= {format_values(a.total, a.shape)})"
    return f"{label} += {format_values(a.values, a.shape)}{total}"


def queue_text(queue: Sequence[Queued]) -> str:
    """The queue in pop order, each with its generation: "Sin->c (2), Square->a (0)"."""
    return ", ".join(f"{q.title} ({q.generation})" for q in queue) or "(empty)"


def pass_title(p: Pass) -> str:
    """A line naming the pass: which call, and create_graph."""
    call = "backward()" if p.kind == "backward" else "V.grad(...)"
    if p.inside is not None:
        call = f"a pass inside pass {p.inside[0]}'s step {p.inside[1]} (its Function's backward)"
    return f"pass {p.number}: {call}, create_graph={p.create_graph}"


def step_cells(p: Pass, step: Step | None) -> dict[str, str]:
    """The cells of one row of the table: step None is the start (the seeds)."""
    names = labels(p)
    if step is None:
        return {"step": "0", "popped": "(start)", "generation": "",
                "gradients": "; ".join(arrival_text(a, names) for a in p.seeds) + "  (the seed)",
                "queue": queue_text(p.queue), "recorded": ""}
    recorded = ", ".join(p.functions[i].name for i in step.recorded)
    return {"step": str(step.number), "popped": step.title, "generation": str(step.generation),
            "gradients": "; ".join(arrival_text(a, names) for a in step.arrivals) or "(none)",
            "queue": queue_text(step.queue), "recorded": recorded}


COLUMNS = {"step": "step", "popped": "popped", "generation": "gen", "gradients": "gradients sent",
           "queue": "queue after (pop order, generation)", "recorded": "recorded by create_graph"}
"""The table's columns and their headers; "recorded" only for a pass with create_graph."""


def columns(p: Pass) -> list[str]:
    """The columns of the table of pass `p`."""
    return [c for c in COLUMNS if c != "recorded" or p.create_graph]


def final_text(p: Pass) -> str:
    """What each leaf (and each target of V.grad) holds at the end of the pass."""
    names = labels(p)
    parts = [f"{names.get(g.variable, g.label)} = {format_values(g.values, g.shape)}" for g in p.gradients]
    return "gradients at the end: " + ("; ".join(parts) or "(none)")


def steps_table(recording: BackwardRecording) -> str:
    """The recorded passes as text tables: one row per step, then the final gradients."""
    if not recording.passes:
        return "no backward pass was recorded (run backward() or V.grad(...) inside the with block)"
    blocks = []
    for p in recording.passes:
        names = columns(p)
        rows = [tuple(step_cells(p, s)[c] for c in names) for s in [None, *p.steps]]
        lines = [pass_title(p), *_aligned(rows, "  ", tuple(COLUMNS[c] for c in names)), "  " + final_text(p)]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
