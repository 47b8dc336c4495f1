# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Branch and bound over a company's routes, compiled, with the GIL released.

See ``_state.pxd`` for the state. The search runs in rounds that each prove a bound for the
next: every train alone, then the trains from the last one backwards (the optimum of the later
trains is the bound for them while the earlier ones are placed), then all of them. Every route is
generated once, identical trains are placed in increasing order, and a node is cut when the
revenue placed plus the best its train could still add plus the proven optimum of the trains
still to come cannot beat the best found. The loops run on explicit stacks without the GIL;
errors are codes, raised once outside.

The only entry is :func:`search`, which takes a :class:`~optimizer.core.contract.KernelInput`
(checked by ``_input.borrow``) and returns a :class:`~optimizer.core.contract.KernelResult`.
Beside it: the input's checks and derivation (``_input.pyx``), what a route earns
(``_pricing.pyx``), the bounds (``_bounds.pyx``); the packing kernel, built from these functions,
is ``_packing.pyx``.
"""
cimport numpy as cnp
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

import numpy as np

from . cimport _state
from ._bounds cimport cut_anchor, cut_by_bound, later_bound, rest_bound, route_top
from ._input cimport borrow
from ._pricing cimport best_route_sum, price_express, price_route, route_segs, route_stops
from ._state cimport (ERR_MEMORY, MINES_NONE, STOP_CALLBACK, STOP_CANCELLED, STOP_DEADLINE, STOP_NODES, Best, Bounds,
                      Ctx, Input, Half, Level, Limits, Scratch, TopK, loc_flip, loc_has, now, res_flip, res_free)

from .contract import KernelResult

cnp.import_array()

# The kernel's constants (_state.pxd), for Python.
MAX_BEST_ROUTE = _state.MAX_BEST_ROUTE
MAX_INTERESTING = _state.MAX_INTERESTING
MAX_FORCED = _state.MAX_FORCED
STOPPED_BY = {  # SearchResult.stopped_by, by stop code
    _state.STOP_NONE: None,
    _state.STOP_DEADLINE: "deadline",
    _state.STOP_NODES: "nodes",
    _state.STOP_CANCELLED: "cancelled",
    _state.STOP_CALLBACK: "on_improve raised",
}

cdef extern from *:
    """
    static inline int read_flag(const unsigned char* p) { return p ? *(volatile const unsigned char*)p : 0; }
    """
    int read_flag(const uint8_t* p) nogil

cdef enum:
    CHECK_EVERY = 4096      # nodes between looks at the clock and the cancel flag
    LATER_EVERY = 3         # frames between looks at what the later trains can still reach (every
    #                         frame: fewer nodes but more time; every 4th: fewer cuts)

# ---- limits ---------------------------------------------------------------------------------

cdef int check_limits(Ctx* c) noexcept nogil:
    """Look at every limit; set and return the stop code, else plan the next look."""
    cdef Limits* lim = &c.lim
    if lim.stop_code:
        return lim.stop_code
    if read_flag(lim.cancel):
        lim.stop_code = STOP_CANCELLED
    elif lim.node_budget > 0 and lim.nodes >= lim.node_budget:
        lim.stop_code = STOP_NODES
    elif lim.deadline > 0 and now() > lim.deadline:
        lim.stop_code = STOP_DEADLINE
    else:
        lim.next_check = lim.nodes + CHECK_EVERY
        if lim.node_budget > 0 and lim.next_check > lim.node_budget:
            lim.next_check = lim.node_budget  # the budget is exact: look again when it is spent
    return lim.stop_code


cdef int tick(Ctx* c) noexcept nogil:
    """Count one node; nonzero if a limit stops the search before it."""
    if c.lim.nodes >= c.lim.next_check and check_limits(c):
        return 1
    c.lim.nodes += 1
    return 0


# ---- one level: the routes of one train -----------------------------------------------------

cdef inline int same_as_previous(Ctx* c, int li) noexcept nogil:
    """Level li's train is identical to the previous level's, which runs a route."""
    return li > c.run.lo and c.inp.group_by_train[c.inp.train_by_level[li - 1]] \
        == c.inp.group_by_train[c.inp.train_by_level[li]] and not c.work.levels[li - 1].empty


cdef void init_level(Ctx* c, int li, int64_t base, int base_large, Level* above, int above_ran) noexcept nogil:
    """Level li starts; ``above`` (or NULL) is the level before it, whose route counts if it ran."""
    cdef Level* L = &c.work.levels[li]
    cdef int k
    for k in range(c.inp.n_best_route):
        L.br_rev[k] = 0
        L.br_base[k] = 0
        if above != NULL:
            L.br_base[k] = above.br_base[k]
            if above_ran and above.br_rev[k] > L.br_base[k]:
                L.br_base[k] = above.br_rev[k]
    L.t = c.inp.train_by_level[li]
    L.no_mines = c.inp.mine_rule_by_train[L.t] == MINES_NONE
    L.anchors = c.inp.anchor_by_train_rank + <int64_t>L.t * c.inp.n_stops
    L.rank = c.inp.rank_by_train_stop + <int64_t>L.t * c.inp.n_stops
    L.n_anchors = c.inp.n_anchors_by_train[L.t]
    L.phase = 0
    L.empty = 0
    L.half[0].h = 0
    L.half[1].h = 0
    L.pending2 = 0
    L.local_pending = 0
    L.d1 = -1
    L.anchor_i = -1
    L.base = base
    L.base_large = base_large
    if same_as_previous(c, li):
        L.anchor_i = c.work.levels[li - 1].anchor_i - 1  # identical trains: routes in increasing order
    memset(L.locs, 0, c.inp.n_loc_words * sizeof(uint64_t))
    L.claimed_in = 0
    if above != NULL:
        L.claimed_in = above.claimed_out if above_ran else above.claimed_in
    L.claimed_out = L.claimed_in


cdef int next_anchor(Ctx* c, int li) noexcept nogil:
    """Move level li to its next anchor and start half 0 there (unless the train cannot count
    it). 0 when there are no more anchors. A local train's first route there is the anchor alone
    where it holds the company's token (a local run), before every route leaving it: an identical
    train on the level above that ran a route out of the same anchor leaves this one the routes
    after it (after its local run: that run again, as the engine allows, and every other)."""
    cdef const Input* g = &c.inp
    cdef Level* L = &c.work.levels[li]
    cdef const int32_t* caps = g.caps_by_train + L.t * 6
    cdef Half* H = &L.half[0]
    cdef Level* above
    cdef int T
    L.anchor_i += 1
    if L.anchor_i >= L.n_anchors:
        return 0
    T = L.anchors[L.anchor_i]
    if (g.large_by_stop[T] and caps[0] < 1) or (not g.large_by_stop[T] and caps[1] < 1) or caps[2] < 1:
        return 1
    if L.no_mines and g.mine_by_stop[T]:
        return 1  # a train that visits no mine
    H.stop[0] = T
    H.pos[0] = g.adj_ptr_by_stop[T]
    L.local_pending = g.local_by_train[L.t] and g.token_by_stop[T]
    if same_as_previous(c, li) and c.work.levels[li - 1].anchor_i == L.anchor_i:
        above = &c.work.levels[li - 1]
        if above.d1 >= 0:  # it ran a route leaving the anchor by dir d1 (else it ran the anchor alone)
            H.pos[0] = above.d1 + 1
            L.local_pending = 0
    H.dseg[0] = -1
    H.pen[0] = 0
    H.gauge[0] = 0
    H.hexd[0] = 0
    H.later[0] = rest_bound(c, li)
    H.h = 0
    L.half[1].h = 0
    L.d1 = -1
    L.phase = 1
    L.pending2 = 0
    L.n_large = g.large_by_stop[T]
    L.n_small = 1 - g.large_by_stop[T]
    L.n_halves = 0
    L.vsum = g.values_by_train_stop[<int64_t>L.t * g.n_stops + T]
    loc_flip(L, g.loc_by_stop[T])
    if cut_anchor(c, li, L, T):
        loc_flip(L, g.loc_by_stop[T])
        L.phase = 0
        L.local_pending = 0
    return 1


cdef void start_half1(Ctx* c, Level* L) noexcept nogil:
    """Half 0 just grew: grow half 1 from the anchor, past half 0's first dir (each route once)."""
    cdef int T = L.half[0].stop[0]
    cdef Half* H = &L.half[1]
    L.pending2 = 0
    if c.inp.end_only_by_stop[T] or c.inp.from_terminal_by_dir[L.d1]:
        return  # the anchor cannot be passed through: routes end there
    L.phase = 2
    H.h = 0
    H.stop[0] = T
    H.pos[0] = L.d1 + 1
    H.dseg[0] = -1
    H.pen[0] = 0
    H.gauge[0] = L.half[0].gauge[L.half[0].h]  # the route's track kinds: half 0's, then half 1's
    H.hexd[0] = 0
    H.later[0] = L.half[0].later[L.half[0].h]


