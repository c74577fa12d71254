"""NumPy's functions on Variables: `np.sin(x)`, `np.reshape(x, s)`, `np.linalg.det(x)` record
gengrad's op (NumPy's dispatch protocols, NEP 13 `__array_ufunc__` and NEP 18
`__array_function__`); a NumPy function with no gengrad op is refused at the call.

Three kinds of answer, decided by the NumPy name alone:

- **an op**: the gengrad function of the same name (`V.<name>`, `V.linalg.<name>` for
  np.linalg), called with the user's own arguments, since every op keeps NumPy's name,
  signature and semantics; a few NumPy names are spelled differently here (`_SPELLINGS`) or
  take NumPy-only keywords gengrad's older ops do not (`_ADAPTERS`);
- **no gradient to lose**: functions whose result is an index, a count, a shape, a boolean
  mask or a fresh constant (`np.argmax`, `np.shape`, `np.isnan`, `np.zeros_like`, ...) run on
  the data (`_DATA_ONLY`, `_DATA_UFUNCS`): their result does not depend differentiably on x;
- **refused**: everything else raises a TypeError naming the NumPy function (and the ufunc
  method), with what to use instead.

The only NumPy calls that turn a Variable into a plain float array are the conversions
`np.asarray(x)` / `np.array(x)` (also what plotting libraries call) and `x.numpy()`.
"""

import os
import sys

import numpy as np

# NumPy name -> gengrad name, where gengrad spells the op differently
_SPELLINGS = {
    "absolute": "abs", "negative": "neg", "true_divide": "div", "divide": "div",
    "multiply": "mul", "subtract": "sub", "power": "pow", "amax": "max", "amin": "min",
}

# ufuncs whose output is a boolean mask or an integer: no gradient, so they run on the data
_DATA_UFUNCS = frozenset([
    "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "isnan", "isinf",
    "isfinite", "signbit", "logical_and", "logical_or", "logical_xor", "logical_not", "isnat",
    # integer arithmetic of integer or boolean data (NumPy refuses float data itself)
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift", "gcd", "lcm",
    "bitwise_count",
])

# functions whose result has no gradient to lose: indices, counts, shapes, predicates and
# constants shaped like the input.  They run on the Variables' data.
_DATA_ONLY = frozenset([
    "argmax", "argmin", "nanargmax", "nanargmin", "argsort", "argpartition", "argwhere", "nonzero",
    "flatnonzero", "isin",
    "count_nonzero", "searchsorted", "digitize", "shape", "ndim", "size", "isclose", "allclose",
    "array_equal", "array_equiv", "isnan", "isinf", "isfinite", "isneginf", "isposinf", "isreal",
    "iscomplex", "isrealobj", "iscomplexobj", "isscalar", "zeros_like", "ones_like", "empty_like",
    "full_like", "result_type", "can_cast", "min_scalar_type", "may_share_memory",
    "shares_memory", "any", "all", "unravel_index", "ravel_multi_index", "bincount", "array_repr",
    "array_str", "array2string", "iterable", "ix_", "indices", "tril_indices_from",
    "triu_indices_from", "diag_indices_from", "common_type", "mintypecode", "lexsort", "einsum_path",
    "packbits", "unpackbits",
])

# NumPy's savers: they write a Variable's values (moved to the host first, as x.to_cpu() does)
_SAVERS = frozenset(["save", "savez", "savez_compressed", "savetxt"])


# np.linalg's functions whose result is an integer with no gradient (a rank)
_LINALG_DATA_ONLY = frozenset(["matrix_rank"])


def _ops():
    """The `variable` package (imported in full by the time NumPy calls back into it)."""
    return sys.modules[__package__]


def _data(value, host=False):
    """`value` with every Variable (also inside lists, tuples and dicts of keyword arguments)
    replaced by its data (`host`: moved to the host, as x.to_cpu() does)."""
    from .variable import Variable
    if isinstance(value, Variable):
        if host:
            from .backend import to_cpu
            return to_cpu(value._data)
        return value._data
    if isinstance(value, (list, tuple)):
        return type(value)(_data(v, host) for v in value)
    if isinstance(value, dict):                      # (keyword arguments: np.bincount(x, weights=w))
        return {key: _data(v, host) for key, v in value.items()}
    return value


