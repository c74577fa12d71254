"""Every primitive op of `variable`, re-exported, plus neural-network functions."""

from variable import *  # noqa: F401,F403  (the primitive ops, re-exported as the API promises)
from variable import OPS

from . import activation, conv, loss, nn
from . import softmax as _softmax
from .activation import (
    elu,
    gelu,
    hard_sigmoid,
    hard_swish,
    leaky_relu,
    relu,
    relu6,
    sigmoid,
    silu,
    softplus,
    swish,
)
from .conv import average_pooling, col2im, conv2d, deconv2d, im2col, pooling
from .loss import (
    binary_cross_entropy,
    cosine_similarity,
    hinge_loss,
    huber_loss,
    log_cosh_loss,
    mean_absolute_error,
    mean_squared_error,
    poisson_nll_loss,
    sigmoid_cross_entropy,
    softmax_cross_entropy,
)
from .nn import accuracy, batch_norm, dropout, embed_id, layer_norm, linear
from .softmax import log_softmax, softmax

__all__ = list(OPS) + activation.__all__ + _softmax.__all__ + loss.__all__ + nn.__all__ + conv.__all__
