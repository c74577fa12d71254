"""Reverse over forward mode through the decompositions: cholesky, eigh, svd and qr record
their (first-order) Taylor rules, so the gradient of a V.jvp (or V.taylor) result flows back
through the rule to the input.

Each check runs the function on x + x^2/100, so the decomposition's rule meets a recorded
coefficient (a Variable), not only the seed's array; and compares against nested reverse
mode, d <w, J v> / dx from a create_graph gradient then a second backward.  Points are well
conditioned (test_ops_decompositions.py's samplers); eigenvectors and singular vectors enter
through functions that do not see their signs (projectors, U diag(s)^2 Vh, squares of Q, R).
"""

import numpy as np
import pytest
from test_ops_decompositions import positive_definite, projectors, row_projectors, symmetric, well_conditioned

import variable as V
from variable import backend, forward_mode


def premapped(f):
    """f of x + x^2/100: the op's input coefficient is then a recorded Variable."""
    return lambda x: f(x + 0.01 * x * x)


def _outputs(ys):
    return ys if isinstance(ys, tuple) else (ys,)


def _eigh_both(a, UPLO="L"):
    w, v = V.linalg.eigh(a, UPLO)
    return w, projectors(v)


def _svd_product(full_matrices=True, hermitian=False):
    """U diag(s)^2 Vh: the same for (u_k, v_k) and (-u_k, -v_k)."""
    def f(a):
        u, s, vh = V.linalg.svd(a, full_matrices=full_matrices, hermitian=hermitian)
        return (u * (s * s)[..., None, :]) @ vh
    return f


def _svd_invariant(a):
    u, s, vh = V.linalg.svd(a, full_matrices=False)
    return projectors(u), s, row_projectors(vh)


def _qr_squares(mode="reduced"):
    def f(a):
        q, r = V.linalg.qr(a, mode)
        return q * q, r * r
    return f


CASES = [
    ("cholesky", V.linalg.cholesky, positive_definite, (3, 3)),
    ("cholesky stacked", V.linalg.cholesky, positive_definite, (2, 3, 3)),
    ("cholesky upper", lambda a: V.linalg.cholesky(a, upper=True), positive_definite, (3, 3)),
    ("eigh w and projectors", _eigh_both, symmetric, (3, 3)),
    ("eigh stacked UPLO=U", lambda a: _eigh_both(a, "U"), symmetric, (2, 3, 3)),
    ("eigh w alone (V dropped)", lambda a: V.linalg.eigh(a)[0], symmetric, (3, 3)),
    ("eigh projectors alone (w dropped)", lambda a: projectors(V.linalg.eigh(a)[1]), symmetric, (3, 3)),
    ("svd U s^2 Vh", _svd_product(), well_conditioned, (3, 3)),
    ("svd reduced tall", _svd_product(False), well_conditioned, (4, 3)),
    ("svd reduced wide stacked", _svd_product(False), well_conditioned, (2, 3, 4)),
    ("svd projectors", _svd_invariant, well_conditioned, (4, 3)),
    ("svd S alone, full_matrices", lambda a: V.linalg.svd(a)[1], well_conditioned, (4, 3)),
    ("svd hermitian", _svd_product(hermitian=True), symmetric, (3, 3)),
    ("qr tall", _qr_squares(), well_conditioned, (4, 3)),
    ("qr square stacked", _qr_squares(), well_conditioned, (2, 3, 3)),
    ("qr wide", _qr_squares(), well_conditioned, (3, 4)),
    ("qr complete wide", _qr_squares("complete"), well_conditioned, (3, 4)),
    ("qr mode=r (Q dropped)", lambda a: V.linalg.qr(a, "r") ** 2, well_conditioned, (4, 3)),
]
PARAMS = [pytest.param(f, sampler, shape, id=name) for name, f, sampler, shape in CASES]


@pytest.fixture
def no_fallback(monkeypatch):
    """Fails a test whose pass runs a rule once per direction (forward_mode._each_direction)."""
    def refuse(f, *args):
        raise AssertionError(f"{f.name}'s rule ran once per direction")
    monkeypatch.setattr(forward_mode, "_each_direction", refuse)


