"""Small random boards for property tests: a few hexes of real tiles, tokens, 1 to 3 trains.

Tiles are drawn from the five games' real supplies (every colour, cities, towns, OO tiles,
junctions, plain track) with random rotations; some edge hexes are red off-boards. The company
holds one or two tokens; other companies' tokens may fill (and so block) cities. Trains are of
every kind: standard N, plus N+M, express NE, unlimited D, 18EU-style (towns free) and 5+1; some
need no token of the company (``requires_token: false``).
Bonuses are attached to the flattened problem at random, so that every rule shape the search
knows (pairs paid or visited, negative pairs, set pairs once a route, largest stop, red-to-red,
penalties, Pullman, bonus hexes along the track, best-route bonuses, some times the train's multiplier, gauges,
gauge changes counted as cities, town ends counted as cities) meets the reference.
:func:`one_stop_per_hex` flattens a board under the declared family of that name (the engine's "Route
visits same hex twice"), some hexes exempt; :func:`e_trains` adds E trains under that family; :func:`mines`
under the family ``mines`` (1837's goods trains and mines), some hexes mines and some trains goods trains.
"""

from __future__ import annotations

import json
from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from optimizer.board.state import read_board
from optimizer.board.tiles import parse_code
from optimizer.games.declared import DeclaredRules
from optimizer.graph.problem import any_train_without_token, gauge_ok_mask, problem_from_graph
from optimizer.graph.walks import build_track_graph

from .corpus import game_files

LETTERS = "ABCDEFGH"


@lru_cache(maxsize=1)
def real_tiles() -> tuple:
    codes = set()
    for f in game_files():
        data = json.loads(f.read_text())
        for t in data["tiles"]:
            codes.add((t["code"], t["color"]))
    usable = []
    for code, colour in sorted(codes):
        tile = parse_code(code)
        if tile.paths:
            usable.append((code, colour))
    return tuple(usable)


@lru_cache(maxsize=1)
def several_stop_tiles() -> tuple:
    """The real tiles with two stops or more."""
    return tuple((code, colour) for code, colour in real_tiles() if sum(n.is_stop for n in parse_code(code).nodes) > 1)


OFFBOARDS = (
    "offboard=revenue:yellow_30|brown_60;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;"
    "path=a:3,b:_0;path=a:4,b:_0;path=a:5,b:_0",
    "offboard=revenue:20;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0;path=a:4,b:_0;path=a:5,b:_0",
)


def _express(n):
    return {"name": f"{n}E", "distance": [{"nodes": ["city", "offboard", "town"], "pay": n, "visit": 99}]}


TRAINS = st.one_of(
    st.integers(2, 4).map(lambda n: {"name": str(n), "distance": n}),
    st.integers(1, 3).map(
        lambda n: {
            "name": f"{n}+{n}",
            "distance": [
                {"nodes": ["town"], "pay": n, "visit": n},
                {"nodes": ["city", "offboard", "town"], "pay": n, "visit": n},
            ],
        }
    ),
    st.integers(2, 3).map(_express),
    st.just({"name": "D", "distance": 999}),
    st.integers(2, 3).map(
        lambda n: {
            "name": str(n),
            "distance": [
                {"nodes": ["city", "offboard"], "pay": n, "visit": n},
                {"nodes": ["town"], "pay": 99, "visit": 99},
            ],
        }
    ),
    st.just(
        {
            "name": "5+1",
            "distance": [
                {"nodes": ["town"], "pay": 1, "visit": 1},
                {"nodes": ["city", "offboard", "town"], "pay": 5, "visit": 5},
            ],
        }
    ),
    st.integers(2, 4).map(
        lambda n: {
            "name": f"{n}D",
            "distance": [  # 18AL 4D: a row multiplier
                {"nodes": ["city", "offboard"], "pay": n, "visit": n, "multiplier": 2},
                {"nodes": ["town"], "pay": 99, "visit": 99},
            ],
        }
    ),
    st.integers(2, 4).map(
        lambda n: {
            "name": f"{n}X0",
            "distance": [  # 18FL 3E: cities twice, towns visited for nothing
                {"nodes": ["city", "offboard"], "pay": n, "visit": n, "multiplier": 2},
                {"nodes": ["town"], "pay": 99, "visit": 99, "multiplier": 0},
            ],
        }
    ),
    st.integers(2, 3).map(
        lambda n: {
            "name": f"{n}/{n + 2}",
            "distance": [  # 1846 3/5: visits more than it pays
                {"nodes": ["city", "offboard"], "pay": n, "visit": n + 2}
            ],
        }
    ),
)


