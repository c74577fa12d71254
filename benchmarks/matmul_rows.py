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

SHAPES = [(16384, 64, 64), (16384, 32, 32), (65536, 64, 64), (16384, 64, 16), (16384, 16, 64),
          (16384, 64, 8), (16384, 64, 1), (8192, 64, 64)]

TABLES = [  # (title, NumPy's column, the blocks' column, the operands of (m, k, n))
    ("(m, k) @ (k, n)", "NumPy a @ b", "128-row stack",
     lambda rng, m, k, n: (rng.standard_normal((m, k)), rng.standard_normal((k, n)))),
    ("x^T g for x (m, k) and g (m, n)", "NumPy x.T @ g", "blocks summed",
     lambda rng, m, k, n: (rng.standard_normal((m, k)).T, rng.standard_normal((m, n)))),
]


def run(operands, m, k, n, repeat):
    """NumPy's a @ b against `product`'s (the split forced on, as on an AVX-512 CPU), checked
    equal first; a shape `product` does not split (n < 8) times NumPy's own twice."""
    a, b = operands(np.random.default_rng(m + k + n), m, k, n)
    stacked, matmul._STACKED = matmul._STACKED, True
    try:
        np.testing.assert_allclose(matmul.product(a, b), a @ b, rtol=1e-10, atol=1e-10)
        split = best_time(lambda: matmul.product(a, b), repeat)
    finally:
        matmul._STACKED = stacked
    return {"numpy": best_time(lambda: a @ b, repeat), "stacked": split}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    kernel = os.environ.get("OPENBLAS_CORETYPE", "the default")
    for title, ours, theirs, operands in TABLES:
        print(f"{title}, float64, ms, best of {args.repeat}; OpenBLAS kernel: {kernel}")
        print(f"{'m':>6} {'k':>4} {'n':>4} {ours:>14} {theirs:>14} {'ratio':>7}")
        for m, k, n in SHAPES:
            r = run(operands, m, k, n, args.repeat)
            print(f"{m:>6} {k:>4} {n:>4} {r['numpy'] * 1e3:>14.2f} {r['stacked'] * 1e3:>14.2f} "
                  f"{ratio(r['stacked'], r['numpy']):>7}")
    return 0


if __name__ == "__main__":
    main()
