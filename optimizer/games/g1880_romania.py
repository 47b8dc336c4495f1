"""1880 Romania: 1880's trains and stops, less the China map's ferries and far reds; plus the
D.B.S.R. Danube harbour token.

Rulebook, private 4: "The token increases the value of the relevant city by 10 for all
companies of the owning player." The harbour carrying the token is the hex with the P4
assignment.
"""
from ..model import Bonuses
from .g1880 import Rules1880

DANUBE_COMPANY = "P4"
DANUBE_BONUS = 10


class Rules1880Romania(Rules1880):
    title = "1880 Romania"

    def value_bonus(self, hx, node) -> int:
        if DANUBE_COMPANY in hx.assignments and self.owner_owns(DANUBE_COMPANY):
            return DANUBE_BONUS
        return 0

    def bonuses(self) -> Bonuses:
        return Bonuses()
