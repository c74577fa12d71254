"""Many directions in one Taylor pass: a coefficient that carries a leading axis of directions.

Taylor mode along D directions v_1 .. v_D at once gives every Variable the series
x_0 + x_1 t + x_2 t^2 + ... with x_0 shared and each x_k (k >= 1) one array per direction.
`Directions` holds such a coefficient as one array of shape (D, *shape) (`data`), and reads
as a coefficient of `shape` to the ops' Taylor rules: arithmetic, NumPy's ufuncs, `reshape`,
`sum`, `transpose`, indexing, matrix products and solves act on each direction, the leading axis
carried along.  So each rule does one array operation per coefficient for all D directions.

Collapsed (`weights` given): the pass wants only sum_d w_d D^2_{v_d} f, the second
derivatives along the directions summed with weights (the Laplacian: v_d = e_d, w = 1).
Coefficient 2 is then one array of `shape`, summed as it forms: in a second-order rule a
product of two first-order coefficients (the only place two directions meet) is
sum_d w_d a_d b_d, and everything else is linear in coefficient 2 (Dangel et al.,
"collapsed Taylor mode"; the forward Laplacian of Li et al.).

`data` may be a NumPy or device array, or a Variable (a recording pass: every operation
is then a gengrad op, so the derivatives have a graph).  Along an axis where the data has
length 1 and `shape` does not, every direction's coefficient is the same (the seed e_d
of a batch of points): nothing is copied until an operation needs the full size.

An operation this type does not know raises `Unbatched`; the engine then runs that op's
rule once per direction (exact, D times the work), so any rule works.
"""

import numpy as np

from . import backend, memory
from .forwarder import Forwarder, Function
from .variable import Variable


class Unbatched(NotImplementedError):
    """A rule used an operation that Directions cannot carry out for all directions at once."""


def _ndim(value):
    return value.ndim if isinstance(value, Directions) else np.ndim(value)


def _shape(value):
    return value.shape if isinstance(value, Directions) else np.shape(value)


