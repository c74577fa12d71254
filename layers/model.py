"""Model (a Layer that can draw its graph), Sequential and MLP."""

import ast
import functools
import inspect
import linecache
import warnings
from collections.abc import Callable

import numpy as np

import function as F
import variable as V

from .layer import Layer
from .linear import Linear


class Model(Layer):
    """A Layer meant as the top of a network; adds `plot` to draw its computational graph."""

    def plot(self, *inputs, to_file: str = "model.png", verbose: bool = True) -> str:
        """Run the model on `inputs` and render the graph of its output with Graphviz.

        Without Graphviz's `dot`, the graph is written as DOT text next to `to_file`
        (`model.dot`), and a UserWarning gives the command that renders it.

        Parameters
        ----------
        *inputs : Variable or ndarray
            Passed to the model.
        to_file : str
            Output file; the format follows its extension ('.png', '.svg', '.pdf', ...).
        verbose : bool
            Label variables with shape and dtype.

        Returns
        -------
        str
            The path written: `to_file`, or the `.dot` file when `dot` is not installed.

        Raises
        ------
        RuntimeError
            If Graphviz's `dot` is installed but fails (see `variable.plot_dot_graph`).
        """
        y = self(*inputs)
        with warnings.catch_warnings(record=True) as caught:  # said again from the caller's line
            warnings.simplefilter("always")
            path = V.plot_dot_graph(y, verbose=verbose, to_file=to_file)
        for warning in caught:
            message = str(warning.message).replace("plot_dot_graph:", "Model.plot:", 1)
            warnings.warn(message, warning.category, stacklevel=2)
        return path


def _class_step_message(i, cls):
    """Why the class `cls` cannot be step `i` of a Sequential, showing the instance to write."""
    prefix = "L." if cls.__module__.split(".")[0] == "layers" else ""
    try:
        required = any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                       for p in inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):     # no signature to read
        required = False
    call = f"{prefix}{cls.__name__}({'...' if required else ''})"
    return (f"Sequential: step {i} is the class {cls.__name__}, not a layer: pass an instance, "
            f"{call}, as in L.Sequential(L.Linear(10), L.ReLU())")


class Sequential(Model):
    """Layers (or plain functions such as `F.relu`) applied one after the other.

    The i-th step is the attribute `l{i}`, so parameters are saved as 'l0/W', 'l2/b', ...
    As in PyTorch, `len(seq)` counts the steps, `seq[i]` (negative `i` counting from the
    end) is a step, and `seq[a:b]` is a new Sequential of the same step objects (sharing
    their parameters).

    Raises
    ------
    TypeError
        If a step is not callable, or is a class (`L.ReLU` where `L.ReLU()` is meant).
    """

    def __init__(self, *layers: Layer | Callable):
        super().__init__()
        for i, layer in enumerate(layers):
            if isinstance(layer, type):
                raise TypeError(_class_step_message(i, layer))
            if not callable(layer):
                unpack = (f"; the steps are separate arguments: L.Sequential(*steps) for a "
                          f"{type(layer).__name__} of steps (as Keras's list is)"
                          if isinstance(layer, (list, tuple)) and len(layers) == 1 else "")
                raise TypeError(
                    f"Sequential: step {i} must be a Layer or a function of one Variable, "
                    f"got {type(layer).__name__}{unpack}"
                )
            setattr(self, f"l{i}", layer)
        self._size = len(layers)

    def __len__(self):
        return self._size

    def __getitem__(self, i: int | slice):
        """The i-th step (negative indices count from the end); a slice gives a new Sequential.

        Raises
        ------
        IndexError
            If the index is out of range.
        TypeError
            If the index is neither an int nor a slice.
        """
        if isinstance(i, slice):
            return Sequential(*(getattr(self, f"l{k}") for k in range(*i.indices(self._size))))
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"Sequential: indices must be ints or slices, got {type(i).__name__}")
        if not -self._size <= i < self._size:
            raise IndexError(f"Sequential: index {i} out of range for {self._size} steps")
        return getattr(self, f"l{i % self._size}")

    def __iter__(self):
        return (getattr(self, f"l{i}") for i in range(self._size))

    def forward(self, x):
        """Apply every step in order."""
        for step in self:
            x = step(x)
        return x

    def _repr_entries(self):
        """Every step in order, a function by its name (`(l1): F.relu`), as PyTorch lists every
        module; Layer's repr lists layers and parameters alone."""
        for i, step in enumerate(self):
            yield f"l{i}", repr(step) if isinstance(step, Layer) else _function_name(step)


