# What a route earns, in the kernels (_search, _packing): declared once.

from libc.stdint cimport int32_t, int64_t

from ._state cimport Ctx, Express, Level

cdef int route_stops(Ctx* c, Level* L, int32_t* out) noexcept nogil
cdef int route_segs(Ctx* c, Level* L, int32_t* out) noexcept nogil
cdef int64_t bonus_of(Ctx* c, int t, const int32_t* visited, int n_visited, const int32_t* paid,
                      int n_paid) noexcept nogil
cdef void express_split(Ctx* c, int t, const int32_t* visited, int nv, Express* E) noexcept nogil
cdef int express_head(Ctx* c, int t, Express* E, int mask) noexcept nogil
cdef int64_t express_rest(Ctx* c, int t, Express* E, int* kl_best, int* ks_best, int n_lp=*,
                          int64_t head_top=*) noexcept nogil
cdef void express_take(Express* E, int kl_best, int ks_best) noexcept nogil
cdef int64_t price_express(Ctx* c, int t, const int32_t* visited, int nv, int* best_large,
                           int32_t* out_paid, int32_t* n_out) noexcept nogil
cdef int64_t price_route(Ctx* c, Level* L) noexcept nogil


cdef inline int64_t best_route_sum(Ctx* c, Level* L) noexcept nogil:
    """The best-route bonuses of the routes placed down to this level's: each its best route's."""
    cdef int k
    cdef int64_t total = 0
    for k in range(c.inp.n_best_route):
        total += L.br_base[k] if L.br_base[k] > L.br_rev[k] else L.br_rev[k]
    return total
