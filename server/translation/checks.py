"""A request's board and routes checked against the server's :class:`~server.runtime.limits.Limits`
before any work: sizes and counts (RESOURCE_EXHAUSTED), numbers the search would overflow on and
strings that cannot be sent back (INVALID_ARGUMENT), each naming the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from optimizer.board import limits as board_limits
from optimizer.board.tiles import parse_code
from optimizer.errors import OptimizerError

from ..runtime.limits import INT64_MAX, LimitExceeded, Limits, quote

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
