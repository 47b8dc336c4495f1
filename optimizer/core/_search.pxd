# The compiled branch-and-bound search's functions, declared once (the state: _state.pxd; what a
# route earns: _pricing.pxd; its bounds: _bounds.pxd); the packing kernel (_packing.pyx) is built
# from them.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from ._state cimport Ctx, Express, Half, Level, TopK

# ---- limits
cdef int check_limits(Ctx* c) noexcept nogil
cdef int tick(Ctx* c) noexcept nogil
# ---- one level: the routes of one train
cdef void init_level(Ctx* c, int li, int64_t base, int base_large, Level* above, int above_ran) noexcept nogil
cdef int next_anchor(Ctx* c, int li) noexcept nogil
cdef void start_half1(Ctx* c, Level* L) noexcept nogil
cdef int64_t frame_later(Ctx* c, int li, Level* L, Half* H, int h) noexcept nogil
cdef int next_dir(Ctx* c, int li, Level* L, Half* H) noexcept nogil
cdef void take_dir(Ctx* c, Level* L, Half* H, int d) noexcept nogil
cdef void step_back(Ctx* c, Level* L, Half* H) noexcept nogil
cdef int next_route(Ctx* c, int li) noexcept nogil
cdef void unwind_level(Ctx* c, int li) noexcept nogil
# ---- the search over levels
cdef int64_t proven_bound(Ctx* c) noexcept nogil
cdef void record(Ctx* c, int upto, int64_t value) noexcept nogil
cdef void clear_best(Ctx* c, int64_t value) noexcept nogil
cdef void keep_route(Ctx* c, int li, int t, int n, int64_t revenue) noexcept nogil
cdef int32_t* best_stops(Ctx* c, int li) noexcept nogil
cdef int32_t* best_segs(Ctx* c, int li) noexcept nogil
cdef void call_improve(Ctx* c, int64_t value) noexcept with gil
cdef object _best_lists(Ctx* c)
cdef int cannot_win(Ctx* c, Level* L, int64_t extra) noexcept nogil
cdef int64_t solve(Ctx* c, int lo, int hi, int64_t init_best, int use_pullman) noexcept nogil
cdef int run(Ctx* c) noexcept nogil

# A kernel runs the whole search on a ready Ctx and returns a stop code: run() above, or another
# strategy built from the same pieces (optimizer/core/_packing.pyx), with its own settings (read
# only: one Kernel serves searches on many threads at once).
ctypedef int (*kernel_fn)(Ctx* c, const void* settings) noexcept nogil
cdef int setup(Ctx* c) noexcept nogil
cdef void teardown(Ctx* c) noexcept nogil


cdef class Kernel:
    cdef kernel_fn fn                       # the search
    cdef const void* settings               # its settings, owned by the subclass that sets them
