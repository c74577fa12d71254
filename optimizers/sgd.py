"""Stochastic gradient descent, plain and with (Nesterov) momentum."""

import numpy as np

from .optimizer import Hyperparameter, Optimizer


class SGD(Optimizer):
    """Plain gradient descent: p <- p - lr * g.

    Parameters
    ----------
    lr : float
        Learning rate (>= 0); may be changed between updates (`opt.lr = ...`, checked as
        here).
    """

    renamed = {"momentum": "SGD with momentum is O.MomentumSGD(lr, momentum=0.9)",
               "nesterov": "Nesterov's momentum is O.MomentumSGD(lr, momentum=0.9, nesterov=True)"}

    lr = Hyperparameter()

    def __init__(self, lr: float = 0.01):
        super().__init__()
        self.lr = lr

    def update_one(self, param, grad):
        """p <- p - lr g."""
        param.data -= self.lr * grad


class MomentumSGD(Optimizer):
    """Gradient descent with momentum (the velocity form of Chainer and DeZero).

    v <- momentum * v - lr * g, then p <- p + v; with `nesterov=True` the step looks
    ahead: p <- p + momentum * v - lr * g (v already updated).  v starts at zero.  With a
    constant lr this is the same trajectory as PyTorch's SGD(momentum, nesterov).

    Parameters
    ----------
    lr : float
        Learning rate (>= 0).
    momentum : float
        In [0, 1).
    nesterov : bool
        Use Nesterov's accelerated gradient.
    """

    state_kinds = {"v": "array"}
    _repr_extra = ("nesterov",)

    lr = Hyperparameter()
    momentum = Hyperparameter(high=1.0)

    def __init__(self, lr: float = 0.01, momentum: float = 0.9, nesterov: bool = False):
        super().__init__()
        self.lr = lr
        self.momentum = momentum
        self.nesterov = bool(nesterov)

    def update_one(self, param, grad):
        """v <- mu v - lr g;  p <- p + v  (Nesterov: p <- p + mu v - lr g)."""
        state = self.state_of(param)
        v = state.get("v")
        if v is None:
            v = state["v"] = np.zeros_like(param.data)
        v *= self.momentum
        v -= self.lr * grad
        if self.nesterov:
            param.data += self.momentum * v - self.lr * grad
        else:
            param.data += v
