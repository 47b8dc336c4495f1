"""The board document's ``hex_tokens`` (tokens on a hex itself, the engine's Hex#tokens) end to end, and
1868 Wyoming's boom cities and Teapot Dome priced from them (``development_values``,
optimizer/games/development_tokens.py), each from lib/engine/game/g_1868_wy/game.rb:

- ``#update_boomcity_revenue!``: a boom city pays the first, second or third entry of its tile's table
  by its development count, under 3, 3, 4 or more; ``#increment_development_token_count`` counts the
  tokens on its hex and the six around it (Game::Base#hex_neighbor), ``#event_uranium_boom!`` adds J12
  and J20's in phase 5, J12's again in 6 (``URANIUM_HEXES``), ``#event_uranium_bust!`` takes them in 7;
- ``#teapot_dome_bonuses``, ``#teapot_dome_hex_bonus``: 5 at a boom city stop for each token of the
  oil company of P6b's owner on a hex whose ``Hex#neighbors`` hold it, for that player's companies.

The engine test replays the recorded game (clients/ruby/bin/run-boards, Route18xx::Board.from_game
giving ``hex_tokens``) to the six catalogue states our answers were wrong on for want of those tokens,
and the two right ones: our answer is the router's, the engine prices our routes at our revenue."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import urllib.error
import urllib.request
from functools import lru_cache

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board import geometry
from optimizer.board.inputs import input_fields
from optimizer.board.state import read_board, read_board_reference
from optimizer.errors import OptimizerError
from optimizer.games import rules_for
from optimizer.games.development_tokens import development_count
from optimizer.graph.problem import build_problem
from server.generated.route18xx.v1 import route_optimizer_pb2 as pb
from server.translation import convert, jsonform

from . import ruby
from .servers import details
from .test_catalog_rules import catalog_state
from .test_engine_oracle import _engine, judge
from .test_fast_path import assert_same
from .twins import searches_agree

WY = "1868Wyoming/1868WY_5"
RUN_BOARDS = ruby.CLIENT / "bin" / "run-boards"
# action -> the engine's router's revenue recorded in the catalogue state (expected.router)
WRONG_WITHOUT_TOKENS = {120: 220, 511: 240, 636: 300, 1005: 350, 1072: 265, 1109: 220}
RIGHT_BEFORE = (317, 863)
# The spike hexes once their spike is driven: the library writes the tile's name (tile.location_name
# first), the catalogue the hex's; neither is a rule's input here (the spikes are named unsupported).
SPIKE_NAMES = {
    "L0": ("Promontory Summit", "Promontory Summit / Golden Spike"),
    "A1": ("Independence Creek", "Independence Creek / Northern Spike"),
}
J20_CITY = 755  # J20 (white) turned boom city in place (#boomtown_to_boomcity!): its code still a town
GAP_WORDS = ("a boom city pays", "Teapot Dome (P6b)")  # the coverage lines hex tokens answer


def _doc(action: int) -> dict:
    return copy.deepcopy(input_fields(catalog_state(f"{WY}@{action}")))


def _index(doc: dict, hex_id: str) -> int:
    return [h["id"] for h in doc["hexes"]].index(hex_id)


def _dev(owner: str, player: str | int | None = None) -> dict:
    return {"owner": owner, "type": "development"} | ({"player": player} if player is not None else {})


def _with_tokens(doc: dict, tokens: dict) -> dict:
    """The document giving ``hex_tokens``: ``tokens`` {hex id: [token]} where given, none elsewhere."""
    doc = copy.deepcopy(doc)
    for h in doc["hexes"]:
        h["hex_tokens"] = list(tokens.get(h["id"], ()))
    return doc


def _value(doc: dict, hex_id: str) -> int:
    """What the rules pay for the first stop of the hex."""
    board = read_board(doc)
    rules = rules_for(board)
    hx = board.hexes[hex_id]
    [node] = [n for n in hx.tile.nodes if n.kind == "city"]
    return rules.value(hx, node)


def _gaps(answer: dict) -> list:
    return [line for line in answer["unsupported"] if line.startswith(GAP_WORDS)]


# --- the engine: the boards Route18xx::Board.from_game builds ----------------------------------------


@lru_cache(maxsize=1)
def engine_boards() -> dict:
    """run-boards at the eight catalogue states' actions: {action_id: its line}."""
    engine = ruby.engine_dir()
    fixture = ruby.fixture_path(catalog_state(f"{WY}@120"))
    actions = sorted([*WRONG_WITHOUT_TOKENS, *RIGHT_BEFORE, J20_CITY])
    run = subprocess.run(
        [ruby.tool("ruby"), str(RUN_BOARDS), "--engine", str(engine), str(fixture), *map(str, actions)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    return {line["action_id"]: line for line in lines}


def _engine_price(action: int, routes: list) -> dict:
    """The engine's verdict on routes run at the action of the recorded game (clients/ruby/bin/price-routes)."""
    request = {
        "id": str(action),
        "fixture": str(ruby.fixture_path(catalog_state(f"{WY}@120"))),
        "action_id": action,
        "routes": [{"train": r["train"], "connections": r["hexes"]} for r in routes],
    }
    return judge.price([request], _engine())[str(action)]


@pytest.mark.slow
@pytest.mark.parametrize("action", sorted([*WRONG_WITHOUT_TOKENS, *RIGHT_BEFORE]))
def test_the_engine_board_is_the_state_plus_its_hex_tokens(action):
    """Board.from_game gives the catalogue state's input fields, and the tokens on hexes besides."""
    line = engine_boards()[action]
    board = line["board"]
    tokened = [h for h in board["hexes"] if "hex_tokens" in h]
    assert tokened and all(t["type"] == "development" for h in tokened for t in h["hex_tokens"])
    without = copy.deepcopy(board)
    for h in without["hexes"]:
        h.pop("hex_tokens", None)
    want = _doc(action)
    without["id"] = want["id"]
    for ours, theirs in zip(without["hexes"], want["hexes"]):
        if ours["id"] in SPIKE_NAMES and ours.get("location_name") != theirs.get("location_name"):
            assert (ours["location_name"], theirs["location_name"]) == SPIKE_NAMES[ours["id"]]
            ours["location_name"] = theirs["location_name"]
    assert without == want


@pytest.mark.slow
@pytest.mark.parametrize("action", sorted([*WRONG_WITHOUT_TOKENS, *RIGHT_BEFORE]))
def test_with_hex_tokens_the_engine_judges_us_right(action):
    """Our answer on the engine's board: optimal, the router's figure where it was above ours, the gap
    lines not named; the engine accepts our routes and prices them at our revenue, and so does our check."""
    state = catalog_state(f"{WY}@{action}")
    board = engine_boards()[action]["board"]
    answer = api.solve(board)
    assert answer["rules"] == "1868 Wyoming" and answer["optimal"]
    router = state["expected"]["router"]["revenue"]
    if action in WRONG_WITHOUT_TOKENS:
        assert router == WRONG_WITHOUT_TOKENS[action]
        assert answer["revenue"] == router
    assert answer["revenue"] >= router
    assert _gaps(answer) == []
    verdict = _engine_price(action, answer["routes"])
    assert "error" not in verdict, verdict
    assert verdict["revenue"] == answer["revenue"]
    checked = api.check(board, [{"train": r["train"], "hexes": r["hexes"]} for r in answer["routes"]])
    assert checked["legal"] and checked["revenue"] == answer["revenue"]


@pytest.mark.slow
def test_teapot_dome_pays_at_action_1072_as_the_engine_does():
    """RCL (its president, player 4, holds P6b) from D20 through F18, H18 and K17 to K15: 265, which the
    engine pays (above); Oil-D's tokens on D22 and E19 lie next to D20 (10), E19's next to F18 (5), F18's
    own pays F18 nothing. Without P6b the same routes pay 250, and so does the best run."""
    board = engine_boards()[1072]["board"]
    answer = api.solve(board)
    assert answer["revenue"] == 265
    assert [r["stops"] for r in answer["routes"]] == [["D20._0", "F18._0", "H18._0", "K17._0", "K15._0"]]
    oil = {h["id"] for h in board["hexes"] for t in h.get("hex_tokens", ()) if t["owner"] == "Oil-D"}
    assert oil == {"D22", "E19", "F18"}
    no_p6b = copy.deepcopy(board)
    no_p6b["corporation"]["president_companies"] = []
    routes = [{"train": r["train"], "hexes": r["hexes"]} for r in answer["routes"]]
    assert api.check(no_p6b, routes)["revenue"] == 265 - 15
    assert api.solve(no_p6b)["revenue"] == 250


@pytest.mark.slow
def test_a_city_the_tiles_parts_do_not_hold_is_left_out():
    """At action 755 the engine's J20 holds a city its code does not (a white boom hex turned city in
    place, no track to it): the library leaves it out, the board reads, and the engine pays our answer."""
    line = engine_boards()[J20_CITY]
    [j20] = [h for h in line["board"]["hexes"] if h["id"] == "J20"]
    assert j20["code"].startswith("town=") and j20["cities"] == []
    answer = api.solve(line["board"])
    assert answer["optimal"] and answer["revenue"] >= line["ran"]["revenue"]
    verdict = _engine_price(J20_CITY, answer["routes"])
    assert verdict.get("revenue") == answer["revenue"], verdict


@pytest.mark.slow
def test_without_hex_tokens_the_gap_is_still_named():
    """The same engine board less its ``hex_tokens`` reads as the catalogue state: the gap lines named."""
    board = copy.deepcopy(engine_boards()[511]["board"])
    for h in board["hexes"]:
        h.pop("hex_tokens", None)
    answer = api.solve(board)
    assert len(_gaps(answer)) == 2
    assert answer["revenue"] == api.solve(_doc(511))["revenue"] == 280  # the engine's is 240 (judge-s6)


# --- the rule, on catalogue boards with tokens placed by hand -----------------------------------------


def test_a_boom_city_pays_the_entry_its_development_count_picks():
    """C11 at action 511 (206B, green, 10/30/40): 10 under three development tokens on it and around it,
    30 at three, 40 at four or more; a token of another type, or two hexes away, counts for nothing.
    Without ``hex_tokens`` the tile's phase entry, 30, as before."""
    doc = _doc(511)
    assert _value(doc, "C11") == 30
    around = sorted(geometry.neighbour_ids([h["id"] for h in doc["hexes"]], "pointy")["C11"].values())
    assert "D12" in around and "C15" not in around
    assert _value(_with_tokens(doc, {}), "C11") == 10
    two = {"C11": [_dev("Coal-A")], around[0]: [_dev("Oil-B", "2")]}
    assert _value(_with_tokens(doc, two), "C11") == 10
    assert _value(_with_tokens(doc, two | {around[1]: [{"owner": "X", "type": "normal"}]}), "C11") == 10
    assert _value(_with_tokens(doc, two | {"C15": [_dev("Coal-A")]}), "C11") == 10  # two hexes away
    three = two | {around[1]: [_dev("Coal-C")]}
    assert _value(_with_tokens(doc, three), "C11") == 30
    assert _value(_with_tokens(doc, three | {around[2]: [_dev("Coal-D"), _dev("Oil-D")]}), "C11") == 40


def test_the_uranium_tokens_count_by_phase():
    """#event_uranium_boom! in phases 5 and 6, #event_uranium_bust! in 7 (URANIUM_HEXES)."""
    doc = _with_tokens(_doc(511), {})
    rule = rules_for(read_board(doc)).declared["development_values"]
    counts = {}
    for phase in ("4", "5", "6", "7"):
        board = read_board(doc | {"phase": dict(doc["phase"], name=phase)})
        counts[phase] = [development_count(board, rule, h) for h in ("J12", "J20", "I11", "K15")]
    assert counts == {"4": [0, 0, 0, 0], "5": [1, 1, 1, 0], "6": [2, 1, 2, 0], "7": [0, 0, 0, 0]}


def test_teapot_dome_adds_5_for_each_of_the_presidents_oil_tokens_next_to_a_boom_city():
    """K17 at action 1072 (51B, gray, 20/50/60) for RCL, whose president (player 4) holds P6b: 5 for each
    Oil token of player 4 on a hex next to it (Hex#neighbors), none for a token on K17 itself, another
    player's, a coal company's, or without P6b."""
    doc = _doc(1072)
    assert doc["corporation"]["owner"] == "4" and "P6b" in doc["corporation"]["president_companies"]
    [near, other] = sorted(doc["hexes"][_index(doc, "K17")]["neighbors"].values())[:2]
    plain = _value(_with_tokens(doc, {}), "K17")
    assert plain == 20
    assert _value(_with_tokens(doc, {near: [_dev("Oil-D", "4")]}), "K17") == plain + 5
    assert _value(_with_tokens(doc, {near: [_dev("Oil-D", "4")], other: [_dev("Oil-D", "4")]}), "K17") == plain + 10
    assert _value(_with_tokens(doc, {"K17": [_dev("Oil-D", "4")]}), "K17") == plain  # its own hex: a count, no 5
    assert _value(_with_tokens(doc, {near: [_dev("Oil-B", "1")]}), "K17") == plain
    assert _value(_with_tokens(doc, {near: [_dev("Coal-D", "4")]}), "K17") == plain
    no_p6b = _with_tokens(doc, {near: [_dev("Oil-D", "4")]})
    no_p6b["corporation"]["president_companies"] = []
    assert _value(no_p6b, "K17") == plain


def test_the_checker_prices_a_boom_city_by_its_tokens():
    """BH's route from Cody through C11 to D12 at action 511 (both green boom cities, 10/30/40, next to
    each other): tokens on C11 count for both; the check pays each its entry."""
    doc = _doc(511)
    route = {"train": "4-1", "hexes": [["C9", "C11"], ["C11", "D12"]]}
    lonely = api.check(_with_tokens(doc, {}), [route])
    assert lonely["legal"], lonely
    for count, each in ((2, 10), (3, 30), (4, 40), (6, 40)):
        checked = api.check(_with_tokens(doc, {"C11": [_dev("Coal-A")] * count}), [route])
        assert checked["legal"] and checked["revenue"] == lonely["revenue"] + 2 * (each - 10), count


def test_the_gap_lines_are_named_only_without_the_field():
    for doc in (_doc(1072), _with_tokens(_doc(1072), {})):
        answer = api.solve(doc)
        assert len(_gaps(answer)) == (0 if "hex_tokens" in doc["hexes"][0] else 2)
        assert len(answer["unsupported"]) == len(api.solve(_doc(1072))["unsupported"]) - 2 + len(_gaps(answer))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    action=st.sampled_from([120, 511, 1072, 1109]),
    phase=st.sampled_from(["2", "5", "6", "7"]),
    company=st.sampled_from(["UP", "RCL", "WYC", "BH"]),
    p6b=st.booleans(),
    placed=st.lists(st.tuples(st.integers(0, 400), st.sampled_from(["Oil-A", "Oil-D", "Coal-B"])), max_size=12),
)
def test_reference_and_compiled_agree_with_tokens_on_hexes(action, phase, company, p6b, placed):
    """Development tokens drawn on random hexes: every search finds the same revenue."""
    doc = _doc(action)
    ids = [h["id"] for h in doc["hexes"]]
    tokens: dict = {}
    for at, owner in placed:
        tokens.setdefault(ids[at % len(ids)], []).append(_dev(owner, "4"))
    doc = _with_tokens(doc, tokens)
    doc["phase"] = dict(doc["phase"], name=phase)
    doc["corporation"] = dict(doc["corporation"], id=company, owner="4", president_companies=["P6b"] if p6b else [])
    searches_agree(build_problem(doc))


# --- the field: schema, readers, proto ----------------------------------------------------------------


def test_hex_tokens_read_alike_by_both_readers():
    """Given on some hexes, on all, empty, a player as a number: the fast reader's board is the reference's."""
    doc = _doc(511)
    assert_same(doc)
    assert_same(_with_tokens(doc, {"C11": [_dev("Coal-A", "2")]}))
    some = copy.deepcopy(doc)
    some["hexes"][_index(doc, "D12")]["hex_tokens"] = [
        {"owner": "Oil-C", "type": "development", "player": 2},
        {"owner": "N"},
    ]
    assert_same(some)
    board = read_board_reference(some)
    assert [(t.owner, t.type, t.player) for t in board.hexes["D12"].hex_tokens] == [
        ("Oil-C", "development", "2"),
        ("N", "normal", None),
    ]
    assert board.hex_tokens_given and board.hexes["C11"].hex_tokens is None


def test_a_document_without_the_field_reads_as_before():
    board = read_board(_doc(511))
    assert not board.hex_tokens_given
    assert all(hx.hex_tokens is None for hx in board.hexes.values())


@pytest.mark.parametrize(
    "bad,field",
    [
        ({}, "hex_tokens"),
        (["Oil-A"], "hex_tokens[0]"),
        ([{"type": "development"}], "hex_tokens[0].owner"),
        ([{"owner": 5}], "hex_tokens[0].owner"),
        ([{"owner": ""}], "hex_tokens[0].owner"),
        ([{"owner": "Oil-A", "type": 3}], "hex_tokens[0].type"),
        ([{"owner": "Oil-A", "player": True}], "hex_tokens[0].player"),
    ],
)
def test_a_malformed_hex_tokens_is_refused_naming_the_field(bad, field):
    doc = _doc(511)
    i = _index(doc, "C11")
    doc["hexes"][i]["hex_tokens"] = bad
    assert_same(doc)
    with pytest.raises(OptimizerError) as raised:
        read_board(doc)
    assert raised.value.field == f"hexes[{i}].{field}"
    assert str(raised.value).startswith(f"hexes[{i}].{field}: ") and "\n" not in str(raised.value)


def test_the_cli_refuses_a_malformed_hex_tokens_in_one_line(tmp_path):
    doc = _doc(511)
    i = _index(doc, "C11")
    doc["hexes"][i]["hex_tokens"] = [{"type": "development"}]
    path = tmp_path / "board.json"
    path.write_text(json.dumps(doc))
    run = subprocess.run(
        [sys.executable, "-m", "optimizer", "solve", str(path)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1 and f"hexes[{i}].hex_tokens[0].owner" in run.stderr


def test_the_proto_carries_hex_tokens_both_ways():
    """Board message and document: tokens, a hex given none (``no_hex_tokens``), a hex silent; and the
    HTTP gateway's document form (``[]``, a numeric player) is the gRPC client's message."""
    doc = _doc(511)
    doc["hexes"][_index(doc, "C11")]["hex_tokens"] = [_dev("Coal-C", "2"), {"owner": "N"}]
    doc["hexes"][_index(doc, "D12")]["hex_tokens"] = []
    board = convert.state_to_board(doc)
    c11 = board.hexes[_index(doc, "C11")]
    assert [(t.owner, t.type, t.player) for t in c11.hex_tokens] == [("Coal-C", "development", "2"), ("N", "", "")]
    assert board.hexes[_index(doc, "D12")].no_hex_tokens
    back = convert.board_to_state(board)
    by_id = {h["id"]: h for h in back["hexes"]}
    assert by_id["C11"]["hex_tokens"] == [_dev("Coal-C", "2"), {"owner": "N"}]
    assert by_id["D12"]["hex_tokens"] == [] and "hex_tokens" not in by_id["C9"]
    assert read_board(back) == read_board(doc)
    numeric = copy.deepcopy(doc)
    numeric["hexes"][_index(doc, "C11")]["hex_tokens"][0]["player"] = 2
    assert jsonform.parse_request({"board": numeric}, pb.OptimizeRequest).board == board


# --- a real server: HTTP/JSON and gRPC -----------------------------------------------------------------


def _tokened_1072() -> dict:
    """Action 1072 with Oil-D (player 4, RCL's president) next to K17 and K15 (gray boom cities)."""
    return _with_tokens(_doc(1072), {"K19": [_dev("Oil-D", 4)], "J16": [_dev("Oil-D", "4"), _dev("Coal-D")]})


def _post(server, body: dict) -> tuple:
    req = urllib.request.Request(
        server.http_url + "/v1/optimize", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_the_server_answers_hex_tokens_as_the_api_over_http_and_grpc(server, stub):
    doc = _tokened_1072()
    want = api.solve(doc)
    assert _gaps(want) == [] and want["revenue"] != api.solve(_doc(1072))["revenue"]
    for body in ({"board": doc}, {"stateJson": json.dumps(doc)}):
        status, got = _post(server, body)
        assert status == 200, got
        solution = got["solution"]
        assert int(solution["revenue"]) == want["revenue"] and solution.get("unsupported", []) == want["unsupported"]
    reply = stub.Optimize(pb.OptimizeRequest(board=convert.state_to_board(doc)), timeout=60)
    assert reply.solution.revenue == want["revenue"] and list(reply.solution.unsupported) == want["unsupported"]


def test_the_server_refuses_a_malformed_hex_tokens_naming_the_field(server, stub):
    doc = _tokened_1072()
    i = _index(doc, "K19")
    doc["hexes"][i]["hex_tokens"] = [{"type": "development"}]
    field = f"hexes[{i}].hex_tokens[0].owner"
    status, got = _post(server, {"stateJson": json.dumps(doc)})
    assert status == 400 and field in got["message"], got
    with pytest.raises(grpc.RpcError) as caught:
        stub.Optimize(pb.OptimizeRequest(board=convert.state_to_board(doc)), timeout=60)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert details(caught.value)[0][0][0] == field
