"""The board-state document, read into plain objects and checked.

The document is the 18xx.games corpus state (input fields only; see ``schema/board.schema.json``).
Reading validates the shape against the schema first, then the meaning (tile codes, tokens,
neighbours), and every problem is a :class:`BoardError` that names the field and the hex.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import fastjsonschema

from ..errors import BoardError, OptimizerError
from . import geometry
from .tiles import Tile, parse_code


@dataclass
class City:
    index: int  # k: the k-th city of the tile
    node: int  # N: its node index (``HEX._N``)
    slots: int
    tokens: list  # company id or None, per slot
    neutral: list  # per slot: the token is neutral (never blocks)


@dataclass
class Hex:
    id: str
    tile_name: str
    color: str
    rotation: int
    tile: Tile
    location_name: str | None
    neighbors: dict  # absolute edge -> hex id (the adjacency trains use)
    borders: list  # [(absolute edge, type)]
    cities: dict  # node index N -> City
    assignments: dict

    def node_id(self, n: int) -> str:
        return f"{self.id}._{n}"


@dataclass
class Train:
    id: str
    name: str
    distance: object  # int, or list of row dicts
    multiplier: int = 1
    requires_token: bool = True
    local: bool = False
    owner: str | None = None
    price: float | None = None


@dataclass
class Company:
    id: str
    name: str
    type: str | None
    minor: bool
    owner: str | None
    companies: list
    president_companies: list
    abilities: list
    ferry_marker: bool | None
    assignments: dict = field(default_factory=dict)  # what the engine assigned to it (1846 privates' markers)


@dataclass
class Board:
    id: object
    game: str
    layout: str
    phase_name: str
    phase_tiles: list
    company: Company
    trains: list
    hexes: dict  # id -> Hex, in document order

    def hex(self, hex_id: str) -> Hex:
        try:
            return self.hexes[hex_id]
        except KeyError:
            raise BoardError(f"unknown hex {hex_id!r}", hex=str(hex_id)) from None


@lru_cache(maxsize=1)
def schema() -> dict:
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
                raise BoardError(f"{where}: missing" + _hex_note(doc, err), field=where,
                                 hex=_hex_of(doc, err)) from None
        message = err.message.replace("data.", "", 1).replace("data ", "document ", 1)
        message = message[len(where):].strip() if message.startswith(where) else message
        if err.rule == "oneOf" and (err.definition or {}).get("description"):  # say which forms it takes
            message = "must be " + err.definition["description"][0].lower() + err.definition["description"][1:]
        raise BoardError(f"{where}: {message}" + _hex_note(doc, err), field=where, hex=_hex_of(doc, err)) from None


def read_board(doc) -> Board:
    """Read a board-state document (a dict, or JSON text) into a :class:`Board`.

    Raises
    ------
    BoardError
        naming the field (``hexes[3].rotation``) and the hex of the first problem found.
    """
    if isinstance(doc, (str, bytes)):
        try:
            doc = json.loads(doc)
        except json.JSONDecodeError as err:
            raise BoardError(f"not valid JSON: {err}", field="(document)") from None
    validate_schema(doc)
    layout = doc["layout"]
    hexes: dict[str, Hex] = {}
    for i, h in enumerate(doc["hexes"]):
        hexes_field = f"hexes[{i}]"
        hid = h["id"]
        if hid in hexes:
            raise BoardError(f"hex {hid} appears twice", field=f"{hexes_field}.id", hex=hid)
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
        )
    given = ["neighbors" in h for h in doc["hexes"]]
    if any(given) and not all(given):
        i = given.index(False)
        hid = doc["hexes"][i]["id"]
        raise BoardError(f"hexes[{i}].neighbors: missing on hex {hid} but given on others; give neighbors on "
                         "every hex or on none", field=f"hexes[{i}].neighbors", hex=hid)
    if all(given):
        for i, h in enumerate(doc["hexes"]):
            hx = hexes[h["id"]]
            for edge, other in h["neighbors"].items():
                if other not in hexes:
                    raise BoardError(
                        f"hex {hx.id}: neighbour {other!r} on edge {edge} is not on the map",
                        field=f"hexes[{i}].neighbors.{edge}", hex=hx.id)
                hx.neighbors[int(edge)] = other
    else:
        for hx in hexes.values():
            hx.neighbors = computed_neighbors(hexes, layout, hx.id)
    corp = doc["corporation"]
    company = Company(
        id=corp["id"], name=corp.get("name") or corp["id"], type=corp.get("type"), minor=bool(corp.get("minor")),
        owner=None if corp.get("owner") is None else str(corp.get("owner")),
        companies=list(corp.get("companies") or []), president_companies=list(corp.get("president_companies") or []),
        abilities=list(corp.get("abilities") or []), ferry_marker=corp.get("ferry_marker"),
        assignments=dict(corp.get("assignments") or {}))
    trains = []
    for i, t in enumerate(doc["trains"]):
        trains.append(Train(
            id=str(t.get("id") or f"{t['name']}-{i}"), name=t["name"], distance=t["distance"],
            multiplier=t.get("multiplier") or 1, requires_token=t.get("requires_token", True),
            local=bool(t.get("local")), owner=t.get("owner"), price=t.get("price")))
    ids = [t.id for t in trains]
    if len(set(ids)) != len(ids):
        raise BoardError("two trains share one id", field="trains")
    phase = doc["phase"]
    return Board(id=doc.get("id"), game=doc["game"], layout=layout, phase_name=str(phase.get("name", "")),
                 phase_tiles=list(phase["tiles"]), company=company, trains=trains, hexes=hexes)


def _read_cities(h: dict, tile: Tile, where: str) -> dict:
    city_nodes = [n.index for n in tile.nodes if n.kind == "city"]
    cities = {}
    given = h.get("cities") or []
    if len(given) > len(city_nodes):
        raise BoardError(f"hex {h['id']}: {len(given)} cities given but the tile has {len(city_nodes)}",
                         field=f"{where}.cities", hex=h["id"])
    for k, c in enumerate(given):
        # ``index`` is the city's node number N (``HEX._N``); without it, the k-th city.
        n = c.get("index", city_nodes[k] if k < len(city_nodes) else -1)
        if n not in city_nodes:
            raise BoardError(f"hex {h['id']}: token on city _{n}, but the tile has no such city",
                             field=f"{where}.cities[{k}].index", hex=h["id"])
        node = tile.nodes[n]
        tokens = list(c.get("tokens") or [])
        slots = c.get("slots", node.slots)
        placed = [t for t in tokens if t]
        if len(placed) > max(slots, node.slots):
            raise BoardError(f"hex {h['id']}: city _{n} holds {len(placed)} tokens but has {slots} slot(s)",
                             field=f"{where}.cities[{k}].tokens", hex=h["id"])
        types = list(c.get("token_types") or [])
        neutral = [(i < len(types) and types[i] == "neutral") for i in range(len(tokens))]
        cities[n] = City(city_nodes.index(n), n, max(slots, len(tokens)), tokens, neutral)
    for index, n in enumerate(city_nodes):
        if n not in cities:
            node = tile.nodes[n]
            cities[n] = City(index, n, node.slots, [None] * node.slots, [False] * node.slots)
    return cities


IMPASSABLE_COLOURS = frozenset({"blue", "gray", "red"})


def computed_neighbors(hexes: dict, layout: str, hex_id: str) -> dict:
    """The adjacency trains use, as the engine builds it at game start.

    Every on-map neighbour, less those across an impassable border, less blue, gray and red
    neighbours whose tile has no exit on the facing edge.
    """
    hx = hexes[hex_id]
    x, y = geometry.hex_xy(hex_id, layout)
    out = {}
    at = _coordinate_index(tuple(hexes), layout)
    impassable = {edge for edge, kind in hx.borders if kind == "impassable"}
    for edge, (dx, dy) in geometry.DIRECTIONS[layout].items():
        other = at.get((x + dx, y + dy))
        if other is None or edge in impassable:
            continue
        ox = hexes[other]
        if ox.color in IMPASSABLE_COLOURS and geometry.opposite(edge) not in ox.tile.exits(ox.rotation):
            continue
        out[edge] = other
    return out


@lru_cache(maxsize=64)
def _coordinate_index(hex_ids: tuple, layout: str) -> dict:
    return {geometry.hex_xy(h, layout): h for h in hex_ids}
