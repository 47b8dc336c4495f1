"""The command line as other tools call it: shapes, exit statuses, one-line errors."""

import json
import subprocess
import sys

import pytest

from optimizer.cli import SUBCOMMANDS, build_parser, main

from .corpus import state
from .titles import BUILT_IN_TITLES

PY = [sys.executable, "-m", "optimizer"]


def run(args, stdin=None):
    return subprocess.run(PY + args, input=stdin, capture_output=True, text=True, timeout=120)


@pytest.fixture
def state_file(tmp_path):
    doc = state("1830/26855@553")
    path = tmp_path / "state.json"
    path.write_text(json.dumps(doc))
    return path, doc


def test_solve_json_contract(state_file):
    path, doc = state_file
    out = run(["solve", str(path), "--json"])
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert set(result) >= {"id", "revenue", "optimal", "bound", "routes", "elapsed_ms"}
    assert result["id"] == doc["id"] and result["revenue"] == doc["expected"]["router"]["revenue"]
    assert result["optimal"] is True and result["bound"] == result["revenue"]
    for r in result["routes"]:
        assert set(r) >= {"train", "revenue", "stops", "hexes"}
        assert all(isinstance(c, list) for c in r["hexes"])
    # the hexes chains are the form check accepts
    routes = path.parent / "routes.json"
    routes.write_text(json.dumps([{"train": r["train"], "hexes": r["hexes"]} for r in result["routes"]]))
    checked = run(["check", str(path), "--routes", str(routes), "--json"])
    assert checked.returncode == 0
    assert json.loads(checked.stdout)["revenue"] == result["revenue"]


def test_solve_reads_stdin(state_file):
    path, doc = state_file
    out = run(["solve", "-", "--json"], stdin=path.read_text())
    assert out.returncode == 0 and json.loads(out.stdout)["revenue"] == doc["expected"]["router"]["revenue"]


def test_solve_default_board_prints_a_table(capsys):
    assert main(["solve"]) == 0
    text = capsys.readouterr().out
    assert "total    440" in text and "optimal" in text and "Baltimore (I15)" in text


