"""The gRPC service end to end: the real server in its own process, real corpus boards.

One server (``python -m optimizer serve --port 0``, the ``server`` fixture of ``tests/servers.py``)
serves most tests; shutdown and TLS get their own. Answers are compared with the CLI's
(``python -m optimizer solve --batch --json``) on the same states. The hard board (``hard_board``)
takes far longer to solve exactly than any deadline here, so a 600 ms deadline must cut it, and a
stream on it keeps a core busy until cancelled.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from optimizer import api
from server.client import OptimizerClient, ServiceError
from server.generated.route18xx.v1 import route_optimizer_pb2 as pb
from server.translation import convert

from .corpus import state
from .servers import ServerProcess, cpu_while_and_after, details, hard_board

SERVICE = "route18xx.v1.RouteOptimizer"


def human_routes(doc: dict) -> list:
    return [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"]["human"]["routes"]]


# --- answers the same as the CLI ----------------------------------------------------------------


def test_optimize_json_matches_cli(client, states, cli_answers):
    for state_id, doc in states.items():
        got = client.optimize_json(json.dumps(doc))
        want = cli_answers[state_id]
        assert (got["revenue"], got["optimal"]) == (want["revenue"], want["optimal"]), state_id
        assert got["id"] == state_id and got["bound"] == got["revenue"]
        assert sum(r["revenue"] for r in got["routes"]) == got["revenue"]
        assert all(r["stops"] and r["hexes"] for r in got["routes"])


def test_optimize_structured_board_matches_cli(stub, states, cli_answers):
    for state_id, doc in states.items():
        response = stub.Optimize(pb.OptimizeRequest(board=convert.state_to_board(doc)), timeout=30)
        want = cli_answers[state_id]
        assert (response.solution.revenue, response.solution.optimal) == (want["revenue"], want["optimal"]), state_id
        assert response.solution.stats.core and response.solution.stats.stops > 0


def test_optimize_stream_improves_then_matches_cli(client, states, cli_answers):
    for state_id, doc in states.items():
        updates = list(client.optimize_stream_json(json.dumps(doc)))
        final = updates[-1]
        assert final["final"] and not any(u["final"] for u in updates[:-1])
        assert (final["revenue"], final["optimal"]) == (cli_answers[state_id]["revenue"], True), state_id
        provisional = [u["revenue"] for u in updates[:-1]]
        assert provisional == sorted(set(provisional)), "each streamed solution is better than the last"
        assert all(not u["optimal"] and u["bound"] >= u["revenue"] for u in updates[:-1])
        # each carries the bound proven so far (never below the optimum) and the nodes searched
        assert all(u["bound"] >= final["revenue"] and u["stats"]["nodes"] > 0 for u in updates[:-1]), state_id


def test_check_routes_matches_api_and_engine(client, stub, states, cli_answers):
    for state_id, doc in states.items():
        routes = human_routes(doc)
        got = client.check_json(json.dumps(doc), routes)
        want = api.check(doc, routes)  # what `python -m optimizer check --json` prints
        assert got["legal"] == want["legal"] and got["revenue"] == want["revenue"], state_id
        assert [(r["train"], r["legal"], r["revenue"], r["paid"], r["errors"]) for r in got["routes"]] == [
            (r["train"], r["legal"], r["revenue"], r["paid"], r["errors"]) for r in want["routes"]
        ]
        assert got["legal"] and got["revenue"] == doc["expected"]["human_recheck"], state_id
        # The same routes as structured messages on a structured board.
        request = pb.CheckRoutesRequest(
            board=convert.state_to_board(doc),
            routes=[pb.RouteInput(train=r["train"], hexes=[pb.HexChain(hexes=c) for c in r["hexes"]]) for r in routes],
        )
        assert convert.check_to_json(stub.CheckRoutes(request, timeout=30)) == got


def test_check_routes_with_optimum_and_reasons(client, states, cli_answers):
    doc = states["1830/26855@553"]
    answer = client.check_json(json.dumps(doc), human_routes(doc), with_optimum=True)
    assert answer["optimum"]["revenue"] == cli_answers[doc["id"]]["revenue"]
    assert answer["optimum"]["optimal"] and answer["optimum"]["revenue"] >= answer["revenue"]
    # Two trains on the same track: illegal, with the reason in plain words.
    first, second = human_routes(doc)
    verdict = client.check_json(json.dumps(doc), [first, dict(first, train=second["train"])])
    assert verdict["legal"] is False and verdict["routes"][1]["errors"]


def test_check_routes_is_illegal_when_any_route_is(client, stub):
    """Rulebook (18EU): the Pullman "Doubles the value of any one City or Off-Map Location on one
    train's run"; a Pullman given a route of its own makes the set illegal over the wire too."""
    doc = state("18EU/74045@779")
    routes = [human_routes(doc)[0], {"train": "P-2", "hexes": [["F9", "E8", "E6"]]}]
    assert client.check_json(json.dumps(doc), routes)["legal"] is False
    request = pb.CheckRoutesRequest(
        board=convert.state_to_board(doc),
        routes=[pb.RouteInput(train=r["train"], hexes=[pb.HexChain(hexes=c) for c in r["hexes"]]) for r in routes],
    )
    response = stub.CheckRoutes(request, timeout=30)
    assert response.legal is False and response.routes[1].errors == ["the P train does not run a route of its own"]


