"""Bad input catalogue: every public callable fed wrong types, shapes, axes and values.

The table `OPS` lists, for every name in `variable.OPS`, `variable.LINALG_OPS` (rows named
"linalg.det" etc.) and `function.__all__`, how to call it with arrays (`Op.call`), NumPy's
answer for the same call (`Op.ref`, from rel_numpy_refs.py or NumPy itself) and the shapes
of a valid call.  From each row the cases below are
generated; `EXTRA` adds hand-written cases (shapes, axes, parameters), and `API_CASES`,
`LAYER_CASES` and `OPTIMIZER_CASES` cover the functional toolkit (grad, jacobian, hessian,
hvp, gradcheck, numerical_grad), the layers and the optimizers.

What counts as a good answer:

- a non-array (str, None, object(), dict) where an array belongs: a TypeError whose message
  names the op (`names_op`: the op's name, or its Forwarder's, as a whole word, case and
  underscores ignored);
- a list that is not an array (mixed types, ragged): a TypeError or ValueError naming the op;
- NaN, +-inf, empty, integer, boolean and 0-d arrays: either a TypeError/ValueError naming
  the op, or the result NumPy's formula gives (same shape and dtype, same values, NaN where
  NumPy has NaN) with no warning NumPy's formula does not give itself; and the gradients
  then have the shapes of the inputs.

Anything else fails: a crash deep inside (AttributeError, IndexError, KeyError,
ZeroDivisionError, RecursionError), a NumPy error that does not name the op, a warning, a
silently wrong value or shape.  Library bugs found so far are in `KNOWN_BUGS`: their cases
are strict xfails, so the marker must go as soon as the bug is fixed.
"""

import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest
import rel_numpy_refs as R  # a sibling module: tests/reliability is on sys.path

import function as F
import layers as L
import optimizers as O
import variable as V

NOT_ARRAYS = {"str": "abc", "None": None, "object": object(), "dict": {"a": 1}}
JUNK_LISTS = {"mixed list": [1.0, "a"], "ragged list": [[1.0, 2.0], [3.0]]}
ARG_ERRORS = (TypeError, ValueError)

ALIASES = {"pow": ("PowVar",), "matmul": ("MatMul2D",), "silu": ("swish",), "Parameter": ("Variable",),
           "radians": ("deg2rad",), "degrees": ("rad2deg",), "remainder": ("mod",), "conjugate": ("conj",),
           "around": ("round",), "row_stack": ("vstack",),
           # NumPy's other names for the same ops
           "multiply": ("mul",), "subtract": ("sub",), "divide": ("div",), "true_divide": ("div",),
           "power": ("pow", "PowVar"), "negative": ("neg",), "absolute": ("abs",), "amax": ("max",),
           "amin": ("min",), "asin": ("arcsin",), "acos": ("arccos",), "atan": ("arctan",),
           "atan2": ("arctan2",), "asinh": ("arcsinh",), "acosh": ("arccosh",), "atanh": ("arctanh",)}
"""Other names an op may go by in its messages: the Forwarder behind an internal variant."""


def names_op(message: str, names) -> bool:
    """True when one of `names` is a whole word of `message` (case and '_' ignored)."""
    words = {w.lower().replace("_", "") for w in re.findall(r"[A-Za-z][A-Za-z0-9_]*", message)}
    return any(n.lower().replace("_", "") in words for n in names)


def _names(op):
    short = (op.removeprefix("linalg."),) if op.startswith("linalg.") else ()   # "det: ..." names linalg.det
    return (op, *short, *ALIASES.get(op, ()))


# ----- the table -----------------------------------------------------------------------
@dataclass(frozen=True)
class Op:
    """One row: how to call a public function with arrays, and NumPy's answer for it.

    domain: per argument, "real", "positive", "nonzero", "unit" (0..1), "sign" (+-1),
        "count" (0, 1, 2, ...), "simplex" (rows summing to 1), "above1" (> 1), "spd"
        (symmetric positive definite matrices), "increasing" (sorted along the last axis,
        interp's sample points), "real_rooted" (polynomial coefficients with real roots) or
        "index:N" (ints in [0, N)).
    floats: positions of the floating-point arguments (NaN, inf, integer and boolean
        variants apply there); default: every argument not of an "index" domain.
    empty, zero_d: argument shapes of the call with zero-size arrays, and with 0-d arrays
        (None: no such call).  nullable: positions where None is a valid argument.
    errors: exception types that count as a clear error (get_item documents IndexError).
    """

    name: str
    call: Callable
    ref: Callable
    shapes: tuple
    variant: str = ""
    domain: tuple = ()
    floats: tuple | None = None
    empty: tuple | None = None
    zero_d: tuple | None = "all 0-d"
    nullable: tuple = ()
    errors: tuple = ARG_ERRORS

    def domain_of(self, i):
        return self.domain[i] if i < len(self.domain) else "real"

    def float_positions(self):
        if self.floats is not None:
            return self.floats
        return tuple(i for i in range(len(self.shapes)) if not self.domain_of(i).startswith("index"))

    @property
    def label(self):
        return self.name + (f"[{self.variant}]" if self.variant else "")


def _values(domain, shape, rng):
    """Valid float64 (or integer index) values of `domain` with `shape`."""
    if domain.startswith("index:"):
        return rng.integers(0, int(domain.split(":")[1]), shape)
    if domain == "positive":
        return rng.uniform(0.5, 2.0, shape)
    if domain == "nonzero":
        return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2.0, shape)
    if domain == "unit":
        return rng.uniform(0.1, 0.9, shape)
    if domain == "sign":
        return rng.choice([-1.0, 1.0], shape)
    if domain == "above1":
        return rng.uniform(1.5, 3.0, shape)
    if domain == "spd":                                 # symmetric positive definite matrices
        a = rng.uniform(-1.0, 1.0, shape)
        return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    if domain == "count":
        return rng.integers(0, 4, shape).astype(np.float64)
    if domain == "increasing":                          # sample points: sorted, apart
        return np.cumsum(rng.uniform(0.3, 1.0, shape), axis=-1) - 1.5
    if domain == "real_rooted" and shape[-1]:          # polynomial coefficients, roots real and apart
        return np.poly(np.cumsum(rng.uniform(0.5, 1.0, shape[-1] - 1)) - 1.5) * rng.uniform(0.5, 2.0)
    if domain == "simplex":
        e = rng.uniform(0.5, 2.0, shape)
        return e / e.sum(axis=-1, keepdims=True) if e.ndim else np.ones(shape)
    return rng.uniform(-2.0, 2.0, shape)


def _integers(domain, shape, rng):
    """Integer arrays inside `domain` (where the domain has integers at all)."""
    if domain == "increasing":
        return np.cumsum(rng.integers(1, 3, shape), axis=-1) - 3
    low, high = {"positive": (1, 3), "above1": (1, 4), "unit": (0, 2), "count": (0, 4),
                 "sign": (1, 2)}.get(domain, (-2, 3))
    return rng.integers(low, high, shape)


def _booleans(domain, shape, rng):
    if domain == "increasing":                          # False, ..., True, ...: non-decreasing
        return np.sort(rng.random(shape) < 0.5, axis=-1)
    return np.ones(shape, dtype=bool) if domain in ("positive", "nonzero") else rng.random(shape) < 0.5


def _arguments(op, kind, rng, position=None):
    """The argument arrays of `op` for a numeric case `kind`."""
    shapes = {"empty": op.empty, "0-d": None}.get(kind, op.shapes)
    if kind == "0-d":
        shapes = tuple(() for _ in op.shapes) if op.zero_d == "all 0-d" else op.zero_d
    floats = op.float_positions()
    args = []
    for i, shape in enumerate(shapes):
        domain = op.domain_of(i)
        if kind == "int" and i in floats:
            args.append(_integers(domain, shape, rng))
        elif kind == "bool" and i in floats:
            args.append(_booleans(domain, shape, rng))
        else:
            args.append(_values(domain, shape, rng))
    if kind in ("nan", "inf"):
        a = args[position].copy()
        if a.size:
            a.flat[0] = np.nan if kind == "nan" else np.inf
            if kind == "inf" and a.size > 1:
                a.flat[-1] = -np.inf
        args[position] = a
    return args


def _elementwise(fn, ref, name=None, domain=("real",), variant=""):
    return Op(name or fn.__name__, fn, ref, ((2, 3),), variant, domain=domain, empty=((2, 0),))


def _binary(fn, ref, domain=("real", "real"), name=None):
    return Op(name or fn.__name__, fn, ref, ((2, 3), (3,)), domain=domain, empty=((0, 3), (3,)))


def _ufunc(name, domain=("real",)):
    """V.<name> against np.<name>: a unary row, or a binary one where np.<name> takes two inputs."""
    fn, ref = getattr(V, name), getattr(np, name)
    if getattr(ref, "nin", 1) == 2:
        return _binary(fn, ref, domain if len(domain) == 2 else domain * 2, name)
    return _elementwise(fn, ref, name, domain)


def _linalg(name, shapes, domain=(), call=None, ref=None, variant=""):
    """V.linalg.<name> against np.linalg.<name> on matrices; empty: the first matrix (0, 0)."""
    empty = ((0, 0), *[(0,) * len(s) for s in shapes[1:]])
    return Op(f"linalg.{name}", call or getattr(V.linalg, name), ref or getattr(np.linalg, name), shapes,
              variant, domain=domain, empty=empty, zero_d=None)


def _reduction(name, fn, ref):
    return [
        Op(name, lambda x: fn(x), lambda x: ref(x), ((2, 3),), "all", empty=((2, 0),)),
        Op(name, lambda x: fn(x, axis=1, keepdims=True), lambda x: ref(x, axis=1, keepdims=True),
           ((2, 3),), "axis=1 keepdims", empty=((2, 0),), zero_d=None),
    ]


def _loss(fn, ref, domain=("real", "real"), floats=None):
    return Op(fn.__name__, fn, ref, ((2, 3), (2, 3)), domain=domain, floats=floats,
              empty=((0, 3), (0, 3)))


CTC_TARGETS = np.array([[1, 2], [2, 0]])          # ctc_loss's labels, padded (blank 0)
UNPOOL_INDICES = np.array([[[[0, 3], [9, 14]], [[5, 2], [8, 15]]]])   # max_unpool2d's, into 4x4 planes
COND = np.array([True, False, True])           # broadcasts against every shape used with where
IMAGE, KERNEL = (1, 2, 4, 4), (3, 2, 2, 2)
DECONV_KERNEL = (2, 3, 2, 2)                  # deconv2d's W: input channels first


def _np_deconv(x, W, b=None):
    """Transposed convolution, stride 1 and no pad, any number of spatial axes: each position of
    x adds its W-weighted patch."""
    x, W = R.as_float(x, W)
    n, c, *size = x.shape
    _, oc, *kernel = W.shape
    y = np.zeros((n, oc, *[m + k - 1 for m, k in zip(size, kernel)]))
    for p in np.ndindex(*size):
        patch = np.einsum("nc,co...->no...", x[(slice(None), slice(None), *p)], W)
        y[(slice(None), slice(None), *[slice(q, q + k) for q, k in zip(p, kernel)])] += patch
    return y if b is None else y + R.as_float(b).reshape((1, oc) + (1,) * len(size))


