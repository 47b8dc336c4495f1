"""The reference search of a problem whose run is priced and checked as a whole (``Problem.run_rule``,
Harzbahn 1873's ``mining_runs``: optimizer/games/mining_runs.py).

Every legal route of every train, every combination, as the reference does; a combination earns what
the rule prices the run at (a stop paid once), and is legal when the rule finds no error in it. What
a route earns alone bounds what it adds to any run, so pruning by the trains' best routes alone stays
exact. Trains of the two kinds (mining, diesel) run on their own track and are priced and checked
apart, so each kind's best run is searched alone and the two are added. Trains that are alike (the
same spec, the same NT train) take their routes in list order, so that no run is tried twice.
"""

from __future__ import annotations

import time

from .limits import CancelToken
from .reference import NAME, _Limits, _Stop, legal_routes
from .result import FoundRoute, SearchResult


def search_runs(
    problem,
    *,
    deadline_ms: float | None = None,
    node_budget: int | None = None,
    cancel: CancelToken | None = None,
    on_improve=None,
) -> SearchResult:
    start = time.monotonic()
    limits = _Limits(start, deadline_ms, node_budget, cancel)
    rule = problem.run_rule
    found: list = []
    total = 0
    stopped = None
    try:
        per_train = []
        for t in range(problem.n_trains):
            routes = [r for r in legal_routes(problem, t, limits) if not rule.route_errors(t, r[2].stops)]
            routes.sort(key=lambda r: -r[0])
            per_train.append(routes)
        for diesel in (False, True):
            trains = [t for t in range(problem.n_trains) if bool(rule.diesel_by_train[t]) == diesel]
            value, chosen = _best_run(problem, rule, trains, per_train, limits)
            total += value
            found += chosen
    except _Stop as stop:
        stopped = stop.args[0]
        found, total = [], 0
    routes = _priced(problem, rule, found)
    result = SearchResult(
        total,
        stopped is None,
        total if stopped is None else _static_bound(problem),
        routes,
        limits.nodes,
        (time.monotonic() - start) * 1000,
        stopped,
        0,
        NAME,
    )
    if on_improve is not None and stopped is None:
        on_improve(result)
    return result


def _static_bound(problem) -> int:
    """What the trains could earn at most, each its best route alone (a stopped search's bound)."""
    values = problem.values_by_train_stop
    return int(sum(values[t].clip(min=0).sum() for t in range(problem.n_trains)))


def _priced(problem, rule, found) -> list:
    """The run's routes with the revenue and paid stops each earns within the run (the engine's)."""
    if not found:
        return []
    runs = [(f.train, f.stops, [int(problem.seg_by_dir[d]) for d in f.dsegs]) for f in found]
    _, revenues, paid, _ = rule.price(runs)
    return [FoundRoute(f.train, list(f.stops), list(f.dsegs), rev, list(p)) for f, rev, p in zip(found, revenues, paid)]


def _best_run(problem, rule, trains, per_train, limits) -> tuple:
    """The best legal run of ``trains`` (value, FoundRoutes), by branch and bound over their routes."""
    if not trains:
        return 0, []
    seg_of = [int(k) for k in problem.seg_by_dir]
    lists = [[(rev, bits, f, [seg_of[d] for d in f.dsegs]) for rev, bits, f, _ in per_train[t]] for t in trains]
    alone = [lst[0][0] if lst else 0 for lst in lists]
    rest = [sum(alone[i:]) for i in range(len(trains) + 1)]
    alike = [
        i > 0
        and int(problem.group_by_train[trains[i]]) == int(problem.group_by_train[trains[i - 1]])
        and rule.group_by_train[trains[i]] == rule.group_by_train[trains[i - 1]]
        for i in range(len(trains))
    ]
    best = [0, []]
    potential = _Potential(rule, trains)

    def combine(i, used, chosen, floor):
        limits.tick()
        if chosen:
            value, _, _, errors = rule.price([(trains[j], r[2].stops, r[3]) for j, r in chosen])
        else:
            value, errors = 0, []
        if not errors and value > best[0]:
            best[:] = [value, list(chosen)]
        if i == len(trains) or value + min(rest[i], potential.left(chosen, i)) <= best[0]:
            return
        start = floor if alike[i] else 0
        lst = lists[i]
        for k in range(start, len(lst)):
            rev, bits, _, _ = lst[k]
            if value + rev + rest[i + 1] <= best[0]:
                break  # richest first: no later route of this train does better
            if bits & used:
                continue
            chosen.append((i, lst[k]))
            combine(i + 1, used | bits, chosen, k)
            chosen.pop()
        j = i + 1
        while j < len(trains) and alike[j]:
            j += 1
        combine(j, used, chosen, 0)  # train i runs nothing, nor then the trains alike after it

    combine(0, 0, [], 0)
    return best[0], [r[2] for _, r in best[1]]


class _Potential:
    """What the stops not yet paid could add at most: each hex's richest stop (the diesels: all its
    stops) where no route chosen visits the hex, and each mine the longer trains still to place could
    raise (a bound apart from the trains' best routes, tight once the routes cover most stops)."""

    def __init__(self, rule, trains):
        diesel = bool(trains) and bool(rule.diesel_by_train[trains[0]])
        self.rule = rule
        self.by_hex: dict = {}
        self.mines: dict = {}
        for s, h in enumerate(rule.hex_by_stop):
            if diesel:
                self.by_hex[h] = self.by_hex.get(h, 0) + rule.diesel_by_stop[s]
            else:
                self.by_hex[h] = max(self.by_hex.get(h, 0), rule.base_by_stop[s])
                if rule.mine_by_stop[s]:
                    self.mines[h] = max(self.mines.get(h, 0), rule.mine_by_stop[s])
        self.total = sum(self.by_hex.values())
        self.longest = [max((rule.distance_by_train[t] for t in trains[i:]), default=0) for i in range(len(trains) + 1)]
        self.trains = trains

    def left(self, chosen, i) -> int:
        rule = self.rule
        seen: set = set()
        reached: dict = {}
        for j, r in chosen:
            d = rule.distance_by_train[self.trains[j]]
            for s in r[2].stops:
                h = rule.hex_by_stop[s]
                seen.add(h)
                if h in self.mines and d > reached.get(h, 0):
                    reached[h] = d
        out = self.total - sum(self.by_hex[h] for h in seen)
        longest = self.longest[i]
        return out + sum(m * max(0, longest - reached.get(h, 0)) for h, m in self.mines.items())
