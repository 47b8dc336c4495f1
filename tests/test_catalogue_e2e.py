"""Boards only the engine's tolerance reads, answered by a real server (gRPC and HTTP) as in process.

One state of each kind the reader once refused: a hex cut off on every edge and future track
(1844), rows without ``visit`` and edge 6 (18Neb), lower-case hex ids (1849), colours in tile codes
(1873), a hex listed twice (18Rhl), a missing ``;`` (1840), grain rows (1822CAWRS). Each is sent as a
structured ``Board``, as ``state_json`` and as HTTP's ``{"board": <document>}``; every form answers
the revenue and routes the API answers in process.
"""

from __future__ import annotations

import json
import urllib.request

import grpc
import pytest

from optimizer import api
from server.generated.route18xx.v1 import route_optimizer_pb2 as pb
from server.generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc
from server.translation import convert

from .corpus import catalogue_states
from .test_grpc_e2e import ServerProcess

PICKS = (
    "1844/160062@99",
    "18Neb/18Neb_game_end_bank@438",
    "1849/1849_game_end_bank@57",
    "1873/hs_gwlftpex_33770@1141",
    "18Rhl/18Rhl_game_end_bank@354",
    "1840/218809@123",
    "1822CAWRS/1822CAWRS_game_end_bank@1058",
)
STATES = {s["id"]: s for s in catalogue_states() if s["id"] in PICKS}
pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("catalogue"))
    yield srv
    srv.stop()


def _routes(answer: dict) -> list:
    return sorted((r["train"], r["revenue"]) for r in answer["routes"])


@pytest.mark.parametrize("state_id", PICKS)
def test_a_newly_read_board_answers_alike_over_grpc_and_http(server, state_id):
    if state_id not in STATES:
        pytest.skip("no corpus here (not under CI)")
    doc = STATES[state_id]
    expected = api.solve(json.dumps(doc))
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.RouteOptimizerStub(channel)
        for request in (
            pb.OptimizeRequest(board=convert.state_to_board(doc)),
            pb.OptimizeRequest(state_json=json.dumps(doc)),
        ):
            answer = stub.Optimize(request, timeout=60).solution
            assert answer.revenue == expected["revenue"], state_id
            assert sorted((r.train, r.revenue) for r in answer.routes) == _routes(expected), state_id
    body = json.dumps({"board": doc}).encode()
    req = urllib.request.Request(
        server.http_url + "/v1/optimize", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=60) as reply:
        answer = json.loads(reply.read())["solution"]
    assert int(answer.get("revenue", 0)) == expected["revenue"], state_id
    assert sorted((r["train"], int(r.get("revenue", 0))) for r in answer["routes"]) == _routes(expected)
