"""Airy's functions (variable/ops/airy_functions.py): V.airy's four against their Maclaurin series
in 90-digit decimals (c1 = Ai(0) and c2 = -Ai'(0) from Gamma(1/3) by Stirling's series with exact
Bernoulli numbers), the rows (third order, Taylor mode to sixth) in each region, the Wronskian
far out, the edges, SciPy's values, and the device path without a host sync."""

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import SMOOTH, Row, device_equals_host, table_tests
from test_ops_integrals import _bernoulli, cos_sin, machin_pi

import variable as V

DIGITS = 90
PI = machin_pi(DIGITS + 10)


def _gamma_third(z):
    """Gamma(z) for z = 1/3 or 2/3: log Gamma(z + 100) by Stirling's series (40 terms, the rest
    below 1e-100), then down by Gamma(z + 100) = Gamma(z) z (z + 1) ... (z + 99)."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + 10
        w = Decimal(z.numerator) / Decimal(z.denominator) + 100
        bernoulli = _bernoulli(80)
        log = (w - Decimal("0.5")) * w.ln() - w + (2 * PI).ln() / 2
        log += sum(Decimal(bernoulli[2 * k].numerator) / Decimal(bernoulli[2 * k].denominator)
                   / (2 * k * (2 * k - 1) * w ** (2 * k - 1)) for k in range(1, 41))
        value = log.exp()
        for j in range(100):
            value /= Decimal(z.numerator) / Decimal(z.denominator) + j
        return value


def _constants():
    with localcontext() as ctx:
        ctx.prec = DIGITS + 10
        three = Decimal(3)
        c1 = 1 / ((three.ln() * 2 / 3).exp() * _gamma_third(Fraction(2, 3)))    # 1 / (3^(2/3) Gamma(2/3))
        c2 = 1 / ((three.ln() / 3).exp() * _gamma_third(Fraction(1, 3)))        # 1 / (3^(1/3) Gamma(1/3))
        return c1, c2


C1, C2 = _constants()


def _airy_decimal(x, decimals=False):
    """(Ai, Ai', Bi, Bi') at a float |x| <= 12 from f, g and their derivatives in 90 digits (the
    terms peak near e^(2 zeta), 1e24 at 12); `decimals`: as Decimals."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + 10
        t = Decimal(Fraction(float(x)).numerator) / Decimal(Fraction(float(x)).denominator)
        f = g = df = dg = Decimal(0)
        a = b = power = Decimal(1)                      # power = t^(3k)
        k = 0
        while True:
            f, g = f + a * power, g + b * power * t
            if k:
                df += a * 3 * k * power / t               # (t^(3k-1): t is not 0 for k >= 1 here)
            dg += b * (3 * k + 1) * power
            if t == 0:
                break
            power *= t * t * t
            k += 1
            a /= (3 * k - 1) * (3 * k)
            b /= (3 * k) * (3 * k + 1)
            if k > 5 and abs(a) * (abs(t) + 1) ** (3 * k + 1) < Decimal(10) ** -(DIGITS - 5):
                break
        root3 = Decimal(3).sqrt()
        values = (C1 * f - C2 * g, C1 * df - C2 * dg, root3 * (C1 * f + C2 * g), root3 * (C1 * df + C2 * dg))
        return values if decimals else tuple(float(v) for v in values)


def reference(x):
    x = np.asarray(x, dtype=float)
    values = [_airy_decimal(v) for v in x.ravel()]
    return tuple(np.array([v[i] for v in values]).reshape(x.shape) for i in range(4))


def inside(low, high, shape=(3,)):
    return lambda rng: (rng.uniform(low, high, shape),)


# (on the host alone: a device runs all three regions, Bessel's and Miller's and Steed's steps, on
# every entry of every central difference, 50 s of the stand-in's; test_on_the_device_without_a_sync
# holds the device's values and gradients to the host's)
ROWS = {"airy": [Row("|x| < 1", V.airy, reference, inside(-0.95, 0.95), SMOOTH, device=False),
                 Row("1 < x < 6, (2, 3)", V.airy, reference, inside(1.1, 6.0, (2, 3)), SMOOTH, device=False),
                 Row("-9 < x < -1", V.airy, reference, inside(-9.0, -1.1), SMOOTH, device=False)]}

