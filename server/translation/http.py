"""The HTTP/JSON gateway: every RPC at the path its HTTP rule names, plus the page.

Translate only: a request body is parsed with protobuf's JSON mapping (:mod:`server.translation.jsonform`)
into the RPC's request message and handed to the same servicer method gRPC calls, with an
:class:`~server.runtime.httpcontext.HttpContext` standing in for the gRPC context; so answers, errors and
deadlines are the service's own. The routes are read from the gRPC API configuration beside the proto
(:mod:`server.translation.httprules`), not listed here.

- errors: a ``google.rpc.Status`` JSON body with the HTTP status of its code (INVALID_ARGUMENT 400,
  RESOURCE_EXHAUSTED 413, DEADLINE_EXCEEDED 504, ...);
- deadline: the ``X-Deadline-Ms`` header is the call's deadline, as a gRPC deadline is;
- the stream: one ``OptimizeStreamResponse`` JSON per line (``application/x-ndjson``); an error
  after the first line comes as a last line ``{"error": <Status>}``;
- limits: bodies over ``Limits.max_message_mb`` are RESOURCE_EXHAUSTED (413), like gRPC's message limit
  (:class:`~server.runtime.httpbudget.HttpBudget`);
- ``GET /healthz``; CORS for the origins given; the players' page at ``/`` (:mod:`server.translation.web`).

:func:`build_app` is the ASGI app; :class:`server.runtime.listeners.HttpListener` serves it. Each call
is logged as gRPC's are (logger ``server.calls``: method, code, latency).
"""

from __future__ import annotations

import functools
import json
import logging
import time

import anyio
from google.rpc import code_pb2, status_pb2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from optimizer.errors import OptimizerError, decoded_json

from ..generated.route18xx.v1 import route_optimizer_pb2 as pb
from ..runtime.admission import Overloaded
from ..runtime.httpbudget import HttpBudget
from ..runtime.httpcontext import Aborted, HttpContext
from ..runtime.limits import NO_DEADLINE_S, Limits
from . import httprules, jsonform, review, web
from .errors import busy_status, invalid_argument_status
from .httpstatus import abort, error_response, read_body, status_json

log = logging.getLogger("server.calls")

DEADLINE_HEADER = "x-deadline-ms"
NDJSON = "application/x-ndjson"


# --- reading a request --------------------------------------------------------------------------


def call_context(request) -> HttpContext:
    """The call's context: its deadline from ``X-Deadline-Ms``, its headers as metadata."""
    deadline = None
    raw = request.headers.get(DEADLINE_HEADER)
    if raw is not None:
        try:
            ms = float(raw)
        except ValueError:
            ms = -1.0
        if not ms > 0 or ms != ms or ms == float("inf"):
            raise Aborted(
                invalid_argument_status(
                    OptimizerError(
                        f"X-Deadline-Ms must be a positive number of milliseconds, not {raw!r}", field="X-Deadline-Ms"
                    )
                )
            )
        # a deadline past any the server grants is its maximum (not "no deadline", as gRPC reports one)
        deadline = time.monotonic() + min(ms / 1000, NO_DEADLINE_S / 2)
    client = request.client
    return HttpContext(
        deadline=deadline,
        metadata=tuple(request.headers.items()),
        peer=f"ipv4:{client.host}:{client.port}" if client else "",
    )


async def read_message(request, message_class, budget: HttpBudget, hold):
    """The RPC's request message from the JSON body (an empty body: an empty message)."""
    body = await read_body(request, budget.max_body, hold, budget.body_timeout_s)
    if not body.strip():
        return message_class()
    try:
        obj = decoded_json(body, field="(body)", what="the body is ")
    except OptimizerError as err:
        raise Aborted(invalid_argument_status(err)) from None
    try:
        return jsonform.parse_request(obj, message_class)
    except OptimizerError as err:
        raise Aborted(invalid_argument_status(err)) from None


# --- calling the servicer -----------------------------------------------------------------------


async def in_thread(fn, context: HttpContext, limiter, request=None):
    """``fn()`` on a worker thread, ended like a gRPC call at the context's deadline, or (given the
    ``request``) as soon as its client goes away: ending the context stops the work at once."""
    remaining = context.time_remaining()
    result, error, done = None, None, False
    async with anyio.create_task_group() as group:
        if request is not None:
            group.start_soon(_end_when_gone, request, context)
        with anyio.move_on_after(remaining):
            try:
                result = await anyio.to_thread.run_sync(fn, abandon_on_cancel=True, limiter=limiter)
                done = True
            except Exception as err:  # noqa: BLE001 - raised below, outside the task group
                error = err
        group.cancel_scope.cancel()
    if error is not None:
        raise error
    if done:
        return result
    context.end()  # trips the search's cancel token
    abort(code_pb2.DEADLINE_EXCEEDED, "deadline exceeded")


