"""18ESP's rules as data: halts paid as a subsidy, mountain passes, minors kept off off-boards, gauges.

No rulebook of the title is here: the engine's code is the authority, lib/engine/game/g_18_esp/game.rb:
``#revenue_for`` pays a halt (harbour, mine) nothing (``stop.halt? ? 0``: its value is the company's
``#subsidy_for``, outside the routes' revenue) and a route's mountain pass hex (L8, J10, H12, D12) whose
city holds the company's token ``MOUNTAIN_PASS_TOKEN_BONUS`` (#tokened_mountain_pass); ``#check_distance``
refuses a route with two mountain passes ("Route can only use one mountain pass"), a minor's route to an
off-board ("Minors can not run to offboard locations") and a route on the wrong gauge
(``#skip_route_track_type``: a narrow train, 1+2 .. 6+8, off broad track, a broad one off narrow track).
The families: ``subsidy_parts``, ``token_city_bonuses``, ``shared_locations``, ``offboards_closed_to``,
``gauges`` with ``trains_match`` (optimizer/games/declared.py). The engine judges our answers on every
catalogue state of the title (``benchmarks/engine_judge.py --title 18ESP``: 2 of 8 right before these
families, 8 of 8 after).

18USA (lib/engine/game/g_18_usa/game.rb) is tested here too: its Great Northern bonus (``best_route_bonuses``:
#gnr_route?, #gnr_revenue) and its rural junctions (``visit_cost:0``: no distance, as every title's; ``no_town_ends`` by tile:
#check_distance), on boards the engine itself builds and prices, as no catalogue state has either.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.state import read_board
from optimizer.core import reference
from optimizer.games import rules_for, rules_source
from optimizer.games.declared import DeclaredRules
from optimizer.graph.problem import any_train_without_token, build_problem, problem_from_graph
from optimizer.graph.walks import build_track_graph
from optimizer.revenue import best_route_awards, price_route

from .boards import small_boards
from .test_catalog_rules import catalog_state
from .test_engine_oracle import _engine, assert_engine_judges_right, judge
from .twins import assert_answer_at_engine_price, searches_agree

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = "18ESP/18ESP_game_end_second_eight"
# Every catalogue state: the engine's price of our routes in this branch's judge run (engine_judge.py
# --title 18ESP, 8 of 8 right), each at least the engine's router. Before (main, judge-s6): ours 180,
# 90, 210, 260, 510 and 310 at @428 .. @994, the engine paying our routes' halts nothing (@428: I33's
# harbour, @994: N22's); with halts unpaid but no gauge rule, @923's answer ran the narrow 6+8 onto
# broad track (500 by us, refused by the engine: "Route must contain token").
ENGINE_PRICED = {134: 50, 259: 80, 428: 150, 567: 60, 707: 190, 830: 240, 923: 500, 994: 310}
MOUNTAIN_PASSES = {"L8": 40, "J10": 40, "H12": 30, "D12": 50}  # MOUNTAIN_PASS_TOKEN_BONUS


def _state(action: int) -> dict:
    return catalog_state(f"{FIXTURE}@{action}")


def _engine_price(doc: dict, routes: list) -> dict:
    """The engine's verdict on routes (train id, hex chains) run on the state's board (price-routes)."""
    engine = _engine()
    request = {
        "id": doc["id"],
        "fixture": str(judge.fixture_path(doc, engine)),
        "action_id": int(doc["action_id"]),
        "routes": [{"train": r["train"], "connections": r["hexes"]} for r in routes],
    }
    return judge.price([request], engine)[doc["id"]]


def test_title_declares_the_families():
    source, families = rules_source("18ESP")
    assert source == "data"
    assert {"subsidy_parts", "token_city_bonuses", "shared_locations", "offboards_closed_to", "gauges"} <= set(families)


@pytest.mark.parametrize("action, engine", sorted(ENGINE_PRICED.items()), ids=[f"@{a}" for a in ENGINE_PRICED])
def test_answer_is_the_engines_price(action, engine):
    """Our answer, proven, earns what the engine paid for it and at least its router; the checker
    agrees; the nested and the packing search agree."""
    doc = _state(action)
    assert_answer_at_engine_price(doc, engine)
    assert reference.search(build_problem(doc)).revenue == engine


@pytest.mark.parametrize("action", [428, 923, 994])
def test_engine_judges_our_answer_right(action):
    """The engine itself (Ruby, the recorded game replayed): our routes are legal at our price."""
    assert_engine_judges_right(_state(action))


def test_a_harbour_pays_the_route_nothing():
    """CSE's 2 train at action 428: H32 (30) to Almería's harbour I33 (a halt) earns 30, as the engine
    paid it (the state's router ran it so); under the generic rules the harbour paid 30 more."""
    doc = _state(428)
    train = next(t["id"] for t in doc["trains"] if t["name"] == "2")
    ran = [{"train": train, "hexes": [["H32", "I33"]]}]
    checked = api.check(doc, ran)
    assert checked["legal"] and checked["revenue"] == 30
    assert sorted(checked["routes"][0]["stops"]) == ["H32._0", "I33._0"]  # still a stop, counted against the 2
    generic = api.check(dict(doc, game="18ESP (no rules)"), ran)
    assert generic["legal"] and generic["revenue"] == 60
    router = doc["expected"]["router"]["routes"]
    assert any(r["hexes"] == [["H32", "I33"]] and r["revenue"] == 30 for r in router)


def test_a_tokened_mountain_pass_earns_its_bonus():
    """FdC's 6+8 at action 923 holds a token in H12's pass (Alar del Rey, 30): E3 .. H8 earns 130, on to
    H12 160, as the engine prices both (price-routes, live)."""
    doc = _state(923)
    train = doc["trains"][0]["id"]
    short = [["E3", "E5"], ["E5", "F6"], ["F6", "G7", "H8"]]
    longer = short + [["H8", "H10", "H12"]]
    for hexes, revenue in ((short, 130), (longer, 160)):
        ran = [{"train": train, "hexes": hexes}]
        checked = api.check(doc, ran)
        assert checked["legal"] and checked["revenue"] == revenue
        assert _engine_price(doc, ran)["revenue"] == revenue
    # the bonus is the company's: another company's route to H12 earns nothing there
    other = copy.deepcopy(doc)
    other["corporation"]["id"] = "FdLR"  # holds H8's token, none in H12
    problem = build_problem(other)
    values = {s.id: int(problem.values_by_train_stop[0][i]) for i, s in enumerate(problem.graph.stops)}
    assert values["H12._0"] == 0
    problem = build_problem(doc)
    values = {s.id: int(problem.values_by_train_stop[0][i]) for i, s in enumerate(problem.graph.stops)}
    assert values["H12._0"] == MOUNTAIN_PASSES["H12"]


def test_the_mountain_passes_are_one_place():
    """ "Route can only use one mountain pass": the four pass cities share one location, so no route
    reaches two of them."""
    problem = build_problem(_state(923))
    loc = {s.id: int(problem.loc_by_stop[i]) for i, s in enumerate(problem.graph.stops)}
    passes = {loc[f"{h}._0"] for h in MOUNTAIN_PASSES if f"{h}._0" in loc}
    assert len(passes) == 1 and len([h for h in MOUNTAIN_PASSES if f"{h}._0" in loc]) >= 2


def test_an_unopened_mountain_pass_blocks_every_company():
    """The engine fills each pass city with two block tokens of no company (g_18_esp/game.rb#setup), which
    the board document shows as empty slots: at action 923 the engine's ``City#blocks?`` for FdC is true
    at L8 and J10 (unopened, ``[null, null]`` here), false at H12 (FdC's token) and true at D12 (SFVA's and
    FdLR's), as a Ruby probe of the replayed game gave. The rules make the same cities end-only; the
    generic rules left the unopened ones open."""
    doc = _state(923)
    engine_blocks = {"L8": True, "J10": True, "H12": False, "D12": True}
    for game, expected in (
        (doc["game"], engine_blocks),
        ("18ESP (no rules)", dict(engine_blocks, L8=False, J10=False)),
    ):
        board = read_board(dict(doc, game=game))
        rules = rules_for(board)
        flags = {h: rules.end_only(board.hexes[h], board.hexes[h].tile.nodes[0]) for h in expected}
        assert flags == expected, game
    problem = build_problem(doc)  # H12, open to FdC, is a stop its routes reach
    assert "H12._0" in {s.id for s in problem.graph.stops}


def test_a_narrow_train_keeps_off_broad_track():
    """FdC's 6+8 (a narrow train) from Madrid (F24, on broad track) over H12: the checker refuses it
    (the engine builds no route of it: "Route must contain token", price-routes at action 923); it
    was our answer (510) before the gauge rule."""
    doc = _state(923)
    hexes = [["F24", "F22", "F20", "E19"], ["E19", "E17", "E15", "F14", "G13", "H12"], ["H12", "H10", "H8"]]
    ran = [{"train": doc["trains"][0]["id"], "hexes": hexes}]
    checked = api.check(doc, ran)
    assert not checked["legal"]
    assert any("broad" in e for e in checked["routes"][0]["errors"])
    assert "error" in _engine_price(doc, ran)


def test_a_minor_may_not_run_to_an_off_board():
    """FdC's best route at action 923 runs Irún (M5) to Galicia (A5), two off-boards; were FdC a
    minor, the checker refuses it and names the rule, and the answer runs to none."""
    doc = _state(923)
    answer = api.solve(doc)
    assert any(s in ("M5._0", "A5._0") for r in answer["routes"] for s in r["stops"])
    minor = copy.deepcopy(doc)
    minor["corporation"]["type"] = "minor"
    checked = api.check(minor, [{"train": r["train"], "hexes": r["hexes"]} for r in answer["routes"]])
    assert not checked["legal"]
    assert any("minor may not run to an off-board" in e for r in checked["routes"] for e in r["errors"])
    kinds = {s.id: s.kind for s in build_problem(minor).graph.stops}
    solved = api.solve(minor)
    assert solved["optimal"] and solved["revenue"] < answer["revenue"]
    assert all(kinds.get(s) != "offboard" for r in solved["routes"] for s in r["stops"])


@st.composite
def esp_problems(draw, doc):
    """The board's problem under 18ESP's families, drawn: towns or halts paid as a subsidy, a bonus on
    some cities for the company's token there (one place at times), off-boards closed to a minor."""
    city_hexes = sorted({h["id"] for h in doc["hexes"] if h["cities"]})
    bonus_hexes = draw(st.lists(st.sampled_from(city_hexes), unique=True, max_size=3)) if city_hexes else []
    family = {
        "subsidy_parts": draw(st.sampled_from([["halt"], ["town"], ["town", "halt"]])),
        "token_city_bonuses": {h: draw(st.sampled_from([30, 40, 50])) for h in bonus_hexes},
        "offboards_closed_to": ["minor"],
    }
    if len(bonus_hexes) > 1 and draw(st.booleans()):
        family["shared_locations"] = {"mountain pass": bonus_hexes}
    if city_hexes and draw(st.booleans()):
        family["blocked_while_empty"] = draw(st.lists(st.sampled_from(city_hexes), unique=True, min_size=1))
    doc["corporation"]["type"] = draw(st.sampled_from(["minor", "major"]))
    board = read_board(doc)
    rules = DeclaredRules.for_game("random", {}, family)(board)
    graph = build_track_graph(board, rules, reachable_only=not any_train_without_token(board, rules))
    return family, problem_from_graph(board, rules, graph)


def _values(problem) -> dict:
    return {
        (t, s.id): int(problem.values_by_train_stop[t][i])
        for t in range(len(problem.trains))
        for i, s in enumerate(problem.graph.stops)
    }


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_under_the_families(data):
    """Random boards: each stop is worth what the generic rules pay it, 0 for a subsidy part, plus the
    bonus of its hex for a city holding the company's token; the reference, nested and packing
    searches agree; every route reaches one shared place at most, no off-board for a minor, and is
    priced as found."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=1, max_trains=3))
    family, problem = data.draw(esp_problems(doc))
    board = read_board(doc)
    generic = DeclaredRules.for_game("random", {}, {})(board)
    plain = problem_from_graph(board, generic, build_track_graph(board, generic, reachable_only=False))
    before = _values(plain)
    for (t, stop_id), value in _values(problem).items():
        stop = next(s for s in problem.graph.stops if s.id == stop_id)
        if board.hexes[stop.hex].tile.nodes[stop.node].name in family["subsidy_parts"]:
            assert value == 0
        elif (t, stop_id) in before:
            bonus = family["token_city_bonuses"].get(stop.hex, 0) if stop.kind == "city" and stop.token else 0
            assert value == before[(t, stop_id)] + bonus
    stops = problem.graph.stops
    shared = family.get("shared_locations", {}).get("mountain pass", ())
    closed = set(family.get("blocked_while_empty", ()))
    doc_cities = {h["id"]: h["cities"] for h in doc["hexes"]}
    for result in searches_agree(problem):
        for route in result.routes:
            if doc["corporation"]["type"] == "minor":
                assert all(stops[s].kind != "offboard" for s in route.stops)
            assert sum(stops[s].hex in shared for s in route.stops) <= 1
            for s in route.stops[1:-1]:  # no route passes through an empty city of blocked_while_empty
                cities = [c for c in doc_cities.get(stops[s].hex, ()) if c["index"] == stops[s].node]
                assert not (stops[s].hex in closed and stops[s].kind == "city" and not any(cities[0]["tokens"]))
            pen = 0
            for d in route.dsegs:
                pen |= int(problem.penalty_mask_by_seg[problem.seg_by_dir[d]])
            priced = price_route(problem, route.train, route.stops, pen)
            assert priced.legal and priced.revenue == route.revenue, (route, priced.errors)


# ---- 18USA's Great Northern bonus (best_route_bonuses) ----------------------------------------------
GNR_FULL = ("B2", "B8", "B14", "D20")  # g_18_usa/game.rb GNR_FULL_BONUS_HEXES (60); GNR_HALF_BONUS_HEXES B8, B14 (30)


GNR_PROBE = """
require ARGV[0] + '/clients/ruby/lib/route18xx/engine_loader'
require ARGV[0] + '/clients/ruby/lib/route18xx/opal_leniency'
Route18xx::EngineLoader.load(ARGV[1])
Route18xx::OpalLeniency.apply
game = Route18xx::EngineLoader::Replays.new.before(ARGV[2], Integer(ARGV[3]))
JSON.parse($stdin.read).each do |routes|
  stops = routes.map { |hexes| hexes.map { |h| t = game.hex_by_id(h).tile; (t.cities + t.towns + t.offboards).first } }
  puts stops.map { |route_stops| game.gnr_revenue(route_stops) }.max || 0
end
"""


def _engine_gnr(doc: dict, cases: list) -> list:
    """The engine's ``#gnr_revenue`` (lib/engine/game/g_18_usa/game.rb) of each route's stops, on the
    replayed game, the most of the routes' (``#gnr_route?``: paid on the route earning most of it)."""
    engine = _engine()
    fixture = judge.fixture_path(doc, engine)
    out = subprocess.run(
        [
            judge.ruby() or "ruby",
            "-rjson",
            "-e",
            GNR_PROBE,
            str(ROOT),
            str(engine),
            str(fixture),
            str(doc["action_id"]),
        ],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return [int(line) for line in out.stdout.split()]


def test_the_great_northern_bonus_is_paid_once_on_the_best_route():
    """The owner of P17 (#owns_gnr?) earns 60 on a route with stops on B2, B8, B14 and D20, else 30 with
    stops on B8 and B14, once, on its route earning most of it: our two best-route bonuses of 30 (the
    second's hexes holding the first's) pay the same over every mix of routes. No catalogue state has
    P17 owned nor B8, B14 built (the map's unbuilt GNR cities): C&O's board at action 377 is given P17,
    and the bonus priced over stop lists (as the pricing and both searches price best-route bonuses), beside
    the engine's own ``#gnr_revenue`` of the same stops on the replayed game."""
    doc = catalog_state("18USA/109372@377")
    owner = copy.deepcopy(doc)
    owner["corporation"]["companies"] = owner["corporation"]["companies"] + ["P17"]
    boards = {}
    for key, d in (("owner", owner), ("other", doc)):
        board = read_board(d)
        rules = rules_for(board)
        boards[key] = problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=False))
    assert boards["other"].n_best_route == 0
    problem = boards["owner"]
    assert problem.n_best_route == 2
    index = {s.id: i for i, s in enumerate(problem.graph.stops)}
    stop_on = {h: index[f"{h}._0"] for h in (*GNR_FULL, "C29")}
    cases = [
        [GNR_FULL],
        [("B8", "B14")],
        [("B8", "B14", "D20"), ("C29", "B2")],
        [GNR_FULL, ("B8", "B14")],
        [("B8", "B14"), ("B8", "B14", "C29")],
        [("B2", "B8", "D20"), ("B14", "C29")],
        [("C29",)],
    ]
    engine = _engine_gnr(doc, cases)
    assert engine == [60, 30, 30, 60, 30, 0, 0]
    for routes, paid in zip(cases, engine):
        visited = [[stop_on[h] for h in hexes] for hexes in routes]
        assert sum(amount for _, amount in best_route_awards(problem, visited)) == paid, routes


