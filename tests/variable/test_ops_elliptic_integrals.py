"""Carlson's and Legendre's elliptic integrals (variable/ops/elliptic_integrals.py): elliprf,
elliprd, elliprc, elliprg, ellipkinc, ellipeinc against references of our own in 40-digit
decimals (the duplication theorem iterated until the three arguments agree, no truncated
series), closed forms, the derivatives' own formulas, the complete integrals, the rows (third
order, Taylor mode to sixth), SciPy's edges, and the device path without a host sync."""

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from op_rows import SMOOTH, TAYLOR, TAYLOR_ELSEWHERE, Row, device_equals_host, table_tests
from test_ops_integrals import cos_sin, machin_pi
from test_ops_special import elliptic_decimals

import variable as V
from variable.ops import elliptic_integrals

DIGITS = 40
PI = machin_pi(DIGITS + 25)


def _decimal(x):
    if isinstance(x, Decimal):
        return x
    f = Fraction(float(x))
    return Decimal(f.numerator) / Decimal(f.denominator)


def _duplicate(x, y, z, rd):
    """RF(x, y, z) or RD(x, y, z) in decimals: x_(n+1) = (x_n + lambda_n) / 4 ... until the three
    agree to DIGITS + 5 digits, RF = A^(-1/2) at the limit (RD: 4^-n A^(-3/2) + 3 sum_k 4^-k /
    (sqrt(z_k) (z_k + lambda_k)))."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + 15
        x, y, z = _decimal(x), _decimal(y), _decimal(z)
        total, power = Decimal(0), Decimal(1)
        while max(x, y, z) - min(x, y, z) > max(x, y, z) * Decimal(10) ** -(DIGITS + 5):
            sx, sy, sz = x.sqrt(), y.sqrt(), z.sqrt()
            lam = sx * sy + sy * sz + sz * sx
            if rd:
                total += power / (sz * (z + lam))
            x, y, z, power = (x + lam) / 4, (y + lam) / 4, (z + lam) / 4, power / 4
        a = (x + y + z) / 3
        return power / (a * a.sqrt()) + 3 * total if rd else 1 / a.sqrt()


def _rf(x, y, z):
    return float(_duplicate(x, y, z, False))


def _rd(x, y, z):
    return float(_duplicate(x, y, z, True))


def _rj_decimal(x, y, z, p):
    """RJ(x, y, z, p > 0) in decimals: Carlson's first form, the duplication until the four agree,
    3 sum_k 4^-k RC(alpha_k, beta_k) + 4^-n A^(-3/2), alpha = (p (sqrt x + sqrt y + sqrt z) +
    sqrt(x y z))^2, beta = p (p + lambda)^2, RC(a, b) = RF(a, b, b) by `_duplicate`."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + 15
        x, y, z, p = (_decimal(v) for v in (x, y, z, p))
        total, power = Decimal(0), Decimal(1)
        while max(x, y, z, p) - min(x, y, z, p) > max(x, y, z, p) * Decimal(10) ** -(DIGITS + 5):
            sx, sy, sz = x.sqrt(), y.sqrt(), z.sqrt()
            lam = sx * sy + sy * sz + sz * sx
            alpha, beta = (p * (sx + sy + sz) + sx * sy * sz) ** 2, p * (p + lam) ** 2
            total += power * _duplicate(alpha, beta, beta, False)
            x, y, z, p, power = (x + lam) / 4, (y + lam) / 4, (z + lam) / 4, (p + lam) / 4, power / 4
        a = (x + y + z + 2 * p) / 5
        return power / (a * a.sqrt()) + 3 * total


def _rj(x, y, z, p):
    """RJ in decimals, for p < 0 its principal value by DLMF 19.20.14 (x <= y <= z, q = -p)."""
    if p > 0:
        return float(_rj_decimal(x, y, z, p))
    with localcontext() as ctx:
        ctx.prec = DIGITS + 15
        x, y, z = sorted(_decimal(v) for v in (x, y, z))
        q = -_decimal(p)
        shifted = y + (z - y) * (y - x) / (y + q)
        cross = x * z + shifted * q
        value = ((shifted - y) * _rj_decimal(x, y, z, shifted) - 3 * _duplicate(x, y, z, False)
                 + 3 * (x * y * z / cross).sqrt() * _duplicate(cross, shifted * q, shifted * q, False))
        return float(value / (y + q))


def _rc(x, y):
    if y < 0:                                   # Cauchy's principal value
        return math.sqrt(x / (x - y)) * _rf(x - y, -y, -y)
    return _rf(x, y, y)


