"""``review``: a whole recorded game, every run against the optimum on its board."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .progress import Progress


def add_parser(sub):
    p = sub.add_parser(
        "review",
        help="a recorded game: what each company ran, the optimum, the revenue left on the table",
        description="Replay a game's export (the JSON the 18xx.games Tools tab gives: title, players, actions) "
        "with the 18xx.games engine (Ruby), solve the board of every run_routes action, and print per action what "
        "the company ran (priced by the engine), the optimum and the revenue left, then the totals per company.",
    )
    p.add_argument("game", metavar="GAME.json", help="a game's export from 18xx.games")
    p.add_argument("--engine", metavar="DIR", help="an 18xx.games engine checkout (default: $ROUTE18XX_ENGINE)")
    p.add_argument(
        "--json",
        action="store_true",
        help='one JSON line per run_routes action: {"action_id", "entity", "round", "ran", "optimum", "optimal", '
        '"left", "routes", "ran_routes", "engine"} ("engine": what the engine pays for the optimum\'s routes; '
        '{"action_id", "error"} where the replay fails)',
    )
    p.add_argument("--svg", metavar="FILE", help="also draw the revenue left per round and company as an SVG picture")
    p.add_argument("--deadline-ms", type=float, metavar="MS", help="bound each board's search (default: none)")
    p.set_defaults(run=run)


def game_export(path: str) -> dict:
    from ..review import ReviewError

    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ReviewError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise ReviewError(f"{path}: not a game's export ({str(err)[:100]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("actions"), list):
        raise ReviewError(f'{path}: not a game\'s export (a JSON object with "actions")')
    return data


def run(args) -> int:
    from ..review import review

    data = game_export(args.game)
    title = f"{data.get('title', '?')} · game {data.get('id', Path(args.game).stem)}"
    progress = None

    def start(count):
        nonlocal progress
        progress = Progress(count, "review")

    rows = []
    try:
        for r in review(Path(args.game), args.engine, deadline_ms=args.deadline_ms, on_start=start):
            rows.append(r)
            if args.json:
                print(json.dumps(r), flush=True)
            if progress is not None:
                progress.step()
    finally:
        if progress:
            progress.close()
    if not args.json:
        print_table(title, rows)
    if args.svg:
        from ..review.chart import review_svg

        Path(args.svg).write_text(review_svg(rows, title))
    failed = [r for r in rows if "error" in r]
    for r in failed:
        print(f"action {r['action_id']}: {r['error']}", file=sys.stderr)
    return 1 if failed else 0


def print_table(title: str, rows: list) -> None:
    from ..review import summary

    runs = [r for r in rows if "error" not in r]
    print(f"{title} · {len(runs)} runs")
    print(f"{'round':<9} {'company':<10} {'ran':>6} {'optimum':>8} {'left':>6}")
    for r in runs:
        ran = "?" if r["ran"] is None else r["ran"]
        left = "?" if r["left"] is None else r["left"]
        mark = "" if r["optimal"] else "  (best found by the deadline)"
        if r.get("engine") != r["optimum"]:
            mark += f"  (the engine pays {r.get('engine_error') or r.get('engine')} for these routes)"
        print(f"{r['round']:<9} {r['entity']:<10} {ran:>6} {r['optimum']:>8} {left:>6}{mark}")
    totals = summary(rows)
    print()
    print(f"{'company':<10} {'ran':>7} {'optimum':>8} {'left':>6} {'optimal runs':>13}")
    for company, c in sorted(totals.items(), key=lambda kv: -kv[1]["left"]):
        print(f"{company:<10} {c['ran']:>7} {c['optimum']:>8} {c['left']:>6} {c['optimal_runs']:>6} of {c['runs']}")
    ran, optimum = sum(c["ran"] for c in totals.values()), sum(c["optimum"] for c in totals.values())
    print(f"{'total':<10} {ran:>7} {optimum:>8} {optimum - ran:>6}")
