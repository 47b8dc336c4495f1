"""Python side of the compiled search: prepare its input, run it, read back the routes."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ..games.home_route import NO_HOME_RULE, run_visits_home
from ..games.routes_meet import routes_linked
from ..revenue import award_best_route, paid_once_routes, pullman_bonus, stop_groups
from .bounds import (
    company_cap,
    crow_bound,
    end_bonus_bound,
    free_stops_bound,
    n_set_pair_largest,
    pairs_bound,
    stop_bonus_bound,
    track_bonus_bound,
)
from .contract import REACH_FROM, KernelInput, KernelResult
from .limits import CancelToken
from .result import FoundRoute, SearchResult
from .variants import best_of_variants

NAME = "compiled"
STRATEGIES = ("auto", "nested", "packing")
PACKING_FROM = 3  # trains: from this many, ``auto`` lists and packs routes


def _kernel():
    """The compiled search (``_search``), imported when first needed."""
    try:
        from . import _search
    except ImportError:  # a source tree without the built extension shadows the installed package
        raise ImportError(
            "the compiled search core is not built here: run `pip install -e .` in the project "
            "(or run from outside the source tree, or set OPTIMIZER_CORE=python)"
        ) from None
    return _search


def _input():
    """The compiled input checks and derivation (``_input``), beside the search."""
    _kernel()  # the same error when the extensions are not built
    from . import _input

    return _input


def kernel_for(problem, strategy: str = "auto", packing: dict | None = None):
    """The kernel to run: the nested search, or route listing plus packing (``_packing``) for
    three trains or more, where conflicts between them are what the search spends its time on
    (with two, pricing the track costs about what it saves: docs/benchmarks.md), unless packing
    declines the problem (:func:`packing_declines`: the nested search runs it). ``packing``:
    settings of the packing kernel for this search (experiments and tests; see
    ``_packing.Packing``)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}")
    if strategy == "nested" or (strategy == "auto" and problem.n_trains < PACKING_FROM):
        return None
    if packing_declines(problem):
        return None
    from . import _packing

    return _packing.Packing(**packing) if packing else _packing.KERNEL


def packing_declines(problem) -> bool:
    """The packing kernel cannot honour the problem, so the nested search runs it: trains in
    several overlap groups (its listed routes keep one track bitset each, packed as disjoint), or a
    train whose routes must end at token cities (it drops a route that earns no more than the route
    one segment shorter, which such a train may not run); gauge changes counted as cities (1848) or
    towns at the ends counted against the cities (18MT), which its listing does not count; a set pair
    paying the richest paid stop again (18Neb) or a bonus per stop for the route's track (1844), which
    its listing does not price; stops paid once a run (``Problem.paid_once``); a run that may not use
    every train (civil_war), a rule on the whole run its packing does not keep, or a bonus a location
    pays once across the routes (connection_bonuses), which its listed routes each hold."""
    if n_set_pair_largest(problem) or problem.stop_bonus_amount:
        return True
    if problem.n_track_groups > 1 or bool(problem.token_ends_by_train[: problem.n_trains].any()):
        return True
    if problem.paid_once:  # a route's price depends on the routes placed before it (its listing prices each alone)
        return True
    if problem.not_all_trains or (problem.once_amount and bool(np.any(problem.once_bits_by_stop))):
        return True  # a rule on the whole run (civil_war) or a bonus once across the routes (connection_bonuses)
    if np.any(problem.gauge_halves_by_seg):
        return True
    return any(int(problem.end_cap_by_train[t]) < int(problem.caps_by_train[t][0]) + 2 for t in range(problem.n_trains))


