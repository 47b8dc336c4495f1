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
from operator import attrgetter, is_

from ..board.geometry import opposite
from ..board.state import FAST_PATH
from ..board.tiles import placed
from .track import Segment, TrackGraph, build_track_graph_reference


EMPTY = frozenset()
_SIDE_OBJECTS: dict = {}  # side key -> the one object for it
_SIDE_OBJECTS_MAX = 100_000  # ~1,500 for the whole public corpus


@dataclass(frozen=True, eq=False)
class Walks:
    """Every walk from one stop, with what it read (compared by identity: one object per walk)."""

    touched: tuple  # ((hex id, hex, its track), ...): every hex read, as it was
    sides: tuple  # ((side key, name), ...): sides met, in the order the walk first met them
    inner: tuple  # ((hex id, path index), ...): side-less paths used, in order of first use
    found: tuple  # (end (hex, node), side keys, inner keys, paths, hexes, a_terminal, b_terminal)

    def __post_init__(self):
        # The touched hexes' ids and objects apart, so that the usual check (every hex the very
        # object read before: the fast reader shares unchanged hexes) runs in C.
        object.__setattr__(self, "ids", tuple(t[0] for t in self.touched))
        object.__setattr__(self, "seen", tuple(t[1] for t in self.touched))
        object.__setattr__(self, "side_keys", tuple(side for side, _ in self.sides))

    def same_hexes(self, hexes_of: dict) -> bool:
        """Every hex read is the very object read before (the fast reader shares unchanged hexes)."""
        return all(map(is_, map(hexes_of.get, self.ids), self.seen))

    def same_track(self, hexes_of: dict) -> bool:
        """Every hex read has the same track on this board (its tokens may differ)."""
        for h, seen, track in self.touched:
            hx = hexes_of.get(h)
            if hx is not seen and (hx is None or hx.track != track):
                return False
        return True

    def seen_on(self, hexes_of: dict) -> None:
        """Remember this board's hexes as the ones to compare in C (same track, other tokens): the
        walks stay the same object, so that the graph built from them is found again."""
        object.__setattr__(self, "seen", tuple(map(hexes_of.__getitem__, self.ids)))


def walks_from(board, hex_id: str, n: int) -> Walks:
    """Walk the track from node ``n`` of ``hex_id``; the reference walk with symbolic track."""
    if len(_SIDE_OBJECTS) >= _SIDE_OBJECTS_MAX:
        _SIDE_OBJECTS.clear()
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
                    found.append((end, frozenset(used_sides), frozenset(used_inner), used_paths, hexes,
                                  first_terminal, path.terminal))
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
        side = frozenset(((hex_id, edge), (other, opposite(edge))))
        side = _SIDE_OBJECTS.setdefault(side, side)  # one object per side: walks compare them by identity first
        sides.setdefault(side, f"{hex_id}/{other}")
        if side in used_sides:
            return
        touched.add(other)
        ox = hexes_of[other]
        entry = ("edge", opposite(edge))
        for nxt in placed(ox.tile.code, ox.rotation).by_end.get(entry, ()):
            walk(other, nxt, entry, used_sides | {side}, used_inner, used_paths, hexes, first_terminal)

    hx = hexes_of[hex_id]
    view = placed(hx.tile.code, hx.rotation)
    for i in view.by_end.get(("node", n), ()):
        walk(hex_id, i, ("node", n), frozenset(), frozenset(), (), (), view.paths[i].terminal)
    return Walks(tuple((h, hexes_of[h], hexes_of[h].track) for h in sorted(touched)), tuple(sides.items()),
                 tuple(inner), tuple(found))


# Walks by (hex id, node, tile and rotation of that hex): a few variants each (boards of several games in
# play), checked against the board before use.
_WALKS: dict = {}
_WALKS_MAX = 10_000  # ~730 for the whole public corpus
_VARIANTS = 16


def cached_walks(board, hex_id: str, n: int) -> Walks:
    """The walks from a stop, from the cache while every hex they read is unchanged."""
    hexes_of = board.hexes
    hx = hexes_of[hex_id]
    cache_key = (hex_id, n, hx.tile.code, hx.rotation)  # (its neighbours: checked with the other hexes read)
    variants = _WALKS.get(cache_key)
    if variants is None:
        if len(_WALKS) >= _WALKS_MAX:
            _WALKS.clear()
        variants = _WALKS[cache_key] = []
    for walks in variants:
        if walks.same_hexes(hexes_of):
            return walks
    for walks in variants:
        if walks.same_track(hexes_of):
            walks.seen_on(hexes_of)
            return walks
    walks = walks_from(board, hex_id, n)
    variants.insert(0, walks)
    del variants[_VARIANTS:]
    return walks


