"""A board given as tile lays on a built-in game, turned into a board-state document.

For a client that knows only what was laid where::

    {"game": "1830", "phase": "5",
     "lays": [{"hex": "F20", "tile": "57", "rotation": 1}, ...],
     "tokens": [{"hex": "F20", "city": 0, "company": "NYC"}, ...],
     "trains": ["5", "D"] or [{"name": "5"}, ...],
     "company": "NYC"}

Everything else (the map, tile codes, colours, train distances, phase colours) comes from the
game's data. ``city`` is the node number N of ``HEX._N`` (0 for a one-city tile).
"""

from __future__ import annotations

from collections import Counter

from ..board.tiles import parse_code
from ..errors import BoardError, OptimizerError
from . import canonical_name, game_data
from .upgrades import TileRules, city_map, most_exits, rotations, upgrades_to


def is_tile_lays(doc) -> bool:
    return isinstance(doc, dict) and "hexes" not in doc and ("lays" in doc or "tokens" in doc)


def board_from_tile_lays(doc: dict) -> dict:
    """The board-state document of a tile-lay board: the game's map with the lays and tokens on it."""
    data, title, hexes, _ = laid_map(doc)
    _place_tokens(hexes, doc.get("tokens", []) or [])
    company = _company(doc.get("company"), data, title)
    phase = _phase(doc.get("phase"), data, title)
    trains = _trains(doc.get("trains", []), data, title)
    return {
        "id": doc.get("id"),
        "game": title,
        "layout": data["layout"],
        "phase": phase,
        "corporation": company,
        "trains": trains,
        "hexes": list(hexes.values()),
    }


def laid_map(doc: dict) -> tuple:
    """The game's data, its title, its map with the document's tiles laid (hex id -> hex) and the
    tile now on each hex a lay reached (hex id -> tile name)."""
    if not isinstance(doc.get("game"), str):
        raise BoardError("game: a built-in game name is needed (1830, 1880, 1880 Romania, 1894, 18EU)", field="game")
    data = game_data(doc["game"])
    title = canonical_name(doc["game"]) or doc["game"]
    hexes = {h["id"]: preprinted_hex(h) for h in data["hexes"]}
    laid = _lay_tiles(hexes, doc.get("lays", []), {t["name"]: t for t in data["tiles"]}, title)
    return data, title, hexes, laid


def _lay_tiles(hexes: dict, lays, tiles: dict, title: str) -> dict:
    """Put each laid tile on its hex, within the supply; its cities start with empty slots. A tile
    an upgrade replaces goes back to the supply, as in the engine (``update_tile_lists`` in
    ``lib/engine/game/base.rb``)."""
    if not isinstance(lays, list):
        raise BoardError("lays must be a list of {hex, tile, rotation}", field="lays")
    laid: dict = {}
    for i, lay in enumerate(lays):
        where = f"lays[{i}]"
        if not isinstance(lay, dict):
            raise BoardError(f"{where} must be an object {{hex, tile, rotation}}", field=where)
        hex_id, name, rotation = lay.get("hex"), str(lay.get("tile")), lay.get("rotation", 0)
        if not isinstance(hex_id, str) or hex_id not in hexes:
            raise BoardError(
                f"{where}.hex: unknown hex {hex_id!r} on the {title} map", field=f"{where}.hex", hex=str(hex_id)
            )
        if name not in tiles:
            raise BoardError(
                f"{where}.tile: unknown tile {name!r} in the {title} supply", field=f"{where}.tile", hex=hex_id
            )
        if isinstance(rotation, bool) or not isinstance(rotation, int) or not 0 <= rotation <= 5:
            raise BoardError(
                f"{where}.rotation: {rotation!r} is not a rotation 0-5", field=f"{where}.rotation", hex=hex_id
            )
        laid[hex_id] = name
        used = sum(1 for t in laid.values() if t == name)
        count = tiles[name].get("count")
        if isinstance(count, int) and used > count:
            raise BoardError(
                f"{where}.tile: tile {name} would be on the map {used} times; the supply has {count}",
                field=f"{where}.tile",
                hex=hex_id,
            )
        tile = tiles[name]
        hexes[hex_id].update(tile=name, code=tile["code"], color=tile["color"], rotation=rotation)
        hexes[hex_id]["cities"] = empty_cities(tile["code"])
    return laid


def _place_tokens(hexes: dict, tokens) -> None:
    """Put each token in the first free slot of its city."""
    if not isinstance(tokens, list):
        raise BoardError("tokens must be a list of {hex, city, company}", field="tokens")
    for i, token in enumerate(tokens):
        where = f"tokens[{i}]"
        if not isinstance(token, dict):
            raise BoardError(f"{where} must be an object {{hex, city, company}}", field=where)
        hex_id, city, company = token.get("hex"), token.get("city", 0), token.get("company")
        if isinstance(city, bool) or not isinstance(city, int):
            raise BoardError(f"{where}.city: the city's node number N, like 0", field=f"{where}.city")
        if not isinstance(hex_id, str) or hex_id not in hexes:
            raise BoardError(f"{where}.hex: unknown hex {hex_id!r}", field=f"{where}.hex", hex=str(hex_id))
        if not isinstance(company, str) or not company:
            raise BoardError(f"{where}.company: a company id is needed", field=f"{where}.company", hex=hex_id)
        cities = {c["index"]: c for c in hexes[hex_id]["cities"]}
        if city not in cities:
            raise BoardError(f"{where}.city: hex {hex_id} has no city _{city}", field=f"{where}.city", hex=hex_id)
        slots = cities[city]["tokens"]
        if None not in slots:
            raise BoardError(f"{where}: city _{city} of hex {hex_id} has no free slot", field=where, hex=hex_id)
        slots[slots.index(None)] = company


