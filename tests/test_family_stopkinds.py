"""Stops counted by the title's rows (stop_classes) and our stops sent as node signatures.

18Ardennes and 18VA give cities, off-boards and towns rows of their own
(lib/engine/game/g_18_ardennes/trains.rb TRAINS, lib/engine/game/g_18_va/game.rb TRAINS and
#check_distance). The engine
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

import pytest

from optimizer import api
from optimizer.board.inputs import input_fields
from optimizer.errors import BoardError, RoutesError
from optimizer.games.stop_classes import spec_by_classes
from optimizer.model.trains import UNLIMITED

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
}


def test_the_engine_prices_our_routes_as_we_do():
    judge = _judge()
    states = [_state(i) for i in ENGINE_PRICES]
    verdicts = {v.id: v for v in judge.judge(states, judge.engine_dir())}
    for state_id, price in ENGINE_PRICES.items():
        v = verdicts[state_id]
        assert v.right and v.ours == v.engine == price, (state_id, v.reasons)
