"""Contractions: einsum, and dot, vdot, inner, outer, tensordot, kron, cross built on it.

`Einsum` is the one contraction Forwarder.  Its backward is einsum again: the gradient of
an operand contracts the incoming gradient with the other operands, then is spread back over
the subscripts only that operand has (a broadcast) and onto its diagonals (repeated
subscripts, 'ii'), so every derivative order works.  einsum is multilinear, so its Taylor
rule is a Cauchy product over the operands.  The other ops write their subscripts and call it
(dot of matrices and vectors, and vdot, call matmul; cross is written component-wise).
"""

import string
from collections.abc import Sequence

import numpy as np

from .. import series
from ..axes import single_axis
from ..backend import device_of, get_array_module
from ..forwarder import Forwarder, Function, Variable, _on_device, _reference_dtype, as_variable
from ..types import ArrayLike
from .elementwise import mul, sub
from .indexing import get_item
from .joining import stack
from .matmul import matmul
from .shape import broadcast_to, reshape, sum_to, transpose

_LETTERS = string.ascii_uppercase + string.ascii_lowercase
"""einsum's subscripts; sublist integer k is _LETTERS[k], as in NumPy's C einsum."""


def _einsum_array(subscripts, *xs, optimize=False):
    """np.einsum on arrays (CuPy's for device data), always an array, never a NumPy scalar."""
    y = np.einsum(subscripts, *xs, optimize=optimize)
    return np.asarray(y) if isinstance(y, np.generic) else y


def _unique(labels):
    """`labels` without repeats, in order of first appearance ('iij' -> 'ij')."""
    return "".join(dict.fromkeys(labels))


def _diagonal_mask(term, shape, xp, dtype):
    """1 where each repeated subscript of `term` has equal indices, 0 elsewhere ('ii': the eye)."""
    mask = xp.ones(shape, dtype=dtype)
    for k, label in enumerate(term):
        p = term.index(label)
        if p < k:                                  # a repeat of the subscript at position p
            index = xp.arange(shape[k])
            at_p = index.reshape([-1 if a == p else 1 for a in range(len(term))])
            at_k = index.reshape([-1 if a == k else 1 for a in range(len(term))])
            mask = mask * (at_p == at_k)
    return mask


class Einsum(Forwarder):
    """np.einsum on explicit subscripts: one label string per operand, one for the output."""

    def __init__(self, terms, out, optimize=False):
        self.terms, self.out, self.optimize = tuple(terms), out, optimize
        self.subscripts = ",".join(terms) + "->" + out

    def forward(self, *xs):
        return _einsum_array(self.subscripts, *xs, optimize=self.optimize)

    save_for_backward = ("inputs",)

    def backward(self, gy):
        return tuple(self._grad(i, gy) if x.requires_grad else None for i, x in enumerate(self.inputs))

    def _grad(self, i, gy):
        """Gradient of operand i: d/dx_i sum prod_j x_j = gy contracted with the other operands."""
        x, term = self.inputs[i], self.terms[i]
        others = [j for j in range(len(self.terms)) if j != i]
        carried = set(self.out).union(*[self.terms[j] for j in others])
        unique = _unique(term)
        kept = "".join(label for label in unique if label in carried)
        plan = self.optimize if isinstance(self.optimize, (bool, str)) else True
        operands = [gy] + [self.inputs[j] for j in others]
        labels = [self.out] + [self.terms[j] for j in others]
        g = gy if not others and kept == self.out else _contract(operands, labels, kept, plan)
        # labels summed over in x alone get size 1, then every label x's own size:
        # sum where x was broadcast (size 1), broadcast where x alone has the label
        own = {label: x.shape[term.index(label)] for label in unique}
        g = reshape(g, tuple(g.shape[kept.index(label)] if label in kept else 1 for label in unique))
        g = sum_to(g, tuple(1 if own[label] == 1 else n for label, n in zip(unique, g.shape)))
        g = broadcast_to(g, tuple(own[label] for label in unique))
        if len(unique) == len(term):
            return g
        # repeated subscripts ('ii'): the gradient lives on the diagonal, d x_ii / d x_ij = delta_ij
        first = tuple(own[label] if term.index(label) == k else 1 for k, label in enumerate(term))
        mask = _diagonal_mask(term, x.shape, get_array_module(gy), gy.dtype)
        return mul(broadcast_to(reshape(g, first), x.shape), mask)

    taylor_records = True

    def taylor(self, *xs):
        y, = self.outputs
        terms, out = self.terms, self.out
        if len(terms) == 1:                          # linear in its one operand: map each coefficient
            return series.map_linear(xs[0], lambda c: _einsum_array(self.subscripts, c))
        # multilinear: fold the operands in one at a time, a Cauchy product per step, keeping
        # the labels that later operands or the output still need
        labels = terms[0]
        total = xs[0]
        for j in range(1, len(terms)):
            last = j == len(terms) - 1
            needed = set(out).union(*terms[j + 1:])
            result = out if last else "".join(c for c in _unique(labels + terms[j]) if c in needed)
            spec = f"{labels},{terms[j]}->{result}"
            total = series.mul(total, xs[j], product=lambda u, v, spec=spec: _einsum_array(spec, u, v),
                               y0=y._data if last else None)
            labels = result
        return total