def _scaled_decimal(x):
    """airye's four at a float x: below 12 the Maclaurin values times e^(+-zeta) in 90 digits (NaN
    and Bi, Bi' below 0); from 12 the asymptotic series (DLMF 9.7.5-8) to its smallest term
    (e^(-2 zeta) of the first: 1e-24 at 12)."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + 10
        t = Decimal(Fraction(float(x)).numerator) / Decimal(Fraction(float(x)).denominator)
        if x < 12:
            ai, aip, bi, bip = _airy_decimal(x, decimals=True)
            if x < 0:
                return math.nan, math.nan, float(bi), float(bip)
            zeta = 2 * t * t.sqrt() / 3
            up = zeta.exp()
            return float(ai * up), float(aip * up), float(bi / up), float(bip / up)
        zeta = 2 * t * t.sqrt() / 3
        quarter = t.sqrt().sqrt()
        u, sums = Decimal(1), [Decimal(1)] * 4              # (sum (-1)^k u_k, -1^k v_k, u_k, v_k) / zeta^k
        k = 0
        while True:
            k += 1
            next_u = u * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k)
            if next_u / zeta ** k > u / zeta ** (k - 1) or k > 200:
                break
            u = next_u
            v = -u * (6 * k + 1) / (6 * k - 1)
            term_u, term_v = u / zeta ** k, v / zeta ** k
            sign = -1 if k % 2 else 1
            sums = [sums[0] + sign * term_u, sums[1] + sign * term_v, sums[2] + term_u, sums[3] + term_v]
        root_pi = PI.sqrt()
        return (float(sums[0] / (2 * root_pi * quarter)), float(-quarter * sums[1] / (2 * root_pi)),
                float(sums[2] / (root_pi * quarter)), float(quarter * sums[3] / root_pi))


def reference_scaled(x):
    x = np.asarray(x, dtype=float)
    values = [_scaled_decimal(v) for v in x.ravel()]
    return tuple(np.array([v[i] for v in values]).reshape(x.shape) for i in range(4))


ROWS["airye"] = [
    Row("0 < x < 1", V.airye, reference_scaled, inside(0.05, 0.95), SMOOTH, device=False),
    Row("1 < x < 30, (2, 3)", V.airye, reference_scaled, inside(1.1, 30.0, (2, 3)), SMOOTH, device=False),
    Row("-9 < x < -1 (Bi, Bi')", lambda x: V.airye(x)[2:], lambda x: reference_scaled(x)[2:],
        inside(-9.0, -1.1), SMOOTH, device=False)]

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


def test_the_constants_are_gammas():
    """Gamma(1/3) Gamma(2/3) = 2 pi / sqrt 3 (reflection), and math.gamma's to its last digits."""
    with localcontext() as ctx:
        ctx.prec = DIGITS
        product = _gamma_third(Fraction(1, 3)) * _gamma_third(Fraction(2, 3))
        assert abs(product - 2 * PI / Decimal(3).sqrt()) < Decimal(10) ** -(DIGITS - 5)
    assert abs(float(_gamma_third(Fraction(1, 3))) / math.gamma(1 / 3) - 1) < 4e-16


def test_against_90_digits():
    """Relative where they do not oscillate (x >= 0), against the envelope below, to 3e-15
    everywhere: zeta = 2/3 |x|^(3/2) in two parts, so that its rounding (SciPy's 1e-14 at
    x = -12) reaches neither the exponential nor the phase."""
    x = np.concatenate([np.linspace(-1, 1, 41), np.geomspace(1.0, 12.0, 40), -np.geomspace(1.0, 12.0, 60),
                        [1e-300, -1e-300, 0.0, np.nextafter(1.0, 2.0), np.nextafter(-1.0, -2.0)]])
    ours = [V.backend.to_cpu(part.data) for part in V.airy(x)]
    exact = reference(x)
    bound = 3e-15
    for i, (o, e) in enumerate(zip(ours, exact)):
        partner = exact[i ^ 2]                           # (Ai with Bi, Ai' with Bi')
        scale = np.where(x < 0, np.hypot(e, partner), np.abs(e))
        error = np.abs(o - e) / scale
        assert np.all(error <= bound), (i, x[np.argmax(error)], np.max(error))


