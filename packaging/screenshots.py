"""Take the screenshots of the test path and the free space of MIRAN Studio on an X server (run it under Xvfb):

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python packaging/screenshots.py [OUT_FOLDER] [--plots-only]

It opens McKenna + Road in a 1280 x 800 window, switches the GVD/ECM overlay on (its clearance legend shows in the
viewport's corner), places an agent's start with the Place Agent tool and hovers for its goal across the blocks so
that the test path is planned and labelled, and saves the window as ``test_path.png``; then, without the ECM, the
free space shrunk by the profile's radius, zoomed in, as ``free_space.png``. Then it opens the city, adds 100
random agents, drags a measurement area and a measurement line, switches the Voronoi density heatmap on, plays
30 simulated seconds and runs a small sweep of sigma, and saves the window with every plot showing (the run's,
the measurements' and the sweep's) as ``plots.png``. PNGs go to resources/screenshots/
unless a folder is given, as 24-bit images at full compression. Exit status 0 when every picture was written;
otherwise 1 with the reason (a wait that timed out names what it waited for).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCENE = REPO / "scenes" / "mckenna_road.json"
CITY = REPO / "scenes" / "city.json"
AREA = ((215.0, 215.0), (285.0, 285.0))      # the city's central crossing
LINE = ((250.0, 180.0), (250.0, 320.0))
START, GOAL = (20.0, 150.0), (175.0, 95.0)
WAIT_S = 900.0


def wait(app, until, seconds: float = WAIT_S, what: str = "") -> None:
    """Process events until ``until()`` holds; SystemExit naming ``what`` after ``seconds``."""
    end = time.monotonic() + seconds
    while not until():
        if time.monotonic() > end:
            raise SystemExit(f"screenshots: timed out waiting for {what}")
        app.processEvents()
        time.sleep(0.02)


def settle(app, seconds: float = 0.4) -> None:
    """Let pending paints and the status bar catch up."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def save(window, path: Path) -> None:
    """The window as a 24-bit PNG at full compression (no alpha channel: about a fifth smaller)."""
    from PySide6 import QtGui

    img = window.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB888)
    if not img.save(str(path), "PNG", 0):
        raise SystemExit(f"screenshots: could not write {path}")
    print(f"wrote {path} ({path.stat().st_size // 1024} KB)")


def main(argv: list[str]) -> int:
    plots_only = "--plots-only" in argv
    argv = [a for a in argv if a != "--plots-only"]
    out = Path(argv[0]) if argv else REPO / "resources" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    config = tempfile.TemporaryDirectory(prefix="miran-screenshots-")
    os.environ.setdefault("MIRAN_STUDIO_CONFIG_DIR", config.name)
    from PySide6 import QtCore
    from PySide6.QtTest import QTest

    from app.main import create_main_window, ensure_app

    app = ensure_app()
    w = create_main_window(str(SCENE))
    w.resize(1280, 800)
    w.show()
    w.show_editor()
    w.activateWindow()
    wait(app, lambda: w.isVisible(), 10, "the window")
    if plots_only:
        w.sim.start()
        plots_picture(app, w, out)
        return close(w, config)
    w.sim.start()
    w.sim.bridge.send("reset")  # build the run, so its agent stands at its start
    wait(app, lambda: w.sim.frame is not None or bool(w.sim.errors),
         what="the simulation build (JIT warm-up on a first start)")
    w.sim.overlay_actions["ecm"].setChecked(True)
    wait(app, lambda: w.sim.legend.isVisible() or bool(w.sim.errors), what="the ECM overlay")
    if w.sim.errors:
        print(f"screenshots: the ECM overlay failed: {w.sim.errors[0]}", file=sys.stderr)
    w.set_tool("agent")
    w.state.set("agent_mode", "cdt")
    view = w.viewport.viewport()
    QTest.mouseClick(view, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier,
                     w.viewport.world_to_pixel(*START))
    QTest.mouseMove(view, w.viewport.world_to_pixel(*GOAL))
    layer = w.test_path.layer
    # The hovered goal snaps to the grid: any probe ending near GOAL is the one asked for.
    wait(app, lambda: layer.probe is not None and abs(layer.probe.goal[0] - GOAL[0]) < 10, 300, "the test path")
    settle(app)
    save(w, out / "test_path.png")
    w.sim.overlay_actions["ecm"].setChecked(False)  # the second picture: the free space alone
    w.actions["view.shrunk_free"].setChecked(True)
    w.viewport.view.setRange(QtCore.QRectF(0.0, 120.0, 60.0, 40.0), padding=0)  # close enough to see the margin
    wait(app, lambda: layer.rings is not None, what="the shrunk free space")
    settle(app)
    save(w, out / "free_space.png")
    w.actions["view.shrunk_free"].setChecked(False)
    plots_picture(app, w, out)
    return close(w, config)


