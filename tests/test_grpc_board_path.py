"""A structured ``Board`` read straight into a board (each hex keyed by its message's bytes, the rest
converted directly) against the long way (the message as a document, the limits checked on it, the
reference reader): same board, same answer, same error, on every public state and on damaged ones."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer import api
from optimizer.board.state import Board, read_board_reference
from optimizer.errors import OptimizerError
from server.generated.route18xx.v1 import route_optimizer_pb2 as pb
from server.runtime import limits
from server.translation import checks, convert, service

from .corpus import ids, state, states

STATES = states()
BOUNDS = limits.Limits()


def over_the_wire(doc: dict) -> pb.Board:
    return pb.Board.FromString(convert.state_to_board(doc).SerializeToString())


def the_long_way(board: pb.Board, bounds: limits.Limits = BOUNDS) -> Board:
    """What the server did before the fast path: the document, the limits on it, the reference reader."""
    doc = convert.board_to_state(board)
    checks.check_counts(doc, bounds)
    checks.check_numbers(doc, bounds)
    return read_board_reference(service.load_state(doc, "board"))


def the_servers_way(board: pb.Board, bounds: limits.Limits = BOUNDS) -> Board:
    """What the server does now: the fast path, else the document the API reads."""
    value = service.read_state(pb.OptimizeRequest(board=board), bounds)
    return value if isinstance(value, Board) else read_board_reference(value)


def outcome(read, board: pb.Board):
    """The board, or the error as the user sees it (message, field, hex)."""
    try:
        return read(board), None
    except OptimizerError as err:
        return None, (type(err).__name__, str(err), err.field, err.hex)


@pytest.mark.corpus
@pytest.mark.parametrize("doc", STATES, ids=ids(STATES))
def test_every_corpus_board_takes_the_fast_path_to_the_same_board(doc):
    board = over_the_wire(doc)
    fast = convert.read_board(board, board.SerializeToString(deterministic=True), BOUNDS)
    assert fast is not None, "the fast path should take every real state"
    assert fast == the_long_way(board)
    assert service.read_state(pb.OptimizeRequest(board=board), BOUNDS) is fast  # the same board again: one lookup


@pytest.mark.corpus
def test_every_corpus_board_answers_as_its_document():
    """Whole answers, every state twice as a service sees them (caches cold, then warm)."""
    keys = ("id", "revenue", "optimal", "bound", "routes")
    boards = [over_the_wire(doc) for doc in STATES]
    expected = [api.solve(read_board_reference(convert.board_to_state(board))) for board in boards]
    for _ in range(2):
        for doc, board, reference in zip(STATES, boards, expected):
            answer = api.solve(service.read_state(pb.OptimizeRequest(board=board), BOUNDS))
            assert {k: answer[k] for k in keys} == {k: reference[k] for k in keys}, doc["id"]


def test_a_hex_seen_before_is_not_converted_again(monkeypatch):
    """The second board of a game costs its changed hexes: one rotation, one hex converted."""
    board = over_the_wire(state("1830/26855@553"))
    convert.read_board(board, board.SerializeToString(deterministic=True), BOUNDS)
    converted = []
    original = convert.hex_to_json
    monkeypatch.setattr(convert, "hex_to_json", lambda h, n: converted.append(h.id) or original(h, n))
    i = next(i for i, h in enumerate(board.hexes) if h.cities and h.code)
    board.hexes[i].rotation = (board.hexes[i].rotation + 1) % 6
    changed = convert.read_board(board, board.SerializeToString(deterministic=True), BOUNDS)
    assert converted == [board.hexes[i].id]
    assert changed == the_long_way(board)


def test_a_board_read_before_is_read_again_under_other_limits():
    """The same message on a stricter server in the same process: its limits, not the first one's."""
    board = over_the_wire(state("1830/26855@553"))
    board.trains[0].multiplier = 50
    assert isinstance(service.read_state(pb.OptimizeRequest(board=board), BOUNDS), Board)
    with pytest.raises(OptimizerError) as err:
        service.read_state(pb.OptimizeRequest(board=board), limits.Limits(max_multiplier=10))
    assert err.value.field == "trains[0].multiplier"


def test_a_hex_read_before_is_checked_again_under_a_lower_number_limit():
    board = over_the_wire(state("1830/26855@553"))
    i = next(i for i, h in enumerate(board.hexes) if re.match(r"city=revenue:\d+;", h.code))
    # the most the board reader takes (optimizer/board/limits.py), over a stricter server's limit
    board.hexes[i].code = re.sub(r"revenue:\d+", "revenue:100000", board.hexes[i].code, count=1)
    assert isinstance(service.read_state(pb.OptimizeRequest(board=board), BOUNDS), Board)
    board.trains[0].price = 1  # another board, with that hex
    with pytest.raises(OptimizerError) as err:
        service.read_state(pb.OptimizeRequest(board=board), limits.Limits(max_number=99_999))
    assert err.value.field == f"hexes[{i}].code"


