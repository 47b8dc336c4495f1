"""1830: the generic rules, and the Gulf as one off-board area.

Canada's off-boards (A9, A11) carry a group in the map data, so a route reaches one of them. The Gulf
is one off-board area of two hexes too (I1, J2) — the printed map draws one area, and a route may count
an off-board area once — but the 18xx.games map marks only I1 with the Gulf group, so its engine lets a
route run from I1 to J2 and pay both; the rulebook's area is kept here. Altoona's bypass is plain
node-less track, and the D train's distance is unlimited.
"""

from .base import Rules


class Rules1830(Rules):
    title = "1830"
    areas = {"I1": "Gulf", "J2": "Gulf"}
