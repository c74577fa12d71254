"""Property test of chains of ops: random compositions, checked to second order.

Each example draws one to three float64 inputs whose shapes broadcast together (the first
has the full shape: a scalar, (3,), (2, 3), (2, 1, 3), (2, 2, 3), or an empty (0, 3) or
(2, 0); the others drop leading axes and set some to 1, as (1, 3), (2, 1) or (1, 0)), about
half of them with entries exactly 0.0.  Then two to five ops, each applied to one live
value (a binary op takes a second live value it broadcasts with, possibly the same one):
elementwise functions, powers, activations, kinked ops, reductions with axis/keepdims,
softmax, shape ops, indexing, joining, matmul, where.  The chain ends by weighting every
live value with constant random weights (so no symmetry hides a gradient sent to the
wrong place) and summing to a scalar f.

`check_chain` runs V.gradcheck(f, order=2): the gradient against central differences,
then the gradient of <grad f, u> built with create_graph=True against central differences
of the gradient, for random u.  Central differences say nothing about an empty input, so
every gradient is also checked to be a finite array of its input's shape.

Values stay where central differences are accurate: a value whose magnitude passes LIMIT
is scaled back by a power of two (an op of the chain, named in its description); kinked
ops (abs, relu, clip, maximum, minimum, max, min) are drawn only where their input lies at
least GAP from the kink or tie; a divisor, or the input of log or sqrt, is lifted by a
whole number where some entry is below DIVISOR.  Smooth ops keep exact zeros (powers, sin,
tanh, products, sums, relu's zeros), so powers are checked at 0.  Every value stays finite:
mean, variance and logsumexp reduce over non-empty axes only (over an empty axis they give
NaN or -inf; the fixed chains below take those up where the chain stays finite), max and
min too (they refuse an empty axis), so any exception is a failure.

A failure names the chain: its inputs (shapes and values) and each op with the shape it
gave.  test_a_broken_backward_is_caught and test_the_random_chains_catch_a_broken_backward
show that the same machinery fails a subtly wrong backward, at the order where it is wrong.

Taylor mode runs on the same chains: for a quarter as many, `check_chain_taylor` runs
V.taylorcheck to order 4 (each derivative along a random direction against nested reverse
mode, the jvp against V.jacobian), and a tanh rule wrong from order 3 on is caught.
"""

import itertools
import math
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from rel_draws import Draws  # a sibling module: tests/reliability is on sys.path

import function as F
import variable as V
from variable import series
from variable.ops import elementwise, trigonometric

EXAMPLES = int(os.environ.get("GENGRAD_CHAIN_EXAMPLES", "1000"))
"""Random chains checked (about 5 s on one core)."""
LIMIT = 2.0       # a value larger in magnitude is scaled back by a power of two
GAP = 0.05        # distance kept from kinks and ties (gradcheck's step is 1e-6)
DIVISOR = 0.5     # smallest divisor magnitude
MAX_SIZE = 24     # no value grows past this many numbers
FULL_SHAPES = [(2, 3), (0, 3), (2, 0), (2, 1, 3), (2, 2, 3), (3,), ()]
"""Each example's inputs broadcast to one of these (dropping leading axes, setting some to 1)."""

SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ----- chains --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One op of a chain: live[target] = call(*(live[i] for i in operands))."""

    name: str
    text: str             # formatted with the operands' names: "maximum({0}, {1})"
    call: Callable
    target: int
    operands: tuple


def step(name, text, call, target=0, operands=None):
    """A Step on live[target], taking live[target] alone unless `operands` are given."""
    return Step(name, text, call, target, (target,) if operands is None else tuple(operands))


def run(steps, xs, shapes=None):
    """The chain's scalar at the Variables `xs`; `shapes`, a list, collects each op's output shape."""
    live = list(xs)
    for s in steps:
        live[s.target] = s.call(*[live[i] for i in s.operands])
        if shapes is not None:
            shapes.append(live[s.target].shape)
    total = V.sum(live[0])
    for v in live[1:]:
        total = total + V.sum(v)
    return total


def describe(steps, arrays):
    """The chain as text: inputs with shapes and values, one line per op with its output's shape."""
    shapes = []
    try:
        with V.no_grad():
            run(steps, [V.Variable(a) for a in arrays], shapes)
    except Exception as error:                      # the op that raises is named as such
        shapes.append(f"raises {type(error).__name__}")
    lines = [f"v{i} = np.array({a.tolist()!r}).reshape({a.shape})  # {a.shape}"
             for i, a in enumerate(arrays)]
    for s, shape in zip(steps, shapes + ["not reached"] * len(steps)):
        lines.append(f"v{s.target} = {s.text.format(*[f'v{i}' for i in s.operands])}  # {shape}")
    lines.append("f = " + " + ".join(f"sum(v{i})" for i in range(len(arrays))))
    return "chain [" + ", ".join(s.name for s in steps) + "]:\n    " + "\n    ".join(lines)


