"""Dask clients for a sweep: a LocalCluster of worker processes on this machine, or a running scheduler's address.

Worker processes run one task at a time (one thread each): the kernels are single-threaded, and a worker's
scenes are set up per run under a lock anyway. numba's cache: ``run(..., warm_cache=True)`` runs
``core.sweep.task.warm`` on one worker before the others run anything, so that they load the compiled kernels from
the shared on-disk cache instead of each compiling them for minutes. Scheduler and worker logs are silenced: a
failed run reaches the caller as its exception, and Ctrl+C in a terminal also stops the workers (same process
group), which the scheduler would log as lost data.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import struct
import time
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


# How long the scheduler probe waits to connect and then for the scheduler's first message.
PROBE_SECONDS = 3.0
# The largest first message a scheduler sends (its handshake is a few hundred bytes).
MAX_HANDSHAKE_BYTES = 1 << 20
_ADDRESS = re.compile(r"^(?:(?P<proto>[a-z]+)://)?(?:\[(?P<ip6>[0-9A-Fa-f:.]+)\]|(?P<host>[^\s/:\[\]]+)):(?P<port>\d{1,5})$")


class SchedulerUnreachable(Exception):
    """The address does not answer as a Dask scheduler; the message says what happened."""


def probe_scheduler(address: str, seconds: float = PROBE_SECONDS) -> None:
    """Check, within about ``2 * seconds``, that a Dask scheduler answers at ``address`` before a Client is made
    (a Client waits without a bound on a port that accepts and never answers, and reads an HTTP server's reply as
    a frame length of exabytes); SchedulerUnreachable saying why otherwise.

    A scheduler writes its handshake as soon as a connection is accepted, a 64-bit frame length first: for
    ``tcp://`` addresses (the default) that length must arrive and be plausible; other protocols (``tls://``) are
    only connected to."""
    m = _ADDRESS.match(address)
    if m is None:
        raise SchedulerUnreachable(f"expected an address such as tcp://host:8786, got {address!r}")
    proto = m.group("proto") or "tcp"
    host, port = m.group("ip6") or m.group("host"), int(m.group("port"))
    if not 0 < port < 65536:
        raise SchedulerUnreachable(f"port {port} is not a TCP port (1 to 65535)")
    if proto not in ("tcp", "tls"):
        raise SchedulerUnreachable(f"protocol {proto!r}: a sweep reaches its scheduler over tcp:// or tls://")
    deadline = time.monotonic() + seconds
    try:
        sock = socket.create_connection((host, port), timeout=seconds)
    except socket.timeout:
        raise SchedulerUnreachable(f"no connection within {seconds:g} s") from None
    except OSError as e:
        raise SchedulerUnreachable(e.strerror or str(e)) from None
    with sock:
        if proto != "tcp":
            return
        head = b""
        sock.settimeout(seconds)
        try:
            while len(head) < 8:
                chunk = sock.recv(8 - len(head))
                if not chunk:
                    raise SchedulerUnreachable("it closed the connection without a word: not a Dask scheduler")
                head += chunk
                if time.monotonic() > deadline + seconds:
                    break
        except socket.timeout:
            raise SchedulerUnreachable(f"it accepted the connection but sent nothing within {seconds:g} s: not a "
                                       "Dask scheduler (is it a web server, or the dashboard's port?)") from None
        except OSError as e:
            raise SchedulerUnreachable(e.strerror or str(e)) from None
        if len(head) < 8:
            raise SchedulerUnreachable(f"it sent less than a message header within {seconds:g} s")
        (n,) = struct.unpack("<Q", head)
        if not 0 < n <= MAX_HANDSHAKE_BYTES:
            raise SchedulerUnreachable(f"its first message does not start as a Dask scheduler's ({head!r}): not a "
                                       "Dask scheduler")


@contextlib.contextmanager
def scheduler_client(address: str, timeout: float = 30.0) -> Iterator[object]:
    """A ``distributed.Client`` connected to a running scheduler (``tcp://host:8786``), closed on exit; the address
    is probed first (``probe_scheduler``), so that what does not answer as a scheduler is refused in seconds."""
    probe_scheduler(address, min(PROBE_SECONDS, timeout))
    distributed = require("distributed", "running a sweep on a Dask scheduler")
    try:
        client = distributed.Client(address, timeout=timeout, set_as_default=False)
    except Exception as e:  # distributed raises OSError, TimeoutError, ValueError or its own errors
        raise SchedulerUnreachable(f"{type(e).__name__}: {e}"[:300]) from None
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
