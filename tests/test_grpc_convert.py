"""The gRPC layer without a server: message <-> dict conversions, request reading, error details,
and the checked-in stubs being what ``python -m server.generate`` makes today."""

from __future__ import annotations

import json
import time

import pytest
from google.protobuf import struct_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from optimizer import api
from optimizer.board.inputs import input_fields as inputs_of
from optimizer.errors import BoardError, OptimizerError
from server import generate
from server.generated.route18xx.v1 import route_optimizer_pb2 as pb
from server.runtime import limits
from server.translation import checks, convert, service
from server.translation.errors import invalid_argument

from .corpus import state, states


def input_fields(doc: dict) -> dict:
    """The part of a corpus state a client sends (corpus README), without nulls."""
    return inputs_of(doc, drop_nulls=True)


# --- the board ----------------------------------------------------------------------------------


def test_every_corpus_board_survives_the_round_trip():
    for doc in states():
        assert convert.board_to_state(convert.state_to_board(doc)) == input_fields(doc), doc["id"]


def test_structured_board_solves_like_the_document():
    for state_id in ("1830/26855@553", "18EU/74045@779", "1880/1@835"):
        doc = state(state_id)
        board = pb.Board.FromString(convert.state_to_board(doc).SerializeToString())  # over the wire
        assert api.solve(convert.board_to_state(board))["revenue"] == api.solve(doc)["revenue"]


def test_empty_slots_and_optional_fields():
    city = pb.City(tokens=["PRR", ""], reservations=["", "NYC"], token_types=["", "neutral"])
    assert convert.city_to_json(city) == {
        "tokens": ["PRR", None],
        "reservations": [None, "NYC"],
        "token_types": [None, "neutral"],
    }
    city.index, city.slots = 1, 2
    assert convert.city_to_json(city)["index"] == 1 and convert.city_to_json(city)["slots"] == 2
    train = pb.Train(name="4", distance=pb.Distance(stops=4), price=300)
    assert convert.train_to_json(train, 0) == {"name": "4", "distance": 4, "price": 300}
    rows = pb.Distance(rows=[pb.DistanceRow(nodes=["city", "offboard"], pay=3, visit=3)])
    assert convert.distance_to_json(rows) == [{"nodes": ["city", "offboard"], "pay": 3, "visit": 3}]
    assignments = struct_pb2.Struct()
    assignments.update({"P4": True})
    hx = pb.Hex(id="A1", code="", assignments=assignments, borders=[pb.Border(edge=2, type="impassable")])
    assert convert.hex_to_json(hx, False) == {
        "id": "A1",
        "rotation": 0,
        "code": "",
        "cities": [],
        "borders": [{"edge": 2, "type": "impassable"}],
        "assignments": {"P4": True},
    }


def test_train_without_distance_names_the_field():
    board = pb.Board(game="1830", layout="pointy", trains=[pb.Train(name="4"), pb.Train(name="D")])
    with pytest.raises(BoardError) as err:
        convert.board_to_state(board)
    assert err.value.field == "trains[0].distance"


def test_neighbours_given_for_all_hexes_or_none():
    board = pb.Board(game="1830", layout="pointy", hexes=[pb.Hex(id="A1"), pb.Hex(id="A3")])
    assert all("neighbors" not in h for h in convert.board_to_state(board)["hexes"])
    board.hexes[0].neighbors[1] = "A3"
    board.hexes[1].neighbors[4] = "A1"
    assert [h["neighbors"] for h in convert.board_to_state(board)["hexes"]] == [{"1": "A3"}, {"4": "A1"}]


def _board_450():
    """1830 26855 before action 450 as a structured board: one 4 train, 170."""
    doc = state("1830/26855@450")
    assert api.solve(doc)["revenue"] == 170
    return convert.state_to_board(doc)


def test_neighbours_cleared_on_one_hex_name_the_field():
    """The proto: "Give it on every hex or on none". Clearing D16's alone used to turn 170 into 70."""
    board = _board_450()
    i = next(i for i, h in enumerate(board.hexes) if h.id == "D16")
    board.hexes[i].ClearField("neighbors")
    with pytest.raises(BoardError) as err:
        convert.board_to_state(board)
    assert err.value.field == f"hexes[{i}].neighbors" and err.value.hex == "D16"


def test_distance_with_both_stops_and_rows_names_the_field():
    """The proto: "Set exactly one." A 4 train given stops 3 and a row used to be read as the row (70)."""
    board = _board_450()
    board.trains[0].distance.stops = 3
    board.trains[0].distance.rows.add(nodes=["city"], pay=2, visit=2)
    with pytest.raises(BoardError) as err:
        convert.board_to_state(board)
    assert err.value.field == "trains[0].distance" and "both stops and rows" in str(err.value)


