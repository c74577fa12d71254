"""Property tests: every op's forward against NumPy, its gradient against V.numerical_grad.

For each name in `variable.OPS` and `function.__all__`, `PROPS` holds a drawer that picks
random shapes, axes, broadcast pairs and parameters with hypothesis (and the values from
a NumPy generator seeded by hypothesis), the op itself and its independent NumPy formula
(rel_numpy_refs.py).  Each example checks

- forward: same shape, float64 dtype and values as NumPy's formula;
- gradient: the vector-Jacobian product with a random incoming gradient u against central
  differences of <f(x), u> from V.numerical_grad, for every floating-point input; when
  the inputs hold more than `FULL_GRADIENT` numbers in total (convolutions), against the
  directional derivatives along two random directions instead (V.numerical_grad of
  t -> <f(x + t v), u>), which keeps the cost linear in the number of examples.

Values are drawn inside each op's domain, away from its kinks and ties, and far enough
from the domain's edges that the differences stay inside it (counts >= 1, targets in
(0.01, 0.99)).  settings: derandomize=True (the same examples on every run),
deadline=None, and `EXAMPLES` examples per op.
"""

import math
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
import rel_numpy_refs as R  # a sibling module: tests/reliability is on sys.path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import function as F
import variable as V

EXAMPLES = int(os.environ.get("GENGRAD_PROPERTY_EXAMPLES", "300"))
"""Examples per op (several hundred, as the reliability issue asks): about 70 s on one core;
set GENGRAD_PROPERTY_EXAMPLES=100 for a quicker local run (about a third as long)."""
FULL_GRADIENT = 40      # inputs with more numbers than this are checked along random directions
GAP = 0.02              # distance kept from kinks and ties (the difference step is 1e-4)


@dataclass(frozen=True)
class Prop:
    """An op under test: `draw(data, rng) -> (arrays, params)`, then op(*arrays, **params)."""

    name: str
    draw: Callable
    call: Callable
    ref: Callable
    label: str = ""


# ----- drawing -------------------------------------------------------------------------------
def shapes(min_dims=0, max_dims=3, min_side=1, max_side=3):
    """Array shapes (a lighter strategy than hnp.array_shapes: it is drawn thousands of times)."""
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


@dataclass(frozen=True)
class Broadcast:
    """Operand shapes that broadcast together, and the shape they broadcast to."""

    input_shapes: tuple
    result_shape: tuple


@st.composite
def broadcast_shapes(draw, num_shapes=2, max_dims=3, max_side=3):
    """Shapes that broadcast: each operand drops leading axes of a common shape and sets some to 1."""
    full = draw(shapes(0, max_dims, 1, max_side))
    operands = []
    for _ in range(num_shapes):
        lead = draw(st.integers(0, len(full)))
        ones = draw(st.lists(st.booleans(), min_size=len(full) - lead, max_size=len(full) - lead))
        operands.append(tuple(1 if one else n for one, n in zip(ones, full[lead:])))
    return Broadcast(tuple(operands), np.broadcast_shapes(*operands))


SHAPES = shapes()
NONSCALAR = shapes(min_dims=1)
PAIRS = broadcast_shapes()


def away(rng, shape, kinks=(), low=-2.0, high=2.0):
    """Uniform values in [low, high] at least GAP from every kink."""
    x = rng.uniform(low, high, shape)
    for _ in range(100):
        bad = np.zeros(np.shape(x), dtype=bool)
        for k in kinks:
            bad |= np.abs(x - k) < GAP
        if not bad.any():
            return x
        x = np.where(bad, rng.uniform(low, high, shape), x)
    raise AssertionError("could not draw values away from the kinks")


def distinct(rng, shape, low=-2.0, high=2.0):
    """Values whose pairwise gaps all exceed GAP (no ties for max, min, pooling, accuracy)."""
    n = int(np.prod(shape))
    steps = np.linspace(low, high, max(n, 2))[:n]
    return rng.permutation(steps).reshape(shape) if n else np.zeros(shape)


def _axis(data, ndim, allow_tuple=True):
    """None, an int (negative too) or a tuple of distinct axes of an array of `ndim` dims."""
    options = [st.none()]
    if ndim:
        options.append(st.integers(-ndim, ndim - 1))
        if allow_tuple:
            options.append(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple))
    return data.draw(st.one_of(*options))


