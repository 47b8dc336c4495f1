"""A board, its rules and its trains, flattened into integer arrays a compiled search can walk.

Everything the search needs is here as numpy arrays: stops with per-train values, directed track
segments in CSR form by source stop, the track each segment uses as a bitset, the trains' caps
and the bonuses as index arrays. The Python objects stay alongside for explaining results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from itertools import chain

import numpy as np

from ..board.state import Board, is_shared, read_board
from ..board.tiles import placed
from ..errors import BoardError
from ..games import rules_for
from ..games.base import Rules
from ..games.commodities import goods_terms
from ..games.home_route import NO_HOME_RULE
from ..games.variable_cities import variable_flags
from ..model import Bonuses
from ..model.trains import UNLIMITED
from .track import TrackGraph
from .walks import build_track_graph

WORD = (1 << 64) - 1
MAX_GROUPS = 32  # groups of a best-route bonus, and penalty or bonus hexes: one bit each of a uint32 mask
NO_END_CAP = 1 << 30  # end_cap_by_train of a train whose town ends count nothing (every title but 18MT)
MAX_SET_PAIRS = 16  # set-pair bonuses: two bits each (its sets a and b) of a uint32 mask per stop
HEX_FORBIDDEN = 1 << 20  # a segment's hex edges for a train that may not run it (above every cap)
GAUGES = ("broad", "narrow", "dual", "thin", "dashed")  # track kinds (the tile DSL's ``track:``), one bit each
ANY_GAUGE = (1 << (1 << len(GAUGES))) - 1  # every set of track kinds legal: a train no gauge rule binds


COUNTS_LARGE, COUNTS_SMALL = 1, 2  # what a visit to a stop counts against (Problem.counted)


@dataclass
class Problem:
    """One company's routing problem, flattened: the one record every search reads.

    The arrays are named by their index space, as the compiled kernel's ``Input``
    (``optimizer/core/_search.pxd``) names them, and are what it borrows, unpadded:
    ``values_by_train_stop[t, s]`` is what stop ``s`` pays train ``t``; ``to_stop_by_dir[d]`` is
    the stop directed segment ``d`` reaches. The reference search, the pricing (``revenue``) and
    the static bounds read the same fields. The Python objects stay alongside for explaining
    results. A caller that changes an array changes its size field too (the kernel checks both).
    """

    board: Board
    rules: Rules
    graph: TrackGraph
    trains: list  # board Train objects that run a route
    specs: list  # their TrainSpec
    bonus_trains: list  # trains priced as a bonus (18EU Pullman)
    bonuses: Bonuses
    # ---- sizes
    n_stops: int
    n_dirs: int  # directed segments (two per track segment)
    n_segs: int  # track segments
    n_track_words: int  # 64-bit words of a track bitset
    n_locs: int  # locations: a route reaches each at most once
    n_trains: int  # trains that run a route (= levels of the search)
    n_pairs: int
    n_largest: int
    n_penalties: int  # hexes whose track costs or pays once a route, at most MAX_GROUPS (one bit each)
    n_best_route: int  # best-route bonuses (the kernel takes at most _search.MAX_BEST_ROUTE)
    n_set_pairs: int  # set-pair bonuses, at most MAX_SET_PAIRS
    n_track_groups: int  # overlap groups of the trains (>= 1): each has its own track in use
    # ---- per stop
    large_by_stop: np.ndarray  # uint8: city or off-board (else a town)
    token_by_stop: np.ndarray  # uint8: holds the company's token
    red_by_stop: np.ndarray  # uint8: red off-board
    end_only_by_stop: np.ndarray  # uint8: a route may only end here
    no_end_by_stop: np.ndarray  # uint8: a route may neither begin nor end here (only pass through)
    loc_by_stop: np.ndarray  # int32: its location, < n_locs
    mine_by_stop: np.ndarray  # uint8: a mine (mine_rule_by_train says which trains visit one)
    # ---- directed segments, CSR by source stop
    adj_ptr_by_stop: np.ndarray  # int32 [n_stops + 1]: stop s leaves by dirs adj_ptr[s] .. adj_ptr[s + 1] - 1
    to_stop_by_dir: np.ndarray  # int32: the stop it reaches
    seg_by_dir: np.ndarray  # int32: its track segment
    from_terminal_by_dir: np.ndarray  # uint8: leaves its source by a terminal path
    to_terminal_by_dir: np.ndarray  # uint8: reaches its target by a terminal path
    # ---- track segments
    track_bits_by_seg: np.ndarray  # uint64 [n_segs, n_track_words]: the track it uses, a bitset
    penalty_mask_by_seg: np.ndarray  # uint32: penalty (or bonus) hexes it crosses, a bitmask
    amount_by_penalty: np.ndarray  # int32: what crossing each costs, once a route; negative: what it pays
    #   (a hex crossed twice counts once: Route#all_hexes is uniq, lib/engine/route.rb)
    gauge_by_seg: np.ndarray  # uint8: the track kinds it uses, bit k for GAUGES[k]
    gauge_halves_by_seg: np.ndarray  # int32: border sides it crosses; a route's halves // 2 are gauge
    #                                  changes, and those beyond free_gauge_by_train count as cities (1848)
    # ---- per train
    values_by_train_stop: np.ndarray  # int32 [n_trains, n_stops]: what each stop pays each train
    caps_by_train: np.ndarray  # int32 [n_trains, 6]: visit large, small, total; pay large, small, total
    multiplier_by_train: np.ndarray  # int32
    group_by_train: np.ndarray  # int32: equal ids = identical trains (symmetry breaking)
    pays_all_by_train: np.ndarray  # uint8: every stop visited is paid
    requires_token_by_train: np.ndarray  # uint8: a route must count a token of the company
    free_gauge_by_train: np.ndarray  # int32: gauge changes the train runs without counting them
    end_cap_by_train: np.ndarray  # int32: its large stops plus the towns at its route's ends, at most (18MT)
    min_large_by_train: np.ndarray  # int32: the large stops a route must visit at least (beyond the two stops)
    local_by_train: np.ndarray  # uint8: it may also run one city holding the company's token alone, on no
    #   track (a local run: lib/engine/train.rb#local?, lib/engine/route.rb#connection_data)
    track_group_by_train: np.ndarray  # int32 < n_track_groups: its overlap group; routes of trains in different
    #   groups may share track (an E train's own group: g_1822/game.rb#check_overlap, tracks_by_type)
    token_ends_by_train: np.ndarray  # uint8: both ends of its route hold the company's token (1822's E train)
    mine_rule_by_train: np.ndarray  # uint8: MINES_ANY, MINES_NONE (it visits no mine) or MINES_ONE (a route
    #   is legal only with exactly one mine: the mines share a location, so the search needs only "one")
    gauge_ok_by_train: np.ndarray  # uint32: bit m set where a route whose track kinds are the mask m is legal
    #   for the train (ANY_GAUGE without a gauge rule); a route's kinds only grow, so the set is closed
    #   under subsets and a search prunes a route at its first kind that leaves it
    # ---- bonuses
    stop_a_by_pair: np.ndarray  # int32
    stop_b_by_pair: np.ndarray  # int32
    amount_by_pair: np.ndarray  # int32: added when a route pays both stops of the pair (may be negative) ...
    visited_by_pair: np.ndarray  # uint8: ... or, where set, when both are on the route, paid or not
    trigger_by_largest: np.ndarray  # int32: paying it adds the largest other paid value ...
    excluded_by_largest_stop: np.ndarray  # uint8 [n_largest, n_stops]: ... except these stops
    sets_by_stop: np.ndarray  # uint32: bit 2k: in set a of set pair k, bit 2k + 1: in its set b
    amount_by_set_pair: np.ndarray  # int32: added once when a route pays a stop of each set ...
    visited_by_set_pair: np.ndarray  # uint8: ... or, where set, visits one of each
    amount_by_best_route: np.ndarray  # int32: paid once for the company, on its route that earns it most:
    #   this when the route visits a stop of every group ...
    per_stop_by_best_route: np.ndarray  # int32: ... plus this per stop it visits (1846 Mail Contract)
    multiplied_by_best_route: np.ndarray  # uint8: its amount times the multiplier of the route's train (1822's
    #   destination bonus); empty: none is (a problem whose best-route bonuses are set without it)
    groups_by_best_route_stop: np.ndarray  # uint32 [n_best_route, n_stops]: the groups each stop is in
    full_by_best_route: np.ndarray  # uint32: every group of the bonus (a group with no stop on the map is never met)
    local_cities_once: str  # "city" / "hex": no city (hex with a city) on two local trains' routes; "" none
    r2r_per_token: int  # red to red: per token stop paid
    r2r_max_tokens: int
    has_pullman: int  # 1: the company's Pullman doubles its best paid large stop (18EU)
    # ---- trains that count hex edges, not stops (hex_distance: optimizer/games/hex_trains.py)
    hex_cap_by_train: np.ndarray  # int32: the most hex edges its route may cross; -1: it counts none
    hex_edges_by_train_seg: np.ndarray  # int32 [n_trains, n_segs]: the edges a segment costs the train
    #   (HEX_FORBIDDEN: it may not run it; 0 for a train that counts none)
    # ---- a rule on the whole run (home_route: optimizer/games/home_route.py)
    home_stop: int = NO_HOME_RULE  # a stop some route of a run must visit; NO_HOME_STOP: no run but the empty one
    # ---- a distance bonus between a route's ends (crow_distance_bonus: 18GB's X trains); empty: none
    crow_per_hex_by_train: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))  # int32 [K]
    crow_x_by_stop: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))  # int32 [n]: its hex's x
    crow_y_by_stop: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))  # int32 [n]: its hex's y
    crow_end_by_stop: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint8))  # uint8 [n]: it may be
    #   an end of the distance (a stop on a hex with a city or an off-board; the others are passed over)
    # ---- a pricing on the whole run (stops_paid_once: optimizer/revenue.py#paid_once_routes)
    paid_once: int = 0  # 1: a stop already on an earlier route of the run pays nothing (every train pays all)
    # ---- freight trains paid by their ends (freight_trains: optimizer/games/freight.py)
    freight_by_train: tuple = ()  # per train: (bonus, port bonus) a crow-flight hex between its ends; None: no freight
    unlike_end_colours: tuple = ()  # hex colours no route may both begin and end on (1862: red, blue)
    not_all_trains: int = 0  # 1: no run of every train (civil_war: 18TN's lowest route earns nothing then)
    uncounted_by_best_route_stop: np.ndarray = field(
        default_factory=lambda: np.zeros((0, 0), dtype=np.uint8)
    )  # uint8 [n_best_route, n_stops]: 1 for a stop a best-route bonus's per_stop does not count (empty: none)
    # ---- track bonuses a train does not earn, best-route bonuses by the hexes crossed (1822PNW); empty: none
    skip_penalty_by_train: np.ndarray = field(default_factory=lambda: _empty(np.uint32))  # uint32: the bits of
    #   amount_by_penalty the train's routes neither earn nor pay (1822PNW's E train earns no forest, no Ski Haus)
    tokens_only_by_train: np.ndarray = field(default_factory=lambda: _empty(np.uint8))  # uint8: paid only by
    #   cities holding the company's token (1822's E train): only such stops meet a best-route bonus's groups
    per_hex_by_best_route: np.ndarray = field(default_factory=lambda: _empty(np.int32))  # int32: best-route
    #   bonus k pays this for each bit of hexes_by_best_route the route's track crosses (less the train's
    #   skip_penalty_by_train): 1822PNW's lumber baron, 10 a forest
    hexes_by_best_route: np.ndarray = field(default_factory=lambda: _empty(np.uint32))  # uint32: bits of
    #   amount_by_penalty (penalty_mask_by_seg)
    halved_by_train: np.ndarray = field(default_factory=lambda: _empty(np.uint8))  # uint8: the train is paid
    #   half its route's revenue: HALF_TO_TEN rounded to 10 (revenue.halve_to_ten: 1822MX's 3/2P), HALF_DOWN
    #   rounded down (an obsolete train: g_1858, revenue.halve); 0 or empty: none is
    skip_set_pairs_by_train: np.ndarray = field(default_factory=lambda: _empty(np.uint32))  # uint32: bit k set
    #   where set pair k does not pay the train (SetPairBonus.trains: 1822CA's ports); empty: every one pays
    # ---- a rule pricing and checking the run as a whole (mining_runs: optimizer/games/mining_runs.py)
    run_rule: object = None  # None: the run earns the sum of its routes
    # ---- a bonus a location pays once across the company's routes (connection_bonuses: 18NY)
    once_bits_by_stop: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))  # uint64 per stop:
    #   the locations (one bit each) whose bonus the stop's value holds; empty: none
    once_amount: int = 0  # what a stop's value holds per location: taken back from every later route paying it
    fixed_revenue: int = 0  # the company earns this with its routes, whatever they are (18NY's claimed bonuses)
    fixed_needs_route: bool = False  # fixed_revenue is earned only by a run of some route (1840's maintenance)
    free_by_stop: np.ndarray = field(default_factory=lambda: _empty(np.uint8))  # uint8: a visit costs no
    #   distance (the tile DSL's ``visit_cost:0``: Game::Base#check_distance sums visits' visit_cost), neither
    #   large nor small, though it is paid and takes a pay slot (#compute_stops); empty: none is
    # ---- a rule on the whole run: one of these trains, at most, counts one more large stop (18ZOO's
    #   A_TIP_OF_SUGAR serving two trains); the searches take the best of one_extra_variants
    one_extra_large: tuple = ()
    routes_meet: int = 0  # 1: a run's routes must all link up through shared stops (optimizer/games/routes_meet.py)
    # ---- what answers name, computed once per problem (a cached problem answers many times)
    engine_names: dict = field(
        default_factory=dict, init=False, repr=False, compare=False
    )  # ("seg", i) / ("stop", s) -> name
    stop_costs: list = field(
        default_factory=list, init=False, repr=False, compare=False
    )  # per stop: what a visit counts against (COUNTS_LARGE, COUNTS_SMALL or 0: free), see counted()
    kernel_plans: dict | None = field(
        default=None, init=False, repr=False, compare=False
    )  # a problem shared read-only (shared_problem): what the compiled search derives of it before it
    #   runs, by how it runs (core/compiled.py#_plan); None: derived anew each search (callers may change it)
    # uint8 per set pair: once met, it also pays the route's richest paid stop's value again (18Neb's
    # east-west route); empty: none does (a problem built without it)
    largest_by_set_pair: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint8))
    # a route whose track kinds (gauge_by_seg) meet this mask earns the amount for each stop it is paid
    # (1844's narrow track: lib/engine/game/g_1844/game.rb#revenue_for); 0: no such rule
    stop_bonus_kinds: int = 0
    stop_bonus_amount: int = 0
    # uint8 per train: its route may begin and end at a stop of no_end_by_stop (no_town_ends' except_trains:
    # 1825's 3T, 4T, U3 and 2+2, g_1825/game.rb#check_distance); empty: none may
    ends_free_by_train: np.ndarray = field(default_factory=lambda: _empty(np.uint8))
    # uint8 per train: its route must begin or end at a stop of end_set_by_stop (18Rhl's 8 train and the
    # RGE hexes, g_18_rhl/game.rb#check_distance); empty: no train must
    needs_end_by_train: np.ndarray = field(default_factory=lambda: _empty(np.uint8))
    end_set_by_stop: np.ndarray = field(default_factory=lambda: _empty(np.uint8))  # uint8 per stop (empty: none)
    # ---- 18 India's "+?" cities (variable_cities: optimizer/games/variable_cities.py): uint8 per stop,
    # VARIABLE / NO_KEY flags; empty: no such rule. A paid variable city earns the richest other visited
    # stop less variable_offset
    variable_by_stop: np.ndarray = field(default_factory=lambda: _empty(np.uint8))
    variable_offset: int = 0
    # ---- commodities (optimizer/games/commodities.py): per segment the location bits its hexes hold
    # (Python ints), and the terms (source bit, markets mask, value, spice values); (): no such rule
    goods_bits_by_seg: tuple = ()
    goods_terms: tuple = ()

    def skip_penalties(self, t: int) -> int:
        """The bits of ``amount_by_penalty`` train t's routes neither earn nor pay."""
        return int(self.skip_penalty_by_train[t]) if t < len(self.skip_penalty_by_train) else 0

    def tokens_only(self, t: int) -> bool:
        """Train t is paid only by cities holding the company's token (1822's E train)."""
        return t < len(self.tokens_only_by_train) and bool(self.tokens_only_by_train[t])

    def per_hex(self, k: int) -> tuple:
        """Best-route bonus k's pay per hex crossed, and the bits of those hexes: (0, 0) for none."""
        if k < len(self.per_hex_by_best_route) and k < len(self.hexes_by_best_route):
            return int(self.per_hex_by_best_route[k]), int(self.hexes_by_best_route[k])
        return 0, 0

    def skip_set_pairs(self, t: int) -> int:
        """The set pairs (bit k) that do not pay train t."""
        return int(self.skip_set_pairs_by_train[t]) if t < len(self.skip_set_pairs_by_train) else 0

    def needs_end(self, t: int) -> bool:
        """Train t's route must begin or end at a stop of ``end_set_by_stop``."""
        return t < len(self.needs_end_by_train) and bool(self.needs_end_by_train[t])

    def in_end_set(self, s: int) -> bool:
        return s < len(self.end_set_by_stop) and bool(self.end_set_by_stop[s])

    def ends_free(self, t: int) -> bool:
        """Train t's route may begin and end at a stop it may otherwise only pass through."""
        return t < len(self.ends_free_by_train) and bool(self.ends_free_by_train[t])

    def free(self, s: int) -> bool:
        """A visit to stop s costs no distance (``visit_cost:0``)."""
        return s < len(self.free_by_stop) and bool(self.free_by_stop[s])

    def counted(self, stops) -> tuple:
        """(large, small) stops among these that cost distance: the caps a route's visits count against.
        (The reference search asks this of every route it lists: the kinds are read once per problem.)"""
        if not self.stop_costs:
            self.stop_costs.extend(
                0 if self.free(s) else COUNTS_LARGE if self.large_by_stop[s] else COUNTS_SMALL
                for s in range(self.n_stops)
            )
        costs = self.stop_costs
        large = small = 0
        for s in stops:
            cost = costs[s]
            if cost == COUNTS_LARGE:
                large += 1
            elif cost == COUNTS_SMALL:
                small += 1
        return large, small

    def halved(self, t: int) -> int:
        """How train t is paid half its route's revenue: 0 not at all, HALF_TO_TEN rounded to 10 (1822MX's
        3/2P), HALF_DOWN rounded down (an obsolete train, g_1858/game.rb#revenue_for)."""
        return int(self.halved_by_train[t]) if t < len(self.halved_by_train) else 0

    # ---- a train whose paid subset holds every large stop it visits (TrainSpec.large_first); empty: none
    large_first_by_train: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint8))
    # ---- port_half_again (1850Jr): a port on a route pays half its sum again, rounded down to 10
    half_again_by_stop: np.ndarray | None = None  # uint8 per stop: 1 paid half again, 2 a route with it needs 2
    #   other stops (port_per_token's ports too); None: no such port
    # ---- destination_ends (1870): a route whose first or last stop is this one earns it again (once)
    end_bonus_by_stop: np.ndarray | None = None  # int32 per stop (None: the family is not in play)

    def multiplied(self, k: int) -> bool:
        """Best-route bonus k's amount is times the multiplier of the route's train."""
        return k < len(self.multiplied_by_best_route) and bool(self.multiplied_by_best_route[k])

    def stop_id(self, i: int) -> str:
        return self.graph.stops[i].id