def close(w, config) -> int:
    """Close the window without the unsaved-changes prompt and remove the temporary settings."""
    from PySide6 import QtWidgets

    w.undo_stack.setClean()
    w.close()
    QtWidgets.QApplication.processEvents()
    config.cleanup()
    return 0


def drag(w, a, b) -> None:
    """Drag with the left button from scene point a to b on the viewport (real mouse events)."""
    from PySide6 import QtCore, QtGui, QtWidgets
    from PySide6.QtTest import QTest

    view = w.viewport.viewport()
    pa, pb = w.viewport.world_to_pixel(*a), w.viewport.world_to_pixel(*b)
    QTest.mousePress(view, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier, pa)
    for k in range(1, 6):
        p = QtCore.QPointF(pa + (pb - pa) * (k / 5))
        ev = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, p, QtCore.QPointF(view.mapToGlobal(p.toPoint())),
                               QtCore.Qt.MouseButton.NoButton, QtCore.Qt.MouseButton.LeftButton,
                               QtCore.Qt.KeyboardModifier.NoModifier)
        QtWidgets.QApplication.sendEvent(view, ev)
    QTest.mouseRelease(view, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier, pb)


def plots_picture(app, w, out: Path) -> None:
    """The city with 107 agents, a measurement area and line, the density heatmap, 30 s played and a sweep:
    ``plots.png``, every plot of the Plots and Sweep docks showing."""
    from PySide6 import QtWidgets

    w.files.open_path(CITY, prompt=False)
    w.show_editor()
    settle(app)
    w.sim.bridge.send("reset")
    wait(app, lambda: w.sim.info is not None and len(w.sim.info.ids) == 7, what="the city's build")
    w.sim.parameters.add_n.setValue(100)
    w.sim.parameters.findChild(QtWidgets.QPushButton, "sim.add_agents").click()
    wait(app, lambda: w.sim.info is not None and len(w.sim.info.ids) == 107, what="the random agents")
    w.set_tool("measure_area")
    drag(w, *AREA)
    w.set_tool("measure_line")
    drag(w, *LINE)
    w.set_tool("select")
    mode = w.sim.replay.timeline.mode
    mode.setCurrentIndex(mode.findData("voronoi"))
    w.sim.set_speed_index(5)                    # 8x
    w.sim.play()
    wait(app, lambda: w.sim.frame is not None and w.sim.frame.time >= 30.0, what="30 simulated seconds")
    w.sim.pause()
    def measured_to_the_end() -> bool:
        plots = w.sim.plots
        if plots.density_plot is None or plots.flow_plot is None or not w.sim.replay.legend.isVisible():
            return False
        curves = plots.density_plot.listDataItems()
        return bool(curves) and len(curves[0].xData) > 0 and curves[0].xData.max() >= 0.95 * w.sim.frame.time

    wait(app, measured_to_the_end, what="the measurement plots up to the paused time, and the heatmap")
    w.sim.actions["sim.sweep"].trigger()
    dlg = w.sim.sweep
    dlg.param.setCurrentIndex(dlg.param.findText("pedestrian.sigma"))
    dlg.lo.setValue(5.0)
    dlg.hi.setValue(80.0)
    dlg.count.setValue(4)
    dlg.steps.setValue(300)
    dlg.workers.setValue(0)
    dlg.methods["irm"].setChecked(True)
    dlg.run_button.click()
    wait(app, lambda: dlg.thread is None and dlg.runs is not None, what="the sweep")
    dlg.hide()
    settle(app, 1.5)
    save(w, out / "plots.png")


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main(sys.argv[1:]))