OPS = [
    # ----- variable: elementwise --------------------------------------------------------
    _binary(V.add, np.add), _binary(V.sub, np.subtract), _binary(V.mul, np.multiply),
    _binary(V.div, np.divide, ("real", "nonzero")),
    _binary(V.maximum, np.maximum), _binary(V.minimum, np.minimum),
    Op("pow", lambda x, c: V.pow(x, c), np.power, ((2, 3), (3,)), "array exponent",
       domain=("positive", "real"), empty=((0, 3), (3,))),
    _elementwise(lambda x: V.pow(x, 3), lambda x: np.power(x, 3), "pow", variant="x ** 3"),
    _elementwise(V.neg, np.negative), _elementwise(V.square, np.square),
    # (NumPy's other names for the same ops)
    _binary(V.multiply, np.multiply, name="multiply"), _binary(V.subtract, np.subtract, name="subtract"),
    _binary(V.divide, np.divide, ("real", "nonzero"), name="divide"),
    _binary(V.true_divide, np.true_divide, ("real", "nonzero"), name="true_divide"),
    Op("power", V.power, np.power, ((2, 3), (3,)), domain=("positive", "real"), empty=((0, 3), (3,))),
    _elementwise(V.negative, np.negative, "negative"), _elementwise(V.absolute, np.absolute, "absolute"),
    _elementwise(V.sqrt, np.sqrt, domain=("positive",)), _elementwise(V.exp, np.exp),
    _elementwise(V.log, np.log, domain=("positive",)), _elementwise(V.sin, np.sin),
    _elementwise(V.cos, np.cos), _elementwise(V.tan, np.tan), _elementwise(V.tanh, np.tanh),
    _elementwise(V.sinh, np.sinh), _elementwise(V.cosh, np.cosh), _elementwise(V.abs, np.abs),
    _elementwise(lambda x: V.clip(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5), "clip"),
    Op("where", lambda x0, x1: V.where(COND, x0, x1), lambda x0, x1: np.where(COND, x0, x1),
       ((2, 3), (2, 3)), empty=((0, 3), (0, 3))),
    # ----- variable: shapes ---------------------------------------------------------------
    _elementwise(lambda x: V.reshape(x, -1), lambda x: np.reshape(x, -1), "reshape"),
    _elementwise(lambda x: V.transpose(x), np.transpose, "transpose"),
    _elementwise(V.flatten, R.flatten),
    _elementwise(lambda x: V.expand_dims(x, 0), lambda x: np.expand_dims(x, 0), "expand_dims"),
    Op("squeeze", lambda x: V.squeeze(x), np.squeeze, ((1, 3),), empty=((1, 0),)),
    Op("broadcast_to", lambda x: V.broadcast_to(x, (2, 3)), lambda x: np.broadcast_to(x, (2, 3)),
       ((3,),), empty=((0,),)),
    Op("sum_to", lambda x: V.sum_to(x, (3,)), lambda x: R.sum_to(x, (3,)), ((2, 3),), empty=((0, 3),)),
    Op("get_item", lambda x: V.get_item(x, [1, 0, 1]), lambda x: x[[1, 0, 1]], ((2, 3),),
       empty=((2, 0),), errors=ARG_ERRORS + (IndexError,)),
    Op("concat", lambda x0, x1: V.concat([x0, x1], axis=1),
       lambda x0, x1: np.concatenate([x0, x1], axis=1), ((2, 3), (2, 1)), empty=((2, 0), (2, 0))),
    Op("stack", lambda x0, x1: V.stack([x0, x1], axis=1), lambda x0, x1: np.stack([x0, x1], axis=1),
       ((2, 3), (2, 3)), empty=((0, 3), (0, 3))),
    Op("split", lambda x: V.split(x, 3, axis=1), lambda x: tuple(np.split(x, 3, axis=1)), ((2, 3),),
       empty=((2, 0),)),
    # ----- variable: reductions and products ----------------------------------------------
    *_reduction("sum", V.sum, np.sum), *_reduction("mean", V.mean, np.mean),
    *_reduction("variance", V.variance, np.var), *_reduction("max", V.max, np.max),
    *_reduction("min", V.min, np.min), *_reduction("logsumexp", V.logsumexp, R.logsumexp),
    *_reduction("amax", V.amax, np.amax), *_reduction("amin", V.amin, np.amin),
    Op("matmul", V.matmul, np.matmul, ((2, 3), (3, 4)), "2-D", empty=((2, 0), (0, 4))),
    Op("matmul", V.matmul, np.matmul, ((2, 2, 3), (3,)), "batched @ 1-D", empty=((2, 0, 3), (3,))),
    Op("transpose_matmul", V.transpose_matmul, lambda a, b: a.T @ b, ((3, 2), (3, 4)),
       empty=((0, 2), (0, 4))),
    # ----- function: activations ------------------------------------------------------------
    *[_elementwise(getattr(F, n), getattr(R, n)) for n in (
        "sigmoid", "relu", "relu6", "leaky_relu", "elu", "selu", "celu", "swish", "mish", "hard_sigmoid",
        "hard_swish", "hard_tanh", "softplus", "softsign", "log_sigmoid", "softmax", "log_softmax")],
    _elementwise(F.silu, R.swish, "silu"),
    Op("prelu", F.prelu, R.prelu, ((2, 3), (3,)), "per channel", empty=((0, 3), (3,)), zero_d=((), (1,))),
    Op("prelu", F.prelu, R.prelu, ((2, 3, 2), (1,)), "shared", empty=((2, 3, 0), (1,))),
    Op("glu", F.glu, R.glu, ((3, 4),), empty=((0, 4),), zero_d=None),
    _elementwise(lambda x: F.gelu(x, approximate="tanh"), lambda x: R.gelu(x, "tanh"), "gelu",
                 variant="tanh"),
    _elementwise(F.gelu, R.gelu, "gelu", variant="none"),
    # ----- function: losses -------------------------------------------------------------------
    _loss(F.mean_squared_error, R.mean_squared_error),
    _loss(F.mean_absolute_error, R.mean_absolute_error),
    _loss(F.huber_loss, R.huber_loss),
    _loss(F.log_cosh_loss, R.log_cosh_loss),
    _loss(F.poisson_nll_loss, R.poisson_nll_loss, ("real", "count")),
    _loss(F.sigmoid_cross_entropy, R.sigmoid_cross_entropy, ("real", "unit")),
    _loss(F.binary_cross_entropy, R.binary_cross_entropy, ("unit", "unit")),
    _loss(F.hinge_loss, R.hinge_loss, ("real", "sign"), floats=(0,)),
    _loss(F.cosine_similarity, R.cosine_similarity),
    Op("softmax_cross_entropy", F.softmax_cross_entropy, R.softmax_cross_entropy, ((2, 3), (2,)),
       "labels", domain=("real", "index:3"), empty=((0, 3), (0,)), zero_d=None),
    Op("softmax_cross_entropy", F.softmax_cross_entropy, R.softmax_cross_entropy, ((2, 3), (2, 3)),
       "probabilities", domain=("real", "simplex"), empty=((0, 3), (0, 3))),
    Op("multi_margin_loss", F.multi_margin_loss, R.multi_margin_loss, ((3, 4), (3,)),
       domain=("real", "index:4"), empty=((0, 4), (0,)), zero_d=None),
    Op("multi_margin_loss", lambda x, t, w: F.multi_margin_loss(x, t, 2, 0.5, w, "none"),
       lambda x, t, w: R.multi_margin_loss(x, t, 2, 0.5, w, "none"), ((3, 4), (3,), (4,)), "p=2, weight",
       domain=("real", "index:4", "positive"), empty=((0, 4), (0,), (4,)), zero_d=None, nullable=(2,)),
    Op("softmax_cross_entropy", lambda x, t, w: F.softmax_cross_entropy(x, t, weight=w, ignore_index=0,
                                                                        label_smoothing=0.2),
       lambda x, t, w: R.cross_entropy_of_labels(x, t, w, 0, "mean", 0.2), ((3, 4), (3,), (4,)),
       "weight, ignore_index, label_smoothing", domain=("real", "index:4", "positive"),
       empty=((0, 4), (0,), (4,)), zero_d=None, nullable=(2,)),
    Op("nll_loss", F.nll_loss, R.nll_loss, ((2, 3), (2,)), domain=("real", "index:3"), empty=((0, 3), (0,)),
       zero_d=None),
    Op("nll_loss", lambda lp, t: F.nll_loss(lp, t, ignore_index=1, reduction="none"),
       lambda lp, t: R.nll_loss(lp, t, None, 1, "none"), ((4, 3), (4,)), "ignore_index, none",
       domain=("real", "index:3"), empty=((0, 3), (0,)), zero_d=None),
    _loss(F.smooth_l1_loss, R.smooth_l1_loss),
    Op("smooth_l1_loss", lambda x, t: F.smooth_l1_loss(x, t, beta=0.0, reduction="none"),
       lambda x, t: R.smooth_l1_loss(x, t, "none", 0.0), ((2, 3), (2, 3)), "beta 0, none",
       empty=((0, 3), (0, 3))),
    _loss(F.soft_margin_loss, R.soft_margin_loss, ("real", "sign"), floats=(0,)),
    Op("margin_ranking_loss", lambda a, b, y: F.margin_ranking_loss(a, b, y, margin=0.5),
       lambda a, b, y: R.margin_ranking_loss(a, b, y, 0.5), ((2, 3), (2, 3), (2, 3)),
       domain=("real", "real", "sign"), floats=(0, 1), empty=((0, 3), (0, 3), (0, 3))),
    _loss(F.hinge_embedding_loss, R.hinge_embedding_loss, ("real", "sign"), floats=(0,)),
    Op("cosine_embedding_loss", F.cosine_embedding_loss, R.cosine_embedding_loss, ((2, 3), (2, 3), (2,)),
       domain=("real", "real", "sign"), floats=(0, 1), empty=((0, 3), (0, 3), (0,)), zero_d=None),
    Op("triplet_margin_loss", F.triplet_margin_loss, R.triplet_margin_loss, ((2, 3), (2, 3), (2, 3)),
       empty=((0, 3), (0, 3), (0, 3)), zero_d=None),
    Op("gaussian_nll_loss", F.gaussian_nll_loss, R.gaussian_nll_loss, ((2, 3), (2, 3), (2, 3)),
       domain=("real", "real", "positive"), empty=((0, 3), (0, 3), (0, 3))),
    Op("ctc_loss", lambda lp: F.ctc_loss(lp, CTC_TARGETS, [3, 2], [2, 1]),
       lambda lp: R.ctc_loss(lp, CTC_TARGETS, [3, 2], [2, 1]), ((3, 2, 3),), zero_d=None),
    # ----- function: layers as functions -----------------------------------------------------
    Op("linear", F.linear, R.linear, ((2, 3), (3, 4), (4,)), nullable=(2,), empty=((0, 3), (3, 4), (4,))),
    Op("dropout", lambda x: _in_test_mode(F.dropout, x), R.as_float, ((2, 3),), "test mode",
       empty=((2, 0),)),
    Op("alpha_dropout", lambda x: _in_test_mode(F.alpha_dropout, x), R.as_float, ((2, 3),), "test mode",
       empty=((2, 0),)),
    *[Op(name, lambda x, name=name: _in_test_mode(getattr(F, name), x), R.as_float, (shape,), "test mode",
         empty=((0,) + shape[1:],), zero_d=None)
      for name, shape in (("dropout1d", (2, 3, 4)), ("dropout2d", (1, 2, 3, 3)),
                          ("dropout3d", (1, 2, 2, 3, 2)), ("feature_alpha_dropout", (2, 3)))],
    Op("local_response_norm", lambda x: F.local_response_norm(x, 3, 0.5), lambda x: R.local_response_norm(
       x, 3, 0.5), ((2, 4, 3),), empty=((0, 4, 3),), zero_d=None),
    Op("layer_norm", F.layer_norm, R.layer_norm, ((2, 3), (3,), (3,)), empty=((0, 3), (3,), (3,)),
       nullable=(1, 2)),
    Op("rms_norm", F.rms_norm, R.rms_norm, ((2, 3), (3,)), empty=((0, 3), (3,)), nullable=(1,)),
    Op("group_norm", lambda x, g, b: F.group_norm(x, 2, g, b), lambda x, g, b: R.group_norm(x, 2, g, b),
       ((2, 4, 3), (4,), (4,)), empty=((0, 4, 3), (4,), (4,)), zero_d=None, nullable=(1, 2)),
    Op("scaled_dot_product_attention", F.scaled_dot_product_attention, R.scaled_dot_product_attention,
       ((2, 3, 4), (2, 5, 4), (2, 5, 3)), empty=((2, 0, 4), (2, 5, 4), (2, 5, 3)), zero_d=None),
    Op("scaled_dot_product_attention", F.scaled_dot_product_attention, R.scaled_dot_product_attention,
       ((3, 2), (4, 2), (4, 3)), "no keys", empty=((3, 2), (0, 2), (0, 3)), zero_d=None),
    Op("batch_norm", F.batch_norm, R.batch_norm, ((4, 3), (3,), (3,)), empty=((4, 0), (0,), (0,))),
    Op("embed_id", F.embed_id, R.embed_id, ((2,), (4, 3)), domain=("index:4", "real"),
       empty=((0,), (4, 3))),
    Op("accuracy", F.accuracy, R.accuracy, ((2, 3), (2,)), domain=("real", "index:3"),
       empty=((0, 3), (0,))),
    Op("interpolate", lambda x: F.interpolate(x, size=(3, 5), mode="bilinear"),
       lambda x: R.interpolate_bilinear(x, (3, 5)), (IMAGE,), empty=((0,) + IMAGE[1:],), zero_d=None),
    Op("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 2)),
       lambda x: R.adaptive_avg_pool2d(x, (3, 2)), (IMAGE,), empty=((0,) + IMAGE[1:],), zero_d=None),
    Op("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (3, 2)),
       lambda x: R.adaptive_max_pool2d(x, (3, 2)), (IMAGE,), empty=((0,) + IMAGE[1:],), zero_d=None),
    *[Op(name, lambda x, name=name, size=size: getattr(F, name)(x, size),
         lambda x, name=name, size=size: getattr(R, name)(x, size), (shape,), empty=((0,) + shape[1:],),
         zero_d=None)
      for kind in ("avg", "max")
      for name, shape, size in ((f"adaptive_{kind}_pool1d", (2, 3, 5), 3),
                                (f"adaptive_{kind}_pool3d", (1, 2, 3, 4, 2), (2, 3, 1)))],
    Op("grid_sample", F.grid_sample, R.grid_sample, (IMAGE, (2, 3, 2, 2)),
       empty=((0,) + IMAGE[1:], (0, 3, 2, 2)), zero_d=None),
    Op("affine_grid", lambda t: F.affine_grid(t, (2, 1, 3, 2)), lambda t: R.affine_grid(t, (2, 1, 3, 2)),
       ((2, 2, 3),), zero_d=None),
    Op("conv1d", F.conv1d, R.conv1d, ((2, 2, 5), (3, 2, 2), (3,)), nullable=(2,),
       empty=((0, 2, 5), (3, 2, 2), (3,)), zero_d=None),
    Op("conv2d", F.conv2d, R.conv2d, (IMAGE, KERNEL, (3,)), nullable=(2,),
       empty=((0,) + IMAGE[1:], KERNEL, (3,))),
    Op("conv3d", F.conv3d, R.conv3d, ((1, 2, 3, 3, 4), (3, 2, 2, 2, 2), (3,)), nullable=(2,),
       empty=((0, 2, 3, 3, 4), (3, 2, 2, 2, 2), (3,)), zero_d=None),
    Op("deconv2d", F.deconv2d, _np_deconv, (IMAGE, DECONV_KERNEL, (3,)), nullable=(2,),
       empty=((0,) + IMAGE[1:], DECONV_KERNEL, (3,))),
    Op("deconv1d", F.deconv1d, _np_deconv, ((2, 2, 5), (2, 3, 2), (3,)), nullable=(2,),
       empty=((0, 2, 5), (2, 3, 2), (3,)), zero_d=None),
    Op("deconv3d", F.deconv3d, _np_deconv, ((1, 2, 3, 2, 3), (2, 3, 2, 2, 2), (3,)), nullable=(2,),
       empty=((0, 2, 3, 2, 3), (2, 3, 2, 2, 2), (3,)), zero_d=None),
    Op("max_unpool2d", lambda x: F.max_unpool2d(x, UNPOOL_INDICES, 2),
       lambda x: R.max_unpool2d(x, UNPOOL_INDICES, 2), ((1, 2, 2, 2),), zero_d=None),
    Op("pooling", lambda x: F.pooling(x, 2), lambda x: R.pooling(x, 2), (IMAGE,),
       empty=((0,) + IMAGE[1:],)),
    Op("average_pooling", lambda x: F.average_pooling(x, 2), lambda x: R.average_pooling(x, 2),
       (IMAGE,), empty=((0,) + IMAGE[1:],)),
    Op("im2col", lambda x: F.im2col(x, 2), lambda x: R.im2col(x, 2), (IMAGE,), empty=((0,) + IMAGE[1:],)),
    Op("col2im", lambda c: F.col2im(c, IMAGE, 2), lambda c: R.col2im(c, IMAGE, 2), ((1, 2, 2, 2, 3, 3),)),
    # ----- variable: exponentials and logarithms (exponential.py) ----------------------------
    *[_ufunc(n) for n in ("expm1", "exp2", "logaddexp", "logaddexp2")],
    *[_ufunc(n, ("positive",)) for n in ("log1p", "log2", "log10")],
    _ufunc("reciprocal", ("nonzero",)),
    # ----- variable: inverse trigonometric and angles (inverse_trig.py) -----------------------
    *[_ufunc(n) for n in ("arctan", "arcsinh", "arctan2", "hypot", "sinc", "deg2rad", "rad2deg")],
    *[_ufunc(n, ("unit",)) for n in ("arcsin", "arccos", "arctanh")],
    _ufunc("arccosh", ("above1",)),
    *[_ufunc(n) for n in ("atan", "asinh", "atan2")],
    *[_ufunc(n, ("unit",)) for n in ("asin", "acos", "atanh")],
    _ufunc("acosh", ("above1",)),
    # ----- variable: the error functions (special.py; NumPy has none: Python's math as reference)
    _elementwise(V.erf, np.vectorize(math.erf, otypes=[float]), "erf"),
    _elementwise(V.erfc, np.vectorize(math.erfc, otypes=[float]), "erfc"),
    # ----- variable: the gamma family (special.py), off its poles
    _elementwise(V.gammaln, R.gammaln, "gammaln", ("positive",)),
    _elementwise(V.digamma, lambda x: R.polygamma(0, x), "digamma", ("positive",)),
    _elementwise(lambda x: V.polygamma(2, x), lambda x: R.polygamma(2, x), "polygamma", ("positive",)),
    _binary(V.xlogy, R.xlogy, ("real", "positive")), _binary(V.xlog1py, R.xlog1py, ("real", "positive")),
    _elementwise(V.logit, R.logit, "logit", ("unit",)),
    _elementwise(V.erfinv, R.erfinv, "erfinv", ("unit",)),
    _elementwise(V.erfcinv, R.erfcinv, "erfcinv", ("unit",)),
    _elementwise(V.ndtri, R.ndtri, "ndtri", ("unit",)), _elementwise(V.log_ndtr, R.log_ndtr, "log_ndtr"),
    _elementwise(V.ndtr, R.ndtr, "ndtr"), _elementwise(V.erfcx, R.erfcx, "erfcx"),
    _elementwise(V.i1, R.i1, "i1"), _elementwise(V.i0e, R.i0e, "i0e"),
    # ----- variable: Bessel functions (bessel.py)
    _elementwise(V.j0, R.bessel_j(0), "j0"), _elementwise(V.j1, R.bessel_j(1), "j1"),
    _elementwise(lambda x: V.jn(3, x), R.bessel_j(3), "jn", variant="n=3"),
    _elementwise(V.y0, R.bessel_y(0), "y0", ("positive",)),
    _elementwise(V.y1, R.bessel_y(1), "y1", ("positive",)),
    _elementwise(lambda x: V.yn(2, x), R.bessel_y(2), "yn", ("positive",), "n=2"),
    _elementwise(V.k0, R.bessel_k(0), "k0", ("positive",)),
    _elementwise(V.k1, R.bessel_k(1), "k1", ("positive",)),
    _elementwise(lambda x: V.kn(3, x), R.bessel_k(3), "kn", ("positive",), "n=3"),
    _elementwise(V.k0e, R.bessel_k(0, True), "k0e", ("positive",)),
    _elementwise(V.k1e, R.bessel_k(1, True), "k1e", ("positive",)),
    _elementwise(lambda x: V.kv(2.3, x), R.bessel_kv(2.3), "kv", ("positive",), "v=2.3"),
    _elementwise(lambda x: V.jv(2.3, x), R.bessel_jy("j", 2.3), "jv", ("positive",), "v=2.3"),
    _elementwise(lambda x: V.yv(-0.7, x), R.bessel_jy("y", -0.7), "yv", ("positive",), "v=-0.7"),
    _elementwise(lambda x: V.jve(1.5, x), R.bessel_jy("j", 1.5), "jve", ("positive",), "v=1.5"),
    _elementwise(lambda z: V.hyp0f1(2.5, z), R.hyp0f1(2.5), "hyp0f1", ("real",), "b=2.5"),
    *[_elementwise(getattr(V, op), R.kelvin(op), op, ("positive",) if op.startswith("k") else ("real",))
      for op in ("ber", "bei", "ker", "kei", "berp", "beip", "kerp", "keip")],
    *[_elementwise(lambda x, op=op: getattr(V, op)(2, x), R.spherical(op[-2], 2), op, ("positive",), "n=2")
      for op in ("spherical_jn", "spherical_yn", "spherical_in", "spherical_kn")],
    _elementwise(lambda x: V.yve(0.25, x), R.bessel_jy("y", 0.25), "yve", ("positive",), "v=0.25"),
    _elementwise(lambda x: V.kve(-0.4, x), R.bessel_kv(-0.4, True), "kve", ("positive",), "v=-0.4"),
    _elementwise(lambda x: V.iv(2.3, x), R.bessel_iv(2.3), "iv", ("positive",), "v=2.3"),
    _elementwise(lambda x: V.ive(-0.4, x), R.bessel_iv(-0.4, True), "ive", ("positive",), "v=-0.4"),
    _elementwise(lambda x: V.iv(31.5, x), R.bessel_iv(31.5, top=40.0), "iv", ("positive",), "v=31.5"),
    _elementwise(V.i1e, R.i1e, "i1e"), _binary(V.betaln, R.betaln, ("positive", "positive")),
    _elementwise(V.gamma, R.gamma, "gamma", ("positive",)),
    _elementwise(V.rgamma, R.rgamma, "rgamma"), _elementwise(V.gammasgn, R.gammasgn, "gammasgn"),
    _binary(V.beta, R.beta, ("positive", "positive")),
    _elementwise(V.ellipk, R.ellipk, "ellipk"), _elementwise(V.ellipe, R.ellipe, "ellipe"),
    _elementwise(lambda x: V.lpmv(2, 5, x), R.lpmv(2, 5), "lpmv", ("unit",), "m=2, v=5"),
    _elementwise(lambda x: V.pbdv(3, x), R.pbdv(3), "pbdv", ("real",), "v=3"),
    _elementwise(V.ellipkm1, R.ellipkm1, "ellipkm1", ("positive",)),
    *[Op(op, getattr(V, op), getattr(R, op), ((2, 3), (3,), ()), domain=("positive",) * 3,
         empty=((2, 0), (0,), ())) for op in ("elliprf", "elliprd", "elliprg")],
    _binary(V.elliprc, R.elliprc, ("positive", "nonzero")),
    Op("elliprj", V.elliprj, R.elliprj, ((2, 3), (3,), (), (2, 1)),
       domain=("positive", "positive", "positive", "nonzero"), empty=((2, 0), (0,), (), (2, 1))),
    _binary(V.ellipkinc, R.ellipkinc, ("real", "unit")), _binary(V.ellipeinc, R.ellipeinc, ("real", "unit")),
    _binary(V.ellipj, R.ellipj, ("real", "unit")),
    _elementwise(V.exp1, R.exp1, "exp1", ("positive",)), _elementwise(V.expi, R.expi, "expi"),
    _binary(V.huber, R.huber, ("positive", "real")),
    _binary(V.pseudo_huber, R.pseudo_huber, ("positive", "real")),
    _elementwise(V.erfi, R.erfi, "erfi"), _elementwise(V.dawsn, R.dawsn, "dawsn"),
    _elementwise(V.sici, R.sici, "sici"), _elementwise(V.shichi, R.shichi, "shichi"),
    _elementwise(V.fresnel, R.fresnel, "fresnel"), _elementwise(V.airy, R.airy, "airy"),
    _elementwise(V.airye, R.airye, "airye", ("positive",)),
    _elementwise(V.wrightomega, R.wrightomega, "wrightomega"), _binary(V.owens_t, R.owens_t),
    _elementwise(V.lambertw, R.lambertw, "lambertw", ("positive",)),
    _elementwise(V.kolmogorov, R.kolmogorov, "kolmogorov"),
    _elementwise(V.kolmogi, R.kolmogi, "kolmogi", ("unit",)),
    _elementwise(lambda d: V.smirnov(7, d), R.smirnov(7), "smirnov", ("unit",), "n=7"),
    _elementwise(lambda p: V.smirnovi(7, p), R.smirnovi(7), "smirnovi", ("unit",), "n=7"),
    _elementwise(V.zeta, R.zeta, "zeta"),                 # (zeta(x, None) is Riemann's: no Hurwitz row)
    *[_elementwise(getattr(V, name), getattr(R, name), name)
      for name in ("exprel", "cosm1", "exp10", "sindg", "cosdg", "tandg", "cotdg", "zetac", "loggamma",
                   "spence")],
    *[_binary(getattr(V, name), getattr(R, name), ("positive", "real"))
      for name in ("powm1", "boxcox", "boxcox1p", "inv_boxcox", "inv_boxcox1p", "agm")],
    Op("radian", V.radian, R.radian, ((2, 3), (3,), ())),
    _binary(V.poch, R.poch, ("positive", "real")), _binary(V.binom, R.binom, ("positive", "real")),
    _elementwise(lambda x: V.expn(3, x), lambda x: R.expn(3, x), "expn", ("positive",), "n=3"),
    *[Op(name, lambda *args, name=name: getattr(V, name)(4, *args), R.orthogonal_with(name, 4),
         ((2, 3),) * (count + 1), "n=4")
      for name, count in (("eval_gegenbauer", 1), ("eval_genlaguerre", 1), ("eval_jacobi", 2),
                          ("eval_sh_jacobi", 2))],
    *[_elementwise(lambda x, name=name: getattr(V, name)(4, x), R.orthogonal_mapped(name, 4), name,
                   variant="n=4")
      for name in ("eval_sh_legendre", "eval_sh_chebyt", "eval_sh_chebyu", "eval_chebyc", "eval_chebys")],
    *[_elementwise(lambda x, name=name: getattr(V, name)(4, x), R.orthogonal(name, 4), name, variant="n=4")
      for name in ("eval_legendre", "eval_chebyt", "eval_chebyu", "eval_hermite", "eval_hermitenorm",
                   "eval_laguerre")],
    *[_elementwise(lambda x, f=f: f(2.5, x), lambda x, r=r: r(2.5, x), f.__name__, ("positive",), "a=2.5")
      for f, r in ((V.gammainc, R.gammainc), (V.gammaincc, R.gammaincc))],
    *[_binary(lambda a, x, f=f: f(a.detach() if isinstance(a, V.Variable) else a, x), r,
              ("positive", "positive"), f.__name__)
      for f, r in ((V.gammainc, R.gammainc), (V.gammaincc, R.gammaincc))],
    *[_elementwise(lambda x, f=f: f(2.5, 1.5, x), lambda x, r=r: r(2.5, 1.5, x), f.__name__, ("unit",),
                   "a=2.5, b=1.5")
      for f, r in ((V.betainc, R.betainc), (V.betaincc, R.betaincc))],
    _elementwise(lambda t: V.stdtr(4.5, t), lambda t: R.stdtr(4.5, t), "stdtr", variant="df=4.5"),
    _elementwise(lambda x: V.tklmbda(x, 0.3), R.tklmbda(0.3), "tklmbda", variant="lmbda=0.3"),
    *[_elementwise(lambda x, name=name, c=constants: getattr(V, name)(*c, x),
                   lambda x, name=name, c=constants: getattr(R, name.removesuffix("c"))(*c, x,
                                                                                    name.endswith("c")),
                   name, (domain,), ", ".join(map(str, constants)))
      for name, constants, domain in (("chdtr", (3.0,), "positive"), ("chdtrc", (3.0,), "positive"),
                                      ("gdtr", (2.0, 2.5), "positive"), ("gdtrc", (2.0, 2.5), "positive"),
                                      ("pdtr", (4,), "positive"), ("pdtrc", (4,), "positive"),
                                      ("bdtr", (3, 10), "unit"), ("bdtrc", (3, 10), "unit"),
                                      ("nbdtr", (4, 3), "unit"), ("nbdtrc", (4, 3), "unit"),
                                      ("fdtr", (3.0, 8.0), "positive"), ("fdtrc", (3.0, 8.0), "positive"))],
    *[_elementwise(lambda y, name=name, c=constants: getattr(V, name)(*c, y), ref, name, ("unit",),
                   ", ".join(map(str, constants)))
      for name, constants, ref in R.QUANTILES],
    _elementwise(V.ndtri_exp, lambda y: R.ndtri(np.exp(R.as_float(y)))),
    _elementwise(lambda x: V.gdtria(0.3, 2.5, x), lambda x: R.gdtria(0.3, 2.5, x), "gdtria",
                 variant="p=0.3, b=2.5"),
    _elementwise(lambda x: V.nrdtrimn(0.3, 2.0, x), lambda x: R.as_float(x) - 2.0 * R.ndtri(0.3), "nrdtrimn",
                 variant="p=0.3, std=2"),
    _elementwise(lambda x: V.nrdtrisd(0.5, 0.8, x), lambda x: (R.as_float(x) - 0.5) / R.ndtri(0.8),
                 "nrdtrisd", variant="mn=0.5, p=0.8"),
    _elementwise(V.entr, R.entr), _binary(V.rel_entr, R.rel_entr, ("positive", "positive")),
    _binary(V.kl_div, R.kl_div, ("positive", "positive")),
    _elementwise(lambda a: V.multigammaln(a, 2), lambda a: R.multigammaln(a, 2), "multigammaln", ("above1",)),
    _elementwise(V.radians, np.radians, "radians"), _elementwise(V.degrees, np.degrees, "degrees"),
    # ----- variable: rounding, remainders and identities (rounding.py) ------------------------
    *[_ufunc(n) for n in ("sign", "floor", "ceil", "round", "around", "rint", "trunc", "fix", "fmax",
                          "fmin", "nan_to_num", "real", "imag", "conj", "positive", "fabs", "copysign")],
    *[_ufunc(n, ("real", "nonzero")) for n in ("mod", "fmod")],
    _binary(V.remainder, np.remainder, ("real", "nonzero"), "remainder"),
    _elementwise(V.conjugate, np.conjugate, "conjugate"),
    _elementwise(lambda x: V.round(x, 2), lambda x: np.round(x, 2), "round", variant="decimals=2"),
    # ----- variable: statistics and products (statistics.py, products.py) ---------------------
    *[r for n in ("var", "std", "prod") for r in _reduction(n, getattr(V, n), getattr(np, n))],
    *[Op(n, lambda x, n=n: getattr(V, n)(x, axis=1, where=COND),
         lambda x, n=n: getattr(np, n)(x, axis=1, where=COND), ((2, 3),), "where", empty=((0, 3),),
         zero_d=None) for n in ("var", "std", "prod")],
    Op("average", V.average, np.average, ((2, 3),), "all", empty=((2, 0),)),
    Op("average", lambda a, w: V.average(a, axis=1, weights=w), lambda a, w: np.average(a, axis=1, weights=w),
       ((2, 3), (3,)), "weights", domain=("real", "positive"), empty=((2, 0), (0,)), zero_d=None,
       nullable=(1,), errors=ARG_ERRORS + (ZeroDivisionError,)),      # as NumPy: weights summing to 0
    *[Op(n, getattr(V, n), getattr(np, n), ((2, 3),), "flat", empty=((2, 0),))
      for n in ("cumsum", "cumprod")],
    *[Op(n, lambda x, n=n: getattr(V, n)(x, axis=-1), lambda x, n=n: getattr(np, n)(x, axis=-1), ((2, 3),),
         "axis=-1", empty=((2, 0),), zero_d=None) for n in ("cumsum", "cumprod")],
    Op("trace", V.trace, np.trace, ((2, 3),), empty=((2, 0),), zero_d=None),
    # ----- variable: contractions (contraction.py) --------------------------------------------
    Op("einsum", lambda a, b: V.einsum("ij,jk->ik", a, b), lambda a, b: np.einsum("ij,jk->ik", a, b),
       ((2, 3), (3, 4)), empty=((2, 0), (0, 4)), zero_d=None),
    *[Op(n, getattr(V, n), getattr(np, n), shapes, empty=empty) for n, shapes, empty in [
        ("dot", ((2, 3), (3,)), ((2, 0), (0,))), ("vdot", ((2, 3), (2, 3)), ((0, 3), (0, 3))),
        ("inner", ((2, 3), (3,)), ((2, 0), (0,))), ("outer", ((2,), (3,)), ((0,), (3,))),
        ("kron", ((2, 3), (2, 2)), ((0, 3), (2, 2)))]],
    Op("tensordot", lambda a, b: V.tensordot(a, b, 1), lambda a, b: np.tensordot(a, b, 1),
       ((2, 3), (3, 4)), empty=((2, 0), (0, 4)), zero_d=None),
    Op("cross", V.cross, np.cross, ((2, 3), (2, 3)), empty=((0, 3), (0, 3)), zero_d=None),
    # ----- variable: rearranging (rearrange.py) -----------------------------------------------
    *[_elementwise(lambda x, n=n, a=a: getattr(V, n)(x, *a), lambda x, n=n, a=a: getattr(np, n)(x, *a), n)
      for n, a in [("repeat", (2,)), ("tile", (2,)), ("roll", (1,)), ("flip", ()), ("atleast_1d", ()),
                   ("atleast_2d", ()), ("atleast_3d", ()), ("ravel", ())]],
    _elementwise(lambda x: V.repeat(x, 2, axis=1), lambda x: np.repeat(x, 2, axis=1), "repeat",
                 variant="axis=1"),
    _elementwise(lambda x: V.roll(x, -1, axis=1), lambda x: np.roll(x, -1, axis=1), "roll", variant="axis=1"),
    *[Op(n, lambda x, n=n, a=a: getattr(V, n)(x, *a), lambda x, n=n, a=a: getattr(np, n)(x, *a), ((2, 3),),
         empty=((2, 0),), zero_d=None)
      for n, a in [("fliplr", ()), ("flipud", ()), ("rot90", ()), ("swapaxes", (0, 1)), ("moveaxis", (0, -1)),
                   ("rollaxis", (1,))]],
    # ----- variable: joining and splitting (stacking.py) --------------------------------------
    Op("concatenate", lambda a, b: V.concatenate([a, b], axis=1), lambda a, b: np.concatenate([a, b], axis=1),
       ((2, 3), (2, 1)), empty=((2, 0), (2, 0)), zero_d=None),
    Op("append", V.append, np.append, ((2, 3), (4,)), empty=((0, 3), (0,))),
    *[Op(n, lambda a, b, n=n: getattr(V, n)([a, b]), lambda a, b, r=r: r([a, b]), shapes, empty=empty)
      for n, r, shapes, empty in [
          ("vstack", np.vstack, ((2, 3), (3,)), ((0, 3), (3,))), ("row_stack", np.vstack, ((2, 3), (3,)),
                                                                  ((0, 3), (3,))),
          ("hstack", np.hstack, ((2, 3), (2, 1)), ((2, 0), (2, 0))),
          ("dstack", np.dstack, ((2, 3), (2, 3)), ((0, 3), (0, 3))),
          ("column_stack", np.column_stack, ((3,), (3, 2)), ((0,), (0, 2)))]],
    *[Op(n, lambda x, n=n, a=a: tuple(getattr(V, n)(x, *a)), lambda x, n=n, a=a: tuple(getattr(np, n)(x, *a)),
         (shape,), empty=(empty,), zero_d=None)
      for n, a, shape, empty in [("array_split", (2, 1), (2, 3), (2, 0)), ("vsplit", (2,), (2, 3), (2, 0)),
                                 ("hsplit", (3,), (2, 3), (0, 3)), ("dsplit", (2,), (1, 2, 2), (0, 2, 2))]],
    # ----- variable: sorting, taking and triangles (selection.py) -----------------------------
    _elementwise(V.sort, np.sort, "sort"),
    _elementwise(lambda x: V.partition(x, 1), lambda x: np.partition(x, 1), "partition"),
    Op("take_along_axis", lambda a, i: V.take_along_axis(a, i, axis=1),
       lambda a, i: np.take_along_axis(a, i, axis=1), ((2, 3), (2, 2)), domain=("real", "index:3"),
       empty=((0, 3), (0, 2)), zero_d=None),
    Op("take", V.take, np.take, ((2, 3), (4,)), domain=("real", "index:6"), empty=((2, 0), (0,)),
       zero_d=None),
    Op("take", lambda a, i: V.take(a, i, axis=1), lambda a, i: np.take(a, i, axis=1), ((2, 3), (2,)),
       "axis=1", domain=("real", "index:3"), empty=((0, 3), (0,)), zero_d=None),
    Op("select", lambda a, b: V.select([COND, ~COND], [a, b]), lambda a, b: np.select([COND, ~COND], [a, b]),
       ((2, 3), (2, 3)), empty=((0, 3), (0, 3))),
    Op("diag", V.diag, np.diag, ((3,),), "1-D", empty=((0,),), zero_d=None),
    *[Op(n, getattr(V, n), getattr(np, n), ((2, 3),), empty=((2, 0),), zero_d=None)
      for n in ("diag", "diagonal", "tril", "triu")],
    # ----- variable: differences and padding (differences.py) ---------------------------------
    _elementwise(V.diff, np.diff, "diff"),
    _elementwise(lambda x: V.gradient(x, axis=1), lambda x: np.gradient(x, axis=1), "gradient"),
    _elementwise(lambda x: V.pad(x, 1), lambda x: np.pad(x, 1), "pad"),
    _elementwise(lambda x: V.pad(x, ((0, 1), (2, 0)), mode="edge"),
                 lambda x: np.pad(x, ((0, 1), (2, 0)), mode="edge"), "pad", variant="edge"),
    # ----- variable: linear algebra (inverses.py, norms.py, decompositions.py) -----------------
    *[_linalg(n, (shape,), domain=(d,)) for n, shape, d in [
        ("inv", (3, 3), "real"), ("det", (3, 3), "real"), ("slogdet", (3, 3), "real"),
        ("pinv", (2, 3), "real"), ("cholesky", (3, 3), "spd"), ("eigh", (3, 3), "spd"),
        ("eigvalsh", (3, 3), "spd"), ("svd", (3, 3), "real"), ("qr", (2, 3), "real"),
        ("eig", (3, 3), "spd"), ("eigvals", (3, 3), "spd")]],
    # (full_matrices=True on a non-square matrix: the extra columns have no gradient, by design)
    *[_linalg("svd", ((2, 3),), call=lambda a, k=k: V.linalg.svd(a, **k),
              ref=lambda a, k=k: np.linalg.svd(a, **k), variant=",".join(f"{n}={v}" for n, v in k.items()))
      for k in ({"full_matrices": False}, {"compute_uv": False})],
    _linalg("solve", ((3, 3), (3,))),
    _linalg("lstsq", ((3, 2), (3,)), call=lambda a, b: V.linalg.lstsq(a, b)[0],
            ref=lambda a, b: np.linalg.lstsq(a, b)[0]),
    _linalg("matrix_power", ((3, 3),), call=lambda a: V.linalg.matrix_power(a, 3),
            ref=lambda a: np.linalg.matrix_power(a, 3)),
    Op("linalg.norm", V.linalg.norm, np.linalg.norm, ((2, 3),), empty=((2, 0),)),
    *[Op("linalg.norm", lambda x, o=o, a=a: V.linalg.norm(x, o, a),
         lambda x, o=o, a=a: np.linalg.norm(x, o, a), ((2, 3),), f"ord={o} axis={a}",
         empty=((2, 0),), zero_d=None)
      for o, a in [(1, 1), (np.inf, -1), ("fro", None), ("nuc", None), (2, None)]],
    # ----- variable: quantiles (quantiles.py) -------------------------------------------------
    *_reduction("median", V.median, np.median), *_reduction("ptp", V.ptp, np.ptp),
    *[Op(n, lambda a, n=n, k=k: getattr(V, n)(a, **k), lambda a, n=n, k=k: getattr(np, n)(a, **k), ((2, 3),),
         " ".join(f"{name}={v}" for name, v in k.items()), empty=((2, 0),), zero_d=zero_d)
      for n, scale in [("quantile", 1), ("percentile", 100)]
      for k, zero_d in [({"q": 0.3 * scale}, "all 0-d"),
                        ({"q": [0.25 * scale, 0.6 * scale], "axis": 1, "keepdims": True}, None),
                        ({"q": 0.6 * scale, "axis": -1, "method": "nearest"}, None),
                        ({"q": [], "axis": 0}, None)]],
    # ----- variable: signals and curves (signal.py) -------------------------------------------
    Op("convolve", V.convolve, np.convolve, ((3,), (2,)), empty=((0,), (2,))),
    Op("convolve", lambda a, v: V.convolve(a, v, "same"), lambda a, v: np.convolve(a, v, "same"),
       ((2,), (4,)), "same, v longer", empty=((2,), (0,))),
    Op("correlate", V.correlate, np.correlate, ((4,), (2,)), empty=((0,), (2,))),
    Op("correlate", lambda a, v: V.correlate(a, v, "full"), lambda a, v: np.correlate(a, v, "full"),
       ((2,), (3,)), "full, v longer", empty=((2,), (0,))),
    Op("interp", V.interp, np.interp, ((2, 3), (4,), (4,)), domain=("real", "increasing", "real"),
       empty=((0,), (4,), (4,)), zero_d=((), (4,), (4,))),
    Op("interp", lambda x, xp, fp: V.interp(x, xp, fp, left=-5.0, right=5.0),
       lambda x, xp, fp: np.interp(x, xp, fp, left=-5.0, right=5.0), ((2, 3), (4,), (4,)), "left, right",
       domain=("real", "increasing", "real"), empty=((2, 0), (4,), (4,)), zero_d=None),
    Op("interp", lambda x, xp, fp: V.interp(x, xp, fp, period=1.5),
       lambda x, xp, fp: np.interp(x, xp, fp, period=1.5), ((2, 3), (4,), (4,)), "period",
       empty=((0,), (4,), (4,)), zero_d=((), (4,), (4,))),
    Op("trapezoid", V.trapezoid, np.trapezoid, ((2, 3),), empty=((2, 0),)),
    Op("trapezoid", lambda y, x: V.trapezoid(y, x, axis=0), lambda y, x: np.trapezoid(y, x, axis=0),
       ((2, 3), (2,)), "x, axis=0", empty=((0, 3), (0,)), zero_d=None, nullable=(1,)),
    Op("trapezoid", lambda y, x: V.trapezoid(y, x), lambda y, x: np.trapezoid(y, x), ((2, 3), (2, 3)),
       "x of y's shape", empty=((2, 0), (2, 0)), zero_d=None, nullable=(1,)),
    Op("polyval", V.polyval, R.polyval, ((3,), (2, 3)), empty=((0,), (2, 3)), zero_d=((3,), ())),
    Op("polyval", V.polyval, R.polyval, ((2, 3), (2, 3)), "2-D p", empty=((2, 3), (0, 3)),
       zero_d=((2, 1), ())),
    # ----- variable: powers, the step, grids (powers.py, rounding.py, grids.py) --------------
    _ufunc("cbrt"), _ufunc("float_power", ("positive", "real")), _ufunc("heaviside"),
    Op("meshgrid", lambda x, y: V.meshgrid(x, y), lambda x, y: tuple(np.meshgrid(x, y)), ((2,), (3,)),
       empty=((0,), (3,))),
    Op("meshgrid", lambda x, y, z: V.meshgrid(x, y, z, indexing="ij", sparse=True),
       lambda x, y, z: tuple(np.meshgrid(x, y, z, indexing="ij", sparse=True)), ((2,), (3,), (1, 2)),
       "ij sparse", empty=((2,), (0,), (1, 2))),
    Op("broadcast_arrays", lambda a, b: V.broadcast_arrays(a, b),
       lambda a, b: tuple(np.broadcast_arrays(a, b)), ((2, 3), (3,)), empty=((0, 3), (3,))),
    Op("broadcast_arrays", lambda a, b, c: V.broadcast_arrays(a, b, c),
       lambda a, b, c: tuple(np.broadcast_arrays(a, b, c)), ((2, 1), (3,), ()), "three",
       empty=((0, 1), (3,), ())),
    # ----- variable: nan-functions (nanfunctions.py) ------------------------------------------
    *[r for n in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin")
      for r in _reduction(n, getattr(V, n), getattr(np, n))],
    Op("nanvar", lambda x: V.nanvar(x, axis=0, ddof=1), lambda x: np.nanvar(x, axis=0, ddof=1), ((2, 3),),
       "axis=0 ddof=1", empty=((0, 3),), zero_d=None),
    Op("nanstd", lambda x: V.nanstd(x, axis=-1, ddof=3), lambda x: np.nanstd(x, axis=-1, ddof=3), ((2, 3),),
       "ddof=count", empty=((2, 0),), zero_d=None),
    *[Op(n, lambda x, n=n: getattr(V, n)(x, axis=1, initial=0.5),
         lambda x, n=n: getattr(np, n)(x, axis=1, initial=0.5), ((2, 3),), "initial", empty=((2, 0),),
         zero_d=None) for n in ("nanmax", "nanmin", "nansum", "nanprod")],
    *[Op(n, lambda x, n=n: getattr(V, n)(x, axis=1, where=COND, initial=0.5),
         lambda x, n=n: getattr(np, n)(x, axis=1, where=COND, initial=0.5), ((2, 3),), "where initial",
         empty=((0, 3),), zero_d=None) for n in ("nanmax", "nanmin", "nanprod")],
    *[Op(n, lambda x, n=n: getattr(V, n)(x, axis=-1, where=COND),
         lambda x, n=n: getattr(np, n)(x, axis=-1, where=COND), ((2, 3),), "where", empty=((0, 3),),
         zero_d=None) for n in ("nanvar", "nanstd")],
    *[Op(n, getattr(V, n), getattr(np, n), ((2, 3),), "flat", empty=((2, 0),))
      for n in ("nancumsum", "nancumprod")],
    *[Op(n, lambda x, n=n: getattr(V, n)(x, axis=-1), lambda x, n=n: getattr(np, n)(x, axis=-1), ((2, 3),),
         "axis=-1", empty=((2, 0),), zero_d=None) for n in ("nancumsum", "nancumprod")],
    # (nanmedian, nanquantile, nanpercentile: quantiles.py)
    *_reduction("nanmedian", V.nanmedian, np.nanmedian),
    *[Op(n, lambda a, n=n, k=k: getattr(V, n)(a, **k), lambda a, n=n, k=k: getattr(np, n)(a, **k), ((2, 3),),
         " ".join(f"{name}={v}" for name, v in k.items()), empty=((2, 0),), zero_d=zero_d)
      for n, scale in [("nanquantile", 1), ("nanpercentile", 100)]
      for k, zero_d in [({"q": 0.3 * scale}, "all 0-d"),
                        ({"q": [0.25 * scale, 0.6 * scale], "axis": 1, "keepdims": True}, None),
                        ({"q": 0.6 * scale, "axis": -1, "method": "nearest"}, None)]],
    # ----- variable: covariance and correlation (statistics.py) -------------------------------
    *[Op(n, getattr(V, n), getattr(np, n), ((2, 3),), empty=((2, 0),)) for n in ("cov", "corrcoef")],
    *[Op(n, lambda m, y, n=n: getattr(V, n)(m, y, rowvar=False),
         lambda m, y, n=n: getattr(np, n)(m, y, rowvar=False), ((3, 2), (3,)), "y, rowvar=False",
         empty=((0, 2), (0,)), zero_d=None, nullable=(1,))
      for n in ("cov", "corrcoef")],
    Op("cov", lambda m, w: V.cov(m, aweights=w), lambda m, w: np.cov(m, aweights=w), ((2, 3), (3,)),
       "aweights", domain=("real", "positive"), empty=((2, 0), (0,)), zero_d=None, nullable=(1,),
       errors=ARG_ERRORS + (ZeroDivisionError,)),                     # as NumPy: weights summing to 0
    Op("cov", lambda m, f: V.cov(m, fweights=f, ddof=0), lambda m, f: np.cov(m, fweights=f, ddof=0),
       ((2, 3), (3,)), "fweights", domain=("real", "index:3"), empty=((2, 0), (0,)), zero_d=None,
       nullable=(1,), errors=ARG_ERRORS + (ZeroDivisionError,)),
    # ----- variable: the Array API's names (array_api.py) -------------------------------------
    *[Op(n, getattr(V, n), getattr(np, n), ((3,),), empty=((0,),))
      for n in ("cumulative_sum", "cumulative_prod")],
    *[Op(n, lambda x, n=n: getattr(V, n)(x, axis=0, include_initial=True),
         lambda x, n=n: getattr(np, n)(x, axis=0, include_initial=True), ((2, 3),), "axis=0 include_initial",
         empty=((0, 3),), zero_d=None) for n in ("cumulative_sum", "cumulative_prod")],
    Op("vecdot", V.vecdot, np.vecdot, ((2, 3), (3,)), empty=((0, 3), (3,))),
    Op("vecdot", lambda a, b: V.vecdot(a, b, axis=0), lambda a, b: np.vecdot(a, b, axis=0), ((3, 2), (3, 1)),
       "axis=0", empty=((3, 0), (3, 1)), zero_d=None),
    Op("matrix_transpose", V.matrix_transpose, np.matrix_transpose, ((2, 3),), empty=((2, 0),)),
    Op("permute_dims", lambda x: V.permute_dims(x, (1, 0)), lambda x: np.permute_dims(x, (1, 0)), ((2, 3),),
       empty=((2, 0),)),
    Op("permute_dims", V.permute_dims, np.permute_dims, ((2, 3),), "axes None", empty=((2, 0),)),
    Op("unstack", lambda x: V.unstack(x), lambda x: tuple(np.unstack(x)), ((2, 3),), empty=((2, 0),)),
    Op("unstack", lambda x: V.unstack(x, axis=-1), lambda x: tuple(np.unstack(x, axis=-1)), ((2, 3),),
       "axis=-1, empty axis", empty=((2, 0),), zero_d=None),
    Op("diagflat", V.diagflat, np.diagflat, ((2, 3),), empty=((2, 0),)),
    Op("diagflat", lambda v: V.diagflat(v, -1), lambda v: np.diagflat(v, -1), ((3,),), "k=-1", empty=((0,),)),
    Op("unwrap", V.unwrap, np.unwrap, ((2, 3),), empty=((2, 0),)),
    Op("unwrap", lambda p: V.unwrap(p, axis=0, period=1.5), lambda p: np.unwrap(p, axis=0, period=1.5),
       ((3, 2),), "axis=0 period", empty=((0, 2),), zero_d=None),
    Op("delete", lambda a: V.delete(a, 1, axis=1), lambda a: np.delete(a, 1, axis=1), ((2, 3),),
       empty=((0, 3),), zero_d=None),
    Op("delete", lambda a: V.delete(a, [0, -1]), lambda a: np.delete(a, [0, -1]), ((2, 3),), "flat",
       empty=((1, 2),)),
    Op("insert", lambda a, v: V.insert(a, 1, v, axis=1), lambda a, v: np.insert(a, 1, v, axis=1),
       ((2, 3), (2,)), empty=((0, 3), (0,)), zero_d=None),
    Op("insert", lambda a, v: V.insert(a, [0, 2], v), lambda a, v: np.insert(a, [0, 2], v), ((2, 3), ()),
       "flat", empty=((2, 0), ()), errors=ARG_ERRORS + (IndexError,)),   # as NumPy: position 2 of 0 or 1
    Op("block", lambda a, b: V.block([[a, b]]), lambda a, b: np.block([[a, b]]), ((2, 3), (2, 1)),
       empty=((2, 0), (2, 0))),
    Op("block", lambda a, b, c: V.block([[a, b], [c]]), lambda a, b, c: np.block([[a, b], [c]]),
       ((1, 2), (1, 1), (3,)), "two rows", empty=((0, 2), (0, 1), (3,))),
    Op("ediff1d", V.ediff1d, np.ediff1d, ((2, 3),), empty=((2, 0),)),
    Op("ediff1d", lambda a, b, e: V.ediff1d(a, to_end=e, to_begin=b),
       lambda a, b, e: np.ediff1d(a, to_end=e, to_begin=b), ((2, 3), (2,), ()), "to_begin, to_end",
       empty=((0,), (0,), ()), nullable=(1, 2)),
    Op("linspace", lambda a, b: V.linspace(a, b, 4), lambda a, b: np.linspace(a, b, 4), ((3,), (2, 1)),
       empty=((0,), (2, 1))),
    Op("linspace", lambda a, b: V.linspace(a, b, 3, endpoint=False, retstep=True, axis=-1),
       lambda a, b: np.linspace(a, b, 3, endpoint=False, retstep=True, axis=-1), ((2,), ()),
       "endpoint=False retstep axis=-1", empty=((0,), ())),
    Op("linspace", lambda a, b: V.linspace(a, b, 1, retstep=True),
       lambda a, b: np.linspace(a, b, 1, retstep=True),
       ((2,), (2,)), "num=1 retstep", empty=((0,), (0,))),
    Op("logspace", lambda a, b: V.logspace(a, b, 4), lambda a, b: np.logspace(a, b, 4), ((3,), (2, 1)),
       empty=((0,), (2, 1))),
    Op("logspace", lambda a, b, c: V.logspace(a, b, 3, base=c, axis=1),
       lambda a, b, c: np.logspace(a, b, 3, base=c, axis=1), ((), (2,), (2,)), "base array axis=1",
       domain=("real", "real", "positive"), empty=((), (0,), (0,)), zero_d=None),
    Op("geomspace", lambda a, b: V.geomspace(a, b, 4), lambda a, b: np.geomspace(a, b, 4), ((3,), (2, 1)),
       domain=("positive", "positive"), empty=((0,), (2, 1))),
    Op("geomspace", lambda a, b: V.geomspace(a, b, 3, endpoint=False, axis=-1),
       lambda a, b: np.geomspace(a, b, 3, endpoint=False, axis=-1), ((2,), ()), "endpoint=False axis=-1",
       domain=("nonzero", "nonzero"), empty=((0,), ())),
    Op("unique", V.unique, np.unique, ((2, 3),), empty=((2, 0),)),
    Op("unique", lambda a: _all_variables(V.unique(a, True, True, True, axis=0)),
       lambda a: np.unique(a, True, True, True, axis=0), ((3, 2),), "every output, axis=0", empty=((0, 2),),
       zero_d=None),
    # ----- variable: np.linalg's Array API functions (linalg_api.py) --------------------------
    Op("linalg.vector_norm", V.linalg.vector_norm, np.linalg.vector_norm, ((2, 3),), empty=((2, 0),)),
    *[Op("linalg.vector_norm", lambda x, o=o, a=a: V.linalg.vector_norm(x, ord=o, axis=a),
         lambda x, o=o, a=a: np.linalg.vector_norm(x, ord=o, axis=a), ((2, 3),), f"ord={o} axis={a}",
         empty=((2, 0),), zero_d=None)
      for o, a in [(1, 1), (np.inf, -1), (-np.inf, (0, 1)), (0, None), (3, (0, 1)), (0.5, 0)]],
    *[Op("linalg.matrix_norm", lambda x, o=o: V.linalg.matrix_norm(x, ord=o),
         lambda x, o=o: np.linalg.matrix_norm(x, ord=o), ((2, 3),), f"ord={o}", empty=((2, 0),), zero_d=None)
      for o in ("fro", "nuc", 1, -np.inf, 2, -2)],
    _linalg("svdvals", ((2, 3),)), _linalg("svdvals", ((3, 3),), variant="square"),
    _linalg("cond", ((3, 3),)),
    *[_linalg("cond", ((3, 3),), call=lambda a, p=p: V.linalg.cond(a, p),
              ref=lambda a, p=p: np.linalg.cond(a, p), variant=f"p={p}") for p in ("fro", 1, -2)],
    Op("linalg.trace", V.linalg.trace, np.linalg.trace, ((2, 3),), empty=((2, 0),)),
    Op("linalg.diagonal", lambda x: V.linalg.diagonal(x, offset=1), lambda x: np.linalg.diagonal(x, offset=1),
       ((2, 2, 3),), empty=((2, 0, 3),)),
    Op("linalg.cross", V.linalg.cross, np.linalg.cross, ((2, 3), (3,)), empty=((0, 3), (3,))),
    Op("linalg.outer", V.linalg.outer, np.linalg.outer, ((2,), (3,)), empty=((0,), (3,))),
    Op("linalg.tensordot", lambda a, b: V.linalg.tensordot(a, b, axes=1),
       lambda a, b: np.linalg.tensordot(a, b, axes=1), ((2, 3), (3, 4)), empty=((2, 0), (0, 4))),
    Op("linalg.matrix_transpose", V.linalg.matrix_transpose, np.linalg.matrix_transpose, ((2, 3),),
       empty=((2, 0),)),
    Op("linalg.vecdot", V.linalg.vecdot, np.linalg.vecdot, ((2, 3), (3,)), empty=((0, 3), (3,))),
    Op("linalg.multi_dot", lambda a, b, c: V.linalg.multi_dot([a, b, c]),
       lambda a, b, c: np.linalg.multi_dot([a, b, c]), ((3,), (3, 4), (4, 2)), empty=((0,), (0, 4), (4, 2)),
       zero_d=None),
    Op("linalg.multi_dot", lambda a, b: V.linalg.multi_dot([a, b]), lambda a, b: np.linalg.multi_dot([a, b]),
       ((2, 3), (3,)), "two", empty=((2, 0), (0,))),
    # ----- variable.ops.polynomials (rows of this family only, above its END line) -----------------
    Op("polyadd", V.polyadd, np.polyadd, ((3,), (2,)), empty=((0,), (2,))),
    Op("polysub", V.polysub, np.polysub, ((3,), (2,)), empty=((0,), (2,))),
    Op("polymul", V.polymul, np.polymul, ((3,), (2,)), empty=((0,), (2,))),
    Op("polyder", lambda p: V.polyder(p, 2), lambda p: np.polyder(p, 2), ((4,),), empty=((0,),), zero_d=None),
    Op("polyint", lambda p: V.polyint(p, 2, k=[1.0, 2.0]), lambda p: np.polyint(p, 2, k=[1.0, 2.0]), ((3,),),
       empty=((0,),), zero_d=None),
    Op("polydiv", V.polydiv, np.polydiv, ((4,), (2,)), domain=("real", "nonzero"), empty=((0,), (2,))),
    Op("polyfit", lambda x, y: V.polyfit(x, y, 1), lambda x, y: np.polyfit(x, y, 1), ((4,), (4,)),
       domain=("increasing", "real"), empty=((0,), (0,)), zero_d=None),
    Op("vander", V.vander, np.vander, ((3,),), empty=((0,),), zero_d=None),
    Op("poly", V.poly, np.poly, ((3,),), empty=((0,),), zero_d=None),
    Op("roots", V.roots, np.roots, ((4,),), domain=("real_rooted",), empty=((0,),), zero_d=None),
    Op("matvec", V.matvec, np.matvec, ((2, 3), (3,)), empty=((0, 3), (3,))),
    Op("vecmat", V.vecmat, np.vecmat, ((3,), (3, 2)), empty=((0,), (0, 2))),
    Op("linalg.tensorsolve", V.linalg.tensorsolve, np.linalg.tensorsolve, ((4, 4), (4,)),
       domain=("spd", "real"), empty=((0, 0), (0,)), zero_d=None),
    Op("linalg.tensorinv", lambda a: V.linalg.tensorinv(a, 1), lambda a: np.linalg.tensorinv(a, 1), ((3, 3),),
       domain=("spd",), empty=((0, 0),), zero_d=None),
    # END polynomials
    # ----- variable.ops.division (rows of this family only, above its END line) -----------------
    *[_ufunc(n, ("real", "nonzero")) for n in ("floor_divide", "divmod")],
    *[_ufunc(n) for n in ("modf", "spacing")],
    Op("ldexp", V.ldexp, np.ldexp, ((2, 3), (3,)), domain=("real", "index:4"), empty=((0, 3), (3,))),
    Op("frexp", lambda x: _all_variables(V.frexp(x)), np.frexp, ((2, 3),), empty=((2, 0),)),
    _elementwise(V.angle, np.angle),
    _elementwise(lambda x: V.angle(x, deg=True), lambda x: np.angle(x, deg=True), "angle", variant="deg"),
    _elementwise(V.real_if_close, np.real_if_close),
    # np.i0(+-inf) is NaN with a warning (it divides inf by inf); V.i0 gives the limit, inf
    _elementwise(V.i0, lambda x: np.where(np.isinf(x), np.inf, np.i0(np.where(np.isinf(x), 0.0, x))), "i0"),
    # END division
    # ----- variable.ops.sets (rows of this family only, above its END line) -----------------
    *[Op(n, getattr(V, n), getattr(np, n), ((2, 3), (3,)), empty=((2, 0), (0,))) for n in (
        "union1d", "intersect1d", "setdiff1d", "setxor1d")],
    Op("intersect1d", lambda a, b: V.intersect1d(a, b, return_indices=True)[0],
       lambda a, b: np.intersect1d(a, b, return_indices=True)[0], ((2, 3), (3,)), "return_indices",
       empty=((2, 0), (0,))),
    *[Op(n, lambda a, b, n=n: getattr(V, n)(a, b, assume_unique=True),
         lambda a, b, n=n: getattr(np, n)(a, b, assume_unique=True), ((2, 3), (3,)), "assume_unique",
         empty=((2, 0), (0,))) for n in ("intersect1d", "setdiff1d", "setxor1d")],
    Op("unique_values", V.unique_values, lambda x: np.sort(np.unique_values(x)), ((2, 3),), empty=((2, 0),)),
    *[Op(n, lambda x, n=n: getattr(V, n)(x).values, lambda x, n=n: getattr(np, n)(x).values, ((2, 3),),
         empty=((2, 0),)) for n in ("unique_counts", "unique_inverse", "unique_all")],
    Op("trim_zeros", V.trim_zeros, np.trim_zeros, ((2, 3),), empty=((2, 0),)),
    Op("trim_zeros", lambda x: V.trim_zeros(x, "b", 1), lambda x: np.trim_zeros(x, "b", 1), ((2, 3),),
       "trim b axis 1", empty=((2, 0),), zero_d=None),
    Op("compress", lambda a: V.compress([True, False, True], a, axis=1),
       lambda a: np.compress([True, False, True], a, axis=1), ((2, 3),), "axis=1", empty=((0, 3),),
       zero_d=None),
    Op("compress", lambda a: V.compress([True, False], a), lambda a: np.compress([True, False], a), ((2, 3),),
       "flat", empty=((2, 0),), errors=ARG_ERRORS + (IndexError,)),   # empty a: True past its end, as NumPy
    Op("extract", lambda a: V.extract([[True, False, True], [False, True, True]], a),
       lambda a: np.extract([[True, False, True], [False, True, True]], a), ((2, 3),), empty=None,
       zero_d=None),
    Op("extract", lambda a: V.extract([1, 0], a), lambda a: np.extract([1, 0], a), ((2, 3),), "short",
       empty=((2, 0),), errors=ARG_ERRORS + (IndexError,)),
    Op("choose", lambda a, b: V.choose([[0, 1, 1], [1, 0, 0]], [a, b]),
       lambda a, b: np.choose([[0, 1, 1], [1, 0, 0]], [a, b]), ((2, 3), (3,)), empty=None),
    Op("choose", lambda a, b: V.choose(np.zeros((0, 3), int), [a, b], mode="wrap"),
       lambda a, b: np.choose(np.zeros((0, 3), int), [a, b], mode="wrap"), ((2, 3), (3,)), "mode=wrap",
       empty=((0, 3), (0,)), zero_d=None),
    Op("choose", lambda a: V.choose([0, 2, 1], a), lambda a: np.choose([0, 2, 1], a), ((3, 3),), "stacked",
       empty=((3, 0),), zero_d=None),
    Op("resize", lambda a: V.resize(a, (3, 4)), lambda a: np.resize(a, (3, 4)), ((2, 3),), empty=((2, 0),)),
    Op("sliding_window_view", lambda x: V.sliding_window_view(x, 2, axis=1),
       lambda x: np.lib.stride_tricks.sliding_window_view(x, 2, axis=1), ((2, 3),), empty=((0, 3),),
       zero_d=None),
    Op("sliding_window_view", lambda x: V.sliding_window_view(x, (1, 2)),
       lambda x: np.lib.stride_tricks.sliding_window_view(x, (1, 2)), ((2, 3),), "all axes",
       empty=((2, 0),), zero_d=None),
    # END sets
    # ----- variable.ops.histograms (rows of this family only, above its END line) -----------------
    # (integer counts come back as plain arrays, as V.unique's: made Variables for the comparison)
    Op("histogram", lambda a: (lambda h, e: (V.as_variable(h), e))(*V.histogram(a, 3)),
       lambda a: np.histogram(a, 3), ((2, 3),), empty=((2, 0),)),
    Op("histogram", lambda a, w: V.histogram(a, 3, density=True, weights=w),
       lambda a, w: np.histogram(a, 3, density=True, weights=w), ((2, 3), (2, 3)), "weights density",
       empty=((2, 0), (2, 0)), nullable=(1,)),
    Op("histogram", lambda a: (lambda h, e: (V.as_variable(h), e))(*V.histogram(a, [-1.0, 0.0, 0.0, 1.5])),
       lambda a: np.histogram(a, [-1.0, 0.0, 0.0, 1.5]), ((2, 3),), "edges", empty=((2, 0),)),
    Op("histogram", lambda a, w: V.as_variable(V.histogram(a, 2, range=(-1, 1), weights=w)[0]),
       lambda a, w: np.histogram(a, 2, range=(-1, 1), weights=w)[0], ((2, 3), (2, 3)), "range weights",
       empty=((0, 3), (0, 3)), nullable=(1,)),
    Op("histogram_bin_edges", lambda a: V.histogram_bin_edges(a, "auto"),
       lambda a: np.histogram_bin_edges(a, "auto"), ((2, 3),), empty=((2, 0),)),
    Op("histogram_bin_edges", lambda a: V.histogram_bin_edges(a, 4, (-1, 1)),
       lambda a: np.histogram_bin_edges(a, 4, (-1, 1)), ((2, 3),), "range", empty=((2, 0),)),
    Op("histogram2d", lambda x, y: V.histogram2d(x, y, 2), lambda x, y: np.histogram2d(x, y, 2), ((4,), (4,)),
       empty=((0,), (0,)), zero_d=None),
    Op("histogram2d", lambda x, y, w: V.histogram2d(x, y, [2, 3], density=True, weights=w),
       lambda x, y, w: np.histogram2d(x, y, [2, 3], density=True, weights=w), ((4,), (4,), (4,)),
       "weights density", empty=((0,), (0,), (0,)), zero_d=None, nullable=(2,)),
    Op("histogramdd", lambda s: (lambda h, e: (h, *e))(*V.histogramdd(s, 2)),
       lambda s: (lambda h, e: (h, *e))(*np.histogramdd(s, 2)), ((4, 2),), empty=((0, 2),)),
    Op("histogramdd", lambda s, w: V.histogramdd(s, (2, [-1.0, 0.0, 1.5]), weights=w)[0],
       lambda s, w: np.histogramdd(s, (2, [-1.0, 0.0, 1.5]), weights=w)[0], ((3, 2), (3,)), "edges weights",
       empty=((0, 2), (0,)), zero_d=None, nullable=(1,)),
    Op("piecewise", lambda x: V.piecewise(x, [np.array([[True, False, True], [False, False, True]])],
                                          [lambda v: 2 * v, lambda v: v * v]),
       lambda x: np.piecewise(x, [np.array([[True, False, True], [False, False, True]])],
                              [lambda v: 2 * v, lambda v: v * v]), ((2, 3),), empty=None, zero_d=None),
    Op("piecewise", lambda x: V.piecewise(x, [True, False], [lambda v: v * v, 1.5]),
       lambda x: np.piecewise(x, [True, False], [lambda v: v * v, 1.5]), ((),), "0-d", empty=None),
    Op("apply_along_axis", lambda a: V.apply_along_axis(lambda v: v * v, 1, a),
       lambda a: np.apply_along_axis(lambda v: v * v, 1, a), ((2, 3),), empty=((2, 0),), zero_d=None),
    Op("apply_along_axis", lambda a: V.apply_along_axis(V.sum, 0, a),
       lambda a: np.apply_along_axis(np.sum, 0, a), ((2, 3),), "scalar results", empty=((2, 0),),
       zero_d=None),
    Op("apply_over_axes", lambda a: V.apply_over_axes(V.sum, a, [0, 1]),
       lambda a: np.apply_over_axes(np.sum, a, [0, 1]), ((2, 3),), empty=((2, 0),), zero_d=None),
    # END histograms
]


