# The packing kernel (route listing plus packing): what a search may tune, carried by each search.

from libc.stdint cimport int64_t

from ._search cimport Kernel


cdef struct Settings:
    # Read only while a search runs; Packing(**settings) makes one (its keyword arguments, in this order).
    int iterations                  # subgradient steps, the sampled ones included (100: the same nodes,
    #                                 6-10% more work)
    int64_t max_routes              # per list; past this (a full map with a D train) the nested search is faster
    int64_t max_routes_many         # the same from three trains on, where nested rounds are far slower
    int64_t dive_nodes              # the nested search's first answers, before listing routes
    int64_t table_routes            # lists this long (of short bitsets) are priced by byte tables
    # A long search (counted in packing nodes) turns on what costs a short one more than it saves:
    int64_t reach_after             # the usable track walked from the tokens
    int64_t memo_grow_after         # the memo grown, and keyed from then on by the usable track (see dfs)
    int64_t mu_after                # the later levels' own prices (-1: never)
    # Pricing reads a list in value order until its prices settle, then in a reference order:
    int reference_after             # steps in value order (the prices move too much before)
    int64_t reference_routes        # lists this long get a reference order
    int64_t index_routes            # lists this long (of short bitsets) are scanned by a bit index
    # and the steps before it read only every sample_stride-th route of such a list (in value order):
    int sample_steps                # a sample's best route is not its list's, but its step a direction
    int sample_stride


cdef class Packing(Kernel):
    cdef Settings tuned
