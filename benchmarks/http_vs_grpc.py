"""Optimize over HTTP/JSON beside gRPC, on the same server process and the same boards, in one run.

    python benchmarks/http_vs_grpc.py                 # every corpus state, 4 clients, 2 rounds
    python benchmarks/http_vs_grpc.py --clients 1 --rounds 1 --limit 100

Starts ``route18xx serve`` on free ports, then sends every corpus state (input fields only, as
``state_json``) over each transport in turn, ``--clients`` calls in flight, alternating gRPC and
HTTP for ``--rounds`` rounds. HTTP clients keep their connection open (as gRPC does). Prints calls
per second and latency percentiles of each transport, and checks both found the same revenue for
every state; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server.generated.route18xx.v1 import route_optimizer_pb2 as pb  # noqa: E402
from server.generated.route18xx.v1 import route_optimizer_pb2_grpc as pb_grpc  # noqa: E402

ANSWER_FIELDS = ("expected", "game_key", "fixture", "action_id", "engine_commit")


def corpus_states(limit: int | None) -> list:
    """(id, JSON text of the input fields) of every corpus state, or of the vendored ones."""
    corpus = Path(os.environ.get("OPTIMIZER_CORPUS") or ROOT.parent / "shared" / "corpus")
    files = sorted((corpus / "states").glob("*/*.jsonl")) or [ROOT / "optimizer" / "boards" / "states.jsonl"]
    out = []
    for f in files:
        for line in f.open():
            if line.strip():
                doc = json.loads(line)
                out.append((doc["id"], json.dumps({k: v for k, v in doc.items() if k not in ANSWER_FIELDS})))
    return out[:limit]


def start_server():
    proc = subprocess.Popen(
        [sys.executable, "-m", "optimizer", "serve", "--port", "0", "--http-port", "0", "--log-level", "warning"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    match = re.match(r"listening on (\S+):(\d+), HTTP on http://(\S+):(\d+)/", proc.stdout.readline())
    if not match:
        proc.kill()
        raise SystemExit("the server did not start")
    return proc, f"{match.group(1)}:{match.group(2)}", (match.group(3), int(match.group(4)))


class GrpcCaller:
    def __init__(self, target: str):
        self.channel = grpc.insecure_channel(target)
        self.stub = pb_grpc.RouteOptimizerStub(self.channel)

    def __call__(self, text: str) -> int:
        return self.stub.Optimize(pb.OptimizeRequest(state_json=text), timeout=60).solution.revenue


class HttpCaller:
    """One kept-alive connection per client thread."""

    def __init__(self, address: tuple):
        self.address = address
        self.local = threading.local()

    def __call__(self, text: str) -> int:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = http.client.HTTPConnection(*self.address, timeout=60)
        conn.request(
            "POST",
            "/v1/optimize",
            body=json.dumps({"stateJson": text}).encode(),  # one send()
            headers={"Content-Type": "application/json"},
        )
        answer = conn.getresponse()
        body = answer.read()
        if answer.status != 200:
            raise RuntimeError(f"HTTP {answer.status}: {body[:200]!r}")
        return int(json.loads(body)["solution"]["revenue"])


def run(caller, states: list, clients: int) -> tuple:
    """(wall seconds, latencies in ms, {id: revenue}) of every state through ``caller``."""
    latencies, revenues = [], {}

    def one(item):
        state_id, text = item
        start = time.perf_counter()
        revenues[state_id] = caller(text)
        latencies.append((time.perf_counter() - start) * 1000)

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, states))
    return time.perf_counter() - start, latencies, revenues


def pct(values: list, q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] if len(values) > 1 else values[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4, help="calls in flight (default: 4)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of gRPC then HTTP (default: 2)")
    parser.add_argument("--limit", type=int, help="only the first N states")
    args = parser.parse_args(argv)
    states = corpus_states(args.limit)
    proc, target, address = start_server()
    callers = {"gRPC": GrpcCaller(target), "HTTP": HttpCaller(address)}
    results = {name: [] for name in callers}
    answers = {}
    try:
        for caller in callers.values():  # warm up: connections, imports, caches
            caller(states[0][1])
        for _ in range(args.rounds):
            for name, caller in callers.items():
                wall, latencies, revenues = run(caller, states, args.clients)
                results[name].append((wall, latencies))
                answers.setdefault(name, revenues)
    finally:
        proc.terminate()
        proc.wait()
    differ = [i for i in answers["gRPC"] if answers["gRPC"][i] != answers["HTTP"].get(i)]
    print(
        f"machine: {os.cpu_count()} cores, {platform.processor() or platform.machine()}; load average "
        f"{os.getloadavg()[0]:.1f} at the end; {len(states)} states, {args.clients} clients, {args.rounds} rounds"
    )
    print(f"{'transport':<10}{'round':>6}{'calls/s':>10}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}")
    for name, rounds in results.items():
        for i, (wall, latencies) in enumerate(rounds, 1):
            print(
                f"{name:<10}{i:>6}{len(latencies) / wall:>10.1f}{pct(latencies, 50):>9.1f}"
                f"{pct(latencies, 90):>9.1f}{pct(latencies, 99):>9.1f}"
            )
    best = {name: max(len(lat) / wall for wall, lat in rounds) for name, rounds in results.items()}
    print(f"HTTP/gRPC throughput (best rounds): {best['HTTP'] / best['gRPC']:.2f}")
    print("same revenue on every state" if not differ else f"DIFFERENT revenue on {len(differ)} states: {differ[:5]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
