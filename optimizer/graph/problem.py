"""A board, its rules and its trains, flattened into integer arrays a compiled search can walk.

Everything the search needs is here as numpy arrays: stops with per-train values, directed track
segments in CSR form by source stop, the track each segment uses as a bitset, the trains' caps
and the bonuses as index arrays. The Python objects stay alongside for explaining results.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np

from ..board.state import Board, is_shared, read_board
from ..errors import BoardError
from ..games import rules_for
from ..games.base import Rules
from ..model import Bonuses
from .track import TrackGraph, build_track_graph

WORD = (1 << 64) - 1
MAX_BEST_ROUTE = 4  # best-route bonuses per company (the search keeps each one's running best per level)


@dataclass
class Problem:
    """One company's routing problem, ready for a search."""

    board: Board
    rules: Rules
    graph: TrackGraph
    trains: list  # board Train objects that run a route
    specs: list  # their TrainSpec
    bonus_trains: list  # trains priced as a bonus (18EU Pullman)
    bonuses: Bonuses
    # ---- stops
    values: np.ndarray  # int32 [n_trains, n_stops]: what each stop pays each train
    large: np.ndarray  # uint8 [n_stops]
    token: np.ndarray  # uint8 [n_stops]: holds our token
    red: np.ndarray  # uint8 [n_stops]
    end_only: np.ndarray  # uint8 [n_stops]
    loc: np.ndarray  # int32 [n_stops]: location id, a route reaches each once
    n_locs: int
    # ---- directed segments, CSR by source stop
    adj_ptr: np.ndarray  # int32 [n_stops + 1]
    adj_to: np.ndarray  # int32 [n_dir]: target stop
    adj_seg: np.ndarray  # int32 [n_dir]: undirected segment index
    adj_from_term: np.ndarray  # uint8 [n_dir]: leaves its source by a terminal path
    adj_to_term: np.ndarray  # uint8 [n_dir]: reaches its target by a terminal path
    seg_res: np.ndarray  # uint64 [n_seg, n_words]: track used, as a bitset
    seg_pen: np.ndarray  # uint32 [n_seg]: penalty hexes crossed, as a bitmask
    pen_amount: np.ndarray  # int32 [n_pen]
    # ---- trains
    caps: np.ndarray  # int32 [n_trains, 6]: visit large, small, total; pay large, small, total
    multiplier: np.ndarray  # int32 [n_trains]
    requires_token: np.ndarray  # uint8 [n_trains]: its routes must count a token of the company
    group: np.ndarray  # int32 [n_trains]: equal ids = identical trains (symmetry breaking)
    # ---- bonuses
    pair_a: np.ndarray  # int32 [n_pairs]
    pair_b: np.ndarray
    pair_amount: np.ndarray
    pair_visited: np.ndarray  # uint8 [n_pairs]: the pair counts when both are on the route, paid or not
    largest_trigger: np.ndarray  # int32 [n_largest]
    largest_exclude: np.ndarray  # uint8 [n_largest, n_stops]
    r2r_per_token: int
    r2r_max_tokens: int
    double_best_large: int
    br_amount: np.ndarray  # int32 [n_best_route]: paid once for the company, on its best route for it,
    br_per_stop: np.ndarray  # int32 [n_best_route]: (amount when the route meets every group, plus per stop visited)
    br_mask: np.ndarray  # uint32 [n_best_route, n_stops]: the groups of the bonus each stop belongs to
    br_full: np.ndarray  # uint32 [n_best_route]: every group (a group with no stop on the map is never met)

    @property
    def n_stops(self) -> int:
        return len(self.graph.stops)

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
    if len(_PROBLEMS) >= _PROBLEMS_MAX:
        _PROBLEMS.clear()
    _PROBLEMS[id(board)] = problem
    return problem


def clear_cache() -> None:
    """Forget the problems built so far (to measure a first board)."""
    _PROBLEMS.clear()


def problem_from_graph(board, rules, graph) -> Problem:
    """The trains' caps and the bonuses of the rules, flattened with the graph."""
    trains, specs, bonus_trains = [], [], []
    for i, train in enumerate(board.trains):
        spec = rules.train_spec(train, f"trains[{i}]")
        if spec is None:
            bonus_trains.append(train)
        else:
            trains.append(train)
            specs.append(spec)
    return flatten(board, rules, graph, trains, specs, bonus_trains, rules.bonuses())


def _empty(dtype) -> np.ndarray:
    """A shared zero-length array (nothing in it to change)."""
    out = np.zeros(0, dtype=dtype)
    out.flags.writeable = False
    return out


_NONE = {np.int32: _empty(np.int32), np.uint8: _empty(np.uint8), np.uint32: _empty(np.uint32)}


