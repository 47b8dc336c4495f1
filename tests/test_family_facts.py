"""Branch ``facts``: rules the board document does carry, read as the engine reads them. 18Uruguay's 4D
train (``multiplied_trains``, ``trains_kept_off``), 18Mag's majors' tokens (``city_token_bonus``) and
18Rhl's 8 train (``end_hexes``, ``trains_kept_off``, ``no_town_ends``' ``except_trains``), each below.

The engine's code is the reference (lib/engine/game/g_18_uruguay/game.rb): ``#revenue_for`` pays a train
named ``4D`` twice its stops (``revenue *= 2 if route.train.name == '4D'``), and ``#check_distance``
refuses a 4D route visiting a port ("4D trains cannot deliver goods"; goods.rb#visits_include_port?, the
``PORTS`` E1 G1 I1 J14 K5 K7 K13: the England off-boards). Its rows (``[{offboard, city: 4}, {town: pay 0,
visit 999}]``) let its towns ride free and unpaid, as every title's rows do; the England off-boards'
``visit_cost:0`` costs no distance by the generic rule (``Problem.free_by_stop``), which is why the
title no longer declares ``free_visits`` (that counted every town as a city, the 4D's too).

No catalogue state has a 4D: the boards are the recorded game's own, built by the Ruby client at the 4D
runs (``clients/ruby/bin/run-boards``), our answers priced by the engine (``bin/price-routes``). In this
branch's run: 460, 520, 520, 520, 520 at actions 600, 668, 672, 700, 704, where the players ran 460,
520, 420, 520, 440 and main answered 200, 210, 210, 210, 220 (a 4D route to K5, which the engine refuses).
"""

from __future__ import annotations

import json
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.inputs import input_fields
from optimizer.board.state import read_board
from optimizer.games import rules_class, rules_source
from optimizer.games.declared import DeclaredRules
from optimizer.graph.problem import any_train_without_token, build_problem, problem_from_graph
from optimizer.graph.walks import build_track_graph
from optimizer.model import MINES_ANY, MINES_NONE
from optimizer.revenue import price_route

from .boards import small_boards
from .ruby import CLIENT, engine_dir, tool
from .test_catalog_rules import catalog_state
from .test_engine_oracle import judge
from .twins import searches_agree

FIXTURE = ("18Uruguay", "18Uruguay_game_end_nationalized")
PORTS = ("E1", "G1", "I1", "J14", "K5", "K7", "K13")
# action -> the engine's price of our routes (this branch's run), what the players ran there
FOUR_D = {600: (460, 460), 668: (520, 520), 672: (520, 420), 700: (520, 520), 704: (520, 440)}


