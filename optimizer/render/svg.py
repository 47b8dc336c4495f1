"""The board and its routes as a plain SVG picture.

Hand-written SVG keeps the picture free of drawing libraries. Every position comes from
:mod:`optimizer.board.geometry`: an edge's midpoint lies halfway to the neighbour across it (the
layout's offset for that edge), so edge k of a hex always faces edge k+3 of its neighbour and
track joins across hex sides on pointy and flat maps alike.

A route is drawn along the pieces of track the search priced: :mod:`optimizer.rules.routes` reads
the routes and resolves each chain of hexes to the track-graph segment over the same hexes, and
this module draws that segment's tile paths again in the train's colour. Elements carry ``class``
and ``data-*`` attributes (hex ids, companies, the hexes of each route) so tests and tools can
read the picture back.
"""

from __future__ import annotations

import colorsys
import functools
import itertools
import math
import sys
import zlib
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from ..board import geometry
from ..board.state import read_board
from ..errors import OptimizerError
from ..games import canonical_name, game_data
from ..rules.routes import DrawnRoute, drawn_routes

S = 50.0  # hex circumradius, in user units; everything else is a fraction of it
APOTHEM = S * 3**0.5 / 2
WIDTH_PX = 1600
MARGIN = 0.5 * S
PANEL = 6.5 * S  # the legend column

TILE_COLOURS = {
    "white": "#eae0c8",
    "yellow": "#fde900",
    "green": "#71bf44",
    "brown": "#cb7745",
    "gray": "#bcbdc0",
    "red": "#ec232a",
    "blue": "#35a7ff",
}
BACKGROUND = "#cfc8b8"
TRACK_WIDTH = 0.15 * S
ROUTE_WIDTH = 0.34 * S
ROUTE_COLOURS = ("#e6007e", "#0050d8", "#ff7f00", "#7b2cbf", "#00a6a6", "#8b0000", "#1b263b", "#5c8a00")
STYLE = """
text { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; text-anchor: middle; dominant-baseline: central; }
.hexid { font-size: 8px; fill: #555; }
.name { font-size: 9px; font-weight: bold; fill: #222; paint-order: stroke; stroke: #fff; stroke-width: 2.5px; }
.value { font-size: 9px; font-weight: bold; }
.token text { font-size: 8px; font-weight: bold; fill: #fff; }
.legend text { text-anchor: start; font-size: 14px; }
.legend .title { font-size: 19px; font-weight: bold; }
.legend .num { text-anchor: end; }
"""


def render_svg(state: dict, routes: list | None = None, *, title: str | None = None) -> str:
    """The board of ``state`` (a board-state document), with ``routes`` drawn over its track.

    ``routes`` takes the shape :func:`optimizer.api.solve` returns, or the corpus shape
    (``{"train", "hexes": [[hex, ...], ...]}``; ``["local", HEX]`` for a local run). A route
    naming a hex or stop not on the board raises :class:`OptimizerError`.
    """
    board = read_board(state)
    frame = _Frame(board.layout)
    places = {hx.id: _place_nodes(hx, frame) for hx in board.hexes.values()}
    drawn = drawn_routes(board, routes)

    corners = [p for hx in board.hexes.values() for p in frame.corners(frame.centre(hx.id))]
    x0, y0 = min(x for x, _ in corners) - MARGIN, min(y for _, y in corners) - MARGIN
    x1, y1 = max(x for x, _ in corners) + MARGIN, max(y for _, y in corners) + MARGIN
    legend, legend_bottom = _legend(board, drawn, title, x1, y0 + MARGIN)
    width, height = x1 - x0 + PANEL, max(y1, legend_bottom + MARGIN) - y0

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH_PX}" height="{round(WIDTH_PX * height / width)}" '
        f'viewBox="{_n(x0)} {_n(y0)} {_n(width)} {_n(height)}">',
        f"<style>{STYLE}</style>",
        _el("rect", x=x0, y=y0, width=width, height=height, fill=BACKGROUND),
    ]
    out.append('<g class="hexes">')
    out += [_hex(hx, frame) for hx in board.hexes.values()]
    out.append(
        f'</g><g class="track" fill="none" stroke="#111" stroke-width="{_n(TRACK_WIDTH)}" stroke-linecap="round">'
    )
    out += [_track(hx, frame, places[hx.id]) for hx in board.hexes.values()]
    out.append('</g><g class="routes">')
    out += [_route_track(board, r, frame, places) for r in drawn]
    out.append('</g><g class="hex-ids">')
    out += [_hex_id(hx, frame) for hx in board.hexes.values()]
    out.append('</g><g class="nodes">')
    out += [_nodes(board, hx, frame, places[hx.id]) for hx in board.hexes.values()]
    out.append('</g><g class="route-stops">')
    out += [_route_stops(board, r, places) for r in drawn]
    out.append('</g><g class="names">')
    out += [_name(hx, frame, places[hx.id]) for hx in board.hexes.values()]
    out.append("</g>")
    out.append(legend)
    out.append("</svg>")
    return "\n".join(s for s in out if s) + "\n"


