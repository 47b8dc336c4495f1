"""Routes as players write them (issue 29): train names, stops by hex or printed name, one chain of
hexes from end to end; in the API, the command line (with the embedded board), gRPC and HTTP."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import urllib.error
import urllib.request

import grpc
import pytest

from optimizer import api
from optimizer.cli.solve import default_state
from optimizer.errors import RoutesError
from server.client import OptimizerClient, ServiceError
from server.generated.route18xx.v1 import route_optimizer_pb2 as pb
from server.generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc

from .corpus import state
from .servers import ServerProcess

PY = [sys.executable, "-m", "optimizer"]
# The embedded board's best run of its 4 train, as the solver writes it.
FOUR = {"train": "4-0", "stops": ["I15._0", "H16._0", "H18._1", "G19._0"]}
FIVE = {"train": "5-0", "stops": ["I15._0", "I19._0", "H18._0", "G17._1", "G19._0"]}
AS_PLAYERS_WRITE_FOUR = {
    "hex ids": {"train": "4", "stops": ["I15", "H16", "H18", "G19"]},
    "one chain": {"train": "4", "hexes": [["I15", "H16", "H18", "G19"]]},
    "one flat chain": {"train": "4", "hexes": ["I15", "H16", "H18", "G19"]},
    "printed names": {"train": "4", "stops": ["Baltimore", "Lancaster", "Philadelphia & Trenton", "New York & Newark"]},
    "names, any case, parts and prefixes": {"train": "4", "stops": ["baltimore", "LANC", "Trenton", "new york"]},
    "one string": {"train": "4", "stops": "Baltimore - Lancaster - Philadelphia - New York"},
    "one string in a list": {"train": "4", "stops": ["Baltimore, Lancaster → Philadelphia – New York"]},
    "ids and names mixed": {"train": "4-0", "stops": ["I15._0", "Lancaster", "H18", "G19._0"]},
}
AS_PLAYERS_WRITE_FIVE = {
    "names": {"train": "5", "stops": ["Baltimore", "Atlantic City", "Philadelphia", "Reading", "Newark"]},
    "one chain": {"train": "5", "hexes": [["I15", "I17", "I19", "H18", "G17", "G19"]]},
}


FIVE_CHAIN = AS_PLAYERS_WRITE_FIVE["one chain"]["hexes"][0]


@pytest.fixture(scope="module")
def board():
    return default_state()  # the embedded board


def run(args):
    return subprocess.run(PY + args, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("route", AS_PLAYERS_WRITE_FOUR.values(), ids=AS_PLAYERS_WRITE_FOUR)
def test_a_route_as_players_write_it_is_the_solvers_route(board, route):
    verdict = api.check(board, [route])
    assert verdict["legal"] and verdict["revenue"] == 230
    assert verdict["routes"][0]["train"] == "4-0"
    assert verdict["routes"][0]["stops"] == FOUR["stops"]


@pytest.mark.parametrize("route", AS_PLAYERS_WRITE_FIVE.values(), ids=AS_PLAYERS_WRITE_FIVE)
def test_both_trains_as_players_write_them_earn_the_optimum(board, route):
    verdict = api.check(board, [route, AS_PLAYERS_WRITE_FOUR["hex ids"]])
    assert verdict["legal"] and verdict["revenue"] == 440 == api.solve(board)["revenue"]
    assert [r["stops"] for r in verdict["routes"]] == [FIVE["stops"], FOUR["stops"]]


def test_the_cli_checks_on_the_embedded_board_without_a_state():
    out = run(["check", "--routes", json.dumps([AS_PLAYERS_WRITE_FOUR["hex ids"]]), "--json"])
    assert out.returncode == 0, out.stderr
    verdict = json.loads(out.stdout)
    assert verdict["legal"] is True and verdict["revenue"] == 230
    text = run(["check", "--routes", '[{"train": "4", "stops": "Baltimore - Lancaster - Philadelphia - New York"}]'])
    assert text.returncode == 0, text.stderr
    assert "legal, 230  Baltimore (I15) - Lancaster (H16) - Philadelphia & Trenton (H18)" in text.stdout


@pytest.mark.parametrize("route", [AS_PLAYERS_WRITE_FOUR["one chain"], AS_PLAYERS_WRITE_FOUR["printed names"]])
def test_the_cli_takes_each_notation(route):
    out = run(["check", "--routes", json.dumps([route]), "--json"])
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["revenue"] == 230


def test_an_ambiguous_name_is_an_error_naming_both_choices_in_the_cli():
    out = run(["check", "--routes", '[{"train": "4", "stops": ["Baltimore", "New"]}]'])
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip() == (
        "error: routes[0].stops[1]: 'New' fits New Haven & Hartford (F20) and New York & Newark (G19); say which"
    )


def test_a_hex_whose_two_stops_both_fit_needs_the_stop_id(board):
    # G19._1 (New York) has track to both towns of F20 (New Haven & Hartford)
    with pytest.raises(RoutesError) as err:
        api.check(board, [{"train": "4", "stops": ["G19._1", "F20"]}])
    assert "fits two stops here, F20._0 and F20._1; name one" in str(err.value)
    assert err.value.field == "routes[0].stops[1]"
    for stop in ("F20._0", "F20._1"):
        verdict = api.check(board, [{"train": "4", "stops": ["G19._1", stop]}])
        assert verdict["routes"][0]["stops"] == ["G19._1", stop]


def test_a_train_by_name_is_the_first_of_that_name_no_route_has_taken(board):
    doc = copy.deepcopy(board)
    doc["trains"] = [dict(doc["trains"][0], id=f"4-{i}") for i in range(2)]
    two = api.check(doc, [{"train": "4", "stops": ["I15", "H16"]}, {"train": "4", "stops": ["G19._1", "F20._0"]}])
    assert [r["train"] for r in two["routes"]] == ["4-0", "4-1"]
    by_id_first = api.check(
        doc, [{"train": "4", "stops": ["I15", "H16"]}, {"train": "4-0", "stops": ["G19._1", "F20._0"]}]
    )
    assert [r["train"] for r in by_id_first["routes"]] == ["4-1", "4-0"]
    with pytest.raises(RoutesError, match=r"routes\[2\].train: train 4-0 has two routes"):
        api.check(
            doc, [{"train": "4", "stops": ["I15", "H16"]}, {"train": "4", "hexes": []}, {"train": "4", "hexes": []}]
        )


def test_an_unknown_train_names_the_companys_trains_by_id_and_name(board):
    with pytest.raises(RoutesError) as err:
        api.check(board, [{"train": "3", "stops": ["I15", "H16"]}])
    assert str(err.value) == "routes[0].train: unknown train '3' (this company runs: 4-0 (a 4), 5-0 (a 5))"


def test_names_ignore_accents_and_match_either_half(board):
    doc = copy.deepcopy(board)
    baltimore = next(h for h in doc["hexes"] if h["id"] == "I15")
    baltimore["location_name"] = "Brașov / Sfântu Gheorghe"
    for first in ("brasov", "Sfantu Gh", "BRAȘOV / SFÂNTU GHEORGHE"):
        verdict = api.check(doc, [{"train": "4", "stops": [first, "Lancaster", "H18", "G19"]}])
        assert verdict["revenue"] == 230, first


@pytest.mark.parametrize(
    ("stops", "message"),
    [
        (["I15", "I17"], "routes[0].stops[1]: hex I17 has no stop (no city, town or off-board)"),
        (["I15", "Q99._0"], "routes[0].stops[1]: hex 'Q99' is not on the board"),
        (["I15", "I15._3"], "routes[0].stops[1]: I15._3 is not a stop of hex I15"),
        (["I15", "Atlantis"], "routes[0].stops[1]: 'Atlantis' is not a stop id, a hex or a place on this board"),
        (["Baltimore", "New York"], "routes[0].stops: no track joins Baltimore and New York without another stop"),
        ([1, 2], "routes[0].stops must be a list of stops"),
    ],
)
def test_stops_that_fit_nothing_are_clear_errors(board, stops, message):
    with pytest.raises(RoutesError) as err:
        api.check(board, [{"train": "4", "stops": stops}])
    assert str(err.value).startswith(message)


def test_a_route_of_no_stops_is_still_an_illegal_route(board):
    verdict = api.check(board, [{"train": "4", "stops": []}])
    assert not verdict["legal"] and "a route needs at least two stops" in verdict["routes"][0]["errors"]


def test_a_chain_without_track_is_still_refused(board):
    with pytest.raises(RoutesError, match="no track runs from stop to stop along I15-H16-G19"):
        api.check(board, [{"train": "4", "hexes": [["I15", "H16", "G19"]]}])


@pytest.mark.parametrize(
    "stops",
    [["London", "B9"], "london - B9", ["A10", "B9._0"]],
    ids=["names", "one string", "hex ids"],
)
def test_a_stop_the_company_may_not_reach_is_an_illegal_route_however_written(stops):
    """1894 without a ferry marker: no run to London (see test_check.py), named or by hex."""
    doc = state("1894/green_city_upgrades@146")
    verdict = api.check(doc, [{"train": "2-1", "stops": stops}])
    assert not verdict["legal"]
    assert verdict["routes"][0]["errors"] == [
        "the company may not run to or through London (A10): it has no ferry marker"
    ]


# ---- the same over gRPC and HTTP --------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("notation"), "--workers", "1")
    yield srv
    srv.stop()


def test_grpc_checks_routes_as_players_write_them(server, board):
    text = json.dumps(board)
    with OptimizerClient(server.target) as client:
        verdict = client.check_json(text, [AS_PLAYERS_WRITE_FIVE["names"], AS_PLAYERS_WRITE_FOUR["one chain"]])
        assert verdict["legal"] and verdict["revenue"] == 440
        with pytest.raises(ServiceError) as err:
            client.check_json(text, [{"train": "4", "stops": ["Baltimore", "New"]}])
    assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT and err.value.field == "routes[0].stops[1]"
    assert "New Haven & Hartford (F20) and New York & Newark (G19)" in err.value.message
    with grpc.insecure_channel(server.target) as channel:  # the structured RouteInput form
        stub = pb_grpc.RouteOptimizerStub(channel)
        request = pb.CheckRoutesRequest(state_json=text)
        request.routes.add(train="4", stops=["Baltimore", "Lancaster", "Philadelphia", "New York"])
        answer = stub.CheckRoutes(request, timeout=30)
    assert answer.legal and answer.revenue == 230 and list(answer.routes[0].stops) == FOUR["stops"]


def _post(server, path, body):
    req = urllib.request.Request(
        server.http_url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


def test_http_checks_routes_as_players_write_them(server, board):
    routes = [{"train": "4", "stops": ["I15", "H16", "H18", "G19"]}, {"train": "5", "hexes": [{"hexes": FIVE_CHAIN}]}]
    status, got = _post(server, "/v1/check", {"board": board, "routes": routes})
    assert status == 200, got
    assert got["legal"] is True and got["revenue"] == "440"
    status, got = _post(server, "/v1/check", {"board": board, "routes": [{"train": "4", "stops": ["Phil", "New"]}]})
    assert status == 400 and "'New' fits New Haven & Hartford (F20) and New York & Newark (G19)" in got["message"]
