"""The tile code language: every code of the five games parses, rotation, and clear errors."""

import json

import pytest

from optimizer.board.tiles import TileCodeError, parse_code

from .corpus import game_files, states


def all_codes():
    codes = set()
    for f in game_files():
        data = json.loads(f.read_text())
        codes.update(h["code"] for h in data["hexes"])
        codes.update(t["code"] for t in data["tiles"])
    for s in states():
        codes.update(h["code"] for h in s["hexes"])
    return sorted(codes)


def test_every_code_of_the_five_games_parses():
    codes = all_codes()
    assert len(codes) > 100
    for code in codes:
        tile = parse_code(code)
        assert tile.code == code
        for path in tile.paths:
            for n in path.nodes:
                assert n < len(tile.nodes)


def test_city_with_colour_table_and_slots():
    tile = parse_code("city=revenue:yellow_20|green_30|brown_40,slots:2;path=a:0,b:_0;path=a:3,b:_0,terminal:1")
    city = tile.nodes[0]
    assert (city.kind, city.slots) == ("city", 2)
    assert city.value(["yellow"]) == 20
    assert city.value(["yellow", "green", "brown"]) == 40
    assert city.value(["yellow", "green", "brown", "gray"]) == 40  # last colour the table has
    assert [p.terminal for p in tile.paths] == [False, True]


def test_rotation_moves_code_edges_to_absolute_edges():
    tile = parse_code("path=a:0,b:3;city=revenue:10;path=a:5,b:_0")
    assert tile.exits(0) == (0, 3, 5)
    assert tile.exits(2) == (1, 2, 5)  # (k + 2) mod 6
    rotated = tile.paths_rotated(4)
    assert rotated[0].a == ("edge", 4) and rotated[0].b == ("edge", 1)
    assert rotated[1].b == ("node", 0)


def test_groups_junction_town_offboard_and_cosmetic_parts():
    tile = parse_code(
        "offboard=revenue:yellow_30|brown_50,hide:1,groups:Canada;path=a:5,b:_0;border=edge:4;"
        "icon=image:port;upgrade=cost:80,terrain:water;label=NY;stub=edge:1"
    )
    assert tile.nodes[0].groups == ("Canada",)
    assert tile.labels == ("NY",)
    assert parse_code("junction;path=a:0,b:_0;path=a:3,b:_0").nodes[0].kind == "junction"
    assert parse_code("town=revenue:10,route:optional").nodes[0].optional


def test_parsed_codes_are_cached():
    assert parse_code("city=revenue:20;path=a:0,b:_0") is parse_code("city=revenue:20;path=a:0,b:_0")


@pytest.mark.parametrize(
    "code, part",
    [
        ("city=revenue:20;wormhole=to:mars", "wormhole=to:mars"),
        ("city=revenue:abc", "city=revenue:abc"),
        ("city=revenue:20;path=a:0,b:_3", "path _3"),
        ("path=a:0,b:9", "path=a:0,b:9"),
        ("path=a:0", "path=a:0"),
        ("city=revenue:20,colour:red", "city=revenue:20,colour:red"),
        ("city", "city"),
        ("border=edge:7", "border=edge:7"),
    ],
)
def test_bad_codes_name_the_part(code, part):
    with pytest.raises(TileCodeError) as err:
        parse_code(code)
    assert err.value.part == part
