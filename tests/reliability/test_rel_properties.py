"""Property tests: every op's forward against NumPy, its gradient against V.numerical_grad.

For each name in `variable.OPS`, `variable.LINALG_OPS` ("linalg.det" for V.linalg.det) and
`function.__all__`, `PROPS` holds a drawer that picks random shapes, axes, broadcast pairs
and parameters with hypothesis (and the values from a NumPy generator seeded by
hypothesis), the op itself and its independent NumPy formula
(rel_numpy_refs.py; for the ops named after NumPy functions, NumPy's function of that name;
for eigh, svd and qr, sign-invariant functions of their outputs).  Each example checks

- forward: same shape, float64 dtype and values as NumPy's formula;
- gradient: the vector-Jacobian product with a random incoming gradient u against central
  differences of <f(x), u> from V.numerical_grad, for every floating-point input; when
  the inputs hold more than `FULL_GRADIENT` numbers in total (a 3 x 3 matrix and a vector,
  convolutions), against the directional derivatives along two random directions instead
  (V.numerical_grad of t -> <f(x + t v), u>: a wrong entry of the gradient moves both, its
  random weight in each almost never 0), which keeps the cost of a case independent of its
  size (2 n evaluations of the op for the full gradient, 4 for the directions); for an
  elementwise function of one floating-point input (`Prop.entrywise`), against the central
  differences of its outputs, every entry at once (the same numbers in two evaluations, not 2 n).

Values are drawn inside each op's domain, away from its kinks and ties, and far enough
from the domain's edges that the differences stay inside it (counts >= 1, targets in
(0.01, 0.99)); matrices are well conditioned, with eigenvalues and singular values
apart.  settings: derandomize=True (the same examples on every run), deadline=None, and
`Prop.examples` cases per op (`CASES` to each hypothesis example): `EXAMPLES`, or `NEW_EXAMPLES`
for the NumPy-named ops (`SPECIAL_EXAMPLES` for scipy.special's).
"""

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pytest
import rel_numpy_refs as R  # sibling modules: tests/reliability is on sys.path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from rel_draws import Draws

import function as F
import variable as V

EXAMPLES = int(os.environ.get("GENGRAD_PROPERTY_EXAMPLES", "300"))
"""Cases per op (several hundred, as the reliability issue asks; the file takes about 140 s on one
core beside another process, 168 s with three CASES an example and FULL_GRADIENT 40, 215 s with
one case); set GENGRAD_PROPERTY_EXAMPLES=100 for a quicker local run."""
FULL_GRADIENT = 12      # inputs with more numbers than this are checked along random directions
GAP = 0.02              # distance kept from kinks and ties (the difference step is 1e-4)
NEW_EXAMPLES = max(20, EXAMPLES // 10)
"""Cases per NumPy-named op (variable/ops/*.py, V.linalg; about 220 rows): at EXAMPLES each they
would more than double the file's time; their table tests (tests/variable/test_ops_*.py) check
them at fixed points to third order too."""
SPECIAL_EXAMPLES = max(20, EXAMPLES // 10)
"""Cases per scipy.special function (about 170 rows): elementwise, each has a table
to third order (test_ops_*.py), its pointwise Taylor rule's and the op table's checks; here its
values over a random range and shapes."""


@dataclass(frozen=True)
class Prop:
    """An op under test: `draw(data, rng) -> (arrays, params)`, then op(*arrays, **params),
    on `examples` hypothesis examples."""

    name: str
    draw: Callable
    call: Callable
    ref: Callable
    label: str = ""
    examples: int = EXAMPLES
    entrywise: bool = False
    """Each output entry is a function of the same entry of the one floating-point input (an
    elementwise function: `entrywise`): its central differences, every entry at once, are the
    full check's (`_check_gradient`)."""


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


def prelu_draw(data, rng):
    """x of any shape, away from the kink at 0, and one slope for all or one per channel (axis 1)."""
    shape = data.draw(SHAPES)
    channels = shape[1] if len(shape) >= 2 else 1
    size = data.draw(st.sampled_from(sorted({1, channels})))
    return [away(rng, shape, (0.0,)), rng.uniform(-0.5, 0.5, size)], {}


def glu_draw(data, rng):
    """x whose drawn axis has an even size, and that axis."""
    shape = list(data.draw(NONSCALAR))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    shape[axis] *= 2
    return [rng.uniform(-3, 3, shape)], {"axis": axis}


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


def multi_margin_draw(data, rng):
    """(N, C) or (C,) scores whose margins stay 0.1 from the hinge's kink, labels, p, margin and
    (sometimes) class weights."""
    n, c = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    margin = data.draw(st.sampled_from([1.0, 0.5, 2.0]))
    one = data.draw(st.booleans())
    t = rng.integers(0, c, n)
    base = rng.uniform(-2, 2, (n, 1))
    x = base - margin + away(rng, (n, c), (0.0,), -2.0, 2.0)
    x[np.arange(n), t] = base[:, 0]
    params = {"p": data.draw(st.sampled_from([1, 2])), "margin": margin,
              "reduction": data.draw(st.sampled_from(["mean", "sum", "none"]))}
    if data.draw(st.booleans()):
        params["weight"] = rng.uniform(0.5, 2.0, c)
    return ([x[0], t[0]] if one else [x, t]), params


def local_response_norm_draw(data, rng):
    shape = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 5))) + data.draw(shapes(1, 2, 1, 3))
    params = {"size": data.draw(st.integers(1, 6)),
              "alpha": data.draw(st.sampled_from([1e-4, 0.5, 2.0])),
              "beta": data.draw(st.sampled_from([0.75, 0.5, 1.5])),
              "k": data.draw(st.sampled_from([1.0, 2.0]))}
    return [rng.uniform(-2, 2, shape)], params


def sce_labels_draw(data, rng):
    shape = data.draw(NONSCALAR)
    return [rng.uniform(-3, 3, shape), rng.integers(0, shape[-1], shape[:-1])], {}


def cross_entropy_options_draw(data, rng):
    """Logits, labels (some rows labelled ignore_index) and a draw of PyTorch's keywords."""
    shape = data.draw(NONSCALAR)
    t = rng.integers(0, shape[-1], shape[:-1])
    params = {"reduction": data.draw(st.sampled_from(["mean", "sum", "none"]))}
    if data.draw(st.booleans()):
        params["weight"] = rng.uniform(0.5, 2.0, shape[-1])
    if data.draw(st.booleans()):        # (row 0 kept: where none is, the mean is NaN and its gradient 0,
        ignored = data.draw(st.sampled_from([-100, 0])) if shape[-1] > 1 else -100   # no difference's)
        if ignored == 0:
            t = np.where(t == 0, 1, t)
        t.reshape(-1)[1::2] = params["ignore_index"] = ignored
    return [rng.uniform(-3, 3, shape), t], params


def sce_options_draw(data, rng):
    inputs, params = cross_entropy_options_draw(data, rng)
    params["label_smoothing"] = data.draw(st.sampled_from([0.0, 0.1, 0.5]))
    return inputs, params


def nll_draw(data, rng):
    (x, t), params = cross_entropy_options_draw(data, rng)
    log_p = x - np.log(np.exp(x).sum(-1, keepdims=True))
    return [log_p, t], params


def smooth_l1_draw(data, rng):
    shape, beta = data.draw(SHAPES), data.draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))
    t = rng.uniform(-2, 2, shape)
    return [t + away(rng, shape, (-beta, 0.0, beta), -4.0, 4.0), t], {
        "beta": beta, "reduction": data.draw(st.sampled_from(["mean", "sum", "none"]))}


def signed_draw(data, rng):
    """Scores x and labels y of +-1, x away from the kinks of hinge_embedding_loss (at the margin)."""
    shape, margin = data.draw(SHAPES), data.draw(st.sampled_from([0.5, 1.0, 2.0]))
    return [margin - away(rng, shape, (0.0,), -2.0, 2.0), rng.choice([-1, 1], shape)], {"margin": margin}


def ranking_draw(data, rng):
    shape, margin = data.draw(SHAPES), data.draw(st.sampled_from([0.0, 0.5]))
    y, x2 = rng.choice([-1, 1], shape), rng.uniform(-2, 2, shape)   # (integer labels: constants)
    return [x2 + y * (margin - away(rng, shape, (0.0,), -2.0, 2.0)), x2, y], {"margin": margin}


def cosine_embedding_draw(data, rng):
    """Rows and labels; the margin -2 keeps every negative pair's hinge active (cos >= -1)."""
    n, d = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    one = data.draw(st.booleans())
    x1, x2, y = rng.uniform(-2, 2, (n, d)), rng.uniform(-2, 2, (n, d)), rng.choice([-1, 1], n)
    return ([x1[0], x2[0], y[0]] if one else [x1, x2, y]), {"margin": -2.0}


def triplet_draw(data, rng):
    """Triplets whose hinge stays active (margin 20 over distances below 12)."""
    n, d = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    rows = [rng.uniform(-2, 2, (n, d)) for _ in range(3)]
    params = {"margin": 20.0, "p": data.draw(st.sampled_from([1.5, 2.0, 3.0])),
              "swap": data.draw(st.booleans()),
              "reduction": data.draw(st.sampled_from(["mean", "sum", "none"]))}
    return ([r[0] for r in rows] if data.draw(st.booleans()) else rows), params


def gaussian_nll_draw(data, rng):
    shape = data.draw(NONSCALAR)
    var_shape = data.draw(st.sampled_from([shape, shape[:-1], shape[:-1] + (1,)]))
    return [rng.uniform(-2, 2, shape), rng.uniform(-2, 2, shape), rng.uniform(0.3, 2.0, var_shape)], {
        "full": data.draw(st.booleans()), "reduction": data.draw(st.sampled_from(["mean", "sum", "none"]))}


