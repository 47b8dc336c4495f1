"""Reading boards: every public state against the engine's own view of it, and bad input."""

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer.board.state import computed_neighbors, read_board, read_board_fast, read_board_reference
from optimizer.errors import BoardError, OptimizerError
from optimizer.games import rules_for
from optimizer.graph.problem import build_problem

from .corpus import game_files, ids, state, states

STATES = states()


def _first_index(doc, hex_id) -> int:
    return next(i for i, h in enumerate(doc["hexes"]) if h["id"] == hex_id)


def _end(end):
    return end[1] if end[0] == "edge" else f"_{end[1]}"


def _revenue(node):
    if len(node.revenue) == 1 and node.revenue[0][0] is None:
        return node.revenue[0][1]
    return dict(node.revenue)


@pytest.mark.corpus
@pytest.mark.parametrize("doc", STATES, ids=ids(STATES))
def test_board_agrees_with_the_engine(doc):
    """Exits, nodes (index, type, value), absolute paths, blocks and tokened, hex by hex."""
    board = read_board(doc)
    rules = rules_for(board)
    for h in doc["hexes"]:
        hx = board.hexes[h["id"]]
        assert list(hx.tile.exits(hx.rotation)) == h["exits"], h["id"]
        if "paths" in h:
            ours = sorted((str(_end(p.a)), str(_end(p.b)), p.terminal) for p in hx.tile.paths_rotated(hx.rotation))
            theirs = sorted((str(p["a"]), str(p["b"]), bool(p.get("terminal"))) for p in h["paths"])
            assert ours == theirs, h["id"]
        for n in h.get("nodes", []):
            node = hx.tile.nodes[n["index"]]
            assert node.kind == n["type"], h["id"]
            assert _revenue(node) == n.get("revenue", 0), h["id"]
            assert tuple(node.groups) == tuple(n.get("groups", ())), h["id"]
            engine_blocks = node.kind == "offboard" or rules.blocks(hx, node) or rules.forbidden(hx, node)
            assert engine_blocks == bool(n.get("blocks")), (h["id"], n)
            assert rules.has_token(hx, node) == bool(n.get("tokened")), (h["id"], n)


@pytest.mark.corpus
def test_computed_neighbours_agree_with_given_ones_everywhere():
    """Adjacency from layout, borders and facing exits equals the engine's, on every hex of every
    game file and public state."""
    docs = list(STATES)
    for f in game_files():
        data = json.loads(f.read_text())
        docs.append(
            {
                "id": f.name,
                "game": data["title"],
                "layout": data["layout"],
                "phase": {"tiles": ["yellow"]},
                "corporation": {"id": "X"},
                "trains": [],
                "hexes": data["hexes"],
            }
        )
    checked = 0
    for doc in docs:
        board = read_board(doc)
        for h in doc["hexes"]:
            given_ = {int(k): v for k, v in h.get("neighbors", {}).items()}
            assert computed_neighbors(board.hexes, board.layout, h["id"]) == given_, (doc["id"], h["id"])
            checked += 1
    assert checked > 1000


@pytest.mark.corpus
@pytest.mark.parametrize("doc", STATES[:40], ids=ids(STATES[:40]))
def test_same_graph_without_given_neighbours(doc):
    without = copy.deepcopy(doc)
    for h in without["hexes"]:
        h.pop("neighbors", None)
    a, b = build_problem(doc), build_problem(without)
    assert [s.id for s in a.graph.stops] == [s.id for s in b.graph.stops]
    assert len(a.graph.segments) == len(b.graph.segments)


def test_answer_fields_are_never_read():
    """The code path reads only input fields: stripping every answer field changes nothing."""
    doc = state("1830/26855@553")
    stripped = copy.deepcopy(doc)
    stripped.pop("expected")
    stripped["corporation"].pop("flags", None)
    for h in stripped["hexes"]:
        for k in ("exits", "nodes", "paths", "all_neighbors"):
            h.pop(k, None)
    a, b = build_problem(doc), build_problem(stripped)
    assert [s.id for s in a.graph.stops] == [s.id for s in b.graph.stops]
    assert (a.values_by_train_stop == b.values_by_train_stop).all()


def _base():
    return state("1830/26855@553")


def _hex(doc, hex_id):
    return next(h for h in doc["hexes"] if h["id"] == hex_id)


def _bad(mutate):
    doc = _base()
    mutate(doc)
    with pytest.raises(BoardError) as err:
        build_problem(doc)
    return err.value


