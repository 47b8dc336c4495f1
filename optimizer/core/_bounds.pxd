# Bounds of the search (_search, _packing): declared once.

from libc.stdint cimport int64_t

from ._state cimport Ctx, Half, Level, TopK

cdef int64_t rem_bound(Ctx* c, int t, int r_large, int r_small, int r_total) noexcept nogil
cdef int64_t reach_bound(Ctx* c, Level* L, int t, int w, int d, int anchor_from, int64_t enough,
                         TopK* best=*) noexcept nogil
cdef void route_top(Ctx* c, Level* L, int t, int k, TopK* top) noexcept nogil
cdef int64_t express_reach_bound(Ctx* c, Level* L, int t, int w, int d, int anchor_from,
                                 int64_t enough) noexcept nogil
cdef int64_t later_bound(Ctx* c, int li, int64_t rest, int64_t useful) noexcept nogil
cdef int cut_by_bound(Ctx* c, int li, Level* L, Half* H, int w, int d) noexcept nogil
cdef int cut_anchor(Ctx* c, int li, Level* L, int T) noexcept nogil


cdef inline int64_t rest_bound(Ctx* c, int li) noexcept nogil:
    """Proven optimum of the trains after level li within the running solve."""
    if li + 1 < c.run.hi:
        return c.bounds.from_level[li + 1]
    return 0
