# The kernel's input: checked before any kernel reads it, and what it derives from a problem.

from libc.stdint cimport int32_t, int64_t, uint8_t

from ._state cimport Input, Keyed

cdef int64_t derive_train(const int32_t* values, const uint8_t* large, Py_ssize_t n, const int32_t* caps,
                          int64_t multiplier, int64_t fixed_bonus, int64_t n_largest, int64_t* prefix,
                          int64_t* max_bonus, int64_t* scratch) noexcept nogil
cdef void order_levels(const int64_t* bound, const int32_t[::1] group, Py_ssize_t K, Keyed* keyed,
                       int32_t* order) noexcept nogil
cdef void rank_anchors(const int32_t[:, ::1] values, const uint8_t[::1] token, const uint8_t[::1] requires_token,
                       Keyed* keyed, int32_t* anchors, int32_t* n_anchors, int32_t* rank) noexcept nogil
cdef int borrow(Input* g, ki, list keep) except -1