def check_chain(steps, arrays):
    """V.gradcheck to order 2 of the chain at `arrays`, and finite gradients of the inputs' shapes.

    Raises an AssertionError holding the check's message and the chain's description.
    """
    def f(*xs):
        return run(steps, xs)

    try:
        V.gradcheck(f, *arrays, order=2)
        xs = [V.Variable(a) for a in arrays]
        y = f(*xs)
        if not np.isfinite(y.data):                  # chains are drawn to stay finite
            raise AssertionError(f"the chain's value is {y.data}")
        grads = V.grad(y, xs, materialize_grads=True)
        for i, (a, g) in enumerate(zip(arrays, grads)):
            if g.shape != a.shape or not np.isfinite(g.data).all():
                raise AssertionError(f"gradient of input {i}: shape {g.shape} (input {a.shape}), "
                                     f"values {g.data.tolist()}")
    except Exception as error:
        raise AssertionError(f"{type(error).__name__}: {error}\n{describe(steps, arrays)}") from error


# ----- drawing inputs ----------------------------------------------------------------------------
def draw_inputs(data, rng):
    """One to three float64 arrays whose shapes broadcast together, some entries exactly 0."""
    full = data.draw(st.sampled_from(FULL_SHAPES), label="broadcast shape")
    arrays = []
    for k in range(data.draw(st.integers(1, 3), label="inputs")):
        shape = full                                 # the first input has the full shape
        if k:
            lead = data.draw(st.integers(0, len(full)))
            ones = data.draw(st.lists(st.booleans(), min_size=len(full) - lead, max_size=len(full) - lead))
            shape = tuple(1 if one else n for one, n in zip(ones, full[lead:]))
        a = rng.uniform(-2.0, 2.0, shape)
        if rng.random() < 0.5:                      # exact zeros in about half the inputs
            a = np.where(rng.random(shape) < 0.4, 0.0, a)
        arrays.append(np.asarray(a, dtype=np.float64))
    return arrays


def _axes(axis, ndim):
    """`axis` (None, int or tuple, negatives allowed) as a tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))


def draw_axis(data, ndim, allow_empty_tuple=True):
    """None, an int (negative too) or a tuple of distinct axes of an array of `ndim` dims."""
    options = [st.none()]
    if ndim:
        options += [st.integers(-ndim, ndim - 1),
                    st.lists(st.integers(0, ndim - 1), unique=True, min_size=0 if allow_empty_tuple else 1,
                             max_size=ndim).map(tuple)]
    return data.draw(st.one_of(*options))


def _fits(*shapes):
    """Whether `shapes` broadcast together, to at most MAX_SIZE numbers."""
    try:
        return math.prod(np.broadcast_shapes(*shapes)) <= MAX_SIZE
    except ValueError:
        return False


# ----- the ops a chain draws from: make(data, live, target) -> Step, or None where it does not apply
def unary(name, call, text=None, domain=None):
    """An elementwise op, drawn only where `domain(x)` holds if given."""
    def make(data, live, t):
        if domain is not None and not domain(live[t].data):
            return None
        return step(name, text or f"{name}({{0}})", call, t)
    return make


def _off_kink(x):
    return bool(np.all(np.abs(x) >= GAP))


def _lift(x, fits):
    """0.0 where the values `fits`, else the whole number that lifts min(x) into [1, 2)."""
    return 0.0 if fits else float(np.ceil(1.0 - x.min()))


def positive(name, call):
    """log or sqrt: the input lifted by a whole number where some entry is below DIVISOR."""
    def make(data, live, t):
        shift = _lift(live[t].data, np.all(live[t].data >= DIVISOR))
        if not shift:
            return step(name, f"{name}({{0}})", call, t)
        return step(name, f"{name}({{0}} + {shift})", lambda v: call(v + shift), t)
    return make


def make_clip(data, live, t):
    lo = data.draw(st.sampled_from([-1.0, -0.25, None]), label="lo")
    hi = data.draw(st.sampled_from([0.5, 1.5] + ([None] if lo is not None else [])), label="hi")
    if any(np.any(np.abs(live[t].data - b) < GAP) for b in (lo, hi) if b is not None):
        return None
    return step("clip", f"clip({{0}}, {lo}, {hi})", lambda v: V.clip(v, lo, hi), t)


def make_pow(data, live, t):
    c = data.draw(st.sampled_from([0, 1, 2, 3]), label="exponent")
    return step("pow", f"{{0}} ** {c}", lambda x: x ** c, t)


def make_shift(data, live, t):
    c = data.draw(st.sampled_from([0.5, -0.75]), label="shift")
    return step("add constant", f"{{0}} + {c}", lambda x: x + c, t)


def _extreme_is_clear(x, axis, pick):
    """Whether every slice's max (pick=-1) or min (pick=0) beats its runner-up by GAP."""
    axes = _axes(axis, x.ndim)
    count = math.prod(x.shape[a] for a in axes)
    if count < 2:
        return True
    rows = np.sort(np.moveaxis(x, axes, range(x.ndim - len(axes), x.ndim)).reshape(-1, count), axis=1)
    gaps = rows[:, -1] - rows[:, -2] if pick == -1 else rows[:, 1] - rows[:, 0]
    return bool(np.all(gaps >= GAP))