def test_counts_are_checked_on_the_message_before_reading():
    board = over_the_wire(state("1830/26855@553"))
    with pytest.raises(limits.LimitExceeded) as err:
        service.read_state(pb.OptimizeRequest(board=board), limits.Limits(max_hexes=len(board.hexes) - 1))
    assert err.value.field == "hexes"


SMALL = [over_the_wire(state("1830/26855@553")), over_the_wire(state("1880/1@835"))]
JUNK_ID = st.sampled_from(["", "A1", "a1", "A1\n", "AAA1", "Q99", "F20"])


def _damage(draw, board: pb.Board) -> None:
    kind = draw(st.sampled_from(["top", "hexes", "hex", "neighbors", "city", "train", "number"]))
    h = board.hexes[draw(st.integers(0, len(board.hexes) - 1))] if board.hexes else pb.Hex()
    if kind == "top":
        what = draw(st.sampled_from(["game", "layout", "tiles", "corporation", "id"]))
        if what == "game":
            board.game = draw(st.sampled_from(["", "1831", "18EU"]))
        elif what == "layout":
            board.layout = draw(st.sampled_from(["", "flat", "round"]))
        elif what == "tiles":
            board.phase.ClearField("tiles")
        elif what == "corporation":
            board.corporation.id = draw(st.sampled_from(["", "PRR", "NOPE"]))
        else:
            board.id = draw(JUNK_ID)
    elif kind == "hexes":
        what = draw(st.sampled_from(["drop", "twice", "none"]))
        if what == "drop" and board.hexes:
            del board.hexes[draw(st.integers(0, len(board.hexes) - 1))]
        elif what == "twice":
            board.hexes.add().CopyFrom(h)
        else:
            board.ClearField("hexes")
    elif kind == "hex":
        what = draw(st.sampled_from(["id", "rotation", "code", "border", "assignments", "color"]))
        if what == "id":
            h.id = draw(JUNK_ID)
        elif what == "rotation":
            h.rotation = draw(st.integers(-3, 9))
        elif what == "code":
            cut = draw(st.integers(0, len(h.code)))
            garble = draw(st.text(alphabet=";=:,_|abcpt0123456789", max_size=5))
            h.code = h.code[:cut] + garble + h.code[cut + draw(st.integers(0, 3)) :]
        elif what == "border":
            h.borders.add(edge=draw(st.integers(-1, 7)), type=draw(st.sampled_from(["impassable", "water", ""])))
        elif what == "assignments":
            h.assignments.update({"P4": draw(st.one_of(st.booleans(), st.integers(0, 3)))})
        else:
            h.color = draw(st.sampled_from(["", "blue", "gray", "red", "white"]))
    elif kind == "neighbors":
        what = draw(st.sampled_from(["clear", "set", "everywhere"]))
        if what == "clear":
            h.ClearField("neighbors")
        elif what == "set":
            h.neighbors[draw(st.integers(0, 7))] = draw(JUNK_ID)
        else:
            for other in board.hexes:
                other.ClearField("neighbors")
    elif kind == "city":
        if not h.cities:
            h.cities.add(tokens=[draw(JUNK_ID)])
        else:
            c = h.cities[0]
            what = draw(st.sampled_from(["index", "slots", "tokens", "token_types"]))
            if what == "index":
                c.index = draw(st.integers(0, 9))
            elif what == "slots":
                c.slots = draw(st.integers(0, 3))
            elif what == "tokens":
                c.tokens.extend(draw(st.lists(JUNK_ID, max_size=3)))
            else:
                c.token_types.extend(draw(st.lists(st.sampled_from(["", "neutral", "x"]), max_size=2)))
    elif kind == "train" and board.trains:
        t = board.trains[draw(st.integers(0, len(board.trains) - 1))]
        what = draw(st.sampled_from(["distance", "both", "rows", "multiplier", "price", "name", "id"]))
        if what == "distance":
            t.ClearField("distance")
        elif what == "both":
            t.distance.rows.add(nodes=["city"], pay=2, visit=2)
        elif what == "rows":
            t.distance.Clear()
            t.distance.rows.add(
                nodes=draw(st.lists(st.sampled_from(["city", "town", "bus"]), max_size=2)),
                pay=draw(st.integers(0, 2**31)),
                visit=draw(st.integers(0, 3)),
            )
        elif what == "multiplier":
            t.multiplier = draw(st.sampled_from([0, 2, 101, 2**31]))
        elif what == "price":
            t.price = draw(st.sampled_from([0.5, -1.0, math.inf, math.nan, 1e12]))
        elif what == "name":
            t.name = draw(st.sampled_from(["", "D", "4"]))
        else:
            t.id = draw(st.sampled_from(["", board.trains[0].id or "x"]))
    elif kind == "number":
        h.code += draw(st.sampled_from([";city=revenue:100000", ";city=revenue:100001", ";town=revenue:9999999"]))


@st.composite
def damaged_boards(draw) -> pb.Board:
    board = pb.Board()
    board.CopyFrom(draw(st.sampled_from(SMALL)))
    for _ in range(draw(st.integers(1, 3))):
        _damage(draw, board)
    return board


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_boards())
def test_damaged_boards_same_board_or_same_error(board):
    assert outcome(the_servers_way, board) == outcome(the_long_way, board)
