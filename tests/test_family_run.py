"""Rules on the whole run (issues 27 and 32): 18TN's Civil War (``civil_war``: a run of every train pays
its lowest route nothing, g_18_tn/game.rb#routes_revenue), 18Tokaido's Sleeper Train (``best_route_bonuses``
with ``per_stop_kinds``: 10 a city on the company's best route, g_18_tokaido/game.rb#sleeper_bonus) and 18NY's
connection bonuses (``connection_bonuses``: 10 a location the company has not claimed, once across its routes,
g_18_ny/game.rb#route_connection_bonus_hexes; ``ability_revenue``: the claimed ones, #routes_revenue). The
engine's prices are those it gave our answers (benchmarks/engine_judge.py --title 18TN --title 18Tokaido
--title 18NY --title 18NY1stEdition, 2026-12-03) and its router's, which the state records."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.inputs import input_fields
from optimizer.core import compiled, reference
from optimizer.graph.problem import build_problem
from optimizer.revenue import best_route_awards, best_route_value, once_taken_back, price_route

from .boards import bonuses, small_boards
from .test_catalog_rules import catalog_state
from .twins import searches_agree

CIVIL_WAR_STATE = "18TN/7818@195"  # IC holds the civil_war ability and runs a 2 and a 3
SLEEPER_STATES = {  # the Sleeper Train's owner, one train each: what the engine paid our routes
    "18Tokaido/18Tokaido_game_end_bankrupt@124": 150,
    "18Tokaido/18Tokaido_game_end_bankrupt@204": 210,
}


def _ran(routes) -> list:
    return [{"train": r["train"], "hexes": r["hexes"]} for r in routes]


# ---- 18TN: the Civil War ----------------------------------------------------------------------


def test_civil_war_run_earns_what_the_engine_pays():
    """Running both trains the engine pays 70 (its router: 70 and 50, less the lowest); main answered both
    at 120, which the engine paid 60. We answer 70, one train idle: what the engine paid our routes."""
    doc = catalog_state(CIVIL_WAR_STATE)
    answer = api.solve(json.dumps(input_fields(doc)))
    assert answer["rules"] == "18TN" and answer["optimal"] and answer["unsupported"] == []
    assert answer["revenue"] == 70 == doc["expected"]["router"]["revenue"]
    assert len(answer["routes"]) < len(doc["trains"])
    assert "civil_war" in answer["revenue_rules"]


def test_civil_war_checker_prices_a_run_of_every_train_as_the_engine():
    """The router's run of both trains, 70 + 50, is legal and earns 70 (the engine's routes_revenue)."""
    doc = catalog_state(CIVIL_WAR_STATE)
    router = doc["expected"]["router"]
    assert len(router["routes"]) == len(doc["trains"])
    checked = api.check(doc, _ran(router["routes"]))
    assert checked["legal"]
    assert [r["revenue"] for r in checked["routes"]] == [r["revenue"] for r in router["routes"]] == [70, 50]
    assert checked["revenue"] == 70 == router["revenue"]
    alone = api.check(doc, _ran(router["routes"][:1]))  # one train idle: no war loss
    assert alone["legal"] and alone["revenue"] == 70


def test_civil_war_only_with_the_ability():
    """Without the civil_war ability (the same board) every train runs and each route pays."""
    doc = catalog_state(CIVIL_WAR_STATE)
    assert build_problem(doc).not_all_trains == 1
    peace = json.loads(json.dumps(doc))
    peace["corporation"]["abilities"] = []
    assert build_problem(peace).not_all_trains == 0
    answer = api.solve(json.dumps(input_fields(peace)))
    assert len(answer["routes"]) == 2 and answer["revenue"] > 70


@pytest.mark.parametrize("strategy", ["nested", "packing", "auto"])
def test_civil_war_every_strategy_leaves_a_train_idle(strategy):
    problem = build_problem(catalog_state(CIVIL_WAR_STATE))
    assert compiled.packing_declines(problem)
    result = compiled.search(problem, strategy=strategy)
    assert result.optimal and result.revenue == 70 and len(result.routes) < problem.n_trains
    assert reference.search(problem).revenue == 70


# ---- 18Tokaido: the Sleeper Train -------------------------------------------------------------


@pytest.mark.parametrize("state_id", sorted(SLEEPER_STATES))
def test_sleeper_train_pays_ten_a_city(state_id):
    doc = catalog_state(state_id)
    assert "ST" in doc["corporation"]["companies"]
    answer = api.solve(json.dumps(input_fields(doc)))
    assert answer["optimal"] and answer["unsupported"] == []
    assert answer["revenue"] == SLEEPER_STATES[state_id] == doc["expected"]["router"]["revenue"]
    router = doc["expected"]["router"]
    checked = api.check(doc, _ran(router["routes"]))
    assert checked["legal"] and checked["revenue"] == router["revenue"]
    assert all("Sleeper" in r["revenue_str"] for r in router["routes"])


def test_sleeper_counts_cities_not_towns_or_offboards():
    """#sleeper_bonus counts ``visited_stops`` that are cities: the bonus's per_stop leaves out every
    other stop of the board."""
    doc = catalog_state("18Tokaido/18Tokaido_game_end_bankrupt@204")
    problem = build_problem(doc)
    assert problem.n_best_route == 1 and int(problem.per_stop_by_best_route[0]) == 10
    stops = problem.graph.stops
    kinds = {s.kind for s in stops}
    assert "city" in kinds and kinds - {"city"}, kinds  # the board has towns or off-boards too
    for i, stop in enumerate(stops):
        assert problem.uncounted_by_best_route_stop[0][i] == (stop.kind != "city")
    city = next(i for i, s in enumerate(stops) if s.kind == "city")
    other = next(i for i, s in enumerate(stops) if s.kind != "city")
    assert best_route_value(problem, 0, [city, other]) == 10
    without = build_problem(dict(doc, corporation=dict(doc["corporation"], companies=[])))
    assert without.n_best_route == 0


# ---- 18NY: connection bonuses ----------------------------------------------------------------

NY_STATES = {  # what the engine paid our answer (main answered the first figure)
    "18NY/110841@133": (70, 80),  # one 2H to G19's unclaimed bonus
    "18NY/110841@489": (180, 190),  # NYC has claimed one bonus: $10 with any run
    "18NY1stEdition/18NY1stEdition_game_end_bank@132": (110, 120),  # two 2H trains, D0's bonus once
    "18NY1stEdition/18NY1stEdition_game_end_bank@193": (70, 90),  # two bonuses on one route
    "18NY1stEdition/18NY1stEdition_game_end_bank@605": (470, 560),  # $50 claimed, $30 of coal, and K19's bonus
}


@pytest.mark.parametrize("state_id", sorted(NY_STATES))
def test_connection_bonuses_earn_what_the_engine_pays(state_id):
    doc = catalog_state(state_id)
    answer = api.solve(json.dumps(input_fields(doc)))
    assert answer["optimal"] and "connection_bonuses" in answer["revenue_rules"]
    assert answer["revenue"] == NY_STATES[state_id][1] >= doc["expected"]["router"]["revenue"]
    checked = api.check(doc, _ran(answer["routes"]))
    assert checked["legal"] and checked["revenue"] == answer["revenue"]


def test_the_checker_prices_the_routers_run_with_its_claimed_bonuses():
    """D&H at 605: its router's run earns 440 on the routes (290 with K19's bonus, and 150) and 80 for the
    bonuses and coal D&H has claimed (abilities "Connection Bonus Revenue: $50", "Coal Revenue: $30")."""
    doc = catalog_state("18NY1stEdition/18NY1stEdition_game_end_bank@605")
    router = doc["expected"]["router"]
    checked = api.check(doc, _ran(router["routes"]))
    assert checked["legal"] and [r["revenue"] for r in checked["routes"]] == [290, 150]
    assert checked["revenue"] == 520 == router["revenue"]
    assert build_problem(doc).fixed_revenue == 80


def test_a_location_pays_once_across_the_routes():
    """D0 (1st edition, 132: the router's "D2-D0 + 1 Connection Bonus") is unclaimed: its stop's value holds
    10, which a second route paying it gives back."""
    doc = catalog_state("18NY1stEdition/18NY1stEdition_game_end_bank@132")
    problem = build_problem(doc)
    index = problem.graph.stop_index()
    [d0] = [i for stop, i in index.items() if stop.startswith("D0")]
    [e5] = [i for stop, i in index.items() if stop.startswith("E5")]
    assert problem.once_amount == 10 and problem.once_bits_by_stop[d0] and not problem.once_bits_by_stop[e5]
    assert once_taken_back(problem, [(0, [d0, e5]), (1, [d0])]) == [0, 10]
    assert once_taken_back(problem, [(0, [e5]), (1, [d0])]) == [0, 0]
    claimed = json.loads(json.dumps(doc))
    for hx in claimed["hexes"]:
        if hx["id"] == "D0":
            hx["assignments"] = {}
    bits = build_problem(claimed).once_bits_by_stop  # the same graph: only D0's assignment is gone
    assert len(bits) == 0 or not bits[d0]


def test_an_offboard_location_pays_by_its_first_hex():
    """Ottawa (A13, A11): the assignment lies on A13; A11 pays it too while it is there (#init_connection_bonuses,
    #offboard_connection_bonus_hex); A21, of two locations, pays none."""
    rules = build_problem(catalog_state("18NY/110841@133")).rules
    hexes = rules.board.hexes
    first = hexes["A13"]
    assert first.assignments.get("connection_bonus")
    for hex_id, want in (("A11", "A13"), ("A13", "A13"), ("A21", None)):
        hx = hexes[hex_id]
        nodes = [n for n in hx.tile.nodes if n.is_stop]
        assert nodes and all(rules.once_location(hx, n) == want for n in nodes), hex_id


# ---- the searches agree -----------------------------------------------------------------------


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_on_runs_that_leave_a_train_idle(data):
    """With ``not_all_trains`` (and the other bonuses, best-route bonuses counting some stops only) the
    reference, nested and packing searches agree, and no answer runs every train."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=1, max_trains=3))
    problem = build_problem(doc)
    data.draw(bonuses(problem))
    problem.not_all_trains = 1
    assert compiled.packing_declines(problem)
    for result in searches_agree(problem):
        assert len(result.routes) < problem.n_trains or problem.n_trains == 0


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_on_a_bonus_once_across_the_routes(data):
    """Locations whose bonus the first route paying them keeps (``once_bits_by_stop``): the nested kernel takes
    it back as each level prices its route, the reference at the leaf (the packing kernel declines)."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=2, max_trains=3))
    problem = build_problem(doc)
    data.draw(bonuses(problem))
    n = problem.n_stops
    problem.once_bits_by_stop = np.array([data.draw(st.sampled_from([0, 1, 1, 2, 3])) for _ in range(n)], np.uint64)
    problem.once_amount = data.draw(st.sampled_from([10, 40]))
    assert compiled.packing_declines(problem) or not problem.once_bits_by_stop.any()
    for result in searches_agree(problem):
        assert result.revenue == _priced_afresh(problem, result.routes) + result.pullman


def _priced_afresh(problem, routes) -> int:
    """The run's routes priced one by one, less what a bonus once across the routes takes back, plus the
    best-route bonuses: what the searches must have summed."""
    total = 0
    for r in routes:
        pen = 0
        for d in r.dsegs:
            pen |= int(problem.penalty_mask_by_seg[problem.seg_by_dir[d]])
        priced = price_route(problem, r.train, r.stops, pen)
        assert priced.legal, priced.errors
        total += priced.revenue
    total -= sum(once_taken_back(problem, [(r.train, r.paid) for r in routes]))
    return total + sum(a for _, a in best_route_awards(problem, [r.stops for r in routes], [r.train for r in routes]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_on_best_route_bonuses_counting_some_stops(data):
    doc = data.draw(small_boards(max_hexes=10, min_trains=1, max_trains=3))
    problem = build_problem(doc)
    data.draw(bonuses(problem))
    n = problem.n_stops
    if n:
        k = data.draw(st.integers(1, 2))
        problem.amount_by_best_route = np.zeros(k, dtype=np.int32)
        problem.per_stop_by_best_route = np.full(k, 10, dtype=np.int32)
        problem.multiplied_by_best_route = np.zeros(k, dtype=np.uint8)
        problem.groups_by_best_route_stop = np.zeros((k, n), dtype=np.uint32)
        problem.full_by_best_route = np.zeros(k, dtype=np.uint32)
        problem.uncounted_by_best_route_stop = np.array(
            [[data.draw(st.integers(0, 1)) for _ in range(n)] for _ in range(k)], dtype=np.uint8
        )
        problem.n_best_route = k
    searches_agree(problem)