def render_tile_svg(layout: str, code: str, colour: str, rotation: int, phase_tiles=(), label: str = "") -> str:
    """One tile as a small picture (a hex of the board's layout), for a list of tiles to choose from;
    ``label`` (its name) goes on the hex's ``data-tile``."""
    hex_id = "A1" if layout == "flat" else "A2"  # a hex of each layout's coordinate grid
    board = read_board(
        {
            "game": "tile",
            "layout": layout,
            "phase": {"name": "", "tiles": list(phase_tiles) or [colour]},
            "corporation": {"id": "-"},
            "trains": [],
            "hexes": [{"id": hex_id, "tile": label, "color": colour, "rotation": rotation, "code": code}],
        }
    )
    frame = _Frame(layout)
    hx = board.hexes[hex_id]
    places = _place_nodes(hx, frame)
    corners = frame.corners(frame.centre(hex_id))
    x0, y0 = min(x for x, _ in corners) - 2, min(y for _, y in corners) - 2
    w, h = max(x for x, _ in corners) + 2 - x0, max(y for _, y in corners) + 2 - y0
    body = [
        _hex(hx, frame),
        f'<g class="track" fill="none" stroke="#111" stroke-width="{_n(TRACK_WIDTH)}" stroke-linecap="round">',
        _track(hx, frame, places),
        "</g>",
        _nodes(board, hx, frame, places),
    ]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{_n(x0)} {_n(y0)} {_n(w)} {_n(h)}" class="tile">'
        f"<style>{STYLE}</style>" + "\n".join(b for b in body if b) + "</svg>"
    )


def write_svg(state: dict, routes: list | None, path: str, *, title: str | None = None) -> None:
    """Write :func:`render_svg` to ``path`` (``-``: standard output)."""
    text = render_svg(state, routes, title=title)
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as err:
        raise OptimizerError(f"cannot write {path}: {err.strerror}", field="(file)") from None


# ---- geometry ------------------------------------------------------------------------------


class _Frame:
    """Pixel geometry of a layout: hex centres, and per edge the unit vector to its neighbour."""

    def __init__(self, layout: str):
        self.layout = layout
        # hex_center is linear in the hex coordinates with A1 at the origin; B2 is (1, 1) in both layouts.
        ux, uy = geometry.hex_center("B2", layout, S)
        self.normal = {}
        for edge, (dx, dy) in geometry.DIRECTIONS[layout].items():
            length = math.hypot(dx * ux, dy * uy)
            self.normal[edge] = (dx * ux / length, dy * uy / length)

    def centre(self, hex_id: str) -> tuple:
        return geometry.hex_center(hex_id, self.layout, S)

    def edge_mid(self, c: tuple, edge: int) -> tuple:
        return _along(c, self.normal[edge], APOTHEM)

    def towards(self, position: float) -> tuple:
        """Unit vector to an edge position; a fraction lies between two edges (0.5: their corner)."""
        low = math.floor(position)
        f = position - low
        a, b = self.normal[low % 6], self.normal[(low + 1) % 6]
        return _unit((a[0] * (1 - f) + b[0] * f, a[1] * (1 - f) + b[1] * f))

    def corners(self, c: tuple) -> list:
        return [_along(c, self.towards(k + 0.5), S) for k in range(6)]

    def edge_ends(self, c: tuple, edge: int) -> tuple:
        return _along(c, self.towards(edge - 0.5), S), _along(c, self.towards(edge + 0.5), S)

    def arc(self, c: tuple, e1: int, e2: int) -> tuple | None:
        """Centre and radius of the track curve between two edges (None when opposite: straight).

        Track leaves an edge square to it, so the circle's centre lies where the two edge lines
        meet: a corner (radius S/2) for neighbouring edges, further out (radius 1.5 S) for the next.
        """
        n1, n2 = self.normal[e1], self.normal[e2]
        cos = _dot(n1, n2)
        if cos < -0.99:
            return None
        half = math.acos(max(-1.0, min(1.0, cos))) / 2
        return _along(c, _unit((n1[0] + n2[0], n1[1] + n2[1])), APOTHEM / math.cos(half)), APOTHEM * math.tan(half)

    def curve_point(self, c: tuple, e1: int, e2: int, t: float) -> tuple:
        """The point a fraction t of the way along the track curve from edge e1 to edge e2."""
        a, b = self.edge_mid(c, e1), self.edge_mid(c, e2)
        arc = self.arc(c, e1, e2)
        if arc is None:
            return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
        o, r = arc
        start = math.atan2(a[1] - o[1], a[0] - o[0])
        turn = (math.atan2(b[1] - o[1], b[0] - o[0]) - start + math.pi) % (2 * math.pi) - math.pi
        return (o[0] + r * math.cos(start + t * turn), o[1] + r * math.sin(start + t * turn))


