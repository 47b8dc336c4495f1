"""The three searches of one problem, side by side: the twin tests' common step; and a catalogue
state's answer against the engine's price, the family tests' common step."""

from __future__ import annotations

from optimizer import api
from optimizer.core import compiled, reference
from optimizer.graph.problem import build_problem


def searches_agree(problem) -> tuple:
    """The reference, nested and packing searches' results on ``problem``, after checking that each
    is proven and that they found the same revenue (their routes may differ where several tie)."""
    ref = reference.search(problem)
    nested = compiled.search(problem, strategy="nested")
    packing = compiled.search(problem, strategy="packing")
    assert ref.optimal and nested.optimal and packing.optimal
    assert nested.revenue == packing.revenue == ref.revenue, (nested.routes, ref.routes)
    return ref, nested, packing


def assert_answer_at_engine_price(doc: dict, engine: int) -> dict:
    """Our answer to a catalogue state is proven at the engine's price and at least its router's (where
    one is recorded); the checker finds its routes legal at that price; the nested and the packing
    search agree. Returns the answer, for a test's own checks."""
    answer = assert_priced_as_the_engine(doc, engine)
    assert answer["revenue"] >= (doc["expected"]["router"]["revenue"] or 0)
    problem = build_problem(doc)
    nested = compiled.search(problem, strategy="nested")
    packing = compiled.search(problem, strategy="packing")
    assert nested.optimal and packing.optimal and nested.revenue == packing.revenue == engine
    return answer


def assert_priced_as_the_engine(doc: dict, engine: int) -> dict:
    """Our answer is proven at the engine's price, and the checker finds its routes legal at that price."""
    answer = api.solve(doc)
    assert answer["optimal"] and answer["revenue"] == engine
    checked = api.check(doc, [{"train": r["train"], "hexes": r["hexes"]} for r in answer["routes"]])
    assert checked["legal"] and checked["revenue"] == engine
    return answer
