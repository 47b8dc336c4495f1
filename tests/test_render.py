"""The picture, read back: every hex, every token's company and every route's hexes are drawn.

The SVG is parsed with xml.etree and checked through the ``class`` and ``data-*`` attributes the
renderer puts on what it draws, on real boards of all five games (pointy and flat).
"""

import json
import math
import re
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from optimizer.board import geometry
from optimizer.board.state import read_board
from optimizer.cli import main
from optimizer.errors import OptimizerError
from optimizer.render import render_svg, write_svg
from optimizer.render.svg import S, _Frame, company_colour

from .corpus import ids, states

SVG = "{http://www.w3.org/2000/svg}"
STATES = states()
GAMES = sorted({s["game"] for s in STATES})
# A spread of states of every game (the whole corpus takes about a minute).
SAMPLE = list(STATES) if len(STATES) <= 24 else list(STATES[::12])
SAMPLE += [next(s for s in STATES if s["game"] == g) for g in GAMES if g not in {s["game"] for s in SAMPLE}]
WITH_ROUTES = [
    (s, which) for s in SAMPLE for which in ("router", "human") if s["expected"].get(which, {}).get("routes")
]


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root


def classes(el) -> set:
    return set((el.get("class") or "").split())


def route_hexes(route) -> set:
    return {h for chain in route["hexes"] for h in (chain[1:] if chain[0] == "local" else chain)}


def test_every_game_is_sampled():
    assert GAMES == ["1830", "1880", "1880 Romania", "1894", "18EU"]
    assert {s["layout"] for s in SAMPLE} == {"pointy", "flat"}


@pytest.mark.parametrize("doc", SAMPLE, ids=ids(SAMPLE))
def test_every_hex_and_every_token_is_drawn(doc):
    root = parse(render_svg(doc))
    drawn = [el.get("data-hex") for el in root.iter(SVG + "polygon") if "hex" in classes(el)]
    assert sorted(drawn) == sorted(h["id"] for h in doc["hexes"])
    expected = Counter()
    for h in doc["hexes"]:
        for k, city in enumerate(h.get("cities") or []):
            for company in city.get("tokens") or []:
                if company:
                    expected[(f"{h['id']}._{city.get('index', k)}", company)] += 1
    shown = Counter()
    for city in root.iter(SVG + "g"):
        if "city" in classes(city):
            for token in city.iter(SVG + "g"):
                if "token" in classes(token):
                    assert token.find(SVG + "text").text == token.get("data-company")  # the company is written
                    shown[(city.get("data-node"), token.get("data-company"))] += 1
    assert shown == expected
    assert not [g for g in root.iter(SVG + "g") if "route" in classes(g)]


@pytest.mark.parametrize("doc, which", WITH_ROUTES, ids=[f"{s['id']}-{w}" for s, w in WITH_ROUTES])
def test_routes_are_drawn_on_their_track(doc, which):
    """Each chain resolves to track (nothing drawn hex to hex), the pieces drawn cover exactly the
    hexes of the route's chains, and its stops are ringed."""
    routes = doc["expected"][which]["routes"]
    root = parse(render_svg(doc, routes))
    groups = {g.get("id"): g for g in root.iter(SVG + "g") if "route" in classes(g)}
    assert len(groups) == len(routes)
    rings = {
        g.get("data-route"): g for g in root.iter(SVG + "g") if "route-stops" in classes(g) and g.get("data-route")
    }
    for i, route in enumerate(routes, 1):
        group = groups[f"route-{i}"]
        assert group.get("data-train") == route["train"]
        pieces = [el for el in group.iter() if "route-path" in classes(el)]
        assert not [el for el in pieces if "unmatched" in classes(el)]
        assert {el.get("data-hex") for el in pieces} == route_hexes(route)
        assert set(group.get("data-hexes").split()) == route_hexes(route)
        ringed = {c.get("data-stop") for c in rings[f"route-{i}"]}
        assert ringed == set(route.get("visited") or []) | set(route.get("stops") or [])
    legend = [el.text for el in root.iter(SVG + "text") if el.text and el.text.isdigit()]
    assert str(sum(r["revenue"] for r in routes)) in legend


