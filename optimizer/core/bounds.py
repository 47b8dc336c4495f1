"""Upper bounds that need no search, shared by both searches."""

from __future__ import annotations

import numpy as np

from ..games.variable_cities import NO_KEY, VARIABLE


def best_paid(values, large, spec_caps) -> int:
    """The most a train can be paid from these stop values, whatever the track: the best large
    and small stops within its pay caps (negative stops are never worth paying)."""
    pay_large, pay_small, pay_total = (int(c) for c in spec_caps[3:6])
    vis_large, vis_small, vis_total = (int(c) for c in spec_caps[0:3])
    pay_large, pay_small, pay_total = min(pay_large, vis_large), min(pay_small, vis_small), min(pay_total, vis_total)
    big = np.concatenate([[0], np.cumsum(np.sort(values[(large == 1) & (values > 0)])[::-1])])
    small = np.concatenate([[0], np.cumsum(np.sort(values[(large == 0) & (values > 0)])[::-1])])
    best = 0
    for k in range(0, min(pay_large, pay_total, len(big) - 1) + 1):
        best = max(best, int(big[k] + small[min(pay_small, pay_total - k, len(small) - 1)]))
    return best


def max_route_bonus(problem, t: int) -> int:
    """The most any one route's bonuses can add."""
    values = problem.values_by_train_stop[t]
    top = int(values.max()) if values.size else 0
    pairs = pairs_bound(problem)
    largest = (len(problem.trigger_by_largest) + n_set_pair_largest(problem)) * max(top, 0)
    r2r = problem.r2r_per_token * problem.r2r_max_tokens
    return (
        pairs
        + largest
        + r2r
        + track_bonus_bound(problem)
        + crow_bound(problem, t)
        + stop_bonus_bound(problem, t)
        + free_stops_bound(problem, t)
        + end_bonus_bound(problem)
        + variable_cities_bound(problem, t)
        + goods_bound(problem)
    )


