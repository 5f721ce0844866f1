"""Trails: the last positions of every agent in a ring buffer, sampled every ``interval`` simulated seconds.

The buffer is (K, n, 2) float32 (K samples of n agents, scene units); ``polylines`` unrolls it oldest first into
one NaN-separated (n (k + 1), 2) float32 array, the form one pyqtgraph curve draws with ``connect="finite"``.
K shrinks as n grows so that a frame never holds more than ``budget`` points.
"""

from __future__ import annotations

import numpy as np


def trail_shape(n: int, dt: float, budget: int = 60_000) -> tuple[int, float]:
    """Samples kept per agent and the sampling interval (s) for n agents at time step dt."""
    k = int(np.clip(budget // max(1, n), 8, 4096))
    interval = max(dt, 0.2 if n <= 50 else 0.5 if n <= 500 else 1.0)
    return k, interval


class TrailBuffer:
    """The recent positions of n agents; ``push`` a (n, 2) snapshot at simulated time t."""

    def __init__(self, n: int, dt: float) -> None:
        self.k, self.interval = trail_shape(n, dt)
        self.dt = dt
        self.n = n
        self.buf = np.full((self.k, n, 2), np.nan, dtype=np.float32)
        self.count = 0
        self.head = 0
        self.last_t = -np.inf
        self.version = 0

    def push(self, positions: np.ndarray, t: float, force: bool = False) -> bool:
        """Record positions (n', 2) at time t when ``interval`` has passed (or ``force``); True when recorded.
        New agents (n' > n) get columns of their own, empty before now."""
        if not force and t - self.last_t < self.interval - 1e-9:
            return False
        m = len(positions)
        if m > self.n:
            self._grow(m)
        self.buf[self.head, :m] = positions
        self.head = (self.head + 1) % self.k
        self.count = min(self.count + 1, self.k)
        self.last_t = t
        self.version += 1
        return True

    def _grow(self, m: int) -> None:
        """Room for m agents: fewer samples each (the newest kept), new agents' columns empty."""
        k, self.interval = trail_shape(m, self.dt)
        keep = min(self.count, k)
        order = (self.head - keep + np.arange(keep)) % self.k
        grown = np.full((k, m, 2), np.nan, dtype=np.float32)
        grown[:keep, : self.n] = self.buf[order]
        self.buf, self.n, self.k = grown, m, k
        self.count, self.head = keep, keep % k

    def polylines(self) -> np.ndarray:
        """(n (count + 1), 2) float32: each agent's samples oldest first, then a NaN row."""
        if self.count == 0 or self.n == 0:
            return np.zeros((0, 2), dtype=np.float32)
        order = (self.head - self.count + np.arange(self.count)) % self.k
        out = np.full((self.n, self.count + 1, 2), np.nan, dtype=np.float32)
        out[:, : self.count] = self.buf[order].transpose(1, 0, 2)
        return out.reshape(-1, 2)
