"""1889, 18Chesapeake, 1846 and 18AL: their revenue rules, declared as data, on real boards.

There are no rulebooks for these games here; the reference is the 18xx.games engine, and each
test names the method whose behaviour it checks (tobymao/18xx, ``lib/engine/...``). The beyond
corpus (``../shared/corpus/beyond``) runs apart from the main corpus tests.
"""

import copy
import re

import pytest

from optimizer import api
from optimizer.board.state import read_board
from optimizer.games import rules_for
from optimizer.model import TrainSpec, spec_from_rows
from optimizer.rules.check import check_routes

from .corpus import beyond_state, beyond_states, ids

BEYOND = beyond_states()
G1846 = "1846/1846_game_end_reason_all_closed@"


def solve_both(doc) -> dict:
    """The compiled answer, checked against the python twin."""
    fast = api.solve(doc, core="compiled")
    slow = api.solve(doc, core="python")
    assert fast["optimal"] and slow["optimal"]
    assert fast["revenue"] == slow["revenue"]
    return fast


def checked(doc, result) -> dict:
    return check_routes(read_board(doc), [{"train": r["train"], "hexes": r["hexes"]} for r in result["routes"]])


# ---- the beyond corpus -----------------------------------------------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize("doc", BEYOND, ids=ids(BEYOND))
def test_beyond_corpus(doc):
    """The router's revenue (higher only where the players' re-check is higher), proven optimal,
    priced by the game's own rules; the checker accepts the routes at the same revenue and reprices
    the players' routes as the engine's re-check does."""
    exp = doc["expected"]
    result = api.solve(doc)
    assert result["optimal"]
    assert result["rules"] == doc["game"]
    assert result["revenue"] == max(exp["router"]["revenue"], exp["human_recheck"] or 0)
    verdict = checked(doc, result)
    assert verdict["legal"] and verdict["revenue"] == result["revenue"]
    human = exp["human"]["routes"]
    if human and exp["human_recheck"] is not None:
        players = check_routes(read_board(doc), [{"train": r["train"], "hexes": r["hexes"]} for r in human])
        assert players["revenue"] == exp["human_recheck"]


# ---- value by train kind: 1889's diesel values -----------------------------------------------------


def test_1889_d_train_is_paid_the_diesel_values():
    """lib/engine/part/revenue_center.rb#route_revenue: ``return @revenue[:diesel] if
    train.name.upcase == 'D'``; 1889's off-boards carry ``diesel_N`` (Imabari yellow_30|brown_60|
    diesel_100). A D train is paid those, a 6 train the phase's colour."""
    doc = beyond_state("1889/962@521")
    doc["phase"] = {"name": "D", "tiles": ["yellow", "green", "brown"]}
    codes = {h["id"]: h["code"] for h in doc["hexes"]}
    doc["trains"] = [{"id": "D-0", "name": "D", "distance": 999}]
    diesel = solve_both(doc)
    doc["trains"] = [{"id": "6-0", "name": "6", "distance": 6}]
    six = solve_both(doc)
    board = read_board(doc)

    def paid(route, key):
        total = 0
        for s in route["paid"]:
            hx = board.hexes[s.split(".")[0]]
            node = hx.tile.nodes[int(s.split("._")[1])]
            table = dict(node.revenue)
            total += table[key] if key in table else node.value(doc["phase"]["tiles"])
        return total

    (route,) = diesel["routes"]
    offboards = [s for s in route["paid"] if codes[s.split(".")[0]].startswith("offboard")]
    assert offboards, "the D train's best route reaches an off-board"
    assert route["revenue"] == paid(route, "diesel")
    assert route["revenue"] > paid(route, "brown")
    for s in offboards:
        assert re.search(r"diesel_(\d+)", codes[s.split(".")[0]])
    assert diesel["revenue"] > six["revenue"]


# ---- per-row multipliers: the 18AL 4D --------------------------------------------------------------


def test_18al_4d_pays_cities_and_offboards_double_towns_once():
    """lib/engine/game/g_18_al/game.rb TRAINS: the 4D's rows are ``{nodes: [city, offboard], pay: 4,
    visit: 4, multiplier: 2}`` and ``{nodes: [town], pay: 99, visit: 99}``. On this board the router
    runs Atlanta-Anniston-Birmingham-Gadsden-Rome (a town) for 410."""
    doc = beyond_state("18AL/1446@326")
    result = solve_both(doc)
    assert result["revenue"] == doc["expected"]["router"]["revenue"] == 410
    board = read_board(doc)
    tiles = doc["phase"]["tiles"]
    (route,) = result["routes"]
    total = 0
    for s in route["paid"]:
        hx = board.hexes[s.split(".")[0]]
        node = hx.tile.nodes[int(s.split("._")[1])]
        total += node.value(tiles) * (1 if node.kind == "town" else 2)
    assert any(board.hexes[s.split(".")[0]].tile.nodes[0].kind == "town" for s in route["paid"])
    assert route["revenue"] == total


