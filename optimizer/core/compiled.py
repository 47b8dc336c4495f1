"""Python side of the compiled search: derive its arrays, run it, read back the routes."""
from __future__ import annotations

import time

import numpy as np

from ..revenue import award_best_route, pullman_bonus
from .bounds import company_cap, max_route_bonus, static_bound, train_bound
from .result import FoundRoute, SearchResult

STOPPED_BY = {0: None, 1: "deadline", 2: "nodes", 3: "cancelled"}


class CancelToken:
    """Set from any thread to stop a running search; it returns its best so far."""

    def __init__(self):
        self.flag = np.zeros(1, dtype=np.uint8)

    def cancel(self) -> None:
        self.flag[0] = 1

    @property
    def cancelled(self) -> bool:
        return bool(self.flag[0])


def _prefix_sums(values: np.ndarray, large: np.ndarray) -> np.ndarray:
    """Per train: prefix sums of the best positive values, large / small / all."""
    n = len(large)
    out = np.zeros((values.shape[0], 3, n + 1), dtype=np.int64)
    for t in range(values.shape[0]):
        for which, mask in enumerate((large == 1, large == 0, np.ones(n, dtype=bool))):
            v = np.sort(values[t][mask & (values[t] > 0)])[::-1]
            sums = np.concatenate([[0], np.cumsum(v, dtype=np.int64)])
            out[t, which, :len(sums)] = sums
            out[t, which, len(sums):] = sums[-1]
    return out


def train_order(problem, bounds) -> np.ndarray:
    """Strongest trains first, identical trains side by side."""
    return np.array(sorted(range(len(bounds)), key=lambda t: (-bounds[t], int(problem.group[t]), t)), dtype=np.int32)


REACH_FROM = 3  # bound a train by the stops it can still reach while it may count this many more


STRATEGIES = ("auto", "nested", "packing")
PACKING_FROM = 3  # trains: from this many, ``auto`` lists and packs routes


def kernel_for(problem, strategy: str = "auto"):
    """The kernel to run: the nested search, or route listing plus packing (``_packing``) for
    three trains or more, where conflicts between them are what the search spends its time on
    (with two, pricing the track costs about what it saves: docs/benchmarks.md)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}")
    if strategy == "nested" or (strategy == "auto" and len(problem.trains) < PACKING_FROM):
        return None
    from . import _packing
    return _packing.KERNEL


def search(problem, deadline_ms: float | None = None, node_budget: int | None = None,
           cancel: CancelToken | None = None, on_improve=None, reach_from: int = REACH_FROM,
           strategy: str = "auto") -> SearchResult:
    """Best routes for the company's trains, by the compiled branch and bound.

    Parameters
    ----------
    problem : Problem
        From :func:`optimizer.graph.problem.build_problem`.
    deadline_ms : float, optional
        Stop after this long and return the best so far with ``optimal=False``.
    node_budget : int, optional
        Stop after this many search nodes.
    cancel : CancelToken, optional
        Stops the search when cancelled from another thread.
    on_improve : callable, optional
        Called as ``on_improve(result)`` (a provisional :class:`SearchResult`) at each better
        solution, from the searching thread.
    reach_from : int, optional
        Bound a train by the stops it can still reach over free track while it may count at least
        this many more (0 turns that bound off); the cheaper prefix-sum bound is used always.
    strategy : str, optional
        ``nested``, ``packing`` or ``auto`` (see :func:`kernel_for`); all give the same optimum.
    """
    kernel = kernel_for(problem, strategy)
    start = time.monotonic()
    n = problem.n_stops
    K = len(problem.trains)
    bounds = [train_bound(problem, t) for t in range(K)]
    order = train_order(problem, bounds)
    opt_alone = np.array([bounds[t] for t in order], dtype=np.int64)
    pref = _prefix_sums(problem.values, problem.large).reshape(-1) if K else np.zeros(1, dtype=np.int64)
    max_bonus = np.array([max_route_bonus(problem, t) for t in range(K)], dtype=np.int64)
    pays_all = np.array([s.pays_all for s in problem.specs], dtype=np.uint8)
    interesting = np.zeros(n, dtype=np.uint8)
    paid_pairs = problem.pair_visited == 0  # a pair on visited stops does not depend on what is paid
    interesting[problem.pair_a[paid_pairs]] = 1
    interesting[problem.pair_b[paid_pairs]] = 1
    interesting[problem.largest_trigger] = 1
    best = problem.values.max(axis=0) if K else np.zeros(n, dtype=np.int32)
    anchors = np.array(sorted(np.flatnonzero(problem.token), key=lambda s: (-int(best[s]), s)), dtype=np.int32)
    rank = np.full(n, -1, dtype=np.int32)
    rank[anchors] = np.arange(len(anchors), dtype=np.int32)
    token = cancel or CancelToken()
    deadline = start + deadline_ms / 1000.0 if deadline_ms is not None else 0.0

    callback = None
    if on_improve is not None:
        def callback(value, lists, bound, nodes):
            found = _routes(problem, order, *lists)
            pull = pullman_bonus(problem, found)
            award_best_route(problem, found)
            revenue = sum(r.revenue for r in found)
            on_improve(SearchResult(revenue + pull, False, max(revenue + pull, int(bound)), found, int(nodes),
                                    (time.monotonic() - start) * 1000, None, pull))

    try:
        from . import _search
    except ImportError:  # a source tree without the built extension shadows the installed package
        raise ImportError("the compiled search core is not built here: run `pip install -e .` in the project "
                          "(or run from outside the source tree, or set OPTIMIZER_CORE=python)") from None
    (code, best_value, best_len, best_stops, best_segs, best_rev, best_paid, opt_alone_out, suffix, nodes,
     stage, proven) = _search.search_arrays(
        problem, order, opt_alone, pref, max_bonus, pays_all, interesting, anchors, rank,
        float(company_cap(problem)), float(deadline), int(node_budget or 0), token.flag, callback, int(reach_from),
        kernel)
    routes = _routes(problem, order, best_stops, best_segs, best_rev, best_paid)
    pull = pullman_bonus(problem, routes)
    award_best_route(problem, routes)  # each best-route bonus onto the route that earns it
    revenue = sum(r.revenue for r in routes) + pull
    stopped = STOPPED_BY.get(code)
    if stopped is None:
        bound = revenue
    else:
        bound = max(min(int(proven), static_bound(problem)), revenue)
    return SearchResult(revenue, stopped is None, bound, routes, int(nodes), (time.monotonic() - start) * 1000,
                        stopped, pull)


def _routes(problem, order, best_stops, best_segs, best_rev, best_paid) -> list:
    routes = []
    for level, stops in enumerate(best_stops):
        if len(stops) < 2:
            continue
        stops = [int(s) for s in stops]
        segs = [int(s) for s in best_segs[level]]
        paid = set(int(s) for s in best_paid[level])
        routes.append(FoundRoute(int(order[level]), stops, _directed(problem, stops, segs), int(best_rev[level]),
                                 [s for s in stops if s in paid]))
    return routes


def _directed(problem, stops, segs) -> list:
    out = []
    for a, k in zip(stops, segs):
        for d in range(problem.adj_ptr[a], problem.adj_ptr[a + 1]):
            if problem.adj_seg[d] == k:
                out.append(d)
                break
    return out