def _arr(xs, dtype=np.int32) -> np.ndarray:
    return np.array(xs, dtype=dtype) if xs else _NONE[dtype]


def flatten(board, rules, graph, trains, specs, bonus_trains, bonuses) -> Problem:
    stops = graph.stops
    segments = graph.segments
    n = len(stops)
    K = len(specs)
    index = graph.stop_index()
    values = np.array([[rules.train_value(s, spec) for s in stops] for spec in specs], dtype=np.int32).reshape(K, n)
    locations: dict = {}
    loc = np.array([locations.setdefault(s.location, len(locations)) for s in stops], dtype=np.int32)
    flags = np.array(
        [[s.large for s in stops], [s.token for s in stops], [s.red for s in stops], [s.end_only for s in stops]],
        dtype=np.uint8,
    ).reshape(4, n)  # rows: each C-ordered

    n_res = len(graph.side_names) + len(graph.inner_names)
    n_words = max(1, (n_res + 63) // 64)
    pen_hexes = [h for h in bonuses.hex_penalties]
    if len(pen_hexes) > 32:
        raise BoardError("at most 32 penalty hexes are supported", field="game")
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
            pens.append(sum(1 << b for b, h in enumerate(pen_hexes) if h in on))
        seg_pen = np.array(pens, dtype=np.uint32)
    else:
        seg_pen = np.zeros(len(segments), dtype=np.uint32)

    # Directed segments by source, richest target first (good answers early): sorted as tuples
    # (minus the target's best value, segment), each segment once per source.
    best = values.max(axis=0).tolist() if K else [s.value for s in stops]
    out: list[list] = [[] for _ in range(n)]
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

    caps = np.array(
        [[s.visit_large, s.visit_small, s.visit_total, s.pay_large, s.pay_small, s.pay_total] for s in specs],
        dtype=np.int32,
    ).reshape(K, 6)
    keys: dict = {}
    rows = values.tolist()
    group = np.array([keys.setdefault((s, tuple(rows[t])), len(keys)) for t, s in enumerate(specs)], dtype=np.int32)

    pairs = [(index[p.a], index[p.b], p.amount, p.visited) for p in bonuses.pairs if p.a in index and p.b in index]
    largest = [
        (index[b.trigger], [index[x] for x in b.exclude if x in index]) for b in bonuses.largest if b.trigger in index
    ]
    largest_exclude = np.zeros((len(largest), n), dtype=np.uint8)
    for k, (_, excl) in enumerate(largest):
        largest_exclude[k, excl] = 1
    r2r = bonuses.red_to_red
    best_route = list(bonuses.best_route)
    if len(best_route) > MAX_BEST_ROUTE or any(len(b.require) > 32 for b in best_route):
        raise BoardError(
            f"at most {MAX_BEST_ROUTE} best-route bonuses of at most 32 groups are supported", field="game"
        )
    br_mask = np.zeros((len(best_route), n), dtype=np.uint32)
    for k, b in enumerate(best_route):
        for g, members in enumerate(b.require):
            for x in members:
                if x in index:
                    br_mask[k, index[x]] |= np.uint32(1 << g)

    return Problem(
        board=board,
        rules=rules,
        graph=graph,
        trains=trains,
        specs=specs,
        bonus_trains=bonus_trains,
        bonuses=bonuses,
        values=values,
        large=flags[0],
        token=flags[1],
        red=flags[2],
        end_only=flags[3],
        loc=loc,
        n_locs=len(locations),
        adj_ptr=np.array(ptr, dtype=np.int32),
        adj_to=adj[2],
        adj_seg=adj[1],
        adj_from_term=adj[3].astype(np.uint8),
        adj_to_term=adj[4].astype(np.uint8),
        seg_res=seg_res,
        seg_pen=seg_pen,
        pen_amount=_arr([bonuses.hex_penalties[h] for h in pen_hexes]),
        caps=caps,
        multiplier=np.array([s.multiplier for s in specs], dtype=np.int32),
        requires_token=np.array([s.requires_token for s in specs], dtype=np.uint8),
        group=group,
        pair_a=_arr([p[0] for p in pairs]),
        pair_b=_arr([p[1] for p in pairs]),
        pair_amount=_arr([p[2] for p in pairs]),
        pair_visited=_arr([p[3] for p in pairs], np.uint8),
        largest_trigger=_arr([x[0] for x in largest]),
        largest_exclude=largest_exclude,
        r2r_per_token=r2r.per_token if r2r else 0,
        r2r_max_tokens=r2r.max_tokens if r2r else 0,
        double_best_large=int(bonuses.double_best_large),
        br_amount=_arr([b.amount for b in best_route]),
        br_per_stop=_arr([b.per_stop for b in best_route]),
        br_mask=br_mask,
        br_full=_arr([(1 << len(b.require)) - 1 for b in best_route], np.uint32),
    )
