# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Branch and bound over a company's routes, compiled, with the GIL released.

See ``_search.pxd`` for the state. The search runs in rounds that each prove a bound for the
next: every train alone, then the trains from the last one backwards (the optimum of the later
trains is the bound for them while the earlier ones are placed), then all of them. Every route is
generated once, identical trains are placed in increasing order, and a node is cut when the
revenue placed plus the best its train could still add plus the proven optimum of the trains
still to come cannot beat the best found. Errors are codes; the Python wrapper raises.
"""
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec
from cpython.pycapsule cimport PyCapsule_GetPointer

KERNEL_CAPSULE = b"route18xx.kernel"

cdef extern from *:
    """
    static inline int read_flag(const unsigned char* p) { return p ? *(volatile const unsigned char*)p : 0; }
    static inline int popcount32(unsigned int x) { return __builtin_popcount(x); }
    """
    int read_flag(const uint8_t* p) nogil
    int popcount32(unsigned int x) nogil

cdef enum:
    CHECK_EVERY = 4096
    STOP_NONE = 0
    STOP_DEADLINE = 1
    STOP_NODES = 2
    STOP_CANCELLED = 3
    ERR_MEMORY = -1


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline int check_limits(Ctx* c) noexcept nogil:
    if read_flag(c.cancel):
        c.stop_code = STOP_CANCELLED
    elif c.node_budget > 0 and c.nodes >= c.node_budget:
        c.stop_code = STOP_NODES
    elif c.deadline > 0 and now() > c.deadline:
        c.stop_code = STOP_DEADLINE
    return c.stop_code


# ---- bounds ---------------------------------------------------------------------------------

cdef inline int64_t* pref_of(Ctx* c, int t, int which) noexcept nogil:
    return c.pref + (<int64_t>t * 3 + which) * (c.n_stops + 1)


cdef int64_t rem_bound(Ctx* c, int t, int r_large, int r_small, int r_total) noexcept nogil:
    """The most r more stops within these caps could pay train t (positive values only)."""
    cdef int n = c.n_stops
    cdef int64_t* pl = pref_of(c, t, 0)
    cdef int64_t* ps = pref_of(c, t, 1)
    cdef int64_t* pa = pref_of(c, t, 2)
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


cdef inline int64_t rest_bound(Ctx* c, int li) noexcept nogil:
    """Proven optimum of the trains after level li within the running solve."""
    if li + 1 < c.hi:
        return c.suffix[li + 1]
    return 0


cdef int64_t reach_bound(Ctx* c, Level* L, int t, int w, int d, int extend_anchor,
                         int32_t* out=NULL, int* n_out=NULL) noexcept nogil:
    """What the stops a route could still reach are worth: a walk over free track from the
    route's open ends, never into a location it holds (negative stops never counted).

    Called with w pushed (its location and track taken). The anchor is an open end too while
    half 1 grows and the route may still pass through it. With ``out``, the positive values
    reached are appended there too (``n_out`` counts them).
    """
    cdef const int32_t* values = c.values + <int64_t>t * c.n_stops
    cdef int32_t* stack = c.scratch
    cdef int32_t* seen = c.scratch + c.n_stops
    cdef int top = 0, n_seen = 0, u, e, v, i
    cdef int64_t total = 0
    if not c.end_only[w] and not c.adj_to_term[d]:
        stack[top] = w
        top += 1
    c.reach_mark[w] = 1
    seen[n_seen] = w
    n_seen += 1
    if extend_anchor:
        u = L.stop1[0]
        if not c.reach_mark[u]:
            c.reach_mark[u] = 1
            seen[n_seen] = u
            n_seen += 1
            stack[top] = u
            top += 1
    while top > 0:
        top -= 1
        u = stack[top]
        for e in range(c.adj_ptr[u], c.adj_ptr[u + 1]):
            v = c.adj_to[e]
            if c.reach_mark[v] or loc_has(L, c.loc[v]) or not res_free(c, c.adj_seg[e]):
                continue
            c.reach_mark[v] = 1
            seen[n_seen] = v
            n_seen += 1
            if values[v] > 0:
                total += values[v]
                if out != NULL:
                    out[n_out[0]] = values[v]
                    n_out[0] += 1
            if not c.end_only[v] and not c.adj_to_term[e]:
                stack[top] = v
                top += 1
    for i in range(n_seen):
        c.reach_mark[seen[i]] = 0
    return total


cdef int64_t express_reach_bound(Ctx* c, Level* L, int t, int w, int d, int extend_anchor) noexcept nogil:
    """The most a train that pays only its best stops can earn on a route growing to w: its best
    ``pay_total`` stop values among the stops visited and those it could still reach."""
    cdef const int32_t* values = c.values + <int64_t>t * c.n_stops
    cdef int32_t* vals = c.scratch + 2 * c.n_stops
    cdef int n = 0, k, i, j, pay = c.caps[t * 6 + 5], x
    cdef int64_t top = 0
    reach_bound(c, L, t, w, d, extend_anchor, vals, &n)
    for k in range(L.h1 + 1):
        if values[L.stop1[k]] > 0:
            vals[n] = values[L.stop1[k]]
            n += 1
    if L.phase == 2:
        for k in range(1, L.h2 + 1):
            if values[L.stop2[k]] > 0:
                vals[n] = values[L.stop2[k]]
                n += 1
    if values[w] > 0:
        vals[n] = values[w]
        n += 1
    if pay > n:
        pay = n
    for i in range(pay):  # selection of the best pay values (pay is small)
        j = i
        for k in range(i + 1, n):
            if vals[k] > vals[j]:
                j = k
        x = vals[i]
        vals[i] = vals[j]
        vals[j] = x
        top += vals[i]
    return top


# ---- pricing --------------------------------------------------------------------------------

cdef int route_stops(Ctx* c, Level* L, int32_t* out) noexcept nogil:
    """The route's stops in route order: half 2 reversed, then half 1."""
    cdef int k, n = 0
    if L.phase == 2:
        k = L.h2
        while k >= 1:
            out[n] = L.stop2[k]
            n += 1
            k -= 1
    for k in range(L.h1 + 1):
        out[n] = L.stop1[k]
        n += 1
    return n


