"""Trains whose distance is hex edges crossed, not stops (issue 27: "hex-counting trains"), as data.

A title declares ``hex_distance`` in its data file's ``revenue_rules``:

- ``trains``: which trains count hexes. ``"integer"``: a train whose distance is a number
  (lib/engine/game/g_1858/game.rb#hex_train?; every train of 1849 and 18Ireland is one, their
  ``#check_distance`` checks all); ``"all"``: those, and a train given as rows keeps its rows and may
  cross 99 (g_18_ny/game.rb#check_distance: ``limit = 99 if limit.is_a?(Array)``); ``{"suffix": "H"}``:
  a train whose name ends so (g_1844/game.rb#hex_train_name?); ``{"pattern": "F\\**$"}``: a train whose
  name matches the regular expression (g_1862/game.rb#train_type_by_name: ``/F\\**$/``, freight trains).
- ``count``: ``"edges"`` (the default: ``route.chains.sum`` of ``paths.each_cons(2)`` pairs on two hexes,
  g_18_ireland/game.rb#hex_edge_cost) or ``"hexes"`` (one more a route: g_1844/game.rb#route_hex_distance).
- ``double_gauge``: ``{"*": "narrow", "R6H": "broad"}``: a segment on that gauge counts its edges twice
  for the train (g_1849/game.rb#hex_edge_cost, #track_type: a segment's gauge is narrow where it has
  narrow track, else broad where it has broad, else dual); a segment with both broad and narrow track is
  run by no train ("Can only change track type at station").
- ``one_hex``: hexes a route crossing counts one edge less (g_18_ny/game.rb#route_distance: Springfield's
  E25, Toronto's E1 in the second edition). Taken off each segment over the hex, which is exact where any
  two of those segments cross a common side of it (a route crosses a side once): checked on every board.
- ``no_offboards``: a hex train visits no red off-board (g_1844/game.rb#check_other).
- ``only_gauge``: ``"broad"``: a hex train runs no segment with track of another gauge
  (g_18_ireland/game.rb#revenue_for: "Routes must use only broad gauge").
- ``train_gauge``: ``{"M": "narrow", "*": "broad"}``: every train, by the end of its name, runs one
  gauge and dual track, never the other gauge (g_1858/game.rb#check_track_type, #metre_gauge_train?:
  the 1858 family's M trains are metre gauge). A train that counts no hexes then gets a cap it never
  reaches (``UNCAPPED``), so that the segments it may not run are kept from it the same way.

A hex train visits any number of stops and is paid every one (lib/engine/game/base.rb#compute_stops:
the visited stops where the distance is a number).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..board.tiles import placed
from ..errors import BoardError
from ..model import TrainSpec
from ..model.trains import UNLIMITED

ROWS_CAP = 99  # a train given as rows, where every train counts hexes (G18NY#check_distance)
UNCAPPED = 1 << 19  # the cap of a train that counts no hexes but may not run some track (train_gauge)
OTHER_GAUGE = {"narrow": "broad", "broad": "narrow"}


def hex_spec(rule: dict, train, spec: TrainSpec) -> TrainSpec:
    """The train's caps under the title's ``hex_distance`` rule: a hex train visits and is paid every
    stop and crosses at most its distance in edges (its distance less one, counted in hexes)."""
    which = rule.get("trains", "integer")
    rows = isinstance(train.distance, list)
    if isinstance(which, dict) and "pattern" in which:
        counts = re.search(which["pattern"], str(train.name)) is not None and not rows
    elif isinstance(which, dict):
        counts = str(train.name).endswith(which["suffix"]) and not rows
    else:
        counts = not rows or which == "all"
    if not counts:
        return replace(spec, hex_cap=UNCAPPED) if rule.get("train_gauge") else spec
    if rows:
        return replace(spec, hex_cap=ROWS_CAP)
    cap = int(train.distance) - (1 if rule.get("count") == "hexes" else 0)
    u = UNLIMITED
    return replace(
        spec, visit_large=u, visit_small=u, visit_total=u, pay_large=u, pay_small=u, pay_total=u, hex_cap=cap
    )


def train_gauge(rule: dict, name: str) -> str:
    """The gauge a train runs under ``train_gauge`` ("" where the title has no such rule)."""
    gauges = rule.get("train_gauge") or {}
    return next((g for end, g in gauges.items() if end != "*" and str(name).endswith(end)), gauges.get("*", ""))


def track(board, hex_id: str, i: int) -> str:
    """The track kind of path ``i`` of a hex's tile ("broad", "narrow", "dual", ...)."""
    hx = board.hexes[hex_id]
    return placed(hx.tile.code, hx.rotation).paths[i].track


def gauge(board, seg) -> str:
    """A segment's gauge as G1849#track_type reads it: "narrow", "broad", "dual", or "mixed" (both)."""
    kinds = {track(board, hex_id, i) for hex_id, i in seg.paths}
    if "broad" in kinds and "narrow" in kinds:
        return "mixed"
    return "narrow" if "narrow" in kinds else ("broad" if "broad" in kinds else "dual")


def one_hex_sides(graph, hex_id: str) -> None:
    """Refuse a board where two segments over ``hex_id`` share no side of it: one route could then run
    both (a route crosses a side once), and the engine takes its edge off once a route, not once a
    segment."""
    crossing = []
    for seg in graph.segments:
        if hex_id in seg.hexes:
            crossing.append({r for r in seg.sides if hex_id in graph.side_names[r].split("/")})
    for k, sides in enumerate(crossing):
        if any(not (sides & other) for other in crossing[k + 1 :]):
            raise BoardError(
                f"hex {hex_id} counts as one hex edge less once a route, and its track lets a route cross it twice: "
                "not supported",
                field="hexes",
            )


def segment_costs(rule: dict, board, graph, spec: TrainSpec) -> list:
    """(hex edges, reason it may not run it or "") of each segment of the graph for a hex train."""
    doubled = (rule.get("double_gauge") or {}).get(spec.name, (rule.get("double_gauge") or {}).get("*"))
    one_hex = list(rule.get("one_hex", ()))
    for hex_id in one_hex:
        one_hex_sides(graph, hex_id)
    out = []
    for seg in graph.segments:
        edges = len(seg.hexes) - 1 - sum(1 for h in one_hex if h in seg.hexes)
        why = ""
        if rule.get("double_gauge"):
            kind = gauge(board, seg)
            if kind == "mixed":
                why = "its track changes gauge between stops (the engine: only at a station)"
            elif kind == doubled:
                edges *= 2
        only = rule.get("only_gauge")
        if only and any(track(board, hex_id, i) != only for hex_id, i in seg.paths):
            why = f"the {spec.name} train runs only on {only} gauge track"
        banned = OTHER_GAUGE.get(train_gauge(rule, spec.name), "")
        if banned and any(track(board, hex_id, i) == banned for hex_id, i in seg.paths):
            why = f"the {spec.name} train may not run {banned} gauge track"
        if rule.get("no_offboards") and (graph.stops[seg.a].red or graph.stops[seg.b].red):
            why = f"the {spec.name} train may not visit an off-board"
        out.append((edges, why))
    return out
