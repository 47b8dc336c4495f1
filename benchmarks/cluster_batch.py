"""The corpus batch in process, on ``--scheduler local:1`` and ``local:2``, side by side in one run.

    python benchmarks/cluster_batch.py                 # every corpus state (or the vendored ones)
    python benchmarks/cluster_batch.py --rounds 3      # each way N times, interleaved; medians

Each way is the whole command as a user runs it (``python -m optimizer solve --batch ... --json``),
so a local cluster's start is in its time; ``--scheduler tcp://`` runs on a cluster started once
beforehand show the batch alone. States/s = states over whole-command wall time; overhead = wall
time over the in-process run's, and per state the difference divided by the states. Answers are
checked to be the in-process ones (timing fields aside). Prints a table; asserts nothing else.
"""
from __future__ import annotations

import argparse
import json
import os
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


def run(batch: Path, *extra: str) -> tuple[float, list]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "optimizer", "solve", "--batch", str(batch), "--json", *extra],
                          capture_output=True, text=True, check=True)
    return time.perf_counter() - start, answers(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    import distributed

    with tempfile.TemporaryDirectory() as tmp:
        batch, count = corpus_file(Path(tmp))
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", scheduler_port=0,
                                      dashboard_address="127.0.0.1:0") as two, \
                distributed.LocalCluster(n_workers=1, threads_per_worker=1, host="127.0.0.1", scheduler_port=0,
                                         dashboard_address="127.0.0.1:0") as one:
            ways = {"in process": (), "local:1": ("--scheduler", "local:1"), "local:2": ("--scheduler", "local:2"),
                    "tcp:// 1 worker (started)": ("--scheduler", one.scheduler_address),
                    "tcp:// 2 workers (started)": ("--scheduler", two.scheduler_address)}
            times = {name: [] for name in ways}
            reference = None
            for _ in range(max(1, args.rounds)):
                for name, extra in ways.items():
                    seconds, got = run(batch, *extra)
                    reference = reference or got
                    if got != reference:
                        print(f"{name}: answers differ from the in-process run", file=sys.stderr)
                        return 1
                    times[name].append(seconds)
    base = statistics.median(times["in process"])
    print(f"{count} states, {os.cpu_count()} cpus, median of {args.rounds} interleaved round(s), whole commands")
    print(f"{'way':<28}{'wall s':>8}{'states/s':>10}{'vs in process':>15}{'overhead ms/state':>19}")
    for name, values in times.items():
        wall = statistics.median(values)
        print(f"{name:<28}{wall:>8.2f}{count / wall:>10.1f}{wall / base:>14.2f}x{(wall - base) * 1000 / count:>19.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
