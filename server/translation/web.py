"""The players' page: static files from the package, the example boards, and the board as SVG.

The page (``server/static``: plain HTML, CSS and JS modules, no build step, nothing from a CDN)
talks to the same HTTP/JSON RPCs as any client. The only routes of its own are the example boards
(one real state per game from those the package ships; the 1830 one is the embedded default board)
and ``POST /page/render``: the board and routes drawn by :mod:`optimizer.render`, as ``route18xx
render`` draws them, within the limits, admission and deadline of the optimiser's calls
(:meth:`server.translation.service.RouteOptimizerService.render_json`). For the board editor: the built-in
games (``GET /page/games``, ``GET /page/games/{title}``: a game's setup) and ``POST /page/tiles``,
the tiles that fit a hex with their pictures (a small body, read within a short time: its work is
a millisecond or two whatever it holds).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path

import anyio
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from optimizer import api
from optimizer.errors import OptimizerError
from optimizer.render import render_tile_svg

from ..runtime.httpcontext import Aborted
from .errors import invalid_argument_status
from .httpstatus import error_response, read_body
from .jsonform import ANSWER_FIELDS

STATIC = Path(__file__).resolve().parent.parent / "static"  # server/static
MAX_TILES_BODY = 256 * 1024  # a tile-lay board of every hex of the largest map is under 10 kB
TILES_BODY_TIMEOUT_S = 10.0
MAX_LAYS = 1000  # lays and tokens each: more than any map has hexes
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


async def games(request):
    """The built-in games a board can be built for, by taps: title and layout."""
    return JSONResponse([{"title": g["title"], "layout": g["layout"]} for g in api.games()])


async def game_setup(request):
    """A game's phases, trains, companies, tile supply, place names and empty board (``api.game_setup``)."""
    try:
        return JSONResponse(api.game_setup(request.path_params["title"]))
    except OptimizerError as err:
        return JSONResponse({"code": 5, "message": str(err)}, status_code=404)


async def tiles(request):
    """``{"board": <tile-lay document>, "hex": id}`` -> what may go on that hex (``api.tile_choices``),
    each tile that fits with a picture of it at its first rotation."""
    try:
        body = await read_body(request, MAX_TILES_BODY, timeout_s=TILES_BODY_TIMEOUT_S)
        try:
            obj = json.loads(body)
            board, hex_id = obj["board"], obj["hex"]
            if not isinstance(board, dict):
                raise TypeError(type(board).__name__)
        except (ValueError, TypeError, KeyError, RecursionError):
            raise OptimizerError(
                'the body must be {"board": <tile-lay document>, "hex": "F20"}', field="(body)"
            ) from None
        for name in ("lays", "tokens"):
            if isinstance(board.get(name), list) and len(board[name]) > MAX_LAYS:
                raise OptimizerError(f"{name}: more than {MAX_LAYS}", field=name)
        answer = await anyio.to_thread.run_sync(lambda: _choices(board, hex_id))
    except OptimizerError as err:
        return error_response(invalid_argument_status(err, "board"))
    except Aborted as err:
        return error_response(err.status)
    return JSONResponse(answer)


def _choices(board: dict, hex_id) -> dict:
    answer = api.tile_choices(board, hex_id)
    setup = api.game_setup(board["game"])
    colours = next((p["tiles"] for p in setup["phases"] if p["name"] == str(board.get("phase"))), ())
    for entry in answer["fits"]:
        entry["svg"] = render_tile_svg(
            setup["layout"], entry["code"], entry["color"], entry["rotations"][0], colours, entry["tile"]
        )
    return answer


async def index(request):
    return FileResponse(STATIC / "index.html")


def routes(render) -> list:
    """The page's routes; ``render`` is the endpoint of ``POST /page/render`` (:func:`server.translation.http.render_endpoint`:
    bounded as a work call is, by the optimiser's limits, admission and deadline)."""
    return [
        Route("/", index, methods=["GET"]),
        Route("/page/examples", examples, methods=["GET"]),
        Route("/page/examples/{name}", example_board, methods=["GET"]),
        Route("/page/render", render, methods=["POST"]),
        Route("/page/games", games, methods=["GET"]),
        Route("/page/games/{title}", game_setup, methods=["GET"]),
        Route("/page/tiles", tiles, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
