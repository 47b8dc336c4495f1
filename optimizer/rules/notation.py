"""Routes as players write them, read into the checker's terms.

At a table a player says "the 4 runs Baltimore - Lancaster - Philadelphia - New York". Besides the
corpus's ids, a route may name:

- its train by name (``"4"``) when the company runs a train of that name: the first one that no
  other route names (an exact train id always wins);
- a stop by its hex (``"I15"``) or the printed name of its place (``"Baltimore"``, ``"new york"``;
  case and accents ignored, any unambiguous prefix, either half of ``"Philadelphia & Trenton"``),
  as well as by stop id (``"H18._1"``); where the hex has two stops, the track between the stops
  around it picks one, and only where both fit is the stop id needed;
- its stops as one string, ``"Baltimore - Lancaster - Philadelphia"`` (or a list holding one);
- its track as one chain of hexes from end to end, cut at its stops by the track itself.

A name that fits two things is an error naming both.
"""

from __future__ import annotations

import re
import unicodedata

from ..errors import RoutesError

STOP_SEPARATORS = re.compile(r"\s+[-–—>]\s+|\s*[,;→]\s*")  # "A - B", "A – B", "A, B", "A → B"
NAME_PARTS = re.compile(r"\s+&\s+|\s*/\s*")  # "Philadelphia & Trenton", "Galați / Brăila"


# ---- trains ---------------------------------------------------------------------------------


def train_ids(routes: list, trains: list) -> list:
    """The train id each route runs, for routes naming a train by id or by name.

    ``trains`` are the company's trains (objects with ``id`` and ``name``), in the company's order.
    Exact ids are taken first; a name then takes the first train of that name no route has taken.
    A name that fits no train is returned as given, for the caller's "unknown train" error."""
    given = [str(r.get("train")) if isinstance(r, dict) and "train" in r else None for r in routes]
    ids = {t.id for t in trains}
    taken = {g for g in given if g in ids}
    out = []
    for g in given:
        if g is None or g in ids:
            out.append(g)
            continue
        named = [t.id for t in trains if _fold(t.name) == _fold(g)]
        free = [t for t in named if t not in taken]
        pick = free[0] if free else (named[0] if named else g)  # a name run out: "has two routes" follows
        taken.add(pick)
        out.append(pick)
    return out


def known_trains(trains: list) -> str:
    """The company's trains as a player reads them: ``4-0 (a 4), 5-0 (a 5)``."""
    return ", ".join(t.id if t.id == t.name else f"{t.id} (a {t.name})" for t in trains) or "none"


# ---- stops ----------------------------------------------------------------------------------


def stop_entries(stops, where: str) -> list:
    """A route's stops as a list of strings: a list, or one string, each entry cut at its separators
    (so that a client whose stops field is a list, as gRPC's is, may send one string too)."""
    if isinstance(stops, str):
        stops = [stops]
    if not isinstance(stops, list) or not stops or not all(isinstance(s, str) for s in stops):
        raise RoutesError(
            f'{where}.stops must be a list of stops like "H12._0", "H12" or "Baltimore"', field=f"{where}.stops"
        )
    return [part for s in stops for part in STOP_SEPARATORS.split(s.strip()) if part]


def stop_options(problem, entry: str, field: str) -> list:
    """The stop indexes an entry may mean: one for a stop id, the hex's stops for a hex or a place."""
    graph = problem.graph
    index = graph.stop_index()
    if entry in index:
        return [index[entry]]
    board = problem.board
    hex_id, dot, node = entry.partition(".")
    if dot:
        if hex_id not in board.hexes:
            raise RoutesError(f"{field}: hex {hex_id!r} is not on the board", field=field, hex=hex_id)
        raise RoutesError(f"{field}: {entry} is not a stop of hex {hex_id}", field=field, hex=hex_id)
    hexes = [h for h in board.hexes if h.casefold() == entry.strip().casefold()] or _places(board, entry, field)
    hex_id = hexes[0]
    found = [i for i, s in enumerate(graph.stops) if s.hex == hex_id]
    if not found:
        raise RoutesError(f"{field}: {_why_no_stop(problem, hex_id)}", field=field, hex=hex_id)
    return found


