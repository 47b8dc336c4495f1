"""Obsolete trains (``obsolete_trains``): 1858, 1858India and 1858Switzerland pay an obsolete train half
its route's revenue, rounded down (lib/engine/game/g_1858/game.rb#revenue_for: ``revenue /= 2 if
route.train.obsolete``). The board document has no such field, but the engine decides it from the
phase, which it has (optimizer/games/obsolete.py): the purchase that makes a train type obsolete
(lib/engine/game/base.rb#rust_trains!, #obsolete?) starts the phase listing that type
(lib/engine/phase.rb#process_action). The test that matters most replays the recorded games with the
real engine and compares its ``Train#obsolete`` with what we derive, on every state of the titles.

Expected revenues are the engine's: the price ``clients/ruby/bin/price-routes`` gave our routes in this
branch's judge run (``benchmarks/engine_judge.py --title``: 1858 8 of 8, 5 of 8 on main; 1858Switzerland
6 of 8, 3 of 8 on main; 1858India 4 of 8, 2 of 8 on main), each the engine's router's revenue too.
1858Switzerland's red-to-red bonuses (``set_pairs`` with ``amount_of_hex``), added after the halving,
make its last two states right (8 of 8).
1866 trains never become obsolete (no ``obsolete_on`` in g_1866/game.rb TRAINS, and nothing else sets
``Train#obsolete`` there): the replay shows it on 1866's states as well.
"""

from __future__ import annotations

import importlib.util
import json
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.state import read_board
from optimizer.core import compiled
from optimizer.errors import BoardError
from optimizer.games import game_data, revenue_rules, rules_for
from optimizer.games.base import HALF_DOWN, HALF_TO_TEN
from optimizer.games.coverage import unsupported_rules
from optimizer.games.declared import DeclaredRules
from optimizer.games.obsolete import obsolete_in_phase
from optimizer.graph.problem import any_train_without_token, build_problem, problem_from_graph
from optimizer.graph.walks import build_track_graph
from optimizer.revenue import price_route, route_pen_mask

from .boards import small_boards
from .corpus import ROOT, require_corpus
from .ruby import engine_dir, fixture_path, run_client_script
from .test_catalog_rules import catalog_state
from .twins import assert_answer_at_engine_price, searches_agree

SWISS = "1858Switzerland/1858Switzerland_game_end_bank@"
INDIA = "1858India/hotseat_qs_b@"
# state, the engine's price of our routes (this branch's judge run), the obsolete trains there
ENGINE_PRICED = [
    ("1858/219682@319", 30),  # AVT's 2H in phase 4 (main: 60)
    ("1858/219682@661", 190),  # TBF's 2H in phase 5 (main: 250)
    ("1858/219682@771", 390),  # A's 3M (a 6H card) in phase 7 (main: 520)
    (SWISS + "290", 245),  # AB's 2H in phase 4 (main: 290)
    (SWISS + "377", 305),  # AB's 2H in phase 5 (main: 360)
    (SWISS + "451", 400),  # RhB's 4H in phase 6 (main: 500)
    (INDIA + "361", 70),  # GIP's 2H and 1M (a 2H card) in phase 4 (main: 140)
    (INDIA + "741", 420),  # GIP's 3M in phase 7 (main: 520)
]
TITLES = {
    "1858": "1858/219682",
    "1858Switzerland": "1858Switzerland/1858Switzerland_game_end_bank",
    "1858India": "1858India/hotseat_qs_b",
    "1866": "1866/1866_game_end_final_phase",
}
FIRST = {"1858": 160, "1858Switzerland": 130, "1858India": 169, "1866": 152}  # each title's first state


def states_of(title: str) -> list:
    """Every catalogue state of a title, in action order (failing under CI=true, else skipping, when
    the catalogue is missing: catalog_state's check)."""
    first = catalog_state(f"{TITLES[title]}@{FIRST[title]}")
    path = require_corpus() / "catalog" / "states" / f"{TITLES[title]}.jsonl"
    states = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert states[0]["id"] == first["id"] and len(states) == 8
    return states