def unary(domain=lambda rng, s: rng.uniform(-2, 2, s), shapes=SHAPES):
    def draw(data, rng):
        return [domain(rng, data.draw(shapes))], {}
    return draw


def binary(domain0=None, domain1=None, untied=False):
    def draw(data, rng):
        s0, s1 = data.draw(PAIRS).input_shapes
        x0 = (domain0 or (lambda r, s: r.uniform(-2, 2, s)))(rng, s0)
        x1 = (domain1 or (lambda r, s: r.uniform(-2, 2, s)))(rng, s1)
        if untied:                                   # move x1 off every entry of x0 it meets
            diff = np.broadcast_to(x0, np.broadcast_shapes(s0, s1)) - x1
            if np.any(np.abs(diff) < GAP):
                x1 = x1 + 5.0                        # all of x1 now lies above all of x0
        return [x0, x1], {}
    return draw


def positive(rng, s):
    return rng.uniform(0.5, 2.0, s)


def nonzero(rng, s):
    return rng.choice([-1.0, 1.0], s) * rng.uniform(0.5, 2.0, s)


def reduction(values=lambda rng, s: rng.uniform(-2, 2, s), keepdims=True):
    def draw(data, rng):
        shape = data.draw(SHAPES)
        return [values(rng, shape)], {"axis": _axis(data, len(shape)),
                                      "keepdims": data.draw(st.booleans()) if keepdims else False}
    return draw


# ----- shape ops ------------------------------------------------------------------------------
def draw_reshape(data, rng):
    shape = data.draw(SHAPES)
    target = tuple(int(n) for n in rng.permutation(np.array(shape, dtype=int)))
    if target and data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(target) - 1))
        target = target[:i] + (-1,) + target[i + 1:]
    return [rng.uniform(-2, 2, shape)], {"shape": target}


def draw_transpose(data, rng):
    shape = data.draw(SHAPES)
    axes = None if data.draw(st.booleans()) else tuple(int(a) for a in rng.permutation(len(shape)))
    return [rng.uniform(-2, 2, shape)], {"axes": axes}


def draw_expand_dims(data, rng):
    shape = data.draw(SHAPES)
    return [rng.uniform(-2, 2, shape)], {"axis": data.draw(st.integers(-len(shape) - 1, len(shape)))}


def draw_squeeze(data, rng):
    shape = data.draw(shapes(0, 4, 1, 2))
    ones = [i for i, n in enumerate(shape) if n == 1]
    axis = None
    if ones and data.draw(st.booleans()):
        axis = tuple(data.draw(st.lists(st.sampled_from(ones), unique=True, min_size=1)))
    return [rng.uniform(-2, 2, shape)], {"axis": axis}


def draw_broadcast_to(data, rng):
    shapes = data.draw(PAIRS)
    return [rng.uniform(-2, 2, shapes.input_shapes[0])], {"shape": shapes.result_shape}


def draw_sum_to(data, rng):
    shapes = data.draw(PAIRS)
    return [rng.uniform(-2, 2, shapes.result_shape)], {"shape": shapes.input_shapes[0]}


def draw_get_item(data, rng):
    shape = data.draw(NONSCALAR)
    n = shape[0]
    kind = data.draw(st.sampled_from(["int", "slice", "repeats", "mask", "ellipsis", "newaxis"]))
    if kind == "int":
        index = data.draw(st.integers(-n, n - 1))
    elif kind == "slice":
        index = slice(data.draw(st.integers(-n, n)), data.draw(st.integers(-n, n)),
                      data.draw(st.sampled_from([1, 2, -1])))
    elif kind == "repeats":                          # repeated indices accumulate their gradients
        index = rng.integers(0, n, data.draw(st.integers(1, 5)))
    elif kind == "mask":
        index = rng.random(n) < 0.5
    elif kind == "ellipsis":
        index = (Ellipsis, data.draw(st.integers(0, shape[-1] - 1)))
    else:
        index = (None, slice(None))
    return [rng.uniform(-2, 2, shape)], {"index": index}


