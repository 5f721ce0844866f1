"""Benchmark section ``fidelity``: fast mode's error budget against exact mode on the same errands (core.sim.fidelity).

Every shipped scene with characters is run as it ships (its characters, interaction on) with MIRAN and disc MIRAN,
once in exact mode and once in fast mode. Per character, the relative difference of the walked length, the
terrain-weighted length and the arrival time; the section records the largest of each per scene and method, and
the CPU time of both runs. The budget: length and weighted length within 2 %, arrival time within 5 %. A figure
over it fails the section (``miran bench`` then reports it failed and exits non-zero), naming the scene.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .record import Record

SECTION = "fidelity"
SCENES_DIR = Path(__file__).resolve().parents[2] / "scenes"
BUDGET = {"length": 0.02, "weighted length": 0.02, "arrival time": 0.05}
METHODS = ("miran", "disc-miran")


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
    from core.scene.io import load_scene

    out: list[Record] = []
    over: list[str] = []
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
    if over:
        raise BudgetExceeded("fast mode over its error budget: " + "; ".join(over))
    return out


def run(quick: bool) -> list[Record]:
    names = ["mckenna_road", "forest"] if quick else ["city", "forest", "hills", "mckenna", "mckenna_road"]
    return budget_records(names)
