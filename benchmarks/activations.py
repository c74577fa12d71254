"""Activations (and two row-wise normalisations), forward and backward: gengrad next to
hand-written NumPy and PyTorch.

One step = y = f(x) on 10^6 entries (rows of 1,000) and the gradient of x for an incoming
gradient g (`V.grad(y, x, grad_outputs=g)`).  The NumPy version writes the same forward
and backward out; PyTorch eager runs torch.autograd.grad when `import torch` works.
gengrad's gradients (and PyTorch's) are checked against NumPy's before anything is timed.
NumPy has no erf, so the exact GELU has no NumPy column.

    python -m benchmarks.activations                       # float32, 10^6 entries
    python -m benchmarks.activations --dtype float64 --names relu gelu
"""

import argparse
import os

if __name__ == "__main__":  # before NumPy loads; importing this module changes nothing
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import function as F  # noqa: E402
import variable as V  # noqa: E402
from benchmarks.timing import best_time, import_torch, ratio  # noqa: E402

SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805
C = np.sqrt(2 / np.pi)


def _sigmoid(x):
    return 0.5 * (1 + np.tanh(0.5 * x))


# ----- hand-written NumPy: (forward, backward) of each -------------------------------------
def _relu(x, g):
    return np.maximum(x, 0), g * (x > 0)


def _leaky_relu(x, g):
    slope = np.where(x > 0, 1, 0.1).astype(x.dtype)
    return x * slope, g * slope


def _elu(x, g, alpha=1.0, scale=1.0):
    e = np.exp(np.minimum(x, 0))
    y = scale * np.where(x > 0, x, alpha * (e - 1))
    return y, g * (scale * np.where(x > 0, 1, alpha * e))


def _selu(x, g):
    return _elu(x, g, SELU_ALPHA, SELU_SCALE)


def _gelu_tanh(x, g):
    t = np.tanh(C * (x + 0.044715 * x * x * x))
    y = 0.5 * x * (1 + t)
    return y, g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * C * (1 + 3 * 0.044715 * x * x))


def _silu(x, g):
    s = _sigmoid(x)
    return x * s, g * (s * (1 + x * (1 - s)))


def _sigmoid_pair(x, g):
    s = _sigmoid(x)
    return s, g * s * (1 - s)


def _tanh(x, g):
    t = np.tanh(x)
    return t, g * (1 - t * t)


def _softplus(x, g):
    return np.logaddexp(x, 0), g * _sigmoid(x)


def _hard_swish(x, g):
    y = x * np.clip(x + 3, 0, 6) / 6
    slope = np.where(x <= -3, 0, np.where(x >= 3, 1, (2 * x + 3) / 6))
    return y, g * slope.astype(x.dtype)


def _log_softmax(x, g):
    shifted = x - x.max(axis=-1, keepdims=True)
    y = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return y, g - np.exp(y) * g.sum(axis=-1, keepdims=True)


def _softmax(x, g):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    y = e / e.sum(axis=-1, keepdims=True)
    return y, y * (g - (y * g).sum(axis=-1, keepdims=True))


def _layer_norm(x, g, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    c = x - mean
    inv = 1 / np.sqrt((c * c).mean(axis=-1, keepdims=True) + eps)
    y = c * inv
    return y, inv * (g - g.mean(axis=-1, keepdims=True) - y * (g * y).mean(axis=-1, keepdims=True))


def _gengrad_layer_norm(x):
    ones = np.ones(x.shape[-1], x.dtype)
    return F.layer_norm(x, ones, 0 * ones, eps=1e-5)


def _cases(torch):
    """name: (gengrad f, NumPy pair or None, torch f or None)."""
    tf = None if torch is None else torch.nn.functional

    def t(make):
        return None if torch is None else make()

    return {
        "relu": (F.relu, _relu, t(lambda: tf.relu)),
        "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), _leaky_relu,
                       t(lambda: lambda x: tf.leaky_relu(x, 0.1))),
        "elu": (F.elu, _elu, t(lambda: tf.elu)),
        "selu": (F.selu, _selu, t(lambda: tf.selu)),
        "gelu": (F.gelu, None, t(lambda: tf.gelu)),
        "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), _gelu_tanh,
                      t(lambda: lambda x: tf.gelu(x, approximate="tanh"))),
        "silu": (F.silu, _silu, t(lambda: tf.silu)),
        "sigmoid": (F.sigmoid, _sigmoid_pair, t(lambda: torch.sigmoid)),
        "tanh": (V.tanh, _tanh, t(lambda: torch.tanh)),
        "softplus": (F.softplus, _softplus, t(lambda: tf.softplus)),
        "hard_swish": (F.hard_swish, _hard_swish, t(lambda: tf.hardswish)),
        "softmax": (lambda x: F.softmax(x, axis=-1), _softmax, t(lambda: lambda x: tf.softmax(x, -1))),
        "log_softmax": (lambda x: F.log_softmax(x, axis=-1), _log_softmax,
                        t(lambda: lambda x: tf.log_softmax(x, -1))),
        "layer_norm": (_gengrad_layer_norm, _layer_norm,
                       t(lambda: lambda x: tf.layer_norm(x, x.shape[-1:], eps=1e-5))),
    }


