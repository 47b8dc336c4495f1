"""Requests a hostile or careless client sends (issue 17), built from a real board.

Each returns board-state JSON text or a document; ``tests/test_grpc_hostile.py`` sends them to a
real server process.
"""

from __future__ import annotations

import json

from .corpus import state

BASE = "1830/26855@553"


def base() -> dict:
    doc = state(BASE)
    doc.pop("expected", None)
    return doc


def hex_ids(n: int) -> list:
    """``n`` distinct hex ids (two letters, then a number), packed on a grid."""
    letters = [a + b for a in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for b in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
    return [f"{letters[k // 999]}{k % 999 + 1}" for k in range(n)]


def huge_board(n: int) -> str:
    """A real board plus ``n`` blank hexes, no ``neighbors`` (adjacency computed from the layout)."""
    doc = base()
    for h in doc["hexes"]:
        h.pop("neighbors", None)
        h.pop("all_neighbors", None)
    doc["hexes"] += [
        {"id": i, "tile": None, "color": "white", "rotation": 0, "code": "", "cities": []} for i in hex_ids(n)
    ]
    return json.dumps(doc)


def many_routes(n: int, doc: dict | None = None) -> tuple:
    """(board JSON, routes): ``n`` trains each given the same stops, which can be read two ways (the
    checker tries every combination of readings)."""
    doc = doc or state(BASE)
    route = doc["expected"]["human"]["routes"][0]
    doc["trains"] = [dict(doc["trains"][0], id=f"T-{i}") for i in range(n)]
    doc.pop("expected", None)
    return json.dumps(doc), [{"train": f"T-{i}", "stops": route["stops"]} for i in range(n)]


def padded(mib: float) -> str:
    """A real board with an ignored extra field: an array of ``{}`` making it ``mib`` MiB."""
    text = json.dumps(base())
    count = int((mib * 1024 * 1024 - len(text)) / 3)
    return text[:-1] + ', "junk": [' + ",".join(["{}"] * count) + "]}"