def reduction(name, call, nonempty=False, pick=None):
    """A reduction with axis and keepdims; `nonempty`: over non-empty axes only."""
    def make(data, live, t):
        x = live[t].data
        axis = draw_axis(data, x.ndim)
        keepdims = data.draw(st.booleans(), label="keepdims")
        if nonempty and math.prod(x.shape[a] for a in _axes(axis, x.ndim)) == 0:
            return None
        if pick is not None and not _extreme_is_clear(x, axis, pick):
            return None
        return step(name, f"{name}({{0}}, axis={axis!r}, keepdims={keepdims})",
                    lambda v: call(v, axis=axis, keepdims=keepdims), t)
    return make


def normalizer(name, call):
    """softmax or log_softmax over axes of an input of at least one dimension, empty axes too."""
    def make(data, live, t):
        if live[t].ndim == 0:
            return None
        axis = draw_axis(data, live[t].ndim, allow_empty_tuple=False)
        return step(name, f"{name}({{0}}, axis={axis!r})", lambda v: call(v, axis=axis), t)
    return make


def make_reshape(data, live, t):
    shape = live[t].shape
    target = tuple(shape[i] for i in data.draw(st.permutations(range(len(shape)))))
    kind = data.draw(st.sampled_from(["permuted", "flat", "new axis", "minus one"]), label="reshape")
    if kind == "flat":
        target = (math.prod(shape),)
    elif kind == "new axis":
        i = data.draw(st.integers(0, len(target)))
        target = target[:i] + (1,) + target[i:]
    elif kind == "minus one" and target and math.prod(target):   # -1 is ambiguous next to a 0
        i = data.draw(st.integers(0, len(target) - 1))
        target = target[:i] + (-1,) + target[i + 1:]
    return step("reshape", f"reshape({{0}}, {target})", lambda v: V.reshape(v, target), t)


def make_expand_dims(data, live, t):
    axis = data.draw(st.integers(-live[t].ndim - 1, live[t].ndim), label="axis")
    return step("expand_dims", f"expand_dims({{0}}, {axis})", lambda v: V.expand_dims(v, axis), t)


def make_squeeze(data, live, t):
    ones = [i for i, n in enumerate(live[t].shape) if n == 1]
    if not ones:
        return None
    axis = data.draw(st.one_of(st.none(), st.sampled_from(ones),
                               st.lists(st.sampled_from(ones), unique=True, min_size=1).map(tuple)))
    return step("squeeze", f"squeeze({{0}}, {axis!r})", lambda v: V.squeeze(v, axis), t)


def make_sum_to(data, live, t):
    shape = live[t].shape
    lead = data.draw(st.integers(0, len(shape)), label="dropped axes")
    ones = data.draw(st.lists(st.booleans(), min_size=len(shape) - lead, max_size=len(shape) - lead))
    target = tuple(1 if one else n for one, n in zip(ones, shape[lead:]))
    return step("sum_to", f"sum_to({{0}}, {target})", lambda v: V.sum_to(v, target), t)


