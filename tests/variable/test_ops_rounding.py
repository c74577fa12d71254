"""Rounding, signs, remainders, NaN-aware extrema and real/imaginary parts, against NumPy.

The rounding ops and sign are checked at points away from their jumps (their gradient
there is exact zeros), the remainders where x0 / x1 is away from a whole number, fmax and
fmin away from ties; NaN, infinities, ties and the refused keywords have tests of their own
below the table.
"""

import contextlib
import dataclasses

import numpy as np
import pytest
from op_rows import (
    PIECEWISE,
    SMOOTH,
    Row,
    binary_rows,
    nonzero,
    normal,
    table_tests,
    unary_rows,
    untied,
)

import variable as V


# ----- samplers --------------------------------------------------------------------
def off_whole(draw, ratio, gap):
    """Points `draw()` at which every entry of `ratio(*points)` is more than `gap` from a whole number."""
    while True:
        xs = draw()
        r = ratio(*xs)
        if np.all(np.abs(r - np.round(r)) > gap):
            return xs


def off_steps(step, offset, gap=0.1):
    """A unary sampler of points in [-1.5, 1.5] at least gap * step away from each offset + k step."""
    return lambda shape: lambda rng: off_whole(lambda: normal(shape)(rng), lambda x: (x - offset) / step, gap)


whole_gap = off_steps(1.0, 0.0)      # floor, ceil, trunc, fix: jumps at whole numbers
half_gap = off_steps(1.0, 0.5)       # rint, round: jumps at halves


def quotient_gap(s0, s1, gap=0.05):
    """Dividend in [-1.5, 1.5], divisor 0.3 <= |x1| <= 2, x0 / x1 away from whole numbers."""
    return lambda rng: off_whole(lambda: normal(s0)(rng) + nonzero(s1)(rng), np.divide, gap)


def flat_rows(fn, ref, sampler):
    """Rows of a zero-derivative op: the usual shapes and an empty one."""
    rows = unary_rows(fn, ref, sampler, PIECEWISE)
    return rows + [Row("(0, 3)", fn, ref, sampler((0, 3)), PIECEWISE)]


def rounded_rows(fn, ref):
    """round/around with the default, a positive and a negative number of decimals."""
    rows = flat_rows(fn, ref, half_gap)
    for decimals, sampler in [(1, off_steps(0.1, 0.05)), (2, off_steps(0.01, 0.005)), (-1, normal)]:
        rows += [
            Row(f"decimals={decimals}, {s}", lambda a, d=decimals: fn(a, d), lambda a, d=decimals: ref(a, d),
                sampler(s), PIECEWISE)
            for s in [(3,), (2, 3)]
        ]
    return rows


def remainder_rows(fn, ref):
    """A remainder on broadcast pairs, an empty pair, and a Python number on either side."""
    rows = binary_rows(fn, ref, quotient_gap, PIECEWISE)
    rows.append(Row("(0, 3)x(3,)", fn, ref, quotient_gap((0, 3), (3,)), PIECEWISE))
    rows.append(Row("x by 0.7", lambda x: fn(x, 0.7), lambda x: ref(x, 0.7),
                    lambda rng: off_whole(lambda: normal((2, 3))(rng), lambda x: x / 0.7, 0.05), PIECEWISE))
    rows.append(Row("2.5 by x", lambda x: fn(2.5, x), lambda x: ref(2.5, x),
                    lambda rng: off_whole(lambda: nonzero((2, 3))(rng), lambda x: 2.5 / x, 0.05), PIECEWISE))
    return rows


def binary_with_empty(fn, ref, sampler, order):
    return binary_rows(fn, ref, sampler, order) + [Row("(0, 3)x(3,)", fn, ref, sampler((0, 3), (3,)), order)]


def whole_with_zeros_then_normal(s0, s1):
    """Whole numbers in -2..2 (an int array: gradcheck holds it constant, since a difference
    across the step at 0 has no meaning) with every other entry exactly 0, then any x2."""
    def sample(rng):
        x1 = rng.integers(-2, 3, s0)
        x1.reshape(-1)[::2] = 0
        return x1, rng.uniform(-1.5, 1.5, s1)
    return sample


