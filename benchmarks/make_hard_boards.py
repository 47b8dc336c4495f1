"""Make benchmarks/hard_boards.jsonl: late real boards given several long trains and extra tokens.

Real turns are easy (a millisecond); the boards that make a router sweat are late maps run by
many long trains. This takes the last states of every game of the public corpus (the last turn
of each company near the end of each recorded game), replaces the company's trains by 2 to 4
long ones (D, 8E, 6E, long N) and gives it extra tokens in free city slots of its own network's
reach, so that every board is a hard, but plausible, late turn. Deterministic: the same corpus
gives the same file.

    python benchmarks/make_hard_boards.py [--corpus DIR] [--out benchmarks/hard_boards.jsonl]

Each line is a corpus-format board state (input fields only) with ``expected.best_known``, the
optimum proven by an unlimited compiled search, so that ``route18xx bench`` checks every answer.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from optimizer.bench.suites import corpus_dir  # noqa: E402
from optimizer.bench.synthetic import train  # noqa: E402
from optimizer.board.inputs import input_fields  # noqa: E402

COMPANIES_PER_GAME = 7  # the last turn of this many companies per recorded game
TRAIN_SETS = (
    ("D", "8E"),
    ("D", "8E", "6E"),
    ("D", "8", "6E", "8E"),
    ("8E", "6E", "12", "D"),
    ("D", "D", "8E"),
    ("12", "8E", "6E"),
)
EXTRA_TOKENS = (2, 3, 4)  # cycled over the boards


def last_states(path: Path) -> list:
    """The last state of each of the companies that ran last in a recorded game, latest first."""
    states = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    seen, out = set(), []
    for doc in reversed(states):
        corp = doc["corporation"]["id"]
        if corp in seen or len(out) >= COMPANIES_PER_GAME:
            continue
        seen.add(corp)
        out.append(doc)
    return out


def hard_board(doc: dict, index: int) -> dict:
    """The state with long trains and extra tokens, input fields only."""
    rng = random.Random(f"{doc['id']}/{index}")
    inputs = input_fields(doc)
    corp, hexes = inputs["corporation"], inputs["hexes"]
    free = [
        (h, c)
        for h in hexes
        for c in h.get("cities") or []
        if None in (c.get("tokens") or [])
        and corp["id"] not in c["tokens"]
        and not any(r for r in (c.get("reservations") or []))
    ]
    rng.shuffle(free)
    extra = EXTRA_TOKENS[index % len(EXTRA_TOKENS)]
    taken = set()
    for h, city in free:
        if extra == 0:
            break
        if h["id"] in taken:
            continue
        city["tokens"][city["tokens"].index(None)] = corp["id"]
        taken.add(h["id"])
        extra -= 1
    names = TRAIN_SETS[index % len(TRAIN_SETS)]
    return {
        "id": f"hard/{doc['id']}/{'-'.join(names)}/tokens+{len(taken)}",
        "game": doc["game"],
        "layout": doc["layout"],
        "phase": doc["phase"],
        "corporation": corp,
        "trains": [train(n, i) for i, n in enumerate(names)],
        "hexes": hexes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=corpus_dir())
    parser.add_argument("--out", type=Path, default=HERE / "hard_boards.jsonl")
    args = parser.parse_args()
    if args.corpus is None:
        parser.error("no corpus: give --corpus DIR (shared/corpus)")
    from optimizer import api

    boards = []
    for path in sorted((args.corpus / "states").glob("*/*.jsonl")):
        for doc in last_states(path):
            boards.append(hard_board(doc, len(boards)))
    with open(args.out, "w") as out:
        for board in boards:
            result = api.solve(board)
            if not result["optimal"]:
                raise SystemExit(f"{board['id']}: not proven optimal")
            board["expected"] = {"best_known": result["revenue"]}
            out.write(json.dumps(board, separators=(",", ":")) + "\n")
            print(f"{board['id']}: {result['revenue']} ({result['stats']['search_ms']:.0f} ms search)", flush=True)


if __name__ == "__main__":
    main()
