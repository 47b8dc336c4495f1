"""Stops counted by the title's rule: rows by node type (stop_classes), gauge changes counted as cities
(gauge_borders), towns at a route's ends counted as cities (end_towns_count), a bonus by the number of
labelled stops (label_count_bonus); and our stops sent to the engine as node signatures.

18Ardennes and 18VA give cities, off-boards and towns rows of their own
(lib/engine/game/g_18_ardennes/trains.rb TRAINS, lib/engine/game/g_18_va/game.rb TRAINS and
#check_distance); 1848 counts each border its track crosses as a city of no value, one free for a "+"
train (lib/engine/game/g_1848/game.rb #visited_stops, #get_modified_gauge_distance, #edge_crossings)
and pays K_BONUS by the number of K-labelled stops (#revenue_for, #k_sum); 18MT counts towns at a route's
ends against its cities (lib/engine/game/g_18_mt/game.rb #check_distance). The engine
(lib/engine/game/base.rb#check_distance) refused our routes on these titles' states with "Route has
too many stops" before. The figures below are the engine's prices in
this branch's judge run (benchmarks/engine_judge.py, engine at 111f7f6).

Tests that need the corpus, Ruby or the engine skip without them, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.inputs import input_fields
from optimizer.core import compiled, reference
from optimizer.errors import BoardError, OptimizerError, RoutesError
from optimizer.games.stop_classes import spec_by_classes
from optimizer.graph.problem import build_problem
from optimizer.model.trains import UNLIMITED
from optimizer.revenue import price_route

from .boards import small_boards
from .corpus import ROOT, catalogue_states

CI = os.environ.get("CI", "").lower() == "true"


def _state(state_id: str) -> dict:
    for s in catalogue_states():
        if s["id"] == state_id:
            return json.loads(json.dumps(s))
    if CI:
        raise RuntimeError(f"catalogue state {state_id} missing under CI=true")
    pytest.skip("the catalogue is not here")


def _judge():
    spec = importlib.util.spec_from_file_location("engine_judge", ROOT / "benchmarks" / "engine_judge.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    if module.engine_dir() is None or module.ruby() is None:
        if CI:
            raise RuntimeError("Ruby or the engine is missing, and CI=true")
        pytest.skip("Ruby or the engine is not here")
    return module


def _train(name, rows, multiplier=None):
    return SimpleNamespace(name=name, distance=rows, multiplier=multiplier, requires_token=True, local=False)


ARDENNES_2 = [
    {"nodes": ["city"], "pay": 2, "visit": 2},
    {"nodes": ["offboard"], "pay": 2, "visit": 2},
    {"nodes": ["town"], "pay": 99, "visit": 99},
]
ARDENNES_4D = [
    {"nodes": ["city"], "pay": 4, "visit": 99},
    {"nodes": ["offboard"], "pay": 2, "visit": 2},
    {"nodes": ["town"], "pay": 0, "visit": 99},
]
VA_3 = [
    {"nodes": ["town"], "pay": 99, "visit": 99, "multiplier": 0},
    {"nodes": ["offboard"], "pay": 2, "visit": 2},
    {"nodes": ["city"], "pay": 3, "visit": 3},
]


def test_rows_read_by_node_type():
    """A 2 train visits two cities, not two cities and two off-boards merged into four large stops."""
    spec = spec_by_classes(_train("2", ARDENNES_2), frozenset({"city"}), "trains[0]")
    assert (spec.visit_large, spec.pay_large) == (2, 2)
    assert spec.visit_small == UNLIMITED and spec.pay_small == UNLIMITED
    assert dict(spec.kind_multipliers) == {"city": 1, "offboard": 1, "town": 1}


def test_rows_paying_nothing_pay_their_type_nothing():
    """18Ardennes' 4D pays 4 of its cities and no town; 18VA's passenger trains' towns (multiplier 0)."""
    d4 = spec_by_classes(_train("4D", ARDENNES_4D, multiplier=2), frozenset({"city"}), "trains[0]")
    assert (d4.visit_large, d4.pay_large, d4.pay_small, d4.multiplier) == (UNLIMITED, 4, 2, 2)
    assert dict(d4.kind_multipliers)["town"] == 0 and d4.value_of(30, False, "town") == 0
    assert d4.value_of(30, False, "offboard") == 30  # the train's own multiplier doubles the route
    va = spec_by_classes(_train("3", VA_3), frozenset({"city"}), "trains[0]")
    assert va.value_of(20, False, "town") == 0 and va.value_of(20, True, "city") == 20