cdef int64_t bonus_of(Ctx* c, int t, const int32_t* visited, int n_visited, const int32_t* paid, int n_paid) noexcept nogil:
    """Pair, largest-stop and red-to-red bonuses of a route, given its paid stops."""
    cdef int64_t extra = 0, top
    cdef int i, k, s, tokens
    cdef uint8_t bit
    cdef const int32_t* values = c.values + <int64_t>t * c.n_stops
    for i in range(n_visited):
        c.mark[visited[i]] = 2  # on the route
    for i in range(n_paid):
        c.mark[paid[i]] = 3  # on the route and paid
    for k in range(c.n_pairs):
        bit = 2 if c.pair_visited[k] else 1
        if c.mark[c.pair_a[k]] & bit and c.mark[c.pair_b[k]] & bit:
            extra += c.pair_amount[k]
    for k in range(c.n_largest):
        if c.mark[c.largest_trigger[k]] & 1:
            top = 0
            for i in range(n_paid):
                s = paid[i]
                if s != c.largest_trigger[k] and not c.largest_exclude[<int64_t>k * c.n_stops + s] and values[s] > top:
                    top = values[s]
            extra += top
    if c.r2r_per_token and n_visited >= 2 and c.red[visited[0]] and c.red[visited[n_visited - 1]]:
        tokens = 0
        for i in range(n_paid):
            if c.token[paid[i]]:
                tokens += 1
        if tokens > c.r2r_max_tokens:
            tokens = c.r2r_max_tokens
        extra += <int64_t>c.r2r_per_token * tokens
    for i in range(n_visited):
        c.mark[visited[i]] = 0
    for i in range(n_paid):
        c.mark[paid[i]] = 0
    return extra


cdef inline int64_t penalty_of(Ctx* c, uint32_t mask) noexcept nogil:
    cdef int64_t p = 0
    cdef int b
    for b in range(c.n_pen):
        if mask >> b & 1:
            p += c.pen_amount[b]
    return p


cdef int largest_paid(Ctx* c, int t, const int32_t* paid, int n) noexcept nogil:
    cdef int i, best = 0
    cdef const int32_t* values = c.values + <int64_t>t * c.n_stops
    for i in range(n):
        if c.large[paid[i]] and values[paid[i]] > best:
            best = values[paid[i]]
    return best


