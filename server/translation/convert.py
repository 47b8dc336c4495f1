"""Protocol messages <-> the plain dicts of :mod:`optimizer.api`, both ways.

A structured ``Board`` is read straight into a board (:func:`read_board`: the board and each hex
keyed by their message's bytes, so that what was seen before costs one lookup); anything that path
does not take goes the long way, as the same board-state document a client could have sent as
JSON, so both forms give the same answers and the same errors. Answers go back the other way. The
reverse directions (document -> ``Board``, messages -> answer dicts) serve the client and the tests.

Proto3 cannot say "null": an empty string stands for a null token, reservation or token type, and
``optional`` fields that are unset are left out of the document (as a JSON client would).
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf import json_format, struct_pb2

from optimizer import api
from optimizer.api import Board
from optimizer.errors import BoardError, OptimizerError

from ..generated.route18xx.v1 import route_optimizer_pb2 as pb
from ..runtime import limits
from . import checks

# --- numbers ------------------------------------------------------------------------------------


def _number(value: float):
    """A proto double as the JSON number it came from: 80.0 -> 80."""
    return int(value) if float(value).is_integer() else value


def _optional(message, name: str, out: dict, key: str | None = None, convert=None) -> None:
    """Copy an ``optional`` field into ``out`` only when it is set."""
    if message.HasField(name):
        value = getattr(message, name)
        out[key or name] = convert(value) if convert else value


# --- board: message -> document -----------------------------------------------------------------


def read_board(board: pb.Board, wire: bytes, bounds: limits.Limits) -> Board | None:
    """A ``Board`` message (``wire``: its deterministic bytes) read as :func:`board_to_state` then
    the reader would read it, without the document: the same board again costs one lookup (its
    bytes are the key); a new one reads each hex keyed by its message's bytes (a hex seen before
    costs one lookup, a new one is converted alone), the small rest converted directly, and the
    limits' number checks made on the rest and on each new hex. None for anything else (a bad or odd
    board, a number over the limits): the caller takes the long way, which reads it or raises the
    error it always raised.
    """
    if len(wire) > WHOLE_KEY_MAX_BYTES:
        return _read_new_board(board, bounds)
    return api.read_keyed_board((wire, bounds), lambda: _read_new_board(board, bounds))  # with the limits it passed


# The most of a board's bytes kept as its key: a real board is at most ~15 KB; larger ones are read
# without the whole-board lookup, so that the boards remembered hold at most ~32 MB of keys.
WHOLE_KEY_MAX_BYTES = 64 * 1024


def _read_new_board(board: pb.Board, bounds: limits.Limits) -> Board | None:
    try:
        rest = _rest_of(board)
        checks.check_numbers(rest, bounds)
    except OptimizerError:
        return None
    hexes = board.hexes
    # Equal bytes are equal hexes (deterministic bytes would cost more here and differ only in the
    # order of a map: a miss, never a wrong hit). A hex passed the tile-code number check when it
    # was read: the key carries the limit it passed.
    keys = [(bounds.max_number, h.SerializeToString()) for h in hexes]
    return api.read_keyed_hexes(rest, keys, lambda i: _hex_document(hexes[i], bounds))


def _hex_document(h: pb.Hex, bounds: limits.Limits) -> dict | None:
    """A new hex's document, or None when a number in its tile code is over the limits (the long
    way names it)."""
    try:
        checks.check_numbers({"hexes": [{"id": h.id, "code": h.code}]}, bounds)
    except OptimizerError:
        return None
    return hex_to_json(h, gives_neighbors(h))


def board_to_state(board: pb.Board) -> dict:
    """The board-state document (see ``optimizer/schema/board.schema.json``) of a ``Board``."""
    doc = _rest_of(board)
    # Neighbours are given for the whole board or computed for the whole board (see the proto).
    with_neighbors = any(gives_neighbors(h) for h in board.hexes)
    if with_neighbors and not all(gives_neighbors(h) for h in board.hexes):
        i = next(i for i, h in enumerate(board.hexes) if not gives_neighbors(h))
        raise BoardError(
            f"hexes[{i}].neighbors: missing on hex {board.hexes[i].id} but given on others; give "
            "neighbors on every hex or on none",
            field=f"hexes[{i}].neighbors",
            hex=board.hexes[i].id,
        )
    doc["hexes"] = [hex_to_json(h, with_neighbors) for h in board.hexes]
    return doc


def gives_neighbors(h: pb.Hex) -> bool:
    """The hex gives its neighbours: some, or none at all (``no_neighbors``: a map cannot say empty)."""
    return bool(h.neighbors) or h.no_neighbors


def _rest_of(board: pb.Board) -> dict:
    """The document less its hexes: id, game, layout, phase, company and trains."""
    doc: dict = {}
    _optional(board, "id", doc)
    doc["game"] = board.game
    doc["layout"] = board.layout
    doc["phase"] = ({"name": board.phase.name} if board.phase.name else {}) | {"tiles": list(board.phase.tiles)}
    doc["corporation"] = corporation_to_json(board.corporation)
    doc["trains"] = [train_to_json(t, i) for i, t in enumerate(board.trains)]
    return doc


def corporation_to_json(c: pb.Corporation) -> dict:
    out: dict = {"id": c.id}
    for name in ("name", "type", "minor", "owner"):
        _optional(c, name, out)
    out["companies"] = list(c.companies)
    out["president_companies"] = list(c.president_companies)
    out["abilities"] = [ability_to_json(a) for a in c.abilities]
    _optional(c, "ferry_marker", out)
    if c.HasField("assignments"):
        out["assignments"] = json_format.MessageToDict(c.assignments)
    return out


def ability_to_json(a: pb.Ability) -> dict:
    out: dict = {"type": a.type}
    _optional(a, "description", out)
    _optional(a, "owner", out)
    if a.hexes:
        out["hexes"] = list(a.hexes)
    _optional(a, "amount", out, convert=_number)
    return out


def train_to_json(t: pb.Train, index: int) -> dict:
    out: dict = {}
    _optional(t, "id", out)
    out["name"] = t.name
    if t.distance.stops and t.distance.rows:
        raise BoardError(
            f"trains[{index}].distance: train {t.name or index} sets both stops and rows; set one",
            field=f"trains[{index}].distance",
        )
    distance = distance_to_json(t.distance) if t.HasField("distance") else None
    if distance is None:
        raise BoardError(
            f"trains[{index}].distance: train {t.name or index} has no distance (set stops or rows)",
            field=f"trains[{index}].distance",
        )
    out["distance"] = distance
    _optional(t, "price", out, convert=_number)
    for name in ("multiplier", "requires_token", "local", "owner", "pullman"):
        _optional(t, name, out)
    return out


def distance_to_json(d: pb.Distance):
    """Rows as a list of dicts, or the number of stops; None when neither is set."""
    if d.rows:
        rows = []
        for r in d.rows:
            row = {"nodes": list(r.nodes), "pay": r.pay}
            _optional(r, "visit", row)  # unset: the reader reads it as the pay, as the engine does
            _optional(r, "multiplier", row)
            rows.append(row)
        return rows
    return d.stops or None


def hex_to_json(h: pb.Hex, with_neighbors: bool) -> dict:
    out: dict = {"id": h.id}
    _optional(h, "tile", out)
    _optional(h, "color", out)
    out["rotation"] = h.rotation
    out["code"] = h.code
    _optional(h, "location_name", out)
    if with_neighbors:
        out["neighbors"] = {str(edge): other for edge, other in sorted(h.neighbors.items())}
    if h.borders:
        out["borders"] = [border_to_json(b) for b in h.borders]
    out["cities"] = [city_to_json(c) for c in h.cities]
    if h.tile_reservations:
        out["tile_reservations"] = list(h.tile_reservations)
    if h.HasField("assignments"):
        out["assignments"] = json_format.MessageToDict(h.assignments)
    if h.hex_tokens or h.no_hex_tokens:
        out["hex_tokens"] = [hex_token_to_json(t) for t in h.hex_tokens]
    return out


def hex_token_to_json(t: pb.HexToken) -> dict:
    out: dict = {"owner": t.owner}
    _optional(t, "type", out)
    _optional(t, "player", out)
    return out


def border_to_json(b: pb.Border) -> dict:
    out: dict = {"edge": b.edge}
    _optional(b, "type", out)
    _optional(b, "cost", out, convert=_number)
    return out


def city_to_json(c: pb.City) -> dict:
    out: dict = {}
    _optional(c, "index", out)
    _optional(c, "slots", out)
    out["tokens"] = [t or None for t in c.tokens]
    out["reservations"] = [r or None for r in c.reservations]
    for name in ("token_types", "extra_tokens", "extra_reservations"):
        values = getattr(c, name)
        if values:
            out[name] = [v or None for v in values]
    return out


def route_input_to_json(r: pb.RouteInput) -> dict:
    """A route to check, as the checker's routes document has it."""
    out: dict = {"train": r.train}
    if r.stops and not r.hexes:
        out["stops"] = list(r.stops)
    else:
        out["hexes"] = [list(chain.hexes) for chain in r.hexes]  # [] = the train runs nothing
    return out


