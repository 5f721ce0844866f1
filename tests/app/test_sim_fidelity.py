"""The Simulation panel's fidelity (core.sim.fidelity): choosing Fast reaches the running simulation on the next
step, Save to Scene writes it into the scene, and another document starts from its own setting; the status bar
shows fast mode's last measured error budget."""

from __future__ import annotations

import json

from PySide6 import QtWidgets

from sim_harness import SCENES
from sim_window import WAIT, built

ROAD = SCENES / "mckenna_road.json"


def test_fast_fidelity_reaches_the_simulation_and_the_scene(make_studio, qtbot):
    w = make_studio(ROAD)
    p = w.sim.parameters
    built(qtbot, w)
    combo = w.findChild(QtWidgets.QComboBox, "sim.fidelity")
    assert combo is p.fidelity and combo.currentData() == "exact"
    combo.setCurrentIndex(combo.findData("fast"))
    combo.activated.emit(combo.currentIndex())
    controller = w.sim.bridge.worker.controller
    qtbot.waitUntil(lambda: controller.sim is not None and controller.sim.params.get("fidelity") == "fast",
                    timeout=WAIT)
    assert p.params["fidelity"] == "fast"       # what the sweep dialog fixes
    w.findChild(QtWidgets.QPushButton, "sim.save_to_scene").click()
    assert w.doc.scene.simulation.fidelity == "fast"
    w.undo_stack.undo()
    assert w.doc.scene.simulation.fidelity == "exact"


def test_the_status_bar_shows_fast_modes_last_budget(make_studio, qtbot, tmp_path, monkeypatch):
    """Fast mode shows, in the status bar, whether its error budget held when last measured, from the file the
    fidelity bench leaves; exact mode shows nothing of it; a new document in fast mode shows it at once."""
    budget = tmp_path / "budget.json"
    monkeypatch.setenv("MIRAN_FIDELITY_BUDGET_FILE", str(budget))
    budget.write_text(json.dumps({
        "measured": "2026-11-29 12:00 UTC", "machine": "x86_64, 2 logical cores", "size": "full",
        "character": {"figure": "city miran worst weighted length", "value": 0.015, "budget": 0.02},
        "crowd": {"figure": "city miran crowd density map", "value": 0.107, "budget": 0.05}}))
    w = make_studio(ROAD)
    label = w.findChild(QtWidgets.QLabel, "sim.budget")
    assert label is w.sim.budget_label and not label.isVisibleTo(w)
    combo = w.findChild(QtWidgets.QComboBox, "sim.fidelity")
    combo.setCurrentIndex(combo.findData("fast"))
    combo.activated.emit(combo.currentIndex())
    assert label.isVisibleTo(w) and label.text() == "Fast mode: over its error budget"
    assert "crowd density map 10.7 % of 5 % (over" in label.toolTip()
    assert "per character 1.5 % of 2 % (within" in label.toolTip() and "2026-11-29" in label.toolTip()
    combo.setCurrentIndex(combo.findData("exact"))
    combo.activated.emit(combo.currentIndex())
    assert not label.isVisibleTo(w)
    # A scene saved in fast mode opens with the label shown; an unreadable budget file says it is not measured
    # (the shipped measurement stands in only when the file is missing).
    budget.write_text("not json")
    monkeypatch.setattr("core.bench.fidelity.SHIPPED_BUDGET", tmp_path / "none.json")
    data = json.loads(ROAD.read_text())
    data.setdefault("simulation", {})["fidelity"] = "fast"
    fast_scene = tmp_path / "fast.json"
    fast_scene.write_text(json.dumps(data))
    assert w.files.open_path(fast_scene, prompt=False)
    qtbot.waitUntil(lambda: label.isVisibleTo(w), timeout=WAIT)
    assert label.text() == "Fast mode: error budget not measured"