# Trains the engine calls local (lib/engine/train.rb#local?: a distance of 1, or a city row visiting 1):
# 1822's L (a city and a town, or its token city alone) and a 1 train.
LOCAL_TRAINS = st.sampled_from(
    [
        {
            "name": "L",
            "distance": [{"nodes": ["city"], "pay": 1, "visit": 1}, {"nodes": ["town"], "pay": 1, "visit": 1}],
            "local": True,
        },
        {"name": "1", "distance": 1, "local": True},
    ]
)


def _facing(hex_id, ids, rotation, tile) -> int:
    """How many of the tile's exits face another hex of the board."""
    from optimizer.board.geometry import DIRECTIONS, hex_xy

    x, y = hex_xy(hex_id, "pointy")
    present = {hex_xy(h, "pointy") for h in ids}
    return sum(
        (x + DIRECTIONS["pointy"][e][0], y + DIRECTIONS["pointy"][e][1]) in present for e in tile.exits(rotation)
    )


@st.composite
def small_boards(
    draw, max_hexes: int = 10, min_trains: int = 1, max_trains: int = 3, several_stops: bool = False, local=False
):
    """A random board; with ``several_stops``, about half its tiles hold two stops or more (OO
    cities, double towns, a city and a town), where a route may meet one hex twice; with ``local``,
    about half its trains are local trains (:data:`LOCAL_TRAINS`), often two alike."""
    rows = draw(st.integers(2, 4))
    cols = draw(st.integers(2, 4))
    ids = []
    for y in range(rows):
        for k in range(cols):
            x = 2 * k + (y % 2)
            ids.append(f"{LETTERS[y]}{x + 1}")
    ids = ids[:max_hexes]
    tiles = real_tiles()
    hexes = []
    for hex_id in ids:
        if draw(st.integers(0, 9)) == 0:
            hexes.append(
                {
                    "id": hex_id,
                    "tile": hex_id,
                    "color": "red",
                    "rotation": 0,
                    "code": draw(st.sampled_from(OFFBOARDS)),
                    "cities": [],
                }
            )
            continue
        code, colour = draw(st.sampled_from(several_stop_tiles() if several_stops and draw(st.booleans()) else tiles))
        tile = parse_code(code)
        cities = [
            {"index": n.index, "slots": n.slots, "tokens": [None] * n.slots} for n in tile.nodes if n.kind == "city"
        ]
        rotation = draw(st.integers(0, 5))
        if draw(st.integers(0, 3)):  # mostly, turn the tile to face as many neighbours as it can
            rotation = max(range(6), key=lambda r: (_facing(hex_id, ids, r, tile), (r - rotation) % 6 == 0))
        hexes.append({"id": hex_id, "tile": "t", "color": colour, "rotation": rotation, "code": code, "cities": cities})
    cities = [(h, c) for h in hexes for c in h["cities"] if c["slots"]]
    if not cities:
        h = hexes[0]
        h.update(
            code="city=revenue:20;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0;path=a:4,b:_0;path=a:5,b:_0",
            color="gray",
            rotation=0,
            cities=[{"index": 0, "slots": 1, "tokens": [None]}],
        )
        cities = [(h, h["cities"][0])]
    for _h, c in draw(st.lists(st.sampled_from(cities), min_size=1, max_size=2, unique_by=lambda hc: id(hc[1]))):
        c["tokens"][0] = "US"
    for _h, c in cities:
        if "US" not in c["tokens"] and draw(st.integers(0, 3)) == 0:
            c["tokens"] = ["THEM"] * c["slots"]
    trains = draw(st.lists(TRAINS, min_size=min_trains, max_size=max_trains))
    if local:
        trains = [draw(LOCAL_TRAINS) if draw(st.booleans()) else t for t in trains]
        if trains and trains[0].get("local") and draw(st.booleans()):
            trains.append(dict(trains[0]))  # two alike
    trains = [dict(t, requires_token=False) if draw(st.integers(0, 4)) == 0 else t for t in trains]
    phase = draw(
        st.sampled_from(
            [["yellow"], ["yellow", "green"], ["yellow", "green", "brown"], ["yellow", "green", "brown", "gray"]]
        )
    )
    return {
        "id": "random",
        "game": "random",
        "layout": "pointy",
        "phase": {"name": "x", "tiles": phase},
        "corporation": {"id": "US"},
        "trains": [dict(t, id=f"{t['name']}-{i}") for i, t in enumerate(trains)],
        "hexes": hexes,
    }


