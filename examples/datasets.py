"""Small data sets for training examples and tests, and a minibatch DataLoader.

spiral: K interleaved spiral arms in the plane, one class per arm.  Point i of arm j
lies at radius r = i / n and angle 4 r + 2 pi j / K (plus Gaussian noise on the angle),
so no straight line separates the arms: a classic test that a network learns a
non-linear boundary.

sine_curve: samples y_k = sin(2 pi k / period) + noise, arranged for one-step-ahead
prediction (input y_k, target y_{k+1}), the usual first exercise for a recurrent net.

DataLoader: shuffles (with its own seeded generator), cuts into minibatches and walks
through the data once per `for` loop, i.e. once per epoch.
"""

import numpy as np


def _check_positive(value, name, where):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{where}: {name} must be a positive int, got {value!r}")
    return int(value)


def spiral(n_per_class: int = 100, n_classes: int = 3, noise: float = 0.2, seed: int | None = 0,
           dtype=np.float64):
    """Points on `n_classes` spiral arms and their arm index.

    Parameters
    ----------
    n_per_class : int
        Points per arm.
    n_classes : int
        Number of arms (classes).
    noise : float
        Standard deviation of the Gaussian noise added to each point's angle.
    seed : int or None
        Seed of the noise (None: fresh entropy).
    dtype : dtype
        dtype of the coordinates.

    Returns
    -------
    x : ndarray, shape (n_per_class * n_classes, 2)
        Coordinates, arm after arm.
    t : ndarray of int64, shape (n_per_class * n_classes,)
        Class labels 0 .. n_classes - 1.
    """
    n = _check_positive(n_per_class, "n_per_class", "spiral")
    k = _check_positive(n_classes, "n_classes", "spiral")
    rng = np.random.default_rng(seed)
    radius = np.tile(np.arange(n) / n, k)
    t = np.repeat(np.arange(k), n)
    angle = 4.0 * radius + 2.0 * np.pi * t / k + noise * rng.standard_normal(n * k)
    x = np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1)
    return x.astype(dtype), t.astype(np.int64)


def sine_curve(n: int = 1000, period: float = 25.0, noise: float = 0.05, seed: int | None = 0,
               dtype=np.float64):
    """A noisy sine wave as one-step-ahead pairs (input y_k, target y_{k+1}).

    Parameters
    ----------
    n : int
        Number of pairs.
    period : float
        Samples per period of the sine.
    noise : float
        Half-width of the uniform noise added to every sample.
    seed : int or None
        Seed of the noise.
    dtype : dtype

    Returns
    -------
    x, t : ndarray, shape (n, 1)
        t[k] = x[k + 1] for k < n - 1: the same noisy series shifted by one step.
    """
    n = _check_positive(n, "n", "sine_curve")
    rng = np.random.default_rng(seed)
    k = np.arange(n + 1)
    y = np.sin(2.0 * np.pi * k / period) + rng.uniform(-noise, noise, size=n + 1)
    y = y.astype(dtype).reshape(-1, 1)
    return y[:-1], y[1:]


class DataLoader:
    """Minibatches of one or more equally long arrays, reshuffled every epoch.

    `for batch in loader` walks through the data once (one epoch); every new `for`
    loop is a new epoch with a new order.  With one array each batch is an array, with
    several it is a tuple of arrays cut with the same indices.

    Parameters
    ----------
    *arrays : ndarray
        Data; the first axis indexes examples and must have the same length in all.
    batch_size : int
    shuffle : bool
        Draw a new random order every epoch (otherwise keep the given order).
    drop_last : bool
        Leave out a last batch smaller than `batch_size`.
    seed : int, numpy.random.Generator or None
        Source of the shuffling order.

    Raises
    ------
    ValueError
        If no array is given, the arrays differ in length, or batch_size is not a
        positive int.
    """

    def __init__(self, *arrays, batch_size: int = 32, shuffle: bool = True, drop_last: bool = False,
                 seed=None):
        if not arrays:
            raise ValueError("DataLoader: give at least one array")
        arrays = tuple(np.asarray(a) for a in arrays)
        if any(a.ndim == 0 for a in arrays):
            raise ValueError("DataLoader: arrays must have a first axis indexing the examples")
        lengths = [len(a) for a in arrays]
        if len(set(lengths)) != 1:
            raise ValueError(f"DataLoader: arrays must have the same length, got lengths {lengths}")
        self.arrays = arrays
        self.batch_size = _check_positive(batch_size, "batch_size", "DataLoader")
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.epoch = 0  # completed epochs

    @property
    def size(self) -> int:
        """Number of examples."""
        return len(self.arrays[0])

    def __len__(self):
        """Number of batches per epoch."""
        full, rest = divmod(self.size, self.batch_size)
        return full + (1 if rest and not self.drop_last else 0)

    def __iter__(self):
        order = self.rng.permutation(self.size) if self.shuffle else np.arange(self.size)
        for i in range(len(self)):
            index = order[i * self.batch_size:(i + 1) * self.batch_size]
            batch = tuple(a[index] for a in self.arrays)
            yield batch[0] if len(batch) == 1 else batch
        self.epoch += 1
