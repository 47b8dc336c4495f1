"""E trains (issue 32's third family), declared as ``e_trains`` in 1822's data file (its variants inherit
it) and 1866's. The engine's code is the reference:

- lib/engine/game/g_1822/game.rb#train_type (a train named ``E``), g_1866/game.rb#train_type and
  ``E_TRAINS`` (4E, 5E, 6E);
- ``#revenue_for`` of both: an E train is paid only by the cities holding the company's token, the
  others passed through for nothing;
- ``#check_overlap`` (``tracks_by_type``) and ``#compute_other_paths``: an E train's track may be any
  track the company's other trains use, not another E train's;
- g_1822/game.rb#check_distance: the route starts and ends at such cities ("E-train route must start
  and end at tokened cities", "... cannot extend beyond tokened cities"), two at least.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.inputs import input_fields
from optimizer.core import _input, compiled
from optimizer.graph.problem import build_problem
from optimizer.revenue import best_route_awards, price_route

from .boards import bonuses, e_trains, small_boards
from .corpus import ROOT
from .test_catalog_rules import catalog_state
from .test_engine_oracle import _engine
from .twins import searches_agree

# Every catalogue state where main's answer was refused by the engine for its E train (judged on main at
# a2aade9: /work/judge-base.txt), and 1866's, where main's E train was paid by cities without a token;
# each with whether the engine pays our answer exactly (every one now: 1822PNW SRS's forests and mill,
# g_1822_pnw/game.rb#forest_revenue and #calculate_mill_bonus, are priced since tests/test_family_pnw.py).
E_STATES = {
    "1822/33845@1548": True,
    "1822CAWRS/1822CAWRS_game_end_bank@1058": True,
    "1822NRS/1822NRS_game_end_bank@809": True,
    "1822NRS/1822NRS_game_end_bank@887": True,
    "1822PNW/179700@1193": True,
    "1822PNWSRS/1822PNWSRS_game_end_bank_during_sr@1015": True,
    "1822PNWSRS/1822PNWSRS_game_end_bank_during_sr@1090": True,
    "1866/1866_game_end_final_phase@1282": True,
}


def _judge():
    spec = importlib.util.spec_from_file_location("engine_judge", ROOT / "benchmarks" / "engine_judge.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def _e_routes(doc, answer):
    names = {t["id"]: t["name"] for t in doc["trains"]}
    return [r for r in answer["routes"] if "E" in names[r["train"]]]


# ---- the searches -----------------------------------------------------------------------------


def _assert_sound(problem, result, token_ends):
    """Every route is legal and priced as the reference prices it; an E train is paid by token cities
    only, its route ends at them where the rules say so; routes share no track within an overlap group."""
    used: dict = {}
    awards: dict = {}
    for i, amount in best_route_awards(problem, [r.stops for r in result.routes], [r.train for r in result.routes]):
        awards[i] = awards.get(i, 0) + amount
    for i, r in enumerate(result.routes):
        pen = 0
        for d in r.dsegs:
            pen |= int(problem.penalty_mask_by_seg[problem.seg_by_dir[d]])
        priced = price_route(problem, r.train, r.stops, pen)
        assert priced.legal, priced.errors
        assert priced.revenue + awards.get(i, 0) == r.revenue
        group = int(problem.track_group_by_train[r.train])
        if group:
            assert all(problem.token_by_stop[s] for s in r.paid if problem.values_by_train_stop[r.train][s])
            if token_ends:
                assert problem.token_by_stop[r.stops[0]] and problem.token_by_stop[r.stops[-1]], r.stops
        for d in r.dsegs:
            resources = problem.graph.segments[problem.seg_by_dir[d]].resources
            assert not (resources & used.get(group, set())), (group, r)
            used[group] = used.get(group, set()) | resources


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_on_e_trains(data):
    """One or two E trains (1822's E, 1866's 4E) beside others, with and without ``token_ends``: the
    reference and the compiled searches agree (the packing kernel declines: the nested one runs), every
    route is legal and the E trains keep their own overlap group."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=0, max_trains=2))
    problem, token_ends = data.draw(e_trains(doc))
    data.draw(bonuses(problem))
    assert problem.n_track_groups == 2 and compiled.packing_declines(problem)
    ref, nested, packing = searches_agree(problem)
    for result in (ref, nested, packing):
        _assert_sound(problem, result, token_ends)


