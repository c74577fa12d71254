"""Learning-rate schedules (torch.optim.lr_scheduler's): each sets `opt.lr` from the epoch.

    opt = O.SGD(lr=0.1).setup(model)
    schedule = O.StepLR(opt, step_size=30, gamma=0.1)     # or O.lr_scheduler.StepLR
    for epoch in range(100):
        train_one_epoch(model, opt)
        schedule.step()                                    # after the epoch's updates

A schedule reads the optimizer's lr when it is made (its base_lr) and sets `opt.lr` at once to
the value for epoch 0; each `step()` moves one epoch on (OneCycleLR: one update on).  The
values are PyTorch's closed forms of the same schedules, so a run takes the learning rates
torch's schedulers give.  `state_dict()` and `load_state_dict()` keep the epoch, to resume a
run: load the schedule's state first, then the checkpoint (whose lr is the scheduled one).
A schedule's first `step()` before its optimizer's first `update()` warns, as PyTorch's does:
the learning rate it set for epoch 0 would never be used.
"""

import bisect
import math
import sys
import warnings
from collections.abc import Callable

from variable.variable import refuse_missing_name

from .optimizer import Optimizer, hyperparameter


def _check_optimizer(optimizer, where):
    """Refuse what is not an optimizer with an lr (a model passed first, as PyTorch's order reads)."""
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{where}: the first argument is the optimizer (O.SGD(lr=...).setup(model)), "
                        f"got {type(optimizer).__name__}")
    if "lr" not in optimizer.__dict__:
        raise TypeError(f"{where}: {type(optimizer).__name__} has no lr to schedule")


def _warn_stepped_before_update(schedule):
    """Warn (as PyTorch does) that `schedule` steps before its optimizer's first update: the
    learning rate it set for epoch 0 is never used.  The warning points at the caller's line."""
    name = type(schedule).__name__
    level, frame = 1, sys._getframe(0)
    while frame is not None and frame.f_code.co_filename == __file__:
        level, frame = level + 1, frame.f_back
    warnings.warn(
        f"{name}.step() came before the optimizer's first update(), so the learning rate it set "
        f"first ({schedule.optimizer.lr!r}) was never used; step the schedule after the updates it "
        f"schedules: opt.update() then {name}.step() (PyTorch's optimizer.step() then "
        f"scheduler.step())", UserWarning, stacklevel=level)


class LRScheduler:
    """The base of every schedule: `lr_at(epoch)` gives the learning rate of an epoch."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1):
        name = type(self).__name__
        _check_optimizer(optimizer, name)
        if isinstance(last_epoch, bool) or not isinstance(last_epoch, int) or last_epoch < -1:
            raise ValueError(f"{name}: last_epoch must be an int of at least -1, got {last_epoch!r}")
        self.optimizer = optimizer
        self.base_lr = optimizer.lr
        self.last_epoch = last_epoch
        self.step()

    def lr_at(self, epoch):
        raise NotImplementedError(f"{type(self).__name__}.lr_at is not defined")

    def step(self) -> None:
        """Move one epoch on and set the optimizer's lr to its value."""
        if self.last_epoch == 0 and not self.optimizer._updates:   # the first step() of a new schedule
            _warn_stepped_before_update(self)
        self.last_epoch += 1
        self.optimizer.lr = self.lr_at(self.last_epoch)

    def get_last_lr(self) -> list[float]:
        """[the learning rate set last] (a list, as PyTorch's: one entry per parameter group)."""
        return [self.optimizer.lr]

    def state_dict(self) -> dict:
        """The schedule's state (every setting and counter but the optimizer and functions), and
        the values it set last on the optimizer ('optimizer lr', ...)."""
        state = {key: value for key, value in self.__dict__.items()
                 if key != "optimizer" and not callable(value)}
        for name in ("lr", getattr(self, "momentum_name", None)):
            if name is not None:
                state[f"optimizer {name}"] = self.optimizer.__dict__[name]
        return state

    def load_state_dict(self, state: dict) -> None:
        """Take the state `state_dict()` gave, and set the optimizer's lr (momentum) as it was;
        refused whole if it is not one of this schedule's."""
        entries = sorted(self.state_dict())
        if not isinstance(state, dict) or set(state) != set(entries):
            raise ValueError(f"{type(self).__name__}.load_state_dict: not a state of this schedule (its "
                             f"entries are {entries}); give what its state_dict() returned")
        for key, value in state.items():
            if key.startswith("optimizer "):
                setattr(self.optimizer, key[len("optimizer "):], value)
            else:
                self.__dict__[key] = value

    def __repr__(self):
        return f"<{type(self).__name__} epoch {self.last_epoch}, lr {self.optimizer.lr!r}>"


