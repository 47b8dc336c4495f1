# The compiled branch-and-bound search: its state, declared once.
#
# A company's trains are searched as nested levels, one train per level. Each level walks its
# train's routes depth-first on explicit stacks: a route grows out of an anchor (the token city
# of the route with the lowest rank) in one direction ("half 1"), then, for every half 1, in the
# other direction ("half 2"), so every route is generated once. Track in use is one bitset shared
# by all levels; locations visited are a bitset per level.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

cdef struct Level:
    int t               # the train this level places (index into the problem's trains)
    int anchor_i        # index into Ctx.anchors of the current anchor
    int phase           # 0: pick the next anchor; 1: growing half 1; 2: growing half 2
    int d1              # first directed segment of half 1 (-1 before one is taken)
    int h1              # segments in half 1
    int h2              # segments in half 2
    int pending2        # half 1 just grew: start a half 2 from the anchor next
    int empty           # this level's train runs nothing
    int n_large         # large stops visited by the route so far
    int n_small         # small stops visited
    int64_t vsum        # sum of their values for this train
    int64_t base        # revenue of the levels above (the routes already placed)
    int base_large      # largest paid large value above (for the Pullman)
    int64_t rev         # revenue of the route just yielded
    int best_large      # its largest paid large value
    int64_t br_base[4]  # per best-route bonus: the most the routes above earn it
    int64_t br_rev[4]   # per best-route bonus: what the route just yielded earns it
    int32_t* stop1      # half 1 stops; stop1[0] is the anchor
    int32_t* pos1       # per half 1 frame: next adjacency index to try
    int32_t* dseg1      # per half 1 frame: directed segment that reached it
    uint32_t* pen1      # per half 1 frame: penalty hexes crossed so far
    int32_t* stop2      # half 2 stops; stop2[0] is the anchor again
    int32_t* pos2
    int32_t* dseg2
    uint32_t* pen2
    uint64_t* locs      # locations visited by this route (bitset)

cdef struct Ctx:
    # ---- the problem (borrowed from numpy arrays, never freed here)
    int n_stops
    int n_words         # 64-bit words of the track bitset
    int n_loc_words     # 64-bit words of a location bitset
    int n_trains
    const int32_t* adj_ptr
    const int32_t* adj_to
    const int32_t* adj_seg
    const uint8_t* adj_from_term
    const uint8_t* adj_to_term
    const uint64_t* seg_res
    const uint32_t* seg_pen
    const int32_t* pen_amount
    int n_pen
    const int32_t* values   # [n_trains * n_stops]
    const uint8_t* large
    const uint8_t* token
    const uint8_t* red
    const uint8_t* end_only
    const int32_t* loc
    const int32_t* caps     # [n_trains * 6]
    const int32_t* mult
    const int32_t* group
    const int32_t* pair_a
    const int32_t* pair_b
    const int32_t* pair_amount
    const uint8_t* pair_visited  # the pair counts when both are on the route, paid or not
    int n_pairs
    const int32_t* largest_trigger
    const uint8_t* largest_exclude  # [n_largest * n_stops]
    int n_largest
    int r2r_per_token
    int r2r_max_tokens
    int pullman_cap     # most the company-level bonuses can add: Pullman, best-route bonuses (0 without)
    int has_pullman     # the company has a Pullman
    const int32_t* br_amount    # per best-route bonus (at most 4): amount when the route meets every group
    const int32_t* br_per_stop  # and pay per stop visited
    const uint32_t* br_mask     # [n_br * n_stops]: the groups each stop belongs to
    const uint32_t* br_full     # per bonus: every group
    int n_br
    # ---- derived
    int32_t* anchors    # token stops, in rank order
    int n_anchors
    int32_t* rank       # per stop: its rank among anchors, or -1
    int32_t* order      # level -> train
    int64_t* opt_alone  # per level: best route of its train alone (bound)
    int64_t* suffix     # per level: best of the trains from this level on (bound); [n_trains + 1]
    int64_t* pref       # per train: prefix sums of best positive values; 3 arrays of n_stops+1 each
    int64_t* max_bonus  # per train: most bonuses can add to one route
    uint8_t* mark       # scratch: per stop flag while pricing
    uint8_t* reach_mark # scratch: per stop flag while bounding by reachable stops
    int32_t* scratch    # scratch: stop lists while pricing (4 * n_stops)
    Level* levels
    uint64_t* used      # track in use by all placed routes
    # ---- limits
    double deadline     # monotonic seconds; <= 0 for none
    int64_t node_budget # <= 0 for none
    const uint8_t* cancel  # set to 1 by another thread to stop
    int64_t nodes       # search nodes expanded
    int stop_code       # 0 running/finished, 1 deadline, 2 node budget, 3 cancelled
    # ---- the best solution found
    int64_t best_value
    int32_t* best_len   # per level: stops in its route (0 = runs nothing)
    int32_t* best_stops # per level: n_stops + 1 entries
    int32_t* best_segs  # per level: n_stops entries (undirected segment ids, route order)
    int64_t* best_rev   # per level
    int32_t* best_paid  # per level: n_stops + 1 entries, the stops its train is paid for
    int32_t* best_npaid # per level: how many
    int improved        # the best changed since the caller last looked
    void* on_improve    # a Python callable(best_value), called with the GIL; NULL for none
    int64_t cur_best    # the running solve's best value (its pruning threshold)
    int lo              # the running solve's first level
    int hi              # one past its last level
    int use_pullman     # the running solve counts the company-level bonuses
    uint8_t* pays_all   # per train: every visited stop is paid
    uint8_t* interesting # per stop: a pair-bonus end or a largest-stop trigger
    int stage           # 0: trains alone, 1: suffixes, 2: all trains (how far the proof got)
    int reach_from      # bound a train by the stops it can still reach when it may count this many more (0: never)
    int suffix_from     # lowest level whose suffix optimum is proven (n_trains: none yet)
    int64_t bound       # proven upper bound set by a kernel other than run() (-1: none)


# A kernel runs the whole search on a ready Ctx and returns a stop code: run() below, or another
# strategy built from the same pieces (optimizer/core/_packing.pyx), passed in as a capsule.
ctypedef int (*kernel_fn)(Ctx* c) noexcept nogil

cdef int run(Ctx* c) noexcept nogil
cdef int64_t solve(Ctx* c, int lo, int hi, int64_t init_best, int use_pullman) noexcept nogil
cdef void init_level(Ctx* c, int li, int64_t base, int base_large, Level* above, int above_ran) noexcept nogil
cdef int next_route(Ctx* c, int li) noexcept nogil
cdef int64_t price_route(Ctx* c, Level* L) noexcept nogil
cdef int route_stops(Ctx* c, Level* L, int32_t* out) noexcept nogil
cdef int64_t price_express(Ctx* c, int t, const int32_t* visited, int nv, int* best_large,
                           int32_t* out_paid, int32_t* n_out) noexcept nogil
cdef int64_t proven_bound(Ctx* c) noexcept nogil
cdef object _best_lists(Ctx* c)
