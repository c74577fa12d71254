"""Statistics: var, std, average, cov and corrcoef.

`var` and `average` are built from reduction.py's ops (variance, mean, sum), so their
gradients and Taylor rules are those ops' own.  `std` is an op of its own: at a constant
slice (std 0) sqrt has no derivative, and std's gradient there is the subgradient 0, as
in PyTorch, instead of the NaN that sqrt(var) would give.

Over an empty axis the results are NaN, and with ddof >= n they are inf or NaN, as in
NumPy (without its warnings).

With NumPy's `where=` mask, var and std are composites too (`_moments`, shared with nanvar
and nanstd): the entries outside the mask are replaced by 0 with a `where` on the constant
mask before any arithmetic, so whatever they hold (NaN, inf) gives no value, no gradient
and no warning; the squared deviations of the others from their own mean are summed and
divided by count - ddof, a constant.  Where count - ddof <= 0 (nothing selected, too large
a ddof), NumPy's inf or NaN is put in by a last `where`, with gradient 0 and without NumPy's
"Degrees of freedom <= 0" and divide warnings.

`cov` and `corrcoef` are composites too (mean, matmul, sqrt, where, clip): centred rows
times their transpose over n - ddof.  Where NumPy's answer is not a number made from the
data (the degrees of freedom are <= 0, a variable has variance 0), the inf or NaN is put in
by a `where` on a constant mask, so it never enters an arithmetic operation: no warning,
and gradient 0 from those entries.
"""

import math
from numbers import Real

import numpy as np

from .. import backend, series
from ..axes import normalize_axis
from ..backend import errstate, get_array_module, maybe_any
from ..forwarder import Forwarder, Function, Variable, as_variable
from ..types import ArrayLike, Axis
from . import reduction
from .elementwise import sqrt, square
from .joining import concat
from .matmul import matmul
from .piecewise import clip
from .piecewise import where as _where
from .products import _refuse_keywords
from .reduction import _count, _mean_array, _spread
from .selection import diagonal
from .shape import broadcast_to, reshape, squeeze, transpose


def _degrees(ddof, correction, op):
    """NumPy 2's ddof, or `correction` (its Array-API name) in its place; both is refused."""
    if correction is not None:
        if ddof != 0:
            raise ValueError(
                f"{op}: ddof and correction cannot both be given (correction is ddof's other name)"
            )
        ddof = correction
    if not isinstance(ddof, Real) or isinstance(ddof, bool):
        raise TypeError(f"{op}: ddof must be a real number, got {type(ddof).__name__}")
    return ddof


def _divisor(n, ddof):
    """n - ddof, the divisor of the sum of squares; 0 when ddof >= n (var is then inf or NaN)."""
    return n - ddof if n > ddof else 0


class Std(Forwarder):
    """Standard deviation over axes with `ddof`; gradient 0 where it is 0 (a constant slice)."""

    def __init__(self, axes, keepdims, ddof):
        self.axes, self.keepdims, self.ddof = axes, keepdims, ddof

    def forward(self, x):
        self.divisor = _divisor(_count(x.shape, self.axes), self.ddof)
        centred = x - _mean_array(x, self.axes, True)
        with errstate(x, divide="ignore", invalid="ignore"):   # ddof >= n: inf or NaN, meant
            y = np.sqrt((centred * centred).sum(axis=self.axes, keepdims=self.keepdims) / self.divisor)
        self.flat = y == 0                                     # constant slices: subgradient 0
        return y

    save_for_backward = ("x", "y")

    def backward(self, gy):
        x, = self.inputs
        y, = self.outputs
        centred = x - reduction.mean(x, self.axes, keepdims=True)
        # d std = (x - m) / (d std), d = n - ddof; 0 where std = 0 (no 1/0 on either branch);
        # NaN when ddof >= n (d = 0: std is inf, or NaN for a constant slice, and has none)
        if self.divisor == 0:
            scale = math.nan
        else:
            scale = _where(self.flat, 0, 1 / (self.divisor * _where(self.flat, 1, y)))
        return _spread(gy * scale, x, self.axes) * centred

    taylor_records = True

    def taylor(self, x):
        # var = sum((x - mean x)^2) / d, then sqrt; series 0 past y_0 where std = 0
        centred = series.map_linear(x, lambda c: c - _mean_array(c, self.axes, True))
        squares = series.square(centred)
        scale = 1 / self.divisor if self.divisor else math.nan   # ddof >= n: no derivative
        var = [c.sum(axis=self.axes, keepdims=self.keepdims) * scale for c in squares]
        y, = self.outputs
        var[0] = np.where(self.flat, 1, var[0])               # (1 where std = 0: no division by 0)
        roots = series.sqrt(var, np.where(self.flat, 1, y._data))
        return [y._data] + [np.where(self.flat, 0, c) for c in roots[1:]]