def draw_concat(data, rng):
    shape = data.draw(NONSCALAR)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    arrays = []
    for _ in range(data.draw(st.integers(1, 3))):
        s = list(shape)
        s[axis] = data.draw(st.integers(1, 3))
        arrays.append(rng.uniform(-2, 2, s))
    return arrays, {"axis": axis}


def draw_stack(data, rng):
    shape = data.draw(SHAPES)
    count = data.draw(st.integers(1, 3))
    return [rng.uniform(-2, 2, shape) for _ in range(count)], {
        "axis": data.draw(st.integers(-len(shape) - 1, len(shape)))}


def draw_split(data, rng):
    shape = list(data.draw(NONSCALAR))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    if data.draw(st.booleans()):
        parts = data.draw(st.integers(1, 3))
        shape[axis] = parts * data.draw(st.integers(1, 2))
        sections = parts
    else:
        sections = sorted(data.draw(st.lists(st.integers(0, shape[axis]), max_size=3)))
    return [rng.uniform(-2, 2, shape)], {"sections": sections, "axis": axis}


def draw_matmul(data, rng):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(signature=np.matmul.signature, max_dims=2,
                                                         min_side=1, max_side=3))
    return [rng.uniform(-2, 2, s) for s in shapes.input_shapes], {}


def draw_transpose_matmul(data, rng):
    k, m, n = (data.draw(st.integers(1, 3)) for _ in range(3))
    batch = data.draw(shapes(0, 1, 1, 2))
    b_shape = data.draw(st.sampled_from([batch + (k, n), (k, n), (k,)]))
    return [rng.uniform(-2, 2, batch + (k, m)), rng.uniform(-2, 2, b_shape)], {}


def np_transpose_matmul(a, b):
    return np.matmul(np.swapaxes(a, -1, -2), b)


def draw_where(data, rng):
    cond_shape, s0, s1 = data.draw(broadcast_shapes(num_shapes=3)).input_shapes
    return [rng.uniform(-2, 2, s0), rng.uniform(-2, 2, s1)], {"condition": rng.random(cond_shape) < 0.5}


def draw_clip(data, rng):
    lo = data.draw(st.sampled_from([None, -1.0, -0.25]))
    hi = data.draw(st.sampled_from([None, 0.5, 1.5] if lo is not None else [0.5, 1.5]))
    kinks = [b for b in (lo, hi) if b is not None]
    return [away(rng, data.draw(SHAPES), kinks)], {"lo": lo, "hi": hi}


def draw_pow_constant(data, rng):
    c = data.draw(st.sampled_from([2, 3, -1, 0.5, -1.5, 2.5]))
    return [positive(rng, data.draw(SHAPES))], {"c": c}


def draw_whole_power_at_zero(data, rng):
    """A whole exponent 0..4 (int or float) at points where some entries are exactly 0."""
    c = data.draw(st.sampled_from([0, 1, 2, 3, 4, 0.0, 2.0]))
    x = rng.uniform(-2, 2, data.draw(SHAPES))
    x[rng.random(x.shape) < 0.5] = 0.0
    return [x], {"c": c}


# ----- neural-net functions ------------------------------------------------------------------------
def with_param(draw, **choices):
    """`draw`, plus one parameter of each name drawn from its choices."""
    def drawer(data, rng):
        arrays, params = draw(data, rng)
        params.update({k: data.draw(st.sampled_from(v)) for k, v in choices.items()})
        return arrays, params
    return drawer


def softmax_draw(data, rng):
    shape = data.draw(NONSCALAR)
    axis = _axis(data, len(shape))
    return [rng.uniform(-3, 3, shape)], {"axis": axis}


def loss_pair(domain0, domain1):
    def draw(data, rng):
        shape = data.draw(SHAPES)
        return [domain0(rng, shape), domain1(rng, shape)], {}
    return draw


def untied_pair(data, rng):
    shape = data.draw(SHAPES)
    x = rng.uniform(-2, 2, shape)
    return [x, x + rng.choice([-1.0, 1.0], shape) * rng.uniform(GAP, 2.0, shape)], {}


