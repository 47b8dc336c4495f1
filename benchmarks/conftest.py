"""pytest-benchmark over every public corpus state and the synthetic boards (docs/benchmarks.md).

Each state is measured at each stage of the pipeline, in a group named after its game (or
synthetic size class) and the stage, so that the default ``--benchmark-group-by=group`` compares
like with like. Answers are checked as they are measured: a revenue below the best known fails.

With ``--benchmark-disable`` (the project's default) every benchmark runs once, untimed, on the
quick synthetic boards only: a smoke test that takes seconds.
"""

from __future__ import annotations

import pytest

from optimizer import api
from optimizer.bench.suites import beyond_cases, corpus_cases, corpus_dir, in_ci, synthetic_cases
from optimizer.board.state import read_board
from optimizer.core import search
from optimizer.graph.problem import build_problem

STAGES = ("read board", "build graph", "search", "end to end")


def pytest_addoption(parser):
    group = parser.getgroup("route18xx benchmarks")
    group.addoption(
        "--bench-rounds",
        type=int,
        default=3,
        metavar="N",
        help="timed rounds per benchmark (default: 3; each state is one benchmark per stage)",
    )
    group.addoption(
        "--bench-synthetic",
        choices=("quick", "full"),
        help="synthetic boards: quick (small ones) or full (the size classes of `bench synthetic`); "
        "default: full when timing, quick with --benchmark-disable",
    )


def pytest_configure(config):
    if in_ci() and corpus_dir() is None:
        raise pytest.UsageError(
            "the corpus is missing (shared/corpus beside the project, or $OPTIMIZER_CORPUS) "
            "and CI=true: the corpus benchmarks must run on it"
        )


def _timing(config) -> bool:
    return not config.getoption("benchmark_disable") or config.getoption("benchmark_enable")


def pytest_generate_tests(metafunc):
    if "stage" in metafunc.fixturenames:
        metafunc.parametrize("stage", STAGES)
    if "corpus_case" in metafunc.fixturenames:
        cases = corpus_cases()  # the vendored states (package data) when there is no corpus (never in CI)
        metafunc.parametrize("corpus_case", cases, ids=[c.id for c in cases])
    if "beyond_case" in metafunc.fixturenames:
        cases = beyond_cases()  # 1889, 18Chesapeake, 1846, 18AL: apart from the main corpus
        metafunc.parametrize("beyond_case", cases, ids=[c.id for c in cases])
    if "synthetic_case" in metafunc.fixturenames:
        mode = metafunc.config.getoption("bench_synthetic") or ("full" if _timing(metafunc.config) else "quick")
        cases = synthetic_cases(quick=mode == "quick")
        metafunc.parametrize("synthetic_case", cases, ids=[c.id for c in cases])


@pytest.fixture(scope="session", autouse=True)
def warm_up():
    """One untimed answer first, so that no benchmark pays for imports and the schema compiling."""
    from optimizer.bench.synthetic import synthetic_board

    api.solve(synthetic_board(0, track=0.1))


@pytest.fixture
def run_stage(benchmark, request):
    """Measure one stage of one case, prepared up to the stage before it, and check the answer."""
    rounds = max(1, request.config.getoption("bench_rounds"))

    def run(case, stage):
        benchmark.group = f"{case.group}: {stage}"
        benchmark.extra_info.update(state=case.id, best_known=case.best_known)
        if stage == "read board":
            fn, args = read_board, (case.doc,)
        elif stage == "build graph":
            fn, args = build_problem, (read_board(case.doc),)
        elif stage == "search":
            fn, args = (lambda problem: search(problem, deadline_ms=case.deadline_ms)), (build_problem(case.doc),)
        else:
            fn, args = (lambda doc: api.solve(doc, deadline_ms=case.deadline_ms)), (case.doc,)
        result = benchmark.pedantic(fn, args=args, rounds=rounds, iterations=1)
        revenue = result["revenue"] if isinstance(result, dict) else getattr(result, "revenue", None)
        if revenue is not None:
            benchmark.extra_info["revenue"] = int(revenue)
            if case.best_known is not None and revenue < case.best_known:
                pytest.fail(f"{case.id}: revenue {revenue} is below the best known {case.best_known}")

    return run