def _check_var_keywords(op, dtype, out, mean_given):
    _refuse_keywords(op, dtype, out)
    if mean_given is not None:
        raise TypeError(
            f"{op}: mean= is not supported; the mean is computed from the input (and differentiated)"
        )


# ----- where=: moments of the entries a constant mask leaves ---------------------------------
def _kept(x, skip, value=0):
    """`x` with `value` where the constant mask `skip` holds: a `where`, which picks, so what the
    skipped entries hold meets no arithmetic and gets gradient 0."""
    return _where(skip, value, x) if maybe_any(skip) else x


def _moments(a, skip, axes, keepdims, ddof):
    """(squares, dof) of the entries of `a` that the constant mask `skip` (of a's shape) leaves:
    squares the sum of their squared deviations from their own mean (finite where they are;
    0 where none is left), dof their count - ddof, a constant array of `a`'s dtype."""
    xp = get_array_module(a)
    z = _kept(a, skip)
    count = (~skip).sum(axis=axes, keepdims=True).astype(a.dtype)
    mean = reduction.sum(z, axes, True) / xp.where(count == 0, 1, count)   # 0 where none is left
    centred = _kept(z - mean, skip)
    dof = (~skip).sum(axis=axes, keepdims=keepdims).astype(a.dtype) - ddof
    return reduction.sum(square(centred), axes, keepdims), dof


def _flat_root(var):
    """sqrt(var) with the subgradient 0 where var is 0 (no 1/0 on either branch of the where)."""
    flat = var.data == 0
    return _where(flat, 0, sqrt(_where(flat, 1, var))) if maybe_any(flat) else sqrt(var)


def _selected_spread(a, axes, keepdims, ddof, where, op, root):
    """var (std if `root`) of the entries NumPy's `where=` mask selects, with NumPy's inf or NaN
    (squares / 0) where count - ddof <= 0, put in by a `where` with gradient 0 and no warning."""
    if a.dtype.kind not in "fc":                              # integers and booleans: in float64
        a = a.astype(np.float64)
    xp = get_array_module(a)
    skip = ~xp.broadcast_to(reduction.selection(where, a, op), a.shape)
    squares, dof = _moments(a, skip, axes, keepdims, ddof)
    bad = dof <= 0
    y = squares / xp.where(bad, 1, dof)                       # var = squares / (count - ddof)
    if root:
        y = _flat_root(y)
    if not maybe_any(bad):
        return y
    with errstate(squares, invalid="ignore"):                 # NumPy's squares / 0: inf, or NaN at 0
        degenerate = squares.data * np.inf
    return _where(bad, degenerate, y)


