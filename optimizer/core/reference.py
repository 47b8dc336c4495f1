"""The reference optimiser: every legal route of every train, every disjoint combination.

Plain and exhaustive, so that it is easy to believe; slow on big boards. It is the oracle the
compiled search is tested against, and its twin: the same signature, the same limits (a node
budget counted exactly, a deadline, a cancel token), the same ``on_improve``.
``OPTIMIZER_CORE=python`` or ``core="python"`` selects it.
"""

from __future__ import annotations

import time
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from ..games.home_route import run_visits_home
from ..games.routes_meet import routes_linked
from ..model import MINES_NONE
from ..revenue import (
    award_best_route,
    best_route_awards,
    gauge_cities,
    once_taken_back,
    paid_once_routes,
    paid_once_run,
    price_route,
    pullman_bonus,
    route_pen_mask,
)
from .bounds import company_cap, static_bound
from .limits import CancelToken
from .paid_once_bound import PaidOnceBound, chooses_stops
from .result import FoundRoute, SearchResult
from .runs import best_runs
from .variants import best_of_variants

NAME = "python"
CHECK_EVERY = 64  # nodes between looks at the clock and the cancel token


class _Stop(Exception):
    """A limit was reached; ``args[0]`` says which (as ``SearchResult.stopped_by``)."""