def huber_draw(data, rng):
    shape = data.draw(SHAPES)
    delta = data.draw(st.sampled_from([0.5, 1.0, 2.0]))
    x = rng.uniform(-2, 2, shape)
    d = away(rng, shape, (-delta, delta, 0.0), -3.0, 3.0)
    return [x, x - d], {"delta": delta}


def hinge_draw(data, rng):
    shape = data.draw(SHAPES)
    t = rng.choice([-1, 1], shape)                    # integer labels: a constant, not differentiated
    margin = away(rng, shape, (0.0,), -2.0, 2.0)      # 1 - t x, away from the kink at 0
    return [(1 - margin) * t, t], {}


def sce_labels_draw(data, rng):
    shape = data.draw(NONSCALAR)
    return [rng.uniform(-3, 3, shape), rng.integers(0, shape[-1], shape[:-1])], {}


def sce_probabilities_draw(data, rng):
    shape = data.draw(NONSCALAR)
    e = rng.uniform(0.5, 2.0, shape)
    return [rng.uniform(-3, 3, shape), e / e.sum(axis=-1, keepdims=True)], {}


def cosine_draw(data, rng):
    shape = data.draw(NONSCALAR)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    return [nonzero(rng, shape), nonzero(rng, shape)], {"axis": axis}


def linear_draw(data, rng):
    batch = data.draw(shapes(0, 2))
    n_in, n_out = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    arrays = [rng.uniform(-2, 2, batch + (n_in,)), rng.uniform(-1, 1, (n_in, n_out))]
    if data.draw(st.booleans()):
        arrays.append(rng.uniform(-1, 1, n_out))
    return arrays, {}


def layer_norm_draw(data, rng):
    shape = data.draw(shapes(1, 3, 2, 3))
    d = shape[-1]
    # spread-out values: a row of near-equal values has a variance near 0 and derivatives of
    # order 1/sqrt(eps), beyond what central differences resolve
    return [distinct(rng, shape, -3, 3), rng.uniform(0.5, 1.5, d), rng.uniform(-1, 1, d)], {}


def batch_norm_draw(data, rng):
    shape = data.draw(st.sampled_from([(2, 2), (3, 1), (4, 3), (2, 2, 2), (2, 1, 2, 2), (1, 2, 3)]))
    c = shape[1]
    return [distinct(rng, shape, -3, 3), rng.uniform(0.5, 1.5, c), rng.uniform(-1, 1, c)], {}


def embed_id_draw(data, rng):
    vocab, dim = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 3))
    ids_shape = data.draw(shapes(0, 2, 1, 4))
    return [rng.integers(0, vocab, ids_shape), rng.uniform(-2, 2, (vocab, dim))], {}


def _image(data, rng, min_side=2, values=None):
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    h, w = data.draw(st.integers(min_side, 4)), data.draw(st.integers(min_side, 4))
    shape = (n, c, h, w)
    return (values or (lambda r, s: r.uniform(-2, 2, s)))(rng, shape)


def _geometry(data, h, w):
    kernel = (data.draw(st.integers(1, min(3, h))), data.draw(st.integers(1, min(3, w))))
    stride = data.draw(st.sampled_from([1, 2, (1, 2), (2, 1)]))
    pad = data.draw(st.sampled_from([0, 1, (0, 1), (1, 0)]))
    return kernel, stride, pad


def conv2d_draw(data, rng):
    x = _image(data, rng)
    kernel, stride, pad = _geometry(data, *x.shape[2:])
    oc = data.draw(st.integers(1, 2))
    arrays = [x, rng.uniform(-1, 1, (oc, x.shape[1]) + kernel)]
    if data.draw(st.booleans()):
        arrays.append(rng.uniform(-1, 1, oc))
    return arrays, {"stride": stride, "pad": pad}


def deconv2d_draw(data, rng):
    x = _image(data, rng, min_side=1)
    kernel, stride, pad = _geometry(data, 3, 3)
    (kh, kw), (sh, sw), (ph, pw) = (np.broadcast_to(v, 2) for v in (kernel, stride, pad))
    if sh * (x.shape[2] - 1) + kh <= 2 * ph or sw * (x.shape[3] - 1) + kw <= 2 * pw:
        pad = 0                                          # the padding would crop everything
    oc = data.draw(st.integers(1, 2))
    arrays = [x, rng.uniform(-1, 1, (x.shape[1], oc) + kernel)]
    if data.draw(st.booleans()):
        arrays.append(rng.uniform(-1, 1, oc))
    return arrays, {"stride": stride, "pad": pad}