def test_an_e_train_reuses_the_track_of_another_train():
    """1866 @1282: the players' routes (the engine priced them 780): SB's 5 train and its 4E both run
    Q19-P18-O17-N18. The checker accepts them at the engine's figures, the 4E paid only for SB's
    cities (Q19, P18, N18, N14: not O17), doubled; the generic rules refuse the shared track."""
    doc = catalog_state("1866/1866_game_end_final_phase@1282")
    human = doc["expected"]["human"]["routes"]
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in human]
    checked = api.check(doc, routes)
    assert checked["legal"], checked
    assert [r["revenue"] for r in checked["routes"]] == [r["revenue"] for r in human] == [360, 420]
    assert checked["routes"][1]["paid"] == human[1]["stops"] == ["Q19._0", "P18._0", "N18._0", "N14._0"]
    assert checked["revenue"] == doc["expected"]["human_recheck"] == 780
    generic = api.check(dict(doc, game="1866 (no rules)"), routes)
    assert not generic["legal"] and "already uses" in json.dumps(generic)


def test_an_e_train_route_ends_at_token_cities():
    """1822 @1548 (GWR: tokens in London M38, Bristol G36 (its destination token) and K38): an E route
    from London to K36, no token of GWR's, is refused with the reason (the generic rules take it); to
    Bristol it is paid for GWR's three cities, doubled, and the destination bonus."""
    doc = catalog_state("1822/33845@1548")
    beyond = {"train": "7-6", "hexes": [["M38", "L39", "K38"], ["K38", "K36"]]}
    checked = api.check(doc, [beyond])
    assert not checked["legal"]
    assert "must start and end at cities with the company's token" in checked["routes"][0]["errors"][0]
    assert api.check(dict(doc, game="1822 (no rules)"), [beyond])["legal"]
    to_bristol = {"train": "7-6", "hexes": [["K38", "J37", "I36", "H35", "G36"], ["M38", "L39", "K38"]]}
    paid = api.check(doc, [to_bristol])
    assert paid["legal"] and paid["routes"][0]["paid"] == ["G36._0", "K38._0", "M38._1"]
    # (80 + 50 + 60) x 2, and Bristol's 40 doubled for the destination: the players' route, the engine's 460
    assert paid["routes"][0]["revenue"] == 460 == doc["expected"]["human"]["routes"][1]["revenue"]


# ---- real states, judged by the engine --------------------------------------------------------


@pytest.fixture(scope="module")
def engine_prices():
    """Our answer on each E state and the engine's price of it, route by route (one replay each)."""
    judge = _judge()
    engine = _engine()
    answers, requests = {}, []
    for state_id in E_STATES:
        doc = catalog_state(state_id)
        answer = api.solve(json.dumps(input_fields(doc)))
        answers[state_id] = (doc, answer)
        requests.append(
            {
                "id": state_id,
                "fixture": str(judge.fixture_path(doc, engine)),
                "action_id": int(doc["action_id"]),
                "routes": judge.engine_routes(answer),
                "entity": doc["corporation"]["id"],
            }
        )
    return answers, judge.price(requests, engine, jobs=2)


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize("state_id", sorted(E_STATES))
def test_the_engine_prices_our_e_train(engine_prices, state_id):
    """The engine accepts every route we answer on the states it refused for the E train and pays each
    at our figure (but for the bonuses along the track named above); in 1822 our E route runs between
    the company's token cities."""
    answers, prices = engine_prices
    doc, answer = answers[state_id]
    verdict = prices[state_id]
    assert "error" not in verdict, verdict
    assert answer["optimal"] and answer["rules"] != "generic"
    if E_STATES[state_id]:
        assert verdict["routes"] == [r["revenue"] for r in answer["routes"]]
        assert verdict["revenue"] == answer["revenue"]
    else:
        assert verdict["revenue"] > answer["revenue"]
    problem = build_problem(doc)
    index = problem.graph.stop_index()
    tokens = {stop for stop, i in index.items() if problem.token_by_stop[i]}
    [e] = _e_routes(doc, answer)
    if not state_id.startswith("1866"):  # g_1822/game.rb#check_distance
        assert e["stops"][0] in tokens and e["stops"][-1] in tokens, e["stops"]


