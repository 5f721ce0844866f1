"""Trajectories for other tools: PedPy's text format, JuPedSim's SQLite trajectory file and noise-free CSV.

All three number the frames of a run: frame = t / dt (the paths file's time step), so the frame rate is 1 / dt;
a point whose time is not on a frame (more than 1e-6 of a step off) is refused, naming the agent and the point,
and so are a time step outside [MIN_DT, MAX_DT] (its frame rate would be infinite or zero) and a frame past
MAX_FRAME (int32, what the readers' frame columns hold). Agents get the integer ids 1..n in the file's order
(PedPy's convention); the text and SQLite files record which id is which agent, the text file with each id as a
JSON string (a newline or a comma in an id cannot make a row). Coordinates are metres, rounded to ``decimals``
places (3: 1 mm).

- PedPy text (``load_trajectory`` / ``load_trajectory_from_txt``): ``# framerate: F`` first, then comments, then
  rows ``id frame x y z`` separated by spaces, with the unit stated in the column line (``x/m``).
- JuPedSim SQLite, version 2 of its schema (PedPy's ``load_trajectory_from_jupedsim_sqlite`` and
  ``load_walkable_area_from_jupedsim_sqlite`` read versions 1 and 2; JuPedSim's own tools upgrade a version 2 file
  to their version 3 in place, which only drops the orientation): ``trajectory_data(frame, id, pos_x, pos_y,
  ori_x, ori_y)``, ``metadata(key, value)`` with version, fps and the extent, ``geometry(hash, wkt)`` holding the
  walkable area as WKT and ``frame_data(frame, geometry_hash)`` naming it for every frame; an extra
  ``agents(id, name, profile)`` table keeps our agent ids.
- CSV: ``agent, profile, t, x, y`` with t = frame x dt written with the step's decimals; the text cells (agent
  and profile) escaped against spreadsheet formulas as OWASP advises (core.export.csvsafe).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
from dataclasses import dataclass

import numpy as np
import shapely

from core.scene.atomic import write_file_atomic
from core.scene.jsonio import write_text_atomic
from core.scene.problems import InputError, Problem

from .csvsafe import csv_line
from .paths import PathsFile

JUPEDSIM_DB_VERSION = 2
# How far (in steps) a point's time may lie from its frame.
FRAME_TOL = 1e-6
DEFAULT_DECIMALS = 3
# The time steps a file can be numbered by (frame rates from 1e-6 to 1e6 per second), and the last frame: the
# frame columns of PedPy's and JuPedSim's tools are 32-bit integers.
MIN_DT = 1e-6
MAX_DT = 1e6
MAX_FRAME = 2**31 - 1


@dataclass(frozen=True)
class Frames:
    """A run's points on frames: ``ids`` (n_rows,) int64 1-based agent ids, ``frames`` (n_rows,) int64,
    ``xy`` (n_rows, 2) float64 metres, rows grouped by agent in the paths file's order; ``fps`` = 1 / dt."""

    ids: np.ndarray
    frames: np.ndarray
    xy: np.ndarray
    fps: float
    dt: float
    names: list[tuple[int, str, str]]


def to_frames(pf: PathsFile) -> Frames:
    """The paths' points numbered by frame; InputError naming the agent and point of a time off the frames or a
    frame given twice."""
    dt = float(pf.dt)
    if not (math.isfinite(dt) and MIN_DT <= dt <= MAX_DT):
        raise InputError([Problem("dt", f"time step {dt:g} s: frames are numbered at 1 / dt per second, and a "
                                        f"time step outside [{MIN_DT:g}, {MAX_DT:g}] s gives no usable frame rate")])
    ids, frames, xy, names, problems = [], [], [], [], []
    for k, a in enumerate(pf.agents, start=1):
        t = a.points[:, 0]
        with np.errstate(over="ignore", invalid="ignore"):
            f = np.rint(t / dt)
        out = ~np.isfinite(f) | (f < 0) | (f > MAX_FRAME)
        if out.any():
            i = int(np.argmax(out))
            problems.append(Problem(f"agents[{k - 1}].points[{i}]",
                                    f"agent {a.id!r}: time {t[i]:g} s is frame {f[i]:g} of dt = {dt:g} s, outside "
                                    f"the frames 0 to {MAX_FRAME} a trajectory file numbers"))
            continue
        off = np.abs(t / dt - f) > FRAME_TOL
        if off.any():
            i = int(np.argmax(off))
            problems.append(Problem(f"agents[{k - 1}].points[{i}]",
                                    f"agent {a.id!r}: time {t[i]:g} s is not on a frame of dt = {dt:g} s"))
            continue
        fi = f.astype(np.int64)
        same = np.flatnonzero(np.diff(fi) == 0)
        if len(same):
            i = int(same[0]) + 1
            problems.append(Problem(f"agents[{k - 1}].points[{i}]",
                                    f"agent {a.id!r}: frame {fi[i]} (t = {t[i]:g} s) appears twice"))
            continue
        ids.append(np.full(len(fi), k, dtype=np.int64))
        frames.append(fi)
        xy.append(a.points[:, 1:3])
        names.append((k, a.id, a.profile))
    if problems:
        raise InputError(problems)
    if not ids:
        raise InputError([Problem("agents", "the paths file has no agents: there is no trajectory to export")])
    return Frames(np.concatenate(ids), np.concatenate(frames), np.concatenate(xy), 1.0 / dt, dt, names)


