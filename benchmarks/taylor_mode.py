"""Taylor mode and forward mode: nth derivatives of tanh, and the jvp of an MLP.

- tanh: the nth derivative on 200 points, n = 10, 20, 30, by `V.taylor` (one pass of
  truncated Taylor series, O(n^2)) and by nested `V.grad(create_graph=True)` (whose graph
  grows about 3x per order: only the lower orders are timed), next to hand-written NumPy
  (the derivative polynomial P_n(tanh x), P_{k+1}(t) = (1 - t^2) P_k'(t), evaluated by
  Horner) and PyTorch's nested autograd up to order 10 when torch is installed.  Every
  result is checked against the same polynomial summed in exact rationals; the errors of
  Taylor mode and of the float Horner sum (whose alternating coefficients cancel) are
  printed next to the times.
- jvp: `V.jvp` of the 784-1000-1000-10 sigmoid MLP's loss (benchmarks/mlp.py's network,
  batch 100), along a direction in the input and along one in all six parameters, each
  against the forward pass alone and against the same tangent written by hand in NumPy.
- --big, only: the nth derivative of tanh on 10**6 float64 points, n = 10, 20, 30, by
  `V.taylor` (all n + 1 derivatives, written out) and by `V.nth_derivative` (the nth
  alone: tanh's lower coefficients stay in its blocks' scratch), next to JAX's
  `jax.experimental.jet` (float64) when jax is installed, under jax.jit and eager.  jet
  is given the input series x, (1, 0, ..., 0) as arrays (the zeros are data to it, as they
  would be in a composed function), and its nth output term is the nth derivative (jet
  scales its terms by factorials by default; under jit only that term is written out).
  Its values, and V.nth_derivative's, are checked against V.taylor's before timing; the
  first jit call (compilation) is timed apart.  Run on its own, this sets
  XLA_FLAGS=--xla_cpu_multi_thread_eigen=false and NPROC=1 (the size of XLA's CPU thread
  pool) unless they are set: JAX on one thread, like NumPy's elementwise functions.

    python -m benchmarks.taylor_mode            # tanh on 200 points and the MLP jvp
    python -m benchmarks.taylor_mode --big      # only: tanh on 10**6 points, next to jet
"""

import argparse
import os
import time
from fractions import Fraction

if __name__ == "__main__":  # before JAX loads; importing this module changes nothing
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
    os.environ.setdefault("NPROC", "1")        # the size of XLA's CPU thread pool

import numpy as np  # noqa: E402

import function as F  # noqa: E402
import layers as L  # noqa: E402
import variable as V  # noqa: E402
from benchmarks import mlp  # noqa: E402
from benchmarks.higher_order import tanh_nth_gengrad, tanh_nth_torch  # noqa: E402
from benchmarks.timing import best_time, import_jax, import_torch, ratio  # noqa: E402

POINTS = np.linspace(-2, 2, 200)


# ----- nth derivative of tanh ------------------------------------------------------------
def tanh_nth_taylor(x_data, n):
    return V.taylor(V.tanh, x_data, np.ones_like(x_data), n)[n]


def tanh_polynomial(n):
    """Coefficients (lowest power first, Python ints) of P_n with d^n tanh = P_n(tanh)."""
    p = [0, 1]
    for _ in range(n):
        dp = [i * c for i, c in enumerate(p)][1:] or [0]
        p = [0] * (len(dp) + 2)
        for i, c in enumerate(dp):
            p[i] += c
            p[i + 2] -= c
    return p


def tanh_nth_numpy(x_data, coefficients):
    """P_n(tanh x) by Horner's rule (the coefficients computed once, outside the timing)."""
    t = np.tanh(x_data)
    total = np.zeros_like(t)
    for c in reversed(coefficients):
        total = total * t + c
    return total


def tanh_nth_exact(x_data, coefficients):
    """P_n(tanh x) summed in exact rationals from the float tanh x (the reference)."""
    out = []
    for t in np.tanh(x_data):
        t = Fraction(float(t))
        out.append(float(sum(c * t ** i for i, c in enumerate(coefficients))))
    return np.array(out)


