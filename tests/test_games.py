"""Each game's own rules, on real boards or small edits of real map hexes, with the rule quoted.

Small boards here wire real map hexes (their codes from the game data) to a few plain tiles with
explicit ``neighbors``: the board format allows any adjacency, which lets one test isolate one rule.
Every test runs against both searches (the ``core`` fixture) and, where routes are given, the checker.
"""

import copy

import pytest

from optimizer import api
from optimizer.board.geometry import opposite
from optimizer.board.state import read_board
from optimizer.board.tiles import parse_code
from optimizer.games import game_data, rules_for
from optimizer.graph.problem import build_problem
from optimizer.model import spec_from_rows
from optimizer.rules.check import check_routes

from .corpus import state, states

CITY_20 = "city=revenue:20;path=a:0,b:_0;path=a:_0,b:3"  # tile 57: a city on straight track
CITY = "city=revenue:{v};path=a:0,b:_0;path=a:_0,b:3"
STRAIGHT = "path=a:0,b:3"  # tile 9
SHARP = "path=a:0,b:1"  # tile 7
EVERYWHERE = ["yellow", "green", "brown", "gray"]


def map_code(game, hex_id):
    return next(h["code"] for h in game_data(game)["hexes"] if h["id"] == hex_id)


def board(game, cells, links, trains, *, phase=EVERYWHERE, company=None, layout="pointy"):
    """cells: {hex id: (code, rotation, colour, tokens of city 0, ...)}; links: [(hex, edge, hex)]."""
    hexes = {}
    for hex_id, (code, rotation, colour, *tokens) in cells.items():
        cities = [n for n in parse_code(code).nodes if n.kind == "city"]
        hexes[hex_id] = {
            "id": hex_id,
            "tile": hex_id,
            "color": colour,
            "rotation": rotation,
            "code": code,
            "neighbors": {},
            "location_name": hex_id,
            "cities": [
                {
                    "index": c.index,
                    "slots": max(c.slots, 1),
                    "tokens": list(tokens[k]) if k < len(tokens) else [None] * max(c.slots, 1),
                }
                for k, c in enumerate(cities)
            ],
        }
    for a, edge, b in links:
        hexes[a]["neighbors"][str(edge)] = b
        hexes[b]["neighbors"][str(opposite(edge))] = a
    return {
        "id": "edit",
        "game": game,
        "layout": layout,
        "phase": {"name": "x", "tiles": phase},
        "corporation": company or {"id": "US"},
        "trains": [dict(t, id=t.get("id", f"{t['name']}-{i}")) for i, t in enumerate(trains)],
        "hexes": list(hexes.values()),
    }


def solve(doc):
    return api.solve(copy.deepcopy(doc))


def stops_of(result):
    return [r["stops"] for r in result["routes"]]


def express(n):
    return {"name": f"{n}E", "distance": [{"nodes": ["city", "offboard", "town"], "pay": n, "visit": 99}]}


def eu_train(n):
    return {
        "name": str(n),
        "distance": [
            {"nodes": ["city", "offboard"], "pay": n, "visit": n},
            {"nodes": ["town"], "pay": 99, "visit": 99},
        ],
    }


# ---- 1830 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "first, second, rotations, value",
    [("A9", "A11", (4, 0), 50), ("I1", "J2", (5, 3), 60)],
    ids=["Canada", "Gulf"],
)
def test_1830_an_offboard_area_counts_once_per_route(core, first, second, rotations, value):
    """1830 map: Canada (A9, A11) and the Gulf (I1, J2) are off-board areas of two hexes each; one route
    reaches one hex of an area. The engine's map groups both Canada hexes but only I1 of the Gulf, so
    it would pay a route from I1 to J2 both."""
    cells = {
        first: (map_code("1830", first), rotations[0], "red"),
        "Z1": (CITY_20, 0, "yellow", ["US"]),
        second: (map_code("1830", second), rotations[1], "red"),
    }
    doc = board("1830", cells, [(first, 3, "Z1"), ("Z1", 3, second)], [{"name": "3", "distance": 3}])
    result = solve(doc)
    assert result["revenue"] == value + 20
    assert all(not ({f"{first}._0", f"{second}._0"} <= set(s)) for s in stops_of(result))
    verdict = check_routes(read_board(doc), [{"train": "3-0", "stops": [f"{first}._0", "Z1._0", f"{second}._0"]}])
    assert not verdict["legal"] and "one location" in verdict["routes"][0]["errors"][0]


