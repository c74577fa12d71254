"""Checking derivatives against central differences, to any order."""

import contextlib
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import backend
from .backward import grad
from .forwarder import Variable, new_variable
from .functional import call_signature
from .types import ArrayLike


class GradcheckError(AssertionError):
    """Raised by `gradcheck` when analytic and numerical derivatives disagree."""


def _as_outputs(ys, op="gradcheck"):
    if isinstance(ys, Variable):
        return [ys]
    if isinstance(ys, (tuple, list)) and all(isinstance(y, Variable) for y in ys):
        return list(ys)
    raise TypeError(f"{op}: f must return a Variable or a tuple of Variables, got {type(ys).__name__}")


def _positive(value, name, op, allow_zero):
    if not isinstance(value, (int, float, np.floating, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{op}: {name} must be a number, got {type(value).__name__}")
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{op}: {name} must be a finite number {bound}, got {value!r}")


def _prepare(f, xs, op):
    """Check `f` and copy the points `xs` into fresh ndarrays (numbers become float64)."""
    if not callable(f):
        raise TypeError(f"{op}: f must be callable, got {type(f).__name__}")
    if not xs:
        raise TypeError(f"{op}: give at least one input point after f")
    _refuse_more_inputs_than_f_takes(f, xs, op)
    arrays = []
    for i, x in enumerate(xs):
        if isinstance(x, Variable):
            x = x.data
        if backend.is_device_array(x):  # checked on the host copy, its Variables on the GPU
            a = backend.to_cpu(x).copy()
        elif isinstance(x, np.ndarray):
            a = x.copy()
        elif isinstance(x, (int, float, list, tuple)) and not isinstance(x, bool):
            try:
                a = np.array(x, dtype=np.float64)
            except (TypeError, ValueError) as error:
                raise TypeError(f"{op}: input {i} is not numeric ({error})") from None
        else:
            raise TypeError(f"{op}: input {i} must be an ndarray, Variable or number, got "
                            f"{type(x).__name__}")
        if a.dtype.kind not in "biuf":
            raise TypeError(f"{op}: input {i} must be real numbers, got dtype {a.dtype}")
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            raise ValueError(f"{op}: input {i} holds NaN or inf; derivatives there cannot be checked")
        arrays.append(a)
    return arrays


def _refuse_more_inputs_than_f_takes(f, xs, op):
    """A TypeError naming the keywords where f cannot take len(xs) positional inputs: every
    argument after f is a point (`V.taylorcheck(f, x, v, 3)` passes x, v and 3 to f)."""
    signature = call_signature(f)                # (Op.apply: Op.forward's)
    if signature is None:                        # (a ufunc, a builtin: no signature to read)
        return
    try:
        signature.bind(*xs)
    except TypeError as error:
        example = "eps=1e-6" if op == "numerical_grad" else "order=3"
        raise TypeError(
            f"{op}: f cannot take the {len(xs)} input(s) given ({error}): every positional "
            f"argument after f is a point, one per parameter of f, and the settings are keywords: "
            f"V.{op}(f, x, {example})" + (" (the direction is drawn at random)" if "taylor" in op else "")
        ) from None


def numerical_grad(
    f: Callable[..., Variable | Sequence[Variable]], *xs: ArrayLike, eps: float = 1e-4
) -> np.ndarray | tuple[np.ndarray, ...]:
    """Central-difference gradient of sum(f(*xs)) with respect to every input.

    Parameters
    ----------
    f : callable
        Takes Variables, returns a Variable or a tuple of Variables (non-scalar outputs
        are summed, as are several outputs).
    *xs : ArrayLike
        The point. Inputs that are not floating point get a zero gradient.
    eps : float
        Step of the central difference.

    Returns
    -------
    ndarray for one input, else a tuple of ndarrays (one per input, its shape), float64.

    Raises
    ------
    TypeError
        If `f` is not callable or does not return a Variable or a tuple of Variables, no point is
        given, an input is not real (a Variable, ndarray, number or list of numbers), or `eps` is
        not a number.
    ValueError
        If an input holds NaN or inf, or `eps` is not a finite number > 0.
    """
    arrays = _prepare(f, xs, "numerical_grad")
    _positive(eps, "eps", "numerical_grad", allow_zero=False)

    def total(values):
        # inputs require grad, as for a user's call: f may differentiate inside
        ys = _as_outputs(f(*[Variable(v) for v in values]), "numerical_grad")
        return sum(float(np.sum(y.data)) for y in ys)

    grads = _numerical(total, arrays, eps)
    return grads[0] if len(grads) == 1 else tuple(grads)


def _numerical(total, arrays, eps, skip=()):
    """Central differences of the scalar function `total(arrays)` at every entry (of the
    inputs whose index is not in `skip`)."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros(a.shape, dtype=np.float64)
        if a.dtype.kind in "fc" and k not in skip:
            flat, gflat = a.reshape(-1), g.reshape(-1)
            for i in range(flat.size):
                old = flat[i]
                flat[i] = old + eps
                plus = total(arrays)
                flat[i] = old - eps
                minus = total(arrays)
                flat[i] = old
                gflat[i] = (plus - minus) / (2 * eps)
        grads.append(g)
    return grads


def gradcheck(
    f: Callable[..., Variable | Sequence[Variable]],
    *xs: ArrayLike,
    order: int = 1,
    eps: float = 1e-6,
    rtol: float = 1e-4,
    atol: float = 1e-5,
    seed: int = 0,
    entrywise: bool = False,
    **others: Any,
) -> bool:
    """Check the derivatives of `f` at `xs` against central differences, up to `order`.

    Order 1 compares the vector-Jacobian product with a random incoming gradient u
    against differences of <f(x), u>.  Order k > 1 then checks, to order k - 1, the
    function (x, u) -> grad(<f(x), u>, x) built with create_graph=True, so the
    derivatives with respect to the incoming gradient are checked too (as
    gradgradcheck does).  Inputs that are not floating point are held constant.

    Parameters
    ----------
    f : callable
        Takes Variables, returns a Variable or a tuple of Variables.
    *xs : ArrayLike
        The point, in float64: central differences in float32 are dominated by rounding
        (an error of about 1e-7 / eps), so a float32 input gets a warning and a failure
        at float32 says so.
    order : int
        Highest derivative order to check (1, 2, 3, ...).
    eps, rtol, atol : float
        Difference step and tolerances (|analytic - numerical| <= atol + rtol |numerical|).
    seed : int
        Seed of the random incoming gradients.  They come from a stream of the
        checker's own (`_checker_rng`), never `np.random.default_rng(seed)`, which a test
        may have drawn its point from: an incoming gradient equal to the point hides
        wrong second-order backwards of scale-invariant ops.
    entrywise : bool
        Whether f acts entry by entry, as NumPy's ufuncs do (sin, x * y, scipy.special's
        functions): each entry of every output depends on the same entry of each input of the
        outputs' shape alone (inputs that broadcast may feed many).  The central differences
        then move all entries of such an input at once and read the outputs entry by entry: two
        calls of f per input and order instead of two per entry, the same numbers up to rounding.
        Inputs of another shape, and orders whose outputs differ in shape, are moved entry by
        entry as without it.  The claim is checked too: the central difference along one random
        direction of all inputs together must be what the entries' differences add up to.

    Returns
    -------
    True when every check passes.

    Raises
    ------
    GradcheckError
        Naming the order, the input and the worst entry when a check fails. There,
        "analytic" is the derivative gengrad's backward computed (at order k, through
        k - 1 nested create_graph passes) and "numerical" is the central difference
        (f(x + eps) - f(x - eps)) / (2 eps) of the same quantity; both are the entry of
        the vector-Jacobian product with a random incoming gradient, not of f itself.
    TypeError
        If `f` is not callable or does not return a Variable or a tuple of Variables, no point is
        given, an input is not real (a Variable, ndarray, number or list of numbers), `eps`,
        `rtol` or `atol` is not a number, or another keyword is given (PyTorch's `fast_mode`,
        `raise_exception`, ... are refused naming what stands for them here).
    ValueError
        If `order` is not a positive int, an input holds NaN or inf, `eps` is not a finite
        number > 0, or `rtol` or `atol` is not a finite number >= 0.
    """
    if others:
        _refuse_keyword(next(iter(others)))
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise ValueError(f"gradcheck: order must be a positive int, got {order!r}")
    if not isinstance(entrywise, bool):
        raise TypeError(f"gradcheck: entrywise must be True or False, got {entrywise!r}")
    arrays = _prepare(f, xs, "gradcheck")
    _positive(eps, "eps", "gradcheck", allow_zero=False)
    _positive(rtol, "rtol", "gradcheck", allow_zero=True)
    _positive(atol, "atol", "gradcheck", allow_zero=True)
    low = [i for i, a in enumerate(arrays) if a.dtype.kind == "f" and a.dtype != np.float64]
    if low:
        warnings.warn(
            f"gradcheck: input {low[0]} is {arrays[low[0]].dtype}; central differences need "
            f"float64 (in lower precision rounding dominates and correct derivatives fail). "
            f"Check at x.astype(np.float64)",
            UserWarning,
            stacklevel=2,
        )
    rng = _checker_rng(seed)
    with _on_device_of(xs):
        _check(f, arrays, order, 1, eps, rtol, atol, rng, entrywise)
    return True


_TORCH_KEYWORDS = {
    "fast_mode": "entrywise=True is the faster check, for an f that acts entry by entry as "
                 "NumPy's ufuncs do (any other f is checked entry by entry)",
    "raise_exception": "a failed check always raises V.GradcheckError, naming the order, the input "
                       "and the worst entry; catch it where a bool is wanted",
    "check_forward_ad": "V.taylorcheck(f, x, order=...) checks forward mode (jvp and the Taylor "
                        "rules)",
    "inputs": "the point is given positionally, one array per input of f: V.gradcheck(f, x, y)",
}


_TAYLOR_KEYWORDS = {
    "eps": "Taylor mode is checked against nested reverse mode, not central differences: there is "
           "no step to give",
    "entrywise": "there are no differences to take entry by entry: every entry is checked at once",
    "v": "the direction is drawn at random (seed=...); V.taylor(f, x, v, order) takes one of yours",
    "direction": "the direction is drawn at random (seed=...); V.taylor(f, x, v, order) takes one "
                 "of yours",
}
"""gradcheck's keywords (and V.taylor's direction) that the Taylor checkers do not take, and why."""


def _refuse_keyword(name, checker=None, op="gradcheck"):
    """A checker's TypeError for a keyword it does not take, PyTorch's (or gradcheck's, to a
    Taylor checker) named as such, listing the keywords it takes (read off its signature)."""
    *most, last = [p.name for p in inspect.signature(checker or gradcheck).parameters.values()
                   if p.kind is p.KEYWORD_ONLY]
    takes = f"{', '.join(most)} and {last}"
    if op == "gradcheck" and name in _TORCH_KEYWORDS:
        raise TypeError(f"gradcheck: {name}= is torch.autograd.gradcheck's keyword; in gengrad, "
                        f"{_TORCH_KEYWORDS[name]} (gradcheck takes {takes})")
    if op != "gradcheck" and name in _TAYLOR_KEYWORDS:
        raise TypeError(f"{op}() got an unexpected keyword argument {name!r}: {_TAYLOR_KEYWORDS[name]} "
                        f"({op} takes {takes})")
    raise TypeError(f"{op}() got an unexpected keyword argument {name!r}; it takes {takes}")


_CHECKER_STREAM = 0x6772_6164  # a word of our own mixed into the seed: "grad"


def _checker_rng(seed):
    """The checkers' random stream for `seed`: apart from np.random.default_rng(seed)."""
    return np.random.default_rng([_CHECKER_STREAM, seed])