cdef void sort_by_value(const int32_t* values, int32_t* a, int n) noexcept nogil:
    """Insertion sort, richest first: routes are short."""
    cdef int i, j, x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and values[a[j]] < values[x]:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef int64_t price_express(Ctx* c, int t, const int32_t* visited, int nv, int* best_large,
                           int32_t* out_paid, int32_t* n_out) noexcept nogil:
    """Best paid subset of a route for a train that may skip stops.

    The stops that bonuses depend on are tried in and out in every combination; the rest are
    chosen greedily, richest first per class, within the pay caps, with the richest token city
    forced in where the train must count one of ours.
    """
    cdef const int32_t* values = c.values + <int64_t>t * c.n_stops
    cdef int pay_large = c.caps[t * 6 + 3], pay_small = c.caps[t * 6 + 4], pay_total = c.caps[t * 6 + 5]
    cdef int n = c.n_stops
    cdef int32_t* inter = c.scratch + n          # interesting stops of the route
    cdef int32_t* big = c.scratch + 2 * n        # the other stops: large ones, then small ones
    cdef int32_t* paid = c.scratch + 3 * n
    cdef int m = 0, nb = 0, ns = 0, i, k, mask, f_large, f_small, n_paid, tok, kl, ks, room
    cdef int forced_tok, kl_best, ks_best, bl
    cdef int64_t best = -(<int64_t>1 << 62), v, head
    cdef int64_t sum_big, sum_small
    cdef int32_t* small
    for i in range(nv):
        if c.interesting[visited[i]] and m < 12:
            inter[m] = visited[i]
            m += 1
    for i in range(nv):
        if not (c.interesting[visited[i]] and _in(inter, m, visited[i])) and c.large[visited[i]]:
            big[nb] = visited[i]
            nb += 1
    small = big + nb
    for i in range(nv):
        if not (c.interesting[visited[i]] and _in(inter, m, visited[i])) and not c.large[visited[i]]:
            small[ns] = visited[i]
            ns += 1
    sort_by_value(values, big, nb)
    sort_by_value(values, small, ns)
    best_large[0] = 0
    for mask in range(1 << m):
        n_paid = 0
        f_large = 0
        f_small = 0
        head = 0
        tok = 0
        for i in range(m):
            if mask >> i & 1:
                paid[n_paid] = inter[i]
                n_paid += 1
                head += values[inter[i]]
                if c.large[inter[i]]:
                    f_large += 1
                else:
                    f_small += 1
                if c.token[inter[i]]:
                    tok = 1
        forced_tok = -1
        if not tok:  # count one of our cities: the richest
            for i in range(nb):
                if c.token[big[i]]:
                    forced_tok = i
                    break
            if forced_tok < 0:
                for i in range(ns):
                    if c.token[small[i]]:
                        forced_tok = nb + i
                        break
            if forced_tok < 0:
                continue
            paid[n_paid] = big[forced_tok] if forced_tok < nb else small[forced_tok - nb]
            head += values[paid[n_paid]]
            if forced_tok < nb:
                f_large += 1
            else:
                f_small += 1
            n_paid += 1
        if f_large > pay_large or f_small > pay_small or f_large + f_small > pay_total:
            continue
        # greedy over the rest: choose kl large and ks small, richest first, positive only
        v = -1
        kl_best = 0
        ks_best = 0
        sum_big = 0
        kl = 0
        i = 0
        while True:
            room = pay_total - f_large - f_small - kl
            ks = 0
            sum_small = 0
            k = 0
            while k < ns and ks < pay_small - f_small and ks < room:
                if forced_tok != nb + k:
                    if values[small[k]] <= 0:
                        break
                    sum_small += values[small[k]]
                    ks += 1
                k += 1
            if sum_big + sum_small > v:
                v = sum_big + sum_small
                kl_best = kl
                ks_best = ks
            # take one more large stop
            while i < nb and i == forced_tok:
                i += 1
            if i >= nb or values[big[i]] <= 0 or kl + 1 > pay_large - f_large or kl + 1 > pay_total - f_large - f_small:
                break
            sum_big += values[big[i]]
            kl += 1
            i += 1
        # materialise the choice
        k = 0
        i = 0
        while k < kl_best:
            if i != forced_tok:
                paid[n_paid] = big[i]
                n_paid += 1
                k += 1
            i += 1
        k = 0
        i = 0
        while k < ks_best:
            if nb + i != forced_tok:
                paid[n_paid] = small[i]
                n_paid += 1
                k += 1
            i += 1
        v = (head + v) * c.mult[t] + bonus_of(c, t, visited, nv, paid, n_paid)
        if v < best:
            continue
        bl = largest_paid(c, t, paid, n_paid)
        if v > best or bl > best_large[0]:  # ties: the richer city for a Pullman to double
            best = v
            best_large[0] = bl
            if out_paid != NULL:
                for k in range(n_paid):
                    out_paid[k] = paid[k]
                n_out[0] = n_paid
    return best


cdef inline int _in(const int32_t* a, int n, int x) noexcept nogil:
    cdef int i
    for i in range(n):
        if a[i] == x:
            return 1
    return 0


cdef void price_best_route(Ctx* c, Level* L, const int32_t* visited, int nv) noexcept nogil:
    """What each best-route bonus would pay on this route (L.br_rev)."""
    cdef int k, i
    cdef uint32_t met
    for k in range(c.n_br):
        met = 0
        for i in range(nv):
            met |= c.br_mask[<int64_t>k * c.n_stops + visited[i]]
        L.br_rev[k] = <int64_t>c.br_per_stop[k] * nv + (c.br_amount[k] if met & c.br_full[k] == c.br_full[k] else 0)


cdef inline int64_t best_route_sum(Ctx* c, Level* L) noexcept nogil:
    """The best-route bonuses of the routes placed down to this level's: each its best route's."""
    cdef int k
    cdef int64_t total = 0
    for k in range(c.n_br):
        total += L.br_base[k] if L.br_base[k] > L.br_rev[k] else L.br_rev[k]
    return total


cdef int64_t price_route(Ctx* c, Level* L) noexcept nogil:
    """Revenue of the route a level just yielded; sets L.rev, L.best_large and L.br_rev."""
    cdef int t = L.t
    cdef int32_t* visited = c.scratch
    cdef int nv = route_stops(c, L, visited)
    cdef uint32_t pen = L.pen1[L.h1] | (L.pen2[L.h2] if L.phase == 2 else 0)
    cdef int bl = 0
    cdef int64_t rev
    if c.n_br:
        price_best_route(c, L, visited, nv)
    if c.pays_all[t]:
        rev = L.vsum * c.mult[t] + bonus_of(c, t, visited, nv, visited, nv)
        bl = largest_paid(c, t, visited, nv)
    else:
        rev = price_express(c, t, visited, nv, &bl, NULL, NULL)
    rev -= penalty_of(c, pen)
    L.rev = rev
    L.best_large = bl if c.has_pullman else 0
    return rev


# ---- one level: the routes of one train -----------------------------------------------------

cdef inline int res_free(Ctx* c, int seg) noexcept nogil:
    cdef const uint64_t* r = c.seg_res + <int64_t>seg * c.n_words
    cdef int w
    for w in range(c.n_words):
        if r[w] & c.used[w]:
            return 0
    return 1


cdef inline void res_flip(Ctx* c, int seg) noexcept nogil:
    cdef const uint64_t* r = c.seg_res + <int64_t>seg * c.n_words
    cdef int w
    for w in range(c.n_words):
        c.used[w] ^= r[w]


cdef inline int loc_has(Level* L, int loc) noexcept nogil:
    return (L.locs[loc >> 6] >> (loc & 63)) & 1


