"""Evaluation on a Ray cluster: the jobs of `experiments.matches.plan_jobs` as Ray tasks.

`python -m experiments.evaluate --backend ray [--address HOST:PORT]` plays every job as one task of one CPU, on
the cluster at the address, or on a local cluster of `--workers` CPUs started for the run. A job's games depend
only on its seeds, so the results are those of the local backend, bit for bit. Ray comes with the `ray` extra
(`pip install -e ".[ray]"`) and is imported only here, when asked for. This module knows nothing of what a job is:
`run_jobs` is handed the function that plays one (`experiments.matches.run_job`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from experiments.cli import UserError

J = TypeVar("J")
Rows = tuple[int, list[dict[str, Any]]]  # a job's pairing and the rows of its games

INSTALL_HINT = 'pip install -e ".[ray]"'
OBJECT_STORE_BYTES = 256 * 1024**2  # a local cluster's shared memory: the jobs' rows are small


def require_ray() -> Any:
    """The `ray` module, or a one-line `UserError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise UserError(f"the ray backend needs Ray, which is not installed: {INSTALL_HINT}") from None
    return ray


@contextlib.contextmanager
def connected(address: str | None = None, num_cpus: int | None = None) -> Iterator[Any]:
    """This process joined to a Ray cluster for the block: the one it has already joined, the cluster at
    `address`, or a local one of `num_cpus` CPUs (shut down after the block). Yields the `ray` module."""
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    settings: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address is None:
        settings |= {"num_cpus": num_cpus, "include_dashboard": False, "object_store_memory": OBJECT_STORE_BYTES}
    try:
        ray.init(address=address, **settings)
    except (ConnectionError, ValueError, RuntimeError, TimeoutError) as error:
        where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
        raise UserError(f"cannot join {where}: {' '.join(str(error).split())[:200]}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def _play_job(play: Callable[[J], Rows], job: J) -> Rows:
    """A job in a Ray worker: one thread for the batched environment (the task holds one CPU)."""
    import numba

    numba.set_num_threads(1)
    return play(job)


def run_jobs(
    play: Callable[[J], Rows], jobs: Sequence[J], address: str | None = None, num_cpus: int | None = None
) -> Iterator[Rows]:
    """Each job's `play(job)`, `(pairing, rows)`, as its task finishes, the tasks spread over the cluster's CPUs."""
    if not jobs:
        return
    with connected(address, num_cpus) as ray:
        task = ray.remote(num_cpus=1, max_retries=0)(_play_job)
        pending = [task.remote(play, job) for job in jobs]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield ray.get(done[0])
        finally:
            for task in pending:
                ray.cancel(task, force=True)
