"""Helpers the device tests share (a sibling module: tests/device is on sys.path)."""

import numpy as np

import variable as V
from variable import backend


def on_gpu(a, requires_grad=None):
    """A Variable of `a` on the GPU module the `gpu` fixture registered."""
    return V.Variable(np.asarray(a), requires_grad=requires_grad).to_gpu()


def host(a):
    """A Variable's data (or an array) on the host, for comparisons.  Only a Variable's `.data`
    is its values: a CuPy array's `.data` is its memory pointer."""
    return backend.to_cpu(a.data if isinstance(a, V.Variable) else a)


def assert_on_gpu(*values):
    """Every value (a Variable or an array) is on the GPU."""
    for v in values:
        a = v.data if isinstance(v, V.Variable) else v     # (an array's .data is no array)
        assert backend.is_device_array(a), f"{type(v).__name__} left the device"