def build_problem(board_or_doc, *, reachable_only: bool = True) -> Problem:
    """Read (if needed) a board and flatten it for the search.

    The track no token of the company reaches is dropped, unless a train needs no token: its
    routes may run anywhere."""
    board = board_or_doc if isinstance(board_or_doc, Board) else read_board(board_or_doc)
    rules = rules_for(board)
    reachable_only = reachable_only and not any_train_without_token(board, rules)
    return problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=reachable_only))


def any_train_without_token(board, rules) -> bool:
    """Some train that runs a route needs no token of the company: it may run on track no token
    reaches, so the graph must keep that track."""
    return any(
        not train.requires_token and rules.train_spec(train, f"trains[{i}]") is not None
        for i, train in enumerate(board.trains)
    )  # (a train priced as a bonus runs no route)


# Problems by the board they were built from, for boards the fast reader shares (the same board
# again is the same read-only Board): a repeated request skips the rules, the graph and the
# flattening. Each value keeps its board alive, so that its id in the key stays its own. Only for
# callers that never change the Problem (the API); build_problem always builds a fresh one.
_PROBLEMS: dict = {}
_PROBLEMS_MAX = 512  # the whole public corpus: 470


def shared_problem(board: Board) -> Problem:
    """:func:`build_problem` for a read board, kept for the next request when the fast reader shares
    the board (read-only: the caller never changes it)."""
    if not is_shared(board):
        return build_problem(board)
    found = _PROBLEMS.get(id(board))
    if found is not None and found.board is board:
        return found
    problem = build_problem(board)
    problem.kernel_plans = {}  # read-only from here on: the compiled search may keep what it derives
    if len(_PROBLEMS) >= _PROBLEMS_MAX:
        _PROBLEMS.clear()
    _PROBLEMS[id(board)] = problem
    return problem


