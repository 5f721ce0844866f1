"""Struct-of-arrays agent state: one row per agent in flat numpy arrays, no Python object per agent.

Arrays (n = number of agents; positions in scene units, velocities in units/s, forces in units/s^2):
- ``pos`` (n, 2) float64 position x_i; ``vel`` (n, 2) float64 velocity; ``force`` (n, 2) float64 last total
  force (Verlet needs it); ``has_force`` (n,) bool whether ``force`` is valid.
- ``attr`` (n, 2) float64 current attraction point alpha_i; ``s_ref`` / ``s_attr`` (n,) float64 arc lengths of
  the reference and attraction points along the agent's route (MIRAN 3.1); ``attr_age`` (n,) int32 how many
  steps ago the attraction point was chosen (-1: choose at the next step; fast mode keeps it, core.sim.fidelity).
- ``route_lo`` / ``route_hi`` (n,) int64: the agent's route is rows [lo, hi) of the packed route arrays.
- ``goal`` (n, 2) float64 the route's last point g.
- ``profile`` (n,) int32 row in the profile table; ``method`` (n,) int8 steering code (core.steering.methods).
- ``radius`` (n,) float64 the disc radius R (may change between steps); ``tri`` (n,) int32 the navmesh triangle
  holding ``pos`` (-1 when unknown).
- ``status`` (n,) int8: WALKING, ARRIVED, or LOST; ``lost_reason`` (n,) int8 why a LOST agent is lost (the
  REASON_* codes below: its route window out of sight or its way blocked, both replanned when replanning is on; no
  route from where it stands; no progress for too long).
- ``t_arrive`` (n,) float64 arrival time (s, NaN while walking); ``length`` (n,) float64 walked length;
  ``terrain_len`` (n, T) float64 walked length on each terrain type, measured exactly on each step's segment;
  ``min_clear`` (n,) float64 smallest clearance met at the positions of the path (units).
- The progress guarantee (core.sim.progress): ``prog_t`` (n,) float64 the time of the agent's last progress (s);
  ``prog_s``, ``prog_a`` (n,) float64 its reference and attraction arc lengths then; ``prog_sa`` and ``prog_d`` (n,)
  float64 the attraction arc length it is heading for and the nearest it came to that point; ``rec_s`` (n,) float64
  the arc length a recovering agent walks its route to (-1: not recovering) and ``rec_u`` (n,) float64 where on the
  route it stands (-1: still heading for its attraction point); ``replans`` (n,) int32 how often it was replanned;
  the public recovery counter, over the agent's whole life (replans and new errands included): ``walk_steps`` (n,)
  int64 the steps it walked, ``rec_steps`` (n,) int64 how many of them the recovery walked, ``stalls`` (n,) int32
  how often it stalled (each stall starts one recovery).
- ``noise_phase`` (n,) float64 the agent's offset into the Perlin noise (IRM 4.4); ``corr_lo`` / ``corr_hi`` (n,)
  int64 its IRM corridor, rows [lo, hi) of the simulation's CorridorBook (empty for other methods); ``corr_k`` (n,)
  int64 the corridor disc it was last retracted to; ``corr_ds`` (n,) float64 its admissible safe distance (IRM
  eq. 2); ``corr_ak`` (n,) int64 the disc its attraction point was taken on (-1: none yet). These travel to the
  kernels in the crowd extras (core.sim.kernel_inputs.CrowdArrays), not in ``AgentArrays``.

Rows are appended with ``append`` (amortised growth); views ``[:n]`` are what the kernels receive.
"""

from __future__ import annotations

import numpy as np

from .agent_arrays import AgentArrays, ProgressArrays

WALKING = 0
ARRIVED = 1
LOST = 2

