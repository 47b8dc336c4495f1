"""``solve``: the best routes for a board (or every board of a JSONL batch)."""
from __future__ import annotations

import json
import sys
import time
from importlib import resources

from .. import api
from ..errors import OptimizerError
from ..bench.stats import percentiles
from .files import read_state
from .progress import Progress


def add_parser(sub):
    p = sub.add_parser(
        "solve", help="find the routes that earn the most",
        description="Find the routes that earn the most for the operating company of a board state. With no "
                    "STATE, solves the embedded default board (a late 1830 game).")
    p.add_argument("state", nargs="?", metavar="STATE",
                   help="board-state JSON file (the corpus format), or - for standard input; default: the embedded board")
    p.add_argument("--json", action="store_true", help="print one JSON object (one line per state with --batch)")
    p.add_argument("--deadline-ms", type=float, metavar="MS",
                   help="answer within MS milliseconds with the best so far (optimal: false, with the proven bound)")
    p.add_argument("--node-budget", type=int, metavar="N", help="stop after N search nodes")
    p.add_argument("--batch", metavar="STATES.jsonl",
                   help="solve every state of a JSONL file (one per line) in one process; errors are reported per line")
    p.add_argument("--svg", metavar="FILE", help="also draw the board with the routes to FILE (SVG)")
    p.add_argument("--core", choices=("compiled", "python"),
                   help="search to use (default: compiled, or $OPTIMIZER_CORE); python is the slow reference")
    p.set_defaults(run=run)


def default_state() -> dict:
    return json.loads(resources.files("optimizer.boards").joinpath("default.json").read_text())


def run(args) -> int:
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
    names = {h["id"]: h.get("location_name") for h in state.get("hexes", [])}

    def stop_label(stop_id):
        hex_id = stop_id.split(".")[0]
        name = names.get(hex_id)
        return f"{name} ({hex_id})" if name else hex_id

    lines = []
    company = state.get("corporation", {})
    lines.append(f"{state.get('game', '?')} · {company.get('name') or company.get('id')} · phase "
                 f"{state.get('phase', {}).get('name', '?')}")
    if not result["routes"]:
        lines.append("  no train can run a route")
    width = max([len(r["name"]) for r in result["routes"]] + [5])
    for r in result["routes"]:
        paid = set(r.get("paid", r["stops"]))
        stops = " - ".join(stop_label(s) + ("" if s in paid else "*") for s in r["stops"])
        lines.append(f"  {r['name']:>{width}}  {r['revenue']:>5}  {stops}")
    lines.append(f"  {'total':>{width}}  {result['revenue']:>5}")
    status = "optimal" if result["optimal"] else f"not proven optimal (bound {result['bound']}, stopped by " \
                                                  f"{result['stats'].get('stopped_by')})"
    lines.append(f"  {status}; {result['elapsed_ms']:.1f} ms")
    if result.get("rules") == "generic":
        lines.append(f"  rules: generic (no rules for {state.get('game', '?')} here: the plain sum of stop values)")
    if any(set(r["stops"]) - set(r.get("paid", r["stops"])) for r in result["routes"]):
        lines.append("  * visited, not counted")
    return "\n".join(lines)


def run_batch(args) -> int:
    try:
        handle = sys.stdin if args.batch == "-" else open(args.batch)
    except OSError as err:
        raise OptimizerError(f"cannot read {args.batch}: {err.strerror}", field="--batch") from None
    with handle:
        lines = [line for line in handle if line.strip()]
    progress = Progress(len(lines), "solving")
    failed = 0
    optimal = 0
    times = []
    start = time.monotonic()
    for number, line in enumerate(lines, 1):
        state_id = None
        try:
            doc = json.loads(line)
            state_id = doc.get("id") if isinstance(doc, dict) else None
            result = api.solve(doc, deadline_ms=args.deadline_ms, node_budget=args.node_budget, core=args.core)
            optimal += result["optimal"]
            times.append(result["elapsed_ms"])
            out = result if args.json else {"id": result["id"], "revenue": result["revenue"],
                                            "optimal": result["optimal"]}
        except json.JSONDecodeError as err:
            failed += 1
            out = {"id": state_id, "line": number, "error": f"not valid JSON: {err}"}
        except OptimizerError as err:
            failed += 1
            out = {"id": state_id, "line": number, "error": str(err)}
        print(json.dumps(out) if args.json else _batch_line(out), flush=True)
        progress.step()
    progress.close()
    p = percentiles(times)
    print(f"{len(lines)} states, {optimal} optimal, {failed} errors, {time.monotonic() - start:.2f} s; "
          f"per state p50 {p['p50']:.2f} ms, p90 {p['p90']:.2f} ms, p99 {p['p99']:.2f} ms, max {p['max']:.2f} ms",
          file=sys.stderr)
    return 1 if failed else 0


def _batch_line(out: dict) -> str:
    if "error" in out:
        return f"{out['id']}: error: {out['error']}"
    return f"{out['id']}: {out['revenue']}{'' if out['optimal'] else ' (not proven optimal)'}"
