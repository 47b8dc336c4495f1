"""The RouteOptimizer servicer: requests in, :mod:`optimizer.api` calls, answers out.

It holds no lock around a search: the search releases the GIL, so calls on different threads of
the server's pool run on different cores. Every work call is bounded (see :mod:`server.runtime.limits`
and :mod:`server.runtime.admission`): it is checked against the limits before any work, waits for one of
a few running slots (or is refused at once), and runs under a deadline (the client's, else the
server's default, at most its maximum) that covers the whole answer: reading, checking and
searching. The call's end (client cancel, deadline, server shutdown) stops the work, whatever
stage it is in, so no work outlives its call for long. The work's thread has its priority lowered
once it has run long, and then retires (see :mod:`server.runtime.pool`): a hard search never starves an
easy call of the cores.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import time
from dataclasses import dataclass

import grpc

from optimizer import api
from optimizer.core import CancelToken
from optimizer.errors import OptimizerError, decoded_json

from ..generated.route18xx.v1 import route_optimizer_pb2 as pb
from ..generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc
from ..runtime import limits
from ..runtime.admission import Admission, CallExpired, Watchdog
from ..runtime.pool import RetiringPool, runs_on_retiring_thread
from . import checks, convert
from .errors import guard

log = logging.getLogger(__name__)

DEADLINE_SHARE = 0.9  # the search answers at 90% of the time left when it starts ...
DEADLINE_MARGIN_MS = 1.0  # ... less this, to leave time for sending the answer
DEMOTE_AFTER_S = 0.1  # work that has used this much CPU yields the cores to newer calls (admission.Watchdog)


@dataclass
class Call:
    """One admitted work call: its deadline (time.monotonic), whose it is, and its cancel token."""

    deadline: float
    deadline_from: str
    seconds: float
    token: CancelToken

    def search_deadline_ms(self) -> float:
        """What api.solve gets: it counts reading the board against it too."""
        remaining_ms = (self.deadline - time.monotonic()) * 1000
        return max(1.0, remaining_ms * DEADLINE_SHARE - DEADLINE_MARGIN_MS)

    def stamp(self, solution: pb.Solution) -> pb.Solution:
        """Say which deadline applied (the client's, or the server's default or maximum)."""
        solution.stats.deadline_ms = round(self.seconds * 1000, 3)
        solution.stats.deadline_from = self.deadline_from
        return solution


def read_state(request, bounds: limits.Limits = limits.Limits()):
    """The board of a request's ``board`` or ``state_json`` (as :func:`optimizer.api.solve` takes it),
    checked against the limits before it is read."""
    source = request.WhichOneof("source")
    if source == "board":
        wire = request.board.SerializeToString(deterministic=True)  # its size, and its key when seen before
        checks.check_state_size(len(wire), bounds, "board")
        checks.check_counts({"hexes": request.board.hexes, "trains": request.board.trains}, bounds)
        board = convert.read_board(request.board, wire, bounds)
        if board is not None:
            return board
        doc = convert.board_to_state(request.board)  # the long way: reads it, or raises the error
    elif source == "state_json":
        checks.check_state_size(len(request.state_json), bounds, "state_json")
        board = read_state_text(request.state_json, bounds)
        if board is not None:
            return board
        doc = json_object(request.state_json)
        if checks.has_lone_surrogate_escape(request.state_json):
            checks.check_strings(doc)
    else:
        raise OptimizerError("no board: set `board` or `state_json`", field="source")
    checks.check_counts(doc, bounds)
    checks.check_numbers(doc, bounds)
    return load_state(doc, source)


def read_state_text(text: str, bounds: limits.Limits):
    """The board of ``state_json`` on the fast path (msgspec in C, no dict tree), the limits checked
    on the decoded document before its hexes are read; None for anything the long way must read
    or refuse (a tile-lay board, a bad board, a lone surrogate), which gives the same errors."""
    if checks.has_lone_surrogate_escape(text):
        return None

    def check(rest: dict, hex_texts: list) -> None:
        checks.check_counts({"hexes": hex_texts, "trains": rest["trains"]}, bounds)
        checks.check_numbers(rest, bounds)
        checks.check_hex_codes(hex_texts, bounds)

    try:
        return api.read_state_text(text, check)
    except OptimizerError as err:
        if err.field in (None, "(document)"):
            err.field = "state_json"
        raise


def json_object(text: str) -> dict:
    """``state_json`` parsed: a JSON object, or INVALID_ARGUMENT naming the field."""
    doc = decoded_json(text, field="state_json", cut=limits.QUOTE_CHARS)
    if not isinstance(doc, dict):
        raise OptimizerError(
            f"state_json must hold a JSON object (a board state), not {type(doc).__name__}", field="state_json"
        )
    return doc


def load_state(doc: dict, source: str = "state_json"):
    """The API's reading of a document (a tile-lay document becomes a board), errors naming the field."""
    try:
        return api.load_state(doc)
    except OptimizerError as err:
        if err.field in (None, "(document)"):
            err.field = source  # the whole document is the request's field
        raise
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as err:
        # Too deep, too long a number, or a field of the wrong type where the reader expects another.
        log.warning("%s rejected by %s: %s", source, type(err).__name__, limits.quote(err))
        raise OptimizerError(f"malformed board ({type(err).__name__}: {limits.quote(err)})", field=source) from None


