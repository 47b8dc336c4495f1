"""The compiled kernel's input and output: built in one place, checked in one place.

As SciPy's csgraph validates before its compiled routines run, :func:`prepare` builds every array
the kernel reads (train order, prefix sums, anchors, ranks, bonus bounds ...) into a
:class:`KernelInput`, and the kernel checks them all before it reads any (``_search.borrow``, in C
so that checking costs microseconds): dtype, C order, shape and index ranges. A wrong one raises
``ValueError`` naming the array, so native code never reads out of bounds. Empty arrays are padded
to one element, so the kernel always has an address to borrow.

Names say their index space, as the Rails revenue calculator's do: ``values_by_train_stop[t, s]``
is what stop ``s`` pays train ``t``; ``to_stop_by_dir[d]`` is the stop directed segment ``d``
reaches; ``train_by_level[l]`` is the train level ``l`` of the search places.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .bounds import company_cap, pairs_bound

MAX_BEST_ROUTE = 4  # best-route bonuses per company (as _search.pxd's MAX_BEST_ROUTE)
REACH_FROM = 3  # bound a train by the stops it can still reach while it may count this many more

I32, I64, U8, U32, U64 = (np.dtype(t) for t in (np.int32, np.int64, np.uint8, np.uint32, np.uint64))


@dataclass(frozen=True)
class KernelInput:
    """Everything the compiled search reads.

    The kernel checks each array before it reads it (``_search.borrow``, also callable as
    ``_search.check``): the dtype, C order and shape given here, and every index in range.
    Arrays with a zero-length axis are padded to length one; the sizes below are the real ones.
    """

    # ---- sizes
    n_stops: int
    n_dirs: int  # directed segments (two per track segment)
    n_segs: int  # track segments
    n_track_words: int  # 64-bit words of a track bitset
    n_locs: int  # locations: a route reaches each at most once
    n_trains: int  # trains that run a route (= levels of the search)
    n_pairs: int
    n_largest: int
    n_penalties: int  # penalty hexes, at most 32 (one bit each)
    n_best_route: int  # best-route bonuses, at most MAX_BEST_ROUTE
    # ---- per stop
    large_by_stop: np.ndarray  # city or off-board (else a town)
    token_by_stop: np.ndarray  # holds the company's token
    red_by_stop: np.ndarray  # red off-board
    end_only_by_stop: np.ndarray  # a route may only end here
    loc_by_stop: np.ndarray  # its location, < n_locs
    interesting_by_stop: np.ndarray  # an end of a pair bonus or a largest-stop trigger
    # ---- directed segments, CSR by source stop
    adj_ptr_by_stop: np.ndarray  # stop s leaves by dirs adj_ptr[s] .. adj_ptr[s + 1] - 1
    to_stop_by_dir: np.ndarray  # the stop it reaches
    seg_by_dir: np.ndarray  # its track segment
    from_terminal_by_dir: np.ndarray  # leaves its source by a terminal path
    to_terminal_by_dir: np.ndarray  # reaches its target by a terminal path
    # ---- track segments
    track_bits_by_seg: np.ndarray  # [n_segs, n_track_words]: the track it uses, a bitset
    penalty_mask_by_seg: np.ndarray  # penalty hexes it crosses, a bitmask
    amount_by_penalty: np.ndarray  # what crossing each costs
    # ---- per train
    values_by_train_stop: np.ndarray  # [n_trains, n_stops]: what each stop pays each train
    caps_by_train: np.ndarray  # [n_trains, 6]: visit large, small, total; pay large, small, total
    multiplier_by_train: np.ndarray
    group_by_train: np.ndarray  # equal ids: identical trains (placed in increasing order)
    pays_all_by_train: np.ndarray  # every stop visited is paid
    requires_token_by_train: np.ndarray  # a route must count a token of the company
    max_bonus_by_train: np.ndarray  # the most bonuses can add to one route
    prefix_by_train_class_count: np.ndarray  # [n_trains, 3, n_stops + 1]: sums of the k best
    #   positive values of large stops, small stops, all stops
    anchor_by_train_rank: np.ndarray  # [n_trains, n_stops]: the stops a route may grow from,
    #   best first (token stops, or every stop for a train that needs no token)
    n_anchors_by_train: np.ndarray
    rank_by_train_stop: np.ndarray  # [n_trains, n_stops]: rank among the anchors, or -1
    # ---- per level (trains in search order)
    train_by_level: np.ndarray  # a permutation of the trains: strongest first, identical ones adjacent
    bound_by_level: np.ndarray  # the most its train can earn alone (before the search proves better)
    # ---- bonuses
    stop_a_by_pair: np.ndarray
    stop_b_by_pair: np.ndarray
    amount_by_pair: np.ndarray  # added when a route pays both stops of the pair (may be negative) ...
    visited_by_pair: np.ndarray  # ... or, where set, when both are on the route, paid or not
    trigger_by_largest: np.ndarray  # paying it adds the largest other paid value ...
    excluded_by_largest_stop: np.ndarray  # [n_largest, n_stops]: ... except these stops
    amount_by_best_route: np.ndarray  # paid once for the company, on its route that earns it most:
    #   this when the route visits a stop of every group ...
    per_stop_by_best_route: np.ndarray  # ... plus this per stop it visits (1846 Mail Contract)
    groups_by_best_route_stop: np.ndarray  # uint32 [n_best_route, n_stops]: the groups each stop is in
    full_by_best_route: np.ndarray  # uint32: every group of the bonus (a bitmask)
    r2r_per_token: int  # red to red: per token stop paid
    r2r_max_tokens: int
    has_pullman: int  # 1: the company's Pullman doubles its best paid large stop
    pullman_cap: int  # the most the company-level bonuses can add: the Pullman and the best-route
    #   bonuses (0 without any)
    # ---- tuning
    reach_from: int = REACH_FROM  # bound by reachable stops while a train may count this many more


class KernelResult(NamedTuple):
    """What the kernel found, by level (index into ``train_by_level``)."""

    stop_code: int  # 0 finished; see limits.STOPPED_BY
    value: int  # best total found (Pullman included)
    stops_by_level: list  # route stops, route order ([] for a train that runs nothing)
    segs_by_level: list  # track segments, route order
    revenue_by_level: list
    paid_by_level: list  # the stops each route is paid for
    alone_by_level: np.ndarray  # best of each train alone: proven when stage >= 1
    from_level: np.ndarray  # [n_trains + 1]: best of the trains from this level on (proven for
    #   level 0 when finished, for levels >= 1 when stage >= 2)
    nodes: int  # search nodes expanded
    stage: int  # 0 trains alone, 1 suffixes, 2 all trains: how far the proof got
    bound: int  # the upper bound proven (>= value; == value when finished)


def _pad(a: np.ndarray, dtype) -> np.ndarray:
    """C-ordered, of this dtype, every zero-length axis padded to one (zero) element."""
    a = np.ascontiguousarray(a, dtype=dtype)  # (the array itself when it is so already)
    if a.size == 0:
        return _padding(a.shape, dtype)
    return a


_PADDING: dict = {}


def _padding(shape: tuple, dtype) -> np.ndarray:
    """The zeros standing for an empty array: shared and read-only (the kernel only reads them)."""
    found = _PADDING.get((shape, dtype))
    if found is None:
        found = np.zeros(tuple(max(1, d) for d in shape), dtype=dtype)
        found.flags.writeable = False
        if len(_PADDING) < 1024:
            _PADDING[(shape, dtype)] = found
    return found


_KERNEL: list = []


def _kernel():
    if not _KERNEL:
        from .compiled import _kernel  # the extension, imported when first needed

        _KERNEL.append(_kernel())
    return _KERNEL[0]


def prepare(problem, reach_from: int = REACH_FROM) -> KernelInput:
    """Every array the kernel reads, derived from a :class:`~optimizer.graph.problem.Problem`.

    The kernel checks them before it reads any (``ValueError`` naming the array when one is
    malformed, e.g. a Problem whose ``adj_to`` points past the last stop)."""
    n = problem.n_stops
    K = len(problem.trains)
    values = np.ascontiguousarray(problem.values, dtype=np.int32).reshape(K, n)
    large = np.ascontiguousarray(problem.large, dtype=np.uint8)
    token = np.ascontiguousarray(problem.token, dtype=np.uint8)
    caps = np.ascontiguousarray(problem.caps, dtype=np.int32).reshape(K, 6)
    multiplier = np.ascontiguousarray(problem.multiplier, dtype=np.int32)
    group = np.ascontiguousarray(problem.group, dtype=np.int32)
    requires_token = np.ascontiguousarray(problem.requires_token, dtype=np.uint8)

    fixed_bonus = pairs_bound(problem) + problem.r2r_per_token * problem.r2r_max_tokens
    max_bonus, prefix, bound, order, anchors, n_anchors, rank = _kernel().derive(
        values, large, token, caps, multiplier, group, requires_token, fixed_bonus, len(problem.largest_trigger)
    )

    # the stops bonuses depend on being paid: ends of pairs that count paid stops, largest-stop triggers
    interesting = np.zeros(n, dtype=np.uint8)
    paid_pairs = np.asarray(problem.pair_visited) == 0 if len(problem.pair_a) or len(problem.pair_b) else None
    for idx, paid_only in ((problem.pair_a, True), (problem.pair_b, True), (problem.largest_trigger, False)):
        if len(idx):
            idx = np.asarray(idx, dtype=np.int64)
            if (
                paid_only and paid_pairs is not None and len(idx) == len(paid_pairs)
            ):  # (lengths that differ are refused by the kernel)
                idx = idx[paid_pairs]
            interesting[idx[(idx >= 0) & (idx < n)]] = 1  # so are indexes out of range, by name

    n_pen = len(problem.pen_amount)
    n_br = len(problem.br_amount)
    return KernelInput(
        n_stops=n,
        n_dirs=len(problem.adj_to),
        n_segs=problem.seg_res.shape[0],
        n_track_words=problem.seg_res.shape[1],
        n_locs=int(problem.n_locs),
        n_trains=K,
        n_pairs=len(problem.pair_a),
        n_largest=len(problem.largest_trigger),
        n_penalties=n_pen,
        n_best_route=n_br,
        large_by_stop=_pad(large, U8),
        token_by_stop=_pad(token, U8),
        red_by_stop=_pad(problem.red, U8),
        end_only_by_stop=_pad(problem.end_only, U8),
        loc_by_stop=_pad(problem.loc, I32),
        interesting_by_stop=_pad(interesting, U8),
        adj_ptr_by_stop=_pad(problem.adj_ptr, I32),
        to_stop_by_dir=_pad(problem.adj_to, I32),
        seg_by_dir=_pad(problem.adj_seg, I32),
        from_terminal_by_dir=_pad(problem.adj_from_term, U8),
        to_terminal_by_dir=_pad(problem.adj_to_term, U8),
        track_bits_by_seg=_pad(problem.seg_res, U64),
        penalty_mask_by_seg=_pad(problem.seg_pen, U32),
        amount_by_penalty=_pad(problem.pen_amount, I32),
        values_by_train_stop=_pad(values, I32),
        caps_by_train=_pad(caps, I32),
        multiplier_by_train=_pad(multiplier, I32),
        group_by_train=_pad(group, I32),
        pays_all_by_train=_pad(np.array([s.pays_all for s in problem.specs], dtype=np.uint8), U8),
        requires_token_by_train=_pad(requires_token, U8),
        max_bonus_by_train=_pad(max_bonus, I64),
        prefix_by_train_class_count=_pad(prefix, I64),
        anchor_by_train_rank=_pad(anchors, I32),
        n_anchors_by_train=_pad(n_anchors, I32),
        rank_by_train_stop=_pad(rank, I32),
        train_by_level=_pad(order, I32),
        bound_by_level=_pad(bound[order], I64),
        stop_a_by_pair=_pad(problem.pair_a, I32),
        stop_b_by_pair=_pad(problem.pair_b, I32),
        amount_by_pair=_pad(problem.pair_amount, I32),
        visited_by_pair=_pad(problem.pair_visited, U8),
        trigger_by_largest=_pad(problem.largest_trigger, I32),
        excluded_by_largest_stop=_pad(np.asarray(problem.largest_exclude).reshape(len(problem.largest_trigger), n), U8),
        amount_by_best_route=_pad(problem.br_amount, I32),
        per_stop_by_best_route=_pad(problem.br_per_stop, I32),
        groups_by_best_route_stop=_pad(np.asarray(problem.br_mask).reshape(n_br, n), U32),
        full_by_best_route=_pad(problem.br_full, U32),
        r2r_per_token=int(problem.r2r_per_token),
        r2r_max_tokens=int(problem.r2r_max_tokens),
        has_pullman=1 if problem.double_best_large else 0,
        pullman_cap=company_cap(problem),
        reach_from=int(reach_from),
    )
