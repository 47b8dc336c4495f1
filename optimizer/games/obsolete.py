"""Obsolete trains (1858 and its variants): a train pays half its route's revenue, rounded down, once
a later train type has been bought (lib/engine/game/g_1858/game.rb#revenue_for: ``revenue /= 2 if
route.train.obsolete``).

The board document does not say which trains are obsolete, but the engine decides it from a fact it
does carry, the phase: ``Train#obsolete`` is set by lib/engine/game/base.rb#rust_trains! (via
``#obsolete?``: ``train.obsolete_on == purchased_train.sym``) on the purchase of the first train of
the ``obsolete_on`` type, and that same purchase starts the phase whose ``on`` lists the type
(lib/engine/phase.rb#process_action: ``next! while @next_on.include?(train.sym)``; the depot sells
the types in order). A variant (2H's 1M, 4H's 2M, 6H's 3M) keeps its card's ``obsolete_on``
(Train#variant= sets only the variant's own keys). So a title declares, as data, the phase from
which each train name is obsolete: ``{"phases": [names in order], "from_phase": {train: phase}}``.
"""

from __future__ import annotations

from ..errors import BoardError


def obsolete_in_phase(rule: dict, train: str, phase: str) -> bool:
    """Whether a train named ``train`` is obsolete in phase ``phase`` by the title's ``rule``."""
    start = rule.get("from_phase", {}).get(train)
    if start is None:
        return False
    phases = list(rule["phases"])
    if phase not in phases:
        raise BoardError(
            f"phase: unknown phase {phase!r} (one of {', '.join(phases)}): which trains are obsolete depends on it",
            field="phase",
        )
    return phases.index(phase) >= phases.index(start)
