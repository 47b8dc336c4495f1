"""Built-in games: their rules modules and their static data (map, tiles, trains, phases)."""

from __future__ import annotations

import json
from functools import cache, lru_cache
from importlib import resources

from .base import Rules
from .declared import DeclaredRules
from .g18eu import Rules18EU
from .g1830 import Rules1830
from .g1880 import Rules1880
from .g1880_romania import Rules1880Romania
from .g1894 import Rules1894

RULES = {r.title: r for r in (Rules1830, Rules1880, Rules1880Romania, Rules1894, Rules18EU)}
DATA_FILES = {
    "1830": "1830.json",
    "1880": "1880.json",
    "1880 Romania": "1880Romania.json",
    "1894": "1894.json",
    "18EU": "18EU.json",
    "1889": "1889.json",
    "18Chesapeake": "18Chesapeake.json",
    "1846": "1846.json",
    "18AL": "18AL.json",
    "1846 2p Variant": "18462pVariant.json",
    "1852: Missouri": "1852Missouri.json",
    "1856": "1856.json",
    "1882": "1882.json",
    "18Chesapeake: Off the Rails": "18ChesapeakeOfftheRails.json",
    "18Tokaido": "18Tokaido.json",
    # the engine's "no hex visited twice" (one_stop_per_hex), with their subclasses
    "1817": "1817.json",
    "1817NA": "1817NA.json",
    "1817WO": "1817WO.json",
    "18DE": "18DE.json",
    "18 Hiawatha": "18Hiawatha.json",
    "18USA": "18USA.json",
    "1822": "1822.json",
    "1822MRS": "1822MRS.json",
    "1822NRS": "1822NRS.json",
    "1822MX": "1822MX.json",
    "1822PNW": "1822PNW.json",
    "1822PNW Short Scenario": "1822PNWShortScenario.json",
    "1822PNW SRS": "1822PNWSRS.json",
    "1822CA": "1822CA.json",
    "1822CA ERS": "1822CAERS.json",
    "1822CA WRS": "1822CAWRS.json",
    "1822Africa": "1822Africa.json",
    "1861": "1861.json",
    "1866": "1866.json",
    "1867": "1867.json",
    "18ESP": "18ESP.json",
    "18FL": "18FL.json",
    # a bonus once a route for a stop of each of two sets (set_pairs)
    "1888": "1888.json",
    # cities, off-boards and towns in rows of their own (stop_classes)
    "18Ardennes": "18Ardennes.json",
    "18VA": "18VA.json",
    # a bonus growing with the number of labelled stops (label_count_bonus)
    "1848": "1848.json",
    # towns at a route's ends count against its cities (end_towns_count)
    "18MT: Big Sky Barons": "18MT.json",
    # trains whose distance is hex edges, not stops (hex_distance)
    "1849": "1849.json",
    "1849: Kingdom of the Two Sicilies": "1849KingdomoftheTwoSicilies.json",
    "1858Switzerland": "1858Switzerland.json",
    "18Ireland": "18Ireland.json",
    "18NY": "18NY.json",
    "18NY 1st Edition": "18NY1stEdition.json",
    "1844": "1844.json",
    # how routes walk the track (track_walk): gauge ignored at sides, or a track no route runs on
    "18Carolinas": "18Carolinas.json",
    "18Norway": "18Norway.json",
    # trains on one gauge only (track_walk: skip_track_by_train), and 1858's hex trains
    "1858": "1858.json",
    "1858India": "1858India.json",
    # some route of a run visits the home token (home_route: a rule on the whole run)
    "1860": "1860.json",
    "1862": "1862.json",
    # stops counted by the title's rule (counted_stops): towns and unpaid off-boards free
    "18ZOO - Map A": "18ZOOMapA.json",
    "18ZOO - Map B": "18ZOOMapB.json",
    "18ZOO - Map C": "18ZOOMapC.json",
    "18ZOO - Map D": "18ZOOMapD.json",
    "18ZOO - Map E": "18ZOOMapE.json",
    "18ZOO - Map F": "18ZOOMapF.json",
    # routes begin and end at termini, framed towns never passed through (route_termini)
    "Harzbahn 1873": "1873.json",
    # no route begins or ends at a town (no_town_ends)
    "Steam Over Holland": "SteamOverHolland.json",
    "18Rhl": "18Rhl.json",
    # mines only goods trains visit, paid as a subsidy (mines)
    "1837": "1837.json",
    "1824": "1824.json",
    "1824 Cisleithania": "1824Cisleithania.json",
    "18Mag": "18Mag.json",
    # the track kinds a route may use (gauges), with 18Carolinas and 18Norway above
    "1825": "1825.json",
    "1840": "1840.json",
    "18CO": "18CO.json",
    # a stop paid twice (ability_stop_doubles, own_hex_doubles)
    "18JP-T": "18JPT.json",
    "1850": "1850.json",
    # an off-board's revenue column chosen by the phase's name (offboard_phase_columns)
    "1841": "1841.json",
    # bonuses for a route joining two sets of hexes (set_pairs)
    "1847 AE": "1847AE.json",
    # 1846's subclasses with their own bonuses: E/W else N/S, the Dump, freight trains' own track
    "18 Los Angeles": "18LosAngeles1.json",
    "18 Los Angeles 2": "18LosAngeles2.json",
    # a port paid once for each of the company's token cities on the route (port_per_token)
    "1836Jr30": "1836Jr30.json",
    "1836Jr56": "1836Jr56.json",
    # icon pairs as set pairs, private companies paying their owner, an E train's token cities twice
    "18SJ": "18SJ.json",
    # a large company's train paid its best stops only (first_row_pays_total), and a label bonus
    "18CZ": "18CZ.json",
    # an east-west route paid its richest stop again (set_pairs with largest: a kernel family)
    "18Neb": "18Neb.json",
    # a distance bonus between a route's ends (crow_distance_bonus), closed privates' hex bonuses
    "18GB": "18GB.json",
    # routes sharing track, a stop paid once a run (routes_share_track, stops_paid_once), hex trains
    "1877: Stockholm Tramways": "1877StockholmTramways.json",
    # a run of every train pays its lowest route nothing (civil_war: a rule on the whole run)
    "18TN": "18TN.json",
    # a route through a port pays half again (port_half_again)
    "1850Jr": "1850Jr.json",
    # a route ending at the reached destination earns it again (destination_ends)
    "1870": "1870.json",
    # the 4D pays double and keeps off the ports (multiplied_trains, trains_kept_off); a stop whose visit
    # costs no distance (visit_cost:0, the England off-boards) counts none by the generic rule
    "18Uruguay": "18Uruguay.json",
    # express trains run as one, cities capped, towns free, paid times their number (express_trains)
    "18NewEngland": "18NewEngland.json",
    "18NewEngland 2: Northern States": "18NewEngland2.json",
    # forts crossed, E/W icons, Yellowstone with Wylie, uranium by phase, purple hexes home only
    "1868 Wyoming": "1868Wyoming.json",
    # variable cities, commodities, gauge changes at borders, cities at both ends (18 India)
    "18 India": "18India.json",
}
# games whose data file's revenue_rules are their rules: every game with data and no rules module
DECLARED = tuple(title for title in DATA_FILES if title not in RULES)
ALIASES = {"1880 china": "1880", "1880romania": "1880 Romania", "1880 romania": "1880 Romania", "18eu": "18EU"}