# Why a LOST agent is lost (``lost_reason``). SIGHT and BLOCKED are replanned (MIRAN 3.5) when replanning is on.
REASON_NONE = 0
REASON_SIGHT = 1      # no part of its route window visible (MIRAN 3.5), or, for IRM, neither attraction point
REASON_BLOCKED = 2    # its route is blocked where it must walk it (an obstacle, or a gap narrower than its disc)
REASON_NO_ROUTE = 3   # no route to its goal from where it stands
REASON_NO_PROGRESS = 4  # replanned again and again without reaching its goal
REASON_NO_CLEARANCE = 5  # no route from its start to its goal keeps its clearance (it never walked)
REASON_NO_FIT = 6     # its disc overlaps an obstacle at its start or cannot stand on its goal (it never walked)
REASON_CLOSED_OFF = 7  # an obstacle added during the run left it no route to its goal (replanned when one goes)
REASON_NAMES = {REASON_NONE: "", REASON_SIGHT: "lost sight of its route", REASON_BLOCKED: "its route is blocked",
                REASON_NO_ROUTE: "no route to its goal", REASON_NO_PROGRESS: "no progress",
                REASON_NO_CLEARANCE: "no route keeps its clearance",
                REASON_NO_FIT: "its disc does not fit at its start or goal",
                REASON_CLOSED_OFF: "its goal was closed off"}
REPLANNABLE = (REASON_NONE, REASON_SIGHT, REASON_BLOCKED)

_FIELDS = (
    ("pos", np.float64, 2), ("vel", np.float64, 2), ("force", np.float64, 2), ("has_force", np.bool_, 0),
    ("attr", np.float64, 2), ("s_ref", np.float64, 0), ("s_attr", np.float64, 0),
    ("route_lo", np.int64, 0), ("route_hi", np.int64, 0), ("goal", np.float64, 2),
    ("profile", np.int32, 0), ("method", np.int8, 0), ("radius", np.float64, 0), ("tri", np.int32, 0),
    ("status", np.int8, 0), ("t_arrive", np.float64, 0), ("length", np.float64, 0),
    ("min_clear", np.float64, 0), ("lost_reason", np.int8, 0),
    ("prog_t", np.float64, 0), ("prog_s", np.float64, 0), ("prog_a", np.float64, 0), ("prog_sa", np.float64, 0),
    ("prog_d", np.float64, 0), ("rec_s", np.float64, 0), ("rec_u", np.float64, 0), ("replans", np.int32, 0),
    ("walk_steps", np.int64, 0), ("rec_steps", np.int64, 0), ("stalls", np.int32, 0),
    ("noise_phase", np.float64, 0), ("corr_lo", np.int64, 0), ("corr_hi", np.int64, 0), ("corr_k", np.int64, 0),
    ("corr_ds", np.float64, 0), ("corr_ak", np.int64, 0), ("attr_age", np.int32, 0),
)


