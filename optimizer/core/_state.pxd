# The compiled search's state and constants, declared once for every part of the kernel (_input,
# _pricing, _bounds, _search, _packing). Declarations and inline helpers only: no module of its own.
#
# A company's trains are searched as nested levels, one train per level. Each level walks its
# train's routes depth-first on explicit stacks: a route grows out of an anchor (the anchor of
# the route with the lowest rank: a token city, or any stop for a train that needs no token) in
# one direction (half 0), then, for every half 0, in the other direction (half 1), so every route
# is generated once. Track in use is one bitset per overlap group (a train's track_group_by_train:
# E trains run in their own), shared by the levels of its trains; locations visited are a bitset per level.
#
# Index spaces: "stop" < n_stops, "dir" (directed segment) < n_dirs, "seg" (track segment)
# < n_segs, "train" < n_trains, "level" < n_trains (level l places train train_by_level[l]),
# "frame" <= n_stops (depth of a half on its stack), "rank" < a train's n_anchors,
# "best_route" < n_best_route <= MAX_BEST_ROUTE (bonuses paid once, on the company's best route for each).

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

# What the kernel can hold; exported to Python by _search (compiled.beyond_the_kernel reads them).
cdef enum:
    MAX_BEST_ROUTE = 4                      # best-route bonuses per company (a running best per level each)
    MAX_INTERESTING = 12                    # interesting stops of one route tried in and out (2**12 subsets)
    MAX_FORCED = 4                          # stops forced into an express's paid subset for its largest-stop
    #                                         bonuses: an express prices at most this many exactly

# What a route its rules refuse is worth (price_route): far below any total, so that it is never kept
# nor placed under a later train, and any route one stop longer counts as richer than it.
cdef extern from *:
    """
    #define ROUTE18XX_REFUSED (-(1LL << 50))
    """
    const int64_t REFUSED "ROUTE18XX_REFUSED"
# What a train may do with the mines (mine_rule_by_train; optimizer.model.trains says the same).
cdef enum:
    MINES_ANY = 0
    MINES_NONE = 1                          # it visits no mine
    MINES_ONE = 2                           # a route of it is legal only with a mine (one: the mines share
    #                                         a location); priced REFUSED without one

# How a train is paid half its route's revenue (halved_by_train; optimizer.games.base says the same).
cdef enum:
    HALF_TO_TEN = 1                         # rounded to 10 (1822MX's 3/2P)
    HALF_DOWN = 2                           # rounded down (an obsolete train: g_1858/game.rb#revenue_for)

# Why a kernel stopped (Limits.stop_code); _search.STOPPED_BY names each for Python.
cdef enum:
    STOP_NONE = 0
    STOP_DEADLINE = 1
    STOP_NODES = 2
    STOP_CANCELLED = 3
    STOP_CALLBACK = 4                       # on_improve raised: the error is re-raised by search()
    ERR_MEMORY = -1                         # a kernel could not allocate its scratch