class Directions:
    """Coefficient k >= 1 of D directions: `data` of shape (D, *shape) (length-1 axes broadcast)."""

    __slots__ = ("data", "shape", "weights", "square")
    __array_priority__ = 1000                      # ndarray's operators defer to ours
    _takes_variables = True                        # and a Variable's (variable.py, _deferred)

    def __init__(self, data, shape, weights=None, square=None):
        self.data, self.shape, self.weights = data, tuple(shape), weights
        self.square = square                       # sum_d w_d data_d^2, where already made

    # ----- what a rule reads ---------------------------------------------------------
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def count(self):
        """D, the number of directions."""
        return self.data.shape[0]

    @property
    def _data(self):
        """The array holding the directions (where its device is read: backend.get_array_module)."""
        return self.data._data if isinstance(self.data, Variable) else self.data

    def __repr__(self):
        return f"Directions({self.count} directions of shape {self.shape})"

    def _like(self, data, shape=None):
        return Directions(data, data.shape[1:] if shape is None else shape, self.weights)

    def full(self):
        """The data with every axis at its full length, (D, *shape)."""
        if self.data.shape[1:] == self.shape:
            return self.data
        return np.broadcast_to(self.data, (self.count, *self.shape))

    def lifted(self, ndim):
        """The data with length-1 axes inserted after the direction axis, to `ndim` axes
        besides it: aligned for broadcasting against arrays of up to `ndim` axes."""
        extra = ndim - self.ndim
        if extra == 0:
            return self.data
        return np.reshape(self.data, (self.count,) + (1,) * extra + self.data.shape[1:])

    def __array__(self, dtype=None, copy=None):
        raise Unbatched("a rule turned a coefficient of several directions into one array")

    def __bool__(self):
        raise Unbatched("a rule branched on a coefficient of several directions")

    def __setitem__(self, key, value):
        raise Unbatched("a rule wrote into a coefficient of several directions")

    def __getattr__(self, name):                   # (only for names not found: the rest)
        if name.startswith("_"):
            raise AttributeError(name)
        raise Unbatched(f"{name} of a coefficient of several directions")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d coefficient")
        return self.shape[0]

    # ----- arithmetic: NumPy's ufuncs and the operators ---------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs.get("out") is not None:
            raise Unbatched(f"np.{ufunc.__name__}.{method} on a coefficient of several directions")
        if ufunc is np.matmul:
            return matmul(*inputs)
        return _elementwise(ufunc, inputs, kwargs)

    def __add__(self, other):
        return _elementwise(np.add, (self, other))

    def __radd__(self, other):
        return _elementwise(np.add, (other, self))

    def __sub__(self, other):
        return _elementwise(np.subtract, (self, other))

    def __rsub__(self, other):
        return _elementwise(np.subtract, (other, self))

    def __mul__(self, other):
        return _elementwise(np.multiply, (self, other))

    def __rmul__(self, other):
        return _elementwise(np.multiply, (other, self))

    def __truediv__(self, other):
        return _elementwise(np.divide, (self, other))

    def __rtruediv__(self, other):
        return _elementwise(np.divide, (other, self))

    def __pow__(self, other):
        return _elementwise(np.power, (self, other))

    def __neg__(self):
        data = self.data
        if type(data) is np.ndarray and data.dtype.kind == "f":   # (a large one in the cache)
            return self._like(np.negative(data, out=memory.empty(data.shape, data.dtype)), self.shape)
        return self._like(-data, self.shape)

    def __pos__(self):
        return self

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(other, self)

    # ----- linear maps of the coefficient: each direction's, the axis shifted -------------
    def reshape(self, *shape):
        shape = tuple(shape[0]) if len(shape) == 1 and not isinstance(shape[0], int) else shape
        if -1 in shape:
            known = int(np.prod([n for n in shape if n != -1], dtype=np.int64))
            shape = tuple(self.size // max(known, 1) if n == -1 else n for n in shape)
        return self._like(np.reshape(self.full(), (self.count, *shape)), shape)

    def ravel(self):
        return self.reshape(-1)

    def transpose(self, *axes):
        if not axes or axes == (None,):
            axes = tuple(reversed(range(self.ndim)))
        elif len(axes) == 1 and not isinstance(axes[0], int):
            axes = tuple(axes[0])
        axes = tuple(a % self.ndim for a in axes)
        return self._like(np.transpose(self.data, (0, *(a + 1 for a in axes))),
                          tuple(self.shape[a] for a in axes))

    @property
    def T(self):
        return self.transpose()

    def swapaxes(self, a, b):
        axes = list(range(self.ndim))
        axes[a], axes[b] = axes[b], axes[a]
        return self.transpose(axes)

    def _axes(self, axis):
        if axis is None:
            return tuple(range(1, self.ndim + 1))
        axis = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        return tuple(int(a) % self.ndim + 1 for a in axis)

    def sum(self, axis=None, keepdims=False, dtype=None):
        if dtype is not None:
            raise Unbatched("sum(dtype=...) on a coefficient of several directions")
        return self._like(np.sum(self.full(), axis=self._axes(axis), keepdims=keepdims))

    def mean(self, axis=None, keepdims=False):
        return self._like(np.mean(self.full(), axis=self._axes(axis), keepdims=keepdims))

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, Variable) for k in key):
            raise Unbatched("indexing by a Variable on a coefficient of several directions")
        data = self.full()[(slice(None), *key)]
        moved = _separated(key)                        # NumPy put the arrays' axes first
        return self._like(np.moveaxis(data, moved, 0) if moved else data)

    def repeat(self, repeats, axis=None):
        return _FUNCTIONS["repeat"](self, repeats, axis=axis)

    def trace(self, offset=0, axis1=0, axis2=1):
        return _trace(self, offset, axis1, axis2)

    def cumsum(self, axis=None):
        return _FUNCTIONS["cumsum"](self, axis=axis)

    def astype(self, dtype, copy=True):
        if isinstance(self.data, Variable):
            if np.dtype(dtype) != self.data.dtype:
                raise Unbatched("astype on a recorded coefficient of several directions")
            return self
        return self._like(self.data.astype(dtype, copy=copy), self.shape)

    def copy(self):
        return self._like(self.data.copy() if not isinstance(self.data, Variable) else self.data, self.shape)

    def conj(self):
        return self

    # ----- NumPy's functions ---------------------------------------------------------
    def __array_function__(self, func, types, args, kwargs):
        name = func.__name__
        if func is not getattr(np, name, None):      # np.linalg's, as "linalg.<name>"
            name = f"linalg.{name}" if func is getattr(np.linalg, name, None) else None
        handler = _FUNCTIONS.get(name)
        if handler is None:
            raise Unbatched(f"np.{name or func.__name__} on a coefficient of several directions")
        return handler(*args, **kwargs)


