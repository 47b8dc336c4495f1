"""Every module-level cache of the board readers, with its bound, in one place.

The readers remember what they read (tile codes, hexes, whole boards) so that a game's next board,
or the same board asked again, costs a few lookups. Everything kept is read-only once kept, and
every cache is cleared whole when it reaches its bound (no eviction order to keep). Each cache is
named here with its bound and what its keys are, so what the process can hold is read in one place.
"""

from __future__ import annotations

from functools import lru_cache

# ---- bounds --------------------------------------------------------------------------------------
HEXES_MAX = 20_000  # hexes read: a few games in play; ~1,100 entries for the whole public corpus
BOARDS_MAX = 512  # whole boards read: the whole public corpus is 470
TILE_CODES_MAX = 4096  # tile codes parsed (tiles.parse_code)
PLACED_TILES_MAX = 16384  # tile codes turned to a rotation (tiles.placed)
COORDINATE_INDEXES_MAX = 64  # maps' coordinate indexes (adjacency), one per set of hex ids

# ---- the fast reader's caches --------------------------------------------------------------------
# Hexes read before, by their (hashable) document struct or their JSON text: the map's pre-printed
# hexes and every unchanged tile of a game's next board cost one lookup. Each entry: (Hex, neighbours
# given, ids of its neighbours).
HEXES: dict = {}
# Hexes read before, by a key their caller gives (a structured message's serialized bytes: the
# server's ``Board``): kept apart from HEXES, whose keys are JSON texts and structs.
KEYED: dict = {}
# Boards read before, by their hexes' entries (by identity: each entry is one per hex content) and
# the JSON of the rest. Each value is (entries, board): it keeps its entries alive, so that their ids
# in the key stay theirs.
BOARDS: dict = {}
# id -> Board: the boards in BOARDS (handed out again for the same document: read-only).
SHARED: dict = {}
# Boards read before, by a key their caller gives for the whole board (a structured message's bytes).
# Every board in it is in SHARED; it is cleared with BOARDS.
KEYED_BOARDS: dict = {}

_MEMOS: list = []  # the functions memoised by :func:`bounded`


def bounded(limit: int):
    """``functools.lru_cache(maxsize=limit)``, the function listed here (see :func:`sizes`)."""

    def wrap(function):
        memo = lru_cache(maxsize=limit)(function)
        _MEMOS.append(memo)
        return memo

    return wrap


def remember(key, entry, cache: dict = HEXES):
    """``entry`` kept under ``key`` in a hex cache (None is never kept); returns it."""
    if entry is not None:
        if len(cache) >= HEXES_MAX:
            cache.clear()
        cache[key] = entry
    return entry


def remember_board(key, entries: list, board) -> None:
    """A board read from its hexes' entries, kept for the same document again."""
    if len(BOARDS) >= BOARDS_MAX:
        BOARDS.clear()
        SHARED.clear()
        KEYED_BOARDS.clear()
    BOARDS[key] = (entries, board)
    SHARED[id(board)] = board


def remember_keyed_board(key, board) -> None:
    """A shared board kept under its caller's key too."""
    if len(KEYED_BOARDS) >= BOARDS_MAX:
        KEYED_BOARDS.clear()
    KEYED_BOARDS[key] = board


def is_shared(board) -> bool:
    """The board is one the fast reader hands out again for the same document (read-only)."""
    return SHARED.get(id(board)) is board


def clear() -> None:
    """Forget the hexes and boards read so far (to measure a first board); parsed tile codes stay."""
    HEXES.clear()
    KEYED.clear()
    KEYED_BOARDS.clear()
    BOARDS.clear()
    SHARED.clear()


def sizes() -> dict:
    """How many entries each cache holds now (for a service's health and for measuring)."""
    out = {name: len(cache) for name, cache in (("hexes", HEXES), ("keyed_hexes", KEYED), ("boards", BOARDS))}
    out["keyed_boards"] = len(KEYED_BOARDS)
    for memo in _MEMOS:
        out[memo.__name__] = memo.cache_info().currsize
    return out
