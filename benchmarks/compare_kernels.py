"""The search kernels side by side in one run: nested search against route listing plus packing.

    python benchmarks/compare_kernels.py hard                 # benchmarks/hard_boards.jsonl
    python benchmarks/compare_kernels.py synthetic --seeds 8  # full map D+8E; 60% track, 1-5 trains
    python benchmarks/compare_kernels.py hard --deadline-ms 100 --anytime
    python benchmarks/compare_kernels.py hard --before ../main   # another tree's core as "before"

Per board and kernel: the search alone (graph built once, outside the timing), its nodes and
answer; every answer is checked against the others and the best known. Per group: median and max
ms, and the ratio. ``--anytime`` runs each board with the deadline and reports how far below the
optimum the answer and how far above it the proven bound ended.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from optimizer.bench.suites import HARD_BOARDS, KNOWN_BEST, TRAINS
from optimizer.bench.synthetic import synthetic_board
from optimizer.core import compiled
from optimizer.graph.problem import build_problem

WORKER = """
import json, sys, time
from optimizer.core import compiled
from optimizer.graph.problem import build_problem
for line in sys.stdin:
    job = json.loads(line)
    problem = build_problem(job["doc"])
    start = time.perf_counter()
    r = compiled.search(problem, deadline_ms=job["deadline_ms"])
    ms = (time.perf_counter() - start) * 1000
    print(json.dumps({"ms": ms, "nodes": r.nodes, "revenue": r.revenue, "optimal": r.optimal, "bound": r.bound}),
          flush=True)
"""


class Before:
    """Another source tree's compiled core (built in place), in a worker process fed board by
    board, so that both run interleaved in the same run."""

    def __init__(self, tree: str):
        import os
        import subprocess

        env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=str(Path(tree).resolve()),
        )

    def __call__(self, doc, deadline_ms):
        from types import SimpleNamespace

        self.proc.stdin.write(json.dumps({"doc": doc, "deadline_ms": deadline_ms}) + "\n")
        self.proc.stdin.flush()
        out = json.loads(self.proc.stdout.readline())
        return out.pop("ms"), SimpleNamespace(**out)


SYNTHETIC = [("1830 100% track, D+8E", 1.0, 2)] + [
    (f"1830 60% track, {n} train{'s' if n > 1 else ''}", 0.6, n) for n in (1, 2, 3, 4, 5)
]


def cases(suite: str, seeds: int):
    if suite == "hard":
        for line in HARD_BOARDS.read_text().splitlines():
            doc = json.loads(line)
            yield doc["game"], doc["id"], doc, doc["expected"]["best_known"]
    else:
        for group, track, n in SYNTHETIC:
            for seed in range(seeds):
                doc = synthetic_board(seed, track=track, trains=TRAINS[n])
                yield group, doc["id"], doc, KNOWN_BEST.get(doc["id"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", choices=("hard", "synthetic"))
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--kernels", default="nested,packing")
    parser.add_argument("--deadline-ms", type=float, default=60_000.0)
    parser.add_argument("--anytime", action="store_true", help="quality at the deadline instead of time to optimum")
    parser.add_argument("--before", metavar="TREE", help="also run this source tree's core (built in place) first")
    args = parser.parse_args()
    kernels = args.kernels.split(",")
    before = Before(args.before) if args.before else None
    if before:
        kernels = ["before"] + kernels
    times = {}  # group -> kernel -> [ms]
    quality = {k: [0, 0.0, 0.0] for k in kernels}  # below optimum, worst gap, worst bound excess
    failures = 0
    for group, case_id, doc, best in cases(args.suite, args.seeds):
        problem = build_problem(doc)
        answers, row = {}, []
        for k in kernels:
            if k == "before":
                ms, result = before(doc, args.deadline_ms)
            else:
                start = time.perf_counter()
                result = compiled.search(problem, deadline_ms=args.deadline_ms, strategy=k)
                ms = (time.perf_counter() - start) * 1000
            times.setdefault(group, {}).setdefault(k, []).append(ms)
            answers[k] = result
            row.append(
                f"{k} {ms:9.1f} ms {result.nodes:>10} nodes {result.revenue:>5}{'' if result.optimal else '*'}"
                f" bound {result.bound}"
            )
            if args.anytime and best:
                q = quality[k]
                q[0] += result.revenue < best
                q[1] = max(q[1], (best - result.revenue) / best)
                q[2] = max(q[2], (result.bound - best) / best)
        proven = {r.revenue for r in answers.values() if r.optimal} | ({best} if best else set())
        bad = len(proven) > 1 or any(r.revenue > max(proven, default=r.revenue) for r in answers.values())
        failures += bad
        print(f"{case_id[:70]:70} | " + " | ".join(row) + ("  MISMATCH" if bad else ""), flush=True)
    print()
    print("| group | boards | " + " | ".join(f"{k} median ms | {k} max ms" for k in kernels) + " | ratio (sum) |")
    print("|---|---|" + "---|---|" * len(kernels) + "---|")
    for group, by in times.items():
        cells = " | ".join(f"{statistics.median(by[k]):.1f} | {max(by[k]):.1f}" for k in kernels)
        ratio = sum(by[kernels[0]]) / max(sum(by[kernels[-1]]), 1e-9)
        print(f"| {group} | {len(by[kernels[0]])} | {cells} | {ratio:.1f}x |")
    totals = {k: sum(sum(by[k]) for by in times.values()) for k in kernels}
    print(
        f"| **all** | {sum(len(by[kernels[0]]) for by in times.values())} | "
        + " | ".join(f"{totals[k]:.0f} (sum) | {max(max(by[k]) for by in times.values()):.1f}" for k in kernels)
        + f" | {totals[kernels[0]] / max(totals[kernels[-1]], 1e-9):.1f}x |"
    )
    if args.anytime:
        for k, (below, gap, over) in quality.items():
            print(
                f"{k}: {below} below the optimum at {args.deadline_ms:g} ms, worst {gap:.1%} below; "
                f"bound at most {over:.1%} above the optimum"
            )
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