def make_transpose(data, live, t):
    ndim = live[t].ndim
    if not 2 <= ndim <= 4:
        return None
    moves = [p for p in itertools.permutations(range(ndim)) if p != tuple(range(ndim))]
    axes = data.draw(st.sampled_from(moves), label="axes")      # cycles too, not only swaps
    if axes == tuple(range(ndim))[::-1] and data.draw(st.booleans()):
        axes = None                                  # the same permutation, as the default
    return step("transpose", f"transpose({{0}}, {axes})", lambda v: V.transpose(v, axes), t)


def make_broadcast_to(data, live, t):
    shape = live[t].shape
    targets = [(2,) + shape] if len(shape) < 3 else []
    for i, n in enumerate(shape):
        if n == 1:                                   # a length-1 axis grows, or empties
            targets += [shape[:i] + (m,) + shape[i + 1:] for m in (3, 0)]
    targets = [s for s in targets if math.prod(s) <= MAX_SIZE]
    if not targets:
        return None
    target = data.draw(st.sampled_from(targets), label="broadcast to")
    return step("broadcast_to", f"broadcast_to({{0}}, {target})", lambda v: V.broadcast_to(v, target), t)


def make_get_item(data, live, t):
    def ends(n):
        return st.one_of(st.none(), st.integers(-n - 1, n + 1))

    shape = live[t].shape
    if not shape:
        return None
    kind = data.draw(st.sampled_from(["slice", "last axis", "int", "repeats"]), label="index")
    if kind == "slice":
        n = shape[0]
        index = slice(data.draw(ends(n)), data.draw(ends(n)), data.draw(st.sampled_from([1, 2, -1])))
    elif kind == "last axis":
        n = shape[-1]
        index = (Ellipsis, slice(data.draw(ends(n)), data.draw(ends(n))))
    elif kind == "int" and shape[0]:
        index = data.draw(st.integers(-shape[0], shape[0] - 1))
    elif kind == "repeats" and shape[0]:                # repeated indices accumulate their gradients
        index = data.draw(st.lists(st.integers(0, shape[0] - 1), min_size=1, max_size=4))
    else:
        return None
    return step("get_item", f"{{0}}[{index!r}]", lambda v: V.get_item(v, index), t)


def binary(name, call, fits=lambda x0, x1: True):
    """A binary op of the target and a live value it broadcasts with, in either order."""
    def make(data, live, t):
        pairs = [p for p in _pairs(live, t) if fits(live[p[0]].data, live[p[1]].data)]
        if not pairs:
            return None
        pair = data.draw(st.sampled_from(pairs), label="operands")
        return step(name, f"{name}({{0}}, {{1}})", call, t, pair)
    return make


def _pairs(live, t):
    """(t, j) and (j, t) for every live value j that broadcasts with the target."""
    return [p for j in range(len(live)) for p in ((t, j), (j, t))
            if _fits(live[p[0]].shape, live[p[1]].shape)]


def make_div(data, live, t):
    """x0 / x1, with x1 lifted by a whole number where some |x1| < DIVISOR."""
    pair = data.draw(st.sampled_from(_pairs(live, t)), label="operands")   # (t, t) always fits
    x1 = live[pair[1]].data
    shift = _lift(x1, np.all(np.abs(x1) >= DIVISOR))
    if not shift:
        return step("div", "div({0}, {1})", V.div, t, pair)
    return step("div", f"div({{0}}, {{1}} + {shift})", lambda a, b: V.div(a, b + shift), t, pair)


def make_where(data, live, t):
    """where(mask, x0, x1) with a constant mask of the broadcast shape."""
    pair = data.draw(st.sampled_from(_pairs(live, t)), label="operands")
    shape = np.broadcast_shapes(live[pair[0]].shape, live[pair[1]].shape)
    size = math.prod(shape)
    mask = np.reshape(data.draw(st.lists(st.booleans(), min_size=size, max_size=size)), shape).astype(bool)
    return step("where", f"where({mask.tolist()!r}, {{0}}, {{1}})", lambda a, b: V.where(mask, a, b), t, pair)


def _matmul_shape(s0, s1):
    try:
        return np.matmul(np.zeros(s0), np.zeros(s1)).shape
    except ValueError:
        return None


def make_matmul(data, live, t):
    """x0 @ x1, or x0 @ x1 with its last two axes swapped (x @ x^T among them)."""
    options = []
    for p in [p for j in range(len(live)) for p in ((t, j), (j, t))]:
        s0, s1 = live[p[0]].shape, live[p[1]].shape
        for swap in (False, True) if len(s1) >= 2 else (False,):
            shape = _matmul_shape(s0, s1[:-2] + s1[:-3:-1] if swap else s1)
            if shape is not None and math.prod(shape) <= MAX_SIZE:
                options.append((p, swap))
    if not options:
        return None
    pair, swap = data.draw(st.sampled_from(options), label="operands")
    if not swap:
        return step("matmul", "matmul({0}, {1})", V.matmul, t, pair)
    n = live[pair[1]].ndim
    axes = tuple(range(n - 2)) + (n - 1, n - 2)
    return step("matmul", f"matmul({{0}}, transpose({{1}}, {axes}))",
                lambda a, b: V.matmul(a, V.transpose(b, axes)), t, pair)


