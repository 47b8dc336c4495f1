"""The engine as a judge of the optimum: ``clients/ruby/bin/price-routes`` beside the replay.

Each optimum's routes go to the engine as ``RunRoutes`` takes them, and the engine says what it pays
for them (or why it refuses them), line by line as the review goes, in a Ruby process of its own
that replays the same game in step. Where our rules and the engine's differ (an 18EU Pullman run on a
city without the company's token, which the engine prices at 0), the review shows both figures.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from .replay import ReviewError, client_dir, ruby


class Judge:
    def __init__(self, game: Path, engine: Path):
        self.game = str(game)
        argv = [ruby(), str(client_dir() / "bin" / "price-routes"), str(engine)]
        self._stderr = tempfile.TemporaryFile(mode="w+")
        self._proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True, bufsize=1
        )

    def price(self, action_id: int, routes: list) -> dict:
        """``{"revenue", "routes"}`` (what the engine pays, in all and per route) or ``{"error"}``."""
        assert self._proc.stdin is not None and self._proc.stdout is not None
        connections = [{"train": r["train"], "connections": r["connections"]} for r in routes]
        request = {"id": action_id, "fixture": self.game, "action_id": action_id, "routes": connections}
        try:
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            self._stderr.seek(0)
            first = (self._stderr.read().strip().splitlines() or ["it ended"])[0]
            raise ReviewError(f"the engine's judge failed: {first[:300]}")
        verdict = json.loads(line)
        return {k: verdict[k] for k in ("revenue", "routes", "error") if k in verdict}

    def close(self) -> None:
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                stream.close()
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._stderr.close()
