"""Toy data sets for first experiments: `L.datasets.spiral` and `L.datasets.sine_curve`.

spiral: K interleaved spiral arms in the plane, one class per arm.  Point i of arm j
lies at radius r = i / n and angle 4 r + 2 pi j / K (plus Gaussian noise on the angle),
so no straight line separates the arms: a classic test that a network learns a
non-linear boundary.

sine_curve: samples y_k = sin(2 pi k / period) + noise, arranged for one-step-ahead
prediction (input y_k, target y_{k+1}), the usual first exercise for a recurrent net
(read it with `L.SeqDataLoader`).
"""

import numpy as np

from .dataloader import _positive_int


def _real(value, name, where, positive):
    """`value` as a float: finite, and > 0 (`positive`) or >= 0; else a clear error."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}")
    value = float(value)
    if not np.isfinite(value) or value < 0 or (positive and value == 0):
        bound = "> 0" if positive else ">= 0"
        raise ValueError(f"{where}: {name} must be a finite number {bound}, got {value!r}")
    return value


def spiral(n_per_class: int = 100, n_classes: int = 3, noise: float = 0.2, seed: int | None = 0,
           dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
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

    Raises
    ------
    TypeError, ValueError
        If n_per_class or n_classes is not a positive int, or noise is not a number >= 0.
    """
    n = _positive_int(n_per_class, "n_per_class", "spiral")
    k = _positive_int(n_classes, "n_classes", "spiral")
    noise = _real(noise, "noise", "spiral", positive=False)
    rng = np.random.default_rng(seed)
    radius = np.tile(np.arange(n) / n, k)
    t = np.repeat(np.arange(k), n)
    angle = 4.0 * radius + 2.0 * np.pi * t / k + noise * rng.standard_normal(n * k)
    x = np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1)
    return x.astype(dtype), t.astype(np.int64)


def sine_curve(n: int = 1000, period: float = 25.0, noise: float = 0.05, seed: int | None = 0,
               dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
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
        Seed of the noise (None: fresh entropy).
    dtype : dtype
        dtype of both arrays.

    Returns
    -------
    x, t : ndarray, shape (n, 1)
        t[k] = x[k + 1] for k < n - 1: the same noisy series shifted by one step.

    Raises
    ------
    TypeError, ValueError
        If n is not a positive int, period is not a number > 0, or noise not one >= 0.
    """
    n = _positive_int(n, "n", "sine_curve")
    period = _real(period, "period", "sine_curve", positive=True)
    noise = _real(noise, "noise", "sine_curve", positive=False)
    rng = np.random.default_rng(seed)
    k = np.arange(n + 1)
    y = np.sin(2.0 * np.pi * k / period) + rng.uniform(-noise, noise, size=n + 1)
    y = y.astype(dtype).reshape(-1, 1)
    return y[:-1], y[1:]


# DeZero's data sets, for a reader of the book (docs/from_dezero.md): asking for one raises an
# AttributeError naming what gengrad offers instead.
_DEZERO_NAMES = {
    "get_spiral": "x, t = L.datasets.spiral() (its own draw of the arms: the points are not the book's)",
    "Spiral": "x, t = L.datasets.spiral(), batched by L.DataLoader(x, t, batch_size=30)",
    "SinCurve": "x, t = L.datasets.sine_curve(), batched by L.SeqDataLoader(x, t, batch_size=...)",
    "MNIST": ("nothing is downloaded: read local IDX files with examples.mnist.load_mnist(directory), "
              "as examples/digits_mlp.py does"),
}


def __getattr__(name):
    """A missing name of this module; DeZero's data sets get gengrad's spelling."""
    message = f"module {__name__!r} has no attribute {name!r}"
    if name in _DEZERO_NAMES:
        message += f"; that is DeZero's name: in gengrad, {_DEZERO_NAMES[name]}"
    raise AttributeError(message, name=name)
