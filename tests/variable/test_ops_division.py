"""The division ops against NumPy: the table rows, then the rest.

floor_divide and divmod are checked where x1 / x2 is away from whole numbers, modf away from
whole numbers, frexp and spacing away from powers of two, angle away from 0; ldexp and i0
are smooth (third order, Taylor mode to sixth).  Gradient conventions (PyTorch's and JAX's):
the quotient, modf's whole part, spacing and angle of real data have exact zero gradients;
divmod's remainder is mod's (1, -floor(x1 / x2)); frexp's mantissa has 2^-e; ldexp 2^x2.
Below the table: the NumPy dispatch, integer operands, zero divisors, inf/NaN, -0.0, empty
input, refused keywords, and i0's accuracy against NumPy and a 60-digit power series.
"""

import contextlib
import math
import warnings
from decimal import Decimal, localcontext

import numpy as np
import pytest
from op_rows import (
    PIECEWISE,
    SMOOTH,
    UNARY_SHAPES,
    Row,
    binary_rows,
    nonzero,
    normal,
    table_tests,
    unary_rows,
    with_zeros,
)

import variable as V


# ----- samplers --------------------------------------------------------------------
def off_whole(draw, ratio, gap=0.05):
    """Points `draw()` at which every entry of `ratio(*points)` is more than `gap` from a whole number."""
    while True:
        xs = draw()
        r = ratio(*xs)
        if np.all(np.abs(r - np.round(r)) > gap):
            return xs


def quotient_gap(s0, s1):
    """Dividend in [-1.5, 1.5], divisor 0.3 <= |x2| <= 2, x1 / x2 away from whole numbers."""
    return lambda rng: off_whole(lambda: normal(s0)(rng) + nonzero(s1)(rng), np.divide)


def off_integers(s):
    """Points in [-3, 3] away from whole numbers (modf's jumps)."""
    return lambda rng: off_whole(lambda: (rng.uniform(-3, 3, s),), lambda x: x)


def off_powers_of_two(s):
    """Points with 0.1 <= |x| <= 4, log2 |x| away from whole numbers (frexp's and spacing's jumps)."""
    return lambda rng: off_whole(lambda: nonzero(s)(rng), lambda x: np.log2(np.abs(x)))


def interval(lo, hi):
    return lambda *shapes: lambda rng: tuple(rng.uniform(lo, hi, s) for s in shapes)


def with_empty(rows, fn, ref, sample, order):
    return rows + [Row("(0, 3)", fn, ref, sample, order)]


# ----- rows ------------------------------------------------------------------------
def floor_divide_rows():
    fn, ref = V.floor_divide, np.floor_divide
    rows = binary_rows(fn, ref, quotient_gap, PIECEWISE)
    rows.append(Row("(0, 3)x(3,)", fn, ref, quotient_gap((0, 3), (3,)), PIECEWISE))
    rows.append(Row("x by 0.7", lambda x: fn(x, 0.7), lambda x: ref(x, 0.7),
                    lambda rng: off_whole(lambda: normal((2, 3))(rng), lambda x: x / 0.7), PIECEWISE))
    rows.append(Row("2.5 by x", lambda x: fn(2.5, x), lambda x: ref(2.5, x),
                    lambda rng: off_whole(lambda: nonzero((2, 3))(rng), lambda x: 2.5 / x), PIECEWISE))
    return rows


def divmod_rows():
    fn, ref = V.divmod, np.divmod
    rows = binary_rows(fn, ref, quotient_gap, PIECEWISE)
    rows.append(Row("(0, 3)x(3,)", fn, ref, quotient_gap((0, 3), (3,)), PIECEWISE))
    rows.append(Row("x by 0.7", lambda x: fn(x, 0.7), lambda x: ref(x, 0.7),
                    lambda rng: off_whole(lambda: normal((2, 3))(rng), lambda x: x / 0.7), PIECEWISE))
    rows.append(Row("2.5 by x", lambda x: fn(2.5, x), lambda x: ref(2.5, x),
                    lambda rng: off_whole(lambda: nonzero((2, 3))(rng), lambda x: 2.5 / x), PIECEWISE))
    return rows


