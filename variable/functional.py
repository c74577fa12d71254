"""Higher-order toolkit built on `grad`: jacobian, hessian, Hessian-vector products."""

import inspect
import sys
from collections.abc import Callable

import numpy as np

from .backend import get_array_module, is_device_array
from .backward import grad
from .config import no_grad
from .forwarder import Variable, new_variable
from .ops.joining import stack
from .ops.shape import reshape, transpose
from .types import ArrayLike
from .variable import result_use


def _leaf(f, x, op):
    """Check `f` and return `x` as a Variable that requires grad."""
    if not callable(f):
        raise TypeError(f"{op}: f must be callable, got {type(f).__name__}")
    if isinstance(x, Variable):
        if not x.requires_grad:
            raise ValueError(f"{op}: x must require grad (a floating-point Variable)")
        return x
    try:
        x = Variable(x)
    except TypeError as error:
        raise TypeError(f"{op}: x: {error}") from None
    if not x.requires_grad:
        raise ValueError(f"{op}: x must be floating point, got dtype {x.dtype}")
    return x


_SEVERAL = {"jacobian": "V.jacobian(f, (x, y))", "hessian": "V.hessian(f, (x, y))",
            "hvp": "V.hvp(f, (x, y), (vx, vy))"}
"""How each op is given the points of an f of several arguments: one tuple."""


def _flag(value, name, op):
    """`value` as the True/False setting `name` of `op`, refused where it is anything else:
    there it is most often a second point (`V.jacobian(f, x, y)` puts y in create_graph)."""
    if type(value) is bool or isinstance(value, np.bool_):
        return bool(value)
    raise TypeError(f"{op}: {name} must be True or False, got {type(value).__name__}; for an f of "
                    f"several arguments give the points as one tuple: {_SEVERAL[op]}")


def call_signature(f):
    """`f`'s signature as a call sees it (`Op.apply` takes *inputs: Op.forward's, without self);
    None where there is none to read (a ufunc, a builtin)."""
    try:
        owner = getattr(f, "__self__", None)
        if getattr(f, "__name__", None) == "apply" and isinstance(owner, type) and hasattr(owner, "forward"):
            forward = inspect.signature(owner.forward)
            return forward.replace(parameters=list(forward.parameters.values())[1:])
        return inspect.signature(f)
    except (TypeError, ValueError):
        return None


def takes(f, n):
    """Whether `f` can be called with n positional arguments; None where its signature cannot
    be read (a ufunc, a builtin)."""
    signature = call_signature(f)
    if signature is None:
        return None
    try:
        signature.bind(*range(n))
    except TypeError:
        return False
    return True


def _refuse_a_list_of_points(f, x, op):
    """A TypeError where the point `x` is a list of len(x) points for an f of len(x) arguments:
    a list is one point (NumPy reads it as one array), a tuple is one point per argument."""
    if isinstance(x, list) and callable(f) and takes(f, 1) is False and takes(f, len(x)):
        raise TypeError(f"{op}: f takes {len(x)} arguments and x is a list of {len(x)}: a list "
                        f"is one point, read as one array; give the points as one tuple: "
                        f"{_SEVERAL[op]}")


def _rows(y, x, create_graph):
    """d y_i / d x for every element i of y, as a list of Variables of x's shape."""
    rows = []
    for i in range(y.size):
        seed = get_array_module(y).zeros(y.size, dtype=y.dtype)
        seed[i] = 1
        g = grad(y, x, grad_outputs=new_variable(seed.reshape(y.shape)),
                 create_graph=create_graph, allow_unused=True)
        if g is None:
            g = new_variable(get_array_module(x).zeros(x.shape, dtype=x.dtype))
        rows.append(g)
    return rows


_FORWARD_LIMIT = 2 ** 24
"""The most entries the unit directions and their tangents may hold for a forward pass."""


