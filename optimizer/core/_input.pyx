# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The kernel's input: what it derives from a problem, and the checks before any kernel reads it.

:func:`derive` computes, in C, the per-train arrays :func:`optimizer.core.compiled.prepare` puts
in a :class:`~optimizer.core.contract.KernelInput`; :func:`check` (``borrow`` for the kernels)
checks a KernelInput and the Problem it carries: dtype, byte order, C order, shape and index
ranges, a ``ValueError`` naming the first array it could not safely read.
"""
cimport numpy as cnp
from libc.stdlib cimport calloc, free, qsort
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

import numpy as np

from ._state cimport MAX_BEST_ROUTE, Input, Keyed

from .contract import KernelInput

cnp.import_array()


# ---- derived arrays, for compiled.prepare ----------------------------------------------------

cdef int by_key(const void* a, const void* b) noexcept nogil:
    """qsort order: key, then item, ascending."""
    cdef const Keyed* x = <const Keyed*>a
    cdef const Keyed* y = <const Keyed*>b
    if x.key != y.key:
        return -1 if x.key < y.key else 1
    return -1 if x.item < y.item else (1 if x.item > y.item else 0)


cdef int64_t derive_train(const int32_t* values, const uint8_t* large, Py_ssize_t n, const int32_t* caps,
                          int64_t multiplier, int64_t fixed_bonus, int64_t n_largest, int64_t* prefix,
                          int64_t* max_bonus, int64_t* scratch) noexcept nogil:
    """One train's max bonus, prefix sums ([3, n + 1]: the k best positive values of large
    stops, small stops, all stops) and bound alone (returned): the best k large and the best small
    stops within its pay caps, times its multiplier, plus its bonuses."""
    cdef Py_ssize_t s, k, m, which
    cdef int64_t top = 0, v, best = 0, pay_large, pay_small, pay_total
    for s in range(n):
        if values[s] > top:
            top = values[s]
    max_bonus[0] = fixed_bonus + n_largest * top  # every positive pair, the best value per largest-stop bonus
    for which in range(3):
        m = 0
        for s in range(n):
            if values[s] > 0 and (which == 2 or (large[s] != 0) == (which == 0)):
                scratch[m] = -values[s]
                m += 1
        qsort(scratch, m, sizeof(int64_t), by_int64)
        for k in range(n):
            prefix[which * (n + 1) + k + 1] = prefix[which * (n + 1) + k] + (-scratch[k] if k < m else 0)
    pay_total = min(min(caps[5], caps[2]), n)
    pay_large = min(min(min(caps[3], caps[0]), n), pay_total)
    pay_small = min(min(caps[4], caps[1]), n)
    for k in range(pay_large + 1):
        v = prefix[k] + prefix[(n + 1) + min(pay_small, pay_total - k)]
        if v > best:
            best = v
    return best * multiplier + max_bonus[0]


cdef void order_levels(const int64_t* bound, const int32_t[::1] group, Py_ssize_t K, Keyed* keyed,
                       int32_t* order) noexcept nogil:
    """Strongest trains first, identical trains side by side: by (-bound, group, train)."""
    cdef Py_ssize_t i, k
    cdef Keyed swap
    for i in range(K):
        keyed[i].key = -bound[i]
        keyed[i].item = <int32_t>i
    for i in range(1, K):  # insertion sort: a handful of trains
        k = i
        while k > 0 and before(&keyed[k], &keyed[k - 1], group):
            swap = keyed[k]
            keyed[k] = keyed[k - 1]
            keyed[k - 1] = swap
            k -= 1
    for i in range(K):
        order[i] = keyed[i].item


cdef void rank_anchors(const int32_t[:, ::1] values, const uint8_t[::1] token, const uint8_t[::1] requires_token,
                       Keyed* keyed, int32_t* anchors, int32_t* n_anchors, int32_t* rank) noexcept nogil:
    """Stops richest first (best value over the trains), ties by index: the token stops for a
    train that needs one, every stop for the others."""
    cdef Py_ssize_t K = values.shape[0], n = values.shape[1], s, t, i, m
    cdef int64_t best
    for s in range(n):
        best = values[0, s] if K else 0
        for t in range(1, K):
            if values[t, s] > best:
                best = values[t, s]
        keyed[s].key = -best
        keyed[s].item = <int32_t>s
    qsort(keyed, n, sizeof(Keyed), by_key)
    for t in range(K):
        m = 0
        for i in range(n):
            s = keyed[i].item
            if token[s] or not requires_token[t]:
                anchors[t * n + m] = <int32_t>s
                rank[t * n + s] = <int32_t>m
                m += 1
        n_anchors[t] = <int32_t>m


def derive(const int32_t[:, ::1] values, const uint8_t[::1] large, const uint8_t[::1] token,
           const int32_t[:, ::1] caps, const int32_t[::1] multiplier, const int32_t[::1] group,
           const uint8_t[::1] requires_token, int64_t fixed_bonus, int64_t n_largest):
    """What :func:`optimizer.core.compiled.prepare` derives per train, in C (numpy costs more
    per call than these loops take): max_bonus, prefix, bound, order, anchors, n_anchors, rank,
    as documented on KernelInput."""
    cdef Py_ssize_t K = values.shape[0], n = values.shape[1], t
    for name, length, want in (("large", large.shape[0], n), ("token", token.shape[0], n),
                               ("caps", caps.shape[0], K), ("multiplier", multiplier.shape[0], K),
                               ("group", group.shape[0], K), ("requires_token", requires_token.shape[0], K)):
        if length != want:
            raise ValueError(f"problem {name}: {length} entries for {want}")
    if K and caps.shape[1] != 6:
        raise ValueError(f"problem caps: {caps.shape[1]} columns for 6")
    max_bonus = np.empty(K, dtype=np.int64)
    prefix = np.zeros((K, 3, n + 1), dtype=np.int64)
    bound = np.empty(K, dtype=np.int64)
    order = np.empty(K, dtype=np.int32)
    anchors = np.zeros((K, n), dtype=np.int32)
    n_anchors = np.empty(K, dtype=np.int32)
    rank = np.full((K, n), -1, dtype=np.int32)
    cdef int64_t* max_bonus_p = <int64_t*>cnp.PyArray_DATA(max_bonus)
    cdef int64_t* prefix_p = <int64_t*>cnp.PyArray_DATA(prefix)
    cdef int64_t* bound_p = <int64_t*>cnp.PyArray_DATA(bound)
    cdef int32_t* order_p = <int32_t*>cnp.PyArray_DATA(order)
    cdef int32_t* anchors_p = <int32_t*>cnp.PyArray_DATA(anchors)
    cdef int32_t* n_anchors_p = <int32_t*>cnp.PyArray_DATA(n_anchors)
    cdef int32_t* rank_p = <int32_t*>cnp.PyArray_DATA(rank)
    cdef Keyed* keyed = <Keyed*>calloc(max(n, K) + 1, sizeof(Keyed))
    cdef int64_t* scratch = <int64_t*>calloc(n + 1, sizeof(int64_t))
    if keyed == NULL or scratch == NULL:
        free(keyed)
        free(scratch)
        raise MemoryError("derive")
    with nogil:
        for t in range(K):
            bound_p[t] = derive_train(&values[t, 0] if n else NULL, &large[0] if n else NULL, n, &caps[t, 0],
                                      multiplier[t], fixed_bonus, n_largest, prefix_p + t * 3 * (n + 1),
                                      max_bonus_p + t, scratch)
        order_levels(bound_p, group, K, keyed, order_p)
        rank_anchors(values, token, requires_token, keyed, anchors_p, n_anchors_p, rank_p)
    free(keyed)
    free(scratch)
    return max_bonus, prefix, bound, order, anchors, n_anchors, rank


cdef inline int before(const Keyed* a, const Keyed* b, const int32_t[::1] group) noexcept nogil:
    """Train a goes before train b: by key (-bound), then group, then index."""
    if a.key != b.key:
        return a.key < b.key
    if group[a.item] != group[b.item]:
        return group[a.item] < group[b.item]
    return a.item < b.item


cdef int by_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return -1 if x < y else (1 if x > y else 0)


# ---- the checks ------------------------------------------------------------------------------

cdef int I32 = np.dtype(np.int32).num, I64 = np.dtype(np.int64).num, U8 = np.dtype(np.uint8).num
cdef int U32 = np.dtype(np.uint32).num, U64 = np.dtype(np.uint64).num
DTYPE_NAMES = {I32: "int32", I64: "int64", U8: "uint8", U32: "uint32", U64: "uint64"}
_ZEROS = [None]  # the read-only zeros every empty array lends (one buffer, grown when a shape needs more)
ITEM_SIZES = {I32: 4, I64: 8, U8: 1, U32: 4, U64: 8}


def _refuse(name, why):
    raise ValueError(f"kernel input {name}: {why}")


cdef object padding(tuple shape, int typenum):
    """Zeros for an array of this shape (each axis at least one long) and kind, shared and
    read-only: the kernel always has an address to borrow, and reads zeros there."""
    cdef Py_ssize_t nbytes = ITEM_SIZES[typenum], d
    for d in shape:
        nbytes *= max(1, d)
    return zeros_of(nbytes)


cdef inline object zeros_of(Py_ssize_t nbytes):
    """The shared zeros, at least ``nbytes`` long (aligned for every kind: numpy's allocation)."""
    found = _ZEROS[0]
    if found is None or cnp.PyArray_SIZE(<cnp.ndarray>found) < nbytes:
        found = np.zeros(max(nbytes, 4096), dtype=np.uint8)
        found.flags.writeable = False
        _ZEROS[0] = found  # a search still reading the one before keeps it (its ``keep``)
    return found


cdef const void* take(src, str name, int typenum, list keep, Py_ssize_t d0, Py_ssize_t d1=-1,
                      Py_ssize_t d2=-1) except NULL:
    """The data of array ``name`` of ``src`` (a Problem or a KernelInput) once its dtype, byte
    order, C order and shape are checked; ValueError naming it otherwise. An empty array lends
    padding instead (kept alive in ``keep`` while the search runs)."""
    a = getattr(src, name)
    if not isinstance(a, np.ndarray):
        _refuse(name, f"must be a numpy array, not {type(a).__name__}")
    cdef cnp.ndarray arr = <cnp.ndarray>a
    if cnp.PyArray_TYPE(arr) != typenum or not cnp.PyArray_ISNOTSWAPPED(arr):
        _refuse(name, f"dtype must be {DTYPE_NAMES[typenum]}, not {a.dtype}")
    cdef int nd = 1 if d1 < 0 else (2 if d2 < 0 else 3)
    cdef cnp.npy_intp* dims = cnp.PyArray_DIMS(arr)
    if (cnp.PyArray_NDIM(arr) != nd or dims[0] != d0 or (nd > 1 and dims[1] != d1)
            or (nd > 2 and dims[2] != d2)):
        _refuse(name, f"shape must be {(d0, d1, d2)[:nd]}, not {a.shape}")
    if cnp.PyArray_SIZE(arr) == 0:
        arr = <cnp.ndarray>padding((d0, max(d1, 1), max(d2, 1)), typenum)
        keep.append(arr)
    elif not cnp.PyArray_IS_C_CONTIGUOUS(arr):
        _refuse(name, "must be C-contiguous")
    return cnp.PyArray_DATA(arr)


cdef int64_t first_outside(const int32_t* a, int64_t n, int64_t lo, int64_t hi) noexcept nogil:
    """Index of the first of a[0 .. n-1] outside lo .. hi - 1, or -1."""
    cdef int64_t i
    for i in range(n):
        if a[i] < lo or a[i] >= hi:
            return i
    return -1


cdef int in_range(const int32_t* a, int64_t n, int64_t lo, int64_t hi, str name) except -1:
    cdef int64_t i = first_outside(a, n, lo, hi)
    if i >= 0:
        _refuse(name, f"entry {i} is {a[i]}, outside {lo} .. {hi - 1}")
    return 0


cdef int size(src, str name, int64_t hi=2 ** 31 - 1) except -1:
    value = getattr(src, name)
    if not isinstance(value, (int, np.integer)) or not 0 <= value <= hi:
        _refuse(name, f"must be an integer in 0 .. {hi}, not {value!r}")
    return value


cdef int borrow_sizes(Input* g, p, ki) except -1:
    g.n_stops = size(p, "n_stops")
    g.n_dirs = size(p, "n_dirs")
    g.n_segs = size(p, "n_segs")
    g.n_track_words = size(p, "n_track_words", 1 << 20)
    if g.n_track_words < 1:
        _refuse("n_track_words", "must be at least 1")
    g.n_locs = size(p, "n_locs", g.n_stops)
    g.n_loc_words = (g.n_locs + 63) // 64 + 1
    g.n_trains = size(p, "n_trains")
    g.n_pairs = size(p, "n_pairs")
    g.n_largest = size(p, "n_largest")
    g.n_penalties = size(p, "n_penalties", 32)
    g.n_best_route = size(p, "n_best_route", MAX_BEST_ROUTE)
    g.n_set_pairs = size(p, "n_set_pairs", 16)
    g.n_track_groups = size(p, "n_track_groups", 64)
    if g.n_track_groups < 1:
        _refuse("n_track_groups", "must be at least 1")
    g.r2r_per_token = size(p, "r2r_per_token")
    g.r2r_max_tokens = size(p, "r2r_max_tokens")
    g.has_pullman = size(p, "has_pullman", 1)
    g.pullman_cap = size(ki, "pullman_cap")
    g.reach_from = size(ki, "reach_from")
    g.not_all_trains = size(p, "not_all_trains", 1)
    g.once_amount = size(p, "once_amount")
    return 0


cdef int borrow_stops(Input* g, p, ki, list keep) except -1:
    cdef int n = g.n_stops
    g.large_by_stop = <const uint8_t*>take(p, "large_by_stop", U8, keep, n)
    g.token_by_stop = <const uint8_t*>take(p, "token_by_stop", U8, keep, n)
    g.red_by_stop = <const uint8_t*>take(p, "red_by_stop", U8, keep, n)
    g.end_only_by_stop = <const uint8_t*>take(p, "end_only_by_stop", U8, keep, n)
    g.no_end_by_stop = <const uint8_t*>take(p, "no_end_by_stop", U8, keep, n)
    g.loc_by_stop = <const int32_t*>take(p, "loc_by_stop", I32, keep, n)
    in_range(g.loc_by_stop, n, 0, g.n_locs, "loc_by_stop")
    g.mine_by_stop = <const uint8_t*>take(p, "mine_by_stop", U8, keep, n)
    g.free_by_stop = <const uint8_t*>take_or_zeros(p, "free_by_stop", U8, keep, n)
    g.interesting_by_stop = <const uint8_t*>take(ki, "interesting_by_stop", U8, keep, n)
    g.half_again_by_stop = NULL  # port_half_again (1850Jr): absent from a Problem without the family
    if getattr(p, "half_again_by_stop", None) is not None:
        g.half_again_by_stop = <const uint8_t*>take(p, "half_again_by_stop", U8, keep, n)
    g.end_bonus_by_stop = NULL  # destination_ends (1870): absent from a Problem without the family
    if getattr(p, "end_bonus_by_stop", None) is not None:
        g.end_bonus_by_stop = <const int32_t*>take(p, "end_bonus_by_stop", I32, keep, n)
    return 0


cdef int borrow_track(Input* g, p, list keep) except -1:
    """The directed segments (CSR by stop) and the track segments."""
    cdef int n = g.n_stops, i
    cdef int64_t previous = 0
    g.adj_ptr_by_stop = <const int32_t*>take(p, "adj_ptr_by_stop", I32, keep, n + 1)
    for i in range(n + 1):
        if g.adj_ptr_by_stop[i] < previous or (i == 0 and g.adj_ptr_by_stop[0] != 0):
            _refuse("adj_ptr_by_stop", f"must rise from 0; entry {i} is {g.adj_ptr_by_stop[i]}")
        previous = g.adj_ptr_by_stop[i]
    if g.adj_ptr_by_stop[n] != g.n_dirs:
        _refuse("adj_ptr_by_stop", f"must end at n_dirs = {g.n_dirs}, not {g.adj_ptr_by_stop[n]}")
    g.to_stop_by_dir = <const int32_t*>take(p, "to_stop_by_dir", I32, keep, g.n_dirs)
    in_range(g.to_stop_by_dir, g.n_dirs, 0, n, "to_stop_by_dir")
    g.seg_by_dir = <const int32_t*>take(p, "seg_by_dir", I32, keep, g.n_dirs)
    in_range(g.seg_by_dir, g.n_dirs, 0, g.n_segs, "seg_by_dir")
    g.from_terminal_by_dir = <const uint8_t*>take(p, "from_terminal_by_dir", U8, keep, g.n_dirs)
    g.to_terminal_by_dir = <const uint8_t*>take(p, "to_terminal_by_dir", U8, keep, g.n_dirs)
    g.track_bits_by_seg = <const uint64_t*>take(p, "track_bits_by_seg", U64, keep, g.n_segs, g.n_track_words)
    g.penalty_mask_by_seg = <const uint32_t*>take(p, "penalty_mask_by_seg", U32, keep, g.n_segs)
    if g.n_penalties < 32:
        for i in range(g.n_segs):
            if g.penalty_mask_by_seg[i] >> g.n_penalties:
                _refuse("penalty_mask_by_seg", f"entry {i} names a penalty hex beyond the {g.n_penalties} there are")
    g.amount_by_penalty = <const int32_t*>take(p, "amount_by_penalty", I32, keep, g.n_penalties)
    g.gauge_halves_by_seg = <const int32_t*>take(p, "gauge_halves_by_seg", I32, keep, g.n_segs)
    in_range(g.gauge_halves_by_seg, g.n_segs, 0, 1 << 20, "gauge_halves_by_seg")
    g.stop_bonus_kinds = int(p.stop_bonus_kinds)
    g.stop_bonus_amount = int(p.stop_bonus_amount)
    if g.stop_bonus_kinds >> 5 or g.stop_bonus_kinds < 0:
        _refuse("stop_bonus_kinds", "names a track kind beyond the 5 there are")
    if not -(1 << 20) < g.stop_bonus_amount < (1 << 20):
        _refuse("stop_bonus_amount", "must lie within 2**20 either way")
    g.has_gauge = 0
    for i in range(g.n_segs):
        if g.gauge_halves_by_seg[i]:
            g.has_gauge = 1
    g.gauge_by_seg = <const uint8_t*>take(p, "gauge_by_seg", U8, keep, g.n_segs)
    for i in range(g.n_segs):
        if g.gauge_by_seg[i] >> 5:
            _refuse("gauge_by_seg", f"entry {i} names a track kind beyond the 5 there are")
    return 0


cdef int borrow_trains(Input* g, p, ki, list keep) except -1:
    """Per train (from the problem), what the search derives per train, and the levels (trains in
    search order)."""
    cdef int n = g.n_stops, K = g.n_trains, i
    g.values_by_train_stop = <const int32_t*>take(p, "values_by_train_stop", I32, keep, K, n)
    g.caps_by_train = <const int32_t*>take(p, "caps_by_train", I32, keep, K, 6)
    in_range(g.caps_by_train, 6 * K, 0, 2 ** 31 - 1, "caps_by_train")
    g.multiplier_by_train = <const int32_t*>take(p, "multiplier_by_train", I32, keep, K)
    in_range(g.multiplier_by_train, K, 0, 2 ** 31 - 1, "multiplier_by_train")
    g.group_by_train = <const int32_t*>take(p, "group_by_train", I32, keep, K)
    g.pays_all_by_train = <const uint8_t*>take(p, "pays_all_by_train", U8, keep, K)
    g.requires_token_by_train = <const uint8_t*>take(p, "requires_token_by_train", U8, keep, K)
    g.local_by_train = <const uint8_t*>take(p, "local_by_train", U8, keep, K)
    g.free_gauge_by_train = <const int32_t*>take(p, "free_gauge_by_train", I32, keep, K)
    in_range(g.free_gauge_by_train, K, 0, 1 << 20, "free_gauge_by_train")
    g.end_cap_by_train = <const int32_t*>take(p, "end_cap_by_train", I32, keep, K)
    in_range(g.end_cap_by_train, K, 0, 2 ** 31 - 1, "end_cap_by_train")
    g.has_end_caps = 0
    for i in range(K):
        if g.end_cap_by_train[i] < g.caps_by_train[i * 6] + 2:
            g.has_end_caps = 1
    g.track_group_by_train = <const int32_t*>take(p, "track_group_by_train", I32, keep, K)
    in_range(g.track_group_by_train, K, 0, g.n_track_groups, "track_group_by_train")
    g.token_ends_by_train = <const uint8_t*>take(p, "token_ends_by_train", U8, keep, K)
    g.min_large_by_train = <const int32_t*>take(p, "min_large_by_train", I32, keep, K)
    in_range(g.min_large_by_train, K, 0, 2 ** 31 - 1, "min_large_by_train")
    g.mine_rule_by_train = <const uint8_t*>take(p, "mine_rule_by_train", U8, keep, K)
    g.gauge_ok_by_train = <const uint32_t*>take(p, "gauge_ok_by_train", U32, keep, K)
    g.max_bonus_by_train = <const int64_t*>take(ki, "max_bonus_by_train", I64, keep, K)
    g.prefix_by_train_class_count = <const int64_t*>take(ki, "prefix_by_train_class_count", I64, keep, K, 3, n + 1)
    g.anchor_by_train_rank = <const int32_t*>take(ki, "anchor_by_train_rank", I32, keep, K, n)
    g.n_anchors_by_train = <const int32_t*>take(ki, "n_anchors_by_train", I32, keep, K)
    in_range(g.n_anchors_by_train, K, 0, n + 1, "n_anchors_by_train")
    for i in range(K):
        in_range(g.anchor_by_train_rank + <int64_t>i * n, g.n_anchors_by_train[i], 0, n, "anchor_by_train_rank")
    g.rank_by_train_stop = <const int32_t*>take(ki, "rank_by_train_stop", I32, keep, K, n)
    in_range(g.rank_by_train_stop, <int64_t>K * n, -1, n, "rank_by_train_stop")
    g.train_by_level = <const int32_t*>take(ki, "train_by_level", I32, keep, K)
    if K and sorted(ki.train_by_level.tolist()) != list(range(K)):
        _refuse("train_by_level", "must be a permutation of the trains")
    g.bound_by_level = <const int64_t*>take(ki, "bound_by_level", I64, keep, K)
    g.hex_cap_by_train = <const int32_t*>take(p, "hex_cap_by_train", I32, keep, K)
    in_range(g.hex_cap_by_train, K, -1, 2 ** 30, "hex_cap_by_train")
    g.hex_edges_by_train_seg = <const int32_t*>take(p, "hex_edges_by_train_seg", I32, keep, K, g.n_segs)
    in_range(g.hex_edges_by_train_seg, <int64_t>K * g.n_segs, 0, 2 ** 30, "hex_edges_by_train_seg")
    g.paid_once = size(p, "paid_once", 1)
    if g.paid_once:
        for i in range(K):
            if not g.pays_all_by_train[i]:
                _refuse("paid_once", "needs every train to pay all its stops (pays_all_by_train)")
    g.skip_penalty_by_train = <const uint32_t*>take_or_zeros(p, "skip_penalty_by_train", U32, keep, K)
    g.tokens_only_by_train = <const uint8_t*>take_or_zeros(p, "tokens_only_by_train", U8, keep, K)
    g.halved_by_train = <const uint8_t*>take_or_zeros(p, "halved_by_train", U8, keep, K)
    g.skip_set_pairs_by_train = <const uint32_t*>take_or_zeros(p, "skip_set_pairs_by_train", U32, keep, K)
    g.ends_free_by_train = <const uint8_t*>take_or_zeros(p, "ends_free_by_train", U8, keep, K)
    return 0


cdef const void* take_or_zeros(src, str name, int typenum, list keep, Py_ssize_t d0) except NULL:
    """As ``take``, but an empty array (a problem built without this optional field) lends zeros of
    length ``d0``."""
    a = getattr(src, name, None)
    if isinstance(a, np.ndarray) and cnp.PyArray_SIZE(<cnp.ndarray>a) == 0:
        none = zeros_of(max(1, d0) * ITEM_SIZES[typenum])
        keep.append(none)
        return cnp.PyArray_DATA(<cnp.ndarray>none)
    return take(src, name, typenum, keep, d0)


cdef int borrow_bonuses(Input* g, p, list keep) except -1:
    cdef int n = g.n_stops, i
    cdef cnp.ndarray none
    g.stop_a_by_pair = <const int32_t*>take(p, "stop_a_by_pair", I32, keep, g.n_pairs)
    in_range(g.stop_a_by_pair, g.n_pairs, 0, n, "stop_a_by_pair")
    g.stop_b_by_pair = <const int32_t*>take(p, "stop_b_by_pair", I32, keep, g.n_pairs)
    in_range(g.stop_b_by_pair, g.n_pairs, 0, n, "stop_b_by_pair")
    g.amount_by_pair = <const int32_t*>take(p, "amount_by_pair", I32, keep, g.n_pairs)
    g.visited_by_pair = <const uint8_t*>take(p, "visited_by_pair", U8, keep, g.n_pairs)
    g.trigger_by_largest = <const int32_t*>take(p, "trigger_by_largest", I32, keep, g.n_largest)
    in_range(g.trigger_by_largest, g.n_largest, 0, n, "trigger_by_largest")
    g.excluded_by_largest_stop = <const uint8_t*>take(p, "excluded_by_largest_stop", U8, keep, g.n_largest, n)
    g.sets_by_stop = <const uint32_t*>take(p, "sets_by_stop", U32, keep, n)
    for i in range(n):
        if g.n_set_pairs < 16 and g.sets_by_stop[i] >> (2 * g.n_set_pairs):
            _refuse("sets_by_stop", f"entry {i} names a set beyond the {g.n_set_pairs} set pairs there are")
    g.amount_by_set_pair = <const int32_t*>take(p, "amount_by_set_pair", I32, keep, g.n_set_pairs)
    g.visited_by_set_pair = <const uint8_t*>take(p, "visited_by_set_pair", U8, keep, g.n_set_pairs)
    if isinstance(p.largest_by_set_pair, np.ndarray) and p.largest_by_set_pair.size == 0:
        none = <cnp.ndarray>padding((g.n_set_pairs,), U8)  # none pays its richest stop again
        keep.append(none)
        g.largest_by_set_pair = <const uint8_t*>cnp.PyArray_DATA(none)
    else:
        g.largest_by_set_pair = <const uint8_t*>take(p, "largest_by_set_pair", U8, keep, g.n_set_pairs)
    borrow_best_route(g, p, keep)
    borrow_crow(g, p, keep)
    borrow_large_first(g, p, keep)
    borrow_once(g, p, keep)
    return 0


cdef int borrow_crow(Input* g, p, list keep) except -1:
    """The crow-distance bonus (a Problem without one has empty arrays: no train earns it)."""
    cdef int n = g.n_stops, K = g.n_trains, i
    g.has_crow = 0
    if getattr(p, "crow_per_hex_by_train", None) is None or p.crow_per_hex_by_train.size == 0:
        return 0
    g.crow_per_hex_by_train = <const int32_t*>take(p, "crow_per_hex_by_train", I32, keep, K)
    in_range(g.crow_per_hex_by_train, K, 0, 1 << 20, "crow_per_hex_by_train")
    g.crow_x_by_stop = <const int32_t*>take(p, "crow_x_by_stop", I32, keep, n)
    in_range(g.crow_x_by_stop, n, -(1 << 20), 1 << 20, "crow_x_by_stop")
    g.crow_y_by_stop = <const int32_t*>take(p, "crow_y_by_stop", I32, keep, n)
    in_range(g.crow_y_by_stop, n, -(1 << 20), 1 << 20, "crow_y_by_stop")
    g.crow_end_by_stop = <const uint8_t*>take(p, "crow_end_by_stop", U8, keep, n)
    for i in range(K):
        if g.crow_per_hex_by_train[i]:
            g.has_crow = 1
    return 0


cdef int borrow_large_first(Input* g, p, list keep) except -1:
    """The trains that pay every large stop they visit; an empty array: none does."""
    g.large_first_by_train = <const uint8_t*>take_or_zeros(p, "large_first_by_train", U8, keep, g.n_trains)
    return 0


cdef int borrow_once(Input* g, p, list keep) except -1:
    """The locations each stop pays a bonus of once across the routes (none where the array is empty)."""
    g.once_bits_by_stop = <const uint64_t*>take_or_zeros(p, "once_bits_by_stop", U64, keep, g.n_stops)
    return 0


cdef int borrow_best_route(Input* g, p, list keep) except -1:
    """The best-route bonuses: each stop's groups among its bonus's groups."""
    cdef int n = g.n_stops, B = g.n_best_route, k
    cdef int64_t i, j
    cdef cnp.ndarray none
    g.amount_by_best_route = <const int32_t*>take(p, "amount_by_best_route", I32, keep, B)
    g.per_stop_by_best_route = <const int32_t*>take(p, "per_stop_by_best_route", I32, keep, B)
    if isinstance(p.multiplied_by_best_route, np.ndarray) and p.multiplied_by_best_route.size == 0:
        none = <cnp.ndarray>padding((B,), U8)  # none is multiplied
        keep.append(none)
        g.multiplied_by_best_route = <const uint8_t*>cnp.PyArray_DATA(none)
    else:
        g.multiplied_by_best_route = <const uint8_t*>take(p, "multiplied_by_best_route", U8, keep, B)
    g.groups_by_best_route_stop = <const uint32_t*>take(p, "groups_by_best_route_stop", U32, keep, B, n)
    uncounted = getattr(p, "uncounted_by_best_route_stop", None)
    if isinstance(uncounted, np.ndarray) and uncounted.size == 0:
        none = <cnp.ndarray>padding((B, n), U8)  # every stop counts
        keep.append(none)
        g.uncounted_by_best_route_stop = <const uint8_t*>cnp.PyArray_DATA(none)
    else:
        g.uncounted_by_best_route_stop = <const uint8_t*>take(p, "uncounted_by_best_route_stop", U8, keep, B, n)
    g.full_by_best_route = <const uint32_t*>take(p, "full_by_best_route", U32, keep, B)
    g.per_hex_by_best_route = <const int32_t*>take_or_zeros(p, "per_hex_by_best_route", I32, keep, B)
    g.hexes_by_best_route = <const uint32_t*>take_or_zeros(p, "hexes_by_best_route", U32, keep, B)
    for k in range(B):
        for i in range(n):
            j = <int64_t>k * n + i
            if g.groups_by_best_route_stop[j] & ~g.full_by_best_route[k]:
                _refuse("groups_by_best_route_stop",
                        f"entry [{k}, {i}] names a group beyond those of full_by_best_route[{k}]")
    return 0


cdef int borrow(Input* g, ki, list keep) except -1:
    """Point the kernel's input at a KernelInput's arrays and its Problem's, checking every one
    first: dtype, C order, shape and index ranges (ValueError naming the array), so that no index
    read later falls outside its array. ``keep`` holds what must live as long as the search."""
    if type(ki) is not KernelInput:
        raise TypeError(f"the kernel takes a KernelInput (see optimizer.core.compiled.prepare), "
                        f"not {type(ki).__name__}")
    p = ki.problem
    borrow_sizes(g, p, ki)
    borrow_stops(g, p, ki, keep)
    borrow_track(g, p, keep)
    borrow_trains(g, p, ki, keep)
    borrow_bonuses(g, p, keep)
    return 0


def check(ki):
    """Check a KernelInput and its Problem as the kernel does before it reads them: ValueError
    naming the first array it could not safely read (wrong dtype, order or shape, an index out of
    range)."""
    cdef Input g
    borrow(&g, ki, [])
