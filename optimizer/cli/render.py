"""``render``: draw a board, and routes if given, as an SVG picture."""

from __future__ import annotations

from .files import read_routes, read_state


def add_parser(sub):
    p = sub.add_parser(
        "render",
        help="draw a board and routes as an SVG picture",
        description="Draw the board of a board state (tiles, track, cities with their tokens, off-boards) and, "
        "with --routes, each train's route over the track, with a legend of stops and revenue.",
    )
    p.add_argument("state", metavar="STATE", help="board-state JSON file (the corpus format), or - for standard input")
    p.add_argument(
        "--routes",
        metavar="ROUTES.json",
        help='routes to draw: a JSON list [{"train": id, "hexes": [[hex, ...], ...]}, ...] (a file, or the '
        "list inline), or the output of solve --json; without it, the bare board",
    )
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="SVG file to write, or - for standard output")
    p.add_argument("--title", help="title of the picture (default: game and company)")
    p.set_defaults(run=run)


def run(args) -> int:
    state = read_state(args.state)
    routes = read_routes(args.routes) if args.routes else None
    from ..render.svg import write_svg  # drawing code is loaded only by the commands that draw

    write_svg(state, routes, args.output, title=args.title)
    return 0
