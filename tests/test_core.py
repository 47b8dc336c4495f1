"""The compiled search against its reference twin, and both against the real corpus."""
import copy
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.state import read_board
from optimizer.core import CancelToken, compiled, reference
from optimizer.graph.problem import build_problem
from optimizer.rules.check import check_routes
from optimizer.revenue import best_route_awards, price_route

from .boards import bonuses, small_boards
from .corpus import ids, state, states

STATES = states()


def _segments_pen(problem, route):
    mask = 0
    for d in route.dsegs:
        mask |= int(problem.seg_pen[problem.adj_seg[d]])
    return mask


def _assert_sound(problem, result):
    """Every route is legal, edge-disjoint from the others, and priced as the reference prices it
    (a best-route bonus on the route that earns it most)."""
    used = set()
    awards = {}
    for i, amount in best_route_awards(problem, [r.stops for r in result.routes]):
        awards[i] = awards.get(i, 0) + amount
    for i, r in enumerate(result.routes):
        priced = price_route(problem, r.train, r.stops, _segments_pen(problem, r))
        assert priced.legal, priced.errors
        assert priced.revenue + awards.get(i, 0) == r.revenue
        for d in r.dsegs:
            seg = problem.graph.segments[problem.adj_seg[d]]
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


LONG_TRAINS = st.sampled_from([{"name": "D", "distance": 999}, {"name": "8", "distance": 8},
                                {"name": "4E", "distance": [{"nodes": ["city", "offboard", "town"], "pay": 4, "visit": 99}]}])


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
    doc["trains"] = [{"id": f"8-{i}", "name": "8", "distance": [
        {"nodes": ["city", "offboard"], "pay": 8, "visit": 8}, {"nodes": ["town"], "pay": 99, "visit": 99}]}
        for i in range(4)]
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
