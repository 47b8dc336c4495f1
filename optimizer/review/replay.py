"""A recorded game replayed by the 18xx.games engine, through the Ruby client (``clients/ruby/bin/run-boards``).

The engine is Ruby: a subprocess replays the game and, at each ``run_routes`` action, writes the board
the company ran on (our document, built from the engine's objects) and what it ran, priced by the
engine. Python reads those lines; it never imitates the engine. What is missing (Ruby, the engine
checkout, the Ruby client) is one :class:`ReviewError` naming it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..errors import OptimizerError

ENGINE_VARIABLE = "ROUTE18XX_ENGINE"
CLIENT_VARIABLE = "ROUTE18XX_RUBY_CLIENT"
SOURCE_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "ruby"  # in a source checkout
PACKAGED_CLIENT = Path(__file__).resolve().parent / "ruby_client"  # in an installed wheel (setup.py copies it)


class ReviewError(OptimizerError):
    """The review cannot run: a missing tool or engine, a file that is not a game's export."""


def engine_dir(given: str | None) -> Path:
    """The engine checkout: ``given`` (``--engine``), else ``$ROUTE18XX_ENGINE``."""
    raw = given or os.environ.get(ENGINE_VARIABLE)
    if not raw:
        raise ReviewError(f"no engine: give --engine DIR or set {ENGINE_VARIABLE} (a checkout of tobymao/18xx)")
    path = Path(raw)
    if not (path / "lib" / "engine.rb").is_file():
        raise ReviewError(f"no engine at {raw} (lib/engine.rb missing): --engine or {ENGINE_VARIABLE}")
    return path


def client_dir() -> Path:
    """The Ruby client: ``$ROUTE18XX_RUBY_CLIENT``, else ``clients/ruby`` of this source checkout, else
    the copy an installed wheel ships."""
    raw = os.environ.get(CLIENT_VARIABLE)
    path = Path(raw) if raw else next((p for p in (SOURCE_CLIENT, PACKAGED_CLIENT) if p.is_dir()), SOURCE_CLIENT)
    if not (path / "bin" / "run-boards").is_file():
        raise ReviewError(f"no Ruby client at {path} (bin/run-boards missing): set {CLIENT_VARIABLE} to clients/ruby")
    return path


def ruby() -> str:
    found = shutil.which("ruby")
    if found is None:
        raise ReviewError("ruby not found: the review replays the game with the engine, in Ruby (apt-get install ruby)")
    return found


class Replay:
    """``run-boards --count`` on one game: ``action_ids`` (known once started), then the lines."""

    def __init__(self, game: Path, engine: Path):
        if not Path(game).is_file():
            raise ReviewError(f"{game}: no such file")
        argv = [ruby(), str(client_dir() / "bin" / "run-boards"), "--engine", str(engine), "--count", str(game)]
        self._stderr = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: nothing waits on it
        self._proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self._stderr, text=True)
        assert self._proc.stdout is not None  # stdout=PIPE
        self._stdout = self._proc.stdout
        try:
            header = self._stdout.readline()
            if not header:
                self._fail()
            self.action_ids = json.loads(header)["action_ids"]
        except BaseException:
            self.close()
            raise

    def lines(self) -> Iterator[dict]:
        for line in self._stdout:
            if line.strip():
                yield json.loads(line)
        self._fail()

    def _fail(self) -> None:
        """Ends the process; a non-zero exit becomes the ReviewError its stderr names."""
        code = self._proc.wait()
        if code != 0:
            self._stderr.seek(0)
            message = self._stderr.read().strip().splitlines()
            if not message:
                raise ReviewError(f"run-boards exited with status {code}")
            if code == 2:  # its one-line error: a missing engine, a file that is no game
                raise ReviewError(message[-1].removeprefix("error: "))
            raise ReviewError(f"the engine's replay failed: {message[0][:300]}")  # Ruby's own: the first line

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._stdout.close()
        self._stderr.close()