@pytest.mark.parametrize("layout", ["pointy", "flat"])
def test_edges_meet_their_neighbours(layout):
    """Edge k of a hex and edge k+3 of the neighbour across it are one side: the same midpoint,
    the same two corners, on a real board of each layout."""
    doc = next(s for s in STATES if s["layout"] == layout)
    board = read_board(doc)
    frame = _Frame(layout)
    sides = 0
    for hx in board.hexes.values():
        for edge, other in geometry.neighbour_ids(board.hexes, layout)[hx.id].items():
            a, b = frame.centre(hx.id), frame.centre(other)
            assert math.dist(frame.edge_mid(a, edge), frame.edge_mid(b, geometry.opposite(edge))) < 1e-6
            ends = sorted(frame.edge_ends(a, edge))
            for p, q in zip(ends, sorted(frame.edge_ends(b, geometry.opposite(edge)))):
                assert math.dist(p, q) < 1e-6
            sides += 1
    assert sides > 200


@pytest.mark.parametrize("layout", ["pointy", "flat"])
def test_track_joins_across_sides(layout):
    """In the SVG, where both hexes of a side have track to it, their paths end at one point: the
    middle of that side."""
    doc = [s for s in STATES if s["layout"] == layout][-1]  # late in a game: much track
    board = read_board(doc)
    root = parse(render_svg(doc))
    ends: dict = {}
    for el in root.iter(SVG + "path"):
        if el.get("data-path") is not None:
            numbers = re.findall(r"-?\d+(?:\.\d+)?", el.get("d"))
            for x, y in (numbers[:2], numbers[-2:]):
                ends.setdefault(el.get("data-hex"), set()).add((float(x), float(y)))
    joined = 0
    for hx in board.hexes.values():
        for edge, other in hx.neighbors.items():
            there = board.hexes[other]
            if edge in hx.tile.exits(hx.rotation) and geometry.opposite(edge) in there.tile.exits(there.rotation):
                meet = ends[hx.id] & ends[other]
                assert len(meet) == 1, (hx.id, edge, other)
                centre = geometry.hex_center(hx.id, layout, S)
                assert abs(math.dist(meet.pop(), centre) - S * 3**0.5 / 2) < 0.2
                joined += 1
    assert joined > 40


def test_company_colours_are_stable_and_distinct():
    assert company_colour("PRR") == company_colour("PRR")
    assert re.fullmatch(r"#[0-9a-f]{6}", company_colour("B&O"))
    assert len({company_colour(c) for c in ("PRR", "NYC", "B&O", "C&O", "ERIE", "NYNH", "B&M", "CPR")}) == 8


def test_text_is_escaped():
    doc = json.loads(json.dumps(STATES[0]))
    doc["hexes"][0]["location_name"] = "A & <B>"
    root = parse(render_svg(doc, [], title="x < y & z"))
    texts = "".join(el.text or "" for el in root.iter())
    assert "A & <B>" in texts and "x < y & z" in texts


@pytest.mark.parametrize(
    "routes, message",
    [
        ([{"train": "2-0", "hexes": [["Z99", "A1"]]}], "hex 'Z99' is not on the board"),
        ([{"train": "2-0", "hexes": [["local", "Z99"]]}], "hex 'Z99' is not on the board"),
        ([{"train": "2-0", "hexes": [[]]}], "a chain must be a non-empty list"),
        ([{"train": "2-0"}], "a route needs 'hexes'"),
        ({"train": "2-0"}, "routes must be a list"),
    ],
)
def test_bad_routes_are_one_line_errors(routes, message):
    with pytest.raises(OptimizerError, match=re.escape(message)) as err:
        render_svg(STATES[0], routes)
    assert "\n" not in str(err.value)


def test_stop_not_on_the_board():
    doc = STATES[0]
    chain = doc["expected"]["router"]["routes"][0]["hexes"][0]
    with pytest.raises(OptimizerError, match="stop 'Z99._0' is not on the board"):
        render_svg(doc, [{"train": "2-0", "hexes": [chain], "stops": ["Z99._0"]}])