def test_1830_altoona_bypass_is_track_without_a_stop():
    """Altoona (H12) carries a node-less bypass path: a route may cross H12 without stopping."""
    doc = state("1830/26855@553")
    from optimizer.graph.problem import build_problem

    graph = build_problem(doc, reachable_only=False).graph
    through = [s for s in graph.segments if "H12" in s.hexes[1:-1]]
    assert through, "a segment passes H12 on the bypass"
    city = next(s for s in graph.segments if "H12._0" in (graph.stops[s.a].id, graph.stops[s.b].id))
    assert through[0].sides & city.sides  # the bypass and the city share H12's sides: one train only


def test_1830_d_train_is_unlimited():
    assert spec_from_rows("D", [{"nodes": ["city", "offboard", "town"], "pay": 999, "visit": 999}]).kind == "unlimited"


# ---- 1880 (China) --------------------------------------------------------------------------------


def test_1880_trans_siberian_bonus(core):
    """Rulebook: "One train running between the far reds A3 and A15 adds ¥50.\""""
    cells = {
        "A3": (map_code("1880", "A3"), 0, "red"),
        "Z1": (CITY_20, 1, "yellow", ["US"]),
        "Z3": (STRAIGHT, 1, "yellow"),
        "A15": (map_code("1880", "A15"), 0, "red"),
    }
    links = [("A3", 4, "Z1"), ("Z1", 4, "Z3"), ("Z3", 4, "A15")]
    doc = board("1880", cells, links, [express(8)])
    assert solve(doc)["revenue"] == 50 + 20 + 40 + 50
    elsewhere = copy.deepcopy(doc)
    for h in elsewhere["hexes"]:
        if h["id"] == "A15":
            h["id"] = "A17"
        h["neighbors"] = {k: ("A17" if v == "A15" else v) for k, v in h["neighbors"].items()}
    assert solve(elsewhere)["revenue"] == 50 + 20 + 40


def _trans_siberian_board(trains, second_line=False):
    """The real A3 and A15 (no public 1880 state joins them yet) wired by a short line through our
    city Z1 and a 60 city Z3; with ``second_line``, a second line from A3's other edge to A15's
    other edge through our city W1."""
    cells = {
        "A3": (map_code("1880", "A3"), 0, "red"),
        "Z1": (CITY_20, 1, "yellow", ["US"]),
        "Z3": (CITY.format(v=60), 1, "yellow"),
        "A15": (map_code("1880", "A15"), 0, "red"),
    }
    links = [("A3", 4, "Z1"), ("Z1", 4, "Z3"), ("Z3", 4, "A15")]
    if second_line:
        cells |= {"W1": (CITY_20, 2, "yellow", ["US"]), "W3": (SHARP, 2, "yellow")}
        links += [("A3", 5, "W1"), ("W1", 5, "W3"), ("W3", 3, "A15")]
    return board("1880", cells, links, trains, phase=["yellow"])


def test_1880_trans_siberian_express_need_not_count_the_far_reds(core):
    """Rulebook: "One train running between the far reds A3 and A15 adds ¥50." and "An E counts N
    stations, may skip any": a 2E that runs A3 to A15 runs between them, counting Z1 and Z3 only."""
    doc = _trans_siberian_board([express(2)])
    assert solve(doc)["revenue"] == 20 + 60 + 50
    verdict = check_routes(read_board(doc), [{"train": "2E-0", "stops": ["A3._0", "Z1._0", "Z3._0", "A15._0"]}])
    assert verdict["legal"] and verdict["revenue"] == 20 + 60 + 50
    assert verdict["routes"][0]["paid"] == ["Z1._0", "Z3._0"]


def test_1880_trans_siberian_for_each_train_that_runs_it(core):
    """Rulebook: "One train running between the far reds A3 and A15 adds ¥50." Read per train: two
    trains that each run A3 to A15 each add 50 (the rule names what one train's run earns)."""
    doc = _trans_siberian_board([{"name": "4", "distance": 4}, {"name": "3", "distance": 3}], second_line=True)
    a3, a15 = 20, 10  # yellow phase
    assert solve(doc)["revenue"] == (a3 + 20 + 60 + a15 + 50) + (a3 + 20 + a15 + 50)


def _ferry_board(company=None):
    cells = {
        "Z1": (CITY_20, 1, "yellow", ["US"]),
        "F12": (map_code("1880", "F12"), 0, "blue"),
        "Z3": (CITY_20, 0, "yellow"),
    }
    return board("1880", cells, [("Z1", 4, "F12"), ("F12", 3, "Z3")], [{"name": "2", "distance": 2}], company=company)


