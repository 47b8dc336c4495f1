# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Route listing plus packing: the kernel for many long trains on dense boards.

After each train alone (its best, proven) and a short dive of the nested search (a good first
answer), each train's routes that could belong to a better answer are listed once -- walked by
the nested search's own ``next_route``, so legality and revenue are the same code -- with their
track as a bitset. A route worth less than the best answer known minus the best every other
train can earn alone cannot be part of a better answer, nor can one whose one-segment-shorter
prefix earns as much; neither is listed. Of routes on the same track only the richest is kept:
a packing only asks which track a route uses. Past ``MAX_ROUTES`` routes for a train (a full map with
a D train; ``MAX_ROUTES_MANY`` from three trains on) the kernel hands over to the nested search's
later rounds.

The answer is a packing: one route (or none) per train, pairwise track-disjoint, by branch and
bound where a conflict is an AND of a few words. The bound sees the conflict between trains: every
track bit gets a price (subgradient steps on the Lagrangian relaxation of "no track twice"), each
route is charged the prices of its track and the free track's prices are paid back, so the bound
at a node is the revenue placed + the prices of the free track + each later train's best reduced
route free of the track in use. Lists are kept in reduced order, so that route is the first free
one, searched from where the parent node left it. Below the root only the free track a later route
can still use is paid back (that of segments with no track in use): placed routes cut the rest
off, and its prices would only loosen the bound. Nodes are remembered by level and track in use
(trains of different kinds swapping routes reach the same node), and in a long search by the
free track later routes can use, which decides all they can add (routes placed above that differ
only in track cut off from the rest then meet too). In a long search (``MU_AFTER`` nodes) the
levels below the root get a second set of prices, tuned for them alone (as if level 0 did not
exist), and each of their lists a second order by those prices with its own first free route per
depth: below the root a node is cut by the smaller of the two bounds.
"""
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.math cimport floor
from libc.string cimport memcpy, memset
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from ._pricing cimport price_route, route_stops
from ._search cimport (Kernel, best_segs, best_stops, call_improve, check_limits, clear_best, init_level,
                       keep_route, next_route, run, solve)
from ._state cimport ERR_MEMORY, STOP_NODES, Ctx, Level, same_train_as_above

cdef extern from *:
    """
    static inline int ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int popcount64(unsigned long long x) { return __builtin_popcountll(x); }
    """
    int ctz64(uint64_t x) nogil
    int popcount64(uint64_t x) nogil

cdef enum:
    CHECK_EVERY = 512  # packing nodes between looks at the limits (a node can take microseconds)
    TOO_MANY = -2

cdef int TABLE_WORDS = 4  # track bitsets this short are priced by byte tables while pricing
cdef int BY_ONE = 8  # routes scanned one by one before the index
cdef int64_t MEMO_SIZE = 1 << 18  # remembered dfs nodes (a power of two)
cdef int64_t MEMO_GROWN = 1 << 20  # the memo grown (at most MEMO_BYTES) in a long search
cdef int64_t MEMO_BYTES = 64 << 20
cdef int REFERENCE_DEPTH = 4  # a reference order is renewed when a step reads more than 1/4 of its list
# The settings a search may change (Packing's keyword arguments): see _packing.pxd.


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
    int64_t* mred       # reduced values at the later levels' prices, in their order (once priced)
    uint64_t* mres      # the tracks in that order
    int64_t* mpr        # per route (in the list's order): the price of its track at those prices
    uint64_t* by_word   # [ceil(n / 64) * W * 64]: per 64 routes, per track bit, those using it (or NULL)
    uint64_t* mby_word  # the same for mres


cdef struct Pack:
    Ctx* c
    const Settings* s   # the search's settings
    int K
    int W               # words of a track bitset
    Routes* lists       # per group of identical trains
    int* list_of        # per level: index into lists
    uint64_t* used
    int64_t* chosen     # per level: route index, -1 none
    int64_t* fc         # [(K + 1) * K]: per depth, per level: first listed route free of the track in use
    int32_t* buf        # 2 * (n_stops + 1): stops and segments of the route being listed
    int64_t memo_size   # remembered nodes (a power of two: MEMO_SIZE, then MEMO_GROWN)
    int64_t memo_grow_at  # at this many nodes the memo grows, and keys on the usable track from then on
    int32_t* memo_k     # [memo_size]: the level of a remembered node (-1: empty)
    uint64_t* memo_key  # [memo_size * W]: the free track its later routes can use
    uint64_t* keys      # [(K + 1) * W]: per depth, that track at the node in hand (its memo key)
    int64_t* memo_val   # [memo_size]: what the levels from there can add at most
    int64_t* vstack     # 2 * (n_stops + 1): values along the route being listed
    int64_t* lam        # [W * 64]: the price of each track bit (Lagrangian multipliers, >= 0)
    int64_t lam_total   # their sum
    uint64_t* mask      # [W]: scratch
    uint32_t* seen_at   # [n_stops]: the walk that reached each stop last (usable_mask)
    uint32_t stamp      # the walk in hand
    int32_t* token_stops  # the stops that hold a token, where the walk starts
    int n_token_stops
    uint64_t* dir_bits  # [n_dirs * W]: each dir's track (its segment's), in dir order
    int32_t* queue      # [n_stops]: scratch
    uint8_t* token_from  # [K + 1]: every train from this level on needs a token
    int64_t reach_at    # from this many nodes on, the usable track is what a token reaches
    int64_t* mu         # [W * 64]: prices tuned for levels 1.. alone (once mu_on)
    int64_t mu_total
    int64_t mu_at       # at this many nodes the later levels are priced (-1: never)
    int mu_on
    int64_t* mfc        # [(K + 1) * K]: as fc, in the order of the later levels' prices


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
    free(R.val)
    free(R.red)
    free(R.res)
    free(R.off)
    free(R.nstops)
    free(R.pool)
    free(R.mred)
    free(R.mres)
    free(R.mpr)
    free(R.by_word)
    free(R.mby_word)
    memset(R, 0, sizeof(Routes))


cdef int add_route(Pack* p, Routes* R, Level* L, int64_t value) noexcept nogil:
    """Append the level's current route (its track is all of ``c.work.used``: only it is placed)."""
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
        k = L.half[1].h
        while k >= 1:
            R.pool[at + m] = c.inp.seg_by_dir[L.half[1].dseg[k]]
            m += 1
            k -= 1
    for k in range(1, L.half[0].h + 1):
        R.pool[at + m] = c.inp.seg_by_dir[L.half[0].dseg[k]]
        m += 1
    R.pool_n = at + m
    R.val[R.n] = value
    R.off[R.n] = at
    R.nstops[R.n] = n
    memcpy(R.res + R.n * p.W, c.work.used, p.W * sizeof(uint64_t))
    R.n += 1
    return 0