class _Limits:
    """Counts search nodes, exactly, and stops the search at the first limit reached.

    A node is one step of the search: one partial route extended by a stop (or started), or one
    train's choice considered while combining routes.
    """

    def __init__(self, start: float, deadline_ms, node_budget, cancel):
        self.deadline = start + deadline_ms / 1000 if deadline_ms is not None else None
        self.budget = int(node_budget or 0)
        self.cancel = cancel
        self.nodes = 0

    def tick(self) -> None:
        if self.budget and self.nodes >= self.budget:
            raise _Stop("nodes")
        if self.nodes % CHECK_EVERY == 0:
            if self.cancel is not None and self.cancel.cancelled:
                raise _Stop("cancelled")
            self.clock()
        self.nodes += 1

    def clock(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Stop("deadline")


def _lists(problem, *names) -> SimpleNamespace:
    """Some of a problem's arrays as plain lists (the same values, read faster one at a time)."""
    return SimpleNamespace(**{name: getattr(problem, name).tolist() for name in names})


def legal_routes(problem, t: int, limits: _Limits | None = None) -> list:
    """Every legal route of train t, each once, as (revenue, resources, FoundRoute, Priced)."""
    n = problem.n_stops
    seg_bits = [int.from_bytes(row.tobytes(), "little") for row in problem.track_bits_by_seg]
    routes = []
    spec = problem.specs[t]
    hex_cap = int(problem.hex_cap_by_train[t])  # -1: the train counts stops, not hex edges
    hex_edges = [int(e) for e in problem.hex_edges_by_train_seg[t]] if hex_cap >= 0 else []
    group_shift = 64 * problem.n_track_words * int(problem.track_group_by_train[t])  # its overlap group's track
    no_mines = int(problem.mine_rule_by_train[t]) == MINES_NONE  # (a route with a mine is never legal)
    gauge_ok = int(problem.gauge_ok_by_train[t])  # the track kinds (bit per mix) the train may run

    P = _lists(
        problem,
        "adj_ptr_by_stop",
        "to_stop_by_dir",
        "seg_by_dir",
        "from_terminal_by_dir",
        "loc_by_stop",
        "mine_by_stop",
        "gauge_by_seg",
        "gauge_halves_by_seg",
        "penalty_mask_by_seg",
        "end_only_by_stop",
        "to_terminal_by_dir",
    )  # numpy rows as lists: the walk reads them often
    cost = [problem.counted([s]) for s in range(n)]  # (large, small) a visit to each stop counts
    # a stop the train's route may begin and end at: a route beginning or ending at another is never
    # legal (revenue.visit_errors), so it is not priced, and none is walked from one
    may_end = [not problem.no_end_by_stop[s] or problem.ends_free(t) for s in range(n)]

    def extend(stops, dsegs, used, locs, pen, hexes=0, gauge=0, halves=0, counted=(0, 0)):
        if limits is not None:
            limits.tick()
        if dsegs:
            segs = [int(P.seg_by_dir[d]) for d in dsegs]
            if may_end[stops[-1]] and (stops[0], segs) <= (stops[-1], segs[::-1]):  # each route once
                if limits is not None:
                    limits.clock()
                priced = price_route(problem, t, stops, pen, segs)
                if priced.legal:
                    routes.append(
                        (
                            priced.revenue,
                            used << group_shift,
                            FoundRoute(t, list(stops), list(dsegs), priced.revenue, priced.paid),
                            priced,
                        )
                    )
        v = stops[-1]
        if dsegs and (P.end_only_by_stop[v] or P.to_terminal_by_dir[dsegs[-1]]):
            return  # v ends the route
        n_large, n_small = counted  # (a free stop costs no distance)
        for d in range(P.adj_ptr_by_stop[v], P.adj_ptr_by_stop[v + 1]):
            if dsegs and P.from_terminal_by_dir[d]:
                continue
            w = int(P.to_stop_by_dir[d])
            k = int(P.seg_by_dir[d])
            if P.loc_by_stop[w] in locs or seg_bits[k] & used or (no_mines and P.mine_by_stop[w]):
                continue
            if not gauge_ok >> (gauge | int(P.gauge_by_seg[k])) & 1:
                continue  # a track kind the train may not add (kinds only grow: no extension is legal)
            large, small = n_large + cost[w][0], n_small + cost[w][1]
            if large > spec.visit_large or small > spec.visit_small or large + small > spec.visit_total:
                continue
            if hex_cap >= 0 and hexes + hex_edges[k] > hex_cap:
                continue  # too many hex edges: every longer route too (an edge costs at least 0)
            more = halves + int(P.gauge_halves_by_seg[k])
            extra = gauge_cities(problem, t, more)
            if large + extra > spec.visit_large or large + small + extra > spec.visit_total:
                continue  # gauge changes only grow along the route
            extend(
                stops + [w],
                dsegs + [d],
                used | seg_bits[k],
                locs | {P.loc_by_stop[w]},
                pen | int(P.penalty_mask_by_seg[k]),
                hexes + (hex_edges[k] if hex_cap >= 0 else 0),
                gauge | int(P.gauge_by_seg[k]),
                more,
                (large, small),
            )

    for s in range(n):
        if may_end[s]:
            extend([s], [], 0, {P.loc_by_stop[s]}, 0, 0, counted=cost[s])
        if problem.local_by_train[t] and problem.token_by_stop[s]:  # a local run: the token city alone
            priced = price_route(problem, t, [s])
            if priced.legal:
                routes.append((priced.revenue, 0, FoundRoute(t, [s], [], priced.revenue, priced.paid), priced))
    return routes


def search(
    problem,
    *,
    deadline_ms: float | None = None,
    node_budget: int | None = None,
    cancel: CancelToken | None = None,
    on_improve=None,
) -> SearchResult:
    """Best total over all combinations of edge-disjoint legal routes, one (or none) per train
    (disjoint within each overlap group: ``Problem.track_group_by_train``).

    The limits and ``on_improve`` mean what they mean for :func:`optimizer.core.compiled.search`;
    what ``on_improve`` raises stops the search and is raised.
    """
    if problem.one_extra_large:
        return best_of_variants(
            problem,
            lambda variant, left: search(
                variant, deadline_ms=left, node_budget=node_budget, cancel=cancel, on_improve=on_improve
            ),
            deadline_ms,
        )
    start = time.monotonic()
    limits = _Limits(start, deadline_ms, node_budget, cancel)
    if problem.run_rule is not None:  # a run priced and checked as a whole (Harzbahn 1873)
        return _search_runs(problem, limits, start, on_improve)
    cap = company_cap(problem)  # the Pullman and the best-route bonuses
    per_train: list[list[tuple]] = []
    order: list = []
    paid_bound: Any = None  # a PaidOnceBound where stops pay once a run
    best = [0, [], 0]  # revenue, chosen routes, company-level bonuses

    def combine(t, used, chosen, total, cities=frozenset(), seen=None, ub=0):
        limits.tick()
        if t == len(per_train):
            if order != list(range(len(order))):  # the run is priced in the trains' order
                chosen = sorted(chosen, key=lambda c: c[2].train)
            found = [c[2] for c in chosen]
            if not run_visits_home(problem.home_stop, [f.stops for f in found]):
                return  # a rule on the whole run: some route must visit the home token
            if problem.not_all_trains and len(found) == problem.n_trains:
                return  # a rule on the whole run: not every train runs (civil_war)
            if problem.routes_meet and not routes_linked([f.stops for f in found]):
                return  # another: the routes must all meet
            if problem.paid_once:  # a stop on an earlier route pays nothing: the run's price (routes alone bound it)
                run = paid_once_run(problem, [(c[2].train, c[2].stops, c[3]) for c in chosen])
                found = [replace(c[2], revenue=rev, paid=paid) for c, (rev, paid) in zip(chosen, run)]
                total = sum(rev for rev, _ in run)
            back = once_taken_back(problem, [(f.train, f.paid) for f in found])
            if any(back):  # a bonus paid once across the routes: the later routes give theirs back
                chosen = [(c[0] - b, c[1], replace(c[2], revenue=c[2].revenue - b), c[3]) for c, b in zip(chosen, back)]
                found = [c[2] for c in chosen]
                total -= sum(back)
            bonus = pullman_bonus(problem, found) + sum(
                a
                for _, a in best_route_awards(
                    problem,
                    [f.stops for f in found],
                    [f.train for f in found],
                    [route_pen_mask(problem, f.dsegs) for f in found],
                )
            )
            if total + bonus > best[0]:
                best[:] = [total + bonus, list(chosen), bonus]
                if on_improve is not None:
                    on_improve(_result(problem, best, False, limits, start, None))
            return
        if total + sum(max(b, 0) for b in best_alone[t:]) + cap <= best[0]:
            return
        if problem.paid_once:
            seen = paid_bound.empty() if seen is None else seen
            if ub + paid_bound.rest(t, seen) + cap <= best[0]:
                return  # what the later trains can add where the stops paid already pay them nothing
        later = sum(max(b, 0) for b in best_alone[t + 1 :]) + cap
        for i, route in enumerate(per_train[t]):
            rev, bits, found, priced = route
            if problem.paid_once and ub + rev + later <= best[0]:
                break  # the routes come richest first: no later one does better
            mine = local_cities[found.train](found.stops)
            if not bits & used and not mine & cities:
                more_seen, more_ub = seen, ub + rev
                if problem.paid_once:
                    more_seen, overlap = paid_bound.add(seen, t, i)
                    more_ub -= overlap
                    if more_ub + later <= best[0]:
                        continue  # what this route adds, less the stops the run pays already, is too little
                chosen.append(route)
                combine(t + 1, used | bits, chosen, total + rev, cities | mine, more_seen, more_ub)
                chosen.pop()
        combine(t + 1, used, chosen, total, cities, seen, ub)

    local_cities = [_local_cities(problem, t) for t in range(problem.n_trains)]
    try:
        for t in range(problem.n_trains):
            routes = legal_routes(problem, t, limits)
            routes.sort(key=lambda r: -r[0])
            per_train.append(routes)
        order = list(range(problem.n_trains))
        if problem.paid_once:  # trains paid fixed stops first, richest first: what they pay tightens the rest's bound
            order.sort(key=lambda t: (chooses_stops(problem, t), -max([r[0] for r in per_train[t]], default=0)))
            per_train = [per_train[t] for t in order]
            paid_bound = PaidOnceBound(problem, per_train)
        best_alone = [max([r[0] for r in rs], default=0) for rs in per_train]
        combine(0, 0, [], 0)
    except _Stop as stop:
        return _result(problem, best, False, limits, start, stop.args[0])
    return _result(problem, best, True, limits, start, None)


def _search_runs(problem, limits: _Limits, start: float, on_improve) -> SearchResult:
    """Every legal route of every train; the best run as the run's rule prices and checks it
    (:func:`optimizer.core.runs.best_runs`). A stopped search answers no routes, bounded by every
    train paid every stop (what no run can pass)."""
    try:
        per_train = []
        for t in range(problem.n_trains):
            routes = legal_routes(problem, t, limits)
            routes.sort(key=lambda r: -r[0])
            per_train.append(routes)
        revenue, routes = best_runs(problem, per_train, limits)
    except _Stop as stop:
        values = problem.values_by_train_stop
        bound = int(sum(values[t].clip(min=0).sum() for t in range(problem.n_trains)))
        elapsed = (time.monotonic() - start) * 1000
        return SearchResult(0, False, bound, [], limits.nodes, elapsed, stop.args[0], 0, NAME)
    result = SearchResult(
        revenue, True, revenue, routes, limits.nodes, (time.monotonic() - start) * 1000, None, 0, NAME
    )
    if on_improve is not None:
        on_improve(result)
    return result


def _local_cities(problem, t: int):
    """The cities (or their hexes) a route of train t keeps from the company's other local trains:
    none, unless t is a local train and the rules say so (``Problem.local_cities_once``)."""
    how = problem.local_cities_once
    if not how or not problem.local_by_train[t]:
        return lambda stops: frozenset()
    stops = problem.graph.stops
    return lambda route: frozenset(stops[s].hex if how == "hex" else s for s in route if stops[s].kind == "city")


def _result(problem, best, optimal: bool, limits: _Limits, start: float, stopped_by) -> SearchResult:
    revenue, chosen, _ = best
    bound = revenue if optimal else max(revenue, static_bound(problem))
    routes = [FoundRoute(f.train, list(f.stops), list(f.dsegs), f.revenue, list(f.paid)) for _, _, f, _ in chosen]
    routes = paid_once_routes(problem, routes)  # (train order, as the run is listed)
    pullman = pullman_bonus(problem, routes)
    award_best_route(problem, routes)  # each best-route bonus onto the route that earns it
    return SearchResult(
        revenue, optimal, bound, routes, limits.nodes, (time.monotonic() - start) * 1000, stopped_by, pullman, NAME
    )
