"""What one call may cost: sizes, counts, numbers and time, the same for every transport.

gRPC (and the HTTP gateway) check a request against :class:`Limits` before any work is done
(:mod:`server.translation.checks`), so that a hostile or careless client gets RESOURCE_EXHAUSTED or
INVALID_ARGUMENT at once instead of a server busy for minutes. The call's deadline is the client's,
else the server's default, never more than the server's maximum (:func:`call_deadline`). Error
messages quote little of the input (:func:`capped`), so that they fit in the client's metadata limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from optimizer.board import limits as board_limits
from optimizer.errors import OptimizerError

INT64_MAX = 2**63 - 1
QUOTE_CHARS = 100  # the most of a client's input an error message repeats
MESSAGE_BYTES = 1000  # the longest error message (a status message and each detail)
NO_DEADLINE_S = 1e8  # gRPC reports "no deadline" as a huge remaining time


@dataclass(frozen=True)
class Limits:
    """What calls may cost, per worker process, over gRPC and HTTP alike (the one ``Limits`` of the
    server). Defaults fit the real boards of every built-in game many times over."""

    # Work calls (Optimize, OptimizeStream, CheckRoutes) running at once: more than cores, so that
    # the operating system shares the cores fairly and a hard search never starves an easy call.
    max_concurrent: int = 16
    max_queue: int = 16  # work calls waiting for one of those; more: RESOURCE_EXHAUSTED at once
    max_streams: int = 64  # other long-lived calls (reflection, health Watch) open at once
    default_deadline_s: float = 60.0  # for a call that brings no deadline
    max_deadline_s: float = 600.0  # a longer deadline is cut to this
    max_state_mb: float = 2.0  # state_json, or a structured board's encoded size
    max_hexes: int = 5000
    max_trains: int = 32  # also the most routes a CheckRoutes may check (one per train)
    max_number: int = board_limits.MAX_NUMBER  # any count, distance or revenue in a board ...
    max_multiplier: int = board_limits.MAX_MULTIPLIER  # ... and any multiplier (the board reader's bounds)
    max_message_mb: float = 4  # a gRPC message either way, or an HTTP request body
    max_inflight_mb: float = 8  # HTTP bodies held at once (a board costs 10 to 30 times its JSON while read)
    http_max_connections: int = 1000  # open HTTP connections (fewer under a low fd limit)
    http_header_timeout_s: float = 10.0  # an HTTP request's head must come within this
    http_body_timeout_s: float = 30.0  # and its body within this

    @property
    def threads(self) -> int:
        """Server threads: every admitted call gets one at once, with room left for health checks."""
        return self.max_concurrent + self.max_queue + self.max_streams + 16


class LimitExceeded(OptimizerError):
    """A request larger than this server takes: RESOURCE_EXHAUSTED, naming the field."""


# --- time ---------------------------------------------------------------------------------------


def call_deadline(limits: Limits, remaining_s: float | None) -> tuple:
    """(seconds the call may take, whose deadline: "client", "server_default" or "server_maximum")."""
    if remaining_s is None or remaining_s > NO_DEADLINE_S:
        return limits.default_deadline_s, "server_default"
    if remaining_s > limits.max_deadline_s:
        return limits.max_deadline_s, "server_maximum"
    return max(0.0, remaining_s), "client"


# --- messages -----------------------------------------------------------------------------------

_LONG_WORD = re.compile(rf"\S{{{QUOTE_CHARS + 1},}}")


def quote(text, limit: int = QUOTE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def capped(message: str, limit: int = MESSAGE_BYTES) -> str:
    """An error message with every long run of input cut short, and at most ``limit`` bytes in all."""
    message = _LONG_WORD.sub(lambda m: quote(m.group(0)), str(message))
    data = message.encode("utf-8", "replace")  # no lone surrogates on the wire
    if len(data) > limit:
        data = data[: limit - 10] + b" ... (cut)"
    return data.decode("utf-8", "ignore")