cdef int list_routes(Pack* p, int li, int64_t tau, Routes* R, int64_t cap) noexcept nogil:
    """Every route of level li's train worth at least tau. 0, a stop code > 0, or an error < 0
    (TOO_MANY: more than ``cap`` of them)."""
    cdef Ctx* c = p.c
    cdef Level* L = &c.work.levels[li]
    cdef int r, err
    cdef int64_t v, parent
    cdef int64_t* v1 = p.vstack                 # value of the route ending at each frame of half 1
    cdef int64_t* v2 = p.vstack + c.inp.n_stops + 1  # and of half 2
    c.run.lo = li
    c.run.hi = li + 1
    c.run.use_pullman = 0
    c.run.cur_best = tau - 1
    init_level(c, li, 0, 0, NULL, 0)
    while True:
        r = next_route(c, li)
        if r < 0:
            memset(c.work.used, 0, p.W * sizeof(uint64_t))  # release the track of the route in hand
            return c.lim.stop_code
        if r == 0:
            return 0
        v = price_route(c, L)
        # The route one segment shorter is a route too, on a subset of this one's track: if it
        # earns as much, this one is never needed (an express past its paid stops, a worthless end).
        if L.phase == 1:
            v1[L.half[0].h] = v
            parent = v1[L.half[0].h - 1] if L.half[0].h > 1 else -1
        else:
            v2[L.half[1].h] = v
            parent = v2[L.half[1].h - 1] if L.half[1].h > 1 else v1[L.half[0].h]
        if v >= tau and v > parent:
            err = add_route(p, R, L, v)
            if err:
                return err
            if R.n > cap:
                memset(c.work.used, 0, p.W * sizeof(uint64_t))
                return TOO_MANY


cdef inline uint64_t track_hash(const uint64_t* r, int W, uint64_t seed=1) noexcept nogil:
    """A hash of a track bitset (``seed`` tells tables keyed by more than the track apart)."""
    cdef uint64_t h = seed * 0x9E3779B97F4A7C15ULL
    cdef int w
    for w in range(W):
        h = (h ^ r[w]) * 0xBF58476D1CE4E5B9ULL
        h ^= h >> 31
    return h


cdef int64_t* track_table(Routes* R, int W, int64_t* size) noexcept nogil:
    """An empty open-addressing table (-1 everywhere) for the tracks of R's routes."""
    cdef int64_t* table
    size[0] = 1
    while size[0] < 2 * R.n:
        size[0] *= 2
    table = <int64_t*>malloc(size[0] * sizeof(int64_t))
    if table != NULL:
        memset(table, 0xff, size[0] * sizeof(int64_t))
    return table


cdef inline int64_t* track_slot(int64_t* table, int64_t size, const Routes* R, const uint64_t* r, int W) noexcept nogil:
    """The slot of the route on exactly this track, or the empty slot where it would go."""
    cdef int64_t slot = <int64_t>(track_hash(r, W) & <uint64_t>(size - 1))
    while table[slot] >= 0 and differs(R.res + table[slot] * W, r, W):
        slot = (slot + 1) & (size - 1)
    return table + slot


cdef void keep_only(Routes* R, int W, const uint8_t* keep) noexcept nogil:
    """Drop the routes not kept, in place, in order (their stops stay in the pool, unused)."""
    cdef int64_t i, m = 0
    for i in range(R.n):
        if keep[i]:
            R.val[m] = R.val[i]
            R.off[m] = R.off[i]
            R.nstops[m] = R.nstops[i]
            if m != i:
                memcpy(R.res + m * W, R.res + i * W, W * sizeof(uint64_t))
            m += 1
    R.n = m


cdef int keep_richest_per_track(Routes* R, int W) noexcept nogil:
    """Of the routes on the same track keep the richest (the first listed on a tie): a packing
    only asks which track a route uses. A third of the routes of seed 5's D train go."""
    cdef int64_t size, i
    cdef int64_t* slot
    cdef int64_t* table = track_table(R, W, &size)
    cdef uint8_t* keep = <uint8_t*>malloc(R.n + 1)
    if table == NULL or keep == NULL:
        free(table)
        free(keep)
        return ERR_MEMORY
    for i in range(R.n):
        slot = track_slot(table, size, R, R.res + i * W, W)
        keep[i] = slot[0] < 0 or R.val[i] > R.val[slot[0]]
        if keep[i]:
            if slot[0] >= 0:
                keep[slot[0]] = 0
            slot[0] = i
    keep_only(R, W, keep)
    free(table)
    free(keep)
    return 0


cdef inline uint64_t falling(int64_t x) noexcept nogil:
    """A key that sorts upward as x sorts downward."""
    return ~(<uint64_t>x ^ (<uint64_t>1 << 63))


cdef inline uint64_t falling_d(double x) noexcept nogil:
    """The same for a double (its bits, ordered as the numbers are, then reversed)."""
    cdef uint64_t u
    memcpy(&u, &x, sizeof(uint64_t))
    u = ~u if u >> 63 else u | (<uint64_t>1 << 63)
    return ~u


cdef int radix_sort(int64_t n, uint64_t* key, int64_t* idx) noexcept nogil:
    """The pairs (key[q], idx[q]) by key upward, stably: a byte a pass, from the lowest (a pass
    where every key has the same byte is skipped). Sorting is a large part of pricing long lists,
    and a comparison sort through a callback was several times slower. 0, or ERR_MEMORY."""
    cdef uint64_t* k2 = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
    cdef int64_t* i2 = <int64_t*>malloc((n + 1) * sizeof(int64_t))
    cdef uint64_t* ka = key
    cdef uint64_t* kb = k2
    cdef uint64_t* kt
    cdef int64_t* ia = idx
    cdef int64_t* ib = i2
    cdef int64_t* it
    cdef int64_t count[256]
    cdef int64_t q, at, m
    cdef int shift, x
    if k2 == NULL or i2 == NULL:
        free(k2)
        free(i2)
        return ERR_MEMORY
    for shift in range(0, 64, 8):
        memset(count, 0, sizeof(count))
        for q in range(n):
            count[(ka[q] >> shift) & 255] += 1
        if n == 0 or count[(ka[0] >> shift) & 255] == n:
            continue
        at = 0
        for x in range(256):
            m = count[x]
            count[x] = at
            at += m
        for q in range(n):
            x = (ka[q] >> shift) & 255
            kb[count[x]] = ka[q]
            ib[count[x]] = ia[q]
            count[x] += 1
        kt = ka
        ka = kb
        kb = kt
        it = ia
        ia = ib
        ib = it
    if ka != key:
        memcpy(key, ka, n * sizeof(uint64_t))
        memcpy(idx, ia, n * sizeof(int64_t))
    free(k2)
    free(i2)
    return 0


cdef int64_t* ranked(int64_t n, const int64_t* first, const int64_t* second) noexcept nogil:
    """(first[i], second[i] or 0, i) for i < n, largest first (ties: by second, then i, so every
    run agrees): the caller reads the order at [3 * rank + 2] and frees it. NULL: no memory."""
    cdef int64_t i, q
    cdef int code = 0
    cdef int64_t* keys = <int64_t*>malloc((3 * n + 1) * sizeof(int64_t))
    cdef uint64_t* key = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
    cdef int64_t* idx = <int64_t*>malloc((n + 1) * sizeof(int64_t))
    if keys == NULL or key == NULL or idx == NULL:
        free(keys)
        free(key)
        free(idx)
        return NULL
    for i in range(n):  # stable sorts, the first key last: ties keep the order before
        idx[i] = i
        key[i] = falling(second[i]) if second != NULL else 0
    if second != NULL:
        code = radix_sort(n, key, idx)
    if code == 0:
        for q in range(n):
            key[q] = falling(first[idx[q]])
        code = radix_sort(n, key, idx)
    if code:
        free(keys)
        free(key)
        free(idx)
        return NULL
    for q in range(n):
        i = idx[q]
        keys[3 * q] = first[i]
        keys[3 * q + 1] = second[i] if second != NULL else 0
        keys[3 * q + 2] = i
    free(key)
    free(idx)
    return keys


