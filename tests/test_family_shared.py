"""Routes that share track, and a stop paid once a run (``routes_share_track``, ``stops_paid_once``).

The engine's code is the authority (no rulebook of the title here):
lib/engine/game/g_1877_stockholm_tramways/game.rb ``#check_overlap`` (empty: routes may share track),
``#check_overlap_single`` (a route may not reuse its own), ``#compute_other_paths`` (``[]``),
``#revenue_for`` and ``#stop_on_other_route?`` (a stop already on an earlier route of the run pays
nothing), ``#check_distance``, ``#route_distance``, ``#hex_edge_cost`` (every train counts hex edges).
The engine itself judges our answers on the title's catalogue states (benchmarks/engine_judge.py);
the checker and the twin searches are tested on real and random boards.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.inputs import input_fields
from optimizer.board.state import read_board
from optimizer.core import compiled
from optimizer.games import rules_class
from optimizer.games.declared import DeclaredRules
from optimizer.graph.problem import any_train_without_token, build_problem, problem_from_graph
from optimizer.graph.walks import build_track_graph
from optimizer.revenue import paid_once_routes, price_route

from .boards import bonuses, small_boards
from .test_catalog_rules import catalog_state
from .test_engine_oracle import _engine, judge
from .twins import searches_agree

TITLE = "1877: Stockholm Tramways"
# Every catalogue state of the title: the engine judged 3 of 8 right with the generic rules
# (/work/judge-final2.txt, main at 586e153), each other one for these rules: two routes paying a
# stop twice (@66 ours 100, engine 70; @119 190/150; @179 310/250; @228 320/260) or a train counting
# stops, not hex edges (@267: 180, the router 210).
STATES = [f"1877StockholmTramways/87970@{a}" for a in (66, 119, 179, 228, 267, 429, 437, 444)]
# What the engine priced our generic answer's routes at (the same run), the stop paid once.
GENERIC_PRICED = {"1877StockholmTramways/87970@66": 70, "1877StockholmTramways/87970@228": 260}


@pytest.mark.corpus
@pytest.mark.slow
def test_the_engine_judges_every_stockholm_state_right():
    """The engine accepts our routes on every state of the title, prices them at our revenue, proven,
    and at least its router's (8 of 8; 3 of 8 with the generic rules)."""
    engine = _engine()
    states = [catalog_state(s) for s in STATES]
    verdicts = judge.judge(states, engine, jobs=1)
    assert len(verdicts) == len(STATES)
    for v in verdicts:
        assert v.right, f"{v.id}: {v.reason()}"
        assert v.rules == TITLE


def test_two_routes_share_a_stop_and_track_and_it_pays_once():
    """@66: two 2H trains. The generic answer runs them on track of their own and is paid F6 twice
    (100); the engine priced those routes at 70 (F6 paid to the first route only), and so does the
    checker now. Our answer earns 70 too, both routes through F6, on shared track where it helps."""
    state = catalog_state(STATES[0])
    doc = input_fields(state)
    generic = api.solve(dict(doc, game=doc["game"] + " (no rules)"))
    assert generic["revenue"] == 100
    checked = api.check(doc, [{"train": r["train"], "hexes": r["hexes"]} for r in generic["routes"]])
    assert checked["legal"] and checked["revenue"] == GENERIC_PRICED[STATES[0]]
    first, second = checked["routes"]
    assert "F6._1" in first["paid"] and "F6._1" not in second["paid"]  # F6 pays the first route only
    assert first["revenue"] + second["revenue"] == 70
    answer = api.solve(doc)
    assert answer["optimal"] and answer["revenue"] == 70 == state["expected"]["router"]["revenue"]
    assert answer["unsupported"] == []
    mine = api.check(doc, [{"train": r["train"], "hexes": r["hexes"]} for r in answer["routes"]])
    assert mine["legal"] and mine["revenue"] == 70
    assert [r["revenue"] for r in mine["routes"]] == [r["revenue"] for r in answer["routes"]]


