"""Reusing large arrays' memory: gengrad's cache of large arrays, and an opt-in for glibc.

Fresh memory is slow: the kernel must find and zero every page of a new array, and on some
machines that costs as much as the arithmetic on it (a fresh 8 MB array 1.7 ms, against
0.2 ms to multiply two).  A training step makes and frees the same large arrays each time.

**The cache** (on by default, every platform): the ops that make most of a large pass's
arrays (products, matrix products and Taylor recurrences, through `empty` and `binary`) make
an array of 128 KiB or more in a buffer gengrad keeps: a free one of that size, or a new one
the cache then keeps, up to `cache_limit()` bytes (256 MiB) and 512 buffers.  A buffer is free when nothing
else refers to it: no array, view or Variable (a view refers to the array that owns the
memory, so one reference count tells).  So the next step reuses the last step's pages.
Between computations the process holds the free buffers; `empty_cache()` gives them back
and `cache_limit(0)` turns the cache off.  Device arrays (CuPy) are left to CuPy's own pool.

**keep_freed_memory** (opt-in, glibc only) works for every array of the process, at the C
library:

NumPy asks the C library for every array's memory.  glibc hands arrays of a few MB back to
the system when they are freed (it unmaps them, or trims the top of its heap), so the next
array of that size starts on pages the kernel must find and zero again: on some machines
that costs as much as the arithmetic (tanh's 10th derivative on 10^6 points by Taylor mode
writes ten fresh 8 MB arrays).  `keep_freed_memory(limit)` tells glibc to serve arrays up to
32 MiB from its heap and to keep up to `limit` bytes of it freed, so a loop that frees and
makes arrays of the same sizes reuses their pages.  The process's peak memory is the same;
between computations it holds up to `limit` bytes more than it uses.  This is what the
environment variables MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ do when set before
Python starts, made possible from inside a running process (a notebook).
"""

import ctypes
import ctypes.util
import os
import sys
import threading
from collections import OrderedDict, deque

import numpy as np

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3      # glibc's mallopt parameters (malloc.h)
_MMAP_THRESHOLD = 32 << 20                         # glibc's largest (HEAP_MAX_SIZE / 2, 64-bit)
_DEFAULT = 128 << 10                               # glibc's starting thresholds


