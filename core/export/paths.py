"""The ``miran-paths`` v1 file (docs: Reference, paths format): the walked paths of a run, written atomically and read
back validated.

A file holds the run's settings and, per agent: ``points`` as ``[t, x, y]`` rows (s, scene units), the length
per terrain type measured exactly on that polyline, the total and weighted length, the smallest clearance of the
path (minus the radius for disc agents: disc MIRAN and IRM), whether the goal was reached and when, and the agent's
final ``status`` (``walking``, ``arrived`` or ``lost``) with the ``lost_reason`` of a lost one.

The recovery counter (core.sim.progress) is an optional v1 extension, written for an agent that stalled at least
once: ``stalls`` (recoveries started), ``recovered_steps`` (steps the progress guarantee walked) and ``steps`` (all
the steps it walked). Absent, it reads as no stall and no recovered step; files without it stay valid.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.scene.fields import FieldReader, join
from core.scene.jsonio import read_json, write_json_atomic
from core.scene.model import INTEGRATORS, METHODS
from core.scene.problems import InputError

FORMAT = "miran-paths"
VERSION = 1
TOP_REQUIRED = ("format", "version", "scene", "method", "integrator", "dt", "agents")
TOP_OPTIONAL = ("parameters",)
AGENT_REQUIRED = ("id", "profile", "reached_goal", "time", "length", "weighted_length", "terrain_lengths",
                  "min_clearance", "points")
AGENT_OPTIONAL = ("status", "lost_reason", "steps", "recovered_steps", "stalls")
STATUSES = ("walking", "arrived", "lost")
# Relative tolerance of the reader's consistency check: length == sum of terrain_lengths (resources/schemas).
_LENGTH_RTOL = 1e-6


@dataclass(frozen=True, eq=False)
class AgentPath:
    """One agent's walked path; ``points`` is (m, 3) float64 ``[t, x, y]`` rows in time order; ``status`` is
    walking, arrived or lost, and ``lost_reason`` says why a lost agent is lost (empty otherwise); ``steps``,
    ``recovered_steps`` and ``stalls`` its recovery counter (``steps`` -1 where the file does not say)."""

    id: str
    profile: str
    reached_goal: bool
    time: float
    length: float
    weighted_length: float
    terrain_lengths: dict[str, float]
    min_clearance: float
    points: np.ndarray
    status: str = ""
    lost_reason: str = ""
    steps: int = -1
    recovered_steps: int = 0
    stalls: int = 0

    def __post_init__(self) -> None:
        if not self.status:
            object.__setattr__(self, "status", "arrived" if self.reached_goal else "walking")

    @property
    def xy(self) -> np.ndarray:
        """(m, 2) float64 positions."""
        return self.points[:, 1:3]


@dataclass(frozen=True, eq=False)
class PathsFile:
    """A whole ``miran-paths`` document."""

    scene: str
    method: str
    integrator: str
    dt: float
    agents: list[AgentPath]
    parameters: dict[str, Any] = field(default_factory=dict)

    def agent(self, agent_id: str) -> AgentPath:
        """The path of the agent with this id."""
        for a in self.agents:
            if a.id == agent_id:
                return a
        raise KeyError(agent_id)


def paths_to_dict(pf: PathsFile) -> dict[str, Any]:
    """The document as JSON-ready data, keys in the order the paths format lists them (docs: Reference, paths
    format)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "scene": pf.scene,
        "method": pf.method,
        "integrator": pf.integrator,
        "dt": float(pf.dt),
        "parameters": pf.parameters,
        "agents": [
            {
                "id": a.id,
                "profile": a.profile,
                "reached_goal": bool(a.reached_goal),
                "time": float(a.time),
                "length": float(a.length),
                "weighted_length": float(a.weighted_length),
                "terrain_lengths": {k: float(v) for k, v in a.terrain_lengths.items()},
                "min_clearance": float(a.min_clearance),
                "status": a.status,
                **({"lost_reason": a.lost_reason} if a.lost_reason else {}),
                **({"steps": int(a.steps), "recovered_steps": int(a.recovered_steps), "stalls": int(a.stalls)}
                   if a.stalls else {}),
                "points": np.asarray(a.points, dtype=np.float64).tolist(),
            }
            for a in pf.agents
        ],
    }


def write_paths(path: str | os.PathLike, pf: PathsFile) -> None:
    """Write a paths file atomically (temporary file + rename)."""
    write_json_atomic(path, paths_to_dict(pf), indent=None)


def read_paths(path: str | os.PathLike) -> PathsFile:
    """Read and validate a paths file; InputError lists every problem with its JSON path."""
    return parse_paths(read_json(path), str(path))


def parse_paths(data: Any, source: str = "") -> PathsFile:
    """Build a PathsFile from parsed JSON, or raise InputError listing every problem."""
    pf, problems = check_paths(data)
    if problems:
        raise InputError(problems, source)
    assert pf is not None
    return pf


