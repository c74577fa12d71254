"""Multi-head self-attention, forward and backward: gengrad next to hand-written NumPy.

One step = `L.MultiheadAttention(E, H)` on x of shape (N, T, E) (four projections,
softmax(q k^T / sqrt(d)) v per head), the loss sum(y * g), and its backward to x and the
eight parameters; with `--causal` a causal mask too.  The NumPy version writes the same
forward and backward out by hand (the floor: the products dominate), PyTorch eager runs
nn.MultiheadAttention(batch_first=True) from the same weights when `import torch` works.
Every framework's gradients are checked against NumPy's before anything is timed.

    python -m benchmarks.attention                  # a few sizes, float32 and float64
    python -m benchmarks.attention --sizes 8,128,64,4 --causal
"""

import argparse
import os

if __name__ == "__main__":  # before NumPy loads; importing this module changes nothing
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import layers as L  # noqa: E402
import variable as V  # noqa: E402
from benchmarks.timing import checked_times, import_torch, ratio  # noqa: E402

SIZES = ((32, 16, 32, 4), (16, 64, 64, 4), (8, 128, 128, 8))
"""(N, T, E, H): a batch of short sequences, and two longer ones."""


def weights(rng, e, dtype):
    """Wq, bq, Wk, bk, Wv, bv, Wo, bo, each W of shape (in, out) = (E, E)."""
    out = []
    for _ in range(4):
        out += [rng.standard_normal((e, e)) / np.sqrt(e), 0.1 * rng.standard_normal(e)]
    return [w.astype(dtype) for w in out]


# ----- gengrad ---------------------------------------------------------------------------
class GengradStep:
    def __init__(self, params, x, g, heads, causal):
        e = x.shape[-1]
        self.layer = L.MultiheadAttention(e, heads, dtype=x.dtype)
        linears = (self.layer.q_proj, self.layer.k_proj, self.layer.v_proj, self.layer.out_proj)
        for k, linear in enumerate(linears):
            linear.W.data[...] = params[2 * k]
            linear.b.data[...] = params[2 * k + 1]
        self.x, self.g, self.causal = V.Variable(x), g, causal

    def __call__(self):
        self.layer.cleargrads()
        self.x.cleargrad()
        y, _ = self.layer(self.x, is_causal=self.causal, need_weights=False)
        V.sum(y * self.g).backward()

    def grads(self):
        return [self.x.grad.data] + [p.grad.data for p in self.layer.params()]


