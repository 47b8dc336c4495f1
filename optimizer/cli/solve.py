"""``solve``: the best routes for a board (or every board of a JSONL batch)."""

from __future__ import annotations

import json
import sys
import time
from importlib import resources

from .. import api
from ..batch import Limits, answer_lines, read_lines
from ..bench.stats import percentiles
from ..errors import OptimizerError
from .files import read_state
from .progress import Progress


def add_parser(sub):
    p = sub.add_parser(
        "solve",
        help="find the routes that earn the most",
        description="Find the routes that earn the most for the operating company of a board state. With no "
        "STATE, solves the embedded default board (a late 1830 game).",
    )
    p.add_argument(
        "state",
        nargs="?",
        metavar="STATE",
        help="board-state JSON file (the corpus format), or - for standard input; default: the embedded board",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object (one line per state with --batch)")
    p.add_argument(
        "--deadline-ms",
        type=float,
        metavar="MS",
        help="answer within MS milliseconds with the best so far (optimal: false, with the proven bound)",
    )
    p.add_argument("--node-budget", type=int, metavar="N", help="stop after N search nodes")
    p.add_argument(
        "--batch",
        metavar="STATES.jsonl",
        help="solve every state of a JSONL file (one per line); errors are reported per line. With "
        "--scheduler also a glob or fsspec URL (s3://..., file://...) that the workers read",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run --batch on a Dask cluster: a scheduler address (tcp://host:8786) or local:N for N local "
        'worker processes (needs pip install "route18xx[cluster]"); output as in process',
    )
    p.add_argument("--svg", metavar="FILE", help="also draw the board with the routes to FILE (SVG)")
    p.add_argument(
        "--core",
        choices=("compiled", "python"),
        help="search to use (default: compiled, or $OPTIMIZER_CORE); python is the slow reference",
    )
    p.set_defaults(run=run)


def default_state() -> dict:
    return json.loads(resources.files("optimizer.boards").joinpath("default.json").read_text())


def run(args) -> int:
    if args.scheduler and not args.batch:
        raise OptimizerError("--scheduler runs a --batch; give --batch STATES.jsonl", field="--scheduler")
    if args.batch:
        if args.state:
            raise OptimizerError("give either STATE or --batch, not both", field="(arguments)")
        return run_batch(args)
    state = read_state(args.state) if args.state else default_state()
    result = api.solve(state, deadline_ms=args.deadline_ms, node_budget=args.node_budget, core=args.core)
    if args.svg:
        from ..render.svg import write_svg

        write_svg(state, result["routes"], args.svg, title=_title(state, result))
    if args.json:
        print(json.dumps(result))
    else:
        print(table(state, result))
        if args.svg:
            print(f"picture: {args.svg}")
    return 0


def _title(state, result) -> str:
    company = state.get("corporation", {}).get("name") or state.get("corporation", {}).get("id", "")
    return f"{state.get('game', '')} · {company} · {result['revenue']}"


def table(state: dict, result: dict) -> str:
    """The answer as a person reads it: trains, stops with names, revenue, total."""
    stop_label = stop_labeller(state)
    lines = []
    company = state.get("corporation", {})
    lines.append(
        f"{state.get('game', '?')} · {company.get('name') or company.get('id')} · phase "
        f"{state.get('phase', {}).get('name', '?')}"
    )
    if not result["routes"]:
        lines.append("  no train can run a route")
    width = max([len(r["name"]) for r in result["routes"]] + [5])
    for r in result["routes"]:
        paid = set(r.get("paid", r["stops"]))
        stops = " - ".join(stop_label(s) + ("" if s in paid else "*") for s in r["stops"])
        lines.append(f"  {r['name']:>{width}}  {r['revenue']:>5}  {stops}")
    lines.append(f"  {'total':>{width}}  {result['revenue']:>5}")
    status = (
        "optimal"
        if result["optimal"]
        else f"not proven optimal (bound {result['bound']}, stopped by {result['stats'].get('stopped_by')})"
    )
    lines.append(f"  {status}; {result['elapsed_ms']:.1f} ms")
    if result.get("rules") == "generic":
        lines.append(f"  rules: generic (no rules for {state.get('game', '?')} here: the plain sum of stop values)")
    for rule in result.get("unsupported", ()):
        lines.append(f"  unsupported here: {rule}")
    if any(set(r["stops"]) - set(r.get("paid", r["stops"])) for r in result["routes"]):
        lines.append("  * visited, not counted")
    return "\n".join(lines)


def stop_labeller(state: dict):
    """A stop id as a player reads it: ``Baltimore (I15)``; a hex without a name: ``I17``."""
    names = {h["id"]: h.get("location_name") for h in state.get("hexes", [])}

    def stop_label(stop_id):
        hex_id = stop_id.split(".")[0]
        name = names.get(hex_id)
        return f"{name} ({hex_id})" if name else hex_id

    return stop_label


def run_batch(args) -> int:
    """Every line answered in input order as it is read (a batch streams: one line in memory at a
    time), then a summary on stderr; exit 1 if any line failed."""
    limits = Limits(deadline_ms=args.deadline_ms, node_budget=args.node_budget, core=args.core)
    start = time.monotonic()
    if args.scheduler:
        if args.batch == "-":
            raise OptimizerError(
                "--scheduler needs --batch to name files the workers can read (a path, glob or "
                "URL), not standard input",
                field="--batch",
            )
        from .. import cluster

        bar: Progress  # made once the partitions are counted, before the first finishes
        with cluster.connect(args.scheduler) as client:
            parts, answers = cluster.solve_batch(client, args.batch, limits, on_partition=lambda _: bar.step())
            bar = Progress(parts, "solving (partitions)")  # stepped as partitions finish; answers print in order
            return _print_batch(answers, args.json, bar, start)
    try:
        handle = sys.stdin.buffer if args.batch == "-" else open(args.batch, "rb")
    except OSError as err:
        raise OptimizerError(f"cannot read {args.batch}: {err.strerror}", field="--batch") from None
    bar = Progress(_count_lines(args.batch), "solving")

    def solved():
        with handle:
            for answer in answer_lines(read_lines(handle), limits):
                yield answer
                bar.step()

    return _print_batch(solved(), args.json, bar, start)


def _count_lines(path: str) -> int:
    """Lines in a batch file, for the progress bar (0: unknown, standard input); counted in chunks."""
    if path == "-" or not sys.stderr.isatty():
        return 0
    with open(path, "rb") as handle:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(2**20), b""))


def _print_batch(answers, as_json: bool, bar: Progress, start: float) -> int:
    """Print each answer as it comes, then the summary line on stderr."""
    count = failed = optimal = 0
    times = []
    for answer in answers:
        count += 1
        if "error" in answer:
            failed += 1
            out = answer
        else:
            optimal += answer["optimal"]
            times.append(answer["elapsed_ms"])
            out = (
                answer if as_json else {"id": answer["id"], "revenue": answer["revenue"], "optimal": answer["optimal"]}
            )
        print(json.dumps(out) if as_json else _batch_line(out), flush=True)
    bar.close()
    p = percentiles(times)
    print(
        f"{count} states, {optimal} optimal, {failed} errors, {time.monotonic() - start:.2f} s; "
        f"per state p50 {p['p50']:.2f} ms, p90 {p['p90']:.2f} ms, p99 {p['p99']:.2f} ms, max {p['max']:.2f} ms",
        file=sys.stderr,
    )
    return 1 if failed else 0


def _batch_line(out: dict) -> str:
    if "error" in out:
        return f"{out['id']}: error: {out['error']}"
    return f"{out['id']}: {out['revenue']}{'' if out['optimal'] else ' (not proven optimal)'}"