def pooling_draw(data, rng):
    x = _image(data, rng, values=distinct)
    kernel, stride, pad = _geometry(data, *x.shape[2:])
    pad = tuple(min(p, k - 1) for p, k in zip(np.broadcast_to(pad, 2), kernel))   # pad < kernel
    return [x], {"kernel_size": kernel, "stride": stride, "pad": tuple(int(p) for p in pad)}


def im2col_draw(data, rng):
    x = _image(data, rng)
    kernel, stride, pad = _geometry(data, *x.shape[2:])
    return [x], {"kernel_size": kernel, "stride": stride, "pad": pad}


def col2im_draw(data, rng):
    (x,), params = im2col_draw(data, rng)
    col_shape = R.im2col(np.zeros(x.shape), **params).shape
    return [rng.uniform(-2, 2, col_shape)], {**params, "x_shape": x.shape}


def accuracy_draw(data, rng):
    shape = data.draw(NONSCALAR)
    return [distinct(rng, shape), rng.integers(0, shape[-1], shape[:-1])], {}


def _kinked(*kinks, low=-2.0, high=2.0):
    return lambda rng, s: away(rng, s, kinks, low, high)


# ----- the table ---------------------------------------------------------------------------------
PROPS = [
    # variable: elementwise
    Prop("add", binary(), V.add, np.add), Prop("sub", binary(), V.sub, np.subtract),
    Prop("mul", binary(), V.mul, np.multiply), Prop("div", binary(None, nonzero), V.div, np.divide),
    Prop("maximum", binary(untied=True), V.maximum, np.maximum),
    Prop("minimum", binary(untied=True), V.minimum, np.minimum),
    Prop("pow", binary(positive), V.pow, np.power, label="Variable exponent"),
    Prop("pow", draw_pow_constant, V.pow, lambda x, c: np.power(x, c), label="constant exponent"),
    Prop("pow", draw_whole_power_at_zero, V.pow, lambda x, c: np.power(x, c), label="whole exponent at 0"),
    Prop("neg", unary(), V.neg, np.negative), Prop("square", unary(), V.square, np.square),
    Prop("sqrt", unary(positive), V.sqrt, np.sqrt), Prop("exp", unary(), V.exp, np.exp),
    Prop("log", unary(positive), V.log, np.log), Prop("sin", unary(), V.sin, np.sin),
    Prop("cos", unary(), V.cos, np.cos),
    Prop("tan", unary(lambda rng, s: rng.uniform(-1.2, 1.2, s)), V.tan, np.tan),
    Prop("tanh", unary(), V.tanh, np.tanh), Prop("sinh", unary(), V.sinh, np.sinh),
    Prop("cosh", unary(), V.cosh, np.cosh), Prop("abs", unary(_kinked(0.0)), V.abs, np.abs),
    Prop("clip", draw_clip, V.clip, lambda x, lo, hi: np.clip(x, lo, hi)),
    Prop("where", draw_where, lambda x0, x1, condition: V.where(condition, x0, x1),
         lambda x0, x1, condition: np.where(condition, x0, x1)),
    # variable: shapes
    Prop("reshape", draw_reshape, lambda x, shape: V.reshape(x, shape),
         lambda x, shape: np.reshape(x, shape)),
    Prop("transpose", draw_transpose, V.transpose, np.transpose),
    Prop("flatten", unary(shapes=NONSCALAR), V.flatten, R.flatten),
    Prop("expand_dims", draw_expand_dims, V.expand_dims, np.expand_dims),
    Prop("squeeze", draw_squeeze, V.squeeze, np.squeeze),
    Prop("broadcast_to", draw_broadcast_to, V.broadcast_to, np.broadcast_to),
    Prop("sum_to", draw_sum_to, V.sum_to, R.sum_to),
    Prop("get_item", draw_get_item, V.get_item, lambda x, index: x[index]),
    Prop("concat", draw_concat, lambda *xs, axis: V.concat(xs, axis),
         lambda *xs, axis: np.concatenate(xs, axis)),
    Prop("stack", draw_stack, lambda *xs, axis: V.stack(xs, axis), lambda *xs, axis: np.stack(xs, axis)),
    Prop("split", draw_split, V.split, lambda x, sections, axis: tuple(np.split(x, sections, axis))),
    # variable: reductions and products
    Prop("sum", reduction(), V.sum, np.sum), Prop("mean", reduction(), V.mean, np.mean),
    Prop("variance", reduction(), V.variance, np.var),
    Prop("max", reduction(distinct), V.max, np.max), Prop("min", reduction(distinct), V.min, np.min),
    Prop("logsumexp", reduction(), V.logsumexp, R.logsumexp),
    Prop("matmul", draw_matmul, V.matmul, np.matmul),
    Prop("transpose_matmul", draw_transpose_matmul, V.transpose_matmul, np_transpose_matmul),
    # function: activations
    Prop("sigmoid", unary(lambda rng, s: rng.uniform(-6, 6, s)), F.sigmoid, R.sigmoid),
    Prop("relu", unary(_kinked(0.0)), F.relu, R.relu),
    Prop("relu6", unary(_kinked(0.0, 6.0, low=-2, high=8)), F.relu6, R.relu6),
    Prop("leaky_relu", with_param(unary(_kinked(0.0)), alpha=[0.01, 0.2, -0.5]), F.leaky_relu, R.leaky_relu),
    Prop("elu", with_param(unary(_kinked(0.0)), alpha=[1.0, 0.5, 2.0]), F.elu, R.elu),
    Prop("gelu", with_param(unary(lambda rng, s: rng.uniform(-4, 4, s)), approximate=["tanh", "none"]),
         F.gelu, R.gelu),
    Prop("swish", unary(lambda rng, s: rng.uniform(-4, 4, s)), F.swish, R.swish),
    Prop("silu", unary(lambda rng, s: rng.uniform(-4, 4, s)), F.silu, R.swish),
    Prop("hard_sigmoid", unary(_kinked(-3.0, 3.0, low=-5, high=5)), F.hard_sigmoid, R.hard_sigmoid),
    Prop("hard_swish", unary(_kinked(-3.0, 3.0, low=-5, high=5)), F.hard_swish, R.hard_swish),
    Prop("softplus", unary(lambda rng, s: rng.uniform(-6, 6, s)), F.softplus, R.softplus),
    Prop("softmax", softmax_draw, F.softmax, R.softmax),
    Prop("log_softmax", softmax_draw, F.log_softmax, R.log_softmax),
    # function: losses
    Prop("mean_squared_error", loss_pair(lambda r, s: r.uniform(-2, 2, s), lambda r, s: r.uniform(-2, 2, s)),
         F.mean_squared_error, R.mean_squared_error),
    Prop("mean_absolute_error", untied_pair, F.mean_absolute_error, R.mean_absolute_error),
    Prop("huber_loss", huber_draw, F.huber_loss, R.huber_loss),
    Prop("log_cosh_loss", loss_pair(lambda r, s: r.uniform(-3, 3, s), lambda r, s: r.uniform(-3, 3, s)),
         F.log_cosh_loss, R.log_cosh_loss),
    Prop("poisson_nll_loss",
         loss_pair(lambda r, s: r.uniform(-2, 2, s), lambda r, s: r.integers(1, 5, s) * 1.0),
         F.poisson_nll_loss, R.poisson_nll_loss),
    Prop("sigmoid_cross_entropy",
         loss_pair(lambda r, s: r.uniform(-5, 5, s), lambda r, s: r.uniform(0.01, 0.99, s)),
         F.sigmoid_cross_entropy, R.sigmoid_cross_entropy),
    Prop("binary_cross_entropy",
         loss_pair(lambda r, s: r.uniform(0.05, 0.95, s), lambda r, s: r.uniform(0.01, 0.99, s)),
         F.binary_cross_entropy, R.binary_cross_entropy),
    Prop("softmax_cross_entropy", sce_labels_draw, F.softmax_cross_entropy, R.softmax_cross_entropy,
         label="labels"),
    Prop("softmax_cross_entropy", sce_probabilities_draw, F.softmax_cross_entropy, R.softmax_cross_entropy,
         label="probabilities"),
    Prop("hinge_loss", hinge_draw, F.hinge_loss, R.hinge_loss),
    Prop("cosine_similarity", cosine_draw, F.cosine_similarity, R.cosine_similarity),
    # function: layers as functions
    Prop("linear", linear_draw, F.linear, R.linear),
    Prop("layer_norm", layer_norm_draw, F.layer_norm, R.layer_norm),
    Prop("batch_norm", batch_norm_draw, F.batch_norm, R.batch_norm),
    Prop("embed_id", embed_id_draw, F.embed_id, R.embed_id),
    Prop("conv2d", conv2d_draw, lambda x, W, b=None, **kw: F.conv2d(x, W, b, **kw), R.conv2d),
    Prop("deconv2d", deconv2d_draw, lambda x, W, b=None, **kw: F.deconv2d(x, W, b, **kw), R.deconv2d),
    Prop("pooling", pooling_draw, F.pooling, R.pooling),
    Prop("average_pooling", pooling_draw, F.average_pooling, R.average_pooling),
    Prop("im2col", im2col_draw, F.im2col, R.im2col),
    Prop("col2im", col2im_draw, F.col2im, R.col2im),
]
"""Every op with a gradient; `dropout` (random) and `accuracy` (no gradient) have tests of their own."""


