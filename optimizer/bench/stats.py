"""Latency percentiles, as the benchmark and the batch summary quote them."""

from __future__ import annotations


def percentiles(values) -> dict:
    """p50, p90, p99 and max of a list (nearest rank); zeros for an empty list."""
    if not values:
        return {"p50": 0.0, "p90": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(values)

    def rank(q):
        return ordered[min(len(ordered) - 1, max(0, int(round(q * len(ordered) + 0.5)) - 1))]

    return {"p50": rank(0.50), "p90": rank(0.90), "p99": rank(0.99), "max": ordered[-1]}
