"""Simulation > Sweep…: a small sweep of the open scene over a panel parameter, progress, the plot in the plots
dock, and a row double-clicked loaded into the panel."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from sim_harness import SCENES
from sim_window import BUILD_WAIT, WAIT, action, built

pytestmark = pytest.mark.usefixtures("jit_warm")

ROAD = SCENES / "mckenna_road.json"


def _dialog(qtbot, w):
    built(qtbot, w)
    action(w, "sim.sweep").trigger()
    dlg = w.findChild(QtWidgets.QDialog, "sim.sweep_dialog")
    assert dlg is not None and dlg.isVisible()
    return dlg


def _choose(dlg, name: str, lo: float, hi: float, count: int, steps: int, workers: int) -> None:
    dlg.param.setCurrentIndex(dlg.param.findText(name))
    dlg.lo.setValue(lo)
    dlg.hi.setValue(hi)
    dlg.count.setValue(count)
    dlg.steps.setValue(steps)
    dlg.workers.setValue(workers)
    dlg.methods["irm"].setChecked(True)


def test_a_sweep_of_sigma_runs_plots_and_loads_a_row_into_the_panel(make_studio, qtbot):
    w = make_studio(ROAD)
    dlg = _dialog(qtbot, w)
    names = [dlg.param.itemText(k) for k in range(dlg.param.count())]
    assert {"pedestrian.sigma", "pedestrian.d", "pedestrian.weight.mud", "c_s"} <= set(names)
    _choose(dlg, "pedestrian.sigma", 10, 70, 3, 150, 0)
    dlg.run_button.click()
    qtbot.waitUntil(lambda: dlg.thread is None and dlg.runs is not None, timeout=BUILD_WAIT)
    runs = dlg.runs
    assert len(runs) == 6 and sorted(set(runs["pedestrian.sigma"])) == [10.0, 40.0, 70.0]
    assert set(runs["method"]) == {"miran", "irm"}
    assert dlg.bar.value() == 6 and dlg.table.rowCount() == 6
    # the plot in the plots dock: one line per method over the three values
    plot = w.sim.sweep_plot
    curves = [it for it in plot.listDataItems()]
    assert len(curves) == 2 and all(len(c.xData) == 3 for c in curves)
    # a row double-clicked: its sigma and method go to the panel
    row = int(runs.index[(runs["pedestrian.sigma"] == 70.0) & (runs["method"] == "irm")][0])
    dlg.table.cellDoubleClicked.emit(row, 0)
    sigma = w.findChild(QtWidgets.QWidget, "sim.sigma")
    assert sigma.value() == pytest.approx(70.0)
    assert w.sim.parameters.method.currentData() == "irm"
    qtbot.waitUntil(lambda: w.sim.parameters.params["profiles"]["pedestrian"]["sigma"] == 70.0, timeout=WAIT)


@pytest.mark.cluster
def test_a_sweep_on_a_local_cluster_of_two_processes(make_studio, qtbot):
    w = make_studio(ROAD)
    dlg = _dialog(qtbot, w)
    _choose(dlg, "pedestrian.weight.road", 1, 8, 2, 100, 2)
    dlg.run_button.click()
    assert not dlg.run_button.isEnabled() and dlg.stop_button.isEnabled()
    qtbot.waitUntil(lambda: dlg.thread is None, timeout=BUILD_WAIT)
    assert dlg.runs is not None, dlg.status.text()
    assert len(dlg.runs) == 4 and dlg.run_button.isEnabled()


def test_without_the_sweep_extra_the_action_says_what_to_install(make_studio, qtbot, monkeypatch):
    import core.sweep.deps as deps

    def missing(module: str, what: str):
        raise deps.MissingExtra(f"{what} needs the optional package {module!r}; install the 'sweep' extra: "
                                f"{deps.EXTRA_HINT}")

    monkeypatch.setattr(deps, "require", missing)
    w = make_studio(ROAD)
    action(w, "sim.sweep").trigger()
    assert w.findChild(QtWidgets.QDialog, "sim.sweep_dialog") is None
    assert any("miran-studio[sweep]" in e for e in w.sim.errors), w.sim.errors
