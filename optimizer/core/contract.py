"""The compiled kernel's input and output records.

The problem itself is one record, :class:`~optimizer.graph.problem.Problem`, whose arrays are named
by their index space as the kernel's ``Input`` (``_search.pxd``) names them; every search reads it.
A :class:`KernelInput` adds what the compiled search derives from it before it runs (train order,
prefix sums, anchors, ranks, bonus bounds ...; built by :func:`optimizer.core.compiled.prepare`).
As SciPy's csgraph validates before its compiled routines run, the kernel checks every array of
both before it reads any (``_search.borrow``, in C so that checking costs microseconds): dtype, C
order, shape and index ranges. A wrong one raises ``ValueError`` naming the array, so native code
never reads out of bounds. An array with a zero-length axis stands for padding of one zero
element, so the kernel always has an address to borrow.

``train_by_level[l]`` is the train level ``l`` of the search places.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from ..graph.problem import Problem

REACH_FROM = 3  # bound a train by the stops it can still reach while it may count this many more


@dataclass(frozen=True)
class KernelInput:
    """The problem, and what the compiled search derives from it."""

    problem: Problem  # sizes and arrays, borrowed as they are
    interesting_by_stop: np.ndarray  # uint8: an end of a pair bonus that pays paid stops, or a largest-stop trigger
    # ---- per train
    max_bonus_by_train: np.ndarray  # int64: the most bonuses can add to one route
    prefix_by_train_class_count: np.ndarray  # int64 [n_trains, 3, n_stops + 1]: sums of the k best
    #   positive values of large stops, small stops, all stops
    anchor_by_train_rank: np.ndarray  # int32 [n_trains, n_stops]: the stops a route may grow from,
    #   best first (token stops, or every stop for a train that needs no token)
    n_anchors_by_train: np.ndarray  # int32
    rank_by_train_stop: np.ndarray  # int32 [n_trains, n_stops]: rank among the anchors, or -1
    # ---- per level (trains in search order)
    train_by_level: np.ndarray  # int32: a permutation of the trains: strongest first, identical ones adjacent
    bound_by_level: np.ndarray  # int64: the most its train can earn alone (bounds.train_bound)
    # ---- the company
    pullman_cap: int  # the most the company-level bonuses can add: the Pullman and the best-route
    #   bonuses (0 without any)
    # ---- tuning
    reach_from: int = REACH_FROM  # bound by reachable stops while a train may count this many more


class KernelResult(NamedTuple):
    """What the kernel found, by level (index into ``train_by_level``)."""

    stop_code: int  # 0 finished; else why it stopped (_search.STOPPED_BY names each)
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