def _count(value, name, where, low=1):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{where}: {name} must be an int of at least {low}, got {value!r}")
    return value


class LambdaLR(LRScheduler):
    """lr = base_lr * lr_lambda(epoch)."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float], last_epoch: int = -1):
        if not callable(lr_lambda):
            raise TypeError(f"LambdaLR: lr_lambda must be a function of the epoch, got "
                            f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(optimizer, last_epoch)

    def lr_at(self, epoch):
        return self.base_lr * self.lr_lambda(epoch)


class StepLR(LRScheduler):
    """lr = base_lr * gamma ** (epoch // step_size)."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1):
        self.step_size = _count(step_size, "step_size", "StepLR")
        self.gamma = hyperparameter(gamma, "gamma", "StepLR")
        super().__init__(optimizer, last_epoch)

    def lr_at(self, epoch):
        return self.base_lr * self.gamma ** (epoch // self.step_size)


class MultiStepLR(LRScheduler):
    """lr = base_lr * gamma ** (the number of milestones passed)."""

    def __init__(self, optimizer: Optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1):
        try:
            self.milestones = sorted(_count(m, "each milestone", "MultiStepLR", 0) for m in milestones)
        except TypeError:
            raise TypeError(f"MultiStepLR: milestones must be a list of epochs, got "
                            f"{type(milestones).__name__}") from None
        self.gamma = hyperparameter(gamma, "gamma", "MultiStepLR")
        super().__init__(optimizer, last_epoch)

    def lr_at(self, epoch):
        return self.base_lr * self.gamma ** bisect.bisect_right(self.milestones, epoch)


class ExponentialLR(LRScheduler):
    """lr = base_lr * gamma ** epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = hyperparameter(gamma, "gamma", "ExponentialLR")
        super().__init__(optimizer, last_epoch)

    def lr_at(self, epoch):
        return self.base_lr * self.gamma ** epoch


class ConstantLR(LRScheduler):
    """lr = base_lr * factor for the first total_iters epochs, base_lr after."""

    def __init__(self, optimizer: Optimizer, factor: float = 1 / 3, total_iters: int = 5,
                 last_epoch: int = -1):
        self.factor = hyperparameter(factor, "factor", "ConstantLR", high=1.0 + 1e-12)
        self.total_iters = _count(total_iters, "total_iters", "ConstantLR", 0)
        super().__init__(optimizer, last_epoch)

    def lr_at(self, epoch):
        return self.base_lr * (self.factor if epoch < self.total_iters else 1.0)


class LinearLR(LRScheduler):
    """lr = base_lr * (start_factor, moving linearly to end_factor over total_iters epochs)."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1):
        self.start_factor = hyperparameter(start_factor, "start_factor", "LinearLR", low_open=True)
        self.end_factor = hyperparameter(end_factor, "end_factor", "LinearLR")
        if self.start_factor > 1 or self.end_factor > 1:
            raise ValueError("LinearLR: start_factor and end_factor must lie in (0, 1] and [0, 1]")
        self.total_iters = _count(total_iters, "total_iters", "LinearLR")
        super().__init__(optimizer, last_epoch)

    def lr_at(self, epoch):
        done = min(self.total_iters, epoch) / self.total_iters
        return self.base_lr * (self.start_factor + (self.end_factor - self.start_factor) * done)


class PolynomialLR(LRScheduler):
    """lr = base_lr * (1 - min(epoch, total_iters) / total_iters) ** power."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1):
        self.total_iters = _count(total_iters, "total_iters", "PolynomialLR")
        self.power = hyperparameter(power, "power", "PolynomialLR")
        super().__init__(optimizer, last_epoch)

    def lr_at(self, epoch):
        return self.base_lr * (1 - min(self.total_iters, epoch) / self.total_iters) ** self.power


class CosineAnnealingLR(LRScheduler):
    """lr = eta_min + (base_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2 (half a cosine down to
    eta_min at T_max; on past it, back up)."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):  # noqa: N803
        self.T_max = _count(T_max, "T_max", "CosineAnnealingLR")
        self.eta_min = hyperparameter(eta_min, "eta_min", "CosineAnnealingLR")
        super().__init__(optimizer, last_epoch)

    def lr_at(self, epoch):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * epoch / self.T_max)) / 2


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs, T_0 first, each period T_mult times the last
    (SGDR); `step(epoch)` takes a fractional epoch too (epoch + i / iterations within one)."""

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1):
        self.T_0 = _count(T_0, "T_0", "CosineAnnealingWarmRestarts")
        self.T_mult = _count(T_mult, "T_mult", "CosineAnnealingWarmRestarts")
        self.eta_min = hyperparameter(eta_min, "eta_min", "CosineAnnealingWarmRestarts")
        super().__init__(optimizer, last_epoch)

    def lr_at(self, epoch):
        if self.T_mult == 1:
            t_cur, t_i = epoch % self.T_0, self.T_0
        else:
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            t_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            t_i = self.T_0 * self.T_mult ** n
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * t_cur / t_i)) / 2

    def step(self, epoch: float | None = None) -> None:
        """One epoch on, or to `epoch` (fractional within an epoch, as PyTorch's)."""
        if epoch is None:
            super().step()
            return
        epoch = hyperparameter(epoch, "epoch", "CosineAnnealingWarmRestarts.step")
        self.last_epoch = math.floor(epoch)
        self.optimizer.lr = self.lr_at(epoch)


class OneCycleLR(LRScheduler):
    """The 1cycle policy, stepped after every update (not every epoch): lr rises from
    max_lr / div_factor to max_lr over pct_start of total_steps, then anneals to
    max_lr / (div_factor final_div_factor) (three_phase: back to the start first); with
    cycle_momentum the optimizer's momentum (beta1 for Adam's kind) moves the other way,
    between max_momentum and base_momentum."""

    def __init__(self, optimizer: Optimizer, max_lr: float, total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True, base_momentum: float = 0.85,
                 max_momentum: float = 0.95, div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1):
        where = "OneCycleLR"
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError(f"{where}: give total_steps, or epochs and steps_per_epoch")
            total_steps = _count(epochs, "epochs", where) * _count(steps_per_epoch, "steps_per_epoch", where)
        self.total_steps = _count(total_steps, "total_steps", where)
        self.max_lr = hyperparameter(max_lr, "max_lr", where, low_open=True)
        pct_start = hyperparameter(pct_start, "pct_start", where, high=1.0)
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"{where}: anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}")
        self.anneal_strategy = anneal_strategy
        initial = self.max_lr / hyperparameter(div_factor, "div_factor", where, low_open=True)
        low = initial / hyperparameter(final_div_factor, "final_div_factor", where, low_open=True)
        up = float(pct_start * self.total_steps) - 1
        # (end step, lr from, lr to, momentum from, momentum to) of each phase
        base_m = hyperparameter(base_momentum, "base_momentum", where)
        max_m = hyperparameter(max_momentum, "max_momentum", where)
        if three_phase:
            self.phases = [(up, initial, self.max_lr, max_m, base_m),
                           (float(2 * pct_start * self.total_steps) - 2, self.max_lr, initial, base_m, max_m),
                           (self.total_steps - 1.0, initial, low, max_m, max_m)]
        else:
            self.phases = [(up, initial, self.max_lr, max_m, base_m),
                           (self.total_steps - 1.0, self.max_lr, low, base_m, max_m)]
        self.momentum_name = None
        if cycle_momentum:
            found = [n for n in ("beta1", "momentum") if n in optimizer.__dict__]
            if not found:
                raise ValueError(f"{where}: {type(optimizer).__name__} has no momentum (or beta1) to cycle; "
                                 f"give cycle_momentum=False")
            self.momentum_name = found[0]
        super().__init__(optimizer, last_epoch)

    def _phase_values(self, step):
        start = 0.0
        for i, (end, lr0, lr1, m0, m1) in enumerate(self.phases):
            if step <= end or i == len(self.phases) - 1:
                pct = (step - start) / (end - start)
                return self._anneal(lr0, lr1, pct), self._anneal(m0, m1, pct)
            start = end
        raise AssertionError("unreachable")

    def _anneal(self, start, end, pct):
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def lr_at(self, epoch):
        return self._phase_values(epoch)[0]

    def step(self) -> None:
        """One update on: the lr (and momentum) for it."""
        if self.last_epoch + 1 > self.total_steps:      # (once past the end is allowed, as PyTorch's)
            raise ValueError(f"OneCycleLR: stepped {self.last_epoch + 1} times for total_steps="
                             f"{self.total_steps}; give total_steps for every update (epochs * "
                             f"steps_per_epoch), and step once per update")
        super().step()
        if self.momentum_name is not None:
            setattr(self.optimizer, self.momentum_name, self._phase_values(self.last_epoch)[1])


class ReduceLROnPlateau:
    """lr times factor when a metric has stopped improving for `patience` epochs:
    `schedule.step(validation_loss)` once per epoch (PyTorch's ReduceLROnPlateau)."""

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0, min_lr: float = 0.0,
                 eps: float = 1e-8):
        where = "ReduceLROnPlateau"
        _check_optimizer(optimizer, where)
        if mode not in ("min", "max"):
            raise ValueError(f"{where}: mode must be 'min' or 'max', got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"{where}: threshold_mode must be 'rel' or 'abs', got {threshold_mode!r}")
        self.factor = hyperparameter(factor, "factor", where, high=1.0)
        self.optimizer, self.mode, self.threshold_mode = optimizer, mode, threshold_mode
        self.patience = _count(patience, "patience", where, 0)
        self.cooldown = _count(cooldown, "cooldown", where, 0)
        self.threshold = hyperparameter(threshold, "threshold", where)
        self.min_lr = hyperparameter(min_lr, "min_lr", where)
        self.eps = hyperparameter(eps, "eps", where)
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = self.cooldown_counter = 0
        self.last_epoch = 0

    def _better(self, value):
        rel = self.threshold_mode == "rel"
        if self.mode == "min":
            return value < (self.best * (1 - self.threshold) if rel else self.best - self.threshold)
        return value > (self.best * (1 + self.threshold) if rel else self.best + self.threshold)

    def step(self, metrics) -> None:
        """Take this epoch's metric (a number, or a one-entry Variable such as the loss)."""
        try:
            value = float(metrics)
        except (TypeError, ValueError):
            raise TypeError(f"ReduceLROnPlateau.step: give the epoch's metric, one number (the validation "
                            f"loss), got {type(metrics).__name__}") from None
        self.last_epoch += 1
        if self._better(value):
            self.best, self.num_bad_epochs = value, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            old = self.optimizer.lr
            new = max(old * self.factor, self.min_lr)
            if old - new > self.eps:
                self.optimizer.lr = new
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0

    get_last_lr = LRScheduler.get_last_lr
    state_dict = LRScheduler.state_dict
    load_state_dict = LRScheduler.load_state_dict

    def __repr__(self):
        return f"<ReduceLROnPlateau epoch {self.last_epoch}, lr {self.optimizer.lr!r}, best {self.best!r}>"


__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR", "ConstantLR", "LinearLR",
           "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "ReduceLROnPlateau"]


SPELLED_OTHERWISE = dict.fromkeys(("CyclicLR", "SequentialLR", "ChainedScheduler", "MultiplicativeLR"), (
    "torch.optim.lr_scheduler's name", "set opt.lr between updates from the epoch (opt.lr = ...), or use "
                                       "O.LambdaLR(opt, lambda epoch: factor)"))
"""torch.optim.lr_scheduler's schedules that gengrad has not: {name: (whose, the fix)} (O.<name> too)."""


def __getattr__(name):
    refuse_missing_name("optimizers.lr_scheduler", name, SPELLED_OTHERWISE)
