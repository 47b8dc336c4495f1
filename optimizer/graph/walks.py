"""The track graph built from walks cached per stop: a game's next board re-walks only what changed.

The walks from one stop (see :mod:`optimizer.graph.track`) depend on nothing but the tiles,
rotations and neighbours of the hexes they read, and on no rule: they stop at every revenue node.
So they are kept per process, by stop, with the track of every hex they read, and reused while
those hexes are unchanged. They are kept with symbolic track (side and path keys, not numbers);
replaying them in stop order numbers the track exactly as the reference walk does, so both give
the same graph, segment for segment.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, count
from operator import attrgetter

from ..board.geometry import opposite
from ..board.state import FAST_PATH
from ..board.tiles import placed
from ..games.base import Rules
from .track import (
    ONE_LANE,
    Segment,
    TrackGraph,
    build_track_graph_reference,
    lanes_meet,
    side_key,
    side_name,
    tracks_meet,
    walk_mode,
)

EMPTY: frozenset = frozenset()
_SIDES_MET: dict = {}  # side key -> the one object for it, so that walks' keys compare by identity
_SIDES_MET_MAX = 100_000  # ~1,500 for the whole public corpus


@dataclass(eq=False, slots=True)
class Walks:
    """Every walk from one stop, with what it read (compared by identity: one object per walk;
    never changed once made, shared between boards)."""

    touched: tuple  # ((hex id, hex, its track), ...): every hex read, as it was
    sides: tuple  # ((side key, name), ...): sides met, in the order the walk first met them
    side_keys: tuple  # the side keys of ``sides``
    read: frozenset  # the ids of the hexes touched
    inner: tuple  # ((hex id, path index), ...): side-less paths used, in order of first use
    found: tuple  # (end (hex, node), side keys, inner keys, paths, hexes, a_terminal, b_terminal)
    ends: tuple  # the ends (hex, node) of ``found``


def walks_from(board, hex_id: str, n: int, mode: tuple = (True, None)) -> Walks:
    """Walk the track from node ``n`` of ``hex_id``; the reference walk with symbolic track
    (``mode``: :func:`~optimizer.graph.track.walk_mode`)."""
    gauge, skip = mode
    if len(_SIDES_MET) >= _SIDES_MET_MAX:
        _SIDES_MET.clear()
    start = (hex_id, n)
    touched = {hex_id}
    sides: dict = {}
    inner: dict = {}
    found = []
    hexes_of = board.hexes

    def walk(hex_id, path_index, from_end, used_sides, used_inner, used_paths, hexes, first_terminal):
        hx = hexes_of[hex_id]
        view = placed(hx.tile.code, hx.rotation)
        path = view.paths[path_index]
        if path.track == skip:
            return
        to_end = path.b if from_end == path.a else path.a
        used_paths = used_paths + ((hex_id, path_index),)
        hexes = hexes if hexes and hexes[-1] == hex_id else hexes + (hex_id,)
        if path.a[0] != "edge" and path.b[0] != "edge":  # a path that touches no side
            key = (hex_id, path_index)
            inner.setdefault(key, None)
            used_inner = used_inner | {key}
        if to_end[0] == "node":
            node = hx.tile.nodes[to_end[1]]
            if node.is_stop:
                end = (hex_id, node.index)
                if end != start:
                    found.append(
                        (
                            end,
                            frozenset(used_sides),
                            frozenset(used_inner),
                            used_paths,
                            hexes,
                            first_terminal,
                            path.terminal,
                        )
                    )
                return
            if path.terminal:
                return
            for nxt in view.by_end.get(to_end, ()):
                if nxt != path_index and (hex_id, nxt) not in used_paths:
                    walk(hex_id, nxt, to_end, used_sides, used_inner, used_paths, hexes, first_terminal)
            return
        if path.terminal:
            return
        edge = to_end[1]
        other = hx.neighbors.get(edge)
        if other is None:
            return
        lane = path.lane_at(to_end)
        plain = lane == ONE_LANE  # (nearly every track: its side's key once, for every path beyond)
        side = met(hex_id, edge, lane, other, lane) if plain else None
        if side is not None and side in used_sides:
            return
        touched.add(other)
        ox = hexes_of[other]
        entry = ("edge", opposite(edge))
        oview = placed(ox.tile.code, ox.rotation)
        for nxt in oview.by_end.get(entry, ()):
            onward = oview.paths[nxt]
            if gauge and not tracks_meet(path.track, onward.track):
                continue
            onward_lane = onward.lane_at(entry)
            if plain and onward_lane == ONE_LANE:
                crossed = side
            elif lanes_meet(lane, onward_lane):
                crossed = met(hex_id, edge, lane, other, onward_lane)
            else:
                continue
            if crossed in used_sides:
                continue
            walk(other, nxt, entry, used_sides | {crossed}, used_inner, used_paths, hexes, first_terminal)

    def met(hex_id, edge, lane, other, other_lane):
        """The side's key (one object for it), noted as met."""
        side = side_key(hex_id, edge, lane, other, other_lane)
        side = _SIDES_MET.setdefault(side, side)
        sides.setdefault(side, side_name(hex_id, other))
        return side

    hx = hexes_of[hex_id]
    view = placed(hx.tile.code, hx.rotation)
    for i in view.by_end.get(("node", n), ()):
        walk(hex_id, i, ("node", n), frozenset(), frozenset(), (), (), view.paths[i].terminal)
    return Walks(
        tuple((h, hexes_of[h], hexes_of[h].track) for h in sorted(touched)),
        tuple(sides.items()),
        tuple(sides),
        frozenset(touched),
        tuple(inner),
        tuple(found),
        tuple(f[0] for f in found),
    )