# ---- 18USA's rural junctions (visit_cost:0, no_town_ends by tile) ------------------------------------
RURAL_PROBE = """
require ARGV[0] + '/clients/ruby/lib/route18xx/engine_loader'
require ARGV[0] + '/clients/ruby/lib/route18xx/opal_leniency'
require ARGV[0] + '/clients/ruby/lib/route18xx/board'
Route18xx::EngineLoader.load(ARGV[1])
Route18xx::OpalLeniency.apply
game = Route18xx::EngineLoader::Replays.new.before(ARGV[2], Integer(ARGV[3]))
tile = game.tiles.find { |t| t.name == 'X07' }
tile.rotate!(Integer(ARGV[6]))
game.hex_by_id(ARGV[5]).lay(tile)
game.graph.clear
entity = game.current_entity
if ARGV[4] == 'board'
  puts JSON.generate(Route18xx::Board.from_game(game))
else
  JSON.parse($stdin.read).each do |routes|
    verdict = begin
      game.route_trains(entity)
      built = Engine::Action::RunRoutes.h_to_args({ 'routes' => routes }, game)[:routes]
      { 'revenue' => game.routes_revenue(built) }
    rescue StandardError => e
      { 'error' => "#{e.class}: #{e.message}" }
    end
    puts JSON.generate(verdict)
  end
end
"""


