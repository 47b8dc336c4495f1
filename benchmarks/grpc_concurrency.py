"""Eight Optimize calls one after another, then eight at once: do concurrent calls use all cores?

    python benchmarks/grpc_concurrency.py            # starts its own server on a free port
    python benchmarks/grpc_concurrency.py --target 127.0.0.1:50051

The board is the dense synthetic 1830 board of seed 5 (60% of the map laid) given ``--trains`` long
trains (D, 8E, 6, 6E, 8; 4: about 0.3 s per exact solve on one core, 3: 0.14 s, 5: 3.4 s). (A real
late 1894 state given 5 D trains served until it was solved in 10 ms.) The search releases the
GIL, so on N cores the concurrent run should take about 1/N of the sequential one. Prints both
times and their ratio; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from server.client import OptimizerClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from optimizer.bench.suites import TRAINS  # noqa: E402
from optimizer.bench.synthetic import synthetic_board  # noqa: E402

SEED = 5


def hard_board(trains: int) -> dict:
    return synthetic_board(SEED, track=0.6, trains=TRAINS[trains])


def start_server():
    proc = subprocess.Popen(
        [sys.executable, "-m", "optimizer", "serve", "--port", "0", "--http-port", "off", "--log-level", "warning"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    match = re.match(r"listening on (\S+)", proc.stdout.readline())
    if not match:
        proc.kill()
        raise SystemExit("the server did not start")
    return proc, match.group(1)


def cpu_s(pid) -> float:
    """CPU seconds (user + system) a process and its children (the server's workers) have used,
    from /proc; 0 when unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except (OSError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") + sum(cpu_s(int(c)) for c in children)


def timed(run, pid) -> tuple:
    """(wall seconds, server CPU seconds) of run()."""
    cpu, start = cpu_s(pid), time.monotonic()
    run()
    return time.monotonic() - start, cpu_s(pid) - cpu


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", help="a running server (default: start one)")
    parser.add_argument("--calls", type=int, default=8)
    parser.add_argument("--trains", type=int, default=4, choices=range(1, 6), help="long trains (more = harder)")
    args = parser.parse_args(argv)
    proc, target = (None, args.target) if args.target else start_server()
    doc = hard_board(args.trains)
    board = json.dumps(doc)
    pid = proc.pid if proc else None
    answers = []
    try:
        with OptimizerClient(target) as client:
            client.optimize_json(board, node_budget=1000)  # warm up

            def one(_=None):  # a connection per call, as separate clients: the server's workers share them
                with OptimizerClient(target) as own:
                    answers.append(own.optimize_json(board)["revenue"])

            def sequential():
                for _ in range(args.calls):
                    one()

            def concurrent():
                with ThreadPoolExecutor(args.calls) as pool:
                    list(pool.map(one, range(args.calls)))

            seq_s, seq_cpu = timed(sequential, pid)
            con_s, con_cpu = timed(concurrent, pid)
    finally:
        if proc:
            proc.terminate()
            proc.wait()
    assert len(set(answers)) == 1 and len(answers) == 2 * args.calls, "every call should find the same optimum"
    load = os.getloadavg()[0]
    print(
        f"machine: {os.cpu_count()} cores (load average {load:.1f} at the end); {args.calls} Optimize calls on "
        f"{doc['id']} (revenue {answers[0]})"
    )

    def cores(cpu, wall):  # known only for a server started here
        return f", server busy on {cpu / wall:.2f} cores" if pid else ""

    print(f"sequential: {seq_s:.2f} s ({seq_s / args.calls:.2f} s per call){cores(seq_cpu, seq_s)}")
    print(f"concurrent: {con_s:.2f} s{cores(con_cpu, con_s)}")
    print(f"ratio sequential/concurrent: {seq_s / con_s:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