def _along(p: tuple, v: tuple, d: float) -> tuple:
    return (p[0] + v[0] * d, p[1] + v[1] * d)


def _unit(v: tuple) -> tuple:
    length = math.hypot(*v)
    return (v[0] / length, v[1] / length) if length > 1e-9 else (0.0, 0.0)


@dataclass
class _Place:
    """Where a node is drawn; a town on a through curve also knows the curve's two edges."""

    xy: tuple
    through: tuple | None = None


def _place_nodes(hx, frame: _Frame) -> dict:
    """Node index -> place; arranged once per tile shape (code, rotation, slots), then moved to the hex."""
    key = (frame.layout, hx.tile.code, hx.rotation, tuple(sorted((n, c.slots) for n, c in hx.cities.items())))
    if key not in _ARRANGED:
        _ARRANGED[key] = _arrange(hx, frame)
    cx, cy = frame.centre(hx.id)
    return {n: _Place((cx + p.xy[0], cy + p.xy[1]), p.through) for n, p in _ARRANGED[key].items()}


_ARRANGED: dict = {}


def _arrange(hx, frame: _Frame) -> dict:
    """Where a tile's nodes go, relative to its centre. A lone node sits in the centre (a town on
    a through curve, on the curve). Several nodes each have candidate places, best first: the
    printed ``loc``; towards the middle of their exits, the centre, each exit; along their curve.
    The first combination that keeps every node clear of the others and of their track wins
    (tiles have few nodes, so all combinations are tried); if none does, the clearest one."""
    nodes = hx.tile.nodes
    c = (0.0, 0.0)
    paths = hx.tile.paths_rotated(hx.rotation)
    unexited = [n.index for n in nodes if not any(n.index in p.nodes for p in paths)]
    options = [_candidates(hx, node, paths, frame, unexited) for node in nodes]
    if len(nodes) <= 1 or math.prod(len(o) for o in options) > 4096:
        return {n.index: o[0] for n, o in zip(nodes, options)}

    def score(choice):
        places = {n.index: o[k] for n, o, k in zip(nodes, options, choice)}
        clear = _clearance(hx, paths, places, frame, c)
        return (True, -sum(choice), clear) if clear >= 0.05 * S else (False, clear)

    best = max(itertools.product(*(range(len(o)) for o in options)), key=score)
    return {n.index: o[k] for n, o, k in zip(nodes, options, best)}


def _candidates(hx, node, paths, frame: _Frame, unexited: list) -> list:
    """A node's possible places relative to the hex centre, best first."""
    c = (0.0, 0.0)
    exits = [p.edges[0] for p in paths if p.nodes == (node.index,) and len(p.edges) == 1]
    degree = sum(node.index in p.nodes for p in paths)
    city = hx.cities.get(node.index)
    d = 0.5 * S if city and city.slots >= 2 else 0.5 * APOTHEM  # a pair of slots needs more room
    if node.loc is not None:
        return [_Place(_along(c, frame.towards(node.loc + hx.rotation), d))]
    if node.kind == "town" and len(exits) == 2 == degree and exits[0] != exits[1]:
        return [_Place(frame.curve_point(c, exits[0], exits[1], t), tuple(exits)) for t in (0.5, 0.3, 0.7)]
    if len(hx.tile.nodes) == 1:
        return [_Place(c)]
    if node.index in unexited:  # printed but not yet joined to track: spread round the centre
        i, k = unexited.index(node.index), len(unexited)
        return [_Place(c if k == 1 else _along(c, frame.towards(6 * i / k), 0.5 * APOTHEM))]
    total = (sum(frame.normal[e][0] for e in exits), sum(frame.normal[e][1] for e in exits))
    middle = _unit(total) if math.hypot(*total) > 0.25 else None  # None: straight through
    directions = ([middle] if middle else []) + [frame.normal[e] for e in exits]
    towards = {(round(v[0], 6), round(v[1], 6)): v for v in directions}
    return ([] if middle else [_Place(c)]) + [
        _Place(_along(c, v, d * scale)) for scale in (1.0, 1.3) for v in towards.values()
    ]