def test_the_checker_prices_routes_in_the_order_listed():
    """@228: the generic answer's three routes, checked in two orders: each stop is paid to the first
    route listed that visits it, and the run earns 260 (the engine's price of them) either way."""
    doc = input_fields(catalog_state(STATES[3]))
    generic = api.solve(dict(doc, game=doc["game"] + " (no rules)"))
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in generic["routes"]]
    forward = api.check(doc, routes)
    backward = api.check(doc, routes[::-1])
    assert forward["revenue"] == backward["revenue"] == GENERIC_PRICED[STATES[3]]
    seen: set = set()
    for entry in forward["routes"]:
        assert not seen & set(entry["paid"])
        seen |= set(entry["stops"])


def test_a_route_may_not_reuse_its_own_track():
    """g_1877_stockholm_tramways/game.rb#check_overlap_single: two routes may share track, one route
    may not use a piece of track twice."""
    doc = input_fields(catalog_state(STATES[0]))
    answer = api.solve(doc)
    [a, b] = answer["routes"]
    both = api.check(doc, [{"train": a["train"], "hexes": a["hexes"]}, {"train": b["train"], "hexes": a["hexes"]}])
    assert both["legal"]  # the same track twice, on two routes: legal, the second route paid nothing
    assert both["routes"][1]["revenue"] == 0
    there_and_back = a["hexes"] + [chain[::-1] for chain in a["hexes"][::-1]]
    verdict = api.check(doc, [{"train": a["train"], "hexes": there_and_back}])
    assert not verdict["legal"]


def test_every_train_counts_hex_edges_and_its_routes_share_no_overlap_group():
    """Every train of the title counts hex edges (its distance), pays every stop, and runs in an overlap
    group of its own; the rules are the title's data, not a module."""
    problem = build_problem(input_fields(catalog_state(STATES[3])))
    assert problem.paid_once == 1
    assert problem.n_track_groups == problem.n_trains == 3
    assert sorted(problem.track_group_by_train.tolist()) == [0, 1, 2]
    for train, spec in zip(problem.trains, problem.specs):
        assert spec.pays_all and spec.hex_cap == train.distance
    assert rules_class(TITLE).declared["stops_paid_once"] is True


def test_trains_choosing_their_stops_go_to_the_reference():
    """Stops paid once, where a train pays some of the stops it visits (an express: the engine picks
    them across the run, g_1862/game.rb#global_optimize): the kernel does not price it, the reference
    answers."""
    doc = input_fields(catalog_state(STATES[0]))
    doc = json.loads(json.dumps(doc))
    doc["trains"][0]["distance"] = [{"nodes": ["city"], "pay": 1, "visit": 2}]  # an express: its best city
    problem = build_problem(doc)
    assert problem.paid_once and not problem.pays_all_by_train[0]
    assert compiled.reference_rules(problem)
    assert compiled.search(problem).core == "python"


