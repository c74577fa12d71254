"""HIPS autograd's public API answered by gengrad, to run autograd's own tests against gengrad.

`python tests/conformance/run_hips_autograd.py AUTOGRAD_TESTS` imports this module as
`autograd` (and `autograd.core`, `autograd.test_util`, ...), NumPy as `autograd.numpy`
and SciPy as `autograd.scipy`: NumPy's and SciPy's functions on a Variable record
gengrad's ops, so autograd's tests run unedited on gengrad.  Nothing here computes a
derivative itself: `grad`, `jacobian`, `make_vjp` and `make_jvp` are V.grad, V.jacobian
and V.jvp, and `check_grads` compares them with central differences as autograd's does,
written anew (the same step and tolerances: 1e-6, 1e-6 absolute or relative).

How autograd's semantics map onto gengrad's:
- Inside a derivative being taken (a trace), results are Variables recorded with
  create_graph=True; outside, plain arrays (a Python float argument gives a float).
- An argument already a Variable (of an outer trace) enters an inner one through a
  recorded copy (V.positive), so the inner derivative does not see the outer use of the
  same value (`grad(lambda y: grad(lambda x: x * y)(y))` is 1, not 2).
- check_grads's forward mode checks V.jvp at order 1, and its higher orders by reverse
  mode through the jvp (gengrad refuses forward over forward; V.taylor gives one pass of
  any order instead).
- What gengrad has no counterpart for (vspaces, traced containers, holomorphic_grad,
  checkpoint's recomputation) raises NotImplementedError("autograd-on-gengrad: ...").
"""

import builtins as _builtins
import functools
import itertools
import warnings
from contextlib import contextmanager

import numpy as np

import variable as V
from variable import Variable

TOL = 1e-6       # autograd's test_util: |a - b| < TOL or |a - b| / |a + b| < RTOL
RTOL = 1e-6
EPS = 1e-6       # the central difference's step

_traces = [0]    # how many derivatives are being taken around this call


@contextmanager
def _tracing():
    _traces[0] += 1
    try:
        yield
    finally:
        _traces[0] -= 1


def _missing(what):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"autograd-on-gengrad: {what} has no gengrad counterpart")
    refuse.__name__ = what
    return refuse


# ----- values: Variables inside a trace, arrays outside ---------------------------------
def _is_sequence(x):
    return isinstance(x, (_builtins.tuple, _builtins.list))


def _leaf(x):
    """x as the Variable to differentiate by: a new leaf, or a copy of an outer one."""
    if isinstance(x, Variable):
        return V.positive(x)
    if _is_sequence(x):
        return _builtins.tuple(_leaf(e) for e in x)
    return V.Variable(np.array(x, dtype=float) if np.asarray(x).dtype.kind in "iub" else np.array(x))


def _plain(value, like=None):
    """A result as autograd hands it out of every trace: arrays, a float for a float."""
    if isinstance(value, Variable):
        value = value.data
    if _is_sequence(value):
        likes = like if _is_sequence(like) else [like] * len(value)
        return type(value)(_plain(v, e) for v, e in zip(value, likes))
    if isinstance(like, (float, int)) and not isinstance(like, bool) and np.ndim(value) == 0:
        return float(value)
    return value


def _out(value, like=None):
    return value if _traces[0] else _plain(value, like)


def _flat(value):
    """The Variables or arrays of a (nested) tuple of outputs, in order."""
    if _is_sequence(value):
        return [leaf for v in value for leaf in _flat(v)]
    return [value]


def _zeros_like(x):
    if _is_sequence(x):
        return _builtins.tuple(_zeros_like(e) for e in x)
    return np.zeros(np.shape(x.data if isinstance(x, Variable) else x))


def _as_tuple(x):
    return x if _is_sequence(x) else (x,)


def _rebuild(like, values):
    """`values` (an iterator over the leaves) in the nesting of `like`."""
    if _is_sequence(like):
        return _builtins.tuple(_rebuild(e, values) for e in like)
    return next(values)


def _differentiable(y):
    """An output autograd can differentiate: a float (array) or a Variable; a bool is not."""
    if not isinstance(y, Variable) and np.asarray(y).dtype.kind not in "fiuc":
        raise TypeError(f"Can't differentiate w.r.t. type {type(y).__name__}")
    return y