def make_concat(data, live, t):
    """concat with another live value that matches off the axis, or with a leading part of itself
    (k entries along the axis, none to all of them): operands of different lengths."""
    x = live[t]
    if x.ndim == 0:
        return None
    axis = data.draw(st.integers(0, x.ndim - 1), label="axis")
    partners = [j for j, v in enumerate(live) if j != t and v.ndim == x.ndim and x.size + v.size <= MAX_SIZE
                and all(a == b for k, (a, b) in enumerate(zip(x.shape, v.shape)) if k != axis)]
    negative = axis - x.ndim if data.draw(st.booleans(), label="negative axis") else axis
    if partners and data.draw(st.booleans(), label="with another value"):
        j = data.draw(st.sampled_from(partners), label="concat with")
        pair = (t, j) if data.draw(st.booleans(), label="order") else (j, t)
        return step("concat", f"concat([{{0}}, {{1}}], axis={negative})",
                    lambda a, b: V.concat([a, b], axis=negative), t, pair)
    k = data.draw(st.integers(0, x.shape[axis]), label="part")
    if x.size + math.prod(x.shape[:axis] + (k,) + x.shape[axis + 1:]) > MAX_SIZE:
        return None
    index = (slice(None),) * axis + (slice(0, k),)
    return step("concat", f"concat([{{0}}, {{0}}[{index!r}]], axis={negative})",
                lambda a: V.concat([a, V.get_item(a, index)], axis=negative), t)


def make_stack(data, live, t):
    x = live[t]
    partners = [j for j, v in enumerate(live) if v.shape == x.shape and 2 * x.size <= MAX_SIZE]
    if not partners:
        return None
    j = data.draw(st.sampled_from(partners), label="stack with")
    axis = data.draw(st.integers(-x.ndim - 1, x.ndim), label="axis")
    return step("stack", f"stack([{{0}}, {{1}}], axis={axis})",
                lambda a, b: V.stack([a, b], axis=axis), t, (t, j))


def _separated(x0, x1):
    return bool(np.all(np.abs(np.subtract(x0, x1)) >= GAP))


MAKERS = {
    "sin": unary("sin", V.sin), "cos": unary("cos", V.cos), "tanh": unary("tanh", V.tanh),
    "tan": unary("tan", V.tan, domain=lambda x: bool(np.all(np.abs(x) <= 1.2))),
    "sinh": unary("sinh", V.sinh), "cosh": unary("cosh", V.cosh),
    "exp": unary("exp", V.exp), "neg": unary("neg", V.neg), "log": positive("log", V.log),
    "sqrt": positive("sqrt", V.sqrt),
    "square": unary("square", V.square), "mul self": unary("mul self", lambda x: x * x, "{0} * {0}"),
    "sigmoid": unary("sigmoid", F.sigmoid), "softplus": unary("softplus", F.softplus),
    "pow": make_pow, "add constant": make_shift,
    "abs": unary("abs", V.abs, domain=_off_kink), "relu": unary("relu", F.relu, domain=_off_kink),
    "clip": make_clip, "flatten": unary("flatten", V.flatten, domain=lambda x: x.ndim >= 1),
    "expand_dims": make_expand_dims, "squeeze": make_squeeze, "sum_to": make_sum_to,
    "sum": reduction("sum", V.sum), "mean": reduction("mean", V.mean, nonempty=True),
    "variance": reduction("variance", V.variance, nonempty=True),
    "logsumexp": reduction("logsumexp", V.logsumexp, nonempty=True),
    "max": reduction("max", V.max, nonempty=True, pick=-1),
    "min": reduction("min", V.min, nonempty=True, pick=0),
    "softmax": normalizer("softmax", F.softmax), "log_softmax": normalizer("log_softmax", F.log_softmax),
    "reshape": make_reshape, "transpose": make_transpose, "broadcast_to": make_broadcast_to,
    "get_item": make_get_item, "concat": make_concat, "stack": make_stack,
    "add": binary("add", V.add), "sub": binary("sub", V.sub), "mul": binary("mul", V.mul),
    "div": make_div, "where": make_where, "matmul": make_matmul,
    "maximum": binary("maximum", V.maximum, _separated), "minimum": binary("minimum", V.minimum, _separated),
}
NAMES = sorted(MAKERS)


