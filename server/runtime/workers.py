"""``serve --workers N``: N pre-forked server processes sharing one port, and their supervisor.

CPU-bound Python scales by processes. As in grpc's ``examples/python/multiprocessing``, the
supervisor reserves the port with ``SO_REUSEPORT`` and forks the workers before any grpc server
exists (it never imports grpc); each worker runs the whole server (:func:`server.app.serve`: its
listeners, limits, health and drain) on that port, and the kernel spreads connections over them.
The supervisor loads the optimiser first, so the workers share its pages until they write them.

It announces ``listening on HOST:PORT`` once every worker listens; forwards SIGTERM, SIGINT and
SIGHUP to the workers and exits when they are done (killing any still there 0.7 s after the
grace period); and starts a new worker in place of one that dies unasked, or that stops
answering: each worker sends a heartbeat every ``HEARTBEAT_S`` from a thread of its own (which
needs the GIL, so a worker stopped, or stuck in C holding the GIL, falls silent), and one silent
for ``HEARTBEAT_TIMEOUT_S`` is killed and replaced (the kernel would go on giving it connections).
"""

from __future__ import annotations

import ctypes
import gc
import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
from dataclasses import replace

from optimizer.errors import OptimizerError

from .config import ServeConfig, announcement, tls_files
from .process import STOP_SIGNALS

log = logging.getLogger(__name__)

START_TIMEOUT_S = 60
EXIT_MARGIN_S = 0.7  # after the grace period, workers still running are killed
RESTARTS_PER_MINUTE = 10  # more than this and the supervisor gives up (a worker that cannot live)
HEARTBEAT_S = 0.5
HEARTBEAT_TIMEOUT_S = 3.0  # a worker silent this long is killed and replaced


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def reserve_port(host: str, port: int, what: str = "", option: str = "--port") -> tuple:
    """(port, socket holding it): free when asked, then held with SO_REUSEPORT for the workers.

    The first bind, without SO_REUSEPORT, fails if anything listens there (even another server
    sharing its port), so a port in use is an error rather than silently shared.
    """
    address = host.strip("[]")
    try:
        family, _, _, _, sockaddr = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(sockaddr)
            port = probe.getsockname()[1]
        holder = socket.socket(family, socket.SOCK_STREAM)
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        holder.bind((sockaddr[0], port) + tuple(sockaddr[2:]))
    except OSError as err:
        raise OptimizerError(f"cannot listen on {host}:{port}{what}: {err.strerror or err}", field=option) from None
    return port, holder


# The collector's thresholds in a server process. A full collection walks every cached board part
# (~50 ms for the public corpus' worth), and every call in flight in the process waits it out: at
# most one per 1000 collections of the middle generation (measured: one per ~50,000 answers,
# against one per ~100 new boards by default); the young generations, where a call's own cycles
# die, are collected as often as ever.
GC_THRESHOLDS = (700, 10, 1000)


def preload() -> None:
    """Load the optimiser (games, schema, compiled core, every game's static data) once: before
    forking, for every worker, or in the one server process."""
    from optimizer import api

    api.games()
    api.warm_up()
    gc.freeze()  # shared with the workers, untouched by their collectors (copy-on-write stays shared)
    gc.set_threshold(*GC_THRESHOLDS)


def _die_with_parent() -> None:
    """Linux: this worker gets SIGTERM if the supervisor dies (no orphans holding the port)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _beat(heart) -> None:
    """The worker's heartbeat, until the process ends (or the supervisor is gone)."""
    try:
        while True:
            heart.send_bytes(b".")
            time.sleep(HEARTBEAT_S)
    except OSError:
        pass


def _ready(ready, heart, ports) -> None:
    ready.send(("ready", ports))
    threading.Thread(target=_beat, args=(heart,), name="heartbeat", daemon=True).start()


def _worker(serve, config: ServeConfig, ready, heart, holders: list) -> None:
    """A worker process: the whole server on the shared ports; tells the supervisor when it listens,
    then beats."""
    for holder in holders:
        holder.close()
    _die_with_parent()
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    try:
        serve(config, on_ready=lambda ports: _ready(ready, heart, ports))  # grpc, first imported here, after the fork
    except OptimizerError as err:
        ready.send(("error", str(err)))
        os._exit(2)
    except BaseException as err:  # reported to the supervisor, which logs it
        log.exception("worker failed")
        ready.send(("error", f"worker failed: {type(err).__name__}: {err}"))
        os._exit(1)


