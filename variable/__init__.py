"""gengrad's core: Variable, Forwarder/Function, the backward engine and primitive ops."""

# isort: off
from .variable import Variable  # first: the op modules bind themselves to it
from .variable import AXIS_KEYWORDS, refuse_missing_name, refusing_foreign_keywords_among
# isort: on
from . import backend, saving, series
from .backend import get_array_module
from .backward import backward, grad  # (the function backward shadows its module's name)
from .checkpoint import checkpoint, checkpoint_sequential
from .config import enable_grad, is_backprop_enabled, is_train, no_grad, test_mode, using_config
from .forward_mode import jet, jvp, nth_derivative, taylor
from .forwarder import Forwarder, Function, as_variable
from .functional import hessian, hessian_operator, hvp, jacobian
from .gradcheck import GradcheckError, gradcheck, numerical_grad, taylor_gradcheck, taylorcheck
from .graph import get_dot_graph, graph_functions, plot_dot_graph, record_backward
from .memory import cache_limit, cached_memory, empty_cache, keep_freed_memory
from .operators import divergence, laplacian
from .ops.elementwise import add, div, exp, log, mul, neg, pow, sqrt, square, sub
from .ops.indexing import get_item
from .ops.joining import concat, split, stack
from .ops.matmul import matmul, transpose_matmul
from .ops.piecewise import abs, clip, maximum, minimum, where
from .ops.reduction import logsumexp, max, mean, min, sum, variance
from .ops.shape import (
    broadcast_to,
    expand_dims,
    flatten,
    reshape,
    squeeze,
    sum_to,
    transpose,
)
from .ops.trigonometric import cos, cosh, sin, sinh, tan, tanh
from .types import ArrayLike, Axis

# the op families added in NumPy's names: each module's __all__ lists its public ops
# isort: off
from .ops import (
    airy_functions, applying, array_api, bessel, contraction, differences, distribution_functions,
    distribution_inverses, division, elementary, elliptic_integrals, exponential, grids, histograms,
    hypergeometric, implicit, integrals, inverse_trig, kelvin_functions, ks_distribution, nanfunctions,
    polynomials, powers, products, quantiles, rearrange, rounding, selection, sequences, sets, signal,
    special, spherical_bessel, stacking, statistics,
)
from .ops.airy_functions import *  # noqa: F403
from .ops.spherical_bessel import *  # noqa: F403
from .ops.kelvin_functions import *  # noqa: F403
from .ops.elliptic_integrals import *  # noqa: F403
from .ops.hypergeometric import *  # noqa: F403
from .ops.applying import *  # noqa: F403
from .ops.bessel import *  # noqa: F403
from .ops.array_api import *  # noqa: F403
from .ops.contraction import *  # noqa: F403
from .ops.differences import *  # noqa: F403
from .ops.distribution_functions import *  # noqa: F403
from .ops.distribution_inverses import *  # noqa: F403
from .ops.division import *  # noqa: F403
from .ops.elementary import *  # noqa: F403
from .ops.exponential import *  # noqa: F403
from .ops.implicit import *  # noqa: F403
from .ops.integrals import *  # noqa: F403
from .ops.ks_distribution import *  # noqa: F403
from .ops.grids import *  # noqa: F403
from .ops.histograms import *  # noqa: F403
from .ops.inverse_trig import *  # noqa: F403
from .ops.nanfunctions import *  # noqa: F403
from .ops.polynomials import *  # noqa: F403
from .ops.powers import *  # noqa: F403
from .ops.products import *  # noqa: F403
from .ops.quantiles import *  # noqa: F403
from .ops.rearrange import *  # noqa: F403
from .ops.rounding import *  # noqa: F403
from .ops.selection import *  # noqa: F403
from .ops.sequences import *  # noqa: F403
from .ops.sets import *  # noqa: F403
from .ops.signal import *  # noqa: F403
from .ops.special import *  # noqa: F403
from .ops.stacking import *  # noqa: F403
from .ops.statistics import *  # noqa: F403
from . import linalg, stats
# isort: on

# NumPy's other names for the arithmetic above (its ufuncs' names, np.amax's and np.amin's)
absolute, negative, multiply, subtract, divide, true_divide, power = abs, neg, mul, sub, div, div, pow
amax, amin = max, min

