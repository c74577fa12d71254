"""convolve, correlate, interp, trapezoid and polyval against NumPy.

The table crosses convolve's and correlate's three modes with lengths in either order
(NumPy swaps the inputs where v is the longer, which moves the 'same' and 'valid'
windows), even and odd, and length 1; interp with x of each shape at points away from
the knots, bounds, Variable bounds, one knot and a period; trapezoid along each axis with
sample points of one and of several dimensions, spacings and an empty axis; polyval with
p an array, a 2-D array and a list of Variables and numbers.  Below the table: the NumPy
dispatch, closed-form gradients, the conventions at interp's knots and ends, PyTorch's
conv1d (a correlation), the device, and every refused input.
"""

import warnings

import numpy as np
import pytest
from op_rows import PIECEWISE, SMOOTH, Row, normal, table_tests

import variable as V

MODES = ("full", "same", "valid")
LENGTHS = [(5, 3), (3, 5), (4, 4), (4, 2), (2, 5), (1, 1), (4, 1), (1, 3)]
K = np.array([0.25, -1.0, 0.5])          # a constant kernel (rows holding it run on the CPU only)


def signal_rows(op, ref):
    """`op(a, v, mode)` for every mode and pair of lengths, a number and a constant input."""
    rows = [
        Row(f"{n}x{m} {mode}", lambda a, v, mode=mode: op(a, v, mode),
            lambda a, v, mode=mode: ref(a, v, mode), normal((n,), (m,)), SMOOTH)
        for mode in MODES for n, m in LENGTHS
    ]
    rows += [
        Row("default mode", op, ref, normal((5,), (2,)), SMOOTH),
        Row("legacy mode 1", lambda a, v: op(a, v, 1), lambda a, v: ref(a, v, 1), normal((4,), (3,)), SMOOTH),
        # (a float64 constant promotes float32 data to float64, as in NumPy: no float32 pass)
        Row("constant v", lambda a: op(a, K, "same"), lambda a: ref(a, K, "same"), normal((6,)), SMOOTH,
            float32=False),
        Row("constant a", lambda v: op(K, v, "full"), lambda v: ref(K, v, "full"), normal((4,)), SMOOTH,
            float32=False),
    ]
    if op is V.convolve:                 # a number is a signal of length 1 (np.convolve's ndmin=1)
        rows.append(Row("() x (3,)", lambda a, v: op(a, v), lambda a, v: ref(a, v), normal((), (3,)), SMOOTH))
    return rows


# ----- interp -------------------------------------------------------------------------
KNOTS = np.array([-1.0, -0.3, 0.4, 1.1])
STEP = np.array([-1.0, 0.3, 0.3, 1.0])   # a repeated knot (constant: moving one copy would unsort them)


def knots_and_points(shape, knots=KNOTS, gap=0.1, period=None):
    """x of `shape` in [-1.5, 1.5] (also below and above the knots), increasing knots near
    `knots`, values fp; x at least `gap` from every knot (and from multiples of `period`)."""

    def sample(rng):
        xp = knots + rng.uniform(-0.05, 0.05, knots.shape)
        fp = rng.uniform(-1.5, 1.5, knots.shape)
        while True:
            x = rng.uniform(-1.5, 1.5, shape)
            near = [xp] if period is None else [xp % period, np.array([0.0, period])]
            reduced = x if period is None else x % period
            if all(np.all(np.abs(reduced[..., None] - p) > gap) for p in near):
                return x, xp, fp

    return sample


def with_bounds(shape):
    """knots_and_points, then 0-d left and right bounds."""
    return lambda rng: knots_and_points(shape)(rng) + (np.array(rng.uniform(-2, 2)),
                                                       np.array(rng.uniform(-2, 2)))


