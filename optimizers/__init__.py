"""Optimizers (SGD, MomentumSGD, AdaGrad, RMSprop, AdaDelta, Adam, AdamW, Adamax, RAdam, NAdam,
LBFGS), their hooks, and learning-rate schedules (StepLR, CosineAnnealingLR, OneCycleLR, ...;
also as O.lr_scheduler.<name>).

    opt = O.Adam(lr=1e-3).setup(model)
    opt.add_hook(O.ClipGrad(1.0))
    model.cleargrads(); loss.backward(); opt.update()
"""

from variable.variable import refuse_missing_name

from . import lr_scheduler
from .adaptive import AdaDelta, AdaGrad, Adam, Adamax, AdamW, NAdam, RAdam, RMSprop
from .hooks import ClipGrad, FreezeParam, WeightDecay
from .lbfgs import LBFGS
from .lr_scheduler import (
    ConstantLR,
    CosineAnnealingLR,
    CosineAnnealingWarmRestarts,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    LRScheduler,
    MultiStepLR,
    OneCycleLR,
    PolynomialLR,
    ReduceLROnPlateau,
    StepLR,
)
from .optimizer import Optimizer
from .sgd import SGD, MomentumSGD

__all__ = [
    "Optimizer", "SGD", "MomentumSGD", "AdaGrad", "RMSprop", "AdaDelta", "Adam", "AdamW", "Adamax", "RAdam",
    "NAdam", "LBFGS", "WeightDecay", "ClipGrad", "FreezeParam", *lr_scheduler.__all__,
]

_TORCH = "torch.optim's name"
_SPELLED_OTHERWISE = {
    "Adagrad": (_TORCH, "O.AdaGrad(lr=...)"),
    "Adadelta": (_TORCH, "O.AdaDelta()"),
    "RMSProp": ("Keras's spelling", "O.RMSprop(lr=...)"),
    **lr_scheduler.SPELLED_OTHERWISE,
    "GradientClipping": ("Chainer's name", "opt.add_hook(O.ClipGrad(max_norm))"),
    **dict.fromkeys(("clip_grad_norm_", "clip_grad_norm"), (
        "torch.nn.utils' name", "opt.add_hook(O.ClipGrad(max_norm)) once, after setup: it clips the "
                                "global norm at every update")),
}
"""Names from PyTorch that `O.` spells otherwise, with the fix."""


def __getattr__(name):
    refuse_missing_name("optimizers", name, _SPELLED_OTHERWISE)