def _rescaled(out, t):
    """A step scaling `out` back into [-LIMIT, LIMIT] by a power of two, or None if it is inside."""
    top = float(np.max(np.abs(out.data), initial=0.0))
    if top <= LIMIT:
        return None
    factor = 0.5 ** math.ceil(math.log2(top / LIMIT))
    return step("scale", f"{{0}} * {factor!r}", lambda v: v * factor, t)


def draw_chain(data, rng, arrays):
    """Two to five ops drawn for `arrays`, each fitting the values it meets there.

    The op list is shuffled by `rng` for each chain: hypothesis favours the first entry of a
    list, and that favour is better spread over all ops.
    """
    names = [NAMES[i] for i in rng.permutation(len(NAMES))]
    live = [V.Variable(a) for a in arrays]
    steps = []

    for _ in range(data.draw(st.integers(2, 5), label="ops")):
        t = data.draw(st.integers(0, len(live) - 1), label="target")
        k = data.draw(st.integers(0, len(names) - 1), label="op")
        for name in names[k:] + names[:k]:           # the first that applies (sin always does)
            s = MAKERS[name](data, live, t)
            if s is not None:
                break
        steps.append(s)
        try:
            with V.no_grad():
                live[t] = s.call(*[live[i] for i in s.operands])
        except Exception:                            # a bug: the chain ends here, check_chain reports it
            return steps
        scale = _rescaled(live[t], t)
        if scale is not None:
            steps.append(scale)
            live[t] = scale.call(live[t])
    for i, v in enumerate(live):                     # weights break symmetries of the final sum
        w = np.round(rng.choice([-1.0, 1.0], v.shape) * rng.uniform(0.5, 1.5, v.shape), 2)
        steps.append(step("weights", f"{{0}} * np.array({w.tolist()!r}).reshape({w.shape})",
                          lambda x, w=w: x * w, i))
    return steps


# ----- the property --------------------------------------------------------------------------------
SEEDS = st.integers(0, 2**32 - 1)


@st.composite
def _example(draw, seed):
    rng = np.random.default_rng(seed)
    data = Draws(draw)
    arrays = draw_inputs(data, rng)
    return draw_chain(data, rng, arrays), arrays


def draw_example(data, seed):
    """The inputs (values from a generator seeded by `seed`) and a chain drawn for them, in one
    draw from `data` (hypothesis's st.data())."""
    return data.draw(_example(seed))


def check_random_chain(data, seed):
    steps, arrays = draw_example(data, seed)
    check_chain(steps, arrays)
    return steps, arrays


REACHED = set()
"""What the random chains of the test below reached (`_reached`), for the coverage test after it."""


@SETTINGS
@given(data=st.data(), seed=SEEDS)
def test_random_chains_match_central_differences_to_second_order(data, seed):
    REACHED.update(_reached(*check_random_chain(data, seed)))


def _operands(steps, arrays):
    """Each step with the arrays it takes, replaying the chain up to an op that raises (a bug the
    property reports)."""
    live = [V.Variable(a) for a in arrays]
    with V.no_grad():
        for s in steps:
            operands = [live[i] for i in s.operands]
            yield s, [v.data for v in operands]
            try:
                live[s.target] = s.call(*operands)
            except Exception:
                return


def _reached(steps, arrays):
    """The ops a chain calls, and the edges it meets: exact zeros, empty values, a power at 0."""
    seen = {"exact zero input"} if any(np.any(a == 0) for a in arrays) else set()
    for s, operands in _operands(steps, arrays):
        seen.add(s.name)
        seen.update({f"{s.name} of an empty value"} if any(o.size == 0 for o in operands) else ())
        seen.update({"pow at an exact zero"} if s.name == "pow" and np.any(operands[0] == 0) else ())
    return seen


def test_the_chains_reach_every_op_and_edge():
    """The drawing reaches every op, empty values, exact zeros and a power at an exact zero: in
    the chains the test above checked (the same examples on every run: derandomized), or, where
    it did not run in this session (-k), in the same examples drawn here."""
    seen = set(REACHED)

    @SETTINGS
    @given(data=st.data(), seed=SEEDS)
    def collect(data, seed):
        seen.update(_reached(*draw_example(data, seed)))

    if not seen:
        collect()
    empty = ("sum", "softmax", "log_softmax", "mul", "get_item", "matmul")
    edges = {"exact zero input", "pow at an exact zero", "scale"} | {f"{n} of an empty value" for n in empty}
    missing = sorted((set(NAMES) | edges) - seen)
    assert not missing, f"no chain drawn with {missing}"