# Walks by (hex id, node, track of that hex): a few variants each (boards of several games in
# play), checked against the board before use.
_WALKS: dict = {}
_WALKS_MAX = 10_000  # ~730 for the whole public corpus
_VARIANTS = 16


def cached_walks(board, hex_id: str, n: int, mode: tuple = (True, None)) -> Walks:
    """The walks from a stop, from the cache while every hex they read is unchanged."""
    hexes_of = board.hexes
    cache_key = (hex_id, n, hexes_of[hex_id].track, mode)
    variants = _WALKS.get(cache_key)
    if variants is None:
        if len(_WALKS) >= _WALKS_MAX:
            _WALKS.clear()
        variants = _WALKS[cache_key] = []
    for walks in variants:
        for h, seen, track in walks.touched:
            hx = hexes_of.get(h)
            if hx is not seen and (hx is None or hx.track != track):
                break
        else:
            return walks
    walks = walks_from(board, hex_id, n, mode)
    variants.insert(0, walks)
    del variants[_VARIANTS:]
    return walks


# The numbered track of a board's stops, by their stops and walks: a board whose walks all come
# from the cache (the same board again, another company on it) reuses it.
_GRAPHS: dict = {}
_GRAPHS_MAX = 512  # ~340 for the whole public corpus


@dataclass(frozen=True, eq=False)
class NumberedTrack:
    """The walks from every stop of a board, track numbered as the reference numbers it: what every
    company on the board shares. Segments are made only for the stops a company keeps."""

    side_ids: dict  # side key -> id, in the order the walks first meet the sides
    side_names: tuple
    inner_ids: dict  # (hex id, path index) -> id, after the sides
    inner_names: tuple
    stops: tuple  # (hex id, node index) per stop
    stop_at: dict  # (hex id, node index) -> stop
    walks: tuple  # Walks, per stop
    ends: list  # per stop: the stop each of its walks ends at (None: not a stop of this board)
    adjacent: list  # per stop: [(stop, arrives there by a terminal path)], both ways round

    def segments(self, keep) -> list:
        """The segments joining the stops ``keep`` (indexes, in order), deduplicated as the
        reference does (one per pair of mirror walks), their ends numbered by place in ``keep``."""
        renumber = {old: new for new, old in enumerate(keep)}
        raw_segments: dict = {}
        for s in keep:
            for end, (_, side_keys, inner_keys, paths, hexes, a_terminal, b_terminal) in zip(
                self.ends[s], self.walks[s].found
            ):
                if end in renumber:
                    raw_segments.setdefault((s, end, side_keys, inner_keys, a_terminal, b_terminal), (paths, hexes))
        segments = []
        seen = set()
        side_id, inner_id = self.side_ids.__getitem__, self.inner_ids.__getitem__
        for key, (paths, hexes) in raw_segments.items():
            a, b, side_keys, inner_keys, a_terminal, b_terminal = key
            if (b, a, side_keys, inner_keys, b_terminal, a_terminal) in seen:
                continue
            seen.add(key)
            segments.append(
                Segment(
                    renumber[a],
                    renumber[b],
                    frozenset(map(side_id, side_keys)),
                    frozenset(map(inner_id, inner_keys)) if inner_keys else EMPTY,
                    paths,
                    hexes,
                    a_terminal,
                    b_terminal,
                )
            )
        return segments