def test_row_multipliers_become_per_class_values():
    spec = spec_from_rows(
        "4D",
        [
            {"nodes": ["city", "offboard"], "pay": 4, "visit": 4, "multiplier": 2},
            {"nodes": ["town"], "pay": 99, "visit": 99},
        ],
    )
    assert (spec.large_multiplier, spec.small_multiplier) == (2, 1)
    assert spec.value_of(30, True) == 60 and spec.value_of(10, False) == 10
    with pytest.raises(Exception, match="different multipliers"):
        spec_from_rows(
            "X",
            [
                {"nodes": ["city", "town"], "pay": 2, "visit": 2, "multiplier": 2},
                {"nodes": ["town"], "pay": 1, "visit": 1},
            ],
        )


# ---- stop bonuses: a shared assignment, an ability naming the hex -----------------------------------


def without_assignments(doc) -> dict:
    doc = copy.deepcopy(doc)
    doc["corporation"].pop("assignments", None)
    return doc


@pytest.mark.parametrize("action, private, bonus", [(122, "SC", 20), (115, "MPC", 30), (325, "BT", 20)])
def test_1846_private_bonus_when_company_and_hex_share_the_assignment(action, private, bonus):
    """lib/engine/game/g_1846/game.rb#revenue_for: Boomtown +20, Meat Packing +30, Steamboat +20 per
    port icon, when ``route.corporation.assigned?(id)`` and a stop's hex is assigned the same id.
    Detroit (D14) was upgraded: its printed tile's sticky port icon still counts."""
    doc = beyond_state(f"{G1846}{action}")
    assert doc["corporation"]["assignments"] == {private: True}
    result = solve_both(doc)
    assert result["revenue"] == doc["expected"]["router"]["revenue"]
    plain = solve_both(without_assignments(doc))
    assert result["revenue"] - plain["revenue"] == bonus


def test_1846_steamboat_pays_per_port_icon():
    """Holland (B8) prints two port icons: the Steamboat pays 2 x 20 there."""
    doc = beyond_state(f"{G1846}122")
    for h in doc["hexes"]:
        h.pop("assignments", None)
        if h["id"] == "B8":
            h["assignments"] = {"SC": True}
    rules = rules_for(read_board(doc))
    hx = rules.board.hexes["B8"]
    assert rules.value_bonus(hx, hx.tile.nodes[0]) == 40


def test_18al_warrior_coal_field_pays_every_route_through_the_hex():
    """lib/engine/game/g_18_al/game.rb#bonuses_for_hex_on_route: a ``hexes_bonus`` ability adds its
    amount for each stop on its hexes, after the 4D's doubling (``revenue = super`` first)."""
    doc = beyond_state("18AL/1446@326")
    doc["corporation"]["abilities"] = [{"type": "hexes_bonus", "hexes": ["G4"], "amount": 10}]
    result = solve_both(doc)
    assert result["revenue"] == 410 + 10
    assert "G4._0" in result["routes"][0]["paid"]


# ---- a bonus for a route joining two sets: 1846 East-West -------------------------------------------


def test_1846_east_west_pays_both_ends_icons():
    """lib/engine/game/g_1846/game.rb#east_west_bonus: a route with a stop in group E and a stop on a
    tile labelled W earns the numbers on both ends' icons: Windsor (C17, icon 30) to Chicago
    Connections (C5, icon 50) adds 80; the router's route is C17-(C15)-D14-(D6)-C5 + Port + E/W."""
    doc = beyond_state(f"{G1846}199")
    result = solve_both(doc)
    assert result["revenue"] == doc["expected"]["router"]["revenue"] == 320
    east_west = next(r for r in result["routes"] if "C5._0" in r["paid"] and "C17._0" in r["paid"])
    board = read_board(doc)
    tiles = doc["phase"]["tiles"]
    stops = sum(board.hexes[s.split(".")[0]].tile.nodes[0].value(tiles) for s in east_west["paid"])
    assert east_west["revenue"] == stops + 80 + 20  # icons 30 + 50; Detroit's port


# ---- once for the company, on its best route: Mail Contract, 18AL named routes ----------------------


def test_1846_mail_contract_pays_ten_a_stop_on_one_route():
    """lib/engine/game/g_1846/game.rb#revenue_for: with the Mail Contract, the route visiting the most
    stops adds 10 for each (``route == longest``): D6-D14 + Mail Contract = 70 + 20."""
    doc = beyond_state(f"{G1846}190")
    assert "MAIL" in doc["corporation"]["companies"]
    result = solve_both(doc)
    assert result["revenue"] == doc["expected"]["router"]["revenue"] == 90
    doc["corporation"]["companies"].remove("MAIL")
    assert solve_both(doc)["revenue"] == 70


