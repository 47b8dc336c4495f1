"""The route checker on the players' real routes, on hand-made illegal variants, and bad input;
and the reference optimiser against the router on the corpus."""

import copy
import json
import subprocess
import sys

import pytest

from optimizer import api
from optimizer.board.state import read_board
from optimizer.core import reference
from optimizer.errors import RoutesError
from optimizer.graph.problem import build_problem
from optimizer.rules.check import check_routes

from .corpus import ids, state, states
from .test_games import CITY_20, board

STATES = states()
WITH_RECHECK = [s for s in STATES if s["expected"]["human_recheck"] is not None]


def recorded(doc, source="human"):
    return [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"][source]["routes"]]


@pytest.mark.corpus
@pytest.mark.parametrize("doc", WITH_RECHECK, ids=ids(WITH_RECHECK))
def test_players_routes_reprice_as_the_engine_and_are_legal(doc):
    verdict = check_routes(read_board(doc), recorded(doc))
    assert verdict["legal"], [r["errors"] for r in verdict["routes"]]
    assert verdict["revenue"] == doc["expected"]["human_recheck"]
    router = check_routes(read_board(doc), recorded(doc, "router"))
    assert router["legal"] and router["revenue"] == doc["expected"]["router"]["revenue"]


def _errors(doc, routes):
    verdict = check_routes(read_board(doc), routes)
    assert not verdict["legal"]
    return " | ".join(e for r in verdict["routes"] for e in r["errors"])


def test_reused_side_between_two_routes():
    doc = state("1830/26855@553")
    five, four = recorded(doc, "router")
    errors = _errors(doc, [five, dict(five, train=four["train"])])
    assert "route 2 uses the side between" in errors and "that route 1 already uses" in errors


def test_too_many_stops():
    doc = state("1830/26855@553")
    five, four = recorded(doc, "router")
    errors = _errors(doc, [dict(five, train=four["train"])])
    assert "the 4 train counts 5 stops; it may count 4" in errors


def test_no_own_token():
    doc = state("1830/26855@553")
    errors = _errors(doc, [{"train": "4-0", "stops": ["G17._1", "G19._0"]}])
    assert "no city with the company's token" in errors


def test_express_needs_one_of_our_cities():
    doc = state("1880/1@835")
    problem = build_problem(doc, reachable_only=False)
    graph = problem.graph
    seg = next(
        s
        for s in graph.segments
        if not graph.stops[s.a].token
        and not graph.stops[s.b].token
        and not graph.stops[s.a].end_only
        and not graph.stops[s.b].end_only
    )
    train = doc["trains"][0]["id"]
    errors = _errors(doc, [{"train": train, "stops": [graph.stops[seg.a].id, graph.stops[seg.b].id]}])
    assert "token" in errors


def _through(doc, want):
    """Stops u, b, w with track u-b and b-w on different sides, b chosen by ``want``."""
    graph = build_problem(doc, reachable_only=False).graph
    for b, stop in enumerate(graph.stops):
        if not want(stop, graph):
            continue
        touching = [s for s in graph.segments if b in (s.a, s.b)]
        for x in touching:
            for y in touching:
                if x is not y and not (x.sides & y.sides):
                    u = x.a if x.b == b else x.b
                    w = y.a if y.b == b else y.b
                    if u != w:
                        return [graph.stops[u].id, stop.id, graph.stops[w].id]
    return None


@pytest.mark.corpus
def test_pass_through_a_blocked_city():
    rules_of = {}
    for doc in STATES:
        b = read_board(doc)
        from optimizer.games import rules_for

        rules = rules_of.setdefault(doc["id"], rules_for(b))

        def blocked(s, g, rules=rules, b=b):
            return s.kind == "city" and rules.blocks(b.hexes[s.hex], b.hexes[s.hex].tile.nodes[s.node])

        stops = _through(doc, blocked)
        if stops:
            errors = _errors(doc, [{"train": doc["trains"][0]["id"], "stops": stops}])
            assert "passes through" in errors and "other companies' tokens" in errors
            return
    pytest.fail("no blocked city with track on two sides in the states")


@pytest.mark.corpus
def test_pass_through_an_offboard():
    for doc in STATES:
        stops = _through(doc, lambda s, g: s.kind == "offboard")
        if stops:
            errors = _errors(doc, [{"train": doc["trains"][0]["id"], "stops": stops}])
            assert "passes through" in errors and "off-board" in errors
            return
    pytest.fail("no off-board with track on two sides in the states")


def _switch_board():
    switch = "path=a:0,b:3;path=a:0,b:2"  # 1830 tile 24: two tracks merge at edge 0
    cells = {
        "Z1": (CITY_20, 0, "yellow", ["US"]),
        "S1": (switch, 0, "green"),
        "Z3": (CITY_20, 0, "yellow"),
        "Z5": ("city=revenue:20;path=a:5,b:_0", 0, "yellow"),
    }
    return board(
        "1830",
        cells,
        [("Z1", 3, "S1"), ("S1", 3, "Z3"), ("S1", 2, "Z5")],
        [{"name": "2", "distance": 2}, {"name": "3", "distance": 3}],
    )


def _pullman_on_its_own_chain():
    """18EU 74045 before action 779: the 6 train runs the players' route and the Pullman is given
    one of its chains, F9-E8-E6, as a route of its own."""
    doc = state("18EU/74045@779")
    six = recorded(doc)[0]
    assert six["train"] == "6-1" and ["F9", "E8", "E6"] in six["hexes"]
    return doc, [six, {"train": "P-2", "hexes": [["F9", "E8", "E6"]]}]


def test_any_route_error_makes_the_set_illegal():
    """Rulebook (18EU), Pullman: it "doubles the value of any one City or Off-Map Location on one
    train's run"; it runs no route of its own, and a set that gives it one is not legal."""
    doc, routes = _pullman_on_its_own_chain()
    verdict = check_routes(read_board(doc), routes)
    assert not verdict["legal"] and verdict["routes"][0]["legal"] and not verdict["routes"][1]["legal"]
    assert verdict["routes"][1]["errors"] == ["the P train does not run a route of its own"]
    assert not api.check(doc, routes)["legal"]


def test_one_stop_route_needs_two_stops():
    """1830 has no Pullman (and 18EU's runs no route): a train given one city is told that a route
    needs two stops, not that it is no Pullman."""
    errors = _errors(state("1830/26855@553"), [{"train": "4-0", "stops": ["I15._0"]}])
    assert errors == "a route needs at least two stops"


def test_pullman_on_a_town_says_it_is_a_town():
    """Rulebook (18EU): the Pullman "doubles the value of any one City or Off-Map Location on one
    train's run". On 74045 before action 467 the 3 train's run passes the town B13."""
    doc = state("18EU/74045@467")
    routes = recorded(doc)
    assert "B13._0" in check_routes(read_board(doc), routes)["routes"][0]["stops"]
    pullman = next(i for i, r in enumerate(routes) if r["train"] == "P-1")
    routes[pullman] = {"train": "P-1", "hexes": [["local", "B13"]]}
    assert _errors(doc, routes) == "the Pullman doubles a city or off-board, and B13 is a town"
    routes[pullman] = {"train": "P-1", "stops": ["B13._0"]}
    assert "is a town" in _errors(doc, routes)


def test_side_crossed_twice_by_one_route():
    """Rulebook (18EU): "A train can't reuse its own track (except four-way junctions on brown plain
    tiles)." A run out of E6 and back over the same side is told so once, as one route's fault."""
    doc = state("18EU/74045@779")
    errors = _errors(doc, [{"train": "6-1", "hexes": [["D7", "E8", "E6"], ["E6", "E8", "F9"]]}])
    assert errors == "the route crosses the side between E8 and E6 twice"


def test_two_trains_on_one_switch():
    """Rulebook (1880 Romania): "Branches ... may therefore be used by only one train per turn,
    since two tracks merge into one there.\""""
    doc = _switch_board()
    errors = _errors(
        doc, [{"train": "2-0", "hexes": [["Z1", "S1", "Z3"]]}, {"train": "3-1", "hexes": [["Z1", "S1", "Z5"]]}]
    )
    assert (
        "route 2 uses the side between S1 and Z1 that route 1 already uses" in errors
        or "route 2 uses the side between Z1 and S1 that route 1 already uses" in errors
    )


def test_no_direction_change_at_a_switch():
    """Rulebook (1880 Romania): "A route may not change direction at a switch or on a bridge.\""""
    doc = _switch_board()
    with pytest.raises(RoutesError, match="no track"):
        check_routes(read_board(doc), [{"train": "2-0", "hexes": [["Z3", "S1", "Z5"]]}])
    assert check_routes(read_board(doc), [{"train": "2-0", "hexes": [["Z1", "S1", "Z5"]]}])["legal"]


def test_ambiguous_chain_takes_the_legal_richer_reading():
    """New York (G19) has two cities: a chain through G19 is read as the one that is legal."""
    doc = state("1830/26855@553")
    verdict = check_routes(read_board(doc), recorded(doc, "router"))
    assert verdict["legal"] and verdict["revenue"] == 440


@pytest.mark.parametrize(
    "routes, field",
    [
        ([{"train": "9-9", "hexes": [["I15", "H16"]]}], "routes[0].train"),
        ([{"train": "4-0", "hexes": [["I15", "Q77"]]}], "routes[0].hexes[0][1]"),
        ([{"train": "4-0", "hexes": [["I15", "G19"]]}], "routes[0].hexes[0]"),
        ([{"train": "4-0", "hexes": [["I15", "H16"], ["G17", "G19"]]}], "routes[0].hexes"),
        ([{"train": "4-0", "stops": ["I15._9"]}], "routes[0].stops[0]"),
        ([{"train": "4-0"}], "routes[0]"),
        ({"train": "4-0"}, "routes"),
        ([{"train": "4-0", "hexes": [["I15", "H16"]]}, {"train": "4-0", "hexes": [["I15", "H16"]]}], "routes[1].train"),
    ],
)
def test_bad_routes_input_is_a_clear_error(routes, field):
    with pytest.raises(RoutesError) as err:
        check_routes(read_board(state("1830/26855@553")), routes)
    assert err.value.field == field
    assert "\n" not in str(err.value)


@pytest.mark.corpus
@pytest.mark.slow
def test_reference_reaches_the_router_and_its_routes_are_legal():
    """The reference optimiser, wherever it finishes in 10 s, earns at least the router's
    revenue with routes the checker accepts."""
    finished = 0
    for doc in STATES:
        problem = build_problem(doc)
        result = reference.search(problem, deadline_ms=10_000)
        if not result.optimal:
            continue
        finished += 1
        assert result.revenue >= doc["expected"]["router"]["revenue"], doc["id"]
        routes = []
        for r in result.routes:
            chains = []
            for _stop, d in zip(r.stops, r.dsegs):
                seg = problem.graph.segments[problem.seg_by_dir[d]]
                chains.append(list(seg.hexes))
            routes.append({"train": problem.trains[r.train].id, "hexes": chains})
        verdict = check_routes(read_board(copy.deepcopy(doc)), routes)
        assert verdict["legal"], (doc["id"], verdict)
        if not problem.bonus_trains:
            assert verdict["revenue"] == result.revenue
    assert finished >= 0.9 * len(STATES)


@pytest.mark.parametrize(
    "route",
    [{"train": "2-1", "stops": ["A10._0", "B9._0"]}, {"train": "2-1", "hexes": [["A10", "B9"]]}],
    ids=["stops", "hexes"],
)
def test_1894_london_without_a_ferry_marker_is_illegal_not_unreadable(route, tmp_path):
    """Rulebook (1894): without a ferry marker a company "may not build toward, token toward, or run to
    or through London". A route there is an illegal route with that reason (exit 1), not an input error."""
    doc = state("1894/green_city_upgrades@146")
    assert doc["corporation"]["ferry_marker"] is False
    verdict = check_routes(read_board(doc), [route])
    assert not verdict["legal"] and verdict["revenue"] == 0
    assert verdict["routes"][0]["errors"] == [
        "the company may not run to or through London (A10): it has no ferry marker"
    ]
    (tmp_path / "s.json").write_text(json.dumps(doc))
    out = subprocess.run(
        [sys.executable, "-m", "optimizer", "check", str(tmp_path / "s.json"), "--routes", json.dumps([route])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stderr
    assert "London (A10): it has no ferry marker" in out.stdout
