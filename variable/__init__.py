"""gengrad's core: Variable, Forwarder/Function, the backward engine and primitive ops."""

from .variable import Variable  # first: the op modules below are bound to it
from .backward import grad
from .config import enable_grad, is_backprop_enabled, is_train, no_grad, test_mode
from .elementwise import (
    abs, add, clip, cos, cosh, div, exp, log, maximum, minimum, mul, neg, pow, sin, sinh,
    sqrt, square, sub, tan, tanh, where,
)
from .forwarder import Forwarder, Function, as_variable
from .gradcheck import GradcheckError, gradcheck, numerical_grad
from .graph import get_dot_graph, plot_dot_graph
from .shape import broadcast_to, sum_to

OPS = (
    "add", "sub", "mul", "div", "neg", "pow", "square", "sqrt", "exp", "log",
    "sin", "cos", "tan", "tanh", "sinh", "cosh", "abs", "maximum", "minimum", "clip", "where",
    "broadcast_to", "sum_to",
)
"""Names of the primitive ops this package exports (also re-exported by `function`)."""

__all__ = [
    "Variable", "Forwarder", "Function", "as_variable", "grad", "no_grad", "enable_grad",
    "test_mode", "is_backprop_enabled", "is_train", "numerical_grad", "gradcheck",
    "GradcheckError", "get_dot_graph", "plot_dot_graph", *OPS,
]
