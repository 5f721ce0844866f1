"""A recorded run that can be looked at any time: the recorder's walked paths as flat arrays, queried at time t.

The store holds the rows of every agent's path sorted by agent then time (the recorder's ragged layout, the same
rows a ``miran-paths`` file holds): ``t`` (m,) float64 s, ``xy`` (m, 2) float64 scene units, ``offsets`` (n + 1,)
int64 (agent i's rows are ``offsets[i]:offsets[i + 1]``), with the agents' ``ids``, ``profile`` (n,) int32 and
final ``status`` (n,) int8 (core.sim.state WALKING / ARRIVED / LOST). The live simulation's Recorder and a paths
file both become one; every query is a few vectorised searches over all agents at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .state import ARRIVED, LOST, WALKING

_STATUS_CODES = {"walking": WALKING, "arrived": ARRIVED, "lost": LOST}


@dataclass(frozen=True, eq=False)
class Replay:
    """The walked paths of n agents (see the module's docstring); immutable, safe to hand to another thread."""

    ids: tuple[str, ...]
    profiles: tuple[str, ...]
    profile: np.ndarray
    status: np.ndarray
    t: np.ndarray
    xy: np.ndarray
    offsets: np.ndarray
    dt: float
    _key: np.ndarray = field(init=False, repr=False)
    _span: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        n = len(self.ids)
        if len(self.offsets) != n + 1 or len(self.profile) != n or len(self.status) != n:
            raise ValueError(f"a replay of {n} agents needs {n + 1} offsets and {n} profiles and statuses")
        if len(self.t) and (np.diff(self.offsets) == 0).any():
            raise ValueError(f"agent {self.ids[int(np.argmax(np.diff(self.offsets) == 0))]!r} has no recorded point")
        span = float(self.t.max() - self.t.min()) + 1.0 if len(self.t) else 1.0
        agent = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.offsets))
        # One sorted key for every row: agent i's times shifted into [i * span, (i + 1) * span).
        object.__setattr__(self, "_key", agent * span + (self.t - self.t0))
        object.__setattr__(self, "_span", span)

    # ----- building ---------------------------------------------------------------------------------------------

    @classmethod
    def from_simulation(cls, sim) -> "Replay":
        """What a Simulation has recorded so far (a copy: the simulation may step on)."""
        st = sim.state
        rows, offsets = sim.recorder.paths(st.n)
        return cls(tuple(st.ids), tuple(sim.params.profile_ids), st.profile.astype(np.int32).copy(),
                   st.status.astype(np.int8).copy(), rows[:, 0].copy(), np.ascontiguousarray(rows[:, 1:3]),
                   offsets, float(sim.params.dt))

    @classmethod
    def from_paths(cls, pf) -> "Replay":
        """A ``miran-paths`` document (core.export.PathsFile)."""
        names = sorted({a.profile for a in pf.agents})
        counts = np.array([len(a.points) for a in pf.agents], dtype=np.int64)
        offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        rows = np.concatenate([a.points for a in pf.agents]) if pf.agents else np.zeros((0, 3))
        return cls(tuple(a.id for a in pf.agents), tuple(names),
                   np.array([names.index(a.profile) for a in pf.agents], dtype=np.int32),
                   np.array([_STATUS_CODES[a.status] for a in pf.agents], dtype=np.int8),
                   np.ascontiguousarray(rows[:, 0]), np.ascontiguousarray(rows[:, 1:3]), offsets, float(pf.dt))

    # ----- what it holds ----------------------------------------------------------------------------------------

    @property
    def n(self) -> int:
        return len(self.ids)

    @property
    def t0(self) -> float:
        """The earliest recorded time (s)."""
        return float(self.t.min()) if len(self.t) else 0.0

    @property
    def t1(self) -> float:
        """The latest recorded time (s)."""
        return float(self.t.max()) if len(self.t) else 0.0

    def times(self) -> np.ndarray:
        """Every distinct recorded time, sorted (the timeline's stops)."""
        return np.unique(self.t)

    def path(self, i: int) -> np.ndarray:
        """(m, 3) float64 [t, x, y] rows of agent i."""
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        return np.column_stack([self.t[a:b], self.xy[a:b]])

    # ----- queries at time t ------------------------------------------------------------------------------------

    def _bracket(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per agent: the last row at or before t (clamped to its first row), the next row (clamped to its last)
        and the interpolation weight of the next row in [0, 1]."""
        first, last = self.offsets[:-1], self.offsets[1:] - 1
        q = np.arange(self.n, dtype=np.float64) * self._span + (float(t) - self.t0)
        j = np.clip(np.searchsorted(self._key, q, side="right") - 1, first, last)
        k = np.minimum(j + 1, last)
        gap = self.t[k] - self.t[j]
        w = np.where(gap > 0, np.clip((t - self.t[j]) / np.where(gap > 0, gap, 1.0), 0.0, 1.0), 0.0)
        return j, k, w

    def positions_at(self, t: float) -> np.ndarray:
        """(n, 2) positions at time t: linear between the recorded rows around t (exactly a recorded row at a
        recorded time), an agent's first point before its path starts and its last after it ends."""
        if self.n == 0:
            return np.zeros((0, 2))
        j, k, w = self._bracket(t)
        return self.xy[j] + w[:, None] * (self.xy[k] - self.xy[j])

    def status_at(self, t: float) -> np.ndarray:
        """(n,) int8 status at time t: the final status once an agent's path has ended, WALKING before."""
        ended = self.t[self.offsets[1:] - 1] <= t
        return np.where(ended, self.status, WALKING).astype(np.int8)

    def present_at(self, t: float) -> np.ndarray:
        """(n,) bool: agents whose recorded path covers time t (PedPy's frames: from first to last point)."""
        return (self.t[self.offsets[:-1]] <= t) & (t <= self.t[self.offsets[1:] - 1])

    def trails(self, t: float, length: float) -> np.ndarray:
        """Each agent's path over [t - length, t] as one (k, 2) float32 NaN-separated polyline array (the form
        the trails layer draws), ending at the position at t."""
        if self.n == 0:
            return np.zeros((0, 2), dtype=np.float32)
        lo = np.searchsorted(self._key, np.arange(self.n) * self._span + (t - length - self.t0), side="left")
        hi = np.searchsorted(self._key, np.arange(self.n) * self._span + (t - self.t0), side="right")
        lo = np.clip(lo, self.offsets[:-1], self.offsets[1:])
        hi = np.clip(hi, lo, self.offsets[1:])
        counts = hi - lo + 2                       # the samples, the point at t and a NaN row
        starts = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        out = np.full((int(starts[-1]), 2), np.nan, dtype=np.float32)
        within = np.arange(int(starts[-1])) - np.repeat(starts[:-1], counts)
        agent = np.repeat(np.arange(self.n), counts)
        sample = within < (counts - 2)[agent]
        out[sample] = self.xy[(lo[agent] + within)[sample]]
        out[starts[1:] - 2] = self.positions_at(t)
        return out

    def speeds(self, i: int, upto: float) -> tuple[np.ndarray, np.ndarray]:
        """Agent i's speed series up to time ``upto``: (times, units/s) of each recorded step."""
        p = self.path(i)
        p = p[p[:, 0] <= upto]
        if len(p) < 2:
            return np.zeros(0), np.zeros(0)
        d = np.diff(p, axis=0)
        ok = d[:, 0] > 0
        return p[1:, 0][ok], np.hypot(d[ok, 1], d[ok, 2]) / d[ok, 0]

    def arrivals(self, upto: float) -> np.ndarray:
        """Sorted arrival times of the agents arrived by ``upto``."""
        end = self.t[self.offsets[1:] - 1]
        return np.sort(end[(self.status == ARRIVED) & (end <= upto)])

    def frames(self, t0: float, t1: float) -> list[tuple[float, np.ndarray]]:
        """(time, (k, 2) positions of the agents present) at every recorded time in [t0, t1]."""
        ts = self.times()
        ts = ts[(ts >= t0) & (ts <= t1)]
        return [(float(t), self.positions_at(t)[self.present_at(t)]) for t in ts]
