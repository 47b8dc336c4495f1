"""The 18xx.games engine as the judge of our answers on real board states (issue 32).

For each state (a corpus-format JSONL line: the catalogue's, or the main corpus's), our optimizer
solves it in this process (``optimizer.api.solve``); each answered route becomes the engine's form
(train id, connections = our answer's ``hexes`` chains) and the engine itself prices it:
``clients/ruby/bin/price-routes`` replays each state's recorded game once, in action order, to just
before the state's ``run_routes`` action, and applies every legality check the site would. A state
is **right** when the engine accepts our routes, prices them at exactly our revenue, our answer is
proven optimal, and it earns at least the engine's auto router (``expected.router.revenue``).

    python benchmarks/engine_judge.py [STATES_DIR ...] [--title T ...] [--deadline-ms MS]
                                     [--jobs N] [--json OUT.jsonl] [--markdown]

STATES_DIR defaults to the catalogue's (``../shared/corpus/catalog/states``); the engine is
``$ROUTE18XX_ENGINE`` or ``../shared/engine``. Prints the per-title table: states right / total,
and a one-line reason for each failing state (refused at reading, our error, engine error text,
revenue mismatch ours/engine, not proven, below router).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from optimizer.api import solve  # noqa: E402
from optimizer.board.inputs import input_fields  # noqa: E402
from optimizer.errors import OptimizerError  # noqa: E402

PRICE_ROUTES = ROOT / "clients" / "ruby" / "bin" / "price-routes"
CATALOG_STATES = ROOT.parent / "shared" / "corpus" / "catalog" / "states"
DEFAULT_DEADLINE_MS = 10_000.0  # a state not proven by then fails as "not proven" (1873's nine trains)


def engine_dir() -> Path | None:
    """The engine snapshot: ``$ROUTE18XX_ENGINE``, else ``../shared/engine`` beside the project."""
    for candidate in (os.environ.get("ROUTE18XX_ENGINE"), ROOT.parent / "shared" / "engine"):
        if candidate and (Path(candidate) / "lib" / "engine.rb").is_file():
            return Path(candidate)
    return None


def ruby() -> str | None:
    return shutil.which("ruby")


def read_states(dirs, titles=()) -> list:
    """Every state of the JSONL files under ``dirs`` (``<dir>/<GAME>/*.jsonl``), in a stable order;
    only those of ``titles`` (engine title or game directory) when given."""
    out = []
    for d in dirs:
        for path in sorted(Path(d).glob("*/*.jsonl")):
            with open(path) as handle:
                for line in handle:
                    if line.strip():
                        doc = json.loads(line)
                        if not titles or doc.get("game") in titles or path.parent.name in titles:
                            out.append(doc)
    return out


def fixture_path(state: dict, engine: Path) -> Path:
    return engine / "public" / "fixtures" / state["game_key"] / f"{state['fixture']}.json"


def title_of(state: dict) -> str:
    """The table's row: the state's game directory (``game_key``: one recorded game a title)."""
    return state.get("game_key") or state.get("game", "?")


@dataclass
class Verdict:
    id: str
    title: str
    right: bool = False
    reasons: list = field(default_factory=list)
    ours: int | None = None
    engine: int | None = None
    router: int | None = None
    optimal: bool | None = None
    rules: str | None = None
    unsupported: list = field(default_factory=list)  # what the answer says its rules lack
    solve_ms: float = 0.0
    answer: dict | None = None

    def reason(self) -> str:
        return "; ".join(self.reasons)

    @property
    def silent(self) -> bool:
        """Wrong, and the answer named nothing unsupported: the one kind of failure issue 27 forbids."""
        return not self.right and not self.unsupported


def answer_state(state: dict, deadline_ms: float | None) -> tuple:
    """Our answer, or the reason there is none: ("answer", dict) / ("refused", msg) / ("error", msg)."""
    text = json.dumps(input_fields(state))
    try:
        return "answer", solve(text, deadline_ms=deadline_ms)
    except OptimizerError as err:
        return "refused", str(err).splitlines()[0]
    except Exception as err:  # noqa: BLE001 - a crash is a verdict too, named in the table
        return "error", f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"


def engine_routes(answer: dict, skip_trains=()) -> list:
    """Our routes in the form RunRoutes takes: train id, connections = the hex chains, nodes = the
    stops' signatures (which node a chain starts at where two leave one edge of a hex)."""
    return [
        {"train": r["train"], "connections": r["hexes"], **({"nodes": r["nodes"]} if "nodes" in r else {})}
        for r in answer["routes"]
        if r["train"] not in skip_trains
    ]


def price(requests: list, engine: Path, jobs: int = 1, timeout_s: float = 3600) -> dict:
    """The engine's verdict on each request, by id: one ``price-routes`` process per share of the
    fixtures (each fixture's requests in action order, so that each game is replayed once)."""
    by_fixture = defaultdict(list)
    for req in requests:
        by_fixture[req["fixture"]].append(req)
    shares = [[] for _ in range(max(1, jobs))]
    for i, fixture in enumerate(sorted(by_fixture, key=lambda f: -len(by_fixture[f]))):
        shares[i % len(shares)].extend(sorted(by_fixture[fixture], key=lambda r: r["action_id"]))

    def run(share):
        if not share:
            return {}
        text = "".join(json.dumps(r) + "\n" for r in share)
        proc = subprocess.run(
            [ruby() or "ruby", str(PRICE_ROUTES), str(engine)],
            input=text,
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"price-routes exited {proc.returncode}: {proc.stderr.strip()[-800:]}")
        out = {}
        for line in proc.stdout.splitlines():
            if line.strip():
                verdict = json.loads(line)
                out[verdict["id"]] = verdict
        return out

    verdicts = {}
    with ThreadPoolExecutor(max_workers=len(shares)) as pool:
        for part in pool.map(run, shares):
            verdicts.update(part)
    return verdicts


def judge(
    states: list,
    engine: Path,
    *,
    deadline_ms: float | None = DEFAULT_DEADLINE_MS,
    jobs: int = 1,
    skip_trains=(),
    progress=None,
) -> list:
    """A :class:`Verdict` per state. ``skip_trains`` names train types left out of what the engine
    prices (and out of the revenue compared), e.g. 18EU's Pullman ``P``, whose bonus our answer
    gives as a local run the engine has no form for."""
    verdicts = []
    requests = []
    for state in states:
        expected = state.get("expected") or {}
        router = (expected.get("router") or {}).get("revenue")
        v = Verdict(id=state["id"], title=title_of(state), router=router)
        start = time.monotonic()
        kind, answer = answer_state(state, deadline_ms)
        v.solve_ms = (time.monotonic() - start) * 1000
        if kind == "refused":
            v.reasons.append(f"refused at reading: {answer}")
        elif kind == "error":
            v.reasons.append(f"our error: {answer}")
        else:
            v.answer = answer
            v.rules = answer.get("rules")
            v.unsupported = list(answer.get("unsupported") or [])
            v.optimal = bool(answer["optimal"])
            skipped = [r for r in answer["routes"] if r["name"] in skip_trains]
            v.ours = int(answer["revenue"]) - sum(int(r["revenue"]) for r in skipped)
            requests.append(
                {
                    "id": state["id"],
                    "fixture": str(fixture_path(state, engine)),
                    "action_id": int(state["action_id"]),
                    "routes": engine_routes(answer, {r["train"] for r in skipped}),
                    "entity": state["corporation"]["id"],
                }
            )
        verdicts.append(v)
        if progress:
            progress(len(verdicts), len(states))
    priced = price(requests, engine, jobs) if requests else {}
    wanted = {r["id"]: r["entity"] for r in requests}
    for v in verdicts:
        if v.answer is None:
            continue
        got = priced.get(v.id)
        if got is None:
            v.reasons.append("engine gave no verdict")
        elif "error" in got:
            v.reasons.append(f"engine error: {' '.join(got['error'].split())}")
        else:
            v.engine = int(got["revenue"])
            if got.get("entity") not in (None, wanted[v.id]):
                v.reasons.append(f"engine's entity {got['entity']}, not {wanted[v.id]}")
            if v.engine != v.ours:
                v.reasons.append(f"revenue mismatch: ours {v.ours}, engine {v.engine}")
        if not v.optimal:
            v.reasons.append(f"not proven (deadline {deadline_ms:g} ms)")
        if v.router is not None and v.ours is not None and v.ours < v.router:
            v.reasons.append(f"below router: ours {v.ours}, router {v.router}")
        v.right = not v.reasons
    return verdicts


def table(verdicts: list, before: dict | None = None) -> str:
    """The per-title table (Markdown): states right / total, and each failing state's reason; with
    ``before`` (state id -> right, from an earlier ``--json``), that run's figure beside it."""
    by_title = defaultdict(list)
    for v in verdicts:
        by_title[v.title].append(v)
    right = sum(v.right for v in verdicts)
    whole = sum(all(v.right for v in vs) for vs in by_title.values())
    head = f"**{right} of {len(verdicts)} states right; {whole} of {len(by_title)} titles right on every state.**"
    silent = sum(v.silent for v in verdicts)
    head += f" {silent} wrong states name nothing unsupported."
    if before is not None:
        was = sum(bool(before.get(v.id)) for v in verdicts)
        head += f" (Before: {was} of {len(verdicts)}.)"
    lines = [
        head,
        "",
        "| title | right / total | "
        + ("before | " if before is not None else "")
        + "rules | failing states (reason) |",
        "|---|---|---|---|" + ("---|" if before is not None else ""),
    ]
    for title in sorted(by_title, key=str.lower):
        vs = by_title[title]
        rules = sorted({v.rules for v in vs if v.rules})
        named = max((len(v.unsupported) for v in vs), default=0)
        if named:
            rules.append(f"{named} unsupported named")
        same = defaultdict(list)  # one line per reason, naming the states (by action) it covers
        for v in vs:
            if not v.right:
                same[v.reason()].append(v.id.rsplit("@", 1)[-1])
        fails = "<br>".join(f"@{', @'.join(ids)}: {reason}" for reason, ids in same.items())
        ok = sum(v.right for v in vs)
        was = f"{sum(bool(before.get(v.id)) for v in vs)} / {len(vs)} | " if before is not None else ""
        lines.append(f"| {title} | {ok} / {len(vs)} | {was}{', '.join(rules) or '-'} | {fails} |")
    return "\n".join(lines)


def reason_counts(verdicts: list) -> dict:
    """How many failing states (and titles) each kind of reason covers."""
    kinds = defaultdict(lambda: [0, set()])
    for v in verdicts:
        for r in v.reasons:
            kind = r.split(":", 1)[0] if not r.startswith("not proven") else "not proven"
            kinds[kind][0] += 1
            kinds[kind][1].add(v.title)
    return {k: (n, len(t)) for k, (n, t) in sorted(kinds.items(), key=lambda kv: -kv[1][0])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("states", nargs="*", help="directories of <GAME>/*.jsonl (default: the catalogue's)")
    parser.add_argument("--title", action="append", default=[], help="only this title (game dir or engine title)")
    parser.add_argument("--engine", help="engine snapshot (default $ROUTE18XX_ENGINE or ../shared/engine)")
    parser.add_argument("--deadline-ms", type=float, default=DEFAULT_DEADLINE_MS, help="per state; 0: none")
    parser.add_argument("--jobs", type=int, default=1, help="engine processes in parallel")
    parser.add_argument("--skip-train", action="append", default=[], help="a train type the engine does not price")
    parser.add_argument("--json", help="write each state's verdict to this JSONL file")
    parser.add_argument("--before", help="an earlier run's --json file: its figures beside this run's")
    args = parser.parse_args(argv)

    engine = Path(args.engine) if args.engine else engine_dir()
    if engine is None or not (engine / "lib" / "engine.rb").is_file():
        print("error: no engine (give --engine or set ROUTE18XX_ENGINE)", file=sys.stderr)
        return 2
    if ruby() is None:
        print("error: no ruby on PATH", file=sys.stderr)
        return 2
    dirs = args.states or [CATALOG_STATES]
    states = read_states(dirs, set(args.title))
    if not states:
        print(f"error: no states under {', '.join(map(str, dirs))}", file=sys.stderr)
        return 2
    start = time.monotonic()
    verdicts = judge(states, engine, deadline_ms=args.deadline_ms or None, jobs=args.jobs, skip_trains=args.skip_train)
    elapsed = time.monotonic() - start
    if args.json:
        with open(args.json, "w") as out:
            for v in verdicts:
                row = {k: getattr(v, k) for k in ("id", "title", "right", "ours", "engine", "router", "optimal")}
                row.update(rules=v.rules, unsupported=v.unsupported, solve_ms=round(v.solve_ms, 3), reasons=v.reasons)
                out.write(json.dumps(row) + "\n")
    before = None
    if args.before:
        with open(args.before) as handle:
            before = {row["id"]: row["right"] for row in map(json.loads, filter(str.strip, handle))}
    print(table(verdicts, before))
    print()
    for kind, (n, titles) in reason_counts(verdicts).items():
        print(f"- {kind}: {n} states, {titles} titles")
    slowest = max(verdicts, key=lambda v: v.solve_ms)
    print(f"\n{len(verdicts)} states judged in {elapsed:.0f} s; slowest solve {slowest.id} {slowest.solve_ms:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