def test_routes_to_check():
    by_track = pb.RouteInput(train="4-0", hexes=[pb.HexChain(hexes=["F20", "F22"])])
    assert convert.route_input_to_json(by_track) == {"train": "4-0", "hexes": [["F20", "F22"]]}
    assert convert.route_input_to_json(pb.RouteInput(train="4-0", stops=["F20._0", "F22._0"])) == {
        "train": "4-0",
        "stops": ["F20._0", "F22._0"],
    }
    assert convert.route_input_to_json(pb.RouteInput(train="4-0")) == {"train": "4-0", "hexes": []}


# --- answers ------------------------------------------------------------------------------------


def test_solution_round_trip():
    result = api.solve(state("18EU/74045@779"))  # with a Pullman
    back = convert.solution_to_json(pb.Solution.FromString(convert.solution_to_proto(result).SerializeToString()))
    assert back == result
    assert all(len(r["nodes"]) == len(r["stops"]) for r in back["routes"])  # the engine's node names, the Pullman's too


def test_check_round_trip():
    out = {
        "legal": False,
        "revenue": 90,
        "routes": [
            {
                "train": "2-0",
                "legal": True,
                "revenue": 90,
                "stops": ["A1._0", "B2._0"],
                "paid": ["A1._0", "B2._0"],
                "hexes": [["A1", "B2"]],
                "errors": [],
            },
            {
                "train": "2-1",
                "legal": False,
                "revenue": 0,
                "stops": [],
                "paid": [],
                "hexes": [],
                "errors": ["it reaches Boston twice"],
            },
        ],
    }
    assert convert.check_to_json(convert.check_to_proto(out)) == out
    out["optimum"] = api.solve(state("1830/26855@553"))
    assert convert.check_to_json(convert.check_to_proto(out)) == out
    out["errors"] = ["no route visits the company's home token"]  # a rule on the whole run (1860, 1862)
    assert convert.check_to_json(convert.check_to_proto(out)) == out


def test_games_round_trip():
    response = convert.games_to_proto(api.games(), api.TRAIN_KINDS)
    assert convert.games_to_json(response) == api.games()
    assert list(response.train_kinds) == list(api.TRAIN_KINDS)


# --- reading requests ---------------------------------------------------------------------------


def test_state_json_is_never_a_file_name(tmp_path):
    board = tmp_path / "state.json"
    board.write_text(json.dumps(state("1830/26855@553")))
    for text in (str(board), "-", "", "  [1]"):
        with pytest.raises(OptimizerError) as err:
            service.parse_state_json(text)
        assert err.value.field == "state_json"


def test_state_json_that_breaks_the_parser():
    for text in ('{"a":' * 50000, '{"n": 1' + "0" * 5000 + "}"):  # too deep; too long a number
        with pytest.raises(OptimizerError) as err:
            service.parse_state_json(text)
        assert err.value.field == "state_json"


def test_state_json_may_be_tile_lays():
    doc = service.parse_state_json(
        '{"game": "1830", "phase": "5", "lays": [{"hex": "F20", "tile": "57", '
        '"rotation": 1}], "tokens": [{"hex": "F20", "city": 0, "company": "PRR"}], '
        '"trains": ["5"], "company": "PRR"}'
    )
    assert doc["hexes"] and doc["trains"][0]["distance"] == 5


def test_routes_from_one_field_only():
    request = pb.CheckRoutesRequest(routes=[pb.RouteInput(train="4-0")], routes_json="[]")
    with pytest.raises(OptimizerError) as err:
        service.read_routes(request)
    assert err.value.field == "routes_json"
    assert service.read_routes(pb.CheckRoutesRequest(routes_json='[{"train": "4-0", "stops": []}]')) == [
        {"train": "4-0", "stops": []}
    ]


def test_deadline_is_the_clients_else_the_servers_default_at_most_its_maximum():
    bounds = limits.Limits(default_deadline_s=30, max_deadline_s=100)
    assert limits.call_deadline(bounds, 1.0) == (1.0, "client")
    assert limits.call_deadline(bounds, None) == (30, "server_default")
    assert limits.call_deadline(bounds, 1e12) == (30, "server_default")  # grpc's "no deadline"
    assert limits.call_deadline(bounds, 500.0) == (100, "server_maximum")


def test_search_deadline_covers_the_whole_answer_with_a_margin():
    call = service.Call(time.monotonic() + 1.0, "client", 1.0, None)
    assert call.search_deadline_ms() == pytest.approx(1000 * 0.9 - 1, abs=5)
    late = service.Call(time.monotonic() - 1.0, "client", 0.001, None)
    assert late.search_deadline_ms() == 1.0


