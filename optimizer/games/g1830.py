"""1830: the generic rules as they are.

Canada and Gulf off-boards carry groups in the map data (one of each group per route), Altoona's
bypass is plain node-less track, and the D train's distance is unlimited.
"""

from .base import Rules


class Rules1830(Rules):
    title = "1830"
