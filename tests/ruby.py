"""Where the tests find Debian's Ruby, its gRPC tools and the 18xx.games engine.

The engine is ``../shared/engine`` beside the project, or ``$ROUTE18XX_ENGINE``. Tests that speak of
the engine's rules need it, and Ruby (``ruby``, ``ruby-grpc``, ``ruby-grpc-tools``, ``protobuf-compiler``,
which ``.ci/run`` installs): without them they are skipped, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "clients" / "ruby"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def missing(what: str) -> None:
    if in_ci():
        pytest.fail(f"{what} is missing under CI=true (.ci/run installs it): these tests must run")
    pytest.skip(f"{what} is missing: skipped outside CI")


def tool(name: str) -> str:
    """The path of a program on PATH (ruby, grpc_tools_ruby_protoc, protoc)."""
    path = shutil.which(name)
    if path is None:
        missing(name)
    return path


def engine_dir() -> Path:
    """The engine checkout: ``$ROUTE18XX_ENGINE``, else ``../shared/engine`` beside the project."""
    given = os.environ.get("ROUTE18XX_ENGINE")
    path = Path(given) if given else ROOT.parent / "shared" / "engine"
    if not (path / "lib" / "engine.rb").is_file():
        missing(f"the 18xx.games engine ({path}, or $ROUTE18XX_ENGINE)")
    return path


def fixture_path(state: dict) -> Path:
    """The recorded game a corpus state was taken from."""
    return engine_dir() / "public" / "fixtures" / state["id"].split("/")[0] / f"{state['fixture']}.json"


def run_client_script(script: str, states: list | None = None, timeout: int = 600) -> list:
    """Run a Ruby script with the client's library on the engine (``ARGV[0]``), given each state's
    recorded game and action as a JSON line on its standard input (``states``); its JSON output lines."""
    lines = "".join(
        json.dumps({"id": s["id"], "fixture": str(fixture_path(s)), "action_id": s["action_id"]}) + "\n"
        for s in states or ()
    )
    run = subprocess.run(
        [tool("ruby"), "-I", str(CLIENT / "lib"), "-e", script, str(engine_dir())],
        input=lines,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return [json.loads(line) for line in run.stdout.splitlines()]
