"""The search core: the compiled branch and bound, or its pure-Python twin.

Both are a :class:`Search` (one signature, the same limits, the same ``on_improve``) and return a
:class:`~optimizer.core.result.SearchResult` that names the core that ran. Which one runs by
default is chosen once, at import, from ``OPTIMIZER_CORE`` (``compiled``, the default, or
``python``, the slow reference); ``core=`` chooses per call.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Protocol

from ..errors import OptimizerError
from . import compiled, reference
from .limits import CancelToken
from .result import FoundRoute, SearchResult


class Search(Protocol):
    """What both searches are."""

    def __call__(
        self,
        problem,
        *,
        deadline_ms: float | None = None,
        node_budget: int | None = None,
        cancel: CancelToken | None = None,
        on_improve: Callable[[SearchResult], None] | None = None,
    ) -> SearchResult: ...


SEARCHES: dict[str, Search] = {compiled.NAME: compiled.search, reference.NAME: reference.search}
IMPLEMENTATIONS = tuple(SEARCHES)

DEFAULT = os.environ.get("OPTIMIZER_CORE", "").strip().lower() or compiled.NAME  # refused at use if unknown


def implementation(core: str | None = None) -> str:
    """The name of the search that ``core`` (or, when None, ``OPTIMIZER_CORE``) selects."""
    name = core or DEFAULT
    if name not in SEARCHES:
        where = "core" if core else "OPTIMIZER_CORE"
        raise OptimizerError(f"{where} must be one of {', '.join(IMPLEMENTATIONS)}, not {name!r}", field=where)
    return name


def search(
    problem,
    *,
    deadline_ms: float | None = None,
    node_budget: int | None = None,
    cancel: CancelToken | None = None,
    on_improve=None,
    core: str | None = None,
) -> SearchResult:
    """Run the selected search (``core`` overrides the default)."""
    return SEARCHES[implementation(core)](
        problem, deadline_ms=deadline_ms, node_budget=node_budget, cancel=cancel, on_improve=on_improve
    )


__all__ = ["CancelToken", "FoundRoute", "IMPLEMENTATIONS", "Search", "SearchResult", "implementation", "search"]