def _weights(*values):
    for v in values:
        if isinstance(v, Directions):
            return v.weights
    return None


def _elementwise(ufunc, inputs, kwargs=None):
    """ufunc(*inputs) for each direction; in a collapsed pass, a product of two directions'
    coefficients is their weighted sum over the directions (an array of the shape)."""
    if kwargs:
        raise Unbatched(f"np.{ufunc.__name__} with keywords on a coefficient of several directions")
    ndim = max(_ndim(x) for x in inputs)
    shape = np.broadcast_shapes(*[_shape(x) for x in inputs])
    several = [x for x in inputs if isinstance(x, Directions)]
    weights = several[0].weights
    if len(several) == 2 and weights is not None and ufunc not in (np.add, np.subtract):
        if ufunc is not np.multiply:                 # (a rule of order 2 forms no other)
            raise Unbatched(f"np.{ufunc.__name__} of two first-order coefficients in a collapsed pass")
        a, b = several
        if a is b and a.square is not None:          # made with the data (`scaled_product`)
            data = contract(a.data, a.data, weights, known=a.square)
        else:
            data = contract(a.lifted(ndim), b.lifted(ndim), weights)
        return data if data.shape == shape else np.broadcast_to(data, shape)
    args = [x.lifted(ndim) if isinstance(x, Directions) else x for x in inputs]
    data = memory.binary(ufunc, *args) if ufunc in _CACHED else ufunc(*args)
    return Directions(data, shape, weights)


_CACHED = (np.add, np.subtract, np.multiply)
"""Ufuncs whose large results come from gengrad's cache (variable/memory.py)."""


def contract(a, b, weights, known=None):
    """sum_d w_d a_d b_d over the leading axis of two aligned arrays (or Variables: then one
    recorded op, Contract); `known`, where given, is a's square, already made."""
    square = a is b
    if isinstance(a, Variable) or isinstance(b, Variable):
        return Function(Contract(weights, known))(a) if square else Function(Contract(weights))(a, b)
    return _contracted(a, b, weights) if known is None else known


def _contracted(a, b, weights):
    w = weights[0] if weights.min() == weights.max() else None   # (host arrays: no sync)
    if type(a) is np.ndarray and type(b) is np.ndarray:
        if w is not None:                            # (einsum with no weights: twice as fast)
            total = np.einsum("i...,i...->...", a, b)
            return total if w == 1 else total * w
        return np.einsum("i,i...,i...->...", weights, a, b)
    if w is None:
        a = a * np.reshape(_on(weights.astype(a.dtype), a), (-1,) + (1,) * (a.ndim - 1))
    total = (a * b).sum(axis=0)
    return total if w is None or w == 1 else total * w


class Contract(Forwarder):
    """sum_d w_d a_d b_d over the leading axis (one input: a's square), as one op: the
    product of two directions' first-order coefficients in a recorded collapsed pass."""

    def __init__(self, weights, known=None):
        self.weights = weights                       # (host, shape (D,))
        self.known = known                           # a's square, made with a (forward's result)

    def forward(self, a, b=None):
        known, self.known = self.known, None
        return _contracted(a, a if b is None else b, self.weights) if known is None else known

    def backward(self, gy):
        from .ops.shape import sum_to
        weights = self.weights
        if weights.min() == weights.max():
            w = float(weights[0])
        else:
            xp = backend.get_array_module(gy)
            w = xp.asarray(weights.astype(gy.dtype)).reshape((-1,) + (1,) * gy.ndim)
        if len(self.inputs) == 1:                    # d(sum_d w_d a_d^2) = 2 w_d a_d gy
            a, = self.inputs
            return sum_to(a * (gy * (2 * w)), a.shape)
        a, b = self.inputs                           # d(sum_d w_d a_d b_d) = w_d b_d gy, w_d a_d gy
        return sum_to(b * (gy * w), a.shape), sum_to(a * (gy * w), b.shape)

    taylor_records = True

    def taylor(self, a, b=None):
        from . import series  # bilinear: a Cauchy product
        return series.mul(a, a if b is None else b, product=lambda p, q: contract(p, q, self.weights))