def _glibc():
    """The C library when it is glibc (it has mallopt and malloc_trim), else None."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def keep_freed_memory(limit: int = 1 << 30) -> bool:
    """Keep up to `limit` bytes of freed memory for the next arrays (glibc only; opt-in).

    Arrays up to 32 MiB are then made in the C library's heap, and their pages are reused
    when freed instead of handed back to the system.  Measured on a 2-core VM (one thread):
    tanh's 10th / 20th / 30th derivative on 10^6 points by V.taylor 54 / 124 / 195 ->
    34 / 82 / 143 ms; the Laplacian of a 64-input MLP at 256 points 24 -> 16 ms and its
    training step 59 -> 41 ms; peak memory unchanged (298 -> 307 MB).

    Parameters
    ----------
    limit : int
        Bytes of freed memory kept (glibc's trim threshold).  0 gives the kept memory back
        now and restores glibc's small thresholds (arrays of 128 KiB and more mapped again).

    Returns
    -------
    bool
        True if the C library took the setting; False where it is not glibc (macOS,
        Windows, musl): nothing is changed there.

    Raises
    ------
    TypeError
        If `limit` is not an int.
    ValueError
        If `limit` is negative or does not fit the C library's int.
    """
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"keep_freed_memory: limit must be an int number of bytes, got {limit!r}")
    if not 0 <= limit < 1 << 31:
        raise ValueError(f"keep_freed_memory: limit must be in [0, 2**31) bytes, got {limit}")
    libc = _glibc()
    if libc is None:
        return False
    if limit == 0:
        done = libc.mallopt(_M_MMAP_THRESHOLD, _DEFAULT) and libc.mallopt(_M_TRIM_THRESHOLD, _DEFAULT)
        libc.malloc_trim(0)
        return bool(done)
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD) and libc.mallopt(_M_TRIM_THRESHOLD, limit))


# ----- gengrad's cache of large arrays -----------------------------------------------------
SMALLEST = 128 << 10            # bytes: smaller arrays are NumPy's own
LARGE_INPUT = 16384             # elements an operand of `binary` needs before the cache is asked
_MOST = 512                     # buffers the cache keeps at most
_PROBES = 32                    # buffers of a size one lookup reads at most
_RETRY = 4                      # misses of a full cache before it looks for free buffers
_READS = 64                     # buffers such a look reads at most


def _references(buffers, i):
    return sys.getrefcount(buffers[i])


def _counts_references():
    """(what `_references` reads for a buffer only the cache holds, and whether it reads one
    more when something else holds it too): measured, not assumed, as interpreters differ
    in how they count a call's argument.  A build without the GIL may defer counts: there
    the cache stays off."""
    probe = deque([np.empty(0, np.uint8)])           # (as the cache holds its buffers)
    free = _references(probe, 0)
    held = probe[0]
    works = _references(probe, 0) == free + 1 and getattr(sys, "_is_gil_enabled", lambda: True)()
    del held
    return free, works


_FREE, _COUNTS = _counts_references()


class _Cache:
    """Buffers (1-D uint8 arrays) by size in bytes, each size's last taken first."""

    def __init__(self, limit):
        self.limit = limit
        self.sizes = OrderedDict()               # nbytes -> deque of buffers; the last size used last
        self.held = self.count = self.misses = 0
        self.lock = threading.Lock()             # (between finding a free buffer and viewing it)

    def take(self, nbytes):
        """A free buffer of `nbytes`, else a new one kept, else None (the cache is full).

        A size's buffers are kept in the order they were last taken, the last first: a
        buffer freed soon after it was written is still in the CPU's cache when taken again.
        The work is bounded, however many arrays a program holds:
        - at most _PROBES buffers of the size are read; when all are in use they go to the
          back, so the next look reads others;
        - a full cache looks for free buffers to let go of once every _RETRY misses, reading
          at most _READS (the sizes taken longest ago first), and lets go of enough to leave
          room to spare (an eighth of the limit, a quarter of the buffers)."""
        same = self.sizes.get(nbytes)
        if same is not None:
            self.sizes.move_to_end(nbytes)
            for i in range(min(len(same), _PROBES)):
                if _references(same, i) == _FREE:
                    if i:                        # the last taken first: likeliest in the CPU's
                        buffer = same[i]         # cache when freed again
                        del same[i]
                        same.appendleft(buffer)
                    return same[0]
            if len(same) > _PROBES:              # all in use: the next look reads the ones behind
                same.rotate(-_PROBES)
        if self.held + nbytes > self.limit or self.count >= _MOST:
            self.misses += 1
            if self.misses < _RETRY:
                return None
            self.trim(self.limit - nbytes - self.limit // 8, _MOST - _MOST // 4, reads=_READS)
            if self.held + nbytes > self.limit or self.count >= _MOST:
                return None
        buffer = np.empty(nbytes, np.uint8)
        self.sizes.setdefault(nbytes, deque()).appendleft(buffer)
        self.held += nbytes
        self.count += 1
        return buffer

    def trim(self, limit, most=_MOST, forget=False, reads=None):
        """Free buffers go, the sizes and buffers taken longest ago first, until the cache
        holds at most `limit` bytes in at most `most` buffers; returns the bytes they held.
        `forget`: then buffers in use go too, if still needed (their arrays keep them, and
        free them as NumPy's).  `reads`: at most that many buffers are looked at (None: all)."""
        self.misses = 0
        freed = 0
        left = self.count if reads is None else reads

        def enough():
            return (self.held <= limit and self.count <= most) or not (left or forget)
        for free_only in (True, False) if forget else (True,):
            for nbytes in list(self.sizes):
                same = self.sizes[nbytes]
                for i in range(len(same) - 1, -1, -1):    # each size's taken longest ago first
                    if enough():
                        break
                    left -= 1
                    if _references(same, i) == _FREE:
                        freed += nbytes
                    elif free_only:
                        continue
                    del same[i]
                    self.held -= nbytes
                    self.count -= 1
                if not same:
                    del self.sizes[nbytes]
        return freed

    def in_use(self):
        return sum(nbytes for nbytes, same in self.sizes.items()
                   for i in range(len(same)) if _references(same, i) != _FREE)


_cache = _Cache(256 << 20 if _COUNTS else 0)


def _after_fork():
    """A forked child gets a lock of its own (another thread of the parent may have held
    the parent's when it forked); its buffers are its own copies."""
    _cache.lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def empty(shape, dtype):
    """An uninitialised NumPy array of `shape` and `dtype`, in the cache's memory when it is
    large.  The caller writes every element (it is an `out=`)."""
    nbytes = dtype.itemsize
    for n in shape:
        nbytes *= n
    if nbytes >= SMALLEST and _cache.limit:
        with _cache.lock:
            buffer = _cache.take(nbytes)
            if buffer is not None:
                return buffer.view(dtype).reshape(shape)
    return np.empty(shape, dtype)


def binary(ufunc, a, b):
    """ufunc(a, b) (add, subtract, multiply: the result has the operands' dtype), its result
    in the cache's memory when both are NumPy arrays of one floating dtype and it is large."""
    if (type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype
            and a.dtype.kind in "fc" and (a.size >= LARGE_INPUT or b.size >= LARGE_INPUT)):
        shape = a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)
        return ufunc(a, b, out=empty(shape, a.dtype))
    return ufunc(a, b)


def cache_limit(limit: int | None = None) -> int:
    """The bytes of large arrays gengrad may keep for reuse (default 256 MiB); sets it when given.

    Arrays of 128 KiB and more that gengrad's products, matrix products and Taylor
    recurrences make are made in buffers it keeps, reused once nothing refers to them, so a
    loop of training steps makes its large arrays on pages it already has.  Measured on a
    2-core VM (one thread): the Laplacian of a 64-input MLP at 256 points and its training
    step 20 -> 12 ms and 48 -> 34 ms, with 72 MiB kept over a loop of steps.

    Parameters
    ----------
    limit : int, optional
        Bytes the cache may hold, in use and free.  A smaller limit frees the free buffers
        beyond it and lets go of buffers in use beyond it (their arrays free them, as any
        NumPy array's); 0 turns the cache off.  None only reads the limit.

    Returns
    -------
    int
        The limit before the call.

    Raises
    ------
    TypeError
        If `limit` is not an int or None.
    ValueError
        If `limit` is negative.
    RuntimeError
        If `limit` > 0 where the cache cannot tell a free buffer (a Python without the GIL).
    """
    before = _cache.limit
    if limit is None:
        return before
    if isinstance(limit, bool) or not isinstance(limit, int):
        hint = f"; write int({limit!r})" if isinstance(limit, float) else " (256 MiB: 256 << 20)"
        raise TypeError(f"cache_limit: limit must be an int number of bytes (or None to read it), "
                        f"got {limit!r}{hint}")
    if limit < 0:
        raise ValueError(f"cache_limit: limit must be >= 0 bytes (0 turns the cache off; for a larger "
                         f"cache give its size, such as 1 << 30), got {limit}")
    if limit and not _COUNTS:
        raise RuntimeError("cache_limit: this interpreter does not count references as the cache "
                           "needs (a build without the GIL), so the cache stays off")
    with _cache.lock:
        _cache.limit = limit
        _cache.trim(limit, forget=True)
    return before


def empty_cache() -> int:
    """Free the buffers of gengrad's cache of large arrays that nothing refers to now.

    Returns
    -------
    int
        The bytes freed.  Buffers in use stay cached, counted against the limit.
    """
    with _cache.lock:
        return _cache.trim(0)


def cached_memory() -> tuple[int, int]:
    """(bytes gengrad's cache of large arrays holds, bytes of them in use now)."""
    with _cache.lock:
        return _cache.held, _cache.in_use()


__all__ = ["keep_freed_memory", "cache_limit", "empty_cache", "cached_memory"]