def _contract(xs, terms, out, optimize=False):
    """Einsum of Variables `xs` on checked label strings: no parsing, no validation."""
    return Function(Einsum(terms, out, optimize))(*xs)


# ----- einsum's subscripts --------------------------------------------------------
def _from_sublists(items):
    """einsum(x0, [0, 1], x1, [1, 2], [0, 2]) as a subscripts string and the operands."""
    def term(sublist):
        if not isinstance(sublist, (list, tuple)):
            raise TypeError(
                f"einsum: in the interleaved form einsum(x0, [0, 1], x1, [1, 2], [0, 2]) each operand "
                f"is followed by a list of ints, got {sublist!r}"
            )
        letters = []
        for s in sublist:
            if s is Ellipsis:
                letters.append("...")
            elif isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 0 <= s < len(_LETTERS):
                letters.append(_LETTERS[s])
            else:
                raise ValueError(
                    f"einsum: subscripts of the interleaved form are ints in [0, {len(_LETTERS)}) "
                    f"or Ellipsis, got {s!r}"
                )
        return "".join(letters)

    if len(items) < 2:
        raise TypeError(
            f"einsum: subscripts must be a str such as 'ij,jk->ik' (or the interleaved form "
            f"einsum(x0, [0, 1], x1, [1, 2])), got {type(items[0]).__name__}"
        )
    pairs = len(items) // 2
    subscripts = ",".join(term(items[2 * k + 1]) for k in range(pairs))
    if len(items) % 2:
        subscripts += "->" + term(items[-1])
    return subscripts, tuple(items[2 * k] for k in range(pairs))


def _letters(term, subscripts, where):
    """Split one term into (its labels without the ellipsis, whether it had one)."""
    ellipsis = term.count("...")
    if "." in term.replace("...", "", 1):
        raise ValueError(f"einsum: {where} of {subscripts!r} has a '.' that is not part of one '...'")
    labels = term.replace("...", "")
    for c in labels:
        if c not in _LETTERS:
            raise ValueError(f"einsum: invalid subscript {c!r} in {subscripts!r}; subscripts are letters "
                             f"a-z and A-Z, '...', ',' and '->'")
    return labels, ellipsis == 1