# Whole track graphs by their stops and walks: a board whose walks all come from the cache (the
# same board again, another company on it) reuses the numbering and the segments.
_GRAPHS: dict = {}
_GRAPHS_MAX = 512  # ~340 for the whole public corpus (a graph holds its segments)


def build_track_graph_fast(board, rules, reachable_only: bool = True) -> TrackGraph:
    """:func:`~optimizer.graph.track.build_track_graph_reference`, from cached walks.

    For the reachable part, the rules make only the stops a route can reach (found by the rules'
    ``has_token`` and ``end_only``, which are what :meth:`make_stop` records).
    """
    nodes = [(hx, node) for hx in board.hexes.values() for node in hx.stop_nodes if not rules.forbidden(hx, node)]
    stop_at = {(hx.id, node.index): i for i, (hx, node) in enumerate(nodes)}
    walks = tuple(cached_walks(board, hex_id, n) for hex_id, n in stop_at)
    key = (tuple(stop_at), walks)
    found = _GRAPHS.get(key)
    if found is None:
        found = _numbered(stop_at, walks)
        if len(_GRAPHS) >= _GRAPHS_MAX:
            _GRAPHS.clear()
        _GRAPHS[key] = found
    segments, side_names, inner_names, adjacent = found
    if not reachable_only:
        return TrackGraph([rules.make_stop(hx, node) for hx, node in nodes], list(segments), list(side_names),
                          list(inner_names))
    start = [i for i, (hx, node) in enumerate(nodes) if rules.has_token(hx, node)]
    seen = set(start)
    frontier = list(start)
    while frontier:
        i = frontier.pop()
        for j, arrive_terminal in adjacent[i]:
            if j in seen:
                continue
            seen.add(j)
            if not arrive_terminal and not rules.end_only(*nodes[j]):
                frontier.append(j)
    keep = sorted(seen)
    renumber = {old: new for new, old in enumerate(keep)}
    stops = [rules.make_stop(*nodes[i]) for i in keep]
    kept = [Segment(renumber[s.a], renumber[s.b], s.sides, s.inner, s.paths, s.hexes, s.a_terminal, s.b_terminal)
            for s in segments if s.a in renumber and s.b in renumber]
    return TrackGraph(stops, kept, list(side_names), list(inner_names))


def _numbered(stop_at: dict, walks: tuple) -> tuple:
    """Replay the walks in stop order: track numbered, segments deduplicated as the reference does.

    Track is numbered in the order the walks first meet it; segments are told apart by their
    symbolic track (one-to-one with the numbers), so that only the segments kept are numbered."""
    side_ids = dict(zip(dict.fromkeys(chain.from_iterable(map(_SIDE_KEYS, walks))), count()))
    first_names = dict(reversed(list(chain.from_iterable(map(_SIDES, walks)))))  # each side's name as first met
    side_names = tuple(map(first_names.__getitem__, side_ids))
    inner_ids = dict(zip(dict.fromkeys(chain.from_iterable(map(_INNER, walks))), count(len(side_ids))))
    inner_names = tuple(f"{key[0]} path {key[1]}" for key in inner_ids)  # numbered after the sides
    raw_segments: dict = {}
    get_end = stop_at.get
    for s, walks_from_s in enumerate(walks):
        for end_key, side_keys, inner_keys, paths, hexes, a_terminal, b_terminal in walks_from_s.found:
            end = get_end(end_key)
            if end is not None:
                raw_segments.setdefault((s, end, side_keys, inner_keys, a_terminal, b_terminal), (paths, hexes))
    segments = []
    seen = set()
    side_id = side_ids.__getitem__
    for key, (paths, hexes) in raw_segments.items():
        a, b, side_keys, inner_keys, a_terminal, b_terminal = key
        if (b, a, side_keys, inner_keys, b_terminal, a_terminal) in seen:
            continue
        seen.add(key)
        segments.append(Segment(a, b, frozenset(map(side_id, side_keys)),
                                frozenset(map(inner_ids.__getitem__, inner_keys)) if inner_keys else EMPTY, paths,
                                hexes, a_terminal, b_terminal))
    adjacent = [[] for _ in stop_at]
    for seg in segments:
        adjacent[seg.a].append((seg.b, seg.b_terminal))
        adjacent[seg.b].append((seg.a, seg.a_terminal))
    return tuple(segments), side_names, inner_names, adjacent


_SIDE_KEYS, _SIDES, _INNER = attrgetter("side_keys"), attrgetter("sides"), attrgetter("inner")


def clear_cache() -> None:
    """Forget the walks and graphs built so far (to measure a first board)."""
    _WALKS.clear()
    _GRAPHS.clear()
    _SIDE_OBJECTS.clear()


# The builder, chosen once with the reader (``OPTIMIZER_NO_FAST_PATH=1``: the reference walk).
build_track_graph = build_track_graph_fast if FAST_PATH else build_track_graph_reference
