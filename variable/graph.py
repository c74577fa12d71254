"""Drawing the computational graph (DOT text, rendered by Graphviz when installed), and
the observation point of the backward queue (`record_backward`; its views are in `pictures`)."""

import contextlib
import contextvars
import os
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from .forwarder import Variable
from .saving import key

if TYPE_CHECKING:  # (imported on use: pictures builds on this package)
    from pictures.recording import BackwardRecording


def _node(v):
    """The DOT name of a Variable: a leaf by identity, any other by where it was made, so a
    stand-in in a Function's record (variable/saving.py) is drawn as the Variable it stands for."""
    k = key(v)
    if type(k) is tuple:
        return f'"{id(k[0])}.{k[1]}"'
    return f'"{id(k)}.0"' if k is not v else str(id(v))


def _variable_node(v, verbose):
    label = v.name or ""
    if verbose:
        label = f"{label}: " if label else ""
        label += f"{v.shape} {v.dtype}"
    label = label.replace("\\", "\\\\").replace('"', '\\"')   # a DOT string literal
    return f'{_node(v)} [label="{label}", color=orange, style=filled]\n'


def _function_nodes(f, verbose):
    lines = [f'{id(f)} [label="{f.name}", color=lightblue, style=filled, shape=box]\n']
    for x in f.inputs:
        lines.append(f"{_node(x)} -> {id(f)}\n")
    for ref in f.outputs:
        y = ref()
        if y is not None:
            lines.append(f"{id(f)} -> {_node(y)}\n")
    return lines


def graph_functions(output: Variable | Sequence[Variable]) -> list:
    """Every Function in the graph that produced `output` (one or several), each once.

    Raises
    ------
    TypeError
        If `output` is not a Variable or a list/tuple of Variables.
    """
    outputs = [output] if isinstance(output, Variable) else output
    if not isinstance(outputs, (list, tuple)) or not all(isinstance(y, Variable) for y in outputs):
        raise TypeError(f"graph_functions: expected Variables, got {type(output).__name__}")
    return _functions_behind(outputs)


def _functions_behind(outputs, stop=frozenset()):
    """Every Function that made `outputs`, each once, not looking past the Variables in `stop`
    (a set or dict of Variables)."""
    functions, seen = [], set()
    stack = [y.creator for y in outputs if y.creator is not None and y not in stop]
    while stack:
        f = stack.pop()
        if f in seen:
            continue
        seen.add(f)
        functions.append(f)
        stack.extend(x.creator for x in f.inputs if x.creator is not None and x not in stop)
    return functions


def get_dot_graph(output: Variable | Sequence[Variable], verbose: bool = True) -> str:
    """DOT text of the graph that produced `output` (variables as ellipses, ops as boxes).

    Parameters
    ----------
    output : Variable or sequence of Variables
    verbose : bool
        Label variables with shape and dtype as well as name.

    Returns
    -------
    str
        A `digraph` in the DOT language, for Graphviz.

    Raises
    ------
    TypeError
        If `output` is not a Variable or a sequence of Variables.
    """
    outputs = [output] if isinstance(output, Variable) else list(output)
    for y in outputs:
        if not isinstance(y, Variable):
            raise TypeError(f"get_dot_graph: expected Variables, got {type(y).__name__}")
    lines = []
    drawn = set()
    funcs = []
    seen = set()
    for y in outputs:
        lines.append(_variable_node(y, verbose))
        drawn.add(_node(y))
        if y.creator is not None and y.creator not in seen:
            seen.add(y.creator)
            funcs.append(y.creator)
    while funcs:
        f = funcs.pop()
        lines.extend(_function_nodes(f, verbose))
        for x in f.inputs:
            if _node(x) not in drawn:
                drawn.add(_node(x))
                lines.append(_variable_node(x, verbose))
                if x.creator is not None:  # (an output its caller dropped: drawn from here)
                    lines.append(f"{id(x.creator)} -> {_node(x)}\n")
            if x.creator is not None and x.creator not in seen:
                seen.add(x.creator)
                funcs.append(x.creator)
        for ref in f.outputs:
            y = ref()
            if y is not None and _node(y) not in drawn:
                drawn.add(_node(y))
                lines.append(_variable_node(y, verbose))
    return "digraph g {\n" + "".join(dict.fromkeys(lines)) + "}\n"   # (each line once)


