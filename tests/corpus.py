"""Where the tests find real board states.

The public corpus lies beside the project (``../shared/corpus``, or ``$OPTIMIZER_CORPUS``). The
tests run over all of it when it is there; under ``CI=true`` its absence is a failure, not a skip.
Elsewhere (a fresh clone on a user's machine) the real states vendored as package data
(``optimizer/boards/states.jsonl``, which ``route18xx bench`` uses too) stand in.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from optimizer.bench.suites import VENDORED, corpus_dir

ROOT = Path(__file__).resolve().parents[1]


def require_corpus() -> Path | None:
    found = corpus_dir()
    if found is None and os.environ.get("CI", "").lower() == "true":
        raise RuntimeError("the corpus (../shared/corpus or $OPTIMIZER_CORPUS) is missing, and CI=true: "
                           "corpus tests must run in CI")
    return found


@lru_cache(maxsize=1)
def states() -> tuple:
    """Every public corpus state (or the vendored ones), as dicts, in a stable order."""
    found = require_corpus()
    files = sorted((found / "states").glob("*/*.jsonl")) if found else [VENDORED]
    out = []
    for f in files:
        with open(f) as handle:
            out.extend(json.loads(line) for line in handle if line.strip())
    return tuple(out)


def state(state_id: str) -> dict:
    """One state by id, from the corpus or the vendored copies."""
    for s in states():
        if s["id"] == state_id:
            return json.loads(json.dumps(s))
    with open(VENDORED) as handle:
        for line in handle:
            s = json.loads(line)
            if s["id"] == state_id:
                return s
    raise KeyError(state_id)


def game_files() -> list:
    found = corpus_dir()
    if found:
        return sorted((found / "games").glob("*.json"))
    return sorted((ROOT / "optimizer" / "games" / "data").glob("*.json"))


def ids(items) -> list:
    return [s["id"] for s in items]
