"""Weights and training checkpoints on disk, as .npz archives keyed by parameter path.

Weight files (`save_weights`) hold one array per key, the attribute paths of
`Layer.named_params()` and `Layer.named_buffers()`, e.g. 'l1/W', 'bn/avg_mean'.
Checkpoints (`save_checkpoint`) hold the same arrays under 'model/' and the optimizer's
state under 'optimizer/' (see `Optimizer.state_dict`).

As with `np.savez`, '.npz' is appended to a file name that does not end with it, and
loading follows the same rule: `save_weights(model, "m")` writes 'm.npz', which
`load_weights(model, "m")` reads.  Saving writes a temporary file beside the target and
renames it over the target only once it is complete, so an interrupted save leaves the
previous file as it was.  Loading reads and checks the whole archive (keys, shapes,
dtypes) before it changes anything, so a failed load leaves the model (and the optimizer)
untouched.  A layer that sizes itself on its first call and has not run yet is built
from the file's shapes and dtypes (see `Layer._lazy_shapes`), so a freshly built model
loads without a dummy forward pass.  Arrays are stored without pickling and loaded with `allow_pickle=False`.

Files hold NumPy arrays whatever the device: saving a model on the GPU copies its arrays
to the host, and loading puts each array on the device of the parameter (or buffer) it
fills, so a file saved from a GPU loads into a CPU model and the other way round.
"""

import contextlib
import io
import os
import secrets
import zipfile

import numpy as np

from variable import backend

from .parameter import Parameter


def _model_arrays(layer, where):
    """{path: current ndarray} of every parameter and buffer of `layer`."""
    arrays = {}
    for path, param in layer.named_params():
        arrays[path] = param.data
    for path, buffer in layer.named_buffers():
        if buffer is None:
            raise ValueError(
                f"{where}: buffer {path!r} is not initialised yet (its layer creates it on the "
                f"first call); run the model once on an input first"
            )
        arrays[path] = buffer
    return arrays


