"""Optimizer base: setup, hooks order, skipping parameters without grad, read-only grads."""

import numpy as np
import pytest
from optim_problem import P0

import layers as L
import optimizers as O
import variable as V
from variable.backend import to_cpu  # device data compared on the host (CuPy refuses lists)

ALL = [O.SGD, O.MomentumSGD, O.AdaGrad, O.RMSprop, O.AdaDelta, O.Adam, O.AdamW]


class Two(L.Model):
    """Two parameters; the loss uses only `used`."""

    def __init__(self):
        super().__init__()
        self.used = L.Parameter(np.array([1.0, 2.0, 3.0]))
        self.unused = L.Parameter(np.array([4.0, 5.0]))

    def forward(self):
        return V.sum(self.used * self.used)


def test_setup_returns_self_and_checks_its_target():
    opt = O.SGD(0.1)
    model = Two()
    assert opt.setup(model) is opt
    assert opt.target is model
    with pytest.raises(TypeError, match=r"SGD.setup: target must be a Layer \(something with params\(\)\) or "
                                        r"a list of Variables, got list holding ndarray"):
        O.SGD().setup([np.ones(2)])
    with pytest.raises(TypeError, match=r"SGD.setup: got an iterator \(list_iterator: model.params\(\)\?\), "
                                        r"read once; pass the model itself, setup\(model\)"):
        O.SGD().setup(model.params())        # (a lazy layer's parameters would be missed)


def test_a_list_of_variables_is_a_target_as_pytorchs_optimizers_take_it():
    w, b = V.Variable(np.array([1.0, -2.0])), V.Variable(np.array(0.5))
    opt = O.Adam(lr=0.1).setup([w, b])
    for _ in range(300):
        opt.target.cleargrads()
        V.sum((w - 3.0) ** 2 + (b + 1.0) ** 2).backward()
        opt.update()
    np.testing.assert_allclose(w.data, [3.0, 3.0], atol=1e-3)
    np.testing.assert_allclose(b.data, -1.0, atol=1e-3)
    state = opt.state_dict()                 # named by position
    assert {"state/0/m", "state/1/v"} <= set(state)
    fresh = O.Adam(lr=0.1).setup([V.Variable(w.data.copy()), V.Variable(b.data.copy())])
    fresh.load_state_dict(state)
    with pytest.raises(TypeError, match=r"SGD\.setup: .* got one Variable: give it in a list, "
                                        r"setup\(\[w\]\)"):
        O.SGD().setup(w)


def test_update_before_setup_raises():
    with pytest.raises(RuntimeError, match=r"Adam.update: call setup\(model\) first"):
        O.Adam().update()


@pytest.mark.parametrize("cls", ALL)
def test_parameters_without_grad_are_skipped(cls):
    model = Two()
    opt = cls().setup(model)
    model().backward()
    assert model.unused.grad is None
    opt.update()
    np.testing.assert_array_equal(model.unused.data, [4.0, 5.0])
    assert model.unused not in opt.state
    assert not np.array_equal(to_cpu(model.used.data), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("cls", ALL)
def test_read_only_broadcast_gradients_are_never_written(cls, on_device):
    # backward hands out writable gradients, but a gradient set by hand (or by a hook)
    # may be a read-only broadcast view; the optimizers must never write into it
    model = L.Model()
    model.p = L.Parameter(np.array([1.0, -1.0, 2.0]))
    model.p.grad = V.Variable(np.broadcast_to(on_device(np.array(1.0)), (3,)), requires_grad=False)
    view = model.p.grad.data
    assert V.backend.writes_through(view)    # read-only on NumPy (a zero stride on a GPU)
    opt = cls().setup(model)
    opt.add_hook(O.WeightDecay(0.1)).add_hook(O.ClipGrad(0.5))
    opt.update()                                     # must not try to write into the view
    np.testing.assert_array_equal(view, [1.0, 1.0, 1.0])
    assert np.all(to_cpu(model.p.data) < [1.0, -1.0, 2.0])   # every entry moved against its gradient


def test_hooks_run_in_order_before_the_update():
    calls = []
    model = Two()
    opt = O.SGD(0.1).setup(model)
    opt.add_hook(lambda params: calls.append(("first", [p.data.copy() for p in params])))
    opt.add_hook(lambda params: calls.append(("second", len(params))))
    model().backward()
    opt.update()
    assert [c[0] for c in calls] == ["first", "second"]
    np.testing.assert_array_equal(calls[0][1][0], [1.0, 2.0, 3.0])   # p not yet updated
    assert calls[1][1] == 1                                          # only `used` has a grad


def test_add_hook_rejects_non_callables():
    with pytest.raises(TypeError, match="SGD.add_hook: hook must be callable"):
        O.SGD().add_hook(3)


def test_lr_can_be_changed_between_updates():
    model = L.Model()
    model.p = L.Parameter(P0.copy())
    opt = O.SGD(0.1).setup(model)
    V.sum(model.p).backward()
    opt.update()
    opt.lr = 0.5
    model.cleargrads()
    V.sum(model.p).backward()  # (a second update needs a gradient taken at the new point)
    opt.update()
    np.testing.assert_allclose(model.p.data, P0 - 0.1 - 0.5)


def test_second_setup_switches_target():
    first, second = Two(), Two()
    opt = O.SGD(0.1).setup(first).setup(second)
    first().backward()
    second().backward()
    opt.update()
    np.testing.assert_array_equal(first.used.data, [1.0, 2.0, 3.0])
    assert not np.array_equal(to_cpu(second.used.data), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("optimizer, text", [
    (O.SGD(0.1), "SGD(lr=0.1)"),
    (O.MomentumSGD(0.1, nesterov=True), "MomentumSGD(lr=0.1, momentum=0.9, nesterov=True)"),
    (O.Adam(), "Adam(lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08)"),
    (O.AdamW(weight_decay=0.1), "AdamW(lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.1)"),
    (O.RMSprop(), "RMSprop(lr=0.01, alpha=0.99, eps=1e-08)"),
])
def test_an_optimizer_shows_its_settings(optimizer, text):
    assert repr(optimizer) == text                 # (not <optimizers.adaptive.Adam object at 0x...>)


def test_an_optimizer_shows_its_hooks_and_a_changed_learning_rate():
    model = L.Linear(1, in_size=2)
    opt = O.SGD(0.1).setup(model)
    opt.add_hook(O.ClipGrad(1.0))
    opt.add_hook(O.WeightDecay(1e-4))
    opt.add_hook(O.FreezeParam(model))
    opt.lr = 0.05                                  # a schedule's step
    assert repr(opt) == ("SGD(lr=0.05, hooks=[ClipGrad(max_norm=1.0), WeightDecay(rate=0.0001), "
                         "FreezeParam(Linear)])")