def _rg(x, y, z):
    """2 RG = z RF - (x - z)(y - z) RD / 3 + sqrt(x y / z), in decimals (z the largest, x <= y;
    RG(0, 0, z) = sqrt(z) / 2)."""
    x, y, z = sorted((x, y, z))
    if y == 0:
        return math.sqrt(z) / 2
    with localcontext() as ctx:
        ctx.prec = DIGITS + 15
        rf, rd = _duplicate(x, y, z, False), _duplicate(x, y, z, True)
        dx, dy, dz = _decimal(x), _decimal(y), _decimal(z)
        return float((dz * rf - (dx - dz) * (dy - dz) * rd / 3 + (dx * dy / dz).sqrt()) / 2)


def _legendre_pieces(phi, m):
    """k, s, c, delta^2 of phi = k pi + psi (|psi| <= pi/2), in decimals."""
    k = round(phi / math.pi)
    with localcontext() as ctx:
        ctx.prec = DIGITS + 15
        c, s = cos_sin(_decimal(phi) - k * PI)
        return k, s, c, c * c + (1 - _decimal(m)) * s * s


def _f(phi, m):
    """F(phi, m) = s RF(c^2, delta^2, 1) + 2 k K(m)."""
    k, s, c, d2 = _legendre_pieces(phi, m)
    with localcontext() as ctx:
        ctx.prec = DIGITS + 15
        value = s * _duplicate(c * c, d2, Decimal(1), False)
        return float(value + (2 * k * elliptic_decimals(m, False) if k else 0))


def _e(phi, m):
    """E(phi, m) = s RF(c^2, delta^2, 1) - (m/3) s^3 RD(c^2, delta^2, 1) + 2 k E(m) (the classic
    form: m < 0 only, where both terms are positive)."""
    k, s, c, d2 = _legendre_pieces(phi, m)
    with localcontext() as ctx:
        ctx.prec = DIGITS + 15
        cc, one = c * c, Decimal(1)
        value = s * _duplicate(cc, d2, one, False) - _decimal(m) / 3 * s ** 3 * _duplicate(cc, d2, one, True)
        return float(value + (2 * k * elliptic_decimals(m, True) if k else 0))


def _jacobi(u, m, start):
    """sn, cn, dn and am of (u, m) in decimals: am is the root of F(am, m) = u (F increasing, its
    slope 1 / delta), by Newton's steps from `start` until they stop moving; then sin, cos and
    delta of it."""
    with localcontext() as ctx:
        ctx.prec = DIGITS + 15
        pi, du, dm = PI, _decimal(u), _decimal(m)
        whole = elliptic_decimals(m, False)
        phi = _decimal(start)
        for _ in range(60):
            k = int((phi / pi).to_integral_value())
            c, s = cos_sin(phi - k * pi)
            d2 = c * c + (1 - dm) * s * s
            f = s * _duplicate(c * c, d2, Decimal(1), False) + 2 * k * whole
            step = (f - du) * d2.sqrt()
            phi -= step
            if abs(step) < Decimal(10) ** -(DIGITS + 5):
                break
        sign = -1 if k % 2 else 1
        return float(sign * s), float(sign * c), float(d2.sqrt()), float(phi)


def reference_ellipj(u, m):
    """ellipj's four, elementwise: `_jacobi` from the guess u pi / (2 K(m)) (am = u at m = 0, and
    am(2K) = pi), which Newton's steps take to the root for m <= 0.95."""
    u, m = np.broadcast_arrays(np.asarray(u, float), np.asarray(m, float))
    out = np.empty((4,) + u.shape)
    for i in np.ndindex(u.shape):
        guess = u[i] * math.pi / (2 * float(elliptic_decimals(m[i], False)))
        out[(slice(None),) + i] = _jacobi(u[i], m[i], guess)
    return tuple(out)


def reference(scalar):
    return np.vectorize(scalar, otypes=[np.float64])


def positive_triples(*shapes):
    return lambda rng: tuple(rng.uniform(0.2, 3.0, s) for s in shapes)


TRIPLE_SHAPES = [((), (), ()), ((3,), (3,), (3,)), ((2, 3), (3,), ())]

