"""Helpers the device tests share (a sibling module: tests/device is on sys.path)."""

import numpy as np

import variable as V
from variable import backend


def on_gpu(a, requires_grad=None):
    """A Variable of `a` on the GPU module the `gpu` fixture registered."""
    return V.Variable(np.asarray(a), requires_grad=requires_grad).to_gpu()


def host(a):
    """A Variable's data (or an array) on the host, for comparisons."""
    return backend.to_cpu(getattr(a, "data", a))


def assert_on_gpu(*values):
    """Every value (a Variable or an array) is on the GPU."""
    for v in values:
        assert backend.is_device_array(getattr(v, "data", v)), f"{type(v).__name__} left the device"
