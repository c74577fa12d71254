"""Gradient hooks for `Optimizer.add_hook`: WeightDecay, ClipGrad, FreezeParam.

A hook is any callable taking the list of parameters that have a gradient; it runs
before the update rule and replaces gradients with new arrays (it never writes into
the old ones, which may be read-only broadcast views).
"""

import numpy as np

from variable import Variable, backend

from .optimizer import Hyperparameter, replace_grad, settings_repr


class WeightDecay:
    """L2 regularisation through the gradient: g <- g + rate * p.

    Parameters
    ----------
    rate : float
        Decay rate (>= 0); the same as adding rate/2 * ||p||^2 to the loss.
    """

    rate = Hyperparameter()
    __repr__ = settings_repr

    def __init__(self, rate: float):
        self.rate = rate

    def __call__(self, params):
        """Add rate * p to every gradient."""
        for param in params:
            replace_grad(param, param.grad.data + self.rate * param.data)


class ClipGrad:
    """Rescale all gradients together when their global L2 norm exceeds `max_norm`.

    norm = sqrt(sum over every parameter of sum(g^2)); when norm > max_norm every
    gradient is multiplied by max_norm / (norm + 1e-6), as PyTorch's clip_grad_norm_ does.
    On a GPU the norm stays on the device (comparing it on the host would be a sync): every
    gradient is multiplied by min(max_norm / (norm + 1e-6), 1), which is the same.

    Parameters
    ----------
    max_norm : float
        Largest allowed global norm (> 0).
    """

    max_norm = Hyperparameter(low_open=True)
    __repr__ = settings_repr

    def __init__(self, max_norm: float):
        self.max_norm = max_norm

    def __call__(self, params):
        """Scale the gradients down if their joint norm is too large."""
        if params and backend.is_device_array(params[0].grad.data):
            self._clip_on_device(params)
            return
        total = 0.0
        for param in params:
            g = param.grad.data
            total += float(np.sum(np.square(g, dtype=np.float64)))
        norm = total ** 0.5
        rate = self.max_norm / (norm + 1e-6)
        if rate < 1.0:
            for param in params:
                replace_grad(param, param.grad.data * rate)

    def _clip_on_device(self, params):
        """The same scaling computed on the device, where asking whether the norm is too large
        would be a sync: every gradient is multiplied by min(rate, 1), the norm in float64."""
        xp = backend.get_array_module(params[0].grad.data)
        total = None
        for param in params:
            square = xp.sum(xp.square(param.grad.data, dtype=np.float64))
            total = square if total is None else total + square
        rate = xp.fmin(self.max_norm / (xp.sqrt(total) + 1e-6), 1.0)   # (a NaN norm: left alone)
        for param in params:
            g = param.grad.data
            replace_grad(param, g * rate.astype(g.dtype))


class FreezeParam:
    """Keep the parameters of the given layers (or the given Parameters) fixed.

    Their gradients are set to None before the update, so the optimizer skips them.

    Parameters
    ----------
    *targets : Layer or Parameter

    Raises
    ------
    TypeError
        If a target is neither a Layer nor a Parameter.
    """

    def __init__(self, *targets):
        for target in targets:
            if not isinstance(target, Variable) and not callable(getattr(target, "params", None)):
                raise TypeError(
                    f"FreezeParam: targets must be Layers or Parameters, got {type(target).__name__}"
                )
        self.targets = targets

    def __repr__(self):
        kinds = ", ".join(type(t).__name__ for t in self.targets)
        return f"FreezeParam({kinds})"

    def _frozen(self):
        frozen = set()
        for target in self.targets:
            if isinstance(target, Variable):
                frozen.add(id(target))
            else:  # a layer: its parameters now (lazy layers create theirs on the first call)
                frozen.update(id(p) for p in target.params())
        return frozen

    def __call__(self, params):
        """Drop the gradients of the frozen parameters."""
        frozen = self._frozen()
        for param in params:
            if id(param) in frozen:
                param.grad = None
