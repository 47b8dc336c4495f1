"""Stop the packing kernel's search at every phase, many times over: run by
tests/test_defects_round4.py in a process of its own, under glibc's malloc checks (a buffer freed
twice, or written after it is freed, aborts the process). Prints how each search stopped."""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter

from optimizer.bench.suites import TRAINS
from optimizer.bench.synthetic import synthetic_board
from optimizer.core import compiled
from optimizer.core.limits import CancelToken
from optimizer.graph.problem import build_problem

# Long pricing (every step, the later levels' prices from the first node, long lists read by
# reference) after a one-node dive: a stop lands in the listing, the pricing or the packing.
HEAVY = {"iterations": 3000, "mu_after": 0, "reference_after": 0, "reference_routes": 0, "sample_steps": 0}
HEAVY["dive_nodes"] = 1


def main(rounds: int) -> Counter:
    stops: Counter = Counter()
    for seed in (0, 2):
        problem = build_problem(synthetic_board(seed, track=0.4, trains=TRAINS[5]))
        start = time.monotonic()
        full = compiled.search(problem, strategy="packing", packing=HEAVY)
        whole_ms = (time.monotonic() - start) * 1000
        assert full.optimal
        for i in range(rounds):
            deadline: float | None = whole_ms * (i % 40) / 32  # from the start to past the end
            settings = dict(HEAVY, max_routes=3, max_routes_many=3) if i % 7 == 0 else HEAVY  # lists over the limit
            cancel = None
            if i % 3 == 1:  # cancelled from another thread instead
                cancel = CancelToken()
                threading.Timer(deadline / 1000, cancel.cancel).start()
                deadline = None
            r = compiled.search(problem, strategy="packing", packing=settings, deadline_ms=deadline, cancel=cancel)
            assert r.revenue <= full.revenue <= r.bound, (r.revenue, full.revenue, r.bound)
            assert r.optimal == (r.stopped_by is None)
            stops[r.stopped_by or "none"] += 1
    return stops


if __name__ == "__main__":
    print(dict(main(int(sys.argv[1]))))
