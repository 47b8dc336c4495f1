"""The rules every game shares, as hooks a game module overrides.

A game module says what its rulebook changes: which stops are large, which are route ends only,
which locations a route may reach once, what a stop is worth, and which bonuses apply. It returns
data (stops, train caps, :class:`~optimizer.model.Bonuses`); the graph and the search
never ask which game they run.
"""

from __future__ import annotations

from functools import cache

from ..errors import BoardError
from ..model import MINES_ANY, Bonuses, Stop, TrainSpec, spec_from_train
from ..model.trains import UNLIMITED

HALF_TO_TEN = 1  # Rules.halves: a train paid half its route's revenue, rounded to 10 (1822MX's 3/2P)
HALF_DOWN = 2  # ... rounded down (an obsolete train: g_1858/game.rb#revenue_for, ``revenue /= 2``)

# The hooks make_stop calls: a game overriding any of them says what they read in stop_context.
STOP_HOOKS = (
    "make_stop",
    "is_large",
    "blocks",
    "end_only",
    "no_end",
    "location",
    "value",
    "value_bonus",
    "is_red",
    "has_token",
    "is_mine",
)


class Rules:
    """Generic 18xx route rules (1830 uses them as they are)."""

    title = "generic"

    def __init__(self, board):
        self.board = board
        self.company = board.company

    # ---- track -----------------------------------------------------------------------------
    def track_walk(self) -> tuple:
        """How routes walk the track: (gauge checked where a walk crosses a hex side, a track kind
        no route walks or None). The engine's default: gauge checked (Part::Path#walk calls
        #tracks_match?), every track walked (Game::Base#skip_route_track_type: nil)."""
        return (True, None)

    # ---- stops -----------------------------------------------------------------------------
    def forbidden(self, hx, node) -> bool:
        """A stop no route of this company may reach at all."""
        return False

    def forbidden_reason(self, hx, node) -> str:
        """Why :meth:`forbidden` holds, in a player's words."""
        return f"the company may not run to or through {hx.location_name or hx.id} ({hx.id})"

    def is_large(self, hx, node) -> bool:
        """Cities and off-boards count against the large number of a train; towns do not."""
        return node.kind in ("city", "offboard")

    def blocks(self, hx, node) -> bool:
        """Every slot holds another company's token (or a company-less blocking one), none of them
        neutral (lib/engine/part/city.rb#blocks?)."""
        city = hx.cities.get(node.index) if node.kind == "city" else None
        if city is None or not city.slots:
            return False
        if self.company.id in city.tokens or self.company.id in city.extra:
            return False
        filled = [bool(t) or (i < len(city.blocking) and city.blocking[i]) for i, t in enumerate(city.tokens)]
        full = len(city.tokens) >= city.slots and all(filled)
        return full and not any(city.neutral)

    def end_only(self, hx, node) -> bool:
        """Off-boards and blocked cities may start or end a route but not be passed through."""
        return node.kind == "offboard" or self.blocks(hx, node)

    def no_end(self, hx, node) -> bool:
        """A stop a route may pass through but neither begin nor end at (none, generically)."""
        return False

    def ends_free(self, spec: TrainSpec) -> bool:
        """The train's route may begin and end at a stop :meth:`no_end` names."""
        return False

    def needs_end(self, spec: TrainSpec) -> bool:
        """The train's route must begin or end at a stop :meth:`end_set` names (none in most titles)."""
        return False

    def end_set(self, hx, node) -> bool:
        return False

    def end_set_reason(self) -> str:
        """The stops :meth:`end_set` names, in a player's words."""
        return "one of its end stops"

    def no_end_reason(self) -> str:
        """Why a route may not begin or end at a stop :meth:`no_end` names, in a player's words."""
        return "a town"

    # hex id -> the off-board area it belongs to, where the map data does not say so itself
    areas: dict[str, str] = {}

    def location(self, hx, node) -> str:
        """Stops sharing a location may not both be on one route (groups such as 1830's Canada, and the
        hexes of one off-board area in :attr:`areas`)."""
        if hx.id in self.areas:
            return "group:" + self.areas[hx.id]
        return "group:" + "|".join(node.groups) if node.groups else hx.node_id(node.index)

    def value(self, hx, node) -> int:
        return node.value(self.board.phase_tiles) + self.value_bonus(hx, node)

    def value_bonus(self, hx, node) -> int:
        """A per-company addition to one stop's value (1880 Taiwan, 1880 Romania Danube port)."""
        return 0

    def open_gaps(self, lines: tuple) -> tuple:
        """Which of the title's coverage lines (games/coverage.json) this board leaves open: all of
        them, unless a family answers one from a field the board gives."""
        return lines

    def is_red(self, hx, node) -> bool:
        return hx.color == "red"

    def has_token(self, hx, node) -> bool:
        """The company's token in the city, in a slot or beyond them (``extra_tokens``: 1870's destination
        token, 18VA's P3): Part::City#tokened_by? counts both, and #blocks? is false for either."""
        city = hx.cities.get(node.index) if node.kind == "city" else None
        return city is not None and (self.company.id in city.tokens or self.company.id in city.extra)

    def is_mine(self, hx, node) -> bool:
        """A mine: a stop only goods trains visit, one a route (:meth:`mine_rule`); none in most titles."""
        return False

    def make_stop(self, hx, node) -> Stop:
        return Stop(
            id=hx.node_id(node.index),
            hex=hx.id,
            node=node.index,
            kind=node.kind,
            large=self.is_large(hx, node),
            value=self.value(hx, node),
            token=self.has_token(hx, node),
            end_only=self.end_only(hx, node),
            location=self.location(hx, node),
            red=self.is_red(hx, node),
            name=hx.location_name,
            no_end=self.no_end(hx, node),
            mine=self.is_mine(hx, node),
        )

    def stop_context(self):
        """What the stop hooks read beyond the hex and its node, as a hashable key: the same hex and
        node in the same context make the same stop, so that a game's next board makes again only
        the stops whose hex changed. The generic hooks read the company's id (its tokens, blocked
        cities) and the phase's tile colours (values). A game whose stop hooks read more returns
        more here, defined in its own class: one that overrides a stop hook without defining it
        has its stops made every time (see :meth:`stops_keyed`)."""
        return (self.company.id, tuple(self.board.phase_tiles))

    @classmethod
    def stops_keyed(cls) -> bool:
        """Every stop hook of this game is covered by its :meth:`stop_context` (defined in the class
        that last overrides one of them, or below it)."""
        return _stops_keyed(cls)  # type: ignore[arg-type]  # a class is hashable; mypy's protocol check says not

    # ---- trains ----------------------------------------------------------------------------
    def train_spec(self, train, where: str) -> TrainSpec | None:
        """The caps of a train; None for a train the rules price as a bonus instead of a route."""
        return spec_from_train(train, where)

    def pullman_amount(self, where: str) -> int:
        """What the Pullman attached to a train adds to each city and off-board it stops at; a title
        without such a Pullman refuses the field (``where``)."""
        raise BoardError(f"{where}: {self.board.game} has no Pullman to attach to a train", field=where)

    def min_large(self, spec: TrainSpec) -> int:
        """How many large stops a route of this train must count at least (0: only the generic two
        stops of any kind)."""
        return 0

    def one_extra_large(self, specs: list) -> tuple:
        """The trains (indexes into ``specs``) one of which, at most, may count one more large stop in
        a run (none by default)."""
        return ()

    def train_value(self, stop: Stop, spec: TrainSpec) -> int:
        """What a stop pays to one train: its value, times the multiplier of the train's row that
        counts it (a game with diesel values differs by train too). A company's bonus on the stop
        is added once: the engine adds such bonuses after the rows' multipliers (18AL 4D). An E train
        (``tokens_only``) is paid by the company's token cities alone (g_1822/game.rb#revenue_for)."""
        if spec.tokens_only and not stop.token:
            return 0
        if spec.large_multiplier == 1 and spec.small_multiplier == 1 and not spec.kind_multipliers:
            return stop.value
        hx = self.board.hexes[stop.hex]
        bonus = self.value_bonus(hx, hx.tile.nodes[stop.node])
        return spec.value_of(stop.value - bonus, stop.large, stop.kind) + bonus

    def gauge_halves(self, side_name: str) -> int:
        """Half gauge changes where the side ``"A/B"`` lies (a border listed on either hex); 0: none."""
        return 0

    def free_gauge(self, spec: TrainSpec) -> int:
        """Gauge changes a train runs without counting them as stops."""
        return 0

    def halves(self, spec: TrainSpec) -> int:
        """How the train is paid half its route's revenue: 0 not at all, HALF_TO_TEN rounded to 10
        (1822MX's 3/2P), HALF_DOWN rounded down (an obsolete train, g_1858/game.rb#revenue_for)."""
        return 0

    def end_cap(self, spec: TrainSpec) -> int:
        """The most large stops plus towns at the route's ends a train may count (UNLIMITED: no such rule)."""
        return UNLIMITED

    def hex_edges(self, graph, spec: TrainSpec) -> list:
        """Per track segment of ``graph``, what running it costs a train that counts hex edges
        (``spec.hex_cap`` >= 0), and why the train may not run it at all ("" where it may): the hex
        sides it crosses, as the engine counts them (``paths.each_cons(2)`` pairs on two hexes,
        e.g. lib/engine/game/g_18_ireland/game.rb#hex_edge_cost)."""
        return [(len(seg.hexes) - 1, "") for seg in graph.segments]

    def home_stop(self, graph) -> int:
        """The stop of ``graph`` some route of every run must visit (-1: none; -2: the rule holds
        but the company holds no token in its home hex, so only the empty run is legal)."""
        return -1

    def not_all_trains(self) -> bool:
        """Whether a run of every train of the company is refused (``civil_war``: 18TN)."""
        return False

    def run_rule(self, graph, trains, specs):
        """A rule pricing and checking the run as a whole (Harzbahn 1873's ``mining_runs``), None: the
        run is the sum of its routes."""
        return None

    def once_locations(self) -> dict:
        """Stop id -> the location whose bonus its value holds, paid once across the company's routes
        (``connection_bonuses``: 18NY); empty in most titles."""
        return {}

    def once_amount(self) -> int:
        """What a stop's value holds for its location's bonus (``once_locations``)."""
        return 0

    def fixed_revenue(self) -> int:
        """What the company earns with its routes whatever they are (18NY's claimed bonuses); 0 in most titles."""
        return 0

    def fixed_needs_route(self) -> bool:
        """Whether ``fixed_revenue`` is earned only by a run of some route (1840's maintenance: the engine's
        ``#routes_revenue`` returns the empty run's 0 first); False in most titles."""
        return False

    def mine_rule(self, spec: TrainSpec) -> int:
        """What the train may do with the mines (``MINES_ANY``, ``MINES_NONE``, ``MINES_ONE``)."""
        return MINES_ANY

    def no_mine_reason(self, name: str) -> str:
        """Why the train ``name`` (``MINES_NONE``) may not visit a stop :meth:`is_mine` names, in a player's words."""
        return f"the {name} train may not visit a mine (only goods trains can)"

    def gauge_sets(self, train) -> tuple | None:
        """The sets of track kinds (``broad``, ``narrow``, ``dual`` ...) a route of the train may use:
        all of its track within one of them; None where the train runs any track."""
        return None

    def routes_share_track(self) -> bool:
        """Whether the company's routes may share track (each train its own overlap group)."""
        return False

    def freight_terms(self, spec: TrainSpec) -> tuple | None:
        """(bonus, port bonus) where the train is a freight train paid by its route's ends and the
        crow-flight hexes between them (optimizer/games/freight.py); None for every other train."""
        return None

    def routes_meet(self) -> bool:
        """Whether a run's routes must all link up through stops they share (a rule on the whole run)."""
        return False

    def unlike_end_colours(self) -> tuple:
        """Hex colours no route may both begin and end on (none)."""
        return ()

    def variable_cities(self) -> dict | None:
        """``variable_cities`` (optimizer/games/variable_cities.py): {names, offset}; None: no such rule."""
        return None

    def commodities(self) -> dict | None:
        """``commodities`` (optimizer/games/commodities.py); None: no such rule."""
        return None

    def stops_paid_once(self) -> bool:
        """Whether a stop already on an earlier route of the run pays nothing (a pricing of the run)."""
        return False

    def local_cities_once(self) -> str:
        """Whether the company's local trains may share a city across their routes: "" (they may),
        "city" (no city on two local trains' routes) or "hex" (no hex with a city on two)."""
        return ""

    def track_stop_bonus(self) -> tuple:
        """(track kinds, amount): a route whose track uses any of these kinds (names of
        ``graph.problem.GAUGES``) earns ``amount`` for each stop it is paid; ((), 0): no such rule."""
        return ((), 0)

    # ---- bonuses ---------------------------------------------------------------------------
    def bonuses(self) -> Bonuses:
        return Bonuses()

    # ---- helpers for games -----------------------------------------------------------------
    def owner_owns(self, private: str) -> bool:
        """The company's director (or the company) owns the private company."""
        return private in self.company.president_companies or private in self.company.companies

    def stop_ids_on(self, hex_id: str) -> list:
        hx = self.board.hexes.get(hex_id)
        if hx is None:
            return []
        return [hx.node_id(n.index) for n in hx.tile.nodes if n.is_stop]


@cache
def _stops_keyed(cls) -> bool:
    def defined_at(name):
        return next(i for i, c in enumerate(cls.__mro__) if name in vars(c))

    return all(defined_at(hook) >= defined_at("stop_context") for hook in STOP_HOOKS)