@contextlib.contextmanager
def _on_device_of(xs):
    """While checking: Variables made from host copies go to the GPU if an input was there."""
    moved = any(backend.device_of(x) == "gpu" for x in xs) and backend.default_device() == "cpu"
    if moved:
        backend.set_default_device("gpu")
    try:
        yield
    finally:
        if moved:
            backend.set_default_device("cpu")


def _check(f, arrays, order, level, eps, rtol, atol, rng, entrywise=False):
    """First-order check of `f` at `arrays`; then recurse on its gradient function."""
    floating = [a.dtype.kind == "f" for a in arrays]
    xs = [Variable(a.copy(), requires_grad=fl) for a, fl in zip(arrays, floating)]
    ys = _as_outputs(f(*xs))
    us = [rng.standard_normal(y.shape).astype(y.dtype) for y in ys]
    xp = backend.get_array_module(*ys)
    seeds = [xp.asarray(u) for u in us]  # on the outputs' device

    wrt = [x for x, fl in zip(xs, floating) if fl]
    differentiable = [(y, u) for y, u in zip(ys, seeds) if y.requires_grad]
    if differentiable and wrt:
        analytic = grad([y for y, _ in differentiable], wrt,
                        grad_outputs=[new_variable(u) for _, u in differentiable],
                        allow_unused=True)
    else:
        analytic = [None] * len(wrt)
    analytic = [np.zeros(x.shape) if g is None else backend.to_cpu(g.data) for x, g in zip(wrt, analytic)]

    def total(values):
        # inputs require grad, as in the analytic pass: f may differentiate inside
        outs = _as_outputs(f(*[Variable(v, requires_grad=fl) for v, fl in zip(values, floating)]))
        return sum(float(np.sum(y.data * u)) for y, u in zip(outs, seeds))

    shapes = {y.shape for y in ys}
    together = [fl and entrywise and len(shapes) == 1 and a.shape in shapes and a.size > 1
                for a, fl in zip(arrays, floating)]
    if any(together):
        def entries(values):
            outs = _as_outputs(f(*[Variable(v, requires_grad=fl) for v, fl in zip(values, floating)]))
            return sum(backend.to_cpu(y.data * u).astype(np.float64) for y, u in zip(outs, seeds))

        numerical = _numerical_entrywise(total, entries, [a.copy() for a in arrays], together, eps)
        _check_entrywise(total, arrays, floating, numerical, level, eps, rtol, atol)   # (moves copies)
    else:
        numerical = _numerical(total, [a.copy() for a in arrays], eps)
    numerical = [g for g, fl in zip(numerical, floating) if fl]
    index = [i for i, fl in enumerate(floating) if fl]
    for i, a, n in zip(index, analytic, numerical):
        if a.shape != n.shape:
            raise GradcheckError(f"order {level}, input {i}: gradient shape {a.shape}, expected {n.shape}")
        if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=False):
            err = np.abs(a - n)
            worst = tuple(int(k) for k in np.unravel_index(np.argmax(err), err.shape))
            hint = ""
            if arrays[i].dtype != np.float64:
                hint = (
                    f"; the input is {arrays[i].dtype}, where rounding alone makes central "
                    f"differences this wrong: check in float64"
                )
            raise GradcheckError(
                f"order {level}, input {i}: analytic and numerical derivatives differ "
                f"(max abs error {float(err.max()):.3g} at index {worst}: "
                f"analytic {float(a[worst])!r} (from backward), "
                f"numerical {float(n[worst])!r} (central differences)){hint}"
            )
    if order > level:
        n_in = len(arrays)

        def gradient_of_f(*values):
            inputs, seeds = values[:n_in], values[n_in:]
            outs = _as_outputs(f(*inputs))
            pairs = [(y, u) for y, u in zip(outs, seeds) if y.requires_grad]
            targets = [x for x in inputs if x.requires_grad]
            if not pairs or not targets:
                return tuple(x * 0 for x in targets) or (inputs[0] * 0,)
            gs = grad([y for y, _ in pairs], targets, grad_outputs=[u for _, u in pairs],
                      create_graph=True, allow_unused=True)
            return tuple(x * 0 if g is None else g for x, g in zip(targets, gs))

        _check(gradient_of_f, arrays + us, order, level + 1, eps, rtol, atol, rng, entrywise)


