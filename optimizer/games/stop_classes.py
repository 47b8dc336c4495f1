"""Trains whose rows count cities and off-boards apart (the ``stop_classes`` family).

The search counts two classes of stop per train, large and small (``caps_by_train``: visit large,
small, total; pay large, small, total). The engine counts a train's rows by node type
(lib/engine/game/base.rb#check_distance: each type's visits fill the rows that list it;
#compute_stops: each paid stop takes the first row with room). Most titles' rows put cities and
off-boards in one row, which the two classes read exactly. 18Ardennes and 18VA give cities, off-boards
and towns a row each (``[{nodes: [city], pay: N}, {nodes: [offboard], pay: 2}, {nodes: [town], pay:
99}]``): three classes, which the generic reading merged into cities + off-boards <= N + 2, so a 2
train ran 3 cities ("Route has too many stops").

Off-boards are route ends (``end_only``), so a route visits at most two: a row of their own with room
for two never binds. The title declares ``{"stop_classes": {"large": ["city"]}}``: the large caps
count cities only, and off-boards join the towns' class, which must then be unlimited to visit, so
that only the cities' row binds. A row paying nothing (18Ardennes 4D's towns, ``pay: 0``) or with
``multiplier: 0`` (18VA's passenger trains' towns) pays its stops nothing, per node type
(``kind_multipliers``), so the small class's pay cap picks the off-boards. Rows that do not fit
these conditions are refused with the reason, never read loosely.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import BoardError
from ..model import TrainSpec
from ..model.trains import LARGE_TYPES, UNLIMITED, spec_from_rows

END_ONLY_TYPES = frozenset({"offboard"})  # a route visits at most two: its ends


def spec_by_classes(train, large_types: frozenset, where: str) -> TrainSpec:
    """The caps of a train's rows with ``large_types`` counted large and every other type small."""
    rows = train.distance
    moved = LARGE_TYPES - large_types
    field = f"{where}.distance"
    for row in rows:
        types = set(row["nodes"])
        if not types & moved:
            continue
        if not types <= END_ONLY_TYPES or min(row["visit"], row["pay"]) < 2:
            raise BoardError(
                f"{field}: train {train.name!r}: stop_classes counts {sorted(types & moved)} as small stops, which"
                " needs them route ends only in a row of their own with room for two",
                field=field,
            )
    plain = [{k: v for k, v in row.items() if k != "multiplier"} for row in rows]
    spec = spec_from_rows(
        train.name, plain, train.multiplier, train.requires_token, train.local, where, large_types=large_types
    )
    small = [row for row in rows if not set(row["nodes"]) & (large_types | moved)]
    if small and spec.visit_small < UNLIMITED:
        raise BoardError(f"{field}: train {train.name!r}: stop_classes needs its towns' rows unlimited", field=field)
    pays_towns = any(0 < row["pay"] < 99 and row.get("multiplier", 1) for row in small)
    if pays_towns:
        raise BoardError(f"{field}: train {train.name!r}: stop_classes needs its towns paid all or none", field=field)
    return replace(spec, kind_multipliers=kind_multipliers(train, rows, field))


def kind_multipliers(train, rows: list, field: str) -> tuple:
    """(node type, multiplier) of every type in the rows, from the first row listing it, as the
    engine reads it (lib/engine/part/revenue_center.rb#revenue_multiplier): the row's ``multiplier``
    (1 unless given: the train's own multiplies the route), 0 for a row paying nothing."""
    if any("multiplier" in row for row in rows) and (train.multiplier or 1) != 1:
        raise BoardError(f"{field}: train {train.name!r}: a row's multiplier replaces the train's", field=field)
    out: dict[str, int] = {}
    for row in rows:
        m = 0 if row["pay"] == 0 else int(row.get("multiplier", 1))
        for kind in row["nodes"]:
            out.setdefault(kind, m)
    return tuple(sorted(out.items()))
