"""1880 Romania: 1880's trains and stops, less the China map's ferries and far reds; plus the
D.B.S.R. Danube harbour token, and plus trains that keep towns to their small number.

Rulebook, private 4: "The token increases the value of the relevant city by 10 for all
companies of the owning player." The harbour carrying the token is the hex with the P4
assignment. Three Danube harbours hold two stops (G23 Galați/Brăila, H4, J20): the token is on
the place, so a route counting both stops of the hex gets +10 once, not twice.

Rulebook, "Plus trains": "only as many cities or red off-board connections may be served as
indicated by the large number, plus as many towns and ports as indicated by the small number."
Read as two caps, N large and N small (a 2+2 serves at most two towns), because the sentence
gives each class its own number; 1880 China's "at most N of them large" lets towns fill N. The
rulebook's plus trains are 2+2, 3+3 and 4+4; other plus names (the engine's REMAR tender, which
this rulebook does not have, adds a town: a 4 becomes "4+1", a 4+4 "4+5") run as their rows say.
"""

from dataclasses import replace
from itertools import combinations

from ..model import Bonuses, PairBonus
from ..model.trains import PLUS
from .base import Rules
from .g1880 import Rules1880

DANUBE_COMPANY = "P4"
DANUBE_BONUS = 10


class Rules1880Romania(Rules1880):
    title = "1880 Romania"

    def has_danube_token(self, hx) -> bool:
        return DANUBE_COMPANY in hx.assignments and self.owner_owns(DANUBE_COMPANY)

    def stop_context(self):
        """The stop hooks read the hex, and whether the director owns the Danube private."""
        return Rules.stop_context(self) + (self.owner_owns(DANUBE_COMPANY),)

    def value_bonus(self, hx, node) -> int:
        return DANUBE_BONUS if self.has_danube_token(hx) else 0

    def train_spec(self, train, where):
        spec = super().train_spec(train, where)
        m = PLUS.match(train.name)
        if spec is None or not m or m.group(1) != m.group(2) or spec.visit_total != 2 * int(m.group(1)):
            return spec
        n = int(m.group(1))
        return replace(
            spec, visit_large=n, visit_small=n, pay_large=min(spec.pay_large, n), pay_small=min(spec.pay_small, n)
        )

    def bonuses(self) -> Bonuses:
        bonuses = Bonuses()
        for hx in self.board.hexes.values():
            if self.has_danube_token(hx):  # each stop carries +10; two counted give one back (no tile has three)
                bonuses.pairs += [PairBonus(a, b, -DANUBE_BONUS) for a, b in combinations(self.stop_ids_on(hx.id), 2)]
        return bonuses