# --- board: document -> message (for clients and tests) -----------------------------------------


def state_to_board(doc: dict) -> pb.Board:
    """A ``Board`` message from a board-state document (input fields only are read)."""
    board = pb.Board(game=doc["game"], layout=doc["layout"])
    if doc.get("id") is not None:
        board.id = str(doc["id"])
    phase = doc["phase"]
    board.phase.tiles.extend(phase["tiles"])
    if phase.get("name") is not None:
        board.phase.name = str(phase["name"])
    corporation_from_json(doc["corporation"], board.corporation)
    for t in doc["trains"]:
        train_from_json(t, board.trains.add())
    for h in doc["hexes"]:
        hex_from_json(h, board.hexes.add())
    return board


def _set(message, source: dict, names, convert=None) -> None:
    for name in names:
        if source.get(name) is not None:
            setattr(message, name, convert(source[name]) if convert else source[name])


def corporation_from_json(c: dict, out: pb.Corporation) -> None:
    out.id = c["id"]
    _set(out, c, ("name", "type", "minor", "ferry_marker"))
    _set(out, c, ("owner",), str)
    out.companies.extend(c.get("companies") or [])
    out.president_companies.extend(c.get("president_companies") or [])
    for a in c.get("abilities") or []:
        ability = out.abilities.add(type=a.get("type") or "")
        _set(ability, a, ("description", "owner", "amount"))
        ability.hexes.extend(a.get("hexes") or [])
    if c.get("assignments"):
        out.assignments.CopyFrom(json_format.ParseDict(c["assignments"], struct_pb2.Struct()))


