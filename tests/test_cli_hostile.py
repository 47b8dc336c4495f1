"""Issue 31 replayed on the command line: out-of-range numbers, batches of any bytes, batches that stream."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest

from . import hostile

CLI = [sys.executable, "-m", "optimizer"]
# runs the command given, then prints its peak RSS in KiB on stderr
PEAK_RSS_OF = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)"
)


def run(*args, stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, timeout=timeout)


def out_of_range(kind: str) -> tuple:
    """(board, the field the error names, what its message names): a node revenue of 3,000,000,000
    (the message names the hex) or a multiplier of 3e9 (the field)."""
    doc = hostile.base()
    if kind == "revenue":
        i = next(i for i, h in enumerate(doc["hexes"]) if re.search(r"revenue:\d+;", h["code"]))
        doc["hexes"][i]["code"] = re.sub(r"revenue:\d+;", "revenue:3000000000;", doc["hexes"][i]["code"], count=1)
        return doc, f"hexes[{i}].code", f"hex {doc['hexes'][i]['id']}: revenue 3000000000 is too large"
    doc["trains"][0]["multiplier"] = 3e9
    return doc, "trains[0].multiplier", "trains[0].multiplier: 3000000000.0 is too large"


@pytest.mark.parametrize("kind", ["revenue", "multiplier"])
def test_out_of_range_numbers_are_one_line_and_exit_2(tmp_path, kind):
    doc, _, named = out_of_range(kind)
    path = tmp_path / "board.json"
    path.write_text(json.dumps(doc))
    routes = tmp_path / "routes.json"
    routes.write_text(json.dumps([{"train": doc["trains"][0]["id"], "stops": []}]))
    for args in (("solve", str(path)), ("solve", "--json", str(path)), ("check", str(path), "--routes", str(routes))):
        done = run(*args)
        err = done.stderr.decode()
        print(f"{' '.join(args[:1])} with {kind} 3e9: exit {done.returncode}, {err.strip()}")
        assert done.returncode == 2 and err.count("\n") == 1 and named in err, err  # before: a traceback, exit 1
        assert "Traceback" not in err


@pytest.mark.parametrize("kind", ["revenue", "multiplier"])
def test_out_of_range_numbers_are_the_same_error_in_the_api(kind):
    from optimizer import api
    from optimizer.errors import OptimizerError

    doc, field, named = out_of_range(kind)
    for source in (doc, json.dumps(doc)):  # a dict and JSON text take different readers
        with pytest.raises(OptimizerError) as caught:
            api.solve(source)
        assert caught.value.field == field and named in str(caught.value)


def test_a_batch_answers_every_good_line_whatever_the_bad_ones_hold(tmp_path):
    good = json.dumps(hostile.base()).encode()
    revenue = out_of_range("revenue")[0]
    multiplier = out_of_range("multiplier")[0]
    lines = [
        good,
        json.dumps(revenue).encode(),  # before: OverflowError, the good lines after it lost
        good,
        json.dumps(multiplier).encode(),
        b'{"id": "latin-1 \xe9\xff"}',  # before: UnicodeDecodeError, 0 of 2 good lines answered
        b"\xff\xfe\x00 not even text",
        good,
        b"[1, 2",
    ]
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(b"\n".join(lines) + b"\n")
    for source, stdin in ((str(batch), None), ("-", batch.read_bytes())):
        done = run("solve", "--batch", source, "--json", stdin=stdin)
        answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
        errors = [a for a in answers if "error" in a]
        print(f"batch of 3 good and 5 bad lines ({source}): {len(answers)} answers, {len(errors)} errors")
        assert len(answers) == 8 and len(errors) == 5, done.stderr.decode()
        assert [a["line"] for a in errors] == [2, 4, 5, 6, 8]
        assert all(set(a) >= {"id", "error"} for a in errors)
        assert all(answers[i]["revenue"] > 0 for i in (0, 2, 6))
        assert done.returncode == 1 and "Traceback" not in done.stderr.decode()


def test_a_batch_streams(tmp_path):
    """The first answer comes before the input ends: a batch is read and answered line by line."""
    proc = subprocess.Popen([*CLI, "solve", "--batch", "-", "--json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        proc.stdin.write(json.dumps(hostile.base()).encode() + b"\n")
        proc.stdin.flush()
        start = time.monotonic()
        import select

        ready, _, _ = select.select([proc.stdout], [], [], 30)  # before: nothing until the input ended
        assert ready, "the first line should be answered while the input is still open"
        first = json.loads(proc.stdout.readline())
        print(f"first answer {time.monotonic() - start:.2f} s after its line, the input still open")
        assert first["revenue"] > 0
        proc.stdin.write(b"{}\n" * 20000)
        proc.stdin.close()
        rest = proc.stdout.read().splitlines()
        assert proc.wait(60) == 1 and len(rest) == 20000
    finally:
        proc.kill()
        proc.wait()


def test_a_batch_holds_one_line_at_a_time(tmp_path):
    """Peak memory does not grow with the batch: 100,000 lines cost what 2,000 do."""
    peaks = []
    for n in (2_000, 100_000):
        batch = tmp_path / f"{n}.jsonl"
        batch.write_bytes((b"{}" + b" " * 400 + b"\n") * n)
        done = subprocess.run(
            [sys.executable, "-c", PEAK_RSS_OF, *CLI, "solve", "--batch", str(batch), "--json"],
            capture_output=True,
            timeout=120,
        )
        peaks.append(int(done.stderr.decode().strip().splitlines()[-1]) / 1024)
        assert done.stdout.count(b"\n") == n
    print(f"batch peak RSS: {peaks[0]:.0f} MiB for 2,000 lines, {peaks[1]:.0f} MiB for 100,000 (~40 MiB of input)")
    assert peaks[1] - peaks[0] < 15  # before: every line held (1.07 GB for 42 MiB of lines)