@pytest.mark.corpus
@pytest.mark.parametrize("state_id, engine", ENGINE_PRICED, ids=[s for s, _ in ENGINE_PRICED])
def test_answer_is_the_engines_price(state_id, engine):
    """Our answer is proven at the engine's price and at least its router's; the checker finds its
    routes legal at that price; both cores and both compiled strategies agree."""
    doc = catalog_state(state_id)
    assert_answer_at_engine_price(doc, engine)
    assert api.solve(doc, core="python")["revenue"] == engine
    problem = build_problem(doc)
    assert HALF_DOWN in [problem.halved(t) for t in range(problem.n_trains)]


@pytest.mark.corpus
@pytest.mark.parametrize("state_id", [s for s, _ in ENGINE_PRICED if not s.startswith(INDIA)])
def test_the_checker_prices_the_players_routes_as_the_engine(state_id):
    """The players' routes, as the engine re-priced them (``expected.human_recheck``): the obsolete
    train's route at half. (1858India's are left out: a Pullman may have been attached there.)"""
    doc = catalog_state(state_id)
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"]["human"]["routes"]]
    checked = api.check(doc, routes)
    assert checked["legal"], checked
    assert checked["revenue"] == doc["expected"]["human_recheck"]


@pytest.mark.corpus
def test_the_obsolete_train_is_paid_half_rounded_down():
    """1858 @319: AVT's only train, a 2H, obsolete in phase 4: the engine paid the players' route 30,
    the same route in phase 3 (no 2H obsolete) is paid 60 by us."""
    doc = catalog_state("1858/219682@319")
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"]["human"]["routes"]]
    assert api.check(doc, routes)["revenue"] == 30 == doc["expected"]["human_recheck"]
    phase3 = dict(doc, phase=dict(doc["phase"], name="3"))
    assert api.check(phase3, routes)["revenue"] == 60
    assert api.solve(phase3)["revenue"] == 60


@pytest.mark.corpus
def test_an_unknown_phase_is_refused_by_name():
    """Which trains are obsolete depends on the phase: a phase the title does not have is refused,
    naming the field, never answered as if no train were obsolete."""
    doc = catalog_state("1858/219682@319")
    with pytest.raises(BoardError, match="phase: unknown phase '9'") as error:
        api.solve(dict(doc, phase=dict(doc["phase"], name="9")))
    assert error.value.field == "phase"


def test_the_declared_phases_follow_the_engine_data():
    """Each declared rule agrees with the title's train data (``obsolete_on``, its variants) and
    phases (``on``): a name obsolete from the phase its card's ``obsolete_on`` type starts, the
    phases in the data file's order. (1858India adds 2H's 1M, g_1858_india/game.rb#game_trains;
    1858Switzerland takes 6H's ``obsolete_on`` away, g_1858_switzerland/game.rb#game_trains.)"""
    for title, extra, dropped in (("1858", {}, ()), ("1858India", {"1M": "2H"}, ()), ("1858Switzerland", {}, ("6H",))):
        data, rule = game_data(title), revenue_rules(title)["obsolete_trains"]
        assert rule["phases"] == [p["name"] for p in data["phases"]]
        starts = {
            on: p["name"]
            for p in data["phases"]
            for on in ([p["on"]] if isinstance(p.get("on"), str) else p.get("on") or [])
        }
        expected = {}
        for card in data["trains"]:
            if card.get("obsolete_on") in starts and card["name"] not in dropped:
                names = [card["name"]] + [v["name"] for v in card.get("variants", [])]
                names += [variant for variant, of in extra.items() if of == card["name"]]
                expected.update({name: starts[card["obsolete_on"]] for name in names})
        assert rule["from_phase"] == expected, title
    assert not any(card.get("obsolete_on") for card in game_data("1866")["trains"])
    assert all(not line.startswith("an obsolete train") for t in TITLES for line in unsupported_rules(t))
    assert any("6H or 3M is obsolete" in line for line in unsupported_rules("1858Switzerland"))


def test_obsolete_in_phase_orders_the_phases():
    rule = {"phases": ["2", "3", "4", "5"], "from_phase": {"2H": "4"}}
    assert [obsolete_in_phase(rule, "2H", p) for p in rule["phases"]] == [False, False, True, True]
    assert not obsolete_in_phase(rule, "5E", "5")


