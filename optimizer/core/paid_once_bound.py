"""The reference search's bound where each stop pays once a run (``Problem.paid_once``), vectorised.

g_1862/game.rb#revenue_for, #stop_on_other_route? (and 1877 Stockholm's): a stop, or a stop sharing an
off-board group with it, already paid to an earlier route of the run pays nothing. So, whatever order
the search places trains in, each *paid key* (a stop, or its group) pays the run at most the most one
route is paid it. The search keeps ``seen`` (per key, the most a placed route of fixed paid stops is
paid it) and subtracts, per later route, what the run surely does not pay twice. A route's stops of one
key count as one item (their sum), so that the bound stays admissible where a route pays two of a group.
"""

from __future__ import annotations

import numpy as np

from ..revenue import stop_groups


def chooses_stops(problem, t: int) -> bool:
    """Train t's paid stops are picked across the run (neither all its stops nor a freight train's ends)."""
    freight = bool(problem.freight_by_train) and problem.freight_by_train[t] is not None
    return not problem.specs[t].pays_all and not freight


class PaidOnceBound:
    """Per train of the search (in its order, routes richest first), its routes' paid keys and worths."""

    def __init__(self, problem, per_train: list):
        keys = [("group", min(g)) if (g := stop_groups(problem, s)) else s for s in range(problem.n_stops)]
        index = {k: i for i, k in enumerate(dict.fromkeys(keys))}
        self.key_of = [index[k] for k in keys]
        self.pad = len(index)  # a key no stop has: seen there stays 0
        self.trains = [self._train(problem, routes) for routes in per_train]
        self.prices = [train[1].tolist() for train in self.trains]  # (read one by one)
        self._cached: dict = {}  # (train, seen's bytes) -> _caps(train, seen)

    def empty(self) -> np.ndarray:
        return np.zeros(self.pad + 1, dtype=np.int64)

    def _items(self, stops, values, mult) -> dict:
        out: dict = {}
        for s in stops:
            k = self.key_of[s]
            out[k] = out.get(k, 0) + int(values[s]) * mult
        return out

    def _matrix(self, rows: list) -> tuple:
        width = max((len(r) for r in rows), default=0)
        keys = np.full((len(rows), width), self.pad, dtype=np.int64)
        worths = np.zeros((len(rows), width), dtype=np.int64)
        for i, row in enumerate(rows):
            keys[i, : len(row)] = list(row)
            worths[i, : len(row)] = list(row.values())
        return keys, worths

    def _train(self, problem, routes: list) -> tuple:
        revs = np.array([r[0] for r in routes], dtype=np.int64)
        if not routes:
            return ("none", revs)
        t = routes[0][2].train
        spec, values = problem.specs[t], problem.values_by_train_stop[t]
        mult = spec.multiplier
        if not chooses_stops(problem, t):
            rows = [self._items(priced.paid, values, mult) for _, _, _, priced in routes]
            keys, worths = self._matrix(rows)
            return ("fixed", revs, keys, worths, [(keys[i, : len(r)], worths[i, : len(r)]) for i, r in enumerate(rows)])
        large = [
            self._items([s for s in found.stops if problem.large_by_stop[s]], values, mult) for _, _, found, _ in routes
        ]
        towns = [
            self._items([s for s in found.stops if not problem.large_by_stop[s]], values, mult)
            for _, _, found, _ in routes
        ]
        return (
            "chooses",
            revs,
            self._matrix(large),
            self._matrix(towns),
            (spec.pay_large, spec.pay_small, spec.pay_total),
        )

    def overlap(self, seen: np.ndarray, u: int, i: int) -> int:
        """What of the price of route i of the search's train u the run surely does not pay, ``seen``
        counted: per key both pay, the lesser; for a train choosing its stops, what its cap leaves out
        (:meth:`_caps`)."""
        return self.prices[u][i] - self._caps(u, seen)[1][i]

    def add(self, seen: np.ndarray, u: int, i: int) -> np.ndarray:
        """``seen`` with route i of the search's train u placed (a train choosing its stops adds nothing:
        which it is paid is the run's pick)."""
        train = self.trains[u]
        if train[0] != "fixed":
            return seen
        keys, worths = train[4][i]
        more = seen.copy()
        more[keys] = np.maximum(seen[keys], worths)
        return more

    def rest(self, t: int, seen: np.ndarray) -> int:
        """A bound on what the search's trains t.. add to the run: each train's best route, less what
        the run already counts of its keys (:meth:`_caps`). None earns more than alone."""
        total = 0
        for u in range(t, len(self.trains)):
            total += self._caps(u, seen)[0]
        return total

    def _caps(self, u: int, seen: np.ndarray) -> tuple:
        """The most the search's train u adds to a run that counts ``seen`` (at least 0), and per route
        the most it adds: its price less what the run counts of its keys (a train choosing its stops: its
        best ``pay_large`` large stops and best ``pay_small`` towns, at most its best ``pay_total`` stops,
        each less that, at most its price). Cached: the search meets few ``seen``, many times."""
        key = (u, seen.tobytes())
        found = self._cached.get(key)
        if found is not None:
            return found
        train = self.trains[u]
        revs = train[1]
        if not len(revs):
            caps = revs  # (no route)
        elif train[0] == "fixed":
            _, _, keys, worths, _ = train
            caps = revs - np.minimum(worths, seen[keys]).clip(min=0).sum(axis=1)
        else:
            _, _, (lkeys, lworths), (tkeys, tworths), (pay_large, pay_small, pay_total) = train
            large = (lworths - seen[lkeys]).clip(min=0)
            towns = (tworths - seen[tkeys]).clip(min=0)
            both = _best(np.concatenate([large, towns], axis=1), pay_total)
            caps = np.minimum(revs, np.minimum(_best(large, pay_large) + _best(towns, pay_small), both))
        found = self._cached[key] = (max(0, int(caps.max())) if len(caps) else 0, caps.tolist())
        return found


def _best(worths: np.ndarray, n: int) -> np.ndarray:
    """Per row, the sum of its ``n`` largest worths."""
    if worths.shape[1] > n:
        worths = np.sort(worths, axis=1)[:, worths.shape[1] - n :]
    return worths.sum(axis=1)
