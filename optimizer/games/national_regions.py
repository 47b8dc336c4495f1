"""1866's national companies (``national_regions``): a national runs within its region only, its home
hexes count as holding its token, and no other company's token blocks it.

The engine's rules (lib/engine/game/g_1866/game.rb): #check_distance refuses a route visiting a stop
outside ``NATIONAL_REGION_HEXES`` of the company (#visits_within_national_region?, #national_hexes) and
#graph_skip_paths skips every path of a hex outside it (so no track outside is walked either);
#city_tokened_by? counts a city of the company's ``coordinates`` (its home hexes) as tokened; the
nationals' graph is ``Graph.new(self, home_as_token: true, no_blocking: true)`` (#setup,
#graph_for_entity); #check_connected is skipped for them, but a route must still visit a city the
company holds (Route#revenue: ``@game.check_route_token``), a home city. We keep its trains off the
track of hexes outside the region as the graph does (the engine's check of a route entered by hand
looks at its stops only, so there a route passing through such a hex without stopping would pass).
The region and the homes are static data of the title (the corporation's id is in the board
document), declared as ``{"company_types": [...], "regions": {id: [hex, ...]}, "homes": {id: [hex, ...]}}``.
"""

from __future__ import annotations


def region_of(rule: dict | None, company) -> frozenset | None:
    """The hexes of the company's region, or None where the company is no national of the rule."""
    if not rule or company.type not in rule.get("company_types", ()):
        return None
    hexes = rule.get("regions", {}).get(company.id)
    return None if hexes is None else frozenset(hexes)


def home_hexes(rule: dict, company) -> frozenset:
    """The national's home hexes, whose cities count as holding its token (#city_tokened_by?)."""
    return frozenset(rule.get("homes", {}).get(company.id, ()))


def segment_reason(region: frozenset, seg) -> str:
    """Why a national may not run a track segment ("" where it may): it crosses a hex outside its region."""
    outside = sorted({h for h in seg.hexes if h not in region})
    return f"a national runs within its region only, not on {', '.join(outside)}" if outside else ""
