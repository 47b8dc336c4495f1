"""Each document is read in one place.

The API reads dicts, read boards and JSON text, never files; the command line reads files and
standard input; routes are read by :mod:`optimizer.rules.routes` for the checker, the picture and
the service; a tile's printed ``loc``/``hide`` are read by the tile parser alone.
"""

import json
import subprocess
import sys

import pytest

from optimizer import api
from optimizer.board.state import read_board
from optimizer.board.tiles import parse_code
from optimizer.core import CancelToken
from optimizer.errors import OptimizerError, RoutesError
from optimizer.rules.routes import routes_document

from .corpus import state

PY = [sys.executable, "-m", "optimizer"]
DOC = "1830/26855@553"


def hard_board() -> dict:
    """A real late 1894 board given eight D trains: seconds of search, far beyond a short deadline."""
    doc = state("1894/green_city_upgrades@1086")
    doc["trains"] = [dict(doc["trains"][0], id=f"D-{i}") for i in range(8)]
    return doc


# ---- the API reads no files ------------------------------------------------------------------------


def test_the_api_never_reads_a_file(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state(DOC)))
    with pytest.raises(OptimizerError, match="not valid JSON") as err:
        api.solve(str(path))  # text, and not JSON: never taken for a file name
    assert err.value.field == "(document)"
    with pytest.raises(OptimizerError, match="read files first"):
        api.solve(path)
    with pytest.raises(OptimizerError, match="not valid JSON"):
        api.check("-", [])  # nor for standard input


def test_the_api_takes_a_dict_a_board_or_json_text():
    doc = state(DOC)
    want = api.solve(doc)
    for given in (read_board(doc), json.dumps(doc), json.dumps(doc).encode()):
        got = api.solve(given)
        assert (got["id"], got["revenue"], got["routes"]) == (want["id"], want["revenue"], want["routes"])
    assert api.check(read_board(doc), [])["legal"] is True


def test_check_with_optimum_honours_the_deadline():
    out = api.check(hard_board(), [], with_optimum=True, deadline_ms=150)
    assert out["optimum"]["optimal"] is False
    assert out["optimum"]["stats"]["stopped_by"] == "deadline"
    assert out["optimum"]["elapsed_ms"] < 5000


def test_check_with_optimum_honours_cancel():
    token = CancelToken()
    token.cancel()
    out = api.check(hard_board(), [], with_optimum=True, cancel=token)
    assert out["optimum"]["optimal"] is False
    assert out["optimum"]["stats"]["stopped_by"] == "cancelled"


# ---- routes documents ---------------------------------------------------------------------------------


def test_a_routes_document_is_a_list_or_an_answer_holding_one():
    routes = [{"train": "4-0", "hexes": [["I15", "H16"]]}]
    assert routes_document(routes) == routes
    assert routes_document(json.dumps(routes)) == routes
    assert routes_document(json.dumps({"revenue": 10, "routes": routes})) == routes
    assert api.load_routes({"routes": routes}) == routes


@pytest.mark.parametrize(
    "text, message",
    [
        ("[{", "routes are not valid JSON"),
        ('{"train": "x"}', 'expected a list of routes or an object with "routes"'),
        ("7", 'expected a list of routes or an object with "routes"'),
    ],
)
def test_a_bad_routes_document_names_its_field(text, message):
    with pytest.raises(RoutesError, match=message) as err:
        routes_document(text, field="routes_json")
    assert err.value.field == "routes_json"


def test_checker_and_picture_share_one_reading_of_chains():
    """The same wrong chain is the same one-line error in the checker and in the picture."""
    from optimizer.render import render_svg

    doc = state(DOC)
    bad = [{"train": "4-0", "hexes": [["I15", "Q99"]]}]
    errors = []
    for call in (lambda: api.check(doc, bad), lambda: render_svg(doc, bad)):
        with pytest.raises(RoutesError) as err:
            call()
        errors.append((str(err.value), err.value.field, err.value.hex))
    assert (
        errors[0]
        == errors[1]
        == ("routes[0].hexes[0][1]: hex 'Q99' is not on the board", "routes[0].hexes[0][1]", "Q99")
    )


def test_a_local_run_is_a_route_of_its_own():
    route = {"train": "4-0", "hexes": [["I15", "H16"], ["local", "H16"]]}
    with pytest.raises(RoutesError, match="a local run is") as err:
        api.check(state(DOC), [route])
    assert err.value.field == "routes[0].hexes"


# ---- the tile parser keeps what the picture needs -----------------------------------------------------


def test_the_tile_parser_keeps_loc_and_hide():
    tile = parse_code(
        "city=revenue:20,loc:1.5;town=revenue:10,loc:center;offboard=revenue:40,hide:1;offboard=revenue:30,hide:0"
    )
    assert [n.loc for n in tile.nodes] == [1.5, None, None, None]
    assert [n.hide for n in tile.nodes] == [False, False, True, False]


# ---- the command line owns files and standard input --------------------------------------------------


def run(args, stdin=None):
    return subprocess.run(PY + args, input=stdin, capture_output=True, text=True, timeout=120)


def test_cli_reads_standard_input_for_dash(tmp_path):
    doc = state(DOC)
    solved = run(["solve", "-", "--json"], stdin=json.dumps(doc))
    assert solved.returncode == 0, solved.stderr
    answer = json.loads(solved.stdout)
    assert answer["revenue"] == doc["expected"]["router"]["revenue"]
    routes = tmp_path / "routes.json"
    routes.write_text(solved.stdout)  # a solve --json answer is a routes document
    checked = run(["check", "-", "--routes", str(routes), "--json"], stdin=json.dumps(doc))
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["revenue"] == answer["revenue"]


def test_cli_render_takes_routes_inline(tmp_path):
    doc = state(DOC)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(doc))
    inline = json.dumps([{"train": "4-0", "hexes": [["I15", "H16"]]}])
    out = run(["render", str(path), "--routes", inline, "-o", "-"])
    assert out.returncode == 0, out.stderr
    assert 'data-train="4-0"' in out.stdout
