"""Shared timing helpers for the benchmarks."""

import importlib
import time
import warnings

import numpy as np


def best_time(fn, repeat=5, number=1):
    """Best wall-clock seconds of `number` calls of `fn`, over `repeat` rounds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def checked_times(steps, dtype, repeat):
    """{name: best seconds} of `steps` ({name: step}; a step runs the computation, its
    `grads()` then give its gradients), each one's gradients first checked against those of
    steps["numpy"], to 2e-3 (float32) or 1e-9 (float64) of the largest, in shape and value."""
    tol = 2e-3 if dtype == "float32" else 1e-9
    steps["numpy"]()
    for name, step in steps.items():
        step()
        for got, want in zip(step.grads(), steps["numpy"].grads()):
            assert np.shape(got) == np.shape(want), f"{name}: gradient shapes differ"
            scale = np.abs(want).max() + 1
            assert np.abs(np.asarray(got) - want).max() <= tol * scale, f"{name}: gradients differ"
    return {name: best_time(step, repeat) for name, step in steps.items()}


def import_torch():
    """The torch module when it is installed, else None (it is never a dependency)."""
    try:
        import torch
    except ImportError:
        return None
    with warnings.catch_warnings():                  # forward-mode AD (torch.func.hessian) loads
        warnings.simplefilter("ignore", DeprecationWarning)   # its rules by torch.jit.script,
        import torch.autograd.forward_ad as forward_ad  # deprecated: loaded here, quietly
        getattr(forward_ad, "_maybe_load_decompositions", lambda: None)()
    torch.set_num_threads(1)
    return torch


def import_jax(*names):
    """(jax, and the modules `names`, e.g. "folx") with JAX in float64 when all are
    installed, else None (never a dependency)."""
    try:
        jax = importlib.import_module("jax")
        modules = [importlib.import_module(name) for name in names]
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return (jax, *modules)


def ratio(a, b):
    """a / b formatted, or '-' when b is missing."""
    return "-" if a is None or b is None else f"{a / b:.2f}x"