def _pullback(ans, xv, g):
    """sum over outputs of <g, d ans / d x>: V.grad with grad_outputs, recorded in a trace;
    zeros where ans does not depend on x (autograd warns there)."""
    ys, gs = _flat(ans), _flat(g)
    pairs = [(y, gy) for y, gy in zip(ys, gs) if isinstance(y, Variable) and y.requires_grad]
    xs = _flat(xv)
    if not pairs:
        warnings.warn("Output seems independent of input.", stacklevel=3)
        grads = [_zeros_like(x) for x in xs]
    else:
        grads = V.grad([y for y, _ in pairs], xs,
                       grad_outputs=[gy if isinstance(gy, Variable) else np.asarray(gy, dtype=y.dtype)
                                     * np.ones(y.shape, dtype=y.dtype) for y, gy in pairs],
                       create_graph=_traces[0] > 0, materialize_grads=True)
        grads = list(_as_tuple(grads))
    return _rebuild(xv, iter(grads))


def _as_output(y):
    """f's result as V.jvp takes it: a constant (not depending on x) becomes a Variable."""
    if _is_sequence(y):
        return _builtins.tuple(_as_output(e) for e in y)
    return y if isinstance(y, Variable) else V.Variable(np.asarray(_differentiable(y)), requires_grad=False)


def _vjp(fun, x):
    xv = _leaf(x)
    with _tracing():
        ans = fun(xv)

    def vjp(g):
        return _out(_pullback(ans, xv, g), x)
    return vjp, ans


def _jvp(fun, x):
    def jvp(v):
        xv = _leaf(x)
        leaves = _flat(xv)

        shape = []                       # the nesting of f's outputs (V.jvp takes a flat tuple)

        def flat_fun(*xs):
            ys = _as_output(fun(_rebuild(xv, iter(xs))))
            shape.append(ys)
            return _builtins.tuple(_flat(ys)) if _is_sequence(ys) else ys
        with _tracing():
            ans, tangent = V.jvp(flat_fun, _builtins.tuple(leaves), _builtins.tuple(_flat(v)))
        if _is_sequence(shape[0]):
            ans, tangent = _rebuild(shape[0], iter(ans)), _rebuild(shape[0], iter(tangent))
        return _out(ans), _out(tangent)
    return jvp


# ----- autograd.wrap_util and the differential operators --------------------------------
def unary_to_nary(unary_operator):
    """An operator on f(x) made an operator on f(*args) in argument `argnum` (or a tuple)."""
    @functools.wraps(unary_operator)
    def nary_operator(fun, argnum=0, *op_args, **op_kwargs):
        @functools.wraps(fun)
        def nary_f(*args, **kwargs):
            def unary_f(x):
                new = list(args)
                if isinstance(argnum, int):
                    new[argnum] = x
                else:
                    for i, xi in zip(argnum, x):
                        new[i] = xi
                return fun(*new, **kwargs)
            x = args[argnum] if isinstance(argnum, int) else _builtins.tuple(args[i] for i in argnum)
            return unary_operator(unary_f, x, *op_args, **op_kwargs)
        return nary_f
    return nary_operator


def get_name(f):
    return getattr(f, "__name__", "[unknown name]")


def _size(ans):
    return sum(int(np.size(a.data if isinstance(a, Variable) else a)) for a in _flat(ans))


@unary_to_nary
def make_vjp(fun, x):
    vjp, ans = _vjp(fun, x)
    return vjp, _out(ans)


@unary_to_nary
def make_jvp(fun, x):
    return _jvp(fun, x)


@unary_to_nary
def grad(fun, x):
    vjp, ans = _vjp(fun, x)
    if _size(_differentiable(ans)) != 1:
        raise TypeError("Grad only applies to real scalar-output functions. Try jacobian, "
                        "elementwise_grad or holomorphic_grad.")
    return vjp(np.ones(()))


@unary_to_nary
def elementwise_grad(fun, x):
    vjp, ans = _vjp(fun, x)
    return vjp(_builtins.tuple(np.ones(np.shape(a.data if isinstance(a, Variable) else a))
                               for a in _flat(ans)) if _is_sequence(ans) else np.ones(np.shape(ans)))


@unary_to_nary
def deriv(fun, x):
    return _jvp(fun, x)(np.ones(np.shape(x)))[1]


@unary_to_nary
def jacobian(fun, x):
    if _is_sequence(x):
        raise NotImplementedError("autograd-on-gengrad: jacobian in a tuple argument")
    xv = _leaf(x)
    with _tracing():
        j = V.jacobian(fun, xv, create_graph=True)
    return _out(j)


@unary_to_nary
def hessian(fun, x):
    return jacobian(jacobian(fun))(x)


@unary_to_nary
def value_and_grad(fun, x):
    vjp, ans = _vjp(fun, x)
    if _size(_differentiable(ans)) != 1:
        raise TypeError("value_and_grad only applies to real scalar-output functions.")
    return _out(ans), vjp(np.ones(()))


