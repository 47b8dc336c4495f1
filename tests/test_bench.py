"""The benchmark's own correctness: synthetic boards, the ``bench`` command, its checks.

No timing is asserted anywhere: the machine is shared and noisy. What must hold is that the
boards are the same for the same seed, read and solve, that both searches agree on them, and that
``bench`` reports an answer below the best known revenue as a failure.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from optimizer import api
from optimizer.bench import synthetic
from optimizer.bench.suites import KNOWN_BEST, QUICK_TRACK, synthetic_cases
from optimizer.board.geometry import opposite
from optimizer.board.state import read_board
from optimizer.cli import main
from optimizer.games import game_data

from .corpus import state

TINY = [
    ("1830", 0.1, ("D",)),
    ("1830", 0.15, ("D", "8E")),
    ("1830", 0.2, ("6", "4+4")),
    ("18EU", 0.1, ("D", "8E")),
    ("18EU", 0.15, ("8E", "3")),
]
VENDORED_IDS = ["1830/26855@553", "1880/1@349", "18EU/74045@467"]


# ---- the generator ---------------------------------------------------------------------------


def _laid(doc) -> list:
    """The hexes that got a tile of the game's supply (preprinted ones keep their own)."""
    supply = {t["name"] for t in game_data(doc["game"])["tiles"]}
    return [h for h in doc["hexes"] if h.get("tile") in supply]


@pytest.mark.parametrize("game", ["1830", "18EU"])
def test_generator_is_deterministic(game):
    a = synthetic.synthetic_board(7, game=game, track=0.5, trains=("D", "8E"))
    b = synthetic.synthetic_board(7, game=game, track=0.5, trains=("D", "8E"))
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    other = synthetic.synthetic_board(8, game=game, track=0.5, trains=("D", "8E"))
    assert json.dumps(other["hexes"]) != json.dumps(a["hexes"])


