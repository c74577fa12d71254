"""Minibatches for training: DataLoader (shuffled examples) and SeqDataLoader (time series).

Both take one or more arrays whose first axis indexes the examples, cut them with the
same indices, and walk through the data once per `for` loop (one epoch):

    loader = L.DataLoader(x, t, batch_size=32)
    for epoch in range(10):
        for xb, tb in loader:          # a new order every epoch
            ...

With one array each batch is an array, with several a tuple of arrays.  `loader.to_gpu()`
moves the data to the GPU once (as DeZero's loaders), so the batches come out as CuPy
arrays; `to_cpu()` brings it back.
"""

import inspect

import numpy as np

from variable import backend

from .initializers import generator


def _positive_int(value, name, where):
    """`value` as an int, refused with a TypeError/ValueError naming `where` unless a positive int."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: {name} must be an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{where}: {name} must be a positive int, got {value!r}")
    return int(value)


def _flag(value, name, where):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} must be True or False, got {type(value).__name__}")
    return bool(value)


def _data_arrays(arrays, where):
    """The arrays as ndarrays with a first axis of one common length."""
    if not arrays:
        raise ValueError(f"{where}: give at least one array")
    if len(arrays) == 1 and type(arrays[0]) is tuple and arrays[0] and all(  # DeZero's DataLoader(dataset)
            isinstance(a, np.ndarray) or backend.is_device_array(a) for a in arrays[0]):
        shapes = ", ".join(str(a.shape) for a in arrays[0])
        raise TypeError(
            f"{where}: its one argument is a tuple of {len(arrays[0])} arrays (shapes {shapes}), "
            f"as L.datasets.spiral() returns (x, t); give the arrays as separate arguments: "
            f"x, t = L.datasets.spiral(), then L.{where}(x, t, batch_size=...) (or "
            f"L.{where}(*data, batch_size=...)); for examples held in a tuple, np.stack them first"
        )
    for i, a in enumerate(arrays[1:], start=1):
        if isinstance(a, (int, float, np.number, np.bool_)):   # DeZero's DataLoader(data, 30)
            data = ", ".join(("x", "t")[:i] if i <= 2 else (f"a{k}" for k in range(i)))
            fix = f"L.{where}({data}, batch_size={a!r})" if isinstance(a, (int, np.integer)) else \
                f"L.{where}({data}, batch_size=...)"
            raise TypeError(
                f"{where}: argument {i + 1} is the number {a!r}, not an array of examples: batch_size "
                f"and the other settings are keyword-only; write {fix}"
            )
    arrays = tuple(a if backend.is_device_array(a) else np.asarray(a) for a in arrays)
    if any(a.ndim == 0 for a in arrays):
        raise ValueError(f"{where}: arrays must have a first axis indexing the examples, got a 0-d array")
    lengths = [len(a) for a in arrays]
    if len(set(lengths)) != 1:
        raise ValueError(f"{where}: arrays must have the same length, got lengths {lengths}")
    return arrays


_TORCH_LOADER_KEYWORDS = {
    "num_workers": "batches are slices of the arrays, taken in this process: drop num_workers",
    "pin_memory": "batches are slices of the arrays: drop pin_memory, and for a GPU move the "
                  "data once with loader.to_gpu()",
    "collate_fn": "batches are slices of the arrays given, one per array: build the arrays first "
                  "(np.stack of the examples)",
    "sampler": "shuffle=True draws a new order each epoch (seed=... fixes it), shuffle=False keeps "
               "the arrays' order: drop sampler",
    "generator": "write seed=... (an int or a numpy.random.Generator)",
    "persistent_workers": "batches are taken in this process: drop persistent_workers",
}
"""torch.utils.data.DataLoader's keywords that gengrad's loaders do not take, with the fix."""


class _Loader:
    """What both loaders share: the arrays, and moving them between host and GPU."""

    arrays: tuple

    def __new__(cls, *arrays, **kwargs):
        """Refuse torch.utils.data.DataLoader's keywords (`num_workers=4`), naming the fix."""
        for key in kwargs:
            if key in _TORCH_LOADER_KEYWORDS:
                fix = _TORCH_LOADER_KEYWORDS[key]
                if key in ("sampler", "generator") and "seed" not in inspect.signature(cls).parameters:
                    fix = f"{cls.__name__} keeps the order of the sequence: drop {key}"
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {key!r}: "
                                f"{key} is torch.utils.data.DataLoader's keyword; {fix}")
        return super().__new__(cls)

    def to_gpu(self):
        """Move the data to the GPU, so that batches are GPU arrays; returns the loader.

        Raises
        ------
        ModuleNotFoundError
            If CuPy is not installed.
        RuntimeError
            If CuPy finds no GPU.
        """
        op = f"{type(self).__name__}.to_gpu"
        self.arrays = tuple(backend.to_gpu(a, op) for a in self.arrays)
        return self

    def to_cpu(self):
        """Move the data to the host, so that batches are NumPy arrays; returns the loader."""
        self.arrays = tuple(backend.to_cpu(a) for a in self.arrays)
        return self

    @property
    def device(self) -> str:
        """'gpu' when the data is on the GPU (after `to_gpu()`), 'cpu' otherwise."""
        return backend.device_of(self.arrays[0])