@st.composite
def paid_once_problems(draw, doc):
    """The board's problem with every train counting hex edges (a distance of 1 to 4) under
    ``stops_paid_once``, its routes sharing track or not."""
    doc = json.loads(json.dumps(doc))
    for t in doc["trains"]:
        d = draw(st.integers(1, 4))
        t.update(name=f"{d}H", distance=d)
    family = {"hex_distance": {"trains": "integer"}, "stops_paid_once": True}
    if draw(st.booleans()):
        family["routes_share_track"] = True
    board = read_board(doc)
    rules = DeclaredRules.for_game("random", {}, family)(board)
    reachable_only = not any_train_without_token(board, rules)
    return problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=reachable_only))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_when_stops_pay_once_a_run(data):
    """Random boards, hex trains, routes sharing track or not, bonuses at times: the reference, nested and
    packing searches (packing declines: the nested search runs) agree, and (without bonuses) every
    answer's routes pay each stop once: its revenue is the routes' own prices less what their stops
    paid earlier routes."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=1, max_trains=3))
    problem = data.draw(paid_once_problems(doc))
    with_bonuses = data.draw(st.booleans())
    if with_bonuses:
        data.draw(bonuses(problem))
    ref, nested, packing = searches_agree(problem)
    if with_bonuses:
        return  # company-level bonuses (a Pullman, best-route awards) sit beside the routes' prices
    for result in (ref, nested, packing):
        assert [r.train for r in result.routes] == sorted(r.train for r in result.routes)
        seen: set = set()
        total = 0
        for route in result.routes:
            segs = [int(problem.seg_by_dir[d]) for d in route.dsegs]
            pen = 0
            for j in segs:
                pen |= int(problem.penalty_mask_by_seg[j])
            alone = price_route(problem, route.train, route.stops, pen, segs)
            assert alone.legal
            again = sum(int(problem.values_by_train_stop[route.train][s]) for s in route.stops if s in seen)
            assert route.revenue == alone.revenue - again
            assert not seen & set(route.paid)
            seen |= set(route.stops)
            total += route.revenue
        assert total == result.revenue
        assert paid_once_routes(problem, result.routes) == result.routes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_paying_once_never_earns_more_than_paying_each_route(data):
    """The same board without the rule (routes priced alone, on track of their own) is a bound of it
    when routes may not share track: the rule only takes revenue away."""
    doc = data.draw(small_boards(max_hexes=8, min_trains=1, max_trains=2))
    doc = json.loads(json.dumps(doc))
    for t in doc["trains"]:
        t.update(name="3H", distance=3)
    board = read_board(doc)
    once = DeclaredRules.for_game("random", {}, {"hex_distance": {"trains": "integer"}, "stops_paid_once": True})
    plain = DeclaredRules.for_game("random", {}, {"hex_distance": {"trains": "integer"}})
    results = []
    for cls in (once, plain):
        rules = cls(board)
        reachable_only = not any_train_without_token(board, rules)
        problem = problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=reachable_only))
        results.append(searches_agree(problem)[0].revenue)
    assert results[0] <= results[1]


# ---- 1862: freight trains paid by their ends and the crow-flight distance between them ----------------
# g_1862/game.rb#freight_revenue, #hex_crow_distance, #adjust_end, #freight_bonus, #check_distance,
# #check_london. The states of a run of one train the engine judged wrong before (/work/judge-final2.txt:
# @288 "Route cannot begin/end in a town", @592 ours 330 engine 170, @683 340/140, @701 430/170) and the
# one it judged right (@102, an express), all right now; and @456 (two 2/3E and a 3F: their routes
# meet, share track, and each stop pays once, the expresses' paid stops picked across the run).
RIGHT_1862 = [f"1862/46925@{a}" for a in (102, 288, 456, 592, 683, 701)]
# Runs of several freight trains, named unsupported (coverage.json): freight sets.
LEFT_1862 = [f"1862/46925@{a}" for a in (161, 655)]


@pytest.mark.corpus
@pytest.mark.slow
def test_the_engine_judges_1862_runs_of_one_train_right():
    """The engine accepts our routes on 1862's states of one train and @456, prices them at our revenue,
    proven, at least its router's; the others still name what they lack."""
    engine = _engine()
    verdicts = {v.id: v for v in judge.judge([catalog_state(s) for s in RIGHT_1862], engine, jobs=1)}
    for state_id in RIGHT_1862:
        assert verdicts[state_id].right, f"{state_id}: {verdicts[state_id].reason()}"
    for state_id in LEFT_1862:
        answer = api.solve(input_fields(catalog_state(state_id)), deadline_ms=1000)
        assert any("freight trains meeting end to end" in line for line in answer["unsupported"])


