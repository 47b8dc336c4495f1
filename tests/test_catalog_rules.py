"""Catalogue titles whose rules are data files (``optimizer/games/data``): what each declares, on real
catalogue states. The engine judges them whole in tests/test_engine_oracle.py; here the parts a
recorded game never happened to need. The reference is the engine's code (file and method named)."""

from __future__ import annotations

import json
import os

import pytest

from optimizer import api
from optimizer.board.state import read_board
from optimizer.games import game_data, rules_class, rules_for, rules_source
from optimizer.graph.problem import build_problem
from optimizer.revenue import bonus_value

from .corpus import require_corpus


def catalog_state(state_id: str) -> dict:
    corpus = require_corpus()
    path = corpus / "catalog" / "states" / state_id.split("/")[0] if corpus else None
    if path is None or not path.is_dir():
        if _ci():
            pytest.fail("the catalogue (../shared/corpus/catalog) is missing, and CI=true")
        pytest.skip("the catalogue (../shared/corpus/catalog) is missing")
    for f in sorted(path.glob("*.jsonl")):
        for line in f.read_text().splitlines():
            if line.strip() and json.loads(line)["id"] == state_id:
                return json.loads(line)
    raise KeyError(state_id)


def _ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


@pytest.mark.parametrize("variant", ["1846 2p Variant", "1852: Missouri"])
def test_variants_of_1846_take_its_families(variant):
    """lib/engine/game/g_1846_two_player_variant/game.rb and g_18_mo/game.rb: ``class Game <
    G1846::Game``. Their data files say so once (``inherits``) and hold their own maps."""
    own = game_data(variant)["revenue_rules"]
    assert own["inherits"] == "1846" and set(own) <= {"source", "inherits", "one_stop_per_hex", "towns_fill"}
    parent = {k: v for k, v in game_data("1846")["revenue_rules"].items() if k != "source"}
    declared = rules_class(variant).declared
    assert {k: v for k, v in declared.items() if k in parent} == parent
    assert declared["source"] == own["source"]  # where it says it is 1846
    assert rules_source(variant)[1][: len(parent)] == list(parent)
    assert game_data(variant)["hexes"] != game_data("1846")["hexes"]


def test_1882_east_to_hudson_bay_pays_100():
    """lib/engine/game/g_1882/game.rb#revenue_for: a route paying an east off-board (I1 or B2) and
    Hudson Bay (B12) earns 100 more. On the board of HBR's last run (an 8 train instead of its 5), the
    best route runs from I1 to B12 and is paid its stops plus 100; under the generic rules it is not."""
    doc = catalog_state("1882/5236@1110")
    doc["trains"] = [{"id": "8-0", "name": "8", "distance": 8, "price": 1, "owner": doc["corporation"]["id"]}]
    answer = api.solve(doc)
    [route] = answer["routes"]
    assert answer["optimal"] and answer["rules"] == "1882"
    assert {route["paid"][0], route["paid"][-1]} == {"I1._0", "B12._0"}
    checked = api.check(doc, [{"train": "8-0", "hexes": route["hexes"]}])
    generic = api.check(dict(doc, game="1882 (no rules)"), [{"train": "8-0", "hexes": route["hexes"]}])
    assert checked["legal"] and generic["legal"]
    assert checked["revenue"] == generic["revenue"] + 100 == route["revenue"] == answer["revenue"]


def test_1852_missouri_pays_one_stop_of_a_hex():
    """lib/engine/game/g_18_mo/game.rb#check_other: "Route cannot run to multiple cities in a hex". On
    MKT's board at action 297 our generic answer ran a train through two cities of one hex (the engine
    refused it); with its data file no route pays two stops of a hex, and the answer earns the router's."""
    doc = catalog_state("1852Missouri/1852Missouri_game_end_bank@297")
    answer = api.solve(doc)
    assert answer["optimal"] and answer["rules"] == "1852: Missouri"
    for route in answer["routes"]:
        hexes = [stop.split(".")[0] for stop in route["stops"]]
        assert len(hexes) == len(set(hexes)), route
    assert answer["revenue"] == doc["expected"]["router"]["revenue"]
    generic = api.solve(dict(doc, game="1852 (no rules)"))
    twice = [r for r in generic["routes"] if len({s.split(".")[0] for s in r["stops"]}) < len(r["stops"])]
    assert twice, "the board no longer tempts a route into two stops of one hex"
    verdict = api.check(doc, [{"train": twice[0]["train"], "hexes": twice[0]["hexes"]}])
    assert not verdict["legal"] and "one location, twice" in json.dumps(verdict), verdict


