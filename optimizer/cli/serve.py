"""``serve``: run the gRPC service and HTTP/JSON beside it (see ``docs/grpc.md``, ``docs/http.md``)
until SIGTERM, SIGHUP or Ctrl-C."""

from __future__ import annotations

import logging
import sys

from ..errors import OptimizerError

LOG_LEVELS = ("debug", "info", "warning", "error")


def add_parser(sub):
    p = sub.add_parser(
        "serve",
        help="run the gRPC service, HTTP/JSON and the players' page",
        description="Serve the route optimiser over gRPC (service route18xx.v1.RouteOptimizer, with health "
        "checking and reflection) and the same RPCs over HTTP/JSON with the players' page at /, from "
        "one worker process per core. Prints 'listening on HOST:PORT, HTTP on http://HOST:PORT/' once "
        "ready; SIGTERM or SIGHUP drains gracefully. Every call, either way, is bounded: at most --max-concurrent "
        "run and --max-queue wait per worker (more: RESOURCE_EXHAUSTED), each under a deadline (the "
        "client's, else --default-deadline-s, at most --max-deadline-s), boards within the size limits.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1; 0.0.0.0 for all)")
    p.add_argument("--port", type=int, default=50051, help="port (default: 50051; 0 picks a free port)")
    p.add_argument(
        "--http-port",
        type=port_or_off,
        default=8080,
        metavar="PORT",
        help="HTTP/JSON and the page (default: 8080; 0 picks a free port; 'off' serves gRPC only)",
    )
    p.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        dest="cors_origins",
        help="let pages from ORIGIN (e.g. https://example.org, or * for any) call the HTTP API; repeatable",
    )
    p.add_argument(
        "--http-max-connections",
        type=int,
        default=1000,
        metavar="N",
        help="open HTTP connections per worker (default: 1000, fewer under a low open-files limit); at the "
        "limit a new connection closes the one idle longest",
    )
    p.add_argument(
        "--http-header-timeout-s",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds a client has to send a request's headers, from connecting or from its last answer (default: 10)",
    )
    p.add_argument(
        "--http-body-timeout-s",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds a client has to send a request's body once its headers have come (default: 30)",
    )
    p.add_argument(
        "--engine",
        metavar="DIR",
        help="an 18xx.games engine checkout (Ruby needed): the page then reviews a whole game's export "
        "(POST /page/review, the page at /review)",
    )
    p.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="server processes sharing the port (default: one per core; 1: this process alone)",
    )
    p.add_argument(
        "--max-concurrent",
        "--max-workers",
        dest="max_concurrent",
        type=int,
        default=16,
        metavar="N",
        help="work calls (Optimize, OptimizeStream, CheckRoutes) running at once per worker (default: 16)",
    )
    p.add_argument(
        "--max-queue",
        type=int,
        default=16,
        metavar="N",
        help="work calls waiting for one of those per worker; more get RESOURCE_EXHAUSTED (default: 16)",
    )
    p.add_argument(
        "--max-streams",
        type=int,
        default=64,
        metavar="N",
        help="other long-lived calls (reflection, health Watch) open at once per worker (default: 64)",
    )
    p.add_argument(
        "--default-deadline-s",
        type=float,
        default=60.0,
        metavar="S",
        help="deadline of a call that brings none (default: 60)",
    )
    p.add_argument(
        "--max-deadline-s",
        type=float,
        default=600.0,
        metavar="S",
        help="longest deadline a call gets, whatever it asks (default: 600)",
    )
    p.add_argument(
        "--max-state-mb",
        type=float,
        default=2.0,
        metavar="MB",
        help="largest board (state_json or structured) in MiB (default: 2)",
    )
    p.add_argument("--max-hexes", type=int, default=5000, metavar="N", help="most hexes on a board (default: 5000)")
    p.add_argument(
        "--max-trains",
        type=int,
        default=32,
        metavar="N",
        help="most trains on a board, and routes in a check (default: 32)",
    )
    p.add_argument(
        "--max-message-mb",
        type=float,
        default=4,
        metavar="MB",
        help="largest request or answer, in MiB (default: 4); larger requests get RESOURCE_EXHAUSTED",
    )
    p.add_argument("--tls-cert", metavar="PEM", help="serve TLS with this certificate chain (needs --tls-key)")
    p.add_argument("--tls-key", metavar="PEM", help="private key of --tls-cert")
    p.add_argument(
        "--tls-client-ca",
        metavar="PEM",
        help="mutual TLS: accept only clients whose certificate this CA signed (needs --tls-cert)",
    )
    p.add_argument(
        "--grace-s",
        type=float,
        default=10.0,
        metavar="S",
        help="on SIGTERM, seconds calls in flight get to finish before they are cancelled; the process "
        "exits within about a second more whatever runs (default: 10)",
    )
    p.add_argument(
        "--log-level", choices=LOG_LEVELS, default="info", help="log level on stderr (default: info: one line per call)"
    )
    p.set_defaults(run=run)