def heaviside_rows():
    """heaviside away from its step (gradients 0 for both operands), then with exact zeros
    in x1, where x2's gradient is 1, on the same broadcast pairs; a number for x2."""
    at_zero = [dataclasses.replace(row, label=f"zeros in x1, {row.label}")
               for row in binary_rows(V.heaviside, np.heaviside, whole_with_zeros_then_normal, PIECEWISE)]
    return binary_with_empty(V.heaviside, np.heaviside, nonzero, PIECEWISE) + at_zero + [
        Row("x1 by 0.5", lambda x: V.heaviside(x, 0.5), lambda x: np.heaviside(x, 0.5), nonzero((2, 3)),
            PIECEWISE),
    ]


ROWS = {
    "sign": flat_rows(V.sign, np.sign, nonzero),
    "floor": flat_rows(V.floor, np.floor, whole_gap),
    "ceil": flat_rows(V.ceil, np.ceil, whole_gap),
    "trunc": flat_rows(V.trunc, np.trunc, whole_gap),
    "fix": flat_rows(V.fix, np.fix, whole_gap),
    "rint": flat_rows(V.rint, np.rint, half_gap),
    "round": rounded_rows(V.round, np.round),
    "around": rounded_rows(V.around, np.around),
    "mod": remainder_rows(V.mod, np.mod),
    "remainder": remainder_rows(V.remainder, np.remainder),
    "fmod": remainder_rows(V.fmod, np.fmod),
    "fmax": binary_with_empty(V.fmax, np.fmax, untied, PIECEWISE),
    "fmin": binary_with_empty(V.fmin, np.fmin, untied, PIECEWISE),
    "nan_to_num": unary_rows(V.nan_to_num, np.nan_to_num, normal, SMOOTH) + [
        Row("(0, 3)", V.nan_to_num, np.nan_to_num, normal((0, 3)), SMOOTH),
        Row("nan=1, posinf=2, neginf=-2", lambda x: V.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0),
            lambda x: np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0), normal((2, 3)), SMOOTH),
    ],
    "real": unary_rows(V.real, np.real, normal, SMOOTH),
    "imag": flat_rows(V.imag, np.imag, normal),
    "conj": unary_rows(V.conj, np.conj, normal, SMOOTH),
    "conjugate": unary_rows(V.conjugate, np.conjugate, normal, SMOOTH),
    "positive": unary_rows(V.positive, np.positive, normal, SMOOTH) + [
        Row("(0, 3)", V.positive, np.positive, normal((0, 3)), SMOOTH),
    ],
    "fabs": unary_rows(V.fabs, np.fabs, nonzero, PIECEWISE),
    "copysign": binary_with_empty(V.copysign, np.copysign, nonzero, PIECEWISE),
    "heaviside": heaviside_rows(),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


# ----- zero-derivative ops: exact zeros --------------------------------------------
FLAT = [V.sign, V.floor, V.ceil, V.rint, V.trunc, V.fix, V.round, V.around, V.imag]


@pytest.mark.parametrize("op", FLAT, ids=lambda op: op.__name__)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 3)])
def test_flat_gradient_is_exact_zeros(op, dtype, shape, rng):
    x = V.Variable(rng.uniform(-3, 3, shape).astype(dtype))
    y = op(x)
    assert y.dtype == dtype and y.shape == shape
    g, = V.grad((y * y).sum(), [x], create_graph=True)
    assert g.shape == shape and g.dtype == dtype
    np.testing.assert_array_equal(g.data, np.zeros(shape, dtype=dtype), strict=True)
    assert not g.requires_grad                         # so every higher derivative is 0 as well


@pytest.mark.parametrize("op", FLAT, ids=lambda op: op.__name__)
def test_flat_taylor_is_value_then_zeros(op):
    x = np.array([0.3, -1.7, 2.5])
    coefficients = V.taylor(op, x, np.ones(3), 4)
    np.testing.assert_array_equal(coefficients[0].data, op(x).data)
    for c in coefficients[1:]:
        np.testing.assert_array_equal(c.data, np.zeros(3))


def test_flat_gradient_at_a_jump_is_zero():
    # a jump has no derivative; 0 is taken there, never NaN
    x = V.Variable(np.array([0.0, 1.0, 0.5, -2.0]))
    for op in (V.sign, V.floor, V.ceil, V.round, V.trunc):
        np.testing.assert_array_equal(V.grad(op(x).sum(), x).data, np.zeros(4))


