"""The route checker: is a player's set of routes legal, what does it earn, and if not, why not.

Each route is read as track of the board's graph by :mod:`optimizer.rules.routes`; where a route
could be read two ways, every reading is tried and the legal, richer one kept. Reasons are plain
words a player understands.
"""

from __future__ import annotations

from itertools import product

from ..errors import RoutesError
from ..games.home_route import home_error, run_visits_home
from ..games.routes_meet import MEET_ERROR, routes_linked
from ..graph.problem import HEX_FORBIDDEN, build_problem, one_extra_variants
from ..revenue import best_route_awards, once_taken_back, paid_once_run, price_route, visit_errors
from .notation import known_trains, named_hexes, train_ids
from .routes import readings


def check_routes(board, routes) -> dict:
    """Check a set of routes for the board's operating company.

    Returns ``{"legal", "revenue", "routes": [{"train", "legal", "revenue", "stops", "paid",
    "hexes", "errors"}]}``; raises :class:`RoutesError` for routes that cannot be read at all.
    """
    problem = build_problem(board, reachable_only=False)
    if not isinstance(routes, list):
        raise RoutesError("routes must be a JSON list of {train, hexes} or {train, stops}", field="routes")
    trains = {t.id: i for i, t in enumerate(problem.trains)}
    bonus_trains = {t.id: t for t in problem.bonus_trains}
    by_id = train_ids(routes, list(problem.trains) + list(problem.bonus_trains))
    parsed = []
    seen_trains = set()
    for i, route in enumerate(routes):
        where = f"routes[{i}]"
        if not isinstance(route, dict) or "train" not in route:
            raise RoutesError(f"{where}: each route is an object with a train and hexes or stops", field=where)
        train = by_id[i]
        if train not in trains and train not in bonus_trains:
            known = known_trains(list(problem.trains) + list(problem.bonus_trains))
            raise RoutesError(
                f"{where}.train: unknown train {train!r} (this company runs: {known})", field=f"{where}.train"
            )
        if train in seen_trains:
            raise RoutesError(f"{where}.train: train {train} has two routes", field=f"{where}.train")
        seen_trains.add(train)
        parsed.append((i, train, _readings_or_forbidden(problem, route, where)))

    best = None
    choices = [p[2] or [None] for p in parsed]
    # a rule on the whole run (one_extra_large): the run is judged under each train counting one more
    variants = [problem] + one_extra_variants(problem) if problem.one_extra_large else [problem]
    for n, combo in enumerate(product(*choices)):
        if n >= 4096:
            break
        for variant in variants:
            answer = _evaluate(variant, parsed, combo, trains, bonus_trains)
            key = (answer["legal"], -sum(len(r["errors"]) for r in answer["routes"]), answer["revenue"])
            if best is None or key > best[0]:
                best = (key, answer)
    return best[1] if best else {"legal": True, "revenue": 0, "routes": []}


class _Forbidden(str):
    """A route read no further because it reaches a stop the company may not reach at all: the
    reason, which the verdict reports."""


def _readings_or_forbidden(problem, route, where) -> list:
    """The route's readings; a route that cannot be read because it names a stop the company may not
    reach (1894's London without a ferry marker: the graph leaves such stops out) is an illegal
    route with the rules' reason, not an unreadable document."""
    try:
        return readings(problem, route, where)
    except RoutesError:
        reason = _forbidden_reason(problem, route)
        if reason is None:
            raise
        return [_Forbidden(reason)]


def _forbidden_reason(problem, route) -> str | None:
    board, rules = problem.board, problem.rules
    for hex_id in named_hexes(board, route):
        hx = board.hexes[hex_id]
        for node in hx.tile.nodes:
            if node.is_stop and rules.forbidden(hx, node):
                return rules.forbidden_reason(hx, node)
    return None


# ---- judging one reading ------------------------------------------------------------------------