class AgentState:
    """All agents' state as flat arrays; ``n`` rows are in use out of a larger capacity."""

    # The views of the rows in use, one read-only property per field of _FIELDS (installed below the class).
    pos: np.ndarray
    vel: np.ndarray
    force: np.ndarray
    has_force: np.ndarray
    attr: np.ndarray
    s_ref: np.ndarray
    s_attr: np.ndarray
    route_lo: np.ndarray
    route_hi: np.ndarray
    goal: np.ndarray
    profile: np.ndarray
    method: np.ndarray
    radius: np.ndarray
    tri: np.ndarray
    status: np.ndarray
    t_arrive: np.ndarray
    length: np.ndarray
    min_clear: np.ndarray
    lost_reason: np.ndarray
    prog_t: np.ndarray
    prog_s: np.ndarray
    prog_a: np.ndarray
    prog_sa: np.ndarray
    prog_d: np.ndarray
    rec_s: np.ndarray
    rec_u: np.ndarray
    replans: np.ndarray
    walk_steps: np.ndarray
    rec_steps: np.ndarray
    stalls: np.ndarray
    noise_phase: np.ndarray
    corr_lo: np.ndarray
    corr_hi: np.ndarray
    corr_k: np.ndarray
    corr_ds: np.ndarray
    corr_ak: np.ndarray
    attr_age: np.ndarray
    terrain_len: np.ndarray

    def __init__(self, n_terrain_types: int, capacity: int = 16) -> None:
        self.n = 0
        self.n_types = int(n_terrain_types)
        self.ids: list[str] = []
        self._cap = 0
        self._buf: dict[str, np.ndarray] = {}
        self._grow(max(1, capacity))

    def _grow(self, cap: int) -> None:
        new: dict[str, np.ndarray] = {}
        for name, dtype, width in _FIELDS + (("terrain_len", np.float64, self.n_types),):
            shape = (cap, width) if width else (cap,)
            a = np.zeros(shape, dtype=dtype)
            if name in self._buf:
                a[: self.n] = self._buf[name][: self.n]
            new[name] = a
        self._buf = new
        self._cap = cap

    def __len__(self) -> int:
        return self.n

    def append(self, ids: list[str], pos: np.ndarray, route_lo: np.ndarray, route_hi: np.ndarray,
               goal: np.ndarray, profile: np.ndarray, method: np.ndarray, radius: np.ndarray) -> np.ndarray:
        """Add k agents standing still at ``pos`` (k, 2) at the start of their routes; returns their indices."""
        k = len(ids)
        if self.n + k > self._cap:
            self._grow(max(self.n + k, 2 * self._cap))
        sl = slice(self.n, self.n + k)
        b = self._buf
        for name in ("vel", "force", "s_ref", "s_attr", "length", "terrain_len", "lost_reason", "replans",
                     "walk_steps", "rec_steps", "stalls"):
            b[name][sl] = 0
        b["has_force"][sl] = False
        b["pos"][sl] = pos
        b["attr"][sl] = pos
        b["route_lo"][sl] = route_lo
        b["route_hi"][sl] = route_hi
        b["goal"][sl] = goal
        b["profile"][sl] = profile
        b["method"][sl] = method
        b["radius"][sl] = radius
        b["tri"][sl] = -1
        b["status"][sl] = WALKING
        b["t_arrive"][sl] = np.nan
        b["min_clear"][sl] = np.inf
        self.ids.extend(ids)
        self.n += k
        idx = np.arange(sl.start, sl.stop)
        self.restart_progress(idx, 0.0)
        return idx

    def restart_progress(self, idx: np.ndarray, t: float) -> None:
        """Start the progress guarantee afresh for agents ``idx`` at time t (a new agent or a new route)."""
        b = self._buf
        b["prog_t"][idx] = t
        b["prog_s"][idx] = 0.0
        b["prog_a"][idx] = 0.0
        b["prog_sa"][idx] = -1.0
        b["prog_d"][idx] = np.inf
        b["rec_s"][idx] = -1.0
        b["rec_u"][idx] = -1.0
        b["attr_age"][idx] = -1

    def layout_key(self) -> tuple:
        """Equal as long as the views ``[:n]`` stay the same arrays: it changes when agents are added. (The id is of
        an array that every cached view keeps alive, so it cannot be reused while a cache holds it.)"""
        return self.n, id(self._buf["pos"])

    def kernel_arrays(self) -> AgentArrays:
        """The arrays the step kernel reads, as named by core.sim.agent_arrays; the same views until agents are
        added (a run calls this once per chunk of steps)."""
        key = self.layout_key()
        cached = self.__dict__.get("_kt")
        if cached is None or cached[0] != key:
            prog = ProgressArrays(**{name: getattr(self, name) for name in ProgressArrays._fields})
            views = {name: getattr(self, name) for name in AgentArrays._fields if name != "prog"}
            cached = (key, AgentArrays(**views, prog=prog))
            self.__dict__["_kt"] = cached
        return cached[1]

    def copy(self) -> "AgentState":
        """An independent copy of every array (for forks and snapshots)."""
        c = AgentState(self.n_types, max(1, self.n))
        c.n = self.n
        c.ids = list(self.ids)
        for name, a in self._buf.items():
            c._buf[name][: self.n] = a[: self.n]
        return c


def _rows_in_use(name: str) -> property:
    """A read-only attribute giving the view of field ``name``'s rows in use (a property, not ``__getattr__``: the
    simulation reads these views every call, and Python's fallback lookup costs a microsecond each)."""

    def get(self: AgentState) -> np.ndarray:
        return self._buf[name][: self.n]

    get.__doc__ = f"The ``{name}`` rows of the agents in use (a view)."
    return property(get)


for _name in tuple(f[0] for f in _FIELDS) + ("terrain_len",):
    setattr(AgentState, _name, _rows_in_use(_name))
