"""The gauges family: the track kinds (the tile DSL's ``track:``) a train's route may use, exact in both
searches, in pricing and in the checker; and the titles it brought in (1825, 1840, 18Carolinas,
18Norway), judged by the engine on their catalogue states.

The engine's rules, each cited where it is tested: lib/engine/game/g_18_carolinas/game.rb#check_other
("Train cannot use more than one gauge": a route's paths never both :narrow and :broad, :dual with
either), g_1840/game.rb#check_track_type (a minor's route broad track only), g_18_norway/game.rb
#check_other ("Ships cannot run on land": a ship's track is only its :narrow; "Trains cannot run on
water": a train's never :narrow).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.core import compiled, reference
from optimizer.graph.problem import ANY_GAUGE, GAUGES, build_problem, gauge_ok_mask
from optimizer.revenue import best_route_awards, price_route

from .boards import GAUGE_RULES, bonuses, gauges, small_boards
from .test_catalog_rules import catalog_state
from .test_engine_oracle import _engine, judge
from .twins import searches_agree

BROAD, NARROW, DUAL = (1 << GAUGES.index(k) for k in ("broad", "narrow", "dual"))

# Catalogue states the engine refused under the generic rules or with the rules these titles lacked, right
# now (benchmarks/engine_judge.py against /work/judge-base.txt): the rule each needed.
NOW_RIGHT = {
    "18Carolinas/86397@498": "18Carolinas",  # "Train cannot use more than one gauge"
    "18Carolinas/86397@622": "18Carolinas",
    "18Carolinas/86397@648": "18Carolinas",
    "18Carolinas/86397@684": "18Carolinas",
    "18Norway/18Norway_game_end_six_train@305": "18Norway",  # "Trains cannot run on water"
    "18Norway/18Norway_game_end_six_train@529": "18Norway",
    "18Norway/18Norway_game_end_six_train@402": "18Norway",  # "Ships cannot run on land"
    "18Norway/18Norway_game_end_six_train@471": "18Norway",
    "18Norway/18Norway_game_end_six_train@582": "18Norway",  # the mail contract, +30 in a brown phase
    "1840/218809@123": "1840",  # broad track only (MRI now compares as Opal does: price-routes)
    "1840/218809@179": "1840",
    "1840/218809@361": "1840",
    "1840/218809@413": "1840",
    "1840/218809@560": "1840",  # and a city without the minor's token pays nothing (#revenue_for)
    "1825/1825_game_end_stock_market@793": "1825",  # "Cannot visit multiple towns/cities in same hex"
    "1825/1825_game_end_stock_market@1052": "1825",
}


@pytest.mark.corpus
@pytest.mark.slow
def test_the_engine_accepts_and_prices_the_gauge_titles_answers():
    """Each state: the engine accepts our routes, prices them at our revenue, ours is proven and at
    least the engine's auto router; the answer names the title's rules."""
    engine = _engine()
    states = [catalog_state(sid) for sid in NOW_RIGHT]
    verdicts = judge.judge(states, engine, jobs=2)
    wrong = [f"{v.id}: {v.reason()}" for v in verdicts if not v.right]
    assert not wrong, wrong
    assert {v.id: v.rules for v in verdicts} == NOW_RIGHT


def _generic_answer(doc):
    return api.solve(dict(doc, game=doc["game"] + " (no rules)"))


# 18Carolinas @498: the 6 train's route the generic rules answered before the walk matched gauge at hex
# sides (250; the engine refused it: "Train cannot use more than one gauge").
MIXED_ROUTE = [
    ["A5", "B6", "B4", "C3", "D2", "E1", "E3", "E5"],
    ["E5", "E7"],
    ["E7", "E9"],
    ["E9", "D10"],
    ["D10", "D8"],
]


@pytest.mark.corpus
def test_the_checker_refuses_a_route_that_mixes_gauges():
    """18Carolinas @498: a 6 train's route over broad and narrow track is refused by the checker under
    the title's rules, with the reason; the title's own answer mixes none and is legal."""
    doc = catalog_state("18Carolinas/86397@498")
    checked = api.check(doc, [{"train": "6-0", "hexes": MIXED_ROUTE}])
    assert not checked["legal"]
    [errors] = [r["errors"] for r in checked["routes"] if r["errors"]]
    assert errors == ["the 6 train may not run a route over broad, narrow and dual track"]
    ours = api.solve(doc)
    assert ours["optimal"] and ours["revenue"] == 200  # the engine's price of our routes (judge run)
    again = api.check(doc, [{"train": r["train"], "hexes": r["hexes"]} for r in ours["routes"]])
    assert again["legal"] and again["revenue"] == ours["revenue"]


@pytest.mark.corpus
def test_the_checker_keeps_ships_on_water_and_trains_off_it():
    """18Norway @402 (an S4 ship and a 5 train): the generic ship route crosses land, refused; @305:
    the generic 3 train's route crosses water, refused."""
    doc = catalog_state("18Norway/18Norway_game_end_six_train@402")
    checked = api.check(doc, [{"train": r["train"], "hexes": r["hexes"]} for r in _generic_answer(doc)["routes"]])
    assert [r["errors"] for r in checked["routes"]] == [["the S4 train may not run a route over broad track"], []]
    doc = catalog_state("18Norway/18Norway_game_end_six_train@305")
    checked = api.check(doc, [{"train": r["train"], "hexes": r["hexes"]} for r in _generic_answer(doc)["routes"]])
    assert [r["errors"] for r in checked["routes"]] == [["the 3 train may not run a route over narrow track"]]