def interp_rows():
    rows = [
        Row(f"{s}", V.interp, np.interp, knots_and_points(s), PIECEWISE) for s in [(), (3,), (2, 3)]
    ]
    rows += [
        Row("left, right numbers", lambda x, xp, fp: V.interp(x, xp, fp, left=-2.0, right=3.0),
            lambda x, xp, fp: np.interp(x, xp, fp, left=-2.0, right=3.0), knots_and_points((2, 4)),
            PIECEWISE),
        Row("left, right Variables", V.interp, np.interp, with_bounds((2, 4)), PIECEWISE),
        Row("one knot", V.interp, np.interp, knots_and_points((5,), knots=np.array([0.2])), PIECEWISE),
        Row("repeated knot (a step)", lambda x, fp: V.interp(x, STEP, fp),
            lambda x, fp: np.interp(x, STEP, fp),
            lambda rng: (np.array([-1.2, -0.5, 0.1, 0.6, 1.3]), rng.uniform(-1, 1, 4)), PIECEWISE,
            float32=False),
        Row("constant xp, fp", lambda x: V.interp(x, KNOTS, K[[0, 1, 2, 0]]),
            lambda x: np.interp(x, KNOTS, K[[0, 1, 2, 0]]), lambda rng: knots_and_points((2, 3))(rng)[:1],
            PIECEWISE, float32=False),
    ]
    period = 2.5                                       # knots in any order, x beyond one period
    rows.append(Row(
        "period 2.5",
        lambda x, xp, fp: V.interp(x, xp, fp, period=period),
        lambda x, xp, fp: np.interp(x, xp, fp, period=period),
        lambda rng: _shuffled(knots_and_points((2, 3), knots=np.array([0.3, 0.9, 1.6, 2.2]),
                                               period=period)(rng), rng),
        PIECEWISE,
    ))
    return rows


def _shuffled(sample, rng):
    """x spread over several periods (x + a whole number of periods: the same reduced point),
    the knots in a random order (with their values)."""
    x, xp, fp = sample
    order = rng.permutation(len(xp))
    return x + 2.5 * rng.integers(-2, 2, x.shape), xp[order], fp[order]


# ----- trapezoid, polyval --------------------------------------------------------------
def increasing(n):
    return lambda rng: np.sort(rng.uniform(-1.5, 1.5, n))


def trapezoid_rows():
    rows = [
        Row(f"{s} {kw}", lambda y, kw=kw: V.trapezoid(y, **kw), lambda y, kw=kw: np.trapezoid(y, **kw),
            normal(s), SMOOTH)
        for s, kw in [((3,), {}), ((2, 3), {}), ((2, 3), {"axis": 0}), ((2, 3, 4), {"axis": -2, "dx": 0.5}),
                      ((1,), {}), ((0, 3), {"axis": 0}), ((2, 3), {"dx": 2})]
    ]
    rows += [
        Row("x 1-D", lambda y, x: V.trapezoid(y, x), lambda y, x: np.trapezoid(y, x),
            lambda rng: normal((2, 4))(rng) + (increasing(4)(rng),), SMOOTH),
        Row("x 1-D, axis 0", lambda y, x: V.trapezoid(y, x, axis=0), lambda y, x: np.trapezoid(y, x, axis=0),
            lambda rng: normal((3, 2))(rng) + (increasing(3)(rng),), SMOOTH),
        Row("x of y's shape", lambda y, x: V.trapezoid(y, x=x, axis=1),
            lambda y, x: np.trapezoid(y, x=x, axis=1), normal((2, 3), (2, 3)), SMOOTH),
        Row("x broadcasting", lambda y, x: V.trapezoid(y, x), lambda y, x: np.trapezoid(y, x),
            normal((2, 3), (1, 3)), SMOOTH),
        Row("dx Variable", lambda y, dx: V.trapezoid(y, dx=dx), lambda y, dx: np.trapezoid(y, dx=dx),
            normal((2, 3), (2, 1)), SMOOTH),
    ]
    return rows


