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

from optimizer.bench.suites import VENDORED, VENDORED_BEYOND, corpus_dir

ROOT = Path(__file__).resolve().parents[1]


def require_corpus() -> Path | None:
    found = corpus_dir()
    if found is None and os.environ.get("CI", "").lower() == "true":
        raise RuntimeError(
            "the corpus (../shared/corpus or $OPTIMIZER_CORPUS) is missing, and CI=true: corpus tests must run in CI"
        )
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


@lru_cache(maxsize=1)
def beyond_states() -> tuple:
    """The states of the games beyond the first five (``beyond/states/*/*.jsonl`` of the corpus),
    kept apart from :func:`states` so that the main corpus tests stay as they are. Without a corpus
    (and not under ``CI=true``, where that fails) there are none."""
    found = require_corpus()
    if found is None:
        return ()
    files = sorted((found / "beyond" / "states").glob("*/*.jsonl"))
    if not files and os.environ.get("CI", "").lower() == "true":
        raise RuntimeError("the beyond corpus (beyond/states in the corpus) is missing, and CI=true")
    out = []
    for f in files:
        with open(f) as handle:
            out.extend(json.loads(line) for line in handle if line.strip())
    return tuple(out)


@lru_cache(maxsize=1)
def catalogue_states() -> tuple:
    """The catalogue's states (``catalog/states/*/*.jsonl`` of the corpus: 97 more titles the engine
    draws), kept apart like :func:`beyond_states`. Without a corpus (and not under ``CI=true``,
    where that fails) there are none."""
    found = require_corpus()
    if found is None:
        return ()
    files = sorted((found / "catalog" / "states").glob("*/*.jsonl"))
    if not files and os.environ.get("CI", "").lower() == "true":
        raise RuntimeError("the catalogue (catalog/states in the corpus) is missing, and CI=true")
    out = []
    for f in files:
        with open(f) as handle:
            out.extend(json.loads(line) for line in handle if line.strip())
    return tuple(out)


def _find(state_id: str, corpus: tuple, vendored) -> dict:
    """A state by id: a copy from the corpus, else from the vendored file."""
    for s in corpus:
        if s["id"] == state_id:
            return json.loads(json.dumps(s))
    with open(vendored) as handle:
        for line in handle:
            s = json.loads(line)
            if s["id"] == state_id:
                return s
    raise KeyError(state_id)


def beyond_state(state_id: str) -> dict:
    """One beyond state by id, from the corpus or the vendored copies."""
    return _find(state_id, beyond_states(), VENDORED_BEYOND)


def state(state_id: str) -> dict:
    """One state by id, from the corpus or the vendored copies."""
    return _find(state_id, states(), VENDORED)


def game_files() -> list:
    found = corpus_dir()
    if found:
        return sorted((found / "games").glob("*.json"))
    return sorted((ROOT / "optimizer" / "games" / "data").glob("*.json"))


def ids(items) -> list:
    return [s["id"] for s in items]