def var(
    a: ArrayLike,
    axis: Axis = None,
    dtype: None = None,
    out: None = None,
    ddof: float = 0,
    keepdims: bool = False,
    *,
    where: ArrayLike = True,
    mean: None = None,
    correction: float | None = None,
) -> Variable:
    """Variance of `a` over `axis`: the sum of squared deviations divided by n - ddof.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    dtype, out, mean
        NumPy's keywords, accepted at their defaults only (None, None, None).
    ddof : real number
        Delta degrees of freedom: 0 for the population variance, 1 for the unbiased estimate.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    where : bool or array of bools
        NumPy's mask, broadcast to `a`'s shape: the variance of the entries where it holds
        (their deviations from their own mean, over their count - ddof); the others are
        replaced by a `where` on the constant mask, so whatever they hold (NaN, inf) gives
        no value and gradient exactly 0 at every order.
    correction : real number, optional
        NumPy 2's other name for `ddof` (the Array API's); give one of the two.

    Returns
    -------
    Variable
        The variances; NaN over an empty axis, inf (NaN for a constant slice) when
        ddof >= n, and so with `where` where count - ddof <= 0 (NaN for nothing selected),
        as in NumPy, without its warnings and with gradient 0 there.  Integer input gives
        float64, as in NumPy.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `ddof` is not a number, `dtype`,
        `out` or `mean` is given, `where` is not boolean or is a Variable, or `a` is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, both `ddof` (non-zero) and `correction`
        are given, or `where` does not broadcast to `a`'s shape.
    """
    _check_var_keywords("var", dtype, out, mean)
    ddof = _degrees(ddof, correction, "var")
    a = as_variable(a, op="var")
    axes = normalize_axis(axis, a.ndim, "var", a.shape)
    if where is not True:
        return _selected_spread(a, axes, bool(keepdims), ddof, where, "var", root=False)
    y = reduction.variance(a, axes, keepdims)
    if ddof == 0:
        return y
    n = _count(a.shape, axes)
    d = _divisor(n, ddof)
    with errstate(y, invalid="ignore"):                      # ddof >= n: 0 * inf is NaN, meant
        return y * (n / d if d else float("inf"))            # var = variance * n / (n - ddof)


def std(
    a: ArrayLike,
    axis: Axis = None,
    dtype: None = None,
    out: None = None,
    ddof: float = 0,
    keepdims: bool = False,
    *,
    where: ArrayLike = True,
    mean: None = None,
    correction: float | None = None,
) -> Variable:
    """Standard deviation of `a` over `axis`: the square root of `var`.

    At a constant slice (std 0) the gradient is the subgradient 0, as in PyTorch (sqrt has
    no derivative at 0; sqrt(var) would give NaN), and so are the higher derivatives and
    Taylor coefficients there.

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to reduce over (negatives allowed); None reduces over all of them.
    dtype, out, mean
        NumPy's keywords, accepted at their defaults only (None, None, None).
    ddof : real number
        Delta degrees of freedom: the squared deviations are summed and divided by n - ddof.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.
    where : bool or array of bools
        NumPy's mask, broadcast to `a`'s shape: the standard deviation of the entries where
        it holds, as `var`'s; the others get gradient exactly 0 at every order.
    correction : real number, optional
        NumPy 2's other name for `ddof` (the Array API's); give one of the two.

    Returns
    -------
    Variable
        The standard deviations; NaN over an empty axis, inf (NaN for a constant slice)
        when ddof >= n, and so with `where` where count - ddof <= 0 (NaN for nothing
        selected), as in NumPy, without its warnings and with gradient 0 there.  Integer
        input gives float64, as in NumPy.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, `ddof` is not a number, `dtype`,
        `out` or `mean` is given, `where` is not boolean or is a Variable, or `a` is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, both `ddof` (non-zero) and `correction`
        are given, or `where` does not broadcast to `a`'s shape.
    """
    _check_var_keywords("std", dtype, out, mean)
    ddof = _degrees(ddof, correction, "std")
    a = as_variable(a, op="std")
    axes = normalize_axis(axis, a.ndim, "std", a.shape)
    if where is not True:
        return _selected_spread(a, axes, bool(keepdims), ddof, where, "std", root=True)
    return Function(Std(axes, bool(keepdims), ddof))(a)


