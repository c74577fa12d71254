"""Layers and models: Layer, Parameter, Model, Sequential, MLP, Linear, RNN, LSTM, GRU, ...

    class MyNet(L.Model):
        def __init__(self):
            super().__init__()
            self.l1 = L.Linear(100)        # in_size inferred on the first call
            self.l2 = L.Linear(10)

        def forward(self, x):
            return self.l2(F.relu(self.l1(x)))

Initial weights come from a generator: pass `rng=np.random.default_rng(seed)` to a
layer, or call `L.seed(seed)` once to make every later initialisation, data loader
order and dropout mask reproducible.  `L.use_numpy_global_random()` draws them from
NumPy's global random state instead, as DeZero does (`np.random.seed(n)` then decides).
"""

from variable.variable import refuse_missing_name

from . import datasets
from .activation import (
    CELU,
    ELU,
    GELU,
    SELU,
    HardSigmoid,
    HardSwish,
    HardTanh,
    LeakyReLU,
    LogSigmoid,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    Sigmoid,
    Softmax,
    SoftPlus,
    SoftSign,
    Swish,
    Tanh,
)
from .attention import MultiheadAttention, TransformerDecoderLayer, TransformerEncoderLayer
from .conv import Conv1d, Conv2d, Conv3d, Deconv1d, Deconv2d, Deconv3d
from .dataloader import DataLoader, SeqDataLoader
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .embedding import EmbedID
from .initializers import seed, use_numpy_global_random
from .layer import Layer
from .linear import Linear
from .model import MLP, Model, Sequential
from .normalization import BatchNorm, GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .parameter import Parameter
from .recurrent import GRU, LSTM, RNN
from .serialization import load_checkpoint, load_weights, save_checkpoint, save_weights
from .shape import Flatten

__all__ = [
    "Layer", "Parameter", "Model", "Sequential", "MLP", "Linear", "EmbedID", "RNN", "LSTM", "GRU",
    "LayerNorm", "RMSNorm", "GroupNorm", "LocalResponseNorm", "BatchNorm", "Dropout", "AlphaDropout",
    "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout", "Conv1d", "Conv2d", "Conv3d",
    "Deconv1d", "Deconv2d", "Deconv3d", "Flatten",
    "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
    "ReLU", "ReLU6", "LeakyReLU", "PReLU", "ELU", "SELU", "CELU", "GELU", "Swish", "Mish", "Sigmoid", "Tanh",
    "HardSigmoid", "HardSwish", "HardTanh", "SoftPlus", "SoftSign", "LogSigmoid", "Softmax",
    "seed", "use_numpy_global_random", "save_weights", "load_weights", "save_checkpoint", "load_checkpoint",
    "DataLoader", "SeqDataLoader", "datasets",
]

