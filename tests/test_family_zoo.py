"""Two route families as data: ``no_town_ends`` (a route may not begin or end at a town) and
``counted_stops`` (the stops a train counts are the title's: 18ZOO's towns and unpaid off-boards ride
free, and a route must count two).

- lib/engine/game/g_steam_over_holland/game.rb#check_distance, g_18_rhl/game.rb#check_distance:
  "Route cannot begin/end in a town".
- lib/engine/game/g_18_zoo/game.rb#check_distance and #cities_visited: a train other than 4J/2J
  counts cities and off-boards paying in yellow only; fewer than two is "Water and external gray
  don't count as city/offboard."; every visited stop is paid (a numeric distance,
  lib/engine/game/base.rb#compute_stops). #revenue_for: WHEAT's +30 (assigned_stop_bonuses).

Both are kept inside both searches (the reference through ``revenue.visit_errors``, the compiled
kernels through ``_pricing.price_route``, which refuses the route but lets the search grow it), in
pricing and in the checker. The engine judges real catalogue states; the twins are compared on random
boards with the families drawn.
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
from optimizer.revenue import gauge_cities

from .boards import bonuses, small_boards
from .test_catalog_rules import catalog_state
from .test_core import _assert_sound
from .test_engine_oracle import assert_engine_judges_right
from .twins import searches_agree

# States the engine refused or under-paid under the generic rules (its error or the router's figure
# named), each right with the family: judged by the engine (benchmarks/engine_judge.py).
ENGINE_JUDGED = (
    "SteamOverHolland/SteamOverHolland_game_end_fixed_round@124",  # "Route cannot begin/end in a town"
    "SteamOverHolland/SteamOverHolland_game_end_fixed_round@168",  # hex_bonus: ours 190, engine 210
    "18Rhl/18Rhl_game_end_bank@354",  # "Route cannot begin/end in a town"
    "18Rhl/18Rhl_game_end_bank@162",  # "Route cannot consist of only one Rhine metropolis"
    "18ZOOMapA/153535@61",  # "Water and external gray don't count as city/offboard."
    "18ZOOMapB/18ZOOMapB_game_end_fixed_round@192",  # towns free: ours 90, router 140
    "18ZOOMapD/dividend_as_president@49",  # both, with WHEAT held: ours 80, router 120
    "18ZOOMapE/113805@227",  # a Work in Progress token fills D5: "Route is not connected"
)


@pytest.mark.parametrize("state_id", ENGINE_JUDGED)
def test_the_engine_accepts_and_prices_our_answer(state_id):
    assert_engine_judges_right(catalog_state(state_id))


def _problem(state_id: str):
    state = catalog_state(state_id)
    return state, build_problem(json.loads(json.dumps(input_fields(state))))


def test_no_route_of_a_no_town_ends_title_ends_at_a_town():
    """Steam Over Holland: every town is a stop a route only passes through; the answer's routes
    begin and end at cities or off-boards."""
    state, problem = _problem("SteamOverHolland/SteamOverHolland_game_end_fixed_round@124")
    towns = [s.kind == "town" for s in problem.graph.stops]
    assert any(towns) and problem.no_end_by_stop.tolist() == [int(t) for t in towns]
    answer = api.solve(input_fields(state))
    assert answer["routes"]
    for route in answer["routes"]:
        ends = [route["stops"][0], route["stops"][-1]]
        assert all(problem.graph.stops[problem.graph.stop_index()[e]].kind != "town" for e in ends), route


def test_the_checker_refuses_a_route_ending_at_a_town():
    """A token city and the town beside it: legal under the generic rules, not in Steam Over Holland."""
    state, problem = _problem("SteamOverHolland/SteamOverHolland_game_end_fixed_round@124")
    stops = problem.graph.stops
    pairs = [
        (stops[t].id, stops[int(problem.to_stop_by_dir[d])].id)
        for t in range(problem.n_stops)
        if problem.token_by_stop[t]
        for d in range(problem.adj_ptr_by_stop[t], problem.adj_ptr_by_stop[t + 1])
        if stops[int(problem.to_stop_by_dir[d])].kind == "town"
    ]
    assert pairs
    city, town = pairs[0]
    checked = api.check(input_fields(state), [{"train": state["trains"][0]["id"], "stops": [city, town]}])
    assert not checked["legal"]
    assert any(f"may not begin or end at {town}" in e for e in checked["routes"][0]["errors"])
    # the same two stops the other way round, and a town in the middle, are judged alike
    checked = api.check(input_fields(state), [{"train": state["trains"][0]["id"], "stops": [town, city]}])
    assert not checked["legal"]


def test_18zoo_counts_cities_and_paying_offboards_only():
    """An S train's towns and the grey off-boards paying 0 ride free, and a route must count two; a
    4J counts its towns (G18ZOO#cities_visited ``check_town``)."""
    _, problem = _problem("18ZOOMapC/5774@448")
    [spec] = problem.specs
    assert spec.name == "4S" and spec.visit_large == 4 and spec.visit_small == spec.visit_total == UNLIMITED
    assert spec.pays_all and problem.min_large_by_train.tolist() == [2]
    unpaid = [i for i, s in enumerate(problem.graph.stops) if s.kind == "offboard" and s.value == 0]
    paying = [i for i, s in enumerate(problem.graph.stops) if s.kind == "offboard" and s.value > 0]
    assert all(not problem.large_by_stop[i] for i in unpaid) and all(problem.large_by_stop[i] for i in paying)
    _, problem = _problem("18ZOOMapC/5774@528")
    [spec] = problem.specs
    assert spec.name == "4J" and spec.visit_total == 4 and spec.multiplier == 2
    assert problem.min_large_by_train.tolist() == [0]


def test_the_checker_refuses_an_18zoo_route_counting_one_city():
    """A token city and a town: two stops, but one counted (the engine's "Water and external gray
    don't count as city/offboard.")."""
    state, problem = _problem("18ZOOMapA/153535@61")
    stops = problem.graph.stops
    pairs = [
        (stops[t].id, stops[int(problem.to_stop_by_dir[d])].id)
        for t in range(problem.n_stops)
        if problem.token_by_stop[t]
        for d in range(problem.adj_ptr_by_stop[t], problem.adj_ptr_by_stop[t + 1])
        if not problem.large_by_stop[int(problem.to_stop_by_dir[d])]
    ]
    assert pairs
    checked = api.check(input_fields(state), [{"train": state["trains"][0]["id"], "stops": list(pairs[0])}])
    assert not checked["legal"]
    assert any("it must count 2" in e for e in checked["routes"][0]["errors"])


@st.composite
def route_rules(draw, problem):
    """Random ``no_town_ends`` stops (any stop may be drawn, not only towns) and minimum large counts,
    one per kind of train (identical trains stay identical: the search places them in order)."""
    n = problem.n_stops
    problem.no_end_by_stop = np.array([draw(st.integers(0, 2)) == 0 for _ in range(n)], dtype=np.uint8)
    by_group = {g: draw(st.integers(0, 3)) for g in sorted(set(problem.group_by_train.tolist()))}
    problem.min_large_by_train = np.array([by_group[g] for g in problem.group_by_train.tolist()], dtype=np.int32)
    return problem


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_under_route_end_and_count_rules(data):
    """The reference, the nested and the packing search agree, and every route they answer begins
    and ends at a stop that may end a route and counts its train's large stops."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=1, max_trains=3))
    problem = build_problem(doc)
    data.draw(route_rules(problem))
    data.draw(bonuses(problem))
    ref, nested, packing = searches_agree(problem)
    for result in (ref, nested, packing):
        for route in result.routes:
            ends = (route.stops[0], route.stops[-1]) if len(route.stops) > 1 else ()
            assert not any(problem.no_end_by_stop[s] for s in ends), route
            large = sum(int(problem.large_by_stop[s]) for s in route.stops)
            halves = sum(int(problem.gauge_halves_by_seg[problem.seg_by_dir[d]]) for d in route.dsegs)
            tunnels = gauge_cities(problem, route.train, halves)  # 18ZOO's tunnel between two holes is a stop
            assert large + tunnels >= problem.min_large_by_train[route.train], route
    _assert_sound(problem, nested)
    _assert_sound(problem, packing)


def test_a_blocking_token_fills_its_slot():
    """18ZOO's Work in Progress leaves a company-less token of type ``blocking`` in a slot: D5 holds
    EL's token and one of those, so it is full for CR, which may end a route there but not pass
    through (lib/engine/part/city.rb#blocks?: no nil token; G18ZOO#check_connected)."""
    state, problem = _problem("18ZOOMapE/113805@227")
    [d5] = [c for h in state["hexes"] if h["id"] == "D5" for c in h["cities"]]
    assert d5["tokens"] == ["EL", None] and d5["token_types"] == ["normal", "blocking"]
    assert state["corporation"]["id"] == "CR"
    d5_stop = problem.graph.stop_index()["D5._0"]
    assert problem.end_only_by_stop[d5_stop]
    answer = api.solve(input_fields(state))
    for route in answer["routes"]:
        assert "D5._0" not in route["stops"][1:-1], route


def test_a_rhine_metropolis_is_one_stop_a_route():
    """18Rhl's Rhine metropolises (map.rb RHINE_METROPOLIS_HEXES: D9, F9, I10): a route visiting one
    twice pays it once (#get_revenue_stops, the Trajekt) or is refused (#illegal_revisit_of_rhine_
    metropolis_hex?), and one of a metropolis alone is refused (#check_distance): one stop of such a
    hex a route (``one_stop_per_hex`` kept to those hexes); other hexes' stops keep their own places."""
    _, problem = _problem("18Rhl/18Rhl_game_end_bank@162")
    stops = problem.graph.stops
    i10 = [i for i, s in enumerate(stops) if s.hex == "I10"]
    assert len(i10) == 2 and len({int(problem.loc_by_stop[i]) for i in i10}) == 1
    by_hex: dict = {}
    for i, s in enumerate(stops):
        by_hex.setdefault(s.hex, []).append(i)
    others = [ids for h, ids in by_hex.items() if len(ids) > 1 and h not in ("D9", "F9", "I10")]
    assert all(len({int(problem.loc_by_stop[i]) for i in ids}) == len(ids) for ids in others)
