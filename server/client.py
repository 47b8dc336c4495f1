"""A small Python client of the RouteOptimizer service, speaking the dicts of :mod:`optimizer.api`.

    with OptimizerClient("127.0.0.1:50051") as client:
        answer = client.optimize_json(open("state.json").read(), deadline_ms=2000)
        print(answer["revenue"], answer["optimal"])

Every method raises :class:`ServiceError` when the call fails; for a bad board its ``field`` and
``hex`` say what is wrong where.
"""
from __future__ import annotations

import json
from pathlib import Path

import grpc
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from . import convert
from .generated.route18xx.v1 import route_optimizer_pb2 as pb
from .generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc


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


class OptimizerClient:
    """One channel to a server; methods mirror :mod:`optimizer.api` and return its dicts.

    ``deadline_ms`` is the call's gRPC deadline, which the server also uses as the search's: the
    answer arrives before it, with ``optimal`` false if the search had to stop.
    """

    def __init__(self, target: str, *, tls_root_cert=None, max_message_mb: float = 64):
        limit = int(max_message_mb * 1024 * 1024)
        # Its own connection: grpc would otherwise share one among every channel to the same target
        # in this process, and a server's workers share out connections, not calls.
        options = [("grpc.max_receive_message_length", limit), ("grpc.max_send_message_length", limit),
                   ("grpc.use_local_subchannel_pool", 1)]
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

    def check_json(self, state_json, routes: list, with_optimum: bool = False, deadline_ms: float | None = None) -> dict:
        """The checker's verdict (the dict of :func:`optimizer.api.check`) on ``routes``."""
        request = pb.CheckRoutesRequest(state_json=_text(state_json), routes_json=json.dumps(routes),
                                        with_optimum=with_optimum)
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
