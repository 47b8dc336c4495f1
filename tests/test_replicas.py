"""Service replicas: one client, several real server processes, gRPC's own round_robin and health checks.

Each server logs one line per call (``/route18xx.v1.RouteOptimizer/Optimize OK ...``), so the
spread is read from the servers themselves, not from the client's idea of it. A replica that is up
but whose health service says NOT_SERVING (as an orchestrator's readiness probe would see it) is a
real server process too, with only its health status changed.
"""

from __future__ import annotations

import json
import re
import sys
import time

import pytest

from optimizer import api
from optimizer.bench.suites import VENDORED
from optimizer.cli import main
from server.client import OptimizerClient, channel_target

from .corpus import state
from .servers import ServerProcess

BOARD = "1830/26855@553"
OPTIMIZE = re.compile(r"/route18xx\.v1\.RouteOptimizer/Optimize (\w+)")

# A real server whose health service says NOT_SERVING: it would answer, but a client must not send it work.
NOT_SERVING_SERVER = """
import logging, sys, threading
from grpc_health.v1 import health_pb2
from server.runtime.listeners import GrpcListener
from server.runtime.config import ServeConfig
from server.translation.service import RouteOptimizerService
logging.basicConfig(level="INFO", stream=sys.stderr, format="%(name)s: %(message)s")
config = ServeConfig(port=0)
listener = GrpcListener(config, RouteOptimizerService(config.limits))
listener.start()
listener.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
print(f"listening on 127.0.0.1:{listener.port}", flush=True)
threading.Event().wait()
"""


class NotServingProcess(ServerProcess):
    def __init__(self, tmp_path):
        super().__init__(tmp_path, argv=[sys.executable, "-c", NOT_SERVING_SERVER])


def calls(server) -> int:
    """How many Optimize calls this server answered (its call log)."""
    last = -1
    for _ in range(25):  # the log line is written just after the answer is sent: wait until it settles
        count = sum(1 for m in OPTIMIZE.finditer(server.log()) if m.group(1) == "OK")
        if count == last:
            return count
        last = count
        time.sleep(0.2)
    return last


@pytest.fixture
def board():
    doc = state(BOARD)
    return json.dumps(doc), api.solve(doc)["revenue"]


@pytest.fixture
def replicas(tmp_path):
    servers = [ServerProcess(tmp_path, "--grace-s", "1") for _ in range(2)]
    yield servers
    for s in servers:
        s.stop()


def test_several_addresses_are_one_round_robin_target():
    assert channel_target("127.0.0.1:1") == "127.0.0.1:1"  # one name: gRPC's DNS resolver finds all its addresses
    assert channel_target("127.0.0.1:1, 127.0.0.1:2") == "ipv4:127.0.0.1:1,127.0.0.1:2"
    assert channel_target(["localhost:7", "127.0.0.1:8"]) in ("ipv4:127.0.0.1:7,127.0.0.1:8", "ipv6:[::1]:7")
    assert channel_target("[::1]:1,[::1]:2") == "ipv6:[::1]:1,[::1]:2"
    assert channel_target("dns:///replicas.example:50051") == "dns:///replicas.example:50051"
    with pytest.raises(ValueError, match="HOST:PORT"):
        channel_target("127.0.0.1:1,nonsense")


def test_client_spreads_calls_over_replicas_and_survives_one_stopping(replicas, board):
    text, revenue = board
    first, second = replicas
    calls_each = 20
    with OptimizerClient([first.target, second.target]) as client:
        answers = [client.optimize_json(text, deadline_ms=30_000)["revenue"] for _ in range(calls_each)]
        spread = (calls(first), calls(second))
        print(f"replica spread over {calls_each} calls: {spread}")
        assert answers == [revenue] * calls_each
        assert sum(spread) == calls_each and min(spread) >= calls_each // 2 - 2  # round robin: about half each
        first.stop()
        after = [client.optimize_json(text, deadline_ms=30_000)["revenue"] for _ in range(10)]
        assert after == [revenue] * 10
        assert calls(second) == spread[1] + 10


def test_not_serving_replica_gets_no_calls(tmp_path, board):
    text, revenue = board
    serving = ServerProcess(tmp_path)
    resting = NotServingProcess(tmp_path)
    try:
        with OptimizerClient(f"{serving.target},{resting.target}") as client:
            assert [client.optimize_json(text, deadline_ms=30_000)["revenue"] for _ in range(10)] == [revenue] * 10
        assert calls(serving) == 10 and calls(resting) == 0
        assert "Health/Watch" in resting.log()  # it was asked (and said NOT_SERVING), not just unreachable
    finally:
        serving.stop()
        resting.stop()


def test_bench_target_takes_several_replicas(replicas, capsys):
    status = main(["bench", str(VENDORED), "--target", ",".join(s.target for s in replicas), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0 and not summary["failures"] and summary["total"]["states"] > 0
    assert all(calls(s) > 0 for s in replicas)
