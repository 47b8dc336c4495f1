"""The Python API: board state in, routes and revenue out, as plain JSON-ready dicts.

These are the shapes the CLI prints with ``--json`` and the gRPC service returns; the server and
the CLI only translate to and from them.
"""

from __future__ import annotations

import json
import time
from typing import overload

from .board.state import Board, board_by_key, board_from_keyed_hexes, read_board, read_board_text
from .core import CancelToken, SearchResult
from .core import search as core_search
from .errors import OptimizerError, decoded_json
from .games import canonical_name, families_of, game_data, game_names, rules_source
from .games.coverage import known_titles, unsupported_rules
from .games.tilelays import board_from_tile_lays, hex_choices, is_tile_lays
from .graph.engine_names import chain_id, node_signature
from .graph.problem import Problem, shared_problem
from .revenue import pullman_pick
from .rules.check import check_routes
from .rules.routes import routes_document


@overload
def load_state(source: Board) -> Board: ...
@overload
def load_state(source: dict | str | bytes | bytearray) -> dict: ...
def load_state(source) -> dict | Board:
    """A board state from a dict, a :class:`Board` or JSON text; never a file (the CLI reads those).

    A tile-lay board on a built-in game (see :mod:`optimizer.games.tilelays`) is turned into a
    board-state document here, whichever form it came in.
    """
    if isinstance(source, (dict, Board)):
        doc = source
    elif isinstance(source, (str, bytes, bytearray)):
        doc = decoded_json(source, field="(document)")
        if not isinstance(doc, dict):
            raise OptimizerError(f"a board state is a JSON object, not {type(doc).__name__}", field="(document)")
    else:
        raise OptimizerError(
            f"a board state is a dict, a Board or JSON text, not {type(source).__name__} (read files first)",
            field="(document)",
        )
    return board_from_tile_lays(doc) if isinstance(doc, dict) and is_tile_lays(doc) else doc


def load_routes(source, field: str = "routes") -> list:
    """Routes from a list, an object holding one under ``routes`` (a :func:`solve` answer) or JSON
    text of either; never a file. ``field`` names the input in errors."""
    return routes_document(source, field)


def read_state_text(text, check=None) -> Board | None:
    """A board-state document's JSON text read in one step in C (msgspec), or None when it needs
    the long way (:func:`load_state`): a tile-lay board, or one the fast reader leaves to the
    reference reader to read or refuse. ``check(rest, hex_texts)`` sees it before its hexes are
    read (see :func:`optimizer.board.state.read_board_text`)."""
    return read_board_text(text, check)


def read_keyed_board(key, read) -> Board | None:
    """The board read before under ``key`` (equal keys for equal boards: a structured message's
    bytes, with the limits it passed), else ``read()``'s, remembered when the reader shares it. A
    server keys whole boards this way so that the same board again costs one lookup."""
    return board_by_key(key, read)


def read_keyed_hexes(rest: dict, keys, hex_document) -> Board | None:
    """A board whose hexes come with a key each (equal keys for equal hexes: a hex message's bytes):
    a hex seen before costs one lookup, a new one is read from ``hex_document(i)`` (None: leave this
    board to the long way). ``rest`` is the document less its hexes, already within the caller's
    limits. None for anything the long way (:func:`load_state` then the reader) must read or refuse."""
    return board_from_keyed_hexes(rest, keys, hex_document)


def _board(source) -> Board:
    if isinstance(source, (str, bytes)):  # JSON text goes straight to the fast reader, when it can
        board = read_board_text(source)
        if board is not None:
            return board
    doc = load_state(source)
    return doc if isinstance(doc, Board) else read_board(doc)


def route_json(problem: Problem, found) -> dict:
    """One train's route: its stops (route order), paid stops, revenue, track as the engine's chain
    ids and stops as its node names (optimizer/graph/engine_names.py)."""
    graph = problem.graph
    names = problem.engine_names
    chains = []
    for a, d in zip(found.stops, found.dsegs):
        j = int(problem.seg_by_dir[d])
        chain = names.get(("seg", j))
        if chain is None:
            chain = names[("seg", j)] = chain_id(problem.board, graph.segments[j])
        chains.append(list(chain) if graph.segments[j].a == a else chain[::-1])
    if len(found.stops) == 1 and not found.dsegs:  # a local run, as the engine writes it
        chains = [["local", graph.stops[found.stops[0]].hex]]
    return {
        "train": problem.trains[found.train].id,
        "name": problem.trains[found.train].name,
        "revenue": int(found.revenue),
        "stops": [problem.stop_id(s) for s in found.stops],
        "paid": [problem.stop_id(s) for s in found.paid],
        "hexes": chains,
        "nodes": [_node_name(problem, s) for s in found.stops],
    }