class DataLoader(_Loader):
    """Minibatches of one or more equally long arrays, reshuffled every epoch.

    `for batch in loader` walks through the data once (one epoch); every new `for`
    loop is a new epoch with a new order.  With one array each batch is an array, with
    several it is a tuple of arrays cut with the same indices.  An epoch has
    `len(loader)` batches: ceil(size / batch_size), or floor with `drop_last=True`.

    Parameters
    ----------
    *arrays : ndarray
        Data; the first axis indexes examples and must have the same length in all.
    batch_size : int
        Examples per batch (the last batch of an epoch may be smaller).
    shuffle : bool
        Draw a new random order every epoch (otherwise keep the given order).
    drop_last : bool
        Leave out a last batch smaller than `batch_size`.
    seed : int, numpy.random.Generator or None
        Source of the shuffling order.  None: the generator that `L.seed` resets, looked
        up at the start of every epoch, so `L.seed(n)` makes the order reproducible.

    Raises
    ------
    TypeError
        If batch_size is not an int, shuffle or drop_last not a bool, or seed neither an
        int, a Generator nor None.
    ValueError
        If no array is given, an array is 0-d, the arrays differ in length, or
        batch_size is not positive.
    """

    def __init__(self, *arrays, batch_size: int = 32, shuffle: bool = True, drop_last: bool = False,
                 seed: int | np.random.Generator | None = None):
        self.arrays = _data_arrays(arrays, "DataLoader")
        self.batch_size = _positive_int(batch_size, "batch_size", "DataLoader")
        self.shuffle = _flag(shuffle, "shuffle", "DataLoader")
        self.drop_last = _flag(drop_last, "drop_last", "DataLoader")
        if seed is None or isinstance(seed, np.random.Generator):
            self.rng = seed
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
            self.rng = np.random.default_rng(seed)
        else:
            raise TypeError(
                f"DataLoader: seed must be an int, a numpy.random.Generator or None, "
                f"got {type(seed).__name__}"
            )
        self.epoch = 0  # completed epochs

    @property
    def size(self) -> int:
        """Number of examples."""
        return len(self.arrays[0])

    def __len__(self) -> int:
        """Number of batches per epoch."""
        full, rest = divmod(self.size, self.batch_size)
        return full + (1 if rest and not self.drop_last else 0)

    def __iter__(self):
        """One epoch of batches; `epoch` counts up when it has been walked to the end."""
        if self.shuffle:
            order = (generator() if self.rng is None else self.rng).permutation(self.size)
        else:
            order = np.arange(self.size)
        order = backend.get_array_module(self.arrays[0]).asarray(order)  # GPU data: a GPU index
        for i in range(len(self)):
            index = order[i * self.batch_size:(i + 1) * self.batch_size]
            batch = tuple(a[index] for a in self.arrays)
            yield batch[0] if len(batch) == 1 else batch
        self.epoch += 1


class SeqDataLoader(_Loader):
    """Batches of parallel contiguous streams through a time series, for truncated BPTT.

    The series (length n) is read as `batch_size` streams side by side.  Stream k starts
    at offset k * (n // batch_size), and batch i holds, for every stream k, the element
    at offset_k + i.  So row k of consecutive batches walks through one contiguous piece
    of the series, and a recurrent net that keeps its state from batch to batch sees an
    unbroken sequence in every row.  For n = 10 and batch_size = 3 the streams start at
    0, 3 and 6, and the batches are the elements [0, 3, 6], [1, 4, 7], [2, 5, 8].

    An epoch has n // batch_size batches, which read each stream to its end; the last
    n % batch_size elements (9 above) are in no stream and never appear.  The order is
    the same every epoch (no shuffling: that would break the streams), and the next
    `for` loop starts again at offsets 0, n // batch_size, ...  Each batch has shape
    (batch_size, *array.shape[1:]); with several arrays (inputs and targets) it is a
    tuple cut with the same indices.

    Parameters
    ----------
    *arrays : ndarray
        Series of equal length; the first axis is time.
    batch_size : int
        Number of streams, at most the length of the series.

    Raises
    ------
    TypeError
        If batch_size is not an int.
    ValueError
        If no array is given, an array is 0-d, the arrays differ in length, or
        batch_size is not positive or exceeds the length of the series.
    """

    def __init__(self, *arrays, batch_size: int):
        self.arrays = _data_arrays(arrays, "SeqDataLoader")
        self.batch_size = _positive_int(batch_size, "batch_size", "SeqDataLoader")
        if self.batch_size > self.size:
            raise ValueError(
                f"SeqDataLoader: batch_size {self.batch_size} exceeds the length {self.size} of the "
                f"series, so a stream would have no element; use at most {self.size} streams"
            )
        self.epoch = 0  # completed epochs

    @property
    def size(self) -> int:
        """Length of the series."""
        return len(self.arrays[0])

    @property
    def offsets(self) -> np.ndarray:
        """Where each stream starts: k * (size // batch_size) for k = 0 .. batch_size - 1."""
        return np.arange(self.batch_size) * (self.size // self.batch_size)

    def __len__(self) -> int:
        """Number of batches per epoch: the length of each stream, size // batch_size."""
        return self.size // self.batch_size

    def __iter__(self):
        """One epoch: batch i holds element offset_k + i of every stream k."""
        offsets = backend.get_array_module(self.arrays[0]).asarray(self.offsets)
        for i in range(len(self)):
            batch = tuple(a[offsets + i] for a in self.arrays)
            yield batch[0] if len(batch) == 1 else batch
        self.epoch += 1
