"""Checking and normalising the `axis` and `shape` arguments of ops."""

from collections.abc import Sequence

import numpy as np


def normalize_axis(
    axis: int | Sequence[int] | None, ndim: int, op: str, shape: tuple[int, ...] | None = None
) -> tuple[int, ...] | None:
    """`axis` (None, int or tuple of ints, negatives allowed) as a sorted tuple, or None.

    `shape`, the input's shape, only makes error messages more helpful.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple/list of ints.
    ValueError
        If an axis is out of range for `ndim` dimensions or repeated.
    """
    if axis is None:
        return None
    if type(axis) is int and -ndim <= axis < ndim:  # the common case, quickly
        return (axis % ndim,)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    if not isinstance(axes, (tuple, list)) or not all(
        isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in axes
    ):
        pair = {"max": ("larger", "maximum"), "min": ("smaller", "minimum")}.get(op)
        hint = (f"; for the {pair[0]} of two arrays entry by entry (torch.{op}(a, b)), write "
                f"V.{pair[1]}(a, b)" if pair and (hasattr(axis, "shape") or isinstance(axis, float)) else "")
        raise TypeError(f"{op}: axis must be None, an int or a tuple of ints, got {axis!r}{hint}")
    normal = []
    for a in axes:
        if not -ndim <= a < ndim:
            where = f"an input of shape {shape}" if shape is not None else f"{ndim} dimension(s)"
            raise ValueError(
                f"{op}: axis {a} is out of range for {where} (valid: {-ndim} to {ndim - 1})"
            )
        normal.append(int(a) % ndim)
    if len(set(normal)) != len(normal):
        where = f" for an input of shape {shape}" if shape is not None else ""
        raise ValueError(f"{op}: repeated axis in {axis!r}{where}")
    return tuple(sorted(normal))


def single_axis(axis: int, ndim: int, op: str, shape: tuple[int, ...] | None = None) -> int:
    """One `axis` (an int, negatives allowed) as a non-negative int.

    Raises
    ------
    TypeError
        If `axis` is not an int (None and tuples are not accepted here).
    ValueError
        If it is out of range for `ndim` dimensions.
    """
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{op}: axis must be an int, got {axis!r}")
    return normalize_axis(int(axis), ndim, op, shape)[0]


def shape_tuple(shape: int | Sequence[int], op: str) -> tuple[int, ...]:
    """`shape` (an int or a sequence of ints) as a tuple of ints."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"{op}: shape must be an int or a tuple of ints, got {shape!r}") from None
    if not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in dims):
        raise TypeError(f"{op}: shape must be an int or a tuple of ints, got {shape!r}")
    return tuple(int(n) for n in dims)


def kept_shape(shape: tuple[int, ...], axes: tuple[int, ...] | None) -> tuple[int, ...]:
    """The shape of a reduction over `axes` with keepdims=True (`axes` None: all)."""
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def broadcasts_to(small: tuple[int, ...], big: tuple[int, ...]) -> bool:
    """True when an array of shape `small` broadcasts to exactly `big`."""
    if len(small) > len(big):
        return False
    return all(s == 1 or s == b for s, b in zip(small[::-1], big[::-1]))