def parse_state_json(text: str):
    """Parse and read ``state_json`` (JSON text only: it never reads a file)."""
    return load_state(json_object(text))


def read_routes(request, bounds: limits.Limits = limits.Limits()) -> list:
    """The routes to check, from ``routes`` or ``routes_json``, within the limits."""
    if request.routes and request.routes_json:
        raise OptimizerError("give `routes` or `routes_json`, not both", field="routes_json")
    if not request.routes_json:
        checks.check_routes_count(request.routes, bounds, "routes")
        return [convert.route_input_to_json(r) for r in request.routes]
    checks.check_state_size(len(request.routes_json), bounds, "routes_json")
    routes = api.load_routes(request.routes_json, field="routes_json")
    checks.check_routes_count(routes, bounds, "routes_json")
    if checks.has_lone_surrogate_escape(request.routes_json):
        checks.check_strings(routes, "routes")
    return routes


def encoded(result: dict) -> pb.Solution:
    """The answer as a message, with the time that took in its stats."""
    start = time.monotonic()
    solution = convert.solution_to_proto(result)
    solution.stats.encode_ms = round((time.monotonic() - start) * 1000, 3)
    return solution


def _source(request) -> str:
    return request.WhichOneof("source") or "source"


def _no_route_in_time(context, result: dict, call: Call) -> None:
    if result["stats"].get("stopped_by") == "deadline" and not result["routes"]:
        whose = {
            "client": "the call's",
            "server_default": "the server's default",
            "server_maximum": "the server's maximum",
        }[call.deadline_from]
        context.abort(
            grpc.StatusCode.DEADLINE_EXCEEDED, f"no route found before {whose} deadline of {call.seconds:g} s"
        )


def _render(board: dict, routes) -> str:
    """The SVG of a board and its routes; what does not fit a board or routes is INVALID_ARGUMENT."""
    from optimizer.render import render_svg  # the renderer only when the page asks for it

    state = load_state(board, "board")
    try:
        return render_svg(state, routes or None)
    except OptimizerError:
        raise
    except (TypeError, KeyError, ValueError, AttributeError) as err:
        raise OptimizerError(
            f"malformed board or routes ({type(err).__name__}: {limits.quote(err)})", field="board"
        ) from None