def test_unknown_neighbour_hex():
    err = _bad(lambda d: _hex(d, "G19")["neighbors"].update({"0": "Z99"}))
    assert err.hex == "G19" and "Z99" in str(err) and err.field.endswith(".neighbors.0")


def test_rotation_out_of_range():
    err = _bad(lambda d: _hex(d, "G19").update(rotation=7))
    assert err.field.endswith(".rotation") and err.hex == "G19"


def test_code_that_does_not_parse():
    err = _bad(lambda d: _hex(d, "G19").update(code="city=revenue:40;path=a:0,b:_0;teleport=x"))
    assert err.hex == "G19" and "teleport" in str(err) and err.field.endswith(".code")


def test_path_to_a_node_that_does_not_exist():
    err = _bad(lambda d: _hex(d, "G19").update(code="city=revenue:40;path=a:0,b:_4"))
    assert err.hex == "G19" and "_4" in str(err)


def test_token_on_a_city_that_does_not_exist():
    def mutate(d):
        _hex(d, "G19")["cities"][-1].update(index=5, tokens=["PRR"])

    err = _bad(mutate)
    assert err.hex == "G19" and "_5" in str(err)


def test_more_tokens_than_slots():
    def mutate(d):
        city = _hex(d, "I15")["cities"][0]
        city.update(slots=1, tokens=["B&O", "PRR", "NYC"])

    err = _bad(mutate)
    assert err.hex == "I15" and "tokens" in err.field


def test_unknown_layout():
    err = _bad(lambda d: d.update(layout="square"))
    assert err.field == "layout"


@pytest.mark.parametrize("reader", [read_board_reference, read_board_fast])
def test_a_hex_listed_twice_reads_as_the_engine_reads_its_map(reader):
    """18Rhl lists G8 twice; the engine keys its hexes by id and coordinates, so the later listing
    stands (game/base.rb, connect_hexes), in the place of the first."""
    doc = _base()
    first = _first_index(doc, "G19")
    later = copy.deepcopy(doc["hexes"][first])
    later["location_name"] = "the later listing"
    doc["hexes"].append(later)
    board = reader(json.loads(json.dumps(doc)))
    assert board.hexes["G19"].location_name == "the later listing"
    assert list(board.hexes).index("G19") == first and len(board.hexes) == len(doc["hexes"]) - 1
    assert build_problem(doc).graph.stops  # the graph and the search read it too


def test_a_hex_listed_twice_is_still_checked_in_each_listing():
    doc = _base()
    bad = copy.deepcopy(_hex(doc, "G19"))
    bad["rotation"] = 7
    doc["hexes"].insert(0, bad)
    with pytest.raises(BoardError) as err:
        build_problem(doc)
    assert err.value.field == "hexes[0].rotation"


def test_bad_hex_id():
    err = _bad(lambda d: d["hexes"][0].update(id="12H"))
    assert err.field == "hexes[0].id"


def test_train_with_no_distance():
    err = _bad(lambda d: d["trains"][0].pop("distance"))
    assert "distance" in str(err) and err.field.startswith("trains[0]")


def test_train_with_zero_distance():
    err = _bad(lambda d: d["trains"][0].update(distance=0))
    assert err.field.startswith("trains[0]")


def _d16_board():
    """1830 26855 before action 450: one 4 train; the switch tile on D16 carries its route."""
    return state("1830/26855@450")


def test_neighbours_on_some_hexes_only_name_the_field():
    """The contract gives neighbours on every hex or on none: D16's alone left out is an error (it
    used to be read as computed adjacency for the whole board), not a silently different graph."""
    doc = _d16_board()
    i = _first_index(doc, "D16")
    del doc["hexes"][i]["neighbors"]
    with pytest.raises(BoardError) as err:
        build_problem(doc)
    assert (
        err.value.field == f"hexes[{i}].neighbors"
        and err.value.hex == "D16"
        and "every hex or on none" in str(err.value)
    )
    doc["hexes"][i]["neighbors"] = {}  # given, and empty: D16 joins nothing
    assert build_problem(doc).graph


def test_train_distance_in_the_protos_shape_names_the_field():
    """A distance is a whole number or rows; an object with both (the proto's two fields) is an
    error that says which forms it takes."""
    doc = _d16_board()
    doc["trains"][0]["distance"] = {"stops": 3, "rows": [{"nodes": ["city"], "pay": 2, "visit": 2}]}
    with pytest.raises(BoardError) as err:
        build_problem(doc)
    assert err.value.field == "trains[0].distance" and "integer number of stops, or rows" in str(err.value)