def _op_for(name, linalg=False):
    """gengrad's op for the NumPy function `name` (np.linalg's with `linalg`), or None."""
    package = _ops()
    if linalg:
        op = getattr(package.linalg, name, None)
        return op if name in package.linalg.__all__ else None
    if name in _ADAPTERS:
        return _ADAPTERS[name]
    spelled = _SPELLINGS.get(name, name)
    return getattr(package, spelled) if spelled in package.OPS else None


_DENSITY = ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")
_V_STATS = (("norm", _DENSITY + ("ppf", "isf"), "x, loc, scale"),
            ("t", _DENSITY + ("ppf", "isf"), "x, df, loc, scale"),
            ("gamma", _DENSITY + ("ppf", "isf"), "x, a, loc, scale"),
            ("chi2", _DENSITY + ("ppf", "isf"), "x, df, loc, scale"),
            ("beta", _DENSITY + ("ppf", "isf"), "x, a, b, loc, scale"), ("expon", _DENSITY, "x, loc, scale"),
            *[(name, _DENSITY, "x, loc, scale") for name in ("laplace", "logistic", "cauchy", "uniform",
                                                              "halfnorm")],
            ("lognorm", _DENSITY, "x, s, loc, scale"), ("skewnorm", _DENSITY, "x, a, loc, scale"),
            ("weibull_min", _DENSITY + ("ppf", "isf"), "x, c, loc, scale"),
            ("pareto", _DENSITY + ("ppf", "isf"), "x, b, loc, scale"),
            *[(name, _DENSITY + ("ppf", "isf"), "x, loc, scale")
              for name in ("gumbel_r", "gumbel_l", "rayleigh")],
            ("vonmises", ("pdf", "logpdf"), "x, kappa, loc, scale"),
            ("kstwobign", _DENSITY + ("ppf", "isf"), "x, loc, scale"),
            ("ksone", _DENSITY + ("ppf", "isf"), "x, n, loc, scale"),
            ("tukeylambda", _DENSITY + ("ppf", "isf"), "x, lam, loc, scale"),
            ("invgamma", _DENSITY + ("ppf", "isf"), "x, a, loc, scale"),
            *[(name, _DENSITY + ("ppf", "isf"), "x, c, loc, scale") for name in ("lomax", "invweibull")],
            ("poisson", ("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf"), "k, mu, loc"),
            ("binom", ("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf"), "k, n, p, loc"),
            ("dirichlet", ("pdf", "logpdf"), "x, alpha"),
            ("multivariate_normal", ("pdf", "logpdf"), "x, mean, cov"))
"""variable/stats.py's distributions and methods, with their arguments as SciPy orders them."""

def _first_q(method, arguments):
    """A method's arguments as SciPy names them: a quantile's first is q, not x."""
    return arguments.replace("x", "q", 1) if method in ("ppf", "isf") else arguments


SCIPY_SPELLINGS = {
    # ufuncs (refused here)
    "expit": "F.sigmoid(x)", "log_expit": "-F.softplus(-x)",
    # functions written in Python (refused where they convert: variable.py's _scipy_caller)
    "logsumexp": "V.logsumexp(x, axis)", "softmax": "F.softmax(x, axis)",
    "log_softmax": "F.log_softmax(x, axis)", "norm": "V.linalg.norm(x)", "det": "V.linalg.det(x)",
    "inv": "V.linalg.inv(x)", "solve": "V.linalg.solve(a, b)", "cholesky": "V.linalg.cholesky(x)",
    "eigh": "V.linalg.eigh(x)", "svd": "V.linalg.svd(x)", "qr": "V.linalg.qr(x)",
    "polygamma": "V.polygamma(n, x)", "factorial": "V.gamma(x + 1) (factorial's exact=False values)",
    **{f"spherical_{kind}": f"V.spherical_{kind}(n, x, derivative)" for kind in ("jn", "yn", "in", "kn")},
    "kelvin": "its four complex values' real and imaginary parts: V.ber(x), V.bei(x), V.ker(x), V.kei(x), "
              "V.berp(x), V.beip(x), V.kerp(x), V.keip(x); gengrad's Variables are real",
    # scipy.stats' distributions (looked up as "norm.<method>"): those of V.stats, and two more
    **{f"{dist}{gen}.{method}": f"V.stats.{dist}.{method}({_first_q(method, arguments)})"
       for dist, methods, arguments in _V_STATS for method in methods for gen in ("", "_gen")},
    "multivariate_normal_gen.entropy": "V.stats.multivariate_normal.entropy(mean, cov)",
    "f.cdf": "V.fdtr(dfn, dfd, x)", "f.sf": "V.fdtrc(dfn, dfd, x)",
    **{f"{dist}{gen}.{method}": f"V.stats.{dist}.{method}(q, {arguments})"
       for dist, arguments in (("norm", "loc, scale"), ("t", "df, loc, scale"), ("gamma", "a, loc, scale"),
                               ("chi2", "df, loc, scale"), ("beta", "a, b, loc, scale"))
       for method in ("ppf", "isf") for gen in ("", "_gen")},
    "f.ppf": "V.fdtri(dfn, dfd, q)",
}
"""SciPy's functions and ufuncs that gengrad's ops spell, for the messages refusing them."""