def run_tanh(orders=(10, 20, 30), nested_up_to=10, repeat=5, torch=True):
    rows = []
    for n in orders:
        row = {"n": n}
        value = tanh_nth_taylor(POINTS, n).data
        exact = tanh_nth_exact(POINTS, tanh_polynomial(n))
        np.testing.assert_allclose(value, exact, rtol=1e-9, atol=1e-12 * np.abs(exact).max())
        coefficients = [float(c) for c in tanh_polynomial(n)]
        # the polynomial's large alternating coefficients cancel in floating point: its error
        row["taylor_error"] = float(np.abs(value - exact).max() / np.abs(exact).max())
        numpy_error = np.abs(tanh_nth_numpy(POINTS, coefficients) - exact).max()
        row["numpy_error"] = float(numpy_error / np.abs(exact).max())
        row["taylor"] = best_time(lambda n=n: tanh_nth_taylor(POINTS, n), repeat)
        row["numpy"] = best_time(lambda c=coefficients: tanh_nth_numpy(POINTS, c), repeat)
        if n <= nested_up_to:
            np.testing.assert_allclose(tanh_nth_gengrad(POINTS, n).data, value, rtol=1e-8, atol=1e-8)
            row["nested"] = best_time(lambda n=n: tanh_nth_gengrad(POINTS, n), max(1, repeat // 2))
        rows.append(row)
    torch = import_torch() if torch else None
    if torch is not None:
        for row in rows:
            n = row["n"]
            if n <= nested_up_to:
                expected = tanh_nth_torch(torch, POINTS, n).detach().numpy()
                np.testing.assert_allclose(tanh_nth_taylor(POINTS, n).data, expected, rtol=1e-8, atol=1e-8)
                row["torch"] = best_time(lambda n=n: tanh_nth_torch(torch, POINTS, n), max(1, repeat // 2))
    return rows


# ----- nth derivative of tanh on 10**6 points, next to JAX's jet ------------------------
BIG_POINTS = 10 ** 6


def jet_nth(jax, jet, n):
    """d^n tanh(x) by jet: the series x + t through tanh, its nth (derivative-scaled) term."""
    def nth(x, one, zero):
        _, terms = jet(jax.numpy.tanh, (x,), ((one,) + (zero,) * (n - 1),))
        return terms[n - 1]
    return nth


def run_jet(jax, jet, x_data, n, expected, repeat):
    """The first call (compilation) and best times of jet's nth derivative, jit and eager."""
    x = jax.numpy.asarray(x_data)
    one, zero = jax.numpy.ones_like(x), jax.numpy.zeros_like(x)
    eager = jet_nth(jax, jet, n)
    jitted = jax.jit(eager)
    start = time.perf_counter()
    value = np.asarray(jitted(x, one, zero))
    first = time.perf_counter() - start
    tolerance = 1e-12 * np.abs(expected).max()
    np.testing.assert_allclose(value, expected, rtol=1e-9, atol=tolerance)
    np.testing.assert_allclose(np.asarray(eager(x, one, zero)), expected, rtol=1e-9, atol=tolerance)
    return {
        "jit_first": first,
        "jit": best_time(lambda: jitted(x, one, zero).block_until_ready(), repeat),
        "eager": best_time(lambda: eager(x, one, zero).block_until_ready(), repeat),
        "jet_error": float(np.abs(value - expected).max() / np.abs(expected).max()),
    }


def run_big(orders=(10, 20, 30), repeat=3, jax_jet=None):
    x = np.linspace(-2, 2, BIG_POINTS)
    rows = []
    for n in orders:
        ones = np.ones_like(x)
        np.testing.assert_array_equal(V.nth_derivative(V.tanh, x, ones, n).data, tanh_nth_taylor(x, n).data)
        row = {"n": n, "taylor": best_time(lambda n=n: tanh_nth_taylor(x, n), repeat),
               "nth": best_time(lambda n=n, ones=ones: V.nth_derivative(V.tanh, x, ones, n), repeat)}
        if jax_jet is not None:
            row.update(run_jet(*jax_jet, x, n, tanh_nth_taylor(x, n).data, repeat))
        rows.append(row)
    return rows


def report_big(rows, repeat, jet_installed):
    lines = [f"nth derivative of tanh on {BIG_POINTS:,} float64 points (ms, best of {repeat})"
             + ("" if jet_installed else "; jax not installed: gengrad only")]
    for r in rows:
        jit, eager = r.get("jit"), r.get("eager")
        line = f"  n={r['n']:2d}  taylor {r['taylor'] * 1e3:8.1f}  nth_derivative {r['nth'] * 1e3:8.1f}"
        if jit is not None:
            line += (f"  jet jit {jit * 1e3:7.1f} (first call {r['jit_first'] * 1e3:6.0f})  "
                     f"jet eager {eager * 1e3:7.1f}  taylor/jit jet {ratio(r['taylor'], jit)}  "
                     f"nth_derivative/jit jet {ratio(r['nth'], jit)}  "
                     f"taylor/eager jet {ratio(r['taylor'], eager)}  jet vs taylor {r['jet_error']:.1e}")
        lines.append(line)
    return lines


# ----- jvp of the MLP ----------------------------------------------------------------------
def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def numpy_loss(weights, x, t):
    """Loss of the MLP, written out by hand (the forward pass alone)."""
    h = x
    for i in range(0, len(weights), 2):
        h = h @ weights[i] + weights[i + 1]
        if i + 2 < len(weights):
            h = _sigmoid(h)
    shifted = h - h.max(axis=1, keepdims=True)
    return np.mean(np.log(np.exp(shifted).sum(axis=1)) - shifted[np.arange(len(t)), t])


def numpy_loss_and_tangent(weights, x, t, dweights, dx):
    """Loss of the MLP and its derivative along (dweights, dx), written out by hand.

    dweights=None: along the input alone; dx=None: along the parameters alone.
    """
    h, dh = x, dx
    for i in range(0, len(weights), 2):
        W, b = weights[i], weights[i + 1]
        z = h @ W + b
        if dweights is None:                            # along the input only
            dz = dh @ W
        else:
            dz = h @ dweights[i] + dweights[i + 1] + (0 if dh is None else dh @ W)
        if i + 2 < len(weights):
            h = _sigmoid(z)
            dh = h * (1 - h) * dz                       # sigmoid' = s (1 - s)
        else:
            h, dh = z, dz
    shifted = h - h.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    p = e / e.sum(axis=1, keepdims=True)
    rows = np.arange(len(t))
    loss = np.mean(np.log(e.sum(axis=1)) - shifted[rows, t])
    dloss = np.mean((p * dh).sum(axis=1) - dh[rows, t])  # d logsumexp = softmax . dlogits
    return loss, dloss


def make_mlp(dtype=np.float32):
    weights, x, t = mlp._problem(dtype)
    model = L.MLP(mlp.SIZES[1:], activation=F.sigmoid, dtype=dtype)
    model(x[:1])
    for param, value in zip(model.params(), weights):
        param.data = value.copy()
    return model, weights, x, t


def run_jvp(repeat=5, dtype=np.float32):
    model, weights, x, t = make_mlp(dtype)
    rng = np.random.default_rng(1)
    dweights = [rng.standard_normal(w.shape).astype(dtype) for w in weights]
    dx = rng.standard_normal(x.shape).astype(dtype)

    def forward():
        return F.softmax_cross_entropy(model(x), t)

    def loss_of_input(xv):
        return F.softmax_cross_entropy(model(xv), t)

    def jvp_input():
        return V.jvp(loss_of_input, x, dx)

    def jvp_params():
        return V.jvp(lambda *ws: _apply(ws, x, t), tuple(weights), tuple(dweights))

    _, dy_input = jvp_input()
    _, dy_params = jvp_params()
    loss, expected_input = numpy_loss_and_tangent(weights, x, t, None, dx)
    np.testing.assert_allclose(numpy_loss(weights, x, t), loss, rtol=1e-6)
    _, expected_params = numpy_loss_and_tangent(weights, x, t, dweights, None)
    tolerance = 1e-4 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(float(dy_input.data), expected_input, rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(float(dy_params.data), expected_params, rtol=tolerance, atol=tolerance)
    return {
        "forward": best_time(forward, repeat),
        "jvp_input": best_time(jvp_input, repeat),
        "jvp_params": best_time(jvp_params, repeat),
        "numpy_forward": best_time(lambda: numpy_loss(weights, x, t), repeat),
        "numpy_input": best_time(lambda: numpy_loss_and_tangent(weights, x, t, None, dx), repeat),
        "numpy_params": best_time(lambda: numpy_loss_and_tangent(weights, x, t, dweights, None), repeat),
    }


def _apply(ws, x, t):
    """The MLP's loss with its weights given as Variables (W, b, W, b, ...), as L.MLP computes it."""
    h = x
    for i in range(0, len(ws), 2):
        h = F.linear(h, ws[i], ws[i + 1])
        if i + 2 < len(ws):
            h = F.sigmoid(h)
    return F.softmax_cross_entropy(h, t)


def report(tanh_rows, jvp):
    lines = ["nth derivative of tanh on 200 points (ms)"]
    for r in tanh_rows:
        nested, torch = r.get("nested"), r.get("torch")
        lines.append(
            f"  n={r['n']:2d}  taylor {r['taylor'] * 1e3:7.3f}  numpy {r['numpy'] * 1e3:7.3f}  "
            f"nested {'-' if nested is None else f'{nested * 1e3:8.2f}'}  "
            f"torch {'-' if torch is None else f'{torch * 1e3:8.2f}'}  "
            f"taylor/numpy {ratio(r['taylor'], r['numpy'])}  nested/taylor {ratio(nested, r['taylor'])}  "
            f"torch/taylor {ratio(torch, r['taylor'])}  error vs exact: taylor {r['taylor_error']:.1e}, "
            f"numpy {r['numpy_error']:.1e}"
        )
    f = jvp["forward"]
    lines += [
        "jvp of the 784-1000-1000-10 MLP loss, batch 100, float32 (ms)",
        f"  forward {f * 1e3:.2f}  jvp along the input {jvp['jvp_input'] * 1e3:.2f} "
        f"({ratio(jvp['jvp_input'], f)} forward)  along the parameters {jvp['jvp_params'] * 1e3:.2f} "
        f"({ratio(jvp['jvp_params'], f)} forward)",
        f"  numpy by hand: forward {jvp['numpy_forward'] * 1e3:.2f}  input {jvp['numpy_input'] * 1e3:.2f} "
        f"({ratio(jvp['numpy_input'], jvp['numpy_forward'])})  parameters {jvp['numpy_params'] * 1e3:.2f} "
        f"({ratio(jvp['numpy_params'], jvp['numpy_forward'])})",
        f"  gengrad/numpy: input {ratio(jvp['jvp_input'], jvp['numpy_input'])}, "
        f"parameters {ratio(jvp['jvp_params'], jvp['numpy_params'])}",
    ]
    return lines


def main(argv=None):
    """Run the Taylor-mode benchmarks and print their table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, nargs="+", default=[10, 20, 30])
    parser.add_argument("--nested-up-to", type=int, default=10,
                        help="highest order also timed by nested reverse mode (about 3x per order)")
    parser.add_argument("--repeat", type=int, default=None, help="rounds per timing (5; 3 with --big)")
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    parser.add_argument("--big", action="store_true",
                        help="only: the nth derivative of tanh on 10**6 points, next to JAX's jet")
    parser.add_argument("--keep-memory", action="store_true",
                        help="first V.keep_freed_memory(): glibc keeps freed arrays' pages (every column)")
    args = parser.parse_args(argv)
    if args.keep_memory:
        print(f"V.keep_freed_memory(): {'on' if V.keep_freed_memory() else 'not glibc: nothing changed'}")
    if args.big:
        repeat = 3 if args.repeat is None else args.repeat
        found = import_jax("jax.experimental.jet")
        jax_jet = None if found is None else (found[0], found[1].jet)
        print("\n".join(report_big(run_big(args.orders, repeat, jax_jet), repeat, jax_jet is not None)))
        return 0
    repeat = 5 if args.repeat is None else args.repeat
    rows = run_tanh(args.orders, args.nested_up_to, repeat, torch=not args.no_torch)
    print("\n".join(report(rows, run_jvp(repeat))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
