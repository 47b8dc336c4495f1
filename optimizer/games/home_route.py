"""A rule on the whole run, not on one route: some route must visit the company's home token (``home_route``).

1860 and 1862 refuse a run none of whose routes visits the company's token city in its home hex
(lib/engine/game/g_1860/game.rb and g_1862/game.rb #check_home_token, called from
#check_route_combination unless the run is empty: "At least one route must include home token").
The home hex is the corporation's ``coordinates`` (its engine data; the data file's ``homes``), the
city its token there (``tokens.find { |c| c.hex == ... }``: the first of the company's token cities
in that hex). A company without a token there has no legal run but the empty one.

Both searches honour it: the reference keeps only runs that visit the stop (or none); the compiled
search answers where its unconstrained optimum already visits it (the rule only takes runs away, so
that optimum is the rule's too) and hands the problem to the reference otherwise
(:func:`optimizer.core.compiled.search`). The checker refuses a run that breaks it.
"""

from __future__ import annotations

NO_HOME_RULE = -1
NO_HOME_STOP = -2


def home_stop(rule: dict, company: str, graph) -> int:
    """The index of the stop of ``graph`` some route must visit, or NO_HOME_RULE / NO_HOME_STOP."""
    home = (rule.get("homes") or {}).get(company)
    if home is None:
        return NO_HOME_RULE
    tokened = [i for i, s in enumerate(graph.stops) if s.hex == home and s.token]
    return min(tokened, key=lambda i: graph.stops[i].node) if tokened else NO_HOME_STOP


def run_visits_home(home: int, routes_stops: list) -> bool:
    """Whether a run (each route's stops) keeps the rule: empty, or some route visits the home stop."""
    if home == NO_HOME_RULE or not any(routes_stops):
        return True
    return home >= 0 and any(home in stops for stops in routes_stops)


def home_error(problem) -> str:
    """What the checker says of a run that breaks the rule."""
    home = problem.home_stop
    if home == NO_HOME_STOP:
        return "at least one route must include the company's home token, and it has none in its home hex"
    return f"at least one route must include the company's home token ({problem.stop_id(home)})"
