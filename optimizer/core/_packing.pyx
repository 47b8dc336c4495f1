# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Route enumeration plus packing: the kernel for many long trains on dense boards.

Each train's routes that could belong to a better answer are listed once (walked by the same
``next_route`` as the nested search, so legality and revenue are the same code), with their
track as a bitset, richest first. The answer is then a packing: one route (or none) per train,
pairwise track-disjoint, found by branch and bound where testing a conflict is an AND of a few
words. A node is cut when the revenue placed plus, for every train still to place, its richest
listed route that is free of the track in use cannot beat the best found; that first free route
only moves down the list as the track in use grows, so it is searched from where the parent
left it.

A route too poor to matter is never listed: one worth less than the best answer known minus the
best every other train can earn alone cannot be part of a better answer. When the lists would
grow past ``MAX_ROUTES`` the kernel hands over to the nested search.
"""
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memcpy, memset
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec
from cpython.pycapsule cimport PyCapsule_New
from libc.stdio cimport printf

from ._search cimport (Ctx, Level, _best_lists, init_level, next_route, price_express, price_route, proven_bound,
                       route_stops, run, solve)

cdef extern from *:
    """
    static inline int read_flag_p(const unsigned char* p) { return p ? *(volatile const unsigned char*)p : 0; }
    static inline int ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int read_flag_p(const uint8_t* p) nogil
    int ctz64(uint64_t x) nogil

cdef enum:
    CHECK_EVERY = 4096
    STOP_DEADLINE = 1
    STOP_NODES = 2
    STOP_CANCELLED = 3
    ERR_MEMORY = -1
    TOO_MANY = -2

cdef int DEBUG = 0
cdef int LAGRANGE_ITERATIONS = 100
cdef int64_t PRICED_ROUTES = 8192
cdef int64_t DIVE_NODES = 20000  # the nested search's first answers, before listing routes
cdef int64_t MAX_ROUTES = 300000  # over all lists; past this the nested search is faster


cdef struct Routes:
    # one train's listed routes; sorted richest first once complete
    int64_t n
    int64_t cap
    int64_t* val
    int64_t* red        # reduced value: val less the prices of its track (the order of the list)
    uint64_t* res       # n * n_words: track used
    int64_t* off        # into pool: the route's stops, then its segments
    int32_t* nstops
    int32_t* pool
    int64_t pool_n
    int64_t pool_cap


cdef struct Pack:
    Ctx* c
    int K
    int W               # words of a track bitset
    Routes* lists       # per group of identical trains
    int* list_of        # per level: index into lists
    uint64_t* used
    int64_t* chosen     # per level: route index, -1 none
    int64_t* fc         # [(K + 1) * K]: per depth, per level: first listed route free of the track in use
    int32_t* buf        # 2 * (n_stops + 1): stops and segments of the route being listed
    int64_t* lam        # [W * 64]: the price of each track bit (Lagrangian multipliers, >= 0)
    int64_t lam_total   # their sum


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline int check_limits(Ctx* c) noexcept nogil:
    if read_flag_p(c.cancel):
        c.stop_code = STOP_CANCELLED
    elif c.node_budget > 0 and c.nodes >= c.node_budget:
        c.stop_code = STOP_NODES
    elif c.deadline > 0 and now() > c.deadline:
        c.stop_code = STOP_DEADLINE
    return c.stop_code


# ---- listing one train's routes ----------------------------------------------------------------

