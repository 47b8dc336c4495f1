"""The reference search's shortcuts where stops pay once a run (1862, 1877 Stockholm Tramways) stay exact.

Two shortcuts make 1862/46925@655 fast (branch sp1862): the walk of ``reference.legal_routes`` prices no
route that pricing refuses anyway (ending at a stop the train may only pass through, g_1862/game.rb
#check_distance "Route cannot begin/end in a town"; no token stop where the train needs one), and the
paid-once bound (core/paid_once_bound.py) caps a placed route of a train choosing its paid stops by its
best stops less what the run already counts. These tests hold the first to the unshortened walk, on the
real states and random boards, and the second to every run of random boards: never below what it earns.
"""

from __future__ import annotations

import json
from itertools import product

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from optimizer.board.inputs import input_fields
from optimizer.board.state import read_board
from optimizer.core import reference
from optimizer.core.paid_once_bound import PaidOnceBound, chooses_stops
from optimizer.games.declared import DeclaredRules
from optimizer.graph.problem import any_train_without_token, build_problem, problem_from_graph
from optimizer.graph.walks import build_track_graph
from optimizer.revenue import paid_once_run

from .boards import small_boards
from .test_catalog_rules import catalog_state
from .test_family_s1862 import paid_once_runs


def _listed(problem, t: int, unpriced_illegal: bool) -> list:
    routes = reference.legal_routes(problem, t, unpriced_illegal=unpriced_illegal)
    return [(r[0], r[1], r[2].stops, r[2].dsegs, r[3].paid) for r in routes]


def _same_routes_either_way(problem) -> int:
    """Each train's legal routes, walked with and without the shortcut, are the same list; their count."""
    total = 0
    for t in range(problem.n_trains):
        fast = _listed(problem, t, True)
        assert fast == _listed(problem, t, False)
        total += len(fast)
    return total


@pytest.mark.corpus
@pytest.mark.parametrize(
    "state_id",
    ["1862/46925@655", "1862/46925@456", "1825/1825_game_end_stock_market@793", "1877StockholmTramways/87970@66"],
)
def test_the_walk_lists_the_same_legal_routes_on_real_states(state_id):
    """1862 and 1825 forbid town ends (1825 but for its town trains: g_1825/game.rb#check_distance)."""
    problem = build_problem(input_fields(catalog_state(state_id)))
    assert _same_routes_either_way(problem) > 0


@st.composite
def town_end_boards(draw):
    """Random boards (some trains needing no token) where no route may begin or end at a town, some
    trains excepted, or towns are free ends."""
    doc = json.loads(json.dumps(draw(small_boards(max_hexes=7, min_trains=1, max_trains=3))))
    rule = draw(st.sampled_from([True, {"except_trains": [doc["trains"][0]["name"]]}, None]))
    family = {"no_town_ends": rule} if rule is not None else {}
    board = read_board(doc)
    rules = DeclaredRules.for_game("random", {}, family)(board)
    reachable_only = not any_train_without_token(board, rules)
    return problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=reachable_only))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(town_end_boards())
def test_the_walk_lists_the_same_legal_routes_on_random_boards(problem):
    _same_routes_either_way(problem)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(paid_once_runs())
def test_a_placed_route_is_never_capped_below_what_its_run_pays_it(problem):
    """In the search's order (trains paid fixed stops first), every run's routes earn at most what the
    bound says they add: each route its price less what it adds to ``seen`` twice (``add``), and no
    more than ``rest`` over the trains left."""
    per_train = [reference.legal_routes(problem, t) for t in range(problem.n_trains)]
    for routes in per_train:
        routes.sort(key=lambda r: -r[0])
    order = sorted(
        range(problem.n_trains), key=lambda t: (chooses_stops(problem, t), -max([0] + [r[0] for r in per_train[t]]))
    )
    searched = [per_train[t] for t in order]
    size = 1
    for routes in searched:
        size *= len(routes) + 1
    assume(size <= 5_000)
    bound = PaidOnceBound(problem, searched)
    for pick in product(*[[None, *range(len(routes))] for routes in searched]):
        seen, ub, bounds = bound.empty(), 0, []
        for u, i in enumerate(pick):
            bounds.append(ub + bound.rest(u, seen))  # what the search may prune this run's node by
            if i is not None:
                ub += searched[u][i][0] - bound.overlap(seen, u, i)
                seen = bound.add(seen, u, i)
        chosen = sorted((searched[u][i] for u, i in enumerate(pick) if i is not None), key=lambda r: r[2].train)
        run = paid_once_run(problem, [(r[2].train, r[2].stops, r[3]) for r in chosen])
        total = sum(rev for rev, _ in run)
        assert ub >= total and min(bounds) >= total
