"""18EU: towns free, ports as route ends, one circle of Paris, Berlin or Vienna, red-to-red runs,
and the Pullman.

Rulebook, "Route & earnings rules": "Max Cities + Off-Map Locations = the train number; Towns and
Ports don't count against it." "A train can't reuse its own track (except four-way junctions on
brown plain tiles) or visit the same location twice (including separate Paris/Berlin/Vienna
circles)." "Off-Map Locations must be route ends (except Hamburg)." "Ports are treated as £10
Towns (never improve; run to but not beyond)." The red-to-red table pays per station token on the
route, up to five: green £10, brown £20, grey £30 each. The Pullman "doubles the value of any one
City or Off-Map Location on one train's run".

Every train but the Pullman is the rulebook's N: however its distance is given (a whole number,
rows, rows that list towns), its large cap is kept and towns are freed, so that ``distance: 3``
and the engine's rows mean the same train.
"""

from dataclasses import replace

from ..model import Bonuses, RedToRedBonus
from ..model.trains import UNLIMITED
from .base import Rules

RED_TO_RED_PER_TOKEN = {"green": 10, "brown": 20, "gray": 30, "grey": 30}
RED_TO_RED_MAX_TOKENS = 5
PULLMAN = "P"


class Rules18EU(Rules):
    title = "18EU"

    def is_port(self, hx, node) -> bool:
        return node.kind == "town" and hx.color == "blue"

    def end_only(self, hx, node) -> bool:
        return super().end_only(hx, node) or self.is_port(hx, node)

    def stop_context(self):
        """The 18EU stop hooks read only the hex and its node beyond the generic ones."""
        return super().stop_context()

    def location(self, hx, node) -> str:
        if node.kind == "city" and len(hx.tile.cities) > 1:
            return hx.id  # the separate circles of Paris, Berlin and Vienna are one location
        return super().location(hx, node)

    def is_pullman(self, train) -> bool:
        return train.name == PULLMAN

    def train_spec(self, train, where):
        if self.is_pullman(train):
            return None
        spec = super().train_spec(train, where)
        if spec is None:
            return None
        return replace(spec, visit_small=UNLIMITED, visit_total=UNLIMITED, pay_small=UNLIMITED, pay_total=UNLIMITED)

    def bonuses(self) -> Bonuses:
        bonuses = Bonuses()
        colour = self.board.phase_tiles[-1]
        if colour in RED_TO_RED_PER_TOKEN:
            bonuses.red_to_red = RedToRedBonus(RED_TO_RED_PER_TOKEN[colour], RED_TO_RED_MAX_TOKENS)
        bonuses.double_best_large = any(self.is_pullman(t) for t in self.board.trains)
        return bonuses
