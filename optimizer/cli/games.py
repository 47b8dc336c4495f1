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
    games, others = api.games(), api.other_titles()
    if args.json:
        document = {"games": games, "train_kinds": list(api.TRAIN_KINDS), "other_games": "generic"}
        print(json.dumps({**document, "other_titles": others}))
        return 0
    for g in games:
        families = f": {', '.join(g['revenue_rules'])}" if g["revenue_rules"] else ""
        print(f"{g['title']} ({g['layout']} hexes; rules: {g['rules']}{families})")
        print("  trains: " + ", ".join(f"{t['name']} (${t['price']}, x{t['count']})" for t in g["trains"]))
        print("  phases: " + ", ".join(f"{p['name']} [{'/'.join(p['tiles'])}]" for p in g["phases"]))
        _print_unsupported(g["unsupported"])
    print("train kinds: " + ", ".join(api.TRAIN_KINDS))
    print("other titles of 18xx.games, answered with the generic rules:")
    for t in others:
        print(f"{t['title']}" + ("" if t["unsupported"] else ": right on every state the engine judged"))
        _print_unsupported(t["unsupported"])
    print('any other game: the generic rules (the plain sum of stop values; answers say "rules": "generic")')
    return 0


def _print_unsupported(rules) -> None:
    for rule in rules:
        print(f"  unsupported: {rule}")
