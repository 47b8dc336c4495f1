"""Which tiles of a game's supply may go on a hex, and at which rotations: for a board built by taps.

The rule is the 18xx.games engine's generic one (``lib/engine/game/base.rb``, ``upgrades_to?``;
``lib/engine/step/tracker.rb``, ``legal_tile_rotation?``): the next colour (white, yellow, green,
brown, gray), the same label, as many towns and (unless labelled) as many cities, every path of the
old tile kept by a path of the new one at that rotation, every exit towards a hex of the map, and
on a tile of several cities each old city within one new city. Where the company can reach is not
asked: at a table, who lays what is the players' business. A game whose rule adds to this declares
it in its data file (``tile_rules``, see :class:`TileRules`: 1880, 1880 Romania, 18AL). Not applied:
1894's brown-city upgrade lists (``G1894::Game#upgrades_to?``) and 1880 Romania's borders, which
train events open and remove; the page offers every other tile of the supply beside these.

Tokens follow the engine's ``Hex#city_map_for`` (``lib/engine/hex.rb``): by index from a tile whose
cities have no track, else to the new city whose exits hold the old city's exits.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..board.tiles import Tile, placed

COLOURS = ("white", "yellow", "green", "brown", "gray")  # Engine::Tile::COLORS, the upgrade order


@dataclass(frozen=True)
class TileRules:
    """A game's own additions to the generic rule, declared in its data file under ``tile_rules``."""

    stubs_restrict: bool = False  # a tile must use the printed stubs' edges (the engine's StubsAreRestricted)
    plain_multi_city_label: str | None = None  # a plain hex of several cities takes the tiles of this label
    city_or_town: bool = False  # a hex of cities and towns takes a tile keeping either count
    max_exits: tuple = ()  # "cities": on a city, only the tiles of a colour with the most exits
    final_tiles: frozenset = frozenset()  # tiles never upgraded
    hex_upgrades: tuple = ()  # ((hex, colour, tiles), ...): that hex of that colour takes only these tiles

    @classmethod
    def of(cls, data: dict) -> TileRules:
        declared = data.get("tile_rules") or {}
        return cls(
            bool(declared.get("stubs_restrict")),
            declared.get("plain_multi_city_label"),
            bool(declared.get("city_or_town")),
            tuple(declared.get("max_exits") or ()),
            frozenset(declared.get("final_tiles") or ()),
            tuple(
                (hex_id, colour, tuple(tiles))
                for hex_id, by_colour in (declared.get("hex_upgrades") or {}).items()
                for colour, tiles in by_colour.items()
            ),
        )

    def only(self, hex_id: str, colour: str):
        """The tiles a hex of a colour may take, where the game names them (None: the rule decides)."""
        return next((tiles for h, c, tiles in self.hex_upgrades if h == hex_id and c == colour), None)


GENERIC = TileRules()


def upgrades_to(old: Tile, old_colour: str, new: Tile, new_colour: str, rules: TileRules = GENERIC) -> bool:
    """The engine's ``upgrades_to?`` less its track test (see :func:`rotations`): colour, label, counts."""
    if old_colour not in COLOURS[:-1] or new_colour != COLOURS[COLOURS.index(old_colour) + 1]:
        return False
    old_cities, new_cities = _count(old, "city"), _count(new, "city")
    old_towns, new_towns = _count(old, "town"), _count(new, "town")
    plain_multi = old_colour == "white" and old_cities > 1 and rules.plain_multi_city_label
    new_label = new.labels[0] if new.labels else None
    if _label(old, new_colour) != new_label and not (plain_multi and new_label == rules.plain_multi_city_label):
        return False
    if rules.city_or_town and old_cities and old_towns:
        return new_cities == old_cities or new_towns == old_towns
    if old_towns != new_towns:
        return False
    if not old.labels and old_cities != new_cities:
        return False
    if old.labels and old_cities and not new_cities:
        return False
    return not (old_colour == "white" and old.labels == ("OO",) and old_cities != new_cities)