NAMES = ("relu", "leaky_relu", "elu", "selu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "softplus",
         "hard_swish", "softmax", "log_softmax", "layer_norm")


def run(names=NAMES, shape=(1000, 1000), dtype="float32", repeat=5, torch=True):
    """{name: {framework: seconds per step}}, each framework's gradient checked against
    NumPy's first (against gengrad's float64 one where NumPy has none)."""
    torch = import_torch() if torch else None
    cases = _cases(torch)
    rng = np.random.default_rng(0)
    x = (2 * rng.standard_normal(shape)).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    tol = 1e-4 if dtype == "float32" else 1e-10
    results = {}
    for name in names:
        f, by_hand, torch_f = cases[name]
        xv, gv = V.Variable(x), V.Variable(g)
        steps = {"gengrad": lambda f=f, xv=xv, gv=gv: V.grad(f(xv), xv, grad_outputs=gv).data}
        if by_hand is not None:
            steps["numpy"] = lambda by_hand=by_hand: by_hand(x, g)[1]
        if torch_f is not None:
            tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(g)
            steps["torch"] = lambda f=torch_f, tx=tx, tg=tg: torch.autograd.grad(f(tx), tx, tg)[0].numpy()
        if by_hand is not None:
            want = by_hand(x.astype(np.float64), g.astype(np.float64))[1]
        else:
            x64 = V.Variable(x.astype(np.float64))
            want = V.grad(f(x64), x64, grad_outputs=g.astype(np.float64)).data
        for framework, step in steps.items():
            got = np.asarray(step(), dtype=np.float64)
            assert got.shape == want.shape, f"{name}, {framework}: gradient shapes differ"
            worst = np.abs(got - want).max()
            assert worst <= tol * (np.abs(want).max() + 1), f"{name}, {framework}: gradients differ"
        results[name] = {framework: best_time(step, repeat) for framework, step in steps.items()}
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--names", nargs="+", choices=NAMES, default=list(NAMES), help="which ones")
    parser.add_argument("--rows", type=int, default=1000, help="rows of 1,000 entries (default 1,000)")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    parser.add_argument("--repeat", type=int, default=5, help="timed steps (the best is reported)")
    parser.add_argument("--no-torch", action="store_true", help="leave PyTorch out")
    args = parser.parse_args(argv)
    results = run(args.names, (args.rows, 1000), args.dtype, args.repeat, not args.no_torch)
    print(f"activations on {args.rows} x 1,000 {args.dtype} entries, y = f(x) and the gradient of x: "
          f"ms per step (best of {args.repeat}); ratios of gengrad to hand-written NumPy and to PyTorch")
    print(f"{'':>12} {'numpy':>8} {'gengrad':>8} {'torch':>8} {'/ numpy':>8} {'/ torch':>8}")
    for name, times in results.items():
        cells = [times.get(k) for k in ("numpy", "gengrad", "torch")]
        shown = ["-" if c is None else f"{1e3 * c:.2f}" for c in cells]
        over = [ratio(times["gengrad"], times.get(k)) for k in ("numpy", "torch")]
        print(f"{name:>12} {shown[0]:>8} {shown[1]:>8} {shown[2]:>8} {over[0]:>8} {over[1]:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
