"""The fast reader: the document checked by msgspec in C, each hex read once per process.

A hex seen before (by its struct, its JSON text or its caller's key) costs one lookup, and the same
board again costs one lookup (:mod:`.caches` holds what was read). Whatever this reader does not
accept as it is (a document msgspec refuses, a bad tile code, tokens that do not fit, a neighbour
off the map, neighbours given on some hexes only) goes to the reference reader
(:mod:`.reference`), which reads it or raises the error it always raised: same answer, same
message, by construction.
"""

from __future__ import annotations

import os
from dataclasses import replace

import msgspec

from ..errors import OptimizerError
from . import caches, document
from .adjacency import computed_neighbors, coordinate_index
from .model import Board, City, Hex
from .reference import hex_tokens_of, read_board_reference, read_rest, with_untokened
from .tiles import Tile, parse_code

# The reader, chosen once per process (``OPTIMIZER_NO_FAST_PATH=1``: the reference reader everywhere).
FAST_PATH = not os.environ.get("OPTIMIZER_NO_FAST_PATH")


def read_board_fast(doc) -> Board:
    """Read a board-state document like :func:`read_board_reference`, checked by msgspec in C and
    with each hex read once per process (by its struct, or by its JSON text: a hex seen before is
    not even decoded again)."""
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
            entry = caches.HEXES.get(key)
        except TypeError:  # a field holds an unhashable value (assignments, extra tokens)
            key = document.hex_key(h)
            entry = caches.HEXES.get(key)
        if entry is None:
            entry = caches.remember(key, _hex_entry(h))
            if entry is None:
                return None
        entries.append(entry)
    return _assemble(doc, entries)


def board_from_hex_texts(doc: dict, hex_texts: list) -> Board | None:
    """:func:`board_from_structs` with each hex as its JSON text, decoded only when not seen before."""
    entries = []
    for text in hex_texts:
        entry = caches.HEXES.get(text)
        if entry is None:
            h = document.decode_hex(text)
            entry = caches.remember(text, _hex_entry(h)) if h is not None else None
            if entry is None:
                return None
        entries.append(entry)
    return _assemble(doc, entries)


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
        entry = caches.KEYED.get(key)
        if entry is None:
            doc = hex_document(i)
            h = document.convert_hex(doc) if doc is not None else None
            entry = caches.remember(key, _hex_entry(h), caches.KEYED) if h is not None else None
            if entry is None:
                return None
        entries.append(entry)
    return _assemble(rest, entries)


def board_by_key(key, read) -> Board | None:
    """The board read before under ``key`` (equal keys for equal boards), else ``read()``'s (a
    Board, or None as the fast readers answer), remembered when it is a shared one."""
    found = caches.KEYED_BOARDS.get(key)
    if found is not None:
        return found
    board = read()
    if board is not None and caches.is_shared(board):
        caches.remember_keyed_board(key, board)
    return board


def _hex_entry(h) -> tuple | None:
    """What a hex struct reads as: (Hex, neighbours given, ids of its neighbours); None as in
    :func:`_read_hex`."""
    hx = _read_hex(h)
    if hx is None:
        return None
    return hx, h.neighbors is not document.UNSET, frozenset(hx.neighbors.values())


def _assemble(doc: dict, entries: list) -> Board | None:
    """The board from its hexes' entries, from the cache when the same board was read before."""
    try:
        rest = msgspec.json.encode(
            (doc.get("id"), doc["game"], doc["layout"], doc["phase"], doc["corporation"], doc["trains"])
        )
    except (TypeError, ValueError, KeyError, OverflowError):  # never a key: read it without one
        return _assembled(doc, entries)
    key = (rest, tuple(map(id, entries)))
    found = caches.BOARDS.get(key)
    if found is not None:
        return found[1]
    board = _assembled(doc, entries)
    if board is not None:
        caches.remember_board(key, entries, board)
    return board


def _assembled(doc: dict, entries: list) -> Board | None:
    """The board from its hexes' entries: neighbours given everywhere and on the map, or given
    nowhere and computed."""
    hexes: dict[str, Hex] = {}
    given = 0
    for hx, with_neighbors, _ in entries:
        hexes[hx.id] = hx  # a hex listed twice: the later stands, as in the reference reader
        given += with_neighbors
    if given == len(entries):
        standing = entries if len(hexes) == len(entries) else [e for e in entries if hexes[e[0].id] is e[0]]
        if not hexes.keys() >= frozenset().union(*[ids for _, _, ids in standing]):
            return None
    elif given:
        return None
    else:
        layout = doc["layout"]
        at = coordinate_index(tuple(hexes), layout)  # once per board: linear, not once per hex
        computed = {hx.id: computed_neighbors(hexes, layout, hx.id, at) for hx in hexes.values()}
        hexes = {hid: replace(hx, neighbors=computed[hid]) for hid, hx in hexes.items()}  # cached hexes stay as read
    return read_rest(doc, hexes)


def _read_hex(h) -> Hex | None:
    """One hex from its struct; None for anything the reference reader would refuse."""
    if not document.HEX_ID.match(h.id):
        return None
    try:
        tile = parse_code(h.code)
    except OptimizerError:
        return None
    cities = _read_cities(h, tile)
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
        hex_tokens=_hex_tokens(h),
    )


def _hex_tokens(h) -> tuple | None:
    """The struct's ``hex_tokens`` as the reference reader reads them; None where the hex gives none."""
    if h.hex_tokens is document.UNSET:
        return None
    return hex_tokens_of([msgspec.structs.asdict(t) for t in h.hex_tokens])


def _read_cities(h, tile: Tile) -> dict | None:
    """The reference reader's cities over a struct; None where that one raises."""
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
        kinds = [types[i] if i < len(types) else None for i in range(len(tokens))]
        blocking = [kind == "blocking" for kind in kinds]
        extra = [t for t in c.extra_tokens if isinstance(t, str)]
        cities[n] = City(city_nodes.index(n), n, max(slots, len(tokens)), tokens, neutral, kinds, blocking, extra)
    return with_untokened(cities, tile, city_nodes)