cdef inline double now() noexcept nogil:
    """Monotonic seconds, as time.monotonic() (a Limits.deadline is one)."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef struct Input:
    # Borrowed from a checked Problem (optimizer.graph.problem) and KernelInput (optimizer.core.contract),
    # by _input.borrow; see there for each array.
    int n_stops
    int n_dirs
    int n_segs
    int n_track_words                       # 64-bit words of a track bitset
    int n_locs
    int n_loc_words                         # 64-bit words of a location bitset
    int n_trains
    int n_pairs
    int n_largest
    int n_penalties
    int n_best_route                        # <= MAX_BEST_ROUTE
    int n_set_pairs                         # <= 16
    int n_track_groups                      # overlap groups (>= 1): a track bitset in use each
    const uint8_t* large_by_stop
    const uint8_t* token_by_stop
    const uint8_t* red_by_stop
    const uint8_t* end_only_by_stop
    const uint8_t* no_end_by_stop           # per stop: a route may pass through but not begin or end here
    const int32_t* loc_by_stop              # per stop: location < n_locs
    const uint8_t* mine_by_stop             # per stop: a mine
    const uint8_t* interesting_by_stop
    const int32_t* adj_ptr_by_stop          # [n_stops + 1]: CSR into the dirs
    const int32_t* to_stop_by_dir
    const int32_t* seg_by_dir
    const uint8_t* from_terminal_by_dir
    const uint8_t* to_terminal_by_dir
    const uint64_t* track_bits_by_seg       # [n_segs * n_track_words]
    const uint32_t* penalty_mask_by_seg
    const int32_t* amount_by_penalty
    const int32_t* gauge_halves_by_seg      # per segment: border sides its track crosses (half a gauge change each)
    const uint8_t* gauge_by_seg             # per segment: the track kinds it uses (a bitmask, < 32)
    const int32_t* values_by_train_stop     # [n_trains * n_stops]
    const int32_t* caps_by_train            # [n_trains * 6]
    const int32_t* multiplier_by_train
    const int32_t* group_by_train
    const uint8_t* pays_all_by_train
    const uint8_t* requires_token_by_train
    const uint8_t* local_by_train           # per train: it may run one token city alone, on no track
    const int32_t* free_gauge_by_train      # per train: gauge changes it runs without counting them as cities
    int has_gauge                           # some segment crosses a border (the gauge family is in play)
    const int32_t* end_cap_by_train         # per train: its large stops plus towns at its ends, at most (18MT)
    int has_end_caps                        # some train has an end cap below its large cap
    const int32_t* track_group_by_train     # per train: its overlap group < n_track_groups
    const uint8_t* token_ends_by_train      # per train: both ends of a route hold the company's token
    const int32_t* min_large_by_train       # per train: the large stops a route must visit at least
    const uint8_t* mine_rule_by_train       # per train: MINES_ANY, MINES_NONE or MINES_ONE
    const uint32_t* gauge_ok_by_train       # per train: bit m set where a route of track kinds m is legal
    const int64_t* max_bonus_by_train
    const int64_t* prefix_by_train_class_count  # [n_trains * 3 * (n_stops + 1)]
    const int32_t* anchor_by_train_rank     # [n_trains * n_stops]
    const int32_t* n_anchors_by_train
    const int32_t* rank_by_train_stop       # [n_trains * n_stops]: -1 for a stop that is no anchor
    const int32_t* train_by_level
    const int64_t* bound_by_level           # per level: the most its train can earn alone
    const int32_t* stop_a_by_pair
    const int32_t* stop_b_by_pair
    const int32_t* amount_by_pair
    const uint8_t* visited_by_pair          # per pair: it counts when both are on the route, paid or not
    const int32_t* trigger_by_largest
    const uint8_t* excluded_by_largest_stop  # [n_largest * n_stops]
    const uint32_t* sets_by_stop            # per stop: bit 2k in set a of set pair k, bit 2k + 1 in its set b
    const int32_t* amount_by_set_pair       # per set pair: once, for a stop of each set paid ...
    const uint8_t* visited_by_set_pair      # ... or visited
    const int32_t* amount_by_best_route     # per best_route: paid when the route meets every group ...
    const int32_t* per_stop_by_best_route   # ... plus this per stop it visits
    const uint8_t* multiplied_by_best_route  # per best_route: its amount times the train's multiplier
    const uint32_t* groups_by_best_route_stop  # [n_best_route * n_stops]: the groups each stop belongs to
    const uint32_t* full_by_best_route      # per best_route: every group (a bitmask)
    int r2r_per_token
    int r2r_max_tokens
    int has_pullman                         # the company has a Pullman (doubles its best paid large stop)
    int pullman_cap                         # the most the company-level bonuses can add: the Pullman and
    #                                         the best-route bonuses (0 without any)
    int reach_from                          # bound by reachable stops while a train may count this many more (0: never)
    const int32_t* hex_cap_by_train         # per train: the most hex edges its route may cross (-1: no cap)
    const int32_t* hex_edges_by_train_seg   # [n_trains * n_segs]: the hex edges a segment costs the train
    const uint8_t* largest_by_set_pair      # per set pair: once met, the richest paid stop's value again (18Neb)
    int has_crow                            # some train earns a crow-distance bonus (crow_distance_bonus)
    const int32_t* crow_per_hex_by_train    # per train: per hex between its route's ends as the crow flies
    const int32_t* crow_x_by_stop           # per stop: its hex's x (engine's Hex#x) ...
    const int32_t* crow_y_by_stop           # ... and y
    const uint8_t* crow_end_by_stop         # per stop: it may be an end of that distance
    int paid_once                           # a stop on an earlier level's route pays nothing (every train pays all)
    int not_all_trains                      # 1: a run of every train is refused (18TN's Civil War: the lowest
    #                                         route earns nothing then, so a run of one train fewer earns as much)
    const uint8_t* uncounted_by_best_route_stop  # [n_best_route * n_stops]: 1 where per_stop does not count the
    #                                         stop (18Tokaido's Sleeper Train counts cities; zeros: every stop)
    const uint32_t* skip_penalty_by_train   # per train: penalty bits its routes neither earn nor pay (1822PNW's E)
    const uint8_t* tokens_only_by_train     # per train: paid only by token cities, which alone meet best-route groups
    const int32_t* per_hex_by_best_route    # per best_route: paid for each of its hexes the route crosses ...
    const uint32_t* hexes_by_best_route     # ... its hexes, as penalty bits (less the train's skip_penalty_by_train)
    const uint8_t* halved_by_train          # per train: paid half its route's revenue, 1 rounded to 10
    #                                         (1822MX's 3/2P), 2 rounded down (an obsolete train, g_1858)
    const uint32_t* skip_set_pairs_by_train  # per train: bit k set where set pair k does not pay it (1822CA's ports)
    const uint8_t* large_first_by_train     # per train: it pays every large stop it visits (TrainSpec.large_first)
    const uint64_t* once_bits_by_stop      # per stop: the locations (bits) whose bonus it pays, once across the
    #                                         company's routes (18NY's connection bonuses); zeros: none
    int64_t once_amount                     # what a stop paying a location an earlier level's route paid loses
    int stop_bonus_kinds                    # a route whose track kinds meet this mask earns ...
    int stop_bonus_amount                   # ... this for each stop it is paid (1844's narrow track; 0: none)
    const uint8_t* free_by_stop             # per stop: a visit costs no distance (visit_cost 0): counted neither
    #                                         large nor small (count_large, count_small)
    const uint8_t* half_again_by_stop       # per stop: 1 paid half again, 2 needs 2 other stops (NULL: no such port)
    const int32_t* end_bonus_by_stop        # per stop: paid again at a route's end (NULL: destination_ends not in play)
    const uint8_t* ends_free_by_train       # per train: its route may begin and end at a no_end stop (1825's 3T)
    const uint8_t* needs_end_by_train       # per train: its route begins or ends at an end_set stop (18Rhl's 8)
    const uint8_t* end_set_by_stop          # per stop: one of those ends (18Rhl's RGE hexes)

cdef struct Bounds:
    # Proven while the search runs, round by round.
    int64_t* alone_by_level                 # per level: best of its train alone (a bound until proven)
    int64_t* from_level                     # [n_trains + 1]: best of the trains from this level on
    int stage                               # 0: trains alone, 1: suffixes, 2: all trains (how far the proof got)
    int suffix_from                         # lowest level whose from_level is proven (n_trains: none yet)
    int64_t bound                           # upper bound proven by a kernel other than run() (-1: none)

cdef struct Half:
    # One direction of a route out of its anchor, as a stack of frames.
    int h                                   # frames above the anchor (segments taken)
    int32_t* stop                           # per frame: the stop reached; stop[0] is the anchor
    int32_t* pos                            # per frame: the next dir to try out of it
    int32_t* dseg                           # per frame: the dir that reached it (-1 at frame 0)
    uint32_t* pen                           # per frame: penalty hexes crossed so far (mask)
    uint8_t* gauge                          # per frame: track kinds of the route so far (half 1's
    #                                         frame 0 holds half 0's: the whole route's)
    int64_t* later                          # per frame: the most the later levels can add on the track
    #                                         then in use (-1: not looked at yet)
    int32_t* hexd                           # per frame: hex edges crossed from the anchor (a train with a hex cap)

cdef struct Level:
    # One train's routes, walked one at a time.
    int t                                   # the train this level places
    const int32_t* anchors                  # per rank: its train's anchors (a row of anchor_by_train_rank)
    const int32_t* rank                     # per stop: rank among them or -1 (a row of rank_by_train_stop)
    int n_anchors
    int anchor_i                            # rank of the current anchor
    int phase                               # 0: pick the next anchor; 1: growing half 0; 2: growing half 1
    int d1                                  # first dir of half 0 (-1 before one is taken)
    int pending2                            # half 0 just grew: start a half 1 from the anchor next
    int local_pending                       # the anchor alone (a local run) is the next route
    int empty                               # this level's train runs nothing
    int n_large                             # large stops visited by the route so far
    int n_small                             # small stops visited
    int n_halves                            # border sides crossed so far (gauge_halves_by_seg)
    int no_mines                            # its train visits no mine (MINES_NONE)
    int64_t vsum                            # sum of their values for this train
    int64_t base                            # revenue of the levels above (the routes already placed)
    int base_large                          # largest paid large value above (for the Pullman)
    int64_t rev                             # revenue of the route just yielded
    int best_large                          # its largest paid large value (0 without a Pullman)
    int64_t br_base[MAX_BEST_ROUTE]         # per best_route: the most the routes above earn it
    int64_t br_rev[MAX_BEST_ROUTE]          # per best_route: what the route just yielded earns it
    Half half[2]
    uint64_t* locs                          # [n_loc_words]: locations visited by this route (bitset)
    uint64_t claimed_in                     # once_bits paid by the routes of the levels above
    uint64_t claimed_out                    # ... and by the route just yielded

cdef struct Scratch:
    # Owned by the search, freed at the end.
    Level* levels                           # per level
    uint64_t* used                          # [n_track_groups * n_track_words]: track in use by the placed
    #                                         routes, per overlap group
    uint8_t* mark                           # per stop, while pricing bonuses: 2 on the route, 3 also paid
    uint8_t* reach_mark                     # per stop: flag while bounding by reachable stops
    int32_t* stops                          # [4 * (n_stops + 1)]: stop lists while pricing and bounding

cdef struct Limits:
    double deadline                         # monotonic seconds; <= 0 for none
    int64_t node_budget                     # <= 0 for none
    const uint8_t* cancel                   # set to 1 by another thread to stop; NULL for none
    int64_t nodes                           # search nodes expanded (each exactly counted)
    int64_t next_check                      # node count at which the limits are looked at next
    int stop_code                           # STOP_NONE running/finished, else why it stopped (a STOP_ code)
    void* on_improve                        # a Python callback, called with the GIL; NULL for none

cdef struct Best:
    # The best solution found, per level.
    int64_t value
    int32_t* n_stops_by_level
    int32_t* stops_by_level                 # [n_trains * (n_stops + 1)]
    int32_t* segs_by_level                  # [n_trains * (n_stops + 1)]: track segments, route order
    int64_t* revenue_by_level
    int32_t* paid_by_level                  # [n_trains * (n_stops + 1)]: the stops its train is paid for
    int32_t* n_paid_by_level

cdef struct Solve:
    # The running round: levels lo .. hi - 1 (the others run nothing).
    int lo
    int hi
    int64_t cur_best                        # its best value (its pruning threshold)
    int use_pullman                         # it counts the company-level bonuses (Pullman, best-route)

cdef struct Express:
    # A route's stops split for pricing a train that may skip stops (views into Scratch.stops).
    int32_t* inter                          # the route's interesting stops (at most 12), tried in and out
    int m
    int32_t* big                            # the other large stops, richest first
    int nb
    int32_t* small                          # the other small stops, richest first
    int ns
    int32_t* paid                           # the subset being tried
    int n_paid
    int n_large                             # large stops in paid so far
    int n_small
    int64_t head                            # value of the forced part of paid (before the greedy rest)
    int forced_tok                          # index into big then small of the token stop forced in, or -1
    int32_t forced[4]                       # indexes into big then small of the stops a largest-stop bonus
    int n_forced                            # may pay for, forced in (at most MAX_FORCED)
    int ps                                  # what each paid stop adds for the route's track (1844's narrow)

cdef struct TopK:
    # The k largest values seen, descending (an express: the best stops it could be paid for).
    int k
    int n                                   # values held (<= k)
    int64_t sum                             # their sum
    int32_t* vals                           # [k]

cdef struct Keyed:
    # An item sorted by key (then by item), for deriving the input.
    int64_t key
    int32_t item

cdef struct Ctx:
    Input inp
    Bounds bounds
    Scratch work
    Limits lim
    Best best
    Solve run


cdef inline int same_train_as_above(const Input* g, int li) noexcept nogil:
    """Level li (>= 1) places a train identical to level li - 1's."""
    return g.group_by_train[g.train_by_level[li]] == g.group_by_train[g.train_by_level[li - 1]]


