"""Which hex a train reaches across each edge, when the document does not say (``neighbors`` absent)."""

from __future__ import annotations

from . import caches, geometry

IMPASSABLE_COLOURS = frozenset({"blue", "gray", "red"})


def computed_neighbors(hexes: dict, layout: str, hex_id: str, at: dict | None = None) -> dict:
    """The adjacency trains use, as the engine builds it at game start.

    Every on-map neighbour, less those across an impassable border, less blue, gray and red
    neighbours whose tile has no exit on the facing edge. ``at`` is the board's coordinate index
    (:func:`coordinate_index`), when the caller already has it.
    """
    hx = hexes[hex_id]
    x, y = geometry.hex_xy(hex_id, layout)
    out = {}
    at = coordinate_index(tuple(hexes), layout) if at is None else at
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


@caches.bounded(caches.COORDINATE_INDEXES_MAX)
def coordinate_index(hex_ids: tuple, layout: str) -> dict:
    """(x, y) -> hex id, for a board's hexes: built once per board, not once per hex."""
    return {geometry.hex_xy(h, layout): h for h in hex_ids}


def with_computed_neighbors(hexes: dict, layout: str) -> None:
    """Fill each hex's ``neighbors`` from the map's geometry (the hexes are the caller's own)."""
    at = coordinate_index(tuple(hexes), layout)
    for hx in hexes.values():
        hx.neighbors = computed_neighbors(hexes, layout, hx.id, at)