def test_not_an_object():
    with pytest.raises(BoardError):
        read_board([1, 2, 3])
    with pytest.raises(BoardError):
        read_board("{not json")


# ---- random damage to real boards: never a crash, never a silent graph ----------------------------

REAL = [state("1830/26855@553"), state("18EU/74045@591"), state("1880/1@835")]


@st.composite
def damaged(draw):
    doc = copy.deepcopy(draw(st.sampled_from(REAL)))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(["top", "hex", "city", "train", "code"]))
        junk = draw(
            st.one_of(
                st.none(),
                st.integers(-3, 99),
                st.text(max_size=6),
                st.booleans(),
                st.lists(st.integers(), max_size=2),
                st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
            )
        )
        if where == "top":
            key = draw(st.sampled_from(["game", "layout", "phase", "corporation", "trains", "hexes"]))
            if draw(st.booleans()):
                doc.pop(key, None)
            else:
                doc[key] = junk
        elif where == "hex" and isinstance(doc.get("hexes"), list) and any(isinstance(h, dict) for h in doc["hexes"]):
            h = draw(st.sampled_from([h for h in doc["hexes"] if isinstance(h, dict)]))
            key = draw(st.sampled_from(["id", "rotation", "code", "neighbors", "cities", "borders", "color"]))
            if draw(st.booleans()):
                h.pop(key, None)
            else:
                h[key] = junk
        elif where == "city" and isinstance(doc.get("hexes"), list):
            with_cities = [
                h
                for h in doc["hexes"]
                if isinstance(h, dict)
                and isinstance(h.get("cities"), list)
                and h["cities"]
                and isinstance(h["cities"][0], dict)
            ]
            if with_cities:
                c = draw(st.sampled_from(with_cities))["cities"][0]
                c[draw(st.sampled_from(["index", "slots", "tokens", "token_types"]))] = junk
        elif (
            where == "train" and isinstance(doc.get("trains"), list) and any(isinstance(t, dict) for t in doc["trains"])
        ):
            t = draw(st.sampled_from([t for t in doc["trains"] if isinstance(t, dict)]))
            t[draw(st.sampled_from(["name", "distance", "id", "multiplier"]))] = junk
        elif where == "code" and isinstance(doc.get("hexes"), list):
            coded = [h for h in doc["hexes"] if isinstance(h, dict) and isinstance(h.get("code"), str) and h["code"]]
            if coded:
                h = draw(st.sampled_from(coded))
                cut = draw(st.integers(0, len(h["code"])))
                garble = draw(st.text(alphabet=";=:,_|abcpt0123456789", max_size=5))
                h["code"] = h["code"][:cut] + garble + h["code"][cut + draw(st.integers(0, 3)) :]
    return doc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged())
def test_damaged_boards_give_an_error_or_a_sound_graph(doc):
    try:
        problem = build_problem(doc)
    except OptimizerError as err:
        assert str(err) and "\n" not in str(err)
        return
    # Accepted: then the graph must be consistent with the board.
    board = problem.board
    for stop in problem.graph.stops:
        assert stop.hex in board.hexes
    for seg in problem.graph.segments:
        assert 0 <= seg.a < problem.n_stops and 0 <= seg.b < problem.n_stops
        for hex_id, index in seg.paths:
            assert index < len(board.hexes[hex_id].tile.paths)
    for h in doc["hexes"]:
        assert 0 <= h.get("rotation", 0) <= 5


# ---- tile lays on a built-in game ------------------------------------------------------------------


def test_tile_lays_board_solves():
    from optimizer import api

    doc = {
        "game": "1830",
        "phase": "3",
        "lays": [{"hex": "F20", "tile": "1", "rotation": 0}],
        "tokens": [{"hex": "G19", "city": 0, "company": "NYNH"}],
        "trains": ["2", "3"],
        "company": "NYNH",
    }
    result = api.solve(json.dumps(doc))
    # New York (40) and one New Haven town (10): the tile's other town faces away.
    assert result["optimal"] and result["revenue"] == 50
    assert result["routes"][0]["stops"] == ["G19._0", "F20._1"]
    doc["lays"][0]["rotation"] = 1  # turned so neither town faces New York
    assert api.solve(json.dumps(doc))["revenue"] == 0


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["lays"][0].update(hex="Z9"), "lays[0].hex"),
        (lambda d: d["lays"][0].update(tile="no-such-tile"), "lays[0].tile"),
        (lambda d: d["lays"][0].update(rotation=6), "lays[0].rotation"),
        (lambda d: d["tokens"][0].update(city=3), "tokens[0].city"),
        (lambda d: d.update(trains=["99"]), "trains[0].name"),
        (lambda d: d.update(phase="Z"), "phase"),
        (lambda d: d.update(game="Monopoly"), "game"),
    ],
)
def test_tile_lays_errors_name_the_field(mutate, field):
    from optimizer import api

    doc = {
        "game": "1830",
        "phase": "3",
        "lays": [{"hex": "F20", "tile": "1", "rotation": 1}],
        "tokens": [{"hex": "G19", "city": 0, "company": "NYNH"}],
        "trains": ["2"],
        "company": "NYNH",
    }
    mutate(doc)
    with pytest.raises(OptimizerError) as err:
        api.solve(json.dumps(doc))
    assert err.value.field == field


