"""Preloaded into a LocalCluster's worker processes (``dask_setup``): they ignore Ctrl+C.

Ctrl+C in a terminal reaches the whole process group; the sweep in the calling process handles it (keeps what
finished, then closes the cluster, which stops the workers), so a worker interrupted on its own would only print a
traceback. Workers started by hand (``dask worker``) do not load this and stop on Ctrl+C as usual.
"""

from __future__ import annotations

import signal
import threading


def dask_setup(worker) -> None:
    """Ignore SIGINT in this worker process (from its main thread, where signal handlers are set)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
