"""``games``: the built-in games, their trains and phases."""

from __future__ import annotations

import json

from .. import api


def add_parser(sub):
    p = sub.add_parser(
        "games",
        help="list the built-in games, their trains and phases",
        description="List the built-in games with their trains (name, distance, price, count) and "
        "phases (tile colours), and the train kinds the optimiser supports.",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.set_defaults(run=run)


def run(args) -> int:
    games = api.games()
    if args.json:
        print(json.dumps({"games": games, "train_kinds": list(api.TRAIN_KINDS), "other_games": "generic"}))
        return 0
    for g in games:
        families = f": {', '.join(g['revenue_rules'])}" if g["revenue_rules"] else ""
        print(f"{g['title']} ({g['layout']} hexes; rules: {g['rules']}{families})")
        print("  trains: " + ", ".join(f"{t['name']} (${t['price']}, x{t['count']})" for t in g["trains"]))
        print("  phases: " + ", ".join(f"{p['name']} [{'/'.join(p['tiles'])}]" for p in g["phases"]))
    print("train kinds: " + ", ".join(api.TRAIN_KINDS))
    print('any other game: the generic rules (the plain sum of stop values; answers say "rules": "generic")')
    return 0
