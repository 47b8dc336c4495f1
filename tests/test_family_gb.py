"""Two route families as data, for 18GB: ``crow_distance_bonus`` (an X train earns 10 per hex, as the
crow flies, between its route's first and last stop on a hex with a city or an off-board) and
``closed_private_hex_bonuses`` (a private's hex bonus, paid once the private is closed).

- lib/engine/game/g_18_gb/game.rb#revenue_info, #distance_bonus, #hex_crow_distance: ``dx + [0, (dy -
  dx) / 2].max`` over the engine's hex x and y (lib/engine/hex.rb ``Hex.init_x_y``).
- g_18_gb/game.rb#revenue_bonuses: the ``hex_bonus`` of a private the company's director owns, once
  its value is 0 (``#close_company``), for each stop on its hexes; ``#close_company_in_hex`` closes a
  private once a tile is laid on the hex it blocks.

The crow bonus is priced inside both searches (the reference through ``revenue.bonus_value``, the
compiled kernels through ``_pricing.bonus_of``), bounded admissibly (``bounds.crow_bound``) and in the
checker (``revenue.price_route``). The engine judges real catalogue states; the twins are compared on
random boards with the bonus drawn.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.inputs import input_fields
from optimizer.core.bounds import crow_bound
from optimizer.games.declared import engine_xy
from optimizer.graph.problem import build_problem
from optimizer.revenue import crow_hexes

from .boards import bonuses, small_boards
from .ruby import engine_dir, tool
from .test_catalog_rules import catalog_state
from .test_core import _assert_sound
from .test_engine_oracle import judge
from .twins import searches_agree

# States the engine priced above our answer under the generic rules (ours, engine's), each right
# with the families: judged by the engine (benchmarks/engine_judge.py).
ENGINE_JUDGED = (
    "18GB/18gb-6p@647",  # X bonus: ours 260, engine 310
    "18GB/18gb-6p@744",  # X bonus: ours 290, engine 340
    "18GB/18gb-6p@826",  # X bonus and the closed SD's J13: ours 250, engine 320
    "18GB/18gb-6p@894",  # X bonus: ours 290, engine 320
)


@pytest.mark.parametrize("state_id", ENGINE_JUDGED)
def test_the_engine_accepts_and_prices_our_answer(state_id):
    tool("ruby")
    state = catalog_state(state_id)
    [verdict] = judge.judge([state], engine_dir())
    assert verdict.right, verdict.reasons
    assert verdict.ours == verdict.engine >= (verdict.router or 0)  # (no router figure recorded: null)


def _state(state_id: str):
    return json.loads(json.dumps(input_fields(catalog_state(state_id))))


def test_hex_x_and_y_are_the_engines():
    """``Hex.init_x_y``: letters A.., AA.. and the negative a.. (18GB's a25), numbers less one."""
    axes = {"x": "letter", "y": "number"}
    assert engine_xy("G26", axes) == (6, 25)
    assert engine_xy("a25", axes) == (-1, 24)
    assert engine_xy("AB3", axes) == (27, 2)
    assert engine_xy("G26", {"x": "number", "y": "letter"}) == (25, 6)
    # G26 to G16 is 5 hexes (the engine's "+£50" on a 5X route from G26 to G16 in @647's run);
    # H15 to G4 is 6 ("+£60" in @826's)
    assert crow_hexes(6, 25, 6, 15) == 5
    assert crow_hexes(7, 14, 6, 3) == 6


def test_the_checker_prices_the_routes_as_the_engine_did():
    """Routes the engine priced (clients/ruby/bin/price-routes on main's answers, this branch's run):
    @647's 5X G26-H21-H19-H17-G16 at 310 ("+£50"); @826's 6X over H15 .. J13 .. G4 at 320
    ("+(SD)+£60": the SD closed once a tile lay on I12), and 10 less without the SD."""
    state = _state("18GB/18gb-6p@647")
    route = {"train": "5X-2", "stops": ["G26._0", "H21._0", "H19._0", "H17._0", "G16._1"]}
    checked = api.check(state, [route])
    assert checked["legal"] and checked["revenue"] == 310, checked
    state = _state("18GB/18gb-6p@826")
    stops = ["H15._0", "I12._0", "J13._0", "J11._0", "H9._0", "G8._0", "F5._0", "G4._0"]
    checked = api.check(state, [{"train": "6X-0", "stops": stops}])
    assert checked["legal"] and checked["revenue"] == 320, checked
    state["corporation"]["president_companies"] = [c for c in state["corporation"]["president_companies"] if c != "SD"]
    assert api.check(state, [{"train": "6X-0", "stops": stops}])["revenue"] == 310


def test_an_open_private_pays_no_hex_bonus():
    """The SD blocks I12 while open: with I12's printed tile back, J13 pays 10 less."""
    printed = json.loads(resources.files("optimizer.games").joinpath("data/18GB.json").read_text())
    [i12] = [h for h in printed["hexes"] if h["id"] == "I12"]
    state = _state("18GB/18gb-6p@826")
    [laid] = [hx for hx in state["hexes"] if hx["id"] == "I12"]
    assert laid["tile"] != i12["tile"]
    laid.update(tile=i12["tile"], code=i12["code"], rotation=0)
    closed = build_problem(_state("18GB/18gb-6p@826")).graph
    still_open = build_problem(state).graph
    j13 = closed.stop_index()["J13._0"]
    assert still_open.stops[still_open.stop_index()["J13._0"]].value == closed.stops[j13].value - 10


def test_only_x_trains_earn_the_bonus_and_the_bound_holds_it():
    """A 5+2 earns no crow bonus; the 5X does, and no route of it earns more than the bound says."""
    problem = build_problem(_state("18GB/18gb-6p@647"))
    assert problem.crow_per_hex_by_train.tolist() == [10]
    assert crow_bound(problem, 0) >= 50
    problem = build_problem(_state("18GB/18gb-6p@562"))
    assert problem.crow_per_hex_by_train.size == 0  # its only train is a 5+2


@st.composite
def crow_rules(draw, problem):
    """A random crow bonus: per-hex amounts by kind of train, stops' x and y, the stops that end it."""
    n = problem.n_stops
    by_group = {g: draw(st.sampled_from([0, 10, 20])) for g in sorted(set(problem.group_by_train.tolist()))}
    problem.crow_per_hex_by_train = np.array([by_group[g] for g in problem.group_by_train.tolist()], dtype=np.int32)
    problem.crow_x_by_stop = np.array([draw(st.integers(-2, 8)) for _ in range(n)], dtype=np.int32)
    problem.crow_y_by_stop = np.array([draw(st.integers(-2, 12)) for _ in range(n)], dtype=np.int32)
    problem.crow_end_by_stop = np.array([draw(st.integers(0, 3)) > 0 for _ in range(n)], dtype=np.uint8)
    return problem


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_with_a_crow_bonus(data):
    """The reference, the nested and the packing search agree with the crow bonus drawn (beside the
    other bonuses), and price every route they answer as the reference does."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=1, max_trains=3))
    problem = build_problem(doc)
    data.draw(crow_rules(problem))
    data.draw(bonuses(problem))
    ref, nested, packing = searches_agree(problem)
    _assert_sound(problem, nested)
    _assert_sound(problem, packing)
