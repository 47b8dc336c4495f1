"""The route checker: is a player's set of routes legal, what does it earn, and if not, why not.

Routes come in the corpus's shape: ``{"train": id, "hexes": [[hex ids of one chain], ...]}`` (one
chain per connection between two stops, in route order, each in either direction;
``["local", HEX]`` for a one-city run) or ``{"train": id, "stops": ["HEX._N", ...]}``. Each route
is read as track of the board's graph; where a chain could be read two ways, every reading is
tried and the legal, richer one kept. Reasons are plain words a player understands.
"""
from __future__ import annotations

from itertools import product

from ..errors import RoutesError
from ..graph.problem import build_problem
from .revenue import best_route_awards, price_route, visit_errors

MAX_READINGS = 64


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
    parsed = []
    seen_trains = set()
    for i, route in enumerate(routes):
        where = f"routes[{i}]"
        if not isinstance(route, dict) or "train" not in route:
            raise RoutesError(f"{where}: each route is an object with a train and hexes or stops", field=where)
        train = str(route["train"])
        if train not in trains and train not in bonus_trains:
            known = ", ".join(list(trains) + list(bonus_trains)) or "none"
            raise RoutesError(f"{where}.train: unknown train {train!r} (this company runs: {known})",
                              field=f"{where}.train")
        if train in seen_trains:
            raise RoutesError(f"{where}.train: train {train} has two routes", field=f"{where}.train")
        seen_trains.add(train)
        parsed.append((i, train, _readings(problem, route, where)))

    best = None
    choices = [p[2] or [None] for p in parsed]
    for n, combo in enumerate(product(*choices)):
        if n >= 4096:
            break
        answer = _evaluate(problem, parsed, combo, trains, bonus_trains)
        key = (answer["legal"], -sum(len(r["errors"]) for r in answer["routes"]), answer["revenue"])
        if best is None or key > best[0]:
            best = (key, answer)
    return best[1] if best else {"legal": True, "revenue": 0, "routes": []}


# ---- reading routes as track ---------------------------------------------------------------------

def _readings(problem, route: dict, where: str) -> list:
    """Every way to read a route as a walk over the track graph: lists of (segment, forward)."""
    graph = problem.graph
    index = graph.stop_index()
    if "stops" in route and route["stops"] is not None:
        stops = route["stops"]
        if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
            raise RoutesError(f"{where}.stops must be a list of stop ids like \"H12._0\"", field=f"{where}.stops")
        for k, s in enumerate(stops):
            if s not in index:
                _unknown_place(problem, s.split(".")[0], f"{where}.stops[{k}]", stop=s)
        if len(stops) == 1:
            return [("local", index[stops[0]])]
        options = []
        for k, (a, b) in enumerate(zip(stops, stops[1:])):
            ia, ib = index[a], index[b]
            segs = [(j, seg.a == ia) for j, seg in enumerate(graph.segments)
                    if {seg.a, seg.b} == {ia, ib}]
            if not segs:
                raise RoutesError(f"{where}.stops: no track joins {a} and {b} without another stop between",
                                  field=f"{where}.stops[{k + 1}]")
            options.append(segs)
        return [list(c) for c in product(*options)][:MAX_READINGS]
    chains = route.get("hexes")
    if chains is None:
        raise RoutesError(f"{where}: give hexes (chains of hex ids) or stops", field=where)
    if not isinstance(chains, list) or not all(isinstance(c, list) and c for c in chains):
        raise RoutesError(f"{where}.hexes must be a list of chains, each a list of hex ids", field=f"{where}.hexes")
    if not chains:
        return []  # the train runs nothing
    if chains[0] and chains[0][0] == "local":
        if len(chains) != 1 or len(chains[0]) != 2:
            raise RoutesError(f"{where}.hexes: a local run is [[\"local\", HEX]]", field=f"{where}.hexes")
        hex_id = chains[0][1]
        _check_hex(problem, hex_id, f"{where}.hexes[0][1]")
        return [("local_hex", hex_id)]
    candidates = []
    for k, chain in enumerate(chains):
        for m, hex_id in enumerate(chain):
            _check_hex(problem, hex_id, f"{where}.hexes[{k}][{m}]")
        found = [j for j, seg in enumerate(graph.segments)
                 if list(seg.hexes) == list(chain) or list(seg.hexes) == list(reversed(chain))]
        if not found:
            reason = _why_no_track(problem, chain)
            raise RoutesError(f"{where}.hexes[{k}]: {reason}", field=f"{where}.hexes[{k}]", hex=chain[0])
        candidates.append(found)
    walks = []

    def extend(k, at, walk):
        if len(walks) >= MAX_READINGS:
            return
        if k == len(candidates):
            walks.append(list(walk))
            return
        for j in candidates[k]:
            seg = graph.segments[j]
            for forward in (True, False):
                start, end = (seg.a, seg.b) if forward else (seg.b, seg.a)
                if at is None or start == at:
                    walk.append((j, forward))
                    extend(k + 1, end, walk)
                    walk.pop()

    extend(0, None, [])
    if not walks:
        raise RoutesError(f"{where}.hexes: its chains do not join end to end into one run of track",
                          field=f"{where}.hexes")
    return walks


