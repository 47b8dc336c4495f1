"""The 18xx.games tile code language: ``city=revenue:20;path=a:0,b:_0;...``.

A tile code is a list of parts separated by ``;``. Each part is ``kind=prop:value,prop:value``.
Parts that shape routes (nodes, paths, borders) are modelled, with the two printed properties the
picture needs (a node's ``loc`` and ``hide``); parts that only decorate the printed tile (icons,
upgrade costs, labels, stubs) are recognised and kept aside on purpose.
Anything else is an error, so a code from a newer client is never silently misread.

Codes repeat on many hexes and boards, so :func:`parse_code` is cached.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import BoardError
from . import caches

NODE_KINDS = ("city", "town", "offboard", "junction")
# Engine aliases: a pass is a kind of city, a halt a kind of town.
NODE_ALIASES = {"pass": "city", "halt": "town"}
COSMETIC_PARTS = frozenset({"upgrade", "icon", "label", "stub", "frame", "future_label", "blocks_lay"})

# Properties each part may carry; the ones used neither by routes nor by the picture are accepted and ignored.
KNOWN_PROPS = {
    "city": {"revenue", "slots", "loc", "reservation", "groups", "hide", "route", "visit_cost", "format", "boom"},
    "town": {"revenue", "loc", "route", "style", "groups", "hide", "visit_cost", "boom", "format"},
    "offboard": {"revenue", "groups", "hide", "route", "visit_cost", "format"},
    "junction": {""},
    "path": {"a", "b", "terminal", "lanes", "track", "a_lane", "b_lane", "ignore"},
    "border": {"edge", "type", "color", "cost"},
}
TRACK_KINDS = {"broad", "narrow", "dual", "thin", "dashed"}


class TileCodeError(BoardError):
    """A tile code that does not parse; ``part`` is the offending part."""


@dataclass(frozen=True)
class Node:
    """A node part of a tile: a revenue centre (city, town, offboard) or a junction."""

    index: int  # the ``_N`` of the code: position among node parts
    kind: str  # city | town | offboard | junction
    revenue: tuple  # ((colour or None, value), ...): one entry for a plain number
    slots: int = 0  # token slots (cities only)
    groups: tuple = ()  # group names: one stop of a group per route
    optional: bool = False  # ``route:optional``: a stop a train need not count
    loc: float | None = None  # ``loc``: where the printed tile places it (an edge position); drawing only
    hide: bool = False  # ``hide``: printed without its value (off-boards); drawing only

    @property
    def is_stop(self) -> bool:
        return self.kind != "junction"

    def value(self, phase_colours) -> int:
        """The value in a phase: the entry of the last phase colour the table has."""
        if len(self.revenue) == 1 and self.revenue[0][0] is None:
            return self.revenue[0][1]
        table = dict(self.revenue)
        for colour in reversed(list(phase_colours)):
            if colour in table:
                return table[colour]
        return 0


@dataclass(frozen=True)
class Path:
    """A piece of track inside a tile between two ends.

    An end is ``("edge", k)`` for hex edge k (in the code's frame) or ``("node", n)`` for node n.
    """

    a: tuple
    b: tuple
    terminal: bool = False
    lanes: int = 1
    track: str = "broad"

    def rotated(self, rotation: int) -> Path:
        return Path(_rotate_end(self.a, rotation), _rotate_end(self.b, rotation), self.terminal, self.lanes, self.track)

    @property
    def edges(self) -> tuple:
        return tuple(end[1] for end in (self.a, self.b) if end[0] == "edge")

    @property
    def nodes(self) -> tuple:
        return tuple(end[1] for end in (self.a, self.b) if end[0] == "node")


@dataclass(frozen=True)
class Border:
    edge: int  # in the code's frame; the corpus gives absolute borders separately
    type: str | None  # impassable, province, water, mountain ...; None = a plain printed border
    cost: int = 0


@dataclass(frozen=True)
class Tile:
    """A parsed tile code, unrotated."""

    code: str
    nodes: tuple  # Node, in code order
    paths: tuple  # Path, in code order
    borders: tuple  # Border
    labels: tuple  # label strings (upgrade matching only)
    cosmetic: tuple  # the other recognised parts, verbatim

    @property
    def cities(self) -> tuple:
        return tuple(n for n in self.nodes if n.kind == "city")

    def paths_rotated(self, rotation: int) -> tuple:
        return placed(self.code, rotation).paths

    def exits(self, rotation: int) -> tuple:
        return placed(self.code, rotation).exits


@dataclass(frozen=True)
class Placed:
    """A tile turned to a rotation: its paths in the absolute frame, indexed by end."""

    paths: tuple  # Path, absolute edges
    by_end: dict  # ("edge", k) or ("node", n) -> indexes of the paths with that end
    exits: tuple  # sorted absolute edges with track


@caches.bounded(caches.PLACED_TILES_MAX)
def placed(code: str, rotation: int) -> Placed:
    paths = tuple(p.rotated(rotation) for p in parse_code(code).paths)
    by_end: dict = {}
    for i, p in enumerate(paths):
        for end in (p.a, p.b):
            by_end.setdefault(end, []).append(i)
    return Placed(paths, {k: tuple(v) for k, v in by_end.items()}, tuple(sorted({e for p in paths for e in p.edges})))


def _rotate_end(end, rotation):
    return ("edge", (end[1] + rotation) % 6) if end[0] == "edge" else end


def _parse_revenue(text: str, part: str) -> tuple:
    try:
        if "_" not in text:
            return ((None, int(text)),)
        entries = []
        for item in text.split("|"):
            colour, _, value = item.rpartition("_")
            if not colour:
                raise ValueError(item)
            entries.append((colour, int(value)))
        return tuple(entries)
    except ValueError:
        raise TileCodeError(f"bad revenue {text!r} in part {part!r}", part=part) from None


def _parse_end(text: str, part: str):
    if text.startswith("_") and text[1:].isdigit():
        return ("node", int(text[1:]))
    if text.isdigit() and int(text) <= 5:
        return ("edge", int(text))
    raise TileCodeError(f"bad path end {text!r} in part {part!r} (an edge 0-5 or a node _N)", part=part)


def _props(body: str, kind: str, part: str) -> dict:
    props = {}
    if not body:
        return props
    for item in body.split(","):
        key, sep, value = item.partition(":")
        if key not in KNOWN_PROPS[kind]:
            raise TileCodeError(f"unknown property {key!r} in part {part!r}", part=part)
        if key and not sep:
            raise TileCodeError(f"property {key!r} has no value in part {part!r}", part=part)
        props[key] = value
    return props


def _loc(value: str | None) -> float | None:
    """A printed place, when it is a number (anything else leaves the place to the drawing)."""
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _int(value: str, what: str, part: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise TileCodeError(f"{what} must be a whole number, not {value!r}, in part {part!r}", part=part) from None


@caches.bounded(caches.TILE_CODES_MAX)
def parse_code(code: str) -> Tile:
    """Parse a tile code (unrotated). Raises :class:`TileCodeError` naming the part at fault."""
    if not isinstance(code, str):
        raise TileCodeError(f"tile code must be a string, not {type(code).__name__}")
    nodes, paths, borders, labels, cosmetic = [], [], [], [], []
    for part in code.split(";"):
        if not part:
            continue
        kind, _, body = part.partition("=")
        kind = NODE_ALIASES.get(kind, kind)
        if kind in COSMETIC_PARTS:
            if kind == "label":
                labels.append(body)
            cosmetic.append(part)
            continue
        if kind not in KNOWN_PROPS:
            raise TileCodeError(f"unknown part {kind!r} in {part!r}", part=part)
        props = _props(body, kind, part)
        if kind in NODE_KINDS:
            if kind == "junction":
                revenue, slots = ((None, 0),), 0
            else:
                if "revenue" not in props:
                    raise TileCodeError(f"{kind} without revenue in part {part!r}", part=part)
                revenue = _parse_revenue(props["revenue"], part)
                slots = _int(props.get("slots", "1"), "slots", part) if kind == "city" else 0
                if slots < 0 or slots > 12:
                    raise TileCodeError(f"slots {slots} out of range in part {part!r}", part=part)
            groups = tuple(g for g in props.get("groups", "").split("|") if g)
            nodes.append(
                Node(
                    len(nodes),
                    kind,
                    revenue,
                    slots,
                    groups,
                    props.get("route") == "optional",
                    _loc(props.get("loc")),
                    props.get("hide") not in (None, "0"),
                )
            )
        elif kind == "path":
            if "a" not in props or "b" not in props:
                raise TileCodeError(f"path needs both a and b in part {part!r}", part=part)
            track = props.get("track", "broad")
            if track not in TRACK_KINDS:
                raise TileCodeError(f"unknown track {track!r} in part {part!r}", part=part)
            lanes = _int(props.get("lanes", "1"), "lanes", part)
            a, b = _parse_end(props["a"], part), _parse_end(props["b"], part)
            if a == b:
                raise TileCodeError(f"path joins an end to itself in part {part!r}", part=part)
            paths.append(Path(a, b, props.get("terminal", "0") not in ("0", ""), lanes, track))
        elif kind == "border":
            if "edge" not in props:
                raise TileCodeError(f"border without edge in part {part!r}", part=part)
            edge = _int(props["edge"], "edge", part)
            if not 0 <= edge <= 5:
                raise TileCodeError(f"border edge {edge} out of range in part {part!r}", part=part)
            borders.append(Border(edge, props.get("type"), _int(props.get("cost", "0"), "cost", part)))
    for path in paths:
        for n in path.nodes:
            if n >= len(nodes):
                raise TileCodeError(f"path goes to node _{n}, but the tile has {len(nodes)} node(s)", part=f"path _{n}")
    return Tile(code, tuple(nodes), tuple(paths), tuple(borders), tuple(labels), tuple(cosmetic))
