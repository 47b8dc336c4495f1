"""Catalogue titles whose rules are data files (``optimizer/games/data``): what each declares, on real
catalogue states. The engine judges them whole in tests/test_engine_oracle.py; here the parts a
recorded game never happened to need. The reference is the engine's code (file and method named)."""

from __future__ import annotations

import json
import os

import pytest

from optimizer import api
from optimizer.games import game_data, rules_class, rules_source

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
    assert own["inherits"] == "1846" and set(own) <= {"source", "inherits", "one_stop_per_hex"}
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
