"""Measuring a suite: every case solved in one process (or through the gRPC API), timed and checked.

Times are wall clock around one whole answer (read, build, search), the median over repeats, so
that a noisy machine moves them little; the search alone is kept too, as the answer reports it.
Every answer is checked while it is measured: one that earns less than the best known revenue
is a failure, never a fast result.
"""

from __future__ import annotations

import json
import os
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from ..errors import OptimizerError
from .stats import percentiles
from .suites import Case


@dataclass
class Outcome:
    """What the runs of one case gave."""

    case: Case
    times_ms: list = field(default_factory=list)  # wall clock per run
    search_ms: list = field(default_factory=list)  # the search alone, per run
    stages: list = field(default_factory=list)  # per run: {stage: ms} where the solver times stages
    revenue: int | None = None  # the lowest over runs: the one the check must pass
    optimal: bool = True  # every run proved its answer optimal
    error: str | None = None

    def record(self, elapsed_ms: float, result: dict | None, error: str | None) -> None:
        if error is not None:
            self.error = self.error or error
            self.optimal = False
            return
        assert result is not None, "an answer, or an error"
        self.times_ms.append(elapsed_ms)
        stats = result.get("stats") or {}
        self.search_ms.append(float(stats.get("search_ms", result.get("elapsed_ms", elapsed_ms))))
        self.stages.append(stats.get("stages_ms"))
        revenue = int(result["revenue"])
        self.revenue = revenue if self.revenue is None else min(self.revenue, revenue)
        self.optimal = self.optimal and bool(result.get("optimal"))

    @property
    def ms(self) -> float | None:
        return statistics.median(self.times_ms) if self.times_ms else None

    @property
    def search(self) -> float | None:
        return statistics.median(self.search_ms) if self.search_ms else None

    @property
    def failure(self) -> str | None:
        """Why this case failed: an error, or a revenue below the best known."""
        if self.error:
            return self.error
        best = self.case.best_known
        if best is not None and self.revenue is not None and self.revenue < best:
            return f"revenue {self.revenue} is below the best known {best}"
        return None


class LocalSolver:
    """:func:`optimizer.api.solve` in this process."""

    def __init__(self, core: str | None = None):
        from ..core import implementation

        self.core = core
        self.name = f"in process, {core or implementation()} core"

    def prepare(self, case: Case):
        return case.doc

    def __call__(self, payload, deadline_ms):
        from .. import api

        return api.solve(payload, deadline_ms=deadline_ms, core=self.core)

    def start_thread(self) -> None:
        pass

    def close(self) -> None:
        pass


class RemoteSolver:
    """Any server of the gRPC API, one client per thread (``--concurrency`` threads load it)."""

    def __init__(self, target: str):
        try:
            from server.client import OptimizerClient  # grpc is imported only for a remote run
        except ImportError as err:
            raise OptimizerError(f"--target needs the gRPC client (server.client): {err}", field="--target") from None
        self.name = target
        self._factory = OptimizerClient
        self._local = threading.local()
        self._clients: list = []
        self._lock = threading.Lock()

    def prepare(self, case: Case):
        return json.dumps(case.doc)  # encoded once, outside the timing, as a client would hold it

    def start_thread(self) -> None:
        client = self._factory(self.name)
        with self._lock:
            self._clients.append(client)
        self._local.client = client

    def __call__(self, payload, deadline_ms):
        return self._local.client.optimize_json(payload, deadline_ms=deadline_ms)

    def close(self) -> None:
        for client in self._clients:
            client.close()


@dataclass
class Run:
    outcomes: list
    wall_s: float
    repeat: int
    concurrency: int
    solver: str


def measure(
    cases: list, solver, *, repeat: int = 1, concurrency: int = 1, deadline_ms: float | None = None, on_done=None
) -> Run:
    """Solve every case ``repeat`` times (all cases once, then again) on ``concurrency`` threads.

    Each thread first answers one untimed call, so that connecting and first-call costs stay out
    of the numbers. A case's own ``deadline_ms`` applies unless ``deadline_ms`` is given.
    """
    payloads = [solver.prepare(case) for case in cases]
    outcomes = [Outcome(case) for case in cases]

    def warm_up():
        solver.start_thread()
        if payloads:
            try:
                solver(payloads[0], cases[0].deadline_ms)
            except Exception:  # noqa: BLE001 - the timed run reports it
                pass

    def job(i):
        limit = deadline_ms if deadline_ms is not None else cases[i].deadline_ms
        start = time.perf_counter()
        try:
            result, error = solver(payloads[i], limit), None
        except Exception as err:  # noqa: BLE001 - one bad case is reported, the run goes on
            result, error = None, f"{type(err).__name__}: {err}"
        return i, (time.perf_counter() - start) * 1000, result, error

    start = time.perf_counter()
    try:
        with ThreadPoolExecutor(max_workers=max(1, concurrency), initializer=warm_up) as pool:
            futures = [pool.submit(job, i) for _ in range(max(1, repeat)) for i in range(len(cases))]
            for future in as_completed(futures):
                i, elapsed, result, error = future.result()
                outcomes[i].record(elapsed, result, error)
                if on_done:
                    on_done()
    finally:
        solver.close()
    return Run(outcomes, time.perf_counter() - start, max(1, repeat), max(1, concurrency), solver.name)


