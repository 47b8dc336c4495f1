"""Bonuses along the track (issue 27): what a route earns for the hexes its track crosses, not only
for its stops. The engine's code is the reference:

- lib/engine/game/g_1817/game.rb#revenue_for: ``10 * route.all_hexes.count { |hex| hex.assigned?(mine) }``
  and the same for ranches (``Route#all_hexes``, lib/engine/route.rb, is the uniq hexes of the route's
  paths: a hex crossed twice pays once); ``10 * stops.count { |stop| stop.hex.assigned?('bridge') }``;
  "Route cannot start or end with a mine". 1817NA, 1817WO and 18DE (g_1817_de) are ``G1817::Game``.
- lib/engine/game/g_18_hiawatha/game.rb#revenue_for: ``super`` (1817's), farms along the track, the GLS
  port, the company's FC token, Milwaukee to the Great Lakes and to Rockford.
- lib/engine/game/g_18_usa/game.rb#revenue_for: ``super`` (1817's), the resources of the hexes its track
  crosses (``route.all_hexes - stop_hexes``, #tile_resources by label, ``ORE20_TILES``, oil 20 from
  #phase_5_or_later?), 20 a paid stop for a Pullman-upgraded train, 10 less once at a company town
  without the company's token.

The data families are ``track_assignment_bonuses`` and ``hex_assignment_stop_bonuses``
(optimizer/games/declared.py); the crossed hexes ride the penalty hexes' mask, negative.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.state import read_board
from optimizer.board.tiles import parse_code
from optimizer.errors import OptimizerError
from optimizer.games import game_data, rules_class
from optimizer.games.declared import DeclaredRules
from optimizer.graph.problem import any_train_without_token, build_problem, problem_from_graph
from optimizer.graph.walks import build_track_graph
from optimizer.revenue import price_route

from .boards import small_boards
from .test_catalog_rules import catalog_state
from .twins import searches_agree

# (state, what the engine pays for the best routes): the router's revenue where it ran
# (``expected.router.revenue``); 1817 @1671 (an 8 train, which the router leaves alone) the engine's
# price of the best routes in benchmarks/engine_judge.py's run on this branch and on main (/work/judge-base.txt:
# "ours 460, engine 490": main's routes, paid their mines and bridge by the engine); 18USA @1270 and
# @1539 (the router leaves Pullman-upgraded trains alone) the engine's price of our routes in this
# branch's judge run (human_recheck: 530 and 540, the players' routes, at or below it).
ENGINE_PAYS = [
    ("1817/15528@758", 360),
    ("1817/15528@1671", 490),
    ("1817NA/20584@944", 490),
    ("1817WO/19926@502", 680),
    ("1817WO/19926@111", 60),
    ("18DE/18DE_game_end_final_phase@989", 200),
    ("18Hiawatha/164606@150", 60),
    ("18USA/109372@228", 140),
    ("18USA/109372@503", 200),
    ("18USA/109372@818", 430),
    ("18USA/109372@1270", 530),
    ("18USA/109372@1422", 540),
    ("18USA/109372@1539", 560),
]


@pytest.mark.parametrize("state_id, engine", ENGINE_PAYS)
def test_real_states_earn_what_the_engine_pays(state_id, engine):
    """The best routes earn what the engine pays; where its router ran, our checker prices its routes
    as the engine did, and our answer is no worse."""
    doc = catalog_state(state_id)
    answer = api.solve(doc)
    assert answer["optimal"]
    assert answer["revenue"] == engine
    router = doc["expected"].get("router") or {}
    if router.get("routes"):
        checked = api.check(doc, [{"train": r["train"], "hexes": r["hexes"]} for r in router["routes"]])
        assert checked["legal"] and checked["revenue"] == router["revenue"]
    mine = api.check(doc, [{"train": r["train"], "hexes": r["hexes"]} for r in answer["routes"]])
    assert mine["legal"] and mine["revenue"] == engine


def _assigned(doc: dict, key: str) -> set:
    return {h["id"] for h in doc["hexes"] if (h.get("assignments") or {}).get(key)}


def test_checker_pays_each_mine_crossed_once_and_each_bridge_stop():
    """On 1817 @1671 the best 8 train's route crosses mines and stops at Charleston's bridge: the
    checker pays its stops' values, 10 for each mine hex among the hexes of its chains (each once),
    10 for the bridge stop; under the generic rules the same route earns its stops alone."""
    doc = catalog_state("1817/15528@1671")
    answer = api.solve(doc)
    [route] = answer["routes"]
    crossed = {h for chain in route["hexes"] for h in chain}
    mines = crossed & _assigned(doc, "mine")
    bridges = {s.split(".")[0] for s in route["paid"]} & _assigned(doc, "bridge")
    assert mines and bridges  # the case this test is about
    plain = api.check(dict(doc, game="1817 (no rules)"), [{"train": route["train"], "hexes": route["hexes"]}])
    assert plain["legal"] and plain["revenue"] == 460  # what main answered: stops only
    checked = api.check(doc, [{"train": route["train"], "hexes": route["hexes"]}])
    assert checked["revenue"] == plain["revenue"] + 10 * len(mines) + 10 * len(bridges) == 490


def test_a_route_given_by_its_stops_is_read_without_crossing_itself():
    """1817 @1671, checked by its stops: F13 reaches I12 two ways, the first crossing the H15/H13 side
    the route takes on from I16. Reading only the first 64 of the 1,512 ways to join the stops, the
    checker judged the solver's route illegal ("crosses the side between H15 and H13 twice"); read
    depth first without reusing track, it is the solver's route, legal at 490."""
    doc = catalog_state("1817/15528@1671")
    [route] = api.solve(doc)["routes"]
    checked = api.check(doc, [{"train": route["train"], "stops": route["stops"]}])
    assert checked["legal"], checked
    assert checked["revenue"] == 490 and checked["routes"][0]["hexes"] == route["hexes"]
    crossing = [["F13", "E14", "E16", "F17", "G16", "H15", "H13", "I12"], *route["hexes"][1:]]
    verdict = api.check(doc, [{"train": route["train"], "hexes": crossing}])
    assert not verdict["legal"] and "crosses the side between H15 and H13 twice" in json.dumps(verdict)


