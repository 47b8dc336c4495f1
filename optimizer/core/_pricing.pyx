# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""What a route earns, in the kernels: its stops and segments, its bonuses, and the stops an
express is paid for (``_pricing.pxd`` declares what the kernels call).

A train that pays every stop it visits is priced by a sum; an express tries its interesting stops
(the bonuses' stops) in and out, forces in the stops a largest-stop bonus may pay for, and fills
the rest greedily, richest first, within its caps (``revenue.price_route`` is the reference this
is tested against).
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from . cimport _state
from ._state cimport HALF_DOWN, HALF_TO_TEN, MINES_ONE, Ctx, Express, Input, Level


cdef int route_stops(Ctx* c, Level* L, int32_t* out) noexcept nogil:
    """The route's stops in route order: half 1 reversed, then half 0."""
    cdef int k, n = 0
    if L.phase == 2:
        k = L.half[1].h
        while k >= 1:
            out[n] = L.half[1].stop[k]
            n += 1
            k -= 1
    for k in range(L.half[0].h + 1):
        out[n] = L.half[0].stop[k]
        n += 1
    return n


cdef int route_segs(Ctx* c, Level* L, int32_t* out) noexcept nogil:
    """The route's track segments in route order (as route_stops)."""
    cdef int k, n = 0
    if L.phase == 2:
        k = L.half[1].h
        while k >= 1:
            out[n] = c.inp.seg_by_dir[L.half[1].dseg[k]]
            n += 1
            k -= 1
    for k in range(1, L.half[0].h + 1):
        out[n] = c.inp.seg_by_dir[L.half[0].dseg[k]]
        n += 1
    return n


cdef inline int half_again_on(Ctx* c, const int32_t* stops, int n, uint8_t flag) noexcept nogil:
    """A port among these stops whose flags have ``flag``: 1, port_half_again's (paid half again); 2,
    one that needs 2 other stops (port_half_again's and port_per_token's)."""
    cdef int i
    if c.inp.half_again_by_stop == NULL:
        return 0
    for i in range(n):
        if c.inp.half_again_by_stop[stops[i]] & flag:
            return 1
    return 0


cdef int64_t half_again_adjust(Ctx* c, int t, const int32_t* paid, int n_paid) noexcept nogil:
    """port_half_again (``revenue.half_again_adjustment``): the pairs of the port and each other paid
    stop paid half its value, rounded up; the engine pays half the route's sum rounded down to 10
    (g_1850_jr/game.rb#revenue_for): this takes back the difference, never positive, so the pairs
    bound what the route earns."""
    cdef const int32_t* values = c.inp.values_by_train_stop + <int64_t>t * c.inp.n_stops
    cdef int64_t total = 0, halves = 0
    cdef int i
    if not half_again_on(c, paid, n_paid, 1):
        return 0
    for i in range(n_paid):
        total += values[paid[i]]
        if not c.inp.half_again_by_stop[paid[i]] & 1:
            halves += (values[paid[i]] + 1) // 2
    total *= c.inp.multiplier_by_train[t]
    return (total // 2) // 10 * 10 - halves


cdef int64_t bonus_of(Ctx* c, int t, const int32_t* visited, int n_visited, const int32_t* paid,
                      int n_paid) noexcept nogil:
    """Pair, largest-stop and red-to-red bonuses of a route, given its paid stops (a pair counts
    when both its stops are paid or, for a visited pair, both on the route)."""
    cdef const Input* g = &c.inp
    cdef int64_t extra = 0, top
    cdef int i, k, s, tokens
    cdef const int32_t* values = g.values_by_train_stop + <int64_t>t * g.n_stops
    cdef uint8_t* mark = c.work.mark
    cdef uint8_t bit
    cdef uint32_t on_paid = 0, on_route = 0, met
    if g.n_set_pairs:
        for i in range(n_visited):
            on_route |= g.sets_by_stop[visited[i]]
        for i in range(n_paid):
            on_paid |= g.sets_by_stop[paid[i]]
        for k in range(g.n_set_pairs):
            if g.skip_set_pairs_by_train[t] >> k & 1:
                continue  # not for this train
            met = ((on_route if g.visited_by_set_pair[k] else on_paid) >> (2 * k)) & 3
            if met == 3:  # a stop of each set, however many: once
                extra += g.amount_by_set_pair[k]
                if g.largest_by_set_pair[k]:  # and the richest paid stop again (18Neb's east-west)
                    top = 0
                    for i in range(n_paid):
                        if values[paid[i]] > top:
                            top = values[paid[i]]
                    extra += top
    for i in range(n_visited):
        mark[visited[i]] = 2  # on the route
    for i in range(n_paid):
        mark[paid[i]] = 3  # on the route and paid
    for k in range(g.n_pairs):
        bit = 2 if g.visited_by_pair[k] else 1
        if mark[g.stop_a_by_pair[k]] & bit and mark[g.stop_b_by_pair[k]] & bit:
            extra += g.amount_by_pair[k]
    for k in range(g.n_largest):
        if mark[g.trigger_by_largest[k]] & 1:
            top = 0
            for i in range(n_paid):
                s = paid[i]
                if s != g.trigger_by_largest[k] and not g.excluded_by_largest_stop[<int64_t>k * g.n_stops + s] \
                        and values[s] > top:
                    top = values[s]
            extra += top
    if g.r2r_per_token and n_visited >= 2 and g.red_by_stop[visited[0]] and g.red_by_stop[visited[n_visited - 1]]:
        tokens = 0
        for i in range(n_paid):
            if g.token_by_stop[paid[i]]:
                tokens += 1
        if tokens > g.r2r_max_tokens:
            tokens = g.r2r_max_tokens
        extra += <int64_t>g.r2r_per_token * tokens
    if g.has_crow and g.crow_per_hex_by_train[t]:
        extra += crow_of(g, t, visited, n_visited)
    for i in range(n_visited):
        mark[visited[i]] = 0
    for i in range(n_paid):
        mark[paid[i]] = 0
    return extra + half_again_adjust(c, t, paid, n_paid)


cdef int64_t crow_of(const Input* g, int t, const int32_t* visited, int n_visited) noexcept nogil:
    """The crow-distance bonus: per hex between the first and the last stop of the route (in route
    order) that may end it (``revenue.crow_bonus`` is the reference)."""
    cdef int i, a = -1, b = -1, dx, dy
    for i in range(n_visited):
        if g.crow_end_by_stop[visited[i]]:
            if a < 0:
                a = visited[i]
            b = visited[i]
    if a < 0:
        return 0
    dx = g.crow_x_by_stop[a] - g.crow_x_by_stop[b]
    dy = g.crow_y_by_stop[a] - g.crow_y_by_stop[b]
    if dx < 0:
        dx = -dx
    if dy < 0:
        dy = -dy
    dy = (dy - dx) // 2 if dy > dx else 0
    return <int64_t>g.crow_per_hex_by_train[t] * (dx + dy)


cdef inline int64_t penalty_of(Ctx* c, uint32_t mask) noexcept nogil:
    cdef int64_t p = 0
    cdef int b
    for b in range(c.inp.n_penalties):
        if mask >> b & 1:
            p += c.inp.amount_by_penalty[b]
    return p


cdef int largest_paid(Ctx* c, int t, const int32_t* paid, int n) noexcept nogil:
    cdef int i, best = 0
    cdef const int32_t* values = c.inp.values_by_train_stop + <int64_t>t * c.inp.n_stops
    for i in range(n):
        if c.inp.large_by_stop[paid[i]] and values[paid[i]] > best:
            best = values[paid[i]]
    return best


cdef void sort_by_value(const int32_t* values, int32_t* a, int n) noexcept nogil:
    """Insertion sort, richest first: routes are short."""
    cdef int i, j, x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and values[a[j]] < values[x]:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef inline int _in(const int32_t* a, int n, int x) noexcept nogil:
    cdef int i
    for i in range(n):
        if a[i] == x:
            return 1
    return 0


cdef void express_split(Ctx* c, int t, const int32_t* visited, int nv, Express* E) noexcept nogil:
    """Split a route's stops: the interesting ones, then the others by class, richest first."""
    cdef const Input* g = &c.inp
    cdef const int32_t* values = g.values_by_train_stop + <int64_t>t * g.n_stops
    cdef int i, s
    E.m = 0
    E.nb = 0
    E.ns = 0
    for i in range(nv):
        if g.interesting_by_stop[visited[i]] and E.m < _state.MAX_INTERESTING:
            E.inter[E.m] = visited[i]
            E.m += 1
    for i in range(nv):
        s = visited[i]
        if not (g.interesting_by_stop[s] and _in(E.inter, E.m, s)) and g.large_by_stop[s]:
            E.big[E.nb] = s
            E.nb += 1
    E.small = E.big + E.nb
    for i in range(nv):
        s = visited[i]
        if not (g.interesting_by_stop[s] and _in(E.inter, E.m, s)) and not g.large_by_stop[s]:
            E.small[E.ns] = s
            E.ns += 1
    sort_by_value(values, E.big, E.nb)
    sort_by_value(values, E.small, E.ns)


cdef inline int express_skip(Express* E, int pos) noexcept nogil:
    """The stop at ``pos`` (into big then small) is already in the head, not for the greedy rest."""
    return pos == E.forced_tok or (E.n_forced and _in(E.forced, E.n_forced, pos))


cdef inline int express_at(Express* E, int pos) noexcept nogil:
    return E.big[pos] if pos < E.nb else E.small[pos - E.nb]


cdef inline void express_add(Ctx* c, const int32_t* values, Express* E, int s) noexcept nogil:
    E.paid[E.n_paid] = s
    E.n_paid += 1
    E.head += values[s]
    if c.inp.large_by_stop[s]:
        E.n_large += 1
    else:
        E.n_small += 1


cdef int express_head(Ctx* c, int t, Express* E, int mask) noexcept nogil:
    """Start the paid subset: the interesting stops in ``mask``, the forced ones, and the richest
    token stop when the train must count one and none is in. 0 when that breaks the pay caps."""
    cdef const Input* g = &c.inp
    cdef const int32_t* values = g.values_by_train_stop + <int64_t>t * g.n_stops
    cdef const int32_t* caps = g.caps_by_train + t * 6
    cdef int i, tok = 0
    E.n_paid = 0
    E.n_large = 0
    E.n_small = 0
    E.head = 0
    E.forced_tok = -1
    for i in range(E.m):
        if mask >> i & 1:
            express_add(c, values, E, E.inter[i])
            if g.token_by_stop[E.inter[i]]:
                tok = 1
        elif g.large_first_by_train[t] and g.large_by_stop[E.inter[i]]:
            return 0  # a train paying every large stop leaves none out
    for i in range(E.n_forced):
        express_add(c, values, E, express_at(E, E.forced[i]))
        if g.token_by_stop[express_at(E, E.forced[i])]:
            tok = 1
    if not tok and g.requires_token_by_train[t]:  # count one of our cities: the richest
        for i in range(E.nb):
            if g.token_by_stop[E.big[i]]:
                E.forced_tok = i
                break
        if E.forced_tok < 0:
            for i in range(E.ns):
                if g.token_by_stop[E.small[i]]:
                    E.forced_tok = E.nb + i
                    break
        if E.forced_tok < 0:
            return 0
        express_add(c, values, E, E.big[E.forced_tok] if E.forced_tok < E.nb else E.small[E.forced_tok - E.nb])
    return E.n_large <= caps[3] and E.n_small <= caps[4] and E.n_large + E.n_small <= caps[5]


cdef int64_t express_rest(Ctx* c, int t, Express* E, int* kl_best, int* ks_best, int n_lp=0,
                          int64_t head_top=0, int ps=0) noexcept nogil:
    """The best greedy rest within the pay caps: kl large and ks small stops, richest first,
    positive only (on a tie, a large stop rather than none: the city a Pullman would double);
    returns their value. Where ``n_lp`` set pairs the head meets pay the richest paid stop again
    (its value ``head_top`` among the head's), the rest is chosen for its value times the train's
    multiplier plus that (richest first per class gives, for each kl and ks, both the largest sum
    and the richest stop, so the choice stays exact). ``ps``: what each paid stop adds besides (1844's
    narrow track), so a stop is worth its value times the multiplier plus that."""
    cdef const int32_t* values = c.inp.values_by_train_stop + <int64_t>t * c.inp.n_stops
    cdef const int32_t* caps = c.inp.caps_by_train + t * 6
    cdef int pay_large = caps[3] - E.n_large, pay_small = caps[4] - E.n_small
    cdef int pay_total = caps[5] - E.n_large - E.n_small
    cdef int kl = 0, ks, k, i = 0, room
    cdef int64_t v = -1, sum_big = 0, sum_small, top_big = 0, top, score, best_score = -1
    cdef int64_t mult = c.inp.multiplier_by_train[t]
    kl_best[0] = 0
    ks_best[0] = 0
    if c.inp.large_first_by_train[t]:  # every large stop, whatever it is worth; the small ones fill the rest
        while i < E.nb:
            if not express_skip(E, i):
                if kl + 1 > pay_large or kl + 1 > pay_total:
                    return -(<int64_t>1 << 40)  # more large stops than it pays: no legal subset
                sum_big += values[E.big[i]]
                kl += 1
            i += 1
        v = -(<int64_t>1 << 40)  # the large stops are paid even where they are worth less than none
    best_score = v
    while True:
        room = pay_total - kl
        ks = 0
        sum_small = 0
        top = head_top if head_top > top_big else top_big
        k = 0
        while k < E.ns and ks < pay_small and ks < room:
            if not express_skip(E, E.nb + k):
                if (values[E.small[k]] * mult + ps <= 0) if ps else values[E.small[k]] <= 0:
                    break
                if ks == 0 and values[E.small[k]] > top:
                    top = values[E.small[k]]
                sum_small += values[E.small[k]]
                ks += 1
            k += 1
        if n_lp or ps:
            score = (sum_big + sum_small) * mult + n_lp * top + ps * (kl + ks)
        else:
            score = sum_big + sum_small
        if score > best_score or (score == best_score and kl == 1):  # ties: a city for a Pullman
            best_score = score
            v = sum_big + sum_small
            kl_best[0] = kl
            ks_best[0] = ks
        if c.inp.large_first_by_train[t]:
            break
        # take one more large stop
        while i < E.nb and express_skip(E, i):
            i += 1
        if i >= E.nb or kl + 1 > pay_large or kl + 1 > pay_total:
            break
        if (values[E.big[i]] * mult + ps <= 0) if ps else values[E.big[i]] <= 0:
            break
        if kl == 0:
            top_big = values[E.big[i]]
        sum_big += values[E.big[i]]
        kl += 1
        i += 1
    return v


cdef void express_take(Express* E, int kl_best, int ks_best) noexcept nogil:
    """Append the greedy rest to the paid subset."""
    cdef int k = 0, i = 0
    while k < kl_best:
        if not express_skip(E, i):
            E.paid[E.n_paid] = E.big[i]
            E.n_paid += 1
            k += 1
        i += 1
    k = 0
    i = 0
    while k < ks_best:
        if not express_skip(E, E.nb + i):
            E.paid[E.n_paid] = E.small[i]
            E.n_paid += 1
            k += 1
        i += 1


cdef void express_try(Ctx* c, int t, const int32_t* visited, int nv, Express* E, int mask, int64_t* best,
                      int* best_large, int32_t* out_paid, int32_t* n_out) noexcept nogil:
    """Price one paid subset: the head for ``mask`` (with E's forced stops), then the greedy rest;
    keep it in ``best`` if it pays more (ties: the richer city for a Pullman to double)."""
    cdef int k, kl_best, ks_best, bl, n_lp = 0
    cdef int64_t v, head_top = 0
    cdef uint32_t on_route = 0, on_head = 0
    if not express_head(c, t, E, mask):
        return
    if c.inp.n_set_pairs:  # set pairs the head meets that pay the richest paid stop again
        for k in range(nv):
            on_route |= c.inp.sets_by_stop[visited[k]]
        for k in range(E.n_paid):
            on_head |= c.inp.sets_by_stop[E.paid[k]]
            if c.inp.values_by_train_stop[<int64_t>t * c.inp.n_stops + E.paid[k]] > head_top:
                head_top = c.inp.values_by_train_stop[<int64_t>t * c.inp.n_stops + E.paid[k]]
        for k in range(c.inp.n_set_pairs):
            if c.inp.largest_by_set_pair[k] and not (c.inp.skip_set_pairs_by_train[t] >> k & 1) and \
                    ((on_route if c.inp.visited_by_set_pair[k] else on_head) >> (2 * k)) & 3 == 3:
                n_lp += 1
    v = express_rest(c, t, E, &kl_best, &ks_best, n_lp, head_top, E.ps)
    express_take(E, kl_best, ks_best)
    v = (E.head + v) * c.inp.multiplier_by_train[t] + bonus_of(c, t, visited, nv, E.paid, E.n_paid) \
        + <int64_t>E.ps * E.n_paid
    if v < best[0]:
        return
    bl = largest_paid(c, t, E.paid, E.n_paid)
    if v > best[0] or bl > best_large[0]:
        best[0] = v
        best_large[0] = bl
        if out_paid != NULL:
            for k in range(E.n_paid):
                out_paid[k] = E.paid[k]
            n_out[0] = E.n_paid


cdef inline int largest_active(Ctx* c, Express* E, int mask, int k) noexcept nogil:
    """Largest-stop bonus k is triggered by an interesting stop in ``mask``."""
    cdef int i
    for i in range(E.m):
        if mask >> i & 1 and E.inter[i] == c.inp.trigger_by_largest[k]:
            return 1
    return 0


cdef int largest_pays_for(Ctx* c, int t, Express* E, int mask, int s) noexcept nogil:
    """A largest-stop bonus triggered in ``mask`` could pay for stop s (worth something)."""
    cdef const Input* g = &c.inp
    cdef int k
    if g.values_by_train_stop[<int64_t>t * g.n_stops + s] <= 0:
        return 0
    for k in range(g.n_largest):
        if s != g.trigger_by_largest[k] and not g.excluded_by_largest_stop[<int64_t>k * g.n_stops + s] \
                and largest_active(c, E, mask, k):
            return 1
    return 0


cdef void express_force(Ctx* c, int t, const int32_t* visited, int nv, Express* E, int mask, int start,
                        int depth, int64_t* best, int* best_large, int32_t* out_paid, int32_t* n_out) noexcept nogil:
    """Try the paid subsets with up to ``depth`` more of the rest's stops forced in, each one a
    largest-stop bonus could pay for: the greedy rest alone would miss the stop a bonus pays on."""
    cdef int pos
    for pos in range(start, E.nb + E.ns):
        if not largest_pays_for(c, t, E, mask, express_at(E, pos)):
            continue
        E.forced[E.n_forced] = pos
        E.n_forced += 1
        express_try(c, t, visited, nv, E, mask, best, best_large, out_paid, n_out)
        if depth > 1:
            express_force(c, t, visited, nv, E, mask, pos + 1, depth - 1, best, best_large, out_paid, n_out)
        E.n_forced -= 1


cdef int64_t price_express(Ctx* c, int t, const int32_t* visited, int nv, int* best_large,
                           int32_t* out_paid, int32_t* n_out, int ps=0) noexcept nogil:
    """Best paid subset of a route for a train that may skip stops.

    The stops that bonuses depend on are tried in and out in every combination; the rest are
    chosen greedily, richest first per class, within the pay caps, with the richest token city
    forced in where the train must count one of ours. Where largest-stop bonuses are triggered,
    so is each choice of the stops (one per bonus) they pay for: exact, as the best subset pays
    each bonus on some stop and is, besides those, the greedy rest.
    """
    cdef Express E
    cdef int n = c.inp.n_stops, mask, k, n_active
    cdef int64_t best = -(<int64_t>1 << 62)
    E.inter = c.work.stops + n
    E.big = c.work.stops + 2 * n
    E.paid = c.work.stops + 3 * n
    E.n_forced = 0
    E.ps = ps
    express_split(c, t, visited, nv, &E)
    best_large[0] = 0
    for mask in range(1 << E.m):
        express_try(c, t, visited, nv, &E, mask, &best, best_large, out_paid, n_out)
        if c.inp.n_largest:
            n_active = 0
            for k in range(c.inp.n_largest):
                n_active += largest_active(c, &E, mask, k)
            if n_active:
                express_force(c, t, visited, nv, &E, mask, 0, min(n_active, _state.MAX_FORCED),
                              &best, best_large, out_paid, n_out)
    return best


cdef inline int64_t halve_to_ten(int64_t rev) noexcept nogil:
    """Ruby's ``(rev / 2).round(-1)``: floor division, then half away from zero (revenue.halve_to_ten).
    Never above rev where rev >= 10, and monotone: the bounds of the unhalved revenue still hold."""
    cdef int64_t half = rev // 2 if rev >= 0 else -((-rev + 1) // 2)
    if half >= 0:
        return (half + 5) // 10 * 10
    return -((-half + 5) // 10 * 10)


cdef inline int64_t halve_down(int64_t rev) noexcept nogil:
    """Ruby's ``rev / 2``: floor division (an obsolete train, g_1858/game.rb#revenue_for). Never above
    rev where rev >= 0, and monotone: the bounds of the unhalved revenue still hold."""
    return rev // 2 if rev >= 0 else -((-rev + 1) // 2)


cdef inline int bits_set(uint32_t x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n


cdef void price_best_route(Ctx* c, Level* L, const int32_t* visited, int nv, uint32_t pen) noexcept nogil:
    """What each best-route bonus would pay on this route (L.br_rev), whose track crosses the
    penalty hexes ``pen`` (those its train earns): a train paid only by token cities meets a group
    only at one (``revenue.best_route_value``)."""
    cdef const Input* g = &c.inp
    cdef int k, i, counted
    cdef int tokens_only = g.tokens_only_by_train[L.t]
    cdef uint32_t met
    cdef int64_t amount
    cdef const uint32_t* groups
    cdef const uint8_t* uncounted
    for k in range(g.n_best_route):
        groups = g.groups_by_best_route_stop + <int64_t>k * g.n_stops
        uncounted = g.uncounted_by_best_route_stop + <int64_t>k * g.n_stops
        met = 0
        counted = nv
        for i in range(nv):
            if not tokens_only or g.token_by_stop[visited[i]]:
                met |= groups[visited[i]]
            counted -= uncounted[visited[i]]
        amount = g.amount_by_best_route[k]
        if g.multiplied_by_best_route[k]:
            amount *= g.multiplier_by_train[L.t]
        L.br_rev[k] = <int64_t>g.per_stop_by_best_route[k] * counted \
            + (amount if met & g.full_by_best_route[k] == g.full_by_best_route[k] else 0) \
            + <int64_t>g.per_hex_by_best_route[k] * bits_set(pen & g.hexes_by_best_route[k])


cdef inline int route_refused(Ctx* c, Level* L, const int32_t* visited, int nv) noexcept nogil:
    """1 if the route breaks an end or count rule: it begins or ends at a stop that may only be passed
    through, or visits fewer large stops than its train must, its gauge changes counted among them
    (18ZOO's tunnel between two holes), or a port (flag 2) with fewer than 2 other stops
    (``revenue.visit_errors``)."""
    cdef int extra = L.n_halves // 2 - c.inp.free_gauge_by_train[L.t]
    if L.n_large + (extra if extra > 0 else 0) < c.inp.min_large_by_train[L.t]:
        return 1
    if nv < 3 and half_again_on(c, visited, nv, 2):
        return 1
    if c.inp.needs_end_by_train[L.t] and not (
        nv >= 1 and (c.inp.end_set_by_stop[visited[0]] or c.inp.end_set_by_stop[visited[nv - 1]])
    ):
        return 1  # (18Rhl's 8 train: an RGE hex at one end)
    if c.inp.ends_free_by_train[L.t]:  # (no_town_ends' except_trains)
        return 0
    return nv >= 2 and (c.inp.no_end_by_stop[visited[0]] or c.inp.no_end_by_stop[visited[nv - 1]])


cdef int has_mine(Ctx* c, const int32_t* visited, int nv) noexcept nogil:
    cdef int i
    for i in range(nv):
        if c.inp.mine_by_stop[visited[i]]:
            return 1
    return 0


cdef int route_stop_bonus(Ctx* c, uint8_t kinds) noexcept nogil:
    """What each paid stop of a route of these track kinds earns besides (1844's narrow track)."""
    if c.inp.stop_bonus_amount and kinds & c.inp.stop_bonus_kinds:
        return c.inp.stop_bonus_amount
    return 0


cdef int on_route(Level* E, int s) noexcept nogil:
    """Stop s is on the current route of level E."""
    cdef int k
    for k in range(E.half[0].h + 1):
        if E.half[0].stop[k] == s:
            return 1
    if E.phase == 2:
        for k in range(1, E.half[1].h + 1):
            if E.half[1].stop[k] == s:
                return 1
    return 0


cdef int64_t paid_before(Ctx* c, Level* L, int t, const int32_t* visited, int nv) noexcept nogil:
    """What the route's stops that a route of an earlier level of this solve visits pay train t: the
    run pays them once, to that route (``Problem.paid_once``, g_1877_stockholm_tramways/game.rb
    #stop_on_other_route?). Routes alone pay at least as much, so every bound stays admissible."""
    cdef int li = <int>(L - c.work.levels), j, i
    cdef int64_t out = 0
    cdef Level* E
    for i in range(nv):
        for j in range(c.run.lo, li):
            E = &c.work.levels[j]
            if E.empty or E.phase == 0:
                continue
            if on_route(E, visited[i]):
                out += c.inp.values_by_train_stop[<int64_t>t * c.inp.n_stops + visited[i]]
                break
    return out


cdef int64_t claimed_again(Ctx* c, Level* L, const int32_t* visited, int nv) noexcept nogil:
    """What the route gives back for the locations a route of a level above paid (once_bits_by_stop: the
    bonus is paid once across the routes, to the first), once a location; sets L.claimed_out. A stop pays
    its locations where it pays the train anything (the nested kernel runs it for trains that pay every
    stop they visit)."""
    cdef int i, s
    cdef uint64_t mine = 0, again
    cdef const int32_t* values = c.inp.values_by_train_stop + <int64_t>L.t * c.inp.n_stops
    cdef int64_t n = 0
    for i in range(nv):
        s = visited[i]
        if values[s] > 0:
            mine |= c.inp.once_bits_by_stop[s]
    L.claimed_out = L.claimed_in | mine
    again = mine & L.claimed_in
    while again:
        again &= again - 1
        n += 1
    return n * c.inp.once_amount


cdef int64_t price_route(Ctx* c, Level* L) noexcept nogil:
    """Revenue of the route a level just yielded; sets L.rev, L.best_large and L.br_rev. A route its
    rules refuse (an end or count rule, a goods train's without a mine) is worth REFUSED: it is never
    kept, nor a base for later trains, but the search still grows it (a longer route may be legal)."""
    cdef int t = L.t
    cdef int32_t* visited = c.work.stops
    cdef int nv = route_stops(c, L, visited)
    cdef uint32_t pen = L.half[0].pen[L.half[0].h] | (L.half[1].pen[L.half[1].h] if L.phase == 2 else 0)
    pen &= ~c.inp.skip_penalty_by_train[t]  # the hexes this train neither earns nor pays
    cdef int bl = 0, k, ps
    cdef int64_t rev
    if route_refused(c, L, visited, nv) or (c.inp.mine_rule_by_train[t] == MINES_ONE and not has_mine(c, visited, nv)):
        for k in range(c.inp.n_best_route):
            L.br_rev[k] = 0
        L.rev = _state.REFUSED
        L.best_large = 0
        return L.rev
    if c.inp.n_best_route:
        price_best_route(c, L, visited, nv, pen)
    ps = route_stop_bonus(c, L.half[1].gauge[L.half[1].h] if L.phase == 2 else L.half[0].gauge[L.half[0].h])
    if c.inp.pays_all_by_train[t]:
        rev = L.vsum * c.inp.multiplier_by_train[t] + bonus_of(c, t, visited, nv, visited, nv) + <int64_t>ps * nv
        if c.inp.paid_once:
            rev -= paid_before(c, L, t, visited, nv) * c.inp.multiplier_by_train[t]
        bl = largest_paid(c, t, visited, nv)
    else:
        rev = price_express(c, t, visited, nv, &bl, NULL, NULL, ps)
    if c.inp.halved_by_train[t] == HALF_TO_TEN:
        rev = halve_to_ten(rev)
    elif c.inp.halved_by_train[t] == HALF_DOWN:
        rev = halve_down(rev)
    rev -= penalty_of(c, pen)
    if c.inp.once_amount:
        rev -= claimed_again(c, L, visited, nv)
    if c.inp.end_bonus_by_stop != NULL and nv >= 2:  # destination_ends (``revenue.end_bonus``)
        k = c.inp.end_bonus_by_stop[visited[0]]
        if k == 0:
            k = c.inp.end_bonus_by_stop[visited[nv - 1]]
        rev += <int64_t>k * c.inp.multiplier_by_train[t]
    L.rev = rev
    L.best_large = bl if c.inp.has_pullman else 0
    return rev
