"""Arc portals kept between the queries of a batch (``funnel.cached_portals``).

Inside a piece of an ECM edge between two event points, the portals added around an obstacle vertex (ECM section
III, the arc approximation of ``funnel``) depend only on the two event points, the piece's obstacle features, the
clearance and the angular step, not on the query. A batch therefore computes them once per piece and walking
direction (forward from event q to q + 1 is entry 2q, backward from q to q - 1 is entry 2q + 1) and copies the rows
in every later corridor that crosses the piece at the same clearance: the rows are the ones computed, so every
answer is the one computed without the cache, to the bit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from core.jitcache import jit


class ArcCache(NamedTuple):
    """Rows (as ``funnel.portals``) of the arc portals of each cached piece: entry e holds ``rows[ptr[e]:ptr[e] +
    cnt[e]]``, computed at clearance ``tag[e]`` (NaN: nothing kept); ``used[0]`` rows of ``rows`` are in use."""

    tag: npt.NDArray[np.float64]
    ptr: npt.NDArray[np.int64]
    cnt: npt.NDArray[np.int64]
    rows: npt.NDArray[np.float64]
    used: npt.NDArray[np.int64]


@jit
def arc_cache(n_events: int, capacity: int) -> ArcCache:
    """An empty cache for a map with ``n_events`` event points holding at most ``capacity`` rows (0 for none)."""
    n = 2 * n_events if capacity > 0 else 0
    return ArcCache(np.full(n, np.nan), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                    np.empty((capacity, 7)), np.zeros(1, dtype=np.int64))


@jit(inline=True)
def cached_rows(cache: ArcCache, entry: int, c: float) -> int:
    """How many rows entry ``entry`` keeps for clearance c, or -1 when it keeps none (then compute them)."""
    if entry < 0 or entry >= cache.tag.shape[0] or cache.tag[entry] != c:
        return -1
    return cache.cnt[entry]


@jit(noalloc=True)
def keep_rows(cache: ArcCache, entry: int, c: float, out: npt.NDArray[np.float64], m0: int, m1: int) -> None:
    """Keep rows ``out[m0:m1]`` as entry ``entry`` at clearance c; when the rows are full every entry is dropped
    first (a batch that changes clearance leaves stale rows behind), and rows that do not fit are not kept."""
    if entry < 0 or entry >= cache.tag.shape[0]:
        return
    k = m1 - m0
    cap = cache.rows.shape[0]
    if cache.used[0] + k > cap:
        for e in range(cache.tag.shape[0]):
            cache.tag[e] = np.nan
        cache.used[0] = 0
        if k > cap:
            return
    a = cache.used[0]
    for j in range(k):
        for col in range(7):
            cache.rows[a + j, col] = out[m0 + j, col]
    cache.ptr[entry] = a
    cache.cnt[entry] = k
    cache.tag[entry] = c
    cache.used[0] = a + k