def _forward_rows(g, x, size, create_graph, op, ran=None):
    """d g(x) / d x by one forward pass along all x.size unit directions at once, as a Variable
    of shape (x.size, *g(x).shape) (row i: the derivative along x_i); None where forward mode
    cannot serve: inside another forward pass without create_graph (its derivatives would be
    constants there; with it, the pass records, and the outer pass goes through its ops: a
    Hessian's Jacobian), an op with no Taylor rule, too many entries, or a graph wanted
    through an op whose rule does not record."""
    blocks = _forward_blocks(g, (x,), size, create_graph, op, ran)
    return None if blocks is None else blocks[0][0]


def _forward_blocks(g, xs, size, create_graph, op, ran=None):
    """The rows of every output of g(*xs) along the unit directions of every input, in one
    forward pass: blocks[o][j] of shape (xs[j].size, *output_o.shape); None as _forward_rows.
    `ran`: g's output at xs from `run_kept`, whose graph the pass follows (g is not run again)."""
    from .forward_mode import _evaluate, _inside_f
    n = sum(x.size for x in xs)
    nested = _inside_f.get() is not None     # inside another pass: only a recorded one serves
    if (nested and not create_graph) or n * max(size, n) > _FORWARD_LIMIT:
        return None
    xp = get_array_module(xs[0])
    vs, offset = [], 0
    for x in xs:                                     # input j's share of the n unit directions
        v = xp.zeros((n, x.size), dtype=x.dtype)
        v[offset:offset + x.size] = xp.eye(x.size, dtype=x.dtype)
        vs.append(v.reshape((n, *x.shape)))
        offset += x.size
    point, directions = (xs[0], vs[0]) if len(xs) == 1 else (tuple(xs), tuple(vs))
    try:
        if create_graph:
            _, series, _, (depends, unrecorded) = _evaluate(g, point, directions, 1, op, batched=True,
                                                            nested=nested, ran=ran)
            if depends and unrecorded is not None:
                return None
        else:
            with no_grad():                          # (an array pass: nothing recorded)
                _, series, _, _ = _evaluate(g, point, directions, 1, op, batched=True, ran=ran)
    except NotImplementedError:
        return None
    blocks = []
    for s in series:
        first = s[1] if isinstance(s[1], Variable) else new_variable(s[1])
        parts, offset = [], 0
        for x in xs:
            parts.append(first if len(xs) == 1 else first[offset:offset + x.size])
            offset += x.size
        blocks.append(parts)
    return blocks


def _columns(rows, y_shape, x_shape):
    """Rows of derivatives along each x_i, (x.size, *y_shape), as a Jacobian y_shape + x_shape."""
    n, m = int(np.prod(x_shape, dtype=np.int64)), int(np.prod(y_shape, dtype=np.int64))
    return reshape(transpose(reshape(rows, (n, m))), y_shape + x_shape)


def _with_options(derivative, f, x, create_graph, argnums, has_aux, op):
    """`derivative` (jacobian or hessian) with torch.func's options: `argnums` picks which
    entries of a tuple x are differentiated (the rest are held as they are), and with
    `has_aux` f returns (output, aux) and the result is (derivative, aux)."""
    if not callable(f):
        raise TypeError(f"{op}: f must be callable, got {type(f).__name__}")
    aux = []

    def main(*args):
        out = f(*args)
        if not has_aux:
            return out
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError(f"{op}: with has_aux=True, f must return a pair (output, aux), got "
                            f"{type(out).__name__}")
        aux[:] = [out[1]]
        return out[0]
    g, point = main, x
    if argnums is not None:
        if not isinstance(x, tuple):
            raise TypeError(f"{op}: argnums picks entries of a tuple x (f takes one argument per entry); "
                            f"x is a single {type(x).__name__}, so leave argnums out")
        single = isinstance(argnums, (int, np.integer)) and not isinstance(argnums, bool)
        picked = (argnums,) if single else argnums
        if not isinstance(picked, tuple) or not picked or any(
                isinstance(i, bool) or not isinstance(i, (int, np.integer)) for i in picked):
            raise TypeError(f"{op}: argnums must be an int or a non-empty tuple of ints, got {argnums!r}")
        picked = tuple(int(i) % len(x) if -len(x) <= i < len(x) else None for i in picked)
        if None in picked or len(set(picked)) != len(picked):
            raise ValueError(f"{op}: argnums {argnums!r} must name distinct entries of x, 0 .. {len(x) - 1}")

        def g(*chosen):
            args = list(x)
            for i, xi in zip(picked, chosen):
                args[i] = xi
            return main(*args)
        point = x[picked[0]] if single else tuple(x[i] for i in picked)
    result = derivative(g, point, create_graph)
    return (result, aux[0] if aux else None) if has_aux else result