cdef inline void loc_flip(Level* L, int loc) noexcept nogil:
    L.locs[loc >> 6] ^= (<uint64_t>1) << (loc & 63)


cdef void init_level(Ctx* c, int li, int64_t base, int base_large, Level* above, int above_ran) noexcept nogil:
    """Level li starts; ``above`` (or NULL) is the level before it, whose route counts if it ran."""
    cdef Level* L = &c.levels[li]
    cdef int k
    for k in range(c.n_br):
        L.br_rev[k] = 0
        L.br_base[k] = 0
        if above != NULL:
            L.br_base[k] = above.br_base[k]
            if above_ran and above.br_rev[k] > L.br_base[k]:
                L.br_base[k] = above.br_rev[k]
    L.t = c.order[li]
    L.phase = 0
    L.empty = 0
    L.h1 = 0
    L.h2 = 0
    L.pending2 = 0
    L.d1 = -1
    L.anchor_i = -1
    L.base = base
    L.base_large = base_large
    if li > c.lo and c.group[c.order[li - 1]] == c.group[L.t] and not c.levels[li - 1].empty:
        L.anchor_i = c.levels[li - 1].anchor_i - 1  # identical trains: routes in increasing order
    memset(L.locs, 0, c.n_loc_words * sizeof(uint64_t))


cdef inline int same_as_previous(Ctx* c, int li) noexcept nogil:
    return li > c.lo and c.group[c.order[li - 1]] == c.group[c.order[li]] and not c.levels[li - 1].empty


cdef int next_route(Ctx* c, int li) noexcept nogil:
    """Advance level li to its next route. 1: a route is ready; 0: no more; -1: stopped."""
    cdef Level* L = &c.levels[li]
    cdef int t = L.t
    cdef const int32_t* caps = c.caps + t * 6
    cdef const int32_t* values = c.values + <int64_t>t * c.n_stops
    cdef int T, h, v, d, end, w, seg, nl, ns, first
    cdef int32_t* stop
    cdef int32_t* pos
    cdef int32_t* dseg
    cdef uint32_t* pen
    cdef int64_t ub, limit, reach
    while True:
        c.nodes += 1
        if c.nodes % CHECK_EVERY == 0 and check_limits(c):
            return -1
        if L.phase == 0:
            L.anchor_i += 1
            if L.anchor_i >= c.n_anchors:
                return 0
            T = c.anchors[L.anchor_i]
            if (c.large[T] and caps[0] < 1) or (not c.large[T] and caps[1] < 1) or caps[2] < 1:
                continue
            L.stop1[0] = T
            L.pos1[0] = c.adj_ptr[T]
            if same_as_previous(c, li) and c.levels[li - 1].anchor_i == L.anchor_i:
                L.pos1[0] = c.levels[li - 1].d1 + 1
            L.dseg1[0] = -1
            L.pen1[0] = 0
            L.h1 = 0
            L.h2 = 0
            L.d1 = -1
            L.phase = 1
            L.pending2 = 0
            L.n_large = c.large[T]
            L.n_small = 1 - c.large[T]
            L.vsum = values[T]
            loc_flip(L, c.loc[T])
            continue
        if L.phase == 1 and L.pending2:
            L.pending2 = 0
            T = L.stop1[0]
            if c.end_only[T] or c.adj_from_term[L.d1]:
                continue  # the anchor cannot be passed through: routes end there
            L.phase = 2
            L.h2 = 0
            L.stop2[0] = T
            L.pos2[0] = L.d1 + 1
            L.dseg2[0] = -1
            L.pen2[0] = 0
            continue
        if L.phase == 1:
            stop = L.stop1
            pos = L.pos1
            dseg = L.dseg1
            pen = L.pen1
            h = L.h1
        else:
            stop = L.stop2
            pos = L.pos2
            dseg = L.dseg2
            pen = L.pen2
            h = L.h2
        v = stop[h]
        d = pos[h]
        end = c.adj_ptr[v + 1]
        if h > 0 and (c.end_only[v] or c.adj_to_term[dseg[h]]):
            d = end  # v ends the route
        T = L.stop1[0]
        first = h == 0 and L.phase == 1
        w = -1
        while d < end:
            if not first and c.adj_from_term[d]:
                d += 1
                continue
            w = c.adj_to[d]
            seg = c.adj_seg[d]
            if loc_has(L, c.loc[w]) or (c.rank[w] >= 0 and c.rank[w] < L.anchor_i):
                d += 1
                continue
            nl = L.n_large + c.large[w]
            ns = L.n_small + 1 - c.large[w]
            if nl > caps[0] or ns > caps[1] or nl + ns > caps[2] or not res_free(c, seg):
                d += 1
                continue
            if c.pays_all[t]:
                ub = (L.vsum + values[w] + rem_bound(c, t, caps[0] - nl, caps[1] - ns, caps[2] - nl - ns)) * c.mult[t] \
                    + c.max_bonus[t]
                if ub > c.opt_alone[li]:
                    ub = c.opt_alone[li]
            else:
                ub = c.opt_alone[li]
            limit = L.base + ub + rest_bound(c, li) + (c.pullman_cap if c.use_pullman else 0)
            if limit <= c.cur_best:
                d += 1
                continue
            if c.reach_from and c.pays_all[t] and caps[2] - nl - ns >= c.reach_from:
                # a long train: bound it by what it can still reach, not by the whole map
                res_flip(c, seg)
                loc_flip(L, c.loc[w])
                reach = reach_bound(c, L, t, w, d, L.phase == 1 and not c.end_only[T]
                                    and not c.adj_from_term[d if h == 0 else L.d1])
                res_flip(c, seg)
                loc_flip(L, c.loc[w])
                if L.base + (L.vsum + values[w] + reach) * c.mult[t] + c.max_bonus[t] + rest_bound(c, li) \
                        + (c.pullman_cap if c.use_pullman else 0) <= c.cur_best:
                    d += 1
                    continue
            elif c.reach_from and not c.pays_all[t]:
                # an express: bound it by the best stops it has or can still reach
                res_flip(c, seg)
                loc_flip(L, c.loc[w])
                reach = express_reach_bound(c, L, t, w, d, L.phase == 1 and not c.end_only[T]
                                            and not c.adj_from_term[d if h == 0 else L.d1])
                res_flip(c, seg)
                loc_flip(L, c.loc[w])
                if L.base + reach * c.mult[t] + c.max_bonus[t] + rest_bound(c, li) \
                        + (c.pullman_cap if c.use_pullman else 0) <= c.cur_best:
                    d += 1
                    continue
            break
        if d >= end:
            # this frame is exhausted: step back
            if h == 0:
                if L.phase == 2:
                    L.phase = 1
                else:
                    loc_flip(L, c.loc[T])
                    L.phase = 0
                continue
            res_flip(c, c.adj_seg[dseg[h]])
            loc_flip(L, c.loc[v])
            L.vsum -= values[v]
            if c.large[v]:
                L.n_large -= 1
            else:
                L.n_small -= 1
            if L.phase == 1:
                L.h1 -= 1
            else:
                L.h2 -= 1
            continue
        # take segment d to w
        pos[h] = d + 1
        h += 1
        stop[h] = w
        dseg[h] = d
        pos[h] = c.adj_ptr[w]
        pen[h] = pen[h - 1] | c.seg_pen[seg]
        res_flip(c, seg)
        loc_flip(L, c.loc[w])
        L.vsum += values[w]
        L.n_large = nl
        L.n_small = ns
        if L.phase == 1:
            L.h1 = h
            if h == 1:
                L.d1 = d
            L.pending2 = 1
        else:
            L.h2 = h
        return 1