def _parse(subscripts, shapes):
    """Operand and output label strings of `subscripts`, '...' spelled out with spare letters."""
    spec = subscripts.replace(" ", "")
    if spec.count("->") > 1 or spec.replace("->", "").count("-") or spec.replace("->", "").count(">"):
        raise ValueError(f"einsum: subscripts {subscripts!r} must hold at most one '->'")
    lhs, arrow, rhs = spec.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(shapes):
        raise ValueError(
            f"einsum: subscripts {subscripts!r} name {len(inputs)} operand(s) but {len(shapes)} were given"
        )
    parsed = [_letters(t, subscripts, f"operand {i}") for i, t in enumerate(inputs)]
    for i, ((labels, ellipsis), shape) in enumerate(zip(parsed, shapes)):
        if len(labels) > len(shape) or (len(labels) < len(shape) and not ellipsis):
            raise ValueError(
                f"einsum: operand {i} has shape {shape} ({len(shape)} dimension(s)) but its subscripts "
                f"{inputs[i]!r} name {len(labels)}" + ("" if ellipsis else "; use '...' for the rest")
            )
    broadcast = max([len(s) - len(labels) for (labels, _), s in zip(parsed, shapes)], default=0)
    spare = [c for c in _LETTERS if c not in spec]
    if broadcast > len(spare):
        raise ValueError(f"einsum: {subscripts!r} needs more than {len(_LETTERS)} distinct subscripts")
    dots = "".join(spare[:broadcast])
    terms = []
    for (labels, ellipsis), shape, term in zip(parsed, shapes, inputs):
        own = dots[broadcast - (len(shape) - len(labels)):] if ellipsis else ""
        terms.append(term.replace("...", own) if ellipsis else labels)
    if arrow:
        labels, ellipsis = _letters(rhs, subscripts, "the output")
        if broadcast and not ellipsis:
            raise ValueError(f"einsum: the output of {subscripts!r} has no '...' for the operands' "
                             f"broadcast dimensions; write '...' in it, or name those dimensions")
        for c in labels:
            if labels.count(c) > 1:
                raise ValueError(f"einsum: output subscript {c!r} appears more than once in {subscripts!r}")
            if c not in lhs:
                raise ValueError(f"einsum: output subscript {c!r} of {subscripts!r} names no operand axis")
        out = rhs.replace("...", dots)
    else:                                            # implicit: '...', then the labels seen once, sorted
        seen = "".join(terms)
        out = dots + "".join(sorted(c for c in set(seen) if seen.count(c) == 1 and c not in dots))
    _check_sizes(terms, shapes, set(dots), subscripts)
    return terms, out


def _check_sizes(terms, shapes, dots, subscripts):
    """Raise a ValueError naming einsum unless every subscript has one size (or size 1)."""
    sizes = {}                                       # label -> (size, operand that set it)
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        for k, (label, n) in enumerate(zip(term, shape)):
            name = "a broadcast ('...') dimension" if label in dots else f"subscript {label!r}"
            first = term.index(label)
            if first < k and shape[first] != n:
                raise ValueError(f"einsum: operand {i} of shape {shape} repeats {name} on axes of "
                                 f"sizes {shape[first]} and {n}; repeated subscripts need equal sizes")
            size, j = sizes.get(label, (1, None))
            if n != 1 and size != 1 and n != size:
                raise ValueError(
                    f"einsum: {name} of {subscripts!r} has size {size} in operand {j} (shape "
                    f"{shapes[j]}) but {n} in operand {i} (shape {shape})"
                )
            if n != 1:
                sizes[label] = (n, i)


def _operands(xs, op):
    """The operands as Variables; Python numbers take the dtype of the first array."""
    on_gpu = next((x for x in xs if device_of(x) == "gpu"), None)
    if on_gpu is not None:  # GPU data: numbers and lists are made there, a NumPy array as in Function
        xp, dtype = get_array_module(on_gpu), _reference_dtype((on_gpu,))
        return [x if isinstance(x, Variable) else _on_device(x, dtype, op, xp, on_gpu) for x in xs]
    like = next((x for x in xs if isinstance(x, Variable) or hasattr(x, "dtype")), None)
    return [as_variable(x, like=like, op=op) for x in xs]


def _refuse_out(out, op):
    if out is not None:
        raise TypeError(f"{op}: out= is not supported (results are new Variables); use y = {op}(...)")


