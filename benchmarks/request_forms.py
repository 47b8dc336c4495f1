"""A structured ``Board`` against ``state_json`` for the same boards, in process: CPU ms per answer.

    python benchmarks/request_forms.py                 # every public corpus state, twice per form
    python benchmarks/request_forms.py --states 40 --rounds 1

Each form goes through what the gRPC servicer does with a request, stage by stage, on the request's
wire bytes: parse (``OptimizeRequest.FromString``, grpc's part), read (``service.read_state``: the
limits and, for a ``Board``, the board itself), solve (:func:`optimizer.api.solve`: reading a
document where it is one, graph, search, answer) and encode (the ``OptimizeResponse`` bytes). Before
each form the caches are cleared; then every state is answered twice (pass 1: the game's hexes
meet for the first time; pass 2: every board seen before, as a client asking again). The forms:

- ``state_json``: the JSON text, as ``read_state`` reads it in this tree;
- ``board``: the structured message, as ``read_state`` reads it in this tree;
- ``board, long way``: the message as a document first (``convert.board_to_state``, the limits on
  the document, the API's dict reader): what the server did before the structured fast path;
- ``json, text reader``: the JSON text handed to the API as it is (its text reader, no limits
  checked): the floor for ``state_json`` once the server reads it that way.

Figures are CPU time of this process (``time.process_time``), the best of ``--rounds`` rounds for
each form and pass (other load on the machine only adds). Exit status 1 if any answer differs
between the forms or is below the best known revenue.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from optimizer import api  # noqa: E402
from optimizer.bench.suites import corpus_cases  # noqa: E402
from optimizer.board import state as board_state  # noqa: E402
from optimizer.graph import problem as problem_cache  # noqa: E402
from optimizer.graph import walks  # noqa: E402
from server.generated.route18xx.v1 import route_optimizer_pb2 as pb  # noqa: E402
from server.runtime import limits  # noqa: E402
from server.translation import checks, convert, service  # noqa: E402

STAGES = ("parse", "read", "solve", "encode")
BOUNDS = limits.Limits()


def cpu_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "?"


def read_long_way(request):
    """The structured board as the server read it before: a document, the limits on it, the dict."""
    board = request.board
    checks.check_state_size(board.ByteSize(), BOUNDS, "board")
    doc = convert.board_to_state(board)
    checks.check_counts(doc, BOUNDS)
    checks.check_numbers(doc, BOUNDS)
    return service.load_state(doc, "board")


def as_text(doc: dict) -> pb.OptimizeRequest:
    return pb.OptimizeRequest(state_json=json.dumps(doc))


def as_board(doc: dict) -> pb.OptimizeRequest:
    return pb.OptimizeRequest(board=convert.state_to_board(doc))


def read_state(request):
    return service.read_state(request, BOUNDS)


FORMS = {  # name: (the request of a document, what reads it for api.solve)
    "state_json": (as_text, read_state),
    "board": (as_board, read_state),
    "board, long way": (as_board, read_long_way),
    "json, text reader": (as_text, lambda request: request.state_json),
}


def clear_caches() -> None:
    board_state.clear_cache()
    walks.clear_cache()
    problem_cache.clear_cache()


def answer(wire: bytes, read) -> tuple:
    """(CPU seconds per stage, revenue) of one request's bytes to the response's bytes."""
    clock = time.process_time
    t0 = clock()
    request = pb.OptimizeRequest.FromString(wire)
    t1 = clock()
    value = read(request)
    t2 = clock()
    result = api.solve(value)
    t3 = clock()
    pb.OptimizeResponse(solution=convert.solution_to_proto(result)).SerializeToString()
    t4 = clock()
    return (t1 - t0, t2 - t1, t3 - t2, t4 - t3), result["revenue"]


def run_form(wires: list, read) -> list:
    """Per pass: [per-answer stage times], and the revenues."""
    clear_caches()
    passes = []
    for _ in range(2):
        times, revenues = [], []
        for wire in wires:
            stages, revenue = answer(wire, read)
            times.append(stages)
            revenues.append(revenue)
        passes.append((times, revenues))
    return passes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, metavar="N", help="only every k-th state, N in all (a quick run)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per form; the best of each is shown")
    args = parser.parse_args(argv)
    cases = corpus_cases()
    if args.states:
        cases = cases[:: max(1, len(cases) // args.states)][: args.states]
    wires = {form: [make(c.doc).SerializeToString() for c in cases] for form, (make, _) in FORMS.items()}
    best: dict = {}
    revenues: dict = {}
    for _ in range(args.rounds):
        for form, (_, read) in FORMS.items():
            for number, (times, got) in enumerate(run_form(wires[form], read), 1):
                totals = [sum(t) for t in times]
                row = {
                    "total": statistics.fmean(totals),
                    "p50": statistics.median(totals),
                    **{stage: statistics.fmean(t[k] for t in times) for k, stage in enumerate(STAGES)},
                }
                key = (form, number)
                if key not in best or row["total"] < best[key]["total"]:
                    best[key] = row
                revenues.setdefault(key, got)
    wrong = []
    reference = revenues[("state_json", 1)]
    for key, got in revenues.items():
        wrong += [f"{key[0]} pass {key[1]}: {c.id} {g} != {r}" for c, g, r in zip(cases, got, reference) if g != r]
    wrong += [f"below best: {c.id}" for c, r in zip(cases, reference) if c.best_known is not None and r < c.best_known]
    print(f"machine: {os.cpu_count()} cores, {cpu_name()}; load average {os.getloadavg()[0]:.1f} at the end")
    print(
        f"{len(cases)} corpus states x 2 passes per form, caches cleared before each form; CPU ms per answer, "
        f"best of {args.rounds} round(s)"
    )
    print(
        f"{'form':<18}{'pass':>5}" + "".join(f"{s:>9}" for s in STAGES) + f"{'total':>9}{'p50':>8}{'vs state_json':>15}"
    )
    for (form, number), row in best.items():
        ratio = row["total"] / best[("state_json", number)]["total"]
        print(
            f"{form:<18}{number:>5}"
            + "".join(f"{row[s] * 1000:>9.3f}" for s in STAGES)
            + f"{row['total'] * 1000:>9.3f}{row['p50'] * 1000:>8.3f}{ratio:>14.2f}x"
        )
    for line in wrong[:5]:
        print(f"    {line}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
