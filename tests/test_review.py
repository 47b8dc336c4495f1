"""``route18xx review``: a recorded 1830 game replayed by the 18xx.games engine (Debian's Ruby), every
run's board solved; its optima are the corpus answers for those actions, what was run is the engine's
re-pricing of the players' routes, and the picture has a cell per company and round that ran.

Needs Ruby and the engine (``../shared/engine`` or ``$ROUTE18XX_ENGINE``): skipped without them,
failed under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from optimizer import api
from optimizer.review import summary
from optimizer.review.chart import review_svg

from . import ruby
from .corpus import states

FIXTURE = "1830/26855"
SVG = "{http://www.w3.org/2000/svg}"


def cli(*args, env=None, timeout=600):
    return subprocess.run(
        [sys.executable, "-m", "optimizer", "review", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def game():
    ruby.tool("ruby")
    return ruby.engine_dir() / "public" / "fixtures" / "1830" / "26855.json"


@pytest.fixture(scope="module")
def json_rows(game):
    run = cli(game, "--engine", ruby.engine_dir(), "--json")
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


@pytest.mark.corpus
def test_each_run_is_the_corpus_state_solved_and_the_players_routes_repriced(json_rows):
    corpus = {s["action_id"]: s for s in states() if s["id"].startswith(FIXTURE + "@")}
    if not corpus:
        pytest.skip("the corpus's states of 1830/26855 are not here")
    assert [r["action_id"] for r in json_rows] == sorted(corpus)
    for r in json_rows:
        state = corpus[r["action_id"]]
        want = api.solve(state)
        assert r["entity"] == state["corporation"]["id"]
        assert (r["optimum"], r["optimal"]) == (want["revenue"], True), r["action_id"]
        assert r["optimum"] >= state["expected"]["router"]["revenue"]
        assert r["ran"] == state["expected"]["human_recheck"], r["action_id"]
        assert r["left"] == r["optimum"] - r["ran"] >= 0
        assert r["engine"] == r["optimum"], r["action_id"]  # the engine pays our routes what we say
        assert [x["connections"] for x in r["routes"]] == [x["hexes"] for x in want["routes"]]
        assert r["round"].startswith("OR ")
    assert sum(r["left"] for r in json_rows) > 0  # the players did not always find the optimum


def test_the_table_and_the_picture(game, tmp_path, json_rows):
    picture = tmp_path / "review.svg"
    run = cli(game, "--engine", ruby.engine_dir(), "--svg", picture)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == f"1830 · game 26855 · {len(json_rows)} runs"
    ran, optimum = sum(r["ran"] for r in json_rows), sum(r["optimum"] for r in json_rows)
    assert lines[-1].split() == ["total", str(ran), str(optimum), str(optimum - ran)]
    for r in json_rows:
        assert any(
            line.split()[:5] == [*r["round"].split(), r["entity"], str(r["ran"]), str(r["optimum"])] for line in lines
        ), r
    root = ET.fromstring(picture.read_text())
    cells = {(r["entity"], r["round"]) for r in json_rows}
    assert len(root.findall(f".//{SVG}g/{SVG}rect")) == len(cells)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert {r["entity"] for r in json_rows} <= set(texts)
    assert str(optimum - ran) in texts  # the grand total, bottom right


def test_summary_and_picture_from_rows():
    rows = [
        {"action_id": 1, "entity": "PRR", "round": "OR 1.1", "ran": 50, "optimum": 70, "optimal": True, "left": 20},
        {"action_id": 2, "entity": "NYC", "round": "OR 1.1", "ran": 40, "optimum": 40, "optimal": True, "left": 0},
        {"action_id": 3, "entity": "PRR", "round": "OR 2.1", "ran": 90, "optimum": 100, "optimal": True, "left": 10},
        {"action_id": 4, "error": "replay failed"},
    ]
    assert summary(rows) == {
        "PRR": {"ran": 140, "optimum": 170, "left": 30, "runs": 2, "optimal_runs": 0},
        "NYC": {"ran": 40, "optimum": 40, "left": 0, "runs": 1, "optimal_runs": 1},
    }
    root = ET.fromstring(review_svg(rows, "t & <t>"))
    cells = root.findall(f".//{SVG}g")
    assert len(cells) == 3
    tips = sorted(g.find(f"{SVG}title").text for g in cells)
    assert tips[0] == "NYC, OR 1.1: ran 40, optimum 40, left 0"
    fills = {g.find(f"{SVG}title").text.split(":")[0]: g.find(f"{SVG}rect").get("fill") for g in cells}
    assert fills["NYC, OR 1.1"] == "#ffffff" and fills["PRR, OR 1.1"] != fills["PRR, OR 2.1"] != "#ffffff"


@pytest.mark.parametrize(
    "case, message",
    [
        ("no engine", "no engine: give --engine DIR or set ROUTE18XX_ENGINE"),
        ("bad engine", "no engine at /nonexistent"),
        ("no ruby", "ruby not found"),
        ("no file", "/nonexistent.json: no such file"),
        ("not a game", "not a game's export"),
    ],
)
def test_a_missing_piece_is_one_line_and_exit_2(tmp_path, case, message):
    game = ruby.engine_dir() / "public" / "fixtures" / "1830" / "26855.json"
    env = {"ROUTE18XX_ENGINE": ""}
    args = [game, "--engine", ruby.engine_dir()]
    if case == "no engine":
        args = [game]
    elif case == "bad engine":
        args = [game, "--engine", "/nonexistent"]
    elif case == "no ruby":
        env["PATH"] = str(tmp_path)  # nothing on it
        args = [game, "--engine", ruby.engine_dir()]
    elif case == "no file":
        args = ["/nonexistent.json", "--engine", ruby.engine_dir()]
    elif case == "not a game":
        bad = tmp_path / "bad.json"
        bad.write_text('{"title": "1830"}')
        args = [bad, "--engine", ruby.engine_dir()]
    run = cli(*args, env=env, timeout=120)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("error: ") and message in run.stderr, run.stderr
