"""What the window shows of its document, read from the real widgets, and what the engine holds of it: the state
rule's tests compare these after a document change with a fresh start on the new document.

Left out on purpose: what belongs to the application, not to a document (the speed, the threads, which overlays
and which density mode are switched on, the docks' places) and what is drawn before anything ran (the viewport's
zoom)."""

from __future__ import annotations

import re

import numpy as np
from PySide6 import QtWidgets

from sim_window import BUILD_WAIT, WAIT


def _data(item) -> tuple:
    x, y = item.getData()
    return (0 if x is None else len(x), 0 if y is None else len(y))


def panel_state(w) -> dict:
    """The Simulation panel's values and choices, as a user reads them."""
    p = w.sim.parameters
    out = {
        "method": p.method.currentData(), "integrator": p.integrator.currentData(), "dt": p.dt.value(),
        "fidelity": p.fidelity.currentData(),
        "compare_methods": [p.compare_method.itemData(k) for k in range(p.compare_method.count())],
        "compare_method": p.compare_method.currentData(),
        "profiles": [p.profile.itemText(k) for k in range(p.profile.count())], "profile": p.profile.currentText(),
        "profile_fields": {n: (f.value(), f.isEnabled()) for n, f in p.profile_fields.items()},
        "weights": {t: f.value() for t, f in p.weight_fields.items()},
        "forces": {n: f.value() for n, f in p.force_fields.items()}, "interact": p.interact.isChecked(),
        "agent": (p.agent.minimum(), p.agent.maximum(), p.agent.value(), p.agent_id.text()),
        "add": (p.add_n.value(), p.add_seed.value()),
    }
    return out


def profiles_panel(w) -> tuple:
    """The Profiles panel: the chosen profile, its values and its weight per terrain type (name, value)."""
    p = w.profiles
    rows = []
    for r in range(p.weights.rowCount()):
        cell = p.weights.cellWidget(r, 1)
        rows.append((p.weights.item(r, 0).text(), cell.value() if cell is not None else p.weights.item(r, 1).text()))
    return p.combo.currentText(), {n: b.value() for n, b in p.boxes.items()}, rows


def window_state(w) -> dict:
    """Everything of the document the window shows: panels, toggles, plots, timeline, overlays, labels."""
    ui, plots, replay = w.sim, w.sim.plots, w.sim.replay
    scene = w.doc.scene
    sweep = ui.sweep_plot.plot_item
    return {
        "scene": scene,
        "title": w.windowTitle(),
        "panel": panel_state(w),
        "profiles_panel": profiles_panel(w),
        "toggles": {name: ui.actions[name].isChecked() for name in ("sim.compare", "sim.preview")},
        "clock": ui.clock.text(), "stats": re.sub(r"step [\d.]+ ms", "step … ms", ui.stats_label.text()),
        "plots": {
            "shown": [wdg.objectName() for wdg in plots.shown()],
            "terrain_names": plots.names,
            "arrivals_title": plots.arrivals.titleLabel.text,
            "curves": [_data(c) for c in (plots.speed_curve, plots.arrival_curve, plots.compare_arrival_curve)],
            "bars": len(plots.bars.opts["height"]) if plots.bars.opts["height"] is not None else 0,
            "density": None if plots.density_plot is None else len(plots.density_plot.listDataItems()),
            "flow": None if plots.flow_plot is None else len(plots.flow_plot.listDataItems()),
            "sweep": (w.docks["sweep"].isVisible(), len(sweep.listDataItems()), sweep.titleLabel.text),
        },
        "timeline": (replay.timeline.slider.minimum(), replay.timeline.slider.maximum(), replay.timeline.label.text(),
                     replay.active, replay.store is None),
        "heatmap": (replay.layer.grid is None, replay.legend.isVisible()),
        "measurement": (len(replay.layer.area.getData()[0] if replay.layer.area.getData()[0] is not None else []),
                        len(replay.layer.line.getData()[0] if replay.layer.line.getData()[0] is not None else [])),
        "layers": {"agents": len(ui.agents.main.data), "compare": len(ui.agents.compare.data),
                   "trails": [_data(c) for c in ui.trails.curves], "ghost": [_data(c) for c in ui.ghost.curves],
                   "trace": ui.trace.last is None, "ecm": len(ui.ecm.axis._groups), "legend": ui.legend.isVisible()},
        "selected": ui.selected,
        "errors": list(ui.errors),
        "error_box": ui._error_box is not None and ui._error_box.isVisible(),
    }