cdef int grow(Routes* R, int W, int64_t need_pool) noexcept nogil:
    cdef int64_t cap
    cdef void* p
    if R.n == R.cap:
        cap = R.cap * 2 if R.cap else 1024
        p = realloc(R.val, cap * sizeof(int64_t))
        if p == NULL:
            return ERR_MEMORY
        R.val = <int64_t*>p
        p = realloc(R.off, cap * sizeof(int64_t))
        if p == NULL:
            return ERR_MEMORY
        R.off = <int64_t*>p
        p = realloc(R.nstops, cap * sizeof(int32_t))
        if p == NULL:
            return ERR_MEMORY
        R.nstops = <int32_t*>p
        p = realloc(R.res, cap * W * sizeof(uint64_t))
        if p == NULL:
            return ERR_MEMORY
        R.res = <uint64_t*>p
        R.cap = cap
    if R.pool_n + need_pool > R.pool_cap:
        cap = R.pool_cap * 2 if R.pool_cap else 16384
        while cap < R.pool_n + need_pool:
            cap *= 2
        p = realloc(R.pool, cap * sizeof(int32_t))
        if p == NULL:
            return ERR_MEMORY
        R.pool = <int32_t*>p
        R.pool_cap = cap
    return 0


cdef void free_routes(Routes* R) noexcept nogil:
    free(R.val); free(R.red); free(R.res); free(R.off); free(R.nstops); free(R.pool)
    memset(R, 0, sizeof(Routes))


cdef int add_route(Pack* p, Routes* R, Level* L, int64_t value) noexcept nogil:
    """Append the level's current route (its track is all of ``c.used``: only it is placed)."""
    cdef Ctx* c = p.c
    cdef int n, k, m
    cdef int64_t at
    n = route_stops(c, L, p.buf)
    if grow(R, p.W, 2 * n) != 0:
        return ERR_MEMORY
    at = R.pool_n
    for k in range(n):
        R.pool[at + k] = p.buf[k]
    m = n
    if L.phase == 2:
        k = L.h2
        while k >= 1:
            R.pool[at + m] = c.adj_seg[L.dseg2[k]]
            m += 1
            k -= 1
    for k in range(1, L.h1 + 1):
        R.pool[at + m] = c.adj_seg[L.dseg1[k]]
        m += 1
    R.pool_n = at + m
    R.val[R.n] = value
    R.off[R.n] = at
    R.nstops[R.n] = n
    memcpy(R.res + R.n * p.W, c.used, p.W * sizeof(uint64_t))
    R.n += 1
    return 0


cdef int list_routes(Pack* p, int li, int64_t tau, Routes* R, int64_t* total) noexcept nogil:
    """Every route of level li's train worth at least tau. 0, a stop code > 0, or an error < 0."""
    cdef Ctx* c = p.c
    cdef Level* L = &c.levels[li]
    cdef int r, err
    c.lo = li
    c.hi = li + 1
    c.use_pullman = 0
    c.cur_best = tau - 1
    init_level(c, li, 0, 0)
    while True:
        r = next_route(c, li)
        if r < 0:
            if L.phase != 0:  # release the track of the route in hand
                memset(c.used, 0, p.W * sizeof(uint64_t))
            return c.stop_code
        if r == 0:
            return 0
        if price_route(c, L) >= tau:
            err = add_route(p, R, L, L.rev)
            if err:
                return err
            total[0] += 1
            if total[0] > MAX_ROUTES:
                memset(c.used, 0, p.W * sizeof(uint64_t))
                return TOO_MANY


cdef int by_value(const void* a, const void* b) noexcept nogil:
    cdef const int64_t* x = <const int64_t*>a
    cdef const int64_t* y = <const int64_t*>b
    if x[0] != y[0]:
        return -1 if x[0] > y[0] else 1
    return -1 if x[1] < y[1] else (1 if x[1] > y[1] else 0)