def _numerical_entrywise(total, entries, arrays, together, eps):
    """_numerical, where each input of `together` moves all its entries at once and its
    gradient is read off `entries` (the outputs' products with their incoming gradients, entry
    by entry); the others by `total`, entry by entry."""
    grads = _numerical(total, arrays, eps, skip={i for i, t in enumerate(together) if t})
    for i, (a, t) in enumerate(zip(arrays, together)):
        if t:
            old = a.copy()
            a[...] = old + eps
            plus = entries(arrays)
            a[...] = old - eps
            minus = entries(arrays)
            a[...] = old
            grads[i] = (plus - minus) / (2 * eps)
    return grads


def _check_entrywise(total, arrays, floating, numerical, level, eps, rtol, atol):
    """gradcheck's entrywise=True held to its claim: along a random direction v of the inputs,
    the central difference of `total` equals sum v . (the entry-by-entry gradients)."""
    rng = np.random.default_rng([_CHECKER_STREAM, level])    # (apart from the incoming gradients' stream)
    vs = [rng.standard_normal(a.shape) if fl else np.zeros(a.shape) for a, fl in zip(arrays, floating)]
    plus = total([(a + eps * v).astype(a.dtype) if fl else a for a, v, fl in zip(arrays, vs, floating)])
    minus = total([(a - eps * v).astype(a.dtype) if fl else a for a, v, fl in zip(arrays, vs, floating)])
    along = (plus - minus) / (2 * eps)
    added = sum(float(np.sum(v * g)) for v, g in zip(vs, numerical))
    bound = sum(float(np.sum(np.abs(v) * (atol + rtol * np.abs(g)))) for v, g in zip(vs, numerical))
    if not abs(along - added) <= bound:
        raise GradcheckError(
            f"order {level}: f is not entrywise (gradcheck's entrywise=True): along a random "
            f"direction its central difference is {along!r}, while the entries' own differences "
            f"add up to {added!r}; check it without entrywise=True"
        )