def _coord(v: np.ndarray, decimals: int) -> np.ndarray:
    """Coordinates rounded to ``decimals`` places, without negative zeros."""
    return np.round(v, decimals) + 0.0


def _text(v: float, decimals: int) -> str:
    """A number with ``decimals`` places as Python formats it (correctly rounded), never ``-0.000``."""
    s = f"{v:.{decimals}f}"
    return s[1:] if s.startswith("-") and not s.strip("-0.") else s


def step_decimals(dt: float) -> int:
    """The decimals that write multiples of dt exactly enough: the fewest (up to 9) that keep dt to 1e-9."""
    for d in range(10):
        if abs(round(dt, d) - dt) <= 1e-9 * max(dt, 1e-300):
            return d
    return 9


def _quoted(text: str) -> str:
    """Text as a JSON string of ASCII characters: no line break, separator or control character of it reaches
    the file as itself."""
    return json.dumps(str(text), ensure_ascii=True)


def pedpy_text(pf: PathsFile, decimals: int = DEFAULT_DECIMALS) -> str:
    """The PedPy trajectory text of a paths document."""
    fr = to_frames(pf)
    head = [
        f"# framerate: {fr.fps:.10g}",
        f"# written by miran export from the run of scene {_quoted(pf.scene)} ({_quoted(pf.method)}, "
        f"{_quoted(pf.integrator)}, dt = {pf.dt:g} s)",
        "# ids (JSON strings): " + ", ".join(f"{k}={_quoted(name)}" for k, name, _ in fr.names),
        "# ID: the agent id; FR: the frame (t = FR / framerate); X, Y, Z: position (metres)",
        "# id frame x/m y/m z/m",
    ]
    rows = [f"{i} {f} {_text(x, decimals)} {_text(y, decimals)} 0"
            for i, f, (x, y) in zip(fr.ids.tolist(), fr.frames.tolist(), fr.xy.tolist())]
    return "\n".join(head + rows) + "\n"


def write_pedpy(path: str | os.PathLike, pf: PathsFile, decimals: int = DEFAULT_DECIMALS) -> None:
    """Write the PedPy text file atomically."""
    write_text_atomic(path, pedpy_text(pf, decimals))


def paths_csv_text(pf: PathsFile, decimals: int = DEFAULT_DECIMALS) -> str:
    """CSV rows ``agent, profile, t, x, y``: t as frame x dt with the step's decimals, x and y to ``decimals``; the
    agent and profile cells escaped against formulas and quoted where needed (core.export.csvsafe)."""
    fr = to_frames(pf)
    td = step_decimals(fr.dt)
    t = np.round(fr.frames * fr.dt, td) + 0.0
    by_id = {k: (name, prof) for k, name, prof in fr.names}
    lines = ["agent,profile,t,x,y"]
    for i, tt, (x, y) in zip(fr.ids.tolist(), t.tolist(), fr.xy.tolist()):
        name, prof = by_id[i]
        lines.append(csv_line(((name, True), (prof, True), (_text(tt, td), False), (_text(x, decimals), False),
                               (_text(y, decimals), False))))
    return "\n".join(lines) + "\n"


def write_csv(path: str | os.PathLike, pf: PathsFile, decimals: int = DEFAULT_DECIMALS) -> None:
    """Write the CSV file atomically."""
    write_text_atomic(path, paths_csv_text(pf, decimals))


def walkable_area(scene, fr: Frames | None = None):
    """The walkable area as one polygon: the scene's bounds minus the obstacles that stand all the time (the
    connected part holding most trajectory points when the free space falls apart), or, without a scene, the
    points' extent widened by 1 m."""
    if scene is None:
        if fr is None or len(fr.xy) == 0:
            raise InputError([Problem("", "no scene and no trajectory: no walkable area to write")])
        x0, y0 = fr.xy.min(axis=0) - 1.0
        x1, y1 = fr.xy.max(axis=0) + 1.0
        return shapely.box(x0, y0, x1, y1)
    from shapely.geometry import Polygon

    from core.analysis.density import free_space

    free = free_space(scene)
    parts = [p for p in shapely.get_parts(free) if isinstance(p, Polygon) and not p.is_empty]
    if not parts:
        raise InputError([Problem("", "the scene has no free space: no walkable area to write")])
    if len(parts) == 1 or fr is None:
        return max(parts, key=lambda p: p.area)
    pts = shapely.points(fr.xy)
    counts = [int(shapely.covers(p, pts).sum()) for p in parts]
    return parts[int(np.argmax(counts))]


