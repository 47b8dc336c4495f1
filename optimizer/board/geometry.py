"""Hex coordinates: ids like ``H12`` to integer (x, y), and neighbours by edge.

The letter part is its index in A..Z, AA..AZ (A = 0), and a lower-case letter a..z is a column
left of A (a = -1, b = -2: the engine's ``NEGATIVE_LETTERS``); the number n, negative too (``G-1``),
becomes n - 1. The layout's axes say which one is x. Edge numbers follow the offsets of the
18xx.games engine (``lib/engine/hex.rb``, ``Hex.init_x_y``).
"""

from __future__ import annotations

import re

from ..errors import BoardError

HEX_ID = re.compile(r"^([A-Z]{1,2}|[a-z])(-?\d{1,3})$")

# edge -> (dx, dy), per layout
DIRECTIONS = {
    "pointy": {0: (-1, 1), 1: (-2, 0), 2: (-1, -1), 3: (1, -1), 4: (2, 0), 5: (1, 1)},
    "flat": {0: (0, 2), 1: (-1, 1), 2: (-1, -1), 3: (0, -2), 4: (1, -1), 5: (1, 1)},
}
# Which of letter / number is x, per layout (the engine's defaults, used by all five games).
AXES = {"pointy": ("number", "letter"), "flat": ("letter", "number")}


def letters_index(letters: str) -> int:
    if letters.islower():
        return -(ord(letters) - ord("a") + 1)
    if len(letters) == 1:
        return ord(letters) - ord("A")
    return 26 + ord(letters[1]) - ord("A") + 26 * (ord(letters[0]) - ord("A"))


def hex_xy(hex_id: str, layout: str) -> tuple[int, int]:
    match = HEX_ID.match(hex_id) if isinstance(hex_id, str) else None
    if not match:
        raise BoardError(f"bad hex id {hex_id!r} (letters then a number, like H12, AA-1 or a12)", hex=str(hex_id))
    if layout not in AXES:
        raise BoardError(f"unknown layout {layout!r} (pointy or flat)", field="layout")
    letter = letters_index(match.group(1))
    number = int(match.group(2)) - 1
    return (number, letter) if AXES[layout][0] == "number" else (letter, number)


def opposite(edge: int) -> int:
    return (edge + 3) % 6


def neighbour_ids(hex_ids, layout: str) -> dict[str, dict[int, str]]:
    """Every on-map neighbour of every hex, by edge."""
    at = {hex_xy(h, layout): h for h in hex_ids}
    out = {}
    for (x, y), h in at.items():
        out[h] = {e: at[(x + dx, y + dy)] for e, (dx, dy) in DIRECTIONS[layout].items() if (x + dx, y + dy) in at}
    return out


def hex_center(hex_id: str, layout: str, size: float = 1.0) -> tuple[float, float]:
    """Pixel centre of a hex for drawing; consistent with the edge offsets above."""
    x, y = hex_xy(hex_id, layout)
    if layout == "pointy":
        # x steps of 2 per column pair, y one row: width sqrt(3)*size per 2 x-units.
        return (x * size * 3**0.5 / 2, y * size * 1.5)
    return (x * size * 1.5, y * size * 3**0.5 / 2)