def _node_name(problem: Problem, s: int) -> str:
    name = problem.engine_names.get(("stop", s))
    if name is None:
        stop = problem.graph.stops[s]
        name = problem.engine_names[("stop", s)] = node_signature(problem.board, stop.hex, stop.node)
    return name


def pullman_json(problem: Problem, result: SearchResult) -> list:
    """The Pullman, as the route the corpus records: the city it doubles, as a local run."""
    pick = pullman_pick(problem, result.routes) if problem.bonus_trains and result.pullman else None
    if pick is None:
        return []
    stop = problem.graph.stops[pick[1]]
    train = problem.bonus_trains[0]
    return [
        {
            "train": train.id,
            "name": train.name,
            "revenue": pick[0],
            "stops": [stop.id],
            "paid": [stop.id],
            "hexes": [["local", stop.hex]],
            "nodes": [_node_name(problem, pick[1])],
        }
    ]


def result_json(problem: Problem, result: SearchResult, state_id=None) -> dict:
    routes = [route_json(problem, r) for r in sorted(result.routes, key=lambda r: r.train)]
    routes += pullman_json(problem, result)
    fixed = int(problem.fixed_revenue) if routes or not problem.fixed_needs_route else 0
    return {
        "id": state_id if state_id is not None else problem.board.id,
        "revenue": int(result.revenue) + fixed,  # what the company earns with any run too
        "optimal": bool(result.optimal),
        "bound": int(result.bound) + (max(int(problem.fixed_revenue), 0) if problem.fixed_needs_route else fixed),
        "routes": routes,
        "elapsed_ms": round(result.elapsed_ms, 3),
        "stats": {
            "nodes": int(result.nodes),
            "stopped_by": result.stopped_by,
            "core": result.core,
            "stops": problem.n_stops,
            "segments": len(problem.graph.segments),
        },
        "rules": problem.rules.title,  # the game's title, or "generic" for a game without rules here
        "revenue_rules": families_of(type(problem.rules)),  # the families its data file declares
        # the title's rules we know we do not model (games/coverage.json): never a silent wrong number
        "unsupported": list(problem.rules.open_gaps(unsupported_rules(problem.board.game))),
    }


def solve(
    state,
    *,
    deadline_ms: float | None = None,
    node_budget: int | None = None,
    cancel: CancelToken | None = None,
    on_improve=None,
    core: str | None = None,
) -> dict:
    """The best routes for the operating company's trains.

    Parameters
    ----------
    state : dict, Board or str
        A board state (see ``optimizer/schema/board.schema.json``), as a dict, a read
        :class:`~optimizer.board.state.Board` or JSON text; or a tile-lay board on a built-in game.
        Never a path: the caller reads files.
    deadline_ms : float, optional
        Answer by then with the best so far (``optimal: false`` and the proven ``bound``).
    node_budget : int, optional
        Stop after this many search nodes.
    cancel : CancelToken, optional
        Cancel from another thread.
    on_improve : callable, optional
        Called with each better provisional answer (a dict of this function's shape).
    core : {"compiled", "python"}, optional
        The search to use; default from ``OPTIMIZER_CORE``, else compiled.

    Returns
    -------
    dict
        ``{"id", "revenue", "optimal", "bound", "routes": [{"train", "name", "revenue", "stops",
        "paid", "hexes"}], "elapsed_ms", "stats"}``.

    Raises
    ------
    OptimizerError
        For a malformed board, naming the field and hex.
    """
    start = time.monotonic()
    board = _board(state)
    read = time.monotonic()
    problem = shared_problem(board)
    built = time.monotonic()
    remaining = None
    if deadline_ms is not None:
        remaining = max(0.0, deadline_ms - (time.monotonic() - start) * 1000)
    callback = None
    if on_improve is not None:

        def callback(partial):
            on_improve(result_json(problem, partial))

    result = core_search(
        problem, deadline_ms=remaining, node_budget=node_budget, cancel=cancel, on_improve=callback, core=core
    )
    out = result_json(problem, result)
    out["elapsed_ms"] = round((time.monotonic() - start) * 1000, 3)
    out["stats"].update(
        read_ms=round((read - start) * 1000, 3),
        graph_ms=round((built - read) * 1000, 3),
        search_ms=round(result.elapsed_ms, 3),
    )
    return out


def check(
    state, routes, *, with_optimum: bool = False, deadline_ms: float | None = None, cancel: CancelToken | None = None
) -> dict:
    """Check a player's routes: legal or not, why, stops paid and revenue (see :mod:`optimizer.rules.check`).

    ``state`` is what :func:`solve` takes; ``routes`` what :func:`load_routes` takes: a list of
    ``{"train", "hexes"}`` or ``{"train", "stops"}``. With ``with_optimum`` the answer holds the board's best routes too,
    under ``optimum``, found within ``deadline_ms`` (counted from this call) and ``cancel``
    as :func:`solve` finds them.
    """
    start = time.monotonic()
    board = _board(state)
    out = check_routes(board, load_routes(routes))
    if with_optimum:
        remaining = None if deadline_ms is None else max(0.0, deadline_ms - (time.monotonic() - start) * 1000)
        out["optimum"] = solve(board, deadline_ms=remaining, cancel=cancel)
    return out


