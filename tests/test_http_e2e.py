"""HTTP/JSON end to end: a real ``route18xx serve`` process, plain HTTP requests, real corpus boards.

Every answer is compared with the gRPC answer of the same server process, in the proto3 JSON
mapping: the gateway translates only, so they must be the same (bar the wall times).
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request

import grpc
import pytest
from google.protobuf import json_format

from server.generated.route18xx.v1 import route_optimizer_pb2 as pb

from .servers import ServerProcess, cpu_while_and_after, hard_board
from .titles import BUILT_IN_TITLES, GAMES

ORIGIN = "http://client.example"
# per call: without X-Deadline-Ms, the default; a stage's time is left out of the JSON when it is 0
TIMES = ("elapsedMs", "searchMs", "readMs", "graphMs", "encodeMs", "deadlineMs", "deadlineFrom")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("http"), "--max-message-mb", "1", "--cors-origin", ORIGIN)
    yield srv
    srv.stop()


def request(server, path: str, body=None, *, headers=None, method=None, raw: bytes | None = None):
    """(HTTP status, headers, body text) of one request; JSON bodies are sent as they are given."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(
        server.http_url + path,
        data=data,
        method=method,
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as answer:
            return answer.status, answer.headers, answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read().decode()


def post(server, path: str, body, **kwargs) -> tuple:
    status, _, text = request(server, path, body, **kwargs)
    return status, json.loads(text)


def as_json(message) -> dict:
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def without_times(obj):
    """A JSON answer without its wall times (they differ from call to call)."""
    if isinstance(obj, dict):
        return {k: without_times(v) for k, v in obj.items() if k not in TIMES}
    if isinstance(obj, list):
        return [without_times(v) for v in obj]
    return obj


def violation(status_body: dict) -> str:
    """The field named by a google.rpc.Status JSON body's BadRequest detail."""
    for detail in status_body.get("details", []):
        if detail["@type"].endswith("google.rpc.BadRequest"):
            return detail["fieldViolations"][0]["field"]
    raise AssertionError(f"no BadRequest detail in {status_body}")


def input_only(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "expected"}


# --- the same answers as gRPC -------------------------------------------------------------------


def test_optimize_state_json_is_the_grpc_answer(server, stub, states):
    for state_id, doc in states.items():
        text = json.dumps(input_only(doc))
        status, got = post(server, "/v1/optimize", {"stateJson": text})
        assert status == 200, got
        want = as_json(stub.Optimize(pb.OptimizeRequest(state_json=text), timeout=30))
        assert without_times(got) == without_times(want), state_id
        assert got["solution"]["optimal"] is True and got["solution"]["revenue"] == got["solution"]["bound"]


def test_board_document_as_it_is_reads_as_board(server, states):
    """``{"board": <document>}``: integer and row distances, null token slots and the corpus's answer
    fields (``expected``, ``exits``, ``nodes``, ``paths``) all in a real document."""
    for state_id, doc in states.items():
        assert any(
            None in c.get("tokens", []) + c.get("reservations", []) for h in doc["hexes"] for c in h.get("cities", [])
        ) or state_id.startswith("1880"), state_id
        status, by_board = post(server, "/v1/optimize", {"board": doc})
        assert status == 200, (state_id, by_board)
        _, by_text = post(server, "/v1/optimize", {"state_json": json.dumps(doc)})  # snake_case accepted
        assert without_times(by_board) == without_times(by_text), state_id


def test_list_games(server, stub):
    status, got = post(server, "/v1/games", None, method="GET")
    assert status == 200
    assert {g["title"] for g in got["games"]} == BUILT_IN_TITLES
    assert {g["title"]: g["rules"] for g in got["games"]}["1846"] == "data"
    assert got == as_json(stub.ListGames(pb.ListGamesRequest(), timeout=10))


