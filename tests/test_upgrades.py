"""Which tiles fit a hex, for the board built by taps (issue 29): the engine's upgrade rule (generic,
and a game's additions declared as data), compared hex by hex with the 18xx.games engine itself (Debian's Ruby, ``clients/ruby/bin/tile-choices``);
the supply counted on the map; tokens following their city; the page's game setup."""

from __future__ import annotations

import json
import subprocess

import pytest

from optimizer import api
from optimizer.errors import BoardError
from optimizer.games import game_data, game_names
from optimizer.games.tilelays import board_from_tile_lays, hex_choices

from .built_board import DOCUMENT
from .ruby import CLIENT, engine_dir, tool

# A recorded game of each title, loaded at its start: the engine's start map and tile supply.
FIXTURES = {
    "1830": "1830/26855",
    "1889": "1889/962",
    "18Chesapeake": "18Chesapeake/1905",
    "18EU": "18EU/74045",
    "1846": "1846/1846_game_end_reason_all_closed",
    "1894": "1894/1894_game_end_bankrupt",
    "1880": "1880/1",
    "1880 Romania": "1880Romania/1880_romania_game_end_final_phase",
    "18AL": "18AL/1446",
}
# 1880 and 1880 Romania add to the generic rule (stubs that must be joined, OO tiles on plain
# two-city hexes, city-or-town tiles, the most exits): declared as tile_rules in their data files.


# Games whose map and upgrades stay the data's all game long, compared again part-way and at the
# end of the recorded game (the map's tiles then given as lays). Not 1894 (its brown cities upgrade
# by lists written as code) nor 1880 Romania (train events open, then remove, its borders).
MID_GAME = ("1830", "1889", "18Chesapeake", "18EU", "1846", "1880", "18AL")
PARTS = (0.3, 0.6, 1.0)  # how far into the recorded game's actions
BOARDS = (
    [(title, 0.0, []) for title in FIXTURES]
    + [("1830", 0.0, DOCUMENT["lays"])]
    + [(title, part, None) for title in MID_GAME for part in PARTS]
)