def crow_bound(problem, t: int | None = None) -> int:
    """The most the crow-distance bonus can add to one route of train t (of any train where t is
    None): its per-hex amount times the widest span between two stops that may end it."""
    per = problem.crow_per_hex_by_train
    if not len(per):
        return 0
    per_hex = max(0, int(per[t]) if t is not None else int(per.max()))
    ends = np.flatnonzero(problem.crow_end_by_stop)
    if not per_hex or not len(ends):
        return 0
    x = problem.crow_x_by_stop[ends].astype(np.int64)
    y = problem.crow_y_by_stop[ends].astype(np.int64)
    dx = np.abs(x[:, None] - x[None, :])
    dy = np.abs(y[:, None] - y[None, :])
    return per_hex * int((dx + np.maximum(0, (dy - dx) // 2)).max())


def stop_bonus_bound(problem, t: int) -> int:
    """The most a bonus per paid stop for the route's track kinds adds to train t's route: every stop
    it may be paid (1844's narrow track)."""
    if not problem.stop_bonus_amount:
        return 0
    caps = problem.caps_by_train[t]
    return max(0, int(problem.stop_bonus_amount)) * min(int(caps[5]), int(caps[2]), int(problem.n_stops))


def n_set_pair_largest(problem) -> int:
    """The set pairs that, once met, pay a route's richest paid stop again (each at most the best value)."""
    return int(np.count_nonzero(problem.largest_by_set_pair[: problem.n_set_pairs]))


def free_stops_bound(problem, t: int) -> int:
    """What the stops a visit to which costs no distance can add beyond a train's caps: all their
    positive values, times its multiplier (``Problem.free_by_stop``; 0 where none is free)."""
    if not len(problem.free_by_stop) or not problem.free_by_stop.any():
        return 0
    values = problem.values_by_train_stop[t]
    free = np.asarray(problem.free_by_stop[: problem.n_stops], dtype=bool)
    return int(np.clip(values[free], 0, None).sum()) * max(int(problem.multiplier_by_train[t]), 0)


def variable_cities_bound(problem, t: int) -> int:
    """The most 18 India's variable cities add to train t's route (``games.variable_cities``): the
    richest stop that may set the step, less the offset, times the multiplier, once for each variable
    place, no more places than the train is paid stops."""
    flags = problem.variable_by_stop
    if not len(flags):
        return 0
    values = problem.values_by_train_stop[t][: len(flags)]
    keys = values[(flags & NO_KEY) == 0]
    step = max(int(keys.max()) if keys.size else 0, 0) - int(problem.variable_offset)
    stops = problem.graph.stops
    places = len({stops[s].hex for s in range(len(flags)) if flags[s] & VARIABLE})
    caps = problem.caps_by_train[t]
    paid = min(places, int(caps[5]), int(caps[2]))
    return max(step, 0) * max(int(problem.multiplier_by_train[t]), 0) * paid


def goods_bound(problem) -> int:
    """The most the commodities add to one route (``games.commodities``): each one's value (a spice's
    best) once."""
    return sum(
        max(value if not spice else max([v for _, v in spice], default=0), 0)
        for _, _, value, spice in problem.goods_terms
    )


def end_bonus_bound(problem) -> int:
    """The most a route's end can pay it again (destination_ends): the best end bonus, times the
    largest multiplier, once a route."""
    ends = problem.end_bonus_by_stop
    if ends is None or not len(ends):
        return 0
    mult = int(problem.multiplier_by_train[: problem.n_trains].max()) if problem.n_trains else 1
    return max(0, int(ends.max())) * max(mult, 1)


def track_bonus_bound(problem) -> int:
    """The most the hexes a route's track crosses can pay it: every bonus hex (a negative
    penalty), each once a route."""
    return sum(max(0, -int(a)) for a in problem.amount_by_penalty[: problem.n_penalties])


def pairs_bound(problem) -> int:
    """The most pair bonuses can add to one route. A route reaches each location once, so of the
    pairs joining the same two locations only those on one pair of stops can count together: per
    pair of locations, the best pair of stops (1846 East-West: one east end, one west end); and each
    set-pair bonus once."""
    best: dict = {}
    for a, b, amount in zip(problem.stop_a_by_pair, problem.stop_b_by_pair, problem.amount_by_pair):
        a, b = sorted((int(a), int(b)))
        places = tuple(sorted((int(problem.loc_by_stop[a]), int(problem.loc_by_stop[b]))))
        stops = best.setdefault(places, {})
        stops[(a, b)] = stops.get((a, b), 0) + int(amount)
    sets = sum(max(0, int(a)) for a in problem.amount_by_set_pair[: problem.n_set_pairs])  # once a route each
    return sum(max(0, max(stops.values())) for stops in best.values()) + sets


def train_bound(problem, t: int) -> int:
    return best_paid(problem.values_by_train_stop[t], problem.large_by_stop, problem.caps_by_train[t]) * int(
        problem.multiplier_by_train[t]
    ) + max_route_bonus(problem, t)


def pullman_cap(problem) -> int:
    if not problem.has_pullman or not problem.values_by_train_stop.size:
        return 0
    large = problem.values_by_train_stop[:, problem.large_by_stop == 1]
    return max(int(large.max()), 0) if large.size else 0


def best_route_cap(problem) -> int:
    """The most the best-route bonuses can add: each its amount plus its per-stop pay on the
    longest route any train may run, plus its per-hex pay on every one of its hexes."""
    if not len(problem.amount_by_best_route):
        return 0
    longest = max([min(int(c[2]), problem.n_stops) for c in problem.caps_by_train], default=0)
    most = max([int(m) for m in problem.multiplier_by_train[: problem.n_trains]], default=1)
    return sum(
        max(int(a), 0) * (max(most, 0) if problem.multiplied(k) else 1)
        + max(int(p), 0) * longest
        + max(problem.per_hex(k)[0], 0) * bin(problem.per_hex(k)[1]).count("1")
        for k, (a, p) in enumerate(zip(problem.amount_by_best_route, problem.per_stop_by_best_route))
    )


def company_cap(problem) -> int:
    """The most the company-level bonuses (Pullman, best-route bonuses) can add to the routes."""
    return pullman_cap(problem) + best_route_cap(problem)


def static_bound(problem) -> int:
    return sum(train_bound(problem, t) for t in range(problem.n_trains)) + company_cap(problem)