def _recorded_jvp_gradient(f, a, v, w, batched=False):
    """d <w, J v> / dx, from the graph of a recorded V.jvp."""
    x = V.Variable(a.copy(), requires_grad=True)
    _, dy = V.jvp(f, x, v, batched=batched)
    assert all(d.requires_grad for d in _outputs(dy))
    g, = V.grad(sum(V.sum(d * wi) for d, wi in zip(_outputs(dy), w)), [x])
    return g.data


def _nested_reverse_gradient(f, a, v, w):
    """d <w, J v> / dx = d <J^T w, v> / dx: a create_graph gradient, then a second backward."""
    x = V.Variable(a.copy(), requires_grad=True)
    first, = V.grad(sum(V.sum(y * wi) for y, wi in zip(_outputs(f(x)), w)), [x], create_graph=True)
    g, = V.grad(V.sum(first * v), [x])
    return g.data


def _weights(f, a, rng):
    return [rng.standard_normal(y.shape) for y in _outputs(f(V.Variable(a)))]


@pytest.mark.parametrize("f, sampler, shape", PARAMS)
def test_taylor_gradcheck(f, sampler, shape, rng):
    a, = sampler(shape)(rng)
    assert V.taylor_gradcheck(premapped(f), a, order=1)


@pytest.mark.parametrize("f, sampler, shape", PARAMS)
def test_gradient_of_a_recorded_jvp_equals_nested_reverse(f, sampler, shape, rng, no_fallback):
    a, = sampler(shape)(rng)
    g = premapped(f)
    v = rng.standard_normal(a.shape)
    w = _weights(g, a, rng)
    got = _recorded_jvp_gradient(g, a, v, w)
    expected = _nested_reverse_gradient(g, a, v, w)
    assert np.abs(expected).max() > 1e-3                 # (the check has something to see)
    np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("f, sampler, shape", PARAMS)
