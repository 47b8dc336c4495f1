"""``render``: draw a board, and routes if given, as an SVG picture."""
from __future__ import annotations

import json
from pathlib import Path

from .. import api
from ..errors import OptimizerError


def add_parser(sub):
    p = sub.add_parser(
        "render", help="draw a board and routes as an SVG picture",
        description="Draw the board of a board state (tiles, track, cities with their tokens, off-boards) and, "
                    "with --routes, each train's route over the track, with a legend of stops and revenue.")
    p.add_argument("state", metavar="STATE", help="board-state JSON file (the corpus format), or - for standard input")
    p.add_argument("--routes", metavar="ROUTES.json",
                   help='routes to draw: a JSON list [{"train": id, "hexes": [[hex, ...], ...]}, ...], '
                        "or the output of solve --json; without it, the bare board")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="SVG file to write, or - for standard output")
    p.add_argument("--title", help="title of the picture (default: game and company)")
    p.set_defaults(run=run)


def read_routes(path: str) -> list:
    """A routes file: a list of routes, or an object holding one under ``routes`` (solve --json)."""
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as err:
        raise OptimizerError(f"cannot read {path}: {err.strerror}", field="--routes") from None
    except json.JSONDecodeError as err:
        raise OptimizerError(f"{path}: not valid JSON: {err}", field="--routes") from None
    if isinstance(doc, dict) and isinstance(doc.get("routes"), list):
        return doc["routes"]
    if isinstance(doc, list):
        return doc
    raise OptimizerError(f"{path}: expected a list of routes or an object with \"routes\"", field="--routes")


def run(args) -> int:
    state = api.load_state(args.state)
    routes = read_routes(args.routes) if args.routes else None
    from ..render.svg import write_svg
    write_svg(state, routes, args.output, title=args.title)
    return 0