@pytest.mark.parametrize(
    "state_id,title,exempt",
    [
        ("1866/1866_game_end_final_phase@1401", "1866", {"G15", "G19", "J12", "J18", "K5"}),
        ("1867/nationalization_cash@513", "1867", set()),
        ("18DE/18DE_game_end_final_phase@1138", "18DE", set()),
    ],
)
def test_no_hex_visited_twice(state_id, title, exempt):
    """lib/engine/game/g_1866/game.rb, g_1867/game.rb, g_1817/game.rb (18DE: ``G1817DE < G1817``)
    ``#revenue_for``: "Route visits same hex twice", where ``Route#hexes`` is the hexes of the route's
    nodes, a ``DOUBLE_HEX`` aside. On these boards our generic answer ran a train through two stops of
    one hex (L12's town and city in 1866 and 1867), which the engine refused; with the titles' data
    files (``one_stop_per_hex``) no route does, and a route that does is illegal."""
    doc = catalog_state(state_id)
    answer = api.solve(doc)
    assert answer["optimal"] and answer["rules"] == title
    for route in answer["routes"]:
        hexes = [stop.split(".")[0] for stop in route["stops"] if stop.split(".")[0] not in exempt]
        assert len(hexes) == len(set(hexes)), route
    generic = api.solve(dict(doc, game=f"{title} (no rules)"))
    twice = [r for r in generic["routes"] if len({s.split(".")[0] for s in r["stops"]}) < len(r["stops"])]
    # priced alike (the generic rules: 18DE's bonuses along the track would pay our routes more), the rule costs revenue
    ours_plain = api.check(
        dict(doc, game=f"{title} (no rules)"), [{"train": r["train"], "hexes": r["hexes"]} for r in answer["routes"]]
    )
    assert twice and generic["revenue"] > ours_plain["revenue"], "the board no longer tempts a route into one hex twice"
    verdict = api.check(doc, [{"train": twice[0]["train"], "hexes": twice[0]["hexes"]}])
    assert not verdict["legal"] and "one location, twice" in json.dumps(verdict), verdict


def test_1822_double_hexes_may_be_visited_twice():
    """lib/engine/game/g_1822/game.rb#revenue_for skips its check for a route on a ``DOUBLE_HEX``
    (D35's city and town, the double towns of F7, H21, H37): those hexes are exempt in 1822's data
    file, so a route may visit both of D35's stops, and two stops of another hex it may not."""
    rules = rules_class("1822")
    assert rules.declared["one_stop_per_hex"] == {"except_hexes": ["D35", "F7", "H21", "H37"]}
    assert rules_class("1822MRS").declared["one_stop_per_hex"] == rules.declared["one_stop_per_hex"]
    assert rules_class("1822PNW SRS").declared["one_stop_per_hex"] == {"except_hexes": ["H19", "M4"]}
    board = read_board(catalog_state("1822/33845@124"))
    rules = rules_for(board)
    locations = {}
    for hx in board.hexes.values():
        for node in hx.tile.nodes:
            if node.is_stop:
                locations.setdefault(hx.id, set()).add(rules.location(hx, node))
    assert len(locations["D35"]) == 2  # its city and its town
    several = {h for h, locs in locations.items() if len(locs) > 1}
    assert several <= {"D35", "F7", "H21", "H37"}, several
    assert len(locations["M38"]) == 1  # London's six cities: one a route


