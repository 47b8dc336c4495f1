"""A progress bar on stderr for long batch runs (only when stderr is a terminal)."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, label: str, stream=None):
        self.total = total
        self.label = label
        self.stream = stream or sys.stderr
        self.done = 0
        self.start = time.monotonic()
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty() and total > 1
        self._last = 0.0

    def step(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        rate = self.done / max(now - self.start, 1e-9)
        eta = (self.total - self.done) / rate if rate else 0
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
            f"{rate:.1f}/s eta {eta:.0f}s "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
