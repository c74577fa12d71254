"""A stand-in for CuPy on the CPU: arrays that behave as device arrays, for tests without a GPU.

`DeviceArray` wraps an ndarray and keeps the rules CuPy enforces that gengrad's code must
respect: NumPy ufuncs and functions given a DeviceArray compute and return DeviceArrays
(NumPy's dispatch protocols, as CuPy implements them); an operation mixing a DeviceArray
with a NumPy array raises TypeError, as CuPy's kernels refuse host arrays (NumPy scalars
and Python numbers are accepted); and implicit conversion to NumPy (np.asarray, a NumPy
function on the host) raises, as CuPy does, so a silent round trip through the host is
an error here too.  `module` plays `cupy`: creation functions, asarray/asnumpy, random,
lib.stride_tricks and scatter_add (cupyx's); and where CuPy's function is narrower than
NumPy's (sort kinds, select's default, linalg's pinv/svd/lstsq... keywords), CuPy's version
(_STRICT), reached by np.<name>(device array) as CuPy's own dispatch reaches it.

It keeps CuPy's other rules a real GPU showed that NumPy does not: indexing one entry gives
a 0-d array that is a *view* (writing the entry changes it); lists and tuples of numbers are
refused as operands of ufuncs and of the comparison functions (CuPy takes arrays and
scalars only); a Python int beyond 64 bits raises OverflowError (NumPy turns it into an
object or float array); `random` is a generator of its own, not NumPy's global one; and
no operation warns about overflow or invalid values (CuPy has no floating-point error state).

Every conversion to the host is a sync on a GPU (the host waits for the device): bool(),
float(), int(), an index, .item(), .tolist(), .get(), asnumpy, printing, boolean-mask
indexing, nonzero/unique.  The stand-in counts them (`module.syncs`, see `count_syncs`),
so a test can hold a training step to its budget of host syncs.

It says nothing about CuPy's missing functions or its numerics; the real check is the
suite on a GPU (README: GENGRAD_DEVICE=gpu).
"""

import contextlib
import sys
import types
import weakref

import numpy as np

_INT_LIMITS = (-(2 ** 63), 2 ** 64 - 1)
"""Python ints CuPy converts (int64, or uint64 above it); beyond them it raises OverflowError."""


class Syncs:
    """Host syncs counted while active (`count_syncs`): how many, and where each came from."""

    def __init__(self):
        self.count = 0
        self.where = []   # "file:line what" of the first frame outside this module, per sync

    def __repr__(self):
        return f"{self.count} syncs: " + "; ".join(self.where)


_COUNTERS = []
"""The Syncs being counted into (count_syncs blocks, innermost last)."""


def _sync(what):
    """Record one host sync (a conversion a GPU would wait for)."""
    if not _COUNTERS:
        return
    here = __file__
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == here:
        frame = frame.f_back
    place = "?" if frame is None else (
        f"{frame.f_code.co_filename.rsplit('/', 2)[-2]}/{frame.f_code.co_filename.rsplit('/', 1)[-1]}"
        f":{frame.f_lineno} {frame.f_code.co_name}")
    for counter in _COUNTERS:
        counter.count += 1
        counter.where.append(f"{place} ({what})")


@contextlib.contextmanager
def count_syncs():
    """Count the host syncs made inside the block: `with count_syncs() as syncs: ...`,
    then `syncs.count` and `syncs.where`."""
    counter = Syncs()
    _COUNTERS.append(counter)
    try:
        yield counter
    finally:
        _COUNTERS.remove(counter)


def _check_int(value, op):
    """A Python int CuPy cannot convert raises OverflowError, as CuPy's does."""
    if type(value) is int and not _INT_LIMITS[0] <= value <= _INT_LIMITS[1]:
        raise OverflowError(f"Python int too large to convert to C long (fake GPU: {op})")
    return value


def _operand(value, op):
    """A ufunc operand: a DeviceArray's NumPy view, a scalar; host arrays and lists refused."""
    if isinstance(value, (list, tuple)):
        raise TypeError(f"Unsupported type {type(value)} (fake GPU: {op} takes arrays and scalars only)")
    return _unwrap(value, op)