def _clearance(hx, paths, places: dict, frame: _Frame, c: tuple) -> float:
    """The smallest gap between two nodes, or between a node and track that does not serve it."""
    blobs = {n.index: _node_blobs(hx, n, places[n.index].xy, c) for n in hx.tile.nodes}
    gaps = []
    nodes = list(blobs)
    for i, a in enumerate(nodes):
        for b in nodes[i + 1 :]:
            gaps += [math.dist(p, q) - r - s for p, r in blobs[a] for q, s in blobs[b]]
    for path in paths:
        line = _track_line(path, c, frame, places)
        for n, parts in blobs.items():
            if n not in path.nodes:
                gaps += [
                    _segment_distance(p, line[k], line[k + 1]) - r - TRACK_WIDTH / 2
                    for p, r in parts
                    for k in range(len(line) - 1)
                ]
    return min(gaps, default=S)


def _node_blobs(hx, node, xy: tuple, c: tuple) -> list:
    """(centre, radius) of the round things a node draws."""
    if node.kind == "city":
        return [(p, _slot_radius(hx)) for p in _slot_centres(hx, node, xy, c)]
    if node.kind == "junction":
        return []
    return [(xy, 0.2 * S if node.kind == "offboard" else 0.12 * S)]


def _track_line(path, c: tuple, frame: _Frame, places: dict) -> list:
    """A path as the polyline it roughly draws (a curve by its middle)."""
    if len(path.edges) == 2:
        a, b = path.edges
        return [frame.edge_mid(c, a), frame.curve_point(c, a, b, 0.5), frame.edge_mid(c, b)]
    return [frame.edge_mid(c, e) for e in path.edges] + [places[n].xy for n in path.nodes]


def _segment_distance(p: tuple, a: tuple, b: tuple) -> float:
    ab = (b[0] - a[0], b[1] - a[1])
    t = max(0.0, min(1.0, _dot((p[0] - a[0], p[1] - a[1]), ab) / max(_dot(ab, ab), 1e-9)))
    return math.dist(p, (a[0] + t * ab[0], a[1] + t * ab[1]))


def _slot_radius(hx) -> float:
    return 0.25 * S if len(hx.tile.nodes) <= 4 else 0.19 * S


def _slot_offsets(slots: int, r: float, along: tuple = (1.0, 0.0)) -> list:
    """Slot centres round a city's place: a pair side by side (along ``along``), more in a ring."""
    if slots <= 1:
        return [(0.0, 0.0)]
    if slots == 2:
        return [(-r * along[0], -r * along[1]), (r * along[0], r * along[1])]
    ring = r / math.sin(math.pi / slots)
    return [
        (ring * math.cos(a), ring * math.sin(a)) for a in (2 * math.pi * i / slots - math.pi / 2 for i in range(slots))
    ]


def _city_radius(slots: int, r: float) -> float:
    """Radius of the circle around a whole city (all its slots)."""
    return r if slots <= 1 else (2 * r if slots == 2 else r + r / math.sin(math.pi / slots))


def _path_d(path, c: tuple, frame: _Frame, places: dict) -> str:
    """One tile path: edge to edge as a curve through the centre region (straight when
    opposite), edge to node as a line (half the curve for a town on a through curve)."""
    if len(path.edges) == 2:
        return _curve_d(c, frame, path.edges, path.edges[0], frame.edge_mid(c, path.edges[1]))
    if len(path.edges) == 1:
        place = places[path.nodes[0]]
        if place.through:
            return _curve_d(c, frame, place.through, path.edges[0], place.xy)
        return f"M{_p(frame.edge_mid(c, path.edges[0]))}L{_p(place.xy)}"
    return f"M{_p(places[path.nodes[0]].xy)}L{_p(places[path.nodes[1]].xy)}"


def _curve_d(c: tuple, frame: _Frame, curve: tuple, start: int, to: tuple) -> str:
    """Along the track curve between the two edges of ``curve``, from edge ``start`` to point ``to``."""
    a = frame.edge_mid(c, start)
    arc = frame.arc(c, *curve)
    if arc is None:
        return f"M{_p(a)}L{_p(to)}"
    o, r = arc
    sweep = int((a[0] - o[0]) * (to[1] - o[1]) - (a[1] - o[1]) * (to[0] - o[0]) > 0)
    return f"M{_p(a)}A{_n(r)} {_n(r)} 0 0 {sweep} {_p(to)}"