def test_sign_of_nan_and_integers():
    np.testing.assert_array_equal(V.sign(np.array([np.nan, -0.0, 3.0])).data, np.sign([np.nan, -0.0, 3.0]))
    y = V.sign(np.array([-2, 0, 5]))
    assert y.dtype == np.int64 and not y.requires_grad
    np.testing.assert_array_equal(y.data, [-1, 0, 1])


def test_round_halves_to_even_and_negative_decimals():
    np.testing.assert_array_equal(V.round(np.array([0.5, 1.5, 2.5, -0.5])).data, [0.0, 2.0, 2.0, -0.0])
    np.testing.assert_array_equal(V.round(np.array([15, 25, 149]), -1).data, np.round([15, 25, 149], -1))
    np.testing.assert_array_equal(V.around(np.array([1.234]), decimals=np.int64(2)).data, [1.23])


# ----- remainders ------------------------------------------------------------------
def test_mod_and_fmod_sign_conventions():
    x0, x1 = np.array([5.0, -5.0, 5.0, -5.0]), np.array([3.0, 3.0, -3.0, -3.0])
    np.testing.assert_array_equal(V.mod(x0, x1).data, [2.0, 1.0, -1.0, -2.0])
    np.testing.assert_array_equal(V.fmod(x0, x1).data, [2.0, -2.0, 2.0, -2.0])
    assert V.remainder is V.mod


def test_mod_gradients_are_one_and_minus_the_quotient():
    x0, x1 = V.Variable(np.array([5.5, -5.5])), V.Variable(np.array([2.0, 2.0]))
    g0, g1 = V.grad(V.mod(x0, x1).sum(), [x0, x1])
    np.testing.assert_array_equal(g0.data, [1.0, 1.0])
    np.testing.assert_array_equal(g1.data, [-2.0, 3.0])        # -floor(2.75), -floor(-2.75)
    g0, g1 = V.grad(V.fmod(x0, x1).sum(), [x0, x1])
    np.testing.assert_array_equal(g1.data, [-2.0, 2.0])        # -trunc(2.75), -trunc(-2.75)


@pytest.mark.parametrize("x0, x1", [
    (lambda x: x, lambda x: 0.75), (lambda x: 0.75, lambda x: x),
    (lambda x: x, lambda x: np.array([0.75, -1.25])), (lambda x: np.array([0.75, -1.25]), lambda x: x),
    (lambda x: x, lambda x: x * 0 + 0.75),
])
def test_mod_takes_variables_arrays_and_numbers_on_either_side(x0, x1):
    data = np.array([1.9, -1.1])
    x = V.Variable(data)
    y = V.mod(x0(x), x1(x))
    np.testing.assert_allclose(y.data, np.mod(x0(data), x1(data)))
    assert y.requires_grad


def test_mod_float32_with_a_number_stays_float32():
    x = V.Variable(np.array([1.9, -1.1], dtype=np.float32))
    assert V.mod(x, 0.75).dtype == np.float32
    assert V.mod(0.75, x).dtype == np.float32
    assert V.grad(V.mod(0.75, x).sum(), x).dtype == np.float32


def test_mod_by_zero_is_nan_with_numpy_warning():
    x = V.Variable(np.array([1.0, 2.0]))
    warns = pytest.warns(RuntimeWarning) if x.device == "cpu" else contextlib.nullcontext()  # CuPy: none
    with warns:
        y = V.fmod(x, np.array([0.0, 1.0]))
    assert np.isnan(float(y[0].data)) and float(y[1].data) == 0.0


def test_mod_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"Mod: shapes \(2,\) and \(3,\) cannot be broadcast"):
        V.mod(V.Variable(np.ones(2)), np.ones(3))


