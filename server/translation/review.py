"""The page's review of a whole game, when the server was started with an engine (``serve --engine``).

``POST /page/review`` takes a game's export (the JSON the 18xx.games Tools tab gives) and answers
newline-delimited JSON as :func:`optimizer.review.review` goes: first ``{"count", "title"}``, then
one row per ``run_routes`` action (as ``route18xx review --json`` prints them), then ``{"summary",
"svg"}`` (the totals per company and the picture). ``GET /page/review`` says whether this server can
review (``{"review": bool}``); the page at ``/review`` uploads a game and shows the answer as it comes.
One review runs at a time per worker: each replays a game in a Ruby process.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import anyio
from google.rpc import code_pb2, status_pb2
from starlette.responses import FileResponse, JSONResponse, StreamingResponse
from starlette.routing import Route

from optimizer.review import ReviewError, review, summary
from optimizer.review.chart import review_svg

from ..runtime.httpcontext import Aborted
from .httpstatus import error_response, read_body, status_json

STATIC = Path(__file__).resolve().parent.parent / "static"  # server/static
MAX_GAME_BYTES = 32 * 1024 * 1024
NDJSON = "application/x-ndjson"


def _status(code: int, message: str) -> status_pb2.Status:
    return status_pb2.Status(code=code, message=message)


def game_title(data: dict) -> str:
    return f"{data.get('title', '?')} · game {data.get('id', '?')}"


def routes(engine: str | None) -> list:
    """The review's routes; without an engine they answer that there is none."""
    one_at_a_time = anyio.Semaphore(1)  # released by the response's stream, another task

    async def page(request):
        return FileResponse(STATIC / "review.html")

    async def available(request):
        return JSONResponse({"review": engine is not None})

    async def review_game(request):
        if engine is None:
            return error_response(
                _status(code_pb2.FAILED_PRECONDITION, "this server reviews no games: start it with serve --engine DIR")
            )
        try:
            body = await read_body(request, MAX_GAME_BYTES)
        except Aborted as err:
            return error_response(err.status)
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("actions"), list):
            return error_response(
                _status(code_pb2.INVALID_ARGUMENT, 'the body is not a game\'s export (a JSON object with "actions")')
            )
        with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as handle:
            handle.write(body)
        path = Path(handle.name)
        counted: list = []
        rows = review(path, engine, on_start=counted.append)
        step = lambda: next(rows, None)  # noqa: E731 (one step of the generator, on a worker thread)

        def finish():
            rows.close()  # ends the Ruby process if the client went away
            os.unlink(path)

        await one_at_a_time.acquire()
        try:
            first = await anyio.to_thread.run_sync(step)
        except ReviewError as err:
            await anyio.to_thread.run_sync(finish)
            one_at_a_time.release()
            return error_response(_status(code_pb2.INVALID_ARGUMENT, str(err)))
        except BaseException:
            await anyio.to_thread.run_sync(finish)
            one_at_a_time.release()
            raise

        async def lines():
            done = []
            try:
                yield json.dumps({"count": counted[0] if counted else 0, "title": game_title(data)}) + "\n"
                row = first
                while row is not None:
                    done.append(row)
                    yield json.dumps(row) + "\n"
                    row = await anyio.to_thread.run_sync(step)
                yield json.dumps({"summary": summary(done), "svg": review_svg(done, game_title(data))}) + "\n"
            except ReviewError as err:
                yield json.dumps({"error": status_json(_status(code_pb2.INVALID_ARGUMENT, str(err)))}) + "\n"
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(finish)
                one_at_a_time.release()

        return StreamingResponse(lines(), media_type=NDJSON)

    return [
        Route("/review", page, methods=["GET"]),
        Route("/page/review", available, methods=["GET"]),
        Route("/page/review", review_game, methods=["POST"]),
    ]
