"""gengrad's cache of large arrays (variable/memory.py): a product or matrix product of 128 KiB
or more takes a buffer nothing refers to, and never one that an array, a view or a Variable
still uses."""

import threading

import numpy as np
import pytest

import variable as V
from variable import memory
from variable.ops.matmul import product

N = 256                                          # (N, N) float64: 512 KiB, cached


@pytest.fixture(autouse=True)
def fresh_cache():
    """Each test starts with an empty cache at the default limit, and leaves it so."""
    limit = V.cache_limit()
    V.empty_cache()
    yield
    V.cache_limit(limit)
    V.empty_cache()


def address(a):
    return a.__array_interface__["data"][0]


def arrays(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((N, N)), rng.standard_normal((N, N))


def test_this_interpreter_tells_a_free_buffer_from_one_in_use():
    free, works = memory._counts_references()
    assert works and free == memory._FREE
    buffers = [np.empty(8, np.uint8)]
    assert memory._references(buffers, 0) == free
    view = buffers[0][2:]
    assert memory._references(buffers, 0) == free + 1
    del view
    assert memory._references(buffers, 0) == free


def test_a_freed_product_s_buffer_is_reused():
    a, b = arrays()
    x, y = V.Variable(a), V.Variable(b)
    first = x * y
    where = address(first.data)
    del first
    second = x * y
    assert address(second.data) == where
    np.testing.assert_array_equal(second.data, a * b)


def test_a_product_in_use_is_never_written():
    a, b = arrays()
    x, y = V.Variable(a), V.Variable(b)
    kept = x * y
    other = y * y
    assert not np.shares_memory(kept.data, other.data)
    np.testing.assert_array_equal(kept.data, a * b)
    np.testing.assert_array_equal(other.data, b * b)


def test_a_view_alone_keeps_its_buffer():
    a, b = arrays()
    x, y = V.Variable(a), V.Variable(b)
    corner = (x * y).data[:3, ::2]               # the product itself is gone; the view stays
    expected = (a * b)[:3, ::2]
    for _ in range(3):
        other = x * x
        assert not np.shares_memory(corner, other.data)
    np.testing.assert_array_equal(corner, expected)


def test_matrix_products_and_their_gradients_reuse_and_agree():
    a, b = arrays(1)
    tall = np.random.default_rng(2).standard_normal((20000, 16))
    w = V.Variable(np.random.default_rng(3).standard_normal((16, 32)))
    for _ in range(3):                           # the second and third steps reuse the first's
        x = V.Variable(tall)
        loss = V.sum(V.tanh(x @ w) * (x @ w))
        loss.backward()
        z = tall @ w.data
        expected = tall.T @ ((1 - np.tanh(z) ** 2) * z + np.tanh(z))
        np.testing.assert_allclose(w.grad.data, expected, rtol=1e-10)
        w.cleargrad()
    np.testing.assert_allclose(product(a, b), a @ b, rtol=1e-12)
    del x, loss
    held, used = V.cached_memory()
    assert held > 0 and used == 0                 # (the loop's arrays are all gone)


def test_a_laplacian_training_step_gives_the_same_gradients_each_time():
    rng = np.random.default_rng(4)
    W1, W2 = V.Variable(rng.standard_normal((8, 64)) / 3), V.Variable(rng.standard_normal((64, 1)) / 8)
    x = rng.uniform(-1, 1, (512, 8))           # (8 x 512 rows of 64: 2 MiB coefficients)

    def step():
        lap = V.laplacian(lambda X: V.tanh(X @ W1) @ W2, x)
        return [g.data.copy() for g in V.grad(V.mean(lap ** 2), [W1, W2])]
    first = step()
    assert V.cached_memory()[0] > 0
    for _ in range(2):
        for g, f in zip(step(), first):
            np.testing.assert_array_equal(g, f)


def test_limit_zero_turns_the_cache_off_and_frees_it():
    a, b = arrays()
    x, y = V.Variable(a), V.Variable(b)
    kept = x * y
    assert V.cached_memory() == (a.nbytes, a.nbytes)
    gone = x * x
    del gone
    assert V.cached_memory() == (2 * a.nbytes, a.nbytes)
    assert V.cache_limit(0) == 256 << 20          # the previous limit
    assert V.cached_memory() == (0, 0)            # the free buffer freed, the one in use let go
    del kept
    other = x * x
    assert V.cached_memory() == (0, 0)            # (made by NumPy, not kept)
    np.testing.assert_array_equal(other.data, a * a)


def test_a_full_cache_leaves_new_arrays_to_numpy_then_lets_free_buffers_go():
    a, b = arrays()
    x, y = V.Variable(a), V.Variable(b)
    V.cache_limit(2 * a.nbytes)
    held = [x * y, x * x, y * y]                  # the third does not fit: NumPy's own
    assert V.cached_memory() == (2 * a.nbytes, 2 * a.nbytes)
    np.testing.assert_array_equal(held[2].data, b * b)
    held.pop(0)                                   # x * y's buffer is free now
    smaller = []
    while V.cached_memory()[0] == 2 * a.nbytes and len(smaller) < 2 * memory._RETRY:
        smaller.append(V.Variable(np.ones((N, N // 2))) * 2.0)
    assert len(smaller) <= memory._RETRY          # within _RETRY misses it lets the free one go
    assert V.cached_memory() == (a.nbytes + a.nbytes // 2, a.nbytes + a.nbytes // 2)
    too_big = [V.Variable(np.ones((N, 2 * N))) * 2.0 for _ in range(2 * memory._RETRY)]
    assert V.cached_memory() == (a.nbytes + a.nbytes // 2, a.nbytes + a.nbytes // 2)
    for z in smaller + too_big:
        np.testing.assert_array_equal(z.data, 2.0)


def test_a_lookup_reads_few_buffers_however_many_arrays_are_held():
    x = V.Variable(np.random.default_rng(7).standard_normal((128, 128)))   # 128 KiB: cached
    V.cache_limit(300 * x.data.nbytes)
    held = [x * float(i) for i in range(320)]     # 300 in use fill it, then NumPy's
    assert V.cached_memory() == (300 * x.data.nbytes, 300 * x.data.nbytes)
    reads = []
    real = memory._references

    def counted(buffers, i):
        reads.append(i)
        return real(buffers, i)
    memory._references = counted
    try:
        extra = [x * 2.0 for _ in range(memory._RETRY)]   # (one of them looks for free ones)
    finally:
        memory._references = real
    assert len(reads) <= memory._RETRY * memory._PROBES + memory._READS < 300
    for z in extra:
        np.testing.assert_array_equal(z.data, x.data * 2.0)
    for i in (0, 299, 319):
        np.testing.assert_array_equal(held[i].data, x.data * float(i))


def test_a_free_buffer_behind_many_in_use_is_found_by_a_later_look():
    x = V.Variable(np.random.default_rng(8).standard_normal((128, 128)))
    n = memory._PROBES + 8
    held = [x * float(i) for i in range(n)]       # the first made is read last
    del held[0]
    first, second = x * 2.0, x * 3.0              # the first look reads only buffers in use
    assert V.cached_memory() == ((n + 1) * x.data.nbytes, (n + 1) * x.data.nbytes)
    np.testing.assert_array_equal(first.data, x.data * 2.0)
    np.testing.assert_array_equal(second.data, x.data * 3.0)
    np.testing.assert_array_equal(held[-1].data, x.data * float(n - 1))


def test_empty_cache_keeps_buffers_in_use():
    a, b = arrays()
    x, y = V.Variable(a), V.Variable(b)
    kept, gone = x * y, x * x
    del gone
    assert V.empty_cache() == a.nbytes
    assert V.cached_memory() == (a.nbytes, a.nbytes)
    np.testing.assert_array_equal(kept.data, a * b)


def test_threads_never_share_a_buffer():
    a, b = arrays()
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        c = rng.standard_normal((N, N))
        x, y = V.Variable(a), V.Variable(c)
        for _ in range(50):
            z = x * y
            w = y * y
            if not (np.array_equal(z.data, a * c) and np.array_equal(w.data, c * c)):
                errors.append(seed)
                return
    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


FORK_WITH_THE_LOCK_HELD = """
import os, signal, numpy as np, variable as V
from variable import memory
a = np.random.default_rng(0).standard_normal((256, 256))
x = V.Variable(a)
x * x                                             # (its buffer: free in the cache)
memory._cache.lock.acquire()                      # as another thread would, mid-lookup
pid = os.fork()
if pid == 0:                                      # the child: must not wait on the lock
    signal.alarm(20)                              # (if it does, this ends it: the run fails)
    ok = np.array_equal((x * x).data, a * a) and V.cached_memory()[0] == a.nbytes
    os._exit(0 if ok else 1)
memory._cache.lock.release()
_, status = os.waitpid(pid, 0)
raise SystemExit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork on this platform")
def test_a_forked_child_uses_the_cache_even_if_a_thread_held_its_lock():
    # in a process of its own: the test session's other libraries (JAX) run threads that
    # make a fork unsafe there
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", FORK_WITH_THE_LOCK_HELD], cwd=root, timeout=120,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_small_arrays_other_dtypes_and_mixed_operands_are_numpy_s_own():
    small = V.Variable(np.ones((10, 10))) * V.Variable(np.ones((10, 10)))
    ints = V.Variable(np.ones((N, N), dtype=np.int64)) * V.Variable(np.ones((N, N), dtype=np.int64))
    mixed = V.Variable(np.ones((N, N), dtype=np.float32)) * V.Variable(np.ones((N, N)))
    assert V.cached_memory() == (0, 0)
    assert ints.dtype == np.int64 and mixed.dtype == np.float64 and small.shape == (10, 10)


def test_binary_broadcasts_as_numpy_does():
    a = np.random.default_rng(5).standard_normal((64, 1, 64))
    b = np.random.default_rng(6).standard_normal((256, 64))
    np.testing.assert_array_equal(memory.binary(np.multiply, a, b), a * b)
    np.testing.assert_array_equal(memory.binary(np.subtract, b, a), b - a)


@pytest.mark.parametrize("limit, error, words", [
    ("256MB", TypeError, "int number of bytes"),
    (2.0 ** 28, TypeError, "int number of bytes"),
    (True, TypeError, "int number of bytes"),
    (-1, ValueError, ">= 0"),
])
def test_cache_limit_refuses_what_is_not_a_size(limit, error, words):
    with pytest.raises(error, match=words):
        V.cache_limit(limit)
    assert V.cache_limit() == 256 << 20
