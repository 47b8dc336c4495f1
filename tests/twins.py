"""The three searches of one problem, side by side: the twin tests' common step."""

from __future__ import annotations

from optimizer.core import compiled, reference


def searches_agree(problem) -> tuple:
    """The reference, nested and packing searches' results on ``problem``, after checking that each
    is proven and that they found the same revenue (their routes may differ where several tie)."""
    ref = reference.search(problem)
    nested = compiled.search(problem, strategy="nested")
    packing = compiled.search(problem, strategy="packing")
    assert ref.optimal and nested.optimal and packing.optimal
    assert nested.revenue == packing.revenue == ref.revenue, (nested.routes, ref.routes)
    return ref, nested, packing
