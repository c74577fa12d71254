"""The Variable: an ndarray with a gradient and a link to the Function that made it."""

from __future__ import annotations  # the methods return Variable, defined below them

import ast
import contextvars
import dis
import functools
import inspect
import linecache
import math
import os
import sys
import sysconfig
import warnings
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import backend
from .config import _enable_backprop
from .numpy_dispatch import scipy_spelling

if TYPE_CHECKING:  # names used only in annotations
    from .forwarder import Function
    from .types import ArrayLike, Axis


def _as_data(data):
    """Return `data` as an ndarray suitable for a Variable, or raise a clear TypeError."""
    if isinstance(data, Variable):
        raise TypeError("Variable: data is already a Variable; use it directly")
    if isinstance(data, (bool, int, float)) and not isinstance(data, np.generic):
        data = np.asarray(data, dtype=bool if isinstance(data, bool) else np.float64)
    elif isinstance(data, np.generic):  # NumPy scalars keep their dtype
        data = np.asarray(data)
    elif isinstance(data, (list, tuple)):
        _refuse_variables_inside(data, "Variable")
        try:
            data = np.asarray(data, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise TypeError(f"Variable: cannot turn {data!r} into a float array ({error})") from None
    elif not isinstance(data, np.ndarray) and not backend.is_device_array(data):
        if isinstance(data, complex):
            raise TypeError(_COMPLEX.format(op="Variable"))
        raise TypeError(
            f"Variable: data must be an ndarray, a Python number or a list of numbers, "
            f"got {type(data).__name__}"
        )
    return _plain_array(data, "Variable")


def _cast_data(data, dtype):
    """`data` (an array `_as_data` gave) in the real dtype `dtype`, or a TypeError naming it."""
    try:
        wanted = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"Variable: dtype must be a NumPy dtype such as np.float32, got {dtype!r}") from None
    if wanted.kind not in "biuf":
        raise TypeError(_COMPLEX.format(op="Variable") if wanted.kind == "c" else
                        f"Variable: dtype must be a real numeric dtype, got {wanted}")
    return data.astype(wanted, copy=False)


_COMPLEX = (
    "{op}: complex data is not differentiated by gengrad; keep the real and imaginary "
    "parts as two float Variables (np.real(z), np.imag(z))"
)


def _plain_array(array, op):
    """`array` as a plain real ndarray (or device array), or a TypeError saying what to pass instead."""
    if type(array) is not np.ndarray and not backend.is_device_array(array):
        if isinstance(array, _ReadInBackward):
            raise array._slip_in_op(op)
        if isinstance(array, np.matrix):
            raise TypeError(
                f"{op}: np.matrix is not supported (its * is a matrix product, so gradients "
                f"would be wrong); pass np.asarray(m) and use @ for matrix products"
            )
        if isinstance(array, np.ma.MaskedArray):
            raise TypeError(
                f"{op}: masked arrays are not supported (the mask would be silently lost); "
                f"pass m.filled(value), or the data with a 0/1 weight array you multiply by"
            )
        array = np.asarray(array)  # other subclasses (memmap, ...) as plain ndarrays
    if array.dtype.kind not in "biuf":
        if array.dtype.kind == "c":
            raise TypeError(_COMPLEX.format(op=op))
        raise TypeError(f"{op}: data must be real numbers, got dtype {array.dtype}")
    return array


def _on_gpu(what):
    return (
        f"{what}: the data is on the GPU, and a NumPy array lives on the host; call "
        f"x.to_cpu() first (or use V.backend.to_cpu(x.data) for a host copy)"
    )


def _refuse_variables_inside(items, op, outer=None):
    """Raise if the list or tuple `items` holds a Variable: turning it into an array drops its
    graph.  A tuple is most often the outputs of a call that returns several: the message says
    to unpack it."""
    outer = items if outer is None else outer
    for item in items:
        if isinstance(item, (list, tuple)):
            _refuse_variables_inside(item, op, outer)
        elif isinstance(item, Variable):
            kind = type(outer).__name__
            unpack = ("; a tuple of Variables is what a call with several outputs returns (such as "
                      "L.MultiheadAttention's (output, weights)): unpack it first, out, weights = layer(x)"
                      if isinstance(outer, tuple) else "")
            raise TypeError(
                f"{op}: got a {kind} holding Variables; an array made from it would have no "
                f"graph. Join Variables with V.stack({kind}) or V.concat({kind}) instead{unpack}"
            )


def _compared(other):
    """The array a Variable is compared with."""
    if isinstance(other, Variable):
        return other._data
    if isinstance(other, (np.ndarray, int, float, np.number)) and not isinstance(other, bool):
        return other
    if backend.is_device_array(other):
        return other
    raise TypeError(
        f"comparison: a Variable compares with a Variable, an ndarray or a number, "
        f"got {type(other).__name__}"
    )


def _equatable(other):
    """What `==` and `!=` compare elementwise, or None (then Python falls back to identity)."""
    if isinstance(other, Variable):
        return other._data
    if isinstance(other, (np.ndarray, int, float, np.number, np.bool_)) or backend.is_device_array(other):
        return other
    return None


# Every assignment to a Variable's `.data` ticks this clock and stamps the Variable with
# the new time; every recorded Function is stamped with the time it was recorded.  A
# backward pass that meets a Function older than one of its Variables' last assignment
# knows the data it would differentiate is not the data the forward pass saw.
_clock = [0]
# `_assigned` of a gradient computed without create_graph (and not assigned since): the
# marker that lets "differentiate it again" name the missing create_graph=True.
_GRAPHLESS = -1
# `_assigned` of a derivative computed by V.jvp or V.taylor (arrays, no graph).
_FORWARD_MODE = -2
# `_assigned` of a gradient that backward(create_graph=True) put in a `.grad`: differentiating
# it by backward() while it is still there would add its own derivative to it.
_RECORDED_GRAD = -3
# Arrays written in place through a Variable's `.data` (`x.data -= step`, EmbedID's max_norm):
# id(the array that owns the memory) -> [a weak reference to it, the clock then, the name of
# the Variable written].  A view of such an array (x.T, x.reshape(...), a basic slice), made
# by an op that reads no values, changed with it: backward.py's _check_unchanged looks up the
# arrays an op kept here.
_written = {}
_written_limit = [4096]


def owning_array(a):
    """The array that owns the memory `a` views (`a` itself when it owns it)."""
    while a.base is not None and hasattr(a.base, "base"):  # (not a buffer NumPy wraps: bytes, mmap)
        a = a.base
    return a


def _note_written(a, name):
    """Record that the memory of the array `a` was written in place, now, through the `.data` of
    the Variable called `name`."""
    owner = a if a.base is None else owning_array(a)
    entry = _written.get(id(owner))
    if entry is not None and entry[0]() is owner:  # (an optimizer's parameter, step after step)
        entry[1], entry[2] = _clock[0], name
        return
    _written[id(owner)] = [weakref.ref(owner), _clock[0], name]
    if len(_written) > _written_limit[0]:  # forget the arrays that are gone
        for key, entry in list(_written.items()):
            if entry[0]() is None:
                del _written[key]
        _written_limit[0] = max(4096, 2 * len(_written))


def written_since(a, stamp):
    """The name (None when unnamed) of the Variable through whose `.data` the memory of the array
    `a` was last written in place, if that was after the clock read `stamp`; else False."""
    owner = owning_array(a)
    entry = _written.get(id(owner))
    return entry[2] if entry is not None and entry[1] > stamp and entry[0]() is owner else False


def _checked_data(variable, value):
    """`value` if it may replace `variable.data`, else a TypeError naming the fix."""
    if type(value) is not np.ndarray or value.dtype.kind not in "biuf":
        if isinstance(value, np.generic):  # what NumPy arithmetic on 0-d arrays returns
            value = np.asarray(value)
        elif isinstance(value, Variable):
            raise TypeError(
                "Variable.data: assign an ndarray, not a Variable (use other.data, or "
                "other.data.copy() for an independent copy)"
            )
        elif not isinstance(value, np.ndarray) and not backend.is_device_array(value):
            raise TypeError(
                f"Variable.data: assign a NumPy ndarray, got {type(value).__name__}; "
                f"write x.data = np.asarray(value, dtype=x.dtype)"
            )
        value = _plain_array(value, "Variable.data")
    if variable.requires_grad and value.dtype.kind != "f":
        raise TypeError(
            f"Variable.data: this Variable requires grad, so its data must be floating point, "
            f"got dtype {value.dtype}; cast it first, e.g. value.astype({variable._data.dtype.name})"
        )
    return value


class _MixedGrad:
    """What `.grad` holds once backward() added a gradient to one handed out before the
    Variable's data was assigned (an update between two backward passes with no cleargrad
    between: PyTorch's forgotten zero_grad()). The sum is the gradient at no single point, so
    reading `.grad` raises; backward keeps adding to it, and cleargrad() or an assignment to
    `.grad` ends it."""

    __slots__ = ("grad",)

    def __init__(self, grad):
        self.grad = grad

    def to_gpu(self):
        self.grad.to_gpu()

    def to_cpu(self):
        self.grad.to_cpu()


def _grad_is_current(variable):
    """Whether `variable`'s `.grad` was handed out (or assigned) since its data last was: the
    gradient at the point the data holds now (a `.grad` with no stamp counts as current)."""
    return getattr(variable, "_assigned", -1) <= getattr(variable, "_grad_at", math.inf)


def _refuse_mixed_grad(variable):
    which = f"Variable {variable.name!r}" if variable.name else f"a Variable of shape {variable.shape}"
    raise ValueError(
        f"Variable.grad: the .grad of {which} adds up gradients taken before and after its data "
        f"changed (by an optimizer's update, or x.data -= ..., between two backward passes), so it "
        f"is the gradient at no single point, and a step with it would be wrong: the gradients "
        f"were not cleared; call model.cleargrads() (x.cleargrad() for one Variable) before each "
        f"loss.backward(). To add up gradients taken at different points on purpose, keep the "
        f"sum yourself (total = total + x.grad.data after each backward, then x.cleargrad())"
    )


def _checked_grad(variable, value):
    """`value` as a gradient for `variable`: a Variable of its shape, or a TypeError/ValueError."""
    if not isinstance(value, Variable):
        if not isinstance(value, (np.ndarray, np.generic)) and not backend.is_device_array(value):
            raise TypeError(
                f"Variable.grad: assign a Variable, an ndarray or None, got {type(value).__name__}"
            )
        array = np.asarray(value) if isinstance(value, np.generic) else value
        value = Variable(_plain_array(array, "Variable.grad"), requires_grad=False)
    if value.shape != variable.shape:
        raise ValueError(
            f"Variable.grad: a gradient of shape {value.shape} for a Variable of shape "
            f"{variable.shape}; a gradient has its Variable's shape"
        )
    return value


def _numpy_keywords(op, keywords):
    """What `np.sum(x)` and friends pass to `x.sum`: the keywords gengrad's reduction takes
    (`initial=`, `where=`; mean has no initial) as a dict, dtype=None and out=None dropped;
    anything else refused."""
    taken = ("where",) if op == "mean" else ("initial", "where")
    for key, value in keywords.items():
        if key not in ("dtype", "out", "initial", "where"):
            hint = f" ({_pytorch_keyword(key, value)})" if key in _PYTORCH_KEYWORDS else ""
            raise TypeError(f"{op}() got an unexpected keyword argument {key!r}{hint}")
        if value is not None and key not in taken:
            raise TypeError(
                f"np.{op}(x, {key}=...) on a Variable: {key} is not supported; call "
                f"np.{op}(x.data, {key}=...) for a plain array, or V.{op}(x, axis, keepdims)"
            )
    return {key: value for key, value in keywords.items() if key in taken and value is not None}


_PYTORCH_KEYWORDS = {"dim": ("dim is PyTorch's name", "axis"), "dims": ("dims is PyTorch's name", "axis"),
                     "keepdim": ("keepdim is PyTorch's spelling", "keepdims")}
"""PyTorch's keywords for NumPy's: {keyword: (whose it is, NumPy's)}."""


def _pytorch_keyword(key, value):
    """What the PyTorch keyword `key` (given `value`) is, and NumPy's spelling of it."""
    whose, numpys = _PYTORCH_KEYWORDS[key]
    return f"{whose}: write {numpys}={value!r}"


_RENAMED_KEYWORDS = {
    "padding": ("PyTorch's name", "pad"),
    "in_features": ("PyTorch's name", "in_size"),
    "out_features": ("PyTorch's name", "out_size"),
    "input_size": ("PyTorch's name", "in_size"),
    "num_embeddings": ("PyTorch's name", "in_size"),
    "embedding_dim": ("PyTorch's name", "out_size"),
    "normalized_shape": ("PyTorch's name", "size"),
    "num_features": ("PyTorch's name", "size"),
    "negative_slope": ("PyTorch's name", "alpha"),
    "dropout_ratio": ("DeZero's name", "p"),
}
"""Keywords of PyTorch's layers and functions (and DeZero's) that gengrad's spell otherwise:
{keyword: (whose it is, gengrad's)}; refused naming gengrad's where the callee takes that."""

