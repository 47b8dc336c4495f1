"""One answer taken apart: the time of each stage from the document's JSON text to the answer's.

The stages are those of :func:`optimizer.api.solve`, called one by one so that each is timed:

- decode: JSON text (the input fields a client sends) to a document: ``json.loads`` on the
  reference path; on the fast path msgspec decodes it straight into checked structs, so that
  this stage includes the next;
- validate: the JSON Schema check of the reference path (none left on the fast path);
- read: the checked document to a :class:`~optimizer.board.state.Board`;
- graph: the rules, the track graph and the flattened arrays;
- search: the compiled search;
- encode: the answer as the API's dict and as JSON text.

Stages are timed in CPU time of the answering thread (the search runs in it), so that other
work on a shared machine moves them little; whole answers are wall clock, as in every benchmark.
The same boards go through the reference path (plain Python reader, schema validator, plain walk),
the fast path with its caches cleared before each board (every board is the first of its game),
and the fast path in corpus order (each board follows the previous one of its game), so that one
run shows before and after side by side.
"""

from __future__ import annotations

import json
import statistics
import time

STAGES = ("decode", "validate", "read", "graph", "search", "encode")
PATHS = {
    "reference": "reference path (JSON Schema, plain reader and walk)",
    "cold": "fast path, caches cleared before each board (a game's first board)",
    "fast": "fast path, boards in corpus order (the next board of a game)",
}


# What a corpus state carries beside its input: the engine's answers and provenance (corpus README).
ANSWER_FIELDS = ("expected", "game_key", "fixture", "action_id", "engine_commit", "entity_mismatch")
HEX_ANSWER_FIELDS = ("exits", "nodes", "paths", "all_neighbors")


def client_document(doc: dict) -> dict:
    """A corpus state as a client sends it: input fields only."""
    out = {k: v for k, v in doc.items() if k not in ANSWER_FIELDS}
    if isinstance(out.get("corporation"), dict):
        out["corporation"] = {k: v for k, v in out["corporation"].items() if k != "flags"}
    if isinstance(out.get("hexes"), list):
        out["hexes"] = [
            {k: v for k, v in h.items() if k not in HEX_ANSWER_FIELDS} if isinstance(h, dict) else h
            for h in out["hexes"]
        ]
    return out


class StagedSolver:
    """An in-process answer with each stage timed into ``stats.stages_ms``."""

    def __init__(self, path: str, core: str | None = None):
        if path not in PATHS:
            raise ValueError(f"path must be one of {', '.join(PATHS)}")
        self.path = path
        self.core = core
        self.name = f"in process, stages, {PATHS[path]}"

    def prepare(self, case):
        return json.dumps(client_document(case.doc))  # the text a client holds, encoded outside the timing

    def start_thread(self) -> None:
        pass

    def close(self) -> None:
        pass

    def __call__(self, payload, deadline_ms):
        from ..api import result_json
        from ..board import document
        from ..board import state as board_state
        from ..core import search
        from ..games import rules_for
        from ..graph import problem as problem_cache
        from ..graph import walks
        from ..graph.problem import problem_from_graph, shared_problem
        from ..graph.track import build_track_graph_reference

        fast = self.path != "reference"
        if self.path == "cold":
            board_state.clear_cache()
            walks.clear_cache()
            problem_cache.clear_cache()
        clock = time.thread_time  # CPU time of this thread: what the answer costs, whatever else runs
        marks = [clock()]
        if fast:
            decoded = document.decode_text(payload)  # decoded and checked in one pass: no validate stage
            marks.append(clock())
            marks.append(clock())
            board = board_state.board_from_hex_texts(*decoded) if decoded is not None else None
            board = board or board_state.read_board_reference(payload)
            doc = decoded[0] if decoded is not None else {}
        else:
            doc = json.loads(payload)
            marks.append(clock())
            board_state.validate_schema(doc)
            marks.append(clock())
            board = board_state.board_from_document(doc)
        marks.append(clock())
        if fast:
            problem = shared_problem(board)  # the same board again: the problem built for it before
        else:
            rules = rules_for(board)
            problem = problem_from_graph(board, rules, build_track_graph_reference(board, rules))
        marks.append(clock())
        result = search(problem, deadline_ms=deadline_ms, core=self.core)
        marks.append(clock())
        out = result_json(problem, result, doc.get("id"))
        json.dumps(out)
        marks.append(clock())
        out["stats"]["stages_ms"] = {name: (marks[k + 1] - marks[k]) * 1000 for k, name in enumerate(STAGES)}
        out["stats"]["search_ms"] = round(result.elapsed_ms, 3)
        return out


