"""The polynomials ops (polyadd, polysub, polymul, polyder, polyint, polydiv, polyfit, vander,
poly) against NumPy: the table rows, then the rest.

All are smooth compositions of gengrad's ops (joins, products, convolve, cumprod, solve,
lstsq), checked to order 3 and Taylor order 6.  polydiv is sampled with a divisor whose
leading coefficient is away from 0 and a remainder whose entries are too (NumPy trims the
remainder's near-zero leading entries); polyfit at distinct points (a full-rank fit, or
full row rank for deg >= len(x)).  NumPy gives float64 for float32 input in polyder,
polyint, polyfit and vander (a product or quotient with an integer array, or its
Vandermonde matrix): those rows have float32=False.  Below the table: NumPy's dispatch on
Variables, the special points (empty, zero leading coefficients, deg > len, ties), the
device stand-in and every refusal.
"""

import warnings

import numpy as np
import pytest
from op_rows import SMOOTH, Row, nonzero, normal, table_tests
from variable_checks import assert_message

import variable as V


def _label(shapes, params):
    return "x".join(map(str, shapes)) + "".join(f",{k}={v}" for k, v in params.items())


def _row(name, shapes, sampler=normal, float32=True, **params):
    """A row of V.<name>(*xs, **params) against np.<name>(*xs, **params)."""
    return Row(_label(shapes, params), lambda *xs: getattr(V, name)(*xs, **params),
               lambda *xs: getattr(np, name)(*xs, **params), sampler(*shapes), SMOOTH, float32=float32)


def points(n, *more):
    """n distinct sample points in [-1.5, 1.5] (at least 3 / n apart), then values of `more` shapes."""
    def sample(rng):
        x = np.linspace(-1.5, 1.5, n) + rng.uniform(-0.2, 0.2, n) * (3 / max(n, 2))
        return (x,) + tuple(rng.uniform(-1.5, 1.5, s) for s in more)
    return sample


def weighted(n, y_shape):
    """Points, values and positive weights for polyfit(x, y, deg, w=w)."""
    def sample(rng):
        x, y = points(n, y_shape)(rng)
        return x, y, rng.uniform(0.5, 2.0, n)
    return sample


def dividend_divisor(m, n):
    """u of length m and v of length n, v[0] away from 0, each remainder entry away from 0 (a
    remainder of division by a constant is 0 itself)."""
    def sample(rng):
        while True:
            u, = normal((m,))(rng)
            v, = nonzero((n,))(rng)
            r = np.polydiv(u, v)[1]
            if n == 1 or (len(r) == max(min(n - 1, m), 1) and np.all(np.abs(r) > 0.05)):
                return u, v
    return sample


def _fit(shapes, deg, n=6, **params):
    """polyfit rows: x of n points, y (and w) of `shapes`; the outputs kept are Variables only."""
    def call(module):
        def f(x, y, *w):
            kwargs = dict(params, **({"w": w[0]} if w else {}))
            out = module.polyfit(x, y, deg, **kwargs)
            return out[:2] if params.get("full") else out
        return f
    with_w = params.pop("weights", False)
    sampler = weighted(n, shapes) if with_w else points(n, shapes)
    label = f"n={n},y{shapes},deg={deg}" + "".join(f",{k}={v}" for k, v in params.items())
    return Row(label + (",w" if with_w else ""), _quiet(call(V)), _quiet(call(np)), sampler, SMOOTH,
               float32=False)


def _with_k(shape, k_shape, m):
    """A row of polyint(p, m, k) with the constants k a Variable too."""
    return Row(f"{shape},k{k_shape},m={m}", lambda p, k: V.polyint(p, m, k), lambda p, k: np.polyint(p, m, k),
               normal(shape, k_shape), SMOOTH, float32=False)


def _quiet(f):
    """`f` without NumPy's RankWarning (deg >= len(x): NumPy's minimum-norm fit warns, and so
    does V.polyfit)."""
    def call(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.RankWarning)
            return f(*args)
    return call


def real_rooted(degree):
    """Coefficients of a polynomial with `degree` distinct real roots 0.5 to 1 apart and a
    random leading coefficient."""
    def sample(rng):
        zeros = rng.permutation(-1.5 + np.cumsum(rng.uniform(0.5, 1.0, degree)))
        return (np.poly(zeros) * rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2.0),)
    return sample