_DROPPED_KEYWORDS = {
    "inplace": "gengrad's ops never write into their input (a backward may read it), so there is "
               "no in-place form: drop inplace={value!r}",
    "size_average": "PyTorch 0.4.1 replaced it with reduction=, which gengrad's losses take: "
                    "size_average=False is reduction='sum', size_average=True reduction='mean'",
    "reduce": "PyTorch 0.4.1 replaced it with reduction=, which gengrad's losses take: reduce=False "
              "is reduction='none' (the loss of each entry)",
    # torch.autograd.functional's
    "strict": "{op} gives zeros where f(x) does not depend on x (PyTorch's strict=False): drop "
              "strict={value!r}",
    "vectorize": "{op} pushes all the unit directions through one forward pass where it can (what "
                 "vectorize=True buys): drop vectorize={value!r}",
    "strategy": "{op} takes one forward pass along all the unit directions where f(x) has as many "
                "entries as x or more, else one backward pass per entry of f(x): drop "
                "strategy={value!r}",
    "outer_jacobian_strategy": "{op} is forward over reverse, one forward pass through the "
                               "gradient where it can: drop outer_jacobian_strategy={value!r}",
}
"""PyTorch's keywords with no gengrad counterpart, and what to write instead ({op}, {value})."""

_KL_DIV = ("kl_div is scipy.special.kl_div(p, q) = p log(p/q) - p + q, entry by entry, of the "
           "probabilities (torch.nn.functional.kl_div takes log q first and the target p second, "
           "{key}={value!r} among its keywords): PyTorch's kl_div(log_q, p, reduction='batchmean') "
           "is V.rel_entr(p, V.exp(log_q)).sum() / len(p)")
_UNBIASED = ("unbiased is PyTorch's keyword, and PyTorch's std and var divide by n - 1 unless "
             "told otherwise, where NumPy's and gengrad's {op} divide by n (ddof=0): write ddof=1 "
             "for unbiased=True, ddof=0 (the default) for unbiased=False")
_DROPPED_BY_OP = {("kl_div", "reduction"): _KL_DIV, ("kl_div", "log_target"): _KL_DIV,
                  **{(op, "unbiased"): _UNBIASED for op in ("std", "var", "nanstd", "nanvar")}}
"""Where one op's message for a keyword of PyTorch's differs from _DROPPED_KEYWORDS': {(op, key): fix}."""


def foreign_keyword(op, key, value, accepted):
    """The message refusing keyword `key` (given `value`) to `op`, which takes the keywords
    `accepted`, naming gengrad's spelling; None where `key` is none of the known foreign ones."""
    unexpected = f"{op}() got an unexpected keyword argument {key!r}"
    if key in accepted:
        return None
    shown = repr(value) if value is None or isinstance(value, (bool, int, float, str, tuple)) else "..."
    if key in _RENAMED_KEYWORDS and _RENAMED_KEYWORDS[key][1] in accepted:
        whose, ours = _RENAMED_KEYWORDS[key]
        return f"{unexpected}; {key} is {whose}: write {ours}={shown}"
    if key == "bias" and "nobias" in accepted:
        fix = f"nobias={not value!r}" if isinstance(value, bool) else "nobias=True for no bias"
        return f"{unexpected}; bias is PyTorch's keyword: write {fix} (DeZero's spelling)"
    if key == "bias" and "b" in accepted:
        return f"{unexpected}; bias is PyTorch's name: write b={shown}"
    if key in _PYTORCH_KEYWORDS and _PYTORCH_KEYWORDS[key][1] in accepted:
        return f"{unexpected} ({_pytorch_keyword(key, value)}, as in NumPy)"
    if (op, key) in _DROPPED_BY_OP:
        return f"{unexpected}: " + _DROPPED_BY_OP[op, key].format(op=op, key=key, value=value)
    if key in _DROPPED_KEYWORDS:
        return f"{unexpected}: {key} is PyTorch's keyword; " + _DROPPED_KEYWORDS[key].format(
            op=op, value=value)
    return None


def _refuse_pytorch_keywords(op, numpy):
    """Refuse PyTorch's keywords (dim=, keepdim=, unbiased=) among the NumPy keywords `numpy`
    given to the method `op` (which takes NumPy's axis= and keepdims=), naming NumPy's."""
    for key, value in numpy.items():
        if key in _PYTORCH_KEYWORDS or key == "unbiased":
            raise TypeError(foreign_keyword(op, key, value, frozenset({"axis", "keepdims"})))


def keywords_of(function):
    """The names `function` takes by keyword; None where it takes any (**kwargs) or has no
    signature to read.  A plain function's are read off its code (the package wraps some 400 of
    its ops at import: inspect.signature for each cost about 8 ms there)."""
    code = getattr(function, "__code__", None)
    if code is not None and not hasattr(function, "__wrapped__"):
        if code.co_flags & inspect.CO_VARKEYWORDS:
            return None
        return frozenset(code.co_varnames[code.co_posonlyargcount:code.co_argcount + code.co_kwonlyargcount])
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


AXIS_KEYWORDS = tuple(_PYTORCH_KEYWORDS)
"""PyTorch's dim=, dims= and keepdim=: refused where a function takes NumPy's axis and keepdims."""

RENAMED_KEYWORDS = (*_RENAMED_KEYWORDS, "bias")
"""PyTorch's (and DeZero's) names of parameters gengrad's layers and functions spell otherwise."""


def refusing_foreign_keywords(function, module, keys):
    """`function` with the foreign keywords among `keys` (of AXIS_KEYWORDS, RENAMED_KEYWORDS and
    _DROPPED_KEYWORDS' keys) that apply to it refused by name, naming the fix (`F.softmax(x,
    dim=1)`, `F.relu(x, inplace=True)`, `F.conv2d(x, W, padding=1)`); `function` itself where none
    applies.  The wrapper is named `module`.<name>, the namespace it is put in, so that pickle
    finds it there.  A package wraps its exported functions in it; its own modules call the
    unwrapped ones."""
    accepted = keywords_of(function) if inspect.isfunction(function) else None
    if accepted is None:
        return function
    name = function.__name__
    refused = frozenset(key for key in keys if foreign_keyword(name, key, None, accepted) is not None)
    if not refused:
        return function

    @functools.wraps(function)
    def refusing(*args, **kwargs):
        if kwargs and not refused.isdisjoint(kwargs):
            key = next(k for k in kwargs if k in refused)
            raise TypeError(foreign_keyword(name, key, kwargs[key], accepted))
        return function(*args, **kwargs)
    refusing.__module__, refusing.__qualname__ = module, name
    return refusing


_REFUSING_CODE = refusing_foreign_keywords(lambda x, axis=None: x, "variable", AXIS_KEYWORDS).__code__
"""The code of every keyword wrapper (one closure): result_use looks through its frames."""


_EXTREMUM_FIX = ("write values = y.{op}(axis={axis}) and indices = y.arg{op}(axis={axis}) (the "
                 "accuracy of logits y against labels t: F.accuracy(y, t))")
"""What to write for torch's `_, indices = y.max(1)`."""

_RESULT_USES = {}
"""{(code, offset): result_use's answer for the call made there}, read once per call site."""


def result_use(frame):
    """How the user's code in `frame` uses the result of the call it is making, read from its
    next instructions (once per call site): ("index", i) for `call()[i]` with a constant int i,
    ("unpack", n, first) for `first, ... = call()` into n names (first: the first name, or
    None), or None.  The package's keyword wrappers are looked through; a call made by gengrad's
    own code (package `variable`) gives None.  torch's habits of taking a tuple from a call
    whose gengrad result is one array (`V.grad(y, x)[0]`) are refused with it."""
    while frame is not None and frame.f_code is _REFUSING_CODE:
        frame = frame.f_back
    if frame is None or frame.f_globals.get("__name__", "").partition(".")[0] == "variable":
        return None
    key = (frame.f_code, frame.f_lasti)
    if key not in _RESULT_USES:
        if len(_RESULT_USES) > 4096:
            _RESULT_USES.clear()
        following = [i for i in dis.get_instructions(frame.f_code) if i.offset > frame.f_lasti][:3]
        use = None
        if following and following[0].opname == "UNPACK_SEQUENCE":
            stored = following[1] if len(following) > 1 and following[1].opname.startswith("STORE_") else None
            use = ("unpack", following[0].arg, None if stored is None else stored.argval)
        elif len(following) >= 2 and following[0].opname.startswith("LOAD_") and (
                type(following[0].argval) is int) and (following[1].opname == "BINARY_SUBSCR" or (
                    following[1].opname == "BINARY_OP" and following[1].argrepr == "[]")):
            use = ("index", following[0].argval)
        _RESULT_USES[key] = use
    return _RESULT_USES[key]


def refuse_torchs_pair(op, frame, result, fix, axis=None):
    """Raise where the user's call in `frame` to `op` unpacks its `result`, one Variable, into two
    names as torch's (values, indices) pair (`_, predicted = y.max(1)`): where that cannot work
    (the result has other than two rows) or would take its two rows silently with the values
    thrown away (the first name is `_`).  `fix` says what to write instead ({op} and {axis}
    filled in)."""
    use = result_use(frame)
    if use is None or use[:2] != ("unpack", 2):
        return
    rows = len(result) if result.ndim else 0
    if rows == 2 and use[2] != "_":                  # (lo, hi = V.sort(pair): NumPy's own habit)
        return
    shape = f"of shape {result.shape}" + (", which would unpack into its two rows" if rows == 2 else "")
    apart = "; for the two values themselves, unpack apart from the call: v = ...; _, b = v"
    raise TypeError(f"{op}: its result is unpacked into two names, as torch.{op}'s (values, indices) "
                    f"pair is, but gengrad's {op}, as NumPy's, returns the values alone ({shape}); "
                    + fix.format(op=op, axis=axis) + (apart if rows == 2 else ""))


def refusing_foreign_keywords_among(namespace, names, keys=AXIS_KEYWORDS):
    """{name: refusing_foreign_keywords(f)} for the functions `f = namespace[name]` that some of
    `keys` applies to: what a package's namespace is updated with (by default PyTorch's dim= and
    keepdim= where a function takes axis= and keepdims=)."""
    wrappers = {}                                    # one per function: aliases stay one object
    for name in names:
        f = namespace[name]
        if id(f) not in wrappers:
            wrappers[id(f)] = refusing_foreign_keywords(f, namespace["__name__"], keys)
    return {name: wrappers[id(namespace[name])] for name in names
            if wrappers[id(namespace[name])] is not namespace[name]}


def refuse_missing_name(module, name, spellings):
    """A package's `__getattr__`: the AttributeError for `module.name`, naming gengrad's
    spelling where `spellings` ({name: (whose name it is, the fix)}) has one."""
    if name in spellings:
        whose, fix = spellings[name]
        raise AttributeError(f"module {module!r} has no attribute {name!r}; that is {whose}: in "
                             f"gengrad, {fix}")
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


class _TorchName:
    """A PyTorch name that gengrad spells otherwise: reading it raises an AttributeError naming
    gengrad's spelling (so `hasattr(x, "cuda")` stays False, as for any missing name).
    Variables, layers (`model.zero_grad`) and optimizers (`opt.step`) use it."""

    def __init__(self, fix, whose="PyTorch's name"):
        self.fix = fix
        self.whose = whose

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        raise AttributeError(f"{owner.__name__!r} object has no attribute {self.name!r}; that is "
                             f"{self.whose}: in gengrad, {self.fix}")


class _Size(int):
    """`x.size`, NumPy's number of entries: an int that, called as PyTorch's `x.size()`, raises
    a TypeError naming `x.shape` instead of Python's "'int' object is not callable"."""

    def __call__(self, *dim):
        raise TypeError(
            f"x.size is NumPy's number of entries ({int(self)}), not PyTorch's method: x.shape "
            f"gives the shape" + (f", x.shape[{dim[0]!r}] one length" if dim else "")
        )

    def __repr__(self):
        return repr(int(self))


def _function_of(name, where="V"):
    return f"{where}.{name}(x), or np.{name}(x): gengrad's ops are functions, as NumPy's are"