class Scaled(Directions):
    """Coefficients of several directions times a factor the same for all of them, the
    product not yet made: `raw` (a Directions) times `factor` (an array or Variable of the
    coefficient's shape).  In a collapsed pass this is a pointwise op's first-order
    coefficient h(y_0) x_1 (tanh's (1 - y_0^2) x_1), which the next layer's matrix product
    reads: that product scales its rows a block at a time as it multiplies them
    (`ScaledProduct`), so the scaled coefficients, as large as all directions' together,
    are never written, nor kept for a backward pass.  Anything else reads `data`: the
    product, made the first time."""

    __slots__ = ("raw", "factor", "_made")

    def __init__(self, raw, factor):
        self.raw, self.factor, self._made = raw, factor, None
        self.shape, self.weights, self.square = raw.shape, raw.weights, None

    @property
    def data(self):
        if self._made is None:
            self._made = _elementwise(np.multiply, (self.raw, self.factor)).data
        return self._made

    @property
    def count(self):
        return self.raw.count

    @property
    def dtype(self):
        return np.result_type(self.raw.dtype, self.factor.dtype)

    @property
    def _data(self):
        return self.raw._data

    def __repr__(self):
        return f"Scaled({self.count} directions of shape {self.shape})"

    def times(self, b):
        """self @ b for a matrix b (an array or Variable), made block by block; None where
        the coefficients are not laid out for it (the caller then makes the product)."""
        raw, factor = self.raw.data, self.factor
        n, k = self.shape
        if raw.shape[1:] not in ((n, k), (1, k)) or factor.shape != (n, k):
            return None
        if any(isinstance(v, Variable) for v in (raw, factor, b)):
            op = ScaledProduct(self.weights)
            data = Function(op)(raw, factor, b)
            square, op.square = op.square, None
        elif self.weights is None:
            data, square = scaled_product(raw, factor, b), None
        else:
            data, square = scaled_product(raw, factor, b, self.weights)
        return Directions(data, (n, b.shape[1]), self.weights, square)


def scaled(x, factor):
    """x * factor for first-order coefficients x of several directions and a factor of their
    shape, the same for every direction: left unmade (`Scaled`) for points as rows (2-D),
    where the next matrix product may take it as it is."""
    if (type(x) in (Directions, Scaled) and x.ndim == 2
            and getattr(factor, "shape", None) == x.shape):
        return Scaled(x.raw, x.factor * factor) if type(x) is Scaled else Scaled(x, factor)
    return x * factor


_SCALED_BYTES = 1 << 19
"""Bytes of scaled rows `scaled_product` makes at a time (512 KiB: they stay in a core's
L2 cache between the product that writes them and the matrix product that reads them)."""