def taylorcheck(
    f: Callable[..., Variable | Sequence[Variable]],
    *xs: ArrayLike,
    order: int = 3,
    rtol: float = 1e-8,
    atol: float = 1e-12,
    seed: int = 0,
    **others: Any,
) -> bool:
    """Check `V.taylor` and `V.jvp` of `f` at `xs` against reverse mode, up to `order`.

    Along a random direction v (one per floating-point input), the k-th derivative that
    Taylor mode gives must match k nested V.grad(create_graph=True) calls through a
    scalar t, of <w, f(x + t v)> for random weights w of the outputs; and for a single
    output, the jvp must match J v with J from V.jacobian.  Inputs that are not floating
    point are held constant.  This is how to test a custom Forwarder's `taylor` rule.

    Parameters
    ----------
    f : callable
        Takes Variables, returns a Variable or a tuple of Variables.
    *xs : ArrayLike
        The point (use float64).
    order : int
        Highest derivative order to check (1, 2, 3, ...).
    rtol, atol : float
        Tolerances: |taylor - nested| <= atol + rtol (|w| . |D^k f| + |nested|).
    seed : int
        Seed of the random direction and weights, drawn from the checkers' own stream
        (as in `gradcheck`), apart from np.random.default_rng(seed).

    Returns
    -------
    True when every check passes.

    Raises
    ------
    GradcheckError
        Naming the order and both values when a check fails.
    TypeError
        As gradcheck, for `f` and the point, or for a keyword it does not take (gradcheck's
        `eps` and `entrywise` named as such).
    ValueError
        If `order` is not a positive int, or an input holds NaN or inf.
    NotImplementedError
        If an op of `f` has no Taylor rule.
    """
    if others:
        _refuse_keyword(next(iter(others)), taylorcheck, "taylorcheck")
    return _run_taylor_check(_check_taylor, "taylorcheck", f, xs, order, rtol, atol, seed)


