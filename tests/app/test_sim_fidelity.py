"""The Simulation panel's fidelity (core.sim.fidelity): choosing Fast reaches the running simulation on the next
step, Save to Scene writes it into the scene, and another document starts from its own setting."""

from __future__ import annotations

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
