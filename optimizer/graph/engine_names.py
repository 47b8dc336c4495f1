"""A route's track and stops named as the 18xx.games engine names them, so that it rebuilds our route.

The engine rebuilds a route from its ``connections`` (one chain id per piece of track between two
stops) and, where a chain could join more than one pair of nodes, from the route's node signatures
(``lib/engine/action/run_routes.rb#h_to_args``: ``connections``, ``nodes``):

- A chain id is the hexes the piece crosses, except a piece that is one path between two nodes of a
  tile with more such paths (``Tile#ambiguous_connection?``): that is ``"HEX i.j"``, the two nodes'
  part indexes in order (``lib/engine/route.rb#chain_id``). 1860's Cowes (F2) has a city, a town and
  a halt joined by paths: ``["F2"]`` names none of them.
- A node's signature is ``"HEX-i"``, its part index (``Part::Base#signature``). Where two nodes of a
  hex leave by one edge (18ESP's Madrid, 18Neb's Omaha: a city and a town), the chain ``["K7", "J8"]``
  fits both; the engine takes the one whose signature the route lists
  (``Route#find_pairwise_chain``), else the first, which may be the one without the token.

A part index counts every part of the tile code (``Tile#initialize``: ``@parts.each_with_index``), not
only nodes: ``label=Y;city=...`` has its city at 1.
"""

from __future__ import annotations

from functools import lru_cache

from ..board.tiles import NODE_ALIASES, NODE_KINDS, placed


@lru_cache(maxsize=4096)
def node_part_indexes(code: str) -> tuple:
    """The part index of each node of a tile code (``_0``, ``_1``, ... in order)."""
    out = []
    parts = [p for p in code.split(";") if p]
    for i, part in enumerate(parts):
        name = part.partition("=")[0]
        if NODE_ALIASES.get(name, name) in NODE_KINDS:
            out.append(i)
    return tuple(out)


def node_signature(board, hex_id: str, node: int) -> str:
    """The engine's name of node ``node`` (its ``_N``) of hex ``hex_id``."""
    return f"{hex_id}-{node_part_indexes(board.hexes[hex_id].tile.code)[node]}"


def chain_id(board, seg) -> list:
    """The engine's chain id of a segment (walked from ``seg.a`` to ``seg.b``; reverse it for the
    other way, except a one-path id, which names its nodes in order either way)."""
    if len(seg.paths) == 1:
        hex_id, i = seg.paths[0]
        hx = board.hexes[hex_id]
        nodes = one_path_nodes(hx.tile.code, hx.rotation, i)
        if nodes:
            return [f"{hex_id} {nodes}"]
    return list(seg.hexes)


@lru_cache(maxsize=4096)
def one_path_nodes(code: str, rotation: int, i: int) -> str:
    """``"i.j"`` where path ``i`` of the placed tile joins two nodes and the tile has more such paths
    (``Tile#ambiguous_connection?``), else ""; per tile, as answers name the same pieces again."""
    paths = placed(code, rotation).paths
    if len(paths[i].nodes) == 2 and sum(1 for p in paths if len(p.nodes) == 2) > 1:
        parts = node_part_indexes(code)
        a, b = sorted(parts[n] for n in paths[i].nodes)
        return f"{a}.{b}"
    return ""