# ----- the checks ---------------------------------------------------------------------------------
def _variables(arrays):
    return [V.Variable(a) if a.dtype.kind == "f" else a for a in arrays]


def _outputs(y):
    return list(y) if isinstance(y, tuple) else [y]


def _check_forward(prop, arrays, params):
    y = prop.call(*_variables(arrays), **params)
    expected = prop.ref(*[a.copy() for a in arrays], **params)
    for out, ref in zip(_outputs(y), _outputs(expected), strict=True):
        ref = np.asarray(ref)
        assert isinstance(out, V.Variable)
        assert out.shape == ref.shape, f"shape {out.shape}, NumPy gives {ref.shape}"
        assert out.dtype == np.float64, out.dtype
        np.testing.assert_allclose(out.data, ref, rtol=1e-7, atol=1e-10)
    return y


def _check_gradient(prop, arrays, params, y, rng):
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    us = [rng.standard_normal(out.shape) for out in _outputs(y)]

    def weighted(*values):                          # <f(x), u>, which numerical_grad differentiates
        outs = _outputs(prop.call(*values, **params))
        total = V.sum(outs[0] * us[0])
        for out, u in zip(outs[1:], us[1:]):
            total = total + V.sum(out * u)
        return total

    inputs = _variables(arrays)
    analytic = V.grad(weighted(*inputs), [inputs[i] for i in floats], allow_unused=True)
    analytic = [np.zeros(arrays[i].shape) if g is None else g.data for i, g in zip(floats, analytic)]
    if sum(arrays[i].size for i in floats) <= FULL_GRADIENT:
        numeric = V.numerical_grad(weighted, *arrays)
        numeric = [numeric] if len(arrays) == 1 else list(numeric)
        for i, g in zip(floats, analytic):
            scale = 1 + np.max(np.abs(numeric[i]), initial=0)
            np.testing.assert_allclose(g, numeric[i], rtol=1e-5, atol=1e-6 * scale,
                                       err_msg=f"gradient of input {i}")
        return
    for _ in range(2):                              # directional derivatives along random v
        vs = {i: rng.standard_normal(arrays[i].shape) for i in floats}

        def along(t, vs=vs):
            return weighted(*[a + t * vs[i] if i in vs else a for i, a in enumerate(arrays)])

        numeric = float(V.numerical_grad(along, np.array(0.0)))
        exact = sum(float(np.vdot(g, vs[i])) for i, g in zip(floats, analytic))
        assert abs(exact - numeric) <= 1e-5 * (1 + abs(numeric)), (exact, numeric)