def _function_name(step):
    """How a function step is written: `F.relu` for one of gengrad's, a lambda as its source
    (`lambda x: F.pooling(x, 2, 2)`), else its own name."""
    name = getattr(step, "__name__", None)
    for prefix, module in (("F", F), ("V", V)):
        if name is not None and getattr(module, name, None) is step:
            return f"{prefix}.{name}"
    if name == "<lambda>":
        return _lambda_source(step) or name
    return name or repr(step)


def _lambda_source(function):
    """The text of a lambda as written in its file (`lambda x: F.pooling(x, 2, 2)`), or None where
    its source cannot be read (typed at a prompt) or told apart from another lambda."""
    code = getattr(function, "__code__", None)
    if code is None:
        return None
    source = "".join(linecache.getlines(code.co_filename))
    try:
        tree = _parsed(code.co_filename, source)
    except (SyntaxError, ValueError):
        return None
    found = [node for node in ast.walk(tree)
             if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno]
    if len(found) > 1 and hasattr(code, "co_positions"):   # several on the line: the one holding its code
        spots = {(line, column) for line, _, column, _ in code.co_positions() if column is not None}
        found = [node for node in found if any(_contains(node.body, *spot) for spot in spots)]
    if len(found) != 1:
        return None
    text = ast.get_source_segment(source, found[0])
    return " ".join(text.split()) if text else None


def _contains(node, line, column):
    """Whether the source of `node` covers the position (line, column)."""
    return (node.lineno, node.col_offset) <= (line, column) < (node.end_lineno, node.end_col_offset)


@functools.lru_cache(maxsize=32)
def _parsed(filename, source):
    """The syntax tree of a source file (cached: a repr reads it once per file)."""
    return ast.parse(source, filename)


class MLP(Model):
    """Fully connected network: Linear layers with `activation` between them (not after the last).

    Parameters
    ----------
    sizes : sequence of int
        Output size of each Linear layer; the input size is inferred on the first call.
        `MLP((1000, 1000, 10))` maps inputs of any width to 10 outputs.
    activation : callable
        Applied after every layer but the last (default `F.sigmoid`).
    dtype : dtype, optional
        Parameter dtype; by default that of the first input.
    rng : numpy.random.Generator, optional
        Source of the initial weights (default: the generator `layers.seed` resets).

    Raises
    ------
    TypeError
        If `sizes` is not a sequence (None, a str, a number) or `activation` is not callable.
    ValueError
        If `sizes` is empty or holds a non-positive size.
    """

    def __init__(self, sizes, activation: Callable = F.sigmoid, *, dtype=None,
                 rng: np.random.Generator | None = None):
        super().__init__()
        if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__iter__"):
            raise TypeError(
                f"MLP: sizes must be a sequence of layer sizes such as (100, 10), got {type(sizes).__name__}"
            )
        sizes = tuple(sizes)
        if not sizes:
            raise ValueError("MLP: sizes must hold at least one layer size")
        if not callable(activation):
            raise TypeError(f"MLP: activation must be callable, got {type(activation).__name__}")
        self.activation = activation
        for i, size in enumerate(sizes):
            setattr(self, f"l{i}", Linear(size, dtype=dtype, rng=rng))
        self._depth = len(sizes)

    def _repr_entries(self):
        """The layers, then the activation between them by name (`(activation): F.relu`)."""
        yield from super()._repr_entries()
        yield "activation", _function_name(self.activation)

    def forward(self, x):
        """Linear, activation, Linear, ..., Linear."""
        for i in range(self._depth - 1):
            x = self.activation(getattr(self, f"l{i}")(x))
        return getattr(self, f"l{self._depth - 1}")(x)
