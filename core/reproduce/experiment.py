"""What every reproduced figure or table is made of: ``Experiment`` (the figure, the Markdown section, the numbers,
the checks of the paper's claims and the recovery share of its walkers), and the helpers the papers' modules share:
loading a shipped scene, running a simulation, and measuring a walked path against its route.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import shapely

from core.scene.io import load_scene

from .verdict import Check, verdict

SCENES_DIR = Path(__file__).resolve().parents[2] / "scenes"

# Why a timing can differ from the paper's: said beside every timing check that fails.
OTHER_MACHINE = "another machine and language than the paper's"


@dataclass
class Recovery:
    """How much of an experiment's walking the progress guarantee (core.sim.progress) did instead of the method's
    forces: ``agent_steps`` steps walked by all its characters, ``recovered`` of them in recovery, ``stalls`` the
    recoveries started, ``characters`` and ``stalled`` (characters with at least one stall); ``worst`` the largest
    share of one character's own steps in recovery. ``walkers`` False: the experiment moves no character through
    the simulator (``note`` says what it does instead)."""

    agent_steps: int = 0
    recovered: int = 0
    stalls: int = 0
    characters: int = 0
    stalled: int = 0
    worst: float = 0.0
    walkers: bool = True
    note: str = ""

    @property
    def share(self) -> float:
        """Recovered agent-steps over all agent-steps (0 without any)."""
        return self.recovered / self.agent_steps if self.agent_steps else 0.0

    def add(self, sim) -> "Recovery":
        """Count every character of a finished or running simulation (``Simulation.recovery``); returns self."""
        r = sim.recovery()
        steps = np.asarray(r["steps"], dtype=np.int64)
        rec = np.asarray(r["recovered_steps"], dtype=np.int64)
        self.agent_steps += int(steps.sum())
        self.recovered += int(rec.sum())
        self.stalls += int(np.sum(r["stalls"]))
        self.characters += len(steps)
        self.stalled += int(np.count_nonzero(np.asarray(r["stalls"]) > 0))
        if len(steps):
            self.worst = max(self.worst, float(np.max(rec / np.maximum(steps, 1))))
        return self

    def text(self) -> str:
        """One line for the report."""
        if not self.walkers:
            return f"no walkers ({self.note})" if self.note else "no walkers"
        return (f"{100 * self.share:.2f} % of {self.agent_steps:,} agent-steps in recovery ({self.recovered:,}); "
                f"{self.stalls} stall{'s' if self.stalls != 1 else ''}, {self.stalled} of {self.characters} "
                f"character{'s' if self.characters != 1 else ''} stalled; at most {100 * self.worst:.1f} % of one "
                "character's steps" + (f" ({self.note})" if self.note else ""))

    def as_dict(self) -> dict:
        return {"walkers": self.walkers, "agent_steps": self.agent_steps, "recovered_steps": self.recovered,
                "share": self.share, "stalls": self.stalls, "characters": self.characters,
                "stalled_characters": self.stalled, "worst_character_share": self.worst, "note": self.note}


def no_walkers(note: str) -> Recovery:
    """The recovery line of an experiment that moves no character through the simulator."""
    return Recovery(walkers=False, note=note)


@dataclass
class Experiment:
    """One reproduced figure or table: ``name`` (file stem), ``title``, the figure (matplotlib, or None), the
    Markdown section, the raw numbers, the checks of the paper's claims and the recovery share of its walkers."""

    name: str
    title: str
    figure: Any
    markdown: str
    data: dict = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)
    recovery: Recovery = field(default_factory=Recovery)

    @property
    def verdict(self) -> str:
        """``reproduced`` or ``differs: ...`` (see ``verdict.verdict``)."""
        return verdict(self.checks)


def shipped_scene(name: str):
    """A shipped scene by its file stem (scenes/NAME.json)."""
    return load_scene(SCENES_DIR / f"{name}.json")


