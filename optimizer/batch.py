"""One line of a JSONL batch in, one answer out: the same whether this process or a Dask worker runs it.

A batch answers every non-blank line, in order: the :func:`optimizer.api.solve` dict, or for a line
that is not a board ``{"id", "line", "error"}`` (``line`` counts non-blank lines from 1), so that
one bad line costs one answer and never the run, whatever its bytes. :func:`read_lines` reads a
batch one line at a time, so that a batch of any length runs in the memory of its longest line.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from . import api
from .errors import OptimizerError

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 64 * 2**20  # a longer line is answered as an error, and skipped without being held
_CHUNK = 2**20


@dataclass(frozen=True)
class Limits:
    """What bounds each search of a batch (see :func:`optimizer.api.solve`): the API's own arguments,
    one layer below the server's :class:`server.runtime.limits.Limits` (what one call may cost)."""

    deadline_ms: float | None = None
    node_budget: int | None = None
    core: str | None = None


def solve_line(line, number: int, limits: Limits) -> dict:
    """The answer to one line (text or bytes): the solve dict, or ``{"id", "line", "error"}`` when
    the line is bad (not UTF-8, not JSON, not a board, a number out of range: anything)."""
    state_id = None
    try:
        if isinstance(line, (bytes, bytearray)):
            line = line.decode("utf-8")
        doc = json.loads(line)
        state_id = doc.get("id") if isinstance(doc, dict) else None
        return api.solve(doc, deadline_ms=limits.deadline_ms, node_budget=limits.node_budget, core=limits.core)
    except UnicodeDecodeError as err:
        return {"id": None, "line": number, "error": f"not UTF-8 text: {err}"}
    except json.JSONDecodeError as err:
        return {"id": state_id, "line": number, "error": f"not valid JSON: {err}"}
    except RecursionError:
        return {"id": state_id, "line": number, "error": "nested too deeply to read"}
    except OptimizerError as err:
        return {"id": state_id, "line": number, "error": str(err)}
    except Exception as err:  # one line's failure must not cost the others their answers
        log.exception("line %d failed", number)
        return {"id": state_id, "line": number, "error": f"internal error: {type(err).__name__}: {str(err)[:200]}"}


def solve_lines(lines, limits: Limits, first: int = 1) -> list:
    """The answers to the non-blank ``lines``, numbered from ``first``."""
    texts = [line for line in lines if line.strip()]
    return [solve_line(text, number, limits) for number, text in enumerate(texts, first)]


class LineTooLong(bytes):
    """What :func:`read_lines` yields for a line over :data:`MAX_LINE_BYTES`: its first bytes."""


def read_lines(stream, limit: int = MAX_LINE_BYTES):
    """The non-blank lines of a binary stream, one at a time; a line longer than ``limit`` bytes
    comes as a :class:`LineTooLong` (its start), the rest of it read and dropped."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            head = LineTooLong(line[:100])
            while (rest := stream.readline(_CHUNK)) and not rest.endswith(b"\n"):
                pass
            yield head
        elif line.strip():
            yield line


def answer_lines(lines, limits: Limits):
    """The answers to :func:`read_lines`' lines, in order, as each is solved."""
    for number, line in enumerate(lines, 1):
        if isinstance(line, LineTooLong):
            yield {"id": None, "line": number, "error": f"line longer than {MAX_LINE_BYTES // 2**20} MiB"}
        else:
            yield solve_line(line, number, limits)