def _run_taylor_check(check, op, f, xs, order, rtol, atol, seed):
    """The arguments of taylorcheck or taylor_gradcheck checked, then `check` run on the
    device of the inputs."""
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise ValueError(f"{op}: order must be a positive int, got {order!r}")
    arrays = _prepare(f, xs, op)
    _positive(rtol, "rtol", op, allow_zero=True)
    _positive(atol, "atol", op, allow_zero=True)
    rng = _checker_rng(seed)
    with _on_device_of(xs):
        check(f, arrays, order, rtol, atol, rng)
    return True


def _taylor_pass(f, arrays, order, rng, op):
    """One V.taylor pass of `f` at `arrays` along a random direction of its floating-point
    inputs: (their indices, f of them alone, the points (Variables), the directions, the
    coefficients, the outputs, random weights for them)."""
    from .forward_mode import taylor  # (forward_mode imports nothing from here)

    floating = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    vs = [rng.standard_normal(arrays[i].shape).astype(arrays[i].dtype) for i in floating]

    def along(*points):
        """f with its floating-point inputs given, the others held at their values."""
        values = [Variable(a, requires_grad=False) for a in arrays]
        for i, p in zip(floating, points):
            values[i] = p
        return f(*values)

    points = tuple(Variable(arrays[i].copy(), requires_grad=True) for i in floating)
    coefficients = taylor(along, points, tuple(vs), order)
    ys = _as_outputs(coefficients[0], op)
    xp = backend.get_array_module(*ys)
    ws = [xp.asarray(rng.standard_normal(y.shape)) for y in ys]
    return floating, along, points, [xp.asarray(v) for v in vs], coefficients, ys, ws


