"""The fast path (msgspec structs, hexes read once, walks cached per stop) against its reference
twin (the JSON Schema validator, the plain reader, the plain walk): same board, same graph, same
answer, same error, on every public state and on damaged ones."""

import copy
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer.board import document
from optimizer.board.state import read_board_fast, read_board_reference, validate_schema
from optimizer.errors import OptimizerError
from optimizer.games import rules_for
from optimizer.graph.track import build_track_graph_reference
from optimizer.graph.walks import build_track_graph_fast

from .corpus import ids, state, states
from .test_board import damaged

STATES = states()


def outcome(read, doc):
    """What a reader makes of a document: the board, or the error as the user sees it."""
    try:
        return read(copy.deepcopy(doc)), None
    except OptimizerError as err:
        return None, (str(err), err.field, err.hex)


def assert_same(doc):
    fast, fast_error = outcome(read_board_fast, doc)
    reference, reference_error = outcome(read_board_reference, doc)
    assert fast_error == reference_error
    assert fast == reference
    try:
        text = json.dumps(doc)
    except ValueError:  # not JSON-able (a nan is, an inf is): nothing to compare as text
        text = None
    if text is not None:  # the same document as JSON text: decoded straight into structs
        assert outcome(read_board_fast, text) == outcome(read_board_reference, text)
    if fast is None:
        return
    rules_fast, rules_reference = rules_for(fast), rules_for(reference)
    for reachable_only in (True, False):
        try:
            graph = build_track_graph_fast(fast, rules_fast, reachable_only)
        except OptimizerError as err:
            with pytest.raises(OptimizerError, match=".") as raised:
                build_track_graph_reference(reference, rules_reference, reachable_only)
            assert str(raised.value) == str(err)
            continue
        assert graph == build_track_graph_reference(reference, rules_reference, reachable_only)


@pytest.mark.corpus
@pytest.mark.parametrize("doc", STATES, ids=ids(STATES))
def test_fast_path_reads_and_walks_every_state_as_the_reference(doc):
    assert document.decode(doc) is not None, "the fast path should take every real state"
    assert_same(doc)


@pytest.mark.corpus
def test_fast_path_answers_every_state_as_the_reference(monkeypatch):
    """Whole answers, state after state as a service sees them (the caches warm, then reused)."""
    from optimizer import api
    from optimizer.board import state as board_state
    from optimizer.graph import problem, walks

    fast = [api.solve(doc) for doc in STATES]
    again = [api.solve(json.dumps(doc)) for doc in STATES]  # as text, each board read and built before
    monkeypatch.setattr(board_state, "read_board", read_board_reference)
    monkeypatch.setattr(api, "read_board", read_board_reference)
    monkeypatch.setattr(problem, "read_board", read_board_reference)
    monkeypatch.setattr(problem, "build_track_graph", build_track_graph_reference)
    monkeypatch.setattr(walks, "build_track_graph", build_track_graph_reference)
    for doc, answer, answer_again in zip(STATES, fast, again):
        reference = api.solve(doc)
        for key in ("id", "revenue", "optimal", "bound", "routes"):
            assert answer[key] == reference[key], (doc["id"], key)
            assert answer_again[key] == reference[key], (doc["id"], key)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged())
def test_damaged_boards_same_board_or_same_error(doc):
    assert_same(doc)


# ---- the schema's edge: msgspec never accepts what the schema refuses ------------------------------

# Values near the schema's lines: integers as floats, bools for numbers, ids with a newline,
# neighbour keys out of range, nested junk, numbers too large for 64 bits.
EDGY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 7),
    st.sampled_from([2.0, 0.5, -1.0, 1e300, math.inf, math.nan]),
    st.sampled_from([2**64, -(2**63) - 1, "A1\n", "A1", "AAA1", "a1", "", "0", "6", "0\n", "neutral", "city"]),
    st.lists(st.one_of(st.none(), st.integers(0, 3), st.text(max_size=2), st.just({"a": 1})), max_size=3),
    st.dictionaries(
        st.sampled_from(["0", "5", "6", "0\n", "nodes", "pay", "visit", "edge", "x"]),
        st.one_of(st.integers(0, 3), st.text(max_size=2), st.none()),
        max_size=3,
    ),
)


def _containers(value, path=()):
    """Every dict and list in a document, with its path."""
    if isinstance(value, dict):
        yield path, value
        for k, v in value.items():
            yield from _containers(v, path + (k,))
    elif isinstance(value, list):
        yield path, value
        for i, v in enumerate(value):
            yield from _containers(v, path + (i,))


SMALL = [state("1830/26855@553"), state("1880/1@835")]
KEYS = [
    "id",
    "game",
    "layout",
    "phase",
    "tiles",
    "name",
    "corporation",
    "companies",
    "abilities",
    "ferry_marker",
    "minor",
    "owner",
    "trains",
    "distance",
    "nodes",
    "pay",
    "visit",
    "multiplier",
    "requires_token",
    "local",
    "price",
    "hexes",
    "code",
    "tile",
    "color",
    "rotation",
    "location_name",
    "neighbors",
    "borders",
    "edge",
    "type",
    "cost",
    "cities",
    "index",
    "slots",
    "tokens",
    "token_types",
    "reservations",
    "extra_tokens",
    "tile_reservations",
    "assignments",
    "0",
    "5",
    "6",
]