@pytest.mark.parametrize(
    "rows, reason",
    [
        ([{"nodes": ["city"], "pay": 2, "visit": 2}, {"nodes": ["offboard", "town"], "pay": 2, "visit": 2}], "own"),
        ([{"nodes": ["city"], "pay": 2, "visit": 2}, {"nodes": ["offboard"], "pay": 1, "visit": 1}], "own"),
        ([{"nodes": ["city"], "pay": 2, "visit": 2}, {"nodes": ["town"], "pay": 2, "visit": 2}], "unlimited"),
        ([{"nodes": ["city"], "pay": 2, "visit": 2}, {"nodes": ["town"], "pay": 2, "visit": 99}], "all or none"),
    ],
)
def test_rows_outside_the_family_are_refused(rows, reason):
    with pytest.raises(BoardError, match=reason):
        spec_by_classes(_train("2", rows), frozenset({"city"}), "trains[0]")


def _large_count(state: dict, answer: dict) -> Counter:
    kinds = {}
    for hx in state["hexes"]:
        for node in hx.get("nodes") or ():
            kinds[f"{hx['id']}._{node['index']}"] = node["type"]
    return Counter(kinds.get(s) for r in answer["routes"] for s in r["stops"])


@pytest.mark.parametrize(
    "state_id", ["18Ardennes/18Ardennes_game_end_bank@184", "18Ardennes/18Ardennes_game_end_bank@314"]
)
def test_a_2_train_runs_two_cities(state_id):
    state = _state(state_id)
    answer = api.solve(json.dumps(input_fields(state)))
    assert answer["rules"] == "18Ardennes" and answer["optimal"]
    assert _large_count(state, answer)["city"] <= 2


def test_checker_refuses_three_cities_on_a_2_train():
    """Our answer on @184 plus one more city is what the generic reading allowed: the checker says why."""
    state = _state("18Ardennes/18Ardennes_game_end_bank@184")
    board = json.dumps(input_fields(state))
    best = api.solve(board)["routes"][0]
    ok = api.check(board, [{"train": best["train"], "hexes": best["hexes"]}])
    assert ok["routes"][0]["legal"], ok
    cities = [f"{h['id']}._{n['index']}" for h in state["hexes"] for n in h.get("nodes") or () if n["type"] == "city"]
    longer = []
    for extra in (c for c in cities if c not in best["stops"]):
        for stops in ([*best["stops"], extra], [extra, *best["stops"]]):
            try:
                longer.append(api.check(board, [{"train": best["train"], "stops": stops}])["routes"][0])
            except RoutesError:  # no track joins it to the route's end
                pass
    assert longer  # some city lies one track run beyond an end
    for route in longer:
        assert not route["legal"] and any("large stops" in e for e in route["errors"]), route


def test_reference_and_compiled_agree_on_the_family_states():
    """Every state of the family's titles: the reference equals the compiled optimum where it proves
    one in 5 s (18Ardennes @739's 4D it does not), and never exceeds it."""
    proven = 0
    for s in catalogue_states():
        if s["game_key"] in ("18Ardennes", "18VA"):
            text = json.dumps(input_fields(s))
            compiled = api.solve(text, core="compiled")
            python = api.solve(text, core="python", deadline_ms=5_000)
            assert compiled["optimal"] and python["revenue"] <= compiled["revenue"], s["id"]
            if python["optimal"]:
                proven += 1
                assert compiled["revenue"] == python["revenue"], s["id"]
    assert proven >= 12 or not catalogue_states()


# The engine's price of our answer in this branch's judge run; 1847AE's routes end in Birkenfeld's
# town (C9, a city and a town on the same edges), which the engine reads as the city without our
# stops as node signatures ("Route has too many stops" before).
ENGINE_PRICES = {
    "18Ardennes/18Ardennes_game_end_bank@184": 50,
    "18Ardennes/18Ardennes_game_end_bank@251": 80,
    "18Ardennes/18Ardennes_game_end_bank@314": 100,
    "18VA/18VA_game_end_bank@167": 100,  # two 1G trains, CMD uncounted for a freight-only company
    "1847AE/1847AE_game_end_bank@264": 320,
    "1847AE/1847AE_game_end_bank@320": 210,
    "1848/1848_game_end_bank@430": 260,  # Sydney and Brisbane (K): + 50
    "1848/1848_game_end_bank@502": 360,  # a 6+ train: two gauge changes, one free
    "1848/1848_game_end_bank@726": 320,  # a 5 train: its gauge change counts as a city
    "18MT/hs_tolebqll_1644895968@431": 280,  # a 4 train over 13 stops, cities and towns, ending at cities
    "18MT/hs_tolebqll_1644895968@490": 520,  # E/W: + 100
}


def test_the_engine_prices_our_routes_as_we_do():
    judge = _judge()
    states = [_state(i) for i in ENGINE_PRICES]
    verdicts = {v.id: v for v in judge.judge(states, judge.engine_dir())}
    for state_id, price in ENGINE_PRICES.items():
        v = verdicts[state_id]
        assert v.right and v.ours == v.engine == price, (state_id, v.reasons)