def ldexp_rows():
    rows = [Row(f"x2={e}, {s}", lambda x, e=e: V.ldexp(x, e), lambda x, e=e: x * 2.0 ** e, normal(s), SMOOTH)
            for e in (3, -2, 0) for s in UNARY_SHAPES]
    for s0, s1 in [((2, 3), (3,)), ((), (2, 3)), ((2, 1), (1, 3)), ((0, 3), (3,))]:
        e = np.arange(-2, -2 + math.prod(s1)).reshape(s1)
        rows.append(Row(f"{s0}x{s1} int array", lambda x, e=e: V.ldexp(x, e),
                        lambda x, e=e: x * 2.0 ** e, normal(s0), SMOOTH))
    return rows


def frexp_rows():
    fn, ref = (lambda x: V.frexp(x)[0]), (lambda x: x / 2.0 ** np.frexp(x)[1])
    rows = unary_rows(fn, ref, off_powers_of_two, PIECEWISE)
    return with_empty(rows, fn, ref, off_powers_of_two((0, 3)), PIECEWISE)


def modf_rows():
    rows = unary_rows(V.modf, lambda x: (x - np.trunc(x), np.trunc(x)), off_integers, PIECEWISE)
    return with_empty(rows, V.modf, np.modf, off_integers((0, 3)), PIECEWISE)


def flat_rows(fn, ref, sampler):
    return with_empty(unary_rows(fn, ref, sampler, PIECEWISE), fn, ref, sampler((0, 3)), PIECEWISE)


def i0_rows():
    rows = unary_rows(V.i0, np.i0, normal, SMOOTH)
    rows += [Row(f"with zeros, {s}", V.i0, np.i0, with_zeros(s), SMOOTH) for s in UNARY_SHAPES]
    rows.append(Row("wide, (2, 3)", V.i0, np.i0, interval(-6.0, 6.0)((2, 3)), SMOOTH))
    rows.append(Row("(0, 3)", V.i0, np.i0, normal((0, 3)), SMOOTH))
    return rows