def _rural(doc: dict, hex_id: str, rotation: int, mode: str, runs: list | None = None):
    """The recorded game replayed to the state, a rural junction (X07) laid on ``hex_id`` in the engine
    itself (Hex#lay), then: the board document the Ruby client builds of it (``board``), or the engine's
    verdict on each run of routes (``price``)."""
    engine = _engine()
    args = [str(ROOT), str(engine), str(judge.fixture_path(doc, engine)), str(doc["action_id"]), mode, hex_id]
    out = subprocess.run(
        [judge.ruby() or "ruby", "-rjson", "-e", RURAL_PROBE, *args, str(rotation)],
        input=json.dumps(runs or []),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    return lines[0] if mode == "board" else lines


@pytest.mark.parametrize("action, hex_id, engine", [(228, "E19", 150), (818, "E27", 440)])
def test_a_rural_junction_counts_no_distance_and_ends_no_route(action, hex_id, engine):
    """No catalogue state has a rural junction laid: the engine lays one (X07, a town of visit_cost 0)
    on a plain track hex of the company's best route, the Ruby client builds the board, and the engine
    prices our answer on it: SP's 2 train at action 228 runs D20-E19-E17, three stops (150, the generic
    reading 110); B&O's at 818 earn 440 (generic 430). A route ending at the junction is refused by both
    ("Train cannot start or end on a rural junction", g_18_usa/game.rb#check_distance)."""
    doc = catalog_state(f"18USA/109372@{action}")
    board = _rural(doc, hex_id, 0, "board")
    assert next(h for h in board["hexes"] if h["id"] == hex_id)["tile"] == "X07"
    answer = api.solve(board)
    assert answer["optimal"] and answer["revenue"] == engine
    assert any(f"{hex_id}._0" in r["stops"] for r in answer["routes"])
    assert api.solve(dict(board, game="18USA (no rules)"))["revenue"] < engine
    # the answer's route cut at the junction: the same track, ending there
    route = next(r for r in answer["routes"] if f"{hex_id}._0" in r["stops"])
    cut = next(k for k, chain in enumerate(route["hexes"]) if chain[-1] == hex_id)
    ending = [{"train": route["train"], "hexes": route["hexes"][: cut + 1]}]
    checked = api.check(board, ending)
    assert not checked["legal"] and any("may not begin or end" in e for e in checked["routes"][0]["errors"])
    ran = [{"train": r["train"], "connections": r["hexes"]} for r in answer["routes"]]
    priced, refused = _rural(
        doc, hex_id, 0, "price", [ran, [{"train": ending[0]["train"], "connections": ending[0]["hexes"]}]]
    )
    assert priced == {"revenue": engine}
    assert "cannot start or end on a rural junction" in refused["error"]
