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

import bisect
import contextlib
import ctypes
import math
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
                    raise Overloaded(
                        f"server busy: {self.running} calls running and {self.waiting} waiting; retry later"
                    )
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


class MemoryBudget:
    """At most ``budget`` bytes of requests held at once (a request's bytes stand for the memory its
    reading takes), counted as they arrive; a request alone is always let in, however large."""

    def __init__(self, budget: int):
        self.budget = budget
        self.held_bytes = 0
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def held(self):
        """A :class:`Hold` for one request: what it adds is held until the block ends."""
        hold = Hold(self)
        try:
            yield hold
        finally:
            with self._lock:
                self.held_bytes -= hold.nbytes

    def _add(self, hold: Hold, nbytes: int) -> None:
        with self._lock:
            others = self.held_bytes - hold.nbytes
            if others and self.held_bytes + nbytes > self.budget:
                raise Overloaded(
                    f"server busy: {self.held_bytes / 2**20:.1f} MiB of requests in flight "
                    f"(at most {self.budget / 2**20:g} MiB); retry later"
                )
            self.held_bytes += nbytes
            hold.nbytes += nbytes


class Hold:
    """The bytes one request holds of a :class:`MemoryBudget`."""

    __slots__ = ("budget", "nbytes")

    def __init__(self, budget: MemoryBudget):
        self.budget, self.nbytes = budget, 0

    def add(self, nbytes: int) -> None:
        """Hold ``nbytes`` more, or raise :class:`Overloaded` (and hold nothing more)."""
        self.budget._add(self, nbytes)


def _set_async_exc(thread_id: int, exc) -> None:
    """Raise ``exc`` in that thread at its next bytecode; None clears one not yet raised."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), None if exc is None else ctypes.py_object(exc)
    )


DEMOTED_NICENESS = 10  # a long call's thread yields the CPU to newer, shorter calls


class _Watch:
    __slots__ = (
        "thread_id",
        "native_id",
        "token",
        "reason",
        "active",
        "fired",
        "events",
        "cpu_clock",
        "cpu_start",
        "demote_after_s",
    )

    def __init__(self, token, events: list, demote_after_s: float | None):
        self.thread_id, self.native_id = threading.get_ident(), threading.get_native_id()
        self.token = token
        self.reason: str | None = None
        self.active, self.fired = True, False
        self.events = sorted(events)  # [(time.monotonic, what)], soonest first
        self.demote_after_s = demote_after_s
        if demote_after_s is not None:
            self.cpu_clock = time.pthread_getcpuclockid(self.thread_id)
            self.cpu_start = time.clock_gettime(self.cpu_clock)

    def has_run_long(self) -> bool:
        """Has the work used ``demote_after_s`` of CPU time? (Work slowed only by a busy machine has not.)"""
        limit = self.demote_after_s
        return limit is not None and time.clock_gettime(self.cpu_clock) - self.cpu_start >= limit


class Watchdog:
    """One thread ending overrunning work (see the module's docstring).

    It keeps only the work running now and sleeps until the soonest of their events: work that
    ends before its events (almost every call) costs it nothing, not even a wake-up.
    """

    def __init__(self):
        self._lock = threading.Condition()
        self._active = set()
        self._wake_at = -math.inf  # when the watchdog will look next; -inf while it is looking
        if not getattr(sys.unraisablehook, "quiet_call_expired", False):
            sys.unraisablehook = _quiet_unraisable(sys.unraisablehook)
            sys.unraisablehook.quiet_call_expired = True  # type: ignore[attr-defined]  # installed once
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
        self._thread.start()

    @contextlib.contextmanager
    def watch(self, token, deadline: float | None, demote_after_s: float | None = None):
        """Bound the block, run on this thread: ended at ``deadline`` (time.monotonic) or on :meth:`end`.

        With ``demote_after_s``, the thread's priority is lowered (nice) once the block has used
        that much CPU time (looked at every ``demote_after_s``), so that short calls get the cores first; only for a thread that ends with the call or
        retires when demoted (an unprivileged process cannot raise a thread's priority back).
        """
        events = [] if deadline is None else [(deadline, "end")]
        if demote_after_s is not None:
            events.append((time.monotonic() + demote_after_s, "demote"))
        entry = _Watch(token, events, demote_after_s)
        with self._lock:
            self._active.add(entry)
            self._wake_if_sooner(entry)
        try:
            yield entry
        finally:
            with self._lock:
                entry.active = False
                self._active.discard(entry)
                if entry.fired:  # raised too late to matter, or already raised: never leak it
                    _set_async_exc(entry.thread_id, None)
            if entry.fired and entry.reason:
                raise CallExpired(entry.reason)

    def end(self, entry: _Watch, reason: str) -> None:
        """End the watched work now (its call was cancelled)."""
        entry.token.cancel()
        self._fire(entry, reason)

    def _wake_if_sooner(self, entry: _Watch) -> None:
        """(Under the lock.) Wake the watchdog when this entry's next event comes before its wake-up."""
        if entry.events and entry.events[0][0] < self._wake_at:
            self._lock.notify()

    def _fire(self, entry: _Watch, reason: str) -> None:
        with self._lock:
            if not entry.active or entry.fired:
                return
            entry.fired, entry.reason = True, reason
            self._raise_again_later(entry)

    def _raise_again_later(self, entry: _Watch) -> None:
        """(Under the lock.) Raise in the work's thread now, and again soon while it still runs."""
        _set_async_exc(entry.thread_id, CallExpired)
        bisect.insort(entry.events, (time.monotonic() + REFIRE_S, "refire"))
        self._wake_if_sooner(entry)

    def _due(self) -> list:
        """(Under the lock.) The events come due, taken off their entries; else sleep until the next."""
        now, due, wake = time.monotonic(), [], math.inf
        for entry in self._active:
            while entry.events and entry.events[0][0] <= now:
                due.append((entry, entry.events.pop(0)[1]))
            if entry.events:
                wake = min(wake, entry.events[0][0])
        if not due:
            self._wake_at = wake
            self._lock.wait(None if wake == math.inf else wake - now)
            self._wake_at = -math.inf
        return due

    def _demote(self, entry: _Watch) -> None:
        """(Under the lock.) Lower the priority of work that has run long; else look again later."""
        try:
            if entry.has_run_long():
                os.setpriority(os.PRIO_PROCESS, entry.native_id, DEMOTED_NICENESS)
                return
        except OSError:  # the thread has just ended
            return
        if entry.demote_after_s is not None:
            bisect.insort(entry.events, (time.monotonic() + entry.demote_after_s, "demote"))

    def _run(self) -> None:
        while True:
            with self._lock:  # so that no event acts on work that has just ended (its thread reused)
                for entry, what in self._due():
                    if not entry.active:
                        continue
                    if what == "refire":
                        self._raise_again_later(entry)
                    elif what == "demote":
                        self._demote(entry)
                    elif not entry.fired:  # its deadline
                        entry.token.cancel()
                        entry.fired, entry.reason = True, "the deadline passed"
                        self._raise_again_later(entry)
