"""Freight trains paid by their ends and the crow-flight distance between them (1862), as data.

A title declares ``freight_trains`` in its data file's ``revenue_rules``: ``{"pattern", "bonus",
"port_bonus"}``. A train whose name matches ``pattern`` (g_1862/game.rb#train_type_by_name:
``/F\\**$/``) is paid only the two ends of its route (#freight_revenue_stops, #compute_stops), plus
``bonus`` (``port_bonus`` where an end is on a blue hex: #freight_bonus, FREIGHT_BONUS 20,
PORT_FREIGHT_BONUS 30) for each hex between its ends as the crow flies (#hex_crow_distance, on the
double-height coordinates of #doubleheight_coordinates; an off-board end counts from the hex its route
enters it from, plus one: #adjust_end). (No route runs from
red off-board to red off-board, nor port to port: the family ``unlike_ends``.)

The engine pays a *set* of freight trains meeting end to end as one route (#freight_sets,
#freight_set_ends); this module prices each freight route as its own set, which is the engine's price
where a run has one freight train (the company's other routes are named unsupported in coverage.json).
"""

from __future__ import annotations

import re


def freight_terms(rule: dict | None, name: str) -> tuple | None:
    """(bonus, port bonus) of a train under the title's ``freight_trains`` rule; None for another train."""
    if not rule or re.search(rule["pattern"], str(name)) is None:
        return None
    return (int(rule["bonus"]), int(rule["port_bonus"]))


def _coordinates(hex_id: str) -> tuple:
    """g_1862/game.rb#doubleheight_coordinates: the letter's distance from A, and the number."""
    return ord(hex_id[0]) - ord("A"), int(hex_id[1:])


def _entered_from(problem, stop: int, seg: int) -> str:
    """The hex a route over segment ``seg`` ending at ``stop`` leaves last before it (#adjust_end)."""
    segment = problem.graph.segments[seg]
    hexes = segment.hexes if segment.b == stop else segment.hexes[::-1]
    return hexes[-2] if len(hexes) >= 2 else hexes[-1]


def crow_distance(problem, stops: list, segs: list) -> int:
    """g_1862/game.rb#hex_crow_distance between the route's ends, off-board ends adjusted."""
    graph = problem.graph
    ends = []
    for stop, seg in ((stops[0], segs[0]), (stops[-1], segs[-1])):
        here = graph.stops[stop].hex
        offboard = graph.stops[stop].kind == "offboard"
        ends.append((_entered_from(problem, stop, seg) if offboard else here, offboard))
    (hex_a, adj_a), (hex_b, adj_b) = ends
    x_a, y_a = _coordinates(hex_a)
    x_b, y_b = _coordinates(hex_b)
    dx, dy = abs(x_a - x_b), abs(y_a - y_b)
    distance = -1 if hex_a == hex_b else max(0, dx + max(0, (dy - dx) // 2) - 1)
    return max(0, distance + adj_a + adj_b)


def freight_price(problem, t: int, stops: list, segs: list) -> tuple:
    """(revenue, paid stops) of freight train t's route: its ends' values and the crow-flight bonus."""
    bonus, port_bonus = problem.freight_by_train[t]
    a, b = stops[0], stops[-1]
    colours = [problem.board.hexes[problem.graph.stops[s].hex].color for s in (a, b)]
    values = problem.values_by_train_stop[t]
    per_hex = port_bonus if "blue" in colours else bonus
    return int(values[a]) + int(values[b]) + crow_distance(problem, stops, segs) * per_hex, [a, b]
