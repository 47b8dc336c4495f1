"""A rule on the whole run: the company's routes must all meet (``routes_meet``).

1860 and 1862 refuse a run whose routes do not all link up through stops they share: each route
visiting a stop of another, all of them one linked whole (lib/engine/game/g_1860/game.rb and
g_1862/game.rb #check_intersection, from #check_route_combination: "Routes must intersect with each
other"; routes of no track, a local train's run of one city, are left out, as the engine's
``routes.reject { |r| r.chains.empty? }``). A run of one route, or none, keeps it.

Both searches honour it as they do ``home_route``: the reference keeps only runs that keep it; the
compiled search answers where its unconstrained optimum already keeps it and hands the problem to the
reference otherwise. The checker refuses a run that breaks it.
"""

from __future__ import annotations

MEET_ERROR = "the routes must all meet: each shares a stop with another, all linked"


def routes_linked(routes_stops: list) -> bool:
    """Whether the runs' routes of track (each given by its stops) are all linked through shared stops."""
    routes = [set(stops) for stops in routes_stops if len(stops) >= 2]
    if len(routes) <= 1:
        return True
    reached, todo = {0}, [0]
    while todo:
        i = todo.pop()
        for j, other in enumerate(routes):
            if j not in reached and routes[i] & other:
                reached.add(j)
                todo.append(j)
    return len(reached) == len(routes)