def einsum(subscripts: str, *operands: ArrayLike, out: None = None, dtype: None = None, order: str = "K",
           casting: str = "safe", optimize=False) -> Variable:
    """Einstein summation, as np.einsum: 'ij,jk->ik', 'ii->i', '...ij,...jk->...ik'.

    Parameters
    ----------
    subscripts : str
        Comma-separated subscripts of the operands, optionally '->' and the output's
        (implicit mode without it: the subscripts seen once, sorted, after '...').
        Repeated subscripts take diagonals, '...' broadcasts; the interleaved form
        einsum(x0, [0, 1], x1, [1, 2], [0, 2]) is accepted too.
    *operands : ArrayLike
        One or more arrays.
    out, dtype : None
        Only None (results are new Variables, of the operands' promoted dtype).
    order, casting : str
        Only the defaults 'K' and 'safe'.
    optimize : bool, str or list
        Passed to np.einsum (False, True, 'greedy', 'optimal' or an einsum_path).

    Returns
    -------
    Variable
        As np.einsum(subscripts, *operands).

    Raises
    ------
    TypeError
        If `out`, `dtype`, `order` or `casting` is given, `optimize` is not one of the
        above, or an operand is not array-like.
    ValueError
        If the subscripts are malformed, do not match the operands' dimensions, or one
        subscript has two different sizes (other than 1).
    """
    _refuse_out(out, "einsum")
    if dtype is not None:
        raise TypeError(f"einsum: dtype={dtype!r} is not supported; convert the operands, or the "
                        f"result with .astype()")
    if not (isinstance(order, str) and order == "K") or not (isinstance(casting, str) and casting == "safe"):
        raise TypeError(f"einsum: only order='K' and casting='safe' are supported, got order={order!r}, "
                        f"casting={casting!r}")
    if not isinstance(subscripts, str):
        subscripts, operands = _from_sublists((subscripts,) + operands)
    if not operands:
        raise ValueError("einsum: at least one operand is needed")
    path = isinstance(optimize, list) and optimize[:1] == ["einsum_path"]
    if not (isinstance(optimize, bool) or optimize in ("greedy", "optimal") or path):
        raise TypeError(f"einsum: optimize must be a bool, 'greedy', 'optimal' or an einsum_path list, "
                        f"got {optimize!r}")
    xs = _operands(operands, "einsum")
    terms, output = _parse(subscripts, [x.shape for x in xs])
    return _contract(xs, terms, output, optimize)


# ----- products written as contractions ---------------------------------------------
def _pair(a, b, op):
    if device_of(a) == "gpu" or device_of(b) == "gpu":
        return tuple(_operands((a, b), op))
    return as_variable(a, like=b, op=op), as_variable(b, like=a, op=op)


def dot(a: ArrayLike, b: ArrayLike, out: None = None) -> Variable:
    """Dot product as np.dot: matmul for vectors and matrices, else last axis of a with b's -2.

    Parameters
    ----------
    a, b : ArrayLike
        0-d operands multiply; for N-D `a` and M-D `b` (M >= 2), dot(a, b)[i, j, k, m] =
        sum(a[i, j, :] * b[k, :, m]).
    out : None
        Only None.

    Returns
    -------
    Variable
        As np.dot(a, b).

    Raises
    ------
    TypeError
        If `out` is given or an operand is not array-like.
    ValueError
        If the contracted dimensions differ.
    """
    _refuse_out(out, "dot")
    a, b = _pair(a, b, "dot")
    if a.ndim == 0 or b.ndim == 0:
        return mul(a, b)
    k = b.ndim - 2 if b.ndim > 1 else 0
    if a.shape[-1] != b.shape[k]:
        raise ValueError(f"dot: shapes {a.shape} and {b.shape} are not aligned: {a.shape[-1]} (dim "
                         f"{a.ndim - 1} of the first) != {b.shape[k]} (dim {k} of the second)")
    if a.ndim <= 2 and b.ndim <= 2:
        return matmul(a, b)
    la, lb = _LETTERS[:a.ndim], list(_LETTERS[a.ndim:a.ndim + b.ndim])
    lb[k] = la[-1]                                   # the contracted axis: last of a, k of b
    return _contract([a, b], [la, "".join(lb)], la[:-1] + "".join(lb[:k] + lb[k + 1:]))


def vdot(a: ArrayLike, b: ArrayLike) -> Variable:
    """Dot product of the flattened operands (real data: no conjugation), as np.vdot.

    Parameters
    ----------
    a, b : ArrayLike
        Any shapes holding the same number of elements.

    Returns
    -------
    Variable
        0-d: sum(a.ravel() * b.ravel()).

    Raises
    ------
    TypeError
        If an operand is not array-like.
    ValueError
        If the operands hold different numbers of elements.
    """
    a, b = _pair(a, b, "vdot")
    if a.size != b.size:
        raise ValueError(f"vdot: operands of shapes {a.shape} and {b.shape} hold {a.size} and {b.size} "
                         f"elements; vdot needs the same number")
    return matmul(reshape(a, -1), reshape(b, -1))