cdef void unwind_level(Ctx* c, int li) noexcept nogil:
    """Release the track of a level's current route (when a solve is abandoned)."""
    cdef Level* L = &c.levels[li]
    cdef int k
    if L.phase == 0 or L.empty:
        return
    for k in range(1, L.h1 + 1):
        res_flip(c, c.adj_seg[L.dseg1[k]])
    if L.phase == 2:
        for k in range(1, L.h2 + 1):
            res_flip(c, c.adj_seg[L.dseg2[k]])
    L.phase = 0


# ---- the solve over levels lo..hi-1 ---------------------------------------------------------

cdef void record(Ctx* c, int upto, int64_t value) noexcept nogil:
    """Keep the routes of levels lo..upto as the best solution."""
    cdef int li, k, n, bl
    cdef Level* L
    cdef int32_t* stops
    cdef int32_t* segs
    cdef int32_t* paid
    c.best_value = value
    for li in range(c.n_trains):
        c.best_len[li] = 0
        c.best_rev[li] = 0
        c.best_npaid[li] = 0
    for li in range(c.lo, upto + 1):
        L = &c.levels[li]
        if L.empty or L.phase == 0:
            continue
        stops = c.best_stops + <int64_t>li * (c.n_stops + 1)
        segs = c.best_segs + <int64_t>li * (c.n_stops + 1)
        n = route_stops(c, L, stops)
        c.best_len[li] = n
        c.best_rev[li] = L.rev
        paid = c.best_paid + <int64_t>li * (c.n_stops + 1)
        if c.pays_all[L.t]:
            for k in range(n):
                paid[k] = stops[k]
            c.best_npaid[li] = n
        else:
            price_express(c, L.t, stops, n, &bl, paid, &c.best_npaid[li])
        n = 0
        if L.phase == 2:
            k = L.h2
            while k >= 1:
                segs[n] = c.adj_seg[L.dseg2[k]]
                n += 1
                k -= 1
        for k in range(1, L.h1 + 1):
            segs[n] = c.adj_seg[L.dseg1[k]]
            n += 1
    c.improved = 1
    if c.on_improve != NULL:
        with gil:
            try:
                (<object>c.on_improve)(value, _best_lists(c), proven_bound(c), c.nodes)
            except BaseException:
                pass


cdef int64_t proven_bound(Ctx* c) noexcept nogil:
    """The upper bound proven so far: each train's best alone (or its static bound before that),
    or the proven optimum of the later trains; a kernel that proves its own sets ``c.bound``."""
    cdef int li, K = c.n_trains
    cdef int64_t b
    if c.bound >= 0:
        b = c.bound
    elif c.stage >= 2 and K > 0:
        b = c.opt_alone[0] + c.suffix[1] + c.pullman_cap
    else:
        b = c.pullman_cap
        for li in range(K):
            if li >= c.suffix_from:
                b += c.suffix[li]
                break
            b += c.opt_alone[li]
    return b if b > c.best_value else c.best_value


