"""Dask clients for a sweep: a LocalCluster of worker processes on this machine, or a running scheduler's address.

Worker processes run one task at a time (one thread each): the kernels are single-threaded, and a worker's
scenes are set up per run under a lock anyway. numba's cache: call ``core.sweep.task.warm`` (``run(...,
warm_cache=True)``) in this process before the workers run anything, so that they load the compiled kernels from
the shared on-disk cache instead of each compiling them for minutes. Scheduler and worker logs are silenced: a
failed run reaches the caller as its exception, and Ctrl+C in a terminal also stops the workers (same process
group), which the scheduler would log as lost data.
"""

from __future__ import annotations

import contextlib
import logging
import os
from typing import Any, Iterator

from .deps import require


# Dask's housekeeping that a sweep does not need, off or slowed down in a LocalCluster: measured idle, it took 3 % of a
# core in the calling process (scheduler, nannies) and 2.4 % in each worker process, 0.8 % and 0.3 % with these
# (2 workers, 10 s); busy, the profiler samples the run's stack every 10 ms in each worker.
QUIET_DASK = {
    "distributed.worker.profile.enabled": False,           # the workers' statistical profiler (dashboard only)
    "distributed.admin.tick.interval": "1s",              # the event loops' blocked-loop check, every 20 ms
    "distributed.admin.system-monitor.interval": "5s",    # CPU / memory / network sampling, every 500 ms
    "distributed.scheduler.work-stealing": False,         # the sweep already keeps two batches per worker thread
}


@contextlib.contextmanager
def local_client(workers: int) -> Iterator[Any]:
    """A ``distributed.Client`` of a LocalCluster of ``workers`` single-threaded processes, closed on exit (Dask's
    housekeeping quieted: ``QUIET_DASK``)."""
    distributed = require("distributed", "running a sweep on a LocalCluster")
    dask = require("dask", "running a sweep on a LocalCluster")
    with dask.config.set(QUIET_DASK):
        with _local_client(distributed, workers) as client:
            yield client


@contextlib.contextmanager
def _local_client(distributed, workers: int) -> Iterator[object]:
    cluster = distributed.LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.CRITICAL,
                                       worker_class=distributed.Nanny, memory_limit=0,
                                       preload=["core.sweep.worker_setup"])
    try:
        client = distributed.Client(cluster, set_as_default=False)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


@contextlib.contextmanager
def scheduler_client(address: str, timeout: float = 30.0) -> Iterator[object]:
    """A ``distributed.Client`` connected to a running scheduler (``tcp://host:8786``), closed on exit."""
    distributed = require("distributed", "running a sweep on a Dask scheduler")
    client = distributed.Client(address, timeout=timeout, set_as_default=False)
    try:
        yield client
    finally:
        client.close()


def default_workers() -> int:
    """One worker per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)