def _unwrap(value, op):
    """The NumPy view of a DeviceArray (recursively in lists and tuples); refuse host arrays."""
    if isinstance(value, DeviceArray):
        return value._a
    if type(value) is np.ndarray:
        raise TypeError(f"Unsupported type {type(value)} (fake GPU: {op} mixes a host array in)")
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v, op) for v in value)
    return _check_int(value, op)


def _wrap(value):
    """NumPy results as DeviceArrays (0-d results too: CuPy reductions return 0-d arrays)."""
    if isinstance(value, np.ndarray):
        return DeviceArray(value)
    if isinstance(value, np.generic):
        return DeviceArray(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


_OWNERS = weakref.WeakValueDictionary()
"""id(ndarray) -> the DeviceArray made for it, for the ndarrays that own their memory."""

_BASES = {}
"""id(ndarray) -> (ndarray, its one DeviceArray): kept alive, so ids are never reused."""


class _Flags:
    def __init__(self, a):
        self.c_contiguous = a.flags.c_contiguous
        self.f_contiguous = a.flags.f_contiguous
        self.owndata = a.flags.owndata


class MemoryPointer:
    """What CuPy's `a.data` is: the address of the device memory, not an array."""

    def __init__(self, a):
        self.ptr = a.ctypes.data

    def __repr__(self):
        return f"<fake_gpu.MemoryPointer 0x{self.ptr:x}>"


_NOT_IN_CUPY = frozenset(["spacing"])
"""NumPy's ufuncs that CuPy does not have (its __array_ufunc__ answers NotImplemented)."""

try:    # NumPy's own error state, set for one call without building an np.errstate each time
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
    _QUIET = _make_extobj(all="ignore")
    _set_state, _reset_state = _extobj_contextvar.set, _extobj_contextvar.reset
except ImportError:     # (another NumPy: np.errstate itself, as slow as it is)
    _extobj_contextvar = None


def _quietly(ufunc, args, kwargs=None):
    """ufunc(*args, **kwargs) with every floating-point error ignored (CuPy has no error state)."""
    if _extobj_contextvar is None:
        with np.errstate(all="ignore"):
            return ufunc(*args, **(kwargs or {}))
    token = _set_state(_QUIET)
    try:
        return ufunc(*args, **kwargs) if kwargs else ufunc(*args)
    finally:
        _reset_state(token)


def _plain(x):
    """x as a ufunc operand when it is a DeviceArray, a float, a bool, an int CuPy converts or a
    NumPy scalar (the common operands, taken without the general checks); None for anything else."""
    kind = type(x)
    if kind is DeviceArray:
        return x._a
    if kind is float or kind is bool or isinstance(x, np.generic) or (
            kind is int and _INT_LIMITS[0] <= x <= _INT_LIMITS[1]):
        return x
    return None


def _method(name):
    """The DeviceArray's method `name`: the ndarray's, on its unwrapped arguments, results wrapped
    (what __getattr__ does for the rest, without building the method on every call)."""
    op = f".{name}"

    def method(self, *args, **kwargs):
        return _wrap(getattr(self._a, name)(*_unwrap_args(args, op), **_unwrap_dict(kwargs, op)))

    method.__name__ = name
    return method


def _fast_result(result):
    return DeviceArray(result) if type(result) is np.ndarray else _wrap(result)


def _operator(name, reflected=False):
    """The DeviceArray's `a <op> b` for the common operands straight to the ufunc (the stand-in
    runs every step of a device's arithmetic: NumPy's dispatch to __array_ufunc__ made it 18
    times as slow as NumPy's own); any other operand takes the general path of
    NDArrayOperatorsMixin (NotImplemented for a Variable, lists refused, ...)."""
    ufunc = getattr(np, name)
    mixin = getattr(np.lib.mixins.NDArrayOperatorsMixin,
                    f"__r{_OPERATORS[name]}__" if reflected else f"__{_OPERATORS[name]}__")
    low, high = _INT_LIMITS

    def operator(self, other):      # (_plain and _quietly written out: the stand-in's hottest lines)
        kind = type(other)
        if kind is DeviceArray:
            b = other._a
        elif kind is float or kind is bool or (kind is int and low <= other <= high) or isinstance(
                other, np.generic):
            b = other
        else:
            return mixin(self, other)
        if _extobj_contextvar is None:
            return _fast_result(_quietly(ufunc, (b, self._a) if reflected else (self._a, b)))
        token = _set_state(_QUIET)
        try:
            result = ufunc(b, self._a) if reflected else ufunc(self._a, b)
        finally:
            _reset_state(token)
        return DeviceArray(result) if type(result) is np.ndarray else _wrap(result)

    operator.__name__ = f"__r{_OPERATORS[name]}__" if reflected else f"__{_OPERATORS[name]}__"
    return operator


_OPERATORS = {"add": "add", "subtract": "sub", "multiply": "mul", "true_divide": "truediv", "power": "pow",
              "less": "lt", "less_equal": "le", "greater": "gt", "greater_equal": "ge",
              "equal": "eq", "not_equal": "ne"}


class DeviceArray(np.lib.mixins.NDArrayOperatorsMixin):
    """An array "on the device": arithmetic and NumPy calls stay here, mixing raises."""

    __array_priority__ = 100
    __slots__ = ("_a", "__weakref__")

    def __init__(self, a):
        self._a = a
        if a.base is None:  # it owns its memory: the views' base (CuPy's x.T.base is x)
            _OWNERS[id(a)] = self

    # --- NumPy's protocols --------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and not kwargs and ufunc.__name__ not in _NOT_IN_CUPY:
            args = []                               # the common operands: no general checks
            for x in inputs:
                a = _plain(x)
                if a is None:
                    break
                args.append(a)
            else:
                return _fast_result(_quietly(ufunc, args))
        if any(getattr(type(x), "__array_ufunc__", None) is not None
               and not isinstance(x, (DeviceArray, np.ndarray, np.generic)) for x in inputs):
            return NotImplemented   # another library's type (a Variable) answers, as with CuPy
        op = f"np.{ufunc.__name__}"
        if ufunc.__name__ in _NOT_IN_CUPY:
            return NotImplemented       # CuPy has no such ufunc: NumPy then raises a TypeError
        args = [_operand(x, op) for x in inputs] if method == "__call__" else _unwrap(inputs, op)
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = _unwrap(out, f"np.{ufunc.__name__}")
        with np.errstate(all="ignore"):     # CuPy has no floating-point error state
            result = getattr(ufunc, method)(*args, **kwargs)
        if out is not None:            # in place (a -= b): the same array object, as CuPy returns
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    for _name, _short in _OPERATORS.items():
        locals()[f"__{_short}__"] = _operator(_name)
        if _short not in ("lt", "le", "gt", "ge", "eq", "ne"):
            locals()[f"__r{_short}__"] = _operator(_name, reflected=True)
    del _name, _short

    def __neg__(self):
        return _fast_result(_quietly(np.negative, (self._a,)))

    def __array_function__(self, func, types_, args, kwargs):
        for kind in types_:
            if kind is not DeviceArray and not issubclass(kind, (DeviceArray, np.ndarray)):
                return NotImplemented   # another library's type (a Variable) answers, as with CuPy
        plan = _PLANS.get(func)
        if plan is None:
            plan = _PLANS[func] = _plan(func)
        strict, operands_only, syncing, op = plan
        if strict is not None:
            return strict(*args, **kwargs)
        if operands_only:      # CuPy's versions take arrays (and scalars), not lists
            for a in args:
                _operand(a, op)
            for a in kwargs.values():
                _operand(a, op)
        if syncing:
            _sync(op)
        return _wrap(_quietly(func, _unwrap_args(args, op), _unwrap_dict(kwargs, op) if kwargs else None))

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
            "construct a NumPy array explicitly (fake GPU)."
        )

    # --- the ndarray interface -------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    T = property(lambda self: DeviceArray(self._a.T))
    flags = property(lambda self: _Flags(self._a))
    data = property(lambda self: MemoryPointer(self._a))
    """CuPy's `.data` is the device memory pointer, not the values (a Variable's `.data` is)."""

    @property
    def base(self):
        base = self._a.base
        if not isinstance(base, np.ndarray):
            return None
        owner = _OWNERS.get(id(base))
        if owner is not None and owner._a is base:
            return owner
        if id(base) not in _BASES:  # one wrapper per base, as CuPy returns the base object
            _BASES[id(base)] = (base, DeviceArray(base))
        return _BASES[id(base)][1]

    def sort(self, axis=-1, kind=None):
        """In place, stably (CuPy's ndarray.sort accepts no other kind)."""
        _check_kind_sort(kind)
        self._a.sort(axis=axis, kind="stable")

    def argsort(self, axis=-1, kind=None):
        _check_kind_sort(kind)
        return DeviceArray(self._a.argsort(axis=axis, kind="stable"))

    def get(self):
        """A NumPy copy on the host (CuPy's `.get()`)."""
        _sync(".get()")
        return self._a.copy()

    def item(self, *args):
        _sync(".item()")
        return self._a.item(*args)

    def tolist(self):
        _sync(".tolist()")
        return self._a.tolist()

    def nonzero(self):
        _sync(".nonzero()")
        return _wrap(self._a.nonzero())

    for _name in ("astype", "reshape", "sum", "copy", "transpose", "mean", "ravel", "any", "all", "max",
                  "min", "argmax", "argmin", "var", "std", "squeeze", "swapaxes", "prod", "cumsum", "dot",
                  "flatten", "conj", "round", "clip", "view", "take", "repeat"):
        locals()[_name] = _method(_name)
    del _name

    def __getattr__(self, name):
        if name[0] == "_":      # NumPy's private and protocol names (__array_interface__, ...):
            raise AttributeError(f"'fake_gpu.DeviceArray' object has no attribute '{name}'")
        attribute = getattr(self._a, name)      # sum, max, reshape, astype, copy, item, ...
        if not callable(attribute):
            return _wrap(attribute)

        def method(*args, **kwargs):
            return _wrap(attribute(*_unwrap(args, f".{name}"), **_unwrap_dict(kwargs, f".{name}")))

        return method

    def __getitem__(self, index):
        index = _index(index)
        if _masks(index):               # the result's size depends on the data
            _sync("boolean-mask indexing")
        result = self._a[index]
        if not isinstance(result, np.ndarray):   # one entry: CuPy gives a 0-d *view*
            result = self._a[(index if isinstance(index, tuple) else (index,)) + (Ellipsis,)]
        return DeviceArray(result)

    def __setitem__(self, index, value):
        index = _index(index)
        if _masks(index):
            _sync("boolean-mask assignment")
        self._a[index] = _unwrap(value, "setitem")

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (self[i] for i in range(len(self)))   # 0-d views, as CuPy's

    def __bool__(self):
        _sync("bool()")
        return bool(self._a)

    def __float__(self):
        _sync("float()")
        return float(self._a)

    def __int__(self):
        _sync("int()")
        return int(self._a)

    def __complex__(self):
        _sync("complex()")
        return complex(self._a)

    def __index__(self):
        _sync("an index")
        return self._a.__index__()

    def __repr__(self):
        _sync("repr()")
        return "fake_gpu." + repr(self._a)

    def __str__(self):
        _sync("str()")
        return str(self._a)

    def __format__(self, spec):
        _sync("format()")
        return format(self._a, spec) if spec else str(self._a)

    def __copy__(self):
        return DeviceArray(self._a.copy())

    def __deepcopy__(self, memo):
        return DeviceArray(self._a.copy())