cdef int sort_routes(Routes* R, int W) noexcept nogil:
    """By reduced value, richest first (ties: by value, then listing order, so every run agrees)."""
    cdef int64_t i, j
    cdef int64_t* keys = ranked(R.n, R.red if R.red else R.val, R.val)
    cdef int64_t* val = <int64_t*>malloc((R.n + 1) * sizeof(int64_t))
    cdef int64_t* red = <int64_t*>malloc((R.n + 1) * sizeof(int64_t))
    cdef int64_t* off = <int64_t*>malloc((R.n + 1) * sizeof(int64_t))
    cdef int32_t* ns = <int32_t*>malloc((R.n + 1) * sizeof(int32_t))
    cdef uint64_t* res = <uint64_t*>malloc((R.n * W + 1) * sizeof(uint64_t))
    if not (keys and val and red and off and ns and res):
        free(keys)
        free(val)
        free(red)
        free(off)
        free(ns)
        free(res)
        return ERR_MEMORY
    for i in range(R.n):
        j = keys[3 * i + 2]
        val[i] = R.val[j]
        red[i] = keys[3 * i]
        off[i] = R.off[j]
        ns[i] = R.nstops[j]
        memcpy(res + i * W, R.res + j * W, W * sizeof(uint64_t))
    free(keys)
    free(R.val)
    free(R.red)
    free(R.off)
    free(R.nstops)
    free(R.res)
    R.val = val
    R.red = red
    R.off = off
    R.nstops = ns
    R.res = res
    R.cap = R.n
    return 0


# ---- prices on contested track (a Lagrangian relaxation) ----------------------------------------

cdef inline double price_d(const uint16_t* bits, int n, const double* lam) noexcept nogil:
    cdef double s = 0
    cdef int k
    for k in range(n):
        s += lam[bits[k]]
    return s


cdef inline double price_tab(const uint8_t* r, const double* tab, int n_bytes) noexcept nogil:
    """A track bitset's price from per-byte tables (tab[k * 256 + x]: the prices of the bits x
    sets in byte k): a fixed number of loads, faster than walking the bits of short bitsets."""
    cdef double s = 0
    cdef int k
    for k in range(n_bytes):
        s += tab[k * 256 + r[k]]
    return s


cdef void fill_tables(double* tab, const double* lam, int n_bytes) noexcept nogil:
    cdef int k, x
    for k in range(n_bytes):
        tab[k * 256] = 0
        for x in range(1, 256):
            tab[k * 256 + x] = tab[k * 256 + (x & (x - 1))] + lam[k * 8 + ctz64(x)]


cdef inline double priced(const Routes* R, int64_t i, int W, const double* tab, const uint16_t* bits,
                          const int64_t* bp, const double* lam) noexcept nogil:
    """Route i's price: by byte tables where pricing made them, else by its bits' indexes."""
    if tab != NULL:
        return price_tab(<const uint8_t*>(R.res + i * W), tab, 8 * W)
    return price_d(bits + bp[i], <int>(bp[i + 1] - bp[i]), lam)


cdef inline int little_endian() noexcept nogil:
    cdef uint64_t one = 1
    return (<uint8_t*>&one)[0] == 1


cdef int64_t bit_lists(Pack* p, uint16_t** bits, int64_t** ptr) noexcept nogil:
    """Every listed route's track bits as indexes (all lists in a row): pricing walks them often."""
    cdef int64_t total = 0, i, at = 0
    cdef int g, w
    cdef uint64_t x
    cdef Routes* R
    for g in range(p.K):
        R = &p.lists[g]
        for i in range(R.n * p.W):
            total += popcount64(R.res[i])
    bits[0] = <uint16_t*>malloc((total + 1) * sizeof(uint16_t))
    ptr[0] = <int64_t*>malloc((p.K + 1 + sum_n(p)) * sizeof(int64_t))
    if bits[0] == NULL or ptr[0] == NULL:
        return -1
    total = 0
    for g in range(p.K):
        R = &p.lists[g]
        for i in range(R.n):
            ptr[0][at] = total
            at += 1
            for w in range(p.W):
                x = R.res[i * p.W + w]
                while x:
                    bits[0][total] = <uint16_t>(w * 64 + ctz64(x))
                    total += 1
                    x &= x - 1
    ptr[0][at] = total
    return 0


cdef int64_t sum_n(Pack* p) noexcept nogil:
    cdef int g
    cdef int64_t n = 0
    for g in range(p.K):
        n += p.lists[g].n
    return n


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
    """Prices on track bits for all levels (see price_levels), then every list in reduced order."""
    cdef int g, code
    code = price_levels(p, 0, iterations, <double>p.c.best.value, NULL, p.lam, &p.lam_total)
    if code:
        return code
    for g in range(p.K):
        code = reprice(p, &p.lists[g])
        if code:
            return code
    return 0


cdef struct Scan:
    # a list's routes in the order of their reduced values at reference prices: once the prices
    # settle, a pricing step finds a list's best route after reading a few of them
    int on              # a reference is in place
    int64_t* at         # [n]: positions in the list's value order, by reduced value at lref, richest first
    double* red         # [n]: those reduced values
    double* lref        # [nb]: the reference prices
    int most_bits       # the most track bits of a route of the list
    int64_t read        # routes read at the last step in that order


cdef int set_reference(Scan* S, const Routes* R, const int64_t* ord, int W, const double* tab, const uint16_t* bits,
                       const int64_t* bp, const double* lam, int nb) noexcept nogil:
    """The list in the order of its reduced values at these prices (the new reference)."""
    cdef int64_t q, ii
    cdef int pc, w
    cdef uint64_t* key = <uint64_t*>malloc((R.n + 1) * sizeof(uint64_t))
    cdef double* red = <double*>malloc((R.n + 1) * sizeof(double))
    if key == NULL or red == NULL:
        free(key)
        free(red)
        return ERR_MEMORY
    if S.at == NULL:
        S.at = <int64_t*>malloc((R.n + 1) * sizeof(int64_t))
        S.red = <double*>malloc((R.n + 1) * sizeof(double))
        S.lref = <double*>malloc(nb * sizeof(double))
        if S.at == NULL or S.red == NULL or S.lref == NULL:
            free(key)
            free(red)
            return ERR_MEMORY
        S.most_bits = 0
        for ii in range(R.n):
            pc = 0
            for w in range(W):
                pc += popcount64(R.res[ii * W + w])
            if pc > S.most_bits:
                S.most_bits = pc
    for q in range(R.n):
        ii = ord[q] if ord != NULL else q
        red[q] = R.val[ii] - priced(R, ii, W, tab, bits, bp, lam)
        key[q] = falling_d(red[q])
        S.at[q] = q
    if radix_sort(R.n, key, S.at):
        free(key)
        free(red)
        return ERR_MEMORY
    for q in range(R.n):
        S.red[q] = red[S.at[q]]
    memcpy(S.lref, lam, nb * sizeof(double))
    free(key)
    free(red)
    S.on = 1
    return 0