def test_1846_mail_contract_goes_to_the_longest_route_once():
    """Two routes, one Mail Contract: only the route with the most stops earns it (the 3/5 visiting
    five stops: +50), and the answer puts it on that route."""
    doc = beyond_state(f"{G1846}325")
    result = solve_both(doc)
    assert result["revenue"] == doc["expected"]["router"]["revenue"] == 400
    long_route = max(result["routes"], key=lambda r: len(r["stops"]))
    doc["corporation"]["companies"].remove("MAIL")
    plain = solve_both(doc)
    assert result["revenue"] - plain["revenue"] == 10 * len(long_route["stops"]) == 50
    assert checked(beyond_state(f"{G1846}325"), result)["revenue"] == 400


def test_18al_named_route_paid_once_per_company():
    """lib/engine/game/g_18_al/game.rb#bonuses_for_routes: per bonus type the company's best route
    through both hexes earns it, once (Robert E. Lee: Atlanta G8 and Birmingham G4, +20, with the
    Memphis & Charleston); a second train through Birmingham adds no second bonus."""
    doc = beyond_state("18AL/1446@326")
    doc["corporation"]["companies"] = ["M&C"]
    assert solve_both(doc)["revenue"] == 410 + 20
    doc["trains"] = [dict(doc["trains"][0], id=f"4D-{i}") for i in range(2)]
    with_bonus = solve_both(doc)
    doc["corporation"]["companies"] = []
    without = solve_both(doc)
    assert with_bonus["revenue"] == without["revenue"] + 20
    assert sum(all(h in {s.split(".")[0] for s in r["stops"]} for h in ("G4", "G8")) for r in with_bonus["routes"]) >= 1
    assert (
        checked(doc | {"corporation": dict(doc["corporation"], companies=["M&C"])}, with_bonus)["revenue"]
        == with_bonus["revenue"]
    )


def test_named_route_from_the_ability_itself():
    """The ability's own hexes and amount, where the corporation holds one (``abilities(corporation,
    type)``)."""
    doc = beyond_state("18AL/1446@326")
    doc["corporation"]["abilities"] = [{"type": "atlanta_birmingham", "hexes": ["G8", "G4"], "amount": 25}]
    assert solve_both(doc)["revenue"] == 410 + 25


# ---- games we have no rules for ---------------------------------------------------------------------


def test_unknown_game_is_answered_with_generic_rules_and_says_so():
    doc = beyond_state(f"{G1846}190")
    doc["game"] = "18Unknown"
    result = api.solve(doc)
    assert result["rules"] == "generic"
    assert result["revenue"] == 70  # no Mail Contract: the plain sum
    assert api.solve(beyond_state(f"{G1846}190"))["rules"] == "1846"


def test_games_list_where_rules_come_from():
    games = {g["title"]: g for g in api.games()}
    assert games["1846"]["rules"] == "data"
    assert set(games["1846"]["revenue_rules"]) == {"assigned_stop_bonuses", "group_pairs", "best_route_bonuses"}
    assert games["1889"]["revenue_rules"] == ["train_values"]
    assert games["18Chesapeake"]["rules"] == "generic"
    assert games["1830"]["rules"] == "module"  # the Gulf as one off-board area
    assert games["18EU"]["rules"] == "module"


def test_corporation_assignments_must_be_an_object():
    doc = beyond_state(f"{G1846}122")
    doc["corporation"]["assignments"] = ["SC"]
    with pytest.raises(Exception, match=r"corporation\.assignments"):
        api.solve(doc)


def test_train_spec_default_multipliers():
    assert TrainSpec("2", 2, 2, 2, 2, 2, 2).value_of(40, True) == 40


def test_proto_carries_assignments_and_rules():
    """Over the wire: Corporation.assignments in, Solution.rules and Game.rules out (extended fields)."""
    from server.translation import convert

    doc = beyond_state(f"{G1846}122")
    back = convert.board_to_state(convert.state_to_board(doc))
    assert back["corporation"]["assignments"] == {"SC": True}
    assert api.solve(back)["revenue"] == 130
    result = api.solve(doc)
    assert convert.solution_to_json(convert.solution_to_proto(result))["rules"] == "1846"
    games = convert.games_to_json(convert.games_to_proto(api.games(), api.TRAIN_KINDS))
    assert {g["title"]: g["rules"] for g in games}["18AL"] == "data"


def test_once_per_route_on_a_hex_with_several_stops():
    """Meat Packing may be assigned to Chicago (D6), four cities on one hex: ``stops.find`` pays the
    bonus once per route, so pairs of its stops take back a second payment."""
    doc = beyond_state(f"{G1846}115")
    for h in doc["hexes"]:
        h.pop("assignments", None)
        if h["id"] == "D6":
            h["assignments"] = {"MPC": True}
    rules = rules_for(read_board(doc))
    pairs = [p for p in rules.bonuses().pairs if p.amount < 0]
    assert len(pairs) == 6 and {p.amount for p in pairs} == {-30}
    solve_both(doc)