def test_1822_local_train_runs_its_token_city_alone():
    """lib/engine/train.rb#local? (an L train's city row visits 1) and lib/engine/route.rb#connection_data
    (``["local", HEX]``: the hex's city holding the company's token, no track): minor 15's L train runs
    London alone for 40, the router's, where the generic answer ran nothing (a route of one stop)."""
    doc = catalog_state("1822/33845@124")
    answer = api.solve(doc)
    assert answer["optimal"] and answer["rules"] == "1822"
    assert [(r["train"], r["hexes"], r["stops"]) for r in answer["routes"]] == [("L-0", [["local", "M38"]], ["M38._4"])]
    assert answer["revenue"] == 40 == doc["expected"]["router"]["revenue"]
    for core in ("python", "compiled"):
        assert api.solve(doc, core=core)["revenue"] == 40
    checked = api.check(doc, [{"train": "L-0", "hexes": [["local", "M38"]]}])
    assert checked["legal"] and checked["revenue"] == 40
    elsewhere = api.check(doc, [{"train": "L-0", "hexes": [["local", "M36"]]}])
    assert not elsewhere["legal"] and "holding the company's token" in elsewhere["routes"][0]["errors"][0]


def test_1822_two_local_trains_never_share_a_city():
    """lib/engine/game/g_1822/game.rb#check_local_cities: "Local train can only use each token on ...
    once", over every route of a local train. Given a second L train, minor 15 runs London alone with
    one and not with the other (1822's data: ``local_cities_once``); the generic rules run it twice
    (the engine's base Route allows that), and 1822's check refuses it."""
    doc = catalog_state("1822/33845@124")
    doc["trains"] = doc["trains"] + [dict(doc["trains"][0], id="L-1")]
    answer = api.solve(doc)
    assert answer["optimal"] and answer["rules"] == "1822" and answer["stats"]["core"] == "python"
    cities = [s for r in answer["routes"] for s in r["stops"]]
    assert "M38._4" in cities and cities.count("M38._4") == 1
    generic = api.solve(dict(doc, game="1822 (no rules)"))
    assert [r["hexes"] for r in generic["routes"]] == [[["local", "M38"]]] * 2 and generic["revenue"] == 80
    twice = api.check(doc, [{"train": r["train"], "hexes": r["hexes"]} for r in generic["routes"]])
    assert not twice["legal"] and "local trains may use" in json.dumps(twice), twice
    assert answer["revenue"] < generic["revenue"]


def test_1888_destination_is_paid_once_a_route():
    """lib/engine/game/g_1888/game.rb#revenue_for and #destinated?: a route paying a stop of the
    company's home hex and one of its destination hex earns the destination bonus, once (1888's data:
    ``set_pairs``). At action 68 LYR's 2 train runs Lanyan (F16, home) to H14 for 60 + 20, the router's
    110 in all, where the generic rules pay 90. For TJL a route paying its home E3 and both stops of its
    destination H4 is paid 20 once, not once per destination stop (as pairs of stops would)."""
    doc = catalog_state("1888/129026@68")
    answer = api.solve(doc)
    assert answer["optimal"] and answer["rules"] == "1888"
    assert answer["revenue"] == 110 == doc["expected"]["router"]["revenue"]
    home_run = next(r for r in answer["routes"] if "F16._0" in r["paid"])
    checked = api.check(doc, [{"train": home_run["train"], "hexes": home_run["hexes"]}])
    generic = api.check(dict(doc, game="1888 (no rules)"), [{"train": home_run["train"], "hexes": home_run["hexes"]}])
    assert checked["revenue"] == generic["revenue"] + 20 == home_run["revenue"]
    board = catalog_state("1888/129026@356")  # early on, H4 holds two towns
    board["corporation"] = dict(board["corporation"], id="TJL")  # home E3, destination H4 (+20)
    problem = build_problem(board, reachable_only=False)
    index = problem.graph.stop_index()
    [home] = [index[s] for s in index if s.startswith("E3.")]
    destination = [index[s] for s in index if s.startswith("H4.")]
    assert len(destination) == 2 and problem.n_set_pairs == 1
    assert bonus_value(problem, 0, [home, *destination], [home, *destination]) == 20
    assert bonus_value(problem, 0, [home, destination[0]], [home, destination[0]]) == 20
    assert bonus_value(problem, 0, destination, destination) == 0