def prepare(problem, reach_from: int = REACH_FROM) -> KernelInput:
    """What the kernel derives from a :class:`~optimizer.graph.problem.Problem` before it runs.

    The kernel checks the problem's arrays and these before it reads any (``ValueError`` naming
    the array when one is malformed, e.g. a Problem whose ``to_stop_by_dir`` points past the last
    stop)."""
    n = problem.n_stops
    fixed_bonus = pairs_bound(problem) + problem.r2r_per_token * problem.r2r_max_tokens + track_bonus_bound(problem)
    fixed_bonus += crow_bound(problem)  # (the widest of any train's: one bound for every train)
    fixed_bonus += max([stop_bonus_bound(problem, t) for t in range(problem.n_trains)], default=0)  # 1844's narrow
    fixed_bonus += max([free_stops_bound(problem, t) for t in range(problem.n_trains)], default=0)
    fixed_bonus += end_bonus_bound(problem)
    max_bonus, prefix, bound, order, anchors, n_anchors, rank = _input().derive(
        problem.values_by_train_stop,
        problem.large_by_stop,
        problem.token_by_stop,
        problem.caps_by_train,
        problem.multiplier_by_train,
        problem.group_by_train,
        problem.requires_token_by_train,
        fixed_bonus,
        problem.n_largest + n_set_pair_largest(problem),  # each pays at most the best value, as a largest-stop bonus
    )
    # the stops bonuses depend on being paid: ends of pairs that count paid stops, largest-stop triggers
    interesting = np.zeros(n, dtype=np.uint8)
    n_pairs = problem.n_pairs
    if n_pairs:
        paid_only = np.asarray(problem.visited_by_pair)[:n_pairs] == 0
        for idx in (problem.stop_a_by_pair, problem.stop_b_by_pair):
            idx = np.asarray(idx, dtype=np.int64)[:n_pairs]
            if len(idx) == n_pairs and len(paid_only) == n_pairs:  # (lengths that differ are refused by the kernel)
                idx = idx[paid_only]
            interesting[idx[(idx >= 0) & (idx < n)]] = 1  # so are indexes out of range, by name
    if problem.n_largest:
        idx = np.asarray(problem.trigger_by_largest, dtype=np.int64)[: problem.n_largest]
        interesting[idx[(idx >= 0) & (idx < n)]] = 1
    # and the stops of the sets of set pairs that count paid stops
    paid_sets = 0
    for k in range(problem.n_set_pairs):
        if k < len(problem.visited_by_set_pair) and not problem.visited_by_set_pair[k]:
            paid_sets |= 3 << (2 * k)
    if paid_sets and len(problem.sets_by_stop) == n:
        interesting[(np.asarray(problem.sets_by_stop, dtype=np.int64) & paid_sets) != 0] = 1
    return KernelInput(
        problem=problem,
        interesting_by_stop=interesting,
        max_bonus_by_train=max_bonus,
        prefix_by_train_class_count=prefix,
        anchor_by_train_rank=anchors,
        n_anchors_by_train=n_anchors,
        rank_by_train_stop=rank,
        train_by_level=order,
        bound_by_level=bound[order],
        pullman_cap=company_cap(problem),
        reach_from=int(reach_from),
    )


