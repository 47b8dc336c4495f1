"""The compiled search against its reference twin, and both against the real corpus."""

import copy
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import replace
from importlib import resources

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.state import read_board
from optimizer.core import SEARCHES, CancelToken, _input, _search, bounds, compiled, reference
from optimizer.core.compiled import prepare
from optimizer.core.contract import KernelResult
from optimizer.errors import OptimizerError
from optimizer.graph.problem import build_problem
from optimizer.revenue import best_route_awards, price_route
from optimizer.rules.check import check_routes

from .boards import bonuses, one_stop_per_hex, small_boards
from .corpus import ids, state, states
from .twins import searches_agree

STATES = states()


def _segments_pen(problem, route):
    mask = 0
    for d in route.dsegs:
        mask |= int(problem.penalty_mask_by_seg[problem.seg_by_dir[d]])
    return mask


def _assert_sound(problem, result):
    """Every route is legal, edge-disjoint from the others, and priced as the reference prices it
    (a best-route bonus on the route that earns it most)."""
    used = set()
    awards = {}
    for i, amount in best_route_awards(problem, [r.stops for r in result.routes]):
        awards[i] = awards.get(i, 0) + amount
    for i, r in enumerate(result.routes):
        segs = [int(problem.seg_by_dir[d]) for d in r.dsegs]  # its track: gauge changes, hex and gauge rules
        priced = price_route(problem, r.train, r.stops, _segments_pen(problem, r), segs)
        assert priced.legal, priced.errors
        assert priced.revenue + awards.get(i, 0) == r.revenue
        for d in r.dsegs:
            seg = problem.graph.segments[problem.seg_by_dir[d]]
            assert not (seg.resources & used)
            used |= seg.resources
    assert len({r.train for r in result.routes}) == len(result.routes)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_compiled_equals_reference_on_random_boards(data):
    problem = build_problem(data.draw(small_boards()))
    data.draw(bonuses(problem))
    ref = reference.search(problem)
    fast = compiled.search(problem)
    assert ref.optimal and fast.optimal
    assert fast.revenue == ref.revenue, (fast.routes, ref.routes)
    assert fast.bound == fast.revenue
    _assert_sound(problem, fast)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_compiled_equals_reference_with_several_trains(data):
    problem = build_problem(data.draw(small_boards(max_hexes=12, min_trains=2)))
    data.draw(bonuses(problem))
    ref = reference.search(problem)
    fast = compiled.search(problem)
    assert fast.revenue == ref.revenue, (fast.routes, ref.routes)
    _assert_sound(problem, fast)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_when_a_route_may_visit_a_hex_once(data):
    """The declared ``one_stop_per_hex`` (the engine's "Route visits same hex twice", its ``DOUBLE_HEX``
    exempt) on boards of OO tiles, double towns and city-town tiles: the reference, the nested and
    the packing search agree, and no route visits two stops of a hex that is not exempt."""
    doc = data.draw(small_boards(max_hexes=12, min_trains=1, max_trains=3, several_stops=True))
    problem, exempt = data.draw(one_stop_per_hex(doc))
    data.draw(bonuses(problem))
    ref, nested, packing = searches_agree(problem)
    for result in (ref, nested, packing):
        for route in result.routes:
            hexes = [problem.graph.stops[s].hex for s in route.stops]
            kept = [h for h in hexes if h not in exempt]
            assert len(kept) == len(set(kept)), hexes
    _assert_sound(problem, nested)
    _assert_sound(problem, packing)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_agree_on_local_trains(data):
    """Local trains (lib/engine/train.rb#local?; lib/engine/route.rb#connection_data: ``["local", HEX]``,
    a city holding the company's token and no track) beside others, two alike at times: the
    reference, the nested and the packing search agree, and a one-stop route is a local train's run
    of one of its token cities."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=1, max_trains=3, local=True))
    problem = build_problem(doc)
    data.draw(bonuses(problem))
    ref, nested, packing = searches_agree(problem)
    for result in (ref, nested, packing):
        for route in result.routes:
            if len(route.stops) == 1:
                assert problem.local_by_train[route.train] and problem.token_by_stop[route.stops[0]], route
                assert not route.dsegs
    _assert_sound(problem, nested)
    _assert_sound(problem, packing)


@st.composite
def _crowded_mail_contract(draw):
    """A small board with more trains than it has room for (one or two token cities, few hexes),
    under best-route bonuses that pay by the stop (the 1846 Mail Contract) and by group: the
    optimum, or a branch the search weighs, has a train running nothing, so the level after it
    must not inherit the bonus of that train's last, unplaced route."""
    doc = draw(small_boards(max_hexes=6, min_trains=2, max_trains=4))
    problem = build_problem(doc)
    n = problem.n_stops
    k = draw(st.integers(1, 2))
    problem.amount_by_best_route = np.array([draw(st.sampled_from([0, 20, 60])) for _ in range(k)], dtype=np.int32)
    problem.per_stop_by_best_route = np.array([draw(st.sampled_from([10, 20, 50])) for _ in range(k)], dtype=np.int32)
    problem.groups_by_best_route_stop = np.zeros((k, n), dtype=np.uint32)
    groups = [draw(st.integers(0, 1)) if n else 0 for _ in range(k)]
    for b in range(k):
        for s in draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=2)) if groups[b] else []:
            problem.groups_by_best_route_stop[b, s] |= np.uint32(1)
    problem.full_by_best_route = np.array([(1 << g) - 1 for g in groups], dtype=np.uint32)
    problem.n_best_route = k
    if draw(st.integers(0, 3)) == 0:
        problem.has_pullman = 1
    return problem


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_crowded_mail_contract())
def test_a_train_running_nothing_passes_on_no_best_route_bonus(problem):
    """A level that runs nothing passes the best-route bonuses of the levels above it, not those
    of its own last route (which is not placed): compiled == reference, and the reported revenue
    is the routes' plus the company's Pullman, each best-route bonus on a placed route."""
    ref = reference.search(problem)
    for strategy in ("nested", "packing"):
        fast = compiled.search(problem, strategy=strategy)
        assert ref.optimal and fast.optimal
        assert fast.revenue == ref.revenue, (strategy, fast.routes, ref.routes)
        assert fast.revenue == sum(r.revenue for r in fast.routes) + fast.pullman, (strategy, fast.routes)
        _assert_sound(problem, fast)
    assert ref.revenue == sum(r.revenue for r in ref.routes) + ref.pullman


