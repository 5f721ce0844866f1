"""Benchmark section ``fidelity``: fast mode's error budget against exact mode on the same errands (core.sim.fidelity).

Every shipped scene with characters is run as it ships (its characters, interaction on) with MIRAN and disc MIRAN,
once in exact mode and once in fast mode. Per character, the relative difference of the walked length, the
terrain-weighted length and the arrival time; the section records the largest of each per scene and method, and
the CPU time of both runs. The budget: length and weighted length within 2 %, arrival time within 5 %.

Over a crowd, the density map: a crowd of errands on the city (the same characters and goals in both modes, no new
errands), sampled once a simulated second, its classic density map (PedPy's density profile: agents per pixel area,
averaged over the frames; core.analysis.density) at the pixel the app's density map uses on that scene. The figure
is the relative L1 difference sum |fast - exact| / sum exact over the pixels; the budget is 5 %. The same figure
between exact mode and exact mode with c_s changed by one part in 1e9 is recorded beside it: what the crowd's
sensitivity alone gives.

A figure over its budget fails the section (``miran bench`` then reports it failed and exits non-zero), naming the
scene. Every run of the section, within the budget or not, leaves its worst figures in ``budget_file()``, which the
app's status bar shows in fast mode (``budget_line``); before any run there, the measurement shipped beside this
module (``fidelity_budget.json``, a full run on the development machine) stands in, saying where and when it was
taken.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from .record import Record

SECTION = "fidelity"
SCENES_DIR = Path(__file__).resolve().parents[2] / "scenes"
BUDGET = {"length": 0.02, "weighted length": 0.02, "arrival time": 0.05}
DENSITY_BUDGET = 0.05
METHODS = ("miran", "disc-miran")
# The crowd of the density map: (characters, simulated seconds), full and quick.
DENSITY_CROWD = {False: (1000, 60.0), True: (200, 20.0)}
# Where a run's worst figures are kept: this variable's path when set, else the user's cache folder.
BUDGET_FILE_ENV = "MIRAN_FIDELITY_BUDGET_FILE"
SHIPPED_BUDGET = Path(__file__).with_name("fidelity_budget.json")


class BudgetExceeded(RuntimeError):
    """Fast mode differs from exact mode by more than the budget somewhere."""


def _run(scene, method: str, fidelity: str) -> tuple[np.ndarray, float]:
    """Per character (length, weighted length, arrival time), and the run's CPU seconds."""
    from core.export import paths_from_simulation
    from core.sim import Simulation

    sim = Simulation(scene, method=method, fidelity=fidelity, record=False)
    sim.run(max_steps=1)                        # kernels compiled or loaded: not counted
    t0 = time.thread_time()
    sim.run()
    cpu = time.thread_time() - t0
    agents = paths_from_simulation(sim).agents
    rows = [[a.length, a.weighted_length, a.time if a.reached_goal else np.nan] for a in agents]
    return np.array(rows, dtype=np.float64), cpu


def budget_records(names: list[str]) -> list[Record]:
    """The largest relative differences per shipped scene and method; BudgetExceeded lists every one over."""
    out: list[Record] = []
    over: list[str] = []
    _per_character(names, out, over)
    if over:
        raise BudgetExceeded("fast mode over its error budget: " + "; ".join(over))
    return out


def _per_character(names: list[str], out: list[Record], over: list[str]) -> None:
    """``budget_records``' figures into ``out``, those over the budget into ``over``."""
    from core.scene.io import load_scene

    for name in names:
        scene = load_scene(SCENES_DIR / f"{name}.json")
        for method in METHODS:
            exact, cpu_e = _run(scene, method, "exact")
            fast, cpu_f = _run(scene, method, "fast")
            rel = np.abs(fast - exact) / np.abs(exact)
            for k, (what, bound) in enumerate(BUDGET.items()):
                worst = float(np.max(rel[:, k])) if len(rel) else 0.0
                if not worst <= bound:
                    over.append(f"{name} {method} {what} {100 * worst:.2f} % (budget {100 * bound:g} %)")
                out.append(Record(SECTION, f"{name} {method} worst {what}", worst, "fraction",
                                  f"fast against exact, {len(rel)} characters; budget {100 * bound:g} %; CPU "
                                  f"{cpu_f:.3f} s against {cpu_e:.3f} s"))


def crowd_frames(scene, mesh, context, method: str, fidelity: str, n: int, seconds: float,
                 c_s_factor: float = 1.0) -> list[tuple[float, np.ndarray]]:
    """(time, (k, 2) positions of the walking characters) once a simulated second of a crowd of n errands on the
    scene (core.bench.crowd's crowd, arrived characters given no new errand), c_s scaled by ``c_s_factor``."""
    from core.sim.state import WALKING

    from .crowd import crowd_simulation

    sim = crowd_simulation(scene, mesh, context, method, n, fidelity=fidelity)
    sim.respawn = False
    if c_s_factor != 1.0:
        sim.params.set("c_s", float(sim.params.get("c_s")) * c_s_factor)
    per_second = int(round(1.0 / sim.params.dt))
    frames = []
    for k in range(int(seconds)):
        sim.run(max_steps=per_second)
        st = sim.state
        frames.append((float(k + 1), st.pos[st.status == WALKING].copy()))
    return frames


def density_difference(exact: list, other: list, bounds: tuple[float, float, float, float], cell: float) -> float:
    """sum |other - exact| / sum exact of the two runs' classic density maps (``crowd_frames`` frames)."""
    from core.analysis.density import classic_heatmap

    e = classic_heatmap(exact, bounds, cell)
    o = classic_heatmap(other, bounds, cell)
    return float(np.abs(o - e).sum() / max(e.sum(), 1e-300))


