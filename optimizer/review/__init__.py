"""A whole game reviewed: at every ``run_routes`` action, what the company ran (priced by the engine),
the optimum on that board, and the revenue left on the table.

The 18xx.games engine replays the game (:mod:`.replay`, Ruby); each board is solved here by
:func:`optimizer.api.solve`, and the engine prices the optimum's routes too (:mod:`.judge`);
:mod:`.chart` draws the revenue left per round and company.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from pathlib import Path

from .. import api
from .judge import Judge
from .replay import Replay, ReviewError, engine_dir

__all__ = ["ReviewError", "review", "summary"]


def review(
    game: Path, engine: str | None = None, *, deadline_ms: float | None = None, on_start: Callable | None = None
) -> Generator[dict, None, None]:
    """One row per ``run_routes`` action, in game order: ``{"action_id", "entity", "round", "ran",
    "optimum", "optimal", "left", "routes", "ran_routes", "engine"}`` (``ran``: the engine's price of
    what was run, None with ``ran_error`` when it refuses it; ``routes``: the optimum's, as the
    engine's connections; ``engine``: what the engine pays for them, None with ``engine_error`` when
    it refuses them), or ``{"action_id", "error"}`` where the replay fails. ``on_start(count)`` is
    told how many rows will come."""
    engine_path = engine_dir(engine)
    replay = Replay(Path(game), engine_path)
    judge = None
    try:
        judge = Judge(Path(game).resolve(), engine_path)
        if on_start:
            on_start(len(replay.action_ids))
        for line in replay.lines():
            out = row(line, deadline_ms)
            if "error" not in out:
                verdict = judge.price(out["action_id"], out["routes"])
                out["engine"] = verdict.get("revenue")
                if "error" in verdict:
                    out["engine_error"] = verdict["error"]
            yield out
    finally:
        replay.close()
        if judge is not None:
            judge.close()


def row(line: dict, deadline_ms: float | None) -> dict:
    out = {"action_id": line["action_id"], "entity": line.get("entity"), "round": line.get("round")}
    if "error" in line:
        return {**out, "error": line["error"]}
    answer = api.solve(line["board"], deadline_ms=deadline_ms)
    ran = line["ran"]
    out["ran"] = ran.get("revenue")
    if "error" in ran:
        out["ran_error"] = ran["error"]
    out["optimum"] = answer["revenue"]
    out["optimal"] = answer["optimal"]
    out["left"] = None if out["ran"] is None else answer["revenue"] - out["ran"]
    out["routes"] = [
        {"train": r["train"], "name": r["name"], "revenue": r["revenue"], "connections": r["hexes"]}
        for r in answer["routes"]
    ]
    out["ran_routes"] = ran.get("connections", [])
    return out


def summary(rows: list) -> dict:
    """Per company, in order of first appearance: ``{"ran", "optimum", "left", "runs", "optimal_runs"}``."""
    out: dict = {}
    for r in rows:
        if "error" in r or r.get("ran") is None:
            continue
        c = out.setdefault(r["entity"], {"ran": 0, "optimum": 0, "left": 0, "runs": 0, "optimal_runs": 0})
        c["ran"] += r["ran"]
        c["optimum"] += r["optimum"]
        c["left"] += r["left"]
        c["runs"] += 1
        c["optimal_runs"] += r["left"] == 0
    return out