def scaled_product(z, s, w, weights=None):
    """(z * s) @ w for z of shape (D, n or 1, k), s (n, k) and w (k, m): for NumPy arrays a
    block of rows at a time, scaled into a small scratch array and multiplied from there.
    With `weights` (D,), also the product's weighted square sum_d w_d ((z s) w)_d^2, formed
    block by block while each is in cache: (product, square)."""
    count, (n, k), m = z.shape[0], s.shape, w.shape[1]
    if not (type(z) is np.ndarray and type(s) is np.ndarray and type(w) is np.ndarray):
        out = ((z * s).reshape(count * n, k) @ w).reshape(count, n, m)   # (a device's arrays)
        return out if weights is None else (out, _contracted(out, out, weights))
    from .ops.matmul import product_into
    dtype = np.result_type(z.dtype, s.dtype, w.dtype)
    out = memory.empty((count, n, m), dtype)
    w = np.ascontiguousarray(w, dtype=dtype)
    rows = max(128, _SCALED_BYTES // (k * dtype.itemsize) // 128 * 128)   # per block
    square = None
    if n <= rows:                                    # whole directions a block
        per = rows // n
        scratch = memory.empty((min(per, count), n, k), dtype)
        if weights is not None:
            square, part_square = np.zeros((n, m), dtype), np.empty((n, m), dtype)
            uniform = weights.min() == weights.max()
            weights = weights.astype(dtype, copy=False)     # (float32 data: float32 sums)
        for lo in range(0, count, per):
            part = scratch[:min(per, count - lo)]
            np.multiply(z[lo:lo + per], s, out=part)
            made = out[lo:lo + per]
            product_into(part.reshape(-1, k), w, made.reshape(-1, m))
            if weights is not None:
                if uniform:
                    np.einsum("i...,i...->...", made, made, out=part_square)
                else:
                    np.einsum("i,i...,i...->...", weights[lo:lo + per], made, made, out=part_square)
                square += part_square
        if weights is not None and uniform and weights[0] != 1:
            square *= weights[0]
        return out if weights is None else (out, square)
    scratch = memory.empty((rows, k), dtype)         # a direction's rows, a block at a time
    for d in range(count):
        for lo in range(0, n, rows):
            part = scratch[:min(rows, n - lo)]
            np.multiply(z[d, lo:lo + rows] if z.shape[1] == n else z[d], s[lo:lo + rows], out=part)
            product_into(part, w, out[d, lo:lo + rows])
    return out if weights is None else (out, _contracted(out, out, weights))


class ScaledProduct(Forwarder):
    """(z * s) @ w, z of shape (D, n or 1, k) (D directions' coefficients), s (n, k) the same
    for every direction, w (k, m): a layer's matrix product of a collapsed pass's scaled
    first-order coefficients (`Scaled`), with z * s never made in full."""

    def __init__(self, weights=None):
        self.weights = weights                       # (host, (D,)): the square is made too
        self.square = None

    def forward(self, z, s, w):
        if self.weights is None:
            return scaled_product(z, s, w)
        out, self.square = scaled_product(z, s, w, self.weights)
        return out

    save_for_backward = {"x0": ("x1", "x2"), "x1": ("x0", "x2"), "x2": ("x0", "x1")}

    def backward(self, gy):
        from .ops.matmul import _mm
        from .ops.shape import reshape, sum_to
        z, s, w = self.inputs
        count, (n, k), m = z.shape[0], s.shape, w.shape[1]
        rows = reshape(gy, (count * n, m))
        gz = gs = gw = None
        if z.requires_grad or s.requires_grad:
            g = reshape(_mm(rows, w, False, True), (count, n, k))   # gy w^T, d/d(z s)
            if z.requires_grad:
                gz = sum_to(g * s, z.shape)                          # g s
            if s.requires_grad:
                gs = Function(Contract(np.ones(count)))(g, z)        # sum_d g_d z_d
        if w.requires_grad:
            gw = _mm(reshape(z * s, (count * n, k)), rows, True, False)   # (z s)^T gy
        return gz, gs, gw

    taylor_records = True

    def taylor(self, z, s, w):
        from . import series  # trilinear: a Cauchy product of z s, then of its product by w
        y, = self.outputs
        return series.mul(series.mul(z, s), w, product=lambda p, q: p @ q, y0=y._data)


def _on(weights, *arrays):
    """The weights where the arrays are (a device's module for device data)."""
    return backend.get_array_module(*arrays).asarray(weights)


def _matmul_shape(sa, sb):
    a, b = (sa if len(sa) > 1 else (1,) + sa), (sb if len(sb) > 1 else sb + (1,))
    if a[-1] != b[-2]:
        raise ValueError(f"matmul: shapes {sa} and {sb} do not align")
    shape = np.broadcast_shapes(a[:-2], b[:-2]) + (a[-2], b[-1])
    if len(sa) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(sb) == 1:
        shape = shape[:-1]
    return shape


def matmul(a, b):
    """a @ b for each direction (a 1-D operand is a row or a column, as in NumPy)."""
    da, db = isinstance(a, Directions), isinstance(b, Directions)
    if type(a) is Scaled and not db and _ndim(b) == 2:   # the next layer's product: fused
        fused = a.times(b)
        if fused is not None:
            return fused
    sa, sb = _shape(a), _shape(b)
    shape = _matmul_shape(sa, sb)
    weights = _weights(a, b)
    if db and not da and len(sa) == 2 and len(sb) == 1:   # A v_d for every d: (v_d)_d A^T, one
        rows = b.full() if b.data.shape[-1] != sb[0] else b.data   # matrix product
        return Directions(np.matmul(rows, np.transpose(a)), shape, weights)
    xa = _promoted(a, -2) if len(sa) == 1 else a
    xb = _promoted(b, -1) if len(sb) == 1 else b
    ndim = max(_ndim(xa), _ndim(xb))
    if da and xa.data.shape[-1] != xa.shape[-1]:   # the summed axis at its full length
        xa = xa._like(xa.full(), xa.shape)
    if db and xb.data.shape[-2] != xb.shape[-2]:
        xb = xb._like(xb.full(), xb.shape)
    pa = xa.lifted(ndim) if da else xa
    pb = xb.lifted(ndim) if db else xb
    if da and db and weights is not None:          # two first-order coefficients, collapsed
        w = np.reshape(_on(weights, pa, pb), (-1,) + (1,) * ndim)
        data = np.sum(np.matmul(pa * w, pb), axis=0)
        return np.reshape(data, shape) if data.shape != shape else data
    if da and not db and np.ndim(pb) == 2:         # one matrix product over every row of all
        from .ops.matmul import product
        rows = np.reshape(pa, (int(np.prod(pa.shape[:-1])), pa.shape[-1]))   # directions (and so
        #                                            its gradients, two more matrix products)
        data = np.reshape(product(rows, pb), pa.shape[:-1] + (pb.shape[-1],))   # (Variables: @)
    else:
        data = np.matmul(pa, pb)
    if len(sa) == 1:
        data = np.squeeze(data, axis=-2)
    if len(sb) == 1:
        data = np.squeeze(data, axis=-1)
    return Directions(data, shape, weights)


def _promoted(x, axis):
    return _expand_dims(x, axis) if isinstance(x, Directions) else np.expand_dims(x, axis)


# ----- NumPy functions a rule may call on a coefficient of several directions -----------------
def _broadcast_to(x, shape, subok=False):
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if np.broadcast_shapes(x.shape, shape) != shape:
        raise ValueError(f"broadcast_to: a coefficient of shape {x.shape} does not broadcast to {shape}")
    return Directions(x.lifted(len(shape)), shape, x.weights)   # (length-1 axes stay lazy)


def _where(condition, a, b):
    if isinstance(condition, Directions):
        _refuse("where with a condition")
    ndim = max(np.ndim(condition), _ndim(a), _ndim(b))
    shape = np.broadcast_shapes(np.shape(condition), _shape(a), _shape(b))
    data = np.where(condition, *[x.lifted(ndim) if isinstance(x, Directions) else x for x in (a, b)])
    return Directions(data, shape, _weights(a, b))


def _refuse(name):
    raise Unbatched(f"np.{name} on a coefficient of several directions")


def _sum(x, axis=None, keepdims=False, **kwargs):
    return x.sum(axis=axis, keepdims=keepdims, **kwargs)


def _mean(x, axis=None, keepdims=False):
    return x.mean(axis=axis, keepdims=keepdims)


def _expand_dims(x, axis):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = x.ndim + len(axes)
    axes = tuple(sorted(a % ndim for a in axes))
    shape, data_shape = list(x.shape), list(x.data.shape)
    for a in axes:
        shape.insert(a, 1)
        data_shape.insert(a + 1, 1)
    return x._like(np.reshape(x.data, data_shape), tuple(shape))   # (a reshape: Variables too)


def _squeeze(x, axis=None):
    if axis is None:
        axes = tuple(i for i, n in enumerate(x.shape) if n == 1)
    else:
        axes = tuple(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis))
    shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    return x._like(np.squeeze(x.full(), axis=tuple(a + 1 for a in axes)), shape)