def clear_cache() -> None:
    """Forget the problems built so far (to measure a first board)."""
    _PROBLEMS.clear()


def pullman_value(stop, spec) -> int:
    """What the Pullman attached to the train adds to a stop: its amount at a city or off-board (1858India:
    g_1858_india/game.rb#pullman_bonus counts ``stop.city? || stop.offboard?`` of the route's stops; every
    train it is attached to, a broad-gauge one, is paid every city and off-board it visits)."""
    return spec.pullman if spec.pullman and stop.kind in ("city", "offboard") else 0


def problem_from_graph(board, rules, graph) -> Problem:
    """The trains' caps and the bonuses of the rules, flattened with the graph."""
    trains: list = []
    specs: list = []
    bonus_trains: list = []
    for i, train in enumerate(board.trains):
        spec = rules.train_spec(train, f"trains[{i}]")
        if spec is not None and train.pullman:
            spec = replace(spec, pullman=rules.pullman_amount(f"trains[{i}].pullman"))
        if spec is None:
            bonus_trains.append(train)
        else:
            if rules.routes_share_track():  # each train its own overlap group (Problem.track_group_by_train)
                spec = replace(spec, track_group=len(specs))
            trains.append(train)
            specs.append(spec)
    return flatten(board, rules, graph, trains, specs, bonus_trains, rules.bonuses())


