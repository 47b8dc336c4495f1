"""1880 (China): harbours, ferries, Taiwan and the Trans-Siberian run.

Rulebook, "Run trains": off-boards count as large stations and harbours as small ones, and both
may only end a route; each ferry crossed costs 10 (free with P2); Taiwan pays +20 with P3; one
train running between A3 and A15 adds 50. Beijing needs no rule of its own: while it is a
terminus its stations are separate cities, and once brown it is one city.

Trans-Siberian, "One train running between the far reds A3 and A15 adds ¥50", read as: every
train whose route runs from A3 to A15 adds 50, whether or not an express counts them, because
the rule asks the train to run between them (an E "may skip any" stop it still runs to), and
"one train" says that a single train must cover the whole way, not that one bonus is paid a turn.
"""

from ..model import Bonuses, PairBonus
from .base import Rules

FERRY_HEXES = ("F12", "F14", "J16")
FERRY_COST = 10
FERRY_COMPANY = "P2"
TAIWAN_HEX = "N16"
TAIWAN_COMPANY = "P3"
TAIWAN_BONUS = 20
TRANS_SIBERIAN = ("A3", "A15")
TRANS_SIBERIAN_BONUS = 50


class Rules1880(Rules):
    title = "1880"

    def is_harbour(self, hx) -> bool:
        return hx.color == "blue"

    def is_large(self, hx, node) -> bool:
        return node.kind in ("city", "offboard") and not self.is_harbour(hx)

    def end_only(self, hx, node) -> bool:
        return super().end_only(hx, node) or self.is_harbour(hx) or hx.color == "red"

    def stop_context(self):
        """The stop hooks read the hex, and whether the director owns the Taiwan private."""
        return super().stop_context() + (self.owner_owns(TAIWAN_COMPANY),)

    def value_bonus(self, hx, node) -> int:
        if hx.id == TAIWAN_HEX and self.owner_owns(TAIWAN_COMPANY):
            return TAIWAN_BONUS
        return 0

    def bonuses(self) -> Bonuses:
        bonuses = Bonuses()
        if not self.owner_owns(FERRY_COMPANY):
            bonuses.hex_penalties = {h: FERRY_COST for h in FERRY_HEXES if h in self.board.hexes}
        a, b = (self.stop_ids_on(h) for h in TRANS_SIBERIAN)
        bonuses.pairs = [PairBonus(x, y, TRANS_SIBERIAN_BONUS, visited=True) for x in a for y in b]
        return bonuses
