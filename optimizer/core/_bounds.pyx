# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Bounds of the search: the most a train (or the trains still to place) can still add.

From the prefix sums of the best stop values within a train's caps (cheap, always), from the stops
a train can still reach over free track (while it may count ``reach_from`` more), and from the
later levels' best on the track then in use; ``cut_by_bound`` and ``cut_anchor`` are where the
search asks (``_bounds.pxd`` declares them).
"""
from libc.stdint cimport int32_t, int64_t, uint8_t

from ._state cimport Ctx, Half, Input, Level, TopK, count_large, count_small, loc_flip, loc_has, res_flip, res_free

cdef int64_t INT64_MAX_ = 0x3FFFFFFFFFFFFFFF  # "no limit" where a sum is compared against it


cdef inline const int64_t* prefix_of(Ctx* c, int t, int which) noexcept nogil:
    return c.inp.prefix_by_train_class_count + (<int64_t>t * 3 + which) * (c.inp.n_stops + 1)


cdef int64_t rem_bound(Ctx* c, int t, int r_large, int r_small, int r_total) noexcept nogil:
    """The most r more stops within these caps could pay train t (positive values only)."""
    cdef int n = c.inp.n_stops
    cdef const int64_t* pl = prefix_of(c, t, 0)
    cdef const int64_t* ps = prefix_of(c, t, 1)
    cdef const int64_t* pa = prefix_of(c, t, 2)
    cdef int k, s
    cdef int64_t best = 0, v
    if r_large < 0 or r_small < 0 or r_total < 0:
        return 0
    if r_large > n:
        r_large = n
    if r_small > n:
        r_small = n
    if r_total > n:
        r_total = n
    if r_large >= r_total and r_small >= r_total:
        return pa[r_total]
    if r_total >= r_large + r_small:
        return pl[r_large] + ps[r_small]
    for k in range(0, (r_large if r_large < r_total else r_total) + 1):
        s = r_total - k
        if s > r_small:
            s = r_small
        v = pl[k] + ps[s]
        if v > best:
            best = v
    return best


cdef inline void topk_add(TopK* T, int32_t v) noexcept nogil:
    """Offer v to the k largest values held."""
    cdef int i
    if T.n < T.k:
        i = T.n
        T.n += 1
        T.sum += v
    elif T.k > 0 and v > T.vals[T.k - 1]:
        i = T.k - 1
        T.sum += v - T.vals[i]
    else:
        return
    while i > 0 and T.vals[i - 1] < v:
        T.vals[i] = T.vals[i - 1]
        i -= 1
    T.vals[i] = v


cdef int64_t reach_bound(Ctx* c, Level* L, int t, int w, int d, int anchor_from, int64_t enough,
                         TopK* best=NULL) noexcept nogil:
    """What the stops a route could still reach are worth: a walk over free track from the
    route's open ends, never into a location it holds (negative stops never counted).

    Called with w pushed (its location and track taken), or with d = -1 for a route that is
    only its anchor w, not pushed yet. The anchor is an open end too while half 0 grows and the
    route may still pass through it (``anchor_from`` >= 0, else -1): half 1 then leaves it by a dir
    after ``anchor_from``, half 0's first (every route is made once). With ``best``, the positive values
    reached are offered to it and its sum is the answer. The walk stops as soon as the answer
    passes ``enough`` (a bound above the caller's cut-off cannot cut: the rest is not needed).
    """
    cdef const Input* g = &c.inp
    cdef const int32_t* values = g.values_by_train_stop + <int64_t>t * g.n_stops
    cdef int32_t* stack = c.work.stops
    cdef int32_t* seen = c.work.stops + g.n_stops
    cdef uint8_t* mark = c.work.reach_mark
    cdef int top = 0, n_seen = 0, u, e, v, i, T = -1
    cdef int64_t total = best.sum if best != NULL else 0
    if total > enough:
        return total
    if d < 0 or (not g.end_only_by_stop[w] and not g.to_terminal_by_dir[d]):
        stack[top] = w
        top += 1
    mark[w] = 1
    seen[n_seen] = w
    n_seen += 1
    if anchor_from >= 0:
        u = T = L.half[0].stop[0]
        if not mark[u]:
            mark[u] = 1
            seen[n_seen] = u
            n_seen += 1
            stack[top] = u
            top += 1
    while top > 0:
        top -= 1
        u = stack[top]
        for e in range(anchor_from + 1 if u == T else g.adj_ptr_by_stop[u], g.adj_ptr_by_stop[u + 1]):
            v = g.to_stop_by_dir[e]
            if mark[v] or loc_has(L, g.loc_by_stop[v]) or (L.rank[v] >= 0 and L.rank[v] < L.anchor_i) \
                    or not res_free(c, t, g.seg_by_dir[e]):
                continue  # (an anchor richer than the route's is never on it)
            mark[v] = 1
            seen[n_seen] = v
            n_seen += 1
            if values[v] > 0:
                if best != NULL:
                    topk_add(best, values[v])
                    total = best.sum
                else:
                    total += values[v]
                if total > enough:
                    top = 0
                    break
            if not g.end_only_by_stop[v] and not g.to_terminal_by_dir[e]:
                stack[top] = v
                top += 1
    for i in range(n_seen):
        mark[seen[i]] = 0
    return total


cdef void route_top(Ctx* c, Level* L, int t, int k, TopK* top) noexcept nogil:
    """Start ``top`` (the k best) with the positive values of the stops on level L's route."""
    cdef const int32_t* values = c.inp.values_by_train_stop + <int64_t>t * c.inp.n_stops
    cdef int i
    top.k = k if k < c.inp.n_stops else c.inp.n_stops
    top.n = 0
    top.sum = 0
    top.vals = c.work.stops + 2 * c.inp.n_stops
    for i in range(L.half[0].h + 1):
        if values[L.half[0].stop[i]] > 0:
            topk_add(top, values[L.half[0].stop[i]])
    if L.phase == 2:
        for i in range(1, L.half[1].h + 1):
            if values[L.half[1].stop[i]] > 0:
                topk_add(top, values[L.half[1].stop[i]])


cdef int64_t express_reach_bound(Ctx* c, Level* L, int t, int w, int d, int anchor_from,
                                 int64_t enough) noexcept nogil:
    """The most a train that pays only its best stops can earn on a route growing to w: its best
    ``pay_total`` stop values among the stops visited and those it could still reach (or, once
    that passes ``enough``, some value above it)."""
    cdef int32_t value_w = c.inp.values_by_train_stop[<int64_t>t * c.inp.n_stops + w]
    cdef TopK top
    route_top(c, L, t, c.inp.caps_by_train[t * 6 + 5], &top)
    if value_w > 0:
        topk_add(&top, value_w)
    return reach_bound(c, L, t, w, d, anchor_from, enough, &top)


cdef inline int64_t floor_div(int64_t a, int64_t b) noexcept nogil:
    """a // b rounded down (b > 0), as C division is not for negative a."""
    cdef int64_t q = a / b
    if q * b > a:
        q -= 1
    return q


cdef int64_t later_bound(Ctx* c, int li, int64_t rest, int64_t useful) noexcept nogil:
    """At most what the levels after li can add on the track in use, if less than ``rest``: the
    next train's best paid stops among those one of its anchors reaches over free track (never
    through a richer anchor: its routes do not), plus the proven optimum of the trains after it.
    The walks stop (``rest`` then) once one passes ``useful``."""
    cdef const Input* g = &c.inp
    cdef int lj = li + 1, t2 = g.train_by_level[lj], n = g.n_stops, i, u, e, v, top_, n_seen, a
    cdef const int32_t* caps = g.caps_by_train + t2 * 6
    cdef const int32_t* values = g.values_by_train_stop + <int64_t>t2 * n
    cdef const int32_t* anchors = g.anchor_by_train_rank + <int64_t>t2 * n
    cdef const int32_t* rank = g.rank_by_train_stop + <int64_t>t2 * n
    cdef int32_t* stack = c.work.stops
    cdef int32_t* seen = c.work.stops + n
    cdef uint8_t* mark = c.work.reach_mark
    cdef int64_t after = c.bounds.from_level[lj + 1] if lj + 1 < c.run.hi else 0
    cdef int64_t mult = g.multiplier_by_train[t2], enough, most = 0
    cdef TopK top
    if mult <= 0 or (g.pays_all_by_train[t2] and caps[2] - 1 < g.reach_from):
        return rest
    enough = floor_div((rest if rest < useful else useful) - after - g.max_bonus_by_train[t2], mult)
    if enough < 0:
        return rest
    for a in range(g.n_anchors_by_train[t2]):
        top.k = caps[2] if g.pays_all_by_train[t2] else caps[5]
        if top.k > n:
            top.k = n
        top.n = 0
        top.sum = 0
        top.vals = c.work.stops + 2 * n
        u = anchors[a]
        mark[u] = 1
        seen[0] = u
        n_seen = 1
        stack[0] = u
        top_ = 1
        if values[u] > 0:
            topk_add(&top, values[u])
        while top_ > 0 and top.sum <= enough:
            top_ -= 1
            u = stack[top_]
            for e in range(g.adj_ptr_by_stop[u], g.adj_ptr_by_stop[u + 1]):
                v = g.to_stop_by_dir[e]
                if mark[v] or (rank[v] >= 0 and rank[v] < a) or not res_free(c, t2, g.seg_by_dir[e]):
                    continue
                mark[v] = 1
                seen[n_seen] = v
                n_seen += 1
                if values[v] > 0:
                    topk_add(&top, values[v])
                    if top.sum > enough:
                        break
                if not g.end_only_by_stop[v] and not g.to_terminal_by_dir[e]:
                    stack[top_] = v
                    top_ += 1
        for i in range(n_seen):
            mark[seen[i]] = 0
        if top.sum > enough:
            return rest
        if top.sum > most:
            most = top.sum
    return most * mult + g.max_bonus_by_train[t2] + after


cdef int cut_by_bound(Ctx* c, int li, Level* L, Half* H, int w, int d) noexcept nogil:
    """1 if extending level li's route by dir d (to w) cannot beat the best found."""
    cdef const Input* g = &c.inp
    cdef int t = L.t
    cdef const int32_t* caps = g.caps_by_train + t * 6
    cdef int64_t value_w = g.values_by_train_stop[<int64_t>t * g.n_stops + w]
    cdef int nl = L.n_large + count_large(g, w)
    cdef int ns = L.n_small + count_small(g, w)
    cdef int64_t pull = c.inp.pullman_cap if c.run.use_pullman else 0
    cdef int64_t ub, reach, room, rest, mult = g.multiplier_by_train[t]
    cdef int seg, T, first, anchor_from
    if g.pays_all_by_train[t]:
        ub = (L.vsum + value_w + rem_bound(c, t, caps[0] - nl, caps[1] - ns, caps[2] - nl - ns)) \
            * g.multiplier_by_train[t] + g.max_bonus_by_train[t]
        if ub > c.bounds.alone_by_level[li]:
            ub = c.bounds.alone_by_level[li]
    else:
        ub = c.bounds.alone_by_level[li]
    rest = H.later[H.h]
    if L.base + ub + rest + pull <= c.run.cur_best:
        return 1
    # the most the stop values below may add up to and still cut (past it, the walks stop early)
    room = c.run.cur_best - L.base - g.max_bonus_by_train[t] - rest - pull
    if room <= 0:
        return 0  # only stops worth nothing could cut: leaving them is safe (listing all routes, say)
    room = floor_div(room, mult) if mult > 0 else INT64_MAX_
    T = L.half[0].stop[0]
    first = d if H.h == 0 else L.d1  # half 0's first dir
    anchor_from = first if L.phase == 1 and not g.end_only_by_stop[T] and not g.from_terminal_by_dir[first] else -1
    if g.reach_from and g.pays_all_by_train[t] and caps[2] - nl - ns >= g.reach_from:
        # a long train: bound it by what it can still reach, not by the whole map
        seg = g.seg_by_dir[d]
        res_flip(c, t, seg)
        loc_flip(L, g.loc_by_stop[w])
        reach = reach_bound(c, L, t, w, d, anchor_from, room - L.vsum - value_w)
        res_flip(c, t, seg)
        loc_flip(L, g.loc_by_stop[w])
        if L.base + (L.vsum + value_w + reach) * g.multiplier_by_train[t] + g.max_bonus_by_train[t] \
                + rest + pull <= c.run.cur_best:
            return 1
    elif g.reach_from and not g.pays_all_by_train[t]:
        # an express: bound it by the best stops it has or can still reach
        seg = g.seg_by_dir[d]
        res_flip(c, t, seg)
        loc_flip(L, g.loc_by_stop[w])
        reach = express_reach_bound(c, L, t, w, d, anchor_from, room)
        res_flip(c, t, seg)
        loc_flip(L, g.loc_by_stop[w])
        if L.base + reach * g.multiplier_by_train[t] + g.max_bonus_by_train[t] + rest + pull \
                <= c.run.cur_best:
            return 1
    return 0


cdef int cut_anchor(Ctx* c, int li, Level* L, int T) noexcept nogil:
    """1 if no route of level li's train out of anchor T can beat the best found: its best paid
    stops (all a train that pays every stop can visit) among T and the stops T reaches over free
    track cannot. One walk per anchor where the per-extension bounds would walk once per first
    step (a later train's routes, on a board mostly taken by the earlier ones, end here)."""
    cdef const Input* g = &c.inp
    cdef int t = L.t
    cdef const int32_t* caps = g.caps_by_train + t * 6
    cdef int64_t pull = g.pullman_cap if c.run.use_pullman else 0
    cdef int64_t room, mult = g.multiplier_by_train[t]
    cdef TopK top
    if not g.reach_from or (g.pays_all_by_train[t] and caps[2] - 1 < g.reach_from):
        return 0
    room = c.run.cur_best - L.base - g.max_bonus_by_train[t] - rest_bound(c, li) - pull
    if room < 0:
        return 0  # even a route worth nothing would beat the best
    if mult == 0:
        return 1
    route_top(c, L, t, caps[2] if g.pays_all_by_train[t] else caps[5], &top)  # the route is T alone
    room = floor_div(room, mult)
    return reach_bound(c, L, t, T, -1, -1, room, &top) <= room