# Found by the test above with the bug planted (an empty level passing on its stale bonus): one
# token city, two trains that need no token and a Mail Contract paying 50 a stop.
CROWDED_BOARD = {
    "id": "random",
    "game": "random",
    "layout": "pointy",
    "phase": {"name": "x", "tiles": ["yellow"]},
    "corporation": {"id": "US"},
    "trains": [
        {"name": "2", "distance": 2, "requires_token": False, "id": "2-0"},
        {"name": "D", "distance": 999, "id": "D-1"},
        {"name": "D", "distance": 999, "requires_token": False, "id": "D-2"},
    ],
    "hexes": [
        {
            "id": "A1",
            "tile": "t",
            "color": "green",
            "rotation": 0,
            "code": "junction;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0",
            "cities": [],
        },
        {
            "id": "A3",
            "tile": "A3",
            "color": "red",
            "rotation": 0,
            "code": "offboard=revenue:yellow_30|brown_60;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0;path=a:4,b:_0;path=a:5,b:_0",
            "cities": [],
        },
        {
            "id": "B2",
            "tile": "t",
            "color": "yellow",
            "rotation": 1,
            "code": "town=revenue:20;town=revenue:20;path=a:1,b:_0;path=a:5,b:_0;path=a:2,b:_1;path=a:3,b:_1",
            "cities": [],
        },
        {
            "id": "B4",
            "tile": "t",
            "color": "yellow",
            "rotation": 0,
            "code": "city=revenue:20;path=a:0,b:_0;path=a:1,b:_0",
            "cities": [{"index": 0, "slots": 1, "tokens": ["US"]}],
        },
        {
            "id": "C1",
            "tile": "t",
            "color": "yellow",
            "rotation": 0,
            "code": "city=revenue:20;path=a:0,b:_0;path=a:1,b:_0",
            "cities": [{"index": 0, "slots": 1, "tokens": ["THEM"]}],
        },
        {
            "id": "C3",
            "tile": "t",
            "color": "green",
            "rotation": 0,
            "code": "junction;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0",
            "cities": [],
        },
    ],
}


@pytest.mark.parametrize("strategy", ["nested", "packing"])
def test_an_empty_train_leaves_the_mail_contract_to_the_routes_placed(strategy):
    problem = build_problem(copy.deepcopy(CROWDED_BOARD))
    problem.amount_by_best_route = np.array([0], np.int32)
    problem.per_stop_by_best_route = np.array([50], np.int32)
    problem.groups_by_best_route_stop = np.zeros((1, problem.n_stops), np.uint32)
    problem.full_by_best_route = np.array([0], np.uint32)
    problem.n_best_route = 1
    ref = reference.search(problem)
    assert ref.revenue == 220  # one D from the token: 3 stops, 70 + 3 x 50 Mail Contract
    fast = compiled.search(problem, strategy=strategy)
    assert fast.optimal and fast.revenue == ref.revenue, (fast.routes, ref.routes)
    assert fast.revenue == sum(r.revenue for r in fast.routes) + fast.pullman
    _assert_sound(problem, fast)


# Found by the twin test on random boards: a 2E on a city (stop 0) that triggers a largest-stop
# bonus excluding itself and stop 1. The greedy rest paid the richest other stop (1, excluded);
# the bonus pays on stop 4, so stops 0 and 4 pay more.
LARGEST_BONUS_BOARD = {
    "id": "random",
    "game": "random",
    "layout": "pointy",
    "phase": {"name": "x", "tiles": ["yellow"]},
    "corporation": {"id": "US"},
    "trains": [
        {
            "name": "2E",
            "distance": [{"nodes": ["city", "offboard", "town"], "pay": 2, "visit": 99}],
            "requires_token": False,
            "id": "2E-0",
        }
    ],
    "hexes": [
        {
            "id": "A1",
            "tile": "t",
            "color": "green",
            "rotation": 0,
            "code": "junction;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0",
            "cities": [],
        },
        {
            "id": "A3",
            "tile": "t",
            "color": "yellow",
            "rotation": 0,
            "code": "city=revenue:20;path=a:0,b:_0;path=a:1,b:_0",
            "cities": [{"index": 0, "slots": 1, "tokens": ["US"]}],
        },
        {
            "id": "A5",
            "tile": "t",
            "color": "green",
            "rotation": 0,
            "code": "junction;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0",
            "cities": [],
        },
        {
            "id": "B2",
            "tile": "t",
            "color": "green",
            "rotation": 2,
            "code": "city=revenue:50;upgrade=cost:60,terrain:water;path=a:0,b:_0;path=a:1,b:_0;path=a:4,b:_0;label=L",
            "cities": [{"index": 0, "slots": 1, "tokens": [None]}],
        },
        {
            "id": "B4",
            "tile": "t",
            "color": "green",
            "rotation": 0,
            "code": "junction;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0",
            "cities": [],
        },
        {
            "id": "B6",
            "tile": "t",
            "color": "green",
            "rotation": 0,
            "code": "junction;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0",
            "cities": [],
        },
        {
            "id": "C1",
            "tile": "t",
            "color": "brown",
            "rotation": 0,
            "code": "path=a:0,b:3;path=a:3,b:5;path=a:0,b:5",
            "cities": [],
        },
        {
            "id": "C3",
            "tile": "t",
            "color": "yellow",
            "rotation": 0,
            "code": "city=revenue:20;path=a:0,b:_0;path=a:1,b:_0",
            "cities": [{"index": 0, "slots": 1, "tokens": ["THEM"]}],
        },
        {
            "id": "C5",
            "tile": "t",
            "color": "yellow",
            "rotation": 0,
            "code": "city=revenue:20;path=a:0,b:_0;path=a:1,b:_0",
            "cities": [{"index": 0, "slots": 1, "tokens": ["THEM"]}],
        },
        {
            "id": "D2",
            "tile": "t",
            "color": "green",
            "rotation": 0,
            "code": "city=revenue:30,slots:2;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0",
            "cities": [{"index": 0, "slots": 2, "tokens": ["THEM", "THEM"]}],
        },
    ],
}


@pytest.mark.parametrize("strategy", ["nested", "packing"])
def test_an_express_pays_the_stop_its_largest_stop_bonus_pays_for(strategy):
    problem = build_problem(copy.deepcopy(LARGEST_BONUS_BOARD))
    problem.stop_a_by_pair = np.array([0], np.int32)
    problem.stop_b_by_pair = np.array([0], np.int32)
    problem.amount_by_pair = np.array([20], np.int32)
    problem.visited_by_pair = np.array([0], np.uint8)
    problem.trigger_by_largest = np.array([0], np.int32)
    problem.excluded_by_largest_stop = np.zeros((1, problem.n_stops), np.uint8)
    problem.excluded_by_largest_stop[0, [0, 1]] = 1
    problem.n_pairs = problem.n_largest = 1
    ref = reference.search(problem)
    assert ref.revenue == 100 and [r.paid for r in ref.routes] == [[0, 4]]
    fast = compiled.search(problem, strategy=strategy)
    assert fast.optimal and fast.revenue == ref.revenue, (fast.routes, ref.routes)
    assert [r.paid for r in fast.routes] == [[0, 4]]
    _assert_sound(problem, fast)


