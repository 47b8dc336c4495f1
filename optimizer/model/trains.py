"""Train kinds, reduced to the caps the search needs.

Every train of the five games is a pair of limits over two classes of stop, *large* (cities,
off-boards) and *small* (towns, ports): how many it may visit and how many it pays. A standard N
visits and pays N of any kind; an N+M at most N large within N+M; an express NE visits any number
and pays the best N; a D is unlimited; an 18EU N visits N large and any number of towns.

A train given as rows ``{nodes, pay, visit}`` is read as a transportation problem: rows that take
only large stops, only small ones, or both. The caps below are exactly its feasibility conditions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import BoardError

UNLIMITED = 999  # a cap no route reaches
# What a train may do with the board's mines (lib/engine/game/g_1837/game.rb#check_other):
MINES_ANY = 0  # no mine rule (every title without mines)
MINES_NONE = 1  # it may not visit a mine ("Only goods trains can visit a mine")
MINES_ONE = 2  # it must visit exactly one ("Must visit one mine", "Cannot visit more than one mine")
LARGE_TYPES = frozenset({"city", "offboard", "pass"})
SMALL_TYPES = frozenset({"town", "halt"})


@dataclass(frozen=True)
class TrainSpec:
    """What a train may visit and what it pays; caps are per class and in total."""

    name: str
    visit_large: int
    visit_small: int
    visit_total: int
    pay_large: int
    pay_small: int
    pay_total: int
    multiplier: int = 1
    requires_token: bool = True  # a paid stop (or, when all are paid, a visited one) holds our token
    local: bool = False  # runs one stop with no track (18EU Pullman is priced as a bonus instead)
    large_multiplier: int = 1  # a row's multiplier on the stops of one class (18AL 4D: cities and
    small_multiplier: int = 1  # off-boards pay double, towns once)
    # (node type, multiplier) where a title's rows pay a type apart from its class (stop_classes:
    # 18VA's towns pay 0 to passenger trains, off-boards 1, both counted as small stops)
    kind_multipliers: tuple = ()
    hex_cap: int = -1  # the most hex edges a route may cross (a train counting hexes, not stops); -1: no cap
    # An E train (the engine's ``train_type`` :etrain, g_1822 and g_1866): paid only by cities holding
    # the company's token, on track of its own overlap group, and (1822) its route ends at such cities.
    tokens_only: bool = False  # a stop without the company's token pays nothing
    token_ends: bool = False  # both ends of a route hold the company's token
    track_group: int = 0  # routes of trains in different groups may share track
    # Every large stop visited is paid, and the pay left over goes to the best small stops (1867's
    # towns fill the cities' allowance: g_1867/game.rb#compute_stops; 1860's unused city allowance
    # carries towns: g_1860/game.rb#compute_stops): the paid subset always holds all large stops.
    large_first: bool = False
    stop_value: int = -1  # every stop pays this, whatever its own value (1860's leased train: 20); -1: its own
    pullman: int = 0  # paid this more for each city and off-board it stops at (1858India's Pullman attached to it)

    def value_of(self, value: int, large: bool, kind: str = "") -> int:
        """What a stop worth ``value`` pays this train, its row's multiplier applied."""
        for k, m in self.kind_multipliers:
            if k == kind:
                return value * m
        return value * (self.large_multiplier if large else self.small_multiplier)

    @property
    def pays_all(self) -> bool:
        """Every visited stop is paid: the train may skip nothing."""
        return (
            self.pay_large >= self.visit_large
            and self.pay_small >= self.visit_small
            and self.pay_total >= self.visit_total
        )

    @property
    def kind(self) -> str:
        if self.local:
            return "local"
        if not self.pays_all:
            return "express"
        if self.visit_total >= UNLIMITED and self.visit_large >= UNLIMITED:
            return "unlimited"
        if self.visit_small > self.visit_large or self.visit_total > self.visit_large:
            return "plus"
        return "standard"


def _cap(n: int) -> int:
    return UNLIMITED if n >= 99 else n


PLUS = re.compile(r"^(\d+)\+(\d+)$")
EXPRESS = re.compile(r"^(\d+)E$")


def spec_from_rows(
    name: str,
    rows: list,
    multiplier: int = 1,
    requires_token: bool = True,
    local: bool = False,
    where: str = "trains",
    large_types: frozenset = LARGE_TYPES,
) -> TrainSpec:
    """The caps of rows; ``large_types`` are the node types the large caps count (a title whose rows
    give off-boards a row apart from cities counts them with the small stops: see stop_classes)."""
    small_types = (LARGE_TYPES | SMALL_TYPES) - large_types
    v = {"L": 0, "S": 0, "A": 0}
    p = {"L": 0, "S": 0, "A": 0}
    row_mult: dict[str, set] = {"L": set(), "S": set(), "A": set()}
    for row in rows:
        types = set(row["nodes"])
        large, small = bool(types & large_types), bool(types & small_types)
        if not (large or small):  # a type no tile here has (1822CAWRS grain_elevator): it counts nothing
            continue
        key = "A" if large and small else ("L" if large else "S")
        v[key] += row["visit"]
        p[key] += row["pay"]
        # a row may pay its stops nothing (18FL 3E: towns at multiplier 0); only an absent multiplier is 1
        row_mult[key].add(1 if row.get("multiplier") is None else row["multiplier"])
    mult = {k: row_mult[k] | row_mult["A"] for k in ("L", "S")}
    if any(len(m) > 1 for m in mult.values()):
        raise BoardError(f"{where}: rows that may take the same stop have different multipliers", field=where)
    large_mult, small_mult = (next(iter(mult[k]), 1) for k in ("L", "S"))
    if v["L"] + v["A"] == 0 and not local:
        raise BoardError(f"{where}: train {name!r} can visit no city", field=where)
    return TrainSpec(
        name,
        _cap(v["L"] + v["A"]),
        _cap(v["S"] + v["A"]),
        _cap(v["L"] + v["S"] + v["A"]),
        _cap(p["L"] + p["A"]),
        _cap(p["S"] + p["A"]),
        _cap(p["L"] + p["S"] + p["A"]),
        multiplier,
        requires_token,
        local,
        large_mult,
        small_mult,
    )


def spec_from_train(train, where: str = "trains") -> TrainSpec:
    """The caps of a board's train, from its distance, and from its name where that is all we have."""
    d = train.distance
    if isinstance(d, list):
        return spec_from_rows(train.name, d, train.multiplier, train.requires_token, train.local, where)
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise BoardError(f"{where}.distance: train {train.name!r} has no distance", field=f"{where}.distance")
    name = train.name
    if (m := PLUS.match(name)) and int(m.group(1)) + int(m.group(2)) == d:
        n, k = int(m.group(1)), int(m.group(2))
        return spec_from_rows(
            name,
            [{"nodes": ["town"], "pay": k, "visit": k}, {"nodes": ["city", "offboard", "town"], "pay": n, "visit": n}],
            train.multiplier,
            train.requires_token,
            train.local,
            where,
        )
    if (m := EXPRESS.match(name)) and d >= int(m.group(1)):
        n = int(m.group(1))
        return TrainSpec(
            name, UNLIMITED, UNLIMITED, UNLIMITED, n, n, n, train.multiplier, train.requires_token, train.local
        )
    c = _cap(d)
    return TrainSpec(name, c, c, c, c, c, c, train.multiplier, train.requires_token, train.local)