# ----- fmax and fmin ----------------------------------------------------------------
@pytest.mark.parametrize("op, ref", [(V.fmax, np.fmax), (V.fmin, np.fmin)])
def test_fmax_fmin_ignore_nan_and_split_ties(op, ref):
    a = np.array([1.0, np.nan, np.nan, 2.0, 0.5])
    b = np.array([np.nan, 3.0, np.nan, 2.0, 1.5])
    x0, x1 = V.Variable(a), V.Variable(b)
    y = op(x0, x1)
    np.testing.assert_array_equal(y.data, ref(a, b))
    g0, g1 = V.grad(y.sum(), [x0, x1])
    winner0 = 1.0 if op is V.fmin else 0.0                    # 0.5 < 1.5: x0 wins fmin, x1 fmax
    np.testing.assert_array_equal(g0.data, [1.0, 0.0, 0.5, 0.5, winner0])
    np.testing.assert_array_equal(g1.data, [0.0, 1.0, 0.5, 0.5, 1.0 - winner0])


# ----- nan_to_num -------------------------------------------------------------------
def test_nan_to_num_values_and_gradient_mask():
    a = np.array([np.nan, np.inf, -np.inf, 1.5])
    x = V.Variable(a)
    y = V.nan_to_num(x, nan=7.0, posinf=8.0, neginf=-9.0)
    np.testing.assert_array_equal(y.data, [7.0, 8.0, -9.0, 1.5])
    np.testing.assert_array_equal(V.grad(y.sum(), x).data, [0.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(V.nan_to_num(a).data, np.nan_to_num(a))
    f32 = np.array([np.inf, np.nan], dtype=np.float32)
    np.testing.assert_array_equal(V.nan_to_num(f32).data, np.nan_to_num(f32))
    _, dy = V.jvp(V.nan_to_num, a, np.ones(4))
    np.testing.assert_array_equal(dy.data, [0.0, 0.0, 0.0, 1.0])
    assert np.isnan(a[0])                               # the input is not changed


def test_nan_to_num_refuses_copy_false_and_bad_replacements():
    x = V.Variable(np.array([np.nan]))
    with pytest.raises(TypeError, match="nan_to_num: copy=False is not supported"):
        V.nan_to_num(x, copy=False)
    with pytest.raises(TypeError, match="nan_to_num: posinf must be a real number, got str"):
        V.nan_to_num(x, posinf="big")
    with pytest.raises(TypeError, match="nan_to_num: nan must be a real number, got NoneType"):
        V.nan_to_num(x, nan=None)


# ----- real, imag, conj, positive, fabs, copysign -------------------------------------
@pytest.mark.parametrize("op", [V.real, V.imag, V.conj, V.conjugate, V.positive, V.fabs, V.sign, V.round])
def test_complex_input_is_refused_naming_the_op(op):
    name = "conj" if op is V.conjugate else op.__name__
    for z in (np.array([1 + 2j]), 1j, [1j, 2.0]):
        with pytest.raises(TypeError, match=f"^{name}: complex data is not differentiated by gengrad"):
            op(z)


def test_identities_are_recorded_ops():
    x = V.Variable(np.array([1.0, -2.0]))
    for op, name in [(V.real, "Real"), (V.conj, "Conj"), (V.positive, "Positive")]:
        y = op(x)
        assert y is not x and y.creator.name == name
        np.testing.assert_array_equal(V.grad((y * y).sum(), x).data, 2 * x.data)
    assert V.imag(x).creator.name == "Imag"
    assert V.conjugate is V.conj


def test_fabs_of_integers_is_float():
    y = V.fabs(np.array([-2, 3]))
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y.data, [2.0, 3.0])


def test_copysign_gradients_and_signed_zero():
    x1, x2 = V.Variable(np.array([1.5, -1.5, 2.0, 0.0])), V.Variable(np.array([-0.0, -1.0, 3.0, -1.0]))
    y = V.copysign(x1, x2)
    np.testing.assert_array_equal(y.data, np.copysign(x1.data, x2.data))
    g1, g2 = V.grad(y.sum(), [x1, x2])
    np.testing.assert_array_equal(g1.data, [-1.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(g2.data, np.zeros(4))


# ----- heaviside ------------------------------------------------------------------------
def test_heaviside_values_as_numpy():
    a = np.array([-np.inf, -1.5, -0.0, 0.0, 1e-300, np.inf, np.nan])
    y = V.heaviside(a, 0.5)
    np.testing.assert_array_equal(y.data, np.heaviside(a, 0.5))
    np.testing.assert_array_equal(y.data, [0.0, 0.0, 0.5, 0.5, 1.0, 1.0, np.nan])   # -0.0 == 0
    np.testing.assert_array_equal(V.heaviside(np.array([0.0, 1.0]), np.nan).data, [np.nan, 1.0])


def test_heaviside_gradients_zero_for_x1_and_the_zero_mask_for_x2():
    # a step: d/dx1 = 0 (at the jump too, as sign, floor ... take it); d/dx2 = [x1 == 0], 0
    # where x1 is NaN (as JAX's where-based heaviside; PyTorch defines no derivative for it)
    x1 = V.Variable(np.array([-1.0, 0.0, 2.0, np.nan, -0.0]))
    x2 = V.Variable(np.array([0.3, 0.4, 0.5, 0.6, 0.7]))
    g1, g2 = V.grad([V.heaviside(x1, x2).sum()], [x1, x2])
    np.testing.assert_array_equal(g1.data, np.zeros(5), strict=True)
    np.testing.assert_array_equal(g2.data, [0.0, 1.0, 0.0, 0.0, 1.0])
    x1 = V.Variable(np.array([-1.0, 0.0, 2.0]))
    x2 = V.Variable(np.array([0.3, 0.4, 0.5]))
    y = V.heaviside(x1, x2)
    g1, g2 = V.grad([(y * y).sum()], [x1, x2], create_graph=True)
    np.testing.assert_array_equal(g2.data, [0.0, 0.8, 0.0])            # 2 y [x1 == 0]
    assert not g1.requires_grad                                        # every higher one is 0
    h1, h2 = V.grad([g2.sum()], [x1, x2], allow_unused=True)
    assert h1 is None or not np.any(h1.data)
    np.testing.assert_array_equal(h2.data, [0.0, 2.0, 0.0])


@pytest.mark.parametrize("s1, s2", [((2, 3), (3,)), ((3,), (2, 3)), ((2, 1), (1, 3)), ((2, 3), ())])
def test_heaviside_gradient_of_x2_broadcasts_both_ways(s1, s2, rng):
    a = rng.integers(-1, 2, s1).astype(float)                  # -1, 0 or 1: zeros among them
    x1, x2 = V.Variable(a), V.Variable(rng.uniform(-1, 1, s2))
    y = V.heaviside(x1, x2)
    assert y.shape == np.broadcast_shapes(s1, s2)
    g1, g2 = V.grad([y.sum()], [x1, x2])
    mask = np.broadcast_to(a == 0, y.shape).astype(float)
    expected = mask.sum(axis=tuple(range(y.ndim - len(s2)))) if len(s2) < y.ndim else mask
    expected = expected.sum(axis=tuple(i for i, n in enumerate(s2) if n == 1), keepdims=True)
    np.testing.assert_array_equal(g2.data, expected.reshape(s2))
    np.testing.assert_array_equal(g1.data, np.zeros(s1))


def test_heaviside_taylor_passes_x2_where_x1_is_zero():
    a = np.array([-1.0, 0.0, 2.0])
    coefficients = V.taylor(lambda x2: V.heaviside(a, x2), np.array([0.5, 0.5, 0.5]), np.ones(3), 3)
    np.testing.assert_array_equal(coefficients[0].data, [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(coefficients[1].data, [0.0, 1.0, 0.0])
    for c in coefficients[2:]:
        np.testing.assert_array_equal(c.data, np.zeros(3))
    _, dy = V.jvp(lambda x1: V.heaviside(x1, 0.5), a, np.ones(3))
    np.testing.assert_array_equal(dy.data, np.zeros(3))


def test_heaviside_dtypes_as_numpy():
    f32 = np.array([-1.0, 0.0], dtype=np.float32)
    assert V.heaviside(f32, 0.5).dtype == np.float32
    assert V.heaviside(0.5, f32).dtype == np.float32
    ints = V.heaviside(np.array([-2, 0, 3]), np.array([7, 7, 7]))
    assert ints.dtype == np.heaviside(np.array([-2, 0, 3]), np.array([7, 7, 7])).dtype
    np.testing.assert_array_equal(ints.data, [0.0, 7.0, 1.0])
    assert not ints.requires_grad


def test_heaviside_through_numpy_records_the_op():
    x1, x2 = V.Variable(np.array([0.0, 1.0])), V.Variable(np.array([0.25, 0.25]))
    y = np.heaviside(x1, x2)
    assert isinstance(y, V.Variable) and y.creator.name == "Heaviside"
    np.testing.assert_array_equal(V.grad(y.sum(), x2).data, [1.0, 0.0])
    z = np.heaviside(np.array([0.0, -1.0]), x2)
    np.testing.assert_array_equal(V.grad(z.sum(), x2).data, [1.0, 0.0])


def test_heaviside_refusals():
    x = V.Variable(np.array([0.0, 1.0]))
    with pytest.raises(TypeError, match="heaviside: out= is not supported"):
        V.heaviside(x, 0.5, out=np.empty(2))
    with pytest.raises(TypeError, match="heaviside: where=False is not supported"):
        V.heaviside(x, 0.5, where=False)
    with pytest.raises(TypeError, match=r"heaviside\(\) got an unexpected keyword argument 'axis'"):
        V.heaviside(x, 0.5, axis=0)
    with pytest.raises(ValueError, match=r"Heaviside: shapes \(2,\) and \(3,\) cannot be broadcast"):
        V.heaviside(x, np.ones(3))
    with pytest.raises(TypeError, match="(?i)heaviside"):
        V.heaviside(x, "half")
    with pytest.raises(TypeError, match="(?i)heaviside"):
        V.heaviside(np.array([1j]), 0.5)


# ----- refused keywords ---------------------------------------------------------------
@pytest.mark.parametrize("call, message", [
    (lambda x: V.floor(x, out=np.empty(2)), "floor: out= is not supported"),
    (lambda x: V.sign(x, np.empty(2)), "sign: out= is not supported"),
    (lambda x: V.ceil(x, where=np.array([True, False])), "ceil: where=array"),
    (lambda x: V.rint(x, dtype=np.float32), "rint: dtype=<class 'numpy.float32'> is not supported"),
    (lambda x: V.trunc(x, casting="unsafe"), "trunc: casting='unsafe' is not supported"),
    (lambda x: V.mod(x, 2.0, order="C"), "mod: order='C' is not supported"),
    (lambda x: V.fmax(x, x, out=np.empty(2)), "fmax: out= is not supported"),
    (lambda x: V.copysign(x, x, subok=False), "copysign: subok=False is not supported"),
    (lambda x: V.fmod(x, 2.0, axis=0), r"fmod\(\) got an unexpected keyword argument 'axis'"),
    (lambda x: V.round(x, 1.5), "round: decimals must be an int, got float"),
    (lambda x: V.around(x, "1"), "around: decimals must be an int, got str"),
    (lambda x: V.round(x, out=np.empty(2)), "round: out= is not supported"),
    (lambda x: V.fix(x, np.empty(2)), "fix: out= is not supported"),
])
def test_unsupported_keywords_are_refused_naming_the_op(call, message):
    with pytest.raises(TypeError, match=message):
        call(V.Variable(np.array([1.5, -0.5])))


def test_default_ufunc_keywords_are_accepted():
    x = V.Variable(np.array([1.5, -0.5]))
    y = V.floor(x, out=None, where=True, casting="same_kind", order="K", dtype=None, subok=True)
    np.testing.assert_array_equal(y.data, [1.0, -1.0])


# ----- on the device ----------------------------------------------------------------------
DEVICE_CALLS = {
    **{op.__name__: op for op in FLAT},
    "round(a, 1)": lambda x: V.round(x, 1), "nan_to_num": V.nan_to_num, "real": V.real, "conj": V.conj,
    "positive": V.positive, "fabs": V.fabs,
    "mod": lambda x: V.mod(x, 0.7), "mod by x": lambda x: V.mod(2.5, x), "fmod": lambda x: V.fmod(x, x * 0.3),
    "fmax": lambda x: V.fmax(x, 0.1), "fmin": lambda x: V.fmin(x, x * 0.5),
    "copysign": lambda x: V.copysign(x, -1.0),
    "heaviside": lambda x: V.heaviside(x, 0.5),
    "heaviside at 0": lambda x: V.heaviside([0.0, -1.0, 0.0], x),
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