@st.composite
def set_bits_by_stop(draw, n: int, k: int):
    """The stops of set pairs' 2k sets, as bits by stop (bit 2j: set a of pair j, 2j + 1: its set b),
    one to three stops a set."""
    sets = np.zeros(n, dtype=np.uint32)
    for bit in range(2 * k):
        for s in draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3)):
            sets[s] |= np.uint32(1 << bit)
    return sets


@st.composite
def bonuses(draw, problem):
    """Random bonus data for a flattened problem, in place (arrays and their sizes); returns the problem."""
    n = problem.n_stops
    if n >= 2 and draw(st.booleans()):
        k = draw(st.integers(1, 2))
        problem.stop_a_by_pair = np.array([draw(st.integers(0, n - 1)) for _ in range(k)], dtype=np.int32)
        problem.stop_b_by_pair = np.array([draw(st.integers(0, n - 1)) for _ in range(k)], dtype=np.int32)
        problem.amount_by_pair = np.array([draw(st.sampled_from([20, 50, 100, -10])) for _ in range(k)], dtype=np.int32)
        problem.visited_by_pair = np.array([draw(st.booleans()) for _ in range(k)], dtype=np.uint8)
        problem.n_pairs = k
    if n >= 2 and draw(st.integers(0, 2)) == 0:  # set pairs, once a route (1888's destinations)
        k = draw(st.integers(1, 2))
        problem.sets_by_stop = draw(set_bits_by_stop(n, k))
        problem.amount_by_set_pair = np.array([draw(st.sampled_from([20, 40, -10])) for _ in range(k)], dtype=np.int32)
        problem.visited_by_set_pair = np.array([draw(st.booleans()) for _ in range(k)], dtype=np.uint8)
        problem.n_set_pairs = k
        if draw(st.booleans()):  # once met, the richest paid stop again (18Neb's east-west)
            problem.largest_by_set_pair = np.array([draw(st.booleans()) for _ in range(k)], dtype=np.uint8)
    if n >= 1 and draw(st.booleans()):
        trigger = draw(st.integers(0, n - 1))
        problem.trigger_by_largest = np.array([trigger], dtype=np.int32)
        exclude = np.zeros((1, n), dtype=np.uint8)
        exclude[0, trigger] = 1
        if draw(st.booleans()):
            exclude[0, draw(st.integers(0, n - 1))] = 1
        problem.excluded_by_largest_stop = exclude
        problem.n_largest = 1
    if draw(st.booleans()) and all(s.pays_all for s in problem.specs):
        problem.r2r_per_token = draw(st.sampled_from([10, 20, 30]))
        problem.r2r_max_tokens = draw(st.integers(1, 5))
        problem.red_by_stop = np.array([draw(st.booleans()) or s.red for s in problem.graph.stops], dtype=np.uint8)
    if len(problem.graph.segments) and draw(st.booleans()):
        # penalty hexes (1880's ferries) and bonus hexes, negative (1817's mines and ranches)
        amounts = draw(st.lists(st.sampled_from([10, 20, -10, -20]), min_size=1, max_size=3))
        problem.amount_by_penalty = np.array(amounts, dtype=np.int32)
        problem.n_penalties = len(amounts)
        full = (1 << len(amounts)) - 1
        problem.penalty_mask_by_seg = np.array(
            [draw(st.integers(1, full)) if draw(st.integers(0, 2)) == 0 else 0 for _ in problem.graph.segments],
            dtype=np.uint32,
        )
    if len(problem.graph.segments) and draw(st.integers(0, 3)) == 0:  # gauge changes count as cities (1848)
        problem.gauge_halves_by_seg = np.array(
            [draw(st.sampled_from([0, 0, 1, 2, 3])) for _ in problem.graph.segments], dtype=np.int32
        )
        free = {int(g): draw(st.integers(0, 1)) for g in problem.group_by_train}  # identical trains alike
        problem.free_gauge_by_train = np.array([free[int(g)] for g in problem.group_by_train], dtype=np.int32)
    if draw(st.integers(0, 3)) == 0:  # towns at route ends count against the cities (18MT)
        caps = {int(g): draw(st.sampled_from([2, 3, 4, 999])) for g in problem.group_by_train}  # identical alike
        problem.end_cap_by_train = np.array([caps[int(g)] for g in problem.group_by_train], dtype=np.int32)
    if len(problem.graph.segments) and draw(st.integers(0, 2)) == 0:
        gauges(draw, problem)
    if draw(st.integers(0, 4)) == 0:
        problem.has_pullman = 1
    if n >= 1 and draw(st.integers(0, 2)) == 0:  # best-route bonuses: Mail Contract, named routes
        k = draw(st.integers(1, 2))
        problem.amount_by_best_route = np.array([draw(st.sampled_from([0, 20, 40])) for _ in range(k)], dtype=np.int32)
        problem.per_stop_by_best_route = np.array([draw(st.sampled_from([0, 10])) for _ in range(k)], dtype=np.int32)
        problem.groups_by_best_route_stop = np.zeros((k, n), dtype=np.uint32)
        groups = [draw(st.integers(0, 2)) for _ in range(k)]
        for b in range(k):
            for g in range(groups[b]):
                for s in draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=2)):
                    problem.groups_by_best_route_stop[b, s] |= np.uint32(1 << g)
        problem.full_by_best_route = np.array([(1 << g) - 1 for g in groups], dtype=np.uint32)
        problem.multiplied_by_best_route = np.array([draw(st.booleans()) for _ in range(k)], dtype=np.uint8)
        problem.n_best_route = k
        if draw(st.integers(0, 2)) == 0:  # per_stop counts some stops only (18Tokaido's Sleeper Train: cities)
            problem.uncounted_by_best_route_stop = np.array(
                [[draw(st.integers(0, 1)) for _ in range(n)] for _ in range(k)], dtype=np.uint8
            )
    return problem


