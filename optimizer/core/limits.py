"""What stops a search early: a deadline, a node budget, or a token cancelled from another thread.

Neutral ground for both searches and their callers (the api, the service): nothing here knows
which search runs.
"""

from __future__ import annotations

import numpy as np


class CancelToken:
    """Set from any thread to stop a running search; it returns its best so far."""

    def __init__(self):
        self.flag = np.zeros(1, dtype=np.uint8)  # read by the compiled kernel without the GIL

    def cancel(self) -> None:
        self.flag[0] = 1

    @property
    def cancelled(self) -> bool:
        return bool(self.flag[0])
