"""Learning-rate schedules: each one's learning rates against its formula written out here,
the momentum OneCycleLR cycles, ReduceLROnPlateau's counters, resuming from state_dict with a
checkpoint, the slips; and, where PyTorch is installed, torch's schedulers step for step."""

import importlib.util
import math
import warnings

import numpy as np
import pytest

import layers as L
import optimizers as O
import variable as V
from variable.backend import to_cpu


def _optimizer(kind="sgd", lr=0.1):
    w = V.Variable(np.ones(3))
    return (O.MomentumSGD(lr=lr, momentum=0.9) if kind == "sgd" else O.Adam(lr=lr)).setup([w])


FORMULA_ONLY = pytest.mark.filterwarnings("ignore:.*came before the optimizer's first update")
"""For the tests of the values alone, which step a schedule with no updates between."""


def _rates(schedule, opt, steps):
    rates = []
    for _ in range(steps):
        rates.append(opt.lr)
        schedule.step()
    return rates


FORMULAS = {
    "StepLR": (lambda o: O.StepLR(o, 4, 0.5), lambda e: 0.1 * 0.5 ** (e // 4)),
    "MultiStepLR": (lambda o: O.MultiStepLR(o, [6, 2, 9], 0.2),
                    lambda e: 0.1 * 0.2 ** sum(e >= m for m in (2, 6, 9))),
    "ExponentialLR": (lambda o: O.ExponentialLR(o, 0.9), lambda e: 0.1 * 0.9 ** e),
    "ConstantLR": (lambda o: O.ConstantLR(o, 0.5, 3), lambda e: 0.05 if e < 3 else 0.1),
    "LinearLR": (lambda o: O.LinearLR(o, 0.2, 1.0, 5), lambda e: 0.1 * (0.2 + 0.8 * min(e, 5) / 5)),
    "PolynomialLR": (lambda o: O.PolynomialLR(o, 8, 2.0), lambda e: 0.1 * (1 - min(e, 8) / 8) ** 2),
    "CosineAnnealingLR": (lambda o: O.CosineAnnealingLR(o, 10, 0.01),
                          lambda e: 0.01 + 0.09 * (1 + math.cos(math.pi * e / 10)) / 2),
    "CosineAnnealingWarmRestarts": (  # periods 3, 6, 12 starting at epochs 0, 3, 9
        lambda o: O.CosineAnnealingWarmRestarts(o, 3, 2),
        lambda e: 0.05 * (1 + math.cos(math.pi * (e - (0 if e < 3 else 3 if e < 9 else 9))
                                       / (3 if e < 3 else 6 if e < 9 else 12)))),
    "LambdaLR": (lambda o: O.LambdaLR(o, lambda e: 1 / (1 + e)), lambda e: 0.1 / (1 + e)),
}


@FORMULA_ONLY
@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_each_schedule_gives_its_formula(name):
    make, formula = FORMULAS[name]
    opt = _optimizer()
    schedule = make(opt)
    np.testing.assert_allclose(_rates(schedule, opt, 20), [formula(e) for e in range(20)], rtol=1e-14)
    assert schedule.get_last_lr() == [opt.lr] and schedule.last_epoch == 20


@FORMULA_ONLY
def test_one_cycle_rises_then_anneals_and_cycles_the_momentum():
    for kind, name in (("sgd", "momentum"), ("adam", "beta1")):
        opt = _optimizer(kind)
        schedule = O.OneCycleLR(opt, max_lr=1.0, total_steps=11, pct_start=0.3)
        rates, momenta = [], []
        for step in range(11):
            rates.append(opt.lr)
            momenta.append(getattr(opt, name))
            if step < 10:
                schedule.step()
        up = 0.3 * 11 - 1                                 # the step where lr peaks: 2.3
        want = [0.04 + 0.96 * (1 - math.cos(math.pi * s / up)) / 2 if s <= up else
                0.04e-4 + (1 - 0.04e-4) * (1 + math.cos(math.pi * (s - up) / (10 - up))) / 2
                for s in range(11)]
        np.testing.assert_allclose(rates, want, rtol=1e-12)
        momentum = [0.85 + 0.1 * (1 + math.cos(math.pi * s / up)) / 2 if s <= up else
                    0.95 - 0.1 * (1 + math.cos(math.pi * (s - up) / (10 - up))) / 2 for s in range(11)]
        np.testing.assert_allclose(momenta, momentum, rtol=1e-12)          # the other way round
        schedule.step()                                   # after the last update, as PyTorch allows
        with pytest.raises(ValueError, match=r"OneCycleLR: stepped 12 times for total_steps=11"):
            schedule.step()
    with pytest.raises(ValueError, match=r"OneCycleLR: AdaGrad has no momentum \(or beta1\) to cycle; give "
                                         r"cycle_momentum=False"):
        O.OneCycleLR(O.AdaGrad().setup([V.Variable(np.ones(2))]), 1.0, 10)
    assert O.OneCycleLR(_optimizer(), 1.0, epochs=2, steps_per_epoch=5).total_steps == 10


def test_reduce_on_plateau_counts_patience_and_cooldown():
    opt = _optimizer()
    schedule = O.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1, min_lr=0.03)
    rates = []
    for loss in [1.0, 0.9, 0.95, 0.9, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97]:
        schedule.step(V.Variable(np.array(loss)))            # the loss itself is fine
        rates.append(opt.lr)
    # best 0.9 at epoch 2; three epochs (3 to 5) without a 1e-4 relative improvement halve lr; the
    # epoch of cooldown (6) counts none, and three more (7 to 9) halve it again, but not below min_lr
    assert rates == [0.1, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.03, 0.03, 0.03]
    with pytest.raises(TypeError, match=r"ReduceLROnPlateau\.step: give the epoch's metric, one number"):
        schedule.step([1.0, 2.0])


def test_resuming_from_state_dict_and_a_checkpoint_continues_the_run(tmp_path, on_device):
    def run(steps, state=None, path=None):
        L.seed(0)
        model = L.Linear(1, in_size=2)
        opt = O.MomentumSGD(lr=0.1).setup(model)
        schedule = O.CosineAnnealingLR(opt, T_max=6, eta_min=0.001)
        if state is not None:
            schedule.load_state_dict(state)                  # first: it sets the lr the checkpoint has
            L.load_checkpoint(path, model, opt)
        x = on_device(np.arange(8.0).reshape(4, 2) / 8)
        for _ in range(steps):
            loss = V.sum((model(x) - 1) ** 2)
            model.cleargrads()
            loss.backward()
            opt.update()
            schedule.step()
        return model, opt, schedule

    whole = run(6)
    model, opt, schedule = run(3)
    L.save_checkpoint(tmp_path / "run.npz", model, opt)
    resumed = run(3, schedule.state_dict(), tmp_path / "run.npz")
    assert resumed[1].lr == whole[1].lr and resumed[2].last_epoch == 6
    np.testing.assert_array_equal(to_cpu(resumed[0].W.data), to_cpu(whole[0].W.data))
    with pytest.raises(ValueError, match=r"CosineAnnealingLR\.load_state_dict: not a state of this schedule"):
        schedule.load_state_dict(O.StepLR(_optimizer(), 3).state_dict())


def test_a_schedule_stepped_before_the_first_update_warns_as_pytorchs():
    opt = _optimizer()
    schedule = O.StepLR(opt, 1, 0.5)
    with pytest.warns(UserWarning, match=r"StepLR\.step\(\) came before the optimizer's first update\(\), so "
                                         r"the learning rate it set first \(0\.1\) was never used") as caught:
        schedule.step()                                  # the epoch-start habit of PyTorch before 1.1
    assert caught[0].filename == __file__                # it points at the line that stepped
    with pytest.warns(UserWarning, match=r"OneCycleLR\.step\(\) came before"):
        O.OneCycleLR(_optimizer(), 1.0, 10).step()
    opt = _optimizer()
    schedule = O.StepLR(opt, 1, 0.5)
    w, = opt.target.params()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):                               # the right order: no warning
            V.sum(w * w).backward()
            opt.update()
            w.cleargrad()
            schedule.step()
        O.StepLR(opt, 1, 0.5).step()                     # a schedule made after updates started
    assert opt.lr == 0.1 * 0.5 ** 3 * 0.5


