"""WeightDecay, ClipGrad (global norm) and FreezeParam against hand-written formulas."""

import numpy as np
import pytest
from optim_problem import P0, Quadratic, grad_of, run_steps

import layers as L
import optimizers as O
import variable as V
from variable import backend


def test_weight_decay_three_steps(quadratic):
    lr, rate = 0.1, 0.3
    opt = O.SGD(lr)
    opt.add_hook(O.WeightDecay(rate))
    got = run_steps(opt, quadratic)
    p = P0.copy()
    for step in range(3):
        p = p - lr * (grad_of(p) + rate * p)             # g <- g + rate p
        np.testing.assert_allclose(got[step], p, rtol=1e-12)


class Pair(L.Model):
    """Two parameter vectors with loss sum(a * p) + sum(b * q): constant gradients a, b."""

    def __init__(self):
        super().__init__()
        self.p = L.Parameter(np.array([1.0, 2.0]))
        self.q = L.Parameter(np.array([0.5]))

    def forward(self):
        a = V.Variable(np.array([3.0, 0.0]), requires_grad=False)   # where V.Variable puts data
        b = V.Variable(np.array([4.0]), requires_grad=False)
        return V.sum(a * self.p) + V.sum(b * self.q)


def test_clip_grad_uses_the_global_norm():
    # g_p = [3, 0], g_q = [4]: global norm 5, so with max_norm 1 every grad is scaled by 1/(5 + 1e-6)
    model = Pair()
    opt = O.SGD(1.0).setup(model)
    opt.add_hook(O.ClipGrad(1.0))
    for step in range(1, 4):
        model.cleargrads()
        model().backward()
        opt.update()
        scale = 1.0 / (5.0 + 1e-6)
        np.testing.assert_allclose(model.p.data, [1.0 - step * 3 * scale, 2.0], rtol=1e-12)
        np.testing.assert_allclose(model.q.data, [0.5 - step * 4 * scale], rtol=1e-12)
        np.testing.assert_allclose(np.sqrt(np.sum(model.p.grad.data ** 2) + np.sum(model.q.grad.data ** 2)),
                                   5.0 * scale, rtol=1e-12)


def test_clip_grad_leaves_small_gradients_alone():
    model = Pair()
    opt = O.SGD(0.1).setup(model)
    opt.add_hook(O.ClipGrad(5.5))
    model().backward()
    grad_p = model.p.grad
    opt.update()
    if backend.is_device_array(grad_p.data):         # the norm stays on the device: scaled by 1
        np.testing.assert_array_equal(model.p.grad.data, grad_p.data)
    else:
        assert model.p.grad is grad_p                # untouched, not even copied
    np.testing.assert_allclose(model.p.data, [1.0 - 0.3, 2.0])


def test_clip_grad_three_steps_on_the_quadratic(quadratic):
    lr, max_norm = 0.1, 2.0
    opt = O.SGD(lr)
    opt.add_hook(O.ClipGrad(max_norm))
    got = run_steps(opt, quadratic)
    p = P0.copy()
    for step in range(3):
        g = grad_of(p)
        norm = np.sqrt(np.sum(g * g))
        if norm > max_norm:
            g = g * (max_norm / (norm + 1e-6))
        p = p - lr * g
        np.testing.assert_allclose(got[step], p, rtol=1e-12)


def test_clip_grad_keeps_float32():
    model = Quadratic(np.float32)
    opt = O.SGD(0.1)
    opt.add_hook(O.ClipGrad(0.1))
    run_steps(opt, model, steps=1)
    assert model.p.grad.data.dtype == np.float32
    assert model.p.data.dtype == np.float32


class Net(L.Model):
    """Two Linear layers."""

    def __init__(self):
        super().__init__()
        self.l1 = L.Linear(3, 2)
        self.l2 = L.Linear(1, 3)

    def forward(self, x):
        return V.sum(self.l2(self.l1(x)) ** 2)


def test_freeze_param_keeps_a_layer_fixed(on_device):
    model = Net()
    before = {k: p.data.copy() for k, p in model.named_params()}
    opt = O.SGD(0.1).setup(model)
    opt.add_hook(O.FreezeParam(model.l1))
    model(on_device(np.ones((4, 2)))).backward()
    opt.update()
    after = dict(model.named_params())
    for key in ("l1/W", "l1/b"):
        np.testing.assert_array_equal(after[key].data, before[key])
        assert after[key].grad is None
    for key in ("l2/W", "l2/b"):
        assert not np.array_equal(after[key].data, before[key])


def test_freeze_param_accepts_single_parameters_and_runs_before_clipping():
    model = Pair()
    opt = O.SGD(1.0).setup(model)
    opt.add_hook(O.FreezeParam(model.p)).add_hook(O.ClipGrad(1.0))
    model().backward()
    opt.update()
    np.testing.assert_array_equal(model.p.data, [1.0, 2.0])
    # only q's gradient (norm 4) enters the clipping norm once p is frozen
    np.testing.assert_allclose(model.q.data, [0.5 - 4 / (4 + 1e-6)], rtol=1e-12)


def test_freeze_param_rejects_other_objects():
    with pytest.raises(TypeError, match="FreezeParam: targets must be Layers or Parameters"):
        O.FreezeParam(np.zeros(3))


@pytest.mark.parametrize("make, match", [
    (lambda: O.WeightDecay(-0.1), "WeightDecay: rate"),
    (lambda: O.ClipGrad(0.0), "ClipGrad: max_norm"),
])
def test_hooks_reject_bad_rates(make, match):
    with pytest.raises(ValueError, match=match):
        make()