cdef int sort_routes(Routes* R, int W) noexcept nogil:
    """By reduced value, richest first (ties: by value, then listing order, so every run agrees)."""
    cdef int64_t i, j
    cdef int64_t* keys = <int64_t*>malloc((3 * R.n + 1) * sizeof(int64_t))
    cdef int64_t* val = <int64_t*>malloc((R.n + 1) * sizeof(int64_t))
    cdef int64_t* red = <int64_t*>malloc((R.n + 1) * sizeof(int64_t))
    cdef int64_t* off = <int64_t*>malloc((R.n + 1) * sizeof(int64_t))
    cdef int32_t* ns = <int32_t*>malloc((R.n + 1) * sizeof(int32_t))
    cdef uint64_t* res = <uint64_t*>malloc((R.n * W + 1) * sizeof(uint64_t))
    if not (keys and val and red and off and ns and res):
        free(keys); free(val); free(red); free(off); free(ns); free(res)
        return ERR_MEMORY
    for i in range(R.n):
        keys[3 * i] = R.red[i] if R.red else R.val[i]
        keys[3 * i + 1] = R.val[i]
        keys[3 * i + 2] = i
    qsort(keys, R.n, 3 * sizeof(int64_t), by_key)
    for i in range(R.n):
        j = keys[3 * i + 2]
        val[i] = R.val[j]
        red[i] = keys[3 * i]
        off[i] = R.off[j]
        ns[i] = R.nstops[j]
        memcpy(res + i * W, R.res + j * W, W * sizeof(uint64_t))
    free(keys); free(R.val); free(R.red); free(R.off); free(R.nstops); free(R.res)
    R.val = val
    R.red = red
    R.off = off
    R.nstops = ns
    R.res = res
    R.cap = R.n
    return 0


cdef int by_key(const void* a, const void* b) noexcept nogil:
    cdef const int64_t* x = <const int64_t*>a
    cdef const int64_t* y = <const int64_t*>b
    if x[0] != y[0]:
        return -1 if x[0] > y[0] else 1
    if x[1] != y[1]:
        return -1 if x[1] > y[1] else 1
    return -1 if x[2] < y[2] else (1 if x[2] > y[2] else 0)


# ---- prices on contested track (a Lagrangian relaxation) ----------------------------------------

cdef inline double price_d(const uint64_t* r, const double* lam, int W) noexcept nogil:
    cdef double s = 0
    cdef uint64_t x
    cdef int w
    for w in range(W):
        x = r[w]
        while x:
            s += lam[w * 64 + ctz64(x)]
            x &= x - 1
    return s


cdef inline int64_t price_i(const uint64_t* r, const int64_t* lam, int W) noexcept nogil:
    cdef int64_t s = 0
    cdef uint64_t x
    cdef int w
    for w in range(W):
        x = r[w]
        while x:
            s += lam[w * 64 + ctz64(x)]
            x &= x - 1
    return s


cdef int price_track(Pack* p, int iterations) noexcept nogil:
    """Prices on track bits such that the best route of every train alone at those prices, plus
    the prices of all track, bounds the packing from above (any prices >= 0 do; subgradient steps
    make the bound tight). Then every list is ordered by its routes' reduced values."""
    cdef Ctx* c = p.c
    cdef int K = p.K, W = p.W, nb = p.W * 64, it, j, b, g, stall = 0, w
    cdef int64_t i, arg
    cdef double ub, best_ub = 1e300, lb = <double>c.best_value, theta = 1.0, norm, step, top, v, gb
    cdef double* lam = <double*>calloc(nb, sizeof(double))
    cdef double* keep = <double*>calloc(nb, sizeof(double))
    cdef int* cnt = <int*>calloc(nb, sizeof(int))
    cdef int64_t* best_of = <int64_t*>calloc(K, sizeof(int64_t))
    cdef Routes* R
    cdef uint64_t x
    if not (lam and keep and cnt and best_of):
        free(lam); free(keep); free(cnt); free(best_of)
        return ERR_MEMORY
    for it in range(iterations):
        ub = 0
        for b in range(nb):
            ub += lam[b]
            cnt[b] = 0
        for j in range(K):
            R = &p.lists[p.list_of[j]]
            if j > 0 and p.list_of[j] == p.list_of[j - 1]:
                arg = best_of[j - 1]
            else:
                arg = -1
                top = 0
                i = 0
                # sorted by value: no later route can do better; the prices are a heuristic (any
                # prices give a valid bound), so the richest PRICED_ROUTES routes are enough
                while i < R.n and i < PRICED_ROUTES and R.val[i] > top:
                    v = R.val[i] - price_d(R.res + i * W, lam, W)
                    if v > top:
                        top = v
                        arg = i
                    i += 1
            best_of[j] = arg
            if arg >= 0:
                ub += R.val[arg] - price_d(R.res + arg * W, lam, W)
                for w in range(W):
                    x = R.res[arg * W + w]
                    while x:
                        cnt[w * 64 + ctz64(x)] += 1
                        x &= x - 1
        if ub < best_ub - 1e-9:
            best_ub = ub
            memcpy(keep, lam, nb * sizeof(double))
            stall = 0
        else:
            stall += 1
            if stall >= 4:
                theta *= 0.5
                stall = 0
        if best_ub - lb < 1 or theta < 1e-3:
            break
        norm = 0
        for b in range(nb):
            gb = 1 - cnt[b]
            if not (lam[b] <= 0 and gb > 0):
                norm += gb * gb
        if norm == 0:
            break
        step = theta * (ub - lb) / norm
        for b in range(nb):
            lam[b] -= step * (1 - cnt[b])
            if lam[b] < 0:
                lam[b] = 0
    p.lam_total = 0
    for b in range(nb):
        p.lam[b] = <int64_t>keep[b]  # whole prices: the bound is then exact integer arithmetic
        p.lam_total += p.lam[b]
    free(lam); free(keep); free(cnt); free(best_of)
    for g in range(K):
        R = &p.lists[g]
        if R.n == 0 or (g > 0 and R == &p.lists[g - 1]):
            continue
        for i in range(R.n):
            R.red[i] = R.val[i] - price_i(R.res + i * W, p.lam, W)
        if sort_routes(R, W):
            return ERR_MEMORY
    return 0