@dataclass(frozen=True, eq=False)
class _Last:
    """The last board read on one map (its hex ids): its hexes, stops, walks and numbered track."""

    hexes: tuple  # Hex, in board order
    stops: tuple  # (hex id, node index) of each stop
    walks: tuple  # Walks, per stop
    by_stop: dict  # (hex id, node index) -> Walks
    track: NumberedTrack


# The last board per map: a game's next board compares its hexes with those of the board before
# and looks again only at the walks that read a hex whose track changed (a tile laid); a board whose
# track did not change at all (another company, tokens placed) takes the numbered track as it was.
# Other games on the same map take turns here; the walks cache behind it keeps every game's walks.
_LAST: dict = {}
_LAST_MAX = 64


def board_track(board, rules) -> tuple:
    """The board's stops (hex, node) and their numbered track, from the walks cached."""
    forbidden = None if type(rules).forbidden is Rules.forbidden else rules.forbidden  # (the generic one: none)
    nodes = [
        (hx, node)
        for hx in board.hexes.values()
        for node in hx.stop_nodes
        if forbidden is None or not forbidden(hx, node)
    ]
    stops = tuple([(hx.id, node.index) for hx, node in nodes])
    hexes = tuple(board.hexes.values())
    mode = walk_mode(rules)
    map_key = (tuple(board.hexes), mode)
    last = _LAST.get(map_key)
    if last is None:
        walks = tuple([cached_walks(board, hex_id, n, mode) for hex_id, n in stops])
    else:
        changed = {hx.id for hx, was in zip(hexes, last.hexes) if hx is not was and hx.track != was.track}
        if not changed and stops == last.stops:
            walks = last.walks
        else:
            before = last.by_stop.get
            walks = tuple(
                [
                    w
                    if (w := before(stop)) is not None and changed.isdisjoint(w.read)
                    else cached_walks(board, *stop, mode)
                    for stop in stops
                ]
            )
    if last is not None and walks is last.walks:
        track = last.track
    else:
        key = (stops, walks)
        track = _GRAPHS.get(key)
        if track is None:
            track = _numbered(stops, walks, last.track if last is not None else None)
            if len(_GRAPHS) >= _GRAPHS_MAX:
                _GRAPHS.clear()
            _GRAPHS[key] = track
    if last is None and len(_LAST) >= _LAST_MAX:
        _LAST.clear()
    _LAST[map_key] = (
        _Last(hexes, stops, walks, last.by_stop if walks is last.walks else dict(zip(stops, walks)), track)
        if last is not None
        else _Last(hexes, stops, walks, dict(zip(stops, walks)), track)
    )
    return nodes, track


def build_track_graph_fast(board, rules, reachable_only: bool = True) -> TrackGraph:
    """:func:`~optimizer.graph.track.build_track_graph_reference`, from cached walks.

    For the reachable part, the rules make only the stops a route can reach (found by the rules'
    ``has_token`` and ``end_only``, which are what :meth:`make_stop` records), and only the
    segments between those are made.
    """
    nodes, track = board_track(board, rules)
    if not reachable_only:
        return TrackGraph(
            [rules.make_stop(hx, node) for hx, node in nodes],
            track.segments(range(len(nodes))),
            list(track.side_names),
            list(track.inner_names),
        )
    start = [i for i, (hx, node) in enumerate(nodes) if rules.has_token(hx, node)]
    seen = set(start)
    passed = set(start)  # as the reference: whichever way reaches a stop first
    frontier = list(start)
    adjacent = track.adjacent
    while frontier:
        i = frontier.pop()
        for j, arrive_terminal in adjacent[i]:
            seen.add(j)
            if j not in passed and not arrive_terminal and not rules.end_only(*nodes[j]):
                passed.add(j)
                frontier.append(j)
    keep = sorted(seen)
    return TrackGraph(
        made_stops(rules, [nodes[i] for i in keep]),
        track.segments(keep),
        list(track.side_names),
        list(track.inner_names),
    )