cdef int64_t best_reduced(Scan* S, const Routes* R, const int64_t* ord, int W, const double* tab,
                          const uint16_t* bits, const int64_t* bp, const double* lam, int nb,
                          double* drops, int stride) noexcept nogil:
    """The list's best route by reduced value at these prices (-1: none above 0; ties: the first
    in value order, ``ord`` or the list's own). Read in value order (no later route can do better
    once its value is below the best found), or in the reference order where there is one; with
    ``stride`` > 1 the best of every stride-th route in value order (a sample)."""
    cdef double top = 0, v
    cdef int64_t i = 0, ii, arg = -1
    if S.on:
        arg = by_reference(S, R, ord, W, tab, bits, bp, lam, nb, drops)
        if S.read * REFERENCE_DEPTH > R.n:  # the prices moved too far from the reference
            S.on = 0
        return arg
    while i < R.n:
        ii = ord[i] if ord != NULL else i
        if R.val[ii] <= top:
            break
        v = R.val[ii] - priced(R, ii, W, tab, bits, bp, lam)
        if v > top:
            top = v
            arg = ii
        i += stride
    return arg


cdef int64_t by_reference(Scan* S, const Routes* R, const int64_t* ord, int W, const double* tab,
                          const uint16_t* bits, const int64_t* bp, const double* lam, int nb,
                          double* drops) noexcept nogil:
    """best_reduced in the reference order: the same route. A route's reduced value rose since the
    reference by at most the price drops of its track bits, so at most by the sum of the largest
    ``most_bits`` drops: the read stops once that cannot reach the best found."""
    cdef double rise = 0, top = 0, v, x
    cdef int b, m = 0, k, h
    cdef int64_t q, ii, arg = -1, arg_at = -1
    for b in range(nb):
        x = S.lref[b] - lam[b]
        if x > 0:
            drops[m] = x
            m += 1
    if m <= S.most_bits:
        for k in range(m):
            rise += drops[k]
    else:  # the largest most_bits of them (a partial selection sort: a few thousand steps)
        for k in range(S.most_bits):
            h = k
            for b in range(k + 1, m):
                if drops[b] > drops[h]:
                    h = b
            x = drops[k]
            drops[k] = drops[h]
            drops[h] = x
            rise += drops[k]
    rise += 1e-6  # rounding
    q = 0
    while q < R.n:
        if S.red[q] + rise < top:
            break
        ii = ord[S.at[q]] if ord != NULL else S.at[q]
        v = R.val[ii] - priced(R, ii, W, tab, bits, bp, lam)
        if v > top or (arg >= 0 and v == top and S.at[q] < arg_at):
            top = v
            arg = ii
            arg_at = S.at[q]
        q += 1
    S.read = q
    return arg


cdef int price_levels(Pack* p, int lo, int iterations, double lb, int64_t** order, int64_t* out,
                      int64_t* out_total) noexcept nogil:
    """Prices on track bits such that the best route of every train alone at those prices, plus
    the prices of all track, bounds the packing from above (any prices >= 0 do; subgradient steps
    make the bound tight). Then every list is ordered by its routes' reduced values. Long lists of
short bitsets are priced by byte tables, refilled at each step (each route is then a fixed
number of loads; filling the tables costs about 4 000 additions). The first ``SAMPLE_STEPS``
steps read every ``SAMPLE_STRIDE``-th route of a long list (their bound is no bound, so their
prices are never the ones kept, but their direction is nearly the full list's; before, most of a
long list's reads were in these steps). After ``REFERENCE_AFTER`` steps (and the sample's) a long
list is read in the order of its reduced values at a recent step (see Scan), which finds the same
best route reading a few of them. 0, a stop code (limits are looked at every step) or an error."""
    cdef Ctx* c = p.c
    cdef int K = p.K, W = p.W, nb = p.W * 64, it, j, b, g, stall = 0, w, stride, sampled
    cdef int64_t arg
    cdef const int64_t* ord
    cdef double ub, best_ub = 1e300, sample_ub = 1e300, theta = 1.0, norm, step, gb
    cdef double* record
    cdef double* lam = <double*>calloc(nb, sizeof(double))
    cdef double* keep = <double*>calloc(nb, sizeof(double))
    cdef int* cnt = <int*>calloc(nb, sizeof(int))
    cdef int64_t* best_of = <int64_t*>calloc(K, sizeof(int64_t))
    cdef Routes* R
    cdef uint64_t x
    cdef uint16_t* bits = NULL
    cdef int64_t* ptr = NULL
    cdef int64_t* first = <int64_t*>calloc(K + 1, sizeof(int64_t))
    cdef const int64_t* bp
    cdef double* tab = NULL
    cdef int n_bytes = 8 * W, code = 0
    cdef Scan* scans = <Scan*>calloc(K, sizeof(Scan))
    cdef Scan* S
    cdef double* drops = <double*>malloc(nb * sizeof(double))
    cdef int tables = W <= TABLE_WORDS and sum_n(p) >= p.s.table_routes and little_endian()
    if tables:
        tab = <double*>malloc(n_bytes * 256 * sizeof(double))
    if not (lam and keep and cnt and best_of and first and scans and drops) or (tables and tab == NULL) \
            or (not tables and bit_lists(p, &bits, &ptr)):
        code = ERR_MEMORY
    else:
        for g in range(K):  # where each list's routes start in ptr
            first[g + 1] = first[g] + p.lists[g].n
        for it in range(iterations):
            if check_limits(c):  # a long list's step takes a while: a deadline is kept here too
                break
            if tab != NULL:
                fill_tables(tab, lam, n_bytes)
            ub = 0
            sampled = 0
            for b in range(nb):
                ub += lam[b]
                cnt[b] = 0
            for j in range(lo, K):
                R = &p.lists[p.list_of[j]]
                if j > lo and p.list_of[j] == p.list_of[j - 1]:
                    arg = best_of[j - 1]
                else:
                    ord = order[p.list_of[j]] if order != NULL else NULL
                    bp = ptr + first[p.list_of[j]] if ptr != NULL else NULL
                    S = &scans[p.list_of[j]]
                    # (no reference yet)
                    stride = p.s.sample_stride if it < p.s.sample_steps and R.n >= p.s.reference_routes else 1
                    sampled |= stride > 1
                    arg = best_reduced(S, R, ord, W, tab, bits, bp, lam, nb, drops, stride)
                    if not S.on and it >= p.s.reference_after and it >= p.s.sample_steps \
                            and R.n >= p.s.reference_routes and set_reference(S, R, ord, W, tab, bits, bp, lam, nb):
                        code = ERR_MEMORY
                        break
                best_of[j] = arg
                if check_limits(c):  # (a step over several long lists: looked at after each)
                    break
                if arg >= 0:
                    bp = ptr + first[p.list_of[j]] if ptr != NULL else NULL
                    ub += R.val[arg] - priced(R, arg, W, tab, bits, bp, lam)
                    for w in range(W):
                        x = R.res[arg * W + w]
                        while x:
                            cnt[w * 64 + ctz64(x)] += 1
                            x &= x - 1
            if code or c.lim.stop_code:  # a step cut short bounds nothing
                break
            # a sample's best is not its list's: sampled steps are measured against each other, and
            # their prices never kept (they bound nothing)
            record = &sample_ub if sampled else &best_ub
            if ub < record[0] - 1e-9:
                record[0] = ub
                if not sampled:
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
            step = theta * (ub - lb if ub - lb > 1 else 1) / norm  # a sample's best can fall below lb
            for b in range(nb):
                lam[b] -= step * (1 - cnt[b])
                # in whole 1/1024ths: every sum of prices is then exact in a double, so the byte
                # tables and the bits' walk find the same best routes, ties and all
                lam[b] = floor(lam[b] * 1024) / 1024 if lam[b] > 0 else 0
        out_total[0] = 0
        for b in range(nb):
            out[b] = <int64_t>keep[b]  # whole prices: the bound is then exact integer arithmetic
            out_total[0] += out[b]
    # the one way out: every buffer freed here once, whatever the code (none, a stop code or an error)
    if scans != NULL:
        for g in range(K):
            free(scans[g].at)
            free(scans[g].red)
            free(scans[g].lref)
    free(lam)
    free(keep)
    free(cnt)
    free(best_of)
    free(first)
    free(bits)
    free(ptr)
    free(tab)
    free(scans)
    free(drops)
    if code:
        return code
    return c.lim.stop_code


