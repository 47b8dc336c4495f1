"""18Ireland's narrow gauge: a stop a route pays also pays the places its narrow gauge reaches.

lib/engine/game/g_18_ireland/game.rb#narrow_gauge_revenue: from each stop of a route the engine walks
the track that is not broad gauge (``stop.walk(skip_track: :broad)``); every new node it meets whose
paths are all narrow gauge adds its revenue and the walk goes on through it; a node with any other
track adds nothing and the walk stops there. It depends on the stop and the board only, so it is
part of the stop's value (declared as ``narrow_gauge_revenue: true``), paid once per stop a route pays.
"""

from __future__ import annotations

from ..board.geometry import opposite
from ..board.tiles import placed


def _view(board, hex_id: str):
    hx = board.hexes[hex_id]
    return hx, placed(hx.tile.code, hx.rotation)


def _paths_reached(board, hex_id: str, start: int, entry: tuple):
    """Every path reachable from path ``start`` of ``hex_id`` (entered at ``entry``) over track that is
    not broad gauge, across hex sides and through junctions (lib/engine/part/path.rb#walk): (hex, path)."""
    stack = [(hex_id, start, entry)]
    seen = set()
    while stack:
        h, i, came = stack.pop()
        hx, view = _view(board, h)
        path = view.paths[i]
        if (h, i) in seen or path.track == "broad":
            continue
        seen.add((h, i))
        yield h, path
        for end in (path.a, path.b):
            if end == came:
                continue
            if end[0] == "edge":
                other = hx.neighbors.get(end[1])
                if other is not None and other in board.hexes:
                    into = ("edge", opposite(end[1]))
                    stack.extend((other, j, into) for j in _view(board, other)[1].by_end.get(into, ()))
            elif hx.tile.nodes[end[1]].kind == "junction":
                stack.extend((h, j, end) for j in view.by_end.get(end, ()) if j != i)


def _all_narrow(board, hex_id: str, node: int) -> bool:
    _, view = _view(board, hex_id)
    return all(view.paths[i].track == "narrow" for i in view.by_end.get(("node", node), ()))


def narrow_gauge_bonus(board, hex_id: str, node: int) -> int:
    """What the narrow gauge from this stop adds to it (G18Ireland#narrow_gauge_revenue, one stop)."""
    counted = {(hex_id, node)}
    walked = set()
    frontier = [(hex_id, node)]
    bonus = 0
    while frontier:
        h, n = frontier.pop()
        if (h, n) in walked:
            continue
        walked.add((h, n))
        _, view = _view(board, h)
        for i in view.by_end.get(("node", n), ()):
            for ph, path in _paths_reached(board, h, i, ("node", n)):
                tile = board.hexes[ph].tile
                stops = [(ph, m) for m in path.nodes if tile.nodes[m].kind != "junction"]
                fresh = [s for s in stops if s not in counted]
                counted.update(fresh)
                stop_here = False
                for sh, m in fresh:
                    if _all_narrow(board, sh, m):
                        bonus += board.hexes[sh].tile.nodes[m].value(board.phase_tiles)
                    else:
                        stop_here = True
                if not stop_here and not path.terminal:
                    frontier.extend(s for s in stops if s != (h, n))
    return bonus
