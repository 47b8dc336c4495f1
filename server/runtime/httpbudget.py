"""What the HTTP calls of one process share: threads and the bytes of bodies in flight.

Built from the one :class:`~server.runtime.limits.Limits`: the body size is gRPC's message limit, the
threads are as many as gRPC's pool has, and bodies held at once are bounded (a board costs some 10 to
30 times its JSON while it is read), so that HTTP and gRPC calls cost the same.
"""

from __future__ import annotations

import anyio

from .admission import MemoryBudget
from .limits import Limits


class HttpBudget:
    """The shared counters of the HTTP gateway: ``max_body`` bytes, ``body_timeout_s``, ``threads``
    (an anyio limiter) and ``memory`` (a :class:`~server.runtime.admission.MemoryBudget`)."""

    def __init__(self, limits: Limits):
        self.max_body = int(limits.max_message_mb * 1024 * 1024)
        self.body_timeout_s = limits.http_body_timeout_s
        self.threads = anyio.CapacityLimiter(limits.threads)
        self.memory = MemoryBudget(int(limits.max_inflight_mb * 1024 * 1024))