def inner(a: ArrayLike, b: ArrayLike) -> Variable:
    """Inner product over the last axes, as np.inner: inner(a, b)[i, j] = sum(a[i, :] * b[j, :]).

    Parameters
    ----------
    a, b : ArrayLike
        0-d operands multiply; otherwise their last dimensions must agree.

    Returns
    -------
    Variable
        Of shape a.shape[:-1] + b.shape[:-1].

    Raises
    ------
    TypeError
        If an operand is not array-like.
    ValueError
        If the last dimensions differ.
    """
    a, b = _pair(a, b, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return mul(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"inner: shapes {a.shape} and {b.shape} do not match on their last axis "
                         f"({a.shape[-1]} != {b.shape[-1]})")
    la = _LETTERS[:a.ndim]
    lb = _LETTERS[a.ndim:a.ndim + b.ndim - 1] + la[-1]
    return _contract([a, b], [la, lb], la[:-1] + lb[:-1])


def outer(a: ArrayLike, b: ArrayLike, out: None = None) -> Variable:
    """Outer product of the flattened operands, as np.outer: outer(a, b)[i, j] = a[i] * b[j].

    Parameters
    ----------
    a, b : ArrayLike
        Any shapes; they are flattened.
    out : None
        Only None.

    Returns
    -------
    Variable
        Of shape (a.size, b.size).

    Raises
    ------
    TypeError
        If `out` is given or an operand is not array-like.
    """
    _refuse_out(out, "outer")
    a, b = _pair(a, b, "outer")
    return _contract([reshape(a, -1), reshape(b, -1)], ["a", "b"], "ab")


def _axis_list(axes, ndim, shape, op, which):
    """One side of tensordot's `axes` (an int or a sequence of ints) as non-negative ints."""
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        axes = [axes]
    if not isinstance(axes, (Sequence, np.ndarray)) or isinstance(axes, str):
        raise TypeError(f"{op}: axes must be an int or a pair of sequences of ints, got {axes!r}")
    normal = [single_axis(a, ndim, op, shape) for a in axes]
    if len(set(normal)) != len(normal):
        raise ValueError(f"{op}: repeated axis in {list(axes)} for the {which} operand of shape {shape}")
    return normal


def tensordot(a: ArrayLike, b: ArrayLike, axes=2) -> Variable:
    """Sum products over the given axes of `a` and `b`, as np.tensordot.

    Parameters
    ----------
    a, b : ArrayLike
    axes : int or (sequence of ints, sequence of ints)
        N: the last N axes of `a` with the first N of `b`; a pair: those axes of `a`
        with those of `b`, in order.

    Returns
    -------
    Variable
        The free axes of `a`, then those of `b`.

    Raises
    ------
    TypeError
        If `axes` is not an int or a pair of ints/sequences, or an operand is not array-like.
    ValueError
        If N is negative or exceeds an operand's dimensions, an axis is out of range or
        repeated, the two lists differ in length, or paired axes differ in size.
    """
    a, b = _pair(a, b, "tensordot")
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        if not 0 <= axes <= min(a.ndim, b.ndim):
            raise ValueError(f"tensordot: axes={axes} must be between 0 and the dimensions of both "
                             f"operands, shapes {a.shape} and {b.shape}")
        axes_a, axes_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        try:
            side_a, side_b = axes
        except (TypeError, ValueError):
            raise TypeError(f"tensordot: axes must be an int or a pair of sequences of ints, "
                            f"got {axes!r}") from None
        axes_a = _axis_list(side_a, a.ndim, a.shape, "tensordot", "first")
        axes_b = _axis_list(side_b, b.ndim, b.shape, "tensordot", "second")
        if len(axes_a) != len(axes_b):
            raise ValueError(f"tensordot: axes {axes!r} pair {len(axes_a)} axes of the first operand "
                             f"with {len(axes_b)} of the second")
    for i, j in zip(axes_a, axes_b):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"tensordot: shape-mismatch for sum: axis {i} of the first operand, shape "
                             f"{a.shape}, has {a.shape[i]} but axis {j} of the second, shape {b.shape}, "
                             f"has {b.shape[j]}")
    la, lb = _LETTERS[:a.ndim], list(_LETTERS[a.ndim:a.ndim + b.ndim])
    for i, j in zip(axes_a, axes_b):
        lb[j] = la[i]
    out = "".join(c for k, c in enumerate(la) if k not in axes_a)
    out += "".join(c for k, c in enumerate(lb) if k not in axes_b)
    return _contract([a, b], [la, "".join(lb)], out)