# ---- track and locations in use (shared by the search and its bounds)

cdef inline uint64_t* used_by(Ctx* c, int t) noexcept nogil:
    """The track in use by the routes of train t's overlap group."""
    return c.work.used + <int64_t>c.inp.track_group_by_train[t] * c.inp.n_track_words


cdef inline int res_free(Ctx* c, int t, int seg) noexcept nogil:
    """Segment seg's track is free for train t."""
    cdef const uint64_t* r = c.inp.track_bits_by_seg + <int64_t>seg * c.inp.n_track_words
    cdef uint64_t* used = used_by(c, t)
    cdef int w
    for w in range(c.inp.n_track_words):
        if r[w] & used[w]:
            return 0
    return 1


cdef inline void res_flip(Ctx* c, int t, int seg) noexcept nogil:
    """Take (or release) segment seg's track for train t."""
    cdef const uint64_t* r = c.inp.track_bits_by_seg + <int64_t>seg * c.inp.n_track_words
    cdef uint64_t* used = used_by(c, t)
    cdef int w
    for w in range(c.inp.n_track_words):
        used[w] ^= r[w]


cdef inline int loc_has(Level* L, int loc) noexcept nogil:
    return (L.locs[loc >> 6] >> (loc & 63)) & 1


cdef inline void loc_flip(Level* L, int loc) noexcept nogil:
    L.locs[loc >> 6] ^= (<uint64_t>1) << (loc & 63)


cdef inline int count_large(const Input* g, int s) noexcept nogil:
    """1 where a visit to stop s counts against the train's large (city) caps: large and not free."""
    return g.large_by_stop[s] and not g.free_by_stop[s]


cdef inline int count_small(const Input* g, int s) noexcept nogil:
    """1 where a visit to stop s counts against the train's small (town) caps: small and not free."""
    return not g.large_by_stop[s] and not g.free_by_stop[s]
