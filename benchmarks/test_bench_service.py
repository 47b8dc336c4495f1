"""The service benchmark (``benchmarks/grpc_workers.py``) as a smoke test: a few corpus states
through one server process and through a worker per core, every answer checked against the best
known revenue. The full run (every state, twice, 8 clients) is ``python benchmarks/grpc_workers.py``."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def test_service_benchmark_runs_and_checks_every_answer(capsys):
    path = Path(__file__).with_name("grpc_workers.py")
    spec = importlib.util.spec_from_file_location("grpc_workers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    status = module.main(["1", "default", "--states", "20", "--repeat", "1", "--clients", "4"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "--workers 1" in out and "default options" in out and "answers/s" in out


def _module(name: str):
    path = Path(__file__).with_name(f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_service_benchmark_sends_structured_boards(capsys):
    status = _module("grpc_workers").main(["1", "--states", "10", "--repeat", "1", "--clients", "2", "--form", "board"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "as Optimize(board)" in out and "--workers 1" in out


def test_request_forms_benchmark_answers_alike_in_every_form(capsys):
    status = _module("request_forms").main(["--states", "10", "--rounds", "1"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert all(f"\n{form:<18}" in out for form in ("state_json", "board", "board, long way", "json, text reader"))
