"""A small convolutional network's forward and backward: gengrad next to hand-written NumPy.

One step = the loss of a LeNet-sized network on a batch of 28 x 28 images, (3x3 conv, ReLU,
2x2 max pooling) twice, then a linear layer to 10 classes and softmax cross-entropy, and its
backward to the six parameters.  The NumPy version writes the same forward and backward
out by hand (im2col as a copy of NumPy's sliding-window view, one matrix product per
convolution, the window sums of col2im as one slice-add per kernel entry; pooling by a
reshape); PyTorch eager runs the same network from the same weights when `import torch`
works.  Every framework's gradients are checked against NumPy's before anything is timed.

    python -m benchmarks.convnet                  # batches 32 and 128, float32 and float64
    python -m benchmarks.convnet --batches 256 --dtype float32
"""

import argparse
import os

if __name__ == "__main__":  # before NumPy loads; importing this module changes nothing
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402

import function as F  # noqa: E402
import variable as V  # noqa: E402
from benchmarks.timing import checked_times, import_torch, ratio  # noqa: E402

BATCHES = (32, 128)
CHANNELS = (1, 8, 16)
"""Input channels, then each convolution's output channels."""
SIDE, CLASSES = 28, 10


def weights(rng, dtype):
    """W1, b1, W2, b2 (convolutions, (out, in, 3, 3)), W3 (in, out), b3."""
    out = []
    for c_in, c_out in zip(CHANNELS, CHANNELS[1:]):
        out += [rng.standard_normal((c_out, c_in, 3, 3)) / np.sqrt(9 * c_in),
                0.1 * rng.standard_normal(c_out)]
    features = CHANNELS[-1] * (SIDE // 4) ** 2
    out += [rng.standard_normal((features, CLASSES)) / np.sqrt(features), 0.1 * rng.standard_normal(CLASSES)]
    return [w.astype(dtype) for w in out]


def batch(rng, n, dtype):
    """Images (n, 1, 28, 28) and their labels."""
    return rng.standard_normal((n, CHANNELS[0], SIDE, SIDE)).astype(dtype), rng.integers(0, CLASSES, n)


# ----- gengrad ---------------------------------------------------------------------------
class GengradStep:
    def __init__(self, params, x, t):
        self.params = [V.Variable(p.copy()) for p in params]
        self.x, self.t = x, t

    def __call__(self):
        W1, b1, W2, b2, W3, b3 = self.params
        for p in self.params:
            p.cleargrad()
        h = F.pooling(F.relu(F.conv2d(self.x, W1, b1, pad=1)), 2, 2)
        h = F.pooling(F.relu(F.conv2d(h, W2, b2, pad=1)), 2, 2)
        F.softmax_cross_entropy(F.linear(h.reshape(len(h), -1), W3, b3), self.t).backward()

    def grads(self):
        return [p.grad.data for p in self.params]


# ----- hand-written NumPy ------------------------------------------------------------------
def _conv(x, W, b):
    """3x3 convolution, pad 1, stride 1: (y, the im2col rows the backward reads)."""
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = sliding_window_view(padded, (3, 3), axis=(2, 3))          # (n, c, h, w, 3, 3), a view
    cols = cols.transpose(0, 2, 3, 1, 4, 5).reshape(n * h * w, c * 9)  # (the copy: im2col)
    y = cols @ W.reshape(len(W), -1).T + b
    return y.reshape(n, h, w, -1).transpose(0, 3, 1, 2), cols


def _conv_backward(gy, cols, W, x_shape):
    """Gradients of x, W and b of `_conv` from gy (n, out, h, w)."""
    n, c, h, w = x_shape
    g = gy.transpose(0, 2, 3, 1).reshape(n * h * w, -1)
    gW = (g.T @ cols).reshape(W.shape)
    gcols = (g @ W.reshape(len(W), -1)).reshape(n, h, w, c, 3, 3)
    gpad = np.zeros((n, c, h + 2, w + 2), gy.dtype)
    for i in range(3):                                               # col2im: one add per kernel entry
        for j in range(3):
            gpad[:, :, i:i + h, j:j + w] += gcols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return gpad[:, :, 1:-1, 1:-1], gW, g.sum(axis=0)


def _pool(x):
    """2x2 max pooling, stride 2: (y, the mask of each window's first max)."""
    n, c, h, w = x.shape
    windows = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5)
    windows = windows.reshape(n, c, h // 2, w // 2, 4)
    first = windows.argmax(axis=-1)
    mask = np.arange(4) == first[..., np.newaxis]
    return np.take_along_axis(windows, first[..., np.newaxis], -1)[..., 0], mask


def _pool_backward(gy, mask):
    n, c, h, w, _ = mask.shape
    g = mask * gy[..., np.newaxis]
    return g.reshape(n, c, h, w, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, 2 * h, 2 * w)


class NumpyStep:
    """The network's forward and backward written out with arrays."""

    def __init__(self, params, x, t):
        self.params, self.x, self.t = params, x, t

    def __call__(self):
        W1, b1, W2, b2, W3, b3 = self.params
        x, t = self.x, self.t
        a1, cols1 = _conv(x, W1, b1)
        h1, mask1 = _pool(np.maximum(a1, 0))
        a2, cols2 = _conv(h1, W2, b2)
        h2, mask2 = _pool(np.maximum(a2, 0))
        flat = h2.reshape(len(h2), -1)
        z = flat @ W3 + b3
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        # backward of the mean cross-entropy
        gz = p
        gz[np.arange(len(t)), t] -= 1
        gz /= len(t)
        gW3, gb3 = flat.T @ gz, gz.sum(axis=0)
        gh2 = (gz @ W3.T).reshape(h2.shape)
        ga2 = _pool_backward(gh2, mask2) * (a2 > 0)
        gh1, gW2, gb2 = _conv_backward(ga2, cols2, W2, h1.shape)
        ga1 = _pool_backward(gh1, mask1) * (a1 > 0)
        _, gW1, gb1 = _conv_backward(ga1, cols1, W1, x.shape)
        self.result = [gW1, gb1, gW2, gb2, gW3, gb3]

    def grads(self):
        return self.result


# ----- PyTorch -----------------------------------------------------------------------------
class TorchStep:
    def __init__(self, torch, params, x, t):
        self.torch = torch
        self.params = [torch.tensor(p.T if p.ndim == 2 else p, requires_grad=True) for p in params]
        self.x, self.t = torch.tensor(x), torch.tensor(t)

    def __call__(self):
        nn = self.torch.nn.functional
        W1, b1, W2, b2, W3, b3 = self.params
        for p in self.params:
            p.grad = None
        h = nn.max_pool2d(nn.relu(nn.conv2d(self.x, W1, b1, padding=1)), 2)
        h = nn.max_pool2d(nn.relu(nn.conv2d(h, W2, b2, padding=1)), 2)
        nn.cross_entropy(nn.linear(h.flatten(1), W3, b3), self.t).backward()

    def grads(self):
        return [p.grad.numpy().T if p.ndim == 2 else p.grad.numpy() for p in self.params]


def run(batches=BATCHES, dtypes=("float32", "float64"), repeat=5, torch=True):
    """{(batch, dtype): {framework: seconds per step}}, each framework's gradients checked
    against NumPy's first."""
    torch = import_torch() if torch else None
    results = {}
    for n in batches:
        for dtype in dtypes:
            rng = np.random.default_rng(0)
            params = weights(rng, dtype)
            x, t = batch(rng, n, dtype)
            steps = {"numpy": NumpyStep(params, x, t), "gengrad": GengradStep(params, x, t)}
            if torch is not None:
                steps["torch"] = TorchStep(torch, params, x, t)
            results[(n, dtype)] = checked_times(steps, dtype, repeat)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", nargs="+", type=int, default=list(BATCHES), help="batch sizes")
    parser.add_argument("--dtype", choices=("float32", "float64"), default=None, help="one dtype only")
    parser.add_argument("--repeat", type=int, default=5, help="timed steps (the best is reported)")
    parser.add_argument("--no-torch", action="store_true", help="leave PyTorch out")
    args = parser.parse_args(argv)
    dtypes = ("float32", "float64") if args.dtype is None else (args.dtype,)
    results = run(args.batches, dtypes, args.repeat, not args.no_torch)
    print(f"conv net (3x3 conv 1-8, ReLU, 2x2 max pool, 3x3 conv 8-16, ReLU, pool, linear to 10, "
          f"cross-entropy) on 28 x 28 images, forward + backward: ms per step (best of {args.repeat}); "
          f"ratio to hand-written NumPy")
    print(f"{'batch':>6} {'dtype':>8} {'numpy':>8} {'gengrad':>8} {'ratio':>7} {'torch':>8} {'ratio':>7}")
    for (n, dtype), times in results.items():
        torch_ms = times.get("torch")
        print(f"{n:>6} {dtype:>8} {1e3 * times['numpy']:8.2f} {1e3 * times['gengrad']:8.2f} "
              f"{ratio(times['gengrad'], times['numpy']):>7} "
              f"{'-' if torch_ms is None else f'{1e3 * torch_ms:8.2f}':>8} "
              f"{ratio(torch_ms, times['numpy']):>7}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
