"""The readers' caches: one module holds them all with their bounds, and a bound is kept."""

from __future__ import annotations

import json

from optimizer.board import caches
from optimizer.board.state import clear_cache, is_shared, read_board_fast, read_board_text
from optimizer.board.tiles import parse_code, placed

from .corpus import state


def test_every_reader_cache_is_listed_with_its_size():
    clear_cache()
    read_board_fast(json.dumps(state("1830/26855@553")))
    sizes = caches.sizes()
    assert {"hexes", "keyed_hexes", "boards", "keyed_boards", "parse_code", "placed", "schema"} <= sizes.keys()
    assert sizes["hexes"] > 50 and sizes["boards"] == 1 and sizes["parse_code"] > 0


def test_a_hex_cache_at_its_bound_starts_again(monkeypatch):
    """Reaching the bound clears the cache whole (no eviction order to keep), so it never holds more."""
    monkeypatch.setattr(caches, "HEXES_MAX", 10)
    clear_cache()
    board = read_board_text(json.dumps(state("1830/26855@553")))
    assert board is not None and 0 < len(caches.HEXES) <= 10


def test_a_board_cache_at_its_bound_forgets_its_shared_boards(monkeypatch):
    monkeypatch.setattr(caches, "BOARDS_MAX", 1)
    clear_cache()
    doc = state("1830/26855@553")
    first = read_board_text(json.dumps(doc))
    assert is_shared(first) and read_board_text(json.dumps(doc)) is first  # the same board again: one lookup
    doc["trains"] = doc["trains"][:1]
    second = read_board_text(json.dumps(doc))
    assert is_shared(second) and not is_shared(first) and len(caches.BOARDS) == 1


def test_memoised_tile_functions_have_their_bounds_here():
    assert parse_code.cache_info().maxsize == caches.TILE_CODES_MAX
    assert placed.cache_info().maxsize == caches.PLACED_TILES_MAX