def _all_variables(outputs):
    """unique's outputs with its integer arrays as (constant) Variables, for the comparison."""
    return tuple(y if isinstance(y, V.Variable) else V.as_variable(y, op="unique") for y in outputs)


def _in_test_mode(fn, *args):
    with V.test_mode():
        return fn(*args)


# ----- hand-written cases ---------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """One call with its acceptable outcome: exception types (naming the op), or a result check."""

    op: str
    label: str
    call: Callable[[], object]
    raises: tuple = ARG_ERRORS
    check: Callable | None = None          # when given: the call must return, check(result) asserts
    names: tuple = field(default=())

    def all_names(self):
        return self.names or _names(self.op)


def _x(*shape):
    return V.Variable(np.random.default_rng(7).uniform(-1, 1, shape))


X23 = np.arange(6.0).reshape(2, 3) / 6


def _shape_is(shape):
    def check(y):
        assert isinstance(y, V.Variable), type(y)
        assert y.shape == shape, f"shape {y.shape}, expected {shape}"
    return check


def _equals(expected):
    def check(y):
        np.testing.assert_allclose(np.asarray(y.data), expected, rtol=1e-12, atol=1e-12)
    return check


def _sce(t):
    return F.softmax_cross_entropy(_x(2, 3), t)


AXES_BAD = {"axis 5": 5, "axis -5": -5, "repeated (0, 0)": (0, 0), "repeated (1, -1)": (1, -1),
            "bool axis": True, "float axis": 1.0, "str axis": "0"}


