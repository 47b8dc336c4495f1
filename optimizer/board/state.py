"""The board-state document, read into plain objects and checked.

The document is the 18xx.games corpus state (input fields only; see ``schema/board.schema.json``).
Reading validates the shape against the schema first, then the meaning (tile codes, tokens,
neighbours), and every problem is a :class:`BoardError` that names the field and the hex.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources

import fastjsonschema
import msgspec

from ..errors import BoardError, OptimizerError
from . import document, geometry
from .limits import check_numbers
from .tiles import Tile, parse_code


class _kept:
    """An attribute computed on first use and kept on the instance (``functools.cached_property``
    without its lock, which costs more than these small values)."""

    def __init__(self, compute):
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.compute(obj)
        return value


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

    @_kept
    def stop_nodes(self) -> tuple:
        """The tile's revenue nodes (cities, towns, off-boards), in code order."""
        return tuple(node for node in self.tile.nodes if node.is_stop)

    @_kept
    def track(self) -> tuple:
        """What a walk over the track reads of this hex: tile code, rotation, neighbours (a hex is
        read-only once read; the fast reader shares it between boards)."""
        return (self.tile.code, self.rotation, tuple(self.neighbors.items()))


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
                raise BoardError(
                    f"{where}: missing" + _hex_note(doc, err), field=where, hex=_hex_of(doc, err)
                ) from None
        message = err.message.replace("data.", "", 1).replace("data ", "document ", 1)
        message = message[len(where) :].strip() if message.startswith(where) else message
        if err.rule == "oneOf" and (err.definition or {}).get("description"):  # say which forms it takes
            message = "must be " + err.definition["description"][0].lower() + err.definition["description"][1:]
        raise BoardError(f"{where}: {message}" + _hex_note(doc, err), field=where, hex=_hex_of(doc, err)) from None


def _loaded(doc):
    """JSON text decoded; anything else as it is."""
    if isinstance(doc, (str, bytes)):
        try:
            return json.loads(doc)
        except json.JSONDecodeError as err:
            raise BoardError(f"not valid JSON: {err}", field="(document)") from None
    return doc


def read_board_reference(doc) -> Board:
    """Read a board-state document (a dict, or JSON text) into a :class:`Board`: the reference
    reader, in plain Python over the document's dicts, checked by the JSON Schema.

    Raises
    ------
    BoardError
        naming the field (``hexes[3].rotation``) and the hex of the first problem found.
    """
    doc = _loaded(doc)
    validate_schema(doc)
    return board_from_document(doc)


def board_from_document(doc: dict) -> Board:
    """The reference reader after the schema check: the document's dicts read into a Board."""
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
        raise BoardError(
            f"hexes[{i}].neighbors: missing on hex {hid} but given on others; give neighbors on every hex or on none",
            field=f"hexes[{i}].neighbors",
            hex=hid,
        )
    if all(given):
        for i, h in enumerate(doc["hexes"]):
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
        at = _coordinate_index(tuple(hexes), layout)  # once per board: linear, not once per hex
        for hx in hexes.values():
            hx.neighbors = computed_neighbors(hexes, layout, hx.id, at)
    return _read_rest(doc, hexes)


def _read_rest(doc: dict, hexes: dict) -> Board:
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
                distance=t["distance"],
                multiplier=t.get("multiplier") or 1,
                requires_token=t.get("requires_token", True),
                local=bool(t.get("local")),
                owner=t.get("owner"),
                price=t.get("price"),
            )
        )
    ids = [t.id for t in trains]
    if len(set(ids)) != len(ids):
        raise BoardError("two trains share one id", field="trains")
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


# ---- the fast reader ---------------------------------------------------------------------------
# Hexes read before, by their (hashable) document struct or their JSON text: the map's pre-printed
# hexes and every unchanged tile of a game's next board cost one lookup. Shared between boards:
# read-only. Each entry: (Hex, neighbours given, ids of its neighbours).
_HEXES: dict = {}
_HEXES_MAX = 20_000  # a few games in play: ~1,100 entries for the whole public corpus


def read_board_fast(doc) -> Board:
    """Read a board-state document like :func:`read_board_reference`, checked by msgspec in C and
    with each hex read once per process (by its struct, or by its JSON text: a hex seen before is
    not even decoded again).

    Whatever this reader does not accept as it is (a document msgspec refuses, a bad tile code,
    tokens that do not fit, a neighbour off the map, neighbours given on some hexes only) goes to
    the reference reader, which reads it or raises the error it always raised: same answer, same
    message, by construction.
    """
    board = None
    if isinstance(doc, (str, bytes)):
        decoded = document.decode_text(doc)
        board = board_from_hex_texts(*decoded) if decoded is not None else None
    elif isinstance(doc, dict):
        parsed = document.decode(doc)
        board = board_from_structs(doc, parsed.hexes) if parsed is not None else None
    return board if board is not None else read_board_reference(doc)