def _unwrap_dict(kwargs, op):
    return {k: _unwrap(v, op) for k, v in kwargs.items()}


def _unwrap_args(args, op):
    """_unwrap of a call's arguments, the common ones (DeviceArrays, floats, bools, None, small
    ints) without the general walk."""
    out = []
    for a in args:
        kind = type(a)
        if kind is DeviceArray:
            out.append(a._a)
        elif kind is float or kind is bool or a is None or (
                kind is int and _INT_LIMITS[0] <= a <= _INT_LIMITS[1]):
            out.append(a)
        else:
            return _unwrap(args, op)
    return out


_PLANS = {}
"""NumPy function -> (the stand-in's strict version or None, whether CuPy takes its operands as
arrays and scalars only, whether it syncs, "np.<name>"): __array_function__'s lookups, once."""


def _plan(func):
    name = func.__name__
    return (_STRICT.get((func.__module__, name)), name in _OPERANDS_ONLY, name in _SYNCING, f"np.{name}")


def _masks(index):
    """Whether `index` (unwrapped) holds a boolean array: a mask, whose result size needs the data."""
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, np.ndarray) and i.dtype == np.bool_ and i.ndim > 0 for i in parts)


def _index(index):
    """An index for the wrapped array: device index arrays unwrapped; host ones allowed only
    when integer or boolean NumPy arrays would be (CuPy copies those to the device)."""
    if isinstance(index, tuple):
        return tuple(_index(i) for i in index)
    if isinstance(index, DeviceArray):
        return index._a
    return index


