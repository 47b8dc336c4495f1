"""What a benchmark runs: the public corpus, a JSONL file of states, or the synthetic series.

A :class:`Case` is one board state with what we know of it: the best revenue anyone has found
(a run that earns less has failed, however fast it was) and the time the 18xx.games auto router
took on it, so that speed is always quoted against a correct answer and a known yardstick.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ..errors import OptimizerError, decoded_json
from .synthetic import synthetic_board

ROOT = Path(__file__).resolve().parents[2]
VENDORED = resources.files("optimizer.boards").joinpath("states.jsonl")  # real states shipped as package data
VENDORED_BEYOND = resources.files("optimizer.boards").joinpath("beyond.jsonl")  # a few of the beyond games'


@dataclass
class Case:
    id: str
    group: str  # the game for real states, the size class for synthetic ones
    doc: dict
    best_known: int | None = None  # revenue a correct answer reaches at least
    router_s: float | None = None  # the 18xx.games auto router's recorded path_s + combo_s
    deadline_ms: float | None = None  # this case's own limit, so that a run always ends
    params: dict = field(default_factory=dict)  # synthetic: game, track, trains, train_names, seed, series


# ---- real states ---------------------------------------------------------------------------------


def corpus_dir() -> Path | None:
    """The public corpus: ``$OPTIMIZER_CORPUS``, or ``shared/corpus`` beside the project."""
    for candidate in (os.environ.get("OPTIMIZER_CORPUS"), ROOT.parent / "shared" / "corpus"):
        if candidate and (Path(candidate) / "states").is_dir():
            return Path(candidate)
    return None


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def corpus_files() -> list:
    """The corpus's JSONL files; without a corpus the small vendored file (package data), but
    under ``CI=true`` a missing corpus is an error (a benchmark that silently shrank is no benchmark)."""
    found = corpus_dir()
    if found is not None:
        return sorted((found / "states").glob("*/*.jsonl"))
    if in_ci():
        raise OptimizerError(
            "the corpus is missing (shared/corpus beside the project, or $OPTIMIZER_CORPUS) "
            "and CI=true: the corpus benchmarks must run on it",
            field="corpus",
        )
    return [VENDORED]


def case_from_state(doc: dict, group: str | None = None) -> Case:
    """A case from a corpus-format state: best known = max(router, human recheck) when recorded."""
    expected = doc.get("expected") or {}
    router = expected.get("router") or {}
    known = [v for v in (router.get("revenue"), expected.get("human_recheck")) if isinstance(v, (int, float))]
    if isinstance(expected.get("best_known"), (int, float)):
        known.append(expected["best_known"])
    times = [t for t in (router.get("path_s"), router.get("combo_s")) if isinstance(t, (int, float))]
    router_s = sum(times) if router and len(times) == 2 else None
    return Case(
        id=str(doc.get("id")),
        group=group or str(doc.get("game", "?")),
        doc=doc,
        best_known=int(max(known)) if known else None,
        router_s=router_s,
    )


def jsonl_cases(path) -> list:
    """Every state of a JSONL file (one board-state document a line), grouped by game."""
    try:
        with open(path) as handle:
            lines = [(n, line) for n, line in enumerate(handle, 1) if line.strip()]
    except OSError as err:
        raise OptimizerError(f"cannot read {path}: {err.strerror}", field="suite") from None
    cases = []
    for number, line in lines:
        doc = decoded_json(line, field="suite", what=f"{path}:{number}: ")
        if not isinstance(doc, dict):
            raise OptimizerError(f"{path}:{number}: a state must be a JSON object", field="suite")
        doc.setdefault("id", f"{Path(path).name}:{number}")
        cases.append(case_from_state(doc))
    return cases


def corpus_cases() -> list:
    return [case for f in corpus_files() for case in jsonl_cases(f)]


def beyond_files() -> list:
    """The beyond corpus's JSONL files (1889, 18Chesapeake, 1846, 18AL: ``beyond/states`` in the
    corpus), kept apart from :func:`corpus_files`; without a corpus the few vendored as package data,
    and under ``CI=true`` a missing beyond corpus is an error."""
    found = corpus_dir()
    files = sorted((found / "beyond" / "states").glob("*/*.jsonl")) if found is not None else []
    if files:
        return files
    if in_ci():
        raise OptimizerError(
            "the beyond corpus is missing (beyond/states in the corpus) and CI=true: its benchmarks must run on it",
            field="corpus",
        )
    return [VENDORED_BEYOND]


def beyond_cases() -> list:
    return [case for f in beyond_files() for case in jsonl_cases(f)]


# ---- synthetic boards -----------------------------------------------------------------------------

TRAINS = {1: ("D",), 2: ("D", "8E"), 3: ("D", "8E", "6"), 4: ("D", "8E", "6", "6E"), 5: ("D", "8E", "6", "6E", "8")}
SERIES_GAME = "1830"  # the scaling series run on this map
TRACK_SERIES = (0.2, 0.4, 0.6, 0.8, 1.0)  # amount of track ...
TRACK_SERIES_TRAINS = 2  # ... with this many trains
TRAIN_SERIES = (1, 2, 3, 4, 5)  # number of trains ...
TRAIN_SERIES_TRACK = 0.6  # ... on this much track
OTHER_MAPS = (("18EU", 0.4, 2),)  # a flat map with junction tiles: many more segments per hex
SEEDS = (0, 1, 2, 3)
QUICK_TRACK = 0.4  # quick runs keep to 1830 boards this small, with at most 2 trains (milliseconds each)
SYNTHETIC_DEADLINE_MS = 60_000.0  # every synthetic board ends by then, proven or not

# The optimum of each synthetic board, from unlimited compiled runs; the reference search agrees on
# every 1830 board up to 60% track with one or two trains (the others are beyond its reach). A
# changed generator changes the boards: re-derive these with ``python -m optimizer.bench.suites``
# and check the new values before trusting them.
KNOWN_BEST = {
    "synthetic/1830/track0.2/D-8E/seed0": 210,
    "synthetic/1830/track0.2/D-8E/seed1": 160,
    "synthetic/1830/track0.2/D-8E/seed2": 90,
    "synthetic/1830/track0.2/D-8E/seed3": 160,
    "synthetic/1830/track0.4/D-8E/seed0": 390,
    "synthetic/1830/track0.4/D-8E/seed1": 620,
    "synthetic/1830/track0.4/D-8E/seed2": 290,
    "synthetic/1830/track0.4/D-8E/seed3": 450,
    "synthetic/1830/track0.6/D/seed0": 420,
    "synthetic/1830/track0.6/D/seed1": 600,
    "synthetic/1830/track0.6/D/seed2": 350,
    "synthetic/1830/track0.6/D/seed3": 320,
    "synthetic/1830/track0.6/D-8E/seed0": 590,
    "synthetic/1830/track0.6/D-8E/seed1": 830,
    "synthetic/1830/track0.6/D-8E/seed2": 460,
    "synthetic/1830/track0.6/D-8E/seed3": 470,
    "synthetic/1830/track0.6/D-8E-6/seed0": 690,
    "synthetic/1830/track0.6/D-8E-6/seed1": 980,
    "synthetic/1830/track0.6/D-8E-6/seed2": 530,
    "synthetic/1830/track0.6/D-8E-6/seed3": 530,
    "synthetic/1830/track0.6/D-8E-6-6E/seed0": 780,
    "synthetic/1830/track0.6/D-8E-6-6E/seed1": 1090,
    "synthetic/1830/track0.6/D-8E-6-6E/seed2": 580,
    "synthetic/1830/track0.6/D-8E-6-6E/seed3": 590,
    "synthetic/1830/track0.6/D-8E-6-6E-8/seed0": 840,
    "synthetic/1830/track0.6/D-8E-6-6E-8/seed1": 1140,
    "synthetic/1830/track0.6/D-8E-6-6E-8/seed2": 630,
    "synthetic/1830/track0.6/D-8E-6-6E-8/seed3": 630,
    "synthetic/1830/track0.8/D-8E/seed0": 710,
    "synthetic/1830/track0.8/D-8E/seed1": 770,
    "synthetic/1830/track0.8/D-8E/seed2": 760,
    "synthetic/1830/track0.8/D-8E/seed3": 720,
    "synthetic/1830/track1/D-8E/seed0": 890,
    "synthetic/1830/track1/D-8E/seed1": 1040,
    "synthetic/1830/track1/D-8E/seed2": 1090,
    "synthetic/1830/track1/D-8E/seed3": 1090,
    "synthetic/18EU/track0.4/D-8E/seed0": 650,
    "synthetic/18EU/track0.4/D-8E/seed1": 840,
    "synthetic/18EU/track0.4/D-8E/seed2": 580,
    "synthetic/18EU/track0.4/D-8E/seed3": 790,
}


def size_class(game: str, track: float, n_trains: int) -> str:
    return f"{game} {track:.0%} track, {n_trains} train{'s' if n_trains > 1 else ''}"


def synthetic_points(quick: bool = False) -> list:
    """(game, track, number of trains) of every size class, each once, in size order."""
    points = {(SERIES_GAME, track, TRACK_SERIES_TRAINS) for track in TRACK_SERIES}
    points |= {(SERIES_GAME, TRAIN_SERIES_TRACK, n) for n in TRAIN_SERIES}
    points |= set(OTHER_MAPS)
    if quick:
        points = {p for p in points if p[0] == SERIES_GAME and p[1] <= QUICK_TRACK and p[2] <= 2}
    return sorted(points)


def synthetic_cases(quick: bool = False, seeds=SEEDS) -> list:
    """The synthetic boards, each tagged with the scaling series (``track``, ``trains``) it is a point of."""
    cases = []
    for game, track, n in synthetic_points(quick):
        series = [
            name
            for name, member in (
                ("track", game == SERIES_GAME and n == TRACK_SERIES_TRAINS),
                ("trains", game == SERIES_GAME and track == TRAIN_SERIES_TRACK),
            )
            if member
        ]
        for seed in seeds:
            doc = synthetic_board(seed, game=game, track=track, trains=TRAINS[n])
            cases.append(
                Case(
                    id=doc["id"],
                    group=size_class(game, track, n),
                    doc=doc,
                    best_known=KNOWN_BEST.get(doc["id"]),
                    deadline_ms=SYNTHETIC_DEADLINE_MS,
                    params={
                        "game": game,
                        "track": track,
                        "trains": n,
                        "train_names": ", ".join(TRAINS[n]),
                        "seed": seed,
                        "series": series,
                    },
                )
            )
    return cases


HARD_BOARDS = ROOT / "benchmarks" / "hard_boards.jsonl"  # late real boards, long trains (make_hard_boards.py)


def load_suite(name: str) -> list:
    """The cases of a suite: ``corpus``, ``beyond``, ``synthetic``, ``hard``, ``all`` (corpus and
    synthetic) or the path of a JSONL file."""
    if name == "corpus":
        return corpus_cases()
    if name == "beyond":
        return beyond_cases()
    if name == "hard":
        return jsonl_cases(HARD_BOARDS)
    if name == "synthetic":
        return synthetic_cases()
    if name == "all":
        return corpus_cases() + synthetic_cases()
    if Path(name).is_file():
        return jsonl_cases(name)
    raise OptimizerError(
        f"unknown suite {name!r}: corpus, beyond, synthetic, hard, all, or a JSONL file of states", field="suite"
    )


def _derive_known_best() -> None:
    """Print KNOWN_BEST afresh from unlimited searches (slow: a minute or so)."""
    from ..api import solve

    for case in synthetic_cases():
        result = solve(case.doc)
        assert result["optimal"], case.id
        print(f"    {json.dumps(case.id)}: {result['revenue']},", flush=True)


if __name__ == "__main__":
    _derive_known_best()