def _moveaxis(x, source, destination):
    order = [a for a in range(x.ndim)]
    source = [s % x.ndim for s in ((source,) if isinstance(source, int) else source)]
    destination = [d % x.ndim for d in ((destination,) if isinstance(destination, int) else destination)]
    rest = [a for a in order if a not in source]
    for d, s in sorted(zip(destination, source)):
        rest.insert(d, s)
    return x.transpose(rest)


def _zeros_like(x, dtype=None):
    """Zeros of the coefficient's shape: the same for every direction."""
    return backend.get_array_module(x._data).zeros(x.shape, dtype=dtype or x.dtype)


def _axis(x, axis, name, ndim=None):
    """Axis (or axes) `axis` of the coefficient as an axis of its data (after the directions')."""
    ndim = x.ndim if ndim is None else ndim
    if axis is None:
        _refuse(f"{name} with axis=None")
    if isinstance(axis, (int, np.integer)):
        return int(axis) % ndim + 1
    return tuple(int(a) % ndim + 1 for a in axis)


def _along(name, function, *where):
    """A NumPy function of one array and an axis keyword (cumsum, diff, roll, repeat, flip,
    split ...), run on the directions' data with the axis shifted past theirs."""
    def handler(x, *args, axis=_NO_AXIS, **kwargs):
        if axis is _NO_AXIS:                         # the axis given by position
            args = list(args)
            position = where[0]
            if len(args) <= position:
                return _refuse(f"{name} without an axis")
            axis = args.pop(position)
        result = function(x.full(), *args, axis=_axis(x, axis, name), **kwargs)
        if isinstance(result, list):                 # (split)
            return [x._like(r) for r in result]
        return x._like(result)
    return handler


