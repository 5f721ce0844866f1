"""What crosses between the UI thread and the simulation threads: commands in, immutable snapshots out.

Commands (``.commands``) are small frozen records the UI puts on a queue; the worker applies them between steps.
Everything the worker hands back is a frozen record of arrays it copied (napari's request/response: no array is
shared with a simulation that is still stepping). Arrays are float64 scene units unless stated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Commands (UI -> worker) are one frozen record a command, in .commands; re-exported here for the worker.
from .commands import Command, cmd

# ----- snapshots (worker -> UI) ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BuildInfo:
    """A simulation built or rebuilt (``generation`` counts builds and resets).

    - ``ids`` agent ids; ``profiles`` / ``terrains`` ids of the profile and terrain type tables;
    - ``params``: every parameter (core.sim.SimParams.to_dict) and ``method``;
    - ``methods``: steering methods the engine offers; ``compare``: the method running side by side, or None;
    - ``mesh_edges`` (m, 2, 2) segments of the triangulation and ``mesh_kind`` (m,) int8 (core.navmesh.debug
      EDGE_PLAIN, EDGE_TERRAIN, EDGE_BLOCKED).
    """

    generation: int
    scene_name: str
    ids: tuple[str, ...]
    profiles: tuple[str, ...]
    terrains: tuple[str, ...]
    params: dict
    method: str
    methods: tuple[str, ...]
    compare: str | None
    mesh_edges: np.ndarray
    mesh_kind: np.ndarray
    build_seconds: float
    scene_version: object = None
    document: int = 0


@dataclass(frozen=True, eq=False)
class Frame:
    """The latest agent positions: ``positions`` (n, 2), ``status`` (n,) int8 (core.sim WALKING/ARRIVED/LOST),
    ``profile`` (n,) int32; the side-by-side simulation's ``compare_positions`` (n, 2) or None. ``rate`` is the
    simulated seconds per wall second over the last second, ``step_ms`` the wall time of one step; ``lost`` names
    each agent lost for good with its reason ("id (reason)"); ``recovered_steps``, ``agent_steps`` and ``stalled``
    the recovery counter's totals (core.sim.progress: steps the progress guarantee walked, all steps walked,
    characters that stalled); ``world`` the outlines ((k, 2) each) of the obstacles that come and go or move, where
    they stand at ``time``."""

    generation: int
    time: float
    steps: int
    positions: np.ndarray
    status: np.ndarray
    profile: np.ndarray
    compare_positions: np.ndarray | None
    compare_status: np.ndarray | None
    playing: bool
    walking: int
    arrived: int
    rate: float
    step_ms: float
    lost: tuple[str, ...] = ()
    recovered_steps: int = 0
    agent_steps: int = 0
    stalled: int = 0
    world: tuple = ()


@dataclass(frozen=True, eq=False)
class TraceView:
    """The traced agent's last step (core.sim.AgentTrace) with what drawing it needs: ``route`` (m, 2) its
    route, ``pieces`` (k, 2) NaN-separated visible route pieces, ``window`` (k, 2) the route window [r_i,
    sigma_i]; ``corridor`` (m, 3) the disks [x, y, radius] of the agent's IRM corridor, empty for other methods."""

    generation: int
    agent: int
    trace: Any
    route: np.ndarray
    pieces: np.ndarray
    window: np.ndarray
    corridor: np.ndarray


@dataclass(frozen=True, eq=False)
class Trails:
    """Where the agents walked lately: (k, 2) float32 NaN-separated polylines, main and side-by-side."""

    generation: int
    main: np.ndarray
    compare: np.ndarray


@dataclass(frozen=True, eq=False)
class Ghost:
    """The ghost preview: every agent's future path, (k, 2) float32 NaN-separated; ``complete`` when every
    agent arrived within the horizon, ``horizon`` the simulated seconds looked ahead."""

    generation: int
    request: int
    paths: np.ndarray
    complete: bool
    horizon: float


@dataclass(frozen=True, eq=False)
class Stats:
    """For the plots: the traced agent's ``terrain_lengths`` (T,) and speed series ``speed_t`` / ``speed_v``
    (m,) (s, units/s); everyone's sorted arrival times ``arrivals`` (a,) s out of ``n`` agents; the same for the
    side-by-side simulation (``compare_*``, empty when none)."""

    generation: int
    agent: int
    terrain_lengths: np.ndarray
    speed_t: np.ndarray
    speed_v: np.ndarray
    arrivals: np.ndarray
    n: int
    compare_terrain_lengths: np.ndarray = field(default_factory=lambda: np.zeros(0))
    compare_arrivals: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass(frozen=True, eq=False)
class EcmView:
    """The GVD/ECM overlay: medial-axis ``segments`` (m, 4) float32 with their ``clearance`` (m,) float32, and
    closest-point segments ``spokes`` (k, 4) float32; ``seconds`` the build time, or the local update's where
    ``updated`` (the map of the scene shown before, updated around the obstacles edited since); ``document`` the
    Load it was built for."""

    segments: np.ndarray
    clearance: np.ndarray
    spokes: np.ndarray
    seconds: float
    document: int = 0
    updated: bool = False


@dataclass(frozen=True, eq=False)
class MeshView:
    """The running world's triangulation, sent when a change of the world during the run (an obstacle that came,
    went or was edited live) updated it: ``edges`` and ``kind`` as ``core.navmesh.debug.mesh_edges`` gives them,
    for the run of ``generation``."""

    generation: int
    edges: np.ndarray
    kind: np.ndarray


@dataclass(frozen=True, eq=False)
class Recorded:
    """What the run of ``generation`` recorded so far (a core.sim.replay.Replay), for the timeline, the density
    heatmap and the measurements."""

    generation: int
    replay: Any


@dataclass(frozen=True)
class Event:
    """A one-off report: ``kind`` is ``progress`` (fraction, stage), ``busy`` (text or None when done),
    ``error`` (title, text), ``exported`` (path, error or None), ``info`` (text), ``stale`` (bool)."""

    kind: str
    args: tuple = ()


def empty_xy(dtype=np.float64) -> np.ndarray:
    """A (0, 2) array."""
    return np.zeros((0, 2), dtype=dtype)


__all__ = ["BuildInfo", "Command", "EcmView", "Event", "Frame", "Ghost", "Recorded", "Stats", "TraceView", "Trails",
           "cmd", "empty_xy"]
