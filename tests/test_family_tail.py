"""Two route families as data: ``express_trains`` (18NewEngland and its Northern States: the company's
express trains run as one, its smallest, visiting at most N cities and off-boards, all paid, towns free,
its best towns filling the pay its cities leave, paid times the number of express trains it owns) and
``no_town_ends``' ``except_trains`` (1825: no route begins or ends at a town but a 3T's, 4T's, U3's or
2+2's; 18Carolinas: no route of any train does).

- lib/engine/game/g_18_new_england/game.rb#express_train?, #route_trains, #check_distance,
  #compute_stops, #revenue_multiplier, #revenue_for (g_18_new_england_north/game.rb subclasses it).
- lib/engine/game/g_1825/game.rb#check_distance ("Route cannot begin/end in a town", but for
  ``%w[3T 4T U3 2+2]``); lib/engine/game/g_18_carolinas/game.rb#check_distance.

A train free of the no-end rule is the problem's ``ends_free_by_train``, honoured by the reference
(``revenue.visit_errors``), the compiled kernels (``_pricing.route_refused``) and the checker.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.inputs import input_fields
from optimizer.graph.problem import build_problem
from optimizer.model.trains import UNLIMITED
from optimizer.revenue import visit_errors

from .boards import bonuses, small_boards
from .test_catalog_rules import catalog_state
from .test_core import _assert_sound
from .test_engine_oracle import assert_engine_judges_right
from .twins import searches_agree

NE = "18NewEngland/18NewEngland_game_end_stock_market"

# States the engine refused under the generic rules (its error named), each right with the families:
# judged by the engine (benchmarks/engine_judge.py).
ENGINE_JUDGED = (
    f"{NE}@643",  # "Route has too many cities/offboards": the 5E passed towns as stops
    "1825/1825_game_end_stock_market@873",  # "Route cannot begin/end in a town": a 3 train's route
    "18Carolinas/86397@387",  # "Route cannot begin/end in a town"
)


def _doc(state_id: str) -> dict:
    return json.loads(json.dumps(input_fields(catalog_state(state_id))))


@pytest.mark.parametrize("state_id", ENGINE_JUDGED)
def test_the_engine_accepts_and_prices_our_answer(state_id):
    assert_engine_judges_right(catalog_state(state_id))


def test_an_express_train_counts_cities_only_and_pays_them_all():
    """@842's 5E: five cities and off-boards at most, towns free, its towns filling what the cities leave."""
    [spec] = build_problem(_doc(f"{NE}@842")).specs
    assert (spec.visit_large, spec.visit_small, spec.visit_total) == (5, UNLIMITED, UNLIMITED)
    assert (spec.pay_large, spec.pay_small, spec.pay_total) == (5, 5, 5)
    assert spec.large_first and spec.multiplier == 1


def test_the_express_trains_run_as_their_smallest_times_their_number():
    """@842: the engine paid B&M's one running 5E 680, "B19-G10-G6-G8-I6-L5-M4 (×2)": B&M owned two
    express trains, the document (route_trains) lists one. Given the multiplier, or both trains, ours
    is the engine's 680 (expected.human and the router's); without it, half."""
    state = catalog_state(f"{NE}@842")
    assert state["expected"]["router"]["revenue"] == 680
    doc = _doc(f"{NE}@842")
    assert api.solve(json.dumps(doc))["revenue"] == 340
    doc["trains"][0]["multiplier"] = 2
    assert api.solve(json.dumps(doc))["revenue"] == 680
    doc = _doc(f"{NE}@842")
    doc["trains"].insert(0, {**doc["trains"][0], "id": "8E-9", "name": "8E", "distance": 8})
    answer = api.solve(json.dumps(doc))
    assert answer["revenue"] == 680
    assert [r["train"] for r in answer["routes"] if r["hexes"]] == ["5E-0"]
    problem = build_problem(doc)
    assert [t.id for t in problem.trains] == ["5E-0"] and problem.specs[0].multiplier == 2


def test_the_checker_prices_the_engines_express_route():
    """The route the engine paid 680 (×2) at @842 is legal and pays 340 a train: its five cities and
    off-boards are paid (G6 and M4, towns, left unpaid as the engine's stops say)."""
    state = catalog_state(f"{NE}@842")
    [route] = state["expected"]["human"]["routes"]
    doc = _doc(f"{NE}@842")
    doc["trains"][0]["multiplier"] = 2
    checked = api.check(doc, [{"train": route["train"], "hexes": route["hexes"]}])
    assert checked["legal"] and checked["revenue"] == 680, checked


def test_only_the_named_trains_may_end_at_a_town():
    """1825 @1151 (4T, 6, 6): the 4T may begin and end at a town, the 6s may not; 18Carolinas: none."""
    problem = build_problem(_doc("1825/1825_game_end_stock_market@1151"))
    assert [s.name for s in problem.specs] == ["4T", "6", "6"]
    assert problem.ends_free_by_train.tolist() == [1, 0, 0]
    towns = [s for s in range(problem.n_stops) if problem.no_end_by_stop[s]]
    tokened = [s for s in range(problem.n_stops) if problem.token_by_stop[s]]
    assert towns and tokened
    route = [towns[0], tokened[0]]
    assert not any("may not begin or end" in e for e in visit_errors(problem, 0, route))
    assert any("may not begin or end" in e for e in visit_errors(problem, 1, route))
    carolinas = build_problem(_doc("18Carolinas/86397@387"))
    assert carolinas.no_end_by_stop.any() and not carolinas.ends_free_by_train.any()


@st.composite
def end_rules(draw, problem):
    """Random stops no route may end at, and trains (one kind at a time) free of that rule."""
    n = problem.n_stops
    problem.no_end_by_stop = np.array([draw(st.integers(0, 2)) == 0 for _ in range(n)], dtype=np.uint8)
    by_group = {g: draw(st.booleans()) for g in sorted(set(problem.group_by_train.tolist()))}
    problem.ends_free_by_train = np.array([by_group[g] for g in problem.group_by_train.tolist()], dtype=np.uint8)
    return problem


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_when_some_trains_may_end_anywhere(data):
    """The reference, the nested and the packing search agree, and only a free train's route ends at
    a stop that may only be passed through."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=1, max_trains=3))
    problem = build_problem(doc)
    data.draw(end_rules(problem))
    data.draw(bonuses(problem))
    ref, nested, packing = searches_agree(problem)
    for result in (ref, nested, packing):
        for route in result.routes:
            ends = (route.stops[0], route.stops[-1]) if len(route.stops) > 1 else ()
            if not problem.ends_free_by_train[route.train]:
                assert not any(problem.no_end_by_stop[s] for s in ends), route
    _assert_sound(problem, nested)
    _assert_sound(problem, packing)