def test_a_rules_kind_sets_are_closed_under_subsets():
    """A route's kinds only grow as it grows, so a search may cut it at the first kind that leaves
    every set: the legal masks are those within one of the sets."""
    one_gauge = gauge_ok_mask((("broad", "dual"), ("narrow", "dual")))
    assert [one_gauge >> m & 1 for m in (0, BROAD, NARROW, DUAL, BROAD | DUAL, NARROW | DUAL)] == [1] * 6
    assert not one_gauge >> (BROAD | NARROW) & 1 and not one_gauge >> (BROAD | NARROW | DUAL) & 1
    broad_only = gauge_ok_mask((("broad",),))
    assert [m for m in range(32) if broad_only >> m & 1] == [0, BROAD]
    assert gauge_ok_mask(None) == ANY_GAUGE == (1 << 32) - 1


def test_titles_declare_their_gauges():
    doc = catalog_state("18Norway/18Norway_game_end_six_train@402")
    problem = build_problem(doc)
    ship, train = (problem.specs.index(next(s for s in problem.specs if s.name == n)) for n in ("S4", "5"))
    assert problem.gauge_ok_by_train[ship] == gauge_ok_mask((("narrow",),))
    assert not problem.gauge_ok_by_train[train] >> NARROW & 1
    assert set(np.unique(problem.gauge_by_seg)) >= {BROAD, NARROW}  # read from the tiles' track:
    generic = build_problem(dict(doc, game="18Norway (no rules)"))
    assert set(generic.gauge_ok_by_train.tolist()) == {ANY_GAUGE} and not generic.gauge_by_seg.any()


def _gauge_of(problem, route) -> int:
    mask = 0
    for d in route.dsegs:
        mask |= int(problem.gauge_by_seg[problem.seg_by_dir[d]])
    return mask


def _assert_sound(problem, result):
    """Every route keeps its train's gauge rule and is priced as the reference prices it; routes are
    edge-disjoint."""
    used: set = set()
    awards: dict = {}
    for i, amount in best_route_awards(problem, [r.stops for r in result.routes]):
        awards[i] = awards.get(i, 0) + amount
    for i, r in enumerate(result.routes):
        pen = 0
        for d in r.dsegs:
            pen |= int(problem.penalty_mask_by_seg[problem.seg_by_dir[d]])
        gauge = _gauge_of(problem, r)
        assert int(problem.gauge_ok_by_train[r.train]) >> gauge & 1, (r, gauge)
        priced = price_route(problem, r.train, r.stops, pen, [int(problem.seg_by_dir[d]) for d in r.dsegs])
        assert priced.legal, priced.errors
        assert priced.revenue + awards.get(i, 0) == r.revenue
        for d in r.dsegs:
            seg = problem.graph.segments[problem.seg_by_dir[d]]
            assert not (seg.resources & used)
            used |= seg.resources


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_under_gauge_rules(data):
    """Random track kinds on the segments and a random gauge rule per train (tests/boards.py
    GAUGE_RULES): the reference, the nested and the packing search agree, every route keeps its rule."""
    problem = build_problem(data.draw(small_boards(max_hexes=12, min_trains=1, max_trains=3)))
    data.draw(bonuses(problem))
    if len(problem.graph.segments):
        gauges(data.draw, problem)
    ref, nested, packing = searches_agree(problem)
    for result in (ref, nested, packing):
        _assert_sound(problem, result)


def test_a_gauge_rule_cuts_what_it_forbids():
    """On a board where every train's best route runs some narrow track: with trains kept off narrow
    track (18Norway's rule for trains) the twins agree on less, and no route of theirs runs narrow."""
    doc = catalog_state("18Norway/18Norway_game_end_six_train@305")
    problem = build_problem(doc)  # the title's walk (gauge ignored at sides) and track kinds
    problem.gauge_ok_by_train = np.full(problem.n_trains, ANY_GAUGE, dtype=np.uint32)  # no gauge rule yet
    free = reference.search(problem).revenue
    assert any(_gauge_of(problem, r) & NARROW for r in compiled.search(problem).routes)
    problem.gauge_ok_by_train = np.full(problem.n_trains, gauge_ok_mask(GAUGE_RULES[4]), dtype=np.uint32)
    ref, nested, packing = (
        reference.search(problem),
        compiled.search(problem, strategy="nested"),
        compiled.search(problem, strategy="packing"),
    )
    assert ref.revenue == nested.revenue == packing.revenue < free
    assert not any(_gauge_of(problem, r) & NARROW for res in (ref, nested, packing) for r in res.routes)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("gauge_by_seg", lambda p: np.full(p.n_segs, 32, np.uint8), "names a track kind beyond the 5"),
        ("gauge_ok_by_train", lambda p: np.full(p.n_trains, ANY_GAUGE, np.uint64), "dtype must be uint32"),
        ("gauge_by_seg", lambda p: np.zeros(p.n_segs + 1, np.uint8), "gauge_by_seg"),
    ],
)
def test_the_kernel_refuses_malformed_gauge_arrays(field, value, message):
    doc = catalog_state("18Carolinas/86397@498")
    problem = build_problem(doc)
    setattr(problem, field, value(problem))
    with pytest.raises(ValueError) as err:
        compiled.search(problem)
    assert field in str(err.value) and message in str(err.value)
