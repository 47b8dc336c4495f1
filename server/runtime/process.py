"""One server process's life: start its listeners, wait for a stop signal, drain, leave.

SIGTERM, SIGINT or SIGHUP set every health status to NOT_SERVING, then drain: calls in flight get
``grace_s`` seconds, after which they are cancelled (which stops their work, whatever stage it is in)
and the process exits, at the latest 0.4 s later even if something would not stop. What listens is
the caller's (:func:`server.app.serve` builds the listeners of :mod:`server.runtime.listeners`).
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import threading

from .config import ServeConfig, announcement

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
HARD_EXIT_AFTER_GRACE_S = 0.4


def run(config: ServeConfig, build_listeners, *, announce=print, on_ready=None) -> int:
    """Run until SIGTERM, SIGINT or SIGHUP, then drain within the grace period. Blocks; never returns.

    ``build_listeners(serving)`` gives the process's listeners; ``serving()`` is False once stopping
    (the HTTP health check then answers 503). ``on_ready(ports)`` replaces the announcement in a worker
    process (the supervisor announces).
    """
    stop = threading.Event()
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda signum, frame: stop.set())
    listeners = build_listeners(lambda: not stop.is_set())
    for listener in listeners:
        listener.start()
    gc.freeze()  # what is loaded by now lives as long as the process: the collector skips it
    ports = [listener.port for listener in listeners]
    if on_ready:
        on_ready(ports)
    else:
        announce(announcement(config, ports[0], ports[1] if len(ports) > 1 else None))
    while not stop.wait(1.0):
        pass
    log.info("stopping: health NOT_SERVING, draining calls for up to %.1f s", config.grace_s)
    stopped = [listener.drain(config.grace_s) for listener in listeners]
    for event in stopped:
        event.wait(config.grace_s + HARD_EXIT_AFTER_GRACE_S)
    log.info("stopped")
    # Work that ignored its cancellation must not hold the process past the grace period (threads
    # of a pool are joined at exit): leave now.
    logging.shutdown()
    sys.stdout.flush()
    os._exit(0)