def polyval_rows():
    rows = [
        Row(f"p {p} x {s}", V.polyval, np.polyval, normal(p, s), SMOOTH)
        for p, s in [((4,), ()), ((4,), (3,)), ((3,), (2, 3)), ((1,), (2, 3)), ((3, 2), (2,)),
                     ((2, 3), (4, 1))]
    ]
    rows += [
        Row("p a list of Variables", lambda a, b, c, x: V.polyval([a, b, c], x),
            lambda a, b, c, x: a * x * x + b * x + c, normal((), (3,), (), (2, 3)), SMOOTH),
        Row("p a list of Variables and numbers", lambda a, x: V.polyval((a, -2.0, 0.5, 1), x),
            lambda a, x: np.polyval([a, -2.0, 0.5, 1], x), normal((), (3,)), SMOOTH),
    ]
    return rows


ROWS = {
    "convolve": signal_rows(V.convolve, np.convolve),
    "correlate": signal_rows(V.correlate, np.correlate),
    "interp": interp_rows(),
    "trapezoid": trapezoid_rows(),
    "polyval": polyval_rows(),
}

test_forward, test_derivatives, test_taylor, test_float32 = table_tests(ROWS)


def host(y):
    """The data of a Variable (or an array) on the host."""
    return V.backend.to_cpu(getattr(y, "data", y))


# ----- NumPy's dispatch -------------------------------------------------------------------
def test_numpy_functions_dispatch_to_the_ops(on_device):
    a = V.Variable(np.array([1.0, -2.0, 0.5, 3.0]))
    w = V.Variable(np.array([0.5, 1.5]))
    for call, grad_a in [
        (lambda: np.convolve(a, w, "same"), None),
        (lambda: np.correlate(a, w), None),
        (lambda: np.trapezoid(a, dx=0.5), np.array([0.25, 0.5, 0.5, 0.25])),
        (lambda: np.polyval(w, a), np.full(4, 0.5)),                       # d(0.5 a + 1.5)/da
        (lambda: np.interp(a, np.array([-3.0, 0.0, 4.0]), np.array([0.0, 3.0, 5.0])),
         np.array([0.5, 1.0, 0.5, 0.5])),
    ]:
        a.cleargrad()
        y = call()
        assert isinstance(y, V.Variable)
        y.sum().backward()
        if grad_a is not None:
            np.testing.assert_allclose(host(a.grad), grad_a)
    np.testing.assert_allclose(host(np.convolve(a, w, "same")), np.convolve(host(a), host(w), "same"))


# ----- convolve and correlate -------------------------------------------------------------
def test_convolve_swaps_and_centres_as_numpy():
    a, v = np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 10.0])
    np.testing.assert_array_equal(V.convolve(a, v, "same").data, [1.0, 12.0, 23.0, 34.0])
    np.testing.assert_array_equal(V.convolve(v, a, "same").data, [1.0, 12.0, 23.0, 34.0])   # swapped
    np.testing.assert_array_equal(V.convolve(a, v, "valid").data, [12.0, 23.0, 34.0])
    np.testing.assert_array_equal(V.convolve(v, a, "valid").data, [12.0, 23.0, 34.0])
    for n, m in [(6, 4), (4, 6), (7, 2), (2, 7), (5, 5)]:
        x, k = np.arange(1.0, n + 1), np.arange(1.0, m + 1) ** 2
        for mode in MODES:
            np.testing.assert_array_equal(V.convolve(x, k, mode).data, np.convolve(x, k, mode))