def test_1880_ferry_costs_ten_unless_p2(core):
    """Rulebook: "Each ferry crossed costs ¥10, three at most." P2: "Your companies cross ferries free.\""""
    assert solve(_ferry_board())["revenue"] == 20 + 20 - 10
    assert solve(_ferry_board({"id": "US", "president_companies": ["P2"]}))["revenue"] == 40


def test_1880_express_pays_for_every_ferry_it_crosses(core):
    """Rulebook: "Each ferry crossed costs ¥10": the crossing is paid for even when the express
    skips the stops it crosses to (the track is run whatever is counted)."""
    cells = {
        "Z1": (CITY_20, 1, "yellow", ["US"]),
        "F12": (map_code("1880", "F12"), 0, "blue"),
        "Z3": (CITY.format(v=30), 0, "yellow"),
        "Z5": (CITY.format(v=40), 0, "yellow"),
    }
    links = [("Z1", 4, "F12"), ("F12", 3, "Z3"), ("Z3", 3, "Z5")]
    doc = board("1880", cells, links, [express(2)], phase=["yellow"])
    result = solve(doc)
    assert result["revenue"] == 20 + 40 - 10
    assert result["routes"][0]["paid"] == ["Z1._0", "Z5._0"]


def test_1880_ferries_on_a_real_board(core):
    """A real 1880 turn whose best route crosses the J16 ferry: the router's figure, ferry paid."""
    doc = state("1880/1@349")
    result = solve(doc)
    assert result["revenue"] == doc["expected"]["router"]["revenue"]


def test_1880_taiwan_pays_twenty_more_with_p3(core):
    """P3 Taiwan Western Line: "Taiwan pays them +¥20.\""""
    cells = {"Z1": (CITY_20, 1, "yellow", ["US"]), "N16": (map_code("1880", "N16"), 1, "blue")}
    links = [("Z1", 4, "N16")]
    without = board("1880", cells, links, [{"name": "2", "distance": 2}], phase=["yellow"])
    with_p3 = board(
        "1880",
        cells,
        links,
        [{"name": "2", "distance": 2}],
        phase=["yellow"],
        company={"id": "US", "president_companies": ["P3"]},
    )
    assert solve(without)["revenue"] == 20 + 30
    assert solve(with_p3)["revenue"] == 20 + 30 + 20


def test_1880_harbours_are_small_and_offboards_large(core):
    """Rulebook: "Off-board counts as a large station, a harbour as a small one, and both may only
    end a route." A 2+2 counts at most two large stations, plus two more of any kind."""
    cells = {
        "Z5": (CITY.format(v=40), 1, "yellow"),
        "Z3": (CITY.format(v=30), 1, "yellow"),
        "Z1": (CITY_20, 1, "yellow", ["US"]),
        "Q13": (map_code("1880", "Q13"), 5, "blue"),
    }
    links = [("Z5", 4, "Z3"), ("Z3", 4, "Z1"), ("Z1", 4, "Q13")]
    plus = {
        "name": "1+1",
        "distance": [
            {"nodes": ["town"], "pay": 1, "visit": 1},
            {"nodes": ["city", "offboard", "town"], "pay": 1, "visit": 1},
        ],
    }
    doc = board("1880", cells, links, [plus], phase=["yellow"])
    # one large (our city) + the harbour as the small stop: 20 + 20; two cities would be two large
    assert solve(doc)["revenue"] == 20 + 20
    doc = board("1880", cells, links, [{"name": "2+2", "distance": 4}], phase=["yellow"])
    assert solve(doc)["revenue"] == 30 + 20 + 20  # Z3, Z1 (large) and the harbour (small); Z5 would be a third large


def test_1880_harbour_may_only_end_a_route():
    cells = {
        "Z1": (CITY_20, 1, "yellow", ["US"]),
        "Q13": (map_code("1880", "Q13"), 5, "blue"),
        "Z3": (CITY_20, 2, "yellow"),
    }
    doc = board("1880", cells, [("Z1", 4, "Q13"), ("Q13", 2, "Z3")], [{"name": "3", "distance": 3}], phase=["yellow"])
    verdict = check_routes(read_board(doc), [{"train": "3-0", "stops": ["Z1._0", "Q13._0", "Z3._0"]}])
    assert not verdict["legal"]
    assert "passes through" in " ".join(verdict["routes"][0]["errors"])