def test_the_problem_carries_each_mine_as_a_bonus_hex():
    """Each mine hex is one bit of the crossed hexes' mask, paying 10 (a penalty of -10); a route
    whose mask holds it earns 10 more, once however many of its segments cross it."""
    doc = catalog_state("1817/15528@1671")
    problem = build_problem(doc)
    assert problem.n_penalties == len(_assigned(doc, "mine"))
    assert [int(a) for a in problem.amount_by_penalty] == [-10] * problem.n_penalties
    s = next(i for i in range(problem.n_stops) if problem.token_by_stop[i])
    stops = [s, int(problem.to_stop_by_dir[problem.adj_ptr_by_stop[s]])]
    base = price_route(problem, 0, stops, 0).revenue
    assert price_route(problem, 0, stops, 0b1).revenue == base + 10
    assert price_route(problem, 0, stops, 0b11).revenue == base + 20


def test_a_stop_on_a_mine_is_refused():
    """The engine's "Route cannot start or end with a mine" (g_1817 #revenue_for): the markers lie on plain track,
    so no route has a node there; a board with a stop on a mine hex is refused, naming the hex, not
    answered wrongly."""
    doc = catalog_state("1817/15528@1671")
    town = next(h for h in doc["hexes"] if "town=" in (h.get("code") or "") and not h.get("assignments"))
    town["assignments"] = {"mine": True}
    with pytest.raises(OptimizerError, match=town["id"]):
        api.solve(doc)