def _far_below(x):
    """(Ai, Bi) at x <= -300 by their asymptotic expansions (DLMF 9.7.9) in 90 digits: 1 / (sqrt(pi)
    z^(1/4)) (cos(zeta - pi/4) P + sin(zeta - pi/4) Q, -sin(zeta - pi/4) P + cos(zeta - pi/4) Q),
    P = sum (-1)^k u_2k zeta^-2k, Q = sum (-1)^k u_(2k+1) zeta^-(2k+1), u_k = u_(k-1) (6k-5)(6k-3)(6k-1)
    / ((2k-1) 216 k), zeta = 2/3 z^(3/2) exactly; 12 terms (the 12th below 1e-60 of the first)."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + 10
        z = -(Decimal(Fraction(float(x)).numerator) / Decimal(Fraction(float(x)).denominator))
        zeta = 2 * z * z.sqrt() / 3
        u, p, q = [Decimal(1)], Decimal(0), Decimal(0)
        for k in range(1, 12):
            u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k))
        for k in range(12):
            term = (-1) ** (k // 2) * u[k] / zeta ** k
            if k % 2:
                q += term
            else:
                p += term
        cos, sin = cos_sin(zeta - PI / 4)
        scale = 1 / (PI.sqrt() * z.sqrt().sqrt())
        return float(scale * (cos * p + sin * q)), float(scale * (-sin * p + cos * q))


def test_far_below_zero_the_phase_keeps_its_digits():
    """At x = -300 .. -1e4 (zeta to 6.7e5: a rounded zeta would cost 1e-10 of the phase there)."""
    x = np.array([-300.0, -1234.5, -5000.0, -1e4])
    ai, _, bi, _ = (V.backend.to_cpu(part.data) for part in V.airy(x))
    for i, v in enumerate(x):
        expected_ai, expected_bi = _far_below(v)
        envelope = math.hypot(expected_ai, expected_bi)
        assert abs(ai[i] - expected_ai) <= 2e-15 * envelope, v
        assert abs(bi[i] - expected_bi) <= 2e-15 * envelope, v


def test_the_wronskian_and_the_equation_far_out():
    """Ai Bi' - Ai' Bi = 1/pi out to x = -1e4 and 100 (where Bi is 1e288), and Ai'' = x Ai by the
    gradient's gradient."""
    x = np.concatenate([-np.geomspace(1.0, 1e4, 200), np.linspace(-1, 100, 200)])
    ai, aip, bi, bip = (part.data for part in V.airy(x))
    scale = np.abs(ai * bip) + np.abs(aip * bi)
    assert np.all(np.abs(ai * bip - aip * bi - 1 / np.pi) <= 2e-15 * scale)
    t = V.Variable(np.array([-7.5, -1.0, 0.0, 0.5, 4.0]))
    for value in (lambda t: V.airy(t).ai, lambda t: V.airy(t).bi):
        slope, = V.grad(V.sum(value(t)), [t], create_graph=True)
        curve, = V.grad(V.sum(slope), [t])
        np.testing.assert_allclose(curve.data, t.data * value(t).data, rtol=1e-14, atol=1e-16)


def test_edges():
    with np.errstate(all="raise"):
        parts = V.airy(np.array([np.inf, -np.inf, np.nan, 0.0, 200.0]))
    ai, aip, bi, bip = (part.data for part in parts)
    np.testing.assert_array_equal(ai[:3], [0.0, np.nan, np.nan])
    np.testing.assert_array_equal(bi[:3], [np.inf, np.nan, np.nan])
    np.testing.assert_array_equal([ai[4], aip[4], bi[4], bip[4]], [0.0, -0.0, np.inf, np.inf])
    assert ai[3] == float(C1) and aip[3] == -float(C2)
    assert V.airy(np.float32([0.5])).ai.dtype == np.float32