def test_1880_express_counts_its_best_n_with_one_of_ours(core):
    """Rulebook: "An E counts N stations, may skip any, and must take one of yours.\""""
    cells = {
        "Z1": (CITY_20, 1, "yellow", ["US"]),
        "Z3": (CITY.format(v=30), 1, "yellow"),
        "Z5": (CITY.format(v=40), 1, "yellow"),
    }
    doc = board("1880", cells, [("Z1", 4, "Z3"), ("Z3", 4, "Z5")], [express(2)], phase=["yellow"])
    result = solve(doc)
    assert result["revenue"] == 20 + 40  # not 30 + 40: one counted stop must be ours
    assert set(result["routes"][0]["paid"]) == {"Z1._0", "Z5._0"}


def test_1880_real_express_turn_counts_a_token_city():
    doc = state("1880/1@835")
    result = api.solve(doc)
    assert result["revenue"] == doc["expected"]["router"]["revenue"]
    board_ = read_board(doc)
    for r in result["routes"]:
        assert len(r["paid"]) <= 8
        hexes = {p.split(".")[0] for p in r["paid"]}
        assert any(doc["corporation"]["id"] in c.tokens for h in hexes for c in board_.hexes[h].cities.values())


def _beijing_loop(code):
    cells = {"F8": (code, 0, "yellow"), "Z1": (CITY_20, 0, "yellow", ["US"]), "Z3": (SHARP, 3, "yellow")}
    return board(
        "1880",
        cells,
        [("F8", 0, "Z1"), ("Z1", 0, "Z3"), ("Z3", 4, "F8")],
        [{"name": "3", "distance": 3}],
        phase=["yellow"],
    )


def test_1880_beijing_terminus_start_and_end_at_two_stations(core):
    """Rulebook: "While Beijing is a terminus a route may start at one of its stations and end at
    another; once it goes brown and track runs through, it may not.\""""
    result = solve(_beijing_loop(map_code("1880", "F8")))
    assert result["revenue"] == 60
    assert sorted(result["routes"][0]["stops"][::2]) == ["F8._0", "F8._1"]
    brown = solve(
        _beijing_loop(
            "city=revenue:60,slots:6;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;"
            "path=a:3,b:_0;path=a:4,b:_0;path=a:5,b:_0;label=B"
        )
    )
    assert brown["revenue"] == 60 + 20  # one station only: Beijing once


@pytest.mark.corpus
def test_1880_foreign_investors_run_the_leased_train():
    """Foreign investors run the depot train the board gives them, for their own account."""
    leased = [s for s in states() if any(t.get("owner") == "depot" for t in s["trains"])]
    if not leased:
        leased = [state("1880/1@835")]
    for doc in leased[:20]:
        assert api.solve(doc)["revenue"] == doc["expected"]["router"]["revenue"]


# ---- 1880 Romania -------------------------------------------------------------------------------


def test_romania_ports_count_as_small_stops():
    """Rulebook: "only as many cities or red off-board connections may be served as indicated by
    the large number, plus as many towns and ports as indicated by the small number.\""""
    doc = state("1880Romania/1880_romania_game_end_final_phase@200")
    rules = rules_for(read_board(doc))
    port = read_board(doc).hexes["J26"]
    assert not rules.is_large(port, port.tile.nodes[0])
    red = next(h for h in read_board(doc).hexes.values() if h.color == "red" and h.tile.nodes)
    assert rules.is_large(red, red.tile.nodes[0])


def test_romania_danube_token_adds_ten(core):
    """D.B.S.R.: "The token increases the value of the relevant city by 10 for all companies of
    the owning player.\""""
    cells = {"Z1": (CITY_20, 1, "yellow", ["US"]), "Z3": (CITY.format(v=30), 1, "yellow")}
    doc = board("1880 Romania", cells, [("Z1", 4, "Z3")], [{"name": "2", "distance": 2}], phase=["yellow"])
    doc["hexes"][1]["assignments"] = {"P4": True}
    assert solve(doc)["revenue"] == 50
    doc["corporation"] = {"id": "US", "president_companies": ["P4"]}
    assert solve(doc)["revenue"] == 60