cdef int64_t frame_later(Ctx* c, int li, Level* L, Half* H, int h) noexcept nogil:
    """H.later[h] (h >= 1), looked at once: its parent frame's, tightened by later_bound every
    LATER_EVERY frames where a tighter value could cut an extension (one earns what the route
    earns at least)."""
    cdef int t = L.t
    cdef int64_t useful
    if H.later[h] < 0:
        H.later[h] = H.later[h - 1]
        if li + 1 < c.run.hi and c.inp.reach_from and h % LATER_EVERY == 0:
            useful = c.run.cur_best - L.base - (c.inp.pullman_cap if c.run.use_pullman else 0)
            if c.inp.pays_all_by_train[t] and L.vsum > 0:
                useful -= L.vsum * c.inp.multiplier_by_train[t]
            H.later[h] = later_bound(c, li, H.later[h], useful)
    return H.later[h]


cdef inline int gauge_over(const Input* g, int t, int nl, int ns, int halves) noexcept nogil:
    """The route's gauge changes (halves // 2: each border crossed is listed on both its hexes), less
    the train's free ones, count as cities (1848, g_1848 #visited_stops): 1 when that is too many."""
    cdef const int32_t* caps = g.caps_by_train + t * 6
    cdef int extra = halves // 2 - g.free_gauge_by_train[t]
    if extra <= 0:
        return 0
    return nl + extra > caps[0] or nl + ns + extra > caps[2]


