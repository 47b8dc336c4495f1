"""The value types every layer shares: stops, train caps, bonuses.

They sit below the games, the graph and the search, and import nothing of the project but its
errors, so that a game can describe its rules in them and the search can read them without either
knowing the other.
"""

from __future__ import annotations

from .bonuses import BestRouteBonus, Bonuses, CrowBonus, LargestStopBonus, PairBonus, RedToRedBonus, SetPairBonus
from .stop import Stop
from .trains import MINES_ANY, MINES_NONE, MINES_ONE, TrainSpec, spec_from_rows, spec_from_train

__all__ = [
    "BestRouteBonus",
    "Bonuses",
    "CrowBonus",
    "LargestStopBonus",
    "MINES_ANY",
    "MINES_NONE",
    "MINES_ONE",
    "PairBonus",
    "RedToRedBonus",
    "SetPairBonus",
    "Stop",
    "TrainSpec",
    "spec_from_rows",
    "spec_from_train",
]