def test_error_messages_quote_little_of_the_input():
    message = limits.capped(f"hexes[3]: bad hex id {'X' * 3000!r} (letters then a number)")
    assert len(message.encode()) < 1000 and "3002 characters" in message and message.endswith("number)")
    assert len(limits.capped("word " * 1000).encode()) <= 1000
    assert limits.capped("bad \ud800 id") == "bad ? id"  # a lone surrogate cannot go on the wire


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda d: d["trains"][0].update(multiplier=2**31), "trains[0].multiplier"),
        (lambda d: d["trains"][0].update(distance=2**40), "trains[0].distance"),
        (lambda d: d["hexes"][0].update(code="city=revenue:2147483648"), "hexes[0].code"),
        (lambda d: d["trains"][0].update(price=float("nan")), "trains[0].price"),
    ],
)
def test_numbers_that_do_not_fit_name_the_field(change, field):
    doc = json.loads(json.dumps(state("1830/26855@553")))
    change(doc)
    with pytest.raises(OptimizerError) as err:
        checks.check_numbers(doc, limits.Limits())
    assert err.value.field == field


def test_a_colour_in_a_tile_code_is_no_number():
    """1873 frames its tiles ``frame=color:#800080``: a colour, never refused as a number too large;
    a revenue beside it still is."""
    doc = json.loads(json.dumps(state("1830/26855@553")))
    doc["hexes"][0]["code"] = "city=revenue:20;path=a:0,b:_0;frame=color:#800080;frame=color:#12345678"
    checks.check_numbers(doc, limits.Limits())
    checks.check_hex_codes([json.dumps(doc["hexes"][0]).encode()], limits.Limits())
    doc["hexes"][0]["code"] = "city=revenue:2000000;path=a:0,b:_0;frame=color:#800080"
    with pytest.raises(OptimizerError) as err:
        checks.check_numbers(doc, limits.Limits())
    assert err.value.field == "hexes[0].code" and "2000000" in str(err.value)


def test_lone_surrogates_and_counts_are_refused_naming_the_field():
    with pytest.raises(OptimizerError) as err:
        checks.check_strings({"trains": [{"name": "\ud800"}]})
    assert err.value.field == "trains[0].name"
    assert checks.has_lone_surrogate_escape('{"id": "\\ud800"}') and not checks.has_lone_surrogate_escape('{"id": "x"}')
    with pytest.raises(limits.LimitExceeded) as err:
        checks.check_counts({"hexes": [{}] * 11}, limits.Limits(max_hexes=10))
    assert err.value.field == "hexes"


def test_invalid_argument_names_field_and_hex():
    err = BoardError(
        "hexes[5].rotation: must be smaller than or equal to 5 (hex K13)", field="hexes[5].rotation", hex="K13"
    )
    status = rpc_status.from_call(_as_call(invalid_argument(err, "board")))
    assert status.code == 3 and status.message == str(err)  # INVALID_ARGUMENT
    bad, info = error_details_pb2.BadRequest(), error_details_pb2.ErrorInfo()
    status.details[0].Unpack(bad)
    status.details[1].Unpack(info)
    assert (bad.field_violations[0].field, bad.field_violations[0].description) == ("hexes[5].rotation", str(err))
    assert dict(info.metadata) == {"field": "hexes[5].rotation", "hex": "K13"}
    whole = invalid_argument(BoardError("not valid JSON", field="(document)"), "state_json")
    assert rpc_status.from_call(_as_call(whole)).message == "not valid JSON"
    assert _violation_field(whole) == "state_json"


def _as_call(status):
    """A grpc.Call-like object carrying a grpc.Status, for rpc_status.from_call."""

    class Call:
        def code(self):
            return status.code

        def details(self):
            return status.details

        def trailing_metadata(self):
            return status.trailing_metadata

    return Call()


def _violation_field(status) -> str:
    bad = error_details_pb2.BadRequest()
    rpc_status.from_call(_as_call(status)).details[0].Unpack(bad)
    return bad.field_violations[0].field


# --- the stubs ----------------------------------------------------------------------------------


def test_checked_in_stubs_are_fresh(tmp_path):
    fresh = generate.generate(tmp_path)
    stale = [
        str(checked_in)
        for checked_in, new in zip(generate.stub_paths(), fresh)
        if not checked_in.exists() or checked_in.read_bytes() != new.read_bytes()
    ]
    assert not stale, f"stale stubs (run `python -m server.generate`): {stale}"
