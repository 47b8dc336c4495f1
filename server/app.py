"""One server process: its listeners (gRPC, and HTTP/JSON with the players' page), its signals, its end.

``python -m optimizer serve`` calls :func:`serve` (one process) or :mod:`server.workers` (a
supervisor and worker processes, each running :func:`serve` on the shared port). SIGTERM, SIGINT or
SIGHUP set every health status to NOT_SERVING, then drain: calls in flight get ``grace_s`` seconds,
after which they are cancelled (which stops their work, whatever stage it is in) and the process
exits, at the latest 0.4 s later even if something would not stop.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import threading

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from optimizer.errors import OptimizerError

from .config import ServeConfig, announcement, tls_files
from .generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc
from .interceptor import LoggingInterceptor
from .pool import RetiringPool
from .service import SERVICE_NAME, RouteOptimizerService

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
HARD_EXIT_AFTER_GRACE_S = 0.4


# --- the gRPC listener --------------------------------------------------------------------------


class HealthServicer(health.HealthServicer):
    """grpc_health's servicer, telling watchers a new status after releasing its lock.

    The original sends while holding the lock, and a watcher whose stream closes at that moment
    waits for the lock on grpc's event thread, which the send itself waits for: a deadlock, seen
    when clients with health checking closed their channels during a stop (the server then hung
    until killed). Sending to a watcher that has just closed is a no-op in grpc.
    """

    _gracefully_shutting_down: bool  # grpc_health's own flag, read under its lock

    def set(self, service, status):
        with self._lock:
            if self._gracefully_shutting_down:
                return
            self._server_status[service] = status
            watchers = list(self._send_response_callbacks.get(service, ()))
        for send in watchers:
            send(health_pb2.HealthCheckResponse(status=status))

    def enter_graceful_shutdown(self):
        with self._lock:
            if self._gracefully_shutting_down:
                return
            services = list(self._server_status)
        for service in services:
            self.set(service, health_pb2.HealthCheckResponse.NOT_SERVING)
        with self._lock:
            self._gracefully_shutting_down = True


class GrpcListener:
    """The RouteOptimizer service with health, reflection and call logging, on one address."""

    name = "gRPC"

    def __init__(self, config: ServeConfig, servicer: RouteOptimizerService):
        limit = int(config.max_message_mb * 1024 * 1024)
        threads = config.limits.threads
        self.server = grpc.server(
            RetiringPool(threads, "rpc"),  # work runs on the call's thread, retired once demoted
            interceptors=[LoggingInterceptor(config.limits.max_streams)],
            # Every admitted call gets a thread at once: none waits unseen in the pool's queue.
            maximum_concurrent_rpcs=threads,
            options=[
                ("grpc.max_receive_message_length", limit),
                ("grpc.max_send_message_length", limit),
                # one process alone: a port in use is an error, not silently shared
                ("grpc.so_reuseport", 1 if config.reuse_port else 0),
            ],
        )
        pb_grpc.add_RouteOptimizerServicer_to_server(servicer, self.server)
        self.health = HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        for name in ("", SERVICE_NAME):  # "" = the server as a whole
            self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), self.server)
        self.port = self._bind(config)
        self.tls = config.tls_cert is not None

    def _bind(self, config: ServeConfig) -> int:
        files = tls_files(config)
        try:
            if files:
                key, cert, ca = files
                credentials = grpc.ssl_server_credentials(
                    [(key, cert)], root_certificates=ca, require_client_auth=ca is not None
                )
                bound = self.server.add_secure_port(config.address, credentials)
            else:
                bound = self.server.add_insecure_port(config.address)
        except RuntimeError as err:  # grpc: "Failed to bind to address ..."
            raise OptimizerError(f"cannot listen on {config.address}: {err}", field="--port") from None
        if not bound:
            raise OptimizerError(f"cannot listen on {config.address}", field="--port")
        return bound

    def start(self) -> None:
        self.server.start()

    def drain(self, grace_s: float) -> threading.Event:
        """NOT_SERVING at once; calls get ``grace_s`` seconds, then are cancelled. Set when stopped."""
        self.health.enter_graceful_shutdown()
        return self.server.stop(grace_s)


# --- one server process -------------------------------------------------------------------------


def build_listeners(config: ServeConfig, serving=lambda: True) -> list:
    """The listeners of one process, sharing one servicer (so one set of limits and slots).

    A listener has ``name``, ``port``, ``tls``, ``start()`` and ``drain(grace_s) -> threading.Event``
    (NOT_SERVING at once, stopped when the event is set): gRPC, and HTTP/JSON when it has a port.
    """
    servicer = RouteOptimizerService(config.limits)
    listeners: list = [GrpcListener(config, servicer)]
    if config.http_port is not None:
        from . import http  # starlette and uvicorn only when serving HTTP

        app = http.build_app(
            servicer,
            cors_origins=config.cors_origins,
            serving=serving,
            limits=http.Limits(config.max_message_mb, config.limits.threads, body_timeout_s=config.http_body_timeout_s),
            engine=config.engine,
        )
        listeners.append(
            http.HttpListener(
                app,
                [http.listen(config.host, config.http_port, reuse_port=config.reuse_port)],
                max_connections=config.http_max_connections,
                header_timeout_s=config.http_header_timeout_s,
            )
        )
    return listeners


def serve(config: ServeConfig = ServeConfig(), *, announce=print, on_ready=None) -> int:
    """Run until SIGTERM, SIGINT or SIGHUP, then drain within the grace period. Blocks; returns 0.

    ``on_ready(ports)`` replaces the announcement in a worker process (the supervisor announces).
    """
    stop = threading.Event()
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda signum, frame: stop.set())
    listeners = build_listeners(config, serving=lambda: not stop.is_set())
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
