"""Bounded work in one process: admission (running + queue) and the watchdog that ends overrunning work."""

from __future__ import annotations

import os
import threading
import time

import pytest

from optimizer.core import CancelToken
from server.runtime.admission import Admission, CallExpired, Overloaded, Watchdog


def test_admission_runs_queues_then_refuses():
    admission = Admission(running=1, waiting=1)
    holding, release = threading.Event(), threading.Event()

    def hold():
        with admission.slot(5):
            holding.set()
            release.wait(5)

    first = threading.Thread(target=hold)
    first.start()
    holding.wait(5)
    outcome = []

    def wait_for_slot():
        try:
            with admission.slot(5):
                outcome.append("ran")
        except BaseException as err:  # noqa: BLE001
            outcome.append(type(err).__name__)

    second = threading.Thread(target=wait_for_slot)
    second.start()
    time.sleep(0.1)  # the second waits in the queue ...
    with pytest.raises(Overloaded):  # ... so a third is refused at once
        with admission.slot(5):
            pass
    release.set()
    first.join()
    second.join()
    assert outcome == ["ran"]
    holding.clear()
    release.clear()
    first = threading.Thread(target=hold)
    first.start()
    holding.wait(5)
    with pytest.raises(CallExpired):  # waiting longer than the deadline
        with admission.slot(0.05):
            pass
    release.set()
    first.join()


def busy_python(seconds: float) -> None:
    """Pure Python that swallows ordinary exceptions, as careless library code might."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            sum(range(1000))
        except Exception:  # noqa: BLE001 - CallExpired is not an Exception: it gets through
            pass


def test_watchdog_ends_python_work_at_the_deadline():
    watchdog, token = Watchdog(), CancelToken()
    start = time.monotonic()
    with pytest.raises(CallExpired):
        with watchdog.watch(token, start + 0.1):
            busy_python(5)
    assert time.monotonic() - start < 0.5 and token.cancelled


def test_watchdog_ends_work_whose_call_was_cancelled_and_leaks_nothing_after():
    watchdog, token = Watchdog(), CancelToken()
    start = time.monotonic()
    with pytest.raises(CallExpired):
        with watchdog.watch(token, None) as entry:
            threading.Timer(0.1, watchdog.end, (entry, "the call was cancelled")).start()
            busy_python(5)
    assert time.monotonic() - start < 0.5 and token.cancelled
    with watchdog.watch(CancelToken(), time.monotonic() + 0.05):
        pass  # done before the deadline ...
    busy_python(0.2)  # ... so nothing is raised here, after it


def test_long_work_is_demoted():
    watchdog = Watchdog()
    niceness = []

    def work():
        with watchdog.watch(CancelToken(), None, demote_after_s=0.05):
            busy_python(0.3)
            niceness.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert niceness and niceness[0] > 0


def test_work_slowed_by_waiting_is_not_demoted():
    """Demotion follows the CPU time the work used, not the wall time: a call slowed only by a busy
    machine (or waiting for the interpreter) keeps its priority."""
    watchdog = Watchdog()
    niceness = []

    def work():
        with watchdog.watch(CancelToken(), None, demote_after_s=0.05):
            time.sleep(0.3)
            niceness.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert niceness == [os.getpriority(os.PRIO_PROCESS, threading.get_native_id())]  # as it started