def _several(f, x, op):
    """A tuple point (f takes one argument per entry, as for V.jvp): its entries as Variables
    that require grad; None for a single point."""
    if not isinstance(x, tuple):
        return None
    if not x:
        raise ValueError(f"{op}: x is an empty tuple; give one array per argument of f")
    xs = tuple(_leaf(f, xi, op) for xi in x)
    if len({id(xi) for xi in xs}) != len(xs):
        raise ValueError(f"{op}: the same Variable appears twice in x; pass it once")
    return xs


def _blocks(y, xs, create_graph):
    """d y / d xs[j] for every j, as Variables of shape y.shape + xs[j].shape (zeros where
    y does not depend on xs[j]): one backward pass per element of y, to all the inputs."""
    xp = get_array_module(xs[0])
    if not y.requires_grad or y.size == 0:
        return tuple(new_variable(xp.zeros(y.shape + x.shape, dtype=x.dtype)) for x in xs)
    rows = [[] for _ in xs]
    for i in range(y.size):
        seed = xp.zeros(y.size, dtype=y.dtype)
        seed[i] = 1
        gs = grad(y, list(xs), grad_outputs=new_variable(seed.reshape(y.shape)),
                  create_graph=create_graph, materialize_grads=True)
        for row, g in zip(rows, gs):
            row.append(g)
    return tuple(reshape(stack(row), y.shape + x.shape) if x.size else
                 new_variable(xp.zeros(y.shape + x.shape, dtype=x.dtype)) for row, x in zip(rows, xs))