_TORCH_TENSOR_NAMES = {
    "zero_grad": "x.cleargrad() forgets x's gradient (model.cleargrads() a model's)",
    "zero_": "x.cleargrad() forgets x's gradient: each backward gives a new gradient Variable, "
             "never zeroed in place (a parameter's values: `with V.no_grad(): p[...] = 0`)",
    "requires_grad_": "Variables of floating-point data require grad already; "
                      "V.Variable(data, requires_grad=False) makes a constant",
    "retain_grad": "y.backward(retain_grad=True) keeps the gradients of the intermediate Variables",
    "clone": "x.copy() (or np.copy(x)) is a recorded copy; x.detach() one without a graph",
    "view": "x.reshape(...) (NumPy's ndarray.view(dtype) reinterprets bytes: x.data.view(dtype), "
            "no gradient)",
    "unsqueeze": "V.expand_dims(x, axis) (or x[:, None])",
    "t": "x.T",
    "mm": "x @ y (V.matmul)",
    "pow": "x ** c",
    "dim": "x.ndim",
    "numel": "x.size",
    "cpu": "x.to_cpu()",
    "cuda": "x.to_gpu()",
    "float": "x.astype(np.float32)",
    "double": "x.astype(np.float64)",
    "clamp": "x.clip(lo, hi)",
    "norm": "V.linalg.norm(x), or np.linalg.norm(x)",
    "sigmoid": "F.sigmoid(x) (import function as F)",
    "relu": "F.relu(x) (import function as F)",
    "softmax": "F.softmax(x, axis) (import function as F)",
    "floor_divide": "x // y (V.floor_divide(x, y), or np.floor_divide(x, y))",
    "matmul": "x @ y (V.matmul)",
    "histc": "np.histogram(x, bins, range=(lo, hi)) (V.histogram)",
    "permute": "x.transpose(1, 0, 2) (NumPy's transpose takes the whole permutation), or "
               "V.permute_dims(x, axes)",
    "expand": "x.broadcast_to(shape) (V.broadcast_to)",
    "expand_as": "x.broadcast_to(y.shape)",
    "view_as": "x.reshape(y.shape)",
    "gather": "V.take_along_axis(x, indices, axis)",
    "index_select": "V.take(x, indices, axis)",
    "masked_fill": "V.where(mask, value, x)",
    "masked_fill_": "V.where(mask, value, x) gives a new Variable; `with V.no_grad(): x[mask] = value` "
                    "writes x's data in place (no gradient)",
    "index_put_": "`with V.no_grad(): x[index] = values` writes x's data in place (no gradient); "
                  "V.where(mask, values, x) gives a new Variable",
    "clamp_": "x.clip(lo, hi) gives a new Variable; `with V.no_grad(): x[...] = np.clip(x.data, lo, hi)` "
              "changes x's data in place (no gradient)",
    "masked_select": "x[mask], a 1-D Variable of the selected entries",
    "narrow": "x[:, start:start + length] (slicing)",
    "chunk": "V.array_split(x, n, axis)",
    "unbind": "V.unstack(x, axis=axis)",
    "split": "V.split(x, sections, axis) (NumPy's split: a number of equal sections, or the "
             "indices to split at, where PyTorch's takes a size)",
    "topk": "V.take_along_axis(x, idx, axis=-1) with idx = np.argsort(x.data, axis=-1)[..., ::-1][..., :k]",
    "kthvalue": "V.partition(x, k - 1, axis=-1)[..., k - 1], the kth smallest",
    "amax": "x.max(axis)",
    "amin": "x.min(axis)",
    "clamp_min": "V.maximum(x, lo) (or x.clip(lo, None))",
    "clamp_max": "V.minimum(x, hi) (or x.clip(None, hi))",
    "rsqrt": "1 / V.sqrt(x)",
    "logsumexp": "V.logsumexp(x, axis)",
    "log_softmax": "F.log_softmax(x, axis) (import function as F)",
    "bmm": "x @ y (V.matmul multiplies batches of matrices over the leading axes)",
    "addmm": "b + x @ y",
    "where": "V.where(condition, x, y): x where the condition holds, y elsewhere",
    "eq": "x == y (a boolean mask, no gradient)",
    "ne": "x != y (a boolean mask, no gradient)",
    "lt": "x < y (a boolean mask, no gradient)",
    "le": "x <= y (a boolean mask, no gradient)",
    "gt": "x > y (a boolean mask, no gradient)",
    "ge": "x >= y (a boolean mask, no gradient)",
    "equal": "np.array_equal(x, y)",
    "allclose": "np.allclose(x, y)",
    "isnan": "np.isnan(x) (a boolean mask)",
    "logical_not": "np.logical_not(mask)",
    "add": "x + y",
    "sub": "x - y",
    "mul": "x * y",
    "div": "x / y",
    "neg": "-x",
    "bool": "x.astype(bool) (no gradient), or a comparison such as x != 0",
    "int": "x.astype(np.int32) (no gradient)",
    "long": "x.astype(np.int64) (no gradient)",
    "half": "x.astype(np.float16)",
    "type": "x.dtype reads the dtype, x.astype(dtype) converts",
    "type_as": "x.astype(y.dtype)",
    "to": "x.to_gpu() / x.to_cpu() move the data, x.astype(dtype) converts it",
    "contiguous": "nothing: gengrad's ops take any ndarray layout (x itself)",
    "is_leaf": "x.creator is None (a leaf has no creator)",
    "grad_fn": "x.creator, the Function that made x (None for a leaf)",
    "is_cuda": "x.device == 'gpu'",
    "nelement": "x.size",
    "stride": "x.data.strides (NumPy's strides count bytes)",
    "register_hook": "V.grad(loss, x) gives a gradient without touching .grad, and "
                     "y.backward(retain_grad=True) keeps the intermediate ones; `with "
                     "V.record_backward() as steps:` shows every gradient the pass sends",
    "detach_": "x = x.detach()",
    "copy_": "`with V.no_grad(): p[...] = y` writes y's values into p, or p.data = y.data.copy() "
             "(each an assignment, checked as any other)",
    "fill_": "np.full_like(x, value) makes a constant array; `with V.no_grad(): x[...] = value` "
             "changes x's data in place",
    "normal_": "p.data = rng.normal(0.0, std, p.shape) with rng = np.random.default_rng(), "
               "before the forward pass",
    "uniform_": "p.data = rng.uniform(lo, hi, p.shape) with rng = np.random.default_rng(), "
                "before the forward pass",
    "new_zeros": "np.zeros(shape, dtype=x.dtype), a constant array every op takes",
    "new_ones": "np.ones(shape, dtype=x.dtype), a constant array every op takes",
    "new_tensor": "np.asarray(data, dtype=x.dtype), a constant array every op takes "
                  "(V.Variable(...) for a leaf to differentiate)",
    **{name: _function_of(name) for name in ("flip", "roll", "tile", "triu", "tril", "outer",
                                              "inner", "cross", "floor", "sign", "diag")},
    **{name: _function_of(name) for name in ("exp", "log", "sin", "cos", "tanh", "sqrt", "abs",
                                              "median", "square", "unique")},
    **{name: _function_of(name) for name in ("log1p", "expm1", "log2", "log10", "exp2", "sinh", "cosh",
                                              "tan", "ceil", "trunc", "reciprocal", "nan_to_num",
                                              "sinc", "i0", "hypot", "fmod", "remainder", "deg2rad",
                                              "rad2deg", "logaddexp", "logaddexp2", "copysign")},
    **{name: _function_of(name) + " (NumPy 2's name; V.arc" + name[1:] + " too)"
       for name in ("asin", "acos", "atan", "asinh", "acosh", "atanh", "atan2")},
    **{name: f"V.{name}(x) (scipy.special's name; NumPy has none)" for name in (
        "erf", "erfc", "erfinv", "erfcx", "digamma", "polygamma", "logit", "xlogy", "i0e", "i1", "i1e",
        "ndtr", "ndtri", "log_ndtr")},
    "lgamma": "V.gammaln(x) (log|Gamma(x)|, SciPy's name)",
    "sgn": "V.sign(x), or np.sign(x)",
    "frac": "x - V.trunc(x)",
    **{f"{op}_": f"write x = x {sign} y, a new Variable (to update a parameter: "
                 f"p.data {sign}= ... under `with V.no_grad():`)"
       for op, sign in (("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"))},
}
_TORCH_TENSOR_NAMES.update({
    f"{name}_": f"the op without the underscore gives a new Variable (x = ...; no op writes into its "
                f"input, which a backward may read): {_TORCH_TENSOR_NAMES[name]}"
    for name in ("exp", "log", "sin", "cos", "tanh", "sqrt", "abs", "square", "log1p", "expm1", "floor",
                 "ceil", "trunc", "reciprocal", "sigmoid", "relu", "pow", "neg", "clamp_min", "clamp_max",
                 "unsqueeze", "t", "erf", "sign", "sgn", "lgamma", "rsqrt", "tan", "sinh", "cosh")
})

_NUMPY_IN_PLACE = {
    "sort": "V.sort(x, axis) (or np.sort(x)) gives a sorted Variable",
    "partition": "V.partition(x, kth) (or np.partition(x, kth)) gives a partitioned Variable",
    "fill": "np.full_like(x, value) makes a constant array; `with V.no_grad(): x[...] = value` "
            "changes x's data in place",
    "put": "V.where(mask, values, x) or indexing builds the result",
    "resize": "V.resize(x, shape) (or np.resize(x, shape)) gives a new Variable, x.reshape(...) the "
              "same entries in a new shape",
    "setfield": "x.data.setfield(...) under `with V.no_grad():` (no gradient)",
    "byteswap": "x.data.byteswap() (no gradient)",
}
"""ndarray's methods that write in place: refused with what to write instead (gengrad never
writes into a Variable behind the graph's back)."""

_NUMPY_OTHER = {
    "flat": "x.ravel() gives the entries as a 1-D Variable (x.data.flat iterates the data)",
    "to_device": "x.to_gpu() / x.to_cpu() move the data",
}
"""ndarray attributes a Variable spells otherwise."""


# ----- `.data` read by a backward that create_graph records --------------------------------
# A backward that computes with its inputs' arrays (`gy * np.cos(x.data)`, DeZero's step 27)
# gives a right first derivative and silently wrong higher ones: the array is a constant to
# the graph being recorded.  While create_graph records a backward (any but gengrad's own,
# which read `_data`), backward.py lists the Variables that backward may read; `.data` of
# one of them is a `_ReadInBackward` view, which lets masks and shapes through
# (`x.data > 0`) and refuses arithmetic at the line doing it.
_watching = 0  # backward calls (any thread) watching `.data` reads now: 0 costs one test
_watched = contextvars.ContextVar("gengrad_watched", default=None)  # {id(Variable): op name}


class _ReadInBackward(np.ndarray):
    """The data of a Variable, read inside a backward that create_graph records."""

    _op = "backward"

    def __array_finalize__(self, parent):
        self._op = getattr(parent, "_op", "backward")

    def _slip_in_op(self, op):
        """The TypeError for gengrad's op `op` given this array (`V.exp(x.data)`)."""
        return self._slip(f"{op}(x.data)")

    def _slip(self, what):
        return TypeError(
            f"{self._op}.backward computes {what} on an input's or gradient's .data while "
            f"create_graph=True records the backward pass: the result is a constant to that "
            f"graph, so the derivatives of this gradient would be silently wrong. Use gengrad "
            f"ops on the Variable itself (V.cos(x) instead of np.cos(x.data), gy * x instead of "
            f"gy * x.data); masks and shapes from .data (x.data > 0) are fine. A backward meant "
            f"to be differentiated once only (an adjoint solver on arrays) declares "
            f"once_differentiable = True in its Forwarder"
        )

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = [x.view(np.ndarray) if isinstance(x, _ReadInBackward) else x for x in inputs]
        result = getattr(ufunc, method)(*plain, **kwargs)
        kinds = [r.dtype.kind for r in (result if isinstance(result, tuple) else (result,))
                 if hasattr(r, "dtype")]
        if method == "__call__" and ufunc.__name__ in _CONSTANT_ALMOST_EVERYWHERE:
            return result
        if all(kind in "biu" for kind in kinds):  # masks, indices, counts
            return result
        name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
        raise self._slip(f"np.{name}")

    def __array_function__(self, func, types, args, kwargs):
        from .numpy_dispatch import _DATA_ONLY
        if func.__name__ in _DATA_ONLY:
            def plain(a):
                if isinstance(a, _ReadInBackward):
                    return a.view(np.ndarray)
                return type(a)(plain(v) for v in a) if isinstance(a, (list, tuple)) else a
            return func(*plain(args), **{k: plain(v) for k, v in kwargs.items()})
        raise self._slip(f"np.{func.__name__}")


_CONSTANT_ALMOST_EVERYWHERE = frozenset(["sign", "floor", "ceil", "rint", "trunc", "signbit"])


# ----- arrays a custom forward keeps on self (`self.e = np.exp(x)`) --------------------------
# A backward that reads one (`gy * self.e`) gives a right first derivative and silently wrong
# higher ones, for the same reason as `.data`.  A custom forward gets its inputs as
# `_FromInputs` views, which mark what is computed from them (masks, indices and piecewise
# constants are not marked); the marked floating-point arrays it leaves on `self` are listed,
# and a backward that create_graph records reads them as `_KeptInForward` views.
_PIECEWISE_CONSTANT = _CONSTANT_ALMOST_EVERYWHERE | {"heaviside", "floor_divide"}  # (x mod c has slope 1)
_PIECEWISE_CONSTANT_FUNCTIONS = frozenset(["round", "around", "fix"])  # (indices are left unmarked)


