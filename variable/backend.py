"""The array module of each array: NumPy on the CPU, CuPy on a GPU; moving data between them.

Op code reads the same for both libraries: NumPy functions given a CuPy array run CuPy's
(both implement NumPy's dispatch protocols), and where an op must create an array it asks
`get_array_module(x)` for the module of its input.  This module owns the rest: which
module an array belongs to, moving arrays between host and device, and the few calls
spelled differently in the two libraries (scatter-add, strided windows, floating-point
error states).  CuPy is imported only when a CuPy array shows up or `to_gpu` is asked for,
so NumPy stays the only dependency.
"""

import contextlib
import importlib

import numpy as np

_MODULES = {np.ndarray: np}
"""Array type -> its array module; other types are looked up once (see _module_of_type)."""

_GPU = {"module": None}
"""The device array module once imported (CuPy), or a stand-in registered by tests."""


def _module_of_type(array_type):
    """The array module of `array_type` (NumPy for anything that is not a device array)."""
    module = _MODULES.get(array_type)
    if module is None:
        module = np
        if array_type.__module__.partition(".")[0] == "cupy":  # no import unless one shows up
            module = _cupy()
        _MODULES[array_type] = module
    return module


def get_array_module(*arrays):
    """numpy, or the device module (CuPy) of the first argument holding a device array.

    Variables count by their data; numbers, lists and None count as NumPy.
    """
    for a in arrays:
        kind = type(a)
        if kind is np.ndarray:
            continue
        kind = type(getattr(a, "_data", a))
        if kind is np.ndarray:
            continue
        module = _MODULES.get(kind) or _module_of_type(kind)
        if module is not np:
            return module
    return np


def is_device_array(a) -> bool:
    """Whether `a` is an array of a device module (a CuPy array), not a NumPy one."""
    kind = type(a)
    return kind is not np.ndarray and _module_of_type(kind) is not np


def register_device_module(array_type, module) -> None:
    """Treat `array_type` as a device array of `module`, and `module` as the GPU (for tests).

    `module` must offer what CuPy offers that gengrad uses: asarray, asnumpy, zeros, ones,
    empty, full, arange, random, lib.stride_tricks.as_strided and scatter_add.
    """
    _MODULES[array_type] = module
    _GPU["module"] = module


def _cupy():
    module = importlib.import_module("cupy")
    _GPU["module"] = _GPU["module"] or module
    return module


def gpu_module(op: str = "to_gpu"):
    """The device array module, or an error that says whether CuPy or a GPU is missing."""
    module = _GPU["module"]
    if module is None:
        try:
            module = _cupy()
        except ImportError:
            raise ModuleNotFoundError(
                f"{op}: CuPy is not installed, and gengrad runs on a GPU through CuPy; install "
                f"the wheel for your CUDA version (pip install cupy-cuda12x, or cupy-cuda13x), "
                f"or keep the data on the CPU"
            ) from None
        try:
            count = module.cuda.runtime.getDeviceCount()
        except Exception as error:  # CuPy's CUDARuntimeError: no driver, no device
            raise RuntimeError(
                f"{op}: CuPy is installed but finds no usable GPU ({error}); check the CUDA "
                f"driver (nvidia-smi), or keep the data on the CPU"
            ) from None
        if count == 0:
            raise RuntimeError(f"{op}: CuPy is installed but this machine has no CUDA GPU")
    return module


def to_cpu(a):
    """`a` as a NumPy array: a device array is copied to the host, anything else is kept."""
    if type(a) is np.ndarray:
        return a
    module = _module_of_type(type(a))
    return a if module is np else module.asnumpy(a)


def to_gpu(a, op: str = "to_gpu"):
    """`a` as an array on the GPU (a copy of a NumPy array; a device array as it is)."""
    module = gpu_module(op)
    return module.asarray(a)


def to_device(a, device: str, op: str = "to_gpu"):
    """`a` on `device` ('cpu' or 'gpu'): the array itself when it is there already."""
    if device_of(a) == device:
        return a
    return to_gpu(a, op) if device == "gpu" else to_cpu(a)