def write_jupedsim(path: str | os.PathLike, pf: PathsFile, scene=None, decimals: int = DEFAULT_DECIMALS) -> str:
    """Write JuPedSim's SQLite trajectory file (schema version 2) atomically; returns a note on the walkable
    area written (the scene's free space, or the trajectories' extent when no scene is given)."""
    fr = to_frames(pf)
    xy = _coord(fr.xy, decimals)
    area = walkable_area(scene, fr)
    note = ("walkable area: the scene's bounds minus its obstacles" if scene is not None
            else "walkable area: the trajectories' extent widened by 1 m (pass --scene for the real one)")
    wkt = shapely.to_wkt(area, rounding_precision=decimals, trim=True)
    ghash = int.from_bytes(hashlib.sha1(wkt.encode()).digest()[:7], "big")
    ori = _orientations(fr)

    def fill(tmp: str) -> None:
        con = sqlite3.connect(tmp)
        try:
            cur = con.cursor()
            # no rollback journal beside the file: a kill mid-write leaves only our temporary, never a -journal
            # file (the temporary is renamed over the output once complete, core.scene.atomic)
            cur.execute("PRAGMA journal_mode=OFF")
            cur.execute("PRAGMA synchronous=OFF")
            cur.execute("CREATE TABLE trajectory_data (frame INTEGER NOT NULL, id INTEGER NOT NULL, "
                        "pos_x REAL NOT NULL, pos_y REAL NOT NULL, ori_x REAL NOT NULL, ori_y REAL NOT NULL)")
            cur.execute("CREATE TABLE metadata (key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL)")
            cur.execute("CREATE TABLE geometry (hash INTEGER NOT NULL, wkt TEXT NOT NULL)")
            cur.execute("CREATE TABLE frame_data (frame INTEGER NOT NULL, geometry_hash INTEGER NOT NULL)")
            cur.execute("CREATE TABLE agents (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, "
                        "profile TEXT NOT NULL)")
            order = np.lexsort((fr.ids, fr.frames))
            cur.executemany("INSERT INTO trajectory_data VALUES (?, ?, ?, ?, ?, ?)",
                            zip(fr.frames[order].tolist(), fr.ids[order].tolist(), xy[order, 0].tolist(),
                                xy[order, 1].tolist(), ori[order, 0].tolist(), ori[order, 1].tolist()))
            (x0, y0), (x1, y1) = xy.min(axis=0), xy.max(axis=0)
            meta = {"version": str(JUPEDSIM_DB_VERSION), "fps": f"{fr.fps:.10g}", "xmin": repr(float(x0)),
                    "xmax": repr(float(x1)), "ymin": repr(float(y0)), "ymax": repr(float(y1)),
                    "writer": "miran-studio", "scene": pf.scene, "method": pf.method}
            cur.executemany("INSERT INTO metadata VALUES (?, ?)", meta.items())
            cur.execute("CREATE UNIQUE INDEX geometry_hash ON geometry(hash)")
            cur.execute("INSERT INTO geometry VALUES (?, ?)", (ghash, wkt))
            all_frames = np.unique(fr.frames)
            cur.executemany("INSERT INTO frame_data VALUES (?, ?)", ((int(f), ghash) for f in all_frames))
            cur.executemany("INSERT INTO agents VALUES (?, ?, ?)", fr.names)
            cur.execute("CREATE INDEX frame_id_idx ON trajectory_data(frame, id)")
            con.commit()
        finally:
            con.close()

    write_file_atomic(path, fill)
    return note


def _orientations(fr: Frames) -> np.ndarray:
    """(n_rows, 2) unit headings from each agent's next step (its last step for the last point), carried over
    while it stands still; (1, 0) before an agent first moves."""
    n_rows = len(fr.ids)
    same = fr.ids[1:] == fr.ids[:-1]               # row i and row i + 1 belong to one agent
    d = np.zeros_like(fr.xy)
    d[:-1][same] = np.diff(fr.xy, axis=0)[same]
    # An agent's last row (with a row before it) repeats the step into it.
    last = np.flatnonzero(np.r_[~same, True])
    has_prev = last > 0
    has_prev[has_prev] = same[last[has_prev] - 1]
    d[last[has_prev]] = d[last[has_prev] - 1]
    n = np.hypot(d[:, 0], d[:, 1])
    moving = n > 1e-12
    # Forward-fill the latest moving row within each agent.
    idx = np.where(moving, np.arange(n_rows), -1)
    filled = np.maximum.accumulate(idx)
    agent_start = np.maximum.accumulate(np.where(np.r_[True, ~same], np.arange(n_rows), 0))
    ok = filled >= agent_start
    out = np.tile(np.array([1.0, 0.0]), (n_rows, 1))
    src = filled[ok]
    out[ok] = d[src] / n[src, None]
    return out


__all__ = ["DEFAULT_DECIMALS", "Frames", "JUPEDSIM_DB_VERSION", "MAX_DT", "MAX_FRAME", "MIN_DT", "paths_csv_text",
           "pedpy_text", "step_decimals", "to_frames", "walkable_area", "write_csv", "write_jupedsim", "write_pedpy"]
