"""Timing helpers for the benchmark sections: steady-state time per item, first-call (JIT) time, CPU-load.

Steady-state figures exclude first-call compilation (docs: Explanation, how performance is measured): ``per_item`` warms
up once, then keeps the best of ``repeat`` timed runs, measured in CPU time of the calling thread (``time.thread_time``)
so that other processes sharing the machine disturb the figures less (the CPU-load of IRM section 6 is CPU time too).
``first_call`` times one call of a numba dispatcher on a tiny input and says whether its machine code came from numba's
on-disk cache or was compiled now.
"""

from __future__ import annotations

import time
from typing import Callable


def per_item(fn: Callable[[], object], n_items: int, repeat: int = 3) -> float:
    """CPU seconds per item of ``fn()`` (which processes ``n_items``), best of ``repeat`` runs after a warm-up."""
    fn()
    best = float("inf")
    for _ in range(max(repeat, 1)):
        t0 = time.thread_time()
        fn()
        best = min(best, time.thread_time() - t0)
    return best / max(n_items, 1)


def first_call(dispatcher, fn: Callable[[], object]) -> tuple[float, str]:
    """(seconds, origin) of the first call ``fn()`` of a numba ``dispatcher`` in this process; origin is
    'numba cache' when the code was loaded from disk, 'compiled' when it was compiled, 'already loaded' when an
    earlier call in this process had it ready."""
    ready = bool(dispatcher.signatures)
    hits_before = sum(dispatcher.stats.cache_hits.values())
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    if ready:
        return dt, "already loaded"
    hits = sum(dispatcher.stats.cache_hits.values()) - hits_before
    return dt, "numba cache" if hits > 0 else "compiled"


def median_time(fn: Callable[[], object], repeat: int) -> float:
    """Median CPU time of the calling thread over ``repeat`` calls of ``fn()`` (whole builds, single-threaded)."""
    times = []
    for _ in range(max(repeat, 1)):
        t0 = time.thread_time()
        fn()
        times.append(time.thread_time() - t0)
    times.sort()
    return times[len(times) // 2]
