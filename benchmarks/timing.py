"""Shared timing helpers for the benchmarks."""

import time


def best_time(fn, repeat=5, number=1):
    """Best wall-clock seconds of `number` calls of `fn`, over `repeat` rounds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def import_torch():
    """The torch module when it is installed, else None (it is never a dependency)."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def ratio(a, b):
    """a / b formatted, or '-' when b is missing."""
    return "-" if a is None or b is None else f"{a / b:.2f}x"
