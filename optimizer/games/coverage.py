"""What we know our rules do not model yet, title by title, so an answer never passes a wrong number
silently.

The 18xx.games engine plays about a hundred titles. ``coverage.json`` lists every title we know of
(the built-in games and every title of the catalogue the engine judges, docs/catalog.md) with the
rules of that title the optimiser does not express yet, each citing the engine's code. An answer on
such a title carries the list as ``unsupported``; ``route18xx games`` and ListGames show it per title.
An empty list is a claim: the engine accepted our answers on every state of that title we have.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def _registry() -> dict:
    raw = json.loads(resources.files("optimizer.games").joinpath("coverage.json").read_text())
    return {title: tuple(rules) for title, rules in raw["titles"].items()}


@cache
def _by_lower() -> dict:
    return {title.lower(): title for title in _registry()}


def known_title(game: str) -> str | None:
    """The registry's spelling of a title (matched ignoring case), or None for a title we do not know."""
    return _by_lower().get(str(game).lower())


def unsupported_rules(game: str) -> tuple:
    """The rules of ``game`` we do not model, each as one line naming the engine's code; empty for a
    title right on every state we have, and for a title we do not know (its answer says "generic")."""
    title = known_title(game)
    return _registry()[title] if title else ()


def known_titles() -> list:
    """Every title the registry lists, in its order."""
    return list(_registry())
