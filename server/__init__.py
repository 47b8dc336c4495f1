"""The gRPC service of the route optimiser, with HTTP/JSON and the players' page beside it; see ``docs/grpc.md``.

Two rooms, one way (import-linter checks it):

- :mod:`server.translation`: protocol messages and HTTP/JSON to :mod:`optimizer.api` calls and back,
  errors to statuses; its work runs on the runtime's pool, admission and limits.
- :mod:`server.runtime`: what calls may cost (one :class:`~server.runtime.limits.Limits`), admission
  and the watchdog, the thread pool, the listeners, health, one process's life and the workers'
  supervisor; it knows nothing of boards.

:mod:`server.app` puts them together into a server process; :mod:`server.client` is a Python client;
:mod:`server.generated` holds the stubs that ``python -m server.generate`` writes.
"""