# Rules of the declared ``gauges`` family: the sets of track kinds a train's route may use.
GAUGE_RULES = (
    None,  # any track
    (("broad", "dual"), ("narrow", "dual")),  # one gauge a route (18Carolinas)
    (("broad",),),  # 1840's minors
    (("narrow",),),  # 18Norway's ships
    (("broad", "dual", "thin", "dashed"),),  # 18Norway's trains: never narrow
)


def gauges(draw, problem):
    """Random track kinds on the segments (mostly one kind: broad 1, narrow 2, dual 4; some mixed)
    and a random gauge rule per train (the same for identical trains, as a title's rule reads the
    train's name), in place."""
    problem.gauge_by_seg = np.array(
        [draw(st.sampled_from([0, 1, 1, 2, 2, 4, 3, 5, 6, 8])) for _ in problem.graph.segments], dtype=np.uint8
    )
    rule: dict = {}
    for group in problem.group_by_train.tolist():
        if group not in rule:
            rule[group] = gauge_ok_mask(draw(st.sampled_from(GAUGE_RULES)))
    problem.gauge_ok_by_train = np.array([rule[g] for g in problem.group_by_train.tolist()], dtype=np.uint32)


@st.composite
def one_stop_per_hex(draw, doc):
    """The board's problem under the declared family ``one_stop_per_hex``: a route visits at most one
    stop of a hex (lib/engine/game/g_1867/game.rb#revenue_for, ``Route#hexes``), but for up to two of
    the hexes holding several stops, drawn as exempt (``except_hexes``: the engine's ``DOUBLE_HEX``)."""
    board = read_board(doc)
    several = sorted(h["id"] for h in doc["hexes"] if sum(n.is_stop for n in parse_code(h["code"]).nodes) > 1)
    exempt = draw(st.lists(st.sampled_from(several), max_size=2, unique=True)) if several else []
    family = {"except_hexes": exempt} if exempt else True
    rules = DeclaredRules.for_game("random", {}, {"one_stop_per_hex": family})(board)
    reachable_only = not any_train_without_token(board, rules)
    return problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=reachable_only)), exempt


