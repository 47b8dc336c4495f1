"""The gRPC health service of a server process: grpc_health's own servicer, in its blocking mode.

In its default (non-blocking) mode grpc_health's servicer sends a new status to each watcher while
holding its lock, through grpc's send callback, which waits for grpc's event thread; a watcher whose
stream closes at that moment runs its close callback on that thread, which waits for the lock: a
deadlock, seen when clients with health checking closed their channels during a stop (the server then
hung until killed). In blocking mode each watcher is a queue the servicer appends to (never waiting for
grpc) and a server thread sends from it, so the lock is held only for the append. A Watch then holds a
server thread while open, as a reflection stream does: both are among the ``max_streams`` the
interceptor caps, and the pool has a thread for each (:attr:`~server.runtime.limits.Limits.threads`).
"""

from __future__ import annotations

from grpc_health.v1 import health


def health_servicer() -> health.HealthServicer:
    """grpc_health's servicer, its watchers answered from server threads (see above)."""
    return health.HealthServicer(experimental_non_blocking=False)