def time_cases(work: list, repeat: int, core: str | None) -> list:
    """On a Dask worker: each ``(doc, deadline_ms)`` solved ``repeat`` times, ``[(ms, result, error)]`` each."""
    solver = LocalSolver(core)
    timed = []
    for doc, limit in work:
        runs = []
        for _ in range(repeat):
            start = time.perf_counter()
            try:
                result, error = solver(doc, limit), None
            except Exception as err:  # noqa: BLE001 - one bad case is reported, the run goes on
                result, error = None, f"{type(err).__name__}: {err}"
            runs.append(((time.perf_counter() - start) * 1000, result, error))
        timed.append(runs)
    return timed


def _warm_up(work: tuple, core: str | None) -> None:
    time_cases([work], 1, core)


def measure_on_cluster(
    cases: list, client, *, repeat: int = 1, deadline_ms: float | None = None, core: str | None = None, on_done=None
) -> Run:
    """:func:`measure` with the cases spread over a Dask cluster's workers, a few chunks each.

    Each worker first answers one untimed call; a case's time is taken on the worker, around one
    whole answer, as in process; the wall time (and so answers/s) is the whole cluster's.
    """
    from .. import cluster
    from ..core import implementation

    work = [(case.doc, deadline_ms if deadline_ms is not None else case.deadline_ms) for case in cases]
    outcomes = [Outcome(case) for case in cases]
    if work:
        client.run(_warm_up, work[0], core)
    workers = cluster.worker_count(client)
    start = time.perf_counter()
    chunks = cluster.map_chunks(
        client,
        time_cases,
        work,
        max(1, repeat),
        core,
        on_chunk=lambda timed: on_done and on_done(len(timed) * max(1, repeat)),
    )
    for outcome, runs in zip(outcomes, (runs for chunk in chunks for runs in chunk)):
        for elapsed, result, error in runs:
            outcome.record(elapsed, result, error)
    name = f"Dask cluster, {workers} worker(s), {core or implementation()} core"
    return Run(outcomes, time.perf_counter() - start, max(1, repeat), workers, name)


# ---- summaries ----------------------------------------------------------------------------------


def group_stats(outcomes: list) -> dict:
    """Latency percentiles, throughput, proofs, failures and the ratio to the router's time.

    The ratios (router's recorded time over ours, > 1 when we are faster) are over the states the
    router timed and we answered correctly: once against our whole answer, once against our search
    alone (the router's time is its search, without loading the board).
    """
    times = [o.ms for o in outcomes if o.ms is not None]
    total_s = sum(times) / 1000
    timed = [o for o in outcomes if o.case.router_s is not None and o.ms and not o.failure]
    router = [o.case.router_s * 1000 for o in timed]
    whole = [o.ms for o in timed]
    search = [max(o.search, 1e-3) for o in timed]

    def ratio(ours):
        return round(sum(router) / sum(ours), 3) if timed else None

    def median_ratio(ours):
        return round(statistics.median(r / t for r, t in zip(router, ours)), 3) if timed else None

    return {
        "states": len(outcomes),
        **{f"{k}_ms": round(v, 3) for k, v in percentiles(times).items()},
        "total_s": round(total_s, 4),
        "states_per_s": round(len(times) / total_s, 2) if total_s else None,
        "optimal": sum(1 for o in outcomes if o.optimal and not o.failure),
        "failed": sum(1 for o in outcomes if o.failure),
        "router_states": len(timed),
        "router_s": round(sum(router) / 1000, 4),
        "vs_router": ratio(whole),
        "vs_router_median": median_ratio(whole),
        "vs_router_search": ratio(search),
        "vs_router_search_median": median_ratio(search),
    }