def train_from_json(t: dict, out: pb.Train) -> None:
    _set(out, t, ("id", "name", "price", "multiplier", "requires_token", "local", "owner", "pullman"))
    distance_from_json(t["distance"], out.distance)


def distance_from_json(distance, out: pb.Distance) -> None:
    if isinstance(distance, list):
        for r in distance:
            row = out.rows.add(nodes=r["nodes"], pay=r["pay"])
            _set(row, r, ("visit", "multiplier"))
    else:
        out.stops = distance


def hex_from_json(h: dict, out: pb.Hex) -> None:
    _set(out, h, ("id", "tile", "color", "rotation", "code", "location_name"))
    for edge, other in (h.get("neighbors") or {}).items():
        out.neighbors[int(edge)] = other
    if h.get("neighbors") == {}:
        out.no_neighbors = True  # given, and none (an empty map is no map on the wire)
    for b in h.get("borders") or []:
        _set(out.borders.add(), b, ("edge", "type", "cost"))
    for c in h.get("cities") or []:
        city = out.cities.add()
        _set(city, c, ("index", "slots"))
        for name in ("tokens", "reservations", "token_types", "extra_tokens", "extra_reservations"):
            getattr(city, name).extend(v or "" for v in c.get(name) or [])
    out.tile_reservations.extend(h.get("tile_reservations") or [])
    if h.get("assignments"):
        out.assignments.CopyFrom(json_format.ParseDict(h["assignments"], struct_pb2.Struct()))
    for t in h.get("hex_tokens") or []:
        token = out.hex_tokens.add()
        _set(token, t, ("owner", "type"))
        _set(token, t, ("player",), str)
    if h.get("hex_tokens") == []:
        out.no_hex_tokens = True  # given, and none (an empty list is no list on the wire)