def test_correlate_reverses_when_v_is_longer_as_numpy():
    a, v = np.array([1.0, 2.0]), np.array([1.0, 10.0, 100.0, 1000.0])
    # NumPy correlates v with a and reverses: lags -(m - 1) .. 0 of a against v, reversed order
    np.testing.assert_array_equal(V.correlate(a, v, "valid").data, [2100.0, 210.0, 21.0])
    np.testing.assert_array_equal(V.correlate(a, v, "same").data, np.correlate(a, v, "same"))
    np.testing.assert_array_equal(V.correlate(v, a, "valid").data, [21.0, 210.0, 2100.0])
    for n, m in [(6, 4), (4, 6), (3, 6), (6, 3), (2, 2)]:
        x, k = np.arange(1.0, n + 1), np.arange(1.0, m + 1) ** 2
        for mode in MODES:
            np.testing.assert_array_equal(V.correlate(x, k, mode).data, np.correlate(x, k, mode))


def test_correlate_valid_is_pytorch_conv1d():
    # PyTorch's conv1d (and a CNN's "convolution") is a correlation: y_t = sum_j a_{t+j} w_j
    rng = np.random.default_rng(5)
    a, w = V.Variable(rng.normal(size=7)), V.Variable(rng.normal(size=3))
    y = V.correlate(a, w)
    windows = np.stack([host(a)[t:t + 3] for t in range(5)])
    np.testing.assert_allclose(host(y), windows @ host(w), rtol=1e-14)
    gy = rng.normal(size=5)
    ga, gw = V.grad(y, [a, w], grad_outputs=V.Variable(gy))
    np.testing.assert_allclose(host(gw), windows.T @ gy, rtol=1e-14)          # gy correlated with a
    np.testing.assert_allclose(host(ga), np.convolve(gy, host(w)), rtol=1e-14)  # gy convolved with w


def test_convolve_gradients_in_closed_form():
    a, v = V.Variable(np.array([1.0, -2.0, 0.5])), V.Variable(np.array([3.0, 0.25]))
    V.convolve(a, v).sum().backward()                  # sum of a full convolution: sum(a) sum(v)
    np.testing.assert_allclose(a.grad.data, np.full(3, 3.25))
    np.testing.assert_allclose(v.grad.data, np.full(2, -0.5))
    # valid, lengths 3 and 2: sum y = v0 (a1 + a2) + v1 (a0 + a1), so g = (v1, v0 + v1, v0) and
    # d/dv sum g^2 = (4 v0 + 2 v1, 2 v0 + 4 v1)
    g, = V.grad(V.convolve(a, v, "valid").sum(), [a], create_graph=True)
    np.testing.assert_allclose(host(g), [0.25, 3.25, 3.0])
    h, = V.grad((g * g).sum(), [v])
    np.testing.assert_allclose(host(h), [12.5, 7.0])
    # conv(x, x) along x + t 1: its second derivative is 2 conv(1, 1), its third 0
    derivatives = V.taylor(lambda x: V.convolve(x, x), host(a), np.ones(3), order=4)
    np.testing.assert_allclose(host(derivatives[2]), 2 * np.convolve(np.ones(3), np.ones(3)))
    np.testing.assert_allclose(host(derivatives[3]), 0.0)


@pytest.mark.parametrize("op", [V.convolve, V.correlate])
@pytest.mark.parametrize("mode", MODES)
def test_taylor_rules_of_the_gradients(op, mode):
    # forward over reverse: the backward's own ops (convolutions of the incoming gradient
    # with the other input, in the adjoint windows) have Taylor rules too
    rng = np.random.default_rng(2)
    for n, m in [(5, 3), (2, 4)]:
        a, v = rng.normal(size=n), rng.normal(size=m)
        w = rng.normal(size=np.convolve(a, v, mode).shape)
        assert V.taylorcheck(lambda a, v, w=w: V.grad(V.sum(op(a, v, mode) * w), [a, v], create_graph=True),
                             a, v, order=3)


