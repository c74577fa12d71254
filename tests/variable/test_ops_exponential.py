"""Exponential/logarithmic ops (exponential.py) and inverse trigonometric ops, hypot, sinc and
the angle conversions (inverse_trig.py): the table rows, then the special points.

Smooth ops are checked to third order and in Taylor mode to sixth, at points inside their
domains: arcsin/arccos/arctanh at |x| < 0.8, arccosh at x > 1.2, logarithms at x > 0.
sinc is checked at and around its removable singularity x = 0, hypot and arctan2 at the
origin, where their gradient is taken as 0 (PyTorch's subgradient).
"""

import math
import re
from decimal import Decimal, localcontext

import numpy as np
import pytest
from op_rows import (
    SMOOTH,
    UNARY_SHAPES,
    Row,
    binary_rows,
    nonzero,
    normal,
    positive,
    table_tests,
    unary_rows,
    with_zeros,
)

import variable as V
from variable.ops.inverse_trig import _sinc_family


def interval(lo, hi):
    """Sampler of points uniform in [lo, hi], one array per shape."""
    return lambda *shapes: lambda rng: tuple(rng.uniform(lo, hi, s) for s in shapes)


def zeros(*shapes):
    """Every entry exactly 0."""
    return lambda rng: tuple(np.zeros(s) for s in shapes)


def sinc_rows():
    """sinc at ordinary points, at points holding exact zeros, at 0 alone, and far enough out
    that its derivatives' helpers take their closed forms as well as their power series."""
    rows = unary_rows(V.sinc, np.sinc, normal, SMOOTH)
    rows += [Row(f"with zeros, {s}", V.sinc, np.sinc, with_zeros(s), SMOOTH) for s in UNARY_SHAPES]
    rows.append(Row("all zeros, (2, 3)", V.sinc, np.sinc, zeros((2, 3)), SMOOTH))
    rows.append(Row("wide, (2, 3)", V.sinc, np.sinc, interval(-4.0, 4.0)((2, 3)), SMOOTH))
    return rows


def hypot_rows():
    """hypot at ordinary points, and where one operand is 0 but not both (smooth there)."""
    mixed = lambda rng: (with_zeros((2, 3))(rng)[0], nonzero((2, 3))(rng)[0])   # noqa: E731
    return binary_rows(V.hypot, np.hypot, normal, SMOOTH) + [
        Row("x1 with zeros, x2 != 0", V.hypot, np.hypot, mixed, SMOOTH),
        Row("x2 with zeros, x1 != 0", V.hypot, np.hypot, lambda rng: mixed(rng)[::-1], SMOOTH),
    ]


INSIDE_UNIT = interval(-0.8, 0.8)

ROWS = {
    # exponential.py
    "log1p": unary_rows(V.log1p, np.log1p, interval(-0.5, 2.0), SMOOTH),
    "expm1": unary_rows(V.expm1, np.expm1, normal, SMOOTH),
    "log2": unary_rows(V.log2, np.log2, positive, SMOOTH),
    "log10": unary_rows(V.log10, np.log10, positive, SMOOTH),
    "exp2": unary_rows(V.exp2, np.exp2, normal, SMOOTH),
    "logaddexp": binary_rows(V.logaddexp, np.logaddexp, normal, SMOOTH),
    "logaddexp2": binary_rows(V.logaddexp2, np.logaddexp2, normal, SMOOTH),
    "reciprocal": unary_rows(V.reciprocal, np.reciprocal, nonzero, SMOOTH),
    # inverse_trig.py
    "arcsin": unary_rows(V.arcsin, np.arcsin, INSIDE_UNIT, SMOOTH),
    "arccos": unary_rows(V.arccos, np.arccos, INSIDE_UNIT, SMOOTH),
    "arctan": unary_rows(V.arctan, np.arctan, normal, SMOOTH),
    "arctan2": binary_rows(V.arctan2, np.arctan2, nonzero, SMOOTH),   # away from the cut at x1 = 0
    "arcsinh": unary_rows(V.arcsinh, np.arcsinh, normal, SMOOTH),
    "arccosh": unary_rows(V.arccosh, np.arccosh, interval(1.2, 2.5), SMOOTH),
    "arctanh": unary_rows(V.arctanh, np.arctanh, INSIDE_UNIT, SMOOTH),
    "hypot": hypot_rows(),
    "sinc": sinc_rows(),
    "deg2rad": unary_rows(V.deg2rad, np.deg2rad, normal, SMOOTH),
    "rad2deg": unary_rows(V.rad2deg, np.rad2deg, normal, SMOOTH),
    "radians": unary_rows(V.radians, np.radians, normal, SMOOTH),
    "degrees": unary_rows(V.degrees, np.degrees, normal, SMOOTH),
    # NumPy 2's names (np.asin is np.arcsin)
    "asin": unary_rows(V.asin, np.arcsin, INSIDE_UNIT, SMOOTH),
    "acos": unary_rows(V.acos, np.arccos, INSIDE_UNIT, SMOOTH),
    "atan": unary_rows(V.atan, np.arctan, normal, SMOOTH),
    "asinh": unary_rows(V.asinh, np.arcsinh, normal, SMOOTH),
    "acosh": unary_rows(V.acosh, np.arccosh, interval(1.2, 2.5), SMOOTH),
    "atanh": unary_rows(V.atanh, np.arctanh, INSIDE_UNIT, SMOOTH),
    "atan2": binary_rows(V.atan2, np.arctan2, nonzero, SMOOTH),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)

