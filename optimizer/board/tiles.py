"""The 18xx.games tile code language: ``city=revenue:20;path=a:0,b:_0;...``.

A tile code is a list of parts separated by ``;``. Each part is ``kind=prop:value,prop:value``.
Parts that shape routes (nodes, paths, borders) are modelled, with the two printed properties the
picture needs (a node's ``loc`` and ``hide``); parts that cannot affect routes (icons, upgrade
costs, labels, stubs, partitions, stripes, future track) are read and kept aside.

The reading is the engine's own (``lib/engine/tile.rb``, ``Tile.decode`` and ``Tile.part``, and the
part classes), with its tolerance: a part is its text up to a second ``=`` (where a missing ``;``
ran two parts together, the engine reads the first and drops the rest); a trailing comma is no
property; a number is the leading digits of its value, as Ruby's ``to_i`` reads it; an edge ``6``
is edge 0 (``Part::Edge`` turns modulo 6); a halt's revenue is 0 and its visit optional unless
given; a path from an end to that same end is kept aside (it cannot join two places). What the
engine itself cannot read (an unknown part, a property without a value, a node without revenue, a
path to a node that is not there) is refused, and so is a property the engine never reads, so
that a code from a newer client is never silently misread.

Codes repeat on many hexes and boards, so :func:`parse_code` is cached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import BoardError
from . import caches
from .limits import MAX_NUMBER

NODE_KINDS = ("city", "town", "offboard", "junction")
# Engine aliases: a pass is a kind of city, a halt a kind of town.
NODE_ALIASES = {"pass": "city", "halt": "town"}
# Parts read and kept verbatim: they draw the tile or steer its upgrades, never a route.
COSMETIC_PARTS = frozenset(
    {"upgrade", "icon", "label", "stub", "frame", "future_label", "blocks_lay", "partition", "stripes"}
)

# Properties each part may carry (``Tile.part``'s keyword arguments); those used neither by routes
# nor by the picture are accepted and ignored.
_CENTRE = {"revenue", "groups", "hide", "route", "visit_cost", "format", "loc", "boom"}
KNOWN_PROPS = {
    "city": _CENTRE | {"slots", "reservation", "outline"},
    "pass": _CENTRE | {"slots", "color", "size"},
    "town": _CENTRE | {"style", "to_city"},
    "halt": _CENTRE | {"symbol"},
    "offboard": _CENTRE | {"rows"},
    "junction": {""},
    # ``loc``: the engine's own 1860 tiles give a path one; Tile.decode reads it as an edge that
    # Path.make_lanes never looks at (lib/engine/tile.rb#part), so it is read and dropped
    "path": {"a", "b", "terminal", "lanes", "track", "a_lane", "b_lane", "ignore", "loc"},
    "border": {"edge", "type", "color", "cost"},
}
TRACK_KINDS = {"broad", "narrow", "dual", "thin", "dashed"}
FUTURE_TRACK = "future"  # ``track:future``: printed track not laid yet (the engine's ``future_paths``)
# Revenue and visit defaults of a part when the code does not say (``Part::Halt``).
DEFAULT_REVENUE = {"halt": "0"}
DEFAULT_ROUTE = {"halt": "optional"}
_LEADING_WHOLE = re.compile(r"\s*([+-]?[0-9]+)")


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
    # Read and kept for the rules that use them (``Part::RevenueCenter``): how many stops of a train's
    # distance a visit costs (``visit_cost:0``: none), and ``route`` as written (mandatory, optional, never).
    visit_cost: int = 1
    route: str = "mandatory"
    name: str = ""  # the part as the code names it: city, town, offboard, junction, pass or halt

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
    a_lane: tuple = (1, 0)  # (width, index) of the lane at end a (Path#lanes[0]): a double lane is two paths
    b_lane: tuple = (1, 0)

    def rotated(self, rotation: int) -> Path:
        a, b = _rotate_end(self.a, rotation), _rotate_end(self.b, rotation)
        return Path(a, b, self.terminal, self.lanes, self.track, self.a_lane, self.b_lane)

    def lane_at(self, end: tuple) -> tuple:
        """The (width, index) of the lane this path has at ``end``."""
        return self.a_lane if end == self.a else self.b_lane

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
    future_paths: tuple = ()  # Path: ``track:future``, printed but not laid (no train runs it)
    dead_ends: tuple = ()  # Path: an end joined to itself (no train runs between two places on it)

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
    tile = parse_code(code)
    paths = tuple(p.rotated(rotation) for p in tile.paths)
    by_end: dict = {}
    for i, p in enumerate(paths):
        for end in (p.a, p.b):
            by_end.setdefault(end, []).append(i)
    # A dead end's edge is an exit too (the engine's ``Tile#exits`` counts every laid path's edges).
    dead = (p.rotated(rotation) for p in tile.dead_ends)
    exits = tuple(sorted({e for p in paths for e in p.edges} | {e for p in dead for e in p.edges}))
    return Placed(paths, {k: tuple(v) for k, v in by_end.items()}, exits)


def _rotate_end(end, rotation):
    return ("edge", (end[1] + rotation) % 6) if end[0] == "edge" else end


def _whole(text: str, what: str, part: str) -> int:
    """A number as the engine reads it (Ruby's ``to_i``: the leading digits, ``20path`` is 20);
    refused when there is no digit to read."""
    match = _LEADING_WHOLE.match(text)
    if not match:
        raise TileCodeError(f"{what} must be a whole number, not {text!r}, in part {part!r}", part=part)
    return int(match.group(1))


def _parse_revenue(text: str, part: str) -> tuple:
    entries = _revenue_entries(text, part)
    for _, value in entries:
        if abs(value) > MAX_NUMBER:
            raise TileCodeError(f"revenue {value} is too large (at most {MAX_NUMBER}) in part {part!r}", part=part)
    return entries


def _revenue_entries(text: str, part: str) -> tuple:
    try:
        if "_" not in text:
            return ((None, _whole(text, "revenue", part)),)
        entries = []
        for item in text.split("|"):
            colour, _, value = item.rpartition("_")
            if not colour:
                raise ValueError(item)
            entries.append((colour, _whole(value, "revenue", part)))
        return tuple(entries)
    except (ValueError, TileCodeError):
        raise TileCodeError(f"bad revenue {text!r} in part {part!r}", part=part) from None


def _parse_end(text: str, part: str):
    """A path end: node ``_N``, or an edge (any whole number, turned modulo 6 as ``Part::Edge``)."""
    try:
        if text.startswith("_"):
            if not text[1:2].isdigit():  # a node's number has no sign
                raise TileCodeError(text, part=part)
            return ("node", _whole(text[1:], "node", part))
        edge = _whole(text, "edge", part)
    except TileCodeError:
        raise TileCodeError(f"bad path end {text!r} in part {part!r} (an edge 0-5 or a node _N)", part=part) from None
    return ("edge", edge % 6)


def _props(body: str, kind: str, part: str) -> dict:
    """``prop:value,...`` as ``Tile.decode`` splits it: a trailing comma is no property."""
    props: dict[str, str] = {}
    if not body:
        return props
    items = body.split(",")
    while len(items) > 1 and not items[-1]:  # Ruby's split drops trailing empty fields
        items.pop()
    for item in items:
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
    return _whole(value, what, part)


def _lanes(a: tuple, b: tuple, props: dict, part: str) -> list:
    """(width, lane at a, lane at b) of each path a path part makes (lib/engine/part/path.rb#make_lanes):
    ``lanes:N`` makes N paths side by side, lane i at a and, from edge to edge, lane N-1-i at b;
    otherwise one path, with ``a_lane``/``b_lane`` (``2.1``: lane 1 of 2, #decode_lane_spec) or one lane."""
    if "lanes" in props:
        n = _int(props["lanes"], "lanes", part)  # lanes:0 makes none, as Array.new(0)
        both_edges = a[0] == "edge" and b[0] == "edge"
        return [(n, (n, i), (n, n - i - 1) if both_edges else (n, i)) for i in range(n)]
    return [(1, _lane_spec(props.get("a_lane"), part), _lane_spec(props.get("b_lane"), part))]


def _lane_spec(text: str | None, part: str) -> tuple:
    """``W.I`` -> (W, I), the engine's Path.decode_lane_spec; none -> (1, 0)."""
    if text is None:
        return (1, 0)
    width, _, index = text.partition(".")
    return (_int(width, "lane", part), _int(index or "0", "lane", part))


@caches.bounded(caches.TILE_CODES_MAX)
def parse_code(code: str) -> Tile:
    """Parse a tile code (unrotated). Raises :class:`TileCodeError` naming the part at fault."""
    if not isinstance(code, str):
        raise TileCodeError(f"tile code must be a string, not {type(code).__name__}")
    nodes: list[Node] = []
    paths: list[Path] = []
    future: list[Path] = []
    dead: list[Path] = []
    borders: list[Border] = []
    labels: list[str] = []
    cosmetic: list[str] = []
    for part in code.split(";"):
        if not part:
            continue
        name, _, body = part.partition("=")
        body = body.partition("=")[0]  # a missing ";": the engine reads up to the next "=" only
        kind = NODE_ALIASES.get(name, name)
        if kind in COSMETIC_PARTS:
            if kind == "label":
                labels.append(body)
            cosmetic.append(part)
            continue
        if name not in KNOWN_PROPS:
            raise TileCodeError(f"unknown part {name!r} in {part!r}", part=part)
        props = _props(body, name, part)
        if kind in NODE_KINDS:
            if kind == "junction":
                revenue, slots = ((None, 0),), 0
            else:
                given = props.get("revenue", DEFAULT_REVENUE.get(name))
                if given is None:
                    raise TileCodeError(f"{kind} without revenue in part {part!r}", part=part)
                revenue = _parse_revenue(given, part)
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
                    props.get("route", DEFAULT_ROUTE.get(name)) == "optional",
                    _loc(props.get("loc")),
                    props.get("hide") not in (None, "0"),
                    _int(props.get("visit_cost", "1"), "visit_cost", part),
                    props.get("route", DEFAULT_ROUTE.get(name, "mandatory")),
                    name,
                )
            )
        elif kind == "path":
            if "a" not in props or "b" not in props:
                raise TileCodeError(f"path needs both a and b in part {part!r}", part=part)
            track = props.get("track", "broad")
            if track not in TRACK_KINDS and track != FUTURE_TRACK:
                raise TileCodeError(f"unknown track {track!r} in part {part!r}", part=part)
            a, b = _parse_end(props["a"], part), _parse_end(props["b"], part)
            terminal = props.get("terminal", "0") not in ("0", "")
            (future if track == FUTURE_TRACK else dead if a == b else paths).extend(
                Path(a, b, terminal, width, track, a_lane, b_lane)
                for width, a_lane, b_lane in _lanes(a, b, props, part)
            )
        elif kind == "border":
            if "edge" not in props:
                raise TileCodeError(f"border without edge in part {part!r}", part=part)
            edge = _int(props["edge"], "edge", part)
            if not 0 <= edge <= 5:
                raise TileCodeError(f"border edge {edge} out of range in part {part!r}", part=part)
            borders.append(Border(edge, props.get("type"), _int(props.get("cost", "0"), "cost", part)))
    for path in paths + future + dead:
        for n in path.nodes:
            if n >= len(nodes):
                raise TileCodeError(f"path goes to node _{n}, but the tile has {len(nodes)} node(s)", part=f"path _{n}")
    return Tile(
        code, tuple(nodes), tuple(paths), tuple(borders), tuple(labels), tuple(cosmetic), tuple(future), tuple(dead)
    )