def _write_archive(handle, arrays):
    """Write `arrays` as an uncompressed .npz (a zip of .npy members) to an open file."""
    with zipfile.ZipFile(handle, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for key, array in arrays.items():
            with archive.open(key + ".npy", mode="w", force_zip64=True) as member:
                np.lib.format.write_array(member, backend.to_cpu(array), allow_pickle=False)


def npz_path(path, where: str = "npz_path") -> str:
    """`path` as a str, with '.npz' appended unless it ends with it (np.savez's rule).

    Raises
    ------
    TypeError
        If `path` is not a str, bytes or os.PathLike (naming `where`; a layer or optimizer
        in its place is PyTorch's torch.save(obj, path) order).
    """
    try:
        path = os.fsdecode(path)
    except TypeError:
        order = ""
        if hasattr(path, "named_params") or hasattr(path, "state_dict"):
            order = (f" (the path comes first: {where}(path, model, optimizer))" if "checkpoint" in where
                     else f" (write model.{where}(path) or L.{where}(model, path))")
        kind = type(path).__name__
        raise TypeError(f"{where}: path must be a str or os.PathLike, got {kind}{order}") from None
    return path if path.endswith(".npz") else path + ".npz"


def _check_target(path, where):
    """Refuse, naming it, a directory to write into that is missing, or a target that is a directory."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise IsADirectoryError(f"{where}: cannot write {path!r}: it is a directory")
    if os.path.isdir(directory):
        return
    if os.path.exists(directory):
        raise NotADirectoryError(f"{where}: cannot write {path!r}: {directory!r} is a file, not a directory")
    missing = directory                    # the outermost directory that is missing
    while not os.path.exists(os.path.dirname(missing)) and os.path.dirname(missing) != missing:
        missing = os.path.dirname(missing)
    raise FileNotFoundError(
        f"{where}: cannot write {path!r}: the directory {directory!r} does not exist"
        + (f" ({missing!r} is missing)" if missing != directory else "")
        + f"; create it first: os.makedirs({os.path.dirname(path)!r}, exist_ok=True)"
    )


def _save_atomically(path, arrays, where):
    """Write `arrays` to `path` through a temporary file renamed over it once complete."""
    _check_target(path, where)
    directory = os.path.dirname(os.path.abspath(path))
    temporary = os.path.join(
        directory, f".{os.path.basename(path)}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    )
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:               # name the target, not the hidden temporary file
        raise type(error)(f"{where}: cannot write {path!r} in {directory!r}: {error.strerror}") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            _write_archive(handle, arrays)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable (POSIX)
        with contextlib.suppress(OSError):
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def save_weights(layer, path) -> None:
    """Write every parameter and buffer of `layer` to the .npz file `path`.

    Parameters
    ----------
    layer : Layer
    path : str or os.PathLike
        '.npz' is appended unless the name ends with it, as `np.savez` does (and as
        `load_weights` does): `save_weights(model, "m")` writes 'm.npz'.

    Raises
    ------
    TypeError
        If `path` is not a str or os.PathLike.
    ValueError
        If a buffer is not initialised yet (call the model once first).
    FileNotFoundError
        If the directory to write into does not exist (the message names it).
    OSError
        If the directory cannot be written; any previous file at `path` is kept.
    """
    path = npz_path(path, "save_weights")
    _save_atomically(path, _model_arrays(layer, "save_weights"), "save_weights")


def _read_archive(path, where="load_weights", kind="weights archive"):
    """{key: ndarray} of the whole archive at `path`, or a ValueError saying what is wrong."""
    if not os.path.exists(path):
        given = path[:-4]                  # the name without the '.npz' that npz_path added
        hint = ""
        if os.path.isfile(given):
            hint = (f"; {given!r} exists without the suffix: '.npz' is appended to a name that does "
                    f"not end with it, as np.savez does, so rename it to {path!r}")
        raise FileNotFoundError(f"{where}: no such file: {path!r}{hint}")
    if not (zipfile.is_zipfile(path) and _starts_as_a_zip(path)):
        _refuse_what_is_not_a_zip(path, where, kind)
    return _zip_arrays(path, where, kind)


def _starts_as_a_zip(path):
    """Whether the file begins as np.load reads a zip (a local header, or an empty archive's end)."""
    with open(path, "rb") as file:
        return file.read(4) in (b"PK\x03\x04", b"PK\x05\x06")


def _zip_arrays(path, where, kind):
    """{key: ndarray} of the .npz archive at `path`, named as np.load names them ('W.npy' is 'W'):
    every member read once with its checksum verified (np.load verifies none), then each parsed
    as a .npy in turn; a ValueError saying what is wrong."""
    members = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                name = info.filename
                try:
                    members[name] = archive.read(info)
                except zipfile.BadZipFile:  # a checksum or a member's header that does not match
                    raise ValueError(
                        f"{where}: entry {name.removesuffix('.npy')!r} of {path!r} cannot be read "
                        f"(its checksum does not match: the file is corrupted)"
                    ) from None
    except ValueError:
        raise
    except Exception as error:
        raise ValueError(
            f"{where}: {path!r} is not a valid .npz {kind} ({type(error).__name__}: {error})"
        ) from None
    arrays = {}
    for name, data in members.items():
        key = name.removesuffix(".npy")
        if not data.startswith(np.lib.format.MAGIC_PREFIX):  # (np.load gives such a member's bytes)
            raise ValueError(
                f"{where}: entry {key!r} of {path!r} cannot be read as an array: it is "
                f"not a .npy member (write it with save_weights or save_checkpoint)"
            )
        try:
            value = np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
        except Exception as error:  # a bad header, an object array, too few bytes, ...
            raise ValueError(
                f"{where}: entry {key!r} of {path!r} cannot be read ({type(error).__name__}: {error})"
            ) from None
        arrays[key] = value if value.flags.writeable else value.copy()
    return arrays


def _refuse_what_is_not_a_zip(path, where, kind):
    """Raise for a file that zipfile does not open as an archive: np.load's refusal (a pickle,
    anything else) or, for a .npy, that it holds a single array.  (np.load opens a zip only
    where zipfile does.)"""
    try:
        loaded = np.load(path, allow_pickle=False)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except Exception as error:  # bad magic, truncated zip, pickled data, ...
        raise ValueError(
            f"{where}: {path!r} is not a valid .npz {kind} ({type(error).__name__}: {error})"
        ) from None
    if isinstance(loaded, np.lib.npyio.NpzFile):  # (not met: see above)
        loaded.close()
        raise ValueError(f"{where}: {path!r} is not a valid .npz {kind} (zipfile cannot open it)")
    raise ValueError(
        f"{where}: {path!r} holds a single array, not an .npz archive of named arrays "
        f"(write it with {'save_weights' if kind == 'weights archive' else 'save_checkpoint'})"
    )


def _describe(keys):
    return ", ".join(repr(k) for k in sorted(keys))


def _shape_text(shape, size_name):
    """A shape with its unknown size written as that size's name: (in_size, 10)."""
    items = [size_name if n is None else str(n) for n in shape]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


class _Entry:
    """One array the model will hold after loading: where it goes and what it must look like."""

    __slots__ = ("layer", "name", "current", "open_dtype")

    def __init__(self, layer, name, current, open_dtype):
        self.layer = layer            # the layer owning the attribute
        self.name = name              # the attribute name
        self.current = current        # the Parameter, the buffer's ndarray, or None when to be created
        self.open_dtype = open_dtype  # takes the file's float dtype, shared by its layer's open arrays


def _plan_model(layer, arrays, path, where):
    """Check `arrays` against `layer`; return (apply, {param path: (shape, dtype)}).

    Nothing changes until `apply()` is called, and `apply()` cannot fail.  Each layer
    still waiting for its first call (`_lazy_shapes`) takes its size from the file and
    must hold the shapes its configuration allows; each layer whose dtype is still open
    (`dtype=None`, never called) takes the file's floating dtype; every other array must
    match the model's shape and dtype exactly.
    """
    entries = {}      # file key -> _Entry
    lazy = []         # (prefix, layer, size name, {attribute: shape with None for the size})
    seen_params = set()
    for prefix, sub in layer._named_layers():
        plan = sub._lazy_shapes()
        open_dtype = plan is not None or getattr(sub, "_dtype", np.float64) is None
        if plan is not None:
            lazy.append((prefix, sub, *plan))
            for name in plan[1]:
                entries[prefix + name] = _Entry(sub, name, None, True)
        d = sub.__dict__
        for name in sub._children:
            value = d[name]
            if isinstance(value, Parameter) and id(value) not in seen_params:
                seen_params.add(id(value))
                entries[prefix + name] = _Entry(sub, name, value, open_dtype)
        for name in sub._buffers:
            if plan is not None and name in plan[1]:
                continue
            buffer = d.get(name)
            if buffer is None:
                raise ValueError(
                    f"{where}: buffer {prefix + name!r} is not initialised yet and its layer "
                    f"({type(sub).__name__}) cannot build it from a file; run the model once first"
                )
            entries[prefix + name] = _Entry(sub, name, buffer, open_dtype and buffer.dtype.kind == "f")

    missing = entries.keys() - arrays.keys()
    extra = arrays.keys() - entries.keys()
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing from the file: {_describe(missing)}")
        if extra:
            parts.append(f"in the file but not in the model: {_describe(extra)}{_extra_hint(layer, extra)}")
        raise ValueError(f"{where}: {path!r} does not match the model; " + "; ".join(parts))

    sizes = {}
    for prefix, sub, size_name, shapes in lazy:
        size, source = None, None
        for name, shape in shapes.items():
            key, new = prefix + name, arrays[prefix + name]
            if size is None and None in shape and new.ndim == len(shape):
                size, source = new.shape[shape.index(None)], key
                if size == 0:
                    raise ValueError(
                        f"{where}: parameter {key!r} is {new.shape} {new.dtype} in {path!r}, which "
                        f"gives {type(sub).__name__} {size_name}=0; it needs at least 1"
                    )
            wanted = tuple(size if n is None else n for n in shape)
            if new.shape != wanted:
                needed = _shape_text(shape, size_name)
                if source not in (None, key):
                    needed = f"{wanted} ({size_name}={size}, as {source!r} in the file says)"
                raise ValueError(
                    f"{where}: parameter {key!r} is {new.shape} {new.dtype} in {path!r}, but the "
                    f"model's {type(sub).__name__} (not run yet) needs shape {needed}"
                )
        sizes[id(sub)] = size

    dtypes = {}       # id(layer) -> (the dtype its open arrays take, the key that fixed it)
    for key, entry in entries.items():
        new = arrays[key]
        current = entry.current
        if isinstance(current, Parameter):
            current = current.data
        if current is not None and new.shape != current.shape:
            raise ValueError(
                f"{where}: parameter {key!r} is {current.shape} {current.dtype} in the model "
                f"but {new.shape} {new.dtype} in {path!r}"
            )
        if not entry.open_dtype:
            if new.dtype != current.dtype:
                raise ValueError(
                    f"{where}: parameter {key!r} is {current.shape} {current.dtype} in the model "
                    f"but {new.shape} {new.dtype} in {path!r}"
                )
            continue
        fixed = entry.layer._dtype
        if fixed is not None and new.dtype != fixed:
            raise ValueError(
                f"{where}: parameter {key!r} is {new.dtype} in {path!r}, but the model's "
                f"{type(entry.layer).__name__} was built with dtype={fixed}"
            )
        if new.dtype.kind != "f":
            raise ValueError(
                f"{where}: parameter {key!r} is {new.shape} {new.dtype} in {path!r}; "
                f"parameters must be floating point"
            )
        dtype, first = dtypes.setdefault(id(entry.layer), (new.dtype, key))
        if new.dtype != dtype:
            raise ValueError(
                f"{where}: parameter {key!r} is {new.dtype} in {path!r} but {first!r} of the same "
                f"layer is {dtype}; a layer's parameters share one dtype"
            )

    specs = {key: (arrays[key].shape, arrays[key].dtype) for key, entry in entries.items()
             if entry.name not in entry.layer._buffers}

    # each array on the device of what it fills (copied to a GPU before anything changes);
    # a layer not built yet: its to_gpu/to_cpu choice, else where new Parameters go
    placed = {}
    for key, entry in entries.items():
        current = entry.current
        if isinstance(current, Parameter):
            current = current.data
        device = (entry.layer.__dict__.get("_device") if current is None
                  else backend.device_of(current))
        placed[key] = backend.to_device(arrays[key], device or "cpu", where)

    def apply():
        """Change the model (everything has been checked: nothing here can fail)."""
        for prefix, sub, size_name, shapes in lazy:
            sub._build_from(size_name, sizes[id(sub)], {name: placed[prefix + name] for name in shapes})
        for key, entry in entries.items():
            if entry.current is None:
                continue
            new = placed[key]
            if isinstance(entry.current, Parameter):
                entry.current.data = new
            else:
                object.__setattr__(entry.layer, entry.name, new)
            if entry.open_dtype:              # a dtype left open is now the file's
                entry.layer._dtype = new.dtype

    return apply, specs


def _extra_hint(layer, extra):
    """Why file keys have no place in the model, when something can be said."""
    if "optimizer/class" in extra and all(k.startswith(("model/", "optimizer/")) for k in extra):
        return " (the file is a checkpoint written by save_checkpoint: read it with load_checkpoint)"
    owners = {prefix: sub for prefix, sub in layer._named_layers()
              if not any(isinstance(sub.__dict__[n], Parameter) for n in sub._children)}
    custom = sorted({k.rsplit("/", 1)[0] + "/" if "/" in k else "" for k in extra} & owners.keys())
    if custom:   # keys of a layer that has no parameters yet: perhaps a custom lazy one
        names = ", ".join(type(owners[p]).__name__ + (f" at {p[:-1]!r}" if p else "") for p in custom)
        return (f" (no such parameter in {names}; a custom layer that creates its parameters on "
                f"its first call has none before it runs, unless it defines _lazy_shapes)")
    return " (no layer of the model has that name)"


def load_weights(layer, path) -> None:
    """Replace the weights of `layer` by those in the .npz file `path`, all or nothing.

    Every key, shape and dtype is checked before any weight changes: on any error the
    layer is left exactly as it was.  Layers that size themselves on their first call and
    have not run yet (`Linear(10)`, `LayerNorm()`, `BatchNorm()`, `Conv2d` without
    in_channels) are built from the file's shapes and dtypes, so a fresh model loads
    without a dummy forward pass and then computes what the saved model computed.  A layer
    whose dtype was left open (`dtype=None`, never called) takes the file's dtype.

    Parameters
    ----------
    layer : Layer
    path : str or os.PathLike
        '.npz' is appended unless the name ends with it, as `save_weights` does.

    Raises
    ------
    TypeError
        If `path` is not a str or os.PathLike.
    ValueError
        If the file is not a valid .npz archive, a parameter is missing from it, it holds
        a key the model does not have, or a shape or dtype differs from what the model has
        or (for a layer not run yet) can hold; the message names the parameter.
    FileNotFoundError
        If there is no file at `path`.
    """
    path = npz_path(path, "load_weights")
    arrays = _read_archive(path)
    apply, _ = _plan_model(layer, arrays, path, "load_weights")
    apply()


def _check_pair(model, optimizer, where):
    for name, value, method, kind in (("model", model, "named_params", "a Layer"),
                                      ("optimizer", optimizer, "state_dict", "an Optimizer")):
        if isinstance(value, type):
            raise TypeError(
                f"{where}: {name} must be {kind} instance, got the class {value.__name__}; "
                f"build one first, e.g. {value.__name__}(...)"
            )
        if not callable(getattr(value, method, None)):
            raise TypeError(f"{where}: {name} must be {kind}, got {type(value).__name__}")
    if optimizer.target is not model:
        raise ValueError(
            f"{where}: the {type(optimizer).__name__} is "
            f"{'not set up' if optimizer.target is None else 'set up on another model'}; "
            f"call optimizer.setup(model) with this model first"
        )


def save_checkpoint(path, model, optimizer) -> None:
    """Write the model's weights and the optimizer's state to the .npz file `path`, atomically.

    The file holds every parameter and buffer under 'model/<path>', and under
    'optimizer/' the optimizer's class name, its hyperparameters and its per-parameter
    state (moments, step counts, velocities; see `Optimizer.state_dict`), so that
    `load_checkpoint` into a fresh model and optimizer continues training bit for bit.
    Optimizer hooks, random generators and recurrent layers' hidden states are not saved.
    As with `save_weights`, '.npz' is appended unless the name ends with it, and the file
    replaces any previous file only once complete.

    Parameters
    ----------
    path : str or os.PathLike
        '.npz' is appended unless the name ends with it.
    model : Layer
    optimizer : Optimizer
        Set up on `model` (`optimizer.setup(model)`).

    Raises
    ------
    TypeError
        If `path` is not a str or os.PathLike, `model` is not a Layer or `optimizer` not
        an Optimizer.
    ValueError
        If the optimizer is not set up on `model`, or a buffer is not initialised yet.
    FileNotFoundError
        If the directory to write into does not exist (the message names it).
    OSError
        If the directory cannot be written; any previous file at `path` is kept.
    """
    path = npz_path(path, "save_checkpoint")
    _check_pair(model, optimizer, "save_checkpoint")
    arrays = {"model/" + k: v for k, v in _model_arrays(model, "save_checkpoint").items()}
    arrays.update({"optimizer/" + k: v for k, v in optimizer.state_dict().items()})
    _save_atomically(path, arrays, "save_checkpoint")


def load_checkpoint(path, model, optimizer) -> None:
    """Restore the model's weights and the optimizer's state from `path`, all or nothing.

    The whole file is checked first: the weights as by `load_weights` (a lazily sized
    model is built from the file, without a dummy forward), then the optimizer's class,
    hyperparameters and the name, shape and dtype of every state array.  On any error
    neither the model nor the optimizer changes.  Hooks are not state: add them to the
    fresh optimizer as before.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by `save_checkpoint`; '.npz' is appended unless the name ends with it.
    model : Layer
    optimizer : Optimizer
        Of the class that was saved, with the same hyperparameters, set up on `model`.

    Raises
    ------
    TypeError
        If `path` is not a str or os.PathLike, `model` is not a Layer or `optimizer` not
        an Optimizer.
    ValueError
        If the optimizer is not set up on `model`, the file is not a valid checkpoint, or
        its weights or optimizer state do not fit (the message names what differs).
    FileNotFoundError
        If there is no file at `path`.
    """
    where = "load_checkpoint"
    path = npz_path(path, where)
    _check_pair(model, optimizer, where)
    arrays = _read_archive(path, where, "checkpoint")
    weights = {k[len("model/"):]: v for k, v in arrays.items() if k.startswith("model/")}
    state = {k[len("optimizer/"):]: v for k, v in arrays.items() if k.startswith("optimizer/")}
    other = arrays.keys() - {"model/" + k for k in weights} - {"optimizer/" + k for k in state}
    if not state:
        raise ValueError(
            f"{where}: {path!r} holds no optimizer state, so it is not a checkpoint"
            f"{' (it looks like a weights file: read it with load_weights)' if other else ''}"
        )
    if other:
        raise ValueError(
            f"{where}: {path!r} holds keys outside 'model/' and 'optimizer/': {_describe(other)}"
        )
    apply_weights, specs = _plan_model(model, weights, path, where)
    apply_state = optimizer._plan_state(state, specs, where)
    apply_weights()
    apply_state()