def _creator(name):
    function = getattr(np, name)

    def create(*args, **kwargs):
        for a in list(args) + list(kwargs.values()):
            _check_int(a, name)
        return DeviceArray(np.asarray(function(*args, **kwargs)))

    create.__name__ = name
    return create


def _asarray(a, dtype=None):
    if isinstance(a, DeviceArray):
        return a if dtype is None or a.dtype == dtype else DeviceArray(a._a.astype(dtype))
    return DeviceArray(np.array(a, dtype=dtype))   # a copy: the data moves to the device


def _asnumpy(a):
    if isinstance(a, DeviceArray):
        _sync("asnumpy")
    return a._a.copy() if isinstance(a, DeviceArray) else np.asarray(a)


def _scatter_add(target, index, values):
    np.add.at(target._a, _index(index), _unwrap(values, "scatter_add"))


def _as_strided(x, shape=None, strides=None):
    return DeviceArray(np.lib.stride_tricks.as_strided(x._a, shape=shape, strides=strides))


class _RandomState:
    """`cupy.random.RandomState`: one generator, its draws on the device."""

    def __init__(self, seed=None):
        self.seed(seed)

    def seed(self, seed=None):
        seed = None if seed is None else _check_int(seed, "random.seed") % 2 ** 32
        self._state = np.random.RandomState(seed)

    def __getattr__(self, name):
        function = getattr(self.__dict__["_state"], name)

        def draw(*args, **kwargs):
            return _wrap(function(*args, **kwargs))

        return draw