def jacobian(f: Callable[[Variable], Variable], x: ArrayLike, create_graph: bool = False,
             argnums: int | tuple[int, ...] | None = None, has_aux: bool = False) -> Variable:
    """Jacobian of `f` at `x`, a Variable of shape f(x).shape + x.shape.

    When f(x) has at least as many entries as x, one forward pass along all the unit
    directions at once (V.jvp with batched=True) over the graph f(x) made; otherwise, or
    where forward mode cannot serve (an op with no Taylor rule), one backward pass per
    element of f(x).  Either way f runs once.  With a
    tuple `x`, f takes one argument per
    entry (as for V.jvp) and the result is a tuple: d f / d x[j] of shape f(x).shape +
    x[j].shape for each j (torch.autograd.functional.jacobian's rule).

    Parameters
    ----------
    f : callable
        Takes a Variable of the shape of `x` and returns a Variable.
    x : ArrayLike
        The point, floating point; a Variable is used as is, anything else becomes a new
        Variable.
    create_graph : bool
        Record the backward passes, so the result can be differentiated again.
    argnums : int or tuple of ints, optional
        With a tuple `x`: the entries to differentiate (an int: that one, not a tuple of
        one), the others held as given, as in torch.func.jacrev.
    has_aux : bool
        f returns (output, aux); the result is then (Jacobian, aux), aux as f returned it.

    Returns
    -------
    Variable
        Entry (i, j) is d f(x)[i] / d x[j]; zeros where f(x) does not depend on `x`.

    Raises
    ------
    TypeError
        If `f` is not callable, or `x` is not a Variable, a numeric ndarray, a number or a list of
        numbers, `f` does not return a Variable, `create_graph` is not True or False (a second
        point there: give the points as one tuple), or `x` is a list of as many points as f
        takes arguments.
    ValueError
        If `x` does not require grad (integer data, or a Variable made with
        requires_grad=False).
    """
    create_graph = _flag(create_graph, "create_graph", "jacobian")
    _refuse_a_list_of_points(f, x, "jacobian")
    if argnums is not None or has_aux:
        return _with_options(jacobian, f, x, create_graph, argnums, has_aux, "jacobian")
    from .forward_mode import run_kept
    xs = _several(f, x, "jacobian")
    if xs is not None:
        y, inner = run_kept(f, xs)                   # (f runs once: a forward pass follows its graph)
        if not isinstance(y, Variable):
            raise TypeError(f"jacobian: f must return a Variable, got {type(y).__name__}")
        if y.requires_grad and y.size and sum(xi.size for xi in xs) <= y.size:   # one forward pass
            blocks = _forward_blocks(f, xs, y.size, create_graph, "jacobian", None if inner else y)
            if blocks is not None:
                return tuple(_columns(rows, y.shape, xi.shape) for rows, xi in zip(blocks[0], xs))
        return _blocks(y, xs, create_graph)
    x = _leaf(f, x, "jacobian")
    y, inner = run_kept(f, (x,))
    if not isinstance(y, Variable):
        raise TypeError(f"jacobian: f must return a Variable, got {type(y).__name__}")
    if not y.requires_grad or y.size == 0 or x.size == 0:
        return new_variable(get_array_module(x).zeros(y.shape + x.shape, dtype=x.dtype))
    if x.size <= y.size:                             # as many outputs as inputs, or more:
        rows = _forward_rows(f, x, y.size, create_graph, "jacobian", None if inner else y)   # one pass
        if rows is not None:
            return _columns(rows, y.shape, x.shape)
    return reshape(stack(_rows(y, x, create_graph)), y.shape + x.shape)


def hessian(f: Callable[[Variable], Variable], x: ArrayLike, create_graph: bool = False,
            argnums: int | tuple[int, ...] | None = None, has_aux: bool = False) -> Variable:
    """Hessian of a scalar-valued `f` at `x`, a Variable of shape x.shape + x.shape.

    Forward over reverse: the gradient's derivatives along all the unit directions in one
    forward pass (one backward pass per entry of x where forward mode cannot serve).

    With a tuple `x`, f takes one argument per entry and the result is a tuple of tuples:
    entry [i][j] is d^2 f / d x[i] d x[j], of shape x[i].shape + x[j].shape (the blocks,
    cross terms included, as torch.autograd.functional.hessian gives them).

    Parameters
    ----------
    f : callable
        Takes a Variable of the shape of `x` and returns a Variable of size 1.
    x : ArrayLike
        The point, floating point; a Variable is used as is, anything else becomes a new
        Variable.
    create_graph : bool
        Record the backward passes, so the result can be differentiated again.
    argnums, has_aux
        As for `jacobian`.

    Returns
    -------
    Variable
        Entry (i, j) is d^2 f / d x[i] d x[j]; zeros where the gradient does not depend on `x`.

    Raises
    ------
    TypeError
        If `f` is not callable, or `x` is not a Variable, a numeric ndarray, a number or a list of
        numbers, `create_graph` is not True or False (a second point there: give
        the points as one tuple), or `x` is a list of as many points as f takes arguments.
    ValueError
        If f(x) is not a scalar Variable (size 1), or `x` does not require grad.
    """
    create_graph = _flag(create_graph, "create_graph", "hessian")
    _refuse_a_list_of_points(f, x, "hessian")
    if argnums is not None or has_aux:
        return _with_options(hessian, f, x, create_graph, argnums, has_aux, "hessian")
    xs = _several(f, x, "hessian")
    live = []                                        # whether the gradient depends on x

    def gradients(*vs):                              # (one argument per entry of a tuple x)
        y = f(*vs)
        if not isinstance(y, Variable) or y.size != 1:
            shape = y.shape if isinstance(y, Variable) else type(y).__name__
            raise ValueError(f"hessian: f must return a scalar Variable, got {shape}")
        gs = grad(y, list(vs), create_graph=True, materialize_grads=True)
        live[:] = [any(g.requires_grad for g in gs)]
        return tuple(gs) if xs is not None else gs[0]

    # forward over reverse: the gradient's derivatives along all unit directions in one pass
    if xs is not None:
        if all(xi.size for xi in xs):
            blocks = _forward_blocks(gradients, xs, sum(xi.size for xi in xs), create_graph, "hessian")
            if blocks is not None and live[0]:
                return tuple(tuple(_columns(rows, xi.shape, xj.shape) for rows, xj in zip(row, xs))
                             for row, xi in zip(blocks, xs))
        return tuple(_blocks(g, xs, create_graph) for g in gradients(*xs))
    x = _leaf(f, x, "hessian")
    rows = _forward_rows(gradients, x, x.size, create_graph, "hessian") if x.size else None
    if rows is not None and live[0]:
        return _columns(rows, x.shape, x.shape)
    g = gradients(x) if rows is None else None       # (reverse rows: one backward per entry)
    if rows is not None or not live[0] or x.size == 0:
        return new_variable(get_array_module(x).zeros(x.shape + x.shape, dtype=x.dtype))
    return reshape(stack(_rows(g, x, create_graph)), x.shape + x.shape)