def test_gradient_of_a_recorded_taylor_equals_nested_reverse(f, sampler, shape, rng):
    a, = sampler(shape)(rng)
    g = premapped(f)
    v = rng.standard_normal(a.shape)
    w = _weights(g, a, rng)
    x = V.Variable(a.copy(), requires_grad=True)
    dy = _outputs(V.taylor(g, x, v, 1)[1])
    got, = V.grad(sum(V.sum(d * wi) for d, wi in zip(dy, w)), [x])
    np.testing.assert_allclose(got.data, _nested_reverse_gradient(g, a, v, w), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("f, sampler, shape", PARAMS)
def test_batched_recorded_jvp_carries_every_direction_at_once(f, sampler, shape, rng, no_fallback, on_device):
    """Three directions in one recorded pass (coefficients of several directions whose data
    are Variables): values and gradient equal the sum over single-direction passes."""
    a, = sampler(shape)(rng)
    g = premapped(f)
    vs = rng.standard_normal((3, *a.shape))
    w = [on_device(rng.standard_normal((3, *y.shape))) for y in _outputs(g(V.Variable(a)))]
    x = V.Variable(a.copy(), requires_grad=True)
    _, dy = V.jvp(g, x, vs, batched=True)
    got, = V.grad(sum(V.sum(d * wi) for d, wi in zip(_outputs(dy), w)), [x])
    expected = np.zeros(a.shape)
    for d in range(3):
        wd = [wi[d] for wi in w]
        _, single = V.jvp(g, a, vs[d])
        for stacked, one in zip(_outputs(dy), _outputs(single)):
            np.testing.assert_allclose(stacked.data[d], one.data, rtol=1e-10, atol=1e-12)
        expected += backend.to_cpu(_recorded_jvp_gradient(g, a, vs[d], wd))
    np.testing.assert_allclose(got.data, expected, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("f, sampler, shape", PARAMS)
def test_array_pass_with_several_directions_runs_each_rule_once(f, sampler, shape, rng, no_fallback):
    a, = sampler(shape)(rng)
    vs = rng.standard_normal((3, *a.shape))
    _, dy = V.jvp(f, a, vs, batched=True)
    for d in range(3):
        _, single = V.jvp(f, a, vs[d])
        for stacked, one in zip(_outputs(dy), _outputs(single)):
            assert not stacked.requires_grad
            np.testing.assert_allclose(stacked.data[d], one.data, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("op, f, sampler", [
    ("cholesky", V.linalg.cholesky, positive_definite),
    ("eigh", lambda a: V.linalg.eigh(a)[0], symmetric),
    ("svd", lambda a: V.linalg.svd(a)[1], well_conditioned),
    ("qr", lambda a: V.linalg.qr(a)[1], well_conditioned),
])
def test_a_recording_pass_above_order_one_is_still_refused(op, f, sampler, rng):
    a, = sampler((3, 3))(rng)
    x = V.Variable(a, requires_grad=True)
    with pytest.raises(NotImplementedError, match=rf"^{op}: Taylor mode of order 2 .*V\.jvp"):
        V.taylor(f, x, np.eye(3), 2)


@pytest.mark.parametrize("op", ["cholesky", "qr"])
def test_forward_over_reverse_records_through_the_private_inverse(op, rng):
    """The backward of cholesky and qr inverts a factor (the private _Inverse): a jvp of their
    gradient records through it too."""
    f = {"cholesky": V.linalg.cholesky, "qr": lambda x: V.linalg.qr(x)[1]}[op]

    def gradient(x):
        return V.grad(V.sum(f(x) ** 3), [x], create_graph=True)[0]

    assert V.taylor_gradcheck(gradient, positive_definite((3, 3))(rng)[0], order=1)


def test_the_recorded_rule_is_what_the_gradient_sees(rng, monkeypatch):
    """A rule that read the eigenvalues as constants (the array forward saved) would give
    the gradient of the jvp without the eigenvalues' own motion: the check tells them apart."""
    from variable.ops import decompositions

    a, = symmetric((3, 3))(rng)
    f = premapped(_eigh_both)
    v = rng.standard_normal(a.shape)
    w = _weights(f, a, rng)
    right = _recorded_jvp_gradient(f, a, v, w)
    monkeypatch.setattr(decompositions, "_recorded_outputs",
                        lambda forwarder, again: (forwarder.w, forwarder.v))
    wrong = _recorded_jvp_gradient(f, a, v, w)
    assert np.abs(right - wrong).max() > 1e-3
    np.testing.assert_allclose(right, _nested_reverse_gradient(f, a, v, w), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("f, sampler, shape", [p for p in PARAMS if p.id in (
    "cholesky upper", "eigh w alone (V dropped)", "eigh stacked UPLO=U", "svd reduced tall",
    "svd S alone, full_matrices", "svd hermitian", "qr wide", "qr mode=r (Q dropped)")])
def test_on_a_device_as_on_the_cpu(f, sampler, shape, gpu, rng, no_fallback):
    """The recorded jvp and its gradient, one direction and three at once, on the device (the
    CPU stand-in without a GPU, which refuses host arrays and NumPy's own functions on device
    data) equal the CPU's."""
    a, = sampler(shape)(rng)
    g = premapped(f)
    v, vs = rng.standard_normal(a.shape), rng.standard_normal((3, *a.shape))
    w = _weights(g, a, rng)
    ws = [rng.standard_normal((3, *wi.shape)) for wi in w]

    def run(move):
        out = []
        for direction, weights, batched in ((v, w, False), (vs, ws, True)):
            x0 = V.Variable(move(a.copy()), requires_grad=True)
            _, dy = V.jvp(g, x0, move(direction), batched=batched)
            total = sum(V.sum(d * move(wi)) for d, wi in zip(_outputs(dy), weights))
            out += [d.data for d in _outputs(dy)] + [V.grad(total, [x0])[0].data]
        return out

    on_cpu = run(lambda array: array)
    on_device = run(V.backend.to_gpu)
    for got, want in zip(on_device, on_cpu):
        assert V.backend.device_of(got) == "gpu"
        np.testing.assert_allclose(V.backend.to_cpu(got), want, rtol=1e-9, atol=1e-12)