@st.composite
def hex_distance(draw, doc):
    """The board's problem under the declared family ``hex_distance`` (trains whose distance is hex edges
    crossed, not stops: optimizer/games/hex_trains.py), drawn as 1849's, 18NY's, 1844's or 1858's; at times each
    hex train's segment costs are then redrawn (0 to 3 edges, some segments forbidden to it), so that the
    searches meet every cost the family can give."""
    from optimizer.graph.problem import HEX_FORBIDDEN

    board = read_board(doc)
    rule = draw(
        st.sampled_from(
            [
                {"trains": "integer"},
                {"trains": "all"},
                {"trains": {"suffix": "D"}, "count": "hexes", "no_offboards": True},
                {"trains": "integer", "double_gauge": {"*": "narrow"}},
                {"trains": {"suffix": "E"}, "train_gauge": {"D": "narrow", "*": "broad"}},  # 1858's gauges
            ]
        )
    )
    rules = DeclaredRules.for_game("random", {}, {"hex_distance": rule})(board)
    reachable_only = not any_train_without_token(board, rules)
    problem = problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=reachable_only))
    if problem.n_segs and draw(st.booleans()):
        costs = problem.hex_edges_by_train_seg.copy()
        drawn: dict = {}  # identical trains (one group: the search places them in order) cost alike
        for t in range(problem.n_trains):
            if problem.hex_cap_by_train[t] >= 0:
                group = int(problem.group_by_train[t])
                if group not in drawn:
                    drawn[group] = [
                        HEX_FORBIDDEN if draw(st.integers(0, 7)) == 0 else draw(st.integers(0, 3))
                        for _ in range(problem.n_segs)
                    ]
                costs[t] = drawn[group]
        problem.hex_edges_by_train_seg = costs
    return problem


# E trains (the engine's train_type :etrain): 1822's E (distance 99, doubled) and 1866's 4E (four
# cities, towns free and unpaid, doubled).
E_TRAINS = st.sampled_from(
    [
        {"name": "E", "distance": 99, "multiplier": 2},
        {
            "name": "4E",
            "distance": [{"nodes": ["city"], "pay": 4, "visit": 4}, {"nodes": ["town"], "pay": 0, "visit": 99}],
            "multiplier": 2,
        },
    ]
)


@st.composite
def e_trains(draw, doc):
    """The board with an E train added (at times two), flattened under the declared family
    ``e_trains``: paid only by the company's token cities, in an overlap group of its own, its route
    ending at token cities where ``token_ends`` is drawn (g_1822/game.rb#check_distance). Often a
    third token city of the company, so that such routes exist."""
    doc = json.loads(json.dumps(doc))
    cities = [c for h in doc["hexes"] for c in h["cities"] if c["slots"] and "US" not in c["tokens"]]
    for c in draw(st.lists(st.sampled_from(cities), max_size=2, unique_by=id)) if cities else []:
        c["tokens"] = ["US"] + [None] * (c["slots"] - 1)
    extra = draw(st.lists(E_TRAINS, min_size=1, max_size=2))
    doc["trains"] = doc["trains"] + [dict(t, id=f"{t['name']}-{len(doc['trains']) + i}") for i, t in enumerate(extra)]
    token_ends = draw(st.booleans())
    board = read_board(doc)
    family = {"trains": ["E", "4E"], "token_ends": token_ends}
    rules = DeclaredRules.for_game("random", {}, {"e_trains": family})(board)
    reachable_only = not any_train_without_token(board, rules)
    return problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=reachable_only)), token_ends


MINES_FAMILY = {"assignment": "coal", "goods_suffix": "G"}  # as 1837's data file declares it


