"""Site sets: the obstacles on one side of a chain (or around a node) and the closest point on their union."""

from __future__ import annotations

from core.jitcache import jit

from ..distance import set_closest
from .kinds import MAX_SIDE


@jit(inline=True, noalloc=True)
def add_unique(arr, n, v, cap):
    """Append site v to ``arr[:n]`` unless it is negative, already there or the set is full; the new count."""
    if v < 0:
        return n
    for k in range(n):
        if arr[k] == v:
            return n
    if n < cap:
        arr[n] = v
        return n + 1
    return n


@jit(inline=True, noalloc=True)
def closest(edges, sites, n, x, y):
    """Closest point of (x, y) on the union of ``sites[:n]``: (distance, cx, cy, feature)."""
    return set_closest(edges.real_ptr, edges.real_edge, edges.xy, edges.ring_next, sites, n, x, y)


@jit(noalloc=True)
def chain_sides(lab, a, b, sides, counts):
    """Collect the distinct left (``sides[0]``) and right (``sides[1]``) sites of the cracks ``a .. b - 2``."""
    counts[0] = 0
    counts[1] = 0
    for k in range(a, b - 1):
        counts[0] = add_unique(sides[0], counts[0], lab[k, 0], MAX_SIDE)
        counts[1] = add_unique(sides[1], counts[1], lab[k, 1], MAX_SIDE)