# Our generic answer on 1848 @502 before the family: a 6+ train over eight stops that crosses two
# borders (H9 to D3), which the engine refused ("Route has too many stops").
OVER_THE_BORDERS = [
    ["F17", "G16"],
    ["G16", "G14"],
    ["G14", "G12"],
    ["G12", "H11"],
    ["H11", "H9"],
    ["H9", "G8", "F7", "E6", "D7", "D5", "D3"],
    ["D3", "C2", "D1"],
]


def test_gauge_changes_count_as_cities():
    state = _state("1848/1848_game_end_bank@502")
    board = json.dumps(input_fields(state))
    answer = api.solve(board)
    assert answer["rules"] == "1848" and answer["optimal"] and answer["revenue"] == 360
    checked = api.check(board, [{"train": "6-1", "hexes": OVER_THE_BORDERS}])["routes"][0]
    assert not checked["legal"] and any("changes gauge" in e for e in checked["errors"]), checked


def test_the_k_bonus_counts_labelled_stops_once_less():
    """Two K stops earn 50 (K_BONUS[2]); the answer is the engine's 260 on @430."""
    state = _state("1848/1848_game_end_bank@430")
    answer = api.solve(json.dumps(input_fields(state)))
    assert answer["revenue"] == 260 and answer["optimal"]


def _segs(problem, route) -> list:
    return [int(problem.seg_by_dir[d]) for d in route.dsegs]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_when_gauge_changes_count_as_cities(data):
    """Random boards with border sides on their segments (1 to 3 halves) and trains with 0 or 1 free
    change (alike for identical trains, as a free change follows the train's name): the reference equals both compiled strategies (packing declines to the nested search),
    and every route found is legal by the checker's count."""
    problem = build_problem(data.draw(small_boards(max_hexes=12)))
    segments = problem.graph.segments
    if not segments:
        return
    problem.gauge_halves_by_seg = np.array([data.draw(st.sampled_from([0, 1, 2, 3])) for _ in segments], np.int32)
    free = {int(g): data.draw(st.integers(0, 1)) for g in problem.group_by_train}  # identical trains alike
    problem.free_gauge_by_train = np.array([free[int(g)] for g in problem.group_by_train], np.int32)
    ref = reference.search(problem)
    for strategy in ("nested", "packing"):
        fast = compiled.search(problem, strategy=strategy)
        assert fast.optimal and fast.revenue == ref.revenue, (strategy, fast.routes, ref.routes)
        for r in fast.routes:
            assert price_route(problem, r.train, r.stops, 0, _segs(problem, r)).legal


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_when_town_ends_count_as_cities(data):
    """Random boards whose trains count towns at their route's ends against 2, 3 or 4 cities (18MT):
    the reference equals both compiled strategies (packing declines), and every route found is legal
    by the checker's count."""
    problem = build_problem(data.draw(small_boards(max_hexes=12)))
    caps = {int(g): data.draw(st.sampled_from([2, 3, 4])) for g in problem.group_by_train}  # identical trains alike
    problem.end_cap_by_train = np.array([caps[int(g)] for g in problem.group_by_train], np.int32)
    ref = reference.search(problem)
    for strategy in ("nested", "packing"):
        fast = compiled.search(problem, strategy=strategy)
        assert fast.optimal and fast.revenue == ref.revenue, (strategy, fast.routes, ref.routes)
        for r in fast.routes:
            assert price_route(problem, r.train, r.stops, 0, _segs(problem, r)).legal


def test_towns_at_the_ends_count_against_the_cities():
    """18MT @431: the generic rules' answer (the state read as an unknown title) is the route the engine
    refused ("Towns on route ends are counted against city limit"); under 18MT's rules the checker
    refuses it and says why, and the answer is the engine's 280."""
    state = _state("18MT/hs_tolebqll_1644895968@431")
    doc = input_fields(state)
    answer = api.solve(json.dumps(doc))
    assert answer["rules"] == "18MT: Big Sky Barons" and answer["revenue"] == 280
    generic = api.solve(json.dumps(dict(doc, game="an unknown title")))
    assert generic["rules"] == "generic" and generic["revenue"] == 280  # as much, on a route the engine refuses
    route = generic["routes"][0]
    checked = api.check(json.dumps(doc), [{"train": route["train"], "hexes": route["hexes"]}])["routes"][0]
    assert not checked["legal"] and any("at its ends" in e for e in checked["errors"]), checked


def test_the_ghan_is_refused_with_its_reason():
    """1848's 2E pays only tokened stops and Alice Springs (g_1848 #visited_stops): refused, not priced."""
    doc = input_fields(_state("1848/1848_game_end_bank@73"))
    doc["trains"] = [dict(doc["trains"][0], id="2E-0", name="2E")]
    with pytest.raises(OptimizerError, match="2E.*not supported: the Ghan"):
        api.solve(json.dumps(doc))