@unary_to_nary
def grad_and_aux(fun, x):
    aux = []

    def first(xv):
        ans, a = fun(xv)
        aux.append(a)
        return ans
    g = grad(first)(x)
    return g, _out(aux[0])


@unary_to_nary
def make_hvp(fun, x):
    return _vjp(grad(fun), x)[0], _out(grad(fun)(x))


def hessian_tensor_product(fun, argnum=0):
    fun_grad = grad(fun, argnum)

    def vector_dot_grad(*args, **kwargs):
        args, vector = args[:-1], args[-1]
        return np.tensordot(fun_grad(*args, **kwargs), vector, np.ndim(vector))
    return grad(vector_dot_grad, argnum)


hessian_vector_product = hessian_tensor_product


def tensor_jacobian_product(fun, argnum=0):
    def vector_dot_fun(*args, **kwargs):
        args, vector = args[:-1], args[-1]
        return np.tensordot(vector, fun(*args, **kwargs), axes=np.ndim(vector))
    return jacobian(vector_dot_fun, argnum)


vector_jacobian_product = tensor_jacobian_product


def make_ggnvp(f, g=lambda x: 0.5 * np.sum(x ** 2, axis=-1), f_argnum=0):
    @unary_to_nary
    def _make_ggnvp(f, x):
        f_vjp, f_x = _vjp(f, x)
        g_hvp, _ = _vjp(grad(g), _out(f_x))
        f_jvp = _jvp(f, x)

        def ggnvp(v):
            return f_vjp(g_hvp(f_jvp(v)[1]))
        return ggnvp
    return _make_ggnvp(f, f_argnum)


def checkpoint(fun):
    return fun     # autograd recomputes fun's forward pass in backward: the same numbers


holomorphic_grad = _missing("holomorphic_grad (complex derivatives)")
grad_named = _missing("grad_named")
multigrad_dict = _missing("multigrad_dict")
vspace = _missing("vspace")
primitive_vjps = {}


# ----- autograd.extend: primitives with their own vjps, as Forwarders ------------------
class _Primitive(V.Forwarder):
    taylor_records = False

    def __init__(self, wrapper, args, kwargs, positions):
        self.wrapper, self.args, self.kwargs, self.positions = wrapper, args, kwargs, positions

    def _fill(self, values):
        args = list(self.args)
        for i, value in zip(self.positions, values):
            args[i] = value
        return args

    def forward(self, *arrays):
        return self.wrapper.fun(*self._fill(arrays), **self.kwargs)

    def backward(self, gy):
        args = self._fill(self.inputs)
        ans = self.outputs[0]
        grads = []
        for i in self.positions:
            maker = self.wrapper.vjps.get(i)
            if maker is None:
                raise NotImplementedError(f"autograd-on-gengrad: no vjp of {get_name(self.wrapper.fun)} "
                                          f"in argument {i}")
            grads.append(maker(ans, *args, **self.kwargs)(gy))
        return _builtins.tuple(grads)


class primitive:
    """autograd.extend.primitive: fun on arrays, its vjps given by defvjp."""

    def __init__(self, fun):
        self.fun, self.vjps = fun, {}
        functools.update_wrapper(self, fun)

    def __call__(self, *args, **kwargs):
        positions = [i for i, a in enumerate(args) if isinstance(a, Variable)]
        if not positions:
            return self.fun(*args, **kwargs)
        return V.Function(_Primitive(self, args, kwargs, positions))(*(args[i] for i in positions))


def defvjp(fun, *makers, argnums=None):
    for i, maker in zip(argnums if argnums is not None else itertools.count(), makers):
        if maker is not None:
            fun.vjps[i] = maker


def defvjp_argnum(fun, maker):
    raise NotImplementedError("autograd-on-gengrad: defvjp_argnum")


defjvp = _missing("defjvp (forward rules of a primitive)")


def isbox(x):
    return isinstance(x, Variable)


# ----- autograd.test_util -------------------------------------------------------------
def scalar_close(a, b):
    return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


def _randn_like(x):
    if _is_sequence(x):
        return _builtins.tuple(_randn_like(e) for e in x)
    return np.random.randn(*np.shape(x.data if isinstance(x, Variable) else x))


def _inner(a, b):
    return sum(float(np.sum(np.asarray(_plain(u), dtype=float) * np.asarray(_plain(w), dtype=float)))
               for u, w in zip(_flat(a), _flat(b)))


def _shift(x, v, step):
    if _is_sequence(x):
        return _builtins.tuple(_shift(xi, vi, step) for xi, vi in zip(x, v))
    return x + step * v