def summarise(run: Run) -> dict:
    """The run as plain data: per group, in total, each failure and each state (for ``--json``)."""
    groups: dict = {}
    for o in run.outcomes:
        groups.setdefault(o.case.group, []).append(o)
    return {
        "solver": run.solver,
        "repeat": run.repeat,
        "concurrency": run.concurrency,
        "machine": {"cpus": os.cpu_count()},
        "wall_s": round(run.wall_s, 3),
        "requests_per_s": round(len(run.outcomes) * run.repeat / run.wall_s, 2) if run.wall_s else None,
        "groups": [dict(group=name, **group_stats(outs)) for name, outs in groups.items()],
        "total": group_stats(run.outcomes),
        "failures": [
            {
                "id": o.case.id,
                "group": o.case.group,
                "reason": o.failure,
                "revenue": o.revenue,
                "best_known": o.case.best_known,
            }
            for o in run.outcomes
            if o.failure
        ],
        "states": [
            {
                "id": o.case.id,
                "group": o.case.group,
                "ms": o.ms,
                "search_ms": o.search,
                "revenue": o.revenue,
                "best_known": o.case.best_known,
                "optimal": o.optimal,
                "router_s": o.case.router_s,
                "failure": o.failure,
                **({"params": o.case.params} if o.case.params else {}),
            }
            for o in run.outcomes
        ],
    }


def scaling(summary: dict) -> dict:
    """Median search time per point of each synthetic series (``params["series"]`` of a case)."""
    series: dict[str, dict] = {"track": {}, "trains": {}}
    for s in summary["states"]:
        p = s.get("params") or {}
        for name in p.get("series", ()):
            if s["search_ms"] is not None:
                series[name].setdefault(p[name], []).append(s)

    def points(by_x):
        return [
            {
                "x": x,
                "median_ms": round(statistics.median(s["search_ms"] for s in by_x[x]), 3),
                "ms": [round(s["search_ms"], 3) for s in by_x[x]],
                "optimal": [s["optimal"] for s in by_x[x]],
                "trains": by_x[x][0]["params"]["train_names"],
                "track": by_x[x][0]["params"]["track"],
            }
            for x in sorted(by_x)
        ]

    out = {"track": points(series["track"]), "trains": points(series["trains"])}
    first: dict = next((s["params"] for by_x in series.values() for xs in by_x.values() for s in xs), {})
    out["game"] = first.get("game", "")
    return out


def format_table(summary: dict) -> str:
    """The summary as a person reads it: one row per group and a total."""
    head = [
        "group",
        "states",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "max ms",
        "states/s",
        "optimal",
        "failed",
        "router/us",
        "median",
    ]
    rows = [[g["group"]] + _cells(g) for g in summary["groups"]] + [["total"] + _cells(summary["total"])]
    widths = [max(len(str(r[k])) for r in [head] + rows) for k in range(len(head))]

    def line(cells):
        return "  ".join(str(c).ljust(w) if k == 0 else str(c).rjust(w) for k, (c, w) in enumerate(zip(cells, widths)))

    out = [line(head), line(["-" * w for w in widths])] + [line(r) for r in rows[:-1]]
    out += [line(["-" * w for w in widths]), line(rows[-1])]
    out.append(
        f"{summary['solver']}, {summary['machine']['cpus']} cpus, repeat {summary['repeat']}, concurrency "
        f"{summary['concurrency']}: wall {summary['wall_s']:.1f} s, {summary['requests_per_s']} answers/s. "
        "Times are whole answers (median of repeats); router/us = the 18xx.games auto router's recorded "
        "time over ours on the same states (sum, and median per state)."
    )
    total = summary["total"]
    if total["vs_router"] is not None:
        out.append(
            f"The search alone against the router's: {total['vs_router_search']:.2f}x (sum), "
            f"{total['vs_router_search_median']:.2f}x (median per state), over {total['router_states']} states."
        )
    for f in summary["failures"]:
        out.append(f"FAILED {f['id']}: {f['reason']}")
    return "\n".join(out)


def _cells(g: dict) -> list:
    def ratio(v):
        return "-" if v is None else f"{v:.2f}x"

    return [
        g["states"],
        f"{g['p50_ms']:.1f}",
        f"{g['p90_ms']:.1f}",
        f"{g['p99_ms']:.1f}",
        f"{g['max_ms']:.1f}",
        "-" if g["states_per_s"] is None else f"{g['states_per_s']:.1f}",
        g["optimal"],
        g["failed"],
        ratio(g["vs_router"]),
        ratio(g["vs_router_median"]),
    ]


def format_scaling(scale: dict) -> str:
    """The scaling curves as lines of numbers (median search ms per point; + = some not proven)."""
    lines = []
    for name, label in (("track", lambda p: f"{p['x']:.0%}"), ("trains", lambda p: f"{p['x']}")):
        points = scale[name]
        if not points:
            continue
        fixed = f"trains {points[0]['trains']}" if name == "track" else f"{points[0]['track']:.0%} track"
        values = ", ".join(f"{label(p)}: {p['median_ms']:.1f}{'' if all(p['optimal']) else '+'}" for p in points)
        lines.append(f"scaling ({scale['game']}), median search ms vs {name} with {fixed}: {values}")
    return "\n".join(lines)
