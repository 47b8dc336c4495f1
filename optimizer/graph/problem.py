"""A board, its rules and its trains, flattened into integer arrays a compiled search can walk.

Everything the search needs is here as numpy arrays: stops with per-train values, directed track
segments in CSR form by source stop, the track each segment uses as a bitset, the trains' caps
and the bonuses as index arrays. The Python objects stay alongside for explaining results.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..board.state import Board, is_shared, read_board
from ..errors import BoardError
from ..games import rules_for
from ..model import Bonuses
from .track import TrackGraph, build_track_graph

WORD = (1 << 64) - 1
MAX_BEST_ROUTE = 4  # best-route bonuses per company (the search keeps each one's running best per level)


@dataclass
class Problem:
    """One company's routing problem, ready for a search."""

    board: Board
    rules: object
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
    return any(not train.requires_token and rules.train_spec(train, f"trains[{i}]") is not None
               for i, train in enumerate(board.trains))  # (a train priced as a bonus runs no route)


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


def flatten(board, rules, graph, trains, specs, bonus_trains, bonuses) -> Problem:
    stops = graph.stops
    n = len(stops)
    index = graph.stop_index()
    values = np.array([[rules.train_value(s, spec) for s in stops] for spec in specs], dtype=np.int32).reshape(len(specs), n)
    locations = {}
    loc = np.array([locations.setdefault(s.location, len(locations)) for s in stops], dtype=np.int32)

    n_res = len(graph.side_names) + len(graph.inner_names)
    n_words = max(1, (n_res + 63) // 64)
    pen_hexes = [h for h in bonuses.hex_penalties]
    if len(pen_hexes) > 32:
        raise BoardError("at most 32 penalty hexes are supported", field="game")
    # The track of each segment as one Python integer, cut into 64-bit words (no numpy scalars).
    words = []
    pens = []
    for seg in graph.segments:
        mask = 0
        for r in seg.sides:
            mask |= 1 << r
        for r in seg.inner:
            mask |= 1 << r
        words.append([(mask >> (64 * w)) & WORD for w in range(n_words)])
        pen = 0
        if pen_hexes:
            on = {h for h, _ in seg.paths}
            for b, h in enumerate(pen_hexes):
                if h in on:
                    pen |= 1 << b
        pens.append(pen)
    seg_res = np.array(words, dtype=np.uint64).reshape(len(graph.segments), n_words)
    seg_pen = np.array(pens, dtype=np.uint32)

    # Directed segments by source, richest target first (good answers early).
    out = [[] for _ in range(n)]
    for k, seg in enumerate(graph.segments):
        out[seg.a].append((seg.b, k, seg.a_terminal, seg.b_terminal))
        out[seg.b].append((seg.a, k, seg.b_terminal, seg.a_terminal))
    best = values.max(axis=0) if len(specs) else np.array([s.value for s in stops])
    adj_ptr = np.zeros(n + 1, dtype=np.int32)
    flat = []
    for i in range(n):
        out[i].sort(key=lambda t: (-int(best[t[0]]), t[1]))
        flat.extend(out[i])
        adj_ptr[i + 1] = len(flat)
    adj = np.array(flat, dtype=np.int64).reshape(len(flat), 4)

    caps = np.array([[s.visit_large, s.visit_small, s.visit_total, s.pay_large, s.pay_small, s.pay_total]
                     for s in specs], dtype=np.int32).reshape(len(specs), 6)
    keys = {}
    group = np.array([keys.setdefault((s, tuple(values[t])), len(keys)) for t, s in enumerate(specs)], dtype=np.int32)

    pairs = [(index[p.a], index[p.b], p.amount, p.visited) for p in bonuses.pairs if p.a in index and p.b in index]
    largest = [(index[b.trigger], [index[x] for x in b.exclude if x in index]) for b in bonuses.largest
               if b.trigger in index]
    largest_exclude = np.zeros((len(largest), n), dtype=np.uint8)
    for k, (_, excl) in enumerate(largest):
        largest_exclude[k, excl] = 1
    r2r = bonuses.red_to_red
    best_route = list(bonuses.best_route)
    if len(best_route) > MAX_BEST_ROUTE or any(len(b.require) > 32 for b in best_route):
        raise BoardError(f"at most {MAX_BEST_ROUTE} best-route bonuses of at most 32 groups are supported", field="game")
    br_mask = np.zeros((len(best_route), n), dtype=np.uint32)
    for k, b in enumerate(best_route):
        for g, members in enumerate(b.require):
            for x in members:
                if x in index:
                    br_mask[k, index[x]] |= np.uint32(1 << g)

    def arr(xs, dtype=np.int32):
        return np.array(xs, dtype=dtype)

    return Problem(
        board=board, rules=rules, graph=graph, trains=trains, specs=specs, bonus_trains=bonus_trains,
        bonuses=bonuses, values=values,
        large=arr([s.large for s in stops], np.uint8), token=arr([s.token for s in stops], np.uint8),
        red=arr([s.red for s in stops], np.uint8), end_only=arr([s.end_only for s in stops], np.uint8),
        loc=loc, n_locs=len(locations),
        adj_ptr=adj_ptr, adj_to=adj[:, 0].astype(np.int32), adj_seg=adj[:, 1].astype(np.int32),
        adj_from_term=adj[:, 2].astype(np.uint8), adj_to_term=adj[:, 3].astype(np.uint8),
        seg_res=seg_res, seg_pen=seg_pen, pen_amount=arr([bonuses.hex_penalties[h] for h in pen_hexes]),
        caps=caps, multiplier=arr([s.multiplier for s in specs]),
        requires_token=arr([s.requires_token for s in specs], np.uint8), group=group,
        pair_a=arr([p[0] for p in pairs]), pair_b=arr([p[1] for p in pairs]), pair_amount=arr([p[2] for p in pairs]),
        pair_visited=arr([p[3] for p in pairs], np.uint8),
        largest_trigger=arr([x[0] for x in largest]), largest_exclude=largest_exclude,
        r2r_per_token=r2r.per_token if r2r else 0, r2r_max_tokens=r2r.max_tokens if r2r else 0,
        double_best_large=int(bonuses.double_best_large),
        br_amount=arr([b.amount for b in best_route]), br_per_stop=arr([b.per_stop for b in best_route]),
        br_mask=br_mask, br_full=arr([(1 << len(b.require)) - 1 for b in best_route], np.uint32),
    )
