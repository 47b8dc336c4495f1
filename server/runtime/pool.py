"""A thread pool whose threads retire once their priority has been lowered.

The watchdog (:class:`server.runtime.admission.Watchdog`) lowers the priority of a thread whose work has
run long, so that short calls get the cores first; an unprivileged process cannot raise it back.
A thread of this pool checks its priority after each task and, if lowered, ends; the next task
gets a fresh thread. So work can run on the thread that took its call (no hand-over to a thread
of its own per call), and a demoted thread never serves a later call.
"""

from __future__ import annotations

import os
import queue
import threading
from concurrent import futures


def niceness() -> int:
    """This thread's niceness (Linux threads have their own)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


class RetiringPool(futures.Executor):
    """``submit`` as :class:`concurrent.futures.ThreadPoolExecutor` (grpc's server takes it as its
    pool), with threads started on demand up to ``max_workers`` and retired when demoted.

    A retiring thread starts no replacement (it would inherit the lowered priority): the next
    submit does. A task queued while every thread is busy (the server sizes its pools so that
    admitted calls never queue) waits for the next thread to finish or the next submit.
    """

    def __init__(self, max_workers: int, thread_name_prefix: str = "pool"):
        self.max_workers = max_workers
        self._prefix = thread_name_prefix
        self._tasks: queue.SimpleQueue = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)  # one per thread waiting for a task
        self._lock = threading.Lock()
        self._live: set = set()  # the threads running _work
        self._started = 0
        self._shutdown = False

    def submit(self, fn, /, *args, **kwargs) -> futures.Future:
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot submit to a pool that was shut down")
            future: futures.Future = futures.Future()
            self._tasks.put((future, fn, args, kwargs))
            if not self._idle.acquire(blocking=False) and len(self._live) < self.max_workers:
                self._start()
        return future

    def _start(self) -> None:
        self._started += 1
        thread = threading.Thread(target=self._work, name=f"{self._prefix}_{self._started}", daemon=True)
        self._live.add(thread)
        thread.start()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """As :meth:`concurrent.futures.Executor.shutdown`: no more submits; queued tasks are
        cancelled (``cancel_futures``) or run; with ``wait``, returns once all have ended."""
        with self._lock:
            self._shutdown = True
        if cancel_futures:
            while True:
                try:
                    task = self._tasks.get_nowait()
                except queue.Empty:
                    break
                if task is not None:
                    task[0].cancel()
        with self._lock:
            if not self._live and not self._tasks.empty():
                self._start()  # every thread retired: no submit will start one to run what is queued
            threads = list(self._live)
        for _ in threads:
            self._tasks.put(None)
        if wait:
            for thread in threads:
                if thread is not threading.current_thread():
                    thread.join()

    def _work(self) -> None:
        threading.current_thread().retires_when_demoted = True  # type: ignore[attr-defined]  # a mark admission reads
        base = niceness()
        while True:
            task = self._tasks.get()
            if task is None:
                break
            future, fn, args, kwargs = task
            del task
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as err:  # noqa: BLE001 - handed to whoever waits on the future
                    future.set_exception(err)
            del future, fn, args, kwargs  # nothing of a finished call kept alive while idle
            # Demoted: a fresh thread, started by the next submit, takes the next task (after a
            # shutdown no submit comes: the thread stays to run what is queued).
            if niceness() > base and not self._shutdown:
                break
            self._idle.release()
        with self._lock:
            self._live.discard(threading.current_thread())


def runs_on_retiring_thread() -> bool:
    """True on a thread of a :class:`RetiringPool`: work may be demoted in place."""
    return getattr(threading.current_thread(), "retires_when_demoted", False)