@pytest.fixture(scope="module")
def engine_choices():
    """The engine's answer per board of BOARDS (game, how far, lays): its choices {hex: {tile:
    [rotations]}} and the tiles on its map as lays."""
    engine, ruby = engine_dir(), tool("ruby")
    requests = []
    for k, (title, part, lays) in enumerate(BOARDS):
        fixture = engine / "public" / "fixtures" / f"{FIXTURES[title]}.json"
        actions = len(json.loads(fixture.read_text())["actions"]) if part else 0
        requests.append({"id": k, "fixture": str(fixture), "action_id": int(actions * part), "lays": lays or []})
    out = subprocess.run(
        [ruby, str(CLIENT / "bin" / "tile-choices"), str(engine)],
        input="\n".join(map(json.dumps, requests)),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert [a["id"] for a in answers] == list(range(len(BOARDS))) and not any("error" in a for a in answers), answers
    return answers


def _board_id(board) -> str:
    title, part, lays = board
    return f"{title} built by taps" if lays else f"{title} at {part:.0%}"


@pytest.mark.parametrize("k", range(len(BOARDS)), ids=[_board_id(b) for b in BOARDS])
def test_the_tiles_that_fit_each_hex_are_the_engines(engine_choices, k):
    title, part, lays = BOARDS[k]
    answer = engine_choices[k]
    theirs = answer["hexes"]
    in_supply = {t for fits in theirs.values() for t in fits}
    doc = {"game": title, "lays": lays if lays is not None else answer["laid"]}
    if part:
        assert len(doc["lays"]) > 5  # tiles on the map part-way into the game
    compared = 0
    for h in game_data(title)["hexes"]:
        # the engine lists only tiles left in the supply (the page shows the others with "0 left"), and
        # 1889's data has the beginner variant's tiles (Beg7...), which that game's supply has not
        fits = [f for f in hex_choices(doc, h["id"])["fits"] if f["left"] != 0]
        ours = {f["tile"]: f["rotations"] for f in fits if f["tile"] in in_supply or not f["tile"].startswith("Beg")}
        assert ours == theirs[h["id"]], h["id"]
        compared += len(ours)
    assert compared > 50  # the comparison is not empty


def test_an_upgraded_tile_goes_back_to_the_supply():
    lays = [{"hex": h, "tile": "57", "rotation": 0} for h in ("H16", "E19", "H10", "F16")]  # all four 57s
    with pytest.raises(BoardError, match=r"tile 57 would be on the map 5 times; the supply has 4"):
        board_from_tile_lays({"game": "1830", "lays": [*lays, {"hex": "J14", "tile": "57"}]})
    upgraded = [*lays, {"hex": "H16", "tile": "14", "rotation": 0}, {"hex": "J14", "tile": "57", "rotation": 0}]
    board = board_from_tile_lays({"game": "1830", "phase": "5", "company": "PRR", "lays": upgraded})
    assert {h["id"]: h["tile"] for h in board["hexes"] if h["id"] in ("H16", "J14")} == {"H16": "14", "J14": "57"}
    choices = hex_choices({"game": "1830", "phase": "2", "lays": lays}, "J14")
    assert [(f["tile"], f["left"], f["phase"]) for f in choices["fits"]] == [("57", 0, True)]


def test_the_phase_orders_the_choices_and_marks_the_later_ones():
    doc = {"game": "1830", "phase": "3", "lays": [{"hex": "H16", "tile": "57", "rotation": 0}]}
    green = hex_choices(doc, "H16")["fits"]
    assert [(f["tile"], f["phase"], f["left"]) for f in green] == [("14", True, 3), ("15", True, 2)]
    doc["lays"].append({"hex": "H16", "tile": "15", "rotation": 0})
    brown = hex_choices(doc, "H16")["fits"]
    assert [(f["tile"], f["phase"]) for f in brown] == [("63", False)]  # brown comes in phase 5
    assert len(hex_choices(doc, "H16")["others"]) == len(game_data("1830")["tiles"]) - 1


def test_tokens_follow_their_city_across_an_upgrade():
    # Philadelphia & Trenton: the green OO tile 59 at rotation 0 has city _0 on edge 0, _1 on edge 2.
    # The brown 66 (_0 on edges 0 and 3, _1 on 1 and 2) at rotation 0 keeps them; at rotation 5 its
    # _0 lies on edges 5 and 2, its _1 on 0 and 1: the old _0 goes to _1 and the old _1 to _0, as the
    # engine's Hex#city_map_for moves tokens (an old city's exits within the new city's).
    doc = {"game": "1830", "lays": [{"hex": "H18", "tile": "59", "rotation": 0}]}
    fit = next(f for f in hex_choices(doc, "H18")["fits"] if f["tile"] == "66")
    assert fit["rotations"] == [0, 5]
    assert fit["cities"] == {"0": {"0": 0, "1": 1}, "5": {"0": 1, "1": 0}}


def test_a_hex_that_is_not_on_the_map_is_an_error_naming_the_field():
    with pytest.raises(BoardError) as err:
        hex_choices({"game": "1830", "lays": []}, "Z99")
    assert err.value.field == "hex" and "unknown hex 'Z99' on the 1830 map" in str(err.value)


@pytest.mark.parametrize("title", game_names())
def test_every_game_with_data_can_be_built(title):
    setup = api.game_setup(title)
    assert setup["companies"] and all(c.get("color") for c in setup["companies"])  # the engine's colours
    assert setup["tiles"] and setup["phases"] and setup["trains"] and setup["places"]
    start = dict(setup["start"], trains=[setup["trains"][0]["name"]])
    first = start["company"]
    tokened = any(first in (c.get("tokens") or ()) for h in game_data(title)["hexes"] for c in h.get("cities") or ())
    answer = api.solve(start)  # a board the API reads; with no token of the company on the start map, no run
    assert answer["optimal"] and (tokened or answer["revenue"] == 0)
    choices = [api.tile_choices(start, h["id"]) for h in game_data(title)["hexes"]]
    hexes = len(game_data(title)["hexes"])
    assert sum(1 for c in choices if c["fits"]) > min(20, hexes // 2)  # (1850Jr's map has 30 hexes)
