"""Brute-force references for the planners' searches: plain heapq Dijkstra on explicit edge lists."""

from __future__ import annotations

import heapq
import math


def dijkstra(n: int, edges: list[tuple[int, int, float]], sources: dict[int, float], targets: dict[int, float]
             ) -> float:
    """Cheapest sources -> targets cost: start at s with cost sources[s], finish at t paying targets[t]."""
    adj: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    for a, b, c in edges:
        adj[a].append((b, c))
    dist = [math.inf] * n
    heap = []
    for s, c in sources.items():
        if c < dist[s]:
            dist[s] = c
            heapq.heappush(heap, (c, s))
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, c in adj[u]:
            if d + c < dist[v]:
                dist[v] = d + c
                heapq.heappush(heap, (d + c, v))
    return min((dist[t] + c for t, c in targets.items()), default=math.inf)