def test_length_one_scalars_and_legacy_modes():
    np.testing.assert_array_equal(V.convolve(2.0, [1.0, 2.0]).data, np.convolve(2.0, [1.0, 2.0]))
    np.testing.assert_array_equal(V.convolve([3.0], [2.0]).data, [6.0])
    for mode, name in [(0, "valid"), (1, "same"), (2, "full")]:
        np.testing.assert_array_equal(V.convolve([1.0, 2.0, 3.0], [1.0, 3.0], mode).data,
                                      np.convolve([1.0, 2.0, 3.0], [1.0, 3.0], name))
        np.testing.assert_array_equal(V.correlate([1.0, 2.0, 3.0], [1.0, 3.0], mode).data,
                                      np.correlate([1.0, 2.0, 3.0], [1.0, 3.0], name))
    x = V.Variable(np.array([1.5]))
    V.correlate(x, [2.0]).backward()
    assert x.grad.data.tolist() == [2.0]


def test_convolve_keeps_float32_with_a_constant():
    a = V.Variable(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    y = V.convolve(a, 0.5)
    assert y.dtype == np.float32
    y.sum().backward()
    assert a.grad.dtype == np.float32


@pytest.mark.parametrize("op", [V.convolve, V.correlate])
def test_refused_signals(op):
    name = op.__name__
    with pytest.raises(ValueError, match=f"{name}: a cannot be empty"):
        op(np.zeros(0), [1.0])
    with pytest.raises(ValueError, match=f"{name}: v cannot be empty"):
        op([1.0], np.zeros(0))
    with pytest.raises(ValueError, match=rf"{name}: a must be 1-D, got shape \(2, 2\)"):
        op(np.ones((2, 2)), [1.0])
    with pytest.raises(ValueError, match=rf"{name}: v must be 1-D, got shape \(1, 3\)"):
        op([1.0], np.ones((1, 3)))
    with pytest.raises(ValueError, match=f"{name}: mode must be one of 'valid', 'same' or 'full', got 'fu'"):
        op([1.0], [1.0], "fu")
    with pytest.raises(ValueError, match=f"{name}: mode must be one of .* got 3"):
        op([1.0], [1.0], 3)
    with pytest.raises(TypeError, match=f"{name}: mode must be one of .* got None"):
        op([1.0], [1.0], None)
    with pytest.raises(TypeError, match=f"{name}: inputs must be"):
        op("ab", [1.0])


def test_correlate_refuses_a_number_as_numpy():
    with pytest.raises(ValueError, match=r"correlate: a must be 1-D, got shape \(\)"):
        V.correlate(2.0, [1.0, 2.0])


# ----- interp ------------------------------------------------------------------------------
XP = np.array([0.0, 1.0, 3.0])
FP = np.array([1.0, 3.0, 2.0])


def test_interp_gradients_at_the_knots_and_outside():
    # at a knot the segment on its right is used (NumPy's search picks it): slope to the right
    x = V.Variable(np.array([-1.0, 0.0, 0.5, 1.0, 3.0, 4.0]))
    xp, fp = V.Variable(XP), V.Variable(FP)
    y = V.interp(x, xp, fp)
    np.testing.assert_array_equal(host(y), np.interp(host(x), XP, FP))
    assert host(y)[4] == FP[-1]                                        # the last knot: fp[-1] exactly
    y.backward()
    np.testing.assert_allclose(x.grad.data, [0.0, 2.0, 2.0, -0.5, 0.0, 0.0])
    # fp: below the range fp[0] (left's default), above it fp[-1]; inside the two ends' weights
    np.testing.assert_allclose(fp.grad.data, [1 + 1 + 0.5, 0.5 + 1, 1 + 1])
    # xp: y = fp_j + (fp_{j+1} - fp_j) t, t = (x - xp_j) / (xp_{j+1} - xp_j), so dy/dxp_j = s (t - 1)
    # and dy/dxp_{j+1} = -s t (s the slope): x = 0 gives (-2, 0), x = 0.5 (-1, -1), x = 1 (0.5, 0)
    np.testing.assert_allclose(xp.grad.data, [-2.0 - 1.0, -1.0 + 0.5, 0.0])


def test_interp_bounds_get_their_gradients():
    left, right = V.Variable(np.array(-4.0)), V.Variable(np.array(9.0))
    y = V.interp(V.Variable(np.array([-2.0, -1.0, 0.5, 5.0])), XP, FP, left=left, right=right)
    np.testing.assert_array_equal(y.data, [-4.0, -4.0, 2.0, 9.0])
    y.sum().backward()
    assert left.grad.item() == 2.0 and right.grad.item() == 1.0


def test_interp_special_points():
    with np.errstate(invalid="ignore"):
        assert np.isnan(V.interp(np.nan, XP, FP).item())
    # one knot: fp[0] everywhere (left and right where given), gradient 0 in x
    x = V.Variable(np.array([-1.0, 2.0, 5.0]))
    y = V.interp(x, [2.0], [7.0], right=1.0)
    np.testing.assert_array_equal(y.data, np.interp(x.data, [2.0], [7.0], right=1.0))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, 0.0)
    # a repeated knot is a step: the value on its right from the knot on
    x = np.array([0.5, 1.0, 1.5])
    np.testing.assert_array_equal(V.interp(x, [0.0, 1.0, 1.0, 2.0], [0.0, 1.0, 5.0, 6.0]).data,
                                  np.interp(x, [0.0, 1.0, 1.0, 2.0], [0.0, 1.0, 5.0, 6.0]))
    # a 0-d x gives a 0-d result
    assert V.interp(0.5, XP, FP).shape == ()


