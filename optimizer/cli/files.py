"""Files and standard input: the command line reads every document, the API never does.

A STATE argument is a file, ``-`` for standard input, or (for a quick try) the JSON text itself;
a ROUTES argument a file or an inline JSON list. What is read goes to the API as text.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .. import api
from ..errors import OptimizerError, RoutesError


def read_text(path: str, field: str, error=OptimizerError) -> str:
    """The text of a file, or of standard input for ``-``; a file that cannot be read is a user's mistake."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text()
    except (OSError, ValueError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        raise error(f"cannot read {path}: {reason}", field=field) from None


def read_state(arg: str) -> dict:
    """The board-state document a STATE argument names."""
    text = arg if arg.lstrip().startswith(("{", "[")) else read_text(arg, "(file)")
    return api.load_state(text)


def read_routes(arg: str) -> list:
    """The routes a ROUTES argument names: a list, or an object holding one under ``routes`` (solve --json)."""
    text = arg if arg.lstrip().startswith("[") else read_text(arg, "--routes", RoutesError)
    return api.load_routes(text, field="--routes")