ROWS = {
    "floor_divide": floor_divide_rows(),
    "divmod": divmod_rows(),
    "modf": modf_rows(),
    "ldexp": ldexp_rows(),
    "frexp": frexp_rows(),
    "spacing": flat_rows(V.spacing, np.spacing, off_powers_of_two),
    "angle": flat_rows(V.angle, lambda x: np.where(x < 0, np.pi, 0.0), nonzero) + [
        Row(f"deg, {s}", lambda x: V.angle(x, deg=True), lambda x: np.where(x < 0, 180.0, 0.0),
            nonzero(s), PIECEWISE) for s in UNARY_SHAPES],
    "real_if_close": unary_rows(V.real_if_close, lambda x: x, normal, SMOOTH) + [
        Row("tol=1000, (2, 3)", lambda x: V.real_if_close(x, tol=1000), lambda x: x, normal((2, 3)), SMOOTH),
        Row("(0, 3)", V.real_if_close, lambda x: x, normal((0, 3)), SMOOTH),
    ],
    "i0": i0_rows(),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


def host(v):
    """The data of a Variable (or an array) as a NumPy array, wherever it lives."""
    return np.asarray(V.backend.to_cpu(v.data if isinstance(v, V.Variable) else v))


def warns_like_numpy(warning=RuntimeWarning, match=None):
    """pytest.warns on the CPU; CuPy (and its stand-in) has no floating-point warnings."""
    if V.Variable(np.zeros(1)).device != "cpu":
        return contextlib.nullcontext()
    return pytest.warns(warning, match=match)


# ----- the NumPy dispatch -----------------------------------------------------------
def test_numpy_ufuncs_on_variables_record_gengrads_ops():
    data = np.array([5.5, -5.5, 1.25])
    x = V.Variable(data)
    q = np.floor_divide(x, 2)
    assert isinstance(q, V.Variable)
    np.testing.assert_array_equal(q.data, [2.0, -3.0, 0.0])
    q, r = np.divmod(x, 2.0)
    np.testing.assert_array_equal(r.data, [1.5, 0.5, 1.25])
    assert not q.requires_grad and r.requires_grad
    frac, whole = np.modf(x)
    np.testing.assert_array_equal(frac.data, [0.5, -0.5, 0.25])
    np.testing.assert_array_equal(whole.data, [5.0, -5.0, 1.0])
    m, e = np.frexp(x)
    np.testing.assert_array_equal(m.data, [0.6875, -0.6875, 0.625])
    np.testing.assert_array_equal(e, [3, 3, 1])
    y = np.ldexp(x, 3)
    np.testing.assert_array_equal(y.data, data * 8)
    g, = V.grad(y.sum(), [x])
    np.testing.assert_array_equal(g.data, [8.0, 8.0, 8.0])
    assert isinstance(np.spacing(x), V.Variable)


def test_numpy_functions_on_variables_record_gengrads_ops():
    x = V.Variable(np.array([0.5, -2.0, 3.0]))
    np.testing.assert_array_equal(np.angle(x).data, [0.0, np.pi, 0.0])
    np.testing.assert_array_equal(np.angle(x, deg=True).data, [0.0, 180.0, 0.0])
    y = np.real_if_close(x)
    assert isinstance(y, V.Variable)
    np.testing.assert_array_equal(V.grad(y.sum(), x).data, np.ones(3))
    y = np.i0(x)
    assert isinstance(y, V.Variable)
    np.testing.assert_allclose(y.data, np.i0(host(x)), rtol=1e-14)
    g = V.grad(y.sum(), x)                               # I_0' = I_1, the derivative of np.i0
    h = 1e-3
    numeric = (np.i0(host(x) + h) - np.i0(host(x) - h)) / (2 * h)
    np.testing.assert_allclose(g.data, numeric, rtol=1e-6)


# ----- floor_divide and divmod ------------------------------------------------------
def test_floor_divide_and_divmod_of_integers_are_numpys_integers():
    a, b = np.array([7, -7, 7, -7, 0]), np.array([2, 2, -2, -2, 3])
    y = V.floor_divide(a, b)
    assert y.dtype == np.int64 and not y.requires_grad
    np.testing.assert_array_equal(y.data, np.floor_divide(a, b))
    q, r = V.divmod(a, b)
    assert q.dtype == r.dtype == np.int64 and not r.requires_grad
    np.testing.assert_array_equal(q.data, np.floor_divide(a, b))
    np.testing.assert_array_equal(r.data, np.mod(a, b))


def test_integer_division_by_zero_is_numpys_zero_with_its_warning():
    with warns_like_numpy(match="divide by zero"):
        y = V.floor_divide(V.Variable(np.array([7, -7])), V.Variable(np.array([0, 0])))
    np.testing.assert_array_equal(y.data, [0, 0])


def test_float_division_by_zero_gives_numpys_values_and_warnings():
    a = np.array([1.0, -1.0, 0.0, np.inf, np.nan])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected_q, expected_r = np.floor_divide(a, 0.0), np.divmod(a, 0.0)[1]
    x = V.Variable(a)
    with warns_like_numpy():
        q = V.floor_divide(x, 0.0)
    np.testing.assert_array_equal(q.data, expected_q)
    with warns_like_numpy():
        q, r = V.divmod(x, 0.0)
    np.testing.assert_array_equal(r.data, expected_r)


def test_finite_float_division_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = V.Variable(np.array([5.5, -5.5, -0.0]))
        q, r = V.divmod(x, 2.0)
        V.grad(r.sum() + V.floor_divide(x, 2.0).sum(), x)


def test_floor_divide_gradient_is_exact_zeros_for_both_operands():
    x0, x1 = V.Variable(np.array([[5.5, -5.5, 1.25]])), V.Variable(np.array([2.0]))
    y = V.floor_divide(x0, x1)
    g0, g1 = V.grad((y * y).sum(), [x0, x1], create_graph=True)
    np.testing.assert_array_equal(g0.data, np.zeros((1, 3)), strict=True)
    np.testing.assert_array_equal(g1.data, np.zeros(1), strict=True)
    assert not g0.requires_grad and not g1.requires_grad


def test_divmod_remainder_has_mods_gradient_and_the_quotient_none():
    x0, x1 = V.Variable(np.array([5.5, -5.5])), V.Variable(np.array([2.0, 2.0]))
    q, r = V.divmod(x0, x1)
    assert not q.requires_grad
    g0, g1 = V.grad(r.sum(), [x0, x1])
    np.testing.assert_array_equal(g0.data, [1.0, 1.0])
    np.testing.assert_array_equal(g1.data, [-2.0, 3.0])        # -floor(2.75), -floor(-2.75)
    m0, m1 = V.grad(V.mod(x0, x1).sum(), [x0, x1])
    np.testing.assert_array_equal(g1.data, m1.data)


@pytest.mark.parametrize("x0, x1", [
    (lambda x: x, lambda x: 0.75), (lambda x: 0.75, lambda x: x), (lambda x: x, lambda x: 2),
    (lambda x: 3, lambda x: x), (lambda x: x, lambda x: x * 0 + 0.75),
])
def test_floor_divide_and_divmod_take_numbers_on_either_side(x0, x1):
    data = np.array([1.9, -1.1])
    x = V.Variable(data)
    np.testing.assert_allclose(V.floor_divide(x0(x), x1(x)).data, np.floor_divide(x0(data), x1(data)))
    q, r = V.divmod(x0(x), x1(x))
    np.testing.assert_allclose(q.data, np.floor_divide(x0(data), x1(data)))
    np.testing.assert_allclose(r.data, np.mod(x0(data), x1(data)))


def test_float32_with_numbers_stays_float32():
    x = V.Variable(np.array([1.9, -1.1], dtype=np.float32))
    assert V.floor_divide(x, 0.75).dtype == np.float32
    q, r = V.divmod(3, x)
    assert q.dtype == r.dtype == np.float32
    assert V.grad(r.sum(), x).dtype == np.float32
    assert V.ldexp(x, 3).dtype == np.float32
    assert V.frexp(x)[0].dtype == np.float32
    assert V.modf(x)[1].dtype == np.float32
    assert V.angle(x).dtype == V.spacing(x).dtype == V.i0(x).dtype == np.float32


def test_floor_divide_of_negative_zero_and_infinities():
    a = np.array([-0.0, 0.0, np.inf, -np.inf, 1.0])
    b = np.array([1.0, -1.0, 2.0, 2.0, np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.floor_divide(a, b)
        with np.errstate(all="ignore"):
            y = V.floor_divide(V.Variable(a), b)
    np.testing.assert_array_equal(y.data, expected)
    np.testing.assert_array_equal(np.signbit(host(y)), np.signbit(expected))


def test_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"FloorDivide: shapes \(2,\) and \(3,\) cannot be broadcast"):
        V.floor_divide(V.Variable(np.ones(2)), np.ones(3))
    with pytest.raises(ValueError, match=r"DivMod: shapes \(2,\) and \(3,\) cannot be broadcast"):
        V.divmod(V.Variable(np.ones(2)), np.ones(3))


# ----- modf, frexp, ldexp -------------------------------------------------------------
def test_modf_special_points():
    a = np.array([-0.0, -2.5, np.inf, -np.inf, np.nan, 3.0])
    frac, whole = V.modf(V.Variable(a))
    f, w = np.modf(a)
    np.testing.assert_array_equal(frac.data, f)
    np.testing.assert_array_equal(whole.data, w)
    np.testing.assert_array_equal(np.signbit(host(frac)), np.signbit(f))
    assert frac.requires_grad and not whole.requires_grad
    y = V.modf(np.array([1, -2]))
    assert y[0].dtype == y[1].dtype == np.float64


def test_modf_gradient_is_one_through_the_fraction_zero_through_the_whole_part():
    x = V.Variable(np.array([1.25, -2.5, 0.75]))
    frac, whole = V.modf(x)
    g = V.grad((frac * 3.0).sum(), x)
    np.testing.assert_array_equal(g.data, [3.0, 3.0, 3.0])
    assert V.grad(V.sum(whole * 1.0), x, allow_unused=True) is None


def test_frexp_gradient_is_two_to_minus_e_and_ldexp_inverts_it():
    data = np.array([0.0, -0.0, 3.0, -0.3, 1024.0, 5e-324, np.inf, np.nan])
    x = V.Variable(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # 2^-e overflows for the subnormal: no warning
        m, e = V.frexp(x)
        g = V.grad(m.sum(), x)
    m_ref, e_ref = np.frexp(data)
    np.testing.assert_array_equal(m.data, m_ref)
    np.testing.assert_array_equal(e, e_ref)
    assert host(e).dtype == np.int32 and not isinstance(e, V.Variable)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(g.data, np.ldexp(1.0, -e_ref.astype(np.int64)))
    np.testing.assert_array_equal(np.signbit(host(m)), np.signbit(m_ref))
    back = V.ldexp(m, e)
    np.testing.assert_array_equal(back.data, data)


def test_frexp_of_integers_is_float64_as_numpy():
    m, e = V.frexp(np.array([1, 6]))
    assert m.dtype == np.float64
    np.testing.assert_array_equal(m.data, [0.5, 0.75])
    np.testing.assert_array_equal(e, [1, 3])


def test_ldexp_takes_integer_variables_lists_and_numbers_as_exponents():
    x = V.Variable(np.array([1.5, -0.25]))
    for e in (np.array([2, -1]), V.Variable(np.array([2, -1])), [2, -1], np.int32(2), True):
        y = V.ldexp(x, e)
        exponent = [2, -1] if isinstance(e, V.Variable) else e
        expected = np.ldexp(np.array([1.5, -0.25]), np.asarray(exponent))
        np.testing.assert_array_equal(y.data, expected)
        g = V.grad(y.sum(), x)
        np.testing.assert_array_equal(g.data, expected / np.array([1.5, -0.25]))
    y = V.ldexp(3, V.Variable(np.array([1, 2])))
    np.testing.assert_array_equal(y.data, [6.0, 12.0])
    assert y.dtype == np.float64 and not y.requires_grad


def test_ldexp_overflow_is_inf_with_numpys_warning_and_no_spurious_one():
    x = V.Variable(np.array([1.0, 1e-300]))
    with warns_like_numpy(match="overflow"):
        y = V.ldexp(x, 1100)
    np.testing.assert_array_equal(y.data, np.array([np.inf, np.ldexp(1e-300, 1100)]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # 2^1100 overflows; the result does not
        y = V.ldexp(V.Variable(np.array([1e-300])), 1100)
    assert np.isfinite(host(y)).all()


@pytest.mark.parametrize("e", [2.0, np.array([1.0, 2.0]), [1.5], np.float64(2.0)],
                         ids=["float", "float array", "float list", "np.float64"])
def test_ldexp_refuses_a_floating_exponent_as_numpy_does(e):
    with pytest.raises(TypeError, match="ldexp: the exponent x2 must be integers"):
        V.ldexp(V.Variable(np.ones(2)), e)
    with pytest.raises(TypeError, match="ldexp: the exponent x2 must be integers"):
        V.ldexp(V.Variable(np.ones(2)), V.Variable(np.array([1.0, 2.0])))


# ----- spacing, angle, real_if_close ----------------------------------------------------
def test_spacing_special_points_and_zero_gradient():
    a = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 5e-324])
    x = V.Variable(a)
    y = V.spacing(x)
    np.testing.assert_array_equal(y.data, np.spacing(a))
    np.testing.assert_array_equal(V.grad(y.sum(), x).data, np.zeros(8))
    assert V.spacing(np.array([1, 2])).dtype == np.spacing(np.array([1, 2])).dtype


def test_angle_of_real_data():
    a = np.array([-1.0, 0.0, -0.0, 2.0, np.nan, -np.inf])
    x = V.Variable(a)
    y = V.angle(x)
    np.testing.assert_array_equal(y.data, np.angle(a))
    np.testing.assert_array_equal(V.angle(x, deg=True).data, np.angle(a, deg=True))
    np.testing.assert_array_equal(V.grad(y.sum(), x).data, np.zeros(6))
    assert V.angle(np.array([-1, 1])).dtype == np.float64


def test_real_if_close_is_an_identity_on_real_data():
    data = np.array([1.5, -2.0])
    x = V.Variable(data)
    y = V.real_if_close(x, tol=1e-3)
    np.testing.assert_array_equal(y.data, data)
    np.testing.assert_array_equal(V.grad((y * y).sum(), x).data, 2 * data)
    assert V.real_if_close(np.array([1, 2])).dtype == np.int64


# ----- refusals ----------------------------------------------------------------------
@pytest.mark.parametrize("name, call", [
    ("floor_divide", lambda x: V.floor_divide(x, 2.0, out=np.empty(3))),
    ("floor_divide", lambda x: V.floor_divide(x, 2.0, where=np.array([True, False, True]))),
    ("divmod", lambda x: V.divmod(x, 2.0, out=(np.empty(3), np.empty(3)))),
    ("divmod", lambda x: V.divmod(x, 2.0, np.empty(3))),
    ("divmod", lambda x: V.divmod(x, 2.0, dtype=np.float32)),
    ("modf", lambda x: V.modf(x, out=(None, np.empty(3)))),
    ("frexp", lambda x: V.frexp(x, casting="unsafe")),
    ("ldexp", lambda x: V.ldexp(x, 2, out=np.empty(3))),
    ("spacing", lambda x: V.spacing(x, order="C")),
])
def test_ufunc_keywords_other_than_numpys_defaults_are_refused(name, call):
    with pytest.raises(TypeError, match=name):
        call(V.Variable(np.array([1.0, 2.0, 3.0])))


def test_numpys_default_keywords_are_accepted():
    x = V.Variable(np.array([1.5, 2.5]))
    assert V.divmod(x, 2.0, None, None, out=(None, None), where=True)[1].requires_grad
    assert V.modf(x, casting="same_kind", order="K", dtype=None, subok=True)[0].requires_grad
    assert V.floor_divide(x, 2.0, out=None, where=True).shape == (2,)


def test_unknown_keyword_is_refused():
    with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
        V.spacing(np.ones(2), axis=0)


@pytest.mark.parametrize("call, match", [
    (lambda: V.angle(np.array([1.0 + 1j])), "angle: complex"),
    (lambda: V.real_if_close(np.array([1.0 + 1e-20j])), "real_if_close: complex"),
    (lambda: V.i0(np.array([1j])), "i0: complex"),
    (lambda: V.frexp(np.array([1j])), "frexp: complex"),
    (lambda: V.angle(np.ones(2), deg="yes"), "angle: deg must be a bool"),
    (lambda: V.real_if_close(np.ones(2), tol="big"), "real_if_close: tol must be a real number"),
    (lambda: V.i0("abc"), "i0"),
    (lambda: V.spacing(None), "spacing"),
])
def test_bad_inputs_are_refused_naming_the_op(call, match):
    with pytest.raises(TypeError, match=match):
        call()


# ----- empty input ---------------------------------------------------------------------
@pytest.mark.parametrize("op", [V.spacing, V.angle, V.real_if_close, V.i0,
                                lambda x: V.modf(x)[0], lambda x: V.frexp(x)[0],
                                lambda x: V.ldexp(x, 2), lambda x: V.floor_divide(x, 2.0),
                                lambda x: V.divmod(x, 2.0)[1]])
def test_empty_input_gives_empty_values_and_gradients(op):
    x = V.Variable(np.zeros((0, 3)))
    y = op(x)
    assert y.shape == (0, 3)
    g = V.grad(V.sum(y * 1.0), x, allow_unused=True)
    assert g is None or g.shape == (0, 3)


# ----- i0 --------------------------------------------------------------------------------
def bessel_series(n, x, digits=60, scaled=False):
    """I_n(x) (`scaled`: I_n(x) e^(-|x|)) from its power series in `digits`-digit decimal
    arithmetic (a reference)."""
    with localcontext() as context:
        context.prec = digits
        x = Decimal(float(x))
        u = x * x / 4
        term = (abs(x) / 2) ** n / math.factorial(n)
        total, k = term, 0
        while term > total * Decimal(10) ** -(digits - 15):
            k += 1
            term = term * u / (k * (k + n))
            total += term
        if scaled:
            total *= (-abs(x)).exp()
        return float(total) * (-1.0 if n % 2 and x < 0 else 1.0)


def test_i0_matches_numpy_to_1e14_where_numpy_is_finite():
    x = np.concatenate([np.linspace(-709.0, 709.0, 20001), np.geomspace(1e-300, 30.0, 2001)])
    y = V.i0(V.Variable(x))
    np.testing.assert_allclose(y.data, np.i0(x), rtol=1e-14)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_bessel_i_matches_a_60_digit_power_series(n):
    from variable.ops.division import _bessel_i
    points = np.array([1e-3, 0.5, 3.0, 17.9, 20.0, 20.5, 21.0, 40.0, 123.4, 500.0, 709.5, 713.9,
                       -2.5, -713.0])
    got = host(_bessel_i(n, V.Variable(points).data))
    expected = np.array([bessel_series(n, x) for x in points])
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_i0_is_finite_past_numpys_overflow_without_warnings():
    x = V.Variable(np.array([709.9, 713.0, -713.9, np.inf, -np.inf, np.nan, -0.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = V.i0(x)
        g = V.grad(y, x)                                 # (a sum of these would overflow)
    data = host(y)
    assert np.all(np.isfinite(data[:3]))
    np.testing.assert_array_equal(data[3:], [np.inf, np.inf, np.nan, 1.0])
    np.testing.assert_array_equal(host(g)[3:], [np.inf, -np.inf, np.nan, -0.0])   # I_1 is odd
    with warns_like_numpy(match="overflow"):
        assert host(V.i0(V.Variable(np.array([720.0]))))[0] == np.inf


def test_i1_is_the_derivative_of_np_i0():
    # I_1 = I_0' against a sixth-order central difference of np.i0
    x = np.array([-7.5, -1.3, 0.2, 0.9, 4.0, 12.0, 19.5, 20.5, 35.0])
    h = 1e-2
    f = np.i0
    numeric = (-f(x - 3 * h) + 9 * f(x - 2 * h) - 45 * f(x - h) + 45 * f(x + h) - 9 * f(x + 2 * h)
               + f(x + 3 * h)) / (60 * h)
    xv = V.Variable(x)
    g = V.grad(V.i0(xv).sum(), xv)
    np.testing.assert_allclose(g.data, numeric, rtol=1e-10)


def test_i0_derivatives_at_zero_are_the_series_coefficients():
    # I_0(x) = sum x^2k / (4^k k!^2): D^2 = 1/2, D^4 = 3/8, D^6 = 5/16, odd orders 0; I_1'(0) = 1/2
    expected = [1.0, 0.0, 0.5, 0.0, 0.375, 0.0, 0.3125]
    derivatives = V.taylor(V.i0, np.array(0.0), np.array(1.0), 6)
    np.testing.assert_allclose([float(host(d)) for d in derivatives], expected, rtol=1e-14, atol=1e-15)
    x = V.Variable(np.array(0.0))
    g = V.grad(V.i0(x), x, create_graph=True)
    assert float(host(g)) == 0.0
    assert float(host(V.grad(g, x, create_graph=True))) == pytest.approx(0.5, rel=1e-15)


def test_i0_satisfies_its_differential_equation_to_every_order_checked():
    # x I0'' + I0' - x I0 = 0, from nested reverse mode at points on both sides of the switch
    data = np.array([-3.0, 0.4, 5.0, 19.0, 22.0, 60.0])
    x = V.Variable(data)
    y = V.i0(x)
    d1 = V.grad(y.sum(), x, create_graph=True)
    d2 = V.grad(d1.sum(), x, create_graph=True)
    residual = host(x * d2 + d1 - x * y)
    np.testing.assert_allclose(residual, 0.0, atol=1e-13 * np.max(np.abs(host(x * y))))
    d3 = V.grad(d2.sum(), x)                            # (x y'' + y' - x y)' = 0: x y''' + 2 y'' - y - x y'
    residual = host(x * d3 + 2 * d2 - y - x * d1)
    np.testing.assert_allclose(residual, 0.0, atol=1e-12 * np.max(np.abs(host(x * y))))


def test_i0_taylor_mode_far_out_matches_nested_reverse():
    assert V.taylorcheck(V.i0, np.array([25.0, -40.0, 0.0]), order=6)


def test_i0_float32_accuracy_and_integers_as_float64():
    x = np.linspace(-90.0, 90.0, 2001).astype(np.float32)
    y = V.i0(V.Variable(x))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.data, np.i0(x.astype(np.float64)), rtol=3e-6)
    y = V.i0(np.array([1, 2]))
    assert y.dtype == np.float64 and not y.requires_grad
    np.testing.assert_allclose(y.data, np.i0([1.0, 2.0]), rtol=1e-15)


# ----- on a device -------------------------------------------------------------------------
@pytest.mark.parametrize("op", [V.i0, lambda x: V.divmod(x, 0.75)[1], lambda x: V.frexp(x)[0],
                                lambda x: V.ldexp(x, 3), lambda x: V.modf(x)[0], V.spacing, V.angle,
                                lambda x: V.floor_divide(2.5, x)],
                         ids=["i0", "divmod", "frexp", "ldexp", "modf", "spacing", "angle", "floor_divide"])
def test_forward_and_backward_make_no_host_sync(op, gpu, count_syncs):
    x = V.Variable(np.array([0.3, -1.7, 25.0, 2.5])).to_gpu()
    with count_syncs() as syncs:
        y = op(x)
        g, = V.grad((y * y).sum(), [x], create_graph=True, allow_unused=True)
    assert syncs.count == 0, syncs
    assert V.backend.device_of(y.data) == "gpu"
