"""The players' page: static files from the package, the example boards, and the board as SVG.

The page (``server/static``: plain HTML, CSS and JS modules, no build step, nothing from a CDN)
talks to the same HTTP/JSON RPCs as any client. The only routes of its own are the example boards
(one real state per game from those the package ships; the 1830 one is the embedded default board)
and ``POST /page/render``: the board and routes drawn by :mod:`optimizer.render`, as ``route18xx
render`` draws them, within the limits, admission and deadline of the optimiser's calls
(:meth:`server.service.RouteOptimizerService.render_json`).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path

from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .jsonform import ANSWER_FIELDS

STATIC = Path(__file__).resolve().parent / "static"
# name -> a real state of the states shipped in optimizer/boards/states.jsonl, one per game;
# "default" is the embedded default board (optimizer/boards/default.json).
EXAMPLES = {
    "default": None,
    "1880": "1880/1@835",
    "1880-romania": "1880Romania/1880_romania_game_end_final_phase@200",
    "1894": "1894/green_city_upgrades@146",
    "18eu": "18EU/74045@591",
}


@cache
def example(name: str) -> dict:
    """An example board, input fields only (the shipped states carry the corpus's answers too)."""
    boards = resources.files("optimizer.boards")
    if EXAMPLES[name] is None:
        return json.loads(boards.joinpath("default.json").read_text())
    for line in boards.joinpath("states.jsonl").read_text().splitlines():
        doc = json.loads(line)
        if doc["id"] == EXAMPLES[name]:
            return _input_only(doc)
    raise KeyError(EXAMPLES[name])


def _input_only(doc: dict) -> dict:
    out = {k: v for k, v in doc.items() if k not in ANSWER_FIELDS["board"]}
    out["corporation"] = {k: v for k, v in doc["corporation"].items() if k not in ANSWER_FIELDS["corporation"]}
    out["hexes"] = [{k: v for k, v in h.items() if k not in ANSWER_FIELDS["hex"]} for h in doc["hexes"]]
    return out


async def examples(request):
    """The example boards: name, game, company and state id of each."""
    out = []
    for name in EXAMPLES:
        doc = example(name)
        out.append({"name": name, "game": doc["game"], "company": doc["corporation"]["id"], "id": doc.get("id")})
    return JSONResponse(out)


async def example_board(request):
    name = request.path_params["name"]
    if name not in EXAMPLES:
        return JSONResponse({"code": 5, "message": f"no example board {name!r}"}, status_code=404)
    return JSONResponse(example(name))


async def index(request):
    return FileResponse(STATIC / "index.html")


def routes(render) -> list:
    """The page's routes; ``render`` is the endpoint of ``POST /page/render`` (:func:`server.http.render_endpoint`:
    bounded as a work call is, by the optimiser's limits, admission and deadline)."""
    return [
        Route("/", index, methods=["GET"]),
        Route("/page/examples", examples, methods=["GET"]),
        Route("/page/examples/{name}", example_board, methods=["GET"]),
        Route("/page/render", render, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