cdef inline int64_t hex_after(Ctx* c, Level* L, Half* H, int d) noexcept nogil:
    """The hex edges the route would cross with dir d on half H: both halves' (half 1 grows once
    half 0 is done), and d's segment at its cost to this level's train."""
    cdef const Input* g = &c.inp
    cdef int64_t x = <int64_t>H.hexd[H.h] + g.hex_edges_by_train_seg[<int64_t>L.t * g.n_segs + g.seg_by_dir[d]]
    if L.phase == 2:
        x += L.half[0].hexd[L.half[0].h]
    return x


cdef int next_dir(Ctx* c, int li, Level* L, Half* H) noexcept nogil:
    """The next dir out of half H's top stop that may extend the route, or -1."""
    cdef const Input* g = &c.inp
    cdef const int32_t* caps = g.caps_by_train + L.t * 6
    cdef uint32_t gauge_ok = g.gauge_ok_by_train[L.t]
    cdef int h = H.h
    cdef int v = H.stop[h]
    cdef int d = H.pos[h]
    cdef int end = g.adj_ptr_by_stop[v + 1]
    cdef int first = h == 0 and L.phase == 1
    cdef int w, nl, ns
    if h > 0 and (g.end_only_by_stop[v] or g.to_terminal_by_dir[H.dseg[h]]):
        return -1  # v ends the route
    if H.later[h] < 0:  # a new frame: what the later trains can add, once for all its extensions
        if h == 0:  # half 1 starts where half 0 is
            H.later[0] = frame_later(c, li, L, &L.half[0], L.half[0].h)
        else:
            frame_later(c, li, L, H, h)
    while d < end:
        if not first and g.from_terminal_by_dir[d]:
            d += 1
            continue
        w = g.to_stop_by_dir[d]
        if loc_has(L, g.loc_by_stop[w]) or (L.rank[w] >= 0 and L.rank[w] < L.anchor_i):
            d += 1
            continue
        nl = L.n_large + g.large_by_stop[w]
        ns = L.n_small + 1 - g.large_by_stop[w]
        if nl > caps[0] or ns > caps[1] or nl + ns > caps[2] or not res_free(c, L.t, g.seg_by_dir[d]):
            d += 1
            continue
        if g.hex_cap_by_train[L.t] >= 0 and hex_after(c, L, H, d) > g.hex_cap_by_train[L.t]:
            d += 1
            continue
        if g.has_gauge and gauge_over(g, L.t, nl, ns, L.n_halves + g.gauge_halves_by_seg[g.seg_by_dir[d]]):
            d += 1
            continue
        if L.no_mines and g.mine_by_stop[w]:
            d += 1  # a train that visits no mine (a second mine is kept off by the mines' one location)
            continue
        if not (gauge_ok >> (H.gauge[h] | g.gauge_by_seg[g.seg_by_dir[d]])) & 1:
            d += 1  # a track kind the train may not mix with the route's (only grows: every extension too)
            continue
        if cut_by_bound(c, li, L, H, w, d):
            d += 1
            continue
        return d
    return -1


