"""The walked paths as an append-only log the step kernel writes: one row per agent per recorded step.

``every`` says which steps are logged: every walker's position on each ``every``-th step of the run, plus each
arrival (so a path ends at its goal); 0 logs nothing, and the log then never grows.

Arrays: ``agent`` (cap,) int32 agent index, ``t`` (cap,) float64 time (s), ``xy`` (cap, 2) float64 position
(scene units), and ``cursor`` (1,) int64 the number of rows written. Rows of one agent appear in time order; the
paths are split out per agent with one stable sort (the shapely ragged layout: coordinates plus offsets).
"""

from __future__ import annotations

import numpy as np

from core.scene.problems import InputError, Problem

# The largest recording interval accepted (steps): beyond it a path would be its start and its arrival only.
MAX_RECORD_EVERY = 10**9


class Recorder:
    """Growable path log; ``ensure(k)`` before a kernel call that may append up to k rows."""

    def __init__(self, capacity: int = 1024, every: int = 1) -> None:
        self.agent = np.zeros(capacity, dtype=np.int32)
        self.t = np.zeros(capacity, dtype=np.float64)
        self.xy = np.zeros((capacity, 2), dtype=np.float64)
        self.cursor = np.zeros(1, dtype=np.int64)
        self.every = int(every)

    @property
    def enabled(self) -> bool:
        """Whether any position is logged (``every`` > 0); setting it logs every step or none."""
        return self.every > 0

    @enabled.setter
    def enabled(self, on: bool) -> None:
        self.every = 1 if on else 0

    def __len__(self) -> int:
        return int(self.cursor[0])

    def ensure(self, k: int) -> None:
        """Make room for k more rows (amortised doubling)."""
        need = int(self.cursor[0]) + int(k)
        cap = len(self.t)
        if need <= cap:
            return
        cap = max(need, 2 * cap)
        m = int(self.cursor[0])
        for name in ("agent", "t"):
            old = getattr(self, name)
            new = np.zeros(cap, dtype=old.dtype)
            new[:m] = old[:m]
            setattr(self, name, new)
        xy = np.zeros((cap, 2), dtype=np.float64)
        xy[:m] = self.xy[:m]
        self.xy = xy

    def append(self, agents: np.ndarray, t: float, xy: np.ndarray) -> None:
        """Append rows from Python (initial positions of new agents)."""
        k = len(agents)
        self.ensure(k)
        m = int(self.cursor[0])
        self.agent[m: m + k] = agents
        self.t[m: m + k] = t
        self.xy[m: m + k] = xy
        self.cursor[0] = m + k

    def buffers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(agent, t, xy, cursor) for the kernel."""
        return self.agent, self.t, self.xy, self.cursor

    def paths(self, n_agents: int) -> tuple[np.ndarray, np.ndarray]:
        """All paths as ``rows`` (m, 3) float64 [t, x, y] sorted by agent then time, and ``offsets`` (n+1,) int64:
        agent i's path is ``rows[offsets[i]:offsets[i + 1]]``."""
        m = int(self.cursor[0])
        agent = self.agent[:m]
        order = np.argsort(agent, kind="stable")
        rows = np.empty((m, 3), dtype=np.float64)
        rows[:, 0] = self.t[:m][order]
        rows[:, 1:] = self.xy[:m][order]
        counts = np.bincount(agent, minlength=n_agents)[:n_agents]
        offsets = np.zeros(n_agents + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return rows, offsets

    def path(self, i: int) -> np.ndarray:
        """(m, 3) float64 [t, x, y] rows of agent i in time order."""
        m = int(self.cursor[0])
        sel = self.agent[:m] == i
        out = np.empty((int(sel.sum()), 3), dtype=np.float64)
        out[:, 0] = self.t[:m][sel]
        out[:, 1:] = self.xy[:m][sel]
        return out

    def copy(self) -> "Recorder":
        c = Recorder(max(1, len(self)))
        m = len(self)
        c.agent[:m] = self.agent[:m]
        c.t[:m] = self.t[:m]
        c.xy[:m] = self.xy[:m]
        c.cursor[0] = m
        c.every = self.every
        return c


def record_every(record: bool | int) -> int:
    """What a ``record`` argument means in steps: True every step (1), False none (0), an integer N >= 0 every N
    steps; InputError naming ``record`` for anything else."""
    if isinstance(record, (bool, np.bool_)):
        return 1 if record else 0
    if isinstance(record, (int, np.integer)) and 0 <= int(record) <= MAX_RECORD_EVERY:
        return int(record)
    raise InputError([Problem("record", f"expected True, False or a whole number of steps between 0 and "
                                        f"{MAX_RECORD_EVERY}, got {record!r}")])