def port_or_off(text: str):
    if text == "off":
        return None
    port = int(text)
    if not 0 <= port <= 65535:
        raise ValueError(text)
    return port


def config_of(args):
    from server.runtime.config import ServeConfig
    from server.runtime.limits import Limits

    positive = {
        "--workers": 1 if args.workers is None else args.workers,
        "--max-concurrent": args.max_concurrent,
        "--max-streams": args.max_streams,
        "--default-deadline-s": args.default_deadline_s,
        "--max-deadline-s": args.max_deadline_s,
        "--max-state-mb": args.max_state_mb,
        "--max-hexes": args.max_hexes,
        "--max-trains": args.max_trains,
        "--http-max-connections": args.http_max_connections,
        "--http-header-timeout-s": args.http_header_timeout_s,
        "--http-body-timeout-s": args.http_body_timeout_s,
    }
    for option, value in positive.items():
        if not value > 0:
            raise OptimizerError(f"{option} must be positive", field=option)
    for option, value in {"--max-queue": args.max_queue, "--grace-s": args.grace_s}.items():
        if not value >= 0:
            raise OptimizerError(f"{option} must not be negative", field=option)
    limits = Limits(
        max_concurrent=args.max_concurrent,
        max_queue=args.max_queue,
        max_streams=args.max_streams,
        default_deadline_s=args.default_deadline_s,
        max_deadline_s=max(args.max_deadline_s, args.default_deadline_s),
        max_state_mb=args.max_state_mb,
        max_hexes=args.max_hexes,
        max_trains=args.max_trains,
        max_message_mb=args.max_message_mb,
        http_max_connections=args.http_max_connections,
        http_header_timeout_s=args.http_header_timeout_s,
        http_body_timeout_s=args.http_body_timeout_s,
    )
    return ServeConfig(
        host=args.host,
        port=args.port,
        limits=limits,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        tls_client_ca=args.tls_client_ca,
        grace_s=args.grace_s,
        http_port=args.http_port,
        cors_origins=tuple(args.cors_origins),
        engine=review_engine(args.engine),
    )


def review_engine(given: str | None) -> str | None:
    """``--engine``, checked before anything listens (the engine, Ruby and the Ruby client are there)."""
    if not given:
        return None
    from ..review import replay

    replay.ruby()
    replay.client_dir()
    return str(replay.engine_dir(given))


def run(args) -> int:
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s [%(process)d] %(name)s: %(message)s",
    )
    config = config_of(args)
    from server.app import serve, serve_workers  # no grpc here when forking
    from server.runtime.workers import default_workers, preload

    workers = args.workers or default_workers()
    announce = lambda line: print(line, flush=True)  # noqa: E731
    if workers == 1:
        preload()
        return serve(config, announce=announce)
    return serve_workers(config, workers, announce=announce)
