"""Saving and loading a layer's weights as an .npz archive keyed by parameter path.

Keys are the attribute paths of `Layer.named_params()` and `Layer.named_buffers()`,
e.g. 'l1/W', 'bn/avg_mean'.  Saving writes a temporary file beside the target and
renames it over the target only once it is complete, so an interrupted save leaves the
previous file as it was.  Loading reads and checks the whole archive (keys, shapes,
dtypes) before it changes anything, so a failed load leaves the model untouched.
Arrays are stored without pickling and loaded with `allow_pickle=False`.
"""

import contextlib
import os
import secrets
import zipfile

import numpy as np


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
                np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)


def save_weights(layer, path) -> None:
    """Write every parameter and buffer of `layer` to the .npz file `path` (used as given).

    Parameters
    ----------
    layer : Layer
    path : str or os.PathLike
        Written exactly at this path (no '.npz' is appended).

    Raises
    ------
    ValueError
        If a buffer is not initialised yet (call the model once first).
    OSError
        If the directory cannot be written; any previous file at `path` is kept.
    """
    path = os.fspath(path)
    arrays = _model_arrays(layer, "save_weights")
    directory = os.path.dirname(os.path.abspath(path))
    temporary = os.path.join(
        directory, f".{os.path.basename(path)}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    )
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
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


def _read_archive(path):
    """{key: ndarray} of the whole archive at `path`, or a ValueError saying what is wrong."""
    if zipfile.is_zipfile(path):
        try:  # np.load does not verify checksums: read every member once to catch corruption
            with zipfile.ZipFile(path) as archive:
                bad = archive.testzip()
        except Exception as error:
            raise ValueError(
                f"load_weights: {path!r} is not a valid .npz weights archive "
                f"({type(error).__name__}: {error})"
            ) from None
        if bad is not None:
            raise ValueError(
                f"load_weights: entry {bad.removesuffix('.npy')!r} of {path!r} cannot be read "
                f"(its checksum does not match: the file is corrupted)"
            )
    try:
        loaded = np.load(path, allow_pickle=False)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except Exception as error:  # bad magic, truncated zip, pickled data, ...
        raise ValueError(
            f"load_weights: {path!r} is not a valid .npz weights archive "
            f"({type(error).__name__}: {error})"
        ) from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        raise ValueError(
            f"load_weights: {path!r} holds a single array, not an .npz archive of named weights "
            f"(write it with save_weights)"
        )
    arrays = {}
    with loaded:
        for key in loaded.files:
            try:
                value = loaded[key]
            except Exception as error:  # corrupt member, object array, bad CRC, ...
                raise ValueError(
                    f"load_weights: entry {key!r} of {path!r} cannot be read "
                    f"({type(error).__name__}: {error})"
                ) from None
            if not isinstance(value, np.ndarray):  # np.load gives the raw bytes of a non-.npy member
                raise ValueError(
                    f"load_weights: entry {key!r} of {path!r} cannot be read as an array: it is "
                    f"not a .npy member (write weights with save_weights)"
                )
            arrays[key] = value
    return arrays


def _describe(keys):
    return ", ".join(repr(k) for k in sorted(keys))


def load_weights(layer, path) -> None:
    """Replace the weights of `layer` by those in the .npz file `path`, all or nothing.

    Every key, shape and dtype is checked before any weight changes: on any error the
    layer is left exactly as it was.

    Parameters
    ----------
    layer : Layer
    path : str or os.PathLike

    Raises
    ------
    ValueError
        If the file is not a valid .npz archive, a parameter is missing from it, it holds
        a key the model does not have, or a shape or dtype differs (the message names
        the parameter).
    FileNotFoundError
        If there is no file at `path`.
    """
    path = os.fspath(path)
    expected = _model_arrays(layer, "load_weights")
    arrays = _read_archive(path)
    missing = expected.keys() - arrays.keys()
    extra = arrays.keys() - expected.keys()
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing from the file: {_describe(missing)}")
        if extra:
            parts.append(
                f"in the file but not in the model: {_describe(extra)} (a layer that creates its "
                f"parameters on the first call has none until the model has run once)"
            )
        raise ValueError(f"load_weights: {path!r} does not match the model; " + "; ".join(parts))
    for key, current in expected.items():
        new = arrays[key]
        if new.shape != current.shape or new.dtype != current.dtype:
            raise ValueError(
                f"load_weights: parameter {key!r} is {current.shape} {current.dtype} in the model "
                f"but {new.shape} {new.dtype} in {path!r}"
            )
    # everything checked: now change the model (nothing below can fail)
    params = dict(layer.named_params())
    for key, new in arrays.items():
        if not new.flags.writeable:
            new = new.copy()
        if key in params:
            params[key].data = new
        else:
            owner = layer
            *parents, name = key.split("/")
            for part in parents:
                owner = getattr(owner, part)
            object.__setattr__(owner, name, new)