def scipy_spelling(call):
    """gengrad's spelling of the SciPy function `call` ("scipy.stats.norm.logcdf": as
    "norm.logcdf", then "logcdf"), or None."""
    parts = call.split(".")
    return SCIPY_SPELLINGS.get(".".join(parts[-2:]), SCIPY_SPELLINGS.get(parts[-1]))


_SCIPY_UFUNC_OPS = {}
"""scipy.special's ufunc name -> the op that computes it, from the packages that define it
(function/ registers expit as F.sigmoid): `register_scipy_ufunc`."""


def register_scipy_ufunc(name, op):
    """Let `scipy.special.<name>(x)` on a Variable record `op(x)` (op: Variables in and out)."""
    _SCIPY_UFUNC_OPS[name] = op


def _scipy_ufunc_op(name):
    """The op registered for scipy.special's ufunc `name`, or None; `function` is imported
    first (it registers expit and log_expit), so they record where only `variable` was."""
    if name not in _SCIPY_UFUNC_OPS:
        import function  # noqa: F401
    return _SCIPY_UFUNC_OPS.get(name)


def _refusal(what, name, linalg=False):
    """The TypeError for a NumPy (or SciPy) function with no gengrad op."""
    where = "V.linalg" if linalg else "V"
    library = "SciPy" if what.startswith("scipy") else "NumPy"
    spelling = scipy_spelling(name) if library == "SciPy" else None
    spelled = f" ({spelling})" if spelling else ""
    return TypeError(
        f"{what} does not take Variables: gengrad has no {name} op, and {library} would drop the "
        f"graph. Write it with gengrad ops{spelled or f' ({where}.*)'}, or as a V.Forwarder with "
        f"its own backward (docs/custom_functions.md); {what.split('(')[0]}"
        f"{'(x.data)' if what.endswith('(x)') else '(x.data, ...)'} gives a plain array without gradient"
    )


# ----- ufuncs (NEP 13) ----------------------------------------------------------
_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
               "logaddexp": "logsumexp", "fmax": "max", "fmin": "min"}
_ACCUMULATIONS = {"add": "cumsum", "multiply": "cumprod"}


_CALLS = {}  # ufunc or NumPy function -> gengrad's op, once found: the fast path


def array_ufunc(ufunc, method, inputs, kwargs):
    """`ufunc.method(*inputs, **kwargs)` with a Variable among the inputs."""
    if method == "__call__" and not kwargs:
        op = _CALLS.get(ufunc)
        if op is not None:
            return op(*inputs)
    name = ufunc.__name__
    what = f"{_namespace_of(ufunc)}.{name}" + ("" if method == "__call__" else f".{method}")
    if kwargs.get("out") is not None:
        raise TypeError(
            f"{what}(..., out=...): an array cannot be written in place from a Variable; "
            f"use its .data (no gradient), or write a = a + x for a Variable"
        )
    kwargs = {k: v for k, v in kwargs.items() if not (k == "out" and v is None)}
    if method == "__call__":
        if name in _DATA_UFUNCS:
            return ufunc(*_data(inputs), **kwargs)
        op = _op_for(name)
        if op is None and (what.startswith("scipy.") or _private_scipy_ufunc(ufunc)):
            op = _scipy_ufunc_op(name)
        if op is None:
            raise _refusal(*_shown(ufunc, what, name))
        if kwargs:
            if ufunc.signature is not None:      # a gufunc (np.vecdot): its axis keywords are the op's
                return op(*inputs, **kwargs)
            _no_keywords(what, kwargs, allowed=())
        _CALLS[ufunc] = op
        return op(*inputs)
    if method == "reduce" and name in _REDUCTIONS:
        return _reduce(what, name, inputs, kwargs)
    if method == "accumulate" and name in _ACCUMULATIONS:
        (x,), axis = inputs, kwargs.pop("axis", 0)
        _no_keywords(what, kwargs, allowed=("dtype",))
        return _named(_ACCUMULATIONS[name], what)(x, axis=axis)
    if method == "outer" and len(inputs) == 2 and _op_for(name) is not None:
        _no_keywords(what, kwargs, allowed=())
        return _outer(_op_for(name), *inputs)
    raise TypeError(
        f"{what} does not take Variables: gengrad has no op for the ufunc method "
        f"{name}.{method}, and NumPy would drop the graph. "
        + _METHOD_HINTS.get(method, "Write it with gengrad ops (V.*) or as a V.Forwarder")
        + f"; {what}(x.data) gives a plain array without gradient"
    )


