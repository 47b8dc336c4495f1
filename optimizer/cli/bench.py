"""``bench``: run a benchmark suite (in process, on a server or on a Dask cluster); print latency, throughput, checks."""

from __future__ import annotations

import json
import sys

from ..errors import OptimizerError
from .progress import Progress

DEFAULT_PLOT = "bench-scaling.svg"


def add_parser(sub):
    p = sub.add_parser(
        "bench",
        help="measure the optimiser on a suite of board states",
        description="Solve every state of a suite, check each answer against the best known revenue, and print "
        "p50/p90/p99/max per group (game, or synthetic size class), states per second, how many were "
        "proven optimal and the ratio to the 18xx.games auto router's recorded time. An answer below "
        "the best known revenue is a failure (exit status 1).",
    )
    p.add_argument(
        "suite",
        nargs="?",
        default="all",
        metavar="SUITE",
        help="corpus, beyond (1889, 18Chesapeake, 1846, 18AL), synthetic, hard (late boards, long "
        "trains), all (default: corpus and synthetic), or a JSONL file of board states",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object (groups, totals, failures, each state)")
    p.add_argument(
        "--deadline-ms",
        type=float,
        metavar="MS",
        help="each answer within MS milliseconds (default: none; synthetic boards 60 s)",
    )
    p.add_argument("--repeat", type=int, default=1, metavar="N", help="solve each state N times; times are medians")
    p.add_argument(
        "--target",
        metavar="HOST:PORT[,HOST:PORT...]",
        help="measure a gRPC server instead of this process; several addresses (or a DNS name with several "
        "addresses) are replicas, called in turn (round robin)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="spread the suite over a Dask cluster: a scheduler address (tcp://host:8786) or local:N "
        'for N local worker processes (needs pip install "route18xx[cluster]")',
    )
    p.add_argument(
        "--concurrency",
        type=int,
        default=1,
        metavar="N",
        help="N threads, each with its own client, solving at once (default: 1)",
    )
    p.add_argument(
        "--plot",
        metavar="FILE.svg",
        help=f"write the scaling report (synthetic boards) to FILE.svg (default for all: {DEFAULT_PLOT})",
    )
    p.add_argument("--core", choices=("compiled", "python"), help="search to use in process (default: compiled)")
    p.add_argument(
        "--stages",
        action="store_true",
        help="in process: time each stage (decode, validate, read, graph, search, encode) on the "
        "reference path and on the fast path (first board of a game, next board, same board "
        "again), side by side in one run",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from ..bench import runner
    from ..bench.plot import write_scaling_svg
    from ..bench.suites import VENDORED, corpus_dir, load_suite

    if args.repeat < 1 or args.concurrency < 1:
        raise OptimizerError("--repeat and --concurrency must be at least 1", field="(arguments)")
    if args.scheduler and (args.target or args.concurrency != 1):
        raise OptimizerError(
            "--scheduler runs the suite on the cluster's workers; it takes neither --target nor --concurrency",
            field="--scheduler",
        )
    if args.target and args.core:
        raise OptimizerError(
            "--core chooses the search in process; a --target server chooses its own", field="(arguments)"
        )
    cases = load_suite(args.suite)
    if args.suite in ("corpus", "all") and corpus_dir() is None:
        print(
            f"note: no corpus found (shared/corpus beside the project, or $OPTIMIZER_CORPUS); measuring the "
            f"vendored states in {VENDORED} instead",
            file=sys.stderr,
        )
    if not cases:
        raise OptimizerError(f"suite {args.suite!r} has no states", field="suite")
    if args.stages:
        if args.target or args.scheduler:
            raise OptimizerError(
                "--stages times the stages in process; a --target server or a --scheduler cluster times its own",
                field="(arguments)",
            )
        from ..bench.stages import run_stages

        return run_stages(
            cases,
            args.suite,
            repeat=args.repeat,
            core=args.core,
            deadline_ms=args.deadline_ms,
            as_json=args.json,
            progress=Progress,
        )
    progress = Progress(len(cases) * args.repeat, f"bench {args.suite}")
    try:
        if args.scheduler:
            from .. import cluster

            with cluster.connect(args.scheduler) as client:
                run_ = runner.measure_on_cluster(
                    cases,
                    client,
                    repeat=args.repeat,
                    deadline_ms=args.deadline_ms,
                    core=args.core,
                    on_done=progress.step,
                )
        else:
            solver = runner.RemoteSolver(args.target) if args.target else runner.LocalSolver(args.core)
            run_ = runner.measure(
                cases,
                solver,
                repeat=args.repeat,
                concurrency=args.concurrency,
                deadline_ms=args.deadline_ms,
                on_done=progress.step,
            )
    finally:
        progress.close()
    summary = runner.summarise(run_)
    summary["suite"] = args.suite
    scale = runner.scaling(summary)
    has_scaling = bool(scale["track"] or scale["trains"])
    plot = args.plot or (DEFAULT_PLOT if args.suite == "all" else None)
    if plot and has_scaling:
        caption = f"{summary['machine']['cpus']} cpus, {summary['solver']}, median of {args.repeat} run(s) per board"
        write_scaling_svg(scale, plot, caption)
    if has_scaling:
        summary["scaling"] = scale
    elif plot:
        print("note: no plot written: the suite has no synthetic boards", file=sys.stderr)
    if args.json:
        print(json.dumps(summary))
    else:
        print(runner.format_table(summary))
        if has_scaling:
            print(runner.format_scaling(scale))
            if plot:
                print(f"plot: {plot}")
    return 1 if summary["failures"] else 0