# ---- the board -----------------------------------------------------------------------------


def _hex(hx, frame: _Frame) -> str:
    c = frame.centre(hx.id)
    out = [
        _el(
            "polygon",
            points=" ".join(_p(p) for p in frame.corners(c)),
            fill=TILE_COLOURS.get(hx.color, TILE_COLOURS["white"]),
            stroke="#8a8478",
            stroke_width=1.0,
            class_="hex",
            id=f"hex-{hx.id}",
            data_hex=hx.id,
            data_tile=hx.tile_name,
            data_colour=hx.color,
        )
    ]
    for edge, kind in hx.borders:
        a, b = frame.edge_ends(c, edge)
        if kind == "impassable":
            style = {"stroke": "#7a0000", "stroke_width": 0.12 * S}
        else:
            style = {"stroke": "#333", "stroke_width": 0.05 * S, "stroke_dasharray": "6 4"}
        out.append(_el("line", x1=a[0], y1=a[1], x2=b[0], y2=b[1], class_=f"border {kind or 'plain'}", **style))
    return "\n".join(out)


def _track(hx, frame: _Frame, places: dict) -> str:
    paths = hx.tile.paths_rotated(hx.rotation)
    if not paths:
        return ""
    c = frame.centre(hx.id)
    return "\n".join(
        _el("path", d=_path_d(p, c, frame, places), data_hex=hx.id, data_path=i) for i, p in enumerate(paths)
    )


def _nodes(board, hx, frame: _Frame, places: dict) -> str:
    out = []
    r = _slot_radius(hx)
    values = set()
    for node in hx.tile.nodes:
        xy = places[node.index].xy
        if node.kind == "city":
            out.append(_city(board, hx, node, xy, r, frame.centre(hx.id)))
            values.add(node.value(board.phase_tiles))
        elif node.kind == "town":
            out.append(_town(hx, node, places[node.index], frame))
            values.add(node.value(board.phase_tiles))
        elif node.kind == "offboard" and not node.hide:
            value = node.value(board.phase_tiles)
            w = 0.2 * S * max(2, len(str(value))) + 0.1 * S
            out.append(
                f'<g class="offboard" data-node="{hx.node_id(node.index)}">'
                + _el(
                    "rect",
                    x=xy[0] - w / 2,
                    y=xy[1] - 0.17 * S,
                    width=w,
                    height=0.34 * S,
                    rx=0.08 * S,
                    fill="#fff",
                    stroke="#111",
                    stroke_width=1.2,
                )
                + _el("text", value, x=xy[0], y=xy[1], class_="value", style=f"font-size:{_n(0.24 * S)}px")
                + "</g>"
            )
    values.discard(0)
    if len(values) == 1 and not any(n.kind == "offboard" for n in hx.tile.nodes):
        xy = _free_spot(hx, frame, places)
        out.append(
            '<g class="revenue">'
            + _el("circle", cx=xy[0], cy=xy[1], r=0.13 * S, fill="#fff", stroke="#111", stroke_width=0.8)
            + _el("text", values.pop(), x=xy[0], y=xy[1], class_="value")
            + "</g>"
        )
    return "\n".join(out)


def _city(board, hx, node, xy: tuple, r: float, c: tuple) -> str:
    """A white circle per token slot, a company's token filling its slot (ours ringed in gold).
    A pair of slots off the centre lies across the way to it, to keep clear of the hex's other city."""
    city = hx.cities.get(node.index)
    tokens = list(city.tokens) if city else []
    centres = _slot_centres(hx, node, xy, c)
    out = [f'<g class="city" data-node="{hx.node_id(node.index)}">']
    if len(centres) == 2:
        (ax, ay), (bx, by) = centres
        out += [
            _el("line", x1=ax, y1=ay, x2=bx, y2=by, stroke=colour, stroke_width=w, stroke_linecap="round")
            for colour, w in (("#111", 2 * r + 2.4), ("#fff", 2 * r))
        ]
    elif len(centres) > 2:
        out.append(
            _el(
                "circle",
                cx=xy[0],
                cy=xy[1],
                r=_city_radius(len(centres), r),
                fill="#fff",
                stroke="#111",
                stroke_width=1.2,
            )
        )
    for k, (x, y) in enumerate(centres):
        company = tokens[k] if k < len(tokens) else None
        if not company:
            out.append(_el("circle", cx=x, cy=y, r=r, fill="#fff", stroke="#111", stroke_width=1.2, class_="slot"))
            continue
        ours = company == board.company.id
        neutral = k < len(city.neutral) and city.neutral[k]
        size = min(0.2 * S, 1.8 * r / max(1, len(company)) / 0.72)  # bold glyphs are ~0.72 em wide
        fill, ink = ("#777", "#fff") if neutral else token_colours(board.game, company)
        out.append(
            f'<g class="token" data-company={quoteattr(company)}>'
            + _el(
                "circle",
                cx=x,
                cy=y,
                r=r - 0.5,
                fill=fill,
                stroke="#ffd400" if ours else "#111",
                stroke_width=3.0 if ours else 1.2,
            )
            + _el("text", company, x=x, y=y, style=f"font-size:{_n(size)}px;fill:{ink}")
            + "</g>"
        )
    out.append("</g>")
    return "".join(out)