_TORCH = "torch.nn's name"
_SPELLED_OTHERWISE = {
    "Module": (_TORCH, "subclass L.Model (or L.Layer), with forward(self, x) as in PyTorch"),
    "ModuleList": (_TORCH, "one attribute per layer, setattr(self, f'l{i}', layer), or "
                           "L.Sequential(*layers)"),
    "Embedding": (_TORCH, "L.EmbedID(in_size, out_size)"),
    "BatchNorm1d": (_TORCH, "L.BatchNorm() (its size is read off the first batch)"),
    "BatchNorm2d": (_TORCH, "L.BatchNorm() (its size is read off the first batch)"),
    "Identity": (_TORCH, "a step lambda x: x in L.Sequential"),
    "spectral_norm": ("torch.nn.utils' name", "divide the weight by its largest singular value in the "
                                              "layer's forward: W / V.linalg.norm(W, 2) (exact and "
                                              "differentiable; PyTorch estimates it by power iteration)"),
    "weight_norm": ("torch.nn.utils' name", "write the weight as g * v / V.linalg.norm(v, axis=0, "
                                            "keepdims=True) in the layer's forward, g and v its Parameters"),
    "MaxPool2d": (_TORCH, "a step lambda x: F.pooling(x, kernel_size, stride) in L.Sequential "
                          "(pooling is a function: import function as F); give the stride: "
                          "PyTorch's defaults to the kernel size, gengrad's to 1, so MaxPool2d(2) "
                          "is lambda x: F.pooling(x, 2, 2)"),
    "AvgPool2d": (_TORCH, "a step lambda x: F.average_pooling(x, kernel_size, stride) in "
                          "L.Sequential (pooling is a function: import function as F); give the "
                          "stride: PyTorch's defaults to the kernel size, gengrad's to 1, so "
                          "AvgPool2d(2) is lambda x: F.average_pooling(x, 2, 2)"),
    "CrossEntropyLoss": (_TORCH, "F.softmax_cross_entropy(y, t): losses are functions (import "
                                 "function as F)"),
    "MSELoss": (_TORCH, "F.mean_squared_error(y, t): losses are functions (import function as F)"),
    **{name: (_TORCH, f"{fix}: losses are functions (import function as F)") for name, fix in {
        "L1Loss": "F.mean_absolute_error(y, t)",
        "SmoothL1Loss": "F.huber_loss(y, t, delta) (PyTorch's SmoothL1Loss(beta) is huber_loss / beta)",
        "HuberLoss": "F.huber_loss(y, t, delta)",
        "BCELoss": "F.binary_cross_entropy(p, t), p probabilities",
        "BCEWithLogitsLoss": "F.sigmoid_cross_entropy(logits, t)",
        "NLLLoss": "F.softmax_cross_entropy(logits, t) on the logits (NLLLoss after LogSoftmax is this)",
        "KLDivLoss": "V.sum(V.rel_entr(p, q)) / len(p) for probabilities p and q (docs/from_pytorch.md)",
    }.items()},
    "Softplus": (_TORCH, "L.SoftPlus()"),
    "Hardswish": (_TORCH, "L.HardSwish()"),
    "Hardsigmoid": (_TORCH, "L.HardSigmoid()"),
    "Hardtanh": (_TORCH, "L.HardTanh(min_val, max_val)"),
    "Softsign": (_TORCH, "L.SoftSign()"),
    "SiLU": (_TORCH, "L.Swish() (x * sigmoid(x), PyTorch's SiLU)"),
    **{f"{cell}Cell": (_TORCH, f"L.{cell}(hidden_size): gengrad's recurrent layers are cells already, "
                               f"one time step per call, keeping the state (reset_state() starts a "
                               f"new sequence)") for cell in ("RNN", "LSTM", "GRU")},
    "MaxUnpool2d": (_TORCH, "a step lambda y: F.max_unpool2d(y, indices, k) in a Model's forward, with "
                            "y, indices = F.pooling(x, k, k, return_indices=True) kept from the pooling"),
    **{f"ConvTranspose{d}d": (_TORCH, f"L.Deconv{d}d(out_channels, kernel_size, stride, pad)")
       for d in (1, 2, 3)},
    **dict.fromkeys(("ParameterList", "ParameterDict", "ModuleDict"), (
        _TORCH, "one attribute per parameter or layer, setattr(self, name, value): a Layer finds "
                "every Parameter and Layer among its attributes")),
    "init": ("torch.nn's module", "initial weights come from L.seed(n)'s generator, N(0, 1) / "
                                  "sqrt(in_size); to set others, write into the data: "
                                  "layer.W.data[...] = array (after the first call for a lazily sized "
                                  "layer)"),
    **{f"AdaptiveAvgPool{d}d": (_TORCH, f"a step lambda x: F.adaptive_avg_pool{d}d(x, output_size) in "
                                           f"L.Sequential (pooling is a function: import function as F)")
       for d in (1, 2, 3)},
    **{f"AdaptiveMaxPool{d}d": (_TORCH, f"a step lambda x: F.adaptive_max_pool{d}d(x, output_size) in "
                                           f"L.Sequential (pooling is a function: import function as F)")
       for d in (1, 2, 3)},
    **dict.fromkeys(("Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"), (
        _TORCH, "a step lambda x: F.interpolate(x, scale_factor=s, mode='nearest') in L.Sequential "
                "(or mode='bilinear'; nn.UpsamplingBilinear2d is mode='bilinear', align_corners=True)")),
    "LogSoftmax": (_TORCH, "a step lambda x: F.log_softmax(x, axis) in L.Sequential"),
    "Softmin": (_TORCH, "a step lambda x: F.softmax(-x, axis) in L.Sequential"),
    "Unflatten": (_TORCH, "a step lambda x: x.reshape(len(x), C, H, W) in L.Sequential"),
    "ZeroPad2d": (_TORCH, "a step lambda x: F.pad(x, ((0, 0), (0, 0), (p, p), (p, p))) in L.Sequential"),
    "ConstantPad2d": (_TORCH, "a step lambda x: F.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), "
                              "constant_values=c) in L.Sequential"),
    "ReflectionPad2d": (_TORCH, "a step lambda x: F.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), mode='reflect') "
                                "in L.Sequential"),
    "ReplicationPad2d": (_TORCH, "a step lambda x: F.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), mode='edge') "
                                 "in L.Sequential"),
    **{f"{kind}Pool{dims}d": (_TORCH, f"a step lambda x: F.{op}(x, k, k) in L.Sequential, x of shape "
                                      f"{layout} (give the stride: PyTorch's defaults to the kernel size, "
                                      f"gengrad's to 1)")
       for kind, op in (("Max", "pooling"), ("Avg", "average_pooling"))
       for dims, layout in ((1, "(N, C, L)"), (3, "(N, C, D, H, W)"))},
    "PixelShuffle": (_TORCH, "a step lambda x: x.reshape(N, C, r, r, H, W).transpose(0, 1, 4, 2, 5, 3)"
                             ".reshape(N, C, H * r, W * r) in L.Sequential"),
    "GLU": (_TORCH, "a step lambda x: F.glu(x, axis) in L.Sequential"),
    "Softmax2d": (_TORCH, "a step lambda x: F.softmax(x, axis=1) in L.Sequential"),
    "Hardshrink": (_TORCH, "a step lambda x: V.where(V.abs(x) > lambd, x, 0) in L.Sequential"),
    "Tanhshrink": (_TORCH, "a step lambda x: x - V.tanh(x) in L.Sequential"),
    "Threshold": (_TORCH, "a step lambda x: V.where(x > threshold, x, value) in L.Sequential"),
    "CosineSimilarity": (_TORCH, "F.cosine_similarity(x1, x2) (a function of two inputs)"),
    "PairwiseDistance": (_TORCH, "V.linalg.norm(x1 - x2, axis=-1) (a function of two inputs)"),
    "Unfold": (_TORCH, "a step lambda x: F.im2col(x, kernel_size, stride, pad) in L.Sequential"),
    "Fold": (_TORCH, "F.col2im(col, x_shape, kernel_size, stride, pad)"),
    "EmbeddingBag": (_TORCH, "V.mean(embed(ids), axis=1) with embed = L.EmbedID(in_size, out_size) and ids "
                             "(bags, n) (mode='sum': V.sum)"),
    "Bilinear": (_TORCH, "a Model with a Parameter W of shape (out, in1, in2) and b (out,), whose forward is "
                         "V.einsum('ni,oij,nj->no', x1, W, x2) + b"),
    "LazyLinear": (_TORCH, "L.Linear(out_size): gengrad's layers read their input size off the first input "
                           "unless it is given"),
    "LazyConv2d": (_TORCH, "L.Conv2d(out_channels, kernel_size): gengrad's layers read their input channels "
                           "off the first input unless they are given"),
    **dict.fromkeys(("InstanceNorm1d", "InstanceNorm2d"), (
        _TORCH, "L.GroupNorm(C, affine=False), one group a channel, for C channels (PyTorch's "
                "default affine=False; L.GroupNorm(C) has a gamma and a beta per channel, affine=True)")),
    "MultiHeadAttention": ("Keras's spelling", "L.MultiheadAttention(embed_dim, num_heads), PyTorch's "
                                               "nn.MultiheadAttention batch first"),
    "TransformerDecoder": (_TORCH, "a stack of L.TransformerDecoderLayer: layers = "
                                   "[L.TransformerDecoderLayer(d_model, nhead) for _ in range(n)], then for "
                                   "layer in layers: y = layer(y, memory, tgt_is_causal=True) (as attributes "
                                   "of a Model)"),
    "Transformer": (_TORCH, "a Model of L.TransformerEncoderLayer and L.TransformerDecoderLayer stacks: "
                            "memory = the encoder layers applied to src, then each decoder layer "
                            "y = layer(y, memory, tgt_is_causal=True), and a final L.LayerNorm for each "
                            "stack (PyTorch's encoder and decoder norms)"),
    "TransformerEncoder": (_TORCH, "a stack of L.TransformerEncoderLayer: layers = "
                                   "[L.TransformerEncoderLayer(d_model, nhead) for _ in range(n)], then for "
                                   "layer in layers: x = layer(x, src_key_padding_mask=mask) (as attributes "
                                   "of a Model)"),
    **{name: (_TORCH, f"{fix}: losses are functions (import function as F)") for name, fix in {
        "MultiMarginLoss": "F.multi_margin_loss(y, t, p, margin, weight)",
        "CTCLoss": "F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank)",
        "PoissonNLLLoss": "F.poisson_nll_loss(log_rate, t) (PyTorch's default log_input=True)",
        "MultiLabelSoftMarginLoss": "F.sigmoid_cross_entropy(x, y), y of 0s and 1s",
        "MarginRankingLoss": "V.mean(V.maximum(0, -y * (x1 - x2) + margin))",
        "SoftMarginLoss": "V.mean(F.softplus(-y * x)), y of +-1",
        "HingeEmbeddingLoss": "V.mean(V.where(y > 0, x, V.maximum(0, margin - x))), y of +-1",
        "GaussianNLLLoss": "V.mean(0.5 * (V.log(var) + (x - t) ** 2 / var)), var > 0",
        "TripletMarginLoss": ("V.mean(V.maximum(V.linalg.norm(a - p, axis=-1) - V.linalg.norm(a - n, "
                              "axis=-1) + margin, 0))"),
        "CosineEmbeddingLoss": ("c = F.cosine_similarity(x1, x2); V.mean(V.where(y > 0, 1 - c, "
                                "V.maximum(c - margin, 0))), y of +-1"),
        "NLLLoss2d": "F.softmax_cross_entropy(logits.transpose(0, 2, 3, 1), t) on the logits",
    }.items()},
    **dict.fromkeys(("BatchNorm3d", "SyncBatchNorm"), (
        _TORCH, "L.BatchNorm() (its size is read off the first batch; one device, so nothing to sync)")),
    "InstanceNorm3d": (_TORCH, "L.GroupNorm(C, affine=False), one group a channel, for C channels "
                               "(L.GroupNorm(C) with a gamma and a beta, PyTorch's affine=True)"),
    **dict.fromkeys(("LazyConv1d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
                     "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
                     "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"), (
        _TORCH, "the layer without Lazy (L.Conv1d, L.Deconv2d, L.BatchNorm, L.GroupNorm(C) for instance "
                "norm): gengrad's layers read their input size off the first input unless it is given")),
    "CrossMapLRN2d": (_TORCH, "L.LocalResponseNorm(size, alpha, beta, k)"),
    "Softshrink": (_TORCH, "a step lambda x: V.sign(x) * V.maximum(V.abs(x) - lambd, 0) in L.Sequential"),
    "RReLU": (_TORCH, "L.LeakyReLU((lower + upper) / 2), its slope in evaluation (in training PyTorch "
                      "draws a slope per entry)"),
    **{f"{kind}Pad{d}d": (_TORCH, f"a step lambda x: F.pad(x, ((0, 0), (0, 0)) + ((p, p),) * {d}{extra}) "
                                  f"in L.Sequential")
       for kind, extra in (("Zero", ""), ("Constant", ", constant_values=c"),
                           ("Reflection", ", mode='reflect'"), ("Replication", ", mode='edge'"),
                           ("Circular", ", mode='wrap'"))
       for d in (1, 2, 3) if (kind, d) not in {("Zero", 2), ("Constant", 2), ("Reflection", 2),
                                                ("Replication", 2)}},
    "MaxUnpool1d": (_TORCH, "F.max_unpool2d(y[:, :, None], indices[:, :, None], (1, k), (1, s), "
                            "outsize=(1, L))[:, :, 0] in a Model's forward: the sequences as images one "
                            "row high"),
    "ChannelShuffle": (_TORCH, "a step lambda x: x.reshape(N, g, C // g, H, W).transpose(0, 2, 1, 3, 4)"
                               ".reshape(N, C, H, W) in L.Sequential"),
    "PixelUnshuffle": (_TORCH, "a step lambda x: x.reshape(N, C, H // r, r, W // r, r).transpose(0, 1, 3, "
                               "5, 2, 4).reshape(N, C * r * r, H // r, W // r) in L.Sequential"),
    **{f"LPPool{d}d": (_TORCH, f"a step lambda x: (F.average_pooling(x ** p, k, k) * {size}) ** (1 / p) "
                               f"in L.Sequential, x of shape {layout}")
       for d, size, layout in ((1, "k", "(N, C, L)"), (2, "(k * k)", "(N, C, H, W)"))},
    "manual_seed": ("PyTorch's name", "L.seed(n)"),
    "Spiral": ("DeZero's dataset", "x, t = L.datasets.spiral() (its own draw of the arms)"),
    "SinCurve": ("DeZero's dataset", "x, t = L.datasets.sine_curve()"),
    "MNIST": ("DeZero's dataset", "examples.mnist.load_mnist(directory) reads local IDX files"),
    "get_spiral": ("DeZero's function", "x, t = L.datasets.spiral()"),
    "utils": ("torch.nn's module", "clip_grad_norm_ is an optimizer hook here: "
                                   "opt.add_hook(O.ClipGrad(max_norm)) (import optimizers as O)"),
}
"""Names from PyTorch and DeZero that `L.` spells otherwise, with the fix."""


def __getattr__(name):
    refuse_missing_name("layers", name, _SPELLED_OTHERWISE)