def test_generator_in_a_fresh_process_gives_the_same_board():
    code = (
        "import json; from optimizer.bench.synthetic import synthetic_board; "
        "print(json.dumps(synthetic_board(3, track=0.7, trains=('D', '8E', '6')), sort_keys=True))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    here = synthetic.synthetic_board(3, track=0.7, trains=("D", "8E", "6"))
    assert json.loads(out.stdout) == json.loads(json.dumps(here))


@pytest.mark.parametrize("game", ["1830", "18EU"])
def test_full_board_is_dense_late_track_that_joins(game):
    doc = synthetic.synthetic_board(0, game=game, track=1.0)
    board = read_board(doc)
    laid = _laid(doc)
    layable = [h for h in game_data(game)["hexes"] if h["color"] in ("white", "yellow")]
    assert len(laid) >= 0.95 * len(layable) and {"green", "brown"} <= {h["color"] for h in laid}
    assert sum(h["color"] in ("green", "brown", "gray") for h in laid) > 0.8 * len(laid)
    joined = ends = 0
    for h in laid:
        exits = board.hexes[h["id"]].tile.exits(h["rotation"])
        for edge in exits:
            ends += 1
            other = board.hexes[h["id"]].neighbors.get(edge)
            if other is not None:
                theirs = board.hexes[other]
                joined += opposite(edge) in theirs.tile.exits(theirs.rotation)
    assert joined > 0.85 * ends  # rotations were chosen so that track meets track


def test_less_track_is_the_same_board_cut():
    full = synthetic.synthetic_board(2, track=1.0)
    big = {h["id"]: h for h in full["hexes"]}
    cut = _laid(synthetic.synthetic_board(2, track=0.4))
    assert 0 < len(cut) < len(_laid(full))
    for h in cut:
        assert (h["tile"], h["rotation"]) == (big[h["id"]]["tile"], big[h["id"]]["rotation"])


def test_tokens_and_trains():
    doc = synthetic.synthetic_board(1, track=0.8, trains=("D", "8E", "4+4", "6"), tokens=4)
    company = doc["corporation"]["id"]
    held = [t for h in doc["hexes"] for c in h.get("cities", []) for t in c["tokens"]]
    assert held.count(company) == 4
    assert len([t for t in held if t and t != company]) >= 3
    distance = {t["name"]: t["distance"] for t in doc["trains"]}
    assert distance["D"] == 999 and distance["6"] == 6
    assert distance["8E"] == [{"nodes": ["city", "offboard", "town"], "pay": 8, "visit": 99}]
    assert len({t["id"] for t in doc["trains"]}) == 4
    with pytest.raises(ValueError):
        synthetic.train("Z")
    with pytest.raises(ValueError):
        synthetic.synthetic_board(0, track=0)


@pytest.mark.parametrize("game,track,trains", TINY + [("1830", 1.0, ("D", "D", "8E", "6E"))])
def test_boards_read_and_solve_within_a_node_budget(game, track, trains):
    doc = synthetic.synthetic_board(4, game=game, track=track, trains=trains)
    board = read_board(doc)
    assert board.game == game and len(board.trains) == len(trains)
    result = api.solve(doc, node_budget=200_000)
    assert result["revenue"] >= 0 and result["bound"] >= result["revenue"]
    assert result["optimal"] or result["stats"]["stopped_by"] == "nodes"


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("game,track,trains", TINY)
def test_compiled_and_reference_agree(game, track, trains, seed):
    doc = synthetic.synthetic_board(seed, game=game, track=track, trains=trains)
    fast = api.solve(doc, core="compiled")
    slow = api.solve(doc, core="python")
    assert slow["optimal"] and fast["optimal"]
    assert fast["revenue"] == slow["revenue"]


def test_quick_suite_boards_match_their_known_best():
    """The recorded optimum of every quick board still holds (the generator has not drifted)."""
    cases = synthetic_cases(quick=True)
    assert cases and all(c.params["track"] <= QUICK_TRACK for c in cases)
    for case in cases:
        assert case.best_known == KNOWN_BEST[case.id]
        assert api.solve(case.doc)["revenue"] == case.best_known, case.id
    assert all(c.id in KNOWN_BEST for c in synthetic_cases())


# ---- the bench command -----------------------------------------------------------------------


@pytest.fixture
def tiny_jsonl(tmp_path):
    path = tmp_path / "tiny.jsonl"
    path.write_text("".join(json.dumps(state(i)) + "\n" for i in VENDORED_IDS))
    return path


def test_bench_prints_the_table(tiny_jsonl, capsys):
    assert main(["bench", str(tiny_jsonl), "--repeat", "2"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    for column in (
        "group",
        "states",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "max ms",
        "states/s",
        "optimal",
        "failed",
        "router/us",
    ):
        assert column in header
    assert re.search(r"^total\s+3\s", out, re.M)
    assert re.search(r"^1830\s+1\s", out, re.M) and re.search(r"^18EU\s+1\s", out, re.M)
    assert "FAILED" not in out


def test_bench_json_parses(tiny_jsonl, capsys):
    assert main(["bench", str(tiny_jsonl), "--json", "--deadline-ms", "30000"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["total"]["states"] == 3 and summary["total"]["failed"] == 0
    assert summary["total"]["optimal"] == 3 and summary["failures"] == []
    assert {g["group"] for g in summary["groups"]} == {"1830", "1880", "18EU"}
    assert summary["total"]["router_states"] == 3 and summary["total"]["vs_router"] > 0
    for s in summary["states"]:
        assert s["revenue"] >= s["best_known"] and s["ms"] > 0


def test_bench_stages_table(tiny_jsonl, capsys):
    """Every stage, reference and fast side by side; the answers checked on every path."""
    assert main(["bench", str(tiny_jsonl), "--stages"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    for column in ("reference p50", "next p50", "again p50", "first p50", "reference mean"):
        assert column in header
    for stage in ("decode", "validate", "read", "graph", "search", "encode", "total"):
        assert re.search(rf"^{stage}\s+\d", out, re.M), stage
    assert "FAILED" not in out
    assert main(["bench", str(tiny_jsonl), "--stages", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(summary["stages"]) == {"reference", "next", "again", "first"}
    for column in summary["stages"].values():
        assert column["total"]["p50_ms"] > 0 and column["search"]["mean_ms"] > 0
    for total in summary["totals"].values():
        assert total["states"] == 3 and total["failed"] == 0 and total["optimal"] == 3
    assert summary["failures"] == []


def test_bench_stages_fail_below_the_best_known(tmp_path, capsys):
    doc = state(VENDORED_IDS[0])
    doc["expected"]["router"]["revenue"] = 10**6
    path = tmp_path / "impossible.jsonl"
    path.write_text(json.dumps(doc) + "\n")
    assert main(["bench", str(path), "--stages"]) == 1
    assert f"FAILED {doc['id']}: revenue" in capsys.readouterr().out


def test_an_answer_below_the_best_known_is_a_failure(tmp_path, capsys):
    doc = state(VENDORED_IDS[0])
    doc["expected"]["router"]["revenue"] = 10**6  # more than any route on this board can earn
    path = tmp_path / "impossible.jsonl"
    path.write_text(json.dumps(doc) + "\n" + json.dumps(state(VENDORED_IDS[1])) + "\n")
    assert main(["bench", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"FAILED {doc['id']}: revenue" in out and "below the best known 1000000" in out
    assert re.search(r"^total\s+2\s.*\s1\s+1\s", out, re.M)  # one optimal, one failed
    assert main(["bench", str(path), "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert [f["id"] for f in summary["failures"]] == [doc["id"]]


def test_bench_writes_the_scaling_plot(tmp_path, monkeypatch, capsys):
    from optimizer.bench import suites

    monkeypatch.setattr(suites, "synthetic_cases", lambda quick=False: _small_series(suites))
    plot = tmp_path / "scaling.svg"
    assert main(["bench", "synthetic", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "scaling (1830), median search ms vs track" in out and "vs trains" in out and f"plot: {plot}" in out
    svg = plot.read_text()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert "against track" in svg and "against trains" in svg and svg.count("<polyline") == 2


def _small_series(suites):
    """A miniature of the synthetic suite, both series on tiny boards, so that the test is quick."""
    cases = []
    for track, n, series in [(0.1, 2, ["track"]), (0.2, 2, ["track", "trains"]), (0.2, 1, ["trains"])]:
        for seed in (0, 1):
            doc = synthetic.synthetic_board(seed, track=track, trains=suites.TRAINS[n])
            cases.append(
                suites.Case(
                    doc["id"],
                    suites.size_class("1830", track, n),
                    doc,
                    params={
                        "game": "1830",
                        "track": track,
                        "trains": n,
                        "train_names": ", ".join(suites.TRAINS[n]),
                        "seed": seed,
                        "series": series,
                    },
                )
            )
    return cases


def test_bench_rejects_an_unknown_suite(capsys):
    assert main(["bench", "no-such-suite"]) == 2
    assert "unknown suite" in capsys.readouterr().err


def test_bench_through_the_grpc_api(tiny_jsonl, tmp_path, capsys):
    """``--target`` runs the same suite against a server (here our own, started on a free port)."""
    pytest.importorskip("server.client")
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "optimizer", "serve", "--port", "0", "--http-port", "off", "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        match = re.match(r"listening on (\S+:\d+)", line)
        assert match, f"server did not start: {line!r}"
        assert main(["bench", str(tiny_jsonl), "--target", match.group(1), "--concurrency", "2", "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["solver"] == match.group(1) and summary["concurrency"] == 2
        assert summary["total"]["states"] == 3 and summary["total"]["failed"] == 0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()