def run(scene, method: str = "miran", integrator: str | None = None, profile_changes: dict | None = None,
        seed: int = 1, mesh=None, dt: float | None = None, record: bool = True, routes: dict | None = None,
        weights: dict | None = None):
    """A simulation of the scene's own agents run until they arrive; (sim, CPU seconds of the run).
    ``profile_changes`` {profile: {field: value}}, ``weights`` {profile: {terrain type: weight}}, ``routes``
    {agent index: Route} change the scene's before the run."""
    from core.sim import Simulation

    sim = Simulation(scene, method=method, integrator=integrator, seed=seed, mesh=mesh, dt=dt, record=record)
    for pid, values in (profile_changes or {}).items():
        sim.set_profile(pid, **values)
    for pid, values in (weights or {}).items():
        for tid, w in values.items():
            sim.set_weight(pid, tid, w)
    for k, route in (routes or {}).items():
        sim.set_route(k, route)
    t0 = time.thread_time()
    sim.run()
    return sim, time.thread_time() - t0


def length(pts: np.ndarray) -> float:
    """Length of a polyline (n, 2)."""
    return float(np.sum(np.hypot(*np.diff(np.asarray(pts, dtype=float), axis=0).T)))


def mean_distance(path: np.ndarray, route: np.ndarray, step: float = 1.0) -> float:
    """How closely a path follows a route: the mean distance from the route, sampled every ``step`` along its
    length, to the walked polyline (shapely). A skipped loop counts: its points are far from the path."""
    line = shapely.LineString(route)
    walked = shapely.LineString(path) if len(path) > 1 else shapely.Point(path[0])
    samples = shapely.line_interpolate_point(line, np.arange(0.0, line.length + step / 2, step))
    return float(np.mean(shapely.distance(samples, walked)))


def coverage(path: np.ndarray, route: np.ndarray, s0: float, s1: float, within: float, step: float = 1.0) -> float:
    """Fraction of the route between arc lengths s0 and s1 (sampled every ``step``) that lies within ``within``
    of the walked path."""
    line = shapely.LineString(route)
    samples = shapely.line_interpolate_point(line, np.arange(s0, s1 + step / 2, step))
    return float(np.mean(shapely.distance(samples, shapely.LineString(path)) <= within))


def self_crossing(route: np.ndarray) -> tuple[float, float] | None:
    """Arc lengths (first, second pass) of the first point where a polyline crosses itself, or None."""
    seg = [shapely.LineString(route[i: i + 2]) for i in range(len(route) - 1)]
    s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(route, axis=0).T))])
    for i in range(len(seg)):
        for j in range(i + 2, len(seg)):
            x = seg[i].intersection(seg[j])
            if isinstance(x, shapely.Point):
                return (s[i] + float(np.hypot(*(np.array(x.coords[0]) - route[i]))),
                        s[j] + float(np.hypot(*(np.array(x.coords[0]) - route[j]))))
    return None


def md_table(columns: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> str:
    """A Markdown table with an unnamed label column and the right-aligned ``columns``, one row per tuple of
    cells (the label first): the papers' sections set their numbers beside ours this way."""
    head = "| | " + " | ".join(columns) + " |\n|---|" + "---:|" * len(columns) + "\n"
    return head + "".join("| " + " | ".join(row) + " |\n" for row in rows)


def terrain_table(rows: list[tuple[str, dict]], types: list[str]) -> str:
    """Metres walked per terrain type, one row per walker, as a Markdown table."""
    head = "| | " + " | ".join(f"{t} (m)" for t in types) + " | total (m) |\n|---|" + "---:|" * (len(types) + 1) + "\n"
    return head + "".join(f"| {name} | " + " | ".join(f"{tl[t]:.1f}" for t in types)
                          + f" | {sum(tl.values()):.1f} |\n" for name, tl in rows)


def clearance(path: np.ndarray, obstacles, walls) -> float:
    """The smallest distance from a polyline, sampled every 0.25 m, to the obstacles and the bounds (shapely)."""
    line = shapely.LineString(path)
    samples = shapely.line_interpolate_point(line, np.linspace(0.0, line.length, max(2, int(line.length * 4))))
    return float(np.min(np.minimum(shapely.distance(samples, obstacles), shapely.distance(samples, walls))))
