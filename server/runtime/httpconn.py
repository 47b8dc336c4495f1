"""HTTP connections a hostile client cannot make the server hold: uvicorn's h11 protocol, bounded.

uvicorn's own knobs do most of it. h11 (not httptools) reads at most ``MAX_HEAD_BYTES`` of a
request's head (``h11_max_incomplete_event_size``: a longer header or URL is answered 400 at once,
where httptools read 192 MiB of one), and stops reading while a request is answered, so that
pipelined requests wait in the client's socket, not in the server's memory; ``timeout_keep_alive``
closes a keep-alive connection idle after an answer. What uvicorn has no knob for, this class does:

- a header timeout: a request's whole head must arrive within ``header_timeout_s`` of the
  connection opening or of its last answer (uvicorn arms no timer before a first request, and
  any byte resets its keep-alive timer: a silent or trickling connection was held for ever);
- a connection limit below the process's file-descriptor limit (which gRPC shares; asyncio meeting
  that limit logs a traceback per accept, 5.7 MB/s, and answers nobody): at the limit, a new connection closes the one idle longest, so that a health check always gets in;
  when none is idle (every one has a call in flight) the new one is answered 503 and closed.
"""

from __future__ import annotations

import asyncio
import os
import resource
import time

from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_HEAD_BYTES = 64 * 1024  # request line and headers
KEEP_ALIVE_S = 5
FD_SHARE = 0.5  # of the file descriptors left when the server starts, the most HTTP connections take
# Connections asyncio accepts in one go (uvicorn's ``backlog``, also the listen queue) before any is
# handed to a protocol that may close it: the limit leaves room for one such burst.
ACCEPT_BURST = 128
_BUSY_BODY = b'{"code": 8, "message": "server busy: too many open connections; retry later"}\n'
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: application/json\r\n"
    b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(_BUSY_BODY), _BUSY_BODY)
)


def raise_fd_limit() -> int:
    """The soft limit on open files raised to the hard one (what an unprivileged process may); returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


def connection_limit(most: int) -> int:
    """``most``, or fewer: at most half the file descriptors this process has left, less one burst
    of accepts, so that gRPC, pipes and files always have theirs."""
    soft = raise_fd_limit()
    try:
        in_use = len(os.listdir("/proc/self/fd"))
    except OSError:
        in_use = 64
    return max(4, min(most, int((soft - in_use) * FD_SHARE) - ACCEPT_BURST))


def bounded_protocol(max_connections: int, header_timeout_s: float) -> type:
    """The protocol class uvicorn's ``http`` option takes, with these bounds."""
    return type(
        "BoundedH11Protocol",
        (BoundedH11Protocol,),
        {"max_connections": max_connections, "header_timeout_s": header_timeout_s},
    )


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header timeout and a connection limit (see the module)."""

    max_connections = 1000
    header_timeout_s = 10.0

    def connection_made(self, transport) -> None:
        self._header_timer: asyncio.TimerHandle | None = None
        self.idle_since = time.monotonic()
        super().connection_made(transport)
        if len(self.connections) > self.max_connections and not self._close_idlest():
            transport.write(BUSY)
            transport.close()
            return
        self._arm_header_timer()

    def connection_lost(self, exc) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if not self.is_idle():  # a request's head has come: its call runs under its own deadline
            self._disarm_header_timer()

    def on_response_complete(self) -> None:
        self.idle_since = time.monotonic()
        self._arm_header_timer()  # for the next request (disarmed at once if it is here already)
        super().on_response_complete()

    def is_idle(self) -> bool:
        """No request in flight: none yet, or the last one answered."""
        return self.cycle is None or self.cycle.response_complete

    # --- the bounds -------------------------------------------------------------------------------

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._header_timeout)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timeout(self) -> None:
        self._header_timer = None
        if self.is_idle() and not self.transport.is_closing():
            self.transport.close()

    def _close_idlest(self) -> bool:
        """Close the connection idle longest (not this one); False when every other has a call in flight."""
        idle = [c for c in self.connections if c is not self and isinstance(c, BoundedH11Protocol) and c.is_idle()]
        if not idle:
            return False
        victim = min(idle, key=lambda c: c.idle_since)
        self.connections.discard(victim)
        victim.transport.abort()  # its descriptor free now, not after a last write
        return True
