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
import threading

import numpy as np

_MODULES = {np.ndarray: np}
"""Array type -> its array module; other types are looked up once (see _module_of_type)."""

DEVICE_TYPES = set()
"""The device array types seen so far (CuPy's ndarray, a registered stand-in): the engine's
fast paths test `type(y) in DEVICE_TYPES` as they test `type(y) is np.ndarray`."""

_GPU = {"module": None}
"""The device array module once imported (CuPy), or a stand-in registered by tests."""


def _module_of_type(array_type):
    """The array module of `array_type` (NumPy for anything that is not a device array)."""
    module = _MODULES.get(array_type)
    if module is None:
        module = np
        if array_type.__module__.partition(".")[0] == "cupy":  # no import unless one shows up
            module = _cupy()
            DEVICE_TYPES.add(array_type)
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
        module = _MODULES.get(kind) or _module_of_type(kind)
        if module is not np:
            return module
        kind = type(getattr(a, "_data", None))      # (a Variable's data; asked of no device array)
        if kind is not np.ndarray:
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
    DEVICE_TYPES.add(array_type)
    _GPU["module"] = None
    _in_use(module)


_PENDING_SEED = []
"""The seed L.seed(n) gave before any GPU was in use, for the device generator when one comes."""


_SEGMENT_SEEDS = [np.random.default_rng()]
"""The host generator of the seeds V.checkpoint gives a block's own device generator."""


def segment_seed() -> int:
    """A seed for the device generator of one checkpointed block (drawn on the host: no sync)."""
    return int(_SEGMENT_SEEDS[0].integers(2 ** 32))


def seed_device(seed) -> None:
    """Seed the GPU's global random generator (dropout masks there): now when a GPU is in
    use, else as soon as one is (CuPy is never imported for this); and the seeds of
    checkpointed blocks' generators."""
    _SEGMENT_SEEDS[0] = np.random.default_rng(seed)
    _PENDING_SEED.clear()
    if _GPU["module"] is None:
        _PENDING_SEED.append(seed)
    else:
        _GPU["module"].random.seed(seed)


def _in_use(module):
    """`module` becomes the GPU: a seed given before takes effect on it."""
    _GPU["module"] = _GPU["module"] or module
    if _PENDING_SEED and _GPU["module"] is module:
        module.random.seed(_PENDING_SEED.pop())
    return module


def _cupy():
    return _in_use(importlib.import_module("cupy"))


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
    """`a` as a NumPy array: a device array is copied to the host, anything else is kept.

    Raises
    ------
    ValueError, IndexError
        If the copy holds a NaN and a check run on the device found bad data (a label out
        of range, see `device_check`): that error, rather than the NaN it left.
    """
    if type(a) is np.ndarray:
        return a
    module = _module_of_type(type(a))
    if module is np:
        return a
    host = module.asnumpy(a)
    if _CHECKS and host.dtype.kind in "fc" and np.isnan(host).any():   # (a host pass: no sync)
        raise_device_errors()
    return host


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


# ----- checks of the data, run on the device ---------------------------------------------------
_CHECKS = {}
"""Checks that ran on the device since the last read: (op, message) -> [found, first, error
class, array module], `found` a 0-d bool device array (some value was bad) and `first` a
0-d device array (the first bad value), each replaced by a new one per call (constant
memory, no sync)."""

_CHECKS_LOCK = threading.Lock()


def device_check(op: str, bad, values, message: str, error: type = ValueError):
    """Record a check of device data without waiting for it: `bad` (a boolean device array of
    `values`' shape) marks the bad entries, `message` says what is wrong with the first of them
    (`{value}` stands for it), e.g. "softmax_cross_entropy: label {value} is out of range for 10
    classes".

    Reading `bad` on the host would be a sync (the host waits for the device and stops running
    ahead of it), so nothing is read: the op poisons its own result with NaN where the
    returned flag is set (no wrong number can come out), and the error is raised at the next
    read that can see it, like PyTorch's device-side asserts: `Variable.item()`, `float()`,
    `int()`, `bool()` and formatting of a Variable, `Variable.to_cpu()` and `to_cpu` when the
    value read holds a NaN, and `synchronize()` always; the message then ends in "(checked on
    the device)".  The checks of one op and message accumulate (the first bad value is kept)
    until then.

    Returns
    -------
    The 0-d boolean device array bad.any(), for the op to poison its result with.
    """
    xp = get_array_module(bad)
    found = bad.any()
    if not bad.size:                                  # nothing to check
        return found
    first = values.ravel()[bad.ravel().argmax()]      # (argmax of a mask: its first True)
    key = (op, message)
    with _CHECKS_LOCK:
        entry = _CHECKS.get(key)
        if entry is None:
            _CHECKS[key] = [found, first, error, xp]
        else:
            entry[1] = xp.where(entry[0], entry[1], first)
            entry[0] = entry[0] | found
    return found


def raise_device_errors() -> None:
    """Read the flags of the checks run on the device since the last read (one sync) and raise
    the first error found, the CPU's message plus "(checked on the device)"; the checks are
    cleared either way (see `device_check`)."""
    with _CHECKS_LOCK:
        entries = list(_CHECKS.items())
        _CHECKS.clear()
    if not entries:
        return
    xp = entries[0][1][3]
    found = xp.asnumpy(xp.stack([entry[0] for _, entry in entries]))
    for ((_, message), (_, first, error, _)), bad in zip(entries, found):
        if bad:
            value = first.item()
            raise error(message.format(value=value) + " (checked on the device)")


def synchronize() -> None:
    """Wait until the GPU has finished the work queued so far, and raise what the checks run
    on the device found (a label out of range, see `device_check`).  Nothing to do on the CPU.

    Every read of device data on the host waits like this (`float(loss)`, `to_cpu`), so a
    training loop needs none of its own; call it to see an error at a known place, or before
    timing GPU work.

    Raises
    ------
    ValueError, IndexError
        The first error a check run on the device found since the last read, ending in
        "(checked on the device)".
    """
    module = _GPU["module"]
    if module is None:           # no GPU used: nothing queued, nothing checked
        return
    runtime = getattr(getattr(module, "cuda", None), "runtime", None)
    wait = getattr(runtime, "deviceSynchronize", None)
    if wait is not None:
        wait()
    raise_device_errors()


def maybe_any(mask) -> bool:
    """`mask.any()` for a NumPy array; True for a device array, whose reading would be a sync.

    For a branch that only skips work: the masked path it guards must give the same values
    when nothing is masked (`where(mask, 1, r)` is `r` then), so a device always takes it.
    """
    if type(mask) is not np.ndarray and is_device_array(mask):
        return True
    return bool(mask.any())


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
    "set_default_device", "default_device", "constant_like", "device_check", "synchronize",
    "raise_device_errors", "maybe_any",
]