cdef void take_dir(Ctx* c, Level* L, Half* H, int d) noexcept nogil:
    """Push dir d on half H."""
    cdef const Input* g = &c.inp
    cdef int w = g.to_stop_by_dir[d]
    cdef int seg = g.seg_by_dir[d]
    cdef int h = H.h
    H.pos[h] = d + 1
    h += 1
    H.stop[h] = w
    H.dseg[h] = d
    H.pos[h] = g.adj_ptr_by_stop[w]
    H.pen[h] = H.pen[h - 1] | g.penalty_mask_by_seg[seg]
    H.gauge[h] = H.gauge[h - 1] | g.gauge_by_seg[seg]
    H.hexd[h] = H.hexd[h - 1] + g.hex_edges_by_train_seg[<int64_t>L.t * g.n_segs + seg]
    H.h = h
    H.later[h] = -1
    res_flip(c, L.t, seg)
    loc_flip(L, g.loc_by_stop[w])
    L.vsum += g.values_by_train_stop[<int64_t>L.t * g.n_stops + w]
    L.n_large += g.large_by_stop[w]
    L.n_small += 1 - g.large_by_stop[w]
    L.n_halves += g.gauge_halves_by_seg[seg]
    if L.phase == 1:
        if h == 1:
            L.d1 = d
        L.pending2 = 1


cdef void step_back(Ctx* c, Level* L, Half* H) noexcept nogil:
    """Half H's top stop is exhausted: pop it (or, at the anchor, end the half)."""
    cdef const Input* g = &c.inp
    cdef int h = H.h
    cdef int v = H.stop[h]
    if h == 0:
        if L.phase == 2:
            L.phase = 1
        else:
            loc_flip(L, g.loc_by_stop[v])
            L.phase = 0
        return
    res_flip(c, L.t, g.seg_by_dir[H.dseg[h]])
    loc_flip(L, g.loc_by_stop[v])
    L.n_halves -= g.gauge_halves_by_seg[g.seg_by_dir[H.dseg[h]]]
    L.vsum -= g.values_by_train_stop[<int64_t>L.t * g.n_stops + v]
    if g.large_by_stop[v]:
        L.n_large -= 1
    else:
        L.n_small -= 1
    H.h = h - 1


cdef int next_route(Ctx* c, int li) noexcept nogil:
    """Advance level li to its next route. 1: a route is ready; 0: no more; -1: stopped.
    Each pass of the loop is one search node."""
    cdef Level* L = &c.work.levels[li]
    cdef Half* H
    cdef int d
    while True:
        if tick(c):
            return -1
        if L.phase == 0:
            if not next_anchor(c, li):
                return 0
            continue
        if L.local_pending:  # the anchor alone: half 0 holds it and nothing more
            L.local_pending = 0
            return 1
        if L.phase == 1 and L.pending2:
            start_half1(c, L)
            continue
        H = &L.half[L.phase - 1]
        d = next_dir(c, li, L, H)
        if d < 0:
            step_back(c, L, H)
            continue
        take_dir(c, L, H, d)
        if c.inp.has_end_caps and ends_over(c, L):
            continue  # not a route to run, but one to extend: a town end may yet be passed through
        return 1


cdef int ends_over(Ctx* c, Level* L) noexcept nogil:
    """The route's large stops and the towns at its ends are more than its train's end cap (18MT,
    g_18_mt #check_distance: "Towns on route ends are counted against city limit")."""
    cdef const Input* g = &c.inp
    cdef int a = L.half[0].stop[L.half[0].h]
    cdef int b = L.half[1].stop[L.half[1].h] if L.phase == 2 else L.half[0].stop[0]
    return L.n_large + (1 - g.large_by_stop[a]) + (1 - g.large_by_stop[b]) > g.end_cap_by_train[L.t]