cdef object _best_lists(Ctx* c):
    """The best solution as Python lists: (stops per level, segments per level, revenue per level)."""
    cdef int i, k, n = c.n_stops
    stops = [[c.best_stops[i * (n + 1) + k] for k in range(c.best_len[i])] for i in range(c.n_trains)]
    segs = [[c.best_segs[i * (n + 1) + k] for k in range(max(c.best_len[i] - 1, 0))] for i in range(c.n_trains)]
    revs = [c.best_rev[i] for i in range(c.n_trains)]
    paid = [[c.best_paid[i * (n + 1) + k] for k in range(c.best_npaid[i])] for i in range(c.n_trains)]
    return stops, segs, revs, paid


cdef int64_t solve(Ctx* c, int lo, int hi, int64_t init_best, int use_pullman) noexcept nogil:
    """Best total of the trains of levels lo..hi-1 (the others run nothing); -1 if stopped."""
    cdef int li = lo, j, r
    cdef int64_t total, value
    cdef int bl
    cdef int pull = c.pullman_cap if use_pullman else 0
    c.lo = lo
    c.hi = hi
    c.cur_best = init_best
    c.use_pullman = use_pullman
    init_level(c, lo, 0, 0, NULL, 0)
    while True:
        r = next_route(c, li)
        if r < 0:
            for j in range(lo, li + 1):
                unwind_level(c, j)
            return -1
        if r == 1:
            price_route(c, &c.levels[li])
            total = c.levels[li].base + c.levels[li].rev
            bl = c.levels[li].base_large
            if c.levels[li].best_large > bl:
                bl = c.levels[li].best_large
            value = total + ((bl + best_route_sum(c, &c.levels[li])) if use_pullman else 0)
            if value > c.cur_best:
                c.cur_best = value
                if value > c.best_value:
                    record(c, li, value)
            j = li + 1
            if j < hi and total + c.suffix[j] + pull > c.cur_best:
                init_level(c, j, total, bl, &c.levels[li], 1)
                li = j
            continue
        # level li has no more routes: try it running nothing, if a later train could gain
        if not c.levels[li].empty:
            j = li + 1
            while j < hi and c.group[c.order[j]] == c.group[c.order[li]]:
                j += 1
            if j < hi and c.levels[li].base + c.suffix[j] + pull > c.cur_best:
                for r in range(li, j):
                    c.levels[r].empty = 1
                    c.levels[r].phase = 0
                init_level(c, j, c.levels[li].base, c.levels[li].base_large, &c.levels[li], 0)
                li = j
                continue
        # back up to the last level still walking its routes
        li -= 1
        while li >= lo and c.levels[li].empty:
            li -= 1
        if li < lo:
            return c.cur_best


# ---- Python entry point ---------------------------------------------------------------------

cdef int setup(Ctx* c) noexcept nogil:
    """Allocate the per-level stacks and derived arrays. 0, or ERR_MEMORY."""
    cdef int n = c.n_stops, K = c.n_trains, li
    cdef Level* L
    c.levels = <Level*>calloc(K if K > 0 else 1, sizeof(Level))
    c.used = <uint64_t*>calloc(c.n_words, sizeof(uint64_t))
    c.mark = <uint8_t*>calloc(n + 1, sizeof(uint8_t))
    c.reach_mark = <uint8_t*>calloc(n + 1, sizeof(uint8_t))
    c.scratch = <int32_t*>calloc(4 * (n + 1), sizeof(int32_t))
    c.best_len = <int32_t*>calloc(K + 1, sizeof(int32_t))
    c.best_stops = <int32_t*>calloc((K + 1) * (n + 1), sizeof(int32_t))
    c.best_segs = <int32_t*>calloc((K + 1) * (n + 1), sizeof(int32_t))
    c.best_rev = <int64_t*>calloc(K + 1, sizeof(int64_t))
    c.best_paid = <int32_t*>calloc((K + 1) * (n + 1), sizeof(int32_t))
    c.best_npaid = <int32_t*>calloc(K + 1, sizeof(int32_t))
    if not (c.levels and c.used and c.mark and c.reach_mark and c.scratch and c.best_len and c.best_stops and c.best_segs
            and c.best_rev and c.best_paid and c.best_npaid):
        return ERR_MEMORY
    for li in range(K):
        L = &c.levels[li]
        L.stop1 = <int32_t*>calloc(n + 1, sizeof(int32_t))
        L.pos1 = <int32_t*>calloc(n + 1, sizeof(int32_t))
        L.dseg1 = <int32_t*>calloc(n + 1, sizeof(int32_t))
        L.pen1 = <uint32_t*>calloc(n + 1, sizeof(uint32_t))
        L.stop2 = <int32_t*>calloc(n + 1, sizeof(int32_t))
        L.pos2 = <int32_t*>calloc(n + 1, sizeof(int32_t))
        L.dseg2 = <int32_t*>calloc(n + 1, sizeof(int32_t))
        L.pen2 = <uint32_t*>calloc(n + 1, sizeof(uint32_t))
        L.locs = <uint64_t*>calloc(c.n_loc_words, sizeof(uint64_t))
        if not (L.stop1 and L.pos1 and L.dseg1 and L.pen1 and L.stop2 and L.pos2 and L.dseg2 and L.pen2 and L.locs):
            return ERR_MEMORY
    return 0