def _private_scipy_ufunc(ufunc):
    """Whether `ufunc` is one of scipy.special's private ufuncs (zeta's _riemann_zeta and _zeta)."""
    private = sys.modules.get("scipy.special._ufuncs")
    return private is not None and getattr(private, ufunc.__name__, None) is ufunc


def _shown(ufunc, what, name):
    """(the call, the name) a refusal shows, its arguments counted (x, or x1, x2, ...): a ufunc
    that is not public in NumPy or SciPy by the public scipy.special function that called it,
    found on the stack."""
    special = sys.modules.get("scipy.special")
    arguments = "(x)" if ufunc.nin == 1 else "(" + ", ".join(f"x{i}" for i in range(1, ufunc.nin + 1)) + ")"
    if what.startswith("the ufunc") and special is not None:
        frame = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            if f"scipy{os.sep}special" in code.co_filename and callable(getattr(special, code.co_name, None)):
                return f"scipy.special.{code.co_name}{arguments}", code.co_name
            frame = frame.f_back
    return what + arguments, name


def _namespace_of(ufunc):
    """'np' for NumPy's ufunc, 'scipy.special' for SciPy's (as a caller writes them)."""
    if getattr(np, ufunc.__name__, None) is ufunc:
        return "np"
    special = sys.modules.get("scipy.special")
    if special is not None and getattr(special, ufunc.__name__, None) is ufunc:
        return "scipy.special"
    return "the ufunc"


_METHOD_HINTS = {
    "reduce": "Reductions gengrad has: np.add.reduce (V.sum), np.multiply.reduce (V.prod), "
              "np.maximum/np.minimum.reduce (V.max/V.min), np.logaddexp.reduce (V.logsumexp)",
    "accumulate": "Accumulations gengrad has: np.add.accumulate (V.cumsum), "
                  "np.multiply.accumulate (V.cumprod)",
    "outer": "ufunc.outer works for the binary ufuncs gengrad has (np.multiply.outer, np.add.outer, ...)",
    "at": "In-place updates are not differentiable; build the result with V.where or indexing",
    "reduceat": "Write it as a sum of slices (x[i:j].sum(axis)) joined with V.stack",
}


def _reduce(what, name, inputs, kwargs):
    """ufunc.reduce(x, axis=0, keepdims=False) as gengrad's reduction."""
    x, = inputs
    axis = kwargs.pop("axis", 0)
    keepdims = kwargs.pop("keepdims", False)
    gengrad_name = _REDUCTIONS[name]
    taken = {key: kwargs.pop(key) for key in _REDUCE_KEYWORDS.get(gengrad_name, ()) if key in kwargs}
    taken = {key: value for key, value in taken.items() if value is not np._NoValue and value is not True}
    _no_keywords(what, kwargs, allowed=("dtype", "initial", "where"))
    op = _named(gengrad_name, what)
    return op(x, axis=axis, keepdims=keepdims, **taken)


# NumPy's reduce keywords that gengrad's reduction takes too
_REDUCE_KEYWORDS = {"sum": ("initial", "where"), "max": ("initial", "where"), "min": ("initial", "where"),
                    "prod": ("initial", "where")}


def _outer(op, a, b):
    """ufunc.outer(a, b): op(a[..., None, ...], b), a's axes first."""
    package = _ops()
    a, b = package.as_variable(a, b), package.as_variable(b, a)
    return op(package.reshape(a, a.shape + (1,) * b.ndim), b)