RUBY_OBSOLETE = r"""
require 'json'
require 'route18xx/engine_loader'
require 'route18xx/opal_leniency'
Route18xx::EngineLoader.load(ARGV[0])
Route18xx::OpalLeniency.apply
replays = Route18xx::EngineLoader::Replays.new
$stdin.each_line do |line|
  req = JSON.parse(line)
  game = replays.before(req['fixture'], Integer(req['action_id']))
  entity = game.current_entity
  trains = game.route_trains(entity).map { |t| { 'id' => t.id, 'name' => t.name, 'obsolete' => t.obsolete } }
  puts JSON.generate({ 'id' => req['id'], 'phase' => game.phase.name, 'trains' => trains })
end
"""


@pytest.mark.corpus
@pytest.mark.parametrize("title", list(TITLES))
def test_the_engine_marks_obsolete_the_trains_we_halve(title):
    """The real engine, replayed to each state of the title: its ``Train#obsolete`` for each of the
    company's trains is exactly the trains our problem pays half, rounded down."""
    states = states_of(title)
    seen = {v["id"]: v for v in run_client_script(RUBY_OBSOLETE, states)}
    halved_somewhere = 0
    for s in states:
        verdict = seen[s["id"]]
        assert verdict["phase"] == s["phase"]["name"]
        assert [t["id"] for t in verdict["trains"]] == [t["id"] for t in s["trains"]]
        engine_obsolete = {t["name"]: t["obsolete"] for t in verdict["trains"]}
        problem = build_problem(s)
        ours = {spec.name: problem.halved(t) == HALF_DOWN for t, spec in enumerate(problem.specs)}
        assert ours == engine_obsolete, s["id"]
        halved_somewhere += any(ours.values())
    assert halved_somewhere == {"1858": 3, "1858Switzerland": 3, "1858India": 2, "1866": 0}[title]


# ---- the searches agree ---------------------------------------------------------------------------


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_on_halved_trains(data):
    """Random boards whose trains are paid half, rounded down or to 10, some stops worth an odd
    amount (so that rounding down matters): the reference, nested and packing searches agree, and
    every route is priced as the reference prices it."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=1, max_trains=3))
    problem = build_problem(doc)
    groups = sorted({int(g) for g in problem.group_by_train})
    mode = {g: data.draw(st.sampled_from([0, HALF_DOWN, HALF_DOWN, HALF_TO_TEN])) for g in groups}
    problem.halved_by_train = np.array([mode[int(g)] for g in problem.group_by_train], dtype=np.uint8)
    if problem.n_stops and data.draw(st.booleans()):
        odd = data.draw(st.lists(st.integers(0, problem.n_stops - 1), min_size=1, max_size=3))
        values = problem.values_by_train_stop.copy()
        values[:, odd] += 5
        problem.values_by_train_stop = values
    for result in searches_agree(problem):
        for r in result.routes:
            priced = price_route(problem, r.train, r.stops, route_pen_mask(problem, r.dsegs))
            assert priced.legal and priced.revenue == r.revenue, (r, priced)


# ---- 1858Switzerland's red-to-red bonuses -------------------------------------------------------------

# state, the engine's price of our routes (this branch's judge run, equal to the router's or, at @532,
# the players', the router having stopped at its state cap)
R2R_PRICED = [
    (SWISS + "505", 430),  # AB's 6E from B7 (west) to L5 (east): L16's 80 in phase 6 (main: 380)
    (SWISS + "563", 380),  # MOB's 6E, west to east (main: 320)
    (SWISS + "532", 1080),  # BLS's 5D (multiplier 2) west to east: 160 (main: 970)
]


@pytest.mark.corpus
@pytest.mark.parametrize("state_id, engine", R2R_PRICED, ids=[s for s, _ in R2R_PRICED])
def test_red_to_red_answer_is_the_engines_price(state_id, engine):
    doc = catalog_state(state_id)
    assert_answer_at_engine_price(doc, engine)
    assert engine == doc["expected"]["human_recheck"]  # the players found the same


@pytest.mark.corpus
@pytest.mark.parametrize("state_id", [s for s, _ in R2R_PRICED])
def test_the_checker_prices_the_players_red_to_red_routes_as_the_engine(state_id):
    doc = catalog_state(state_id)
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"]["human"]["routes"]]
    checked = api.check(doc, routes)
    assert checked["legal"] and checked["revenue"] == doc["expected"]["human_recheck"]


@pytest.mark.corpus
def test_the_red_to_red_amount_follows_phase_multiplier_and_halving():
    """B16 (north-south) pays 0 before brown, 50 in brown, 60 in gray (its tile code), times the train's
    multiplier; declared twice over for an obsolete train (a 4H in phase 6, not in 5), whose halving gives
    it back whole: (S + 2B) // 2 == S // 2 + B."""
    doc = catalog_state(SWISS + "563")
    trains = [
        {"id": "6E-0", "name": "6E", "distance": doc["trains"][0]["distance"], "price": 700},
        {"id": "5D-0", "name": "5D", "distance": doc["trains"][0]["distance"], "price": 1100, "multiplier": 2},
        {"id": "4H-0", "name": "4H", "distance": 4, "price": 200},
    ]
    for phase, tiles, want in (
        ("6", ["yellow", "green", "brown", "gray"], {60: {"6E"}, 120: {"5D", "4H"}}),
        ("5", ["yellow", "green", "brown"], {50: {"6E", "4H"}, 100: {"5D"}}),
        ("4", ["yellow", "green"], {}),
    ):
        board = read_board(dict(doc, trains=trains, phase={"name": phase, "tiles": tiles}))
        assert rules_for(board).hex_value_amounts("B16") == want, phase
    assert (430 + 2 * 60) // 2 == 430 // 2 + 60 and (431 + 2 * 60) // 2 == 431 // 2 + 60