def ctc_draw(data, rng):
    """(T, N, C) log-probabilities (log_softmax of draws, or any reals), padded targets that fit
    their input lengths, a blank among the classes."""
    steps, n = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 3))
    classes = data.draw(st.integers(2, 4))
    blank = data.draw(st.integers(0, classes - 1))
    input_lengths = rng.integers(1, steps + 1, n)
    labels = [c for c in range(classes) if c != blank]
    target_lengths = np.array([rng.integers(0, (m + 1) // 2 + 1) for m in input_lengths])
    targets = rng.choice(labels, (n, max(target_lengths.max(), 1)))
    scores = rng.uniform(-3, 3, (steps, n, classes))
    if data.draw(st.booleans()):
        scores = scores - np.log(np.exp(scores).sum(axis=-1, keepdims=True))
    return [scores, targets, input_lengths, target_lengths], {"blank": blank}


def unpool_draw(data, rng):
    """Pooled images and the positions of their maxima in a pooling input (pooled here by
    F.pooling with a kernel, stride of at least the kernel, and pad)."""
    k = data.draw(st.integers(1, 3))
    s, p = data.draw(st.integers(k, 3)), data.draw(st.integers(0, k - 1))
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    size = tuple(data.draw(st.integers(k, 6)) for _ in range(2))
    _, indices = F.pooling(rng.uniform(-1, 1, (n, c) + size), k, s, p, return_indices=True)
    return [rng.uniform(-1, 1, indices.shape), indices], {"kernel_size": k, "stride": s, "pad": p,
                                                          "outsize": size}


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


def rms_norm_draw(data, rng):
    """Rows away from 0 (where the mean square is eps and the derivatives of order 1/sqrt(eps)),
    a gamma, and eps left to the dtype or given."""
    shape = data.draw(shapes(1, 3, 2, 3))
    x = distinct(rng, shape, 0.5, 3) * rng.choice([-1, 1], shape)
    kwargs = data.draw(st.sampled_from([{}, {"eps": 1e-3}]))
    return [x, rng.uniform(0.5, 1.5, shape[-1])], kwargs


def group_norm_draw(data, rng):
    """(N, C, ...) with C a multiple of the drawn number of groups and at least two entries a
    group, spread-out values (see layer_norm_draw)."""
    groups = data.draw(st.integers(1, 3))
    n, per_group = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    shape = (n, groups * per_group) + data.draw(shapes(1, 2, 2, 3))
    c = shape[1]
    x = distinct(rng, shape, -3, 3)
    return [x, rng.uniform(0.5, 1.5, c), rng.uniform(-1, 1, c)], {"num_groups": groups}


def attention_draw(data, rng):
    """query (..., L, E), key (..., S, E), value (..., S, Ev) with leading axes that broadcast
    (a 1 against the others' size), L <= S when causal (every query sees a key), and a scale."""
    batch = data.draw(shapes(0, 2, 1, 2))
    lead = [tuple(1 if data.draw(st.booleans()) else b for b in batch) for _ in range(3)]
    length, source, e, ev = (data.draw(st.integers(1, 3)) for _ in range(4))
    params = {}
    if data.draw(st.booleans()):
        params["is_causal"] = True
        source = max(source, length)
    if data.draw(st.booleans()):
        params["scale"] = data.draw(st.floats(0.1, 2.0))
    return [rng.uniform(-1.5, 1.5, s) for s in (lead[0] + (length, e), lead[1] + (source, e),
                                                lead[2] + (source, ev))], params


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


def grid_draw(data, rng):
    """An image and a grid of points in and around it (off the pixel centres, where bilinear
    sampling has a kink), a mode, a padding mode and align_corners."""
    x = _image(data, rng, min_side=1)
    rows, cols = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    grid = rng.uniform(-1.2, 1.2, (x.shape[0], rows, cols, 2))
    kwargs = {"mode": data.draw(st.sampled_from(["bilinear", "nearest", "bicubic"])),
              "padding_mode": data.draw(st.sampled_from(["zeros", "border", "reflection"])),
              "align_corners": data.draw(st.booleans())}
    return [x, grid], kwargs


def affine_draw(data, rng):
    """Affine maps theta (N, 2, 3) and an output size."""
    n, h, w = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    return [rng.uniform(-1, 1, (n, 2, 3))], {"size": (n, 1, h, w), "align_corners": data.draw(st.booleans())}


def resample_draw(data, rng):
    """An image and an output size (h, w) of 1 to 6 each: smaller, larger or the same."""
    size = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
    return [_image(data, rng, min_side=1)], {"size": size}


def _adaptive_draw(dims):
    def draw(data, rng):
        """x of (N, C) or (C) and `dims` spatial sides of 1 to 4, and output sizes of 1 to 5."""
        lead = (data.draw(st.integers(1, 2)),) * data.draw(st.booleans()) + (data.draw(st.integers(1, 2)),)
        spatial = tuple(data.draw(st.integers(1, 4)) for _ in range(dims))
        size = tuple(data.draw(st.integers(1, 5)) for _ in range(dims))
        return [rng.uniform(-2, 2, lead + spatial)], {"size": size[0] if dims == 1 else size}
    draw.__doc__ = draw.__doc__.replace("`dims`", str(dims))
    return draw


def interpolate_draw(data, rng):
    arrays, params = resample_draw(data, rng)
    return arrays, {**params, "mode": data.draw(st.sampled_from(["nearest", "bilinear", "area"]))}


def _geometry(data, h, w):
    kernel = (data.draw(st.integers(1, min(3, h))), data.draw(st.integers(1, min(3, w))))
    stride = data.draw(st.sampled_from([1, 2, (1, 2), (2, 1)]))
    pad = data.draw(st.sampled_from([0, 1, (0, 1), (1, 0)]))
    return kernel, stride, pad


def _grouping(data, rng, x):
    """groups (1 or 2, when x's channels split) and W's output channels, a multiple of it."""
    groups = data.draw(st.sampled_from([1, 2])) if x.shape[1] % 2 == 0 else 1
    return groups, groups * data.draw(st.integers(1, 2))


def conv2d_draw(data, rng):
    """Images, a kernel that fits (dilated by 1 or 2 where it still does), a stride and a pad
    (or 'same' at stride 1), channels in 1 or 2 groups."""
    x = _image(data, rng)
    kernel, stride, pad = _geometry(data, *x.shape[2:])
    dilation = data.draw(st.sampled_from([1, 2, (1, 2), (2, 1)]))
    pads, dils = np.broadcast_to(pad, 2), np.broadcast_to(dilation, 2)
    if any(d * (k - 1) + 1 > n + 2 * p for d, k, n, p in zip(dils, kernel, x.shape[2:], pads)):
        dilation = 1
    if stride == 1 and data.draw(st.booleans()):
        pad = "same"
    groups, oc = _grouping(data, rng, x)
    arrays = [x, rng.uniform(-1, 1, (oc, x.shape[1] // groups) + kernel)]
    if data.draw(st.booleans()):
        arrays.append(rng.uniform(-1, 1, oc))
    return arrays, {"stride": stride, "pad": pad, "dilation": dilation, "groups": groups}


def conv3d_draw(data, rng):
    """Volumes of 2 to 3 entries a side, a kernel that fits, a stride, a pad (or 'same' at
    stride 1), a dilation of 1 or 2 where it fits, channels in 1 or 2 groups."""
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    x = rng.uniform(-1, 1, (n, c) + tuple(data.draw(st.integers(2, 3)) for _ in range(3)))
    kernel = tuple(data.draw(st.integers(1, 2)) for _ in range(3))
    stride, pad, dilation = (data.draw(st.sampled_from(v)) for v in ([1, 2], [0, 1], [1, 2]))
    if any(dilation * (k - 1) + 1 > m + 2 * pad for k, m in zip(kernel, x.shape[2:])):
        dilation = 1
    groups, oc = _grouping(data, rng, x)
    arrays = [x, rng.uniform(-1, 1, (oc, c // groups) + kernel)]
    if data.draw(st.booleans()):
        arrays.append(rng.uniform(-1, 1, oc))
    if stride == 1 and data.draw(st.booleans()):
        pad = "same"
    return arrays, {"stride": stride, "pad": pad, "dilation": dilation, "groups": groups}


def conv1d_draw(data, rng):
    """(N, C, L) sequences, a kernel that fits the padded length at its dilation, a stride and a
    pad (or 'same' at stride 1), channels in 1 or 2 groups."""
    n, c, length = (data.draw(st.integers(1, 3)) for _ in range(3))
    length += data.draw(st.integers(0, 4))
    pad = data.draw(st.integers(0, 2))
    dilation = data.draw(st.integers(1, 3))
    k = data.draw(st.integers(1, (length + 2 * pad - 1) // dilation + 1))
    stride = data.draw(st.integers(1, 3))
    x = rng.uniform(-1, 1, (n, c, length))
    groups, oc = _grouping(data, rng, x)
    arrays = [x, rng.uniform(-1, 1, (oc, c // groups, k))]
    if data.draw(st.booleans()):
        arrays.append(rng.uniform(-1, 1, oc))
    if stride == 1 and data.draw(st.booleans()):
        pad = "same"
    return arrays, {"stride": stride, "pad": pad, "dilation": dilation, "groups": groups}


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


def _deconv_draw(data, rng, dims, sides):
    """(N, C, *size) inputs with `sides` entries a side, a kernel, stride, pad (cropping less
    than all), dilation, channels in 1 or 2 groups: W (C, OC / groups, *kernel)."""
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    x = rng.uniform(-1, 1, (n, c) + tuple(data.draw(st.integers(*sides)) for _ in range(dims)))
    kernel = tuple(data.draw(st.integers(1, 3)) for _ in range(dims))
    stride, pad, dilation = (data.draw(st.sampled_from(v)) for v in ([1, 2], [0, 1], [1, 2]))
    if any(stride * (m - 1) + dilation * (k - 1) + 1 <= 2 * pad for m, k in zip(x.shape[2:], kernel)):
        pad = 0                                          # the padding would crop everything
    groups, oc = _grouping(data, rng, x)
    arrays = [x, rng.uniform(-1, 1, (c, oc // groups) + kernel)]
    if data.draw(st.booleans()):
        arrays.append(rng.uniform(-1, 1, oc))
    return arrays, {"stride": stride, "pad": pad, "dilation": dilation, "groups": groups}


def deconv1d_draw(data, rng):
    return _deconv_draw(data, rng, 1, (1, 5))


def deconv3d_draw(data, rng):
    return _deconv_draw(data, rng, 3, (1, 2))


def pooling_draw(data, rng):
    x = _image(data, rng, values=distinct)
    kernel, stride, pad = _geometry(data, *x.shape[2:])
    pad = tuple(min(p, k - 1) for p, k in zip(np.broadcast_to(pad, 2), kernel))   # pad < kernel
    return [x], {"kernel_size": kernel, "stride": stride, "pad": tuple(int(p) for p in pad)}


def dilated_pooling_draw(data, rng):
    """Images, kernel, stride and a dilation whose spread window fits without reading only padding
    (pad 0)."""
    x = _image(data, rng, values=distinct)
    kernel, stride, _ = _geometry(data, *x.shape[2:])
    kernel = tuple(np.broadcast_to(kernel, 2).tolist())
    dilation = tuple(min(data.draw(st.integers(1, 3)), max((size - 1) // max(k - 1, 1), 1))
                     for size, k in zip(x.shape[2:], kernel))
    return [x], {"kernel_size": kernel, "stride": stride, "dilation": dilation}


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


# ----- NumPy-named ops (variable/ops/*.py and V.linalg) -------------------------------------------
def uniform(low, high):
    return lambda rng, s: rng.uniform(low, high, s)


def either_sign(low, high):
    """Magnitudes uniform in [low, high], each entry's sign drawn (away from a singularity at 0)."""
    return lambda rng, s: rng.choice([-1.0, 1.0], s) * rng.uniform(low, high, s)


def with_zeros(rng, s):
    """Values in [-2, 2], about a quarter of them exactly 0 (prod and cumprod at zeros)."""
    x = rng.uniform(-2, 2, s)
    return np.where(rng.random(s) < 0.25, 0.0, x)


def _two_axes(data, ndim):
    """Two different axes of an `ndim`-dimensional array, each possibly negative."""
    a1, a2 = data.draw(st.lists(st.integers(0, ndim - 1), min_size=2, max_size=2, unique=True))
    return tuple(a - ndim if data.draw(st.booleans()) else a for a in (a1, a2))


def _count(shape, axis):
    """How many entries each slice reduced over `axis` holds."""
    axes = range(len(shape)) if axis is None else np.atleast_1d(np.array(axis, dtype=int))
    return math.prod(shape[a] for a in axes)


def draw_rounded(data, rng):
    decimals = data.draw(st.sampled_from([0, 1, -1]))
    step = 10.0 ** -decimals
    halves = step * (np.arange(-25, 25) + 0.5)
    return [away(rng, data.draw(SHAPES), halves[np.abs(halves) < 2.5])], {"decimals": decimals}


def draw_remainder(data, rng):
    """x0 / x1 more than GAP from every whole number (the jumps of mod, remainder, fmod)."""
    s0, s1 = data.draw(PAIRS).input_shapes
    x1 = nonzero(rng, s1)
    for _ in range(200):
        x0 = rng.uniform(-3, 3, s0)
        q = x0 / x1
        if np.all(np.abs(q - np.round(q)) > GAP):
            return [x0, x1], {}
    raise AssertionError("could not draw a quotient away from whole numbers")


def draw_var(data, rng):
    shape = data.draw(SHAPES)
    axis = _axis(data, len(shape))
    ddof = data.draw(st.sampled_from([0, 1, 0.5] if _count(shape, axis) > 1 else [0]))
    return [distinct(rng, shape)], {"axis": axis, "ddof": ddof, "keepdims": data.draw(st.booleans())}


def draw_average(data, rng):
    shape = data.draw(SHAPES)
    axis = _axis(data, len(shape))
    arrays = [rng.uniform(-2, 2, shape)]
    weights = data.draw(st.sampled_from(["none", "full"] + (["axis"] if isinstance(axis, int) else [])))
    if weights == "full":
        arrays.append(positive(rng, shape))
    elif weights == "axis":
        arrays.append(positive(rng, shape[axis]))
    return arrays, {"axis": axis, "returned": data.draw(st.booleans()), "keepdims": data.draw(st.booleans())}


def draw_running(values=None):
    def draw(data, rng):
        shape = data.draw(SHAPES)
        axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
        return [(values or uniform(-2, 2))(rng, shape)], {"axis": axis}
    return draw


def draw_diagonal(data, rng):
    """trace and diagonal: offset, axis1, axis2."""
    shape = data.draw(shapes(2, 3))
    axis1, axis2 = _two_axes(data, len(shape))
    return [rng.uniform(-2, 2, shape)], {"offset": data.draw(st.integers(-2, 2)), "axis1": axis1,
                                         "axis2": axis2}


# contraction
EINSUM = ["ij,jk->ik", "ij,jk", "ij->ji", "ji", "ij->", "ij->j", "i,i", "i,j->ij", "ii->i", "ii", "iij->j",
          "...ij,...jk->...ik", "...ii->...i", "i...->...", "ij,ij->ij", "ij,jk,kl->il", "ijk,jl->lki",
          "i,->i", "Ba,b"]


def draw_einsum(data, rng):
    subscripts = data.draw(st.sampled_from(EINSUM))
    sizes = {c: data.draw(st.integers(1, 3)) for c in sorted(set(subscripts) - set(",->."))}
    batches = data.draw(PAIRS).input_shapes                # for the (at most two) operands with '...'
    arrays = []
    for k, term in enumerate(subscripts.split("->")[0].split(",")):
        head, _, tail = term.partition("...")
        shape = tuple(sizes[c] for c in head) + (batches[k] if "..." in term else ()) + tuple(
            sizes[c] for c in tail)
        arrays.append(rng.uniform(-2, 2, shape))
    return arrays, {"subscripts": subscripts}


def draw_dot(data, rng):
    a, b = list(data.draw(SHAPES)), list(data.draw(SHAPES))
    if a and b:
        b[-2 if len(b) >= 2 else 0] = a[-1]
    return [rng.uniform(-2, 2, a), rng.uniform(-2, 2, b)], {}


def draw_vdot(data, rng):
    shape = data.draw(SHAPES)
    other = data.draw(st.sampled_from([shape, shape[::-1], (math.prod(shape),)]))
    return [rng.uniform(-2, 2, shape), rng.uniform(-2, 2, other)], {}


def draw_inner(data, rng):
    a, b = list(data.draw(SHAPES)), list(data.draw(SHAPES))
    if a and b:
        b[-1] = a[-1]
    return [rng.uniform(-2, 2, a), rng.uniform(-2, 2, b)], {}


def draw_two(shapes0=SHAPES, shapes1=SHAPES):
    def draw(data, rng):
        return [rng.uniform(-2, 2, data.draw(shapes0)), rng.uniform(-2, 2, data.draw(shapes1))], {}
    return draw


def _shuffled(data, free, shared):
    """free + shared axes in a drawn order: the shape and where each shared axis went."""
    order = data.draw(st.permutations(range(len(free) + len(shared))))
    sides = free + shared
    return tuple(sides[i] for i in order), [order.index(len(free) + j) for j in range(len(shared))]


def draw_tensordot(data, rng):
    shared, free_a, free_b = data.draw(shapes(0, 2)), data.draw(shapes(0, 2)), data.draw(shapes(0, 2))
    if data.draw(st.booleans()):
        return [rng.uniform(-2, 2, free_a + shared), rng.uniform(-2, 2, shared + free_b)], {
            "axes": len(shared)}
    a, axes_a = _shuffled(data, free_a, shared)
    b, axes_b = _shuffled(data, free_b, shared)
    axes_a = [i - len(a) if data.draw(st.booleans()) else i for i in axes_a]
    return [rng.uniform(-2, 2, a), rng.uniform(-2, 2, b)], {"axes": (axes_a, axes_b)}


def draw_cross(data, rng):
    s0, s1 = data.draw(broadcast_shapes(max_dims=2)).input_shapes
    if data.draw(st.booleans()):
        return [rng.uniform(-2, 2, s0 + (3,)), rng.uniform(-2, 2, s1 + (3,))], {}
    return [rng.uniform(-2, 2, (3,) + s0), rng.uniform(-2, 2, s1 + (3,))], {
        "axisa": 0, "axisb": -1, "axisc": data.draw(st.sampled_from([0, -1]))}


# rearrange
def draw_repeat(data, rng):
    shape = data.draw(SHAPES)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    n = math.prod(shape) if axis is None else shape[axis]
    repeats = data.draw(st.integers(0, 3) | st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return [rng.uniform(-2, 2, shape)], {"repeats": repeats, "axis": axis}


def draw_tile(data, rng):
    reps = data.draw(st.integers(0, 2) | st.lists(st.integers(0, 2), max_size=3).map(tuple))
    return [rng.uniform(-2, 2, data.draw(SHAPES))], {"reps": reps}


def draw_roll(data, rng):
    shape = data.draw(SHAPES)
    if shape and data.draw(st.booleans()):
        axis = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=3))
        shift = data.draw(st.integers(-3, 3) | st.lists(st.integers(-3, 3), min_size=len(axis),
                                                        max_size=len(axis)).map(tuple))
        return [rng.uniform(-2, 2, shape)], {"shift": shift, "axis": tuple(axis)}
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    return [rng.uniform(-2, 2, shape)], {"shift": data.draw(st.integers(-3, 3)), "axis": axis}


def draw_flip(data, rng):
    shape = data.draw(SHAPES)
    return [rng.uniform(-2, 2, shape)], {"axis": _axis(data, len(shape))}


def draw_rot90(data, rng):
    shape = data.draw(shapes(2, 3))
    return [rng.uniform(-2, 2, shape)], {"k": data.draw(st.integers(-3, 4)),
                                         "axes": _two_axes(data, len(shape))}


def draw_swapaxes(data, rng):
    shape = data.draw(NONSCALAR)
    axis = st.integers(-len(shape), len(shape) - 1)
    return [rng.uniform(-2, 2, shape)], {"axis1": data.draw(axis), "axis2": data.draw(axis)}


def draw_moveaxis(data, rng):
    shape = data.draw(NONSCALAR)
    n = len(shape)
    source = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    destination = data.draw(st.lists(st.integers(-n, -1), unique=True, min_size=len(source),
                                     max_size=len(source)))
    if len(source) == 1 and data.draw(st.booleans()):
        source, destination = source[0], destination[0]
    return [rng.uniform(-2, 2, shape)], {"source": source, "destination": destination}


def draw_rollaxis(data, rng):
    shape = data.draw(NONSCALAR)
    n = len(shape)
    return [rng.uniform(-2, 2, shape)], {"axis": data.draw(st.integers(-n, n - 1)),
                                         "start": data.draw(st.integers(-n, n))}


# stacking
def draw_concatenate(data, rng):
    if data.draw(st.booleans()):
        return draw_concat(data, rng)
    count = data.draw(st.integers(1, 3))
    return [rng.uniform(-2, 2, data.draw(SHAPES)) for _ in range(count)], {"axis": None}


def draw_append(data, rng):
    arrays, params = draw_concatenate(data, rng)
    while len(arrays) < 2:
        arrays = arrays * 2
    return arrays[:2], params


def draw_joined(axis_of, min_dims=0):
    """Arrays of one drawn rank whose shapes differ only along axis_of(rank) (None: same shape)."""
    def draw(data, rng):
        shape = data.draw(shapes(min_dims, 3))
        axis = axis_of(len(shape))
        arrays = []
        for _ in range(data.draw(st.integers(1, 3))):
            s = list(shape)
            if axis is not None:
                s[axis] = data.draw(st.integers(1, 3))
            arrays.append(rng.uniform(-2, 2, s))
        return arrays, {}
    return draw


def draw_column_stack(data, rng):
    n = data.draw(st.integers(1, 3))
    widths = data.draw(st.lists(st.none() | st.integers(1, 2), min_size=1, max_size=3))
    return [rng.uniform(-2, 2, (n,) if w is None else (n, w)) for w in widths], {}


def draw_split_like(axis_of, min_dims=1):
    """array_split (axis drawn) and vsplit/hsplit/dsplit (axis_of(rank)): sections or indices."""
    def draw(data, rng):
        shape = list(data.draw(shapes(min_dims, 3)))
        axis = axis_of(len(shape)) if axis_of else data.draw(st.integers(-len(shape), len(shape) - 1))
        if data.draw(st.booleans()):
            parts = data.draw(st.integers(1, 3))
            if axis_of:                                     # the named splits need equal parts
                shape[axis] = parts * data.draw(st.integers(1, 2))
            sections = parts
        else:
            n = shape[axis]
            sections = data.draw(st.lists(st.integers(-n - 1, n + 1), max_size=3))
        params = {"indices_or_sections": sections}
        if not axis_of:
            params["axis"] = axis
        return [rng.uniform(-2, 2, shape)], params
    return draw


def _parts(split):
    return lambda *xs, **kw: tuple(split(*xs, **kw))


# selection
def draw_sort(data, rng):
    shape = data.draw(SHAPES)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    return [distinct(rng, shape)], {"axis": axis}


def draw_partition(data, rng):
    shape = data.draw(NONSCALAR)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    n = math.prod(shape) if axis is None else shape[axis]
    kth = data.draw(st.integers(-n, n - 1) | st.lists(st.integers(0, n - 1), min_size=1, max_size=2,
                                                      unique=True))
    return [distinct(rng, shape)], {"kth": kth, "axis": axis}


def draw_take_along_axis(data, rng):
    shape = data.draw(NONSCALAR)
    if data.draw(st.booleans()):
        n = math.prod(shape)
        return [rng.uniform(-2, 2, shape)], {"indices": rng.integers(-n, n, data.draw(st.integers(1, 4))),
                                             "axis": None}
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    index_shape = [data.draw(st.sampled_from([m, 1])) for m in shape]
    index_shape[axis] = data.draw(st.integers(1, 4))
    return [rng.uniform(-2, 2, shape)], {"indices": rng.integers(-n, n, index_shape), "axis": axis}


def draw_take(data, rng):
    shape = data.draw(NONSCALAR)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    n = math.prod(shape) if axis is None else shape[axis]
    indices = rng.integers(-n, n, data.draw(shapes(0, 2)))
    return [rng.uniform(-2, 2, shape)], {"indices": indices, "axis": axis}


def draw_select(data, rng):
    k = data.draw(st.integers(1, 3))
    all_shapes = data.draw(broadcast_shapes(num_shapes=2 * k)).input_shapes
    return [rng.uniform(-2, 2, s) for s in all_shapes[k:]], {
        "condlist": [rng.random(s) < 0.5 for s in all_shapes[:k]],
        "default": data.draw(st.sampled_from([0, 1.5]))}


def draw_diag(data, rng):
    return [rng.uniform(-2, 2, data.draw(shapes(1, 2)))], {"k": data.draw(st.integers(-3, 3))}


def draw_triangle(data, rng):
    return [rng.uniform(-2, 2, data.draw(shapes(1, 3)))], {"k": data.draw(st.integers(-2, 2))}


# differences
def draw_diff(data, rng):
    shape = data.draw(NONSCALAR)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    params = {"n": data.draw(st.integers(0, 3)), "axis": axis}
    for end in ("prepend", "append"):
        kind = data.draw(st.sampled_from(["none", "number", "array"]))
        if kind == "number":
            params[end] = 0.5
        elif kind == "array":
            s = list(shape)
            s[axis] = data.draw(st.integers(1, 2))
            params[end] = rng.uniform(-2, 2, s)
    return [rng.uniform(-2, 2, shape)], params


def draw_gradient(data, rng):
    edge_order = data.draw(st.sampled_from([1, 2]))
    shape = data.draw(shapes(1, 3, edge_order + 1, 4))
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)
                     | st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True).map(tuple))
    axes = range(len(shape)) if axis is None else np.atleast_1d(np.array(axis, dtype=int))
    kind = data.draw(st.sampled_from(["none", "number", "each"]))
    spacing = []
    if kind == "number":
        spacing = [0.5]
    elif kind == "each":                           # per axis: a step, or increasing coordinates
        spacing = [data.draw(st.sampled_from([0.5, 2.0, None])) for _ in axes]
        spacing = [np.cumsum(rng.uniform(0.5, 1.5, shape[a])) if h is None else h
                   for h, a in zip(spacing, axes)]
    return [rng.uniform(-2, 2, shape)], {"spacing": spacing, "axis": axis, "edge_order": edge_order}


def draw_pad(data, rng):
    shape = data.draw(SHAPES)
    mode = data.draw(st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap"]))
    width = st.integers(0, 2)
    if shape and data.draw(st.booleans()):
        pad_width = tuple(data.draw(st.tuples(width, width)) for _ in shape)
    else:
        pad_width = data.draw(width | st.tuples(width, width))
    params = {"pad_width": pad_width, "mode": mode}
    if mode == "constant" and data.draw(st.booleans()):
        params["constant_values"] = 1.5
    return [rng.uniform(-2, 2, shape)], params


# linear algebra: well-conditioned matrices
BATCH = shapes(0, 2, 1, 2)


def _matrices(rng, shape, diagonal=3.0):
    """Entries in [-1, 1] plus `diagonal` on the main diagonal of each matrix."""
    return rng.uniform(-1, 1, shape) + diagonal * np.eye(shape[-2], shape[-1])


def draw_square(data, rng):
    n = data.draw(st.integers(1, 3))
    return [_matrices(rng, data.draw(BATCH) + (n, n), data.draw(st.sampled_from([3.0, -3.0])))], {}


def draw_rectangular(data, rng):
    m, n = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    return [_matrices(rng, data.draw(BATCH) + (m, n))], {}


def draw_solve(data, rng):
    n = data.draw(st.integers(1, 3))
    batch_a, batch_b = data.draw(broadcast_shapes(max_dims=2, max_side=2)).input_shapes
    b = (n,) if data.draw(st.booleans()) else batch_b + (n, data.draw(st.integers(1, 2)))
    return [_matrices(rng, batch_a + (n, n)), rng.uniform(-1.5, 1.5, b)], {}


def draw_lstsq(data, rng):
    m, n = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 3))
    b = (m,) if data.draw(st.booleans()) else (m, data.draw(st.integers(1, 2)))
    return [_matrices(rng, (m, n)), rng.uniform(-1.5, 1.5, b)], {}


def draw_matrix_power(data, rng):
    (a,), _ = draw_square(data, rng)
    return [a], {"n": data.draw(st.integers(-2, 4))}


VECTOR_ORDS = [None, 1, 2, np.inf, -np.inf, 0, 3, 0.5, -1]
MATRIX_ORDS = [None, "fro", 1, -1, np.inf, -np.inf, 2, -2, "nuc"]


def _norm_untied(x, ord, axis):
    """Whether the entries (vector ord +-inf) or the row or column sums (matrix ord +-1,
    +-inf) that the norm takes the largest or smallest of are GAP apart."""
    a = np.abs(x)
    if x.ndim == 1 or isinstance(axis, int):
        if ord not in (np.inf, -np.inf):
            return True
        candidates, along = a, -1 if axis is None else axis
    elif ord in (1, -1, np.inf, -np.inf):
        rows, columns = axis or (0, 1)
        candidates, along = ((a.sum(rows, keepdims=True), columns) if ord in (1, -1)
                             else (a.sum(columns, keepdims=True), rows))
    else:
        return True
    gaps = np.diff(np.sort(candidates, axis=along), axis=along)
    return gaps.size == 0 or gaps.min() > GAP


def draw_norm(data, rng):
    kind = data.draw(st.sampled_from(["all", "vector", "matrix"]))
    shape = data.draw({"all": SHAPES, "vector": NONSCALAR, "matrix": shapes(2, 3)}[kind])
    ord, axis = None, None
    if kind == "vector":
        ord = data.draw(st.sampled_from(VECTOR_ORDS))
        if len(shape) > 1 or data.draw(st.booleans()):
            axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    elif kind == "matrix":
        ord = data.draw(st.sampled_from(MATRIX_ORDS))
        if len(shape) > 2 or data.draw(st.booleans()):
            axis = _two_axes(data, len(shape))
    for _ in range(100):
        x = nonzero(rng, shape)
        if _norm_untied(x, ord, axis):
            return [x], {"ord": ord, "axis": axis, "keepdims": data.draw(st.booleans())}
    raise AssertionError("could not draw a point without ties for the norm")


def _orthogonal(rng, n):
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def _spread(rng, n, low):
    """n values from `low` up, consecutive ones 0.4 to 1 apart, in random order."""
    return rng.permutation(low + np.cumsum(rng.uniform(0.4, 1.0, n)))


def draw_spectral(low, rectangular=False):
    """Symmetric matrices with eigenvalues (or any matrices with singular values) from `low`,
    0.4 apart: eigh, svd and their gradients are well conditioned there."""
    def one(rng, m, n):
        k = min(m, n)
        return (_orthogonal(rng, m)[:, :k] * _spread(rng, k, low)) @ _orthogonal(rng, n)[:k]

    def symmetric(rng, m, _):
        q = _orthogonal(rng, m)
        return (q * _spread(rng, m, low)) @ q.T

    def draw(data, rng):
        m = data.draw(st.integers(1, 3))
        n = data.draw(st.integers(1, 3)) if rectangular else m
        batch = data.draw(BATCH)
        mats = [(one if rectangular else symmetric)(rng, m, n) for _ in range(math.prod(batch))]
        return [np.array(mats).reshape(batch + (m, n))], {}
    return draw


def projectors(v):
    """v_ik v_jk for every column k: the same for v and -v (ndarrays and Variables alike)."""
    return v[..., :, None, :] * v[..., None, :, :]


def draw_real_spectrum(data, rng):
    """Non-symmetric matrices S diag(w) S^-1 with real eigenvalues 0.4 apart (eig, eigvals)."""
    m, batch = data.draw(st.integers(1, 3)), data.draw(BATCH)

    def one():
        s = _orthogonal(rng, m) + 0.3 * rng.standard_normal((m, m)) / math.sqrt(m)
        return (s * _spread(rng, m, -1.5)) @ np.linalg.inv(s)
    return [np.array([one() for _ in range(math.prod(batch))]).reshape(batch + (m, m))], {}


def eig_view(eig):
    return lambda a: (lambda w, v: (w, projectors(v)))(*eig(a))


def eigh_view(eigh):
    return lambda a, UPLO: (lambda w, v: (w, projectors(v)))(*eigh(a, UPLO))


def svd_view(svd):
    def view(a, compute_uv):
        if not compute_uv:
            return svd(a, compute_uv=False)
        u, s, vh = svd(a, full_matrices=False)
        return projectors(u), s, vh[..., :, :, None] * vh[..., :, None, :]    # and rows of vh
    return view


def qr_view(qr, sign, diagonal):
    """Q and R with the signs that make diag(R) positive: unique for a full-rank `a`."""
    def view(a, mode):
        if mode == "r":
            r = qr(a, "r")
            return sign(diagonal(r, axis1=-2, axis2=-1))[..., :, None] * r
        q, r = qr(a)
        s = sign(diagonal(r, axis1=-2, axis2=-1))
        return q * s[..., None, :], s[..., :, None] * r
    return view


# quantiles: distinct values, so no difference step reorders a slice; q is a constant
FRACTIONS = [0.0, 0.05, 0.2, 0.25, 0.4, 0.5, 0.625, 0.75, 0.9, 1.0]
PERCENTS = [0.0, 5.0, 20.0, 25.0, 40.0, 50.0, 62.5, 75.0, 90.0, 100.0]
QUANTILE_METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
                    "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
                    "weibull", "median_unbiased", "normal_unbiased"]
"""NumPy's 13 methods, its default first (hypothesis draws the first entries most often)."""


def draw_quantile(levels):
    """quantile (levels FRACTIONS) or percentile (PERCENTS): q of 0 to 2 dimensions, any of
    NumPy's methods, or constant weights with 'inverted_cdf'."""
    def draw(data, rng):
        shape = data.draw(SHAPES)
        axis = _axis(data, len(shape))
        q = rng.choice(levels, data.draw(shapes(0, 2)))
        params = {"q": q, "axis": axis, "keepdims": data.draw(st.booleans()),
                  "method": data.draw(st.sampled_from(QUANTILE_METHODS))}
        if data.draw(st.integers(0, 3)) == 3:        # weights (some 0, no slice all 0): inverted_cdf only
            w = rng.choice([0.0, 0.5, 1.0, 2.0], shape)
            params["method"] = "inverted_cdf"
            params["weights"] = np.maximum(w, np.sum(w, axis=axis, keepdims=True) == 0)
        return [distinct(rng, shape)], params
    return draw


# signals and curves
def draw_signals(zero_d=True):
    """Two 1-D signals of lengths 1 to 5 (a number for a length-1 one of convolve's), a mode."""
    def draw(data, rng):
        arrays = []
        for _ in range(2):
            n = data.draw(st.integers(1, 5))
            scalar = zero_d and n == 1 and data.draw(st.booleans())
            arrays.append(rng.uniform(-2, 2, () if scalar else (n,)))
        return arrays, {"mode": data.draw(st.sampled_from(["full", "same", "valid", 0, 1, 2]))}
    return draw


def draw_interp(data, rng):
    """x more than GAP from every knot (and, with a period, from every knot and multiple of
    the period shifted by whole periods); xp increasing, or in any order with a period."""
    shape, k = data.draw(SHAPES), data.draw(st.integers(1, 4))
    fp = rng.uniform(-2, 2, k)
    period = data.draw(st.sampled_from([None, None, 1.5, -2.0]))
    if period is None:
        xp = np.cumsum(rng.uniform(0.3, 1.0, k)) - rng.uniform(0.5, 2.0)
        x = away(rng, shape, xp, xp[0] - 1.0, xp[-1] + 1.0)
        params = {k: data.draw(st.sampled_from([None, -3.0, np.array(0.5)])) for k in ("left", "right")}
        return [x, xp, fp], params
    p = abs(period)
    xp = rng.permutation(np.linspace(0.1, 0.9, 5))[:k] * p + p * rng.integers(-1, 2, k)
    kinks = (np.mod(xp, p)[:, None] + p * np.arange(-3, 4)).ravel()
    x = away(rng, shape, np.concatenate([kinks, p * np.arange(-3, 4)]), -2 * p, 2 * p)
    return [x, xp, fp], {"period": period}


def draw_trapezoid(data, rng):
    """Spacing dx (1 or a number), sample points x along the axis, or x of y's shape."""
    shape = data.draw(NONSCALAR)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    y = rng.uniform(-2, 2, shape)
    kind = data.draw(st.sampled_from(["dx 1", "dx number", "x 1-D", "x of y's shape"]))
    if kind == "dx 1":
        return [y], {"axis": axis}
    if kind == "dx number":
        return [y], {"dx": 0.5, "axis": axis}
    if kind == "x 1-D":
        return [y, np.cumsum(rng.uniform(0.2, 1.0, shape[axis]))], {"axis": axis}
    return [y, rng.uniform(-2, 2, shape)], {"axis": axis}


def draw_trapezoid_dx_array(data, rng):
    """dx an array (differentiated): 0-d, or of the shape of y's pairs of samples."""
    shape = data.draw(NONSCALAR)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    pairs = list(shape)
    pairs[axis] = max(shape[axis] - 1, 0)
    dx_shape = data.draw(st.sampled_from([(), tuple(pairs)]))
    return [rng.uniform(-2, 2, shape), rng.uniform(0.2, 1.0, dx_shape)], {"axis": axis}


def draw_polyval(data, rng):
    """1 to 4 coefficients: a 1-D p, or a 2-D one (a polynomial per column) against x."""
    k = data.draw(st.integers(1, 4))
    if data.draw(st.booleans()):
        return [rng.uniform(-2, 2, k), rng.uniform(-1.5, 1.5, data.draw(SHAPES))], {}
    columns = data.draw(st.integers(1, 3))
    x_shape = data.draw(st.sampled_from([(), (1,), (columns,), (2, columns), (3, 1)]))
    return [rng.uniform(-2, 2, (k, columns)), rng.uniform(-1.5, 1.5, x_shape)], {}


def draw_polyval_list(data, rng):
    """A list of 1 to 4 coefficients (then x) whose shapes broadcast with x's."""
    all_shapes = data.draw(broadcast_shapes(num_shapes=data.draw(st.integers(2, 5)))).input_shapes
    return [rng.uniform(-1.5, 1.5, s) for s in all_shapes], {}


def np_polyval_list(*arrays):
    """sum_i p_i x^(N-1-i), broadcast with x (power form, not Horner's)."""
    *p, x = arrays
    return sum(c * x ** (len(p) - 1 - i) for i, c in enumerate(p)) + np.zeros_like(x)


# powers, the step, grids
def draw_integer_exponent(data, rng):
    """Any real base, a whole exponent held as integers (a constant; float_power casts it)."""
    s0, s1 = data.draw(PAIRS).input_shapes
    return [nonzero(rng, s0), rng.integers(-3, 4, s1)], {}


def draw_step_at_zero(data, rng):
    """Integer x1 in {-1, 0, 1} (a constant): x2, where x1 == 0, gets the gradient."""
    s0, s1 = data.draw(PAIRS).input_shapes
    return [rng.integers(-1, 2, s0), rng.uniform(-2, 2, s1)], {}


def draw_meshgrid(data, rng):
    arrays = [rng.uniform(-2, 2, data.draw(shapes(0, 2))) for _ in range(data.draw(st.integers(1, 3)))]
    return arrays, {"indexing": data.draw(st.sampled_from(["xy", "ij"])), "sparse": data.draw(st.booleans()),
                    "copy": data.draw(st.booleans())}


def draw_broadcast_arrays(data, rng):
    count = data.draw(st.integers(1, 3))
    return [rng.uniform(-2, 2, s) for s in data.draw(broadcast_shapes(num_shapes=count)).input_shapes], {}


# nan-functions: NaN enters as a constant added to x (V.numerical_grad refuses points holding
# NaN), so the entries it hits must get gradient exactly 0 (their differences are 0); no slice
# reduced over is all NaN (its NaN result would make every difference NaN)
def _nans(rng, shape, axis=None, keep=1, weights=None):
    """0 or NaN at each entry (about a third NaN), each slice over `axis` keeping at least
    `keep` numbers (of positive `weights` if given; a slice that would keep fewer keeps all)."""
    hit = rng.random(shape) < 0.3
    kept = ~hit if weights is None else ~hit & (weights > 0)
    hit &= kept.sum(axis=axis, keepdims=True) >= keep
    return np.where(hit, np.nan, 0.0)


def plus_nans(fn):
    """fn of x with NaN where the constant `nans` holds NaN (x + nans: the gradient passes as is)."""
    return lambda x, nans, **kw: fn(x + nans, **kw)


def draw_nan_reduction(values=None, ddof=False, initial=()):
    """A reduction with NaN entries: axis, keepdims, ddof (nanvar, nanstd) and `initial`,
    drawn from `initial` ('between': a number GAP away from every entry, so no tie)."""
    def draw(data, rng):
        shape = data.draw(SHAPES)
        axis = _axis(data, len(shape))
        params = {"axis": axis, "keepdims": data.draw(st.booleans())}
        keep = 1
        if ddof:
            params["ddof"] = data.draw(st.sampled_from([0, 1, 0.5] if _count(shape, axis) > 1 else [0]))
            keep = 2 if params["ddof"] >= 1 else 1                   # count - ddof > 0 everywhere
        x = (values or uniform(-2, 2))(rng, shape)
        nans = _nans(rng, shape, axis, keep)
        start = data.draw(st.sampled_from([None, *initial]))
        if start == "between":
            start = float(away(rng, (), x[np.isfinite(nans)].ravel(), -2.5, 2.5))
        if start is not None:
            params["initial"] = start
        return [x], {"nans": nans, **params}
    return draw


def draw_nan_quantile(levels):
    """draw_quantile's draws, with NaN entries (with weights, each slice keeps one of positive weight)."""
    quantile = draw_quantile(levels)

    def draw(data, rng):
        (x,), params = quantile(data, rng)
        if params["axis"] == ():   # NumPy 2.4's nan-quantiles put q's axes last there, quantile first
            params["axis"] = None  # (gengrad: first, as quantile; test_ops_quantiles.py checks it)
        return [x], {**params, "nans": _nans(rng, x.shape, params["axis"], weights=params.get("weights"))}
    return draw


def draw_nan_running(values=None):
    """nancumsum, nancumprod: NaN entries anywhere (a running sum of only NaN is 0)."""
    def draw(data, rng):
        shape = data.draw(SHAPES)
        axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
        return [(values or uniform(-2, 2))(rng, shape)], {"axis": axis, "nans": _nans(rng, shape, keep=0)}
    return draw


# cov, corrcoef
def named_last(fn):
    """fn(first, **{name: array for the trailing arrays, `named` giving their names}, **kw)."""
    def call(*arrays, named=(), **kw):
        lead = len(arrays) - len(named)
        return fn(*arrays[:lead], **dict(zip(named, arrays[lead:])), **kw)
    return call


def draw_cov(correlation=False):
    """m (1-d, or 1 to 3 variables) and maybe y, of 2 to 5 observations, rowvar; for cov also
    bias, ddof (n - ddof > 0), integer fweights (a constant) and aweights (differentiated)."""
    def draw(data, rng):
        n = data.draw(st.integers(3 if correlation else 2, 5))
        rowvar = data.draw(st.booleans())
        arrays, named = [], []
        for which in ("m", "y"):
            if which == "y":
                if not data.draw(st.booleans()):
                    break
                named.append("y")
            k = data.draw(st.integers(0, 3))                   # 0: 1-d, one variable
            x = rng.uniform(-2, 2, (n,) if k == 0 else (k, n))
            arrays.append(x if rowvar else x.T)
        params = {"rowvar": rowvar}
        if not correlation:
            weights = data.draw(st.sampled_from(["none", "f", "a", "fa"]))
            if "f" in weights:
                params["fweights"] = rng.integers(1, 4, n)
            if "a" in weights:
                arrays.append(rng.uniform(0.5, 2.0, n))
                named.append("aweights")
            ddofs = [None, 0, 1] + ([d for d in (2, 3) if d < n] if weights == "none" else [])
            params["ddof"] = data.draw(st.sampled_from(ddofs))
            params["bias"] = data.draw(st.booleans())
        return arrays, {**params, "named": tuple(named)}
    return draw


# the Array API's names
def draw_cumulative(values=None):
    """An axis (None only for an input of at most one dimension), include_initial."""
    def draw(data, rng):
        shape = data.draw(SHAPES)
        if len(shape) > 1:
            axis = data.draw(st.integers(-len(shape), len(shape) - 1))
        else:
            axis = data.draw(st.none() | st.integers(-1, 0)) if shape else None
        x = (values or uniform(-2, 2))(rng, shape)
        return [x], {"axis": axis, "include_initial": data.draw(st.booleans())}
    return draw


def draw_vecdot(keepdims=True):
    """Vectors of one length along axis -depth of both operands, their other axes broadcasting."""
    def draw(data, rng):
        s0, s1 = data.draw(PAIRS).input_shapes
        n = data.draw(st.integers(1, 3))
        depth = data.draw(st.integers(1, min(len(s0), len(s1)) + 1))
        arrays = [rng.uniform(-2, 2, s[:len(s) + 1 - depth] + (n,) + s[len(s) + 1 - depth:])
                  for s in (s0, s1)]
        params = {} if depth == 1 and data.draw(st.booleans()) else {"axis": -depth}
        if keepdims:
            params["keepdims"] = data.draw(st.booleans())
        return arrays, params
    return draw


def draw_permute_dims(data, rng):
    shape = data.draw(SHAPES)
    axes = None
    if data.draw(st.booleans()):
        axes = tuple(int(a) - len(shape) if data.draw(st.booleans()) else int(a)
                     for a in rng.permutation(len(shape)))
    return [rng.uniform(-2, 2, shape)], {"axes": axes}


def draw_unstack(data, rng):
    shape = data.draw(NONSCALAR)
    return [rng.uniform(-2, 2, shape)], {"axis": data.draw(st.integers(-len(shape), len(shape) - 1))}


def draw_diagflat(data, rng):
    return [rng.uniform(-2, 2, data.draw(shapes(0, 2)))], {"k": data.draw(st.integers(-2, 2))}


def draw_unwrap(data, rng):
    """Steps along the axis GAP away from +-discont and from every odd multiple of period / 2
    (where the multiple of the period added jumps); discont below period / 2 acts as period / 2."""
    shape = data.draw(NONSCALAR)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    period = data.draw(st.sampled_from([2 * math.pi, 1.5, 4.0]))
    discont = data.draw(st.sampled_from([None, 0.8 * period, 0.2 * period]))
    kinks = [period * (k + 0.5) for k in range(-3, 3)] + ([discont, -discont] if discont else [])
    steps = away(rng, shape, kinks, -2 * period, 2 * period)
    params = {"axis": axis, "period": period}
    if discont is not None:
        params["discont"] = discont
    return [np.cumsum(steps, axis=axis)], params


def _positions(data, rng, n, kinds, appends=False):
    """delete's and insert's obj for an axis of length n: an int, a list, a slice or a mask
    (`appends`: n too, insert's position past the end)."""
    kind = data.draw(st.sampled_from(kinds))
    position = st.integers(-n, n if appends else n - 1)
    if kind == "int":
        return data.draw(position)
    if kind == "list":
        return data.draw(st.lists(position, min_size=1, max_size=3))
    if kind == "slice":
        return slice(data.draw(st.integers(-n, n)), data.draw(st.none() | st.integers(-n, n)),
                     data.draw(st.sampled_from([1, 2, -1])))
    return rng.random(n) < 0.5


def draw_delete(data, rng):
    shape = data.draw(NONSCALAR)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    n = math.prod(shape) if axis is None else shape[axis]
    return [rng.uniform(-2, 2, shape)], {"obj": _positions(data, rng, n, ["int", "list", "slice", "mask"]),
                                         "axis": axis}


def draw_insert(data, rng):
    """Positions (an int, up to n: appends; a list; a slice), values broadcast as NumPy does:
    for an int, (m,) + the other axes (moved into place); else the slots' shape (or 1 along axis)."""
    shape = data.draw(SHAPES)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    n = math.prod(shape) if axis is None else shape[axis]
    along = 0 if axis is None else axis % len(shape)
    others = () if axis is None else shape[:along] + shape[along + 1:]
    obj = _positions(data, rng, n, ["int", "list", "slice"], appends=True)
    if isinstance(obj, int):
        values = data.draw(st.sampled_from([(), others, (data.draw(st.integers(1, 2)),) + others]))
    else:
        count = len(obj) if isinstance(obj, list) else len(range(*obj.indices(n)))
        slots = (count,) if axis is None else others[:along] + (count,) + others[along:]
        values = data.draw(st.sampled_from([(), slots, slots[:along] + (1,) + slots[along + 1:]]))
    return [rng.uniform(-2, 2, shape), rng.uniform(-2, 2, values)], {"obj": obj, "axis": axis}


def draw_block(data, rng):
    """One list of blocks joined along their last axis, or rows of 2-d blocks (a 1-d block of
    a height-1 row is padded to (1, w), as NumPy does); `rows` is the blocks per row."""
    if data.draw(st.booleans()):
        lead = data.draw(shapes(0, 2))
        count = data.draw(st.integers(1, 3))
        blocks = [rng.uniform(-2, 2, lead + (data.draw(st.integers(1, 3)),)) for _ in range(count)]
        return blocks, {"rows": None}
    width, arrays, rows = data.draw(st.integers(2, 4)), [], []
    for _ in range(data.draw(st.integers(1, 3))):
        height = data.draw(st.integers(1, 2))
        cut = data.draw(st.integers(0, width - 1))             # 0: one block across the row
        widths = [width] if cut == 0 else [cut, width - cut]
        arrays += [rng.uniform(-2, 2, (w,) if height == 1 and data.draw(st.booleans()) else (height, w))
                   for w in widths]
        rows.append(len(widths))
    return arrays, {"rows": tuple(rows)}


def draw_ediff1d(data, rng):
    """ary of any shape, and maybe to_begin and to_end (any shapes: flattened), differentiated too."""
    arrays, named = [rng.uniform(-2, 2, data.draw(SHAPES))], []
    for name in ("to_begin", "to_end"):
        if data.draw(st.booleans()):
            arrays.append(rng.uniform(-2, 2, data.draw(shapes(0, 2))))
            named.append(name)
    return arrays, {"named": tuple(named)}


def draw_spaced(values=None, retstep=True):
    """start and stop that broadcast, num 0..5, endpoint, an axis of the result; retstep only
    where there is a step (a NaN step has no gradient to compare)."""
    def draw(data, rng):
        s0, s1 = data.draw(PAIRS).input_shapes
        num = data.draw(st.integers(0, 5))
        endpoint = data.draw(st.booleans())
        ndim = len(np.broadcast_shapes(s0, s1)) + 1
        params = {"num": num, "endpoint": endpoint, "axis": data.draw(st.integers(-ndim, ndim - 1))}
        if retstep and num - endpoint > 0:
            params["retstep"] = data.draw(st.booleans())
        values_of = values or uniform(-2, 2)
        return [values_of(rng, s0), values_of(rng, s1)], params
    return draw


def draw_logspace(data, rng):
    arrays, params = draw_spaced(retstep=False)(data, rng)
    return arrays, {**params, "base": data.draw(st.sampled_from([10.0, 2.0, 0.5]))}


def draw_geomspace(data, rng):
    """Ends of one sign (opposite signs give NaN, as in NumPy), magnitudes in [0.5, 2]."""
    arrays, params = draw_spaced(positive, retstep=False)(data, rng)
    sign = data.draw(st.sampled_from([-1.0, 1.0]))
    return [sign * a for a in arrays], params


def draw_unique(data, rng):
    """Entries all apart (a tie breaks under a finite difference), flattened or along an axis."""
    shape = data.draw(SHAPES)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    return [distinct(rng, shape)], {"axis": axis}


def blocked(block):
    """block(the arrays as one list, or as nested lists with `rows` blocks per row)."""
    def call(*arrays, rows):
        if rows is None:
            return block(list(arrays))
        starts = np.cumsum((0,) + rows)
        return block([list(arrays[a:b]) for a, b in zip(starts[:-1], starts[1:])])
    return call


# np.linalg's Array API functions
def draw_vector_norm(data, rng):
    """Nonzero entries whose magnitudes are all apart (no ties for ord +-inf)."""
    shape = data.draw(SHAPES)
    x = rng.choice([-1.0, 1.0], shape) * distinct(rng, shape, 0.5, 2.0)
    return [x], {"axis": _axis(data, len(shape)), "ord": data.draw(st.sampled_from(VECTOR_ORDS)),
                 "keepdims": data.draw(st.booleans())}


def draw_matrix_norm(data, rng):
    """Stacks of matrices: singular values apart for 2, -2 and 'nuc', the row or column sums
    that ord +-1, +-inf pick from apart."""
    ord = data.draw(st.sampled_from(MATRIX_ORDS))
    keepdims = data.draw(st.booleans())
    if ord in (2, -2, "nuc"):
        return draw_spectral(0.1, rectangular=True)(data, rng)[0], {"ord": ord, "keepdims": keepdims}
    shape = data.draw(BATCH) + (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    for _ in range(100):
        x = nonzero(rng, shape)
        if _norm_untied(x, ord, (-2, -1)):
            return [x], {"ord": ord, "keepdims": keepdims}
    raise AssertionError("could not draw a point without ties for the matrix norm")


def draw_cond(data, rng):
    """p None, 2, -2: any matrices, singular values apart; the norm orders: square matrices
    far from singular, the row or column sums of the matrix and its inverse apart."""
    p = data.draw(st.sampled_from([None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf]))
    if p in (None, 2, -2):
        return draw_spectral(0.1, rectangular=True)(data, rng)[0], {"p": p}
    for _ in range(100):
        (a,), _ = draw_square(data, rng)
        if all(_norm_untied(m, p, (-2, -1)) for m in (a, np.linalg.inv(a))):
            return [a], {"p": p}
    raise AssertionError("could not draw a matrix without ties for cond")


def draw_offset(data, rng):
    """linalg.trace and linalg.diagonal: a stack of matrices and an offset."""
    return [rng.uniform(-2, 2, data.draw(shapes(2, 3)))], {"offset": data.draw(st.integers(-2, 2))}


def draw_linalg_cross(data, rng):
    """3-vectors along axis -depth of both operands, their other axes broadcasting."""
    s0, s1 = data.draw(broadcast_shapes(max_dims=2)).input_shapes
    depth = data.draw(st.integers(1, min(len(s0), len(s1)) + 1))
    arrays = [rng.uniform(-2, 2, s[:len(s) + 1 - depth] + (3,) + s[len(s) + 1 - depth:]) for s in (s0, s1)]
    return arrays, {"axis": -depth}


def draw_multi_dot(data, rng):
    """2 to 4 matrices that chain, the first maybe a 1-d row and the last a 1-d column."""
    count = data.draw(st.integers(2, 4))
    dims = [data.draw(st.integers(1, 3)) for _ in range(count + 1)]
    sides = [(dims[i], dims[i + 1]) for i in range(count)]
    if data.draw(st.booleans()):
        sides[0] = sides[0][1:]
    if data.draw(st.booleans()):
        sides[-1] = sides[-1][:1]
    return [rng.uniform(-2, 2, s) for s in sides], {}


SMIRNOV_KINKS = [k / 7 for k in range(1, 7)]
"""The kinks of smirnov(7, d); SMIRNOVI_KINKS, of its inverse smirnovi(7, p)."""
SMIRNOVI_KINKS = [float(R.smirnov(7)(np.array(d))) for d in SMIRNOV_KINKS]


def new(name, draw, call=None, ref=None, label=""):
    """A Prop of a NumPy-named op, V.<name> against np.<name> (V.linalg / np.linalg for
    "linalg.<name>") unless given, run NEW_EXAMPLES times."""
    short = name.removeprefix("linalg.")
    ours, numpys = (V.linalg, np.linalg) if short != name else (V, np)
    return Prop(name, draw, call or getattr(ours, short), ref or getattr(numpys, short), label, NEW_EXAMPLES)


def _entrywise(props):
    """Props of elementwise functions, so marked (`Prop.entrywise`)."""
    return [replace(p, entrywise=True) for p in props]


def _fewer(props):
    """Props run SPECIAL_EXAMPLES times."""
    return [replace(p, examples=SPECIAL_EXAMPLES) for p in props]


def joined(name, ref_name=None):
    """A join of a list of arrays: V.<name>(xs) against np.<name>(xs)."""
    ref = getattr(np, ref_name or name)
    return lambda *xs, **kw: getattr(V, name)(list(xs), **kw), lambda *xs, **kw: ref(list(xs), **kw)


# ----- draws for variable.ops.polynomials (this family's drawers only, above its END line) -----
def draw_poly_pair(data, rng):
    """Two coefficient vectors of lengths 1 to 4 (leading entries away from 0)."""
    return [nonzero(rng, (data.draw(st.integers(1, 4)),)) for _ in range(2)], {}


def draw_polyder(data, rng):
    return [rng.uniform(-2, 2, data.draw(st.integers(0, 5)))], {"m": data.draw(st.integers(0, 3))}


def draw_polyint(data, rng):
    """p, and the constants k as a second array (one, or m of them)."""
    m = data.draw(st.integers(1, 3))
    p = rng.uniform(-2, 2, data.draw(st.integers(0, 4)))
    return [p, rng.uniform(-2, 2, data.draw(st.sampled_from([1, m])))], {"m": m}


def draw_polydiv(data, rng):
    """u of 1 to 5 coefficients, v of 1 to 3 with v[0] away from 0, the remainder's entries too."""
    m, n = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 3))
    while True:
        u, v = rng.uniform(-2, 2, m), nonzero(rng, (n,))
        r = np.polydiv(u, v)[1]
        if n == 1 or (len(r) == max(min(n - 1, m), 1) and np.all(np.abs(r) > GAP)):
            return [u, v], {}


def draw_polyfit(data, rng):
    """Distinct points, values (1-D or 2-D) and weights; deg below the number of points."""
    n = data.draw(st.integers(1, 5))
    x = np.cumsum(rng.uniform(0.3, 1.0, n)) - 1.5
    y = rng.uniform(-2, 2, (n,) + data.draw(st.sampled_from([(), (2,)])))
    return [x, y, rng.uniform(0.5, 2, n)], {"deg": data.draw(st.integers(0, n - 1))}


def draw_vander(data, rng):
    params = {"N": data.draw(st.sampled_from([None, 0, 1, 3])), "increasing": data.draw(st.booleans())}
    return [rng.uniform(-2, 2, data.draw(st.integers(0, 4)))], params


def draw_poly(data, rng):
    return [rng.uniform(-2, 2, data.draw(st.integers(0, 4)))], {}


def draw_roots(data, rng):
    """Coefficients of a polynomial with 1 to 4 real roots, 0.5 to 1 apart, and a leading
    coefficient away from 0 (the roots are compared sorted: LAPACK's order of the companion
    matrix's eigenvalues may change under the differences' steps)."""
    zeros = rng.permutation(np.cumsum(rng.uniform(0.5, 1.0, data.draw(st.integers(1, 4)))) - 1.5)
    return [np.poly(zeros) * rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2.0)], {}


def draw_matvec(vector_first):
    """A stack of matrices and a stack of vectors whose batch axes broadcast."""
    def draw(data, rng):
        b0, b1 = data.draw(broadcast_shapes(num_shapes=2, max_dims=2)).input_shapes
        m, n = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
        arrays = [rng.uniform(-2, 2, b0 + (m, n)), rng.uniform(-2, 2, b1 + (m if vector_first else n,))]
        return (arrays[::-1] if vector_first else arrays), {}
    return draw


def draw_tensorsolve(data, rng):
    """b of a shape of 1 to 6 entries, a = the well-conditioned (size, size) matrix reshaped."""
    shape = data.draw(shapes(1, 2, 1, 3))
    size = int(np.prod(shape))
    a = rng.uniform(-1, 1, (size, size)) + 3 * np.eye(size)
    return [a.reshape(shape + shape), rng.uniform(-2, 2, shape)], {}


def draw_tensorinv(data, rng):
    shape = data.draw(shapes(1, 2, 1, 3))
    size = int(np.prod(shape))
    a = rng.uniform(-1, 1, (size, size)) + 3 * np.eye(size)
    return [a.reshape(shape + shape)], {"ind": len(shape)}


# END draws polynomials


# ----- draws for variable.ops.division (this family's drawers only, above its END line) -----
def off_integers(rng, s):
    """Values in [-3, 3] at least GAP from every whole number (modf's jumps)."""
    return away(rng, s, kinks=np.arange(-3.0, 4.0), low=-3.0, high=3.0)


def off_powers_of_two(rng, s):
    """+-2^t for t in [-3, 2] at least GAP from a whole number (frexp's and spacing's jumps)."""
    return rng.choice([-1.0, 1.0], s) * 2.0 ** away(rng, s, kinks=np.arange(-3.0, 3.0), low=-3.0, high=2.0)


def draw_ldexp(data, rng):
    """Mantissas of any sign and integer exponents in -3..3, broadcast together."""
    s0, s1 = data.draw(PAIRS).input_shapes
    return [rng.uniform(-2, 2, s0), rng.integers(-3, 4, s1)], {}


# END draws division


# ----- draws for variable.ops.sets (this family's drawers only, above its END line) -----
def draw_set_pair(assume_unique=True):
    """Two operands whose entries are all apart; `shared` k: the op runs on (a and b joined,
    a's first k entries), so values in both inputs move together under a difference step."""
    def draw(data, rng):
        s0, s1 = data.draw(SHAPES), data.draw(SHAPES)
        both = distinct(rng, (math.prod(s0) + math.prod(s1),))
        params = {"shared": data.draw(st.none() | st.integers(0, math.prod(s0)))}
        if assume_unique:
            params["assume_unique"] = data.draw(st.booleans())
        return [both[:math.prod(s0)].reshape(s0), both[math.prod(s0):].reshape(s1)], params
    return draw


def set_call(op, ravel, concatenate):
    """op(a, b), or op(a and b joined, a's first `shared` entries)."""
    def call(a, b, shared=None, **kw):
        if shared is None:
            return op(a, b, **kw)
        flat = ravel(a)
        return op(concatenate([flat, ravel(b)]), flat[:shared], **kw)
    return call


def draw_trim_zeros(data, rng):
    """Nonzero entries padded with zeros (constants: pad inside the call), a trim and axes."""
    shape = data.draw(shapes(1, 3))
    pad = tuple((data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))) for _ in shape)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    trim = data.draw(st.sampled_from(["f", "b", "fb"]))
    return [away(rng, shape, kinks=(0.0,))], {"pad": pad, "trim": trim, "axis": axis}


def draw_compress(data, rng):
    """A condition of the axis' length, one shorter, or one longer with a False at the end."""
    shape = data.draw(shapes(1, 3))
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    n = math.prod(shape) if axis is None else shape[axis]
    condition = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    condition = data.draw(st.sampled_from([condition, condition[:-1], condition + [False]]))
    return [rng.uniform(-2, 2, shape)], {"condition": condition, "axis": axis}


def draw_unique_flat(data, rng):
    """Entries all apart, any shape (the Array API's unique functions flatten)."""
    return [distinct(rng, data.draw(SHAPES))], {}


def draw_extract(data, rng):
    shape = data.draw(SHAPES)
    return [rng.uniform(-2, 2, shape)], {"condition": rng.random(shape) < 0.5}


def draw_choose(data, rng):
    """2 to 3 choices broadcasting with the index, a mode; indices outside [0, n) for wrap and clip."""
    count = data.draw(st.integers(2, 3))
    pair = data.draw(broadcast_shapes(num_shapes=count))
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    low, high = (0, count) if mode == "raise" else (-count - 1, count + 2)
    index = rng.integers(low, high, data.draw(SHAPES))
    try:
        np.broadcast_shapes(index.shape, pair.result_shape)
    except ValueError:
        index = rng.integers(low, high, pair.result_shape)
    return [rng.uniform(-2, 2, s) for s in pair.input_shapes], {"a": index, "mode": mode}


def draw_resize(data, rng):
    return [rng.uniform(-2, 2, data.draw(SHAPES))], {"new_shape": data.draw(shapes(0, 3, 0, 4))}


def draw_sliding_window_view(data, rng):
    """Windows along one or two axes (repeats allowed), each fitting what is left of its axis."""
    shape = data.draw(shapes(1, 3, 1, 4))
    axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=2))
    left, window = list(shape), []
    for ax in axes:
        w = data.draw(st.integers(0, left[ax]))
        left[ax] -= max(w - 1, 0) if w else 0
        window.append(w)
    if 0 in window:                                       # (a 0 window leaves no window to cut)
        window = [max(w, 1) for w in window]
        left = list(shape)
        for ax, w in zip(axes, window):
            if w > left[ax]:
                return [rng.uniform(-2, 2, shape)], {"window_shape": 1, "axis": 0}
            left[ax] -= w - 1
    return [rng.uniform(-2, 2, shape)], {"window_shape": tuple(window), "axis": tuple(axes)}
# END draws sets


# ----- draws for variable.ops.histograms (this family's drawers only, above its END line) -----
HIST_BINS = [1, 2, 3, 4, "sturges", "sqrt", "rice"]   # estimators whose bin count depends on the size only


def off_edges(rng, n, bins, span=None):
    """n samples in [-2, 2] GAP away from the edges `bins` gives them (from their own min and
    max, which are edges themselves, or from the range `span`, which holds the first of them);
    else each at a bin's centre."""
    for _ in range(50):
        x = rng.uniform(-2, 2, n)
        if span is not None and n:
            x[0] = rng.uniform(*span)      # one sample inside the range: a density to divide by
        if span is None and n > 1 and np.ptp(x) < 0.5:
            continue                       # (edges from the data: a span too narrow to difference)
        edges = np.histogram_bin_edges(x, bins, span)
        inner = np.sort(x)[1:-1] if span is None else x
        if np.all(np.abs(inner[:, None] - edges[None, :]) > GAP):
            return x
    count = len(np.histogram_bin_edges(np.arange(float(n)), bins)) - 1
    edges = np.linspace(-2, 2, count + 1) if span is None else np.histogram_bin_edges(x, bins, span)
    x = rng.choice((edges[:-1] + edges[1:]) / 2, n)
    return np.concatenate([[-2.0, 2.0], x[2:]])[:n] if span is None and n > 1 else x


def draw_histogram(data, rng):
    """Samples off the edges, bins, density, and weights (always with a range: the counts and
    a given range's edges carry no gradient)."""
    shape = data.draw(SHAPES)
    bins = data.draw(st.sampled_from(HIST_BINS))
    if math.prod(shape) == 1 and bins in (2, 4):          # one sample sits at its span's middle,
        bins = 3                                          # an edge for an even number of bins
    ranged = data.draw(st.booleans()) and not isinstance(bins, str)
    rng_range = (-1.5, 1.2) if ranged else None
    x = off_edges(rng, math.prod(shape), bins, rng_range).reshape(shape)
    weighted = ranged or (data.draw(st.booleans()) and not isinstance(bins, str))
    arrays = [x, rng.uniform(0.5, 2.0, shape)] if weighted else [x]
    return arrays, {"bins": bins, "range": rng_range, "density": data.draw(st.booleans())}


def float_results(histogram):
    """histogram's outputs that are float arrays (its integer counts are not differentiable)."""
    def call(a, *w, **kw):
        hist, edges = histogram(a, weights=w[0] if w else None, **kw)
        counted = hist.data if isinstance(hist, V.Variable) else hist
        return (hist, edges) if np.asarray(counted).dtype.kind == "f" else edges
    return call


def draw_histogram_columns(data, rng):
    """D columns of n >= 2 samples, each off its own edges; bins, density, weights."""
    n = data.draw(st.integers(2, 6))
    d = data.draw(st.integers(1, 3))
    bins = data.draw(st.sampled_from([1, 2, 3]))
    columns = [off_edges(rng, n, bins) for _ in range(d)]
    weights = [rng.uniform(0.5, 2.0, n)] if data.draw(st.booleans()) else []
    return [np.stack(columns, axis=1)] + weights, {"bins": bins, "density": data.draw(st.booleans())}


def dd_call(histogramdd):
    def call(s, *w, **kw):
        hist, edges = histogramdd(s, weights=w[0] if w else None, **kw)
        return (hist, *edges)
    return call


def two_d_call(histogram2d):
    def call(s, *w, **kw):
        return histogram2d(s[:, 0], s[:, -1], weights=w[0] if w else None, **kw)
    return call


PIECES = [[np.sin, lambda v: v * v], [lambda v: 2.0 * v, 0.5, np.exp], [np.tanh, np.cos, 1.5]]


def draw_piecewise(data, rng):
    """x off the conditions' thresholds c0 < c1, and a funclist of callables and scalars."""
    c = np.sort(rng.uniform(-1.0, 1.0, 2))
    shape = data.draw(SHAPES)
    return [away(rng, shape, kinks=tuple(c))], {"c": tuple(c), "which": data.draw(st.integers(0, 2))}


def piecewise_call(piecewise):
    return lambda x, c, which: piecewise(x, [x < c[0], x > c[1]], PIECES[which])


ALONG = [lambda v: np.exp(v) * np.sum(v * v), lambda v: np.sum(np.sin(v) * v), lambda v: np.outer(v, v),
         lambda v: np.cumsum(np.tanh(v))]
OVER = [np.sum, lambda v, a: np.cumsum(v * v, axis=a), lambda v, a: np.mean(np.tanh(v), axis=a)]
"""(bounded where applied again: exp over three axes, exp(exp(exp(v))), outgrows differences)"""


def draw_along(data, rng):
    shape = data.draw(shapes(1, 3))
    return [rng.uniform(-2, 2, shape)], {"axis": data.draw(st.integers(-len(shape), len(shape) - 1)),
                                         "which": data.draw(st.integers(0, len(ALONG) - 1))}


def draw_over(data, rng):
    shape = data.draw(shapes(1, 3))
    # distinct axes (some counted from the end): a function applied twice over one axis,
    # cumsum(v * v) say, squares its values each time, past what differences can check
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    axes = [a - len(shape) if data.draw(st.booleans()) else a for a in axes]
    return [rng.uniform(-2, 2, shape)], {"axes": axes, "which": data.draw(st.integers(0, len(OVER) - 1))}
# END draws histograms


# ----- the table ---------------------------------------------------------------------------------
PROPS = [
    # variable: elementwise (Prop.entrywise: the rows of one floating-point input)
    *_entrywise([
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
    ]),
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
    Prop("amax", reduction(distinct), V.amax, np.amax), Prop("amin", reduction(distinct), V.amin, np.amin),
    Prop("logsumexp", reduction(), V.logsumexp, R.logsumexp),
    Prop("matmul", draw_matmul, V.matmul, np.matmul),
    Prop("transpose_matmul", draw_transpose_matmul, V.transpose_matmul, np_transpose_matmul),
    # function: activations (elementwise up to softmax)
    *_entrywise([
    Prop("sigmoid", unary(lambda rng, s: rng.uniform(-6, 6, s)), F.sigmoid, R.sigmoid),
    Prop("relu", unary(_kinked(0.0)), F.relu, R.relu),
    Prop("relu6", unary(_kinked(0.0, 6.0, low=-2, high=8)), F.relu6, R.relu6),
    Prop("leaky_relu", with_param(unary(_kinked(0.0)), alpha=[0.01, 0.2, -0.5]), F.leaky_relu, R.leaky_relu),
    Prop("elu", with_param(unary(_kinked(0.0)), alpha=[1.0, 0.5, 2.0]), F.elu, R.elu),
    Prop("selu", unary(_kinked(0.0)), F.selu, R.selu),
    Prop("celu", with_param(unary(_kinked(0.0)), alpha=[1.0, 0.5, 2.0]), F.celu, R.celu),
    Prop("mish", unary(lambda rng, s: rng.uniform(-4, 4, s)), F.mish, R.mish),
    Prop("softsign", unary(_kinked(0.0, low=-4, high=4)), F.softsign, R.softsign),
    Prop("log_sigmoid", unary(lambda rng, s: rng.uniform(-6, 6, s)), F.log_sigmoid, R.log_sigmoid),
    Prop("hard_tanh", with_param(unary(_kinked(-1.0, 1.0, 0.0, 2.5, low=-2, high=3)),
                                 min_val=[-1.0, 0.0], max_val=[1.0, 2.5]), F.hard_tanh, R.hard_tanh),
    Prop("gelu", with_param(unary(lambda rng, s: rng.uniform(-4, 4, s)), approximate=["tanh", "none"]),
         F.gelu, R.gelu),
    Prop("swish", unary(lambda rng, s: rng.uniform(-4, 4, s)), F.swish, R.swish),
    Prop("silu", unary(lambda rng, s: rng.uniform(-4, 4, s)), F.silu, R.swish),
    Prop("hard_sigmoid", unary(_kinked(-3.0, 3.0, low=-5, high=5)), F.hard_sigmoid, R.hard_sigmoid),
    Prop("hard_swish", unary(_kinked(-3.0, 3.0, low=-5, high=5)), F.hard_swish, R.hard_swish),
    Prop("softplus", unary(lambda rng, s: rng.uniform(-6, 6, s)), F.softplus, R.softplus),
    ]),
    Prop("prelu", prelu_draw, F.prelu, R.prelu),
    Prop("glu", glu_draw, F.glu, R.glu),
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
    Prop("ctc_loss", ctc_draw, F.ctc_loss, R.ctc_loss),
    Prop("max_unpool2d", unpool_draw, F.max_unpool2d, R.max_unpool2d),
    Prop("softmax_cross_entropy", sce_labels_draw, F.softmax_cross_entropy, R.softmax_cross_entropy,
         label="labels"),
    Prop("softmax_cross_entropy", sce_probabilities_draw, F.softmax_cross_entropy, R.softmax_cross_entropy,
         label="probabilities"),
    Prop("softmax_cross_entropy", sce_options_draw, F.softmax_cross_entropy, R.cross_entropy_of_labels,
         label="labels, PyTorch's keywords"),
    Prop("nll_loss", nll_draw, F.nll_loss, R.nll_loss),
    Prop("hinge_loss", hinge_draw, F.hinge_loss, R.hinge_loss),
    Prop("smooth_l1_loss", smooth_l1_draw, F.smooth_l1_loss, R.smooth_l1_loss),
    Prop("soft_margin_loss", loss_pair(lambda r, s: r.uniform(-3, 3, s), lambda r, s: r.choice([-1, 1], s)),
         F.soft_margin_loss, R.soft_margin_loss),
    Prop("margin_ranking_loss", ranking_draw, F.margin_ranking_loss, R.margin_ranking_loss),
    Prop("hinge_embedding_loss", signed_draw, F.hinge_embedding_loss, R.hinge_embedding_loss),
    Prop("cosine_embedding_loss", cosine_embedding_draw, F.cosine_embedding_loss, R.cosine_embedding_loss),
    Prop("triplet_margin_loss", triplet_draw, F.triplet_margin_loss, R.triplet_margin_loss),
    Prop("gaussian_nll_loss", gaussian_nll_draw, F.gaussian_nll_loss, R.gaussian_nll_loss),
    Prop("multi_margin_loss", multi_margin_draw, F.multi_margin_loss, R.multi_margin_loss),
    Prop("cosine_similarity", cosine_draw, F.cosine_similarity, R.cosine_similarity),
    # function: layers as functions
    Prop("linear", linear_draw, F.linear, R.linear),
    Prop("layer_norm", layer_norm_draw, F.layer_norm, R.layer_norm),
    Prop("rms_norm", rms_norm_draw, F.rms_norm, R.rms_norm),
    Prop("group_norm", group_norm_draw, lambda x, g, b, num_groups: F.group_norm(x, num_groups, g, b),
         lambda x, g, b, num_groups: R.group_norm(x, num_groups, g, b)),
    Prop("batch_norm", batch_norm_draw, F.batch_norm, R.batch_norm),
    Prop("local_response_norm", local_response_norm_draw, F.local_response_norm, R.local_response_norm),
    Prop("scaled_dot_product_attention", attention_draw, F.scaled_dot_product_attention,
         R.scaled_dot_product_attention),
    Prop("embed_id", embed_id_draw, F.embed_id, R.embed_id),
    Prop("interpolate", interpolate_draw, lambda x, size, mode: F.interpolate(x, size=size, mode=mode),
         R.interpolate),
    Prop("grid_sample", grid_draw, F.grid_sample, R.grid_sample),
    Prop("affine_grid", affine_draw, F.affine_grid, R.affine_grid),
    Prop("adaptive_avg_pool2d", resample_draw, lambda x, size: F.adaptive_avg_pool2d(x, size),
         lambda x, size: R.adaptive_avg_pool2d(x, size)),
    Prop("adaptive_max_pool2d", resample_draw, lambda x, size: F.adaptive_max_pool2d(x, size),
         lambda x, size: R.adaptive_max_pool2d(x, size)),
    *[Prop(name, _adaptive_draw(int(name[-2])), lambda x, size, name=name: getattr(F, name)(x, size),
           lambda x, size, name=name: getattr(R, name)(x, size))
      for name in ("adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_avg_pool3d",
                   "adaptive_max_pool3d")],
    Prop("conv1d", conv1d_draw, lambda x, W, b=None, **kw: F.conv1d(x, W, b, **kw), R.conv1d),
    Prop("conv2d", conv2d_draw, lambda x, W, b=None, **kw: F.conv2d(x, W, b, **kw), R.conv2d),
    Prop("conv3d", conv3d_draw, lambda x, W, b=None, **kw: F.conv3d(x, W, b, **kw), R.conv3d),
    Prop("deconv2d", deconv2d_draw, lambda x, W, b=None, **kw: F.deconv2d(x, W, b, **kw), R.deconv2d),
    Prop("deconv1d", deconv1d_draw, lambda x, W, b=None, **kw: F.deconv1d(x, W, b, **kw), R.deconv1d),
    Prop("deconv3d", deconv3d_draw, lambda x, W, b=None, **kw: F.deconv3d(x, W, b, **kw), R.deconv3d),
    Prop("pooling", pooling_draw, F.pooling, R.pooling),
    Prop("pooling", dilated_pooling_draw, F.pooling, R.pooling_dilated, label="dilated"),
    Prop("average_pooling", pooling_draw, F.average_pooling, R.average_pooling),
    Prop("im2col", im2col_draw, F.im2col, R.im2col),
    Prop("col2im", col2im_draw, F.col2im, R.col2im),
    # variable.ops.exponential (NumPy names from here on: NEW_EXAMPLES examples each), inverse_trig and
    # special: elementwise, every one
    *_entrywise([
    new("log1p", unary(uniform(-0.5, 2.0))), new("expm1", unary()), new("log2", unary(positive)),
    new("log10", unary(positive)), new("exp2", unary()), new("logaddexp", binary()),
    new("logaddexp2", binary()), new("reciprocal", unary(nonzero)),
    # variable.ops.inverse_trig
    new("arcsin", unary(uniform(-0.9, 0.9))), new("arccos", unary(uniform(-0.9, 0.9))),
    new("arctan", unary()), new("arctan2", binary(nonzero, nonzero)), new("arcsinh", unary()),
    new("arccosh", unary(uniform(1.2, 2.5))), new("arctanh", unary(uniform(-0.9, 0.9))),
    new("hypot", binary(nonzero)), new("sinc", unary(uniform(-4, 4))), new("deg2rad", unary()),
    new("rad2deg", unary()), new("radians", unary()), new("degrees", unary()),
    # NumPy's other names for the same ops (NumPy 2's asin for arcsin, its ufuncs' long names)
    new("asin", unary(uniform(-0.9, 0.9))), new("acos", unary(uniform(-0.9, 0.9))), new("atan", unary()),
    new("atan2", binary(nonzero, nonzero)), new("asinh", unary()), new("acosh", unary(uniform(1.2, 2.5))),
    new("atanh", unary(uniform(-0.9, 0.9))), new("absolute", unary(_kinked(0.0))), new("negative", unary()),
    new("multiply", binary()), new("subtract", binary()), new("divide", binary(None, nonzero)),
    new("true_divide", binary(None, nonzero)), new("power", binary(positive)),
    ]),
    # variable.ops.special (NumPy has no erf: Python's math is the reference): SPECIAL_EXAMPLES each
    *_entrywise(_fewer([
    new("erf", unary(uniform(-4, 4)), ref=np.vectorize(math.erf, otypes=[float])),
    new("erfc", unary(uniform(-4, 4)), ref=np.vectorize(math.erfc, otypes=[float])),
    new("xlogy", binary(uniform(-2, 2), uniform(0.2, 3)), ref=R.xlogy),
    new("xlog1py", binary(uniform(-2, 2), uniform(-0.8, 3)), ref=R.xlog1py),
    new("logit", unary(uniform(0.05, 0.95)), ref=R.logit),
    new("erfinv", unary(uniform(-0.95, 0.95)), ref=R.erfinv),
    new("erfcinv", unary(uniform(0.05, 1.95)), ref=R.erfcinv),
    new("ndtri", unary(uniform(0.02, 0.98)), ref=R.ndtri),
    new("log_ndtr", unary(uniform(-6, 6)), ref=R.log_ndtr),
    new("ndtr", unary(uniform(-6, 6)), ref=R.ndtr),
    new("erfcx", unary(uniform(-3, 6)), ref=R.erfcx),
    new("i1", unary(uniform(-5, 5)), ref=R.i1),
    new("j0", unary(uniform(-12, 12)), ref=R.bessel_j(0)),
    new("j1", unary(uniform(-12, 12)), ref=R.bessel_j(1)),
    new("jn", unary(uniform(-12, 12)), call=lambda x: V.jn(4, x), ref=R.bessel_j(4), label="n=4"),
    new("y0", unary(uniform(0.1, 12)), ref=R.bessel_y(0)),
    new("y1", unary(uniform(0.1, 12)), ref=R.bessel_y(1)),
    new("yn", unary(uniform(0.5, 12)), call=lambda x: V.yn(3, x), ref=R.bessel_y(3), label="n=3"),
    new("k0", unary(uniform(0.05, 12)), ref=R.bessel_k(0)),
    new("k1", unary(uniform(0.05, 12)), ref=R.bessel_k(1)),
    new("kn", unary(uniform(0.3, 12)), call=lambda x: V.kn(4, x), ref=R.bessel_k(4), label="n=4"),
    new("k0e", unary(uniform(0.05, 12)), ref=R.bessel_k(0, True)),
    new("k1e", unary(uniform(0.05, 12)), ref=R.bessel_k(1, True)),
    new("kv", unary(uniform(0.05, 12)), call=lambda x: V.kv(2.3, x), ref=R.bessel_kv(2.3), label="v=2.3"),
    new("jv", unary(uniform(0.05, 12)), call=lambda x: V.jv(2.3, x), ref=R.bessel_jy("j", 2.3),
        label="v=2.3"),
    new("yv", unary(uniform(0.3, 12)), call=lambda x: V.yv(-0.7, x), ref=R.bessel_jy("y", -0.7),
        label="v=-0.7"),
    new("jve", unary(uniform(0.05, 12)), call=lambda x: V.jve(1.5, x), ref=R.bessel_jy("j", 1.5),
        label="v=1.5"),
    new("hyp0f1", unary(uniform(-20, 20)), call=lambda z: V.hyp0f1(-1.5, z), ref=R.hyp0f1(-1.5),
        label="b=-1.5"),
    *[new(op, unary(uniform(-6, 6) if op.startswith("be") else uniform(0.2, 6)), ref=R.kelvin(op))
      for op in ("ber", "bei", "ker", "kei", "berp", "beip", "kerp", "keip")],
    *[new(op, unary(uniform(0.3, 10)), call=lambda x, op=op: getattr(V, op)(2, x), ref=R.spherical(op[-2], 2),
          label="n=2") for op in ("spherical_jn", "spherical_yn", "spherical_in", "spherical_kn")],
    new("yve", unary(uniform(0.3, 12)), call=lambda x: V.yve(0.25, x), ref=R.bessel_jy("y", 0.25),
        label="v=0.25"),
    new("kve", unary(uniform(0.05, 12)), call=lambda x: V.kve(-0.4, x), ref=R.bessel_kv(-0.4, True),
        label="v=-0.4"),
    new("iv", unary(uniform(0.05, 12)), call=lambda x: V.iv(2.3, x), ref=R.bessel_iv(2.3), label="v=2.3"),
    new("ive", unary(uniform(0.05, 12)), call=lambda x: V.ive(-0.4, x), ref=R.bessel_iv(-0.4, True),
        label="v=-0.4"),
    new("iv", unary(uniform(25, 40)), call=lambda x: V.iv(31.5, x), ref=R.bessel_iv(31.5, top=40.0),
        label="v=31.5 (Debye's expansion)"),
    new("i0e", unary(uniform(0.2, 30)), ref=R.i0e),
    new("i1e", unary(uniform(-30, -0.2)), ref=R.i1e),
    new("gamma", unary(uniform(0.2, 6)), ref=R.gamma),
    new("rgamma", unary(uniform(-4, 6)), ref=R.rgamma),
    new("gammasgn", unary(uniform(-4, 6)), ref=R.gammasgn),
    new("beta", binary(uniform(0.2, 6), uniform(0.2, 6)), ref=R.beta),
    new("beta", binary(uniform(-2.9, -2.1), uniform(0.2, 0.8)), ref=R.beta, label="below 0"),
    new("ellipk", unary(uniform(-5, 0.95)), ref=R.ellipk),
    new("lpmv", unary(uniform(-0.98, 0.98)), call=lambda x: V.lpmv(3, 8, x), ref=R.lpmv(3, 8),
        label="m=3, v=8"),
    new("pbdv", unary(uniform(-6, 6)), call=lambda x: V.pbdv(4, x), ref=R.pbdv(4), label="v=4"),
    new("ellipe", unary(uniform(-5, 0.95)), ref=R.ellipe),
    new("ellipkm1", unary(uniform(0.05, 3)), ref=R.ellipkm1),
    *[new(op, binary(uniform(0.05, 4), uniform(0.05, 4)),
          call=lambda x, y, op=op: getattr(V, op)(x, y, 1.5),
          ref=lambda x, y, op=op: getattr(R, op)(x, y, 1.5), label="z=1.5")
      for op in ("elliprf", "elliprd", "elliprg")],
    new("elliprj", binary(uniform(0.05, 4), lambda rng, s: rng.choice([-1.0, 1.0], s)
                          * rng.uniform(0.3, 4, s)), call=lambda x, p: V.elliprj(x, 1.5, 2.5, p),
        ref=lambda x, p: R.elliprj(x, 1.5, 2.5, p), label="y=1.5, z=2.5"),
    new("elliprc", binary(uniform(0.05, 4), lambda rng, s: rng.choice([-1.0, 1.0], s)
                          * rng.uniform(0.3, 4, s)), ref=R.elliprc),
    new("ellipkinc", binary(uniform(-8, 8), uniform(-5, 0.95)), ref=R.ellipkinc),
    new("ellipeinc", binary(uniform(-8, 8), uniform(-5, 0.95)), ref=R.ellipeinc),
    new("ellipj", binary(uniform(-6, 6), uniform(0.02, 0.95)), ref=R.ellipj),
    new("exp1", unary(uniform(0.1, 8)), ref=R.exp1),
    new("expi", unary(uniform(-8, -0.2)), ref=R.expi),
    new("expi", unary(uniform(0.5, 8)), ref=R.expi, label="above 0"),
    new("pseudo_huber", binary(uniform(0.3, 3), uniform(-4, 4)), ref=R.pseudo_huber),
    new("huber", binary(uniform(2, 3), uniform(-1.5, 1.5)), ref=R.huber, label="quadratic"),
    new("huber", binary(uniform(0.3, 1), uniform(1.5, 4)), ref=R.huber, label="linear"),
    new("erfi", unary(uniform(-3, 3)), ref=R.erfi),
    new("dawsn", unary(uniform(-10, 10)), ref=R.dawsn),
    # (Ci and Chi grow as log|x| at 0: |x| >= 0.1 keeps the difference quotient's error below rtol)
    new("sici", unary(either_sign(0.1, 8)), ref=R.sici),
    new("shichi", unary(either_sign(0.1, 5)), ref=R.shichi),
    new("fresnel", unary(uniform(-4, 4)), ref=R.fresnel),
    new("airy", unary(uniform(-5, 4)), ref=R.airy),
    new("airye", unary(uniform(0.05, 4.5)), ref=R.airye),
    new("wrightomega", unary(uniform(-8, 8)), ref=R.wrightomega),
    new("lambertw", unary(uniform(-0.36, 30)), ref=R.lambertw),
    new("lambertw", unary(uniform(-0.35, -0.02)), call=lambda x: V.lambertw(x, -1),
        ref=lambda x: R.lambertw(x, -1), label="k = -1"),
    new("owens_t", binary(uniform(-3, 3), uniform(-3, 3)), ref=R.owens_t),
    new("kolmogorov", unary(uniform(0.1, 3)), ref=R.kolmogorov),
    new("kolmogi", unary(uniform(0.02, 0.98)), ref=R.kolmogi),
    # (smirnov(n, d) has a kink at each d = k/n, where its sum gains a term; smirnovi at their images)
    new("smirnov", unary(lambda rng, s: away(rng, s, SMIRNOV_KINKS, 0.02, 0.98)),
        call=lambda d: V.smirnov(7, d), ref=R.smirnov(7), label="n=7"),
    new("smirnovi", unary(lambda rng, s: away(rng, s, SMIRNOVI_KINKS, 0.02, 0.98)),
        call=lambda p: V.smirnovi(7, p), ref=R.smirnovi(7), label="n=7"),
    new("zeta", unary(uniform(-6, 0.8)), ref=R.zeta),
    new("zeta", unary(uniform(1.3, 6)), ref=R.zeta, label="above the pole"),
    new("zeta", binary(uniform(1.2, 6), uniform(0.2, 6)), ref=R.zeta, label="Hurwitz"),
    new("exprel", unary(uniform(-6, 6)), ref=R.exprel),
    new("cosm1", unary(uniform(-4, 4)), ref=R.cosm1),
    new("exp10", unary(uniform(-3, 3)), ref=R.exp10),
    new("powm1", binary(uniform(0.2, 3), uniform(-2, 2)), ref=R.powm1),
    new("boxcox", binary(uniform(0.2, 3), uniform(-2, 2)), ref=R.boxcox),
    new("boxcox1p", binary(uniform(-0.8, 2), uniform(-2, 2)), ref=R.boxcox1p),
    new("inv_boxcox", binary(uniform(-0.4, 2), uniform(-0.4, 2)), ref=R.inv_boxcox),
    new("inv_boxcox1p", binary(uniform(-0.4, 2), uniform(-0.4, 2)), ref=R.inv_boxcox1p),
    *[new(name, unary(uniform(low, high)), ref=getattr(R, name))
      for name, low, high in (("sindg", -400, 400), ("cosdg", -400, 400), ("tandg", 95, 175),
                              ("cotdg", 5, 175))],
    new("radian", lambda data, rng: ([rng.uniform(-90, 90, s) for s in [data.draw(shapes())] * 3], {}),
        ref=R.radian),
    new("agm", binary(uniform(0.1, 5), uniform(0.1, 5)), ref=R.agm),
    new("zetac", unary(uniform(1.3, 8)), ref=R.zetac),
    new("loggamma", unary(uniform(0.2, 6)), ref=R.loggamma),
    new("spence", unary(uniform(0.05, 8)), ref=R.spence),
    new("poch", binary(uniform(0.3, 6), uniform(-0.25, 3.3)), ref=R.poch),
    new("binom", binary(uniform(3, 8), uniform(0.3, 2.7)), ref=R.binom),
    new("expn", unary(uniform(0.1, 6)), call=lambda x: V.expn(3, x), ref=lambda x: R.expn(3, x), label="n=3"),
    *[new(name, binary(uniform(*alphas), uniform(*xs)), ref=R.orthogonal_with(name, 4), label="n=4",
          call=lambda a, x, name=name: getattr(V, name)(4, a, x))
      for name, alphas, xs in (("eval_gegenbauer", (0.2, 2), (-1.2, 1.2)),
                               ("eval_genlaguerre", (-0.8, 3), (-1, 5)))],
    *[new(name, lambda data, rng, low=low, high=high: ([rng.uniform(low, high, s)
                                                        for s in [data.draw(shapes())] * 3], {}),
          call=lambda a, b, x, name=name: getattr(V, name)(4, a, b, x), ref=R.orthogonal_with(name, 4),
          label="n=4")
      for name, low, high in (("eval_jacobi", -0.8, 1.2), ("eval_sh_jacobi", 1.2, 2.0))],
    *[new(name, unary(uniform(-0.2, 1.2)), call=lambda x, name=name: getattr(V, name)(4, x),
          ref=R.orthogonal_mapped(name, 4), label="n=4")
      for name in ("eval_sh_legendre", "eval_sh_chebyt", "eval_sh_chebyu", "eval_chebyc", "eval_chebys")],
    *[new(name, unary(uniform(-1.3, 1.3)), call=lambda x, name=name: getattr(V, name)(4, x),
          ref=R.orthogonal(name, 4), label="n=4")
      for name in ("eval_legendre", "eval_chebyt", "eval_chebyu", "eval_hermite", "eval_hermitenorm",
                   "eval_laguerre")],
    new("betaln", binary(uniform(0.2, 6), uniform(0.2, 6)), ref=R.betaln),
    *[new(f.__name__, unary(uniform(0.05, 9)), call=lambda x, a=a, f=f: f(a, x),
          ref=lambda x, a=a, r=r: r(a, x), label=f"a={a}")
      for f, r in ((V.gammainc, R.gammainc), (V.gammaincc, R.gammaincc)) for a in (0.4, 3.5)],
    *[new(f.__name__, unary(uniform(0.1, 0.9)), call=lambda x, a=a, b=b, f=f: f(a, b, x),
          ref=lambda x, a=a, b=b, r=r: r(a, b, x), label=f"a={a}, b={b}")
      for f, r in ((V.betainc, R.betainc), (V.betaincc, R.betaincc)) for a, b in ((0.4, 2.5), (3.5, 30.0))],
    *[new("tklmbda", unary(uniform(-3, 3)), call=lambda x, lam=lam: V.tklmbda(x, lam), ref=R.tklmbda(lam),
          label=f"lmbda={lam}") for lam in (-0.6, 0.3)],
    *[new("stdtr", unary(uniform(-6, 6)), call=lambda t, df=df: V.stdtr(df, t),
          ref=lambda t, df=df: R.stdtr(df, t), label=f"df={df}") for df in (1.0, 7.5)],
    *[new(name, unary(uniform(low, high)), call=lambda x, name=name, c=constants: getattr(V, name)(*c, x),
          ref=lambda x, name=name, c=constants: getattr(R, name.removesuffix("c"))(*c, x, name.endswith("c")),
          label=", ".join(map(str, constants)))
      for name, constants, low, high in (("chdtr", (3.0,), 0.1, 9), ("chdtrc", (7.0,), 0.5, 20),
                                         ("gdtr", (2.0, 2.5), 0.1, 4), ("gdtrc", (0.5, 3.0), 0.5, 15),
                                         ("pdtr", (4,), 0.5, 9), ("pdtrc", (2.7,), 0.5, 9),
                                         ("bdtr", (3, 10), 0.05, 0.95), ("bdtrc", (3, 10), 0.05, 0.95),
                                         ("nbdtr", (4, 3), 0.05, 0.95), ("nbdtrc", (4, 3), 0.05, 0.95),
                                         ("fdtr", (3.0, 8.0), 0.1, 5), ("fdtrc", (4.0, 5.0), 0.1, 5))],
    *[new(name, unary(uniform(0.02, 0.98)), call=lambda y, name=name, c=constants: getattr(V, name)(*c, y),
          ref=ref, label=", ".join(map(str, constants)))
      for name, constants, ref in R.QUANTILES],
    new("ndtri_exp", unary(uniform(-8, -0.01)), ref=lambda y: R.ndtri(np.exp(y))),
    new("gdtria", unary(uniform(0.02, 0.98)), call=lambda p: V.gdtria(p, 2.5, 1.5),
        ref=lambda p: R.gdtria(p, 2.5, 1.5), label="in p"),
    new("nrdtrimn", unary(uniform(0.02, 0.98)), call=lambda p: V.nrdtrimn(p, 2.0, 0.5),
        ref=lambda p: 0.5 - 2.0 * R.ndtri(p), label="in p"),
    new("nrdtrisd", unary(uniform(0.55, 0.98)), call=lambda p: V.nrdtrisd(0.5, p, 2.0),
        ref=lambda p: 1.5 / R.ndtri(p), label="in p"),
    new("betaln", binary(uniform(11, 40), uniform(0.2, 40)), ref=R.betaln, label="large"),
    new("multigammaln", unary(uniform(1.6, 6)), call=lambda a: V.multigammaln(a, 3),
        ref=lambda a: R.multigammaln(a, 3)),
    new("entr", unary(uniform(0.1, 3)), ref=R.entr),
    new("rel_entr", binary(uniform(0.1, 3), uniform(0.1, 3)), ref=R.rel_entr),
    new("kl_div", binary(uniform(0.1, 3), uniform(0.1, 3)), ref=R.kl_div),
    new("gammaln", unary(uniform(0.2, 6)), ref=R.gammaln),
    new("gammaln", unary(uniform(-2.9, -2.1)), ref=R.gammaln, label="x < 0"),
    new("digamma", unary(uniform(0.2, 6)), ref=lambda x: R.polygamma(0, x)),
    new("polygamma", unary(uniform(0.2, 6)), call=lambda x: V.polygamma(1, x),
        ref=lambda x: R.polygamma(1, x)),
    new("polygamma", unary(uniform(-1.9, -1.1)), call=lambda x: V.polygamma(3, x),
        ref=lambda x: R.polygamma(3, x), label="n=3, x < 0"),
    ])),
    # variable.ops.rounding: elementwise
    *_entrywise([
    new("sign", unary(_kinked(0.0))), new("floor", unary(_kinked(-2, -1, 0, 1, 2))),
    new("ceil", unary(_kinked(-2, -1, 0, 1, 2))), new("trunc", unary(_kinked(-2, -1, 0, 1, 2))),
    new("fix", unary(_kinked(-2, -1, 0, 1, 2))), new("rint", unary(_kinked(-1.5, -0.5, 0.5, 1.5))),
    new("round", draw_rounded), new("around", draw_rounded), new("mod", draw_remainder),
    new("remainder", draw_remainder), new("fmod", draw_remainder), new("fmax", binary(untied=True)),
    new("fmin", binary(untied=True)), new("nan_to_num", unary()), new("real", unary()), new("imag", unary()),
    new("conj", unary()), new("conjugate", unary()), new("positive", unary()),
    new("fabs", unary(_kinked(0.0))), new("copysign", binary(nonzero, nonzero)),
    ]),
    # variable.ops.statistics
    new("var", draw_var), new("std", draw_var), new("average", draw_average,
                                                    lambda a, w=None, **kw: V.average(a, weights=w, **kw),
                                                    lambda a, w=None, **kw: np.average(a, weights=w, **kw)),
    *[new(n, draw_nan_reduction(distinct, ddof=True),     # where=: the entries NaN would take skipped
          lambda x, nans, n=n, **kw: getattr(V, n)(x, where=~np.isnan(nans), **kw),
          lambda x, nans, n=n, **kw: getattr(np, n)(x, where=~np.isnan(nans), **kw), "where")
      for n in ("var", "std")],
    # variable.ops.products
    new("prod", reduction(with_zeros)), new("cumsum", draw_running()),
    new("prod", draw_nan_reduction(with_zeros, initial=[1.5]),
        lambda x, nans, **kw: V.prod(x, where=~np.isnan(nans), **kw),
        lambda x, nans, **kw: np.prod(x, where=~np.isnan(nans), **kw), "where"),
    new("cumprod", draw_running(with_zeros)), new("trace", draw_diagonal),
    # variable.ops.contraction
    new("einsum", draw_einsum, lambda *xs, subscripts: V.einsum(subscripts, *xs),
        lambda *xs, subscripts: np.einsum(subscripts, *xs)),
    new("dot", draw_dot), new("vdot", draw_vdot), new("inner", draw_inner), new("outer", draw_two()),
    new("tensordot", draw_tensordot), new("kron", draw_two(shapes(0, 2, 1, 2), shapes(0, 2, 1, 2))),
    new("cross", draw_cross),
    # variable.ops.rearrange
    new("repeat", draw_repeat), new("tile", draw_tile), new("roll", draw_roll), new("flip", draw_flip),
    new("fliplr", unary(shapes=shapes(2, 3))), new("flipud", unary(shapes=NONSCALAR)),
    new("rot90", draw_rot90), new("swapaxes", draw_swapaxes), new("moveaxis", draw_moveaxis),
    new("rollaxis", draw_rollaxis), new("atleast_1d", unary()), new("atleast_2d", unary()),
    new("atleast_3d", unary()), new("ravel", unary()),
    # variable.ops.stacking
    new("concatenate", draw_concatenate, *joined("concatenate")), new("append", draw_append),
    new("vstack", draw_joined(lambda n: 0 if n > 1 else None), *joined("vstack")),
    new("row_stack", draw_joined(lambda n: 0 if n > 1 else None), *joined("row_stack", "vstack")),
    new("hstack", draw_joined(lambda n: min(n, 2) - 1 if n else None), *joined("hstack")),
    new("dstack", draw_joined(lambda n: 2 if n > 2 else None), *joined("dstack")),
    new("column_stack", draw_column_stack, *joined("column_stack")),
    new("array_split", draw_split_like(None), _parts(V.array_split), _parts(np.array_split)),
    new("vsplit", draw_split_like(lambda n: 0, 2), _parts(V.vsplit), _parts(np.vsplit)),
    new("hsplit", draw_split_like(lambda n: min(n, 2) - 1), _parts(V.hsplit), _parts(np.hsplit)),
    new("dsplit", draw_split_like(lambda n: 2, 3), _parts(V.dsplit), _parts(np.dsplit)),
    # variable.ops.selection
    new("sort", draw_sort), new("partition", draw_partition), new("take_along_axis", draw_take_along_axis),
    new("take", draw_take),
    new("select", draw_select, lambda *xs, condlist, default: V.select(condlist, list(xs), default),
        lambda *xs, condlist, default: np.select(condlist, list(xs), default)),
    new("diag", draw_diag), new("diagonal", draw_diagonal), new("tril", draw_triangle),
    new("triu", draw_triangle),
    # variable.ops.differences
    new("diff", draw_diff),
    new("gradient", draw_gradient, lambda f, spacing, **kw: V.gradient(f, *spacing, **kw),
        lambda f, spacing, **kw: np.gradient(f, *spacing, **kw)),
    new("pad", draw_pad),
    # V.linalg: inverses and norms
    new("linalg.inv", draw_square), new("linalg.det", draw_square), new("linalg.slogdet", draw_square),
    new("linalg.solve", draw_solve), new("linalg.pinv", draw_rectangular),
    new("linalg.lstsq", draw_lstsq, lambda a, b: V.linalg.lstsq(a, b)[:2],
        lambda a, b: np.linalg.lstsq(a, b)[:2]),
    new("linalg.matrix_power", draw_matrix_power), new("linalg.norm", draw_norm),
    # V.linalg: decompositions (sign-invariant views of eigenvectors, singular vectors and QR)
    new("linalg.cholesky", with_param(draw_spectral(0.0), upper=[False, True])),
    new("linalg.eigh", with_param(draw_spectral(-1.5), UPLO=["L", "U"]), eigh_view(V.linalg.eigh),
        eigh_view(np.linalg.eigh)),
    new("linalg.eigvalsh", with_param(draw_spectral(-1.5), UPLO=["L", "U"])),
    new("linalg.eig", draw_real_spectrum, eig_view(V.linalg.eig), eig_view(np.linalg.eig)),
    new("linalg.eigvals", draw_real_spectrum),
    new("linalg.svd", with_param(draw_spectral(0.1, rectangular=True), compute_uv=[True, False]),
        svd_view(V.linalg.svd), svd_view(np.linalg.svd)),
    new("linalg.qr", with_param(draw_spectral(0.1, rectangular=True), mode=["reduced", "r"]),
        qr_view(V.linalg.qr, V.sign, V.diagonal), qr_view(np.linalg.qr, np.sign, np.diagonal)),
    # variable.ops.quantiles
    new("median", reduction(distinct)), new("ptp", reduction(distinct)),
    new("quantile", draw_quantile(FRACTIONS)), new("percentile", draw_quantile(PERCENTS)),
    # variable.ops.signal
    new("convolve", draw_signals()), new("correlate", draw_signals(zero_d=False)), new("interp", draw_interp),
    new("trapezoid", draw_trapezoid),
    new("trapezoid", draw_trapezoid_dx_array, lambda y, dx, **kw: V.trapezoid(y, dx=dx, **kw),
        lambda y, dx, **kw: np.trapezoid(y, dx=dx, **kw), label="dx an array"),
    new("polyval", draw_polyval),
    new("polyval", draw_polyval_list, lambda *xs: V.polyval(list(xs[:-1]), xs[-1]), np_polyval_list,
        label="a list of coefficients"),
    # variable.ops.powers, rounding.heaviside, variable.ops.grids
    new("cbrt", unary(_kinked(0.0))), new("float_power", binary(positive)),
    new("float_power", draw_integer_exponent, label="integer exponent"),
    new("heaviside", binary(_kinked(0.0))), new("heaviside", draw_step_at_zero, label="integer x1 at 0"),
    new("meshgrid", draw_meshgrid, ref=lambda *xs, **kw: tuple(np.meshgrid(*xs, **kw))),
    new("broadcast_arrays", draw_broadcast_arrays, ref=lambda *xs: tuple(np.broadcast_arrays(*xs))),
    # variable.ops.nanfunctions (NaN entries a constant: plus_nans)
    *[new(n, draw, plus_nans(getattr(V, n)), plus_nans(getattr(np, n))) for n, draw in [
        ("nansum", draw_nan_reduction(initial=[1.5])),
        ("nanprod", draw_nan_reduction(with_zeros, initial=[1.5])),
        ("nanmean", draw_nan_reduction()), ("nanvar", draw_nan_reduction(distinct, ddof=True)),
        ("nanstd", draw_nan_reduction(distinct, ddof=True)),
        ("nanmax", draw_nan_reduction(distinct, initial=["between"])),
        ("nanmin", draw_nan_reduction(distinct, initial=["between"])),
        ("nancumsum", draw_nan_running()), ("nancumprod", draw_nan_running(with_zeros)),
        ("nanmedian", draw_nan_reduction(distinct)), ("nanquantile", draw_nan_quantile(FRACTIONS)),
        ("nanpercentile", draw_nan_quantile(PERCENTS))]],
    *[new(n, draw_nan_reduction(distinct, initial=["between"]),   # where= (nans: the mask), initial
          lambda x, nans, n=n, initial=start, **kw: getattr(V, n)(
              x, where=~np.isnan(nans), initial=initial, **kw),
          lambda x, nans, n=n, initial=start, **kw: getattr(np, n)(
              x, where=~np.isnan(nans), initial=initial, **kw), "where")
      for n, start in [("nanmax", -3.0), ("nanmin", 3.0)]],
    *[new(n, draw,
          lambda x, nans, n=n, **kw: getattr(V, n)(x, where=~np.isnan(nans), **kw),
          lambda x, nans, n=n, **kw: getattr(np, n)(x, where=~np.isnan(nans), **kw), "where")
      for n, draw in [("nanprod", draw_nan_reduction(with_zeros, initial=[1.5])),
                      ("nanvar", draw_nan_reduction(distinct, ddof=True)),
                      ("nanstd", draw_nan_reduction(distinct, ddof=True))]],
    # variable.ops.statistics: cov, corrcoef
    new("cov", draw_cov(), named_last(V.cov), named_last(np.cov)),
    new("corrcoef", draw_cov(correlation=True), named_last(V.corrcoef), named_last(np.corrcoef)),
    # variable.ops.array_api
    new("cumulative_sum", draw_cumulative()), new("cumulative_prod", draw_cumulative(with_zeros)),
    new("vecdot", draw_vecdot()), new("matrix_transpose", unary(shapes=shapes(2, 3))),
    new("permute_dims", draw_permute_dims), new("unstack", draw_unstack), new("diagflat", draw_diagflat),
    new("unwrap", draw_unwrap), new("delete", draw_delete),
    new("insert", draw_insert, lambda arr, values, obj, axis: V.insert(arr, obj, values, axis),
        lambda arr, values, obj, axis: np.insert(arr, obj, values, axis)),
    new("block", draw_block, blocked(V.block), blocked(np.block)),
    new("ediff1d", draw_ediff1d, named_last(V.ediff1d), named_last(np.ediff1d)),
    new("linspace", draw_spaced()), new("logspace", draw_logspace), new("geomspace", draw_geomspace),
    new("unique", draw_unique),
    # V.linalg: the Array API's functions (linalg_api.py)
    new("linalg.vector_norm", draw_vector_norm), new("linalg.matrix_norm", draw_matrix_norm),
    new("linalg.svdvals", draw_spectral(0.1, rectangular=True)), new("linalg.cond", draw_cond),
    new("linalg.trace", draw_offset), new("linalg.diagonal", draw_offset),
    new("linalg.cross", draw_linalg_cross), new("linalg.outer", draw_two(shapes(1, 1), shapes(1, 1))),
    new("linalg.tensordot", draw_tensordot), new("linalg.matrix_transpose", unary(shapes=shapes(2, 3))),
    new("linalg.vecdot", draw_vecdot(keepdims=False)),
    new("linalg.multi_dot", draw_multi_dot, lambda *xs: V.linalg.multi_dot(list(xs)),
        lambda *xs: np.linalg.multi_dot(list(xs))),
    # variable.ops.polynomials (rows of this family only, above its END line)
    new("polyadd", draw_poly_pair), new("polysub", draw_poly_pair), new("polymul", draw_poly_pair),
    new("polyder", draw_polyder),
    new("polyint", draw_polyint, lambda p, k, m: V.polyint(p, m, k), lambda p, k, m: np.polyint(p, m, k)),
    new("polydiv", draw_polydiv),
    new("polyfit", draw_polyfit, lambda x, y, w, deg: V.polyfit(x, y, deg, w=w),
        lambda x, y, w, deg: np.polyfit(x, y, deg, w=w)),
    new("vander", draw_vander), new("poly", draw_poly),
    new("roots", draw_roots, lambda p: V.sort(V.roots(p)), lambda p: np.sort(np.roots(p))),
    new("matvec", draw_matvec(False)), new("vecmat", draw_matvec(True)),
    new("linalg.tensorsolve", draw_tensorsolve), new("linalg.tensorinv", draw_tensorinv),
    # END polynomials
    # variable.ops.division (rows of this family only, above its END line)
    new("floor_divide", draw_remainder), new("divmod", draw_remainder),
    new("modf", unary(off_integers)), new("ldexp", draw_ldexp),
    new("frexp", unary(off_powers_of_two), call=lambda x: V.frexp(x)[0], ref=lambda x: np.frexp(x)[0]),
    new("spacing", unary(off_powers_of_two)),
    new("angle", with_param(unary(nonzero), deg=[False, True])),
    new("real_if_close", with_param(unary(), tol=[100, 1000.0])),
    new("i0", unary(lambda rng, s: rng.uniform(-5, 5, s))),
    # END division
    # variable.ops.sets (rows of this family only, above its END line)
    *[new(n, draw_set_pair(n != "union1d"), set_call(getattr(V, n), V.ravel, V.concatenate),
          set_call(getattr(np, n), np.ravel, np.concatenate)) for n in ("union1d", "intersect1d", "setdiff1d",
                                                                         "setxor1d")],
    new("unique_values", draw_unique_flat),
    *[new(n, draw_unique_flat, lambda x, n=n: getattr(V, n)(x).values,
          lambda x, n=n: getattr(np, n)(x).values)
      for n in ("unique_counts", "unique_inverse", "unique_all")],
    new("trim_zeros", draw_trim_zeros, lambda x, pad, **kw: V.trim_zeros(V.pad(x, pad), **kw),
        lambda x, pad, **kw: np.trim_zeros(np.pad(x, pad), **kw)),
    new("compress", draw_compress, lambda a, condition, axis: V.compress(condition, a, axis),
        lambda a, condition, axis: np.compress(condition, a, axis)),
    new("extract", draw_extract, lambda a, condition: V.extract(condition, a),
        lambda a, condition: np.extract(condition, a)),
    new("choose", draw_choose, lambda *cs, a, mode: V.choose(a, list(cs), mode=mode),
        lambda *cs, a, mode: np.choose(a, list(cs), mode=mode)),
    new("resize", draw_resize),
    new("sliding_window_view", draw_sliding_window_view, V.sliding_window_view,
        np.lib.stride_tricks.sliding_window_view),
    # END sets
    # variable.ops.histograms (rows of this family only, above its END line)
    new("histogram", draw_histogram, float_results(V.histogram), float_results(np.histogram)),
    new("histogram_bin_edges", draw_histogram, lambda a, *w, bins, range, density: V.histogram_bin_edges(
        a, bins, range), lambda a, *w, bins, range, density: np.histogram_bin_edges(a, bins, range)),
    new("histogram2d", draw_histogram_columns, two_d_call(V.histogram2d), two_d_call(np.histogram2d)),
    new("histogramdd", draw_histogram_columns, dd_call(V.histogramdd), dd_call(np.histogramdd)),
    new("piecewise", draw_piecewise, piecewise_call(V.piecewise), piecewise_call(np.piecewise)),
    new("apply_along_axis", draw_along, lambda x, axis, which: V.apply_along_axis(ALONG[which], axis, x),
        lambda x, axis, which: np.apply_along_axis(ALONG[which], axis, x)),
    new("apply_over_axes", draw_over, lambda x, axes, which: V.apply_over_axes(OVER[which], x, axes),
        lambda x, axes, which: np.apply_over_axes(OVER[which], x, axes)),
    # END histograms
]
"""Every op with a gradient; the dropouts (random) and `accuracy` (no gradient) have
tests of their own."""


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
    if prop.entrywise and len(floats) == 1 and all(u.shape == arrays[floats[0]].shape for u in us):
        # output entry k depends on input entry k alone (the forward matched an elementwise
        # formula): one difference of the outputs at x +- eps, every entry at once, is each entry's
        # own central difference of <f(x), u> (numerical_grad's 2 n evaluations give the same)
        def shifted(step):
            values = [a + step if i == floats[0] else a for i, a in enumerate(arrays)]
            return [out.data for out in _outputs(prop.call(*_variables(values), **params))]
        eps = 1e-4                                  # (numerical_grad's step)
        numeric = sum(u * (p - m) for u, p, m in zip(us, shifted(eps), shifted(-eps))) / (2 * eps)
        scale = 1 + np.max(np.abs(numeric), initial=0)
        np.testing.assert_allclose(analytic[0], numeric, rtol=1e-5, atol=1e-6 * scale,
                                   err_msg=f"gradient of input {floats[0]} (entrywise)")
        return
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


CASES = 10
"""Cases each hypothesis example draws and checks, one after another (`_per_example`): `Prop.examples`
cases in examples / CASES examples.  Hypothesis's own work per example (about 1.7 ms: its engine,
the draws' bookkeeping) was most of a cheap op's time: the file with its checks left out took 48 s
at three cases an example, 31 s at ten.  A failing example shows its draws, each case's."""


def _per_example(prop):
    """CASES, or fewer for an op of few cases, so that it still gets ten hypothesis examples:
    hypothesis's first is its simplest (the least shapes and parameters, every case alike)."""
    return max(1, min(CASES, prop.examples // 10))


@st.composite
def _cases(draw, prop, rng):
    """The cases of one example of `prop`, (arrays, params) each, in one draw (a failure prints
    them all)."""
    data = Draws(draw)
    return [prop.draw(data, rng) for _ in range(_per_example(prop))]


def _settings(prop):
    return settings(max_examples=-(-prop.examples // _per_example(prop)), derandomize=True, deadline=None,
                    database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.mark.parametrize("prop", PROPS, ids=lambda p: p.name + (f"[{p.label}]" if p.label else ""))
def test_forward_matches_numpy_and_gradient_matches_differences(prop):
    @_settings(prop)
    @given(data=st.data(), seed=st.integers(0, 2**32 - 1))
    def check(data, seed):
        rng = np.random.default_rng(seed)
        for arrays, params in data.draw(_cases(prop, rng)):
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
    covered = {p.name for p in PROPS} | {"dropout", "alpha_dropout", "dropout1d", "dropout2d", "dropout3d",
                                         "feature_alpha_dropout", "accuracy"}
    missing = sorted((set(V.OPS) | set(V.LINALG_OPS) | set(F.__all__)) - covered)
    assert not missing, f"ops without a property test in {__file__}: {missing}"