ROWS = {
    # (zero coefficients are left to the tests below: a perturbed leading zero sends a root to
    # infinity and a trailing one moves a root off 0, so no difference quotient exists there)
    "roots": [Row(f"degree {d}", V.roots, np.roots, real_rooted(d), SMOOTH, taylor=1, ftol=1e-3)
              for d in (1, 2, 3, 5)],
    "polyadd": [_row("polyadd", s) for s in [((3,), (2,)), ((2,), (3,)), ((3,), (3,)), ((), (3,)), ((2,), ()),
                                             ((2, 3), (2, 3)), ((1,), (4,))]],
    "polysub": [_row("polysub", s) for s in [((3,), (2,)), ((2,), (3,)), ((3,), (3,)), ((), (3,)),
                                             ((2, 3), (2, 3))]],
    "polymul": [_row("polymul", s) for s in [((3,), (2,)), ((1,), (4,)), ((), (3,)), ((2,), ()),
                                             ((4,), (4,))]],
    "polyder": [_row("polyder", [(4,)], float32=False, m=m) for m in (1, 2, 3, 5)]
    + [_row("polyder", [(1,)], float32=False), _row("polyder", [(3,)], m=0)],
    "polyint": [_row("polyint", [(3,)], float32=False, m=m) for m in (1, 2, 0)]
    + [_with_k((3,), (2,), 2), _with_k((3,), (), 3), _with_k((2,), (1,), 1), _with_k((0,), (2,), 2),
       Row("(3,),k=[0.5, -1.0],m=2", lambda p: V.polyint(p, 2, [0.5, -1.0]),
           lambda p: np.polyint(p, 2, [0.5, -1.0]), normal((3,)), SMOOTH, float32=False)],
    "polydiv": [Row(f"u({m},)/v({n},)", V.polydiv, np.polydiv, dividend_divisor(m, n), SMOOTH, float32=False)
                for m, n in [(5, 2), (4, 4), (4, 3), (2, 3), (3, 1), (1, 1)]],
    "polyfit": [_fit((6,), 2), _fit((6,), 0), _fit((6,), 5), _fit((6, 2), 1), _fit((6,), 2, weights=True),
                _fit((6, 2), 3, weights=True), _fit((3,), 4, n=3), _fit((6,), 2, full=True),
                _fit((6, 2), 1, full=True, weights=True), _fit((6,), 2, cov=True),
                _fit((6, 2), 1, cov=True, weights=True), _fit((6,), 3, cov="unscaled")],
    "vander": [_row("vander", [(3,)], float32=False), _row("vander", [(4,)], float32=False, N=2),
               _row("vander", [(3,)], float32=False, N=5, increasing=True),
               _row("vander", [(3,)], float32=False, N=1), _row("vander", [(3,)], float32=False, N=0),
               _row("vander", [(0,)], float32=False, N=3), _row("vander", [(1,)], float32=False)],
    "poly": [_row("poly", [s]) for s in [(1,), (2,), (4,)]]
    + [Row("(0,)", V.poly, np.poly, normal((0,)), SMOOTH, float32=False)],
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


# ----- NumPy's functions on Variables -----------------------------------------------
@pytest.mark.parametrize("call", [
    lambda np_, x: np_.polyadd(x, x[:2]),
    lambda np_, x: np_.polysub([1.0], x),
    lambda np_, x: np_.polymul(x, x[1:]),
    lambda np_, x: np_.polyder(x, 2),
    lambda np_, x: np_.polyint(x, 2, k=[1.0, 2.0]),
    lambda np_, x: np_.polydiv(x, x[2:])[0],
    lambda np_, x: np_.polydiv(x, x[2:])[1],
    lambda np_, x: np_.polyfit(x, x * x, 2),
    lambda np_, x: np_.vander(x, 3),
    lambda np_, x: np_.poly(x),
])
def test_numpy_functions_record_gengrads_op(call):
    data = np.array([1.3, -0.4, 0.7, 2.0])
    x = V.Variable(data)
    y = call(np, x)
    assert isinstance(y, V.Variable)
    np.testing.assert_allclose(y.data, call(np, data), rtol=1e-12)
    assert V.gradcheck(lambda v: call(np, v), data, order=2)


def test_numpy_polyfit_returns_numpys_tuples():
    x, y = np.array([0.0, 1.0, 2.0, 3.5]), np.array([1.0, 0.5, 2.0, 3.0])
    c, residuals, rank, s, rcond = np.polyfit(V.Variable(x), y, 1, full=True)
    ours, numpys = (c, residuals, rank, s, rcond), np.polyfit(x, y, 1, full=True)
    for a, b in zip(ours, numpys):
        value = V.backend.to_cpu(a.data) if isinstance(a, V.Variable) else a
        np.testing.assert_allclose(value, b, rtol=1e-12)
    assert rank == numpys[2] and rcond == numpys[4]
    assert not s.requires_grad                       # lstsq's singular values: constants
    c, cov = np.polyfit(x, V.Variable(y), 1, cov=True)
    np.testing.assert_allclose(V.backend.to_cpu(cov.data), np.polyfit(x, y, 1, cov=True)[1], rtol=1e-12)


# ----- semantics and special points ---------------------------------------------------
def test_polyfit_gradient_with_respect_to_y_is_the_pseudo_inverse():
    # c = A^+ y for the Vandermonde matrix A: dc/dy = A^+ (no dependence on y)
    x, y = np.array([-1.0, 0.0, 0.5, 2.0]), np.array([0.3, 1.0, -0.2, 0.8])
    u = np.array([1.0, -2.0, 0.5])
    yv = V.Variable(y)
    g, = V.grad(V.sum(V.polyfit(x, yv, 2) * u), [yv])
    np.testing.assert_allclose(g.data, np.linalg.pinv(np.vander(x, 3)).T @ u, rtol=1e-10)


def test_polyfit_of_exact_data_recovers_the_polynomial_and_its_x_gradient_vanishes():
    # y = p(x) exactly: moving a point along the curve leaves the fit unchanged,
    # so d c / d x_i = -(d c / d y_i) p'(x_i)
    p = np.array([0.5, -1.0, 2.0])
    x = np.array([-1.0, 0.2, 0.9, 1.7, 2.5])
    xv, yv = V.Variable(x), V.Variable(np.polyval(p, x))
    c = V.polyfit(xv, yv, 2)
    np.testing.assert_allclose(V.backend.to_cpu(c.data), p, rtol=1e-10)
    gx, gy = V.grad(V.sum(c * V.Variable(np.array([1.0, 2.0, 3.0]))), [xv, yv])
    gx, gy = V.backend.to_cpu(gx.data), V.backend.to_cpu(gy.data)
    np.testing.assert_allclose(gx, -gy * np.polyval(np.polyder(p), x), atol=1e-10)


def test_polyfit_rank_deficient_warns_as_numpy():
    x, y = np.array([1.0, 1.0, 1.0]), np.array([1.0, 2.0, 3.0])
    with pytest.warns(np.exceptions.RankWarning, match="poorly conditioned"):
        c = V.polyfit(x, y, 1)
    with pytest.warns(np.exceptions.RankWarning):
        np.testing.assert_allclose(c.data, np.polyfit(x, y, 1), rtol=1e-10)


def test_polyfit_with_more_coefficients_than_points_is_numpys_minimum_norm_fit():
    x, y = np.array([-1.0, 0.5, 1.5]), np.array([1.0, -1.0, 2.0])
    with pytest.warns(np.exceptions.RankWarning):
        c = V.polyfit(x, y, 5)
    with pytest.warns(np.exceptions.RankWarning):
        np.testing.assert_allclose(c.data, np.polyfit(x, y, 5), rtol=1e-10)
    np.testing.assert_allclose(np.polyval(c.data, x), y, atol=1e-12)   # it interpolates


def test_polymul_strips_leading_zeros_as_numpy_with_no_gradient_there():
    a1 = V.Variable(np.array([0.0, 2.0, 1.0]))
    a2 = V.Variable(np.array([0.0, 0.0, 3.0]))
    y = V.polymul(a1, a2)
    np.testing.assert_array_equal(y.data, np.polymul(a1.data, a2.data))
    g1, g2 = V.grad(V.sum(y), [a1, a2])
    np.testing.assert_array_equal(g1.data, [0.0, 3.0, 3.0])
    np.testing.assert_array_equal(g2.data, [0.0, 0.0, 3.0])


def test_polydiv_trims_the_remainder_as_numpy():
    # NumPy strips leading remainder entries within allclose(., 0) (|r0| <= 1e-8), keeping one
    for u, v in [([1.0, 3.0, 3.0, 1.0], [1.0, 1.0]), ([0.0, 1e-9, 1.0], [1.0, 2.0, 3.0]),
                 ([1.0, 2.0, 1.0 + 1e-10], [1.0, 1.0]), ([2.0, 0.0, 0.0], [1.0, 0.0]), ([0.0], [1.0])]:
        q, r = V.polydiv(u, v)
        nq, nr = np.polydiv(u, v)
        assert q.shape == nq.shape and r.shape == nr.shape, (u, v)
        np.testing.assert_allclose(q.data, nq, atol=1e-12)
        np.testing.assert_allclose(r.data, nr, atol=1e-12)


def test_polydiv_gradients_flow_through_quotient_and_remainder():
    u, v = V.Variable(np.array([2.0, -1.0, 0.5, 3.0])), V.Variable(np.array([1.5, 0.4]))
    q, r = V.polydiv(u, v)
    gu, gv = V.grad(V.sum(q) + 2 * V.sum(r), [u, v])
    # u = q v + r: perturbing u's last entry moves the remainder only
    assert float(gu.data[-1]) == pytest.approx(2.0)
    assert V.gradcheck(lambda a, b: V.polydiv(a, b), u.data, v.data, order=3)
    assert gv.shape == (2,)


def test_polydiv_by_a_longer_divisor_gives_zero_quotient_without_gradient():
    u, v = V.Variable(np.array([1.0, 2.0])), V.Variable(np.array([1.0, 2.0, 3.0]))
    q, r = V.polydiv(u, v)
    np.testing.assert_array_equal(q.data, [0.0])
    assert not q.requires_grad
    gu, = V.grad(V.sum(r), [u])
    np.testing.assert_array_equal(gu.data, [1.0, 1.0])


def test_polyint_constants_get_gradients():
    p, k = V.Variable(np.array([3.0, 2.0])), V.Variable(np.array([5.0, 7.0]))
    y = V.polyint(p, 2, k)
    np.testing.assert_allclose(y.data, np.polyint(p.data, 2, k.data))
    gk, = V.grad(V.sum(y * np.array([1.0, 1.0, 1.0, 10.0])), [k])
    np.testing.assert_allclose(gk.data, [1.0, 10.0])      # k[0]: x's coefficient, k[1]: the constant
    one = V.Variable(np.array(2.0))                       # one k for every integration
    g, = V.grad(V.sum(V.polyint(p, 3, one)), [one])
    np.testing.assert_allclose(g.data, 1.0 + 1.0 / 2 + 1.0)   # k, k x, k x^2 / 2


def test_derivative_undoes_integral():
    p = V.Variable(np.array([0.3, -1.2, 2.0, 0.5]))
    np.testing.assert_allclose(V.polyder(V.polyint(p, 3, k=[1.0, 2.0, 3.0]), 3).data, p.data, rtol=1e-12)


@pytest.mark.parametrize("call, expected", [
    (lambda: V.polyder(np.zeros(0)), np.polyder(np.zeros(0))),
    (lambda: V.polyder(np.array([2.0]), 3), np.polyder(np.array([2.0]), 3)),
    (lambda: V.polyint(np.zeros(0)), np.polyint(np.zeros(0))),
    (lambda: V.polyadd(np.zeros(0), [1.0, 2.0]), np.polyadd(np.zeros(0), [1.0, 2.0])),
    (lambda: V.vander(np.zeros(0), 3), np.vander(np.zeros(0), 3)),
    (lambda: V.vander(np.array([1.0, 2.0]), 0), np.vander(np.array([1.0, 2.0]), 0)),
    (lambda: V.poly(np.zeros(0)), np.poly(np.zeros(0))),
    (lambda: V.polyadd([0.0, 0.0, 1.0], [2.0]), np.polyadd([0.0, 0.0, 1.0], [2.0])),   # leading zeros kept
    (lambda: V.polymul([0.0, 1.0], [0.0, 2.0]), np.polymul([0.0, 1.0], [0.0, 2.0])),   # poly1d trims them
    (lambda: V.polymul(np.zeros(0), [1.0, 2.0]), np.polymul(np.zeros(0), [1.0, 2.0])),
    (lambda: V.polymul([0.0, 0.0], [1.0, 2.0]), np.polymul([0.0, 0.0], [1.0, 2.0])),
    (lambda: V.polymul(np.float32(3.0), np.zeros(2, np.float32)),
     np.polymul(np.float32(3.0), np.zeros(2, np.float32))),
])
def test_special_points_as_numpy(call, expected):
    y = call()
    assert y.shape == np.shape(expected)
    assert y.dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(y.data, expected)


def test_vander_is_exact_at_zero_with_gradient_of_the_power_rule():
    x = V.Variable(np.array([0.0, 2.0]))
    y = V.vander(x, 4, increasing=True)
    np.testing.assert_array_equal(y.data, np.vander(x.data, 4, increasing=True))
    g, = V.grad(V.sum(y), [x])
    np.testing.assert_allclose(g.data, [1.0, 1.0 + 2 * 2.0 + 3 * 4.0])   # d(1 + x + x^2 + x^3)
    h, = V.grad(V.sum(V.grad(V.sum(y), [x], create_graph=True)[0]), [x])
    np.testing.assert_allclose(h.data, [2.0, 2.0 + 6 * 2.0])


def test_poly_of_repeated_zeros_is_exact_with_gradient():
    z = V.Variable(np.array([1.0, 1.0]))
    y = V.poly(z)
    np.testing.assert_array_equal(y.data, [1.0, -2.0, 1.0])
    g, = V.grad(y[1], [z])                                # the x coefficient is -(z0 + z1)
    np.testing.assert_array_equal(g.data, [-1.0, -1.0])


def test_float32_stays_where_numpy_keeps_it():
    x = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    for op in ("polyadd", "polysub", "polymul"):
        assert getattr(V, op)(x, x[:2]).dtype == getattr(np, op)(x, x[:2]).dtype == np.float32
    assert V.poly(x).dtype == np.poly(x).dtype == np.float32
    q, r = V.polydiv(x, x[:2])
    assert q.dtype == r.dtype == np.float32
    for name, call in [("polyder", lambda m, a: m.polyder(a)), ("polyint", lambda m, a: m.polyint(a)),
                       ("vander", lambda m, a: m.vander(a)), ("polyfit", lambda m, a: m.polyfit(a, a, 1))]:
        assert call(V, x).dtype == call(np, x).dtype == np.float64, name


def test_on_the_device(gpu, count_syncs):
    data = np.array([0.5, -1.0, 1.5, 2.0])
    x = V.Variable(data).to_gpu()
    with count_syncs() as syncs:               # the composites of joins, products and convolutions: no sync
        y = (V.polyadd(x, x[:2]) + V.polysub(x[1:], x) + V.polyder(V.polyint(x, 2, k=x[:2]), 1)[1:]
             + V.poly(x[:3]) + V.vander(x, 3)[0, 0])
        g, = V.grad(V.sum(y * y), [x])
    assert syncs.count == 0, syncs
    with count_syncs() as syncs:               # polymul: one per operand, for its leading zeros
        z = V.polymul(x[:2], x[1:])
    assert syncs.count == 2, syncs
    np.testing.assert_allclose(V.backend.to_cpu(z.data), np.polymul(data[:2], data[1:]), rtol=1e-12)
    assert y.device == g.device == "gpu"
    host = V.Variable(data)
    expected = (V.polyadd(host, host[:2]) + V.polysub(host[1:], host)
                + V.polyder(V.polyint(host, 2, k=host[:2]), 1)[1:] + V.poly(host[:3])
                + V.vander(host, 3)[0, 0])
    np.testing.assert_allclose(V.backend.to_cpu(y.data), expected.data, rtol=1e-12)
    q, r = V.polydiv(x, x[2:])                 # polydiv reads the data for NumPy's trimming
    nq, nr = np.polydiv(data, data[2:])
    assert q.device == r.device == "gpu"
    np.testing.assert_allclose(V.backend.to_cpu(q.data), nq, rtol=1e-12)
    np.testing.assert_allclose(V.backend.to_cpu(r.data), nr, rtol=1e-12)
    xs = V.Variable(np.array([-1.0, 0.0, 0.5, 2.0])).to_gpu()
    c = V.polyfit(xs, x, 2)                    # lstsq reads the rank
    np.testing.assert_allclose(V.backend.to_cpu(c.data), np.polyfit(xs.to_cpu().data, data, 2), rtol=1e-10)


# ----- refusals -------------------------------------------------------------------------
P = np.array([1.0, 2.0, 3.0])


@pytest.mark.parametrize("call, error, op, parts", [
    (lambda: V.polyadd(np.poly1d(P), P), TypeError, "polyadd", ["poly1d", "coeffs"]),
    (lambda: V.polyadd(np.ones((2, 2)), P), ValueError, "polyadd", ["(2, 2)", "1-D"]),
    (lambda: V.polyadd(np.ones((3, 2)), np.ones((3, 3))), ValueError, "polyadd", ["do not broadcast"]),
    (lambda: V.polysub(P, np.ones((2, 2))), ValueError, "polysub", ["(2, 2)"]),
    (lambda: V.polysub(P, "ab"), TypeError, "polysub", []),
    (lambda: V.polysub(P > 1, P > 2), TypeError, "polysub", ["boolean", "astype"]),
    (lambda: V.polydiv([1.0, np.inf], P), ValueError, "polydiv", ["infinite"]),
    (lambda: V.polyfit([1.0, np.nan, 2.0], P, 1), np.linalg.LinAlgError, "polyfit",
     ["did not converge", "NaN"]),
    (lambda: V.polymul(P, np.ones((2, 2))), ValueError, "polymul", ["1-D", "(2, 2)"]),
    (lambda: V.polymul(np.poly1d(P), P), TypeError, "polymul", ["poly1d"]),
    (lambda: V.polyder(P, -1), ValueError, "polyder", ["non-negative", "polyint"]),
    (lambda: V.polyder(P, 1.5), TypeError, "polyder", ["m must be an int"]),
    (lambda: V.polyder(P, True), TypeError, "polyder", ["m must be an int"]),
    (lambda: V.polyder(2.0), TypeError, "polyder", ["0-d"]),
    (lambda: V.polyder(np.ones((2, 3))), ValueError, "polyder", ["1-D", "(2, 3)"]),
    (lambda: V.polyder(np.poly1d(P)), TypeError, "polyder", ["poly1d"]),
    (lambda: V.polyint(P, -2), ValueError, "polyint", ["non-negative", "polyder"]),
    (lambda: V.polyint(P, 3, k=[1.0, 2.0]), ValueError, "polyint", ["at least m=3", "2"]),
    (lambda: V.polyint(P, 1, k=np.ones((2, 2))), ValueError, "polyint", ["1-D", "(2, 2)"]),
    (lambda: V.polyint(P, 1, k="a"), TypeError, "polyint", []),
    (lambda: V.polyint(np.ones((2, 2))), ValueError, "polyint", ["1-D"]),
    (lambda: V.polyint(3.0), TypeError, "polyint", ["0-d"]),
    (lambda: V.polydiv(P, [0.0, 1.0]), ValueError, "polydiv",
     ["leading coefficient of v is 0", "trim_zeros"]),
    (lambda: V.polydiv(P, np.zeros(0)), ValueError, "polydiv", ["v is empty"]),
    (lambda: V.polydiv(np.ones((2, 2)), P), ValueError, "polydiv", ["u must be", "1-D"]),
    (lambda: V.polydiv(np.poly1d(P), P), TypeError, "polydiv", ["poly1d"]),
    (lambda: V.polyfit(P, P, -1), ValueError, "polyfit", ["deg >= 0"]),
    (lambda: V.polyfit(P, P, 1.5), TypeError, "polyfit", ["deg must be an int"]),
    (lambda: V.polyfit(np.ones((3, 1)), P, 1), TypeError, "polyfit", ["1-D vector for x"]),
    (lambda: V.polyfit(np.zeros(0), np.zeros(0), 1), TypeError, "polyfit", ["non-empty"]),
    (lambda: V.polyfit(P, np.ones((3, 1, 1)), 1), TypeError, "polyfit", ["1-D or 2-D", "y"]),
    (lambda: V.polyfit(P, P[:2], 1), TypeError, "polyfit", ["same length", "(3,)", "(2,)"]),
    (lambda: V.polyfit(P, P, 1, w=np.ones((3, 1))), TypeError, "polyfit", ["weights", "(3, 1)"]),
    (lambda: V.polyfit(P, P, 1, w=np.ones(2)), TypeError, "polyfit", ["w and y", "same length"]),
    (lambda: V.polyfit(P, P, 2, cov=True), ValueError, "polyfit", ["must exceed", "unscaled"]),
    (lambda: V.polyfit(P, P, 1, w=np.poly1d(P)), TypeError, "polyfit", ["poly1d"]),
    (lambda: V.vander(np.ones((2, 2))), ValueError, "vander", ["one-dimensional", "(2, 2)"]),
    (lambda: V.vander(P, -1), ValueError, "vander", ["non-negative"]),
    (lambda: V.vander(P, 2.0), TypeError, "vander", ["N must be an int"]),
    (lambda: V.vander("abc"), TypeError, "vander", []),
    (lambda: V.poly(np.eye(2)), ValueError, "poly", ["square matrix", "eigvals", "eigenvalues"]),
    (lambda: V.poly(np.ones((2, 3))), ValueError, "poly", ["1-D", "(2, 3)"]),
    (lambda: V.poly(2.0), TypeError, "poly", ["0-d", "[z]"]),
    (lambda: V.poly(np.poly1d(P)), TypeError, "poly", ["poly1d"]),
])
def test_refusals_name_the_op(call, error, op, parts):
    with pytest.raises(error) as raised:
        call()
    assert_message(raised, op, *parts)


def test_numpy_poly_of_a_square_variable_is_refused():
    with pytest.raises(ValueError, match="poly: a square matrix"):
        np.poly(V.Variable(np.eye(3)))


def test_roots_are_numpys_with_the_gradient_of_a_simple_root():
    c = np.poly([1.0, -2.0, 3.5]) * 2.0
    x = V.Variable(c)
    r = V.roots(x)
    np.testing.assert_array_equal(r.data, np.roots(c))          # the same companion matrix, LAPACK
    for i, root in enumerate(np.roots(c)):                        # dr/dc_k = -r^(n-k) / p'(r)
        g, = V.grad(r[i], [x])
        expected = -root ** np.arange(3, -1, -1) / np.polyval(np.polyder(c), root)
        np.testing.assert_allclose(g.data, expected, rtol=1e-10)
    assert isinstance(np.roots(x), V.Variable)


def test_roots_of_constants_zeros_and_zero_coefficients_as_numpy():
    for c in ([5.0], [0.0, 0.0], [], [0.0, 2.0, -4.0], [3.0, 0.0, 0.0], [0.0, 1.0, -3.0, 2.0, 0.0, 0.0]):
        got, expected = V.roots(np.array(c)), np.roots(c)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        np.testing.assert_allclose(got.data, expected)
    x = V.Variable(np.array([0.0, 1.0, -3.0, 2.0, 0.0]))     # roots 2, 1 of the nonzero part, and 0
    g, = V.grad(V.roots(x)[0], [x])                            # the root 2: -2^(3-k) / p'(2) on it
    np.testing.assert_allclose(g.data, [0.0, -4.0, -2.0, -1.0, 0.0])
    assert V.roots(np.array([1, -3, 2])).dtype == np.float64              # integers: float64


def test_roots_refuses_complex_roots_and_other_shapes():
    with pytest.raises(ValueError) as error:
        V.roots(np.array([1.0, 0.0, 1.0]))
    assert_message(error, "roots", "complex roots", "np.roots(p.data)")
    with pytest.raises(ValueError, match="roots: p must be a 1-D sequence"):
        V.roots(np.ones((2, 2)))
    with pytest.raises(TypeError, match="poly1d"):
        V.roots(np.poly1d([1.0, -1.0]))
