"""A server process put together: the translation's servicer and HTTP app on the runtime's listeners.

``route18xx serve`` calls :func:`serve` (one process) or :func:`serve_workers` (a supervisor and worker
processes, each running :func:`serve` on the shared port). Nothing here imports grpc until a process
serves: the supervisor imports this module before it forks (see :mod:`server.runtime.workers`).
"""

from __future__ import annotations

from .runtime import process, workers
from .runtime.config import ServeConfig


def build_listeners(config: ServeConfig, serving=lambda: True) -> list:
    """The listeners of one process, sharing one servicer (so one set of limits and slots): gRPC, and
    HTTP/JSON with the players' page when it has a port; ``serving()`` False makes ``/healthz`` 503."""
    from .runtime.listeners import GrpcListener
    from .translation.service import RouteOptimizerService

    servicer = RouteOptimizerService(config.limits)
    listeners: list = [GrpcListener(config, servicer)]
    if config.http_port is not None:
        from .runtime.httpbudget import HttpBudget  # starlette and uvicorn only when serving HTTP
        from .runtime.listeners import HttpListener, listen
        from .translation import http

        app = http.build_app(
            servicer,
            cors_origins=config.cors_origins,
            serving=serving,
            budget=HttpBudget(config.limits),
            engine=config.engine,
        )
        listeners.append(
            HttpListener(
                app,
                [listen(config.host, config.http_port, reuse_port=config.reuse_port)],
                max_connections=config.limits.http_max_connections,
                header_timeout_s=config.limits.http_header_timeout_s,
            )
        )
    return listeners


def serve(config: ServeConfig = ServeConfig(), *, announce=print, on_ready=None) -> int:
    """One server process until SIGTERM, SIGINT or SIGHUP, then drained (:func:`server.runtime.process.run`)."""
    return process.run(config, lambda serving: build_listeners(config, serving), announce=announce, on_ready=on_ready)


def serve_workers(config: ServeConfig, count: int, *, announce=print) -> int:
    """``count`` pre-forked processes each running :func:`serve` on one port, and their supervisor."""
    return workers.serve_workers(config, count, serve=serve, announce=announce)