def read_board_text(text, check=None) -> Board | None:
    """A board-state document's JSON text read on the fast path in one step (no dict tree); None
    for anything else (other JSON, a tile-lay board, a bad board): the caller takes the long way,
    which reads it or raises the error it always raised.

    ``check(rest, hex_texts)``, if given, sees the decoded document before any hex is read (``rest``
    its plain values less the hexes, ``hex_texts`` each hex's JSON text) and may raise: a server
    refuses what is over its limits before the work that grows with them."""
    decoded = document.decode_text(text) if FAST_PATH else None
    if decoded is None:
        return None
    if check is not None:
        check(*decoded)
    return board_from_hex_texts(*decoded)


def board_from_structs(doc: dict, hex_structs: list) -> Board | None:
    """The fast reader after msgspec's check: ``doc`` the document's plain values (its hexes
    unused), ``hex_structs`` its hexes as structs; None for anything the reference reader must
    decide (it raises the error, or reads what msgspec could not)."""
    entries = []
    for h in hex_structs:
        try:
            key = h
            entry = _HEXES.get(key)
        except TypeError:  # a field holds an unhashable value (assignments, extra tokens)
            key = document.hex_key(h)
            entry = _HEXES.get(key)
        if entry is None:
            entry = _remember(key, _hex_entry(h))
            if entry is None:
                return None
        entries.append(entry)
    return _assemble(doc, entries)


def board_from_hex_texts(doc: dict, hex_texts: list) -> Board | None:
    """:func:`board_from_structs` with each hex as its JSON text, decoded only when not seen before."""
    entries = []
    for text in hex_texts:
        entry = _HEXES.get(text)
        if entry is None:
            h = document.decode_hex(text)
            entry = _remember(text, _hex_entry(h)) if h is not None else None
            if entry is None:
                return None
        entries.append(entry)
    return _assemble(doc, entries)


# Hexes read before, by a key their caller gives (a structured message's serialized bytes: the
# server's ``Board``): kept apart from ``_HEXES``, whose keys are JSON texts and structs.
_KEYED: dict = {}


def board_from_keyed_hexes(rest: dict, keys, hex_document) -> Board | None:
    """A board whose hexes come with a key each, equal keys for equal hexes (the bytes of a hex's
    message): a hex seen before costs one lookup, a new one ``hex_document(i)``, the i-th hex's
    document dict (None: this hex is for the caller's long way), read as :func:`board_from_structs`
    reads it. ``rest`` is the document's plain values less its hexes. None for anything the
    reference reader must decide (it raises the error, or reads what this one does not), as for
    the other fast readers.
    """
    if not FAST_PATH or not keys or not document.rest_is_valid(rest):
        return None
    entries = []
    for i, key in enumerate(keys):
        entry = _KEYED.get(key)
        if entry is None:
            doc = hex_document(i)
            h = document.convert_hex(doc) if doc is not None else None
            entry = _remember(key, _hex_entry(h), _KEYED) if h is not None else None
            if entry is None:
                return None
        entries.append(entry)
    return _assemble(rest, entries)


# Boards read before, by a key their caller gives for the whole board (a structured message's
# bytes): the same board again costs one lookup, before any of it is converted. Every
# board in it is in _SHARED (it is cleared with _BOARDS).
_KEYED_BOARDS: dict = {}


def board_by_key(key, read) -> Board | None:
    """The board read before under ``key`` (equal keys for equal boards), else ``read()``'s (a
    Board, or None as the fast readers answer), remembered when it is a shared one."""
    found = _KEYED_BOARDS.get(key)
    if found is not None:
        return found
    board = read()
    if board is not None and is_shared(board):
        if len(_KEYED_BOARDS) >= _BOARDS_MAX:
            _KEYED_BOARDS.clear()
        _KEYED_BOARDS[key] = board
    return board


def _hex_entry(h) -> tuple | None:
    """What a hex struct reads as: (Hex, neighbours given, ids of its neighbours); None as in
    :func:`_read_hex`."""
    hx = _read_hex(h)
    if hx is None:
        return None
    return hx, h.neighbors is not document.UNSET, frozenset(hx.neighbors.values())


def _remember(key, entry, cache: dict = _HEXES):
    if entry is not None:
        if len(cache) >= _HEXES_MAX:
            cache.clear()
        cache[key] = entry
    return entry


# Boards read before, by their hexes' entries (by identity: each entry is one per hex content) and
# the JSON of the rest: the same board again (another request for it) costs one lookup. Each value
# keeps its entries alive, so that their ids in the key stay theirs. Shared between requests:
# read-only, as the hexes are.
_BOARDS: dict = {}
_BOARDS_MAX = 512  # the whole public corpus: 470


def _assemble(doc: dict, entries: list) -> Board | None:
    """The board from its hexes' entries, from the cache when the same board was read before."""
    try:
        rest = msgspec.json.encode(
            (doc.get("id"), doc["game"], doc["layout"], doc["phase"], doc["corporation"], doc["trains"])
        )
    except (TypeError, ValueError, KeyError, OverflowError):  # never a key: read it without one
        return _assembled(doc, entries)
    key = (rest, tuple(map(id, entries)))
    found = _BOARDS.get(key)
    if found is not None:
        return found[1]
    board = _assembled(doc, entries)
    if board is not None:
        if len(_BOARDS) >= _BOARDS_MAX:
            _BOARDS.clear()
            _SHARED.clear()
            _KEYED_BOARDS.clear()
        _BOARDS[key] = (entries, board)
        _SHARED[id(board)] = board
    return board