def stage_summary(outcomes: list) -> dict:
    """Per stage: the median over states and the mean per state, in ms (a state's time: the median
    of its runs)."""
    per_state = []
    for o in outcomes:
        runs = [s for s in o.stages if s]
        if runs:
            per_state.append({name: statistics.median(r[name] for r in runs) for name in STAGES})
    if not per_state:
        return {}
    out = {}
    for name in STAGES + ("total",):
        values = [sum(s.values()) if name == "total" else s[name] for s in per_state]
        out[name] = {"p50_ms": round(statistics.median(values), 4), "mean_ms": round(sum(values) / len(values), 4)}
    return out


def format_stages(columns: dict) -> str:
    """The stage table: one row per stage, p50 and mean per column (path)."""
    names = [n for n, c in columns.items() if c]
    head = ["stage"] + [f"{n} p50" for n in names] + [f"{n} mean" for n in names]
    rows = []
    for stage in STAGES + ("total",):
        rows.append(
            [stage]
            + [f"{columns[n][stage]['p50_ms']:.3f}" for n in names]
            + [f"{columns[n][stage]['mean_ms']:.3f}" for n in names]
        )
    widths = [max(len(str(r[k])) for r in [head] + rows) for k in range(len(head))]

    def line(cells):
        return "  ".join(str(c).ljust(w) if k == 0 else str(c).rjust(w) for k, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])


def run_stages(
    cases: list,
    suite: str,
    *,
    repeat: int = 1,
    core: str | None = None,
    deadline_ms: float | None = None,
    as_json: bool = False,
    progress=None,
) -> int:
    """Print the stage table: reference, fast (the next board of a game), fast (the same board
    again), fast (a game's first board: caches cleared); exit status 1 if any answer failed.
    ``progress(total, label)`` makes a progress display (``step()``, ``close()``), if given."""
    from . import runner

    runs = {}
    for column, path, times in (
        ("reference", "reference", 1),
        ("next", "fast", 1),
        ("again", "fast", repeat),
        ("first", "cold", 1),
    ):
        shown = progress(len(cases) * times, f"bench {suite} stages, {column}") if progress else None
        try:
            runs[column] = runner.measure(
                cases,
                StagedSolver(path, core),
                repeat=times,
                deadline_ms=deadline_ms,
                on_done=shown.step if shown else None,
            )
        finally:
            if shown:
                shown.close()
    columns = {column: stage_summary(run_.outcomes) for column, run_ in runs.items()}
    summaries = {column: runner.summarise(run_) for column, run_ in runs.items()}
    failures = [f for s in summaries.values() for f in s["failures"]]
    if as_json:
        print(
            json.dumps(
                {
                    "suite": suite,
                    "stages": columns,
                    "machine": summaries["next"]["machine"],
                    "totals": {column: s["total"] for column, s in summaries.items()},
                    "failures": failures,
                }
            )
        )
        return 1 if failures else 0
    print(format_stages(columns))
    print(
        f"{len(cases)} states, {summaries['next']['machine']['cpus']} cpus; CPU ms per answer, p50 over states "
        "and mean per state. reference: the plain Python reader, JSON Schema and walk; next: the fast path, each "
        "board once in corpus order (after the previous board of its game); again: each board once more, after "
        f"all of them (median of {repeat}); first: the fast path with its caches cleared before each board. "
        "The machine may be shared: compare the columns of one run."
    )
    for column, s in summaries.items():
        total = s["total"]
        print(
            f"{column:9s} whole answers, wall clock: p50 {total['p50_ms']:.3f} ms, p99 {total['p99_ms']:.3f} ms; "
            f"router/us {total['vs_router']}x sum, {total['vs_router_median']}x median"
        )
    for f in failures:
        print(f"FAILED {f['id']}: {f['reason']}")
    return 1 if failures else 0