def constant_like(a, like, op: str, name: str = "an input", like_name: str = "the data", made: bool = False):
    """A constant array `a` of `op` (labels, a mask, a bound) on the device of `like`, by one rule.

    Numbers and lists made into `a` by the op (`made`) and 0-d NumPy arrays go where `like`
    is, as numbers do; a larger NumPy array goes to the GPU only under
    set_default_device("gpu") (where V.Variable(a) would put it), and is refused otherwise
    (it would cross to the device on every call, as CuPy and PyTorch refuse it); a GPU
    array next to CPU data is refused.
    """
    target = getattr(like, "_data", like)
    on_gpu, target_on_gpu = is_device_array(a), is_device_array(target)
    if on_gpu == target_on_gpu:
        return a
    if target_on_gpu and (made or a.ndim == 0 or _DEFAULT["gpu"]):
        return get_array_module(target).asarray(a)
    if target_on_gpu:
        code = name if name.isidentifier() else "a"
        raise TypeError(
            f"{op}: expected {name} on the device of {like_name}, got {like_name} on the GPU and "
            f"{name} on the CPU (a NumPy array of shape {a.shape}); move it once with "
            f"xp.asarray({code}) or V.Variable({code}).to_gpu() (or V.backend.set_default_device"
            f'("gpu"), which puts new arrays there), or bring the data back with x.to_cpu()'
        )
    raise TypeError(
        f"{op}: expected {name} on the device of {like_name}, got {like_name} on the CPU and {name} "
        f"on the GPU; move {name} with V.backend.to_cpu({name}), or the data with .to_gpu()"
    )


def device_of(a) -> str:
    """'gpu' for a device array (or a Variable holding one), 'cpu' otherwise."""
    return "gpu" if is_device_array(getattr(a, "_data", a)) else "cpu"


_DEFAULT = {"gpu": False}
"""Whether new Variables made from host data go to the GPU (set_default_device)."""


def set_default_device(device: str) -> None:
    """Where `V.Variable(data)` puts host data from now on: 'cpu' (the default) or 'gpu'.

    Like torch.set_default_device: ops on those Variables then run on the GPU, and arrays
    that ops make from them follow.  The test suite's GENGRAD_DEVICE=gpu switch uses it.

    Raises
    ------
    ValueError
        If `device` is neither 'cpu' nor 'gpu'.
    ModuleNotFoundError, RuntimeError
        For 'gpu' without CuPy or without a GPU.
    """
    if device not in ("cpu", "gpu"):
        raise ValueError(f"set_default_device: device must be 'cpu' or 'gpu', got {device!r}")
    if device == "gpu":
        gpu_module("set_default_device")
    _DEFAULT["gpu"] = device == "gpu"


def default_device() -> str:
    """Where `V.Variable(data)` puts host data: 'cpu', or 'gpu' after set_default_device('gpu')."""
    return "gpu" if _DEFAULT["gpu"] else "cpu"


def scatter_add(target, index, values) -> None:
    """target[index] += values, adding every repeated index (np.add.at; cupyx.scatter_add)."""
    xp = get_array_module(target)
    if xp is np:
        np.add.at(target, index, values)
    elif xp.__name__ == "cupy":
        importlib.import_module("cupyx").scatter_add(target, index, values)
    else:
        xp.scatter_add(target, index, values)


def as_strided(x, shape, strides):
    """A strided view of `x` (the windows of im2col), in x's own array module."""
    return get_array_module(x).lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


def errstate(x, **settings):
    """np.errstate(**settings) for a NumPy array; CuPy has no floating-point error state."""
    return np.errstate(**settings) if get_array_module(x) is np else contextlib.nullcontext()


def writes_through(a) -> bool:
    """Whether writing to `a` may change memory that another element or array shows
    (a read-only NumPy view, or a device array broadcast with a zero stride)."""
    if type(a) is np.ndarray:
        return not a.flags.writeable
    return any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape))


__all__ = [
    "get_array_module", "is_device_array", "to_cpu", "to_gpu", "to_device", "device_of", "gpu_module",
    "scatter_add", "as_strided", "errstate", "writes_through", "register_device_module",
    "set_default_device", "default_device", "constant_like",
]