ROWS = {
    "elliprf": [Row(str(s), V.elliprf, reference(_rf), positive_triples(*s), SMOOTH) for s in TRIPLE_SHAPES],
    "elliprd": [Row(str(s), V.elliprd, reference(_rd), positive_triples(*s), SMOOTH) for s in TRIPLE_SHAPES],
    "elliprg": [Row(str(s), V.elliprg, reference(_rg), positive_triples(*s), SMOOTH,
                    taylor=TAYLOR if i == 1 else TAYLOR_ELSEWHERE) for i, s in enumerate(TRIPLE_SHAPES)],
    # (on the host alone: three duplications a call, the device test holds the device's to it; the
    # broadcast row checks the Taylor rule to order 6, the others to TAYLOR_ELSEWHERE: op_rows.py)
    "elliprj": [Row(str(s), V.elliprj, reference(_rj), positive_triples(*s), SMOOTH, device=False,
                    taylor=TAYLOR if len(s[0]) else TAYLOR_ELSEWHERE)
                for s in (((), (), (), ()), ((2, 3), (3,), (), (2, 1)))]
    + [Row("p 10^7 to 10^9 times x, y, z (brought down)", V.elliprj, reference(_rj),
           lambda rng: (*rng.uniform(0.2, 3.0, (3, 3)), 10.0 ** rng.uniform(7, 9, 3)), SMOOTH, device=False,
           taylor=TAYLOR_ELSEWHERE)]
    + [Row("p < 0 (principal value)", V.elliprj, reference(_rj),
           lambda rng: (*rng.uniform(0.2, 3.0, (3, 3)), -rng.uniform(0.2, 3.0, 3)), SMOOTH, device=False,
           taylor=TAYLOR_ELSEWHERE)]
    + [Row("p -10^7 to -10^9 times x, y, z (in ratios)", V.elliprj, reference(_rj),
           lambda rng: (*rng.uniform(0.2, 3.0, (3, 3)), -(10.0 ** rng.uniform(7, 9, 3))), SMOOTH,
           device=False, taylor=TAYLOR_ELSEWHERE)],
    "elliprc": [Row("y > 0", V.elliprc, reference(_rc), positive_triples((3,), (3,)), SMOOTH),
                Row("y < 0 (principal value)", V.elliprc, reference(_rc),
                    lambda rng: (rng.uniform(0.2, 3.0, (2, 3)), -rng.uniform(0.2, 3.0, (3,))), SMOOTH)],
    "ellipkinc": [Row("|phi| < pi/2", V.ellipkinc, reference(_f),
                      lambda rng: (rng.uniform(-1.4, 1.4, 3), rng.uniform(-3.0, 0.9, 3)), SMOOTH),
                  Row("phi to 7 (periods)", V.ellipkinc, reference(_f),
                      lambda rng: (rng.uniform(2.0, 7.0, (2, 3)), rng.uniform(-3.0, 0.9, (3,))), SMOOTH)],
    "ellipeinc": [Row("m < 0", V.ellipeinc, reference(_e),
                      lambda rng: (rng.uniform(-1.4, 1.4, 3), rng.uniform(-3.0, -0.1, 3)), SMOOTH),
                  Row("0 < m < 1", V.ellipeinc, lambda phi, m: _e_by_quadrature(phi, m),
                      lambda rng: (rng.uniform(-1.4, 1.4, 3), rng.uniform(0.1, 0.95, 3)), SMOOTH,
                      taylor=TAYLOR_ELSEWHERE),
                  Row("phi to 7 (periods)", V.ellipeinc, reference(_e),
                      lambda rng: (rng.uniform(2.0, 7.0, (2, 3)), rng.uniform(-3.0, -0.1, (3,))), SMOOTH,
                      taylor=TAYLOR_ELSEWHERE)],
    "ellipj": [Row("|u| < 3", V.ellipj, reference_ellipj,
                   lambda rng: (rng.uniform(-3.0, 3.0, 3), rng.uniform(0.05, 0.95, 3)), SMOOTH),
               Row("u from 5 to 15, (2, 3) by (3,)", V.ellipj, reference_ellipj,
                   lambda rng: (rng.uniform(5.0, 15.0, (2, 3)), rng.uniform(0.05, 0.9, (3,))), SMOOTH)],
}


def _e_by_quadrature(phi, m):
    """E(phi, m) = int_0^phi sqrt(1 - m sin^2 t) dt by Gauss-Legendre quadrature of 40 nodes (the
    integrand is analytic for m < 1: error far below 1e-16 for |phi| < 1.5, m <= 0.95)."""
    nodes, weights = np.polynomial.legendre.leggauss(40)
    phi, m = np.broadcast_arrays(np.asarray(phi, float), np.asarray(m, float))
    t = phi[..., None] * (nodes + 1) / 2
    return np.sum(weights * np.sqrt(1 - m[..., None] * np.sin(t) ** 2), axis=-1) * phi / 2


test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS, entrywise=True)


def _ulps(got, exact):
    return np.max(np.abs(got - exact) / (np.abs(exact) * 2.2e-16))