def test_stream_is_ndjson_of_improvements(server, stub, states):
    doc = states["1830/26855@553"]
    status, headers, text = request(server, "/v1/optimize:stream", {"board": doc})
    assert status == 200 and headers["Content-Type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[-1]["final"] is True and not any(line["final"] for line in lines[:-1])
    revenues = [int(line["solution"]["revenue"]) for line in lines[:-1]]
    assert revenues == sorted(set(revenues)) and len(revenues) > 1
    want = list(stub.OptimizeStream(pb.OptimizeStreamRequest(state_json=json.dumps(doc)), timeout=30))
    assert without_times(lines[-1]) == without_times(as_json(want[-1]))
    assert lines[-1]["solution"]["revenue"] == "440"


def test_check_routes_gives_the_reason_and_the_optimum(server, stub, states):
    doc = states["1830/26855@553"]
    routes = [
        {"train": "4-0", "hexes": [{"hexes": ["I15", "H16"]}, {"hexes": ["H16", "H18"]}]},
        {"train": "5-0", "hexes": [{"hexes": ["H18", "H16"]}]},
    ]
    body = {"stateJson": json.dumps(doc), "routes": routes, "withOptimum": True}
    status, got = post(server, "/v1/check", body)
    assert status == 200, got
    assert got["legal"] is False and got["routes"][0]["legal"] is True and got["routes"][0]["revenue"] == "150"
    assert got["routes"][1]["errors"] == ["route 2 uses the side between H16 and H18 that route 1 already uses"]
    assert got["optimum"]["revenue"] == "440"
    request_pb = json_format.ParseDict(body, pb.CheckRoutesRequest())
    assert without_times(got) == without_times(as_json(stub.CheckRoutes(request_pb, timeout=30)))


# --- errors as google.rpc.Status ----------------------------------------------------------------


@pytest.mark.parametrize("form", ["stateJson", "board"])
def test_rotation_9_is_400_naming_the_field(server, states, form):
    doc = input_only(states["1830/26855@553"])
    doc["hexes"][12]["rotation"] = 9
    status, got = post(server, "/v1/optimize", {form: json.dumps(doc) if form == "stateJson" else doc})
    assert status == 400 and got["code"] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert violation(got) == "hexes[12].rotation" and "hexes[12].rotation" in got["message"]


@pytest.mark.parametrize(
    "body, field",
    [
        (b"{not json", "(body)"),
        (b"[1, 2]", "(body)"),
        (b'{"stateJson": 5}', "stateJson"),
        (b'{"bogus": 1}', "bogus"),
        (
            b'{"board": {"game": "1830", "hexes": [{"id": "A1"}, {"id": "A3", "rotation": "north"}]}}',
            "hexes[1].rotation",
        ),
        (b'{"board": {"trains": [{"name": "4", "distance": "far"}]}}', "trains[0].distance"),
    ],
)
def test_request_that_is_not_the_message_is_400_naming_the_field(server, body, field):
    status, _, text = request(server, "/v1/optimize", raw=body)
    got = json.loads(text)
    assert status == 400 and got["code"] == 3 and violation(got) == field, got


def connection(server) -> http.client.HTTPConnection:
    host, port = server.http_url.split("//")[1].rsplit(":", 1)
    return http.client.HTTPConnection(host, int(port), timeout=60)


@pytest.mark.parametrize(
    "method, path, status, code",
    [
        ("GET", "/v1/nothing", 404, grpc.StatusCode.NOT_FOUND),
        ("GET", "/v1/optimize", 405, grpc.StatusCode.UNIMPLEMENTED),
    ],
)
def test_unknown_path_or_method_is_a_status_too(server, method, path, status, code):
    got_status, _, text = request(server, path, method=method)
    assert got_status == status and json.loads(text)["code"] == code.value[0]


def test_oversized_body_is_413_before_it_is_read(server):
    """Refused on its Content-Length (the server's --max-message-mb is 1), before the body is sent."""
    conn = connection(server)
    conn.putrequest("POST", "/v1/optimize")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(1100 * 1024))
    conn.putheader("Expect", "100-continue")
    conn.endheaders()
    answer = conn.getresponse()
    assert answer.status == 413 and json.loads(answer.read())["code"] == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
    conn.close()


