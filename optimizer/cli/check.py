"""``check``: is a set of routes legal, what does it earn, and why not."""

from __future__ import annotations

import json

from .. import api
from .files import read_routes, read_state
from .solve import default_state, stop_labeller


def add_parser(sub):
    p = sub.add_parser(
        "check",
        help="check a player's routes: legal or not, why, and what they earn",
        description='Check routes on a board state. ROUTES is a JSON list of {"train": id, "hexes": [[hex ids of '
        'one chain], ...]} (chains as 18xx.games records them, [["local", HEX]] for a one-city run) or '
        '{"train": id, "stops": ["HEX._N", ...]}; or as players write them: the train by its name ("4"), '
        'stops by hex ("I15") or printed name ("Baltimore", or one string "Baltimore - Lancaster"), the track '
        "as one chain of hexes from end to end. With no STATE, the embedded default board (as solve).",
    )
    p.add_argument(
        "state",
        nargs="?",
        metavar="STATE",
        help="board-state JSON file, or - for standard input; default: the embedded board",
    )
    p.add_argument(
        "--routes", required=True, metavar="ROUTES.json", help="the routes to check (JSON file, or a JSON list inline)"
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"legal", "revenue", "routes": [{"train", "legal", "revenue", "stops", "errors"}]}',
    )
    p.add_argument("--optimum", action="store_true", help="also solve the board, to show what the best routes earn")
    p.set_defaults(run=run)


def run(args) -> int:
    state = read_state(args.state) if args.state else default_state()
    result = api.check(state, read_routes(args.routes), with_optimum=args.optimum)
    if args.json:
        print(json.dumps(result))
        return 0 if result["legal"] else 1
    stop_label = stop_labeller(state)
    for n, r in enumerate(result["routes"], 1):
        status = "legal" if r["legal"] else "ILLEGAL"
        print(f"route {n} ({r['train']}): {status}, {r['revenue']}  {' - '.join(map(stop_label, r['stops']))}")
        for e in r["errors"]:
            print(f"    {e}")
    print(f"total {result['revenue']}: {'legal' if result['legal'] else 'not legal'}")
    for e in result.get("errors", ()):  # a rule on the whole run (1860's, 1862's home token)
        print(f"    {e}")
    if args.optimum:
        best = result["optimum"]
        print(f"best possible: {best['revenue']} ({best['revenue'] - result['revenue']:+d})")
    return 0 if result["legal"] else 1
