"""Bonuses and penalties as data: what a game adds to or takes from a route beyond its stops.

Games describe their own rules with these few shapes; the search and the reference price them
without knowing which game they came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PairBonus:
    """``amount`` when stops ``a`` and ``b`` are both paid on one route (1894 Netherlands), or,
    with ``visited``, both on the route whether counted or not (1880 Trans-Siberian). A negative
    amount takes back what two stops of one place would otherwise both add (1880 Romania's
    Danube token, once per route)."""

    a: str
    b: str
    amount: int
    visited: bool = False


@dataclass(frozen=True)
class SetPairBonus:
    """``amount``, once per route, for a route paying (or, with ``visited``, visiting) a stop of set
    ``a`` and one of set ``b``, however many of each (1888's destinations: a stop of the company's home
    hex and one of its destination hex, G1888#destinated?)."""

    a: tuple  # stop ids
    b: tuple
    amount: int
    visited: bool = False
    # once the sets are met, also the value of the route's richest paid stop (its train's row's
    # multiplier applied): 18Neb's east-west route, lib/engine/game/g_18_neb/game.rb#east_west_bonus
    largest: bool = False
    trains: str | None = None  # only for trains whose names match this pattern (1822CA's ports: 10 for
    #   a normal train, 20 for the grain train, none for an E train)


@dataclass(frozen=True)
class LargestStopBonus:
    """When ``trigger`` is paid, add the largest value among the route's other paid stops,
    leaving out ``exclude`` (1894 Luxembourg, London shipping)."""

    trigger: str
    exclude: tuple = ()


@dataclass(frozen=True)
class RedToRedBonus:
    """A route from a red location to a red location earns ``per_token`` for each city on it that
    holds the company's token, for at most ``max_tokens`` of them (18EU)."""

    per_token: int
    max_tokens: int


@dataclass(frozen=True)
class BestRouteBonus:
    """Paid once for the company, on the one of its routes that earns it most: ``amount`` when the
    route visits a stop of every group of ``require`` (stop ids), plus ``per_stop`` for each stop it
    visits (1846 Mail Contract: 10 a stop; 18AL named routes: a route through both hexes)."""

    amount: int = 0
    per_stop: int = 0
    require: tuple = ()  # tuples of stop ids
    multiplied: bool = False  # ``amount`` times the multiplier of the route's train (1822's destination
    #   bonus: the destination city's route_revenue for the train, doubled for an E train)
    counted: tuple | None = None  # the stops ``per_stop`` counts (stop ids), None: every stop (18Tokaido's
    #   Sleeper Train counts the route's cities)
    per_hex: int = 0  # paid for each hex of ``hexes`` the route's track crosses (once a hex) ...
    hexes: tuple = ()  # hex ids
    hexes_except: tuple = ()  # ... but to no train of these names (1822PNW's lumber baron: 10 a forest, none
    #   for an E train, lib/engine/game/g_1822_pnw/game.rb#calculate_lumber_baron_bonus, #forest_revenue)


@dataclass(frozen=True)
class CrowBonus:
    """``per_hex`` for each hex, as the crow flies, between the first and the last stop of a route
    that lie on hexes with a city or an off-board, for trains whose name matches ``trains`` (18GB's
    X trains: lib/engine/game/g_18_gb/game.rb#distance_bonus, #hex_crow_distance)."""

    per_hex: int
    trains: str  # a regular expression a train's whole name matches
    xy: dict  # stop id -> the engine's (x, y) of its hex, for the stops that may be those ends


@dataclass
class Bonuses:
    pairs: list = field(default_factory=list)  # PairBonus
    set_pairs: list = field(default_factory=list)  # SetPairBonus: each at most once a route
    largest: list = field(default_factory=list)  # LargestStopBonus
    red_to_red: RedToRedBonus | None = None
    hex_penalties: dict = field(default_factory=dict)  # hex id -> amount for a route whose track crosses it
    hex_bonuses: dict = field(default_factory=dict)  # hex id -> amount, once a route, for one whose track crosses it
    double_best_large: bool = False  # 18EU Pullman: one city or off-board of one other train counts twice
    best_route: list = field(default_factory=list)  # BestRouteBonus: each paid once, on the company's best route for it
    crow: CrowBonus | None = None  # a distance bonus between a route's ends (18GB's X trains)
    train_hex_bonuses: list = field(default_factory=list)  # (hex id, amount, train names): as hex_bonuses, but
    #   no train of those names earns it (1822PNW's forests and Ski Haus: none for an E train)