_NO_AXIS = object()


def _roll(x, shift, axis=None):
    """np.roll of each direction's coefficient; with axis=None, of its flattened entries."""
    if axis is None:                                 # (the directions' axis kept apart)
        flat = np.reshape(x.full(), (x.count, x.size))
        return x._like(np.reshape(np.roll(flat, shift, axis=1), (x.count, *x.shape)), x.shape)
    return x._like(np.roll(x.full(), shift, axis=_axis(x, axis, "roll")))


def _vdot(a, b):
    """np.vdot of real operands, one or both of several directions: a product of the flattened
    coefficients (in a collapsed pass, two directions' summed with the weights)."""
    return matmul(np.reshape(a, (-1,)), np.reshape(b, (-1,)))


def _solve(a, b):
    """np.linalg.solve(a, b) with b of several directions and a the same for all: their axis
    joins b's columns, so one factorization of each matrix of a serves every direction."""
    if isinstance(a, Directions):
        return _refuse("linalg.solve with a matrix of several directions")
    if b.ndim == 1:                                  # a vector (NumPy 2): a column
        return _squeeze(_solve(a, _expand_dims(b, -1)), -1)
    count, batch, k = b.count, b.shape[:-2], b.shape[-1]
    lead = max(len(batch), np.ndim(a) - 2)           # b's batch padded to a's: no vector reading
    data = np.reshape(b.full(), (count,) + (1,) * (lead - len(batch)) + b.shape)
    columns = np.transpose(data, (*range(1, lead + 2), 0, lead + 2))   # (..., M, D, K)
    solved = np.linalg.solve(a, np.reshape(columns, columns.shape[:-2] + (count * k,)))
    solved = np.reshape(solved, solved.shape[:-1] + (count, k))
    n = solved.ndim
    return b._like(np.transpose(solved, (n - 2, *range(n - 2), n - 1)))   # (D, ..., M, K)


def _tile(x, reps):
    reps = (int(reps),) if isinstance(reps, (int, np.integer)) else tuple(reps)
    ndim = max(x.ndim, len(reps))                    # np.tile promotes the array or the reps
    reps = (1,) * (ndim - len(reps)) + reps
    data = np.broadcast_to(x.lifted(ndim), (x.count, *((1,) * (ndim - x.ndim)), *x.shape))
    return x._like(np.tile(data, (1, *reps)))


def _pad(x, pad_width, mode="constant", **kwargs):
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (x.ndim, 2))
    return x._like(np.pad(x.full(), [(0, 0), *map(tuple, widths.tolist())], mode=mode, **kwargs))


def _take_along_axis(x, indices, axis):
    if isinstance(indices, Directions):
        return _refuse("take_along_axis by directions")
    data = np.take_along_axis(x.full(), np.expand_dims(indices, 0), axis=_axis(x, axis, "take_along_axis"))
    return x._like(data)


def _trace(x, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if dtype is not None or out is not None:
        return _refuse("trace with dtype or out")
    return x._like(np.trace(x.full(), offset, _axis(x, axis1, "trace"), _axis(x, axis2, "trace")))


def _rot90(x, k=1, axes=(0, 1)):
    return x._like(np.rot90(x.full(), k, _axis(x, tuple(axes), "rot90")))


def _flip(x, axis=None):
    return x._like(np.flip(x.full(), _axis(x, tuple(range(x.ndim)) if axis is None else axis, "flip")))


def _einsum(subscripts, *operands, optimize=False):
    """np.einsum on explicit subscripts ('ij,jk->ik', '...ij,...ji->...'), a new label for the
    directions' axis in front of each operand that has it and of the output; two such operands
    in a collapsed pass are contracted over it, weighted (one more operand, the weights)."""
    if not isinstance(subscripts, str) or "->" not in subscripts:
        return _refuse("einsum without explicit subscripts")
    terms, out = subscripts.replace(" ", "").split("->")
    terms = terms.split(",")
    label = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in subscripts)
    found = [o for o in operands if isinstance(o, Directions)]
    datas = [o.full() if isinstance(o, Directions) else o for o in operands]
    labelled = [label + t if isinstance(o, Directions) else t for t, o in zip(terms, operands)]
    weights = found[0].weights
    if len(found) > 1 and weights is not None:       # a product of first-order coefficients
        if len(found) > 2:
            return _refuse("einsum of three coefficients of several directions")
        w = _on(weights.astype(found[0].dtype), *[o.data for o in found])
        return np.einsum(f"{label},{','.join(labelled)}->{out}", w, *datas, optimize=optimize)
    data = np.einsum(f"{','.join(labelled)}->{label}{out}", *datas, optimize=optimize)
    return Directions(data, data.shape[1:], weights)


