"""The reference optimiser: every legal route of every train, every disjoint combination.

Plain and exhaustive, so that it is easy to believe; slow on big boards. It is the oracle the
compiled search is tested against, and its twin: ``OPTIMIZER_CORE=python`` selects it.
"""
from __future__ import annotations

import time

from ..revenue import award_best_route, best_route_awards, price_route, pullman_bonus
from .bounds import company_cap, static_bound
from .result import FoundRoute, SearchResult


class _Stop(Exception):
    pass


def legal_routes(problem, t: int, deadline: float | None = None, counter=None) -> list:
    """Every legal route of train t, each once, as (revenue, resources, FoundRoute, Priced)."""
    n = problem.n_stops
    seg_bits = [int.from_bytes(row.tobytes(), "little") for row in problem.seg_res]
    routes = []
    spec = problem.specs[t]

    def extend(stops, dsegs, used, locs, pen):
        if counter is not None:
            counter[0] += 1
            if deadline is not None and counter[0] % 2048 == 0 and time.monotonic() > deadline:
                raise _Stop
        if dsegs:
            segs = [int(problem.adj_seg[d]) for d in dsegs]
            if (stops[0], segs) <= (stops[-1], segs[::-1]):  # each route once, not once per direction
                if deadline is not None and time.monotonic() > deadline:
                    raise _Stop
                priced = price_route(problem, t, stops, pen)
                if priced.legal:
                    routes.append((priced.revenue, used, FoundRoute(t, list(stops), list(dsegs), priced.revenue,
                                                                    priced.paid), priced))
        v = stops[-1]
        if dsegs and (problem.end_only[v] or problem.adj_to_term[dsegs[-1]]):
            return  # v ends the route
        n_large = sum(1 for s in stops if problem.large[s])
        for d in range(problem.adj_ptr[v], problem.adj_ptr[v + 1]):
            if dsegs and problem.adj_from_term[d]:
                continue
            w = int(problem.adj_to[d])
            k = int(problem.adj_seg[d])
            if problem.loc[w] in locs or seg_bits[k] & used:
                continue
            large = n_large + int(problem.large[w])
            small = len(stops) + 1 - large
            if large > spec.visit_large or small > spec.visit_small or len(stops) + 1 > spec.visit_total:
                continue
            extend(stops + [w], dsegs + [d], used | seg_bits[k], locs | {problem.loc[w]},
                   pen | int(problem.seg_pen[k]))

    for s in range(n):
        extend([s], [], 0, {problem.loc[s]}, 0)
    return routes


def search(problem, deadline_ms: float | None = None, node_budget: int | None = None, **_ignored) -> SearchResult:
    """Best total over all combinations of edge-disjoint legal routes, one (or none) per train."""
    start = time.monotonic()
    deadline = start + deadline_ms / 1000 if deadline_ms is not None else None
    counter = [0]
    per_train = []
    try:
        for t in range(len(problem.trains)):
            routes = legal_routes(problem, t, deadline, counter)
            routes.sort(key=lambda r: -r[0])
            per_train.append(routes)
    except _Stop:
        return SearchResult(0, False, static_bound(problem), [], counter[0], _ms(start), "deadline")

    best = [0, [], 0]
    cap = company_cap(problem)
    best_alone = [max([r[0] for r in rs], default=0) for rs in per_train]
    stopped = None

    def combine(t, used, chosen, total):
        nonlocal stopped
        counter[0] += 1
        if deadline is not None and counter[0] % 2048 == 0 and time.monotonic() > deadline:
            stopped = "deadline"
            raise _Stop
        if t == len(per_train):
            found = [c[2] for c in chosen]
            bonus = pullman_bonus(problem, found) + sum(a for _, a in best_route_awards(problem, [f.stops for f in found]))
            if total + bonus > best[0]:
                best[:] = [total + bonus, list(chosen), bonus]
            return
        if total + sum(max(b, 0) for b in best_alone[t:]) + cap <= best[0]:
            return
        for rev, bits, found, priced in per_train[t]:
            if not bits & used:
                chosen.append((rev, bits, found, priced))
                combine(t + 1, used | bits, chosen, total + rev)
                chosen.pop()
        combine(t + 1, used, chosen, total)

    try:
        combine(0, 0, [], 0)
    except _Stop:
        pass
    routes = [FoundRoute(f.train, list(f.stops), list(f.dsegs), f.revenue, list(f.paid)) for _, _, f, _ in best[1]]
    pullman = pullman_bonus(problem, routes)
    award_best_route(problem, routes)  # each best-route bonus onto the route that earns it
    optimal = stopped is None
    return SearchResult(best[0], optimal, best[0] if optimal else max(best[0], static_bound(problem)), routes,
                        counter[0], _ms(start), stopped, pullman)


def _ms(start: float) -> float:
    return (time.monotonic() - start) * 1000
