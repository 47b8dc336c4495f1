"""The board-state document, read into plain objects and checked: the readers' entry points.

The document is the 18xx.games corpus state (input fields only; see ``schema/board.schema.json``).
Reading validates the shape first, then the meaning (tile codes, tokens, neighbours), and every
problem is a :class:`BoardError` that names the field and the hex. The package, one idea a module:

- :mod:`.model`: the read board's dataclasses (:class:`Board`, :class:`Hex`, ...);
- :mod:`.reference`: the reference reader (the JSON Schema, then plain Python over the dicts);
- :mod:`.fast`: the fast reader (msgspec in C, each hex read once), falling back to the reference;
- :mod:`.caches`: every cache the readers keep, with its bound;
- :mod:`.adjacency`: neighbours computed from the map when the document does not give them;
- :mod:`.tiles`, :mod:`.geometry`, :mod:`.document`: tile codes, hex coordinates, the msgspec structs.

Callers import from here: :func:`read_board` is the reader chosen for the process.
"""

from __future__ import annotations

from .adjacency import IMPASSABLE_COLOURS, computed_neighbors
from .caches import clear as clear_cache
from .caches import is_shared
from .fast import (
    FAST_PATH,
    board_by_key,
    board_from_hex_texts,
    board_from_keyed_hexes,
    board_from_structs,
    read_board_fast,
    read_board_text,
)
from .model import Board, City, Company, Hex, Train
from .reference import board_from_document, read_board_reference, schema, validate_schema

# The reader, chosen once (``OPTIMIZER_NO_FAST_PATH=1``: the reference reader everywhere).
read_board = read_board_fast if FAST_PATH else read_board_reference

__all__ = [
    "FAST_PATH",
    "IMPASSABLE_COLOURS",
    "Board",
    "City",
    "Company",
    "Hex",
    "Train",
    "board_by_key",
    "board_from_document",
    "board_from_hex_texts",
    "board_from_keyed_hexes",
    "board_from_structs",
    "clear_cache",
    "computed_neighbors",
    "is_shared",
    "read_board",
    "read_board_fast",
    "read_board_reference",
    "read_board_text",
    "schema",
    "validate_schema",
]
