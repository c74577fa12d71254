"""The Variable: an ndarray with a gradient and a link to the Function that made it."""

from __future__ import annotations  # the methods return Variable, defined below them

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # names used only in annotations
    from .forwarder import Function
    from .types import ArrayLike, Axis


def _as_data(data):
    """Return `data` as an ndarray suitable for a Variable, or raise a clear TypeError."""
    if isinstance(data, Variable):
        raise TypeError("Variable: data is already a Variable; use it directly")
    if isinstance(data, (bool, int, float)) and not isinstance(data, np.generic):
        data = np.asarray(data, dtype=bool if isinstance(data, bool) else np.float64)
    elif isinstance(data, np.generic):  # NumPy scalars keep their dtype
        data = np.asarray(data)
    elif isinstance(data, (list, tuple)):
        try:
            data = np.asarray(data, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise TypeError(f"Variable: cannot turn {data!r} into a float array ({error})") from None
    elif not isinstance(data, np.ndarray):
        raise TypeError(
            f"Variable: data must be an ndarray, a Python number or a list of numbers, "
            f"got {type(data).__name__}"
        )
    if data.dtype.kind not in "biufc":
        raise TypeError(f"Variable: data must be numeric, got dtype {data.dtype}")
    return data


def _compared(other):
    """The array a Variable is compared with."""
    if isinstance(other, Variable):
        return other.data
    if isinstance(other, (np.ndarray, int, float, np.number)) and not isinstance(other, bool):
        return other
    raise TypeError(
        f"comparison: a Variable compares with a Variable, an ndarray or a number, "
        f"got {type(other).__name__}"
    )


class Variable:
    """A node of the graph holding `data` (an ndarray) and, after backward, `grad`.

    Parameters
    ----------
    data : ndarray, Python number or (nested) list of numbers
        An ndarray is kept as is, dtype included; numbers and lists become float64.
    name : str, optional
        Shown in graphs and reprs.
    requires_grad : bool, optional
        Defaults to True for floating-point data, False for integer and boolean data
        (integer Variables are constants such as labels or indices).
    """

    __slots__ = ("data", "name", "grad", "creator", "generation", "requires_grad", "__weakref__")
    __array_ufunc__ = None  # `ndarray + Variable` defers to Variable.__radd__

    def __init__(
        self,
        data: np.ndarray | np.generic | float | int | list | tuple,
        name: str | None = None,
        requires_grad: bool | None = None,
    ) -> None:
        data = _as_data(data)
        floating = data.dtype.kind in "fc"
        if requires_grad is None:
            requires_grad = floating
        elif requires_grad and not floating:
            raise TypeError(
                f"Variable: only floating-point data can require grad, got dtype {data.dtype}"
            )
        self.data = data
        self.name = name
        self.grad = None
        self.creator = None
        self.generation = 0
        self.requires_grad = bool(requires_grad)

    # ----- array-like facts -------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of `data`."""
        return self.data.shape

    @property
    def ndim(self) -> int:
        """Number of dimensions of `data`."""
        return self.data.ndim

    @property
    def size(self) -> int:
        """Number of elements of `data`."""
        return self.data.size

    @property
    def dtype(self) -> np.dtype:
        """dtype of `data`."""
        return self.data.dtype

    def __len__(self) -> int:
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d Variable")
        return len(self.data)

    def __repr__(self) -> str:
        if self.data is None:
            return "variable(None)"
        body = str(self.data).replace("\n", "\n" + " " * 9)
        return f"variable({body})"

    def __bool__(self) -> bool:
        raise TypeError(
            "the truth value of a Variable is ambiguous; compare its .data instead"
        )

    # ----- graph ------------------------------------------------------------
    def set_creator(self, func: Function) -> None:
        """Record `func` as the Function that produced this Variable."""
        self.creator = func
        self.generation = func.generation + 1

    def cleargrad(self) -> None:
        """Forget the accumulated gradient."""
        self.grad = None

    def unchain(self) -> None:
        """Cut the link to the creator: this Variable becomes a leaf."""
        self.creator = None

    def unchain_backward(self) -> None:
        """Cut every creator link upstream of this Variable (truncated backprop)."""
        seen = set()
        stack = [self.creator] if self.creator is not None else []
        while stack:
            func = stack.pop()
            for x in func.inputs:
                f = x.creator
                if f is not None and id(f) not in seen:
                    seen.add(id(f))
                    stack.append(f)
                x.unchain()
        self.unchain()

    def backward(self, retain_grad: bool = False, create_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's `.grad`.

        A non-scalar Variable is seeded with ones, as if it were summed first.

        Parameters
        ----------
        retain_grad : bool
            Also keep the gradients of intermediate Variables in their `.grad`.
        create_graph : bool
            Record the backward pass, so the gradients are Variables with a graph of
            their own and can be differentiated again.

        Raises
        ------
        ValueError
            If this Variable does not require grad (it depends on no Variable that does).
        """
        backward_module.backward([self], None, retain_grad=retain_grad, create_graph=create_graph)

    # ----- operators ----------------------------------------------------------
    def __neg__(self) -> Variable:
        return elementwise.neg(self)

    def __abs__(self) -> Variable:
        return elementwise.abs(self)

    def __add__(self, other: ArrayLike) -> Variable:
        return elementwise.add(self, other)

    def __radd__(self, other: ArrayLike) -> Variable:
        return elementwise.add(other, self)

    def __sub__(self, other: ArrayLike) -> Variable:
        return elementwise.sub(self, other)

    def __rsub__(self, other: ArrayLike) -> Variable:
        return elementwise.sub(other, self)

    def __mul__(self, other: ArrayLike) -> Variable:
        return elementwise.mul(self, other)

    def __rmul__(self, other: ArrayLike) -> Variable:
        return elementwise.mul(other, self)

    def __truediv__(self, other: ArrayLike) -> Variable:
        return elementwise.div(self, other)

    def __rtruediv__(self, other: ArrayLike) -> Variable:
        return elementwise.div(other, self)

    def __pow__(self, other: ArrayLike) -> Variable:
        return elementwise.pow(self, other)

    def __rpow__(self, other: ArrayLike) -> Variable:
        return elementwise.pow(other, self)

    # comparisons give plain boolean arrays (masks for `where`), not Variables: they have
    # no gradient.  `==` and `!=` keep their identity meaning (Variables are dict keys).
    def __lt__(self, other: ArrayLike) -> np.ndarray:
        return self.data < _compared(other)

    def __le__(self, other: ArrayLike) -> np.ndarray:
        return self.data <= _compared(other)

    def __gt__(self, other: ArrayLike) -> np.ndarray:
        return self.data > _compared(other)

    def __ge__(self, other: ArrayLike) -> np.ndarray:
        return self.data >= _compared(other)

    def __matmul__(self, other: ArrayLike) -> Variable:
        return linalg.matmul(self, other)

    def __rmatmul__(self, other: ArrayLike) -> Variable:
        return linalg.matmul(other, self)

    def __getitem__(self, index: Any) -> Variable:
        return indexing.get_item(self, index)

    # ----- shape and reduction methods ----------------------------------------
    def reshape(self, *shape: int | Sequence[int]) -> Variable:
        """Same data in a new shape: `x.reshape(2, 3)` or `x.reshape((2, 3))`."""
        return shape_ops.reshape(self, *shape)

    def transpose(self, *axes: int | Sequence[int]) -> Variable:
        """Permute axes: `x.transpose()` reverses, `x.transpose(1, 0, 2)` permutes."""
        if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
            axes = axes[0]
        return shape_ops.transpose(self, axes or None)

    @property
    def T(self) -> Variable:
        """The transpose (axes reversed)."""
        return shape_ops.transpose(self)

    def sum_to(self, shape: int | Sequence[int]) -> Variable:
        """Sum over broadcast axes down to `shape`."""
        return shape_ops.sum_to(self, shape)

    def broadcast_to(self, shape: int | Sequence[int]) -> Variable:
        """Broadcast to `shape`."""
        return shape_ops.broadcast_to(self, shape)

    def sum(self, axis: Axis = None, keepdims: bool = False) -> Variable:
        """Sum over `axis` (None: everything)."""
        return reduction.sum(self, axis, keepdims)

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Variable:
        """Mean over `axis` (None: everything)."""
        return reduction.mean(self, axis, keepdims)

    def max(self, axis: Axis = None, keepdims: bool = False) -> Variable:
        """Maximum over `axis` (None: everything)."""
        return reduction.max(self, axis, keepdims)

    def min(self, axis: Axis = None, keepdims: bool = False) -> Variable:
        """Minimum over `axis` (None: everything)."""
        return reduction.min(self, axis, keepdims)


# The operators above call ops, and ops are built on Variable, so the op modules can
# only be bound once Variable exists.  This is the package's single deliberate
# late import; everything else imports strictly downwards.
from . import backward as backward_module  # noqa: E402
from . import elementwise, indexing, linalg, reduction  # noqa: E402
from . import shape as shape_ops  # noqa: E402