def _plain(value):
    """`value` with `_FromInputs` arrays in it (in lists and tuples too) as plain ndarrays."""
    if isinstance(value, _FromInputs):
        return value.view(np.ndarray)
    if type(value) in (list, tuple):
        return type(value)(_plain(v) for v in value)
    return value


def _marked(result):
    """`result` with its floating-point arrays (and NumPy scalars) marked as from the inputs."""
    if type(result) in (tuple, list):
        return type(result)(_marked(r) for r in result)
    if type(result) is np.ndarray and result.dtype.kind in "fc":
        return result.view(_FromInputs)
    if isinstance(result, np.generic) and result.dtype.kind in "fc":
        return result.__array__().view(_FromInputs)
    return result


class _FromInputs(np.ndarray):
    """An array a custom forward computed from its inputs (its inputs as well)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = _plain(out)
        result = getattr(ufunc, method)(*_plain(inputs), **kwargs)
        if out is not None:  # (written in place: the arrays given, marked or not)
            return out[0] if len(out) == 1 else out
        if method == "__call__" and ufunc.__name__ in _PIECEWISE_CONSTANT:
            return result
        return _marked(result)

    def __array_function__(self, func, types, args, kwargs):
        result = func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()})
        if func.__name__ in _PIECEWISE_CONSTANT_FUNCTIONS:
            return result
        return _marked(result)


class _KeptInForward(_ReadInBackward):
    """An array a custom forward kept on self, read by a backward that create_graph records."""

    _attr = "array"

    def __array_finalize__(self, parent):
        self._op = getattr(parent, "_op", "backward")
        self._attr = getattr(parent, "_attr", "array")

    def _slip_in_op(self, op):
        return self._slip(op)

    def _slip(self, what):
        return TypeError(
            f"{self._op}.backward computes {what} on self.{self._attr}, an array {self._op}.forward "
            f"computed from its inputs, while create_graph=True records the backward pass: the "
            f"array is a constant to that graph, so the derivatives of this gradient would be "
            f"silently wrong. Compute it in backward from the Variables, with gengrad ops (x, = "
            f"self.inputs; y, = self.outputs: V.exp(x) or y rather than a kept np.exp(x)); masks "
            f"and indices kept by forward (self.mask = x > 0) are fine, and an array constant "
            f"where it is differentiated may be kept as np.asarray(...). A backward meant to be "
            f"differentiated once only declares once_differentiable = True in its Forwarder"
        )


def _deferred(*others):
    """NotImplemented where an operand is a type that takes over operators with a Variable (a
    Taylor coefficient of several directions, variable/directions.py), so Python or NumPy
    asks it next; otherwise the TypeError being handled, raised again."""
    if any(getattr(type(other), "_takes_variables", False) for other in others):
        return NotImplemented
    raise  # noqa: PLE0704  (called from an except block: re-raises its error)


def _one_element(variable, what):
    """The single element of `variable` as a Python number, or a ValueError."""
    if variable._data.size != 1:
        raise ValueError(
            f"{what}: only a one-element Variable converts to a Python scalar, this one has "
            f"shape {variable._data.shape}; use .data (an ndarray) or reduce it first (x.sum())"
        )
    value = variable._data.item()
    if value != value and backend._CHECKS and type(variable._data) is not np.ndarray:
        backend.raise_device_errors()   # a NaN a check run on the device may have left
    return value


_STORES = frozenset(dis.opmap[name] for name in ("STORE_SUBSCR", "STORE_SLICE") if name in dis.opmap)
_NUMPY_DIR = os.path.dirname(np.__file__) + os.sep
# NumPy's own code that reads values (comparing, printing, saving, masking for plots): let through
_NUMPY_READS = tuple(_NUMPY_DIR + os.path.join(*part.split("/")) for part in (
    "testing/", "ma/", "_core/arrayprint.py", "lib/_npyio_impl.py", "lib/format.py", "_core/_asarray.py"))


_NUMPY_CONVERSIONS = frozenset(["asarray_chkfinite", "asmatrix"])   # (conversions written in Python)
_NUMPY_NAMESPACES = ("linalg", "polynomial", "fft", "random")


# SciPy's code converts a Variable as NumPy's does (np.asarray inside scipy.special.logsumexp,
# scipy.linalg.expm): refused alike, naming the SciPy function called; its file I/O reads values
_SCIPY_PART = os.sep + "scipy" + os.sep
_SCIPY_READS = _SCIPY_PART + "io" + os.sep


def _scipy_caller(frame):
    """`scipy.special.logsumexp`: the SciPy function whose code holds `frame` (NumPy's code it
    calls in between) as the caller wrote it, or None where no SciPy code computes there."""
    found = None
    while frame is not None:
        where = frame.f_code.co_filename
        if _SCIPY_PART in where:
            found = None if _SCIPY_READS in where else frame
        elif not where.startswith(_NUMPY_DIR):
            break
        frame = frame.f_back
    if found is None:
        return None
    module = found.f_globals.get("__name__", "scipy")
    public = [part for part in module.split(".") if not part.startswith("_")]
    owner = found.f_locals.get("self")  # a method: scipy.stats.norm.logpdf
    if owner is not None:
        public.append(str(getattr(owner, "name", None) or type(owner).__name__))
    return ".".join(public + [_decorated_name(found)])


def _decorated_name(frame):
    """The name of the function running in `frame`; for a decorator's wrapper (functools.wraps:
    scipy.special.spherical_jn runs a `wrapper`), the name its module binds it to, found as the
    module global whose code is the frame's and whose __wrapped__ is among the frame's locals."""
    code = frame.f_code
    if getattr(frame.f_globals.get(code.co_name), "__code__", None) is code:
        return code.co_name
    wrapped = {id(value) for value in frame.f_locals.values() if callable(value)}
    for name, value in list(frame.f_globals.items()):
        if getattr(value, "__code__", None) is code and id(getattr(value, "__wrapped__", None)) in wrapped:
            return name
    return code.co_name


def _numpy_caller(frame):
    """`np.mean`, `np.linalg.det`, `np.vectorize`: the NumPy function whose code holds `frame`."""
    name, module = frame.f_code.co_name, "numpy"
    while frame is not None and frame.f_code.co_filename.startswith(_NUMPY_DIR):
        name, module = frame.f_code.co_name, frame.f_globals.get("__name__", "numpy")
        if name == "__call__" and "self" in frame.f_locals:    # np.vectorize(f)(x)
            name = type(frame.f_locals["self"]).__name__
        if name == "__getitem__" and frame.f_locals.get("self") in (np.r_, np.c_):   # np.r_[x, y]
            return "np.r_[...]" if frame.f_locals["self"] is np.r_ else "np.c_[...]"
        frame = frame.f_back
    if name.startswith("_"):
        return "a NumPy function"
    public = [part for part in module.split(".")[1:] if part in _NUMPY_NAMESPACES]
    return "np." + "".join(part + "." for part in public) + name


# (PRECALL: Python 3.11 runs a call of a C function inside its PRECALL once the code is warm,
# a loop having run in it: the instruction under way is then the PRECALL)
_CALL_INSTRUCTIONS = frozenset(dis.opmap[name] for name in ("PRECALL", "CALL", "CALL_KW", "CALL_FUNCTION_EX")
                               if name in dis.opmap)
_BINARY_OPS = frozenset(dis.opmap[name] for name in ("BINARY_OP",) if name in dis.opmap)
# NumPy's functions written in C that are conversions (the value is what is asked for)
_C_CONVERSIONS = frozenset(["array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray",
                            "fromiter", "result_type", "min_scalar_type"])
# Python's math functions that are not computations to differentiate: tests, and the whole
# numbers of floor/ceil/trunc (their derivative is 0 wherever it exists)
_MATH_VALUE_READS = frozenset(["isnan", "isinf", "isfinite", "isclose", "floor", "ceil", "trunc"])
_MATH_SPELLINGS = {
    **{name: f"V.arc{name[1:]}(x), or np.arc{name[1:]}(x)"
       for name in ("asin", "acos", "atan", "asinh", "acosh", "atanh")},
    "atan2": "V.arctan2(y, x), or np.arctan2(y, x)", "pow": "x ** y", "lgamma": "V.gammaln(x)",
    "gamma": "V.exp(V.gammaln(x)) for x > 0", "log": "V.log(x), or np.log(x) (V.log(x) / math.log(b) "
    "in base b)", "dist": "V.linalg.norm(p - q)", "fsum": "sum(xs), Python's, which adds the "
    "Variables (or V.sum(V.stack(xs)))",
}
"""gengrad's spelling of math's functions where it is not V.<name>(x) or np.<name>(x)."""
_read_calls = {}
"""(code, offset) -> the dotted names of the function called there (`np.dot`, `rng.normal`),
as its source reads them, or None where the source is not at hand or is not such a name."""


def _called_names(frame):
    """_read_called_names(frame), read once per instruction (_read_calls): (the dotted names,
    whether the first argument is written as a list) or None."""
    key = (frame.f_code, frame.f_lasti)
    names = _read_calls.get(key, False)
    if names is False:
        if len(_read_calls) > 4096:
            _read_calls.clear()
        names = _read_calls[key] = _read_called_names(frame)
    return names


_LISTS = (ast.List, ast.Tuple, ast.ListComp)


def _dotted(node):
    """('self', 'parts') for the expression `self.parts`, None for one that is not a dotted name."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return (node.id, *reversed(names)) if isinstance(node, ast.Name) else None


