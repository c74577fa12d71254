"""Every primitive op of `variable`, re-exported, plus neural-network functions."""

import numpy as np

from variable import *  # noqa: F401,F403  (the primitive ops, re-exported as the API promises)
from variable import _SPELLED_OTHERWISE as _SPELLED_OTHERWISE_IN_V
from variable import OPS, refuse_missing_name
from variable import pad as _pad_every_form
from variable.variable import AXIS_KEYWORDS, RENAMED_KEYWORDS, refusing_foreign_keywords_among

from . import activation, attention, conv, ctc, loss, nn, resample
from . import pooling as _pooling
from . import softmax as _softmax
from .activation import (
    celu,
    elu,
    gelu,
    glu,
    hard_sigmoid,
    hard_swish,
    hard_tanh,
    leaky_relu,
    log_sigmoid,
    mish,
    prelu,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    softplus,
    softsign,
    swish,
)
from .attention import scaled_dot_product_attention
from .conv import (
    col2im,
    conv1d,
    conv2d,
    conv3d,
    deconv1d,
    deconv2d,
    deconv3d,
    im2col,
)
from .ctc import ctc_loss
from .loss import (
    binary_cross_entropy,
    cosine_embedding_loss,
    cosine_similarity,
    gaussian_nll_loss,
    hinge_embedding_loss,
    hinge_loss,
    huber_loss,
    log_cosh_loss,
    margin_ranking_loss,
    mean_absolute_error,
    mean_squared_error,
    multi_margin_loss,
    nll_loss,
    poisson_nll_loss,
    sigmoid_cross_entropy,
    smooth_l1_loss,
    soft_margin_loss,
    softmax_cross_entropy,
    triplet_margin_loss,
)
from .nn import (
    accuracy,
    alpha_dropout,
    batch_norm,
    dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    embed_id,
    feature_alpha_dropout,
    group_norm,
    layer_norm,
    linear,
    local_response_norm,
    rms_norm,
)
from .pooling import average_pooling, max_unpool2d, pooling
from .resample import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    adaptive_max_pool3d,
    affine_grid,
    grid_sample,
    interpolate,
)
from .softmax import log_softmax, softmax


def pad(array, pad_width, mode="constant", **kwargs):
    """V.pad (NumPy's np.pad), refusing the one form that PyTorch's F.pad reads otherwise: a flat
    pair (before, after) for an input of several axes pads every axis in NumPy's reading and the
    last axis alone in PyTorch's (V.pad and np.pad take it as NumPy does)."""
    ndim = array.ndim if hasattr(array, "ndim") else np.ndim(array)
    if (isinstance(pad_width, (tuple, list)) and len(pad_width) == 2 and ndim >= 2
            and all(isinstance(w, (int, np.integer)) and not isinstance(w, bool) for w in pad_width)):
        pair = tuple(int(w) for w in pad_width)
        last = ((0, 0),) * (ndim - 1) + (pair,)
        raise ValueError(
            f"pad: pad_width {pair} for an input of {ndim} axes pads every axis as NumPy reads it, "
            f"the last axis alone as PyTorch's F.pad does; write pad_width={last} for the last axis, "
            f"or {(pair,) * ndim} (V.pad and np.pad read the pair as NumPy does) for every axis")
    return _pad_every_form(array, pad_width, mode, **kwargs)


__all__ = (list(OPS) + activation.__all__ + _softmax.__all__ + loss.__all__ + ctc.__all__ + nn.__all__
           + conv.__all__ + _pooling.__all__ + attention.__all__ + resample.__all__)

# PyTorch's keywords refused by name, with gengrad's spelling: dim= and keepdim= as in variable
# (`F.softmax(x, dim=1)`), its names of parameters (`F.conv2d(x, W, padding=1)`), and by family
# `inplace=` (`F.relu(x, inplace=True)`) and a loss's `size_average=` and `reduce=` (PyTorch's before
# its `reduction=`, which the losses take)
_FOREIGN = (*AXIS_KEYWORDS, *RENAMED_KEYWORDS)
for _names, _keys in ((activation.__all__ + _softmax.__all__, (*_FOREIGN, "inplace")),
                      (loss.__all__, (*_FOREIGN, "size_average", "reduce")),
                      (ctc.__all__, _FOREIGN),
                      (nn.__all__ + conv.__all__ + _pooling.__all__ + attention.__all__ + resample.__all__,
                       _FOREIGN)):
    globals().update(refusing_foreign_keywords_among(globals(), _names, _keys))