cdef void teardown(Ctx* c) noexcept nogil:
    cdef int li
    cdef Level* L
    if c.levels:
        for li in range(c.n_trains):
            L = &c.levels[li]
            free(L.stop1); free(L.pos1); free(L.dseg1); free(L.pen1)
            free(L.stop2); free(L.pos2); free(L.dseg2); free(L.pen2); free(L.locs)
        free(c.levels)
    free(c.used); free(c.mark); free(c.reach_mark); free(c.scratch)
    free(c.best_len); free(c.best_stops); free(c.best_segs); free(c.best_rev)
    free(c.best_paid); free(c.best_npaid)


cdef int run(Ctx* c) noexcept nogil:
    """All rounds: each train alone, the suffixes, then everything. Returns a stop code."""
    cdef int K = c.n_trains, li, j
    cdef int64_t v
    for li in range(K + 1):
        c.suffix[li] = 0
    if K == 0:
        return 0
    if K > 1:
        for li in range(K):
            if li > 0 and c.group[c.order[li]] == c.group[c.order[li - 1]]:
                c.opt_alone[li] = c.opt_alone[li - 1]
                continue
            v = solve(c, li, li + 1, 0, 0)
            if v < 0:
                return c.stop_code
            c.opt_alone[li] = v
        c.suffix[K - 1] = c.opt_alone[K - 1]
        c.suffix_from = K - 1
        c.stage = 1
        li = K - 2
        while li >= 1:
            v = solve(c, li, K, c.suffix[li + 1], 0)
            if v < 0:
                return c.stop_code
            c.suffix[li] = v
            c.suffix_from = li
            li -= 1
    c.stage = 2
    v = solve(c, 0, K, c.best_value, 1 if c.pullman_cap > 0 else 0)
    if v < 0:
        return c.stop_code
    c.suffix[0] = v
    return 0