@st.composite
def mines(draw, doc):
    """The board's problem under the declared family ``mines`` (lib/engine/game/g_1837/game.rb
    #check_other, #revenue_for): one to three hexes with stops assigned ``coal`` (anywhere on the
    board, not only at dead ends as on 1837's map), and about half the trains goods trains (named
    ``...G``), which must visit exactly one mine while the others visit none."""
    with_stops = [h for h in doc["hexes"] if any(n.is_stop for n in parse_code(h["code"]).nodes)]
    for h in draw(st.lists(st.sampled_from(with_stops), min_size=1, max_size=3, unique_by=lambda h: h["id"])):
        h["assignments"] = {"coal": True}
    for train in doc["trains"]:
        if draw(st.booleans()):
            train["name"] += "G"
    board = read_board(doc)
    rules = DeclaredRules.for_game("random", {}, {"mines": MINES_FAMILY})(board)
    reachable_only = not any_train_without_token(board, rules)
    return problem_from_graph(board, rules, build_track_graph(board, rules, reachable_only=reachable_only))


@st.composite
def track_bonuses_by_train(draw, problem):
    """The track families of 1822PNW drawn onto a problem that already has its bonuses (:func:`bonuses`),
    in place: penalty (or bonus) hexes some trains neither earn nor pay (``skip_penalty_by_train``: an E
    train's forests), trains paid only by token cities whose best-route groups count only token stops
    (``tokens_only_by_train``), and best-route bonuses paid per hex crossed (``per_hex_by_best_route``,
    ``hexes_by_best_route``: the lumber baron), trains whose route must begin or end at some stops
    (``needs_end_by_train``, ``end_set_by_stop``: 18Rhl's 8 train). Identical trains (one ``group_by_train``)
    are drawn alike.
    Returns the problem."""
    K, P, B = problem.n_trains, problem.n_penalties, problem.n_best_route
    groups = sorted({int(g) for g in problem.group_by_train})
    full = (1 << P) - 1
    if P and draw(st.booleans()):
        skip = {g: draw(st.integers(0, full)) for g in groups}
        problem.skip_penalty_by_train = np.array([skip[int(g)] for g in problem.group_by_train], dtype=np.uint32)
    if K and B and draw(st.booleans()):
        only = {g: draw(st.booleans()) for g in groups}
        problem.tokens_only_by_train = np.array([only[int(g)] for g in problem.group_by_train], dtype=np.uint8)
    if P and B and draw(st.booleans()):
        problem.per_hex_by_best_route = np.array([draw(st.sampled_from([0, 10, 20])) for _ in range(B)], np.int32)
        problem.hexes_by_best_route = np.array([draw(st.integers(0, full)) for _ in range(B)], dtype=np.uint32)
    if K and draw(st.integers(0, 2)) == 0:  # trains paid half: 1 rounded to 10 (1822MX's 3/2P), 2 down (obsolete)
        halved = {g: draw(st.sampled_from([0, 1, 2])) for g in groups}
        problem.halved_by_train = np.array([halved[int(g)] for g in problem.group_by_train], dtype=np.uint8)
    if K and problem.n_set_pairs and draw(st.booleans()):  # set pairs some trains are not paid (1822CA's ports)
        every = (1 << problem.n_set_pairs) - 1
        skip = {g: draw(st.integers(0, every)) for g in groups}
        problem.skip_set_pairs_by_train = np.array([skip[int(g)] for g in problem.group_by_train], dtype=np.uint32)
    if problem.n_stops and draw(st.integers(0, 2)) == 0:  # stops a visit to which costs no distance (visit_cost 0)
        free = draw(st.lists(st.integers(0, problem.n_stops - 1), min_size=1, max_size=3))
        problem.free_by_stop = np.zeros(problem.n_stops, dtype=np.uint8)
        problem.free_by_stop[free] = 1
    if K and problem.n_stops and draw(st.integers(0, 3)) == 0:  # routes to begin or end at some stops (18Rhl's 8)
        needs = {g: draw(st.booleans()) for g in groups}
        problem.needs_end_by_train = np.array([needs[int(g)] for g in problem.group_by_train], dtype=np.uint8)
        ends = draw(st.lists(st.integers(0, problem.n_stops - 1), max_size=4))
        problem.end_set_by_stop = np.zeros(problem.n_stops, dtype=np.uint8)
        problem.end_set_by_stop[ends] = 1
    return problem