@pytest.mark.parametrize("state_id", RIGHT_1862[1:])
def test_the_checker_prices_the_recorded_freight_routes_as_the_engine_did(state_id):
    """Each state's recorded routes (a player's, which the engine priced when the game was played:
    ``recheck_revenue``) are legal, and the checker pays them what the engine paid: at @456 two
    expresses and a freight train meeting at E12, each stop paid once (150, 180, 240)."""
    state = catalog_state(state_id)
    doc = input_fields(state)
    routes = state["expected"]["human"]["routes"]
    verdict = api.check(doc, [{"train": r["train"], "hexes": r["hexes"]} for r in routes])
    assert verdict["legal"], verdict
    assert [r["revenue"] for r in verdict["routes"]] == [r["recheck_revenue"] for r in routes]
    answer = api.solve(doc)
    best_known = max(state["expected"]["router"]["revenue"], state["expected"]["human_recheck"])
    assert answer["optimal"] and answer["revenue"] == best_known  # @456: the player's 570, the router 530


def test_a_freight_train_is_paid_its_ends_and_the_crow_flight_hexes():
    """@592: the 6F runs F5-F7-E8-D9-C10-C12-C14 and is paid F5 (60) and London's C14 (200 in phase H:
    the purple column, REAL_PHASE_TO_REV_PHASE) only, plus 20 for each of the 5 hexes between F5 and
    C12 (the hex the route enters London from, #adjust_end) as the crow flies, London itself counted:
    360, what the engine paid."""
    state = catalog_state("1862/46925@592")
    doc = input_fields(state)
    [route] = state["expected"]["human"]["routes"]
    problem = build_problem(doc, reachable_only=False)
    [t] = [i for i, train in enumerate(problem.trains) if train.id == route["train"]]
    assert problem.freight_by_train[t] == (20, 30) and problem.specs[t].hex_cap == 6
    [entry] = api.check(doc, [{"train": route["train"], "hexes": route["hexes"]}])["routes"]
    assert entry["paid"] == ["F5._0", "C14._0"] and entry["revenue"] == 360
    ids = {s.id: i for i, s in enumerate(problem.graph.stops)}
    values = problem.values_by_train_stop[t]
    assert (int(values[ids["F5._0"]]), int(values[ids["C14._0"]])) == (60, 200)
    assert entry["revenue"] - 60 - 200 == 5 * 20


def test_no_route_runs_red_to_red_or_port_to_port():
    """g_1862/game.rb#check_distance: "Route cannot visit two red offboards or two ports", for every
    train (``unlike_ends``): priced by any train, such ends are refused; a red and a blue end are not."""
    from optimizer.revenue import end_colour_errors

    problem = build_problem(input_fields(catalog_state("1862/46925@655")), reachable_only=False)
    assert problem.unlike_end_colours == ("red", "blue")
    by_colour = {}
    for i, s in enumerate(problem.graph.stops):
        by_colour.setdefault(problem.board.hexes[s.hex].color, []).append(i)
    for colour in ("red", "blue"):
        two = by_colour[colour][:2]
        assert end_colour_errors(problem, two) == [f"a route may not begin and end on {colour} hexes"]
        for t in range(problem.n_trains):  # an express and two freight trains
            assert not price_route(problem, t, two, 0, [0]).legal
    assert end_colour_errors(problem, [by_colour["red"][0], by_colour["blue"][0]]) == []