def test_scipy_agrees_and_its_ufunc_records_the_four():
    special = pytest.importorskip("scipy.special")
    x = np.linspace(-20, 20, 161)
    for ours, theirs in zip(V.airy(x), special.airy(x)):
        scale = np.maximum(np.abs(theirs), np.where(x < 0, 0.5, 0.0))
        assert np.all(np.abs(ours.data - theirs) <= 5e-14 * scale + 1e-300)
    recorded = special.airy(V.Variable(x))
    assert len(recorded) == 4 and all(part.creator is not None for part in recorded)
    assert recorded.ai is recorded[0]


def test_on_the_device_without_a_sync(gpu, count_syncs):
    x = np.array([-30.0, -5.0, -1.0, -0.3, 0.0, 0.7, 1.0, 3.0, 40.0, np.inf, np.nan])
    for i in range(4):
        assert device_equals_host(lambda t, i=i: V.airy(t)[i], (x,), count_syncs).count == 0


def test_the_four_used_as_one_variable_are_refused_naming_the_unpacking():
    parts = V.airy(V.Variable(np.array([0.5, -2.0])))
    with pytest.raises(AttributeError, match=r"V\.airy\(x\) returns 4 Variables \(ai, aip, bi, bip\), not "
                                             r"one: unpack it, ai, aip, bi, bip = V\.airy\(x\)"):
        parts.backward()
    ai, aip, bi, bip = parts
    assert ai is parts.ai and bip is parts[3]


def test_airye_against_decimals_far_out_and_its_edges():
    """Within 4e-15 of 90-digit values from x = -12 to 1e300 (where Ai itself underflows from 104
    and SciPy's airye is NaN from 1e10); the asymptotic series meets the Bessel functions at 1e6;
    0, -inf, 0, inf at +inf; NaN at NaN."""
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(-12, 12, 20), 10.0 ** rng.uniform(1.1, 300, 20),
                        [0.0, 1.0, 1e6, 1e6 - 1e-9]])
    ours = [part.data for part in V.airye(x)]
    exact = reference_scaled(x)
    for a, e in zip(ours, exact):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(e))
        keep = ~np.isnan(e)
        scale = np.maximum(np.abs(e[keep]), np.where(x[keep] < 0, 0.6 * np.abs(x[keep]) ** 0.25, 0.0))
        assert np.all(np.abs(a[keep] - e[keep]) <= 4e-15 * scale)
    edges = [part.data for part in V.airye(np.array([np.inf, np.nan, -np.inf]))]
    np.testing.assert_array_equal(np.array(edges)[:, 0], [0.0, -np.inf, 0.0, np.inf])
    assert np.all(np.isnan(np.array(edges)[:, 1:]))
    assert V.airye(np.float32([0.5])).eai.dtype == np.float32


def test_airye_is_airy_scaled_and_scipys():
    special = pytest.importorskip("scipy.special")
    x = np.linspace(-20, 20, 161)
    zeta = 2 / 3 * np.abs(x) ** 1.5
    plain, scaled = V.airy(x), V.airye(x)
    up = np.where(x > 0, np.exp(zeta), 1.0)
    np.testing.assert_allclose(scaled.ebi.data, plain.bi.data / up, rtol=1e-14)
    positive = x >= 0
    np.testing.assert_allclose(scaled.eai.data[positive], plain.ai.data[positive] * up[positive], rtol=1e-14)
    for ours, theirs in zip(V.airye(x[positive]), special.airye(x[positive])):
        np.testing.assert_allclose(ours.data, theirs, rtol=5e-14)
    recorded = special.airye(V.Variable(x))
    assert len(recorded) == 4 and all(part.creator is not None for part in recorded)


def test_airye_on_the_device_without_a_sync(gpu, count_syncs):
    x = np.array([-30.0, -1.0, 0.0, 0.7, 1.0, 3.0, 40.0, 2e6, np.inf, np.nan])
    for i in range(4):
        assert device_equals_host(lambda t, i=i: V.airye(t)[i], (x,), count_syncs).count == 0