_FAMILIES = (exponential, inverse_trig, rounding, statistics, products, contraction, rearrange,
             stacking, selection, differences, quantiles, nanfunctions, signal, powers, grids, array_api,
             sequences, polynomials, division, sets, histograms, applying, special, bessel, elementary,
             distribution_functions, distribution_inverses, integrals, implicit, ks_distribution,
             airy_functions, spherical_bessel, hypergeometric, kelvin_functions, elliptic_integrals)

OPS = (
    "add", "sub", "mul", "div", "neg", "pow", "square", "sqrt", "exp", "log",
    "sin", "cos", "tan", "tanh", "sinh", "cosh", "abs", "maximum", "minimum", "clip", "where",
    "reshape", "transpose", "flatten", "expand_dims", "squeeze", "broadcast_to", "sum_to",
    "get_item", "concat", "split", "stack",
    "sum", "mean", "variance", "max", "min", "logsumexp",
    "matmul", "transpose_matmul",
    "absolute", "negative", "multiply", "subtract", "divide", "true_divide", "power", "amax", "amin",
    *[name for family in _FAMILIES for name in family.__all__],
)
"""Names of the primitive ops this package exports (also re-exported by `function`)."""


# The exported ops that take NumPy's axis= refuse PyTorch's dim= and keepdim= by name
# (`V.sum(x, dim=1)`); the package's own modules call the functions themselves.
globals().update(refusing_foreign_keywords_among(globals(), OPS, (*AXIS_KEYWORDS, "unbiased")))
# torch.nn.functional's kl_div(log_q, p, reduction=...) is not SciPy's kl_div(p, q): named in full
globals().update(refusing_foreign_keywords_among(globals(), ["kl_div"], ("reduction", "log_target")))
# torch.autograd.functional's keywords
globals().update(refusing_foreign_keywords_among(globals(), ["jacobian", "hessian", "hvp"], (
    "strict", "vectorize", "strategy", "outer_jacobian_strategy")))

LINALG_OPS = tuple(f"linalg.{name}" for name in linalg.__all__ if name != "matmul")
"""The ops of `V.linalg` (np.linalg's names), as "linalg.<name>"."""

__all__ = [
    "Variable", "Forwarder", "Function", "as_variable", "backward", "grad", "no_grad", "enable_grad",
    "test_mode", "using_config", "is_backprop_enabled", "is_train", "numerical_grad", "gradcheck",
    "taylor_gradcheck",
    "GradcheckError", "jvp", "taylor", "nth_derivative", "jet", "taylorcheck", "series", "backend",
    "get_array_module",
    "get_dot_graph", "graph_functions", "plot_dot_graph", "record_backward", "jacobian", "hessian", "hvp",
    "hessian_operator", "laplacian", "divergence", "checkpoint", "checkpoint_sequential",
    "keep_freed_memory",
    "cache_limit", "cached_memory", "empty_cache",
    "ArrayLike", "Axis", "linalg", "stats", *OPS,
]


def __getattr__(name):
    """`V.Config` (the DeZero book's switch) names gengrad's context managers instead, and
    `V.cuda` (PyTorch's) what stands for it."""
    if name == "Config":
        raise AttributeError(
            "module 'variable' has no attribute 'Config': gengrad has no global switch; "
            "`with V.no_grad():` is Config.enable_backprop = False, `with V.test_mode():` is "
            "Config.train = False, and V.is_train() reads it"
        )
    if name == "cuda":
        raise AttributeError(
            "module 'variable' has no attribute 'cuda': torch.cuda.empty_cache() is "
            "V.empty_cache() (gengrad's cache of large arrays; CuPy keeps device memory in its own "
            "pool: cupy.get_default_memory_pool().free_all_blocks()), and moving data is "
            "x.to_gpu() / V.backend.set_default_device('gpu')"
        )
    refuse_missing_name("variable", name, _SPELLED_OTHERWISE)


_TORCH = "PyTorch's name"
_CONSTANT = ("np.{0}(...) is a constant array, which every op takes; V.Variable(np.{0}(...)) "
             "a leaf to differentiate")
