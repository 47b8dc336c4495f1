"""The track graph: stops joined by segments of track, with the identity the no-reuse rule needs.

A *segment* is one way a train can run from a stop to the next stop without meeting another: a
walk over tile paths that crosses hex sides and passes junctions and node-less track, never a
stop. A route is then a chain of segments. Each segment carries the pieces of track it uses:

- every hex side it crosses (two trains of a company, or one train twice, may not cross one side;
  two paths that share a side on one tile merge there, so this also covers switches), and
- every path it uses that touches no side (track between two nodes of one tile).

A walk crosses a side from a path of one tile to a path of the neighbouring tile only, so it never
changes direction at a switch. Stops are only those reachable from the company's tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..board.geometry import opposite
from ..board.tiles import placed
from ..model import Stop


@dataclass
class Segment:
    """Track between two stops, walked from ``a`` to ``b``."""

    a: int  # stop index
    b: int  # stop index
    sides: frozenset  # side ids crossed
    inner: frozenset  # ids of side-less paths used
    paths: tuple  # ((hex id, path index in the tile code), ...) in walking order
    hexes: tuple  # hex ids in walking order, consecutive repeats merged: the chain form
    a_terminal: bool  # leaves a by a terminal path: a must be a route end
    b_terminal: bool  # reaches b by a terminal path: b must be a route end

    @property
    def resources(self) -> frozenset:
        return self.sides | self.inner


@dataclass
class TrackGraph:
    stops: list  # Stop
    segments: list  # Segment, one per undirected piece (walk it either way)
    side_names: list  # side id -> "H12/H10": the two hexes it joins, for explanations
    inner_names: list  # inner path id -> "H12 path 3"

    def stop_index(self) -> dict:
        return {s.id: i for i, s in enumerate(self.stops)}

    @cached_property
    def segments_by_chain(self) -> dict:
        """Hex chain (a tuple, either way round) -> indexes of the segments over exactly those hexes."""
        out: dict = {}
        for j, seg in enumerate(self.segments):
            out.setdefault(seg.hexes, []).append(j)
            if seg.hexes[::-1] != seg.hexes:
                out.setdefault(seg.hexes[::-1], []).append(j)
        return out


# Track a path may continue on across a hex side (lib/engine/part/path.rb#tracks_match?, called by
# #walk with dual_ok): broad meets broad or dual, narrow meets narrow or dual, dual meets any; any
# other track (thin: 1822PNW's and 1822MX's sea lanes) meets none. A title whose tiles set
# ``ignore_gauge_walk`` (18Carolinas, 1844, 18Norway) crosses sides whatever the track.
MEETS = {"broad": frozenset({"broad", "dual"}), "narrow": frozenset({"narrow", "dual"})}


def tracks_meet(leaving: str, entering: str) -> bool:
    """Whether a walk on track ``leaving`` may go on to track ``entering`` across a hex side."""
    if leaving == "dual":
        return True
    meets = MEETS.get(leaving)
    return meets is not None and entering in meets


def side_name(hex_id: str, other: str) -> str:
    """The two hexes a side joins, "H12/H10", for explanations (each lane of a double track is named so
    too: rules read the hexes from it, DeclaredRules.gauge_halves)."""
    return f"{hex_id}/{other}"


def lanes_meet(lane0: tuple, lane1: tuple) -> bool:
    """Whether facing exits of lanes (width, index) meet across a side (lib/engine/part/path.rb#lane_match?:
    of one width, index i meets width-1-i; a narrower one meets the wider's lane facing its own, centred)."""
    (w0, i0), (w1, i1) = sorted((lane0, lane1))
    return i1 == w1 - 1 - (i0 + (w1 - w0) // 2)


ONE_LANE = (1, 0)  # (width, index) of track that is not laned: nearly all


def side_key(hex_id: str, edge: int, lane: tuple, other: str, other_lane: tuple) -> frozenset:
    """The piece of track a walk uses crossing a side: the side, and where either end has lanes, the
    lane at each end (the engine's #check_overlap keys track by hex, edge and lane index)."""
    if lane == other_lane == ONE_LANE:
        return frozenset(((hex_id, edge), (other, opposite(edge))))
    return frozenset(((hex_id, edge, lane[1]), (other, opposite(edge), other_lane[1])))


def walk_mode(rules) -> tuple:
    """(gauge checked at sides, track kind no route walks): the title's ``track_walk`` rule."""
    return rules.track_walk()


class _Tiles:
    """Per-hex rotated paths, indexed by end (cached per tile code and rotation)."""

    def __init__(self, board):
        self.paths = {}
        self.by_end = {}
        for hx in board.hexes.values():
            view = placed(hx.tile.code, hx.rotation)
            self.paths[hx.id] = view.paths
            self.by_end[hx.id] = view.by_end


def make_stops(board, rules) -> tuple:
    """Every revenue node on the map that the rules let a train visit, and its index by (hex, node)."""
    stops: list[Stop] = []
    stop_at: dict = {}
    for hx in board.hexes.values():
        for node in hx.tile.nodes:
            if not node.is_stop or rules.forbidden(hx, node):
                continue
            stop_at[(hx.id, node.index)] = len(stops)
            stops.append(rules.make_stop(hx, node))
    return stops, stop_at


def build_track_graph_reference(board, rules, reachable_only: bool = True) -> TrackGraph:
    """Walk the board's track from every stop; keep what the company can reach from its tokens
    (or everything, for explaining a route that reaches none). The reference twin of the cached
    walks of :mod:`optimizer.graph.walks`."""
    tiles = _Tiles(board)
    gauge, skip = walk_mode(rules)
    side_ids: dict = {}
    side_names: list = []
    inner_ids: dict = {}
    inner_names: list = []

    def side_of(hex_id, edge, lane, other_lane):
        other = board.hexes[hex_id].neighbors[edge]
        key = side_key(hex_id, edge, lane, other, other_lane)
        if key not in side_ids:
            side_ids[key] = len(side_names)
            side_names.append(side_name(hex_id, other))
        return side_ids[key]

    stops, stop_at = make_stops(board, rules)

    raw_segments: dict = {}

    def walk(start, hex_id, path_index, from_end, used_sides, used_inner, used_paths, hexes, first_terminal):
        path = tiles.paths[hex_id][path_index]
        if path.track == skip:
            return
        to_end = path.b if from_end == path.a else path.a
        used_paths = used_paths + ((hex_id, path_index),)
        hexes = hexes if hexes and hexes[-1] == hex_id else hexes + (hex_id,)
        if not path.edges:
            key = (hex_id, path_index)
            if key not in inner_ids:
                inner_ids[key] = len(inner_names)
                inner_names.append(f"{hex_id} path {path_index}")
            used_inner = used_inner | {inner_ids[key]}
        if to_end[0] == "node":
            node = board.hexes[hex_id].tile.nodes[to_end[1]]
            if node.is_stop:
                end = stop_at.get((hex_id, node.index))
                if end is not None and end != start:
                    seg = Segment(
                        start,
                        end,
                        frozenset(used_sides),
                        frozenset(used_inner),
                        used_paths,
                        hexes,
                        first_terminal,
                        path.terminal,
                    )
                    raw_segments.setdefault((start, end, seg.sides, seg.inner, seg.a_terminal, seg.b_terminal), seg)
                return
            # A junction: go on along any other path that meets it.
            if path.terminal:
                return
            for nxt in tiles.by_end[hex_id].get(to_end, ()):
                if nxt != path_index and (hex_id, nxt) not in used_paths:
                    walk(start, hex_id, nxt, to_end, used_sides, used_inner, used_paths, hexes, first_terminal)
            return
        if path.terminal:
            return  # a terminal path ends at its node, never continues through an edge
        edge = to_end[1]
        other = board.hexes[hex_id].neighbors.get(edge)
        if other is None:
            return
        entry = ("edge", opposite(edge))
        lane = path.lane_at(to_end)
        plain = lane == ONE_LANE
        side = side_of(hex_id, edge, lane, lane) if plain else None  # numbered where first met, track beyond or not
        if side is not None and side in used_sides:
            return
        for nxt in tiles.by_end[other].get(entry, ()):
            onward = tiles.paths[other][nxt]
            if gauge and not tracks_meet(path.track, onward.track):
                continue
            onward_lane = onward.lane_at(entry)
            if plain and onward_lane == ONE_LANE:
                crossed = side
            elif lanes_meet(lane, onward_lane):
                crossed = side_of(hex_id, edge, lane, onward_lane)
            else:
                continue
            if crossed in used_sides:
                continue
            walk(start, other, nxt, entry, used_sides | {crossed}, used_inner, used_paths, hexes, first_terminal)

    for (hex_id, n), s in stop_at.items():
        for i in tiles.by_end[hex_id].get(("node", n), ()):
            path = tiles.paths[hex_id][i]
            walk(s, hex_id, i, ("node", n), frozenset(), frozenset(), (), (), path.terminal)

    # One undirected segment per pair of mirror walks.
    segments = []
    seen = set()
    for key, seg in raw_segments.items():
        mirror = (seg.b, seg.a, seg.sides, seg.inner, seg.b_terminal, seg.a_terminal)
        if mirror in seen:
            continue
        seen.add(key)
        segments.append(seg)

    # Inner paths get resource ids after the sides.
    offset = len(side_names)
    segments = [
        Segment(s.a, s.b, s.sides, frozenset(offset + i for i in s.inner), s.paths, s.hexes, s.a_terminal, s.b_terminal)
        for s in segments
    ]
    graph = TrackGraph(stops, segments, side_names, inner_names)
    return reachable_part(graph) if reachable_only else graph


def reachable_part(graph: TrackGraph) -> TrackGraph:
    """Keep the stops and segments a route through one of our tokens can use."""
    adjacent: dict = {}
    for seg in graph.segments:
        adjacent.setdefault(seg.a, []).append((seg.b, seg.b_terminal))
        adjacent.setdefault(seg.b, []).append((seg.a, seg.a_terminal))
    start = [i for i, s in enumerate(graph.stops) if s.token]
    seen = set(start)
    passed = set(start)  # the stops a route may go on from: whichever way reaches them first
    frontier = list(start)
    while frontier:
        i = frontier.pop()
        for j, arrive_terminal in adjacent.get(i, ()):
            seen.add(j)
            # Reached j; go on from it if a route may pass through it (any track arriving there
            # not by a terminal path will do).
            if j not in passed and not arrive_terminal and not graph.stops[j].end_only:
                passed.add(j)
                frontier.append(j)
    keep = sorted(seen)
    renumber = {old: new for new, old in enumerate(keep)}
    stops = [graph.stops[i] for i in keep]
    segments = [
        Segment(renumber[s.a], renumber[s.b], s.sides, s.inner, s.paths, s.hexes, s.a_terminal, s.b_terminal)
        for s in graph.segments
        if s.a in renumber and s.b in renumber
    ]
    return TrackGraph(stops, segments, graph.side_names, graph.inner_names)