# ----- fixed chains at the delicate points ----------------------------------------------------------
ZEROS = np.array([[0.0, -1.5, 0.0], [0.75, 0.0, 1.25]])
EMPTY_ROWS, EMPTY_COLUMNS = np.zeros((0, 3)), np.zeros((2, 0))

FIXED = {
    **{f"pow {c} at exact zeros": ([ZEROS], [step("pow", f"{{0}} ** {c}", lambda x, c=c: x ** c),
                                             step("sin", "sin({0})", V.sin)])
       for c in (0, 1, 2, 3)},
    "sin, tanh, mul keep exact zeros": (
        [ZEROS, np.array([0.0, 0.5, -2.0])],
        [step("sin", "sin({0})", V.sin), step("tanh", "tanh({0})", V.tanh),
         step("mul", "mul({0}, {1})", V.mul, 0, (0, 1)), step("pow", "{0} ** 3", lambda x: x ** 3)]),
    "softmax over an empty axis": ([EMPTY_COLUMNS], [step("softmax", "softmax({0}, axis=-1)",
                                                          lambda x: F.softmax(x, axis=-1))]),
    "log_softmax over an empty axis": ([EMPTY_COLUMNS], [step("log_softmax", "log_softmax({0}, axis=1)",
                                                              lambda x: F.log_softmax(x, axis=1))]),
    "softmax of an empty batch": ([EMPTY_ROWS], [step("softmax", "softmax({0}, axis=-1)",
                                                      lambda x: F.softmax(x, axis=-1))]),
    "logsumexp and mean of an empty batch": (
        [EMPTY_ROWS], [step("logsumexp", "logsumexp({0}, axis=1, keepdims=True)",
                            lambda x: V.logsumexp(x, axis=1, keepdims=True)),
                       step("mean", "mean({0}, axis=1)", lambda x: V.mean(x, axis=1))]),
    "exp of logsumexp over an empty axis (-inf) times an input": (
        [EMPTY_ROWS, np.array([0.5, -1.0, 0.0])],
        [step("logsumexp", "logsumexp({0}, axis=0)", lambda x: V.logsumexp(x, axis=0)),
         step("exp", "exp({0})", V.exp), step("mul", "mul({0}, {1})", V.mul, 0, (0, 1))]),
    **{f"{name} over an empty axis (NaN), masked by where": (
        [EMPTY_COLUMNS, np.array([0.5, -1.0])],
        [step(name, f"{name}({{0}}, axis=1)", lambda x, call=call: call(x, axis=1)),
         step("where", "where([False, False], {0}, {1})", lambda a, b: V.where(np.zeros(2, bool), a, b),
              0, (0, 1)),
         step("sin", "sin({0})", V.sin)])
       for name, call in (("mean", V.mean), ("variance", V.variance))},
    "sum over an empty axis times a broadcast input": (
        [EMPTY_ROWS, np.array([[0.5], [-1.0]])],
        [step("sum", "sum({0}, axis=0)", lambda x: V.sum(x, axis=0)),
         step("mul", "mul({0}, {1})", V.mul, 0, (0, 1)), step("exp", "exp({0})", V.exp)]),
    "broadcast (2, 1) to (2, 0)": (
        [np.array([[0.5], [0.0]]), EMPTY_COLUMNS],
        [step("broadcast_to", "broadcast_to({0}, (2, 0))", lambda x: V.broadcast_to(x, (2, 0))),
         step("div", "div({0}, {1})", V.div, 1, (1, 0))]),
    "concat and stack with an empty operand": (
        [EMPTY_ROWS, np.array([[0.0, 1.0, -0.5]])],
        [step("concat", "concat([{0}, {1}], axis=0)", lambda a, b: V.concat([a, b], axis=0), 0, (0, 1)),
         step("stack", "stack([{0}, {1}], axis=1)", lambda a, b: V.stack([a, b], axis=1), 1, (1, 0)),
         step("square", "square({0})", V.square, 1)]),
}


@pytest.mark.parametrize("name", list(FIXED))
def test_fixed_chains_match_central_differences_to_second_order(name):
    arrays, steps = FIXED[name]
    check_chain(steps, arrays)