# ---- 1866's national companies: their regions, homes as tokens, no blocking ------------------------

N1866 = "1866/1866_game_end_final_phase@"
# state, the engine's price of our routes (this branch's judge run: 1866 8 of 8, 4 of 8 on main)
NATIONAL_PRICED = [
    (N1866 + "152", 30),  # PRU's INF: a local run in F22, its home (main: 0)
    (N1866 + "270", 90),  # BNL's INF: F10-G9-H10-I11, all its homes (main: 0)
    (N1866 + "397", 70),  # CH's INF: L12-L14-L16 (main: 0)
    (N1866 + "547", 100),
    (N1866 + "1058", 170),  # the router gave none here; the players ran the same 170 (main: 0, judged right)
]


@pytest.mark.corpus
@pytest.mark.parametrize("state_id, engine", NATIONAL_PRICED, ids=[s for s, _ in NATIONAL_PRICED])
def test_national_answer_is_the_engines_price(state_id, engine):
    doc = catalog_state(state_id)
    assert_answer_at_engine_price(doc, engine)
    assert api.solve(doc, core="python")["revenue"] == engine


@pytest.mark.corpus
@pytest.mark.parametrize("state_id", [s for s, _ in NATIONAL_PRICED])
def test_the_checker_prices_the_players_national_routes_as_the_engine(state_id):
    doc = catalog_state(state_id)
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"]["human"]["routes"]]
    checked = api.check(doc, routes)
    assert checked["legal"] and checked["revenue"] == doc["expected"]["human_recheck"]


@pytest.mark.corpus
def test_a_national_runs_within_its_region_only():
    """BNL's route at @270 (F10-G9-H10-I11, BNL's region and homes) is illegal for CH, a national whose
    region is L12 L14 L16 M13 M15 (#check_distance: "Nationals can only run within its region")."""
    doc = catalog_state(N1866 + "270")
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"]["human"]["routes"]]
    assert api.check(doc, routes)["legal"]
    as_ch = dict(doc, corporation=dict(doc["corporation"], id="CH", name="CH"))
    checked = api.check(as_ch, routes)
    assert not checked["legal"]
    assert any("within its region" in reason for reason in json.dumps(checked).split('"')), checked


