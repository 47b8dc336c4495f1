"""Stops whose value follows the tokens placed on hexes themselves (``hex_tokens``), the family
``development_values`` of a game's data file: 1868 Wyoming's boom cities and Teapot Dome.

The engine keeps, for each hex, the number of development tokens on it and on the six hexes around it
(lib/engine/game/g_1868_wy/game.rb#increment_development_token_count, #decrement_development_token_count,
neighbours by Game::Base#hex_neighbor: every hex next to it on the map), plus those its phase's events
add without a token (#event_uranium_boom!, #event_uranium_bust!). A boom city pays the entry of its
tile's three-value table that count picks (#update_boomcity_revenue!: under 3 the first, at 3 the
second, from 4 the third). With ``bonus``, each of one player's tokens (the owner named by the pattern,
owned by the company's president, who holds the private company named) adds an amount to a boom city
stop on each hex next to it by the track's adjacency (#teapot_dome_bonuses, #teapot_dome_hex_bonus:
``token.hex.neighbors``). A board without ``hex_tokens`` says nothing of these tokens: its boom cities
keep their tile's value and the coverage lines the rule ``covers`` stay named.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..board import geometry


def boom_city(hx, node) -> bool:
    """A city of a laid tile marked ``boom:1`` whose value is a table of three (the engine's
    ``tile.cities.first&.boom`` on a tile not white, #update_boomcity_revenue!)."""
    if node.kind != "city" or hx.color == "white" or len(node.revenue) != 3:
        return False
    cities = [part.partition("=")[2] for part in hx.tile.code.split(";") if part.startswith("city=")]
    return bool(cities) and "boom:1" in cities[0].split(",")


def development_count(board, rule: dict, hex_id: str) -> int:
    """Development tokens on the hex and the hexes around it, and the phase's own (``phase_tokens``)."""
    around = _map_neighbours(board)
    hexes = {hex_id, *around.get(hex_id, {}).values()}
    kind = rule.get("token_type", "development")
    count = sum(1 for h in hexes for t in board.hexes[h].hex_tokens or () if t.type == kind)
    for placed in (rule.get("phase_tokens") or {}).get(board.phase_name, ()):
        if placed in hexes:
            count += 1
    return count


def boom_value(board, rule: dict, hx, node) -> int:
    """The entry of the node's table the hex's development count picks (``counts``: the counts from
    which the second and the third entry are paid)."""
    count = development_count(board, rule, hx.id)
    entry = sum(1 for at_least in rule.get("counts", (3, 4)) if count >= at_least)
    return int(node.revenue[entry][1])


def neighbour_token_bonus(board, rule: dict, hx, node) -> int:
    """``bonus``: its amount for each of the president's tokens (owner matching ``owners``) on a hex
    whose track neighbours include this boom city's hex, where the president holds ``company``."""
    bonus = rule.get("bonus")
    company = board.company
    if not bonus or bonus["company"] not in company.president_companies or company.owner is None:
        return 0
    total = 0
    for other in board.hexes.values():
        if hx.id not in other.neighbors.values():
            continue
        for t in other.hex_tokens or ():
            if t.player == company.owner and re.fullmatch(bonus["owners"], t.owner):
                total += int(bonus["amount"])
    return total


def _map_neighbours(board) -> dict:
    """Every hex next to each hex on the map (the engine's #hex_neighbor)."""
    return _neighbour_ids(tuple(board.hexes), board.layout)


@lru_cache(maxsize=8)
def _neighbour_ids(hex_ids: tuple, layout: str) -> dict:
    return geometry.neighbour_ids(hex_ids, layout)
