"""Rebuilding a search's path from its parent array, first node first (the A* searches of routes, portal, ECM)."""

import numpy as np
import numpy.typing as npt

from core.jitcache import jit


@jit
def path_to(parent: npt.NDArray[np.int64], last: int) -> npt.NDArray[np.int64]:
    """The nodes from the root (whose parent is negative) to ``last``."""
    k = 0
    u = last
    while u >= 0:
        k += 1
        u = parent[u]
    out = np.empty(k, dtype=np.int64)
    u = last
    for i in range(k - 1, -1, -1):
        out[i] = u
        u = parent[u]
    return out


@jit
def path_between(parent: npt.NDArray[np.int64], via: npt.NDArray[np.int64], first: int,
                 last: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The nodes from ``first`` to ``last`` and the ``via`` label of each (how the search reached it)."""
    n = 1
    w = last
    while w != first:
        w = parent[w]
        n += 1
    nodes = np.empty(n, dtype=np.int64)
    edges = np.empty(n, dtype=np.int64)
    w = last
    for q in range(n - 1, -1, -1):
        nodes[q] = w
        edges[q] = via[w]
        if w != first:
            w = parent[w]
    return nodes, edges