async def _end_when_gone(request, context: HttpContext) -> None:
    """End the call when its client disconnects (the body is read by now: only that can come)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
    context.end()


def _log(name: str, code: int, start: float) -> None:
    log.info("HTTP %s %s %.1f ms", name, code_pb2.Code.Name(code), (time.monotonic() - start) * 1000)


def work_endpoint(name: str, budget: HttpBudget, work):
    """A call that works on a thread: ``await work(request, context, hold)`` gives its response. The
    call's context ends whatever happens, busy is 503, an abort is its status, and every call is logged
    with its code."""

    async def endpoint(request):
        start, context, code = time.monotonic(), None, code_pb2.INTERNAL
        try:
            context = call_context(request)
            with budget.memory.held() as hold:
                response = await work(request, context, hold)
            code = code_pb2.OK
            return response
        except Overloaded as err:
            code = code_pb2.RESOURCE_EXHAUSTED
            return error_response(busy_status(str(err)))
        except Aborted as err:
            code = err.status.code
            return error_response(err.status)
        finally:
            if context is not None:
                context.end()
            _log(name, code, start)

    return endpoint


def unary_endpoint(name, method, message_class, budget):
    async def work(request, context, hold):
        message = await read_message(request, message_class, budget, hold)
        answer = await in_thread(functools.partial(method, message, context), context, budget.threads, request)
        return JSONResponse(jsonform.to_json(answer))

    return work_endpoint(name, budget, work)


def stream_endpoint(name, method, message_class, budget):
    async def endpoint(request):
        start, context = time.monotonic(), None
        try:
            context = call_context(request)
            with budget.memory.held() as hold:  # the board is read by the first step
                message = await read_message(request, message_class, budget, hold)
                answers = method(message, context)  # a generator: nothing has run yet
                step = functools.partial(next, answers, None)
                first = await in_thread(step, context, budget.threads)  # a bad board fails here, as a status
        except Overloaded as err:
            if context is not None:
                context.end()
            _log(name, code_pb2.RESOURCE_EXHAUSTED, start)
            return error_response(busy_status(str(err)))
        except Aborted as err:
            if context is not None:
                context.end()
            _log(name, err.status.code, start)
            return error_response(err.status)

        async def lines():
            code = code_pb2.CANCELLED  # unless it ends otherwise: the client went away
            try:
                answer = first
                while answer is not None:
                    yield json.dumps(jsonform.to_json(answer), separators=(",", ":")) + "\n"
                    answer = await in_thread(step, context, budget.threads)
                code = code_pb2.OK
            except Aborted as err:
                code = err.status.code
                yield json.dumps({"error": status_json(err.status)}) + "\n"
            finally:
                context.end()  # also when the client went away: stops the search
                _log(name, code, start)

        return StreamingResponse(lines(), media_type=NDJSON)

    return endpoint


def rpc_routes(service, budget: HttpBudget) -> list:
    """One route per RPC that has an HTTP rule, at the rule's method and path."""
    routes = []
    descriptor = pb.DESCRIPTOR.services_by_name["RouteOptimizer"]
    rules = httprules.read_rules(descriptor)
    for rpc in descriptor.methods:
        rule = rules.get(rpc.name)
        if rule is None:
            continue
        verb = rule.WhichOneof("pattern")
        message_class = getattr(pb, rpc.input_type.name)
        make = stream_endpoint if rpc.server_streaming else unary_endpoint
        routes.append(
            Route(
                getattr(rule, verb),
                make(rpc.name, getattr(service, rpc.name), message_class, budget),
                methods=[verb.upper()],
                name=rpc.name,
            )
        )
    return routes


# --- the app and its server ---------------------------------------------------------------------


def render_endpoint(service, budget: HttpBudget):
    """``POST /page/render``: the page's picture, bounded as a work call (see :mod:`server.translation.web`)."""

    async def work(request, context, hold):
        body = await read_body(request, budget.max_body, hold, budget.body_timeout_s)
        svg = await in_thread(functools.partial(service.render_json, body, context), context, budget.threads, request)
        return Response(svg, media_type="image/svg+xml")

    return work_endpoint("Render", budget, work)


def build_app(
    service, *, cors_origins=(), budget: HttpBudget | None = None, serving=lambda: True, engine: str | None = None
) -> Starlette:
    """The ASGI app: the RPCs, ``/healthz``, the page; ``serving()`` False makes health answer 503;
    with an ``engine`` checkout the page reviews whole games (:mod:`server.translation.review`)."""
    budget = budget or HttpBudget(Limits())

    async def healthz(request):
        ok = serving()
        return JSONResponse({"status": "SERVING" if ok else "NOT_SERVING"}, status_code=200 if ok else 503)

    routes = (
        rpc_routes(service, budget)
        + [Route("/healthz", healthz, methods=["GET"])]
        + web.routes(render_endpoint(service, budget))
    )
    routes += review.routes(engine)
    middleware = []
    if cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["Content-Type", "X-Deadline-Ms"],
                max_age=600,
            )
        )
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: http_error})  # type: ignore[dict-item]  # for HTTPException only
    # no redirect from /static to /static/: it names the Host the client sent, whatever it is
    app.router.redirect_slashes = False
    return app


async def http_error(request, err: HTTPException):
    """No such path or method: a ``google.rpc.Status`` body too, with the HTTP status starlette chose."""
    code = {404: code_pb2.NOT_FOUND, 405: code_pb2.UNIMPLEMENTED}.get(err.status_code, code_pb2.INVALID_ARGUMENT)
    message = f"{request.method} {request.url.path}: {err.detail}"
    return JSONResponse(
        status_json(status_pb2.Status(code=code, message=message)), status_code=err.status_code, headers=err.headers
    )