def warm_up() -> list:
    """Solve one shipped example board of each game that has one (the package's vendored states);
    returns the games warmed. A service does this once at start, so that no client's first board
    of a game pays for compiling the game's static data (map, tiles, walks)."""
    from importlib import resources

    warmed = []
    for name in ("states.jsonl", "beyond.jsonl"):
        for line in filter(str.strip, resources.files("optimizer.boards").joinpath(name).read_text().splitlines()):
            game = json.loads(line).get("game")
            if game not in warmed:
                solve(line)
                warmed.append(game)
    return warmed


def games() -> list:
    """The built-in games: their trains, phases, where their rules come from ("module", "data" or
    "generic"; any other game is answered with the generic rules) and what of them is unsupported."""
    out = []
    for name in game_names():
        data = game_data(name)
        source, families = rules_source(name)
        out.append(
            {
                "title": name,
                "layout": data.get("layout"),
                "rules": source,
                "revenue_rules": families,
                "unsupported": list(unsupported_rules(name)),
                "trains": [
                    {"name": t["name"], "distance": t["distance"], "price": t.get("price"), "count": t.get("count")}
                    for t in data.get("trains", [])
                ],
                "phases": [_phase_json(p) for p in data.get("phases", [])],
            }
        )
    return out


def other_titles() -> list:
    """The titles we know of beyond the built-in games (the catalogue the engine judges): answered
    with the generic rules, each with the rules of it we do not model."""
    built_in = {name.lower() for name in game_names()}
    return [
        {"title": title, "rules": "generic", "unsupported": list(unsupported_rules(title))}
        for title in known_titles()
        if title.lower() not in built_in
    ]


def _phase_json(phase: dict) -> dict:
    """A phase as the games listing gives it: ``train_limit`` where one number holds for every
    company, ``train_limits`` by company type where the engine gives one per type (1822: minors 2,
    majors 4; the gRPC message carries ``train_limit`` only)."""
    limit = phase.get("train_limit")
    out = {"name": phase["name"], "tiles": phase.get("tiles", []), "train_limit": limit}
    if isinstance(limit, dict):
        out.update(train_limit=None, train_limits=dict(limit))
    return out


def game_setup(title: str) -> dict:
    """What a board editor needs of a built-in game: its layout, phases, trains, companies (with
    their colours), tile supply and the printed names of its places; and the empty board to
    start from, as a tile-lay document (see :mod:`optimizer.games.tilelays`)."""
    data = game_data(title)
    companies = [
        {k: c[k] for k in ("id", "name", "color", "text_color", "coordinates") if c.get(k) is not None}
        for c in data.get("corporations", [])
    ]
    phases = [{"name": str(p["name"]), "tiles": p.get("tiles", [])} for p in data["phases"]]
    return {
        "title": canonical_name(title),
        "layout": data["layout"],
        "phases": phases,
        "trains": [
            {"name": str(t["name"]), "distance": t["distance"], "count": t.get("count")} for t in data["trains"]
        ],
        "companies": companies,
        "tiles": [{"name": t["name"], "color": t["color"], "count": t.get("count")} for t in data["tiles"]],
        "places": {h["id"]: h["location_name"] for h in data["hexes"] if h.get("location_name")},
        "start": {
            "game": canonical_name(title),
            "phase": phases[0]["name"],
            "company": companies[0]["id"] if companies else None,
            "trains": [],
            "lays": [],
            "tokens": [],
        },
    }


def tile_choices(board, hex_id: str) -> dict:
    """What may go on one hex of a tile-lay board: see :func:`optimizer.games.tilelays.hex_choices`."""
    return hex_choices(load_state_document(board), hex_id)


def load_state_document(source) -> dict:
    """A tile-lay document from a dict or JSON text (a board built by taps); anything else is an error."""
    doc = source
    if isinstance(source, (str, bytes, bytearray)):
        try:
            doc = json.loads(source)
        except (ValueError, RecursionError) as err:
            raise OptimizerError(f"not valid JSON: {str(err)[:200]}", field="board") from None
    if not isinstance(doc, dict) or "hexes" in doc or not isinstance(doc.get("game"), str):
        raise OptimizerError("board: a tile-lay document {game, phase, company, trains, lays, tokens}", field="board")
    return doc


TRAIN_KINDS = ("standard", "plus", "express", "unlimited", "local")
