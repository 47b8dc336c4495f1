"""Routes, read in one place: for the checker, the picture and the service.

A routes document is a list of routes (or an object holding one under ``routes``, as ``solve
--json`` prints), each in the corpus's shape: ``{"train": id, "hexes": [[hex ids of one chain],
...]}`` (one chain per connection between two stops, in route order, each in either direction;
``["local", HEX]`` for a one-city run) or ``{"train": id, "stops": ["HEX._N", ...]}``; or as players
write them (:mod:`optimizer.rules.notation`: train names, hexes and place names for stops, one
chain from end to end). Chains are
matched to segments of the track graph by their hexes (``TrackGraph.segments_by_chain``). The
checker reads every way a route can be walked (:func:`readings`); the picture reads the track to
draw, and draws a chain with no track under it hex to hex (:func:`drawn_routes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice, product

from ..errors import RoutesError, decoded_json
from ..games import rules_for
from ..graph.walks import build_track_graph
from .notation import chain_list, chain_pieces, stop_entries, stop_options, stop_walks

MAX_READINGS = 64


def routes_document(source, field: str = "routes") -> list:
    """The routes of a document (JSON text, or already parsed): a list, or an object holding one
    under ``routes`` (a ``solve --json`` answer). ``field`` names where it came from in errors."""
    routes = source
    if isinstance(source, (str, bytes, bytearray)):
        routes = decoded_json(source, field=field, what="routes are ", error=RoutesError)
    if isinstance(routes, dict) and isinstance(routes.get("routes"), list):
        routes = routes["routes"]
    if not isinstance(routes, list):
        raise RoutesError('expected a list of routes or an object with "routes"', field=field)
    return routes


def engine_chains(chains):
    """Chains as given, the engine's one-path ids (``["F2 0.1"]``: the path between two nodes of a
    tile with several, :mod:`optimizer.graph.engine_names`) read as the one hex they lie in (the
    route's order of stops tells its nodes)."""
    if not isinstance(chains, list):
        return chains
    return [
        [c[0].split(" ", 1)[0]] if isinstance(c, list) and len(c) == 1 and isinstance(c[0], str) and " " in c[0] else c
        for c in chains
    ]


def check_chains(board, chains, where: str) -> None:
    """Hex chains are a list of non-empty lists of hex ids on the board (``"local"`` first marks a
    one-city run)."""
    if not isinstance(chains, list):
        raise RoutesError(f"{where}.hexes must be a list of chains, each a list of hex ids", field=f"{where}.hexes")
    for k, chain in enumerate(chains):
        if not isinstance(chain, list) or not chain:
            raise RoutesError(
                f"{where}.hexes[{k}]: a chain must be a non-empty list of hex ids", field=f"{where}.hexes[{k}]"
            )
        first = 1 if chain[0] == "local" else 0
        for m, hex_id in enumerate(chain[first:], first):
            if not isinstance(hex_id, str) or hex_id not in board.hexes:
                place = f"{where}.hexes[{k}][{m}]"
                raise RoutesError(f"{place}: hex {hex_id!r} is not on the board", field=place, hex=str(hex_id))


# ---- routes read as track, for the checker ---------------------------------------------------


def stop_readings(graph, choices: list) -> list:
    """The readings of a route given by its stops: a segment between each two, chosen depth first, never
    one piece of track twice in the route (such a reading is illegal, and the first MAX_READINGS of
    the whole product could all be: 1817 @1671, where the first of F13's two ways to I12 crosses the
    way on from I16), at most MAX_READINGS of them; where every reading reuses track, the first one,
    so that the verdict says which piece."""
    if not all(choices):
        return []
    out: list = []

    def extend(k, used, walk):
        if len(out) >= MAX_READINGS:
            return
        if k == len(choices):
            out.append(list(walk))
            return
        for j, forward in choices[k]:
            track = graph.segments[j].resources
            if not track & used:
                walk.append((j, forward))
                extend(k + 1, used | track, walk)
                walk.pop()

    extend(0, frozenset(), [])
    return out or [[c[0] for c in choices]]


def readings(problem, route: dict, where: str) -> list:
    """Every way to read a route as a walk over the track graph: lists of (segment, forward).

    Stops and chains may be written as players write them (see :mod:`optimizer.rules.notation`)."""
    graph = problem.graph
    if "stops" in route and route["stops"] is not None:
        if route["stops"] == []:
            return [[]]  # a run of no stops: read, and judged as such ("a route needs at least two stops")
        entries = stop_entries(route["stops"], where)
        options = [stop_options(problem, e, f"{where}.stops[{k}]") for k, e in enumerate(entries)]
        if len(entries) == 1:
            if len(options[0]) == 1:
                return [("local", options[0][0])]
            return [("local_hex", graph.stops[options[0][0]].hex)]
        stops = stop_walks(problem, entries, options, where)
        choices = []
        for ia, ib in zip(stops, stops[1:]):
            choices.append([(j, seg.a == ia) for j, seg in enumerate(graph.segments) if {seg.a, seg.b} == {ia, ib}])
        return stop_readings(graph, choices)
    chains = chain_list(route.get("hexes"))
    if chains is None:
        raise RoutesError(f"{where}: give hexes (chains of hex ids) or stops", field=where)
    chains = engine_chains(chains)
    check_chains(problem.board, chains, where)
    if not chains:
        return []  # the train runs nothing
    if any(chain[0] == "local" for chain in chains):
        if len(chains) != 1 or len(chains[0]) != 2:
            raise RoutesError(f'{where}.hexes: a local run is [["local", HEX]]', field=f"{where}.hexes")
        return [("local_hex", chains[0][1])]
    cuts: list = []
    for k, chain in enumerate(chains):
        found = chain_pieces(graph, chain)
        if not found:
            reason = _why_no_track(problem, chain)
            raise RoutesError(f"{where}.hexes[{k}]: {reason}", field=f"{where}.hexes[{k}]", hex=chain[0])
        cuts.append(found)
    walks: list = []

    def extend(candidates, k, at, walk):
        if len(walks) >= MAX_READINGS:
            return
        if k == len(candidates):
            walks.append(list(walk))
            return
        for j in candidates[k]:
            seg = graph.segments[j]
            for forward in (True, False):
                start, end = (seg.a, seg.b) if forward else (seg.b, seg.a)
                if at is None or start == at:
                    walk.append((j, forward))
                    extend(candidates, k + 1, end, walk)
                    walk.pop()

    for pieces in islice(product(*cuts), MAX_READINGS):
        extend([p for chain in pieces for p in chain], 0, None, [])
    if not walks:
        raise RoutesError(
            f"{where}.hexes: its chains do not join end to end into one run of track", field=f"{where}.hexes"
        )
    return walks


def _why_no_track(problem, chain) -> str:
    rules, board = problem.rules, problem.board
    for hex_id in chain:
        hx = board.hexes[hex_id]
        for node in hx.tile.nodes:
            if node.is_stop and rules.forbidden(hx, node):
                return rules.forbidden_reason(hx, node)
    return f"no track runs from stop to stop along {'-'.join(chain)}"


# ---- routes read as track, for the picture ---------------------------------------------------


def drawn_routes(board, routes) -> list:
    """The routes to draw (``None``: none), each resolved to the track it runs on."""
    drawn = _read_drawn(board, routes)
    _resolve(board, drawn)
    return drawn


@dataclass
class DrawnRoute:
    """A train's route as given, and the track it resolves to: what the picture draws."""

    index: int
    train: str
    name: str
    revenue: int | float | None  # as given, if given
    chains: list
    visited: list  # stop ids in route order (may be empty)
    paid: list | None  # stop ids it counts, when given
    pieces: list = field(default_factory=list)  # (hex id, path index) to draw
    loose: list = field(default_factory=list)  # chains with no track under them: drawn hex to hex
    ends: list = field(default_factory=list)  # stop ids at the ends of its segments
    local_stops: list = field(default_factory=list)  # (hex id, stop id) of each local run

    @property
    def hexes(self) -> list:
        seen: dict = {}
        for chain in self.chains:
            for h in chain[1:] if chain[0] == "local" else chain:
                seen.setdefault(h, None)
        return list(seen)

    @property
    def counted(self) -> list:
        if self.paid is not None:
            return self.paid
        return self.visited or list(dict.fromkeys(self.ends))


def _read_drawn(board, routes) -> list:
    """Check the routes against the board (one-line errors) and read them into :class:`DrawnRoute`."""
    if routes is None:
        return []
    if not isinstance(routes, list):
        raise RoutesError("routes must be a list of {train, hexes} objects", field="routes")
    out: list = []
    for i, r in enumerate(routes):
        where = f"routes[{i}]"
        if not isinstance(r, dict) or not isinstance(r.get("hexes"), list):
            raise RoutesError(f"{where}: a route needs 'hexes', a list of hex chains", field=where)
        train = str(r.get("train", i + 1))
        chains = engine_chains(r["hexes"])
        check_chains(board, chains, where)
        for k, chain in enumerate(chains):
            for h in chain[1:] if chain[0] == "local" else ():
                if not any(n.is_stop for n in board.hexes[h].tile.nodes):
                    raise RoutesError(
                        f"route of train {train}: a local run in hex {h}, which has no stop",
                        field=f"{where}.hexes[{k}]",
                        hex=h,
                    )
        visited = r.get("visited", r.get("stops")) or []
        paid = r.get("paid", r.get("stops"))
        for name, stops in (("visited", visited), ("paid", paid or [])):
            if not isinstance(stops, list):
                raise RoutesError(f"{where}.{name}: a list of stop ids like 'H12._0'", field=f"{where}.{name}")
            for s in stops:
                _check_stop(board, s, train, f"{where}.{name}")
        out.append(
            DrawnRoute(
                len(out),
                train,
                str(r.get("name") or r.get("train_name") or train),
                r.get("revenue"),
                [list(c) for c in chains],
                list(visited),
                None if paid is None else list(paid),
            )
        )
    return out


def _check_stop(board, stop, train: str, where: str) -> None:
    hex_id, _, n = str(stop).partition("._")
    if hex_id not in board.hexes:
        raise RoutesError(f"route of train {train}: stop {stop!r} is not on the board", field=where, hex=hex_id)
    if not n.isdigit() or int(n) >= len(board.hexes[hex_id].tile.nodes):
        raise RoutesError(f"route of train {train}: hex {hex_id} has no stop {stop!r}", field=where, hex=hex_id)


def _resolve(board, routes: list) -> None:
    """Find, for every chain, the track-graph segment over the same hexes; prefer one between
    stops the route visits one after the other, then one whose ends it visits, then one whose
    track no route drawn so far uses. A local run has no track: its stop is all there is."""
    by_chain: dict = {}
    if any(chain[0] != "local" for r in routes for chain in r.chains):
        graph = build_track_graph(board, rules_for(board), reachable_only=False)
        by_chain = graph.segments_by_chain
    used: set = set()
    for route in routes:
        order = route.visited
        pairs = {frozenset(p) for p in zip(order, order[1:])}
        on_route = set(order) | set(route.paid or [])
        for chain in route.chains:
            if chain[0] == "local":
                for h in chain[1:]:
                    stop = _local_stop(board, route, h)
                    route.local_stops.append((h, stop))
                    route.ends.append(stop)
                continue

            found = by_chain.get(tuple(chain))
            if not found:
                route.loose.append(chain)
                continue
            seg = graph.segments[max(found, key=lambda j: _score(graph, graph.segments[j], pairs, on_route, used))]
            used |= seg.resources
            route.pieces += seg.paths
            route.ends += [graph.stops[seg.a].id, graph.stops[seg.b].id]


def _score(graph, seg, pairs: set, on_route: set, used: set) -> tuple:
    """How well a segment fits a route: between consecutive stops, between stops it visits, on free track."""
    ends = (graph.stops[seg.a].id, graph.stops[seg.b].id)
    return (frozenset(ends) in pairs, set(ends) <= on_route, not (seg.resources & used))


def _local_stop(board, route: DrawnRoute, hex_id: str) -> str:
    """The stop a local run counts: the one the route names, else the hex's first city."""
    for s in route.counted:
        if s.partition("._")[0] == hex_id:
            return s
    hx = board.hexes[hex_id]
    return hx.node_id(min((n for n in hx.tile.nodes if n.is_stop), key=lambda n: (n.kind != "city", n.index)).index)