class RouteOptimizerService(pb_grpc.RouteOptimizerServicer):
    """Each method translates; the work is :func:`optimizer.api.solve` / ``check`` / ``games``.

    One instance serves a whole process: ``bounds`` are its limits, shared by every transport.
    """

    def __init__(self, bounds: limits.Limits | None = None):
        self.limits = bounds or limits.Limits()
        self.admission = Admission(self.limits.max_concurrent, self.limits.max_queue)
        self.watchdog = Watchdog()
        self.work_pool = RetiringPool(self.limits.threads, "work")

    @contextlib.contextmanager
    def _admitted(self, context):
        """Wait for a running slot (or be refused), then give the call its deadline and token."""
        seconds, whose = limits.call_deadline(self.limits, context.time_remaining())
        call = Call(time.monotonic() + seconds, whose, seconds, CancelToken())
        with self.admission.slot(seconds):
            yield call

    @contextlib.contextmanager
    def _bounded(self, context, call: Call):
        """Run the block on this (work) thread under the call's deadline, ended if the call ends first."""
        with self.watchdog.watch(call.token, call.deadline, DEMOTE_AFTER_S) as entry:
            if not context.add_callback(lambda: self.watchdog.end(entry, "the call was cancelled")):
                raise CallExpired("the call was cancelled")
            yield

    def _on_work_thread(self, context, call: Call, work):
        """``work()`` bounded, on a thread that retires if demoted: this one when it is such a thread
        (gRPC's pool), else one of the servicer's own (HTTP's threads are not)."""

        def run():
            with self._bounded(context, call):
                return work()

        if runs_on_retiring_thread():
            return run()
        return self.work_pool.submit(run).result()

    def _node_budget(self, request):
        checks.check_node_budget(request.node_budget)
        return request.node_budget or None

    def _solve(self, request, call: Call, node_budget, on_improve=None) -> dict:
        """Read the request's board and solve it; the answer's ``read_ms`` counts the server's reading."""
        start = time.monotonic()
        board = read_state(request, self.limits)
        read_ms = (time.monotonic() - start) * 1000
        result = api.solve(
            board,
            deadline_ms=call.search_deadline_ms(),
            node_budget=node_budget,
            cancel=call.token,
            on_improve=on_improve,
        )
        result["stats"]["read_ms"] = round(read_ms + result["stats"]["read_ms"], 3)
        return result

    def Optimize(self, request, context):
        with guard(context, _source(request)), self._admitted(context) as call:
            node_budget = self._node_budget(request)

            result = self._on_work_thread(context, call, lambda: self._solve(request, call, node_budget))
            _no_route_in_time(context, result, call)
            return pb.OptimizeResponse(solution=call.stamp(encoded(result)))

    def OptimizeStream(self, request, context):
        with guard(context, _source(request)), self._admitted(context) as call:
            node_budget = self._node_budget(request)
            updates: queue.Queue = queue.Queue()

            def run():  # reading and search, on their own thread, so that this one can send as it goes
                try:
                    with self._bounded(context, call):
                        result = self._solve(
                            request, call, node_budget, on_improve=lambda partial: updates.put(("partial", partial))
                        )
                    updates.put(("final", result))
                except BaseException as err:  # noqa: BLE001 - handed to the caller's thread, raised there
                    updates.put(("error", err))

            self.work_pool.submit(run)
            while True:
                kind, item = updates.get()
                if kind == "error":
                    raise item
                if kind == "final":
                    _no_route_in_time(context, item, call)
                    yield pb.OptimizeStreamResponse(solution=call.stamp(encoded(item)), final=True)
                    return
                yield pb.OptimizeStreamResponse(solution=call.stamp(convert.solution_to_proto(item)), final=False)

    def CheckRoutes(self, request, context):
        with guard(context, _source(request)), self._admitted(context) as call:

            def work():
                return api.check(
                    read_state(request, self.limits),
                    read_routes(request, self.limits),
                    with_optimum=request.with_optimum,
                    deadline_ms=call.search_deadline_ms(),
                    cancel=call.token,
                )

            response = convert.check_to_proto(self._on_work_thread(context, call, work))
            if request.with_optimum:
                call.stamp(response.optimum)
            return response

    def render_json(self, body: bytes, context) -> str:
        """``{"board": <board-state document>, "routes": [...]}`` drawn as SVG (the page's picture),
        bounded as a work call: the board within the limits, a running slot, the call's deadline."""
        with guard(context, "board"):
            checks.check_state_size(len(body), self.limits, "board")
            try:
                obj = json.loads(body)
                board, routes = obj["board"], obj.get("routes")
                if not isinstance(board, dict):
                    raise TypeError(type(board).__name__)
            except (ValueError, TypeError, KeyError, RecursionError):
                raise OptimizerError(
                    'the body must be {"board": <board-state document>, "routes": [...]}', field="(body)"
                ) from None
            checks.check_counts(board, self.limits)
            checks.check_numbers(board, self.limits)
            with self._admitted(context) as call:
                return self._on_work_thread(context, call, lambda: _render(board, routes))

    def ListGames(self, request, context):
        with guard(context):
            return convert.games_to_proto(api.games(), api.TRAIN_KINDS, api.other_titles())
