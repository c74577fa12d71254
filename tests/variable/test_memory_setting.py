"""V.keep_freed_memory: glibc serves arrays up to 32 MiB from its heap and keeps their pages
when they are freed (checked through glibc's own counters, in a child process, so the
suite's process keeps the C library's defaults); refused arguments; False off glibc."""

import subprocess
import sys
from pathlib import Path

import pytest

import variable as V
from variable import memory

ROOT = Path(__file__).resolve().parents[2]

_COUNTERS = """
import ctypes, sys
import numpy as np
import variable as V


class Mallinfo2(ctypes.Structure):   # glibc >= 2.33
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


libc = ctypes.CDLL(None)
if not hasattr(libc, "mallinfo2"):
    print("no mallinfo2"); sys.exit(0)
libc.mallinfo2.restype = Mallinfo2
MB = 1 << 20


def mapped_after_a_new_array():
    before = libc.mallinfo2().hblkhd
    a = np.ones(MB)                       # 8 MiB
    return libc.mallinfo2().hblkhd - before, a


grown, a = mapped_after_a_new_array()
print("default: mapped", grown >= 8 * MB)
del a
print("set", V.keep_freed_memory(256 * MB))
grown, a = mapped_after_a_new_array()
print("kept: mapped", grown >= 8 * MB)
del a
print("kept: free in the heap", libc.mallinfo2().fordblks >= 8 * MB)
b = np.ones(MB)
print("kept: reused", libc.mallinfo2().fordblks < 8 * MB)
del b
print("given back", V.keep_freed_memory(0), libc.mallinfo2().fordblks < 8 * MB)
grown, a = mapped_after_a_new_array()
print("restored: mapped", grown >= 8 * MB)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's counters")
def test_freed_arrays_stay_in_the_heap_for_the_next_ones():
    run = subprocess.run([sys.executable, "-c", _COUNTERS], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    if memory._glibc() is None or "no mallinfo2" in run.stdout:
        pytest.skip("not glibc >= 2.33")
    assert run.stdout.split("\n")[:-1] == [
        "default: mapped True",          # glibc maps an 8 MiB array of its own at first
        "set True",
        "kept: mapped False",            # then serves it from the heap
        "kept: free in the heap True",   # and keeps it when freed
        "kept: reused True",             # for the next array of its size
        "given back True True",
        "restored: mapped True",
    ], run.stdout


@pytest.mark.parametrize("limit, error", [
    (1.5, TypeError), (True, TypeError), ("1GB", TypeError), (-1, ValueError), (1 << 31, ValueError)])
def test_a_limit_that_is_not_a_byte_count_is_refused(limit, error):
    with pytest.raises(error, match="keep_freed_memory: limit must be"):
        V.keep_freed_memory(limit)


def test_off_glibc_nothing_is_changed(monkeypatch):
    monkeypatch.setattr(memory, "_glibc", lambda: None)
    assert V.keep_freed_memory(1 << 20) is False