def _evaluate(problem, parsed, combo, trains, bonus_trains) -> dict:
    graph = problem.graph
    out_routes = []
    used: dict = {}  # (overlap group, resource) -> route number that used it
    priced_routes: list = []  # (route number, Priced, train, stops, entry) of each priced route
    pen_of: dict = {}  # route number -> the penalty (or bonus) hexes its track crosses
    segs_of: dict = {}  # route number -> its segments
    pullmen = []
    for (i, train, _), reading in zip(parsed, combo):
        entry = {"train": train, "legal": True, "revenue": 0, "stops": [], "paid": [], "hexes": [], "errors": []}
        out_routes.append(entry)
        if reading is None:
            continue  # runs nothing
        t = trains.get(train)
        if t is None and isinstance(reading, tuple):
            pullmen.append((entry, reading))
            continue
        if isinstance(reading, _Forbidden):
            entry["errors"].append(str(reading))
        elif t is None:
            entry["errors"].append(f"the {bonus_trains[train].name} train does not run a route of its own")
        elif isinstance(reading, tuple) and not problem.local_by_train[t]:
            entry["errors"].append("a route needs at least two stops")  # one city and no track: a local train's run
        if entry["errors"]:
            entry["legal"] = False
            continue
        if isinstance(reading, tuple):
            _price_local(problem, entry, reading, t, priced_routes, i)
            continue
        stops, resources, errors, pen = _walk(problem, reading)
        pen_of[i] = pen
        entry["stops"] = [problem.stop_id(s) for s in stops]
        entry["hexes"] = [
            list(graph.segments[j].hexes if fwd else reversed(graph.segments[j].hexes)) for j, fwd in reading
        ]
        group = int(problem.track_group_by_train[t])  # an E train's routes overlap only each other's
        for r in dict.fromkeys(resources):  # a piece used twice by this route is reported by _walk
            if (group, r) in used:
                errors.append(
                    f"route {i + 1} uses the {_resource_name(graph, r)} that route {used[group, r] + 1} already uses"
                )
            else:
                used[group, r] = i
        segs = [j for j, _ in reading]
        halves = sum(int(problem.gauge_halves_by_seg[j]) for j in segs)
        errors = list(
            dict.fromkeys(errors + visit_errors(problem, t, stops, halves) + _hex_track_errors(problem, t, segs))
        )
        if not errors:
            priced = price_route(problem, t, stops, pen, segs)
            errors = priced.errors + (problem.run_rule.route_errors(t, stops) if problem.run_rule else [])
            segs_of[i] = segs
            if priced.legal:
                entry["revenue"] = priced.revenue
                entry["paid"] = [problem.stop_id(s) for s in priced.paid]
                priced_routes.append((i, priced, t, stops, entry))
        entry["errors"] = errors
        entry["legal"] = not errors
    _local_cities_once(problem, priced_routes)
    _paid_once(problem, priced_routes)
    for entry, reading in pullmen:
        _price_pullman(problem, entry, reading, priced_routes)
    if all(entry["legal"] for entry in out_routes):  # each best-route bonus on the route earning it most
        pens = [pen_of.get(p[0], 0) for p in priced_routes]
        for k, amount in best_route_awards(problem, [p[3] for p in priced_routes], [p[2] for p in priced_routes], pens):
            priced_routes[k][4]["revenue"] += amount
    run_errors = _price_run(problem, priced_routes, segs_of)
    legal = all(r["legal"] for r in out_routes)
    out = {"legal": legal, "revenue": sum(r["revenue"] for r in out_routes if r["legal"]), "routes": out_routes}
    ordered = sorted((p for p in priced_routes if p[4]["legal"]), key=lambda p: p[0])  # the run's order
    for p, b in zip(ordered, once_taken_back(problem, [(p[2], p[1].paid) for p in ordered])):
        p[4]["revenue"] -= b  # a bonus once across the routes: its first route earns it (connection_bonuses)
        out["revenue"] -= b
    if legal and (out_routes or not problem.fixed_needs_route):
        out["revenue"] += int(problem.fixed_revenue)  # what the company earns with any run (18NY's claimed bonuses)
    running = [p[4]["revenue"] for p in priced_routes]
    if legal and problem.not_all_trains and running and len(running) == problem.n_trains:
        out["revenue"] -= min(running)  # civil_war: every train runs, so the lowest route earns nothing
    if not run_visits_home(problem.home_stop, [p[3] for p in priced_routes]):  # a rule on the whole run
        out.update(legal=False, revenue=0, errors=[home_error(problem)])
    if problem.routes_meet and not routes_linked([p[3] for p in priced_routes]):  # another
        out.update(legal=False, revenue=0, errors=out.get("errors", []) + [MEET_ERROR])
    if run_errors:
        out.update(legal=False, revenue=0, errors=run_errors)
    return out