def test_1866_e_state_is_right_by_the_engine(engine_prices):
    """1866 @1282: SB's 5 and 4E earn 790, the engine's price of our routes, above its router's 780
    (main answered 870, the engine paid 690: the 4E paid for O17 and O15, which SB has no token in)."""
    answers, prices = engine_prices
    doc, answer = answers["1866/1866_game_end_final_phase@1282"]
    verdict = prices["1866/1866_game_end_final_phase@1282"]
    assert answer["revenue"] == verdict["revenue"] == 790 >= doc["expected"]["router"]["revenue"]


# ---- destinations (the bonus beside the E train in every state above) --------------------------


def _without_destination_token(doc):
    """The state with the company's destination token read as a normal one (its ``token_types``)."""
    doc = json.loads(json.dumps(doc))
    for h in doc["hexes"]:
        for c in h.get("cities", []):
            kinds = c.get("token_types") or []
            for k, owner in enumerate(c.get("tokens", [])):
                if owner == doc["corporation"]["id"] and k < len(kinds) and kinds[k] == "destination":
                    kinds[k] = "normal"
    return doc


def test_a_route_home_to_destination_earns_the_destination_once():
    """g_1822/game.rb#calculate_destination_bonus: 1822MRS @720, MR's 4 train runs York (L19, its
    destination token) to Derby (J29, home) for 120 + York's 40, the router's 160; with the token
    read as a normal one there is no bonus (the engine needs a token of type destination)."""
    doc = catalog_state("1822MRS/33867@720")
    answer = api.solve(doc)
    assert answer["optimal"] and answer["revenue"] == 160 == doc["expected"]["router"]["revenue"]
    [route] = answer["routes"]
    assert {"L19._0", "J29._0"} <= set(route["stops"])
    without = api.solve(_without_destination_token(doc))
    assert without["optimal"] and without["revenue"] == 150  # main's answer: another route, no bonus
    checked = api.check(doc, [{"train": route["train"], "hexes": route["hexes"]}])
    assert checked["legal"] and checked["revenue"] == 160
    for core in ("python", "compiled"):
        assert api.solve(doc, core=core)["revenue"] == 160


def test_an_e_train_earns_the_destination_doubled():
    """#calculate_destination_bonus prices the destination city for the route's train
    (``route_revenue(phase, train)``): 1822NRS @809, LYR's E runs Liverpool (home) to Manchester (I22,
    destination, 80) and earns 160 on top, the router's 660 for it, 800 in all."""
    doc = catalog_state("1822NRS/1822NRS_game_end_bank@809")
    answer = api.solve(doc)
    assert answer["optimal"] and answer["revenue"] == 800 == doc["expected"]["router"]["revenue"]
    [e] = _e_routes(doc, answer)
    assert e["revenue"] == 660 and {"G22._0", "I22._0"} <= set(e["stops"])
    assert api.solve(_without_destination_token(doc))["revenue"] == 640


# ---- the kernel's input ------------------------------------------------------------------------


def test_the_kernel_refuses_bad_overlap_groups_and_multiplied_flags_by_name():
    """The new arrays are checked before the kernel reads them (a ValueError naming each): an overlap
    group outside 0 .. n_track_groups - 1, no group at all, a mis-sized token_ends_by_train or
    multiplied_by_best_route; an empty multiplied_by_best_route means none is multiplied."""
    doc = catalog_state("1822NRS/1822NRS_game_end_bank@809")
    ki = compiled.prepare(build_problem(doc))
    problem = ki.problem
    assert problem.n_track_groups == 2 and problem.n_best_route == 1 and problem.multiplied(0)
    bad = {
        "track_group_by_train": dict(track_group_by_train=np.full(problem.n_trains, 2, np.int32)),
        "n_track_groups": dict(n_track_groups=0),
        "token_ends_by_train": dict(token_ends_by_train=np.zeros(problem.n_trains + 1, np.uint8)),
        "multiplied_by_best_route": dict(multiplied_by_best_route=np.ones(3, np.uint8)),
    }
    for name, change in bad.items():
        with pytest.raises(ValueError, match=f"kernel input {name}:"):
            _input.check(replace(ki, problem=replace(problem, **change)))
    plain = replace(problem, multiplied_by_best_route=np.zeros(0, np.uint8))
    assert not plain.multiplied(0)
    assert compiled.search(plain).revenue == 800 - 80  # the E's destination paid once, not doubled