def _numerical_jvp(f, x):
    def jvp(v):
        plus = _flat(_plain(f(_shift(x, v, EPS / 2))))
        minus = _flat(_plain(f(_shift(x, v, -EPS / 2))))
        return [(np.asarray(p, dtype=float) - np.asarray(m, dtype=float)) / EPS for p, m in zip(plus, minus)]
    return jvp


def _shape_of(ans):
    return _builtins.tuple(np.zeros(np.shape(_plain(a))) for a in _flat(ans))


def check_vjp(f, x):
    vjp, ans = _vjp(f, x)
    x_v, y_v = _randn_like(x), _randn_like(_shape_of(ans))
    exact = _inner(x_v, vjp(y_v if _is_sequence(ans) else y_v[0]))
    numeric = _inner(y_v, _numerical_jvp(f, x)(x_v))
    assert scalar_close(numeric, exact), (
        f"Derivative (VJP) check of {get_name(f)} failed with arg {x}:\nanalytic: {exact}\n"
        f"numeric:  {numeric}")


def check_jvp(f, x):
    v = _randn_like(x)
    check_equivalent(_jvp(f, x)(v)[1], _numerical_jvp(f, x)(v))


def check_equivalent(x, y):
    xs, ys = [_plain(a) for a in _flat(x)], [_plain(b) for b in _flat(y)]
    assert [np.shape(a) for a in xs] == [np.shape(b) for b in ys], f"Shape mismatch:\nx: {x}\ny: {y}"
    v = [np.random.randn(*np.shape(a)) for a in xs]
    assert scalar_close(_inner(xs, v), _inner(ys, v)), f"Value mismatch:\nx: {x}\ny: {y}"


@unary_to_nary
def check_grads(f, x, modes=None, order=2):
    modes = ["fwd", "rev"] if modes is None else modes
    assert all(m in ("fwd", "rev") for m in modes)
    if "fwd" in modes:
        check_jvp(f, x)
        if order > 1:           # reverse mode through the jvp (no forward over forward)
            def jvp_f(x, v):
                return _jvp(f, x)(v)[1]
            jvp_f.__name__ = f"jvp_{get_name(f)}"
            check_grads(jvp_f, (0, 1), ["rev"], order=order - 1)(x, _randn_like(x))
    if "rev" in modes:
        check_vjp(f, x)
        if order > 1:
            def vjp_f(x, v):
                return _vjp(f, x)[0](v)
            vjp_f.__name__ = f"vjp_{get_name(f)}"
            ans = f(x)
            v = _randn_like(_shape_of(ans))
            check_grads(vjp_f, (0, 1), modes, order=order - 1)(x, v if _is_sequence(ans) else v[0])


COMPLEX_SKIPPED = [0]   # combo_check's cases with a complex argument (gengrad's Variables are real)


def combo_check(fun, *args, **kwargs):
    def _combo_check(*value_lists, **kwarg_lists):
        pairs = [[(k, x) for x in xs] for k, xs in kwarg_lists.items()]
        for values in itertools.product(*value_lists):
            if any(np.iscomplexobj(leaf) for leaf in _flat(values)):
                COMPLEX_SKIPPED[0] += 1
                continue
            for chosen in itertools.product(*pairs):
                check_grads(fun, *args, **kwargs)(*values, **dict(chosen))
    return _combo_check


def quick_grad_check(fun, arg0, extra_args=(), kwargs=None, verbose=True, eps=EPS, rtol=RTOL, atol=TOL,
                     rs=None):
    warnings.warn("quick_grad_check is deprecated; use check_grads", stacklevel=2)
    check_grads(lambda x: fun(x, *extra_args, **(kwargs or {})), modes=["rev"], order=1)(arg0)


# autograd.builtins: its traced containers are gengrad's plain ones (tuples of Variables)
tuple, list, dict, isinstance, type = (_builtins.tuple, _builtins.list, _builtins.dict,
                                       _builtins.isinstance, _builtins.type)


class _Overlay:
    """A submodule that is this module with some names of its own."""

    def __init__(self, **names):
        self.__dict__.update(names)

    def __getattr__(self, attr):
        try:
            return globals()[attr]
        except KeyError:
            raise AttributeError(attr) from None


def _unary_make_vjp(fun, x):
    vjp, ans = _vjp(fun, x)
    return vjp, _out(ans)


# autograd.core (and autograd.tracer) spell make_vjp and make_jvp on f(x) alone
SUBMODULES = {"core": _Overlay(make_vjp=_unary_make_vjp, make_jvp=_jvp),
              "tracer": _Overlay(make_vjp=_unary_make_vjp, make_jvp=_jvp)}
