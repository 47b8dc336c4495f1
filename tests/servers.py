"""The service's real server processes for the end-to-end tests, and the fixtures that share them.

Loaded as a pytest plugin (``pytest_plugins`` in ``conftest.py``), so a test module asks for
``server``, ``client``, ``stub``, ``states`` or ``cli_answers`` by name without importing them; the
helpers (:class:`ServerProcess`, :func:`hard_board`, ...) are imported as functions. A module may
override ``server`` (another command line); ``client`` and ``stub`` then connect to its server.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from server.client import OptimizerClient
from server.generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc

from .corpus import state

# Real states of each game (in the corpus, and vendored in optimizer/boards/states.jsonl).
STATE_IDS = [
    "1830/26855@553",
    "1830/26855@584",
    "1880/1@349",
    "1880/1@835",
    "1880Romania/1880_romania_game_end_final_phase@200",
    "1894/green_city_upgrades@125",
    "1894/green_city_upgrades@146",
    "1894/green_city_upgrades@1086",
    "18EU/74045@467",
    "18EU/74045@591",
    "18EU/74045@779",
]
START_TIMEOUT_S = 30


# --- the server process -----------------------------------------------------------------------


class ServerProcess:
    """``python -m optimizer serve --port 0 ...`` in a child process; stderr (the call log) to a file."""

    def __init__(self, tmp_path: Path, *args, argv: list | None = None):
        """``argv`` replaces the whole command: another program that announces itself the same way."""
        self.log_path = tmp_path / f"server-{time.monotonic_ns()}.log"
        self._log = open(self.log_path, "w")
        argv = argv or [sys.executable, "-m", "optimizer", "serve", "--port", "0", "--http-port", "0", *args]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self._log, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], START_TIMEOUT_S)
        line = self.proc.stdout.readline() if ready else ""
        match = re.match(r"listening on (\S+):(\d+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"server did not start: {line!r}\n{self.log()}")
        self.host, self.port = match.group(1), int(match.group(2))
        self.target = f"{self.host}:{self.port}"
        http = re.search(r"HTTP on (http://\S+:\d+)/", line)
        self.http_url = http.group(1) if http else None  # None with --http-port off

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text()

    def pids(self) -> list:
        """The server's processes: the supervisor and its workers (or the one process)."""
        return [self.proc.pid] + children(self.proc.pid)

    def cpu_s(self) -> float:
        """CPU time the server's processes have used (user + system), from /proc."""
        return sum(cpu_s(pid) for pid in self.pids())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self._log.close()


def children(pid: int) -> list:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of one process, 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("grpc"), "--max-message-mb", "1", "--grace-s", "2")
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def client(server):
    with OptimizerClient(server.target) as c:
        yield c


@pytest.fixture(scope="module")
def stub(server):
    channel = grpc.insecure_channel(server.target)
    yield pb_grpc.RouteOptimizerStub(channel)
    channel.close()


@pytest.fixture(scope="module")
def states():
    return {i: state(i) for i in STATE_IDS}


@pytest.fixture(scope="module")
def cli_answers(states, tmp_path_factory):
    """What ``python -m optimizer solve --json`` answers for each state (one --batch run)."""
    batch = tmp_path_factory.mktemp("cli") / "states.jsonl"
    batch.write_text("".join(json.dumps(s) + "\n" for s in states.values()))
    run = subprocess.run(
        [sys.executable, "-m", "optimizer", "solve", "--batch", str(batch), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answers = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    return {a["id"]: a for a in answers}


def hard_board() -> dict:
    """A dense synthetic 1830 board (seed 5, 60% of the map laid) given six long trains: about
    20 s of exact search on one core, far beyond the deadlines these tests set. (A real late 1894
    board given 8 D trains served until the search proved it in 0.8 s; the same board with five
    trains until it was proven in 3.4 s.)"""
    from optimizer.bench.suites import TRAINS
    from optimizer.bench.synthetic import synthetic_board

    return synthetic_board(5, track=0.6, trains=TRAINS[5] + ("D",))


def details(err: grpc.RpcError) -> tuple:
    """(field violations [(field, description)], ErrorInfo metadata) of a failed call."""
    status = rpc_status.from_call(err)
    violations, metadata = [], {}
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            violations += [(v.field, v.description) for v in bad.field_violations]
        elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            metadata = dict(info.metadata)
    return violations, metadata


# How long a loaded machine may take to show what these tests wait for (a bound, not a measure: they
# go on as soon as it shows; the shared CI machine has slowed a server's step past a second).
SHOWS_WITHIN_S = 60.0


def cpu_while_and_after(server, stop, ended: str, busy_s: float = 0.1) -> tuple:
    """A call's work before and after ``stop()`` (the client going away), by events, not timings:
    waits until the server has used ``busy_s`` more CPU seconds (its work running) and checks that the
    call has not ended (no log line matches ``ended``); stops; waits for the server to log the call's
    end (``ended``: it noticed, and tripped the work's cancel token first); then returns the CPU seconds
    the server used in its last 0.5 s before ``stop()`` and in 0.5 s from that log line. However slow
    the machine, a search still running after it was cancelled keeps using CPU in that second window,
    and one stopped uses none."""
    start, begin = server.cpu_s(), time.monotonic()
    while server.cpu_s() - start < busy_s:
        assert time.monotonic() - begin < SHOWS_WITHIN_S, "the server used no CPU: its work is not running"
        time.sleep(0.02)
    before = server.cpu_s()
    time.sleep(0.5)
    busy = server.cpu_s() - before
    assert not re.search(ended, server.log()), "the call ended before its client went away"
    stop()
    begin = time.monotonic()
    while not re.search(ended, server.log()):
        assert time.monotonic() - begin < SHOWS_WITHIN_S, f"the server never logged {ended!r}"
        time.sleep(0.02)
    before = server.cpu_s()
    time.sleep(0.5)
    return busy, server.cpu_s() - before