def _check_taylor(f, arrays, order, rtol, atol, rng):
    from .forward_mode import jvp  # (forward_mode imports nothing from here)
    from .functional import jacobian

    floating, along, points, vs, coefficients, ys, ws = _taylor_pass(f, arrays, order, rng, "taylorcheck")

    # the reference: k nested reverse passes through a scalar t, at x + t v
    t = Variable(np.array(0.0))
    moved = along(*[Variable(arrays[i].copy(), requires_grad=False) + t * v for i, v in zip(floating, vs)])
    projected = sum(
        (y * w).sum() for y, w in zip(_as_outputs(moved, "taylorcheck"), ws) if y.requires_grad
    )
    for k in range(1, order + 1):
        derivatives = _as_outputs(coefficients[k], "taylorcheck")
        got = sum(float(np.sum(d.data * w)) for d, w in zip(derivatives, ws))
        scale = sum(float(np.sum(np.abs(d.data * w))) for d, w in zip(derivatives, ws))
        if isinstance(projected, Variable) and projected.requires_grad:
            projected = grad(projected, t, create_graph=True, allow_unused=True)
        else:
            projected = None
        expected = 0.0 if projected is None else float(projected.data)
        if not abs(got - expected) <= atol + rtol * (scale + abs(expected)):
            raise GradcheckError(
                f"order {k}: Taylor mode gives {got!r} for <w, D_v^{k} f>, nested reverse mode "
                f"(V.grad with create_graph=True, {k} times) gives {expected!r}"
            )
    if len(ys) == 1 and floating:
        _, tangent = jvp(along, points, tuple(vs))
        tangent = tangent[0] if isinstance(tangent, tuple) else tangent  # f returned a 1-tuple
        expected = backend.get_array_module(*ys).zeros(ys[0].shape)
        for i, v in zip(floating, vs):
            def single(p, i=i):
                y = along(*[p if j == i else Variable(arrays[j]) for j in floating])
                return y[0] if isinstance(y, tuple) else y
            J = jacobian(single, Variable(arrays[i].copy())).data
            expected = expected + np.tensordot(J, v, axes=v.ndim)
        if not bool(np.allclose(tangent.data, expected, rtol=1e-7, atol=atol * 100)):
            raise GradcheckError(
                f"jvp: J v from forward mode {tangent.data!r} differs from J v with J from "
                f"V.jacobian {expected!r}"
            )
    return True