def _axis_cases(op, fn, one_axis=False):
    cases = [Case(op, label, lambda a=a: fn(a)) for label, a in AXES_BAD.items()]
    if one_axis:  # ops that take exactly one axis: a tuple or list is an error
        cases.append(Case(op, "axis (0, 1)", lambda: fn((0, 1))))
    return cases


EXTRA = [
    # shapes that do not broadcast or do not fit
    *[Case(f.__name__, "shapes (2, 3) and (4,)", lambda f=f: f(_x(2, 3), _x(4)))
      for f in (V.add, V.sub, V.mul, V.div, V.maximum, V.minimum)],
    Case("pow", "exponent of shape (2,) for base (3,)", lambda: V.pow(_x(3), np.ones(2))),
    Case("pow", "exponent a str", lambda: V.pow(_x(3), "2"), raises=(TypeError,)),
    Case("pow", "exponent a mixed list", lambda: V.pow(_x(3), [1.0, "a"])),
    Case("pow", "exponent complex", lambda: V.pow(_x(3), 1j)),
    Case("where", "condition (4,) for (2, 3)", lambda: V.where(np.ones(4, bool), _x(2, 3), 0.0)),
    Case("where", "integer condition", lambda: V.where(np.ones((2, 3), int), _x(2, 3), 0.0)),
    Case("where", "ragged condition", lambda: V.where([[True], [True, False]], _x(2), 0.0)),
    Case("clip", "bound of shape (4,)", lambda: V.clip(_x(2, 3), np.zeros(4), 1.0)),
    Case("clip", "no bounds", lambda: V.clip(_x(2, 3), None, None)),
    Case("clip", "str bound", lambda: V.clip(_x(2, 3), "0", 1.0), raises=(TypeError,)),
    Case("clip", "lo > hi gives hi, as np.clip", lambda: V.clip(V.Variable(X23), 1.0, 0.0), raises=(),
         check=_equals(np.clip(X23, 1.0, 0.0))),
    Case("matmul", "(2, 3) @ (2, 3)", lambda: V.matmul(_x(2, 3), _x(2, 3))),
    Case("matmul", "batch dims (2,) and (3,)", lambda: V.matmul(_x(2, 2, 3), _x(3, 3, 2))),
    Case("matmul", "0-d operand", lambda: V.matmul(_x(), _x(3))),
    Case("transpose_matmul", "(2, 3)^T @ (3, 3)", lambda: V.transpose_matmul(_x(2, 3), _x(3, 3))),
    Case("transpose_matmul", "1-D first operand", lambda: V.transpose_matmul(_x(3), _x(3))),
    Case("transpose_matmul", "0-d second operand", lambda: V.transpose_matmul(_x(3, 2), _x())),
    # reshape family
    Case("reshape", "size 6 into (4, 2)", lambda: V.reshape(_x(2, 3), (4, 2))),
    Case("reshape", "two -1", lambda: V.reshape(_x(2, 3), (-1, -1))),
    Case("reshape", "negative sizes", lambda: V.reshape(_x(2, 3), (-2, -3))),
    Case("reshape", "float size", lambda: V.reshape(_x(2, 3), (3.0, 2)), raises=(TypeError,)),
    Case("reshape", "shape None", lambda: V.reshape(_x(2, 3), None), raises=(TypeError,)),
    Case("transpose", "axes not a permutation", lambda: V.transpose(_x(2, 3), (0, 0))),
    Case("transpose", "axis out of range", lambda: V.transpose(_x(2, 3), (0, 5))),
    Case("transpose", "float axes", lambda: V.transpose(_x(2, 3), (1.0, 0.0)), raises=(TypeError,)),
    Case("squeeze", "axis of size 3", lambda: V.squeeze(_x(2, 3), 0)),
    *_axis_cases("squeeze", lambda a: V.squeeze(_x(1, 1), a)),
    # expand_dims takes a tuple, as np.expand_dims: its axes index the result (4-D here)
    *[Case("expand_dims", label, lambda a=a: V.expand_dims(_x(2, 3), a))
      for label, a in [*[(k, v) for k, v in AXES_BAD.items() if k != "repeated (1, -1)"],
                       ("repeated (1, -3)", (1, -3)), ("axes (0, 4) past the result's 4", (0, 4))]],
    Case("expand_dims", "axes (1, -1), as np.expand_dims", lambda: V.expand_dims(V.Variable(X23), (1, -1)),
         raises=(), check=_equals(np.expand_dims(X23, (1, -1)))),
    Case("expand_dims", "axis None", lambda: V.expand_dims(_x(2, 3), None)),
    Case("broadcast_to", "(2, 3) to (3, 3)", lambda: V.broadcast_to(_x(2, 3), (3, 3))),
    Case("broadcast_to", "to a negative size", lambda: V.broadcast_to(_x(2, 3), (-1, 3))),
    Case("broadcast_to", "to a str", lambda: V.broadcast_to(_x(2, 3), "ab"), raises=(TypeError,)),
    Case("sum_to", "(2, 3) to (4,)", lambda: V.sum_to(_x(2, 3), (4,))),
    Case("sum_to", "(3,) to (2, 3)", lambda: V.sum_to(_x(3), (2, 3))),
    # indexing
    Case("get_item", "index 5 of size 2", lambda: V.get_item(_x(2, 3), 5), raises=(IndexError,)),
    Case("get_item", "too many indices", lambda: V.get_item(_x(2, 3), (0, 0, 0)), raises=(IndexError,)),
    Case("get_item", "mask of the wrong size", lambda: V.get_item(_x(2, 3), np.ones(4, bool)),
         raises=(IndexError,)),
    Case("get_item", "float index array", lambda: V.get_item(_x(2, 3), np.array([0.5])),
         raises=(IndexError,)),
    Case("get_item", "str index", lambda: V.get_item(_x(2, 3), "a"), raises=(IndexError, TypeError)),
    Case("get_item", "ragged list index", lambda: V.get_item(_x(2, 3), [[0, 1], [0]]),
         raises=(IndexError, TypeError, ValueError)),
    # joining
    Case("concat", "shapes differ off the axis", lambda: V.concat([_x(2, 3), _x(2, 4)])),
    Case("concat", "ndim differ", lambda: V.concat([_x(2, 3), _x(3)])),
    Case("concat", "empty list", lambda: V.concat([]), raises=(TypeError, ValueError)),
    Case("concat", "a str instead of a list", lambda: V.concat("ab"), raises=(TypeError,)),
    Case("concat", "a Variable instead of a list", lambda: V.concat(_x(2, 3)), raises=(TypeError,)),
    *_axis_cases("concat", lambda a: V.concat([_x(2, 3), _x(2, 3)], axis=a), one_axis=True),
    Case("concat", "axis None", lambda: V.concat([_x(2, 3), _x(2, 3)], axis=None)),
    Case("stack", "shapes differ", lambda: V.stack([_x(2, 3), _x(2, 4)])),
    Case("stack", "empty list", lambda: V.stack([]), raises=(TypeError, ValueError)),
    Case("stack", "a str instead of a list", lambda: V.stack("ab"), raises=(TypeError,)),
    *_axis_cases("stack", lambda a: V.stack([_x(2, 3), _x(2, 3)], axis=a), one_axis=True),
    Case("stack", "axis None", lambda: V.stack([_x(2, 3), _x(2, 3)], axis=None)),
    Case("split", "5 into 2 equal parts", lambda: V.split(_x(5), 2)),
    Case("split", "into 0 parts", lambda: V.split(_x(4), 0)),
    Case("split", "into -2 parts", lambda: V.split(_x(4), -2)),
    Case("split", "sections a float", lambda: V.split(_x(4), 2.0), raises=(TypeError,)),
    Case("split", "sections None", lambda: V.split(_x(4), None), raises=(TypeError,)),
    Case("split", "sections a str", lambda: V.split(_x(4), "ab"), raises=(TypeError,)),
    Case("split", "indices beyond the end, as np.split", lambda: V.split(V.Variable(np.arange(4.0)), [1, 9]),
         raises=(), check=lambda ys: [np.testing.assert_array_equal(y.data, r) for y, r in
                                       zip(ys, np.split(np.arange(4.0), [1, 9]), strict=True)]),
    *_axis_cases("split", lambda a: V.split(_x(2, 2), 1, axis=a), one_axis=True),
    Case("split", "axis None", lambda: V.split(_x(2, 2), 1, axis=None)),
    # reductions
    *[c for f in (V.sum, V.mean, V.variance, V.max, V.min, V.logsumexp)
      for c in _axis_cases(f.__name__, lambda a, f=f: f(_x(2, 3), axis=a))],
    # activations and their parameters
    *_axis_cases("softmax", lambda a: F.softmax(_x(2, 3), axis=a)),
    *_axis_cases("log_softmax", lambda a: F.log_softmax(_x(2, 3), axis=a)),
    *[Case(f.__name__, f"alpha {label}", lambda a=a, f=f: f(_x(2, 3), a), raises=r)
      for f in (F.leaky_relu, F.elu, F.celu)
      for label, a, r in [("str", "0.1", (TypeError,)), ("None", None, (TypeError,)),
                          ("nan", math.nan, ARG_ERRORS), ("array", np.ones(3), ARG_ERRORS)]],
    *[Case("celu", f"alpha {a}", lambda a=a: F.celu(_x(2, 3), a)) for a in (0.0, -1.0)],
    *[Case("group_norm", label, lambda k=k: F.group_norm(*k), raises=r) for label, k, r in [
        ("num_groups 3 for 4 channels", (_x(2, 4), 3, np.ones(4), np.zeros(4)), ARG_ERRORS),
        ("num_groups 0", (_x(2, 4), 0, np.ones(4), np.zeros(4)), ARG_ERRORS),
        ("num_groups 2.0", (_x(2, 4), 2.0, np.ones(4), np.zeros(4)), (TypeError,)),
        ("num_groups None", (_x(2, 4), None, np.ones(4), np.zeros(4)), (TypeError,)),
        ("gamma (2,) for 4 channels", (_x(2, 4), 2, np.ones(2), np.zeros(4)), ARG_ERRORS),
        ("x 1-d", (_x(4), 2, np.ones(4), np.zeros(4)), ARG_ERRORS),
        ("eps 0", (_x(2, 4), 2, np.ones(4), np.zeros(4), 0.0), ARG_ERRORS)]],
    *[Case("scaled_dot_product_attention", label, lambda k=k, kw=kw: F.scaled_dot_product_attention(*k, **kw),
           raises=r) for label, k, kw, r in [
        ("query and key features 4 and 3", (_x(2, 4), _x(5, 3), _x(5, 3)), {}, ARG_ERRORS),
        ("key 5 rows, value 4", (_x(2, 4), _x(5, 4), _x(4, 3)), {}, ARG_ERRORS),
        ("1-d query", (_x(4), _x(5, 4), _x(5, 3)), {}, ARG_ERRORS),
        ("batches 2 and 3", (_x(2, 2, 4), _x(3, 5, 4), _x(3, 5, 3)), {}, ARG_ERRORS),
        ("integer mask", (_x(2, 4), _x(5, 4), _x(5, 3)), {"attn_mask": np.ones((2, 5), int)}, (TypeError,)),
        ("mask (5, 2)", (_x(2, 4), _x(5, 4), _x(5, 3)), {"attn_mask": np.ones((5, 2), bool)}, ARG_ERRORS),
        ("mask with is_causal", (_x(2, 4), _x(5, 4), _x(5, 3)),
         {"attn_mask": np.ones((2, 5), bool), "is_causal": True}, ARG_ERRORS),
        ("scale str", (_x(2, 4), _x(5, 4), _x(5, 3)), {"scale": "0.5"}, (TypeError,)),
        ("dropout_p 1", (_x(2, 4), _x(5, 4), _x(5, 3)), {"dropout_p": 1.0}, ARG_ERRORS),
        ("dropout_p None", (_x(2, 4), _x(5, 4), _x(5, 3)), {"dropout_p": None}, (TypeError,))]],
    *[Case("prelu", f"weight {w.shape} for x (2, 3, 4)", lambda w=w: F.prelu(_x(2, 3, 4), w))
      for w in (np.ones(2), np.ones(4), np.ones((3, 1)), np.ones((1, 3)))],
    Case("prelu", "weight (3,) for x (3,)", lambda: F.prelu(_x(3), np.ones(3))),
    *_axis_cases("glu", lambda a: F.glu(_x(2, 4), axis=a), one_axis=True),
    Case("glu", "odd axis", lambda: F.glu(_x(2, 3))),
    Case("glu", "0-d", lambda: F.glu(_x())),
    *[Case("hard_tanh", label, lambda k=k: F.hard_tanh(_x(2, 3), **k), raises=r)
      for label, k, r in [("min_val a str", {"min_val": "-1"}, (TypeError,)),
                          ("max_val None", {"max_val": None}, (TypeError,)),
                          ("max_val inf", {"max_val": math.inf}, ARG_ERRORS),
                          ("min_val nan", {"min_val": math.nan}, ARG_ERRORS),
                          ("min_val = max_val", {"min_val": 0.5, "max_val": 0.5}, ARG_ERRORS),
                          ("min_val > max_val", {"min_val": 1.0, "max_val": -1.0}, ARG_ERRORS)]],
    *[Case("gelu", f"approximate {label}", lambda a=a: F.gelu(_x(2, 3), approximate=a))
      for label, a in [("'erf'", "erf"), ("None", None), ("True", True),
                       ("an array", np.array(["tanh", "none"]))]],
    # losses
    *[Case(f.__name__, "shapes (2, 3) and (3,)", lambda f=f: f(_x(2, 3), np.full(3, 0.5)))
      for f in (F.mean_squared_error, F.mean_absolute_error, F.huber_loss, F.log_cosh_loss,
                F.poisson_nll_loss, F.sigmoid_cross_entropy, F.binary_cross_entropy, F.hinge_loss)],
    Case("huber_loss", "delta 0", lambda: F.huber_loss(_x(3), _x(3), 0.0)),
    Case("huber_loss", "delta nan", lambda: F.huber_loss(_x(3), _x(3), math.nan)),
    Case("huber_loss", "delta a str", lambda: F.huber_loss(_x(3), _x(3), "1"), raises=(TypeError,)),
    Case("binary_cross_entropy", "p outside [0, 1]",
         lambda: F.binary_cross_entropy(np.full(3, 1.5), np.ones(3))),
    Case("binary_cross_entropy", "t outside [0, 1]",
         lambda: F.binary_cross_entropy(np.full(3, 0.5), -np.ones(3))),
    Case("sigmoid_cross_entropy", "t outside [0, 1]",
         lambda: F.sigmoid_cross_entropy(_x(3), np.full(3, 2.0))),
    Case("hinge_loss", "labels 0/1", lambda: F.hinge_loss(_x(3), np.array([0.0, 1.0, 1.0]))),
    Case("poisson_nll_loss", "negative counts", lambda: F.poisson_nll_loss(_x(3), -np.ones(3))),
    Case("softmax_cross_entropy", "label 3 of 3 classes", lambda: _sce(np.array([0, 3]))),
    Case("softmax_cross_entropy", "label -1", lambda: _sce(np.array([0, -1]))),
    Case("softmax_cross_entropy", "float labels", lambda: _sce(np.array([0.0, 1.0])), raises=(TypeError,)),
    Case("softmax_cross_entropy", "bool labels", lambda: _sce(np.array([True, False])), raises=(TypeError,)),
    Case("softmax_cross_entropy", "t of shape (3,)", lambda: _sce(np.array([0, 1, 2]))),
    Case("softmax_cross_entropy", "0-d logits", lambda: F.softmax_cross_entropy(_x(), np.array(0))),
    Case("cosine_similarity", "shapes that do not broadcast", lambda: F.cosine_similarity(_x(2, 3), _x(4))),
    *_axis_cases("cosine_similarity", lambda a: F.cosine_similarity(_x(2, 3), _x(2, 3), axis=a),
                 one_axis=True),
    Case("cosine_similarity", "eps -1", lambda: F.cosine_similarity(_x(2, 3), _x(2, 3), eps=-1.0)),
    Case("cosine_similarity", "eps a str", lambda: F.cosine_similarity(_x(2, 3), _x(2, 3), eps="1")),
    Case("cosine_similarity", "x (2, 1) broadcast against y (2, 3) is the cosine of the broadcast vectors",
         lambda: F.cosine_similarity(np.array([[1.0], [2.0]]), np.ones((2, 3))), raises=(),
         check=_equals(R.cosine_similarity(np.array([[1.0], [2.0]]), np.ones((2, 3))))),
    Case("cosine_similarity", "0-d x broadcast against y (2, 3)",
         lambda: F.cosine_similarity(np.array(2.0), X23 + 1), raises=ARG_ERRORS,
         check=_equals(R.cosine_similarity(np.array(2.0), X23 + 1))),
    # layers as functions
    Case("linear", "W 1-D", lambda: F.linear(_x(2, 3), _x(3))),
    Case("linear", "x (2, 3) with W (4, 2)", lambda: F.linear(_x(2, 3), _x(4, 2))),
    Case("linear", "b of shape (3,) for W (3, 4)", lambda: F.linear(_x(2, 3), _x(3, 4), _x(3))),
    *[Case("dropout", f"p {label}", lambda p=p: F.dropout(_x(2, 3), p), raises=r)
      for label, p, r in [("1", 1.0, ARG_ERRORS), ("-0.1", -0.1, ARG_ERRORS), ("nan", math.nan, ARG_ERRORS),
                          ("str", "0.5", (TypeError,)), ("None", None, (TypeError,)),
                          ("array", np.ones(2), ARG_ERRORS)]],
    Case("layer_norm", "gamma of shape (2,)", lambda: F.layer_norm(_x(2, 3), _x(2), _x(3))),
    Case("layer_norm", "eps 0", lambda: F.layer_norm(_x(2, 3), _x(3), _x(3), eps=0.0)),
    Case("layer_norm", "eps a str", lambda: F.layer_norm(_x(2, 3), _x(3), _x(3), eps="1"),
         raises=(TypeError,)),
    Case("rms_norm", "gamma of shape (2,)", lambda: F.rms_norm(_x(2, 3), _x(2))),
    Case("rms_norm", "0-d x", lambda: F.rms_norm(_x())),
    Case("rms_norm", "an empty last axis", lambda: F.rms_norm(_x(2, 0))),
    *[Case("rms_norm", f"eps {label}", lambda v=v: F.rms_norm(_x(2, 3), eps=v), raises=r)
      for label, v, r in [("0", 0.0, ARG_ERRORS), ("-1", -1.0, ARG_ERRORS), ("nan", math.nan, ARG_ERRORS),
                          ("inf", math.inf, ARG_ERRORS), ("str", "1e-6", (TypeError,))]],
    Case("batch_norm", "1-D x", lambda: F.batch_norm(_x(3), _x(3), _x(3))),
    Case("batch_norm", "beta of shape (2,)", lambda: F.batch_norm(_x(2, 3), _x(3), _x(2))),
    Case("batch_norm", "decay 2", lambda: F.batch_norm(_x(2, 3), _x(3), _x(3), decay=2.0)),
    Case("batch_norm", "running_mean of shape (2,)",
         lambda: F.batch_norm(_x(2, 3), _x(3), _x(3), np.zeros(2), np.ones(3))),
    Case("batch_norm", "integer running_var", lambda: F.batch_norm(_x(2, 3), _x(3), _x(3), np.zeros(3),
                                                                   np.ones(3, int)), raises=(TypeError,)),
    Case("batch_norm", "a list as running_mean", lambda: F.batch_norm(_x(2, 3), _x(3), _x(3), [0.0] * 3,
                                                                      np.ones(3)), raises=(TypeError,)),
    Case("batch_norm", "a batch of one in training mode", lambda: F.batch_norm(_x(1, 3), _x(3), _x(3))),
    Case("batch_norm", "test mode without running statistics",
         lambda: _in_test_mode(F.batch_norm, _x(2, 3), _x(3), _x(3))),
    Case("embed_id", "id 9 of 3 rows", lambda: F.embed_id(np.array([0, 9]), _x(3, 2))),
    Case("embed_id", "id -1", lambda: F.embed_id(np.array([-1]), _x(3, 2))),
    Case("embed_id", "float ids", lambda: F.embed_id(np.array([0.0, 1.0]), _x(3, 2)), raises=(TypeError,)),
    Case("embed_id", "W 1-D", lambda: F.embed_id(np.array([0]), _x(3))),
    Case("embed_id", "max_norm 0", lambda: F.embed_id(np.array([0]), _x(3, 2), max_norm=0)),
    Case("embed_id", "max_norm NaN", lambda: F.embed_id(np.array([0]), _x(3, 2), max_norm=np.nan)),
    Case("embed_id", "norm_type -1", lambda: F.embed_id(np.array([0]), _x(3, 2), 1.0, -1)),
    Case("accuracy", "labels of shape (3,)", lambda: F.accuracy(_x(2, 3), np.array([0, 1, 2]))),
    Case("accuracy", "float labels", lambda: F.accuracy(_x(2, 3), np.array([0.0, 1.0])), raises=(TypeError,)),
    Case("accuracy", "0-d scores", lambda: F.accuracy(_x(), np.array(0))),
    *[Case("interpolate", label, lambda kw=kw: F.interpolate(**{"x": _x(1, 2, 3, 4), **kw}), raises=r)
      for label, kw, r in [
          ("no size nor scale_factor", {}, ARG_ERRORS),
          ("both size and scale_factor", {"size": 4, "scale_factor": 2}, ARG_ERRORS),
          ("size 0", {"size": 0}, ARG_ERRORS), ("size 2.5", {"size": 2.5}, (TypeError,)),
          ("size of 3 axes for 2", {"size": (2, 3, 4)}, ARG_ERRORS),
          ("scale_factor 0", {"scale_factor": 0}, ARG_ERRORS),
          ("scale_factor nan", {"scale_factor": math.nan}, ARG_ERRORS),
          ("scale_factor str", {"scale_factor": "2"}, (TypeError,)),
          ("scale_factor 0.1 leaves nothing", {"scale_factor": 0.1}, ARG_ERRORS),
          ("mode 'lanczos'", {"size": 4, "mode": "lanczos"}, ARG_ERRORS),
          ("mode 'bicubic' for a sequence", {"x": _x(1, 2, 5), "size": 4, "mode": "bicubic"}, ARG_ERRORS),
          ("mode 'linear' for an image", {"size": 4, "mode": "linear"}, ARG_ERRORS),
          ("mode 'trilinear' for an image", {"size": 4, "mode": "trilinear"}, ARG_ERRORS),
          ("align_corners with nearest", {"size": 4, "align_corners": True}, ARG_ERRORS)]],
    Case("interpolate", "2-d x", lambda: F.interpolate(_x(2, 3), size=4)),
    Case("interpolate", "an empty spatial axis", lambda: F.interpolate(_x(1, 2, 0, 3), size=4)),
    *[Case(f.__name__, label, lambda f=f, k=k: f(*k), raises=r) for f in (F.adaptive_avg_pool2d,
                                                                          F.adaptive_max_pool2d)
      for label, k, r in [("output_size 0", (_x(1, 2, 4, 4), 0), ARG_ERRORS),
                          ("output_size (2, 0)", (_x(1, 2, 4, 4), (2, 0)), ARG_ERRORS),
                          ("output_size 1.5", (_x(1, 2, 4, 4), 1.5), (TypeError,)),
                          ("output_size of 3", (_x(1, 2, 4, 4), (1, 2, 3)), ARG_ERRORS),
                          ("output_size None", (_x(1, 2, 4, 4), None), (TypeError,)),
                          ("2-d x", (_x(4, 4), 2), ARG_ERRORS),
                          ("an empty image", (_x(1, 2, 0, 4), 2), ARG_ERRORS),
                          ("an empty image (C, 0, W)", (_x(2, 0, 3), 2), ARG_ERRORS)]],
    *[Case(name, label, lambda name=name, k=k: getattr(F, name)(*k), raises=r)
      for kind in ("avg", "max")
      for name, x, wrong_ndim, empty, two in (
          (f"adaptive_{kind}_pool1d", _x(1, 2, 5), _x(1, 2, 4, 4), _x(1, 2, 0), (2, 2)),
          (f"adaptive_{kind}_pool3d", _x(1, 2, 3, 4, 4), _x(1, 2, 4), _x(1, 2, 3, 0, 4), (2, 2)))
      for label, k, r in [("output_size 0", (x, 0), ARG_ERRORS),
                          ("output_size 1.5", (x, 1.5), (TypeError,)),
                          ("output_size of 2", (x, two), ARG_ERRORS),
                          ("output_size None", (x, None), (TypeError,)),
                          ("x of the wrong rank", (wrong_ndim, 2), ARG_ERRORS),
                          ("an empty spatial axis", (empty, 2), ARG_ERRORS)]],
    Case("conv1d", "kernel longer than the sequence", lambda: F.conv1d(_x(1, 1, 2), _x(1, 1, 3))),
    Case("conv1d", "channels 2 vs 3", lambda: F.conv1d(_x(1, 2, 4), _x(1, 3, 2))),
    Case("conv1d", "4-D x (an image)", lambda: F.conv1d(_x(1, 2, 4, 4), _x(1, 2, 2))),
    Case("conv1d", "4-D W (conv2d's)", lambda: F.conv1d(_x(1, 2, 4), _x(1, 2, 2, 2))),
    Case("conv1d", "b of shape (2,)", lambda: F.conv1d(_x(1, 2, 4), _x(3, 2, 2), _x(2))),
    Case("conv1d", "stride 0", lambda: F.conv1d(_x(1, 2, 4), _x(3, 2, 2), stride=0)),
    *[Case("conv1d", f"{param} {label}",
           lambda param=param, v=v: F.conv1d(_x(1, 2, 4), _x(3, 2, 2), **{param: v}), raises=r)
      for param in ("stride", "pad", "dilation")
      for label, v, r in [("-1", -1, ARG_ERRORS), ("1.5", 1.5, (TypeError,)),
                          ("str", "1", ARG_ERRORS if param == "pad" else (TypeError,)),
                          ("pair", (1, 1), (TypeError,)), ("True", True, (TypeError,)),
                          ("None", None, (TypeError,))]],
    *[Case(n, f"groups {label}", lambda f=f, v=v: f(v), raises=r)
      for n, f in [("conv1d", lambda v: F.conv1d(_x(1, 4, 5), _x(4, 2, 2), groups=v)),
                   ("conv2d", lambda v: F.conv2d(_x(1, 4, 4, 4), _x(4, 2, 2, 2), groups=v))]
      for label, v, r in [("0", 0, ARG_ERRORS), ("3 (not x's 4 channels / W's 2)", 3, ARG_ERRORS),
                          ("1 (x has twice W's channels)", 1, ARG_ERRORS), ("2.0", 2.0, (TypeError,)),
                          ("True", True, (TypeError,)), ("None", None, (TypeError,))]],
    Case("conv1d", "groups 2 not dividing W's 3 filters",
         lambda: F.conv1d(_x(1, 4, 5), _x(3, 2, 2), groups=2)),
    Case("conv2d", "groups 2 not dividing W's 3 filters",
         lambda: F.conv2d(_x(1, 4, 4, 4), _x(3, 2, 2, 2), groups=2)),
    *[Case(n, f"pad {label}", lambda f=f, kw=kw: f(**kw))
      for n, f in [("conv1d", lambda **kw: F.conv1d(_x(1, 2, 5), _x(3, 2, 2), **kw)),
                   ("conv2d", lambda **kw: F.conv2d(_x(1, 2, 4, 4), _x(3, 2, 2, 2), **kw))]
      for label, kw in [("'same' at stride 2", {"pad": "same", "stride": 2}), ("'full'", {"pad": "full"}),
                        ("'SAME'", {"pad": "SAME"})]],
    Case("conv1d", "kernel 2 at dilation 5 longer than the sequence",
         lambda: F.conv1d(_x(1, 2, 5), _x(3, 2, 2), dilation=5)),
    Case("conv2d", "kernel 2 at dilation (1, 4) wider than the image",
         lambda: F.conv2d(_x(1, 2, 4, 4), _x(3, 2, 2, 2), dilation=(1, 4))),
    Case("grid_sample", "grid of 3 coordinates", lambda: F.grid_sample(_x(1, 2, 3, 3), _x(1, 2, 2, 3))),
    Case("grid_sample", "batch 1 vs 2", lambda: F.grid_sample(_x(1, 2, 3, 3), _x(2, 2, 2, 2))),
    Case("grid_sample", "3-D x", lambda: F.grid_sample(_x(2, 3, 3), _x(2, 2, 2, 2))),
    Case("grid_sample", "mode 'area'",
         lambda: F.grid_sample(_x(1, 2, 3, 3), _x(1, 2, 2, 2), mode="area")),
    Case("grid_sample", "padding_mode 'wrap'",
         lambda: F.grid_sample(_x(1, 2, 3, 3), _x(1, 2, 2, 2), padding_mode="wrap")),
    Case("grid_sample", "align_corners None",
         lambda: F.grid_sample(_x(1, 2, 3, 3), _x(1, 2, 2, 2), align_corners=None), raises=(TypeError,)),
    Case("affine_grid", "theta (2, 3) without a batch", lambda: F.affine_grid(_x(2, 3), (1, 1, 2, 2))),
    Case("affine_grid", "theta for 2 images, size for 1", lambda: F.affine_grid(_x(2, 2, 3), (1, 1, 2, 2))),
    Case("affine_grid", "size of 3 ints", lambda: F.affine_grid(_x(1, 2, 3), (1, 2, 2)), raises=(TypeError,)),
    Case("affine_grid", "size with a 0", lambda: F.affine_grid(_x(1, 2, 3), (1, 1, 0, 2))),
    Case("conv3d", "kernel deeper than the volume", lambda: F.conv3d(_x(1, 1, 2, 4, 4), _x(1, 1, 3, 3, 3))),
    Case("conv3d", "channels 2 vs 3", lambda: F.conv3d(_x(1, 2, 4, 4, 4), _x(1, 3, 2, 2, 2))),
    Case("conv3d", "4-D x (an image)", lambda: F.conv3d(_x(1, 2, 4, 4), _x(1, 2, 2, 2, 2))),
    Case("conv3d", "4-D W (conv2d's)", lambda: F.conv3d(_x(1, 2, 4, 4, 4), _x(1, 2, 2, 2))),
    Case("conv3d", "b of shape (2,)", lambda: F.conv3d(_x(1, 2, 4, 4, 4), _x(3, 2, 2, 2, 2), _x(2))),
    *[Case("conv3d", f"{param} {label}",
           lambda param=param, v=v: F.conv3d(_x(1, 2, 4, 4, 4), _x(4, 1, 2, 2, 2), groups=2, **{param: v}),
           raises=r)
      for param in ("stride", "pad", "dilation")
      for label, v, r in [("-1", -1, ARG_ERRORS), ("pair", (1, 1), (TypeError,)), ("1.5", 1.5, (TypeError,)),
                          ("None", None, (TypeError,))]],
    Case("conv3d", "pad 'same' at stride 2",
         lambda: F.conv3d(_x(1, 2, 4, 4, 4), _x(3, 2, 2, 2, 2), stride=2, pad="same")),
    *[Case(n, "volume: pad >= kernel", lambda f=f: f(_x(1, 1, 4, 4, 4), 2, pad=2))
      for n, f in [("pooling", F.pooling), ("average_pooling", F.average_pooling)]],
    *[Case(n, "volume: kernel (2, 2) for 3 axes", lambda f=f: f(_x(1, 1, 4, 4, 4), (2, 2)),
           raises=(TypeError,))
      for n, f in [("pooling", F.pooling), ("average_pooling", F.average_pooling)]],
    Case("conv2d", "kernel larger than the image", lambda: F.conv2d(_x(1, 1, 2, 2), _x(1, 1, 3, 3))),
    Case("conv2d", "channels 2 vs 3", lambda: F.conv2d(_x(1, 2, 4, 4), _x(1, 3, 2, 2))),
    Case("conv2d", "3-D x", lambda: F.conv2d(_x(2, 4, 4), _x(1, 2, 2, 2))),
    Case("conv2d", "b of shape (2,)", lambda: F.conv2d(_x(1, 2, 4, 4), _x(3, 2, 2, 2), _x(2))),
    Case("deconv2d", "W in conv2d's layout (3, 2, ..) for 2 channels",
         lambda: F.deconv2d(_x(1, 2, 4, 4), _x(3, 2, 2, 2))),
    Case("deconv2d", "3-D x", lambda: F.deconv2d(_x(2, 4, 4), _x(2, 1, 2, 2))),
    Case("deconv2d", "3-D W", lambda: F.deconv2d(_x(1, 2, 4, 4), _x(2, 2, 2))),
    Case("deconv2d", "b of shape (2,)", lambda: F.deconv2d(_x(1, 2, 4, 4), _x(2, 3, 2, 2), _x(2))),
    Case("deconv2d", "pad leaves no output", lambda: F.deconv2d(_x(1, 1, 1, 1), _x(1, 1, 2, 2), pad=1)),
    *[Case("deconv2d", f"groups {label}",
           lambda v=v: F.deconv2d(_x(1, 4, 3, 3), _x(4, 2, 2, 2), groups=v), raises=r)
      for label, v, r in [("3 (not dividing 4 channels)", 3, ARG_ERRORS), ("0", 0, ARG_ERRORS),
                          ("2.0", 2.0, (TypeError,)), ("None", None, (TypeError,))]],
    *[Case("deconv2d", f"dilation {label}",
           lambda v=v: F.deconv2d(_x(1, 2, 3, 3), _x(2, 2, 2, 2), dilation=v), raises=r)
      for label, v, r in [("0", 0, ARG_ERRORS), ("triple", (1, 1, 1), ARG_ERRORS),
                          ("1.5", 1.5, (TypeError,))]],
    *[Case("deconv2d", f"outsize {label}", lambda v=v: F.deconv2d(_x(1, 2, 3, 3), _x(2, 1, 3, 3), stride=2,
                                                                  outsize=v), raises=r)
      for label, v, r in [("too large", (9, 7), ARG_ERRORS), ("too small", (7, 6), ARG_ERRORS),
                          ("0", 0, ARG_ERRORS), ("str", "7", (TypeError,)), ("1.5", 1.5, (TypeError,)),
                          ("triple", (7, 7, 7), ARG_ERRORS)]],
    *[Case(n, f"{param} {label}", lambda f=f, param=param, v=v: f(param, v), raises=r)
      for n, f in [("conv2d", lambda param, v: F.conv2d(_x(1, 2, 4, 4), _x(3, 2, 2, 2), **{param: v})),
                   ("deconv2d", lambda param, v: F.deconv2d(_x(1, 2, 4, 4), _x(2, 3, 2, 2), **{param: v})),
                   ("pooling", lambda param, v: F.pooling(_x(1, 2, 4, 4), **{"kernel_size": 2, param: v})),
                   ("average_pooling",
                    lambda param, v: F.average_pooling(_x(1, 2, 4, 4), **{"kernel_size": 2, param: v})),
                   ("im2col", lambda param, v: F.im2col(_x(1, 2, 4, 4), **{"kernel_size": 2, param: v}))]
      for param in ("stride", "pad", "dilation") if param != "dilation" or n == "conv2d"
      for label, v, r in [("-1", -1, ARG_ERRORS), ("1.5", 1.5, (TypeError,)),
                          ("str", "1", ARG_ERRORS if (n, param) == ("conv2d", "pad") else (TypeError,)),
                          ("triple", (1, 1, 1), ARG_ERRORS), ("True", True, ARG_ERRORS)]],
    *[Case(op, label, call) for op, label, call in [
        ("deconv1d", "W in conv1d's layout (3, 2, k) for 2 channels",
         lambda: F.deconv1d(_x(1, 2, 4), _x(3, 2, 2))),
        ("deconv1d", "4-D x", lambda: F.deconv1d(_x(1, 2, 4, 4), _x(2, 3, 2))),
        ("deconv1d", "4-D W", lambda: F.deconv1d(_x(1, 2, 4), _x(2, 3, 2, 2))),
        ("deconv1d", "b of shape (2,)", lambda: F.deconv1d(_x(1, 2, 4), _x(2, 3, 2), _x(2))),
        ("deconv1d", "pad leaves no output", lambda: F.deconv1d(_x(1, 1, 1), _x(1, 1, 2), pad=1)),
        ("deconv1d", "stride a pair", lambda: F.deconv1d(_x(1, 2, 4), _x(2, 3, 2), stride=(2, 2))),
        ("deconv1d", "outsize too large", lambda: F.deconv1d(_x(1, 2, 3), _x(2, 1, 3), stride=2, outsize=9)),
        ("deconv1d", "outsize a pair",
         lambda: F.deconv1d(_x(1, 2, 3), _x(2, 1, 3), stride=2, outsize=(7, 7))),
        ("deconv1d", "groups 3 for 2 channels", lambda: F.deconv1d(_x(1, 2, 4), _x(2, 3, 2), groups=3)),
        ("deconv3d", "W in conv3d's layout for 2 channels",
         lambda: F.deconv3d(_x(1, 2, 3, 3, 3), _x(3, 2, 2, 2, 2))),
        ("deconv3d", "4-D x", lambda: F.deconv3d(_x(1, 2, 3, 3), _x(2, 3, 2, 2, 2))),
        ("deconv3d", "4-D W", lambda: F.deconv3d(_x(1, 2, 3, 3, 3), _x(2, 3, 2, 2))),
        ("deconv3d", "b of shape (2,)", lambda: F.deconv3d(_x(1, 2, 3, 3, 3), _x(2, 3, 2, 2, 2), _x(2))),
        ("deconv3d", "stride a pair",
         lambda: F.deconv3d(_x(1, 2, 3, 3, 3), _x(2, 3, 2, 2, 2), stride=(2, 2))),
        ("deconv3d", "outsize too small",
         lambda: F.deconv3d(_x(1, 2, 3, 3, 3), _x(2, 1, 3, 3, 3), stride=2, outsize=(6, 7, 7))),
        ("deconv3d", "dilation 0", lambda: F.deconv3d(_x(1, 2, 3, 3, 3), _x(2, 3, 2, 2, 2), dilation=0)),
    ]],
    *[Case("ctc_loss", label, call, raises=r) for label, call, r in [
        ("4-D log_probs", lambda: F.ctc_loss(_x(3, 2, 3, 1), CTC_TARGETS, [3, 2], [2, 1]), ARG_ERRORS),
        ("a label equal to the blank", lambda: F.ctc_loss(_x(3, 2, 3), np.array([[1, 0], [2, 0]]), [3, 2],
                                                          [2, 1]), ARG_ERRORS),
        ("a label past the classes", lambda: F.ctc_loss(_x(3, 2, 3), np.array([[1, 3], [2, 0]]), [3, 2],
                                                        [2, 1]), ARG_ERRORS),
        ("an input length past T", lambda: F.ctc_loss(_x(3, 2, 3), CTC_TARGETS, [4, 2], [2, 1]), ARG_ERRORS),
        ("an input length 0", lambda: F.ctc_loss(_x(3, 2, 3), CTC_TARGETS, [0, 2], [2, 1]), ARG_ERRORS),
        ("a target length past S", lambda: F.ctc_loss(_x(3, 2, 3), CTC_TARGETS, [3, 2], [3, 1]), ARG_ERRORS),
        ("lengths for 3 sequences", lambda: F.ctc_loss(_x(3, 2, 3), CTC_TARGETS, [3, 2, 1], [2, 1]),
         ARG_ERRORS),
        ("float targets", lambda: F.ctc_loss(_x(3, 2, 3), CTC_TARGETS * 1.0, [3, 2], [2, 1]), (TypeError,)),
        ("concatenated targets of the wrong total", lambda: F.ctc_loss(_x(3, 2, 3), np.array([1, 2]), [3, 2],
                                                                       [2, 1]), ARG_ERRORS),
        ("blank 3 of 3 classes", lambda: F.ctc_loss(_x(3, 2, 3), CTC_TARGETS, [3, 2], [2, 1], blank=3),
         ARG_ERRORS),
        ("blank 1.0", lambda: F.ctc_loss(_x(3, 2, 3), CTC_TARGETS, [3, 2], [2, 1], blank=1.0), (TypeError,)),
        ("reduction='max'",
         lambda: F.ctc_loss(_x(3, 2, 3), CTC_TARGETS, [3, 2], [2, 1], reduction="max"), ARG_ERRORS),
        ("batch first, (N, T, C)", lambda: F.ctc_loss(_x(2, 3, 3), CTC_TARGETS, [3, 2], [2, 1]), ARG_ERRORS),
    ]],
    *[Case("max_unpool2d", label, call, raises=r) for label, call, r in [
        ("an index past the output", lambda: F.max_unpool2d(_x(1, 2, 2, 2), UNPOOL_INDICES + 16, 2),
         ARG_ERRORS),
        ("a negative index", lambda: F.max_unpool2d(_x(1, 2, 2, 2), UNPOOL_INDICES - 1, 2), ARG_ERRORS),
        ("float indices", lambda: F.max_unpool2d(_x(1, 2, 2, 2), UNPOOL_INDICES * 1.0, 2), (TypeError,)),
        ("indices of another shape", lambda: F.max_unpool2d(_x(1, 2, 2, 2), UNPOOL_INDICES[0], 2),
         ARG_ERRORS),
        ("3-D x", lambda: F.max_unpool2d(_x(2, 2, 2), UNPOOL_INDICES[0], 2), ARG_ERRORS),
        ("kernel_size 0", lambda: F.max_unpool2d(_x(1, 2, 2, 2), UNPOOL_INDICES, 0), ARG_ERRORS),
        ("outsize a triple", lambda: F.max_unpool2d(_x(1, 2, 2, 2), UNPOOL_INDICES, 2, outsize=(4, 4, 4)),
         ARG_ERRORS),
        ("pad leaves no output",
         lambda: F.max_unpool2d(_x(1, 2, 1, 1), UNPOOL_INDICES[..., :1, :1], 2, pad=1), ARG_ERRORS),
    ]],
    Case("pooling", "return_indices 'yes'", lambda: F.pooling(_x(1, 2, 4, 4), 2, return_indices="yes"),
         raises=(TypeError,)),
    Case("conv2d", "stride 0", lambda: F.conv2d(_x(1, 2, 4, 4), _x(3, 2, 2, 2), stride=0)),
    Case("deconv2d", "stride 0", lambda: F.deconv2d(_x(1, 2, 4, 4), _x(2, 3, 2, 2), stride=0)),
    *[Case(n, f"kernel_size {label}", lambda f=f, k=k: f(_x(1, 2, 4, 4), k), raises=r)
      for n, f in [("pooling", F.pooling), ("average_pooling", F.average_pooling), ("im2col", F.im2col)]
      for label, k, r in [("0", 0, ARG_ERRORS), ("5 > image", 5, ARG_ERRORS), ("None", None, (TypeError,)),
                          ("1.5", 1.5, (TypeError,))]],
    Case("pooling", "pad >= kernel", lambda: F.pooling(_x(1, 1, 4, 4), 2, pad=2)),
    Case("pooling", "dilation 0", lambda: F.pooling(_x(1, 1, 4, 4), 2, dilation=0)),
    Case("pooling", "dilation 1.5", lambda: F.pooling(_x(1, 1, 4, 4), 2, dilation=1.5), raises=(TypeError,)),
    Case("pooling", "dilation a triple for images",
         lambda: F.pooling(_x(1, 1, 4, 4), 2, dilation=(1, 2, 1)), raises=(TypeError,)),
    Case("pooling", "dilation spreads the window past the image",
         lambda: F.pooling(_x(1, 1, 4, 4), 2, dilation=4)),
    Case("pooling", "a dilated window reads only padding",
         lambda: F.pooling(_x(1, 1, 2), 2, pad=1, dilation=3)),
    *[Case(n, f"{flag} {label}", lambda f=f, flag=flag, v=v: f(_x(1, 1, 4, 4), 2, **{flag: v}),
           raises=(TypeError,))
      for n, f, flags in [("pooling", F.pooling, ("ceil_mode",)),
                          ("average_pooling", F.average_pooling, ("ceil_mode", "count_include_pad"))]
      for flag in flags
      for label, v in [("str", "True"), ("None", None), ("1", 1), ("array", np.ones(2))]],
    *[Case(n, f"sequence: {label}", lambda f=f, k=k: f(*k), raises=r)
      for n, f in [("pooling", F.pooling), ("average_pooling", F.average_pooling)]
      for label, k, r in [("pad >= kernel", (_x(1, 1, 4), 2, 1, 2), ARG_ERRORS),
                          ("kernel longer than the sequence", (_x(1, 1, 4), 5), ARG_ERRORS),
                          ("a pair kernel", (_x(1, 1, 4), (2, 2)), (TypeError,)),
                          ("stride 0", (_x(1, 1, 4), 2, 0), ARG_ERRORS),
                          ("2-d x", (_x(4, 4), 2), ARG_ERRORS),
                          ("6-d x", (_x(1, 1, 2, 2, 4, 4), 2), ARG_ERRORS)]],
    Case("col2im", "columns of the wrong shape", lambda: F.col2im(_x(1, 2, 2, 2, 2, 2), IMAGE, 2)),
    Case("col2im", "x_shape of 3 ints", lambda: F.col2im(_x(1, 2, 2, 2, 3, 3), (2, 4, 4), 2)),
    Case("col2im", "x_shape None", lambda: F.col2im(_x(1, 2, 2, 2, 3, 3), None, 2), raises=(TypeError,)),
    # nan-functions, cov and corrcoef: axes and parameters
    *[c for n in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin")
      for c in _axis_cases(n, lambda a, n=n: getattr(V, n)(_x(2, 3), axis=a))],
    *[c for n in ("nancumsum", "nancumprod", "cumulative_sum", "cumulative_prod")
      for c in _axis_cases(n, lambda a, n=n: getattr(V, n)(_x(2, 3), axis=a), one_axis=True)],
    *[Case(n, f"ddof {label}", lambda n=n, d=d: getattr(V, n)(_x(2, 3), ddof=d), raises=r)
      for n in ("nanvar", "nanstd", "cov")
      for label, d, r in [("str", "1", (TypeError,)), ("None", None, (TypeError,)),
                          ("array", np.ones(2), ARG_ERRORS)]
      if not (n == "cov" and d is None)],                                  # (cov's default ddof is None)
    Case("cov", "ddof 1.5", lambda: V.cov(_x(2, 3), ddof=1.5)),
    *[Case(n, "dtype int", lambda n=n: getattr(V, n)(_x(2, 3), dtype=np.int64), raises=(TypeError,))
      for n in ("nansum", "nanmean", "nanvar", "cov", "corrcoef")],
    *[Case(n, "initial a str", lambda n=n: getattr(V, n)(_x(2, 3), initial="0"), raises=(TypeError,))
      for n in ("nansum", "nanprod", "nanmax", "nanmin")],
    *[Case(n, "out given", lambda n=n: getattr(V, n)(_x(2, 3), out=np.zeros(3)), raises=(TypeError,))
      for n in ("nansum", "nanmean", "nanmax", "nancumsum")],
    Case("nanmax", "empty axis without initial", lambda: V.nanmax(V.Variable(np.zeros((2, 0))), axis=1)),
    Case("nanvar", "ddof and correction", lambda: V.nanvar(_x(2, 3), ddof=1, correction=1)),
    Case("cov", "m 3-d", lambda: V.cov(_x(2, 2, 2))),
    Case("cov", "y with 2 observations for 3", lambda: V.cov(_x(2, 3), _x(2, 2))),
    Case("cov", "aweights (2,) for 3 observations", lambda: V.cov(_x(2, 3), aweights=np.ones(2))),
    Case("cov", "negative aweights", lambda: V.cov(_x(2, 3), aweights=-np.ones(3))),
    Case("cov", "fractional fweights", lambda: V.cov(_x(2, 3), fweights=np.full(3, 0.5)),
         raises=(TypeError,)),
    Case("cov", "fweights a Variable that requires grad", lambda: V.cov(_x(2, 3), fweights=_x(3)),
         raises=(TypeError,)),
    Case("corrcoef", "y with 2 observations for 3", lambda: V.corrcoef(_x(2, 3), _x(2, 2))),
    # the Array API's names
    Case("cumulative_sum", "axis None on 2-d", lambda: V.cumulative_sum(_x(2, 3))),
    *[Case(n, "dtype given", lambda n=n: getattr(V, n)(_x(3), dtype=np.float32), raises=(TypeError,))
      for n in ("cumulative_sum", "cumulative_prod")],
    Case("vecdot", "lengths 3 and 2", lambda: V.vecdot(_x(2, 3), _x(2))),
    Case("vecdot", "other axes (2,) and (3,)", lambda: V.vecdot(_x(2, 3), _x(3, 3))),
    Case("vecdot", "axis and axes", lambda: V.vecdot(_x(3), _x(3), axis=0, axes=[0, 0]), raises=(TypeError,)),
    *_axis_cases("vecdot", lambda a: V.vecdot(_x(2, 3), _x(2, 3), axis=a), one_axis=True),
    Case("matrix_transpose", "1-d", lambda: V.matrix_transpose(_x(3))),
    *[Case("permute_dims", f"axes {label}", lambda a=a: V.permute_dims(_x(2, 3), a), raises=r)
      for label, a, r in [("(0, 0)", (0, 0), ARG_ERRORS), ("(0,)", (0,), ARG_ERRORS),
                          ("(0, 2)", (0, 2), ARG_ERRORS), ("(0, 1.0)", (0, 1.0), (TypeError,)),
                          ("str", "01", ARG_ERRORS)]],
    Case("unstack", "0-d", lambda: V.unstack(V.Variable(np.array(1.0)))),
    *_axis_cases("unstack", lambda a: V.unstack(_x(2, 3), axis=a), one_axis=True),
    *[Case("diagflat", f"k {label}", lambda k=k: V.diagflat(_x(3), k), raises=(TypeError,))
      for label, k in [("1.0", 1.0), ("str", "1"), ("None", None)]],
    Case("unwrap", "period 0", lambda: V.unwrap(_x(3), period=0.0)),
    *[Case("unwrap", f"{p} {label}", lambda p=p, v=v: V.unwrap(_x(3), **{p: v}), raises=(TypeError,))
      for p in ("discont", "period") for label, v in [("str", "1"), ("array", np.ones(3))]],
    Case("unwrap", "0-d", lambda: V.unwrap(V.Variable(np.array(1.0)))),
    *_axis_cases("unwrap", lambda a: V.unwrap(_x(2, 3), axis=a), one_axis=True),
    *[Case(n, f"obj {label}", lambda f=f, o=o: f(o), raises=r)
      for n, f in [("delete", lambda o: V.delete(_x(2, 3), o, axis=1)),
                   ("insert", lambda o: V.insert(_x(2, 3), o, 0.0, axis=1))]
      for label, o, r in [("out of bounds", 7, ARG_ERRORS + (IndexError,)),
                          ("float", 1.0, ARG_ERRORS + (IndexError,)), ("a Variable", _x(1), (TypeError,)),
                          ("str", "a", ARG_ERRORS + (IndexError,))]],
    Case("delete", "mask of the wrong length", lambda: V.delete(_x(2, 3), np.array([True, False]), axis=1)),
    Case("insert", "values that do not fit", lambda: V.insert(_x(2, 3), 1, _x(3), axis=1)),
    Case("block", "a tuple of blocks", lambda: V.block((_x(2), _x(2))), raises=(TypeError,)),
    Case("block", "an empty list", lambda: V.block([])),
    Case("block", "depths differ", lambda: V.block([[_x(2)], _x(2)])),
    Case("block", "heights differ", lambda: V.block([[_x(2, 2), _x(3, 1)]])),
    Case("ediff1d", "boolean ary", lambda: V.ediff1d(np.array([True, False]))),
    Case("ediff1d", "float to_begin for an integer ary", lambda: V.ediff1d(np.arange(3), to_begin=0.5),
         raises=(TypeError,)),
    Case("ediff1d", "int to_end for a float ary, cast as NumPy",
         lambda: V.ediff1d(V.Variable(X23), to_end=[1, 2]), raises=(),
         check=_equals(np.ediff1d(X23, to_end=[1, 2]))),
    *[Case(n, f"num {label}", lambda f=f, k=k: f(0.5, 2.0, k), raises=r)
      for n, f in [("linspace", V.linspace), ("logspace", V.logspace), ("geomspace", V.geomspace)]
      for label, k, r in [("-1", -1, ARG_ERRORS), ("2.0", 2.0, (TypeError,)), ("None", None, (TypeError,)),
                          ("str", "3", (TypeError,))]],
    *[Case(n, f"{p} {label}", lambda f=f, p=p, v=v: f(0.5, 2.0, 3, **{p: v}), raises=(TypeError,))
      for n, f in [("linspace", V.linspace), ("logspace", V.logspace), ("geomspace", V.geomspace)]
      for p, label, v in [("endpoint", "str", "yes"), ("dtype", "complex", np.complex128),
                          ("dtype", "nonsense", "nonsense")]],
    *[c for n, f in [("linspace", V.linspace), ("logspace", V.logspace), ("geomspace", V.geomspace)]
      for c in _axis_cases(n, lambda a, f=f: f(_x(2), 2.0, 3, axis=a), one_axis=True)],
    Case("linspace", "shapes (2,) and (3,)", lambda: V.linspace(_x(2), _x(3))),
    Case("linspace", "device 'gpu'", lambda: V.linspace(0.0, 1.0, device="gpu")),
    Case("linspace", "integer dtype floors, as NumPy (no gradient)",
         lambda: V.linspace(V.Variable(-1.0), 2.0, 4, dtype=int), raises=(),
         check=lambda y: np.testing.assert_array_equal(y.data, np.linspace(-1.0, 2.0, 4, dtype=int))),
    Case("logspace", "base (3,) for start (2,)", lambda: V.logspace(_x(2), 1.0, base=np.full(3, 2.0))),
    Case("geomspace", "start 0", lambda: V.geomspace(0.0, 1.0)),
    Case("geomspace", "a 0 in stop", lambda: V.geomspace(np.ones(2), np.array([1.0, 0.0]))),
    Case("geomspace", "shapes (2,) and (3,)", lambda: V.geomspace(_x(2) + 3, _x(3) + 3)),
    *_axis_cases("unique", lambda a: V.unique(_x(2, 3), axis=a), one_axis=True),
    Case("unique", "axis 0 of a 0-d input", lambda: V.unique(V.Variable(np.array(1.0)), axis=0)),
    *[Case("unique", f"{flag} {label}", lambda flag=flag, v=v: V.unique(_x(3), **{flag: v}),
           raises=(TypeError,))
      for flag in ("return_index", "return_inverse", "return_counts", "equal_nan", "sorted")
      for label, v in [("str", "yes"), ("None", None), ("array", np.ones(2, bool))]],
    # np.linalg's Array API functions
    *[Case("linalg.vector_norm", f"ord {label}", lambda o=o: V.linalg.vector_norm(_x(2, 3), ord=o), raises=r)
      for label, o, r in [("'fro'", "fro", ARG_ERRORS), ("None-like str", "2", ARG_ERRORS),
                          ("array", np.ones(2), (TypeError,))]],
    *_axis_cases("linalg.vector_norm", lambda a: V.linalg.vector_norm(_x(2, 3), axis=a)),
    *[Case("linalg.matrix_norm", f"ord {label}", lambda o=o: V.linalg.matrix_norm(_x(2, 3), ord=o))
      for label, o in [("3", 3), ("0.5", 0.5), ("'euclid'", "euclid"), ("True", True)]],
    Case("linalg.matrix_norm", "1-d", lambda: V.linalg.matrix_norm(_x(3))),
    Case("linalg.svdvals", "1-d", lambda: V.linalg.svdvals(_x(3))),
    *[Case("linalg.cond", label, call) for label, call in [
        ("1-d", lambda: V.linalg.cond(_x(3))), ("p 3", lambda: V.linalg.cond(_x(3, 3), 3)),
        ("p 'fro' of a 2x3", lambda: V.linalg.cond(_x(2, 3), "fro")),
        ("p 1 of a singular matrix", lambda: V.linalg.cond(V.Variable(np.ones((2, 2))), 1)),
        ("empty matrix", lambda: V.linalg.cond(V.Variable(np.zeros((0, 0)))))]],
    *[Case(f"linalg.{n}", f"offset {label}", lambda n=n, o=o: getattr(V.linalg, n)(_x(2, 3), offset=o),
           raises=(TypeError,)) for n in ("trace", "diagonal") for label, o in [("1.0", 1.0), ("str", "1")]],
    *[Case(f"linalg.{n}", "1-d", lambda n=n: getattr(V.linalg, n)(_x(3))) for n in ("trace", "diagonal")],
    Case("linalg.trace", "dtype given", lambda: V.linalg.trace(_x(2, 3), dtype=np.float32),
         raises=(TypeError,)),
    Case("linalg.cross", "2-vectors", lambda: V.linalg.cross(_x(2), _x(2))),
    Case("linalg.cross", "axis 0 of (2, 3)", lambda: V.linalg.cross(_x(2, 3), _x(2, 3), axis=0)),
    Case("linalg.outer", "2-d operand", lambda: V.linalg.outer(_x(2, 2), _x(3))),
    Case("linalg.tensordot", "axes 3 of 2-d operands",
         lambda: V.linalg.tensordot(_x(2, 3), _x(3, 2), axes=3)),
    Case("linalg.tensordot", "axes of different lengths",
         lambda: V.linalg.tensordot(_x(2, 3), _x(3, 2), axes=([1], [0, 1]))),
    Case("linalg.vecdot", "lengths 3 and 2", lambda: V.linalg.vecdot(_x(2, 3), _x(2))),
    Case("linalg.vecdot", "axis 1.0", lambda: V.linalg.vecdot(_x(3), _x(3), axis=1.0), raises=(TypeError,)),
    *[Case("linalg.multi_dot", label, call, raises=r) for label, call, r in [
        ("one array", lambda: V.linalg.multi_dot([_x(2, 2)]), ARG_ERRORS),
        ("not a list", lambda: V.linalg.multi_dot(_x(2, 2)), (TypeError,)),
        ("a 3-d middle array", lambda: V.linalg.multi_dot([_x(2), _x(2, 2, 2), _x(2)]), ARG_ERRORS),
        ("shapes that do not chain", lambda: V.linalg.multi_dot([_x(2, 3), _x(2, 3), _x(3)]), ARG_ERRORS),
        ("two that do not chain", lambda: V.linalg.multi_dot([_x(2, 3), _x(2)]), ARG_ERRORS),
        ("out given", lambda: V.linalg.multi_dot([_x(2, 2), _x(2, 2)], out=np.zeros((2, 2))), (TypeError,))]],
]