def _places(board, entry: str, field: str) -> list:
    """The hex of a printed place name: the one whose name, or a part of it, is or starts with it."""
    wanted = _fold(entry)
    exact, prefix = {}, {}
    for hx in board.hexes.values():
        name = hx.location_name
        if not name or not wanted:
            continue
        whole = _fold(name)
        parts = [whole] + [_fold(p) for p in NAME_PARTS.split(name) if p]
        if wanted in parts:
            exact[hx.id] = name
        elif any(p.startswith(wanted) for p in parts):
            prefix[hx.id] = name
    found = exact or prefix
    if len(found) == 1:
        return list(found)
    if not found:
        raise RoutesError(
            f"{field}: {entry!r} is not a stop id, a hex or a place on this board (stops are written "
            f'"H18._1", "H18" or by the printed name, "Baltimore")',
            field=field,
        )
    choices = " and ".join(f"{name} ({h})" for h, name in sorted(found.items()))
    raise RoutesError(f"{field}: {entry!r} fits {choices}; say which", field=field)


def _why_no_stop(problem, hex_id: str) -> str:
    hx = problem.board.hexes[hex_id]
    for node in hx.tile.nodes:
        if node.is_stop and problem.rules.forbidden(hx, node):
            return problem.rules.forbidden_reason(hx, node)
    return f"hex {hex_id} has no stop (no city, town or off-board)"


def stop_walks(problem, entries: list, options: list, where: str) -> list:
    """The stop indexes of the route, one per entry, that track joins one to the next.

    Where an entry's hex has two stops and the track around it fits either, that is an error
    naming both; with no track at all, an error naming the first pair that nothing joins."""
    graph = problem.graph
    joined = set()
    for seg in graph.segments:
        joined.add((seg.a, seg.b))
        joined.add((seg.b, seg.a))
    for k in range(len(entries) - 1):
        if not any((a, b) in joined for a in options[k] for b in options[k + 1]):
            raise RoutesError(
                f"{where}.stops: no track joins {entries[k]} and {entries[k + 1]} without another stop between",
                field=f"{where}.stops[{k + 1}]",
            )
    walks: list = []  # two are enough to tell an entry that fits two stops

    def extend(k, walk):
        if len(walks) > 1:
            return
        if k == len(entries):
            walks.append(list(walk))
            return
        for s in options[k]:
            if not walk or (walk[-1], s) in joined:
                walk.append(s)
                extend(k + 1, walk)
                walk.pop()

    extend(0, [])
    if not walks:
        raise RoutesError(f"{where}.stops: no run of track visits these stops in this order", field=f"{where}.stops")
    for k in range(len(entries)):
        picks = sorted({w[k] for w in walks})
        if len(picks) > 1:
            names = " and ".join(graph.stops[s].id for s in picks)
            raise RoutesError(
                f"{where}.stops[{k}]: {entries[k]!r} fits two stops here, {names}; name one",
                field=f"{where}.stops[{k}]",
            )
    return walks[0]


def named_hexes(board, route: dict) -> list:
    """The hexes a route names, however it is written (stop ids, hexes, printed names, chains), in
    order, leaving out what names no hex: to explain a route that cannot be read."""
    if route.get("stops") is not None:
        entries = route["stops"]
        entries = STOP_SEPARATORS.split(entries.strip()) if isinstance(entries, str) else entries
    else:
        chains = chain_list(route.get("hexes"))
        entries = [h for chain in chains if isinstance(chain, list) for h in chain] if isinstance(chains, list) else []
    out = []
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, str):
            continue
        hex_id = entry.partition(".")[0]
        if hex_id not in board.hexes:
            try:
                hex_id = _places(board, entry, "")[0]
            except RoutesError:
                continue
        out.append(hex_id)
    return list(dict.fromkeys(out))


# ---- track ----------------------------------------------------------------------------------


def chain_list(chains) -> list:
    """A route's track: chains of hex ids, or one chain given flat (``["I15", "H16", "H18"]``)."""
    if isinstance(chains, list) and chains and all(isinstance(h, str) for h in chains):
        return [chains]
    return chains


def chain_pieces(graph, chain: list) -> list:
    """The ways to cut a chain of hexes into pieces of track from stop to stop: lists of
    (segment ids of one piece) per piece. A chain that is one piece as given stays whole."""
    whole = graph.segments_by_chain.get(tuple(chain))
    if whole:
        return [[whole]]
    out: list = []

    def cut(start, pieces):
        if len(out) >= 64:
            return
        if start == len(chain) - 1:
            out.append(list(pieces))
            return
        for end in range(start + 1, len(chain)):
            found = graph.segments_by_chain.get(tuple(chain[start : end + 1]))
            if found:
                pieces.append(found)
                cut(end, pieces)
                pieces.pop()

    cut(0, [])
    return out


def _fold(text: str) -> str:
    """A name as compared: no accents, no case, single spaces."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", str(text)) if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())