cdef int reprice(Pack* p, Routes* R) noexcept nogil:
    """Reduced values at the current prices, and the list in their order. 0, a stop code (the
    limits are looked at between the parts: each takes milliseconds on a long list) or an error."""
    cdef int64_t i
    if R.n == 0:
        return 0
    for i in range(R.n):
        R.red[i] = R.val[i] - price_i(R.res + i * p.W, p.lam, p.W)
    if check_limits(p.c):
        return p.c.lim.stop_code
    if sort_routes(R, p.W):
        return ERR_MEMORY
    if check_limits(p.c):
        return p.c.lim.stop_code
    free(R.by_word)
    R.by_word = bit_index(R.res, R.n, p.W, p.s.index_routes)
    return check_limits(p.c)


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
    cdef int li, k, n
    cdef int64_t i
    cdef Routes* R
    cdef int32_t* stops
    cdef int32_t* segs
    clear_best(c, value)
    for li in range(p.K):
        i = p.chosen[li]
        if i < 0:
            continue
        R = &p.lists[p.list_of[li]]
        n = R.nstops[i]
        stops = best_stops(c, li)
        segs = best_segs(c, li)
        for k in range(n):
            stops[k] = R.pool[R.off[i] + k]
        for k in range(n - 1):
            segs[k] = R.pool[R.off[i] + n + k]
        keep_route(c, li, c.inp.train_by_level[li], n, R.val[i])
    if c.lim.on_improve != NULL:
        call_improve(c, value)


cdef inline int64_t top_free(Pack* p, int depth, int j) noexcept nogil:
    """Reduced value of level j's best listed route free of the track in use (0: none, or only
    routes worth less than running nothing at these prices)."""
    cdef Routes* R = &p.lists[p.list_of[j]]
    cdef int64_t i = p.fc[depth * p.K + j]
    return R.red[i] if i < R.n and R.red[i] > 0 else 0


cdef void first_free(Pack* p, int depth, int j) noexcept nogil:
    """Move level j's first free route at this depth down from where it stands (the parent's,
    until scanned)."""
    cdef Routes* R = &p.lists[p.list_of[j]]
    p.fc[depth * p.K + j] = next_free(R.res, R.by_word, R.n, p.used, p.W, p.fc[depth * p.K + j])


cdef inline int64_t next_free(const uint64_t* res, const uint64_t* index, int64_t n, const uint64_t* used, int W,
                              int64_t i) noexcept nogil:
    """The first of n routes (their tracks ``res``) from i on free of the track in use (n: none):
    a few one by one, then 64 at a time by their bit index where they have one."""
    cdef int64_t end = i + BY_ONE if index != NULL and i + BY_ONE < n else n
    while i < end and clash(res + i * W, used, W):
        i += 1
    if i == end and i < n:
        i = free_by_words(index, n, used, W, i)
    return i


cdef int64_t free_by_words(const uint64_t* index, int64_t n, const uint64_t* used, int W, int64_t i) noexcept nogil:
    """The first route from i on free of the track in use (n: none), 64 routes at a time: the
    routes clashing with it are the OR over its bits of the routes on each bit."""
    cdef int nb = W * 64, n_used = 0, w, t
    cdef int used_bits[256]
    cdef int64_t wi = i >> 6, nw = (n + 63) >> 6
    cdef uint64_t x, y
    cdef const uint64_t* row
    for w in range(W):
        x = used[w]
        while x:
            used_bits[n_used] = w * 64 + ctz64(x)
            n_used += 1
            x &= x - 1
    x = (<uint64_t>1 << (i & 63)) - 1  # the routes before i count as taken
    while wi < nw:
        row = index + wi * nb
        for t in range(n_used):
            x |= row[used_bits[t]]
        y = ~x
        if wi == nw - 1 and (n & 63):
            y &= (<uint64_t>1 << (n & 63)) - 1
        if y:
            return (wi << 6) + ctz64(y)
        wi += 1
        x = 0
    return n


cdef uint64_t* bit_index(const uint64_t* res, int64_t n, int W, int64_t index_routes) noexcept nogil:
    """For each 64 of n routes (their tracks ``res``, in order) and each track bit, which of them
    use it; NULL for long bitsets, lists shorter than ``index_routes``, or no memory (they are
    scanned one by one).
    Scanning for free routes is most of a long search."""
    cdef int64_t i, nw = (n + 63) >> 6
    cdef int w, nb = W * 64
    cdef uint64_t x
    cdef uint64_t* index
    if W > 4 or n < index_routes:
        return NULL
    index = <uint64_t*>calloc(nw * nb + 1, sizeof(uint64_t))
    if index == NULL:
        return NULL
    for i in range(n):
        for w in range(W):
            x = res[i * W + w]
            while x:
                index[(i >> 6) * nb + w * 64 + ctz64(x)] |= <uint64_t>1 << (i & 63)
                x &= x - 1
    return index


cdef int dfs(Pack* p, int k, int64_t base, int64_t free_price) noexcept nogil:
    """Place levels k.. given the track in use, whose free track is priced ``free_price`` in all.

    Bound: revenue placed + prices of the free track + each later train's best reduced value on
    it (the Lagrangian relaxation of "no track twice"; with all prices 0, each train's best free
    route). 0, or a stop code.
    """
    cdef Ctx* c = p.c
    cdef int K = p.K, W = p.W, j, same, tag = 0, usable = 0
    cdef int64_t bound, top, slot
    cdef uint64_t* key
    cdef Routes* R
    if k == K:
        if base > c.best.value:
            record_packing(p, base)
        return 0
    R = &p.lists[p.list_of[k]]
    same = k > 0 and c.inp.group_by_train[c.inp.train_by_level[k]] == c.inp.group_by_train[c.inp.train_by_level[k - 1]]
    slot = -1
    key = p.keys + k * W
    if not same and p.memo_k != NULL:
        # The same node reached another way (trains swapping routes), looked up first, since most
        # revisits end here without scanning a list. A node is known by the track in use, and in
        # a long search (from the memo's growth) by the free track its later routes can use, which
        # decides all they can add: routes placed above that differ only in track no later route
        # can use then meet too (5 trains, seed 5: 12.7 M -> 8.8 M nodes), for a pass per node.
        if k >= 1 and c.lim.nodes >= p.memo_grow_at:  # the grown memo starts empty: nothing is lost
            usable_mask(p, k)
            memcpy(key, p.mask, W * sizeof(uint64_t))
            usable = 1
            tag = k + K + 1  # the two kinds of key never meet
        elif k >= 2:
            memcpy(key, p.used, W * sizeof(uint64_t))
            tag = k
        if tag:
            slot = memo_slot(p, key, tag)
            if p.memo_k[slot] == tag and not differs(p.memo_key + slot * W, key, W) \
                    and base + p.memo_val[slot] <= c.best.value:
                return 0
    # The bound with each level's first free route where the parent left it (it can only get
    # smaller), then tightened level by level as each is scanned, stopping once it cannot win.
    bound = base + free_price
    for j in range(k, K):
        p.fc[k * K + j] = p.fc[(k - 1) * K + j] if k > 0 else 0
        bound += top_free(p, k, j)
    if k > 0 and c.best.value < bound <= c.best.value + free_price:
        # only the free track a later route can use counts
        bound -= free_price - (price_i(key, p.lam, W) if usable else usable_price(p, k))
    for j in range(k, K):
        if bound <= c.best.value:
            return 0
        top = top_free(p, k, j)
        first_free(p, k, j)
        bound -= top - top_free(p, k, j)
    if bound <= c.best.value:
        return 0
    if p.mu_on and k > 0 and mu_cut(p, k, base, key if usable else NULL):
        return 0
    j = dfs_node(p, k, base, free_price, bound - base - top_free(p, k, k), R, same)
    if j == 0 and slot >= 0:
        slot = memo_slot(p, key, tag)  # the memo may have grown below
        p.memo_k[slot] = tag
        memcpy(p.memo_key + slot * W, key, W * sizeof(uint64_t))
        p.memo_val[slot] = c.best.value - base
    return j


