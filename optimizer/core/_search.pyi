"""The Python side of the compiled search (``_search.pyx``): its entry point and constants."""

from collections.abc import Callable

import numpy as np

from .contract import KernelInput, KernelResult

MAX_BEST_ROUTE: int  # best-route bonuses the kernel keeps per level
MAX_INTERESTING: int  # stops a bonus depends on that an express's pricing tries in and out
MAX_FORCED: int  # largest-stop bonuses an express's pricing prices exactly
STOPPED_BY: dict[int, str | None]  # SearchResult.stopped_by, by the kernel's stop code

class Kernel:
    """A search strategy and its settings, read only while searches run."""

NESTED: Kernel  # the nested branch and bound (the default)

def search(
    ki: KernelInput,
    deadline: float = 0.0,
    node_budget: int = 0,
    cancel: np.ndarray | None = None,
    on_improve: Callable[[int, list, list, list, list, int, int], object] | None = None,
    kernel: Kernel | None = None,
) -> KernelResult: ...
