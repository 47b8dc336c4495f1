"""The proto3 JSON of requests without a server: the board-state document read as ``Board``, field
paths of bad JSON, and the HTTP routes coming from the gRPC API configuration beside the proto."""

from __future__ import annotations

import json

import pytest
from google.protobuf import json_format

from optimizer.errors import OptimizerError
from server.generated.route18xx.v1 import route_optimizer_pb2 as pb
from server.translation import convert, jsonform

from .corpus import state, states


def test_every_corpus_document_as_it_is_reads_as_the_same_board():
    """``{"board": <document>}``, answer fields and all, is the Board the gRPC client would build."""
    for doc in states():
        parsed = jsonform.parse_request({"board": doc}, pb.OptimizeRequest)
        assert parsed.board == convert.state_to_board(doc), doc["id"]


def test_the_proto3_json_of_a_board_still_reads():
    doc = state("18EU/74045@591")
    board = convert.state_to_board(doc)
    for preserving in (True, False):  # snake_case and lowerCamelCase
        obj = {"board": json_format.MessageToDict(board, preserving_proto_field_name=preserving)}
        assert jsonform.parse_request(obj, pb.CheckRoutesRequest).board == board


def test_document_forms_are_rewritten_and_nothing_else():
    doc = {
        "trains": [
            {"name": "4", "distance": 4},
            {"name": "3", "distance": [{"nodes": ["city"], "pay": 3, "visit": 3}]},
        ],
        "hexes": [{"id": "A1", "exits": [0], "cities": [{"tokens": [None, "PRR"], "reservations": [None]}]}],
        "corporation": {"id": "PRR", "flags": {}},
        "expected": {},
    }
    assert jsonform.board_document_to_json(doc) == {
        "trains": [
            {"name": "4", "distance": {"stops": 4}},
            {"name": "3", "distance": {"rows": [{"nodes": ["city"], "pay": 3, "visit": 3}]}},
        ],
        "hexes": [{"id": "A1", "cities": [{"tokens": ["", "PRR"], "reservations": [""]}]}],
        "corporation": {"id": "PRR"},
    }


@pytest.mark.parametrize(
    "obj, field",
    [
        ([1], "(body)"),
        ({"bogus": 1}, "bogus"),
        ({"nodeBudget": -1}, "nodeBudget"),
        ({"stateJson": 5}, "stateJson"),
        ({"board": {"hexes": [{}, {"rotation": "x"}]}}, "hexes[1].rotation"),
        ({"board": {"hexes": [{"typo": 1}]}}, "hexes[0].typo"),
        ({"board": {"hexes": [{"cities": [{"tokens": [7]}]}]}}, "hexes[0].cities[0].tokens"),
        ({"board": {"trains": [{"distance": "far"}]}}, "trains[0].distance"),
        ({"board": {"corporation": {"abilities": [{"amount": "lots"}]}}}, "corporation.abilities[0].amount"),
    ],
)
def test_bad_json_names_the_field(obj, field):
    with pytest.raises(OptimizerError) as err:
        jsonform.parse_request(obj, pb.OptimizeRequest)
    assert err.value.field == field and (field == "(body)" or str(err.value).startswith(field))


def test_state_json_reads_in_both_spellings_but_not_beside_a_board():
    text = json.dumps(state("1830/26855@553"))
    for key in ("stateJson", "state_json"):
        assert jsonform.parse_request({key: text, "nodeBudget": "7"}, pb.OptimizeRequest) == pb.OptimizeRequest(
            state_json=text, node_budget=7
        )
    with pytest.raises(OptimizerError):
        jsonform.parse_request({"stateJson": text, "board": {}}, pb.OptimizeRequest)
    with pytest.raises(OptimizerError, match="urrogate"):
        jsonform.parse_request({"stateJson": "\ud800"}, pb.OptimizeRequest)


def test_routes_come_from_the_http_configuration():
    """The paths the proto's ``google.api.http`` annotations gave before they moved to the configuration."""
    from server.runtime.httpbudget import HttpBudget
    from server.runtime.limits import Limits
    from server.translation import http
    from server.translation.service import RouteOptimizerService

    routes = {
        (r.path, tuple(sorted(r.methods - {"HEAD"}))): r.name
        for r in http.rpc_routes(RouteOptimizerService(), HttpBudget(Limits()))
    }
    assert routes == {
        ("/v1/optimize", ("POST",)): "Optimize",
        ("/v1/optimize:stream", ("POST",)): "OptimizeStream",
        ("/v1/check", ("POST",)): "CheckRoutes",
        ("/v1/games", ("GET",)): "ListGames",
    }
