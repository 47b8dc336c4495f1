"""A small Python client of the RouteOptimizer service, speaking the dicts of :mod:`optimizer.api`.

    with OptimizerClient("127.0.0.1:50051") as client:
        answer = client.optimize_json(open("state.json").read(), deadline_ms=2000)
        print(answer["revenue"], answer["optimal"])

Several replicas: ``OptimizerClient(["10.0.0.1:50051", "10.0.0.2:50051"])`` (or ``"a:50051,b:50051"``,
or one DNS name that resolves to several addresses). gRPC itself spreads the calls (its
``round_robin`` policy) and watches each replica's health service, leaving out any that is not
SERVING; a call that finds a replica gone (UNAVAILABLE) is retried on another.

Every method raises :class:`ServiceError` when the call fails; for a bad board its ``field`` and
``hex`` say what is wrong where.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from pathlib import Path

import grpc
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from .generated.route18xx.v1 import route_optimizer_pb2 as pb
from .generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc
from .translation import convert


class ServiceError(Exception):
    """A failed call: ``code`` (grpc.StatusCode), ``message``, and for a bad board ``field``, ``hex``."""

    def __init__(self, err: grpc.RpcError):
        self.code = err.code()
        self.message = err.details() or ""
        self.field = None
        self.hex = None
        self.violations = []  # [(field, description)] of a google.rpc.BadRequest detail
        status = rpc_status.from_call(err) if hasattr(err, "trailing_metadata") else None
        for detail in status.details if status else ():
            if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                self.violations += [(v.field, v.description) for v in bad.field_violations]
            elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                self.field = info.metadata.get("field") or None
                self.hex = info.metadata.get("hex") or None
        if self.field is None and self.violations:
            self.field = self.violations[0][0]
        super().__init__(f"{self.code.name}: {self.message}")


def _text(state) -> str:
    """Board-state JSON text; a dict is encoded for convenience."""
    return state if isinstance(state, str) else json.dumps(state)


def _timeout(deadline_ms):
    return None if deadline_ms is None else deadline_ms / 1000.0


SCHEMES = ("dns:", "ipv4:", "ipv6:", "unix:", "unix-abstract:", "vsock:", "xds:")

# Spread calls over every address (round_robin), only to replicas whose health service says SERVING
# ("" = the whole server, as a readiness probe asks), and retry a call that found its replica gone:
# every call of the service is a pure function of its request, so it may safely run again.
SERVICE_CONFIG = json.dumps(
    {
        "loadBalancingConfig": [{"round_robin": {}}],
        "healthCheckConfig": {"serviceName": ""},
        "methodConfig": [
            {
                "name": [{"service": "route18xx.v1.RouteOptimizer"}],
                "retryPolicy": {
                    "maxAttempts": 3,
                    "initialBackoff": "0.05s",
                    "maxBackoff": "0.5s",
                    "backoffMultiplier": 2,
                    "retryableStatusCodes": ["UNAVAILABLE"],
                },
            }
        ],
    }
)


def channel_target(target) -> str:
    """The gRPC target for one address or several replicas (a list, or comma-separated).

    One ``host:port`` stays as it is: gRPC's DNS resolver finds every address of the name (and
    follows changes). Several are resolved once, here, into an ``ipv4:``/``ipv6:`` address list.
    A target that already names a scheme (``dns:///``, ``ipv4:``, ``unix:``...) is gRPC's own.
    """
    if isinstance(target, str):
        if target.startswith(SCHEMES):
            return target
        target = target.split(",")
    addresses = [a.strip() for a in target if a and a.strip()]
    if not addresses:
        raise ValueError("no server address given")
    if len(addresses) == 1:
        return addresses[0]
    resolved = [ip for address in addresses for ip in _resolve(address)]
    v4 = [f"{host}:{port}" for host, port in resolved if ":" not in host]
    v6 = [f"[{host}]:{port}" for host, port in resolved if ":" in host]
    return f"ipv4:{','.join(dict.fromkeys(v4))}" if v4 else f"ipv6:{','.join(dict.fromkeys(v6))}"


def _resolve(address: str) -> list:
    """``[(ip, port)]`` of one ``host:port`` (``[v6]:port`` too)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"{address!r}: a replica's address is HOST:PORT")
    host = host.strip("[]")
    try:
        return [(str(ipaddress.ip_address(host)), int(port))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        raise ValueError(f"{address!r}: cannot resolve {host}: {err.strerror}") from None
    return [(info[4][0], int(port)) for info in infos]


class OptimizerClient:
    """One channel to a server, or to several replicas; methods mirror :mod:`optimizer.api` and return its dicts.

    ``target`` is ``host:port``, a list of them or a comma-separated string (replicas, see
    :func:`channel_target`), or any gRPC target.

    ``deadline_ms`` is the call's gRPC deadline, which the server also uses as the search's: the
    answer arrives before it, with ``optimal`` false if the search had to stop.
    """

    def __init__(self, target, *, tls_root_cert=None, max_message_mb: float = 64):
        limit = int(max_message_mb * 1024 * 1024)
        # Its own connection: grpc would otherwise share one among every channel to the same target
        # in this process, and a server's workers share out connections, not calls.
        options = [
            ("grpc.max_receive_message_length", limit),
            ("grpc.max_send_message_length", limit),
            ("grpc.use_local_subchannel_pool", 1),
            ("grpc.service_config", SERVICE_CONFIG),
        ]
        target = channel_target(target)
        if tls_root_cert is None:
            self._channel = grpc.insecure_channel(target, options=options)
        else:
            root = tls_root_cert if isinstance(tls_root_cert, bytes) else Path(tls_root_cert).read_bytes()
            self._channel = grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=root), options)
        self._stub = pb_grpc.RouteOptimizerStub(self._channel)
        self._health = health_pb2_grpc.HealthStub(self._channel)

    def optimize_json(self, state_json, deadline_ms: float | None = None, *, node_budget: int | None = None) -> dict:
        """The best routes (the dict of :func:`optimizer.api.solve`) for a board-state JSON text."""
        request = pb.OptimizeRequest(state_json=_text(state_json), node_budget=node_budget)
        try:
            response = self._stub.Optimize(request, timeout=_timeout(deadline_ms))
        except grpc.RpcError as err:
            raise ServiceError(err) from None
        return convert.solution_to_json(response.solution)

    def optimize_board(self, board, deadline_ms: float | None = None, *, node_budget: int | None = None) -> dict:
        """:meth:`optimize_json` for a structured ``Board`` (a board-state dict is converted first)."""
        if isinstance(board, dict):
            board = convert.state_to_board(board)
        request = pb.OptimizeRequest(board=board, node_budget=node_budget)
        try:
            response = self._stub.Optimize(request, timeout=_timeout(deadline_ms))
        except grpc.RpcError as err:
            raise ServiceError(err) from None
        return convert.solution_to_json(response.solution)

    def optimize_stream_json(self, state_json, deadline_ms: float | None = None, *, node_budget: int | None = None):
        """Each better solution as found, then the answer: solve dicts plus ``"final": bool``.

        Stopping the iteration early (``break``, or closing the generator) cancels the call, which
        stops the search on the server.
        """
        request = pb.OptimizeStreamRequest(state_json=_text(state_json), node_budget=node_budget)
        call = self._stub.OptimizeStream(request, timeout=_timeout(deadline_ms))
        try:
            for message in call:
                yield dict(convert.solution_to_json(message.solution), final=message.final)
        except grpc.RpcError as err:
            raise ServiceError(err) from None
        finally:
            call.cancel()  # no-op when the stream has ended

    def check_json(
        self, state_json, routes: list, with_optimum: bool = False, deadline_ms: float | None = None
    ) -> dict:
        """The checker's verdict (the dict of :func:`optimizer.api.check`) on ``routes``."""
        request = pb.CheckRoutesRequest(
            state_json=_text(state_json), routes_json=json.dumps(routes), with_optimum=with_optimum
        )
        try:
            response = self._stub.CheckRoutes(request, timeout=_timeout(deadline_ms))
        except grpc.RpcError as err:
            raise ServiceError(err) from None
        return convert.check_to_json(response)

    def list_games(self) -> list:
        """The built-in games (the list of :func:`optimizer.api.games`)."""
        try:
            return convert.games_to_json(self._stub.ListGames(pb.ListGamesRequest()))
        except grpc.RpcError as err:
            raise ServiceError(err) from None

    def train_kinds(self) -> list:
        """The train kinds the server's optimiser supports."""
        try:
            return list(self._stub.ListGames(pb.ListGamesRequest()).train_kinds)
        except grpc.RpcError as err:
            raise ServiceError(err) from None

    def health(self, service: str = "") -> str:
        """The server's health status name: "SERVING", "NOT_SERVING", ... ("" = the whole server)."""
        try:
            response = self._health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        except grpc.RpcError as err:
            raise ServiceError(err) from None
        return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