def recorded_boards(game: tuple, actions) -> dict:
    """The company's board before each of these runs, built from the recorded game by the Ruby client
    (``clients/ruby/bin/run-boards``), by action id, with what the players ran there."""
    engine = engine_dir()
    fixture = engine / "public" / "fixtures" / game[0] / f"{game[1]}.json"
    proc = subprocess.run(
        [tool("ruby"), str(CLIENT / "bin" / "run-boards"), "--engine", str(engine), str(fixture)]
        + [str(a) for a in actions],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return {line["action_id"]: line for line in lines}


def engine_prices(game: tuple, answers: dict) -> dict:
    """The engine's verdict on our answers, by action id (``clients/ruby/bin/price-routes``)."""
    fixture = str(engine_dir() / "public" / "fixtures" / game[0] / f"{game[1]}.json")
    requests = [
        {
            "id": str(a),
            "fixture": fixture,
            "action_id": a,
            "routes": [{"train": r["train"], "connections": r["hexes"]} for r in answer["routes"]],
        }
        for a, answer in answers.items()
    ]
    verdicts = judge.price(requests, engine_dir())
    return {a: verdicts[str(a)] for a in answers}


@pytest.fixture(scope="module")
def boards() -> dict:
    return recorded_boards(FIXTURE, FOUR_D)


def test_18uruguay_declares_the_4d_rules():
    source, families = rules_source("18Uruguay")
    assert source == "data" and "multiplied_trains" in families and "trains_kept_off" in families
    assert "free_visits" not in families
    declared = rules_class("18Uruguay").declared
    assert declared["multiplied_trains"] == {"4D": 2}
    assert declared["trains_kept_off"] == [{"trains": ["4D"], "hexes": list(PORTS)}]


def test_our_4d_answers_are_the_engines_price(boards):
    """Each 4D board: our answer, priced by the engine, is our revenue, and at least what the players ran."""
    answers = {a: api.solve(boards[a]["board"]) for a in FOUR_D}
    verdicts = engine_prices(FIXTURE, answers)
    for a, (price, ran) in FOUR_D.items():
        answer = answers[a]
        assert answer["optimal"], a
        assert boards[a]["ran"]["revenue"] == ran, a
        assert verdicts[a].get("revenue") == answer["revenue"] == price >= ran, (a, verdicts[a], answer)
        assert not any(h in PORTS for r in answer["routes"] for chain in r["hexes"] for h in chain), a


def test_the_checker_prices_the_players_4d_route_and_refuses_a_port(boards):
    """@600: ECR's players ran G7-H4-I3-J6-I7-I9-H10, four cities and three towns (free and unpaid for a
    4D), at 460 = 2 x (70 + 30 + 90 + 40): the checker agrees. Main's answer ran on to the port K5: refused."""
    line = boards[600]
    doc = line["board"]
    ran = [{"train": r["train"], "hexes": r["connections"]} for r in line["ran"]["connections"]]
    checked = api.check(doc, ran)
    assert checked["legal"] and checked["revenue"] == 460, checked
    to_port = [{"train": "D-0", "hexes": [["G7", "H6", "H4"], ["H4", "I3"], ["I3", "I5", "J6"], ["J6", "K5"]]}]
    refused = api.check(doc, to_port)
    assert not refused["legal"], refused
    reasons = " ".join(str(x) for r in refused["routes"] for x in r.get("reasons") or r.get("errors") or ())
    assert "4D train may not visit a stop on E1" in reasons, refused


def test_the_4d_spec_and_the_ports_in_the_problem(boards):
    problem = build_problem(boards[600]["board"])
    [t] = [t for t, s in enumerate(problem.specs) if s.name == "4D"]
    assert int(problem.multiplier_by_train[t]) == 2 and int(problem.mine_rule_by_train[t]) == MINES_NONE
    ports = [i for i, s in enumerate(problem.graph.stops) if s.hex in PORTS]
    assert ports and all(problem.mine_by_stop[i] for i in ports)
    assert not any(problem.mine_by_stop[i] for i, s in enumerate(problem.graph.stops) if s.hex not in PORTS)


def test_other_trains_keep_their_pay_and_the_ports():
    """A company without a 4D: every train at multiplier 1, free to visit a port (the catalogue's @664)."""
    state = catalog_state("18Uruguay/18Uruguay_game_end_nationalized@664")
    problem = build_problem(json.loads(json.dumps(input_fields(state))))
    assert all(int(m) == 1 for m in problem.multiplier_by_train[: problem.n_trains])
    assert all(int(r) == MINES_ANY for r in problem.mine_rule_by_train[: problem.n_trains])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_on_a_multiplied_train_kept_off_some_hexes(data):
    """Random boards where one train is paid 2 or 3 times and kept off some stop hexes: the reference, the
    nested and the packing search agree, and every route is priced as the reference prices it: that
    train's routes on none of those hexes, at its sum times the multiplier."""
    doc = data.draw(small_boards(max_hexes=12, min_trains=1, max_trains=3))
    name = data.draw(st.sampled_from(sorted({t["name"] for t in doc["trains"]})))
    times = data.draw(st.integers(2, 3))
    stop_hexes = [h["id"] for h in doc["hexes"] if any(p in h["code"] for p in ("city=", "town=", "offboard="))]
    kept = data.draw(st.lists(st.sampled_from(stop_hexes), unique=True, max_size=3)) if stop_hexes else []
    families = {"multiplied_trains": {name: times}, "trains_kept_off": [{"trains": [name], "hexes": kept}]}
    board = read_board(doc)
    rules = DeclaredRules.for_game("random", {}, families)(board)
    problem = problem_from_graph(
        board, rules, build_track_graph(board, rules, reachable_only=not any_train_without_token(board, rules))
    )
    for t, spec in enumerate(problem.specs):
        given_multiplier = next(x.get("multiplier") or 1 for x in doc["trains"] if x["name"] == spec.name)
        assert int(problem.multiplier_by_train[t]) == given_multiplier * (times if spec.name == name else 1)
    ref, nested, packing = searches_agree(problem)
    for result in (ref, nested, packing):
        for route in result.routes:
            priced = price_route(problem, route.train, route.stops)
            assert priced.legal and priced.revenue == route.revenue, (route, priced.errors)
            if problem.specs[route.train].name == name:
                assert not any(problem.graph.stops[s].hex in kept for s in route.stops), route


# ---- 18Mag: 10 a major's token in a paid city (city_token_bonus) ------------------------------------------
# lib/engine/game/g_18_mag/game.rb#revenue_for: ``corp_tokens = stops.select(&:city?).sum { |c| c.tokens.count
# { |t| t&.corporation&.corporation? } }`` times CORP_TOKEN_REVENUE (10): the majors are Engine::Corporations,
# the minors that run and the mines' neutral tokens (a Minor, #setup) are not. In the recorded game the one
# major's token on the map, SIK's in C12, lies on a city with no track, so no run there has an engine price:
# the rule is checked on the real board's values and on random boards.


def test_18mag_pays_a_majors_token_in_a_city():
    """@967: C12 (printed 0, SIK's token) is worth 10; E12 (80, four minors' tokens) 80; a mine nothing."""
    state = catalog_state("18Mag/hs_puhjabag_1762198060@967")
    doc = json.loads(json.dumps(input_fields(state)))
    board = read_board(doc)
    rules = rules_class("18Mag")(board)
    c12, e12, a10 = (board.hexes[h] for h in ("C12", "E12", "A10"))
    assert c12.cities[0].tokens == ["SIK"] and rules.value(c12, c12.tile.nodes[0]) == 10
    assert rules.value(e12, e12.tile.nodes[0]) == 80
    assert "mine" in a10.cities[0].tokens and rules.value(a10, a10.tile.nodes[0]) == 0
    # main's answer there is unchanged (its routes meet no major's token): the engine's 420
    assert api.solve(doc)["revenue"] == 420


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_on_city_token_bonus(data):
    """Random boards whose other company (THEM) fills some cities: each such city paid earns 10 a token;
    the three searches agree and every route is priced so."""
    doc = data.draw(small_boards(max_hexes=12, min_trains=1, max_trains=3))
    board = read_board(doc)
    rules = DeclaredRules.for_game("random", {}, {"city_token_bonus": {"amount": 10, "companies": ["THEM"]}})(board)
    problem = problem_from_graph(
        board, rules, build_track_graph(board, rules, reachable_only=not any_train_without_token(board, rules))
    )
    plain = DeclaredRules.for_game("random", {}, {})(board)
    for stop in problem.graph.stops:
        hx = board.hexes[stop.hex]
        node = hx.tile.nodes[stop.node]
        them = hx.cities[node.index].tokens.count("THEM") if node.kind == "city" else 0
        assert rules.value(hx, node) == plain.value(hx, node) + 10 * them
    ref, nested, packing = searches_agree(problem)
    for result in (ref, nested, packing):
        for route in result.routes:
            priced = price_route(problem, route.train, route.stops)
            assert priced.legal and priced.revenue == route.revenue, (route, priced.errors)


# ---- 18Rhl: the 8 (RGE) train's route begins or ends at an RGE hex (end_hexes), on no other red hex -------
# lib/engine/game/g_18_rhl/game.rb#check_distance: "Route for 8 trains must begin and/or end in an RGE hex"
# (#rge_terminus?, map.rb RGE_HEXES A4 A6 L11 L13), "Route for 8 trains cannot include any off-board hexes
# besides the RGE ones" (a red hex, its towns too), and only the other trains may not begin or end at a
# town. Main's answers there were refused ("must begin and/or end in an RGE hex", clients/ruby/bin/run-boards
# over the whole game, this branch's run); the engine's price of ours, this branch's run:
RHL = ("18Rhl", "18Rhl_game_end_bank")
EIGHT = {458: (380, 370), 465: (390, 380), 493: (390, 380)}  # action -> (engine's price of ours, players' run)
RGE = ("A4", "A6", "L11", "L13")


@pytest.fixture(scope="module")
def rhl_boards() -> dict:
    return recorded_boards(RHL, EIGHT)


def test_our_8_train_answers_are_the_engines_price(rhl_boards):
    answers = {a: api.solve(rhl_boards[a]["board"]) for a in EIGHT}
    verdicts = engine_prices(RHL, answers)
    for a, (price, ran) in EIGHT.items():
        answer = answers[a]
        assert answer["optimal"] and rhl_boards[a]["ran"]["revenue"] == ran, a
        assert verdicts[a].get("revenue") == answer["revenue"] == price >= ran, (a, verdicts[a], answer)
        [route] = answer["routes"]
        assert route["hexes"][0][0] in RGE or route["hexes"][-1][-1] in RGE, route


def test_the_checker_refuses_an_8_route_without_an_rge_end(rhl_boards):
    """@458: KEG's players ran their 8 from A6 (an RGE hex) at 370, which the checker takes at that price;
    the same route less its first chain (no RGE end) is refused, naming the RGE hexes."""
    line = rhl_boards[458]
    ran = [{"train": r["train"], "hexes": r["connections"]} for r in line["ran"]["connections"]]
    checked = api.check(line["board"], ran)
    assert checked["legal"] and checked["revenue"] == 370, checked
    chains = ran[0]["hexes"]
    rge_first = [i for i, chain in enumerate(chains) if chain[0] in RGE or chain[-1] in RGE]
    assert rge_first, chains
    cut = [c for i, c in enumerate(chains) if i not in rge_first]
    refused = api.check(line["board"], [{"train": ran[0]["train"], "hexes": cut}])
    assert not refused["legal"], refused
    errors = " ".join(str(e) for r in refused["routes"] for e in r.get("errors") or ())
    assert "must begin or end at an RGE hex" in errors, refused


def test_the_8_train_problem(rhl_boards):
    problem = build_problem(rhl_boards[458]["board"])
    [t] = [t for t, s in enumerate(problem.specs) if s.name == "8"]
    assert problem.needs_end(t) and problem.ends_free(t) and int(problem.mine_rule_by_train[t]) == MINES_NONE
    stops = problem.graph.stops
    assert {s.hex for i, s in enumerate(stops) if problem.in_end_set(i)} <= set(RGE)
    assert any(problem.in_end_set(i) for i in range(len(stops)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_on_end_hexes(data):
    """Random boards where one train's route must begin or end on some hexes: the three searches agree,
    every route is priced as the reference prices it, and that train's routes have such an end."""
    doc = data.draw(small_boards(max_hexes=12, min_trains=1, max_trains=3))
    name = data.draw(st.sampled_from(sorted({t["name"] for t in doc["trains"]})))
    stop_hexes = [h["id"] for h in doc["hexes"] if any(p in h["code"] for p in ("city=", "town=", "offboard="))]
    ends = data.draw(st.lists(st.sampled_from(stop_hexes), unique=True, max_size=4)) if stop_hexes else []
    board = read_board(doc)
    rules = DeclaredRules.for_game("random", {}, {"end_hexes": {"trains": [name], "hexes": ends}})(board)
    problem = problem_from_graph(
        board, rules, build_track_graph(board, rules, reachable_only=not any_train_without_token(board, rules))
    )
    ref, nested, packing = searches_agree(problem)
    for result in (ref, nested, packing):
        for route in result.routes:
            priced = price_route(problem, route.train, route.stops)
            assert priced.legal and priced.revenue == route.revenue, (route, priced.errors)
            if problem.specs[route.train].name == name:
                first, last = problem.graph.stops[route.stops[0]], problem.graph.stops[route.stops[-1]]
                assert first.hex in ends or last.hex in ends, route