# ----- the functional toolkit, Variable itself ---------------------------------------------
def _scalar_f(v):
    return V.sum(v * v)


API_CASES = [
    *[Case("Variable", f"data {k}", lambda b=b: V.Variable(b), raises=(TypeError,))
      for k, b in {**NOT_ARRAYS, **JUNK_LISTS}.items()],
    Case("Variable", "integer data cannot require grad", lambda: V.Variable(np.arange(3), requires_grad=True),
         raises=(TypeError,)),
    Case("Variable", "string array", lambda: V.Variable(np.array(["a"])), raises=(TypeError,)),
    *[Case("as_variable", k, lambda b=b: V.as_variable(b), raises=(TypeError,))
      for k, b in {**NOT_ARRAYS, **JUNK_LISTS}.items()],
    # grad
    *[Case("grad", f"outputs {k}", lambda b=b: V.grad(b, _x(3)), raises=(TypeError,))
      for k, b in {**NOT_ARRAYS, "0-d array": np.array(1.0), "ndarray": np.ones(3)}.items()],
    *[Case("grad", f"inputs {k}", lambda b=b: V.grad(V.sum(_x(3)), b), raises=(TypeError,))
      for k, b in {**NOT_ARRAYS, "0-d array": np.array(1.0), "ndarray": np.ones(3)}.items()],
    *[Case("grad", f"grad_outputs {k}", lambda b=b: _grad_with_seed(b), raises=r)
      for k, b, r in [("str", "abc", (TypeError,)), ("object", object(), (TypeError,)),
                      ("dict", {"a": 1}, (TypeError,)), ("mixed list", [1.0, "a"], ARG_ERRORS),
                      ("wrong shape", np.ones(4), ARG_ERRORS),
                      ("two for one output", [np.ones(3), np.ones(3)], ARG_ERRORS)]],
    Case("grad", "a constant input",
         lambda: V.grad(V.sum(_x(3)), V.Variable(np.ones(3), requires_grad=False))),
    Case("grad", "an unused input", lambda: V.grad(V.sum(_x(3)), _x(3))),
    # jacobian, hessian, hvp
    *[Case(op, f"f {k}", lambda op=op, b=b: _call_api(op, b, np.ones(3)), raises=(TypeError,))
      for op in ("jacobian", "hessian", "hvp", "gradcheck", "numerical_grad")
      for k, b in {**NOT_ARRAYS, "ndarray": np.ones(3)}.items()],
    *[Case(op, f"x {k}", lambda op=op, b=b: _call_api(op, _scalar_f, b), raises=r)
      for op in ("jacobian", "hessian", "hvp", "gradcheck", "numerical_grad")
      for k, b, r in [*[(k, b, (TypeError,)) for k, b in NOT_ARRAYS.items()],
                      *[(k, b, ARG_ERRORS) for k, b in JUNK_LISTS.items()]]],
    *[Case(op, f"f returns {k}", lambda op=op, b=b: _call_api(op, lambda v: b, np.ones(3)), raises=ARG_ERRORS)
      for op in ("jacobian", "hessian", "hvp", "gradcheck", "numerical_grad")
      for k, b in {"None": None, "str": "abc", "ndarray": np.ones(3)}.items()],
    *[Case(op, "integer x", lambda op=op: _call_api(op, _scalar_f, np.arange(3)))
      for op in ("jacobian", "hessian", "hvp")],
    Case("hessian", "f not scalar", lambda: V.hessian(lambda v: v * v, np.ones(3))),
    Case("hvp", "f not scalar", lambda: V.hvp(lambda v: v * v, np.ones(3), np.ones(3))),
    *[Case("hvp", f"v {k}", lambda b=b: V.hvp(_scalar_f, np.ones(3), b), raises=r)
      for k, b, r in [*[(k, b, (TypeError,)) for k, b in NOT_ARRAYS.items()],
                      *[(k, b, ARG_ERRORS) for k, b in JUNK_LISTS.items()],
                      ("shape (4,)", np.ones(4), ARG_ERRORS)]],
    *[Case(op, "empty x: an empty derivative, as NumPy shapes it",
           lambda op=op: _call_api(op, _scalar_f if op == "hessian" else lambda v: v * 2, np.zeros((0, 3))),
           raises=ARG_ERRORS, check=_shape_is((0, 3, 0, 3)))
      for op in ("jacobian", "hessian")],
    Case("gradcheck", "a NaN point is not a derivative mismatch",
         lambda: V.gradcheck(_scalar_f, np.full(3, np.nan))),
    *[Case(op, f"{p} {k}", lambda op=op, p=p, b=b: _call_api(op, _scalar_f, np.ones(3), **{p: b}), raises=r)
      for op, params in [("gradcheck", ("eps", "rtol", "atol")), ("numerical_grad", ("eps",))]
      for p in params
      for k, b, r in [("str", "abc", (TypeError,)), ("None", None, (TypeError,)),
                      ("array", np.ones(2), ARG_ERRORS),
                      ("0" if p == "eps" else "negative", 0.0 if p == "eps" else -1.0, ARG_ERRORS)]],
    *[Case("gradcheck", f"order {k}", lambda b=b: V.gradcheck(_scalar_f, np.ones(3), order=b))
      for k, b in [("0", 0), ("1.5", 1.5), ("str", "2"), ("None", None)]],
]


