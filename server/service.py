"""The RouteOptimizer servicer: requests in, :mod:`optimizer.api` calls, answers out.

It holds no lock around a search: the search releases the GIL, so calls on different threads of
the server's pool run on different cores. Each search gets a CancelToken that the call's end
(client cancel, deadline, server shutdown) trips, so no search outlives its call for long.
"""
from __future__ import annotations

import logging
import queue
import threading

import grpc

from optimizer import api
from optimizer.core import CancelToken
from optimizer.errors import OptimizerError

from . import convert
from .errors import guard
from .generated.route18xx.v1 import route_optimizer_pb2 as pb
from .generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc

log = logging.getLogger(__name__)

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["RouteOptimizer"].full_name
DEADLINE_SHARE = 0.8  # answer at 80% of the time the client gave ...
DEADLINE_MARGIN_MS = 5.0  # ... less this, to leave time for sending the answer
NO_DEADLINE_S = 1e8  # gRPC reports "no deadline" as a huge remaining time


def search_deadline_ms(context) -> float | None:
    """The search's deadline from the call's, with a margin; None when the call has none."""
    remaining = context.time_remaining()
    if remaining is None or remaining > NO_DEADLINE_S:
        return None
    return max(1.0, remaining * 1000 * DEADLINE_SHARE - DEADLINE_MARGIN_MS)


def cancel_token(context) -> CancelToken:
    """A token tripped when the call ends, whatever ends it."""
    token = CancelToken()
    if not context.add_callback(token.cancel):
        token.cancel()  # the call has already ended
    return token


def read_state(request) -> dict:
    """The board-state document of a request's ``board`` or ``state_json``."""
    source = request.WhichOneof("source")
    if source == "board":
        return convert.board_to_state(request.board)
    if source == "state_json":
        return parse_state_json(request.state_json)
    raise OptimizerError("no board: set `board` or `state_json`", field="source")


def parse_state_json(text: str) -> dict:
    """Parse ``state_json`` with the API's reader (JSON text only: it never reads a file)."""
    try:
        return api.load_state(text)
    except OptimizerError as err:
        if err.field in (None, "(document)"):
            err.field = "state_json"  # the whole document is the request's field
        raise
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as err:
        # Too deep, too long a number, or a field of the wrong type where the reader expects another.
        log.warning("state_json rejected by %s: %s", type(err).__name__, err)
        raise OptimizerError(f"malformed board ({type(err).__name__}: {err})", field="state_json") from None


def read_routes(request) -> list:
    """The routes to check, from ``routes`` or ``routes_json``."""
    if request.routes and request.routes_json:
        raise OptimizerError("give `routes` or `routes_json`, not both", field="routes_json")
    if not request.routes_json:
        return [convert.route_input_to_json(r) for r in request.routes]
    return api.load_routes(request.routes_json, field="routes_json")


def _source(request) -> str:
    return request.WhichOneof("source") or "source"


def _no_route_in_time(context, result: dict) -> None:
    if result["stats"].get("stopped_by") == "deadline" and not result["routes"]:
        context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "no route found before the deadline")


class RouteOptimizerService(pb_grpc.RouteOptimizerServicer):
    """Each method translates; the work is :func:`optimizer.api.solve` / ``check`` / ``games``."""

    def Optimize(self, request, context):
        with guard(context, _source(request)):
            doc = read_state(request)
            result = api.solve(doc, deadline_ms=search_deadline_ms(context), node_budget=request.node_budget or None,
                               cancel=cancel_token(context))
            _no_route_in_time(context, result)
            return pb.OptimizeResponse(solution=convert.solution_to_proto(result))

    def OptimizeStream(self, request, context):
        with guard(context, _source(request)):
            doc = read_state(request)
            updates = queue.Queue()
            token = cancel_token(context)
            deadline_ms = search_deadline_ms(context)

            def run():  # the search, on its own thread, so that this one can send as it goes
                try:
                    result = api.solve(doc, deadline_ms=deadline_ms, node_budget=request.node_budget or None,
                                       cancel=token, on_improve=lambda partial: updates.put(("partial", partial)))
                    updates.put(("final", result))
                except BaseException as err:  # handed to the caller's thread, raised there
                    updates.put(("error", err))

            threading.Thread(target=run, name="stream-search", daemon=True).start()
            while True:
                kind, item = updates.get()
                if kind == "error":
                    raise item
                if kind == "final":
                    _no_route_in_time(context, item)
                    yield pb.OptimizeStreamResponse(solution=convert.solution_to_proto(item), final=True)
                    return
                yield pb.OptimizeStreamResponse(solution=convert.solution_to_proto(item), final=False)

    def CheckRoutes(self, request, context):
        with guard(context, _source(request)):
            doc = read_state(request)
            out = api.check(doc, read_routes(request), with_optimum=request.with_optimum,
                            deadline_ms=search_deadline_ms(context), cancel=cancel_token(context))
            return convert.check_to_proto(out)

    def ListGames(self, request, context):
        with guard(context):
            return convert.games_to_proto(api.games(), api.TRAIN_KINDS)
