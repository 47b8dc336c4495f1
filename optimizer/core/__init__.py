"""The search core: the compiled branch and bound, or its pure-Python twin.

``OPTIMIZER_CORE=python`` selects the reference optimiser (exhaustive, slow, obviously right);
the default is the compiled search. Both take a :class:`~optimizer.graph.problem.Problem` and
return a :class:`~optimizer.core.result.SearchResult`.
"""
from __future__ import annotations

import os

from . import reference
from .limits import CancelToken
from .result import FoundRoute, SearchResult

IMPLEMENTATIONS = ("compiled", "python")


def implementation() -> str:
    name = os.environ.get("OPTIMIZER_CORE", "compiled").strip().lower() or "compiled"
    if name not in IMPLEMENTATIONS:
        raise ValueError(f"OPTIMIZER_CORE must be one of {', '.join(IMPLEMENTATIONS)}, not {name!r}")
    return name


def search(problem, deadline_ms=None, node_budget=None, cancel=None, on_improve=None, core=None) -> SearchResult:
    """Run the selected search (``core`` overrides the environment)."""
    if (core or implementation()) == "python":
        return reference.search(problem, deadline_ms=deadline_ms, node_budget=node_budget)
    from . import compiled
    return compiled.search(problem, deadline_ms=deadline_ms, node_budget=node_budget, cancel=cancel,
                           on_improve=on_improve)


__all__ = ["CancelToken", "FoundRoute", "SearchResult", "search", "implementation"]
