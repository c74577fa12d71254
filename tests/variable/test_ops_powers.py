"""The powers ops (cbrt, float_power) against NumPy: the table rows, then the special points.

cbrt is checked on both sides of 0 (its derivative is inf at 0, tested below on its own);
float_power at a positive base with any exponent, at any base with whole exponents, and
with numbers on either side.  float_power's rows have no float32 pass: NumPy computes it
in float64 (float32 in, float64 out), which a test below checks with the gradients' dtypes.
"""

import contextlib
import dataclasses
import re

import numpy as np
import pytest
from op_rows import (
    SMOOTH,
    Row,
    binary_rows,
    nonzero,
    normal,
    positive,
    positive_then_normal,
    table_tests,
    unary_rows,
)

import variable as V


def interval(lo, hi):
    """Sampler of points uniform in [lo, hi], one array per shape."""
    return lambda *shapes: lambda rng: tuple(rng.uniform(lo, hi, s) for s in shapes)


def float64_only(rows):
    """`rows` without their float32 pass (the op's result is float64, as NumPy's)."""
    return [dataclasses.replace(row, float32=False) for row in rows]


def cbrt_rows():
    rows = unary_rows(V.cbrt, np.cbrt, nonzero, SMOOTH)
    rows.append(Row("wide, (2, 3)", V.cbrt, np.cbrt, interval(-30.0, 30.0)((2, 3)), SMOOTH))
    rows.append(Row("(0, 3)", V.cbrt, np.cbrt, normal((0, 3)), SMOOTH))
    return rows


WHOLE = [1.0, 2.0, 3.0]       # a list: device-safe next to GPU data (it is made there)


def float_power_rows():
    rows = binary_rows(V.float_power, np.float_power, positive_then_normal, SMOOTH)
    rows += [
        Row("x ** 2.5", lambda x: V.float_power(x, 2.5), lambda x: np.float_power(x, 2.5),
            positive((2, 3)), SMOOTH),
        Row("x ** 3, x of both signs", lambda x: V.float_power(x, 3), lambda x: np.float_power(x, 3),
            normal((2, 3)), SMOOTH),
        Row("x ** [1, 2, 3], x of both signs", lambda x: V.float_power(x, WHOLE),
            lambda x: np.float_power(x, np.array(WHOLE)), normal((2, 3)), SMOOTH),
        Row("2.5 ** x", lambda x: V.float_power(2.5, x), lambda x: np.float_power(2.5, x),
            normal((2, 3)), SMOOTH),
        Row("(0, 3)x(3,)", V.float_power, np.float_power, positive_then_normal((0, 3), (3,)), SMOOTH),
    ]
    return float64_only(rows)


