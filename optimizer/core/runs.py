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

from .result import FoundRoute


def best_runs(problem, per_train, limits) -> tuple:
    """The best legal run (value, its FoundRoutes priced within the run) from each train's legal
    routes (``per_train``: the reference's (revenue, track, FoundRoute, Priced), richest first);
    ``limits.tick()`` is called at each node (what it raises stops the search)."""
    rule = problem.run_rule
    found: list = []
    total = 0
    per_train = [[r for r in routes if not rule.route_errors(t, r[2].stops)] for t, routes in enumerate(per_train)]
    for diesel in (False, True):
        trains = [t for t in range(problem.n_trains) if bool(rule.diesel_by_train[t]) == diesel]
        value, chosen = _best_run(problem, rule, trains, per_train, limits)
        total += value
        found += chosen
    return total, _priced(problem, rule, found)


def _priced(problem, rule, found) -> list:
    """The run's routes with the revenue and paid stops each earns within the run (the engine's)."""
    if not found:
        return []
    runs = [(f.train, f.stops, [int(problem.seg_by_dir[d]) for d in f.dsegs]) for f in found]
    _, revenues, paid, _ = rule.price(runs)
    return [FoundRoute(f.train, list(f.stops), list(f.dsegs), rev, list(p)) for f, rev, p in zip(found, revenues, paid)]


def _best_run(problem, rule, trains, per_train, limits) -> tuple:
    """The best legal run of ``trains`` (value, FoundRoutes), by branch and bound over their routes.

    A node adds one route to the run: what it adds is what it pays for hexes no route before it
    visited, and for mines it reaches with a longer train than any before (the rule's price, built
    up route by route). The rules on the whole run (meeting, concessions) are checked where a run
    would be the best so far."""
    if not trains:
        return 0, []
    trains = sorted(trains, key=lambda t: (-rule.distance_by_train[t], rule.group_by_train[t], t))  # longest first
    diesel = bool(rule.diesel_by_train[trains[0]])
    seg_of = [int(k) for k in problem.seg_by_dir]
    lists = []
    for t in trains:
        d = rule.distance_by_train[t]
        lst = []
        for rev, bits, f, _ in per_train[t]:
            pays = tuple(
                (rule.hex_by_stop[s], rule.diesel_by_stop[s] if diesel else rule.base_by_stop[s]) for s in f.stops
            )
            mines = (
                ()
                if diesel
                else tuple((rule.hex_by_stop[s], rule.mine_by_stop[s]) for s in f.stops if rule.mine_by_stop[s])
            )
            hexes = frozenset(h for h, _ in pays)
            lst.append((rev, bits, f, [seg_of[x] for x in f.dsegs], pays, mines, hexes, d))
        lists.append(lst)
    alone = [lst[0][0] if lst else 0 for lst in lists]
    rest = [sum(alone[i:]) for i in range(len(trains) + 1)]
    alike = [
        i > 0
        and int(problem.group_by_train[trains[i]]) == int(problem.group_by_train[trains[i - 1]])
        and rule.group_by_train[trains[i]] == rule.group_by_train[trains[i - 1]]
        for i in range(len(trains))
    ]
    skip = []  # the next train not alike train i (train i running nothing, those alike after it run nothing)
    for i in range(len(trains)):
        j = i + 1
        while j < len(trains) and alike[j]:
            j += 1
        skip.append(j)
    best: list = [0, []]
    pot = _Potential(rule, trains)
    # a run with a route must run every concession: the concession routes still to be had, per level
    needed = frozenset(range(len(rule.concessions)))
    conc = [[rule.concessions_run(route[3]) for route in lst] for lst in lists]
    offers = [
        [(c, route[1]) for j in range(i, len(trains)) for route, cs in zip(lists[j], conc[j]) for c in cs]
        for i in range(len(trains) + 1)
    ]

    def can_complete(i, used, chosen) -> bool:
        if not needed or not chosen:
            return True
        have: set = set()
        for j, _, k in chosen:
            have |= conc[j][k]
        return all(any(c == m and not bits & used for c, bits in offers[i]) for m in needed - have)

    def gain(route, seen, reached) -> int:
        _, _, _, _, pays, mines, _, d = route
        out = 0
        for h, v in pays:
            if v and h not in seen:
                out += v
        for h, m in mines:
            r = reached.get(h, 0)
            if d > r:
                out += m * (d - r)
        return out

    def combine(i, used, chosen, value, seen, reached, left_base):
        limits.tick()
        if not can_complete(i, used, chosen):
            return  # no run from here runs the concession routes (#concession_route_run?)
        if value > best[0] and not rule.run_errors([(trains[j], r[2].stops, r[3]) for j, r, _ in chosen]):
            best[:] = [value, list(chosen)]
        if i == len(trains):
            return
        left = left_base + pot.mines_left(reached, i)
        if value + min(rest[i], left) <= best[0]:
            return
        floor = chosen[-1][2] if alike[i] and chosen and chosen[-1][0] == i - 1 else 0
        lst = lists[i]
        for k in range(floor, len(lst)):
            route = lst[k]
            if value + route[0] + rest[i + 1] <= best[0]:
                break  # richest first: no later route of this train does better
            if route[1] & used:
                continue
            g = gain(route, seen, reached)
            if value + g + min(rest[i + 1], left - g) <= best[0]:
                continue
            new_seen = seen | route[6]
            new_reached = reached
            if route[5]:
                new_reached = dict(reached)
                for h, _ in route[5]:
                    if route[7] > new_reached.get(h, 0):
                        new_reached[h] = route[7]
            chosen.append((i, route, k))
            combine(
                i + 1,
                used | route[1],
                chosen,
                value + g,
                new_seen,
                new_reached,
                left_base - sum(pot.by_hex[h] for h in route[6] - seen),
            )
            chosen.pop()
        combine(skip[i], used, chosen, value, seen, reached, left_base)

    combine(0, 0, [], 0, frozenset(), {}, pot.total)
    return best[0], [r[2] for _, r, _ in best[1]]


class _Potential:
    """What the stops not yet paid could add at most: each hex's richest stop (the diesels: all its
    stops) where no route chosen visits the hex, and each mine the longer trains still to place could
    raise (a bound apart from the trains' best routes, tight once the routes cover most stops)."""

    def __init__(self, rule, trains):
        diesel = bool(trains) and bool(rule.diesel_by_train[trains[0]])
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

    def mines_left(self, reached, i) -> int:
        longest = self.longest[i]
        return sum(m * (longest - reached.get(h, 0)) for h, m in self.mines.items() if longest > reached.get(h, 0))