def _read_called_names(frame):
    """The dotted names of the function called by `frame`'s current instruction, read from
    its source (the instruction's position in it), and how its first argument is written:
    True for a list, tuple or list comprehension, its dotted names for a name (`parts`,
    `self.parts`), else False; None where the source is not at hand."""
    code = frame.f_code
    try:
        line, end_line, column, end_column = list(code.co_positions())[frame.f_lasti // 2]
        lines = linecache.getlines(code.co_filename, frame.f_globals)[line - 1:end_line]
        lines = [text.encode() for text in lines]  # (the columns count UTF-8 bytes)
        lines[-1] = lines[-1][:end_column]
        lines[0] = lines[0][column:]
        node = ast.parse(b"(" + b"".join(lines) + b")", mode="eval").body
    except (AttributeError, IndexError, TypeError, ValueError, SyntaxError):  # (3.10, no source)
        return None
    names = _dotted(getattr(node, "func", None))
    if names is None:
        return None
    first = node.args[0] if getattr(node, "args", None) else None
    return names, isinstance(first, _LISTS) or _dotted(first) or False


def _look_up(frame, names):
    """The object the dotted names (`np.dot`, `self.parts`) stand for in `frame`, read without
    running code (no property, no __getattr__), or None where they stand for nothing."""
    for scope in (frame.f_locals, frame.f_globals, frame.f_builtins):
        if names[0] in scope:
            found = scope[names[0]]
            break
    else:
        return None
    try:
        for name in names[1:]:
            found = inspect.getattr_static(found, name)
    except AttributeError:
        return None
    return found


# Where installed packages and Python's own library live: their code converting a list it was
# given (matplotlib's np.asarray(y) of a list of losses) is a conversion, not the user's slip
_LIBRARY_DIRS = tuple(sorted({os.path.join(path, "") for key, path in sysconfig.get_paths().items()
                              if key in ("stdlib", "platstdlib", "purelib", "platlib")}))
_PACKAGE_PARTS = tuple(os.sep + part + os.sep for part in ("site-packages", "dist-packages"))


def _in_library(where):
    """True for a file of Python's own library or of an installed package (any site-packages)."""
    return where.startswith(_LIBRARY_DIRS) or any(part in where for part in _PACKAGE_PARTS)


def _library_reads(frame):
    """True where the code converting (past NumPy's own) is an installed package's other than
    SciPy's (matplotlib's plot of a list of losses, pandas): it reads the values, as
    np.asarray(x) does."""
    while frame is not None and frame.f_code.co_filename.startswith(_NUMPY_DIR):
        frame = frame.f_back
    if frame is None:
        return False
    where = frame.f_code.co_filename
    return _in_library(where) and _SCIPY_PART not in where


def _named_list(frame, names):
    """The list or tuple the dotted names given to a conversion stand for in the user's `frame`
    (np.array(parts), parts = [x, y]: NumPy converts each Variable in it), else None."""
    if _in_library(frame.f_code.co_filename):
        return None
    found = _look_up(frame, names)
    return found if type(found) in (list, tuple) else None


def _numpy_code_called(frame):
    """('random', 'method', 'compute' or 'math', its name as written) where `frame` is calling a
    NumPy function or method written in C that computes from its arguments' values (np.dot,
    np.exp, arr.dot, rng.normal), not a conversion or a test giving booleans, or a function of
    Python's math module that does (math.exp, not math.isnan); ('list', ...) where it is a
    conversion given a list written in the call (np.array([x, y]): autograd's way to build a
    vector, which NumPy answers with the values); else None."""
    read = _called_names(frame)
    if read is None:
        return None
    names, first = read
    called = _look_up(frame, names)
    if called is None:
        return None
    written = ".".join(names)
    owner = getattr(called, "__objclass__", None) or type(getattr(called, "__self__", None))
    module = getattr(called, "__module__", None) or ""
    if module in ("math", "cmath") and getattr(called, "__name__", "") not in _MATH_VALUE_READS:
        return "math", written
    if owner in (np.random.Generator, np.random.RandomState) or module.startswith("numpy.random"):
        return "random", written
    if isinstance(called, np.ufunc):  # (a test: np.isfinite, np.less; its object loop aside)
        boolean = all(types.endswith("?") for types in called.types if "O" not in types)
        return None if boolean else ("compute", written)
    if owner is np.ufunc:
        return "compute", written
    if owner is np.ndarray:
        return "method", written
    if isinstance(called, type) or not (module == "numpy" or module.startswith("numpy.")):
        return None
    if getattr(called, "__name__", "") in _C_CONVERSIONS:
        if first is True:
            return "list", written
        if first and _named_list(frame, first) is not None:
            return "named list", f"{written}({'.'.join(first)})"
        return None
    return "compute", written


def _math_spelling(name):
    """gengrad's spelling of Python's math.<name> ("V.exp(x), or np.exp(x)")."""
    if name in _MATH_SPELLINGS:
        return _MATH_SPELLINGS[name]
    if name not in sys.modules["variable"].OPS:
        return "gengrad's ops"
    return f"V.{name}(x)" + (f", or np.{name}(x)" if hasattr(np, name) else "")


def _refuse_numpy_in_c(frame, conversion):
    """Raise if `frame` (the user's) is calling NumPy's C code that converts a Variable to its
    values to compute with them (or Python's math module's: math.exp(x)), or is doing an
    ndarray's arithmetic with a list of them."""
    instruction = frame.f_code.co_code[frame.f_lasti]
    if instruction in _BINARY_OPS and conversion == "x.__array__()":
        raise ValueError(
            "an ndarray's arithmetic with a list or tuple holding a Variable (a + [x, y]): NumPy "
            f"converts the Variable to its values (by {conversion}), since it does not hand lists to "
            "gengrad, so its gradient would be silently lost; stack the list first (a + V.stack([x, "
            "y]) records gengrad's op), or give x.data (x.item()) for the value alone"
        )
    called = _numpy_code_called(frame) if instruction in _CALL_INSTRUCTIONS else None
    if called is None:
        return
    kind, call = called
    if kind == "named list":
        listed = call[call.index("(") + 1:-1]
        raise ValueError(
            f"{call}: {listed} is a list holding Variables, and NumPy converts each to its values "
            f"(by {conversion}), since it does not hand lists to gengrad, so the array has no graph "
            f"and their gradients would be silently lost; V.stack({listed}) (or np.stack({listed})) "
            f"builds the array with its graph; give [v.item() for v in {listed}] for the values alone"
        )
    if kind == "list":
        raise ValueError(
            f"{call}([x, y]): NumPy converts each Variable in the list to its values (by "
            f"{conversion}), since it does not hand lists to gengrad, so the array has no graph and "
            f"their gradients would be silently lost; V.stack([x, y]) (or np.stack([x, y])) builds "
            f"the vector with its graph, as autograd's np.array does; give x.item() or x.data for "
            f"the values alone"
        )
    if kind == "math":
        raise ValueError(
            f"{call}: Python's math module computes with a float, to which it converts the "
            f"Variable (by {conversion}), so the result is a plain number and the gradient would be "
            f"silently lost; use {_math_spelling(call.rpartition('.')[2])}, or give x.item() for the "
            f"value alone"
        )
    if kind == "random" and call.rpartition(".")[2] in ("permutation", "choice", "permuted"):
        raise ValueError(
            f"{call}: NumPy's random generators draw from the values of a Variable given to them "
            f"(by {conversion}), so the result has no graph back to it and its gradient would be "
            f"silently lost; draw the indices and index the Variable, which keeps its graph: "
            f"x[rng.permutation(len(x))], x[rng.choice(len(x), k)]"
        )
    if kind == "random":
        raise ValueError(
            f"{call}: NumPy's random generators draw from the values of a Variable given to them "
            f"(by {conversion}), so the sample has no graph back to it and its gradient would be "
            f"silently lost; draw a standard sample and shift and scale it by Variables, whose "
            f"graph it then keeps (the reparameterization): mu + sigma * rng.standard_normal("
            f"mu.shape), low + (high - low) * rng.random(shape)"
        )
    if kind == "method":
        method = call.rpartition(".")[2]
        raise ValueError(
            f"{call}: an ndarray's method converts a Variable given to it to its values (by "
            f"{conversion}), with no hook for gengrad, so its gradient would be silently lost; call "
            f"NumPy's function, which gengrad answers (np.{method}(a, x)), or an operator (a @ x), "
            f"or give x.data for the value alone"
        )
    raise ValueError(
        f"{call}: NumPy's code in C converts a Variable inside a list or tuple given to it to its "
        f"values (by {conversion}), since NumPy does not hand lists to gengrad, so its gradient "
        f"would be silently lost; stack the list first ({call}(V.stack([a, b]), ...) records "
        f"gengrad's op), or give x.data (x.item()) for the value alone"
    )


def _refuse_losing_the_graph(variable, conversion):
    """Raise if the conversion that called this one (`conversion`) would drop x's graph, x
    requiring grad while a graph is recorded: for NumPy's `a[i] = x` (the instruction that
    called it is a store), or for NumPy's own computing code (a Variable inside a list given to
    np.mean, np.full(n, x): the file that called it is NumPy's, not one that reads values), or
    for NumPy's code in C called from the user's (np.dot([x, y], w), arr.dot(x), rng.normal(mu),
    arr + [x, y]: read from the instruction and its source). NumPy gives gengrad no other hook
    there; Python's math functions (math.exp(x)) are refused the same way. Any other caller (a
    conversion, float(x), f"{x}") is let through."""
    if not variable.requires_grad or not _enable_backprop.get():
        return
    try:
        frame = sys._getframe(2)  # (this function's caller's caller: the code doing the store)
        storing = frame.f_code.co_code[frame.f_lasti] in _STORES
    except (ValueError, IndexError):  # (no such frame or offset: nothing to refuse)
        return
    where = frame.f_code.co_filename
    if _SCIPY_PART in where or where.startswith(_NUMPY_DIR):
        call = _scipy_caller(frame)
        if call is not None:
            spelled = scipy_spelling(call)
            ours = f"gengrad's op ({spelled}), or " if spelled else ""
            raise ValueError(
                f"{call}: a Variable reached SciPy's code, which converts it to its values (by "
                f"{conversion}): SciPy does not hand Variables to gengrad, so the gradient would "
                f"be silently lost. Use {ours}gengrad's ops, or a V.Forwarder whose forward calls "
                f"{call} on the arrays and whose backward gives its derivative "
                f"(docs/custom_functions.md); give x.data for the value alone"
            )
    if _library_reads(frame):
        return
    if where.startswith(_NUMPY_DIR) and not where.startswith(_NUMPY_READS):
        call = _numpy_caller(frame)
        if call[3:] in _NUMPY_CONVERSIONS:
            return
        if call in ("np.full", "np.full_like"):
            raise numpy_dispatch._fill_refusal(call)
        if call in ("np.r_[...]", "np.c_[...]"):
            fix = "np.hstack([x, y])" if call == "np.r_[...]" else "np.column_stack([x, y])"
            raise ValueError(
                f"{call}: NumPy's index trick converts the Variables in it to their values (by "
                f"{conversion}), with no hook for gengrad, so their gradients would be silently lost; "
                f"{fix} records gengrad's op; give x.data for the values alone"
            )
        raise ValueError(
            f"{call}: a Variable reached NumPy's own code, which converts it to its values (by "
            f"{conversion}): it was inside a list or tuple, which NumPy does not hand to gengrad, or "
            f"{call} has no gengrad op; so its gradient would be silently lost. Stack a list of "
            f"Variables first ({call}(V.stack([a, b])) records gengrad's op), or write it with "
            f"gengrad's ops; give x.data (or x.item()) for the value alone"
        )
    if not storing:
        _refuse_numpy_in_c(frame, conversion)
    else:  # (a ValueError: NumPy turns a TypeError from float(x) into one of its own)
        raise ValueError(
            f"a[i] = x: NumPy stores the value of the Variable x into the array (by {conversion}), "
            f"and an ndarray keeps no graph, so x's gradient would be silently lost; build the "
            f"array from Variables instead (V.stack([...]), V.concat, V.where), or store the value "
            f"alone: a[i] = x.item() (x.data for an array)"
        )


class Variable:
    """A node of the graph holding `data` (an ndarray) and, after backward, `grad`.

    Parameters
    ----------
    data : ndarray, Python number or (nested) list of numbers
        An ndarray is kept as is, dtype included; numbers and lists become float64.
    name : str, optional
        Shown in graphs and reprs.
    requires_grad : bool, optional
        Defaults to True for floating-point data, False for integer and boolean data
        (integer Variables are constants such as labels or indices).
    dtype : dtype, optional
        The data's dtype, as `np.asarray(data, dtype)` gives it (`V.Variable([1, 2],
        dtype=np.float32)`); by default an ndarray's own and float64 for numbers and lists.
    """

    __slots__ = ("_data", "name", "_grad", "creator", "generation", "requires_grad",
                 "_assigned", "_reshaped", "_grad_at", "_grad_epoch", "_handed", "__weakref__")
    __hash__ = object.__hash__  # `==` is elementwise; Variables stay dict keys by identity

    def __init__(
        self,
        data: np.ndarray | np.generic | float | int | list | tuple,
        name: str | None = None,
        requires_grad: bool | None = None,
        *,
        dtype=None,
    ) -> None:
        data = _as_data(data)
        if dtype is not None:
            data = _cast_data(data, dtype)
        if backend._DEFAULT["gpu"] and type(data) is np.ndarray:  # set_default_device("gpu")
            data = backend.to_gpu(data)
        floating = data.dtype.kind in "fc"
        if requires_grad is None:
            requires_grad = floating
        elif requires_grad and not floating:
            raise TypeError(
                f"Variable: only floating-point data can require grad, got dtype {data.dtype}"
            )
        self._data = data
        self.name = name
        self._grad = None
        self.creator = None
        self.generation = 0
        self.requires_grad = bool(requires_grad)

    # ----- data -------------------------------------------------------------
    @property
    def data(self) -> np.ndarray:
        """The ndarray this Variable holds.

        Assigning it (`x.data = array`, and `x.data -= step`, which assigns the updated
        array) is checked: it must be a real ndarray, floating point if `x` requires grad.
        A graph whose op still needs the old values (its backward reads them: a product's
        other factor, tanh's output) or the old shape can no longer be differentiated: its
        backward raises, naming `x` and that op.  An op that reads neither (a sum, a lookup
        of rows) is differentiated as it was recorded, as in PyTorch.
        """
        if _watching:  # a backward recorded by create_graph is running (somewhere)
            watched = _watched.get()
            if watched is not None and id(self) in watched and type(self._data) is np.ndarray:
                view = self._data.view(_ReadInBackward)
                view._op = watched[id(self)]
                return view
        return self._data

    @data.setter
    def data(self, value: np.ndarray) -> None:
        old = self._data
        self._data = value = _checked_data(self, value)
        _clock[0] += 1
        self._assigned = _clock[0]
        if value is old:  # written in place: so were the views of it
            _note_written(old, self.name)
        if value.shape != old.shape or value.dtype != old.dtype:  # (even an op that reads no values
            self._reshaped = _clock[0]                             # reads its inputs' shapes)

    @property
    def grad(self) -> Variable | None:
        """The gradient accumulated by `backward()`: a Variable of this one's shape, or None.

        It may be assigned a Variable or an ndarray (wrapped in a constant Variable) of
        this Variable's shape, or None.  Read on a Variable of integer data (a constant, as
        labels are: `V.Variable(np.array([1, 2]))`), it warns that such data gets no gradient;
        read as None on an intermediate (one an op made), it warns that backward() fills only
        the leaves' `.grad`, as PyTorch does.
        """
        g = self._grad
        if g is not None:
            if type(g) is _MixedGrad:
                _refuse_mixed_grad(self)
            return g
        if self.creator is not None:
            op = type(self.creator.forwarder).__name__
            warnings.warn(
                f"Variable.grad: this Variable was made by {op}, so it is an intermediate (not a leaf) "
                f"and backward() fills only the leaves' .grad: y.backward(retain_grad=True) keeps the "
                f"intermediate ones, and V.grad(y, h) returns this one's; if you meant the Variable you "
                f"created, read its .grad (x = V.Variable(...) is a leaf, x * 2 is not)",
                UserWarning,
                stacklevel=2,
            )
            return None
        if self._data.dtype.kind in "iu":
            warnings.warn(
                f"Variable.grad: this Variable holds integer data ({self._data.dtype}), so it is a "
                f"constant (as labels and indices are) and gets no gradient; for a gradient make it "
                f"floating point: V.Variable(np.array([1.0, 2.0])) or V.Variable(a.astype(np.float64))",
                UserWarning,
                stacklevel=2,
            )
        return None

    @grad.setter
    def grad(self, value: Variable | np.ndarray | None) -> None:
        if value is not None:
            value = _checked_grad(self, value)
        self._grad = value
        self._grad_at = _clock[0]  # the point it is the gradient at: the data as of now
        self._grad_epoch = None    # (no backward pass's: see backward.py's _refuse_a_second_pass)

    @grad.deleter
    def grad(self) -> None:
        """`del x.grad` forgets the gradient, as x.cleargrad() does (PyTorch's spelling)."""
        self.grad = None

    # ----- array-like facts -------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of `data`."""
        return self._data.shape

    @property
    def ndim(self) -> int:
        """Number of dimensions of `data`."""
        return self._data.ndim

    @property
    def size(self) -> int:
        """Number of elements of `data` (an int; called as PyTorch's `x.size()`, it says so)."""
        return _Size(self._data.size)

    @property
    def dtype(self) -> np.dtype:
        """dtype of `data`."""
        return self._data.dtype

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d Variable")
        return len(self._data)

    def __repr__(self) -> str:
        body = str(self._data).replace("\n", "\n" + " " * 9)
        return f"variable({body})"

    # ----- in Jupyter: the value and the graph behind it (IPython's display protocol) -----
    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from pictures import notebook  # (on use: the pictures package builds on this one)

        return notebook.variable_bundle(self)

    def _repr_html_(self) -> str | None:
        from pictures import notebook

        return notebook.variable_html(self)

    def _repr_svg_(self) -> str | None:
        from pictures import notebook

        return notebook.variable_svg(self)

    # ----- NumPy's functions meet a Variable --------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """`np.sin(x)`, `ndarray + x`, `np.add.reduce(x)`: gengrad's op, or refused (numpy_dispatch.py)."""
        if method == "__call__" and not kwargs and len(inputs) == 2:  # `ndarray + Variable`, fast
            op = _operator_ops().get(ufunc)
            if op is not None:
                try:
                    return op(*inputs)
                except TypeError:
                    return _deferred(*inputs)
        if any(getattr(type(x), "_takes_variables", False) for x in inputs):
            return NotImplemented
            if ufunc in _COMPARISONS:  # masks, as the comparison operators give
                return ufunc(*[x._data if isinstance(x, Variable) else x for x in inputs])
        return numpy_dispatch.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """`np.reshape(x, s)`, `np.linalg.det(x)`: gengrad's op, or refused (numpy_dispatch.py)."""
        if any(getattr(t, "_takes_variables", False) for t in types):
            return NotImplemented  # (a coefficient of several directions among the arguments)
        return numpy_dispatch.array_function(func, types, args, kwargs)

    # ----- conversions, as in PyTorch -------------------------------------------
    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """`np.asarray(x)`: the data (no graph), so plotting and NumPy calls take Variables.

        `a[i] = x` (NumPy's conversion of x for a store into the ndarray a) is refused while x
        requires grad and a graph is recorded: the store would drop x's gradient; so is a
        conversion asked for by NumPy's own computing code (`np.mean([x, y])`, `np.full(n, x)`).
        """
        if backend.is_device_array(self._data):
            raise TypeError(_on_gpu("np.asarray(x)"))
        _refuse_losing_the_graph(self, "x.__array__()")
        if dtype is None or dtype == self._data.dtype:
            return self._data.copy() if copy else self._data
        if copy is False:
            raise ValueError(f"Variable: converting {self._data.dtype} data to {dtype} needs a copy")
        return self._data.astype(dtype)

    def item(self) -> float | int | bool:
        """The value of a one-element Variable as a Python number (no graph).

        On a GPU this is a sync (the host waits for the device), as `float(x)`, `int(x)`,
        `bool(x)` and formatting are; a NaN read there raises the error of a check run on the
        device (a label out of range, see `V.backend.device_check`) if one found bad data.

        Raises
        ------
        ValueError
            If the Variable has more than one element, or (on a GPU, reading a NaN) a check
            run on the device found bad data: its message, ending in "(checked on the device)".
        """
        return _one_element(self, "item")

    def __float__(self) -> float:
        _refuse_losing_the_graph(self, "float(x)")
        return float(_one_element(self, "float"))

    def __int__(self) -> int:
        _refuse_losing_the_graph(self, "int(x)")
        return int(_one_element(self, "int"))

    def __bool__(self) -> bool:
        return bool(_one_element(self, "bool"))

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        if self._data.size != 1:
            raise TypeError(
                f"format: the spec {spec!r} needs a one-element Variable, this one has shape "
                f"{self._data.shape}; format its elements, e.g. np.array2string(x.data)"
            )
        return format(_one_element(self, "format"), spec)

    def numpy(self) -> np.ndarray:
        """The data as an ndarray (the same array, not a copy), like `tensor.numpy()`.

        Raises
        ------
        TypeError
            If the data is on the GPU (x.to_cpu() first, as PyTorch's x.cpu().numpy()).
        """
        if backend.is_device_array(self._data):
            raise TypeError(_on_gpu("x.numpy()"))
        return self._data

    def tolist(self) -> list | float | int | bool:
        """The data as (nested) Python lists of numbers, as ndarray.tolist (no graph; on a GPU,
        a sync, as `item()` is)."""
        return self._data.tolist()

    # ----- devices, as in DeZero ----------------------------------------------
    @property
    def device(self) -> str:
        """'cpu' for NumPy data, 'gpu' for CuPy data."""
        return backend.device_of(self._data)

    def to_gpu(self) -> Variable:
        """Move the data (and the gradient) to the GPU, in place; returns this Variable.

        Raises
        ------
        ModuleNotFoundError
            If CuPy is not installed.
        RuntimeError
            If CuPy finds no GPU.
        """
        self._move(backend.to_gpu(self._data, "Variable.to_gpu"))
        if self._grad is not None:
            self._grad.to_gpu()
        return self

    def to_cpu(self) -> Variable:
        """Move the data (and the gradient) to the host as NumPy arrays, in place; returns this Variable."""
        if backend.is_device_array(self._data):
            self._move(backend.to_cpu(self._data))
        if self._grad is not None:
            self._grad.to_cpu()
        return self

    def _changed_in_place(self):
        """Mark this Variable's data as written in place (rows rescaled by EmbedID's max_norm):
        `_move` to its own array (the write touched only entries whose gradient is 0: rows no
        earlier lookup read)."""
        self._move(self._data)

    def _move(self, data):
        """Give this Variable `data`, its values on another device (or its own array, written
        in place): an assignment for the graphs recorded before it, but the same point for the
        gradient it holds."""
        current = self._grad is not None and _grad_is_current(self)
        self.data = data
        if current:
            self._grad_at = _clock[0]

    def __copy__(self) -> Variable:
        """copy.copy: a Variable with the same data, name and graph (what matplotlib copies)."""
        twin = type(self).__new__(type(self))           # (a Parameter stays one)
        for name in Variable.__slots__[:-1]:             # (all but __weakref__)
            if hasattr(self, name):
                setattr(twin, name, getattr(self, name))
        return twin

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        """What pickle and copy.deepcopy keep of a leaf: its data, name, settings and gradient
        (a recorded gradient as its values). A Variable made by an op is refused: its graph's
        Functions hold weak references, which pickle cannot carry, and a deep-copied graph
        would send its gradients to copies of the inputs, not to them."""
        if self.creator is not None:
            raise TypeError(
                f"pickle / copy: this Variable was made by {self.creator.name} and carries its graph, "
                f"which does not cross a pickle or a deep copy (as in PyTorch, which refuses non-leaf "
                f"tensors); keep the values: x.detach() is a leaf sharing the data (x.data the "
                f"array); a leaf (a parameter, an input) pickles and copies with its data, name and "
                f"gradient"
            )
        state = {name: getattr(self, name) for name in ("_data", "name", "_grad", "creator", "generation",
                                                        "requires_grad", "_assigned", "_grad_at")
                 if hasattr(self, name)}
        grad = state.get("_grad")
        if grad is not None and grad.creator is not None:   # (a create_graph=True gradient: its values)
            state["_grad"] = grad.detach()
        return None, state

    def detach(self) -> Variable:
        """A Variable sharing this one's data, cut from the graph: no creator, no gradient."""
        v = Variable.__new__(Variable)
        v._data = self._data
        v.name = self.name
        v._grad = v.creator = None
        v.generation = 0
        v.requires_grad = False
        return v

    # ----- graph ------------------------------------------------------------
    def set_creator(self, func: Function) -> None:
        """Record `func` as the Function that produced this Variable."""
        self.creator = func
        self.generation = func.generation + 1

    def cleargrad(self) -> None:
        """Forget the accumulated gradient."""
        self._grad = None

    def unchain(self) -> None:
        """Cut the link to the creator: this Variable becomes a leaf.

        Ops recorded from it earlier may hold a stand-in for it (variable/saving.py); the
        creator is told, so a backward pass files their gradients under this Variable and
        goes no further.
        """
        f = self.creator
        if f is None:
            return
        if not saving.is_stand_in(self):
            index = 0 if f.output_specs is None else saving.output_index(f, self)
            cut = getattr(f, "cut", None) or {}
            cut[index] = weakref.ref(self)
            f.cut = cut
            _clock[0] += 1  # a backward pass looks at Functions recorded before a tick first
        self.creator = None

    def unchain_backward(self) -> None:
        """Cut every creator link upstream of this Variable (truncated backprop)."""
        seen = set()
        stack = [self.creator] if self.creator is not None else []
        while stack:
            func = stack.pop()
            for ref in func.outputs:  # the caller's Variables made here, if still alive
                y = ref()
                if y is not None and y is not self:
                    y.unchain()
            for x in func.inputs:
                f = x.creator
                if f is not None and id(f) not in seen:
                    seen.add(id(f))
                    stack.append(f)
                x.unchain()
        self.unchain()

    def backward(self, retain_grad: bool = False, create_graph: bool = False, *,
                 gradient: ArrayLike | None = None, retain_graph: bool | None = None,
                 inputs: Sequence[Variable] | None = None) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's `.grad`.

        A non-scalar Variable is seeded with ones, as if it were summed first, unless
        `gradient` is given.

        Parameters
        ----------
        retain_grad : bool
            Also keep the gradients of intermediate Variables in their `.grad`.
        create_graph : bool
            Record the backward pass, so the gradients are Variables with a graph of
            their own and can be differentiated again.
        gradient : ArrayLike, optional
            The incoming gradient, of this Variable's shape (PyTorch's `y.backward(gy)`,
            here by name): the leaves get the vector-Jacobian product with it.
        retain_graph, inputs
            PyTorch's keywords: refused, naming gengrad's way (it keeps the graph; V.grad
            differentiates with respect to some inputs only).

        Raises
        ------
        TypeError
            If `retain_grad` or `create_graph` is not a bool (an array there is PyTorch's
            positional `gradient`, which gengrad takes by name), or `retain_graph` or
            `inputs` is given.
        ValueError
            If this Variable does not require grad (it depends on no Variable that does), or
            `gradient`'s shape differs from its shape.
        """
        if retain_graph is not None or inputs is not None:
            backward_module.refuse_pytorch_keywords("backward", retain_graph=retain_graph, inputs=inputs)
        for name, flag in (("retain_grad", retain_grad), ("create_graph", create_graph)):
            if type(flag) is not bool and not isinstance(flag, np.bool_):
                raise TypeError(
                    f"backward(retain_grad=False, create_graph=False): {name} must be True or "
                    f"False, got {type(flag).__name__}; to start from a gradient (PyTorch's "
                    f"y.backward(gy)), give it by name: y.backward(gradient=gy)"
                )
        backward_module.backward([self], None if gradient is None else [gradient],
                                 retain_grad=bool(retain_grad), create_graph=bool(create_graph))

    # ----- operators ----------------------------------------------------------
    def __neg__(self) -> Variable:
        return elementwise.neg(self)

    def __abs__(self) -> Variable:
        return piecewise.abs(self)

    def __add__(self, other: ArrayLike) -> Variable:
        try:
            return elementwise.add(self, other)
        except TypeError:
            return _deferred(other)

    def __radd__(self, other: ArrayLike) -> Variable:
        try:
            return elementwise.add(other, self)
        except TypeError:
            return _deferred(other)

    def __sub__(self, other: ArrayLike) -> Variable:
        try:
            return elementwise.sub(self, other)
        except TypeError:
            return _deferred(other)

    def __rsub__(self, other: ArrayLike) -> Variable:
        try:
            return elementwise.sub(other, self)
        except TypeError:
            return _deferred(other)

    def __mul__(self, other: ArrayLike) -> Variable:
        try:
            return elementwise.mul(self, other)
        except TypeError:
            return _deferred(other)

    def __rmul__(self, other: ArrayLike) -> Variable:
        try:
            return elementwise.mul(other, self)
        except TypeError:
            return _deferred(other)

    def __truediv__(self, other: ArrayLike) -> Variable:
        try:
            return elementwise.div(self, other)
        except TypeError:
            return _deferred(other)

    def __rtruediv__(self, other: ArrayLike) -> Variable:
        try:
            return elementwise.div(other, self)
        except TypeError:
            return _deferred(other)

    def __pow__(self, other: ArrayLike) -> Variable:
        return elementwise.pow(self, other)

    def __rpow__(self, other: ArrayLike) -> Variable:
        return elementwise.pow(other, self)

    # In-place operators, as in PyTorch: under no_grad() they change the data in place
    # (`p -= lr * p.grad` in a hand-written update); while a graph is recorded they are
    # refused on a leaf that requires grad, and elsewhere give a new Variable, so
    # `total += loss` keeps working.
    def __iadd__(self, other: ArrayLike) -> Variable:
        return self if self._in_place(other, np.add, "+=") else elementwise.add(self, other)

    def __isub__(self, other: ArrayLike) -> Variable:
        return self if self._in_place(other, np.subtract, "-=") else elementwise.sub(self, other)

    def __imul__(self, other: ArrayLike) -> Variable:
        return self if self._in_place(other, np.multiply, "*=") else elementwise.mul(self, other)

    def __itruediv__(self, other: ArrayLike) -> Variable:
        return self if self._in_place(other, np.true_divide, "/=") else elementwise.div(self, other)

    def _in_place(self, other, ufunc, symbol):
        """True once self is updated in place (under no_grad()); False: make a new Variable."""
        if _enable_backprop.get():
            if self.requires_grad and self.creator is None:
                x = self.name or "x"
                if self.generation:   # made by an op, then cut by unchain() (DeZero's `loss += ...`)
                    raise ValueError(
                        f"{x} {symbol} ...: {x} was cut from its graph by unchain() or unchain_backward(), "
                        f"which left it a leaf Variable that requires grad, and a leaf is not changed in "
                        f"place while a graph is being recorded; write {x} = {x} {symbol[0]} ... for a new "
                        f"Variable (its value from before the cut then counts as a constant)"
                    )
                raise ValueError(
                    f"{x} {symbol} ...: {x} is a leaf Variable that requires grad, and a graph is "
                    f"being recorded, so changing it in place would corrupt the gradients; "
                    f"update parameters under `with V.no_grad():` (as in PyTorch), or write "
                    f"{x} = {x} {symbol[0]} ... for a new Variable"
                )
            return False
        value = other._data if isinstance(other, Variable) else other
        try:
            ufunc(self._data, value, out=self._data, casting="same_kind")
        except (TypeError, ValueError) as error:
            kind = TypeError if isinstance(error, TypeError) else ValueError
            raise kind(
                f"x {symbol} ... in place (under no_grad) on data of shape {self._data.shape} and "
                f"dtype {self._data.dtype}: {error}"
            ) from None
        self.data = self._data  # an assignment: graphs recorded before it are invalidated
        return True

    # comparisons give plain boolean arrays (masks for `where`), not Variables: they have
    # no gradient.  `==` and `!=` are elementwise too; hashing stays by identity.
    def __lt__(self, other: ArrayLike) -> np.ndarray:
        return self._data < _compared(other)

    def __le__(self, other: ArrayLike) -> np.ndarray:
        return self._data <= _compared(other)

    def __gt__(self, other: ArrayLike) -> np.ndarray:
        return self._data > _compared(other)

    def __ge__(self, other: ArrayLike) -> np.ndarray:
        return self._data >= _compared(other)

    def __eq__(self, other: object) -> np.ndarray:
        value = _equatable(other)
        return NotImplemented if value is None else self._data == value

    def __ne__(self, other: object) -> np.ndarray:
        value = _equatable(other)
        return NotImplemented if value is None else self._data != value

    def __matmul__(self, other: ArrayLike) -> Variable:
        try:
            return linalg.matmul(self, other)
        except TypeError:
            return _deferred(other)

    def __rmatmul__(self, other: ArrayLike) -> Variable:
        try:
            return linalg.matmul(other, self)
        except TypeError:
            return _deferred(other)

    def __getitem__(self, index: Any) -> Variable:
        return indexing.get_item(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        """`x[i] = v` under `V.no_grad()`: writes x's data in place, as PyTorch's does under
        torch.no_grad(), and counts as an assignment of `.data` (a graph whose op still needs
        the old values is refused at its backward, naming x).  While a graph is recorded it is
        refused: the error names the ways to build the new value."""
        if _enable_backprop.get():
            x = self.name or "x"
            raise TypeError(
                f"{x}[i] = v: a Variable is not written in place while a graph is recorded (graphs "
                f"that used it would differentiate values they never saw); build the new Variable "
                f"instead: V.where(mask, v, {x}) with mask = np.zeros({x}.shape, bool); mask[i] = True, "
                f"or V.concat of the pieces; to change its values (no gradient), write "
                f"`with V.no_grad(): {x}[i] = v`, as in PyTorch ({x}.data[i] = v is not seen by the graphs "
                f"that kept {x})"
            )
        x = self.name or "x"
        if isinstance(value, Variable):
            value = value._data
        data = self._data
        made = not isinstance(value, np.ndarray) and not backend.is_device_array(value)
        value = backend.constant_like(np.asarray(value) if made else value, data, f"{x}[i] = v", "v", x,
                                      made=made)
        if not np.can_cast(value.dtype, data.dtype, "same_kind"):
            raise TypeError(
                f"{x}[i] = v (under no_grad): v of dtype {value.dtype} does not fit {x}'s data of dtype "
                f"{data.dtype} without losing its kind (a float cut to an integer, a complex to its "
                f"real part); convert it first: v.astype({data.dtype.name})"
            )
        try:
            data[index] = value
        except (IndexError, ValueError) as error:
            raise type(error)(
                f"{x}[i] = v (under no_grad) on data of shape {data.shape}, v of shape {value.shape}: {error}"
            ) from None
        self.data = data  # an assignment: graphs recorded before it that read x are refused

    # ----- shape and reduction methods ----------------------------------------
    def reshape(self, *shape: int | Sequence[int]) -> Variable:
        """Same data in a new shape: `x.reshape(2, 3)` or `x.reshape((2, 3))`."""
        return shape_ops.reshape(self, *shape)

    def transpose(self, *axes: int | Sequence[int]) -> Variable:
        """Permute axes: `x.transpose()` reverses, `x.transpose(1, 0, 2)` permutes.

        On a 2-D Variable, `x.transpose(0, 1)` (NumPy's identity permutation, PyTorch's swap of
        the two axes) is refused, naming both meanings' spellings.
        """
        if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
            axes = axes[0]
        elif len(axes) == 2 and self._data.ndim == 2 and _matrix_identity(axes):
            raise ValueError(
                f"x.transpose({axes[0]}, {axes[1]}) on a 2-D Variable: in NumPy (and gengrad) that "
                f"is the identity permutation, which changes nothing, while PyTorch's "
                f"x.transpose({axes[0]}, {axes[1]}) swaps the two axes; write x.T (or "
                f"x.swapaxes(0, 1)) to swap them, x.transpose((0, 1)) to keep them"
            )
        return shape_ops.transpose(self, axes or None)

    @property
    def T(self) -> Variable:
        """The transpose (axes reversed)."""
        return shape_ops.transpose(self)

    def sum_to(self, shape: int | Sequence[int]) -> Variable:
        """Sum over broadcast axes down to `shape`."""
        return shape_ops.sum_to(self, shape)

    def broadcast_to(self, shape: int | Sequence[int]) -> Variable:
        """Broadcast to `shape`."""
        return shape_ops.broadcast_to(self, shape)

    def sum(self, axis: Axis = None, keepdims: bool = False, **numpy: Any) -> Variable:
        """Sum over `axis` (None: everything); `np.sum(x)` calls it too."""
        if numpy:
            return reduction.sum(self, axis, keepdims, **_numpy_keywords("sum", numpy))
        return reduction.sum(self, axis, keepdims)

    def mean(self, axis: Axis = None, keepdims: bool = False, **numpy: Any) -> Variable:
        """Mean over `axis` (None: everything); `np.mean(x)` calls it too."""
        if numpy:
            return reduction.mean(self, axis, keepdims, **_numpy_keywords("mean", numpy))
        return reduction.mean(self, axis, keepdims)

    def max(self, axis: Axis = None, keepdims: bool = False, **numpy: Any) -> Variable:
        """Maximum over `axis` (None: everything); `np.max(x)` calls it too."""
        if numpy:
            return reduction.max(self, axis, keepdims, **_numpy_keywords("max", numpy))
        result = reduction.max(self, axis, keepdims)
        if axis is not None:                            # (torch's y.max(1) gives a pair)
            refuse_torchs_pair("max", sys._getframe(1), result, _EXTREMUM_FIX, axis)
        return result

    def min(self, axis: Axis = None, keepdims: bool = False, **numpy: Any) -> Variable:
        """Minimum over `axis` (None: everything); `np.min(x)` calls it too."""
        if numpy:
            return reduction.min(self, axis, keepdims, **_numpy_keywords("min", numpy))
        result = reduction.min(self, axis, keepdims)
        if axis is not None:                            # (torch's y.min(1) gives a pair)
            refuse_torchs_pair("min", sys._getframe(1), result, _EXTREMUM_FIX, axis)
        return result


    # ----- NumPy's ndarray methods (each the op of the same name in V) -------------------
    def ravel(self, order: str = "C") -> Variable:
        """The entries as a 1-D Variable, as ndarray.ravel."""
        return rearrange.ravel(self, order)

    def flatten(self, order: str = "C") -> Variable:
        """The entries as a 1-D Variable, as ndarray.flatten (V.flatten(x) keeps axis 0)."""
        if isinstance(order, (int, np.integer)) and not isinstance(order, bool):   # (torch's start_dim)
            k = int(order)
            also = ", or V.flatten(x) (which keeps axis 0)" if k == 1 else ""
            raise TypeError(f"x.flatten({k}) is PyTorch's flatten(start_dim={k}); NumPy's flatten takes a "
                            f"memory order ('C'), and flattens every axis: write x.reshape(x.shape[:{k}] + "
                            f"(-1,)){also}")
        return rearrange.ravel(self, order)

    def squeeze(self, axis: Axis = None) -> Variable:
        """Remove size-1 axes (all, or those in `axis`), as ndarray.squeeze."""
        return shape_ops.squeeze(self, axis)

    def swapaxes(self, axis1: int, axis2: int) -> Variable:
        """Interchange two axes, as ndarray.swapaxes."""
        return rearrange.swapaxes(self, axis1, axis2)

    def repeat(self, repeats: Any, axis: int | None = None, *more: Any) -> Variable:
        """Repeat each entry, as ndarray.repeat (PyTorch's x.repeat tiles: V.tile, which a call
        that cannot be NumPy's names)."""
        tiles = (repeats, axis, *more)
        if more:
            raise TypeError(
                f"Variable.repeat(repeats, axis) is NumPy's, repeating each entry; PyTorch's "
                f"x.repeat{tiles} tiles the whole array: V.tile(x, {tiles}) (np.tile)")
        try:
            return rearrange.repeat(self, repeats, axis)
        except ValueError as error:
            ints = (int, np.integer)
            tiles = None
            if isinstance(repeats, ints) and isinstance(axis, ints) and not -self.ndim <= axis < self.ndim:
                tiles = (repeats, axis)                          # x.repeat(2, 3) on a matrix
            elif axis is None and isinstance(repeats, (tuple, list)) and len(repeats) == self.ndim >= 2:
                tiles = tuple(repeats)                           # x.repeat((2, 3)) on a matrix
            if tiles is not None:
                raise ValueError(
                    f"{error}; PyTorch's x.repeat{tiles} tiles the whole array: V.tile(x, {tiles}) "
                    f"(np.tile); NumPy's (and gengrad's) x.repeat(r, axis) repeats each entry") from None
            raise

    def astype(self, dtype: Any, copy: bool = True) -> Variable:
        """The data in another dtype; between float dtypes the gradient is cast back.

        A conversion to an integer or boolean dtype gives a constant (no gradient), as
        such data has none.
        """
        dtype = np.dtype(dtype)
        if dtype == self._data.dtype and not copy:
            return self
        if dtype.kind == "f":
            return backward_module._Cast.apply(self, dtype=dtype)
        if dtype.kind not in "biu":
            raise TypeError(f"astype: gengrad holds real numbers only, got dtype {dtype}")
        return Variable(self._data.astype(dtype), requires_grad=False)

    def dot(self, b: ArrayLike) -> Variable:
        """Dot product with NumPy's N-D rule, as ndarray.dot."""
        return contraction.dot(self, b)

    def clip(self, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Variable:
        """Clip to [min, max], as ndarray.clip."""
        return piecewise.clip(self, min, max)

    def var(self, axis: Axis = None, dtype: Any = None, out: Any = None, ddof: int = 0,
            keepdims: bool = False, **numpy: Any) -> Variable:
        """Variance with `ddof`, as ndarray.var."""
        if numpy:
            _refuse_pytorch_keywords("var", numpy)
        return statistics.var(self, axis, dtype, out, ddof, keepdims, **numpy)

    def std(self, axis: Axis = None, dtype: Any = None, out: Any = None, ddof: int = 0,
            keepdims: bool = False, **numpy: Any) -> Variable:
        """Standard deviation with `ddof`, as ndarray.std."""
        if numpy:
            _refuse_pytorch_keywords("std", numpy)
        return statistics.std(self, axis, dtype, out, ddof, keepdims, **numpy)

    def prod(self, axis: Axis = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
             **numpy: Any) -> Variable:
        """Product of entries (exact where some are 0), as ndarray.prod."""
        if numpy:
            _refuse_pytorch_keywords("prod", numpy)
        return products.prod(self, axis, dtype, out, keepdims, **numpy)

    def cumsum(self, axis: int | None = None, dtype: Any = None, out: Any = None) -> Variable:
        """Cumulative sum, as ndarray.cumsum."""
        return products.cumsum(self, axis, dtype, out)

    def cumprod(self, axis: int | None = None, dtype: Any = None, out: Any = None) -> Variable:
        """Cumulative product, as ndarray.cumprod."""
        return products.cumprod(self, axis, dtype, out)

    def trace(self, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
              out: Any = None) -> Variable:
        """Sum along a diagonal, as ndarray.trace."""
        return products.trace(self, offset, axis1, axis2, dtype, out)

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
        """A diagonal, as ndarray.diagonal."""
        return selection.diagonal(self, offset, axis1, axis2)

    def round(self, decimals: int = 0) -> Variable:
        """Rounded entries (zero derivative), as ndarray.round."""
        return rounding.round(self, decimals)

    def conj(self) -> Variable:
        """The complex conjugate of real data: the Variable's values (a recorded identity)."""
        return rounding.conj(self)

    def copy(self) -> Variable:
        """A copy that stays in the graph (the gradient flows through), as torch's clone()."""
        return rounding.positive(self)

    def argmax(self, axis: int | None = None, keepdims: bool = False) -> np.ndarray:
        """Indices of the maxima (an integer array, no gradient), as ndarray.argmax."""
        return self._data.argmax(axis=axis, keepdims=keepdims)

    def argmin(self, axis: int | None = None, keepdims: bool = False) -> np.ndarray:
        """Indices of the minima (an integer array, no gradient), as ndarray.argmin."""
        return self._data.argmin(axis=axis, keepdims=keepdims)

    def argsort(self, axis: int | None = -1, kind: str | None = None, order: None = None, *,
                stable: bool | None = None) -> np.ndarray:
        """Indices that sort the data (an integer array, no gradient), as ndarray.argsort (on a
        GPU, CuPy's sort, which is stable, whatever `kind` or `stable` asks)."""
        if backend.is_device_array(self._data):
            return self._data.argsort(axis=axis, **numpy_dispatch._given(order=order))
        return self._data.argsort(axis=axis, kind=kind, order=order, stable=stable)

    def argpartition(self, kth: Any, axis: int | None = -1, kind: str = "introselect",
                     order: None = None) -> np.ndarray:
        """Indices that partition the data (no gradient), as ndarray.argpartition (on a GPU,
        CuPy's, which takes no `kind`)."""
        if backend.is_device_array(self._data):
            return self._data.argpartition(kth, axis=axis, **numpy_dispatch._given(order=order))
        return self._data.argpartition(kth, axis=axis, kind=kind, order=order)

    def nonzero(self) -> tuple[np.ndarray, ...]:
        """Indices of the nonzero entries, one array per axis (no gradient), as ndarray.nonzero."""
        return self._data.nonzero()

    def searchsorted(self, v: ArrayLike, side: str = "left", sorter: Any = None) -> np.ndarray:
        """Where `v` would go in this sorted 1-D Variable (indices, no gradient), as ndarray.searchsorted."""
        return self._data.searchsorted(v._data if isinstance(v, Variable) else v, side=side, sorter=sorter)

    def any(self, axis: Axis = None, out: None = None, keepdims: bool = False, *,
            where: Any = True) -> np.ndarray:
        """Whether any entry is nonzero (a boolean array, no gradient), as ndarray.any."""
        _no_out("x.any", out)
        return self._data.any(axis=axis, keepdims=keepdims, **numpy_dispatch._given(where=where))

    def all(self, axis: Axis = None, out: None = None, keepdims: bool = False, *,
            where: Any = True) -> np.ndarray:
        """Whether every entry is nonzero (a boolean array, no gradient), as ndarray.all."""
        _no_out("x.all", out)
        return self._data.all(axis=axis, keepdims=keepdims, **numpy_dispatch._given(where=where))

    def take(self, indices: ArrayLike, axis: int | None = None, out: None = None,
             mode: str = "raise") -> Variable:
        """Entries at `indices` along `axis` (recorded), as ndarray.take."""
        return selection.take(self, indices, axis, out, mode)

    def compress(self, condition: ArrayLike, axis: int | None = None, out: None = None) -> Variable:
        """The entries where `condition` holds along `axis` (recorded), as ndarray.compress."""
        from .ops import sets
        return sets.compress(condition, self, axis, out)

    def choose(self, choices: Any, out: None = None, mode: str = "raise") -> Variable:
        """Entries of `choices` picked by this integer Variable (recorded), as ndarray.choose."""
        from .ops import sets
        return sets.choose(self, choices, out, mode)

    def conjugate(self) -> Variable:
        """The complex conjugate of real data (a recorded identity), as ndarray.conjugate."""
        return rounding.conj(self)

    @property
    def real(self) -> Variable:
        """The real part: for gengrad's real data, the values (a recorded identity)."""
        return rounding.real(self)

    @property
    def imag(self) -> Variable:
        """The imaginary part: for gengrad's real data, zeros (zero gradient)."""
        return rounding.imag(self)

    @property
    def mT(self) -> Variable:
        """The transpose of the last two axes (a stack of matrices), as ndarray.mT."""
        return array_api.matrix_transpose(self)

    @property
    def nbytes(self) -> int:
        """Bytes of the data, as ndarray.nbytes."""
        return self._data.nbytes

    @property
    def itemsize(self) -> int:
        """Bytes of one entry, as ndarray.itemsize."""
        return self._data.itemsize

    def tobytes(self, order: str = "C") -> bytes:
        """The data's raw bytes (no graph), as ndarray.tobytes (on a GPU, a sync)."""
        return self._data.tobytes(order=order)

    def __mod__(self, other: ArrayLike) -> Variable:
        return division.mod(self, other)

    def __rmod__(self, other: ArrayLike) -> Variable:
        return division.mod(other, self)

    def __floordiv__(self, other: ArrayLike) -> Variable:
        return division.floor_divide(self, other)

    def __rfloordiv__(self, other: ArrayLike) -> Variable:
        return division.floor_divide(other, self)

    def __divmod__(self, other: ArrayLike) -> tuple[Variable, Variable]:
        return division.divmod(self, other)

    def __rdivmod__(self, other: ArrayLike) -> tuple[Variable, Variable]:
        return division.divmod(other, self)

    def __pos__(self) -> Variable:
        return rounding.positive(self)

    def __round__(self, ndigits: int | None = None) -> Variable:
        """`round(x)` and `round(x, n)`: V.round (zero derivative), a Variable as for arrays."""
        return rounding.round(self, 0 if ndigits is None else ndigits)

    # bitwise operators: integer and boolean data only, giving plain arrays (no gradient),
    # as the comparisons do
    def __and__(self, other: Any) -> np.ndarray:
        return _bitwise("&", np.bitwise_and, self, other)

    def __rand__(self, other: Any) -> np.ndarray:
        return _bitwise("&", np.bitwise_and, other, self)

    def __or__(self, other: Any) -> np.ndarray:
        return _bitwise("|", np.bitwise_or, self, other)

    def __ror__(self, other: Any) -> np.ndarray:
        return _bitwise("|", np.bitwise_or, other, self)

    def __xor__(self, other: Any) -> np.ndarray:
        return _bitwise("^", np.bitwise_xor, self, other)

    def __rxor__(self, other: Any) -> np.ndarray:
        return _bitwise("^", np.bitwise_xor, other, self)

    def __lshift__(self, other: Any) -> np.ndarray:
        return _bitwise("<<", np.left_shift, self, other)

    def __rlshift__(self, other: Any) -> np.ndarray:
        return _bitwise("<<", np.left_shift, other, self)

    def __rshift__(self, other: Any) -> np.ndarray:
        return _bitwise(">>", np.right_shift, self, other)

    def __rrshift__(self, other: Any) -> np.ndarray:
        return _bitwise(">>", np.right_shift, other, self)

    def __invert__(self) -> np.ndarray:
        return _bitwise("~", np.invert, self)


def _matrix_identity(axes):
    """Whether the two axes are (0, 1), in any spelling: the identity permutation of a matrix."""
    return all(isinstance(a, (int, np.integer)) and -2 <= a < 2 for a in axes) and (
        [a % 2 for a in axes] == [0, 1])


def _no_out(what, out):
    if out is not None:
        raise TypeError(f"{what}(out=...): gengrad never writes into an array from a Variable; "
                        f"use the result, or {what.replace('x.', 'x.data.')}(out=...) for plain arrays")


def _bitwise(symbol, ufunc, *operands):
    """`x & y` etc.: the ufunc on integer or boolean data (a plain array, no gradient)."""
    data = [x._data if isinstance(x, Variable) else x for x in operands]
    for value in data:
        kind = (value.dtype if hasattr(value, "dtype") else np.asarray(value).dtype).kind   # (no device copy)
        if kind not in "iub":
            shown = " ".join(f"{getattr(v, 'dtype', type(v).__name__)}" for v in data)
            raise TypeError(
                f"{symbol} on a Variable: bitwise operators take integer or boolean data, got "
                f"{shown}; for masks of float data compare first, e.g. (x > 0) & (x < 1)"
            )
    return ufunc(*data)


_COMPARISONS = frozenset([np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal])


def _operator_ops():
    """{ufunc: gengrad op} for the ufuncs that Python's operators call on an ndarray."""
    return {np.add: elementwise.add, np.subtract: elementwise.sub, np.multiply: elementwise.mul,
            np.true_divide: elementwise.div, np.power: elementwise.pow, np.matmul: linalg.matmul,
            np.remainder: division.mod}


# The operators above call ops, and ops are built on Variable, so the op modules can
# only be bound once Variable exists.  This is the package's single deliberate
# late import; everything else imports strictly downwards.
from . import backward as backward_module  # noqa: E402
from . import numpy_dispatch, saving  # noqa: E402
from .ops import (  # noqa: E402
    array_api,
    contraction,
    division,
    elementwise,
    indexing,
    piecewise,
    products,
    rearrange,
    reduction,
    rounding,
    selection,
    statistics,
)
from .ops import matmul as linalg  # noqa: E402
from .ops import shape as shape_ops  # noqa: E402

# PyTorch's dim= and keepdim= given to the methods that take NumPy's axis= (x.argmax(dim=1))
for _name in ("all", "any", "argmax", "argmin", "argpartition", "argsort", "compress", "cumprod", "cumsum",
              "repeat", "squeeze", "take"):
    _method = refusing_foreign_keywords(vars(Variable)[_name], "variable", AXIS_KEYWORDS)
    _method.__qualname__ = f"Variable.{_name}"
    setattr(Variable, _name, _method)
del _method

# PyTorch's tensor methods, refused with gengrad's spelling
for _name, _fix in _TORCH_TENSOR_NAMES.items():
    _refusal = _TorchName(_fix)
    _refusal.__set_name__(Variable, _name)
    setattr(Variable, _name, _refusal)
for _names, _whose in ((_NUMPY_IN_PLACE, "NumPy's in-place method, which a Variable does not have"),
                       (_NUMPY_OTHER, "an ndarray attribute a Variable spells otherwise")):
    for _name, _fix in _names.items():
        _refusal = _TorchName(_fix, _whose)
        _refusal.__set_name__(Variable, _name)
        setattr(Variable, _name, _refusal)
del _name, _fix, _refusal, _names, _whose