def _price_run(problem, priced_routes, segs_of) -> list:
    """A run priced and checked as a whole (``Problem.run_rule``: Harzbahn 1873): each route's revenue
    and paid stops within the run, and the run's errors (the routes of one train meeting, the
    concession routes)."""
    rule = problem.run_rule
    if rule is None or not priced_routes:
        return []
    _, revenues, paid, errors = rule.price([(p[2], p[3], segs_of[p[0]]) for p in priced_routes])
    for p, revenue, stops in zip(priced_routes, revenues, paid):
        p[4]["revenue"] = revenue
        p[4]["paid"] = [problem.stop_id(s) for s in stops]
    return list(dict.fromkeys(f"route {priced_routes[k][0] + 1}: {msg}" for k, msg in errors))


def _walk(problem, reading):
    """Stops, track pieces and rule breaches of one reading, in route order."""
    graph = problem.graph
    stops, resources, errors, pen = [], [], [], 0
    arrived_terminal = False
    for k, (j, forward) in enumerate(reading):
        seg = graph.segments[j]
        start, end = (seg.a, seg.b) if forward else (seg.b, seg.a)
        leave_terminal = seg.a_terminal if forward else seg.b_terminal
        if k == 0:
            stops.append(start)
        else:
            stop = graph.stops[start]
            if stop.end_only:
                errors.append(f"it passes through {_stop_name(problem, start)}, {_end_only_reason(problem, start)}")
            elif arrived_terminal or leave_terminal:
                errors.append(f"it runs through {_stop_name(problem, start)} on track that ends there")
        stops.append(end)
        arrived_terminal = seg.b_terminal if forward else seg.a_terminal
        for r in sorted(seg.resources):
            if r in resources:
                errors.append(_used_twice(graph, r))
            resources.append(r)
        pen |= int(problem.penalty_mask_by_seg[j])
    seen: dict = {}
    for s in stops:
        loc = int(problem.loc_by_stop[s])
        if loc in seen:
            a, b = seen[loc], s
            same = a == b
            errors.append(
                f"it reaches {_stop_name(problem, s)} twice"
                if same
                else f"it reaches {_stop_name(problem, a)} and {_stop_name(problem, b)}, one location, twice"
            )
        seen[loc] = s
    errors += _group_errors(problem, stops)
    return stops, resources, errors, pen


def _group_errors(problem, stops) -> list:
    """Two stops of a route whose groups overlap though their locations differ (lib/engine/route.rb
    #revenue: "Cannot use group ... more than once"; the same groups are one location, above)."""
    graph = problem.graph
    errors = []
    for i, a in enumerate(stops):
        for b in stops[i + 1 :]:
            la, lb = graph.stops[a].location, graph.stops[b].location
            if la == lb or not (la.startswith("group:") and lb.startswith("group:")):
                continue
            shared = set(la[6:].split("|")) & set(lb[6:].split("|"))
            if shared:
                errors.append(
                    f"it reaches {_stop_name(problem, a)} and {_stop_name(problem, b)}, both of group"
                    f" {sorted(shared)[0]}, which a route may use once"
                )
    return errors


def _hex_track_errors(problem, t: int, segs: list) -> list:
    """Why a train counting hex edges may not run some of these segments (a gauge change between
    stops in 1849, an off-board for 1844's H trains: optimizer/games/hex_trains.py)."""
    if problem.hex_cap_by_train[t] < 0 or not any(problem.hex_edges_by_train_seg[t][j] >= HEX_FORBIDDEN for j in segs):
        return []
    reasons = problem.rules.hex_edges(problem.graph, problem.specs[t])
    return list(dict.fromkeys(reasons[j][1] for j in segs if reasons[j][1]))


def _local_stops(problem, reading) -> list:
    """The stops a one-city run names: the stop, or every stop of the hex."""
    kind, where = reading
    if kind == "local":
        return [where]
    return [i for i, s in enumerate(problem.graph.stops) if s.hex == where]


def _local_cities_once(problem, priced_routes) -> None:
    """Where the rules say so, no city (or hex with a city) on the routes of two local trains
    (lib/engine/game/g_1822/game.rb#check_local_cities, g_1866/game.rb#check_overlap)."""
    how = problem.local_cities_once
    seen: dict = {}
    for i, _, t, stops, entry in priced_routes if how else ():
        if not problem.local_by_train[t]:
            continue
        for s in stops:
            stop = problem.graph.stops[s]
            key = stop.hex if how == "hex" else s
            if stop.kind != "city":
                continue
            if key in seen and seen[key] != i:
                entry["errors"].append(
                    f"local trains may use {_stop_name(problem, s)} once; route {seen[key] + 1} already does"
                )
                entry["legal"] = False
                entry["revenue"] = 0
            seen.setdefault(key, i)