def _slot_centres(hx, node, xy: tuple, c: tuple) -> list:
    """Where a city's slots are drawn; a pair off the hex centre lies across the way to it, to
    keep clear of the hex's other cities."""
    city = hx.cities.get(node.index)
    away = _unit((xy[0] - c[0], xy[1] - c[1]))
    along = (1.0, 0.0) if away == (0.0, 0.0) else (-away[1], away[0]) if -away[1] > 1e-9 else (away[1], -away[0])
    offsets = _slot_offsets(max(1, city.slots if city else node.slots), _slot_radius(hx), along)
    return [(xy[0] + dx, xy[1] + dy) for dx, dy in offsets]


def _blobs(hx, c: tuple, places: dict) -> list:
    """(centre, radius, holds a token) of every round thing the nodes draw, to keep labels off them."""
    out = []
    for node in hx.tile.nodes:
        tokens = hx.cities[node.index].tokens if node.index in hx.cities else []
        out += [
            (p, r, k < len(tokens) and bool(tokens[k]))
            for k, (p, r) in enumerate(_node_blobs(hx, node, places[node.index].xy, c))
        ]
    return out


def _town(hx, node, place: _Place, frame: _Frame) -> str:
    x, y = place.xy
    node_id = hx.node_id(node.index)
    if place.through:  # a bar across the track
        c = frame.centre(hx.id)
        arc = frame.arc(c, *place.through)
        if arc is None:
            a, b = (frame.edge_mid(c, e) for e in place.through)
            across = _unit((a[1] - b[1], b[0] - a[0]))
        else:
            across = _unit((x - arc[0][0], y - arc[0][1]))
        half = 0.17 * S
        return _el(
            "line",
            x1=x - across[0] * half,
            y1=y - across[1] * half,
            x2=x + across[0] * half,
            y2=y + across[1] * half,
            stroke="#111",
            stroke_width=0.11 * S,
            class_="town",
            data_node=node_id,
        )
    return _el("circle", cx=x, cy=y, r=0.1 * S, fill="#111", class_="town", data_node=node_id)


def _free_spot(hx, frame: _Frame, places: dict) -> tuple:
    """A corner of the hex for the revenue circle: clear of the nodes, of the name and hex id
    (bottom and top), and as far as can be from the track."""
    c = frame.centre(hx.id)
    exits = [frame.normal[e] for e in hx.tile.exits(hx.rotation)]
    blobs = _blobs(hx, c, places)

    def score(k):
        v = frame.towards(k + 0.5)
        xy = _along(c, v, 0.68 * S)
        clear = min((math.dist(xy, p) - radius for p, radius, _ in blobs), default=S)
        unlabelled = abs(v[1]) < 0.9 and (v[1] < 0.3 or not hx.location_name)
        return clear > 0.15 * S, unlabelled, round(min((1 - _dot(v, e) for e in exits), default=2), 2), -v[1]

    return _along(c, frame.towards(max(range(6), key=score) + 0.5), 0.68 * S)


def _node_radius(hx, node) -> float:
    if node.kind == "city":
        city = hx.cities.get(node.index)
        return _city_radius(city.slots if city else node.slots, _slot_radius(hx))
    return 0.2 * S if node.kind == "offboard" else 0.17 * S


def _dot(a: tuple, b: tuple) -> float:
    return a[0] * b[0] + a[1] * b[1]


def _hex_id(hx, frame: _Frame) -> str:
    c = frame.centre(hx.id)
    return _el("text", hx.id, x=c[0], y=c[1] - 0.74 * APOTHEM, class_="hexid")