cdef inline int64_t mtop(Pack* p, int depth, int j) noexcept nogil:
    """As top_free, at the later levels' prices."""
    cdef Routes* R = &p.lists[p.list_of[j]]
    cdef int64_t i = p.mfc[depth * p.K + j]
    return R.mred[i] if i < R.n and R.mred[i] > 0 else 0


cdef int mu_cut(Pack* p, int k, int64_t base, const uint64_t* usable) noexcept nogil:
    """1 if the bound at the later levels' own prices cuts the node (depth k >= 1): revenue placed +
    their prices on the usable free track + each level's best free route at those prices (the
    Lagrangian relaxation of "no track twice" over levels k.., given the track in use: any prices
    >= 0 give a bound). Scans as dfs does, from where the parent left each level. ``usable``: the
    usable free track where dfs has it (else NULL)."""
    cdef int K = p.K, W = p.W, j
    cdef int64_t bound, top, free_mu
    cdef int64_t best = p.c.best.value
    cdef Routes* R
    free_mu = p.mu_total
    for j in range(k):  # the track in use is that of the routes placed
        if p.chosen[j] >= 0:
            free_mu -= p.lists[p.list_of[j]].mpr[p.chosen[j]]
    bound = base + free_mu
    for j in range(k, K):
        p.mfc[k * K + j] = p.mfc[(k - 1) * K + j]
        bound += mtop(p, k, j)
    if bound <= best:
        return 1
    if bound <= best + free_mu:
        if usable == NULL:
            usable_mask(p, k)
            usable = p.mask
        bound -= free_mu - price_i(usable, p.mu, W)
    for j in range(k, K):
        if bound <= best:
            return 1
        top = mtop(p, k, j)
        R = &p.lists[p.list_of[j]]
        p.mfc[k * K + j] = next_free(R.mres, R.mby_word, R.n, p.used, W, p.mfc[k * K + j])
        bound -= top - mtop(p, k, j)
    return bound <= best


cdef int mu_start(Pack* p) noexcept nogil:
    """Prices for levels 1.. alone (a second subgradient run over their lists, as if level 0 did
    not exist), and each of their lists in the order of its reduced values at those prices. 0 (the
    search goes on without them if memory fails), or a stop code."""
    cdef Ctx* c = p.c
    cdef int K = p.K, W = p.W, g, code = 0
    cdef int64_t i, j, n
    cdef int64_t** order = <int64_t**>calloc(K, sizeof(int64_t*))
    cdef int64_t* keys = NULL
    cdef Routes* R
    cdef uint8_t* need = <uint8_t*>calloc(K, sizeof(uint8_t))
    p.mu = <int64_t*>calloc(W * 64, sizeof(int64_t))
    p.mfc = <int64_t*>calloc((K + 1) * K, sizeof(int64_t))
    if not (order and need and p.mu and p.mfc):
        code = ERR_MEMORY
    if code == 0:
        for j in range(1, K):
            need[p.list_of[j]] = 1
        for g in range(K):  # each list in value order (they are in reduced order at the root's prices)
            R = &p.lists[g]
            if not need[g] or R.n == 0:
                continue
            keys = ranked(R.n, R.val, NULL)
            order[g] = <int64_t*>malloc(R.n * sizeof(int64_t))
            if keys == NULL or order[g] == NULL:
                code = ERR_MEMORY
                break
            for i in range(R.n):
                order[g][i] = keys[3 * i + 2]
            free(keys)
            keys = NULL
            code = check_limits(c)  # (100 k+ routes a list: the limits are looked at after each)
            if code:
                break
    if code == 0:
        code = price_levels(p, 1, p.s.iterations, <double>(c.best.value - c.best.revenue_by_level[0]),
                            order, p.mu, &p.mu_total)
    if code == 0:
        for g in range(K):  # the lists again, in reduced order at the new prices (a copy beside the first)
            R = &p.lists[g]
            if R.n == 0:
                continue
            n = R.n
            R.mpr = <int64_t*>malloc(n * sizeof(int64_t))  # every list's (the track placed above is priced by it)
            if R.mpr == NULL:
                code = ERR_MEMORY
                break
            for i in range(n):
                R.mpr[i] = price_i(R.res + i * W, p.mu, W)
            code = check_limits(c)
            if code:
                break
            if not need[g]:
                continue
            R.mred = <int64_t*>malloc(n * sizeof(int64_t))
            R.mres = <uint64_t*>malloc(n * W * sizeof(uint64_t))
            if R.mred == NULL or R.mres == NULL:
                code = ERR_MEMORY
                break
            for i in range(n):
                R.mred[i] = R.val[i] - R.mpr[i]
            keys = ranked(n, R.mred, R.val)
            if keys == NULL:
                code = ERR_MEMORY
                break
            for i in range(n):
                R.mred[i] = keys[3 * i]
                memcpy(R.mres + i * W, R.res + keys[3 * i + 2] * W, W * sizeof(uint64_t))
            free(keys)
            keys = NULL
            code = check_limits(c)
            if code:
                break
            R.mby_word = bit_index(R.mres, n, W, p.s.index_routes)
            code = check_limits(c)
            if code:
                break
    free(keys)
    for g in range(K):
        if order:
            free(order[g])
    free(order)
    free(need)
    if code == 0:
        p.mu_on = 1
        return 0
    if code > 0:
        return code
    return 0  # no memory: the search goes on with the root's prices only


cdef int64_t usable_price(Pack* p, int k) noexcept nogil:
    usable_mask(p, k)
    return price_i(p.mask, p.lam, p.W)