def density_records(quick: bool, scene_name: str = "city") -> list[Record]:
    """The crowd's density-map difference per method, fast against exact, with exact's own sensitivity beside it;
    BudgetExceeded when one is over DENSITY_BUDGET."""
    out: list[Record] = []
    over: list[str] = []
    _crowd_density(quick, scene_name, out, over)
    if over:
        raise BudgetExceeded("fast mode over its error budget: " + "; ".join(over))
    return out


def _crowd_density(quick: bool, scene_name: str, out: list[Record], over: list[str]) -> None:
    """``density_records``' figures into ``out``, those over the budget into ``over``."""
    from core.analysis.density import heatmap_cell
    from core.navmesh import build_navmesh
    from core.routes import PlannerContext
    from core.scene.io import load_scene

    scene = load_scene(SCENES_DIR / f"{scene_name}.json")
    mesh = build_navmesh(scene)
    context = PlannerContext(scene, navmesh=mesh)
    n, seconds = DENSITY_CROWD[quick]
    cell = heatmap_cell(scene.bounds)
    for method in METHODS:
        exact = crowd_frames(scene, mesh, context, method, "exact", n, seconds)
        fast = crowd_frames(scene, mesh, context, method, "fast", n, seconds)
        nudged = crowd_frames(scene, mesh, context, method, "exact", n, seconds, 1.0 + 1e-9)
        diff = density_difference(exact, fast, scene.bounds, cell)
        floor = density_difference(exact, nudged, scene.bounds, cell)
        if not diff <= DENSITY_BUDGET:
            over.append(f"{scene_name} {method} density map {100 * diff:.2f} % (budget {100 * DENSITY_BUDGET:g} %)")
        out.append(Record(SECTION, f"{scene_name} {method} crowd density map", diff, "fraction",
                          f"fast against exact, sum |fast - exact| / sum exact of the classic density maps of {n} "
                          f"errands over {seconds:g} s, {cell:g}-unit pixels; budget {100 * DENSITY_BUDGET:g} %; "
                          f"exact against exact with c_s changed by 1e-9: {100 * floor:.3f} %"))


def budget_file() -> Path:
    """Where the section keeps its last run's worst figures: ``MIRAN_FIDELITY_BUDGET_FILE``, else
    ``$XDG_CACHE_HOME/miran-studio/fidelity_budget.json`` (``~/.cache`` without XDG_CACHE_HOME)."""
    if os.environ.get(BUDGET_FILE_ENV):
        return Path(os.environ[BUDGET_FILE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "miran-studio" / "fidelity_budget.json"


def budget_summary(records: list[Record], quick: bool) -> dict:
    """A run's worst figures against their budgets: per character (the largest share of its budget) and over the
    crowd, with when, where and at which size they were measured."""
    def worst(rows: list[tuple[Record, float]]) -> dict | None:
        if not rows:
            return None
        r, bound = max(rows, key=lambda rb: rb[0].value / rb[1])
        return {"figure": r.name, "value": float(r.value), "budget": bound}

    character = [(r, b) for r in records for what, b in BUDGET.items() if r.name.endswith(f" worst {what}")]
    crowd = [(r, DENSITY_BUDGET) for r in records if r.name.endswith(" crowd density map")]
    return {"measured": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{platform.machine() or 'unknown CPU'}, {os.cpu_count()} logical cores",
            "size": "quick" if quick else "full", "character": worst(character), "crowd": worst(crowd)}


def last_budget() -> dict | None:
    """The last run's summary (``budget_file``), else the shipped one; None when neither reads as one."""
    for path in (budget_file(), SHIPPED_BUDGET):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("measured"), str):
            return data
    return None


def _figures(summary: dict | None) -> list[tuple[str, float, float, str]]:
    """(what, value, budget, figure) of a summary's worst figures that read as numbers."""
    out = []
    for key, label in (("character", "per character"), ("crowd", "crowd density map")):
        w = summary.get(key) if isinstance(summary, dict) else None
        if not isinstance(w, dict):
            continue
        try:
            out.append((label, float(w["value"]), float(w["budget"]), str(w["figure"])))
        except (TypeError, KeyError, ValueError):
            continue
    return out


def budget_verdict(summary: dict | None) -> str:
    """"within" when every figure of the summary is within its budget, "over" when one is not, "unmeasured"."""
    figures = _figures(summary)
    if not figures:
        return "unmeasured"
    return "within" if all(value <= bound for _, value, bound, _ in figures) else "over"


def budget_line(summary: dict | None) -> str:
    """One line for the status bar: the worst figures against their budgets, and when and where."""
    figures = _figures(summary)
    if not figures or not isinstance(summary, dict):
        return "Fast mode: its error budget has not been measured (miran bench --section fidelity)."
    parts = [f"{label} {100 * value:.1f} % of {100 * bound:g} % ({'within' if value <= bound else 'over'}: "
             f"{figure})" for label, value, bound, figure in figures]
    return (f"Fast mode's error budget, measured {summary.get('measured', '?')} on {summary.get('machine', '?')} "
            f"({summary.get('size', '?')} size): " + "; ".join(parts))


def run(quick: bool) -> list[Record]:
    names = ["mckenna_road", "forest"] if quick else ["city", "forest", "hills", "mckenna", "mckenna_road"]
    out: list[Record] = []
    over: list[str] = []
    _per_character(names, out, over)
    _crowd_density(quick, "city", out, over)
    path = budget_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(budget_summary(out, quick), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        out.append(Record(SECTION, "budget file", 0, "written", f"could not write {path}: {exc}"))
    if over:
        raise BudgetExceeded("fast mode over its error budget: " + "; ".join(over))
    return out