# ----- hand-written NumPy ------------------------------------------------------------------
class NumpyStep:
    """The forward and backward of multi-head attention written out with arrays."""

    def __init__(self, params, x, g, heads, causal):
        self.params, self.x, self.g, self.heads = params, x, g, heads
        t = x.shape[1]
        self.mask = np.triu(np.ones((t, t), bool), 1) if causal else None

    def _split(self, a):
        n, t, e = a.shape
        return a.reshape(n, t, self.heads, e // self.heads).transpose(0, 2, 1, 3)

    @staticmethod
    def _join(a):
        n, h, t, d = a.shape
        return a.transpose(0, 2, 1, 3).reshape(n, t, h * d)

    def __call__(self):
        Wq, bq, Wk, bk, Wv, bv, Wo, bo = self.params
        x, g = self.x, self.g
        q, k, v = (self._split(x @ W + b) for W, b in ((Wq, bq), (Wk, bk), (Wv, bv)))
        scale = 1 / float(np.sqrt(q.shape[-1]))      # (a Python float keeps float32 float32)
        s = q @ k.transpose(0, 1, 3, 2) * scale
        if self.mask is not None:
            s = np.where(self.mask, -np.inf, s)
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        w /= w.sum(axis=-1, keepdims=True)
        o = self._join(w @ v)
        # backward of sum((o Wo + bo) * g)
        go = self._split(g @ Wo.T)
        gw = go @ v.transpose(0, 1, 3, 2)
        gv = w.transpose(0, 1, 3, 2) @ go
        gs = w * (gw - (gw * w).sum(axis=-1, keepdims=True)) * scale
        gq, gk = self._join(gs @ k), self._join(gs.transpose(0, 1, 3, 2) @ q)
        gv = self._join(gv)
        rows = x.reshape(-1, x.shape[-1])
        grads = []
        for gp in (gq, gk, gv):
            grads += [rows.T @ gp.reshape(-1, gp.shape[-1]), gp.sum(axis=(0, 1))]
        grads += [o.reshape(-1, o.shape[-1]).T @ g.reshape(-1, g.shape[-1]), g.sum(axis=(0, 1))]
        gx = gq @ Wq.T + gk @ Wk.T + gv @ Wv.T
        self.result = [gx] + grads

    def grads(self):
        return self.result


# ----- PyTorch -----------------------------------------------------------------------------
class TorchStep:
    def __init__(self, torch, params, x, g, heads, causal):
        self.torch = torch
        e, t = x.shape[-1], x.shape[1]
        dtype = torch.float32 if x.dtype == np.float32 else torch.float64
        self.layer = torch.nn.MultiheadAttention(e, heads, batch_first=True, dtype=dtype)
        with torch.no_grad():
            joined = np.concatenate([params[0], params[2], params[4]], 1).T     # (3E, E), PyTorch's layout
            self.layer.in_proj_weight.copy_(torch.tensor(joined))
            self.layer.in_proj_bias.copy_(torch.tensor(np.concatenate([params[1], params[3], params[5]])))
            self.layer.out_proj.weight.copy_(torch.tensor(params[6].T))
            self.layer.out_proj.bias.copy_(torch.tensor(params[7]))
        self.x = torch.tensor(x, requires_grad=True)
        self.g = torch.tensor(g)
        self.mask = torch.triu(torch.ones(t, t, dtype=torch.bool), 1) if causal else None

    def __call__(self):
        self.layer.zero_grad()
        self.x.grad = None
        y, _ = self.layer(self.x, self.x, self.x, attn_mask=self.mask, need_weights=False)
        (y * self.g).sum().backward()

    def grads(self):
        ps = self.layer
        w, b = ps.in_proj_weight.grad.numpy(), ps.in_proj_bias.grad.numpy()
        e = w.shape[1]
        out = [self.x.grad.numpy()]
        for k in range(3):
            out += [w[k * e:(k + 1) * e].T, b[k * e:(k + 1) * e]]
        return out + [ps.out_proj.weight.grad.numpy().T, ps.out_proj.bias.grad.numpy()]


def run(sizes=SIZES, dtypes=("float32", "float64"), causal=False, repeat=5, torch=True):
    """{(sizes, dtype): {framework: seconds per step}}, each framework's gradients checked
    against NumPy's first."""
    torch = import_torch() if torch else None
    results = {}
    for n, t, e, h in sizes:
        for dtype in dtypes:
            rng = np.random.default_rng(0)
            params = weights(rng, e, dtype)
            x = rng.standard_normal((n, t, e)).astype(dtype)
            g = rng.standard_normal((n, t, e)).astype(dtype)
            steps = {"numpy": NumpyStep(params, x, g, h, causal),
                     "gengrad": GengradStep(params, x, g, h, causal)}
            if torch is not None:
                steps["torch"] = TorchStep(torch, params, x, g, h, causal)
            results[((n, t, e, h), dtype)] = checked_times(steps, dtype, repeat)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=None, metavar="N,T,E,H",
                        help="batch, sequence length, embedding size and heads (default: three sizes)")
    parser.add_argument("--causal", action="store_true", help="with a causal mask")
    parser.add_argument("--dtype", choices=("float32", "float64"), default=None, help="one dtype only")
    parser.add_argument("--repeat", type=int, default=5, help="timed steps (the best is reported)")
    parser.add_argument("--no-torch", action="store_true", help="leave PyTorch out")
    args = parser.parse_args(argv)
    sizes = SIZES if args.sizes is None else [tuple(int(v) for v in s.split(",")) for s in args.sizes]
    dtypes = ("float32", "float64") if args.dtype is None else (args.dtype,)
    results = run(sizes, dtypes, args.causal, args.repeat, not args.no_torch)
    mask = "causal" if args.causal else "no mask"
    print(f"multi-head self-attention, forward + backward ({mask}): ms per step (best of {args.repeat}); "
          f"ratio to hand-written NumPy")
    print(f"{'N, T, E, H':>16} {'dtype':>8} {'numpy':>8} {'gengrad':>8} {'ratio':>7} {'torch':>8} "
          f"{'ratio':>7}")
    for (size, dtype), times in results.items():
        torch_ms = times.get("torch")
        print(f"{', '.join(map(str, size)):>16} {dtype:>8} {1e3 * times['numpy']:8.2f} "
              f"{1e3 * times['gengrad']:8.2f} {ratio(times['gengrad'], times['numpy']):>7} "
              f"{'-' if torch_ms is None else f'{1e3 * torch_ms:8.2f}':>8} "
              f"{ratio(torch_ms, times['numpy']):>7}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
