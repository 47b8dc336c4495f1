"""The service under load: one server process against ``serve``'s default (a worker per core), one run.

    python benchmarks/grpc_workers.py                      # every public corpus state, twice, 8 clients
    python benchmarks/grpc_workers.py --clients 8 --repeat 2 --workers 1 default
    python benchmarks/grpc_workers.py --form board         # the same boards as structured messages

For each server configuration it starts ``python -m optimizer serve --port 0`` (its other options
default), then 8 client threads (each its own channel) send every corpus state ``--repeat`` times as
``Optimize`` with ``state_json`` (``--form board``: a structured ``Board``), all states once, then
again. Prints, side by side: answers per second, p50/p99/max latency per call, errors, answers
below the best known revenue, the router's recorded time for those states over the wall time, the
server's CPU time per answer and the cores it kept busy (what other load on the machine cannot
change much), and each server process's memory (RSS now and its peak). Then where a call's time
goes: the server's stages (read, graph, search, encode: each answer's stats) and the rest of the
client's wait (queueing and transport), p50 and p99. Exit status 1 if any call failed or answered
below the best known revenue.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from optimizer.bench.suites import corpus_cases  # noqa: E402
from server.client import OptimizerClient  # noqa: E402
from server.translation import convert  # noqa: E402

# The server's stages of one answer, as its stats report them (milliseconds of wall time).
SERVER_STAGES = ("read", "graph", "search", "encode")


def cpu_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "?"


def start_server(workers: str) -> tuple:
    args = [] if workers == "default" else ["--workers", workers]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "optimizer",
            "serve",
            "--port",
            "0",
            "--http-port",
            "off",
            "--log-level",
            "warning",
            *args,
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    match = re.match(r"listening on (\S+?:\d+)", proc.stdout.readline())
    if not match:
        proc.kill()
        raise SystemExit(f"the server ({workers}) did not start")
    return proc, match.group(1)


def processes(pid: int) -> list:
    try:
        kids = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        kids = []
    return kids or [pid]  # the workers, or the one process


def cpu_s(pids: list) -> float:
    """CPU seconds (user + system) the server's processes have used."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def memory_mb(pid: int) -> tuple:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def run(target: str, payloads: list, cases: list, clients: int, repeat: int, pids: list, form: str = "json") -> dict:
    jobs = [i for _ in range(repeat) for i in range(len(cases))]
    lock, position = threading.Lock(), [0]
    latencies, errors, below, stages = [], [], [], []

    def client_thread():
        with OptimizerClient(target) as client:
            optimize = client.optimize_board if form == "board" else client.optimize_json
            optimize(payloads[0])  # connect and warm up, untimed
            barrier.wait()
            while True:
                with lock:
                    if position[0] >= len(jobs):
                        return
                    i = jobs[position[0]]
                    position[0] += 1
                start = time.perf_counter()
                try:
                    answer = optimize(payloads[i])
                except Exception as err:  # noqa: BLE001 - counted, the run goes on
                    with lock:
                        errors.append(f"{cases[i].id}: {err}")
                    continue
                elapsed = time.perf_counter() - start
                with lock:
                    latencies.append(elapsed * 1000)
                    server = {k: answer["stats"].get(f"{k}_ms") or 0.0 for k in SERVER_STAGES}
                    server["queue + transport"] = elapsed * 1000 - sum(server.values())
                    stages.append(server)
                    best = cases[i].best_known
                    if best is not None and answer["revenue"] < best:
                        below.append(cases[i].id)

    barrier = threading.Barrier(clients + 1)
    threads = [threading.Thread(target=client_thread) for _ in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    start, cpu = time.perf_counter(), cpu_s(pids)
    for t in threads:
        t.join()
    wall, cpu = time.perf_counter() - start, cpu_s(pids) - cpu
    router_s = repeat * sum(c.router_s for c in cases if c.router_s is not None)
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    return {
        "answers": len(latencies),
        "wall_s": wall,
        "per_s": len(latencies) / wall,
        "p50": q[49],
        "p99": q[98],
        "max": max(latencies, default=0.0),
        "errors": errors,
        "below": below,
        "vs_router": router_s / wall,
        "cpu_ms": cpu * 1000 / max(1, len(latencies)),
        "cores": cpu / wall,
        "stages": {k: _p50_p99([s[k] for s in stages]) for k in (*SERVER_STAGES, "queue + transport")},
    }


def _p50_p99(values: list) -> tuple:
    q = statistics.quantiles(values, n=100) if len(values) > 1 else [0.0] * 99
    return q[49], q[98]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "configs",
        nargs="*",
        default=["1", "default"],
        help="server configurations: a number of workers, or 'default' (default: 1 default)",
    )
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--states", type=int, metavar="N", help="only every k-th state, N in all (a quick run)")
    parser.add_argument(
        "--form",
        choices=("json", "board"),
        default="json",
        help="send each board as state_json text (default) or as a structured Board",
    )
    args = parser.parse_args(argv)
    cases = corpus_cases()
    if args.states:
        cases = cases[:: max(1, len(cases) // args.states)][: args.states]
    payloads = [convert.state_to_board(c.doc) if args.form == "board" else json.dumps(c.doc) for c in cases]
    results = {}
    for config in args.configs:
        proc, target = start_server(config)
        try:
            results[config] = run(target, payloads, cases, args.clients, args.repeat, processes(proc.pid), args.form)
            results[config]["memory"] = [memory_mb(pid) for pid in processes(proc.pid)]
        finally:
            proc.terminate()
            proc.wait(30)
    print(f"machine: {os.cpu_count()} cores, {cpu_name()}; load average {os.getloadavg()[0]:.1f} at the end")
    field = "board" if args.form == "board" else "state_json"
    print(f"{len(cases)} corpus states x {args.repeat} as Optimize({field}), {args.clients} concurrent clients")
    head = (
        f"{'serve':<22}{'answers/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'errors':>8}{'below':>7}"
        f"{'router/us':>11}{'CPU ms/answer':>15}{'cores busy':>12}  RSS now / peak per process, MB"
    )
    print(head)
    for config, r in results.items():
        name = "--workers " + config if config != "default" else "default options"
        memory = ", ".join(f"{now:.0f}/{peak:.0f}" for now, peak in r["memory"])
        print(
            f"{name:<22}{r['per_s']:>10.1f}{r['p50']:>9.1f}{r['p99']:>9.1f}{r['max']:>9.1f}{len(r['errors']):>8}"
            f"{len(r['below']):>7}{r['vs_router']:>10.1f}x{r['cpu_ms']:>15.2f}{r['cores']:>12.2f}  {memory}"
        )
        for line in r["errors"][:3] + [f"below best: {i}" for i in r["below"][:3]]:
            print(f"    {line}")
    print(
        "\nwhere a call's time goes, p50 / p99 ms (the server's stages from each answer's stats; the rest of "
        "the client's wait is queueing and transport)"
    )
    names = (*SERVER_STAGES, "queue + transport")
    print(f"{'serve':<22}" + "".join(f"{n:>20}" for n in names))
    for config, r in results.items():
        name = "--workers " + config if config != "default" else "default options"
        print(f"{name:<22}" + "".join(f"{r['stages'][n][0]:>11.2f} / {r['stages'][n][1]:>6.2f}" for n in names))
    return 1 if any(r["errors"] or r["below"] for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
