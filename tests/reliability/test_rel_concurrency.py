"""no_grad() and test_mode() are local to a thread and to an asyncio task, under interleaving.

tests/variable/test_config.py already shows no_grad in one thread (and one task) leaving
another alone.  Here: test_mode the same way, both settings at once in different threads
interleaved step by step with threading.Barrier, dropout and batch norm behaving
differently in two threads (and two tasks) at the same moment, threads started inside a
context, tasks created inside one, and a stress run of threads toggling the settings
while they differentiate.
"""

import asyncio
import gc
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import function as F
import layers as L
import variable as V

TIMEOUT = 10


def records_graph():
    """True when an op on a Variable records its creator right now."""
    return (V.Variable(1.0) * 2).creator is not None


def state():
    return {"backprop": V.is_backprop_enabled(), "records": records_graph(), "train": V.is_train()}


DEFAULT = {"backprop": True, "records": True, "train": True}


def run_threads(*targets):
    """Run each target in its own thread; re-raise the first exception any of them raised."""
    errors = []

    def guarded(target):
        try:
            target()
        except BaseException as error:  # noqa: BLE001 (reported below, in the main thread)
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=TIMEOUT)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


def test_test_mode_in_one_thread_does_not_leak_into_another():
    barrier = threading.Barrier(2, timeout=TIMEOUT)
    seen = {}

    def evaluating():
        with V.test_mode():
            barrier.wait()                      # 1: the other thread looks while we are inside
            seen["evaluating, inside"] = state()
            barrier.wait()                      # 2
        seen["evaluating, after"] = state()
        barrier.wait()                          # 3

    def training():
        barrier.wait()                          # 1
        seen["training, while the other evaluates"] = state()
        with V.test_mode():                     # and the other way round
            barrier.wait()                      # 2
            barrier.wait()                      # 3: the other has left its test_mode meanwhile
            seen["training, inside its own"] = state()
        seen["training, after"] = state()

    run_threads(evaluating, training)
    assert seen == {
        "evaluating, inside": {**DEFAULT, "train": False},
        "evaluating, after": DEFAULT,
        "training, while the other evaluates": DEFAULT,
        "training, inside its own": {**DEFAULT, "train": False},
        "training, after": DEFAULT,
    }


def test_no_grad_and_test_mode_in_two_threads_step_by_step():
    rounds = 25
    barrier = threading.Barrier(2, timeout=TIMEOUT)
    log = {"a": [], "b": []}

    def worker(name, context, expected):
        for _ in range(rounds):
            barrier.wait()
            with context():
                barrier.wait()                  # both inside their own context at once
                log[name].append(state() == expected)
                barrier.wait()
            log[name].append(state() == DEFAULT)

    run_threads(lambda: worker("a", V.no_grad, {"backprop": False, "records": False, "train": True}),
                lambda: worker("b", V.test_mode, {"backprop": True, "records": True, "train": False}))
    assert log["a"] == [True] * (2 * rounds) and log["b"] == [True] * (2 * rounds)


def _dropout_outcomes(x, p):
    """(identity, masked) for F.dropout(x, p) and an L.Dropout layer, in the current mode."""
    y = F.dropout(x, p)
    z = L.Dropout(p)(x)
    outcomes = []
    for out in (y, z):
        kept = out.data != 0
        scaled = np.allclose(out.data[kept], x.data[kept] / (1 - p))
        outcomes.append((out is x or np.array_equal(out.data, x.data), bool((~kept).any()) and scaled))
    return outcomes


def test_dropout_and_batch_norm_in_two_threads_at_once():
    x = V.Variable(np.random.default_rng(0).uniform(0.5, 1.5, (50, 4)))
    barrier = threading.Barrier(2, timeout=TIMEOUT)
    seen = {}
    stats = {name: (np.zeros(4), np.ones(4)) for name in ("evaluating", "training")}

    def run(name, evaluate):
        def body():
            mean, var = stats[name]
            context = V.test_mode() if evaluate else V.enable_grad()
            with context:
                for _ in range(20):
                    barrier.wait()              # both threads call dropout at the same moment
                    seen.setdefault(name, []).append(_dropout_outcomes(x, 0.5))
                    F.batch_norm(x, np.ones(4), np.zeros(4), mean, var)
        return body

    run_threads(run("evaluating", True), run("training", False))
    assert all(o == [(True, False), (True, False)] for o in seen["evaluating"])   # the identity
    assert all(o == [(False, True), (False, True)] for o in seen["training"])      # masked, scaled
    np.testing.assert_array_equal(stats["evaluating"][0], np.zeros(4))             # not updated
    np.testing.assert_array_equal(stats["evaluating"][1], np.ones(4))
    assert not np.allclose(stats["training"][0], 0)                                 # updated