cdef void unwind_level(Ctx* c, int li) noexcept nogil:
    """Release the track of a level's current route (when a solve is abandoned)."""
    cdef Level* L = &c.work.levels[li]
    cdef int k
    if L.phase == 0 or L.empty:
        return
    for k in range(1, L.half[0].h + 1):
        res_flip(c, L.t, c.inp.seg_by_dir[L.half[0].dseg[k]])
    if L.phase == 2:
        for k in range(1, L.half[1].h + 1):
            res_flip(c, L.t, c.inp.seg_by_dir[L.half[1].dseg[k]])
    L.phase = 0


# ---- the solve over levels lo..hi-1 ---------------------------------------------------------

cdef class _Improve:
    """The caller's on_improve, and what it raised (re-raised once the search has stopped)."""
    cdef object fn
    cdef object error

    def __init__(self, fn):
        self.fn = fn
        self.error = None


cdef void clear_best(Ctx* c, int64_t value) noexcept nogil:
    """Start keeping a new best solution worth ``value``: every level runs nothing until kept."""
    cdef int li
    c.best.value = value
    for li in range(c.inp.n_trains):
        c.best.n_stops_by_level[li] = 0
        c.best.revenue_by_level[li] = 0
        c.best.n_paid_by_level[li] = 0


cdef int32_t* best_stops(Ctx* c, int li) noexcept nogil:
    """Where level li's route stops are kept (n_stops + 1 of them at most)."""
    return c.best.stops_by_level + <int64_t>li * (c.inp.n_stops + 1)


cdef int32_t* best_segs(Ctx* c, int li) noexcept nogil:
    """Where level li's route track segments are kept."""
    return c.best.segs_by_level + <int64_t>li * (c.inp.n_stops + 1)


cdef void keep_route(Ctx* c, int li, int t, int n, int64_t revenue) noexcept nogil:
    """Keep level li's route, its n stops and segments already written to best_stops and
    best_segs: its revenue, and the stops its train t is paid for."""
    cdef int bl
    cdef int32_t* stops = best_stops(c, li)
    cdef int32_t* paid = c.best.paid_by_level + <int64_t>li * (c.inp.n_stops + 1)
    c.best.n_stops_by_level[li] = n
    c.best.revenue_by_level[li] = revenue
    if c.inp.pays_all_by_train[t]:
        memcpy(paid, stops, n * sizeof(int32_t))
        c.best.n_paid_by_level[li] = n
    else:
        price_express(c, t, stops, n, &bl, paid, &c.best.n_paid_by_level[li])


cdef void record(Ctx* c, int upto, int64_t value) noexcept nogil:
    """Keep the routes of levels lo..upto as the best solution, and tell the caller."""
    cdef int li, n
    cdef Level* L
    clear_best(c, value)
    for li in range(c.run.lo, upto + 1):
        L = &c.work.levels[li]
        if L.empty or L.phase == 0:
            continue
        n = route_stops(c, L, best_stops(c, li))
        route_segs(c, L, best_segs(c, li))
        keep_route(c, li, L.t, n, L.rev)
    if c.lim.on_improve != NULL:
        call_improve(c, value)


cdef void call_improve(Ctx* c, int64_t value) noexcept with gil:
    """Tell the caller; what it raises (even KeyboardInterrupt) stops the search, to be raised outside."""
    cdef _Improve improve = <_Improve>c.lim.on_improve
    try:
        improve.fn(value, *_best_lists(c), proven_bound(c), c.lim.nodes)
    except BaseException as error:
        improve.error = error
        c.lim.stop_code = STOP_CALLBACK
        c.lim.next_check = c.lim.nodes


cdef int64_t proven_bound(Ctx* c) noexcept nogil:
    """The upper bound proven so far: each train's best alone (or its static bound before that),
    or the proven optimum of the later trains; a kernel that proves its own sets ``bounds.bound``."""
    cdef int li, K = c.inp.n_trains
    cdef int64_t b
    cdef Bounds* B = &c.bounds
    if B.bound >= 0:
        b = B.bound
    elif B.stage >= 2 and K > 0:
        b = B.alone_by_level[0] + B.from_level[1] + c.inp.pullman_cap
    else:
        b = c.inp.pullman_cap
        for li in range(K):
            if li >= B.suffix_from:
                b += B.from_level[li]
                break
            b += B.alone_by_level[li]
    return b if b > c.best.value else c.best.value


