"""The reference reader: the document's dicts read in plain Python, checked by the JSON Schema.

It is the reader of record: whatever the fast reader (:mod:`.fast`) does not take as it is comes
here, which reads it or raises the one-line error naming the field and the hex.
"""

from __future__ import annotations

import json
from importlib import resources

import fastjsonschema

from ..errors import BoardError, OptimizerError, decoded_json
from . import caches
from .adjacency import with_computed_neighbors
from .limits import check_numbers
from .model import Board, City, Company, Hex, HexToken, Train
from .tiles import Tile, parse_code


@caches.bounded(1)
def schema() -> dict:
    """The board-state JSON Schema (read once: it never changes)."""
    return json.loads(resources.files("optimizer.schema").joinpath("board.schema.json").read_text())


def _validator():
    from ..schema._validator import validate  # the schema compiled ahead (optimizer.schema.generate)

    return validate


def _field_of(err: fastjsonschema.JsonSchemaValueException) -> str:
    # err.path: ["data", "hexes", 3, "rotation"] -> "hexes[3].rotation"
    out = ""
    for item in _path(err):
        out += f"[{item}]" if isinstance(item, int) else (f".{item}" if out else str(item))
    return out or "(document)"


def _hex_of(doc, err):
    path = _path(err)
    if len(path) > 1 and path[0] == "hexes" and isinstance(path[1], int) and isinstance(doc.get("hexes"), list):
        item = doc["hexes"][path[1]]
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            return item["id"]
    return None


def _hex_note(doc, err) -> str:
    hex_id = _hex_of(doc, err)
    return f" (hex {hex_id})" if hex_id else ""


def _path(err) -> list:
    return [int(p) if isinstance(p, str) and p.isdigit() else p for p in err.path[1:]]


def validate_schema(doc) -> None:
    """Check a document's shape; raise BoardError naming the first bad field."""
    if not isinstance(doc, dict):
        raise BoardError(f"a board state must be a JSON object, not {type(doc).__name__}", field="(document)")
    try:
        _validator()(doc)
    except fastjsonschema.JsonSchemaValueException as err:
        where = _field_of(err)
        if err.rule == "required" and isinstance(err.value, dict):
            missing = [p for p in err.rule_definition if p not in err.value]
            if missing:
                where = f"{where}.{missing[0]}" if where != "(document)" else missing[0]
                raise BoardError(
                    f"{where}: missing" + _hex_note(doc, err), field=where, hex=_hex_of(doc, err)
                ) from None
        message = err.message.replace("data.", "", 1).replace("data ", "document ", 1)
        message = message[len(where) :].strip() if message.startswith(where) else message
        if err.rule == "oneOf" and (err.definition or {}).get("description"):  # say which forms it takes
            message = "must be " + err.definition["description"][0].lower() + err.definition["description"][1:]
        raise BoardError(f"{where}: {message}" + _hex_note(doc, err), field=where, hex=_hex_of(doc, err)) from None


def read_board_reference(doc) -> Board:
    """Read a board-state document (a dict, or JSON text) into a :class:`Board`: the reference
    reader, in plain Python over the document's dicts, checked by the JSON Schema.

    Raises
    ------
    BoardError
        naming the field (``hexes[3].rotation``) and the hex of the first problem found.
    """
    if isinstance(doc, (str, bytes)):
        doc = decoded_json(doc, field="(document)", error=BoardError)
    validate_schema(doc)
    return board_from_document(doc)


def board_from_document(doc: dict) -> Board:
    """The reference reader after the schema check: the document's dicts read into a Board.

    A hex listed twice (18Rhl's G8) is read as the engine reads its map: the later listing stands,
    in the place of the first (``Game#connect_hexes`` and the hexes by id are hashes by coordinates).
    Each listing is still checked."""
    hexes: dict[str, Hex] = {}
    for i, h in enumerate(doc["hexes"]):
        hexes_field = f"hexes[{i}]"
        hid = h["id"]
        try:
            tile = parse_code(h["code"])
        except OptimizerError as err:
            raise err.located(field=f"{hexes_field}.code", hex=hid) from None
        hexes[hid] = Hex(
            id=hid,
            tile_name=str(h.get("tile") or hid),
            color=h.get("color") or "white",
            rotation=h.get("rotation", 0),
            tile=tile,
            location_name=h.get("location_name"),
            neighbors={},
            borders=[(b["edge"], b.get("type")) for b in h.get("borders") or []],
            cities=_read_cities(h, tile, hexes_field),
            assignments=dict(h.get("assignments") or {}),
            hex_tokens=hex_tokens_of(h.get("hex_tokens")),
        )
    given = ["neighbors" in h for h in doc["hexes"]]
    if any(given) and not all(given):
        i = given.index(False)
        hid = doc["hexes"][i]["id"]
        raise BoardError(
            f"hexes[{i}].neighbors: missing on hex {hid} but given on others; give neighbors on every hex or on none",
            field=f"hexes[{i}].neighbors",
            hex=hid,
        )
    if all(given):
        # A hex listed twice: the later listing stands (only a map with such a hex pays for this).
        standing = {h["id"]: i for i, h in enumerate(doc["hexes"])} if len(hexes) < len(doc["hexes"]) else None
        for i, h in enumerate(doc["hexes"]):
            if standing is not None and standing[h["id"]] != i:
                continue
            hx = hexes[h["id"]]
            for edge, other in h["neighbors"].items():
                if other not in hexes:
                    raise BoardError(
                        f"hex {hx.id}: neighbour {other!r} on edge {edge} is not on the map",
                        field=f"hexes[{i}].neighbors.{edge}",
                        hex=hx.id,
                    )
                hx.neighbors[int(edge)] = other
    else:
        with_computed_neighbors(hexes, doc["layout"])
    return read_rest(doc, hexes)