def test_more_largest_stop_bonuses_than_the_kernel_prices_go_to_the_reference():
    """The compiled express pricing tries at most MAX_FORCED bonus stops at once: a board with
    more is answered by the reference search, exactly, and the answer says which core ran."""
    problem = build_problem(copy.deepcopy(LARGEST_BONUS_BOARD))
    k = _search.MAX_FORCED + 1
    problem.trigger_by_largest = np.zeros(k, np.int32)
    problem.excluded_by_largest_stop = np.zeros((k, problem.n_stops), np.uint8)
    problem.excluded_by_largest_stop[:, [0, 1]] = 1
    problem.n_largest = k
    fast, ref = compiled.search(problem), reference.search(problem)
    assert fast.core == reference.NAME and fast.revenue == ref.revenue and fast.optimal
    problem.trigger_by_largest, problem.excluded_by_largest_stop = (
        problem.trigger_by_largest[:1],
        problem.excluded_by_largest_stop[:1],
    )
    problem.n_largest = 1
    assert compiled.search(problem).core == compiled.NAME


def test_more_best_route_bonuses_than_the_kernel_keeps_go_to_the_reference():
    """The kernel keeps a running best per level for at most MAX_BEST_ROUTE best-route bonuses (the
    only limit on them, declared once in _state.pxd): with more, the reference answers, exactly."""
    problem = build_problem(copy.deepcopy(CROWDED_BOARD))
    k = _search.MAX_BEST_ROUTE + 1
    problem.amount_by_best_route = np.full(k, 10, np.int32)
    problem.per_stop_by_best_route = np.zeros(k, np.int32)
    problem.groups_by_best_route_stop = np.zeros((k, problem.n_stops), np.uint32)
    problem.full_by_best_route = np.zeros(k, np.uint32)
    problem.n_best_route = k
    fast, ref = compiled.search(problem), reference.search(problem)
    assert fast.core == reference.NAME and fast.optimal and fast.revenue == ref.revenue
    assert fast.revenue == reference.search(build_problem(copy.deepcopy(CROWDED_BOARD))).revenue + 10 * k


def test_more_bonus_stops_than_the_kernel_prices_go_to_the_reference():
    """Likewise for the stops bonuses depend on (MAX_INTERESTING), and only with an express train."""
    ki = prepare(build_problem(copy.deepcopy(LARGEST_BONUS_BOARD)))
    assert not compiled.beyond_the_kernel(_search, ki)
    wide = np.zeros(_search.MAX_INTERESTING + 1, np.uint8) + 1
    many = replace(ki, interesting_by_stop=wide)
    assert compiled.beyond_the_kernel(_search, many)
    all_pay = np.ones_like(ki.problem.pays_all_by_train)
    assert not compiled.beyond_the_kernel(
        _search, replace(many, problem=replace(ki.problem, pays_all_by_train=all_pay))
    )


@pytest.mark.parametrize("strategy", ["nested", "packing"])
def test_an_express_paid_one_of_equal_stops_takes_the_city_a_pullman_doubles(strategy):
    """18EU rules: the Pullman "doubles the value of any one City or Off-Map Location on one
    train's run". A 1E between a town and an off-board of 20 each is paid 20 either way; paid for
    the off-board, the Pullman adds 20 more (the greedy rest took the town, found by the test below)."""
    doc = {
        "id": "random",
        "game": "random",
        "layout": "pointy",
        "phase": {"name": "x", "tiles": ["yellow"]},
        "corporation": {"id": "US"},
        "trains": [
            {
                "name": "1E",
                "id": "1E-0",
                "requires_token": False,
                "distance": [{"nodes": ["city", "offboard", "town"], "pay": 1, "visit": 99}],
            }
        ],
        "hexes": [
            {
                "id": "A1",
                "tile": "t",
                "color": "yellow",
                "rotation": 0,
                "cities": [],
                "code": "town=revenue:20;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0;path=a:4,b:_0;path=a:5,b:_0",
            },
            {
                "id": "A3",
                "tile": "A3",
                "color": "red",
                "rotation": 0,
                "cities": [],
                "code": "offboard=revenue:20;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0;path=a:4,b:_0;path=a:5,b:_0",
            },
        ],
    }
    problem = build_problem(doc)
    problem.has_pullman = 1
    ref = reference.search(problem)
    assert ref.revenue == 40 and ref.pullman == 20
    fast = compiled.search(problem, strategy=strategy)
    assert fast.optimal and fast.revenue == ref.revenue and fast.pullman == 20, (fast.routes, ref.routes)
    assert [r.paid for r in fast.routes] == [r.paid for r in ref.routes]
    _assert_sound(problem, fast)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_an_express_under_largest_stop_bonuses_equals_reference(data):
    """An express under one or two largest-stop bonuses (as 1894's Luxembourg and London, which
    can both pay on one route), each excluding a few stops: the paid subset it picks (the stops
    the bonuses pay for among them) against the reference's every subset, both strategies."""
    doc = data.draw(small_boards(max_hexes=10, min_trains=0, max_trains=1))
    pay = data.draw(st.integers(1, 3))
    doc["trains"] = [
        dict(t, id=f"t-{i}")
        for i, t in enumerate(
            [
                {
                    "name": f"{pay}E",
                    "distance": [{"nodes": ["city", "offboard", "town"], "pay": pay, "visit": 99}],
                    "requires_token": data.draw(st.booleans()),
                }
            ]
            + doc["trains"]
        )
    ]
    problem = build_problem(doc)
    data.draw(bonuses(problem))
    n = problem.n_stops
    k = data.draw(st.integers(1, 2))
    problem.trigger_by_largest = np.array([data.draw(st.integers(0, n - 1)) for _ in range(k)], np.int32)
    problem.excluded_by_largest_stop = np.zeros((k, n), np.uint8)
    problem.n_largest = k
    for b in range(k):
        problem.excluded_by_largest_stop[b, problem.trigger_by_largest[b]] = 1
        for s in data.draw(st.lists(st.integers(0, n - 1), max_size=3)):
            problem.excluded_by_largest_stop[b, s] = 1
    ref = reference.search(problem)
    for strategy in ("nested", "packing"):
        fast = compiled.search(problem, strategy=strategy)
        assert ref.optimal and fast.optimal
        assert fast.revenue == ref.revenue, (strategy, fast.routes, ref.routes)
        _assert_sound(problem, fast)


