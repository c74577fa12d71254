"""LBFGS: minimises quadratics and Rosenbrock's function, keeps dtypes, builds lazy layers in
its closure, refuses the closure's slips; and takes PyTorch's steps where PyTorch is installed."""

import importlib.util

import numpy as np
import pytest

import function as F
import layers as L
import optimizers as O
import variable as V
from variable.backend import to_cpu


def _quadratic(rng, n=6):
    """An SPD matrix A (condition number about 50) and b: 0.5 x'Ax - b'x is least at A^-1 b."""
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = q @ np.diag(np.geomspace(1.0, 50.0, n)) @ q.T
    return A, rng.standard_normal(n)


def _closure_of(f, x):
    def closure():
        loss = f(x)
        loss.backward()
        return loss
    return closure


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_a_quadratic_is_minimised(line_search_fn, rng, on_device):
    A, b = _quadratic(rng)
    x = V.Variable(on_device(np.zeros(6)))
    dA, db = on_device(A), on_device(b)
    opt = O.LBFGS(line_search_fn=line_search_fn, max_iter=100, max_eval=200, tolerance_grad=1e-11,
                  tolerance_change=0.0).setup([x])
    first = opt.update(_closure_of(lambda v: 0.5 * V.sum(v * (dA @ v)) - V.sum(db * v), x))
    assert float(first.data) == 0.0              # the loss at the starting point, as PyTorch's returns it
    np.testing.assert_allclose(to_cpu(x.data), np.linalg.solve(A, b), rtol=1e-8, atol=1e-10)


def test_a_bracket_shrunk_to_a_point_gives_that_point():
    """With tolerance_change=0 the zoom may narrow its bracket to one step length (as it did on
    one BLAS kernel): the cubic's minimum is then that point, never 0 / 0."""
    from optimizers.lbfgs import _cubic_minimum
    with np.errstate(all="raise"):
        assert _cubic_minimum(np.float64(0.5), -1.0, -1e-17, np.float64(0.5), -1.0, -1e-17) == 0.5
        assert _cubic_minimum(0.25, -1.0, 0.0, 0.25, -1.0, 0.0) == 0.25
    assert _cubic_minimum(0.0, 1.0, -1.0, 1.0, 1.0, 1.0) == 0.5                 # a symmetric cubic


