"""``serve``: run the gRPC service and HTTP/JSON beside it (see ``docs/grpc.md``, ``docs/http.md``)
until SIGTERM or Ctrl-C."""
from __future__ import annotations

import logging
import sys

LOG_LEVELS = ("debug", "info", "warning", "error")


def add_parser(sub):
    p = sub.add_parser(
        "serve", help="run the gRPC service, HTTP/JSON and the players' page",
        description="Serve the route optimiser over gRPC (service route18xx.v1.RouteOptimizer, with health "
                    "checking and reflection) and the same RPCs over HTTP/JSON with the players' page at /. "
                    "Prints 'listening on HOST:PORT, HTTP on http://HOST:PORT/' once ready; SIGTERM drains "
                    "gracefully.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1; 0.0.0.0 for all)")
    p.add_argument("--port", type=int, default=50051, help="port (default: 50051; 0 picks a free port)")
    p.add_argument("--http-port", type=port_or_off, default=8080, metavar="PORT",
                   help="HTTP/JSON and the page (default: 8080; 0 picks a free port; 'off' serves gRPC only)")
    p.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN", dest="cors_origins",
                   help="let pages from ORIGIN (e.g. https://example.org, or * for any) call the HTTP API; repeatable")
    p.add_argument("--max-workers", type=int, default=16, metavar="N",
                   help="calls served at once (default: 16); searches use all cores whatever this is")
    p.add_argument("--max-message-mb", type=float, default=16, metavar="MB",
                   help="largest request or answer, in MiB (default: 16); larger requests get RESOURCE_EXHAUSTED")
    p.add_argument("--tls-cert", metavar="PEM", help="serve TLS with this certificate chain (needs --tls-key)")
    p.add_argument("--tls-key", metavar="PEM", help="private key of --tls-cert")
    p.add_argument("--grace-s", type=float, default=10.0, metavar="S",
                   help="on SIGTERM, seconds calls in flight get to finish before they are cancelled (default: 10)")
    p.add_argument("--log-level", choices=LOG_LEVELS, default="info",
                   help="log level on stderr (default: info: one line per call)")
    p.set_defaults(run=run)


def port_or_off(text: str):
    if text == "off":
        return None
    port = int(text)
    if not 0 <= port <= 65535:
        raise ValueError(text)
    return port


def run(args) -> int:
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from server.app import serve  # grpc is imported only by this subcommand
    return serve(host=args.host, port=args.port, max_workers=args.max_workers, max_message_mb=args.max_message_mb,
                 tls_cert=args.tls_cert, tls_key=args.tls_key, grace_s=args.grace_s,
                 http_port=args.http_port, cors_origins=args.cors_origins,
                 announce=lambda line: print(line, flush=True))
