"""no_grad / enable_grad / test_mode: nesting, and locality to a thread and to a task."""

import asyncio
import threading

import pytest

import variable as V


def records_graph():
    """True when an op on a Variable records its creator right now."""
    return (V.Variable(1.0) * 2).creator is not None


def test_defaults():
    assert V.is_backprop_enabled()
    assert V.is_train()
    assert records_graph()


def test_no_grad_records_no_graph():
    x = V.Variable(2.0)
    with V.no_grad():
        assert not V.is_backprop_enabled()
        y = V.sin(x) * x
    assert y.creator is None
    assert V.is_backprop_enabled()


def test_nested_no_grad_restores_the_previous_value():
    with V.no_grad():
        with V.no_grad():
            assert not records_graph()
        assert not records_graph()          # the inner exit must not turn recording back on
        with V.enable_grad():
            assert records_graph()
            with V.no_grad():
                assert not records_graph()
            assert records_graph()
        assert not records_graph()
    assert records_graph()


def test_no_grad_restores_after_an_exception():
    with pytest.raises(RuntimeError):
        with V.no_grad():
            raise RuntimeError("boom")
    assert records_graph()


def test_no_grad_as_a_decorator():
    @V.no_grad()
    def infer(x):
        return x * 2

    assert infer(V.Variable(1.0)).creator is None
    assert infer(V.Variable(1.0)).creator is None     # usable more than once
    assert records_graph()


def test_test_mode_nests_and_restores():
    with V.test_mode():
        assert not V.is_train()
        with V.test_mode():
            assert not V.is_train()
        assert not V.is_train()
        assert records_graph()                        # test mode does not imply no_grad
    assert V.is_train()


def test_no_grad_in_one_thread_does_not_affect_another():
    barrier = threading.Barrier(2, timeout=10)
    seen = {}

    def quiet():
        with V.no_grad():
            barrier.wait()        # 1: the other thread runs while we are inside no_grad
            seen["quiet"] = records_graph()
            barrier.wait()        # 2
        seen["quiet after"] = records_graph()

    def busy():
        barrier.wait()            # 1
        seen["busy"] = records_graph()
        barrier.wait()            # 2

    threads = [threading.Thread(target=quiet), threading.Thread(target=busy)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert seen == {"quiet": False, "busy": True, "quiet after": True}


def test_no_grad_in_one_thread_leaves_the_main_thread_alone():
    inside, release = threading.Event(), threading.Event()

    def worker():
        with V.no_grad():
            inside.set()
            release.wait(timeout=10)

    t = threading.Thread(target=worker)
    t.start()
    try:
        assert inside.wait(timeout=10)
        assert records_graph()
    finally:
        release.set()
        t.join(timeout=10)


def test_no_grad_in_one_task_does_not_affect_another():
    seen = {}

    async def quiet(entered, done):
        with V.no_grad():
            entered.set()
            await done.wait()        # the other task runs while we are inside no_grad
            seen["quiet"] = records_graph()
        seen["quiet after"] = records_graph()

    async def busy(entered, done):
        await entered.wait()
        seen["busy"] = records_graph()
        done.set()

    async def main():
        entered, done = asyncio.Event(), asyncio.Event()
        await asyncio.gather(quiet(entered, done), busy(entered, done))

    asyncio.run(main())
    assert seen == {"quiet": False, "busy": True, "quiet after": True}
