"""scipy.special's elementary functions (variable/ops/elementary.py): the table rows (third
order, Taylor mode to sixth), then what each keeps that its direct formula loses, against exact
sums in decimals or fractions: exprel and its derivatives at and near 0, the Box-Cox transforms
near lmbda = 0, powm1 near x^y = 1, degrees reduced exactly at any size, agm of the widest
ratios, zetac's tail; SciPy's values and edges, and the device path without a host sync."""

import math
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import BINARY_SHAPES, SMOOTH, Row, device_equals_host, table_tests
from test_ops_special import _decimal_pi, reference_gammaln, reference_zeta

import variable as V


def inside(low, high):
    return lambda *shapes: (lambda rng: tuple(rng.uniform(low, high, s) for s in shapes))


def pairs(first, second):
    """Samplers of (x, y) with x in `first`'s and y in `second`'s range, per shape pair."""
    return lambda s0, s1: (lambda rng: (rng.uniform(*first, s0), rng.uniform(*second, s1)))


def _agm_floats(a, b):
    """The mean by its iteration in float64, run well past convergence."""
    for _ in range(40):
        a, b = (a + b) / 2, np.sqrt(a * b)
    return a


SOME_PAIRS = [BINARY_SHAPES[i] for i in (0, 3, 5, 7)]
"""Scalars, a row against a matrix, an outer broadcast, a scalar against a matrix: the shapes the
binary functions' rows take (each row runs in many checks; their values do not depend on shape)."""

SOME_SHAPES = [(), (2, 3)]


def binary(name, op, ref, first, second):
    return [Row(f"{name} {s0}x{s1}", op, ref, pairs(first, second)(s0, s1), SMOOTH) for s0, s1 in SOME_PAIRS]


def unary(op, ref, ranges):
    """Rows of a unary function: one range on both shapes, several ranges on the shapes in turn."""
    cases = [(r, shape) for r in ranges for shape in SOME_SHAPES] if len(ranges) == 1 else \
        [(r, SOME_SHAPES[i % 2]) for i, r in enumerate(ranges)]
    return [Row(f"[{low}, {high}] {shape}", op, ref, inside(low, high)(shape), SMOOTH)
            for (low, high), shape in cases]


def degrees(op, ref, ranges):
    return unary(op, lambda x: ref(np.deg2rad(x)), ranges)


def _dilog_decimal(w):
    """Li2(w) of a Decimal w <= 1 in the context's precision: sum_k w^k / k^2 for |w| <= 1/2;
    below -1 the inversion -pi^2/6 - log^2(-w)/2 - Li2(1/w); on [-1, -1/2) Landen's -Li2(w/(w-1))
    - log^2(1-w)/2; above 1/2 Euler's reflection pi^2/6 - log(w) log(1-w) - Li2(1-w)."""
    if w < -1:
        return -_decimal_pi() ** 2 / 6 - (-w).ln() ** 2 / 2 - _dilog_decimal(1 / w)
    if w < Decimal("-0.5"):
        return -_dilog_decimal(w / (w - 1)) - (1 - w).ln() ** 2 / 2
    if w == 1:
        return _decimal_pi() ** 2 / 6
    if w > Decimal("0.5"):
        return _decimal_pi() ** 2 / 6 - w.ln() * (1 - w).ln() - _dilog_decimal(1 - w)
    total, power, k = Decimal(0), Decimal(1), 0
    while True:
        k += 1
        power *= w
        total += power / (k * k)
        if abs(power) < Decimal(10) ** -45:
            return total


def reference_spence(z):
    """Li2(1 - z) in 50-digit decimals (1 - z exact there)."""
    def one(v):
        with localcontext() as context:
            context.prec = 50
            return float(_dilog_decimal(1 - Decimal(float(v))))
    return np.vectorize(one, otypes=[np.float64])(z)