def _grad_with_seed(seed):
    x = _x(3)
    return V.grad(x * 2, x, grad_outputs=seed)


def _call_api(op, f, x, **kwargs):
    if op == "hvp":
        return V.hvp(f, x, np.ones(np.shape(x)) if isinstance(x, np.ndarray) else np.ones(3), **kwargs)
    return getattr(V, op)(f, x, **kwargs)


# ----- layers ----------------------------------------------------------------------------------
BAD_SIZES = {"str": "3", "None": None, "object": object(), "1.5": 1.5, "0": 0, "-1": -1, "True": True,
             "nan": math.nan, "array": np.ones(2)}
BAD_RATES = {"str": "0.1", "None": None, "object": object(), "-1": -1.0, "nan": math.nan, "inf": math.inf,
             "True": True, "array": np.ones(2)}


def _ctor_cases(name, make, bad, skip=(), names=()):
    """Constructor cases: every bad value must be refused when the layer is built.

    `names`: other acceptable names (the layer a parameter is handed to, e.g. Linear).
    """
    return [Case(name, f"{param} {k}", lambda make=make, param=param, v=v: make(param, v),
                 names=(name, *names) if names else ())
            for param, values in bad.items() for k, v in values.items() if (param, k) not in skip]


LAYER_CTORS = [
    *_ctor_cases("Linear", lambda p, v: L.Linear(**{"out_size": 3, p: v}),
                 {"out_size": BAD_SIZES, "in_size": BAD_SIZES,
                  "dtype": {"int": np.int64, "not a dtype": "abc"}},
                 skip={("in_size", "None")}),
    *_ctor_cases("EmbedID", lambda p, v: L.EmbedID(**{"in_size": 3, "out_size": 2, p: v}),
                 {"in_size": BAD_SIZES, "out_size": BAD_SIZES,
                  "padding_idx": {**BAD_SIZES, "3 of 3": 3, "-4 of 3": -4, "1.0": 1.0},
                  "max_norm": {"0": 0, "-1.5": -1.5, "a str": "1", "True": True, "a list": [1.0]},
                  "norm_type": {"0": 0, "None": None, "a str": "2"}},
                 skip={("padding_idx", "None"), ("padding_idx", "0"), ("padding_idx", "-1")},
                 names=("embed_id",)),
    *_ctor_cases("RNN", lambda p, v: L.RNN(**{"hidden_size": 3, p: v}),
                 {"hidden_size": BAD_SIZES, "in_size": BAD_SIZES}, skip={("in_size", "None")},
                 names=("Linear",)),
    *_ctor_cases("LSTM", lambda p, v: L.LSTM(**{"hidden_size": 3, p: v}),
                 {"hidden_size": BAD_SIZES, "in_size": BAD_SIZES}, skip={("in_size", "None")},
                 names=("Linear",)),
    *_ctor_cases("GRU", lambda p, v: L.GRU(**{"hidden_size": 3, p: v}),
                 {"hidden_size": BAD_SIZES, "in_size": BAD_SIZES}, skip={("in_size", "None")},
                 names=("Linear",)),
    *_ctor_cases("RMSNorm", lambda p, v: L.RMSNorm(**{p: v}), {"size": BAD_SIZES, "eps": BAD_RATES},
                 skip={("size", "None"), ("eps", "None")}),
    *_ctor_cases("LayerNorm", lambda p, v: L.LayerNorm(**{p: v}), {"size": BAD_SIZES, "eps": BAD_RATES},
                 skip={("size", "None")}),
    *_ctor_cases("BatchNorm", lambda p, v: L.BatchNorm(**{p: v}),
                 {"size": BAD_SIZES, "decay": {**BAD_RATES, "2": 2.0}, "eps": BAD_RATES},
                 skip={("size", "None")}),
    *_ctor_cases("Dropout", lambda p, v: L.Dropout(v), {"p": {**BAD_RATES, "1": 1.0}}),
    *_ctor_cases("AlphaDropout", lambda p, v: L.AlphaDropout(v), {"p": {**BAD_RATES, "1": 1.0}}),
    *[case for name in ("Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout")
      for case in _ctor_cases(name, lambda p, v, name=name: getattr(L, name)(v),
                              {"p": {**BAD_RATES, "1": 1.0}})],
    *_ctor_cases("LocalResponseNorm", lambda p, v: L.LocalResponseNorm(**{"size": 3, p: v}),
                 {"size": BAD_SIZES, "alpha": {"inf": np.inf, "NaN": np.nan, "str": "1", "None": None},
                  "beta": {"inf": np.inf, "str": "1"}, "k": BAD_RATES}),
    *_ctor_cases("Conv1d", lambda p, v: L.Conv1d(**{"out_channels": 2, "kernel_size": 3, p: v}),
                 {"out_channels": BAD_SIZES, "kernel_size": {**BAD_SIZES, "pair": (3, 3)},
                  "stride": {**BAD_SIZES, "pair": (1, 1)},
                  "pad": {"-1": -1, "1.5": 1.5, "str": "1", "None": None, "pair": (1, 1), "'full'": "full"},
                  "in_channels": BAD_SIZES, "dtype": {"int": np.int64, "not a dtype": "abc"},
                  "dilation": {**BAD_SIZES, "pair": (1, 1)}, "groups": {**BAD_SIZES, "3 for 2 filters": 3}},
                 skip={("in_channels", "None")}),
    *_ctor_cases("Conv2d", lambda p, v: L.Conv2d(**{"out_channels": 2, "kernel_size": 3, p: v}),
                 {"out_channels": BAD_SIZES, "kernel_size": {**BAD_SIZES, "triple": (1, 1, 1)},
                  "stride": {**BAD_SIZES, "triple": (1, 1, 1)},
                  "pad": {"-1": -1, "1.5": 1.5, "str": "1", "None": None, "'full'": "full"},
                  "in_channels": BAD_SIZES, "dilation": {**BAD_SIZES, "triple": (1, 1, 1)},
                  "groups": {**BAD_SIZES, "3 for 2 filters": 3}}, skip={("in_channels", "None")}),
    *_ctor_cases("Conv3d", lambda p, v: L.Conv3d(**{"out_channels": 2, "kernel_size": 3, p: v}),
                 {"out_channels": BAD_SIZES, "kernel_size": {**BAD_SIZES, "pair": (3, 3)},
                  "stride": {**BAD_SIZES, "pair": (1, 1)},
                  "pad": {"-1": -1, "1.5": 1.5, "str": "1", "None": None, "pair": (1, 1), "'full'": "full"},
                  "in_channels": BAD_SIZES, "dilation": {**BAD_SIZES, "pair": (1, 1)},
                  "groups": {**BAD_SIZES, "3 for 2 filters": 3}}, skip={("in_channels", "None")}),
    *[Case(n, label, make) for n, label, make in [
        ("Conv3d", "pad 'same' at stride 2", lambda: L.Conv3d(2, 3, 2, pad="same")),
        ("Conv2d", "pad 'same' at stride 2", lambda: L.Conv2d(2, 3, 2, pad="same")),
        ("Conv1d", "pad 'same' at stride 2", lambda: L.Conv1d(2, 3, 2, pad="same")),
        ("Conv2d", "groups 2 for in_channels 3", lambda: L.Conv2d(2, 3, groups=2, in_channels=3)),
        ("Conv1d", "groups 2 for in_channels 3", lambda: L.Conv1d(2, 3, groups=2, in_channels=3))]],
    *_ctor_cases("Deconv2d", lambda p, v: L.Deconv2d(**{"out_channels": 2, "kernel_size": 3, p: v}),
                 {"out_channels": BAD_SIZES, "kernel_size": {**BAD_SIZES, "triple": (1, 1, 1)},
                  "stride": {**BAD_SIZES, "triple": (1, 1, 1)},
                  "pad": {"-1": -1, "1.5": 1.5, "str": "1", "None": None, "'same'": "same"},
                  "in_channels": BAD_SIZES, "dtype": {"int": np.int64, "not a dtype": "abc"},
                  "dilation": {**BAD_SIZES, "triple": (1, 1, 1)},
                  "groups": {**BAD_SIZES, "3 for 2 filters": 3}},
                 skip={("in_channels", "None")}),
    *_ctor_cases("Deconv1d", lambda p, v: L.Deconv1d(**{"out_channels": 2, "kernel_size": 3, p: v}),
                 {"out_channels": BAD_SIZES, "kernel_size": {**BAD_SIZES, "pair": (1, 1)},
                  "stride": {**BAD_SIZES, "pair": (1, 1)},
                  "pad": {"-1": -1, "1.5": 1.5, "str": "1", "None": None, "'same'": "same", "pair": (1, 1)},
                  "in_channels": BAD_SIZES, "dilation": {**BAD_SIZES, "pair": (1, 1)},
                  "groups": {**BAD_SIZES, "3 for 2 filters": 3}}, skip={("in_channels", "None")}),
    *_ctor_cases("Deconv3d", lambda p, v: L.Deconv3d(**{"out_channels": 2, "kernel_size": 3, p: v}),
                 {"out_channels": BAD_SIZES, "kernel_size": {**BAD_SIZES, "pair": (3, 3)},
                  "stride": {**BAD_SIZES, "pair": (1, 1)},
                  "pad": {"-1": -1, "1.5": 1.5, "str": "1", "None": None, "'same'": "same", "pair": (1, 1)},
                  "in_channels": BAD_SIZES, "dilation": {**BAD_SIZES, "pair": (1, 1)},
                  "groups": {**BAD_SIZES, "3 for 2 filters": 3}}, skip={("in_channels", "None")}),
    *_ctor_cases("MLP", lambda p, v: L.MLP(**{"sizes": (3,), p: v}),
                 {"sizes": {"empty": (), "zero": (3, 0), "str": "abc", "None": None, "float": (3, 1.5)},
                  "activation": {"str": "relu", "None": None}}, names=("Linear",)),
    Case("Sequential", "a step that is not callable", lambda: L.Sequential(L.Linear(2), "relu")),
    Case("Sequential", "a layer class as a step", lambda: L.Sequential(L.Linear(2), L.ReLU)),
    Case("Sequential", "a str index", lambda: L.Sequential(L.Linear(2))["l0"]),
    Case("Sequential", "a float index", lambda: L.Sequential(L.Linear(2))[0.0]),
    *_ctor_cases("LeakyReLU", lambda p, v: L.LeakyReLU(v),
                 {"alpha": {"str": "0.1", "None": None, "nan": math.nan}}),
    *_ctor_cases("ELU", lambda p, v: L.ELU(v), {"alpha": {"str": "1", "None": None, "nan": math.nan}}),
    *_ctor_cases("PReLU", lambda p, v: L.PReLU(**{p: v}),
                 {"num_parameters": BAD_SIZES, "init": {"str": "0.25", "None": None, "nan": math.nan},
                  "dtype": {"int": np.int64, "not a dtype": "abc"}}),
    *_ctor_cases("GroupNorm", lambda p, v: L.GroupNorm(**{"num_groups": 2, p: v}),
                 {"num_groups": BAD_SIZES, "num_channels": {**BAD_SIZES, "3 (not divided by 2)": 3},
                  "eps": BAD_RATES}, skip={("num_channels", "None")}),
    *_ctor_cases("MultiheadAttention", lambda p, v: L.MultiheadAttention(**{"embed_dim": 4, "num_heads": 2,
                                                                            p: v}),
                 {"embed_dim": {**BAD_SIZES, "3 (not divided by 2 heads)": 3}, "num_heads": BAD_SIZES,
                  "dropout": {**BAD_RATES, "1": 1.0}, "kdim": BAD_SIZES, "vdim": BAD_SIZES,
                  "dtype": {"int": np.int64, "not a dtype": "abc"}},
                 skip={("kdim", "None"), ("vdim", "None")}, names=("Linear",)),
    *[case for name in ("TransformerEncoderLayer", "TransformerDecoderLayer") for case in _ctor_cases(
        name, lambda p, v, name=name: getattr(L, name)(**{"d_model": 4, "nhead": 2, p: v}),
        {"d_model": {**BAD_SIZES, "3 (not divided by 2 heads)": 3}, "nhead": BAD_SIZES,
         "dim_feedforward": BAD_SIZES, "dropout": {**BAD_RATES, "1": 1.0},
         "activation": {"str": "tanh", "None": None, "number": 1.0},
         "layer_norm_eps": {"0": 0.0, "-1": -1.0, "nan": math.nan, "str": "1e-5", "None": None},
         "dtype": {"int": np.int64, "not a dtype": "abc"}},
        names=("MultiheadAttention", "Linear", "LayerNorm"))],
    *_ctor_cases("CELU", lambda p, v: L.CELU(v),
                 {"alpha": {"str": "1", "None": None, "nan": math.nan, "0": 0.0, "-1": -1.0}}),
    *_ctor_cases("HardTanh", lambda p, v: L.HardTanh(**{p: v}),
                 {"min_val": {"str": "-1", "None": None, "nan": math.nan, "2 (above max_val)": 2.0},
                  "max_val": {"inf": math.inf, "-1 (equal to min_val)": -1.0}}),
    *_ctor_cases("GELU", lambda p, v: L.GELU(v), {"approximate": {"'erf'": "erf", "None": None}}),
    *_ctor_cases("Softmax", lambda p, v: L.Softmax(v), {"axis": {"str": "0", "float": 1.0}}),
    *[Case("Parameter", f"data {k}", lambda b=b: L.Parameter(b), raises=(TypeError,))
      for k, b in {**NOT_ARRAYS, **JUNK_LISTS, "int array": np.arange(3)}.items()],
    *[Case("seed", f"value {k}", lambda b=b: L.seed(b)) for k, b in
      {"str": "abc", "object": object(), "1.5": 1.5, "-1": -1, "array of floats": np.ones(2)}.items()],
    *[Case("use_numpy_global_random", f"on {k}", lambda b=b: L.use_numpy_global_random(b)) for k, b in
      {"str": "yes", "1": 1, "None": None}.items()],
    *[Case(name, label, call) for name, label, call in [
        ("save_checkpoint", "model not a Layer", lambda: L.save_checkpoint("c.npz", object(), O.SGD())),
        ("save_checkpoint", "optimizer not set up", lambda: L.save_checkpoint("c.npz", L.MLP((2,)), O.SGD())),
        ("save_checkpoint", "optimizer a class", lambda: L.save_checkpoint("c.npz", L.MLP((2,)), O.SGD)),
        ("load_checkpoint", "model not a Layer", lambda: L.load_checkpoint("c.npz", object(), O.SGD())),
        ("load_checkpoint", "optimizer not set up", lambda: L.load_checkpoint("c.npz", L.MLP((2,)), O.SGD())),
        ("save_checkpoint", "path last (torch.save order)",
         lambda: L.save_checkpoint(L.MLP((2,)), O.SGD(), "c.npz")),
        ("load_checkpoint", "path None", lambda: L.load_checkpoint(None, L.MLP((2,)), O.SGD())),
        ("save_weights", "path an int", lambda: L.save_weights(L.Linear(2, in_size=2), 3)),
        ("save_weights", "model and path swapped", lambda: L.save_weights("w.npz", L.Linear(2, in_size=2))),
        ("load_weights", "path None", lambda: L.load_weights(L.Linear(2, in_size=2), None)),
    ]],
    *[Case("DataLoader", label, call) for label, call in {
        "no arrays": lambda: L.DataLoader(),
        "lengths differ": lambda: L.DataLoader(np.ones(3), np.ones(4)),
        "0-d array": lambda: L.DataLoader(np.array(1.0)),
        "batch_size 0": lambda: L.DataLoader(np.ones(3), batch_size=0),
        "batch_size 1.5": lambda: L.DataLoader(np.ones(3), batch_size=1.5),
        "shuffle 'yes'": lambda: L.DataLoader(np.ones(3), shuffle="yes"),
    }.items()],
    *[Case("SeqDataLoader", label, call) for label, call in {
        "no arrays": lambda: L.SeqDataLoader(batch_size=2),
        "lengths differ": lambda: L.SeqDataLoader(np.ones(3), np.ones(4), batch_size=1),
        "more streams than steps": lambda: L.SeqDataLoader(np.ones(3), batch_size=5),
        "batch_size 0": lambda: L.SeqDataLoader(np.ones(3), batch_size=0),
        "batch_size str": lambda: L.SeqDataLoader(np.ones(3), batch_size="2"),
    }.items()],
    *[Case("datasets", label, call, names=(name,)) for label, name, call in [
        ("spiral n_per_class -1", "spiral", lambda: L.datasets.spiral(n_per_class=-1)),
        ("spiral n_classes 0", "spiral", lambda: L.datasets.spiral(n_classes=0)),
        ("spiral noise str", "spiral", lambda: L.datasets.spiral(noise="a")),
        ("sine_curve n str", "sine_curve", lambda: L.datasets.sine_curve(n="a")),
        ("sine_curve n 0", "sine_curve", lambda: L.datasets.sine_curve(n=0)),
        ("sine_curve period 0", "sine_curve", lambda: L.datasets.sine_curve(period=0.0)),
        ("sine_curve noise nan", "sine_curve", lambda: L.datasets.sine_curve(noise=math.nan)),
        ("spiral noise -1", "spiral", lambda: L.datasets.spiral(noise=-1.0)),
    ]],
]


