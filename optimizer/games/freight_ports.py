"""Passenger, freight and doubler trains paid apart (the ``freight_ports`` family: 18VA).

18VA's trains are of three types by the last letter of their name (lib/engine/game/g_18_va/game.rb
#train_type: ``G`` freight, ``D`` doubler, else passenger), and #revenue_for adds to the plain sum of
a route's stops, each once a route:

- a tokened off-board (group ``OFFBOARD``) pays double, a doubler's four times; a doubler's untokened
  one double;
- a doubler pays plain cities (no group) double;
- freight and doubler trains pay a port (group ``PORT``) double, a freight train its linked city
  once more too (#freight_port_bonus: ``PORT_TO_CITY``);
- a route to CMD (group ``CMD``) earns 20 a train size (the name's first digit) above 1;
- a company holding the steamboat's assignment earns 10 (a doubler 20) on a route to its hex.

Every one of them is what one stop pays one train, so the family is priced in the values of
stops by train (``values_by_train_stop``), which both searches read. "Once a route" holds because the
stops of each group share one location (a route reaches one off-board, one port, one CMD), which
keeps our routes within the engine's (it prices only the first such stop of a route).

Its constraints (#check_distance, #check_port, #check_cmd): a port is closed to a company without a
token in its linked city (the stop is forbidden); only freight trains visit CMD (the mines' flag:
every other train ``MINES_NONE``); a passenger or doubler train counts at least 2 cities (ports and
towns, which pay them nothing, do not count). A freight train counts its towns and CMD too, so its
"2 paying non-port stops" is not the large cap; a freight route of one city and a port is the case
left (coverage.json names it).
"""

from __future__ import annotations

import re
from itertools import combinations

from ..model import PairBonus

FREIGHT, DOUBLER, PASSENGER = "freight", "doubler", "passenger"


def train_type(rule: dict, name: str) -> str:
    """#train_type: the name's last letter."""
    if name.endswith(rule.get("freight_suffix", "G")):
        return FREIGHT
    if name.endswith(rule.get("doubler_suffix", "D")):
        return DOUBLER
    return PASSENGER


def train_size(name: str) -> int:
    """``train.name[0].to_i``."""
    m = re.match(r"\d", name)
    return int(m.group()) if m else 0


def linked_city(board, rule: dict, hex_id: str):
    """(hex, city node) a port hex is linked to, or None (``PORT_TO_CITY``)."""
    target = rule.get("port_links", {}).get(hex_id)
    hx = board.hexes.get(target) if target else None
    if hx is None:
        return None
    node = next((n for n in hx.tile.nodes if n.kind == "city"), None)
    return (hx, node) if node is not None else None


def port_closed(board, company_id: str, rule: dict, hx, node) -> bool:
    """A port whose linked city holds no token of the company (#check_port, #port_link?)."""
    if rule.get("port_group", "PORT") not in node.groups:
        return False
    link = linked_city(board, rule, hx.id)
    if link is None:
        return True
    return not tokened_by(link[0], link[1], company_id)


def tokened_by(hx, node, company_id: str) -> bool:
    """Part::City#tokened_by?: a token of the company in the city's slots or among its extra tokens."""
    city = hx.cities.get(node.index)
    return city is not None and (company_id in city.tokens or company_id in city.extra)


def is_zone(rule: dict, node) -> bool:
    """A stop only freight trains visit (#check_cmd)."""
    return rule.get("zone_group", "CMD") in node.groups


def value_for(board, company, rule: dict, stop, spec, node) -> int:
    """What the stop pays the train under #revenue_for; ``node`` is the stop's tile node."""
    phase = board.phase_tiles
    kind = train_type(rule, spec.name)
    paid = spec.value_of(node.value(phase), stop.large, stop.kind)  # route_revenue: the row's multiplier
    total = paid
    groups = set(node.groups)
    if node.kind == "city" and not groups and kind == DOUBLER:
        total += paid
    if rule.get("offboard_group", "OFFBOARD") in groups:
        token = tokened_by(board.hexes[stop.hex], node, company.id)
        if kind == DOUBLER:
            total += (3 if token else 1) * paid
        elif token:
            total += paid
    if rule.get("port_group", "PORT") in groups and kind in (FREIGHT, DOUBLER):
        total += paid
        link = linked_city(board, rule, stop.hex) if kind == FREIGHT else None
        if link is not None:
            total += spec.value_of(link[1].value(phase), True, "city")
    if rule.get("zone_group", "CMD") in groups:
        total += int(rule.get("zone_per_size", 20)) * (train_size(spec.name) - 1)
    boat = rule.get("steamboat")
    if (
        boat
        and company.assignments.get(boat["assignment"])
        and board.hexes[stop.hex].assignments.get(boat["assignment"])
    ):
        total += int(boat["doubler_amount"] if kind == DOUBLER else boat["amount"])
    return total


def steamboat_pairs(board, company, rule: dict) -> list:
    """Pairs taking the steamboat's bonus back from a route through two stops of its hex (once a route;
    exact for all but a doubler's, whose 20 is taken back 10)."""
    boat = rule.get("steamboat")
    if not boat or not company.assignments.get(boat["assignment"]):
        return []
    pairs = []
    for hx in board.hexes.values():
        if hx.assignments.get(boat["assignment"]):
            stops = [hx.node_id(n.index) for n in hx.tile.nodes if n.is_stop]
            pairs += [PairBonus(a, b, -int(boat["amount"])) for a, b in combinations(stops, 2)]
    return pairs