# --- answers: dict -> message -------------------------------------------------------------------


def _chains(chains) -> list:
    return [pb.HexChain(hexes=chain) for chain in chains]


def solution_to_proto(result: dict) -> pb.Solution:
    """A ``Solution`` from an :func:`optimizer.api.solve` dict (final or provisional)."""
    stats = result.get("stats") or {}
    return pb.Solution(
        id="" if result.get("id") is None else str(result["id"]),
        revenue=result["revenue"],
        optimal=result["optimal"],
        bound=result["bound"],
        routes=[
            pb.RouteResult(
                train=r["train"],
                name=r["name"],
                revenue=r["revenue"],
                stops=r["stops"],
                paid=r.get("paid", r["stops"]),
                hexes=_chains(r.get("hexes") or []),
                nodes=r.get("nodes") or [],
            )
            for r in result["routes"]
        ],
        elapsed_ms=result.get("elapsed_ms") or 0.0,
        stats=pb.SearchStats(
            nodes=stats.get("nodes") or 0,
            stopped_by=stats.get("stopped_by") or "",
            core=stats.get("core") or "",
            stops=stats.get("stops") or 0,
            segments=stats.get("segments") or 0,
            search_ms=stats.get("search_ms") or 0.0,
            read_ms=stats.get("read_ms") or 0.0,
            graph_ms=stats.get("graph_ms") or 0.0,
        ),
        rules=result.get("rules") or "",
        revenue_rules=result.get("revenue_rules") or [],
        unsupported=result.get("unsupported") or [],
    )


def check_to_proto(out: dict) -> pb.CheckRoutesResponse:
    """A ``CheckRoutesResponse`` from an :func:`optimizer.api.check` dict."""
    response = pb.CheckRoutesResponse(
        legal=out["legal"],
        revenue=out["revenue"],
        routes=[
            pb.RouteCheck(
                train=str(r.get("train", "")),
                legal=r["legal"],
                revenue=r.get("revenue") or 0,
                stops=r.get("stops") or [],
                paid=r.get("paid") or [],
                errors=r.get("errors") or [],
                hexes=_chains(r.get("hexes") or []),
            )
            for r in out["routes"]
        ],
        errors=out.get("errors") or [],
    )
    if out.get("optimum") is not None:
        response.optimum.CopyFrom(solution_to_proto(out["optimum"]))
    return response


def games_to_proto(games: list, train_kinds, other_titles: Sequence = ()) -> pb.ListGamesResponse:
    """A ``ListGamesResponse`` from :func:`optimizer.api.games`, ``TRAIN_KINDS`` and
    :func:`optimizer.api.other_titles`."""
    response = pb.ListGamesResponse(train_kinds=list(train_kinds))
    for t in other_titles:
        response.other_titles.add(title=t["title"], rules=t["rules"], unsupported=t["unsupported"])
    for g in games:
        game = response.games.add(
            title=g["title"],
            layout=g.get("layout") or "",
            rules=g.get("rules") or "",
            revenue_rules=g.get("revenue_rules") or [],
            unsupported=g.get("unsupported") or [],
        )
        for t in g["trains"]:
            train = game.trains.add(name=t["name"])
            distance_from_json(t["distance"], train.distance)
            _set(train, t, ("price", "count"))
        for p in g["phases"]:
            phase = game.phases.add(name=str(p["name"]), tiles=p.get("tiles") or [])
            _set(phase, p, ("train_limit",))
            phase.train_limits.update(p.get("train_limits") or {})
    return response