def kron(a: ArrayLike, b: ArrayLike) -> Variable:
    """Kronecker product, as np.kron: blocks a[i, j] * b, the fewer-dimensional operand padded with 1s.

    Parameters
    ----------
    a, b : ArrayLike

    Returns
    -------
    Variable
        Of shape a.shape * b.shape (elementwise, after padding).

    Raises
    ------
    TypeError
        If an operand is not array-like.
    """
    a, b = _pair(a, b, "kron")
    nd = max(a.ndim, b.ndim)
    a = reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = reshape(b, (1,) * (nd - b.ndim) + b.shape)
    la, lb = _LETTERS[:nd], _LETTERS[nd:2 * nd]
    # y[i, k, j, l] = a[i, j] b[k, l], whose reshape puts block (i, j) at rows i*m.., columns j*n..
    y = _contract([a, b], [la, lb], "".join(p + q for p, q in zip(la, lb)))
    return reshape(y, tuple(p * q for p, q in zip(a.shape, b.shape)))


def _last(x, axis):
    """`x` with `axis` moved to the end."""
    return transpose(x, tuple(k for k in range(x.ndim) if k != axis) + (axis,))


def cross(a: ArrayLike, b: ArrayLike, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Variable:
    """Cross product of 3-vectors, as np.cross: c_i = eps_ijk a_j b_k, broadcasting the other axes.

    Parameters
    ----------
    a, b : ArrayLike
        Arrays of 3-vectors along `axisa` and `axisb`.  (2-vectors are deprecated in
        NumPy 2 and refused here.)
    axisa, axisb, axisc : int
        The vectors' axis in `a`, in `b`, and in the result.
    axis : int, optional
        If given, used for all three.

    Returns
    -------
    Variable
        The broadcast of the other axes, with the 3-vector axis at `axisc`.

    Raises
    ------
    TypeError
        If an axis is not an int, an operand is not array-like, or an operand is boolean.
    ValueError
        If an axis is out of range, a vector axis does not have 3 entries, or the other
        axes do not broadcast.
    """
    a, b = _pair(a, b, "cross")
    if a.dtype == bool or b.dtype == bool:
        raise TypeError("cross: boolean operands are not supported (as in NumPy, which cannot subtract "
                        "booleans); convert them to a number type first")
    if axis is not None:
        axisa = axisb = axisc = axis
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"cross: operands must be arrays of vectors, got shapes {a.shape} and {b.shape}")
    a = _last(a, single_axis(axisa, a.ndim, "cross", a.shape))
    b = _last(b, single_axis(axisb, b.ndim, "cross", b.shape))
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        two = {a.shape[-1], b.shape[-1]} <= {2, 3}
        raise ValueError(
            f"cross: incompatible dimensions for cross product, vector lengths {a.shape[-1]} and "
            f"{b.shape[-1]} (shapes {a.shape} and {b.shape} with the vector axis last); "
            + ("2-vectors are deprecated in NumPy 2 and not supported: append a zero third "
               "component and take component 2 of the result" if two else "vectors must have 3 entries")
        )
    try:
        batch = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    except ValueError:
        raise ValueError(f"cross: the non-vector axes of shapes {a.shape} and {b.shape} do not "
                         f"broadcast") from None
    axisc = single_axis(axisc, len(batch) + 1, "cross", batch + (3,))
    # c_i = a_j b_k - a_k b_j for (i, j, k) cyclic: component-wise, as NumPy, so a NaN or inf
    # reaches only the components that use it (a Levi-Civita contraction would spread 0 * inf)
    ea, eb = ([get_item(v, (Ellipsis, k)) for k in range(3)] for v in (a, b))
    c = stack([sub(mul(ea[j], eb[k]), mul(ea[k], eb[j])) for j, k in ((1, 2), (2, 0), (0, 1))], axis=-1)
    order = list(range(c.ndim - 1))
    order.insert(axisc, c.ndim - 1)
    return transpose(c, tuple(order))


__all__ = ["einsum", "dot", "vdot", "inner", "outer", "tensordot", "kron", "cross"]