def test_compiled_schema_is_current():
    """``optimizer/schema/_validator.py`` is the schema compiled ahead; regenerate it with
    ``python -m optimizer.schema.generate`` after changing the schema."""
    from pathlib import Path

    from optimizer.schema import generate

    assert (Path(generate.__file__).parent / "_validator.py").read_text() == generate.generated_code()


# ---- what the engine draws and the reader now reads (issue 32) --------------------------------


@pytest.mark.parametrize(
    "hex_id, layout, xy",
    [
        ("a12", "flat", (-1, 11)),  # a lower-case letter is a column left of A (NEGATIVE_LETTERS)
        ("b3", "flat", (-2, 2)),
        ("AA-1", "pointy", (-2, 26)),  # a negative number: the row/column before 1
        ("G-1", "flat", (6, -2)),
        ("AZ9", "flat", (51, 8)),
    ],
)
def test_hex_ids_the_engine_accepts(hex_id, layout, xy):
    """``lib/engine/hex.rb`` ``Hex.init_x_y``: letters A..Z, AA..AZ or a..z (negative), a number maybe negative."""
    from optimizer.board.geometry import hex_xy

    assert hex_xy(hex_id, layout) == xy


@pytest.mark.parametrize("reader", [read_board_reference, read_board_fast])
def test_neighbours_computed_across_negative_ids(reader):
    """A flat map with columns a, A and B and rows -1..1: each hex finds the one the engine finds."""
    ids = ["a2", "A1", "A-1", "B2", "B0"]
    doc = _base()
    doc["layout"] = "flat"
    doc["hexes"] = [{"id": h, "code": "", "color": "white"} for h in ids]
    board = reader(json.loads(json.dumps(doc)))
    assert board.hexes["A1"].neighbors == {1: "a2", 3: "A-1", 4: "B0", 5: "B2"}
    assert board.hexes["A-1"].neighbors == {0: "A1", 5: "B0"}


@pytest.mark.parametrize("reader", [read_board_reference, read_board_fast])
def test_train_rows_as_the_engine_reads_them(reader):
    """A row without ``visit`` visits what it pays (18Neb 2+2: ``game/base.rb`` ``visit = h['visit'] || pay``);
    a row of a node type no tile has (1822CAWRS grain_elevator) is read and counts nothing."""
    from optimizer.model.trains import spec_from_train

    doc = _base()
    doc["trains"] = [
        {"name": "2+2", "distance": [{"nodes": ["town"], "pay": 2}, {"nodes": ["city", "offboard"], "pay": 2}]},
        {
            "name": "5G",
            "distance": [
                {"nodes": ["grain_elevator"], "pay": 12, "visit": 12},
                {"nodes": ["city", "offboard", "town"], "pay": 5, "visit": 5},
            ],
        },
    ]
    board = reader(json.loads(json.dumps(doc)))
    assert board.trains[0].distance == [
        {"nodes": ["town"], "pay": 2, "visit": 2},
        {"nodes": ["city", "offboard"], "pay": 2, "visit": 2},
    ]
    plus, grain = (spec_from_train(t) for t in board.trains)
    assert (plus.visit_large, plus.visit_small, plus.pay_large) == (2, 2, 2)
    assert (grain.visit_total, grain.pay_total) == (5, 5)


def test_what_is_truly_malformed_is_still_refused_naming_the_field():
    err = _bad(lambda d: d["hexes"][0].update(id="aa1"))  # one lower-case letter at most (NEGATIVE_LETTERS)
    assert err.field == "hexes[0].id"
    err = _bad(lambda d: d["trains"][0].update(distance=[{"nodes": ["city"]}]))
    assert err.field.startswith("trains[0].distance")
    err = _bad(lambda d: _hex(d, "G19").update(code="city=revenue:40,slots;path=a:0,b:_0"))
    assert err.hex == "G19" and err.field.endswith(".code")