def test_carlson_integrals_to_a_few_ulps_from_1e_minus_300_to_1e300():
    """Against the decimal duplication, on arguments spread over 600 decades (one of them 0 too):
    within 4 ulps, the smaller arguments kept where a far larger one would scale them away."""
    rng = np.random.default_rng(7)
    x, y, z = (10.0 ** rng.uniform(-300, 300, 60) for _ in range(3))
    x[:10] = 0.0
    x[10:20], y[10:20], z[10:20] = rng.uniform(0.5, 2, 10), rng.uniform(0.5, 2, 10), rng.uniform(0.5, 2, 10)
    for op, ref in ((V.elliprf, _rf), (V.elliprd, _rd)):
        exact = np.array([ref(*t) for t in zip(x, y, z)])
        finite = np.isfinite(exact) & (exact > 1e-300)
        with np.errstate(over="ignore"):                    # (RD beyond 1.8e308 overflows, as NumPy's ops)
            got = op(x, y, z).data
        assert _ulps(got[finite], exact[finite]) <= 4
        assert np.all(got[~np.isfinite(exact)] == np.inf)
    exact = np.array([_rg(*t) for t in zip(x, y, z)])
    assert _ulps(V.elliprg(x, y, z).data, exact) <= 4
    for pair in ((x, y), (x, -y)):
        exact = np.array([_rc(*t) for t in zip(*pair)])
        keep = np.isfinite(exact) & (exact > 1e-300)
        assert _ulps(V.elliprc(*pair).data[keep], exact[keep]) <= 4
    # the far tails: RF(0, 1e-300, 1e300) = log(4 z / y) / (2 sqrt z) nearly, 7e-148
    np.testing.assert_allclose(V.elliprf(0.0, 1e-300, 1e300).data, _rf(0.0, 1e-300, 1e300), rtol=1e-15)
    np.testing.assert_allclose(V.elliprg(1e-300, 1e-300, 1e300).data, 0.5e150, rtol=1e-15)


def test_carlson_closed_forms():
    """RC(x, y) = acos(sqrt(x / y)) / sqrt(y - x) below y, acosh(sqrt(x / y)) / sqrt(x - y)
    above; RF(x, y, y) = RC(x, y); RD(x, x, x) = x^-3/2; RG(x, x, x) = sqrt x; RG(0, y, y) = pi
    sqrt(y) / 4; RF(0, y, y) = pi / (2 sqrt y)."""
    rng = np.random.default_rng(3)
    x, y = rng.uniform(0.01, 5.0, 40), rng.uniform(0.01, 5.0, 40)
    below = x < y
    closed = np.where(below, np.arccos(np.sqrt(np.minimum(x / y, 1))) / np.sqrt(np.abs(y - x)),
                      np.arccosh(np.sqrt(np.maximum(x / y, 1))) / np.sqrt(np.abs(x - y)))
    np.testing.assert_allclose(V.elliprc(x, y).data, closed, rtol=1e-12)
    np.testing.assert_allclose(V.elliprf(x, y, y).data, V.elliprc(x, y).data, rtol=9e-16)
    np.testing.assert_allclose(V.elliprd(x, x, x).data, x ** -1.5, rtol=9e-16)
    np.testing.assert_allclose(V.elliprg(x, x, x).data, np.sqrt(x), rtol=9e-16)
    np.testing.assert_allclose(V.elliprg(0.0, y, y).data, np.pi * np.sqrt(y) / 4, rtol=9e-16)
    np.testing.assert_allclose(V.elliprf(0.0, y, y).data, np.pi / (2 * np.sqrt(y)), rtol=9e-16)