def _danube_board(p4=True):
    """1880 Romania, MR before action 491, its director given P4 with the token on G23 (Galați /
    Brăila), G23 upgraded to the green OO tile 8863 and plain track laid on H22 and H24: a 3 train
    runs F20 into G23's first city, out round H22 and H24 and into its second."""
    doc = state("1880Romania/1880_romania_game_end_final_phase@491")
    if p4:
        doc["corporation"]["president_companies"].append("P4")
    doc["trains"] = [{"id": "3-0", "name": "3", "distance": 3}]
    lays = {
        "G23": (
            "8863",
            "city=revenue:40;city=revenue:40;path=a:0,b:_0;path=a:_0,b:1;path=a:2,b:_1;path=a:_1,b:5;label=OO",
            0,
            "green",
        ),
        "H22": ("7", SHARP, 3, "yellow"),
        "H24": ("7", SHARP, 1, "yellow"),
    }
    for h in doc["hexes"]:
        if h["id"] in lays:
            h["tile"], h["code"], h["rotation"], h["color"] = lays[h["id"]]
        if h["id"] == "G23":
            h["assignments"] = {"P4": True}
    return doc


def test_romania_danube_token_counts_once_per_route(core):
    """D.B.S.R.: "Comes with a +10 token. ... The token increases the value of the relevant city by
    10 for all companies of the owning player." One token on G23: a route counting both of its
    cities earns 30 + 40 + 40 + 10, not 10 per city."""
    doc = _danube_board()
    both = [{"train": "3-0", "stops": ["F20._0", "G23._0", "G23._1"]}]
    verdict = check_routes(read_board(doc), both)
    assert verdict["legal"] and verdict["revenue"] == 30 + 40 + 40 + 10
    one = check_routes(read_board(doc), [{"train": "3-0", "stops": ["F20._0", "G23._0"]}])
    assert one["revenue"] == 30 + 40 + 10
    assert check_routes(read_board(_danube_board(p4=False)), both)["revenue"] == 30 + 40 + 40
    assert solve(doc)["revenue"] == 120  # the G23 loop ties D22-C21-B22; it used to win at 130


def test_romania_plus_train_serves_towns_only_to_its_small_number(core):
    """Rulebook, "Plus trains": "only as many cities or red off-board connections may be served as
    indicated by the large number, plus as many towns and ports as indicated by the small number."
    A 2+2 may not run H12 (our city) with the three towns J12, J10 and K9, as 1880 China's
    "at most N of them large" would allow."""
    doc = state("1880Romania/1880_romania_game_end_final_phase@200")
    doc["trains"] = [{"id": "2+2-0", "name": "2+2", "distance": 4}]
    route = [{"train": "2+2-0", "stops": ["H12._0", "J12._0", "J10._0", "K9._0"]}]
    for distance in (4, game_data("1880 Romania")["trains"][1]["distance"]):
        doc["trains"][0]["distance"] = distance
        verdict = check_routes(read_board(doc), route)
        assert not verdict["legal"] and verdict["routes"][0]["errors"] == [
            "the 2+2 train counts 3 towns; it may count 2"
        ]
        small = {s.id for s in build_problem(doc).graph.stops if not s.large}
        assert all(len(small & set(r["stops"])) <= 2 for r in solve(doc)["routes"])


@pytest.mark.corpus
def test_romania_danube_on_real_boards():
    for doc in [s for s in states() if (s["corporation"].get("flags") or {}).get("danube_port_bonus_eligible")][:10]:
        assert api.solve(doc)["revenue"] == doc["expected"]["router"]["revenue"]