@pytest.mark.skipif(getattr(sys.flags, "thread_inherit_context", 0) == 1,
                    reason="threads inherit the context on this interpreter")
def test_a_thread_started_inside_a_context_starts_from_the_defaults():
    seen = {}

    def child():
        seen["child"] = state()

    with V.no_grad(), V.test_mode():
        run_threads(child)
        seen["parent"] = state()
    assert seen == {"child": DEFAULT, "parent": {"backprop": False, "records": False, "train": False}}


def test_test_mode_in_one_task_does_not_leak_into_another():
    seen = {}

    async def evaluating(entered, looked):
        with V.test_mode(), V.no_grad():
            entered.set()
            await looked.wait()                 # the other task runs while we are inside
            seen["evaluating"] = state()
        seen["evaluating, after"] = state()

    async def training(entered, looked):
        await entered.wait()
        seen["training"] = state()
        seen["dropout"] = _dropout_outcomes(V.Variable(np.ones((20, 5))), 0.5)
        looked.set()

    async def main():
        entered, looked = asyncio.Event(), asyncio.Event()
        await asyncio.gather(evaluating(entered, looked), training(entered, looked))

    asyncio.run(main())
    assert seen["evaluating"] == {"backprop": False, "records": False, "train": False}
    assert seen["evaluating, after"] == DEFAULT
    assert seen["training"] == DEFAULT
    assert seen["dropout"] == [(False, True), (False, True)]


def test_dropout_in_two_tasks_interleaved():
    x = V.Variable(np.random.default_rng(1).uniform(0.5, 1.5, (30, 3)))
    outcomes = {"evaluating": [], "training": []}

    async def worker(name, evaluate):
        for _ in range(10):
            if evaluate:
                with V.test_mode():
                    await asyncio.sleep(0)      # yield inside the context: the other task runs
                    outcomes[name].append(_dropout_outcomes(x, 0.3))
            else:
                await asyncio.sleep(0)
                outcomes[name].append(_dropout_outcomes(x, 0.3))

    async def main():
        await asyncio.gather(worker("evaluating", True), worker("training", False))

    asyncio.run(main())
    assert outcomes["evaluating"] == [[(True, False), (True, False)]] * 10
    assert outcomes["training"] == [[(False, True), (False, True)]] * 10


def test_a_task_keeps_its_own_copy_of_the_context():
    """A task created inside no_grad starts inside it (asyncio copies the context), but what it
    changes afterwards stays in the task, and the parent leaving no_grad does not reach it."""
    seen = {}

    async def child(parent_left):
        seen["child, at start"] = state()
        await parent_left.wait()
        seen["child, after the parent left"] = state()
        with V.enable_grad():
            seen["child, enable_grad"] = state()

    async def main():
        parent_left = asyncio.Event()
        with V.no_grad():
            task = asyncio.create_task(child(parent_left))
            await asyncio.sleep(0)
        seen["parent, after"] = state()
        parent_left.set()
        await task
        seen["parent, at the end"] = state()

    asyncio.run(main())
    off = {"backprop": False, "records": False, "train": True}
    assert seen == {"child, at start": off, "parent, after": DEFAULT, "child, after the parent left": off,
                    "child, enable_grad": DEFAULT, "parent, at the end": DEFAULT}


def test_threads_toggling_settings_while_differentiating():
    """Four threads, each checking after every toggle that it alone decides what it records;
    the gradients computed meanwhile are exact, and the collector ends enabled."""
    def worker(seed):
        rng = np.random.default_rng(seed)
        failures = 0
        for _ in range(150):
            x = V.Variable(rng.uniform(-1, 1, 4))
            if rng.random() < 0.5:
                with V.no_grad():
                    failures += V.tanh(x).creator is not None
                    failures += V.is_backprop_enabled()
            else:
                with V.test_mode():
                    y = V.sum(V.tanh(x) ** 2)
                    g = V.grad(y, x, create_graph=True)           # backward passes in parallel
                    failures += not np.allclose(g.data, 2 * np.tanh(x.data) * (1 - np.tanh(x.data) ** 2))
                    failures += V.is_train()
            failures += not V.is_backprop_enabled() or not V.is_train()
        return failures

    assert gc.isenabled()
    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = list(pool.map(worker, range(4)))
    assert failures == [0, 0, 0, 0]
    assert gc.isenabled()                    # backward pauses the collector; it must come back on