def _company(company, data: dict, title: str) -> dict:
    """The operating company: an id of the game's (or a minor's), as a corporation object."""
    if isinstance(company, str):
        company = {"id": company}
    if not isinstance(company, dict) or not company.get("id"):
        raise BoardError("company: the operating company's id is needed", field="company")
    known = {c["id"] for c in data.get("corporations", [])}
    if known and company["id"] not in known and not company.get("minor"):
        raise BoardError(f"company: unknown company {company['id']!r} in {title}", field="company.id")
    company.setdefault("name", company["id"])
    return company


def _phase(phase, data: dict, title: str) -> dict:
    """The phase, by name (its tile colours from the game) or as ``{name, tiles}``."""
    phases = {str(p["name"]): p for p in data["phases"]}
    if isinstance(phase, (list, bool)) or phase is None:
        raise BoardError(f"phase: a phase name of {title} is needed (one of {', '.join(phases)})", field="phase")
    if isinstance(phase, dict):
        return {"name": str(phase.get("name", "")), "tiles": phase.get("tiles")}
    if str(phase) in phases:
        return {"name": str(phase), "tiles": phases[str(phase)]["tiles"]}
    raise BoardError(f"phase: unknown phase {phase!r} (one of {', '.join(phases)})", field="phase")


def _trains(given, data: dict, title: str) -> list:
    """The trains, by name (their distance from the game) or as ``{name, distance}``."""
    trains_by_name = {str(t["name"]): t for t in data["trains"]}
    trains = []
    if not isinstance(given, list):
        raise BoardError("trains must be a list of train names or {name, distance}", field="trains")
    for i, t in enumerate(given):
        if not isinstance(t, (str, dict)):
            raise BoardError(f"trains[{i}]: a train name or {{name, distance}}", field=f"trains[{i}]")
        t = {"name": t} if isinstance(t, str) else dict(t)
        name = str(t.get("name"))
        if "distance" not in t:
            if name not in trains_by_name:
                raise BoardError(f"trains[{i}].name: unknown train {name!r} in {title}", field=f"trains[{i}].name")
            t["distance"] = trains_by_name[name]["distance"]
        t.setdefault("id", f"{name}-{i}")
        trains.append(t)
    return trains


def preprinted_hex(h: dict) -> dict:
    """A game map's hex as a board-state hex (input fields only, its city tokens copied)."""
    keep = ("id", "tile", "color", "rotation", "code", "location_name", "borders", "cities", "assignments")
    out = {k: h[k] for k in keep if k in h}
    out["cities"] = [dict(c, tokens=list(c.get("tokens", []))) for c in h.get("cities", [])]
    return out


def empty_cities(code: str) -> list:
    """The ``cities`` entries of a freshly laid tile: every slot empty."""
    try:
        tile = parse_code(code)
    except OptimizerError:
        return []
    return [{"index": n.index, "slots": n.slots, "tokens": [None] * n.slots} for n in tile.nodes if n.kind == "city"]


def hex_choices(doc: dict, hex_id) -> dict:
    """What may go on one hex of a tile-lay board, for a board built by taps.

    ``fits``: the supply's tiles that upgrade the hex's tile (see :mod:`optimizer.games.upgrades`),
    those of the phase's colours first, each with how many are left, its code, its rotations that
    keep the old track, and per rotation where the old cities' tokens go (old node -> new node).
    ``others``: every other tile of the supply, for what a game's own rules or a private allow.
    """
    data, title, hexes, laid = laid_map(doc)
    if not isinstance(hex_id, str) or hex_id not in hexes:
        raise BoardError(f"hex: unknown hex {hex_id!r} on the {title} map", field="hex", hex=str(hex_id))
    phase = _phase(doc.get("phase"), data, title) if doc.get("phase") is not None else {"tiles": []}
    colours = phase.get("tiles") or []
    h = hexes[hex_id]
    old = parse_code(h.get("code") or "")
    rotation = h.get("rotation", 0)
    printed = next(x for x in data["hexes"] if x["id"] == hex_id)
    exits_allowed = {int(edge) for edge in (printed.get("neighbors") or {})}
    on_map = Counter(laid.values())
    rules = TileRules.of(data)
    supply = {t["name"]: parse_code(t["code"]) for t in data["tiles"]}
    fits, others = [], []
    for t in data["tiles"]:
        count = t.get("count")
        left = count - on_map[t["name"]] if isinstance(count, int) else None  # None: unlimited
        entry = {"tile": t["name"], "color": t["color"], "left": left}
        new = supply[t["name"]]
        only = rules.only(hex_id, h["color"])
        if h.get("tile") in rules.final_tiles:
            fit = False
        elif only is not None:
            fit = t["name"] in only
        else:
            fit = upgrades_to(old, h["color"], new, t["color"], rules)
        turns = rotations(old, rotation, new, exits_allowed, rules) if fit else []
        if not turns:
            others.append(entry)
            continue
        entry["phase"] = t["color"] in colours
        entry["code"] = t["code"]
        entry["rotations"] = turns
        entry["cities"] = {str(r): {str(a): b for a, b in city_map(old, rotation, new, r).items()} for r in turns}
        fits.append(entry)
    kept = most_exits(fits, supply, old, rules)
    others += [{k: f[k] for k in ("tile", "color", "left")} for f in fits if f not in kept]
    fits = sorted(kept, key=lambda e: not e["phase"])
    return {
        "hex": hex_id,
        "name": h.get("location_name"),
        "tile": h.get("tile"),
        "color": h["color"],
        "rotation": rotation,
        "laid": hex_id in laid,
        "cities": [{"index": c["index"], "slots": c["slots"]} for c in h.get("cities", [])],
        "fits": fits,
        "others": others,
    }