def test_deadline_header_is_the_search_deadline(server):
    """As over gRPC: the best routes so far shortly before the deadline, or 504 with none."""
    start = time.monotonic()
    status, got = post(server, "/v1/optimize", {"board": hard_board()}, headers={"X-Deadline-Ms": "600"})
    took = time.monotonic() - start
    assert status == 200 and got["solution"]["optimal"] is False, got
    assert got["solution"]["stats"]["stoppedBy"] == "deadline" and int(got["solution"]["revenue"]) > 0
    assert int(got["solution"]["bound"]) > int(got["solution"]["revenue"])
    assert took < 1.5
    status, got = post(server, "/v1/optimize", {"board": hard_board()}, headers={"X-Deadline-Ms": "1"})
    assert status == 504 and got["code"] == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]
    status, got = post(server, "/v1/optimize", {"board": hard_board()}, headers={"X-Deadline-Ms": "soon"})
    assert status == 400 and violation(got) == "X-Deadline-Ms"


def test_stream_ends_its_search_when_the_client_goes_away(server):
    conn = connection(server)
    conn.request(
        "POST",
        "/v1/optimize:stream",
        body=json.dumps({"board": hard_board()}).encode(),
        headers={"Content-Type": "application/json"},
    )
    answer = conn.getresponse()
    assert answer.status == 200 and json.loads(answer.readline())["final"] is False
    # the client goes away mid-stream; the server logs the call cancelled once it has noticed
    busy, idle = cpu_while_and_after(server, conn.close, r"HTTP OptimizeStream CANCELLED")
    print(f"server CPU in 0.5 s: {busy:.2f} s while searching, {idle:.2f} s after the client left")
    # a search still running keeps using about what it used before (busy); the server's own threads, a
    # little on a loaded machine
    assert idle < max(0.05, busy / 3), f"the search should have stopped: {idle:.2f} s of CPU after, {busy:.2f} before"


# --- CORS, health, the page ---------------------------------------------------------------------


def test_cors_for_the_allowed_origin_only(server):
    preflight = {
        "Origin": ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-deadline-ms",
    }
    status, headers, _ = request(server, "/v1/optimize", method="OPTIONS", headers=preflight)
    assert status == 200 and headers["Access-Control-Allow-Origin"] == ORIGIN
    status, headers, _ = request(server, "/v1/games", method="GET", headers={"Origin": ORIGIN})
    assert status == 200 and headers["Access-Control-Allow-Origin"] == ORIGIN
    status, headers, _ = request(server, "/v1/games", method="GET", headers={"Origin": "http://other.example"})
    assert status == 200 and "Access-Control-Allow-Origin" not in headers


def test_http_port_in_use_is_an_error(server):
    port = server.http_url.rsplit(":", 1)[1]
    run = subprocess.run(
        [sys.executable, "-m", "optimizer", "serve", "--port", "0", "--http-port", port],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and f"cannot listen on 127.0.0.1:{port} for HTTP" in run.stderr and not run.stdout


def test_healthz(server):
    status, _, text = request(server, "/healthz", method="GET")
    assert status == 200 and json.loads(text) == {"status": "SERVING"}


def test_page_and_its_files_are_served(server):
    status, headers, text = request(server, "/", method="GET")
    assert status == 200 and headers["Content-Type"].startswith("text/html") and '<script type="module"' in text
    status, headers, text = request(server, "/static/app.js", method="GET")
    assert status == 200 and "javascript" in headers["Content-Type"] and "/v1/check" in text
    status, _, text = request(server, "/page/examples", method="GET")
    examples = json.loads(text)
    assert {e["game"] for e in examples} == GAMES and examples[0]["name"] == "default"
    status, headers, svg = request(
        server, "/page/render", {"board": json.loads(request(server, "/page/examples/default", method="GET")[2])}
    )
    assert status == 200 and headers["Content-Type"].startswith("image/svg+xml") and 'data-hex="G19"' in svg
    status, _, text = request(server, "/page/render", {"board": {"game": "1830"}})
    assert status == 400 and json.loads(text)["code"] == 3