# ----- the machinery fails a wrong backward ------------------------------------------------------
def wrong_div_backward(self, gy):
    """d(x0/x1)/dx1 taken as -x0/x1 instead of -x0/x1^2."""
    x0, x1 = self.inputs
    gx0 = gy / x1
    return elementwise._reduce(gx0, x0), elementwise._reduce(-(gx0 * x0), x1)


def constant_tanh_backward(self, gy):
    """Right value, but 1 - y^2 is a fresh constant, so the second derivative of tanh is lost."""
    y, = self.outputs
    c = y.detach()                  # (with y.data, the engine refuses it at once)
    return gy * (1 - c * c)


BROKEN_CHAIN = (
    [np.array([[0.3, -1.2, 0.0], [1.5, 0.7, -0.4]]), np.array([0.8, -1.5, 1.25])],
    [step("tanh", "tanh({0})", V.tanh), step("div", "div({0}, {1})", V.div, 0, (0, 1)),
     step("sin", "sin({0})", V.sin)])


def test_the_fixed_chain_passes_with_the_right_backwards():
    check_chain(BROKEN_CHAIN[1], BROKEN_CHAIN[0])


@pytest.mark.parametrize("op, wrong, report", [
    ("Div", wrong_div_backward, "order 1, input 1: analytic and numerical derivatives differ"),
    ("Tanh", constant_tanh_backward, "order 2, input 0: analytic and numerical derivatives differ"),
])
def test_a_broken_backward_is_caught(monkeypatch, op, wrong, report):
    arrays, steps = BROKEN_CHAIN
    monkeypatch.setattr(getattr(elementwise, op, None) or getattr(trigonometric, op), "backward", wrong)
    with pytest.raises(AssertionError, match=report) as error:
        check_chain(steps, arrays)
    assert "chain [tanh, div, sin]" in str(error.value)


def test_the_random_chains_catch_a_broken_backward(monkeypatch):
    """The random property itself (not shrinking, to stay quick) fails when tanh loses its 2nd derivative."""
    monkeypatch.setattr(trigonometric.Tanh, "backward", constant_tanh_backward)

    @settings(SETTINGS, phases=[Phase.generate])
    @given(data=st.data(), seed=SEEDS)
    def random_chains(data, seed):
        check_random_chain(data, seed)

    with pytest.raises(AssertionError, match="order 2, input .: analytic and numerical") as error:
        random_chains()
    assert "tanh" in str(error.value).partition("chain [")[2].partition("]")[0]


# ----- Taylor mode on the same chains ----------------------------------------------------------
TAYLOR_EXAMPLES = max(1, EXAMPLES // 4)
"""Random chains whose Taylor mode is checked (V.taylorcheck to order 4, about 5 s)."""


def check_chain_taylor(steps, arrays):
    """V.taylorcheck to order 4 of the chain at `arrays`: each derivative along a random
    direction against nested reverse mode, and the jvp against V.jacobian."""
    try:
        V.taylorcheck(lambda *xs: run(steps, xs), *arrays, order=4)
    except Exception as error:
        raise AssertionError(f"{type(error).__name__}: {error}\n{describe(steps, arrays)}") from error


@settings(SETTINGS, max_examples=TAYLOR_EXAMPLES)
@given(data=st.data(), seed=SEEDS)
def test_random_chains_taylor_mode_matches_nested_reverse_mode(data, seed):
    steps, arrays = draw_example(data, seed)
    check_chain_taylor(steps, arrays)


def tanh_taylor_wrong_at_order_3(self, x):
    """Tanh's rule with its third coefficient doubled: orders 1 and 2 stay right."""
    y = series.tanh(x, self.outputs[0].data)
    return y[:3] + [2 * y[3]] + y[4:]


def test_the_random_chains_catch_a_broken_taylor_rule(monkeypatch):
    """The random Taylor property fails when tanh's rule is wrong from order 3 on."""
    monkeypatch.setattr(trigonometric.Tanh, "taylor", tanh_taylor_wrong_at_order_3)

    @settings(SETTINGS, max_examples=TAYLOR_EXAMPLES, phases=[Phase.generate])
    @given(data=st.data(), seed=SEEDS)
    def random_chains(data, seed):
        steps, arrays = draw_example(data, seed)
        check_chain_taylor(steps, arrays)

    with pytest.raises(AssertionError, match="order 3: Taylor mode gives") as error:
        random_chains()
    assert "tanh" in str(error.value).partition("chain [")[2].partition("]")[0]