cdef void usable_mask(Pack* p, int k) noexcept nogil:
    """The prices of the free track that a later route can still use: that of the segments with
    no track in use, and in a long search, where every later train needs a token, of those reached
    from a token over them (a breadth-first walk per node: tighter, but dearer than the nodes of a
    small search). A free bit off them is on no free route, so its price can be taken as 0 there
    without changing any later route's reduced value: the bound stays a bound. (In a long search
    this runs at nearly every node: the walk reads each dir's track from one array, stamps the
    stops it reaches instead of clearing them, and keeps two-word bitsets in registers.)"""
    cdef Ctx* c = p.c
    cdef int W = p.W, w, sg, s, d, t, head = 0, tail = 0
    cdef const uint64_t* bits
    cdef uint64_t* m = p.mask
    cdef uint64_t u0, u1, m0 = 0, m1 = 0
    cdef uint32_t stamp
    for w in range(W):
        m[w] = 0
    if p.token_from[k] and c.lim.nodes >= p.reach_at:
        p.stamp += 1
        if p.stamp == 0:  # wrapped: every stop unseen again
            memset(p.seen_at, 0, c.inp.n_stops * sizeof(uint32_t))
            p.stamp = 1
        stamp = p.stamp
        for t in range(p.n_token_stops):
            s = p.token_stops[t]
            p.seen_at[s] = stamp
            p.queue[tail] = s
            tail += 1
        if W == 2:
            u0 = p.used[0]
            u1 = p.used[1]
        while head < tail:
            s = p.queue[head]
            head += 1
            for d in range(c.inp.adj_ptr_by_stop[s], c.inp.adj_ptr_by_stop[s + 1]):
                bits = p.dir_bits + <int64_t>d * W
                if W == 2:
                    if (bits[0] & u0) | (bits[1] & u1):
                        continue
                    m0 |= bits[0]
                    m1 |= bits[1]
                else:
                    if clash(bits, p.used, W):
                        continue
                    for w in range(W):
                        m[w] |= bits[w]
                t = c.inp.to_stop_by_dir[d]
                if p.seen_at[t] != stamp:
                    p.seen_at[t] = stamp
                    p.queue[tail] = t
                    tail += 1
        if W == 2:
            m[0] = m0
            m[1] = m1
    else:
        for sg in range(c.inp.n_segs):
            bits = c.inp.track_bits_by_seg + <int64_t>sg * W
            if not clash(bits, p.used, W):
                for w in range(W):
                    m[w] |= bits[w]


cdef inline int differs(const uint64_t* a, const uint64_t* b, int W) noexcept nogil:
    """1 if the bitsets differ."""
    cdef int w
    for w in range(W):
        if a[w] != b[w]:
            return 1
    return 0


cdef inline int64_t memo_slot(Pack* p, const uint64_t* key, int k) noexcept nogil:
    return <int64_t>(track_hash(key, p.W, <uint64_t>k) & <uint64_t>(p.memo_size - 1))


cdef void alloc_memo(Pack* p, int64_t size) noexcept nogil:
    """An empty memo of this size in place of the one there (none if there is no memory: the
    search only loses its shortcuts). What it forgets only costs nodes: it is a cache."""
    cdef int32_t* k = <int32_t*>malloc(size * sizeof(int32_t))
    cdef uint64_t* key = <uint64_t*>malloc(size * p.W * sizeof(uint64_t))
    cdef int64_t* val = <int64_t*>malloc(size * sizeof(int64_t))
    if k == NULL or key == NULL or val == NULL:
        free(k)
        free(key)
        free(val)
        return
    free(p.memo_k)
    free(p.memo_key)
    free(p.memo_val)
    memset(k, 0xff, size * sizeof(int32_t))
    p.memo_k = k
    p.memo_key = key
    p.memo_val = val
    p.memo_size = size


cdef int dfs_node(Pack* p, int k, int64_t base, int64_t free_price, int64_t rest, Routes* R, int same) noexcept nogil:
    """The branches of a dfs node whose bound passed: each free route of level k, then none."""
    cdef Ctx* c = p.c
    cdef int K = p.K, W = p.W, j, w
    cdef int64_t i, start, size
    cdef const uint64_t* r
    start = p.fc[k * K + k]
    if same:
        if p.chosen[k - 1] < 0:
            p.chosen[k] = -1
            return dfs(p, k + 1, base, free_price)  # identical trains: one runs nothing, all later ones too
        if p.chosen[k - 1] + 1 > start:
            start = p.chosen[k - 1] + 1
    i = start
    while i < R.n:
        if base + R.red[i] + rest <= c.best.value:
            break
        r = R.res + i * W
        if clash(r, p.used, W):
            i = next_free(R.res, R.by_word, R.n, p.used, W, i + 1)
            continue
        c.lim.nodes += 1
        if c.lim.nodes % CHECK_EVERY == 0 and check_limits(c):
            return c.lim.stop_code
        if c.lim.nodes == p.memo_grow_at:  # a long search: a larger memo saves more than its misses cost
            size = MEMO_GROWN
            while size > MEMO_SIZE and size * (12 + 8 * W) > MEMO_BYTES:
                size //= 2
            if size > p.memo_size:
                alloc_memo(p, size)
        if c.lim.nodes == p.mu_at:  # a long search: the later levels get their own prices
            p.mu_at = -1
            j = mu_start(p)
            if j:
                return j
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
    if base + rest > c.best.value:
        return dfs(p, k + 1, base, free_price)
    return 0


cdef inline void lower_bound_to(Ctx* c, int64_t b) noexcept nogil:
    if c.bounds.bound < 0 or b < c.bounds.bound:
        c.bounds.bound = b if b > c.best.value else c.best.value


cdef int dive(Ctx* c, int64_t nodes) noexcept nogil:
    """A good answer early (the nested search over all trains for a few nodes): the better the
    answer known, the fewer routes are worth listing. Returns a stop code of the caller's limits."""
    cdef int64_t budget = c.lim.node_budget
    cdef int li
    c.bounds.from_level[c.inp.n_trains] = 0
    li = c.inp.n_trains - 1
    while li >= 0:  # what the later trains can add: each one's best alone
        c.bounds.from_level[li] = c.bounds.from_level[li + 1] + c.bounds.alone_by_level[li]
        li -= 1
    if budget <= 0 or c.lim.nodes + nodes < budget:
        c.lim.node_budget = c.lim.nodes + nodes
    solve(c, 0, c.inp.n_trains, c.best.value, 0)
    c.lim.node_budget = budget
    if c.lim.stop_code == STOP_NODES and not (budget > 0 and c.lim.nodes >= budget):
        c.lim.stop_code = 0
    return c.lim.stop_code


# ---- the kernel ----------------------------------------------------------------------------------

cdef int build_lists(Pack* p, int64_t* tau_of) noexcept nogil:
    """Every route worth listing, priced, in reduced-value order. 0, a stop code, or an error
    (TOO_MANY where a list would pass ``MAX_ROUTES``)."""
    cdef Ctx* c = p.c
    cdef int K = p.K, li, j, g, code = 0
    cdef int64_t tau
    cdef Routes* R
    for li in range(K):
        if li > 0 and p.list_of[li] == p.list_of[li - 1]:
            continue
        g = p.list_of[li]
        tau = tau_of[li]
        j = li + 1
        while j < K and p.list_of[j] == g:  # identical trains share a list deep enough for the poorest
            if tau_of[j] < tau:
                tau = tau_of[j]
            j += 1
        R = &p.lists[g]
        code = list_routes(p, li, tau, R, p.s.max_routes if K < 3 else p.s.max_routes_many)
        if code == 0:
            code = keep_richest_per_track(R, p.W)
        if code == 0:
            code = check_limits(c)  # each phase on a list of 100 k+ routes takes milliseconds:
        if code == 0:               # the limits are looked at between them (a deadline is kept)
            code = sort_routes(R, p.W)
        if code == 0:
            code = check_limits(c)
        if code:
            return code
    if p.s.iterations > 0:
        code = price_track(p, p.s.iterations)
    return code