def _named(gengrad_name, what):
    op = getattr(_ops(), gengrad_name, None)
    if op is None:
        raise TypeError(f"{what} does not take Variables yet: gengrad has no {gengrad_name} op")
    return op


def _no_keywords(what, kwargs, allowed):
    """Refuse NumPy keywords gengrad cannot honour (a value other than NumPy's default)."""
    defaults = {"dtype": None, "out": None, "initial": np._NoValue, "where": True,
                "casting": "same_kind", "order": "K", "subok": True, "signature": None}
    for key, value in kwargs.items():
        if key in defaults and (value is defaults[key] or (key == "where" and value is True)):
            continue
        if key in allowed and value is None:
            continue
        raise TypeError(
            f"{what}(..., {key}=...) on a Variable: {key} is not supported; call it on x.data "
            f"for a plain array, or use gengrad's op"
        )


# ----- functions (NEP 18) -------------------------------------------------------
def array_function(func, types, args, kwargs):
    """`func(*args, **kwargs)` (a NumPy function) with a Variable among its arguments."""
    op = _CALLS.get(func)
    if op is not None and len(types) == 1:  # Variables only: gengrad's op, found before
        return op(*args, **kwargs)
    from .backend import DEVICE_TYPES
    from .variable import Variable
    if not all(issubclass(t, (Variable, np.ndarray)) or t in DEVICE_TYPES or t.__module__.startswith("cupy")
               for t in types):
        return NotImplemented  # another array library's type: let it answer
    name = func.__name__
    module = getattr(func, "__module__", "numpy") or "numpy"
    linalg = module.startswith("numpy.linalg")
    namespace = _namespace(module)
    what = f"{namespace}.{name}"
    if not linalg and name in _DIFFERENTIABLE_EXTRAS:   # np.bincount(i, weights=w), np.full_like(a, w)
        answer = _DIFFERENTIABLE_EXTRAS[name](func, args, kwargs)
        if answer is not None:
            return answer
    if (name in _LINALG_DATA_ONLY) if linalg else (name in _DATA_ONLY):
        return func(*_data(args), **_data(kwargs))
    if not linalg and name in _SAVERS:
        return func(*_data(args, host=True), **_data(kwargs, host=True))
    filling = _called_by_numpy("full_like", "full") if name == "copyto" else None
    if filling is not None:                          # np.full_like(a, w), a an ndarray; np.full(n, w, dtype)
        raise _fill_refusal(f"np.{filling}")
    if namespace == "np.fft" and name in ("fftshift", "ifftshift"):  # real: rolls
        return _fft_shift(*args, name=name, **kwargs)
    if namespace == "np.fft":  # complex results: gengrad's Variables are real
        raise TypeError(
            f"{what}(x) does not take Variables: gengrad has no FFT (its Variables are real, and "
            f"the transform is complex), and NumPy would drop the graph; {what}(x.data) gives a "
            f"plain array without gradient"
        )
    op = _op_for(name, linalg)
    if op is None:
        raise _refusal(what + "(x)", name, linalg)
    if namespace == "np.emath":  # NumPy's answer is complex outside the real domain
        _refuse_complex(func, what, args, kwargs)
        return op(*args, **kwargs)
    _CALLS[func] = op
    return op(*args, **kwargs)


def _traced(value):
    """True for a Variable that requires grad while a graph is recorded."""
    from .config import is_backprop_enabled
    from .variable import Variable
    return isinstance(value, Variable) and value.requires_grad and is_backprop_enabled()


def _bincount(func, args, kwargs):
    """np.bincount(x, weights=w, minlength) with weights that require grad: the sums of w into
    the bins, recorded (a scatter-add; each weight's gradient is its bin's); None otherwise."""
    bound = _bind(args, kwargs, ("x", "weights", "minlength"), {"weights": None, "minlength": 0})
    if bound is None or not _traced(bound["weights"]):
        return None
    from .backend import get_array_module
    from .ops.histograms import _binned
    ops = _ops()
    x, weights = _data(bound["x"]), bound["weights"]
    if np.shape(x) != weights.shape:
        raise ValueError(f"np.bincount: weights of shape {weights.shape} must have the shape of x, "
                         f"{np.shape(x)}")
    try:                                             # (NumPy checks x and minlength)
        count = func(x, minlength=bound["minlength"]).shape[0]
    except (TypeError, ValueError) as error:
        raise type(error)(f"np.bincount: {error}") from None
    w = weights if weights.dtype == np.float64 else weights.astype(np.float64)
    index = get_array_module(weights._data).asarray(x, dtype=np.intp)
    return _binned(index, count, ops.reshape(w, (w.size,)))