def test_interp_reads_integers_and_booleans_as_numpy():
    """NumPy computes in float64: integer and boolean sample points and values too."""
    x = np.array([[-0.5, 0.25, 1.0], [0.75, 2.0, 0.0]])
    for xp, fp in [([False, True], [True, False]), (np.array([0, 1, 3]), np.array([2, -1, 4])),
                   (np.array([False, True, True]), np.array([1.0, 2.0, 3.0]))]:
        y = V.interp(x, xp, fp)
        assert y.dtype == np.float64
        np.testing.assert_array_equal(y.data, np.interp(x, xp, fp))
    np.testing.assert_array_equal(V.interp(np.array([True, False]), XP, FP).data,
                                  np.interp(np.array([True, False]), XP, FP))


def test_interp_infinite_values_as_numpy_without_warnings():
    """NumPy's loop raises no floating-point flags: an infinite fp gives its values (inf - inf
    retried from the segment's right end), and infinite sample points are refused before any
    arithmetic warns."""
    x = np.array([[-1.5, -1.0, -0.5], [0.25, 1.0, 2.5]])
    xp = np.array([-1.0, 0.0, 1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fp in ([np.inf, 0.5, -0.5, -np.inf], [np.inf, np.inf, 1.0, np.nan], [0.0, -np.inf, np.inf, 1.0]):
            y = V.interp(x, xp, np.array(fp), right=np.inf)
            np.testing.assert_array_equal(y.data, np.interp(x, xp, fp, right=np.inf))
        with pytest.raises(ValueError, match="interp: xp must be increasing"):
            V.interp(x, np.array([np.inf, 0.0, 1.0, -np.inf]), np.ones(4))


def test_interp_period_matches_numpy():
    x = np.array([-7.3, -0.2, 0.0, 1.0, 359.5, 725.0, 360.0])
    xp, fp = np.array([190.0, -190.0, 350.0, -350.0]), np.array([5.0, 10.0, 3.0, 4.0])
    np.testing.assert_allclose(V.interp(x, xp, fp, period=360).data, np.interp(x, xp, fp, period=360),
                               rtol=1e-12)
    np.testing.assert_allclose(V.interp(x, xp, fp, period=-360.0, left=1.0).data,
                               np.interp(x, xp, fp, period=-360.0, left=1.0), rtol=1e-12)
    v = V.Variable(np.array([10.0, 370.0]))
    V.interp(v, xp, fp, period=360).sum().backward()                   # d/dx (x mod p) = 1
    np.testing.assert_allclose(v.grad.data[0], v.grad.data[1])


def test_interp_refuses_decreasing_points():
    # NumPy gives wrong values without a word; on a device the check runs there and raises
    # at the next read (a sync), on the CPU at once
    for xp in ([0.0, 2.0, 1.0], [0.0, np.nan, 1.0]):
        with pytest.raises(ValueError, match="interp: xp must be increasing"):
            y = V.interp(V.Variable(np.array([0.5])), V.Variable(np.array(xp)), [1.0, 2.0, 3.0])
            V.backend.synchronize()
            float(y.sum())


def test_interp_refused_arguments():
    with pytest.raises(ValueError, match="interp: the array of sample points xp is empty"):
        V.interp(0.5, np.zeros(0), np.zeros(0))
    with pytest.raises(ValueError, match=r"interp: fp and xp are not of the same length \(2 and 3\)"):
        V.interp(0.5, XP, FP[:2])
    with pytest.raises(ValueError, match=r"interp: xp and fp must be 1-D sequences, got shapes \(1, 3\)"):
        V.interp(0.5, XP[None], FP)
    with pytest.raises(ValueError, match="interp: period must be a non-zero value"):
        V.interp(0.5, XP, FP, period=0)
    with pytest.raises(TypeError, match="interp: period must be a real number"):
        V.interp(0.5, XP, FP, period="2")
    with pytest.raises(TypeError, match="interp: period must be a number, got a Variable"):
        V.interp(0.5, XP, FP, period=V.Variable(np.array(2.0)))
    with pytest.raises(TypeError, match="interp: left must be a real number"):
        V.interp(0.5, XP, FP, left=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"interp: right must be a scalar, got an array of shape \(2,\)"):
        V.interp(0.5, XP, FP, right=np.ones(2))


# ----- trapezoid -----------------------------------------------------------------------------
def test_trapezoid_gradients_in_closed_form():
    y, x = V.Variable(np.array([1.0, 4.0, 2.0])), V.Variable(np.array([0.0, 1.0, 3.0]))
    area = V.trapezoid(y, x)
    assert area.item() == pytest.approx(2.5 + 6.0)
    area.backward()
    np.testing.assert_allclose(y.grad.data, [0.5, 1.5, 1.0])            # half the neighbouring widths
    np.testing.assert_allclose(x.grad.data, [-2.5, 2.5 - 3.0, 3.0])      # minus/plus the mean heights
    dx = V.Variable(np.array(0.5))
    V.trapezoid(y, dx=dx).backward()
    assert dx.grad.item() == pytest.approx(2.5 + 3.0)


def test_trapezoid_short_axes():
    assert V.trapezoid(np.array([3.0])).item() == 0.0
    np.testing.assert_array_equal(V.trapezoid(np.zeros((0, 2)), axis=0).data, [0.0, 0.0])
    np.testing.assert_array_equal(V.trapezoid(np.zeros((2, 0))).data, [0.0, 0.0])


def test_trapezoid_refused_arguments():
    with pytest.raises(ValueError, match="trapezoid: y must be at least 1-D"):
        V.trapezoid(2.0)
    with pytest.raises(ValueError, match=r"trapezoid: x of length 2 does not match y of shape \(3,\)"):
        V.trapezoid(np.ones(3), [0.0, 1.0])
    with pytest.raises(ValueError, match=r"trapezoid: the spacings of shape \(3, 2\) do not broadcast"):
        V.trapezoid(np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="trapezoid: axis 2 is out of range"):
        V.trapezoid(np.ones((2, 3)), axis=2)
    with pytest.raises(TypeError, match="trapezoid: axis must be an int"):
        V.trapezoid(np.ones((2, 3)), axis=None)


# ----- polyval --------------------------------------------------------------------------------
def test_polyval_of_a_list_of_variables():
    a, b = V.Variable(np.array(2.0)), V.Variable(np.array([1.0, -1.0]))
    x = V.Variable(np.array([0.5, 3.0]))
    y = V.polyval([a, b, 4.0], x)                        # a x^2 + b x + 4
    np.testing.assert_allclose(y.data, [2 * 0.25 + 0.5 + 4, 18 - 3 + 4])
    y.sum().backward()
    np.testing.assert_allclose(a.grad.data, 0.25 + 9.0)                  # x^2
    np.testing.assert_allclose(b.grad.data, [0.5, 3.0])                  # x
    np.testing.assert_allclose(x.grad.data, [2 * 2 * 0.5 + 1, 2 * 2 * 3.0 - 1])   # 2 a x + b


def test_polyval_edges():
    x = np.array([1.0, -2.0])
    np.testing.assert_array_equal(V.polyval([], x).data, np.polyval([], x))      # no coefficients: 0
    y = V.polyval([3.0], x)                                                       # a constant, x's shape
    assert y.shape == (2,) and y.data.tolist() == [3.0, 3.0]
    assert V.polyval([1.0, 0.0, 1.0], np.inf).item() == np.inf                     # NumPy: nan
    with pytest.raises(TypeError, match="polyval: p must be a sequence of coefficients"):
        V.polyval(2.0, x)
    with pytest.raises(ValueError, match=r"polyval: coefficients of shapes .* do not broadcast with x"):
        V.polyval([np.ones(3), 1.0], x)
    # a ragged list of numbers, as NumPy: refused (only arrays and Variables may differ in shape)
    with pytest.raises(ValueError, match=r"polyval: p is a ragged list of numbers, \[\[1.0, 2.0\], \[3"):
        V.polyval([[1.0, 2.0], [3.0]], x)
    np.testing.assert_array_equal(V.polyval([np.array([1.0, 2.0]), [3.0]], x).data, [4.0, -1.0])


# ----- on a device ---------------------------------------------------------------------------


DEVICE_CALLS = {
    "convolve": lambda x, k: V.convolve(x, k, "same"),
    "correlate": lambda x, k: V.correlate(x, k, "full"),
    "interp": lambda x, k: V.interp(x, V.sort(k), k * k),
    "trapezoid": lambda x, k: V.trapezoid(x, dx=k[0]),
    "polyval": V.polyval,
}


@pytest.mark.parametrize("name", DEVICE_CALLS)
def test_ops_run_on_the_device_without_host_syncs(name, gpu, count_syncs):
    f = DEVICE_CALLS[name]
    data, kernel = np.array([0.33, -1.27, 1.41, 0.2]), np.array([0.5, -0.75, 1.1])
    x, k = V.Variable(data).to_gpu(), V.Variable(kernel).to_gpu()
    with count_syncs() as syncs:
        y = f(x, k)
        g = V.grad(y.sum(), [x, k], create_graph=True)
        coefficients = V.taylor(lambda x: f(x, k), x, V.Variable(np.ones(4)).to_gpu(), 3)
    assert syncs.count == 0, getattr(syncs, "where", "")
    assert y.device == "gpu" and all(v.device == "gpu" for v in (*g, *coefficients))
    np.testing.assert_allclose(host(y), f(V.Variable(data), V.Variable(kernel)).data, rtol=1e-12)


def test_interp_decreasing_points_on_the_device(gpu):
    y = V.interp(V.Variable(np.array([0.5, 1.5])).to_gpu(), V.Variable(np.array([0.0, 2.0, 1.0])).to_gpu(),
                 V.Variable(np.array([1.0, 2.0, 3.0])).to_gpu())
    with pytest.raises(ValueError, match=r"interp: xp must be increasing .* falls to 1.0.*on the device"):
        V.backend.synchronize()
    assert np.all(np.isnan(host(y)))