def _empty(dtype) -> np.ndarray:
    """A shared zero-length array (nothing in it to change)."""
    out = np.zeros(0, dtype=dtype)
    out.flags.writeable = False
    return out


_NONE = {np.int32: _empty(np.int32), np.uint8: _empty(np.uint8), np.uint32: _empty(np.uint32)}


def port_flags(stops: list) -> np.ndarray | None:
    """Per stop: 1 paid half again (port_half_again), 2 a route with it needs 2 other stops; None: none."""
    flags = [int(s.half_again) | (2 if s.half_again or s.min_three else 0) for s in stops]
    return _arr(flags, np.uint8) if any(flags) else None


def _arr(xs, dtype=np.int32) -> np.ndarray:
    return np.array(xs, dtype=dtype) if xs else _NONE[dtype]


def track_hex_amounts(bonuses: Bonuses) -> dict:
    """What a route's track crossing each hex costs (negative: pays), once a route: its penalties
    less its bonuses, the hexes whose sum is zero left out. Both are one mask of the hexes crossed."""
    amounts: dict = {}
    for h, a in bonuses.hex_penalties.items():
        amounts[h] = amounts.get(h, 0) + int(a)
    for h, a in bonuses.hex_bonuses.items():
        amounts[h] = amounts.get(h, 0) - int(a)
    return {h: a for h, a in amounts.items() if a}