ROWS = {
    "cbrt": cbrt_rows(),
    "float_power": float_power_rows(),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


# ----- cbrt ---------------------------------------------------------------------------
def test_cbrt_is_the_real_cube_root_as_numpy():
    a = np.array([-27.0, -8.0, -0.0, 0.0, 1.0, 64.0, -np.inf, np.inf, np.nan, -2.0])
    y = V.cbrt(a)
    # NumPy's cbrt, to its last ulp: the SIMD loop and the scalar one for the entries past the last
    # full vector (where they fall depends on the array's alignment) can differ by one, so even
    # cbrt(-27) is -3.0000000000000004 in some runs
    np.testing.assert_allclose(y.data, np.cbrt(a), rtol=2.3e-16, atol=0)
    np.testing.assert_allclose(y.data[:6], [-3.0, -2.0, -0.0, 0.0, 1.0, 4.0], rtol=2.3e-16, atol=0)
    assert np.signbit(y.data[2])                            # cbrt(-0.0) = -0.0
    np.testing.assert_allclose(y.data[-1], -(2.0 ** (1 / 3)), rtol=1e-15)   # negative, not NaN


def test_cbrt_derivatives_are_the_closed_forms():
    # y = x^(1/3) (signed): y' = 1 / (3 y^2), y'' = -2 / (9 y^5), y''' = 10 / (27 y^8)
    a = np.array([-8.0, -0.5, 0.125, 27.0])
    x = V.Variable(a)
    y = np.cbrt(a)
    g, = V.grad([V.cbrt(x).sum()], [x], create_graph=True)
    np.testing.assert_allclose(g.data, 1 / (3 * y ** 2), rtol=1e-14)
    g2, = V.grad([g.sum()], [x], create_graph=True)
    np.testing.assert_allclose(g2.data, -2 / (9 * y ** 5), rtol=1e-14)
    g3, = V.grad([g2.sum()], [x])
    np.testing.assert_allclose(g3.data, 10 / (27 * y ** 8), rtol=1e-13)
    d = V.taylor(V.cbrt, a, np.ones(4), 3)
    np.testing.assert_allclose(d[1].data, g.data, rtol=1e-14)
    np.testing.assert_allclose(d[2].data, g2.data, rtol=1e-13)
    np.testing.assert_allclose(d[3].data, g3.data, rtol=1e-12)


def test_cbrt_gradient_at_zero_is_inf():
    # the cube root's tangent is vertical at 0: 1 / (3 * 0^2) = inf, as NumPy's formula and
    # PyTorch's gradient of x ** (1/3) give (a 0 incoming gradient there makes NaN)
    x = V.Variable(np.array([0.0, -0.0, 1.0]))
    warns = pytest.warns(RuntimeWarning) if x.device == "cpu" else contextlib.nullcontext()
    with warns:
        g = V.grad(V.cbrt(x).sum(), x)
    np.testing.assert_array_equal(g.data, [np.inf, np.inf, 1 / 3])
    _, dy = V.jvp(V.cbrt, x.data, np.array([1.0, -1.0, 0.0]))   # (Taylor mode: no warning)
    np.testing.assert_array_equal(dy.data, [np.inf, -np.inf, 0.0])


def test_cbrt_keeps_float32_and_makes_integers_float64():
    x = V.Variable(np.array([-8.0, 0.5], dtype=np.float32))
    y = V.cbrt(x)
    assert y.dtype == np.float32
    assert V.grad(y.sum(), x).dtype == np.float32
    ints = V.cbrt(np.array([-8, 27]))
    assert ints.dtype == np.cbrt(np.array([-8, 27])).dtype == np.float64 and not ints.requires_grad
    np.testing.assert_allclose(ints.data, [-2.0, 3.0], rtol=2.3e-16, atol=0)     # (to NumPy's last ulp)


def test_cbrt_through_numpy_records_the_op():
    x = V.Variable(np.array([-8.0, 1.0]))
    y = np.cbrt(x)
    assert isinstance(y, V.Variable) and y.creator.name == "Cbrt"
    np.testing.assert_allclose(V.grad(y.sum(), x).data, [1 / 12, 1 / 3])


# ----- float_power ----------------------------------------------------------------------
def test_float_power_of_float32_is_float64_with_float32_gradients():
    a = np.array([1.5, 0.5, 2.0], dtype=np.float32)
    b = np.array([2.0, -1.0, 0.5], dtype=np.float32)
    x1, x2 = V.Variable(a), V.Variable(b)
    y = V.float_power(x1, x2)
    expected = np.float_power(a, b)
    assert y.dtype == expected.dtype == np.float64
    np.testing.assert_allclose(y.data, expected, rtol=1e-15)
    g1, g2 = V.grad([y.sum()], [x1, x2], create_graph=True)
    assert g1.dtype == g2.dtype == np.float32
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    np.testing.assert_allclose(g1.data, b64 * a64 ** (b64 - 1), rtol=1e-6)
    np.testing.assert_allclose(g2.data, a64 ** b64 * np.log(a64), rtol=1e-6)
    h1, h2 = V.grad([(g1 + g2).sum()], [x1, x2])
    assert h1.dtype == h2.dtype == np.float32
    y32 = V.float_power(x1, 3)                                # with a number exponent too
    assert y32.dtype == np.float64 and V.grad(y32.sum(), x1).dtype == np.float32
    d = V.taylor(lambda x: V.float_power(x, 2.5), a, np.ones(3, dtype=np.float32), 3)
    np.testing.assert_allclose(d[3].data, 2.5 * 1.5 * 0.5 * a64 ** -0.5, rtol=1e-6)


def test_float_power_of_float32_in_reverse_over_taylor():
    a, b = np.array([0.7, 1.2]), np.array([1.5, 0.5])
    w = V.Variable(b.astype(np.float32))
    v = np.ones(2, dtype=np.float32)
    d2 = V.taylor(lambda x: V.float_power(x * w, 2.5), a.astype(np.float32), v, 2)[2]
    g = V.grad(d2.sum(), w)                          # D^2 (x w)^2.5 = 3.75 (x w)^0.5 w^2 = 3.75 x^0.5 w^2.5
    assert g.dtype == np.float32
    np.testing.assert_allclose(g.data, 3.75 * 2.5 * a ** 0.5 * b ** 1.5, rtol=1e-5)


def test_float_power_of_integers_is_float64_as_numpy():
    y = V.float_power(np.array([2, 3]), 2)
    assert y.dtype == np.float_power(np.array([2, 3]), 2).dtype == np.float64
    np.testing.assert_array_equal(y.data, [4.0, 9.0])
    assert not y.requires_grad
    np.testing.assert_array_equal(V.float_power(2, -1).data, np.float_power(2, -1))   # 0.5, not 0
    assert V.float_power(2, 3).dtype == np.float64


def test_float_power_negative_base():
    # whole exponents: real, with pow's gradient; fractional ones: NaN with NumPy's warning
    x = V.Variable(np.array([-1.5, -2.0]))
    y = V.float_power(x, 3)
    np.testing.assert_allclose(y.data, np.float_power(x.data, 3))
    np.testing.assert_allclose(V.grad(y.sum(), x).data, 3 * x.data ** 2)
    warns = pytest.warns(RuntimeWarning) if x.device == "cpu" else contextlib.nullcontext()
    with warns:
        z = V.float_power(x, 0.5)
    assert np.isnan(z.data).all()
    with np.errstate(invalid="ignore"):
        assert np.isnan(np.float_power(x.data, 0.5)).all()


def test_float_power_gradients_on_both_sides_broadcast():
    x1 = V.Variable(np.array([[0.5], [2.0]]))                    # (2, 1)
    x2 = V.Variable(np.array([1.0, -0.5, 2.5]))                  # (3,)
    y = V.float_power(x1, x2)
    assert y.shape == (2, 3)
    g1, g2 = V.grad([y.sum()], [x1, x2])
    a, b = x1.data, x2.data
    np.testing.assert_allclose(g1.data, (b * a ** (b - 1)).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(g2.data, (a ** b * np.log(a)).sum(axis=0))


def test_float_power_at_zero_follows_pow():
    # pow's (PyTorch's) conventions: d/dx1 of x1 ** 0 is 0, d/dx2 = x1 ** x2 log x1 is 0
    # where x1 == 0 <= x2
    x1, x2 = V.Variable(np.array([0.0, 0.0, 0.0])), V.Variable(np.array([0.0, 2.0, 1.0]))
    y = V.float_power(x1, x2)
    np.testing.assert_array_equal(y.data, [1.0, 0.0, 0.0])
    g1, g2 = V.grad([y.sum()], [x1, x2])
    np.testing.assert_array_equal(g1.data, [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(g2.data, [0.0, 0.0, 0.0])


def test_float_power_through_numpy_records_pow():
    x = V.Variable(np.array([0.5, 2.0]))
    e = V.Variable(np.array([2.0, 3.0]))
    y = np.float_power(x, e)
    assert isinstance(y, V.Variable) and y.requires_grad
    g, h = V.grad([y.sum()], [x, e])
    np.testing.assert_allclose(g.data, [1.0, 12.0])
    np.testing.assert_allclose(h.data, [0.25 * np.log(0.5), 8.0 * np.log(2.0)])


# ----- errors ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cbrt", "float_power"])
def test_unsupported_keywords_are_refused(name):
    op = getattr(V, name)
    args = (np.ones(2),) if name == "cbrt" else (np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match=f"{name}: out= is not supported"):
        op(*args, out=np.zeros(2))
    for key, value in [("where", False), ("dtype", np.float32), ("casting", "unsafe"), ("order", "C")]:
        with pytest.raises(TypeError, match=re.escape(f"{name}: {key}={value!r} is not supported")):
            op(*args, **{key: value})
    with pytest.raises(TypeError, match=f"{name}\\(\\) got an unexpected keyword argument 'axis'"):
        op(*args, axis=0)
    y = op(*args, out=None, where=True, casting="same_kind", order="K", dtype=None, subok=True)
    np.testing.assert_allclose(y.data, getattr(np, name)(*args))


def test_float_power_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"float_power: shapes \(2,\) and \(3,\) cannot be broadcast"):
        V.float_power(V.Variable(np.ones(2)), np.ones(3))


def test_bad_inputs_name_the_op():
    with pytest.raises(TypeError, match="(?i)cbrt"):
        V.cbrt("x")
    with pytest.raises(TypeError, match="float_power"):
        V.float_power("x", 2.0)
    with pytest.raises(TypeError, match="float_power"):
        V.float_power(np.ones(2), 1j)


# ----- on the device ----------------------------------------------------------------------
DEVICE_CALLS = {
    "cbrt": V.cbrt,
    "float_power(x, 2.5)": lambda x: V.float_power(x * x, 2.5),
    "float_power(x, x)": lambda x: V.float_power(x * x, x),
    "float_power(2, x)": lambda x: V.float_power(2.0, x),
    "float_power(x, list)": lambda x: V.float_power(x, WHOLE),
}


@pytest.mark.parametrize("name", DEVICE_CALLS)
def test_ops_run_on_the_device(name, gpu):
    f = DEVICE_CALLS[name]
    data = np.array([0.33, -1.27, 1.41])
    x = V.Variable(data).to_gpu()
    y = f(x)
    assert y.device == "gpu"
    np.testing.assert_allclose(V.backend.to_cpu(y.data), f(V.Variable(data)).data)
    g, = V.grad(y.sum(), [x], create_graph=True)
    assert g.device == "gpu" and g.shape == x.shape
    coefficients = V.taylor(f, x, V.Variable(np.ones(3)).to_gpu(), 3)
    assert all(c.device == "gpu" for c in coefficients)


def test_float_power_of_float32_on_the_device(gpu):
    x = V.Variable(np.array([0.5, 1.5], dtype=np.float32)).to_gpu()
    y = V.float_power(x, 2.5)
    assert y.device == "gpu" and y.dtype == np.float64
    g = V.grad(y.sum(), x)
    assert g.device == "gpu" and g.dtype == np.float32


def test_recorded_fractional_powers_keep_float32():
    # reverse over Taylor through x ** 2.5 and cbrt: the recurrence's weights are Python floats,
    # so float32 coefficients stay float32 (a NumPy float64 scalar would promote them)
    w = V.Variable(np.array([1.5, 0.5], np.float32))
    x = np.array([0.7, 1.2], np.float32)
    for f in (lambda t: (t * w) ** 2.5, lambda t: V.cbrt(t * w)):
        d = V.taylor(f, x, np.ones(2, np.float32), 3)
        assert [c.dtype for c in d] == [np.float32] * 4
        assert V.grad(d[3].sum(), w).dtype == np.float32