def test_two_cities_of_one_oo_tile_may_both_be_served():
    """1880 Romania: "it may serve two different cities on the same tile. Therefore, it is allowed
    to serve both cities on the green OO tiles." (So in 1830 and 1880: real routes do.)"""
    for doc in [d for d in states() if d["id"] in ("1830/26855@446", "1880/1@525")]:
        routes = [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"]["human"]["routes"]]
        verdict = check_routes(read_board(doc), routes)
        assert verdict["legal"] and verdict["revenue"] == doc["expected"]["human_recheck"]
    board_ = read_board(state("1830/26855@553"))
    rules = rules_for(board_)
    hx = board_.hexes["G19"]
    assert rules.location(hx, hx.tile.nodes[0]) != rules.location(hx, hx.tile.nodes[1])


def test_romania_red_offboard_value_follows_the_phase():
    doc = state("1880Romania/1880_romania_game_end_final_phase@200")
    b = read_board(doc)
    red = next(h for h in b.hexes.values() if h.color == "red" and h.tile.nodes)
    node = red.tile.nodes[0]
    table = dict(node.revenue)
    assert node.value(["yellow"]) == table["yellow"]
    assert node.value(["yellow", "green", "brown", "gray"]) == table.get("gray", table.get("brown"))


def test_tender_train_as_the_board_gives_it():
    """A REMAR tender adds a town row; the train is read exactly as the board gives it."""
    spec = spec_from_rows(
        "4+1",
        [{"nodes": ["city", "offboard", "town"], "pay": 4, "visit": 4}, {"nodes": ["town"], "pay": 1, "visit": 1}],
    )
    assert (spec.visit_large, spec.visit_small, spec.visit_total) == (4, 5, 5)


# ---- 1894 ----------------------------------------------------------------------------------------


def test_1894_no_london_without_a_ferry_marker(core):
    """Rulebook: "Without one it may not build toward, token toward, or run to or through London.\""""
    doc = state("1894/green_city_upgrades@125")
    result = solve(doc)
    assert result["revenue"] == doc["expected"]["router"]["revenue"]
    assert any("A10._0" in s for s in stops_of(result))
    no_ferry = copy.deepcopy(doc)
    no_ferry["corporation"]["ferry_marker"] = False
    no_ferry["corporation"]["abilities"] = [
        a for a in no_ferry["corporation"]["abilities"] if a.get("description") != "Ferry marker"
    ]
    result = solve(no_ferry)
    assert not any("A10._0" in s for s in stops_of(result))
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in doc["expected"]["router"]["routes"]]
    verdict = check_routes(read_board(no_ferry), routes)  # an illegal run, not an unreadable document
    assert not verdict["legal"]
    assert any("London (A10): it has no ferry marker" in e for r in verdict["routes"] for e in r["errors"])


def test_1894_london_shipping_adds_the_largest_centre_bar_london(core):
    """London shipping: "adds to any route through London the largest center on it bar London and
    Luxembourg.\""""
    doc = state("1894/green_city_upgrades@125")
    with_bonus = solve(doc)["revenue"]
    plain = copy.deepcopy(doc)
    plain["corporation"]["abilities"] = [
        a for a in plain["corporation"]["abilities"] if a.get("description") != "London bonus"
    ]
    for h in plain["hexes"]:
        if h["id"] == "A12":
            for c in h["cities"]:
                c["tokens"] = [None if t == doc["corporation"]["id"] else t for t in c["tokens"]]
    without = solve(plain)["revenue"]
    assert with_bonus > without


def test_1894_paris_once(core):
    """Rulebook: "A route may use only one of Paris's two circles, and may not reach Paris twice.\""""
    paris = "city=revenue:40;city=revenue:40;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_1;path=a:3,b:_1;label=P"
    cells = {
        "G6": (paris, 0, "green"),
        "Z1": (CITY_20, 0, "yellow", ["US"]),
        "Z3": (SHARP, 3, "yellow"),
        "Z5": (SHARP, 0, "yellow"),
    }
    # G6 circle _0 (edges 0, 1) and circle _1 (edges 2, 3) joined through our city in a loop
    links = [("G6", 0, "Z1"), ("Z1", 0, "Z3"), ("Z3", 4, "Z5"), ("Z5", 0, "G6")]
    doc = board("1894", cells, links, [{"name": "D", "distance": 999}], phase=["yellow", "green"])
    result = solve(doc)
    for stops in stops_of(result):
        assert sum(s.startswith("G6.") for s in stops) <= 1
    assert result["revenue"] == 40 + 20
    verdict = check_routes(read_board(doc), [{"train": "D-0", "stops": ["G6._0", "Z1._0", "G6._1"]}])
    assert not verdict["legal"]


def test_1894_luxembourg_pays_the_largest_other_centre(core):
    """Rulebook: "Luxembourg pays the largest other center on the route.\""""
    cells = {
        "Z1": (CITY.format(v=30), 1, "yellow", ["US"]),
        "Z3": (CITY.format(v=50), 1, "yellow"),
        "I18": (map_code("1894", "I18"), 5, "red"),
    }
    doc = board("1894", cells, [("Z1", 4, "Z3"), ("Z3", 4, "I18")], [{"name": "3", "distance": 3}], phase=["yellow"])
    assert solve(doc)["revenue"] == 30 + 50 + 0 + 50


def test_1894_netherlands_with_another_offboard(core):
    """Rulebook: "Netherlands with any other off-board pays +F100.\""""
    cells = {
        "C18": (map_code("1894", "C18"), 3, "red"),
        "Z1": (CITY_20, 1, "yellow", ["US"]),
        "I2": (map_code("1894", "I2"), 5, "red"),
    }
    doc = board("1894", cells, [("C18", 4, "Z1"), ("Z1", 4, "I2")], [{"name": "3", "distance": 3}], phase=["yellow"])
    assert solve(doc)["revenue"] == 30 + 20 + 30 + 100


