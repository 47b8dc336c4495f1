"""The board-state schema as msgspec structs: the document checked in C, in one pass.

These structs say what ``schema/board.schema.json`` says, and never accept less strictly: where
msgspec cannot say exactly what the schema says it says more (an integer given as ``2.0``, a
neighbour key ``"0\\n"``), and :func:`decode` answers None so that the reader falls back to the
schema validator, which accepts or names the field. A hex struct is frozen and hashable, so that a
hex seen before (same tile, rotation, neighbours, tokens) is a cache key for what was read from it.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType, field

HEX_ID = re.compile(r"^([A-Z]{1,2}|[a-z])-?[0-9]{1,3}\Z")  # the schema's pattern, as fastjsonschema applies it
Count = Annotated[int, Meta(ge=0)]
Edge = Annotated[int, Meta(ge=0, le=5)]
Number = float | int


class BorderDoc(Struct, frozen=True):
    edge: Edge
    type: str | None = None
    cost: Number | None = None


class CityDoc(Struct, frozen=True):
    index: Count | UnsetType = UNSET
    slots: Count | UnsetType = UNSET
    tokens: tuple[str | None, ...] = ()
    reservations: tuple[str | None, ...] = ()
    token_types: tuple[str | None, ...] = ()
    extra_tokens: tuple = ()
    extra_reservations: tuple = ()


class HexTokenDoc(Struct, frozen=True):
    """A token on the hex itself (the schema's ``hex_tokens`` item)."""

    owner: Annotated[str, Meta(min_length=1)]
    type: str | None = None
    player: str | int | None = None


class NeighborsDoc(Struct, frozen=True, forbid_unknown_fields=True):
    """Edge "0".."5" to hex id; any other key is refused (the schema's ``propertyNames``)."""

    e0: str | UnsetType = field(default=UNSET, name="0")
    e1: str | UnsetType = field(default=UNSET, name="1")
    e2: str | UnsetType = field(default=UNSET, name="2")
    e3: str | UnsetType = field(default=UNSET, name="3")
    e4: str | UnsetType = field(default=UNSET, name="4")
    e5: str | UnsetType = field(default=UNSET, name="5")

    def as_dict(self) -> dict:
        """Absolute edge -> hex id, in edge order."""
        return {
            edge: other
            for edge, other in enumerate((self.e0, self.e1, self.e2, self.e3, self.e4, self.e5))
            if other is not UNSET
        }


class HexDoc(Struct, frozen=True):
    id: str  # the schema's pattern is checked by the reader, once per hex (HEX_ID)
    code: str
    tile: str | None = None
    color: str | None = None
    rotation: Edge = 0
    location_name: str | None = None
    neighbors: NeighborsDoc | UnsetType = UNSET
    borders: tuple[BorderDoc, ...] = ()
    cities: tuple[CityDoc, ...] = ()
    tile_reservations: tuple = ()
    assignments: dict | UnsetType = UNSET
    hex_tokens: tuple[HexTokenDoc, ...] | UnsetType = UNSET


class AbilityDoc(Struct):
    type: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    owner: str | None = None
    hexes: list[str] = []
    amount: Number | UnsetType = UNSET


class CorporationDoc(Struct):
    id: Annotated[str, Meta(min_length=1)]
    name: str | None = None
    type: str | None = None
    minor: bool | None = None
    owner: str | int | None = None
    companies: list[str] = []
    president_companies: list[str] = []
    abilities: list[AbilityDoc] = []
    ferry_marker: bool | None = None
    assignments: dict | None = None


class RowDoc(Struct):
    nodes: Annotated[list[Annotated[str, Meta(min_length=1)]], Meta(min_length=1)]
    pay: Count
    visit: Count | UnsetType = UNSET
    multiplier: Count | UnsetType = UNSET


class TrainDoc(Struct):
    name: Annotated[str, Meta(min_length=1)]
    distance: Annotated[int, Meta(ge=1)] | Annotated[list[RowDoc], Meta(min_length=1)]
    id: str | UnsetType = UNSET
    price: Number | None = None
    multiplier: Count | None = None
    requires_token: bool | UnsetType = UNSET
    local: bool | UnsetType = UNSET
    pullman: bool | UnsetType = UNSET
    owner: str | None = None


class PhaseDoc(Struct):
    tiles: Annotated[list[str], Meta(min_length=1)]
    name: str | int | UnsetType = UNSET


class RestDoc(Struct, kw_only=True):
    """The document less its hexes: what the reader takes as plain values."""

    phase: PhaseDoc
    corporation: CorporationDoc
    trains: list[TrainDoc]


class BoardRestDoc(RestDoc, kw_only=True):
    """The document less its hexes, all of it (a structured board's rest, checked as :class:`BoardDoc` would)."""

    game: Annotated[str, Meta(min_length=1)]
    layout: Literal["pointy", "flat"]
    id: str | int | None = None


class BoardDoc(BoardRestDoc, kw_only=True):
    """The whole document (keyword-only fields, so that each part adds its own to the one above)."""

    hexes: Annotated[list[HexDoc], Meta(min_length=1)]


class BoardText(Struct):
    """The document as JSON text: each hex kept as its raw text (a cache key: a hex seen before is
    not decoded again), the small rest decoded."""

    game: Annotated[str, Meta(min_length=1)]
    layout: Literal["pointy", "flat"]
    phase: msgspec.Raw
    corporation: msgspec.Raw
    trains: msgspec.Raw
    hexes: list[msgspec.Raw]
    id: str | int | None = None


_TEXT = msgspec.json.Decoder(BoardText)
_HEX = msgspec.json.Decoder(HexDoc)


def decode_text(text) -> tuple | None:
    """JSON text to ``(rest, hexes)`` in C: ``rest`` the document's plain values less its hexes
    (checked), ``hexes`` the text of each hex (see :func:`decode_hex`); None when msgspec refuses it."""
    try:
        board = _TEXT.decode(text)
        rest = {
            "game": board.game,
            "layout": board.layout,
            "phase": msgspec.json.decode(board.phase),
            "corporation": msgspec.json.decode(board.corporation),
            "trains": msgspec.json.decode(board.trains),
            "id": board.id,
        }
        msgspec.convert(rest, RestDoc, strict=True)
    except (msgspec.ValidationError, msgspec.DecodeError, TypeError, ValueError, RecursionError):
        return None
    if not board.hexes:
        return None
    return rest, [bytes(raw) for raw in board.hexes]


def decode_hex(text: bytes) -> HexDoc | None:
    """One hex's JSON text as its checked struct, or None when msgspec refuses it."""
    try:
        return _HEX.decode(text)
    except (msgspec.ValidationError, msgspec.DecodeError, TypeError, ValueError, RecursionError):
        return None


def rest_is_valid(rest: dict) -> bool:
    """The document's plain values less its hexes pass :class:`BoardDoc`'s check."""
    try:
        msgspec.convert(rest, BoardRestDoc, strict=True)
    except (msgspec.ValidationError, TypeError, ValueError, RecursionError):
        return False
    return True


def convert_hex(doc: dict) -> HexDoc | None:
    """One hex's plain values as its checked struct, or None when msgspec refuses them."""
    try:
        return msgspec.convert(doc, HexDoc, strict=True)
    except (msgspec.ValidationError, TypeError, ValueError, RecursionError):
        return None


def decode(doc) -> BoardDoc | None:
    """The document as structs, or None when msgspec refuses it (the schema validator then decides)."""
    try:
        return msgspec.convert(doc, BoardDoc, strict=True)
    except (msgspec.ValidationError, TypeError, ValueError, RecursionError):
        return None


def hex_key(h: HexDoc):
    """A hex struct as a cache key: itself, or its JSON when a field holds an unhashable value
    (``assignments``, extra tokens)."""
    try:
        hash(h)
        return h
    except TypeError:
        return msgspec.json.encode(h)
