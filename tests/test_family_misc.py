"""1840's train maintenance (``train_maintenance``): a minor's run earns its trains' maintenance beside
its routes, with some route only (lib/engine/game/g_1840/game.rb#routes_revenue, #maintenance_costs,
#train_maintenance, #buy_train, MAINTENANCE_COST), where the minor's own trains settle the active table.
The engine's price is the one it gave our answer (benchmarks/engine_judge.py --title 1840, 2026-12-03:
@857 "ours 460, engine 460"; main answered 260)."""

from __future__ import annotations

import json
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.inputs import input_fields
from optimizer.games import game_data
from optimizer.games.maintenance import known_maintenance, train_type
from optimizer.graph.problem import build_problem

from .test_catalog_rules import catalog_state

PU_STATE = "1840/218809@857"  # minor 14 runs a Pu1: the Pu1 table is active, +200 (engine: 460 = 260 + 200)
OPEN_STATE = "1840/218809@684"  # minor 14 runs a Y1 in phase 2: R1 (-50), Pi1 or Pu1 may be active

ENGINE_TABLES = {  # g_1840/game.rb MAINTENANCE_COST, the tables an R1, a Pi1 and a Pu1 bring
    "R1": {"Y1": -50},
    "Pi1": {"Y1": -200, "O1": -100, "R1": -50},
    "Pu1": {"Y1": -400, "O1": -300, "R1": -100, "Pu1": 200},
}
ORDER = ["R1", "Pi1", "Pu1"]  # each later one has the lower Y1 cost: #buy_train makes it the active one


def _rule() -> dict:
    return game_data("1840")["revenue_rules"]["train_maintenance"]


def _ran(routes) -> list:
    return [{"train": r["train"], "hexes": r["hexes"]} for r in routes]


def test_the_data_file_holds_the_engines_tables():
    assert {t["bought"]: t["costs"] for t in _rule()["tables"]} == ENGINE_TABLES
    assert [t["bought"] for t in _rule()["tables"]] == ORDER


def test_a_minor_running_a_pu1_earns_the_engines_price():
    doc = catalog_state(PU_STATE)
    answer = api.solve(json.dumps(input_fields(doc)))
    assert answer["optimal"] and "train_maintenance" in answer["revenue_rules"]
    assert answer["revenue"] == 460
    assert build_problem(doc).fixed_revenue == 200
    checked = api.check(doc, _ran(answer["routes"]))
    assert checked["legal"] and checked["revenue"] == 460


def test_the_checker_pays_no_maintenance_to_an_empty_run():
    doc = catalog_state(PU_STATE)
    assert api.check(doc, [])["revenue"] == 0  # #routes_revenue: ``return super if routes.empty?``


def test_an_open_table_pays_no_maintenance():
    """Minor 14 at 684 owns a Y1 only: the engine charged it 50 (an R1 had been bought), which the board
    does not say; it stays unpaid (coverage.json names it) rather than guessed."""
    doc = catalog_state(OPEN_STATE)
    assert build_problem(doc).fixed_revenue == 0
    assert known_maintenance(_rule(), "minor", [SimpleNamespace(id=t["id"]) for t in doc["trains"]]) is None


def test_a_train_type_is_the_id_before_its_index():
    assert train_type(SimpleNamespace(id="O1-3")) == "O1"  # an O3 variant: its sym stays O1
    assert train_type(SimpleNamespace(id="Pu1-1")) == "Pu1"


def test_majors_and_city_companies_pay_none():
    trains = [SimpleNamespace(id="Pu1-0")]
    assert known_maintenance(_rule(), "major", trains) == 0
    assert known_maintenance(_rule(), "city", trains) == 0


def _engine_maintenance(active: str | None, types: list) -> int:
    costs = ENGINE_TABLES.get(active, {})
    return sum(costs.get(t, 0) for t in types)


@given(st.lists(st.sampled_from(["Y1", "O1", "R1", "Pi1", "Pu1"]), min_size=1, max_size=3))
def test_known_maintenance_is_the_engines_under_every_table_the_trains_allow(types):
    """The engine's table is that of the newest type bought (None before an R1); a train owned was bought,
    so every table from its type's on is possible. The answer, where given, is the engine's under each."""
    owned = [ORDER.index(t) for t in types if t in ORDER]
    possible = [None, *ORDER][1 + max(owned, default=-1) :]
    prices = {_engine_maintenance(active, types) for active in possible}
    got = known_maintenance(_rule(), "minor", [SimpleNamespace(id=f"{t}-{i}") for i, t in enumerate(types)])
    assert got == (prices.pop() if len(prices) == 1 else None)
    if "Pu1" in types:
        assert got == _engine_maintenance("Pu1", types)