def test_rosenbrocks_valley_is_followed_to_its_minimum(on_device):
    p = V.Variable(on_device(np.array([-1.5, 2.0])))
    opt = O.LBFGS(line_search_fn="strong_wolfe").setup([p])
    closure = _closure_of(lambda v: (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2, p)
    losses = [float(opt.update(closure).data) for _ in range(10)]
    np.testing.assert_allclose(to_cpu(p.data), [1.0, 1.0], atol=1e-4)
    assert losses[0] > 6 and losses[-1] < 1e-8
    assert opt.global_state["func_evals"] <= 10 * opt.max_eval


def test_a_model_is_fitted_its_lazy_layers_built_by_the_first_call(rng, on_device):
    """setup before the first forward: the closure's first call makes the parameters."""
    L.seed(0)
    model = L.MLP((16, 1), activation=F.tanh)
    x = on_device(rng.uniform(-2, 2, (64, 1)).astype(np.float32))
    t = on_device(np.sin(2 * to_cpu(x)))
    opt = O.LBFGS(line_search_fn="strong_wolfe").setup(model)

    def closure():
        loss = F.mean_squared_error(model(x), t)
        loss.backward()
        return loss

    start = float(opt.update(closure).data)
    for _ in range(15):
        opt.update(closure)
    end = float(closure().data)
    assert end < start / 50 and end < 2e-3
    assert all(p.dtype == np.float32 for p in model.params())


def test_a_closure_that_clears_the_gradients_and_one_that_does_not_take_the_same_steps(rng, on_device):
    A, b = on_device(_quadratic(rng))
    points = []
    for clear in (True, False):
        x = V.Variable(on_device(np.zeros(6)))
        opt = O.LBFGS(max_iter=5).setup([x])

        def closure(x=x, clear=clear):
            if clear:
                x.cleargrad()
            loss = 0.5 * V.sum(x * (A @ x)) - V.sum(b * x)
            loss.backward()
            return loss

        opt.update(closure)
        points.append(to_cpu(x.data))
    np.testing.assert_array_equal(points[0], points[1])    # (LBFGS clears them before each call)


def test_the_history_carries_over_between_updates():
    """Two updates of 4 iterations are one of 8 (PyTorch's LBFGS keeps its history so)."""
    f = lambda v: (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2   # noqa: E731
    one, two = V.Variable(np.array([-1.2, 1.0])), V.Variable(np.array([-1.2, 1.0]))
    opt8 = O.LBFGS(lr=0.5, max_iter=8, max_eval=100).setup([one])
    opt4 = O.LBFGS(lr=0.5, max_iter=4, max_eval=100).setup([two])
    opt8.update(_closure_of(f, one))
    opt4.update(_closure_of(f, two))
    opt4.update(_closure_of(f, two))
    np.testing.assert_allclose(two.data, one.data, rtol=1e-13)


def test_the_slips_of_a_closure_are_refused_at_the_update():
    x = V.Variable(np.array([1.0, 2.0]))
    opt = O.LBFGS().setup([x])
    with pytest.raises(TypeError, match=r"LBFGS\.update: give a closure, a function that computes the loss, "
                                        r"calls loss\.backward\(\) and returns the loss: "
                                        r"opt\.update\(closure\), got no closure"):
        opt.update()

    def no_return():
        V.sum(x * x).backward()
    with pytest.raises(TypeError, match=r"the closure returned None; end it with `return loss`"):
        opt.update(no_return)
    with pytest.raises(ValueError, match=r"the closure left no gradient: call loss\.backward\(\) in it"):
        opt.update(lambda: V.sum(x * x))
    with pytest.raises(TypeError, match=r"the closure must return the loss, one number, got Variable of "
                                        r"shape \(2,\)"):
        opt.update(lambda: (lambda y: (y.backward(gradient=np.ones(2)), y)[1])(x * x))
    np.testing.assert_array_equal(x.data, [1.0, 2.0])     # nothing moved
    with pytest.raises(AttributeError, match=r"opt\.update\(closure\) runs the iterations"):
        opt.step(no_return)
    with pytest.raises(TypeError, match=r"LBFGS\.add_hook: .* put a penalty in the closure's loss"):
        opt.add_hook(O.WeightDecay(1e-4))
    with pytest.raises(RuntimeError, match=r"LBFGS\.update: call setup\(model\) first"):
        O.LBFGS().update(no_return)


def test_settings_are_checked_and_shown():
    assert repr(O.LBFGS(line_search_fn="strong_wolfe")) == (
        "LBFGS(lr=1.0, tolerance_grad=1e-07, tolerance_change=1e-09, max_iter=20, max_eval=25, "
        "history_size=100, line_search_fn='strong_wolfe')")
    with pytest.raises(ValueError, match=r"LBFGS: line_search_fn must be None or 'strong_wolfe', "
                                         r"got 'wolfe'"):
        O.LBFGS(line_search_fn="wolfe")
    with pytest.raises(ValueError, match=r"LBFGS: max_iter must be >= 1, got 0"):
        O.LBFGS(max_iter=0)
    with pytest.raises(ValueError, match=r"LBFGS: lr must lie in \(0.0, inf\), got 0.0"):
        O.LBFGS(lr=0)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("line_search_fn, lr, history_size, max_iter",
                         [(None, 0.5, 3, 7), ("strong_wolfe", 1.0, 100, 20), ("strong_wolfe", 0.5, 3, 7)])
def test_the_steps_are_pytorchs(line_search_fn, lr, history_size, max_iter):
    import torch
    p = V.Variable(np.array([-1.5, 2.0]))
    tp = torch.tensor([-1.5, 2.0], dtype=torch.float64, requires_grad=True)
    opt = O.LBFGS(lr=lr, history_size=history_size, max_iter=max_iter,
                  line_search_fn=line_search_fn).setup([p])
    topt = torch.optim.LBFGS([tp], lr=lr, history_size=history_size, max_iter=max_iter,
                             line_search_fn=line_search_fn)

    def torch_closure():
        topt.zero_grad()
        loss = (1 - tp[0]) ** 2 + 100 * (tp[1] - tp[0] ** 2) ** 2
        loss.backward()
        return loss

    closure = _closure_of(lambda v: (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2, p)
    for _ in range(6):
        ours, theirs = opt.update(closure), topt.step(torch_closure)
        np.testing.assert_allclose(float(ours.data), float(theirs.detach()), rtol=1e-7, atol=1e-12)
        np.testing.assert_allclose(p.data, tp.detach().numpy(), rtol=1e-7)
    assert opt.global_state["func_evals"] == topt.state[tp]["func_evals"]