def _settings(prop):
    return settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.mark.parametrize("prop", PROPS, ids=lambda p: p.name + (f"[{p.label}]" if p.label else ""))
def test_forward_matches_numpy_and_gradient_matches_differences(prop):
    @_settings(prop)
    @given(data=st.data(), seed=st.integers(0, 2**32 - 1))
    def check(data, seed):
        rng = np.random.default_rng(seed)
        arrays, params = prop.draw(data, rng)
        arrays = [np.asarray(a) for a in arrays]
        y = _check_forward(prop, arrays, params)
        _check_gradient(prop, arrays, params, y, rng)

    check()


# ----- empty axes: PyTorch's answers -----------------------------------------------------------------
EMPTY_SHAPES = shapes(min_dims=1, min_side=0).filter(lambda s: 0 in s)
EMPTY_SUM_VALUE = {"sum": 0.0, "mean": np.nan, "variance": np.nan, "logsumexp": -np.inf}


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None)
@given(data=st.data(), name=st.sampled_from([*EMPTY_SUM_VALUE, "max", "min"]), keepdims=st.booleans())
def test_reductions_of_empty_arrays(data, name, keepdims):
    """Over an empty axis: sum 0, mean and variance NaN, logsumexp -inf, max and min a
    ValueError naming the op; an empty array reduced over non-empty axes gives an empty
    result. The gradient is an empty array of the input's shape."""
    shape = data.draw(EMPTY_SHAPES)
    axis = _axis(data, len(shape))
    x = V.Variable(np.zeros(shape))
    expected_shape = np.sum(x.data, axis=axis, keepdims=keepdims).shape
    reduced = range(len(shape)) if axis is None else np.atleast_1d(np.array(axis, dtype=int))
    per_slice = math.prod(shape[a] for a in reduced)     # entries in each slice reduced over
    op = getattr(V, name)
    if name in ("max", "min") and per_slice == 0:        # (as NumPy, even when there is no slice)
        with pytest.raises(ValueError, match=f"^{name}: .*empty axis"):
            op(x, axis=axis, keepdims=keepdims)
        return
    y = op(x, axis=axis, keepdims=keepdims)
    assert y.shape == expected_shape
    np.testing.assert_array_equal(y.data, np.full(expected_shape, EMPTY_SUM_VALUE.get(name, 0.0)))
    assert V.grad(V.sum(y * 2.0), x).shape == shape


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None)
@given(data=st.data(), op=st.sampled_from([F.softmax, F.log_softmax]))
def test_softmax_family_of_empty_arrays(data, op):
    """An empty result of the input's shape (PyTorch), and an empty gradient."""
    shape = data.draw(EMPTY_SHAPES)
    x = V.Variable(np.zeros(shape))
    y = op(x, axis=_axis(data, len(shape)))
    assert y.shape == shape
    assert V.grad(V.sum(y * 2.0), x).shape == shape


