"""Trains that run on one gauge only (1858 and its variants), as data: ``track_walk.skip_track_by_train``.

The engine walks a train's route skipping the track its gauge may not use
(lib/engine/game/g_1858/game.rb#skip_route_track_type: a metre-gauge train, ``track_type: :narrow``,
skips broad track; every other train skips narrow track; dual track carries both), and refuses a
route on the other gauge (#check_track_type). A route it cannot rebuild on its gauge is empty to it,
hence "Route must contain token" where we answered such a route.

The rule, first match wins: ``[{"suffix": "M", "skip": "broad"}, {"skip": "narrow"}]`` (the
metre-gauge trains of 1858, 1858 India and 1858 Switzerland are the ones named ``..M``). A segment
holding a path of the skipped track is one the train may not run: the per-train segment costs of
the hex-counting trains (:mod:`optimizer.games.hex_trains`) carry it, so both searches, the pricing
and the checker keep such a train off it; a train that counts stops gets a cap no route reaches, so
that its costs are read at all.
"""

from __future__ import annotations

from dataclasses import replace

from ..board.tiles import placed
from ..model import TrainSpec

GAUGE_ONLY_CAP = 1 << 19  # a stop-counting train's hex cap where only its gauge is checked: never reached


def skipped_track(rule: list, name: str) -> str | None:
    """The track the train named ``name`` may not run on, by the first entry that fits it."""
    for entry in rule:
        if str(name).endswith(entry.get("suffix", "")):
            return entry.get("skip")
    return None


def gauge_spec(rule: list, train, spec: TrainSpec) -> TrainSpec:
    """A train kept off a gauge has its segment costs read: a stop-counting one gets a cap no route reaches."""
    if skipped_track(rule, train.name) is None or spec.hex_cap >= 0:
        return spec
    return replace(spec, hex_cap=GAUGE_ONLY_CAP)


def segment_tracks(board, seg) -> set:
    """The track kinds of a segment's paths."""
    out = set()
    for hex_id, i in seg.paths:
        hx = board.hexes[hex_id]
        out.add(placed(hx.tile.code, hx.rotation).paths[i].track)
    return out


def forbid_gauge(rule: list, board, graph, spec: TrainSpec, costs: list) -> list:
    """The segment costs ``costs`` ((edges, why) per segment), with the segments on the train's
    skipped track refused."""
    skip = skipped_track(rule, spec.name)
    if skip is None:
        return costs
    why = f"the {spec.name} train may not run on {skip} track (the engine skips it: #skip_route_track_type)"
    return [
        (edges, reason or (why if skip in segment_tracks(board, seg) else ""))
        for seg, (edges, reason) in zip(graph.segments, costs)
    ]
