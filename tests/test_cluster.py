"""Batch runs on a real Dask cluster: the same output as in process, and no line lost when a worker dies.

The cluster is a real ``distributed.LocalCluster`` of two worker processes (one thread each);
the CLI runs in its own process and reaches it by its ``tcp://`` address, as on a real cluster.
The batch is the whole public corpus (the vendored states without it, never under CI=true),
with bad lines mixed in: each must come back as ``{id, line, error}`` at its place.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import distributed  # the test extra installs the cluster extra: these tests never skip
import pytest

from optimizer.bench.suites import VENDORED, corpus_dir
from optimizer.cli import main

from .corpus import require_corpus

BAD_LINES = ["this is not JSON\n", "[1, 2]\n", '{"id": "nowhere", "game": "no such game"}\n']
RUN_TIMEOUT_S = 300


def corpus_files() -> list:
    found = require_corpus()
    return sorted(str(p) for p in (found / "states").glob("*/*.jsonl")) if found else [str(VENDORED)]


def corpus_url() -> str:
    """The corpus files as an fsspec URL with a glob (what the workers read for themselves)."""
    found = corpus_dir()
    return f"file://{found}/states/*/*.jsonl" if found else f"file://{VENDORED}"


def solve_batch(batch: str, *extra: str, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "optimizer", "solve", "--batch", batch, "--json", *extra],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )


def comparable(stdout: str) -> list:
    """The answers without what depends on timing (elapsed_ms and the stages' *_ms)."""
    answers = []
    for line in stdout.splitlines():
        answer = json.loads(line)
        answer.pop("elapsed_ms", None)
        if "stats" in answer:
            answer["stats"] = {k: v for k, v in answer["stats"].items() if not k.endswith("_ms")}
        answers.append(answer)
    return answers


@pytest.fixture(scope="module")
def cluster():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            scheduler_port=0,
            dashboard_address="127.0.0.1:0",
        ) as local,
        distributed.Client(local) as client,
    ):
        yield local.scheduler_address, client


@pytest.fixture(scope="module")
def corpus_batch(tmp_path_factory):
    """The corpus as one JSONL file, a bad line after the first state, two more further on."""
    lines = [line for f in corpus_files() for line in open(f) if line.strip()]
    lines.insert(1, BAD_LINES[0])
    lines.insert(len(lines) // 2, BAD_LINES[1])
    lines.append(BAD_LINES[2])
    path = tmp_path_factory.mktemp("batch") / "corpus.jsonl"
    path.write_text("".join(lines))
    return path, len(lines), [n for n, line in enumerate(lines, 1) if line in BAD_LINES]


@pytest.fixture(scope="module")
def in_process(corpus_batch):
    run = solve_batch(str(corpus_batch[0]))
    assert run.returncode == 1, run.stderr  # the bad lines
    return run


def test_corpus_batch_on_two_workers_is_the_in_process_output(cluster, corpus_batch, in_process):
    address, _ = cluster
    path, count, bad = corpus_batch
    run = solve_batch(str(path), "--scheduler", address)
    assert run.returncode == in_process.returncode == 1, run.stderr
    got, want = comparable(run.stdout), comparable(in_process.stdout)
    assert len(got) == count and got == want
    errors = [a for a in got if "error" in a]
    assert [(a["line"], a["id"]) for a in errors] == list(zip(bad, [None, None, "nowhere"]))
    assert "not valid JSON" in errors[0]["error"]
    summary = run.stderr.strip().splitlines()[-1]
    assert summary.startswith(f"{count} states, {count - 3} optimal, 3 errors")


def test_a_worker_killed_mid_run_loses_and_repeats_no_line(cluster, in_process, tmp_path):
    address, client = cluster
    want = [a for a in comparable(in_process.stdout) if "error" not in a]
    out = tmp_path / "answers.jsonl"
    with open(out, "w") as handle:
        run = subprocess.Popen(
            [sys.executable, "-m", "optimizer", "solve", "--batch", corpus_url(), "--json", "--scheduler", address],
            stdout=handle,
            stderr=subprocess.PIPE,
            text=True,
        )
        victim = None
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while victim is None and run.poll() is None and time.monotonic() < deadline:
            busy = [worker for worker, keys in client.processing().items() if keys]
            if busy and out.stat().st_size > 0:  # one partition done, others being solved
                victim = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                os.kill(victim, signal.SIGKILL)
            time.sleep(0.05)
        _, stderr = run.communicate(timeout=RUN_TIMEOUT_S)
    assert victim is not None, "the run ended before a worker could be killed mid-run"
    assert run.returncode == 0, stderr
    assert comparable(out.read_text()) == want  # every line once, in order, the same answers
    assert victim not in client.run(os.getpid).values()


def test_local_cluster_and_fsspec_url(tmp_path):
    (tmp_path / "parts").mkdir()
    first = tmp_path / "parts" / "a.jsonl"
    second = tmp_path / "parts" / "b.jsonl"
    lines = Path(str(VENDORED)).read_text().splitlines(keepends=True)
    first.write_text("".join(lines[:5]) + BAD_LINES[0])
    second.write_text("\n" + "".join(lines[5:]))  # a blank line is skipped, as in process
    both = tmp_path / "both.jsonl"
    both.write_text(first.read_text() + second.read_text())
    run = solve_batch(f"file://{tmp_path}/parts/*.jsonl", "--scheduler", "local:1")
    assert run.returncode == 1, run.stderr
    answers = comparable(run.stdout)
    assert answers == comparable(solve_batch(str(both)).stdout) and len(answers) == len(lines) + 1
    assert (answers[5]["id"], answers[5]["line"]) == (None, 6) and "not valid JSON" in answers[5]["error"]


def test_a_file_the_workers_cannot_read_is_one_line_not_a_traceback(cluster, tmp_path):
    address, _ = cluster
    good = Path(str(VENDORED)).read_text().splitlines(keepends=True)[0]
    (tmp_path / "a.jsonl").write_text(good)
    (tmp_path / "b.jsonl").write_bytes(b'{"id": "\xff\xfe"}\n')  # not UTF-8
    run = solve_batch(f"{tmp_path}/*.jsonl", "--scheduler", address)
    assert run.returncode == 2 and len(run.stdout.splitlines()) == 1  # the readable partition was answered
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "failed on the cluster: UnicodeDecodeError(" in last


def test_bench_on_a_cluster_checks_every_state(cluster, capsys):
    address, _ = cluster
    assert main(["bench", str(VENDORED), "--scheduler", address, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    states = [line for line in Path(str(VENDORED)).read_text().splitlines() if line.strip()]
    assert summary["total"]["states"] == summary["total"]["optimal"] == len(states)
    assert not summary["failures"] and summary["concurrency"] == 2 and "Dask" in summary["solver"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["solve", "--batch", "x.jsonl", "--scheduler", "local:0"], "local:N needs a number of workers"),
        (["solve", "--scheduler", "local:1"], "give --batch"),
        (["solve", "--batch", "-", "--scheduler", "local:1"], "not standard input"),
        (["bench", "corpus", "--scheduler", "local:1", "--target", "127.0.0.1:1"], "neither --target"),
    ],
)
def test_scheduler_mistakes_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_without_the_cluster_extra_one_line_says_how_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if Dask were not installed
    assert main(["solve", "--batch", "x.jsonl", "--scheduler", "local:2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'pip install "route18xx[cluster]"' in err