def test_solve_with_a_deadline(state_file, capsys):
    path, _ = state_file
    assert main(["solve", str(path), "--json", "--deadline-ms", "1000"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["revenue"] == 440


def test_batch_one_line_per_state_in_order_errors_per_line(tmp_path, capsys):
    good = state("1830/26855@553")
    other = state("18EU/74045@591")
    bad = json.loads(json.dumps(good))
    bad["id"] = "broken"
    bad["hexes"][3]["rotation"] = 7
    lines = [json.dumps(good), "{not json", json.dumps(bad), json.dumps(other)]
    path = tmp_path / "states.jsonl"
    path.write_text("\n".join(lines) + "\n")
    status = main(["solve", "--batch", str(path), "--json"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1
    assert [o.get("id") for o in out] == [good["id"], None, "broken", other["id"]]
    assert out[0]["revenue"] == good["expected"]["router"]["revenue"]
    assert "error" in out[1] and "error" in out[2] and "rotation" in out[2]["error"]
    assert out[3]["revenue"] == other["expected"]["router"]["revenue"]


def test_check_reports_reasons_and_exit_status(state_file, tmp_path):
    path, doc = state_file
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"]["router"]["routes"]]
    both_on_one = [routes[0], dict(routes[0], train=routes[1]["train"])]
    file = tmp_path / "r.json"
    file.write_text(json.dumps(both_on_one))
    out = run(["check", str(path), "--routes", str(file), "--json"])
    assert out.returncode == 1
    verdict = json.loads(out.stdout)
    assert not verdict["legal"]
    assert any("already uses" in e for r in verdict["routes"] for e in r["errors"])


@pytest.mark.parametrize(
    "args, words",
    [
        (["solve", "/no/such/file.json"], "cannot read"),
        (["check", "STATE", "--routes", '[{"train": "nope", "hexes": [["G19", "F20"]]}]'], "unknown train"),
        (["check", "STATE", "--routes", '[{"train": "4-0", "hexes": [["G19", "Q99"]]}]'], "not on the board"),
        (["check", "STATE", "--routes", '[{"train": "4-0", "hexes": [["G19", "I15"]]}]'], "no track"),
    ],
)
def test_errors_are_one_line_and_exit_2(state_file, args, words):
    path, _ = state_file
    out = run([str(path) if a == "STATE" else a for a in args])
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and words in lines[0]


def test_malformed_board_names_the_field(tmp_path):
    doc = state("1830/26855@553")
    doc["hexes"][5]["rotation"] = 7
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    out = run(["solve", str(path)])
    assert out.returncode == 2
    assert "hexes[5].rotation" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_check_is_illegal_when_any_route_is(tmp_path):
    """Rulebook (18EU): the Pullman "Doubles the value of any one City or Off-Map Location on one
    train's run"; given a route of its own, the set is not legal: exit 1."""
    doc = state("18EU/74045@779")
    six = {"train": "6-1", "hexes": doc["expected"]["human"]["routes"][0]["hexes"]}
    (tmp_path / "state.json").write_text(json.dumps(doc))
    (tmp_path / "routes.json").write_text(json.dumps([six, {"train": "P-2", "hexes": [["F9", "E8", "E6"]]}]))
    out = run(["check", str(tmp_path / "state.json"), "--routes", str(tmp_path / "routes.json"), "--json"])
    assert out.returncode == 1 and json.loads(out.stdout)["legal"] is False


def test_neighbours_on_some_hexes_is_a_one_line_error(tmp_path):
    doc = state("1830/26855@450")
    d16 = next(i for i, h in enumerate(doc["hexes"]) if h["id"] == "D16")
    del doc["hexes"][d16]["neighbors"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    out = run(["solve", str(path)])
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert f"hexes[{d16}].neighbors" in out.stderr and "D16" in out.stderr


def test_games_json(capsys):
    assert main(["games", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {g["title"] for g in data["games"]} == BUILT_IN_TITLES
    assert "express" in data["train_kinds"]
    by_title = {g["title"]: g for g in data["games"]}
    assert by_title["1822PNW SRS"]["revenue_rules"] == [
        "one_stop_per_hex",
        "local_cities_once",
        "e_trains",
        "destination_bonus",
        "track_assignment_bonuses",  # forests and Ski Haus
        "track_tile_penalties",  # Portage
        "best_route_bonuses",  # the mill and the lumber baron
    ]
    assert by_title["1822"]["phases"][0]["train_limits"] == {"minor": 2, "major": 4}  # by company type
    assert by_title["1822"]["phases"][0]["train_limit"] is None
    assert {g["title"]: g["rules"] for g in data["games"]}["1846"] == "data"
    variant = {g["title"]: g for g in data["games"]}["1846 2p Variant"]  # says once that it is 1846
    assert (variant["rules"], variant["revenue_rules"]) == (
        "data",
        ["assigned_stop_bonuses", "group_pairs", "best_route_bonuses"],
    )
    assert data["other_games"] == "generic"


def test_games_text_says_where_rules_come_from(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "1846 (pointy hexes; rules: data: assigned_stop_bonuses, group_pairs, best_route_bonuses)" in out
    assert "any other game: the generic rules" in out


def test_solve_text_says_generic_rules(tmp_path):
    doc = state("1830/26855@553")
    doc["game"] = "18Unknown"
    path = tmp_path / "other.json"
    path.write_text(json.dumps(doc))
    out = run(["solve", str(path)])
    assert out.returncode == 0
    assert "rules: generic (no rules for 18Unknown here" in out.stdout
    assert json.loads(run(["solve", "--json", str(path)]).stdout)["rules"] == "generic"


@pytest.mark.parametrize(
    "command", [c for c in SUBCOMMANDS if c in build_parser()._subparsers._group_actions[0].choices]
)
def test_every_subcommand_has_help(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    assert "usage:" in capsys.readouterr().out