def track_hex_entries(bonuses: Bonuses) -> dict:
    """Each bit of a route's track mask: (hex id, train names it does not bind) -> what crossing the hex
    costs (negative: pays), once a route. The plain penalties and bonuses bind every train
    (:func:`track_hex_amounts`); ``train_hex_bonuses`` not the trains they name; a best-route bonus paid
    per hex crossed needs a bit on each of its hexes, though it cost nothing."""
    entries: dict = {(h, ()): a for h, a in track_hex_amounts(bonuses).items()}
    for h, a, names in bonuses.train_hex_bonuses:
        key = (h, tuple(sorted(names)))
        entries[key] = entries.get(key, 0) - int(a)
    kept = {key: a for key, a in entries.items() if a}
    for b in bonuses.best_route:
        for h in b.hexes if b.per_hex else ():
            key = (h, tuple(sorted(b.hexes_except)))
            kept[key] = kept.get(key, 0)
    return kept


def free_stops(board, stops) -> list:
    """Per stop: its node's ``visit_cost`` is 0 (1822Africa's game reserves, 1882's fishing grounds): the
    stops of a title where none is free are all zero, and then the list is empty."""
    out = [int(board.hexes[s.hex].tile.nodes[s.node].visit_cost == 0) for s in stops]
    return out if any(out) else []


def per_hex_bits(bonus, pen_hexes: list) -> int:
    """The bits of the track entries (:func:`track_hex_entries`) a best-route bonus pays per hex crossed."""
    if not bonus.per_hex:
        return 0
    keys = {(h, tuple(sorted(bonus.hexes_except))) for h in bonus.hexes}
    return sum(1 << b for b, key in enumerate(pen_hexes) if key in keys)