def _check_hex(problem, hex_id, field):
    if not isinstance(hex_id, str) or hex_id not in problem.board.hexes:
        raise RoutesError(f"{field}: hex {hex_id!r} is not on the board", field=field, hex=str(hex_id))


def _unknown_place(problem, hex_id, field, stop):
    _check_hex(problem, hex_id, field)
    raise RoutesError(f"{field}: {stop} is not a stop of hex {hex_id}", field=field, hex=hex_id)


def _why_no_track(problem, chain) -> str:
    rules, board = problem.rules, problem.board
    for hex_id in chain:
        hx = board.hexes[hex_id]
        for node in hx.tile.nodes:
            if node.is_stop and rules.forbidden(hx, node):
                return rules.forbidden_reason(hx, node)
    return f"no track runs from stop to stop along {'-'.join(chain)}"


# ---- judging one reading ------------------------------------------------------------------------

def _evaluate(problem, parsed, combo, trains, bonus_trains) -> dict:
    graph = problem.graph
    out_routes = []
    used = {}  # resource -> route number that used it
    priced_routes = []
    pullmen = []
    for (i, train, _), reading in zip(parsed, combo):
        entry = {"train": train, "legal": True, "revenue": 0, "stops": [], "paid": [], "hexes": [], "errors": []}
        out_routes.append(entry)
        if reading is None:
            continue  # runs nothing
        if isinstance(reading, tuple):
            pullmen.append((entry, reading))
            continue
        t = trains.get(train)
        if t is None:
            entry["errors"].append(f"the {bonus_trains[train].name} train does not run a route of its own")
            continue
        stops, resources, errors, pen = _walk(problem, reading)
        entry["stops"] = [problem.stop_id(s) for s in stops]
        entry["hexes"] = [list(graph.segments[j].hexes if fwd else reversed(graph.segments[j].hexes))
                          for j, fwd in reading]
        for r in resources:
            if r in used:
                errors.append(f"route {i + 1} uses the {_resource_name(graph, r)} that route {used[r] + 1} already uses")
            else:
                used[r] = i
        errors = list(dict.fromkeys(errors + visit_errors(problem, t, stops)))
        if not errors:
            priced = price_route(problem, t, stops, pen)
            errors = priced.errors
            if priced.legal:
                entry["revenue"] = priced.revenue
                entry["paid"] = [problem.stop_id(s) for s in priced.paid]
                priced_routes.append((i, priced, t, stops, entry))
        entry["errors"] = errors
        entry["legal"] = not errors
    for entry, reading in pullmen:
        _price_pullman(problem, entry, reading, priced_routes)
    if all(entry["legal"] for entry in out_routes):  # each best-route bonus on the route earning it most
        for k, amount in best_route_awards(problem, [p[3] for p in priced_routes]):
            priced_routes[k][4]["revenue"] += amount
    legal = all(r["legal"] for r in out_routes)
    return {"legal": legal, "revenue": sum(r["revenue"] for r in out_routes if r["legal"]), "routes": out_routes}


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
                errors.append(f"it uses the {_resource_name(graph, r)} twice")
            resources.append(r)
        pen |= int(problem.seg_pen[j])
    seen = {}
    for s in stops:
        loc = int(problem.loc[s])
        if loc in seen:
            a, b = seen[loc], s
            same = a == b
            errors.append(f"it reaches {_stop_name(problem, s)} twice" if same else
                          f"it reaches {_stop_name(problem, a)} and {_stop_name(problem, b)}, one location, twice")
        seen[loc] = s
    return stops, resources, errors, pen


def _price_pullman(problem, entry, reading, priced_routes):
    """18EU Pullman: doubles one city or off-board of another train's run."""
    kind, where = reading
    graph = problem.graph
    if kind == "local":
        wanted = {where}
    else:
        wanted = {i for i, s in enumerate(graph.stops) if s.hex == where}
    best = None
    for _, priced, t, *_ in priced_routes:
        for s in priced.paid:
            if s in wanted and problem.large[s]:
                v = int(problem.values[t][s])
                if best is None or v > best[0]:
                    best = (v, s)
    place = where if kind == "local_hex" else problem.stop_id(where)
    if not problem.double_best_large:
        entry["errors"].append("this train is not a Pullman and cannot run alone on one city")
    elif best is None:
        entry["errors"].append(f"the Pullman doubles a city or off-board on another train's run; {place} is on none")
    else:
        entry["revenue"] = best[0]
        entry["stops"] = entry["paid"] = [problem.stop_id(best[1])]
        entry["hexes"] = [["local", graph.stops[best[1]].hex]]
    entry["legal"] = not entry["errors"]


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
    if stop.kind == "city" and problem.rules.blocks(problem.board.hexes[stop.hex],
                                                      problem.board.hexes[stop.hex].tile.nodes[stop.node]):
        return "whose slots are all taken by other companies' tokens"
    return "which may only start or end a route"
