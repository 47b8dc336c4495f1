"""Every corpus state's answer and node count, written as JSON lines, to compare two trees.

A refactoring of the core must change neither: run this with each tree's interpreter (the
project imported from that tree) and compare the files with ``--compare``::

    /work/main/.venv/bin/python benchmarks/corpus_answers.py main.jsonl
    .venv/bin/python benchmarks/corpus_answers.py branch.jsonl
    python3 benchmarks/corpus_answers.py --compare main.jsonl branch.jsonl

Each state is searched by the compiled core with each strategy (``--strategies``), and by the
reference core within a node budget (``--python-budget``: counted exactly, so as reproducible).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"


def states(root: Path):
    for sub in ("states", "beyond/states"):
        for path in sorted((root / sub).rglob("*.jsonl")):
            for line in path.read_text().splitlines():
                if line.strip():
                    yield json.loads(line)


def record(out_path: Path, root: Path, strategies: list, python_budget: int) -> None:
    from optimizer.core import compiled, reference
    from optimizer.graph.problem import build_problem

    with out_path.open("w") as out:
        for doc in states(root):
            problem = build_problem(doc)
            row = {"id": doc["id"]}
            for strategy in strategies:
                result = compiled.search(problem, strategy=strategy)
                row[strategy] = [result.revenue, result.nodes, result.optimal]
            if python_budget:
                result = reference.search(problem, node_budget=python_budget)
                row["python"] = [result.revenue, result.nodes, result.optimal]
            out.write(json.dumps(row) + "\n")


def compare(a: Path, b: Path) -> int:
    left = {r["id"]: r for r in map(json.loads, a.read_text().splitlines())}
    right = {r["id"]: r for r in map(json.loads, b.read_text().splitlines())}
    differ = [k for k in left if left[k] != right.get(k)] + [k for k in right if k not in left]
    for k in differ:
        print(f"{k}: {left.get(k)} != {right.get(k)}")
    print(f"{len(left)} states, {len(differ)} differ")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--strategies", default="auto,nested,packing")
    parser.add_argument("--python-budget", type=int, default=20000)
    args = parser.parse_args()
    if args.compare:
        return compare(*args.files)
    record(args.files[0], args.corpus, args.strategies.split(","), args.python_budget)
    return 0


if __name__ == "__main__":
    sys.exit(main())
