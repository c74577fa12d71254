"""Random initialisation of parameters, and how to make everything random reproducible.

Every layer with random weights takes a keyword-only `rng` (a `numpy.random.Generator`).
Layers built without one draw from a module-level generator, which `seed(n)` resets:

    L.seed(0)                       # every layer built (and lazily initialised) after
    model = L.MLP((10, 3))          # this draws the same numbers on every run

    model = L.MLP((10, 3), rng=np.random.default_rng(0))   # or pass your own generator

`seed(n)` is the one call that seeds everything random in gengrad, like
`torch.manual_seed`: initial weights, the shuffling of data loaders built without `seed=`
(both from the generator above) and dropout masks, which come from the global random
state of the array library they are drawn on (as in DeZero and Chainer): NumPy's on the
CPU, CuPy's on a GPU in use.  `seed(n)` therefore reseeds those too, from the same `n`.
`np.random.seed` alone reaches the CPU's dropout masks but not the weights (unless
`use_numpy_global_random()`, below).  A GPU's masks are drawn by CuPy's own generator, so
they differ from the CPU's for the same seed; the same seed gives the same masks on the
same device.

Weights are drawn in float64 and then cast, so the same seed gives the same weights
(up to rounding) in float32 and float64.

DeZero and Chainer draw initial weights from NumPy's global random state instead, so there
`np.random.seed(0)` decides them.  `use_numpy_global_random()` makes gengrad do the same
(for layers built without `rng` and data loaders built without `seed`), which is how a
reader of the DeZero book gets the book's printed numbers (docs/from_dezero.md).
"""

import numpy as np

from variable import backend

_default = np.random.default_rng()
_numpy_global = False  # draw from NumPy's global random state (np.random), as DeZero does


def seed(value: int | None) -> None:
    """Seed everything random in gengrad: initial weights, data loaders' order, dropout masks.

    Resets the generator that layers built without `rng` (and data loaders built without
    `seed`) draw from, and reseeds NumPy's global random state, which dropout masks on the
    CPU are drawn from (so code of yours that uses `np.random` is reseeded too, as with
    Keras's `set_random_seed`).  When a GPU is in use (gengrad has put data on it, so CuPy
    is imported), CuPy's global random state, which dropout masks on the GPU are drawn
    from, is reseeded as well (`cupy.random.seed`); before that, it is reseeded when the
    first data moves to the GPU (CuPy is never imported for this).  Two runs after the
    same `seed(n)` draw the same weights and the same masks on the same device (a GPU's
    masks are not the CPU's).

    Parameters
    ----------
    value : int or None
        Non-negative seed of a fresh `numpy.random.default_rng`, and (through
        `np.random.SeedSequence(value)`) of NumPy's global state and of the GPU's; None
        draws fresh entropy.

    Raises
    ------
    TypeError
        If `value` is neither None nor an int (a str, a float, a bool, an array, ...).
    ValueError
        If `value` is negative.
    """
    global _default
    if value is not None:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"seed: value must be a non-negative int or None, got {type(value).__name__}")
        if value < 0:
            raise ValueError(f"seed: value must be a non-negative int, got {value}")
        value = int(value)
    _default = np.random.default_rng(value)
    states = None if value is None else np.random.SeedSequence(value)
    np.random.seed(None if states is None else states.generate_state(4))
    # the GPU's generator (CuPy's: an int in [0, 2**64)), now or when a GPU comes into use
    backend.seed_device(None if states is None else int(states.generate_state(1, np.uint64)[0]))


def use_numpy_global_random(on: bool = True) -> None:
    """Draw initial weights and data loaders' order from NumPy's global random state, as DeZero.

    After `use_numpy_global_random()`, layers built without `rng` and data loaders built
    without `seed` draw from `np.random` (the state `np.random.seed(n)` sets), in the order
    DeZero draws: W of shape (in_size, out_size) for Linear (EmbedID alike), (out_channels,
    in_channels, KH, KW) for Conv2d, each when the layer is first called.  So a script of
    the DeZero book that starts with `np.random.seed(0)` draws the book's weights.
    `use_numpy_global_random(False)` goes back to gengrad's own generator (the default).
    `seed(n)` still reseeds both, so it stays reproducible either way.

    Parameters
    ----------
    on : bool
        True: NumPy's global state; False: the generator `seed` resets.

    Raises
    ------
    TypeError
        If `on` is not a bool.
    """
    global _numpy_global
    if not isinstance(on, (bool, np.bool_)):
        raise TypeError(f"use_numpy_global_random: on must be True or False, got {type(on).__name__}")
    _numpy_global = bool(on)


def generator(rng: np.random.Generator | None = None) -> np.random.Generator:
    """`rng` itself when given, else the module-level generator that `seed` resets
    (`np.random`, NumPy's global state, after `use_numpy_global_random()`).

    Raises
    ------
    TypeError
        If `rng` is neither None nor a `numpy.random.Generator`.
    """
    if rng is None:
        return np.random if _numpy_global else _default
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (np.random.default_rng(seed)) or None, "
            f"got {type(rng).__name__}"
        )
    return rng


def scaled_normal(shape, fan_in: int, dtype, rng: np.random.Generator | None = None) -> np.ndarray:
    """Standard normal entries times sqrt(1 / fan_in), drawn in float64, cast to `dtype`.

    Raises
    ------
    ValueError
        If `fan_in` is not positive (the layers check their sizes first, with better messages).
    """
    if not fan_in > 0:
        raise ValueError(f"scaled_normal: fan_in must be positive, got {fan_in!r}")
    values = generator(rng).standard_normal(shape) * np.sqrt(1.0 / fan_in)
    return values.astype(dtype, copy=False)