# --- answers: message -> dict (for clients) -----------------------------------------------------


def solution_to_json(s: pb.Solution) -> dict:
    """The :func:`optimizer.api.solve` dict of a ``Solution`` (``id`` None when empty)."""
    out: dict = {
        "id": s.id or None,
        "revenue": s.revenue,
        "optimal": s.optimal,
        "bound": s.bound,
        "routes": [
            {
                "train": r.train,
                "name": r.name,
                "revenue": r.revenue,
                "stops": list(r.stops),
                "paid": list(r.paid),
                "hexes": [list(c.hexes) for c in r.hexes],
                "nodes": list(r.nodes),
            }
            for r in s.routes
        ],
        "elapsed_ms": s.elapsed_ms,
        "stats": {
            "nodes": s.stats.nodes,
            "stopped_by": s.stats.stopped_by or None,
            "core": s.stats.core,
            "stops": s.stats.stops,
            "segments": s.stats.segments,
            "search_ms": s.stats.search_ms,
            "read_ms": s.stats.read_ms,
            "graph_ms": s.stats.graph_ms,
        },
        "rules": s.rules or None,
        "revenue_rules": list(s.revenue_rules),
        "unsupported": list(s.unsupported),
    }
    if s.stats.deadline_from:  # the server's deadline, when it set one (never in an api dict)
        out["stats"].update(
            deadline_ms=s.stats.deadline_ms, deadline_from=s.stats.deadline_from, encode_ms=s.stats.encode_ms
        )
    return out


def check_to_json(response: pb.CheckRoutesResponse) -> dict:
    """The :func:`optimizer.api.check` dict of a ``CheckRoutesResponse``."""
    out: dict = {
        "legal": response.legal,
        "revenue": response.revenue,
        "routes": [
            {
                "train": r.train,
                "legal": r.legal,
                "revenue": r.revenue,
                "stops": list(r.stops),
                "paid": list(r.paid),
                "hexes": [list(c.hexes) for c in r.hexes],
                "errors": list(r.errors),
            }
            for r in response.routes
        ],
    }
    if response.errors:
        out["errors"] = list(response.errors)
    if response.HasField("optimum"):
        out["optimum"] = solution_to_json(response.optimum)
    return out


def games_to_json(response: pb.ListGamesResponse) -> list:
    """The :func:`optimizer.api.games` list of a ``ListGamesResponse``."""
    out = []
    for g in response.games:
        trains = []
        for t in g.trains:
            distance = distance_to_json(t.distance)
            train = {
                "name": t.name,
                # a listed train always has one: neither rows nor stops is 0 stops, which proto3 does not
                # send (18USA's P, a Pullman upgrade that runs no route)
                "distance": 0 if distance is None else distance,
                "price": _number(t.price) if t.HasField("price") else None,
                "count": t.count if t.HasField("count") else None,
            }
            trains.append(train)
        phases = [
            {
                "name": p.name,
                "tiles": list(p.tiles),
                "train_limit": p.train_limit if p.HasField("train_limit") else None,
                **({"train_limits": dict(p.train_limits)} if p.train_limits else {}),
            }
            for p in g.phases
        ]
        out.append(
            {
                "title": g.title,
                "layout": g.layout or None,
                "trains": trains,
                "phases": phases,
                "rules": g.rules or None,
                "revenue_rules": list(g.revenue_rules),
                "unsupported": list(g.unsupported),
            }
        )
    return out