def _full_like(func, args, kwargs):
    """np.full_like(a, fill_value, dtype, ..., shape) with a fill_value that requires grad: the
    value broadcast to the shape, a new Variable (recorded); None otherwise."""
    names = ("a", "fill_value", "dtype", "order", "subok", "shape", "device")
    bound = _bind(args, kwargs, names, {"dtype": None, "order": "K", "subok": True, "shape": None,
                                        "device": None})
    if bound is None or not _traced(bound["fill_value"]):
        return None
    dtype = np.dtype(bound["dtype"]) if bound["dtype"] is not None else np.result_type(_data(bound["a"]))
    if dtype.kind != "f":                            # (whole numbers: no gradient; NumPy's answer)
        return None
    ops = _ops()
    shape = np.shape(bound["a"]) if bound["shape"] is None else tuple(np.atleast_1d(bound["shape"]))
    fill = bound["fill_value"]
    fill = fill if fill.dtype == dtype else fill.astype(dtype)
    return ops.positive(ops.broadcast_to(fill, shape))


def _bind(args, kwargs, names, defaults):
    """`args` and `kwargs` of a call by the function's parameter `names` (with `defaults`), or
    None where they do not fit (NumPy then answers with its own error)."""
    if len(args) > len(names) or set(kwargs) - set(names):
        return None
    bound = dict(defaults, **dict(zip(names, args)), **kwargs)
    return bound if all(name in bound for name in names) else None


_DIFFERENTIABLE_EXTRAS = {"bincount": _bincount, "full_like": _full_like}
"""_DATA_ONLY functions with an argument besides the data that may carry a gradient: they
record an op when it requires grad (np.bincount's weights, np.full_like's fill_value)."""


def _called_by_numpy(*names):
    """Which of NumPy's own functions `names` is calling down into this dispatch, or None."""
    frame = sys._getframe(1)
    ours = os.path.dirname(__file__) + os.sep
    while frame is not None and frame.f_code.co_filename.startswith(ours):   # (this dispatch's own)
        frame = frame.f_back
    numpy_dir = os.path.dirname(np.__file__) + os.sep
    while frame is not None and frame.f_code.co_filename.startswith(numpy_dir):
        if frame.f_code.co_name in names:
            return frame.f_code.co_name
        frame = frame.f_back
    return None


def _fill_refusal(call):
    """The error for np.full(shape, w) and np.full_like(a, w) with w a Variable: NumPy's code fills
    an ndarray, which keeps no graph."""
    return ValueError(
        f"{call}(..., fill_value): the fill value is a Variable, and NumPy's code copies its values "
        f"into a new ndarray, which keeps no graph, so its gradient would be silently lost; "
        f"V.broadcast_to(w, shape) (+ 0.0 for a copy) fills with its graph; give w.item() (w.data) "
        f"for the value alone"
    )


