"""What one call may cost: sizes, counts, numbers and time, the same for every transport.

gRPC (and the HTTP gateway) check a request against :class:`Limits` before any work is done, so
that a hostile or careless client gets RESOURCE_EXHAUSTED or INVALID_ARGUMENT at once instead of a
server busy for minutes. The call's deadline is the client's, else the server's default, never
more than the server's maximum (:func:`call_deadline`). Error messages quote little of the input
(:func:`capped`), so that they fit in the client's metadata limit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from optimizer.board import limits as board_limits
from optimizer.board.tiles import parse_code
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


# --- sizes and numbers --------------------------------------------------------------------------


def check_state_size(size: int, limits: Limits, field: str) -> None:
    if size > limits.max_state_mb * 1024 * 1024:
        raise LimitExceeded(
            f"{field} is {size / 2**20:.1f} MiB; this server takes boards up to {limits.max_state_mb:g} MiB",
            field=field,
        )


def check_counts(doc: dict, limits: Limits) -> None:
    """Hexes and trains within the limits (a tile-lay document counts its lays)."""
    for key, most in (("hexes", limits.max_hexes), ("lays", limits.max_hexes), ("trains", limits.max_trains)):
        items = doc.get(key)
        if isinstance(items, Sequence) and not isinstance(items, str) and len(items) > most:  # or a repeated field
            raise LimitExceeded(f"{key}: {len(items)} given; this server takes at most {most}", field=key)


def check_routes_count(routes, limits: Limits, field: str) -> None:
    if isinstance(routes, list) and len(routes) > limits.max_trains:
        raise LimitExceeded(
            f"{field}: {len(routes)} routes given; this server checks at most {limits.max_trains}", field=field
        )


def check_node_budget(budget: int) -> None:
    if budget > INT64_MAX:
        raise OptimizerError(f"node_budget: {budget} does not fit a signed 64-bit integer", field="node_budget")


# Only numbers of 6 digits or more can exceed max_number; a colour (``frame=color:#800080``, 1873)
# is no number, so a run of digits right after "#" or a hex digit of a colour is not one.
_NUMBER = re.compile(r"(?<![#0-9A-Fa-f])\d{6,}(?![0-9A-Fa-f])")


def check_numbers(doc: dict, limits: Limits) -> None:
    """Numbers the search would overflow on (counts, revenues, multipliers) refused, naming the field:
    the board reader's own check (:mod:`optimizer.board.limits`), made before the board is read."""
    board_limits.check_numbers(doc, limits.max_number, limits.max_multiplier)
    hexes = doc.get("hexes")
    for i, h in enumerate(hexes if isinstance(hexes, list) else ()):
        _check_hex_code(i, h, limits)


def _check_hex_code(i: int, h, limits: Limits) -> None:
    code = h.get("code") if isinstance(h, dict) else None
    if isinstance(code, str):
        for match in _NUMBER.finditer(code):
            if int(match.group(0)) > limits.max_number:
                hex_id = quote(h.get("id"), 20)
                try:
                    parse_code(code)  # an out-of-range revenue: the reader's own error
                except OptimizerError as err:
                    raise err.located(field=f"hexes[{i}].code", hex=hex_id) from None
                raise OptimizerError(
                    f"hexes[{i}].code: {quote(match.group(0))} is too large (at most {limits.max_number})",
                    field=f"hexes[{i}].code",
                    hex=hex_id,
                )


# Every digit to "0", anything else to " ": a number of 6 digits or more is then b"000000", which
# bytes.find looks for in C (a regular expression takes ~7x as long on a board's hexes).
_DIGITS_ONLY = bytes(b"0"[0] if chr(c).isdigit() and c < 128 else b" "[0] for c in range(256))


def check_hex_codes(hex_texts: list, limits: Limits) -> None:
    """:func:`check_numbers` on the hexes' codes, each hex given as its JSON text: one scan of them
    all, each hex decoded only when some number in it is long enough to matter."""
    if b"000000" not in b" ".join(hex_texts).translate(_DIGITS_ONLY):
        return
    for i, text in enumerate(hex_texts):
        if b"000000" in text.translate(_DIGITS_ONLY):
            _check_hex_code(i, json.loads(text), limits)


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def check_strings(doc, path: str = "") -> None:
    """No lone surrogate (``"\\ud800"`` in JSON) anywhere: it cannot be sent back in an answer."""
    if isinstance(doc, str):
        if _LONE_SURROGATE.search(doc):
            raise OptimizerError(
                f"{path or 'state_json'}: a lone UTF-16 surrogate is not a character", field=path or "state_json"
            )
    elif isinstance(doc, dict):
        for key, value in doc.items():
            check_strings(key, path or "state_json")
            check_strings(value, f"{path}.{key}" if path else str(key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            check_strings(value, f"{path}[{i}]")


def has_lone_surrogate_escape(text: str) -> bool:
    """Cheap test on JSON text before walking the document: any escaped surrogate at all."""
    return "\\u" in text and _SURROGATE_ESCAPE.search(text) is not None


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
