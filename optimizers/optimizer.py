"""Optimizer: the base of every update rule, with hooks that edit gradients first."""

from collections.abc import Callable

import numpy as np

from variable import Variable


def hyperparameter(value, name, where, low=0.0, high=None, low_open=False):
    """`value` as a Python float after checking low <= value (< high); a clear error otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}")
    value = float(value)
    bad = not np.isfinite(value) or value < low or (low_open and value == low)
    if high is not None and value >= high:
        bad = True
    if bad:
        interval = f"{'(' if low_open else '['}{low}, {'inf)' if high is None else f'{high})'}"
        raise ValueError(f"{where}: {name} must lie in {interval}, got {value!r}")
    return value


def replace_grad(param, array):
    """Give `param` a fresh gradient holding `array` (never writes into the old one)."""
    param.grad = Variable(array, requires_grad=False)


class Optimizer:
    """Base class: `setup(model)` once, then `update()` after every backward.

    `update()` collects the parameters that have a gradient (parameters whose grad is
    None are skipped), runs the hooks in the order they were added (a hook may set a
    grad to None to exclude its parameter), then applies `update_one` to each.  Updates
    are made in place on `param.data`, keep its dtype, and never write into
    `param.grad.data` (which may be a read-only broadcast view).  Per-parameter state
    (momentum, moment estimates, step count) lives in `self.state[param]`.
    """

    def __init__(self):
        self.target = None
        self.hooks = []
        self.state = {}

    def setup(self, target):
        """Remember the Layer (anything with `params()`) to optimize; returns self.

        Raises
        ------
        TypeError
            If `target` has no `params()` method.
        """
        if not callable(getattr(target, "params", None)):
            raise TypeError(
                f"{type(self).__name__}.setup: target must be a Layer (something with params()), "
                f"got {type(target).__name__}"
            )
        self.target = target
        return self

    def add_hook(self, hook: Callable) -> "Optimizer":
        """Run `hook(params)` on the list of parameters with gradients before each update.

        Returns self, so hooks can be chained.
        """
        if not callable(hook):
            raise TypeError(
                f"{type(self).__name__}.add_hook: hook must be callable, got {type(hook).__name__}"
            )
        self.hooks.append(hook)
        return self

    def update(self) -> None:
        """Apply one step of the update rule to every parameter that has a gradient.

        Raises
        ------
        RuntimeError
            If `setup` was not called.
        """
        if self.target is None:
            raise RuntimeError(f"{type(self).__name__}.update: call setup(model) first")
        params = [p for p in self.target.params() if p.grad is not None]
        for hook in self.hooks:
            hook(params)
            params = [p for p in params if p.grad is not None]
        for param in params:
            grad = param.grad.data
            if grad.shape != param.data.shape:
                raise ValueError(
                    f"{type(self).__name__}.update: gradient of shape {grad.shape} for a parameter "
                    f"of shape {param.data.shape}"
                )
            if grad.dtype != param.data.dtype:
                grad = grad.astype(param.data.dtype)
            self.update_one(param, grad)

    def state_of(self, param) -> dict:
        """The per-parameter state dict of `param` (created empty on first use)."""
        state = self.state.get(param)
        if state is None:
            state = self.state[param] = {}
        return state

    def update_one(self, param, grad: np.ndarray) -> None:
        """Update `param.data` in place from the gradient array `grad` (read only)."""
        raise NotImplementedError(f"{type(self).__name__}.update_one is not defined")