_SHARED: dict = {}  # id -> Board: the boards in _BOARDS


def is_shared(board) -> bool:
    """The board is one the fast reader hands out again for the same document (read-only)."""
    return _SHARED.get(id(board)) is board


def _assembled(doc: dict, entries: list) -> Board | None:
    """The board from its hexes' entries: ids distinct, neighbours given everywhere and on the
    map, or given nowhere and computed."""
    hexes: dict[str, Hex] = {}
    given = 0
    for hx, with_neighbors, _ in entries:
        if hx.id in hexes:
            return None
        hexes[hx.id] = hx
        given += with_neighbors
    if given == len(hexes):
        if not hexes.keys() >= frozenset().union(*[ids for _, _, ids in entries]):
            return None
    elif given:
        return None
    else:
        layout = doc["layout"]
        at = _coordinate_index(tuple(hexes), layout)  # once per board: linear, not once per hex
        computed = {hx.id: computed_neighbors(hexes, layout, hx.id, at) for hx in hexes.values()}
        hexes = {hid: replace(hx, neighbors=computed[hid]) for hid, hx in hexes.items()}
    return _read_rest(doc, hexes)


def _read_hex(h) -> Hex | None:
    """One hex from its struct; None for anything the reference reader would refuse."""
    if not document.HEX_ID.match(h.id):
        return None
    try:
        tile = parse_code(h.code)
    except OptimizerError:
        return None
    cities = _read_cities_fast(h, tile)
    if cities is None:
        return None
    return Hex(
        id=h.id,
        tile_name=str(h.tile or h.id),
        color=h.color or "white",
        rotation=h.rotation,
        tile=tile,
        location_name=h.location_name,
        neighbors=h.neighbors.as_dict() if h.neighbors is not document.UNSET else {},
        borders=[(b.edge, b.type) for b in h.borders],
        cities=cities,
        assignments=dict(h.assignments) if h.assignments else {},
    )


def _read_cities_fast(h, tile: Tile) -> dict | None:
    """:func:`_read_cities` over a struct; None where that one raises."""
    city_nodes = [n.index for n in tile.nodes if n.kind == "city"]
    cities = {}
    if len(h.cities) > len(city_nodes):
        return None
    for k, c in enumerate(h.cities):
        n = c.index if c.index is not document.UNSET else (city_nodes[k] if k < len(city_nodes) else -1)
        if n not in city_nodes:
            return None
        node = tile.nodes[n]
        tokens = list(c.tokens)
        slots = c.slots if c.slots is not document.UNSET else node.slots
        if sum(1 for t in tokens if t) > max(slots, node.slots):
            return None
        types = c.token_types
        neutral = [(i < len(types) and types[i] == "neutral") for i in range(len(tokens))]
        cities[n] = City(city_nodes.index(n), n, max(slots, len(tokens)), tokens, neutral)
    return _with_untokened(cities, tile, city_nodes)


def _with_untokened(cities: dict, tile: Tile, city_nodes: list) -> dict:
    """``cities`` (both readers' given cities, by node) with every other city of the tile, empty."""
    for index, n in enumerate(city_nodes):
        if n not in cities:
            node = tile.nodes[n]
            cities[n] = City(index, n, node.slots, [None] * node.slots, [False] * node.slots)
    return cities


def clear_cache() -> None:
    """Forget the hexes and boards read so far (to measure a first board)."""
    _HEXES.clear()
    _KEYED.clear()
    _KEYED_BOARDS.clear()
    _BOARDS.clear()
    _SHARED.clear()


# The reader, chosen once (``OPTIMIZER_NO_FAST_PATH=1``: the reference reader everywhere).
FAST_PATH = not os.environ.get("OPTIMIZER_NO_FAST_PATH")
read_board = read_board_fast if FAST_PATH else read_board_reference


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
        cities[n] = City(city_nodes.index(n), n, max(slots, len(tokens)), tokens, neutral)
    return _with_untokened(cities, tile, city_nodes)


IMPASSABLE_COLOURS = frozenset({"blue", "gray", "red"})


def computed_neighbors(hexes: dict, layout: str, hex_id: str, at: dict | None = None) -> dict:
    """The adjacency trains use, as the engine builds it at game start.

    Every on-map neighbour, less those across an impassable border, less blue, gray and red
    neighbours whose tile has no exit on the facing edge. ``at`` is the board's coordinate index,
    when the caller already has it.
    """
    hx = hexes[hex_id]
    x, y = geometry.hex_xy(hex_id, layout)
    out = {}
    at = _coordinate_index(tuple(hexes), layout) if at is None else at
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