def test_list_games(client):
    assert client.list_games() == api.games()
    assert client.train_kinds() == list(api.TRAIN_KINDS)


# --- deadlines and cancellation -----------------------------------------------------------------


def test_deadline_answers_best_so_far(client):
    answer = client.optimize_json(json.dumps(hard_board()), deadline_ms=600)  # else DEADLINE_EXCEEDED
    assert answer["stats"]["stopped_by"] == "deadline", "the hard board should take longer than 0.6 s"
    assert answer["optimal"] is False
    assert answer["routes"] and answer["revenue"] > 0 and answer["bound"] >= answer["revenue"]
    final = list(client.optimize_stream_json(json.dumps(hard_board()), deadline_ms=600))[-1]
    assert final["final"] and not final["optimal"] and final["revenue"] > 0


def test_cancelled_stream_stops_the_search(client, server):
    stream = client.optimize_stream_json(json.dumps(hard_board()))
    assert not next(stream)["final"]
    # closing cancels the call; the server logs it cancelled once its work is told to stop
    busy, idle = cpu_while_and_after(server, stream.close, r"/route18xx\.v1\.RouteOptimizer/OptimizeStream CANCELLED")
    print(f"server CPU in 0.5 s: {busy:.2f} s while searching, {idle:.2f} s after cancelling")
    # a search still running keeps using about what it used before (busy); the server's own threads, a
    # little on a loaded machine
    assert idle < max(0.05, busy / 3), f"the search should have stopped: {idle:.2f} s of CPU after, {busy:.2f} before"


# --- bad input ----------------------------------------------------------------------------------


def _first_hex(doc, predicate=lambda h: True) -> int:
    return next(i for i, h in enumerate(doc["hexes"]) if predicate(h))


def _unknown_neighbour(doc):
    i = _first_hex(doc, lambda h: h.get("neighbors"))
    edge = next(iter(doc["hexes"][i]["neighbors"]))
    doc["hexes"][i]["neighbors"][edge] = "Q99"
    return f"hexes[{i}].neighbors.{edge}", doc["hexes"][i]["id"]


def _rotation_7(doc):
    i = _first_hex(doc)
    doc["hexes"][i]["rotation"] = 7
    return f"hexes[{i}].rotation", doc["hexes"][i]["id"]


def _bad_tile_code(doc):
    i = _first_hex(doc)
    doc["hexes"][i]["code"] = "city=revenue:lots;path=a:9,b:_0"
    return f"hexes[{i}].code", doc["hexes"][i]["id"]


def _token_on_missing_city(doc):
    i = _first_hex(doc, lambda h: h.get("cities"))
    doc["hexes"][i]["cities"][0]["index"] = 7
    return f"hexes[{i}].cities[0].index", doc["hexes"][i]["id"]