def test_1894_five_plus_one():
    """Rulebook: "A 5+1 takes five of any kind plus one more town.\""""
    spec = spec_from_rows(
        "5+1",
        [{"nodes": ["town"], "pay": 1, "visit": 1}, {"nodes": ["city", "offboard", "town"], "pay": 5, "visit": 5}],
    )
    assert (spec.visit_large, spec.visit_small, spec.visit_total) == (5, 6, 6)


# ---- 18EU --------------------------------------------------------------------------------------------


def test_18eu_whole_number_distance_is_the_rulebook_train(core):
    """Rulebook: "Max Cities + Off-Map Locations = the train number; Towns and Ports don't count
    against it." 18EU 74045 before action 467, its Pullman left out: the 3 train given as a whole
    number, as the engine's rows or as rows that list towns is one train, and earns 150."""
    doc = state("18EU/74045@467")
    doc["trains"] = doc["trains"][:1]
    for distance in (doc["trains"][0]["distance"], 3, [{"nodes": ["city", "offboard", "town"], "pay": 3, "visit": 3}]):
        doc["trains"][0]["distance"] = distance
        assert solve(doc)["revenue"] == 150, distance


def test_18eu_towns_do_not_count_against_the_train(core):
    """Rulebook: "Max Cities + Off-Map Locations = the train number; Towns and Ports don't count.\""""
    town = "town=revenue:10;path=a:0,b:_0;path=a:_0,b:3"
    cells = {
        "Z1": (CITY_20, 1, "yellow", ["US"]),
        "T1": (town, 1, "yellow"),
        "T3": (town, 1, "yellow"),
        "Z3": (CITY.format(v=30), 1, "yellow"),
    }
    doc = board("18EU", cells, [("Z1", 4, "T1"), ("T1", 4, "T3"), ("T3", 4, "Z3")], [eu_train(2)], phase=["yellow"])
    assert solve(doc)["revenue"] == 20 + 10 + 10 + 30


def test_18eu_hamburg_may_be_passed_through(core):
    """Rulebook: "Off-Map Locations must be route ends (except Hamburg)." Hamburg's neutral token
    never blocks."""
    cells = {
        "Z1": (CITY_20, 1, "yellow", ["US"]),
        "G2": (map_code("18EU", "G2"), 0, "red", ["N"]),
        "Z3": (CITY_20, 2, "yellow"),
    }
    doc = board("18EU", cells, [("Z1", 4, "G2"), ("G2", 5, "Z3")], [eu_train(3)], phase=["yellow"])
    doc["hexes"][1]["cities"][0]["token_types"] = ["neutral"]
    result = solve(doc)
    assert result["revenue"] == 20 + 30 + 20
    assert result["routes"][0]["stops"][1] == "G2._0"


def test_18eu_ports_are_route_ends():
    """Rulebook: "Ports are treated as £10 Towns (never improve; run to but not beyond).\""""
    b = read_board(state("18EU/74045@591"))
    rules = rules_for(b)
    port = b.hexes["D1"]
    assert rules.end_only(port, port.tile.nodes[0]) and not rules.is_large(port, port.tile.nodes[0])


def test_18eu_one_circle_of_berlin_per_route(core):
    """Rulebook: "...or visit the same location twice (including separate Paris/Berlin/Vienna circles).\""""
    cells = {
        "J5": (map_code("18EU", "J5"), 0, "yellow"),
        "Z1": (CITY_20, 1, "yellow", ["US"]),
        "Z3": (STRAIGHT, 1, "yellow"),
    }
    # J5 circle _0 leaves by edge 4 to our city, which curves back into circle _1 by edge 1
    links = [("J5", 4, "Z1"), ("Z1", 4, "Z3")]
    doc = board("18EU", cells, links, [eu_train(3)], phase=["yellow"])
    doc["hexes"][2]["neighbors"]["4"] = "J5"
    doc["hexes"][0]["neighbors"]["1"] = "Z3"
    result = solve(doc)
    for stops in stops_of(result):
        assert sum(s.startswith("J5.") for s in stops) <= 1
    assert result["revenue"] == 30 + 20
    verdict = check_routes(read_board(doc), [{"train": "3-0", "stops": ["J5._0", "Z1._0", "J5._1"]}])
    assert not verdict["legal"]