def hvp(
    f: Callable[[Variable], Variable], x: ArrayLike, v: ArrayLike, create_graph: bool = False
) -> Variable:
    """Hessian of scalar `f` at `x` times `v`, by two backward passes (no full Hessian).

    With a tuple `x` (f takes one argument per entry), `v` is a tuple of as many arrays and
    the result a tuple: entry i is sum_j d^2 f / d x[i] d x[j] v[j].

    Parameters
    ----------
    f : callable
        Takes a Variable of the shape of `x` and returns a Variable of size 1.
    x : ArrayLike
        The point, floating point; a Variable is used as is, anything else becomes a new
        Variable.
    v : ArrayLike
        The vector, of the shape of `x`; a non-Variable is converted to the dtype of `x`.
    create_graph : bool
        Record the second pass, so the result can be differentiated again.

    Returns
    -------
    Variable
        Of the shape of `x`; zeros where the gradient does not depend on `x`.

    Raises
    ------
    TypeError
        If `f` is not callable, or `x` is not a Variable, a numeric ndarray, a number or a list of
        numbers, `v` is not numeric, `create_graph` is not True or False (a second point there: give
        the points as one tuple), `x` is a list of as many points as f takes arguments, or the
        result is unpacked into two names (torch.autograd.functional.hvp's (f(x), product)
        pair: V.hvp returns the product alone).
    ValueError
        If f(x) is not a scalar Variable, `v` does not have the shape of `x`, or `x` does
        not require grad.
    """
    create_graph = _flag(create_graph, "create_graph", "hvp")
    _refuse_a_list_of_points(f, x, "hvp")
    xs = _several(f, x, "hvp")
    if xs is not None:
        if not isinstance(v, tuple) or len(v) != len(xs):
            raise TypeError(f"hvp: x is a tuple of {len(xs)} arrays, so v must be a tuple of as many")
        vs = [_vector(vi, xi) for vi, xi in zip(v, xs)]
        y = f(*xs)
        if not isinstance(y, Variable) or y.size != 1:
            raise ValueError("hvp: f must return a scalar Variable")
        gs = grad(y, list(xs), create_graph=True, materialize_grads=True)
        live = [(g, vi) for g, vi in zip(gs, vs) if g.requires_grad]
        if not live:
            return tuple(new_variable(get_array_module(xi).zeros(xi.shape, dtype=xi.dtype)) for xi in xs)
        return tuple(grad([g for g, _ in live], list(xs), grad_outputs=[vi for _, vi in live],
                          create_graph=create_graph, materialize_grads=True))
    x = _leaf(f, x, "hvp")
    if (result_use(sys._getframe(1)) or ("",))[:2] == ("unpack", 2):
        rows = x.ndim and len(x) == 2
        raise TypeError(
            f"hvp: its result is unpacked into two names, as torch.autograd.functional.hvp's pair "
            f"(f(x), the product) is, but V.hvp returns the product alone, of x's shape {x.shape}"
            f"{', which would unpack into its two rows' if rows else ''}; write hv = V.hvp(f, x, v) "
            f"(y = f(x) for the value){', and index hv[0], hv[1] for the rows' if rows else ''}")
    v = _vector(v, x)
    y = f(x)
    if not isinstance(y, Variable) or y.size != 1:
        raise ValueError("hvp: f must return a scalar Variable")
    g = grad(y, x, create_graph=True, allow_unused=True)
    if g is None or not g.requires_grad:
        return new_variable(get_array_module(x).zeros(x.shape, dtype=x.dtype))
    hv = grad(g, x, grad_outputs=v, create_graph=create_graph, allow_unused=True)
    return new_variable(get_array_module(x).zeros(x.shape, dtype=x.dtype)) if hv is None else hv