class Supervisor:
    """Starts, watches, restarts and stops the worker processes."""

    def __init__(self, config: ServeConfig, workers: int, holders: list, serve):
        self.config, self.count, self.holders, self.serve = config, workers, holders, serve
        self._context = multiprocessing.get_context("fork")
        self.processes: list = [None] * workers
        self.hearts: list = [None] * workers  # each worker's heartbeat pipe, and when it last beat
        self.last_beat = [0.0] * workers
        self._restarts: list = []

    def start(self, slot: int):
        receive, send = self._context.Pipe(duplex=False)
        heart, beat = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_worker,
            args=(self.serve, self.config, send, beat, self.holders),
            name=f"route18xx-worker-{slot}",
            daemon=False,
        )
        process.start()
        send.close()
        beat.close()
        if self.hearts[slot] is not None:
            self.hearts[slot].close()
        self.processes[slot], self.hearts[slot] = process, heart
        return receive

    def start_all(self) -> None:
        waiting = [self.start(slot) for slot in range(self.count)]
        for slot, receive in enumerate(waiting):
            self._wait_ready(slot, receive)

    def _wait_ready(self, slot: int, receive) -> None:
        message = ("error", f"worker {slot} did not start in {START_TIMEOUT_S} s")
        try:
            if receive.poll(START_TIMEOUT_S):
                message = receive.recv()
        except EOFError:
            message = ("error", f"worker {slot} exited while starting")
        finally:
            receive.close()
        if message[0] != "ready":
            self.kill_all()
            raise OptimizerError(message[1], field="--port")
        self.last_beat[slot] = time.monotonic()
        log.info("worker %d listening (pid %d)", slot, self.processes[slot].pid)

    def kill_silent(self) -> None:
        """Kill each worker whose heartbeat has not come for HEARTBEAT_TIMEOUT_S (replace_dead replaces it)."""
        now = time.monotonic()
        for slot, (process, heart) in enumerate(zip(self.processes, self.hearts)):
            try:
                while heart.poll(0):
                    heart.recv_bytes()
                    self.last_beat[slot] = now
            except (EOFError, OSError):
                continue  # it has exited: replace_dead sees to it
            silent = now - self.last_beat[slot]
            if silent > HEARTBEAT_TIMEOUT_S and process.exitcode is None:
                log.warning(
                    "worker %d (pid %d) stopped answering (no heartbeat for %.1f s); killing it",
                    slot,
                    process.pid,
                    silent,
                )
                process.kill()
                process.join(5)

    def replace_dead(self) -> None:
        """Start a new worker for each that died; give up if they keep dying."""
        for slot, process in enumerate(self.processes):
            if process.exitcode is None:
                continue
            log.warning(
                "worker %d (pid %d) exited with status %s; starting another", slot, process.pid, process.exitcode
            )
            now = time.monotonic()
            self._restarts = [t for t in self._restarts if now - t < 60] + [now]
            if len(self._restarts) > RESTARTS_PER_MINUTE:
                raise OptimizerError(
                    f"workers keep dying ({len(self._restarts)} in a minute); stopping", field="--workers"
                )
            self._wait_ready(slot, self.start(slot))

    def stop_all(self, grace_s: float) -> None:
        """Forward the stop to every worker; kill those still there after the grace and a margin."""
        for process in self.processes:
            if process.exitcode is None:
                os.kill(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s + EXIT_MARGIN_S
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))
        self.kill_all()

    def kill_all(self) -> None:
        for process in self.processes:
            if process is not None and process.exitcode is None:
                process.kill()
                process.join()


def serve_workers(config: ServeConfig, workers: int, *, serve, announce=print) -> int:
    """Run ``workers`` server processes on one port until a stop signal; returns the exit status.

    ``serve(config, on_ready=...)`` runs one server process (:func:`server.app.serve`); it is called in
    each forked worker, and must not have imported grpc before then."""
    tls_files(config)  # a bad certificate or key is named before anything starts
    port, holder = reserve_port(config.host, config.port)
    holders, http_port = [holder], None
    try:
        if config.http_port is not None:
            http_port, http_holder = reserve_port(config.host, config.http_port, " for HTTP", "--http-port")
            holders.append(http_holder)
    except BaseException:
        holder.close()
        raise
    stop = threading.Event()
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda signum, frame: stop.set())
    preload()
    supervisor = Supervisor(replace(config, port=port, http_port=http_port, reuse_port=True), workers, holders, serve)
    try:
        supervisor.start_all()
        announce(announcement(config, port, http_port) + f" ({workers} workers)")
        while not stop.wait(0.2):
            supervisor.kill_silent()
            supervisor.replace_dead()
        log.info("stopping %d workers (grace %.1f s)", workers, config.grace_s)
        supervisor.stop_all(config.grace_s)
    except BaseException:
        supervisor.kill_all()
        raise
    finally:
        for holder in holders:
            holder.close()
    log.info("stopped")
    return 0
