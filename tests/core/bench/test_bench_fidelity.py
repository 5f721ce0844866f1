"""``miran bench --section fidelity``: fast mode's error budget against exact mode per shipped scene, and the
section fails, naming the scene, when a figure is over its budget; the crowd's density-map difference is the one
PedPy's own density profiles give."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pedpy  # the test extra installs it: the reference, never skipped
import pytest

import core.bench.fidelity as fidelity


def test_the_budget_holds_on_the_quick_scenes_and_fails_when_tightened(monkeypatch):
    records = fidelity.budget_records(["mckenna_road"])
    assert len(records) == 2 * len(fidelity.BUDGET)
    worst = {r.name: r.value for r in records}
    for name, value in worst.items():
        bound = next(b for what, b in fidelity.BUDGET.items() if name.endswith(f"worst {what}"))
        assert 0.0 <= value <= bound, name
    # A budget below the measured difference turns the section's verdict.
    largest = max(worst["mckenna_road miran worst length"], 1e-12)
    monkeypatch.setitem(fidelity.BUDGET, "length", largest / 2)
    with pytest.raises(fidelity.BudgetExceeded, match="mckenna_road miran length"):
        fidelity.budget_records(["mckenna_road"])


def _pedpy_map(frames, walkable, cell: float) -> np.ndarray:
    """PedPy's own classic density profile of the frames, averaged over them (row 0 at the bottom, as ours)."""
    rows = [(i + 1, k, x, y) for k, (_, p) in enumerate(frames) for i, (x, y) in enumerate(p)]
    data = pd.DataFrame(rows, columns=["id", "frame", "x", "y"])
    traj = pedpy.TrajectoryData(data=data, frame_rate=1.0)
    profiles = pedpy.compute_density_profile(data=traj.data, walkable_area=pedpy.WalkableArea(walkable),
                                             grid_size=cell, density_method=pedpy.DensityMethod.CLASSIC)
    return np.mean(profiles, axis=0)[::-1]


def test_the_crowd_density_difference_is_pedpys_on_both_runs():
    from core.analysis.density import free_space, heatmap_cell
    from core.navmesh import build_navmesh
    from core.routes import PlannerContext
    from core.scene.io import load_scene

    scene = load_scene(fidelity.SCENES_DIR / "city.json")
    mesh = build_navmesh(scene)
    context = PlannerContext(scene, navmesh=mesh)
    walkable = free_space(scene)
    assert walkable.bounds == tuple(scene.bounds)    # PedPy's grid starts at the walkable area's bounds
    cell = heatmap_cell(scene.bounds)
    n, seconds = fidelity.DENSITY_CROWD[True]
    exact = fidelity.crowd_frames(scene, mesh, context, "miran", "exact", n, seconds)
    fast = fidelity.crowd_frames(scene, mesh, context, "miran", "fast", n, seconds)
    assert len(exact) == int(seconds) and all(len(p) > 0 for _, p in exact)
    e, f = _pedpy_map(exact, walkable, cell), _pedpy_map(fast, walkable, cell)
    reference = np.abs(f - e).sum() / e.sum()
    ours = fidelity.density_difference(exact, fast, scene.bounds, cell)
    assert ours == pytest.approx(reference, rel=1e-9, abs=1e-12)
    assert ours > 0.0                                  # the two runs differ: the figure measures something
    assert fidelity.density_difference(exact, exact, scene.bounds, cell) == 0.0


def test_the_density_budget_holds_on_the_quick_crowd_and_fails_when_tightened(monkeypatch):
    records = fidelity.density_records(True)
    assert [r.name for r in records] == [f"city {m} crowd density map" for m in fidelity.METHODS]
    assert all(0.0 < r.value <= fidelity.DENSITY_BUDGET for r in records)
    monkeypatch.setattr(fidelity, "DENSITY_BUDGET", min(r.value for r in records) / 2)
    with pytest.raises(fidelity.BudgetExceeded, match="city miran density map"):
        fidelity.density_records(True)


def test_a_run_leaves_its_worst_figures_for_the_app(tmp_path, monkeypatch):
    path = tmp_path / "sub" / "budget.json"
    monkeypatch.setenv(fidelity.BUDGET_FILE_ENV, str(path))
    records = fidelity.run(True)
    summary = json.loads(path.read_text())
    assert summary == fidelity.last_budget() and summary["size"] == "quick"
    per_character = [r for r in records if " worst " in r.name]
    worst = max(per_character, key=lambda r: r.value / next(b for w, b in fidelity.BUDGET.items()
                                                            if r.name.endswith(f"worst {w}")))
    assert summary["character"]["figure"] == worst.name and summary["character"]["value"] == worst.value
    crowd = max((r for r in records if r.name.endswith("crowd density map")), key=lambda r: r.value)
    assert summary["crowd"] == {"figure": crowd.name, "value": crowd.value, "budget": fidelity.DENSITY_BUDGET}
    assert fidelity.budget_verdict(summary) == "within"
    line = fidelity.budget_line(summary)
    assert f"per character {100 * worst.value:.1f} %" in line and "(quick size)" in line


def test_the_last_budget_falls_back_to_the_shipped_one_and_never_raises(tmp_path, monkeypatch):
    monkeypatch.setenv(fidelity.BUDGET_FILE_ENV, str(tmp_path / "missing.json"))
    shipped = json.loads(fidelity.SHIPPED_BUDGET.read_text())
    assert fidelity.last_budget() == shipped and fidelity.budget_verdict(shipped) in ("within", "over")
    for bad in ("not json", "[1, 2]", '{"measured": 3}'):
        (tmp_path / "bad.json").write_text(bad)
        monkeypatch.setenv(fidelity.BUDGET_FILE_ENV, str(tmp_path / "bad.json"))
        assert fidelity.last_budget() == shipped
    monkeypatch.setattr(fidelity, "SHIPPED_BUDGET", tmp_path / "none.json")
    assert fidelity.last_budget() is None and fidelity.budget_verdict(None) == "unmeasured"
    assert "not been measured" in fidelity.budget_line(None)
    odd = {"measured": "x", "character": {"value": "a lot"}, "crowd": None}
    assert fidelity.budget_verdict(odd) == "unmeasured" and "not been measured" in fidelity.budget_line(odd)
    over = {"measured": "x", "crowd": {"figure": "f", "value": 0.2, "budget": 0.05}}
    assert fidelity.budget_verdict(over) == "over" and "20.0 % of 5 % (over: f)" in fidelity.budget_line(over)
