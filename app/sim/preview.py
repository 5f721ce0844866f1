"""The ghost preview: a fork of the simulation run ahead in its own thread, cancelled by any newer request.

The simulation worker forks its simulation (``Simulation.fork(keep_paths=False)``, O(agents)) whenever a
parameter changes and hands the fork over as a ``PreviewRequest`` (latest wins). The runner steps it in short
chunks, dropping it as soon as a newer request arrives, and publishes the future paths, early and partial when
the run is long, complete at the end.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .messages import Ghost

# Agent-steps one preview may take (5 000 agents look 400 steps ahead; one agent walks its whole route).
MAX_AGENT_STEPS = 2_000_000
# Points one ghost drawing holds at most (each agent's path is thinned evenly beyond that).
MAX_POINTS = 300_000
# Seconds between partial publications of a long preview.
PARTIAL_EVERY = 0.3


@dataclass(frozen=True, eq=False)
class PreviewRequest:
    """Run ``sim`` (a fork nobody else touches) ahead; ``request`` increases with every new request."""

    generation: int
    request: int
    sim: object
    max_agent_steps: int = MAX_AGENT_STEPS


class RequestSlot:
    """Holds the latest request; ``put`` replaces it and wakes the runner."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._req: PreviewRequest | None = None
        self._latest = 0
        self._stopped = False

    def put(self, req: PreviewRequest | None, latest: int) -> None:
        """A new request (None: cancel whatever runs); ``latest`` is its number."""
        with self._cond:
            self._req = req
            self._latest = latest
            self._cond.notify_all()

    def take(self) -> PreviewRequest | None:
        """Wait for a request; None once stopped."""
        with self._cond:
            while self._req is None and not self._stopped:
                self._cond.wait()
            req, self._req = self._req, None
            return None if self._stopped else req

    def superseded(self, request: int) -> bool:
        """Has a newer request (or a stop) come in since ``request``?"""
        return self._stopped or self._latest != request

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()


def ragged_polylines(xy: np.ndarray, offsets: np.ndarray, max_points: int = MAX_POINTS) -> np.ndarray:
    """Paths ``xy[offsets[i]:offsets[i+1]]`` as one NaN-separated (k, 2) float32 array, each path thinned to every
    s-th point (its last point kept) when there are more than ``max_points`` points in all."""
    n = len(offsets) - 1
    m = int(offsets[-1]) if n > 0 else 0
    if m == 0:
        return np.zeros((0, 2), dtype=np.float32)
    counts = np.diff(offsets)
    owner = np.repeat(np.arange(n), counts)
    local = np.arange(m) - offsets[owner]
    stride = max(1, -(-m // max_points))
    keep = (local % stride == 0) | (local == counts[owner] - 1)
    kept_owner = owner[keep]
    out = np.full((int(keep.sum()) + n, 2), np.nan, dtype=np.float32)
    rank = np.arange(len(kept_owner))
    out[rank + kept_owner] = xy[keep]
    return out


class PreviewRunner:
    """Serves preview requests until the slot is stopped; ``publish(ghost)`` hands each result on."""

    def __init__(self, slot: RequestSlot, publish: Callable[[Ghost], None],
                 on_error: Callable[[BaseException], None] | None = None) -> None:
        self.slot = slot
        self.publish = publish
        self.on_error = on_error

    def serve(self) -> None:
        while True:
            req = self.slot.take()
            if req is None:
                return
            try:
                self.run(req)
            except Exception as e:  # an engine error must not end the preview thread
                if self.on_error is not None:
                    self.on_error(e)

    def run(self, req: PreviewRequest) -> bool:
        """Run one request to its horizon; False when a newer request cancelled it."""
        sim = req.sim
        n = max(1, sim.n_agents)
        t0 = sim.time
        budget = min(sim.step_budget(), max(1, req.max_agent_steps // n))
        done = 0
        chunk = 32
        last = time.monotonic()
        while done < budget and sim.walking() > 0:
            k = min(chunk, budget - done)
            w = time.perf_counter()
            got = sim.run(max_steps=k)
            spent = time.perf_counter() - w
            done += k
            if got == 0:
                break
            # About 40 ms per chunk, so a newer request waits at most that long.
            chunk = int(np.clip(chunk * 0.04 / max(spent, 1e-6), 1, 4096))
            if self.slot.superseded(req.request):
                return False
            if time.monotonic() - last > PARTIAL_EVERY:
                self._publish(req, sim, False, t0)
                last = time.monotonic()
        if self.slot.superseded(req.request):
            return False
        self._publish(req, sim, sim.walking() == 0, t0)
        return True

    def _publish(self, req: PreviewRequest, sim, complete: bool, t0: float) -> None:
        rows, offsets = sim.recorder.paths(sim.n_agents)
        paths = ragged_polylines(rows[:, 1:3], offsets)
        self.publish(Ghost(req.generation, req.request, paths, complete, sim.time - t0))