def plot_dot_graph(
    output: Variable | Sequence[Variable], verbose: bool = True, to_file: str = "graph.png"
) -> str:
    """Render the graph of `output` to `to_file` with Graphviz's `dot`; without `dot`, write
    the DOT text instead, say how to render it, and go on.

    Parameters
    ----------
    output : Variable or sequence of Variables
    verbose : bool
        Label variables with shape and dtype as well as name.
    to_file : str
        Path of the image; its extension (png when there is none) is the format passed
        to `dot -T`.  A path ending in `.dot` gets the DOT text itself.

    Returns
    -------
    str
        The path written: `to_file`, or, when `dot` is not on PATH, `to_file` with its
        extension replaced by `.dot` (a UserWarning gives the command that renders it).

    Raises
    ------
    TypeError
        If `output` is not a Variable or a sequence of Variables.
    RuntimeError
        If Graphviz's `dot` is on PATH but fails.
    """
    dot = get_dot_graph(output, verbose)
    stem, extension = os.path.splitext(to_file)
    extension = extension[1:] or "png"
    if extension == "dot" or shutil.which("dot") is None:
        dot_file = f"{stem}.dot"
        with open(dot_file, "w") as handle:
            handle.write(dot)
        if extension != "dot":  # a warning, not a print: once per call site, and it can be filtered
            warnings.warn(without_graphviz("plot_dot_graph", dot_file, to_file), UserWarning, stacklevel=2)
        return dot_file
    with tempfile.NamedTemporaryFile("w", suffix=".dot", delete=False) as handle:
        handle.write(dot)
        dot_path = handle.name
    try:
        subprocess.run(["dot", dot_path, "-T", extension, "-o", to_file], check=True,
                       capture_output=True, text=True)
    except subprocess.CalledProcessError as error:
        raise RuntimeError(f"plot_dot_graph: dot failed: {error.stderr.strip()}") from None
    finally:
        os.remove(dot_path)
    return to_file


def without_graphviz(where: str, dot_file: str, to_file: str) -> str:
    """The one line that says `dot_file` holds DOT text because Graphviz is missing, and how
    to turn it into `to_file`."""
    extension = os.path.splitext(to_file)[1][1:] or "png"
    return (
        f"{where}: Graphviz's `dot` is not on PATH, so the graph went to {dot_file} as DOT text; "
        f"install Graphviz (apt-get install graphviz, brew install graphviz or conda install "
        f"graphviz) and run `dot -T{extension} {dot_file} -o {to_file}`, or print("
        f"pictures.graph_text(y)) to see the graph as text now"
    )


_observer = contextvars.ContextVar("gengrad_backward_observer", default=None)
"""The recording of `record_backward` while its block runs, else None: the one observation
point of the queue.  A pass reads it once; with None (always, unless asked) a step costs
two `is not None` tests."""


@contextlib.contextmanager
def _record_backward() -> Iterator["BackwardRecording"]:
    """Record every backward pass run inside the block, step by step, from the engine's own queue.

    Each `backward()` or `V.grad(...)` in the block (with or without create_graph=True) is
    recorded: for every step, the Function popped and its generation, the gradient each of
    its inputs receives (shape, values when small) and whether it was added to one already
    there, and the queue after the step in pop order; at the end, each leaf's gradient.
    The views (a text table, one Graphviz picture per step, an HTML page with a slider, and
    inline display in Jupyter) are in the `pictures` package.

    Yields
    ------
    pictures.recording.BackwardRecording
        The steps, filled in as the passes run: `print(steps)` shows the table,
        `steps.write_html("backward.html")` the page, `steps.write_frames("frames/")` the
        pictures.

    Examples
    --------
    >>> with V.record_backward() as steps:
    ...     y.backward()
    >>> print(steps)
    """
    from pictures.recording import BackwardRecording  # (the views' package: imported on use)

    recording = BackwardRecording()
    token = _observer.set(recording)
    try:
        yield recording
    finally:
        _observer.reset(token)


class _RecordBackward:
    """`record_backward` itself: calling it gives the context manager; using it bare in a
    `with` (a missing `()`) is refused naming the fix."""

    __doc__ = _record_backward.__doc__

    def __call__(self) -> contextlib.AbstractContextManager:
        return _record_backward()

    def __enter__(self):
        raise TypeError("V.record_backward must be called: write `with V.record_backward() as steps:`")

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return "<function V.record_backward>"

    def __reduce__(self):  # pickled by name, as a function is
        return "record_backward"


record_backward = _RecordBackward()
