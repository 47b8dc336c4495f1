"""Every answer says what of its title's rules we do not model (issue 27): the ``unsupported`` list of
``optimizer/games/coverage.json``, in the API's answer, the CLI, ListGames and the answers over gRPC
and HTTP, so that no answer on a known title passes a wrong number silently."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

import grpc
import pytest

from optimizer import api
from optimizer.cli.solve import default_state
from optimizer.games.coverage import known_title, known_titles, unsupported_rules
from server.generated.route18xx.v1 import route_optimizer_pb2 as pb
from server.generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc

from .corpus import require_corpus
from .servers import ServerProcess

TRAIN_BASES = unsupported_rules("21Moon")


def board_of(title: str) -> dict:
    """The embedded 1830 board under another title: read the same, ruled as that title's."""
    return {**default_state(), "game": title}


def test_every_line_cites_the_engine():
    lines = [line for title in known_titles() for line in unsupported_rules(title)]
    assert lines, "the registry names no unsupported rule at all"
    for line in lines:
        assert "lib/engine/game/g_" in line and "#" in line, line


def test_every_catalogue_title_is_known():
    root = require_corpus()
    if root is None:
        pytest.skip("no corpus beside the project")
    titles = [json.loads(p.read_text())["title"] for p in sorted((root / "catalog" / "games").glob("*.json"))]
    assert len(titles) == 99
    assert [t for t in titles if known_title(t) is None] == []


def test_the_answer_names_what_is_unsupported():
    assert TRAIN_BASES and "check_route_combination" in TRAIN_BASES[0]
    answer = api.solve(board_of("21Moon"))
    assert answer["rules"] == "generic" and answer["unsupported"] == list(TRAIN_BASES)
    assert api.solve(board_of("21moon"))["unsupported"] == list(TRAIN_BASES)  # titles match ignoring case
    default = api.solve(default_state())
    assert default["rules"] == "1830" and default["unsupported"] == [] and default["revenue_rules"] == []
    assert api.solve(board_of("No Such Game"))["unsupported"] == []  # unknown: "generic" says it all


def test_the_answer_names_the_families_applied():
    answer = api.solve(board_of("1852: Missouri"))
    assert "one_stop_per_hex" in answer["revenue_rules"]


def test_listings_say_per_title():
    built_in = {g["title"]: g for g in api.games()}
    assert built_in["1830"]["unsupported"] == []
    others = {t["title"]: t for t in api.other_titles()}
    assert others["21Moon"] == {"title": "21Moon", "rules": "generic", "unsupported": list(TRAIN_BASES)}
    assert not set(others) & set(built_in)


def test_cli_solve_and_games(tmp_path):
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board_of("21Moon")))
    cmd = [sys.executable, "-m", "optimizer"]
    text = subprocess.run([*cmd, "solve", str(path)], capture_output=True, text=True, timeout=120)
    assert text.returncode == 0, text.stderr
    assert f"unsupported here: {TRAIN_BASES[0]}" in text.stdout
    listing = subprocess.run([*cmd, "games", "--json"], capture_output=True, text=True, timeout=120)
    assert listing.returncode == 0, listing.stderr
    others = {t["title"]: t["unsupported"] for t in json.loads(listing.stdout)["other_titles"]}
    assert others["21Moon"] == list(TRAIN_BASES)
    table = subprocess.run([*cmd, "games"], capture_output=True, text=True, timeout=120).stdout
    assert f"21Moon\n  unsupported: {TRAIN_BASES[0]}" in table


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("coverage"))
    yield srv
    srv.stop()


def test_grpc_and_http(server):
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.RouteOptimizerStub(channel)
        solved = stub.Optimize(pb.OptimizeRequest(state_json=json.dumps(board_of("21Moon"))), timeout=60)
        assert list(solved.solution.unsupported) == list(TRAIN_BASES)
        assert solved.solution.rules == "generic"
        games = stub.ListGames(pb.ListGamesRequest(), timeout=30)
    assert {t.title: list(t.unsupported) for t in games.other_titles}["21Moon"] == list(TRAIN_BASES)
    body = json.dumps({"board": board_of("21Moon")}).encode()
    request = urllib.request.Request(
        server.http_url + "/v1/optimize", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        answer = json.loads(response.read())
    assert answer["solution"]["unsupported"] == list(TRAIN_BASES)
    with urllib.request.urlopen(server.http_url + "/v1/games", timeout=30) as response:
        listing = json.loads(response.read())
    assert {t["title"]: t["unsupported"] for t in listing["otherTitles"]}["21Moon"] == list(TRAIN_BASES)