def rotations(old: Tile, old_rotation: int, new: Tile, exits_allowed, rules: TileRules = GENERIC) -> list:
    """The rotations of ``new`` that keep the old tile's track and point only at allowed edges."""
    stubs = {(e + old_rotation) % 6 for e in _stub_edges(old)} if rules.stubs_restrict else set()
    old_paths = _path_ends(old, placed(old.code, old_rotation).paths)
    old_stops = [e for e in _stop_edges(old, old_rotation).values() if e]
    multi_city = _count(old, "city") > 1 and _count(new, "city") > 1
    out = []
    for rotation in range(6):
        view = placed(new.code, rotation)
        if not set(view.exits) <= set(exits_allowed) or not stubs <= set(view.exits):
            continue
        new_paths = _path_ends(new, view.paths)
        if not all(any(path <= other for other in new_paths) for path in old_paths):
            continue
        new_stops = [e for e in _stop_edges(new, rotation).values() if e]
        added = max(0, len(new_stops) - len(old_stops))
        if sum(1 for n in new_stops if all(not (n & o) for o in old_stops)) > added:
            continue  # a new city or town beside the old ones, more than the tile adds
        if multi_city and not all(sum(1 for n in new_stops if o <= n) == 1 for o in old_stops):
            continue  # an old city that is not within exactly one new one
        out.append(rotation)
    return out


def city_map(old: Tile, old_rotation: int, new: Tile, new_rotation: int) -> dict:
    """Where each city of the old tile goes on the new one: old node index -> new node index."""
    olds = _city_edges(old, old_rotation)
    news = _city_edges(new, new_rotation)
    new_ids = list(news)
    if not any(olds.values()) and len(olds) == len(news):
        return dict(zip(olds, new_ids))
    out = {o: next((n for n, edges in news.items() if edges and edges >= o_edges), None) for o, o_edges in olds.items()}
    for k, o in enumerate(olds):  # the engine's fallback: same index if free, else the first free city
        if out[o] is not None:
            continue
        taken = set(out.values())
        n = new_ids[k] if k < len(new_ids) else None
        if n is None or n in taken:
            n = next((c for c in new_ids if c not in taken), None)
        out[o] = n
    return {o: n for o, n in out.items() if n is not None}


def most_exits(fits: list, tiles: dict, old: Tile, rules: TileRules) -> list:
    """Of the fitting tiles (``{"tile", "color"}``), those the rules keep: on a city hex, where
    ``max_exits`` names cities, the tiles of each colour with the most exits (the engine's
    ``Tracker#max_exits``)."""
    if "cities" not in rules.max_exits or not _count(old, "city"):
        return fits
    exits = {f["tile"]: len(placed(tiles[f["tile"]].code, 0).exits) for f in fits}
    most: dict = {}
    for f in fits:
        most[f["color"]] = max(most.get(f["color"], 0), exits[f["tile"]])
    return [f for f in fits if exits[f["tile"]] == most[f["color"]]]


def _stub_edges(t: Tile) -> list:
    out = []
    for part in t.cosmetic:
        kind, _, body = part.partition("=")
        if kind == "stub":
            props = dict(p.split(":", 1) for p in body.split(",") if ":" in p)
            out.append(int(props.get("edge", 0)))
    return out


def _label(old: Tile, new_colour: str):
    """The label the new tile must carry: the old one's, or its future label for that colour."""
    for part in old.cosmetic:
        kind, _, body = part.partition("=")
        if kind == "future_label":
            props = dict(p.split(":", 1) for p in body.split(",") if ":" in p)
            if props.get("color") == new_colour:
                return props.get("label")
    return old.labels[0] if old.labels else None


def _count(t: Tile, kind: str) -> int:
    return sum(1 for n in t.nodes if n.kind == kind)


def _path_ends(t: Tile, paths) -> list:
    """Each placed path's ends as the engine compares them (``Path#ends``): edges by number, nodes by
    kind, and in place of a junction the other ends of the paths that meet there."""
    out = []
    for path in paths:
        ends: set = set()
        for end in (path.a, path.b):
            if end[0] == "node" and t.nodes[end[1]].kind == "junction":
                for other in paths:
                    if other is not path and end in (other.a, other.b):
                        ends.update(_end(t, e) for e in (other.a, other.b) if e != end)
            else:
                ends.add(_end(t, end))
        out.append(frozenset(ends))
    return out


def _end(t: Tile, end) -> tuple:
    return end if end[0] == "edge" else ("node", t.nodes[end[1]].kind)


def _stop_edges(t: Tile, rotation: int) -> dict:
    """Each city's and town's node index -> the absolute edges its paths reach (``city_town_edges``)."""
    return _node_edges(t, rotation, ("city", "town"))


def _city_edges(t: Tile, rotation: int) -> dict:
    """Each city's node index -> the absolute edges its paths reach (``City#exits``)."""
    return _node_edges(t, rotation, ("city",))


def _node_edges(t: Tile, rotation: int, kinds) -> dict:
    out: dict = {n.index: set() for n in t.nodes if n.kind in kinds}
    for p in placed(t.code, rotation).paths:
        for n in p.nodes:
            if n in out:
                out[n].update(p.edges)
    return {k: frozenset(v) for k, v in out.items()}
