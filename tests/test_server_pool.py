"""The server's thread pool: work on the call's thread, and a thread retired once demoted."""

import os
import threading

import pytest

from server.runtime.pool import RetiringPool, niceness, runs_on_retiring_thread


def test_results_exceptions_and_reuse():
    pool = RetiringPool(2, "t")
    assert [pool.submit(lambda x: x * 2, i).result(5) for i in range(20)] == [i * 2 for i in range(20)]
    names = {pool.submit(lambda: threading.current_thread().name).result(5) for _ in range(20)}
    assert names <= {"t_1", "t_2"}  # threads are reused, none started per task
    with pytest.raises(ZeroDivisionError):
        pool.submit(lambda: 1 / 0).result(5)
    assert pool.submit(runs_on_retiring_thread).result(5) and not runs_on_retiring_thread()
    pool.shutdown()
    with pytest.raises(RuntimeError):
        pool.submit(print)


def test_a_demoted_thread_retires_and_the_next_task_gets_a_fresh_one():
    pool = RetiringPool(1, "t")

    def demote():
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness() + 5)
        return threading.current_thread()

    first = pool.submit(demote).result(5)
    first.join(5)
    assert not first.is_alive()  # it retired rather than serve another call at low priority
    second = pool.submit(lambda: (threading.current_thread(), niceness())).result(5)
    assert second[0] is not first and second[1] == niceness()
    pool.shutdown()


def test_many_tasks_queued_on_a_small_pool_all_run():
    pool = RetiringPool(2, "t")
    gate = threading.Event()
    futures = [pool.submit(gate.wait, 5) for _ in range(10)]
    gate.set()
    assert all(f.result(5) for f in futures)
    pool.shutdown()


def test_shutdown_waits_for_running_and_queued_tasks():
    pool = RetiringPool(1, "t")
    gate = threading.Event()
    running = pool.submit(gate.wait, 5)
    queued = [pool.submit(lambda i=i: i) for i in range(3)]
    threading.Timer(0.2, gate.set).start()
    pool.shutdown(wait=True)
    assert running.done() and running.result() is True
    assert [f.result(0) for f in queued] == [0, 1, 2]


def test_shutdown_cancels_queued_tasks_when_asked():
    pool = RetiringPool(1, "t")
    gate = threading.Event()
    running = pool.submit(gate.wait, 5)
    queued = [pool.submit(print) for _ in range(3)]
    pool.shutdown(wait=False, cancel_futures=True)
    assert all(f.cancelled() for f in queued)
    gate.set()
    assert running.result(5) is True


def test_after_shutdown_a_demoted_thread_stays_to_run_what_is_queued():
    pool = RetiringPool(1, "t")
    gate = threading.Event()

    def demote_then_wait():
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness() + 5)
        return gate.wait(5)

    first = pool.submit(demote_then_wait)
    second = pool.submit(lambda: "ran")
    threading.Timer(0.2, gate.set).start()
    pool.shutdown(wait=True)
    assert first.result(0) is True and second.result(0) == "ran"