_SPELLED_OTHERWISE = {
    "cat": (_TORCH, "V.concat(xs, axis)"),
    "tensor": (_TORCH, "V.Variable(np.array(data)) makes a leaf (requires_grad=False a constant)"),
    "Tensor": (_TORCH, "V.Variable"),
    "from_numpy": (_TORCH, "V.Variable(a) wraps the ndarray a (no copy)"),
    "manual_seed": (_TORCH, "L.seed(n) (import layers as L) seeds initial weights, data loaders "
                            "and dropout"),
    "set_grad_enabled": (_TORCH, "`with V.no_grad():` stops recording, `with V.enable_grad():` "
                                 "records again"),
    **dict.fromkeys(("detect_anomaly", "set_detect_anomaly"), (
        _TORCH, "there is no anomaly mode: `with np.errstate(all='raise'):` around the forward pass and "
                "backward() raises FloatingPointError at the NumPy operation that first makes an inf or a "
                "NaN, and V.record_backward() shows every gradient each backward step sends")),
    "func": ("torch.func", "V.grad(outputs, inputs), V.jacobian(f, x), V.hessian(f, x), V.hvp(f, x, v) and "
                           "V.jvp(f, x, v) are the transforms (V.jacobian and V.hessian of f itself)"),
    "vmap": ("torch.func's name", "the ops work on a batch along the leading axes as they are; many "
                                  "directions at once: V.jvp(f, x, V_batch, batched=True), V.jacobian(f, x)"),
    "parameters_to_vector": ("torch.nn.utils' name", "V.concat([V.reshape(p, -1) for p in model.params()])"),
    "inference_mode": (_TORCH, "`with V.no_grad():` (and `with V.test_mode():` for dropout and "
                               "batch norm)"),
    "autograd": (_TORCH, "V.grad(outputs, inputs) is torch.autograd.grad, V.backward(outputs) backward, "
                         "and V.jacobian, V.hessian, V.hvp and V.jvp the functional ones"),
    "unsqueeze": (_TORCH, "V.expand_dims(x, axis)"),
    "permute": (_TORCH, "V.permute_dims(x, axes) (or V.transpose(x, axes))"),
    "gather": (_TORCH, "V.take_along_axis(x, indices, axis)"),
    "index_select": (_TORCH, "V.take(x, indices, axis)"),
    "unbind": (_TORCH, "V.unstack(x, axis=axis)"),
    "chunk": (_TORCH, "V.array_split(x, n, axis)"),
    "clamp": (_TORCH, "V.clip(x, lo, hi)"),
    "lgamma": (_TORCH, "V.gammaln(x) (log|Gamma(x)|, SciPy's name)"),
    "psi": ("SciPy's other name", "V.digamma(x)"),
    "gradgradcheck": (_TORCH, "V.gradcheck(f, x, order=2) checks second derivatives (order=3 "
                              "third), the incoming gradient's included"),
    "bmm": (_TORCH, "V.matmul(x, y) (it multiplies batches of matrices over the leading axes)"),
    "numel": (_TORCH, "x.size"),
    "relu": (_TORCH, "F.relu(x) (import function as F)"),
    "sigmoid": (_TORCH, "F.sigmoid(x) (import function as F)"),
    "softmax": (_TORCH, "F.softmax(x, axis) (import function as F)"),
    "log_softmax": (_TORCH, "F.log_softmax(x, axis) (import function as F)"),
    "as_array": ("DeZero's name", "np.asarray(x)"),
    "Parameter": ("DeZero's name", "L.Parameter(data) (import layers as L)"),
    "utils": ("DeZero's (and PyTorch's) module", "V.get_dot_graph and V.plot_dot_graph draw a graph, "
                                                 "V.gradcheck and V.numerical_grad check gradients, and "
                                                 "torch.utils.checkpoint's functions are V.checkpoint "
                                                 "and V.checkpoint_sequential"),
    "gradient_check": ("DeZero's name", "V.gradcheck(f, x)"),
    **{name: ("NumPy's constructor, not an op", _CONSTANT.format(name))
       for name in ("zeros", "ones", "empty", "full", "eye", "identity")},
    "arange": ("NumPy's constructor, not an op", "np.arange(...) is a constant array, which every op "
                                                 "takes (integers: np.arange(n, dtype=float) for floats)"),
    **{name: ("NumPy's constructor, not an op", f"np.{name}(x) is a constant ndarray of x's shape "
                                                 f"and dtype, which every op takes")
       for name in ("zeros_like", "ones_like", "empty_like", "full_like")},
    "norm": ("torch.norm", "V.linalg.norm(x, ord, axis), np.linalg.norm's name"),
    "as_tensor": (_TORCH, "V.as_variable(data) (a Variable as is, other data as a constant Variable), "
                          "or V.Variable(data) for a leaf"),
    "detach": (_TORCH, "x.detach()"),
    "clone": (_TORCH, "x.copy() (differentiable)"),
    "is_grad_enabled": (_TORCH, "V.config.is_backprop_enabled()"),
    "float32": ("PyTorch's dtype", "np.float32: gengrad's dtypes are NumPy's"),
    "dist": (_TORCH, "V.linalg.norm(x - y)"),
    "cdist": (_TORCH, "V.linalg.norm(a[:, None, :] - b[None, :, :], axis=-1) for a (n, d) and b (m, d)"),
    # JAX's (and torch.func's) transformations: gengrad's take f and the point together
    "vjp": ("JAX's and torch.func's name", "y = f(x); V.grad(y, x, grad_outputs=u) is u^T J, "
                                           "without touching .grad"),
    "jacrev": ("JAX's and torch.func's name", "V.jacobian(f, x) (one forward pass where f(x) has "
                                              "as many entries as x or more, else reverse passes)"),
    "jacfwd": ("JAX's and torch.func's name", "V.jacobian(f, x) (one forward pass where f(x) has "
                                              "as many entries as x or more, else reverse passes)"),
    "value_and_grad": ("JAX's name", "y = f(x); g = V.grad(y, x): the value and the gradient, "
                                     "f run once"),
    "distributions": ("torch.distributions", "V.stats, under scipy.stats' names: Normal(mu, sigma)"
                                             ".log_prob(x) is V.stats.norm.logpdf(x, mu, sigma)"),
    "mvlgamma": (_TORCH, "V.multigammaln(a, d), SciPy's name"),
    **{name: (_TORCH, "rng = np.random.default_rng(seed), then rng.standard_normal(shape) or "
                      "rng.uniform(size=shape): constant arrays every op takes")
       for name in ("randn", "rand")},
    **{name: (_TORCH, "rng.standard_normal(x.shape) or rng.uniform(size=x.shape) with rng = "
                      "np.random.default_rng(seed), in x's dtype with .astype(x.dtype): constant arrays "
                      "every op takes")
       for name in ("randn_like", "rand_like")},
    "randint": (_TORCH, "rng.integers(low, high, shape) with rng = np.random.default_rng(seed)"),
    "randperm": (_TORCH, "rng.permutation(n) with rng = np.random.default_rng(seed)"),
    # torch.special's Bessel functions: SciPy's names here
    **{torch: (_TORCH, f"V.{ours}(x), SciPy's name") for torch, ours in (
        ("bessel_j0", "j0"), ("bessel_j1", "j1"), ("bessel_y0", "y0"), ("bessel_y1", "y1"),
        ("modified_bessel_i0", "i0"), ("modified_bessel_i1", "i1"), ("modified_bessel_k0", "k0"),
        ("modified_bessel_k1", "k1"), ("scaled_modified_bessel_k0", "k0e"),
        ("scaled_modified_bessel_k1", "k1e"))},
    # torch.special's orthogonal polynomials take (x, n): SciPy's take the degree first
    **{torch: (_TORCH, f"V.{ours}(n, x), SciPy's name (the degree n first)") for torch, ours in (
        ("legendre_polynomial_p", "eval_legendre"), ("chebyshev_polynomial_t", "eval_chebyt"),
        ("chebyshev_polynomial_u", "eval_chebyu"), ("hermite_polynomial_h", "eval_hermite"),
        ("hermite_polynomial_he", "eval_hermitenorm"), ("laguerre_polynomial_l", "eval_laguerre"))},
}
"""Names from PyTorch, DeZero and NumPy's constructors that `V.` spells otherwise, with the fix."""