class _Random:
    """`cupy.random`: a generator of the device's own (not NumPy's global one, as CuPy's is
    not), its draws on the device; `seed(n)` reseeds it; as in CuPy, the generator is an
    object with no state to read back (get_random_state/set_random_state swap it)."""

    RandomState = _RandomState

    def __init__(self):
        self._current = _RandomState(12345)

    def seed(self, seed=None):
        self._current.seed(seed)

    def get_random_state(self):
        return self._current

    def set_random_state(self, state):
        if not isinstance(state, _RandomState):
            raise TypeError(f"Random state must be an instance of RandomState. Actual: {type(state)}")
        self._current = state

    def __getattr__(self, name):
        return getattr(self.__dict__["_current"], name)


# ----- functions whose CuPy signature or rules are narrower than NumPy's ------------------
def _check_kind_sort(kind):
    if kind is not None and kind != "stable":
        raise ValueError("kind can only be None or 'stable'")


def _device(op, *arrays):
    for a in arrays:
        if not isinstance(a, DeviceArray):
            raise TypeError(f"Unsupported type {type(a)} (fake GPU: {op} takes device arrays only)")
    return [a._a for a in arrays]


def _sort(a, axis=-1, kind=None):
    _check_kind_sort(kind)
    return DeviceArray(np.sort(*_device("sort", a), axis=axis, kind="stable"))


def _argsort(a, axis=-1, kind=None):
    _check_kind_sort(kind)
    return DeviceArray(np.argsort(*_device("argsort", a), axis=axis, kind="stable"))