@dataclass(frozen=True)
class LayerRow:
    """A layer built fresh for each call, a valid input shape, and its output shape."""

    name: str
    make: Callable
    shape: tuple
    out: Callable                   # input shape -> output shape
    names: tuple = ()               # other acceptable names: the function the layer applies
    empty: tuple = ()               # empty input shapes to try
    variant: str = ""


LINEAR = ("Linear", "linear")      # layers built on Linear may report the Linear that failed
EMBED = ("EmbedID", "embed_id")

def _self_memory(layer):
    """A decoder layer reading its input as its memory too, as a layer of one input."""
    return lambda x: layer(x, x)


def _first_output(layer):
    """A layer returning (output, weights) as one that returns its output."""
    return lambda x: layer(x)[0]


LAYER_ROWS = [
    LayerRow("Linear", lambda: L.Linear(4), (2, 3), lambda s: s[:-1] + (4,), ("linear",), ((0, 3), (2, 0))),
    LayerRow("Linear", lambda: L.Linear(4, 3), (2, 3), lambda s: s[:-1] + (4,), ("linear",), ((0, 3),),
             "in_size=3"),
    LayerRow("RNN", lambda: L.RNN(4), (2, 3), lambda s: s[:-1] + (4,), LINEAR, ((0, 3), (2, 0))),
    LayerRow("LSTM", lambda: L.LSTM(4), (2, 3), lambda s: s[:-1] + (4,), LINEAR, ((0, 3), (2, 0))),
    LayerRow("GRU", lambda: L.GRU(4), (2, 3), lambda s: s[:-1] + (4,), LINEAR, ((0, 3), (2, 0))),
    LayerRow("MLP", lambda: L.MLP((3, 2)), (2, 3), lambda s: s[:-1] + (2,), LINEAR, ((0, 3), (2, 0))),
    LayerRow("Sequential", lambda: L.Sequential(L.Linear(2), F.relu), (2, 3), lambda s: s[:-1] + (2,),
             ("Linear", "linear", "relu"), ((0, 3), (2, 0))),
    LayerRow("LayerNorm", lambda: L.LayerNorm(), (2, 3), lambda s: s, ("layer_norm",), ((0, 3),)),
    LayerRow("RMSNorm", lambda: L.RMSNorm(), (2, 3), lambda s: s, ("rms_norm",), ((0, 3),)),
    LayerRow("BatchNorm", lambda: L.BatchNorm(), (4, 3), lambda s: s, ("batch_norm",), ((4, 0),)),
    LayerRow("Conv1d", lambda: L.Conv1d(2, 2), (1, 2, 4), lambda s: (s[0], 2, 3), ("conv1d",),
             ((0, 2, 4),)),
    LayerRow("Conv2d", lambda: L.Conv2d(2, 2), (1, 2, 4, 4), lambda s: (s[0], 2, 3, 3), ("conv2d",),
             ((0, 2, 4, 4),)),
    LayerRow("Conv3d", lambda: L.Conv3d(2, 2), (1, 2, 3, 4, 4), lambda s: (s[0], 2, 2, 3, 3), ("conv3d",),
             ((0, 2, 3, 4, 4),)),
    LayerRow("Conv2d", lambda: L.Conv2d(4, 2, pad="same", dilation=2, groups=2), (1, 2, 4, 4),
             lambda s: (s[0], 4, 4, 4), ("conv2d",), ((0, 2, 4, 4),), "same, dilated, grouped"),
    LayerRow("Conv1d", lambda: L.Conv1d(4, 3, pad="same", dilation=2, groups=2), (1, 2, 5),
             lambda s: (s[0], 4, 5), ("conv1d",), ((0, 2, 5),), "same, dilated, grouped"),
    LayerRow("Deconv2d", lambda: L.Deconv2d(3, 2), (1, 2, 4, 4), lambda s: (s[0], 3, 5, 5), ("deconv2d",),
             ((0, 2, 4, 4),)),
    LayerRow("Deconv2d", lambda: L.Deconv2d(3, 3, stride=2, pad=1, in_channels=2), (1, 2, 4, 4),
             lambda s: (s[0], 3, 7, 7), ("deconv2d",), ((0, 2, 4, 4),), "stride 2 pad 1"),
    LayerRow("Deconv1d", lambda: L.Deconv1d(3, 2, stride=2, pad=1, dilation=2, groups=1), (1, 2, 4),
             lambda s: (s[0], 3, 7), ("deconv1d",), ((0, 2, 4),), "stride 2 pad 1 dilation 2"),
    LayerRow("Deconv3d", lambda: L.Deconv3d(4, 2, groups=2), (1, 2, 2, 3, 2),
             lambda s: (s[0], 4, 3, 4, 3), ("deconv3d",), ((0, 2, 2, 3, 2),), "grouped"),
    LayerRow("Dropout", lambda: L.Dropout(), (2, 3), lambda s: s, ("dropout",), ((2, 0),)),
    LayerRow("AlphaDropout", lambda: L.AlphaDropout(), (2, 3), lambda s: s, ("alpha_dropout",), ((2, 0),)),
    LayerRow("Dropout1d", lambda: L.Dropout1d(), (2, 3, 4), lambda s: s, ("dropout1d",), ((0, 3, 4),)),
    LayerRow("Dropout2d", lambda: L.Dropout2d(), (1, 2, 3, 3), lambda s: s, ("dropout2d",), ((0, 2, 3, 3),)),
    LayerRow("Dropout3d", lambda: L.Dropout3d(), (1, 2, 2, 3, 2), lambda s: s, ("dropout3d",),
             ((0, 2, 2, 3, 2),)),
    LayerRow("FeatureAlphaDropout", lambda: L.FeatureAlphaDropout(), (2, 3), lambda s: s,
             ("feature_alpha_dropout",), ((0, 3),)),
    LayerRow("LocalResponseNorm", lambda: L.LocalResponseNorm(3), (2, 4, 3), lambda s: s,
             ("local_response_norm",), ((0, 4, 3), (2, 4, 0))),
    LayerRow("GroupNorm", lambda: L.GroupNorm(2), (2, 4, 3), lambda s: s, ("group_norm",),
             ((0, 4, 3), (2, 4, 0))),
    LayerRow("MultiheadAttention", lambda: _first_output(L.MultiheadAttention(4, 2)),
             (2, 3, 4), lambda s: s, ("Linear", "scaled_dot_product_attention"), ((0, 3, 4), (2, 0, 4))),
    LayerRow("TransformerEncoderLayer", lambda: L.TransformerEncoderLayer(4, 2, 8), (2, 3, 4), lambda s: s,
             ("MultiheadAttention", "Linear", "LayerNorm", "layer_norm", "scaled_dot_product_attention"),
             ((0, 3, 4), (2, 0, 4))),
    LayerRow("TransformerDecoderLayer", lambda: _self_memory(L.TransformerDecoderLayer(4, 2, 8)), (2, 3, 4),
             lambda s: s, ("MultiheadAttention", "Linear", "LayerNorm", "layer_norm",
                           "scaled_dot_product_attention"), ((0, 3, 4), (2, 0, 4))),
    LayerRow("Flatten", lambda: L.Flatten(), (2, 3, 4), lambda s: (s[0], 12), ("flatten",), ((0, 3, 4),)),
    LayerRow("PReLU", lambda: L.PReLU(), (2, 3), lambda s: s, ("prelu",), ((2, 0), (0, 3))),
    LayerRow("PReLU", lambda: L.PReLU(3), (2, 3, 4), lambda s: s, ("prelu",), ((0, 3, 4),), "per channel"),
    *[LayerRow(cls, lambda cls=cls: getattr(L, cls)(), (2, 3), lambda s: s, (fn,), ((2, 0),))
      for cls, fn in [("ReLU", "relu"), ("ReLU6", "relu6"), ("LeakyReLU", "leaky_relu"), ("ELU", "elu"),
                      ("SELU", "selu"), ("CELU", "celu"), ("Mish", "mish"), ("HardTanh", "hard_tanh"),
                      ("SoftSign", "softsign"), ("LogSigmoid", "log_sigmoid"),
                      ("GELU", "gelu"), ("Swish", "swish"), ("Sigmoid", "sigmoid"), ("Tanh", "tanh"),
                      ("HardSigmoid", "hard_sigmoid"), ("HardSwish", "hard_swish"), ("SoftPlus", "softplus"),
                      ("Softmax", "softmax")]],
]