cdef int pack_run(Ctx* c, const void* settings) noexcept nogil:
    """Each train alone (proving its best), then list the routes and pack them (``settings``: a
    Settings)."""
    cdef const Settings* s = <const Settings*>settings
    cdef int K = c.inp.n_trains, li, j, g, code = 0
    cdef int64_t v, others, tau
    cdef int64_t* tau_of
    cdef Pack p
    if K == 0:
        return 0
    if c.inp.pullman_cap > 0:
        return run(c)  # the Pullman's and best-route bonuses span trains: the nested search prices them
    for li in range(K):
        if li > 0 and same_train_as_above(&c.inp, li):
            c.bounds.alone_by_level[li] = c.bounds.alone_by_level[li - 1]
            continue
        v = solve(c, li, li + 1, 0, 0)
        if v < 0:
            return c.lim.stop_code
        c.bounds.alone_by_level[li] = v
    c.bounds.stage = 1
    if K > 1 and dive(c, s.dive_nodes):
        return c.lim.stop_code
    if K == 1:
        c.bounds.stage = 2
        c.bounds.from_level[0] = c.bounds.alone_by_level[0]
        c.bounds.bound = c.best.value
        return 0

    memset(&p, 0, sizeof(Pack))
    p.c = c
    p.s = s
    p.K = K
    p.W = c.inp.n_track_words
    p.lists = <Routes*>calloc(K, sizeof(Routes))
    p.list_of = <int*>calloc(K, sizeof(int))
    p.used = c.work.used
    p.chosen = <int64_t*>calloc(K, sizeof(int64_t))
    p.fc = <int64_t*>calloc((K + 1) * K, sizeof(int64_t))
    p.buf = <int32_t*>calloc(2 * (c.inp.n_stops + 1), sizeof(int32_t))
    p.lam = <int64_t*>calloc(p.W * 64, sizeof(int64_t))
    p.mask = <uint64_t*>calloc(p.W, sizeof(uint64_t))
    p.keys = <uint64_t*>calloc((K + 1) * p.W, sizeof(uint64_t))
    p.seen_at = <uint32_t*>calloc(c.inp.n_stops + 1, sizeof(uint32_t))
    p.token_stops = <int32_t*>calloc(c.inp.n_stops + 1, sizeof(int32_t))
    p.dir_bits = <uint64_t*>malloc((<int64_t>c.inp.n_dirs * p.W + 1) * sizeof(uint64_t))
    p.queue = <int32_t*>calloc(c.inp.n_stops + 1, sizeof(int32_t))
    p.token_from = <uint8_t*>calloc(K + 1, sizeof(uint8_t))
    p.vstack = <int64_t*>calloc(2 * (c.inp.n_stops + 1), sizeof(int64_t))
    if K >= 3:
        alloc_memo(&p, MEMO_SIZE)
    tau_of = <int64_t*>calloc(K, sizeof(int64_t))
    if not (p.lists and p.list_of and p.chosen and p.fc and p.buf and p.lam and p.mask and p.vstack and tau_of
            and p.seen_at and p.token_stops and p.dir_bits and p.queue and p.token_from and p.keys):
        code = ERR_MEMORY
    else:
        # one list per group of identical trains, deep enough for its poorest level
        g = -1
        for li in range(K):
            others = 0
            for j in range(K):
                if j != li:
                    others += c.bounds.alone_by_level[j]
            tau = c.best.value - others + 1
            tau_of[li] = tau if tau > 1 else 1
            if li == 0 or not same_train_as_above(&c.inp, li):
                g += 1
            p.list_of[li] = g
        for j in range(c.inp.n_stops):  # the token walk's inputs (usable_mask)
            if c.inp.token_by_stop[j]:
                p.token_stops[p.n_token_stops] = j
                p.n_token_stops += 1
        for j in range(c.inp.n_dirs):
            memcpy(p.dir_bits + <int64_t>j * p.W, c.inp.track_bits_by_seg + <int64_t>c.inp.seg_by_dir[j] * p.W,
                   p.W * sizeof(uint64_t))
        p.token_from[K] = 1
        li = K - 1
        while li >= 0:
            p.token_from[li] = p.token_from[li + 1] and c.inp.requires_token_by_train[c.inp.train_by_level[li]]
            li -= 1
        code = build_lists(&p, tau_of)
        if code == 0:
            p.reach_at = c.lim.nodes + s.reach_after
            p.memo_grow_at = c.lim.nodes + s.memo_grow_after if p.memo_k != NULL else -1
            p.mu_at = c.lim.nodes + (s.mu_after if s.mu_after > 0 else 1) if s.mu_after >= 0 and K >= 2 else -1
            code = dfs(&p, 0, 0, p.lam_total)
            if code == 0:
                c.bounds.stage = 2
                c.bounds.from_level[0] = c.best.value
                c.bounds.bound = c.best.value
    for li in range(K):
        if p.lists:
            free_routes(&p.lists[li])
    free(p.lists)
    free(p.list_of)
    free(p.chosen)
    free(p.fc)
    free(p.buf)
    free(p.lam)
    free(p.vstack)
    free(tau_of)
    free(p.mask)
    free(p.keys)
    free(p.seen_at)
    free(p.token_stops)
    free(p.dir_bits)
    free(p.queue)
    free(p.token_from)
    free(p.memo_k)
    free(p.memo_key)
    free(p.memo_val)
    free(p.mu)
    free(p.mfc)
    if code < 0:  # too many routes, or no memory for them: the nested search needs neither
        c.bounds.bound = -1
        return nested_rest(c)
    return code


cdef int nested_rest(Ctx* c) noexcept nogil:
    """The nested search's later rounds (``run`` after its first): the trains alone are done."""
    cdef int K = c.inp.n_trains, li
    cdef int64_t v
    c.bounds.from_level[K] = 0
    c.bounds.from_level[K - 1] = c.bounds.alone_by_level[K - 1]
    c.bounds.suffix_from = K - 1
    li = K - 2
    while li >= 1:
        v = solve(c, li, K, c.bounds.from_level[li + 1], 0)
        if v < 0:
            return c.lim.stop_code
        c.bounds.from_level[li] = v
        c.bounds.suffix_from = li
        li -= 1
    c.bounds.stage = 2
    v = solve(c, 0, K, c.best.value, 0)
    if v < 0:
        return c.lim.stop_code
    c.bounds.from_level[0] = v
    return 0


cdef class Packing(Kernel):
    """The packing kernel with its settings, each search reading its own (read only while it
    runs): ``Packing()`` has the defaults; experiments and tests change some by keyword."""

    def __init__(self, *, int iterations=60, long long max_routes=30000, long long max_routes_many=300000,
                 long long dive_nodes=20000, long long table_routes=4096, long long reach_after=500000,
                 long long memo_grow_after=2000000, long long mu_after=1000000, int reference_after=30,
                 long long reference_routes=4096, long long index_routes=4096, int sample_steps=30,
                 int sample_stride=8):
        self.tuned = Settings(iterations, max_routes, max_routes_many, dive_nodes, table_routes, reach_after,
                              memo_grow_after, mu_after, reference_after, reference_routes, index_routes,
                              sample_steps, sample_stride)
        self.fn = pack_run
        self.settings = &self.tuned

    def settings_dict(self):
        """The settings, by keyword."""
        return self.tuned


KERNEL = Packing()  # the defaults
