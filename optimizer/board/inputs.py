"""What a client sends of a corpus-format state: its input fields, never its answers.

A corpus state mixes the board with the engine's view of it (``expected``, each hex's ``nodes``,
``paths``, ``exits``); the corpus README names the fields a client sends, and code reads only those.
Tests, benchmarks and the engine judge cut states down to them here, so that none can be helped by
an answer.
"""

from __future__ import annotations

INPUT_STATE = ("id", "game", "layout", "phase", "trains", "corporation", "hexes")
INPUT_CORPORATION = (
    "id",
    "name",
    "type",
    "minor",
    "owner",
    "companies",
    "president_companies",
    "abilities",
    "ferry_marker",
    "assignments",
)
INPUT_HEX = (
    "id",
    "tile",
    "color",
    "rotation",
    "code",
    "location_name",
    "neighbors",
    "borders",
    "cities",
    "tile_reservations",
    "assignments",
    "hex_tokens",
)


def input_fields(state: dict, *, drop_nulls: bool = False) -> dict:
    """The state's input fields only (``drop_nulls``: without the fields whose value is null)."""

    def kept(obj: dict, names: tuple) -> dict:
        return {k: v for k, v in obj.items() if k in names and not (drop_nulls and v is None)}

    out = {k: state[k] for k in INPUT_STATE if k in state}
    out["corporation"] = kept(state["corporation"], INPUT_CORPORATION)
    out["hexes"] = [kept(h, INPUT_HEX) for h in state["hexes"]]
    return out