def _select(condlist, choicelist, default=0):
    """cupy.select: choices must be device arrays, the default a scalar."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    if not np.isscalar(default):
        raise TypeError("default only accepts scalar values")
    for i, choice in enumerate(choicelist):
        if not isinstance(choice, DeviceArray):
            raise TypeError("choicelist only accepts lists of cupy ndarrays")
        if condlist[i].dtype.type is not np.bool_:
            raise ValueError(f"invalid entry {i} in condlist: should be boolean ndarray")
    return DeviceArray(np.asarray(np.select(_unwrap(list(condlist), "select"),
                                            _unwrap(list(choicelist), "select"), default)))


def _pinv(a, rcond=1e-15):
    """cupy.linalg.pinv: no hermitian= or rtol=; rcond must be a number or an array."""
    if rcond is None:
        raise TypeError("unsupported operand type(s) for *: 'NoneType' and 'ndarray' (fake GPU: pinv)")
    return DeviceArray(np.linalg.pinv(*_device("pinv", a), rcond=_unwrap(rcond, "pinv")))


def _svd(a, full_matrices=True, compute_uv=True):
    """cupy.linalg.svd: no hermitian=."""
    return _wrap(np.linalg.svd(*_device("svd", a), full_matrices=full_matrices, compute_uv=compute_uv))


def _cholesky(a):
    """cupy.linalg.cholesky: no upper=."""
    return DeviceArray(np.linalg.cholesky(*_device("cholesky", a)))


def _qr(a, mode="reduced"):
    return _wrap(np.linalg.qr(*_device("qr", a), mode=mode))


def _eigh(a, UPLO="L"):
    return _wrap(tuple(np.linalg.eigh(*_device("eigh", a), UPLO=UPLO)))


def _eigvalsh(a, UPLO="L"):
    return DeviceArray(np.linalg.eigvalsh(*_device("eigvalsh", a), UPLO=UPLO))


def _complex(a):
    return a.astype(np.result_type(a.dtype, np.complex64))


def _eig(a):
    """cupy.linalg.eig: complex eigenvalues and eigenvectors always (cuSOLVER's geev), even
    where every eigenvalue is real (NumPy returns real arrays then)."""
    w, v = np.linalg.eig(*_device("eig", a))
    return DeviceArray(_complex(w)), DeviceArray(_complex(v))


def _eigvals(a):
    return DeviceArray(_complex(np.linalg.eigvals(*_device("eigvals", a))))


def _lstsq(a, b, rcond=None):
    """cupy.linalg.lstsq: `a` 2-D only, CuPy's rcond rule, the rank a 0-d int32 device array."""
    a_, b_ = _device("lstsq", a, b)
    if a_.ndim != 2:
        raise np.linalg.LinAlgError(f"{a_.ndim}-dimensional array given. Array must be two-dimensional")
    if b_.ndim > 2:
        raise np.linalg.LinAlgError(
            f"{b_.ndim}-dimensional array given. Array must be at most two-dimensional")
    if a_.shape[0] != b_.shape[0]:
        raise np.linalg.LinAlgError("Incompatible dimensions")
    eps = np.finfo(np.result_type(a_.dtype, np.float32)).eps
    if rcond is None:
        rcond = eps * max(a_.shape)
    elif rcond <= 0 or rcond >= 1:
        rcond = eps
    x, residuals, rank, s = np.linalg.lstsq(a_, b_, rcond=rcond)
    return DeviceArray(x), DeviceArray(residuals), DeviceArray(np.array(rank, np.int32)), DeviceArray(s)


def _matrix_power(M, n):
    if not isinstance(n, int):
        raise TypeError("exponent must be an integer")
    return DeviceArray(np.linalg.matrix_power(*_device("matrix_power", M), n))


_OPERANDS_ONLY = {"array_equal", "array_equiv", "allclose", "isclose", "where", "clip", "dot",
                  "maximum", "minimum", "less", "greater", "equal", "not_equal"}
"""Functions whose operands CuPy takes as arrays or scalars only: a list is refused."""

_SYNCING = {"nonzero", "flatnonzero", "argwhere", "unique", "compress", "extract", "count_nonzero"}
"""Functions whose result's size depends on the data: the host waits for the device."""

_STRICT = {
    ("numpy", "sort"): _sort, ("numpy", "argsort"): _argsort, ("numpy", "select"): _select,
    ("numpy.linalg", "pinv"): _pinv, ("numpy.linalg", "svd"): _svd, ("numpy.linalg", "cholesky"): _cholesky,
    ("numpy.linalg", "qr"): _qr, ("numpy.linalg", "eigh"): _eigh, ("numpy.linalg", "eigvalsh"): _eigvalsh,
    ("numpy.linalg", "eig"): _eig, ("numpy.linalg", "eigvals"): _eigvals,
    ("numpy.linalg", "lstsq"): _lstsq, ("numpy.linalg", "matrix_power"): _matrix_power,
}
"""(NumPy module, name) -> the stand-in's CuPy-like version, for np.<name>(device array) and
module.<name> alike (CuPy's __array_function__ calls its own function of that name)."""


def _foreign(value):
    """Whether `value` is another library's array-like (a Variable, a Directions, ...): an
    object with NumPy's protocols that is neither a device array nor a host one."""
    if isinstance(value, (list, tuple)):
        return any(_foreign(v) for v in value)
    kind = type(value)
    return (not isinstance(value, (DeviceArray, np.ndarray, np.generic))
            and (getattr(kind, "__array_function__", None) is not None
                 or getattr(kind, "__array_ufunc__", None) is not None))


class _OwnUfunc:
    """A ufunc called as CuPy's own (cupy.add): its call and its methods (cupy.add.at,
    cupy.maximum.reduce) refuse another library's type; its attributes read through."""

    def __init__(self, ufunc, where):
        self._ufunc, self._where = ufunc, where
        self.__name__ = ufunc.__name__

    def __call__(self, *args, **kwargs):
        _refuse_foreign(args, kwargs, self._where, self.__name__)
        return self._ufunc(*args, **kwargs)

    def __getattr__(self, name):
        value = getattr(self._ufunc, name)
        return _own(value, self._where, f"{self.__name__}.{name}") if callable(value) else value


def _own(function, where, name=None):
    """`function` called as CuPy's own (cupy.<name>, cupy.linalg.<name>): unlike np.<name>,
    it dispatches to no other library's type, and refuses one (CuPy cannot read it)."""
    if isinstance(function, type) or not callable(function):
        return function
    if isinstance(function, np.ufunc):
        return _OwnUfunc(function, where)
    name = name or function.__name__

    def call(*args, **kwargs):
        _refuse_foreign(args, kwargs, where, name)
        return function(*args, **kwargs)
    return call


def _refuse_foreign(args, kwargs, where, name):
    for value in (*args, *kwargs.values()):
        if type(value) is not DeviceArray and _foreign(value):
            raise TypeError(f"Unsupported type {type(value)} (fake GPU: {where}.{name} "
                            f"is CuPy's own function, which reads device arrays and scalars only; "
                            f"np.{name} would hand it to that type)")


class _Linalg(types.ModuleType):
    """`cupy.linalg`: the narrower functions above, NumPy's otherwise (refusing other types)."""

    def __getattr__(self, name):
        value = _own(getattr(np.linalg, name), "cupy.linalg")
        setattr(self, name, value)      # (made once)
        return value


class _Module(types.ModuleType):
    """Names not defined here fall back to NumPy's, which refuse other libraries' types as
    CuPy's own functions do (np.<name> dispatches to them; cupy.<name> does not)."""

    def __getattr__(self, name):
        value = _own(getattr(np, name), "cupy")
        setattr(self, name, value)      # (made once)
        return value


module = _Module("fake_gpu")
module.ndarray = DeviceArray
for _name in ("zeros", "ones", "empty", "full", "arange", "eye", "linspace"):
    setattr(module, _name, _creator(_name))
module.asarray = _asarray
module.array = _asarray
module.asnumpy = _asnumpy
module.scatter_add = _scatter_add
module.random = _Random()
module.lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=_as_strided))
module.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1))
module.linalg = _Linalg("fake_gpu.linalg")
for (_where, _name), _function in _STRICT.items():
    setattr(module.linalg if _where == "numpy.linalg" else module, _name, _function)