def test_legendre_integrals_against_decimals_closed_forms_and_the_complete_ones():
    """F and E within a few ulps times their condition (the rounding of phi - k pi and of m),
    F(phi, 0) = E(phi, 0) = phi, F(phi, 1) = atanh(sin phi), E(phi, 1) = sin phi (and 2k + sin psi
    beyond pi/2: the terms of DLMF 19.25.10 keep the digits there), F(pi/2, m) = K(m) and
    E(pi/2, m) = E(m) of the arithmetic-geometric mean (V.ellipk, V.ellipe)."""
    rng = np.random.default_rng(5)
    phi = np.concatenate([rng.uniform(-1.5, 1.5, 30), rng.uniform(-20, 20, 10)])
    m = np.concatenate([-10.0 ** rng.uniform(-3, 5, 20), rng.uniform(-1, 1, 20)])
    f_exact = np.array([_f(*t) for t in zip(phi, m)])
    slope_phi = 1 / np.sqrt(1 - m * np.sin(phi) ** 2)
    scale = np.abs(f_exact) + np.abs(phi * slope_phi) + np.abs(m) * 10      # (|m dF/dm| is below 10 |m| here)
    assert np.max(np.abs(V.ellipkinc(phi, m).data - f_exact) / scale) <= 4 * 2.2e-16
    below = m < 0
    e_exact = np.array([_e(*t) for t in zip(phi[below], m[below])])
    scale = np.abs(e_exact) + np.abs(phi[below]) / slope_phi[below] + np.abs(m[below]) * 10
    assert np.max(np.abs(V.ellipeinc(phi[below], m[below]).data - e_exact) / scale) <= 4 * 2.2e-16
    np.testing.assert_allclose(V.ellipkinc(phi, 0.0).data, phi, rtol=4.5e-16)
    np.testing.assert_allclose(V.ellipeinc(phi, 0.0).data, phi, rtol=4.5e-16)
    near = np.linspace(-1.5, 1.5, 31)
    np.testing.assert_allclose(V.ellipkinc(near, 1.0).data, np.arctanh(np.sin(near)), rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(V.ellipeinc(near, 1.0).data, np.sin(near), rtol=4e-16, atol=1e-17)
    far = np.array([2.0, 4.0, -5.0, 30.0])
    whole = np.round(far / np.pi)
    np.testing.assert_allclose(V.ellipeinc(far, 1.0).data, 2 * whole + np.sin(far - whole * np.pi),
                               rtol=1e-15)
    m = np.array([-50.0, -1.0, 0.0, 0.3, 0.9, 0.999999])
    short = float(PI / 2 - _decimal(np.pi / 2)) / np.sqrt(1 - m)   # (float pi/2: 6e-17 short)
    for op, whole in ((V.ellipkinc, V.ellipk(m).data), (V.ellipeinc, V.ellipe(m).data)):
        assert np.all(np.abs(op(np.pi / 2, m).data - whole) <= 4.5e-16 * whole + 1.01 * float(short.max()))


def test_derivatives_are_the_integrands_and_carlsons_formulas():
    """dF/dphi = 1 / delta, dE/dphi = delta, dE/dm = (E - F) / (2m), dF/dm = E / (2m (1 - m)) -
    F / (2m) - sin(2 phi) / (4 (1 - m) delta), dRF/dz = -RD(x, y, z) / 6, dRC/dx = (1/(2y))... via
    RF; and the gradient of RF at a zero argument is -inf (its integrand's pole)."""
    rng = np.random.default_rng(11)
    phi = V.Variable(rng.uniform(-4, 4, 8))
    m = V.Variable(rng.uniform(0.1, 0.95, 8) * np.array([-30, 1] * 4))       # (|m| >= 0.1: (E - F) / 2m)
    f, e = V.ellipkinc(phi, m), V.ellipeinc(phi, m)
    delta = np.sqrt(1 - m.data * np.sin(phi.data) ** 2)
    f_phi, f_m = V.grad(V.sum(f), [phi, m])
    e_phi, e_m = V.grad(V.sum(e), [phi, m])
    np.testing.assert_allclose(f_phi.data, 1 / delta, rtol=1e-14)
    np.testing.assert_allclose(e_phi.data, delta, rtol=1e-14)
    np.testing.assert_allclose(e_m.data, (e.data - f.data) / (2 * m.data), rtol=1e-13,
                               atol=1e-15 * np.max(np.abs(f.data / m.data)))
    md = m.data
    expected = (e.data / (2 * md * (1 - md)) - f.data / (2 * md)
                - np.sin(2 * phi.data) / (4 * (1 - md) * delta))
    np.testing.assert_allclose(f_m.data, expected, rtol=1e-12, atol=1e-15 * np.max(np.abs(f.data / m.data)))
    x, y, z = (V.Variable(rng.uniform(0.1, 4.0, 6)) for _ in range(3))
    np.testing.assert_allclose(V.grad(V.sum(V.elliprf(x, y, z)), z).data,
                               -V.elliprd(x, y, z).data / 6, rtol=1e-14)
    at = V.Variable(np.array([0.0]))
    with np.errstate(divide="ignore"):                      # (sqrt's slope at 0, as NumPy's 1 / 0)
        assert V.grad(V.sum(V.elliprf(at, 1.0, 2.0)), at).data[0] == -np.inf


def test_scipys_edges():
    inf, nan = np.inf, np.nan
    p = np.array([nan, -1.0, 0.0, 0.0, 1.0, 0.0, inf, 0.0, 1.0])
    q = np.array([1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    r = np.array([1.0, 1.0, 0.0, 1.0, 0.0, inf, 0.0, 4.0, 1.0])
    np.testing.assert_array_equal(V.elliprf(p, q, r).data, [nan, nan, inf, inf, inf, 0.0, 0.0, inf, 1.0])
    np.testing.assert_array_equal(V.elliprd(p, q, r).data, [nan, nan, inf, inf, inf, 0.0, inf, inf, 1.0])
    np.testing.assert_array_equal(V.elliprg(p, q, r).data, [nan, nan, 0.0, 0.5, 0.5, inf, inf, 1.0, 1.0])
    np.testing.assert_array_equal(
        V.elliprc(np.array([0.0, 1.0, -1.0, 1.0, inf, inf, 0.0, nan]),
                  np.array([0.0, 0.0, 1.0, inf, 1.0, -1.0, -1.0, 1.0])).data,
        [nan, nan, nan, 0.0, 0.0, nan, 0.0, nan])
    phi = np.array([0.0, 1.0, inf, -inf, inf, 1.0, 0.0, np.pi / 2, -np.pi / 2, 2.0, nan, 1.0])
    m = np.array([1.5, -inf, 0.5, 0.5, -inf, nan, -inf, 1.0, 1.0, 1.0, 0.5, 1.0])
    np.testing.assert_array_equal(V.ellipkinc(phi, m).data[:11],
                                  [nan, 0.0, inf, -inf, nan, nan, 0.0, inf, -inf, inf, nan])
    np.testing.assert_allclose(V.ellipkinc(phi, m).data[11], np.arctanh(np.sin(1.0)), rtol=9e-16)
    np.testing.assert_array_equal(V.ellipeinc(phi, m).data[:7], [nan, inf, inf, -inf, inf, nan, inf])
    assert V.ellipeinc(phi, m).data[7] == 1.0


def test_the_host_reads_its_steps_and_a_device_takes_its_fixed_steps_to_the_same_digits(monkeypatch):
    """The CPU stops where Carlson's bound holds for every entry; the device's fixed steps (no data
    read) give the same values to two ulps."""
    rng = np.random.default_rng(2)
    x, y, z = rng.uniform(0.0, 3.0, 50), 10.0 ** rng.uniform(-300, 10, 50), rng.uniform(0.5, 3.0, 50)
    read = [op(x, y, z).data for op in (V.elliprf, V.elliprd, V.elliprg)]
    monkeypatch.setattr(elliptic_integrals, "READ_STEPS", False)
    fixed = [op(x, y, z).data for op in (V.elliprf, V.elliprd, V.elliprg)]
    for a, b in zip(read, fixed):
        np.testing.assert_allclose(a, b, rtol=4.5e-16)
    u, m = rng.uniform(-10, 10, 50), rng.uniform(0, 1, 50)
    fixed = V.ellipj(u, m)
    monkeypatch.setattr(elliptic_integrals, "READ_STEPS", True)
    for a, b in zip(V.ellipj(u, m), fixed):
        np.testing.assert_allclose(a.data, b.data, rtol=4.5e-16, atol=1e-16)


@pytest.mark.parametrize("op, args", [
    (V.elliprf, (np.array([0.0, 0.5, 1e-300, 2.0, np.inf]), np.array([1.0, 0.5, 3.0, -1.0, 1.0]),
                 np.array([2.0, 4.0, 1e10, 1.0, 2.0]))),
    (V.elliprd, (np.array([0.0, 0.5, 1e-300, 2.0]), np.array([1.0, 0.5, 3.0, 0.0]),
                 np.array([2.0, 4.0, 1e10, 1.0]))),
    (V.elliprg, (np.array([0.0, 0.5, 1e-300, 2.0, 0.0]), np.array([1.0, 0.5, 3.0, 7.0, 0.0]),
                 np.array([2.0, 4.0, 1e10, 1.0, 3.0]))),
    (V.elliprc, (np.array([0.0, 0.5, 3.0, 2.0]), np.array([1.0, -0.5, 1e-3, 0.0]))),
    (V.elliprj, (np.array([0.0, 0.5, 1e-300, 2.0, 1.0]), np.array([1.0, 0.5, 3.0, 7.0, 2.0]),
                 np.array([2.0, 4.0, 1e10, 1.0, 3.0]), np.array([0.5, -2.0, 1.0, 0.0, -0.3]))),
    (V.ellipkinc, (np.array([0.3, -1.0, 5.0, 1.5, 2.0]), np.array([0.5, -4.0, 0.9, 1.0, 1.2]))),
    (V.ellipeinc, (np.array([0.3, -1.0, 5.0, 1.5, 2.0]), np.array([0.5, -4.0, 0.9, 1.0, 1.2]))),
    *[(lambda u, m, i=i: V.ellipj(u, m)[i], (np.array([0.3, -1.0, 5.0, 1.5, 2.0]),
                                            np.array([0.5, 0.0, 0.9, 1.0, 1.2]))) for i in (2, 3)],
])
def test_on_the_device_without_a_sync(op, args, count_syncs, monkeypatch):
    monkeypatch.setattr(elliptic_integrals, "READ_STEPS", False)    # (the host takes the device's steps)
    assert device_equals_host(op, args, count_syncs).count == 0


def test_jacobi_functions_against_decimals_their_identities_and_their_limits():
    """sn, cn, dn, am within a few ulps of the decimal root of F(am, m) = u, times the condition
    (from our own value: Newton's steps then find the root, m up to 1 - 1e-16); sn^2 + cn^2 = 1,
    dn^2 + m sn^2 = 1, F(am, m) = u (V.ellipkinc); sn, cn, dn, am at m = 0 (sin, cos, 1, u) and m
    = 1 (tanh, sech, sech and the Gudermannian); sn' = cn dn, cn' = -sn dn, dn' = -m sn cn."""
    rng = np.random.default_rng(9)
    u = rng.uniform(-12, 12, 40)
    m = np.concatenate([rng.uniform(0, 1, 25), 1 - 10.0 ** rng.uniform(-16, -1, 15)])
    got = [v.data for v in V.ellipj(u, m)]
    exact = np.array([_jacobi(a, b, got[3][i]) for i, (a, b) in enumerate(zip(u, m))]).T
    uv, mv = V.Variable(u), V.Variable(m)                # (the condition |f| + |u f_u| + |m f_m|)
    for i, f in enumerate(V.ellipj(uv, mv)):
        f_u, f_m = (V.backend.to_cpu(g.data) for g in V.grad(V.sum(f), [uv, mv]))
        scale = np.abs(exact[i]) + np.abs(u * f_u) + np.abs(m * f_m)
        assert np.max(np.abs(got[i] - exact[i]) / scale) <= 8 * 2.2e-16
    sn, cn, dn, am = got
    np.testing.assert_allclose(sn * sn + cn * cn, 1.0, rtol=5e-16)
    np.testing.assert_allclose(dn * dn + m * sn * sn, 1.0, rtol=1e-15)
    np.testing.assert_allclose(V.ellipkinc(am, m).data, u, rtol=1e-9)          # (F's slope reaches 1e8)
    x = np.linspace(-30, 30, 41)
    for value, expected in zip(V.ellipj(x, 0.0), (np.sin(x), np.cos(x), np.ones_like(x), x)):
        np.testing.assert_allclose(value.data, expected, rtol=4.5e-16, atol=1e-15)
    gd = 2 * np.arctan(np.tanh(x / 2))
    for value, expected in zip(V.ellipj(x, 1.0), (np.tanh(x), 1 / np.cosh(x), 1 / np.cosh(x), gd)):
        np.testing.assert_allclose(value.data, expected, rtol=1e-15)
    assert [float(v.data) for v in V.ellipj(-800.0, 1.0)] == [-1.0, 0.0, 0.0, -np.pi / 2]
    uv, mv = V.Variable(rng.uniform(-5, 5, 6)), V.Variable(rng.uniform(0.05, 0.95, 6))
    sn, cn, dn, am = V.ellipj(uv, mv)
    for f, slope in ((sn, cn.data * dn.data), (cn, -sn.data * dn.data), (dn, -mv.data * sn.data * cn.data),
                     (am, dn.data)):
        np.testing.assert_allclose(V.grad(V.sum(f), uv).data, slope, rtol=1e-13, atol=1e-15)


def test_jacobi_functions_edges_and_periods():
    """NaN for m outside [0, 1] or u = +-inf (SciPy's); sn(u + 2K) = -sn(u), cn(u + 4K) = cn(u),
    am(u + 2K) = am(u) + pi."""
    nan = np.nan
    u = np.array([0.5, 0.5, np.inf, nan, 0.5, 0.0])
    m = np.array([-0.5, 1.5, 0.5, 0.5, nan, 0.3])
    for value, last in zip(V.ellipj(u, m), (0.0, 1.0, 1.0, 0.0)):
        np.testing.assert_array_equal(value.data, [nan] * 5 + [last])
    m = np.array([0.1, 0.5, 0.9])
    k = V.ellipk(m).data
    u = np.array([0.3, -1.2, 2.0])
    base, half, full = V.ellipj(u, m), V.ellipj(u + 2 * k, m), V.ellipj(u + 4 * k, m)
    np.testing.assert_allclose(half[0].data, -base[0].data, rtol=1e-14)
    np.testing.assert_allclose(full[1].data, base[1].data, rtol=1e-14)
    np.testing.assert_allclose(half[3].data, base[3].data + np.pi, rtol=1e-14)


def test_rj_to_a_few_ulps_and_its_principal_value():
    """RJ against the decimal first form (4 ulps, arguments over 200 decades); RJ(x, y, z, z) =
    RD(x, y, z); for p < 0 the principal value within 4 ulps of its terms' size (it crosses 0)
    and SciPy's values there; SciPy's edges (NaN for a NaN p, where SciPy's ignores it)."""
    rng = np.random.default_rng(4)
    x, y, z, p = (10.0 ** rng.uniform(-100, 100, 12) for _ in range(4))
    x[:3] = 0.0
    exact = np.array([_rj(*t) for t in zip(x, y, z, p)])
    with np.errstate(over="ignore", under="ignore"):
        got = V.elliprj(x, y, z, p).data
    keep = (exact > 1e-300) & np.isfinite(exact)
    assert _ulps(got[keep], exact[keep]) <= 4
    x, y, z = (rng.uniform(0.0, 3.0, 20) for _ in range(3))
    np.testing.assert_allclose(V.elliprj(x, y, z, z).data, V.elliprd(x, y, z).data, rtol=9e-16)
    p = -rng.uniform(0.05, 3.0, 20)
    exact = np.array([_rj(*t) for t in zip(x, y, z, p)])
    size = np.abs(exact) + 3 * V.elliprf(x, y, z).data / (np.median([x, y, z], axis=0) - p)
    assert np.max(np.abs(V.elliprj(x, y, z, p).data - exact) / size) <= 4 * 2.2e-16
    special = pytest.importorskip("scipy.special")
    np.testing.assert_allclose(V.elliprj(x, y, z, p).data, special.elliprj(x, y, z, p), rtol=1e-12,
                               atol=1e-13 * np.max(size))
    inf, nan = np.inf, np.nan
    edges = np.array([[nan, 1, 1, 1], [1, 1, 1, nan], [-1, 1, 1, 1], [0, 0, 1, 1], [0, 0, 1, 0],
                      [0, 0, inf, 0], [1, 1, 1, 0], [1, inf, 1, 0], [1, inf, 1, 2], [1, 1, 1, -inf],
                      [0, 1, 1, 1], [1, 1, 1, 1]]).T
    np.testing.assert_array_equal(V.elliprj(*edges).data[:10], [nan, nan, nan, inf, nan, 0, nan, 0, 0, 0])
    np.testing.assert_allclose(V.elliprj(*edges).data[10:], [3 * np.pi / 4, 1.0], rtol=9e-16)



@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_rj_with_p_far_from_the_others_on_the_host_and_in_a_devices_steps(sign, monkeypatch):
    """|p| from 10^6 to 10^40 times x, y, z (one of them 0 too), above and below 0: within 4 ulps
    of the decimal duplication (which takes log4(p / z) steps to bring p down) and of the decimal
    principal value, on the host and in a device's 16 fixed steps (which were 99% off at p / z =
    10^16 before elliprj brought p down itself); x, y, z of 1e-300 beside p = -1e300 (scaling all
    four by |p| flushed them to 0: NaN)."""
    rng = np.random.default_rng(6)
    x, y, z = rng.uniform(0.0, 3.0, (3, 8))
    x[0] = 0.0
    p = sign * 10.0 ** rng.uniform(6, 40, 8)
    x, y, z, p = (np.append(v, w) for v, w in ((x, 1e-300), (y, 2e-300), (z, 3e-300), (p, sign * 1e300)))
    exact = np.array([_rj(*t) for t in zip(x, y, z, p)])
    assert _ulps(V.elliprj(x, y, z, p).data, exact) <= 4
    monkeypatch.setattr(elliptic_integrals, "READ_STEPS", False)
    assert _ulps(V.elliprj(x, y, z, p).data, exact) <= 4


@pytest.mark.parametrize("p", [3.0, -0.5])
def test_tied_arguments_each_get_their_gradient(p):
    """RJ and RG sort their arguments: at a tie each argument still gets its own partial (by
    symmetry equal to its twin's), not its twin's as well (RJ(1, 1, 2, p) gave y nothing)."""
    h = 1e-6
    for op, point in ((V.elliprj, [1.0, 1.0, 2.0, p]), (V.elliprj, [2.0, 1.0, 2.0, p]),
                      (V.elliprg, [1.0, 1.0, 2.0]), (V.elliprg, [2.0, 2.0, 2.0])):
        xs = [V.Variable(np.array(v)) for v in point]
        gradients = [float(g.data) for g in V.grad(op(*xs), xs)]
        for i in range(len(point)):
            up, down = list(point), list(point)
            up[i] += h
            down[i] -= h
            difference = (float(op(*up).data) - float(op(*down).data)) / (2 * h)
            assert gradients[i] == pytest.approx(difference, rel=1e-7, abs=1e-9)


def test_python_numbers_take_the_arrays_dtype():
    """float32 data beside Python numbers stays float32 (NumPy's weak scalars, SciPy's ufuncs'
    float32 loop); integers become float64."""
    x = np.array([0.3, 0.6], np.float32)
    for y in (V.elliprf(x, 2.0, 3.0), V.elliprd(1, x, 3.0), V.elliprg(x, 2, 3.0), V.elliprc(x, 2.0),
              V.elliprj(x, 2.0, 3.0, -1.5), V.ellipkinc(x, 0.5), V.ellipeinc(1.0, x), *V.ellipj(x, 0.5)):
        assert y.dtype == np.float32
    assert V.elliprf(np.array([1, 2]), 2, 3).dtype == np.float64
    wide = V.ellipkinc(x.astype(np.float64), 0.5).data
    np.testing.assert_allclose(V.ellipkinc(x, 0.5).data, wide, rtol=1e-6)
