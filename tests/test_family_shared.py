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
from optimizer.errors import BoardError
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


def test_a_train_that_pays_some_stops_only_is_refused():
    """Paying each stop once a run is defined here for trains that pay all their stops (hex trains):
    an express (paid its best stops of those it visits) is refused, naming it."""
    doc = input_fields(catalog_state(STATES[0]))
    doc = json.loads(json.dumps(doc))
    doc["trains"][0]["distance"] = [{"nodes": ["city"], "pay": 1, "visit": 2}]  # an express: its best city
    with pytest.raises(BoardError, match="stops_paid_once needs train"):
        build_problem(doc)


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