def _neighbours_on_some_hexes(doc):
    i = _first_hex(doc, lambda h: h["id"] == "D16")
    del doc["hexes"][i]["neighbors"]  # as a structured board: D16's map left empty
    return f"hexes[{i}].neighbors", "D16"


BAD_BOARDS = {
    "unknown hex": _unknown_neighbour,
    "rotation 7": _rotation_7,
    "bad tile code": _bad_tile_code,
    "token on a missing city": _token_on_missing_city,
    "neighbours on some hexes": _neighbours_on_some_hexes,
}


@pytest.mark.parametrize("form", ["state_json", "board"])
@pytest.mark.parametrize("kind", list(BAD_BOARDS))
def test_malformed_board_is_invalid_argument_naming_field_and_hex(stub, states, kind, form):
    doc = json.loads(json.dumps(states["1830/26855@553"]))
    field, hex_id = BAD_BOARDS[kind](doc)
    request = (
        pb.OptimizeRequest(state_json=json.dumps(doc))
        if form == "state_json"
        else pb.OptimizeRequest(board=convert.state_to_board(doc))
    )
    with pytest.raises(grpc.RpcError) as caught:
        stub.Optimize(request, timeout=30)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    violations, metadata = details(caught.value)
    assert violations[0][0] == field and hex_id in violations[0][1]
    assert metadata == {"field": field, "hex": hex_id}


def test_train_without_distance(stub, client, states):
    doc = json.loads(json.dumps(states["1830/26855@553"]))
    board = convert.state_to_board(doc)
    board.trains[0].ClearField("distance")
    with pytest.raises(grpc.RpcError) as caught:
        stub.Optimize(pb.OptimizeRequest(board=board), timeout=30)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert details(caught.value)[0][0][0] == "trains[0].distance"
    del doc["trains"][0]["distance"]
    with pytest.raises(ServiceError) as err:
        client.optimize_json(json.dumps(doc))
    assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.field.startswith("trains[0]") and "distance" in err.value.message


def test_distance_with_both_stops_and_rows(stub, states):
    """The proto: "Set exactly one." Both set is INVALID_ARGUMENT naming the field, as a structured
    board and as a document (whose distance is a number or rows, never an object)."""
    doc = json.loads(json.dumps(states["1830/26855@553"]))
    board = convert.state_to_board(doc)
    board.trains[0].distance.rows.add(nodes=["city"], pay=2, visit=2)
    doc["trains"][0]["distance"] = {
        "stops": doc["trains"][0]["distance"],
        "rows": [{"nodes": ["city"], "pay": 2, "visit": 2}],
    }
    for request in (pb.OptimizeRequest(board=board), pb.OptimizeRequest(state_json=json.dumps(doc))):
        with pytest.raises(grpc.RpcError) as caught:
            stub.Optimize(request, timeout=30)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert details(caught.value)[0][0][0] == "trains[0].distance"


@pytest.mark.parametrize(
    "text, field",
    [
        ('{"game": "1830", "hexes": [', "state_json"),  # malformed JSON text
        ("/etc/hostname", "state_json"),  # never read as a file on the server
        ("[1, 2]", "state_json"),
        ('{"a":' * 100000, "state_json"),  # too deep for the parser
        (
            '{"game": "1830", "layout": "pointy", "phase": {"tiles": ["yellow"]}, "corporation": {"id": "PRR"}, '
            '"trains": 5, "hexes": [{"id": "A1", "code": ""}]}',
            "trains",
        ),  # wrong type
        ('{"game": "1831", "phase": "5", "lays": [], "trains": ["D"], "company": "PRR"}', "game"),  # unknown game
        ('{"game": "1830", "phase": "5", "lays": [], "trains": 5, "company": "PRR"}', None),  # wrong type, tile lays
        (
            '{"game": "1830", "phase": "5", "lays": [{"hex": "F20", "tile": "57", "rotation": 7}], "company": "PRR"}',
            "lays[0].rotation",
        ),
    ],
)
def test_malformed_json_is_invalid_argument(client, text, field):
    with pytest.raises(ServiceError) as err:
        client.optimize_json(text)
    assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT, err.value
    assert err.value.violations and (field is None or err.value.field == field), err.value.violations


