"""The reference search's bound where stops pay once a run (``stops_paid_once``), fast and exact on 1862.

1862 problems go to the pure-Python reference search (compiled.py: the kernel declines trains choosing
their stops across the run and freight trains). Its bound on the trains still to place subtracts what
the run already pays of their stops, once per stop or per off-board group (g_1862/game.rb#revenue_for,
#stop_on_other_route?: a stop, or one of its group, paid to an earlier route pays nothing), whatever the
order the search places trains in. These tests hold the search to the engine's prices on the real
states and to an exhaustive search on random boards.
"""

from __future__ import annotations

import json
from itertools import product

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from optimizer.board.inputs import input_fields
from optimizer.board.state import read_board
from optimizer.core import compiled, reference
from optimizer.games.declared import DeclaredRules
from optimizer.games.home_route import run_visits_home
from optimizer.games.routes_meet import routes_linked
from optimizer.graph.problem import any_train_without_token, build_problem, problem_from_graph
from optimizer.graph.walks import build_track_graph
from optimizer.revenue import paid_once_run, stop_groups

from .boards import small_boards
from .test_catalog_rules import catalog_state

# Every 1862 catalogue state and the revenue the engine priced our answer's routes at
# (benchmarks/engine_judge.py --title 1862, branch s1862 at 14:36 UTC 2026-12-03; @161 is the engine's
# error on freight sets, named unsupported in coverage.json: our answer's revenue). @655 (a 4/5E, an 8F
# and a 9F) was not proven in 10 s before (its best found then 1310, the engine's price of it 1310).
ENGINE_PRICED = {102: 60, 161: 330, 288: 170, 456: 570, 592: 360, 655: 1350, 683: 480, 701: 400}


def _problem(action: int):
    return build_problem(input_fields(catalog_state(f"1862/46925@{action}")))


@pytest.mark.corpus
@pytest.mark.parametrize("action", sorted(ENGINE_PRICED))
def test_every_1862_state_is_proven_at_the_engines_price(action):
    problem = _problem(action)
    assert compiled.reference_rules(problem)  # the kernel declines: the reference search answers
    result = reference.search(problem, deadline_ms=60_000)
    assert result.optimal and result.stopped_by is None
    assert result.revenue == ENGINE_PRICED[action]
    assert sum(r.revenue for r in result.routes) == result.revenue


@pytest.mark.corpus
def test_1862_655_pays_each_stop_and_each_off_board_group_once():
    """@655: the three routes share stops; the run pays each once, the off-boards of one group
    (London's four) once, and the routes meet."""
    problem = _problem(655)
    result = reference.search(problem, deadline_ms=60_000)
    assert routes_linked([r.stops for r in result.routes])
    paid = [s for r in result.routes for s in r.paid]
    assert len(paid) == len(set(paid))
    groups = [g for s in paid for g in stop_groups(problem, s)]
    assert len(groups) == len(set(groups))


def exhaustive(problem) -> int:
    """The best run by brute force: every combination of one legal route (or none) per train, the
    run's rules checked and priced as the reference search's leaf does."""
    per_train = [[None] + reference.legal_routes(problem, t) for t in range(problem.n_trains)]
    best = 0
    for pick in product(*per_train):
        chosen = [c for c in pick if c is not None]
        used = 0
        clash = False
        for _, bits, _, _ in chosen:
            clash |= bool(bits & used)
            used |= bits
        stops = [c[2].stops for c in chosen]
        if clash or not run_visits_home(problem.home_stop, stops):
            continue
        if problem.routes_meet and not routes_linked(stops):
            continue
        run = paid_once_run(problem, [(c[2].train, c[2].stops, c[3]) for c in chosen])
        best = max(best, sum(rev for rev, _ in run))
    return best


# Pays 2 of its 3 cities and off-boards, picked across the run, as 1862's M/N expresses do (towns visited,
# paid nothing: 1862's 4/5E); and a row paying 2 of 3 stops of any kind, towns and cities together
# (revenue.stop_options: no more stops in the run than alone).
CHOOSER = [{"nodes": ["city", "offboard"], "pay": 2, "visit": 3}, {"nodes": ["town"], "pay": 0, "visit": 99}]
ANY_TWO = [{"nodes": ["city", "offboard", "town"], "pay": 2, "visit": 3}]


@st.composite
def paid_once_runs(draw):
    """A small random board whose trains pay all their stops, choose 2 of 3 (cities, or any), or are freight trains
    (paid their ends and a crow-flight bonus), under ``stops_paid_once``, sharing track or not,
    routes that must meet or not."""
    doc = json.loads(json.dumps(draw(small_boards(max_hexes=7, min_trains=2, max_trains=3))))
    for t in doc["trains"]:
        kind = draw(st.sampled_from(["all", "choose", "any two", "freight"]))
        if kind == "all":
            t.update(name="2", distance=2)
        elif kind == "choose":
            t.update(name="2/3", distance=CHOOSER)
        elif kind == "any two":
            t.update(name="2/3A", distance=ANY_TWO)
        else:
            t.update(name="3F", distance=3)
    family = {"stops_paid_once": True, "freight_trains": {"pattern": "F\\**$", "bonus": 20, "port_bonus": 30}}
    if draw(st.booleans()):
        family["routes_share_track"] = True
    if draw(st.booleans()):
        family["routes_meet"] = True
    board = read_board(doc)
    rules = DeclaredRules.for_game("random", {}, family)(board)
    reachable_only = not any_train_without_token(board, rules)
    return problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=reachable_only))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(paid_once_runs())
def test_the_reference_search_equals_the_exhaustive_one_when_stops_pay_once(problem):
    sizes = [len(reference.legal_routes(problem, t)) + 1 for t in range(problem.n_trains)]
    total = 1
    for n in sizes:
        total *= n
    assume(total <= 20_000)
    result = reference.search(problem)
    assert result.optimal
    assert result.revenue == exhaustive(problem)