def _name(hx, frame: _Frame, places: dict) -> str:
    """The location name: at the bottom of the hex, else the first spot no node covers, else the
    spot that covers no token (names are drawn last, so they must not hide a company)."""
    if not hx.location_name:
        return ""
    c = frame.centre(hx.id)
    lines = _wrap(hx.location_name)
    step = 0.24 * APOTHEM
    width = min(1.6 * S, 5.5 * max(len(line) for line in lines))
    blobs = _blobs(hx, c, places)

    def clearance(spot, tokens_only=False):
        box = (spot[0] - width / 2, spot[1] - step / 2, spot[0] + width / 2, spot[1] + step * (len(lines) - 0.5))
        return min(
            (_box_distance(box, p) - radius for p, radius, token in blobs if token or not tokens_only), default=S
        )

    bottom = c[1] + 0.72 * APOTHEM - step * (len(lines) - 1)
    top = c[1] - 0.5 * APOTHEM
    middle = c[1] - step * (len(lines) - 1) / 2
    spots = [(c[0] + dx * S, y) for y in (bottom, top, middle) for dx in (0, 0.25, -0.25)]
    x, y = next(
        (spot for spot in spots if clearance(spot) > 0),
        max(spots, key=lambda spot: (clearance(spot, True) > 0, clearance(spot))),
    )
    spans = "".join(f'<tspan x="{_n(x)}" y="{_n(y + step * k)}">{escape(line)}</tspan>' for k, line in enumerate(lines))
    return f'<text class="name" data-hex="{hx.id}">{spans}</text>'


def _box_distance(box: tuple, p: tuple) -> float:
    dx = max(box[0] - p[0], 0, p[0] - box[2])
    dy = max(box[1] - p[1], 0, p[1] - box[3])
    return math.hypot(dx, dy)


def _wrap(name: str, width: int = 13) -> list:
    """A long location name on two lines, cut at the space nearest its middle."""
    spaces = [i for i, ch in enumerate(name) if ch == " "]
    if len(name) <= width or not spaces:
        return [name]
    cut = min(spaces, key=lambda i: abs(i - len(name) / 2))
    return [name[:cut], name[cut + 1 :]]


def token_colours(game: str, company: str) -> tuple:
    """A token's fill and text colours: the company's own in a built-in game's data (the
    engine's), else :func:`company_colour` on white text."""
    for c in _companies(game):
        if c["id"] == company and c.get("color"):
            return c["color"], c.get("text_color") or "#fff"
    return company_colour(company), "#fff"


@functools.cache
def _companies(game: str) -> tuple:
    if canonical_name(game) is None:
        return ()
    return tuple(game_data(game).get("corporations", []))


def company_colour(company: str) -> str:
    """A colour per company id, the same in every picture and every run (a hash, not a table)."""
    h = zlib.crc32(company.encode("utf-8"))
    r, g, b = colorsys.hls_to_rgb((h % 360) / 360, (30 + (h >> 9) % 14) / 100, (55 + (h >> 17) % 35) / 100)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


# ---- routes --------------------------------------------------------------------------------


def _colour(route: DrawnRoute) -> str:
    return ROUTE_COLOURS[route.index % len(ROUTE_COLOURS)]


def _route_track(board, route: DrawnRoute, frame: _Frame, places: dict) -> str:
    out = [
        f'<g class="route" id="route-{route.index + 1}" data-train={quoteattr(route.train)} '
        f"data-hexes={quoteattr(' '.join(route.hexes))}>",
        f'<g opacity="0.7" fill="none" stroke="{_colour(route)}" stroke-width="{_n(ROUTE_WIDTH)}" '
        f'stroke-linecap="round" stroke-linejoin="round">',
    ]
    for hex_id, i in route.pieces:
        hx = board.hexes[hex_id]
        path = hx.tile.paths_rotated(hx.rotation)[i]
        out.append(
            _el(
                "path",
                d=_path_d(path, frame.centre(hex_id), frame, places[hex_id]),
                class_="route-path",
                data_hex=hex_id,
            )
        )
    for chain in route.loose:  # no track under it (a route from elsewhere): drawn hex centre to hex centre
        points = " ".join(_p(frame.centre(h)) for h in chain)
        out.append(
            _el(
                "polyline",
                points=points,
                class_="route-path unmatched",
                data_hexes=" ".join(chain),
                stroke_dasharray=f"{_n(0.3 * S)} {_n(0.2 * S)}",
            )
        )
    for h, stop in route.local_stops:
        xy = _stop_xy(board, places, stop)
        hx = board.hexes[h]
        r = _node_radius(hx, hx.tile.nodes[int(stop.partition("._")[2])])
        out.append(_el("circle", cx=xy[0], cy=xy[1], r=r, class_="route-path local", data_hex=h))
    out.append("</g></g>")
    return "\n".join(out)