cdef object _best_lists(Ctx* c):
    """The best solution as Python lists per level: stops, segments, revenue, paid stops."""
    cdef int i, k, stride = c.inp.n_stops + 1
    cdef Best* b = &c.best
    cdef int K = c.inp.n_trains
    stops = [[b.stops_by_level[i * stride + k] for k in range(b.n_stops_by_level[i])] for i in range(K)]
    segs = [[b.segs_by_level[i * stride + k] for k in range(max(b.n_stops_by_level[i] - 1, 0))] for i in range(K)]
    revs = [b.revenue_by_level[i] for i in range(K)]
    paid = [[b.paid_by_level[i * stride + k] for k in range(b.n_paid_by_level[i])] for i in range(K)]
    return stops, segs, revs, paid


cdef int cannot_win(Ctx* c, Level* L, int64_t extra) noexcept nogil:
    """1 if the route a level just yielded, with the routes above it and ``extra`` more, cannot beat
    the best found: its stops' values (an express: its best paid ones) at most, times its
    multiplier, plus every bonus it could earn."""
    cdef int t = L.t
    cdef int64_t v = L.vsum
    cdef TopK top
    if not c.inp.pays_all_by_train[t]:
        route_top(c, L, t, c.inp.caps_by_train[t * 6 + 5], &top)
        v = top.sum
    return L.base + v * c.inp.multiplier_by_train[t] + c.inp.max_bonus_by_train[t] + extra <= c.run.cur_best


cdef inline int ends_at_tokens(Ctx* c, Level* L) noexcept nogil:
    """Both ends of the route a level just yielded hold the company's token: half 0's top, and half
    1's top (the anchor while half 1 is empty)."""
    cdef int a = L.half[0].stop[L.half[0].h]
    cdef int b = L.half[1].stop[L.half[1].h] if L.phase == 2 else L.half[0].stop[0]
    return c.inp.token_by_stop[a] and c.inp.token_by_stop[b]


cdef inline int every_train_runs(Ctx* c, int lo, int li, int hi) noexcept nogil:
    """1 if the route level li just yielded completes a run of every train of the company: the whole
    search (lo 0), its last level, and no level above it running nothing."""
    cdef int j
    if lo != 0 or li != hi - 1 or hi != c.inp.n_trains:
        return 0
    for j in range(lo, li):
        if c.work.levels[j].empty:
            return 0
    return 1


cdef int64_t solve(Ctx* c, int lo, int hi, int64_t init_best, int use_pullman) noexcept nogil:
    """Best total of the trains of levels lo..hi-1 (the others run nothing); -1 if stopped."""
    cdef int li = lo, j, r
    cdef int64_t total, value
    cdef int bl
    cdef int pull = c.inp.pullman_cap if use_pullman else 0
    cdef const int32_t* group = c.inp.group_by_train
    cdef const int32_t* train = c.inp.train_by_level
    cdef Level* levels = c.work.levels
    c.run.lo = lo
    c.run.hi = hi
    c.run.cur_best = init_best
    c.run.use_pullman = use_pullman
    init_level(c, lo, 0, 0, NULL, 0)
    while True:
        r = next_route(c, li)
        if r < 0:
            for j in range(lo, li + 1):
                unwind_level(c, j)
            return -1
        if r == 1:
            if c.inp.token_ends_by_train[levels[li].t] and not ends_at_tokens(c, &levels[li]):
                continue  # not a route of its train (it may still grow into one)
            if cannot_win(c, &levels[li], pull + rest_bound(c, li)):
                continue  # neither it nor the later trains can make it win: it needs no pricing
            price_route(c, &levels[li])
            total = levels[li].base + levels[li].rev
            bl = levels[li].base_large
            if levels[li].best_large > bl:
                bl = levels[li].best_large
            value = total + ((bl + best_route_sum(c, &levels[li])) if use_pullman else 0)
            if c.inp.not_all_trains and every_train_runs(c, lo, li, hi):
                continue  # a rule on the whole run (the last level: nothing grows from here)
            if value > c.run.cur_best:
                c.run.cur_best = value
                if value > c.best.value:
                    record(c, li, value)
            j = li + 1
            if j < hi and total + c.bounds.from_level[j] + pull > c.run.cur_best:
                init_level(c, j, total, bl, &levels[li], 1)
                li = j
            continue
        # level li has no more routes: try it running nothing, if a later train could gain
        if not levels[li].empty:
            j = li + 1
            while j < hi and group[train[j]] == group[train[li]]:
                j += 1
            if j < hi and levels[li].base + c.bounds.from_level[j] + pull > c.run.cur_best:
                for r in range(li, j):
                    levels[r].empty = 1
                    levels[r].phase = 0
                init_level(c, j, levels[li].base, levels[li].base_large, &levels[li], 0)
                li = j
                continue
        # back up to the last level still walking its routes
        li -= 1
        while li >= lo and levels[li].empty:
            li -= 1
        if li < lo:
            return c.run.cur_best