def test_bad_requests_are_invalid_argument(stub, client, states):
    doc = states["1830/26855@553"]
    cases = [
        (stub.Optimize, pb.OptimizeRequest(), "source"),
        (stub.CheckRoutes, pb.CheckRoutesRequest(state_json=json.dumps(doc), routes_json="[{"), "routes_json"),
        (
            stub.CheckRoutes,
            pb.CheckRoutesRequest(state_json=json.dumps(doc), routes_json='{"train": "x"}'),
            "routes_json",
        ),
        (
            stub.CheckRoutes,
            pb.CheckRoutesRequest(state_json=json.dumps(doc), routes_json='[{"train": "nope"}]'),
            "routes[0].train",
        ),
    ]
    for method, request, field in cases:
        with pytest.raises(grpc.RpcError) as caught:
            method(request, timeout=30)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, request
        assert details(caught.value)[0][0][0] == field


def test_oversized_request_is_resource_exhausted(client, server):
    with pytest.raises(ServiceError) as err:
        client.optimize_json('{"padding": "' + "x" * (2 * 1024 * 1024) + '"}')  # the server takes 1 MiB
    assert err.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_server_stays_up_and_logs_each_call(client, server, states):
    with pytest.raises(ServiceError):
        client.optimize_json('{"not": "a board"}')
    assert client.optimize_json(json.dumps(states["1830/26855@553"]))["optimal"]
    assert client.health() == "SERVING" and client.health(SERVICE) == "SERVING"
    assert server.proc.poll() is None
    log = server.log()
    assert re.search(r"/route18xx\.v1\.RouteOptimizer/Optimize OK \d+\.\d ms", log)
    assert re.search(r"/route18xx\.v1\.RouteOptimizer/Optimize INVALID_ARGUMENT \d+\.\d ms", log)
    assert "INTERNAL" not in log and "UNKNOWN" not in log and "Traceback" not in log


# --- health, reflection, shutdown, TLS ----------------------------------------------------------


def test_reflection_lists_the_service(server):
    with grpc.insecure_channel(server.target) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        services = database.get_services()
        assert SERVICE in services and "grpc.health.v1.Health" in services
        proto = database.FindFileContainingSymbol(SERVICE)
        assert [m.name for m in proto.service[0].method] == ["Optimize", "OptimizeStream", "CheckRoutes", "ListGames"]


def test_sigterm_sets_not_serving_then_drains(tmp_path):
    srv = ServerProcess(tmp_path, "--grace-s", "1")
    try:
        with grpc.insecure_channel(srv.target) as channel, OptimizerClient(srv.target) as busy:
            watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service=""), timeout=30)
            assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
            search = busy.optimize_stream_json(json.dumps(hard_board()))  # a call in flight (seconds)
            next(search)
            srv.proc.send_signal(signal.SIGTERM)
            assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
            assert srv.proc.wait(timeout=15) == 0  # the search (seconds long) was cancelled after the grace
            with pytest.raises(ServiceError):
                list(search)
    finally:
        srv.stop()
    assert "stopping: health NOT_SERVING" in srv.log()


def test_port_in_use_is_an_error(server):
    run = subprocess.run(
        [sys.executable, "-m", "optimizer", "serve", "--port", str(server.port)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "error: cannot listen on" in run.stderr and not run.stdout


def test_tls(tmp_path, states):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        check=True,
        capture_output=True,
    )
    srv = ServerProcess(tmp_path, "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        with OptimizerClient(srv.target, tls_root_cert=str(cert)) as secure:
            assert secure.health() == "SERVING"
            assert secure.optimize_json(json.dumps(states["1830/26855@553"]))["optimal"]
        with OptimizerClient(srv.target) as plain, pytest.raises(ServiceError) as err:
            plain.health()
        assert err.value.code == grpc.StatusCode.UNAVAILABLE
    finally:
        srv.stop()
