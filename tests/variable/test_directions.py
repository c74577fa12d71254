"""Many directions in one pass: V.taylor/V.jvp with batched=True, the collapsed pass, and
V.jacobian/V.hessian by forward mode (variable/directions.py, variable/forward_mode.py)."""

import math

import numpy as np
import pytest

import function as F
import variable as V
from variable.directions import Directions

W = np.random.default_rng(5).standard_normal((4, 3))
B3 = np.random.default_rng(6).standard_normal((2, 3, 4))


class CopyRule(V.Forwarder):
    """x * 2 with a rule that copies each coefficient into a new array, which a coefficient
    of several directions cannot take: the engine runs it once per direction."""

    def forward(self, x):
        return x * 2

    def backward(self, gy):
        return gy * 2

    def taylor(self, x):
        seen.append(any(isinstance(c, Directions) for c in x))
        out = []
        for c in x:
            copy = np.empty(np.shape(c))
            copy[...] = c
            out.append(copy * 2)
        return out


seen = []


# Constants on either side of a product, indexing, joining and reshaping: the places where a
# leading axis of directions must be carried to the right place.
CASES = {
    "W @ x (x of shape (3,))": (lambda x: V.tanh(V.matmul(W, x)), (3,)),
    "W @ x (x of shape (3, 2))": (lambda x: V.sin(V.matmul(W, x)), (3, 2)),
    "x @ W.T (x of shape (5, 3))": (lambda x: V.exp(V.matmul(x, W.T) / 4), (5, 3)),
    "x @ W.T (x of shape (3,))": (lambda x: V.matmul(x, W.T) ** 2, (3,)),
    "B3 @ x (batched constant)": (lambda x: V.tanh(V.matmul(B3, x)), (4, 2)),
    "x @ B3 (batched constant)": (lambda x: V.tanh(V.matmul(x, B3)), (5, 3)),
    "x[1:] * x[:-1]": (lambda x: x[1:] * x[:-1], (5,)),
    "x[[0, 2, 2]] twice": (lambda x: V.sum(x[[0, 2, 2]] ** 2), (4,)),
    "x[:, [0, 2]]": (lambda x: V.sin(x[:, [0, 2]]), (2, 3)),
    "x[[0, 1], :, [1, 0]] (separated arrays)": (lambda x: V.tanh(x[[0, 1], :, [1, 0]]), (2, 3, 2)),
    # an integer next to an array counts among the separated ones (NumPy moves their axes first)
    "x[[0, 1], :, 0] (an array and an int, separated)": (lambda x: V.sin(x[[0, 1], :, 0]), (2, 3, 2)),
    "x[0, :, [1, 0]] (an int and an array, separated)": (lambda x: V.sin(x[0, :, [1, 0]]) ** 2, (2, 3, 2)),
    "x[[[0], [1]], :, [1, 0]] (a 2-D broadcast, separated)": (
        lambda x: V.tanh(x[[[0], [1]], :, [1, 0]]), (2, 3, 2)),
    "x[mask, :, 1] (a mask and an int, separated)": (
        lambda x: V.sin(x[np.array([True, False]), :, 1]), (2, 3, 2)),
    "x[:, [0, 2], 1] (an array and an int, adjacent)": (lambda x: x[:, [0, 2], 1] ** 2, (2, 3, 2)),
    "concatenate with a constant": (lambda x: V.tanh(V.concatenate([x, np.ones((2, 3))], axis=1)), (2, 3)),
    "stack with itself": (lambda x: V.stack([x, x * x], axis=-1), (2, 3)),
    "reshape(-1) and sum over axes": (
        lambda x: V.sum(V.reshape(x * x, (-1,)) * V.sum(x, axis=(0, 1))), (2, 3)),
    "transpose, expand_dims, squeeze": (
        lambda x: V.squeeze(V.expand_dims(V.transpose(V.tanh(x), (1, 0)), 0), 0), (2, 3)),
    "a rule that copies (run once per direction)": (lambda x: V.Function(CopyRule())(V.sin(x)) ** 2, (2, 3)),
    # a flat op's zero coefficients carry the directions of its input, so a product with them
    # stays a product of directions (collapsed at order 2)
    "floor(x) * x (a flat factor)": (lambda x: V.floor(x * 3) * V.sin(x), (2, 3)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_directions_carried_through(name, directions_check, rng):
    fn, shape = CASES[name]
    directions_check(fn, rng.standard_normal(shape), order=2, per_direction="run once per direction" in name)


def test_a_rule_that_cannot_take_directions_runs_once_per_direction(rng):
    seen.clear()
    f = CASES["a rule that copies (run once per direction)"][0]
    x, vs = rng.standard_normal((2, 3)), rng.standard_normal((4, 2, 3))
    batched = V.taylor(f, x, vs, 3, batched=True)
    assert True in seen and seen.count(False) == 4            # tried once, then once per direction
    for d in range(4):
        single = V.taylor(f, x, vs[d], 3)
        for k in range(1, 4):
            np.testing.assert_allclose(batched[k].data[d], single[k].data, rtol=1e-12)


def test_jvp_batched_is_a_jacobian_product_per_direction(rng):
    x, vs = rng.standard_normal(3), rng.standard_normal((5, 3))
    f = CASES["W @ x (x of shape (3,))"][0]
    y, tangents = V.jvp(f, x, vs, batched=True)
    J = V.jacobian(f, x).data
    assert tangents.shape == (5, 4)
    np.testing.assert_allclose(tangents.data, vs @ J.T, rtol=1e-12)
    np.testing.assert_allclose(y.data, f(V.Variable(x)).data)


def test_directions_may_broadcast_against_x(rng):
    # one direction per column, the same for every row: shape (n, 1, d) against x (rows, d)
    x = rng.standard_normal((6, 3))
    f = CASES["x @ W.T (x of shape (5, 3))"][0]
    eye = np.eye(3)[:, None, :]
    full = np.broadcast_to(eye, (3, 6, 3)).copy()
    lazy, dense = V.taylor(f, x, eye, 2, batched=True), V.taylor(f, x, full, 2, batched=True)
    for k in (1, 2):
        np.testing.assert_allclose(lazy[k].data, dense[k].data, rtol=1e-13)


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (lambda: V.jvp(V.sin, np.ones(3), np.ones((2, 4)), batched=True), ValueError,
         r"jvp: with batched=True, v holds a stack of directions along its first axis, so for input 0 "
         r"of shape \(3,\) it has shape \(n, 3\)"),
        (lambda: V.jvp(V.sin, np.ones(3), np.ones((2, 3))), ValueError,
         r"stack them along a first axis and pass batched=True"),
        (lambda: V.jvp(V.sin, np.ones(3), np.ones((0, 3)), batched=True), ValueError, r"n >= 1"),
        (lambda: V.jvp(lambda a, b: a * b, (np.ones(3), np.ones(3)), (np.ones((2, 3)), np.ones((3, 3))),
                       batched=True), ValueError, r"every input needs as many directions; got 2, 3"),
        (lambda: V.taylor(V.sin, np.ones(3), np.ones((2, 3)), 2, batched="yes"), TypeError,
         r"taylor: batched must be True or False"),
    ],
)
def test_slips_are_refused_naming_the_fix(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


# ----- Jacobians and Hessians by forward mode ------------------------------------------------
def _reverse_rows(f, x):
    """The Jacobian one backward pass per output entry (what V.jacobian did for every map)."""
    x = V.Variable(x)
    y = f(x)
    rows = [V.grad(y.reshape(-1)[i], x, allow_unused=True) for i in range(y.size)]
    return np.stack([r.data if r is not None else np.zeros(x.shape) for r in rows]).reshape(y.shape + x.shape)


def rosenbrock(x):
    return V.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def test_jacobian_of_a_square_map_by_forward_mode_equals_reverse_rows(rng):
    f = CASES["W @ x (x of shape (3, 2))"][0]
    x = rng.standard_normal((3, 2))
    np.testing.assert_allclose(V.jacobian(f, x).data, _reverse_rows(f, x), rtol=1e-12, atol=1e-14)


def test_hessian_by_forward_over_reverse_equals_the_jacobian_of_the_gradient(rng):
    x = rng.standard_normal(7)
    H = V.hessian(rosenbrock, x).data
    expected = _reverse_rows(lambda v: V.grad(rosenbrock(v), v, create_graph=True), x)
    np.testing.assert_allclose(H, expected, rtol=1e-12)
    np.testing.assert_allclose(H, H.T, rtol=1e-12)


def test_hessian_with_create_graph_is_differentiable(rng):
    # d/dx of sum(H * G): forward over reverse recorded, against nested reverse mode
    x0, G = rng.standard_normal(5), rng.standard_normal((5, 5))
    x = V.Variable(x0)
    got = V.grad(V.sum(V.hessian(rosenbrock, x, create_graph=True) * G), x).data

    def nested(v):
        g = V.grad(rosenbrock(v), v, create_graph=True)
        return V.sum(V.stack([V.grad(g[i], v, create_graph=True) for i in range(5)]) * G)
    y = V.Variable(x0)
    np.testing.assert_allclose(got, V.grad(nested(y), y).data, rtol=1e-10)


def test_hessian_inside_a_forward_pass_falls_back_to_reverse_rows(rng):
    # a forward pass inside another is refused by V.jvp; V.hessian then takes reverse mode
    x, v = rng.standard_normal(4), rng.standard_normal(4)
    _, third = V.jvp(lambda y: V.hessian(rosenbrock, y, create_graph=True), x, v)
    tensor = V.jacobian(lambda y: V.hessian(rosenbrock, y, create_graph=True), x).data
    expected = np.einsum("ijk,k->ij", tensor, v)
    np.testing.assert_allclose(third.data, expected, rtol=1e-10, atol=1e-10)


# ----- V.jet: a path given by its derivatives ----------------------------------------------
def test_jet_along_a_line_is_taylor(rng):
    x, v = rng.standard_normal(4), rng.standard_normal(4)
    f = CASES["W @ x (x of shape (3, 2))"][0]
    x, v = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    y, derivatives = V.jet(f, x, [v, np.zeros_like(v), np.zeros_like(v)])
    expected = V.taylor(f, x, v, 3)
    for k in range(1, 4):
        np.testing.assert_allclose(derivatives[k - 1].data, expected[k].data, rtol=1e-12, atol=1e-14)


def test_jet_along_a_curve_is_the_chain_rule(rng):
    # y = sin(x(t)) with x' = a, x'' = b: y' = cos(x) a, y'' = cos(x) b - sin(x) a^2
    x, a, b = rng.standard_normal(5), rng.standard_normal(5), rng.standard_normal(5)
    _, (d1, d2) = V.jet(V.sin, x, [a, b])
    np.testing.assert_allclose(d1.data, np.cos(x) * a, rtol=1e-13)
    np.testing.assert_allclose(d2.data, np.cos(x) * b - np.sin(x) * a * a, rtol=1e-13)


def test_taylor_integrator_of_an_ode_from_jet():
    # x' = x^2, x(0) = 1/2: x(t) = x0 / (1 - x0 t), so x^(k)(0) = k! x0^(k+1); each pass
    # gives the next derivative: x^(k+1) = (x^2)^(k)
    x0 = np.array(0.5)
    path = [x0 * x0]
    for k in range(1, 12):
        _, derivatives = V.jet(lambda v: v * v, x0, path)
        path.append(derivatives[k - 1].data)
    np.testing.assert_allclose([float(p) for p in path],
                               [math.factorial(k) * 0.5 ** (k + 1) for k in range(1, 13)], rtol=1e-12)


def test_jet_with_several_inputs_and_a_graph(rng):
    x0, x1 = rng.standard_normal(3), rng.standard_normal(3)
    s0 = [rng.standard_normal(3), rng.standard_normal(3)]
    s1 = [rng.standard_normal(3), rng.standard_normal(3)]
    p = V.Variable(x0)
    _, (d1, d2) = V.jet(lambda a, b: a * V.exp(b), (p, x1), (s0, s1))
    # y'' of a e^b: a'' e^b + 2 a' b' e^b + a (b'' + b'^2) e^b; its gradient with respect to a
    e = np.exp(x1)
    expected = (s0[1] + 2 * s0[0] * s1[0] + x0 * (s1[1] + s1[0] ** 2)) * e
    np.testing.assert_allclose(d2.data, expected, rtol=1e-12)
    np.testing.assert_allclose(V.grad(V.sum(d2), p).data, (s1[1] + s1[0] ** 2) * e, rtol=1e-12)


@pytest.mark.parametrize(
    "call, pattern",
    [
        (lambda: V.jet(V.sin, np.ones(3), []), r"jet: series must be a non-empty list"),
        (lambda: V.jet(V.sin, np.ones(3), np.ones(3)), r"jet: series must be a non-empty list"),
        (lambda: V.jet(lambda a, b: a * b, (np.ones(3), np.ones(3)), ([np.ones(3)], [np.ones(3)] * 2)),
         r"jet: the series of input 1 must be a list of its 1 derivatives"),
    ],
)
def test_jet_slips_are_refused(call, pattern):
    with pytest.raises((TypeError, ValueError), match=pattern):
        call()


# ----- a Hessian operator for Newton-CG: f and its gradient once, one backward per product ----
def test_hessian_operator_equals_hvp_and_runs_f_once(rng):
    calls = []

    def counted(x):
        calls.append(1)
        return rosenbrock(x)
    x = rng.uniform(-1, 1, 6)
    hv = V.hessian_operator(counted, x)
    for _ in range(3):
        v = rng.standard_normal(6)
        np.testing.assert_allclose(hv(v).data, V.hvp(rosenbrock, x, v).data, rtol=1e-12)
    assert len(calls) == 1


def test_newton_cg_with_the_hessian_operator_reaches_rosenbrocks_minimum():
    x = np.full(4, 0.5)
    for _ in range(30):
        xv = V.Variable(x)
        g = V.grad(rosenbrock(xv), xv).data
        hv = V.hessian_operator(rosenbrock, x)
        step, r = np.zeros_like(x), -g                  # conjugate gradients on H s = -g
        p = r.copy()
        for _ in range(8):
            hp = hv(p).data
            curvature = p @ hp
            if curvature <= 0:
                break
            alpha = (r @ r) / curvature
            step, r_new = step + alpha * p, r - alpha * hp
            if np.linalg.norm(r_new) < 1e-12:
                break
            p, r = r_new + (r_new @ r_new) / (r @ r) * p, r_new
        x = x + (step if np.any(step) else -1e-3 * g)
    np.testing.assert_allclose(x, np.ones(4), atol=1e-8)


def test_hessian_operator_slips_are_refused():
    with pytest.raises(ValueError, match="hessian_operator: f must return a scalar Variable"):
        V.hessian_operator(lambda x: x * 2, np.ones(3))
    hv = V.hessian_operator(rosenbrock, np.ones(3))
    with pytest.raises(ValueError, match=r"hessian_operator: v of shape \(2,\) does not match x of shape"):
        hv(np.ones(2))


def test_jacobian_with_create_graph_is_differentiable(rng):
    # d/dx sum(J * G) for a tall map: the forward pass recorded, against reverse rows
    f = CASES["W @ x (x of shape (3,))"][0]
    x0, G = rng.standard_normal(3), rng.standard_normal((4, 3))
    x = V.Variable(x0)
    got = V.grad(V.sum(V.jacobian(f, x, create_graph=True) * G), x).data
    y = V.Variable(x0)
    out = f(y)
    rows = V.stack([V.grad(out[i], y, create_graph=True) for i in range(4)])
    np.testing.assert_allclose(got, V.grad(V.sum(rows * G), y).data, rtol=1e-10)


@pytest.mark.parametrize("op", [V.tanh, V.exp, F.sigmoid, V.tan])
def test_long_recurrences_run_over_blocks_of_points_to_the_same_numbers(op, rng, monkeypatch):
    # series.ode runs a pointwise recurrence over cache-sized blocks of points on big arrays;
    # with _BLOCK = 16, order 12's blocks hold 64 points: 200 points take 4 (the last short)
    from variable import series
    x, v = rng.uniform(-1, 1, (8, 25)), rng.standard_normal((8, 25))
    whole = V.taylor(op, x, v, 12)
    monkeypatch.setattr(series, "_BLOCK", 16)
    assert series._block(13) == 64
    blocked = V.taylor(op, x, v, 12)
    for k in range(1, 13):
        np.testing.assert_allclose(blocked[k].data, whole[k].data, rtol=1e-14, atol=0)


@pytest.mark.parametrize("op", [V.tanh, V.exp, F.sigmoid, V.tan, V.sin])
@pytest.mark.parametrize("block", [None, 16])
def test_a_straight_path_skips_its_known_zeros_to_the_same_numbers(op, block, rng, monkeypatch):
    # V.taylor's path x + t v pads with zeros the recurrences know (series.known_zero): y_k
    # costs one product; V.jet's path is given as arrays (its zeros unknown): the full sums
    from variable import series
    if block:
        monkeypatch.setattr(series, "_BLOCK", block)
    x, v = rng.uniform(-1, 1, (8, 25)), rng.standard_normal((8, 25))
    skipped = series._is_zero
    calls = []
    monkeypatch.setattr(series, "_is_zero", lambda c: calls.append(1) or skipped(c))
    straight = V.taylor(op, x, v, 12)
    assert calls, "the zeros were not looked at"
    _, given = V.jet(op, x, [v] + [np.zeros_like(x) for _ in range(11)])
    for k in range(1, 13):
        np.testing.assert_allclose(straight[k].data, given[k - 1].data, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("outputs", ["one", "twice", "and a view", "and a product"])
def test_derivatives_scaled_in_place_only_where_nothing_else_shares_them(outputs, rng, monkeypatch):
    # on big arrays each y_k is an array of its own, which V.taylor scales by k! in place
    # unless another output holds it or a view of it (that one would be scaled twice)
    from variable import series
    monkeypatch.setattr(series, "_BLOCK", 16)
    x, v = rng.uniform(-1, 1, (8, 25)), rng.standard_normal((8, 25))
    expected = V.taylor(V.tanh, x, v, 6)
    made = {"one": lambda a: V.tanh(a), "twice": lambda a: (V.tanh(a), V.tanh(a)),
            "and a view": lambda a: (lambda y: (y, V.reshape(y, (25, 8)), y[2:5]))(V.tanh(a)),
            "and a product": lambda a: (lambda y: (y, 2 * y))(V.tanh(a))}[outputs]
    got = V.taylor(made, x, v, 6)
    for k in range(1, 7):
        want = expected[k].data
        parts = got[k] if isinstance(got[k], tuple) else (got[k],)
        np.testing.assert_allclose(parts[0].data, want, rtol=1e-13)
        if outputs == "and a view":
            np.testing.assert_allclose(parts[1].data, want.reshape(25, 8), rtol=1e-13)
            np.testing.assert_allclose(parts[2].data, want[2:5], rtol=1e-13)
        elif outputs == "and a product":
            np.testing.assert_allclose(parts[1].data, 2 * want, rtol=1e-13)


def test_known_zeros_are_read_only_and_forgotten_with_their_array():
    from variable import series
    z = series.known_zero(np.zeros(3))
    assert series._is_zero(z) and not series._is_zero(np.zeros(3))
    key = id(z)
    del z
    assert key not in series._KNOWN_ZEROS
    from variable import forward_mode  # the engine's padding: known, read-only
    padding = forward_mode._zeros(V.Variable(np.ones(2)))
    assert series._is_zero(padding)
    with pytest.raises(ValueError, match="read-only"):
        padding[0] = 1.0


# ----- argnums and has_aux, as torch.func's --------------------------------------------------
def test_argnums_picks_blocks_of_the_full_derivative(rng):
    a, b, c = rng.standard_normal(3), rng.standard_normal(2), rng.standard_normal(())
    f = lambda x, y, z: V.sum(V.tanh(x) * x[0]) * V.sum(y ** 3) + z * V.sum(x)   # noqa: E731
    full = V.hessian(f, (a, b, c))
    picked = V.hessian(f, (a, b, c), argnums=(2, 0))
    np.testing.assert_allclose(picked[0][1].data, full[2][0].data, rtol=1e-12)
    np.testing.assert_allclose(picked[1][1].data, full[0][0].data, rtol=1e-12)
    g = lambda x, y: V.sin(x) * V.sum(y)                                          # noqa: E731
    np.testing.assert_allclose(V.jacobian(g, (a, b), argnums=1).data, V.jacobian(g, (a, b))[1].data,
                               rtol=1e-12)
    np.testing.assert_allclose(V.jacobian(g, (a, b), argnums=-2).data, V.jacobian(lambda x: g(x, b), a).data,
                               rtol=1e-12)


def test_has_aux_returns_what_f_gave_beside_the_derivative(rng):
    x = rng.standard_normal(3)
    J, aux = V.jacobian(lambda v: (V.exp(v), {"value": 1}), x, has_aux=True)
    np.testing.assert_allclose(J.data, np.diag(np.exp(x)), rtol=1e-12)
    assert aux == {"value": 1}
    H, loss = V.hessian(lambda v, w: (V.sum(v ** 4) + V.sum(w), "loss"), (x, x[:2]), argnums=0, has_aux=True)
    np.testing.assert_allclose(H.data, np.diag(12 * x ** 2), rtol=1e-12)
    assert loss == "loss"


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (lambda: V.jacobian(V.sin, np.ones(3), argnums=0), TypeError,
         r"jacobian: argnums picks entries of a tuple x"),
        (lambda: V.jacobian(lambda a, b: a * b, (np.ones(2), np.ones(2)), argnums=2), ValueError,
         r"argnums 2 must name distinct entries of x, 0 \.\. 1"),
        (lambda: V.hessian(lambda a, b: V.sum(a * b), (np.ones(2), np.ones(2)), argnums=(0, 0)), ValueError,
         r"hessian: argnums \(0, 0\) must name distinct entries"),
        (lambda: V.jacobian(lambda a, b: a * b, (np.ones(2), np.ones(2)), argnums=[0]), TypeError,
         r"argnums must be an int or a non-empty tuple of ints"),
        (lambda: V.jacobian(V.sin, np.ones(3), has_aux=True), TypeError,
         r"jacobian: with has_aux=True, f must return a pair \(output, aux\), got Variable"),
    ],
)
def test_argnums_and_has_aux_slips_are_refused(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


# ----- several inputs: one forward pass for every block ---------------------------------------
def _cross(a, b):
    return V.sum(V.tanh(a[:, None] * b[None, :])) + V.sum(a ** 3) * b[0]


def test_hessian_blocks_of_several_inputs_by_one_forward_pass(rng, monkeypatch):
    import variable.functional as functional
    a0, b0, G = rng.standard_normal(4), rng.standard_normal(3), rng.standard_normal((4, 3))
    a, b = V.Variable(a0), V.Variable(b0)
    forward = V.hessian(_cross, (a, b), create_graph=True)
    cross_gradient = V.grad(V.sum(forward[0][1] * G), [a, b])
    monkeypatch.setattr(functional, "_forward_blocks", lambda *args: None)    # reverse rows
    a2, b2 = V.Variable(a0), V.Variable(b0)
    reverse = V.hessian(_cross, (a2, b2), create_graph=True)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(forward[i][j].data, reverse[i][j].data, rtol=1e-12, atol=1e-15)
    for got, expected in zip(cross_gradient, V.grad(V.sum(reverse[0][1] * G), [a2, b2])):
        np.testing.assert_allclose(got.data, expected.data, rtol=1e-10)


def test_jacobian_blocks_of_several_inputs_by_one_forward_pass(rng):
    a, b = rng.standard_normal(3), rng.standard_normal(2)
    f = lambda u, w: V.sin(u[:, None] * w[None, :])                      # noqa: E731   (3, 2)
    Ja, Jb = V.jacobian(f, (a, b))
    np.testing.assert_allclose(Ja.data, V.jacobian(lambda u: f(u, b), a).data, rtol=1e-12)
    np.testing.assert_allclose(Jb.data, V.jacobian(lambda w: f(a, w), b).data, rtol=1e-12)