cdef int nested(Ctx* c, const void* settings) noexcept nogil:
    """The nested search as a kernel (it has no settings)."""
    return run(c)


cdef int run(Ctx* c) noexcept nogil:
    """All rounds: each train alone, the suffixes, then everything. Returns a stop code."""
    cdef int K = c.inp.n_trains, li
    cdef int64_t v
    cdef int64_t* alone = c.bounds.alone_by_level
    cdef int64_t* suffix = c.bounds.from_level
    cdef const int32_t* group = c.inp.group_by_train
    cdef const int32_t* train = c.inp.train_by_level
    if K == 0:
        return 0
    if K > 1:
        for li in range(K):
            if li > 0 and group[train[li]] == group[train[li - 1]]:
                alone[li] = alone[li - 1]
                continue
            v = solve(c, li, li + 1, 0, 0)
            if v < 0:
                return c.lim.stop_code
            alone[li] = v
        suffix[K - 1] = alone[K - 1]
        c.bounds.suffix_from = K - 1
        c.bounds.stage = 1
        li = K - 2
        while li >= 1:
            v = solve(c, li, K, suffix[li + 1], 0)
            if v < 0:
                return c.lim.stop_code
            suffix[li] = v
            c.bounds.suffix_from = li
            li -= 1
    c.bounds.stage = 2
    v = solve(c, 0, K, c.best.value, 1 if c.inp.pullman_cap > 0 else 0)
    if v < 0:
        return c.lim.stop_code
    suffix[0] = v
    return 0


# ---- memory ---------------------------------------------------------------------------------

cdef int setup(Ctx* c) noexcept nogil:
    """Allocate the stacks, scratch, bounds and best. 0, or ERR_MEMORY."""
    cdef int n = c.inp.n_stops, K = c.inp.n_trains, li, k
    cdef Level* L
    cdef Scratch* w = &c.work
    cdef Best* b = &c.best
    w.levels = <Level*>calloc(K + 1, sizeof(Level))
    w.used = <uint64_t*>calloc(<int64_t>c.inp.n_track_groups * c.inp.n_track_words, sizeof(uint64_t))
    w.mark = <uint8_t*>calloc(n + 1, sizeof(uint8_t))
    w.reach_mark = <uint8_t*>calloc(n + 1, sizeof(uint8_t))
    w.stops = <int32_t*>calloc(4 * (n + 1), sizeof(int32_t))
    c.bounds.alone_by_level = <int64_t*>calloc(K + 1, sizeof(int64_t))
    c.bounds.from_level = <int64_t*>calloc(K + 1, sizeof(int64_t))
    b.n_stops_by_level = <int32_t*>calloc(K + 1, sizeof(int32_t))
    b.stops_by_level = <int32_t*>calloc((K + 1) * (n + 1), sizeof(int32_t))
    b.segs_by_level = <int32_t*>calloc((K + 1) * (n + 1), sizeof(int32_t))
    b.revenue_by_level = <int64_t*>calloc(K + 1, sizeof(int64_t))
    b.paid_by_level = <int32_t*>calloc((K + 1) * (n + 1), sizeof(int32_t))
    b.n_paid_by_level = <int32_t*>calloc(K + 1, sizeof(int32_t))
    if not (w.levels and w.used and w.mark and w.reach_mark and w.stops and c.bounds.alone_by_level
            and c.bounds.from_level and b.n_stops_by_level and b.stops_by_level and b.segs_by_level
            and b.revenue_by_level and b.paid_by_level and b.n_paid_by_level):
        return ERR_MEMORY
    for li in range(K):
        L = &w.levels[li]
        for k in range(2):
            L.half[k].stop = <int32_t*>calloc(n + 1, sizeof(int32_t))
            L.half[k].pos = <int32_t*>calloc(n + 1, sizeof(int32_t))
            L.half[k].dseg = <int32_t*>calloc(n + 1, sizeof(int32_t))
            L.half[k].pen = <uint32_t*>calloc(n + 1, sizeof(uint32_t))
            L.half[k].gauge = <uint8_t*>calloc(n + 1, sizeof(uint8_t))
            L.half[k].later = <int64_t*>calloc(n + 1, sizeof(int64_t))
            L.half[k].hexd = <int32_t*>calloc(n + 1, sizeof(int32_t))
            if not (L.half[k].stop and L.half[k].pos and L.half[k].dseg and L.half[k].pen and L.half[k].gauge
                    and L.half[k].later and L.half[k].hexd):
                return ERR_MEMORY
        L.locs = <uint64_t*>calloc(c.inp.n_loc_words, sizeof(uint64_t))
        if not L.locs:
            return ERR_MEMORY
    return 0