def canonical_name(name: str) -> str | None:
    if name in DATA_FILES:
        return name
    return ALIASES.get(str(name).lower()) or next((g for g in DATA_FILES if g.lower() == str(name).lower()), None)


def rules_class(game: str) -> type:
    """The rules of a game by title; a game we have no rules for gets the generic ones
    (their ``title`` is ``"generic"``, which answers report)."""
    key = canonical_name(game) or game
    if key in RULES:
        return RULES[key]
    if key in DECLARED:
        return _declared(key)
    return Rules


@cache
def _declared(name: str) -> type:
    return DeclaredRules.for_game(name, game_data(name), revenue_rules(name))


def revenue_rules(name: str) -> dict:
    """A declared game's rule families: its data file's ``revenue_rules``, over those of the game
    it names under ``inherits`` (a variant the engine makes a subclass of that game says so once:
    ``{"inherits": "1846"}``; its own map, trains and companies are its own data file's)."""
    own = game_data(name).get("revenue_rules", {})
    parent = own.get("inherits")
    if parent is None:
        return own
    merged = {k: v for k, v in revenue_rules(parent).items() if k not in ("source", "inherits")}
    merged.update(own)
    return merged


def rules_for(board) -> Rules:
    """The rules of the board's game; unknown games get the generic rules."""
    return rules_class(board.game)(board)


def game_names() -> list:
    return list(DATA_FILES)


def families_of(cls: type) -> list:
    """The revenue-rule families a rules class applies: its data file's, none for a module or the
    generic rules."""
    if not issubclass(cls, DeclaredRules):
        return []
    return [k for k, v in cls.declared.items() if k not in ("source", "inherits") and v not in ("", False)]


def rules_source(name: str) -> tuple:
    """Where a built-in game's rules come from, and the revenue-rule families its data declares:
    ("module", []) for a rules module of its own, ("data", families) for rules declared in its data
    file, ("generic", []) where the generic rules suffice (18Chesapeake), and for a game not built in."""
    if canonical_name(name) is None:
        return "generic", []
    cls = rules_class(name)
    if issubclass(cls, DeclaredRules):
        families = families_of(cls)
        return ("data" if families else "generic"), families
    own = {name for name in vars(cls) if not name.startswith("__")} - {"title"}
    return ("module" if own else "generic"), []


@lru_cache(maxsize=8)
def game_data(name: str) -> dict:
    """The static data of a built-in game: hexes, tiles, trains, phases, companies."""
    key = canonical_name(name)
    if key is None:
        from ..errors import BoardError

        raise BoardError(f"unknown game {name!r} (built in: {', '.join(DATA_FILES)})", field="game")
    return json.loads(resources.files("optimizer.games.data").joinpath(DATA_FILES[key]).read_text())
