"""Tall matrix products: NumPy's one product against gengrad's 128-row blocks.

`python -m benchmarks.matmul_rows`: (m, k) @ (k, n) for the shapes of a forward Laplacian's
first-order coefficients (directions x points rows by a layer's features) and a few others,
then x^T g for tall x (m, k) and g (m, n) (a weight's gradient), in float64 on one thread
(OPENBLAS_NUM_THREADS=1 unless set), best of `--repeat`.  Ratio: gengrad's
`variable.ops.matmul.product` with its blocks over `a @ b`, checked equal first (`product`
splits only on CPUs with AVX-512; this times the split on any).  Run it under
OPENBLAS_CORETYPE=SkylakeX / Haswell / Zen / Prescott to see each kernel.
"""

import argparse
import os

if __name__ == "__main__":  # before NumPy loads; importing this module changes nothing
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from benchmarks.timing import best_time, ratio  # noqa: E402
from variable.ops import matmul  # noqa: E402
from variable.ops.matmul import _ROWS  # noqa: E402

SHAPES = [(16384, 64, 64), (16384, 32, 32), (65536, 64, 64), (16384, 64, 16), (16384, 16, 64),
          (16384, 64, 8), (16384, 64, 1), (8192, 64, 64)]


def run(m, k, n, repeat):
    rng = np.random.default_rng(m + k + n)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    out = np.empty((m, n))
    rows = m - m % _ROWS

    def stacked():                     # product's own two calls, into the preallocated output
        np.matmul(a[:rows].reshape(-1, _ROWS, k), b, out=out[:rows].reshape(-1, _ROWS, n))
        if rows < m:
            np.matmul(a[rows:], b, out=out[rows:])
    stacked()
    np.testing.assert_allclose(out, a @ b, rtol=1e-12, atol=1e-12)
    return {"numpy": best_time(lambda: np.matmul(a, b, out=out), repeat),
            "stacked": best_time(stacked, repeat)}


def run_gradient(m, k, n, repeat):
    """x^T g: NumPy's one product against product's sum over blocks (the split forced on)."""
    rng = np.random.default_rng(m + k + n + 1)
    x, g = rng.standard_normal((m, k)), rng.standard_normal((m, n))
    stacked, matmul._STACKED = matmul._STACKED, True
    try:
        np.testing.assert_allclose(matmul.product(x.T, g), x.T @ g, rtol=1e-10, atol=1e-10)
        split = best_time(lambda: matmul.product(x.T, g), repeat)
    finally:
        matmul._STACKED = stacked
    return {"numpy": best_time(lambda: x.T @ g, repeat), "stacked": split}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    kernel = os.environ.get("OPENBLAS_CORETYPE", "the default")
    print(f"(m, k) @ (k, n), float64, ms, best of {args.repeat}; OpenBLAS kernel: {kernel}")
    print(f"{'m':>6} {'k':>4} {'n':>4} {'NumPy a @ b':>12} {'128-row stack':>14} {'ratio':>7}")
    for m, k, n in SHAPES:
        r = run(m, k, n, args.repeat)
        print(f"{m:>6} {k:>4} {n:>4} {r['numpy'] * 1e3:>12.2f} {r['stacked'] * 1e3:>14.2f} "
              f"{ratio(r['stacked'], r['numpy']):>7}")
    print(f"x^T g for x (m, k) and g (m, n), ms, best of {args.repeat}")
    print(f"{'m':>6} {'k':>4} {'n':>4} {'NumPy x.T @ g':>14} {'blocks summed':>14} {'ratio':>7}")
    for m, k, n in SHAPES:
        r = run_gradient(m, k, n, args.repeat)
        print(f"{m:>6} {k:>4} {n:>4} {r['numpy'] * 1e3:>14.2f} {r['stacked'] * 1e3:>14.2f} "
              f"{ratio(r['stacked'], r['numpy']):>7}")
    return 0


if __name__ == "__main__":
    main()
