"""Type aliases used in the public signatures of `variable` and `function`."""

import numpy as np

from .variable import Variable

ArrayLike = Variable | np.ndarray | float | int | list
"""What an op accepts as an array: a Variable, an ndarray, a Python number or a list of numbers."""

Axis = int | tuple[int, ...] | None
"""The `axis` argument of a reduction: one axis, several, or None for all of them."""
