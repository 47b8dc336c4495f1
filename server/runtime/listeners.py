"""The listeners of a server process, gRPC and HTTP: each binds, starts, and drains on a stop.

A listener has ``name``, ``port``, ``tls``, ``start()`` and ``drain(grace_s) -> threading.Event``
(NOT_SERVING at once, stopped when the event is set). :class:`GrpcListener` serves a RouteOptimizer
servicer with health, reflection and the call interceptor; :class:`HttpListener` runs uvicorn on
sockets the caller bound (:func:`listen`; a pre-forked worker passes the shared SO_REUSEPORT socket).
What they serve comes from :mod:`server.translation`, handed in by :mod:`server.app`.
"""

from __future__ import annotations

import socket
import threading

import grpc
import uvicorn
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from optimizer.errors import OptimizerError

from ..generated.route18xx.v1 import route_optimizer_pb2 as pb
from ..generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc
from . import httpconn
from .config import ServeConfig, tls_files
from .health import health_servicer
from .interceptor import LoggingInterceptor
from .pool import RetiringPool

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["RouteOptimizer"].full_name


class GrpcListener:
    """The RouteOptimizer service with health, reflection and call logging, on one address."""

    name = "gRPC"

    def __init__(self, config: ServeConfig, servicer):
        limit = int(config.limits.max_message_mb * 1024 * 1024)
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
        self.health = health_servicer()
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


def listen(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """A listening TCP socket on host:port (port 0: a free one); SO_REUSEPORT for pre-forked workers."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY only on sockets that say so, and without
    # it every keep-alive answer waits ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as err:
        sock.close()
        raise OptimizerError(f"cannot listen on {host}:{port} for HTTP: {err.strerror}", field="--http-port") from None
    sock.listen(1024)
    sock.set_inheritable(True)
    return sock


class HttpListener:
    """uvicorn serving ``app`` on sockets bound by the caller, in a thread of its own.

    The same face as the gRPC listener of :mod:`server.app`: ``port``, ``start()``, and
    ``drain(grace_s)`` returning an event set once stopped.
    """

    name = "HTTP"
    tls = False

    def __init__(self, app, sockets: list, *, max_connections: int = 1000, header_timeout_s: float = 10.0):
        self.sockets = sockets
        protocol = httpconn.bounded_protocol(httpconn.connection_limit(max_connections), header_timeout_s)
        config = uvicorn.Config(
            app,
            http=protocol,
            h11_max_incomplete_event_size=httpconn.MAX_HEAD_BYTES,
            timeout_keep_alive=httpconn.KEEP_ALIVE_S,
            backlog=httpconn.ACCEPT_BURST,
            lifespan="off",
            access_log=False,
            log_level="warning",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": sockets}, name="http", daemon=True)

    @property
    def port(self) -> int:
        return self.sockets[0].getsockname()[1]

    def start(self) -> None:
        self.thread.start()

    def drain(self, grace_s: float) -> threading.Event:
        """Stop accepting; calls in flight get ``grace_s`` seconds, then are cancelled (which ends their work)."""
        self.server.config.timeout_graceful_shutdown = grace_s  # type: ignore[assignment]  # annotated int; asyncio.wait_for takes a float
        self.server.should_exit = True
        stopped = threading.Event()

        def wait():
            self.thread.join()
            stopped.set()

        threading.Thread(target=wait, name="http-drain", daemon=True).start()
        return stopped
