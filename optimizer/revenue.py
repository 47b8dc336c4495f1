"""What one route earns, written to be obviously right rather than fast.

Given the stops a train visits, in order, this checks the train's caps and chooses the stops it
is paid for by trying every allowed subset; then adds the bonuses. The compiled search prices
routes its own, faster way and is tested against this.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import chain, combinations, product

import numpy as np

from .games.base import HALF_DOWN, HALF_TO_TEN
from .games.commodities import goods_bonus
from .games.freight import freight_price
from .games.variable_cities import variable_bonus, variable_places, variable_step
from .graph.problem import GAUGES, HEX_FORBIDDEN
from .model import MINES_NONE, MINES_ONE


@dataclass
class Priced:
    revenue: int = 0
    paid: list = field(default_factory=list)  # stop indexes, route order
    errors: list = field(default_factory=list)  # plain-words reasons it is not legal

    @property
    def legal(self) -> bool:
        return not self.errors


def gauge_cities(problem, t: int, halves: int) -> int:
    """The cities of no value a route's gauge changes count as: ``halves`` (border sides crossed,
    each border listed on both hexes) // 2, less the train's free ones (1848, g_1848 #visited_stops)."""
    return max(0, halves // 2 - int(problem.free_gauge_by_train[t]))


def visit_errors(problem, t: int, stops: list, halves: int = 0) -> list:
    """Reasons the train may not visit these stops (empty when it may); ``halves``: the border sides
    its track crosses (see :func:`gauge_cities`)."""
    spec = problem.specs[t]
    n_large, n_small = problem.counted(stops)  # a stop whose visit costs no distance (visit_cost 0) counts neither
    errors = []
    label = f"the {spec.name} train"
    extra = gauge_cities(problem, t, halves)
    if extra and (n_large + extra > spec.visit_large or n_large + n_small + extra > spec.visit_total):
        errors.append(
            f"{label} changes gauge {halves // 2} times, which count as {extra} more cities: {n_large + extra} large"
            f" stops, where it may count {spec.visit_large}"
        )
    if n_large > spec.visit_large:
        errors.append(f"{label} counts {n_large} large stops (cities, off-boards); it may count {spec.visit_large}")
    if n_small > spec.visit_small:
        errors.append(f"{label} counts {n_small} towns; it may count {spec.visit_small}")
    if n_large + n_small > spec.visit_total and not errors:
        errors.append(f"{label} counts {n_large + n_small} stops; it may count {spec.visit_total}")
    cap = int(problem.end_cap_by_train[t])
    end_towns = sum(1 for s in (stops[0], stops[-1]) if not problem.large_by_stop[s]) if len(stops) >= 2 else 0
    if n_large + end_towns > cap:
        errors.append(
            f"{label} counts {n_large} large stops and {end_towns} towns at its ends, which count against its"
            f" {cap} cities"
        )
    if len(stops) < 2 and not spec.local:
        errors.append("a route needs at least two stops")
    flags = problem.half_again_by_stop
    if flags is not None and len(stops) < 3 and any(int(flags[s]) & 2 for s in stops):
        errors.append("a route to a port must contain 2 other stops")
    minimum = int(problem.min_large_by_train[t])
    if n_large + extra < minimum:  # (gauge changes count: 18ZOO's tunnel between two holes is a stop)
        counted = f"{n_large} large stops (cities, off-boards that pay)" + (f" and {extra} more" if extra else "")
        errors.append(f"{label} counts {counted}; it must count {minimum}")
    ends = {stops[0], stops[-1]} if len(stops) >= 2 else set()
    for s in sorted(ends):
        if problem.no_end_by_stop[s] and not problem.ends_free(t):
            errors.append(f"a route may not begin or end at {problem.stop_id(s)} ({problem.rules.no_end_reason()})")
    if problem.needs_end(t) and stops and not (problem.in_end_set(stops[0]) or problem.in_end_set(stops[-1])):
        errors.append(f"{label}'s route must begin or end at {problem.rules.end_set_reason()}")
    if spec.requires_token and not any(problem.token_by_stop[s] for s in stops):
        errors.append("the route has no city with the company's token")
    elif (
        problem.token_ends_by_train[t]
        and stops
        and not (problem.token_by_stop[stops[0]] and problem.token_by_stop[stops[-1]])
    ):
        errors.append(f"{label}'s route must start and end at cities with the company's token")
    return errors + mine_errors(problem, t, stops)


def mine_errors(problem, t: int, stops: list) -> list:
    """A goods train visits exactly one mine, every other train none (lib/engine/game/g_1837/game.rb
    #check_other; g_18_mag: no train, without the round's SNW rail car)."""
    rule = int(problem.mine_rule_by_train[t])
    mines = sum(1 for s in stops if problem.mine_by_stop[s])
    name = problem.specs[t].name
    if rule == MINES_NONE and mines:
        return [problem.rules.no_mine_reason(name)]
    if rule == MINES_ONE and mines != 1:
        return [f"the {name} train is a goods train: it must visit one mine, not {mines}"]
    return []


def gauge_mask(problem, segs) -> int:
    """The track kinds of a route over these segments (bit k: ``GAUGES[k]``)."""
    mask = 0
    for j in segs:
        mask |= int(problem.gauge_by_seg[j])
    return mask


def gauge_errors(problem, t: int, segs) -> list:
    """Why train t may not run a route over these track segments for their kinds (``Problem.gauge_ok_by_train``),
    if it may not; none where the segments are not given."""
    if segs is None:
        return []
    kinds_mask = gauge_mask(problem, segs)
    if int(problem.gauge_ok_by_train[t]) >> kinds_mask & 1:
        return []
    names = [name for k, name in enumerate(GAUGES) if kinds_mask >> k & 1]
    kinds = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    return [f"the {problem.specs[t].name} train may not run a route over {kinds} track"]


def stop_sets(problem, stops: list) -> int:
    """The set-pair bits (``sets_by_stop``) any of these stops holds."""
    met = 0
    if len(problem.amount_by_set_pair):
        for s in stops:
            met |= int(problem.sets_by_stop[s])
    return met


def bonuses_of_visits(problem) -> bool:
    """Whether every bonus of a route but the variable cities' (``variable_bonus``) depends on the stops
    it visits alone, not on those it is paid: no pair or set pair of paid stops, no richest paid stop
    paid again, no token count, no half again."""
    if not all(visit for _, visit in zip(problem.amount_by_pair, problem.visited_by_pair)):
        return False
    if not all(visit for _, visit in zip(problem.amount_by_set_pair, problem.visited_by_set_pair)):
        return False
    if bool(np.any(problem.largest_by_set_pair)) or len(problem.trigger_by_largest):
        return False
    return not problem.r2r_per_token and problem.half_again_by_stop is None


def bonus_value(
    problem, t: int, visited: list, paid: list, visited_sets: int | None = None, step: int | None = None
) -> int:
    """Bonuses of a route given the stops visited (route order) and those paid; ``visited_sets``
    (:func:`stop_sets` of ``visited``) and ``step`` (``variable_step`` of the route): what the
    caller has computed once, where it prices many paid subsets of one route."""
    values = problem.values_by_train_stop[t]
    on, on_route = set(paid), set(visited)
    extra = 0
    for a, b, amount, visit in zip(
        problem.stop_a_by_pair, problem.stop_b_by_pair, problem.amount_by_pair, problem.visited_by_pair
    ):
        where = on_route if visit else on
        if a in where and b in where:
            extra += int(amount)
    skip = problem.skip_set_pairs(t)
    sets_visited = stop_sets(problem, visited) if visited_sets is None else visited_sets
    sets_paid = stop_sets(problem, paid)
    for k, (amount, visit) in enumerate(zip(problem.amount_by_set_pair, problem.visited_by_set_pair)):
        if skip >> k & 1:
            continue  # not for this train
        met = (sets_visited if visit else sets_paid) >> (2 * k) & 3
        if met == 3:  # a stop of each set, however many: once
            extra += int(amount)
            if k < len(problem.largest_by_set_pair) and problem.largest_by_set_pair[k]:
                extra += max([int(values[s]) for s in paid], default=0)
    for trigger, exclude in zip(problem.trigger_by_largest, problem.excluded_by_largest_stop):
        if trigger in on:
            others = [int(values[s]) for s in paid if s != trigger and not exclude[s]]
            extra += max(others, default=0)
    if (
        problem.r2r_per_token
        and len(visited) >= 2
        and problem.red_by_stop[visited[0]]
        and problem.red_by_stop[visited[-1]]
    ):
        tokens = sum(1 for s in paid if problem.token_by_stop[s])
        extra += problem.r2r_per_token * min(tokens, problem.r2r_max_tokens)
    extra += variable_bonus(problem, t, visited, paid, step)
    return extra + crow_bonus(problem, t, visited) + half_again_adjustment(problem, t, paid)


def crow_bonus(problem, t: int, visited: list) -> int:
    """The crow-distance bonus of train t's route (``Problem.crow_per_hex_by_train``): per hex between
    the first and the last of its stops that may end the distance (g_18_gb/game.rb#distance_bonus)."""
    per_hex = int(problem.crow_per_hex_by_train[t]) if len(problem.crow_per_hex_by_train) else 0
    ends = [s for s in visited if problem.crow_end_by_stop[s]] if per_hex else []
    if not ends:
        return 0
    a, b = ends[0], ends[-1]
    return per_hex * crow_hexes(
        int(problem.crow_x_by_stop[a]),
        int(problem.crow_y_by_stop[a]),
        int(problem.crow_x_by_stop[b]),
        int(problem.crow_y_by_stop[b]),
    )


def crow_hexes(x1: int, y1: int, x2: int, y2: int) -> int:
    """Hexes between two hexes as the crow flies (g_18_gb/game.rb#hex_crow_distance)."""
    dx, dy = abs(x1 - x2), abs(y1 - y2)
    return dx + max(0, (dy - dx) // 2)


def halve_to_ten(revenue: int) -> int:
    """Half a revenue, rounded to 10 as the engine does it: Ruby's ``(revenue / 2).round(-1)``, an
    integer division (floor) and then half away from zero (lib/engine/game/g_1822_mx/game.rb#revenue_for).
    Never above the revenue where it is 10 or more, and it grows with the revenue: the bounds of the
    unhalved revenue stay bounds."""
    half = revenue // 2
    return (half + 5) // 10 * 10 if half >= 0 else -((-half + 5) // 10 * 10)


def half_again_adjustment(problem, t: int, paid: list) -> int:
    """``port_half_again``: the port's pairs paid each other paid stop half its value, rounded up; the
    engine pays half the route's sum, rounded down to 10 (lib/engine/game/g_1850_jr/game.rb#revenue_for:
    ``revenue += (revenue / 2).floor(-1)``): the difference, never positive."""
    flags = problem.half_again_by_stop
    if flags is None or not any(int(flags[s]) & 1 for s in paid):
        return 0
    values = problem.values_by_train_stop[t]
    total = sum(int(values[s]) for s in paid) * int(problem.multiplier_by_train[t])
    halves = sum((int(values[s]) + 1) // 2 for s in paid if not int(flags[s]) & 1)
    return (total // 2) // 10 * 10 - halves


def penalty_value(problem, pen_mask: int) -> int:
    return sum(int(a) for b, a in enumerate(problem.amount_by_penalty) if pen_mask >> b & 1)


def hex_distance(problem, t: int, segs) -> int:
    """The hex edges train t's route over these track segments crosses (its distance where the train
    counts hexes, not stops: ``Problem.hex_cap_by_train``)."""
    return sum(int(problem.hex_edges_by_train_seg[t][j]) for j in segs)


def hex_errors(problem, t: int, segs) -> list:
    """Why the route over these segments is too long for a train counting hex edges (empty when it is not)."""
    cap = int(problem.hex_cap_by_train[t])
    if cap < 0 or segs is None:
        return []
    edges = hex_distance(problem, t, segs)
    if edges <= cap:
        return []
    if edges >= HEX_FORBIDDEN:
        return [f"the {problem.specs[t].name} train may not run some of this track"]
    return [f"the {problem.specs[t].name} train crosses {edges} hex edges; it may cross {cap}"]


def end_colour_errors(problem, stops: list) -> list:
    """Why the route may not begin and end on hexes of this colour (``Problem.unlike_end_colours``:
    g_1862/game.rb#check_distance, "Route cannot visit two red offboards or two ports")."""
    if not problem.unlike_end_colours or len(stops) < 2:
        return []
    first, last = (problem.board.hexes[problem.graph.stops[s].hex].color for s in (stops[0], stops[-1]))
    if first == last and first in problem.unlike_end_colours:
        return [f"a route may not begin and end on {first} hexes"]
    return []


def large_first(problem, t: int) -> bool:
    """Train t pays every large stop it visits, the best small ones in the pay left (TrainSpec.large_first)."""
    return t < len(problem.large_first_by_train) and bool(problem.large_first_by_train[t])


def track_stop_bonus(problem, segs) -> int:
    """What each paid stop of a route over ``segs`` earns for its track's kinds (1844's narrow track:
    ``Problem.stop_bonus_kinds``); 0 for a route of no track."""
    if not problem.stop_bonus_amount or segs is None:
        return 0
    kinds = 0
    for j in segs:
        kinds |= int(problem.gauge_by_seg[j])
    return int(problem.stop_bonus_amount) if kinds & int(problem.stop_bonus_kinds) else 0


def price_route(problem, t: int, stops: list, pen_mask: int = 0, segs=None) -> Priced:
    """Price train t's route through ``stops`` (indexes, route order), over track segments ``segs``
    (where given: a train counting hex edges is checked against its cap, and every train
    against the track kinds its gauge rule allows).

    The paid subset is the best allowed one: every subset within the pay caps (and holding one of
    our tokens where the train may skip stops) is tried. Gauge changes count as cities of no value:
    they limit the visit, never the pay (the engine pays its best stops, and they pay nothing).
    """
    halves = sum(int(problem.gauge_halves_by_seg[j]) for j in segs) if segs is not None else 0
    errors = visit_errors(problem, t, stops, halves) + hex_errors(problem, t, segs) + gauge_errors(problem, t, segs)
    errors += end_colour_errors(problem, stops)
    if errors:
        return Priced(errors=errors)
    spec = problem.specs[t]
    values = problem.values_by_train_stop[t]
    if problem.freight_by_train and problem.freight_by_train[t] is not None:  # paid by its ends (1862)
        if not segs:
            return Priced(errors=[f"the {spec.name} train is a freight train: its route runs between two stops"])
        revenue, paid = freight_price(problem, t, stops, segs)
        return Priced(revenue - penalty_value(problem, pen_mask), paid, [])
    if spec.pays_all:
        pool, sizes = list(stops), range(len(stops), len(stops) - 1, -1)  # (one size: every stop)

        def subsets(k: int):
            return [list(stops)]

    else:
        large = {s: bool(problem.large_by_stop[s]) for s in stops}
        must_large = sum(large.values()) if large_first(problem, t) else 0
        # where the run picks the stops paid, the engine looks for the token among those visited
        token_among = stops if picked_across_run(problem, t) else None
        # a train paying no small stop is paid large ones only: the subsets of those, in the same order
        pool = [s for s in stops if large[s]] if spec.pay_small <= 0 else list(stops)
        large_set = {s for s in stops if large[s]}
        tokened = {s for s in stops if problem.token_by_stop[s]}  # (sets: read once a route, many subsets)
        sizes = range(min(spec.pay_total, len(stops)), 0, -1)

        def subsets(k: int):
            """The subsets of k stops the train may be paid, in order."""
            for subset in combinations(pool, k):
                n_large = len(large_set.intersection(subset))
                if n_large > spec.pay_large or k - n_large > spec.pay_small or n_large < must_large:
                    continue
                if spec.requires_token and tokened.isdisjoint(token_among or subset):
                    continue
                yield list(subset)

    per_stop = track_stop_bonus(problem, segs)
    best: Priced | None = None
    best_key: tuple = ()
    visited_sets, step = stop_sets(problem, stops), variable_step(problem, t, stops)
    places = variable_places(problem, stops)
    value = {s: int(values[s]) for s in stops}  # (read once: a route may have many paid subsets)
    large_value = {s: value[s] for s in stops if problem.large_by_stop[s]}
    # where only the variable cities' bonus depends on the paid stops, the rest is priced once a route;
    # then a paid stop adds at most its value, the per-stop bonus and a variable city's step: a subset
    # (a size) that cannot reach the best revenue so far is not priced (it could not be chosen)
    fixed = (
        bonus_value(problem, t, stops, [], visited_sets, step)
        if not spec.pays_all and bonuses_of_visits(problem)
        else None
    )
    most = (
        {s: value[s] * spec.multiplier + per_stop + (max(step, 0) if s in places else 0) for s in stops}
        if fixed is not None
        else {}
    )
    top = sorted([most[s] for s in pool], reverse=True) if most else []
    for k in sizes:
        if most and best is not None and fixed + sum(top[:k]) < best_key[0]:
            continue  # no k stops reach the best so far
        for paid in subsets(k):
            if most and best is not None and fixed + sum(map(most.__getitem__, paid)) < best_key[0]:
                continue
            revenue = sum(value[s] for s in paid) * spec.multiplier
            if fixed is None:
                revenue += bonus_value(problem, t, stops, paid, visited_sets, step)
            else:
                revenue += fixed + variable_bonus(problem, t, stops, paid, step, places)
            revenue += per_stop * len(paid)
            # ties go to the richer city or off-board, the one a Pullman would double (as the compiled core)
            key = (revenue, max([0] + [large_value[s] for s in paid if s in large_value]))
            if best is None or key > best_key:
                best, best_key = Priced(revenue, paid, []), key
    if best is None:
        return Priced(errors=[f"the {spec.name} train can count none of its stops with the company's token"])
    best.revenue += goods_bonus(problem, segs)
    halved = problem.halved(t)
    if halved == HALF_TO_TEN:
        best.revenue = halve_to_ten(best.revenue)
    elif halved == HALF_DOWN:
        best.revenue //= 2  # Ruby's Integer#/ : floor division, as Python's //
    best.revenue -= penalty_value(problem, pen_mask & ~problem.skip_penalties(t))
    best.revenue += end_bonus(problem, t, stops)
    return best


def end_bonus(problem, t: int, stops: list) -> int:
    """``destination_ends``: a route whose first (else last) stop carries an end bonus earns it, times
    the train's multiplier (lib/engine/game/g_1870/game.rb#destination_revenue: ``stops.values_at(0, -1)
    .find { |s| s.hex == destination }``, its ``route_revenue``)."""
    ends = problem.end_bonus_by_stop
    if ends is None or len(stops) < 2:
        return 0
    return int(ends[stops[0]] or ends[stops[-1]]) * int(problem.multiplier_by_train[t])


def pullman_pick(problem, routes: list):
    """The richest city or off-board paid on any of these routes (each with ``train`` and
    ``paid``), as (value, stop); None if there is none."""
    best = None
    for r in routes:
        for s in r.paid:
            v = int(problem.values_by_train_stop[r.train][s])
            if problem.large_by_stop[s] and (best is None or v > best[0]):
                best = (v, s)
    return best


def pullman_bonus(problem, routes: list) -> int:
    """18EU Pullman: one city or off-board of one other train's route counts twice."""
    pick = pullman_pick(problem, routes) if problem.has_pullman else None
    return pick[0] if pick else 0


def best_route_value(problem, k: int, visited: list, t: int | None = None, pen_mask: int = 0) -> int:
    """What best-route bonus k would pay on train t's route visiting these stops (its amount times
    the train's multiplier where the bonus says so; a train of multiplier 1 when t is None), whose
    track crosses the hexes of ``pen_mask`` (the bits of ``amount_by_penalty``: the bonus's per-hex pay).
    A train paid only by the company's token cities meets a group only at such a stop (1822PNW's mill
    for an E train, lib/engine/game/g_1822_pnw/game.rb#calculate_mill_bonus)."""
    met = 0
    tokens_only = t is not None and problem.tokens_only(t)
    for s in visited:
        if not tokens_only or problem.token_by_stop[s]:
            met |= int(problem.groups_by_best_route_stop[k][s])
    full = int(problem.full_by_best_route[k])
    amount = int(problem.amount_by_best_route[k])
    if t is not None and problem.multiplied(k):
        amount *= int(problem.multiplier_by_train[t])
    uncounted = problem.uncounted_by_best_route_stop
    n = len(visited) - (sum(int(uncounted[k][s]) for s in visited) if len(uncounted) else 0)
    per_hex, hexes = problem.per_hex(k)
    crossed = pen_mask & hexes & ~(problem.skip_penalties(t) if t is not None else 0)
    return (
        (amount if met & full == full else 0)
        + int(problem.per_stop_by_best_route[k]) * n
        + per_hex * bin(crossed).count("1")
    )


def best_route_awards(problem, visited_lists: list, trains: list | None = None, pen_masks: list | None = None) -> list:
    """Each best-route bonus paid once, on the route that earns it most (the first of equals):
    (route position, amount) for those that pay (1846 Mail Contract, 18AL named routes, 1822's
    destinations); ``trains``: each route's train (for bonuses times its multiplier); ``pen_masks``:
    the hexes each route's track crosses (for bonuses paid per hex: 1822PNW's lumber baron)."""
    awards = []
    trains = trains if trains is not None else [None] * len(visited_lists)
    pen_masks = pen_masks if pen_masks is not None else [0] * len(visited_lists)
    for k in range(len(problem.amount_by_best_route)):
        values = [best_route_value(problem, k, v, t, m) for v, t, m in zip(visited_lists, trains, pen_masks)]
        if values and max(values) > 0:
            awards.append((values.index(max(values)), max(values)))
    return awards


def route_pen_mask(problem, dsegs) -> int:
    """The bits of ``amount_by_penalty`` a route over these directed segments crosses."""
    mask = 0
    for d in dsegs:
        mask |= int(problem.penalty_mask_by_seg[problem.seg_by_dir[d]])
    return mask


def award_best_route(problem, routes: list) -> int:
    """Add the best-route bonuses to the routes (FoundRoute) that earn them; their total."""
    if not len(problem.amount_by_best_route):  # none to award (most titles): no route's track to read
        return 0
    total = 0
    pens = [route_pen_mask(problem, r.dsegs) for r in routes]
    for i, amount in best_route_awards(problem, [r.stops for r in routes], [r.train for r in routes], pens):
        routes[i].revenue += amount
        total += amount
    return total


def paid_once_routes(problem, routes: list) -> list:
    """The routes of a run repriced where a stop already on an earlier route pays nothing
    (``Problem.paid_once``: g_1877_stockholm_tramways/game.rb and g_1862/game.rb #revenue_for,
    #stop_on_other_route?), in train order (as answers list them, and the engine prices them); see
    :func:`paid_once_run`. Unchanged without the rule."""
    if not problem.paid_once:
        return routes
    ordered = sorted(routes, key=lambda r: r.train)
    alone = []
    for r in ordered:
        segs = [int(problem.seg_by_dir[d]) for d in r.dsegs]
        pen = 0
        for k in segs:
            pen |= int(problem.penalty_mask_by_seg[k])
        alone.append(price_route(problem, r.train, list(r.stops), pen, segs))
    priced = paid_once_run(problem, [(r.train, list(r.stops), a) for r, a in zip(ordered, alone)])
    return [replace(r, revenue=rev, paid=paid) for r, (rev, paid) in zip(ordered, priced)]


def picked_across_run(problem, t: int) -> bool:
    """Train t's paid stops are the engine's pick across the run (``Problem.paid_once``, a train paying
    some of its stops, not a freight train: g_1862/game.rb#compute_stops, #global_optimize). That pick
    (#revenue_stop_options) takes any ``pay`` of its cities, our token's or not: the route holds the
    token among the stops it visits (lib/engine/route.rb#revenue, game/base.rb#check_route_token), as
    a train paying all its stops does, so that priced alone it earns at least what the run pays it."""
    freight = bool(problem.freight_by_train) and problem.freight_by_train[t] is not None
    return bool(problem.paid_once) and not problem.specs[t].pays_all and not freight


def paid_once_run(problem, run: list) -> list:
    """(revenue, paid stops) of each route of a run, given as (train, stops, its price alone) in the
    order the engine prices them, where a stop on an earlier route pays nothing.

    The stops a route is paid are the engine's ``compute_stops``: every stop for a train paying all,
    a freight train's ends, and for a train paying some of its cities and off-boards the ones the
    engine picks across the run (g_1862/game.rb#global_optimize, #revenue_stop_options: the first
    choice, over every train's combinations in order, whose stops, each once, are worth the most),
    with the towns it pays. A stop pays nothing where an earlier route is paid it, or a stop sharing a
    group with it (#stop_on_other_route?); the route keeps the rest of its own price (a freight
    train's crow-flight bonus)."""
    chooses = []  # per route: the engine picks its paid large stops across the run
    options = []
    for t, stops, alone in run:
        chooses.append(picked_across_run(problem, t))
        if not chooses[-1]:
            options.append([list(alone.paid)])
            continue
        options.append(stop_options(problem, t, stops))
    choice, best = [o[0] for o in options], -1
    if any(len(o) > 1 for o in options):
        values = problem.values_by_train_stop[run[0][0]]
        for pick in product(*options):
            worth = sum(int(values[s]) for s in dict.fromkeys(chain(*pick)))
            if worth > best and worth > 0:
                choice, best = list(pick), worth
    out = []
    seen: set = set()
    seen_groups: set = set()
    for (t, _, alone), picked, choose in zip(run, choice, chooses):
        paid = list(alone.paid)
        if choose:  # the engine's pick of its stops across the run
            paid = list(picked)
        values, mult = problem.values_by_train_stop[t], problem.specs[t].multiplier
        revenue = alone.revenue - sum(int(values[s]) for s in alone.paid) * mult  # what is not a stop's
        kept = [s for s in paid if s not in seen and not stop_groups(problem, s) & seen_groups]
        out.append((revenue + sum(int(values[s]) for s in kept) * mult, kept))
        seen.update(paid)
        for s in paid:
            seen_groups |= stop_groups(problem, s)
    return out


def stop_options(problem, t: int, stops: list) -> list:
    """The sets of stops (in route order) train t, paying some of the stops it visits, may be paid on
    this route in a run where the engine picks them across the run (g_1862/game.rb#revenue_stop_options:
    every combination of ``pay`` of its cities and off-boards, the towns a local train pays added by
    #compute_local_stops): as many stops as its pay caps allow, most large stops first. Where one row
    pays towns and cities together (``pay_total`` below ``pay_large + pay_small``), the towns and cities
    share that allowance: no set is paid more stops than the train alone, so a route in a run never
    earns more than alone (which every bound of the reference search assumes)."""
    spec = problem.specs[t]
    large = [s for s in stops if problem.large_by_stop[s]]
    small = [s for s in stops if not problem.large_by_stop[s]]
    most_large, most_small = min(len(large), spec.pay_large), min(len(small), spec.pay_small)
    size = min(most_large + most_small, spec.pay_total)
    position = {s: i for i, s in enumerate(stops)}
    options = []
    for n_large in range(most_large, size - most_small - 1, -1):
        for big in combinations(large, n_large):
            for towns in combinations(small, size - n_large):
                options.append(sorted(big + towns, key=position.__getitem__))
    return options or [[]]


def stop_groups(problem, s: int) -> frozenset:
    """The engine's groups of stop s's node (an off-board's ``groups:``)."""
    stop = problem.graph.stops[s]
    node = next((n for n in problem.board.hexes[stop.hex].tile.nodes if n.index == stop.node), None)
    return frozenset(node.groups) if node is not None else frozenset()


def once_taken_back(problem, routes: list) -> list:
    """Per route (``(train, paid stops)``, in the run's order), what it gives back of the bonuses its
    stops' values hold for locations an earlier route paid, once a location (``Problem.once_bits_by_stop``:
    a bonus paid once across the company's routes, to the first: 18NY's connection bonuses). A stop pays
    its locations where it pays the train anything. Once a location, so that the run's total does not
    depend on its order (the engine's take-back is by stop: the same wherever no route pays two stops
    of one location)."""
    amount = int(problem.once_amount)
    bits_by_stop = problem.once_bits_by_stop
    if not amount or not len(bits_by_stop):
        return [0] * len(routes)
    claimed, out = 0, []
    for t, paid in routes:
        mine = 0
        for s in paid:
            if int(problem.values_by_train_stop[t][s]) > 0:
                mine |= int(bits_by_stop[s])
        out.append(amount * bin(mine & claimed).count("1"))
        claimed |= mine
    return out