# ----- the two ops without a numerical gradient -----------------------------------------------------
@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None)
@given(shape=SHAPES, p=st.sampled_from([0.1, 0.5, 0.9]), seed=st.integers(0, 2**32 - 1))
def test_dropout_keeps_or_zeroes_each_entry_and_its_gradient_is_the_same_mask(shape, p, seed):
    x_data = nonzero(np.random.default_rng(seed), shape)
    x = V.Variable(x_data)
    np.random.seed(seed % 2**32)
    y = F.dropout(x, p)
    kept = y.data != 0
    np.testing.assert_allclose(y.data, np.where(kept, x_data / (1 - p), 0.0), rtol=1e-12)
    u = np.random.default_rng(seed + 1).standard_normal(shape)
    g, = V.grad(y, [x], grad_outputs=u)
    np.testing.assert_allclose(g.data, np.where(kept, u / (1 - p), 0.0), rtol=1e-12)
    with V.test_mode():
        np.testing.assert_array_equal(F.dropout(x, p).data, x_data)


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_accuracy_matches_numpy(data, seed):
    (y, t), _ = accuracy_draw(data, np.random.default_rng(seed))
    assert F.accuracy(V.Variable(y), t) == R.accuracy(y, t)


def test_every_op_with_a_gradient_has_a_property():
    covered = {p.name for p in PROPS} | {"dropout", "accuracy"}
    missing = sorted((set(V.OPS) | set(F.__all__)) - covered)
    assert not missing, f"ops without a property test in {__file__}: {missing}"