def _red_to_red_run(tokens: int) -> tuple:
    """An 18EU board of two red off-boards joined through ``tokens`` cities holding the company's
    tokens, and its hexes in route order."""
    red = "offboard=revenue:yellow_30|brown_50;path=a:1,b:_0;path=a:4,b:_0"
    order = ["R1", *(f"Z{k}" for k in range(tokens)), "R2"]
    cells = {h: (red, 0, "red") if h.startswith("R") else (CITY_20, 1, "yellow", ["US"]) for h in order}
    links = [(a, 4, b) for a, b in zip(order, order[1:])]
    return board("18EU", cells, links, [eu_train(8)], phase=["yellow", "green", "brown"]), order


def test_18eu_red_to_red_bonus_per_token_up_to_five(core):
    """Rulebook: "A Red-to-Red run earns a bonus per token on the route": brown £20 each, up to five
    stations (£100). The 18xx.games engine caps brown at £80; we follow the rulebook."""
    doc, _ = _red_to_red_run(tokens=5)
    assert solve(doc)["revenue"] == 50 + 5 * 20 + 50 + 5 * 20


def test_18eu_red_to_red_bonus_stops_at_five_tokens(core):
    """Rulebook: the Red-to-Red bonus table ends at five stations (brown £20 each, £100): a run
    through six of the company's tokens earns £100, not £120. (The test above has exactly five,
    so it cannot see the cap.) Searched by both cores, and priced by the checker."""
    doc, order = _red_to_red_run(tokens=6)
    want = 50 + 6 * 20 + 50 + 5 * 20
    result = solve(doc)
    assert result["revenue"] == want and len(result["routes"][0]["stops"]) == 8
    stops = [f"{h}._0" for h in order]
    verdict = check_routes(read_board(doc), [{"train": result["routes"][0]["train"], "stops": stops}])
    assert verdict["legal"] and verdict["revenue"] == want, verdict


def test_18eu_four_way_brown_junction_may_be_passed_twice(core):
    """Rulebook: "A train can't reuse its own track (except four-way junctions on brown plain
    tiles)." One route crosses the junction twice on different track."""
    junction = "junction;path=a:0,b:_0;path=a:1,b:_0;path=a:3,b:_0;path=a:4,b:_0"
    cells = {
        "A1": (CITY_20, 0, "yellow", ["US"]),
        "J1": (junction, 0, "brown"),
        "B1": (CITY.format(v=30), 0, "yellow"),
        "K1": (SHARP, 3, "yellow"),
        "C1": (CITY.format(v=40), 1, "yellow"),
    }
    # A1 -(edge 3 of J1)- J1 -(edge 0)- B1 - K1 curves back into J1 by edge 1 - J1 -(edge 4)- C1
    links = [("A1", 0, "J1"), ("J1", 0, "B1"), ("B1", 0, "K1"), ("K1", 4, "J1"), ("J1", 4, "C1")]
    doc = board("18EU", cells, links, [eu_train(3)], phase=["yellow"])
    result = solve(doc)
    assert result["revenue"] == 20 + 30 + 40
    verdict = check_routes(read_board(doc), [{"train": "3-0", "stops": ["A1._0", "B1._0", "C1._0"]}])
    assert verdict["legal"], verdict


def test_18eu_pullman_doubles_the_best_city_of_another_run(core):
    """Rulebook: the Pullman "doubles the value of any one City or Off-Map Location on one train's
    run", and a company must own another train: it cannot run alone."""
    cells = {"Z1": (CITY_20, 1, "yellow", ["US"]), "Z3": (CITY.format(v=60), 1, "yellow")}
    pullman = {
        "name": "P",
        "distance": [{"nodes": ["city", "offboard"], "pay": 1, "visit": 1}, {"nodes": ["town"], "pay": 0, "visit": 0}],
        "requires_token": False,
        "local": True,
    }
    doc = board("18EU", cells, [("Z1", 4, "Z3")], [eu_train(2), pullman], phase=["yellow"])
    result = solve(doc)
    assert result["revenue"] == 20 + 60 + 60
    alone = board("18EU", cells, [("Z1", 4, "Z3")], [pullman], phase=["yellow"])
    assert solve(alone)["revenue"] == 0


@pytest.mark.corpus
def test_18eu_pullman_states_earn_at_least_the_players():
    """The 18xx.games auto router never runs a Pullman; the players did better; so do we."""
    pullman_states = [s for s in states() if any(t["name"] == "P" for t in s["trains"])]
    for doc in pullman_states:
        result = api.solve(doc)
        assert result["revenue"] >= doc["expected"]["human"]["revenue"] > doc["expected"]["router"]["revenue"] - 1
