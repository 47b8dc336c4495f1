"""Python side of the compiled search: prepare its input, run it, read back the routes."""

from __future__ import annotations

import time

from ..revenue import award_best_route, pullman_bonus
from .contract import REACH_FROM, KernelResult, prepare
from .limits import STOPPED_BY, CancelToken
from .result import FoundRoute, SearchResult

NAME = "compiled"
STRATEGIES = ("auto", "nested", "packing")
PACKING_FROM = 3  # trains: from this many, ``auto`` lists and packs routes
MAX_LARGEST_BONUSES = 4  # _search.pyx's MAX_FORCED: an express prices at most this many exactly
MAX_INTERESTING = 12  # _search.pyx's: bonus stops an express tries in and out of its paid stops


def _kernel():
    try:
        from . import _search  # type: ignore[attr-defined]  # Cython: no .pyi for mypy to read yet
    except ImportError:  # a source tree without the built extension shadows the installed package
        raise ImportError(
            "the compiled search core is not built here: run `pip install -e .` in the project "
            "(or run from outside the source tree, or set OPTIMIZER_CORE=python)"
        ) from None
    return _search


def kernel_for(problem, strategy: str = "auto"):
    """The kernel to run: the nested search, or route listing plus packing (``_packing``) for
    three trains or more, where conflicts between them are what the search spends its time on
    (with two, pricing the track costs about what it saves: docs/benchmarks.md)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}")
    if strategy == "nested" or (strategy == "auto" and len(problem.trains) < PACKING_FROM):
        return None
    from . import _packing  # type: ignore[attr-defined]  # Cython: no .pyi for mypy to read yet

    return _packing.KERNEL


def search(
    problem,
    *,
    deadline_ms: float | None = None,
    node_budget: int | None = None,
    cancel: CancelToken | None = None,
    on_improve=None,
    reach_from: int = REACH_FROM,
    strategy: str = "auto",
) -> SearchResult:
    """Best routes for the company's trains, by the compiled branch and bound.

    Parameters
    ----------
    problem : Problem
        From :func:`optimizer.graph.problem.build_problem`.
    deadline_ms : float, optional
        Stop after this long and return the best so far with ``optimal=False``.
    node_budget : int, optional
        Stop after exactly this many search nodes.
    cancel : CancelToken, optional
        Stops the search when cancelled from another thread.
    on_improve : callable, optional
        Called as ``on_improve(result)`` (a provisional :class:`SearchResult`) at each better
        solution, from the searching thread; what it raises stops the search and is raised.
    reach_from : int, optional
        Bound a train by the stops it can still reach over free track while it may count at least
        this many more (0 turns that bound off); the cheaper prefix-sum bound is used always.
    strategy : str, optional
        ``nested``, ``packing`` or ``auto`` (see :func:`kernel_for`); all give the same optimum.
        Node budgets are exact for the nested search, which ``auto`` picks when given one.
    """
    kernel = kernel_for(problem, "nested" if strategy == "auto" and node_budget else strategy)
    start = time.monotonic()
    ki = prepare(problem, reach_from)
    if beyond_express_pricing(ki):
        # More bonuses than the kernel's express pricing tries at once (no real board comes near):
        # the reference answers, exactly, and says so in ``core``.
        from . import reference

        return reference.search(
            problem, deadline_ms=deadline_ms, node_budget=node_budget, cancel=cancel, on_improve=on_improve
        )
    compiled_kernel = _kernel()
    order = ki.train_by_level[: ki.n_trains]
    deadline = start + deadline_ms / 1000.0 if deadline_ms is not None else 0.0

    callback = None
    if on_improve is not None:

        def callback(value, stops, segs, revenues, paid, bound, nodes):
            found = _routes(problem, order, stops, segs, revenues, paid)
            pull = pullman_bonus(problem, found)
            award_best_route(problem, found)  # each best-route bonus onto the route that earns it
            revenue = sum(r.revenue for r in found)
            on_improve(
                SearchResult(
                    revenue + pull,
                    False,
                    max(revenue + pull, int(bound)),
                    found,
                    int(nodes),
                    _ms(start),
                    None,
                    pull,
                    NAME,
                )
            )

    out: KernelResult = compiled_kernel.search(
        ki, float(deadline), int(node_budget or 0), cancel.flag if cancel is not None else None, callback, kernel
    )
    routes = _routes(problem, order, out.stops_by_level, out.segs_by_level, out.revenue_by_level, out.paid_by_level)
    pull = pullman_bonus(problem, routes)
    award_best_route(problem, routes)  # each best-route bonus onto the route that earns it
    revenue = sum(r.revenue for r in routes) + pull
    stopped = STOPPED_BY[out.stop_code]
    return SearchResult(
        revenue,
        stopped is None,
        _bound(ki, out, revenue) if stopped else revenue,
        routes,
        int(out.nodes),
        _ms(start),
        stopped,
        pull,
        NAME,
    )


def beyond_express_pricing(ki) -> bool:
    """An express train on a board with more largest-stop bonuses (MAX_LARGEST_BONUSES) or more
    stops that bonuses depend on (MAX_INTERESTING) than the kernel prices exactly: the public
    corpus has at most 2 and 3."""
    if ki.pays_all_by_train[: ki.n_trains].all():
        return False
    return ki.n_largest > MAX_LARGEST_BONUSES or int(ki.interesting_by_stop[: ki.n_stops].sum()) > MAX_INTERESTING


def _bound(ki, out: KernelResult, revenue: int) -> int:
    """The best bound a stopped search has proven."""
    static = int(ki.bound_by_level[: ki.n_trains].sum()) + ki.pullman_cap
    return max(min(int(out.bound), static), revenue)


def _ms(start: float) -> float:
    return (time.monotonic() - start) * 1000


def _routes(problem, order, stops_by_level, segs_by_level, revenue_by_level, paid_by_level) -> list:
    routes = []
    for level, stops in enumerate(stops_by_level):
        if len(stops) < 2:
            continue
        paid = set(paid_by_level[level])
        routes.append(
            FoundRoute(
                int(order[level]),
                stops,
                _directed(problem, stops, segs_by_level[level]),
                int(revenue_by_level[level]),
                [s for s in stops if s in paid],
            )
        )
    return routes


def _directed(problem, stops, segs) -> list:
    out = []
    for a, k in zip(stops, segs):
        for d in range(problem.adj_ptr[a], problem.adj_ptr[a + 1]):
            if problem.adj_seg[d] == k:
                out.append(d)
                break
    return out