# ---- the command line ------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    doc = next(
        s
        for s in STATES
        if s["game"] == "18EU" and any(c[0] == "local" for r in s["expected"]["human"]["routes"] for c in r["hexes"])
    )
    state = tmp_path / "state.json"
    state.write_text(json.dumps(doc))
    routes = tmp_path / "routes.json"
    routes.write_text(json.dumps(doc["expected"]["human"]["routes"]))
    return doc, state, routes


def test_cli_render_with_routes(files, tmp_path):
    doc, state, routes = files
    out = tmp_path / "board.svg"
    assert main(["render", str(state), "--routes", str(routes), "-o", str(out)]) == 0
    root = parse(out.read_text())
    assert len([g for g in root.iter(SVG + "g") if "route" in classes(g)]) == len(doc["expected"]["human"]["routes"])


def test_cli_render_takes_solve_json(files, tmp_path, capsys):
    doc, state, _ = files
    assert main(["solve", str(state), "--json"]) == 0
    solved = tmp_path / "solved.json"
    solved.write_text(capsys.readouterr().out)
    out = tmp_path / "board.svg"
    assert main(["render", str(state), "--routes", str(solved), "-o", str(out)]) == 0
    root = parse(out.read_text())
    result = json.loads(solved.read_text())
    groups = [g for g in root.iter(SVG + "g") if "route" in classes(g)]
    assert [g.get("data-train") for g in groups] == [r["train"] for r in result["routes"]]


def test_cli_render_bare_board_to_stdout(files, capsys):
    _, state, _ = files
    assert main(["render", str(state), "-o", "-"]) == 0
    root = parse(capsys.readouterr().out)
    assert not [g for g in root.iter(SVG + "g") if "route" in classes(g)]


def test_cli_solve_svg(tmp_path, capsys):
    out = tmp_path / "b.svg"
    assert main(["solve", "--svg", str(out)]) == 0
    assert f"picture: {out}" in capsys.readouterr().out
    root = parse(out.read_text())
    assert [g for g in root.iter(SVG + "g") if "route" in classes(g)]


def test_write_svg_to_a_file(tmp_path):
    out = tmp_path / "x.svg"
    write_svg(STATES[0], None, str(out), title="t")
    parse(out.read_text())


@pytest.mark.parametrize(
    "make_args, message",
    [
        (lambda d, s, r: ["render", str(d / "missing.json"), "-o", str(d / "x.svg")], "cannot read"),
        (
            lambda d, s, r: ["render", str(s), "--routes", str(d / "missing.json"), "-o", str(d / "x.svg")],
            "cannot read",
        ),
        (lambda d, s, r: ["render", str(s), "--routes", str(r), "-o", str(d / "x.svg")], "is not on the board"),
        (lambda d, s, r: ["render", str(s), "-o", str(d / "no" / "such" / "dir.svg")], "cannot write"),
    ],
)
def test_cli_errors_are_one_line_and_exit_2(files, tmp_path, capsys, make_args, message):
    _, state, routes = files
    routes.write_text(json.dumps([{"train": "8-0", "hexes": [["Z99", "A10"]]}]))
    assert main(make_args(tmp_path, state, routes)) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_cli_routes_file_of_the_wrong_shape(files, tmp_path, capsys):
    _, state, routes = files
    routes.write_text(json.dumps({"revenue": 10}))
    assert main(["render", str(state), "--routes", str(routes), "-o", str(tmp_path / "x.svg")]) == 2
    assert "expected a list of routes" in capsys.readouterr().err


def test_a_chain_with_no_track_is_drawn_hex_to_hex():
    """A route from elsewhere (hexes without track between them) is still shown, marked as such."""
    doc = STATES[0]
    empty = [hx.id for hx in read_board(doc).hexes.values() if not hx.tile.paths]
    root = parse(render_svg(doc, [{"train": "x", "hexes": [empty[:2]]}]))
    loose = [el for el in root.iter(SVG + "polyline") if "unmatched" in classes(el)]
    assert [el.get("data-hexes").split() for el in loose] == [empty[:2]]