def test_no_route_reaches_london_without_a_token_on_b15_or_d15():
    """@701: ENR holds no token on B15 or D15 (g_1862/game.rb#london_link?); its 9F could otherwise
    run F1 to London's A12 for 540. The engine refused that ("Train cannot visit London w/o link"); the
    checker refuses it too, and our answer (400, the engine's) stays out of London."""
    doc = input_fields(catalog_state("1862/46925@701"))
    board = read_board(doc)
    family = {k: v for k, v in rules_class("1862").declared.items() if k != "linked_stops"}
    rules = DeclaredRules.for_game("1862 without London's link", {}, family)(board)
    unlinked = problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=True))
    [route] = searches_agree(unlinked)[0].routes
    stops = [unlinked.graph.stops[s] for s in route.stops]
    assert stops[-1].hex == "A12" or stops[0].hex == "A12"
    chains = []
    for a, d in zip(route.stops, route.dsegs):
        seg = unlinked.graph.segments[int(unlinked.seg_by_dir[d])]
        chains.append(list(seg.hexes if seg.a == a else seg.hexes[::-1]))
    train = unlinked.trains[route.train].id
    verdict = api.check(doc, [{"train": train, "hexes": chains}])
    assert not verdict["legal"]
    assert any("holds no token on B15 or D15" in e for e in verdict["routes"][0]["errors"]), verdict
    answer = api.solve(doc)
    assert answer["revenue"] == 400 and not any("A12" in str(r["hexes"]) for r in answer["routes"])


# ---- 1860 and 1862: a run's routes must all meet (routes_meet) --------------------------------------
# g_1860/game.rb and g_1862/game.rb #check_intersection, from #check_route_combination.


def test_routes_linked_through_shared_stops():
    """Every route of track linked to the others through stops they share, directly or not; runs of
    one stop (a local run) are left out, as the engine leaves out routes without chains."""
    from optimizer.games.routes_meet import routes_linked

    assert routes_linked([]) and routes_linked([[1, 2]]) and routes_linked([[1, 2], [7]])
    assert routes_linked([[1, 2], [2, 3], [3, 4]])  # the first and the last meet through the second
    assert not routes_linked([[1, 2], [3, 4]])
    assert not routes_linked([[1, 2], [2, 3], [5, 6]])


def test_1862_routes_that_do_not_meet_are_refused():
    """@456 (two 2/3E and a 3F): without the rule the best run's routes do not all meet (the engine
    refused it: "Routes must intersect with each other"); the checker refuses it, and our answer meets."""
    from optimizer.games.routes_meet import MEET_ERROR, routes_linked

    state_id = "1862/46925@456"
    doc = input_fields(catalog_state(state_id))
    board = read_board(doc)
    family = {k: v for k, v in rules_class("1862").declared.items() if k != "routes_meet"}
    rules = DeclaredRules.for_game("1862 with routes apart", {}, family)(board)
    apart = problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=True))
    found = searches_agree(apart)[0]
    assert not routes_linked([r.stops for r in found.routes])
    routes = []
    for route in found.routes:
        chains = []
        for a, d in zip(route.stops, route.dsegs):
            seg = apart.graph.segments[int(apart.seg_by_dir[d])]
            chains.append(list(seg.hexes if seg.a == a else seg.hexes[::-1]))
        routes.append({"train": apart.trains[route.train].id, "hexes": chains})
    verdict = api.check(doc, routes)
    assert not verdict["legal"] and MEET_ERROR in verdict["errors"]
    answer = api.solve(doc)
    problem = build_problem(doc)
    ids = {s.id: i for i, s in enumerate(problem.graph.stops)}
    assert routes_linked([[ids[s] for s in r["stops"]] for r in answer["routes"]])
    assert api.check(doc, [{"train": r["train"], "hexes": r["hexes"]} for r in answer["routes"]])["legal"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_when_routes_must_meet(data):
    """Random boards under ``routes_meet``: the reference and the compiled searches (the kernel's
    optimum where it keeps the rule, else the reference) agree, and every answer's routes meet."""
    from optimizer.games.routes_meet import routes_linked

    doc = data.draw(small_boards(max_hexes=10, min_trains=2, max_trains=3))
    board = read_board(doc)
    rules = DeclaredRules.for_game("random", {}, {"routes_meet": True})(board)
    reachable_only = not any_train_without_token(board, rules)
    problem = problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=reachable_only))
    for result in searches_agree(problem):
        assert routes_linked([r.stops for r in result.routes])
