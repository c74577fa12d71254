"""Optimizers (SGD, MomentumSGD, AdaGrad, RMSprop, AdaDelta, Adam, AdamW) and their hooks.

    opt = O.Adam(lr=1e-3).setup(model)
    opt.add_hook(O.ClipGrad(1.0))
    model.cleargrads(); loss.backward(); opt.update()
"""

from .adaptive import AdaDelta, AdaGrad, Adam, AdamW, RMSprop
from .hooks import ClipGrad, FreezeParam, WeightDecay
from .optimizer import Optimizer
from .sgd import SGD, MomentumSGD

__all__ = [
    "Optimizer", "SGD", "MomentumSGD", "AdaGrad", "RMSprop", "AdaDelta", "Adam", "AdamW",
    "WeightDecay", "ClipGrad", "FreezeParam",
]