# ---- the packing -------------------------------------------------------------------------------

cdef inline int clash(const uint64_t* a, const uint64_t* b, int W) noexcept nogil:
    cdef int w
    for w in range(W):
        if a[w] & b[w]:
            return 1
    return 0


cdef void record_packing(Pack* p, int64_t value) noexcept nogil:
    """Keep the chosen routes as the best solution (as ``record`` does for the nested search)."""
    cdef Ctx* c = p.c
    cdef int li, k, n, bl
    cdef int64_t i
    cdef Routes* R
    cdef int32_t* stops
    cdef int32_t* segs
    cdef int32_t* paid
    c.best_value = value
    for li in range(p.K):
        c.best_len[li] = 0
        c.best_rev[li] = 0
        c.best_npaid[li] = 0
        i = p.chosen[li]
        if i < 0:
            continue
        R = &p.lists[p.list_of[li]]
        n = R.nstops[i]
        stops = c.best_stops + <int64_t>li * (c.n_stops + 1)
        segs = c.best_segs + <int64_t>li * (c.n_stops + 1)
        paid = c.best_paid + <int64_t>li * (c.n_stops + 1)
        for k in range(n):
            stops[k] = R.pool[R.off[i] + k]
        for k in range(n - 1):
            segs[k] = R.pool[R.off[i] + n + k]
        c.best_len[li] = n
        c.best_rev[li] = R.val[i]
        if c.pays_all[c.order[li]]:
            for k in range(n):
                paid[k] = stops[k]
            c.best_npaid[li] = n
        else:
            price_express(c, c.order[li], stops, n, &bl, paid, &c.best_npaid[li])
    c.improved = 1
    if c.on_improve != NULL:
        with gil:
            try:
                (<object>c.on_improve)(value, _best_lists(c), proven_bound(c), c.nodes)
            except BaseException:
                pass


cdef inline int64_t top_free(Pack* p, int depth, int j) noexcept nogil:
    """Reduced value of level j's best listed route free of the track in use (0: none, or only
    routes worth less than running nothing at these prices)."""
    cdef Routes* R = &p.lists[p.list_of[j]]
    cdef int64_t i = p.fc[depth * p.K + j]
    return R.red[i] if i < R.n and R.red[i] > 0 else 0


