"""One line of a JSONL batch in, one answer out: the same whether this process or a Dask worker runs it.

A batch answers every non-blank line, in order: the :func:`optimizer.api.solve` dict, or for a line
that is not a board ``{"id", "line", "error"}`` (``line`` counts non-blank lines from 1), so that
one bad line costs one answer and never the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from . import api
from .errors import OptimizerError


@dataclass(frozen=True)
class Limits:
    """What bounds each search of a batch (see :func:`optimizer.api.solve`)."""

    deadline_ms: float | None = None
    node_budget: int | None = None
    core: str | None = None


def solve_line(line: str, number: int, limits: Limits) -> dict:
    """The answer to one line: the solve dict, or ``{"id", "line", "error"}`` when the line is bad."""
    state_id = None
    try:
        doc = json.loads(line)
        state_id = doc.get("id") if isinstance(doc, dict) else None
        return api.solve(doc, deadline_ms=limits.deadline_ms, node_budget=limits.node_budget, core=limits.core)
    except json.JSONDecodeError as err:
        return {"id": state_id, "line": number, "error": f"not valid JSON: {err}"}
    except OptimizerError as err:
        return {"id": state_id, "line": number, "error": str(err)}


def solve_lines(lines, limits: Limits, first: int = 1) -> list:
    """The answers to the non-blank ``lines``, numbered from ``first``."""
    texts = [line for line in lines if line.strip()]
    return [solve_line(text, number, limits) for number, text in enumerate(texts, first)]
