"""The tile code language: every code of the five games parses, rotation, and clear errors."""

import json

import pytest

from optimizer.board.tiles import TileCodeError, parse_code

from .corpus import catalogue_states, game_files, states


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
        ("path=a:0,b:x", "path=a:0,b:x"),
        ("path=a:0,b:_x", "path=a:0,b:_x"),
        ("city=revenue:20;path=a:0,b:_-1", "path=a:0,b:_-1"),
        ("city=revenue:20,slots", "city=revenue:20,slots"),
        ("city=revenue:20,,slots:1", "city=revenue:20,,slots:1"),
        ("path=a:0,b:3,track:maglev", "path=a:0,b:3,track:maglev"),
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


# ---- the engine's tolerance (lib/engine/tile.rb Tile.decode and Tile.part, and the part classes) ----


def test_parts_that_cannot_affect_routes_are_read_and_kept():
    """Partitions (1870, 1862, 18Mag, 18NY) and stripes (1822Africa, 1868Wyoming) only draw the
    tile or steer its upgrades: kept verbatim, with the routes' parts read as without them."""
    code = "partition=a:0-,b:2+,type:water;stripes=color:gray;city=revenue:20;path=a:0,b:_0"
    tile = parse_code(code)
    assert tile.cosmetic == ("partition=a:0-,b:2+,type:water", "stripes=color:gray")
    assert [n.kind for n in tile.nodes] == ["city"] and tile.exits(0) == (0,)


def test_future_track_is_kept_aside_and_never_run():
    """``track:future`` paths are the engine's ``future_paths``: printed, not laid (1858, 1844, 18SJ, 1873)."""
    tile = parse_code("city=revenue:20;path=track:future,a:0,b:_0;path=a:3,b:_0")
    assert [(p.a, p.b) for p in tile.future_paths] == [(("edge", 0), ("node", 0))]
    assert [(p.a, p.b) for p in tile.paths] == [(("edge", 3), ("node", 0))]
    assert tile.exits(0) == (3,)  # not an exit: no track there yet


def test_halts_read_as_the_engine_reads_them():
    """``Part::Halt``: a town with a symbol, revenue 0 and an optional visit unless the code says (1860, 18ESP)."""
    plain = parse_code("halt=symbol:\u00a3;path=a:0,b:_0").nodes[0]
    assert (plain.kind, plain.value(["yellow"]), plain.optional) == ("town", 0, True)
    given = parse_code("halt=symbol:x,route:mandatory,loc:center,revenue:20;path=a:0,b:_0").nodes[0]
    assert (given.value(["yellow"]), given.optional) == (20, False)


def test_properties_the_rules_may_need_are_read_and_kept():
    """``visit_cost`` and ``route`` (``Part::RevenueCenter``) and the part's own name are kept on the node."""
    town, halt, city = parse_code(
        "town=revenue:10,visit_cost:0;halt=symbol:x;city=revenue:20,route:never;path=a:0,b:_0"
    ).nodes
    assert (town.visit_cost, town.route, town.name) == (0, "mandatory", "town")
    assert (halt.kind, halt.name, halt.route, halt.visit_cost) == ("town", "halt", "optional", 1)
    assert (city.route, city.optional) == ("never", False)


def test_a_town_to_city_and_a_trailing_comma():
    """18CO: ``town=revenue:10,to_city:1`` (an upgrade rule) and ``path=a:0,b:_0,`` (Ruby's split
    drops the trailing empty field)."""
    tile = parse_code("town=revenue:10,to_city:1;path=a:0,b:_0,")
    assert tile.nodes[0].value(["yellow"]) == 10 and tile.exits(0) == (0,)


def test_path_ends_the_engine_tolerates():
    """Edge 6 is edge 0 (``Part::Edge`` turns modulo 6: 18FL, 18Neb, 18Uruguay); an edge joined to
    itself (1858India) cannot join two places: kept aside, its edge still an exit."""
    assert parse_code("city=revenue:20;path=a:6,b:_0").paths[0].a == ("edge", 0)
    assert parse_code("path=a:1,b:6").exits(1) == (1, 2)
    tile = parse_code("offboard=revenue:20;path=a:0,b:_0;path=a:5,b:5,terminal:1,ignore:1")
    assert len(tile.paths) == 1 and [(p.a, p.b) for p in tile.dead_ends] == [(("edge", 5), ("edge", 5))]
    assert tile.exits(0) == (0, 5)


def test_a_missing_semicolon_reads_as_the_engine_reads_it():
    """A part is its text up to a second ``=``: the engine reads ``path=a:3,b:_1border=edge:4``
    (1840) as a path to node 1 and drops the border; 1893's Wuppertal keeps its revenue and loses
    the path run into its groups."""
    tile = parse_code("city=revenue:20;city=revenue:30;path=a:0,b:_0;path=a:3,b:_1border=edge:4")
    assert tile.paths[1].b == ("node", 1) and tile.borders == ()
    wuppertal = parse_code("offboard=revenue:yellow_20|green_30|brown_40,groups:Wuppertalpath=a:1,b:_0,terminal:1")
    assert wuppertal.nodes[0].groups == ("Wuppertalpath",) and wuppertal.paths == ()
    assert wuppertal.nodes[0].value(["yellow", "green"]) == 30


def test_every_catalogue_code_parses():
    """Every code on every board of the catalogue (97 more titles) parses, paths to real nodes."""
    codes = set()
    for s in catalogue_states():
        codes.update(h["code"] for h in s["hexes"])
    assert len(codes) > 1000
    for code in sorted(codes):
        tile = parse_code(code)
        for path in tile.paths + tile.future_paths + tile.dead_ends:
            assert all(0 <= n < len(tile.nodes) for n in path.nodes)
            assert all(0 <= e <= 5 for e in path.edges)


def test_a_path_may_carry_a_loc_as_the_engines_1860_tiles_do():
    """``path=a:1,b:_0,loc:0.5`` (1860's own tiles): Tile.decode reads ``loc`` as an edge that no path
    uses; we read the path and drop it. Another property the engine never reads is still refused."""
    tile = parse_code("city=revenue:20;path=a:1,b:_0,loc:0.5")
    assert len(tile.paths) == 1
    with pytest.raises(TileCodeError, match="unknown property 'lock'"):
        parse_code("city=revenue:20;path=a:1,b:_0,lock:0.5")
