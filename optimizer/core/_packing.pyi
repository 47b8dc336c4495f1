"""The Python side of the packing kernel (``_packing.pyx``): the kernel with its settings."""

from ._search import Kernel

class Packing(Kernel):
    """Route listing plus packing, with the settings each search carries (see _packing.pxd)."""

    def __init__(
        self,
        *,
        iterations: int = 60,
        max_routes: int = 30000,
        max_routes_many: int = 300000,
        dive_nodes: int = 20000,
        table_routes: int = 4096,
        reach_after: int = 500000,
        memo_grow_after: int = 2000000,
        mu_after: int = 1000000,
        reference_after: int = 30,
        reference_routes: int = 4096,
        index_routes: int = 4096,
        sample_steps: int = 30,
        sample_stride: int = 8,
    ) -> None: ...
    def settings_dict(self) -> dict[str, int]: ...

KERNEL: Packing  # the defaults