def test_18usa_pays_resources_pullmans_and_company_towns():
    """18USA (g_18_usa #revenue_for): on @228 the router's first route crosses two ore hexes (C19, D16:
    10 each) between its stops; on @503 a route to the company town at F18 (X20, no MP token) earns 10
    less, once; on @1422 the 6P train earns 20 more a paid stop (none rural)."""
    doc = catalog_state("18USA/109372@228")
    route = doc["expected"]["router"]["routes"][0]
    assert route["hexes"] == [["D20", "C19", "D18", "D16", "D14"]]
    generic = dict(doc, game="18USA (no rules)")
    plain = api.check(generic, [{"train": route["train"], "hexes": route["hexes"]}])["revenue"]
    assert api.check(doc, [{"train": route["train"], "hexes": route["hexes"]}])["revenue"] == plain + 10 + 10 + 10 == 80
    # (and 10 for the bridge at D14)
    doc = catalog_state("18USA/109372@503")
    town = [{"train": "2-13", "hexes": [["E17", "E19", "F18"]]}]
    # both ends hold bridges (+10 each), F18 no MP token (-10): 80, the engine's price (this branch's judge run
    # before the company towns: our 200 with this route at 90, the engine's 190)
    assert api.check(doc, town)["revenue"] == api.check(dict(doc, game="18USA (no rules)"), town)["revenue"] + 10 == 80
    doc = catalog_state("18USA/109372@1422")
    answer = api.solve(doc)
    [route] = answer["routes"]
    plain = api.check(dict(doc, game="18USA (no rules)"), [{"train": route["train"], "hexes": route["hexes"]}])
    bonus = answer["revenue"] - plain["revenue"]
    assert bonus >= 20 * len(route["paid"])  # the Pullman's 20 a stop, and resources along the track
    assert api.check(dict(doc, trains=[dict(doc["trains"][0], name="6")]), [route])["revenue"] == answer[
        "revenue"
    ] - 20 * len(route["paid"])


def test_titles_take_the_families():
    """1817NA, 1817WO and 18DE inherit 1817's families (``class Game < G1817::Game``); 18Hiawatha
    declares its own (it adds farms and its ports to ``super``)."""
    own = game_data("1817")["revenue_rules"]
    for title in ("1817NA", "1817WO", "18DE"):
        declared = rules_class(title).declared
        assert declared["track_assignment_bonuses"] == own["track_assignment_bonuses"]
        assert declared["hex_assignment_stop_bonuses"] == own["hex_assignment_stop_bonuses"]
    hiawatha = rules_class("18 Hiawatha").declared
    assert {r["assignment"] for r in hiawatha["track_assignment_bonuses"]} == {"mine", "ranch", "farm"}


@st.composite
def assigned_boards(draw):
    """A small board with mines (no stop, ``no_ends``), farms (anywhere) and bridges (paying stops)
    assigned to random hexes, flattened under the two families; amounts large enough to steer the
    answer, so the bounds' share of them matters."""
    doc = draw(small_boards(max_hexes=12, min_trains=1, max_trains=3))
    stopless = [h["id"] for h in doc["hexes"] if not any(n.is_stop for n in parse_code(h["code"]).nodes)]
    ids = [h["id"] for h in doc["hexes"]]
    mines = set(draw(st.lists(st.sampled_from(stopless), max_size=3))) if stopless else set()
    farms = set(draw(st.lists(st.sampled_from(ids), max_size=3)))
    bridges = set(draw(st.lists(st.sampled_from(ids), max_size=2)))
    for h in doc["hexes"]:
        marks = {
            k: True
            for k, on in (("mine", h["id"] in mines), ("farm", h["id"] in farms), ("bridge", h["id"] in bridges))
            if on
        }
        if marks:
            h["assignments"] = marks
    amount = draw(st.sampled_from([10, 50, 120]))
    family = {
        "track_assignment_bonuses": [
            {"assignment": "mine", "amount": amount, "no_ends": True},
            {"assignment": "farm", "amount": draw(st.sampled_from([10, 40]))},
        ],
        "hex_assignment_stop_bonuses": [{"assignment": "bridge", "amount": 10}],
    }
    board = read_board(json.loads(json.dumps(doc)))
    rules = DeclaredRules.for_game("random", {}, family)(board)
    graph = build_track_graph(board, rules, reachable_only=not any_train_without_token(board, rules))
    pays = {h: amount * (h in mines) + family["track_assignment_bonuses"][1]["amount"] * (h in farms) for h in ids}
    return problem_from_graph(board, rules, graph), pays


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(assigned_boards())
def test_twins_agree_on_bonuses_along_the_track(drawn):
    """The reference, the nested and the packing search find the same optimum, each proven, with
    bonus hexes along the track; each route earns its stops plus every bonus hex among the hexes its
    track crosses, each once (``Route#all_hexes``: uniq), counted here from the segments' paths."""
    problem, pays = drawn
    ref, nested, packing = searches_agree(problem)
    for result in (nested, packing):
        for r in result.routes:
            crossed = {h for d in r.dsegs for h, _ in problem.graph.segments[problem.seg_by_dir[d]].paths}
            along = sum(pays[h] for h in crossed)
            assert price_route(problem, r.train, r.stops, 0).revenue + along == r.revenue
