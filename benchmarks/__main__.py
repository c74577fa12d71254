"""Run every benchmark: `python -m benchmarks` (add --quick for a short smoke run)."""

import argparse

from benchmarks import (
    activations,
    attention,
    convnet,
    gpu,
    higher_order,
    jacobians,
    laplacian,
    many_inputs,
    memory,
    mlp,
    numpy_calls,
    numpy_ops,
    overhead,
    passes,
    special,
    taylor_mode,
)


def main(argv=None):
    """Run the overhead, backward-pass, NumPy-call, SciPy-special, higher-order, Taylor-mode, MLP,
    attention, conv-net, activation and memory benchmarks in turn."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few repeats, for a smoke run")
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu",
                        help="gpu: the GPU benchmarks (CuPy, next to PyTorch CUDA and DeZero) instead")
    parser.add_argument("--dezero", metavar="PATH", default=None,
                        help="--device gpu: the folder holding the dezero package, for its MLP column "
                             "(default: $GENGRAD_DEZERO_PATH)")
    args = parser.parse_args(argv)
    quick = args.quick
    if args.device == "gpu":
        gpu_args = ["--repeat", "1", "--number", "2", "--points", "10000", "--orders", "4", "10",
                    "--laplacian-batch", "256", "--overhead-steps", "100",
                    "--memory-steps", "20"] if quick else []
        return gpu.main(gpu_args + ([] if args.dezero is None else ["--dezero", args.dezero]))
    # memory first: its peak RSS would otherwise be the peak of the benchmarks before it
    memory.main(["--quick", "--steps", "120", "--warmup", "100"] if quick else [])
    print()
    overhead.main(["--steps", "200", "--repeat", "2"] if quick else [])
    print()
    passes.main(["--kept", "300", "--passes", "20", "--repeat", "1"] if quick else [])
    print()
    numpy_calls.main(["--steps", "200", "--repeat", "2"] if quick else [])
    print()
    numpy_ops.main(["--repeat", "1"] if quick else [])
    print()
    special.main(["--n", "2000", "--repeat", "1"] if quick else [])
    print()
    higher_order.main(["--orders", "4", "--repeat", "1"] if quick else [])
    print()
    taylor_mode.main(["--orders", "4", "10", "--nested-up-to", "4", "--repeat", "1"] if quick else [])
    print()
    laplacian.main(["--dims", "2", "--repeat", "1"] if quick else [])
    print()
    jacobians.main(["--repeat", "1"] if quick else [])
    print()
    many_inputs.main(["--n", "500", "--repeat", "1"] if quick else [])
    print()
    mlp.main(["--steps", "1", "--rounds", "1"] if quick else [])
    print()
    attention.main(["--sizes", "4,8,16,2", "--repeat", "1"] if quick else [])
    print()
    convnet.main(["--batches", "4", "--repeat", "1"] if quick else [])
    print()
    activations.main(["--rows", "10", "--repeat", "1"] if quick else [])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
