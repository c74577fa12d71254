"""Drawing the computational graph: DOT text, rendered by Graphviz when installed."""

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence

from .forwarder import Variable
from .saving import key


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
    """Render the graph of `output` to `to_file` (format from its extension) with `dot`.

    Parameters
    ----------
    output : Variable or sequence of Variables
    verbose : bool
        Label variables with shape and dtype as well as name.
    to_file : str
        Path of the image; its extension (png when there is none) is the format passed
        to `dot -T`.

    Returns
    -------
    str
        `to_file`.

    Raises
    ------
    TypeError
        If `output` is not a Variable or a sequence of Variables.
    RuntimeError
        If Graphviz's `dot` is not on PATH (install the `graphviz` system package), or
        it fails.
    """
    dot = get_dot_graph(output, verbose)
    if shutil.which("dot") is None:
        raise RuntimeError(
            "plot_dot_graph: Graphviz 'dot' is not on PATH; install Graphviz "
            "(e.g. 'apt-get install graphviz' or 'brew install graphviz'), "
            "or write get_dot_graph(...) to a .dot file yourself"
        )
    extension = os.path.splitext(to_file)[1][1:] or "png"
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
