"""Batch work on a Dask distributed cluster: the scheduler spreads partitions, results come back in order.

``--scheduler ADDRESS`` is a running scheduler (``tcp://host:8786``) or ``local:N``, a cluster of
N worker processes (one thread each) started here for the run. Work goes out in partitions big
enough that Dask's per-task cost (a few milliseconds) stays small next to the answers in it, and
comes back in input order however the partitions finish. A worker that dies takes its partition
with it; the scheduler runs that partition again elsewhere, so no line is lost or answered twice.

Dask is an optional extra (``pip install "route18xx[cluster]"``): only this module imports it.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

from .batch import Limits, solve_lines
from .errors import OptimizerError

FIELD = "--scheduler"
PARTS_PER_WORKER = 4  # enough partitions that a slow one does not leave the other workers idle
MIN_PARTITION_BYTES = 1 << 20  # ~30 corpus states (~30 KB each): 30-200 ms of work per task
MAX_PARTITION_BYTES = 64 << 20
CONNECT_TIMEOUT_S = 20


def _dask():
    """The ``distributed`` module, or the one-line error saying how to install it."""
    try:
        import dask.bag  # noqa: F401 - batch input is read as a bag
        import distributed
    except ImportError as err:
        raise OptimizerError(
            f'{FIELD} needs Dask distributed ({err.name} is not installed): pip install "route18xx[cluster]"',
            field=FIELD,
        ) from None
    return distributed


def local_workers(address: str) -> int | None:
    """N of a ``local:N`` address (None for a scheduler's address); a bad N is the user's mistake."""
    if not address.startswith("local:"):
        return None
    count = address.removeprefix("local:")
    if not count.isdigit() or int(count) < 1:
        raise OptimizerError(f"{address!r}: local:N needs a number of workers N >= 1", field=FIELD)
    return int(count)


@contextmanager
def connect(address: str):
    """A Dask client of the scheduler at ``address``, or of a local cluster started for ``local:N``."""
    workers = local_workers(address)
    distributed = _dask()
    if workers is not None:
        with (
            distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                scheduler_port=0,
                dashboard_address="127.0.0.1:0",
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as err:
        raise OptimizerError(f"cannot reach the Dask scheduler at {address}: {err}", field=FIELD) from None
    with client:
        yield client


def worker_count(client) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def in_order(futures, on_done=None):
    """Each future's result in the order given, each as soon as it and those before it are done
    (a failed one raises its error in its turn); ``on_done(result)`` as each succeeds, in any order."""
    from distributed import Future, as_completed

    position = {future.key: i for i, future in enumerate(futures)}
    finished = {}
    following = 0
    for future in as_completed(futures):
        if future.status == "finished":
            outcome = finished[position[future.key]] = future.result()
            future.release()
            if on_done:
                on_done(outcome)
        else:
            finished[position[future.key]] = future  # its result() raises the error, after those before it
        while following in finished:
            outcome = finished.pop(following)
            yield outcome.result() if isinstance(outcome, Future) else outcome
            following += 1


# ---- a JSONL batch ----------------------------------------------------------------------------------


def partition_bytes(total: int, workers: int) -> int:
    """Block size: a few partitions per worker, none so small that task overhead shows."""
    share = total / (PARTS_PER_WORKER * max(1, workers))
    return int(min(MAX_PARTITION_BYTES, max(MIN_PARTITION_BYTES, share)))


def _blocksize(urlpath: str, workers: int) -> int | None:
    """Bytes per partition for ``read_text`` (None, one partition a file, for compressed files)."""
    from fsspec.core import get_fs_token_paths
    from fsspec.utils import infer_compression

    try:
        fs, _, paths = get_fs_token_paths(urlpath)
        sizes = [fs.size(path) for path in paths]
    except (OSError, ValueError, ImportError) as err:
        raise OptimizerError(f"cannot read {urlpath}: {err}", field="--batch") from None
    if not paths:
        raise OptimizerError(f"cannot read {urlpath}: no such file", field="--batch")
    if any(infer_compression(path) for path in paths):
        return None
    return partition_bytes(sum(sizes), workers)


def solve_batch(client, urlpath: str, limits: Limits, on_partition=None):
    """``(partitions, answers)``: answers to every non-blank line of the file(s) at ``urlpath`` (a path,
    glob or fsspec URL, read by the workers themselves), in input order, as :func:`optimizer.batch.solve_lines`
    gives them; ``on_partition(answers)`` is called as each partition finishes."""
    import dask.bag

    bag = dask.bag.read_text(urlpath, blocksize=_blocksize(urlpath, worker_count(client)))
    parts = bag.map_partitions(solve_lines, limits).to_delayed()
    # One submission per partition, in input order: the scheduler runs earlier submissions first, so
    # answers stream out from the start (one graph would run in an order of Dask's own choosing).
    futures = [client.compute(part) for part in parts]

    def answers():
        done = 0  # lines answered before this partition: its error lines are numbered after them
        try:
            for part in in_order(futures, on_partition):
                for answer in part:
                    if "error" in answer:
                        answer["line"] += done
                done += len(part)
                yield from part
        except Exception as err:  # noqa: BLE001 - a partition the workers could not read, or that failed again and again
            raise OptimizerError(
                f"{urlpath}: a partition after line {done} failed on the cluster: {repr(err)[:300]}", field="--batch"
            ) from None

    return len(futures), answers()


# ---- any list of work ------------------------------------------------------------------------------


def map_chunks(client, function, items: list, *args, on_chunk=None):
    """``function(chunk, *args)`` over ``items`` cut into a few chunks per worker: the results in order."""
    size = max(1, math.ceil(len(items) / (PARTS_PER_WORKER * worker_count(client))))
    chunks = client.scatter([items[i : i + size] for i in range(0, len(items), size)])
    return in_order([client.submit(function, chunk, *args, pure=False) for chunk in chunks], on_chunk)
