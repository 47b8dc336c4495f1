"""1894: London and its ferry, Paris's two circles, Luxembourg, the Netherlands, London shipping.

Rulebook: "Without one [a ferry marker] it may not build toward, token toward, or run to or
through London." "Luxembourg pays the largest other center on the route. Netherlands with any
other off-board pays +F100." "A route may use only one of Paris's two circles, and may not reach
Paris twice." London shipping "adds to any route through London the largest center on it bar
London and Luxembourg".
"""

from ..model import Bonuses, LargestStopBonus, PairBonus
from .base import Rules

LONDON = "A10"
LONDON_BONUS_HEX = "A12"
PARIS = "G6"
LUXEMBOURG = "I18"
NETHERLANDS = "C18"
OTHER_OFFBOARDS = ("I2", "I18", "A4")
NETHERLANDS_BONUS = 100


class Rules1894(Rules):
    title = "1894"

    def has_ferry_marker(self) -> bool:
        if self.company.ferry_marker is not None:
            return bool(self.company.ferry_marker)
        return any(a.get("description") == "Ferry marker" for a in self.company.abilities)

    def has_london_shipping(self) -> bool:
        hx = self.board.hexes.get(LONDON_BONUS_HEX)
        tokened = hx is not None and any(self.company.id in c.tokens for c in hx.cities.values())
        return tokened or any(a.get("description") == "London bonus" for a in self.company.abilities)

    def forbidden(self, hx, node) -> bool:
        return hx.id == LONDON and not self.has_ferry_marker()

    def forbidden_reason(self, hx, node) -> str:
        return super().forbidden_reason(hx, node) + ": it has no ferry marker"

    def stop_context(self):
        """The 1894 stop hooks read only the hex and its node beyond the generic ones."""
        return super().stop_context()

    def location(self, hx, node) -> str:
        return PARIS if hx.id == PARIS else super().location(hx, node)

    def bonuses(self) -> Bonuses:
        bonuses = Bonuses()
        luxembourg = self.stop_ids_on(LUXEMBOURG)
        london = self.stop_ids_on(LONDON)
        bonuses.largest = [LargestStopBonus(s, tuple(luxembourg)) for s in luxembourg]
        if self.has_london_shipping():
            bonuses.largest += [LargestStopBonus(s, tuple(london + luxembourg)) for s in london]
        bonuses.pairs = [
            PairBonus(n, o, NETHERLANDS_BONUS)
            for n in self.stop_ids_on(NETHERLANDS)
            for h in OTHER_OFFBOARDS
            for o in self.stop_ids_on(h)
        ]
        return bonuses