cdef void first_free(Pack* p, int depth, int j) noexcept nogil:
    """Move level j's first free route at this depth down from the parent's."""
    cdef Routes* R = &p.lists[p.list_of[j]]
    cdef int64_t i = p.fc[(depth - 1) * p.K + j] if depth > 0 else 0
    cdef int W = p.W
    while i < R.n and clash(R.res + i * W, p.used, W):
        i += 1
    p.fc[depth * p.K + j] = i


cdef int dfs(Pack* p, int k, int64_t base, int64_t free_price) noexcept nogil:
    """Place levels k.. given the track in use, whose free track is priced ``free_price`` in all.

    Bound: revenue placed + prices of the free track + each later train's best reduced value on
    it (the Lagrangian relaxation of "no track twice"; with all prices 0, each train's best free
    route). 0, or a stop code.
    """
    cdef Ctx* c = p.c
    cdef int K = p.K, W = p.W, j, w, same
    cdef int64_t rest = 0, i, start
    cdef Routes* R
    cdef const uint64_t* r
    if k == K:
        if base > c.best_value:
            record_packing(p, base)
        return 0
    for j in range(k, K):
        first_free(p, k, j)
        if j > k:
            rest += top_free(p, k, j)
    rest += free_price
    if base + top_free(p, k, k) + rest <= c.best_value:
        return 0
    R = &p.lists[p.list_of[k]]
    same = k > 0 and c.group[c.order[k]] == c.group[c.order[k - 1]]
    start = p.fc[k * K + k]
    if same:
        if p.chosen[k - 1] < 0:
            p.chosen[k] = -1
            return dfs(p, k + 1, base, free_price)  # identical trains: one runs nothing, all later ones too
        if p.chosen[k - 1] + 1 > start:
            start = p.chosen[k - 1] + 1
    i = start
    while i < R.n:
        if base + R.red[i] + rest <= c.best_value:
            break
        r = R.res + i * W
        if clash(r, p.used, W):
            i += 1
            continue
        c.nodes += 1
        if c.nodes % CHECK_EVERY == 0 and check_limits(c):
            return c.stop_code
        if k == 0:  # every first route before this one is done: none of the rest beats this
            lower_bound_to(c, R.red[i] + rest)
        for w in range(W):
            p.used[w] |= r[w]
        p.chosen[k] = i
        j = dfs(p, k + 1, base + R.val[i], free_price - (R.val[i] - R.red[i]))
        for w in range(W):
            p.used[w] ^= r[w]
        if j:
            return j
        i += 1
    p.chosen[k] = -1
    if k == 0:
        lower_bound_to(c, rest)
    if base + rest > c.best_value:
        return dfs(p, k + 1, base, free_price)
    return 0


cdef inline void lower_bound_to(Ctx* c, int64_t b) noexcept nogil:
    if c.bound < 0 or b < c.bound:
        c.bound = b if b > c.best_value else c.best_value


cdef int dive(Ctx* c, int64_t nodes) noexcept nogil:
    """A good answer early (the nested search over all trains for a few nodes): the better the
    answer known, the fewer routes are worth listing. Returns a stop code of the caller's limits."""
    cdef int64_t budget = c.node_budget
    cdef int li
    c.suffix[c.n_trains] = 0
    li = c.n_trains - 1
    while li >= 0:  # what the later trains can add: each one's best alone
        c.suffix[li] = c.suffix[li + 1] + c.opt_alone[li]
        li -= 1
    if budget <= 0 or c.nodes + nodes < budget:
        c.node_budget = c.nodes + nodes
    solve(c, 0, c.n_trains, c.best_value, 0)
    c.node_budget = budget
    if c.stop_code == STOP_NODES and not (budget > 0 and c.nodes >= budget):
        c.stop_code = 0
    return c.stop_code


cdef int64_t root_bound(Pack* p) noexcept nogil:
    cdef int j
    cdef int64_t b = p.lam_total
    for j in range(p.K):
        first_free(p, 0, j)
        b += top_free(p, 0, j)
    return b


# ---- the kernel ----------------------------------------------------------------------------------

