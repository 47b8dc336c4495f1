"""Revenue rules as data: a game described by the ``revenue_rules`` of its data file.

Each key is one rule family the 18xx.games engine adds to the plain sum of stop values; a game
is then a data file, and a new game needs code only for a family not seen yet:

- ``train_values``: a train kind paid another entry of the stops' revenue tables
  (``{"D": "diesel"}``: 1889's off-boards pay ``diesel_N`` to D trains).
- ``assigned_stop_bonuses``: ``[{assignment, amount, per_icon?}]``: a route's stop on a hex
  holding an assignment the company holds too earns ``amount`` once per route (times the
  ``per_icon`` icons on the hex's tile when given) (1846 Steamboat, Meat Packing, Boomtown).
- ``hex_assignment_stop_bonuses``: ``[{assignment, amount}]``: every paid stop on a hex holding the
  assignment, whoever placed it, earns ``amount`` (1817's bridge tokens:
  lib/engine/game/g_1817/game.rb#revenue_for, ``stops.count { |stop| stop.hex.assigned?('bridge') }``).
- ``track_assignment_bonuses``: ``[{assignment, amount, no_ends?}]``: a route whose track crosses a hex
  holding the assignment earns ``amount``, once a hex however often it crosses it (1817's mines and
  ranches, 18Hiawatha's farms: g_1817/game.rb#revenue_for, ``route.all_hexes.count { |hex|
  hex.assigned?(mine) }``; ``Route#all_hexes`` is the uniq hexes of the route's paths). With
  ``no_ends`` a route may not start or end at such a hex ("Route cannot start or end with a mine"):
  the markers lie on plain track, so no route has a node there; a stop on one is refused.
- ``track_label_bonuses``: ``[{label, amount, tiles?, phase?}]``: a route whose track crosses a hex
  whose (not white) tile's label holds ``label`` earns ``amount``, or ``tiles[name]`` for the tiles
  named there, or ``phase[colour]`` once the phase has that tile colour; once a hex, summed over
  the rules a hex meets (18USA's resources: lib/engine/game/g_18_usa/game.rb#revenue_for over
  ``route.all_hexes - stop_hexes``, #tile_resources, ``ORE20_TILES``, #phase_5_or_later?; its
  resource tiles hold no stop a route reaches, so no such hex is a stop hex).
- ``train_stop_bonuses``: ``[{train, amount, except_tiles?}]``: a train whose name matches the
  pattern ``train`` earns ``amount`` more for every paid stop, but for those on the tiles named
  (18USA's Pullman upgrade, a train named ``5P``: ``20 * stops.count { |s| !RURAL_TILES.include?
  (s.tile.name) }``).
- ``untokened_tile_penalties``: ``[{tiles, amount}]``: a route paying a stop on one of these tiles
  whose city holds no token of the company loses ``amount``, once a route (18USA's company towns:
  g_18_usa/game.rb#revenue_for, ``revenue -= 10 if company_tile && !company_tile.cities.first
  .tokened_by?(corporation)``, ``COMPANY_TOWN_TILES``), as a set pair whose two sets are those stops.
- ``ability_stop_bonuses``: ability types whose ``hexes`` pay ``amount`` for every stop of a
  route on them (18AL Warrior Coal Field, ``hexes_bonus``).
- ``group_pairs``: ``[{a, b, amount}]``: a route paying a stop of set ``a`` and one of set ``b``
  earns ``amount``; sets are ``{"group": G}`` (stops in group G), ``{"label": L}`` (stops on
  tiles labelled L) or ``{"hexes": [H, ...]}`` (stops on those hexes); ``"icons"`` pays the numbers
  on both ends' icons (1846 East-West). Paid once per route only where no route can pay two stops
  of one set (1846's E group, 1882's off-boards: a route reaches off-boards only at its ends).
- ``set_pairs``: ``[{a, b, amount, company?, visited?}]``: ``amount`` once for a route paying (with
  ``visited``: visiting) a stop of set ``a`` and one of set ``b``, however many of each; sets as for
  ``group_pairs``; only for ``company`` where it names one (1888's destinations: a stop of the
  company's home hex and one of its destination hex, lib/engine/game/g_1888/game.rb#revenue_for and
  ``#destinated?``, paid once a route per destination).
- ``best_route_bonuses``: ``[{company?, ability?, hexes?, amount?, per_stop?, per_phase_colour?}]``:
  paid once for the company, on its route that earns it most: ``amount`` when the route visits a
  stop on every hex of ``hexes``, plus ``per_stop`` for each stop it visits (1846 Mail Contract,
  18AL named routes); it applies when the company owns ``company`` or holds an ability of type
  ``ability``. ``per_phase_colour`` (``{"yellow": 10, ...}``) adds to ``amount`` for each of the
  phase's tile colours it names (18Norway's mail contract: no ``hexes``, 10 per colour of yellow,
  green and brown, g_18_norway/game.rb#routes_revenue).
- ``tokened_cities_only``: ``true`` where a city pays nothing to a route of a company without a
  token in it (towns and off-boards pay as usual): 1840, lib/engine/game/g_1840/game.rb#revenue_for.
- ``one_stop_per_hex``: ``true`` where a route may not pay two stops of one hex (1852: Missouri,
  lib/engine/game/g_18_mo/game.rb#check_other): each stop's location is its hex (a stop in a group
  keeps the group's location, which a route reaches once already). It is also the engine's "Route
  visits same hex twice" (g_1817, g_1822, g_1866, g_1867, g_18_esp, g_18_fl, g_18_hiawatha
  ``#revenue_for``): ``Route#hexes`` is the hexes of the route's nodes (the ends of its node-to-node
  chains), not of its track, so a route passing a hex's track twice is legal and one visiting two of
  its stops is not. ``{"except_hexes": [H, ...]}`` exempts the hexes the engine lists as
  ``DOUBLE_HEX`` (1822 family, 1866, 18ESP: two stops of those hexes may share a route);
  ``{"hexes": [H, ...]}`` keeps it to those hexes.
  ``{"except_towns": true}`` those whose tile (as laid now) has a town (g_1824 ``#revenue_for``:
  "Route cannot visit same revenue center twice", of the stops whose ``hex.tile.towns`` is empty:
  Wien's three cities, not a double town's two towns).
- ``local_cities_once``: ``"city"`` where no city may be on the routes of two of the company's local
  trains (lib/engine/game/g_1822/game.rb#check_local_cities: "Local train can only use each token on
  ... once", of every route of a local train, a local run or not), ``"hex"`` where it is no hex with
  such a city (g_1866/game.rb#check_overlap). A local train (``local: true``: lib/engine/train.rb
  #local?) may always run one city holding the company's token alone, on no track, in every title.
- ``stop_classes``: ``{"large": [types], "small_groups"?, "small_groups_trains"?, "large_visit_from_name"?}``:
  the node types a train's large caps count, where the engine's rows give cities, off-boards and towns
  a row each (18Ardennes, 18VA; see :mod:`optimizer.games.stop_classes`); groups whose cities count
  small where every train matches ``small_groups_trains`` (18VA's CMD for freight trains); the large
  visit capped at the number in the train's name (18VA ``#check_distance``).
- ``label_count_bonus``: ``{label, amount}``: ``amount`` for each paid stop on a hex labelled (or to be
  labelled) ``label``, less ``amount`` once a route (1848's K_BONUS, g_1848 ``#revenue_for``).
- ``gauge_borders``: ``{free_in_name?}``: each border a route's track crosses is a gauge change that
  counts as a city of no value, one free for a train whose name has ``free_in_name`` (g_1848
  ``#visited_stops``); the searches count them per segment (``gauge_halves_by_seg``).
- ``end_towns_count``: ``true`` where towns at a route's ends count against the pay of the train's
  city row (g_18_mt ``#check_distance``; ``end_cap_by_train``).
- ``unsupported_trains``: ``{name: reason}``: a train refused with the reason (1848's 2E).
- ``hex_distance``: trains whose distance is hex edges crossed, not stops (1849, 1844, 1858,
  18Ireland, 18NY): which trains, how edges are counted; see :mod:`optimizer.games.hex_trains`.
- ``track_walk``: how routes walk the track, where the title departs from the engine's default
  (gauge matched where a walk crosses a hex side, lib/engine/part/path.rb#walk and #tracks_match?):
  ``{"ignore_gauge": true}`` where its tiles set ``ignore_gauge_walk`` (g_18_carolinas, g_1844,
  g_18_norway ``#setup``), ``{"skip_track": "narrow"}`` where no route walks that track at all
  (the engine's ``Game::Base#skip_route_track_type`` for every train; 18Ireland's, whose trains all
  count hexes, is ``hex_distance``'s ``only_gauge``). Gauges by train (1858's metre-gauge M trains,
  g_1858/game.rb#skip_route_track_type) are ``hex_distance``'s ``train_gauge``.
- ``home_route``: ``{"homes": {company: hex}}``: some route of a run must visit the company's token
  city in its home hex (g_1860/game.rb and g_1862/game.rb #check_home_token, from
  #check_route_combination): a rule on the whole run; see :mod:`optimizer.games.home_route`.
- ``narrow_gauge_revenue``: ``true`` where a stop also pays the places its narrow gauge reaches
  (18Ireland); see :mod:`optimizer.games.narrow_gauge`.
- ``paid_only_tokened_or_red``: ``{"suffix": "DE"}``: a train whose name ends so is paid only the
  stops holding the company's token and red off-boards (lib/engine/game/g_18_ny/game.rb#compute_stops,
  second edition: ``stops.select! { |stop| stop.tokened_by?(route.corporation) || stop.tile.color ==
  :red }``); the others pay it nothing.
- ``e_trains``: ``{trains, token_ends?}``: the trains named (the engine's ``train_type`` :etrain) are
  paid only by cities holding the company's token (others are passed through, paying nothing) and
  run in an overlap group of their own: they may reuse track the company's other trains use, not
  each other's (g_1822/game.rb and g_1866/game.rb ``#revenue_for``, ``#check_overlap``,
  ``#compute_other_paths``). With ``token_ends`` a route also starts and ends at such cities
  (g_1822/game.rb#check_distance: "E-train route must start and end at tokened cities"; two of them,
  so "at least 2 tokened cities" follows).
- ``destination_bonus``: ``{"company_type": T}``: a company of type T (1822's majors) that has placed
  its destination token earns, once, on its route that earns it most, the value of the destination
  token's city times the route's train's multiplier, where the route visits the city holding its home
  token and the one holding its destination token (g_1822/game.rb#calculate_destination_bonus,
  #destination_bonus, #revenue_for). The home token's hex is the company's ``Home: ... (HEX)`` ability;
  the destination token is the company's token of type ``destination`` (the document's ``token_types``).
- ``no_town_ends``: ``true`` where a route may not begin or end at a town (or halt): it may only
  pass through one (lib/engine/game/g_steam_over_holland/game.rb, g_18_rhl/game.rb and
  g_1862/game.rb ``#check_distance``: "Route cannot begin/end in a town"). The converse of an
  off-board's end-only: both searches refuse such a route, and its extensions are still grown.
- ``counted_stops``: ``{min, towns_count_for?}``: the stops a train counts against its distance are
  its cities and the off-boards paying in yellow; towns and off-boards paying nothing there ride
  free, except towns for the trains named in ``towns_count_for``; a route must count ``min`` of
  them (lib/engine/game/g_18_zoo/game.rb ``#check_distance``, ``#cities_visited``: "Water and
  external gray don't count as city/offboard."). Every stop visited is still paid (a numeric
  distance, ``Game::Base#compute_stops``).
- ``mines``: ``{assignment?, token?, goods_suffix?}``: the stops of hexes holding the assignment
  (1837, 1824: ``coal``, set by lib/engine/game/g_1837/game.rb#setup_mines on ``MINE_HEXES``), or
  the cities holding the named neutral token (18Mag: ``mine``), are mines. A goods train (its name
  ends with ``goods_suffix``: ``G`` in 1837, ``g`` in 1824, ``#goods_train?``) must visit exactly one
  mine, every other train none (g_1837 ``#check_other``: "Must visit one mine", "Cannot visit more
  than one mine", "Only goods trains can visit a mine"; g_18_mag ``#check_other``: "Cannot visit
  mine" without the round's SNW rail car, which a board document does not carry, so never). A mine
  pays no route revenue: g_1837 ``#revenue_for`` is ``super - #mine_revenue``, paid instead as the
  company's subsidy (``#routes_subsidy``), which is not the routes' revenue (``Game::Base
  #routes_revenue``). All mines share one location, so no route reaches two.
- ``gauges``: ``[{sets, trains?, except_trains?, company_types?}]``: the first rule naming the
  train (by name, ``trains`` / ``except_trains``) and the company's type (``company_types``) says
  which track kinds (the tile DSL's ``track:``: ``broad``, ``narrow``, ``dual``) its route may use:
  every path of the route within one of ``sets``; a train no rule names runs any track.
  18Carolinas: no route mixes the gauges, dual track goes with either
  (g_18_carolinas/game.rb#check_other: "Train cannot use more than one gauge"); 1840: a minor's
  route only broad track (g_1840/game.rb#check_track_type); 18Norway: ships only water (``narrow``),
  trains never (g_18_norway/game.rb#check_other, ``#ship?``: a train whose ``track_type`` is narrow).
- ``ability_stop_doubles``: ability types whose ``hexes`` pay their stops twice (18JP-T's hex_bonus,
  lib/engine/game/g_18_jpt/game.rb#revenue_for: "Double revenue of corporation's destination hexes").
- ``own_hex_doubles``: ``true`` where a stop on a hex the engine assigned the company itself pays twice
  (1850's edge token, lib/engine/game/g_1850/game.rb#revenue_for; the engine pays the first such stop of
  a route, and a company has one edge token, on an off-board of one stop).
- ``offboard_phase_columns``: ``{phase name: column}`` where an off-board's revenue table is keyed by
  columns the engine picks by the phase's name rather than by the phase's tile colours (1841:
  ``white`` in phases 2-3, ``gray`` in 4-5, ``black`` in 6-8, lib/engine/game/g_1841/game.rb
  #game_route_revenue, ``REAL_PHASE_TO_REV_PHASE``).
- ``routes_share_track``: ``true`` where the company's routes may share track, each train's route
  still using a piece of track once (lib/engine/game/g_1877_stockholm_tramways/game.rb and
  g_1862/game.rb: ``#check_overlap`` empty, ``#check_overlap_single`` per route, ``#compute_other_paths``
  ``[]``): every train runs in an overlap group of its own (``Problem.track_group_by_train``).
- ``stops_paid_once``: ``true`` where a stop already on an earlier route of the run pays nothing
  (g_1877_stockholm_tramways/game.rb#revenue_for, #stop_on_other_route?): the run pays each stop it
  pays once, to the first route (in the order the routes are listed) paid it; a stop sharing a group
  with it pays nothing either. A route is paid what the engine's ``compute_stops`` gives: every stop
  for a train paying all, a freight train's ends, and for one paying some of its cities the ones the
  engine picks across the run (g_1862/game.rb#global_optimize); see ``revenue.paid_once_run``. A route
  alone earns at least its share, so the bounds stay admissible. The nested kernel prices it where
  every train pays all its stops and no stop has a group (a level's route less the stops of the levels
  before it); otherwise the reference answers.
- ``linked_stops``: ``{group, token_hexes}``: the stops of the group are no route's while the company
  holds no token in a city on one of ``token_hexes`` (g_1862/game.rb#check_london, #london_link?: "Train
  cannot visit London w/o link", of a route's first and last stops; London's are off-boards, which only
  end routes, so no route reaches them).
- ``routes_meet``: ``true`` where a run's routes must all link up through stops they share (g_1860/game.rb
  and g_1862/game.rb #check_intersection, from #check_route_combination): a rule on the whole run; see
  :mod:`optimizer.games.routes_meet`.
- ``unlike_ends``: ``["red", "blue"]``: no route begins and ends on hexes of one of these colours
  (g_1862/game.rb#check_distance: "Route cannot visit two red offboards or two ports"). Checked where a
  route is priced; the kernels decline it (the reference answers).
- ``freight_trains``: ``{pattern, bonus, port_bonus}``: the trains whose name matches ``pattern`` are paid
  their route's two ends and ``bonus`` (``port_bonus`` where an end is a port) for each hex between the
  ends as the crow flies (g_1862/game.rb#freight_revenue, #hex_crow_distance); see
  :mod:`optimizer.games.freight`. Priced by the reference search (the kernels decline it).
- ``inherits``: the title whose families this one takes as its own, where the engine makes this
  title's game a subclass of that one's (``{"inherits": "1846"}``: 1846 2p Variant, 1852: Missouri);
  families the file declares beside it replace the inherited ones of the same key.

Where the engine says "once per route" and a hex has several stops, pairs of those stops take
the bonus back once, so that a route paying two of them is paid once.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from itertools import combinations

from ..board.tiles import parse_code
from ..errors import BoardError
from ..model import MINES_ANY, MINES_NONE, MINES_ONE, BestRouteBonus, Bonuses, PairBonus, SetPairBonus, TrainSpec
from ..model.trains import UNLIMITED
from .base import Rules
from .freight import freight_terms
from .hex_trains import hex_spec, segment_costs
from .home_route import home_stop
from .narrow_gauge import narrow_gauge_bonus
from .stop_classes import spec_by_classes


@lru_cache(maxsize=4096)
def icons_of(code: str) -> tuple:
    """The icons of a tile code as (name, sticky): ``icon=image:1846/20,sticky:1`` is ``("20", True)``."""
    out = []
    for part in parse_code(code).cosmetic:
        kind, _, body = part.partition("=")
        if kind == "icon":
            props = dict(p.partition(":")[::2] for p in body.split(","))
            out.append((props.get("image", "").rsplit("/", 1)[-1], props.get("sticky") not in (None, "", "0")))
    return tuple(out)


def icon_number(name: str) -> int:
    """What an icon says as a number (``20``), 0 for a picture (``port``), as the engine's ``to_i``."""
    digits = ""
    for ch in name:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