def _fft_shift(x, axes=None, *, name):
    """np.fft.fftshift (`name`; or ifftshift) of a Variable: a roll by half of each axis."""
    from .axes import normalize_axis
    ops = _ops()
    x = ops.as_variable(x, op=name)
    axes = tuple(range(x.ndim)) if axes is None else normalize_axis(axes, x.ndim, name)
    shifts = tuple(-(x.shape[a] // 2) if name == "ifftshift" else x.shape[a] // 2 for a in axes)
    return ops.roll(x, shifts, axis=axes)


_NAMESPACES = (("numpy.linalg", "np.linalg"), ("numpy.fft", "np.fft"), ("numpy.lib.scimath", "np.emath"),
               ("numpy.emath", "np.emath"))


def _namespace(module):
    """How a user spells the NumPy namespace of a function defined in `module`."""
    return next((public for prefix, public in _NAMESPACES if module.startswith(prefix)), "np")


def _refuse_complex(func, what, args, kwargs):
    """Refuse np.emath's `func` where NumPy's own result on the data is complex (the square
    root of a negative number): gengrad's op would give NaN there, not NumPy's answer."""
    from .backend import DEVICE_TYPES
    data_args, data_kwargs = _data(args), _data(kwargs)
    if any(type(a) in DEVICE_TYPES for a in (*data_args, *data_kwargs.values())):
        raise TypeError(
            f"{what}(x): NumPy's emath runs on host arrays only (its result is complex outside the "
            f"real domain); on the GPU use the real function ({what.replace('np.emath', 'np')}: NaN "
            f"outside its domain) or x.to_cpu()"
        )
    with np.errstate(all="ignore"):
        result = func(*data_args, **data_kwargs)
    if np.iscomplexobj(result):
        raise ValueError(
            f"{what}(x): x holds values outside the real domain, where NumPy's answer is complex "
            f"(np.emath.sqrt(-4) = 2j), and gengrad's Variables are real; use the real function "
            f"({what.replace('np.emath', 'np')}: NaN there), or {what}(x.data) for the complex "
            f"values without gradient"
        )


# ----- NumPy signatures for gengrad's older ops -------------------------------------
def _reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """np.reshape(a, shape, order='C') on a Variable."""
    if order != "C":
        raise TypeError(f"np.reshape(x, order={order!r}): only order='C' is supported on a Variable")
    if shape is None:
        shape = newshape
    return _ops().reshape(a, shape)


def _given(**keywords):
    """The keywords a NumPy reduction got with other values than its defaults."""
    return {k: v for k, v in keywords.items() if not (v is None or v is np._NoValue or v is True)}


# np.sum(x) and friends are the Variable methods, which check NumPy's keywords (variable.py)
def _sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue, where=True):
    """np.sum(a, axis, ..., keepdims) on a Variable."""
    return _ops().Variable.sum(_ops().as_variable(a), axis, keepdims,
                               **_given(dtype=dtype, out=out, initial=initial, where=where))


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """np.mean(a, axis, ..., keepdims) on a Variable."""
    return _ops().Variable.mean(_ops().as_variable(a), axis, keepdims,
                                **_given(dtype=dtype, out=out, where=where))


def _extremum(name):
    def extremum(a, axis=None, out=None, keepdims=False, initial=np._NoValue, where=True):
        method = getattr(_ops().Variable, name)
        return method(_ops().as_variable(a), axis, keepdims, **_given(out=out, initial=initial, where=where))
    extremum.__doc__ = f"np.{name}(a, axis, keepdims) on a Variable."
    return extremum


def _clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue, max=np._NoValue,
          **kwargs):
    """np.clip(a, a_min, a_max) on a Variable (NumPy 2's min=/max= spellings too)."""
    if out is not None or kwargs:
        raise TypeError("np.clip(x, ..., out=/dtype=...) on a Variable: only a_min and a_max are supported")
    lo = a_min if a_min is not np._NoValue else (None if min is np._NoValue else min)
    hi = a_max if a_max is not np._NoValue else (None if max is np._NoValue else max)
    return _ops().clip(a, lo, hi)


def _where(condition, x=np._NoValue, y=np._NoValue):
    """np.where(c, x, y) records the op; np.where(c) gives the indices (no gradient)."""
    if x is np._NoValue and y is np._NoValue:
        return np.nonzero(_data(condition))
    return _ops().where(_data(condition), x, y)


def _transpose(a, axes=None):
    return _ops().transpose(a, axes)


def _squeeze(a, axis=None):
    return _ops().squeeze(a, axis)


def _expand_dims(a, axis):
    return _ops().expand_dims(a, axis)


def _broadcast_to(array, shape, subok=False):
    return _ops().broadcast_to(array, shape)


def _copy(a, order="K", subok=False):
    """np.copy(x): a recorded copy, as torch.clone (the gradient flows through)."""
    return _ops().positive(a)


def _astype(x, dtype, /, *, copy=True, device=None):
    """np.astype(x, dtype) (NumPy 2's Array API function): the method x.astype."""
    if device is not None:
        raise TypeError("np.astype(x, dtype, device=...): move a Variable with x.to_gpu() / x.to_cpu()")
    from .variable import Variable
    if not isinstance(x, Variable):
        raise TypeError(f"np.astype: x must be an array, got {type(x).__name__}")
    return x.astype(dtype, copy)


_ADAPTERS = {
    "astype": _astype, "reshape": _reshape, "sum": _sum, "mean": _mean, "max": _extremum("max"),
    "min": _extremum("min"), "amax": _extremum("max"), "amin": _extremum("min"), "clip": _clip,
    "where": _where, "transpose": _transpose, "squeeze": _squeeze, "expand_dims": _expand_dims,
    "broadcast_to": _broadcast_to, "copy": _copy,
}