LONG_TRAINS = st.sampled_from(
    [
        {"name": "D", "distance": 999},
        {"name": "8", "distance": 8},
        {"name": "4E", "distance": [{"nodes": ["city", "offboard", "town"], "pay": 4, "visit": 99}]},
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_nested_reach_cuts_equal_reference_with_a_d_and_an_express(data):
    """The nested search's reach cuts (walks that stop once the bound cannot cut, anchors skipped
    when what they reach cannot win, routes that cannot win left unpriced) against the reference
    and against the same search without reach bounds: a D beside an express, as on a full map,
    with a third train sometimes."""
    doc = data.draw(small_boards(max_hexes=12, min_trains=0, max_trains=1))
    doc["trains"] = [
        dict(t, id=f"long-{i}")
        for i, t in enumerate(
            [
                {"name": "D", "distance": 999},
                {
                    "name": f"{data.draw(st.integers(2, 8))}E",
                    "distance": [
                        {"nodes": ["city", "offboard", "town"], "pay": data.draw(st.integers(2, 8)), "visit": 99}
                    ],
                },
            ]
            + doc["trains"]
        )
    ]
    problem = build_problem(doc)
    data.draw(bonuses(problem))
    ref = reference.search(problem)
    fast = compiled.search(problem, strategy="nested")
    plain = compiled.search(problem, strategy="nested", reach_from=0)
    assert ref.optimal and fast.optimal and plain.optimal
    assert fast.revenue == plain.revenue == ref.revenue, (fast.routes, ref.routes)
    assert fast.nodes <= plain.nodes
    _assert_sound(problem, fast)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_packing_equals_reference_with_many_long_trains(data):
    """Route listing plus packing (bitset conflicts, Lagrangian prices, identical trains) against
    the reference, with up to five trains, some of them unlimited or long."""
    doc = data.draw(small_boards(max_hexes=12, min_trains=2, max_trains=5))
    for i in range(data.draw(st.integers(0, 2))):
        doc["trains"].append(dict(data.draw(LONG_TRAINS), id=f"long-{i}"))
    doc["trains"] = doc["trains"][:5]
    problem = build_problem(doc)
    data.draw(bonuses(problem))
    ref = reference.search(problem)
    fast = compiled.search(problem, strategy="packing")
    nested = compiled.search(problem, strategy="nested")
    assert ref.optimal and fast.optimal and nested.optimal
    assert fast.revenue == nested.revenue == ref.revenue, (fast.routes, ref.routes)
    assert fast.bound == fast.revenue
    _assert_sound(problem, fast)


@pytest.mark.parametrize("long_search", [False, True, "later-prices"], ids=["short", "long", "later-prices"])
@pytest.mark.parametrize("no_token", [False, True], ids=["tokens", "last-train-needs-no-token"])
@pytest.mark.parametrize(
    "trains,seed", [(3, 0), (3, 1), (3, 2), (3, 3), (4, 0), (4, 2), (4, 3), (5, 0), (5, 2), (5, 3)]
)
def test_packing_equals_nested_on_dense_boards(trains, seed, no_token, long_search):
    """Dense synthetic boards (40% track, 3-5 long trains), where the prices on contested track
    decide the bound: the random small boards above rarely contend for track enough to test it
    (halving the price of the free track a later route can use passes them, and fails here).
    "long": what a long search turns on, from its first node (the usable track walked from the
    tokens; the memo grown and keyed by the usable track after 1 000 nodes); "later-prices": the bound at the later levels' own
    prices from the first node (halving the usable track's price in it fails here)."""
    from optimizer.bench.suites import TRAINS
    from optimizer.bench.synthetic import synthetic_board

    doc = synthetic_board(seed, track=0.4, trains=TRAINS[trains])
    if no_token:
        doc["trains"][-1]["requires_token"] = False
    problem = build_problem(doc)
    nested = compiled.search(problem, strategy="nested")
    settings = {
        False: None,
        True: {"reach_after": 0, "memo_grow_after": 1000},
        "later-prices": {"mu_after": 0},
    }[long_search]
    fast = compiled.search(problem, strategy="packing", packing=settings)
    assert nested.optimal and fast.optimal
    assert fast.revenue == nested.revenue, (fast.routes, nested.routes)
    _assert_sound(problem, fast)


def _packing_with(problem, **settings):
    """The packing kernel's search with these settings (``_packing.Packing``'s; the rest at their
    defaults), for this search only."""
    return compiled.search(problem, strategy="packing", packing=settings)


# Shortcuts that must find what the plain way finds, so the same search node for node: each forced
# on for every list and off (settings of _packing.Packing).
SAME_SEARCH = {
    # long lists priced by byte tables: the same prices as walking each route's bits
    "byte-tables": ({"table_routes": 0}, {"table_routes": 1 << 40}),
    # once the prices settle, each long list read in the order of its reduced values at a recent
    # step, stopping early: the same best route at every step as reading in value order (the
    # first steps' sample, which changes the prices, left out of both)
    "reference-order": (
        {"reference_after": 0, "reference_routes": 0, "sample_steps": 0},
        {"reference_after": 1 << 30, "sample_steps": 0},
    ),
    # the next free route found 64 at a time by an index of the routes on each track bit
    "bit-index": ({"index_routes": 0}, {"index_routes": 1 << 40}),
}


@pytest.mark.parametrize("shortcut", SAME_SEARCH)
@pytest.mark.parametrize(
    "trains,seed,later_prices",
    [(3, 0, False), (4, 1, False), (5, 3, False), (4, 1, True)],
    ids=["3-0", "4-1", "5-3", "4-1-later-prices"],
)
def test_packing_shortcuts_keep_the_search_node_for_node(shortcut, trains, seed, later_prices):
    """These boards list 2 000-20 000 routes; "later-prices" also prices the later levels from the
    first node, whose lists are read and scanned in a second order."""
    from optimizer.bench.suites import TRAINS
    from optimizer.bench.synthetic import synthetic_board

    problem = build_problem(synthetic_board(seed, track=0.6, trains=TRAINS[trains]))
    later = {"mu_after": 0} if later_prices else {}
    on, off = (_packing_with(problem, **settings, **later) for settings in SAME_SEARCH[shortcut])
    assert on.optimal and off.optimal
    assert (on.revenue, on.nodes) == (off.revenue, off.nodes)


@pytest.mark.parametrize(
    "sample",
    [{"sample_steps": 30, "sample_stride": 8}, {"sample_steps": 100, "sample_stride": 3}],
    ids=["first-steps", "every-step"],
)
@pytest.mark.parametrize("trains,seed", [(3, 0), (4, 1), (5, 3)])
def test_pricing_from_a_sample_keeps_the_optimum(sample, trains, seed):
    """The first pricing steps read only a sample of each list (here every list, however short):
    a sample's best route is not its list's, so those steps give a direction but never the prices
    kept. With every step sampled none are kept and the search runs on no prices at all: slower,
    still exact."""
    from optimizer.bench.suites import TRAINS
    from optimizer.bench.synthetic import synthetic_board

    problem = build_problem(synthetic_board(seed, track=0.6, trains=TRAINS[trains]))
    nested = compiled.search(problem, strategy="nested")
    fast = _packing_with(problem, reference_routes=0, **sample)
    assert nested.optimal and fast.optimal
    assert fast.revenue == nested.revenue, (fast.routes, nested.routes)
    _assert_sound(problem, fast)


# Found by the random boards above with the bug planted (the memo keyed on the track reached from
# the tokens even where a later train needs none): every train here runs without a token.
NO_TOKEN_BOARD = {
    "id": "no-token",
    "game": "random",
    "layout": "pointy",
    "phase": {"name": "x", "tiles": ["yellow"]},
    "corporation": {"id": "US"},
    "trains": [
        {"name": "2", "distance": 2, "requires_token": False, "id": "2-0"},
        {"name": "2", "distance": 2, "requires_token": False, "id": "2-1"},
        {"name": "3", "distance": 3, "requires_token": False, "id": "3-2"},
        {"name": "D", "distance": 999, "id": "long-0", "requires_token": False},
    ],
    "hexes": [
        {
            "id": "A1",
            "tile": "t",
            "color": "yellow",
            "rotation": 4,
            "code": "city=revenue:20;path=a:0,b:_0;path=a:1,b:_0",
            "cities": [{"index": 0, "slots": 1, "tokens": ["US"]}],
        },
        {
            "id": "A3",
            "tile": "t",
            "color": "gray",
            "rotation": 5,
            "code": "city=revenue:60,slots:2;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;label=T",
            "cities": [{"index": 0, "slots": 2, "tokens": [None, None]}],
        },
        {
            "id": "B2",
            "tile": "t",
            "color": "green",
            "rotation": 1,
            "code": "town=revenue:20;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0;path=a:5,b:_0",
            "cities": [],
        },
        {
            "id": "B4",
            "tile": "t",
            "color": "brown",
            "rotation": 0,
            "code": "city=revenue:40,loc:0.5;city=revenue:40,loc:2.5;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_1;path=a:3,b:_1",
            "cities": [{"index": 0, "slots": 1, "tokens": ["THEM"]}, {"index": 1, "slots": 1, "tokens": ["THEM"]}],
        },
        {
            "id": "C1",
            "tile": "C1",
            "color": "red",
            "rotation": 0,
            "code": "offboard=revenue:yellow_30|brown_60;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0;path=a:4,b:_0;path=a:5,b:_0",
            "cities": [],
        },
        {
            "id": "C3",
            "tile": "t",
            "color": "yellow",
            "rotation": 0,
            "code": "city=revenue:20;path=a:0,b:_0;path=a:1,b:_0",
            "cities": [{"index": 0, "slots": 1, "tokens": ["THEM"]}],
        },
        {
            "id": "D2",
            "tile": "D2",
            "color": "red",
            "rotation": 0,
            "code": "offboard=revenue:yellow_30|brown_60;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0;path=a:4,b:_0;path=a:5,b:_0",
            "cities": [],
        },
        {
            "id": "D4",
            "tile": "D4",
            "color": "red",
            "rotation": 0,
            "code": "offboard=revenue:20;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0;path=a:4,b:_0;path=a:5,b:_0",
            "cities": [],
        },
    ],
}


def test_the_memo_keys_on_the_track_reached_from_tokens_only_where_every_later_train_needs_one():
    """In a long search a node is remembered by the free track its later routes can use: where
    every later train needs a token, the track reached from one; else all free track. Keyed on the
    first here (no train needs a token), the search ends at 400 for 410. The first dive is cut to
    one node, and the token walk and that key run from the first node (the memo never grows), or
    the board is solved before the memo matters."""
    problem = build_problem(NO_TOKEN_BOARD)
    ref = reference.search(problem)
    fast = _packing_with(problem, dive_nodes=1, reach_after=0, memo_grow_after=0)
    assert ref.optimal and fast.optimal
    assert fast.revenue == ref.revenue == 410, (fast.routes, ref.routes)
    _assert_sound(problem, fast)


def test_packing_settings_belong_to_each_search():
    """Searches with different packing settings, side by side on threads without the GIL: each
    searches as it does alone, node for node (settings that were process-wide globals would leak
    from one search into the other)."""
    from optimizer.bench.suites import TRAINS
    from optimizer.bench.synthetic import synthetic_board

    problem = build_problem(synthetic_board(0, track=0.4, trains=TRAINS[3]))
    settings = [None, {"iterations": 0}, {"iterations": 5, "dive_nodes": 1}]
    alone = [compiled.search(problem, strategy="packing", packing=s) for s in settings]
    assert len({r.nodes for r in alone}) == len(settings)  # the settings change the search

    def run(i, together):
        together[i] = compiled.search(problem, strategy="packing", packing=settings[i])

    for _ in range(3):
        together: list = [None] * len(settings)
        threads = [threading.Thread(target=run, args=(i, together)) for i in range(len(settings))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [(r.revenue, r.nodes) for r in together] == [(r.revenue, r.nodes) for r in alone]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("trains", [("D", "8E"), ("D", "8E", "6"), ("D", "8E", "6", "6E")], ids="-".join)
def test_packing_hands_over_past_its_list_limit(trains, seed):
    """Past its longest list (a full map with a D train; lowered here to three routes, with two
    trains and with more) the packing kernel hands the search over to the nested rounds, keeping
    the trains alone it has proven: still the nested search's optimum. The first dive is cut to one
    node, or it would find these small boards' optimum before any list is made (seed 1 then ends
    below the optimum if the nested rounds are skipped)."""
    from optimizer.bench.synthetic import synthetic_board

    problem = build_problem(synthetic_board(seed, track=0.3, trains=trains))
    nested = compiled.search(problem, strategy="nested")
    fast = compiled.search(
        problem, strategy="packing", packing={"max_routes": 3, "max_routes_many": 3, "dive_nodes": 1}
    )
    assert nested.optimal and fast.optimal
    assert fast.revenue == nested.revenue, (fast.routes, nested.routes)
    _assert_sound(problem, fast)


@pytest.mark.parametrize("strategy", ["nested", "packing"])
def test_streamed_answers_carry_the_proven_bound_and_progress(strategy):
    """Every provisional answer reports a bound the optimum never exceeds, and nodes searched."""
    problem = build_problem(hard_board())
    seen = []
    final = compiled.search(problem, strategy=strategy, on_improve=seen.append)
    assert final.optimal and seen
    for r in seen:
        assert r.revenue <= final.revenue <= r.bound
        assert r.nodes > 0
    assert [r.nodes for r in seen] == sorted(r.nodes for r in seen)


def test_packing_with_a_deadline_keeps_a_valid_bound():
    problem = build_problem(hard_board())
    full = compiled.search(problem, strategy="packing")
    for budget in (1_000, 30_000, 100_000):
        cut = compiled.search(problem, strategy="packing", node_budget=budget)
        assert cut.revenue <= full.revenue <= cut.bound
        assert cut.optimal == (cut.stopped_by is None)


@pytest.mark.corpus
@pytest.mark.parametrize("doc", STATES, ids=ids(STATES))
def test_corpus_optimum(doc):
    """At least max(router, players); the router's figure exactly wherever no Pullman runs
    (the router never runs one); routes the checker accepts, at the same revenue."""
    exp = doc["expected"]
    result = api.solve(doc, core="compiled")
    assert result["optimal"]
    best_known = max(exp["router"]["revenue"], exp["human_recheck"] or 0)
    assert result["revenue"] >= best_known
    has_pullman = any(t["name"] == "P" for t in doc["trains"])
    if has_pullman:
        assert result["revenue"] >= exp["human"]["revenue"]
    else:
        assert result["revenue"] == exp["router"]["revenue"]
    checked = check_routes(read_board(doc), [{"train": r["train"], "hexes": r["hexes"]} for r in result["routes"]])
    assert checked["legal"], checked
    assert checked["revenue"] == result["revenue"]


QUICK = [s for s in STATES if s["expected"]["router"]["path_s"] + s["expected"]["router"]["combo_s"] < 0.02][::7]


@pytest.mark.corpus
@pytest.mark.parametrize("doc", QUICK, ids=ids(QUICK))
def test_twin_agrees_on_real_boards(doc, core):
    """The same corpus test against both searches (the python twin on the quicker boards)."""
    result = api.solve(doc)
    assert result["stats"]["core"] == core
    assert result["optimal"]
    assert result["revenue"] >= max(doc["expected"]["router"]["revenue"], doc["expected"]["human_recheck"] or 0)


def hard_board():
    """A late 18EU board given four 8-trains: far more routes than any real turn."""
    doc = copy.deepcopy(state("18EU/74045@591"))
    doc["trains"] = [
        {
            "id": f"8-{i}",
            "name": "8",
            "distance": [
                {"nodes": ["city", "offboard"], "pay": 8, "visit": 8},
                {"nodes": ["town"], "pay": 99, "visit": 99},
            ],
        }
        for i in range(4)
    ]
    return doc


def test_deadline_returns_best_so_far_with_a_bound():
    result = api.solve(hard_board(), deadline_ms=50, core="compiled")
    assert result["elapsed_ms"] < 2000
    if not result["optimal"]:
        assert result["stats"]["stopped_by"] == "deadline"
        assert result["bound"] >= result["revenue"]
    assert result["revenue"] > 0


def test_node_budget_stops_the_search():
    result = api.solve(hard_board(), node_budget=2000, core="compiled")
    assert not result["optimal"]
    assert result["stats"]["stopped_by"] == "nodes"
    assert result["bound"] >= result["revenue"] > 0
    full = api.solve(hard_board(), core="compiled")
    assert full["optimal"] and full["revenue"] >= result["revenue"]
    assert full["bound"] == full["revenue"] <= result["bound"]


def test_cancel_from_another_thread():
    token = CancelToken()
    out = {}
    problem = build_problem(hard_board())
    worker = threading.Thread(target=lambda: out.update(r=compiled.search(problem, cancel=token)))
    worker.start()
    time.sleep(0.02)
    token.cancel()
    worker.join(timeout=10)
    assert not worker.is_alive()
    if not out["r"].optimal:
        assert out["r"].stopped_by == "cancelled"


def test_improvements_are_reported_in_order():
    seen = []
    result = compiled.search(build_problem(hard_board()), on_improve=lambda r: seen.append(r.revenue))
    assert seen and seen == sorted(seen)
    assert seen[-1] == result.revenue


def test_search_releases_the_gil():
    """Two searches in two threads overlap (the compiled loop runs without the GIL)."""
    problem = build_problem(hard_board())
    inside = []

    def run():
        start = time.perf_counter()
        compiled.search(problem, node_budget=3_000_000, strategy="nested")  # the slower kernel: long enough
        inside.append((start, time.perf_counter()))

    threads = [threading.Thread(target=run) for _ in range(2)]
    ticks = 0
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        ticks += 1  # the main thread keeps running Python while both search
        time.sleep(0.001)
    assert len(inside) == 2 and ticks > 0
    (a0, a1), (b0, b1) = inside
    assert a0 < b1 and b0 < a1  # the two searches overlapped in time


def test_no_trains_and_no_track():
    doc = copy.deepcopy(state("1830/26855@553"))
    doc["trains"] = []
    assert api.solve(doc)["revenue"] == 0
    doc = copy.deepcopy(state("1830/26855@553"))
    for h in doc["hexes"]:
        for c in h.get("cities", []):
            c["tokens"] = [None] * len(c["tokens"])
    result = api.solve(doc)
    assert result["revenue"] == 0 and result["routes"] == [] and result["optimal"]


# ---- the kernel's contract: checked arrays in, a named result out ----------------------------


def default_board(trains=None) -> dict:
    doc = json.loads(resources.files("optimizer.boards").joinpath("default.json").read_text())
    if trains is not None:
        doc["trains"] = trains
    return doc


def _set(a, index, value):
    a = a.copy()
    a[index] = value
    return a


def _strided(a):
    """The same values and shape, not C-contiguous."""
    wide = np.repeat(a, 2, axis=0)
    return wide[::2]


CORRUPT = {
    "to_stop_by_dir": lambda ki: dict(to_stop_by_dir=_set(ki.to_stop_by_dir, 0, ki.n_stops)),
    "seg_by_dir": lambda ki: dict(seg_by_dir=_set(ki.seg_by_dir, -1, ki.n_segs + 7)),
    "loc_by_stop": lambda ki: dict(loc_by_stop=_set(ki.loc_by_stop, 1, -1)),
    "adj_ptr_by_stop": lambda ki: dict(adj_ptr_by_stop=_set(ki.adj_ptr_by_stop, 1, ki.n_dirs + 1)),
    "values_by_train_stop": lambda ki: dict(values_by_train_stop=ki.values_by_train_stop.astype(np.int64)),
    "large_by_stop": lambda ki: dict(large_by_stop=ki.large_by_stop.astype(bool)),
    "track_bits_by_seg": lambda ki: dict(track_bits_by_seg=_strided(ki.track_bits_by_seg)),
    "caps_by_train": lambda ki: dict(caps_by_train=ki.caps_by_train[:, :5].copy()),
    "token_by_stop": lambda ki: dict(token_by_stop=ki.token_by_stop[:-1].copy()),
    "anchor_by_train_rank": lambda ki: dict(anchor_by_train_rank=_set(ki.anchor_by_train_rank, (0, 0), 10**6)),
    "rank_by_train_stop": lambda ki: dict(rank_by_train_stop=_set(ki.rank_by_train_stop, (0, 0), ki.n_stops)),
    "n_anchors_by_train": lambda ki: dict(n_anchors_by_train=_set(ki.n_anchors_by_train, 0, ki.n_stops + 1)),
    "train_by_level": lambda ki: dict(train_by_level=np.zeros_like(ki.train_by_level)),
    "penalty_mask_by_seg": lambda ki: dict(penalty_mask_by_seg=_set(ki.penalty_mask_by_seg, 0, 1)),
    "stop_a_by_pair": lambda ki: dict(
        n_pairs=1,
        stop_a_by_pair=np.array([ki.n_stops], np.int32),
        stop_b_by_pair=np.array([0], np.int32),
        amount_by_pair=np.array([9], np.int32),
    ),
    "visited_by_pair": lambda ki: dict(
        n_pairs=1,
        stop_a_by_pair=np.array([0], np.int32),
        stop_b_by_pair=np.array([1], np.int32),
        amount_by_pair=np.array([9], np.int32),
        visited_by_pair=np.array([1, 0], np.uint8),
    ),
    "trigger_by_largest": lambda ki: dict(
        n_largest=1,
        trigger_by_largest=np.array([-3], np.int32),
        excluded_by_largest_stop=np.zeros((1, ki.n_stops), np.uint8),
    ),
    "excluded_by_largest_stop": lambda ki: dict(
        n_largest=1,
        trigger_by_largest=np.array([0], np.int32),
        excluded_by_largest_stop=np.zeros((1, ki.n_stops + 1), np.uint8),
    ),
    "n_track_words": lambda ki: dict(n_track_words=0),
    "n_locs": lambda ki: dict(n_locs=ki.n_stops + 1),
    "caps_by_train ": lambda ki: dict(caps_by_train=_set(ki.caps_by_train, (0, 2), -1)),
    # best-route bonuses (1846 Mail Contract, 18AL named routes)
    "n_best_route": lambda ki: dict(
        n_best_route=5,
        amount_by_best_route=np.zeros(5, np.int32),
        per_stop_by_best_route=np.zeros(5, np.int32),
        groups_by_best_route_stop=np.zeros((5, ki.n_stops), np.uint32),
        full_by_best_route=np.zeros(5, np.uint32),
    ),
    "amount_by_best_route": lambda ki: dict(
        n_best_route=2,
        amount_by_best_route=np.zeros(1, np.int32),
        per_stop_by_best_route=np.zeros(2, np.int32),
        groups_by_best_route_stop=np.zeros((2, ki.n_stops), np.uint32),
        full_by_best_route=np.zeros(2, np.uint32),
    ),
    "per_stop_by_best_route": lambda ki: dict(
        n_best_route=1,
        amount_by_best_route=np.zeros(1, np.int32),
        per_stop_by_best_route=np.zeros(1, np.int64),
        groups_by_best_route_stop=np.zeros((1, ki.n_stops), np.uint32),
        full_by_best_route=np.zeros(1, np.uint32),
    ),
    "groups_by_best_route_stop": lambda ki: dict(
        n_best_route=1,
        amount_by_best_route=np.array([20], np.int32),
        per_stop_by_best_route=np.zeros(1, np.int32),
        groups_by_best_route_stop=np.zeros((1, ki.n_stops - 1), np.uint32),
        full_by_best_route=np.array([1], np.uint32),
    ),
    "groups_by_best_route_stop ": lambda ki: dict(
        n_best_route=1,
        amount_by_best_route=np.array([20], np.int32),
        per_stop_by_best_route=np.zeros(1, np.int32),
        groups_by_best_route_stop=_set(np.zeros((1, ki.n_stops), np.uint32), (0, 1), 4),
        full_by_best_route=np.array([3], np.uint32),
    ),
    "full_by_best_route": lambda ki: dict(
        n_best_route=1,
        amount_by_best_route=np.array([20], np.int32),
        per_stop_by_best_route=np.zeros(1, np.int32),
        groups_by_best_route_stop=np.zeros((1, ki.n_stops), np.uint32),
        full_by_best_route=np.array([1], np.int32),
    ),
    "has_pullman": lambda ki: dict(has_pullman=2),
}


class _Both:
    """A KernelInput's fields and its Problem's, read as one (the kernel reads both)."""

    def __init__(self, ki):
        self.ki = ki

    def __getattr__(self, name):
        return getattr(self.ki if hasattr(self.ki, name) else self.ki.problem, name)


def _corrupted(ki, changes: dict):
    """The KernelInput with these fields changed, in itself or in its Problem, whichever has them."""
    own = {k: v for k, v in changes.items() if k != "problem" and hasattr(ki, k)}
    theirs = {k: v for k, v in changes.items() if k not in own}
    return replace(ki, problem=replace(ki.problem, **theirs), **own)


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_corrupted_kernel_input_is_refused_by_name(name):
    """Out-of-range indexes, wrong dtypes, strided or wrongly sized arrays, in the Problem or in
    what the search derives from it: a ValueError naming the array, before the kernel reads any
    of it (never a crash)."""
    ki = prepare(build_problem(default_board()))
    bad = _corrupted(ki, CORRUPT[name](_Both(ki)))
    with pytest.raises(ValueError, match=f"kernel input {name.strip()}:"):
        _input.check(bad)
    with pytest.raises(ValueError, match=f"kernel input {name.strip()}:"):
        _search.search(bad)
    _input.check(ki)  # the original is untouched


def test_a_corrupted_problem_raises_instead_of_crashing():
    """The segfault of issue 11: a Problem whose adjacency points past the last stop."""
    problem = build_problem(default_board())
    problem.to_stop_by_dir = _set(problem.to_stop_by_dir, 3, problem.n_stops + 1000)
    with pytest.raises(ValueError, match="to_stop_by_dir"):
        compiled.search(problem)


def test_the_kernel_takes_only_a_kernel_input():
    with pytest.raises(TypeError, match="KernelInput"):
        _search.search(build_problem(default_board()))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_the_static_bounds_are_the_kernels(data):
    """The most each train can earn alone, as the reference search bounds it (``bounds.train_bound``,
    Python) and as the kernel derives it (``_input.derive_train``, C): the same figure, train by
    train, on boards with every kind of bonus; and the company's static bound is their sum plus
    the company-level bonuses' cap, as a stopped compiled search reports it."""
    problem = build_problem(data.draw(small_boards(max_hexes=8, max_trains=4)))
    data.draw(bonuses(problem))
    ki = prepare(problem)
    python = [bounds.train_bound(problem, int(t)) for t in ki.train_by_level]
    assert ki.bound_by_level.tolist() == python
    assert ki.pullman_cap == bounds.company_cap(problem)
    assert bounds.static_bound(problem) == sum(python) + ki.pullman_cap
    assert sorted(python, reverse=True) == python  # strongest first


def test_kernel_result_is_named():
    problem = build_problem(default_board())
    out = _search.search(prepare(problem))
    assert isinstance(out, KernelResult)
    assert out.stop_code == 0 and out.stage == 2 and out.nodes > 0
    assert out.value == compiled.search(problem).revenue == sum(out.revenue_by_level)
    assert len(out.stops_by_level) == len(problem.trains) == len(out.from_level) - 1
    assert out.from_level[0] == out.value


def test_empty_problem_is_padded():
    """No trains and no track: the empty arrays stand for padding the kernel borrows, it answers 0."""
    doc = default_board(trains=[])
    ki = prepare(build_problem(doc))
    assert ki.problem.n_trains == 0 and ki.problem.values_by_train_stop.shape == (0, ki.problem.n_stops)
    assert ki.train_by_level.shape == (0,)
    assert _search.search(ki).value == 0


# ---- the twin: one signature, the same limits, the same callbacks -----------------------------

TWINS = sorted(SEARCHES)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_twins_honour_node_budgets_exactly(data):
    """With a node budget both searches either finish within it (and are optimal) or stop at
    exactly that many nodes with sound routes and a bound no lower than the optimum."""
    problem = build_problem(data.draw(small_boards(max_hexes=12)))
    data.draw(bonuses(problem))
    optimum = reference.search(problem).revenue
    budget = data.draw(st.integers(1, 400))
    for name in TWINS:
        result = SEARCHES[name](problem, node_budget=budget)
        assert result.core == name
        assert result.nodes <= budget
        if result.stopped_by is None:
            assert result.optimal and result.revenue == optimum
        else:
            assert result.stopped_by == "nodes" and result.nodes == budget and not result.optimal
            assert result.revenue <= optimum <= result.bound
        _assert_sound(problem, result)


@pytest.mark.parametrize("name", TWINS)
def test_a_budget_of_ten_nodes_stops_at_ten(name):
    problem = build_problem(default_board())
    result = SEARCHES[name](problem, node_budget=10)
    assert (result.stopped_by, result.nodes, result.optimal) == ("nodes", 10, False)
    assert result.bound >= SEARCHES[name](problem).revenue


@pytest.mark.parametrize("name", TWINS)
def test_improvements_reported_by_both(name):
    seen = []
    result = SEARCHES[name](build_problem(default_board()), on_improve=lambda r: seen.append((r.revenue, r.core)))
    assert seen and [v for v, _ in seen] == sorted(v for v, _ in seen)
    assert seen[-1] == (result.revenue, name)


@pytest.mark.parametrize("error", [ValueError("from the callback"), KeyboardInterrupt()])
@pytest.mark.parametrize("name", TWINS)
def test_an_error_in_on_improve_stops_the_search_and_is_raised(name, error):
    calls = []

    def on_improve(result):
        calls.append(result.revenue)
        raise error

    with pytest.raises(type(error)):
        SEARCHES[name](build_problem(default_board()), on_improve=on_improve)
    assert len(calls) == 1  # stopped at the first improvement


@pytest.mark.parametrize("name", TWINS)
def test_a_cancelled_token_stops_both_before_the_first_node(name):
    token = CancelToken()
    token.cancel()
    result = SEARCHES[name](build_problem(default_board()), cancel=token)
    assert (result.stopped_by, result.nodes, result.optimal) == ("cancelled", 0, False)


def test_trains_that_need_no_token_agree():
    """A train with ``requires_token: false`` may run anywhere (issue 11: the compiled core
    answered 100, the reference 130)."""
    problem = build_problem(default_board([{"name": "2", "distance": 2, "requires_token": False}]))
    answers = {name: SEARCHES[name](problem).revenue for name in TWINS}
    assert answers == {"compiled": 130, "python": 130}
    with_token = build_problem(default_board([{"name": "2", "distance": 2}]))
    assert {name: SEARCHES[name](with_token).revenue for name in TWINS} == {"compiled": 100, "python": 100}


@pytest.mark.parametrize("name", TWINS)
def test_the_answer_names_the_core_that_ran(name):
    assert api.solve(default_board(), core=name)["stats"]["core"] == name


def test_an_unknown_core_is_a_clear_error():
    with pytest.raises(OptimizerError, match="core must be one of compiled, python, not 'bogus'"):
        api.solve(default_board(), core="bogus")


def test_an_unknown_core_in_the_environment_is_one_line_and_exit_2(tmp_path):
    board = tmp_path / "board.json"
    board.write_text(json.dumps(default_board()))
    run = subprocess.run(
        [sys.executable, "-m", "optimizer", "solve", str(board)],
        capture_output=True,
        text=True,
        env={**os.environ, "OPTIMIZER_CORE": "bogus"},
        timeout=120,
    )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == ["error: OPTIMIZER_CORE must be one of compiled, python, not 'bogus'"]