def _joined(join, arrays, axis, new):
    """np.concatenate / np.stack of coefficients, some of several directions: each joined
    per direction (a plain one is the same for every direction)."""
    found = next(a for a in arrays if isinstance(a, Directions))
    if axis is None:
        _refuse(join.__name__ + " with axis=None")
    ndim = found.ndim + new
    datas = [a.full() if isinstance(a, Directions) else np.broadcast_to(a, (found.count, *np.shape(a)))
             for a in arrays]
    data = join(datas, axis=int(axis) % ndim + 1)
    return Directions(data, data.shape[1:], found.weights)


_FUNCTIONS = {
    "einsum": _einsum,
    "cumsum": _along("cumsum", np.cumsum, 0), "diff": _along("diff", np.diff, 1),
    "roll": _roll, "repeat": _along("repeat", np.repeat, 1),
    "split": _along("split", np.split, 1), "tile": _tile, "pad": _pad,
    "take_along_axis": _take_along_axis, "trace": _trace, "rot90": _rot90, "flip": _flip,
    "concatenate": lambda arrays, axis=0: _joined(np.concatenate, arrays, axis, 0),
    "stack": lambda arrays, axis=0: _joined(np.stack, arrays, axis, 1),
    "broadcast_to": _broadcast_to, "where": _where, "sum": _sum, "mean": _mean,
    "reshape": lambda x, shape: x.reshape(shape), "transpose": lambda x, axes=None: x.transpose(axes),
    "swapaxes": lambda x, a, b: x.swapaxes(a, b), "moveaxis": _moveaxis, "expand_dims": _expand_dims,
    "squeeze": _squeeze, "ravel": lambda x: x.ravel(), "zeros_like": _zeros_like,
    "vdot": _vdot, "linalg.solve": _solve,
}


def shifted(index):
    """`index` for data with the directions' axis in front, or None where NumPy would move
    that axis (index arrays separated by a slice: see `_separated`)."""
    key = index if isinstance(index, tuple) else (index,)
    return None if _separated(key) else (slice(None), *key)


def _separated(key):
    """For index arrays separated by a slice, None or Ellipsis (integers count among them
    next to an array, as NumPy counts them), the number of axes their broadcast shape
    has, which NumPy puts first, before the axis in front; else 0."""
    def array(k):
        return isinstance(k, (bool, np.bool_)) or not (
            k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer)))
    if not any(array(k) for k in key):
        return 0                                     # (integers alone: basic indexing)
    advanced = [i for i, k in enumerate(key) if not (k is None or k is Ellipsis or isinstance(k, slice))]
    if advanced[-1] - advanced[0] + 1 == len(advanced):
        return 0
    return max(1 if _kind(key[i]) == "b" else np.ndim(key[i]) for i in advanced)


def _kind(k):
    """The dtype kind of an index (a device array's read from its dtype, never converted)."""
    dtype = getattr(k, "dtype", None)
    return (np.asarray(k).dtype if dtype is None else dtype).kind


def at(value, d):
    """Direction d's coefficient (an array of the shape; a plain coefficient as it is)."""
    if not isinstance(value, Directions):
        return value
    data = value.data[d]
    return data if value.data.shape[1:] == value.shape else np.broadcast_to(data, value.shape)


def stacked(values, shape, weights=None):
    """One Directions from each direction's coefficient (arrays or Variables of `shape`)."""
    return Directions(np.stack([np.broadcast_to(v, shape) for v in values]), shape, weights)
