"""The server process: the RouteOptimizer service with health, reflection and call logging, and
the same service over HTTP/JSON with the players' page (:mod:`server.http`) beside it.

``python -m optimizer serve`` calls :func:`serve`. SIGTERM (or Ctrl-C) sets every health status
to NOT_SERVING, then drains: calls in flight get ``grace_s`` seconds to finish, after which they
are cancelled (which cancels their searches) and the process exits.
"""
from __future__ import annotations

import logging
import signal
import threading
from concurrent import futures
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from optimizer.errors import OptimizerError

from .generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc
from .interceptor import LoggingInterceptor
from .service import SERVICE_NAME, RouteOptimizerService

log = logging.getLogger(__name__)


def build_server(*, max_workers: int = 16, max_message_mb: float = 16):
    """A server (not started) and its health servicer, everything registered."""
    limit = int(max_message_mb * 1024 * 1024)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="rpc"),
        interceptors=[LoggingInterceptor()],
        options=[("grpc.max_receive_message_length", limit), ("grpc.max_send_message_length", limit),
                 ("grpc.so_reuseport", 0)])  # a port in use is an error, not silently shared
    pb_grpc.add_RouteOptimizerServicer_to_server(RouteOptimizerService(), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):  # "" = the server as a whole
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    return server, health_servicer


def bind(server, host: str, port: int, *, tls_cert: str | None = None, tls_key: str | None = None) -> int:
    """Listen on host:port (port 0: a free one); return the port. TLS when given a cert and key."""
    address = f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"
    try:
        if tls_cert or tls_key:
            if not (tls_cert and tls_key):
                raise OptimizerError("TLS needs both --tls-cert and --tls-key", field="--tls-cert")
            credentials = grpc.ssl_server_credentials([(_read(tls_key, "--tls-key"), _read(tls_cert, "--tls-cert"))])
            bound = server.add_secure_port(address, credentials)
        else:
            bound = server.add_insecure_port(address)
    except RuntimeError as err:  # grpc: "Failed to bind to address ..."
        raise OptimizerError(f"cannot listen on {address}: {err}", field="--port") from None
    if not bound:
        raise OptimizerError(f"cannot listen on {address}", field="--port")
    return bound


def _read(path: str, option: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise OptimizerError(f"{option}: cannot read {path}: {err.strerror}", field=option) from None


def serve(*, host: str = "127.0.0.1", port: int = 50051, max_workers: int = 16, max_message_mb: float = 16,
          tls_cert: str | None = None, tls_key: str | None = None, grace_s: float = 10.0,
          http_port: int | None = 8080, cors_origins=(), announce=print) -> int:
    """Run gRPC (and HTTP/JSON on ``http_port``, None: none) until SIGTERM or SIGINT, then drain. Blocks; returns 0."""
    server, health_servicer = build_server(max_workers=max_workers, max_message_mb=max_message_mb)
    bound = bind(server, host, port, tls_cert=tls_cert, tls_key=tls_key)
    stop = threading.Event()
    http_listener = None
    if http_port is not None:
        from . import http  # starlette and uvicorn only when serving HTTP
        app = http.build_app(RouteOptimizerService(), cors_origins=cors_origins,
                             limits=http.Limits(max_message_mb, max_workers), serving=lambda: not stop.is_set())
        http_listener = http.HttpListener(app, [http.listen(host, http_port)])
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, frame: stop.set())
    server.start()
    line = f"listening on {host}:{bound}" + (" (TLS)" if tls_cert else "")
    if http_listener is not None:
        http_listener.start()
        line += f", HTTP on http://{host}:{http_listener.port}/"
    announce(line)
    while not stop.wait(1.0):
        pass
    log.info("stopping: health NOT_SERVING, draining calls for up to %.1f s", grace_s)
    health_servicer.enter_graceful_shutdown()
    http_stopped = http_listener.drain(grace_s) if http_listener is not None else None
    server.stop(grace_s).wait()
    if http_stopped is not None:
        http_stopped.wait(grace_s + 1.0)
    log.info("stopped")
    return 0