def check_paths(data: Any) -> tuple[PathsFile | None, list]:
    """Validate a parsed document: the PathsFile (None when there are problems) and the list of problems."""
    r = FieldReader()
    top = r.obj("", data, TOP_REQUIRED, TOP_OPTIONAL)
    if top is None:
        return None, r.problems
    if "format" in top and top["format"] != FORMAT:
        r.add("format", f"expected {FORMAT!r}, got {top['format']!r}")
    if "version" in top and (isinstance(top["version"], bool) or top["version"] != VERSION):
        r.add("version", f"unsupported version {top['version']!r} (this program reads version {VERSION})")
    scene = r.string("scene", top.get("scene"), nonempty=False)
    method = r.choice("method", top.get("method"), METHODS)
    integrator = r.choice("integrator", top.get("integrator"), INTEGRATORS)
    dt = r.number("dt", top.get("dt"), positive=True)
    params = top.get("parameters", {})
    if not isinstance(params, dict):
        r.add("parameters", "expected an object")
        params = {}
    agents_v = r.list_("agents", top.get("agents"))
    agents: list[AgentPath] = []
    seen: dict[str, int] = {}
    for i, v in enumerate(agents_v or []):
        a = _agent(r, f"agents[{i}]", v)
        if a is None:
            continue
        if a.id in seen:
            r.add(f"agents[{i}].id", f"duplicate id {a.id!r} (also agents[{seen[a.id]}])")
        seen.setdefault(a.id, i)
        agents.append(a)
    # The readers return None only after recording a problem: the None tests are for the type checker.
    if r.problems or method is None or integrator is None or dt is None:
        return None, r.problems
    return PathsFile(scene or "", method, integrator, dt, agents, params), []


def _agent(r: FieldReader, path: str, v: Any) -> AgentPath | None:
    o = r.obj(path, v, AGENT_REQUIRED, AGENT_OPTIONAL)
    if o is None:
        return None
    before = len(r.problems)
    aid = r.string(join(path, "id"), o.get("id"))
    prof = r.string(join(path, "profile"), o.get("profile"))
    reached = o.get("reached_goal")
    if not isinstance(reached, bool):
        r.add(join(path, "reached_goal"), "expected true or false")
    time = r.number(join(path, "time"), o.get("time"), nonnegative=True)
    length = r.number(join(path, "length"), o.get("length"), nonnegative=True)
    wlen = r.number(join(path, "weighted_length"), o.get("weighted_length"), nonnegative=True)
    mc = r.number(join(path, "min_clearance"), o.get("min_clearance"))
    status = r.choice(join(path, "status"), o["status"], STATUSES) if "status" in o else ""
    why = r.string(join(path, "lost_reason"), o["lost_reason"]) if "lost_reason" in o else ""
    counts = {k: _count(r, join(path, k), o[k]) if k in o else None for k in ("steps", "recovered_steps", "stalls")}
    if counts["steps"] is not None and counts["recovered_steps"] is not None \
            and counts["recovered_steps"] > counts["steps"]:
        r.add(join(path, "recovered_steps"), f"{counts['recovered_steps']} exceeds steps {counts['steps']}")
    if status and isinstance(reached, bool) and (status == "arrived") != reached:
        r.add(join(path, "status"), f"{status!r} contradicts reached_goal {str(reached).lower()}")
    tl: dict[str, float] = {}
    tlv = o.get("terrain_lengths")
    if not isinstance(tlv, dict):
        if "terrain_lengths" in o:
            r.add(join(path, "terrain_lengths"), "expected an object of terrain type -> length")
    else:
        for k, x in tlv.items():
            val = r.number(f"{path}.terrain_lengths.{k}", x, nonnegative=True)
            if val is not None:
                tl[k] = val
    pts = _points(r, join(path, "points"), o.get("points"))
    # The readers return None only after recording a problem: the None tests are for the type checker.
    if (len(r.problems) > before or aid is None or prof is None or not isinstance(reached, bool) or time is None
            or length is None or wlen is None or mc is None or pts is None):
        return None
    total = sum(tl.values())
    if not math.isclose(total, length, rel_tol=_LENGTH_RTOL, abs_tol=1e-9):
        r.add(join(path, "length"), f"{length:g} differs from the sum of terrain_lengths {total:g}")
        return None
    return AgentPath(aid, prof, reached, time, length, wlen, tl, mc, pts, status or "", why or "",
                     -1 if counts["steps"] is None else counts["steps"], counts["recovered_steps"] or 0,
                     counts["stalls"] or 0)


def _count(r: FieldReader, path: str, v: Any) -> int | None:
    """A count of the recovery counter: an integer >= 0."""
    n = r.integer(path, v)
    if n is not None and n < 0:
        r.add(path, f"must be 0 or more, got {n}")
        return None
    return n


def _points(r: FieldReader, path: str, v: Any) -> np.ndarray | None:
    lst = r.list_(path, v, min_len=1)
    if lst is None:
        return None
    if not all(isinstance(row, list) and len(row) == 3 for row in lst):
        k = next(i for i, row in enumerate(lst) if not (isinstance(row, list) and len(row) == 3))
        r.add(f"{path}[{k}]", "expected a row [t, x, y]")
        return None
    for k, row in enumerate(lst):
        if any(isinstance(c, bool) or not isinstance(c, (int, float)) for c in row):
            r.add(f"{path}[{k}]", "expected numbers [t, x, y]")
            return None
    try:
        a = np.array(lst, dtype=np.float64)
    except OverflowError:
        r.add(path, "t, x and y must be finite numbers (an integer is too large for a float)")
        return None
    except (TypeError, ValueError):
        k = next(i for i, row in enumerate(lst)
                 if not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in row))
        r.add(f"{path}[{k}]", "expected numbers [t, x, y]")
        return None
    bad = ~np.isfinite(a).all(axis=1)
    if bad.any():
        r.add(f"{path}[{int(np.argmax(bad))}]", "t, x and y must be finite numbers")
        return None
    back = np.nonzero(np.diff(a[:, 0]) < 0)[0]
    if len(back):
        k = int(back[0]) + 1
        r.add(f"{path}[{k}]", f"time {a[k, 0]:g} goes back from {a[k - 1, 0]:g}")
        return None
    return a
