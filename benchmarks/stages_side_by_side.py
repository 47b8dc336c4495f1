"""``route18xx bench corpus --stages`` of two installs, run in turn, each stage's medians side by side.

Two trees compared on a shared machine: runs alternate, in turns A B, B A, A B ... so that
whatever else runs (and whichever goes first) weighs on both alike, and each figure is the median
over the runs of that tree::

    python3 benchmarks/stages_side_by_side.py /work/main/.venv/bin/route18xx .venv/bin/route18xx --runs 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys


def one_run(route18xx: str, suite: str) -> dict:
    out = subprocess.run(
        [route18xx, "bench", suite, "--stages", "--json"], capture_output=True, text=True, check=True, cwd="/tmp"
    )
    return json.loads(out.stdout)["stages"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the first install's route18xx")
    parser.add_argument("b", help="the second install's route18xx")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--suite", default="corpus")
    args = parser.parse_args()
    runs: dict = {"a": [], "b": []}
    for turn in range(args.runs):
        for side in ("a", "b") if turn % 2 == 0 else ("b", "a"):
            runs[side].append(one_run(getattr(args, side), args.suite))
    paths = list(runs["a"][0])
    stages = list(runs["a"][0][paths[0]])
    print(f"{'path':10} {'stage':9} {'A p50':>8} {'B p50':>8} {'B/A':>6}   {'A mean':>8} {'B mean':>8} {'B/A':>6}")
    for path in paths:
        for stage in stages:
            row = []
            for key in ("p50_ms", "mean_ms"):
                a = statistics.median(r[path][stage][key] for r in runs["a"])
                b = statistics.median(r[path][stage][key] for r in runs["b"])
                row += [a, b, b / a if a else float("nan")]
            print(
                f"{path:10} {stage:9} {row[0]:8.4f} {row[1]:8.4f} {row[2]:6.3f}   {row[3]:8.4f} {row[4]:8.4f} {row[5]:6.3f}"
            )
    print(f"A: {args.a}\nB: {args.b}\nmedians of {args.runs} alternating runs each, CPU ms per answer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
