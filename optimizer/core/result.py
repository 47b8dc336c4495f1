"""What a search returns, whichever search ran."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FoundRoute:
    train: int  # index into problem.trains
    stops: list  # stop indexes, route order
    dsegs: list  # directed segment indexes (into the problem's *_by_dir arrays), route order
    revenue: int  # this route's own revenue (bonuses and penalties included; Pullman not)
    paid: list  # stop indexes paid


@dataclass
class SearchResult:
    revenue: int  # company total, Pullman bonus included
    optimal: bool  # the search finished: no better set of routes exists
    bound: int  # proven upper bound on the optimum (== revenue when optimal)
    routes: list = field(default_factory=list)  # FoundRoute
    nodes: int = 0  # search nodes expanded
    elapsed_ms: float = 0.0
    stopped_by: str | None = None  # "deadline", "nodes", "cancelled" or None
    pullman: int = 0  # the Pullman's doubled value, included in revenue
    core: str = ""  # the search that ran: "compiled" or "python"