ROWS = {
    "exprel": unary(V.exprel, lambda x: np.expm1(x) / x, ((-1.5, 1.5), (2.5, 8.0), (-8.0, -2.5))),
    "cosm1": unary(V.cosm1, lambda x: np.cos(x) - 1, ((-4.0, 4.0),)),
    "powm1": binary("x > 0", V.powm1, lambda x, y: x ** y - 1, (0.3, 3.0), (-2.0, 2.0)),
    "boxcox": binary("lmbda > 0", V.boxcox, lambda x, lam: (x ** lam - 1) / lam, (0.3, 3.0), (0.2, 1.5))
    + [Row("lmbda near 0", V.boxcox, lambda x, lam: np.expm1(lam * np.log(x)) / lam,
           pairs((0.3, 3.0), (-1e-3, 1e-3))((2, 3), (3,)), SMOOTH)],
    "boxcox1p": binary("lmbda < 0", V.boxcox1p, lambda x, lam: np.expm1(lam * np.log1p(x)) / lam, (-0.7, 2.0),
                       (-1.5, -0.2)),
    "inv_boxcox": binary("lmbda > 0", V.inv_boxcox, lambda y, lam: (1 + lam * y) ** (1 / lam), (-0.5, 2.0),
                         (0.2, 1.5))
    + [Row("lmbda near 0", V.inv_boxcox, lambda y, lam: np.exp(np.log1p(lam * y) / lam),
           pairs((-2.0, 2.0), (-1e-3, 1e-3))((2, 3), (3,)), SMOOTH)],
    "inv_boxcox1p": binary("lmbda < 0", V.inv_boxcox1p, lambda y, lam: np.expm1(np.log1p(lam * y) / lam),
                           (-1.0, 1.5), (-0.6, -0.1)),
    "exp10": unary(V.exp10, lambda x: 10.0 ** x, ((-3.0, 3.0),)),
    "sindg": degrees(V.sindg, np.sin, ((-400.0, 400.0),)),
    "cosdg": degrees(V.cosdg, np.cos, ((-400.0, 400.0),)),
    "tandg": degrees(V.tandg, np.tan, ((-80.0, 80.0), (100.0, 170.0))),
    "cotdg": degrees(V.cotdg, lambda r: 1 / np.tan(r), ((10.0, 170.0), (-260.0, -190.0))),
    "radian": [Row(str(s), V.radian, lambda d, m, s: (d + m / 60 + s / 3600) * np.pi / 180,
                   inside(-90.0, 90.0)(s, s, s), SMOOTH) for s in SOME_SHAPES]
    + [Row("broadcast", V.radian, lambda d, m, s: (d + m / 60 + s / 3600) * np.pi / 180,
           inside(-90.0, 90.0)((2, 1), (3,), ()), SMOOTH)],
    "agm": binary("a, b > 0", V.agm, _agm_floats, (0.2, 5.0), (0.2, 5.0))
    + [Row("a, b < 0", V.agm, lambda a, b: -_agm_floats(-a, -b),
           pairs((-5.0, -0.2), (-5.0, -0.2))((3,), (3,)), SMOOTH)],
    "zetac": unary(V.zetac, lambda x: reference_zeta(x) - 1, ((1.3, 6.0), (-3.0, 0.8))),   # (Hurwitz's, - 1)
    "loggamma": unary(V.loggamma, reference_gammaln, ((0.3, 5.0),)),
    "spence": unary(V.spence, reference_spence, ((0.1, 0.45), (0.6, 1.8), (2.5, 9.0))),   # (the three ways)
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


# ----- exprel, and the Box-Cox transforms near lmbda = 0 ---------------------------------------
def _exprel_derivative(x, m, digits=50):
    """The m-th derivative of exprel at x: int_0^1 t^m e^(xt) dt = sum_k x^k / (k! (k + m + 1))."""
    with localcontext() as context:
        context.prec = digits
        x, total, term, k = Decimal(x), Decimal(0), Decimal(1), 0
        while True:
            piece = term / (k + m + 1)
            total += piece
            if k > 10 and abs(piece) < Decimal(10) ** -(digits - 5) * abs(total):
                return float(total)
            k += 1
            term = term * x / k


def test_exprel_and_its_derivatives_keep_their_digits_at_and_near_0():
    x = np.array([0.0, 1e-300, -1e-12, 1e-8, 0.3, -1.0, 1.999, -1.999, 2.0, 3.5, -20.0, 300.0])
    for m in range(5):
        got = V.nth_derivative(V.exprel, x, np.ones_like(x), m).data if m else V.exprel(x).data
        expected = np.array([_exprel_derivative(v, m) for v in x])
        # (exact near 0 by the series; the quotient's derivatives far out lose a few digits:
        # 3e-13 at m = 4, x = -20)
        np.testing.assert_allclose(got, expected, rtol=3e-16 * 8 ** m if m else 5e-16)
    # beyond e^x's overflow the quotient is still finite (its half-and-half form)
    for v in (700.5, 710.0, 716.0):
        with localcontext() as context:
            context.prec = 40
            assert V.exprel(v).data == pytest.approx(float(Decimal(v).exp() / Decimal(v)), rel=1e-15)
    np.testing.assert_array_equal(V.exprel(np.array([-np.inf, np.inf, np.nan, 720.0])).data,
                                  [0.0, np.inf, np.nan, np.inf])


def test_boxcox_at_lmbda_0_is_log_and_its_lmbda_derivative_log_squared_over_2():
    x = np.array([0.3, 1.0, 2.0, 50.0])
    lam = V.Variable(np.zeros(4))
    y = V.boxcox(x, lam)
    np.testing.assert_allclose(y.data, np.log(x), rtol=1e-16)
    g, = V.grad(V.sum(y), [lam], create_graph=True)
    np.testing.assert_allclose(g.data, np.log(x) ** 2 / 2, rtol=2e-16)
    h, = V.grad(V.sum(g), [lam])
    np.testing.assert_allclose(h.data, np.log(x) ** 3 / 3, rtol=2e-16)
    # the inverse undoes it, and the shifted ones too, near 0 and away from it
    for lmbda in (0.0, 1e-12, -0.3, 2.5):
        np.testing.assert_allclose(V.inv_boxcox(V.boxcox(x, lmbda), lmbda).data, x, rtol=1e-14)
        np.testing.assert_allclose(V.inv_boxcox1p(V.boxcox1p(x - 0.2, lmbda), lmbda).data, x - 0.2,
                                   rtol=1e-14)


def test_powm1_keeps_the_digits_of_x_to_the_y_near_1():
    with localcontext() as context:
        context.prec = 50
        for x, y in ((1 + 2 ** -40, 3.0), (0.999, 1e-7), (2.0, -1e-10), (7.5, 0.25)):
            expected = float((Decimal(y) * Decimal(x).ln()).exp() - 1)
            assert V.powm1(x, y).data == pytest.approx(expected, rel=3e-16)
    edges = V.powm1(np.array([-2.0, -2.0, 0.0, 0.0, 1.0]), np.array([3.0, 0.5, 2.0, -1.0, np.nan]))
    np.testing.assert_array_equal(edges.data, [-9.0, np.nan, -1.0, np.inf, 0.0])


# ----- degrees --------------------------------------------------------------------------------
def _sin_of_degrees(x):
    """sin(x degrees), x reduced modulo 360 in fractions (exact), then in floats."""
    return math.sin(float(Fraction(x) % 360) * math.pi / 180)


def test_degrees_are_reduced_exactly_at_any_size():
    k = np.array([0.0, 1.0, 2.0, -3.0, 7.0, 2.0 ** 40, 12345.0])
    np.testing.assert_array_equal(V.sindg(180.0 * k).data, 0.0 * k)
    np.testing.assert_array_equal(V.cosdg(90.0 + 180.0 * k).data, 0.0 * k)
    np.testing.assert_array_equal(V.tandg(45.0 + 180.0 * k).data, np.ones_like(k))
    np.testing.assert_array_equal(V.cotdg(-45.0 + 180.0 * k).data, -np.ones_like(k))
    np.testing.assert_array_equal(V.sindg(np.array([30.0, 150.0, -30.0, 390.0])).data, [0.5, 0.5, -0.5, 0.5])
    large = np.array([1e15 + 0.5, 2.0 ** 60 + 2.0 ** 8, 1e300, -7.3e22, 123456.789])
    np.testing.assert_allclose(V.sindg(large).data, [_sin_of_degrees(v) for v in large], rtol=1e-14,
                               atol=1e-300)
    # their derivatives: pi / 180 times the cosine, and at the exact points
    x = V.Variable(np.array([0.0, 90.0, 1e15 + 0.5]))
    g, = V.grad(V.sum(V.sindg(x)), [x])
    np.testing.assert_allclose(g.data, V.cosdg(x).data * (math.pi / 180), rtol=1e-15, atol=1e-300)
    np.testing.assert_array_equal(V.sindg(np.array([np.inf, -np.inf, np.nan])).data, [np.nan] * 3)
    for op, slope in ((V.tandg, lambda x: 1 + V.tandg(x).data ** 2),
                      (V.cotdg, lambda x: -1 - V.cotdg(x).data ** 2)):
        x = V.Variable(np.array([0.0, 90.0, 45.0, 180.0, 30.0, -135.0]))
        x = x[(1, 2, 4, 5), ] if op is V.cotdg else x[(0, 2, 3, 4, 5), ]          # (off the poles)
        g, = V.grad(V.sum(op(x)), [x])
        np.testing.assert_allclose(g.data, slope(x) * (math.pi / 180), rtol=1e-15)


# ----- agm, zetac -------------------------------------------------------------------------------
def _agm_decimal(a, b, digits=60):
    with localcontext() as context:
        context.prec = digits
        a, b = Decimal(a), Decimal(b)
        for _ in range(40):
            a, b = (a + b) / 2, (a * b).sqrt()
        return float(a)


def test_agm_of_the_widest_ratios_and_its_edges():
    pairs_ = [(1.0, 2.0), (1e300, 1e-300), (5e-324, 1.7e308), (1e308, 1e308), (3.0, 3.0), (1e-320, 2.0)]
    got = V.agm(np.array([a for a, _ in pairs_]), np.array([b for _, b in pairs_])).data
    np.testing.assert_allclose(got, [_agm_decimal(a, b) for a, b in pairs_], rtol=8e-16)
    edges = V.agm(np.array([0.0, -1.0, 1.0, -np.inf, np.inf, 0.0, -2.0]),
                  np.array([5.0, 2.0, np.inf, -1.0, 0.0, np.nan, -8.0])).data
    np.testing.assert_array_equal(edges[:6], [0.0, np.nan, np.inf, -np.inf, np.nan, np.nan])
    assert edges[6] == -V.agm(2.0, 8.0).data
    # its derivative in a: (agm / a) times the ratio K(1 - (b/a)^2)-free form checked by differences
    assert V.gradcheck(V.agm, np.array([1e-3, 1.0, 40.0]), np.array([2.0, 1e-4, 40.0]), order=2)


def test_zetac_keeps_the_digits_of_zeta_near_1():
    with localcontext() as context:
        context.prec = 40
        for x in (12.0, 60.0, 200.0):
            expected = float(sum(Decimal(k) ** -Decimal(x) for k in range(2, 200)))
            assert V.zetac(x).data == pytest.approx(expected, rel=1e-15)
    np.testing.assert_array_equal(V.zetac(np.array([1.0, np.inf, -np.inf, -2.0])).data,
                                  [np.inf, 0.0, np.nan, -1.0])


def test_loggamma_is_gammaln_at_and_above_0_and_nan_below():
    x = np.array([-2.5, -0.5, 0.0, 1e-300, 0.5, 3.0, np.inf])
    np.testing.assert_array_equal(V.loggamma(x).data[:2], [np.nan, np.nan])
    np.testing.assert_array_equal(V.loggamma(x).data[2:], V.gammaln(x[2:]).data)


def test_spence_to_the_last_digits_on_both_sides_of_its_joins_and_smooth_through_1():
    z = np.concatenate([np.linspace(0.02, 0.49, 12), [0.5, 0.9, 1.0 - 2 ** -30, 1.0 + 2 ** -30, 1.7, 2.0],
                        np.linspace(2.01, 40.0, 12), [1e10, 1e300]])
    np.testing.assert_allclose(V.spence(z).data, reference_spence(z), rtol=4e-16, atol=1e-300)
    np.testing.assert_array_equal(V.spence(np.array([0.0, 1.0, np.inf, -1.0, np.nan])).data,
                                  [math.pi ** 2 / 6, 0.0, -np.inf, np.nan, np.nan])
    x = V.Variable(np.array([0.3, 1.0, 1.0 + 1e-9, 4.0]))
    first, = V.grad(V.sum(V.spence(x)), [x], create_graph=True)        # log(z) / (1 - z): -1 at 1
    second, = V.grad(V.sum(first), [x])
    z = x.data
    slope = np.where(z == 1, -1.0, np.log(z) / (1 - np.where(z == 1, 0.5, z)))
    np.testing.assert_allclose(first.data, slope, rtol=2e-7)     # (1 + 1e-9: the quotient's own rounding)
    np.testing.assert_allclose(first.data[[0, 1, 3]], slope[[0, 1, 3]], rtol=1e-15)
    curvature = np.where(z == 1, 0.5, (1 / z * (1 - z) + np.log(z)) / (1 - np.where(z == 1, 0.5, z)) ** 2)
    np.testing.assert_allclose(second.data[[0, 1, 3]], curvature[[0, 1, 3]], rtol=1e-14)


# ----- SciPy's values and edges, and its ufuncs on Variables -----------------------------------
EDGES = {
    "exprel": (np.array([0.0, -0.0, 1e-300, -3e-9, 0.5, -1.9, 2.0, 30.0, -800.0, 700.0, -np.inf, np.nan]),),
    "cosm1": (np.array([0.0, 1e-8, -1e-3, 3.0, 100.0, np.inf, np.nan]),),
    "powm1": (np.array([0, 0, 0, -2, -2, -2, 2, np.inf, 1, -1, np.nan, 1, 0.5, 1 + 1e-12, 3, -3,
                        np.inf]),
              np.array([1, -1, 0, 2, 0.5, 3, np.inf, 0, np.nan, -np.inf, 0, np.inf, np.inf, 3, -2.5, -3,
                        -1])),
    "boxcox": (np.array([0, 0, 0, -1, 2, 2, np.inf, 0.5, 3, 3, 1e-5, 100, np.inf, 0]),
               np.array([1, 0, -1, 1, 0, 1e-300, 1, -2, 0.5, -1e-9, 2, -3, -2, np.nan])),
    "inv_boxcox": (np.array([1, -1, -2, 0.5, np.inf, 5, 0.3, -0.4, 1e-9, 3, -np.inf, -np.inf, np.inf]),
                   np.array([1, 1, 1, 0, 1, -0.5, 2, -1, 0.7, 1e-12, 0, -1, -1])),
    "exp10": (np.array([308.5, 309.0, -330.0, 2.5, 22.0, -5.0, 0.1, np.nan]),),
    "sindg": (np.array([0, 30, 90, 180, 270, 360, -180, 45, -45, 135, 225, 60, 721.5, np.nan]),),
    "tandg": (np.array([0, 45, 90, -90, 135, 180, 270, 30, -60, 721.5, np.nan]),),
    "radian": (np.array([1.0, -2.0]), np.array([2.0, 3.0]), np.array([3.0, -7.0])),
    "agm": (np.array([1, 1, 0, -1, -1, 1e300, 1e-300, np.inf, 0, -np.inf, 1e-320, 3, 5e-324, -1]),
            np.array([2, -2, 1, -2, 0, 1e-300, 1e-300, 1, np.inf, -1, 1, 3, 1e308, 0])),
    "zetac": (np.array([1, 0, 2, 60, np.inf, -1, 0.5, 1.0000001, -30, 100, 1.5, -0.7, 3.3, 12]),),
    "loggamma": (np.array([-0.5, 0.0, 1e-300, 3.0, -np.inf, np.inf, 0.5, 100.0]),),
    "spence": (np.array([0.0, 1e-300, 1e-8, 0.1, 0.4999, 0.5, 0.9, 1.0, 1.5, 3.0, 10.0, 1e300, -1.0,
                         np.nan]),),
}
EDGES.update(boxcox1p=tuple(a - (1 if i == 0 else 0) for i, a in enumerate(EDGES["boxcox"])),
             inv_boxcox1p=EDGES["inv_boxcox"], cosdg=EDGES["sindg"], cotdg=EDGES["tandg"])


@pytest.mark.parametrize("name", sorted(EDGES))
def test_scipys_values_and_edges_and_its_ufunc_on_a_variable_records_the_op(name):
    special = pytest.importorskip("scipy.special")
    args = EDGES[name]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        expected, ours = getattr(special, name)(*args), getattr(V, name)(*args).data
        xs = [V.Variable(a) for a in args]
        recorded = getattr(special, name)(*xs)
    np.testing.assert_allclose(ours, expected, rtol=6e-15, atol=0)
    assert isinstance(recorded, V.Variable) and recorded.creator is not None
    np.testing.assert_array_equal(recorded.data, ours)


def test_float32_in_float32_out():
    x = np.array([0.25, 1.5, 3.0], dtype=np.float32)
    for op, args in [(V.exprel, (x,)), (V.cosm1, (x,)), (V.exp10, (x,)), (V.sindg, (x * 100,)),
                     (V.tandg, (x * 10,)), (V.agm, (x, x * 2)), (V.boxcox, (x, x)), (V.inv_boxcox, (x, x)),
                     (V.powm1, (x, x)), (V.zetac, (x + 1,)), (V.loggamma, (x,)), (V.radian, (x, x, x))]:
        assert op(*args).dtype == np.float32, op.__name__


def test_on_the_device_the_elementary_functions_are_the_hosts_without_a_sync(gpu, count_syncs):
    cases = [(V.exprel, (np.array([-np.inf, -30.0, -1e-9, 0.0, 1.5, 2.5, 705.0, np.inf]),)),
             (V.cosm1, (np.array([0.0, 1e-8, 3.0]),)),
             (V.powm1, (np.array([0.0, -2.0, 2.0, 1.0, 0.5]), np.array([-1.0, 3.0, 0.5, np.nan, 1e-9]))),
             (V.boxcox, (np.array([0.0, 2.0, -1.0, 0.5]), np.array([1.0, 0.0, 1.0, 1e-9]))),
             (V.inv_boxcox1p, (np.array([1.0, -1.0, 0.5, 0.1]), np.array([1.0, 1.0, 0.0, -0.5]))),
             (V.exp10, (np.array([-2.0, 0.5, 3.0]),)),
             (V.sindg, (np.array([0.0, 30.0, 180.0, 1e15 + 0.5, np.inf]),)),
             (V.tandg, (np.array([0.0, 45.0, 90.0, 135.0, 100.0]),)),
             (V.cotdg, (np.array([0.0, 45.0, 90.0, 20.0]),)),
             (V.agm, (np.array([1.0, 1e300, -2.0, 0.0, 1.0]), np.array([2.0, 1e-300, -3.0, 1.0, -1.0]))),
             (V.zetac, (np.array([-2.0, 0.5, 1.0, 3.0, 60.0]),)),
             (V.loggamma, (np.array([-1.5, 0.5, 3.0]),)),
             (V.spence, (np.array([-1.0, 0.0, 0.3, 1.0, 1.9, 2.5, np.inf]),))]
    for op, args in cases:
        assert device_equals_host(op, args, count_syncs).count == 0, op.__name__


def test_a_host_array_or_variable_beside_device_data_is_refused_naming_the_op(gpu):
    on_device = V.Variable(np.ones(3)).to_gpu()
    with pytest.raises(TypeError, match=r"boxcox: expected the NumPy array on the device of the GPU data"):
        V.boxcox(np.ones(3), on_device)
    with pytest.raises(TypeError, match=r"huber: expected all inputs on one device, got input 0 on the CPU"):
        V.huber(V.Variable(np.ones(3)), on_device)
    assert V.backend.device_of(V.powm1(on_device, 2.0)) == "gpu"       # (numbers go where the data is)
