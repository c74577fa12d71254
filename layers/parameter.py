"""Parameter: a Variable that layers collect and optimizers update."""

import numpy as np

from variable import Variable


class Parameter(Variable):
    """A trainable Variable: a `Layer` registers every Parameter assigned to it.

    Parameters
    ----------
    data : ndarray, Python number or list of numbers
        Must be floating point (an ndarray keeps its dtype; numbers become float64).
    name : str, optional
        Shown in graphs and reprs.

    Raises
    ------
    TypeError
        If `data` is not floating point (integer weights cannot be trained).
    """

    __slots__ = ()

    def __init__(self, data, name: str | None = None):
        array = data if isinstance(data, np.ndarray) else None
        if array is not None and array.dtype.kind != "f":
            raise TypeError(
                f"Parameter: data must be a floating-point array, got dtype {array.dtype}; "
                f"cast it first, e.g. data.astype(np.float32)"
            )
        super().__init__(data, name=name, requires_grad=True)

    def __repr__(self):
        body = str(self.data).replace("\n", "\n" + " " * 10)
        return f"parameter({body})"
