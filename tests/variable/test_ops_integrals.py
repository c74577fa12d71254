"""The sine and cosine integrals, their hyperbolic kin and Fresnel's integrals
(variable/ops/integrals.py): the table rows (third order, Taylor mode to sixth) against 60-digit
references of our own (power series in Decimal near 0, the asymptotic expansions far out with the
phase from x^2 taken exactly), the edges, the derivatives, sinh x / x at 0, SciPy's values, and
the device path without a host sync."""

import functools
import math
import pickle
from decimal import ROUND_FLOOR, Decimal, getcontext, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import SMOOTH, Row, table_tests

import variable as V

DIGITS = 60


@functools.cache
@functools.cache
def machin_pi(digits=DIGITS + 10):
    """pi to `digits` digits by Machin's formula, 16 arctan(1/5) - 4 arctan(1/239) (the other
    families' references take it from here; once for each number of digits)."""
    def arctan_inverse(n):
        total, term, k, n2 = Decimal(0), Decimal(1) / n, 0, n * n
        tiny = Decimal(10) ** -(digits + 5)   # `while term` would run on to Decimal's underflow
        while term > tiny:
            total += term / (2 * k + 1) * (-1) ** k
            term /= n2
            k += 1
        return total
    with localcontext() as ctx:
        ctx.prec = digits
        return 16 * arctan_inverse(5) - 4 * arctan_inverse(239)


PI = machin_pi()


def _bernoulli(count):
    """B_0 .. B_count exactly, from sum_k C(n + 1, k) B_k = 0."""
    numbers = [Fraction(1)]
    for n in range(1, count + 1):
        numbers.append(-sum(math.comb(n + 1, k) * numbers[k] for k in range(n)) / (n + 1))
    return numbers