def test_slips_name_the_fix():
    with pytest.raises(TypeError, match=r"StepLR: the first argument is the optimizer \(O\.SGD\(lr=\.\.\.\)"
                                        r"\.setup\(model\)\), got Linear"):
        O.StepLR(L.Linear(2), step_size=3)
    with pytest.raises(ValueError, match=r"StepLR: step_size must be an int of at least 1, got 0"):
        O.StepLR(_optimizer(), 0)
    with pytest.raises(AttributeError, match=r"CyclicLR.*O\.LambdaLR"):
        O.CyclicLR  # noqa: B018
    with pytest.raises(AttributeError, match=r"CyclicLR.*O\.LambdaLR"):
        O.lr_scheduler.CyclicLR  # noqa: B018
    assert O.lr_scheduler.StepLR is O.StepLR             # torch.optim.lr_scheduler's spelling too


@FORMULA_ONLY
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_each_schedule_steps_as_torchs():
    import torch

    schedules = torch.optim.lr_scheduler
    pairs = [
        (lambda o: O.StepLR(o, 7, 0.5), lambda o: schedules.StepLR(o, 7, 0.5)),
        (lambda o: O.MultiStepLR(o, [3, 10, 25], 0.3), lambda o: schedules.MultiStepLR(o, [3, 10, 25], 0.3)),
        (lambda o: O.ExponentialLR(o, 0.93), lambda o: schedules.ExponentialLR(o, 0.93)),
        (lambda o: O.LinearLR(o, 0.1, 0.9, 13), lambda o: schedules.LinearLR(o, 0.1, 0.9, 13)),
        (lambda o: O.PolynomialLR(o, 17, 2.0), lambda o: schedules.PolynomialLR(o, 17, 2.0)),
        (lambda o: O.CosineAnnealingLR(o, 15, 0.01), lambda o: schedules.CosineAnnealingLR(o, 15, 0.01)),
        (lambda o: O.CosineAnnealingWarmRestarts(o, 5, 2, 0.001),
         lambda o: schedules.CosineAnnealingWarmRestarts(o, 5, 2, 0.001)),
        (lambda o: O.OneCycleLR(o, 1.0, 40, three_phase=True), lambda o: schedules.OneCycleLR(
            o, 1.0, 40, three_phase=True)),
    ]
    for ours_of, theirs_of in pairs:
        opt = _optimizer()
        weight = torch.nn.Parameter(torch.ones(3))
        torch_opt = torch.optim.SGD([weight], lr=0.1, momentum=0.9)
        ours, theirs = ours_of(opt), theirs_of(torch_opt)
        for _ in range(39):
            group = torch_opt.param_groups[0]
            assert opt.lr == pytest.approx(group["lr"], rel=1e-14)
            assert opt.momentum == pytest.approx(group["momentum"], rel=1e-14)
            torch_opt.step()
            ours.step()
            theirs.step()