def search_arrays(problem, order, opt_alone, pref, max_bonus, pays_all, interesting, anchors, rank,
                  double pullman_cap_value, double deadline, long long node_budget, cancel, on_improve,
                  int reach_from=3, kernel=None):
    """Run the compiled search on a flattened problem; see ``optimizer.core.search``.

    ``kernel``: a capsule of another :c:type:`kernel_fn` to run instead of :c:func:`run`.

    Returns (stop_code, best_value, best_len, best_stops, best_segs, best_rev, best_paid, opt_alone,
    suffix, nodes, stage, bound). Raises MemoryError if the stacks cannot be allocated.
    """
    import numpy as np
    cdef Ctx c
    memset(&c, 0, sizeof(Ctx))
    cdef int32_t[::1] adj_ptr = problem.adj_ptr
    cdef int32_t[::1] adj_to = problem.adj_to
    cdef int32_t[::1] adj_seg = problem.adj_seg
    cdef uint8_t[::1] adj_from_term = problem.adj_from_term
    cdef uint8_t[::1] adj_to_term = problem.adj_to_term
    cdef uint64_t[:, ::1] seg_res = problem.seg_res
    cdef uint32_t[::1] seg_pen = problem.seg_pen
    cdef int32_t[::1] pen_amount = np.ascontiguousarray(problem.pen_amount, dtype=np.int32)
    cdef int32_t[:, ::1] values = problem.values
    cdef uint8_t[::1] large = problem.large
    cdef uint8_t[::1] token = problem.token
    cdef uint8_t[::1] red = problem.red
    cdef uint8_t[::1] end_only = problem.end_only
    cdef int32_t[::1] loc = problem.loc
    cdef int32_t[:, ::1] caps = problem.caps
    cdef int32_t[::1] mult = problem.multiplier
    cdef int32_t[::1] group = problem.group
    cdef int32_t[::1] pair_a = np.ascontiguousarray(problem.pair_a, dtype=np.int32)
    cdef int32_t[::1] pair_b = np.ascontiguousarray(problem.pair_b, dtype=np.int32)
    cdef int32_t[::1] pair_amount = np.ascontiguousarray(problem.pair_amount, dtype=np.int32)
    cdef uint8_t[::1] pair_visited = np.ascontiguousarray(problem.pair_visited, dtype=np.uint8)
    if not (pair_b.shape[0] == pair_amount.shape[0] == pair_visited.shape[0] == pair_a.shape[0]):
        raise ValueError("pair arrays differ in length")
    cdef int32_t[::1] largest_trigger = np.ascontiguousarray(problem.largest_trigger, dtype=np.int32)
    cdef uint8_t[:, ::1] largest_exclude = np.ascontiguousarray(problem.largest_exclude, dtype=np.uint8)
    cdef int32_t[::1] br_amount
    cdef int32_t[::1] br_per_stop
    cdef uint32_t[:, ::1] br_mask
    cdef uint32_t[::1] br_full
    cdef int32_t[::1] order_v = order
    cdef int64_t[::1] opt_alone_v = opt_alone
    cdef int64_t[::1] suffix_v = np.zeros(len(order) + 1, dtype=np.int64)
    cdef int64_t[::1] pref_v = pref
    cdef int64_t[::1] max_bonus_v = max_bonus
    cdef uint8_t[::1] pays_all_v = pays_all
    cdef uint8_t[::1] interesting_v = interesting
    cdef int32_t[::1] anchors_v = anchors
    cdef int32_t[::1] rank_v = rank
    cdef uint8_t[::1] cancel_v = cancel
    cdef uint8_t dummy_u8 = 0
    cdef int32_t dummy_i32 = 0
    cdef uint64_t dummy_u64 = 0
    cdef uint32_t dummy_u32 = 0
    cdef int code, err
    cdef kernel_fn fn = run
    if kernel is not None:
        fn = <kernel_fn>PyCapsule_GetPointer(kernel, KERNEL_CAPSULE)

    c.n_stops = problem.n_stops
    c.n_words = seg_res.shape[1]
    c.n_loc_words = (problem.n_locs + 63) // 64 + 1
    c.n_trains = len(order)
    c.adj_ptr = &adj_ptr[0]
    c.adj_to = &adj_to[0] if adj_to.shape[0] else &dummy_i32
    c.adj_seg = &adj_seg[0] if adj_seg.shape[0] else &dummy_i32
    c.adj_from_term = &adj_from_term[0] if adj_from_term.shape[0] else &dummy_u8
    c.adj_to_term = &adj_to_term[0] if adj_to_term.shape[0] else &dummy_u8
    c.seg_res = &seg_res[0, 0] if seg_res.shape[0] else &dummy_u64
    c.seg_pen = &seg_pen[0] if seg_pen.shape[0] else &dummy_u32
    c.pen_amount = &pen_amount[0] if pen_amount.shape[0] else &dummy_i32
    c.n_pen = pen_amount.shape[0]
    c.values = &values[0, 0] if values.shape[0] and values.shape[1] else &dummy_i32
    c.large = &large[0] if large.shape[0] else &dummy_u8
    c.token = &token[0] if token.shape[0] else &dummy_u8
    c.red = &red[0] if red.shape[0] else &dummy_u8
    c.end_only = &end_only[0] if end_only.shape[0] else &dummy_u8
    c.loc = &loc[0] if loc.shape[0] else &dummy_i32
    c.caps = &caps[0, 0] if caps.shape[0] else &dummy_i32
    c.mult = &mult[0] if mult.shape[0] else &dummy_i32
    c.group = &group[0] if group.shape[0] else &dummy_i32
    c.pair_a = &pair_a[0] if pair_a.shape[0] else &dummy_i32
    c.pair_b = &pair_b[0] if pair_b.shape[0] else &dummy_i32
    c.pair_amount = &pair_amount[0] if pair_amount.shape[0] else &dummy_i32
    c.pair_visited = &pair_visited[0] if pair_visited.shape[0] else &dummy_u8
    c.n_pairs = pair_a.shape[0]
    c.largest_trigger = &largest_trigger[0] if largest_trigger.shape[0] else &dummy_i32
    c.largest_exclude = &largest_exclude[0, 0] if largest_exclude.shape[0] and largest_exclude.shape[1] else &dummy_u8
    c.n_largest = largest_trigger.shape[0]
    c.r2r_per_token = problem.r2r_per_token
    c.r2r_max_tokens = problem.r2r_max_tokens
    c.pullman_cap = <int>pullman_cap_value
    c.has_pullman = 1 if problem.double_best_large else 0
    c.n_br = len(problem.br_amount)
    if c.n_br:  # best-route bonuses (1846 Mail Contract, 18AL named routes); most boards have none
        br_amount = np.ascontiguousarray(problem.br_amount, dtype=np.int32)
        br_per_stop = np.ascontiguousarray(problem.br_per_stop, dtype=np.int32)
        br_mask = np.ascontiguousarray(problem.br_mask, dtype=np.uint32).reshape(c.n_br, problem.n_stops)
        br_full = np.ascontiguousarray(problem.br_full, dtype=np.uint32)
        if c.n_br > 4 or br_per_stop.shape[0] != c.n_br or br_full.shape[0] != c.n_br:
            raise ValueError("at most 4 best-route bonuses, each with an amount, a per-stop pay and its groups")
        c.br_amount = &br_amount[0]
        c.br_per_stop = &br_per_stop[0]
        c.br_mask = &br_mask[0, 0] if c.n_stops else &dummy_u32
        c.br_full = &br_full[0]
    c.anchors = &anchors_v[0] if anchors_v.shape[0] else &dummy_i32
    c.n_anchors = anchors_v.shape[0]
    c.rank = &rank_v[0] if rank_v.shape[0] else &dummy_i32
    c.order = &order_v[0] if order_v.shape[0] else &dummy_i32
    c.opt_alone = &opt_alone_v[0] if opt_alone_v.shape[0] else <int64_t*>&dummy_u64
    c.suffix = &suffix_v[0]
    c.pref = &pref_v[0]
    c.max_bonus = &max_bonus_v[0] if max_bonus_v.shape[0] else <int64_t*>&dummy_u64
    c.pays_all = &pays_all_v[0] if pays_all_v.shape[0] else &dummy_u8
    c.interesting = &interesting_v[0] if interesting_v.shape[0] else &dummy_u8
    c.deadline = deadline
    c.node_budget = node_budget
    c.cancel = &cancel_v[0]
    c.on_improve = <void*>on_improve if on_improve is not None else NULL
    c.reach_from = reach_from
    c.best_value = 0
    c.suffix_from = c.n_trains
    c.bound = -1

    with nogil:
        err = setup(&c)
        code = fn(&c) if err == 0 else 0
    try:
        if err:
            raise MemoryError("search stacks")
        best_stops, best_segs, best_rev, best_paid = _best_lists(&c)
        best_len = np.array([len(x) for x in best_stops], dtype=np.int32)
        return (code, c.best_value, best_len, best_stops, best_segs, best_rev, best_paid,
                np.asarray(opt_alone_v).copy(), np.asarray(suffix_v).copy(), c.nodes, c.stage, proven_bound(&c))
    finally:
        teardown(&c)