cdef void teardown(Ctx* c) noexcept nogil:
    cdef int li, k
    cdef Level* L
    cdef Scratch* w = &c.work
    cdef Best* b = &c.best
    if w.levels:
        for li in range(c.inp.n_trains):
            L = &w.levels[li]
            for k in range(2):
                free(L.half[k].stop)
                free(L.half[k].pos)
                free(L.half[k].dseg)
                free(L.half[k].pen)
                free(L.half[k].gauge)
                free(L.half[k].later)
                free(L.half[k].hexd)
            free(L.locs)
        free(w.levels)
    free(w.used)
    free(w.mark)
    free(w.reach_mark)
    free(w.stops)
    free(c.bounds.alone_by_level)
    free(c.bounds.from_level)
    free(b.n_stops_by_level)
    free(b.stops_by_level)
    free(b.segs_by_level)
    free(b.revenue_by_level)
    free(b.paid_by_level)
    free(b.n_paid_by_level)


# ---- Python entry point ---------------------------------------------------------------------

cdef class Kernel:
    """A search strategy and its settings: the nested search (``NESTED``), or another built from
    the same pieces (``_packing.Packing``). Read only while searches run."""

    def __cinit__(self):
        self.fn = nested
        self.settings = NULL


NESTED = Kernel()


def search(ki, double deadline=0.0, long long node_budget=0, cancel=None, on_improve=None, Kernel kernel=None):
    """Run the compiled search on a :class:`~optimizer.core.contract.KernelInput`, checked first.

    ``deadline`` is in ``time.monotonic()`` seconds (0 for none); ``node_budget`` counts nodes
    exactly (0 for none); ``cancel`` is a ``CancelToken.flag``; ``on_improve(value, stops, segs,
    revenues, paid, bound, nodes)`` (per level) is called at each better solution, and what it
    raises stops the search and is raised here; ``kernel``: the strategy (default ``NESTED``).
    Returns a :class:`~optimizer.core.contract.KernelResult`.
    """
    if cancel is not None and not (isinstance(cancel, np.ndarray) and cancel.dtype == np.uint8
                                   and cancel.ndim == 1 and cancel.shape[0] >= 1):
        raise ValueError("cancel must be a CancelToken's flag (a uint8 array of one element)")
    cdef Ctx c
    cdef int code = 0, err, K
    cdef _Improve improve = _Improve(on_improve) if on_improve is not None else None
    cdef const int64_t* bound_by_level
    cdef list keep = []  # padding borrowed for empty arrays, alive until the search ends
    if kernel is None:
        kernel = NESTED
    memset(&c, 0, sizeof(Ctx))
    borrow(&c.inp, ki, keep)
    K = c.inp.n_trains
    bound_by_level = c.inp.bound_by_level
    c.lim.deadline = deadline
    c.lim.node_budget = node_budget
    c.lim.cancel = <const uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>cancel) if cancel is not None else NULL
    c.lim.on_improve = <void*>improve if improve is not None else NULL
    c.bounds.suffix_from = K
    c.bounds.bound = -1
    with nogil:
        err = setup(&c)
        if err == 0:
            memcpy(c.bounds.alone_by_level, bound_by_level, K * sizeof(int64_t))
            code = kernel.fn(&c, kernel.settings)
    try:
        if err:
            raise MemoryError("search stacks")
        if improve is not None and improve.error is not None:
            raise improve.error
        stops, segs, revs, paid = _best_lists(&c)
        alone = np.array([c.bounds.alone_by_level[i] for i in range(K)], dtype=np.int64)
        suffix = np.array([c.bounds.from_level[i] for i in range(K + 1)], dtype=np.int64)
        return KernelResult(code, c.best.value, stops, segs, revs, paid, alone, suffix, c.lim.nodes,
                            c.bounds.stage, proven_bound(&c))
    finally:
        teardown(&c)
