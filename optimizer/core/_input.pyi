"""The Python side of the kernel's input (``_input.pyx``): its derivation and its checks."""

import numpy as np

from .contract import KernelInput

DTYPE_NAMES: dict[int, str]

def derive(
    values: np.ndarray,
    large: np.ndarray,
    token: np.ndarray,
    caps: np.ndarray,
    multiplier: np.ndarray,
    group: np.ndarray,
    requires_token: np.ndarray,
    fixed_bonus: int,
    n_largest: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """max_bonus, prefix, bound, order, anchors, n_anchors, rank (see KernelInput)."""

def check(ki: KernelInput) -> None:
    """ValueError naming the first array of ki (or of its Problem) the kernel could not safely read."""
