"""The command line: ``python -m optimizer SUBCOMMAND`` (or ``route18xx SUBCOMMAND``).

Each subcommand lives in its own module with ``add_parser(subparsers)`` and ``run(args)``; this
module only dispatches and turns a user's mistake into one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import OptimizerError

SUBCOMMANDS = ("solve", "check", "games", "render", "review", "serve", "bench")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="route18xx",
        description="Exact route revenue optimiser for 18xx games (1830, 1880, 1880 Romania, 1894, 18EU).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name and err.name.startswith(__name__):
                continue  # a subcommand not built into this copy
            raise
        module.add_parser(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except OptimizerError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