def _euler_gamma():
    """Euler's constant from H_n - log n - 1/(2n) + sum_k B_2k / (2k n^2k) at n = 1000 (the terms
    left out below 1e-80)."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + 20
        n, bernoulli = 1000, _bernoulli(30)
        harmonic = sum(Decimal(1) / k for k in range(1, n + 1))
        correction = sum(Decimal(bernoulli[2 * k].numerator) / Decimal(bernoulli[2 * k].denominator)
                         / (2 * k * Decimal(n) ** (2 * k)) for k in range(1, 15))
        return harmonic - Decimal(n).ln() - Decimal(1) / (2 * n) + correction


EULER_GAMMA = _euler_gamma()


def _decimal(x):
    return Decimal(Fraction(float(x)).numerator) / Decimal(Fraction(float(x)).denominator)


def _series(x, odd, sign, weight):
    """sum_n sign^n x^(2n + odd) / ((2n + odd)! weight(n)) in DIGITS digits (enough for x <= 40)."""
    term, total, n = (x if odd else Decimal(1)), Decimal(0), 0
    while True:
        value = term / weight(n)
        total += value
        if n > 5 and abs(value) < Decimal(10) ** (-DIGITS) * (abs(total) + 1):
            return total
        term *= sign * x * x / ((2 * n + 1 + odd) * (2 * n + 2 + odd))
        n += 1


def _cos_sin(theta):
    """(cos, sin) of a Decimal angle below 2 pi, by their series."""
    return _series(theta, 0, -1, lambda n: 1), _series(theta, 1, -1, lambda n: 1)


def cos_sin(angle):
    """(cos, sin) of a Decimal angle, reduced modulo 2 pi (by a pi of 120 digits), by their series
    in the context's digits (the other families' references take them from here)."""
    pi = machin_pi(120)
    reduced = angle - (angle / (2 * pi)).to_integral_value(rounding=ROUND_FLOOR) * 2 * pi
    cos, sin, term, k = Decimal(0), Decimal(0), Decimal(1), 0
    while abs(term) > Decimal(10) ** -(getcontext().prec + 5) or k < 4:
        if k % 2 == 0:
            cos += term if k % 4 == 0 else -term
        else:
            sin += term if k % 4 == 1 else -term
        k += 1
        term = term * reduced / k
    return cos, sin


def _near(x, kind):
    """Si, Ci, Shi, Chi or Fresnel's S, C at |x| <= 80 (6 for Fresnel's) from the power series (the
    largest term below e^80, 35 digits, above the sum's digits)."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + 40
        a = abs(_decimal(x))
        if kind in ("si", "shi"):
            return float(_series(a, 1, -1 if kind == "si" else 1, lambda n: 2 * n + 1))
        if kind in ("ci", "chi"):
            rest = _series(a, 0, -1 if kind == "ci" else 1, lambda n: 2 * n if n else 1) - 1
            return float(EULER_GAMMA + a.ln() + rest)
        u = PI / 2 * a * a                           # S = a sum (-1)^n u^(2n+1) / ((2n+1)! (4n+3)) ...
        odd = kind == "s"
        return float(a * _series(u, odd, -1, lambda n: 4 * n + 1 + 2 * odd))


def _far(x, kind):
    """Si, Ci or Fresnel's S, C at large |x| from the asymptotic expansions of the auxiliary f, g
    (to their smallest term), the phase exact: x^2 modulo 4 as a fraction for Fresnel's."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + 10
        a = abs(_decimal(x))
        if kind in ("si", "ci"):        # f ~ (1/x) sum (-1)^k (2k)! / x^2k, g ~ (1/x^2) sum (-1)^k (2k+1)!...
            f, g, k = Decimal(0), Decimal(0), 0
            f_term, g_term = 1 / a, 1 / (a * a)
            while abs(g_term) > Decimal(10) ** (-DIGITS) and k < 200:
                f, g = f + f_term, g + g_term
                f_next = -f_term * (2 * k + 1) * (2 * k + 2) / (a * a)
                g_next = -g_term * (2 * k + 2) * (2 * k + 3) / (a * a)
                if abs(g_next) > abs(g_term):        # (asymptotic: to its smallest term)
                    break
                f_term, g_term, k = f_next, g_next, k + 1
            turns = Fraction(float(abs(x))) / (2 * Fraction(*PI.as_integer_ratio()))
            reduced = turns - math.floor(turns)
            c, s = _cos_sin(Decimal(reduced.numerator) / Decimal(reduced.denominator) * 2 * PI)
            return float(PI / 2 - f * c - g * s) if kind == "si" else float(f * s - g * c)
        # 1/2 - C = g cos - f sin ... with f ~ (1/(pi x)) sum (-1)^k (4k-1)!! / (pi x^2)^(2k),
        # g ~ (1/(pi^2 x^3)) sum (-1)^k (4k+1)!! / (pi x^2)^(2k)
        w = 1 / (PI * a * a)
        f, g, k = Decimal(0), Decimal(0), 0
        f_term, g_term = 1 / (PI * a), 1 / (PI * PI * a ** 3)
        while abs(g_term) > Decimal(10) ** (-DIGITS) and k < 200:
            f, g = f + f_term, g + g_term
            f_next = -f_term * (4 * k + 1) * (4 * k + 3) * w * w
            g_next = -g_term * (4 * k + 3) * (4 * k + 5) * w * w
            if abs(g_next) > abs(g_term):            # (asymptotic: to its smallest term)
                break
            f_term, g_term, k = f_next, g_next, k + 1
        square = Fraction(float(abs(x))) ** 2
        reduced = square - 4 * math.floor(square / 4)
        c, s = _cos_sin(PI / 2 * Decimal(reduced.numerator) / Decimal(reduced.denominator))
        return float(Decimal("0.5") + f * s - g * c) if kind == "c" else float(Decimal("0.5") - f * c - g * s)


def reference(kind, x):
    """60-digit value of Si, Ci, Shi, Chi, S or C at each entry of x (sign rules as SciPy's)."""
    reach = {"s": 6.0, "c": 6.0}.get(kind, 80.0)

    def one(v):
        value = _near(v, kind) if abs(v) <= reach else _far(v, kind)
        return math.copysign(value, v) if kind in ("si", "shi", "s", "c") else value
    return np.vectorize(one, otypes=[np.float64])(x)


def ref_sici(x):
    return reference("si", x), reference("ci", x)


def ref_shichi(x):
    return reference("shi", x), reference("chi", x)


def ref_fresnel(x):
    return reference("s", x), reference("c", x)


def both_sides(low, high, shape=(3,)):
    return lambda rng: (rng.choice([-1.0, 1.0], shape) * rng.uniform(low, high, shape),)


ROWS = {
    "sici": [Row("0.3 < |x| < 4", V.sici, ref_sici, both_sides(0.3, 4.0), SMOOTH),
             Row("4 < |x| < 15, (2, 3)", V.sici, ref_sici, both_sides(4.0, 15.0, (2, 3)), SMOOTH)],
    "shichi": [Row("0.3 < |x| < 2", V.shichi, ref_shichi, both_sides(0.3, 2.0), SMOOTH),
               Row("2 < |x| < 6, (2, 3)", V.shichi, ref_shichi, both_sides(2.0, 6.0, (2, 3)), SMOOTH)],
    "fresnel": [Row("|x| < 1", V.fresnel, ref_fresnel, both_sides(0.0, 1.0), SMOOTH),
                Row("1 < |x| < 3, (2, 3)", V.fresnel, ref_fresnel, both_sides(1.0, 3.0, (2, 3)), SMOOTH)],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


def test_eulers_constant():
    """The constant the references take, computed twice: n = 1000 above, and n = 3000 here."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + 20
        n, bernoulli = 3000, _bernoulli(20)
        harmonic = sum(Decimal(1) / k for k in range(1, n + 1))
        correction = sum(Decimal(bernoulli[2 * k].numerator) / Decimal(bernoulli[2 * k].denominator)
                         / (2 * k * Decimal(n) ** (2 * k)) for k in range(1, 10))
        gamma = harmonic - Decimal(n).ln() - Decimal(1) / (2 * n) + correction
    assert abs(gamma - EULER_GAMMA) < Decimal(10) ** -DIGITS
    assert float(EULER_GAMMA) == 0.5772156649015329


GRID = np.concatenate([np.geomspace(1e-12, 0.3, 12), np.linspace(0.3, 12.0, 120),
                       np.geomspace(12.0, 1e9, 25)])


@pytest.mark.parametrize("kind, op, part, rtol, atol", [
    ("si", V.sici, 0, 8e-16, 0), ("ci", V.sici, 1, 4e-16, 8e-16),
    ("shi", V.shichi, 0, 1.2e-15, 0), ("chi", V.shichi, 1, 1.2e-15, 4e-16),
    ("s", V.fresnel, 0, 5e-16, 0), ("c", V.fresnel, 1, 5e-16, 0)])
def test_against_60_digits(kind, op, part, rtol, atol):
    """Within a few ulps over 1e-12 .. 1e9 (Shi and Chi to 40, beyond which e^x overflows at 717;
    ci and Chi absolute near their zeros, where the terms cancel); both signs."""
    x = GRID[GRID <= (40.0 if kind in ("shi", "chi") else 1e9)]
    x = np.concatenate([x, -x[::7]])
    np.testing.assert_allclose(op(x)[part].data, reference(kind, x), rtol=rtol, atol=atol)


def test_fresnel_keeps_its_phase_far_out():
    """x^2 modulo 4 exactly: 1/2 - S(x) ~ cos(pi x^2 / 2) / (pi x) to its last digits at 1e7,
    where pi x^2 / 2 rounded would be off by its ulp, 2e-3 radians."""
    x = np.array([12345.678, 1e7 + 0.3, 98765432.1, 3.3e8])
    s, c = V.fresnel(x)
    np.testing.assert_allclose(0.5 - s.data, 0.5 - reference("s", x), rtol=1e-11)
    np.testing.assert_allclose(0.5 - c.data, 0.5 - reference("c", x), rtol=1e-11)


def test_edges():
    with np.errstate(all="raise"):
        si, ci = V.sici(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e200]))
        shi, chi = V.shichi(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 800.0, -800.0]))
        s, c = V.fresnel(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e200, -1e300]))
    quarter = math.pi / 2
    np.testing.assert_array_equal(si.data, [0.0, -0.0, quarter, -quarter, np.nan, quarter, -quarter])
    assert np.signbit(si.data[1]) and not np.signbit(si.data[0])
    np.testing.assert_array_equal(ci.data[:5], [-np.inf, -np.inf, 0.0, 0.0, np.nan])
    np.testing.assert_allclose(ci.data[5:], np.sin([1e300, 1e200]) / [1e300, 1e200], rtol=1e-15)
    np.testing.assert_array_equal(shi.data, [0.0, -0.0, np.inf, -np.inf, np.nan, np.inf, -np.inf])
    np.testing.assert_array_equal(chi.data, [-np.inf, -np.inf, np.inf, np.inf, np.nan, np.inf, np.inf])
    np.testing.assert_array_equal(s.data, [0.0, -0.0, 0.5, -0.5, np.nan, 0.5, -0.5])
    np.testing.assert_array_equal(c.data, [0.0, -0.0, 0.5, -0.5, np.nan, 0.5, -0.5])


def test_symmetry():
    x = np.array([1e-5, 0.7, 3.9, 4.1, 17.0, 1e5])
    for op in (V.sici, V.shichi, V.fresnel):
        (odd_plus, even_plus), (odd_minus, even_minus) = op(x), op(-x)
        np.testing.assert_array_equal(odd_minus.data, -odd_plus.data)
        if op is V.fresnel:
            np.testing.assert_array_equal(even_minus.data, -even_plus.data)
        else:
            np.testing.assert_array_equal(even_minus.data, even_plus.data)


def test_the_derivatives_are_the_integrands():
    x = V.Variable(np.array([-7.5, -0.2, 1e-3, 0.9, 2.5, 30.0]))
    expected = {V.sici: (np.sin(x.data) / x.data, np.cos(x.data) / x.data),
                V.shichi: (np.sinh(x.data) / x.data, np.cosh(x.data) / x.data),
                V.fresnel: (np.sin(np.pi / 2 * x.data ** 2), np.cos(np.pi / 2 * x.data ** 2))}
    for op, slopes in expected.items():
        for part, slope in enumerate(slopes):
            g, = V.grad(V.sum(op(x)[part]), [x])
            np.testing.assert_allclose(g.data, slope, rtol=1e-14)


def test_at_zero_si_and_shi_are_smooth():
    """Si = x - x^3/18 + x^5/600 - ..., Shi = x + x^3/18 + x^5/600 + ...: derivatives 1, 0, -+1/3,
    0, 1/5 at 0 (sin x / x and sinh x / x at 0, smooth to every order), in reverse and Taylor mode."""
    for op, sign in ((V.sici, -1.0), (V.shichi, 1.0)):
        def f(x, op=op):
            return op(x)[0]
        x = V.Variable(np.array([0.0]))
        y, derivatives = f(x), []
        for _ in range(5):
            y, = V.grad(V.sum(y), [x], create_graph=True)
            derivatives.append(float(y.data[0]))
        np.testing.assert_allclose(derivatives, [1.0, 0.0, sign / 3, 0.0, 1 / 5], atol=1e-15)
        taylor = V.taylor(f, np.array([0.0]), np.array([1.0]), 5)
        np.testing.assert_allclose([float(t.data[0]) for t in taylor[1:]], derivatives, atol=1e-15)


def test_sinh_x_over_x_far_out_and_its_derivatives():
    """Shi' = sinh x / x beyond 20 from e^x in halves (finite to 717, where sinh overflows from 710),
    and its derivatives to fourth order against those of sinh x / x in closed form."""
    x = np.array([-25.0, 0.5, 19.9, 20.1, 45.0, 715.0])
    v = V.Variable(x)
    g, = V.grad(V.sum(V.shichi(v)[0]), [v], create_graph=True)
    half = np.exp(np.abs(x) / 2)
    np.testing.assert_allclose(g.data, np.where(np.abs(x) < 700, np.sinh(np.where(np.abs(x) < 700, x, 1)) / x,
                                                half / (2 * np.abs(x)) * half), rtol=2e-15)
    x = x[:-1]
    v = V.Variable(x)
    derivatives = V.taylor(lambda v: V.shichi(v)[0], x, np.ones_like(x), 4)
    s, c = np.sinh(x), np.cosh(x)
    # d/dx (sinh x / x) = c/x - s/x^2; second: s/x - 2c/x^2 + 2s/x^3; third: c/x - 3s/x^2 + 6c/x^3 - 6s/x^4
    closed = [s / x, c / x - s / x ** 2, s / x - 2 * c / x ** 2 + 2 * s / x ** 3,
              c / x - 3 * s / x ** 2 + 6 * c / x ** 3 - 6 * s / x ** 4]
    for got, want in zip(derivatives[1:], closed):
        np.testing.assert_allclose(got.data, want, rtol=1e-11)


def test_float32_in_float32_out():
    x = np.array([0.5, 2.0, 7.0], dtype=np.float32)
    for op in (V.sici, V.shichi, V.fresnel):
        for part, want in zip(op(x), op(x.astype(np.float64))):
            assert part.dtype == np.float32
            np.testing.assert_allclose(part.data, want.data, rtol=1e-6)


def test_the_pairs_have_names_and_refuse_a_variables_attributes():
    x = np.array([0.5, 2.0])
    for op, names in ((V.sici, ("si", "ci")), (V.shichi, ("shi", "chi")), (V.fresnel, ("s", "c"))):
        pair = op(x)
        assert isinstance(pair, tuple) and len(pair) == 2
        for i, name in enumerate(names):
            assert getattr(pair, name) is pair[i]
        with pytest.raises(AttributeError, match=rf"V\.{op.__name__}\(x\) returns a pair of Variables"):
            _ = pair.data
        again = pickle.loads(pickle.dumps(pair))
        np.testing.assert_array_equal(again[1].data, pair[1].data)


def test_integers_and_lists():
    s, c = V.fresnel([1, 2])
    assert s.dtype == np.float64
    np.testing.assert_array_equal(s.data, V.fresnel(np.array([1.0, 2.0]))[0].data)


def test_complex_input_is_refused():
    for op in (V.sici, V.shichi, V.fresnel):
        with pytest.raises(TypeError, match=op.__name__ + ": complex data is not differentiated"):
            op(np.array([1 + 1j]))


def test_scipy_agrees_and_its_ufuncs_record():
    special = pytest.importorskip("scipy.special")
    x = np.concatenate([np.linspace(-20, 20, 401), [1e-8, 1e5, -3e7]])
    for name in ("sici", "shichi", "fresnel"):
        with np.errstate(all="ignore"):
            expected = getattr(special, name)(x)
            recorded = getattr(special, name)(V.Variable(x))
        for ours, theirs, mine in zip(getattr(V, name)(x), expected, recorded):
            # (SciPy's Fresnel loses the phase far out: 4e-11 at 3e7)
            rtol = 1e-9 if name == "fresnel" else 1e-13
            np.testing.assert_allclose(ours.data, theirs, rtol=rtol, atol=1e-15)
            assert isinstance(mine, V.Variable) and mine.creator is not None
            # (on a device, with more levels of the fractions: within an ulp)
            np.testing.assert_allclose(V.backend.to_cpu(mine.data), ours.data, rtol=1e-15)


def test_on_the_device_without_a_sync(gpu, count_syncs):
    """Every branch on every entry, the most levels of each continued fraction: the host's values
    within an ulp or two (the host takes fewer levels where they suffice), the same gradients."""
    x = np.array([-30.0, -4.5, -1e-3, 0.0, 0.8, 1.1, 1.7, 2.5, 3.99, 4.01, 8.0, 25.0, 1e6, np.inf, np.nan])
    for op in (V.sici, V.shichi, V.fresnel):
        host = V.Variable(x)
        moved = V.Variable(x).to_gpu()
        with count_syncs() as syncs, np.errstate(all="ignore"):
            parts = op(moved)
            gradients = [V.grad(V.sum(V.where(np.isfinite(p), p, 0.0)), [moved])[0] for p in parts]
        assert syncs.count == 0, (op.__name__, syncs.where)
        with np.errstate(all="ignore"):
            for part, gradient, expected in zip(parts, gradients, op(host)):
                np.testing.assert_allclose(V.backend.to_cpu(part.data), expected.data, rtol=4e-16,
                                           atol=1e-300)
                g, = V.grad(V.sum(V.where(np.isfinite(expected), expected, 0.0)), [host])
                np.testing.assert_allclose(V.backend.to_cpu(gradient.data), g.data, rtol=1e-15)


def test_the_higher_derivatives_on_the_device_read_nothing_back(gpu, count_syncs):
    """Si'' and on run V.sinc's family of higher orders (its series' length from a bound there, not
    from the data) and sinh x / x's: no host sync to third order."""
    x = np.array([-3.5, -0.2, 0.0, 0.7, 2.5, 9.0])
    for op in (lambda v: V.sici(v)[0], lambda v: V.shichi(v)[0], lambda v: V.fresnel(v)[1]):
        host, moved = V.Variable(x), V.Variable(x).to_gpu()
        with count_syncs() as syncs:
            g = op(moved)
            for _ in range(3):
                g, = V.grad(V.sum(g), [moved], create_graph=True)
        assert syncs.count == 0, syncs.where
        h = op(host)
        for _ in range(3):
            h, = V.grad(V.sum(h), [host], create_graph=True)
        np.testing.assert_allclose(V.backend.to_cpu(g.data), h.data, rtol=1e-13, atol=1e-15)