@st.composite
def edgy_documents(draw):
    doc = copy.deepcopy(draw(st.sampled_from(SMALL)))
    doc["hexes"] = doc["hexes"][:12]  # small enough for many examples; neighbours off the map are fine here
    for _ in range(draw(st.integers(1, 3))):
        places = list(_containers(doc))
        _, where = draw(st.sampled_from(places))
        if isinstance(where, dict):
            key = draw(st.sampled_from(KEYS + list(where)))
            if draw(st.integers(0, 4)) == 0:
                where.pop(key, None)
            else:
                where[key] = draw(EDGY)
        elif where:
            where[draw(st.integers(0, len(where) - 1))] = draw(EDGY)
    return doc


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edgy_documents())
def test_msgspec_accepts_nothing_the_schema_refuses(doc):
    parsed = document.decode(doc)
    if parsed is not None and all(document.HEX_ID.match(h.id) for h in parsed.hexes):  # ids: checked on read
        validate_schema(doc)  # raises if the schema refuses what msgspec took


@pytest.mark.parametrize(
    "where, value",
    [
        (("hexes", 0, "id"), "A1\n"),
        (("hexes", 0, "rotation"), 2.0),
        (("hexes", 0, "rotation"), True),
        (("hexes", 0, "neighbors"), {"0\n": "A1"}),
        (("hexes", 0, "neighbors"), {"6": "A1"}),
        (("trains", 0, "distance"), 2**64),
        (("id",), 3.0),
        (("trains", 0, "price"), False),
    ],
)
def test_the_schema_edge_named(where, value):
    """Where msgspec and the schema could differ, the fast reader says what the reference says."""
    doc = copy.deepcopy(state("1830/26855@553"))
    target = doc
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    assert_same(doc)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edgy_documents())
def test_edgy_documents_same_board_or_same_error(doc):
    assert_same(doc)


def test_json_text_is_read_alike():
    doc = state("1830/26855@553")
    assert read_board_fast(json.dumps(doc)) == read_board_reference(json.dumps(doc))


def test_a_changed_tile_is_walked_again():
    """The second board of a game differs by one rotation: its walks come fresh, not from the cache."""
    doc = copy.deepcopy(state("1830/26855@553"))
    first = read_board_fast(doc)
    build_track_graph_fast(first, rules_for(first))
    laid = next(h for h in doc["hexes"] if h.get("cities") and any(h["cities"][0].get("tokens") or []))
    laid["rotation"] = (laid.get("rotation", 0) + 1) % 6
    assert_same(doc)


@pytest.mark.parametrize(
    "env, reader, builder",
    [
        ({}, "read_board_fast", "build_track_graph_fast"),
        ({"OPTIMIZER_NO_FAST_PATH": "1"}, "read_board_reference", "build_track_graph_reference"),
    ],
)
def test_the_path_is_chosen_once_in_a_fresh_process(env, reader, builder):
    """Either module may be imported first; ``OPTIMIZER_NO_FAST_PATH=1`` picks the reference twins."""
    import os
    import subprocess
    import sys

    code = (
        "import optimizer.graph.walks; from optimizer.graph.problem import build_track_graph, read_board; "
        "print(read_board.__name__, build_track_graph.__name__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == [reader, builder]


def test_the_same_board_again_is_read_and_built_once():
    """A repeated request (a dict or its text) gets the board and the problem built the first time."""
    from optimizer.graph.problem import build_problem, shared_problem

    doc = state("1830/26855@553")
    board = read_board_fast(copy.deepcopy(doc))
    assert read_board_fast(copy.deepcopy(doc)) is board
    from_text = read_board_fast(json.dumps(doc))  # its hexes cached by their text: another Board
    assert read_board_fast(json.dumps(doc)) is from_text and from_text == board
    assert shared_problem(board) is shared_problem(read_board_fast(copy.deepcopy(doc)))
    assert shared_problem(from_text) is shared_problem(read_board_fast(json.dumps(doc)))
    assert build_problem(board) is not build_problem(board)  # a caller's own, free to change
    own = read_board_reference(copy.deepcopy(doc))  # a board the reader does not share: built each time
    assert shared_problem(own) is not shared_problem(own)


def test_a_shared_problem_keeps_what_the_compiled_search_derives_of_it():
    """The same board again skips the kernel's preparation (a shared problem is read-only), and answers
    the same; a caller's own problem derives it anew each search, so a change to it is honoured."""
    from optimizer.core import compiled
    from optimizer.graph.problem import build_problem, shared_problem

    doc = state("1830/26855@553")
    problem = shared_problem(read_board_fast(copy.deepcopy(doc)))
    first = compiled.search(problem)
    ((key, plan),) = problem.kernel_plans.items()
    again = compiled.search(shared_problem(read_board_fast(copy.deepcopy(doc))))
    assert list(problem.kernel_plans) == [key] and problem.kernel_plans[key] is plan  # not derived again
    assert (again.revenue, again.optimal, [r.stops for r in again.routes]) == (
        first.revenue,
        first.optimal,
        [r.stops for r in first.routes],
    )
    own = build_problem(read_board_fast(copy.deepcopy(doc)))
    assert compiled.search(own).revenue == first.revenue and own.kernel_plans is None


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["corporation"].update(id="PRR"),  # another company on the same map (this one is B&O)
        lambda d: d["trains"].pop(),
        lambda d: d["phase"].update(tiles=["yellow"]),
        lambda d: d.update(id="another"),
        lambda d: d["hexes"][0].update(rotation=(d["hexes"][0].get("rotation", 0) + 1) % 6),
    ],
)
def test_a_board_that_differs_anywhere_is_read_again(change):
    """Nothing of the first board is reused for a second that differs in any input field."""
    from optimizer import api

    doc = state("1830/26855@553")
    first = read_board_fast(copy.deepcopy(doc))
    api.solve(copy.deepcopy(doc))
    other = copy.deepcopy(doc)
    change(other)
    assert read_board_fast(copy.deepcopy(other)) is not first
    assert_same(other)
    for form in (copy.deepcopy(other), json.dumps(other)):
        assert api.solve(form)["routes"] == api.solve(read_board_reference(copy.deepcopy(other)))["routes"]