def yellow_value(node) -> int:
    """A node's revenue in yellow, as the engine's ``revenue[:yellow]`` (a plain number is every colour's)."""
    table = dict(node.revenue)
    return int(table.get(None, table.get("yellow")) or 0)


class DeclaredRules(Rules):
    """The generic rules plus the families a game's data file declares."""

    title = "generic"
    declared: dict = {}
    printed: dict = {}  # hex id -> the printed map's tile code (its sticky icons outlive upgrades)

    @classmethod
    def for_game(cls, title: str, data: dict, declared: dict | None = None) -> type:
        """The rules of a game from its data file; ``declared`` (its families, where they are
        inherited from another game's file) stands in for the file's own ``revenue_rules``."""
        printed = {h["id"]: h["code"] for h in data.get("hexes", ()) if h.get("code")}
        families = data.get("revenue_rules", {}) if declared is None else declared
        return type(f"Rules{title}", (cls,), {"title": title, "declared": families, "printed": printed})

    def icon_names(self, hx) -> list:
        """The icons on a hex: its tile's, and the printed map's sticky ones once it is upgraded (the
        engine keeps those on the hex, but a laid tile's code does not list them)."""
        names = [name for name, _ in icons_of(hx.tile.code)]
        code = self.printed.get(hx.id)
        if code is not None and code != hx.tile.code:
            names += [name for name, sticky in icons_of(code) if sticky]
        return names

    def is_mine(self, hx, node) -> bool:
        rule = self.declared.get("mines")
        if not rule or not node.is_stop:
            return False
        if "assignment" in rule:
            return bool(hx.assignments.get(rule["assignment"]))
        city = hx.cities.get(node.index) if node.kind == "city" else None
        return city is not None and rule.get("token") in city.tokens

    def mine_rule(self, spec: TrainSpec) -> int:
        rule = self.declared.get("mines")
        if not rule:
            return MINES_ANY
        suffix = rule.get("goods_suffix")
        return MINES_ONE if suffix and spec.name.endswith(suffix) else MINES_NONE

    def forbidden(self, hx, node) -> bool:
        """``linked_stops``: a stop of the group the company holds no token to link (1862's London)."""
        rule = self.declared.get("linked_stops")
        if rule and rule["group"] in node.groups and not self._linked(rule):
            return True
        return super().forbidden(hx, node)

    def forbidden_reason(self, hx, node) -> str:
        rule = self.declared.get("linked_stops")
        if rule and rule["group"] in node.groups and not self._linked(rule):
            return super().forbidden_reason(hx, node) + f": it holds no token on {' or '.join(rule['token_hexes'])}"
        return super().forbidden_reason(hx, node)

    def _linked(self, rule: dict) -> bool:
        hexes = [self.board.hexes[h] for h in rule["token_hexes"] if h in self.board.hexes]
        return any(self.company.id in city.tokens for hx in hexes for city in hx.cities.values())

    def location(self, hx, node) -> str:
        if self.is_mine(hx, node):
            return "mines"  # a route reaches one mine at most
        rule = self.declared.get("one_stop_per_hex")
        only = rule.get("hexes") if isinstance(rule, dict) else None
        if rule and not node.groups and not self.exempt_from_one_stop(rule, hx) and (only is None or hx.id in only):
            return "hex:" + hx.id
        return super().location(hx, node)

    @staticmethod
    def exempt_from_one_stop(rule, hx) -> bool:
        """A hex whose stops a route may visit two of, though ``one_stop_per_hex`` holds."""
        if not isinstance(rule, dict):
            return False
        has_town = any(n.kind == "town" for n in hx.tile.nodes)
        return hx.id in rule.get("except_hexes", ()) or bool(rule.get("except_towns") and has_town)

    def no_end(self, hx, node) -> bool:
        return bool(self.declared.get("no_town_ends")) and node.kind == "town"

    def is_large(self, hx, node) -> bool:
        """Under ``counted_stops`` an off-board paying nothing in yellow is not counted
        (G18ZOO#cities_visited: ``v.offboard? && v.revenue[:yellow].positive?``)."""
        if node.kind == "offboard" and "counted_stops" in self.declared:
            return yellow_value(node) > 0
        types = self.large_types()  # stop_classes: the node types it names, less its small groups
        if types is not None:
            return node.kind in types and not set(node.groups) & set(self.small_groups())
        return super().is_large(hx, node)

    def counts_towns(self, spec: TrainSpec) -> bool:
        rule = self.declared.get("counted_stops")
        return rule is None or spec.name in rule.get("towns_count_for", ())

    def min_large(self, spec: TrainSpec) -> int:
        rule = self.declared.get("counted_stops")
        if rule is None or self.counts_towns(spec):
            return 0
        return int(rule.get("min", 0))

    def local_cities_once(self) -> str:
        return self.declared.get("local_cities_once", "")

    def routes_share_track(self) -> bool:
        return bool(self.declared.get("routes_share_track"))

    def stops_paid_once(self) -> bool:
        return bool(self.declared.get("stops_paid_once"))

    def freight_terms(self, spec: TrainSpec) -> tuple | None:
        return freight_terms(self.declared.get("freight_trains"), spec.name)

    def unlike_end_colours(self) -> tuple:
        return tuple(self.declared.get("unlike_ends", ()))

    def routes_meet(self) -> bool:
        return bool(self.declared.get("routes_meet"))

    # ---- gauge changes ---------------------------------------------------------------------
    def gauge_halves(self, side_name: str) -> int:
        """``gauge_borders``: a border on a hex side the route crosses is a gauge change, counted as a
        city of no value (lib/engine/game/g_1848/game.rb #visited_stops, #get_modified_gauge_distance,
        #edge_crossings: every path edge with a border on its own tile, summed and halved, as each
        border is listed on both hexes)."""
        if not self.declared.get("gauge_borders"):
            return 0
        a, _, b = side_name.partition("/")
        ha, hb = self.board.hexes.get(a), self.board.hexes.get(b)
        if ha is None or hb is None:
            return 0
        edge = next((e for e, other in ha.neighbors.items() if other == b), None)
        if edge is None:
            return 0
        back = next((e for e, other in hb.neighbors.items() if other == a), None)
        return int(any(e == edge for e, _ in ha.borders)) + int(any(e == back for e, _ in hb.borders))

    def free_gauge(self, spec: TrainSpec) -> int:
        """A train whose name has ``free_in_name`` (1848's "+" trains) runs one gauge change free."""
        rule = self.declared.get("gauge_borders")
        if not rule or not isinstance(rule, dict) or "free_in_name" not in rule:
            return 0
        return int(rule["free_in_name"] in spec.name)

    def end_cap(self, spec: TrainSpec) -> int:
        """``end_towns_count``: towns at a route's ends count against the cities a train with rows pays
        (lib/engine/game/g_18_mt/game.rb #check_distance: the pay of the row listing cities)."""
        if self.declared.get("end_towns_count"):
            for train in self.board.trains:
                if train.name == spec.name and isinstance(train.distance, list):
                    row = next((r for r in train.distance if "city" in r["nodes"]), None)
                    if row is not None:
                        return min(int(row["pay"]), UNLIMITED)
        return super().end_cap(spec)

    # ---- stop classes and trains -----------------------------------------------------------
    def large_types(self) -> frozenset | None:
        rule = self.declared.get("stop_classes")
        return frozenset(rule["large"]) if rule else None

    def small_groups(self) -> tuple:
        """Groups whose cities count small, where every train of the company is one that may: 18VA's
        CMD, uncounted for freight trains (a ``trains`` pattern) and closed to the others."""
        rule = self.declared["stop_classes"]
        trains = rule.get("small_groups_trains")
        if trains and not all(re.search(trains, t.name) for t in self.board.trains):
            return ()
        return tuple(rule.get("small_groups", ()))

    def spec_by_rows(self, train, where: str) -> TrainSpec | None:
        """The train's caps from its rows, by the title's ``stop_classes`` where it declares them
        (see :mod:`optimizer.games.stop_classes`); a train ``unsupported_trains`` names is refused."""
        reason = self.declared.get("unsupported_trains", {}).get(train.name)
        if reason:
            raise BoardError(f"{where}: train {train.name!r} is not supported: {reason}", field=where)
        types = self.large_types()
        if types is None or not isinstance(train.distance, list):
            return super().train_spec(train, where)
        spec = spec_by_classes(train, types, where)
        digits = re.match(r"\d+", train.name)
        if self.declared["stop_classes"].get("large_visit_from_name") and digits:
            spec = replace(spec, visit_large=min(spec.visit_large, int(digits.group())))
        return spec

    def home_stop(self, graph) -> int:
        rule = self.declared.get("home_route")
        return home_stop(rule, self.company.id, graph) if rule else super().home_stop(graph)

    def track_walk(self) -> tuple:
        walk = self.declared.get("track_walk") or {}
        return (not walk.get("ignore_gauge", False), walk.get("skip_track"))

    # ---- trains that count hex edges (hex_distance: optimizer/games/hex_trains.py), E trains ------
    def train_spec(self, train, where: str) -> TrainSpec | None:
        """The train's caps under the title's families: under ``counted_stops`` a train of a numeric
        distance counts its large stops only (its towns and unpaid off-boards are free, and it is paid
        for every stop it visits); ``hex_distance`` caps hex edges; ``e_trains`` pay token cities only."""
        spec = self.spec_by_rows(train, where)
        if spec is None:
            return spec
        if self.declared.get("label_count_bonus") and not spec.pays_all:
            raise BoardError(f"{where}: label_count_bonus needs train {train.name!r} to pay every stop", field=where)
        if not self.counts_towns(spec) and not isinstance(train.distance, list):
            free = UNLIMITED
            spec = replace(spec, visit_small=free, visit_total=free, pay_small=free, pay_total=free)
        rule = self.declared.get("hex_distance")
        if rule:
            spec = hex_spec(rule, train, spec)
        e_rule = self.declared.get("e_trains")
        if e_rule and train.name in e_rule["trains"]:
            spec = replace(spec, tokens_only=True, token_ends=bool(e_rule.get("token_ends")), track_group=1)
        return spec

    def hex_edges(self, graph, spec: TrainSpec) -> list:
        rule = self.declared.get("hex_distance")
        return segment_costs(rule, self.board, graph, spec) if rule else super().hex_edges(graph, spec)

    def gauge_sets(self, train) -> tuple | None:
        for rule in self.declared.get("gauges", ()):
            if "trains" in rule and train.name not in rule["trains"]:
                continue
            if train.name in rule.get("except_trains", ()):
                continue
            if "company_types" in rule and self.company.type not in rule["company_types"]:
                continue
            return tuple(tuple(kinds) for kinds in rule["sets"])
        return None

    # ---- stop values -----------------------------------------------------------------------
    def stops_on(self, hx) -> list:
        return [hx.node_id(n.index) for n in hx.tile.nodes if n.is_stop]

    def assigned_bonus(self, hx) -> int:
        """Assignments the company and the hex share (each paid once per route)."""
        mine = self.company.assignments
        total = 0
        for rule in self.declared.get("assigned_stop_bonuses", ()):
            key = rule["assignment"]
            if mine.get(key) and hx.assignments.get(key):
                count = self.icon_names(hx).count(rule["per_icon"]) if rule.get("per_icon") else 1
                total += rule["amount"] * count
        return total

    def ability_bonus(self, hx) -> int:
        kinds = set(self.declared.get("ability_stop_bonuses", ()))
        return sum(
            int(a.get("amount") or 0)
            for a in self.company.abilities
            if a.get("type") in kinds and hx.id in (a.get("hexes") or ())
        )

    def has_label(self, hx, label: str) -> bool:
        """The hex's tile is labelled ``label``, or will be (a ``future_label``, as the engine's
        ``tile.future_label.label`` that g_1848 #k_sum reads)."""
        if label in hx.tile.labels:
            return True
        for part in parse_code(hx.tile.code).cosmetic:
            kind, _, body = part.partition("=")
            if kind == "future_label" and dict(p.partition(":")[::2] for p in body.split(",")).get("label") == label:
                return True
        return False

    def label_count_value(self, hx) -> int:
        """``label_count_bonus``: ``amount`` for each paid stop on a hex labelled ``label``; the pair
        of its set with itself takes one back per route (see :meth:`bonuses`)."""
        rule = self.declared.get("label_count_bonus")
        return int(rule["amount"]) if rule and self.has_label(hx, rule["label"]) else 0

    def hex_assignment_bonus(self, hx) -> int:
        """What the hex's assignments add to each paid stop on it, whoever placed them (1817's bridges)."""
        return sum(
            int(rule["amount"])
            for rule in self.declared.get("hex_assignment_stop_bonuses", ())
            if hx.assignments.get(rule["assignment"])
        )

    def doubled(self, hx, node) -> int:
        """A stop paid twice: on a hex of one of the company's abilities of a type in
        ``ability_stop_doubles`` (18JP-T's destination, hex_bonus), or, with ``own_hex_doubles``, on a
        hex the engine assigned the company itself (1850's edge token)."""
        kinds = set(self.declared.get("ability_stop_doubles", ()))
        on_ability = any(a.get("type") in kinds and hx.id in (a.get("hexes") or ()) for a in self.company.abilities)
        own = self.declared.get("own_hex_doubles") and any(
            key == self.company.id or str(key).endswith(f": {self.company.id}>") for key in hx.assignments
        )
        return node.value(self.board.phase_tiles) if on_ability or own else 0

    def value_bonus(self, hx, node) -> int:
        narrow = narrow_gauge_bonus(self.board, hx.id, node.index) if self.declared.get("narrow_gauge_revenue") else 0
        own = self.hex_assignment_bonus(hx) + self.doubled(hx, node) + self.label_count_value(hx)
        return self.assigned_bonus(hx) + self.ability_bonus(hx) + own + narrow

    def train_stop_bonus(self, stop, spec: TrainSpec) -> int:
        """What a paid stop adds for this train by ``train_stop_bonuses`` (18USA's Pullman)."""
        total = 0
        for rule in self.declared.get("train_stop_bonuses", ()):
            if re.fullmatch(rule["train"], spec.name or "") and (
                self.board.hexes[stop.hex].tile_name not in rule.get("except_tiles", ())
            ):
                total += int(rule["amount"])
        return total

    def label_bonus(self, hx) -> int:
        """What crossing the hex earns by ``track_label_bonuses`` (18USA's resources)."""
        if hx.color == "white":
            return 0
        total = 0
        phase = self.board.phase_tiles
        for rule in self.declared.get("track_label_bonuses", ()):
            if not any(rule["label"] in label for label in hx.tile.labels):
                continue
            amount = int(rule["amount"])
            for colour, later in (rule.get("phase") or {}).items():
                if colour in phase:
                    amount = int(later)
            total += int((rule.get("tiles") or {}).get(hx.tile_name, amount))
        return total

    def track_hex_bonuses(self) -> dict:
        """Hex id -> what a route crossing it earns, once a route (``track_assignment_bonuses``,
        ``track_label_bonuses``)."""
        out: dict = {}
        if self.declared.get("track_label_bonuses"):
            for hx in self.board.hexes.values():
                amount = self.label_bonus(hx)
                if amount:
                    out[hx.id] = amount
        for rule in self.declared.get("track_assignment_bonuses", ()):
            key = rule["assignment"]
            for hx in self.board.hexes.values():
                if not hx.assignments.get(key):
                    continue
                if rule.get("no_ends") and self.stops_on(hx):
                    raise BoardError(
                        f"hex {hx.id}: a route may not start or end at its {key}, and a stop there is not"
                        " supported (lib/engine/game/g_1817/game.rb#revenue_for)",
                        field="hexes",
                    )
                out[hx.id] = out.get(hx.id, 0) + int(rule["amount"])
        return out

    def value(self, hx, node) -> int:
        """A mine pays no route revenue (its value is the company's subsidy); under
        ``tokened_cities_only`` a city without the company's token pays nothing; under
        ``offboard_phase_columns`` an off-board pays the column of its table the engine maps the
        phase's name to, not the phase's tile colours (1841's white/gray/black)."""
        if self.is_mine(hx, node):
            return 0
        if self.declared.get("tokened_cities_only") and node.kind == "city" and not self.has_token(hx, node):
            return 0
        columns = self.declared.get("offboard_phase_columns")
        column = columns.get(self.board.phase_name) if columns else None
        if column is not None and node.kind == "offboard":
            return node.value([column]) + self.value_bonus(hx, node)
        return super().value(hx, node)

    def train_value(self, stop, spec: TrainSpec) -> int:
        """A train kind named in ``train_values`` is paid that entry of a stop's revenue table where
        it has one (lib/engine/part/revenue_center.rb#route_revenue: a D train takes ``diesel``)."""
        paid_only = self.declared.get("paid_only_tokened_or_red")
        if paid_only and str(spec.name).endswith(paid_only["suffix"]) and not (stop.token or stop.red):
            return 0
        key = self.declared.get("train_values", {}).get(spec.name)
        if spec.tokens_only and not stop.token:
            return 0
        hx = self.board.hexes[stop.hex]
        node = hx.tile.nodes[stop.node]
        table = dict(node.revenue)
        extra = self.train_stop_bonus(stop, spec) if self.declared.get("train_stop_bonuses") else 0
        if key is None or key not in table:
            return super().train_value(stop, spec) + extra
        return spec.value_of(table[key], stop.large, stop.kind) + self.value_bonus(hx, node) + extra

    # ---- bonuses ---------------------------------------------------------------------------
    def select(self, spec: dict) -> list:
        """(stop id, hex) of the stops a group-pair set names."""
        out = []
        for hx in self.board.hexes.values():
            for node in hx.tile.nodes:
                if not node.is_stop:
                    continue
                if (
                    ("group" in spec and spec["group"] in node.groups)
                    or ("label" in spec and spec["label"] in hx.tile.labels)
                    or ("hexes" in spec and hx.id in spec["hexes"])
                ):
                    out.append((hx.node_id(node.index), hx))
        return out

    def untokened_stops(self, tiles) -> list:
        """The stops on these tiles whose city holds no token of the company."""
        out = []
        for hx in self.board.hexes.values():
            if hx.tile_name not in tiles:
                continue
            for node in hx.stop_nodes:
                city = hx.cities.get(node.index)
                if city is None or self.company.id not in city.tokens:
                    out.append(hx.node_id(node.index))
        return out

    def pair_amount(self, amount, hx_a, hx_b) -> int:
        if amount == "icons":
            return sum(icon_number(n) for n in self.icon_names(hx_a) + self.icon_names(hx_b))
        return int(amount)

    def once_per_route(self) -> list:
        """Pairs taking back a per-route bonus a route would otherwise be paid twice on one hex."""
        pairs = []
        for hx in self.board.hexes.values():
            bonus = self.assigned_bonus(hx)
            stops = self.stops_on(hx)
            if bonus and len(stops) > 1:
                pairs += [PairBonus(a, b, -bonus) for a, b in combinations(stops, 2)]
        return pairs

    def holds(self, rule: dict) -> bool:
        owned = rule.get("company") and rule["company"] in self.company.companies
        ability = rule.get("ability") and any(a.get("type") == rule["ability"] for a in self.company.abilities)
        return bool(owned or ability)

    def best_route_bonus(self, rule: dict) -> BestRouteBonus:
        hexes = list(rule.get("hexes") or ())
        amount = int(rule.get("amount") or 0)
        amount += sum(int(rule.get("per_phase_colour", {}).get(colour, 0)) for colour in self.board.phase_tiles)
        for a in self.company.abilities:  # the ability's own hexes and amount, where it gives them
            if rule.get("ability") and a.get("type") == rule["ability"]:
                hexes = list(a.get("hexes") or hexes)
                amount = int(a.get("amount") or amount)
        groups = tuple(tuple(self.stop_ids_on(h)) for h in hexes)
        return BestRouteBonus(amount=amount, per_stop=int(rule.get("per_stop") or 0), require=groups)

    def bonuses(self) -> Bonuses:
        bonuses = Bonuses()
        for rule in self.declared.get("group_pairs", ()):
            ends_a, ends_b = self.select(rule["a"]), self.select(rule["b"])
            for a, hx_a in ends_a:
                for b, hx_b in ends_b:
                    if a != b:
                        bonuses.pairs.append(PairBonus(a, b, self.pair_amount(rule["amount"], hx_a, hx_b)))
        bonuses.pairs += self.once_per_route()
        bonuses.hex_bonuses = self.track_hex_bonuses()
        for rule in self.declared.get("set_pairs", ()):
            if rule.get("company") in (None, self.company.id):
                a = tuple(stop for stop, _ in self.select(rule["a"]))
                b = tuple(stop for stop, _ in self.select(rule["b"]))
                bonuses.set_pairs.append(SetPairBonus(a, b, int(rule["amount"]), bool(rule.get("visited"))))
        rule = self.declared.get("label_count_bonus")
        if rule:  # k stops so labelled earn amount x (k - 1): amount each, less amount once a route
            labelled = tuple(
                stop
                for hx in self.board.hexes.values()
                if self.has_label(hx, rule["label"])
                for stop in self.stops_on(hx)
            )
            if labelled:
                bonuses.set_pairs.append(SetPairBonus(labelled, labelled, -int(rule["amount"])))
        for rule in self.declared.get("untokened_tile_penalties", ()):
            stops = tuple(self.untokened_stops(rule["tiles"]))
            if stops:
                bonuses.set_pairs.append(SetPairBonus(stops, stops, -int(rule["amount"])))
        bonuses.best_route = [
            self.best_route_bonus(r) for r in self.declared.get("best_route_bonuses", ()) if self.holds(r)
        ]
        destination = self.destination_bonus(self.declared.get("destination_bonus"))
        if destination is not None:
            bonuses.best_route.append(destination)
        return bonuses

    def destination_bonus(self, rule: dict | None) -> BestRouteBonus | None:
        """The company's destination bonus (``destination_bonus``), if it has placed its destination token."""
        company = self.company
        if not rule or company.type != rule.get("company_type", company.type):
            return None
        homes = [
            m.group(1)
            for a in company.abilities
            if (m := re.match(r"Home: .*\(([A-Za-z0-9-]+)\)\s*$", str(a.get("description") or "")))
        ]
        home, destination = [], []
        for hx in self.board.hexes.values():
            for city in hx.cities.values():
                for k, owner in enumerate(city.tokens):
                    if owner != company.id:
                        continue
                    stop = hx.node_id(city.node)
                    if k < len(city.kinds) and city.kinds[k] == "destination":
                        destination.append((stop, hx, city))
                    elif hx.id in homes:
                        home.append(stop)
        if len(destination) != 1 or not home:
            return None
        stop, hx, city = destination[0]
        amount = hx.tile.nodes[city.node].value(self.board.phase_tiles)
        return BestRouteBonus(amount=amount, require=(tuple(home), (stop,)), multiplied=True)
