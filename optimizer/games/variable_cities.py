"""Variable cities (``variable_cities``): a paid stop at one of the named places earns, on top of its
value, the route's richest other visited stop less ``offset`` (at least 0), times the train's multiplier.

18 India's "+?" cities (lib/engine/game/g_18_india/game.rb#variable_city_revenue): the stops the route
visits whose ``revenue_to_render`` is not zero and whose tile is not red give their value less 20, the
best of which (at least 0) is paid once for each of ``VARIABLE_CITY_NAMES`` among the route's paid stops'
location names (each name once), times ``route.train.multiplier``. Every variable city lies on a red
tile, so none counts towards the best; a gauge change (a city of no value) counts towards nothing.
"""

from __future__ import annotations

import numpy as np

VARIABLE = 1  # a variable city: paid, it earns the bonus
NO_KEY = 2  # a stop on a red tile: its value never sets the bonus


def variable_flags(board, rule: dict | None, stops: list) -> np.ndarray:
    """Per stop: VARIABLE, NO_KEY or 0 (an ordinary stop whose value may set the bonus); empty
    without the rule."""
    if not rule:
        return np.zeros(0, dtype=np.uint8)
    names = set(rule["names"])
    flags = []
    for s in stops:
        hx = board.hexes[s.hex]
        flag = NO_KEY if hx.color == "red" else 0
        if hx.location_name in names:
            flag |= VARIABLE
        flags.append(flag)
    return np.array(flags, dtype=np.uint8)


def variable_step(problem, t: int, visited: list) -> int:
    """What each variable city paid on train t's route visiting ``visited`` earns: the richest visited
    stop not on a red tile, less the offset, at least 0, times the train's multiplier."""
    flags = problem.variable_by_stop
    if not len(flags):
        return 0
    values = problem.values_by_train_stop[t]
    best = max([int(values[s]) for s in visited if not flags[s] & NO_KEY and int(values[s])], default=0)
    return max(best - int(problem.variable_offset), 0) * int(problem.multiplier_by_train[t])


def variable_places(problem, stops: list) -> dict:
    """The variable cities among these stops, each with its place (hex): a place is paid once."""
    flags = problem.variable_by_stop
    if not len(flags):
        return {}
    return {s: problem.graph.stops[s].hex for s in stops if flags[s] & VARIABLE}


def variable_bonus(problem, t: int, visited: list, paid: list, step: int | None = None, places=None) -> int:
    """What the variable cities among ``paid`` earn on train t's route visiting ``visited``; ``step``:
    :func:`variable_step` of the route, ``places``: :func:`variable_places` of its stops, where the
    caller has them (a route priced for many paid subsets reads them once)."""
    places = variable_places(problem, paid) if places is None else places
    if not places:
        return 0
    paid_places = {places[s] for s in paid if s in places}
    if not paid_places:
        return 0
    return len(paid_places) * (variable_step(problem, t, visited) if step is None else step)