def test_json_text_of_a_tile_lay_board_or_not_an_object_takes_the_long_way():
    from optimizer import api

    lays = {
        "game": "1830",
        "phase": "3",
        "lays": [{"hex": "F20", "tile": "1", "rotation": 0}],
        "tokens": [{"hex": "G19", "city": 0, "company": "NYNH"}],
        "trains": ["2", "3"],
        "company": "NYNH",
    }
    assert api.solve(json.dumps(lays))["routes"] == api.solve(lays)["routes"]
    with pytest.raises(OptimizerError, match="a board state is a JSON object") as err:
        api.solve("[1]")
    assert err.value.field == "(document)"


def test_stops_are_kept_only_where_the_game_says_what_its_stop_hooks_read():
    """A game that overrides a stop hook without a stop_context of its own has its stops made every
    time: nothing it reads can be missed by the key."""
    from optimizer.games import rules_class
    from optimizer.games.base import Rules

    class Quiet(Rules):
        def value_bonus(self, hx, node):
            return 5

    class Said(Quiet):
        def stop_context(self):
            return super().stop_context() + ("five more",)

    assert Rules.stops_keyed() and not Quiet.stops_keyed() and Said.stops_keyed()
    assert all(rules_class(game).stops_keyed() for game in ("1830", "1880", "1880 Romania", "1894", "18EU"))
    assert not rules_class("1846").stops_keyed()  # declared rules read the company's assignments and abilities


def test_a_stop_reached_first_by_a_terminal_path_is_still_passed_through_by_other_track():
    """Reachability does not hang on the order of the track: J is reached from the token city T
    straight, by a path that ends at J (terminal), and round by M, by one that does not; a route
    may run T-M-J-K, so K is kept and the best route is paid for it (both paths, either builder)."""
    from optimizer import api
    from optimizer.graph.problem import build_problem
    from optimizer.graph.track import build_track_graph_reference

    def city(hex_id, paths, neighbors, value, tokens=()):
        return {
            "id": hex_id,
            "tile": hex_id,
            "color": "yellow",
            "rotation": 0,
            "code": f"city=revenue:{value};" + ";".join(paths),
            "neighbors": neighbors,
            "cities": [{"index": 0, "slots": 1, "tokens": list(tokens) or [None]}],
        }

    doc = {
        "id": "terminal-first",
        "game": "generic",
        "layout": "pointy",
        "phase": {"name": "2", "tiles": ["yellow"]},
        "corporation": {"id": "CO", "name": "CO"},
        "trains": [{"id": "3-0", "name": "3", "distance": 3}],
        "hexes": [
            city("A1", ["path=a:0,b:_0", "path=a:1,b:_0"], {"0": "B1", "1": "C1"}, 10, ["CO"]),
            {
                "id": "C1",
                "tile": "C1",
                "color": "yellow",
                "rotation": 0,
                "code": "path=a:4,b:1",
                "neighbors": {"4": "A1", "1": "B1"},
                "cities": [],
            },
            city(
                "B1",
                ["path=a:3,b:_0,terminal:1", "path=a:4,b:_0", "path=a:0,b:_0"],
                {"3": "A1", "4": "C1", "0": "D1"},
                20,
            ),
            city("D1", ["path=a:3,b:_0"], {"3": "B1"}, 50),
        ],
    }
    problem = build_problem(doc)
    assert {s.id for s in problem.graph.stops} == {"A1._0", "B1._0", "D1._0"}
    reference = build_track_graph_reference(problem.board, problem.rules)
    assert {s.id for s in reference.stops} == {"A1._0", "B1._0", "D1._0"}
    answer = api.solve(doc)
    assert answer["revenue"] == 80 and answer["routes"][0]["stops"] == ["A1._0", "B1._0", "D1._0"]