def _weights_along(w, a, axis, op="average"):
    """`w` (a Variable or an array) reshaped to broadcast against `a` along `axis` (NumPy's
    rule: same shape as `a`, or the shape of `a` along the axes, in the order `axis` names
    them); errors name `op` (average, or quantile and its kin)."""
    if w.shape == a.shape:
        return w
    if axis is None:
        raise TypeError(
            f"{op}: weights of shape {w.shape} differ from a's shape {a.shape}; give the "
            f"axis they lie along"
        )
    named = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    named = tuple(int(i) % a.ndim for i in named)
    along = tuple(a.shape[i] for i in named)
    if w.shape != along:
        raise ValueError(
            f"{op}: weights of shape {w.shape} do not match a's shape {a.shape} along axis "
            f"{axis} (expected {along})"
        )
    w = w.transpose(tuple(int(i) for i in np.argsort(named)))
    return w.reshape(tuple(n if i in named else 1 for i, n in enumerate(a.shape)))


def average(
    a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None, returned: bool = False, *,
    keepdims: bool = False,
) -> Variable | tuple[Variable, Variable]:
    """Weighted average of `a` over `axis`: sum(a * w) / sum(w) (the mean without weights).

    Parameters
    ----------
    a : ArrayLike
    axis : int, tuple of ints or None
        Axes to average over (negatives allowed); None averages over all of them.
    weights : ArrayLike, optional
        Of the shape of `a`, or of `a`'s shape along `axis` (1-d for one axis). A Variable
        gets gradients too.
    returned : bool
        Also return the sum of the weights (the count without weights), of the average's shape.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against `a`.

    Returns
    -------
    Variable, or (Variable, Variable) if `returned`
        The averages (NaN over an empty axis without weights), and the sums of the weights.

    Raises
    ------
    TypeError
        If `axis` is not None, an int or a tuple of ints, or the shapes of `a` and
        `weights` differ and `axis` is None, or an input is not a Variable, a numeric
        ndarray, a number or a list of numbers.
    ValueError
        If an axis is out of range or repeated, or `weights` does not match `a` along `axis`.
    ZeroDivisionError
        If the weights of a slice sum to 0 (as in NumPy).
    """
    a = as_variable(a, op="average")
    axes = normalize_axis(axis, a.ndim, "average", a.shape)
    keepdims = bool(keepdims)
    if weights is None:
        avg = reduction.mean(a, axis, keepdims)
        if not returned:
            return avg
        count = get_array_module(a).full(avg.shape, _count(a.shape, axes), dtype=avg.dtype)
        return avg, as_variable(count)
    w = _weights_along(as_variable(weights, like=a, op="average"), a, axis)
    total = reduction.sum(w, axes, keepdims)
    if bool((total.data == 0).any()):
        raise ZeroDivisionError("average: the weights sum to 0 along the axis, so they cannot be normalized")
    avg = reduction.sum(a * w, axes, keepdims) / total                # avg = sum(a w) / sum(w)
    if not returned:
        return avg
    return avg, broadcast_to(total, avg.shape)




# ----- covariance and correlation ----------------------------------------------------------
def _cov_ddof(ddof, bias, op):
    """NumPy's ddof of cov: 1 (0 with `bias`) when None, else a whole number."""
    if ddof is None:
        return 0 if bias else 1
    if not isinstance(ddof, Real) or isinstance(ddof, bool):
        raise TypeError(f"{op}: ddof must be an integer or None, got {type(ddof).__name__}")
    if ddof != int(ddof):
        raise ValueError(f"{op}: ddof must be an integer, got {ddof!r}")
    return int(ddof)


def _result_dtype(dtype, inputs, op):
    """The dtype cov computes in: NumPy's, at least float64 unless `dtype` says otherwise."""
    if dtype is None:
        return np.result_type(*[v.dtype for v in inputs], np.float64)
    return floating_dtype(dtype, op,
                          "a floating dtype such as np.float32, or None (at least float64, as NumPy)")


