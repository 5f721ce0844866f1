"""The per-step debug trace of selected agents (MIRAN 3.1-3.4 made visible): computed only when asked for.

The step kernel fills flat buffers for the traced agents only (``slot`` (n,) int32 maps an agent to its row, -1
for agents not traced); ``StepTrace`` turns them into one ``AgentTrace`` of plain arrays per agent, which the
app draws as overlays (reference point, visible intervals, candidates coloured by omega, attraction point,
forces).

Buffers (k traced agents, MI interval slots, MC candidate slots):
- ``scalars`` (k, N_SCALARS) float64, columns TS_*;
- ``intervals`` (k, MI, 2) float64 visible arc-length intervals [a_j, b_j] of the route window (MIRAN 3.2);
- ``adjusted`` (k, MI, 2) float64 the intervals after the disc adjustment (Kremyzas 4.1; disc agents only);
- ``cands`` (k, MC, 4) float64 candidate rows [s, x, y, omega] in route order (MIRAN 3.3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fidelity import KEEP_REASONS

(TS_S_REF, TS_REF_X, TS_REF_Y, TS_S_END, TS_S_ATTR, TS_ATTR_X, TS_ATTR_Y, TS_FS_X, TS_FS_Y, TS_FB_X, TS_FB_Y,
 TS_FO_X, TS_FO_Y, TS_F_X, TS_F_Y, TS_CLEAR, TS_NEAR_X, TS_NEAR_Y, TS_N_INT, TS_N_ADJ, TS_N_CAND, TS_FALLBACK,
 TS_POS_X, TS_POS_Y, TS_TIME, TS_KEEP) = range(26)
N_SCALARS = 26

MAX_INTERVALS = 64


@dataclass(frozen=True, eq=False)
class AgentTrace:
    """What one agent's step computed, at the position it stood on before moving (scene units, seconds).

    - ``position`` (2,) x_i; ``time`` the simulated time of the step;
    - ``reference_s`` / ``reference`` (2,): r_i; ``window_end_s``: arc length of sigma_i;
    - ``intervals`` (k, 2): visible arc-length intervals; ``adjusted`` (k', 2): after the disc adjustment;
    - ``candidate_s`` (m,), ``candidates`` (m, 2), ``omega`` (m,): the candidates and their weights
      (inf where a disc cannot sweep there; NaN where a lower bound already ruled it out);
    - ``attraction_s`` / ``attraction`` (2,): alpha_i; ``fallback``: 0 normal choice, 1 previous attraction
      point kept, 2 reference point, 3 lost (nothing visible);
    - ``forces``: {"steering", "boundary", "avoidance", "total"} each (2,); ``clearance`` and
      ``nearest_obstacle`` (2,): d_b and b(x) of the boundary force;
    - ``status`` after the step: "walking", "arrived" or "lost", with ``lost_reason``; ``recovering``: the progress
      guarantee walks the agent (core.sim.progress); ``recovered_steps`` and ``stalls``: the agent's recovery
      counter so far (steps the guarantee walked, recoveries started);
    - ``keep``: in fast mode (core.sim.fidelity), "kept" when the agent walked on its kept attraction point (no
      intervals or candidates were computed), else why it chose exactly ("age", "near", "blocked", "terrain
      change", "costly terrain", "sweep", "unlocated", "recovering"); "" in exact mode and for IRM agents;
      ``kept_steps``: how many steps it has walked on its current choice.
    """

    agent: int
    agent_id: str
    time: float
    position: np.ndarray
    reference_s: float
    reference: np.ndarray
    window_end_s: float
    intervals: np.ndarray
    adjusted: np.ndarray
    candidate_s: np.ndarray
    candidates: np.ndarray
    omega: np.ndarray
    attraction_s: float
    attraction: np.ndarray
    fallback: int
    forces: dict[str, np.ndarray]
    clearance: float
    nearest_obstacle: np.ndarray
    status: str = "walking"
    lost_reason: str = ""
    recovering: bool = False
    recovered_steps: int = 0
    stalls: int = 0
    keep: str = ""
    kept_steps: int = 0


class TraceBuffers:
    """The buffers for one traced step of the agents ``agents`` ((k,) int64) among n."""

    def __init__(self, n: int, agents: np.ndarray, max_candidates: int) -> None:
        self.agents = np.asarray(agents, dtype=np.int64)
        k = len(self.agents)
        self.slot = np.full(n, -1, dtype=np.int32)
        self.slot[self.agents] = np.arange(k, dtype=np.int32)
        self.scalars = np.full((k, N_SCALARS), np.nan)
        self.intervals = np.zeros((k, MAX_INTERVALS, 2))
        self.adjusted = np.zeros((k, MAX_INTERVALS, 2))
        self.cands = np.zeros((k, max(1, max_candidates), 4))

    @classmethod
    def empty(cls, n: int) -> "TraceBuffers":
        """No agent traced: zero-size buffers, every slot -1 (what an ordinary step passes)."""
        return cls(n, np.zeros(0, dtype=np.int64), 1)

    def kernel_tuple(self) -> tuple:
        return (self.slot, self.scalars, self.intervals, self.adjusted, self.cands)

    def read(self, ids: list[str]) -> list[AgentTrace]:
        """One AgentTrace per traced agent, copied out of the buffers."""
        out = []
        for row, i in enumerate(self.agents.tolist()):
            s = self.scalars[row]
            if np.isnan(s[TS_S_REF]):
                continue
            ni, na, nc = int(s[TS_N_INT]), int(s[TS_N_ADJ]), int(s[TS_N_CAND])
            c = self.cands[row, :nc]
            out.append(AgentTrace(
                agent=i, agent_id=ids[i], time=float(s[TS_TIME]),
                position=np.array([s[TS_POS_X], s[TS_POS_Y]]),
                reference_s=float(s[TS_S_REF]), reference=np.array([s[TS_REF_X], s[TS_REF_Y]]),
                window_end_s=float(s[TS_S_END]),
                intervals=self.intervals[row, :ni].copy(), adjusted=self.adjusted[row, :na].copy(),
                candidate_s=c[:, 0].copy(), candidates=c[:, 1:3].copy(), omega=c[:, 3].copy(),
                attraction_s=float(s[TS_S_ATTR]), attraction=np.array([s[TS_ATTR_X], s[TS_ATTR_Y]]),
                fallback=int(s[TS_FALLBACK]),
                forces={"steering": np.array([s[TS_FS_X], s[TS_FS_Y]]),
                        "boundary": np.array([s[TS_FB_X], s[TS_FB_Y]]),
                        "avoidance": np.array([s[TS_FO_X], s[TS_FO_Y]]),
                        "total": np.array([s[TS_F_X], s[TS_F_Y]])},
                clearance=float(s[TS_CLEAR]), nearest_obstacle=np.array([s[TS_NEAR_X], s[TS_NEAR_Y]]),
                keep="" if np.isnan(s[TS_KEEP]) else KEEP_REASONS[int(s[TS_KEEP])],
            ))
        return out