def _stop_xy(board, places: dict, stop: str) -> tuple:
    hex_id, _, n = stop.partition("._")
    return places[hex_id][int(n)].xy


def _route_stops(board, route: DrawnRoute, places: dict) -> str:
    """Rings round the stops a route counts (dashed round those it only passes)."""
    counted = route.counted
    out = [f'<g class="route-stops" data-route="route-{route.index + 1}">']
    for stop, dashed in [(s, False) for s in dict.fromkeys(counted)] + [
        (s, True) for s in dict.fromkeys(route.visited) if s not in counted
    ]:
        hex_id, _, n = stop.partition("._")
        hx = board.hexes[hex_id]
        r = _node_radius(hx, hx.tile.nodes[int(n)]) + 0.06 * S + 0.08 * S * (route.index % 4)
        xy = _stop_xy(board, places, stop)
        out.append(
            _el(
                "circle",
                cx=xy[0],
                cy=xy[1],
                r=r,
                fill="none",
                stroke=_colour(route),
                stroke_width=0.06 * S,
                stroke_dasharray="4 3" if dashed else None,
                class_="stop",
                data_stop=stop,
            )
        )
    out.append("</g>")
    return "\n".join(out)


def _legend(board, routes: list, title: str | None, x: float, y: float) -> tuple:
    """The legend column: title, then one line per train (stops counted, revenue), then the total."""
    company = board.company.name or board.company.id
    title = title or f"{board.game} · {company}"
    line = 24.0
    size = min(19.0, (PANEL - MARGIN) / (0.62 * max(1, len(title))))  # a long title in smaller type
    out = [
        '<g class="legend">',
        _el("text", title, x=x, y=y + 10, class_="title", style=f"font-size:{_n(size)}px"),
        _el("text", f"phase {board.phase_name} · {company}", x=x, y=y + 10 + line, fill="#333"),
    ]
    y += 10 + 2.4 * line
    right = x + PANEL - MARGIN
    if not routes:
        out.append(_el("text", "no routes drawn", x=x, y=y, fill="#333"))
    total: float = 0
    for r in routes:
        out.append(
            f'<g class="legend-route" data-route="route-{r.index + 1}">'
            + _el("rect", x=x, y=y - 7, width=28, height=14, rx=3, fill=_colour(r), opacity=0.8)
            + _el("text", r.name if r.name == r.train else f"{r.name} ({r.train})", x=x + 36, y=y)
            + _el(
                "text",
                f"{len(r.counted)} stop{'' if len(r.counted) == 1 else 's'}",
                x=right - 62,
                y=y,
                class_="num",
                fill="#333",
            )
            + _el("text", "–" if r.revenue is None else r.revenue, x=right, y=y, class_="num")
            + "</g>"
        )
        total += r.revenue if isinstance(r.revenue, (int, float)) else 0
        y += line
    if routes:
        out.append(_el("line", x1=x, y1=y - line / 2, x2=right, y2=y - line / 2, stroke="#333", stroke_width=1))
        out.append(_el("text", "total", x=x + 36, y=y + 4, font_weight="bold"))
        out.append(_el("text", total, x=right, y=y + 4, class_="num", font_weight="bold"))
        y += line
    out.append("</g>")
    return "\n".join(out), y + 10


# ---- SVG text ------------------------------------------------------------------------------


def _n(v) -> str:
    text = f"{v:.1f}" if isinstance(v, float) else str(v)
    return text[:-2] if text.endswith(".0") else text


def _p(xy: tuple) -> str:
    return f"{_n(xy[0])},{_n(xy[1])}"


def _el(tag: str, text=None, **attrs) -> str:
    """One element; ``class_`` -> ``class``, ``data_hex`` -> ``data-hex``, ``None`` values left out."""
    items = "".join(
        f' {k.rstrip("_").replace("_", "-")}="{_n(v)}"'
        if isinstance(v, (int, float))
        else f" {k.rstrip('_').replace('_', '-')}={quoteattr(str(v))}"
        for k, v in attrs.items()
        if v is not None
    )
    return f"<{tag}{items}/>" if text is None else f"<{tag}{items}>{escape(str(text))}</{tag}>"
