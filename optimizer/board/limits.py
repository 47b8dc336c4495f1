"""The largest numbers a board may hold: what the search's 32-bit arithmetic takes.

The compiled search adds stop values times a train's multiplier in signed 32-bit integers. Every
reader refuses a number beyond these bounds, naming its field, so that every surface gives the same
error (the CLI one line and exit 2, the API an :class:`~optimizer.errors.OptimizerError`, the
server INVALID_ARGUMENT or HTTP 400) instead of an overflow deep in the search.
"""

from __future__ import annotations

import math

from ..errors import BoardError

MAX_NUMBER = 100_000  # any revenue, distance, price or amount ...
MAX_MULTIPLIER = 100  # ... and any multiplier: value x multiplier fits an int32 many times over


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:40]}... ({len(text)} characters)"


def check_number(value, field: str, most: int = MAX_NUMBER, **where) -> None:
    """A number within ``most`` either way (anything else is the schema's to refuse)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise BoardError(f"{field}: {value} is not a finite number", field=field, **where)
    if abs(value) > most:
        raise BoardError(f"{field}: {_shown(value)} is too large (at most {most})", field=field, **where)


def check_numbers(doc: dict, most: int = MAX_NUMBER, most_multiplier: int = MAX_MULTIPLIER) -> None:
    """The trains' and the company's numbers of a document (or its plain values less the hexes)."""
    trains = doc.get("trains")
    for i, t in enumerate(trains if isinstance(trains, list) else ()):
        if not isinstance(t, dict):
            continue
        check_number(t.get("multiplier"), f"trains[{i}].multiplier", most_multiplier)
        check_number(t.get("price"), f"trains[{i}].price", most)
        distance = t.get("distance")
        if isinstance(distance, list):
            for k, row in enumerate(distance):
                if isinstance(row, dict):
                    for name in ("pay", "visit"):
                        check_number(row.get(name), f"trains[{i}].distance[{k}].{name}", most)
                    check_number(row.get("multiplier"), f"trains[{i}].distance[{k}].multiplier", most_multiplier)
        else:
            check_number(distance, f"trains[{i}].distance", most)
    corporation = doc.get("corporation")
    abilities = corporation.get("abilities") if isinstance(corporation, dict) else None
    for i, a in enumerate(abilities if isinstance(abilities, list) else ()):
        if isinstance(a, dict):
            check_number(a.get("amount"), f"corporation.abilities[{i}].amount", most)