def search(
    problem,
    *,
    deadline_ms: float | None = None,
    node_budget: int | None = None,
    cancel: CancelToken | None = None,
    on_improve=None,
    reach_from: int = REACH_FROM,
    strategy: str = "auto",
    packing: dict | None = None,
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
    packing : dict, optional
        Settings of the packing kernel for this search only (experiments and tests): the keyword
        arguments of ``_packing.Packing``, the others at their defaults.
    """
    if problem.one_extra_large:
        return best_of_variants(
            problem,
            lambda variant, left: search(
                variant,
                deadline_ms=left,
                node_budget=node_budget,
                cancel=cancel,
                on_improve=on_improve,
                reach_from=reach_from,
                strategy=strategy,
                packing=packing,
            ),
            deadline_ms,
        )
    if problem.home_stop != NO_HOME_RULE or problem.routes_meet:
        return _search_home_route(
            problem,
            deadline_ms,
            node_budget,
            cancel,
            on_improve,
            reach_from=reach_from,
            strategy=strategy,
            packing=packing,
        )
    start = time.monotonic()
    compiled_kernel = _kernel()
    kernel, ki, beyond = _plan(
        problem, "nested" if strategy == "auto" and node_budget else strategy, packing, reach_from
    )
    if beyond:
        # More bonuses than the kernel keeps or prices at once (no real board comes near): the
        # reference answers, exactly, and says so in ``core``.
        from . import reference

        return reference.search(
            problem, deadline_ms=deadline_ms, node_budget=node_budget, cancel=cancel, on_improve=on_improve
        )
    order = ki.train_by_level
    deadline = start + deadline_ms / 1000.0 if deadline_ms is not None else 0.0

    callback = None
    if on_improve is not None:

        def callback(value, stops, segs, revenues, paid, bound, nodes):
            found = paid_once_routes(problem, _routes(problem, order, stops, segs, revenues, paid))
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
    routes = paid_once_routes(problem, routes)
    pull = pullman_bonus(problem, routes)
    award_best_route(problem, routes)  # each best-route bonus onto the route that earns it
    revenue = sum(r.revenue for r in routes) + pull
    stopped = compiled_kernel.STOPPED_BY[out.stop_code]
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


def _plan(problem, strategy: str, packing: dict | None, reach_from: int) -> tuple:
    """(kernel, KernelInput, beyond the kernel) for the problem run this way. A problem shared
    read-only (``Problem.kernel_plans`` not None: the API's cached problems, which answer the same
    board again) keeps them, derived once; the kernel still checks every array it borrows, each run."""
    plans = problem.kernel_plans if packing is None else None
    key = (strategy, reach_from)
    found = plans.get(key) if plans is not None else None
    if found is None:
        kernel = kernel_for(problem, strategy, packing)
        ki = prepare(problem, reach_from)
        found = (kernel, ki, beyond_the_kernel(_kernel(), ki))
        if plans is not None:
            plans[key] = found
    return found


def _search_home_route(problem, deadline_ms, node_budget, cancel, on_improve, **how) -> SearchResult:
    """A run some route of which must visit the home token (``Problem.home_stop``: a rule on the whole
    run, optimizer/games/home_route.py), or whose routes must all meet (``Problem.routes_meet``,
    optimizer/games/routes_meet.py). The kernels know no such rule, but each only takes runs away:
    their optimum, where it keeps the rules, is the rules' optimum too. Otherwise the reference
    answers, keeping only the runs that keep them (what it answers says so in ``core``)."""
    from . import reference

    start = time.monotonic()
    if reference_rules(problem):  # the free problem would go to the reference too: once is enough
        return reference.search(
            problem, deadline_ms=deadline_ms, node_budget=node_budget, cancel=cancel, on_improve=on_improve
        )
    free = replace(problem, home_stop=NO_HOME_RULE, routes_meet=0)
    found = search(free, deadline_ms=deadline_ms, node_budget=node_budget, cancel=cancel, **how)
    stops = [r.stops for r in found.routes]
    if (
        found.optimal
        and run_visits_home(problem.home_stop, stops)
        and (not problem.routes_meet or routes_linked(stops))
    ):
        if on_improve is not None:
            on_improve(found)
        return found
    left = None if deadline_ms is None else max(0.0, deadline_ms - _ms(start))
    return reference.search(problem, deadline_ms=left, node_budget=node_budget, cancel=cancel, on_improve=on_improve)


def beyond_the_kernel(kernel, ki: KernelInput) -> bool:
    """More best-route bonuses than the kernel keeps per level (``MAX_BEST_ROUTE``), two local trains
    that may not share a city (``Problem.local_cities_once``: a rule across routes), a bonus once across
    the routes (``Problem.once_amount``) beside an express train, or an express
    train on a board with more largest-stop bonuses (``MAX_FORCED``) or more stops that bonuses
    depend on (``MAX_INTERESTING``) than the kernel prices exactly: the public corpus has at most
    1, 2 and 3; or rules only the reference prices (:func:`reference_rules`)."""
    problem = ki.problem
    if reference_rules(problem):
        return True
    if problem.run_rule is not None:
        return True  # a run priced and checked as a whole (Harzbahn 1873's mining_runs): the reference searches it (core/runs.py)
    if problem.n_best_route > kernel.MAX_BEST_ROUTE:
        return True
    if problem.local_cities_once and int(problem.local_by_train[: problem.n_trains].sum()) >= 2:
        return True  # two local trains that may not share a city (1822): no recorded game has them
    if problem.once_amount and problem.n_trains >= 2 and not problem.pays_all_by_train[: problem.n_trains].all():
        return True  # a bonus once across the routes with an express train: the kernel takes it back of trains
        #   that pay every stop they visit (18NY's 5DE runs alone in every recorded game)
    if problem.pays_all_by_train[: problem.n_trains].all():
        return False
    return problem.n_largest > kernel.MAX_FORCED or int(ki.interesting_by_stop.sum()) > kernel.MAX_INTERESTING


def reference_rules(problem) -> bool:
    """Rules only the reference prices: stops paid once at values that differ by train (the order of
    the trains matters), by trains choosing their paid stops across the run, or with groups; a freight
    train paid by its ends and their crow-flight distance (games/freight.py); ends that may not share a
    colour; variable cities and commodities (games/variable_cities.py, games/commodities.py)."""
    if problem.paid_once and (
        bool(np.any(problem.values_by_train_stop != problem.values_by_train_stop[:1]))
        or not problem.pays_all_by_train[: problem.n_trains].all()
        or any(stop_groups(problem, s) for s in range(problem.n_stops))
    ):
        return True
    if len(problem.variable_by_stop) or problem.goods_terms:
        return True  # 18 India's variable cities and commodities: priced where a route is priced
    return any(f is not None for f in problem.freight_by_train) or bool(problem.unlike_end_colours)


def _bound(ki: KernelInput, out: KernelResult, revenue: int) -> int:
    """The best bound a stopped search has proven."""
    static = int(ki.bound_by_level.sum()) + ki.pullman_cap
    return max(min(int(out.bound), static), revenue)


def _ms(start: float) -> float:
    return (time.monotonic() - start) * 1000


def _routes(problem, order, stops_by_level, segs_by_level, revenue_by_level, paid_by_level) -> list:
    routes = []
    for level, stops in enumerate(stops_by_level):
        if not stops:  # runs nothing (one stop is a local run)
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
        for d in range(problem.adj_ptr_by_stop[a], problem.adj_ptr_by_stop[a + 1]):
            if problem.seg_by_dir[d] == k:
                out.append(d)
                break
    return out