def read_rest(doc: dict, hexes: dict) -> Board:
    """The company, its trains and the phase (a few small objects: both readers share this)."""
    check_numbers(doc)
    corp = doc["corporation"]
    company = Company(
        id=corp["id"],
        name=corp.get("name") or corp["id"],
        type=corp.get("type"),
        minor=bool(corp.get("minor")),
        owner=None if corp.get("owner") is None else str(corp.get("owner")),
        companies=list(corp.get("companies") or []),
        president_companies=list(corp.get("president_companies") or []),
        abilities=list(corp.get("abilities") or []),
        ferry_marker=corp.get("ferry_marker"),
        assignments=dict(corp.get("assignments") or {}),
    )
    trains = []
    for i, t in enumerate(doc["trains"]):
        trains.append(
            Train(
                id=str(t.get("id") or f"{t['name']}-{i}"),
                name=t["name"],
                distance=_distance(t["distance"]),
                multiplier=t.get("multiplier") or 1,
                requires_token=t.get("requires_token", True),
                local=bool(t.get("local")),
                owner=t.get("owner"),
                price=t.get("price"),
                pullman=bool(t.get("pullman")),
            )
        )
    ids = [t.id for t in trains]
    if len(set(ids)) != len(ids):
        raise BoardError("two trains share one id", field="trains")
    if sum(t.pullman for t in trains) > 1:
        raise BoardError("trains: a company's Pullman is attached to one train at most", field="trains")
    phase = doc["phase"]
    return Board(
        id=doc.get("id"),
        game=doc["game"],
        layout=doc["layout"],
        phase_name=str(phase.get("name", "")),
        phase_tiles=list(phase["tiles"]),
        company=company,
        trains=trains,
        hexes=hexes,
    )


def hex_tokens_of(tokens) -> tuple | None:
    """A hex's checked ``hex_tokens`` (dicts) as :class:`HexToken`; None where the document gives none."""
    if tokens is None:
        return None
    return tuple(
        HexToken(
            owner=t["owner"],
            type=t.get("type") or "normal",
            player=None if t.get("player") is None else str(t["player"]),
        )
        for t in tokens
    )


def _distance(distance):
    """A train's distance as the engine reads it: a row without ``visit`` visits as many as it pays
    (``game/base.rb``, ``check_distance``: ``visit = h['visit'] || pay``)."""
    if isinstance(distance, list) and any(isinstance(r, dict) and "visit" not in r for r in distance):
        return [r if "visit" in r else {**r, "visit": r["pay"]} for r in distance]
    return distance


def _read_cities(h: dict, tile: Tile, where: str) -> dict:
    city_nodes = [n.index for n in tile.nodes if n.kind == "city"]
    cities = {}
    given = h.get("cities") or []
    if len(given) > len(city_nodes):
        raise BoardError(
            f"hex {h['id']}: {len(given)} cities given but the tile has {len(city_nodes)}",
            field=f"{where}.cities",
            hex=h["id"],
        )
    for k, c in enumerate(given):
        # ``index`` is the city's node number N (``HEX._N``); without it, the k-th city.
        n = c.get("index", city_nodes[k] if k < len(city_nodes) else -1)
        if n not in city_nodes:
            raise BoardError(
                f"hex {h['id']}: token on city _{n}, but the tile has no such city",
                field=f"{where}.cities[{k}].index",
                hex=h["id"],
            )
        node = tile.nodes[n]
        tokens = list(c.get("tokens") or [])
        slots = c.get("slots", node.slots)
        placed = [t for t in tokens if t]
        if len(placed) > max(slots, node.slots):
            raise BoardError(
                f"hex {h['id']}: city _{n} holds {len(placed)} tokens but has {slots} slot(s)",
                field=f"{where}.cities[{k}].tokens",
                hex=h["id"],
            )
        types = list(c.get("token_types") or [])
        neutral = [(i < len(types) and types[i] == "neutral") for i in range(len(tokens))]
        kinds = [types[i] if i < len(types) else None for i in range(len(tokens))]
        blocking = [kind == "blocking" for kind in kinds]
        extra = [t for t in c.get("extra_tokens") or [] if isinstance(t, str)]
        cities[n] = City(city_nodes.index(n), n, max(slots, len(tokens)), tokens, neutral, kinds, blocking, extra)
    return with_untokened(cities, tile, city_nodes)


def with_untokened(cities: dict, tile: Tile, city_nodes: list) -> dict:
    """``cities`` (both readers' given cities, by node) with every other city of the tile, empty."""
    for index, n in enumerate(city_nodes):
        if n not in cities:
            node = tile.nodes[n]
            cities[n] = City(index, n, node.slots, [None] * node.slots, [False] * node.slots)
    return cities