cdef int pack_run(Ctx* c) noexcept nogil:
    """Each train alone (proving its best), then list the routes and pack them."""
    cdef int K = c.n_trains, li, j, g, code = 0
    cdef int64_t v, others, tau, total = 0
    cdef int64_t* tau_of
    cdef Pack p
    cdef double t0 = now()
    if K == 0:
        return 0
    if c.pullman_cap > 0:
        return run(c)  # the Pullman's bonus spans trains: the nested search prices it
    for li in range(K):
        if li > 0 and c.group[c.order[li]] == c.group[c.order[li - 1]]:
            c.opt_alone[li] = c.opt_alone[li - 1]
            continue
        v = solve(c, li, li + 1, 0, 0)
        if v < 0:
            return c.stop_code
        c.opt_alone[li] = v
    c.stage = 1
    if K > 1 and dive(c, DIVE_NODES):
        return c.stop_code
    if K == 1:
        c.stage = 2
        c.suffix[0] = c.opt_alone[0]
        c.bound = c.best_value
        return 0

    memset(&p, 0, sizeof(Pack))
    p.c = c
    p.K = K
    p.W = c.n_words
    p.lists = <Routes*>calloc(K, sizeof(Routes))
    p.list_of = <int*>calloc(K, sizeof(int))
    p.used = c.used
    p.chosen = <int64_t*>calloc(K, sizeof(int64_t))
    p.fc = <int64_t*>calloc((K + 1) * K, sizeof(int64_t))
    p.buf = <int32_t*>calloc(2 * (c.n_stops + 1), sizeof(int32_t))
    p.lam = <int64_t*>calloc(p.W * 64, sizeof(int64_t))
    tau_of = <int64_t*>calloc(K, sizeof(int64_t))
    if not (p.lists and p.list_of and p.chosen and p.fc and p.buf and p.lam and tau_of):
        code = ERR_MEMORY
    else:
        # one list per group of identical trains, deep enough for its poorest level
        g = -1
        for li in range(K):
            others = 0
            for j in range(K):
                if j != li:
                    others += c.opt_alone[j]
            tau = c.best_value - others + 1
            tau_of[li] = tau if tau > 1 else 1
            if li == 0 or c.group[c.order[li]] != c.group[c.order[li - 1]]:
                g += 1
            p.list_of[li] = g
        for li in range(K):
            if li > 0 and p.list_of[li] == p.list_of[li - 1]:
                continue
            tau = tau_of[li]
            j = li + 1
            while j < K and p.list_of[j] == p.list_of[li]:
                if tau_of[j] < tau:
                    tau = tau_of[j]
                j += 1
            code = list_routes(&p, li, tau, &p.lists[p.list_of[li]], &total)
            if code:
                break
            code = sort_routes(&p.lists[p.list_of[li]], p.W)
            if code:
                break
        if DEBUG:
            for li in range(K):
                printf("level %d tau %lld routes %lld  t=%.1fms nodes %lld best %lld\n", li, tau_of[li], p.lists[p.list_of[li]].n, (now() - t0) * 1000, c.nodes, c.best_value)
        if code == 0 and LAGRANGE_ITERATIONS > 0:
            code = price_track(&p, LAGRANGE_ITERATIONS)
            if DEBUG:
                printf("priced t=%.1fms root bound %lld\n", (now() - t0) * 1000, root_bound(&p))
        if code == 0:
            code = dfs(&p, 0, 0, p.lam_total)
            if DEBUG:
                printf("dfs done t=%.1fms nodes %lld\n", (now() - t0) * 1000, c.nodes)
            if code == 0:
                c.stage = 2
                c.suffix[0] = c.best_value
                c.bound = c.best_value
    for li in range(K):
        if p.lists:
            free_routes(&p.lists[li])
    free(p.lists); free(p.list_of); free(p.chosen); free(p.fc); free(p.buf); free(p.lam); free(tau_of)
    if code < 0:  # too many routes, or no memory for them: the nested search needs neither
        c.bound = -1
        c.stage = 0
        return run(c)
    return code


KERNEL = PyCapsule_New(<void*>pack_run, b"route18xx.kernel", NULL)