# Stops made before, by the rules, their context (what the stop hooks read beyond the hex: see
# Rules.stop_context), the hex and the node, each with the hex it was made from: the next board of
# a game makes again only the stops on hexes that changed. Read-only, shared between problems.
_STOPS: dict = {}
_STOPS_MAX = 20_000  # ~6,000 for the whole public corpus


def made_stops(rules, nodes: list) -> list:
    """``rules.make_stop`` of each (hex, node), from the cache where the game's stop hooks say what
    they read."""
    if not rules.stops_keyed():
        return [rules.make_stop(hx, node) for hx, node in nodes]
    context = (type(rules), rules.stop_context())
    out = []
    for hx, node in nodes:
        key = (context, hx.id, node.index)
        found = _STOPS.get(key)
        if found is None or found[0] is not hx:
            if len(_STOPS) >= _STOPS_MAX:
                _STOPS.clear()
            found = _STOPS[key] = (hx, rules.make_stop(hx, node))
        out.append(found[1])
    return out


def _numbered(stops: tuple, walks: tuple, before: NumberedTrack | None = None) -> NumberedTrack:
    """Replay the walks in stop order: track numbered in the order the walks first meet it (as the
    reference numbers it), each walk's end resolved to its stop. Given the numbered track of the
    board before with the same stops, only the walks that changed are resolved again."""
    side_ids = dict(zip(dict.fromkeys(chain.from_iterable(map(_SIDE_KEYS, walks))), count()))
    first_names = dict(reversed(list(chain.from_iterable(map(_SIDES, walks)))))  # each side's name as first met
    inner_ids = dict(zip(dict.fromkeys(chain.from_iterable(map(_INNER, walks))), count(len(side_ids))))
    if before is not None and before.stops == stops:
        stop_at = before.stop_at
        ends = list(before.ends)
        adjacent = [list(a) for a in before.adjacent]
        for s, walks_from_s in enumerate(walks):
            was = before.walks[s]
            if walks_from_s is was:
                continue
            for end, found in zip(ends[s], was.found):  # what the walks before added, taken back
                if end is not None:
                    adjacent[s].remove((end, found[6]))
                    adjacent[end].remove((s, found[5]))
            ends[s] = tuple(map(stop_at.get, walks_from_s.ends))
            _add_adjacent(adjacent, s, ends[s], walks_from_s)
    else:
        stop_at = {stop: i for i, stop in enumerate(stops)}
        ends = [tuple(map(stop_at.get, walks_from_s.ends)) for walks_from_s in walks]
        adjacent = [[] for _ in walks]
        for s, walks_from_s in enumerate(walks):
            _add_adjacent(adjacent, s, ends[s], walks_from_s)
    return NumberedTrack(
        side_ids,
        tuple(map(first_names.__getitem__, side_ids)),
        inner_ids,
        tuple(f"{key[0]} path {key[1]}" for key in inner_ids),
        stops,
        stop_at,
        walks,
        ends,
        adjacent,
    )


def _add_adjacent(adjacent: list, s: int, ends: tuple, walks_from_s: Walks) -> None:
    """Each walk from stop s joins it to the stop it ends at, both ways (a stop's adjacency is a
    multiset: reachability does not depend on its order)."""
    here = adjacent[s]
    for end, found in zip(ends, walks_from_s.found):
        if end is not None:
            here.append((end, found[6]))  # (b_terminal)
            adjacent[end].append((s, found[5]))  # (a_terminal)


_SIDE_KEYS, _SIDES, _INNER = attrgetter("side_keys"), attrgetter("sides"), attrgetter("inner")


def clear_cache() -> None:
    """Forget the walks and graphs built so far (to measure a first board)."""
    _WALKS.clear()
    _GRAPHS.clear()
    _LAST.clear()
    _SIDES_MET.clear()
    _STOPS.clear()


# The builder, chosen once with the reader (``OPTIMIZER_NO_FAST_PATH=1``: the reference walk).
build_track_graph = build_track_graph_fast if FAST_PATH else build_track_graph_reference