@pytest.mark.corpus
def test_the_regions_and_homes_are_the_engines():
    """The declared regions are G1866's NATIONAL_REGION_HEXES and the homes its nationals' coordinates,
    read from the engine itself."""
    script = (
        "require 'json'; require 'route18xx/engine_loader'; Route18xx::EngineLoader.load(ARGV[0]); "
        "g = Engine::Game::G1866::Game; "
        "homes = g::CORPORATIONS.select { |c| %w[national minor_national].include?(c[:type].to_s) }"
        ".to_h { |c| [c[:sym], Array(c[:coordinates]).uniq.sort] }; "
        "puts JSON.generate({ 'regions' => g::NATIONAL_REGION_HEXES, 'homes' => homes })"
    )
    theirs = run_client_script(script, timeout=300)[-1]
    rule = revenue_rules("1866")["national_regions"]
    assert rule["regions"] == theirs["regions"]
    assert rule["homes"] == theirs["homes"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_on_national_regions(data):
    """Random boards run by a national of a random region and homes, at times with local trains: the
    reference, nested and packing searches agree, and every route keeps to the region (stops and track)
    and is priced as the reference prices it."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=1, max_trains=3, local=data.draw(st.booleans())))
    ids = [h["id"] for h in doc["hexes"]]
    region = data.draw(st.lists(st.sampled_from(ids), min_size=1, unique=True))
    homes = data.draw(st.lists(st.sampled_from(region), max_size=3, unique=True))
    doc["corporation"] = dict(doc["corporation"], type="national")
    cid = doc["corporation"]["id"]
    rule = {"company_types": ["national"], "regions": {cid: region}, "homes": {cid: homes}}
    board = read_board(doc)
    rules = DeclaredRules.for_game("random", {}, {"national_regions": rule})(board)
    graph = build_track_graph(board, rules, reachable_only=not any_train_without_token(board, rules))
    problem = problem_from_graph(board, rules, graph)
    for result in searches_agree(problem):
        for r in result.routes:
            segs = [int(problem.seg_by_dir[d]) for d in r.dsegs]
            assert all(h in region for k in segs for h in problem.graph.segments[k].hexes), r
            assert all(problem.graph.stops[s].hex in region for s in r.stops), r
            priced = price_route(problem, r.train, r.stops, route_pen_mask(problem, r.dsegs), segs)
            assert priced.legal and priced.revenue == r.revenue, (r, priced)


# ---- 1858India's Pullman: an optional field of the board document, trains[].pullman -----------------

RUBY_BOARDS = r"""
require 'json'
require 'route18xx/engine_loader'
require 'route18xx/opal_leniency'
require 'route18xx/board'
Route18xx::EngineLoader.load(ARGV[0])
Route18xx::OpalLeniency.apply
replays = Route18xx::EngineLoader::Replays.new
$stdin.each_line do |line|
  req = JSON.parse(line)
  game = replays.before(req['fixture'], Integer(req['action_id']))
  puts JSON.generate(Route18xx::Board.from_game(game, id: req['id']))
end
"""
# the train the player attached the Pullman to before running (the engine's round state)
ATTACHED = {
    INDIA + "491": "4H-5",
    INDIA + "633": "6H-1",
    INDIA + "861": "7E-0",
    INDIA + "918": "5E-2",
}


def _load_judge():
    spec = importlib.util.spec_from_file_location("engine_judge", ROOT / "benchmarks" / "engine_judge.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.corpus
def test_the_ruby_client_gives_the_pullman_and_we_earn_the_engines_price():
    """Every 1858India state replayed with the real engine: the Ruby client's ``Board.from_game`` marks
    the train the Pullman is attached to (and only it, and only where one is), the rest of the board is
    the state's input; our answer on that board is proven, and the engine prices our routes at exactly
    our revenue, at least its router's: all 8 states, where the catalogue's boards (no Pullman field)
    leave 4 wrong."""
    states = states_of("1858India")
    boards = {b["id"]: b for b in run_client_script(RUBY_BOARDS, states)}
    judge = _load_judge()
    requests, answers = [], {}
    for s in states:
        board = boards[s["id"]]
        attached = [t["id"] for t in board["trains"] if t.get("pullman")]
        assert attached == ([ATTACHED[s["id"]]] if s["id"] in ATTACHED else []), s["id"]
        plain = [{k: v for k, v in t.items() if k != "pullman"} for t in board["trains"]]
        assert plain == s["trains"] and board["phase"] == s["phase"]
        assert board["corporation"] == {k: s["corporation"].get(k) for k in board["corporation"]}
        answer = api.solve(board)
        assert answer["optimal"], s["id"]
        answers[s["id"]] = answer["revenue"]
        routes = [{"train": r["train"], "connections": r["hexes"]} for r in answer["routes"]]
        requests.append({"id": s["id"], "fixture": str(fixture_path(s)), "action_id": s["action_id"], "routes": routes})
    priced = judge.price(requests, engine_dir())
    for s in states:
        assert priced[s["id"]].get("revenue") == answers[s["id"]], (s["id"], priced[s["id"]])
        assert answers[s["id"]] >= (s["expected"]["router"]["revenue"] or 0)
    assert {i: answers[i] for i in ATTACHED} == {
        INDIA + "491": 180,
        INDIA + "633": 420,
        INDIA + "861": 500,
        INDIA + "918": 800,
    }


@pytest.mark.corpus
@pytest.mark.parametrize("state_id", list(ATTACHED))
def test_the_pullman_pays_10_a_city_and_off_board_5_once_obsolete(state_id):
    """The catalogue's board with the attached train marked: proven at the engine's price (the test
    above), both strategies agree, the checker prices the players' routes at the engine's recheck, and
    the Pullman's train's values are its stops' plus 10 at each city and off-board."""
    doc = catalog_state(state_id)
    engine = {INDIA + "491": 180, INDIA + "633": 420, INDIA + "861": 500, INDIA + "918": 800}[state_id]
    marked = dict(doc, trains=[dict(t, pullman=True) if t["id"] == ATTACHED[state_id] else t for t in doc["trains"]])
    answer = api.solve(marked)
    assert answer["optimal"] and answer["revenue"] == engine
    assert api.solve(doc)["revenue"] < engine  # without the field: no Pullman
    problem = build_problem(marked)
    nested = compiled.search(problem, strategy="nested")
    packing = compiled.search(problem, strategy="packing")
    assert nested.revenue == packing.revenue == engine
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"]["human"]["routes"]]
    checked = api.check(marked, routes)
    assert checked["legal"] and checked["revenue"] == doc["expected"]["human_recheck"]
    plain = build_problem(doc)
    t = [i for i, spec in enumerate(problem.specs) if spec.pullman][0]
    for s, stop in enumerate(problem.graph.stops):
        more = 10 if stop.kind in ("city", "offboard") else 0
        assert int(problem.values_by_train_stop[t][s]) == int(plain.values_by_train_stop[t][s]) + more


@pytest.mark.corpus
def test_an_obsolete_train_with_the_pullman_earns_5_a_stop():
    """1858India @361: GIP's 2H in phase 4 is obsolete. Were the Pullman on it (GIP had none), its
    route would earn half its stops and 5 for each city or off-board (g_1858_india/game.rb#pullman_bonus:
    ``(train.multiplier || 1) * (train.obsolete ? 5 : 10)``, added after G1858's halving): the players'
    K8-K6-J7 (towns of 10, a city of 40: 60 whole, 30 obsolete, as the engine paid) earns 30 + 5."""
    doc = catalog_state(INDIA + "361")
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"]["human"]["routes"]]
    two_h = [r for r in routes if r["train"] == "2H-5"]
    assert api.check(doc, two_h)["revenue"] == 30
    marked = dict(doc, trains=[dict(t, pullman=True) if t["id"] == "2H-5" else t for t in doc["trains"]])
    checked = api.check(marked, two_h)
    assert checked["legal"] and checked["revenue"] == 30 + 5
    phase3 = dict(marked, phase=dict(doc["phase"], name="3"))  # not obsolete: 60 + 10
    assert api.check(phase3, two_h)["revenue"] == 60 + 10


@pytest.mark.corpus
def test_the_pullman_field_is_refused_where_it_means_nothing():
    """A title without a Pullman to attach (1858 itself) refuses the field by name; two trains cannot
    carry one Pullman; the schema wants a boolean."""
    doc = catalog_state("1858/219682@160")
    one = [dict(doc["trains"][0], pullman=True), doc["trains"][1]]
    with pytest.raises(BoardError, match=r"trains\[0\].pullman: 1858 has no Pullman") as error:
        api.solve(dict(doc, trains=one))
    assert error.value.field == "trains[0].pullman"
    india = catalog_state(INDIA + "169")
    two = [dict(t, pullman=True) for t in india["trains"][:2]] + india["trains"][2:]
    with pytest.raises(BoardError, match="one train at most"):
        api.solve(dict(india, trains=two))
    with pytest.raises(BoardError, match="pullman"):
        api.solve(dict(india, trains=[dict(india["trains"][0], pullman="yes")] + india["trains"][1:]))
