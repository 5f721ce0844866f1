"""Scratch arrays of the disc traversal-cost kernels (``kernels.disc``), allocated once by the caller.

A disc query fills them per call; where a sweep meets more triangles than they hold, the kernels grow a local copy
for that call (so a small work never gives a wrong answer, only a slower one).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from core.jitcache import jit

# Triangles a typical sweep meets on the shipped scenes (tens); the work holds this many before growing.
DISC_WORK_TRIANGLES = 256


class DiscWork(NamedTuple):
    """Per-query scratch of ``disc.disc_cost``: the triangle walks' output and stack, the overlap intervals and
    the max-weight cover (Kremyzas 2014, Algorithms 2-4)."""

    found: np.ndarray  # (k,) int64: triangles the sweep meets (walk output)
    stack: np.ndarray  # (k,) int64: the walks' depth-first stack (as long as found)
    iv: np.ndarray  # (k, 3) float64: overlap intervals [lo, hi, weight] of the free triangles met
    ty: np.ndarray  # (k,) int64: terrain index of each interval
    order: np.ndarray  # (k,) int64: the intervals, heaviest first
    cov: np.ndarray  # (k + 1, 2) float64: sorted disjoint cover of the intervals weighed so far


@jit
def disc_work(k: int) -> DiscWork:
    """A DiscWork holding k triangles (``DISC_WORK_TRIANGLES`` is a good default); callable from Python and kernels."""
    return DiscWork(np.empty(k, dtype=np.int64), np.empty(k, dtype=np.int64), np.empty((k, 3)),
                    np.empty(k, dtype=np.int64), np.empty(k, dtype=np.int64), np.empty((k + 1, 2)))