UNARY = ["log1p", "expm1", "log2", "log10", "exp2", "reciprocal", "arcsin", "arccos", "arctan",
         "arcsinh", "arccosh", "arctanh", "sinc", "deg2rad", "rad2deg", "radians", "degrees",
         "asin", "acos", "atan", "asinh", "acosh", "atanh"]
BINARY = ["logaddexp", "logaddexp2", "arctan2", "hypot", "atan2"]


# ----- sinc at its removable singularity ------------------------------------------
def sinc_derivative_at_zero(k):
    """d^k sinc / dx^k at 0: sinc = sum_m (-1)^m (pi x)^(2m) / (2m+1)!, so (-1)^m pi^(2m) / (2m+1)."""
    return 0.0 if k % 2 else (-1) ** (k // 2) * math.pi ** k / (k + 1)


def test_sinc_is_one_at_zero():
    y = V.sinc(np.array([0.0, -0.0, 1.0, 0.5]))
    np.testing.assert_array_equal(y.data[:2], [1.0, 1.0])
    np.testing.assert_allclose(y.data, np.sinc([0.0, -0.0, 1.0, 0.5]), rtol=1e-15, atol=1e-16)


def test_sinc_derivatives_at_zero_in_taylor_mode():
    d = V.taylor(V.sinc, np.array(0.0), np.array(1.0), 6)
    for k in range(7):
        np.testing.assert_allclose(d[k].data, sinc_derivative_at_zero(k), rtol=1e-12, atol=1e-12)


def test_sinc_derivatives_at_zero_in_reverse_mode():
    x = V.Variable(np.array(0.0))
    g = V.sinc(x)
    for k in range(1, 6):
        g, = V.grad([g], [x], create_graph=True)
        np.testing.assert_allclose(g.data, sinc_derivative_at_zero(k), rtol=1e-12, atol=1e-12)


def test_sinc_gradcheck_at_exact_zeros():
    x = np.array([0.0, 1e-9, -1e-5, 0.0, 0.3, -2.5])
    assert V.gradcheck(V.sinc, x, order=3)
    assert V.taylorcheck(V.sinc, x, order=6)


def reference_family(n, u):
    """f_n(u) = j_n(u) / u^n from its power series in 60-digit decimal arithmetic."""
    with localcontext() as context:
        context.prec = 60
        u2 = Decimal(float(u)) ** 2
        term = Decimal(1) / math.prod(range(1, 2 * n + 2, 2))
        total = term
        for k in range(400):
            term = term * -u2 / (2 * (k + 1) * (2 * n + 2 * k + 3))
            total += term
        return float(total)


@pytest.mark.parametrize("n", range(7))
def test_sinc_derivative_family_is_accurate(n):
    """The helpers behind sinc's derivatives, on both sides of the switch from power series
    to recurrence, within a few ulps of f_n(0) of the exact values."""
    x = np.linspace(-3.0, 3.0, 121)
    expected = [reference_family(n, math.pi * v) for v in x]
    scale = 1 / math.prod(range(1, 2 * n + 2, 2))                   # f_n(0)
    np.testing.assert_allclose(_sinc_family(n, x), expected, rtol=0, atol=1e-14 * scale)


# ----- hypot and arctan2 at the origin ------------------------------------------------
def test_hypot_gradient_is_zero_at_origin_to_every_order():
    x0, x1 = V.Variable(np.zeros(3)), V.Variable(np.array([0.0, 3.0, -4.0]))
    y = V.hypot(x0, x1)
    np.testing.assert_array_equal(y.data, [0.0, 3.0, 4.0])
    g0, g1 = V.grad([y.sum()], [x0, x1], create_graph=True)
    np.testing.assert_array_equal(g0.data, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(g1.data, [0.0, 1.0, -1.0])
    h00, h01 = V.grad([g0.sum()], [x0, x1], allow_unused=True)
    assert not np.isnan(h00.data).any()
    np.testing.assert_array_equal(h00.data[0], 0.0)                  # 0 at the origin, not NaN
    np.testing.assert_allclose(h00.data[1:], [1 / 3, 1 / 4])         # x1^2 / r^3 elsewhere


def test_hypot_checks_at_origin():
    """First order against central differences (0 by symmetry), Taylor mode against nested
    reverse mode (both 0) at the origin."""
    x0, x1 = np.zeros((2, 3)), np.zeros((2, 3))
    assert V.gradcheck(V.hypot, x0, x1, order=1)
    assert V.taylorcheck(V.hypot, x0, x1, order=4)
    assert V.gradcheck(V.hypot, np.zeros(3), np.array([0.0, 1.0, -2.0]), order=1)


def test_arctan2_at_origin():
    x1, x2 = V.Variable(np.array([0.0, 1.0])), V.Variable(np.array([0.0, 1.0]))
    y = V.arctan2(x1, x2)
    np.testing.assert_allclose(y.data, np.arctan2([0.0, 1.0], [0.0, 1.0]))
    g1, g2 = V.grad([y.sum()], [x1, x2])
    np.testing.assert_allclose(g1.data, [0.0, 0.5])
    np.testing.assert_allclose(g2.data, [0.0, -0.5])
    assert V.taylorcheck(V.arctan2, np.zeros(2), np.zeros(2), order=3)


def test_arctan2_quadrants_as_numpy():
    x1 = np.array([1.0, 1.0, -1.0, -1.0, 0.0, -0.0])
    x2 = np.array([1.0, -1.0, 1.0, -1.0, -1.0, -1.0])
    np.testing.assert_array_equal(V.arctan2(x1, x2).data, np.arctan2(x1, x2))


# ----- stability, domains, dtypes ---------------------------------------------------
def test_logaddexp_does_not_overflow():
    x = V.Variable(np.array([1000.0, -1000.0, 710.0]))
    for op, ref in [(V.logaddexp, np.logaddexp), (V.logaddexp2, np.logaddexp2)]:
        y = op(x, 1000.0)
        np.testing.assert_allclose(y.data, ref(x.data, 1000.0))
        g, = V.grad([y.sum()], [x])
        assert np.isfinite(g.data).all()
        np.testing.assert_allclose(g.data[:2], [0.5, 0.0])


def test_small_arguments_keep_precision():
    x = np.array([1e-12, -1e-15])
    np.testing.assert_array_equal(V.log1p(x).data, np.log1p(x))
    np.testing.assert_array_equal(V.expm1(x).data, np.expm1(x))
    v = V.Variable(x)
    g, = V.grad([V.expm1(v).sum()], [v])
    np.testing.assert_allclose(g.data, np.exp(x), rtol=1e-15)


def test_domain_edges_as_numpy():
    with np.errstate(divide="ignore", invalid="ignore"):
        cases = [(V.log1p, np.log1p, [-1.0, -2.0]), (V.arctanh, np.arctanh, [1.0, -1.0, 2.0]),
                 (V.arcsin, np.arcsin, [1.0, 1.5]), (V.arccos, np.arccos, [-1.0, 1.5]),
                 (V.arccosh, np.arccosh, [1.0, 0.5]), (V.log2, np.log2, [0.0, -1.0]),
                 (V.log10, np.log10, [0.0, -1.0]), (V.reciprocal, np.reciprocal, [0.0, -0.0])]
        for op, ref, x in cases:
            np.testing.assert_array_equal(op(np.array(x)).data, ref(np.array(x)))


def test_reciprocal_of_integers_is_integer_as_numpy():
    x = np.array([1, 2, -1])
    y = V.reciprocal(x)
    np.testing.assert_array_equal(y.data, np.reciprocal(x))
    assert y.dtype == np.reciprocal(x).dtype and not y.requires_grad


@pytest.mark.parametrize("name", UNARY)
def test_unary_float32_and_int(name):
    op, ref = getattr(V, name), getattr(np, name)
    x = np.array([0.25, 0.5], dtype=np.float32) + (1.5 if name in ("arccosh", "acosh") else 0)
    assert op(x).dtype == np.float32
    ints = np.array([1, 2]) if name in ("log1p", "log2", "log10", "arccosh", "acosh") else np.array([0, 0])
    if name != "reciprocal":                           # (1 / 0 in integers: not this test's point)
        assert op(ints).dtype == ref(ints).dtype


@pytest.mark.parametrize("name", BINARY)
def test_binary_number_takes_array_dtype(name):
    op, ref = getattr(V, name), getattr(np, name)
    x = np.array([0.25, 0.5], dtype=np.float32)
    assert op(x, 0.5).dtype == np.float32
    assert op(0.5, x).dtype == np.float32
    np.testing.assert_allclose(op(x, 0.5).data, ref(x, np.float32(0.5)), rtol=1e-6)


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_empty_arrays(name):
    op = getattr(V, name)
    x = V.Variable(np.zeros((0, 3)))
    args = (x,) if name in UNARY else (x, V.Variable(np.ones(3)))
    y = op(*args)
    assert y.shape == (0, 3)
    grads = V.grad([y.sum()], list(args))
    assert [g.shape for g in grads] == [a.shape for a in args]


def test_aliases_are_the_same_functions():
    assert V.radians is V.deg2rad
    assert V.degrees is V.rad2deg
    assert (V.asin, V.acos, V.atan, V.atan2) == (V.arcsin, V.arccos, V.arctan, V.arctan2)
    assert (V.asinh, V.acosh, V.atanh) == (V.arcsinh, V.arccosh, V.arctanh)
    assert (V.absolute, V.negative, V.multiply, V.subtract) == (V.abs, V.neg, V.mul, V.sub)
    assert (V.divide, V.true_divide, V.power, V.amax, V.amin) == (V.div, V.div, V.pow, V.max, V.min)
    np.testing.assert_allclose(V.radians(180.0).data, math.pi)
    np.testing.assert_allclose(V.degrees(math.pi).data, 180.0)


def test_numpy_functions_record_the_ops():
    x = V.Variable(np.array([0.5, 0.0]))
    y = np.sinc(x) + np.arctan2(x, 1.0) + np.hypot(x, x) + np.logaddexp(x, x) + np.log1p(x)
    assert isinstance(y, V.Variable) and y.requires_grad
    g, = V.grad([y.sum()], [x])
    assert np.isfinite(g.data).all()


# ----- errors ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["log1p", "arcsin", "deg2rad", "hypot", "logaddexp2"])
def test_unsupported_keywords_are_refused(name):
    op = getattr(V, name)
    args = (np.ones(2),) if name not in BINARY else (np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match=f"{name}: out= is not supported"):
        op(*args, out=np.zeros(2))
    for key, value in [("where", False), ("dtype", np.float32), ("casting", "unsafe"), ("order", "C")]:
        with pytest.raises(TypeError, match=re.escape(f"{name}: {key}={value!r} is not supported")):
            op(*args, **{key: value})
    with pytest.raises(TypeError, match=f"{name}\\(\\) got an unexpected keyword argument 'axis'"):
        op(*args, axis=0)
    y = op(*args, out=None, where=True, casting="same_kind", order="K", dtype=None, subok=True)
    np.testing.assert_allclose(y.data, getattr(np, name)(*args))


@pytest.mark.parametrize("name", BINARY)
def test_shapes_that_do_not_broadcast(name):
    with pytest.raises(ValueError, match=r"shapes \(2,\) and \(3,\) cannot be broadcast"):
        getattr(V, name)(np.ones(2), np.ones(3))


def test_bad_inputs_name_the_op():
    with pytest.raises(TypeError, match="(?i)log1p"):
        V.log1p("x")
    with pytest.raises(TypeError, match="(?i)sinc"):
        V.sinc(1 + 2j)