def _layer_cases(row):
    def call(x, row=row):
        return row.make()(x)

    prefix = f"[{row.variant}] " if row.variant else ""
    cases = [Case(row.name, f"{prefix}input {k}", lambda b=b: call(b), raises=(TypeError,),
                  names=(row.name, *row.names)) for k, b in NOT_ARRAYS.items()]
    cases += [Case(row.name, f"{prefix}input {k}", lambda b=b: call(b), names=(row.name, *row.names))
              for k, b in JUNK_LISTS.items()]
    rng = np.random.default_rng(3)
    inputs = {"NaN": np.where(np.arange(np.prod(row.shape)).reshape(row.shape) == 0, np.nan, 1.0),
              "int": rng.integers(-2, 3, row.shape), "bool": rng.random(row.shape) < 0.5,
              **{f"empty {s}": np.zeros(s) for s in row.empty}}
    cases += [Case(row.name, f"{prefix}input {k}", lambda a=a: call(a), names=(row.name, *row.names),
                   check=_shape_is(row.out(a.shape))) for k, a in inputs.items()]
    cases.append(Case(row.name, f"{prefix}0-d input", lambda: call(np.array(0.5)),
                      names=(row.name, *row.names), check=_shape_is(())))
    return cases


def _built(make, shape):
    layer = make()
    layer(np.ones(shape))
    return layer


LAYER_CALLS = [c for row in LAYER_ROWS for c in _layer_cases(row)] + [
    Case("Linear", "3 features for in_size 4", lambda: _built(lambda: L.Linear(2), (2, 4))(np.ones((2, 3)))),
    Case("Conv2d", "3 channels for in_channels 2",
         lambda: _built(lambda: L.Conv2d(2, 2), (1, 2, 4, 4))(np.ones((1, 3, 4, 4)))),
    Case("Conv2d", "3-D input", lambda: L.Conv2d(2, 2)(np.ones((2, 4, 4)))),
    Case("Conv3d", "4-D input", lambda: L.Conv3d(2, 2)(np.ones((2, 2, 4, 4)))),
    Case("Conv3d", "3 channels for in_channels 2",
         lambda: _built(lambda: L.Conv3d(2, 2), (1, 2, 3, 4, 4))(np.ones((1, 3, 3, 4, 4)))),
    Case("Conv3d", "a channels-last volume", lambda: L.Conv3d(2, 3)(np.ones((1, 16, 16, 16, 1)))),
    Case("Deconv2d", "3 channels for in_channels 2",
         lambda: _built(lambda: L.Deconv2d(2, 2), (1, 2, 4, 4))(np.ones((1, 3, 4, 4)))),
    Case("Deconv2d", "3-D input", lambda: L.Deconv2d(2, 2)(np.ones((2, 4, 4)))),
    Case("Deconv2d", "an outsize that does not fit",
         lambda: L.Deconv2d(2, 2)(np.ones((1, 2, 4, 4)), outsize=9), names=("Deconv2d", "deconv2d")),
    Case("Deconv1d", "4-D input", lambda: L.Deconv1d(2, 2)(np.ones((1, 2, 4, 4)))),
    Case("Deconv1d", "an outsize that does not fit",
         lambda: L.Deconv1d(2, 2)(np.ones((1, 2, 4)), outsize=9), names=("Deconv1d", "deconv1d")),
    Case("Deconv1d", "3 channels for in_channels 2",
         lambda: _built(lambda: L.Deconv1d(2, 2), (1, 2, 4))(np.ones((1, 3, 4)))),
    Case("Deconv3d", "4-D input", lambda: L.Deconv3d(2, 2)(np.ones((1, 2, 4, 4)))),
    Case("Deconv3d", "an outsize that does not fit",
         lambda: L.Deconv3d(2, 2)(np.ones((1, 2, 2, 2, 2)), outsize=(3, 3, 9)),
         names=("Deconv3d", "deconv3d")),
    Case("BatchNorm", "1-D input", lambda: L.BatchNorm()(np.ones(3))),
    Case("LayerNorm", "4 features for size 3", lambda: L.LayerNorm(3)(np.ones((2, 4)))),
    Case("RMSNorm", "4 features for size 3", lambda: L.RMSNorm(3)(np.ones((2, 4)))),
    Case("EmbedID", "id 6 of 6", lambda: L.EmbedID(6, 2)(np.array([0, 6])), names=("EmbedID", "embed_id")),
    Case("EmbedID", "float ids", lambda: L.EmbedID(6, 2)(np.array([0.0])), raises=(TypeError,),
         names=("EmbedID", "embed_id")),
    *[Case("EmbedID", f"ids {k}", lambda b=b: L.EmbedID(6, 2)(b), raises=(TypeError,), names=EMBED)
      for k, b in NOT_ARRAYS.items()],
    Case("EmbedID", "ids a ragged list", lambda: L.EmbedID(6, 2)([[0, 1], [2]]), names=EMBED),
]

LAYER_CASES = LAYER_CTORS + LAYER_CALLS


# ----- optimizers --------------------------------------------------------------------------------
class _NoLr(O.Optimizer):
    """A user's optimizer with a fixed step and no lr."""

    def update_one(self, param, grad):
        param.data -= 0.1 * grad


def _scheduled():
    """An SGD optimizer for a schedule's cases."""
    return O.MomentumSGD(lr=0.1).setup([_x(2)])


def _opt_cases(name, make, params):
    cases = []
    for param, extra in params.items():
        for k, v in {"str": "0.1", "None": None, "object": object(), "nan": math.nan, "inf": math.inf,
                     "True": True, "array": np.ones(2), **extra}.items():
            cases.append(Case(name, f"{param} {k}", lambda make=make, param=param, v=v: make(**{param: v})))
    return cases


OPTIMIZER_CASES = [
    *_opt_cases("SGD", O.SGD, {"lr": {"-1": -1.0}}),
    *_opt_cases("MomentumSGD", O.MomentumSGD, {"lr": {"-1": -1.0}, "momentum": {"1": 1.0, "-0.5": -0.5}}),
    *_opt_cases("AdaGrad", O.AdaGrad, {"lr": {"-1": -1.0}, "eps": {"-1": -1.0}}),
    *_opt_cases("RMSprop", O.RMSprop, {"lr": {"-1": -1.0}, "alpha": {"1": 1.0}, "eps": {"-1": -1.0},
                                       "momentum": {"1": 1.0, "-0.5": -0.5}}),
    *[Case("RMSprop", f"centered {label}", lambda v=v: O.RMSprop(centered=v), raises=(TypeError,))
      for label, v in [("str", "True"), ("None", None), ("1", 1), ("array", np.ones(2))]],
    *_opt_cases("AdaDelta", O.AdaDelta, {"lr": {"-1": -1.0}, "rho": {"1": 1.0}, "eps": {"0": 0.0}}),
    *_opt_cases("Adam", O.Adam,
                {"lr": {"-1": -1.0}, "beta1": {"1": 1.0}, "beta2": {"1.5": 1.5}, "eps": {"-1": -1.0}}),
    *_opt_cases("AdamW", O.AdamW, {"weight_decay": {"-1": -1.0}, "beta1": {"1": 1.0}}),
    *[Case(cls.__name__, f"amsgrad {label}", lambda cls=cls, v=v: cls(amsgrad=v), raises=(TypeError,))
      for cls in (O.Adam, O.AdamW)
      for label, v in [("str", "True"), ("None", None), ("1", 1), ("array", np.ones(2))]],
    *_opt_cases("Adamax", O.Adamax, {"lr": {"-1": -1.0}, "beta2": {"1": 1.0}, "eps": {"-1": -1.0}}),
    *_opt_cases("RAdam", O.RAdam, {"lr": {"-1": -1.0}, "beta1": {"1": 1.0}, "eps": {"-1": -1.0}}),
    *_opt_cases("NAdam", O.NAdam, {"lr": {"-1": -1.0}, "beta1": {"1": 1.0}, "beta2": {"1": 1.0},
                                   "momentum_decay": {"-1": -1.0}}),
    *[Case(name, label, lambda make=make: make(_scheduled()), raises=r,
           names=("StepLR",) if name == "LRScheduler" else ())    # (the base, met through StepLR)
      for name, label, make, r in [
          ("StepLR", "step_size 0", lambda o: O.StepLR(o, 0), ARG_ERRORS),
          ("StepLR", "gamma -1", lambda o: O.StepLR(o, 3, -1.0), ARG_ERRORS),
          ("StepLR", "gamma 'x'", lambda o: O.StepLR(o, 3, "x"), (TypeError,)),
          ("MultiStepLR", "milestones 3 (not a list)", lambda o: O.MultiStepLR(o, 3), (TypeError,)),
          ("MultiStepLR", "a milestone -1", lambda o: O.MultiStepLR(o, [2, -1]), ARG_ERRORS),
          ("ExponentialLR", "gamma None", lambda o: O.ExponentialLR(o, None), (TypeError,)),
          ("ConstantLR", "factor 2", lambda o: O.ConstantLR(o, 2.0), ARG_ERRORS),
          ("LinearLR", "start_factor 0", lambda o: O.LinearLR(o, 0.0), ARG_ERRORS),
          ("LinearLR", "total_iters 0", lambda o: O.LinearLR(o, total_iters=0), ARG_ERRORS),
          ("PolynomialLR", "total_iters 1.5", lambda o: O.PolynomialLR(o, 1.5), ARG_ERRORS),
          ("CosineAnnealingLR", "T_max 0", lambda o: O.CosineAnnealingLR(o, 0), ARG_ERRORS),
          ("CosineAnnealingLR", "eta_min -1", lambda o: O.CosineAnnealingLR(o, 5, -1.0), ARG_ERRORS),
          ("CosineAnnealingWarmRestarts", "T_mult 0", lambda o: O.CosineAnnealingWarmRestarts(o, 5, 0),
           ARG_ERRORS),
          ("LambdaLR", "lr_lambda 0.5 (not a function)", lambda o: O.LambdaLR(o, 0.5), (TypeError,)),
          ("OneCycleLR", "no total_steps", lambda o: O.OneCycleLR(o, 1.0), ARG_ERRORS),
          ("OneCycleLR", "anneal_strategy 'exp'", lambda o: O.OneCycleLR(o, 1.0, 10, anneal_strategy="exp"),
           ARG_ERRORS),
          ("OneCycleLR", "max_lr 0", lambda o: O.OneCycleLR(o, 0.0, 10), ARG_ERRORS),
          ("OneCycleLR", "pct_start 1", lambda o: O.OneCycleLR(o, 1.0, 10, pct_start=1.0), ARG_ERRORS),
          ("ReduceLROnPlateau", "mode 'minimum'", lambda o: O.ReduceLROnPlateau(o, "minimum"), ARG_ERRORS),
          ("ReduceLROnPlateau", "factor 1", lambda o: O.ReduceLROnPlateau(o, factor=1.0), ARG_ERRORS),
          ("ReduceLROnPlateau", "patience -1", lambda o: O.ReduceLROnPlateau(o, patience=-1), ARG_ERRORS),
          ("ReduceLROnPlateau", "a metric 'low'", lambda o: O.ReduceLROnPlateau(o).step("low"), (TypeError,)),
          ("LRScheduler", "the model for the optimizer", lambda o: O.StepLR(L.Linear(2), 3), (TypeError,)),
          ("LRScheduler", "an optimizer without lr", lambda o: O.StepLR(_NoLr().setup([_x(2)]), 3),
           (TypeError,)),
      ]],
    *_opt_cases("LBFGS", O.LBFGS, {"lr": {"0": 0.0, "-1": -1.0}, "tolerance_grad": {"-1": -1.0},
                                   "tolerance_change": {"-1": -1.0}, "max_iter": {"0": 0, "1.5": 1.5},
                                   "history_size": {"0": 0, "-1": -1}}),
    *[Case("LBFGS", f"max_eval {k}", lambda v=v: O.LBFGS(max_eval=v))
      for k, v in {"0": 0, "1.5": 1.5, "str": "10", "True": True, "array": np.ones(2)}.items()],
    *[Case("LBFGS", f"line_search_fn {k}", lambda v=v: O.LBFGS(line_search_fn=v))
      for k, v in {"'wolfe'": "wolfe", "True": True, "1": 1, "a function": abs}.items()],
    *_opt_cases("WeightDecay", O.WeightDecay, {"rate": {"-1": -1.0}}),
    *_opt_cases("ClipGrad", O.ClipGrad, {"max_norm": {"0": 0.0, "-1": -1.0}}),
    *[Case("FreezeParam", f"target {k}", lambda b=b: O.FreezeParam(b), raises=(TypeError,))
      for k, b in {**NOT_ARRAYS, "ndarray": np.ones(2)}.items()],
    *[Case(name, f"setup({k})", lambda name=name, b=b: getattr(O, name)().setup(b), raises=(TypeError,))
      for name in ("SGD", "MomentumSGD", "AdaGrad", "RMSprop", "AdaDelta", "Adam", "AdamW", "Adamax", "RAdam",
                   "LBFGS")
      for k, b in {**NOT_ARRAYS, "ndarray": np.ones(2), "a Parameter": L.Parameter(np.ones(2))}.items()],
    *[Case("Adam", f"add_hook({k})", lambda b=b: O.Adam().add_hook(b), raises=(TypeError,))
      for k, b in {"str": "clip", "None": None, "number": 1.0}.items()],
    Case("SGD", "update before setup", lambda: O.SGD().update(), raises=(RuntimeError,)),
]


# ----- known library bugs: these cases fail until the lead fixes them --------------------------
def _expand(pattern):
    """Brace expansion: 'a{b,c}d' -> ['abd', 'acd'] (no nesting)."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    head, tail = pattern[:m.start()], pattern[m.end():]
    return [p for alt in m.group(1).split(",") for p in _expand(head + alt + tail)]


def _matches(pattern, case_id):
    """True when `case_id` matches `pattern`, where '*' stands for any text (nothing else is special)."""
    return re.fullmatch(".*".join(re.escape(part) for part in pattern.split("*")), case_id) is not None


KNOWN_BUGS = []
"""(case-id patterns, '<file>:<line> <what>'): the library bugs this catalogue found.

Their cases are strict xfails: fix the bug, and the case's XPASS fails until its entry goes.
Patterns use brace expansion ('{a,b}') and '*' for any text; nothing else is special.
"""

KNOWN_PATTERNS = {p: reason for patterns, reason in KNOWN_BUGS for group in patterns for p in _expand(group)}


# ----- running the cases -------------------------------------------------------------------------
def _numeric_kinds(op):
    kinds = [("int", None), ("bool", None)]
    kinds += [(k, i) for k in ("nan", "inf") for i in op.float_positions()]
    if op.empty is not None:
        kinds.append(("empty", None))
    if op.zero_d is not None:
        kinds.append(("0-d", None))
    return kinds


def _type_cases(op):
    valid = _arguments(op, "valid", np.random.default_rng(0))
    cases = []
    for i in range(len(op.shapes)):
        for k, bad in {**NOT_ARRAYS, **JUNK_LISTS}.items():
            if bad is None and i in op.nullable:
                continue
            args = [bad if j == i else a for j, a in enumerate(valid)]
            raises = (TypeError,) if k in NOT_ARRAYS else op.errors
            call = lambda args=args, op=op: op.call(*args)
            cases.append(Case(op.name, f"{op.label} arg {i} {k}", call, raises))
    return cases


def _all_cases():
    cases = []
    for op in OPS:
        cases += [pytest.param(c, id=f"{c.op}-{c.label}") for c in _type_cases(op)]
        for kind, pos in _numeric_kinds(op):
            suffix = "" if pos is None else f" arg {pos}"
            cases.append(pytest.param((op, kind, pos), id=f"{op.name}-{op.label} {kind}{suffix}"))
    for c in EXTRA + API_CASES + LAYER_CASES + OPTIMIZER_CASES:
        cases.append(pytest.param(c, id=f"{c.op}-{c.label}"))
    marked = []
    for param in cases:
        reasons = [r for pattern, r in KNOWN_PATTERNS.items() if _matches(pattern, param.id)]
        marks = [pytest.mark.xfail(strict=True, reason=reasons[0])] if reasons else []
        marked.append(pytest.param(*param.values, id=param.id, marks=marks))
    return marked


CASES = _all_cases()


def _run(case: Case):
    """Call `case` with every warning an error; check the outcome against the case."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = case.call()
    except case.raises as error:
        assert names_op(str(error), case.all_names()), (
            f"{type(error).__name__} does not name {case.all_names()}: {error}")
        return
    assert case.check is not None, f"{case.op} accepted the bad input ({case.label}) and returned {result!r}"
    case.check(result)


def _numpy_answer(ref, arrays):
    """(value, exception, warned) of NumPy's formula on `arrays`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = ref(*[a.copy() for a in arrays])
        except Exception as error:  # noqa: BLE001 (any NumPy refusal counts)
            return None, error, bool(caught)
    return value, None, bool(caught)


def _as_list(out):
    return list(out) if isinstance(out, tuple) else [out]


def _assert_matches(op, out, expected):
    outs, refs = _as_list(out), _as_list(expected)
    assert len(outs) == len(refs), f"{op.label}: {len(outs)} outputs, NumPy gives {len(refs)}"
    for y, r in zip(outs, refs):
        if isinstance(y, float):
            np.testing.assert_allclose(y, r, rtol=1e-12)
            continue
        assert isinstance(y, V.Variable), f"{op.label} returned {type(y).__name__}"
        r = np.asarray(r)
        assert y.shape == r.shape, f"{op.label}: shape {y.shape}, NumPy gives {r.shape}"
        assert y.dtype == r.dtype, f"{op.label}: dtype {y.dtype}, NumPy gives {r.dtype}"
        if r.dtype.kind in "fc":
            np.testing.assert_allclose(y.data, r, rtol=1e-7, atol=1e-12, equal_nan=True)
        else:
            np.testing.assert_array_equal(y.data, r)


def _assert_gradient_shapes(out, inputs):
    outs = [y for y in _as_list(out) if isinstance(y, V.Variable) and y.requires_grad]
    wrt = [x for x in inputs if isinstance(x, V.Variable)]
    if not outs or not wrt:
        return
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")                    # NaN and inf may well warn here
        grads = V.grad(outs, wrt, allow_unused=True)
    for x, g in zip(wrt, grads):
        assert g is None or g.shape == x.shape, f"gradient of shape {g.shape} for an input of shape {x.shape}"


def _blas_flag(warning, arrays):
    """True for a floating-point flag a BLAS product raised on non-finite operands."""
    message = str(warning)
    from_blas = "invalid value" in message and ("matmul" in message or "dot" in message)
    return from_blas and any(a.dtype.kind == "f" and not np.isfinite(a).all() for a in arrays)


def test_blas_flag_is_accepted_only_for_products_of_non_finite_values():
    inf = np.array([np.inf, 1.0])
    assert _blas_flag(RuntimeWarning("invalid value encountered in matmul"), [inf])
    assert not _blas_flag(RuntimeWarning("invalid value encountered in matmul"), [np.ones(2)])
    assert not _blas_flag(RuntimeWarning("divide by zero encountered in log"), [inf])


def _run_numeric(op: Op, kind, position):
    arrays = _arguments(op, kind, np.random.default_rng(1), position)
    expected, numpy_error, numpy_warned = _numpy_answer(op.ref, arrays)
    inputs = [V.Variable(a) if a.dtype.kind == "f" else a for a in arrays]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = op.call(*inputs)
    except op.errors as error:
        assert names_op(str(error), _names(op.name)), (
            f"{type(error).__name__} does not name {op.name}: {error}")
        return
    except RuntimeWarning as warning:
        if numpy_warned:
            return
        # Whether a BLAS kernel raises the invalid flag on inf/NaN operands depends on the
        # CPU and the OpenBLAS kernel (AVX-512's does, Haswell's does not): accept that
        # flag there, but the values must still be NumPy's.
        assert _blas_flag(warning, arrays), f"{op.label} warns ({warning}) where NumPy's formula does not"
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = op.call(*inputs)
    assert numpy_error is None, f"{op.label} returned where NumPy refuses: {numpy_error!r}"
    _assert_matches(op, out, expected)
    _assert_gradient_shapes(out, inputs)


@pytest.mark.parametrize("case", CASES)
def test_bad_input(case, request):
    try:
        if isinstance(case, Case):
            _run(case)
        else:
            _run_numeric(*case)
    except Exception as error:
        if request.node.get_closest_marker("xfail") is None:
            raise
        # a known bug: report it in one line (formatting 350 full tracebacks through this
        # long module would cost half a minute); the strict xfail marker still applies
        pytest.fail(f"{type(error).__name__}: {error}", pytrace=False)


# ----- meta-tests ------------------------------------------------------------------------------
def _covered():
    return {op.name for op in OPS} | {c.op for c in EXTRA + API_CASES + LAYER_CASES + OPTIMIZER_CASES}


def test_every_public_op_and_function_is_in_the_table():
    table = {op.name for op in OPS}
    missing = sorted(set(V.OPS) - table) + sorted(set(V.LINALG_OPS) - table) + sorted(set(F.__all__) - table)
    assert not missing, f"public ops without a row in OPS of {__file__}: {missing}"


def test_every_functional_layer_and_optimizer_name_has_cases():
    wanted = {"grad", "jacobian", "hessian", "hvp", "gradcheck", "numerical_grad", "Variable", "as_variable"}
    wanted |= {n for n in L.__all__ if n not in ("Layer", "Model", "save_weights", "load_weights")}
    wanted |= {n for n in O.__all__ if n != "Optimizer"}
    missing = sorted(wanted - _covered())
    assert not missing, f"public names without bad-input cases in {__file__}: {missing}"


def test_every_known_bug_pattern_matches_a_case():
    ids = [p.id for p in CASES]
    stale = [pattern for pattern in KNOWN_PATTERNS if not any(_matches(pattern, i) for i in ids)]
    assert not stale, f"KNOWN_BUGS patterns that match no case (renamed or removed?): {stale}"


def test_names_op_matches_whole_words_only():
    assert names_op("Exp: inputs must be Variables", ("exp",))
    assert not names_op("relu: expects a Variable", ("exp",))
    assert names_op("GetItem: bad", ("get_item",))
    assert not names_op("sinh: bad", ("sin",))
    assert not names_op("setting an array element with a sequence", ("sum",))
