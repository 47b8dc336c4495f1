"""Harzbahn 1873's runs (``mining_runs``): rules on the whole run, not route by route.

The engine prices and checks a run of the company's routes together (lib/engine/game/g_1873/game.rb):

- ``#revenue_for``: a stop pays once, to the first route visiting it among the routes of its kind
  (``#stop_on_other_route?``; kinds: mining, the non-diesel trains, and passenger, the diesels,
  ``#train_type``); a city pays its value where it holds the company's token, else ``STOP_REVENUE``; a
  factory pays its ``FACTORY_INFO`` revenue; a mine pays its multiplier times the distance of the
  longest non-diesel train visiting it (``#highest_train_at_stop?``); a city tokened out pays nothing.
  A diesel is paid ``DIESEL_STOP_REVENUE`` for each city not tokened out (``#diesel_revenue``).
- ``#check_overlap``: the two kinds each have their own track.
- ``#check_route_combination`` / ``#check_intersection``: the routes of one NT train (its N
  subtrains, ``#add_subtrains!``) all meet each other, through stops not tokened out; every
  concession route of the company is run, hex for hex, by a non-diesel route when one runs and by a
  diesel when one runs (``#concession_route_run?``, the route's ``connection_hexes``).
- ``#check_hex_reentry``: a non-diesel route visits each hex once.

The board document lists the subtrains as trains (``5T-99`` ... ``5T-103``): the subtrains of one
train have consecutive numbers, N of them (``#create_duplicate_train!`` numbers them in a row); trains
whose ids carry no number are taken N at a time in the document's order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TRAIN_ID = re.compile(r"^(?P<name>.+)-(?P<index>\d+)$")


@dataclass(frozen=True)
class MiningRuns:
    """What pricing and checking a run needs, per train and per stop of one problem."""

    diesel_by_train: tuple  # bool: a passenger (diesel) train
    distance_by_train: tuple  # int: the N of an NT train (what a mine pays it, times its multiplier)
    group_by_train: tuple  # int: trains of one NT train share a number; -1 none
    name_by_group: dict  # group -> the train's name as the engine says it ("5Ta")
    base_by_stop: tuple  # what a stop pays the mining routes once: the city and the factory
    mine_by_stop: tuple  # the mine's multiplier, 0: none
    diesel_by_stop: tuple  # what a stop pays the diesels once
    blocked_by_stop: tuple  # bool: a city tokened out (no meeting there)
    hex_by_stop: tuple
    hexes_by_seg: tuple  # frozenset of the hexes of each segment
    concessions: tuple  # frozensets of hexes: routes the company must run
    _hexes: dict = field(default_factory=dict, compare=False, repr=False)  # segments -> their hexes

    def route_errors(self, t: int, stops) -> list:
        """Why one route of train t is illegal on its own (#check_hex_reentry), [] where it is not."""
        if self.diesel_by_train[t]:
            return []
        hexes = [self.hex_by_stop[s] for s in stops]
        if len(set(hexes)) != len(hexes):
            return ["a non-diesel route may not visit a hex twice"]
        return []

    def alone(self, t: int, stops) -> int:
        """What the route earns alone (an upper bound of what it adds to any run)."""
        if self.diesel_by_train[t]:
            return sum(self.diesel_by_stop[s] for s in stops)
        return sum(self.base_by_stop[s] + self.mine_by_stop[s] * self.distance_by_train[t] for s in stops)

    def price(self, routes) -> tuple:
        """``routes``: (train, stops, segments) in the run's order. Returns (total, the revenue and the
        paid stops of each route as the engine gives them, the run's errors)."""
        hexes_before: dict = {False: set(), True: set()}  # the hexes earlier routes of each kind visited
        longest: dict = {}  # mine hex -> (distance, route number, stop) of the first longest train
        revenues, paid = [], []
        for i, (t, stops, _) in enumerate(routes):
            diesel = bool(self.diesel_by_train[t])
            before = hexes_before[diesel]
            rev, paid_here = 0, []
            for s in stops:
                h = self.hex_by_stop[s]
                value = self.diesel_by_stop[s] if diesel else self.base_by_stop[s]
                if value and h not in before:
                    rev += value
                    paid_here.append(s)
                if not diesel and self.mine_by_stop[s] and self.distance_by_train[t] > longest.get(h, (0,))[0]:
                    longest[h] = (self.distance_by_train[t], i, s)
            before.update(self.hex_by_stop[s] for s in stops)
            revenues.append(rev)
            paid.append(paid_here)
        for _, (distance, i, s) in longest.items():
            revenues[i] += self.mine_by_stop[s] * distance
            if s not in paid[i]:
                paid[i].append(s)
        return sum(revenues), revenues, paid, self.run_errors(routes)

    def run_errors(self, routes) -> list:
        """(route number, error) of the rules on the whole run: the subtrains meeting, the concessions."""
        errors = []
        by_group: dict = {}
        for i, (t, _stops, _) in enumerate(routes):
            if self.group_by_train[t] >= 0:
                by_group.setdefault(self.group_by_train[t], []).append(i)
        for g, members in by_group.items():
            if len(members) > 1 and not self._meet(routes, members):
                errors.append(
                    (
                        members[0],
                        f"all routes of train {self.name_by_group[g]} must meet each other (#check_intersection)",
                    )
                )
        if self.concessions:
            for diesel, kind in ((False, "non-diesel"), (True, "diesel")):
                mine = [i for i, (t, _, _) in enumerate(routes) if bool(self.diesel_by_train[t]) == diesel]
                if not mine:
                    continue
                for c, hexes in enumerate(self.concessions):
                    if not any(c in self.concessions_run(routes[i][2]) for i in mine):
                        errors.append(
                            (mine[0], f"the concession route {'-'.join(sorted(hexes))} is run by no {kind} route")
                        )
        return errors

    def _meet(self, routes, members) -> bool:
        open_stops = [{s for s in routes[i][1] if not self.blocked_by_stop[s]} for i in members]
        reached, frontier = {0}, [0]
        while frontier:
            a = frontier.pop()
            for b in range(len(members)):
                if b not in reached and open_stops[a] & open_stops[b]:
                    reached.add(b)
                    frontier.append(b)
        return len(reached) == len(members)

    def concessions_run(self, segs) -> frozenset:
        """The concession routes (their numbers) a route on these segments runs: its hexes are theirs."""
        key = tuple(segs)
        out = self._hexes.get(key)
        if out is None:
            hexes: set = set()
            for k in segs:
                hexes |= self.hexes_by_seg[k]
            out = self._hexes[key] = frozenset(c for c, con in enumerate(self.concessions) if con == hexes)
        return out


def groups_of(trains, diesel: str) -> tuple:
    """Per train, the train it is a subtrain of (a number; -1 for an unnamed train): an NT train's N
    subtrains, the diesels; and the engine's name of each (``#train_name``: an NT train's name and a
    letter by the owner's order, the diesel's name)."""
    by_name: dict = {}
    for t, train in enumerate(trains):
        m = TRAIN_ID.match(str(train.id))
        if "T" in train.name and isinstance(train.distance, int):  # (ids not numbered: in list order)
            by_name.setdefault(train.name, []).append((int(m.group("index")) if m else t, t))
    group = [-1] * len(trains)
    names: dict = {}
    g = 0
    diesels = [t for t, train in enumerate(trains) if train.name == diesel]
    if diesels:  # the company's one diesel, run as the pool's diesels (#use_pool_diesel): one train
        for t in diesels:
            group[t] = g
        names[g] = diesel
        g += 1
    for name, members in by_name.items():
        members.sort()
        n = max(1, int(trains[members[0][1]].distance))
        for k in range(0, len(members), n):
            for _, t in members[k : k + n]:
                group[t] = g
            names[g] = f"{name}{chr(ord('a') + len(names) - (1 if diesels else 0))}"
            g += 1
    return tuple(group), names