def flatten(board, rules, graph, trains, specs, bonus_trains, bonuses) -> Problem:
    stops = graph.stops
    segments = graph.segments
    goods = goods_terms(board, board.company, rules.commodities(), segments)
    n = len(stops)
    K = len(specs)
    index = graph.stop_index()
    values = np.array(
        [[rules.train_value(s, spec) + pullman_value(s, spec) for s in stops] for spec in specs], dtype=np.int32
    ).reshape(K, n)
    locations: dict = {}
    loc = np.array([locations.setdefault(s.location, len(locations)) for s in stops], dtype=np.int32)
    flags = np.array(
        [
            [s.large for s in stops],
            [s.token for s in stops],
            [s.red for s in stops],
            [s.end_only for s in stops],
            [s.no_end for s in stops],
        ],
        dtype=np.uint8,
    ).reshape(5, n)  # rows: each C-ordered

    n_res = len(graph.side_names) + len(graph.inner_names)
    n_words = max(1, (n_res + 63) // 64)
    pen_amounts = track_hex_entries(bonuses)
    pen_hexes = list(pen_amounts)  # (hex id, train names it does not bind): one bit each
    if len(pen_hexes) > MAX_GROUPS:
        raise BoardError(f"at most {MAX_GROUPS} penalty or bonus hexes are supported", field="game")
    # The track of each segment as one Python integer, cut into 64-bit words (no numpy scalars).
    words = []
    for seg in segments:
        mask = 0
        for r in seg.sides:
            mask |= 1 << r
        for r in seg.inner:
            mask |= 1 << r
        words.append([(mask >> (64 * w)) & WORD for w in range(n_words)] if n_words > 1 else [mask])
    seg_res = np.array(words, dtype=np.uint64).reshape(len(segments), n_words)
    if pen_hexes:
        pens = []
        for seg in segments:
            on = {h for h, _ in seg.paths}
            pens.append(sum(1 << b for b, (h, _) in enumerate(pen_hexes) if h in on))
        seg_pen = np.array(pens, dtype=np.uint32)
    else:
        seg_pen = np.zeros(len(segments), dtype=np.uint32)

    # Directed segments by source, richest target first (good answers early): sorted as tuples
    # (minus the target's best value, segment), each segment once per source.
    best = values.max(axis=0).tolist() if K else [s.value for s in stops]
    out: list[list[tuple]] = [[] for _ in range(n)]
    for k, seg in enumerate(segments):
        a, b = seg.a, seg.b
        out[a].append((-best[b], k, b, seg.a_terminal, seg.b_terminal))
        out[b].append((-best[a], k, a, seg.b_terminal, seg.a_terminal))
    flat = []
    ptr = [0]
    for row in out:
        row.sort()
        flat += row
        ptr.append(len(flat))
    adj = (
        np.fromiter(chain.from_iterable(flat), np.int32, 5 * len(flat)).reshape(len(flat), 5).T.copy()
    )  # rows C-ordered

    gauge_ok = [gauge_ok_mask(rules.gauge_sets(train)) for train in trains]
    caps = np.array(
        [[s.visit_large, s.visit_small, s.visit_total, s.pay_large, s.pay_small, s.pay_total] for s in specs],
        dtype=np.int32,
    ).reshape(K, 6)
    keys: dict = {}
    rows = values.tolist()
    min_large = [rules.min_large(s) for s in specs]
    group = np.array(
        [
            keys.setdefault((s, min_large[t], tuple(rows[t]), gauge_ok[t], rules.halves(s)), len(keys))
            for t, s in enumerate(specs)
        ],
        dtype=np.int32,
    )

    pairs = [(index[p.a], index[p.b], p.amount, p.visited) for p in bonuses.pairs if p.a in index and p.b in index]
    stop_track, stop_amount = rules.track_stop_bonus()
    stop_kinds = sum(1 << GAUGES.index(kind) for kind in stop_track)
    largest = [
        (index[b.trigger], [index[x] for x in b.exclude if x in index]) for b in bonuses.largest if b.trigger in index
    ]
    largest_exclude = np.zeros((len(largest), n), dtype=np.uint8)
    for k, (_, excl) in enumerate(largest):
        largest_exclude[k, excl] = 1
    set_pairs = list(bonuses.set_pairs)
    if len(set_pairs) > MAX_SET_PAIRS:
        raise BoardError(f"at most {MAX_SET_PAIRS} set-pair bonuses are supported", field="game")
    sets = np.zeros(n, dtype=np.uint32)
    for k, sp in enumerate(set_pairs):
        for bit, members in ((2 * k, sp.a), (2 * k + 1, sp.b)):
            for x in members:
                if x in index:
                    sets[index[x]] |= np.uint32(1 << bit)
    r2r = bonuses.red_to_red
    best_route = list(bonuses.best_route)
    if any(len(b.require) > MAX_GROUPS for b in best_route):
        raise BoardError(f"best-route bonuses of at most {MAX_GROUPS} groups are supported", field="game")
    br_mask = np.zeros((len(best_route), n), dtype=np.uint32)
    for k, b in enumerate(best_route):
        for g, members in enumerate(b.require):
            for x in members:
                if x in index:
                    br_mask[k, index[x]] |= np.uint32(1 << g)

    hex_caps = [s.hex_cap for s in specs]
    hex_edges = np.zeros((K, len(segments)), dtype=np.int32)
    for t, spec in enumerate(specs):
        if spec.hex_cap >= 0:
            hex_edges[t] = [HEX_FORBIDDEN if why else edges for edges, why in rules.hex_edges(graph, spec)]

    return Problem(
        board=board,
        rules=rules,
        graph=graph,
        trains=trains,
        specs=specs,
        bonus_trains=bonus_trains,
        bonuses=bonuses,
        n_stops=n,
        n_dirs=len(flat),
        n_segs=len(segments),
        n_track_words=n_words,
        n_locs=len(locations),
        n_trains=K,
        n_pairs=len(pairs),
        n_largest=len(largest),
        n_penalties=len(pen_hexes),
        n_best_route=len(best_route),
        n_set_pairs=len(set_pairs),
        n_track_groups=max([s.track_group for s in specs], default=0) + 1,
        large_by_stop=flags[0],
        token_by_stop=flags[1],
        red_by_stop=flags[2],
        end_only_by_stop=flags[3],
        no_end_by_stop=flags[4],
        loc_by_stop=loc,
        mine_by_stop=_arr([s.mine for s in stops], np.uint8),
        half_again_by_stop=port_flags(stops),
        end_bonus_by_stop=_arr([s.end_bonus for s in stops], np.int32) if any(s.end_bonus for s in stops) else None,
        adj_ptr_by_stop=np.array(ptr, dtype=np.int32),
        to_stop_by_dir=adj[2],
        seg_by_dir=adj[1],
        from_terminal_by_dir=adj[3].astype(np.uint8),
        to_terminal_by_dir=adj[4].astype(np.uint8),
        track_bits_by_seg=seg_res,
        penalty_mask_by_seg=seg_pen,
        gauge_halves_by_seg=_arr([sum(rules.gauge_halves(graph.side_names[r]) for r in seg.sides) for seg in segments]),
        free_gauge_by_train=_arr([rules.free_gauge(s) for s in specs]),
        end_cap_by_train=_arr([NO_END_CAP if rules.end_cap(s) >= UNLIMITED else rules.end_cap(s) for s in specs]),
        amount_by_penalty=_arr([pen_amounts[h] for h in pen_hexes]),
        gauge_by_seg=gauge_by_seg(board, segments, gauge_ok, bool(stop_kinds)),
        values_by_train_stop=values,
        caps_by_train=caps,
        multiplier_by_train=_arr([s.multiplier for s in specs]),
        group_by_train=group,
        pays_all_by_train=_arr([s.pays_all for s in specs], np.uint8),
        requires_token_by_train=_arr([s.requires_token for s in specs], np.uint8),
        local_by_train=_arr([s.local for s in specs], np.uint8),
        track_group_by_train=_arr([s.track_group for s in specs]),
        token_ends_by_train=_arr([s.token_ends for s in specs], np.uint8),
        min_large_by_train=_arr(min_large),
        mine_rule_by_train=_arr([rules.mine_rule(s) for s in specs], np.uint8),
        gauge_ok_by_train=np.array(gauge_ok, dtype=np.uint32),
        stop_a_by_pair=_arr([p[0] for p in pairs]),
        stop_b_by_pair=_arr([p[1] for p in pairs]),
        amount_by_pair=_arr([p[2] for p in pairs]),
        visited_by_pair=_arr([p[3] for p in pairs], np.uint8),
        trigger_by_largest=_arr([x[0] for x in largest]),
        excluded_by_largest_stop=largest_exclude,
        sets_by_stop=sets,
        amount_by_set_pair=_arr([sp.amount for sp in set_pairs]),
        visited_by_set_pair=_arr([sp.visited for sp in set_pairs], np.uint8),
        amount_by_best_route=_arr([b.amount for b in best_route]),
        per_stop_by_best_route=_arr([b.per_stop for b in best_route]),
        multiplied_by_best_route=_arr([b.multiplied for b in best_route], np.uint8),
        groups_by_best_route_stop=br_mask,
        full_by_best_route=_arr([(1 << len(b.require)) - 1 for b in best_route], np.uint32),
        local_cities_once=rules.local_cities_once(),
        r2r_per_token=r2r.per_token if r2r else 0,
        r2r_max_tokens=r2r.max_tokens if r2r else 0,
        has_pullman=int(bonuses.double_best_large),
        hex_cap_by_train=np.array([min(c, HEX_FORBIDDEN - 1) for c in hex_caps], dtype=np.int32),
        hex_edges_by_train_seg=hex_edges,
        home_stop=rules.home_stop(graph),
        largest_by_set_pair=_arr([sp.largest for sp in set_pairs], np.uint8),
        **crow_arrays(bonuses.crow, specs, [s.id for s in stops]),
        paid_once=int(rules.stops_paid_once()),
        freight_by_train=tuple(rules.freight_terms(s) for s in specs),
        unlike_end_colours=rules.unlike_end_colours(),
        not_all_trains=int(rules.not_all_trains()),
        uncounted_by_best_route_stop=uncounted_mask(best_route, index, n),
        skip_penalty_by_train=_arr(
            [sum(1 << b for b, (_, names) in enumerate(pen_hexes) if s.name in names) for s in specs], np.uint32
        ),
        tokens_only_by_train=_arr([s.tokens_only for s in specs], np.uint8),
        per_hex_by_best_route=_arr([b.per_hex for b in best_route]),
        hexes_by_best_route=_arr([per_hex_bits(b, pen_hexes) for b in best_route], np.uint32),
        halved_by_train=_arr([rules.halves(s) for s in specs], np.uint8),
        free_by_stop=_arr(free_stops(board, stops), np.uint8),
        skip_set_pairs_by_train=_arr(
            [
                sum(1 << k for k, sp in enumerate(set_pairs) if sp.trains and not re.fullmatch(sp.trains, s.name or ""))
                for s in specs
            ],
            np.uint32,
        ),
        run_rule=rules.run_rule(graph, trains, specs),
        large_first_by_train=_arr([s.large_first for s in specs], np.uint8),
        once_bits_by_stop=once_bits(rules.once_locations(), index, n),
        once_amount=rules.once_amount(),
        fixed_revenue=rules.fixed_revenue(),
        fixed_needs_route=rules.fixed_needs_route(),
        stop_bonus_kinds=stop_kinds,
        stop_bonus_amount=stop_amount if stop_kinds else 0,
        one_extra_large=tuple(rules.one_extra_large(specs)),
        routes_meet=int(rules.routes_meet()),
        ends_free_by_train=_arr([rules.ends_free(s) for s in specs], np.uint8),
        **end_sets(board, rules, stops, specs),
        variable_by_stop=variable_flags(board, rules.variable_cities(), stops),
        variable_offset=int((rules.variable_cities() or {}).get("offset", 0)),
        goods_bits_by_seg=goods[0],
        goods_terms=goods[1],
    )


def end_sets(board, rules, stops, specs) -> dict:
    """The trains whose route must begin or end at one of some stops, and those stops (Rules.end_set);
    empty arrays where no train must."""
    needs = [int(rules.needs_end(s)) for s in specs]
    if not any(needs):
        return {}
    in_set = [int(rules.end_set(board.hexes[s.hex], board.hexes[s.hex].tile.nodes[s.node])) for s in stops]
    return {"needs_end_by_train": _arr(needs, np.uint8), "end_set_by_stop": _arr(in_set, np.uint8)}


def one_extra_variants(problem: Problem) -> list:
    """For a problem with ``one_extra_large``: one problem per such train (one of each group of
    identical trains), in which that train counts and is paid one more large stop and the others
    do not. A run is legal when at most one of them counts more, so it is legal in one of these,
    and each of their runs is legal: the best of their optima is the optimum."""
    out = []
    seen = set()
    for t in problem.one_extra_large:
        group = int(problem.group_by_train[t])
        if group in seen:
            continue
        seen.add(group)
        caps = problem.caps_by_train.copy()
        caps[t, 0] += 1
        caps[t, 3] += 1
        specs = list(problem.specs)
        specs[t] = replace(specs[t], visit_large=specs[t].visit_large + 1, pay_large=specs[t].pay_large + 1)
        groups = problem.group_by_train.copy()
        groups[t] = int(groups.max()) + 1  # no longer identical to its twins
        out.append(replace(problem, caps_by_train=caps, specs=specs, group_by_train=groups, one_extra_large=()))
    return out


def crow_arrays(crow, specs, stop_ids) -> dict:
    """The arrays of a crow-distance bonus (:class:`~optimizer.model.CrowBonus`): none (empty) without one."""
    if crow is None or not any(re.fullmatch(crow.trains, s.name or "") for s in specs):
        return {}
    xy = [crow.xy.get(s) for s in stop_ids]
    return {
        "crow_per_hex_by_train": _arr([crow.per_hex if re.fullmatch(crow.trains, s.name or "") else 0 for s in specs]),
        "crow_x_by_stop": _arr([p[0] if p else 0 for p in xy]),
        "crow_y_by_stop": _arr([p[1] if p else 0 for p in xy]),
        "crow_end_by_stop": _arr([p is not None for p in xy], np.uint8),
    }


def once_bits(locations: dict, index: dict, n: int) -> np.ndarray:
    """Per stop, a bit for each location (``Rules.once_locations``: stop id -> location) whose bonus it
    pays once across the routes; empty where no stop pays one."""
    names = sorted(set(locations.values()))
    if not names:
        return np.zeros(0, dtype=np.uint64)
    if len(names) > 64:
        raise BoardError("at most 64 locations paying a bonus once across the routes are supported", field="game")
    bits = np.zeros(n, dtype=np.uint64)
    for stop, name in locations.items():
        if stop in index:
            bits[index[stop]] |= np.uint64(1 << names.index(name))
    return bits


def uncounted_mask(best_route: list, index: dict, n: int) -> np.ndarray:
    """Per best-route bonus and stop, 1 where its ``per_stop`` does not count the stop (those
    ``BestRouteBonus.counted`` leaves out, where it names any); empty where every bonus counts every stop."""
    if not any(b.counted is not None for b in best_route):
        return np.zeros((0, 0), dtype=np.uint8)
    mask = np.zeros((len(best_route), n), dtype=np.uint8)
    for k, b in enumerate(best_route):
        if b.counted is not None:
            mask[k] = 1
            for x in b.counted:
                if x in index:
                    mask[k, index[x]] = 0
    return mask


def gauge_ok_mask(sets) -> int:
    """The sets of track kinds a route may use, as bits over the 32 masks: a mask is legal when it
    lies within one of ``sets`` (names of GAUGES); every mask where ``sets`` is None (no rule)."""
    if sets is None:
        return ANY_GAUGE
    allowed = [sum(1 << GAUGES.index(kind) for kind in kinds) for kinds in sets]
    return sum(1 << m for m in range(1 << len(GAUGES)) if any(m & ~a == 0 for a in allowed))


def gauge_by_seg(board, segments, gauge_ok, needed: bool = False) -> np.ndarray:
    """Each segment's track kinds (its paths' ``track``), read only where some train's gauge rule
    (or a bonus by track kind, ``needed``) needs them: zeros otherwise, which every train may run."""
    if all(ok == ANY_GAUGE for ok in gauge_ok) and not needed:
        return np.zeros(len(segments), dtype=np.uint8)
    hexes = board.hexes
    out = []
    for seg in segments:
        mask = 0
        for hex_id, i in seg.paths:
            hx = hexes[hex_id]
            mask |= 1 << GAUGES.index(placed(hx.tile.code, hx.rotation).paths[i].track)
        out.append(mask)
    return np.array(out, dtype=np.uint8)
