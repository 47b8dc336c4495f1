"""Bounded work: how many calls run and wait, and work that overruns its deadline ended.

:class:`Admission` lets ``running`` work calls run at once and ``waiting`` more wait (each no
longer than its deadline); any more are refused at once (:class:`Overloaded`, RESOURCE_EXHAUSTED),
so work can never take the threads that health checks and other calls need.

:class:`Watchdog` ends work at its deadline, or as soon as its call is cancelled, whatever stage
it is in. It first trips the work's cancel token, which stops the compiled search (it checks the
token itself, without the GIL); then it raises :class:`CallExpired` in the work's thread, which
stops the pure-Python stages (reading a board, checking routes) at their next bytecode. Work
never outlives its call by more than a few milliseconds of Python. It also lowers the priority of
work that has run long, so that the operating system gives the cores to short calls first.
"""
from __future__ import annotations

import contextlib
import ctypes
import heapq
import itertools
import os
import sys
import threading
import time


class Overloaded(Exception):
    """No room to run or wait: RESOURCE_EXHAUSTED."""


class CallExpired(BaseException):
    """Raised in a work thread whose call's deadline passed or whose call was cancelled.

    A BaseException, so that no ``except Exception`` on the way swallows it.
    """


REFIRE_S = 0.05  # raised again while the work still runs: a finalizer may have swallowed it


def _quiet_unraisable(default):
    """Drop a CallExpired that landed in a finalizer (it is raised again); report anything else."""
    def hook(unraisable):
        if not isinstance(unraisable.exc_value, CallExpired):
            default(unraisable)
    return hook


class Admission:
    """At most ``running`` calls at once and ``waiting`` more queued; the rest refused at once."""

    def __init__(self, running: int, waiting: int):
        self.running, self.waiting = running, waiting
        self._slots = threading.BoundedSemaphore(running)
        self._lock = threading.Lock()
        self._queued = 0

    @contextlib.contextmanager
    def slot(self, timeout_s: float):
        """Hold one running slot for the block; wait at most ``timeout_s`` for it."""
        if not self._slots.acquire(blocking=False):
            with self._lock:
                if self._queued >= self.waiting:
                    raise Overloaded(f"server busy: {self.running} calls running and {self.waiting} waiting; "
                                     "retry later")
                self._queued += 1
            try:
                got = self._slots.acquire(timeout=max(0.0, timeout_s))
            finally:
                with self._lock:
                    self._queued -= 1
            if not got:
                raise CallExpired("the deadline passed while waiting for a free slot")
        try:
            yield
        finally:
            self._slots.release()


def _set_async_exc(thread_id: int, exc) -> None:
    """Raise ``exc`` in that thread at its next bytecode; None clears one not yet raised."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id),
                                               None if exc is None else ctypes.py_object(exc))


DEMOTED_NICENESS = 10  # a long call's thread yields the CPU to newer, shorter calls


class _Watch:
    __slots__ = ("thread_id", "native_id", "token", "deadline", "reason", "active", "fired")

    def __init__(self, token, deadline):
        self.thread_id, self.native_id = threading.get_ident(), threading.get_native_id()
        self.token, self.deadline = token, deadline
        self.reason = None
        self.active, self.fired = True, False


class Watchdog:
    """One thread ending overrunning work (see the module's docstring)."""

    def __init__(self):
        self._lock = threading.Condition()
        self._heap = []
        self._order = itertools.count()
        if not getattr(sys.unraisablehook, "quiet_call_expired", False):
            sys.unraisablehook = _quiet_unraisable(sys.unraisablehook)
            sys.unraisablehook.quiet_call_expired = True
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
        self._thread.start()

    @contextlib.contextmanager
    def watch(self, token, deadline: float | None, demote_after_s: float | None = None):
        """Bound the block, run on this thread: ended at ``deadline`` (time.monotonic) or on :meth:`end`.

        With ``demote_after_s``, the thread's priority is lowered (nice) once the block has run that
        long, so that short calls get the cores first; only for a thread that ends with the call
        (an unprivileged process cannot raise a thread's priority back).
        """
        entry = _Watch(token, deadline)
        events = [] if deadline is None else [(deadline, "end")]
        if demote_after_s is not None:
            events.append((time.monotonic() + demote_after_s, "demote"))
        with self._lock:
            for when, what in events:
                heapq.heappush(self._heap, (when, next(self._order), what, entry))
            self._lock.notify()
        try:
            yield entry
        finally:
            with self._lock:
                entry.active = False
                if entry.fired:  # raised too late to matter, or already raised: never leak it
                    _set_async_exc(entry.thread_id, None)
            if entry.fired and entry.reason:
                raise CallExpired(entry.reason)

    def end(self, entry: _Watch, reason: str) -> None:
        """End the watched work now (its call was cancelled)."""
        entry.token.cancel()
        self._fire(entry, reason)

    def _fire(self, entry: _Watch, reason: str) -> None:
        with self._lock:
            if not entry.active or entry.fired:
                return
            entry.fired, entry.reason = True, reason
            _set_async_exc(entry.thread_id, CallExpired)
            heapq.heappush(self._heap, (time.monotonic() + REFIRE_S, next(self._order), "refire", entry))
            self._lock.notify()

    def _refire(self, entry: _Watch) -> None:
        with self._lock:
            if entry.active:
                _set_async_exc(entry.thread_id, CallExpired)
                heapq.heappush(self._heap, (time.monotonic() + REFIRE_S, next(self._order), "refire", entry))

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._heap:
                    self._lock.wait()
                when, _, what, entry = self._heap[0]
                wait = when - time.monotonic()
                if wait > 0:
                    self._lock.wait(wait)
                    continue
                heapq.heappop(self._heap)
            if not entry.active:
                continue
            if what == "refire":
                self._refire(entry)
            elif what == "demote":
                try:
                    os.setpriority(os.PRIO_PROCESS, entry.native_id, DEMOTED_NICENESS)
                except OSError:  # the thread has just ended
                    pass
            else:
                entry.token.cancel()
                self._fire(entry, "the deadline passed")