def engine_state(w) -> dict:
    """What the worker holds of the document (read from its thread's controller; the worker is idle)."""
    c = w.sim.bridge.worker.controller
    return {"scene": c.document_scene(), "overrides": dict(c.overrides), "compare": c.compare_method,
            "preview": c.preview_on, "extra": len(c.extra), "selected": c.selected}


def built_state(w) -> dict:
    """The engine's parameters and agents after a build, as the last BuildInfo reports them."""
    info = w.sim.info
    return {"params": info.params, "method": info.method, "ids": info.ids, "profiles": info.profiles,
            "terrains": info.terrains, "compare": info.compare, "scene_name": info.scene_name}


def settle(qtbot, w) -> None:
    """Let the worker apply every queued command and the window draw what it published."""
    c = w.sim.bridge.worker.controller
    q = w.sim.bridge.commands
    qtbot.waitUntil(lambda: q.empty(), timeout=WAIT)
    qtbot.wait(150)
    qtbot.waitUntil(lambda: q.empty() and not c.playing and c.document_scene() == w.doc.scene, timeout=BUILD_WAIT)
    qtbot.wait(200)


def build(qtbot, w) -> None:
    """Reset (Simulation > Reset) and wait for the build of the open document."""
    gen = w.sim.generation
    w.sim.actions["sim.reset"].trigger()
    qtbot.waitUntil(lambda: (w.sim.info is not None and w.sim.generation != gen and w.sim.frame is not None)
                    or bool(w.sim.errors), timeout=BUILD_WAIT)
    assert not w.sim.errors, w.sim.errors


def assert_same(got: dict, want: dict, where: str) -> None:
    """Equal, key by key, naming the first key that differs."""
    assert got.keys() == want.keys()
    for k in want:
        a, b = got[k], want[k]
        if isinstance(b, np.ndarray):
            np.testing.assert_array_equal(a, b, err_msg=f"{where}: {k}")
        else:
            assert a == b, f"{where}: {k} differs:\n  after: {a!r}\n  fresh: {b!r}"


def spin_type(spin: QtWidgets.QAbstractSpinBox, text: str, qtbot) -> None:
    """Type ``text`` into a spin box as a user would (select all, keys, Enter)."""
    from PySide6 import QtCore
    from PySide6.QtTest import QTest

    spin.setFocus()
    spin.selectAll()
    QTest.keyClicks(spin, text)
    QTest.keyClick(spin, QtCore.Qt.Key.Key_Return)


OSM = """<?xml version='1.0' encoding='UTF-8'?>
<osm version="0.6">
 <node id="1" lat="48.0000" lon="11.0000"/><node id="2" lat="48.0000" lon="11.0020"/>
 <node id="3" lat="48.0006" lon="11.0005"/><node id="4" lat="48.0006" lon="11.0009"/>
 <node id="5" lat="48.0009" lon="11.0009"/><node id="6" lat="48.0009" lon="11.0005"/>
 <way id="10"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/></way>
 <way id="11"><nd ref="3"/><nd ref="4"/><nd ref="5"/><nd ref="6"/><nd ref="3"/><tag k="building" v="yes"/></way>
</osm>"""


def write_osm(path):
    """A street and a building in OpenStreetMap's XML."""
    path.write_text(OSM)
    return path