def _vector(v, x, op="hvp"):
    """`v` for hvp at `x`: a Variable as it is, else an array of x's dtype on x's device."""
    if isinstance(v, Variable):
        v_data = v.data
    elif isinstance(v, (np.ndarray, list, tuple, int, float)) and not isinstance(v, bool) or (
        is_device_array(v)
    ):
        try:
            v_data = get_array_module(x).asarray(v, dtype=x.dtype)   # on x's device
        except (TypeError, ValueError) as error:
            raise TypeError(f"{op}: v must be numeric like x: {error}") from None
    else:
        raise TypeError(f"{op}: v must be a Variable or an array of x's shape, got {type(v).__name__}")
    if v_data.shape != x.shape:
        raise ValueError(f"{op}: v of shape {v_data.shape} does not match x of shape {x.shape}")
    return v if isinstance(v, Variable) else new_variable(v_data)


def hessian_operator(f: Callable[[Variable], Variable], x: ArrayLike) -> Callable[[ArrayLike], Variable]:
    """v -> H v for the Hessian H of scalar `f` at `x`, f and its gradient computed once.

    Each call is one backward pass through the recorded gradient (V.hvp recomputes f and the
    gradient every time, twice the work): what conjugate-gradient Newton steps call many
    times at one point.

    Parameters
    ----------
    f : callable
        Takes a Variable of the shape of `x` and returns a Variable of size 1.
    x : ArrayLike
        The point, floating point.

    Returns
    -------
    callable
        hv(v): H v as a Variable of x's shape, for v of x's shape (zeros where the gradient
        does not depend on x).

    Raises
    ------
    TypeError, ValueError
        As `hvp`, for f and x at once, and for each v at its call.
    """
    x = _leaf(f, x, "hessian_operator")
    y = f(x)
    if not isinstance(y, Variable) or y.size != 1:
        raise ValueError("hessian_operator: f must return a scalar Variable")
    g = grad(y, x, create_graph=True, allow_unused=True)

    def hv(v: ArrayLike) -> Variable:
        v = _vector(v, x, "hessian_operator")
        if g is None or not g.requires_grad:
            return new_variable(get_array_module(x).zeros(x.shape, dtype=x.dtype))
        product = grad(g, x, grad_outputs=v, allow_unused=True)
        return new_variable(get_array_module(x).zeros(x.shape, dtype=x.dtype)) if product is None else product
    return hv