def floating_dtype(dtype, op, instead):
    """`dtype` (not None) as a NumPy floating dtype, or a TypeError naming `op` and, for a
    dtype of other data, what to give `instead` (cov's and the nan-functions' dtype=)."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{op}: dtype must be a floating dtype or None, got {dtype!r}") from None
    if dtype.kind != "f":
        raise TypeError(
            f"{op}: dtype={dtype} is not supported (gengrad differentiates floating data); give {instead}"
        )
    return dtype


def _observations(v, name, rowvar, transposed, dtype, op):
    """`v` (at most 2-d) as a 2-d Variable, a variable per row, in `dtype`: NumPy's
    array(v, ndmin=2), transposed when `rowvar` is False and `transposed(v, 2-d v)` holds."""
    if v.ndim > 2:
        raise ValueError(
            f"{op}: {name} has {v.ndim} dimensions (shape {v.shape}); give at most 2, variables "
            f"by observations (observations by variables with rowvar=False)"
        )
    if v.dtype != dtype:
        v = v.astype(dtype)                                   # (the gradient comes back in v's dtype)
    x = reshape(v, (1,) * (2 - v.ndim) + v.shape)
    return transpose(x) if not rowvar and transposed(v, x) else x


def _weights(w, name, n, like, op):
    """cov's fweights or aweights as a 1-d Variable of `like`'s dtype and device, checked to
    be n non-negative numbers (whole numbers for fweights): on the CPU a bad value raises at
    once; on a device the check runs there (V.backend.device_check) and the weights come
    back NaN, so that the error is raised at the next read of the result."""
    frequencies = name == "fweights"
    if isinstance(w, Variable):
        if frequencies and w.requires_grad:
            raise TypeError(
                f"{op}: fweights are integer frequencies, which get no gradient; give them as a "
                f"constant array (w.data), and weights to differentiate as aweights"
            )
    else:
        made = not (isinstance(w, np.ndarray) or backend.is_device_array(w))
        w = as_variable(w, op=op)
        w = as_variable(backend.constant_like(w.data, like, op, name, "m", made=made), op=op)
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(
            f"{op}: {name} must be 1-d, one weight per observation ({n}), got shape {w.shape}"
        )
    data = w.data
    checks = [(data < 0, f"{op}: {name} cannot be negative, got {{value}}", ValueError)]
    if frequencies:
        checks.append((data != np.round(data), f"{op}: fweights must be integers, got {{value}}", TypeError))
    if backend.is_device_array(data):
        found = None
        for bad, message, error in checks:
            flag = backend.device_check(op, bad, data, message, error)
            found = flag if found is None else found | flag
        w = w * get_array_module(data).where(found, np.nan, 1).astype(like.dtype)
    else:
        for bad, message, error in checks:
            if bad.any():
                raise error(message.format(value=data[bad][0]))
    return w if w.dtype == like.dtype else w.astype(like.dtype)


def _nonzero_total(total, op):
    """Refuse weights that sum to 0 (NumPy's ZeroDivisionError); checked on the device there."""
    data = total.data
    if not backend.is_device_array(data):
        if data == 0:
            raise ZeroDivisionError(f"{op}: the weights sum to 0, so they cannot be normalized")
        return total
    found = backend.device_check(op, data == 0, data, f"{op}: the weights sum to {{value}}, so they "
                                 f"cannot be normalized", ZeroDivisionError)
    return total * get_array_module(data).where(found, np.nan, 1).astype(total.dtype)


def _scaled(product, fact):
    """product / fact, or NumPy's product * inf where fact <= 0 (no degrees of freedom): that
    inf or NaN enters by a where (a constant of the data), with gradient 0 and no warning."""
    if isinstance(fact, Real) and fact > 0:
        return product / fact
    with errstate(product, invalid="ignore"):                 # 0 * inf is NaN, as in NumPy
        degenerate = product.data * np.inf
    if isinstance(fact, Real):
        return _where(True, degenerate, product)
    bad = fact.data <= 0
    if not maybe_any(bad):
        return product / fact
    return _where(bad, degenerate, product / _where(bad, 1, fact))


def _outer_product(a, b):
    """a b^T of two matrices (arrays, Variables or several directions' coefficients)."""
    return a @ b.swapaxes(-1, -2)


class Gram(Forwarder):
    """X X^T of a matrix X: the gradient (G + G^T) X is one product, where reverse mode through
    matmul(X, X^T) makes two (G X, and (X^T G)^T through the transpose)."""

    def forward(self, x):
        return x @ x.T

    save_for_backward = ("x",)

    def backward(self, gy):
        x, = self.inputs
        return matmul(gy + transpose(gy), x)

    taylor_records = True

    def taylor(self, x):
        y, = self.outputs
        return series.mul(x, x, product=_outer_product, y0=y._data)   # (X X^T)_k = sum_j X_j X_(k-j)^T


def _covariance(m, y, rowvar, bias, ddof, fweights, aweights, dtype, op):
    """cov, with errors naming `op` (cov, or corrcoef calling it)."""
    ddof = _cov_ddof(ddof, bias, op)
    m = as_variable(m, op=op)
    y = None if y is None else as_variable(y, like=m, op=op)
    dtype = _result_dtype(dtype, [m] if y is None else [m, y], op)
    x = _observations(m, "m", rowvar, lambda v, x: v.ndim != 1, dtype, op)
    if x.shape[0] == 0:                                       # no variables: NumPy's empty (0, 0)
        return x[:, :0]
    if y is not None:
        other = _observations(y, "y", rowvar, lambda v, x: x.shape[0] != 1, dtype, op)
        if other.shape[1] != x.shape[1]:
            raise ValueError(
                f"{op}: m has {x.shape[1]} observations and y {other.shape[1]} (as 2-d arrays of "
                f"shapes {x.shape} and {other.shape}, a variable per row); they must match"
            )
        x = concat([x, other], axis=0)
    n = x.shape[1]
    w = None if fweights is None else _weights(fweights, "fweights", n, x, op)
    a = None if aweights is None else _weights(aweights, "aweights", n, x, op)
    if w is None and a is None:
        centred = x - reduction.mean(x, (1,), keepdims=True)
        return squeeze(_scaled(Function(Gram())(centred), n - ddof))           # X X^T / (n - ddof)
    w = a if w is None else w if a is None else w * a         # w = f a
    total = _nonzero_total(reduction.sum(w), op)
    centred = x - reduction.sum(x * w, (1,), keepdims=True) / total             # x - sum(w x) / sum(w)
    if ddof == 0:
        fact = total
    elif a is None:
        fact = total - ddof
    else:
        fact = total - ddof * reduction.sum(w * a) / total   # sum(w) - ddof sum(w a) / sum(w)
    return squeeze(_scaled(matmul(centred, transpose(centred * w)), fact))      # X diag(w) X^T / fact


def cov(
    m: ArrayLike,
    y: ArrayLike | None = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
    fweights: ArrayLike | None = None,
    aweights: ArrayLike | None = None,
    *,
    dtype: np.dtype | type | None = None,
) -> Variable:
    """Covariance matrix of the variables in `m` (and `y`): rows are variables, columns
    observations (the other way round with rowvar=False), as np.cov.

    The centred observations X times their (weighted) transpose, over n - ddof (with
    weights: NumPy's normalization by sum(w), or sum(w) - ddof sum(w a) / sum(w)); a
    composite of mean, sums and X X^T (one Gram op, whose backward is the one product
    (G + G^T) X, or a matmul with weights), so every derivative and Taylor rule follows,
    and `aweights` given as a Variable get gradients too.

    Parameters
    ----------
    m : ArrayLike
        1-d (one variable) or 2-d: variables by observations.
    y : ArrayLike, optional
        More variables, of the same observations, joined below those of `m`.
    rowvar : bool
        True: each row is a variable; False: each column is one.
    bias : bool
        Normalize by n (ddof = 0) instead of n - 1, when `ddof` is None.
    ddof : int, optional
        Delta degrees of freedom; overrides `bias`.
    fweights : ArrayLike of integers, optional
        Frequency of each observation (a constant: a Variable that requires grad is refused).
    aweights : ArrayLike, optional
        Weight of each observation; a Variable gets gradients.
    dtype : floating dtype, optional
        The dtype of the result; by default NumPy's, at least float64 (float32 input gives
        float64, and its gradient comes back in float32).

    Returns
    -------
    Variable
        The (k, k) covariance matrix of the k variables, squeezed as NumPy's (0-d for one
        variable); (0, 0) when `m` has no variable.  Where n - ddof (the weights' factor)
        is <= 0 the entries are inf or NaN, as in NumPy, without its warning, and with
        gradient 0.

    Raises
    ------
    TypeError
        If `ddof` is not an integer or None, `dtype` is not a floating dtype, fweights are
        not whole numbers or are a Variable that requires grad, or an input is not a
        Variable, a numeric ndarray, a number or a list of numbers.
    ValueError
        If `m` or `y` has more than 2 dimensions, they differ in their number of
        observations, `ddof` is not whole, or a weight array is not 1-d of one weight per
        observation or holds a negative weight.
    ZeroDivisionError
        If the weights sum to 0 (as in NumPy).
    """
    return _covariance(m, y, rowvar, bias, ddof, fweights, aweights, dtype, "cov")


def corrcoef(
    x: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, *, dtype: np.dtype | type | None = None
) -> Variable:
    """Pearson correlation coefficients of the variables in `x` (and `y`), as np.corrcoef:
    cov(x, y) divided by the standard deviations of both variables, clipped to [-1, 1].

    The diagonal is exactly 1 and its gradient exactly 0 (in exact arithmetic c_ii / c_ii;
    NumPy's may be off by a rounding error).  The clip, as NumPy's, changes only values
    that rounding put past +-1, at perfectly correlated variables, where the exact gradient
    is 0 as well (r = +-1 is an extreme): it passes the gradient inside [-1, 1] and gives 0
    outside.  A variable of variance 0 has NaN correlations (as NumPy's 0/0), put in by a
    where, with gradient 0 and no warning; one variable gives 1 (NaN if its variance is 0
    or not finite).

    Parameters
    ----------
    x : ArrayLike
        1-d (one variable) or 2-d: variables by observations.
    y : ArrayLike, optional
        More variables, of the same observations, joined below those of `x`.
    rowvar : bool
        True: each row is a variable; False: each column is one.
    dtype : floating dtype, optional
        The dtype of the result; by default NumPy's, at least float64.

    Returns
    -------
    Variable
        The (k, k) correlation matrix of the k variables (0-d for one variable).

    Raises
    ------
    TypeError
        If `dtype` is not a floating dtype, or an input is not a Variable, a numeric ndarray,
        a number or a list of numbers.
    ValueError
        If `x` or `y` has more than 2 dimensions, or they differ in their number of
        observations.
    """
    c = _covariance(x, y, rowvar, False, None, None, None, dtype, "corrcoef")
    xp = get_array_module(c)
    if c.ndim == 0:                                           # one variable: c / c, a constant
        ones = xp.where(xp.isfinite(c.data) & (c.data != 0), 1, np.nan).astype(c.dtype)
        return _where(True, ones, c)                          # (gradient 0, and a graph to x)
    variances = diagonal(c)
    k, zero = variances.shape[0], variances.data == 0         # variance 0: NaN correlations
    spread = sqrt(_where(zero, 1, variances))
    r = clip(c / reshape(spread, (k, 1)) / reshape(spread, (1, k)), -1, 1)   # c_ij / (s_i s_j)
    ones = xp.eye(k, dtype=bool) & (xp.isfinite(variances.data) & ~zero)[:, None]
    r = _where(ones, 1, r)                                    # the diagonal: 1, gradient 0
    undefined = zero[:, None] | zero[None, :]
    return _where(undefined, np.nan, r) if maybe_any(undefined) else r


__all__ = ["var", "std", "average", "cov", "corrcoef"]
