"""Threads that yield the CPU: a thread doing background work (a change of the world prepared while the characters
walk, the app's engine beside its window) raises its own nice value, so that on a busy machine the thread the
user waits for runs first."""

from __future__ import annotations

import os
import sys
import threading


def lower_thread_priority(steps: int) -> None:
    """Raise the calling thread's nice value by ``steps`` (at most 19) on Linux, where a thread id names just that
    thread; elsewhere it could name another process, so nothing happens."""
    if not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + steps))
    except OSError:
        pass
