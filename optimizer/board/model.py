"""The board as plain objects: what both readers build and every layer above reads.

A read board is read-only: the fast reader hands the same :class:`Board` (and the same
:class:`Hex` objects) out again for the same document.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import BoardError
from .tiles import Tile


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
    kinds: list = field(default_factory=list)  # per slot: the token's type where the document gives one
    #   (``token_types``: "destination", "neutral", ...), else None
    blocking: list = field(default_factory=list)  # per slot: a company-less blocking token fills it
    #   (the engine's token type ``blocking``: 18ZOO's Work in Progress; Part::City#blocks? sees no nil)
    extra: list = field(default_factory=list)  # companies of its ``extra_tokens`` (tokens beyond its slots,
    #   18VA's P3): Part::City#tokened_by? counts them; read where a family says so


@dataclass(frozen=True)
class HexToken:
    """A token on the hex itself, not in a city (the engine's Hex#tokens: 1868 Wyoming's development
    tokens): its owner's id, its type ("normal" where the document gives none) and the player who owns
    that owner, where the document says."""

    owner: str
    type: str = "normal"
    player: str | None = None


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
    hex_tokens: tuple | None = None  # HexToken on the hex itself; None: the document gives no ``hex_tokens``

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
    pullman: bool = False  # the company's Pullman is attached to it this round (1858India)


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

    @_kept
    def hex_tokens_given(self) -> bool:
        """The document gives ``hex_tokens`` (on any hex: then a hex without it holds none)."""
        return any(hx.hex_tokens is not None for hx in self.hexes.values())

    def hex(self, hex_id: str) -> Hex:
        try:
            return self.hexes[hex_id]
        except KeyError:
            raise BoardError(f"unknown hex {hex_id!r}", hex=str(hex_id)) from None