def taylor_gradcheck(
    f: Callable[..., Variable | Sequence[Variable]],
    *xs: ArrayLike,
    order: int = 2,
    rtol: float = 1e-7,
    atol: float = 1e-10,
    seed: int = 0,
    **others: Any,
) -> bool:
    """Check that `V.taylor`'s derivatives of `f` are differentiable, and rightly: reverse
    over Taylor mode against nested reverse mode.

    Along a random direction v, for k = 1 .. `order`, the gradient with respect to the
    inputs of <w, D_v^k f(x)> (the Taylor pass recorded, every op's rule run on Variables:
    `taylor_records`) must equal the gradient of the same number computed by k nested
    V.grad(create_graph=True) calls through a scalar t.  This is how to test a custom
    Forwarder that sets `taylor_records = True`; an op without a recording rule on the way
    fails the check, naming it.

    Parameters, returns and errors are those of `taylorcheck`.
    """
    if others:
        _refuse_keyword(next(iter(others)), taylor_gradcheck, "taylor_gradcheck")
    return _run_taylor_check(_check_taylor_grad, "taylor_gradcheck", f, xs, order, rtol, atol, seed)


def _check_taylor_grad(f, arrays, order, rtol, atol, rng):
    floating, along, points, vs, coefficients, ys, ws = _taylor_pass(f, arrays, order, rng,
                                                                     "taylor_gradcheck")
    starts = [Variable(arrays[i].copy(), requires_grad=True) for i in floating]
    t = Variable(np.array(0.0))
    moved = along(*[x + t * v for x, v in zip(starts, vs)])
    outputs = _as_outputs(moved, "taylor_gradcheck")
    projected = sum((y * w).sum() for y, w in zip(outputs, ws) if y.requires_grad)

    def gradients(total, wrt):
        if not (isinstance(total, Variable) and total.requires_grad):
            return [None] * len(wrt)
        return grad(total, wrt, allow_unused=True)

    for k in range(1, order + 1):
        derivatives = _as_outputs(coefficients[k], "taylor_gradcheck")
        total = sum((d * w).sum() for d, w in zip(derivatives, ws))
        try:
            got = gradients(total, list(points))
        except ValueError as error:   # a derivative with no graph (an op without a recording rule)
            raise GradcheckError(f"order {k}: {error}") from None
        if isinstance(projected, Variable) and projected.requires_grad:
            projected = grad(projected, t, create_graph=True, allow_unused=True)
        else:
            projected = None
        expected = gradients(projected, starts)
        for i, (g, e) in enumerate(zip(got, expected)):
            g = np.zeros(arrays[floating[i]].shape) if g is None else backend.to_cpu(g.data)
            e = np.zeros(arrays[floating[i]].shape) if e is None else backend.to_cpu(e.data)
            if not np.allclose(g, e, rtol=rtol, atol=atol * (1 + float(np.abs(e).max(initial=0)))):
                raise GradcheckError(
                    f"order {k}, input {floating[i]}: the gradient of <w, D_v^{k} f> through the "
                    f"recorded Taylor pass is {g!r}, nested reverse mode gives {e!r}"
                )
    return True
