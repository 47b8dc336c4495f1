"""1840's train maintenance: what a minor's run earns besides its routes, where the board settles it.

The engine (lib/engine/game/g_1840/game.rb) adds ``#maintenance_costs`` to a minor's routes
(``#routes_revenue``: nothing without routes): each train's cost in the active table
(``#train_maintenance``, keyed by the train's ``sym``, the id before its ``-N``). The active table is
that of the most advanced type ever bought (``#buy_train``: a table replaces the active one only where
its ``Y1`` cost is lower), which the board document does not carry. A train the company owns was
bought, so its type's table, or a later one, is active: where every table from there on prices the
company's trains alike, the maintenance is known; otherwise it is not, and is left out.
"""

from __future__ import annotations


def train_type(train) -> str:
    """The engine's ``Train#sym``: its id is ``"#{sym}-#{index}"`` (lib/engine/train.rb#id)."""
    return str(train.id).rsplit("-", 1)[0]


def known_maintenance(rule: dict, company_type: str | None, trains) -> int | None:
    """The maintenance a company's trains earn under ``rule`` (``train_maintenance``), or None where the
    board does not settle it. ``rule["tables"]``: in the engine's order, each ``{"bought": T, "costs":
    {type: amount}}`` the table active once a T is bought; before any, none (every cost 0)."""
    if company_type not in rule.get("company_types", ()):
        return 0
    types = [train_type(t) for t in trains]
    tables = [{}] + [t["costs"] for t in rule["tables"]]
    bought = [t["bought"] for t in rule["tables"]]
    first = max((1 + i for i, b in enumerate(bought) if b in types), default=0)  # the table a train proves
    totals = {sum(int(costs.get(ty, 0)) for ty in types) for costs in tables[first:]}
    return totals.pop() if len(totals) == 1 else None