_TORCH = "torch.nn.functional's name"
_SPELLED_OTHERWISE = {
    **_SPELLED_OTHERWISE_IN_V,
    "cross_entropy": (_TORCH, "F.softmax_cross_entropy(logits, t), t the class indices of shape "
                              "(N,) or probabilities of the logits' shape"),
    "mse_loss": (_TORCH, "F.mean_squared_error(x, t)"),
    "l1_loss": (_TORCH, "F.mean_absolute_error(x, t)"),
    "binary_cross_entropy_with_logits": (_TORCH, "F.sigmoid_cross_entropy(logits, t)"),
    "logsigmoid": (_TORCH, "F.log_sigmoid(x)"),
    "hardtanh": (_TORCH, "F.hard_tanh(x, min_val, max_val)"),
    "hardswish": (_TORCH, "F.hard_swish(x)"),
    "hardsigmoid": (_TORCH, "F.hard_sigmoid(x)"),
    "softmin": (_TORCH, "F.softmax(-x, axis)"),
    "unfold": (_TORCH, "F.im2col(x, kernel_size, stride, pad), of shape (N, C, KH, KW, OH, OW); "
                       "reshaped to (N, C * KH * KW, OH * OW) it is unfold's layout"),
    "fold": (_TORCH, "F.col2im(col, x_shape, kernel_size, stride, pad), col of shape "
                     "(N, C, KH, KW, OH, OW) as F.im2col gives it"),
    "one_hot": (_TORCH, "np.eye(n_classes)[t], a constant array"),
    "embedding": (_TORCH, "F.embed_id(ids, W)"),
    "max_pool2d": (_TORCH, "F.pooling(x, kernel_size, stride, pad); give the stride: PyTorch's "
                           "defaults to the kernel size, gengrad's (as DeZero's) to 1, so "
                           "max_pool2d(x, 2) is F.pooling(x, 2, 2)"),
    "avg_pool2d": (_TORCH, "F.average_pooling(x, kernel_size, stride, pad); give the stride: "
                           "PyTorch's defaults to the kernel size, gengrad's (as DeZero's) to 1, so "
                           "avg_pool2d(x, 2) is F.average_pooling(x, 2, 2)"),
    "max_pooling": ("max pooling's name elsewhere", "F.pooling(x, kernel_size, stride, pad) "
                                                   "(stride 1 unless given, as in DeZero)"),
    "max_pooling_2d": ("Chainer's name", "F.pooling(x, kernel_size, stride, pad); give the stride: "
                                         "Chainer's defaults to the kernel size, gengrad's to 1"),
    "average_pooling_2d": ("Chainer's name", "F.average_pooling(x, kernel_size, stride, pad); give the "
                                             "stride: Chainer's defaults to the kernel size, gengrad's to 1"),
    "normalize": (_TORCH, "x / V.linalg.norm(x, axis=axis, keepdims=True)"),
    **{f"conv_transpose{d}d": (_TORCH, f"F.deconv{d}d(x, W, b, stride, pad), W of shape (in_channels, "
                                       f"out_channels, {kernel}) as PyTorch's")
       for d, kernel in ((1, "k"), (2, "kh, kw"), (3, "kd, kh, kw"))},
    **{f"{kind}_pool{dims}d": (_TORCH, f"F.{op}(x, k, s) of x of shape {layout}; give the stride: PyTorch's "
                                       f"defaults to the kernel size, gengrad's to 1")
       for kind, op in (("max", "pooling"), ("avg", "average_pooling"))
       for dims, layout in ((1, "(N, C, L)"), (3, "(N, C, D, H, W)"))},
    **{f"max_pool{dims}d_with_indices": (
        _TORCH, "y, indices = F.pooling(x, k, s, return_indices=True); give the stride: PyTorch's "
                "defaults to the kernel size, gengrad's to 1") for dims in (1, 2, 3)},
    "max_unpool1d": (_TORCH, "F.max_unpool2d(y[:, :, None], indices[:, :, None], (1, k), (1, s), "
                             "outsize=(1, L))[:, :, 0] for y of shape (N, C, L'): the sequences as images "
                             "one row high"),
    **dict.fromkeys(("upsample", "upsample_nearest", "upsample_bilinear"), (
        _TORCH, "F.interpolate(x, size, scale_factor, mode) (mode 'nearest', or 'bilinear': "
                "upsample_bilinear's is F.interpolate(x, size, scale_factor, 'bilinear', "
                "align_corners=True))")),
    "pixel_shuffle": (_TORCH, "for x of shape (N, C r r, H, W): x.reshape(N, C, r, r, H, W)"
                              ".transpose(0, 1, 4, 2, 5, 3).reshape(N, C, H * r, W * r)"),
    "instance_norm": (_TORCH, "F.group_norm(x, C), one group a channel, for x of C channels "
                              "(F.group_norm(x, C, gamma, beta) with PyTorch's weight and bias)"),
    "pairwise_distance": (_TORCH, "V.linalg.norm(x1 - x2, axis=-1)"),
    "pdist": (_TORCH, "the distances of all pairs i < j: i, j = np.triu_indices(len(x), 1); "
                      "V.linalg.norm(x[i] - x[j], axis=-1)"),
    "embedding_bag": (_TORCH, "V.mean(F.embed_id(ids, W), axis=1) for ids of shape (bags, n) (mode='sum': "
                              "V.sum)"),
    "bilinear": (_TORCH, "V.einsum('ni,oij,nj->no', x1, W, x2) + b"),
    "multilabel_soft_margin_loss": (_TORCH, "F.sigmoid_cross_entropy(x, y), y of 0s and 1s: the same mean "
                                            "over the classes and the batch"),
    "channel_shuffle": (_TORCH, "x.reshape(N, g, C // g, H, W).transpose(0, 2, 1, 3, 4).reshape(N, C, H, W) "
                                "for x of shape (N, C, H, W) and g groups"),
    "lp_pool2d": (_TORCH, "(F.average_pooling(x ** p, k, k) * (k * k)) ** (1 / p), stride k as PyTorch's "
                          "default"),
    **{f"{name}_": (_TORCH, f"F.{name}(x): gengrad's ops never change their input in place")
       for name in ("relu", "celu", "elu", "leaky_relu", "selu")},
    "hardtanh_": (_TORCH, "F.hard_tanh(x): gengrad's ops never change their input in place"),
    "threshold_": (_TORCH, "V.where(x > threshold, x, value): gengrad's ops never change their input "
                           "in place"),
    "rrelu_": (_TORCH, "F.leaky_relu(x, (lower + upper) / 2): gengrad's ops never change their input in "
                       "place"),
    "lp_pool1d": (_TORCH, "(F.average_pooling(x ** p, k, k) * k) ** (1 / p) for x of shape (N, C, L)"),
    "pixel_unshuffle": (_TORCH, "for x of shape (N, C, H, W): x.reshape(N, C, H // r, r, W // r, r)"
                                ".transpose(0, 1, 3, 5, 2, 4).reshape(N, C * r * r, H // r, W // r)"),
    "rrelu": (_TORCH, "F.leaky_relu(x, (lower + upper) / 2), its slope in evaluation (in training PyTorch "
                      "draws one per entry: x * V.where(x >= 0, 1, np.random.uniform(lower, upper, "
                      "x.shape)))"),
    "feature_dropout": (_TORCH, "F.dropout1d, F.dropout2d or F.dropout3d(x, p) by x's spatial axes"),
    "gumbel_softmax": (_TORCH, "F.softmax((logits - V.log(-V.log(u))) / tau, axis=-1) with u = "
                               "np.random.uniform(size=logits.shape)"),
    "tanhshrink": (_TORCH, "x - V.tanh(x)"),
    "softshrink": (_TORCH, "V.sign(x) * V.maximum(V.abs(x) - lambd, 0)"),
    "hardshrink": (_TORCH, "V.where(V.abs(x) > lambd, x, 0)"),
    "threshold": (_TORCH, "V.where(x > threshold, x, value)"),
    **{name: ("DeZero's name of a first version written out step by step", fix) for name, fix in {
        "linear_simple": "F.linear(x, W, b)",
        "sigmoid_simple": "F.sigmoid(x)",
        "softmax_simple": "F.softmax(x, axis)",
        "softmax1d": "F.softmax(x, axis)",
        "mean_squared_error_simple": "F.mean_squared_error(x0, x1)",
        "softmax_cross_entropy_simple": "F.softmax_cross_entropy(x, t)",
        "conv2d_simple": "F.conv2d(x, W, b, stride, pad)",
        "pooling_simple": "F.pooling(x, kernel_size, stride, pad)",
    }.items()},
    "multilabel_margin_loss": (
        _TORCH, "with m the (N, C) 0/1 mask of each row's target classes (y's entries before its first -1): "
                "V.mean(V.sum(m[:, :, None] * (1 - m)[:, None, :] * V.maximum(0, 1 - x[:, :, None] + "
                "x[:, None, :]), axis=(1, 2)) / C)"),
    "triplet_margin_with_distance_loss": (
        _TORCH, "V.mean(V.maximum(d(a, p) - d(a, n) + margin, 0)) with your distance d written in gengrad "
                "ops (the default: V.linalg.norm(a - p, axis=-1))"),
    "multi_head_attention_forward": (
        _TORCH, "the layer L.MultiheadAttention(embed_dim, num_heads), or F.scaled_dot_product_attention(q, "
                "k, v) on heads you split"),
    "conv_tbc": (_TORCH, "F.conv1d(x.transpose(1, 2, 0), W.transpose(2, 1, 0), b, pad=pad).transpose(2, 0, "
                         "1) for x (time, batch, channels) and W (k, in, out)"),
    **dict.fromkeys(("fractional_max_pool2d", "fractional_max_pool3d"), (
        _TORCH, "no pooling over random windows; F.pooling(x, k, s) for fixed windows, or "
                "F.adaptive_max_pool2d(x, output_size) (F.adaptive_max_pool3d) for an output size")),
    "batch_nrom": ("DeZero's spelling", "F.batch_norm(x, gamma, beta, running_mean, running_var)"),
}
"""Names from PyTorch and DeZero that `F.` spells otherwise, with the fix (`V.`'s included)."""


def __getattr__(name):
    refuse_missing_name("function", name, _SPELLED_OTHERWISE)
