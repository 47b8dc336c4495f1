"""A rule on the whole run that both searches keep the same way: the best of several problems.

``Problem.one_extra_large`` (18ZOO's A_TIP_OF_SUGAR serving two trains: one of them, at most, counts
one more large stop in a run) is kept by searching each of
:func:`optimizer.graph.problem.one_extra_variants` and answering the best: every legal run is legal in
one of them, and every run legal in one of them is legal.
"""

from __future__ import annotations

import time

from ..graph.problem import one_extra_variants
from .result import SearchResult


def best_of_variants(problem, search_one, deadline_ms) -> SearchResult:
    """``search_one(variant, deadline_ms_left)`` on each variant; the best answer, optimal when every
    search was, its bound the highest of theirs, its nodes and time the sum."""
    start = time.monotonic()
    best = None
    nodes = 0
    bound = 0
    optimal = True
    stopped = None
    for variant in one_extra_variants(problem):
        left = None if deadline_ms is None else max(0.0, deadline_ms - (time.monotonic() - start) * 1000)
        found = search_one(variant, left)
        nodes += found.nodes
        bound = max(bound, found.bound)
        optimal = optimal and found.optimal
        stopped = stopped or found.stopped_by
        if best is None or found.revenue > best.revenue:
            best = found
    if best is None:  # (no variant: a problem without the rule is searched as it is)
        raise ValueError("one_extra_large names no train")
    best.optimal = optimal
    best.bound = best.revenue if optimal else max(bound, best.revenue)
    best.nodes = nodes
    best.elapsed_ms = (time.monotonic() - start) * 1000
    best.stopped_by = None if optimal else stopped
    return best
