"""A stand-in for CuPy on the CPU: arrays that behave as device arrays, for tests without a GPU.

`DeviceArray` wraps an ndarray and keeps the rules CuPy enforces that gengrad's code must
respect: NumPy ufuncs and functions given a DeviceArray compute and return DeviceArrays
(NumPy's dispatch protocols, as CuPy implements them); an operation mixing a DeviceArray
with a NumPy array raises TypeError, as CuPy's kernels refuse host arrays (NumPy scalars
and Python numbers are accepted); and implicit conversion to NumPy (np.asarray, a NumPy
function on the host) raises, as CuPy does, so a silent round trip through the host is
an error here too.  `module` plays `cupy`: creation functions, asarray/asnumpy, random,
lib.stride_tricks and scatter_add (cupyx's).

It says nothing about CuPy's missing functions or its numerics; the real check is the
suite on a GPU (README: GENGRAD_DEVICE=gpu).
"""

import types

import numpy as np


def _unwrap(value, op):
    """The NumPy view of a DeviceArray (recursively in lists and tuples); refuse host arrays."""
    if isinstance(value, DeviceArray):
        return value._a
    if type(value) is np.ndarray:
        raise TypeError(f"Unsupported type {type(value)} (fake GPU: {op} mixes a host array in)")
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v, op) for v in value)
    return value


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


_BASES = {}
"""id(ndarray) -> (ndarray, its one DeviceArray): kept alive, so ids are never reused."""


class _Flags:
    def __init__(self, a):
        self.c_contiguous = a.flags.c_contiguous
        self.f_contiguous = a.flags.f_contiguous
        self.owndata = a.flags.owndata


class DeviceArray(np.lib.mixins.NDArrayOperatorsMixin):
    """An array "on the device": arithmetic and NumPy calls stay here, mixing raises."""

    __array_priority__ = 100

    def __init__(self, a):
        self._a = a

    # --- NumPy's protocols --------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        args = _unwrap(inputs, f"np.{ufunc.__name__}")
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = _unwrap(out, f"np.{ufunc.__name__}")
        result = getattr(ufunc, method)(*args, **kwargs)
        if out is not None:            # in place (a -= b): the same array object, as CuPy returns
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types_, args, kwargs):
        name = func.__name__
        return _wrap(func(*_unwrap(args, f"np.{name}"), **_unwrap_dict(kwargs, f"np.{name}")))

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

    @property
    def base(self):
        base = self._a.base
        if not isinstance(base, np.ndarray):
            return None
        if id(base) not in _BASES:  # one wrapper per base, as CuPy returns the base object
            _BASES[id(base)] = (base, DeviceArray(base))
        return _BASES[id(base)][1]

    def get(self):
        """A NumPy copy on the host (CuPy's `.get()`)."""
        return self._a.copy()

    def __getattr__(self, name):
        attribute = getattr(self._a, name)      # sum, max, reshape, astype, copy, item, ...
        if not callable(attribute):
            return _wrap(attribute)

        def method(*args, **kwargs):
            return _wrap(attribute(*_unwrap(args, f".{name}"), **_unwrap_dict(kwargs, f".{name}")))

        return method

    def __getitem__(self, index):
        return _wrap(self._a[_index(index)])

    def __setitem__(self, index, value):
        self._a[_index(index)] = _unwrap(value, "setitem")

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (_wrap(v) for v in self._a)

    def __bool__(self):
        return bool(self._a)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __index__(self):
        return self._a.__index__()

    def __repr__(self):
        return "fake_gpu." + repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a, spec) if spec else str(self._a)

    def __copy__(self):
        return DeviceArray(self._a.copy())

    def __deepcopy__(self, memo):
        return DeviceArray(self._a.copy())


def _unwrap_dict(kwargs, op):
    return {k: _unwrap(v, op) for k, v in kwargs.items()}


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
        return DeviceArray(np.asarray(function(*args, **kwargs)))

    create.__name__ = name
    return create


def _asarray(a, dtype=None):
    if isinstance(a, DeviceArray):
        return a if dtype is None or a.dtype == dtype else DeviceArray(a._a.astype(dtype))
    return DeviceArray(np.array(a, dtype=dtype))   # a copy: the data moves to the device


def _asnumpy(a):
    return a._a.copy() if isinstance(a, DeviceArray) else np.asarray(a)


def _scatter_add(target, index, values):
    np.add.at(target._a, _index(index), _unwrap(values, "scatter_add"))


def _as_strided(x, shape=None, strides=None):
    return DeviceArray(np.lib.stride_tricks.as_strided(x._a, shape=shape, strides=strides))


class _Random:
    """`cupy.random`: the global generator's functions, their results on the device."""

    def __getattr__(self, name):
        function = getattr(np.random, name)

        def draw(*args, **kwargs):
            return _wrap(function(*args, **kwargs))

        return draw


class _Module(types.ModuleType):
    """Names not defined here fall back to NumPy's (ufuncs and functions dispatch by themselves)."""

    def __getattr__(self, name):
        return getattr(np, name)


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
