"""The corpus batch in process, on ``--scheduler local:1`` and ``local:2``, side by side in one run.

    python benchmarks/cluster_batch.py                 # every corpus state (or the vendored ones)
    python benchmarks/cluster_batch.py --rounds 3      # each way N times, interleaved; medians

Each way is the whole command as a user runs it (``python -m optimizer solve --batch ... --json``),
so a local cluster's start is in its time; ``--scheduler tcp://`` runs on a cluster started once
beforehand show the batch alone. States/s = states over whole-command wall time; overhead = wall
time over the in-process run's, and per state the difference divided by the states. CPU s is every
process's CPU time for the run (the command, its local cluster, a started cluster's scheduler and
workers): on a shared, loaded machine the wall time says how the cores were shared, the CPU time
what the work cost. Answers are checked to be the in-process ones (timing fields aside). Prints a
table; asserts nothing else.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from optimizer.bench.suites import VENDORED, corpus_dir


def corpus_file(folder: Path) -> tuple[Path, int]:
    found = corpus_dir()
    files = sorted(str(p) for p in (found / "states").glob("*/*.jsonl")) if found else [str(VENDORED)]
    lines = [line for f in files for line in open(f) if line.strip()]
    path = folder / "corpus.jsonl"
    path.write_text("".join(lines))
    return path, len(lines)


def answers(stdout: str) -> list:
    out = []
    for line in stdout.splitlines():
        a = json.loads(line)
        a.pop("elapsed_ms", None)
        a["stats"] = {k: v for k, v in a.get("stats", {}).items() if not k.endswith("_ms")}
        out.append(a)
    return out


def cpu_s(clusters) -> float:
    """CPU seconds so far of this process (a started cluster's scheduler runs here), its finished
    children (a command, with its local cluster) and the started clusters' worker processes."""
    import psutil

    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    for cluster in clusters:
        for pid in cluster.values():
            times = psutil.Process(pid).cpu_times()
            total += times.user + times.system
    return total


def run(batch: Path, clusters, *extra: str) -> tuple[float, float, list]:
    cpu = cpu_s(clusters)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "optimizer", "solve", "--batch", str(batch), "--json", *extra],
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - start, cpu_s(clusters) - cpu, answers(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    import distributed

    with tempfile.TemporaryDirectory() as tmp:
        batch, count = corpus_file(Path(tmp))
        with (
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, host="127.0.0.1", scheduler_port=0, dashboard_address="127.0.0.1:0"
            ) as two,
            distributed.LocalCluster(
                n_workers=1, threads_per_worker=1, host="127.0.0.1", scheduler_port=0, dashboard_address="127.0.0.1:0"
            ) as one,
            distributed.Client(two) as client_two,
            distributed.Client(one) as client_one,
        ):
            workers = [client_two.run(os.getpid), client_one.run(os.getpid)]
            ways = {
                "in process": (),
                "local:1": ("--scheduler", "local:1"),
                "local:2": ("--scheduler", "local:2"),
                "tcp:// 1 worker (started)": ("--scheduler", one.scheduler_address),
                "tcp:// 2 workers (started)": ("--scheduler", two.scheduler_address),
            }
            times = {name: [] for name in ways}
            cpus = {name: [] for name in ways}
            reference = None
            for _ in range(max(1, args.rounds)):
                for name, extra in ways.items():
                    seconds, cpu, got = run(batch, workers, *extra)
                    reference = reference or got
                    if got != reference:
                        print(f"{name}: answers differ from the in-process run", file=sys.stderr)
                        return 1
                    times[name].append(seconds)
                    cpus[name].append(cpu)
    base = statistics.median(times["in process"])
    print(f"{count} states, {os.cpu_count()} cpus, median of {args.rounds} interleaved round(s), whole commands")
    base_cpu = statistics.median(cpus["in process"])
    print(
        f"{'way':<28}{'wall s':>8}{'states/s':>10}{'vs in process':>15}{'overhead ms/state':>19}"
        f"{'CPU s':>8}{'CPU vs in process':>19}"
    )
    for name, values in times.items():
        wall, cpu = statistics.median(values), statistics.median(cpus[name])
        print(
            f"{name:<28}{wall:>8.2f}{count / wall:>10.1f}{wall / base:>14.2f}x{(wall - base) * 1000 / count:>19.2f}"
            f"{cpu:>8.2f}{cpu / base_cpu:>18.2f}x"
        )
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
