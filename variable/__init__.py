"""gengrad's core: Variable, Forwarder/Function, the backward engine and primitive ops."""

# isort: off
from .variable import Variable  # first: the op modules bind themselves to it
# isort: on
from . import backend, series
from .backend import get_array_module
from .backward import grad
from .config import enable_grad, is_backprop_enabled, is_train, no_grad, test_mode, using_config
from .elementwise import (
    abs,
    add,
    clip,
    div,
    exp,
    log,
    maximum,
    minimum,
    mul,
    neg,
    pow,
    sqrt,
    square,
    sub,
    where,
)
from .forward_mode import jvp, taylor
from .forwarder import Forwarder, Function, as_variable
from .functional import hessian, hvp, jacobian
from .gradcheck import GradcheckError, gradcheck, numerical_grad, taylorcheck
from .graph import get_dot_graph, graph_functions, plot_dot_graph
from .indexing import get_item
from .joining import concat, split, stack
from .linalg import matmul, transpose_matmul
from .reduction import logsumexp, max, mean, min, sum, variance
from .shape import (
    broadcast_to,
    expand_dims,
    flatten,
    reshape,
    squeeze,
    sum_to,
    transpose,
)
from .trigonometric import cos, cosh, sin, sinh, tan, tanh
from .types import ArrayLike, Axis

OPS = (
    "add", "sub", "mul", "div", "neg", "pow", "square", "sqrt", "exp", "log",
    "sin", "cos", "tan", "tanh", "sinh", "cosh", "abs", "maximum", "minimum", "clip", "where",
    "reshape", "transpose", "flatten", "expand_dims", "squeeze", "broadcast_to", "sum_to",
    "get_item", "concat", "split", "stack",
    "sum", "mean", "variance", "max", "min", "logsumexp",
    "matmul", "transpose_matmul",
)
"""Names of the primitive ops this package exports (also re-exported by `function`)."""

__all__ = [
    "Variable", "Forwarder", "Function", "as_variable", "grad", "no_grad", "enable_grad",
    "test_mode", "using_config", "is_backprop_enabled", "is_train", "numerical_grad", "gradcheck",
    "GradcheckError", "jvp", "taylor", "taylorcheck", "series", "backend", "get_array_module",
    "get_dot_graph", "graph_functions", "plot_dot_graph", "jacobian", "hessian", "hvp",
    "ArrayLike", "Axis", *OPS,
]