def _paid_once(problem, priced_routes) -> None:
    """Where a stop already on an earlier route pays nothing (``Problem.paid_once``: g_1877_stockholm_tramways
    /game.rb and g_1862/game.rb #stop_on_other_route?), each route, in the order listed, is priced in its run
    (``revenue.paid_once_run``)."""
    if not problem.paid_once:
        return
    ordered = sorted(priced_routes, key=lambda p: p[0])
    run = paid_once_run(problem, [(t, stops, priced) for _, priced, t, stops, _ in ordered])
    for (_, _, _, _, entry), (revenue, paid) in zip(ordered, run):
        entry["revenue"] = revenue
        entry["paid"] = [problem.stop_id(s) for s in paid]


def _price_local(problem, entry, reading, t, priced_routes, i):
    """A local train's run of one city holding the company's token, on no track (lib/engine/route.rb
    #connection_data: ``["local", HEX]`` is the hex's city the company has a token in)."""
    kind, where = reading
    tokened = [s for s in _local_stops(problem, reading) if problem.token_by_stop[s]]
    if not tokened:
        name = where if kind == "local_hex" else _stop_name(problem, where)
        entry["errors"].append(f"a local run needs a city holding the company's token; {name} holds none")
    else:
        priced = price_route(problem, t, tokened[:1])
        entry["stops"] = [problem.stop_id(tokened[0])]
        entry["hexes"] = [["local", problem.graph.stops[tokened[0]].hex]]
        entry["errors"] = priced.errors
        if priced.legal:
            entry["revenue"] = priced.revenue
            entry["paid"] = [problem.stop_id(s) for s in priced.paid]
            priced_routes.append((i, priced, t, tokened[:1], entry))
    entry["legal"] = not entry["errors"]


def _price_pullman(problem, entry, reading, priced_routes):
    """18EU Pullman: doubles one city or off-board of another train's run."""
    kind, where = reading
    graph = problem.graph
    wanted = set(_local_stops(problem, reading))
    best = None
    for _, priced, t, *_ in priced_routes:
        for s in priced.paid:
            if s in wanted and problem.large_by_stop[s]:
                v = int(problem.values_by_train_stop[t][s])
                if best is None or v > best[0]:
                    best = (v, s)
    if best is None:
        entry["errors"].append(_pullman_miss(problem, wanted, where if kind == "local_hex" else None))
    else:
        entry["revenue"] = best[0]
        entry["stops"] = entry["paid"] = [problem.stop_id(best[1])]
        entry["hexes"] = [["local", graph.stops[best[1]].hex]]
    entry["legal"] = not entry["errors"]


def _pullman_miss(problem, wanted, hex_id) -> str:
    """Why the Pullman doubles nothing where it was placed, in a player's words."""
    large = [s for s in wanted if problem.large_by_stop[s]]
    place = hex_id or _stop_name(problem, next(iter(wanted)))
    if not large:
        towns = wanted and all(problem.graph.stops[s].kind == "town" for s in wanted)
        kind = "a town" if towns else "not a city or off-board"
        return f"the Pullman doubles a city or off-board, and {place} is {kind}"
    return f"the Pullman doubles a city or off-board that another train counts, and no other train counts {place}"


def _used_twice(graph, r) -> str:
    if r < len(graph.side_names):
        a, b = graph.side_names[r].split("/")
        return f"the route crosses the side between {a} and {b} twice"
    return f"the route runs twice over the track inside {graph.inner_names[r - len(graph.side_names)].split()[0]}"


def _resource_name(graph, r) -> str:
    if r < len(graph.side_names):
        a, b = graph.side_names[r].split("/")
        return f"side between {a} and {b}"
    return f"track inside {graph.inner_names[r - len(graph.side_names)].split()[0]}"


def _stop_name(problem, s) -> str:
    stop = problem.graph.stops[s]
    return f"{stop.name} ({stop.id})" if stop.name else stop.id


def _end_only_reason(problem, s) -> str:
    stop = problem.graph.stops[s]
    if stop.kind == "offboard" or stop.red:
        return "an off-board that may only start or end a route"
    if stop.kind == "city" and problem.rules.blocks(
        problem.board.hexes[stop.hex], problem.board.hexes[stop.hex].tile.nodes[stop.node]
    ):
        return "whose slots are all taken by other companies' tokens"
    return "which may only start or end a route"
